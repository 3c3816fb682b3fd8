//! QUIC-terminating proxies through whole runs: the flow becomes one QUIC
//! connection per stretch of its path, the proxy relays every stream's
//! bytes (checked end to end), its occupancy is reported as a split-TCP
//! proxy's and never exceeds its cache under any policy, and the incoming
//! connection's rate is bounded by the proxy's receive window over that
//! connection's round trip.
//!
//! Most tests set the proxy on the resolved plan (`PlanProxy::quic`); the
//! last ones go through the scenario key, `flows.<id>.quic_proxies`.

use super::quic::plan_quic;
use skyhop::observe::PacketLogOptions;
use skyhop::quic::{QuicConfig, QuicController};
use skyhop::scenario::Plan;
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};

/// A - S - B: `up` then `down` (rate, one-way delay), a proxy at S with
/// `proxy` keys, a flow of `size` (or a bulk flow) from A to B.
fn chain(up: (&str, &str), down: (&str, &str), proxy: &str, size: Option<&str>) -> String {
    let size = size.map_or(String::new(), |s| format!("size = \"{s}\""));
    format!(
        r#"
[run]
duration = "60 s"
[nodes.A]
[nodes.S]
[nodes.S.proxy]
{proxy}
[nodes.B]
[links.up]
between = ["A", "S"]
rate = "{}"
delay = "{}"
queue = 2000
[links.down]
between = ["S", "B"]
rate = "{}"
delay = "{}"
queue = 2000
[flows.f]
from = "A"
proxies = ["S"]
to = "B"
{size}
"#,
        up.0, up.1, down.0, down.1
    )
}

/// `toml`'s plan, QUIC with `cfg`, every proxy terminating it with `cfg`.
fn plan_terminating(toml: &str, cfg: &QuicConfig) -> Plan {
    let mut plan = plan_quic(toml, cfg);
    for f in &mut plan.flows {
        for p in &mut f.proxies {
            p.quic = Some(cfg.clone());
        }
    }
    plan
}

fn run_terminating(toml: &str, cfg: &QuicConfig, seed: u64) -> RunResult {
    run_plan(&plan_terminating(toml, cfg), seed, &RunOptions::default()).unwrap()
}

fn ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

/// Serialisation of `bytes` at `rate_bps`, ns.
fn ser(bytes: u64, rate_bps: u64) -> u64 {
    (bytes * 8 * 1_000_000_000).div_ceil(rate_bps)
}

#[test]
fn a_terminating_proxy_ends_one_connection_and_opens_the_next() {
    let toml = chain(
        ("10 Mbps", "125 ms"),
        ("10 Mbps", "145 ms"),
        "policy = \"half-free\"\ncache = \"4 MB\"",
        Some("2 MB"),
    );
    let r = run_terminating(&toml, &QuicConfig::default(), 1);
    let f = &r.flows["f"];
    assert!(f.connection_error.is_none(), "{:?}", f.connection_error);
    // Every byte, each checked against what A sent, at B.
    assert_eq!(f.bytes_delivered, 2_000_000);
    assert!(f.completion_time_s.is_some());
    // Two connections: A (client) to S, S (client) to B.
    let ends: Vec<(u32, &str, &str)> = r
        .quic
        .iter()
        .map(|q| (q.leg, q.end.as_str(), q.node.as_str()))
        .collect();
    assert_eq!(
        ends,
        [
            (0, "client", "A"),
            (0, "server", "S"),
            (1, "client", "S"),
            (1, "server", "B")
        ]
    );
    // The flow's handshake is its client's, with the proxy: one hop each
    // way (the Initial and the server's first flight, 1228 B each).
    let hop = 125_000_000 + ser(1228, 10_000_000);
    assert_eq!(ns(f.handshake_s.unwrap()), 2 * hop);
    // S opens the next connection when A's Initial reaches it; that
    // handshake is the second hop's round trip.
    let s_client = &r.quic[2];
    assert_eq!(
        ns(s_client.handshake_s.unwrap()),
        2 * (145_000_000 + ser(1228, 10_000_000))
    );
    // The proxy reports as a split-TCP proxy does, marked QUIC.
    assert_eq!(r.proxies.len(), 1);
    let p = &r.proxies[0];
    assert!(p.quic);
    assert_eq!((p.node.as_str(), p.cache_bytes), ("S", 4_000_000));
    assert!(p.max_occupancy_bytes > 0);
    assert!(p.mean_occupancy_bytes > 0.0);
    assert!(p.mean_occupancy_bytes <= p.max_occupancy_bytes as f64);
    // Its incoming connection's credit updates (MAX_STREAM_DATA, MAX_DATA).
    assert!(p.window_updates > 0);
    assert_eq!(p.drops, 0);
}

/// A short fast first stretch into a slow GEO one (a gateway's proxy):
/// the proxy's cache fills.
fn bottleneck_after_the_proxy(proxy: &str) -> String {
    chain(
        ("50 Mbps", "5 ms"),
        ("2 Mbps", "250 ms"),
        proxy,
        Some("3 MB"),
    )
    .replace("60 s", "30 s")
}

#[test]
fn occupancy_fills_the_cache_and_never_exceeds_it_under_each_policy() {
    // With the second stretch 25 times slower, the bytes wait at S: the
    // relay reads only while what it holds stays within its share, and the
    // first connection's flow control keeps the rest within the proxy's
    // receive window (pep::QuicRelay): C under half-free and third, the
    // receive plus the send buffer under buffers. It fills to the bound
    // less what the first stretch's credit loop keeps on the way (its
    // round trip is 10 ms) and quinn's step of credit (an eighth of the
    // receive window, announced once that much more was read).
    for (proxy, bound) in [
        ("policy = \"half-free\"\ncache = \"300 kB\"", 300_000),
        ("policy = \"third\"\ncache = \"300 kB\"", 300_000),
        (
            "policy = \"buffers\"\nrecv_buffer = \"200 kB\"\nsend_buffer = \"100 kB\"",
            300_000,
        ),
    ] {
        let r = run_terminating(
            &bottleneck_after_the_proxy(proxy),
            &QuicConfig::default(),
            1,
        );
        let f = &r.flows["f"];
        assert!(
            f.connection_error.is_none(),
            "{proxy}: {:?}",
            f.connection_error
        );
        // 3 MB at 2 Mb/s: some 12 s, then done.
        assert_eq!(f.bytes_delivered, 3_000_000, "{proxy}");
        let p = &r.proxies[0];
        println!(
            "{}: max {} B, mean {:.0} B of {bound} B",
            proxy.replace('\n', ", "),
            p.max_occupancy_bytes,
            p.mean_occupancy_bytes
        );
        assert!(
            p.max_occupancy_bytes <= bound,
            "{proxy}: {}",
            p.max_occupancy_bytes
        );
        // Filled to within a credit step of it: the bound is what binds.
        assert!(
            p.max_occupancy_bytes >= bound * 85 / 100,
            "{proxy}: {}",
            p.max_occupancy_bytes
        );
    }
}

#[test]
fn the_first_connections_rate_is_its_proxy_receive_window_over_its_round_trip() {
    // A GEO first stretch (100 Mb/s, 270 ms each way) into a short fast
    // one. With a half-free cache C = 2 MB the proxy's receive window is
    // W = C/2 = 1 MB, and the first connection runs as a lone connection
    // with that stream window does: in [7/8, 1] × W / RTT (the receiver
    // announces credit in steps of W/8, quinn's `max_stream_data`;
    // `quic::goodput_stays_under_the_stream_window_over_the_round_trip`).
    // The second stretch (10 ms round trip, the flow's own windows)
    // never limits it. Rate over [30, 60] s of a bulk flow.
    let toml = |d: &str| {
        chain(
            ("100 Mbps", "270 ms"),
            ("100 Mbps", "5 ms"),
            "policy = \"half-free\"\ncache = \"2 MB\"",
            None,
        )
        .replace("60 s", d)
    };
    let cfg = QuicConfig::default();
    let (a, b) = (
        run_terminating(&toml("30 s"), &cfg, 1),
        run_terminating(&toml("60 s"), &cfg, 1),
    );
    let rtt = b.quic[0].min_rtt_s;
    let w = 1_000_000.0 * 8.0;
    let rate = (b.flows["f"].bytes_delivered - a.flows["f"].bytes_delivered) as f64 * 8.0 / 30.0;
    println!(
        "rate {rate:.0} b/s, W/RTT {:.0} b/s, ratio {:.3}",
        w / rtt,
        rate * rtt / w
    );
    assert!(rate <= w / rtt, "{rate} above {}", w / rtt);
    assert!(
        rate >= 7.0 / 8.0 * w / rtt,
        "{rate} below {}",
        7.0 / 8.0 * w / rtt
    );
    // The cache then holds what crosses the first stretch's window and
    // little more: never above its 2 MB.
    assert!(b.proxies[0].max_occupancy_bytes <= 2_000_000);
}

#[test]
fn the_occupancy_trace_follows_the_proxy_and_stays_within_its_cache() {
    let plan = plan_terminating(
        &bottleneck_after_the_proxy("policy = \"half-free\"\ncache = \"300 kB\""),
        &QuicConfig::default(),
    );
    let opts = RunOptions {
        trace: true,
        ..Default::default()
    };
    let r = run_plan(&plan, 1, &opts).unwrap();
    let tr = &r.traces["f.proxy.S.occupancy"];
    assert!(tr.value.len() > 100);
    let max = tr.value.iter().cloned().fold(0.0, f64::max);
    assert_eq!(max as u64, r.proxies[0].max_occupancy_bytes);
    assert!(tr.t_s.windows(2).all(|w| w[0] <= w[1]));
    // When B has the last byte, S holds at most the last congestion
    // window of the second stretch (waiting for its acknowledgement).
    let s_client = r
        .quic
        .iter()
        .find(|q| q.leg == 1 && q.end == "client")
        .unwrap();
    assert!(*tr.value.last().unwrap() <= s_client.cwnd_bytes as f64);
}

#[test]
fn a_web_session_crosses_a_terminating_proxy_both_ways() {
    // The browser (B) opens the connection to S, S the one to A; requests
    // go back through S (the reverse relay), replies forward.
    let toml = chain(
        ("10 Mbps", "125 ms"),
        ("10 Mbps", "145 ms"),
        "policy = \"half-free\"\ncache = \"1 MB\"",
        None,
    )
    .replace("60 s", "300 s")
    .replace(
        "to = \"B\"\n",
        "to = \"B\"\napp = \"web\"\n[flows.f.web]\nhttp = \"1.0\"\npages = 5\nparallel = 4\n",
    );
    let r = run_terminating(&toml, &QuicConfig::default(), 1);
    let f = &r.flows["f"];
    assert!(f.connection_error.is_none(), "{:?}", f.connection_error);
    assert!(f.completion_time_s.is_some());
    let t = serde_json::to_value(f).unwrap();
    let replies: u64 = t["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["reply_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(f.bytes_delivered, replies);
    let clients: Vec<(u32, &str)> = r
        .quic
        .iter()
        .filter(|q| q.end == "client")
        .map(|q| (q.leg, q.node.as_str()))
        .collect();
    assert_eq!(clients, [(0, "S"), (1, "B")]);
    // The browser's handshake: with S, over the second stretch.
    assert_eq!(
        ns(f.handshake_s.unwrap()),
        2 * (145_000_000 + ser(1228, 10_000_000))
    );
    // Both directions of the relay report (replies forward, requests back).
    assert_eq!(r.proxies.len(), 2);
    assert!(r
        .proxies
        .iter()
        .all(|p| p.quic && p.max_occupancy_bytes > 0));
}

#[test]
fn the_same_seed_gives_the_same_results_and_packets_through_a_terminating_proxy() {
    let toml = chain(
        ("20 Mbps", "250 ms"),
        ("5 Mbps", "20 ms"),
        "policy = \"third\"\ncache = \"500 kB\"",
        Some("2 MB"),
    )
    .replace("queue = 2000", "queue = 2000\nper = 0.01");
    let cfg = QuicConfig {
        controller: QuicController::NewReno,
        ..QuicConfig::default()
    };
    let plan = plan_terminating(&toml, &cfg);
    let opts = RunOptions {
        packet_log: Some(PacketLogOptions::default()),
        ..Default::default()
    };
    let (a, b) = (
        run_plan(&plan, 3, &opts).unwrap(),
        run_plan(&plan, 3, &opts).unwrap(),
    );
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let (la, lb) = (a.packet_log.unwrap(), b.packet_log.unwrap());
    assert_eq!(la.blobs, lb.blobs);
    assert_eq!(a.flows["f"].bytes_delivered, 2_000_000);
    // Losses on both stretches, recovered by each connection.
    assert!(a.quic.iter().filter(|q| q.lost_packets > 0).count() >= 2);
}

#[test]
fn a_probe_s_datagrams_are_relayed_by_the_proxy() {
    // A scenario gives a probe no proxies (it is datagrams end to end);
    // on the plan, a probe's application on a flow with one.
    let toml = chain(
        ("10 Mbps", "125 ms"),
        ("10 Mbps", "145 ms"),
        "policy = \"half-free\"\ncache = \"1 MB\"",
        None,
    )
    .replace("60 s", "10 s");
    let probe = toml.replace("proxies = [\"S\"]\n", "").replace(
        "to = \"B\"\n",
        "to = \"B\"\napp = \"cbr\"\ncbr = { rate = \"1 Mbps\", packet = \"1250 B\" }\n",
    );
    let cfg = QuicConfig {
        initial_window: Some(1_000_000),
        ..QuicConfig::default()
    };
    let mut plan = plan_terminating(&toml, &cfg);
    plan.flows[0].app = plan_quic(&probe, &cfg).flows[0].app.clone();
    let r = run_plan(&plan, 1, &RunOptions::default()).unwrap();
    let f = &r.flows["f"];
    assert!(f.connection_error.is_none(), "{:?}", f.connection_error);
    assert_eq!(f.packets_sent, Some(1001));
    // Those of the last 270 ms (some 27) are on the way.
    let received = f.packets_received.unwrap();
    assert!((965..=975).contains(&received), "{received}");
    // One way: two hops of propagation at least.
    assert!(f.delay_mean_s.unwrap() > 0.270);
    assert!(r.quic.iter().all(|q| q.stream_frames_sent == 0));
}

#[test]
fn a_terminating_proxy_cannot_hold_its_acknowledgements_back() {
    let toml = chain(
        ("10 Mbps", "125 ms"),
        ("10 Mbps", "145 ms"),
        "policy = \"half-free\"\ncache = \"1 MB\"\nack_after_forward = true",
        Some("100 kB"),
    );
    let plan = plan_terminating(&toml, &QuicConfig::default());
    let e = run_plan(&plan, 1, &RunOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("nodes.S.proxy.ack_after_forward: a QUIC-terminating proxy"),
        "{e}"
    );
}

/// A GEO gateway: server S, 100 Mb/s and 5 ms to the gateway G, 10 Mb/s
/// and 270 ms over the satellite to the client C, 1000-packet queues; a
/// bulk QUIC flow from S to C terminated at G by the scenario key.
const GATEWAY: &str = r#"
[run]
duration = "20 s"
[nodes.S]
[nodes.G]
[nodes.G.proxy]
policy = "buffers"
recv_buffer = "1 MB"
send_buffer = "4 MB"
[nodes.C]
[links.ground]
between = ["S", "G"]
rate = "100 Mbps"
delay = "5 ms"
queue = 1000
[links.sat]
between = ["G", "C"]
rate = "10 Mbps"
delay = "270 ms"
queue = 1000
[flows.f]
from = "S"
to = "C"
transport = "quic"
quic_proxies = ["G"]
"#;

fn gateway(sets: &[&str]) -> Plan {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn =
        skyhop::scenario::load_str(GATEWAY, "gw.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    Plan::build(&scn, "gw.toml").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_quic_proxies_key_terminates_the_flow_at_a_geo_gateway_within_the_satellite_bound() {
    let plan = gateway(&[]);
    let p = &plan.flows[0].proxies[0];
    assert_eq!(plan.nodes[p.node as usize], "G");
    assert_eq!(p.quic.as_ref(), plan.flows[0].quic.as_ref());
    assert_eq!((p.cache_bytes, p.send_buffer), (1_000_000, 4_000_000));
    let opts = RunOptions {
        trace: true,
        ..Default::default()
    };
    let a = run_plan(
        &gateway(&["run.duration=\"10 s\""]),
        1,
        &RunOptions::default(),
    )
    .unwrap();
    let b = run_plan(&plan, 1, &opts).unwrap();
    let fb = &b.flows["f"];
    assert!(fb.connection_error.is_none(), "{:?}", fb.connection_error);
    // The satellite stretch's connection runs with the flow's 1.25 MB
    // stream window at C, above its 675 kB bandwidth-delay product, and the
    // proxy may keep 4 MB unacknowledged onward; the 1000-packet queue
    // holds the rest without a loss: from 10 s on the satellite link is
    // busy, with full datagrams as C's credit comes in steps of an eighth
    // of its window. A full datagram is 1480 B on the wire (1452 B of UDP
    // payload after MTU discovery, 28 B of headers) and carries at most
    // 1420 stream bytes: 1452 less a 1-byte short header, C's 8-byte
    // connection ID, a packet number of at least 1 byte, the STREAM
    // frame's type and stream ID (1 byte each) and offset (4 bytes from
    // 16 kB to 1 GB; its length is left out in a packet's last frame),
    // and the 16-byte AEAD tag. So goodput is at most 10 Mb/s x 1420/1480
    // = 9.595 Mb/s, and within 1 % of it.
    let bound = 10e6 * 1420.0 / 1480.0;
    let rate = (fb.bytes_delivered - a.flows["f"].bytes_delivered) as f64 * 8.0 / 10.0;
    println!(
        "rate {rate:.0} b/s, bound {bound:.0} b/s, ratio {:.4}",
        rate / bound
    );
    assert!(rate <= bound, "{rate} above {bound}");
    assert!(rate >= 0.99 * bound, "{rate} below 0.99 x {bound}");
    // The proxy reports as a split-TCP proxy: a row with its cache (the
    // receive buffer), the occupancy's maximum and time-weighted mean, its
    // incoming window updates, and an occupancy trace. The first stretch
    // (10 ms round trip) outruns the satellite: the proxy fills to within
    // a credit step (an eighth of its 1 MB receive window) of what it may
    // hold, the receive plus the send buffer.
    assert_eq!(b.proxies.len(), 1);
    let row = &b.proxies[0];
    assert!(row.quic);
    assert_eq!((row.flow.as_str(), row.node.as_str()), ("f", "G"));
    assert_eq!(row.cache_bytes, 1_000_000);
    assert!(row.max_occupancy_bytes <= 5_000_000);
    assert!(
        row.max_occupancy_bytes >= 5_000_000 - 1_000_000 / 8,
        "{}",
        row.max_occupancy_bytes
    );
    assert!(row.window_updates > 0);
    let tr = &b.traces["f.proxy.G.occupancy"];
    let max = tr.value.iter().cloned().fold(0.0, f64::max);
    assert_eq!(max as u64, row.max_occupancy_bytes);
    // A TCP flow through the same node as a split proxy reports the same
    // row, without the QUIC mark.
    let tcp = gateway(&[
        "flows.f.transport=\"tcp\"",
        "flows.f.quic_proxies=[]",
        "flows.f.proxies=[\"G\"]",
        "run.duration=\"5 s\"",
    ]);
    let r = run_plan(&tcp, 1, &RunOptions::default()).unwrap();
    let t = serde_json::to_value(&r.proxies[0]).unwrap();
    let q = serde_json::to_value(row).unwrap();
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "quic")
            .cloned()
            .collect()
    };
    assert_eq!(keys(&t), keys(&q));
    assert_eq!(t["cache_bytes"], 1_000_000);
}

#[test]
fn the_quic_proxies_key_refuses_what_it_cannot_mean() {
    let err = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        match skyhop::scenario::load_str(GATEWAY, "gw.toml", &sets) {
            Ok(_) => panic!("{sets:?} loaded"),
            Err(e) => e.to_string(),
        }
    };
    let e = err(&["flows.f.transport=\"tcp\""]);
    assert!(
        e.contains("flows.f.quic_proxies: QUIC-terminating proxies on a TCP flow"),
        "{e}"
    );
    let e = err(&["flows.f.proxies=[\"G\"]"]);
    assert!(
        e.contains("flows.f.quic_proxies[0]: node \"G\" is also in flows.f.proxies"),
        "{e}"
    );
    let e = err(&["nodes.G.proxy.ack_after_forward=true"]);
    assert!(
        e.contains("nodes.G.proxy.ack_after_forward: a QUIC-terminating proxy cannot hold"),
        "{e}"
    );
    let e = err(&["flows.f.quic_proxies=[\"C\"]"]);
    assert!(
        e.contains("flows.f.quic_proxies[0]: node \"C\" is an end of the flow"),
        "{e}"
    );
    let e = err(&["nodes.G.proxy={ policy = \"half-free\", cache = \"2 kB\" }"]);
    assert!(e.contains("nodes.G.proxy.cache: 2000 B is too small: the half-free policy needs at least 2 datagrams (2904 B)"), "{e}");
    // Without a size: a relay running quinn with the flow's windows.
    let plan = gateway(&["nodes.G.proxy={}"]);
    let p = &plan.flows[0].proxies[0];
    assert_eq!((p.cache_bytes, p.send_buffer), (1_250_000, 10_000_000));
    assert_eq!(p.policy, skyhop::pep::ProxyPolicy::Buffers);
}

#[test]
fn the_packet_table_labels_quic_datagrams_with_their_flow_and_connection() {
    let plan = gateway(&["run.duration=\"5 s\"", "flows.f.size=\"200 kB\""]);
    let opts = RunOptions {
        packet_log: Some(PacketLogOptions::default()),
        ..Default::default()
    };
    let r = run_plan(&plan, 1, &opts).unwrap();
    let log = r.packet_log.as_ref().unwrap();
    let t = skyhop::export::packet_table(log, &plan);
    // Every packet is a QUIC datagram of flow f: on the ground link of
    // connection 0 (S to G), on the satellite link of connection 1.
    assert!(t.kind.iter().all(|k| *k == "quic"));
    assert!(t.flow.iter().all(|f| f == "f"));
    for i in 0..t.kind.len() {
        let want = if t.link[i] == "ground" { 0 } else { 1 };
        assert_eq!(t.leg[i], want, "row {i}");
    }
    // An end's datagrams are numbered from 0 as it sends them: the
    // enqueues on its first link, in order (no datagram is lost here).
    let numbers = |link: &str, dir: &str| -> Vec<u64> {
        (0..t.kind.len())
            .filter(|&i| t.link[i] == link && t.dir[i] == dir && t.event[i] == "enqueue")
            .map(|i| t.seq[i].unwrap())
            .collect()
    };
    for (link, dir) in [
        ("ground", "forward"),
        ("ground", "reverse"),
        ("sat", "forward"),
        ("sat", "reverse"),
    ] {
        let n = numbers(link, dir);
        assert!(n.len() > 10, "{link} {dir}");
        assert_eq!(n, (0..n.len() as u64).collect::<Vec<_>>(), "{link} {dir}");
    }
    // An arrival (which keeps no bytes) carries its enqueue's number.
    let arrivals: Vec<usize> = (0..t.kind.len())
        .filter(|&i| t.event[i] == "arrive")
        .collect();
    assert!(arrivals.len() > 40);
    assert!(arrivals.iter().all(|&i| t.seq[i].is_some()));
}

#[test]
fn a_proxy_keeps_its_idle_first_connection_open_while_it_relays() {
    // 3 MB reach G within a second over the 100 Mb/s ground link and take
    // some 50 s onward at 500 kb/s: the first connection then carries
    // nothing for far longer than quinn's 30 s idle timeout. The proxy's
    // keep-alive (a PING after 15 s without sending) keeps it open, and
    // every byte arrives.
    let plan = gateway(&[
        "run.duration=\"120 s\"",
        "flows.f.size=\"3 MB\"",
        "links.sat.rate=\"500 kbps\"",
        "nodes.G.proxy.recv_buffer=\"4 MB\"",
    ]);
    let r = run_plan(&plan, 1, &RunOptions::default()).unwrap();
    let f = &r.flows["f"];
    assert!(f.connection_error.is_none(), "{:?}", f.connection_error);
    assert!(r.warnings.iter().all(|w| !w.contains("timed out")));
    assert_eq!(f.bytes_delivered, 3_000_000);
    // 3 MB at 500 kb/s: at least 48 s.
    assert!(f.completion_time_s.unwrap() > 48.0);
}
