//! AeroTCP through both gateways of the aeronautical network of Shang
//! (2007): conservation at a high BER, the window staying at its
//! allocation, the split-path maximum min(SatBW, SndBuf/SatRTT,
//! RecBuf/GndRTT), and one-line errors for impossible allocations.

use crate::common;
use skyhop::scenario::{load_path, load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};

const E5: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/e5_aero.toml");

fn run_e5(sets: &[&str], seed: u64) -> RunResult {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = load_path(E5, &sets).expect("E5 loads");
    let plan = Plan::build(&scn, E5).expect("plan builds");
    run_plan(&plan, seed, &RunOptions::default()).expect("run succeeds")
}

#[test]
fn ten_aerotcp_connections_deliver_every_byte_through_both_gateways_at_ber_1e_5() {
    // The engine's byte ledgers check every leg's in-order delivery (a
    // duplicate, a gap or a phantom byte ends the run with an error) and a
    // proxy buffer overflow is an error too; here every byte must arrive.
    let r = run_e5(&["links.sat.ber=1e-5"], 3);
    assert_eq!(r.flows.len(), 10);
    for (name, f) in &r.flows {
        assert_eq!(f.bytes_delivered, 1_600_000, "{name}: {f:?}");
        assert!(f.completion_time_s.is_some(), "{name} did not finish");
        assert_eq!(f.legs.len(), 3);
        assert_eq!(f.legs[1].tcp, "aerotcp");
        // Every leg carried the whole file (the run stops when the last
        // byte reaches the client, so the final ACKs may still be in flight).
        assert!(
            f.legs.iter().all(|l| l.bytes_sent >= 1_600_000),
            "{name}: {:?}",
            f.legs
        );
        assert!(
            f.legs[1].retransmissions > 0,
            "{name}: no loss at BER 1e-5?"
        );
    }
    for p in &r.proxies {
        assert_eq!(p.drops, 0);
    }
    assert!(r.jain_fairness.unwrap() > 0.8);
}

#[test]
fn the_aerotcp_window_stays_at_its_allocation_through_losses() {
    let sets: Vec<String> = vec!["links.sat.ber=1e-6".into()];
    let scn = load_path(E5, &sets).unwrap();
    let plan = Plan::build(&scn, E5).unwrap();
    let opts = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    let r = run_plan(&plan, 1, &opts).unwrap();
    // 5 Mb/s / 10 x 480 ms = 30 000 B = 20 packets of 1500 B.
    let cwnd = &r.traces["f3.1.cwnd"];
    assert!(!cwnd.value.is_empty());
    assert!(
        cwnd.value.iter().all(|&w| w == 20.0 * 1460.0),
        "{:?}",
        &cwnd.value[..5]
    );
    assert!(r.flows["f3"].legs[1].fast_recoveries > 0);
}

/// One connection, error-free, with one of the three limits binding.
fn split_path(sndbuf: u64, recbuf: u64) -> f64 {
    let text = format!(
        r#"
[run]
duration = "120 s"
[tcp]
aero_allocation = {{ mode = "window", window = 400 }}
[nodes.S]
[nodes.C]
[nodes.GGW.proxy]
policy = "buffers"
recv_buffer = "{recbuf} B"
send_buffer = "{sndbuf} B"
[nodes.AGW.proxy]
policy = "buffers"
recv_buffer = "2000000 B"
send_buffer = "2000000 B"
[links.g]
between = ["S", "GGW"]
rate = "100 Mbps"
delay = "50 ms"
queue = 1000
[links.sat]
between = ["GGW", "AGW"]
delay = "240 ms"
queue = 1000
forward = {{ rate = "5 Mbps" }}
reverse = {{ rate = "1 Mbps" }}
[links.a]
between = ["AGW", "C"]
rate = "100 Mbps"
delay = "0.05 ms"
queue = 1000
[flows.f]
from = "S"
to = "C"
proxies = ["GGW", "AGW"]
legs = ["sack", "aerotcp", "sack"]
options = {{ rcv_buffer = "4 MB", initial_window = 400, initial_ssthresh = "4 MB" }}
"#
    );
    let scn = load_str(&text, "split.toml", &common::studies(&[])).unwrap();
    let plan = Plan::build(&scn, "split.toml").unwrap();
    let r = run_plan(&plan, 1, &RunOptions::default()).unwrap();
    r.flows["f"].goodput_bps
}

#[test]
fn split_path_throughput_is_the_smallest_of_satbw_sndbuf_over_satrtt_and_recbuf_over_gndrtt() {
    let (sat_rtt, gnd_rtt, sat_bw): (f64, f64, f64) = (0.480, 0.100, 5e6);
    let max = |snd: f64, rec: f64| {
        (sat_bw * 1460.0 / 1500.0)
            .min(snd * 8.0 / sat_rtt)
            .min(rec * 8.0 / gnd_rtt)
    };
    for (snd, rec, what) in [
        (30_000u64, 2_000_000u64, "SndBuf/SatRTT"),
        (2_000_000, 30_000, "RecBuf/GndRTT"),
        (2_000_000, 2_000_000, "SatBW"),
    ] {
        let got = split_path(snd, rec);
        let want = max(snd as f64, rec as f64);
        // Transmission and ACK times lengthen the round trips a little, and
        // the 120 s run includes the start: within 12 % below, never above.
        assert!(
            got <= want * 1.01 && got >= want * 0.88,
            "{what}: {got} vs {want}"
        );
    }
}

fn load_err(sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_path(E5, &sets).unwrap_err().to_string()
}

#[test]
fn impossible_allocations_are_one_line_errors_naming_file_and_key() {
    let e = load_err(&["tcp.aero_allocation.sat_bw=\"0 Mbps\""]);
    assert!(
        e.contains("e5_aero.toml") && e.contains("tcp.aero_allocation.sat_bw"),
        "{e}"
    );
    let e = load_err(&["tcp.aero_allocation.n=0"]);
    assert!(
        e.contains("tcp.aero_allocation.n") && e.contains("N = 0"),
        "{e}"
    );
    let e = load_err(&["templates.conn.count=-1"]);
    assert!(e.contains("templates.conn.count"), "{e}");
    let e = load_err(&["nodes.AGW.proxy.send_buffer=\"100 B\""]);
    assert!(e.contains("nodes.AGW.proxy.send_buffer"), "{e}");
    let e = load_err(&[
        "tcp.aero_allocation.mode=prdp",
        "tcp.aero_allocation.peak_rate=\"0 bps\"",
    ]);
    assert!(e.contains("tcp.aero_allocation.peak_rate"), "{e}");
    assert!(!load_err(&["tcp.aero_allocation.n=0"]).contains('\n'));
}

#[test]
fn templates_give_each_connection_its_ground_round_trip_and_set_reaches_expanded_flows() {
    let scn = load_path(
        E5,
        &["flows.f9.legs=[\"sack\",\"sack\",\"sack\"]".to_string()],
    )
    .unwrap();
    assert_eq!(scn.flows.len(), 10);
    assert_eq!(scn.links["g9"].delay.unwrap().0.as_secs_f64(), 0.070);
    assert_eq!(scn.flows["f9"].legs.as_ref().unwrap()[1], "sack");
}
