//! Adaptive Coding and Modulation on the DVB-S forward link, after
//! N. Celandroni, E. Ferro, G. Giambene, M. Marandola, "Satellite-3G Hybrid
//! Networks: Impact of ACM and ARQ on TCP Performance" (2007): two modes,
//! both with the Reed–Solomon (204,188) outer code,
//!
//! | mode | modulation, inner code | channel rate | information rate | max FER |
//! |---|---|---|---|---|
//! | HBW (for the GOOD state) | QPSK 3/4 | 2.048 Mb/s | 1.416 Mb/s | 1e-5 |
//! | LBW (for the BAD state)  | BPSK 1/2 | 1.024 Mb/s | 0.472 Mb/s | 1e-4 |
//!
//! (information rate = channel rate × 188/204 × code rate). The link sends
//! frames at the information rate of the *mode in use*, whatever the channel
//! state. The receiver estimates the channel over a CQE time and reports it
//! back over the return path; the sender switches when the report arrives.
//! Frame loss by (mode in use, channel state while the frame is sent):
//!
//! - channel GOOD: `fer_good` in either mode (LBW is the more robust mode;
//!   we do not make it better than the GOOD figure of the table);
//! - channel BAD, LBW: `fer_bad` (settable: the study raises it);
//! - channel BAD, HBW: lost (the misalignment after a GOOD→BAD change: every
//!   frame sent in HBW while the channel is BAD is lost until the switch).
//!
//! After a BAD→GOOD change frames go on at the low rate, without loss, until
//! the report arrives.

use crate::channel::gilbert_elliott::GilbertElliott;
use crate::engine::time::{Dur, Time};

/// A transmission mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// High bandwidth: QPSK 3/4, meant for the GOOD state.
    Hbw,
    /// Low bandwidth: BPSK 1/2, the most robust mode.
    Lbw,
}

/// How the sender chooses its mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcmPolicy {
    /// Follow the receiver's channel reports.
    Acm,
    FixedHbw,
    FixedLbw,
}

impl AcmPolicy {
    pub fn parse(s: &str) -> Option<AcmPolicy> {
        match s {
            "acm" => Some(AcmPolicy::Acm),
            "fixed-hbw" => Some(AcmPolicy::FixedHbw),
            "fixed-lbw" => Some(AcmPolicy::FixedLbw),
            _ => None,
        }
    }
    /// The mode at time zero: ACM starts aligned with the channel.
    pub fn initial_mode(self, channel_bad: bool) -> Mode {
        match self {
            AcmPolicy::Acm if channel_bad => Mode::Lbw,
            AcmPolicy::Acm => Mode::Hbw,
            AcmPolicy::FixedHbw => Mode::Hbw,
            AcmPolicy::FixedLbw => Mode::Lbw,
        }
    }
}

/// Frame error rates of the two channel states.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameErrors {
    pub fer_good: f64,
    pub fer_bad: f64,
}

impl FrameErrors {
    /// Probability that a frame sent in `mode` while the channel is BAD
    /// (`bad`) at some instant of its transmission is lost.
    #[inline]
    pub fn loss_probability(&self, mode: Mode, bad: bool) -> f64 {
        match (bad, mode) {
            (false, _) => self.fer_good,
            (true, Mode::Lbw) => self.fer_bad,
            (true, Mode::Hbw) => 1.0,
        }
    }
}

/// Information rates of the two modes, and the transmission time of one
/// 188-byte frame in each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModeRates {
    pub hbw_bps: u64,
    pub lbw_bps: u64,
}

impl ModeRates {
    #[inline]
    pub fn rate(&self, m: Mode) -> u64 {
        match m {
            Mode::Hbw => self.hbw_bps,
            Mode::Lbw => self.lbw_bps,
        }
    }
    #[inline]
    pub fn frame_time(&self, m: Mode) -> Dur {
        Dur::transmission(super::framing::TS_FRAME_BYTES as u64, self.rate(m))
    }
    /// Long-run mean information rate of an ideally aligned ACM link whose
    /// channel is BAD a fraction `bad` of the time.
    pub fn mean_rate(&self, bad: f64) -> f64 {
        (1.0 - bad) * self.hbw_bps as f64 + bad * self.lbw_bps as f64
    }
}

/// The receiver's channel-quality estimates: one report per change of the
/// channel state, ready to leave the receiver `delay + cqe` after the
/// change (the frames that see the change reach the receiver one forward
/// propagation delay after they were sent; the estimate then takes the CQE
/// time). The report carries the new state. The reports read the switches
/// of the channel in order through a cursor of their own over the same
/// trajectory (so neither cursor keeps the switches between them).
pub struct CqeReports {
    /// Index of the next switch of the chain to report.
    next: u64,
    /// Forward propagation delay plus the CQE time.
    lag: Dur,
    chain: GilbertElliott,
}

impl CqeReports {
    /// Reports of the changes of `chain` (a cursor of its own: a clone).
    pub fn new(forward_delay: Dur, cqe: Dur, chain: &GilbertElliott) -> CqeReports {
        CqeReports {
            next: 0,
            lag: Dur(forward_delay.0 + cqe.0),
            chain: chain.clone(),
        }
    }

    /// The next report: when it leaves the receiver and the state it
    /// reports (true = BAD). Does not consume it.
    pub fn peek(&mut self) -> (Time, bool) {
        let s = self.chain.switch(self.next);
        // After switch k (from 0) the state is the initial one flipped k+1 times.
        let bad = self.chain.initial_bad() ^ self.next.is_multiple_of(2);
        (s + self.lag, bad)
    }

    pub fn advance(&mut self) {
        self.next += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::RngStream;

    #[test]
    fn the_table_gives_a_mean_of_1_180_mbps_for_6_s_and_2_s() {
        let r = ModeRates {
            hbw_bps: 1_416_000,
            lbw_bps: 472_000,
        };
        assert!((r.mean_rate(2.0 / 8.0) - 1_180_000.0).abs() < 1e-6);
        // One frame: 1504 bits at 1.416 Mb/s and 0.472 Mb/s.
        assert_eq!(r.frame_time(Mode::Hbw), Dur::transmission(188, 1_416_000));
        assert_eq!(r.frame_time(Mode::Lbw).0, 3_186_441);
    }

    #[test]
    fn misaligned_hbw_frames_are_lost_in_bad_and_lbw_ones_see_fer_bad() {
        let e = FrameErrors {
            fer_good: 1e-5,
            fer_bad: 1e-4,
        };
        assert_eq!(e.loss_probability(Mode::Hbw, true), 1.0);
        assert_eq!(e.loss_probability(Mode::Lbw, true), 1e-4);
        assert_eq!(e.loss_probability(Mode::Hbw, false), 1e-5);
        assert_eq!(e.loss_probability(Mode::Lbw, false), 1e-5);
    }

    #[test]
    fn reports_follow_each_switch_by_the_delay_plus_the_cqe_time() {
        let mut chain = GilbertElliott::new(6.0, 2.0, Some(false), RngStream::derive(4, "ge"));
        let mut rep = CqeReports::new(Dur::from_millis(250), Dur::from_millis(50), &chain);
        let mut by_index = chain.clone();
        for k in 0..6 {
            let (t, bad) = rep.peek();
            let s = by_index.switch(k);
            assert_eq!(t, s + Dur::from_millis(300));
            assert_eq!(
                bad,
                k.is_multiple_of(2),
                "GOOD first, so the first switch is to BAD"
            );
            assert_eq!(chain.state_at(s), bad);
            rep.advance();
        }
    }
}
