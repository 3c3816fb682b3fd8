//! The world: the state of one run and the routing between its seams.
//!
//! It routes packets between endpoints and link layers, and bytes between
//! endpoints and their application or proxy relay; the protocol logic lives
//! in the seams (`tcp`, `pep`, `app`, `net` link layers, `channel` models).
//! A driver (`driver.rs`) decides when time advances, through the interface
//! at the end of this file: next deadline, step, inject, take outbound.
//!
//! Events (one enum, addressed by indices):
//! - `Link { link, token }`: a wake-up a link layer asked for (for the FIFO
//!   link: the head packet of a direction reaches the far end). What it
//!   delivers is forwarded on the next link of the packet's route or handed
//!   to its endpoint.
//! - `SenderTimer` / `ReceiverTimer` / `AppTimer`: a state machine's
//!   deadline; cancelled lazily by generation number, and re-armed only when
//!   a deadline moves earlier.
//! - `Start(f)`: flow `f` begins (its application starts).
//! - `Reroute`: a moving world recomputes its routes (`mobile.rs`).
//!
//! Same-instant order is insertion order (the queue's sequence number); a
//! link layer takes the number of an arrival when it accepts the packet.
//!
//! Where the rest lives: building the world and opening streams
//! (`build.rs`), the application I/O (`apps.rs`), proxy glue (`relay.rs`),
//! packets from and to outside (`external.rs`), result assembly
//! (`assemble.rs`).

use super::external::{External, ExternalPacket, ExternalStats, Injected, Outbound};
use super::state::{AeroGroups, Conn, Ev, FlowRt};
use crate::app::AppIo;
use crate::engine::{EventQueue, Time};
use crate::error::SimError;
use crate::net::fifo::FifoSent;
use crate::net::{AnyLinkLayer, Dir, LinkIo, LinkPacket, Packet, PacketStore, Payload, SlotView};
use crate::observe::{PacketEventKind, PacketLog, TraceOptions};
use crate::pep::RelayOut;
use crate::tcp::{AckSeg, DataSeg};

/// One run's state.
pub struct World {
    pub(super) q: EventQueue<Ev>,
    pub(super) layers: Vec<AnyLinkLayer>,
    /// Shared media (`media.rs`) and, per link, (medium, member) of a
    /// member link.
    pub(super) media: super::state::Media,
    /// Routes: lists of link directions.
    pub(super) routes: Vec<Vec<u32>>,
    /// The packets on the move, by slot number.
    pub(super) packets: PacketStore,
    pub(super) conns: Vec<Conn>,
    pub(super) flows: Vec<FlowRt>,
    pub(super) data_out: Vec<DataSeg>,
    pub(super) ack_out: Vec<AckSeg>,
    /// The link-layer I/O record, reused by every call (emptied before a
    /// delivery is passed on, so a nested send finds it empty).
    pub(super) link_io: LinkIo,
    pub(super) relay_io: RelayOut,
    pub(super) app_io: AppIo,
    pub(super) packet_hops: u64,
    pub(super) events: u64,
    pub(super) event_budget: u64,
    /// Applications not yet done; a virtual-time run ends when none is left.
    pub(super) apps_pending: usize,
    pub(super) trace: Option<Box<TraceOptions>>, // what a traced run records
    /// The per-packet observer (off unless asked for).
    pub(super) log: Option<Box<PacketLog>>,
    pub(super) error: Option<SimError>,
    pub(super) ext: External, // packets from and to outside the simulated network
    /// AeroTCP adaptive allocation: connections open per satellite leg.
    pub(super) aero: AeroGroups,
    pub(super) mobile: Option<Box<super::network::Mobile>>, // None: static routes
    /// The seed and the plan's names and warnings, for the results.
    pub(super) names: Box<super::state::RunNames>,
}

/// Connections above which a packet's arrival prefetches its endpoint's
/// state: a sender and a receiver take some 30 cache lines, so a few
/// connections' state stays in the first-level cache (48 KiB here) and a
/// prefetch would only cost instructions.
const PREFETCH_CONNS: usize = 16;

/// The keyed-timer id of connection `c`'s sender (one pending event each).
#[inline(always)]
fn sender_timer(c: usize) -> u32 {
    2 * c as u32
}

/// The keyed-timer id of connection `c`'s receiver.
#[inline(always)]
fn receiver_timer(c: usize) -> u32 {
    2 * c as u32 + 1
}

impl World {
    #[inline]
    pub(super) fn dispatch(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::Link { link, token } => {
                if let AnyLinkLayer::Fifo(l) = &mut self.layers[link as usize] {
                    let (dir, slot, next) = l.wake_direct(now, token, &self.packets);
                    if let Some((w, n)) = next {
                        let token = w.token;
                        self.q.push_seq(w.at, w.seq, Ev::Link { link, token });
                        self.prefetch_arrival(n);
                    }
                    self.log_arrival(now, link as usize, dir, slot);
                    self.arrive(now, slot, 2 * link as usize + dir.index());
                } else {
                    self.link_call(now, link as usize, |l, io| l.wake(now, token, io));
                }
            }
            Ev::SenderTimer { conn, gen } => {
                let c = conn as usize;
                if self.conns[c].s_timer.gen != gen {
                    return;
                }
                self.conns[c].s_timer.at = Time::MAX;
                let mut out = std::mem::take(&mut self.data_out);
                if self.conns[c].sender.poll_at().is_some_and(|d| d <= now) {
                    self.conns[c].sender.on_timer(now, &mut out);
                }
                self.send_data(now, c, &mut out);
                self.data_out = out;
                self.after_sender(now, c);
                if let Some(inc) = self.conns[c].limits_acks_of {
                    // A retransmission or a probe may have sent new bytes.
                    self.sync_ack_limit(now, inc, c);
                }
            }
            Ev::ReceiverTimer { conn, gen } => {
                let c = conn as usize;
                if self.conns[c].r_timer.gen != gen {
                    return;
                }
                self.conns[c].r_timer.at = Time::MAX;
                let mut acks = std::mem::take(&mut self.ack_out);
                self.conns[c].receiver.on_timer(now, &mut acks);
                self.send_acks(now, c, &mut acks);
                self.ack_out = acks;
                self.sync_receiver_timer(c);
            }
            Ev::AppTimer { flow, gen } => self.app_timer(now, flow as usize, gen),
            Ev::Start(f) => self.start_flow(now, f as usize),
            Ev::Reroute => self.reroute(now),
            Ev::QuicTimer { slot, gen } => self.quic_timer(now, slot, gen),
            Ev::Medium { medium, token } => self.medium_wake(now, medium, token),
        }
    }

    /// A packet slot is done with (arrived, or lost).
    #[inline]
    pub(super) fn free_lost(&mut self, slot: u32) {
        let s = self.packets.slot(slot);
        if s.is_external() {
            self.ext.forget(s.conn);
        }
        self.packets.release(slot);
    }

    #[inline(always)]
    pub(super) fn log_arrival(&mut self, now: Time, link: usize, dir: Dir, slot: u32) {
        if let Some(log) = self.log.as_deref_mut() {
            let ld = (2 * link + dir.index()) as u32;
            let p = self.packets.get(slot);
            log.record(now, ld, PacketEventKind::Arrive, slot, &p);
        }
    }

    /// Put packet slot `slot` on the link direction `route[hop]` (in a
    /// moving world: towards its destination from its source).
    #[inline]
    pub(super) fn transmit(&mut self, now: Time, slot: u32) {
        let p = self.packets.slot(slot);
        if p.route & super::network::DYN_ROUTE != 0 {
            self.dyn_send(now, slot);
            return;
        }
        let ld = self.routes[p.route as usize][p.hop as usize] as usize;
        self.transmit_ld(now, slot, ld);
    }

    /// `transmit_ld` for a moving world's next hops (kept out of line, so
    /// that the static path's inlining stays as it was).
    #[inline(never)]
    pub(super) fn transmit_on(&mut self, now: Time, slot: u32, ld: usize) {
        self.transmit_ld(now, slot, ld);
    }

    /// Put packet slot `slot` on link direction `ld`.
    #[inline]
    fn transmit_ld(&mut self, now: Time, slot: u32, ld: usize) {
        let p = self.packets.slot(slot);
        let (kind, seq, retx) = match p.view() {
            SlotView::Sim(kind, seq, retx) => (kind, seq, retx),
            SlotView::External => self.ext.link_view(p.conn),
        };
        let pkt = LinkPacket {
            slot,
            bytes: p.size_bytes,
            kind,
            seq,
            retx,
        };
        self.packet_hops += 1;
        if let Some(log) = self.log.as_deref_mut() {
            let p = self.packets.get(slot);
            if let Payload::External = p.payload {
                let data = self.ext.data(p.conn).unwrap_or(&[]);
                log.record_external(now, ld as u32, PacketEventKind::Enqueue, slot, &p, data);
            } else {
                log.record(now, ld as u32, PacketEventKind::Enqueue, slot, &p);
            }
        }
        let dir = Dir::from_index(ld & 1);
        let link = ld >> 1;
        if let AnyLinkLayer::Fifo(l) = &mut self.layers[link] {
            let mut seq = self.q.seq();
            let sent = l.send_direct(now, dir, &pkt, &mut seq, &mut self.packets);
            self.q.set_seq(seq);
            match sent {
                FifoSent::InFlight(Some(w)) => self.q.push_seq(
                    w.at,
                    w.seq,
                    Ev::Link {
                        link: link as u32,
                        token: w.token,
                    },
                ),
                FifoSent::InFlight(None) => {}
                FifoSent::Lost(why) => {
                    if let Some(log) = self.log.as_deref_mut() {
                        let p = self.packets.get(slot);
                        log.record(now, ld as u32, PacketEventKind::Drop(why), slot, &p);
                    }
                    self.free_lost(slot)
                }
            }
        } else if let AnyLinkLayer::Member(_) = &self.layers[link] {
            self.medium_send(now, link, dir, pkt);
        } else {
            self.link_call(now, link, |l, io| l.send(now, dir, pkt, io));
        }
    }

    /// A packet reached the far end of link direction `ld`: forward it on
    /// its route, or hand it to its endpoint.
    #[inline(always)]
    pub(super) fn arrive(&mut self, now: Time, slot: u32, ld: usize) {
        let p = self.packets.slot_mut(slot);
        if p.route & super::network::DYN_ROUTE != 0 {
            self.dyn_arrive(now, slot, ld);
            return;
        }
        p.hop += 1;
        if (p.hop as usize) < self.routes[p.route as usize].len() {
            self.transmit(now, slot);
            return;
        }
        self.deliver(now, slot);
    }

    /// A hint, two arrivals deep in a static world: the packet in `slot`
    /// (the next head; its slot prefetched an arrival earlier) arrives
    /// soon: bring in the slot of the packet after it, and if its arrival
    /// ends its route, what its delivery reads (an ACK's SACK blocks; with
    /// more than `PREFETCH_CONNS` connections, the TCP endpoint's state).
    /// Not in a moving world: next hops are found on the way (no last hop
    /// to know), and a direction's next arrival is hundreds of events away
    /// (`World::prefetch_next` brings in the next event's slot instead).
    #[inline(always)]
    fn prefetch_arrival(&self, slot: u32) {
        if self.mobile.is_some() {
            return;
        }
        let s = self.packets.slot(slot);
        if s.next != crate::net::packet::NO_SLOT {
            self.packets.prefetch(s.next);
        }
        if s.hop as usize + 1 != self.routes[s.route as usize].len() {
            return;
        }
        let many = self.conns.len() > PREFETCH_CONNS;
        match s.tcp_is_ack() {
            Some(true) => {
                self.packets.prefetch_blocks(slot);
                if many {
                    self.conns[s.conn as usize].sender.prefetch_for_ack();
                }
            }
            Some(false) if many => self.conns[s.conn as usize].receiver.prefetch_for_segment(),
            _ => {}
        }
    }

    /// A packet reached its destination: hand it to its endpoint.
    #[inline(always)]
    pub(super) fn deliver(&mut self, now: Time, slot: u32) {
        let p = self.packets.take(slot);
        let c = p.conn as usize;
        #[cfg(feature = "event-cycles")]
        super::cycles::arrived(&p.payload);
        match p.payload {
            Payload::Data(seg) => self.data_at_receiver(now, c, &seg),
            Payload::Ack(ack) => self.ack_at_sender(now, c, &ack),
            Payload::Datagram { sent_at, .. } => {
                let d = self.flows[c].dgram.as_mut().expect("a datagram flow");
                d.on_arrival(now, sent_at, p.size_bytes);
            }
            Payload::External => self.external_arrived(now, p.conn),
        }
    }

    /// Put a probe flow's datagrams on its route.
    pub(super) fn send_datagrams(&mut self, now: Time, f: usize, out: &mut Vec<(usize, u32)>) {
        for (_, bytes) in out.drain(..) {
            let d = self.flows[f].dgram.as_mut().expect("a datagram flow");
            let (seq, route) = (d.on_send(bytes), d.route);
            let slot = self.packets.alloc(Packet {
                size_bytes: bytes,
                conn: f as u32,
                route,
                hop: 0,
                payload: Payload::Datagram { seq, sent_at: now },
            });
            self.transmit(now, slot);
        }
    }

    fn data_at_receiver(&mut self, now: Time, c: usize, seg: &DataSeg) {
        if seg.is_syn() {
            self.syn_at_receiver(now, c, seg);
            return;
        }
        let mut acks = std::mem::take(&mut self.ack_out);
        let arrival = self.conns[c].receiver.on_segment(now, seg, &mut acks);
        if arrival.discarded && !seg.probe && self.conns[c].proxy_out.is_some() {
            let f = &self.flows[self.conns[c].flow];
            self.error = Some(SimError::CacheOverflow {
                flow: f.name.clone(),
                node: format!("leg {} receiver", self.conns[c].leg),
                detail: format!(
                    "segment [{}, {}) did not fit in the cache",
                    seg.seq,
                    seg.end()
                ),
            });
        }
        if !arrival.discarded {
            self.conns[c].ledger.on_arrival(seg.seq, seg.len);
        }
        self.send_acks(now, c, &mut acks);
        self.ack_out = acks;
        self.sync_receiver_timer(c);
        if let Some((a, b)) = arrival.delivered {
            if let Err(detail) = self.conns[c].ledger.on_delivery(a, b) {
                let f = &self.flows[self.conns[c].flow];
                self.error = Some(SimError::ByteConservation {
                    flow: f.name.clone(),
                    detail: format!("leg {}: {detail}", self.conns[c].leg),
                });
                return;
            }
            self.on_delivered(now, c, b - a);
        }
        if let Some(out) = self.conns[c].ack_limited_by {
            // After forwarding: the ACK deferred for this arrival (if any)
            // goes out now, covering what the outgoing leg has sent.
            self.sync_ack_limit(now, c, out);
        }
        if let Some(pi) = self.conns[c].proxy_out {
            self.observe_proxy(now, self.conns[c].flow, pi);
        }
    }

    /// In-order bytes left leg `c`'s receiver: to the application, or into a proxy.
    fn on_delivered(&mut self, now: Time, c: usize, bytes: u64) {
        match self.conns[c].proxy_out {
            None => self.deliver_to_app(now, c, bytes),
            Some(pi) => self.deliver_to_proxy(now, c, pi, bytes),
        }
    }

    fn ack_at_sender(&mut self, now: Time, c: usize, ack: &AckSeg) {
        let mut out = std::mem::take(&mut self.data_out);
        let acked = self.conns[c].sender.on_ack(now, ack, &mut out);
        self.send_data(now, c, &mut out);
        self.data_out = out;
        self.after_sender(now, c);
        self.after_ack_at_proxy_sender(now, c, acked);
    }

    #[inline]
    pub(super) fn send_data(&mut self, now: Time, c: usize, out: &mut Vec<DataSeg>) {
        let (route, header) = (self.conns[c].fwd_route, self.conns[c].header);
        for s in out.iter() {
            let slot = self.packets.alloc_data(s.len + header, c as u32, route, s);
            self.transmit(now, slot);
        }
        out.clear();
    }

    #[inline]
    pub(super) fn send_acks(&mut self, now: Time, c: usize, acks: &mut Vec<AckSeg>) {
        let (route, header) = (self.conns[c].rev_route, self.conns[c].header);
        if let Some(pi) = self.conns[c].proxy_out {
            self.note_proxy_acks(c, pi, acks);
        }
        for ack in acks.iter() {
            // An ACK is the header; with SACK, 2 bytes + 8 per block (RFC 2018).
            let sack = if ack.sack.is_empty() {
                0
            } else {
                2 + 8 * ack.sack.len() as u32
            };
            let slot = self.packets.alloc_ack(header + sack, c as u32, route, ack);
            self.transmit(now, slot);
        }
        acks.clear();
    }

    /// After any sender input: re-arm its timer, record its trace.
    #[inline]
    pub(super) fn after_sender(&mut self, now: Time, c: usize) {
        let conn = &mut self.conns[c];
        if let Some(gen) = conn.s_timer.arm(conn.sender.poll_at()) {
            let ev = Ev::SenderTimer {
                conn: c as u32,
                gen,
            };
            // One pending event per sender: a timer moved earlier replaces
            // the event it had instead of leaving it to be popped for nothing.
            self.q
                .set_timer(sender_timer(c), conn.s_timer.at.max(now), ev);
        }
        if let Some(tr) = conn.trace.as_mut() {
            let s = &conn.sender;
            tr.push(
                now,
                s.cwnd(),
                s.ssthresh(),
                s.srtt().map_or(f64::NAN, |d| d.as_secs_f64()),
                s.flight(),
                s.rwnd(),
                s.rate_estimate_bps(),
            );
        }
    }

    pub(super) fn sync_receiver_timer(&mut self, c: usize) {
        let conn = &mut self.conns[c];
        if let Some(gen) = conn.r_timer.arm(conn.receiver.poll_at()) {
            let ev = Ev::ReceiverTimer {
                conn: c as u32,
                gen,
            };
            // Keyed as well: a delayed-ACK timer pending for tens of
            // milliseconds on each of many receivers kept the heap, which
            // every link arrival passes through, some forty entries deep.
            self.q.set_timer(receiver_timer(c), conn.r_timer.at, ev);
        }
    }
}

// ---- the driver interface ------------------------------------------------

/// How a [`World::step`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// No event is left at or before the time stepped to.
    Reached,
    /// The step ran its maximum number of events; more are due.
    Paused,
    /// Every application is done (only when the step was asked to stop then).
    AppsDone,
}

impl World {
    /// When the next event is due (`None`: nothing is scheduled).
    #[inline]
    pub fn next_deadline(&self) -> Option<Time> {
        self.q.peek_time()
    }

    /// The time of the last event run.
    pub fn now(&self) -> Time {
        self.q.now()
    }

    /// Events run so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Every application is done (a bulk source never is).
    pub fn apps_done(&self) -> bool {
        self.apps_pending == 0
    }

    /// Run the events due at or before `until`, in (time, sequence) order,
    /// at most `max_events` of them; with `stop_when_done`, stop before the
    /// next event once every application is done. The run's event budget
    /// and the errors the seams raise (byte conservation, cache overflow)
    /// end it with an error.
    #[inline]
    pub fn step(
        &mut self,
        until: Time,
        max_events: u64,
        stop_when_done: bool,
    ) -> Result<Step, SimError> {
        let last = self.events.saturating_add(max_events);
        while let Some(t) = self.q.peek_time() {
            if t > until {
                return Ok(Step::Reached);
            }
            if stop_when_done && self.apps_pending == 0 {
                return Ok(Step::AppsDone);
            }
            if self.events == last {
                return Ok(Step::Paused);
            }
            #[cfg(feature = "event-cycles")]
            super::cycles::begin();
            let (now, ev) = self.q.pop().unwrap();
            self.prefetch_next();
            #[cfg(feature = "event-cycles")]
            super::cycles::popped(&ev);
            self.events += 1;
            if self.events > self.event_budget {
                return Err(SimError::EventBudgetExceeded {
                    budget: self.event_budget,
                    sim_time_s: now.as_secs_f64(),
                });
            }
            self.dispatch(now, ev);
            #[cfg(feature = "event-cycles")]
            super::cycles::end();
            if let Some(e) = self.error.take() {
                return Err(e);
            }
        }
        if stop_when_done && self.apps_pending == 0 {
            return Ok(Step::AppsDone);
        }
        Ok(Step::Reached)
    }
}

// ---- packets from and to outside ----------------------------------------

impl World {
    /// Mark `nodes` as facing outside: packets injected for them (or
    /// passing them) leave the world there.
    pub fn set_outside(&mut self, nodes: &[u32]) {
        for &n in nodes {
            self.ext.outside[n as usize] = true;
        }
        self.ext.routes.clear();
    }

    /// A packet arrives from outside at node `from`, for node `to`, at
    /// `now` (not before the last event run: step to `now` first).
    pub fn inject(&mut self, now: Time, from: u32, to: u32, packet: ExternalPacket) -> Injected {
        assert!(now >= self.q.now(), "a packet injected in the past");
        let route = match self.ext.routes.get(&(from, to)) {
            // A moving world forwards by destination.
            None if self.mobile.is_some() && from != to => {
                let r = self.mobile.as_deref_mut().unwrap().route(from, to);
                Some((r, to))
            }
            Some(r) => *r,
            None => {
                let r = self.external_route(from, to);
                self.ext.routes.insert((from, to), r);
                r
            }
        };
        let Some((route, exit)) = route else {
            self.ext.stats.unroutable += 1;
            return Injected::Unroutable;
        };
        let bytes = packet.data.len();
        self.ext.stats.injected += 1;
        self.ext.stats.injected_bytes += bytes as u64;
        let id = self.ext.store(super::external::Record {
            packet,
            from,
            exit,
            injected_at: now,
            quic: None,
        });
        if from == to
            || (route & super::network::DYN_ROUTE == 0 && self.routes[route as usize].is_empty())
        {
            self.ext.leave(now, id);
            return Injected::Sent;
        }
        let slot = self.packets.alloc(Packet {
            size_bytes: bytes.min(u32::MAX as usize) as u32,
            conn: id,
            route,
            hop: 0,
            payload: Payload::External,
        });
        self.transmit(now, slot);
        Injected::Sent
    }

    /// The route of packets from `from` to `to`, cut at the first
    /// outside-facing node after `from`: (route index, exit node).
    fn external_route(&mut self, from: u32, to: u32) -> Option<(u32, u32)> {
        let path = self.ext.topology.path(from, to)?;
        let cut = path
            .iter()
            .skip(1)
            .position(|&n| self.ext.outside[n as usize])
            .map_or(path.len(), |k| k + 2);
        let path = &path[..cut];
        let dirs = self.ext.topology.dirs_of(path);
        self.routes.push(dirs);
        Some(((self.routes.len() - 1) as u32, *path.last().unwrap()))
    }

    /// Move the packets that left the world since the last call into `out`.
    pub fn take_outbound(&mut self, out: &mut Vec<Outbound>) {
        out.append(&mut self.ext.outbound);
    }

    /// Counters of the packets from outside so far.
    pub fn external_stats(&self) -> ExternalStats {
        self.ext.stats
    }

    /// The bytes of an external packet the packet log recorded by its
    /// index, while it is still in the world.
    pub fn external_data(&self, id: u32) -> Option<&[u8]> {
        self.ext.data(id)
    }
}

impl World {
    /// The packet log's events before `t` (a live run writes them out as it
    /// goes); `None` when the run keeps no log.
    pub fn take_packet_log_before(&mut self, t: Time) -> Option<crate::observe::PacketLog> {
        self.log.as_deref_mut().map(|l| l.split_before(t))
    }
}
