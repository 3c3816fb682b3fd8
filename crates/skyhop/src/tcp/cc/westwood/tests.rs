//! Tests of the Westwood ABSE estimator and its window rules.

use super::*;

const MSS: u64 = 1460;

fn ms(x: u64) -> Dur {
    Dur::from_millis(x)
}

fn at_ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

fn state(cwnd_segments: u64) -> CcState {
    CcState {
        cwnd: cwnd_segments * MSS,
        ssthresh: u64::MAX,
        mss: MSS,
    }
}

/// A new cumulative ACK of `acked` bytes at `now`.
fn ack(now: Time, acked: u64, srtt: Option<Dur>, min_rtt: Option<Dur>) -> AckSample {
    AckSample {
        now,
        acked_bytes: acked,
        is_dupack: false,
        sacked_bytes: 0,
        rtt_sample: srtt,
        srtt,
        min_rtt,
        flight_bytes: 0,
        delivered_bytes: acked,
        cwnd_limited: true,
        open: true,
    }
}

fn dupack(now: Time, srtt: Option<Dur>, min_rtt: Option<Dur>) -> AckSample {
    AckSample {
        is_dupack: true,
        acked_bytes: 0,
        ..ack(now, 0, srtt, min_rtt)
    }
}

fn rel_err(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

/// One segment every 10 ms (146 000 B/s) from t = 0 to `until_ms`, with no
/// RTT known, so every T_k = Δt_k and every s_k is exactly the rate.
fn fed_at_146_kbyte_per_s(until_ms: u64) -> Westwood {
    let mut w = Westwood::default();
    let s = state(1);
    for i in 0..=until_ms / 10 {
        w.observe_ack(&s, &ack(at_ms(10 * i), MSS, None, None));
    }
    w
}

#[test]
fn westwood_estimate_converges_to_a_constant_ack_rate() {
    // 1460 B every 12 ms = 121 666.67 B/s = 973 333.3 bit/s. SRTT 0.5 s and
    // RTT_min 0.5 s from the start: the first sample has no δ_{k−1} and
    // uses T = RTT, whose window holds only the two ACKs so far
    // (2920 B / 0.5 s = 5840 B/s); the filter must climb from there.
    let mut w = Westwood::default();
    let s = state(2);
    let (srtt, rtt_min) = (Some(ms(500)), Some(ms(500)));
    w.observe_ack(&s, &ack(at_ms(0), MSS, srtt, rtt_min));
    w.observe_ack(&s, &ack(at_ms(12), MSS, srtt, rtt_min));
    assert_eq!(w.last_sampling_interval(), Some(ms(500)));
    assert!(rel_err(w.ere_bytes_per_s().unwrap(), 5840.0) < 1e-12);
    // About 36 s of ACKs: the error decays as ((2τ−Δt)/(2τ+Δt))^k, 1e-14 after 3000.
    for i in 2..3000 {
        w.observe_ack(&s, &ack(at_ms(12 * i), MSS, srtt, rtt_min));
    }
    let rate = 1460.0 / 0.012;
    assert!(rel_err(w.ere_bytes_per_s().unwrap(), rate) < 1e-9);
    assert!(rel_err(w.rate_estimate_bps().unwrap(), 973_333.333_333_3) < 1e-9);
    // Uncongested (δ·RTT_min = 60 833 B ≥ cwnd = 2920 B): T_k = Δt_k.
    assert_eq!(w.last_sampling_interval(), Some(ms(12)));
}

fn with_input(input: FilterInput) -> Westwood {
    Westwood::new(WestwoodParams {
        input,
        ..WestwoodParams::default()
    })
}

#[test]
fn westwood_filter_weights_the_trapezoid_of_the_last_two_samples_by_one_minus_alpha() {
    // Was `westwood_filter_weights_the_new_sample_by_one_minus_alpha`, which
    // expected the E1 study's short form u_k = s_k (kept below as LatestSample).
    // τ = 1 s. ACKs at 0 and 0.5 s (no RTT known: T_k = Δt_k):
    // s_1 = 1460 B / 0.5 s = 2920 B/s initialises δ_1.
    // Then Δt = 0.25 s: α = (2 − 0.25)/(2 + 0.25) = 7/9, and a delayed ACK
    // of two segments: s_2 = 2920 B / 0.25 s = 11 680 B/s.
    let feed = |w: &mut Westwood| {
        let s = state(1);
        w.observe_ack(&s, &ack(at_ms(0), MSS, None, None));
        w.observe_ack(&s, &ack(at_ms(500), MSS, None, None));
        assert_eq!(w.ere_bytes_per_s(), Some(2920.0));
        w.observe_ack(&s, &ack(at_ms(750), 2 * MSS, None, None));
        assert_eq!(w.last_sample_bytes_per_s(), Some(11_680.0));
    };
    let mut w = Westwood::default();
    assert!(rel_err(w.alpha(ms(250)), 7.0 / 9.0) < 1e-15);
    feed(&mut w);
    // u_2 = (11 680 + 2920)/2 = 7300: δ_2 = 7/9·2920 + 2/9·7300 = 35 040/9.
    assert_eq!(w.last_filter_input_bytes_per_s(), Some(7300.0));
    assert!(rel_err(w.ere_bytes_per_s().unwrap(), 35_040.0 / 9.0) < 1e-12);
    // The E1 study's short form: δ_2 = 7/9·2920 + 2/9·11 680 = 43 800/9.
    let mut w = with_input(FilterInput::LatestSample);
    feed(&mut w);
    assert!(rel_err(w.ere_bytes_per_s().unwrap(), 43_800.0 / 9.0) < 1e-12);
    // Interval mean: over (0.5, 0.75] only the ACK at 0.5 s is in the
    // window, counted at 1460 B / 0.5 s (its T); the delayed ACK enters
    // from its arrival on. δ_2 = 2920.
    let mut w = with_input(FilterInput::IntervalMean);
    feed(&mut w);
    assert_eq!(w.last_filter_input_bytes_per_s(), Some(2920.0));
    assert_eq!(w.ere_bytes_per_s(), Some(2920.0));
}

#[test]
fn westwood_filter_forgets_the_old_estimate_after_a_gap_longer_than_two_tau() {
    // Δt = 3 s > 2τ = 2 s: α would be (2 − 3)/(2 + 3) = −0.2; clamped to 0,
    // so δ_{k−1} carries no weight and δ_k is the filter input itself.
    let feed = |w: &mut Westwood| {
        let s = state(1);
        w.observe_ack(&s, &ack(at_ms(0), MSS, None, None));
        w.observe_ack(&s, &ack(at_ms(10), MSS, None, None));
        assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
        w.observe_ack(&s, &ack(at_ms(3010), 3 * MSS, None, None));
        // s = 4380 B / 3 s = 1460 B/s.
        assert_eq!(w.last_sample_bytes_per_s(), Some(1460.0));
    };
    let mut w = Westwood::default();
    assert_eq!(w.alpha(Dur::from_secs(3)), 0.0);
    feed(&mut w);
    // The trapezoid still holds the sample from before the silence:
    // δ = (146 000 + 1460)/2. (This test expected 1460, the E1 study's short form.)
    assert_eq!(w.ere_bytes_per_s(), Some(73_730.0));
    let mut w = with_input(FilterInput::LatestSample);
    feed(&mut w);
    assert_eq!(w.ere_bytes_per_s(), Some(1460.0));
    // Interval mean: one segment over the 3 s.
    let mut w = with_input(FilterInput::IntervalMean);
    feed(&mut w);
    assert!(rel_err(w.ere_bytes_per_s().unwrap(), 1460.0 / 3.0) < 1e-12);
}

/// Average throughput of [`ten_acks_every_557_ms`], bit/s.
const BURSTY_THROUGHPUT_BPS: f64 = 10.0 * 1460.0 * 8.0 / 0.557;

/// A window-limited sender on an uncongested GEO path (E1 between losses):
/// every RTT = RTT_min = 557 ms, 10 one-segment ACKs 12 ms apart (the
/// packet time at 1 Mb/s), then silence; cwnd constant. Feeds 60 bursts
/// and returns the ERE (bit/s) after each of the ten ACKs of one more,
/// and the last T_k.
fn ten_acks_every_557_ms(w: &mut Westwood, cwnd_segments: u64) -> (Vec<f64>, Dur) {
    let rtt = (Some(ms(557)), Some(ms(557)));
    let mut last = Vec::new();
    for p in 0..=60 {
        last.clear();
        for i in 0..10 {
            let a = ack(at_ms(557 * p + 12 * i), MSS, rtt.0, rtt.1);
            w.observe_ack(&state(cwnd_segments), &a);
            last.extend(w.rate_estimate_bps());
        }
    }
    assert_eq!(
        last.len(),
        10,
        "an estimate after every ACK of the last burst"
    );
    (last, w.last_sampling_interval().unwrap())
}

/// Every value in `[lo, hi]` (and there are some).
fn within(values: &[f64], lo: f64, hi: f64) -> bool {
    !values.is_empty() && values.iter().all(|&v| v >= lo && v <= hi)
}

#[test]
fn westwood_bursty_acks_on_an_uncongested_path_give_the_tcpw_bandwidth_estimate() {
    // cwnd = 10 segments = what is in flight. Throughput 209.7 kbit/s,
    // bottleneck 973.3 kbit/s (1460 B per 12 ms).
    let thr = BURSTY_THROUGHPUT_BPS;
    // Trapezoid: the ERE·RTT_min ≥ cwnd branch (T_k = T_min = Δt_k, the
    // TCPW sample d/Δt). Across each silence G = 557 − 108 = 449 ms it
    // interpolates from d/g down to d/G: per period the filter takes in
    // (W − 2)·d + d·(g + G)²/(2gG) = 27.7 segments for the 10 delivered,
    // i.e. ≈ 581 kbit/s, between throughput and bottleneck rate.
    let (ere, t_k) = ten_acks_every_557_ms(&mut Westwood::default(), 10);
    let g: f64 = 0.012;
    let gap = 0.557 - 9.0 * g;
    let derived = (8.0 + (g + gap).powi(2) / (2.0 * g * gap)) * 1460.0 * 8.0 / 0.557;
    assert!(rel_err(derived, 581_000.0) < 2e-3, "{derived}");
    assert!(within(&ere, 0.95 * derived, 1.05 * derived), "{ere:?}");
    assert_eq!(t_k, ms(12));
    // The E1 study's short form: the ERE is a quarter of the throughput
    // (0.23 to 0.29 of it over a burst), and stays in the windowed branch
    // (T_k ≈ 0.4 s) that causes it.
    let (ere, t_k) = ten_acks_every_557_ms(&mut with_input(FilterInput::LatestSample), 10);
    assert!(within(&ere, 0.2 * thr, 0.3 * thr), "{ere:?}");
    assert!(t_k > ms(300), "{t_k}");
    // Interval mean: the throughput, within the ±20 % the long window of
    // the first ACK after each silence makes it swing by.
    let (ere, _) = ten_acks_every_557_ms(&mut with_input(FilterInput::IntervalMean), 10);
    assert!(within(&ere, 0.8 * thr, 1.2 * thr), "{ere:?}");
}

#[test]
fn westwood_counts_bursty_acks_across_the_silences_in_the_congested_branch() {
    // cwnd = 40 segments while 10 are sent per RTT (e.g. the receiver's
    // window holds the flight): ERE·RTT_min < cwnd, T_k ≈ 0.42–0.48 s,
    // shorter than the 449 ms silences.
    let thr = BURSTY_THROUGHPUT_BPS;
    let (ere, t_k) = ten_acks_every_557_ms(&mut with_input(FilterInput::IntervalMean), 40);
    assert!(t_k > ms(400) && t_k < ms(557), "{t_k}");
    assert!(within(&ere, 0.97 * thr, 1.03 * thr), "{ere:?}");
    // Trapezoid: for silences longer than T_k ≈ 0.46 s it takes in about
    // throughput·P/(2T_k), 0.62–0.72 of it: still low, though less so
    // than the E1 study's short form (about half).
    let (ere, t_k) = ten_acks_every_557_ms(&mut Westwood::default(), 40);
    assert!(t_k > ms(400) && t_k < ms(557), "{t_k}");
    assert!(within(&ere, 0.65 * thr, 0.8 * thr), "{ere:?}");
    // The short form: about half (0.51 to 0.54 of it over a burst).
    let (ere, _) = ten_acks_every_557_ms(&mut with_input(FilterInput::LatestSample), 40);
    assert!(within(&ere, 0.45 * thr, 0.55 * thr), "{ere:?}");
}

#[test]
fn westwood_samples_over_a_shortened_rtt_when_congested() {
    // δ = 146 000 B/s exactly, RTT_min = 0.25 s: δ·RTT_min = 36 500 B = 25 segments.
    // cwnd = 50 segments = 73 000 B > 36 500: congested.
    // T = SRTT·(73 000 − 36 500)/73 000 = 0.4 s · 1/2 = 200 ms.
    let mut w = fed_at_146_kbyte_per_s(1000);
    assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
    let (srtt, rtt_min) = (Some(ms(400)), Some(ms(250)));
    w.observe_ack(&state(50), &ack(at_ms(1010), MSS, srtt, rtt_min));
    assert_eq!(w.last_sampling_interval(), Some(ms(200)));
    // (t − 200 ms, t] holds the 20 ACKs at t, t − 10, …, t − 190 ms:
    // 29 200 B / 0.2 s = 146 000 B/s, the true rate.
    assert_eq!(w.last_sample_bytes_per_s(), Some(146_000.0));
    assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
}

#[test]
fn westwood_samples_every_ack_when_the_pipe_holds_the_window() {
    // δ·RTT_min = 36 500 B ≥ cwnd = 20 segments = 29 200 B: T = T_min = Δt = 10 ms.
    let mut w = fed_at_146_kbyte_per_s(1000);
    let (srtt, rtt_min) = (Some(ms(400)), Some(ms(250)));
    w.observe_ack(&state(20), &ack(at_ms(1010), MSS, srtt, rtt_min));
    assert_eq!(w.last_sampling_interval(), Some(ms(10)));
    // Exactly at the boundary (cwnd = 36 500 B = δ·RTT_min) it is still T_min.
    let mut w = fed_at_146_kbyte_per_s(1000);
    w.observe_ack(&state(25), &ack(at_ms(1010), MSS, srtt, rtt_min));
    assert_eq!(w.last_sampling_interval(), Some(ms(10)));
}

#[test]
fn westwood_keeps_the_sampling_interval_within_t_min_and_rtt() {
    let (srtt, rtt_min) = (Some(ms(400)), Some(ms(250)));
    // cwnd = 36 600 B, barely above δ·RTT_min = 36 500 B:
    // T = 0.4 s · 100/36 600 = 1.09 ms < T_min = 10 ms → 10 ms.
    let mut w = fed_at_146_kbyte_per_s(1000);
    let s = CcState {
        cwnd: 36_600,
        ..state(1)
    };
    w.observe_ack(&s, &ack(at_ms(1010), MSS, srtt, rtt_min));
    assert_eq!(w.last_sampling_interval(), Some(ms(10)));
    // An ACK after 0.6 s of silence (Δt > RTT = 0.4 s): T = T_min = 600 ms.
    let mut w = fed_at_146_kbyte_per_s(1000);
    w.observe_ack(&state(50), &ack(at_ms(1600), MSS, srtt, rtt_min));
    assert_eq!(w.last_sampling_interval(), Some(ms(600)));
    // A huge cwnd: T = 0.4 s · (1 − 36 500/2⁴⁰) = 400 ms − 13.28 ns, rounded to the ns.
    let mut w = fed_at_146_kbyte_per_s(1000);
    let s = CcState {
        cwnd: 1 << 40,
        ..state(1)
    };
    w.observe_ack(&s, &ack(at_ms(1010), MSS, srtt, rtt_min));
    assert_eq!(w.last_sampling_interval(), Some(Dur(399_999_987)));
    // No estimate yet (δ_{k−1} taken as 0): T = RTT exactly.
    let mut w = Westwood::default();
    w.observe_ack(&state(50), &ack(at_ms(0), MSS, srtt, rtt_min));
    w.observe_ack(&state(50), &ack(at_ms(10), MSS, srtt, rtt_min));
    assert_eq!(w.last_sampling_interval(), Some(ms(400)));
}

#[test]
fn westwood_counts_a_cumulative_ack_after_three_dupacks_only_for_the_remainder() {
    // Segment 2 is lost; 3, 4 and 5 arrive (3 DUPACKs, 1460 B each); the
    // retransmitted 2 then draws a cumulative ACK for 2–5 (5840 B), of
    // which 5840 − 4380 = 1460 B were not counted before.
    let mut c = DeliveryCounter::default();
    assert_eq!(c.delivered(&ack(at_ms(0), MSS, None, None), MSS), 1460);
    for i in 1..=3 {
        assert_eq!(c.delivered(&dupack(at_ms(i), None, None), MSS), 1460);
    }
    assert_eq!(c.dupack_credit(), 4380);
    assert_eq!(c.delivered(&ack(at_ms(4), 4 * MSS, None, None), MSS), 1460);
    assert_eq!(c.dupack_credit(), 0);
    // A delayed ACK afterwards counts all it covers.
    assert_eq!(c.delivered(&ack(at_ms(5), 2 * MSS, None, None), MSS), 2920);
}

#[test]
fn westwood_carries_dupack_credit_over_partial_acks_floored_at_zero() {
    // 3 DUPACKs (4380 B credit), then NewReno partial ACKs of 1, 2 and 3 segments.
    let mut c = DeliveryCounter::default();
    for i in 0..3 {
        c.delivered(&dupack(at_ms(i), None, None), MSS);
    }
    assert_eq!(c.delivered(&ack(at_ms(3), MSS, None, None), MSS), 0);
    assert_eq!(c.dupack_credit(), 2920);
    assert_eq!(c.delivered(&ack(at_ms(4), 2 * MSS, None, None), MSS), 0);
    assert_eq!(c.dupack_credit(), 0);
    assert_eq!(c.delivered(&ack(at_ms(5), 3 * MSS, None, None), MSS), 4380);
}

#[test]
fn westwood_samples_dupacks_as_one_segment_each_and_not_twice() {
    // ACKs every 10 ms, no RTT (T = Δt): each sample is what that ACK counted.
    let mut w = fed_at_146_kbyte_per_s(100);
    let s = state(1);
    for i in 1..=3 {
        w.observe_ack(&s, &dupack(at_ms(100 + 10 * i), None, None));
        assert_eq!(w.last_sample_bytes_per_s(), Some(146_000.0));
    }
    // Cumulative ACK of 4 segments (the retransmission plus the 3 reported): 1 is new.
    w.observe_ack(&s, &ack(at_ms(140), 4 * MSS, None, None));
    assert_eq!(w.last_sample_bytes_per_s(), Some(146_000.0));
    assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
}

#[test]
fn westwood_ignores_window_updates_and_merges_acks_at_one_instant() {
    let mut w = fed_at_146_kbyte_per_s(100);
    let s = state(1);
    // A pure window update: no delivery, no sample.
    w.observe_ack(&s, &ack(at_ms(105), 0, None, None));
    assert_eq!(w.last_sampling_interval(), Some(ms(10)));
    // Two ACKs at t = 110 ms: the second leaves δ unchanged (α = 1) ...
    w.observe_ack(&s, &ack(at_ms(110), MSS, None, None));
    w.observe_ack(&s, &ack(at_ms(110), MSS, None, None));
    assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
    // ... but its bytes are in the next RTT-long window: SRTT = 40 ms,
    // RTT_min = 10 ms, cwnd 4 segments > δ·RTT_min = 1 segment:
    // T = 40 ms·(4 − 1)/4 = 30 ms; (90, 120] holds 100, 110, 110, 120 = 4 segments.
    let rtt = (Some(ms(40)), Some(ms(10)));
    w.observe_ack(&state(4), &ack(at_ms(120), MSS, rtt.0, rtt.1));
    assert_eq!(w.last_sampling_interval(), Some(ms(30)));
    let s_k = w.last_sample_bytes_per_s().unwrap();
    assert!(rel_err(s_k, 4.0 * 1460.0 / 0.03) < 1e-12);
}

#[test]
fn westwood_sets_ssthresh_from_estimate_after_three_dupacks() {
    // ERE = 146 000 B/s, RTT_min = 0.25 s: ERE·RTT_min = 36 500 B = 25 segments.
    let mut w = fed_at_146_kbyte_per_s(1000);
    w.observe_ack(
        &state(20),
        &ack(at_ms(1010), MSS, Some(ms(400)), Some(ms(250))),
    );
    assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
    // cwnd 50 segments > ssthresh: cut to ssthresh (not to flight/2).
    let mut s = state(50);
    w.on_loss(&mut s, at_ms(1010), 50 * MSS);
    assert_eq!((s.ssthresh, s.cwnd), (36_500, 36_500));
    // cwnd 20 segments ≤ ssthresh: kept.
    let mut s = state(20);
    w.on_loss(&mut s, at_ms(1010), 20 * MSS);
    assert_eq!((s.ssthresh, s.cwnd), (36_500, 29_200));
}

#[test]
fn westwood_rounds_ssthresh_down_to_whole_segments() {
    // 121 666.67 B/s × 0.5 s = 60 833 B = 41.67 segments → 41 × 1460 = 59 860 B.
    assert_eq!(ssthresh_from_rate(1460.0 / 0.012, ms(500), MSS), 59_860);
}

#[test]
fn westwood_restarts_from_one_segment_with_ssthresh_from_estimate_after_rto() {
    let mut w = fed_at_146_kbyte_per_s(1000);
    w.observe_ack(
        &state(20),
        &ack(at_ms(1010), MSS, Some(ms(400)), Some(ms(250))),
    );
    let mut s = state(50);
    w.on_rto(&mut s, at_ms(2000), 50 * MSS);
    assert_eq!((s.ssthresh, s.cwnd), (36_500, MSS));
}

#[test]
fn westwood_floors_ssthresh_at_two_segments() {
    // ERE = 1460 B/s (one segment per second), RTT_min = 0.25 s: 0.25 segment → 2 segments.
    let mut w = Westwood::default();
    let s = state(1);
    w.observe_ack(&s, &ack(at_ms(0), MSS, None, Some(ms(250))));
    w.observe_ack(&s, &ack(at_ms(1000), MSS, None, Some(ms(250))));
    assert_eq!(w.ere_bytes_per_s(), Some(1460.0));
    let mut s = state(10);
    w.on_rto(&mut s, at_ms(2000), 10 * MSS);
    assert_eq!((s.ssthresh, s.cwnd), (2 * MSS, MSS));
    let mut s = state(10);
    w.on_loss(&mut s, at_ms(2000), 10 * MSS);
    assert_eq!((s.ssthresh, s.cwnd), (2 * MSS, 2 * MSS));
}

#[test]
fn westwood_falls_back_to_half_the_flight_before_any_estimate() {
    let mut w = Westwood::default();
    assert_eq!(w.rate_estimate_bps(), None);
    let mut s = state(10);
    w.on_loss(&mut s, at_ms(0), 10 * MSS);
    assert_eq!((s.ssthresh, s.cwnd), (5 * MSS, 5 * MSS));
    let mut s = state(10);
    w.on_rto(&mut s, at_ms(0), 3 * MSS);
    assert_eq!((s.ssthresh, s.cwnd), (2 * MSS, MSS));
    // An estimate but no RTT_min yet: still the fallback.
    let mut w = fed_at_146_kbyte_per_s(100);
    assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
    let mut s = state(10);
    w.on_loss(&mut s, at_ms(200), 8 * MSS);
    assert_eq!((s.ssthresh, s.cwnd), (4 * MSS, 4 * MSS));
}

#[test]
fn westwood_grows_the_window_like_reno() {
    let mut w = Westwood::default();
    let mut s = CcState {
        cwnd: 2 * MSS,
        ssthresh: 4 * MSS,
        mss: MSS,
    };
    w.on_ack(&mut s, &ack(at_ms(0), MSS, None, None));
    assert_eq!(s.cwnd, 3 * MSS);
    s.cwnd = 10 * MSS;
    w.on_ack(&mut s, &ack(at_ms(1), MSS, None, None));
    assert_eq!(s.cwnd, 10 * MSS + MSS / 10);
}

#[test]
fn westwood_prunes_history_without_changing_samples() {
    // 100 s of ACKs every 10 ms, SRTT 400 ms, τ = 1 s: history stays
    // 2·max(RTT, τ) = 2 s long, and every sample still equals a count
    // over all ACKs ever sent.
    let mut w = Westwood::default();
    let (srtt, rtt_min) = (Some(ms(400)), Some(ms(250)));
    for i in 0..10_000u64 {
        let now = 10 * i;
        w.observe_ack(&state(50), &ack(at_ms(now), MSS, srtt, rtt_min));
        if i == 0 {
            continue;
        }
        let t_k = w.last_sampling_interval().unwrap().0;
        let start_ns = at_ms(now).0 as i128 - t_k as i128;
        // Windows are ≤ 400 ms: the last 100 ACKs (1 s) hold every candidate.
        let n = (i.saturating_sub(100)..=i)
            .filter(|j| at_ms(10 * j).0 as i128 > start_ns)
            .count() as u64;
        let expected = rate_bytes_per_s(n * MSS, Dur(t_k));
        assert_eq!(w.last_sample_bytes_per_s(), Some(expected), "at {now} ms");
    }
    assert!(w.history.len() <= 201, "history len {}", w.history.len());
    // The fixed point δ = 20 segments / T(δ) is a double root at 146 000 B/s
    // (T = 200 ms), approached from above: T stays a little under 200 ms.
    let t_k = w.last_sampling_interval().unwrap();
    assert!(t_k <= ms(200) && t_k > ms(199), "{t_k}");
    assert!(rel_err(w.ere_bytes_per_s().unwrap(), 146_000.0) < 1e-3);
}

#[test]
fn westwood_params_reject_a_zero_tau() {
    let zero = WestwoodParams {
        tau: Dur::ZERO,
        ..WestwoodParams::default()
    };
    assert!(zero.validate().is_err());
    assert!(WestwoodParams::default().validate().is_ok());
}
