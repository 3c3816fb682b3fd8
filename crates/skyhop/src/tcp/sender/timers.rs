//! The sender's timers: the retransmission timeout (RFC 6298, RFC 5681
//! (5), with the scoreboard kept as Linux does under RACK), the persist
//! timer (RFC 1122 4.2.2.17), RACK-TLP's reordering and probe timers (RFC
//! 8985) and the pacing timer.

use super::TcpSender;
use crate::engine::time::{Dur, Time};
use crate::tcp::cc::{AckSample, CongestionOps};
use crate::tcp::rack::{LossTimer, Rack};
use crate::tcp::recovery::RecoveryOps;
use crate::tcp::seg::DataSeg;
use crate::tcp::tlp;

impl TcpSender {
    pub(super) fn take_timers(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        if let Some(t) = self.core.pace_at {
            if now >= t {
                self.core.pace_at = None;
                let max_before = self.core.snd_max;
                self.try_send(now, out);
                if self.core.rack.is_some() && self.core.snd_max > max_before {
                    self.arm_loss_probe(now, true);
                }
            }
        }
        if let Some(t) = self.persist_at {
            if now >= t {
                self.persist_fire(now, out);
            }
        }
        if let Some((t, kind)) = self.core.rack.as_deref().and_then(Rack::timer) {
            if now >= t {
                self.loss_timer_fire(now, kind, out);
            }
        }
        if let Some(t) = self.core.rto_at {
            if now >= t {
                self.rto_fire(now, out);
            }
        }
    }

    pub(super) fn persist_interval(&self) -> Dur {
        let mult = 1u64 << self.persist_backoff.min(16);
        Dur(self.core.rtt.rto().0.saturating_mul(mult)).min(self.core.cfg.rto_max)
    }

    fn persist_fire(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        self.persist_at = None;
        if self.core.rwnd > 0 && self.core.snd_nxt == self.core.snd_una {
            // The window is open again; just send.
            self.persist_backoff = 0;
            let before = out.len();
            self.try_send(now, out);
            if out.len() > before {
                return;
            }
            // The window is open but smaller than the next segment, and the
            // update that would widen it may have been lost: probe it, or the
            // connection could stall for good (RFC 1122 4.2.2.17; BSD's
            // persist timer forces output whatever the window).
            self.persist_at = None;
        }
        if self.core.snd_una < self.core.app_end {
            // Probe with one byte: the first unacknowledged one, or the next new one.
            // snd_nxt stays at snd_una, as BSD tcp_output pulls it back while the
            // window is zero: a probe byte the receiver drops goes out again as the
            // first byte of the next segment when the window opens (RFC 9293
            // 3.8.6.1). Advancing it would leave a one-byte hole in the stream.
            let seq = self.core.snd_una;
            self.core.emit(now, seq, 1, true, out);
            self.persist_backoff += 1;
            self.persist_at = Some(now + self.persist_interval());
        }
    }

    /// The retransmission timer fired: RFC 6298 (5.4)-(5.6) with RFC 5681
    /// (5)'s loss window, unless the recovery owns the timer.
    ///
    /// Without RACK, the SACK scoreboard is discarded (RFC 2018 section 8)
    /// and the sender goes back N. With RACK, as Linux (`tcp_enter_loss`)
    /// and ns-3 do, and RFC 6675 section 5.1 allows, the scoreboard is kept:
    /// SACKed segments are not resent, the unSACKed ones are marked lost
    /// (RACK judges the recently sent later) and retransmitted, first the
    /// earliest (RFC 6298 (5.4)), then by RFC 6675 step (C) as the loss
    /// window opens (RTO recovery, until RecoveryPoint = HighData now is
    /// acknowledged); a timeout during a recovery keeps that recovery's
    /// ssthresh (Linux reduces it once per window of data).
    fn rto_fire(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        self.core.rto_at = None;
        if !self.hs.established() {
            // The SYN (or its SYN-ACK) was lost.
            self.stats.timeouts += 1;
            self.hs.on_rto(&mut self.core, now, out);
            return;
        }
        if self.core.snd_una == self.core.snd_max {
            return;
        }
        if self.rec.in_recovery() && self.rec.on_timer_in_recovery(&mut self.core, now, out) {
            // A recovery-owned (fine-grained) timer, not a timeout.
            return;
        }
        self.stats.timeouts += 1;
        let in_recovery = self.rec.in_recovery();
        let flight = self.flight();
        let keep_sack = self.core.rack.is_some();
        let repeats = self.undo.repeats(self.core.snd_una);
        // With the scoreboard kept, Linux's tcp_enter_loss: a new reduction
        // (ssthresh from the controller, the undo state saved) unless the
        // timeout falls in a fast recovery, or repeats a timeout with no
        // progress since; F-RTO for a timeout outside a recovery or a
        // repeated one.
        let basis = self.rec.timeout_basis(&self.core, flight);
        let in_fast = in_recovery && !self.rec.in_rto_recovery();
        let reduce = !keep_sack || !(in_fast || (in_recovery && repeats));
        let frto = keep_sack && self.core.cfg.frto && (!in_recovery || repeats);
        let c = &mut self.core;
        let (cwnd, ssthresh) = (c.st.cwnd, c.st.ssthresh);
        // RFC 5681 (5) via the controller: ssthresh and cwnd = loss window
        // (from cwnd, not FlightSize, when the window is validated: Linux;
        // from what the recovery says otherwise: ns-2's halved window).
        c.cc.on_rto(&mut c.st, now, basis);
        if !reduce {
            c.st.ssthresh = ssthresh;
        } else if keep_sack {
            // tcp_init_undo with tcp_current_ssthresh: max(ssthresh, 3/4 cwnd)
            // outside a window reduction.
            let prior_ssthresh = if in_recovery {
                ssthresh
            } else {
                ssthresh.max(cwnd / 2 + cwnd / 4)
            };
            self.undo.begin(c.snd_una, cwnd, prior_ssthresh, now);
        }
        self.undo.last_rto_una = Some(c.snd_una);
        self.undo.arm_frto(frto, c.snd_max);
        let c = &mut self.core;
        // RFC 6298 (5.5): back off the timer.
        c.rtt.back_off();
        // Leave any recovery; remember the highest byte sent so duplicate ACKs
        // caused by the resends do not start a fast retransmit (RFC 6582
        // section 3.2 step 4; RFC 6675 section 5.1).
        self.rec.on_rto(self.core.snd_una);
        let c = &mut self.core;
        c.dupacks = 0;
        c.recover = Some(c.snd_max);
        c.timed = None;
        let mut first_lost = None;
        if let Some(r) = c.rack.as_deref_mut() {
            r.on_rto(now);
            first_lost = r.first_lost();
        }
        if !keep_sack || !self.rec.on_rto_keep_sack(&mut self.core, now) {
            // RFC 2018 section 8, or a recovery that cannot run from the
            // scoreboard: discard it and go back N, as cwnd allows.
            self.core.go_back_n();
        }
        // RFC 6298 (5.4)/(5.6): retransmit the earliest unacknowledged
        // segment, restart the timer.
        let c = &mut self.core;
        let (seq, len) = match first_lost {
            Some((s, e)) if c.snd_nxt == c.snd_max => (s, (e - s) as u32),
            _ => (c.snd_una, c.seg_len_at(c.snd_una).max(1)),
        };
        c.emit(now, seq, len, false, out);
        c.raise_snd_nxt(seq + len as u64);
        c.restart_rto(now);
        self.try_send(now, out);
    }

    /// RFC 8985 section 7.2: (re)arm the loss probe timer (`tlp.rs`).
    pub(super) fn arm_loss_probe(&mut self, now: Time, trigger: bool) {
        let open = self.hs.established() && !self.rec.in_recovery();
        tlp::arm(&mut self.core, now, trigger, open);
    }

    /// RACK-TLP's timer expired: the reordering timer (RFC 8985 section
    /// 6.3) or the probe timeout (section 7.3).
    fn loss_timer_fire(&mut self, now: Time, kind: LossTimer, out: &mut Vec<DataSeg>) {
        match kind {
            LossTimer::Reorder => {
                let in_recovery = self.rec.in_recovery();
                let srtt = self.core.rtt.srtt();
                let lost = match self.core.rack.as_deref_mut() {
                    Some(r) => r.on_reorder_timer(now, in_recovery, srtt),
                    None => 0,
                };
                if lost > 0 && !in_recovery {
                    let sample = AckSample {
                        now,
                        acked_bytes: 0,
                        is_dupack: false,
                        sacked_bytes: 0,
                        rtt_sample: None,
                        srtt,
                        min_rtt: self.core.rtt.min_rtt(),
                        flight_bytes: self.flight(),
                        delivered_bytes: 0,
                        cwnd_limited: self.core.cwnd_in_use(),
                        open: false,
                    };
                    self.rec.on_rack_loss(&mut self.core, now, &sample, out);
                }
                self.try_send(now, out);
                self.arm_loss_probe(now, false);
            }
            LossTimer::Probe => {
                let open = self.hs.established() && !self.rec.in_recovery();
                tlp::send_probe(&mut self.core, now, open, out);
            }
        }
    }
}
