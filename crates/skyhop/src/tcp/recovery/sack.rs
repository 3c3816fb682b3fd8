//! SACK-based loss recovery, RFC 6675: scoreboard, IsLost(), SetPipe(),
//! NextSeg() and transmission step (C).

use super::super::cc::AckSample;
use super::super::seg::DataSeg;
use super::super::sender::TcpSender;
use crate::engine::time::Time;

/// Which NextSeg() rule chose a segment (RFC 6675 section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NextRule {
    Lost,
    NewData,
    Unsacked,
    Rescue,
}

impl TcpSender {
    /// RFC 6675 IsLost(seq): DupThresh discontiguous SACKed ranges above
    /// `seq`, or more than (DupThresh - 1) * SMSS bytes SACKed above it.
    pub(crate) fn is_lost(&self, seq: u64) -> bool {
        let blocks_above = self.sb.as_slice().iter().filter(|r| r.0 > seq).count() as u32;
        blocks_above >= self.cfg.dupthresh
            || self.sb.bytes_above(seq + 1) > (self.cfg.dupthresh as u64 - 1) * self.st.mss
    }

    /// RFC 6675 SetPipe(): for every unSACKed byte in [HighACK, HighData),
    /// count 1 if not lost and 1 more if it was retransmitted (below HighRxt).
    /// Lost-ness is the same for every byte of one hole, so this walks holes.
    pub(crate) fn set_pipe(&self) -> u64 {
        let mut pipe = 0;
        let mut prev = self.snd_una;
        let mut visit = |g0: u64, g1: u64, s: &TcpSender| {
            if g1 <= g0 {
                return;
            }
            if !s.is_lost(g0) {
                pipe += g1 - g0;
            }
            let rx_end = s.high_rxt.min(g1);
            if rx_end > g0 {
                pipe += rx_end - g0;
            }
        };
        for &(a, b) in self.sb.as_slice() {
            if a > prev {
                visit(prev, a.min(self.snd_max), self);
            }
            prev = prev.max(b);
        }
        visit(prev, self.snd_max, self);
        pipe
    }

    /// RFC 6675 NextSeg(): the next segment to send during recovery.
    pub(crate) fn next_seg(&self) -> Option<(u64, u32, NextRule)> {
        let mss = self.st.mss;
        let from = self.high_rxt.max(self.snd_una);
        let hole = self.sb.first_gap_from(from);
        // Rule (1): the first unSACKed byte above HighRxt that IsLost().
        if let Some((g0, g1)) = hole {
            if self.is_lost(g0) {
                return Some((g0, (g1 - g0).min(mss) as u32, NextRule::Lost));
            }
        }
        // Rule (2): new data, if the receive window allows. A split proxy's
        // cap on unacknowledged bytes (`max_unacked`) binds like the window,
        // as it does outside recovery (`window()`); cwnd is governed by pipe.
        if self.snd_max < self.app_end {
            let len = self.seg_len_at(self.snd_max) as u64;
            let wnd = self
                .cfg
                .max_unacked
                .map_or(self.rwnd, |cap| cap.min(self.rwnd));
            if self.snd_max + len <= self.snd_una.saturating_add(wnd) {
                return Some((self.snd_max, len as u32, NextRule::NewData));
            }
        }
        // Rule (3): an unSACKed byte above HighRxt below the highest SACK, not yet lost.
        if let Some((g0, g1)) = hole {
            return Some((g0, (g1 - g0).min(mss) as u32, NextRule::Unsacked));
        }
        // Rule (4): one rescue retransmission per recovery, of the highest
        // outstanding unSACKed segment.
        if self.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            let top_sacked = self.sb.last().map_or(self.snd_una, |r| r.1);
            let top = if self.snd_max > top_sacked {
                self.snd_max
            } else {
                // The highest hole below the top SACK block.
                let v = self.sb.as_slice();
                if v.len() >= 2 {
                    v[v.len() - 1].0
                } else if v.len() == 1 && v[0].0 > self.snd_una {
                    v[0].0
                } else {
                    return None;
                }
            };
            if top > self.snd_una {
                let len = (top - self.snd_una).min(mss);
                return Some((top - len, len as u32, NextRule::Rescue));
            }
        }
        None
    }

    /// RFC 6675 step (C): while cwnd - pipe >= 1 SMSS, send NextSeg().
    pub(crate) fn sack_transmit(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        let mut pipe = self.set_pipe();
        let mut guard = 0;
        while self.st.cwnd >= pipe + self.st.mss {
            let Some((seq, len, rule)) = self.next_seg() else {
                break;
            };
            let end = seq + len as u64;
            let below_high_data = seq < self.snd_max;
            self.emit(now, seq, len, false, out);
            // (C.2) HighRxt, unless rule (4) chose the segment.
            if below_high_data {
                if rule == NextRule::Rescue {
                    self.rescue_rxt = self.recover;
                } else if end > self.high_rxt {
                    self.high_rxt = end;
                }
            }
            // (C.3) HighData was advanced by emit(); keep snd_nxt with it.
            if self.snd_nxt < self.snd_max {
                self.snd_nxt = self.snd_max;
            }
            // (C.4)
            pipe += len as u64;
            guard += 1;
            if guard > 1 << 20 {
                break;
            }
        }
    }

    /// A duplicate ACK with SACK: enter recovery on the DupThresh-th one or
    /// when IsLost(HighACK + 1) (RFC 6675 section 5, steps 3-4).
    pub(super) fn sack_dupack(&mut self, now: Time, s: &AckSample, out: &mut Vec<DataSeg>) {
        if self.in_recovery {
            // Step (C) runs from try_send.
            return;
        }
        let trigger = self.dupacks >= self.cfg.dupthresh || self.is_lost(self.snd_una);
        if !trigger || !self.may_enter_recovery() {
            return;
        }
        // (4.1) RecoveryPoint = HighData; (4.2) ssthresh = cwnd = FlightSize / 2 (controller).
        self.enter_loss(now, s);
        self.in_recovery = true;
        self.rescue_rxt = None;
        // (4.3) Retransmit the first segment presumed dropped; HighRxt to its end.
        let seq = self.snd_una;
        let first_sacked = self.sb.first().map_or(u64::MAX, |r| r.0);
        let len = (self.seg_len_at(seq) as u64)
            .min(first_sacked.saturating_sub(seq))
            .max(1) as u32;
        self.emit(now, seq, len, false, out);
        self.high_rxt = seq + len as u64;
        if self.snd_nxt < self.high_rxt {
            self.snd_nxt = self.high_rxt;
        }
        self.rto_at = Some(now + self.rtt.rto());
        // (4.4)-(4.5) SetPipe and step (C) run from try_send.
    }

    /// A cumulative ACK during SACK recovery: leave at RecoveryPoint.
    pub(super) fn sack_new_ack(&mut self, _now: Time, _out: &mut Vec<DataSeg>) -> bool {
        if let Some(r) = self.recover {
            if self.snd_una >= r {
                self.in_recovery = false;
            }
        }
        true
    }
}
