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

use super::acm::{AcmPolicy, CqeReports, FrameErrors, Mode, ModeRates};
use super::framing::{frames_for, marks, Frame, TS_FRAME_BYTES};
use super::sr_arq::{ArqAck, ArqReceiver, ArqSender, RxOut, ARQ_ACK_BYTES};
use crate::channel::gilbert_elliott::{GilbertElliott, InitialState};
use crate::channel::{Channel, Tx};
use crate::engine::rng::RngStream;
use crate::engine::time::{Dur, Time};
use crate::net::layer::{Dir, LinkBuild, LinkIo, LinkLayer, LinkPacket, LinkStats, LossReason};
use crate::net::LinkDirSpec;
use crate::units::{Duration, Rate, Size};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `links.<id>.link_layer = { model = "dvbs", ... }`. Every field has a
/// default (the study's values); see `docs/scenario.md`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DvbsSpec {
    /// "acm" (default), "fixed-hbw" or "fixed-lbw".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acm: Option<AcmSetting>,
    /// Mean GOOD sojourn of the channel (default 6 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_good: Option<Checked<Duration>>,
    /// Mean BAD sojourn (default 2 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_bad: Option<Checked<Duration>>,
    /// "good" or "bad"; default drawn from the stationary distribution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<InitialState>,
    /// Frame error rate while the channel is GOOD (default 1e-5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fer_good: Option<f64>,
    /// Frame error rate of LBW frames while the channel is BAD (default 1e-4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fer_bad: Option<f64>,
    /// Information rate of the HBW mode (default 1.416 Mb/s: QPSK 3/4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hbw_rate: Option<Checked<Rate>>,
    /// Information rate of the LBW mode (default 0.472 Mb/s: BPSK 1/2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lbw_rate: Option<Checked<Rate>>,
    /// Channel-quality estimation time (default 50 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cqe: Option<Checked<Duration>>,
    /// Selective-repeat ARQ on (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arq: Option<bool>,
    /// Persistency: retransmissions per frame at most (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nmax: Option<i64>,
    /// Sender timeout on (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asto: Option<bool>,
    /// Sender timeout value when on (default 0.32 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asto_time: Option<Checked<Duration>>,
    /// Receiver timeout (default 0.6 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arto: Option<Checked<Duration>>,
    /// SLB = RLB size (default ARTO × HBW information rate, which meets the
    /// sizing rule RLB = SLB ≥ ASTO × HBW rate whenever ARTO > ASTO).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Checked<Size>>,
    /// ARQ ACK loss rate on the return path (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alr: Option<f64>,
    /// "rct" (terrestrial 3G: 144 kb/s, 30 ms) or "rcs" (back through the
    /// satellite: `rcs_rate`, the forward delay). Absent: the link's reverse
    /// direction as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_path: Option<ReturnPathSetting>,
    /// Return rate through the satellite (default 144 kb/s, as the 3G path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcs_rate: Option<Checked<Rate>>,
}

/// How the sender picks its mode (`acm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AcmSetting {
    // Follow the receiver's channel reports.
    Acm,
    FixedHbw,
    FixedLbw,
}

impl AcmSetting {
    pub fn policy(self) -> AcmPolicy {
        match self {
            AcmSetting::Acm => AcmPolicy::Acm,
            AcmSetting::FixedHbw => AcmPolicy::FixedHbw,
            AcmSetting::FixedLbw => AcmPolicy::FixedLbw,
        }
    }
}

/// The return path of a DVB-S link (`return_path`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReturnPathSetting {
    // Terrestrial 3G: 144 kb/s, 30 ms.
    Rct,
    // Back through the satellite.
    Rcs,
}

/// A quantity as written: its unit error is kept, so that validation can
/// name the key (an internally tagged table loses the field's path in serde
/// errors).
#[derive(Clone, Debug, PartialEq)]
pub enum Checked<T> {
    Ok(T),
    Bad(String),
}

/// In the schema a checked value is the value itself (the `Bad` case only
/// carries a deserialisation error to report at its own key).
impl<T: schemars::JsonSchema> schemars::JsonSchema for Checked<T> {
    fn schema_name() -> String {
        T::schema_name()
    }
    fn json_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        T::json_schema(gen)
    }
}

impl<T: Serialize> Serialize for Checked<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Checked::Ok(v) => v.serialize(s),
            Checked::Bad(m) => s.serialize_str(m),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Checked<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match T::deserialize(d) {
            Ok(v) => Checked::Ok(v),
            // The message only (a TOML error may carry a source excerpt).
            Err(e) => Checked::Bad(
                e.to_string()
                    .lines()
                    .map(str::trim)
                    .rfind(|l| !l.is_empty())
                    .unwrap_or("invalid value")
                    .to_string(),
            ),
        })
    }
}

impl<T: Copy> Checked<T> {
    fn get(this: Option<&Checked<T>>, key: &str) -> Result<Option<T>, (String, String)> {
        match this {
            None => Ok(None),
            Some(Checked::Ok(v)) => Ok(Some(*v)),
            Some(Checked::Bad(m)) => Err((key.to_string(), m.clone())),
        }
    }
}

/// The resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DvbsParams {
    pub policy: AcmPolicy,
    pub t_good_s: f64,
    pub t_bad_s: f64,
    pub initial: Option<bool>,
    pub errors: FrameErrors,
    pub rates: ModeRates,
    pub cqe: Dur,
    pub arq: bool,
    pub nmax: u32,
    pub asto: Option<Dur>,
    pub arto: Dur,
    pub buffer_frames: u64,
    pub alr: f64,
}

pub const RCT_RATE_BPS: u64 = 144_000;
pub const RCT_DELAY: Dur = Dur::from_millis(30);

fn check_p(key: &str, p: Option<f64>) -> Result<(), (String, String)> {
    match p {
        Some(p) if !(p.is_finite() && (0.0..=1.0).contains(&p)) => Err((
            key.to_string(),
            format!("{p} is not a probability in [0, 1]"),
        )),
        _ => Ok(()),
    }
}

impl DvbsSpec {
    pub fn params(&self) -> Result<DvbsParams, (String, String)> {
        let policy = self.acm.map_or(AcmPolicy::Acm, AcmSetting::policy);
        let dur = |v: &Option<Checked<Duration>>, k: &str| {
            Checked::get(v.as_ref(), k).map(|d| d.map(|d| d.0))
        };
        let rate = |v: &Option<Checked<Rate>>, k: &str| Checked::get(v.as_ref(), k);
        let t_good = dur(&self.t_good, "t_good")?.unwrap_or(Dur::from_secs(6));
        let t_bad = dur(&self.t_bad, "t_bad")?.unwrap_or(Dur::from_secs(2));
        let cqe = dur(&self.cqe, "cqe")?.unwrap_or(Dur::from_millis(50));
        let hbw = rate(&self.hbw_rate, "hbw_rate")?;
        let lbw = rate(&self.lbw_rate, "lbw_rate")?;
        let rcs_rate = rate(&self.rcs_rate, "rcs_rate")?;
        let buffer = Checked::get(self.buffer.as_ref(), "buffer")?;
        for (k, d) in [("t_good", t_good), ("t_bad", t_bad)] {
            if d.0 == 0 {
                return Err((k.into(), "a mean sojourn must be positive".into()));
            }
        }
        let initial = self.initial.map(InitialState::is_bad);
        check_p("fer_good", self.fer_good)?;
        check_p("fer_bad", self.fer_bad)?;
        check_p("alr", self.alr)?;
        let rates = ModeRates {
            hbw_bps: hbw.map_or(1_416_000, |r| r.0),
            lbw_bps: lbw.map_or(472_000, |r| r.0),
        };
        for (k, r) in [("hbw_rate", rates.hbw_bps), ("lbw_rate", rates.lbw_bps)] {
            if r == 0 {
                return Err((k.into(), "a rate must be positive".into()));
            }
        }
        let asto_time = dur(&self.asto_time, "asto_time")?.unwrap_or(Dur::from_millis(320));
        let asto = self.asto.unwrap_or(false).then_some(asto_time);
        if asto.is_some_and(|a| a.0 == 0) {
            return Err(("asto_time".into(), "must be positive".into()));
        }
        let arto = dur(&self.arto, "arto")?.unwrap_or(Dur::from_millis(600));
        if arto.0 == 0 {
            return Err(("arto".into(), "must be positive".into()));
        }
        let buffer_bytes = match buffer {
            Some(b) => b.0,
            None => (arto.as_secs_f64() * rates.hbw_bps as f64 / 8.0).ceil() as u64,
        };
        if buffer_bytes < TS_FRAME_BYTES as u64 {
            return Err((
                "buffer".into(),
                format!("{buffer_bytes} B holds no 188-byte frame"),
            ));
        }
        let nmax = self.nmax.unwrap_or(1);
        if !(0..=u32::MAX as i64).contains(&nmax) {
            return Err((
                "nmax".into(),
                format!("{nmax} is not a persistency (a number of retransmissions, 0 or more)"),
            ));
        }
        if rcs_rate.is_some_and(|r| r.0 == 0) {
            return Err(("rcs_rate".into(), "a rate must be positive".into()));
        }
        Ok(DvbsParams {
            policy,
            t_good_s: t_good.as_secs_f64(),
            t_bad_s: t_bad.as_secs_f64(),
            initial,
            errors: FrameErrors {
                fer_good: self.fer_good.unwrap_or(1e-5),
                fer_bad: self.fer_bad.unwrap_or(1e-4),
            },
            rates,
            cqe,
            arq: self.arq.unwrap_or(true),
            nmax: nmax as u32,
            asto,
            arto,
            buffer_frames: buffer_bytes / TS_FRAME_BYTES as u64,
            alr: self.alr.unwrap_or(0.0),
        })
    }

    /// Check the spec against the link it sits on and fix the link's
    /// directions: the forward rate becomes the HBW information rate (what
    /// `describe` shows; the link sends at the rate of the mode in use), the
    /// reverse direction follows `return_path`. Returns warnings (the
    /// study's timer and buffer rules); `rto_min` is the TCP minimum RTO.
    pub fn resolve(
        &self,
        fwd: &mut LinkDirSpec,
        rev: &mut LinkDirSpec,
        rto_min: Dur,
    ) -> Result<Vec<String>, (String, String)> {
        let p = self.params()?;
        if !fwd.channels.is_empty() {
            return Err((
                "model".into(),
                "the dvbs link draws its own frame errors: give fer_good/fer_bad instead of a channel on the forward direction".into(),
            ));
        }
        fwd.rate_bps = p.rates.hbw_bps;
        match self.return_path {
            Some(ReturnPathSetting::Rct) => {
                rev.rate_bps = RCT_RATE_BPS;
                rev.delay = RCT_DELAY;
            }
            Some(ReturnPathSetting::Rcs) => {
                rev.rate_bps = match &self.rcs_rate {
                    Some(Checked::Ok(r)) => r.0,
                    _ => RCT_RATE_BPS,
                };
                rev.delay = fwd.delay;
            }
            None => {}
        }
        let mut w = Vec::new();
        // The link's round trip: one frame out, one ARQ ACK back.
        let rtt = fwd.delay
            + rev.delay
            + p.rates.frame_time(Mode::Hbw)
            + Dur::transmission(ARQ_ACK_BYTES as u64, rev.rate_bps);
        let s = |d: Dur| format!("{:.3} s", d.as_secs_f64());
        if p.arq {
            if let Some(asto) = p.asto {
                if asto <= rtt {
                    w.push(format!("ASTO {} is not above the link round trip {} (timer rule RTO − RTT > ARTO > ASTO > RTT)", s(asto), s(rtt)));
                }
                if p.arto <= asto {
                    w.push(format!(
                        "ARTO {} is not above ASTO {} (timer rule RTO − RTT > ARTO > ASTO > RTT)",
                        s(p.arto),
                        s(asto)
                    ));
                }
                let need = (asto.as_secs_f64() * p.rates.hbw_bps as f64 / 8.0).ceil() as u64;
                if p.buffer_frames * (TS_FRAME_BYTES as u64) < need {
                    w.push(format!(
                        "SLB = RLB of {} B is below ASTO × HBW rate = {need} B (sizing rule RLB = SLB ≥ ASTO × information rate in GOOD)",
                        p.buffer_frames * TS_FRAME_BYTES as u64
                    ));
                }
            } else if p.arto <= rtt {
                w.push(format!("ARTO {} is not above the link round trip {} (timer rule RTO − RTT > ARTO > ASTO > RTT)", s(p.arto), s(rtt)));
            }
            if rto_min <= rtt || rto_min - rtt <= p.arto {
                w.push(format!("the TCP minimum RTO {} minus the link round trip {} is not above ARTO {} (timer rule RTO − RTT > ARTO > ASTO > RTT)", s(rto_min), s(rtt), s(p.arto)));
            }
        }
        Ok(w)
    }
}

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
        let mut chain = GilbertElliott::new(
            params.t_good_s,
            params.t_bad_s,
            params.initial,
            RngStream::derive(seed, &format!("dvbs:{name}:chain")),
        );
        let mode = params.policy.initial_mode(chain.state_at(Time::ZERO));
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
            reports: CqeReports::new(fwd_delay, params.cqe),
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
            let (at, bad) = self.reports.peek(&mut self.chain);
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
        let lost = if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.frame_rng.uniform() < p
        };
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
                    let lost = self.params.alr > 0.0 && self.ret_rng.uniform() < self.params.alr;
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
                let mut lost = alr > 0.0 && self.ret_rng.uniform() < 1.0 - (1.0 - alr).powi(5);
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
}
