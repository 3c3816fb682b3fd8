//! AeroTCP's super fast error control (Y. Shang, "Transport Protocol and
//! Flow Control for IP-Based Broadband Aeronautical Satellite Networks",
//! M.S. thesis, University of Maryland, College Park, 2007).
//!
//! On the satellite leg every loss is corruption and nothing is reordered,
//! so the first duplicate ACK already proves a loss. Recovery:
//!
//! - starts on the FIRST duplicate ACK: the first hole is retransmitted and
//!   `pipe` is set to cwnd; the window is not reduced;
//! - `pipe` then counts +1 segment for every packet sent or re-sent, −1 for
//!   every duplicate ACK whose SACK blocks report new data, −2 for every
//!   partial ACK (the original and its retransmission have both left);
//! - while `pipe < cwnd`: the next hole of the SACK scoreboard not yet
//!   re-sent (any unSACKed byte below the highest SACKed one: FIFO, no
//!   reordering), else new data as the receive window allows;
//! - ends when a cumulative ACK covers everything outstanding at entry;
//! - a lost retransmission is caught by a fine-grained retransmission timer
//!   (SRTT + 4 RTTVAR, without the coarse timer's 1 s floor); after such a
//!   timeout two copies of the segment are sent.
//!
//! Rules derived where the bookkeeping leaves a choice (checked against the
//! study's two worked examples, `tcp/tests/aero.rs`):
//!
//! 1. The duplicate ACK that starts recovery is not counted and the first
//!    retransmission not added: `pipe = cwnd` *after* it (one packet left,
//!    one entered). Counting both would also give cwnd; counting only the
//!    retransmission would hold back the second hole by one ACK, which the
//!    traces do not show.
//! 2. "−1 per duplicate ACK with new SACK data" is applied per newly SACKed
//!    segment (bytes, rounded up to segments): the same when no ACK is lost,
//!    and it keeps `pipe` honest when the lossy return link drops ACKs.
//! 3. A partial ACK subtracts 2 segments, plus any segments it newly SACKs.
//! 4. The pipe is kept in bytes (segments x MSS), never below zero.

use super::RecoveryOps;
use crate::engine::time::{Dur, Time};
use crate::tcp::cc::AckSample;
use crate::tcp::seg::DataSeg;
use crate::tcp::send_core::SendCore;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct AeroRecovery {
    in_recovery: bool,
    /// Estimated segments in the network, in bytes.
    pipe: u64,
    /// One past the highest byte retransmitted from the scoreboard's holes.
    high_rxt: u64,
    /// Retransmissions awaiting their ACK: (first byte, length, sent at),
    /// in send order (so the front has the earliest deadline).
    rexmits: VecDeque<(u64, u32, Time)>,
    /// Fine-grained timeouts taken (for tests and statistics).
    pub fine_timeouts: u64,
}

impl AeroRecovery {
    /// The current `pipe` in bytes (tests).
    pub fn pipe(&self) -> u64 {
        self.pipe
    }

    /// The fine-grained retransmission timeout: SRTT + 4 RTTVAR (at least
    /// the clock granularity), or the coarse RTO before any sample.
    fn fine_rto(s: &SendCore) -> Dur {
        match s.rtt().srtt() {
            Some(srtt) => {
                srtt + Dur(s
                    .rtt()
                    .rttvar()
                    .0
                    .saturating_mul(4)
                    .max(s.config().clock_granularity.0))
            }
            None => s.rtt().rto(),
        }
    }

    /// Forget retransmissions that were acknowledged (cumulatively or by SACK).
    fn prune(&mut self, s: &SendCore) {
        self.rexmits.retain(|&(seq, len, _)| {
            let end = seq + len as u64;
            end > s.snd_una() && !(s.scoreboard().contains(seq) && s.scoreboard().contains(end - 1))
        });
    }

    /// Arm the sender's timer at the earliest fine-grained deadline, if it
    /// comes before the coarse one.
    fn arm(&mut self, s: &mut SendCore, now: Time) {
        self.prune(s);
        if let Some(&(_, _, t)) = self.rexmits.front() {
            let at = (t + Self::fine_rto(s)).max(now);
            s.rto_no_later_than(at);
        }
    }

    fn send(&mut self, s: &mut SendCore, now: Time, seq: u64, len: u32, out: &mut Vec<DataSeg>) {
        let retx = seq < s.snd_max();
        s.emit_segment(now, seq, len, out);
        s.raise_snd_nxt(s.snd_max());
        if retx {
            self.rexmits.push_back((seq, len, now));
        }
        self.pipe += s.mss();
    }

    /// The first hole at or above `high_rxt` below the highest SACKed byte.
    fn next_hole(&self, s: &SendCore) -> Option<(u64, u32)> {
        let from = self.high_rxt.max(s.snd_una());
        s.scoreboard().first_gap_from(from).map(|(g0, g1)| {
            (
                g0,
                (g1 - g0).min(s.mss()).min(s.seg_len_at(g0) as u64) as u32,
            )
        })
    }

    fn segments(bytes: u64, mss: u64) -> u64 {
        bytes.div_ceil(mss) * mss
    }
}

impl RecoveryOps for AeroRecovery {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if self.in_recovery {
            // Rule 2: one segment out of the pipe per newly SACKed segment.
            self.pipe = self
                .pipe
                .saturating_sub(Self::segments(a.sacked_bytes, s.mss()));
            return; // transmit() runs from try_send.
        }
        if !s.may_enter_recovery() {
            return;
        }
        // The first duplicate ACK: enter; the window stays (controller).
        s.enter_loss(now, a);
        self.in_recovery = true;
        self.rexmits.clear();
        let seq = s.snd_una();
        let first_sacked = s.scoreboard().first().map_or(u64::MAX, |r| r.0);
        let len = (s.seg_len_at(seq) as u64)
            .min(first_sacked.saturating_sub(seq))
            .max(1) as u32;
        self.send(s, now, seq, len, out);
        self.high_rxt = seq + len as u64;
        // Rule 1: pipe = cwnd once the first hole is re-sent.
        self.pipe = s.cwnd();
        s.restart_rto(now);
        self.arm(s, now);
    }

    fn on_new_ack(
        &mut self,
        s: &mut SendCore,
        now: Time,
        a: &AckSample,
        _out: &mut Vec<DataSeg>,
    ) -> bool {
        if s.recover().is_some_and(|r| s.snd_una() >= r) {
            self.in_recovery = false;
            self.rexmits.clear();
            s.exit_recovery(now);
            return true;
        }
        // Rule 3: a partial ACK: the original and its retransmission left.
        let out_of_pipe = 2 * s.mss() + Self::segments(a.sacked_bytes, s.mss());
        self.pipe = self.pipe.saturating_sub(out_of_pipe);
        true
    }

    /// While pipe < cwnd: the next hole, else new data within the receive window.
    fn transmit(&mut self, s: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) -> bool {
        let mut guard = 0;
        while self.pipe + s.mss() <= s.cwnd() && guard < 1 << 20 {
            guard += 1;
            if let Some((seq, len)) = self.next_hole(s) {
                self.send(s, now, seq, len, out);
                self.high_rxt = self.high_rxt.max(seq + len as u64);
                continue;
            }
            if s.snd_max() < s.app_end() {
                let len = s.seg_len_at(s.snd_max());
                let wnd = s.send_window();
                if s.snd_max() + len as u64 <= s.snd_una().saturating_add(wnd) {
                    let seq = s.snd_max();
                    self.send(s, now, seq, len, out);
                    continue;
                }
            }
            break;
        }
        self.arm(s, now);
        true
    }

    fn on_cum_ack(&mut self, ack: u64) {
        if self.high_rxt < ack {
            self.high_rxt = ack;
        }
    }

    /// The sender's timer fired during recovery: if a retransmission is
    /// overdue by the fine-grained timeout, send two copies of it.
    fn on_timer_in_recovery(
        &mut self,
        s: &mut SendCore,
        now: Time,
        out: &mut Vec<DataSeg>,
    ) -> bool {
        self.prune(s);
        let fine = Self::fine_rto(s);
        let Some(&(seq, len, t)) = self.rexmits.front() else {
            return false;
        };
        if t + fine > now {
            return false;
        }
        self.rexmits.pop_front();
        self.fine_timeouts += 1;
        self.send(s, now, seq, len, out);
        self.send(s, now, seq, len, out);
        // The second copy is already queued; keep one timer entry for both.
        self.rexmits.pop_back();
        s.restart_rto(now);
        self.arm(s, now);
        true
    }

    fn on_rto(&mut self, snd_una: u64) {
        self.in_recovery = false;
        self.high_rxt = snd_una;
        self.rexmits.clear();
        self.pipe = 0;
    }
}
