//! AeroTCP's adaptive and table allocations: the window follows the number
//! of connections open on the satellite leg as they start and finish.

use skyhop::app::Cell;
use skyhop::scenario::{load_path, Plan};
use skyhop::sim::run_plan;
use skyhop::tcp::config::{aero_segments, AeroAdaptive};
use skyhop::{RunOptions, RunResult};

const E5: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/e5_aero.toml");
const PACKET: u64 = 1500;
const MSS: f64 = 1460.0;

#[test]
fn adaptive_and_table_windows_by_hand() {
    let sat_rtt = skyhop::engine::time::Dur::from_millis(480);
    let a = AeroAdaptive {
        sat_rtt,
        sat_bw_bps: 5_000_000,
        table: Vec::new(),
    };
    // 5 Mb/s × 480 ms / 8 = 300 000 B = 200 packets of 1500 B; SatBW/n.
    assert_eq!(a.segments(1, PACKET), 200);
    assert_eq!(a.segments(2, PACKET), 100);
    assert_eq!(a.segments(10, PACKET), 20);
    assert_eq!(
        a.segments(0, PACKET),
        200,
        "no connection open counts as one"
    );
    let t = AeroAdaptive {
        table: vec![2_000_000, 1_000_000, 500_000],
        ..a
    };
    // 2 Mb/s × 480 ms = 120 000 B = 80 packets; 1 Mb/s: 40; 0.5 Mb/s: 20.
    assert_eq!(t.segments(1, PACKET), 80);
    assert_eq!(t.segments(2, PACKET), 40);
    assert_eq!(t.segments(3, PACKET), 20);
    assert_eq!(t.segments(7, PACKET), 20, "the last entry beyond the end");
    assert_eq!(aero_segments(1_000_000, sat_rtt, PACKET), 40);
}

/// Two connections of the E5 network sharing the satellite leg: f0 starts
/// at 0 s and moves 30 MB, f1 starts at 20 s and moves 8 MB. Returns the
/// run (traced).
fn two(alloc: &str) -> RunResult {
    two_with(alloc, &[])
}

/// [`two`] with more settings.
fn two_with(alloc: &str, more: &[&str]) -> RunResult {
    let sets: Vec<String> = [
        "templates.conn.count=2",
        "templates.conn.flows.f{i}.size=8 MB",
        "flows.f0.size=30 MB",
        "flows.f1.start=20 s",
        "links.sat.ber=0",
        // Gateway buffers large enough not to limit a 5 Mb/s window.
        "nodes.GGW.proxy.send_buffer=600000 B",
        "nodes.AGW.proxy.recv_buffer=600000 B",
        "tcp.rcv_buffer=600000 B",
        alloc,
    ]
    .iter()
    .chain(more)
    .map(|s| s.to_string())
    .collect();
    let scn = load_path(E5, &sets).expect("E5 loads");
    let plan = Plan::build(&scn, E5).expect("plan builds");
    let opts = RunOptions {
        trace: true,
        ..Default::default()
    };
    run_plan(&plan, 1, &opts).expect("run succeeds")
}

/// f0's satellite-leg cwnd (packets) at the last trace point at or before `t`.
fn cwnd_at(r: &RunResult, t: f64) -> f64 {
    let s = &r.traces["f0.1.cwnd"];
    let i = s.t_s.iter().rposition(|&x| x <= t).expect("traced");
    s.value[i] / MSS
}

#[test]
fn an_adaptive_window_halves_while_a_second_connection_is_open() {
    let r = two(r#"tcp.aero_allocation={ mode = "adaptive", sat_bw = "5 Mbps", n = 2 }"#);
    let f1_end = 20.0 + r.flows["f1"].completion_time_s.expect("f1 finishes");
    // First window: n = 2 (the maximum), 100 packets; once ACKs arrive with
    // f0 alone, 200; with both open, 100; after f1 is done, 200 again.
    assert_eq!(r.traces["f0.1.cwnd"].value[0] / MSS, 100.0);
    assert_eq!(cwnd_at(&r, 10.0), 200.0);
    assert_eq!(cwnd_at(&r, 25.0), 100.0);
    let f0_end = r.flows["f0"].completion_time_s.unwrap();
    assert!(f0_end > f1_end + 2.0, "f0 outlives f1");
    assert_eq!(cwnd_at(&r, f1_end + 1.5), 200.0);
    // Shares: while both are open each gets about half of the 5 Mb/s.
    let f1_rate = 8e6 * 8.0 / r.flows["f1"].completion_time_s.unwrap();
    assert!(f1_rate < 3.0e6, "f1 at {f1_rate} b/s");
}

#[test]
fn a_table_window_follows_the_rate_for_the_connections_open() {
    let r = two(r#"tcp.aero_allocation={ mode = "table", rates = ["4 Mbps", "1 Mbps"], n = 1 }"#);
    // One open: 4 Mb/s × 480 ms = 160 packets; two open: 1 Mb/s, 40 packets.
    assert_eq!(cwnd_at(&r, 10.0), 160.0);
    assert_eq!(cwnd_at(&r, 25.0), 40.0);
    let f1_end = 20.0 + r.flows["f1"].completion_time_s.expect("f1 finishes");
    assert_eq!(cwnd_at(&r, f1_end + 1.5), 160.0);
}

#[test]
fn web_connections_count_while_open_not_for_the_whole_session() {
    // f0 downloads 30 MB from 0 s; f1 is a web session from 5 s, HTTP/1.0,
    // pages of one 1 MB object, think times of 4 s or more. An HTTP/1.0 connection counts from its
    // opening to its reply's end: f0's window is 100 packets while one of
    // f1's objects is on its way and 200 in f1's think times.
    let r = two_with(
        r#"tcp.aero_allocation={ mode = "adaptive", sat_bw = "5 Mbps", n = 2 }"#,
        &[
            "flows.f1.size=unlimited",
            "flows.f1.app=web",
            "flows.f1.start=5 s",
            "flows.f1.web.http=1.0",
            "flows.f1.web.object_size=1000000 B",
            "flows.f1.web.pages=3",
            "flows.f1.web.think_k=4 s",
        ],
    );
    let f1 = &r.flows["f1"];
    let objs = f1.app.table("objects").expect("a web session's objects");
    assert_eq!(objs.len(), 3);
    let at = |i: usize, column: &str| objs.get(i, column).and_then(Cell::as_f64).unwrap();
    let mut busy = 0;
    let mut idle = 0;
    for i in 0..objs.len() - 1 {
        let end = at(i, "requested_at_s") + at(i, "response_time_s");
        // One second into an object's transfer, and half-way through the
        // think time that follows it (when it is longer than 2 s).
        let during = at(i, "requested_at_s") + 1.5;
        if during < end {
            assert_eq!(cwnd_at(&r, during), 100.0, "object at {during}");
            busy += 1;
        }
        let next = at(i + 1, "requested_at_s");
        if next - end > 2.0 {
            assert_eq!(cwnd_at(&r, (end + next) / 2.0), 200.0);
            idle += 1;
        }
    }
    assert!(busy > 0 && idle > 0, "busy {busy}, idle {idle}");
}
