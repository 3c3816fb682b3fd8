//! QUIC flows in the world: a flow whose plan says QUIC has one
//! [`QuicConn`] instead of TCP legs — or, with QUIC-terminating proxies on
//! its path, one per stretch between them, joined by the proxies' relays
//! (`quic_relay.rs`). Its datagrams are whole IPv4/UDP packets kept in the
//! world's table of packets with bytes (`external.rs`, marked with the
//! connection end they are for), one packet record each, their simulated
//! size their length, along the connection's whole stretch of the path
//! (split-TCP proxies on it do not split a QUIC flow: its packets pass
//! through). Each connection end has one timer (a lazy timer slot, as
//! applications have). The application's streams are the connections'
//! streams (`quic::QuicConn`'s adapter): the world hands the first
//! connection (or the last, for streams the flow's `to` sends) the
//! application's sends and closes, and hands the application what
//! arrives at the far ends.

use super::external::{ExternalPacket, Record};
use super::state::{Ev, QuicLeg, QuicRt, TimerSlot};
use super::world::World;
use crate::app::{AppIo, StreamDir};
use crate::engine::Time;
use crate::net::{Packet, Payload};
use crate::pep::QuicRelay;
use crate::quic::{Datagram, QuicConfig, QuicConn};
use crate::scenario::PlanFlow;
use std::net::Ipv4Addr;

/// Legs a QUIC flow may have (a timer slot holds the leg in 7 bits).
const MAX_LEGS: usize = 128;

/// The timer slot (and packet mark) of end `end` of leg `leg` of flow `f`.
#[inline]
pub(super) fn slot_of(f: usize, leg: usize, end: usize) -> u32 {
    ((f << 8) | (leg << 1) | end) as u32
}

/// Flow, leg and end of a timer slot.
#[inline]
fn unslot(slot: u32) -> (usize, usize, usize) {
    let s = slot as usize;
    (s >> 8, (s >> 1) & 0x7f, s & 1)
}

impl QuicRt {
    /// The connections of QUIC flow `f` (index `fi`): one per stretch of
    /// its path between QUIC-terminating proxies, each with the routes
    /// `route(a, b)` gives for its ends and the settings of the flow (the
    /// first) or of the proxy that opens it; a proxy's two ends run with
    /// its relay's windows.
    pub(super) fn build(
        f: &PlanFlow,
        fi: usize,
        seed: u64,
        mut route: impl FnMut(usize, usize) -> [u32; 2],
    ) -> QuicRt {
        let cfg0 = f.quic.as_ref().expect("a QUIC flow");
        // Stretches: plan legs [first, last] joined at pass-through proxies.
        let mut stretches: Vec<(usize, usize, &QuicConfig)> = vec![(0, 0, cfg0)];
        for (i, p) in f.proxies.iter().enumerate() {
            match &p.quic {
                Some(cfg) => stretches.push((i + 1, i + 1, cfg)),
                None => stretches.last_mut().unwrap().1 = i + 1,
            }
        }
        assert!(stretches.len() <= MAX_LEGS, "at most {MAX_LEGS} QUIC legs");
        let ip = |n: u32| Ipv4Addr::from(crate::net::addr::node_ip(n));
        // The client's port is numbered by flow, the server's is 443.
        let port = 50_000 + (fi % 10_000) as u16;
        let mut legs: Vec<QuicLeg> = stretches
            .iter()
            .enumerate()
            .map(|(k, &(first, last, cfg))| {
                let nodes = [f.legs[first].path[0], *f.legs[last].path.last().unwrap()];
                // The first connection's seeds are the flow's own.
                let name = match k {
                    0 => f.name.clone(),
                    k => format!("{}#{k}", f.name),
                };
                QuicLeg {
                    conn: QuicConn::new(cfg, seed, &name, nodes.map(ip), port),
                    controller: cfg.controller.name(),
                    nodes,
                    routes: route(first, last),
                    timers: [TimerSlot::default(); 2],
                }
            })
            .collect();
        let terminating = f.proxies.iter().filter(|p| p.quic.is_some());
        let relays = terminating
            .enumerate()
            .map(|(j, p)| {
                let relay = || QuicRelay::new(p.node, p.policy, p.cache_bytes, p.send_buffer);
                let mut pair = [relay(), relay()];
                for r in &mut pair {
                    r.occupancy.set_start(Time(f.start.0));
                }
                // The proxy's two ends: its windows on each connection's settings.
                let w = pair[0].windows;
                for (k, end) in [(j, 1), (j + 1, 0)] {
                    let mut c = stretches[k].2.clone();
                    c.stream_receive_window = w.receive;
                    c.receive_window = w.receive;
                    c.send_window = w.send;
                    // A PING before the peer would close it idle: the
                    // bytes the proxy holds may take longer than the
                    // idle timeout to go onward.
                    c.keep_alive = c
                        .max_idle_timeout
                        .map(|t| crate::engine::time::Dur(t.0 / 2));
                    legs[k].conn.set_relay_end(end, &c);
                }
                pair
            })
            .collect();
        QuicRt {
            legs,
            relays,
            probe: f.app.datagrams(),
            failed_at: None,
            settling: false,
            datagrams: Vec::new(),
            deliveries: Vec::new(),
            pieces: Vec::new(),
        }
    }
}

impl World {
    /// A new application stream of QUIC flow `f` in direction `dir` (on
    /// every connection of the flow, sent by its end on the sender's side).
    pub(super) fn quic_stream(&mut self, f: usize, dir: StreamDir) -> usize {
        let fl = &mut self.flows[f];
        let q = fl.quic.as_deref_mut().expect("a QUIC flow");
        let sender = match dir {
            StreamDir::Forward => 0,
            StreamDir::Reverse => 1,
        };
        let s = fl.streams.len();
        for leg in &mut q.legs {
            let k = leg.conn.add_stream(sender);
            debug_assert_eq!(k, s);
        }
        fl.streams.push(Vec::new());
        fl.stream_dirs.push(dir);
        s
    }

    /// The application's sends and closes on QUIC flow `f` (its opens are
    /// done): handed to the connection at the sending end, then settled.
    pub(super) fn quic_app_io(&mut self, now: Time, f: usize, io: &mut AppIo) {
        let q = self.flows[f].quic.as_deref_mut().expect("a QUIC flow");
        let last = q.legs.len() - 1;
        let leg_of = |c: &QuicConn, s: usize| if c.streams().sender(s) == 0 { 0 } else { last };
        for &(s, bytes) in &io.sends {
            if s >= q.legs[0].conn.streams().len() {
                io.error
                    .get_or_insert(format!("data for stream {s}, which was never opened"));
                continue;
            }
            let k = leg_of(&q.legs[0].conn, s);
            q.legs[k].conn.send(now, s, bytes);
        }
        io.sends.clear();
        for &s in &io.closes {
            let k = leg_of(&q.legs[0].conn, s);
            q.legs[k].conn.close(now, s);
        }
        for &(_, wire) in &io.datagrams {
            q.legs[0].conn.send_datagram(now, wire);
        }
        io.datagrams.clear();
        if !q.settling {
            self.quic_settle(now, f);
        }
    }

    /// A QUIC datagram (its bytes `data`) reached the end of its route:
    /// the connection end of timer slot `slot`.
    pub(super) fn quic_arrive(&mut self, now: Time, slot: u32, data: Vec<u8>) {
        let (f, leg, end) = unslot(slot);
        let q = self.flows[f].quic.as_deref_mut().expect("a QUIC flow");
        q.legs[leg].conn.on_datagram(now, end, data);
        self.quic_settle(now, f);
    }

    /// Timer `slot` of a QUIC connection end fired.
    pub(super) fn quic_timer(&mut self, now: Time, slot: u32, gen: u32) {
        let (f, leg, end) = unslot(slot);
        let q = self.flows[f].quic.as_deref_mut().expect("a QUIC flow");
        let l = &mut q.legs[leg];
        if l.timers[end].gen != gen {
            return;
        }
        l.timers[end].at = Time::MAX;
        l.conn.on_timeout(now, end);
        self.quic_settle(now, f);
    }

    /// After any input to flow `f`'s connections: hand the application
    /// what arrived (its sends join in), let the proxies open their
    /// connections onward and relay, put every datagram due on the wire,
    /// note an error that closed a connection, re-arm the timers.
    fn quic_settle(&mut self, now: Time, f: usize) {
        let mut deliveries = {
            let q = self.flows[f].quic.as_deref_mut().unwrap();
            q.settling = true;
            std::mem::take(&mut q.deliveries)
        };
        loop {
            let q = self.flows[f].quic.as_deref_mut().unwrap();
            for leg in &mut q.legs {
                leg.conn.take_deliveries(&mut deliveries);
            }
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
        if !q.relays.is_empty() {
            connect_onward(now, q);
            for p in 0..q.relays.len() {
                for dir in 0..2 {
                    self.quic_relay(now, f, p, dir);
                }
            }
        }
        let q = self.flows[f].quic.as_deref_mut().unwrap();
        let mut out = std::mem::take(&mut q.datagrams);
        for k in 0..q.legs.len() {
            let q = self.flows[f].quic.as_deref_mut().unwrap();
            q.legs[k].conn.drain(now, 0, &mut out);
            q.legs[k].conn.drain(now, 1, &mut out);
            for d in out.drain(..) {
                self.quic_transmit(now, f, k, d);
            }
        }
        let q = self.flows[f].quic.as_deref_mut().unwrap();
        q.datagrams = out;
        if q.failed_at.is_none() && q.legs.iter().any(|l| l.conn.error().is_some()) {
            q.failed_at = Some(now);
            if self.flows[f].done_at.is_none() {
                // The flow's outcome is the error: nothing more to wait for.
                self.apps_pending -= 1;
            }
        }
        let q = self.flows[f].quic.as_deref_mut().unwrap();
        for (k, leg) in q.legs.iter_mut().enumerate() {
            for end in 0..2 {
                if let Some(gen) = leg.timers[end].arm(leg.conn.poll_at(end)) {
                    let at = leg.timers[end].at.max(now);
                    let slot = slot_of(f, k, end);
                    self.q.push(at, Ev::QuicTimer { slot, gen });
                }
            }
        }
    }

    /// Put datagram `d` of leg `leg` of flow `f` on its route.
    fn quic_transmit(&mut self, now: Time, f: usize, leg: usize, d: Datagram) {
        let l = &self.flows[f].quic.as_deref().unwrap().legs[leg];
        let (from, to) = (l.nodes[d.from], l.nodes[1 - d.from]);
        let route = l.routes[d.from];
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
            quic: Some(slot_of(f, leg, 1 - d.from)),
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

/// A terminating proxy opens its connection onward (as the client) once
/// the connection from the flow's client side reached it: the connections
/// open in turn along the path, as split-TCP legs' handshakes do.
fn connect_onward(now: Time, q: &mut QuicRt) {
    let n = q.legs.len();
    for j in 0..n - 1 {
        let (a, b) = q.legs.split_at_mut(j + 1);
        let (near, far) = (&mut a[j].conn, &mut b[0].conn);
        if near.client() == Some(0) && near.has_conn(1) && far.client().is_none() {
            far.connect(now, 0);
        }
    }
    for j in (0..n - 1).rev() {
        let (a, b) = q.legs.split_at_mut(j + 1);
        let (far, near) = (&mut a[j].conn, &mut b[0].conn);
        if near.client() == Some(1) && near.has_conn(0) && far.client().is_none() {
            far.connect(now, 1);
        }
    }
}
