//! Channel models and the datagram probe, end to end through scenarios:
//! Gilbert–Elliott, urban LMS shadowing, fade traces and the cbr probe.

use skyhop::channel::{Channel, ChannelCtx, GilbertElliott};
use skyhop::engine::Time;
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};

/// A probe at 1 Mb/s over a 2 Mb/s link (no queueing: a datagram's
/// transmission starts when it is sent).
fn probe(channel: &str, extra: &str, duration: &str) -> String {
    format!(
        r#"
[run]
duration = "{duration}"
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = "2 Mbps"
delay = "10 ms"
channel = {channel}
[flows.p]
from = "A"
to = "B"
app = "cbr"
cbr = {{ rate = "1 Mbps", packet = "1500 B" }}
{extra}
"#
    )
}

fn plan_of(text: &str) -> Plan {
    let scn = load_str(text, "t.toml", &[]).expect("scenario loads");
    Plan::build(&scn, "t.toml").expect("plan builds")
}

fn run(text: &str, seed: u64) -> RunResult {
    run_plan(&plan_of(text), seed, &RunOptions::default()).expect("run")
}

const GE: &str =
    r#"{ model = "gilbert-elliott", t_good = "6 s", t_bad = "2 s", per_good = 0, per_bad = 1 }"#;

#[test]
fn probe_loss_rate_over_a_gilbert_elliott_link_is_the_bad_fraction() {
    let text = probe(GE, "", "2000 s");
    let (mut lost, mut judged) = (0u64, 0u64);
    for seed in 1..=8 {
        let r = run(&text, seed);
        let f = &r.flows["p"];
        let (sent, recv, l) = (
            f.packets_sent.unwrap(),
            f.packets_received.unwrap(),
            f.packets_lost.unwrap(),
        );
        assert!(
            sent >= 166_000 && recv + l <= sent && sent - recv - l <= 2,
            "{f:?}"
        );
        // Exactly the datagrams whose transmission meets a BAD period of the
        // chain the link drew (same stream, rebuilt outside the run).
        let ctx = ChannelCtx {
            seed,
            link: "ab:forward",
            index: 0,
            geometry: None,
        };
        let mut ge = GilbertElliott::new(6.0, 2.0, None, ctx.own_rng("gilbert-elliott"));
        let expect = (0..recv + l)
            .filter(|&k| ge.bad_during(Time(k * 12_000_000), Time(k * 12_000_000 + 6_000_000)))
            .count() as u64;
        assert_eq!(l, expect, "seed {seed}");
        assert_eq!(r.engine.channel_drops, l);
        lost += l;
        judged += recv + l;
        // One-way delay: 10 ms propagation + 6 ms transmission.
        assert!((f.delay_mean_s.unwrap() - 0.016).abs() < 1e-9, "{f:?}");
    }
    let rate = lost as f64 / judged as f64;
    assert!((rate - 0.25).abs() < 0.25 * 0.05, "loss rate {rate}");
}

#[test]
fn every_channel_is_deterministic_and_independent_of_other_links() {
    let dir = std::env::temp_dir().join(format!("skyhop-det-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fade = dir.join("fade.csv");
    std::fs::write(&fade, "t_s,per\n0,0.01\n30,0.2\n60,0.05\n").unwrap();
    let models = [
        GE.to_string(),
        format!(
            r#"{{ model = "trace", file = "{}", after_end = "loop" }}"#,
            fade.display()
        ),
        r#"{ model = "lms-urban", elevation_deg = 35.0, azimuth_deg = 200.0, speed_mps = 2.0 }"#
            .to_string(),
    ];
    for m in &models {
        let one = probe(m, "", "120 s");
        let a = run(&one, 3);
        assert_eq!(a, run(&one, 3), "{m}");
        assert_ne!(
            a.flows["p"].packets_lost,
            run(&one, 4).flows["p"].packets_lost,
            "{m}: another seed, another channel"
        );
        assert!(a.flows["p"].packets_lost.unwrap() > 0, "{m}");
        // Add another link with its own channel and probe: p's losses do not move.
        let two = one
            + &format!(
                r#"
[nodes.C]
[nodes.D]
[links.cd]
between = ["C", "D"]
rate = "2 Mbps"
delay = "10 ms"
channel = {m}
[flows.q]
from = "C"
to = "D"
app = "cbr"
cbr = {{ rate = "1 Mbps" }}
"#
            );
        let b = run(&two, 3);
        assert_eq!(a.flows["p"], b.flows["p"], "{m}");
        assert!(b.flows["q"].packets_lost.unwrap() > 0);
    }
}

#[test]
fn a_recorded_masking_file_replays_the_line_of_sight_sequence_exactly() {
    let text = probe(
        r#"{ model = "lms-urban", elevation_deg = 30.0, azimuth_deg = 200.0 }"#,
        "",
        "10 s",
    );
    let plan = plan_of(&text);
    let ctx = ChannelCtx {
        seed: 9,
        link: "ab:forward",
        index: 0,
        geometry: None,
    };
    let Channel::LmsUrban(street) = Channel::build(&plan.links[0].channels[0], &ctx) else {
        panic!("an lms-urban channel")
    };
    // Record 2 km at 1 m steps, three azimuths, the satellite's among them.
    let s0 = street.distance_at(Time::ZERO);
    let mut csv = String::from("distance_m,azimuth_deg,masking_deg\n");
    let mut los = Vec::new();
    for k in 0..2000 {
        let r = s0 + k as f64;
        for az in [100.0, 200.0, 300.0] {
            let m = street.masking_at_distance(r, az);
            csv += &format!("{k},{az},{m:?}\n");
        }
        los.push(30.0 > street.masking_at_distance(r, 200.0));
    }
    assert!(los.iter().any(|&x| x) && los.iter().any(|&x| !x));
    let dir = std::env::temp_dir().join(format!("skyhop-mask-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mask.csv"), csv).unwrap();
    let replay = probe(
        r#"{ model = "lms-urban", elevation_deg = 30.0, azimuth_deg = 200.0, masking_file = "mask.csv" }"#,
        "",
        "10 s",
    );
    let scn = skyhop::scenario::load_str_in(&replay, "r.toml", &[], &dir).expect("loads");
    let plan = Plan::build(&scn, "r.toml").unwrap();
    let Channel::LmsUrban(rec) = Channel::build(&plan.links[0].channels[0], &ctx) else {
        panic!()
    };
    // At 2 m/s the terminal is at distance k after k/2 s.
    let replayed: Vec<bool> = (0..2000u64)
        .map(|k| rec.los_at(Time(k * 500_000_000)))
        .collect();
    assert_eq!(replayed, los);
}

#[test]
fn shadowing_on_the_link_of_a_positioned_terminal_uses_its_view_of_the_satellite() {
    // New York towards a GEO at 96° W: elevation about 38°.
    let text = r#"
[run]
duration = "60 s"
[nodes.NY]
lat = 40.71
lon = -74.01
[nodes.SAT]
geo_longitude = -96.0
[links.up]
between = ["NY", "SAT"]
rate = "2 Mbps"
channel = { model = "lms-urban" }
[flows.p]
from = "NY"
to = "SAT"
app = "cbr"
cbr = { rate = "1 Mbps" }
"#;
    let plan = plan_of(text);
    let g = plan.links[0].geometry.unwrap();
    assert!((g.elevation_deg - 38.0).abs() < 1.5, "{g:?}");
    let ctx = ChannelCtx {
        seed: 1,
        link: "up:forward",
        index: 0,
        geometry: Some(g),
    };
    let Channel::LmsUrban(m) = Channel::build(&plan.links[0].channels[0], &ctx) else {
        panic!()
    };
    assert_eq!(m.elevation_deg, g.elevation_deg);
    assert_eq!(m.azimuth_deg, g.azimuth_deg);
    // Both directions of the link see the same street.
    let ctx_r = ChannelCtx {
        link: "up:reverse",
        ..ctx
    };
    let Channel::LmsUrban(mr) = Channel::build(&plan.links[1].channels[0], &ctx_r) else {
        panic!()
    };
    for k in 0..600 {
        let t = Time(k * 100_000_000);
        assert_eq!(m.los_at(t), mr.los_at(t));
    }
    let r = run_plan(&plan, 1, &RunOptions::default()).unwrap();
    let f = &r.flows["p"];
    assert!(
        f.packets_lost.unwrap() > 0 && f.packets_received.unwrap() > 0,
        "{f:?}"
    );
}

fn error_of(text: &str) -> String {
    match load_str(text, "t.toml", &[]) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_channel_input_is_named_by_key() {
    let cases = [
        (
            r#"{ model = "gilbert-elliott", t_good = "0 s", t_bad = "2 s" }"#,
            "links.ab.channel.t_good",
        ),
        (
            r#"{ model = "gilbert-elliott", t_good = "1 s", t_bad = "-2 s" }"#,
            "links.ab.channel",
        ),
        (
            r#"{ model = "gilbert-elliott", t_good = "1 s", t_bad = "2 s", per_bad = 2 }"#,
            "links.ab.channel.per_bad",
        ),
        (
            r#"{ model = "trace", file = "/nonexistent/fade.csv" }"#,
            "links.ab.channel.file",
        ),
        (
            r#"{ model = "lms-urban" }"#,
            "links.ab.channel.elevation_deg",
        ),
    ];
    for (ch, key) in cases {
        let e = error_of(&probe(ch, "", "10 s"));
        assert!(e.contains(key), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let e = error_of(&probe(
        r#"{ model = "trace", file = "/nonexistent/fade.csv" }"#,
        "",
        "1 s",
    ));
    assert!(e.contains("/nonexistent/fade.csv"), "{e}");
}

#[test]
fn a_fade_trace_replays_its_losses() {
    let dir = std::env::temp_dir().join(format!("skyhop-fade-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Lossless for 1 s, all lost for 1 s, looping: half the datagrams.
    std::fs::write(dir.join("fade.csv"), "t_s,per\n0,0\n1,1\n2,0\n").unwrap();
    let text = probe(
        r#"{ model = "trace", file = "fade.csv", after_end = "loop" }"#,
        "",
        "100 s",
    );
    let scn = skyhop::scenario::load_str_in(&text, "f.toml", &[], &dir).unwrap();
    let plan = Plan::build(&scn, "f.toml").unwrap();
    let r = run_plan(&plan, 1, &RunOptions::default()).unwrap();
    let f = &r.flows["p"];
    // Datagrams sent in [1, 2) mod 2 s: 83 or 84 of every 167.
    let expect = (0..f.packets_sent.unwrap())
        .filter(|k| (k * 12 / 1000) % 2 == 1)
        .count() as u64;
    assert_eq!(f.packets_lost.unwrap(), expect);
}

#[test]
fn a_channel_given_for_one_direction_leaves_the_other_clean() {
    // The probe runs B -> A, over the reverse direction of ab.
    let text = format!(
        r#"
[run]
duration = "200 s"
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = "2 Mbps"
delay = "10 ms"
forward = {{ channel = {GE} }}
[flows.back]
from = "B"
to = "A"
app = "cbr"
cbr = {{ rate = "1 Mbps" }}
[flows.fwd]
from = "A"
to = "B"
app = "cbr"
cbr = {{ rate = "1 Mbps" }}
"#
    );
    let r = run(&text, 5);
    assert_eq!(r.flows["back"].packets_lost, Some(0));
    assert!(r.flows["fwd"].packets_lost.unwrap() > 1000);
}
