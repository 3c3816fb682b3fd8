//! The stream adapter: an application's byte streams as QUIC streams.
//!
//! An application sees numbered one-way byte streams (stream 0 from the
//! flow's `from` to its `to`, others opened at run time either way) and
//! hands them counts of bytes. Over QUIC each is a unidirectional stream of
//! the flow's one connection, opened by its sending end (RFC 9000 §2.1),
//! carrying real bytes: the byte at stream offset `o` is `o mod 251` (a
//! prime, so no packet- or window-sized shift of a stream looks like
//! itself). They are written from one static buffer without copies
//! (`write_chunks` keeps the `Bytes`), and the receiving end reads them in
//! order as soon as they arrive (an application that reads at once, as
//! TCP's receivers deliver at once), checks each byte against the pattern
//! (byte conservation, with the bytes themselves) and counts them.
//!
//! A stream the application closes is finished (FIN) once every byte it
//! was handed is written; a stream waits to be opened while its end has
//! no connection yet (a server before the client's first packet) or the
//! peer's stream limit is reached (quinn's default: 100 at a time).
//!
//! At a QUIC-terminating proxy a connection's end is a *relay end*
//! ([`Streams::set_relay`]): the streams it receives are not read at once
//! but by the relay, as far as it has room ([`Streams::relay_read`], the
//! bytes themselves handed over without a copy), and the streams it sends
//! carry the pieces the relay hands it ([`Streams::queue_piece`]) instead
//! of the pattern. It also counts the bytes received and not read yet
//! ([`Streams::unread`]), from the stream frames quinn reports
//! (`trace.rs`).

use super::trace::StreamFrame;
use crate::tcp::rangeset::RangeSet;
use bytes::Bytes;
use quinn_proto::{Connection, Dir, ReadError, StreamId, WriteError};
use std::collections::VecDeque;

/// Bytes written per call at most.
const PIECE: usize = 65_536;
const PERIOD: usize = 251;

/// The stream pattern, `PERIOD + PIECE` bytes: any piece of a stream is
/// one slice of it.
static PATTERN: [u8; PERIOD + PIECE] = {
    let mut p = [0u8; PERIOD + PIECE];
    let mut i = 0;
    while i < p.len() {
        p[i] = (i % PERIOD) as u8;
        i += 1;
    }
    p
};

/// Unlimited bytes (a bulk source).
pub const UNLIMITED: u64 = u64::MAX;

/// Bytes that arrived in order at a stream's receiving end, in one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub stream: usize,
    pub bytes: u64,
    /// Bytes delivered on the stream so far.
    pub total: u64,
}

#[derive(Debug)]
struct AppStream {
    /// Sent by end 0 (the flow's `from`) or end 1.
    sender: usize,
    id: Option<StreamId>,
    /// Handed over and not yet written ([`UNLIMITED`]: no end).
    queued: u64,
    written: u64,
    delivered: u64,
    /// Finish once everything is written.
    finish: bool,
    finished: bool,
    /// In its end's list of streams with something to write.
    busy: bool,
    /// Sent by a relay end: the pieces the relay handed over, not yet
    /// written (`queued` counts their bytes).
    pieces: VecDeque<Bytes>,
    /// Received by a relay end: bytes received at or beyond the read
    /// point (`delivered`), any order.
    received: Option<Box<RangeSet>>,
    /// Received by a relay end: read to its end (FIN).
    read_all: bool,
    /// In its receiving relay end's list of streams to read.
    readable: bool,
}

/// What a relay read from a stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelayRead {
    pub bytes: u64,
    /// The stream's last byte was read (the sender finished it).
    pub fin: bool,
}

/// The application's streams on one connection.
#[derive(Debug, Default)]
pub struct Streams {
    list: Vec<AppStream>,
    /// Application stream of each QUIC stream, by its sending end and index.
    by_index: [Vec<usize>; 2],
    /// Streams waiting to be opened at each end, in order.
    waiting: [VecDeque<usize>; 2],
    /// Streams with bytes to write or a finish to send, at each end.
    busy: [Vec<usize>; 2],
    /// Relay ends (a proxy's) rather than the application's.
    relay: [bool; 2],
    /// At a relay end: streams that may have bytes to read, in order.
    readable: [Vec<usize>; 2],
    /// At a relay end: bytes received and not read yet, all streams.
    unread: [u64; 2],
}

impl Streams {
    /// A new application stream sent by end `sender` (not opened yet).
    pub fn add(&mut self, sender: usize) -> usize {
        self.list.push(AppStream {
            sender,
            id: None,
            queued: 0,
            written: 0,
            delivered: 0,
            finish: false,
            finished: false,
            busy: false,
            pieces: VecDeque::new(),
            received: None,
            read_all: false,
            readable: false,
        });
        self.waiting[sender].push_back(self.list.len() - 1);
        self.list.len() - 1
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The end that sends stream `s`.
    pub fn sender(&self, s: usize) -> usize {
        self.list[s].sender
    }

    /// Bytes delivered on stream `s` so far.
    pub fn delivered(&self, s: usize) -> u64 {
        self.list[s].delivered
    }

    /// Bytes written into quinn on stream `s` so far.
    pub fn written(&self, s: usize) -> u64 {
        self.list[s].written
    }

    /// Hand `bytes` more to stream `s` (written by [`Streams::pump`]).
    pub fn queue(&mut self, s: usize, bytes: u64) {
        let q = &mut self.list[s].queued;
        *q = if bytes == UNLIMITED || *q == UNLIMITED {
            UNLIMITED
        } else {
            *q + bytes
        };
        self.mark_busy(s);
    }

    /// The application closed stream `s`: finish it once it is written.
    pub fn close(&mut self, s: usize) {
        self.list[s].finish = true;
        self.mark_busy(s);
    }

    fn mark_busy(&mut self, s: usize) {
        let st = &mut self.list[s];
        if !st.busy {
            st.busy = true;
            self.busy[st.sender].push(s);
        }
    }

    /// Open what waits at end `end` and write what every one of its
    /// streams has queued, as far as quinn takes it.
    pub fn pump(&mut self, end: usize, conn: &mut Connection) -> Result<(), String> {
        while let Some(&s) = self.waiting[end].front() {
            let Some(id) = conn.streams().open(Dir::Uni) else {
                break;
            };
            self.waiting[end].pop_front();
            self.list[s].id = Some(id);
            let k = id.index() as usize;
            let map = &mut self.by_index[end];
            if map.len() <= k {
                map.resize(k + 1, usize::MAX);
            }
            map[k] = s;
        }
        let mut busy = std::mem::take(&mut self.busy[end]);
        let mut res = Ok(());
        busy.retain(|&s| {
            if res.is_ok() {
                res = self.write(s, conn);
            }
            let st = &mut self.list[s];
            st.busy = st.queued > 0 || (st.finish && !st.finished);
            st.busy
        });
        self.busy[end] = busy;
        res
    }

    /// Write what stream `s` has queued, as far as quinn takes it (its
    /// stream and connection windows, its send window); finish it if asked.
    fn write(&mut self, s: usize, conn: &mut Connection) -> Result<(), String> {
        let st = &mut self.list[s];
        let Some(id) = st.id else { return Ok(()) };
        if !st.pieces.is_empty() {
            match conn
                .send_stream(id)
                .write_chunks(st.pieces.make_contiguous())
            {
                // A piece written in part was advanced in place.
                Ok(w) => {
                    st.pieces.drain(..w.chunks);
                    st.written += w.bytes as u64;
                    st.queued -= w.bytes as u64;
                }
                Err(WriteError::Blocked) => {}
                Err(e) => return Err(format!("stream {s}: {e}")),
            }
        }
        while st.queued > 0 && st.pieces.is_empty() {
            let n = st.queued.min(PIECE as u64) as usize;
            let off = (st.written % PERIOD as u64) as usize;
            let mut chunk = [Bytes::from_static(&PATTERN[off..off + n])];
            match conn.send_stream(id).write_chunks(&mut chunk) {
                Ok(w) => {
                    st.written += w.bytes as u64;
                    if st.queued != UNLIMITED {
                        st.queued -= w.bytes as u64;
                    }
                    if w.bytes < n {
                        break;
                    }
                }
                Err(WriteError::Blocked) => break,
                Err(e) => return Err(format!("stream {s}: {e}")),
            }
        }
        if st.finish && st.queued == 0 && !st.finished {
            st.finished = true;
            conn.send_stream(id)
                .finish()
                .map_err(|e| format!("stream {s}: {e}"))?;
        }
        Ok(())
    }

    // ---- relay ends (a QUIC-terminating proxy's) -------------------

    /// End `end` is a relay end.
    pub fn set_relay(&mut self, end: usize) {
        self.relay[end] = true;
    }

    /// Whether end `end` is a relay end.
    pub fn is_relay(&self, end: usize) -> bool {
        self.relay[end]
    }

    /// Bytes relay end `end` received and has not read yet.
    pub fn unread(&self, end: usize) -> u64 {
        self.unread[end]
    }

    /// The application stream of QUIC stream index `index` sent by end `from`.
    fn of_index(&self, from: usize, index: u64) -> Option<usize> {
        match self.by_index[from].get(index as usize) {
            Some(&s) if s != usize::MAX => Some(s),
            _ => None,
        }
    }

    /// Relay end `end` processed these stream frames (the peer's streams).
    pub fn note_frames(&mut self, end: usize, frames: &[StreamFrame]) {
        for f in frames {
            let Some(s) = self.of_index(1 - end, f.index) else {
                continue;
            };
            let st = &mut self.list[s];
            let (a, b) = (f.offset.max(st.delivered), f.offset + f.len);
            if st.read_all || a >= b {
                continue;
            }
            let set = st.received.get_or_insert_with(Default::default);
            self.unread[end] += set.insert(a, b);
        }
    }

    /// Stream `id` (sent by end `from`) may have bytes for relay end
    /// `1 - from` to read.
    fn mark_readable(&mut self, from: usize, id: StreamId) -> Result<(), String> {
        let s = self
            .of_index(from, id.index())
            .ok_or_else(|| format!("data on QUIC stream {id}, which no application stream sent"))?;
        let st = &mut self.list[s];
        if !st.readable && !st.read_all {
            st.readable = true;
            self.readable[1 - from].push(s);
        }
        Ok(())
    }

    /// The streams relay end `end` may read now, in order.
    pub fn readable(&self, end: usize) -> &[usize] {
        &self.readable[end]
    }

    /// Relay end `end` reads at most `max` bytes of stream `s`, in order,
    /// into `out` (the received bytes themselves). A stream with nothing
    /// more to read now leaves the readable list until quinn reports more.
    pub fn relay_read(
        &mut self,
        end: usize,
        s: usize,
        max: u64,
        conn: &mut Connection,
        out: &mut Vec<Bytes>,
    ) -> Result<RelayRead, String> {
        let st = &mut self.list[s];
        let id = st.id.expect("a stream quinn reported has an ID");
        let mut got = RelayRead::default();
        let mut more = true;
        let mut err = None;
        if let Ok(mut chunks) = conn.recv_stream(id).read(true) {
            while got.bytes < max {
                match chunks.next((max - got.bytes).min(usize::MAX as u64) as usize) {
                    Ok(Some(c)) => {
                        got.bytes += c.bytes.len() as u64;
                        out.push(c.bytes);
                    }
                    Ok(None) => {
                        got.fin = true;
                        more = false;
                        break;
                    }
                    Err(ReadError::Blocked) => {
                        more = false;
                        break;
                    }
                    Err(e) => {
                        err = Some(format!("stream {s}: {e}"));
                        more = false;
                        break;
                    }
                }
            }
            // The credit for what was read goes out with the next packet.
            let _ = chunks.finalize();
        } else {
            more = false;
        }
        st.delivered += got.bytes;
        st.read_all |= got.fin;
        if let Some(set) = st.received.as_deref_mut() {
            self.unread[end] -= set.remove_below(st.delivered);
            if st.read_all {
                self.unread[end] -= set.bytes();
                st.received = None;
            }
        }
        if !more {
            st.readable = false;
            self.readable[end].retain(|&x| x != s);
        }
        match err {
            Some(e) => Err(e),
            None => Ok(got),
        }
    }

    /// The relay hands stream `s` (sent by a relay end) a piece to send.
    pub fn queue_piece(&mut self, s: usize, piece: Bytes) {
        let st = &mut self.list[s];
        st.queued += piece.len() as u64;
        st.pieces.push_back(piece);
        self.mark_busy(s);
    }

    /// Read what arrived in order on stream `id`, sent by end `from`;
    /// `out` gets what was delivered.
    pub fn read(
        &mut self,
        from: usize,
        id: StreamId,
        conn: &mut Connection,
        out: &mut Vec<Delivery>,
    ) -> Result<(), String> {
        if self.relay[1 - from] {
            return self.mark_readable(from, id);
        }
        let Some(s) = self.of_index(from, id.index()) else {
            return Err(format!(
                "data on QUIC stream {id}, which no application stream sent"
            ));
        };
        let mut rs = conn.recv_stream(id);
        let mut chunks = match rs.read(true) {
            Ok(c) => c,
            // Already finished and read to its end.
            Err(_) => return Ok(()),
        };
        let st = &mut self.list[s];
        let before = st.delivered;
        let mut err = None;
        loop {
            match chunks.next(usize::MAX) {
                Ok(Some(c)) => {
                    if c.offset != st.delivered {
                        err = Some(format!(
                            "stream {s}: bytes at offset {} arrived after {} in order",
                            c.offset, st.delivered
                        ));
                        break;
                    }
                    if let Some(at) = mismatch(c.offset, &c.bytes) {
                        err = Some(format!("stream {s}: byte {at} is not the byte sent"));
                        break;
                    }
                    st.delivered += c.bytes.len() as u64;
                }
                Ok(None) => break,
                Err(ReadError::Blocked) => break,
                Err(e) => {
                    err = Some(format!("stream {s}: {e}"));
                    break;
                }
            }
        }
        // Always: the credit for what was read goes out with the next packet.
        let _ = chunks.finalize();
        if let Some(e) = err {
            return Err(e);
        }
        if st.delivered > before {
            out.push(Delivery {
                stream: s,
                bytes: st.delivered - before,
                total: st.delivered,
            });
        }
        Ok(())
    }
}

/// The first offset in `bytes` (starting at stream offset `offset`) that
/// is not the pattern's byte, if any.
fn mismatch(offset: u64, bytes: &[u8]) -> Option<u64> {
    let mut at = 0usize;
    while at < bytes.len() {
        let n = (bytes.len() - at).min(PIECE);
        let off = ((offset + at as u64) % PERIOD as u64) as usize;
        let want = &PATTERN[off..off + n];
        let got = &bytes[at..at + n];
        if want != got {
            let k = want.iter().zip(got).position(|(a, b)| a != b).unwrap();
            return Some(offset + (at + k) as u64);
        }
        at += n;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_is_the_offset_modulo_251_in_any_slice() {
        let bytes: Vec<u8> = (1000u64..1000 + 70_000).map(|o| (o % 251) as u8).collect();
        assert_eq!(mismatch(1000, &bytes), None);
        let mut bad = bytes.clone();
        bad[66_000] ^= 0x40;
        assert_eq!(mismatch(1000, &bad), Some(67_000));
        // One byte off: every byte differs from its place.
        assert_eq!(mismatch(1001, &bytes[..10]), Some(1001));
    }

    #[test]
    fn queued_bytes_add_up_and_unlimited_stays_unlimited() {
        let mut s = Streams::default();
        let a = s.add(0);
        let b = s.add(1);
        s.queue(a, 5);
        s.queue(a, 7);
        assert_eq!(s.list[a].queued, 12);
        s.queue(b, UNLIMITED);
        s.queue(b, 3);
        assert_eq!(s.list[b].queued, UNLIMITED);
        assert_eq!((s.sender(a), s.sender(b)), (0, 1));
        assert_eq!(s.waiting[0], [a]);
        assert_eq!(s.waiting[1], [b]);
    }
}
