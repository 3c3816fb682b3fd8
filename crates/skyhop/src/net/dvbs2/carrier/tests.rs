//! The forward carrier driven by hand: packets in, wake-ups run in
//! (time, sequence) order, deliveries and losses read back.

use super::*;
use crate::net::dvbs2::modcod::by_name;
use std::collections::BTreeMap;

/// Es/N0 per terminal as a function of time; no other channel losses.
struct Env(Vec<Box<dyn Fn(f64) -> f64>>);

impl ForwardEnv for Env {
    fn esn0_db(&mut self, m: usize, t: Time, _rs: f64) -> f64 {
        (self.0[m])(t.as_secs_f64())
    }
    fn packet_lost(&mut self, _m: usize, _tx: &Tx) -> bool {
        false
    }
}

fn ladder(names: &[&str]) -> Ladder {
    let index: Vec<usize> = names.iter().map(|n| by_name(n).unwrap()).collect();
    Ladder {
        threshold_db: index.iter().map(|&i| MODCODS[i].esn0_db).collect(),
        efficiency: index.iter().map(|&i| MODCODS[i].table_efficiency).collect(),
        index,
    }
}

fn carrier(names: &[&str], terms: usize, delay_ms: u64) -> Carrier {
    let cfg = CarrierConfig {
        symbol_rate: 1e6,
        frame: FrameSize::Normal,
        pilots: false,
        ladder: ladder(names),
        rule: AcmRule {
            margin_db: 0.0,
            hysteresis_db: 0.0,
            period: Dur::from_millis(100),
        },
        headers: Headers::new(6),
        token_tag: 0,
    };
    let t: Vec<(Dir, Dur, u32)> = (0..terms)
        .map(|_| (Dir::Forward, Dur::from_millis(delay_ms), 10_000))
        .collect();
    Carrier::new(cfg, &t)
}

fn pkt(slot: u32, bytes: u32) -> LinkPacket {
    LinkPacket {
        slot,
        bytes,
        kind: crate::channel::PacketKind::Data,
        seq: 0,
        retx: false,
    }
}

/// Queue `pkts` (member, packet) at time zero all at once, then start the
/// first frame (a backlog, rather than a first frame for the first packet).
fn backlog(c: &mut Carrier, env: &mut Env, io: &mut MediumIo, pkts: &[(usize, LinkPacket)]) {
    c.busy = true;
    for &(m, p) in pkts {
        c.send(Time::ZERO, m, p, env, io);
    }
    c.busy = false;
    c.start_frame(Time::ZERO, env, io);
}

/// Run every wake-up until none is left; returns (time, member, slot) of
/// each delivery and (member, slot) of each loss.
#[allow(clippy::type_complexity)]
fn run(
    c: &mut Carrier,
    env: &mut Env,
    io: &mut MediumIo,
) -> (Vec<(Time, u32, u32)>, Vec<(u32, u32)>) {
    let mut q: BTreeMap<(Time, u64), u32> = BTreeMap::new();
    let (mut got, mut lost) = (Vec::new(), Vec::new());
    loop {
        for w in io.wakes.drain(..) {
            q.insert((w.at, w.seq), w.token);
        }
        lost.extend(io.lost.drain(..).map(|(m, _, s, _)| (m, s)));
        let Some(((at, seq), tok)) = q.pop_first() else {
            break;
        };
        let _ = seq;
        io.delivered.clear();
        c.wake(at, tok / 4, env, io);
        got.extend(io.delivered.iter().map(|&(m, _, s)| (at, m, s)));
    }
    (got, lost)
}

#[test]
fn a_saturated_terminal_gets_the_payload_rate_of_its_modcod() {
    // QPSK 1/2 (1.00 dB) at 2 dB: a normal frame carries 32 208 − 80 bits
    // = 4 016 bytes in 32 490 symbols, 32.49 ms at 1 Msym/s. Packets of
    // 994 bytes take 994 + 10 bytes of GSE each: exactly four per frame.
    let mut c = carrier(&["QPSK 1/4", "QPSK 1/2"], 1, 250);
    let mut env = Env(vec![Box::new(|_| 2.0)]);
    let mut io = MediumIo::default();
    let pkts: Vec<(usize, LinkPacket)> = (0..400).map(|s| (0, pkt(s, 994))).collect();
    backlog(&mut c, &mut env, &mut io, &pkts);
    let (got, lost) = run(&mut c, &mut env, &mut io);
    assert!(lost.is_empty());
    assert_eq!(got.len(), 400);
    for (i, &(t, _, s)) in got.iter().enumerate() {
        assert_eq!(s, i as u32, "in order");
        let frame = i as u64 / 4 + 1;
        assert_eq!(t.0, frame * 32_490_000 + 250_000_000, "packet {i}");
    }
    // So the goodput is 4 × 994 × 8 bits per 32.49 ms, 979.01 kbit/s: the
    // frames' payload rate at QPSK 1/2 (R_s × 4 × 994 × 8 / 32 490).
    assert_eq!(c.counters.frames, 100);
    assert_eq!(c.counters.padding_bytes, 0);
}

#[test]
fn frames_are_filled_to_the_byte_with_fragments() {
    // 1 500-byte packets: every frame but the last is full; the data field
    // holds each PDU once plus its GSE headers.
    let mut c = carrier(&["QPSK 1/2"], 1, 10);
    let mut env = Env(vec![Box::new(|_| 2.0)]);
    let mut io = MediumIo::default();
    let pkts: Vec<(usize, LinkPacket)> = (0..100).map(|s| (0, pkt(s, 1500))).collect();
    backlog(&mut c, &mut env, &mut io, &pkts);
    let (got, _) = run(&mut c, &mut env, &mut io);
    assert_eq!(got.len(), 100);
    let frames = c.counters.frames;
    let used = c.term_counters(0).gse_bytes;
    assert_eq!(used + c.counters.padding_bytes, frames * 4016);
    assert!(c.counters.padding_bytes < 4016);
    // Every PDU is 1 500 bytes plus 10 (whole) or 13 + 7 (first and last
    // fragment) or more (a middle fragment, 3): 37 frames of 4 016 bytes.
    assert_eq!(frames, 38);
    assert!(used >= 100 * 1510);
}

#[test]
fn terminals_share_the_carrier_frame_by_frame_each_at_its_modcod() {
    // A at 2 dB (QPSK 1/2, 32.49 ms frames), B at 9 dB (8PSK 3/4,
    // 21 690 symbols: 21.69 ms); both backlogged: A, B, A, B, ...
    let mut c = carrier(&["QPSK 1/4", "QPSK 1/2", "8PSK 3/4"], 2, 0);
    let mut env = Env(vec![Box::new(|_| 2.0), Box::new(|_| 9.0)]);
    let mut io = MediumIo::default();
    let pkts: Vec<(usize, LinkPacket)> = (0..8)
        .flat_map(|s| [(0, pkt(s, 994)), (1, pkt(100 + s, 994))])
        .collect();
    backlog(&mut c, &mut env, &mut io, &pkts);
    let (got, _) = run(&mut c, &mut env, &mut io);
    // A's first frame carries its 4 packets (ends 32.49 ms), B's 8PSK 3/4
    // frame (6 041 bytes: 6 packets of 1 004 and the first 4 bytes of the
    // 7th) ends at 54.18 ms, A's second at 86.67 ms; B's last 2 packets
    // end at 108.36 ms.
    let when = |slot: u32| got.iter().find(|g| g.2 == slot).unwrap().0 .0;
    assert_eq!(when(0), 32_490_000);
    assert_eq!(when(100), 54_180_000);
    assert_eq!(when(105), 54_180_000);
    assert_eq!(when(4), 86_670_000);
    assert_eq!(when(106), 108_360_000);
    assert_eq!(c.counters.frames, 4);
    // A cannot decode B's frames, so none of A's packets rode in them; B
    // can decode A's, but A's queue filled them.
    assert_eq!(c.term_counters(0).frames, 2);
}

#[test]
fn a_robust_frame_carries_the_others_too() {
    // A at 2 dB has 1 packet; B at 9 dB has 1: A's QPSK 1/2 frame has room
    // for B's packet, which B decodes (its own MODCOD needs more).
    let mut c = carrier(&["QPSK 1/4", "QPSK 1/2", "8PSK 3/4"], 2, 0);
    let mut env = Env(vec![Box::new(|_| 2.0), Box::new(|_| 9.0)]);
    let mut io = MediumIo::default();
    c.send(Time::ZERO, 0, pkt(0, 994), &mut env, &mut io);
    // B's packet joins while A's frame is on the air: the next frame is B's.
    c.send(Time::ZERO, 1, pkt(1, 994), &mut env, &mut io);
    let (got, _) = run(&mut c, &mut env, &mut io);
    assert_eq!(got[0], (Time(32_490_000), 0, 0));
    assert_eq!(got[1], (Time(32_490_000 + 21_690_000), 1, 1));
    // Both queued before the first frame starts: one frame carries both.
    let mut c = carrier(&["QPSK 1/4", "QPSK 1/2", "8PSK 3/4"], 2, 0);
    let mut io = MediumIo::default();
    backlog(
        &mut c,
        &mut env,
        &mut io,
        &[(0, pkt(0, 994)), (1, pkt(1, 994))],
    );
    let (got, _) = run(&mut c, &mut env, &mut io);
    assert_eq!(
        got,
        vec![(Time(32_490_000), 0, 0), (Time(32_490_000), 1, 1)]
    );
    assert_eq!(c.counters.frames, 1);
}

#[test]
fn frames_sent_above_the_es_n0_are_lost_until_the_report_arrives() {
    // 5 dB until 1 s, then 0 dB; reports every 100 ms, 250 ms late. Frames
    // are QPSK 4/5 (4.68 dB) until the report taken at 1.0 s arrives at
    // 1.25 s, then QPSK 2/5 (−0.30 dB): those started in [1.0, 1.25) are lost.
    let all = [
        "QPSK 1/4", "QPSK 1/3", "QPSK 2/5", "QPSK 1/2", "QPSK 3/5", "QPSK 2/3", "QPSK 3/4",
        "QPSK 4/5",
    ];
    let mut c = carrier(&all, 1, 0);
    c.set_report_delay(0, Dur::from_millis(250));
    let mut env = Env(vec![Box::new(|t| if t < 1.0 { 5.0 } else { 0.0 })]);
    let mut io = MediumIo::default();
    // One packet every 10 ms for 2 s.
    let mut q: BTreeMap<(Time, u64), u32> = BTreeMap::new();
    let (mut lost_at, mut got_at) = (Vec::new(), Vec::new());
    let mut next_pkt = 0u32;
    loop {
        let tp = Time::from_secs_f64(next_pkt as f64 * 0.01);
        let tw = q.first_key_value().map(|(k, _)| k.0);
        if next_pkt < 200 && tw.is_none_or(|w| tp <= w) {
            c.send(tp, 0, pkt(next_pkt, 500), &mut env, &mut io);
            lost_at.extend(io.lost.drain(..).map(|_| tp));
            next_pkt += 1;
        } else if let Some(((at, _), tok)) = q.pop_first() {
            c.wake(at, tok / 4, &mut env, &mut io);
            got_at.extend(io.delivered.drain(..).map(|_| at));
            lost_at.extend(io.lost.drain(..).map(|_| at));
        } else {
            break;
        }
        for w in io.wakes.drain(..) {
            q.insert((w.at, w.seq), w.token);
        }
    }
    assert_eq!(got_at.len() + lost_at.len(), 200);
    assert!(!lost_at.is_empty());
    for t in &lost_at {
        let s = t.as_secs_f64();
        assert!((1.0..1.25).contains(&s), "lost at {s}");
    }
    let h: Vec<(f64, &str)> = c
        .acm_history(0)
        .iter()
        .map(|&(t, r)| (t.as_secs_f64(), MODCODS[c.cfg.ladder.index[r]].name))
        .collect();
    assert_eq!(
        h,
        vec![(0.0, "QPSK 1/4"), (0.25, "QPSK 4/5"), (1.25, "QPSK 2/5")]
    );
}
