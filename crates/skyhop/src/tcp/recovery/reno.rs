//! Tahoe, Reno and NewReno recovery (RFC 5681 section 3.2, RFC 6582).

use super::super::cc::AckSample;
use super::super::seg::DataSeg;
use super::super::sender::TcpSender;
use crate::engine::time::Time;

impl TcpSender {
    /// Tahoe: on the third duplicate ACK retransmit, set cwnd to one segment
    /// and slow-start again from the first unacknowledged byte (go-back-N).
    /// Like ns-2's Tahoe with its bug fix, only once per window (`recover`).
    pub(super) fn tahoe_dupack(&mut self, now: Time, s: &AckSample) {
        if self.dupacks != self.cfg.dupthresh || !self.may_enter_recovery() {
            return;
        }
        self.enter_loss(now, s);
        self.st.cwnd = self.st.mss;
        self.sb.clear();
        self.snd_nxt = self.snd_una;
        // The resend happens in try_send (cwnd = 1 segment); restart the timer.
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Reno and NewReno duplicate ACKs.
    pub(super) fn reno_dupack(&mut self, now: Time, s: &AckSample, out: &mut Vec<DataSeg>) {
        if self.in_recovery {
            // RFC 5681 (3.2) step 4 / RFC 6582 step 3: inflate by one SMSS per
            // additional duplicate ACK; try_send then sends what fits.
            self.st.cwnd += self.st.mss;
            return;
        }
        if self.dupacks != self.cfg.dupthresh {
            return;
        }
        let newreno = matches!(
            self.cfg.variant.recovery,
            super::super::config::RecoveryKind::NewReno { .. }
        );
        // RFC 6582 (3.2) step 2: only if the ACK covers more than `recover`.
        if newreno && !self.may_enter_recovery() {
            return;
        }
        // RFC 5681 (3.2) steps 2-3: ssthresh (controller), retransmit,
        // cwnd = ssthresh + 3*SMSS.
        self.enter_loss(now, s);
        self.in_recovery = true;
        self.retransmit_first(now, out);
        self.st.cwnd += self.cfg.dupthresh as u64 * self.st.mss;
    }

    /// Reno: any new ACK ends fast recovery and deflates the window.
    pub(super) fn reno_new_ack(&mut self) -> bool {
        // RFC 5681 (3.2) step 6: cwnd = ssthresh.
        self.st.cwnd = self.st.ssthresh;
        self.in_recovery = false;
        true
    }

    /// NewReno: full or partial acknowledgement (RFC 6582 section 3.2 steps 5-6).
    pub(super) fn newreno_new_ack(
        &mut self,
        now: Time,
        s: &AckSample,
        impatient: bool,
        out: &mut Vec<DataSeg>,
    ) -> bool {
        let recover = self.recover.unwrap_or(0);
        if self.snd_una >= recover {
            // Full acknowledgement: option (2) of RFC 6582 step 6, cwnd = ssthresh
            // (as ns-2's NewReno; option (1) guards against bursts the drop-tail
            // queue absorbs here).
            self.st.cwnd = self.st.ssthresh;
            self.in_recovery = false;
            return true;
        }
        // Partial acknowledgement: retransmit the first unacknowledged segment,
        // deflate cwnd by the newly acknowledged amount, add back one SMSS if at
        // least one SMSS was acknowledged.
        let seq = self.snd_una;
        let len = self.seg_len_at(seq).max(1);
        self.emit(now, seq, len, false, out);
        if self.snd_nxt < seq + len as u64 {
            self.snd_nxt = seq + len as u64;
        }
        let deflated = self.st.cwnd.saturating_sub(s.acked_bytes);
        let add_back = if s.acked_bytes >= self.st.mss {
            self.st.mss
        } else {
            0
        };
        self.st.cwnd = (deflated + add_back).max(self.st.mss);
        // RFC 6582 section 4: Impatient resets the timer only on the first
        // partial ACK; Slow-but-Steady on every one.
        let first = !self.partial_seen;
        self.partial_seen = true;
        !impatient || first
    }
}
