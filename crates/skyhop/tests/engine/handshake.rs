//! The optional three-way handshake through whole runs, with exact timing.
//!
//! `geo_single.toml`: A - SAT - B, 1 Mb/s and 125 ms per hop, error-free.
//! A 40-byte SYN or SYN-ACK takes 40 * 8 / 1e6 s = 320 us to serialise per
//! hop, and meets empty links (nothing else is on the wire yet).

use crate::common;

use common::*;
use skyhop::{run, RunOptions, RunResult};

const SIZE: &str = "flows.ftp.size=\"100 kB\"";
/// One hop of a 40-byte packet: 320 us serialisation + 125 ms propagation.
const HOP_40B_NS: u64 = 320_000 + 125_000_000;

fn go(sets: &[&str]) -> RunResult {
    let mut all = vec![SIZE];
    all.extend_from_slice(sets);
    run_ok(&scenario_studies("geo_single.toml", &all), 1)
}

/// Completion time in integer nanoseconds (the engine's clock).
fn done_ns(r: &RunResult) -> u64 {
    let s = r.flows["ftp"]
        .completion_time_s
        .expect("the transfer completes");
    (s * 1e9).round() as u64
}

#[test]
fn the_handshake_adds_exactly_one_round_trip_of_40_byte_packets() {
    let off = go(&[]);
    let on = go(&["tcp.handshake=true"]);
    // SYN A->SAT->B and SYN-ACK B->SAT->A: four hops of a 40-byte packet.
    // Data then leaves A at 501.28 ms onto idle links, and runs exactly as
    // the run without the handshake, shifted (no losses, so the RTT sample
    // the SYN gave changes no decision); the final ACK of the handshake rides
    // on the first data segment.
    assert_eq!(done_ns(&on), done_ns(&off) + 4 * HOP_40B_NS);
    assert_eq!(4 * HOP_40B_NS, 501_280_000);
    let (fo, fn_) = (&off.flows["ftp"], &on.flows["ftp"]);
    assert_eq!(fo.retransmissions, 0);
    assert_eq!(fn_.retransmissions, 0);
    assert_eq!(fn_.bytes_delivered, 100_000);
    // One more segment sent: the SYN (no bytes); one more ACK: the SYN-ACK.
    assert_eq!(fn_.legs[0].segments_sent, fo.legs[0].segments_sent + 1);
    assert_eq!(fn_.legs[0].bytes_sent, fo.legs[0].bytes_sent);
    assert_eq!(fn_.legs[0].acks_received, fo.legs[0].acks_received + 1);
    // Per-flow options select it too.
    let per_flow = go(&["flows.ftp.options.handshake=true"]);
    assert_eq!(done_ns(&per_flow), done_ns(&on));
}

#[test]
fn default_off_is_unchanged() {
    let dflt = go(&[]);
    let off = go(&["tcp.handshake=false"]);
    assert_eq!(
        serde_json::to_string(&dflt).unwrap(),
        serde_json::to_string(&off).unwrap()
    );
    // No SYN: 100 kB is 69 segments of 1460 B (68 full + one of 720 B).
    assert_eq!(dflt.flows["ftp"].legs[0].segments_sent, 69);
}

#[test]
fn a_proxy_answers_the_syn_and_its_outgoing_leg_handshakes_next() {
    let p = "flows.ftp.proxies=[\"SAT\"]";
    let off = go(&[p]);
    let on = go(&[p, "tcp.handshake=true"]);
    // Leg 1 (A->SAT): SYN at 0 reaches SAT at 125.32 ms; SAT's receiver
    // answers (SYN-ACK back at A at 250.64 ms) and SAT sends its own SYN to
    // B at once: leg 2's SYN-ACK is back at SAT at 125.32 + 250.64 =
    // 375.96 ms. A's first data segment (1500 B: 12 ms) leaves at 250.64 ms
    // and reaches SAT at 387.64 ms, after leg 2 is open: the leg-2
    // handshake is hidden, and the transfer is the run without handshake
    // shifted by leg 1's round trip of 40-byte packets, 250.64 ms.
    const { assert!(125_320_000 + 2 * HOP_40B_NS < 250_640_000 + 12_000_000 + 125_000_000) };
    assert_eq!(done_ns(&on), done_ns(&off) + 2 * HOP_40B_NS);
    let (fo, fn_) = (&off.flows["ftp"], &on.flows["ftp"]);
    for leg in 0..2 {
        assert_eq!(fn_.legs[leg].segments_sent, fo.legs[leg].segments_sent + 1);
        assert_eq!(fn_.legs[leg].retransmissions, 0);
    }
}

#[test]
fn with_a_longer_outgoing_leg_the_proxy_handshakes_in_sequence() {
    // Leg 2 (SAT->B) now has 250 ms of delay: a 40-byte hop is 250.32 ms.
    let sets = [
        SIZE,
        "flows.ftp.proxies=[\"SAT\"]",
        "links.down.delay=\"250 ms\"",
        "tcp.handshake=true",
    ];
    let scn = scenario_studies("geo_single.toml", &sets);
    let r = run(
        &scn,
        1,
        &RunOptions {
            trace: true,
            ..Default::default()
        },
    )
    .unwrap();
    let srtt = &r.traces["ftp.1.srtt"];
    // Leg 2 opens when leg 1's SYN reaches SAT: 125.32 ms ...
    let ns = |t: f64| (t * 1e9).round() as u64;
    assert_eq!(ns(srtt.t_s[0]), HOP_40B_NS);
    assert!(srtt.value[0].is_nan());
    // ... and is established when its SYN-ACK returns, 2 x 250.32 ms later,
    // at 625.96 ms, with the exchange as its first RTT sample (500.64 ms).
    let i = srtt.value.iter().position(|v| !v.is_nan()).unwrap();
    assert_eq!(ns(srtt.t_s[i]), HOP_40B_NS + 2 * 250_320_000);
    assert_eq!(ns(srtt.value[i]), 2 * 250_320_000);
    // Meanwhile leg 1's first data reached SAT (387.64 ms) and waited for
    // leg 2 in the cache: leg 2's first data leaves at 625.96 ms instead of
    // 137 ms (1500 B at 1 Mb/s + 125 ms) without the handshake. Leg 2 (the
    // longer round trip) sets the pace and leg 1 keeps data waiting for it
    // in both runs, so the whole leg-2 schedule, and the completion, shift
    // by 625.96 - 137 = 488.96 ms (more than leg 1's 250.64 ms: the legs'
    // handshakes are sequential, not overlapped).
    let off = run_ok(&scenario_studies("geo_single.toml", &sets[..3]), 1);
    assert_eq!(off.flows["ftp"].retransmissions, 0);
    assert_eq!(r.flows["ftp"].retransmissions, 0);
    assert_eq!(
        done_ns(&r),
        done_ns(&off) + (HOP_40B_NS + 2 * 250_320_000) - (12_000_000 + 125_000_000)
    );
}

#[test]
fn lossy_links_with_proxies_and_the_handshake_deliver_every_byte() {
    // 10 % PER on both hops in both directions: SYNs and SYN-ACKs are lost
    // too. Every transfer must complete (the ByteLedger checks each leg).
    for tcp in ["newreno", "sack", "westwood", "tahoe"] {
        for aaf in [false, true] {
            for seed in 1..=6 {
                let tcp_set = format!("flows.ftp.tcp=\"{tcp}\"");
                let aaf_set = format!("nodes.SAT.proxy.ack_after_forward={aaf}");
                let sets = [
                    SIZE,
                    "links.up.per=0.1",
                    "links.down.per=0.1",
                    "flows.ftp.proxies=[\"SAT\"]",
                    "tcp.handshake=true",
                    &tcp_set,
                    &aaf_set,
                ];
                let r = run_ok(&scenario_studies("geo_single.toml", &sets), seed);
                let f = &r.flows["ftp"];
                assert_eq!(f.bytes_delivered, 100_000, "{tcp} aaf={aaf} seed {seed}");
                assert!(f.completion_time_s.is_some());
            }
        }
    }
}
