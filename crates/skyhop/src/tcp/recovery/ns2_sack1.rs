//! SACK recovery as ns-2's `Agent/TCP/Sack1` runs it (ns-2's tcp-sack1.cc
//! and scoreboard.cc: Fall and Floyd's "Sack1"), the SACK sender of the
//! satellite-3G study's ns-2. Where it differs from RFC 6675 (`sack.rs`):
//!
//! - Only a duplicate ACK whose SACK blocks change the scoreboard counts
//!   (`CheckUpdate`); the third one starts recovery.
//! - `pipe_` is not computed from the scoreboard but counted: at entry the
//!   packets outstanding less the three duplicates (`maxseq_ − highest_ack_
//!   − numdupacks_`; the first retransmission is not added); −1 for every
//!   ACK in recovery, −1 more for a partial ACK; +1 for every segment sent.
//! - While `pipe_` < cwnd: the first hole below the highest SACKed segment
//!   not yet retransmitted in this recovery (no `DupThresh` segments need be
//!   SACKed above it), else new data as the receiver's window allows.
//! - The reduction halves the window in whole segments
//!   (`slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`, as NewReno's); the
//!   full ACK leaves cwnd as it is (`newack`, no `opencwnd`).
//! - A timeout clears the scoreboard and ends recovery (go back N).

use super::ns2_newreno::ns2_halving_basis;
use super::RecoveryOps;
use crate::engine::time::Time;
use crate::tcp::cc::AckSample;
use crate::tcp::seg::DataSeg;
use crate::tcp::send_core::SendCore;

/// ns-2's `Agent/TCP/Sack1`; see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Ns2Sack1Recovery {
    in_recovery: bool,
    /// `pipe_`, bytes (whole segments).
    pipe: u64,
    /// Holes below this were retransmitted in this recovery.
    high_rxt: u64,
    /// Duplicate ACKs that changed the scoreboard since the last new ACK.
    dupacks: u32,
}

impl Ns2Sack1Recovery {
    /// `pipe_` in bytes (tests).
    pub fn pipe(&self) -> u64 {
        self.pipe
    }

    fn send(&mut self, s: &mut SendCore, now: Time, seq: u64, len: u32, out: &mut Vec<DataSeg>) {
        s.emit_segment(now, seq, len, out);
        self.pipe += s.mss();
    }
}

impl RecoveryOps for Ns2Sack1Recovery {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if self.in_recovery {
            // --pipe_ for every ACK in fast recovery.
            self.pipe = self.pipe.saturating_sub(s.mss());
            return;
        }
        if a.sacked_bytes == 0 {
            return; // the scoreboard did not change: not counted
        }
        self.dupacks += 1;
        if self.dupacks != s.config().dupthresh || !s.may_enter_recovery() {
            return;
        }
        // dupack_action: pipe_ = maxseq_ - highest_ack_ - numdupacks_, the
        // window halved, the first hole resent (not counted in pipe_).
        let mss = s.mss();
        self.pipe = s.flight().saturating_sub(s.config().dupthresh as u64 * mss);
        let halved = AckSample {
            flight_bytes: ns2_halving_basis(s, s.cwnd()),
            ..*a
        };
        s.enter_loss(now, &halved);
        self.in_recovery = true;
        let seq = s.snd_una();
        let len = s.seg_len_at(seq).max(1);
        s.retransmit_first(now, out);
        self.high_rxt = seq + len as u64;
    }

    fn on_new_ack(
        &mut self,
        s: &mut SendCore,
        now: Time,
        _a: &AckSample,
        _out: &mut Vec<DataSeg>,
    ) -> bool {
        let mss = s.mss();
        // --pipe_ for every ACK in fast recovery.
        self.pipe = self.pipe.saturating_sub(mss);
        if s.recover().is_some_and(|r| s.snd_una() >= r) {
            // Fast recovery is over: cwnd as it is.
            self.in_recovery = false;
            s.exit_recovery(now);
            return true;
        }
        // A partial ACK: --pipe_ once more, the timer restarted.
        self.pipe = self.pipe.saturating_sub(mss);
        true
    }

    /// send_much in fast recovery: while pipe_ < cwnd, the next hole not
    /// yet resent, else new data within the receiver's window.
    fn transmit(&mut self, s: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) -> bool {
        let mut guard = 0;
        while self.pipe + s.mss() <= s.cwnd() && guard < 1 << 20 {
            guard += 1;
            let from = self.high_rxt.max(s.snd_una());
            if let Some((g0, g1)) = s.scoreboard().first_gap_from(from) {
                let len = (g1 - g0).min(s.mss()).min(s.seg_len_at(g0) as u64) as u32;
                self.send(s, now, g0, len, out);
                self.high_rxt = g0 + len as u64;
                continue;
            }
            let seq = s.snd_nxt().max(s.snd_max());
            if seq < s.app_end() {
                let len = s.seg_len_at(seq);
                if seq + len as u64 <= s.snd_una().saturating_add(s.send_window()) {
                    self.send(s, now, seq, len, out);
                    continue;
                }
            }
            break;
        }
        true
    }

    fn on_cum_ack(&mut self, ack: u64) {
        self.high_rxt = self.high_rxt.max(ack);
        self.dupacks = 0;
    }

    /// A timeout halves cwnd in whole segments (Sack1 has no inflation).
    fn timeout_basis(&self, s: &SendCore, _flight: u64) -> u64 {
        ns2_halving_basis(s, s.cwnd())
    }

    fn on_rto(&mut self, snd_una: u64) {
        self.in_recovery = false;
        self.pipe = 0;
        self.dupacks = 0;
        self.high_rxt = snd_una;
    }
}
