//! Selective-Repeat ARQ with low persistency on the DVB-S forward link,
//! after N. Celandroni, E. Ferro, G. Giambene, M. Marandola, "Satellite-3G
//! Hybrid Networks: Impact of ACM and ARQ on TCP Performance" (2007), as two
//! sans-IO state machines: [`ArqSender`] (the sender link buffer, SLB) and
//! [`ArqReceiver`] (the receiver link buffer, RLB). They take `now` and an
//! input and return what to do; the link layer (`dvbs.rs`) moves frames and
//! ACKs and keeps their timers.
//!
//! - Every frame that reaches the receiver is acknowledged. The ACK's SN
//!   field is the next expected SN (cumulative); its BoS/EoS fields name
//!   either the frame just received (a plain ACK) or, when that frame
//!   revealed a gap, the first and last missing frames (the *duplicate
//!   ACK*; the frame just received is then EoS + 1).
//! - On a duplicate ACK the sender queues the missing frames for immediate
//!   retransmission, ahead of new frames (the link sends them in the most
//!   robust mode). A frame is retransmitted at most `nmax` times (the
//!   persistency); asked once more, it is dropped from the SLB instead.
//! - ASTO (optional): a per-frame sender timeout, started at each
//!   (re)transmission; on expiry a frame neither cumulatively nor
//!   individually acknowledged is retransmitted (within the persistency).
//!   It recovers a frame whose duplicate ACK was lost.
//! - ARTO: one receiver timer, restarted each time an in-sequence segment
//!   completes (and started when a gap appears with the timer idle). On
//!   expiry with a gap the receiver gives up on the missing segment: it
//!   skips to the next segment start it holds and delivers the completed
//!   segments that follow, so TCP sees duplicate ACKs rather than a stall
//!   ending in its retransmission timeout.
//! - The SLB holds frames until cumulatively acknowledged; a new frame may
//!   be sent only within `window` frames of the oldest unacknowledged one,
//!   so the RLB (the same size) never overflows. Sizing rule of the study:
//!   RLB = SLB ≥ ASTO × information rate in the GOOD state.

use super::framing::{Frame, BOS, EOS};
use crate::engine::time::{Dur, Time};
use std::collections::VecDeque;

/// What an ARQ ACK says besides the cumulative SN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckKind {
    /// The frame with this SN arrived.
    Frame(u64),
    /// Frames `bos..=eos` are missing; frame `eos + 1` arrived.
    Missing { bos: u64, eos: u64 },
    /// Cumulative only (sent when the receiver gives up on a segment).
    Cum,
}

/// An ARQ ACK: four 16-bit fields on the wire (SN, BoS, EoS, CRC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArqAck {
    /// Next expected SN: every frame below it is received or given up.
    pub cum: u64,
    pub kind: AckKind,
}

impl ArqAck {
    pub fn is_duplicate(&self) -> bool {
        matches!(self.kind, AckKind::Missing { .. })
    }
}

/// Bytes of an ARQ ACK on the return link (four 16-bit fields).
pub const ARQ_ACK_BYTES: u32 = 8;

#[derive(Clone, Copy, Debug, Default)]
struct SlbEntry {
    marks: u8,
    /// Transmissions so far (1 + retransmissions).
    tx: u32,
    /// Individually acknowledged.
    received: bool,
    /// Persistency exhausted: never sent again.
    dropped: bool,
    /// Waiting in the retransmission queue.
    queued: bool,
}

/// Counters of the sender.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArqSenderStats {
    pub retransmissions: u64,
    pub duplicate_acks: u64,
    pub asto_expiries: u64,
    pub dropped_frames: u64,
}

/// The sender side: the SLB, the retransmission queue and the ASTO timers.
pub struct ArqSender {
    nmax: u32,
    asto: Option<Dur>,
    window: u64,
    /// Oldest SN not cumulatively acknowledged (the SLB's first entry).
    base: u64,
    slb: VecDeque<SlbEntry>,
    retx: VecDeque<u64>,
    /// (deadline, SN, transmission count it was armed for), in arming order.
    asto_q: VecDeque<(Time, u64, u32)>,
    pub stats: ArqSenderStats,
}

impl ArqSender {
    /// `window`: SLB size in frames; `nmax`: persistency; `asto`: sender
    /// timeout, if any.
    pub fn new(window: u64, nmax: u32, asto: Option<Dur>) -> ArqSender {
        ArqSender {
            nmax,
            asto,
            window: window.max(1),
            base: 0,
            slb: VecDeque::new(),
            retx: VecDeque::new(),
            asto_q: VecDeque::new(),
            stats: ArqSenderStats::default(),
        }
    }

    /// Next SN to allocate.
    #[inline]
    pub fn next_sn(&self) -> u64 {
        self.base + self.slb.len() as u64
    }

    /// Oldest SN not cumulatively acknowledged.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Frames held (sent or waiting to be sent, not yet cumulatively acknowledged).
    pub fn held(&self) -> u64 {
        self.slb.len() as u64
    }

    /// Can a segment of `n` frames enter the SLB? (A segment larger than
    /// the whole window enters an empty SLB, so nothing can block forever.)
    #[inline]
    pub fn has_room(&self, n: u32) -> bool {
        self.slb.is_empty() || self.slb.len() as u64 + n as u64 <= self.window
    }

    /// Put a segment of `n` frames into the SLB; returns its first SN.
    pub fn push_segment(&mut self, n: u32) -> u64 {
        let first = self.next_sn();
        for i in 0..n {
            self.slb.push_back(SlbEntry {
                marks: super::framing::marks(i, n),
                ..SlbEntry::default()
            });
        }
        first
    }

    fn entry(&mut self, sn: u64) -> Option<&mut SlbEntry> {
        if sn < self.base {
            return None;
        }
        self.slb.get_mut((sn - self.base) as usize)
    }

    /// The frame `sn` as sent (its marks), if it is in the SLB.
    pub fn frame(&self, sn: u64) -> Option<Frame> {
        if sn < self.base {
            return None;
        }
        self.slb.get((sn - self.base) as usize).map(|e| Frame {
            sn,
            marks: e.marks & (BOS | EOS),
        })
    }

    /// The next frame to retransmit, if any (taken off the queue).
    pub fn next_retransmission(&mut self) -> Option<u64> {
        while let Some(sn) = self.retx.pop_front() {
            let live = match self.entry(sn) {
                Some(e) => {
                    e.queued = false;
                    !e.dropped && !e.received
                }
                None => false,
            };
            if live {
                return Some(sn);
            }
        }
        None
    }

    /// Frame `sn` (new or retransmitted) has been sent; its transmission
    /// ends at `end` (the ASTO runs from there).
    pub fn on_sent(&mut self, sn: u64, end: Time) {
        let asto = self.asto;
        let Some(e) = self.entry(sn) else { return };
        e.tx += 1;
        let tx = e.tx;
        if tx > 1 {
            self.stats.retransmissions += 1;
        }
        if let Some(a) = asto {
            self.asto_q.push_back((end + a, sn, tx));
        }
    }

    /// Ask for frame `sn` again: queue it, or drop it if its persistency is spent.
    fn request(&mut self, sn: u64) -> bool {
        let nmax = self.nmax;
        let Some(e) = self.entry(sn) else {
            return false;
        };
        if e.received || e.dropped || e.queued || e.tx == 0 {
            return false;
        }
        if e.tx > nmax {
            e.dropped = true;
            self.stats.dropped_frames += 1;
            return false;
        }
        e.queued = true;
        self.retx.push_back(sn);
        true
    }

    /// An ARQ ACK arrives.
    pub fn on_ack(&mut self, ack: &ArqAck) {
        while self.base < ack.cum && !self.slb.is_empty() {
            self.slb.pop_front();
            self.base += 1;
        }
        match ack.kind {
            AckKind::Frame(sn) => {
                if let Some(e) = self.entry(sn) {
                    e.received = true;
                }
            }
            AckKind::Missing { bos, eos } => {
                self.stats.duplicate_acks += 1;
                if let Some(e) = self.entry(eos + 1) {
                    e.received = true;
                }
                for sn in bos.max(self.base)..=eos {
                    self.request(sn);
                }
            }
            AckKind::Cum => {}
        }
    }

    fn asto_stale(&self, sn: u64, tx: u32) -> bool {
        if sn < self.base {
            return true;
        }
        match self.slb.get((sn - self.base) as usize) {
            Some(e) => e.tx != tx || e.received || e.dropped || e.queued,
            None => true,
        }
    }

    /// When the next ASTO may expire (stale timers at the front removed).
    pub fn asto_deadline(&mut self) -> Option<Time> {
        while let Some(&(_, sn, tx)) = self.asto_q.front() {
            if self.asto_stale(sn, tx) {
                self.asto_q.pop_front();
            } else {
                break;
            }
        }
        self.asto_q.front().map(|x| x.0)
    }

    /// Expire every ASTO due at `now`; returns how many frames were queued again.
    pub fn on_asto(&mut self, now: Time) -> u32 {
        let mut n = 0;
        while let Some(&(at, sn, tx)) = self.asto_q.front() {
            if at > now {
                break;
            }
            self.asto_q.pop_front();
            if self.asto_stale(sn, tx) {
                continue;
            }
            self.stats.asto_expiries += 1;
            if self.request(sn) {
                n += 1;
            }
        }
        n
    }

    /// Is anything waiting for retransmission?
    pub fn has_retransmissions(&self) -> bool {
        !self.retx.is_empty()
    }
}

/// What the receiver asks the link to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxOut {
    /// Send this ACK on the return path.
    Ack(ArqAck),
    /// The segment ending with frame `eos` is complete and in order: deliver it.
    Deliver { eos: u64 },
    /// The receiver gave up on every frame below `upto` not yet delivered.
    GiveUp { upto: u64 },
}

/// Counters of the receiver.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArqReceiverStats {
    pub frames: u64,
    pub duplicates: u64,
    pub duplicate_acks: u64,
    pub segments: u64,
    pub give_ups: u64,
}

const GOT: u8 = 4;

/// The receiver side: the RLB, in-order segment delivery and the ARTO.
pub struct ArqReceiver {
    arto: Dur,
    /// Next expected SN.
    rcv_next: u64,
    /// One past the highest SN received.
    rcv_high: u64,
    /// Marks of frames `rcv_next..rcv_high` (0: missing; else GOT | BOS | EOS).
    got: VecDeque<u8>,
    arto_at: Option<Time>,
    pub stats: ArqReceiverStats,
}

impl ArqReceiver {
    pub fn new(arto: Dur) -> ArqReceiver {
        ArqReceiver {
            arto,
            rcv_next: 0,
            rcv_high: 0,
            got: VecDeque::new(),
            arto_at: None,
            stats: ArqReceiverStats::default(),
        }
    }

    pub fn rcv_next(&self) -> u64 {
        self.rcv_next
    }

    /// When the ARTO expires, if it runs.
    pub fn arto_deadline(&self) -> Option<Time> {
        self.arto_at
    }

    fn has_gap(&self) -> bool {
        self.rcv_next < self.rcv_high
    }

    /// Move `rcv_next` over received frames, delivering each segment whose
    /// end it passes (and restarting the ARTO).
    fn advance(&mut self, now: Time, out: &mut Vec<RxOut>) {
        while let Some(&m) = self.got.front() {
            if m & GOT == 0 {
                break;
            }
            self.got.pop_front();
            if m & EOS != 0 {
                out.push(RxOut::Deliver { eos: self.rcv_next });
                self.stats.segments += 1;
                self.arto_at = Some(now + self.arto);
            }
            self.rcv_next += 1;
        }
    }

    /// A frame arrives intact.
    pub fn on_frame(&mut self, now: Time, f: Frame, out: &mut Vec<RxOut>) {
        self.stats.frames += 1;
        let sn = f.sn;
        let dup = sn < self.rcv_next
            || (sn < self.rcv_high && self.got[(sn - self.rcv_next) as usize] & GOT != 0);
        if dup {
            self.stats.duplicates += 1;
            out.push(RxOut::Ack(ArqAck {
                cum: self.rcv_next,
                kind: AckKind::Frame(sn),
            }));
            return;
        }
        let mut missing = None;
        if sn >= self.rcv_high {
            if sn > self.rcv_high {
                missing = Some((self.rcv_high, sn - 1));
            }
            let len = (sn + 1 - self.rcv_next) as usize;
            self.got.resize(len, 0);
            self.rcv_high = sn + 1;
        }
        self.got[(sn - self.rcv_next) as usize] = GOT | f.marks;
        self.advance(now, out);
        if self.has_gap() && self.arto_at.is_none() {
            self.arto_at = Some(now + self.arto);
        }
        let kind = match missing {
            Some((bos, eos)) => {
                self.stats.duplicate_acks += 1;
                AckKind::Missing { bos, eos }
            }
            None => AckKind::Frame(sn),
        };
        out.push(RxOut::Ack(ArqAck {
            cum: self.rcv_next,
            kind,
        }));
    }

    /// The ARTO fires at `now` (a call before the deadline does nothing).
    pub fn on_arto(&mut self, now: Time, out: &mut Vec<RxOut>) {
        match self.arto_at {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.arto_at = None;
        if !self.has_gap() {
            return;
        }
        // Skip to the next segment start held; without one, wait on.
        let Some(i) = self.got.iter().position(|&m| m & GOT != 0 && m & BOS != 0) else {
            self.arto_at = Some(now + self.arto);
            return;
        };
        let upto = self.rcv_next + i as u64;
        self.got.drain(..i);
        self.rcv_next = upto;
        self.stats.give_ups += 1;
        out.push(RxOut::GiveUp { upto });
        self.advance(now, out);
        if self.has_gap() && self.arto_at.is_none() {
            self.arto_at = Some(now + self.arto);
        }
        out.push(RxOut::Ack(ArqAck {
            cum: self.rcv_next,
            kind: AckKind::Cum,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    /// Sender and receiver with segments of `seg_frames` frames; frames go
    /// out one per millisecond and arrive 250 ms later, ACKs 30 ms after that.
    struct Pair {
        s: ArqSender,
        r: ArqReceiver,
        out: Vec<RxOut>,
    }

    impl Pair {
        fn new(segs: u32, seg_frames: u32, asto: Option<Dur>) -> Pair {
            let mut s = ArqSender::new(1000, 1, asto);
            for _ in 0..segs {
                s.push_segment(seg_frames);
            }
            Pair {
                s,
                r: ArqReceiver::new(Dur::from_millis(600)),
                out: Vec::new(),
            }
        }
        /// Send `sn` ending at `end`; if `arrives`, the receiver gets it at `end + 250 ms`.
        fn send(&mut self, sn: u64, end: Time, arrives: bool) -> Vec<RxOut> {
            self.s.on_sent(sn, end);
            if !arrives {
                return Vec::new();
            }
            let f = self.s.frame(sn).unwrap();
            self.r
                .on_frame(end + Dur::from_millis(250), f, &mut self.out);
            std::mem::take(&mut self.out)
        }
        fn acks_to_sender(&mut self, out: &[RxOut]) {
            for o in out {
                if let RxOut::Ack(a) = o {
                    self.s.on_ack(a);
                }
            }
        }
    }

    fn ack(cum: u64, kind: AckKind) -> RxOut {
        RxOut::Ack(ArqAck { cum, kind })
    }

    #[test]
    fn a_lost_frame_is_recovered_by_one_retransmission() {
        // Two segments of two frames: SN 0,1 | 2,3; frame 1 is lost.
        let mut p = Pair::new(2, 2, None);
        let o0 = p.send(0, ms(1), true);
        assert_eq!(o0, vec![ack(1, AckKind::Frame(0))]);
        assert!(p.send(1, ms(2), false).is_empty());
        let o2 = p.send(2, ms(3), true);
        assert_eq!(o2, vec![ack(1, AckKind::Missing { bos: 1, eos: 1 })]);
        let o3 = p.send(3, ms(4), true);
        assert_eq!(o3, vec![ack(1, AckKind::Frame(3))]);
        p.acks_to_sender(&o0);
        assert_eq!(p.s.next_retransmission(), None);
        p.acks_to_sender(&o2);
        // The duplicate ACK asks for exactly frame 1, once.
        assert_eq!(p.s.next_retransmission(), Some(1));
        assert_eq!(p.s.next_retransmission(), None);
        p.acks_to_sender(&o3);
        let o1 = p.send(1, ms(300), true);
        assert_eq!(
            o1,
            vec![
                RxOut::Deliver { eos: 1 },
                RxOut::Deliver { eos: 3 },
                ack(4, AckKind::Frame(1)),
            ]
        );
        p.acks_to_sender(&o1);
        assert_eq!(p.s.held(), 0);
        assert_eq!(p.s.stats.retransmissions, 1);
        assert_eq!(p.r.stats.give_ups, 0);
        // No gap left: the ARTO has nothing to do.
        let mut out = Vec::new();
        p.r.on_arto(ms(10_000), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn a_lost_retransmission_ends_in_an_arto_give_up_and_the_next_segments_are_delivered() {
        // Three segments of two frames: 0,1 | 2,3 | 4,5; frame 0 is lost twice.
        let mut p = Pair::new(3, 2, None);
        assert!(p.send(0, ms(1), false).is_empty());
        let o1 = p.send(1, ms(2), true);
        assert_eq!(o1, vec![ack(0, AckKind::Missing { bos: 0, eos: 0 })]);
        // The gap starts the ARTO when frame 1 arrives (252 ms).
        assert_eq!(p.r.arto_deadline(), Some(ms(852)));
        let mut later = Vec::new();
        for sn in 2..6 {
            later.extend(p.send(sn, ms(1 + sn), true));
        }
        // Segments 2,3 and 4,5 are complete but wait behind the hole.
        assert!(later
            .iter()
            .all(|o| matches!(o, RxOut::Ack(ArqAck { cum: 0, .. }))));
        p.acks_to_sender(&o1);
        assert_eq!(p.s.next_retransmission(), Some(0));
        // The single retransmission (persistency 1) is lost too.
        assert!(p.send(0, ms(290), false).is_empty());
        let mut out = Vec::new();
        p.r.on_arto(ms(851), &mut out);
        assert!(out.is_empty(), "not before the deadline");
        p.r.on_arto(ms(852), &mut out);
        assert_eq!(
            out,
            vec![
                RxOut::GiveUp { upto: 2 },
                RxOut::Deliver { eos: 3 },
                RxOut::Deliver { eos: 5 },
                ack(6, AckKind::Cum),
            ]
        );
        assert_eq!(
            p.r.arto_deadline(),
            Some(ms(852 + 600)),
            "restarted by the deliveries"
        );
        // A late copy of frame 0 is a duplicate.
        let mut dup = Vec::new();
        p.r.on_frame(ms(900), Frame { sn: 0, marks: BOS }, &mut dup);
        assert_eq!(dup, vec![ack(6, AckKind::Frame(0))]);
        p.acks_to_sender(&out);
        assert_eq!(p.s.held(), 0);
        assert_eq!(p.r.stats.give_ups, 1);
    }

    #[test]
    fn the_asto_fires_when_the_duplicate_ack_is_lost_and_persistency_then_drops() {
        let asto = Dur::from_millis(320);
        // Two segments of two frames; frame 1 is lost and so is the
        // duplicate ACK its gap causes.
        let mut p = Pair::new(2, 2, Some(asto));
        let o0 = p.send(0, ms(1), true);
        assert!(p.send(1, ms(2), false).is_empty());
        let o2 = p.send(2, ms(3), true);
        assert!(o2[0] == ack(1, AckKind::Missing { bos: 1, eos: 1 }));
        let o3 = p.send(3, ms(4), true);
        p.acks_to_sender(&o0);
        p.acks_to_sender(&o3);
        // Frame 0 is cumulatively acknowledged, frame 3 individually; 1 and
        // 2 have no ACK (2's was the lost duplicate ACK).
        assert_eq!(p.s.asto_deadline(), Some(ms(2) + asto));
        assert_eq!(p.s.on_asto(ms(321)), 0);
        assert_eq!(p.s.on_asto(ms(322)), 1);
        assert_eq!(p.s.next_retransmission(), Some(1));
        assert_eq!(p.s.stats.asto_expiries, 1);
        let o1 = p.send(1, ms(330), true);
        assert_eq!(
            o1,
            vec![
                RxOut::Deliver { eos: 1 },
                RxOut::Deliver { eos: 3 },
                ack(4, AckKind::Frame(1)),
            ]
        );
        // Frame 2's timer also expires before that ACK is back: it is sent
        // again (spuriously) and the receiver sees a duplicate.
        assert_eq!(p.s.on_asto(ms(323)), 1);
        assert_eq!(p.s.next_retransmission(), Some(2));
        let o2b = p.send(2, ms(331), true);
        assert_eq!(o2b, vec![ack(4, AckKind::Frame(2))]);
        // Persistency 1: frame 1 is not sent a third time; at its next
        // expiry it is dropped from the SLB.
        assert_eq!(p.s.on_asto(ms(330) + asto), 0);
        assert_eq!(p.s.stats.dropped_frames, 1);
        p.acks_to_sender(&o1);
        assert_eq!(p.s.held(), 0);
        assert_eq!(p.s.asto_deadline(), None);
    }

    #[test]
    fn the_window_bounds_the_frames_held() {
        let mut s = ArqSender::new(16, 1, None);
        assert!(s.has_room(8));
        s.push_segment(8);
        assert!(s.has_room(8));
        s.push_segment(8);
        assert!(!s.has_room(8));
        s.on_ack(&ArqAck {
            cum: 8,
            kind: AckKind::Cum,
        });
        assert!(s.has_room(8));
        assert_eq!(s.next_sn(), 16);
    }
}
