//! The access link between a terminal's host and its dish
//! (`links.<id>.link_layer = { model = "starlink-access", ... }`): the
//! frames, grants, beam shares, queues and reconfiguration pauses of the
//! terminal's radio link, whose propagation the dish's links to the
//! satellites carry. The forward direction (host → dish) is the uplink, the
//! reverse (dish → host) the downlink; the downlink's queue stands for the
//! one at the gateway and satellite that feeds the terminal's beam.
//!
//! Per direction, time is cut into frames of 1/`frame_rate` s from t = 0
//! (frame k starts at ⌊k·10⁹/frame_rate⌋ ns). Frame k carries at most
//! ⌊r·(k+1)/frame_rate⌋ − ⌊r·k/frame_rate⌋ bits, r being the direction's
//! rate divided among the run's terminals on the same satellite in that
//! epoch (`BeamShare`). A packet waits in a FIFO queue; a frame takes the
//! waiting packets that arrived by its start, in order, a packet spilling
//! over into later frames when it does not fit, and every packet whose last
//! bit it carries is delivered at the frame's end. So a packet arriving at
//! an idle direction is delivered at the end of the first frame starting
//! at or after its arrival (plus the frames its size takes).
//!
//! - **Grant** (uplink only): a packet reaching the dish goes in a frame
//!   starting at least `grant` after its arrival, busy or idle: the dish
//!   reports what it holds to the satellite's scheduler and is granted
//!   frames for it that much later (a pipeline, as an LTE uplink's buffer
//!   status report and grant), so a stream of packets is delayed, not
//!   slowed.
//! - **Queues**: at most `queue` packets wait per direction (the one whose
//!   bits a frame already started to carry not counted); a packet arriving
//!   at a full queue drops the oldest waiting one ("front", as Garcia et al.
//!   found Starlink's queues to behave, arXiv 2605.27717) or itself ("tail").
//! - **Reconfiguration**: frames starting within `pause_before` before an
//!   epoch boundary or `pause` after it carry nothing; with `flush`, the
//!   packets still waiting from before a boundary are dropped at the first
//!   frame after it (counted as link drops).
//!
//! Each direction asks for one wake-up at a time, at the start of the next
//! frame it has something to deliver or to send in.

use super::{AccessNet, EpochClock};
use crate::engine::time::{Dur, Time};
use crate::net::dvbs::spec::Checked;
use crate::net::layer::{Dir, LinkBuild, LinkIo, LinkLayer, LinkPacket, LinkStats, LossReason};
use crate::units::Duration;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

/// Which packet a full queue drops.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DropPolicy {
    /// The oldest packet waiting (default).
    #[default]
    Front,
    /// The arriving packet.
    Tail,
}

/// A terminal's share of its satellite's beam: the access network whose
/// epoch plans say how many of the run's terminals the satellite serves.
#[derive(Clone)]
pub struct BeamShare {
    pub net: Arc<AccessNet>,
    pub terminal: usize,
}

impl std::fmt::Debug for BeamShare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BeamShare(terminal {})", self.terminal)
    }
}

impl PartialEq for BeamShare {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.net, &o.net) && self.terminal == o.terminal
    }
}

/// `links.<id>.link_layer = { model = "starlink-access", ... }`. Every
/// field has a default (docs/leo.md gives their sources).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessLinkSpec {
    /// Frames per second (default 750: frames of 1/750 s, Humphreys et al.).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_rate: Option<u32>,
    /// Uplink: from a packet's arrival at the dish to the first frame it
    /// may go in (default 17 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<Checked<Duration>>,
    /// Reconfiguration epochs' length (default 15 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<Checked<Duration>>,
    /// The first boundary (default 12 s: boundaries at seconds 12, 27, 42, 57).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch_offset: Option<Checked<Duration>>,
    /// Frames carry nothing for this long from each boundary (default 140 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<Checked<Duration>>,
    /// ... and for this long before it (default 0 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_before: Option<Checked<Duration>>,
    /// "front" (default) or "tail".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<DropPolicy>,
    /// Drop the packets waiting from before a boundary (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush: Option<bool>,
    /// Set by the `starlink` access preset: the beam this terminal shares.
    #[serde(skip)]
    #[schemars(skip)]
    pub beam: Option<BeamShare>,
}

/// The resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessParams {
    pub frame_rate: u32,
    pub grant: Dur,
    pub clock: EpochClock,
    pub pause: Dur,
    pub pause_before: Dur,
    pub drop: DropPolicy,
    pub flush: bool,
}

/// Defaults (docs/leo.md, "Starlink as deployed", for their sources).
pub const FRAME_RATE: u32 = 750;
pub const GRANT: Dur = Dur::from_millis(17);
pub const PAUSE: Dur = Dur::from_millis(140);

impl AccessLinkSpec {
    /// The parameters, or (key, message).
    pub fn params(&self) -> Result<AccessParams, (String, String)> {
        let dur = |v: &Option<Checked<Duration>>, k: &str, d: Dur| match v {
            None => Ok(d),
            Some(Checked::Ok(x)) => Ok(x.0),
            Some(Checked::Bad(m)) => Err((k.to_string(), m.clone())),
        };
        let frame_rate = self.frame_rate.unwrap_or(FRAME_RATE);
        if !(1..=100_000).contains(&frame_rate) {
            return Err((
                "frame_rate".into(),
                format!("{frame_rate} frames per second is outside 1-100000"),
            ));
        }
        let clock = EpochClock {
            period: dur(&self.epoch, "epoch", EpochClock::STARLINK.period)?,
            offset: dur(
                &self.epoch_offset,
                "epoch_offset",
                EpochClock::STARLINK.offset,
            )?,
        };
        if clock.period.0 == 0 {
            return Err(("epoch".into(), "must be positive".into()));
        }
        let pause = dur(&self.pause, "pause", PAUSE)?;
        let pause_before = dur(&self.pause_before, "pause_before", Dur::ZERO)?;
        if pause.0 + pause_before.0 >= clock.period.0 {
            return Err((
                "pause".into(),
                "pause + pause_before must be shorter than an epoch".into(),
            ));
        }
        Ok(AccessParams {
            frame_rate,
            grant: dur(&self.grant, "grant", GRANT)?,
            clock,
            pause,
            pause_before,
            drop: self.drop.unwrap_or_default(),
            flush: self.flush.unwrap_or(false),
        })
    }
}

/// A packet waiting in a direction.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    slot: u32,
    bits: u64,
    arrived: Time,
    /// The first frame start it may go in (its arrival, or the grant).
    ready: Time,
}

/// One direction.
struct AccessDir {
    rate_bps: u64,
    queue_limit: u32,
    uplink: bool,
    queue: VecDeque<Waiting>,
    /// Bits of the head packet carried by earlier frames.
    head_sent: u64,
    /// Packets whose last bit the current frame carries (delivered at its end).
    in_frame: Vec<(u32, Time)>,
    /// The frame a wake-up is pending for.
    wake: Option<u64>,
    /// The lowest frame not yet processed.
    next_frame: u64,
    /// The last frame that carried bits.
    last_carried: Option<u64>,
    /// The epoch of the last frame processed, and this terminal's rate in it.
    epoch: Option<(u64, u64)>,
    stats: LinkStats,
    trace: Option<Vec<(Time, u32)>>,
}

impl crate::net::layer::LinkLayerSpecOps for AccessLinkSpec {
    type Built = AccessLink;
    fn build(&self, b: LinkBuild) -> AccessLink {
        AccessLink::build(self, b)
    }
    fn resolve(
        &self,
        _fwd: &mut crate::net::LinkDirSpec,
        _rev: &mut crate::net::LinkDirSpec,
    ) -> Result<Vec<String>, (String, String)> {
        self.params().map(|_| Vec::new())
    }
}

/// Both directions of a terminal's access link.
pub struct AccessLink {
    p: AccessParams,
    beam: Option<BeamShare>,
    dirs: [AccessDir; 2],
}

impl AccessLink {
    pub fn build(spec: &AccessLinkSpec, b: LinkBuild) -> AccessLink {
        let p = spec
            .params()
            .expect("the plan checked the access link's parameters");
        let dir = |d: &crate::net::LinkDirSpec, uplink: bool| AccessDir {
            rate_bps: d.rate_bps,
            queue_limit: d.queue,
            uplink,
            queue: VecDeque::new(),
            head_sent: 0,
            in_frame: Vec::new(),
            wake: None,
            next_frame: 0,
            last_carried: None,
            epoch: None,
            stats: LinkStats::default(),
            trace: None,
        };
        AccessLink {
            p,
            beam: spec.beam.clone(),
            dirs: [dir(b.dirs[0], true), dir(b.dirs[1], false)],
        }
    }

    /// When frame `k` starts.
    pub fn frame_start(&self, k: u64) -> Time {
        Time((k as u128 * 1_000_000_000 / self.p.frame_rate as u128) as u64)
    }

    /// The first frame starting at or after `t`.
    pub fn frame_at_or_after(&self, t: Time) -> u64 {
        (t.0 as u128 * self.p.frame_rate as u128).div_ceil(1_000_000_000) as u64
    }

    /// Whether frame `k` falls in a reconfiguration pause.
    fn paused(&self, k: u64) -> bool {
        let t = Dur(self.frame_start(k).0);
        let c = self.p.clock;
        let n = c.index_at(t);
        (n > 0 && t.0 < c.start(n).0 + self.p.pause.0) || t.0 + self.p.pause_before.0 >= c.end(n).0
    }

    /// The rate of direction `d` in epoch `n` (0: no service).
    fn rate_in(&self, d: usize, n: u64) -> u64 {
        let r = self.dirs[d].rate_bps;
        match &self.beam {
            None => r,
            Some(b) => match &b.net.plan(n).terminals[b.terminal] {
                Some(a) => r / a.sharers.max(1) as u64,
                None => 0,
            },
        }
    }

    /// Bits frame `k` carries in direction `d`.
    fn capacity(&mut self, d: usize, k: u64) -> u64 {
        if self.paused(k) {
            return 0;
        }
        let n = self.p.clock.index_at(Dur(self.frame_start(k).0));
        let r = match self.dirs[d].epoch {
            Some((e, r)) if e == n => r,
            _ => {
                let r = self.rate_in(d, n);
                self.dirs[d].epoch = Some((n, r));
                r
            }
        };
        let f = self.p.frame_rate as u128;
        let r = r as u128;
        ((r * (k as u128 + 1)) / f - (r * k as u128) / f) as u64
    }

    /// The first frame from `k` on that can carry anything in direction `d`,
    /// or, when the terminal has no satellite in `k`'s epoch, the next
    /// epoch's first frame.
    fn usable_from(&mut self, d: usize, mut k: u64) -> u64 {
        let c = self.p.clock;
        loop {
            let t = Dur(self.frame_start(k).0);
            let n = c.index_at(t);
            if self.paused(k) {
                let end = if n > 0 && t.0 < c.start(n).0 + self.p.pause.0 {
                    c.start(n).0 + self.p.pause.0
                } else {
                    c.end(n).0 + self.p.pause.0
                };
                k = self.frame_at_or_after(Time(end));
            } else if self.capacity(d, k) == 0 && self.rate_in(d, n) == 0 {
                // No service this epoch: look again at the next one's
                // first frame (a wake-up per epoch, never a search ahead
                // that a terminal no satellite ever serves would not end).
                return self.frame_at_or_after(Time(c.end(n).0));
            } else {
                return k;
            }
        }
    }

    /// Ask for a wake-up of direction `d` if it has something to do and none is pending.
    fn schedule(&mut self, d: usize, io: &mut LinkIo) {
        let dir = &self.dirs[d];
        if dir.wake.is_some() {
            return;
        }
        let k = if !dir.in_frame.is_empty() {
            Some(dir.next_frame)
        } else {
            dir.queue
                .front()
                .map(|h| self.frame_at_or_after(h.ready).max(dir.next_frame))
        };
        let Some(k) = k else { return };
        let k = if self.dirs[d].in_frame.is_empty() {
            self.usable_from(d, k)
        } else {
            k
        };
        self.dirs[d].wake = Some(k);
        let seq = io.next_seq();
        io.wake(self.frame_start(k), seq, d as u32);
    }

    fn trace_point(&mut self, d: usize, t: Time) {
        let dir = &mut self.dirs[d];
        let n = dir.queue.len() as u32;
        if let Some(tr) = dir.trace.as_mut() {
            tr.push((t, n));
        }
    }

    /// Frame `k` of direction `d` starts: fill it from the queue.
    fn fill(&mut self, d: usize, k: u64, io: &mut LinkIo) {
        let start = self.frame_start(k);
        if self.p.flush {
            let c = self.p.clock;
            let b = c.start(c.index_at(Dur(start.0)));
            let boundary = Time(b.0);
            if b.0 > 0
                && self.dirs[d]
                    .last_carried
                    .is_none_or(|l| self.frame_start(l) < boundary)
            {
                let dir = &mut self.dirs[d];
                let skip = usize::from(dir.head_sent > 0);
                while dir.queue.len() > skip && dir.queue[skip].arrived < boundary {
                    let w = dir.queue.remove(skip).unwrap();
                    dir.stats.link_drops += 1;
                    io.lose(Dir::from_index(d), w.slot, LossReason::LinkDown);
                }
            }
        }
        let mut cap = self.capacity(d, k);
        let dir = &mut self.dirs[d];
        let mut carried = false;
        while cap > 0 {
            let Some(h) = dir.queue.front().copied() else {
                break;
            };
            if h.ready > start {
                break;
            }
            carried = true;
            let need = h.bits - dir.head_sent;
            if need <= cap {
                cap -= need;
                dir.head_sent = 0;
                dir.queue.pop_front();
                dir.in_frame.push((h.slot, h.arrived));
                dir.stats.busy_ns += Dur::transmission(h.bits / 8, dir.rate_bps).0;
            } else {
                dir.head_sent += cap;
                cap = 0;
            }
        }
        if carried {
            dir.last_carried = Some(k);
            if dir.trace.is_some() {
                self.trace_point(d, start);
            }
        }
    }
}

impl LinkLayer for AccessLink {
    fn send(&mut self, now: Time, d: Dir, pkt: LinkPacket, io: &mut LinkIo) {
        let i = d.index();
        let grant = self.p.grant;
        let dir = &mut self.dirs[i];
        let waiting = dir.queue.len() - usize::from(dir.head_sent > 0);
        if waiting >= dir.queue_limit as usize {
            dir.stats.queue_drops += 1;
            match self.p.drop {
                DropPolicy::Tail => {
                    io.lose(d, pkt.slot, LossReason::Queue);
                    return;
                }
                DropPolicy::Front => {
                    let victim = dir.queue.remove(usize::from(dir.head_sent > 0));
                    if let Some(v) = victim {
                        io.lose(d, v.slot, LossReason::Queue);
                    } else {
                        io.lose(d, pkt.slot, LossReason::Queue);
                        return;
                    }
                }
            }
        }
        let ready = if dir.uplink { now + grant } else { now };
        dir.queue.push_back(Waiting {
            slot: pkt.slot,
            bits: pkt.bytes as u64 * 8,
            arrived: now,
            ready,
        });
        dir.stats.packets += 1;
        dir.stats.bytes += pkt.bytes as u64;
        dir.stats.max_occupancy = dir.stats.max_occupancy.max(dir.queue.len() as u32);
        if dir.trace.is_some() {
            self.trace_point(i, now);
        }
        self.schedule(i, io);
    }

    fn wake(&mut self, now: Time, token: u32, io: &mut LinkIo) {
        let d = token as usize;
        let k = self.dirs[d].wake.take().expect("a wake-up was asked for");
        debug_assert_eq!(self.frame_start(k), now);
        // The previous frame's packets arrive at its end.
        let done = std::mem::take(&mut self.dirs[d].in_frame);
        for &(slot, arrived) in &done {
            let st = &mut self.dirs[d].stats;
            st.delivered += 1;
            st.occupancy_ns += now.since(arrived).0 as u128;
            io.deliver(Dir::from_index(d), slot);
        }
        self.dirs[d].in_frame = done;
        self.dirs[d].in_frame.clear();
        self.fill(d, k, io);
        self.dirs[d].next_frame = k + 1;
        self.schedule(d, io);
    }

    fn stats(&self, dir: Dir) -> LinkStats {
        self.dirs[dir.index()].stats.clone()
    }

    fn trace_queues(&mut self) {
        for d in self.dirs.iter_mut() {
            d.trace.get_or_insert_with(|| vec![(Time::ZERO, 0)]);
        }
    }

    fn queue_trace(&mut self, dir: Dir, stop: Time) -> Option<Vec<(Time, u32)>> {
        let mut tr = self.dirs[dir.index()].trace.take()?;
        tr.retain(|&(t, _)| t <= stop);
        Some(tr)
    }
}
