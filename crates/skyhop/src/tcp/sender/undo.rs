//! Spurious timeouts: detecting them and undoing their reduction, as Linux
//! does (`tcp_process_loss`, `tcp_try_undo_loss`,
//! `tcp_undo_cwnd_reduction`) on a sender that keeps its scoreboard across
//! a timeout (RACK).
//!
//! - The Eifel test (R. Ludwig, R. H. Katz, RFC 3522), with timestamps
//!   (RFC 7323): an ACK of new data during a timeout's recovery that echoes
//!   a TSval older than the timeout's first retransmission was caused by an
//!   original transmission: the data was not lost, only late
//!   (Linux's `tcp_packet_delayed`).
//! - F-RTO (P. Sarolahti, M. Kojo, K. Yamamoto, M. Hata, RFC 5682, the
//!   SACK-enhanced algorithm of section 3, as Linux's `tcp_frto = 2`):
//!   after the timeout's retransmission, the first ACK that advances the
//!   window without completing the recovery sends new data instead of more
//!   retransmissions (step 2b); if a later ACK then acknowledges a segment
//!   sent before the timeout and never retransmitted, the timeout was
//!   spurious (step 3b); a duplicate ACK or SACK of the new data means the
//!   loss was real (step 3a).
//!
//! Undoing restores cwnd and ssthresh to what they were before the timeout
//! (each the larger of then and now), forgets the loss marks and leaves the
//! timeout's recovery.

use super::TcpSender;
use crate::engine::time::Time;
use crate::tcp::cc::CongestionOps;
use crate::tcp::recovery::RecoveryOps;
use crate::tcp::seg::{AckSeg, DataSeg};

/// The state of a timeout's loss episode that undoing needs. Laid out in
/// the order written (`repr(C)`): what only a timeout and its undo read
/// first, then what every ACK reads or clears (`end`), beside the sender's
/// per-event fields.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub(crate) struct Undo {
    /// cwnd and ssthresh before the timeout's reduction (`prior_cwnd`,
    /// `prior_ssthresh`).
    prior_cwnd: u64,
    prior_ssthresh: u64,
    /// F-RTO's `high_seq`: new data sent in step 2b lies above it.
    frto_high: u64,
    /// Timeouts found spurious and undone.
    pub undos: u64,
    /// SND.UNA when the episode began (Linux's `undo_marker`); `None`:
    /// nothing to undo.
    marker: Option<u64>,
    /// When the episode's first retransmission left (`retrans_stamp`).
    retrans_stamp: Option<Time>,
    /// SND.UNA at the last timeout (consecutive timeouts without progress).
    pub(super) last_rto_una: Option<u64>,
    /// F-RTO runs for this timeout (`tp->frto`).
    frto: bool,
    /// Step 2b: the next transmission sends new data, not retransmissions.
    pub(super) send_new: bool,
}

impl Undo {
    /// Whether a timeout now repeats the last one with no progress since
    /// (Linux's `icsk_retransmits` not reset by an ACK of new data).
    pub(super) fn repeats(&self, snd_una: u64) -> bool {
        self.last_rto_una == Some(snd_una)
    }

    /// A new loss episode begins at a timeout (`tcp_init_undo`).
    pub(super) fn begin(&mut self, snd_una: u64, prior_cwnd: u64, prior_ssthresh: u64, now: Time) {
        self.marker = Some(snd_una);
        self.prior_cwnd = prior_cwnd;
        self.prior_ssthresh = prior_ssthresh;
        self.retrans_stamp = Some(now);
    }

    /// Arm F-RTO for the timeout just taken, with `high` = SND.MAX.
    pub(super) fn arm_frto(&mut self, on: bool, high: u64) {
        self.frto = on && self.marker.is_some();
        self.frto_high = high;
        self.send_new = false;
    }

    /// The episode is over (recovered, or undone).
    pub(super) fn end(&mut self) {
        self.marker = None;
        self.retrans_stamp = None;
        self.frto = false;
        self.send_new = false;
    }
}

impl TcpSender {
    /// An ACK during a timeout's recovery (Linux's `tcp_process_loss`),
    /// after RACK and the scoreboard took it in and before the recovery
    /// does: undo a spurious timeout, or choose F-RTO's new data.
    pub(super) fn process_loss(&mut self, ack: &AckSeg, acked: u64, is_dupack: bool) {
        if self.undo.marker.is_none() || !self.rec.in_rto_recovery() {
            return;
        }
        let a = ack.ack;
        let recovered = self.core.recover.is_some_and(|r| a >= r);
        // Eifel (RFC 3522): the ACK of new data echoes a transmission from
        // before the first retransmission (Linux's tcp_packet_delayed).
        let delayed = matches!(
            (ack.tsecr, self.undo.retrans_stamp),
            (Some(e), Some(r)) if self.core.cfg.timestamps && e < r
        );
        if acked > 0 && delayed {
            self.undo_loss();
            return;
        }
        if !self.undo.frto {
            return;
        }
        // F-RTO step 3b: an original segment from before the timeout,
        // never retransmitted, was acknowledged or SACKed.
        let high = self.undo.frto_high;
        let orig = self
            .core
            .rack
            .as_deref()
            .and_then(|r| r.orig_delivered_end())
            .is_some_and(|e| e <= high);
        if orig {
            self.undo_loss();
            return;
        }
        if self.core.snd_max > high {
            // Step 3a: new data went out in step 2b; a duplicate ACK or a
            // SACK means the timeout's loss was real.
            if is_dupack || !ack.sack.is_empty() {
                self.undo.frto = false;
            }
        } else if acked > 0 && !recovered {
            // Step 2b: send new data on this ACK, if there is any and the
            // receive window allows; otherwise the conventional recovery.
            let c = &self.core;
            let len = c.seg_len_at(c.snd_max.min(c.app_end)) as u64;
            let room = c.snd_max < c.app_end
                && c.snd_max + len <= c.snd_una.max(a).saturating_add(c.send_window());
            self.undo.frto_high = c.snd_max;
            self.undo.send_new = room;
            self.undo.frto = room;
        }
    }

    /// Undo a spurious timeout (Linux's `tcp_try_undo_loss` with
    /// `tcp_undo_cwnd_reduction(sk, true)`): the window as before, no
    /// segment lost, the recovery left.
    fn undo_loss(&mut self) {
        let (cwnd, ssthresh) = (self.undo.prior_cwnd, self.undo.prior_ssthresh);
        let c = &mut self.core;
        c.cc.on_undo(&mut c.st, cwnd, ssthresh);
        if let Some(r) = c.rack.as_deref_mut() {
            r.unmark_lost();
        }
        self.rec.on_rto(self.core.snd_una);
        self.undo.end();
        self.undo.undos += 1;
    }

    /// F-RTO step 2b's transmission: new data while pipe leaves a segment
    /// of cwnd and the receive window allows. Returns whether anything was
    /// sent; if nothing was, F-RTO gives way to the conventional recovery.
    pub(super) fn frto_send_new(&mut self, now: Time, out: &mut Vec<DataSeg>) -> bool {
        self.undo.send_new = false;
        let before = out.len();
        loop {
            let pipe = self.pipe();
            let c = &mut self.core;
            if c.snd_max >= c.app_end || c.paced(now) {
                break;
            }
            let seq = c.snd_max;
            let len = c.seg_len_at(seq);
            if pipe + len as u64 > c.st.cwnd
                || seq + len as u64 > c.snd_una.saturating_add(c.send_window())
            {
                break;
            }
            c.emit_segment(now, seq, len, out);
        }
        let sent = out.len() > before;
        if !sent {
            self.undo.frto = false;
        }
        sent
    }
}
