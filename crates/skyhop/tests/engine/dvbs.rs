//! The DVB-S link layer (ACM, SR-ARQ, return path) end to end through scenarios.

use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};

const E6: &str = include_str!("../../../../scenarios/e6_geo_3g.toml");

fn plan(text: &str, sets: &[&str]) -> Plan {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = load_str(text, "e6.toml", &sets).expect("scenario loads");
    Plan::build(&scn, "e6.toml").expect("plan builds")
}

fn run(text: &str, sets: &[&str], seed: u64) -> RunResult {
    run_plan(&plan(text, sets), seed, &RunOptions::default()).expect("run")
}

fn build_err(sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match load_str(E6, "e6.toml", &sets) {
        Err(e) => e.to_string(),
        Ok(scn) => match Plan::build(&scn, "e6.toml") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{sets:?} should be refused"),
        },
    }
}

/// A probe saturating the forward link with 1504-byte datagrams (8 frames).
const SATURATE: &str = r#"
[run]
duration = "1000 s"
[nodes.ES]
[nodes.MT]
[links.sat]
between = ["ES", "MT"]
rate = "1416 kbps"
delay = "250 ms"
queue = 50
[links.sat.link_layer]
model = "dvbs"
return_path = "rct"
acm = "acm"
arq = false
fer_good = 0
fer_bad = 0
[flows.p]
from = "ES"
to = "MT"
app = "cbr"
cbr = { rate = "1.6 Mbps", packet = "1504 B" }
"#;

#[test]
fn acm_under_saturation_carries_the_mean_information_rate_of_1_180_mbps() {
    // Every datagram is 8 frames; without frame errors a datagram is lost
    // only to misalignment (HBW frames sent after a GOOD->BAD change before
    // the report arrives), and lost ones occupied the link all the same. So
    // (delivered + lost on the channel) x 1504 B / time is the information
    // rate the link sent at: 0.75 x 1.416 + 0.25 x 0.472 = 1.180 Mb/s.
    let (mut bits, mut secs, mut misaligned) = (0f64, 0f64, 0u64);
    for seed in 1..=8 {
        let r = run(SATURATE, &[], seed);
        let fwd = r.links.iter().find(|l| l.dir == "forward").unwrap();
        assert_eq!(fwd.link_drops, 0);
        assert!(fwd.queue_drops > 0, "the probe saturates the link");
        bits += (fwd.delivered + fwd.channel_drops) as f64 * 1504.0 * 8.0;
        secs += r.engine.sim_time_s;
        misaligned += fwd.channel_drops;
    }
    let rate = bits / secs;
    assert!(
        (rate - 1.180e6).abs() < 0.02 * 1.180e6,
        "mean information rate {rate}"
    );
    assert!(
        misaligned > 0,
        "GOOD->BAD changes cost the misaligned frames"
    );
    // Fixed modes carry their own rate.
    for (acm, want) in [("fixed-hbw", 1.416e6), ("fixed-lbw", 0.472e6)] {
        let r = run(SATURATE, &[&format!("links.sat.link_layer.acm={acm}")], 1);
        let fwd = r.links.iter().find(|l| l.dir == "forward").unwrap();
        let rate = (fwd.delivered + fwd.channel_drops) as f64 * 1504.0 * 8.0 / r.engine.sim_time_s;
        assert!((rate - want).abs() < 0.002 * want, "{acm}: {rate}");
    }
}

#[test]
fn the_forward_links_frames_and_mode_switches_are_in_the_results() {
    // Without ARQ and frame errors, every datagram is 8 frames sent once,
    // and a frame is lost only when sent in HBW while the channel is BAD.
    let r = run(SATURATE, &["run.duration=\"60 s\""], 1);
    let fwd = r.links.iter().find(|l| l.dir == "forward").unwrap();
    let c = |k: &str| fwd.layer[k];
    let framed = fwd.delivered + fwd.channel_drops;
    // The datagrams delivered or lost, and at most a link's worth in
    // flight (250 ms at 1.416 Mb/s: 30 datagrams) or being framed.
    assert!(
        c("frames_sent") >= 8 * framed && c("frames_sent") <= 8 * (framed + 31),
        "{fwd:?}"
    );
    assert_eq!(c("frames_retransmitted"), 0);
    assert_eq!(c("frames_lost"), c("frames_misaligned"));
    // A lost datagram lost at least one of its frames.
    assert!(
        fwd.channel_drops > 0 && c("frames_lost") >= fwd.channel_drops,
        "{fwd:?}"
    );
    assert!(c("mode_switches") >= 1 && c("reports_sent") >= c("mode_switches"));
    assert_eq!(c("arq_acks_sent"), 0);
    // The return path and a FIFO link have none of these.
    let rev = r.links.iter().find(|l| l.dir == "reverse").unwrap();
    assert!(rev.layer.is_empty(), "{rev:?}");
    let json = serde_json::to_value(fwd).unwrap();
    assert_eq!(json["frames_sent"], c("frames_sent"));
}

/// Twenty seconds, GOOD at first, one GOOD->BAD change (seed 11: the chain
/// leaves GOOD once within the run, at 12.5 s); only misalignment loses frames.
/// The receive window stays below the IP buffer, so that TCP cannot overflow
/// it: these runs isolate what the link layer does.
fn transition(sets: &[&str]) -> RunResult {
    let mut all = vec![
        "tcp.rcv_buffer=\"128 kB\"",
        "links.sat.queue=100",
        "run.duration=\"20 s\"",
        "links.sat.link_layer.initial=good",
        "links.sat.link_layer.t_good=\"8 s\"",
        "links.sat.link_layer.t_bad=\"4 s\"",
        "links.sat.link_layer.fer_good=0",
        "links.sat.link_layer.fer_bad=0",
    ];
    all.extend_from_slice(sets);
    run(E6, &all, SEED)
}

const SEED: u64 = 11;

#[test]
fn with_arq_and_asto_no_tcp_rto_fires_across_a_good_to_bad_change_without_arq_one_does() {
    let arq = transition(&["links.sat.link_layer.asto=true"]);
    let fwd = arq.links.iter().find(|l| l.dir == "forward").unwrap();
    let f = &arq.flows["ftp"];
    assert_eq!(f.timeouts, 0, "{f:?}");
    assert_eq!(
        fwd.channel_drops + fwd.link_drops,
        0,
        "ARQ recovers every frame"
    );
    let noarq = transition(&["links.sat.link_layer.arq=false"]);
    let fwd = noarq.links.iter().find(|l| l.dir == "forward").unwrap();
    assert!(
        fwd.channel_drops > 10,
        "a burst of segments is lost: {fwd:?}"
    );
    assert!(noarq.flows["ftp"].timeouts >= 1, "{:?}", noarq.flows["ftp"]);
    assert!(f.goodput_bps > noarq.flows["ftp"].goodput_bps);
}

#[test]
fn the_chain_of_the_transition_test_leaves_good_once() {
    // The premise of the test above, on the link's own chain (seed 1).
    use skyhop::engine::Time;
    use skyhop::net::dvbs::DvbsLink;
    use skyhop::net::LinkLayerSpec;
    let p = plan(
        E6,
        &[
            "links.sat.link_layer.initial=good",
            "links.sat.link_layer.t_good=\"8 s\"",
            "links.sat.link_layer.t_bad=\"4 s\"",
        ],
    );
    let LinkLayerSpec::Dvbs(spec) = &p.layers[0].spec else {
        panic!("a dvbs link")
    };
    let mut link: DvbsLink = DvbsLink::new(
        spec.params().unwrap(),
        SEED,
        "sat",
        p.links[0].delay,
        100,
        144_000,
        p.links[1].delay,
        100,
        Vec::new(),
    );
    let chain = link.chain();
    assert!(!chain.state_at(Time::ZERO));
    let inside: Vec<f64> = (0..)
        .map(|k| chain.switch(k).as_secs_f64())
        .take_while(|&t| t < 20.0)
        .collect();
    // GOOD until 12.5 s (TCP long past slow start), BAD until 15.0 s, then
    // GOOD to the end: one GOOD->BAD change.
    assert_eq!(inside.len(), 2, "switches {inside:?}");
    assert!(inside[0] > 10.0, "switches {inside:?}");
}

#[test]
fn same_seed_same_result_and_every_byte_once() {
    let a = run(E6, &["run.duration=\"30 s\""], 7);
    let b = run(E6, &["run.duration=\"30 s\""], 7);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let c = run(E6, &["run.duration=\"30 s\""], 8);
    assert_ne!(
        a.flows["ftp"].bytes_delivered,
        c.flows["ftp"].bytes_delivered
    );
}

#[test]
fn return_path_presets_set_the_reverse_direction() {
    let p = plan(E6, &[]);
    assert_eq!(p.links[1].rate_bps, 144_000);
    assert_eq!(p.links[1].delay.0, 30_000_000);
    assert_eq!(p.links[0].rate_bps, 1_416_000);
    let p = plan(
        E6,
        &[
            "links.sat.link_layer.return_path=rcs",
            "links.sat.link_layer.asto_time=\"0.54 s\"",
        ],
    );
    assert_eq!(p.links[1].delay.0, 250_000_000);
    // RCS is slower: the ACK clock and ARQ feedback take 250 ms more (with
    // a window that cannot overflow the IP buffer, the link layer alone).
    let window = ["tcp.rcv_buffer=\"128 kB\"", "links.sat.queue=100"];
    let rct = run(E6, &[&window[..], &["run.duration=\"60 s\""]].concat(), 3);
    let rcs = run(
        E6,
        &[
            window[0],
            window[1],
            "run.duration=\"60 s\"",
            "links.sat.link_layer.return_path=rcs",
            "links.sat.link_layer.asto_time=\"0.54 s\"",
            "links.sat.link_layer.arto=\"0.8 s\"",
        ],
        3,
    );
    assert!(rcs.flows["ftp"].goodput_bps < rct.flows["ftp"].goodput_bps);
}

#[test]
fn impossible_values_name_the_key() {
    for (set, key) in [
        (
            "links.sat.link_layer.fer_bad=1.5",
            "links.sat.link_layer.fer_bad",
        ),
        (
            "links.sat.link_layer.fer_good=-0.1",
            "links.sat.link_layer.fer_good",
        ),
        ("links.sat.link_layer.alr=2", "links.sat.link_layer.alr"),
        ("links.sat.link_layer.nmax=-1", "links.sat.link_layer.nmax"),
        (
            "links.sat.link_layer.arto=\"-1 s\"",
            "links.sat.link_layer.arto",
        ),
        (
            "links.sat.link_layer.cqe=\"-5 ms\"",
            "links.sat.link_layer.cqe",
        ),
        (
            "links.sat.link_layer.acm=adaptive",
            "links.sat.link_layer.acm",
        ),
        (
            "links.sat.link_layer.return_path=leo",
            "links.sat.link_layer.return_path",
        ),
        (
            "links.sat.link_layer.t_bad=\"0 s\"",
            "links.sat.link_layer.t_bad",
        ),
    ] {
        let e = build_err(&[set]);
        assert!(e.contains("e6.toml") && e.contains(key), "{set}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn values_breaking_the_timer_and_buffer_rules_are_warned_about() {
    let ok = plan(E6, &[]);
    assert!(
        ok.warnings.iter().all(|w| !w.contains("link_layer")),
        "{:?}",
        ok.warnings
    );
    let w = |sets: &[&str]| plan(E6, sets).warnings.join("\n");
    let asto_low = w(&["links.sat.link_layer.asto_time=\"0.2 s\""]);
    assert!(
        asto_low.contains("ASTO") && asto_low.contains("RTO − RTT > ARTO > ASTO > RTT"),
        "{asto_low}"
    );
    let arto_low = w(&["links.sat.link_layer.arto=\"0.3 s\""]);
    assert!(
        arto_low.contains("ARTO 0.300 s is not above ASTO"),
        "{arto_low}"
    );
    let rto = w(&["tcp.rto_min=\"0.8 s\""]);
    assert!(rto.contains("minimum RTO"), "{rto}");
    let buf = w(&["links.sat.link_layer.buffer=\"20 kB\""]);
    assert!(buf.contains("sizing rule RLB = SLB ≥ ASTO"), "{buf}");
    // RCS with the RCT timers: ASTO 0.32 s is below the 0.5 s round trip.
    let rcs = w(&["links.sat.link_layer.return_path=rcs"]);
    assert!(
        rcs.contains("ASTO 0.320 s is not above the link round trip"),
        "{rcs}"
    );
}
