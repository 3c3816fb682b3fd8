//! The link-layer seam: one sans-IO object per link, holding both directions
//! (an ARQ link sends feedback the other way).
//!
//! The engine hands it packets (`send`), and wakes it at the instants it asks
//! for (`wake`). Everything it has to say comes back through [`LinkIo`]:
//! packets delivered at the far end of a direction, packets lost (with the
//! reason), and wake-ups wanted. A wake-up carries an insertion sequence
//! number taken from the engine's counter (`LinkIo::next_seq`), so a link
//! layer can place an arrival in the global (time, sequence) order at the
//! moment it accepts a packet: the FIFO link asks for one wake-up per busy
//! direction, at its head packet's arrival, keeping one heap entry per busy
//! direction instead of one per packet in flight. A link layer never reads a
//! clock or touches the event queue; stale wake-ups are its own to ignore
//! (e.g. by a generation number in the token).
//!
//! Register an implementation in `net/registry.rs` (one variant of
//! `LinkLayerSpec` and one line in the `link_layers!` list).

use super::link_dir::LinkDirSpec;
use crate::channel::{Channel, PacketKind};
use crate::engine::time::{Dur, Time};

/// A direction of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Forward = 0,
    Reverse = 1,
}

impl Dir {
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    #[inline]
    pub fn from_index(i: usize) -> Dir {
        if i == 0 {
            Dir::Forward
        } else {
            Dir::Reverse
        }
    }
    #[inline]
    pub fn other(self) -> Dir {
        match self {
            Dir::Forward => Dir::Reverse,
            Dir::Reverse => Dir::Forward,
        }
    }
}

/// What a link layer sees of a packet: its engine slot and its metadata.
#[derive(Clone, Copy, Debug)]
pub struct LinkPacket {
    /// The engine's handle for the packet; handed back on delivery or loss.
    pub slot: u32,
    /// Bytes on the wire (IP packet).
    pub bytes: u32,
    pub kind: PacketKind,
    /// First byte of a data segment (0 otherwise).
    pub seq: u64,
    pub retx: bool,
}

/// Why a packet did not arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossReason {
    /// The drop-tail queue was full.
    Queue,
    /// The channel corrupted it (or the frames that carried it).
    Channel,
    /// The link layer gave up on it (e.g. ARQ persistency exhausted).
    LinkLayer,
    /// Sent while the link was down (its moving ends out of sight), or in
    /// flight when it went down (counted with `link_drops`).
    LinkDown,
}

/// A wake-up a link layer wants: at `at`, ordered by `seq` among same-instant
/// events, with a token of its own choosing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wake {
    pub at: Time,
    pub seq: u64,
    pub token: u32,
}

/// Per-direction counters every link layer keeps. In C order, those a
/// FIFO link adds to at every packet first (one cache line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct LinkStats {
    /// Integral of the queue occupancy (packets waiting or in service) over
    /// time, in packet-nanoseconds; divided by the elapsed time it is the
    /// time-weighted mean occupancy. Zero for a layer that does not keep it.
    pub occupancy_ns: u128,
    /// Packets accepted for transmission (not counting queue drops).
    pub packets: u64,
    pub bytes: u64,
    /// Nanoseconds the transmitter was busy (sum of transmission times of
    /// the packets accepted, up to the instant the statistics are read).
    pub busy_ns: u64,
    /// Packets delivered at the far end.
    pub delivered: u64,
    /// Largest number of packets waiting or in service (0 for a layer that
    /// does not keep it).
    pub max_occupancy: u32,
    pub queue_drops: u64,
    pub channel_drops: u64,
    /// Packets the link layer itself gave up on, or sent while the link
    /// was down.
    pub link_drops: u64,
}

impl LinkStats {
    /// Add `queued` packets held over `[since, now]` to the occupancy
    /// integral (a queue whose length last changed at `since`).
    #[inline]
    pub fn hold(&mut self, queued: usize, since: Time, now: Time) {
        self.occupancy_ns += queued as u128 * now.since(since).0 as u128;
    }

    /// A copy with `queued` packets held from `since` to `stop` added (the
    /// counters as they stand at `stop`; nothing added if `stop` is not
    /// later than `since`).
    pub fn held_to(&self, queued: usize, since: Time, stop: Time) -> LinkStats {
        let mut s = self.clone();
        if stop > since {
            s.hold(queued, since, stop);
        }
        s
    }

    /// Time-weighted mean queue occupancy (packets, the one in service
    /// included) over `[0, elapsed_ns]`.
    pub fn mean_queue(&self, elapsed_ns: u64) -> f64 {
        if elapsed_ns == 0 {
            0.0
        } else {
            self.occupancy_ns as f64 / elapsed_ns as f64
        }
    }
}

/// The record of one call into a link layer. The engine owns it, clears it
/// before each call and acts on it after.
#[derive(Debug, Default)]
pub struct LinkIo {
    /// The engine's insertion-sequence counter (last number handed out).
    pub seq: u64,
    pub wakes: Vec<Wake>,
    /// Packets that reached the far end of a direction, in order.
    pub delivered: Vec<(Dir, u32)>,
    /// Packets lost, with the reason.
    pub lost: Vec<(Dir, u32, LossReason)>,
}

impl LinkIo {
    /// Take the next insertion sequence number.
    #[inline]
    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }
    #[inline]
    pub fn wake(&mut self, at: Time, seq: u64, token: u32) {
        self.wakes.push(Wake { at, seq, token });
    }
    #[inline]
    pub fn deliver(&mut self, dir: Dir, slot: u32) {
        self.delivered.push((dir, slot));
    }
    #[inline]
    pub fn lose(&mut self, dir: Dir, slot: u32, why: LossReason) {
        self.lost.push((dir, slot, why));
    }
}

/// A link layer: both directions of one link.
pub trait LinkLayer: Send {
    /// A packet enters direction `dir` at `now`.
    fn send(&mut self, now: Time, dir: Dir, pkt: LinkPacket, io: &mut LinkIo);
    /// A wake-up asked for earlier is due.
    fn wake(&mut self, now: Time, token: u32, io: &mut LinkIo);
    /// Counters of one direction.
    fn stats(&self, dir: Dir) -> LinkStats;
    /// Counters of one direction as of `stop` (the end of the run): time
    /// integrals (busy time, queue occupancy) are cut at `stop` for packets
    /// still queued then. By default the same as [`LinkLayer::stats`].
    fn stats_at(&self, dir: Dir, _stop: Time) -> LinkStats {
        self.stats(dir)
    }
    /// Record the queue occupancy of both directions as step functions
    /// (asked for by traced runs; by default nothing is recorded).
    fn trace_queues(&mut self) {}
    /// The recorded occupancy of one direction up to `stop`: (time, packets
    /// waiting or in service) at every change; `None` if not recorded.
    fn queue_trace(&mut self, _dir: Dir, _stop: Time) -> Option<Vec<(Time, u32)>> {
        None
    }
    /// The layer's own counters of one direction beyond [`LinkStats`]
    /// (e.g. frames sent and retransmitted), by name; the run's results
    /// carry them in the direction's entry. None by default.
    fn counters(&self, _dir: Dir) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// The link's ends move: direction `dir` takes its delay and visibility
    /// from `motion` (only layers whose spec `supports_motion` are given one;
    /// by default it is ignored).
    // Boxed: a layer that supports motion keeps it boxed in its direction.
    #[allow(clippy::boxed_local)]
    fn set_motion(&mut self, _dir: Dir, _motion: Box<super::moving::DirMotion>) {}
}

/// What a link layer is built from: both directions' resolved parameters and
/// their channel stacks (built by the engine from the scenario).
pub struct LinkBuild<'a> {
    pub name: &'a str,
    pub seed: u64,
    pub dirs: [&'a LinkDirSpec; 2],
    pub channels: [Vec<Channel>; 2],
}

/// A channel a link layer draws itself, sampled for `channel plot`:
/// (state, loss probability) at an instant.
pub type ChannelSampler = Box<dyn FnMut(Time) -> (u32, f64) + Send>;

/// What the engine asks of a link layer's scenario spec, each with a
/// default, so the plan, the event budget, `describe` and `channel plot`
/// never name a link layer.
pub trait LinkLayerSpecOps {
    /// The built link layer.
    type Built: LinkLayer;
    fn build(&self, b: LinkBuild) -> Self::Built;
    /// Check the spec against its link when the plan is built, adjusting
    /// the link's directions if the layer defines them; returns warnings,
    /// or (key under `link_layer`, message).
    fn resolve(
        &self,
        _fwd: &mut LinkDirSpec,
        _rev: &mut LinkDirSpec,
    ) -> Result<Vec<String>, (String, String)> {
        Ok(Vec::new())
    }
    /// Warnings about the TCP connections that cross the (resolved) link,
    /// the smallest minimum RTO among them `rto_min` (a layer with timers
    /// of its own has rules against the TCP timeout).
    fn check_tcp(&self, _fwd: &LinkDirSpec, _rev: &LinkDirSpec, _rto_min: Dur) -> Vec<String> {
        Vec::new()
    }
    /// It runs between moving nodes (delay per packet from positions,
    /// visibility).
    fn supports_motion(&self) -> bool {
        false
    }
    /// State changes it draws per simulated second (its own fade chain),
    /// and what to change to draw fewer.
    fn state_changes(&self) -> Option<(f64, &'static str)> {
        None
    }
    /// `describe` shows it (the plain FIFO is not shown).
    fn shown(&self) -> bool {
        true
    }
    /// The channel it draws itself on direction `dir` of link `link` in a
    /// run with `seed`, for `channel plot` (`Ok(None)`: it has none, the
    /// direction's channel models are what to plot; `Err`: a message why
    /// that direction has nothing to plot).
    fn own_channel(
        &self,
        _seed: u64,
        _link: &str,
        _dir: Dir,
    ) -> Result<Option<ChannelSampler>, String> {
        Ok(None)
    }
}

impl<T: LinkLayerSpecOps> LinkLayerSpecOps for Box<T> {
    type Built = T::Built;
    fn build(&self, b: LinkBuild) -> T::Built {
        (**self).build(b)
    }
    fn resolve(
        &self,
        fwd: &mut LinkDirSpec,
        rev: &mut LinkDirSpec,
    ) -> Result<Vec<String>, (String, String)> {
        (**self).resolve(fwd, rev)
    }
    fn check_tcp(&self, fwd: &LinkDirSpec, rev: &LinkDirSpec, rto_min: Dur) -> Vec<String> {
        (**self).check_tcp(fwd, rev, rto_min)
    }
    fn supports_motion(&self) -> bool {
        (**self).supports_motion()
    }
    fn state_changes(&self) -> Option<(f64, &'static str)> {
        (**self).state_changes()
    }
    fn shown(&self) -> bool {
        (**self).shown()
    }
    fn own_channel(
        &self,
        seed: u64,
        link: &str,
        dir: Dir,
    ) -> Result<Option<ChannelSampler>, String> {
        (**self).own_channel(seed, link, dir)
    }
}
