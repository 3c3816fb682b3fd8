//! The world's state types: events, timer slots, connections, flows and
//! what their streams are built from, AeroTCP's open-connection groups,
//! the shared media.
//! Data only; the world's behaviour is in the other files of `sim/`.

use crate::app::{App, ByteLedger, StreamDir};
use crate::engine::Time;
use crate::net::datagram::DatagramPath;
use crate::net::{AnyLinkLayer, AnyMedium, MediumIo, MemberBuild, MemberLink};
use crate::observe::{SenderTrace, ValueTrace};
use crate::pep::{ProxyRt, QuicRelay};
use crate::quic::{Datagram, Delivery, QuicConn};
use crate::scenario::Plan;
use crate::scenario::{PlanProxy, SenderFactory};
use crate::tcp::{self, TcpReceiver, TcpSender};

#[derive(Clone, Copy, Debug)]
pub(super) enum Ev {
    Link {
        link: u32,
        token: u32,
    },
    SenderTimer {
        conn: u32,
        gen: u32,
    },
    ReceiverTimer {
        conn: u32,
        gen: u32,
    },
    AppTimer {
        flow: u32,
        gen: u32,
    },
    Start(u32),
    /// A moving world recomputes its routes.
    Reroute,
    /// A QUIC connection's timer: `slot` is flow << 8 | leg << 1 | end
    /// (`quic.rs`).
    QuicTimer {
        slot: u32,
        gen: u32,
    },
    /// A wake-up a shared medium asked for.
    Medium {
        medium: u32,
        token: u32,
    },
}

#[derive(Clone, Copy, Debug)]
pub(super) struct TimerSlot {
    pub at: Time,
    pub gen: u32,
}

impl TimerSlot {
    /// Arm for `deadline` if it is earlier than the pending event; returns
    /// the new generation to schedule, or `None` when the pending event
    /// already fires in time (it re-arms itself if it fires early).
    #[inline]
    pub(super) fn arm(&mut self, deadline: Option<Time>) -> Option<u32> {
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
pub(super) struct Conn {
    pub flow: usize,
    pub leg: usize,
    pub stream: usize,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub fwd_route: u32,
    pub rev_route: u32,
    pub header: u32,
    pub s_timer: TimerSlot,
    pub r_timer: TimerSlot,
    pub ledger: ByteLedger,
    /// Proxy index (in the flow) feeding this connection's sender, if any.
    pub proxy_in: Option<usize>,
    /// Proxy index this connection's receiver feeds, if any.
    pub proxy_out: Option<usize>,
    /// Ack-after-forward: the connection whose sender's `snd_max` caps this
    /// receiver's ACKs (the proxy's outgoing leg).
    pub ack_limited_by: Option<usize>,
    /// Ack-after-forward: the connection whose receiver this sender's
    /// `snd_max` caps (the proxy's incoming leg).
    pub limits_acks_of: Option<usize>,
    pub trace: Option<SenderTrace>,
}

pub(super) struct FlowRt {
    pub name: String,
    pub start: Time,
    pub app: App,
    pub app_timer: TimerSlot,
    /// Connections of each stream, in the stream's path order.
    pub streams: Vec<Vec<usize>>,
    /// Direction of each stream.
    pub stream_dirs: Vec<StreamDir>,
    /// All connections of the flow (every stream), in leg order.
    pub conns: Vec<usize>,
    pub proxies: Vec<ProxyRt>,
    pub proxy_traces: Vec<ValueTrace>,
    pub done_at: Option<Time>,
    /// What a new stream of this flow is built from.
    pub proto: StreamProto,
    /// A datagram flow's path and counters (`None` for TCP flows).
    pub dgram: Option<Box<DatagramPath>>,
    /// A QUIC flow's connection (`None` for TCP and datagram flows).
    pub quic: Option<Box<QuicRt>>,
    /// AeroTCP adaptive allocation: the groups (satellite legs) this flow's
    /// connections count in. An application that starts with stream 0
    /// counts as one connection from its start until it is done; one that
    /// opens its own streams counts each forward stream from its opening
    /// until it is closed (or the application is done).
    pub aero_groups: Vec<usize>,
    /// Forward streams counted open (for an application opening its own).
    pub aero_streams: Vec<usize>,
    /// Whether the application opens its own streams.
    pub opens_own: bool,
}

/// A QUIC flow: its connections (one, or one per leg between
/// QUIC-terminating proxies) and their place in the world.
pub(super) struct QuicRt {
    pub legs: Vec<QuicLeg>,
    /// Each terminating proxy's relay (between legs `p` and `p + 1`):
    /// forward (towards the flow's `to`) and reverse.
    pub relays: Vec<[QuicRelay; 2]>,
    /// The application sends datagrams (a probe), not streams.
    pub probe: bool,
    /// When quinn closed a connection with an error.
    pub failed_at: Option<Time>,
    /// The application is being handed deliveries (its sends wait for
    /// the settling in progress).
    pub settling: bool,
    pub datagrams: Vec<Datagram>,
    pub deliveries: Vec<Delivery>,
    /// Pieces a relay moves (scratch).
    pub pieces: Vec<bytes::Bytes>,
}

/// One QUIC connection of a flow, between two nodes of its path.
pub(super) struct QuicLeg {
    pub conn: QuicConn,
    pub controller: &'static str,
    /// Nodes of the ends (end 0 towards the flow's `from`, end 1 its `to`).
    pub nodes: [u32; 2],
    /// Routes from each end to the other.
    pub routes: [u32; 2],
    pub timers: [TimerSlot; 2],
}

/// The legs and proxies every stream of a flow is built from.
pub(super) struct StreamProto {
    pub legs: Vec<LegProto>,
    pub proxies: Vec<PlanProxy>,
}

/// One leg of a flow's path, from the flow's `from` side to its `to` side.
pub(super) struct LegProto {
    pub cfg: tcp::TcpConfig,
    pub make_sender: Option<SenderFactory>,
    /// Routes from the leg's `from` end to its `to` end, and back.
    pub fwd_route: u32,
    pub rev_route: u32,
    /// Node names of the leg's ends (`from` side first).
    pub ends: (String, String),
    pub variant: String,
    /// The AeroTCP group the leg's senders count in (adaptive allocation).
    pub aero_group: Option<usize>,
}

/// AeroTCP's adaptive allocation: the connections open on each satellite
/// leg (one group per leg route and run), and the connections whose
/// senders divide that leg's capacity by the count (the world gives each of
/// them the count whenever it changes).
#[derive(Default)]
pub(super) struct AeroGroups {
    routes: Vec<Vec<u32>>,
    open: Vec<u32>,
    members: Vec<Vec<usize>>,
}

impl AeroGroups {
    /// The group of the satellite leg with route `route` (made on first use).
    pub(super) fn group_of(&mut self, route: &[u32]) -> usize {
        if let Some(g) = self.routes.iter().position(|r| r == route) {
            return g;
        }
        self.routes.push(route.to_vec());
        self.open.push(0);
        self.members.push(Vec::new());
        self.routes.len() - 1
    }

    /// Connection `conn` runs on the group's leg.
    pub(super) fn join(&mut self, g: usize, conn: usize) {
        self.members[g].push(conn);
    }

    /// Connections open on the group's leg.
    pub(super) fn open(&self, g: usize) -> u32 {
        self.open[g]
    }

    /// The count changes by `delta`; returns the new count.
    pub(super) fn add(&mut self, g: usize, delta: i64) -> u32 {
        let n = (self.open[g] as i64 + delta).max(0) as u32;
        self.open[g] = n;
        n
    }

    pub(super) fn members(&self, g: usize) -> &[usize] {
        &self.members[g]
    }
}

/// The run's shared media.
#[derive(Default)]
pub(crate) struct Media {
    pub(super) list: Vec<AnyMedium>,
    pub(super) names: Vec<String>,
    /// Per medium, its member links (link indices).
    pub(super) links: Vec<Vec<u32>>,
    /// Per link: (medium, member), for member links only.
    pub(super) member_of: Vec<Option<(u32, u32)>>,
    pub(super) io: MediumIo,
}

impl Media {
    /// The media of `plan` for the run with `seed`. Each member link was
    /// built as a FIFO link with its channel stacks; the medium takes the
    /// stacks and the link becomes a member (`AnyLinkLayer::Member`).
    pub(super) fn build(plan: &Plan, seed: u64, layers: &mut [AnyLinkLayer]) -> Media {
        let mut m = Media {
            member_of: vec![None; layers.len()],
            ..Default::default()
        };
        for (mi, pm) in plan.media.iter().enumerate() {
            let mut members = Vec::with_capacity(pm.links.len());
            for (j, (&k, &from_hub)) in pm.links.iter().zip(&pm.from_hub).enumerate() {
                let k = k as usize;
                let was =
                    std::mem::replace(&mut layers[k], AnyLinkLayer::Member(MemberLink::default()));
                let AnyLinkLayer::Fifo(mut f) = was else {
                    unreachable!("the plan makes a medium's member links FIFO links")
                };
                let channels = [
                    std::mem::take(&mut f.dirs[0].channels),
                    std::mem::take(&mut f.dirs[1].channels),
                ];
                m.member_of[k] = Some((mi as u32, j as u32));
                members.push(MemberBuild {
                    name: &plan.layers[k].name,
                    dirs: [&plan.links[2 * k], &plan.links[2 * k + 1]],
                    channels,
                    from_hub,
                });
            }
            m.list.push(AnyMedium::build(
                &pm.spec,
                crate::net::MediumBuild {
                    name: &pm.name,
                    seed,
                    members,
                },
            ));
            m.names.push(pm.name.clone());
            m.links.push(pm.links.clone());
        }
        m
    }
}

/// What a run's results name, kept from the plan when the world is built
/// (so that finishing a run needs nothing back).
#[derive(Debug)]
pub(super) struct RunNames {
    pub(super) seed: u64,
    pub(super) warnings: Vec<String>,
    pub(super) nodes: Vec<String>,
    /// Per link of the plan: its name and its directions' rates (forward,
    /// reverse: they differ where a `reverse.rate` or a beam sets them).
    pub(super) links: Vec<(String, [u64; 2])>,
    /// Per link direction of the plan: its ends.
    pub(super) dirs: Vec<(u32, u32)>,
}

impl RunNames {
    pub(super) fn of(plan: &crate::scenario::Plan, seed: u64) -> RunNames {
        RunNames {
            seed,
            warnings: plan.warnings.clone(),
            nodes: plan.nodes.clone(),
            links: plan
                .layers
                .iter()
                .enumerate()
                .map(|(k, l)| {
                    let r = |d: usize| plan.links[2 * k + d].rate_bps;
                    (l.name.clone(), [r(0), r(1)])
                })
                .collect(),
            dirs: plan.links.iter().map(|d| (d.from, d.to)).collect(),
        }
    }
}
