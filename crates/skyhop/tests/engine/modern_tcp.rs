//! Scenario options of today's TCP: `tcp.profile` (and its default),
//! `tcp.recovery`, `tcp.limited_transmit`, `tcp.hybla_rtt0`, the Linux
//! mechanisms' switches, and the new variant names.

use skyhop::engine::time::Dur;
use skyhop::scenario::{load_str, Plan};
use skyhop::tcp::{CcKind, RecKind, TcpConfig};

const ONE_HOP: &str = r#"
[run]
duration = "10 s"
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = "10 Mbps"
delay = "250 ms"
queue = 417
[flows.f]
from = "A"
to = "B"
"#;

fn cfg(sets: &[&str]) -> TcpConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = load_str(ONE_HOP, "t.toml", &sets).expect("loads");
    let p = Plan::build(&scn, "t.toml").expect("builds");
    p.flows[0].legs[0].cfg.clone()
}

#[test]
fn the_default_is_a_linux_host() {
    let c = cfg(&[]);
    assert_eq!(
        (c.variant.cc, c.variant.recovery),
        (CcKind::Cubic, RecKind::Prr)
    );
    assert!(c.variant.sack && c.rack && c.limited_transmit && c.delayed_ack);
    assert!(c.rttvar_floor && c.idle_restart);
    assert!(c.timestamps && c.frto && c.hystart && c.byte_counting);
    assert!(c.cwnd_validation && c.rcv_autotune && !c.pacing);
    assert_eq!((c.initial_window, c.rto_min), (10, Dur::from_millis(200)));
    // Timestamps take 12 bytes of the 1460: 1448 of payload, 52 of headers.
    assert_eq!((c.mss, c.header_bytes), (1448, 52));
    assert_eq!(c.send_buffer, 4_194_304);
    // Each switch is an option.
    let c = cfg(&[
        "tcp.timestamps=false",
        "tcp.hystart=false",
        "tcp.pacing=true",
        "tcp.delayed_ack_segments=3",
        "flows.f.options.send_buffer=1 MB",
    ]);
    assert!(!c.timestamps && !c.hystart && c.pacing);
    assert_eq!((c.mss, c.header_bytes), (1460, 40));
    assert_eq!((c.delayed_ack_segments, c.send_buffer), (3, 1_000_000));
    // F-RTO undoes RACK's timeout recovery: without RACK it is off.
    assert!(!cfg(&["tcp.rack=false"]).frto);
}

#[test]
fn the_studies_profile_is_the_studies_era() {
    let c = cfg(&["tcp.profile=studies"]);
    assert_eq!(
        (c.variant.cc, c.variant.recovery),
        (CcKind::Reno, RecKind::NewReno)
    );
    assert!(!c.variant.sack && !c.limited_transmit && !c.delayed_ack);
    assert!(!c.rack && !c.timestamps && !c.frto && !c.hystart);
    assert!(!c.byte_counting && !c.cwnd_validation && !c.rcv_autotune);
    assert_eq!((c.initial_window, c.rto_min), (1, Dur::from_secs(1)));
    assert_eq!((c.mss, c.header_bytes), (1460, 40));
    assert_eq!(c.send_buffer, u64::MAX);
    // A flow may name its own profile.
    let c = cfg(&["flows.f.options.profile=studies"]);
    assert_eq!(c.variant.cc, CcKind::Reno);
}

#[test]
fn an_explicit_controller_wins_over_the_profile() {
    // The profile's default controller runs only when the flow names none:
    // `tcp = "newreno"` under the linux profile is Reno AIMD (Linux's
    // "reno", with SACK + PRR), not CUBIC.
    for sets in [
        &["flows.f.tcp=newreno"][..],
        &["tcp.profile=linux", "flows.f.tcp=newreno"],
        &["flows.f.legs=[\"newreno\"]"],
    ] {
        let c = cfg(sets);
        assert_eq!(
            (c.variant.cc, c.variant.recovery, c.variant.sack),
            (CcKind::Reno, RecKind::Prr, true),
            "{sets:?}"
        );
    }
    // And the runs differ: on the 10 Mb/s GEO path with 0.1 % loss, Reno's
    // halving per loss against CUBIC's 0.7 and its cubic regrowth.
    let newreno = geo10(&["flows.bulk.tcp=newreno", "links.up.per=0.001"], 1);
    let cubic = geo10(&["flows.bulk.tcp=cubic", "links.up.per=0.001"], 1);
    assert!(newreno.0 < 0.9 * cubic.0, "{newreno:?} vs {cubic:?}");
}

#[test]
fn the_linux_profile_is_cubic_with_sack_prr_iw10_limited_transmit_and_delayed_acks() {
    let c = cfg(&["tcp.profile=linux"]);
    assert_eq!(
        (c.variant.cc, c.variant.recovery),
        (CcKind::Cubic, RecKind::Prr)
    );
    assert!(c.variant.sack && c.limited_transmit && c.delayed_ack);
    assert_eq!(c.initial_window, 10);
    assert_eq!(c.rto_min, Dur::from_millis(200));
    assert_eq!(c.delayed_ack_timeout, Dur::from_millis(40));
    // A named controller keeps its name and gets Linux's recovery; BBR
    // keeps RFC 6675 (it sets cwnd itself); explicit options win.
    let c = cfg(&["tcp.profile=linux", "flows.f.tcp=westwood"]);
    assert_eq!(
        (c.variant.cc, c.variant.recovery),
        (CcKind::Westwood, RecKind::Prr)
    );
    let c = cfg(&["tcp.profile=linux", "flows.f.tcp=bbr"]);
    assert_eq!(
        (c.variant.cc, c.variant.recovery),
        (CcKind::Bbr, RecKind::Sack)
    );
    let c = cfg(&[
        "tcp.profile=linux",
        "tcp.initial_window=4",
        "tcp.recovery=newreno",
    ]);
    assert_eq!(c.initial_window, 4);
    assert_eq!(
        (c.variant.recovery, c.variant.sack),
        (RecKind::NewReno, false)
    );
}

#[test]
fn the_new_variants_and_the_recovery_option() {
    let c = cfg(&["flows.f.tcp=cubic"]);
    assert_eq!(
        (c.variant.cc, c.variant.recovery, c.variant.sack),
        (CcKind::Cubic, RecKind::Prr, true)
    );
    let c = cfg(&["flows.f.tcp=hybla", "tcp.hybla_rtt0=50 ms"]);
    assert_eq!(
        (c.variant.cc, c.hybla_rtt0),
        (CcKind::Hybla, Dur::from_millis(50))
    );
    let c = cfg(&["flows.f.tcp=bbr"]);
    assert_eq!(
        (c.variant.cc, c.variant.recovery),
        (CcKind::Bbr, RecKind::Sack)
    );
    let c = cfg(&["flows.f.tcp=newreno", "flows.f.options.recovery=prr"]);
    assert_eq!(
        (c.variant.cc, c.variant.recovery, c.variant.sack),
        (CcKind::Reno, RecKind::Prr, true)
    );
    let c = cfg(&["tcp.limited_transmit=true"]);
    assert!(c.limited_transmit);
}

#[test]
fn unknown_profile_and_recovery_names_are_refused_with_the_key() {
    // Loading checks the scenario (as the plan does).
    let refuse = |set: &str| match load_str(ONE_HOP, "t.toml", &[set.to_string()]) {
        Ok(_) => panic!("{set} was accepted"),
        Err(e) => e,
    };
    let e = refuse("tcp.recovery=rack");
    assert_eq!(e.key, "tcp.recovery");
    assert!(e.message.contains("prr"), "{}", e.message);
    assert_eq!(
        refuse("flows.f.options.profile=bsd").key,
        "flows.f.options.profile"
    );
}

#[test]
fn rack_is_on_under_the_linux_profile_and_only_for_rfc_6675_recoveries() {
    assert!(!cfg(&["tcp.profile=studies"]).rack);
    assert!(!cfg(&["tcp.profile=studies", "flows.f.tcp=bbr"]).rack);
    // The profile turns it on for its SACK + PRR (and BBR's SACK) legs.
    assert!(cfg(&["tcp.profile=linux"]).rack);
    assert!(cfg(&["tcp.profile=linux", "flows.f.tcp=bbr"]).rack);
    assert!(!cfg(&["tcp.profile=linux", "tcp.rack=false"]).rack);
    assert!(cfg(&["tcp.profile=studies", "tcp.rack=true", "flows.f.tcp=sack"]).rack);
    assert!(
        cfg(&[
            "tcp.profile=studies",
            "flows.f.options.rack=true",
            "flows.f.tcp=cubic"
        ])
        .rack
    );
    // RACK needs the RFC 6675 scoreboard: NewReno and AeroTCP ignore it.
    assert!(!cfg(&["tcp.profile=studies", "tcp.rack=true"]).rack);
    assert!(!cfg(&["tcp.profile=linux", "tcp.recovery=newreno"]).rack);
    let e = load_str(ONE_HOP, "t.toml", &["tcp.rack=3".to_string()]);
    assert!(e.is_err());
}

/// Goodput (Mb/s) of the 60 s bulk transfer on validation/ns3/geo10.toml
/// (10 Mb/s through one GEO, 500 ms RTT, 1-BDP queues, IW 10, min RTO
/// 200 ms) with `sets`, and the timeouts it took.
fn geo10(sets: &[&str], seed: u64) -> (f64, u64) {
    let path = format!(
        "{}/../../validation/ns3/geo10.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("geo10.toml");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = load_str(&text, "geo10.toml", &sets).expect("loads");
    let r = skyhop::run(&scn, seed, &skyhop::RunOptions::default()).expect("runs");
    let f = &r.flows["bulk"];
    (f.goodput_bps / 1e6, f.timeouts)
}

#[test]
fn bbr_under_the_linux_profile_keeps_more_than_half_of_a_lossy_geo_path() {
    // 1 % random loss on the up link: with RACK a lost fast retransmission
    // is resent about one RTT later instead of at the RTO, and a timeout
    // resends only the holes, so BBR's bandwidth filter never ages out.
    // Half the payload capacity is 10 × 1460 / 1500 / 2 = 4.87 Mb/s.
    for seed in 1..=3 {
        let (g, rtos) = geo10(
            &[
                "tcp.profile=linux",
                "flows.bulk.tcp=bbr",
                "links.up.per=0.01",
            ],
            seed,
        );
        assert!(g > 5.0, "seed {seed}: {g:.2} Mb/s, {rtos} timeouts");
    }
    // Under the studies' defaults (RFC 6675 alone, the scoreboard dropped at
    // a timeout, no timestamps) seed 1 falls below half (2.8 Mb/s, 5
    // timeouts); RACK alone lifts it to 8.0.
    let (g, _) = geo10(
        &[
            "tcp.profile=studies",
            "flows.bulk.tcp=bbr",
            "links.up.per=0.01",
        ],
        1,
    );
    assert!(g < 4.0, "{g:.2} Mb/s");
    let (g, _) = geo10(
        &[
            "tcp.profile=studies",
            "flows.bulk.tcp=bbr",
            "links.up.per=0.01",
            "tcp.rack=true",
        ],
        1,
    );
    assert!(g > 5.0, "{g:.2} Mb/s");
}

#[test]
fn hybla_fills_an_error_free_geo_path_under_the_default_profile() {
    // validation/linux/geo10.toml: 10 Mb/s through one GEO, 125 ms per hop,
    // 250-packet queues (0.6 BDP), 60 s bulk; the default profile gives
    // SACK, RACK-TLP, IW 10. Hybla as Linux runs it (ρ from the minimum
    // RTT, Reno growth outside the Open state, the clamps) reaches more
    // than 80 % of the 10 Mb/s in 60 s: measured 9.11 Mb/s, no timeout.
    let path = format!(
        "{}/../../validation/linux/geo10.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("geo10.toml");
    let scn = load_str(&text, "geo10.toml", &["flows.bulk.tcp=hybla".to_string()]).expect("loads");
    let r = skyhop::run(&scn, 1, &skyhop::RunOptions::default()).expect("runs");
    let f = &r.flows["bulk"];
    assert!(
        f.goodput_bps > 0.8 * 10e6,
        "{:.2} Mb/s, {} timeouts",
        f.goodput_bps / 1e6,
        f.timeouts
    );
    assert_eq!(f.timeouts, 0);
}
