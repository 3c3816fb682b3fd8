//! QUIC flows (quinn-proto 0.11.19 in virtual time) through whole runs:
//! the handshake's closed form, the flow-control bound, determinism down
//! to the packet bytes, recovery on a lossy link, probe timeouts, and an
//! error of the stack as a flow outcome.
//!
//! A flow is made QUIC on its resolved plan (`PlanFlow::quic`); the
//! scenario keys come later.

use skyhop::observe::{PacketLog, PacketLogOptions};
use skyhop::quic::{QuicConfig, QuicController};
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};

/// Two nodes over one GEO hop: `rate` each way, 270 ms one way.
pub fn geo(rate: &str, size: Option<&str>, extra: &str) -> String {
    let size = size.map_or(String::new(), |s| format!("size = \"{s}\""));
    format!(
        r#"
[run]
duration = "60 s"
[nodes.A]
[nodes.B]
[links.sat]
between = ["A", "B"]
rate = "{rate}"
delay = "270 ms"
{extra}
[flows.f]
from = "A"
to = "B"
{size}
"#
    )
}

/// The plan of `toml` with every flow over QUIC with `cfg`.
pub fn plan_quic(toml: &str, cfg: &QuicConfig) -> Plan {
    let scn = load_str(toml, "quic.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut plan = Plan::build(&scn, "quic.toml").unwrap_or_else(|e| panic!("{e}"));
    for f in &mut plan.flows {
        f.quic = Some(cfg.clone());
    }
    plan
}

pub fn run_quic(toml: &str, cfg: &QuicConfig, seed: u64) -> RunResult {
    run_plan(&plan_quic(toml, cfg), seed, &RunOptions::default()).unwrap()
}

fn logged(toml: &str, cfg: &QuicConfig, seed: u64) -> RunResult {
    let opts = RunOptions {
        packet_log: Some(PacketLogOptions::default()),
        ..Default::default()
    };
    run_plan(&plan_quic(toml, cfg), seed, &opts).unwrap()
}

/// The bytes of every packet accepted on link direction `ld`, in order.
fn wire(log: &PacketLog, ld: u32) -> Vec<Vec<u8>> {
    (0..log.events.len())
        .filter(|&i| log.events[i].link_dir == ld && log.accepted(i))
        .map(|i| log.blobs[log.events[i].conn as usize].clone())
        .collect()
}

fn ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

/// Serialisation of `bytes` at `rate_bps`, ns.
fn ser(bytes: u64, rate_bps: u64) -> u64 {
    (bytes * 8 * 1_000_000_000).div_ceil(rate_bps)
}

#[test]
fn the_handshake_takes_one_round_trip_plus_two_full_datagrams() {
    for (rate, bps) in [("10 Mbps", 10_000_000), ("2 Mbps", 2_000_000)] {
        let r = logged(&geo(rate, Some("100 kB"), ""), &QuicConfig::default(), 1);
        let log = r.packet_log.as_ref().unwrap();
        // RFC 9000 §14.1: a datagram carrying an Initial packet is padded
        // to a UDP payload of 1200 B: 1228 B with IPv4 and UDP. The
        // server's first flight (ServerHello in an Initial; the Ed25519
        // certificate, CertificateVerify and Finished in a Handshake
        // packet) fits in that one datagram.
        let (up, down) = (wire(log, 0), wire(log, 1));
        assert_eq!(up[0].len(), 1228);
        assert_eq!(down[0].len(), 1228);
        // quinn reports the client connected when it has processed that
        // datagram: the Initial's serialisation and 270 ms out, the
        // server's datagram's serialisation and 270 ms back, on idle links.
        let want = 540_000_000 + 2 * ser(1228, bps);
        let f = &r.flows["f"];
        assert_eq!(ns(f.handshake_s.unwrap()), want, "{rate}");
        // Within 2 % of one RTT plus serialisation (the acceptance bar).
        let closed = 0.540 + 2.0 * 1228.0 * 8.0 / bps as f64;
        assert!((f.handshake_s.unwrap() / closed - 1.0).abs() < 0.02);
        // The server completes when the client's Finished (in a datagram
        // that also acknowledges an Initial, so padded too) arrives.
        let server = r.quic.iter().find(|q| q.end == "server").unwrap();
        assert_eq!(
            ns(server.handshake_s.unwrap()),
            810_000_000 + 3 * ser(1228, bps)
        );
        assert_eq!(f.bytes_delivered, 100_000);
        assert_eq!((f.retransmissions, f.timeouts), (0, 0));
    }
}

#[test]
fn goodput_stays_under_the_stream_window_over_the_round_trip() {
    // 100 Mb/s GEO, a queue that never fills: quinn's default stream
    // window W = 1.25 MB caps a bulk flow at W / RTT = 18.5 Mb/s. The
    // receiver (reading at once) announces more credit when at least W/8
    // more was read (quinn's `RecvStream::max_stream_data`), so in steady
    // state the sender may have between 7/8 W and W unacknowledged: goodput
    // in [7/8, 1] × W / RTT. The same run cut at 30 s and at 60 s (the
    // first is the second's prefix) gives the rate over [30, 60] s.
    let toml = |d: &str| geo("100 Mbps", None, "queue = 4000").replace("60 s", d);
    let cfg = QuicConfig::default();
    let (a, b) = (
        run_quic(&toml("30 s"), &cfg, 1),
        run_quic(&toml("60 s"), &cfg, 1),
    );
    let rtt = b.quic.iter().find(|q| q.end == "client").unwrap().min_rtt_s;
    let w = cfg.stream_receive_window as f64 * 8.0;
    let rate = (b.flows["f"].bytes_delivered - a.flows["f"].bytes_delivered) as f64 * 8.0 / 30.0;
    assert!(rate <= w / rtt, "{rate} above {}", w / rtt);
    assert!(
        rate >= 7.0 / 8.0 * w / rtt,
        "{rate} below {}",
        7.0 / 8.0 * w / rtt
    );
    assert!(b.flows["f"].goodput_bps < w / rtt);
    assert_eq!(b.flows["f"].retransmissions, 0);
    // Twice the window, twice the bound (the link is still far from full).
    let cfg2 = QuicConfig {
        stream_receive_window: 2 * cfg.stream_receive_window,
        ..cfg.clone()
    };
    let (a2, b2) = (
        run_quic(&toml("30 s"), &cfg2, 1),
        run_quic(&toml("60 s"), &cfg2, 1),
    );
    let rate2 = (b2.flows["f"].bytes_delivered - a2.flows["f"].bytes_delivered) as f64 * 8.0 / 30.0;
    assert!(
        rate2 <= 2.0 * w / rtt && rate2 >= 7.0 / 4.0 * w / rtt,
        "{rate2}"
    );
}

#[test]
fn the_same_seed_gives_the_same_results_and_the_same_packet_bytes() {
    let toml = geo("10 Mbps", Some("2 MB"), "per = 0.01");
    let cfg = QuicConfig::default();
    let (a, b) = (logged(&toml, &cfg, 7), logged(&toml, &cfg, 7));
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let (la, lb) = (
        a.packet_log.as_ref().unwrap(),
        b.packet_log.as_ref().unwrap(),
    );
    assert_eq!(la.events, lb.events);
    assert_eq!(la.blobs, lb.blobs);
    assert!(la.blobs.len() > 1000);
    // Another seed: other connection IDs, keys and randoms, so other bytes.
    let c = logged(&toml, &cfg, 8);
    assert_ne!(c.packet_log.unwrap().blobs[0], la.blobs[0]);
}

#[test]
fn a_lossy_link_loses_packets_and_the_flow_recovers_every_byte() {
    // (PER, controller, file): at 5 % NewReno's square-root law allows
    // some 120 kb/s on this path, so a smaller file.
    for (per, controller, size) in [
        ("0.01", QuicController::Cubic, 2_000_000),
        ("0.05", QuicController::NewReno, 300_000),
        ("0.02", QuicController::Bbr, 2_000_000),
    ] {
        let cfg = QuicConfig {
            controller,
            ..QuicConfig::default()
        };
        let toml = geo(
            "10 Mbps",
            Some(&format!("{size} B")),
            &format!("per = {per}"),
        );
        let r = run_quic(&toml, &cfg, 3);
        let f = &r.flows["f"];
        // Every byte, checked against the pattern the sender wrote, in order.
        assert_eq!(f.bytes_delivered, size, "{per}");
        assert!(f.completion_time_s.is_some());
        assert!(f.connection_error.is_none());
        let client = r.quic.iter().find(|q| q.end == "client").unwrap();
        assert!(client.lost_packets > 0 && client.lost_bytes > 0, "{per}");
        assert!(client.congestion_events > 0);
        assert_eq!(client.controller, controller.name());
        assert!(r.links[0].channel_drops > 0);
    }
}

#[test]
fn more_than_1024_holes_in_a_stream_close_the_connection_as_the_flows_outcome() {
    // quinn-proto's receive assembler (`connection/assembler.rs`) keeps each
    // out-of-order frame as a chunk; past 2048 chunks it merges contiguous
    // ones, and if more than 1024 remain it gives up: "too many gaps in
    // stream buffer" (a transport error, INTERNAL_ERROR, RFC 9000 §20.1).
    // Here every other datagram from number 30 on is lost, 1100 times, on
    // a GEO path whose window (8 MB initial window, 16 MB stream window)
    // lets some 5500 datagrams leave before the first loss is noticed: the
    // server holds 1100 separate runs beyond the first hole when its
    // 2049th chunk arrives.
    let drops: Vec<String> = (0..1100).map(|i| (30 + 2 * i).to_string()).collect();
    let extra = format!(
        "queue = 10000\nforward = {{ drop_segments = [{}] }}",
        drops.join(", ")
    );
    let cfg = QuicConfig {
        stream_receive_window: 16_000_000,
        send_window: 32_000_000,
        initial_window: Some(8_000_000),
        ..QuicConfig::default()
    };
    let r = run_quic(&geo("100 Mbps", Some("20 MB"), &extra), &cfg, 1);
    let f = &r.flows["f"];
    let words = f
        .connection_error
        .as_deref()
        .expect("quinn closed the connection");
    assert!(words.contains("too many gaps in stream buffer"), "{words}");
    assert_eq!(f.completion_time_s, None);
    assert!(f.bytes_delivered < 20_000_000);
    assert!(
        r.warnings.iter().any(
            |w| w.starts_with("flow f: quinn closed the QUIC connection at B")
                && w.contains("too many gaps")
        ),
        "{:?}",
        r.warnings
    );
    // The run ends with the flow (nothing else to wait for), well before 60 s.
    assert!(r.engine.sim_time_s < 5.0, "{}", r.engine.sim_time_s);
    // Without the holes the same flow completes.
    let ok = run_quic(&geo("100 Mbps", Some("20 MB"), "queue = 10000"), &cfg, 1);
    assert!(ok.flows["f"].connection_error.is_none());
    assert_eq!(ok.flows["f"].bytes_delivered, 20_000_000);
}

#[test]
fn a_lost_tail_is_recovered_by_a_probe_timeout() {
    // The last datagram with stream data lost: nothing after it can reveal
    // the loss, so quinn's probe timer fires (RFC 9002 §6.2) and the probe
    // carries the data again. The datagram's number is its IPv4
    // identification (`quic/wire.rs`); the drop list takes only datagrams
    // with data, so the last one it claims, counted from the end, is the
    // last with stream data. MTU discovery is off: with it, a probe of a
    // larger size follows the data at the end, is acknowledged, and the
    // lost datagram sent before it is found lost by the time threshold
    // (RFC 9002 §6.1.2) without a probe timeout.
    let toml = |extra: &str| geo("10 Mbps", Some("100 kB"), extra);
    let cfg = QuicConfig {
        mtu_discovery_upper_bound: None,
        ..QuicConfig::default()
    };
    let clean = logged(&toml(""), &cfg, 1);
    let up = wire(clean.packet_log.as_ref().unwrap(), 0);
    let lossy = up
        .iter()
        .rev()
        .map(|p| {
            let seq = u16::from_be_bytes([p[4], p[5]]);
            run_quic(
                &toml(&format!("forward = {{ drop_segments = [{seq}] }}")),
                &cfg,
                1,
            )
        })
        .find(|r| r.links[0].channel_drops == 1)
        .unwrap();
    let (c, l) = (&clean.flows["f"], &lossy.flows["f"]);
    assert_eq!((c.timeouts, l.timeouts), (0, 1));
    assert_eq!(l.bytes_delivered, 100_000);
    let client = lossy.quic.iter().find(|q| q.end == "client").unwrap();
    assert_eq!(client.ptos, 1);
    // RFC 9002 §6.2.1: PTO = smoothed RTT + max(4 RTTVAR, 1 ms) + the
    // peer's max_ack_delay (25 ms): at least the path's RTT plus 25 ms
    // later than without the loss, and at most twice that (one timer).
    let delay = l.completion_time_s.unwrap() - c.completion_time_s.unwrap();
    let rtt = client.min_rtt_s;
    assert!(
        delay > rtt + 0.025 && delay < 2.0 * (rtt + 0.025),
        "{delay}"
    );
}

#[test]
fn pcap_files_hold_udp_packets_that_tshark_decodes_as_quic() {
    let Ok(v) = std::process::Command::new("tshark")
        .arg("--version")
        .output()
    else {
        eprintln!("tshark is not installed (CI installs it): skipped");
        return;
    };
    assert!(v.status.success());
    let plan = plan_quic(&geo("10 Mbps", Some("100 kB"), ""), &QuicConfig::default());
    let opts = RunOptions {
        packet_log: Some(PacketLogOptions::default()),
        ..Default::default()
    };
    let r = run_plan(&plan, 1, &opts).unwrap();
    let dir = std::env::temp_dir().join(format!("skyhop-quic-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = r.packet_log.as_ref().unwrap();
    let files = skyhop::export::pcap::write_pcaps(&plan, log, &dir, &[0, 1], "").unwrap();
    let tshark = |file: &std::path::Path, args: &[&str]| -> Vec<String> {
        let out = std::process::Command::new("tshark")
            .args(["-n", "-r"])
            .arg(file)
            .args(args)
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines().map(str::to_string).collect()
    };
    for ((path, n), ld) in files.iter().zip([0, 1]) {
        assert_eq!(*n, r.links[ld].packets);
        // Every packet of the file is QUIC over UDP (the server on 443).
        let quic = tshark(
            path,
            &["-Y", "quic && udp", "-T", "fields", "-e", "frame.number"],
        );
        assert_eq!(quic.len() as u64, *n, "{}", path.display());
    }
    // The client's first packet is an Initial (long header, type 0) whose
    // CRYPTO frame tshark decrypts (Initial keys come from the connection
    // ID, RFC 9001 §5.2): a TLS 1.3 ClientHello for the certificate's name.
    let first = tshark(
        &files[0].0,
        &[
            "-c",
            "1",
            "-T",
            "fields",
            "-e",
            "quic.long.packet_type",
            "-e",
            "udp.dstport",
            "-e",
            "tls.handshake.type",
            "-e",
            "tls.handshake.extensions_server_name",
        ],
    );
    assert_eq!(first, ["0\t443\t1\tserver.skyhop"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `geo` with a web session (`[flows.f.web]` keys in `web`) instead of a file.
fn web(rate: &str, web: &str) -> String {
    geo(rate, None, "").replace("60 s", "600 s").replace(
        "to = \"B\"\n",
        &format!("to = \"B\"\napp = \"web\"\n[flows.f.web]\n{web}\n"),
    )
}

#[test]
fn a_web_session_runs_over_one_connection_one_stream_pair_per_object() {
    // HTTP/1.0's model (a request and a reply stream per object, `parallel`
    // objects at once) over QUIC is HTTP/3's: one connection, streams
    // multiplexed. Finished streams free their place under the peer's
    // limit of 100, so a session of more objects than that completes.
    let toml = web("10 Mbps", "http = \"1.0\"\npages = 30\nparallel = 6");
    let r = run_quic(&toml, &QuicConfig::default(), 1);
    let f = &r.flows["f"];
    assert!(f.connection_error.is_none(), "{:?}", f.connection_error);
    assert!(f.completion_time_s.is_some());
    let t = serde_json::to_value(f).unwrap();
    let objects = t["objects"].as_array().unwrap();
    assert!(objects.len() > 100, "{}", objects.len());
    let replies: u64 = objects
        .iter()
        .map(|o| o["reply_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(f.bytes_delivered, replies);
    // One connection, opened by the browser (the flow's `to`, B).
    assert_eq!(r.quic.len(), 2);
    let client = r.quic.iter().find(|q| q.end == "client").unwrap();
    assert_eq!(client.node, "B");
    assert_eq!(
        ns(f.handshake_s.unwrap()),
        540_000_000 + 2 * ser(1228, 10_000_000)
    );
    // Every object takes at least one round trip after its request, and
    // the first page's first object two: the handshake, then the request
    // (with the client's Finished) and its reply.
    let first = objects[0]["response_time_s"].as_f64().unwrap();
    assert!((1.080..1.080 + 0.030).contains(&first), "{first}");
    for o in objects {
        assert!(o["response_time_s"].as_f64().unwrap() >= 0.540);
    }
}

#[test]
fn a_cbr_probe_sends_quic_datagrams_once_the_connection_is_up() {
    // 1 Mb/s of 1250 B datagrams (one every 10 ms) for 10 s over QUIC
    // DATAGRAM frames (RFC 9221): congestion controlled, never
    // retransmitted. Those handed over before the handshake completes
    // (0.54 s) wait for it.
    let toml = geo("10 Mbps", None, "").replace("60 s", "10 s").replace(
        "to = \"B\"\n",
        "to = \"B\"\napp = \"cbr\"\ncbr = { rate = \"1 Mbps\", packet = \"1250 B\" }\n",
    );
    // With a window that never limits the probe: after the handshake the
    // 55 waiting datagrams leave at once (paced), then each one within a
    // serialisation of 270 ms. The first waited 541.96 ms.
    let wide = QuicConfig {
        initial_window: Some(1_000_000),
        ..QuicConfig::default()
    };
    let r = run_quic(&toml, &wide, 1);
    let f = &r.flows["f"];
    // At 0, 10 ms, ..., 10 s (the run's last instant included).
    assert_eq!(f.packets_sent, Some(1001));
    let received = f.packets_received.unwrap();
    // Those of the last one-way delay (27 at one per 10 ms) are on the way.
    assert!((970..=975).contains(&received), "{received}");
    let (mean, max) = (f.delay_mean_s.unwrap(), f.delay_max_s.unwrap());
    // Waits of 542 − 10 k ms for k < 55 add some 15 ms to the mean.
    assert!(mean > 0.271 && mean < 0.271 + 0.020, "{mean}");
    assert!(max > 0.812 && max < 0.830, "{max}");
    let client = r.quic.iter().find(|q| q.end == "client").unwrap();
    assert_eq!(client.node, "A");
    assert_eq!(client.stream_frames_sent, 0);
    // quinn's own initial window (14 720 B per 540 ms RTT, some 218 kb/s)
    // holds the probe back until it has grown: a backlog of over a second.
    let d = run_quic(&toml, &QuicConfig::default(), 1);
    assert!(d.flows["f"].delay_max_s.unwrap() > 1.0);
    assert!(d.flows["f"].delay_mean_s.unwrap() > mean);
}

// ---- handshake_s on TCP flows (the key every flow has) ---------------------

fn tcp_run(sets: &[&str]) -> RunResult {
    let mut all = vec!["tcp.profile=studies", "flows.ftp.size=\"100 kB\""];
    all.extend_from_slice(sets);
    let path = format!(
        "{}/../../scenarios/geo_single.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let sets: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    let scn = load_str(&text, "geo_single.toml", &sets).unwrap();
    skyhop::run(&scn, 1, &RunOptions::default()).unwrap()
}

#[test]
fn a_tcp_flow_reports_its_clients_syn_to_syn_ack_time() {
    // geo_single: A - SAT - B, 1 Mb/s and 125 ms per hop. A 40-byte SYN or
    // SYN-ACK: 320 us of serialisation and 125 ms per hop, four hops.
    let hs = |r: &RunResult| r.flows["ftp"].handshake_s;
    assert_eq!(hs(&tcp_run(&[])), Some(0.0), "no handshake: 0");
    let on = tcp_run(&["tcp.handshake=true"]);
    assert_eq!(ns(hs(&on).unwrap()), 4 * (320_000 + 125_000_000));
    // With a proxy at SAT the client's connection ends there: two hops.
    let split = tcp_run(&["tcp.handshake=true", "flows.ftp.proxies=[\"SAT\"]"]);
    assert_eq!(ns(hs(&split).unwrap()), 2 * (320_000 + 125_000_000));
}

#[test]
fn a_split_proxy_on_the_path_passes_a_quic_flow_through() {
    // A - S - B with a split proxy at S: a TCP flow would be two
    // connections; a QUIC flow is one, end to end (its packets are
    // encrypted), and no proxy reports. The handshake crosses both hops.
    let toml = r#"
[run]
duration = "30 s"
[nodes.A]
[nodes.S]
[nodes.B]
[links.up]
between = ["A", "S"]
rate = "10 Mbps"
delay = "125 ms"
[links.down]
between = ["S", "B"]
rate = "10 Mbps"
delay = "145 ms"
[flows.f]
from = "A"
to = "B"
size = "500 kB"
proxies = ["S"]
"#;
    let r = run_quic(toml, &QuicConfig::default(), 1);
    let f = &r.flows["f"];
    assert_eq!(f.bytes_delivered, 500_000);
    assert!(r.proxies.is_empty());
    assert_eq!(r.quic.len(), 2);
    // Store and forward at S: each 1228-byte datagram is serialised twice.
    assert_eq!(
        ns(f.handshake_s.unwrap()),
        540_000_000 + 4 * ser(1228, 10_000_000)
    );
}

#[test]
fn a_quic_flow_crosses_a_moving_leo_network_deterministically() {
    let path = format!(
        "{}/../../scenarios/leo_rome_geometric.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let scn = load_str(
        &text,
        "leo_rome_geometric.toml",
        &["run.duration=\"10 s\"".into()],
    )
    .unwrap();
    let mut plan = Plan::build(&scn, "leo_rome_geometric.toml").unwrap();
    plan.flows[0].quic = Some(QuicConfig::default());
    let go = || run_plan(&plan, 5, &RunOptions::default()).unwrap();
    let (a, b) = (go(), go());
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let f = &a.flows["download"];
    assert!(f.connection_error.is_none(), "{:?}", f.connection_error);
    assert!(f.bytes_delivered > 1_000_000, "{}", f.bytes_delivered);
    // The client (the server host, sending first) and the user in Rome.
    let nodes: Vec<&str> = a.quic.iter().map(|q| q.node.as_str()).collect();
    assert_eq!(nodes, ["server", "Rome"]);
    // Rome to Frankfurt through the shell and back: some 12 ms.
    assert!(
        a.quic[0].min_rtt_s > 0.008 && a.quic[0].min_rtt_s < 0.03,
        "{:?}",
        a.quic
    );
}

#[test]
fn the_ack_frequency_keys_change_how_often_the_receiver_acknowledges() {
    // 2 MB over 10 Mb/s GEO: some 1 400 data datagrams from A. Without
    // the extension B acknowledges every second ack-eliciting packet
    // (RFC 9000 §13.2.2); asked for a threshold of 9 (the scenario key,
    // sent to B in an ACK_FREQUENCY frame), every tenth: a datagram
    // takes 1.2 ms at 10 Mb/s, so ten arrive well within the 25 ms
    // delay and the threshold, not the timer, sends the ACK.
    let toml = |quic: &str| {
        let text = geo("10 Mbps", Some("2 MB"), "queue = 500")
            .replace("[flows.f]\n", "[flows.f]\ntransport = \"quic\"\n")
            + quic;
        let scn = load_str(&text, "ack.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let plan = Plan::build(&scn, "ack.toml").unwrap_or_else(|e| panic!("{e}"));
        run_plan(&plan, 1, &RunOptions::default()).unwrap()
    };
    let ratio = |r: &RunResult| {
        assert_eq!(r.flows["f"].bytes_delivered, 2_000_000);
        let end = |e: &str| r.quic.iter().find(|q| q.end == e).unwrap();
        let (a, b) = (end("client"), end("server"));
        println!(
            "A sent {} datagrams, B {} ACK frames",
            a.datagrams_sent, b.ack_frames_sent
        );
        b.ack_frames_sent as f64 / a.datagrams_sent as f64
    };
    let plain = ratio(&toml(""));
    let sparse = ratio(&toml("[flows.f.quic]\nack_eliciting_threshold = 9\n"));
    assert!((0.45..=0.55).contains(&plain), "{plain}");
    assert!((0.09..=0.12).contains(&sparse), "{sparse}");
}

#[test]
fn the_plan_warns_where_quinn_may_meet_too_many_gaps() {
    // 1 Gb/s, 2 ms each way, a 2000-packet queue: 500 kB in flight over
    // the 4 ms round trip and 2000 queued make 2344 datagrams of 1452 B,
    // more than quinn's 1024 runs; an 8 MB stream window spans
    // 5509 datagrams, more than 2 x 1025. Either below its bound: no
    // warning.
    let warned = |window: &str, queue: u32| {
        let text = format!(
            "[run]\nduration = \"5 s\"\n[nodes.A]\n[nodes.B]\n[links.l]\nbetween = [\"A\", \"B\"]\nrate = \"1 Gbps\"\ndelay = \"2 ms\"\nqueue = {queue}\n[flows.f]\nfrom = \"A\"\nto = \"B\"\ntransport = \"quic\"\n[flows.f.quic]\nstream_window = \"{window}\"\n"
        );
        let scn = load_str(&text, "gaps.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let plan = Plan::build(&scn, "gaps.toml").unwrap_or_else(|e| panic!("{e}"));
        plan.warnings
            .iter()
            .find(|w| w.contains("too many gaps"))
            .cloned()
    };
    let w = warned("8 MB", 2000).expect("a warning");
    assert!(
        w.starts_with("flows.f: quinn may close the connection"),
        "{w}"
    );
    assert!(w.contains("the path holds 2344"), "{w}");
    assert!(w.contains("below 2976600 B"), "{w}");
    // 2 x 1025 x 1452 B = 2 976 600 B: a window just below it spans too
    // few datagrams; a queue of 680 leaves the path 344 + 680 = 1024.
    assert!(warned("2976599 B", 2000).is_none());
    assert!(warned("8 MB", 681).is_some());
    assert!(warned("8 MB", 680).is_none());
}
