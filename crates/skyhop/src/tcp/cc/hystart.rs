//! HyStart++, RFC 9406 (P. Balasubramanian, Y. Huang, M. Olson, 2023):
//! leave slow start when the round trip starts to grow, before the queue
//! overflows, through a Conservative Slow Start (CSS) that grows a quarter
//! as fast and goes back to slow start if the rise was spurious. Section
//! numbers are the RFC's; the constants are its section 4.3 values.
//!
//! A controller (CUBIC here) asks [`HyStart::on_ack`] for each ACK of its
//! slow start how much to grow; HyStart++ runs for the initial slow start
//! only (section 4.2: ssthresh still at its initial value) and needs an RTT
//! sample on most ACKs (timestamps, `tcp.timestamps`): with one sample per
//! round trip it never gathers N_RTT_SAMPLE samples in a round and slow
//! start runs as usual.

use super::{AckSample, CcState};
use crate::engine::time::Dur;

/// Section 4.3: MIN_RTT_THRESH.
pub(super) const MIN_RTT_THRESH: Dur = Dur::from_millis(4);
/// Section 4.3: MAX_RTT_THRESH.
pub(super) const MAX_RTT_THRESH: Dur = Dur::from_millis(16);
/// Section 4.3: MIN_RTT_DIVISOR.
pub(super) const MIN_RTT_DIVISOR: u64 = 8;
/// Section 4.3: N_RTT_SAMPLE.
pub(super) const N_RTT_SAMPLE: u32 = 8;
/// Section 4.3: CSS_GROWTH_DIVISOR.
pub(super) const CSS_GROWTH_DIVISOR: u64 = 4;
/// Section 4.3: CSS_ROUNDS.
pub(super) const CSS_ROUNDS: u32 = 5;
/// Section 4.3: L, the growth cap per ACK in segments, without pacing.
pub(super) const L_UNPACED: u64 = 8;

/// Where HyStart++ is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    /// Conservative Slow Start, with the rounds it has lasted.
    Css(u32),
    /// Done: congestion avoidance (or a loss ended the initial slow start).
    Off,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    phase: Phase,
    /// The growth cap per ACK, in segments (L).
    l: u64,
    last_round_min_rtt: Option<Dur>,
    current_round_min_rtt: Option<Dur>,
    css_baseline_min_rtt: Option<Dur>,
    rtt_sample_count: u32,
    /// The round ends when the cumulative ACK reaches this (SND.NXT when it began).
    window_end: Option<u64>,
    /// Bytes cumulatively acknowledged so far (the controller's SND.UNA).
    una: u64,
}

impl HyStart {
    /// `paced`: the sender paces (L is then unlimited, section 4.3).
    pub fn new(paced: bool) -> HyStart {
        HyStart {
            phase: Phase::SlowStart,
            l: if paced { u64::MAX / 4 } else { L_UNPACED },
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            css_baseline_min_rtt: None,
            rtt_sample_count: 0,
            window_end: None,
            una: 0,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The initial slow start ended (a loss, a timeout): HyStart++ is done.
    pub fn stop(&mut self) {
        self.phase = Phase::Off;
    }

    /// One ACK in slow start (`s.cwnd < s.ssthresh`), delivering `n` bytes:
    /// grows cwnd as HyStart++ says (section 4.2) and returns true; false
    /// when HyStart++ is off (the caller grows as usual).
    pub fn on_ack(&mut self, s: &mut CcState, a: &AckSample, n: u64) -> bool {
        if self.phase == Phase::Off {
            return false;
        }
        // The round: SND.NXT when it began is the cumulative ACK before
        // this one plus what was in flight.
        let una_before = self.una;
        self.una += a.acked_bytes;
        let round_start = self.window_end.is_none_or(|e| self.una > e);
        if round_start {
            self.window_end = Some(una_before + a.flight_bytes);
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = None;
            self.rtt_sample_count = 0;
            if let Phase::Css(k) = self.phase {
                if k + 1 >= CSS_ROUNDS {
                    // CSS_ROUNDS rounds of CSS: congestion avoidance.
                    s.ssthresh = s.cwnd;
                    self.phase = Phase::Off;
                    return true;
                }
                self.phase = Phase::Css(k + 1);
            }
        }
        if let Some(r) = a.rtt_sample {
            self.current_round_min_rtt = Some(self.current_round_min_rtt.map_or(r, |m| m.min(r)));
            self.rtt_sample_count += 1;
        }
        let inc = n.min(self.l.saturating_mul(s.mss));
        let enough = self.rtt_sample_count >= N_RTT_SAMPLE;
        match self.phase {
            Phase::SlowStart => {
                s.cwnd += inc;
                if let (true, Some(cur), Some(last)) =
                    (enough, self.current_round_min_rtt, self.last_round_min_rtt)
                {
                    let thresh =
                        Dur(last.0 / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                    if cur >= last + thresh {
                        // The delay rose: Conservative Slow Start.
                        self.css_baseline_min_rtt = Some(cur);
                        self.phase = Phase::Css(0);
                    }
                }
            }
            Phase::Css(_) => {
                s.cwnd += inc / CSS_GROWTH_DIVISOR;
                if let (true, Some(cur), Some(base)) = (
                    enough,
                    self.current_round_min_rtt,
                    self.css_baseline_min_rtt,
                ) {
                    if cur < base {
                        // The rise was spurious: back to slow start.
                        self.css_baseline_min_rtt = None;
                        self.phase = Phase::SlowStart;
                    }
                }
            }
            Phase::Off => unreachable!(),
        }
        true
    }
}
