//! Tahoe (RFC 5681 section 3.2, with fast retransmit): on the third
//! duplicate ACK retransmit, set cwnd to one segment and slow-start again
//! from the first unacknowledged byte (go-back-N). Like ns-2's Tahoe with
//! its bug fix, only once per window (`recover`). Never "in recovery": the
//! window grows by slow start at once.

use super::RecoveryOps;
use crate::engine::time::Time;
use crate::tcp::cc::AckSample;
use crate::tcp::seg::DataSeg;
use crate::tcp::send_core::SendCore;

#[derive(Clone, Debug, Default)]
pub struct TahoeRecovery;

impl RecoveryOps for TahoeRecovery {
    fn in_recovery(&self) -> bool {
        false
    }

    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, _out: &mut Vec<DataSeg>) {
        if s.dupacks() != s.config().dupthresh || !s.may_enter_recovery() {
            return;
        }
        s.enter_loss(now, a);
        s.set_cwnd(s.mss());
        s.go_back_n();
        // The resend happens in try_send (cwnd = 1 segment); restart the timer.
        s.restart_rto(now);
    }

    fn on_new_ack(
        &mut self,
        _s: &mut SendCore,
        _now: Time,
        _a: &AckSample,
        _out: &mut Vec<DataSeg>,
    ) -> bool {
        true
    }

    fn on_rto(&mut self, _snd_una: u64) {}
}
