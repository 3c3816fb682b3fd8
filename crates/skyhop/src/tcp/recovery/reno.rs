//! Reno and NewReno recovery (RFC 5681 section 3.2, RFC 6582).

use super::RecoveryOps;
use crate::engine::time::Time;
use crate::tcp::cc::AckSample;
use crate::tcp::seg::DataSeg;
use crate::tcp::send_core::SendCore;

/// Reno duplicate ACKs: enter on the DupThresh-th one (once per window with
/// NewReno), inflate by one SMSS per further one. Shared by both.
fn reno_dupack(
    in_recovery: &mut bool,
    guard_recover: bool,
    s: &mut SendCore,
    now: Time,
    a: &AckSample,
    out: &mut Vec<DataSeg>,
) -> bool {
    if *in_recovery {
        // RFC 5681 (3.2) step 4 / RFC 6582 step 3: inflate by one SMSS per
        // additional duplicate ACK; try_send then sends what fits.
        s.set_cwnd(s.cwnd() + s.mss());
        return false;
    }
    if s.dupacks() != s.config().dupthresh {
        return false;
    }
    // RFC 6582 (3.2) step 2: only if the ACK covers more than `recover`.
    if guard_recover && !s.may_enter_recovery() {
        return false;
    }
    // RFC 5681 (3.2) steps 2-3: ssthresh (controller), retransmit,
    // cwnd = ssthresh + 3*SMSS.
    s.enter_loss(now, a);
    *in_recovery = true;
    s.retransmit_first(now, out);
    s.set_cwnd(s.cwnd() + s.config().dupthresh as u64 * s.mss());
    true
}

/// Reno: any new ACK ends fast recovery and deflates the window.
#[derive(Clone, Debug, Default)]
pub struct RenoRecovery {
    in_recovery: bool,
}

impl RecoveryOps for RenoRecovery {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        reno_dupack(&mut self.in_recovery, false, s, now, a, out);
    }
    fn on_new_ack(
        &mut self,
        s: &mut SendCore,
        now: Time,
        _a: &AckSample,
        _out: &mut Vec<DataSeg>,
    ) -> bool {
        // RFC 5681 (3.2) step 6: cwnd = ssthresh.
        s.set_cwnd(s.ssthresh());
        self.in_recovery = false;
        s.exit_recovery(now);
        true
    }
    fn on_rto(&mut self, _snd_una: u64) {
        self.in_recovery = false;
    }
}

/// NewReno: full or partial acknowledgement (RFC 6582 section 3.2 steps 5-6).
/// `impatient`: the RTO is reset only on the first partial ACK (RFC 6582
/// section 4); otherwise (Slow-but-Steady) on every one.
#[derive(Clone, Debug)]
pub struct NewRenoRecovery {
    impatient: bool,
    in_recovery: bool,
    /// The first partial ACK of this recovery was seen.
    partial_seen: bool,
}

impl NewRenoRecovery {
    pub fn new(impatient: bool) -> Self {
        NewRenoRecovery {
            impatient,
            in_recovery: false,
            partial_seen: false,
        }
    }
}

impl RecoveryOps for NewRenoRecovery {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if reno_dupack(&mut self.in_recovery, true, s, now, a, out) {
            self.partial_seen = false;
        }
    }
    fn on_new_ack(
        &mut self,
        s: &mut SendCore,
        now: Time,
        a: &AckSample,
        out: &mut Vec<DataSeg>,
    ) -> bool {
        let recover = s.recover().unwrap_or(0);
        if s.snd_una() >= recover {
            // Full acknowledgement: option (2) of RFC 6582 step 6, cwnd = ssthresh
            // (as ns-2's NewReno; option (1) guards against bursts the drop-tail
            // queue absorbs here).
            s.set_cwnd(s.ssthresh());
            self.in_recovery = false;
            s.exit_recovery(now);
            return true;
        }
        // Partial acknowledgement: retransmit the first unacknowledged segment,
        // deflate cwnd by the newly acknowledged amount, add back one SMSS if at
        // least one SMSS was acknowledged.
        let seq = s.snd_una();
        let len = s.seg_len_at(seq).max(1);
        s.emit_segment(now, seq, len, out);
        let deflated = s.cwnd().saturating_sub(a.acked_bytes);
        let add_back = if a.acked_bytes >= s.mss() { s.mss() } else { 0 };
        s.set_cwnd((deflated + add_back).max(s.mss()));
        // RFC 6582 section 4: Impatient resets the timer only on the first
        // partial ACK; Slow-but-Steady on every one.
        let first = !self.partial_seen;
        self.partial_seen = true;
        !self.impatient || first
    }
    fn on_rto(&mut self, _snd_una: u64) {
        self.in_recovery = false;
        self.partial_seen = false;
    }
}
