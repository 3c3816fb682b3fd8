//! A GEO broadband beam as one shared medium (`net/medium.rs`): the member
//! links join the gateway and one terminal each; their directions out of
//! the gateway share a DVB-S2/S2X forward carrier (`net/dvbs2/`), their
//! directions into it a DVB-RCS2 return link (`net/rcs2/`). Either part may
//! be left out, and each member's direction is then a FIFO at its own rate
//! (the link layer of a plain link). Its scenario table and resolution are
//! in `spec.rs`.
//!
//! The forward carrier takes each terminal's Es/N₀ from the first model of
//! its forward channel stack that gives one (a rain-fade channel), or the
//! beam's `forward.esn0_db`; every model of the stack also judges each
//! packet (an exact drop list, an added error rate), as on a plain link.

pub(crate) mod plot;
pub mod spec;

pub use spec::{BeamParams, BeamSpec, MemberShape};

use super::dvbs2::{Carrier, CarrierConfig, ForwardEnv};
use super::fifo::{Enqueue, FifoDir};
use super::layer::{Dir, LinkPacket, LinkStats, LossReason};
use super::medium::{Medium, MediumBuild, MediumIo, MediumReport};
use super::rcs2::{ReturnConfig, ReturnEnv, ReturnLink};
use crate::channel::{Channel, Tx};
use crate::engine::time::Time;
use std::collections::VecDeque;

/// Token tags of the beam's parts (a token is `local × 4 + tag`).
const TAG_CARRIER: u32 = 0;
const TAG_RCS2: u32 = 1;
const TAG_FWD_FIFO: u32 = 2;
const TAG_RTN_FIFO: u32 = 3;

/// A member's direction run as a FIFO.
struct FifoPart {
    dir: FifoDir,
    in_flight: VecDeque<(Time, u64, u32)>,
}

impl FifoPart {
    fn send(&mut self, now: Time, m: usize, d: Dir, tag: u32, pkt: LinkPacket, io: &mut MediumIo) {
        match self.dir.enqueue(now, &pkt) {
            Enqueue::Arrives(at) => {
                let seq = io.next_seq();
                if self.in_flight.is_empty() {
                    io.wake(at, seq, m as u32 * 4 + tag);
                }
                self.in_flight.push_back((at, seq, pkt.slot));
            }
            Enqueue::QueueDrop => io.lose(m as u32, d, pkt.slot, LossReason::Queue),
            Enqueue::Corrupted => io.lose(m as u32, d, pkt.slot, LossReason::Channel),
            Enqueue::LinkDown => io.lose(m as u32, d, pkt.slot, LossReason::LinkDown),
        }
    }
    fn wake(&mut self, now: Time, m: usize, d: Dir, tag: u32, io: &mut MediumIo) {
        while let Some(&(at, _, slot)) = self.in_flight.front() {
            if at > now {
                break;
            }
            self.in_flight.pop_front();
            self.dir.stats.delivered += 1;
            io.deliver(m as u32, d, slot);
        }
        if let Some(&(at, seq, _)) = self.in_flight.front() {
            io.wake(at, seq, m as u32 * 4 + tag);
        }
    }
}

struct Member {
    from_hub: Dir,
    /// The stacks the shared parts judge packets with (empty for a FIFO part,
    /// which holds its own).
    fwd_channels: Vec<Channel>,
    rtn_channels: Vec<Channel>,
}

enum Forward {
    Carrier(Box<Carrier>),
    Fifo(Vec<FifoPart>),
}

enum Return {
    Rcs2(Box<ReturnLink>),
    Fifo(Vec<FifoPart>),
}

/// The terminals' Es/N₀ and channel stacks, as the carrier asks for them.
struct Env<'a> {
    members: &'a mut [Member],
    default_esn0: Option<f64>,
}

fn judged(stack: &mut [Channel], tx: &Tx) -> bool {
    stack.iter_mut().any(|c| c.is_lost(tx))
}

impl ForwardEnv for Env<'_> {
    fn esn0_db(&mut self, m: usize, t: Time, rs: f64) -> f64 {
        self.members[m]
            .fwd_channels
            .iter_mut()
            .find_map(|c| c.esn0_db(t, rs))
            .or(self.default_esn0)
            .expect("checked at plan build: every terminal has an Es/N0")
    }
    fn packet_lost(&mut self, m: usize, tx: &Tx) -> bool {
        judged(&mut self.members[m].fwd_channels, tx)
    }
}

impl ReturnEnv for Env<'_> {
    fn packet_lost(&mut self, m: usize, tx: &Tx) -> bool {
        judged(&mut self.members[m].rtn_channels, tx)
    }
}

/// The beam.
pub struct Beam {
    names: Vec<String>,
    members: Vec<Member>,
    fwd: Forward,
    ret: Return,
    default_esn0: Option<f64>,
}

impl Beam {
    pub fn build(spec: &BeamSpec, b: MediumBuild) -> Beam {
        let p = spec.resolved.0.clone().unwrap_or_else(|| {
            // A spec not resolved through a plan: resolve it now.
            let shapes: Vec<MemberShape> = b
                .members
                .iter()
                .map(|m| MemberShape {
                    name: m.name,
                    fwd_delay: m.dirs[m.from_hub.index()].delay,
                    rtn_delay: m.dirs[m.from_hub.other().index()].delay,
                    has_esn0: true,
                })
                .collect();
            std::sync::Arc::new(
                spec.resolve(&shapes)
                    .unwrap_or_else(|(k, e)| panic!("beam {k}: {e}")),
            )
        });
        let mut names = Vec::new();
        let mut members = Vec::new();
        let mut fwd_fifo = Vec::new();
        let mut rtn_fifo = Vec::new();
        let mut fwd_terms = Vec::new();
        let mut rtn_terms = Vec::new();
        for (i, m) in b.members.into_iter().enumerate() {
            let (f, r) = (m.from_hub.index(), m.from_hub.other().index());
            let [c0, c1] = m.channels;
            let (fc, rc) = if f == 0 { (c0, c1) } else { (c1, c0) };
            let (fd, rd) = (m.dirs[f], m.dirs[r]);
            let mut member = Member {
                from_hub: m.from_hub,
                fwd_channels: Vec::new(),
                rtn_channels: Vec::new(),
            };
            if p.forward.is_some() {
                member.fwd_channels = fc;
                fwd_terms.push((m.from_hub, fd.delay, fd.queue));
            } else {
                fwd_fifo.push(FifoPart {
                    dir: FifoDir::new(fd.rate_bps, fd.delay, fd.queue, fc),
                    in_flight: VecDeque::new(),
                });
            }
            if let Some(rp) = &p.ret {
                member.rtn_channels = rc;
                rtn_terms.push((
                    rp.terms[i],
                    m.from_hub.other(),
                    rd.delay,
                    fd.delay,
                    rd.queue,
                ));
            } else {
                rtn_fifo.push(FifoPart {
                    dir: FifoDir::new(rd.rate_bps, rd.delay, rd.queue, rc),
                    in_flight: VecDeque::new(),
                });
            }
            names.push(m.name.to_string());
            members.push(member);
        }
        let fwd = match &p.forward {
            Some(fp) => {
                let mut c = Carrier::new(
                    CarrierConfig {
                        symbol_rate: fp.symbol_rate,
                        frame: fp.frame,
                        pilots: fp.pilots,
                        ladder: fp.ladder.clone(),
                        rule: fp.rule,
                        headers: fp.headers,
                        token_tag: TAG_CARRIER,
                    },
                    &fwd_terms,
                );
                for (m, &d) in fp.report_delay.iter().enumerate() {
                    c.set_report_delay(m, d);
                }
                Forward::Carrier(Box::new(c))
            }
            None => Forward::Fifo(fwd_fifo),
        };
        let ret = match &p.ret {
            Some(rp) => Return::Rcs2(Box::new(ReturnLink::new(
                ReturnConfig {
                    sf: rp.sf,
                    scheduler_latency: rp.scheduler_latency,
                    rbdc_timeout: rp.rbdc_timeout,
                    rle: rp.rle,
                    token_tag: TAG_RCS2,
                },
                &rtn_terms,
            ))),
            None => Return::Fifo(rtn_fifo),
        };
        Beam {
            names,
            members,
            fwd,
            ret,
            default_esn0: p.forward.as_ref().and_then(|f| f.default_esn0_db),
        }
    }
}

impl Medium for Beam {
    fn start(&mut self, io: &mut MediumIo) {
        if let Return::Rcs2(r) = &mut self.ret {
            r.start(io);
        }
    }

    fn send(&mut self, now: Time, member: u32, dir: Dir, pkt: LinkPacket, io: &mut MediumIo) {
        let m = member as usize;
        let mut env = Env {
            members: &mut self.members,
            default_esn0: self.default_esn0,
        };
        if dir == env.members[m].from_hub {
            match &mut self.fwd {
                Forward::Carrier(c) => c.send(now, m, pkt, &mut env, io),
                Forward::Fifo(f) => f[m].send(now, m, dir, TAG_FWD_FIFO, pkt, io),
            }
        } else {
            match &mut self.ret {
                Return::Rcs2(r) => r.send(now, m, pkt, io),
                Return::Fifo(f) => f[m].send(now, m, dir, TAG_RTN_FIFO, pkt, io),
            }
        }
    }

    fn wake(&mut self, now: Time, token: u32, io: &mut MediumIo) {
        let (local, tag) = (token / 4, token % 4);
        let mut env = Env {
            members: &mut self.members,
            default_esn0: self.default_esn0,
        };
        match (tag, &mut self.fwd, &mut self.ret) {
            (TAG_CARRIER, Forward::Carrier(c), _) => c.wake(now, local, &mut env, io),
            (TAG_RCS2, _, Return::Rcs2(r)) => r.wake(now, local, &mut env, io),
            (TAG_FWD_FIFO, Forward::Fifo(f), _) => {
                let d = env.members[local as usize].from_hub;
                f[local as usize].wake(now, local as usize, d, TAG_FWD_FIFO, io)
            }
            (TAG_RTN_FIFO, _, Return::Fifo(f)) => {
                let d = env.members[local as usize].from_hub.other();
                f[local as usize].wake(now, local as usize, d, TAG_RTN_FIFO, io)
            }
            _ => unreachable!("a beam's token names one of its parts"),
        }
    }

    fn stats(&self, member: u32, dir: Dir) -> LinkStats {
        self.stats_at(member, dir, Time::MAX)
    }

    fn stats_at(&self, member: u32, dir: Dir, stop: Time) -> LinkStats {
        let m = member as usize;
        if dir == self.members[m].from_hub {
            match &self.fwd {
                Forward::Carrier(c) if stop == Time::MAX => c.stats(m),
                Forward::Carrier(c) => c.stats_at(m, stop),
                Forward::Fifo(f) if stop == Time::MAX => f[m].dir.stats.clone(),
                Forward::Fifo(f) => f[m].dir.stats_at(stop),
            }
        } else {
            match &self.ret {
                Return::Rcs2(r) if stop == Time::MAX => r.stats(m),
                Return::Rcs2(r) => r.stats_at(m, stop),
                Return::Fifo(f) if stop == Time::MAX => f[m].dir.stats.clone(),
                Return::Fifo(f) => f[m].dir.stats_at(stop),
            }
        }
    }

    fn counters(&self, member: u32, dir: Dir) -> Vec<(&'static str, u64)> {
        let m = member as usize;
        if dir == self.members[m].from_hub {
            match &self.fwd {
                Forward::Carrier(c) => {
                    let t = c.term_counters(m);
                    vec![
                        ("frames", t.frames),
                        ("frames_lost", t.frames_lost),
                        ("gse_bytes", t.gse_bytes),
                        ("modcod_switches", c.acm_history(m).len() as u64 - 1),
                    ]
                }
                Forward::Fifo(_) => Vec::new(),
            }
        } else {
            match &self.ret {
                Return::Rcs2(r) => {
                    let (g, u) = r.slots(m);
                    vec![("slots_granted", g), ("slots_used", u)]
                }
                Return::Fifo(_) => Vec::new(),
            }
        }
    }

    fn report(&self, stop: Time) -> MediumReport {
        report::of(self, stop)
    }
}

mod report;

#[cfg(test)]
mod tests;
