//! Loss recovery: what the sender (re)transmits after duplicate ACKs and how
//! it leaves recovery. Kept apart from congestion control (`tcp::cc`), as ns-3
//! separates congestion ops from recovery ops: the controller decides how far
//! the window falls (`on_loss`), the recovery decides what goes out.
//!
//! - `reno.rs`: Tahoe, Reno and NewReno (RFC 5681, RFC 6582).
//! - `sack.rs`: RFC 6675 SACK-based recovery.

mod reno;
mod sack;

use super::cc::{AckSample, CongestionOps};
use super::config::RecoveryKind;
use super::seg::DataSeg;
use super::sender::TcpSender;
use crate::engine::time::Time;

impl TcpSender {
    /// A new cumulative ACK. Returns whether the retransmission timer is to be
    /// restarted (RFC 6298 (5.3)); NewReno Impatient declines after the first
    /// partial ACK.
    pub(super) fn on_new_ack(&mut self, now: Time, s: &AckSample, out: &mut Vec<DataSeg>) -> bool {
        if !self.in_recovery {
            self.cc.on_ack(&mut self.st, s);
            return true;
        }
        match self.cfg.variant.recovery {
            RecoveryKind::Tahoe => {
                self.cc.on_ack(&mut self.st, s);
                true
            }
            RecoveryKind::Reno => self.reno_new_ack(),
            RecoveryKind::NewReno { impatient } => self.newreno_new_ack(now, s, impatient, out),
            RecoveryKind::Sack => self.sack_new_ack(now, out),
        }
    }

    /// A duplicate ACK (RFC 5681 section 2 definition).
    pub(super) fn on_dupack(&mut self, now: Time, s: &AckSample, out: &mut Vec<DataSeg>) {
        match self.cfg.variant.recovery {
            RecoveryKind::Tahoe => self.tahoe_dupack(now, s),
            RecoveryKind::Reno | RecoveryKind::NewReno { .. } => self.reno_dupack(now, s, out),
            RecoveryKind::Sack => self.sack_dupack(now, s, out),
        }
    }

    /// Common entry bookkeeping: controller sets ssthresh and base cwnd.
    pub(super) fn enter_loss(&mut self, now: Time, s: &AckSample) {
        self.stats.fast_recoveries += 1;
        self.cc.on_loss(&mut self.st, now, s.flight_bytes);
        self.recover = Some(self.snd_max);
        self.partial_seen = false;
        // Karn (BSD, ns-2): a retransmission ends the current RTT measurement.
        self.timed = None;
    }

    /// Retransmit the first unacknowledged segment and restart the timer, as
    /// BSD and ns-2 do on a fast retransmit.
    pub(super) fn retransmit_first(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        let seq = self.snd_una;
        let len = self.seg_len_at(seq).max(1);
        self.emit(now, seq, len, false, out);
        if self.snd_nxt < seq + len as u64 {
            self.snd_nxt = seq + len as u64;
        }
        self.rto_at = Some(now + self.rtt.rto());
    }
}
