//! quinn's NewReno under uniform packet loss against the square-root law
//! of Mathis, Semke, Mahdavi and Ott (CCR 27(3), 1997), as `mathis.rs`
//! holds skyhop's TCP NewReno to it:
//!
//!     rate = C * P / (RTT * sqrt(p))
//!
//! Regime: `geo_single.toml` (1 Mb/s per hop, 125 ms per hop, 50-packet
//! queues), a bulk QUIC flow with quinn's NewReno (RFC 9002 §7: the window
//! grows by one maximum datagram per window of acknowledged bytes, halves
//! once per round trip with losses), each datagram carrying stream data
//! lost on the uplink with probability p, acknowledgements never; 2000 s.
//!
//! The quantities, from the path and quinn's datagrams: after MTU
//! discovery a full datagram is 1452 B of UDP payload (1480 B on the
//! wire), carrying P stream bytes (its short header, packet number, AEAD
//! tag and stream frame header taken off; measured below from the run
//! itself: delivered bytes over datagrams sent). R0 = 2 × 11.84 ms (a full
//! datagram on two hops) + 2 × ~0.5 ms (an acknowledgement) + 4 × 125 ms
//! = 524.6 ms. The window counts bytes, so delayed acknowledgements
//! (quinn acknowledges every second datagram) do not slow its growth:
//! b = 1 datagram per round trip and, as for TCP without delayed ACKs,
//! C = sqrt(3/2) (the derivation is `mathis.rs`'s). What moves the
//! measurement, as there: random rather than periodic losses (up to +7 %),
//! whole datagrams (a few per cent down), the pipe of R0 / 11.84 ms = 44
//! datagrams plus the queue capping the law's W = sqrt(8/(3p)) = 52 at
//! p = 0.001 (some 4 % down). Unlike TCP, no retransmission timeout
//! collapses the window (a probe timeout does not reduce it, RFC 9002
//! §6.2; only persistent congestion would), so the points stay near the
//! law as p grows. The band asserted is `mathis.rs`'s, [0.80, 1.10] × the
//! law, over the mean of 4 seeds.
//!
//! `cargo test --release --test engine quic_mathis:: -- --nocapture`
//! prints the table.

use crate::common::par_map;
use skyhop::quic::{QuicConfig, QuicController};
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::RunOptions;

const R0_S: f64 = 2.0 * 0.01184 + 2.0 * 0.0005 + 4.0 * 0.125;

/// Mean goodput (b/s) and stream bytes per full datagram of quinn's
/// NewReno over seeds 1..=4, 2000 s each.
fn quinn_newreno(p: f64) -> (f64, f64) {
    let path = format!(
        "{}/../../scenarios/geo_single.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let sets = [
        "flows.ftp.size=unlimited".to_string(),
        "run.duration=\"2000 s\"".to_string(),
        format!("links.up.per={p}"),
        "links.up.errors_apply_to=\"data\"".to_string(),
    ];
    let scn = load_str(&text, "geo_single.toml", &sets).unwrap();
    let cfg = QuicConfig {
        controller: QuicController::NewReno,
        ..QuicConfig::default()
    };
    let plan: Plan = {
        let mut plan = Plan::build(&scn, "geo_single.toml").unwrap();
        plan.flows[0].quic = Some(cfg.clone());
        plan
    };
    let seeds = [1u64, 2, 3, 4];
    let runs = par_map(&seeds, |&s| {
        let r = run_plan(&plan, s, &RunOptions::default()).unwrap();
        let f = &r.flows["ftp"];
        assert!(f.connection_error.is_none(), "{:?}", f.connection_error);
        let client = r.quic.iter().find(|q| q.end == "client").unwrap();
        assert_eq!(client.mtu, 1452);
        // Stream frames of datagrams that arrived (the lost ones' frames
        // were sent again): nearly all of the client's datagrams are full.
        let frames = client.stream_frames_sent - client.lost_packets;
        (f.goodput_bps, f.bytes_delivered as f64 / frames as f64)
    });
    let n = runs.len() as f64;
    (
        runs.iter().map(|r| r.0).sum::<f64>() / n,
        runs.iter().map(|r| r.1).sum::<f64>() / n,
    )
}

#[test]
fn quinn_newreno_under_uniform_loss_follows_the_square_root_law() {
    let c = 1.5f64.sqrt();
    println!("p        goodput(b/s)  law C=1.225   ratio   C fitted  P (B)");
    let mut log_c = 0.0;
    let ps = [0.001, 0.002, 0.005, 0.01];
    let mut goodput = Vec::new();
    for &p in &ps {
        let (g, payload) = quinn_newreno(p);
        let law = |c: f64| c * payload * 8.0 / (R0_S * p.sqrt());
        let c_fit = g / law(1.0);
        log_c += c_fit.ln();
        println!(
            "{p:<8} {g:>12.0} {:>12.0} {:>8.3} {c_fit:>8.3}  {payload:.0}",
            law(c),
            g / law(c)
        );
        assert!(
            (0.80..=1.10).contains(&(g / law(c))),
            "p = {p}: goodput {g:.0} b/s is {:.3} x the law ({:.0} b/s)",
            g / law(c),
            law(c)
        );
        // A full datagram's stream bytes: 1452 B less a 1-byte first
        // byte, an 8-byte connection ID, a 1- or 2-byte packet number, a
        // 16-byte tag and a stream frame's type, stream and 4-byte offset
        // (6 B; its length left out when it fills the packet): 1418-1419 B,
        // a little less on average for the few datagrams that are not full.
        assert!((1400.0..=1419.0).contains(&payload), "{payload}");
        goodput.push(g);
    }
    let c_fit = (log_c / ps.len() as f64).exp();
    println!("C fitted over all p: {c_fit:.3}");
    assert!((1.05..=1.30).contains(&c_fit), "fitted C = {c_fit}");
    let slope = (goodput[3] / goodput[1]).ln() / (ps[3] / ps[1]).ln();
    println!("log-log slope between p = 0.002 and 0.01: {slope:.3}");
    assert!((-0.60..=-0.40).contains(&slope), "slope {slope}");
}
