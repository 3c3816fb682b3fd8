//! The simulator: builds a world from a [`Plan`] and drives the sans-IO
//! state machines with the event queue. The world only routes: packets
//! between endpoints and link layers, bytes between endpoints and their
//! application or proxy relay. Protocol logic lives in the seams (`tcp`,
//! `pep`, `app`, `net` link layers, `channel` models).
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
//!
//! Same-instant order is insertion order (the queue's sequence number); a
//! link layer takes the number of an arrival when it accepts the packet.
//!
//! Ack-after-forward (a proxy's integrity rule): the incoming receiver's ACK
//! is capped at the outgoing sender's `snd_max`. The cap is raised, and a
//! deferred ACK flushed, after each event that can make the outgoing sender
//! transmit (an arrival forwarded into it, an ACK or a timer of its own), so
//! an ACK the rule holds back goes out the moment the bytes it covers have
//! been put on the outgoing wire.

use crate::app::{App, AppIo, ByteLedger, StreamDir};
use crate::channel::{Channel, ChannelCtx, PacketKind};
use crate::engine::{EventQueue, Time};
use crate::error::SimError;
use crate::net::fifo::FifoSent;
use crate::net::{AnyLinkLayer, Dir, LinkBuild, LinkIo, LinkPacket, Packet, Payload};
use crate::observe::{
    ConnLabel, PacketEventKind, PacketLog, PacketLogOptions, SenderTrace, ValueTrace,
};
use crate::pep::{ProxyRt, RelayOut};
use crate::result::{
    EngineStats, FlowResult, LegResult, LinkResult, ProxyResult, RunResult, Series,
};
use crate::scenario::{Plan, PlanProxy, Scenario, SenderFactory};
use crate::tcp::{self, AckSeg, DataSeg, TcpReceiver, TcpSender};
use std::sync::Arc;

/// A cancellation check, polled every few thousand events.
pub type CancelFn = Arc<dyn Fn() -> bool + Send + Sync>;

/// How often (in events) a run polls its cancellation check.
const CANCEL_POLL_EVENTS: u64 = 4096;

/// What a run should record beyond the results, and how it may be stopped.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Record time series (cwnd, ssthresh, srtt, flight, rwnd per leg; proxy
    /// occupancy; queue occupancy per link direction).
    pub trace: bool,
    /// Record a per-packet event log (returned in `RunResult::packet_log`).
    pub packet_log: Option<PacketLogOptions>,
    /// Polled every few thousand events; when it returns true the run ends
    /// with [`SimError::Cancelled`].
    pub cancel: Option<CancelFn>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("trace", &self.trace)
            .field("packet_log", &self.packet_log)
            .field("cancel", &self.cancel.is_some())
            .finish()
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Link { link: u32, token: u32 },
    SenderTimer { conn: u32, gen: u32 },
    ReceiverTimer { conn: u32, gen: u32 },
    AppTimer { flow: u32, gen: u32 },
    Start(u32),
}

#[derive(Clone, Copy, Debug)]
struct TimerSlot {
    at: Time,
    gen: u32,
}

impl TimerSlot {
    /// Arm for `deadline` if it is earlier than the pending event; returns
    /// the new generation to schedule, or `None` when the pending event
    /// already fires in time (it re-arms itself if it fires early).
    #[inline]
    fn arm(&mut self, deadline: Option<Time>) -> Option<u32> {
        let d = deadline?;
        if d >= self.at {
            return None;
        }
        self.gen = self.gen.wrapping_add(1);
        self.at = d;
        Some(self.gen)
    }
}

impl Default for TimerSlot {
    fn default() -> Self {
        TimerSlot {
            at: Time::MAX,
            gen: 0,
        }
    }
}

/// One TCP connection: a leg of a flow's stream.
struct Conn {
    flow: usize,
    leg: usize,
    stream: usize,
    sender: TcpSender,
    receiver: TcpReceiver,
    fwd_route: u32,
    rev_route: u32,
    header: u32,
    s_timer: TimerSlot,
    r_timer: TimerSlot,
    ledger: ByteLedger,
    /// Proxy index (in the flow) feeding this connection's sender, if any.
    proxy_in: Option<usize>,
    /// Proxy index this connection's receiver feeds, if any.
    proxy_out: Option<usize>,
    /// Ack-after-forward: the connection whose sender's `snd_max` caps this
    /// receiver's ACKs (the proxy's outgoing leg).
    ack_limited_by: Option<usize>,
    /// Ack-after-forward: the connection whose receiver this sender's
    /// `snd_max` caps (the proxy's incoming leg).
    limits_acks_of: Option<usize>,
    trace: Option<SenderTrace>,
}

struct FlowRt {
    name: String,
    start: Time,
    app: App,
    app_timer: TimerSlot,
    /// Connections of each stream, in the stream's path order.
    streams: Vec<Vec<usize>>,
    /// Direction of each stream.
    stream_dirs: Vec<StreamDir>,
    /// All connections of the flow (every stream), in leg order.
    conns: Vec<usize>,
    proxies: Vec<ProxyRt>,
    proxy_traces: Vec<ValueTrace>,
    done_at: Option<Time>,
    /// What a new stream of this flow is built from.
    proto: StreamProto,
    /// A datagram flow's path and counters (`None` for TCP flows).
    dgram: Option<Box<DgramRt>>,
    /// AeroTCP adaptive allocation: the open-connection counters of the
    /// satellite legs this flow uses. An application that starts with
    /// stream 0 counts as one connection from its start until it is done;
    /// one that opens its own streams counts each forward stream from its
    /// opening until it is closed (or the application is done).
    aero_open: Vec<Arc<std::sync::atomic::AtomicU32>>,
    /// Forward streams counted open (for an application opening its own).
    aero_streams: Vec<usize>,
    /// Whether the application opens its own streams.
    opens_own: bool,
}

/// The legs and proxies every stream of a flow is built from.
struct StreamProto {
    legs: Vec<LegProto>,
    proxies: Vec<PlanProxy>,
}

/// One leg of a flow's path, from the flow's `from` side to its `to` side.
struct LegProto {
    /// The leg's TCP configuration (AeroTCP's open-connection counter installed).
    cfg: tcp::TcpConfig,
    make_sender: Option<SenderFactory>,
    /// Routes from the leg's `from` end to its `to` end, and back.
    fwd_route: u32,
    rev_route: u32,
    /// Node names of the leg's ends (`from` side first).
    ends: (String, String),
    variant: String,
}

/// The datagram path of a probe flow: no connection, one route.
#[derive(Default)]
struct DgramRt {
    route: u32,
    sent: u64,
    bytes_sent: u64,
    received: u64,
    bytes_received: u64,
    delay_sum_s: f64,
    delay_max_s: f64,
}

struct World {
    q: EventQueue<Ev>,
    layers: Vec<AnyLinkLayer>,
    routes: Vec<Vec<u32>>,
    packets: Vec<Packet>,
    free: Vec<u32>,
    conns: Vec<Conn>,
    flows: Vec<FlowRt>,
    data_out: Vec<DataSeg>,
    ack_out: Vec<AckSeg>,
    /// The link-layer I/O record, reused by every call (emptied before a
    /// delivery is passed on, so a nested send finds it empty).
    link_io: LinkIo,
    relay_io: RelayOut,
    app_io: AppIo,
    packet_hops: u64,
    /// Applications not yet done; the run ends when none is left.
    apps_pending: usize,
    trace: bool,
    /// The per-packet observer (off unless asked for).
    log: Option<Box<PacketLog>>,
    error: Option<SimError>,
}

/// Simulate `scn` once with `seed`.
pub fn run(scn: &Scenario, seed: u64, opts: &RunOptions) -> Result<RunResult, SimError> {
    let plan = Plan::build(scn, "<scenario>")?;
    run_plan(&plan, seed, opts)
}

/// Simulate a resolved plan once with `seed`.
pub fn run_plan(plan: &Plan, seed: u64, opts: &RunOptions) -> Result<RunResult, SimError> {
    let mut w = World::build(plan, seed, opts);
    let end = Time(plan.duration.0);
    let budget = plan.event_budget;
    let mut events: u64 = 0;
    while let Some(t) = w.q.peek_time() {
        if t > end || w.apps_pending == 0 {
            break;
        }
        let (now, ev) = w.q.pop().unwrap();
        events += 1;
        if events > budget {
            return Err(SimError::EventBudgetExceeded {
                budget,
                sim_time_s: now.as_secs_f64(),
            });
        }
        if events.is_multiple_of(CANCEL_POLL_EVENTS) {
            if let Some(cancel) = &opts.cancel {
                if cancel() {
                    return Err(SimError::Cancelled {
                        sim_time_s: now.as_secs_f64(),
                    });
                }
            }
        }
        w.dispatch(now, ev);
        if let Some(e) = w.error.take() {
            return Err(e);
        }
    }
    let stop = if w.apps_pending == 0 { w.q.now() } else { end };
    Ok(w.finish(plan, seed, stop, events))
}

impl World {
    fn build(plan: &Plan, seed: u64, opts: &RunOptions) -> World {
        let mut layers: Vec<AnyLinkLayer> = plan
            .layers
            .iter()
            .enumerate()
            .map(|(k, layer)| {
                let dirs = [&plan.links[2 * k], &plan.links[2 * k + 1]];
                let channels = dirs.map(|d| {
                    d.channels
                        .iter()
                        .enumerate()
                        .map(|(index, spec)| {
                            let ctx = ChannelCtx {
                                seed,
                                link: &d.name,
                                index,
                                geometry: d.geometry,
                            };
                            Channel::build(spec, &ctx)
                        })
                        .collect::<Vec<_>>()
                });
                AnyLinkLayer::build(
                    &layer.spec,
                    LinkBuild {
                        name: &layer.name,
                        seed,
                        dirs,
                        channels,
                    },
                )
            })
            .collect();
        if opts.trace {
            for l in layers.iter_mut() {
                l.trace_queues();
            }
        }
        let mut routes = Vec::new();
        let conns = Vec::new();
        let mut flows = Vec::new();
        let mut q = EventQueue::new();
        // AeroTCP adaptive allocation: one open-connection counter per
        // satellite leg (its route) and run.
        let mut aero_counters: std::collections::BTreeMap<
            Vec<u32>,
            Arc<std::sync::atomic::AtomicU32>,
        > = Default::default();
        for (fi, f) in plan.flows.iter().enumerate() {
            let mut aero_open = Vec::new();
            let dgram = f.app.datagrams().then(|| {
                routes.push(f.legs[0].fwd.clone());
                Box::new(DgramRt {
                    route: (routes.len() - 1) as u32,
                    ..Default::default()
                })
            });
            let tcp_legs = if dgram.is_some() {
                &f.legs[..0]
            } else {
                &f.legs[..]
            };
            let mut legs = Vec::with_capacity(tcp_legs.len());
            for leg in tcp_legs {
                let fwd_route = routes.len() as u32;
                routes.push(leg.fwd.clone());
                let rev_route = routes.len() as u32;
                routes.push(leg.rev.clone());
                let mut cfg = leg.cfg.clone();
                if let Some(a) = cfg.aero.adaptive.as_mut() {
                    let c = aero_counters.entry(leg.fwd.clone()).or_default().clone();
                    a.open = c.clone();
                    aero_open.push(c);
                }
                legs.push(LegProto {
                    cfg,
                    make_sender: leg.make_sender.clone(),
                    fwd_route,
                    rev_route,
                    ends: (
                        plan.nodes[*leg.path.first().unwrap() as usize].clone(),
                        plan.nodes[*leg.path.last().unwrap() as usize].clone(),
                    ),
                    variant: leg.variant_name.clone(),
                });
            }
            q.push(Time(f.start.0), Ev::Start(fi as u32));
            flows.push(FlowRt {
                name: f.name.clone(),
                start: Time(f.start.0),
                app: App::build(&f.app, seed, &f.name),
                app_timer: TimerSlot::default(),
                proxy_traces: Vec::new(),
                proxies: Vec::new(),
                streams: Vec::new(),
                stream_dirs: Vec::new(),
                dgram,
                conns: Vec::new(),
                aero_open,
                aero_streams: Vec::new(),
                opens_own: !f.app.opens_stream_at_start() && !f.app.datagrams(),
                done_at: None,
                proto: StreamProto {
                    legs,
                    proxies: f.proxies.clone(),
                },
            });
        }
        let mut w = World {
            q,
            layers,
            routes,
            packets: Vec::with_capacity(4096),
            free: Vec::with_capacity(4096),
            apps_pending: flows.len(),
            conns,
            flows,
            data_out: Vec::with_capacity(64),
            ack_out: Vec::with_capacity(64),
            link_io: LinkIo::default(),
            relay_io: RelayOut::default(),
            app_io: AppIo::default(),
            packet_hops: 0,
            trace: opts.trace,
            log: opts
                .packet_log
                .as_ref()
                .map(|o| Box::new(PacketLog::new(plan.links.len(), o))),
            error: None,
        };
        // Stream 0 of the applications that start with one (a file transfer,
        // a bulk source): its connections exist from the start.
        for (fi, f) in plan.flows.iter().enumerate() {
            if f.app.opens_stream_at_start() {
                w.open_stream(fi, StreamDir::Forward, None, Time(f.start.0));
            }
        }
        w
    }

    /// Open a stream of flow `f`: one connection per leg along the path in
    /// direction `dir` (legs in reverse order for `Reverse`), and one relay
    /// per proxy between them. `handshake` overrides the legs' configured
    /// handshake (an application opening a connection, or the reverse half
    /// of one). Returns the stream's number.
    fn open_stream(
        &mut self,
        f: usize,
        dir: StreamDir,
        handshake: Option<bool>,
        now: Time,
    ) -> usize {
        let fl = &mut self.flows[f];
        let stream = fl.streams.len();
        let n = fl.proto.legs.len();
        let forward = dir == StreamDir::Forward;
        let base = fl.proxies.len();
        let mut conn_ids = Vec::with_capacity(n);
        for pos in 0..n {
            // Plan leg and, between legs, plan proxy, in this stream's order.
            let li = if forward { pos } else { n - 1 - pos };
            let proxy_after = (pos + 1 < n).then(|| if forward { li } else { li - 1 });
            let lp = &fl.proto.legs[li];
            let mut cfg = lp.cfg.clone();
            if let Some(h) = handshake {
                cfg.handshake = h;
            }
            let receiver = if let Some(pi) = proxy_after {
                // The incoming side of a proxy: its buffer is the cache,
                // its window follows the proxy's policy.
                let p = &fl.proto.proxies[pi];
                let mut rc = cfg.clone();
                rc.rcv_buffer = p.cache_bytes;
                let mut r = tcp::new_receiver(&rc);
                r.set_proxy_mode(ProxyRt::policy_of(p.policy));
                // The sender starts from the window this receiver advertises.
                cfg.rcv_buffer = r.advertised_window();
                r
            } else {
                tcp::new_receiver(&cfg)
            };
            let (fwd_route, rev_route) = if forward {
                (lp.fwd_route, lp.rev_route)
            } else {
                (lp.rev_route, lp.fwd_route)
            };
            let sender = match &lp.make_sender {
                Some(make) => (make.0)(cfg.clone()),
                None => tcp::new_sender(cfg.clone()),
            };
            if let Some(log) = self.log.as_deref_mut() {
                log.conns.push(ConnLabel {
                    flow: f,
                    leg: li,
                    reverse: !forward,
                    handshake: cfg.handshake,
                });
            }
            conn_ids.push(self.conns.len());
            self.conns.push(Conn {
                flow: f,
                leg: li,
                stream,
                sender,
                receiver,
                fwd_route,
                rev_route,
                header: cfg.header_bytes,
                s_timer: TimerSlot::default(),
                r_timer: TimerSlot::default(),
                ledger: ByteLedger::default(),
                proxy_in: (pos > 0).then(|| base + pos - 1),
                proxy_out: proxy_after.map(|_| base + pos),
                ack_limited_by: None,
                limits_acks_of: None,
                // Traces follow the flow's first stream.
                trace: (self.trace && stream == 0).then(SenderTrace::default),
            });
        }
        for pos in 0..n.saturating_sub(1) {
            let pi = if forward { pos } else { n - 2 - pos };
            let p = &fl.proto.proxies[pi];
            let (inc, out) = (conn_ids[pos], conn_ids[pos + 1]);
            let mut pr = ProxyRt::new(p.node, p.policy, p.cache_bytes, p.send_buffer, inc, out);
            pr.set_start(now);
            self.conns[out].sender.set_max_unacked(pr.out_max_unacked());
            if p.ack_after_forward {
                pr.ack_after_forward = true;
                // Nothing transmitted on the outgoing leg yet.
                self.conns[inc].receiver.set_ack_limit(0);
                self.conns[inc].ack_limited_by = Some(out);
                self.conns[out].limits_acks_of = Some(inc);
            }
            fl.proxies.push(pr);
            if self.trace && stream == 0 {
                fl.proxy_traces.push(ValueTrace::default());
            }
        }
        if fl.opens_own && forward {
            for c in &fl.aero_open {
                c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            fl.aero_streams.push(stream);
        }
        fl.conns.extend_from_slice(&conn_ids);
        fl.streams.push(conn_ids);
        fl.stream_dirs.push(dir);
        stream
    }

    #[inline]
    fn dispatch(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::Link { link, token } => {
                if let AnyLinkLayer::Fifo(l) = &mut self.layers[link as usize] {
                    // The built-in link without the I/O record (same code).
                    let (dir, slot, next) = l.wake_direct(now, token);
                    if let Some(w) = next {
                        self.q.push_seq(w.at, w.seq, Ev::Link { link, token });
                    }
                    self.log_arrival(now, link as usize, dir, slot);
                    self.arrive(now, slot);
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
            Ev::AppTimer { flow, gen } => {
                let f = flow as usize;
                if self.flows[f].app_timer.gen != gen {
                    return;
                }
                self.flows[f].app_timer.at = Time::MAX;
                let mut io = std::mem::take(&mut self.app_io);
                io.streams = self.flows[f].streams.len();
                let app = &mut self.flows[f].app;
                if app.poll_at().is_some_and(|d| d <= now) {
                    app.on_timer(now, &mut io);
                }
                self.after_app(now, f, io);
            }
            Ev::Start(f) => {
                let f = f as usize;
                if !self.flows[f].opens_own {
                    for c in &self.flows[f].aero_open {
                        c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                let mut io = std::mem::take(&mut self.app_io);
                io.streams = self.flows[f].streams.len();
                self.flows[f].app.start(now, &mut io);
                self.after_app(now, f, io);
            }
        }
    }

    /// Act on what an application asked for: hand bytes to stream senders,
    /// note an error, note that it finished, arm its timer.
    #[inline]
    fn after_app(&mut self, now: Time, f: usize, mut io: AppIo) {
        for i in 0..io.opens.len() {
            let o = io.opens[i];
            self.open_stream(f, o.dir, Some(o.handshake), now);
        }
        io.opens.clear();
        for i in 0..io.closes.len() {
            let s = io.closes[i];
            let fl = &mut self.flows[f];
            if let Some(k) = fl.aero_streams.iter().position(|&x| x == s) {
                fl.aero_streams.swap_remove(k);
                for c in &fl.aero_open {
                    c.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
        io.closes.clear();
        for i in 0..io.sends.len() {
            let (stream, bytes) = io.sends[i];
            let Some(first) = self.flows[f].streams.get(stream) else {
                io.fail(format!("data for stream {stream}, which was never opened"));
                continue;
            };
            let c = first[0];
            let mut out = std::mem::take(&mut self.data_out);
            self.conns[c].sender.add_app_data(now, bytes, &mut out);
            self.send_data(now, c, &mut out);
            self.data_out = out;
            self.after_sender(now, c);
        }
        io.sends.clear();
        if !io.datagrams.is_empty() {
            self.send_datagrams(now, f, &mut io.datagrams);
        }
        if let Some(detail) = io.error.take() {
            self.error = Some(SimError::ByteConservation {
                flow: self.flows[f].name.clone(),
                detail,
            });
        }
        self.app_io = io;
        let fl = &mut self.flows[f];
        if fl.done_at.is_none() && fl.app.done() {
            fl.done_at = Some(now);
            // Done: the flow (or each of its streams still open) closes.
            let open = if fl.opens_own {
                std::mem::take(&mut fl.aero_streams).len() as u32
            } else {
                1
            };
            for c in &fl.aero_open {
                c.fetch_sub(open, std::sync::atomic::Ordering::Relaxed);
            }
            self.apps_pending -= 1;
        }
        if let Some(gen) = fl.app_timer.arm(fl.app.poll_at()) {
            let at = fl.app_timer.at.max(now);
            self.q.push(
                at,
                Ev::AppTimer {
                    flow: f as u32,
                    gen,
                },
            );
        }
    }

    #[inline]
    fn alloc(&mut self, p: Packet) -> u32 {
        if let Some(i) = self.free.pop() {
            self.packets[i as usize] = p;
            i
        } else {
            self.packets.push(p);
            (self.packets.len() - 1) as u32
        }
    }

    /// Call into link layer `link` with the (empty) I/O record, then act on
    /// it: schedule its wake-ups, free what it lost, and pass on what it
    /// delivered. The record is empty again before any delivery is passed
    /// on, since a delivery can lead to a nested call.
    #[inline]
    fn link_call(
        &mut self,
        now: Time,
        link: usize,
        f: impl FnOnce(&mut AnyLinkLayer, &mut LinkIo),
    ) {
        let io = &mut self.link_io;
        io.seq = self.q.seq();
        f(&mut self.layers[link], io);
        self.q.set_seq(io.seq);
        for i in 0..io.wakes.len() {
            let w = io.wakes[i];
            self.q.push_seq(
                w.at,
                w.seq,
                Ev::Link {
                    link: link as u32,
                    token: w.token,
                },
            );
        }
        io.wakes.clear();
        for i in 0..io.lost.len() {
            let (dir, slot, why) = io.lost[i];
            if let Some(log) = self.log.as_deref_mut() {
                let ld = (2 * link + dir.index()) as u32;
                let p = &self.packets[slot as usize];
                log.record(now, ld, PacketEventKind::Drop(why), slot, p);
            }
            self.free.push(slot);
        }
        io.lost.clear();
        let delivered = match io.delivered.len() {
            0 => return,
            1 => {
                let d = io.delivered.pop().unwrap();
                let (dir, slot) = d;
                self.log_arrival(now, link, dir, slot);
                self.arrive(now, slot);
                return;
            }
            _ => std::mem::take(&mut io.delivered),
        };
        for &(dir, slot) in &delivered {
            self.log_arrival(now, link, dir, slot);
            self.arrive(now, slot);
        }
    }

    #[inline(always)]
    fn log_arrival(&mut self, now: Time, link: usize, dir: Dir, slot: u32) {
        if let Some(log) = self.log.as_deref_mut() {
            let ld = (2 * link + dir.index()) as u32;
            let p = &self.packets[slot as usize];
            log.record(now, ld, PacketEventKind::Arrive, slot, p);
        }
    }

    /// Put packet slot `slot` on the link direction `route[hop]`.
    #[inline]
    fn transmit(&mut self, now: Time, slot: u32) {
        let p = &self.packets[slot as usize];
        let ld = self.routes[p.route as usize][p.hop as usize] as usize;
        let (kind, seq, retx) = match p.payload {
            Payload::Data(d) if d.is_syn() => (PacketKind::Syn, 0, d.retx),
            Payload::Data(d) => (PacketKind::Data, d.seq, d.retx),
            Payload::Ack(_) => (PacketKind::Ack, 0, false),
            Payload::Datagram { seq, .. } => (PacketKind::Data, seq, false),
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
            log.record(now, ld as u32, PacketEventKind::Enqueue, slot, p);
        }
        let dir = Dir::from_index(ld & 1);
        let link = ld >> 1;
        if let AnyLinkLayer::Fifo(l) = &mut self.layers[link] {
            // The built-in link without the I/O record (same code).
            let mut seq = self.q.seq();
            let sent = l.send_direct(now, dir, &pkt, &mut seq);
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
                        let p = &self.packets[slot as usize];
                        log.record(now, ld as u32, PacketEventKind::Drop(why), slot, p);
                    }
                    self.free.push(slot)
                }
            }
        } else {
            self.link_call(now, link, |l, io| l.send(now, dir, pkt, io));
        }
    }

    #[inline(always)]
    fn arrive(&mut self, now: Time, slot: u32) {
        let p = &mut self.packets[slot as usize];
        p.hop += 1;
        if (p.hop as usize) < self.routes[p.route as usize].len() {
            self.transmit(now, slot);
            return;
        }
        let p = *p;
        self.free.push(slot);
        let c = p.conn as usize;
        match p.payload {
            Payload::Data(seg) => self.data_at_receiver(now, c, &seg),
            Payload::Ack(ack) => self.ack_at_sender(now, c, &ack),
            Payload::Datagram { sent_at, .. } => {
                let d = self.flows[c].dgram.as_mut().expect("a datagram flow");
                let delay = now.since(sent_at).as_secs_f64();
                d.received += 1;
                d.bytes_received += p.size_bytes as u64;
                d.delay_sum_s += delay;
                d.delay_max_s = d.delay_max_s.max(delay);
            }
        }
    }

    /// Put a probe flow's datagrams on its route.
    fn send_datagrams(&mut self, now: Time, f: usize, out: &mut Vec<(usize, u32)>) {
        for (_, bytes) in out.drain(..) {
            let d = self.flows[f].dgram.as_mut().expect("a datagram flow");
            let (seq, route) = (d.sent, d.route);
            d.sent += 1;
            d.bytes_sent += bytes as u64;
            let slot = self.alloc(Packet {
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

    /// A SYN arrived: the receiver answers with a SYN-ACK. At a proxy, its
    /// incoming leg's receiver answers, and the proxy opens its outgoing leg
    /// (its own SYN) at once, so the legs' handshakes run in sequence along
    /// the path; a retransmitted SYN does not open it again.
    fn syn_at_receiver(&mut self, now: Time, c: usize, seg: &DataSeg) {
        let mut acks = std::mem::take(&mut self.ack_out);
        self.conns[c].receiver.on_segment(now, seg, &mut acks);
        self.send_acks(now, c, &mut acks);
        self.ack_out = acks;
        if let Some(pi) = self.conns[c].proxy_out {
            let out = self.flows[self.conns[c].flow].proxies[pi].out_conn;
            let mut outv = std::mem::take(&mut self.data_out);
            self.conns[out].sender.connect(now, &mut outv);
            self.send_data(now, out, &mut outv);
            self.data_out = outv;
            self.after_sender(now, out);
        }
    }

    /// Ack-after-forward: raise receiver `inc`'s ACK cap to what sender `out`
    /// has transmitted and send the deferred ACK it allows.
    fn sync_ack_limit(&mut self, now: Time, inc: usize, out: usize) {
        let mut acks = std::mem::take(&mut self.ack_out);
        let (i, o) = two_mut(&mut self.conns, inc, out);
        ProxyRt::sync_ack_limit(&mut i.receiver, &o.sender, &mut acks);
        self.send_acks(now, inc, &mut acks);
        self.ack_out = acks;
    }

    /// In-order bytes left leg `c`'s receiver: to the application, or into a proxy.
    fn on_delivered(&mut self, now: Time, c: usize, bytes: u64) {
        let fi = self.conns[c].flow;
        match self.conns[c].proxy_out {
            None => {
                let stream = self.conns[c].stream;
                let total = self.conns[c].ledger.delivered();
                let io = &mut self.app_io;
                let fl = &mut self.flows[fi];
                io.streams = fl.streams.len();
                fl.app.on_delivered(now, stream, bytes, total, io);
                if io.sends.is_empty()
                    && io.opens.is_empty()
                    && io.closes.is_empty()
                    && io.error.is_none()
                    && (fl.done_at.is_some() || !fl.app.done())
                    && fl.app.poll_at().is_none()
                {
                    // Nothing asked for (the common case of every delivery).
                    return;
                }
                let io = std::mem::take(&mut self.app_io);
                self.after_app(now, fi, io);
            }
            Some(pi) => {
                let mut io = std::mem::take(&mut self.relay_io);
                let out = self.flows[fi].proxies[pi].out_conn;
                let (i, o) = two_mut(&mut self.conns, c, out);
                self.flows[fi].proxies[pi].on_incoming_delivered(
                    now,
                    bytes,
                    &mut i.receiver,
                    &mut o.sender,
                    &mut io,
                );
                self.after_relay(now, c, out, io);
            }
        }
    }

    /// Put a relay call's output on the wire: the incoming leg's ACKs first,
    /// then the outgoing leg's data.
    fn after_relay(&mut self, now: Time, inc: usize, out: usize, mut io: RelayOut) {
        if !io.acks.is_empty() {
            self.send_acks(now, inc, &mut io.acks);
        }
        if io.out_touched {
            self.send_data(now, out, &mut io.data);
            self.after_sender(now, out);
        }
        io.out_touched = false;
        self.relay_io = io;
    }

    fn ack_at_sender(&mut self, now: Time, c: usize, ack: &AckSeg) {
        let mut out = std::mem::take(&mut self.data_out);
        let acked = self.conns[c].sender.on_ack(now, ack, &mut out);
        self.send_data(now, c, &mut out);
        self.data_out = out;
        self.after_sender(now, c);
        let limits = self.conns[c].limits_acks_of;
        if let Some(inc) = limits {
            // Raise the cap first, so that a window update sent on release
            // carries the new ACK value too (one ACK instead of two).
            let limit = self.conns[c].sender.snd_max();
            self.conns[inc].receiver.set_ack_limit(limit);
        }
        if acked > 0 {
            if let Some(pi) = self.conns[c].proxy_in {
                let fi = self.conns[c].flow;
                let inc = self.flows[fi].proxies[pi].in_conn;
                let mut io = std::mem::take(&mut self.relay_io);
                let (i, o) = two_mut(&mut self.conns, inc, c);
                self.flows[fi].proxies[pi].on_outgoing_acked(
                    now,
                    acked,
                    &mut i.receiver,
                    &mut o.sender,
                    &mut io,
                );
                self.after_relay(now, inc, c, io);
                self.observe_proxy(now, fi, pi);
            }
        }
        if let Some(inc) = limits {
            self.sync_ack_limit(now, inc, c);
        }
    }

    fn observe_proxy(&mut self, now: Time, fi: usize, pi: usize) {
        let p = &self.flows[fi].proxies[pi];
        let occ = p.occupancy(
            &self.conns[p.in_conn].receiver,
            &self.conns[p.out_conn].sender,
        );
        self.flows[fi].proxies[pi].observe(now, occ);
        if let Some(tr) = self.flows[fi].proxy_traces.get_mut(pi) {
            tr.push(now, occ as f64);
        }
    }

    #[inline]
    fn send_data(&mut self, now: Time, c: usize, out: &mut Vec<DataSeg>) {
        let (route, header) = (self.conns[c].fwd_route, self.conns[c].header);
        for seg in out.drain(..) {
            let slot = self.alloc(Packet {
                size_bytes: seg.len + header,
                conn: c as u32,
                route,
                hop: 0,
                payload: Payload::Data(seg),
            });
            self.transmit(now, slot);
        }
    }

    #[inline]
    fn send_acks(&mut self, now: Time, c: usize, acks: &mut Vec<AckSeg>) {
        let (route, header) = (self.conns[c].rev_route, self.conns[c].header);
        if let Some(pi) = self.conns[c].proxy_out {
            // The proxy's integrity statistics: does an ACK leaving it cover
            // bytes its outgoing leg has not transmitted yet?
            let p = &mut self.flows[self.conns[c].flow].proxies[pi];
            let sent = self.conns[p.out_conn].sender.snd_max();
            for ack in acks.iter() {
                p.note_ack(ack.ack, sent);
            }
        }
        for ack in acks.drain(..) {
            // An ACK is the header; with SACK, 2 bytes + 8 per block (RFC 2018).
            let sack = if ack.sack.is_empty() {
                0
            } else {
                2 + 8 * ack.sack.len() as u32
            };
            let slot = self.alloc(Packet {
                size_bytes: header + sack,
                conn: c as u32,
                route,
                hop: 0,
                payload: Payload::Ack(ack),
            });
            self.transmit(now, slot);
        }
    }

    /// After any sender input: re-arm its timer, record its trace.
    #[inline]
    fn after_sender(&mut self, now: Time, c: usize) {
        let conn = &mut self.conns[c];
        if let Some(gen) = conn.s_timer.arm(conn.sender.poll_at()) {
            let ev = Ev::SenderTimer {
                conn: c as u32,
                gen,
            };
            self.q.push(conn.s_timer.at.max(now), ev);
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

    fn sync_receiver_timer(&mut self, c: usize) {
        let conn = &mut self.conns[c];
        if let Some(gen) = conn.r_timer.arm(conn.receiver.poll_at()) {
            let ev = Ev::ReceiverTimer {
                conn: c as u32,
                gen,
            };
            self.q.push(conn.r_timer.at, ev);
        }
    }

    fn finish(self, plan: &Plan, seed: u64, stop: Time, events: u64) -> RunResult {
        let mut res = RunResult {
            seed,
            warnings: plan.warnings.clone(),
            ..Default::default()
        };
        let mut conns: Vec<Option<Conn>> = self.conns.into_iter().map(Some).collect();
        // Datagrams still on their way when the run stops (neither received nor lost).
        let mut in_flight = vec![0u64; self.flows.len()];
        if self.flows.iter().any(|f| f.dgram.is_some()) {
            let mut free = vec![false; self.packets.len()];
            for &i in &self.free {
                free[i as usize] = true;
            }
            for (i, p) in self.packets.iter().enumerate() {
                if !free[i] && matches!(p.payload, Payload::Datagram { .. }) {
                    in_flight[p.conn as usize] += 1;
                }
            }
        }
        for (fi, f) in self.flows.into_iter().enumerate() {
            if let Some(d) = &f.dgram {
                let end = f.done_at.unwrap_or(stop);
                let active = end.since(f.start).as_secs_f64();
                let lost = d.sent - d.received - in_flight[fi];
                let judged = d.received + lost;
                let mut fr = FlowResult {
                    bytes_delivered: d.bytes_received,
                    bytes_sent: d.bytes_sent,
                    active_time_s: active,
                    packets_sent: Some(d.sent),
                    packets_received: Some(d.received),
                    packets_lost: Some(lost),
                    loss_rate: Some(if judged > 0 {
                        lost as f64 / judged as f64
                    } else {
                        0.0
                    }),
                    delay_mean_s: (d.received > 0).then(|| d.delay_sum_s / d.received as f64),
                    delay_max_s: (d.received > 0).then_some(d.delay_max_s),
                    ..Default::default()
                };
                if active > 0.0 {
                    fr.goodput_bps = d.bytes_received as f64 * 8.0 / active;
                    fr.throughput_bps = d.bytes_sent as f64 * 8.0 / active;
                }
                res.flows.insert(f.name.clone(), fr);
                continue;
            }
            // Delivered: in order at the far end of every forward stream.
            let mut delivered = 0;
            let mut bytes_sent = 0;
            for (s, st) in f.streams.iter().enumerate() {
                if f.stream_dirs[s] == StreamDir::Forward {
                    delivered += conns[*st.last().unwrap()]
                        .as_ref()
                        .unwrap()
                        .ledger
                        .delivered();
                    bytes_sent += conns[st[0]].as_ref().unwrap().sender.stats.bytes_sent;
                }
            }
            let end = f.done_at.unwrap_or(stop);
            let active = end.since(f.start).as_secs_f64();
            let mut fr = FlowResult {
                completion_time_s: f.done_at.map(|t| t.since(f.start).as_secs_f64()),
                bytes_delivered: delivered,
                bytes_sent,
                active_time_s: active,
                ..Default::default()
            };
            fr.app = f.app.report(end);
            // Legs and proxies: one entry per position along the path and
            // direction, summed over the flow's streams (a file transfer
            // has one stream, so one entry per leg).
            let n = f.proto.legs.len();
            let mut has_reverse = false;
            let mut legs: Vec<Option<LegResult>> = vec![None; 2 * n];
            let mut deferred = vec![0u64; 2 * n];
            let mut proxies: Vec<Option<(ProxyResult, f64)>> = vec![None; 2 * n];
            let mut pk = 0;
            for (s, st) in f.streams.iter().enumerate() {
                let rev = f.stream_dirs[s] == StreamDir::Reverse;
                has_reverse |= rev;
                for (pos, &ci) in st.iter().enumerate() {
                    let c = conns[ci].take().unwrap();
                    let g = if rev { n + pos } else { pos };
                    let stats = &c.sender.stats;
                    fr.retransmissions += stats.retransmissions;
                    fr.timeouts += stats.timeouts;
                    fr.fast_recoveries += stats.fast_recoveries;
                    deferred[g] += c.receiver.stats.deferred_acks;
                    let lp = &f.proto.legs[c.leg];
                    let ends = if rev {
                        (lp.ends.1.clone(), lp.ends.0.clone())
                    } else {
                        lp.ends.clone()
                    };
                    let lr = leg_result(ends, &lp.variant, &c);
                    match &mut legs[g] {
                        Some(sum) => sum.add(&lr),
                        slot => *slot = Some(lr),
                    }
                    if let Some(tr) = c.trace {
                        for (k, s) in tr.into_series(&format!("{}.{}", f.name, pos)) {
                            res.traces.insert(k, s);
                        }
                    }
                }
                for pos in 0..n.saturating_sub(1) {
                    let p = &f.proxies[pk];
                    pk += 1;
                    let g = if rev { n + pos } else { pos };
                    let area = p.occupancy_area(end);
                    let pr = ProxyResult {
                        flow: f.name.clone(),
                        node: plan.nodes[p.node as usize].clone(),
                        cache_bytes: p.cache_bytes,
                        max_occupancy_bytes: p.max_occupancy,
                        mean_occupancy_bytes: 0.0,
                        window_updates: 0,
                        drops: 0,
                        ack_after_forward: p.ack_after_forward,
                        acks_ahead_of_forwarding: p.acks_ahead,
                        max_acked_unforwarded_bytes: p.max_acked_unforwarded,
                        deferred_acks: 0,
                    };
                    match &mut proxies[g] {
                        Some((sum, a)) => {
                            sum.max_occupancy_bytes =
                                sum.max_occupancy_bytes.max(pr.max_occupancy_bytes);
                            sum.acks_ahead_of_forwarding += pr.acks_ahead_of_forwarding;
                            sum.max_acked_unforwarded_bytes = sum
                                .max_acked_unforwarded_bytes
                                .max(pr.max_acked_unforwarded_bytes);
                            *a += area;
                        }
                        slot => *slot = Some((pr, area)),
                    }
                }
            }
            let span = end.since(f.start).as_secs_f64();
            for g in 0..2 * n {
                if g >= n && !has_reverse {
                    break;
                }
                let Some(lr) = legs[g].take() else { continue };
                fr.legs.push(lr);
                if let Some((mut pr, area)) = proxies[g].take() {
                    // Mean over the flow's active time of the occupancy
                    // summed over its connections (all on the same node).
                    pr.mean_occupancy_bytes = if span > 0.0 { area / span } else { 0.0 };
                    pr.window_updates = fr.legs.last().unwrap().window_updates_sent;
                    pr.deferred_acks = deferred[g];
                    res.proxies.push(pr);
                }
            }
            if active > 0.0 {
                fr.goodput_bps = delivered as f64 * 8.0 / active;
                fr.throughput_bps = fr.bytes_sent as f64 * 8.0 / active;
            }
            for (pi, tr) in f.proxy_traces.into_iter().enumerate() {
                let node = &plan.nodes[f.proxies[pi].node as usize];
                res.traces.insert(
                    format!("{}.proxy.{}.occupancy", f.name, node),
                    tr.into_series(),
                );
            }
            res.flows.insert(f.name.clone(), fr);
        }
        let dir_stats = || {
            self.layers
                .iter()
                .flat_map(|l| [l.stats(Dir::Forward), l.stats(Dir::Reverse)])
        };
        res.engine = EngineStats {
            events,
            packet_hops: self.packet_hops,
            sim_time_s: stop.as_secs_f64(),
            queue_drops: dir_stats().map(|s| s.queue_drops).sum(),
            channel_drops: dir_stats().map(|s| s.channel_drops).sum(),
        };
        // Per link direction: counters, utilisation and queue occupancy up to `stop`.
        let mut layers = self.layers;
        for (k, layer) in layers.iter_mut().enumerate() {
            for dir in [Dir::Forward, Dir::Reverse] {
                let pd = &plan.links[2 * k + dir.index()];
                let st = layer.stats_at(dir, stop);
                let dir_name = if dir == Dir::Forward {
                    "forward"
                } else {
                    "reverse"
                };
                res.links.push(LinkResult {
                    link: plan.layers[k].name.clone(),
                    dir: dir_name.to_string(),
                    from: plan.nodes[pd.from as usize].clone(),
                    to: plan.nodes[pd.to as usize].clone(),
                    rate_bps: pd.rate_bps,
                    packets: st.packets,
                    bytes: st.bytes,
                    delivered: st.delivered,
                    utilisation: if stop.0 > 0 {
                        st.busy_ns as f64 / stop.0 as f64
                    } else {
                        0.0
                    },
                    queue_drops: st.queue_drops,
                    channel_drops: st.channel_drops,
                    link_drops: st.link_drops,
                    mean_queue_packets: st.mean_queue(stop.0),
                    max_queue_packets: st.max_occupancy,
                });
                if let Some(tr) = layer.queue_trace(dir, stop) {
                    let (t_s, value) = tr
                        .into_iter()
                        .map(|(t, n)| (t.as_secs_f64(), n as f64))
                        .unzip();
                    res.traces.insert(
                        format!("link.{}.{dir_name}.queue", plan.layers[k].name),
                        Series { t_s, value },
                    );
                }
            }
        }
        res.packet_log = self.log.map(|b| *b);
        let goodputs: Vec<f64> = res.flows.values().map(|f| f.goodput_bps).collect();
        res.jain_fairness = crate::result::jain_index(&goodputs);
        res
    }
}

/// Two distinct elements of a slice, mutably.
#[inline]
fn two_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "two_mut needs two different indices");
    if a < b {
        let (lo, hi) = v.split_at_mut(b);
        (&mut lo[a], &mut hi[0])
    } else {
        let (lo, hi) = v.split_at_mut(a);
        (&mut hi[0], &mut lo[b])
    }
}

/// A connection's leg entry in the results.
fn leg_result(ends: (String, String), variant: &str, c: &Conn) -> LegResult {
    let st = &c.sender.stats;
    LegResult {
        from: ends.0,
        to: ends.1,
        tcp: variant.to_string(),
        bytes_sent: st.bytes_sent,
        bytes_acked: c.sender.snd_una(),
        retransmissions: st.retransmissions,
        timeouts: st.timeouts,
        fast_recoveries: st.fast_recoveries,
        segments_sent: st.segments_sent,
        acks_received: st.acks_received,
        window_probes: st.window_probes,
        window_updates_sent: c.receiver.stats.window_updates,
    }
}
