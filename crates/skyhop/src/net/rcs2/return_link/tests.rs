//! The return link driven by hand: the DAMA loop's timing worked out from
//! the superframe plan, the delays and the scheduler's latency.

use super::*;
use crate::net::rcs2::waveform::by_id;
use std::collections::BTreeMap;

struct NoLoss;
impl ReturnEnv for NoLoss {
    fn packet_lost(&mut self, _m: usize, _tx: &Tx) -> bool {
        false
    }
}

/// Waveform 14 (188 bytes per burst) with 184 guard symbols at 360 kbaud:
/// 5 ms timeslots; one 50 ms frame per superframe, one carrier: 10
/// timeslots per superframe. Scheduler latency 50 ms; both propagation
/// delays 250 ms.
fn link(terms: &[TermConfig]) -> ReturnLink {
    let sf = Superframe::new(
        by_id(14).unwrap(),
        360_000.0,
        184,
        Dur::from_millis(50),
        1,
        1,
        None,
    )
    .unwrap();
    let cfg = ReturnConfig {
        sf,
        scheduler_latency: Dur::from_millis(50),
        rbdc_timeout: 16,
        rle: Rle::default(),
        token_tag: 1,
    };
    let t: Vec<_> = terms
        .iter()
        .map(|&c| {
            (
                c,
                Dir::Reverse,
                Dur::from_millis(250),
                Dur::from_millis(250),
                1000,
            )
        })
        .collect();
    ReturnLink::new(cfg, &t)
}

fn term(cra_bps: f64, rbdc_max_bps: f64, vbdc_max_bytes: u64) -> TermConfig {
    TermConfig {
        cra_bps,
        rbdc_max_bps,
        vbdc_max_bytes,
        fca: false,
        weight: 1.0,
    }
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

/// Run the link until `stop`, injecting `arrivals` (time s, member, slot,
/// bytes); returns the deliveries (time, member, slot); nothing is lost.
fn run(
    r: &mut ReturnLink,
    arrivals: &[(f64, usize, u32, u32)],
    stop: f64,
) -> Vec<(Time, u32, u32)> {
    let (got, lost) = run_lossy(r, arrivals, stop);
    assert_eq!(lost, 0);
    got
}

/// The same, counting the packets lost (queue drops).
fn run_lossy(
    r: &mut ReturnLink,
    arrivals: &[(f64, usize, u32, u32)],
    stop: f64,
) -> (Vec<(Time, u32, u32)>, usize) {
    let mut lost = 0;
    let mut io = MediumIo::default();
    r.start(&mut io);
    let mut q: BTreeMap<(Time, u64), u32> = BTreeMap::new();
    let mut next = 0;
    let mut got = Vec::new();
    let stop = Time::from_secs_f64(stop);
    loop {
        for w in io.wakes.drain(..) {
            q.insert((w.at, w.seq), w.token);
        }
        lost += io.lost.len();
        io.lost.clear();
        let ta = arrivals.get(next).map(|a| Time::from_secs_f64(a.0));
        let tw = q.first_key_value().map(|(k, _)| k.0);
        match (ta, tw) {
            (Some(a), w) if w.is_none_or(|w| a < w) && a <= stop => {
                let (_, m, s, b) = arrivals[next];
                r.send(a, m, pkt(s, b), &mut io);
                next += 1;
            }
            (_, Some(w)) if w <= stop => {
                let ((at, _), tok) = q.pop_first().unwrap();
                assert_eq!(tok % 4, 1, "the return link's tag");
                r.wake(at, tok / 4, &mut NoLoss, &mut io);
                got.extend(io.delivered.drain(..).map(|(m, _, s)| (at, m, s)));
            }
            _ => break,
        }
    }
    (got, lost)
}

#[test]
fn under_rbdc_the_first_packet_after_idle_waits_one_request_grant_loop() {
    // A 100-byte packet reaches the idle terminal at 1.012 s. Its request
    // goes in the terminal's signalling timeslot of superframe 21 (time
    // position 0: 1.050–1.055 s) and reaches the gateway at 1.305 s. The
    // scheduler allocates superframe n at n × 50 ms − 50 ms − 250 ms; the
    // first at or after 1.305 s is n = 33 (1.35 s). Superframe 33 starts at
    // 1.650 s: the packet's burst is 1.650–1.655 s, and it reaches the
    // gateway 250 ms later. Access delay: 1.650 − 1.012 = 0.638 s, that is
    // the wait for the request slot (38 ms) + the slot (5 ms) + the round
    // trip (500 ms) + the scheduler's latency (50 ms), rounded up to the
    // next superframe (45 ms). (Without the latency, or the slot, the
    // grant would come one superframe earlier.)
    let mut r = link(&[term(0.0, 1e6, 0)]);
    let got = run(&mut r, &[(1.012, 0, 7, 100)], 3.0);
    assert_eq!(got, vec![(Time::from_secs_f64(1.905), 0, 7)]);
    let (n, mean) = r.access_delay(0);
    assert_eq!(n, 1);
    assert!((mean - 0.638).abs() < 1e-9, "{mean}");
    assert!((0.038 + 0.005 + 0.5 + 0.05 + 0.045 - 0.638f64).abs() < 1e-12);
}

#[test]
fn under_cra_it_goes_in_the_next_timeslot() {
    // CRA of one timeslot per superframe (1 504 bits per 50 ms): the packet
    // goes in superframe 21's timeslot at 1.050 s, no loop.
    let mut r = link(&[term(30_080.0, 0.0, 0)]);
    let got = run(&mut r, &[(1.012, 0, 7, 100)], 3.0);
    assert_eq!(got, vec![(Time::from_secs_f64(1.305), 0, 7)]);
    assert!((r.access_delay(0).1 - 0.038).abs() < 1e-9);
    // It was granted one timeslot in each superframe allocated by 3 s
    // (n × 50 ms − 300 ms ≤ 3 s: superframes 0–66) and used one.
    assert_eq!(r.slots(0), (67, 1));
}

#[test]
fn under_vbdc_the_volume_asked_is_granted_in_whole_timeslots() {
    // 1 500 bytes take 8 full bursts and 19 bytes: 9 timeslots, positions
    // 0–8 of superframe 33 (1.650–1.695 s).
    let mut r = link(&[term(0.0, 0.0, 100_000)]);
    let got = run(&mut r, &[(1.012, 0, 7, 1500)], 3.0);
    assert_eq!(got, vec![(Time::from_secs_f64(1.695 + 0.25), 0, 7)]);
    assert_eq!(r.slots(0), (9, 9));
    let g = r.grant_table();
    assert_eq!(g.rows.len(), 1);
    assert_eq!(g.rows[0][..8], [1.65, 0.0, 0.0, 1523.0, 0.0, 0.0, 9.0, 0.0]);
}

#[test]
fn backlogged_terminals_share_by_weight() {
    // Two terminals with unbounded RBDC, weights 1 and 3, each given a
    // packet of 184 bytes (one burst) every 2 ms for 10 s: twice the
    // link's 300.8 kbit/s each. Once the loop has settled, the
    // superframe's 10 timeslots split 2.5 : 7.5.
    let mut a = term(0.0, 1e7, 0);
    let mut b = term(0.0, 1e7, 0);
    a.weight = 1.0;
    b.weight = 3.0;
    let mut r = link(&[a, b]);
    let mut arrivals = Vec::new();
    for k in 0..5000u32 {
        let t = k as f64 * 0.002;
        arrivals.push((t, 0, 2 * k, 180));
        arrivals.push((t, 1, 2 * k + 1, 180));
    }
    let (_, dropped) = run_lossy(&mut r, &arrivals, 10.0);
    assert!(dropped > 0, "more is offered than the link carries");
    let g = r.grant_table();
    let (mut sa, mut sb) = (0.0, 0.0);
    for row in g.rows.iter().filter(|row| row[0] >= 2.0 && row[0] < 9.0) {
        let slots = row[5];
        if row[1] == 0.0 {
            sa += slots
        } else {
            sb += slots
        }
    }
    assert_eq!(
        sa + sb,
        140.0 * 10.0,
        "every timeslot of superframes 40–179 granted"
    );
    assert!((sb / sa - 3.0).abs() < 0.05, "{sa} vs {sb}");
}
