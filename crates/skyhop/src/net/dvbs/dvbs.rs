//! The DVB-S forward link with ACM and SR-ARQ, and its return path, as one
//! link layer (after N. Celandroni, E. Ferro, G. Giambene, M. Marandola,
//! "Satellite-3G Hybrid Networks: Impact of ACM and ARQ on TCP Performance",
//! 2007, extending their Globecom 2006 paper "TCP Performance in a Hybrid
//! Satellite Network by using ACM and ARQ").
//!
//! Forward direction (earth station → GEO → mobile terminal): IP packets
//! wait in a drop-tail IP buffer at the earth station (the link's forward
//! `queue`), are cut into 188-byte frames ([`framing`](super::framing)) and
//! sent one frame at a time at the information rate of the ACM mode in use
//! ([`acm`](super::acm)); retransmissions go first, always in the robust
//! LBW mode. Each frame is judged when it starts: the Gilbert–Elliott chain
//! (the engine's, on a stream of its own) says whether the channel is BAD
//! during it, and the mode and state give its loss probability. With ARQ
//! ([`sr_arq`](super::sr_arq)) the receiver reassembles and delivers in
//! order; without, a segment is lost if any of its frames is.
//!
//! Reverse direction (the return path: terrestrial 3G, "rct", or back
//! through the satellite, "rcs"): one FIFO at the return rate carrying the
//! TCP ACKs (IP packets handed to the reverse direction), the ARQ ACKs (8
//! bytes) and the receiver's channel-quality reports. ARQ ACKs are lost
//! with probability `alr`, IP packets (TCP ACKs, five times longer) with
//! 1 − (1 − alr)^5; reports are not lost (a real terminal repeats them).
//!
//! Events: one wake-up per frame sent (end of transmission), one per frame
//! arriving intact (only a segment's last frame without ARQ), one per item
//! arriving over the return path, one per channel report, and the two
//! timers (ASTO, ARTO), re-armed lazily.

use super::acm::{AcmPolicy, CqeReports, Mode};
use super::framing::{frames_for, marks, Frame, TS_FRAME_BYTES};
use super::spec::{DvbsParams, DvbsSpec};
use super::sr_arq::{ArqAck, ArqReceiver, ArqSender, RxOut, ARQ_ACK_BYTES};
use crate::channel::gilbert_elliott::GilbertElliott;
use crate::channel::{Channel, Tx};
use crate::engine::rng::RngStream;
use crate::engine::time::{Dur, Time};
use crate::net::layer::{Dir, LinkBuild, LinkIo, LinkLayer, LinkPacket, LinkStats, LossReason};
use std::collections::VecDeque;
/// Counters beyond [`LinkStats`], for tests and diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DvbsCounters {
    pub frames_sent: u64,
    pub frames_lost: u64,
    pub frames_retransmitted: u64,
    /// Frames sent in HBW while the channel was BAD.
    pub frames_misaligned: u64,
    /// Information bits sent (188-byte frames, retransmissions included).
    pub info_bits: u64,
    pub mode_switches: u64,
    pub arq_acks_sent: u64,
    pub arq_acks_lost: u64,
    pub reports_sent: u64,
    pub asto_expiries: u64,
    pub give_ups: u64,
}

const TOK_TX: u32 = 0;
const TOK_FWD: u32 = 1;
const TOK_RET: u32 = 2;
const TOK_ASTO: u32 = 3;
const TOK_ARTO: u32 = 4;
const TOK_CQE: u32 = 5;

/// A segment in transit on the forward link.
#[derive(Clone, Copy, Debug)]
struct Seg {
    first: u64,
    n: u32,
    slot: u32,
    /// Without ARQ: a frame of it was lost.
    hit: bool,
}

/// An item on the return path.
#[derive(Clone, Copy, Debug)]
enum RetItem {
    Ip(u32),
    Ack(ArqAck),
    Report(bool),
}

/// The return path: one FIFO at a constant rate.
struct ReturnPath {
    rate_bps: u64,
    delay: Dur,
    queue_limit: u32,
    channels: Vec<Channel>,
    busy_until: Time,
    departures: VecDeque<Time>,
    in_flight: VecDeque<(Time, u64, RetItem)>,
    stats: LinkStats,
}

impl ReturnPath {
    fn waiting(&mut self, now: Time) -> u32 {
        while self.departures.front().is_some_and(|&d| d <= now) {
            self.departures.pop_front();
        }
        self.departures.len().saturating_sub(1) as u32
    }

    /// Put an item on the return path; `lost`: it occupies the link but
    /// does not arrive. Returns false on a queue drop.
    fn enqueue(
        &mut self,
        now: Time,
        bytes: u32,
        item: RetItem,
        lost: bool,
        io: &mut LinkIo,
    ) -> bool {
        let waiting = self.waiting(now);
        if !self.departures.is_empty() && waiting >= self.queue_limit {
            return false;
        }
        let start = self.busy_until.max(now);
        let tx = Dur::transmission(bytes as u64, self.rate_bps);
        let end = start + tx;
        self.busy_until = end;
        self.departures.push_back(end);
        self.stats.busy_ns += tx.0;
        if !lost {
            let seq = io.next_seq();
            let at = end + self.delay;
            if self.in_flight.is_empty() {
                io.wake(at, seq, TOK_RET);
            }
            self.in_flight.push_back((at, seq, item));
        }
        true
    }
}

/// Both directions of a DVB-S link with ACM and SR-ARQ.
pub struct DvbsLink {
    pub params: DvbsParams,
    fwd_delay: Dur,
    ip_limit: u32,
    ip_queue: VecDeque<LinkPacket>,
    chain: GilbertElliott,
    frame_rng: RngStream,
    ret_rng: RngStream,
    mode: Mode,
    reports: CqeReports,
    started: bool,
    /// Segments being framed or awaiting delivery, in SN order.
    segs: VecDeque<Seg>,
    /// Next SN to send for the first time; next SN to allocate.
    next_new: u64,
    next_alloc: u64,
    /// A frame is being sent.
    tx_busy: bool,
    sender: ArqSender,
    receiver: ArqReceiver,
    /// Frames in flight on the forward link: (arrival, sequence, frame, slot
    /// of the segment it completes without ARQ).
    fwd_in_flight: VecDeque<(Time, u64, Frame, u32)>,
    ret: ReturnPath,
    asto_wake: Option<Time>,
    arto_wake: Option<Time>,
    rx_out: Vec<RxOut>,
    fwd_stats: LinkStats,
    pub counters: DvbsCounters,
}

impl DvbsLink {
    pub fn build(spec: &DvbsSpec, b: LinkBuild) -> DvbsLink {
        let params = spec
            .params()
            .expect("the dvbs link layer was validated when the plan was built");
        let [_, cr] = b.channels;
        let [f, r] = b.dirs;
        DvbsLink::new(
            params, b.seed, b.name, f.delay, f.queue, r.rate_bps, r.delay, r.queue, cr,
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        params: DvbsParams,
        seed: u64,
        name: &str,
        fwd_delay: Dur,
        ip_limit: u32,
        ret_rate_bps: u64,
        ret_delay: Dur,
        ret_queue: u32,
        ret_channels: Vec<Channel>,
    ) -> DvbsLink {
        let mut chain = params.fade_chain(seed, name);
        let mode = params.policy.initial_mode(chain.state_at(Time::ZERO));
        let reports = CqeReports::new(fwd_delay, params.cqe, &chain);
        let sender = ArqSender::new(params.buffer_frames, params.nmax, params.asto);
        let receiver = ArqReceiver::new(params.arto);
        DvbsLink {
            fwd_delay,
            ip_limit,
            ip_queue: VecDeque::new(),
            chain,
            frame_rng: RngStream::derive(seed, &format!("dvbs:{name}:frames")),
            ret_rng: RngStream::derive(seed, &format!("dvbs:{name}:return")),
            mode,
            reports,
            started: false,
            segs: VecDeque::new(),
            next_new: 0,
            next_alloc: 0,
            tx_busy: false,
            sender,
            receiver,
            fwd_in_flight: VecDeque::new(),
            ret: ReturnPath {
                rate_bps: ret_rate_bps,
                delay: ret_delay,
                queue_limit: ret_queue,
                channels: ret_channels,
                busy_until: Time::ZERO,
                departures: VecDeque::new(),
                in_flight: VecDeque::new(),
                stats: LinkStats::default(),
            },
            asto_wake: None,
            arto_wake: None,
            rx_out: Vec::new(),
            fwd_stats: LinkStats::default(),
            counters: DvbsCounters::default(),
            params,
        }
    }

    /// The mode in use.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The channel chain (true = BAD), e.g. for tests.
    pub fn chain(&mut self) -> &mut GilbertElliott {
        &mut self.chain
    }

    pub fn sender(&self) -> &ArqSender {
        &self.sender
    }
    pub fn receiver(&self) -> &ArqReceiver {
        &self.receiver
    }

    fn start(&mut self, now: Time, io: &mut LinkIo) {
        if self.started {
            return;
        }
        self.started = true;
        if self.params.policy == AcmPolicy::Acm {
            self.report_due(now, io);
        }
    }

    /// Send every channel report due by `now`, and ask to be woken for the next.
    fn report_due(&mut self, now: Time, io: &mut LinkIo) {
        loop {
            let (at, bad) = self.reports.peek();
            if at > now {
                {
                    let seq = io.next_seq();
                    io.wake(at, seq, TOK_CQE);
                }
                return;
            }
            self.reports.advance();
            self.counters.reports_sent += 1;
            self.ret
                .enqueue(now, ARQ_ACK_BYTES, RetItem::Report(bad), false, io);
        }
    }

    /// Take IP packets into frames while the SLB has room.
    fn fill(&mut self) {
        while self.next_new == self.next_alloc {
            let Some(p) = self.ip_queue.front() else {
                return;
            };
            let n = frames_for(p.bytes);
            let first = if self.params.arq {
                if !self.sender.has_room(n) {
                    return;
                }
                self.sender.push_segment(n)
            } else {
                self.next_alloc
            };
            debug_assert_eq!(first, self.next_alloc);
            let p = self.ip_queue.pop_front().unwrap();
            self.segs.push_back(Seg {
                first,
                n,
                slot: p.slot,
                hit: false,
            });
            self.next_alloc = first + n as u64;
        }
    }

    /// Start the next frame if the transmitter is idle.
    fn try_send(&mut self, now: Time, io: &mut LinkIo) {
        if self.tx_busy {
            return;
        }
        let (frame, mode, retx) = if let Some(sn) = self
            .params
            .arq
            .then(|| self.sender.next_retransmission())
            .flatten()
        {
            (self.sender.frame(sn).expect("in the SLB"), Mode::Lbw, true)
        } else {
            self.fill();
            if self.next_new == self.next_alloc {
                return;
            }
            let sn = self.next_new;
            self.next_new += 1;
            let f = if self.params.arq {
                self.sender.frame(sn).expect("in the SLB")
            } else {
                let s = self.segs.back().expect("the segment being framed");
                Frame {
                    sn,
                    marks: marks((sn - s.first) as u32, s.n),
                }
            };
            (f, self.mode, false)
        };
        let dur = self.params.rates.frame_time(mode);
        let end = now + dur;
        let bad = self.chain.bad_during(now, end);
        let p = self.params.errors.loss_probability(mode, bad);
        let lost = self.frame_rng.bernoulli(p);
        self.tx_busy = true;
        {
            let seq = io.next_seq();
            io.wake(end, seq, TOK_TX);
        }
        self.fwd_stats.busy_ns += dur.0;
        let c = &mut self.counters;
        c.frames_sent += 1;
        c.info_bits += TS_FRAME_BYTES as u64 * 8;
        c.frames_lost += lost as u64;
        c.frames_retransmitted += retx as u64;
        c.frames_misaligned += (bad && mode == Mode::Hbw) as u64;
        let arrive = end + self.fwd_delay;
        if self.params.arq {
            self.sender.on_sent(frame.sn, end);
            self.arm_asto(io);
            if !lost {
                self.push_forward(arrive, frame, u32::MAX, io);
            }
        } else {
            let s = self.segs.back_mut().expect("the segment being framed");
            s.hit |= lost;
            if frame.eos() {
                let s = *s;
                self.segs.pop_back();
                if s.hit {
                    self.fwd_stats.channel_drops += 1;
                    io.lose(Dir::Forward, s.slot, LossReason::Channel);
                } else {
                    self.push_forward(arrive, frame, s.slot, io);
                }
            }
        }
    }

    fn push_forward(&mut self, at: Time, f: Frame, slot: u32, io: &mut LinkIo) {
        let seq = io.next_seq();
        if self.fwd_in_flight.is_empty() {
            io.wake(at, seq, TOK_FWD);
        }
        self.fwd_in_flight.push_back((at, seq, f, slot));
    }

    fn arm_asto(&mut self, io: &mut LinkIo) {
        if let Some(d) = self.sender.asto_deadline() {
            if self.asto_wake.is_none_or(|w| d < w) {
                self.asto_wake = Some(d);
                {
                    let seq = io.next_seq();
                    io.wake(d, seq, TOK_ASTO);
                }
            }
        }
    }

    fn arm_arto(&mut self, io: &mut LinkIo) {
        if let Some(d) = self.receiver.arto_deadline() {
            if self.arto_wake.is_none_or(|w| d < w) {
                self.arto_wake = Some(d);
                {
                    let seq = io.next_seq();
                    io.wake(d, seq, TOK_ARTO);
                }
            }
        }
    }

    /// Act on what the receiver said.
    fn receiver_out(&mut self, now: Time, io: &mut LinkIo) {
        let mut out = std::mem::take(&mut self.rx_out);
        for o in out.drain(..) {
            match o {
                RxOut::Deliver { eos } => {
                    let s = self.segs.pop_front().expect("a segment to deliver");
                    debug_assert_eq!(s.first + s.n as u64 - 1, eos);
                    self.fwd_stats.delivered += 1;
                    io.deliver(Dir::Forward, s.slot);
                }
                RxOut::GiveUp { upto } => {
                    self.counters.give_ups += 1;
                    while self.segs.front().is_some_and(|s| s.first < upto) {
                        let s = self.segs.pop_front().unwrap();
                        self.fwd_stats.link_drops += 1;
                        io.lose(Dir::Forward, s.slot, LossReason::LinkLayer);
                    }
                }
                RxOut::Ack(a) => {
                    self.counters.arq_acks_sent += 1;
                    let lost = self.ret_rng.bernoulli(self.params.alr);
                    self.counters.arq_acks_lost += lost as u64;
                    self.ret
                        .enqueue(now, ARQ_ACK_BYTES, RetItem::Ack(a), lost, io);
                }
            }
        }
        self.rx_out = out;
        self.arm_arto(io);
    }

    fn forward_arrival(&mut self, now: Time, io: &mut LinkIo) {
        let (at, _, f, slot) = self.fwd_in_flight.pop_front().expect("a frame in flight");
        debug_assert_eq!(at, now);
        if let Some(&(t2, s2, _, _)) = self.fwd_in_flight.front() {
            io.wake(t2, s2, TOK_FWD);
        }
        if self.params.arq {
            self.receiver.on_frame(now, f, &mut self.rx_out);
            self.receiver_out(now, io);
        } else {
            self.fwd_stats.delivered += 1;
            io.deliver(Dir::Forward, slot);
        }
    }

    fn return_arrival(&mut self, now: Time, io: &mut LinkIo) {
        let (at, _, item) = self.ret.in_flight.pop_front().expect("an item in flight");
        debug_assert_eq!(at, now);
        if let Some(&(t2, s2, _)) = self.ret.in_flight.front() {
            io.wake(t2, s2, TOK_RET);
        }
        match item {
            RetItem::Ip(slot) => {
                self.ret.stats.delivered += 1;
                io.deliver(Dir::Reverse, slot);
            }
            RetItem::Ack(a) => {
                self.sender.on_ack(&a);
                self.arm_asto(io);
                self.try_send(now, io);
            }
            RetItem::Report(bad) => {
                let m = if bad { Mode::Lbw } else { Mode::Hbw };
                if m != self.mode {
                    self.mode = m;
                    self.counters.mode_switches += 1;
                }
            }
        }
    }
}

impl LinkLayer for DvbsLink {
    fn send(&mut self, now: Time, dir: Dir, pkt: LinkPacket, io: &mut LinkIo) {
        self.start(now, io);
        match dir {
            Dir::Forward => {
                let waiting = self.ip_queue.len() as u32;
                // The packet being framed is in service, as on a FIFO link.
                if waiting >= self.ip_limit && (self.tx_busy || self.next_new < self.next_alloc) {
                    self.fwd_stats.queue_drops += 1;
                    io.lose(dir, pkt.slot, LossReason::Queue);
                    return;
                }
                self.fwd_stats.packets += 1;
                self.fwd_stats.bytes += pkt.bytes as u64;
                self.ip_queue.push_back(pkt);
                self.fwd_stats.max_occupancy = self.fwd_stats.max_occupancy.max(waiting + 1);
                self.try_send(now, io);
            }
            Dir::Reverse => {
                // TCP ACKs are five ARQ ACKs long: lost with 1 − (1 − ALR)^5.
                let alr = self.params.alr;
                let mut lost = self.ret_rng.bernoulli(1.0 - (1.0 - alr).powi(5));
                if !lost && !self.ret.channels.is_empty() {
                    let start = self.ret.busy_until.max(now);
                    let tx = Tx {
                        start,
                        end: start + Dur::transmission(pkt.bytes as u64, self.ret.rate_bps),
                        bytes: pkt.bytes,
                        kind: pkt.kind,
                        seq: pkt.seq,
                        retx: pkt.retx,
                    };
                    lost = self.ret.channels.iter_mut().any(|c| c.is_lost(&tx));
                }
                if !self
                    .ret
                    .enqueue(now, pkt.bytes, RetItem::Ip(pkt.slot), lost, io)
                {
                    self.ret.stats.queue_drops += 1;
                    io.lose(dir, pkt.slot, LossReason::Queue);
                    return;
                }
                self.ret.stats.packets += 1;
                self.ret.stats.bytes += pkt.bytes as u64;
                if lost {
                    self.ret.stats.channel_drops += 1;
                    io.lose(dir, pkt.slot, LossReason::Channel);
                }
            }
        }
    }

    fn wake(&mut self, now: Time, token: u32, io: &mut LinkIo) {
        match token {
            TOK_TX => {
                self.tx_busy = false;
                self.try_send(now, io);
            }
            TOK_FWD => self.forward_arrival(now, io),
            TOK_RET => self.return_arrival(now, io),
            TOK_ASTO => {
                if self.asto_wake == Some(now) {
                    self.asto_wake = None;
                }
                let before = self.sender.stats.asto_expiries;
                self.sender.on_asto(now);
                self.counters.asto_expiries += self.sender.stats.asto_expiries - before;
                self.arm_asto(io);
                self.try_send(now, io);
            }
            TOK_ARTO => {
                if self.arto_wake == Some(now) {
                    self.arto_wake = None;
                }
                self.receiver.on_arto(now, &mut self.rx_out);
                self.receiver_out(now, io);
            }
            TOK_CQE => self.report_due(now, io),
            _ => unreachable!("unknown dvbs wake-up token {token}"),
        }
    }

    fn stats(&self, dir: Dir) -> LinkStats {
        match dir {
            Dir::Forward => self.fwd_stats.clone(),
            Dir::Reverse => self.ret.stats.clone(),
        }
    }

    /// The forward link's frames, ARQ and ACM counters (the return path
    /// carries what they cause: ARQ ACKs and channel reports).
    fn counters(&self, dir: Dir) -> Vec<(&'static str, u64)> {
        if dir == Dir::Reverse {
            return Vec::new();
        }
        let c = &self.counters;
        vec![
            ("frames_sent", c.frames_sent),
            ("frames_lost", c.frames_lost),
            ("frames_retransmitted", c.frames_retransmitted),
            ("frames_misaligned", c.frames_misaligned),
            ("mode_switches", c.mode_switches),
            ("arq_acks_sent", c.arq_acks_sent),
            ("arq_acks_lost", c.arq_acks_lost),
            ("reports_sent", c.reports_sent),
            ("asto_expiries", c.asto_expiries),
            ("give_ups", c.give_ups),
        ]
    }
}
impl crate::net::layer::LinkLayerSpecOps for DvbsSpec {
    type Built = DvbsLink;
    fn build(&self, b: crate::net::LinkBuild) -> DvbsLink {
        DvbsLink::build(self, b)
    }
    fn resolve(
        &self,
        fwd: &mut crate::net::LinkDirSpec,
        rev: &mut crate::net::LinkDirSpec,
    ) -> Result<Vec<String>, (String, String)> {
        DvbsSpec::resolve(self, fwd, rev)
    }
    fn check_tcp(
        &self,
        fwd: &crate::net::LinkDirSpec,
        rev: &crate::net::LinkDirSpec,
        rto_min: crate::engine::time::Dur,
    ) -> Vec<String> {
        DvbsSpec::check_tcp(self, fwd, rev, rto_min)
    }
    /// Two switches per mean GOOD/BAD cycle of its fade chain.
    fn state_changes(&self) -> Option<(f64, &'static str)> {
        let p = self.params().ok()?;
        Some((2.0 / (p.t_good_s + p.t_bad_s), "lengthen t_good and t_bad"))
    }
    /// The fade process of the forward direction, as its frames see it.
    fn own_channel(
        &self,
        seed: u64,
        link: &str,
        dir: crate::net::Dir,
    ) -> Result<Option<crate::net::layer::ChannelSampler>, String> {
        if dir == crate::net::Dir::Reverse {
            return Err("the reverse direction of a DVB-S link has no channel model (its fade process is on the forward direction)".into());
        }
        let p = self.params().map_err(|(k, m)| format!("{k}: {m}"))?;
        let mut chain = p.fade_chain(seed, link);
        Ok(Some(Box::new(move |t| {
            let bad = chain.state_at(t);
            (bad as u32, p.frame_loss(bad))
        })))
    }
}
