//! The error-free GEO path of `scenarios/geo_single.toml` (A - SAT - B,
//! 1 Mb/s and 125 ms per hop, 50-packet queues, NewReno, IW 1, no delayed
//! ACKs): long-run goodput, and small transfers against the closed form.

use crate::common;
use common::*;

#[test]
fn error_free_geo_bulk_transfer_reaches_97_percent_of_the_payload_capacity_over_600_s() {
    let r = run_ok(
        &scenario(
            "geo_single.toml",
            &["flows.ftp.size=unlimited", "run.duration=600 s"],
        ),
        1,
    );
    let f = &r.flows["ftp"];
    let share = f.goodput_bps / PAYLOAD_CAPACITY_BPS;
    assert!(
        share >= 0.97,
        "goodput {:.0} b/s = {:.2} %",
        f.goodput_bps,
        share * 100.0
    );
    assert!(share <= 1.0, "faster than the link: {share}");
}

#[test]
fn after_its_slow_start_overshoot_newreno_keeps_an_error_free_geo_path_full() {
    // The start costs about 9 s of link time: slow start from one segment
    // overshoots the 43.7-packet pipe + 50-packet queue to a window of ~187
    // segments (half of it dropped at the queue); Impatient NewReno ends that
    // recovery with a timeout, and the next overshoot's retransmission waits
    // behind a full queue (RTT 1.13 s) while SRTT, with no sample since the
    // queue built up (Karn; one timed segment per RTT), still says 0.58 s: a
    // spurious timeout and go-back-N. After that, congestion avoidance halves
    // from ~94 to ~47 segments, still above the 43.7-segment pipe, so the link
    // never idles. The runs are deterministic and the first 230 s of the
    // 600-s run are the 230-s run, so their difference is the steady state.
    let bytes = |secs: u64| {
        let d = format!("run.duration={secs} s");
        let r = run_ok(
            &scenario_studies("geo_single.toml", &["flows.ftp.size=unlimited", &d]),
            1,
        );
        r.flows["ftp"].bytes_delivered
    };
    let (b230, b600) = (bytes(230), bytes(600));
    let steady = (b600 - b230) as f64 * 8.0 / 370.0 / PAYLOAD_CAPACITY_BPS;
    assert!(steady > 0.995, "steady-state share {steady}");
    let lost_s = 230.0 - b230 as f64 * 8.0 / PAYLOAD_CAPACITY_BPS;
    assert!((3.0..20.0).contains(&lost_s), "start-up cost {lost_s} s");
}

/// Completion time of an `size`-byte transfer that ends in slow start.
///
/// Handshake-free, IW = 1, one ACK per segment, ssthresh unlimited. Per hop:
/// data packet T = 1500 B at 1 Mb/s = 12 ms, ACK a = 40 B = 0.32 ms,
/// propagation d = 125 ms. Segment 0 of round k leaves at t_k, reaches B at
/// t_k + 2T + 2d and its ACK is back at t_k + R, R = 2T + 2a + 4d =
/// 524.64 ms, so t_k = k R. In round k each ACK (spaced T apart, the
/// bottleneck's pace) releases two segments; the first hop stays busy, so
/// segment j of the round leaves it at t_k + (j+1) T and, hop 2 being just
/// as fast, reaches B at t_k + (j+2) T + 2d. This holds while a round's
/// 2^k T fits within R (k <= 5) and its queue (2^(k-1) waiting) within 50
/// packets, i.e. for up to 1+2+...+64 = 127 segments.
///
/// With n = ceil(size/1460) segments, rounds 0..K-1 are full (2^K - 1
/// segments) and the last round K carries m = n - (2^K - 1). The last
/// segment has L = size - 1460 (n-1) payload bytes, T' = (L+40)*8/1e6 per
/// hop. It leaves hop 1 at t_K + (m-1) T + T'; on hop 2 it waits for its
/// predecessor (m >= 2) until t_K + m T + d, else starts on arrival:
///     m >= 2: t = K R + m T + T' + 2d
///     m = 1:  t = K R + 2 T' + 2d
fn slow_start_closed_form(size: u64) -> f64 {
    let tx = |bytes: u64| bytes as f64 * 8.0 / 1e6;
    let (t, a, d) = (tx(1500), tx(40), 0.125);
    let r = 2.0 * t + 2.0 * a + 4.0 * d;
    let n = size.div_ceil(1460);
    let mut k = 0u32;
    while (1u64 << (k + 1)) - 1 < n {
        k += 1;
    }
    let m = n - ((1u64 << k) - 1);
    let t_last = tx(size - 1460 * (n - 1) + 40);
    let kr = k as f64 * r;
    if m >= 2 {
        kr + m as f64 * t + t_last + 2.0 * d
    } else {
        kr + 2.0 * t_last + 2.0 * d
    }
}

#[test]
fn small_transfers_that_finish_in_slow_start_match_the_closed_form_time() {
    // 1 B; 1 segment; 2 segments (the second of 1 B); 10 kB (7 segments,
    // last round of 4); 50 kB (35: 3 in round 5); 100 kB (69: 6 in round 6);
    // 127 full segments (a full round 6 of 64).
    for size in [1u64, 1460, 1461, 10_000, 50_000, 100_000, 127 * 1460] {
        let s = format!("flows.ftp.size={size} B");
        let r = run_ok(&scenario_studies("geo_single.toml", &[&s]), 1);
        let f = &r.flows["ftp"];
        assert_eq!(f.bytes_delivered, size);
        assert_eq!((f.retransmissions, f.timeouts), (0, 0));
        let got = f.completion_time_s.unwrap();
        let want = slow_start_closed_form(size);
        // Acceptance asks for 2 %; the model is exact, so hold it to 1 us.
        assert!(
            (got - want).abs() / want < 0.02,
            "{size} B: {got} s vs {want} s"
        );
        assert!((got - want).abs() < 1e-6, "{size} B: {got} s vs {want} s");
    }
    // For scale: the textbook count of round trips, (K+1) R = 3.67 s for 127
    // segments, is 14 % short of the 4.18 s here, because the last round of
    // 64 segments takes 64 T = 768 ms to serialise: the serialisation terms
    // are not optional.
    let naive = 7.0 * 0.52464;
    assert!((slow_start_closed_form(127 * 1460) - naive).abs() / naive > 0.1);
}
