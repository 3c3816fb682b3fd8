//! QUIC flows in the world: a flow whose plan says QUIC has one
//! [`QuicConn`] instead of TCP legs. Its datagrams are whole IPv4/UDP
//! packets kept in the world's table of packets with bytes (`external.rs`,
//! marked with the flow end they are for), one packet record each, their
//! simulated size their length, along the flow's whole path (split proxies
//! on it do not split a QUIC flow: its packets pass through). Each end's
//! connection has one timer (a lazy timer slot, as applications have).
//! The application's streams are the connection's streams
//! (`quic::QuicConn`'s adapter): the world hands it the application's
//! sends and closes, and hands the application what arrives.

use super::external::{ExternalPacket, Record};
use super::state::{Ev, QuicRt, TimerSlot};
use super::world::World;
use crate::app::{AppIo, StreamDir};
use crate::engine::Time;
use crate::net::{Packet, Payload};
use crate::quic::{Datagram, QuicConfig, QuicConn};
use crate::result::QuicResult;
use std::net::Ipv4Addr;

impl QuicRt {
    pub fn new(
        cfg: &QuicConfig,
        seed: u64,
        name: &str,
        f: usize,
        nodes: [u32; 2],
        routes: [u32; 2],
        probe: bool,
    ) -> QuicRt {
        // The client is the end that sends first, either; its port is
        // numbered by flow, the server's is 443.
        let ip = |n: u32| Ipv4Addr::from(crate::net::addr::node_ip(n));
        let port = 50_000 + (f % 10_000) as u16;
        QuicRt {
            conn: QuicConn::new(cfg, seed, name, [ip(nodes[0]), ip(nodes[1])], port),
            controller: cfg.controller.name(),
            probe,
            nodes,
            routes,
            timers: [TimerSlot::default(); 2],
            failed_at: None,
            settling: false,
            datagrams: Vec::new(),
            deliveries: Vec::new(),
        }
    }
}

impl World {
    /// A new application stream of QUIC flow `f` in direction `dir`.
    pub(super) fn quic_stream(&mut self, f: usize, dir: StreamDir) -> usize {
        let fl = &mut self.flows[f];
        let q = fl.quic.as_deref_mut().expect("a QUIC flow");
        let s = q.conn.add_stream(match dir {
            StreamDir::Forward => 0,
            StreamDir::Reverse => 1,
        });
        debug_assert_eq!(s, fl.streams.len());
        fl.streams.push(Vec::new());
        fl.stream_dirs.push(dir);
        s
    }

    /// The application's sends and closes on QUIC flow `f` (its opens are
    /// done): handed to the connection, then settled.
    pub(super) fn quic_app_io(&mut self, now: Time, f: usize, io: &mut AppIo) {
        let q = self.flows[f].quic.as_deref_mut().expect("a QUIC flow");
        for &(s, bytes) in &io.sends {
            if s >= q.conn.streams().len() {
                io.error
                    .get_or_insert(format!("data for stream {s}, which was never opened"));
                continue;
            }
            q.conn.send(now, s, bytes);
        }
        io.sends.clear();
        for &s in &io.closes {
            q.conn.close(now, s);
        }
        for &(_, wire) in &io.datagrams {
            q.conn.send_datagram(now, wire);
        }
        io.datagrams.clear();
        if !q.settling {
            self.quic_settle(now, f);
        }
    }

    /// A QUIC datagram (record `id` of the table of packets with bytes)
    /// reached the end of its route.
    pub(super) fn quic_arrive(&mut self, now: Time, slot: u32, data: Vec<u8>) {
        let (f, end) = (slot as usize / 2, slot as usize % 2);
        let q = self.flows[f].quic.as_deref_mut().expect("a QUIC flow");
        q.conn.on_datagram(now, end, data);
        self.quic_settle(now, f);
    }

    /// Timer `slot` (2 × flow + end) of a QUIC connection fired.
    pub(super) fn quic_timer(&mut self, now: Time, slot: u32, gen: u32) {
        let (f, end) = (slot as usize / 2, slot as usize % 2);
        let q = self.flows[f].quic.as_deref_mut().expect("a QUIC flow");
        if q.timers[end].gen != gen {
            return;
        }
        q.timers[end].at = Time::MAX;
        q.conn.on_timeout(now, end);
        self.quic_settle(now, f);
    }

    /// After any input to flow `f`'s connection: hand the application what
    /// arrived (its sends join in), put every datagram due on the wire,
    /// note an error that closed the connection, re-arm both timers.
    fn quic_settle(&mut self, now: Time, f: usize) {
        let mut deliveries = {
            let q = self.flows[f].quic.as_deref_mut().unwrap();
            q.settling = true;
            std::mem::take(&mut q.deliveries)
        };
        loop {
            self.flows[f]
                .quic
                .as_deref_mut()
                .unwrap()
                .conn
                .take_deliveries(&mut deliveries);
            if deliveries.is_empty() {
                break;
            }
            for d in deliveries.drain(..) {
                let mut io = std::mem::take(&mut self.app_io);
                let fl = &mut self.flows[f];
                io.streams = fl.streams.len();
                fl.app
                    .on_delivered(now, d.stream, d.bytes, d.total, &mut io);
                self.after_app(now, f, io);
            }
        }
        let q = self.flows[f].quic.as_deref_mut().unwrap();
        q.settling = false;
        q.deliveries = deliveries;
        let mut out = std::mem::take(&mut q.datagrams);
        q.conn.drain(now, 0, &mut out);
        q.conn.drain(now, 1, &mut out);
        for d in out.drain(..) {
            self.quic_transmit(now, f, d);
        }
        let q = self.flows[f].quic.as_deref_mut().unwrap();
        q.datagrams = out;
        if q.failed_at.is_none() && q.conn.error().is_some() {
            q.failed_at = Some(now);
            let fl = &mut self.flows[f];
            if fl.done_at.is_none() {
                // The flow's outcome is the error: nothing more to wait for.
                self.apps_pending -= 1;
            }
        }
        let q = self.flows[f].quic.as_deref_mut().unwrap();
        for end in 0..2 {
            if let Some(gen) = q.timers[end].arm(q.conn.poll_at(end)) {
                let at = q.timers[end].at.max(now);
                let slot = (2 * f + end) as u32;
                self.q.push(at, Ev::QuicTimer { slot, gen });
            }
        }
    }

    /// Put datagram `d` of flow `f` on its route.
    fn quic_transmit(&mut self, now: Time, f: usize, d: Datagram) {
        let q = self.flows[f].quic.as_deref().unwrap();
        let (from, to) = (q.nodes[d.from], q.nodes[1 - d.from]);
        let route = q.routes[d.from];
        let size = d.bytes.len() as u32;
        let id = self.ext.store(Record {
            packet: ExternalPacket {
                data: d.bytes,
                kind: d.kind,
                seq: d.seq,
                retx: false,
            },
            from,
            exit: to,
            injected_at: now,
            quic: Some((2 * f + 1 - d.from) as u32),
        });
        let slot = self.packets.alloc(Packet {
            size_bytes: size,
            conn: id,
            route,
            hop: 0,
            payload: Payload::External,
        });
        self.transmit(now, slot);
    }

    /// A packet with bytes reached its destination: a QUIC datagram for
    /// its connection, or a packet from outside leaving the world.
    #[inline]
    pub(super) fn external_arrived(&mut self, now: Time, id: u32) {
        match self.ext.take_quic(id) {
            Some((slot, data)) => self.quic_arrive(now, slot, data),
            None => self.ext.leave(now, id),
        }
    }
}

/// The flow result of a QUIC flow (legs: none; its connection's table
/// rows in `rows`), and the warning of an error that closed it.
pub(super) fn quic_flow_result(
    name: &str,
    f: &super::state::FlowRt,
    plan_nodes: &[String],
    stop: Time,
    rows: &mut Vec<QuicResult>,
) -> (crate::result::FlowResult, Option<String>) {
    let q = f.quic.as_deref().expect("a QUIC flow");
    let c = &q.conn;
    let end = f.done_at.or(q.failed_at).unwrap_or(stop);
    let active = end.since(f.start).as_secs_f64();
    let mut fr = crate::result::FlowResult {
        completion_time_s: f.done_at.map(|t| t.since(f.start).as_secs_f64()),
        active_time_s: active,
        ..Default::default()
    };
    for s in 0..c.streams().len() {
        if c.streams().sender(s) == 0 {
            fr.bytes_delivered += c.streams().delivered(s);
        }
    }
    let handshake = |e: usize| {
        c.connected_at(e)
            .zip(c.opened_at())
            .map(|(t, o)| t.since(o).as_secs_f64())
    };
    for e in 0..2 {
        let Some(st) = c.stats(e) else { continue };
        if e == 0 {
            fr.bytes_sent = st.udp_tx.bytes;
        }
        fr.retransmissions += st.path.lost_packets;
        fr.timeouts += c.ptos(e);
        fr.fast_recoveries += st.path.congestion_events;
        let role = if c.client() == Some(e) {
            "client"
        } else {
            "server"
        };
        rows.push(QuicResult {
            flow: name.to_string(),
            end: role.to_string(),
            node: plan_nodes[q.nodes[e] as usize].clone(),
            controller: q.controller.to_string(),
            handshake_s: handshake(e),
            rtt_s: st.path.rtt.as_secs_f64(),
            min_rtt_s: st.path.min_rtt.as_secs_f64(),
            cwnd_bytes: st.path.cwnd,
            congestion_events: st.path.congestion_events,
            lost_packets: st.path.lost_packets,
            lost_bytes: st.path.lost_bytes,
            packets_sent: st.path.sent_packets,
            datagrams_sent: st.udp_tx.datagrams,
            datagrams_received: st.udp_rx.datagrams,
            bytes_sent: st.udp_tx.bytes,
            bytes_received: st.udp_rx.bytes,
            ptos: c.ptos(e),
            mtu: st.path.current_mtu as u64,
            stream_frames_sent: st.frame_tx.stream,
            ack_frames_sent: st.frame_tx.acks,
        });
    }
    fr.handshake_s = c.client().and_then(handshake);
    if q.probe {
        // A probe over QUIC: its datagrams as a probe's (sent: handed to
        // the connection; lost ones are not told from those in flight).
        let (sent, received, bytes, mean, max) = c.datagram_counts();
        fr.packets_sent = Some(sent);
        fr.packets_received = Some(received);
        fr.bytes_delivered = bytes;
        fr.delay_mean_s = mean;
        fr.delay_max_s = max;
    }
    if active > 0.0 {
        fr.goodput_bps = fr.bytes_delivered as f64 * 8.0 / active;
        fr.throughput_bps = fr.bytes_sent as f64 * 8.0 / active;
    }
    fr.app = f.app.report(end);
    let warning = c.error().map(|(t, e, words)| {
        let node = &plan_nodes[q.nodes[*e] as usize];
        fr.connection_error = Some(words.clone());
        format!(
            "flow {name}: quinn closed the QUIC connection at {node} at t = {} s: {words}",
            t.as_secs_f64()
        )
    });
    (fr, warning)
}
