//! NewReno as ns-2's `Agent/TCP/Newreno` runs it (ns-2's tcp-newreno.cc
//! over tcp-reno.cc and tcp.cc), the recovery of the NewReno and Westwood
//! (NewReno) senders the published studies simulated.
//!
//! ns-2 keeps the congestion window `cwnd_` apart from the fast-recovery
//! inflation `dupwnd_` (in segments) and sends while the next segment is
//! within `cwnd_ + dupwnd_` of the cumulative ACK; here the sender's cwnd
//! is that sum, and the recovery keeps the two parts (`base` and `dupwnd`).
//! Where it differs from RFC 6582 (`reno.rs`):
//!
//! - The reduction halves the window in whole segments,
//!   ⌊min(⌊cwnd_⌋, wnd_) / 2⌋ (`slowdown(CLOSE_SSTHRESH_HALF |
//!   CLOSE_CWND_HALF)` with `precisionReduce_` false, the default until
//!   2006-01-24), not FlightSize; a timeout halves `cwnd_` without the
//!   inflation (Reno's `timeout` clears `dupwnd_` first).
//! - A partial ACK without partial window deflation
//!   (`partial_window_deflation_` 0, the default until 2003-05-05) ends
//!   the inflation: `dupwnd_` = 0, so the window falls back to `cwnd_` and
//!   the sender waits for new duplicate ACKs to inflate it again. With
//!   deflation, `dupwnd_` falls by the segments acknowledged less one
//!   (below one, `cwnd_` gives the rest), as RFC 6582.
//! - The timer restarts on every partial ACK (Slow-but-Steady,
//!   `newreno_changes1_` 0, the default until 2003-05-05) or on the
//!   first only (Impatient).
//! - While duplicate ACKs are counted, at most two segments go out per ACK
//!   (`send_much(0, 0, 2)`).
//! - The full ACK leaves `cwnd_` as it is (what the controller set at entry,
//!   less any deflation; not ssthresh) and grows it as any new ACK does
//!   (`recv_newack_helper` calls `opencwnd`).
//! - Without `exitFastRetrans_` (ns-2 before 2003-07-28) the third
//!   duplicate ACK sets `dupwnd_` = 3 and each further one adds one even
//!   when `dupack_action` refuses the fast retransmit (`bug_fix_`: the ACK
//!   is within the window of a timeout or an earlier recovery): the
//!   window is inflated, nothing is resent and ssthresh is kept, until the
//!   next new ACK clears `dupwnd_` (the last window action was not a fast
//!   retransmit). Here that is a stale inflation the recovery holds
//!   (`in_recovery()` true, so a timeout halves `cwnd_` without it).

use super::RecoveryOps;
use crate::engine::time::Time;
use crate::tcp::cc::AckSample;
use crate::tcp::seg::DataSeg;
use crate::tcp::send_core::SendCore;

/// Segments ns-2's NewReno sends per ACK while it counts duplicate ACKs.
const RECOVERY_BURST: u32 = 2;

/// ns-2's `Agent/TCP/Newreno`; see the module documentation.
#[derive(Clone, Debug)]
pub struct Ns2NewRenoRecovery {
    /// `newreno_changes1_`: restart the timer on the first partial ACK only.
    impatient: bool,
    /// `partial_window_deflation_`.
    deflate: bool,
    /// `exitFastRetrans_`.
    exit_fast_retrans: bool,
    in_recovery: bool,
    /// A refused fast retransmit's inflation (without `exitFastRetrans_`).
    stale: bool,
    partial_seen: bool,
    /// ns-2's `cwnd_` during recovery, bytes.
    base: u64,
    /// ns-2's `dupwnd_`, segments.
    dupwnd: u64,
}

impl Ns2NewRenoRecovery {
    /// `impatient`: `newreno_changes1_`; `deflate`: `partial_window_deflation_`.
    pub fn new(impatient: bool, deflate: bool) -> Self {
        Ns2NewRenoRecovery {
            impatient,
            deflate,
            exit_fast_retrans: true,
            in_recovery: false,
            stale: false,
            partial_seen: false,
            base: 0,
            dupwnd: 0,
        }
    }

    /// `exitFastRetrans_` (true unless set: ns-2's default from 2003-07-28).
    pub fn exit_fast_retrans(mut self, on: bool) -> Self {
        self.exit_fast_retrans = on;
        self
    }

    fn set_window(&self, s: &mut SendCore) {
        s.set_cwnd(self.base + self.dupwnd * s.mss());
    }
}

/// What ns-2 halves, as a reduction basis: `slowdown` sets ssthresh (and
/// cwnd_) to ⌊W / 2⌋ segments, W = min(⌊cwnd⌋, ⌊wnd_⌋) in segments; a
/// controller that halves its basis (RFC 5681's rule) then gives exactly
/// that. `wnd_` is what the receiver (or a proxy) allows.
pub fn ns2_halving_basis(s: &SendCore, cwnd: u64) -> u64 {
    let mss = s.mss();
    let w = (cwnd / mss).min(s.send_window() / mss);
    2 * (w / 2) * mss
}

impl RecoveryOps for Ns2NewRenoRecovery {
    fn in_recovery(&self) -> bool {
        self.in_recovery || self.stale
    }

    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if self.in_recovery || self.stale {
            // ++dupwnd_: fast recovery's inflation (or, without
            // exitFastRetrans_, a refused one's).
            self.dupwnd += 1;
            self.set_window(s);
            return;
        }
        if s.dupacks() != s.config().dupthresh {
            return;
        }
        if !s.may_enter_recovery() {
            // bug_fix_: within the window of an earlier recovery or timeout,
            // no fast retransmit; without exitFastRetrans_ dupwnd_ = 3 all
            // the same.
            if !self.exit_fast_retrans {
                self.base = s.cwnd();
                self.dupwnd = s.config().dupthresh as u64;
                self.stale = true;
                self.set_window(s);
            }
            return;
        }
        // dupack_action: recover_ = maxseq_, the controller's reduction of
        // the halved window, reset_rtx_timer(1, 0), resend from the top.
        let halved = AckSample {
            flight_bytes: ns2_halving_basis(s, s.cwnd()),
            ..*a
        };
        s.enter_loss(now, &halved);
        self.base = s.cwnd();
        self.dupwnd = s.config().dupthresh as u64;
        self.in_recovery = true;
        self.partial_seen = false;
        s.retransmit_first(now, out);
        self.set_window(s);
    }

    fn on_new_ack(
        &mut self,
        s: &mut SendCore,
        now: Time,
        a: &AckSample,
        out: &mut Vec<DataSeg>,
    ) -> bool {
        if self.stale {
            // The next new ACK clears a refused fast retransmit's dupwnd_
            // (the last window action was not one), then opencwnd.
            self.stale = false;
            self.dupwnd = 0;
            self.set_window(s);
            s.grow_window(a);
            return true;
        }
        if s.snd_una() >= s.recover().unwrap_or(0) {
            // Full ACK: dupwnd_ = 0, cwnd_ as it is, then opencwnd.
            self.dupwnd = 0;
            self.in_recovery = false;
            self.set_window(s);
            s.exit_recovery(now);
            s.grow_window(a);
            return true;
        }
        // Partial ACK: deflate or not, restart the timer (per the flavour),
        // resend the first unacknowledged segment.
        let mss = s.mss();
        let acked = a.acked_bytes.div_ceil(mss);
        if !self.deflate {
            self.dupwnd = 0;
        } else if self.dupwnd > acked {
            self.dupwnd -= acked - 1;
        } else {
            self.base = self
                .base
                .saturating_sub((acked - self.dupwnd) * mss)
                .max(mss);
            self.dupwnd = 1;
        }
        self.set_window(s);
        let seq = s.snd_una();
        let len = s.seg_len_at(seq).max(1);
        s.emit_segment(now, seq, len, out);
        let first = !self.partial_seen;
        self.partial_seen = true;
        !self.impatient || first
    }

    /// ns-2 sends at most two segments per ACK in fast recovery.
    fn transmit(&mut self, s: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) -> bool {
        let limit = s.snd_una().saturating_add(s.window());
        for _ in 0..RECOVERY_BURST {
            let seq = s.snd_nxt();
            if seq >= s.app_end() {
                break;
            }
            let len = s.seg_len_at(seq);
            if seq + len as u64 > limit {
                break;
            }
            s.emit_segment(now, seq, len, out);
        }
        true
    }

    /// A timeout halves `cwnd_` without the inflation (Reno's `timeout`
    /// clears `dupwnd_` before `slowdown`).
    fn timeout_basis(&self, s: &SendCore, _flight: u64) -> u64 {
        let cwnd = if self.in_recovery {
            self.base
        } else {
            s.cwnd()
        };
        ns2_halving_basis(s, cwnd)
    }

    fn on_rto(&mut self, _snd_una: u64) {
        self.in_recovery = false;
        self.stale = false;
        self.partial_seen = false;
        self.dupwnd = 0;
    }
}
