//! A run whose memory would exceed the limit is refused before it starts,
//! with the estimate, its largest part and what to change. Every part that
//! grows with a run's parameters is bounded: windows, queues, a probe's
//! datagrams in flight, a web session's objects and connections, streets,
//! traces, the packet log; channel chains are bounded in switches.

use skyhop::observe::PacketLogOptions;
use skyhop::scenario::{check_against, estimate, limit_from, load_str, Plan, Recording, Scenario};

const BASE: &str = r#"
[run]
duration = "10 s"
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = "100 Gbps"
delay = "125 ms"
[flows.f]
from = "A"
to = "B"
"#;

const MB: u64 = 1_000_000;

fn plan_of(text: &str, sets: &[&str]) -> Plan {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn: Scenario = load_str(text, "t.toml", &sets).unwrap();
    Plan::build(&scn, "t.toml").unwrap()
}

fn refused(plan: &Plan, rec: &Recording, limit: u64) -> skyhop::ScenarioError {
    check_against(plan, "t.toml", rec, 1, 1, limit).unwrap_err()
}

#[test]
fn a_run_needing_more_memory_than_the_limit_is_refused_with_the_estimate() {
    // The default 4 MB window: a few thousand packets.
    let p = plan_of(BASE, &[]);
    check_against(&p, "t.toml", &Recording::default(), 1, 1, 200 * MB).unwrap();
    // A 10 GB window on a 3 GB bandwidth-delay product: ~2·10^6 packets, ~550 MB.
    let p = plan_of(BASE, &["tcp.rcv_buffer=\"10 GB\""]);
    let e = refused(&p, &Recording::default(), 200 * MB);
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("t.toml", "flows.f"),
        "{e}"
    );
    assert!(e.message.contains("would need about"), "{e}");
    assert!(e.message.contains("limit of 200 MB (200000000 B)"), "{e}");
    assert!(e.message.contains("lower tcp.rcv_buffer"), "{e}");
    // Link queues count too.
    let p = plan_of(BASE, &["links.ab.queue=4000000"]);
    let e = refused(&p, &Recording::default(), 200 * MB);
    assert_eq!(e.key, "links.ab.queue", "{e}");
}

#[test]
fn the_limit_comes_from_the_environment_or_the_machine() {
    assert_eq!(limit_from(Some("16 GB"), None), Ok(16_000_000_000));
    assert!(limit_from(Some("lots"), None)
        .unwrap_err()
        .contains("SKYHOP_MEMORY_LIMIT"));
    assert_eq!(
        limit_from(None, Some("MemTotal:       16000000 kB\n")),
        Ok(4_096_000_000)
    );
    assert_eq!(limit_from(None, None), Ok(4_000_000_000));
}

/// Parts nothing counted before: each refused on its own key.
#[test]
fn probes_web_sessions_streets_traces_and_logs_are_counted() {
    let slow = "[run]\nduration = \"1000000 s\"\n[nodes.A]\n[nodes.B]\n[links.ab]\nbetween = [\"A\", \"B\"]\nrate = \"10000 Gbps\"\ndelay = \"1 s\"\n[flows.f]\nfrom = \"A\"\nto = \"B\"\n";
    let load_err = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        load_str(slow, "t.toml", &sets).unwrap_err()
    };
    // A probe in 1-byte datagrams at 10 Tb/s: 1.25·10^12 datagrams in flight.
    let e = load_err(&[
        "flows.f.app=\"cbr\"",
        "flows.f.cbr={rate=\"10000 Gbps\", packet=\"1 B\"}",
    ]);
    assert_eq!(e.key, "flows.f", "{e}");
    assert!(e.message.contains("probe's rate"), "{e}");
    // An HTTP/1.0 web session over 10^6 s of 2 s round trips: a connection
    // and records per object.
    let e = load_err(&[
        "flows.f.app=\"web\"",
        "flows.f.web={http=\"1.0\", parallel=64}",
    ]);
    assert_eq!(e.key, "flows.f.web", "{e}");
    assert!(e.message.contains("limit the pages"), "{e}");
    // ... unless its pages are few.
    let p = plan_of(
        slow,
        &[
            "flows.f.app=\"web\"",
            "flows.f.web={http=\"1.0\", parallel=64, pages=10, object_size=\"1 kB\"}",
        ],
    );
    check_against(&p, "t.toml", &Recording::default(), 1, 1, 4_000 * MB).unwrap();
    // Traces and the packet log of a fast run; a window bounds the log.
    let p = plan_of(
        BASE,
        &["links.ab.rate=\"1 Gbps\"", "run.duration=\"1000 s\""],
    );
    let quiet = Recording::default();
    check_against(&p, "t.toml", &quiet, 1, 1, 1_000 * MB).unwrap();
    let traced = Recording {
        trace: true,
        packet_log: None,
        ..Default::default()
    };
    assert_eq!(refused(&p, &traced, 1_000 * MB).key, "--trace");
    let logged = Recording {
        trace: false,
        packet_log: Some(PacketLogOptions::default()),
        ..Default::default()
    };
    let e = refused(&p, &logged, 1_000 * MB);
    assert_eq!(e.key, "--packet-log");
    assert!(e.message.contains("--packet-log-window"), "{e}");
    let window = Recording {
        trace: false,
        packet_log: Some(PacketLogOptions {
            from: skyhop::engine::Time::ZERO,
            to: skyhop::engine::Time::from_secs_f64(0.1),
            ..PacketLogOptions::default()
        }),
        ..Default::default()
    };
    check_against(&p, "t.toml", &window, 1, 1, 1_000 * MB).unwrap();
    // Recorded parts add up over runs: kept until the end.
    let small = estimate(&p, &window);
    assert!(small.recorded > 0 && small.running > 0);
    let e = check_against(&p, "t.toml", &window, 100_000, 2, small.total() * 10).unwrap_err();
    assert!(e.message.contains("100000 runs (2 at once)"), "{e}");
}

/// Nanosecond sojourns would keep a run drawing switches for hours: refused
/// against the event budget, with the key of the chain.
#[test]
fn chains_that_would_switch_beyond_the_event_budget_are_refused() {
    let ge = |t: &str| {
        format!("links.ab.channel={{model=\"gilbert-elliott\", t_good=\"{t}\", t_bad=\"{t}\"}}")
    };
    let sets: Vec<String> = vec![ge("1 ns")];
    let e = load_str(BASE, "t.toml", &sets).unwrap_err();
    assert_eq!(e.key, "links.ab.channel", "{e}");
    assert!(e.message.contains("run.event_budget"), "{e}");
    let sets: Vec<String> = vec![ge("1 ms")];
    load_str(BASE, "t.toml", &sets).unwrap();
    let sets: Vec<String> =
        vec!["links.ab.link_layer={model=\"dvbs\", t_good=\"1 ns\", t_bad=\"1 ns\"}".into()];
    let e = load_str(BASE, "t.toml", &sets).unwrap_err();
    assert_eq!(e.key, "links.ab.link_layer", "{e}");
}

/// A synthesised street is bounded in buildings and crossroads.
#[test]
fn streets_at_the_extremes_are_refused() {
    let lms = |rest: &str| {
        vec![format!(
            "links.ab.channel={{model=\"lms-urban\", elevation_deg=30, azimuth_deg=180, {rest}}}"
        )]
    };
    for (rest, key) in [
        (
            "building_width_min_m=1e-9, building_width_max_m=1",
            "links.ab.channel.building_width_min_m",
        ),
        ("section_length_m=1e12", "links.ab.channel.section_length_m"),
        (
            "block_length_m=1e-9, crossroad_width_m=1e-9",
            "links.ab.channel.block_length_m",
        ),
    ] {
        let e = load_str(BASE, "t.toml", &lms(rest)).unwrap_err();
        assert_eq!(e.key, key, "{rest}: {e}");
        assert!(e.message.contains("more than 1e6"), "{e}");
    }
    load_str(BASE, "t.toml", &lms("section_length_m=5000")).unwrap();
}

/// A template expands a bounded number of times.
#[test]
fn template_counts_are_bounded() {
    for count in ["100000000", "9000000000000000000"] {
        let text = format!("{BASE}\n[templates.t]\ncount = {count}\n[templates.t.nodes]\n");
        let e = load_str(&text, "t.toml", &[]).unwrap_err();
        assert_eq!(e.key, "templates.t.count", "{e}");
        assert!(e.message.contains("at most 100000"), "{e}");
    }
}

/// A constellation's positions and routing state count too.
#[test]
fn a_constellation_is_counted() {
    let leo = r#"
[run]
duration = "10 s"
[nodes.A]
lat = 41.9
lon = 12.5
[nodes.B]
lat = 50.1
lon = 8.7
[constellation]
preset = "starlink-550"
gsl = { rate = "1 Gbps" }
[flows.f]
from = "A"
to = "B"
"#;
    let p = plan_of(leo, &[]);
    check_against(&p, "leo.toml", &Recording::default(), 1, 1, 4_000 * MB).unwrap();
    let e = check_against(&p, "leo.toml", &Recording::default(), 1, 1, 200_000).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("leo.toml", "constellation"),
        "{e}"
    );
    assert!(e.message.contains("1584 satellites"), "{e}");
}

#[test]
fn thinned_traces_are_estimated_as_thinned() {
    use skyhop::engine::Dur;
    use skyhop::observe::TraceOptions;
    // A fast 1000 s run: every change of every series does not fit in
    // 1000 MB; a point per second, or the round-trip estimate alone, does.
    let p = plan_of(
        BASE,
        &["links.ab.rate=\"1 Gbps\"", "run.duration=\"1000 s\""],
    );
    let full = Recording {
        trace: true,
        ..Default::default()
    };
    assert_eq!(refused(&p, &full, 1_000 * MB).key, "--trace");
    assert!(refused(&p, &full, 1_000 * MB)
        .message
        .contains("--trace-every"));
    let sampled = Recording {
        trace: true,
        trace_options: TraceOptions {
            every: Some(Dur::from_millis(1000)),
            quantities: None,
        },
        ..Default::default()
    };
    let chosen = Recording {
        trace: true,
        trace_options: TraceOptions {
            every: Some(Dur::from_millis(100)),
            quantities: Some(vec!["srtt".into()]),
        },
        ..Default::default()
    };
    let e_full = estimate(&p, &full).recorded;
    let e_sampled = estimate(&p, &sampled).recorded;
    let e_chosen = estimate(&p, &chosen).recorded;
    assert!(e_sampled < e_full / 10, "{e_sampled} vs {e_full}");
    assert!(e_chosen < e_sampled, "{e_chosen} vs {e_sampled}");
    check_against(&p, "t.toml", &chosen, 1, 1, 1_000 * MB).unwrap();
    // the queue alone: no leg rows
    let queue = Recording {
        trace: true,
        trace_options: TraceOptions {
            every: None,
            quantities: Some(vec!["queue".into()]),
        },
        ..Default::default()
    };
    assert!(estimate(&p, &queue).recorded < e_full);
}

#[test]
fn a_traced_probe_is_charged_what_it_sends_not_what_its_path_could_carry() {
    // 100 B every 2 ms (400 kb/s) over a 10 Gb/s link for 120 s: 60 001
    // delay points, not the 1.5 G segments the link could carry.
    let text = BASE.replace(
        "[flows.f]\nfrom = \"A\"\nto = \"B\"\n",
        "[flows.f]\nfrom = \"A\"\nto = \"B\"\napp = \"cbr\"\n[flows.f.cbr]\nrate = \"400 kbps\"\npacket = \"100 B\"\n",
    );
    let p = plan_of(
        &text,
        &["links.ab.rate=\"10 Gbps\"", "run.duration=\"120 s\""],
    );
    // Every series (the link's queue too: it changes twice per datagram at
    // most), and the packet log of the link.
    let traced = Recording {
        trace: true,
        packet_log: Some(PacketLogOptions::default()),
        ..Default::default()
    };
    let extra = estimate(&p, &traced).recorded - estimate(&p, &Recording::default()).recorded;
    assert!((60_001..=60_001 * 4096).contains(&extra), "{extra} B");
    check_against(&p, "t.toml", &traced, 1, 1, 300 * MB).unwrap();
    // the probe's packets in flight: what 125 ms at 400 kb/s hold
    assert!(estimate(&p, &Recording::default()).total() < 10 * MB);
}

/// A QUIC flow's datagrams carry their bytes and a terminating proxy holds
/// real stream data (`scenario/memory_quic.rs`).
mod quic {
    use skyhop::scenario::{
        estimate, load_str_plan, Estimate, Plan, BYTES_PER_PACKET, BYTES_PER_QUIC_CONNECTION,
    };

    fn plan_str(text: &str) -> Plan {
        load_str_plan(text, "t.toml", &[], std::path::Path::new("."))
            .unwrap()
            .plan
    }

    const GEO: &str = r#"
[nodes.S]
[nodes.G]
[nodes.C]
[links.ground]
between = ["S", "G"]
rate = "100 Mbps"
delay = "5 ms"
queue = 100
[links.sat]
between = ["G", "C"]
rate = "10 Mbps"
delay = "270 ms"
queue = 100
[flows.f]
from = "S"
to = "C"
size = "1 MB"
transport = "quic"
[run]
duration = "10 s"
"#;

    fn part(e: &Estimate, key: &str) -> Option<u64> {
        e.parts.iter().find(|p| p.key == key).map(|p| p.bytes)
    }

    #[test]
    fn a_quic_flow_is_charged_its_datagrams_bytes_and_a_terminating_proxy_its_cache() {
        let plan = plan_str(GEO);
        let e = estimate(&plan, &Default::default());
        // One connection: 1.25 MB stream window, below what the path holds
        // (10 Mb/s x 0.55 s + 100 Mb/s x 0.01 s + 400 datagrams of 1480 B).
        let d = 1452 + 28;
        let w = 1_250_000u64;
        assert!(2 * 62_500 + 2 * 337_500 + 400 * d > w);
        let one = BYTES_PER_QUIC_CONNECTION + (w / d + 1) * (BYTES_PER_PACKET + d) + w;
        assert_eq!(part(&e, "flows.f"), Some(one));
        assert_eq!(part(&e, "nodes.G.proxy"), None);
        // Terminating at G with a half-free 600 kB cache: the first
        // connection's receiver offers 300 kB, the whole cache is charged.
        let text = GEO.replace(
            "[run]",
            "quic_proxies = [\"G\"]\n[nodes.G.proxy]\npolicy = \"half-free\"\ncache = \"600 kB\"\n[run]",
        );
        let plan = plan_str(&text);
        let e = estimate(&plan, &Default::default());
        let r = 300_000u64;
        // The first stretch holds 100 Mb/s x 5 ms each way and 200
        // datagrams, more than the proxy's 300 kB; the second 10 Mb/s x
        // 270 ms each way and 200 datagrams, less than 1.25 MB.
        let held =
            |path: u64| BYTES_PER_QUIC_CONNECTION + (path / d + 1) * (BYTES_PER_PACKET + d) + path;
        let (first, second) = (2 * 62_500 + 200 * d, 2 * 337_500 + 200 * d);
        assert!(first > r && second < w);
        assert_eq!(part(&e, "flows.f"), Some(held(r) + held(second)));
        assert_eq!(part(&e, "nodes.G.proxy"), Some(600_000));
    }
}
