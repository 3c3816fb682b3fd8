//! The one place a shared medium is registered: one line in `media!`
//! gives its spec's variant of [`MediumSpec`], its built form (a variant of
//! [`AnyMedium`], static dispatch; `Custom` for media from user code) and
//! the dispatch of both.

use super::beam::{Beam, BeamSpec, MemberShape};
use super::layer::{Dir, LinkPacket, LinkStats};
use super::medium::{Esn0Fn, Medium, MediumBuild, MediumIo, MediumReport, MemberPlot};
use crate::engine::time::Time;
use std::sync::Arc;

/// A medium built by user code (tests, extensions).
#[derive(Clone)]
pub struct CustomMedium(pub MakeMedium);

/// Builds a medium from its members.
pub type MakeMedium = Arc<dyn Fn(MediumBuild) -> Box<dyn Medium> + Send + Sync>;

impl std::fmt::Debug for CustomMedium {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CustomMedium")
    }
}
impl PartialEq for CustomMedium {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

/// A shared medium as the plan resolves it: its spec, its member links
/// (link indices: link `k` has directions `2k` and `2k + 1`) and, per
/// member, the direction leaving the hub.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanMedium {
    pub name: String,
    pub spec: MediumSpec,
    pub links: Vec<u32>,
    pub from_hub: Vec<Dir>,
}

/// What the engine asks of a medium's spec, each with a default.
pub trait MediumSpecOps {
    type Built: Medium;
    fn build(&self, b: MediumBuild) -> Self::Built;
    /// Check the spec against its members and keep what it resolves (at
    /// plan build); `Err((key within the medium's table, message))`.
    fn prepare(&mut self, _members: &[MemberShape]) -> Result<(), (String, String)> {
        Ok(())
    }
    /// The medium in words, one line per part, for `skyhop describe`.
    fn describe(&self, _members: &[MemberShape]) -> Vec<String> {
        Vec::new()
    }
    /// Bytes its records hold over a run of `duration_s` (memory estimate).
    fn memory(&self, _members: usize, _duration_s: f64) -> u64 {
        0
    }
    /// Wake-ups per simulated second it needs whatever the traffic (a
    /// superframe clock), for the event budget.
    fn clock_events_per_second(&self) -> f64 {
        0.0
    }
    /// What `channel plot` draws of member `member`'s direction out of the
    /// hub (`out_of_hub`) or into it at `times`, given its channel models'
    /// Es/N0 (`esn0`).
    fn plot_member(
        &self,
        _member: usize,
        _out_of_hub: bool,
        _esn0: &mut Esn0Fn,
        _times: &[Time],
    ) -> MemberPlot {
        MemberPlot::default()
    }
}

impl MediumSpecOps for BeamSpec {
    type Built = Beam;
    fn build(&self, b: MediumBuild) -> Beam {
        Beam::build(self, b)
    }
    fn prepare(&mut self, members: &[MemberShape]) -> Result<(), (String, String)> {
        BeamSpec::prepare(self, members)
    }
    fn describe(&self, members: &[MemberShape]) -> Vec<String> {
        match &self.resolved.0 {
            Some(p) => BeamSpec::describe(self, p, members),
            None => Vec::new(),
        }
    }
    fn memory(&self, members: usize, duration_s: f64) -> u64 {
        // Per superframe and terminal a row of the grants table (9 numbers),
        // and per terminal its access-delay histogram.
        let Some(p) = &self.resolved.0 else { return 0 };
        let hist = members as u64 * (super::rcs2::return_link::DELAY_BINS as u64 + 1) * 8;
        match &p.ret {
            Some(r) => {
                let sfs = duration_s / r.sf.duration().as_secs_f64() + 1.0;
                (sfs * members as f64 * 9.0 * 8.0) as u64 + hist
            }
            None => 0,
        }
    }
    fn clock_events_per_second(&self) -> f64 {
        match self.resolved.0.as_ref().and_then(|p| p.ret.as_ref()) {
            Some(r) => 1.0 / r.sf.duration().as_secs_f64(),
            None => 0.0,
        }
    }
    fn plot_member(
        &self,
        member: usize,
        out_of_hub: bool,
        esn0: &mut Esn0Fn,
        times: &[Time],
    ) -> MemberPlot {
        match &self.resolved.0 {
            Some(p) => super::beam::plot::member(p, member, out_of_hub, esn0, times),
            None => MemberPlot::default(),
        }
    }
}

impl<T: MediumSpecOps> MediumSpecOps for Box<T> {
    type Built = T::Built;
    fn build(&self, b: MediumBuild) -> T::Built {
        (**self).build(b)
    }
    fn prepare(&mut self, members: &[MemberShape]) -> Result<(), (String, String)> {
        (**self).prepare(members)
    }
    fn describe(&self, members: &[MemberShape]) -> Vec<String> {
        (**self).describe(members)
    }
    fn memory(&self, members: usize, duration_s: f64) -> u64 {
        (**self).memory(members, duration_s)
    }
    fn clock_events_per_second(&self) -> f64 {
        (**self).clock_events_per_second()
    }
    fn plot_member(
        &self,
        member: usize,
        out_of_hub: bool,
        esn0: &mut Esn0Fn,
        times: &[Time],
    ) -> MemberPlot {
        (**self).plot_member(member, out_of_hub, esn0, times)
    }
}

macro_rules! media {
    ($($v:ident($spec:ty => $t:ty)),* $(,)?) => {
        /// A shared medium as a plan holds it.
        #[derive(Clone, Debug, PartialEq)]
        pub enum MediumSpec {
            $($v($spec),)*
            /// Built by user code.
            Custom(CustomMedium),
        }

        /// A built medium (static dispatch; `Custom` for user code).
        pub enum AnyMedium {
            $($v($t),)*
            Custom(Box<dyn Medium>),
        }

        impl AnyMedium {
            pub fn build(spec: &MediumSpec, b: MediumBuild) -> AnyMedium {
                match spec {
                    $(MediumSpec::$v(s) => AnyMedium::$v(<$spec as MediumSpecOps>::build(s, b)),)*
                    MediumSpec::Custom(f) => AnyMedium::Custom((f.0)(b)),
                }
            }
            pub fn start(&mut self, io: &mut MediumIo) {
                match self {
                    $(AnyMedium::$v(m) => m.start(io),)*
                    AnyMedium::Custom(m) => m.start(io),
                }
            }
            #[inline]
            pub fn send(&mut self, now: Time, member: u32, dir: Dir, pkt: LinkPacket, io: &mut MediumIo) {
                match self {
                    $(AnyMedium::$v(m) => m.send(now, member, dir, pkt, io),)*
                    AnyMedium::Custom(m) => m.send(now, member, dir, pkt, io),
                }
            }
            #[inline]
            pub fn wake(&mut self, now: Time, token: u32, io: &mut MediumIo) {
                match self {
                    $(AnyMedium::$v(m) => m.wake(now, token, io),)*
                    AnyMedium::Custom(m) => m.wake(now, token, io),
                }
            }
            pub fn stats(&self, member: u32, dir: Dir) -> LinkStats {
                match self {
                    $(AnyMedium::$v(m) => m.stats(member, dir),)*
                    AnyMedium::Custom(m) => m.stats(member, dir),
                }
            }
            pub fn stats_at(&self, member: u32, dir: Dir, stop: Time) -> LinkStats {
                match self {
                    $(AnyMedium::$v(m) => m.stats_at(member, dir, stop),)*
                    AnyMedium::Custom(m) => m.stats_at(member, dir, stop),
                }
            }
            pub fn counters(&self, member: u32, dir: Dir) -> Vec<(&'static str, u64)> {
                match self {
                    $(AnyMedium::$v(m) => m.counters(member, dir),)*
                    AnyMedium::Custom(m) => m.counters(member, dir),
                }
            }
            pub fn report(&self, stop: Time) -> MediumReport {
                match self {
                    $(AnyMedium::$v(m) => m.report(stop),)*
                    AnyMedium::Custom(m) => m.report(stop),
                }
            }
        }

        impl MediumSpec {
            pub fn prepare(&mut self, members: &[MemberShape]) -> Result<(), (String, String)> {
                match self {
                    $(MediumSpec::$v(s) => <$spec as MediumSpecOps>::prepare(s, members),)*
                    MediumSpec::Custom(_) => Ok(()),
                }
            }
            pub fn describe(&self, members: &[MemberShape]) -> Vec<String> {
                match self {
                    $(MediumSpec::$v(s) => <$spec as MediumSpecOps>::describe(s, members),)*
                    MediumSpec::Custom(_) => vec!["custom medium".into()],
                }
            }
            pub fn memory(&self, members: usize, duration_s: f64) -> u64 {
                match self {
                    $(MediumSpec::$v(s) => <$spec as MediumSpecOps>::memory(s, members, duration_s),)*
                    MediumSpec::Custom(_) => 0,
                }
            }
            pub fn clock_events_per_second(&self) -> f64 {
                match self {
                    $(MediumSpec::$v(s) => <$spec as MediumSpecOps>::clock_events_per_second(s),)*
                    MediumSpec::Custom(_) => 0.0,
                }
            }
            pub fn plot_member(&self, member: usize, out_of_hub: bool, esn0: &mut Esn0Fn, times: &[Time]) -> MemberPlot {
                match self {
                    $(MediumSpec::$v(s) => <$spec as MediumSpecOps>::plot_member(s, member, out_of_hub, esn0, times),)*
                    MediumSpec::Custom(_) => MemberPlot::default(),
                }
            }
        }
    };
}

media! {
    Beam(Box<BeamSpec> => Beam),
}
