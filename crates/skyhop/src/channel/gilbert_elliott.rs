//! Gilbert–Elliott GOOD/BAD channel: a continuous-time two-state Markov
//! chain with exponentially distributed sojourns (means `t_good`, `t_bad`)
//! and a loss probability per state (a packet error rate, or a bit error
//! rate applied to the packet's length).
//!
//! The chain ([`GilbertElliott`]) is usable on its own, outside the
//! [`ChannelModel`] trait (e.g. by a link layer judging frames):
//! [`GilbertElliott::state_at`] answers "is the channel BAD at `t`?" for any
//! `t`, drawing sojourns lazily as far as needed. Only the switches a query
//! still needs are kept (those after the last query's time): a run's
//! queries come in time order (a FIFO direction judges its transmissions in
//! the order they start, a DVB-S link its frames, a plot its grid), so the
//! memory of a chain does not grow with the run, however short its
//! sojourns. A query earlier than a switch already forgotten draws the
//! trajectory again from its start (the same stream, so the same switches):
//! exact in any order, only slower.
//!
//! The trajectory is drawn from a stream of its own and never from the loss
//! draws, so it depends only on the seed and the link direction, not on the
//! traffic: the state sequence a plot shows is the one a run sees.
//!
//! Loss rule for a transmission over `[start, end)`: if the chain is BAD at
//! any instant of the interval (at `start`, or because a switch falls inside
//! it), the packet is judged with the BAD state's loss probability, otherwise
//! with the GOOD state's. This is the pessimistic reading for a packet that
//! straddles a fade: its bits sent during the fade are hit as in the fade.
//!
//! Initial state: drawn from the stationary distribution
//! (P(BAD) = t_bad / (t_good + t_bad)) unless the scenario sets `initial`; by
//! memorylessness the first sojourn has the same law as any other.
//!
//! The rural-highway example of the land-mobile-satellite literature used by
//! M. Luglio et al. ("On-Board Satellite 'Split TCP' Proxy", IEEE JSAC 22(2),
//! 2004): elevation 13°, mean distances 90 m in GOOD and 29 m in BAD at
//! 60 km/h, i.e. t_good ≈ 6 s, t_bad ≈ 2 s.

use super::loss::StateLoss;
use super::{ApplyTo, ChannelCtx, ChannelModel, ChannelState, Tx};
use crate::engine::rng::RngStream;
use crate::engine::time::{Time, NS_PER_S};
use crate::units::Duration;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The two-state chain, advanced lazily, keeping only the switches queries
/// still need.
pub struct GilbertElliott {
    mean_good_s: f64,
    mean_bad_s: f64,
    /// State at time zero.
    initial_bad: bool,
    /// Switch instants drawn and still kept, increasing; the state flips at each.
    switches: VecDeque<Time>,
    /// Switches drawn before `switches[0]` and forgotten.
    forgotten: u64,
    /// The last switch forgotten (zero if none): a query before it rewinds.
    floor: Time,
    rng: RngStream,
    /// The sojourn stream before the first sojourn (to rewind).
    start: RngStream,
}

impl GilbertElliott {
    /// A chain with mean sojourns `t_good_s`, `t_bad_s` (seconds, > 0),
    /// starting in `initial` (`Some(true)` = BAD) or, if `None`, in a state
    /// drawn from the stationary distribution. `rng` drives the sojourns only.
    pub fn new(t_good_s: f64, t_bad_s: f64, initial: Option<bool>, mut rng: RngStream) -> Self {
        assert!(
            t_good_s > 0.0 && t_bad_s > 0.0,
            "Gilbert–Elliott sojourn means must be positive"
        );
        let initial_bad = initial.unwrap_or_else(|| rng.bernoulli(t_bad_s / (t_good_s + t_bad_s)));
        GilbertElliott {
            mean_good_s: t_good_s,
            mean_bad_s: t_bad_s,
            initial_bad,
            switches: VecDeque::new(),
            forgotten: 0,
            floor: Time::ZERO,
            start: rng.clone(),
            rng,
        }
    }

    /// Long-run fraction of time in BAD: t_bad / (t_good + t_bad).
    pub fn bad_fraction(&self) -> f64 {
        self.mean_bad_s / (self.mean_good_s + self.mean_bad_s)
    }

    /// Switches drawn so far (kept or forgotten).
    fn drawn(&self) -> u64 {
        self.forgotten + self.switches.len() as u64
    }

    /// Draw the next sojourn.
    fn draw(&mut self) {
        let last = self.switches.back().copied().unwrap_or(self.floor);
        // The state of the sojourn that starts at `last`.
        let bad = self.initial_bad ^ (self.drawn() % 2 == 1);
        let mean = if bad {
            self.mean_bad_s
        } else {
            self.mean_good_s
        };
        // At least one nanosecond, so the trajectory always moves on.
        let ns = (self.rng.exponential(mean) * NS_PER_S as f64)
            .round()
            .max(1.0);
        let ns = if ns >= u64::MAX as f64 {
            u64::MAX
        } else {
            ns as u64
        };
        self.switches.push_back(Time(last.0.saturating_add(ns)));
    }

    /// Start again from time zero (the same stream, so the same trajectory).
    fn rewind(&mut self) {
        self.switches.clear();
        self.forgotten = 0;
        self.floor = Time::ZERO;
        self.rng = self.start.clone();
    }

    fn forget_front(&mut self) {
        if let Some(s) = self.switches.pop_front() {
            self.forgotten += 1;
            self.floor = s;
        }
    }

    /// Draw until the trajectory is known beyond `t`, forgetting the
    /// switches at or before `t` (queries come in time order): after it,
    /// every kept switch is after `t`, and there is at least one.
    fn advance_to(&mut self, t: Time) {
        if t < self.floor {
            self.rewind();
        }
        loop {
            while self.switches.front().is_some_and(|&s| s <= t) {
                self.forget_front();
            }
            if !self.switches.is_empty() {
                return;
            }
            self.draw();
        }
    }

    /// Is the channel BAD at `t`? (A switch at exactly `t` has happened.)
    pub fn state_at(&mut self, t: Time) -> bool {
        self.advance_to(t);
        self.initial_bad ^ (self.forgotten % 2 == 1)
    }

    /// Is the channel BAD at any instant of `[a, b)`?
    pub fn bad_during(&mut self, a: Time, b: Time) -> bool {
        if self.state_at(a) {
            return true;
        }
        // GOOD at `a`: BAD somewhere in the interval iff the next switch falls in (a, b).
        self.switches.front().is_some_and(|&s| s < b)
    }

    /// The `k`-th switch instant (from 0), drawing as far as needed and
    /// forgetting the earlier ones (queries by index come in order).
    pub fn switch(&mut self, k: u64) -> Time {
        if k < self.forgotten {
            self.rewind();
        }
        while self.forgotten < k && !self.switches.is_empty() {
            self.forget_front();
        }
        while self.drawn() <= k {
            self.draw();
            while self.forgotten < k && !self.switches.is_empty() {
                self.forget_front();
            }
        }
        self.switches[(k - self.forgotten) as usize]
    }

    /// Switch instants held in memory (a bounded window, whatever the run's length).
    pub fn kept(&self) -> usize {
        self.switches.len()
    }

    /// The state at time zero (true = BAD).
    pub fn initial_bad(&self) -> bool {
        self.initial_bad
    }
}

impl Clone for GilbertElliott {
    /// A chain at time zero that draws the same trajectory: a second
    /// cursor over it (e.g. one reading the switches by index while the
    /// other answers queries by time).
    fn clone(&self) -> Self {
        GilbertElliott {
            mean_good_s: self.mean_good_s,
            mean_bad_s: self.mean_bad_s,
            initial_bad: self.initial_bad,
            switches: VecDeque::new(),
            forgotten: 0,
            floor: Time::ZERO,
            rng: self.start.clone(),
            start: self.start.clone(),
        }
    }
}

/// The state a two-state channel starts in (`initial`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InitialState {
    Good,
    Bad,
}

impl InitialState {
    pub fn is_bad(self) -> bool {
        self == InitialState::Bad
    }
}

/// `{ model = "gilbert-elliott", t_good = "6 s", t_bad = "2 s", per_good = 0, per_bad = 1 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottSpec {
    /// Mean sojourn in GOOD.
    pub t_good: Duration,
    /// Mean sojourn in BAD.
    pub t_bad: Duration,
    /// Packet error rate in GOOD (default 0 unless `ber_good` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_good: Option<f64>,
    /// Packet error rate in BAD (default 1 unless `ber_bad` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_bad: Option<f64>,
    /// Bit error rate in GOOD (instead of `per_good`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ber_good: Option<f64>,
    /// Bit error rate in BAD (instead of `per_bad`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ber_bad: Option<f64>,
    /// "good" or "bad"; default: drawn from the stationary distribution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<InitialState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_to: Option<ApplyTo>,
}

impl GilbertElliottSpec {
    pub fn validate(&self) -> Result<(), (String, String)> {
        for (key, d) in [("t_good", self.t_good), ("t_bad", self.t_bad)] {
            if d.0 .0 == 0 {
                return Err((key.into(), "a mean sojourn must be positive".into()));
            }
        }
        for (state, per, ber) in [
            ("good", self.per_good, self.ber_good),
            ("bad", self.per_bad, self.ber_bad),
        ] {
            super::loss::check_per_or_ber(
                &format!("per_{state}"),
                &format!("ber_{state}"),
                per,
                ber,
            )?;
        }
        Ok(())
    }
}

impl super::ChannelSpecOps for GilbertElliottSpec {
    type Model = GilbertElliottChannel;
    fn build(&self, ctx: &ChannelCtx) -> GilbertElliottChannel {
        GilbertElliottChannel::build(self, ctx)
    }
    fn validate(&self) -> Result<(), (String, String)> {
        GilbertElliottSpec::validate(self)
    }
    fn apply_to_mut(&mut self) -> Option<&mut Option<ApplyTo>> {
        Some(&mut self.apply_to)
    }
    /// Two switches per mean cycle of GOOD and BAD.
    fn state_changes(&self) -> Option<(f64, &'static str)> {
        let cycle = self.t_good.0.as_secs_f64() + self.t_bad.0.as_secs_f64();
        Some((2.0 / cycle, "lengthen t_good and t_bad"))
    }
}

/// The chain as a channel model.
pub struct GilbertElliottChannel {
    chain: GilbertElliott,
    good: StateLoss,
    bad: StateLoss,
    apply_to: ApplyTo,
    /// Loss draws (separate from the chain's sojourns).
    rng: RngStream,
}

impl GilbertElliottChannel {
    pub fn new(
        chain: GilbertElliott,
        good: StateLoss,
        bad: StateLoss,
        apply_to: ApplyTo,
        rng: RngStream,
    ) -> Self {
        GilbertElliottChannel {
            chain,
            good,
            bad,
            apply_to,
            rng,
        }
    }

    pub fn build(s: &GilbertElliottSpec, ctx: &ChannelCtx) -> Self {
        let chain = GilbertElliott::new(
            s.t_good.0.as_secs_f64(),
            s.t_bad.0.as_secs_f64(),
            s.initial.map(InitialState::is_bad),
            ctx.own_rng("gilbert-elliott"),
        );
        GilbertElliottChannel::new(
            chain,
            StateLoss::from_pair(s.per_good, s.ber_good, 0.0),
            StateLoss::from_pair(s.per_bad, s.ber_bad, 1.0),
            s.apply_to.unwrap_or_default(),
            ctx.own_rng("gilbert-elliott:loss"),
        )
    }

    /// The underlying chain.
    pub fn chain(&mut self) -> &mut GilbertElliott {
        &mut self.chain
    }
}

impl ChannelModel for GilbertElliottChannel {
    fn is_lost(&mut self, tx: &Tx) -> bool {
        if !self.apply_to.covers(tx.kind) {
            return false;
        }
        let end = if tx.end > tx.start {
            tx.end
        } else {
            Time(tx.start.0 + 1)
        };
        let state = if self.chain.bad_during(tx.start, end) {
            self.bad
        } else {
            self.good
        };
        let p = state.probability(tx.bytes);
        self.rng.bernoulli(p)
    }

    fn state(&mut self, now: Time) -> Option<ChannelState> {
        let bad = self.chain.state_at(now);
        let loss = if bad { self.bad } else { self.good };
        Some(ChannelState {
            state: bad as u32,
            loss_probability: loss.probability(1500),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::PacketKind;

    fn secs(s: f64) -> Time {
        Time::from_secs_f64(s)
    }

    #[test]
    fn long_run_bad_fraction_and_mean_sojourns_match_the_parameters() {
        // Over many independent chains, 2000 s each: BAD fraction 2/8 = 0.25.
        let (mut bad_time, mut total) = (0.0, 0.0);
        let (mut good_sum, mut good_n, mut bad_sum, mut bad_n) = (0.0, 0u64, 0.0, 0u64);
        for run in 0..50 {
            let mut ge = GilbertElliott::new(6.0, 2.0, None, RngStream::derive(run, "ge"));
            let horizon = secs(2000.0);
            let mut t0 = Time::ZERO;
            let mut bad = ge.initial_bad();
            for i in 0.. {
                let s = ge.switch(i);
                let end = s.min(horizon);
                let d = end.since(t0).as_secs_f64();
                if bad {
                    bad_time += d;
                }
                // Whole sojourns only (not the first, cut by t = 0 only in
                // law, nor the one the horizon cuts).
                if i > 0 && s <= horizon {
                    if bad {
                        bad_sum += d;
                        bad_n += 1;
                    } else {
                        good_sum += d;
                        good_n += 1;
                    }
                }
                if s >= horizon {
                    break;
                }
                t0 = s;
                bad = !bad;
            }
            total += 2000.0;
        }
        let frac = bad_time / total;
        assert!((frac - 0.25).abs() < 0.25 * 0.02, "BAD fraction {frac}");
        let (mg, mb) = (good_sum / good_n as f64, bad_sum / bad_n as f64);
        assert!((mg - 6.0).abs() < 6.0 * 0.03, "mean GOOD sojourn {mg}");
        assert!((mb - 2.0).abs() < 2.0 * 0.03, "mean BAD sojourn {mb}");
    }

    #[test]
    fn queries_out_of_time_order_see_one_trajectory() {
        let mut a = GilbertElliott::new(1.0, 0.5, None, RngStream::derive(7, "ge"));
        let mut b = GilbertElliott::new(1.0, 0.5, None, RngStream::derive(7, "ge"));
        let fwd: Vec<bool> = (0..1000)
            .map(|i| a.state_at(secs(i as f64 * 0.1)))
            .collect();
        let mut back: Vec<bool> = (0..1000)
            .rev()
            .map(|i| b.state_at(secs(i as f64 * 0.1)))
            .collect();
        back.reverse();
        assert_eq!(fwd, back);
        assert!(fwd.iter().any(|&x| x) && fwd.iter().any(|&x| !x));
    }

    #[test]
    fn a_switch_inside_a_transmission_makes_it_bad() {
        let mut ge = GilbertElliott::new(5.0, 5.0, Some(false), RngStream::derive(3, "ge"));
        let s = ge.switch(0);
        assert!(!ge.state_at(Time(s.0 - 1)));
        assert!(ge.state_at(s));
        assert!(ge.bad_during(Time(s.0 - 10), Time(s.0 + 1)));
        // [s - 10, s) ends just before the switch: GOOD throughout.
        assert!(!ge.bad_during(Time(s.0 - 10), s));
    }

    #[test]
    fn memory_stays_bounded_however_short_the_sojourns() {
        // 1 ns sojourns over 10 ms: 10^7 switches, queried in time order as
        // a FIFO direction does (one 12 µs packet after another).
        let mut ge = GilbertElliott::new(1e-9, 1e-9, Some(false), RngStream::derive(1, "ge"));
        let mut most = 0;
        for i in 0..800u64 {
            let a = Time(i * 12_500);
            ge.bad_during(a, Time(a.0 + 12_000));
            most = most.max(ge.kept());
        }
        assert!(most <= 2, "kept {most} switches");
        // By index, as the DVB-S reports read them.
        let mut r = GilbertElliott::new(1e-9, 1e-9, Some(false), RngStream::derive(1, "ge"));
        for k in 0..100_000 {
            r.switch(k);
            assert!(r.kept() <= 2);
        }
    }

    #[test]
    fn a_second_cursor_and_a_rewind_see_the_same_switches() {
        let mut a = GilbertElliott::new(0.5, 0.25, None, RngStream::derive(9, "ge"));
        let mut b = a.clone();
        let by_index: Vec<Time> = (0..500).map(|k| b.switch(k)).collect();
        // a's time queries agree with the switches b read by index...
        for (k, &s) in by_index.iter().enumerate() {
            assert_eq!(a.state_at(s), a.initial_bad() ^ (k % 2 == 0));
        }
        // ... and so do queries going back (a rewind).
        for (k, &s) in by_index.iter().enumerate().rev().step_by(7) {
            assert_eq!(a.state_at(Time(s.0 - 1)), a.initial_bad() ^ (k % 2 == 1));
            assert_eq!(b.switch(k as u64), s);
        }
    }

    #[test]
    fn per_zero_one_loses_exactly_the_packets_sent_in_bad() {
        let spec: GilbertElliottSpec =
            toml::from_str("t_good = \"1 s\"\nt_bad = \"1 s\"\nper_good = 0\nper_bad = 1").unwrap();
        spec.validate().unwrap();
        let ctx = ChannelCtx {
            seed: 1,
            link: "l:forward",
            index: 0,
            geometry: None,
        };
        let mut m = GilbertElliottChannel::build(&spec, &ctx);
        for i in 0..10_000u64 {
            let start = Time(i * 12_000_000);
            let tx = Tx {
                start,
                end: Time(start.0 + 1_000_000),
                bytes: 1500,
                kind: PacketKind::Data,
                seq: 0,
                retx: false,
            };
            let lost = m.is_lost(&tx);
            assert_eq!(lost, m.chain().bad_during(tx.start, tx.end));
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |t: &str| {
            toml::from_str::<GilbertElliottSpec>(t)
                .unwrap()
                .validate()
                .unwrap_err()
                .0
        };
        assert_eq!(bad("t_good = \"0 s\"\nt_bad = \"1 s\""), "t_good");
        assert_eq!(bad("t_good = \"1 s\"\nt_bad = \"0 s\""), "t_bad");
        assert_eq!(
            bad("t_good = \"1 s\"\nt_bad = \"1 s\"\nper_bad = 1.5"),
            "per_bad"
        );
        assert_eq!(
            bad("t_good = \"1 s\"\nt_bad = \"1 s\"\nper_good = -0.1"),
            "per_good"
        );
        let e = toml::from_str::<GilbertElliottSpec>(
            "t_good = \"1 s\"\nt_bad = \"1 s\"\ninitial = \"x\"",
        )
        .unwrap_err();
        assert!(e.message().contains("`good` or `bad`"), "{e}");
    }
}
