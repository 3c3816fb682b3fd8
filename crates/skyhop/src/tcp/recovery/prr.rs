//! Proportional Rate Reduction, RFC 6937 (M. Mathis, N. Dukkipati,
//! Y. Cheng, 2013), with the Slow Start Reduction Bound (PRR-SSRB, the
//! RFC's recommended bound and Linux's), over RFC 6675 SACK recovery.
//!
//! PRR decides *how much* to send on each ACK during recovery; RFC 6675
//! (the scoreboard, SetPipe() and NextSeg() of `sack.rs`) decides *what*.
//! Entry (the retransmission of the first lost segment, RecoveryPoint,
//! ssthresh from the controller) and exit are RFC 6675's; PRR adds, per
//! RFC 6937 section 3.1:
//!
//! ```text
//! on entering recovery: prr_delivered = 0, prr_out = 0, RecoverFS = snd.nxt - snd.una
//! on every ACK in recovery:
//!   DeliveredData = change_in(snd.una) + change_in(SACKd)
//!   prr_delivered += DeliveredData
//!   if pipe > ssthresh: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
//!   else:               sndcnt = MIN(ssthresh - pipe,
//!                                    MAX(prr_delivered - prr_out, DeliveredData) + MSS)
//!   cwnd = pipe + sndcnt
//! on any (re)transmission: prr_out += data sent
//! at the end of recovery: cwnd = ssthresh
//! ```
//!
//! The entering ACK is an ACK in recovery (its DeliveredData counts, as in
//! the RFC's examples and Linux), and the fast retransmission counts in prr_out.

use super::sack::SackRecovery;
use super::RecoveryOps;
use crate::engine::time::Time;
use crate::tcp::cc::AckSample;
use crate::tcp::seg::DataSeg;
use crate::tcp::send_core::SendCore;

#[derive(Clone, Debug, Default)]
pub struct PrrRecovery {
    sack: SackRecovery,
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    /// Bytes PRR allows to send in response to the latest ACK and not sent yet.
    sndcnt: u64,
    /// SACKed bytes above snd.una after the previous ACK (for change_in(SACKd)).
    sacked: u64,
}

impl PrrRecovery {
    pub fn prr_delivered(&self) -> u64 {
        self.prr_delivered
    }
    pub fn prr_out(&self) -> u64 {
        self.prr_out
    }
    pub fn recover_fs(&self) -> u64 {
        self.recover_fs
    }
    /// RFC 6675 SetPipe() over the sender's scoreboard.
    pub fn set_pipe(&self, s: &SendCore) -> u64 {
        self.sack.set_pipe(s)
    }

    /// RFC 6937 section 3.1, per ACK in recovery: DeliveredData, then
    /// sndcnt. `already_sent`: bytes sent on this ACK before (the fast
    /// retransmission), not yet in pipe as the RFC computes it.
    ///
    /// Quantities are bytes, but a sender sends whole segments, and the RFC's
    /// examples (section 6) count in segments: the proportional part is
    /// rounded up to whole segments, CEIL(prr_delivered * ssthresh /
    /// (RecoverFS * SMSS)) * SMSS, as Linux computes it in packets. With
    /// full segments this is the RFC's formula exactly.
    fn on_ack_in_recovery(&mut self, s: &SendCore, a: &AckSample, already_sent: u64) {
        let sacked_now = s.scoreboard().bytes();
        let delivered = (a.acked_bytes + sacked_now).saturating_sub(self.sacked);
        self.sacked = sacked_now;
        self.prr_delivered += delivered;
        let pipe = self.sack.set_pipe(s).saturating_sub(already_sent);
        let ssthresh = s.ssthresh();
        let mss = s.mss();
        let sndcnt = if pipe > ssthresh {
            // Proportional Rate Reduction.
            let num = self.prr_delivered as u128 * ssthresh as u128;
            let d = self.recover_fs.max(1) as u128 * mss as u128;
            ((num.div_ceil(d) as u64) * mss).saturating_sub(self.prr_out)
        } else {
            // Slow Start Reduction Bound.
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(delivered)
                + s.mss();
            (ssthresh - pipe).min(limit)
        };
        self.sndcnt = sndcnt;
    }

    fn count_sent(&mut self, out: &[DataSeg], before: usize) -> u64 {
        let sent: u64 = out[before..].iter().map(|d| d.len as u64).sum();
        self.prr_out += sent;
        sent
    }

    /// Recovery begins (the fast retransmission is sent by `start`).
    fn begin(
        &mut self,
        s: &mut SendCore,
        a: &AckSample,
        out: &mut Vec<DataSeg>,
        start: impl FnOnce(&mut SackRecovery, &mut SendCore, &mut Vec<DataSeg>),
    ) {
        // RecoverFS = snd.nxt - snd.una before the fast retransmission.
        let recover_fs = s.snd_max() - s.snd_una();
        // SACKed bytes before this ACK: the ACK's own count as delivered.
        let sacked_before = s.scoreboard().bytes().saturating_sub(a.sacked_bytes);
        let before = out.len();
        start(&mut self.sack, s, out);
        if !self.sack.in_recovery() {
            return;
        }
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.recover_fs = recover_fs;
        self.sacked = sacked_before;
        // The fast retransmission is PRR output of this ACK, sent whatever
        // sndcnt says (RFC 6675 (4.3)); RFC 6937 counts it in prr_out.
        let sent: u64 = out[before..].iter().map(|d| d.len as u64).sum();
        self.on_ack_in_recovery(s, a, sent);
        self.prr_out += sent;
        self.sndcnt = self.sndcnt.saturating_sub(sent);
    }
}

impl RecoveryOps for PrrRecovery {
    fn in_recovery(&self) -> bool {
        self.sack.in_recovery()
    }

    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if self.sack.in_rto_recovery() {
            // A timeout's recovery is RFC 6675's alone (PRR is for fast recovery).
            return;
        }
        if self.sack.in_recovery() {
            self.on_ack_in_recovery(s, a, 0);
            return;
        }
        self.begin(s, a, out, |sack, s, out| sack.on_dupack(s, now, a, out));
    }

    fn on_rack_loss(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if !self.sack.in_recovery() {
            self.begin(s, a, out, |sack, s, out| sack.on_rack_loss(s, now, a, out));
        }
    }

    fn in_rto_recovery(&self) -> bool {
        self.sack.in_rto_recovery()
    }

    fn on_rto_keep_sack(&mut self, s: &mut SendCore, now: Time) -> bool {
        self.sndcnt = 0;
        self.sack.on_rto_keep_sack(s, now)
    }

    fn on_new_ack(
        &mut self,
        s: &mut SendCore,
        now: Time,
        a: &AckSample,
        out: &mut Vec<DataSeg>,
    ) -> bool {
        if self.sack.in_rto_recovery() {
            return self.sack.on_new_ack(s, now, a, out);
        }
        if s.recover().is_some_and(|r| s.snd_una() >= r) {
            // RFC 6937 section 3.1: at the end of recovery cwnd = ssthresh.
            s.set_cwnd(s.ssthresh());
            self.sndcnt = 0;
            return self.sack.on_new_ack(s, now, a, out);
        }
        self.on_ack_in_recovery(s, a, 0);
        self.sack.on_new_ack(s, now, a, out)
    }

    /// Send up to sndcnt bytes, chosen by NextSeg(): cwnd = pipe + sndcnt
    /// for RFC 6675 step (C).
    fn transmit(&mut self, s: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) -> bool {
        if self.sack.in_rto_recovery() {
            return self.sack.transmit(s, now, out);
        }
        let pipe = self.sack.set_pipe(s);
        s.set_cwnd(pipe + self.sndcnt);
        let before = out.len();
        self.sack.transmit(s, now, out);
        let sent = self.count_sent(out, before);
        self.sndcnt = self.sndcnt.saturating_sub(sent);
        true
    }

    fn on_cum_ack(&mut self, ack: u64) {
        self.sack.on_cum_ack(ack);
    }

    fn on_rto(&mut self, snd_una: u64) {
        self.sack.on_rto(snd_una);
        self.sndcnt = 0;
    }
}
