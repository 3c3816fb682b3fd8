//! The shared-medium seam: one link-layer object for several links that
//! share one medium (a beam: the terminals of a group of links to one
//! gateway, sharing a forward carrier and a return MF-TDMA medium), which
//! decides who may send when.
//!
//! Each terminal's link stays a link: routes cross it by its link
//! directions, and its results are its own (`LinkStats` per link direction,
//! from [`Medium::stats`]); the world hands a packet entering one of its
//! member links' directions to the medium with the member's index, and the
//! medium says, through [`MediumIo`], which member link direction delivered
//! or lost which packet, and which wake-ups it wants (its tokens are its
//! own, as a link layer's are). Like a link layer it never reads a clock.
//! Beyond the links' counters, it reports its own tables
//! ([`Medium::report`]: per terminal requested and granted capacity over
//! time, access delays, …).
//!
//! Register an implementation in `net/media.rs` (one line in `media!`).

use super::layer::{Dir, LinkPacket, LinkStats, LossReason, Wake};
use super::link_dir::LinkDirSpec;
use crate::channel::Channel;
use crate::engine::time::Time;

/// The record of one call into a medium (the engine owns it, clears it
/// before each call and acts on it after).
#[derive(Debug, Default)]
pub struct MediumIo {
    /// The engine's insertion-sequence counter (last number handed out).
    pub seq: u64,
    pub wakes: Vec<Wake>,
    /// Packets that reached the far end of a member's direction, in order:
    /// (member, direction, slot).
    pub delivered: Vec<(u32, Dir, u32)>,
    /// Packets lost: (member, direction, slot, reason).
    pub lost: Vec<(u32, Dir, u32, LossReason)>,
}

impl MediumIo {
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
    pub fn deliver(&mut self, member: u32, dir: Dir, slot: u32) {
        self.delivered.push((member, dir, slot));
    }
    #[inline]
    pub fn lose(&mut self, member: u32, dir: Dir, slot: u32, why: LossReason) {
        self.lost.push((member, dir, slot, why));
    }
}

/// A medium's own results: named scalars and named tables (columns of
/// numbers, one row per record), which the run's JSON carries as records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MediumReport {
    /// The member links' names, in member order: a column named `member`
    /// holds indices into it.
    pub members: Vec<String>,
    pub scalars: Vec<(String, f64)>,
    pub tables: Vec<MediumTable>,
}

/// One table of a medium's report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MediumTable {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

/// A shared medium.
pub trait Medium: Send {
    /// The run starts (time zero): a medium with a clock of its own (a
    /// superframe scheduler) asks for its first wake-up.
    fn start(&mut self, _io: &mut MediumIo) {}
    /// A packet enters direction `dir` of member link `member` at `now`.
    fn send(&mut self, now: Time, member: u32, dir: Dir, pkt: LinkPacket, io: &mut MediumIo);
    /// A wake-up asked for earlier is due.
    fn wake(&mut self, now: Time, token: u32, io: &mut MediumIo);
    /// Counters of one member link's direction.
    fn stats(&self, member: u32, dir: Dir) -> LinkStats;
    /// The same as of `stop` (time integrals cut there).
    fn stats_at(&self, member: u32, dir: Dir, _stop: Time) -> LinkStats {
        self.stats(member, dir)
    }
    /// Its own counters of one member link's direction beyond
    /// [`LinkStats`] (e.g. frames sent), by name; the run's results carry
    /// them in the direction's entry. None by default.
    fn counters(&self, _member: u32, _dir: Dir) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// The medium's own results at the end of the run.
    fn report(&self, _stop: Time) -> MediumReport {
        MediumReport::default()
    }
}

/// One member link as a medium is built from it.
pub struct MemberBuild<'a> {
    /// The link's name.
    pub name: &'a str,
    /// Its two directions' resolved parameters.
    pub dirs: [&'a LinkDirSpec; 2],
    /// Their channel stacks, built by the engine.
    pub channels: [Vec<Channel>; 2],
    /// The direction leaving the hub (the gateway): the forward link.
    pub from_hub: Dir,
}

/// What a medium is built from.
pub struct MediumBuild<'a> {
    pub name: &'a str,
    pub seed: u64,
    pub members: Vec<MemberBuild<'a>>,
}

/// What `channel plot` draws of a member's direction beyond its channel
/// models: named series over the sampled times, and named labels (text per
/// sample, e.g. the MODCOD in use).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemberPlot {
    pub series: Vec<(&'static str, Vec<f64>)>,
    pub labels: Vec<(&'static str, Vec<String>)>,
}

/// The Es/N0 (dB) a member's direction's channel models give at a time on
/// a carrier of a symbol rate, if any does.
pub type Esn0Fn<'a> = dyn FnMut(Time, f64) -> Option<f64> + 'a;
