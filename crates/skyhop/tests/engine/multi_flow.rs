//! Several flows at once, on different paths and with different start times.

use skyhop::{run, scenario::load_str, RunOptions};

// A Y: two sources A1, A2 share the satellite hop R-SAT-B.
const Y: &str = r#"
[run]
duration = "300 s"
[nodes.A1]
[nodes.A2]
[nodes.R]
[nodes.SAT]
[nodes.B]
[nodes.C]
[links.a1r]
between = ["A1", "R"]
rate = "10 Mbps"
delay = "5 ms"
[links.a2r]
between = ["A2", "R"]
rate = "10 Mbps"
delay = "5 ms"
[links.rsat]
between = ["R", "SAT"]
rate = "1 Mbps"
delay = "125 ms"
queue = 100
[links.satb]
between = ["SAT", "B"]
rate = "1 Mbps"
delay = "125 ms"
[links.satc]
between = ["SAT", "C"]
rate = "1 Mbps"
delay = "125 ms"
[flows.early]
from = "A1"
to = "B"
size = "unlimited"
[flows.late]
from = "A2"
to = "C"
start = "100 s"
size = "unlimited"
"#;

#[test]
fn flows_on_different_paths_share_the_common_hop_and_start_on_time() {
    let scn = load_str(Y, "y.toml", &[]).unwrap();
    let r = run(&scn, 1, &RunOptions::default()).unwrap();
    let early = &r.flows["early"];
    let late = &r.flows["late"];
    // Different destinations: the paths diverge after SAT.
    assert_eq!(early.legs[0].to, "B");
    assert_eq!(late.legs[0].to, "C");
    // The late flow is active only from 100 s.
    assert!(
        (late.active_time_s - 200.0).abs() < 1e-9,
        "{}",
        late.active_time_s
    );
    assert!((early.active_time_s - 300.0).abs() < 1e-9);
    // Together they cannot exceed the shared 1 Mb/s hop (payload share).
    let carried = early.bytes_delivered as f64 * 8.0 + late.bytes_delivered as f64 * 8.0;
    assert!(
        carried / 300.0 <= 1e6 * 1460.0 / 1500.0 * 1.001,
        "{carried}"
    );
    // And both get a real share of it.
    assert!(late.goodput_bps > 100e3 && early.goodput_bps > 100e3);
    // Jain's index of the two goodputs, worked here from its definition
    // (Σx)² / (n·Σx²): the late flow's goodput is over its own 200 s, so
    // the index is of the rates, not of the bytes (which the head start
    // makes unequal).
    let (x1, x2) = (early.goodput_bps, late.goodput_bps);
    let want = (x1 + x2).powi(2) / (2.0 * (x1 * x1 + x2 * x2));
    let j = r.jain_fairness.expect("two flows");
    assert!((j - want).abs() < 1e-12, "{j} vs {want} from {x1}, {x2}");
    let (b1, b2) = (early.bytes_delivered as f64, late.bytes_delivered as f64);
    let of_bytes = (b1 + b2).powi(2) / (2.0 * (b1 * b1 + b2 * b2));
    assert!(
        (j - of_bytes).abs() > 1e-3,
        "{j}: the rates' index, not the bytes'"
    );
}

#[test]
fn two_identical_flows_started_together_share_fairly() {
    let text = Y.replace("start = \"100 s\"", "start = \"0 s\"");
    let scn = load_str(&text, "y.toml", &["run.duration=\"600 s\"".into()]).unwrap();
    let mut js = Vec::new();
    for seed in 1..=5 {
        let r = run(&scn, seed, &RunOptions::default()).unwrap();
        js.push(r.jain_fairness.unwrap());
    }
    let mean = js.iter().sum::<f64>() / js.len() as f64;
    assert!(mean > 0.9, "mean Jain index {mean} ({js:?})");
}
