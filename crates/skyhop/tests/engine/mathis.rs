//! NewReno's long-run goodput under uniform packet loss against the
//! square-root law of Mathis, Semke, Mahdavi and Ott (CCR 27(3), 1997):
//!
//!     rate = C * MSS / (RTT * sqrt(p))
//!
//! Regime: `geo_single.toml`, 1 Mb/s per hop, base RTT R0 = 2*12 ms (data,
//! two hops) + 2*0.32 ms (ACK) + 4*125 ms = 524.64 ms, a pipe of R0/12 ms =
//! 43.7 segments plus a 50-packet queue; each data segment lost on the
//! uplink with probability p, independently; ACKs never lost; one ACK per
//! segment (no delayed ACKs); IW 1, min RTO 1 s; bulk for 2000 s.
//!
//! Which C. In congestion avoidance the window grows by b = 1 segment per
//! RTT (one ACK per segment) and halves at each loss. With one loss every
//! 1/p segments a cycle runs from W/2 to W in W/2 round trips and carries
//! (3/8) W^2 = 1/p segments, so W = sqrt(8/(3p)) and
//! rate = (1/p) MSS / (R W/2) = (MSS/R) sqrt(3/(2p)): C = sqrt(3/2) = 1.225
//! (sqrt(3/4) with delayed ACKs, b = 2). What moves the measurement:
//! - up to +7 %: losses are random, not periodic; for independent losses
//!   the ideal model's constant is about 1.31 (Ott, Kemperman, Mathis 1996).
//! - down, growing with p: retransmission timeouts (a lost retransmission,
//!   windows too small for three duplicate ACKs). The PFTK model (Padhye et
//!   al. 1998) with T0 = 1 s gives 0.98 x the law at p = 0.005, 0.96 x at
//!   p = 0.01.
//! - down ~2-4 %: the sender sends whole segments, so the usable window is
//!   floor(cwnd), half a segment below the fluid model at W = 13..25.
//! - down ~4 % at p = 0.001: the law's W = sqrt(8/(3p)) = 51.6 segments
//!   exceeds the 43.7-segment pipe. Above it the link caps the rate and the
//!   queue stretches the RTT; the sawtooth with RTT(w) = max(R0, w * 12 ms)
//!   predicts 832 kb/s against the law's 862 kb/s. The start-up overshoot
//!   (about 9 s of link time, see geo_bulk.rs) costs 0.5 % of 2000 s more.
//!
//! So C ~ 1.1 - 1.2 is expected here, and each point should lie within
//! [0.89, 1.07] x the law (C = sqrt(3/2), RTT = R0). The band asserted,
//! [0.80, 1.10], adds the statistical error of 6 runs of 2000 s (at
//! p = 0.001 about 800 loss events; the per-seed spread is a few per cent)
//! on both sides.
//!
//! The measured table is printed by `cargo test --release --test engine mathis:: -- --nocapture`.

use crate::common;
use common::*;

const R0_S: f64 = 2.0 * 0.012 + 2.0 * 0.00032 + 4.0 * 0.125;
const MSS_BITS: f64 = 1460.0 * 8.0;

fn sqrt_law(c: f64, p: f64) -> f64 {
    c * MSS_BITS / (R0_S * p.sqrt())
}

/// Mean goodput (b/s) of NewReno over seeds 1..=6, 2000 s each.
fn newreno_goodput(p: f64) -> f64 {
    let per = format!("links.up.per={p}");
    let scn = scenario(
        "geo_single.toml",
        &[
            "flows.ftp.size=unlimited",
            "run.duration=2000 s",
            "flows.ftp.tcp=newreno",
            &per,
            "links.up.errors_apply_to=data",
        ],
    );
    let seeds = [1u64, 2, 3, 4, 5, 6];
    let g = par_map(&seeds, |&s| run_ok(&scn, s).flows["ftp"].goodput_bps);
    g.iter().sum::<f64>() / g.len() as f64
}

#[test]
fn newreno_goodput_under_uniform_loss_follows_the_square_root_law_with_c_near_sqrt_3_over_2() {
    let ps = [0.001, 0.002, 0.005, 0.01];
    let goodput: Vec<f64> = ps.iter().map(|&p| newreno_goodput(p)).collect();
    let c = (1.5f64).sqrt();
    println!("p        goodput(b/s)  law C=1.225   ratio   C fitted");
    let mut log_c = 0.0;
    for (&p, &g) in ps.iter().zip(&goodput) {
        let law = sqrt_law(c, p);
        let c_fit = g / sqrt_law(1.0, p);
        log_c += c_fit.ln();
        println!("{p:<8} {g:>12.0} {law:>12.0} {:>8.3} {c_fit:>8.3}", g / law);
        assert!(
            (0.80..=1.10).contains(&(g / law)),
            "p = {p}: goodput {g:.0} b/s is {:.3} x the law ({law:.0} b/s)",
            g / law
        );
        assert!(g < PAYLOAD_CAPACITY_BPS);
    }
    // The one constant that fits all four points (geometric mean).
    let c_fit = (log_c / ps.len() as f64).exp();
    println!("C fitted over all p: {c_fit:.3}");
    assert!((1.05..=1.25).contains(&c_fit), "fitted C = {c_fit}");
    // The shape: goodput ~ p^(-1/2) where the link does not cap it
    // (timeouts steepen the slope a little as p grows).
    let slope = (goodput[3] / goodput[1]).ln() / (ps[3] / ps[1]).ln();
    println!("log-log slope between p = 0.002 and 0.01: {slope:.3}");
    assert!((-0.65..=-0.45).contains(&slope), "slope {slope}");
}
