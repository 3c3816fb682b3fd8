//! The DVB-S2/S2X forward carrier of a beam: one carrier at a constant
//! symbol rate shared by the beam's terminals, each with its own IP queue
//! at the gateway and its own MODCOD (`acm.rs`).
//!
//! Frames, one at a time: when the carrier is free and a queue holds data,
//! the next terminal with data in round-robin order gives the frame its
//! MODCOD; the BBFRAME's data field is filled with GSE packets
//! (`gse.rs`), that terminal's first, then those of the other terminals,
//! in round-robin order, whose own MODCOD needs at least this one's Es/N₀
//! (they can decode it). A PDU that does not fit is fragmented and goes on
//! in the next frames carrying data for its terminal. The frame lasts its
//! symbols over the symbol rate; the room left is padding. No frame is sent
//! when every queue is empty (dummy frames carry nothing).
//!
//! Reception: a terminal decodes a frame if the Es/N₀ it receives when the
//! frame starts is at least the frame's MODCOD threshold (the quasi-error-
//! free curves of DVB-S2 fall from PER 10⁻⁷ to 1 within tenths of a dB: a
//! threshold, not a slope); otherwise every fragment it carries for that
//! terminal is lost, and so is each PDU one of whose fragments is lost.
//! A PDU whose last fragment is decoded arrives one propagation delay
//! after the frame ends; the terminal's forward channel stack also judges
//! it (exact drop lists, an added packet error rate).
//!
//! Events: one wake-up per frame (its end) and one per batch of arrivals
//! at a terminal (the head of its in-flight list).

use super::acm::{Acm, AcmRule, Ladder};
use super::gse::{self, Headers, Pdu};
use super::modcod::{FrameSize, MODCODS};
use crate::channel::Tx;
use crate::engine::time::{Dur, Time};
use crate::net::layer::{Dir, LinkPacket, LinkStats, LossReason};
use crate::net::medium::MediumIo;
use std::collections::VecDeque;

/// What the carrier asks of the beam about its terminals.
pub trait ForwardEnv {
    /// Es/N₀ (dB) terminal `member` receives at `t` on a carrier of `symbol_rate`.
    fn esn0_db(&mut self, member: usize, t: Time, symbol_rate: f64) -> f64;
    /// The terminal's forward channel stack judges one packet.
    fn packet_lost(&mut self, member: usize, tx: &Tx) -> bool;
}

/// The carrier's fixed parameters.
#[derive(Clone, Debug)]
pub struct CarrierConfig {
    /// Symbols per second.
    pub symbol_rate: f64,
    pub frame: FrameSize,
    pub pilots: bool,
    /// The MODCODs allowed, with thresholds (ideal Es/N₀ + offset).
    pub ladder: Ladder,
    pub rule: AcmRule,
    pub headers: Headers,
    /// Wake-up tokens are `local × 4 + tag`.
    pub token_tag: u32,
}

/// Per-terminal counters beyond `LinkStats`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TermCounters {
    /// Frames that carried data for it, and those it could not decode.
    pub frames: u64,
    pub frames_lost: u64,
    /// Data-field bytes its GSE packets used (headers included).
    pub gse_bytes: u64,
}

struct Term {
    dir: Dir,
    delay: Dur,
    limit: u32,
    queue: VecDeque<(Pdu, LinkPacket)>,
    acm: Acm,
    /// (arrival, sequence, slot) of PDUs decoded, in order.
    in_flight: VecDeque<(Time, u64, u32)>,
    stats: LinkStats,
    counters: TermCounters,
    /// Occupancy bookkeeping: packets queued, since when.
    since: Time,
}

impl Term {
    fn occupancy_changes(&mut self, now: Time) {
        self.stats.hold(self.queue.len(), self.since, now);
        self.since = now;
    }
}

/// Frames sent, by MODCOD.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CarrierCounters {
    pub frames: u64,
    pub padding_bytes: u64,
    /// (index into `MODCODS`, frames) in first-use order.
    pub by_modcod: Vec<(usize, u64)>,
    pub busy_ns: u64,
}

pub struct Carrier {
    pub cfg: CarrierConfig,
    terms: Vec<Term>,
    busy: bool,
    rr: usize,
    pub counters: CarrierCounters,
}

const FRAME_END: u32 = 0;

impl Carrier {
    /// `terms`: per member, (the direction out of the hub, propagation delay, queue limit).
    pub fn new(cfg: CarrierConfig, terms: &[(Dir, Dur, u32)]) -> Carrier {
        let terms = terms
            .iter()
            .map(|&(dir, delay, limit)| Term {
                dir,
                delay,
                limit,
                queue: VecDeque::new(),
                acm: Acm::new(&cfg.ladder, Dur::ZERO),
                in_flight: VecDeque::new(),
                stats: LinkStats::default(),
                counters: TermCounters::default(),
                since: Time::ZERO,
            })
            .collect();
        Carrier {
            cfg,
            terms,
            busy: false,
            rr: 0,
            counters: CarrierCounters::default(),
        }
    }

    /// Set terminal `m`'s report delay (the ACM loop: its Es/N₀ reports
    /// reach the gateway `delay` after they are taken).
    pub fn set_report_delay(&mut self, m: usize, delay: Dur) {
        self.terms[m].acm = Acm::new(&self.cfg.ladder, delay);
    }

    fn token(&self, local: u32) -> u32 {
        local * 4 + self.cfg.token_tag
    }

    /// A packet for terminal `m` enters its queue at the gateway.
    pub fn send(
        &mut self,
        now: Time,
        m: usize,
        pkt: LinkPacket,
        env: &mut dyn ForwardEnv,
        io: &mut MediumIo,
    ) {
        let t = &mut self.terms[m];
        if t.queue.len() as u32 >= t.limit.max(1) {
            t.stats.queue_drops += 1;
            io.lose(m as u32, t.dir, pkt.slot, LossReason::Queue);
            return;
        }
        t.occupancy_changes(now);
        t.stats.packets += 1;
        t.stats.bytes += pkt.bytes as u64;
        t.queue.push_back((
            Pdu {
                slot: pkt.slot,
                bytes: pkt.bytes,
                sent: 0,
                hit: false,
            },
            pkt,
        ));
        t.stats.max_occupancy = t.stats.max_occupancy.max(t.queue.len() as u32);
        if !self.busy {
            self.start_frame(now, env, io);
        }
    }

    /// A wake-up with local token `local` is due.
    pub fn wake(&mut self, now: Time, local: u32, env: &mut dyn ForwardEnv, io: &mut MediumIo) {
        if local == FRAME_END {
            self.busy = false;
            self.start_frame(now, env, io);
            return;
        }
        let m = (local - 1) as usize;
        let dir = self.terms[m].dir;
        let t = &mut self.terms[m];
        while let Some(&(at, _, slot)) = t.in_flight.front() {
            if at > now {
                break;
            }
            t.in_flight.pop_front();
            t.stats.delivered += 1;
            io.deliver(m as u32, dir, slot);
        }
        if let Some(&(at, seq, _)) = t.in_flight.front() {
            io.wake(at, seq, local * 4 + self.cfg.token_tag);
        }
    }

    /// The MODCOD (rung) terminal `m` is served with at `now`.
    pub fn rung(&mut self, now: Time, m: usize, env: &mut dyn ForwardEnv) -> usize {
        let (ladder, rule, rs) = (&self.cfg.ladder, &self.cfg.rule, self.cfg.symbol_rate);
        self.terms[m]
            .acm
            .update(now, ladder, rule, |t| env.esn0_db(m, t, rs))
    }

    fn start_frame(&mut self, now: Time, env: &mut dyn ForwardEnv, io: &mut MediumIo) {
        let n = self.terms.len();
        let Some(first) = (0..n)
            .map(|k| (self.rr + k) % n)
            .find(|&k| !self.terms[k].queue.is_empty())
        else {
            return;
        };
        self.rr = (first + 1) % n;
        let rung = self.rung(now, first, env);
        let mc = &MODCODS[self.cfg.ladder.index[rung]];
        let threshold = self.cfg.ladder.threshold_db[rung];
        let dfl = mc
            .dfl_bits(self.cfg.frame)
            .expect("the ladder holds MODCODs defined for the frame size")
            / 8;
        let dur = Dur(
            (mc.symbols(self.cfg.frame, self.cfg.pilots) as f64 / self.cfg.symbol_rate * 1e9)
                .round() as u64,
        );
        let end = now + dur;
        let mut room = dfl;
        let headers = self.cfg.headers;
        let mut done: Vec<(Pdu, LinkPacket)> = Vec::new();
        for k in (0..n).map(|i| (first + i) % n) {
            if room == 0 {
                break;
            }
            if self.terms[k].queue.is_empty() {
                continue;
            }
            if k != first {
                let r = self.rung(now, k, env);
                if self.cfg.ladder.threshold_db[r] < threshold {
                    continue; // its MODCOD is more robust than this frame's: it cannot decode it
                }
            }
            let decoded = env.esn0_db(k, now, self.cfg.symbol_rate) >= threshold;
            let before = room;
            let t = &mut self.terms[k];
            t.occupancy_changes(now);
            while let Some((pdu, _)) = t.queue.front_mut() {
                let (used, carried) = gse::place(pdu, room, &headers);
                if carried == 0 {
                    break;
                }
                room -= used;
                pdu.sent += carried;
                pdu.hit |= !decoded;
                if pdu.sent == pdu.bytes {
                    done.push(t.queue.pop_front().unwrap());
                }
            }
            let used = (before - room) as u64;
            t.counters.frames += 1;
            t.counters.frames_lost += !decoded as u64;
            t.counters.gse_bytes += used;
            t.stats.busy_ns += (dur.0 as u128 * used as u128 / dfl as u128) as u64;
            for (pdu, pkt) in done.drain(..) {
                let tx = Tx {
                    start: now,
                    end,
                    bytes: pkt.bytes,
                    kind: pkt.kind,
                    seq: pkt.seq,
                    retx: pkt.retx,
                };
                let lost = pdu.hit || env.packet_lost(k, &tx);
                let t = &mut self.terms[k];
                if lost {
                    t.stats.channel_drops += 1;
                    io.lose(k as u32, t.dir, pdu.slot, LossReason::Channel);
                } else {
                    let seq = io.next_seq();
                    let at = end + t.delay;
                    if t.in_flight.is_empty() {
                        io.wake(at, seq, (k as u32 + 1) * 4 + self.cfg.token_tag);
                    }
                    t.in_flight.push_back((at, seq, pdu.slot));
                }
            }
        }
        self.counters.frames += 1;
        self.counters.padding_bytes += room as u64;
        self.counters.busy_ns += dur.0;
        let idx = self.cfg.ladder.index[rung];
        match self.counters.by_modcod.iter_mut().find(|(i, _)| *i == idx) {
            Some(c) => c.1 += 1,
            None => self.counters.by_modcod.push((idx, 1)),
        }
        self.busy = true;
        let seq = io.next_seq();
        io.wake(end, seq, self.token(FRAME_END));
    }
}

impl Carrier {
    /// Counters of terminal `m`'s forward direction.
    pub fn stats(&self, m: usize) -> LinkStats {
        self.terms[m].stats.clone()
    }
    /// The same, the queue's occupancy integral carried to `stop`.
    pub fn stats_at(&self, m: usize, stop: Time) -> LinkStats {
        let t = &self.terms[m];
        t.stats.held_to(t.queue.len(), t.since, stop)
    }
    pub fn term_counters(&self, m: usize) -> &TermCounters {
        &self.terms[m].counters
    }
    /// (time applied, rung) at each MODCOD change of terminal `m`.
    pub fn acm_history(&self, m: usize) -> &[(Time, usize)] {
        &self.terms[m].acm.history
    }
    pub fn terminals(&self) -> usize {
        self.terms.len()
    }
}

#[cfg(test)]
mod tests;
