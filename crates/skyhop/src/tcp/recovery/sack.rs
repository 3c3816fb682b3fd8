//! SACK-based loss recovery, RFC 6675: IsLost(), SetPipe(), NextSeg() and
//! transmission step (C) over the sender's scoreboard.
//!
//! With RACK (RFC 8985, `tcp::rack`) the sender's RACK state says which
//! segments are lost instead of IsLost()'s DupThresh rule: recovery starts
//! when RACK marks a loss (RFC 8985 section 6.2 step 4 keeps DupThresh's
//! speed when no reordering is seen), NextSeg() rule (1) resends the first
//! segment RACK marked lost and not resent since (so a lost
//! retransmission is resent), SetPipe() counts RACK's lost and resent
//! segments, and rules (3) and (4) give way to the tail loss probe
//! (RFC 8985 section 7), as in Linux. A timeout keeps the scoreboard and
//! runs an RTO recovery: step (C) from the loss window, which grows by
//! slow start (RFC 5681) on every new cumulative ACK.

use super::RecoveryOps;
use crate::engine::time::Time;
use crate::tcp::cc::AckSample;
use crate::tcp::seg::DataSeg;
use crate::tcp::send_core::SendCore;

/// Which NextSeg() rule chose a segment (RFC 6675 section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextRule {
    Lost,
    NewData,
    Unsacked,
    Rescue,
}

#[derive(Clone, Debug, Default)]
pub struct SackRecovery {
    in_recovery: bool,
    /// RFC 6675 HighRxt, as one past the highest byte retransmitted.
    high_rxt: u64,
    /// RFC 6675 RescueRxt.
    rescue_rxt: Option<u64>,
    /// The recovery is a timeout's (RTO recovery with the scoreboard kept).
    rto_recovery: bool,
}

impl SackRecovery {
    /// RFC 6675 IsLost(seq): DupThresh discontiguous SACKed ranges above
    /// `seq`, or more than (DupThresh - 1) * SMSS bytes SACKed above it.
    pub fn is_lost(s: &SendCore, seq: u64) -> bool {
        if let Some(r) = s.rack() {
            return r.is_lost(seq);
        }
        let dupthresh = s.config().dupthresh;
        let blocks_above = s.scoreboard().count_ranges_above(seq) as u32;
        blocks_above >= dupthresh
            || s.scoreboard().bytes_above(seq + 1) > (dupthresh as u64 - 1) * s.mss()
    }

    /// RFC 6675 SetPipe(): for every unSACKed byte in [HighACK, HighData),
    /// count 1 if not lost and 1 more if it was retransmitted (below HighRxt).
    ///
    /// Lost-ness is the same for every byte of one hole (judged at its first
    /// byte) and can only be false for a hole with fewer than DupThresh
    /// SACKed ranges above it, so only the top DupThresh − 1 holes and the
    /// tail above the highest SACK need a look; the retransmitted part is
    /// the unSACKed span below HighRxt. O(DupThresh + log n) per call, for
    /// scoreboards of thousands of holes.
    pub fn set_pipe(&self, s: &SendCore) -> u64 {
        if let Some(r) = s.rack() {
            return r.pipe(s.snd_una(), s.snd_max(), s.scoreboard().bytes());
        }
        let (una, max) = (s.snd_una(), s.snd_max());
        if max <= una {
            return 0;
        }
        let sb = s.scoreboard();
        let n = sb.len();
        let dupthresh = s.config().dupthresh as usize;
        let mss = s.mss();
        let mut pipe = 0;
        // Not-lost holes: hole i lies below range i (i = 0..n), above
        // max(HighACK, end of range i - 1); hole n is the tail. Where hole i
        // is not empty, the SACKed ranges above its first byte are ranges
        // i..n: IsLost() needs their count (n - i) and bytes, summed from
        // the top down over the top DupThresh ranges.
        let first_candidate = (n + 1).saturating_sub(dupthresh);
        let (mut i, mut upper, mut above) = (n, max, 0u64);
        let mut hole = |i: usize, lo: u64, upper: u64, above: u64| {
            if upper > lo {
                let lost = (n - i) >= dupthresh || above > (dupthresh as u64 - 1) * mss;
                debug_assert_eq!(lost, Self::is_lost(s, lo));
                if !lost {
                    pipe += upper - lo;
                }
            }
        };
        sb.for_last(n.min(dupthresh), |a, b| {
            hole(i, b.max(una), upper, above);
            above += b - a;
            upper = a.min(max);
            i -= 1;
        });
        if i == 0 && first_candidate == 0 {
            hole(0, una, upper, above);
        }
        // Retransmitted: unSACKed bytes in [HighACK, min(HighRxt, HighData)).
        let x = self.high_rxt.min(max);
        if x > una {
            let sacked = sb.bytes_above(una) - sb.bytes_above(x);
            pipe += (x - una) - sacked;
        }
        pipe
    }

    /// SetPipe() by walking every hole (the definition; tests compare).
    #[cfg(test)]
    pub(crate) fn set_pipe_walk(&self, s: &SendCore) -> u64 {
        let mut pipe = 0;
        let mut prev = s.snd_una();
        let high_rxt = self.high_rxt;
        let mut visit = |g0: u64, g1: u64| {
            if g1 <= g0 {
                return;
            }
            if !Self::is_lost(s, g0) {
                pipe += g1 - g0;
            }
            let rx_end = high_rxt.min(g1);
            if rx_end > g0 {
                pipe += rx_end - g0;
            }
        };
        for (a, b) in s.scoreboard().iter() {
            if a > prev {
                visit(prev, a.min(s.snd_max()));
            }
            prev = prev.max(b);
        }
        visit(prev, s.snd_max());
        pipe
    }

    /// RFC 6675 NextSeg(): the next segment to send during recovery.
    pub fn next_seg(&self, s: &SendCore) -> Option<(u64, u32, NextRule)> {
        let mss = s.mss();
        if let Some(r) = s.rack() {
            // Rule (1) with RACK: the first segment marked lost and not
            // retransmitted since, below HighRxt or not.
            if let Some((x, e)) = r.first_lost() {
                return Some((x, (e - x).min(mss) as u32, NextRule::Lost));
            }
            return Self::new_data(s);
        }
        let from = self.high_rxt.max(s.snd_una());
        let hole = s.scoreboard().first_gap_from(from);
        // Rule (1): the first unSACKed byte above HighRxt that IsLost().
        if let Some((g0, g1)) = hole {
            if Self::is_lost(s, g0) {
                return Some((g0, (g1 - g0).min(mss) as u32, NextRule::Lost));
            }
        }
        if let Some(n) = Self::new_data(s) {
            return Some(n);
        }
        // Rule (3): an unSACKed byte above HighRxt below the highest SACK, not yet lost.
        if let Some((g0, g1)) = hole {
            return Some((g0, (g1 - g0).min(mss) as u32, NextRule::Unsacked));
        }
        // Rule (4): one rescue retransmission per recovery, of the highest
        // outstanding unSACKed segment.
        if self.rescue_rxt.is_none_or(|r| s.snd_una() > r) {
            let top_sacked = s.scoreboard().last().map_or(s.snd_una(), |r| r.1);
            let top = if s.snd_max() > top_sacked {
                s.snd_max()
            } else {
                // The highest hole below the top SACK block.
                let n = s.scoreboard().len();
                let top = s.scoreboard().last().map_or(0, |r| r.0);
                if n >= 2 || (n == 1 && top > s.snd_una()) {
                    top
                } else {
                    return None;
                }
            };
            if top > s.snd_una() {
                let len = (top - s.snd_una()).min(mss);
                return Some((top - len, len as u32, NextRule::Rescue));
            }
        }
        None
    }

    /// NextSeg() rule (2): new data, if the receive window allows. A split
    /// proxy's cap on unacknowledged bytes (`max_unacked`) binds like the
    /// window, as it does outside recovery (`window()`); cwnd is governed by pipe.
    fn new_data(s: &SendCore) -> Option<(u64, u32, NextRule)> {
        if s.snd_max() < s.app_end() {
            let len = s.seg_len_at(s.snd_max()) as u64;
            let wnd = s.send_window();
            if s.snd_max() + len <= s.snd_una().saturating_add(wnd) {
                return Some((s.snd_max(), len as u32, NextRule::NewData));
            }
        }
        None
    }

    /// RFC 6675 section 5 steps (4.1)-(4.3): enter recovery and retransmit
    /// the first segment presumed lost.
    fn enter(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        // (4.1) RecoveryPoint = HighData; (4.2) ssthresh = cwnd = FlightSize / 2 (controller).
        s.enter_loss(now, a);
        self.in_recovery = true;
        self.rto_recovery = false;
        self.rescue_rxt = None;
        // (4.3) Retransmit the first segment presumed dropped; HighRxt to its end.
        let (seq, len) = match s.rack().and_then(|r| r.first_lost()) {
            Some((x, e)) => (x, (e - x).min(s.mss()) as u32),
            None => {
                let seq = s.snd_una();
                let first_sacked = s.scoreboard().first().map_or(u64::MAX, |r| r.0);
                let len = (s.seg_len_at(seq) as u64)
                    .min(first_sacked.saturating_sub(seq))
                    .max(1) as u32;
                (seq, len)
            }
        };
        s.emit_segment(now, seq, len, out);
        self.high_rxt = self.high_rxt.max(seq + len as u64);
        s.raise_snd_nxt(self.high_rxt);
        s.restart_rto(now);
        // (4.4)-(4.5) SetPipe and step (C) run from try_send.
    }
}

impl RecoveryOps for SackRecovery {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// A duplicate ACK with SACK: enter recovery on the DupThresh-th one or
    /// when IsLost(HighACK + 1) (RFC 6675 section 5, steps 3-4).
    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if self.in_recovery || s.rack().is_some() {
            // Step (C) runs from try_send; with RACK, its loss marks start
            // the recovery (on_rack_loss), not the duplicate-ACK count.
            return;
        }
        let trigger = s.dupacks() >= s.config().dupthresh || Self::is_lost(s, s.snd_una());
        if !trigger || !s.may_enter_recovery() {
            return;
        }
        self.high_rxt = s.snd_una();
        self.enter(s, now, a, out);
    }

    fn on_rack_loss(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if !self.in_recovery {
            self.enter(s, now, a, out);
        }
    }

    /// The recovery is a timeout's (the scoreboard kept, with RACK).
    fn in_rto_recovery(&self) -> bool {
        self.in_recovery && self.rto_recovery
    }

    fn on_rto_keep_sack(&mut self, s: &mut SendCore, _now: Time) -> bool {
        self.in_recovery = true;
        self.rto_recovery = true;
        self.high_rxt = s.snd_una();
        self.rescue_rxt = None;
        true
    }

    /// A cumulative ACK during SACK recovery: leave at RecoveryPoint.
    fn on_new_ack(
        &mut self,
        s: &mut SendCore,
        now: Time,
        a: &AckSample,
        _out: &mut Vec<DataSeg>,
    ) -> bool {
        if self.rto_recovery {
            // RTO recovery: the loss window grows by slow start (RFC 5681 (3.1)).
            s.grow_window(a);
        }
        if let Some(r) = s.recover() {
            if s.snd_una() >= r {
                self.in_recovery = false;
                self.rto_recovery = false;
                s.exit_recovery(now);
            }
        }
        true
    }

    /// RFC 6675 step (C): while cwnd - pipe >= 1 SMSS, send NextSeg().
    fn transmit(&mut self, s: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) -> bool {
        let mut pipe = self.set_pipe(s);
        let mut guard = 0;
        while s.cwnd() >= pipe + s.mss() {
            if s.paced(now) {
                // A pacing controller (BBR): the pacing timer sends the rest.
                break;
            }
            let Some((seq, len, rule)) = self.next_seg(s) else {
                break;
            };
            let end = seq + len as u64;
            let below_high_data = seq < s.snd_max();
            s.emit_segment(now, seq, len, out);
            if seq == s.snd_una() && s.rack().is_some() {
                // With RACK, resending the first unacknowledged segment (a
                // lost retransmission of it, found by RACK) restarts the
                // retransmission timer, as Linux's tcp_xmit_retransmit_queue
                // does: the RTO stays the last resort behind RACK.
                s.restart_rto(now);
            }
            // (C.2) HighRxt, unless rule (4) chose the segment.
            if below_high_data {
                if rule == NextRule::Rescue {
                    self.rescue_rxt = s.recover();
                } else if end > self.high_rxt {
                    self.high_rxt = end;
                }
            }
            // (C.3) HighData was advanced by emit(); keep snd_nxt with it.
            s.raise_snd_nxt(s.snd_max());
            // (C.4)
            pipe += len as u64;
            guard += 1;
            if guard > 1 << 20 {
                break;
            }
        }
        true
    }

    fn on_cum_ack(&mut self, ack: u64) {
        if self.high_rxt < ack {
            self.high_rxt = ack;
        }
    }

    fn on_rto(&mut self, snd_una: u64) {
        self.in_recovery = false;
        self.rto_recovery = false;
        self.high_rxt = snd_una;
        self.rescue_rxt = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::RngStream;
    use crate::tcp::{new_sender, TcpConfig, Variant};

    #[test]
    fn set_pipe_agrees_with_the_hole_by_hole_definition_on_random_scoreboards() {
        let mut rng = RngStream::derive(7, "set_pipe");
        for case in 0..2000 {
            let cfg = TcpConfig {
                variant: Variant::parse("sack").unwrap(),
                mss: 1000,
                ..TcpConfig::default()
            };
            let mut s = new_sender(cfg).core;
            let una = (rng.uniform() * 5000.0) as u64;
            let span = 1 + (rng.uniform() * 40_000.0) as u64;
            s.snd_una = una;
            s.snd_max = una + span;
            for _ in 0..(rng.uniform() * 12.0) as u32 {
                let a = una + 1 + (rng.uniform() * span as f64) as u64;
                let b = (a + 1 + (rng.uniform() * 3000.0) as u64).min(una + span);
                if a < b {
                    s.sb.insert(a, b);
                }
            }
            let r = SackRecovery {
                in_recovery: true,
                high_rxt: una + (rng.uniform() * (span + 2000) as f64) as u64,
                rescue_rxt: None,
                rto_recovery: false,
            };
            assert_eq!(
                r.set_pipe(&s),
                r.set_pipe_walk(&s),
                "case {case}: {:?}",
                s.sb
            );
        }
    }
}
