//! Selective-Repeat ARQ with low persistency on the DVB-S forward link,
//! after N. Celandroni, E. Ferro, G. Giambene, M. Marandola, "Satellite-3G
//! Hybrid Networks: Impact of ACM and ARQ on TCP Performance" (2007), as two
//! sans-IO state machines: [`ArqSender`] (the sender link buffer, SLB) and
//! [`ArqReceiver`] (the receiver link buffer, RLB). They take `now` and an
//! input and return what to do; the link layer (`dvbs.rs`) moves frames and
//! ACKs and keeps their timers.
//!
//! - Every frame that reaches the receiver is acknowledged. The ACK's SN
//!   field is the next expected SN (cumulative); its BoS/EoS fields name
//!   either the frame just received (a plain ACK) or, when that frame
//!   revealed a gap, the first and last missing frames (the *duplicate
//!   ACK*; the frame just received is then EoS + 1).
//! - On a duplicate ACK the sender queues the missing frames for immediate
//!   retransmission, ahead of new frames (the link sends them in the most
//!   robust mode). A frame is retransmitted at most `nmax` times (the
//!   persistency); asked once more, it is dropped from the SLB instead.
//! - ASTO (optional): a per-frame sender timeout, started at each
//!   (re)transmission; on expiry a frame neither cumulatively nor
//!   individually acknowledged is retransmitted (within the persistency).
//!   It recovers a frame whose duplicate ACK was lost.
//! - ARTO: one receiver timer, restarted each time an in-sequence segment
//!   completes (and started when a gap appears with the timer idle). On
//!   expiry with a gap the receiver gives up on the missing segment: it
//!   skips to the next segment start it holds and delivers the completed
//!   segments that follow, so TCP sees duplicate ACKs rather than a stall
//!   ending in its retransmission timeout.
//! - The SLB holds frames until cumulatively acknowledged; a new frame may
//!   be sent only within `window` frames of the oldest unacknowledged one,
//!   so the RLB (the same size) never overflows. Sizing rule of the study:
//!   RLB = SLB ≥ ASTO × information rate in the GOOD state.

use super::framing::{Frame, BOS, EOS};
use crate::engine::time::{Dur, Time};
use std::collections::VecDeque;

/// What an ARQ ACK says besides the cumulative SN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckKind {
    /// The frame with this SN arrived.
    Frame(u64),
    /// Frames `bos..=eos` are missing; frame `eos + 1` arrived.
    Missing { bos: u64, eos: u64 },
    /// Cumulative only (sent when the receiver gives up on a segment).
    Cum,
}

/// An ARQ ACK: four 16-bit fields on the wire (SN, BoS, EoS, CRC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArqAck {
    /// Next expected SN: every frame below it is received or given up.
    pub cum: u64,
    pub kind: AckKind,
}

impl ArqAck {
    pub fn is_duplicate(&self) -> bool {
        matches!(self.kind, AckKind::Missing { .. })
    }
}

/// Bytes of an ARQ ACK on the return link (four 16-bit fields).
pub const ARQ_ACK_BYTES: u32 = 8;

#[derive(Clone, Copy, Debug, Default)]
struct SlbEntry {
    marks: u8,
    /// Transmissions so far (1 + retransmissions).
    tx: u32,
    /// Individually acknowledged.
    received: bool,
    /// Persistency exhausted: never sent again.
    dropped: bool,
    /// Waiting in the retransmission queue.
    queued: bool,
}

/// Counters of the sender.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArqSenderStats {
    pub retransmissions: u64,
    pub duplicate_acks: u64,
    pub asto_expiries: u64,
    pub dropped_frames: u64,
}

/// The sender side: the SLB, the retransmission queue and the ASTO timers.
pub struct ArqSender {
    nmax: u32,
    asto: Option<Dur>,
    window: u64,
    /// Oldest SN not cumulatively acknowledged (the SLB's first entry).
    base: u64,
    slb: VecDeque<SlbEntry>,
    retx: VecDeque<u64>,
    /// (deadline, SN, transmission count it was armed for), in arming order.
    asto_q: VecDeque<(Time, u64, u32)>,
    pub stats: ArqSenderStats,
}

impl ArqSender {
    /// `window`: SLB size in frames; `nmax`: persistency; `asto`: sender
    /// timeout, if any.
    pub fn new(window: u64, nmax: u32, asto: Option<Dur>) -> ArqSender {
        ArqSender {
            nmax,
            asto,
            window: window.max(1),
            base: 0,
            slb: VecDeque::new(),
            retx: VecDeque::new(),
            asto_q: VecDeque::new(),
            stats: ArqSenderStats::default(),
        }
    }

    /// Next SN to allocate.
    #[inline]
    pub fn next_sn(&self) -> u64 {
        self.base + self.slb.len() as u64
    }

    /// Oldest SN not cumulatively acknowledged.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Frames held (sent or waiting to be sent, not yet cumulatively acknowledged).
    pub fn held(&self) -> u64 {
        self.slb.len() as u64
    }

    /// Can a segment of `n` frames enter the SLB? (A segment larger than
    /// the whole window enters an empty SLB, so nothing can block forever.)
    #[inline]
    pub fn has_room(&self, n: u32) -> bool {
        self.slb.is_empty() || self.slb.len() as u64 + n as u64 <= self.window
    }

    /// Put a segment of `n` frames into the SLB; returns its first SN.
    pub fn push_segment(&mut self, n: u32) -> u64 {
        let first = self.next_sn();
        for i in 0..n {
            self.slb.push_back(SlbEntry {
                marks: super::framing::marks(i, n),
                ..SlbEntry::default()
            });
        }
        first
    }

    fn entry(&mut self, sn: u64) -> Option<&mut SlbEntry> {
        if sn < self.base {
            return None;
        }
        self.slb.get_mut((sn - self.base) as usize)
    }

    /// The frame `sn` as sent (its marks), if it is in the SLB.
    pub fn frame(&self, sn: u64) -> Option<Frame> {
        if sn < self.base {
            return None;
        }
        self.slb.get((sn - self.base) as usize).map(|e| Frame {
            sn,
            marks: e.marks & (BOS | EOS),
        })
    }

    /// The next frame to retransmit, if any (taken off the queue).
    pub fn next_retransmission(&mut self) -> Option<u64> {
        while let Some(sn) = self.retx.pop_front() {
            let live = match self.entry(sn) {
                Some(e) => {
                    e.queued = false;
                    !e.dropped && !e.received
                }
                None => false,
            };
            if live {
                return Some(sn);
            }
        }
        None
    }

    /// Frame `sn` (new or retransmitted) has been sent; its transmission
    /// ends at `end` (the ASTO runs from there).
    pub fn on_sent(&mut self, sn: u64, end: Time) {
        let asto = self.asto;
        let Some(e) = self.entry(sn) else { return };
        e.tx += 1;
        let tx = e.tx;
        if tx > 1 {
            self.stats.retransmissions += 1;
        }
        if let Some(a) = asto {
            self.asto_q.push_back((end + a, sn, tx));
        }
    }

    /// Ask for frame `sn` again: queue it, or drop it if its persistency is spent.
    fn request(&mut self, sn: u64) -> bool {
        let nmax = self.nmax;
        let Some(e) = self.entry(sn) else {
            return false;
        };
        if e.received || e.dropped || e.queued || e.tx == 0 {
            return false;
        }
        if e.tx > nmax {
            e.dropped = true;
            self.stats.dropped_frames += 1;
            return false;
        }
        e.queued = true;
        self.retx.push_back(sn);
        true
    }

    /// An ARQ ACK arrives.
    pub fn on_ack(&mut self, ack: &ArqAck) {
        while self.base < ack.cum && !self.slb.is_empty() {
            self.slb.pop_front();
            self.base += 1;
        }
        match ack.kind {
            AckKind::Frame(sn) => {
                if let Some(e) = self.entry(sn) {
                    e.received = true;
                }
            }
            AckKind::Missing { bos, eos } => {
                self.stats.duplicate_acks += 1;
                if let Some(e) = self.entry(eos + 1) {
                    e.received = true;
                }
                for sn in bos.max(self.base)..=eos {
                    self.request(sn);
                }
            }
            AckKind::Cum => {}
        }
    }

    fn asto_stale(&self, sn: u64, tx: u32) -> bool {
        if sn < self.base {
            return true;
        }
        match self.slb.get((sn - self.base) as usize) {
            Some(e) => e.tx != tx || e.received || e.dropped || e.queued,
            None => true,
        }
    }

    /// When the next ASTO may expire (stale timers at the front removed).
    pub fn asto_deadline(&mut self) -> Option<Time> {
        while let Some(&(_, sn, tx)) = self.asto_q.front() {
            if self.asto_stale(sn, tx) {
                self.asto_q.pop_front();
            } else {
                break;
            }
        }
        self.asto_q.front().map(|x| x.0)
    }

    /// Expire every ASTO due at `now`; returns how many frames were queued again.
    pub fn on_asto(&mut self, now: Time) -> u32 {
        let mut n = 0;
        while let Some(&(at, sn, tx)) = self.asto_q.front() {
            if at > now {
                break;
            }
            self.asto_q.pop_front();
            if self.asto_stale(sn, tx) {
                continue;
            }
            self.stats.asto_expiries += 1;
            if self.request(sn) {
                n += 1;
            }
        }
        n
    }

    /// Is anything waiting for retransmission?
    pub fn has_retransmissions(&self) -> bool {
        !self.retx.is_empty()
    }
}

/// What the receiver asks the link to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxOut {
    /// Send this ACK on the return path.
    Ack(ArqAck),
    /// The segment ending with frame `eos` is complete and in order: deliver it.
    Deliver { eos: u64 },
    /// The receiver gave up on every frame below `upto` not yet delivered.
    GiveUp { upto: u64 },
}

/// Counters of the receiver.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArqReceiverStats {
    pub frames: u64,
    pub duplicates: u64,
    pub duplicate_acks: u64,
    pub segments: u64,
    pub give_ups: u64,
}

const GOT: u8 = 4;

/// The receiver side: the RLB, in-order segment delivery and the ARTO.
pub struct ArqReceiver {
    arto: Dur,
    /// Next expected SN.
    rcv_next: u64,
    /// One past the highest SN received.
    rcv_high: u64,
    /// Marks of frames `rcv_next..rcv_high` (0: missing; else GOT | BOS | EOS).
    got: VecDeque<u8>,
    arto_at: Option<Time>,
    pub stats: ArqReceiverStats,
}

impl ArqReceiver {
    pub fn new(arto: Dur) -> ArqReceiver {
        ArqReceiver {
            arto,
            rcv_next: 0,
            rcv_high: 0,
            got: VecDeque::new(),
            arto_at: None,
            stats: ArqReceiverStats::default(),
        }
    }

    pub fn rcv_next(&self) -> u64 {
        self.rcv_next
    }

    /// When the ARTO expires, if it runs.
    pub fn arto_deadline(&self) -> Option<Time> {
        self.arto_at
    }

    fn has_gap(&self) -> bool {
        self.rcv_next < self.rcv_high
    }

    /// Move `rcv_next` over received frames, delivering each segment whose
    /// end it passes (and restarting the ARTO).
    fn advance(&mut self, now: Time, out: &mut Vec<RxOut>) {
        while let Some(&m) = self.got.front() {
            if m & GOT == 0 {
                break;
            }
            self.got.pop_front();
            if m & EOS != 0 {
                out.push(RxOut::Deliver { eos: self.rcv_next });
                self.stats.segments += 1;
                self.arto_at = Some(now + self.arto);
            }
            self.rcv_next += 1;
        }
    }

    /// A frame arrives intact.
    pub fn on_frame(&mut self, now: Time, f: Frame, out: &mut Vec<RxOut>) {
        self.stats.frames += 1;
        let sn = f.sn;
        let dup = sn < self.rcv_next
            || (sn < self.rcv_high && self.got[(sn - self.rcv_next) as usize] & GOT != 0);
        if dup {
            self.stats.duplicates += 1;
            out.push(RxOut::Ack(ArqAck {
                cum: self.rcv_next,
                kind: AckKind::Frame(sn),
            }));
            return;
        }
        let mut missing = None;
        if sn >= self.rcv_high {
            if sn > self.rcv_high {
                missing = Some((self.rcv_high, sn - 1));
            }
            let len = (sn + 1 - self.rcv_next) as usize;
            self.got.resize(len, 0);
            self.rcv_high = sn + 1;
        }
        self.got[(sn - self.rcv_next) as usize] = GOT | f.marks;
        self.advance(now, out);
        if self.has_gap() && self.arto_at.is_none() {
            self.arto_at = Some(now + self.arto);
        }
        let kind = match missing {
            Some((bos, eos)) => {
                self.stats.duplicate_acks += 1;
                AckKind::Missing { bos, eos }
            }
            None => AckKind::Frame(sn),
        };
        out.push(RxOut::Ack(ArqAck {
            cum: self.rcv_next,
            kind,
        }));
    }

    /// The ARTO fires at `now` (a call before the deadline does nothing).
    pub fn on_arto(&mut self, now: Time, out: &mut Vec<RxOut>) {
        match self.arto_at {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.arto_at = None;
        if !self.has_gap() {
            return;
        }
        // Skip to the next segment start held; without one, wait on.
        let Some(i) = self.got.iter().position(|&m| m & GOT != 0 && m & BOS != 0) else {
            self.arto_at = Some(now + self.arto);
            return;
        };
        let upto = self.rcv_next + i as u64;
        self.got.drain(..i);
        self.rcv_next = upto;
        self.stats.give_ups += 1;
        out.push(RxOut::GiveUp { upto });
        self.advance(now, out);
        if self.has_gap() && self.arto_at.is_none() {
            self.arto_at = Some(now + self.arto);
        }
        out.push(RxOut::Ack(ArqAck {
            cum: self.rcv_next,
            kind: AckKind::Cum,
        }));
    }
}
