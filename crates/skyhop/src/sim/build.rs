//! Building a world from a plan, and opening a flow's streams: one TCP
//! connection per leg and one relay per proxy, the same for a file
//! transfer's stream 0 at the start and for the streams an application
//! opens at run time.

use super::external::External;
use super::mobile::attach_motion;
use super::network::Mobile;
use super::options::RunOptions;
use super::state::{
    AeroGroups, Conn, Ev, FlowRt, LegProto, QuicRt, RunNames, StreamProto, TimerSlot,
};
use super::world::World;
use crate::app::{App, AppIo, ByteLedger, StreamDir};
use crate::channel::{Channel, ChannelCtx};
use crate::engine::{EventQueue, Time};
use crate::error::{ScenarioError, SimError};
use crate::net::datagram::DatagramPath;
use crate::net::mobile::MotionPlan;
use crate::net::moving::Visibility;
use crate::net::{AnyLinkLayer, LinkBuild};
use crate::observe::{ConnLabel, PacketLog, SenderTrace, ValueTrace};
use crate::pep::{ProxyRt, RelayOut};
use crate::scenario::Plan;
use crate::tcp;

impl World {
    /// The world of `plan` for the run with `seed`: link layers with their
    /// channel stacks, flows with their applications, and the connections
    /// of every stream that exists from the start.
    pub fn build(plan: &Plan, seed: u64, opts: &RunOptions) -> World {
        World::build_with(plan, plan.motion.as_ref(), seed, opts)
    }

    /// The world of `plan` with the motion of its nodes (`None`: a static
    /// world, routes computed by the plan). A moving world forwards
    /// packets by destination from routes it recomputes (`mobile.rs`).
    pub fn build_with(
        plan: &Plan,
        motion: Option<&MotionPlan>,
        seed: u64,
        opts: &RunOptions,
    ) -> World {
        // A constellation with a random start: this run's orbits.
        let shifted = motion.and_then(|m| m.for_run(seed));
        let motion = shifted.as_ref().or(motion);
        let link_motion = |k: usize| motion.and_then(|m| m.links.get(k).copied().flatten());
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
                            let mut ch = Channel::build(spec, &ctx);
                            if let (Some(m), Some(_)) = (motion, link_motion(k)) {
                                let (a, b) = (plan.links[2 * k].from, plan.links[2 * k].to);
                                if m.positions.moves(a) || m.positions.moves(b) {
                                    ch.follow(super::mobile::look_fn(&m.positions, a, b));
                                }
                            }
                            ch
                        })
                        .collect::<Vec<_>>()
                });
                AnyLinkLayer::build(
                    &super::mobile::run_layer_spec(&layer.spec, motion),
                    LinkBuild {
                        name: &layer.name,
                        seed,
                        dirs,
                        channels,
                    },
                )
            })
            .collect();
        let media = super::state::Media::build(plan, seed, &mut layers);
        let traced = |q: &str| opts.trace && opts.trace_options.wants(q);
        if traced("queue") {
            for l in layers.iter_mut() {
                l.trace_queues();
            }
        }
        let mut mobile = motion.map(|m| {
            for (k, layer) in layers.iter_mut().enumerate() {
                if let Some(lm) = link_motion(k) {
                    let ends = (plan.links[2 * k].from, plan.links[2 * k].to);
                    if lm.moving_delay || lm.visibility != Visibility::Always {
                        attach_motion(layer, &m.positions, ends, lm.visibility, m);
                    }
                }
            }
            Box::new(Mobile::new(plan, m, traced("delay")))
        });
        let mut routes = Vec::new();
        let mut flows = Vec::new();
        let mut q = EventQueue::new();
        let mut aero = AeroGroups::default();
        for (fi, f) in plan.flows.iter().enumerate() {
            let dgram = (f.app.datagrams() && f.quic.is_none()).then(|| {
                if let Some(m) = mobile.as_deref_mut() {
                    let p = &f.legs[0].path;
                    let route = m.route(p[0], *p.last().unwrap());
                    return Box::new(DatagramPath::new(route).traced(opts.trace));
                }
                routes.push(f.legs[0].fwd.clone());
                Box::new(DatagramPath::new((routes.len() - 1) as u32).traced(opts.trace))
            });
            // A QUIC flow: one connection end to end (split-TCP proxies
            // pass it through), or one per stretch between QUIC-terminating
            // proxies.
            let quic = f.quic.as_ref().map(|_| {
                let route = |first: usize, last: usize| {
                    let (a, b) = (f.legs[first].path[0], *f.legs[last].path.last().unwrap());
                    match mobile.as_deref_mut() {
                        Some(m) => [m.route(a, b), m.route(b, a)],
                        None => {
                            let legs = &f.legs[first..=last];
                            routes.push(legs.iter().flat_map(|l| l.fwd.clone()).collect());
                            routes.push(legs.iter().rev().flat_map(|l| l.rev.clone()).collect());
                            [routes.len() as u32 - 2, routes.len() as u32 - 1]
                        }
                    }
                };
                Box::new(QuicRt::build(f, fi, seed, route))
            });
            let tcp_legs = if dgram.is_some() || quic.is_some() {
                &f.legs[..0]
            } else {
                &f.legs[..]
            };
            let mut legs = Vec::with_capacity(tcp_legs.len());
            let mut aero_groups = Vec::new();
            for leg in tcp_legs {
                let (fwd_route, rev_route) = match mobile.as_deref_mut() {
                    Some(m) => {
                        let (a, b) = (leg.path[0], *leg.path.last().unwrap());
                        (m.route(a, b), m.route(b, a))
                    }
                    None => {
                        routes.push(leg.fwd.clone());
                        routes.push(leg.rev.clone());
                        (routes.len() as u32 - 2, routes.len() as u32 - 1)
                    }
                };
                // One group per satellite leg (its route) and run.
                let aero_group = leg
                    .cfg
                    .aero
                    .adaptive
                    .is_some()
                    .then(|| aero.group_of(&leg.fwd));
                aero_groups.extend(aero_group);
                legs.push(LegProto {
                    cfg: leg.cfg.clone(),
                    make_sender: leg.make_sender.clone(),
                    fwd_route,
                    rev_route,
                    ends: (
                        plan.nodes[*leg.path.first().unwrap() as usize].clone(),
                        plan.nodes[*leg.path.last().unwrap() as usize].clone(),
                    ),
                    variant: leg.variant_name.clone(),
                    aero_group,
                });
            }
            q.push(Time(f.start.0), Ev::Start(fi as u32));
            // A QUIC flow's terminating proxies: occupancy traces, as a split proxy's.
            let relays = quic.as_ref().map_or(0, |q| q.relays.len());
            let proxy_traces = (0..if opts.trace { relays } else { 0 })
                .map(|_| ValueTrace::default())
                .collect();
            flows.push(FlowRt {
                name: f.name.clone(),
                start: Time(f.start.0),
                app: App::build(&f.app, seed, &f.name),
                app_timer: TimerSlot::default(),
                proxy_traces,
                proxies: Vec::new(),
                streams: Vec::new(),
                stream_dirs: Vec::new(),
                dgram,
                quic,
                conns: Vec::new(),
                aero_groups,
                aero_streams: Vec::new(),
                opens_own: !f.app.opens_stream_at_start() && !f.app.datagrams(),
                done_at: None,
                proto: StreamProto {
                    legs,
                    proxies: f.proxies.clone(),
                },
            });
        }
        if let Some(m) = mobile.as_deref_mut() {
            // The routes at t = 0, then on the policy's schedule.
            m.update(Time::ZERO);
            let next = m
                .net
                .plan
                .routing
                .next_after(crate::engine::time::Dur::ZERO);
            q.push(Time(next.0), Ev::Reroute);
        }
        let mut w = World {
            q,
            layers,
            media,
            routes,
            packets: crate::net::PacketStore::with_capacity(4096),
            apps_pending: flows.len(),
            conns: Vec::new(),
            flows,
            data_out: Vec::with_capacity(64),
            ack_out: Vec::with_capacity(64),
            link_io: Default::default(),
            relay_io: RelayOut::default(),
            app_io: AppIo::default(),
            packet_hops: 0,
            events: 0,
            event_budget: plan.event_budget,
            trace: opts.trace.then(|| Box::new(opts.trace_options.clone())),
            log: opts
                .packet_log
                .as_ref()
                .map(|o| Box::new(PacketLog::new(plan.links.len(), o))),
            error: None,
            ext: External::new(plan.topology.clone()),
            aero,
            mobile,
            names: Box::new(RunNames::of(plan, seed)),
        };
        w.start_media();
        // The ack-after-forward rule holds a split-TCP proxy's ACKs back;
        // a QUIC stack acknowledges packets, not stream bytes, at once.
        let bad = plan.flows.iter().find_map(|f| {
            let p = f
                .proxies
                .iter()
                .find(|p| p.quic.is_some() && p.ack_after_forward)?;
            Some(format!(
                "nodes.{}.proxy.ack_after_forward",
                plan.nodes[p.node as usize]
            ))
        });
        if let Some(key) = bad {
            w.error = Some(SimError::Scenario(ScenarioError::new(
                "<plan>",
                key,
                "a QUIC-terminating proxy cannot hold its acknowledgements back",
            )));
        }
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
    pub(super) fn open_stream(
        &mut self,
        f: usize,
        dir: StreamDir,
        handshake: Option<bool>,
        now: Time,
    ) -> usize {
        if self.flows[f].quic.is_some() {
            return self.quic_stream(f, dir);
        }
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
            let mut sender = sender;
            if let Some(g) = lp.aero_group {
                self.aero.join(g, self.conns.len());
                sender.set_connections_open(self.aero.open(g));
            }
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
                trace: self
                    .trace
                    .as_ref()
                    .filter(|t| stream == 0 && t.wants_sender())
                    .map(|t| SenderTrace::new(t.every)),
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
            if let Some(t) = self
                .trace
                .as_ref()
                .filter(|t| stream == 0 && t.wants("occupancy"))
            {
                fl.proxy_traces.push(ValueTrace::new(t.every));
            }
        }
        fl.conns.extend_from_slice(&conn_ids);
        fl.streams.push(conn_ids);
        fl.stream_dirs.push(dir);
        if self.flows[f].opens_own && forward {
            self.flows[f].aero_streams.push(stream);
            self.aero_count(f, 1);
        }
        stream
    }
}
