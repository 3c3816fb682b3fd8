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
