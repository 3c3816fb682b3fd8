//! The web browsing application (`app = "web"`): exact response times of a
//! single object with and without a connection opening, HTTP/1.0's
//! parallel non-persistent connections and HTTP/1.1's one persistent
//! connection, conservation through both AeroTCP gateways at a high BER,
//! determinism, and one-line errors for impossible page models.

use crate::common;
use serde::Deserialize;
use skyhop::app::Cell;
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{FlowResult, RunOptions, RunResult};

/// Server S and client C over one 10 Mb/s link, 50 ms each way.
const ONE_LINK: &str = r#"
name = "web"
[run]
duration = "600 s"
[nodes.S]
[nodes.C]
[links.l]
between = ["S", "C"]
rate = "10 Mbps"
delay = "50 ms"
queue = 1000
[flows.w]
from = "S"
to = "C"
app = "web"
"#;

fn run(text: &str, sets: &[&str], seed: u64) -> RunResult {
    let sets = common::studies(sets);
    let scn = load_str(text, "web.toml", &sets).expect("scenario loads");
    let plan = Plan::build(&scn, "web.toml").expect("plan builds");
    run_plan(&plan, seed, &RunOptions::default()).expect("run succeeds")
}

fn plan_error(text: &str, sets: &[&str]) -> String {
    let sets = common::studies(sets);
    match load_str(text, "web.toml", &sets) {
        Err(e) => e.to_string(),
        Ok(scn) => match Plan::build(&scn, "web.toml") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{sets:?} was accepted"),
        },
    }
}

/// One record of a web session's `objects` table, as the run's JSON has it.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct WebObject {
    page: u64,
    request_bytes: u64,
    reply_bytes: u64,
    requested_at_s: f64,
    response_time_s: Option<f64>,
    connection: u64,
}

/// One record of its `pages` table.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct WebPage {
    objects: u64,
    bytes: u64,
    started_at_s: f64,
    response_time_s: Option<f64>,
}

/// A table of the flow's JSON, as records.
fn records<T: serde::de::DeserializeOwned>(f: &FlowResult, table: &str) -> Vec<T> {
    let v = serde_json::to_value(f).unwrap();
    serde_json::from_value(v[table].clone()).unwrap_or_else(|e| panic!("{table}: {e}"))
}

fn objects(f: &FlowResult) -> Vec<WebObject> {
    records(f, "objects")
}

fn pages(f: &FlowResult) -> Vec<WebPage> {
    records(f, "pages")
}

/// A count the session reports.
fn count(f: &FlowResult, name: &str) -> Option<u64> {
    f.app.scalar(name).and_then(Cell::as_u64)
}

/// Serialisation time of `bytes` at 10 Mb/s, in seconds.
fn tx(bytes: f64) -> f64 {
    bytes * 8.0 / 10e6
}

#[test]
fn a_single_object_takes_the_handshake_then_one_round_trip_and_reuse_saves_the_handshake() {
    // Two pages of one 1000-byte object, 250-byte requests, HTTP/1.1.
    // Page 1 opens the connection: SYN (40 B) out, SYN-ACK (40 B) back,
    // the request (250 + 40 B, carrying the handshake's ACK) out, the reply
    // (1000 + 40 B) back: four one-way delays. Requests and replies are
    // separate streams, so the server's ACK of the request (40 B) is not
    // piggybacked on the reply: it leaves first and the reply waits for its
    // serialisation. Page 2 reuses the connection: request, ACK, reply.
    let r = run(
        ONE_LINK,
        &[
            "flows.w.web.object_size=1000 B",
            "flows.w.web.request_size=250 B",
            "flows.w.web.pages=2",
        ],
        1,
    );
    let f = &r.flows["w"];
    let objs = objects(f);
    assert_eq!(objs.len(), 2);
    assert_eq!(count(f, "connections_opened"), Some(1));
    let first = 4.0 * 0.050 + 3.0 * tx(40.0) + tx(290.0) + tx(1040.0);
    let second = 2.0 * 0.050 + tx(290.0) + tx(40.0) + tx(1040.0);
    let t0 = objs[0].response_time_s.unwrap();
    let t1 = objs[1].response_time_s.unwrap();
    assert!((t0 - first).abs() < 1e-9, "{t0} vs {first}");
    assert!((t1 - second).abs() < 1e-9, "{t1} vs {second}");
    assert_eq!(count(f, "pages_completed"), Some(2));
    assert_eq!(f.bytes_delivered, 2000);
    // The second page starts one think time (≥ k = 1 s) after the first ends.
    let pages = pages(f);
    assert!(pages[1].started_at_s >= pages[0].started_at_s + first + 1.0);
    // The run ends when the last page is complete.
    assert!(f.completion_time_s.is_some());
    // Legs: the reply direction, then the request direction.
    assert_eq!(f.legs.len(), 2);
    assert_eq!((f.legs[0].from.as_str(), f.legs[0].to.as_str()), ("S", "C"));
    assert_eq!((f.legs[1].from.as_str(), f.legs[1].to.as_str()), ("C", "S"));
    assert_eq!(f.legs[1].bytes_acked, 500, "two requests");
}

#[test]
fn http_1_0_opens_one_connection_per_object_and_at_most_parallel_at_once() {
    let r = run(
        ONE_LINK,
        &[
            "flows.w.web.http=1.0",
            "flows.w.web.parallel=2",
            "flows.w.web.pages=20",
        ],
        7,
    );
    let f = &r.flows["w"];
    let objs = objects(f);
    assert_eq!(count(f, "pages_completed"), Some(20));
    assert_eq!(count(f, "connections_opened"), Some(objs.len() as u64));
    let pages = pages(f);
    assert_eq!(
        pages.iter().map(|p| p.objects).sum::<u64>(),
        objs.len() as u64
    );
    assert!(
        objs.len() > 40,
        "20 pages with a mean of 5.55 inline objects"
    );
    let mut max_parallel = 0;
    for o in &objs {
        let end = o.requested_at_s + o.response_time_s.unwrap();
        // Objects of the same page in flight at this one's request.
        let at = objs
            .iter()
            .filter(|p| p.page == o.page)
            .filter(|p| {
                p.requested_at_s <= o.requested_at_s
                    // (seconds as floats: an object ending the instant the
                    // next is requested is not in flight)
                    && p.requested_at_s + p.response_time_s.unwrap() > o.requested_at_s + 1e-9
            })
            .count();
        max_parallel = max_parallel.max(at);
        assert!(end > o.requested_at_s);
    }
    assert_eq!(max_parallel, 2, "inline objects two at a time");
    // Every page: the main object first, then the inline objects once it arrived.
    for (pi, p) in pages.iter().enumerate() {
        let mine: Vec<_> = objs.iter().filter(|o| o.page == pi as u64).collect();
        let main_end = mine[0].requested_at_s + mine[0].response_time_s.unwrap();
        assert!(mine[1..].iter().all(|o| o.requested_at_s >= main_end));
        let last = mine
            .iter()
            .map(|o| o.requested_at_s + o.response_time_s.unwrap())
            .fold(0.0, f64::max);
        assert!((p.started_at_s + p.response_time_s.unwrap() - last).abs() < 1e-9);
    }
    let replies: u64 = objs.iter().map(|o| o.reply_bytes).sum();
    assert_eq!(f.bytes_delivered, replies);
}

#[test]
fn http_1_1_uses_one_connection_one_request_at_a_time() {
    let r = run(ONE_LINK, &["flows.w.web.pages=20"], 7);
    let f = &r.flows["w"];
    let objs = objects(f);
    assert_eq!(count(f, "connections_opened"), Some(1));
    for w in objs.windows(2) {
        let end = w[0].requested_at_s + w[0].response_time_s.unwrap();
        assert!(w[1].requested_at_s >= end - 1e-12);
    }
    // Same seed, same page model: HTTP/1.0 draws the same objects.
    let r10 = run(
        ONE_LINK,
        &["flows.w.web.pages=20", "flows.w.web.http=1.0"],
        7,
    );
    let o10 = objects(&r10.flows["w"]);
    let sizes = |v: &[WebObject]| {
        let mut s: Vec<_> = v.iter().map(|o| (o.page, o.reply_bytes)).collect();
        s.sort();
        s
    };
    assert_eq!(sizes(&objs), sizes(&o10));
}

#[test]
fn a_session_without_a_page_count_runs_until_the_stop_time() {
    let r = run(ONE_LINK, &["run.duration=120 s"], 3);
    let f = &r.flows["w"];
    assert_eq!(f.completion_time_s, None);
    assert!(count(f, "pages_completed").unwrap() > 5);
    assert!((f.active_time_s - 120.0).abs() < 1e-9);
}

#[test]
fn web_sessions_through_both_aerotcp_gateways_at_ber_1e_5_conserve_every_object() {
    // The E5 network with web sessions instead of file downloads; every
    // leg's byte ledger checks in-order delivery, and every object of every
    // page must arrive whole.
    let e5 = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/e5_aero.toml"
    ))
    .unwrap();
    let text = e5.replace(
        "size = \"1.6 MB\"",
        "app = \"web\"\nweb = { pages = 3, http = \"1.0\", reply_max = \"200 KB\" }",
    );
    let r = run(&text, &["links.sat.ber=1e-5"], 5);
    let mut total = 0;
    for (name, f) in &r.flows {
        assert_eq!(count(f, "pages_completed"), Some(3), "{name}");
        let objs = objects(f);
        total += objs.len();
        assert!(objs.iter().all(|o| o.response_time_s.is_some()));
        let replies: u64 = objs.iter().map(|o| o.reply_bytes).sum();
        assert_eq!(f.bytes_delivered, replies, "{name}");
        // Reply and request directions through both gateways.
        assert_eq!(f.legs.len(), 6);
        assert_eq!(f.legs[1].tcp, "aerotcp");
        assert_eq!(f.legs[4].tcp, "aerotcp");
        assert_eq!(f.legs[4].from, "AGW");
    }
    assert!(total > 100);
    let retx: u64 = r.flows.values().map(|f| f.legs[1].retransmissions).sum();
    assert!(retx > 0, "no loss at BER 1e-5?");
    // Proxies: one entry per gateway and direction.
    assert_eq!(r.proxies.len(), 40);
}

#[test]
fn same_seed_same_session() {
    let a = run(ONE_LINK, &["flows.w.web.pages=5", "links.l.per=0.01"], 11);
    let b = run(ONE_LINK, &["flows.w.web.pages=5", "links.l.per=0.01"], 11);
    assert_eq!(a.flows, b.flows);
    let c = run(ONE_LINK, &["flows.w.web.pages=5", "links.l.per=0.01"], 12);
    assert_ne!(objects(&a.flows["w"]), objects(&c.flows["w"]));
}

#[test]
fn impossible_page_models_are_one_line_errors_naming_the_key() {
    for (set, key, what) in [
        (
            "flows.w.web.reply_alpha=0",
            "flows.w.web.reply_alpha",
            "positive",
        ),
        (
            "flows.w.web.reply_alpha=-1.2",
            "flows.w.web.reply_alpha",
            "positive",
        ),
        (
            "flows.w.web.think_alpha=0",
            "flows.w.web.think_alpha",
            "positive",
        ),
        ("flows.w.web.pages=0", "flows.w.web.pages", "at least 1"),
        ("flows.w.web.http=2", "flows.w.web.http", "not one of"),
        (
            "flows.w.web.object_size=0 B",
            "flows.w.web.object_size",
            "at least 1 B",
        ),
        (
            "flows.w.web.request_p_large=1.5",
            "flows.w.web.request_p_large",
            "probability",
        ),
        (
            "flows.w.web.inline_sd=0",
            "flows.w.web.inline_sd",
            "positive",
        ),
        (
            "flows.w.web.reply_k=0 B",
            "flows.w.web.reply_k",
            "at least 1 B",
        ),
        ("flows.w.size=1 MB", "flows.w.size", "leave size out"),
    ] {
        let e = plan_error(ONE_LINK, &[set]);
        assert!(e.contains(key) && e.contains(what), "{set}: {e}");
        assert!(!e.contains('\n'), "{set}: {e}");
    }
    let e = plan_error(
        ONE_LINK,
        &["flows.w.web.http=1.0", "flows.w.web.parallel=0"],
    );
    assert!(e.contains("flows.w.web.parallel"), "{e}");
    // `parallel` under HTTP/1.1 is ignored with a warning (a sweep over
    // `http` keeps one table); zero is still an error.
    let sets = common::studies(&["flows.w.web.parallel=2"]);
    let scn = load_str(ONE_LINK, "web.toml", &sets).unwrap();
    let plan = Plan::build(&scn, "web.toml").unwrap();
    assert!(plan
        .warnings
        .iter()
        .any(|w| w.contains("flows.w.web") && w.contains("HTTP/1.0 only")));
}

#[test]
fn http_1_1_restarts_its_window_after_think_times_only_with_idle_restart() {
    // Twenty pages of one 100 kB object over the 100 ms round trip: without
    // the restart, every page after the first finds the window the previous
    // one grew; with RFC 5681 (4.1) each page (think time ≥ 1 s > RTO)
    // starts again from the initial window.
    let base = [
        "flows.w.web.object_size=100000 B",
        "flows.w.web.pages=20",
        "flows.w.web.request_size=250 B",
    ];
    let kept = run(ONE_LINK, &base, 1);
    let with: Vec<&str> = base
        .iter()
        .copied()
        .chain(["tcp.idle_restart=true"])
        .collect();
    let restarted = run(ONE_LINK, &with, 1);
    let times = |r: &RunResult| -> Vec<f64> {
        objects(&r.flows["w"])
            .iter()
            .map(|o| o.response_time_s.unwrap())
            .collect()
    };
    let (k, r) = (times(&kept), times(&restarted));
    // The first page is the same (nothing to restart).
    assert!((k[0] - r[0]).abs() < 1e-12);
    // Later pages: restarted ones need the slow-start rounds again.
    for i in 1..20 {
        assert!(r[i] > k[i] + 0.2, "page {i}: {} vs {}", r[i], k[i]);
        assert!((r[i] - r[1]).abs() < 0.01, "every restarted page alike");
    }
    // The default warns that it keeps the window; the switch silences it.
    let warns = |sets: &[&str]| {
        let sets = common::studies(sets);
        let scn = load_str(ONE_LINK, "web.toml", &sets).unwrap();
        Plan::build(&scn, "web.toml").unwrap().warnings
    };
    assert!(warns(&base).iter().any(|w| w.contains("tcp.idle_restart")));
    assert!(!warns(&with).iter().any(|w| w.contains("tcp.idle_restart")));
}

#[test]
fn a_session_reports_under_the_flow_with_the_keys_and_order_of_the_json_contract() {
    let r = run(ONE_LINK, &["flows.w.web.pages=3", "links.l.per=0.01"], 2);
    let text = serde_json::to_string(&r.flows["w"]).unwrap();
    let keys = [
        "completion_time_s",
        "goodput_bps",
        "throughput_bps",
        "bytes_delivered",
        "bytes_sent",
        "retransmissions",
        "timeouts",
        "fast_recoveries",
        "active_time_s",
        "handshake_s",
        "legs",
        "objects_completed",
        "objects_incomplete",
        "object_response_mean_s",
        "object_response_p50_s",
        "object_response_p95_s",
        "object_response_max_s",
        "pages_completed",
        "page_response_mean_s",
        "page_response_p50_s",
        "page_response_p95_s",
        "page_response_max_s",
        "connections_opened",
        "objects",
        "pages",
    ];
    // Exactly these keys at the flow's level, in this order.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut have: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    let mut want = keys.to_vec();
    have.sort_unstable();
    want.sort_unstable();
    assert_eq!(have, want);
    let at: Vec<usize> = keys
        .iter()
        .map(|k| text.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    // Records keep their field order.
    assert!(text.contains("\"objects\":[{\"page\":0,\"request_bytes\":"));
    assert!(text.contains("\"reply_bytes\":"));
    assert!(text.contains(",\"requested_at_s\":0.0,\"response_time_s\":"));
    assert!(text.contains("\"pages\":[{\"objects\":"));
    assert!(text.contains(",\"started_at_s\":0.0,\"response_time_s\":"));
    // The summaries are those of the records.
    let objs = objects(&r.flows["w"]);
    let done: Vec<f64> = objs.iter().filter_map(|o| o.response_time_s).collect();
    assert_eq!(
        count(&r.flows["w"], "objects_completed"),
        Some(done.len() as u64)
    );
    let max = done.iter().copied().fold(0.0, f64::max);
    assert_eq!(v["object_response_max_s"], serde_json::json!(max));
}

#[test]
fn a_run_with_a_session_round_trips_through_its_json() {
    let r = run(
        ONE_LINK,
        &["flows.w.web.pages=4", "flows.w.web.http=1.0"],
        3,
    );
    let json = serde_json::to_string(&r).unwrap();
    let back: RunResult = serde_json::from_str(&json).unwrap();
    // Read back, written again: the same document (compared as parsed
    // values, so that both sides read floats with the same parser).
    let again: serde_json::Value = serde_json::to_value(&back).unwrap();
    assert_eq!(
        again,
        serde_json::from_str::<serde_json::Value>(&json).unwrap()
    );
    let (a, b) = (&r.flows["w"].app, &back.flows["w"].app);
    assert_eq!(a.scalars().len(), b.scalars().len());
    for ((na, ta), (nb, tb)) in a.tables().iter().zip(b.tables()) {
        assert_eq!((na, ta.columns(), ta.len()), (nb, tb.columns(), tb.len()));
    }
    assert_eq!(
        b.scalar("connections_opened"),
        a.scalar("connections_opened")
    );
}
