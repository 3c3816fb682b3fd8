//! Nonsense values are refused with one error naming the file and the key;
//! nothing is clamped, rounded or run.

use skyhop::scenario::{load_json_str, load_str};
use skyhop::ScenarioError;

const BASE: &str = r#"
[run]
duration = "10 s"

[nodes.A]
[nodes.B]

[links.ab]
between = ["A", "B"]
rate = "1 Mbps"
delay = "125 ms"

[flows.f]
from = "A"
to = "B"
"#;

fn load_with(sets: &[&str]) -> Result<skyhop::scenario::Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(BASE, "t.toml", &sets)
}

#[track_caller]
fn refused(sets: &[&str], key: &str, needle: &str) {
    let e = load_with(sets).expect_err("must be refused");
    assert_eq!(e.file, "t.toml", "{e}");
    assert_eq!(e.key, key, "{e}");
    assert!(e.message.contains(needle), "{e}");
}

#[test]
fn the_base_scenario_loads() {
    load_with(&[]).unwrap();
}

#[test]
fn a_zero_initial_rto_is_refused() {
    refused(
        &["tcp.rto_initial=\"0 s\""],
        "tcp.rto_initial",
        "out of range",
    );
    refused(
        &["flows.f.options.rto_initial=\"0 s\""],
        "flows.f.options.rto_initial",
        "out of range",
    );
    refused(&["tcp.rto_max=\"0 s\""], "tcp.rto_max", "out of range");
}

#[test]
fn rto_bounds_are_checked_as_resolved() {
    // The defaults of the default profile (linux): 200 ms and 120 s.
    refused(
        &["tcp.rto_min=\"130 s\""],
        "tcp.rto_min",
        "default rto_max 120000 ms",
    );
    refused(
        &["tcp.rto_max=\"150 ms\""],
        "tcp.rto_max",
        "default rto_min 200 ms",
    );
    // Under the studies' profile, RFC 6298's 1 s and 60 s.
    refused(
        &["tcp.profile=studies", "tcp.rto_min=\"120 s\""],
        "tcp.rto_min",
        "default rto_max 60000 ms",
    );
    refused(
        &["tcp.profile=studies", "tcp.rto_max=\"500 ms\""],
        "tcp.rto_max",
        "default rto_min 1000 ms",
    );
    refused(
        &["tcp.rto_min=\"2 s\"", "flows.f.options.rto_max=\"1500 ms\""],
        "flows.f.options.rto_max",
        "larger than rto_max",
    );
    load_with(&["tcp.rto_min=\"200 ms\"", "tcp.rto_max=\"120 s\""]).unwrap();
}

#[test]
fn set_never_invents_a_flow_node_or_link() {
    refused(
        &["flows.nope.tcp=sack"],
        "flows.nope.tcp",
        "no existing flow \"nope\"",
    );
    refused(
        &["nodes.X.proxy.policy=third"],
        "nodes.X.proxy.policy",
        "no existing node \"X\"",
    );
    refused(
        &["links.zz.rate=\"2 Mbps\""],
        "links.zz.rate",
        "no existing link \"zz\"",
    );
    refused(&["flows.nope=1"], "flows.nope", "no existing flow");
    // An existing entry may gain keys, at any depth.
    load_with(&[
        "nodes.A.proxy.policy=third",
        "flows.f.options.mss=\"1000 B\"",
    ])
    .unwrap();
}

#[test]
fn out_of_range_quantities_are_refused_not_clamped() {
    refused(
        &["run.duration=\"1e300 s\""],
        "run.duration",
        "out of range",
    );
    refused(
        &["tcp.rcv_buffer=\"1e30 GB\""],
        "tcp.rcv_buffer",
        "out of range",
    );
    refused(
        &["links.ab.rate=\"1e30 Gbps\""],
        "links.ab.rate",
        "out of range",
    );
    refused(
        &["links.ab.delay=\"1e30 s\""],
        "links.ab.delay",
        "out of range",
    );
}

#[test]
fn fractions_of_the_base_unit_are_refused_not_rounded() {
    refused(
        &["tcp.mss=\"1460.5 B\""],
        "tcp.mss",
        "whole number of bytes",
    );
    refused(
        &["links.ab.delay=\"0.4 ns\""],
        "links.ab.delay",
        "below 1 ns, the engine's resolution",
    );
    refused(
        &["links.ab.delay=\"1.0000004 ns\""],
        "links.ab.delay",
        "whole number of ns (it is 1.0000004 ns",
    );
    refused(
        &["links.ab.rate=\"1.7 bps\""],
        "links.ab.rate",
        "whole number of bit/s",
    );
    load_with(&["links.ab.delay=\"0.5 us\"", "tcp.mss=\"1.46 kB\""]).unwrap();
}

#[test]
fn header_initial_window_and_budget_have_ranges() {
    refused(&["tcp.header=\"1 GB\""], "tcp.header", "out of range");
    refused(&["tcp.header=\"10 B\""], "tcp.header", "out of range");
    refused(
        &["tcp.initial_window=200000000"],
        "tcp.initial_window",
        "out of range",
    );
    refused(&["run.event_budget=0"], "run.event_budget", "at least 1");
    refused(&["tcp.dupthresh=100000"], "tcp.dupthresh", "out of range");
}

#[test]
fn a_flow_starting_after_the_run_is_an_error() {
    refused(
        &["flows.f.start=\"10 s\""],
        "flows.f.start",
        "not before the end of the run",
    );
    refused(
        &["flows.f.start=\"1 min\""],
        "flows.f.start",
        "not before the end of the run",
    );
    load_with(&["flows.f.start=\"9 s\""]).unwrap();
}

#[test]
fn positions_are_in_range_even_when_unused() {
    refused(
        &["nodes.A.lat=200.0", "nodes.A.lon=0.0"],
        "nodes.A.lat",
        "out of range",
    );
    refused(
        &["nodes.A.lat=0.0", "nodes.A.lon=-181.0"],
        "nodes.A.lon",
        "out of range",
    );
    refused(
        &["nodes.B.geo_longitude=360.0"],
        "nodes.B.geo_longitude",
        "out of range",
    );
}

#[test]
fn non_finite_numbers_are_refused_at_their_key() {
    refused(
        &["nodes.A.lat=inf", "nodes.A.lon=0.0"],
        "nodes.A.lat",
        "not a finite number",
    );
    refused(
        &["nodes.A.lat=nan", "nodes.A.lon=0.0"],
        "nodes.A.lat",
        "not a finite number",
    );
    refused(&["links.ab.per=nan"], "links.ab.per", "not a finite number");
    refused(
        &["links.ab.forward.ber=-inf"],
        "links.ab.forward.ber",
        "not a finite number",
    );
    let e = load_str(
        &format!("{BASE}\n[nodes.A.proxy]\n"),
        "t.toml",
        &["nodes.B.lat=inf".into(), "nodes.B.lon=1.0".into()],
    )
    .unwrap_err();
    assert_eq!((e.file.as_str(), e.key.as_str()), ("t.toml", "nodes.B.lat"));
    // JSON has no infinity: a huge exponent is malformed, reported against the file.
    let e = load_json_str(r#"{"nodes": {"A": {"lat": 1e999}}}"#, "s.json", &[]).unwrap_err();
    assert_eq!(e.file, "s.json");
}
