//! The DVB-S link layer as a scenario describes it
//! (`links.<id>.link_layer = { model = "dvbs", ... }`): its parameters with
//! the study's defaults (N. Celandroni, E. Ferro, G. Giambene, M. Marandola,
//! "Satellite-3G Hybrid Networks: Impact of ACM and ARQ on TCP Performance",
//! 2007), their checks, and their resolution against the link (the return
//! path's rate and delay) into [`DvbsParams`], what the link layer
//! (`dvbs.rs`) is built from.

use super::acm::{AcmPolicy, FrameErrors, Mode, ModeRates};
use super::framing::TS_FRAME_BYTES;
use super::sr_arq::ARQ_ACK_BYTES;
use crate::channel::gilbert_elliott::InitialState;
use crate::engine::time::Dur;
use crate::net::LinkDirSpec;
use crate::units::{Duration, Rate, Size};
use serde::{Deserialize, Serialize};

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

impl DvbsParams {
    /// The fade process of the forward channel of link `name` in a run with
    /// `seed` (true = BAD): the chain the link judges its frames by, so a
    /// plot of it is what that run sees.
    pub fn fade_chain(
        &self,
        seed: u64,
        name: &str,
    ) -> crate::channel::gilbert_elliott::GilbertElliott {
        crate::channel::gilbert_elliott::GilbertElliott::new(
            self.t_good_s,
            self.t_bad_s,
            self.initial,
            crate::engine::rng::RngStream::derive(seed, &format!("dvbs:{name}:chain")),
        )
    }

    /// Probability a frame is lost in channel state `bad`, in the mode the
    /// ACM policy settles in for that state.
    pub fn frame_loss(&self, bad: bool) -> f64 {
        self.errors
            .loss_probability(self.policy.initial_mode(bad), bad)
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
    /// study's timer rules among the link's own timers, and its buffer
    /// rule); the rule that involves TCP is [`DvbsSpec::check_tcp`].
    pub fn resolve(
        &self,
        fwd: &mut LinkDirSpec,
        rev: &mut LinkDirSpec,
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
        let rtt = link_rtt(&p, fwd, rev);
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
        }
        Ok(w)
    }

    /// The timer rule's part that involves TCP, for the connections that
    /// cross the link (resolved by [`DvbsSpec::resolve`]), the smallest
    /// minimum RTO among them `rto_min`: RTO − RTT > ARTO, or a TCP timeout
    /// fires while the link still repairs the loss.
    pub fn check_tcp(&self, fwd: &LinkDirSpec, rev: &LinkDirSpec, rto_min: Dur) -> Vec<String> {
        let Ok(p) = self.params() else {
            return Vec::new();
        };
        let rtt = link_rtt(&p, fwd, rev);
        if p.arq && (rto_min <= rtt || rto_min - rtt <= p.arto) {
            return vec![format!("the TCP minimum RTO {} minus the link round trip {} is not above ARTO {} (timer rule RTO − RTT > ARTO > ASTO > RTT)", s(rto_min), s(rtt), s(p.arto))];
        }
        Vec::new()
    }
}

/// The link's round trip: one frame out, one ARQ ACK back.
fn link_rtt(p: &DvbsParams, fwd: &LinkDirSpec, rev: &LinkDirSpec) -> Dur {
    fwd.delay
        + rev.delay
        + p.rates.frame_time(Mode::Hbw)
        + Dur::transmission(ARQ_ACK_BYTES as u64, rev.rate_bps)
}

/// A time as the warnings write it.
fn s(d: Dur) -> String {
    format!("{:.3} s", d.as_secs_f64())
}
