//! The DVB-RCS2 return link of a beam: the terminals' bursts in the
//! MF-TDMA superframes (`superframe.rs`), in the timeslots the gateway
//! grants each terminal (`scheduler.rs`), after asking for them (DAMA).
//!
//! **Terminal.** Packets for the gateway wait in the terminal's queue
//! (drop-tail, the link direction's `queue` in packets). In each granted
//! timeslot the terminal sends one burst: RLE PPDUs (`rle.rs`) of its
//! queue's head packets, fragmenting the last; a packet arrives at the
//! gateway one propagation delay after the end of the burst that completes
//! it. Its *access delay* is from its arrival in the queue to the start of
//! the burst that carries its first byte.
//!
//! **Requests** travel in a signalling timeslot the terminal has once per
//! superframe, at time position (index mod positions) of each superframe
//! (on a signalling carrier of their own, not counted in the traffic
//! carriers); a request is formed at the slot's start from the terminal's
//! state then, and reaches the gateway one timeslot and one propagation
//! delay later. With w the time since the previous request, a the bytes
//! that arrived since (each packet counted as the burst bytes it takes
//! with its RLE headers, `Rle::burst_bytes`), q the bytes queued, T = d_rtn + d_fwd + scheduler latency + one
//! superframe the request-to-grant loop, and C the terminal's CRA rate:
//!
//! - RBDC (if the terminal has an RBDC maximum): the arrival rate plus the
//!   queue drained over one loop, less the CRA rate, within [0, max]:
//!   r = min(max, (8a/w + 8q/T − C)⁺);
//! - VBDC (if it has a VBDC maximum): the bytes that arrived beyond what
//!   the rates asked cover, v = (a − (r + C) w/8)⁺.
//!
//! **Gateway.** A request applies from the first superframe the scheduler
//! allocates after it arrives. RBDC: the rate replaces the previous one
//! and holds for `rbdc_timeout` superframes unless renewed; VBDC adds to
//! the terminal's outstanding volume (at most its maximum), which grants
//! pay down. The scheduler allocates superframe n at
//! g(n) = start(n) − latency − the largest forward delay (so its burst time
//! plan reaches every terminal by the superframe's start), from the
//! requests arrived by g(n): CRA and RBDC rates become timeslots with a
//! signed fractional credit (a demand is rounded up and the difference
//! carried, so the long-run rate is exact and a small rate still gets a
//! timeslot at once), VBDC volume is rounded up to whole timeslots.

use super::rle::Rle;
use super::scheduler::{self, Demand, Grant};
use super::superframe::Superframe;
use crate::channel::Tx;
use crate::engine::time::{Dur, Time};
use crate::net::layer::{Dir, LinkPacket, LinkStats, LossReason};
use crate::net::medium::{MediumIo, MediumTable};
use std::collections::VecDeque;

/// One terminal's capacity categories.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TermConfig {
    /// Constant rate assignment, bit/s of payload.
    pub cra_bps: f64,
    /// RBDC maximum, bit/s (0: no RBDC).
    pub rbdc_max_bps: f64,
    /// VBDC maximum outstanding volume, bytes (0: no VBDC).
    pub vbdc_max_bytes: u64,
    /// Free capacity assignment allowed.
    pub fca: bool,
    /// Weight in the fair shares.
    pub weight: f64,
}

/// The return link's fixed parameters.
#[derive(Clone, Debug)]
pub struct ReturnConfig {
    pub sf: Superframe,
    pub scheduler_latency: Dur,
    /// Superframes an RBDC request holds.
    pub rbdc_timeout: u32,
    pub rle: Rle,
    pub token_tag: u32,
}

/// What the return link asks of the beam.
pub trait ReturnEnv {
    /// The terminal's return channel stack judges one packet.
    fn packet_lost(&mut self, member: usize, tx: &Tx) -> bool;
}

/// Access delays are counted in bins of 1 ms up to this many.
pub const DELAY_BINS: usize = 10_000;

#[derive(Clone, Copy, Debug)]
struct Queued {
    pkt: LinkPacket,
    sent: u32,
    arrived: Time,
}

#[derive(Clone, Copy, Debug, Default)]
struct Request {
    rbdc_bps: f64,
    vbdc_bytes: u64,
}

struct Term {
    cfg: TermConfig,
    dir: Dir,
    d_rtn: Dur,
    limit: u32,
    queue: VecDeque<Queued>,
    queue_bytes: u64,
    since: Time,
    // The terminal's requests.
    next_req: u64,
    arrived: u64,
    last_req: Time,
    to_gateway: VecDeque<(Time, Request)>,
    // The gateway's view of it.
    rbdc_bps: f64,
    rbdc_until: u64,
    vbdc_bytes: u64,
    cra_credit: f64,
    rbdc_credit: f64,
    // Granted timeslots' starts, in order.
    slots: VecDeque<Time>,
    wake: Option<Time>,
    in_flight: VecDeque<(Time, u64, u32)>,
    stats: LinkStats,
    slots_granted: u64,
    slots_used: u64,
    delay_hist: Vec<u64>,
    delay_sum_ns: u128,
    delays: u64,
}

pub struct ReturnLink {
    pub cfg: ReturnConfig,
    terms: Vec<Term>,
    /// The next superframe to allocate.
    next_sf: u64,
    max_fwd: Dur,
    loop_s: Vec<f64>,
    /// (superframe start s, member, requested RBDC bit/s, outstanding VBDC
    /// bytes, CRA, RBDC, VBDC, FCA timeslots, queued bytes).
    pub grants: Vec<[f64; 9]>,
    pub slots_offered: u64,
}

const SCHED: u32 = 0;

impl ReturnLink {
    /// `terms`: per member, its categories, the direction towards the hub,
    /// the return and forward propagation delays and the queue limit.
    pub fn new(cfg: ReturnConfig, terms: &[(TermConfig, Dir, Dur, Dur, u32)]) -> ReturnLink {
        let max_fwd = terms.iter().map(|t| t.3).max().unwrap_or(Dur::ZERO);
        let loop_s = terms
            .iter()
            .map(|t| (t.2 + t.3 + cfg.scheduler_latency + cfg.sf.duration()).as_secs_f64())
            .collect();
        let terms = terms
            .iter()
            .map(|&(c, dir, d_rtn, _, limit)| Term {
                cfg: c,
                dir,
                d_rtn,
                limit,
                queue: VecDeque::new(),
                queue_bytes: 0,
                since: Time::ZERO,
                next_req: 0,
                arrived: 0,
                last_req: Time::ZERO,
                to_gateway: VecDeque::new(),
                rbdc_bps: 0.0,
                rbdc_until: 0,
                vbdc_bytes: 0,
                cra_credit: 0.0,
                rbdc_credit: 0.0,
                slots: VecDeque::new(),
                wake: None,
                in_flight: VecDeque::new(),
                stats: LinkStats::default(),
                slots_granted: 0,
                slots_used: 0,
                delay_hist: vec![0; DELAY_BINS + 1],
                delay_sum_ns: 0,
                delays: 0,
            })
            .collect();
        ReturnLink {
            cfg,
            terms,
            next_sf: 0,
            max_fwd,
            loop_s,
            grants: Vec::new(),
            slots_offered: 0,
        }
    }

    fn tok(&self, local: u32) -> u32 {
        local * 4 + self.cfg.token_tag
    }

    /// When superframe `n` is allocated.
    pub fn sched_time(&self, n: u64) -> Time {
        let lead = self.cfg.scheduler_latency + self.max_fwd;
        let s = self.cfg.sf.start(n);
        if s.0 >= lead.0 {
            Time(s.0 - lead.0)
        } else {
            Time::ZERO
        }
    }

    /// Start the scheduler: call once at time zero.
    pub fn start(&mut self, io: &mut MediumIo) {
        let seq = io.next_seq();
        io.wake(self.sched_time(0), seq, self.tok(SCHED));
    }

    /// The start of terminal `m`'s signalling timeslot in superframe `k`.
    pub fn request_time(&self, m: usize, k: u64) -> Time {
        let p = (m as u32) % self.cfg.sf.positions();
        self.cfg.sf.slot_start(k, p)
    }

    /// Form every request terminal `m` sends up to `t` (inclusive).
    fn requests_until(&mut self, m: usize, t: Time) {
        loop {
            let at = self.request_time(m, self.terms[m].next_req);
            if at > t {
                break;
            }
            let sf_s = self.cfg.sf.duration().as_secs_f64();
            let loop_s = self.loop_s[m];
            let slot = self.cfg.sf.slot;
            let x = &mut self.terms[m];
            let w = if at > x.last_req {
                at.since(x.last_req).as_secs_f64()
            } else {
                sf_s
            };
            let a = x.arrived as f64;
            let c = x.cfg.cra_bps;
            let r = if x.cfg.rbdc_max_bps > 0.0 {
                (8.0 * a / w + 8.0 * x.queue_bytes as f64 / loop_s - c)
                    .clamp(0.0, x.cfg.rbdc_max_bps)
            } else {
                0.0
            };
            let v = if x.cfg.vbdc_max_bytes > 0 {
                (a - (r + c) * w / 8.0).max(0.0).ceil() as u64
            } else {
                0
            };
            x.to_gateway.push_back((
                at + slot + x.d_rtn,
                Request {
                    rbdc_bps: r,
                    vbdc_bytes: v,
                },
            ));
            x.arrived = 0;
            x.last_req = at;
            x.next_req += 1;
        }
    }

    /// A packet enters terminal `m`'s queue.
    pub fn send(&mut self, now: Time, m: usize, pkt: LinkPacket, io: &mut MediumIo) {
        self.requests_until(m, now);
        let x = &mut self.terms[m];
        if x.queue.len() as u32 >= x.limit.max(1) {
            x.stats.queue_drops += 1;
            io.lose(m as u32, x.dir, pkt.slot, LossReason::Queue);
            return;
        }
        x.stats.hold(x.queue.len(), x.since, now);
        x.since = now;
        x.stats.packets += 1;
        x.stats.bytes += pkt.bytes as u64;
        x.queue.push_back(Queued {
            pkt,
            sent: 0,
            arrived: now,
        });
        let ask = self
            .cfg
            .rle
            .burst_bytes(pkt.bytes, self.cfg.sf.payload_bytes) as u64;
        let x = &mut self.terms[m];
        x.queue_bytes += ask;
        x.arrived += ask;
        x.stats.max_occupancy = x.stats.max_occupancy.max(x.queue.len() as u32);
        self.arm(now, m, io);
    }

    /// Ask for a wake-up at terminal `m`'s next granted timeslot if it has
    /// something to send and none is pending.
    fn arm(&mut self, now: Time, m: usize, io: &mut MediumIo) {
        let tag = self.cfg.token_tag;
        let x = &mut self.terms[m];
        if x.wake.is_some() || x.queue.is_empty() {
            return;
        }
        while x.slots.front().is_some_and(|&s| s < now) {
            x.slots.pop_front();
        }
        if let Some(&s) = x.slots.front() {
            x.wake = Some(s);
            let seq = io.next_seq();
            io.wake(s, seq, (2 * m as u32 + 1) * 4 + tag);
        }
    }

    /// A wake-up with local token `local` is due.
    pub fn wake(&mut self, now: Time, local: u32, env: &mut dyn ReturnEnv, io: &mut MediumIo) {
        if local == SCHED {
            while self.sched_time(self.next_sf) <= now {
                let n = self.next_sf;
                self.allocate(now, n, io);
                self.next_sf += 1;
            }
            let seq = io.next_seq();
            io.wake(self.sched_time(self.next_sf), seq, self.tok(SCHED));
            return;
        }
        // Local tokens: 0 the scheduler, 2m + 1 terminal m's timeslot,
        // 2m + 2 its arrivals at the gateway.
        let m = ((local - 1) / 2) as usize;
        if local % 2 == 1 {
            self.terms[m].wake = None;
            self.burst(now, m, env, io);
            self.arm(now, m, io);
        } else {
            let x = &mut self.terms[m];
            while let Some(&(at, _, slot)) = x.in_flight.front() {
                if at > now {
                    break;
                }
                x.in_flight.pop_front();
                x.stats.delivered += 1;
                io.deliver(m as u32, x.dir, slot);
            }
            if let Some(&(at, seq, _)) = x.in_flight.front() {
                io.wake(at, seq, (2 * m as u32 + 2) * 4 + self.cfg.token_tag);
            }
        }
    }

    /// Terminal `m` sends a burst in its timeslot starting `now` (if it has one).
    fn burst(&mut self, now: Time, m: usize, env: &mut dyn ReturnEnv, io: &mut MediumIo) {
        self.requests_until(m, now);
        let slot = self.cfg.sf.slot;
        let tag = self.cfg.token_tag;
        let rle = self.cfg.rle;
        let mut room = self.cfg.sf.payload_bytes;
        let end = now + slot;
        let mut done: Vec<LinkPacket> = Vec::new();
        {
            let x = &mut self.terms[m];
            while x.slots.front().is_some_and(|&s| s < now) {
                x.slots.pop_front();
            }
            if x.slots.front() != Some(&now) {
                return;
            }
            x.slots.pop_front();
            x.stats.hold(x.queue.len(), x.since, now);
            x.since = now;
            while let Some(q) = x.queue.front_mut() {
                let (bytes, carried, complete) = rle.place(q.pkt.bytes, q.sent, room);
                if bytes == 0 {
                    break;
                }
                if q.sent == 0 {
                    let d = now.since(q.arrived);
                    x.delay_hist[((d.0 / 1_000_000) as usize).min(DELAY_BINS)] += 1;
                    x.delay_sum_ns += d.0 as u128;
                    x.delays += 1;
                }
                room -= bytes;
                q.sent += carried;
                if !complete {
                    break;
                }
                let q = x.queue.pop_front().unwrap();
                x.queue_bytes = x
                    .queue_bytes
                    .saturating_sub(rle.burst_bytes(q.pkt.bytes, self.cfg.sf.payload_bytes) as u64);
                done.push(q.pkt);
            }
            if room < self.cfg.sf.payload_bytes {
                x.slots_used += 1;
                x.stats.busy_ns += slot.0;
            }
        }
        for pkt in done {
            let tx = Tx {
                start: now,
                end,
                bytes: pkt.bytes,
                kind: pkt.kind,
                seq: pkt.seq,
                retx: pkt.retx,
            };
            let lost = env.packet_lost(m, &tx);
            let x = &mut self.terms[m];
            if lost {
                x.stats.channel_drops += 1;
                io.lose(m as u32, x.dir, pkt.slot, LossReason::Channel);
            } else {
                let at = end + x.d_rtn;
                let seq = io.next_seq();
                if x.in_flight.is_empty() {
                    io.wake(at, seq, (2 * m as u32 + 2) * 4 + tag);
                }
                x.in_flight.push_back((at, seq, pkt.slot));
            }
        }
    }

    /// Allocate superframe `n` at `now` (its scheduling time).
    fn allocate(&mut self, now: Time, n: u64, io: &mut MediumIo) {
        let sf = self.cfg.sf;
        let per_slot = sf.payload_bytes as f64;
        for m in 0..self.terms.len() {
            self.requests_until(m, now);
        }
        let mut demands = Vec::with_capacity(self.terms.len());
        let mut rbdc_x = Vec::with_capacity(self.terms.len());
        for x in &mut self.terms {
            while x.to_gateway.front().is_some_and(|r| r.0 <= now) {
                let (_, r) = x.to_gateway.pop_front().unwrap();
                if x.cfg.rbdc_max_bps > 0.0 {
                    x.rbdc_bps = r.rbdc_bps;
                    x.rbdc_until = n + self.cfg.rbdc_timeout as u64;
                }
                if x.cfg.vbdc_max_bytes > 0 {
                    x.vbdc_bytes = (x.vbdc_bytes + r.vbdc_bytes).min(x.cfg.vbdc_max_bytes);
                }
            }
            if n >= x.rbdc_until {
                x.rbdc_bps = 0.0;
                x.rbdc_credit = 0.0;
            }
            let cra_x = sf.slots_for_rate(x.cfg.cra_bps) + x.cra_credit;
            let cra = cra_x.ceil().max(0.0) as u32;
            x.cra_credit = cra_x - cra as f64;
            let rx = sf.slots_for_rate(x.rbdc_bps) + x.rbdc_credit;
            let rbdc = if x.rbdc_bps > 0.0 {
                rx.ceil().max(0.0) as u32
            } else {
                0
            };
            rbdc_x.push((rx, rbdc));
            demands.push(Demand {
                cra,
                rbdc,
                vbdc: (x.vbdc_bytes as f64 / per_slot).ceil() as u32,
                fca: x.cfg.fca,
                weight: x.cfg.weight,
            });
        }
        let g: Vec<Grant> = scheduler::allocate(sf.capacity(), sf.positions(), &demands, n);
        let totals: Vec<u32> = g.iter().map(Grant::total).collect();
        let rot = if self.terms.is_empty() {
            0
        } else {
            (n % self.terms.len() as u64) as usize
        };
        let places = scheduler::place(&totals, sf.positions(), sf.carriers, rot);
        self.slots_offered += sf.capacity() as u64;
        let start_s = sf.start(n).as_secs_f64();
        for (m, x) in self.terms.iter_mut().enumerate() {
            let (rx, rbdc) = rbdc_x[m];
            if x.rbdc_bps > 0.0 {
                x.rbdc_credit = (rx - rbdc as f64).clamp(-1.0, 1.0);
            }
            let vbdc_before = x.vbdc_bytes;
            x.vbdc_bytes = x
                .vbdc_bytes
                .saturating_sub(g[m].vbdc as u64 * sf.payload_bytes as u64);
            x.slots_granted += totals[m] as u64;
            for &p in &places[m] {
                x.slots.push_back(sf.slot_start(n, p));
            }
            if totals[m] > 0 || x.rbdc_bps > 0.0 || vbdc_before > 0 {
                self.grants.push([
                    start_s,
                    m as f64,
                    x.rbdc_bps,
                    vbdc_before as f64,
                    g[m].cra as f64,
                    g[m].rbdc as f64,
                    g[m].vbdc as f64,
                    g[m].fca as f64,
                    x.queue_bytes as f64,
                ]);
            }
        }
        for m in 0..self.terms.len() {
            self.arm(now, m, io);
        }
    }

    /// Counters of terminal `m`'s return direction.
    pub fn stats(&self, m: usize) -> LinkStats {
        self.terms[m].stats.clone()
    }
    /// The same, the occupancy integral carried to `stop`.
    pub fn stats_at(&self, m: usize, stop: Time) -> LinkStats {
        let x = &self.terms[m];
        x.stats.held_to(x.queue.len(), x.since, stop)
    }
    pub fn terminals(&self) -> usize {
        self.terms.len()
    }
    /// Timeslots terminal `m` was granted and used.
    pub fn slots(&self, m: usize) -> (u64, u64) {
        (self.terms[m].slots_granted, self.terms[m].slots_used)
    }
    /// Terminal `m`'s access delays: (packets, mean in s).
    pub fn access_delay(&self, m: usize) -> (u64, f64) {
        let x = &self.terms[m];
        let mean = if x.delays == 0 {
            0.0
        } else {
            x.delay_sum_ns as f64 / x.delays as f64 * 1e-9
        };
        (x.delays, mean)
    }
    /// The q-quantile of terminal `m`'s access delays, s (upper edge of its 1 ms bin).
    pub fn access_delay_quantile(&self, m: usize, q: f64) -> f64 {
        let x = &self.terms[m];
        if x.delays == 0 {
            return 0.0;
        }
        let want = (q * x.delays as f64).ceil().max(1.0) as u64;
        let mut acc = 0;
        for (i, &c) in x.delay_hist.iter().enumerate() {
            acc += c;
            if acc >= want {
                return (i + 1) as f64 * 1e-3;
            }
        }
        (DELAY_BINS + 1) as f64 * 1e-3
    }
    /// The access-delay histogram of every terminal: rows (member, bin
    /// start s, count), non-empty bins only.
    pub fn delay_table(&self) -> MediumTable {
        let mut rows = Vec::new();
        for (m, x) in self.terms.iter().enumerate() {
            for (i, &c) in x.delay_hist.iter().enumerate() {
                if c > 0 {
                    rows.push(vec![m as f64, i as f64 * 1e-3, c as f64]);
                }
            }
        }
        MediumTable {
            name: "access_delay".into(),
            columns: vec!["member".into(), "delay_s".into(), "packets".into()],
            rows,
        }
    }
    /// The grants over time as a table.
    pub fn grant_table(&self) -> MediumTable {
        MediumTable {
            name: "grants".into(),
            columns: [
                "t_s",
                "member",
                "rbdc_requested_bps",
                "vbdc_outstanding_bytes",
                "cra_slots",
                "rbdc_slots",
                "vbdc_slots",
                "fca_slots",
                "queue_bytes",
            ]
            .iter()
            .map(|c| c.to_string())
            .collect(),
            rows: self.grants.iter().map(|r| r.to_vec()).collect(),
        }
    }
}

#[cfg(test)]
mod tests;
