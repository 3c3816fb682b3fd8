//! RACK-TLP's tail loss probe (RFC 8985 section 7) on the sending state:
//! arming the probe timeout and sending the probe. The sender decides when
//! (after sending, on ACKs, at its timer) and whether the connection may
//! probe at all (`open`: established and not in loss recovery); RACK
//! (`rack.rs`) holds the timer and the probe's state.

use super::rack::{LossTimer, Rack};
use super::seg::DataSeg;
use super::send_core::SendCore;
use crate::engine::time::{Dur, Time};

/// RFC 8985 section 7.2: TLP.max_ack_delay, the peer's worst-case delayed
/// ACK timer (WCDelAckT), added to the PTO when one segment is in flight.
pub(super) const TLP_MAX_ACK_DELAY: Dur = Dur::from_millis(200);

/// Section 7.2, TLP_calc_PTO: 2 SRTT (plus TLP.max_ack_delay when one
/// segment is in flight), 1 s without an RTT sample; never later than the
/// retransmission timer.
pub(super) fn pto_deadline(
    now: Time,
    srtt: Option<Dur>,
    one_segment: bool,
    rto_at: Option<Time>,
) -> Time {
    let pto = match srtt {
        Some(s) => {
            let p = Dur(2 * s.0);
            if one_segment {
                p + TLP_MAX_ACK_DELAY
            } else {
                p
            }
        }
        None => Dur::from_secs(1),
    };
    let at = now + pto;
    match rto_at {
        Some(r) if r < at => r,
        _ => at,
    }
}

/// Section 7.4, TLP_process_ack: whether this ACK shows that the probe
/// repaired a loss (then the sender reduces its window, section 7.4.2).
/// Without DSACK a retransmitted probe whose ACK moves past TLP.end_seq is
/// always counted as a repair.
pub(super) fn on_ack(r: &mut Rack, ack: u64, is_dupack: bool, has_sack: bool) -> bool {
    let Some(end) = r.tlp_end_seq else {
        return false;
    };
    if ack < end {
        return false;
    }
    if !r.tlp_is_retrans {
        // A probe of new data was delivered.
        r.tlp_end_seq = None;
        return false;
    }
    if ack > end || (is_dupack && !has_sack) {
        r.tlp_end_seq = None;
        r.stats.probe_repairs += 1;
        return true;
    }
    false
}

/// A probe is allowed: the connection is `open`, data is outstanding and
/// nothing is SACKed (RACK.segs_sacked = 0).
fn allowed(c: &SendCore, open: bool) -> bool {
    open && c.snd_max > c.snd_una && c.sb.is_empty()
}

/// RFC 8985 section 7.2: (re)arm the loss probe timer after new data
/// went out or new data was acknowledged (`trigger`), unless in
/// recovery, with SACKed segments (RACK.segs_sacked > 0), nothing
/// outstanding, or a probe still unanswered; a pending reordering
/// timer keeps the slot (section 8: one loss timer at a time).
pub(super) fn arm(c: &mut SendCore, now: Time, trigger: bool, open: bool) {
    let allowed = allowed(c, open);
    let one_segment = c.snd_max - c.snd_una <= c.st.mss;
    let (srtt, rto_at) = (c.rtt.srtt(), c.rto_at);
    let Some(r) = c.rack.as_deref_mut() else {
        return;
    };
    match r.timer {
        Some((_, LossTimer::Reorder)) => {}
        _ if !allowed || r.tlp_end_seq.is_some() => r.timer = None,
        Some((_, LossTimer::Probe)) if !trigger => {}
        _ if trigger => {
            let at = pto_deadline(now, srtt, one_segment, rto_at);
            r.timer = Some((at, LossTimer::Probe));
        }
        _ => {}
    }
}

/// RFC 8985 section 7.3, TLP_send_probe: one new segment if the
/// receive window allows, else the highest-sequence segment sent again;
/// then the retransmission timer is re-armed (not the probe timer).
pub(super) fn send_probe(c: &mut SendCore, now: Time, open: bool, out: &mut Vec<DataSeg>) {
    let allowed = allowed(c, open);
    let Some(r) = c.rack.as_deref_mut() else {
        return;
    };
    r.timer = None;
    if !allowed || r.tlp_end_seq.is_some() {
        return;
    }
    let last = r.last_seg();
    let wnd = c.send_window();
    let mut is_retrans = true;
    if c.snd_nxt == c.snd_max && c.snd_nxt < c.app_end {
        let len = c.seg_len_at(c.snd_nxt);
        if c.snd_nxt + len as u64 <= c.snd_una.saturating_add(wnd) {
            let seq = c.snd_nxt;
            c.emit(now, seq, len, false, out);
            c.snd_nxt += len as u64;
            is_retrans = false;
        }
    }
    if is_retrans {
        let Some((seq, end)) = last else {
            return;
        };
        c.emit(now, seq, (end - seq) as u32, false, out);
    }
    if let Some(r) = c.rack.as_deref_mut() {
        r.tlp_end_seq = Some(c.snd_max);
        r.tlp_is_retrans = is_retrans;
        r.stats.probes += 1;
    }
    c.restart_rto(now);
}
