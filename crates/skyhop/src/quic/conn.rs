//! One QUIC connection: a quinn client endpoint at one end of a flow and a
//! quinn server endpoint at the other, driven sans-IO in virtual time.
//!
//! Ends are numbered along the flow: end 0 is its `from` node, end 1 its
//! `to` node. The connection opens when the application first hands bytes
//! to a stream (or a datagram): the end they leave from is the client
//! (a file transfer's sender; a web session's browser, whose request goes
//! first). Every input — a datagram that arrived, a timer, bytes from the
//! application — is followed by the same drive loop as quinn's own async
//! driver: the endpoint's events, the application's events (streams
//! opened, readable, datagrams), the application's writes, then every
//! datagram quinn will send now ([`QuicConn::drain`]) and its next
//! deadline ([`QuicConn::poll_at`]).

use super::config::QuicConfig;
use super::seeded::{
    initial_dcid_provider, instant, time_of, FixedSystemTime, SeededCids, SeededSource, Seeds,
};
use super::streams::{Delivery, RelayRead, Streams};
use super::tls;
use super::trace::{count_ptos, stream_frames, StreamFrame};
use super::wire;
use crate::channel::PacketKind;
use crate::engine::time::Time;
use bytes::BytesMut;
use quinn_proto::{
    ClientConfig, Connection, ConnectionHandle, ConnectionStats, DatagramEvent, Dir, Endpoint,
    EndpointConfig, Event, ServerConfig, StreamEvent, ValidationTokenConfig,
};
use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;

/// A datagram an end sends: the whole IPv4 packet, and how the links see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// The sending end.
    pub from: usize,
    /// IPv4 + UDP headers and the QUIC packet(s).
    pub bytes: Vec<u8>,
    /// `Syn` for a datagram opening with a long-header packet (Initial,
    /// Handshake), `Data` for one carrying stream, crypto or datagram
    /// frames, `Ack` for the rest (acknowledgements, flow control, pings).
    pub kind: PacketKind,
    /// The datagram's number among those its end sent (from 0).
    pub seq: u64,
}

/// One end: its endpoint and, once it has one, its connection.
struct End {
    endpoint: Option<Endpoint>,
    conn: Option<(ConnectionHandle, Connection)>,
    addr: SocketAddr,
    sent: u64,
    ptos: u64,
    /// When the handshake completed here (quinn's `Connected`).
    connected_at: Option<Time>,
    /// Inputs since the last drain.
    dirty: bool,
    /// Stream, crypto and datagram frames sent so far.
    data_frames: u64,
}

/// One QUIC connection between the two ends of a flow.
pub struct QuicConn {
    /// Each end's transport settings (a relay end's windows are its proxy's).
    transport: [Arc<quinn_proto::TransportConfig>; 2],
    seeds: Seeds,
    tls: [&'static SeededSource; 2],
    ends: [End; 2],
    /// The client's end, once connected, and its UDP port.
    client: Option<usize>,
    client_port: u16,
    /// Probe datagrams (`send_datagram`) and their counters.
    dgrams: Dgrams,
    opened_at: Option<Time>,
    streams: Streams,
    deliveries: Vec<Delivery>,
    /// The first error that closed the connection: when, at which end, and
    /// quinn's words.
    error: Option<(Time, usize, String)>,
    /// Datagrams an endpoint answered itself (a refused second connection,
    /// a stateless reset), by sending end, for the next drain.
    pending_endpoint: Vec<(usize, Vec<u8>)>,
    /// Stream frames a relay end just processed (quinn's trace).
    frames: Vec<StreamFrame>,
    scratch: Vec<u8>,
}

impl QuicConn {
    /// A connection of flow `flow` in the run with `seed` between two ends
    /// at addresses `ips` (nothing sent until [`QuicConn::connect`], which
    /// gives the client `client_port` and the server port 443).
    pub fn new(
        cfg: &QuicConfig,
        seed: u64,
        flow: &str,
        ips: [Ipv4Addr; 2],
        client_port: u16,
    ) -> QuicConn {
        let seeds = Seeds::derive(seed, flow);
        let tls = [
            SeededSource::take(seeds.tls[0]),
            SeededSource::take(seeds.tls[1]),
        ];
        let end = |ip| End {
            endpoint: None,
            conn: None,
            addr: SocketAddr::V4(SocketAddrV4::new(ip, 0)),
            sent: 0,
            ptos: 0,
            connected_at: None,
            dirty: false,
            data_frames: 0,
        };
        let transport = Arc::new(cfg.transport());
        QuicConn {
            transport: [transport.clone(), transport],
            seeds,
            tls,
            ends: [end(ips[0]), end(ips[1])],
            client_port,
            client: None,
            dgrams: Dgrams::default(),
            opened_at: None,
            streams: Streams::default(),
            deliveries: Vec::new(),
            error: None,
            pending_endpoint: Vec::new(),
            frames: Vec::new(),
            scratch: Vec::with_capacity(1500),
        }
    }

    /// End `end` is a QUIC-terminating proxy's, relaying its streams: it
    /// runs with `cfg` (its proxy's windows) and its streams are the
    /// relay's (`Streams::set_relay`). Before the connection opens.
    pub fn set_relay_end(&mut self, end: usize, cfg: &QuicConfig) {
        self.transport[end] = Arc::new(cfg.transport());
        self.streams.set_relay(end);
    }

    /// An endpoint for role `role` (0 client, 1 server) at end `end`.
    fn endpoint(&self, role: usize, end: usize) -> Endpoint {
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &self.seeds.reset_key[role]);
        let mut ec = EndpointConfig::new(Arc::new(key));
        let cids = self.seeds.cids[role];
        ec.cid_generator(move || Box::new(SeededCids::new(cids)))
            .rng_seed(Some(self.seeds.endpoint_rng[role]));
        let server = (role == 1).then(|| {
            let prk =
                ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, &[]).extract(&self.seeds.token_key);
            let mut sc =
                ServerConfig::new(Arc::new(tls::server_config(self.tls[1])), Arc::new(prk));
            // quinn's default with its `bloom` feature: two NEW_TOKEN frames
            // (the server here never sees one back, so no token log).
            let mut vt = ValidationTokenConfig::default();
            vt.sent(2);
            sc.transport_config(self.transport[end].clone())
                .validation_token_config(vt)
                .time_source(Arc::new(FixedSystemTime));
            Arc::new(sc)
        });
        Endpoint::new(Arc::new(ec), server, true, None)
    }

    /// Open the connection from end `client` at `now` (once; later calls
    /// do nothing).
    pub fn connect(&mut self, now: Time, client: usize) {
        if self.client.is_some() {
            return;
        }
        self.client = Some(client);
        self.opened_at = Some(now);
        self.ends[client].addr.set_port(self.client_port);
        self.ends[1 - client].addr.set_port(wire::SERVER_PORT);
        let mut ep = self.endpoint(0, client);
        self.ends[1 - client].endpoint = Some(self.endpoint(1, 1 - client));
        let mut cc = ClientConfig::new(Arc::new(tls::client_config(self.tls[0])));
        cc.transport_config(self.transport[client].clone())
            .initial_dst_cid_provider(Arc::new(initial_dcid_provider(self.seeds.initial_dcid)));
        let server = self.ends[1 - client].addr;
        match ep.connect(instant(now), cc, server, tls::SERVER_NAME) {
            Ok(c) => self.ends[client].conn = Some(c),
            Err(e) => self.fail(now, client, format!("connect: {e}")),
        }
        self.ends[client].endpoint = Some(ep);
        self.ends[client].dirty = true;
    }

    /// The client's end, once the connection was opened.
    pub fn client(&self) -> Option<usize> {
        self.client
    }

    /// Whether end `end` has its connection (a server: once the client's
    /// first packet arrived).
    pub fn has_conn(&self, end: usize) -> bool {
        self.ends[end].conn.is_some()
    }

    fn fail(&mut self, now: Time, end: usize, words: String) {
        if self.error.is_none() {
            self.error = Some((now, end, words));
        }
    }

    /// The error that closed the connection, once (when, end, quinn's words).
    pub fn error(&self) -> Option<&(Time, usize, String)> {
        self.error.as_ref()
    }

    /// A datagram (the whole IPv4 packet) arrived at end `to`.
    pub fn on_datagram(&mut self, now: Time, to: usize, packet: Vec<u8>) {
        let from = self.ends[1 - to].addr;
        // The packet's own buffer, without a copy, past its headers.
        let mut data = BytesMut::from(bytes::Bytes::from(packet));
        bytes::Buf::advance(&mut data, wire::HEADER);
        let e = &mut self.ends[to];
        let Some(ep) = e.endpoint.as_mut() else {
            return;
        };
        e.dirty = true;
        self.scratch.clear();
        let at = instant(now);
        match ep.handle(at, from, None, None, data, &mut self.scratch) {
            Some(DatagramEvent::ConnectionEvent(_, ce)) => {
                if let Some((_, c)) = e.conn.as_mut() {
                    if self.streams.is_relay(to) {
                        // A proxy's memory: what arrives before it is read.
                        stream_frames(|| c.handle_event(ce), &mut self.frames);
                        self.streams.note_frames(to, &self.frames);
                        self.frames.clear();
                    } else {
                        c.handle_event(ce);
                    }
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                if e.conn.is_some() {
                    let t = ep.refuse(incoming, &mut self.scratch);
                    self.pending_endpoint
                        .push((to, self.scratch[..t.size].to_vec()));
                } else {
                    match ep.accept(incoming, at, &mut self.scratch, None) {
                        Ok(c) => e.conn = Some(c),
                        Err(err) => {
                            if let Some(t) = err.response {
                                self.pending_endpoint
                                    .push((to, self.scratch[..t.size].to_vec()));
                            }
                            self.error.get_or_insert((now, to, err.cause.to_string()));
                        }
                    }
                }
            }
            Some(DatagramEvent::Response(t)) => {
                self.pending_endpoint
                    .push((to, self.scratch[..t.size].to_vec()));
            }
            None => {}
        }
        self.process(now, to);
    }

    /// A timer of end `end` is due at `now`.
    pub fn on_timeout(&mut self, now: Time, end: usize) {
        let Some((_, c)) = self.ends[end].conn.as_mut() else {
            return;
        };
        if c.poll_timeout().is_none_or(|d| time_of(d) > now) {
            return;
        }
        let ((), ptos) = count_ptos(|| c.handle_timeout(instant(now)));
        self.ends[end].ptos += ptos;
        self.ends[end].dirty = true;
        self.process(now, end);
    }

    /// After an input at end `end`: its endpoint's events, the
    /// application's events, then the application's writes.
    fn process(&mut self, now: Time, end: usize) {
        let from_peer = 1 - end;
        let e = &mut self.ends[end];
        let (Some(ep), Some((ch, c))) = (e.endpoint.as_mut(), e.conn.as_mut()) else {
            return;
        };
        let ch = *ch;
        loop {
            let mut any = false;
            while let Some(ev) = c.poll_endpoint_events() {
                any = true;
                if let Some(ce) = ep.handle_event(ch, ev) {
                    c.handle_event(ce);
                }
            }
            while let Some(ev) = c.poll() {
                any = true;
                match ev {
                    Event::Connected => {
                        e.connected_at = Some(now);
                        if let Err(w) = self.dgrams.flush(end, c) {
                            self.error.get_or_insert((now, end, w));
                        }
                    }
                    Event::DatagramReceived => {
                        while let Some(b) = c.datagrams().recv() {
                            if self.streams.is_relay(end) {
                                self.dgrams.relayed.push(b);
                            } else {
                                self.dgrams.arrived(now, &b);
                            }
                        }
                    }
                    Event::ConnectionLost { reason } => {
                        self.error.get_or_insert((now, end, reason.to_string()));
                    }
                    Event::Stream(StreamEvent::Opened { dir: Dir::Uni }) => {
                        while let Some(id) = c.streams().accept(Dir::Uni) {
                            if let Err(w) =
                                self.streams.read(from_peer, id, c, &mut self.deliveries)
                            {
                                self.error.get_or_insert((now, end, w));
                            }
                        }
                    }
                    Event::Stream(StreamEvent::Readable { id }) => {
                        if let Err(w) = self.streams.read(from_peer, id, c, &mut self.deliveries) {
                            self.error.get_or_insert((now, end, w));
                        }
                    }
                    Event::Stream(StreamEvent::Stopped { id, error_code }) => {
                        self.error.get_or_insert((
                            now,
                            end,
                            format!("QUIC stream {id} stopped by the peer ({error_code})"),
                        ));
                    }
                    // Writable streams and freed stream slots: the pump below.
                    _ => {}
                }
            }
            if !any {
                break;
            }
        }
        if let Err(w) = self.streams.pump(end, c) {
            self.error.get_or_insert((now, end, w));
        }
    }

    /// Every datagram end `end` sends now (nothing unless it had an input
    /// since the last drain), appended to `out`.
    pub fn drain(&mut self, now: Time, end: usize, out: &mut Vec<Datagram>) {
        for (from, q) in std::mem::take(&mut self.pending_endpoint) {
            let seq = self.ends[from].sent;
            self.ends[from].sent += 1;
            let bytes = wire::packet(self.ends[from].addr, self.ends[1 - from].addr, seq, &q);
            out.push(Datagram {
                from,
                bytes,
                kind: PacketKind::Syn,
                seq,
            });
        }
        let peer = self.ends[1 - end].addr;
        let e = &mut self.ends[end];
        if !std::mem::take(&mut e.dirty) {
            return;
        }
        let Some((_, c)) = e.conn.as_mut() else {
            return;
        };
        let at = instant(now);
        loop {
            self.scratch.clear();
            let Some(t) = c.poll_transmit(at, 1, &mut self.scratch) else {
                break;
            };
            // Frames are written only here, so the count after the last
            // transmission is the count before this one.
            let frames = data_frames(&c.stats());
            let q = &self.scratch[..t.size];
            let kind = if q[0] & 0x80 != 0 {
                PacketKind::Syn
            } else if frames > e.data_frames {
                PacketKind::Data
            } else {
                PacketKind::Ack
            };
            e.data_frames = frames;
            let seq = e.sent;
            e.sent += 1;
            out.push(Datagram {
                from: end,
                bytes: wire::packet(e.addr, peer, seq, q),
                kind,
                seq,
            });
        }
    }

    /// When end `end` next needs [`QuicConn::on_timeout`].
    pub fn poll_at(&mut self, end: usize) -> Option<Time> {
        let (_, c) = self.ends[end].conn.as_mut()?;
        c.poll_timeout().map(time_of)
    }

    // ---- the application's side ------------------------------------

    /// A new application stream sent by end `sender`.
    pub fn add_stream(&mut self, sender: usize) -> usize {
        self.streams.add(sender)
    }

    /// Application streams so far.
    pub fn streams(&self) -> &Streams {
        &self.streams
    }

    /// The application hands `bytes` more to stream `s` at `now` (the
    /// first bytes open the connection from the stream's sending end).
    pub fn send(&mut self, now: Time, s: usize, bytes: u64) {
        let end = self.streams.sender(s);
        self.connect(now, end);
        self.streams.queue(s, bytes);
        self.after_app(now, end);
    }

    /// The application closed stream `s`.
    pub fn close(&mut self, now: Time, s: usize) {
        let end = self.streams.sender(s);
        self.streams.close(s);
        self.after_app(now, end);
    }

    fn after_app(&mut self, now: Time, end: usize) {
        let e = &mut self.ends[end];
        if let Some((_, c)) = e.conn.as_mut() {
            e.dirty = true;
            if let Err(w) = self.streams.pump(end, c) {
                self.error.get_or_insert((now, end, w));
            }
        }
    }

    /// The application sends a probe datagram of `wire` bytes on the wire
    /// from end 0 (a QUIC DATAGRAM frame, RFC 9221: congestion controlled,
    /// never retransmitted). Its payload is `wire` less 60 B (IPv4 and UDP
    /// headers, and at most 32 B of short header, frame header and AEAD
    /// tag), at least the 16 B that carry its number and send time, at
    /// most what one packet holds. Datagrams wait in order until the
    /// connection is established (quinn takes none before: it does not
    /// know yet whether the peer accepts them).
    pub fn send_datagram(&mut self, now: Time, wire: u32) {
        self.connect(now, 0);
        self.dgrams.wait.push_back((now, wire));
        self.dgrams.sent += 1;
        self.dgrams.bytes_sent += wire as u64;
        let e = &mut self.ends[0];
        if let (Some(_), Some((_, c))) = (e.connected_at, e.conn.as_mut()) {
            e.dirty = true;
            if let Err(w) = self.dgrams.flush(0, c) {
                self.error.get_or_insert((now, 0, w));
            }
        }
    }

    // ---- a relay end's side (a QUIC-terminating proxy's) ---------------

    /// The streams relay end `end` may read now, in order.
    pub fn relay_readable(&self, end: usize) -> &[usize] {
        self.streams.readable(end)
    }

    /// Relay end `end` reads at most `max` bytes of stream `s` into `out`.
    pub fn relay_read(
        &mut self,
        now: Time,
        end: usize,
        s: usize,
        max: u64,
        out: &mut Vec<bytes::Bytes>,
    ) -> RelayRead {
        let e = &mut self.ends[end];
        let Some((_, c)) = e.conn.as_mut() else {
            return RelayRead::default();
        };
        e.dirty = true;
        match self.streams.relay_read(end, s, max, c, out) {
            Ok(r) => r,
            Err(w) => {
                self.error.get_or_insert((now, end, w));
                RelayRead::default()
            }
        }
    }

    /// Bytes relay end `end` received and has not read yet.
    pub fn unread(&self, end: usize) -> u64 {
        self.streams.unread(end)
    }

    /// The relay hands stream `s` a piece to send from its relay end
    /// (written by [`QuicConn::relay_pump`]).
    pub fn relay_send(&mut self, s: usize, piece: bytes::Bytes) {
        self.streams.queue_piece(s, piece);
    }

    /// The relay read stream `s` to its end on the other connection:
    /// finish it here once its pieces are written.
    pub fn relay_finish(&mut self, s: usize) {
        self.streams.close(s);
    }

    /// Write what the relay handed relay end `end`, as far as quinn takes it.
    pub fn relay_pump(&mut self, now: Time, end: usize) {
        self.after_app(now, end);
    }

    /// Relayed datagrams this connection dropped, too large for its path.
    pub fn relay_dropped(&self) -> u64 {
        self.dgrams.relay_dropped
    }

    /// Datagrams (RFC 9221) relay end `end` received, for the relay.
    pub fn take_relayed_datagrams(&mut self, out: &mut Vec<bytes::Bytes>) {
        out.append(&mut self.dgrams.relayed);
    }

    /// The relay sends datagram `b` from relay end 0 (waiting, in order,
    /// until the connection is established).
    pub fn relay_datagram(&mut self, now: Time, b: bytes::Bytes) {
        self.dgrams.relay_wait.push_back(b);
        let e = &mut self.ends[0];
        if let (Some(_), Some((_, c))) = (e.connected_at, e.conn.as_mut()) {
            e.dirty = true;
            if let Err(w) = self.dgrams.flush(0, c) {
                self.error.get_or_insert((now, 0, w));
            }
        }
    }

    /// Probe datagrams: (sent, received, bytes received, mean and largest
    /// one-way delay in seconds).
    pub fn datagram_counts(&self) -> (u64, u64, u64, Option<f64>, Option<f64>) {
        let d = &self.dgrams;
        let mean = (d.received > 0).then(|| d.delay_sum_s / d.received as f64);
        (
            d.sent,
            d.received,
            d.bytes_received,
            mean,
            mean.map(|_| d.delay_max_s),
        )
    }

    /// What arrived in order at the ends since the last call.
    pub fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        out.append(&mut self.deliveries);
    }

    // ---- results ----------------------------------------------------

    /// quinn's statistics of end `end`'s connection (`None` before it has one).
    pub fn stats(&self, end: usize) -> Option<ConnectionStats> {
        self.ends[end].conn.as_ref().map(|(_, c)| c.stats())
    }

    /// Probe timeouts that fired at end `end`.
    pub fn ptos(&self, end: usize) -> u64 {
        self.ends[end].ptos
    }

    /// When the handshake completed at end `end`.
    pub fn connected_at(&self, end: usize) -> Option<Time> {
        self.ends[end].connected_at
    }

    /// When the connection was opened.
    pub fn opened_at(&self) -> Option<Time> {
        self.opened_at
    }

    /// Datagrams end `end` sent.
    pub fn datagrams_sent(&self, end: usize) -> u64 {
        self.ends[end].sent
    }
}

/// A probe flow's datagrams over QUIC.
#[derive(Default)]
struct Dgrams {
    /// Waiting for the connection: (handed over at, bytes on the wire).
    wait: VecDeque<(Time, u32)>,
    /// At a relay end: datagrams received, for the relay to send on.
    relayed: Vec<bytes::Bytes>,
    /// At a relay end: datagrams the relay sends, waiting for the connection.
    relay_wait: VecDeque<bytes::Bytes>,
    /// Relayed datagrams too large for this connection's path, dropped.
    relay_dropped: u64,
    sent: u64,
    bytes_sent: u64,
    received: u64,
    bytes_received: u64,
    delay_sum_s: f64,
    delay_max_s: f64,
}

impl Dgrams {
    /// Hand the waiting datagrams to quinn (at end `end`, connected).
    fn flush(&mut self, end: usize, c: &mut Connection) -> Result<(), String> {
        let Some(max) = c.datagrams().max_size() else {
            return Err("the peer does not accept QUIC datagrams".into());
        };
        while let Some((at, wire)) = self.wait.pop_front() {
            let n = (wire as usize).saturating_sub(60).clamp(16, max.max(16));
            let mut b = vec![0u8; n];
            b[..8].copy_from_slice(&self.sent.to_be_bytes());
            b[8..16].copy_from_slice(&at.0.to_be_bytes());
            // Dropped by quinn when its send buffer is full (oldest first).
            c.datagrams()
                .send(bytes::Bytes::from(b), true)
                .map_err(|e| format!("end {end}: QUIC datagram: {e}"))?;
        }
        while let Some(b) = self.relay_wait.pop_front() {
            // One this connection cannot carry (its path's datagram size
            // still below the first's) is dropped, as a proxy drops it.
            if b.len() > max {
                self.relay_dropped += 1;
                continue;
            }
            c.datagrams()
                .send(b, true)
                .map_err(|e| format!("end {end}: QUIC datagram: {e}"))?;
        }
        Ok(())
    }

    fn arrived(&mut self, now: Time, b: &[u8]) {
        let Some(at) = b.get(8..16) else { return };
        let at = Time(u64::from_be_bytes(at.try_into().unwrap()));
        let delay = now.since(at).as_secs_f64();
        self.received += 1;
        self.bytes_received += (b.len() + 60) as u64;
        self.delay_sum_s += delay;
        self.delay_max_s = self.delay_max_s.max(delay);
    }
}

/// Frames that carry data (stream, crypto, datagram) sent so far.
fn data_frames(s: &ConnectionStats) -> u64 {
    s.frame_tx.stream + s.frame_tx.crypto + s.frame_tx.datagram
}

impl Drop for QuicConn {
    fn drop(&mut self) {
        // quinn's objects hold the TLS providers that use the sources:
        // gone first, then the sources go back for reuse.
        for e in &mut self.ends {
            e.conn = None;
            e.endpoint = None;
        }
        for s in self.tls {
            SeededSource::give_back(s);
        }
    }
}
