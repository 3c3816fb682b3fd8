//! A beam as a scenario describes it (`beams.<id>`): the gateway, the
//! member links (one per terminal, each joining the gateway and its
//! terminal), the forward carrier (DVB-S2/S2X) and the return link
//! (DVB-RCS2) with each terminal's capacity categories; and its resolution
//! against the member links into [`BeamParams`], what the beam is built
//! from. Every key has a default except those named required; errors name
//! the key within the beam's table.

use crate::engine::time::Dur;
use crate::net::dvbs2::acm::{AcmRule, Ladder};
use crate::net::dvbs2::gse::Headers;
use crate::net::dvbs2::modcod::{self, FrameSize, Standard, MODCODS};
use crate::net::rcs2::rle::Rle;
use crate::net::rcs2::waveform;
use crate::net::rcs2::{Superframe, TermConfig};
use crate::units::{Duration, Rate, Size};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `beams.<id>`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BeamSpec {
    /// The gateway node (the hub every member link joins).
    pub gateway: String,
    /// The member links, one per terminal.
    pub links: Vec<String>,
    /// The DVB-S2/S2X forward carrier the terminals share (absent: each
    /// member's forward direction is a FIFO at its own rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward: Option<ForwardSpec>,
    /// The DVB-RCS2 return link (absent: each member's return direction is
    /// a FIFO at its own rate).
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "return")]
    pub ret: Option<ReturnSpec>,
    /// Resolved against the member links when the plan is built.
    #[serde(skip)]
    pub resolved: crate::channel::table::Loaded<BeamParams>,
}

/// `beams.<id>.forward`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForwardSpec {
    /// Symbol rate of the carrier, Mbaud (required).
    pub symbol_rate_mbaud: f64,
    /// "normal" (64 800 bits, default) or "short" (16 200) FECFRAMEs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameSetting>,
    /// Pilot blocks (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pilots: Option<bool>,
    /// "s2" (EN 302 307-1's 28, default), "s2x" (with EN 302 307-2's
    /// additions) or a list of MODCOD names ("QPSK 1/2", "16APSK-L 8/15").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modcods: Option<ModcodSet>,
    /// Added to every MODCOD's ideal Es/N0 (implementation loss), dB (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_offset_db: Option<f64>,
    /// ACM margin below the reported Es/N0, dB (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_db: Option<f64>,
    /// ACM hysteresis for switching up, dB (default 0.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hysteresis_db: Option<f64>,
    /// Es/N0 report period (default 100 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_period: Option<Duration>,
    /// A report's delay to the gateway (default: the member's return delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_delay: Option<Duration>,
    /// GSE label bytes: 6 (default), 3 or 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gse_label_bytes: Option<u32>,
    /// Es/N0 of terminals whose forward direction has no model giving one, dB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub esn0_db: Option<f64>,
}

/// FECFRAME length setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FrameSetting {
    Normal,
    Short,
}

/// The MODCODs a carrier may use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ModcodSet {
    /// "s2" or "s2x".
    Named(String),
    /// MODCOD names.
    List(Vec<String>),
}

/// `beams.<id>.return`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReturnSpec {
    /// Symbol rate of each carrier, Mbaud (required).
    pub symbol_rate_mbaud: f64,
    /// Reference waveform id of EN 301 545-2 Table A-1, 3–22 (default 14: QPSK 1/2, 188 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waveform: Option<u32>,
    /// Carriers (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carriers: Option<u32>,
    /// Guard symbols between bursts (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_symbols: Option<u32>,
    /// Frame duration (default 26.5 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Duration>,
    /// Frames per superframe (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<u32>,
    /// Timeslots per frame and carrier (default: as many as fit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots_per_frame: Option<u32>,
    /// The scheduler's latency at the gateway (default 10 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_latency: Option<Duration>,
    /// Superframes an RBDC request holds (default 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rbdc_timeout: Option<u32>,
    /// RLE protocol type bytes: 2 (default), 1 or 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_type_bytes: Option<u32>,
    /// Every terminal's CRA (default none) unless its own table says otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cra: Option<Rate>,
    /// Every terminal's RBDC maximum (default none: no RBDC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rbdc_max: Option<Rate>,
    /// Every terminal's VBDC maximum volume (default none: no VBDC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vbdc_max: Option<Size>,
    /// Every terminal's free capacity assignment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fca: Option<bool>,
    /// Every terminal's weight (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// Per terminal (by member link name): its categories.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub terminals: BTreeMap<String, Categories>,
}

/// A terminal's capacity categories.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Categories {
    /// Constant rate assignment (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cra: Option<Rate>,
    /// RBDC maximum rate (default none: no RBDC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rbdc_max: Option<Rate>,
    /// VBDC maximum outstanding volume (default none: no VBDC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vbdc_max: Option<Size>,
    /// Free capacity assignment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fca: Option<bool>,
    /// Weight in the fair shares (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

/// A member link as the beam is resolved against it.
#[derive(Clone, Copy, Debug)]
pub struct MemberShape<'a> {
    pub name: &'a str,
    /// Propagation delay gateway → terminal and back.
    pub fwd_delay: Dur,
    pub rtn_delay: Dur,
    /// Whether its forward direction has a channel model giving Es/N0.
    pub has_esn0: bool,
}

/// The resolved forward carrier.
#[derive(Clone, Debug)]
pub struct ForwardParams {
    pub symbol_rate: f64,
    pub frame: FrameSize,
    pub pilots: bool,
    pub ladder: Ladder,
    pub rule: AcmRule,
    pub headers: Headers,
    /// Per member: its report delay.
    pub report_delay: Vec<Dur>,
    pub default_esn0_db: Option<f64>,
}

/// The resolved return link.
#[derive(Clone, Debug)]
pub struct ReturnParams {
    pub sf: Superframe,
    pub waveform: u32,
    pub symbol_rate: f64,
    pub scheduler_latency: Dur,
    pub rbdc_timeout: u32,
    pub rle: Rle,
    pub terms: Vec<TermConfig>,
}

/// What a beam is built from.
#[derive(Clone, Debug)]
pub struct BeamParams {
    pub forward: Option<ForwardParams>,
    pub ret: Option<ReturnParams>,
}

impl BeamParams {
    /// The most one terminal's directions can carry, bit/s: forward, the
    /// carrier at its most efficient MODCOD; return, one carrier's
    /// timeslots (a terminal sends on one carrier at a time). The plan
    /// gives them to the member links' directions (whose own `rate` the
    /// beam does not use), so their figures, warnings and results read
    /// the beam's; `None` for a part the beam does not have.
    pub fn member_rates_bps(&self) -> (Option<f64>, Option<f64>) {
        let fwd = self.forward.as_ref().map(|f| {
            let best = f.ladder.efficiency.iter().copied().fold(0.0, f64::max);
            f.symbol_rate * best
        });
        let rtn = self
            .ret
            .as_ref()
            .map(|r| r.sf.rate_bps() / r.sf.carriers as f64);
        (fwd, rtn)
    }
}

type KeyErr = (String, String);

fn err(k: &str, m: impl Into<String>) -> KeyErr {
    (k.to_string(), m.into())
}

impl ForwardSpec {
    fn resolve(&self, members: &[MemberShape]) -> Result<ForwardParams, KeyErr> {
        let rs = self.symbol_rate_mbaud;
        if !(rs.is_finite() && rs > 0.0) {
            return Err(err(
                "forward.symbol_rate_mbaud",
                format!("{rs} is not a positive symbol rate"),
            ));
        }
        let frame = match self.frame {
            Some(FrameSetting::Short) => FrameSize::Short,
            _ => FrameSize::Normal,
        };
        let chosen: Vec<usize> = match &self.modcods {
            None => MODCODS
                .iter()
                .enumerate()
                .filter(|(_, m)| m.standard == Standard::S2)
                .map(|(i, _)| i)
                .collect(),
            Some(ModcodSet::Named(n)) if n == "s2" => MODCODS
                .iter()
                .enumerate()
                .filter(|(_, m)| m.standard == Standard::S2)
                .map(|(i, _)| i)
                .collect(),
            Some(ModcodSet::Named(n)) if n == "s2x" => (0..MODCODS.len()).collect(),
            Some(ModcodSet::Named(n)) => {
                return Err(err(
                    "forward.modcods",
                    format!(
                        "{n:?} is not a MODCOD set (\"s2\", \"s2x\", or a list of MODCOD names)"
                    ),
                ))
            }
            Some(ModcodSet::List(names)) => {
                let mut v = Vec::new();
                for (i, n) in names.iter().enumerate() {
                    let k = modcod::by_name(n).ok_or_else(|| {
                        err(
                            &format!("forward.modcods[{i}]"),
                            format!(
                                "unknown MODCOD {n:?}{}",
                                crate::suggest::hint(n, modcod::names())
                            ),
                        )
                    })?;
                    if v.contains(&k) {
                        return Err(err(
                            &format!("forward.modcods[{i}]"),
                            format!("{n:?} is listed twice"),
                        ));
                    }
                    v.push(k);
                }
                if v.is_empty() {
                    return Err(err(
                        "forward.modcods",
                        "the carrier needs at least one MODCOD",
                    ));
                }
                v
            }
        };
        let offset = self.threshold_offset_db.unwrap_or(0.0);
        let mut index = Vec::new();
        for &k in &chosen {
            if MODCODS[k].kbch(frame).is_some() {
                index.push(k);
            } else if matches!(self.modcods, Some(ModcodSet::List(_))) {
                return Err(err(
                    "forward.modcods",
                    format!(
                        "{} has no short frame (EN 302 307 defines none); use frame = \"normal\"",
                        MODCODS[k].name
                    ),
                ));
            }
        }
        let ladder = Ladder {
            threshold_db: index.iter().map(|&i| MODCODS[i].esn0_db + offset).collect(),
            efficiency: index
                .iter()
                .map(|&i| {
                    MODCODS[i]
                        .efficiency(frame, self.pilots.unwrap_or(true))
                        .unwrap()
                })
                .collect(),
            index,
        };
        for (k, v) in [
            ("forward.threshold_offset_db", self.threshold_offset_db),
            ("forward.esn0_db", self.esn0_db),
        ] {
            if v.is_some_and(|x| !x.is_finite()) {
                return Err(err(k, "is not a finite number of dB"));
            }
        }
        for (k, v) in [
            ("forward.margin_db", self.margin_db),
            ("forward.hysteresis_db", self.hysteresis_db),
        ] {
            if v.is_some_and(|x| !(x.is_finite() && x >= 0.0)) {
                return Err(err(
                    k,
                    format!("{} is not a margin (0 dB or more)", v.unwrap()),
                ));
            }
        }
        let period = self.report_period.map_or(Dur::from_millis(100), |d| d.0);
        if period.0 == 0 {
            return Err(err("forward.report_period", "must be positive"));
        }
        let label = self.gse_label_bytes.unwrap_or(6);
        if ![0, 3, 6].contains(&label) {
            return Err(err(
                "forward.gse_label_bytes",
                format!("{label} is not a GSE label length (6, 3 or 0 bytes)"),
            ));
        }
        if self.esn0_db.is_none() {
            if let Some(m) = members.iter().find(|m| !m.has_esn0) {
                return Err(err(
                    "forward.esn0_db",
                    format!("missing: terminal link {} has no model giving its Es/N0 (a rain-fade channel on its forward direction); give forward.esn0_db for such terminals", m.name),
                ));
            }
        }
        Ok(ForwardParams {
            symbol_rate: rs * 1e6,
            frame,
            pilots: self.pilots.unwrap_or(true),
            ladder,
            rule: AcmRule {
                margin_db: self.margin_db.unwrap_or(1.0),
                hysteresis_db: self.hysteresis_db.unwrap_or(0.3),
                period,
            },
            headers: Headers::new(label),
            report_delay: members
                .iter()
                .map(|m| self.report_delay.map_or(m.rtn_delay, |d| d.0))
                .collect(),
            default_esn0_db: self.esn0_db,
        })
    }
}

impl Categories {
    /// This table over `base`.
    fn over(&self, base: &Categories) -> Categories {
        Categories {
            cra: self.cra.or(base.cra),
            rbdc_max: self.rbdc_max.or(base.rbdc_max),
            vbdc_max: self.vbdc_max.or(base.vbdc_max),
            fca: self.fca.or(base.fca),
            weight: self.weight.or(base.weight),
        }
    }
}

impl ReturnSpec {
    fn resolve(&self, members: &[MemberShape]) -> Result<ReturnParams, KeyErr> {
        let rs = self.symbol_rate_mbaud;
        if !(rs.is_finite() && rs > 0.0) {
            return Err(err(
                "return.symbol_rate_mbaud",
                format!("{rs} is not a positive symbol rate"),
            ));
        }
        let id = self.waveform.unwrap_or(14);
        let w = waveform::by_id(id).ok_or_else(|| {
            err("return.waveform", format!("{id} is not a reference waveform of EN 301 545-2 Table A-1 offered here (3–22)"))
        })?;
        let frame = self.frame.map_or(Dur::from_micros(26_500), |d| d.0);
        let sf = Superframe::new(
            w,
            rs * 1e6,
            self.guard_symbols.unwrap_or(4),
            frame,
            self.frames.unwrap_or(1),
            self.carriers.unwrap_or(1),
            self.slots_per_frame,
        )
        .map_err(|(k, m)| err(&format!("return.{k}"), m))?;
        let pt = self.protocol_type_bytes.unwrap_or(2);
        if ![0, 1, 2].contains(&pt) {
            return Err(err(
                "return.protocol_type_bytes",
                format!("{pt} is not an RLE protocol type length (2, 1 or 0 bytes)"),
            ));
        }
        let timeout = self.rbdc_timeout.unwrap_or(16);
        if timeout == 0 {
            return Err(err(
                "return.rbdc_timeout",
                "must be at least one superframe",
            ));
        }
        for k in self.terminals.keys() {
            if !members.iter().any(|m| m.name == k) {
                let names: Vec<&str> = members.iter().map(|m| m.name).collect();
                return Err(err(
                    &format!("return.terminals.{k}"),
                    format!(
                        "{k:?} is not a member link of this beam (links: {}){}",
                        names.join(", "),
                        crate::suggest::hint(k, names.iter().copied())
                    ),
                ));
            }
        }
        let base = Categories {
            cra: self.cra,
            rbdc_max: self.rbdc_max,
            vbdc_max: self.vbdc_max,
            fca: self.fca,
            weight: self.weight,
        };
        let mut terms = Vec::new();
        let mut cra_slots = 0.0;
        for m in members {
            let own = self.terminals.get(m.name);
            let c = own.map_or(base.clone(), |o| o.over(&base));
            let key = |f: &str| match own {
                Some(o)
                    if (f == "cra" && o.cra.is_some()) || (f == "weight" && o.weight.is_some()) =>
                {
                    format!("return.terminals.{}.{f}", m.name)
                }
                _ => format!("return.{f}"),
            };
            let weight = c.weight.unwrap_or(1.0);
            if !(weight.is_finite() && weight > 0.0) {
                return Err(err(
                    &key("weight"),
                    format!("{weight} is not a positive weight"),
                ));
            }
            let t = TermConfig {
                cra_bps: c.cra.map_or(0.0, |r| r.0 as f64),
                rbdc_max_bps: c.rbdc_max.map_or(0.0, |r| r.0 as f64),
                vbdc_max_bytes: c.vbdc_max.map_or(0, |s| s.0),
                fca: c.fca.unwrap_or(false),
                weight,
            };
            if t.cra_bps == 0.0 && t.rbdc_max_bps == 0.0 && t.vbdc_max_bytes == 0 && !t.fca {
                return Err(err(
                    &format!("return.terminals.{}", m.name),
                    format!("terminal link {} has no capacity category: give it cra, rbdc_max, vbdc_max or fca (here or for every terminal in return)", m.name),
                ));
            }
            cra_slots += sf.slots_for_rate(t.cra_bps).ceil();
            if cra_slots > sf.capacity() as f64 {
                return Err(err(
                    &key("cra"),
                    format!(
                        "the terminals' CRA up to {} needs {cra_slots} timeslots per superframe, more than the beam's {} ({:.0} bit/s of payload)",
                        m.name,
                        sf.capacity(),
                        sf.rate_bps()
                    ),
                ));
            }
            if sf.slots_for_rate(t.cra_bps).ceil() > sf.positions() as f64 {
                return Err(err(&key("cra"), format!("{} bit/s needs more timeslots than a terminal can send per superframe on one carrier ({})", t.cra_bps, sf.positions())));
            }
            terms.push(t);
        }
        Ok(ReturnParams {
            sf,
            waveform: id,
            symbol_rate: rs * 1e6,
            scheduler_latency: self.scheduler_latency.map_or(Dur::from_millis(10), |d| d.0),
            rbdc_timeout: timeout,
            rle: Rle {
                protocol_type: pt,
                trailer: 1,
            },
            terms,
        })
    }
}

impl BeamSpec {
    /// Check the beam against its member links; `Err((key within the
    /// beam's table, message))`.
    pub fn resolve(&self, members: &[MemberShape]) -> Result<BeamParams, KeyErr> {
        if members.is_empty() {
            return Err(err("links", "a beam needs at least one member link"));
        }
        Ok(BeamParams {
            forward: self
                .forward
                .as_ref()
                .map(|f| f.resolve(members))
                .transpose()?,
            ret: self.ret.as_ref().map(|r| r.resolve(members)).transpose()?,
        })
    }

    /// Resolve and keep the result for building (at plan build).
    pub fn prepare(&mut self, members: &[MemberShape]) -> Result<(), KeyErr> {
        let p = self.resolve(members)?;
        self.resolved = crate::channel::table::Loaded(Some(std::sync::Arc::new(p)));
        Ok(())
    }

    /// The beam in words, for `skyhop describe`: the MODCOD range, the
    /// superframe and each terminal's capacity categories.
    pub fn describe(&self, p: &BeamParams, members: &[MemberShape]) -> Vec<String> {
        let mut out = Vec::new();
        match &p.forward {
            Some(f) => {
                let l = &f.ladder;
                let lo = l.most_robust();
                let hi = (0..l.index.len())
                    .max_by(|&a, &b| l.efficiency[a].total_cmp(&l.efficiency[b]))
                    .unwrap();
                out.push(format!(
                    "forward: DVB-S2{} at {} Mbaud, {} frames{}, {} MODCODs from {} ({:.2} dB, {:.3} bit/sym) to {} ({:.2} dB, {:.3} bit/sym); ACM margin {} dB, hysteresis {} dB, reports every {} ms",
                    if l.index.iter().any(|&i| MODCODS[i].standard == Standard::S2x) { "X" } else { "" },
                    f.symbol_rate / 1e6,
                    if f.frame == FrameSize::Normal { "normal" } else { "short" },
                    if f.pilots { " with pilots" } else { "" },
                    l.index.len(),
                    MODCODS[l.index[lo]].name,
                    l.threshold_db[lo],
                    l.efficiency[lo],
                    MODCODS[l.index[hi]].name,
                    l.threshold_db[hi],
                    l.efficiency[hi],
                    f.rule.margin_db,
                    f.rule.hysteresis_db,
                    f.rule.period.as_secs_f64() * 1e3,
                ));
            }
            None => out.push("forward: each member's own FIFO".into()),
        }
        match &p.ret {
            Some(r) => {
                let w = waveform::by_id(r.waveform).unwrap();
                out.push(format!(
                    "return: DVB-RCS2 MF-TDMA, waveform {} ({}, {} bytes per {}-symbol burst), {} carrier(s) at {} Mbaud, superframe {} ms of {} frame(s) × {} timeslots of {:.3} ms: {} timeslots, {:.0} bit/s; scheduler latency {} ms, RBDC timeout {} superframes",
                    r.waveform,
                    w.describe(),
                    w.payload_bytes,
                    w.burst_symbols,
                    r.sf.carriers,
                    r.symbol_rate / 1e6,
                    r.sf.duration().as_secs_f64() * 1e3,
                    r.sf.frames,
                    r.sf.slots_per_frame,
                    r.sf.slot.as_secs_f64() * 1e3,
                    r.sf.capacity(),
                    r.sf.rate_bps(),
                    r.scheduler_latency.as_secs_f64() * 1e3,
                    r.rbdc_timeout,
                ));
                for (m, t) in members.iter().zip(&r.terms) {
                    let mut c = Vec::new();
                    if t.cra_bps > 0.0 {
                        c.push(format!("CRA {} bit/s", t.cra_bps));
                    }
                    if t.rbdc_max_bps > 0.0 {
                        c.push(format!("RBDC up to {} bit/s", t.rbdc_max_bps));
                    }
                    if t.vbdc_max_bytes > 0 {
                        c.push(format!("VBDC up to {} B", t.vbdc_max_bytes));
                    }
                    if t.fca {
                        c.push("FCA".into());
                    }
                    out.push(format!(
                        "terminal {}: {}, weight {}",
                        m.name,
                        c.join(", "),
                        t.weight
                    ));
                }
            }
            None => out.push("return: each member's own FIFO".into()),
        }
        out
    }
}
