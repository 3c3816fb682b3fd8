//! Golden per-run results, frozen bit for bit.
//!
//! Each case is a seeded scenario; its whole result (every per-flow and
//! per-leg metric, proxy statistics, engine counters, and with traces the
//! cwnd series) is serialised to JSON and compared with the file under
//! `tests/engine/golden/`. Floats are written in shortest round-trip form, so string
//! equality is bit equality. A refactor must keep these identical; a change
//! is a behaviour change and lands in its own commit with the reason.
//!
//! Regenerate (after a deliberate change): `SKYHOP_BLESS=1 cargo test --release --test engine golden::`.

use crate::common;

use skyhop::scenario::load_str;
use skyhop::{run, RunOptions};

const CHAIN: &str = r#"
[run]
duration = "120 s"
[nodes.W]
[nodes.U]
[nodes.T]
[nodes.S]
[nodes.G]
[links.wu]
between = ["W", "U"]
rate = "1 Mbps"
delay = "2 ms"
per = 0.01
[links.ut]
between = ["U", "T"]
rate = "1 Mbps"
delay = "2 ms"
[links.ts]
between = ["T", "S"]
rate = "1 Mbps"
delay = "125 ms"
ber = 1e-6
[links.sg]
between = ["S", "G"]
rate = "1 Mbps"
delay = "125 ms"
per = 0.002
[flows.ftp]
from = "W"
to = "G"
size = "1 MB"
"#;

const TWO_FLOWS: &str = r#"
[run]
duration = "60 s"
[nodes.A]
[nodes.B]
[nodes.R]
[nodes.D]
[links.ar]
between = ["A", "R"]
rate = "10 Mbps"
delay = "5 ms"
[links.br]
between = ["B", "R"]
rate = "10 Mbps"
delay = "40 ms"
[links.rd]
between = ["R", "D"]
rate = "2 Mbps"
delay = "125 ms"
queue = 20
errors_apply_to = "data"
per = 0.003
[flows.one]
from = "A"
to = "D"
tcp = "sack"
[flows.two]
from = "B"
to = "D"
tcp = "westwood"
start = "3 s"
size = "2 MB"
"#;

struct Case {
    name: &'static str,
    base: &'static str,
    sets: &'static [&'static str],
    seed: u64,
    trace: bool,
}

const fn case(name: &'static str, base: &'static str, sets: &'static [&'static str]) -> Case {
    Case {
        name,
        base,
        sets,
        seed: 7,
        trace: false,
    }
}

fn cases() -> Vec<Case> {
    let mut v = vec![
        case("chain_tahoe", CHAIN, &["flows.ftp.tcp=tahoe"]),
        case("chain_reno", CHAIN, &["flows.ftp.tcp=reno"]),
        case("chain_newreno", CHAIN, &["flows.ftp.tcp=newreno"]),
        case("chain_newreno_sbs", CHAIN, &["flows.ftp.tcp=newreno-sbs"]),
        case("chain_sack", CHAIN, &["flows.ftp.tcp=sack"]),
        case("chain_westwood", CHAIN, &["flows.ftp.tcp=westwood"]),
        case("chain_westwood_plus", CHAIN, &["flows.ftp.tcp=westwood+"]),
        case(
            "chain_westwood_sack",
            CHAIN,
            &["flows.ftp.tcp=westwood-sack"],
        ),
        case(
            "chain_westwood_plus_sack",
            CHAIN,
            &["flows.ftp.tcp=westwood+-sack"],
        ),
        case(
            "chain_westwood_latest_sample",
            CHAIN,
            &[
                "flows.ftp.tcp=westwood",
                "tcp.westwood_filter=latest-sample",
            ],
        ),
        case(
            "split_half_free_T",
            CHAIN,
            &[
                "flows.ftp.proxies=[\"T\"]",
                "nodes.T.proxy.cache_packets=60",
            ],
        ),
        case(
            "split_third_TS_legs",
            CHAIN,
            &[
                "flows.ftp.proxies=[\"T\", \"S\"]",
                "flows.ftp.legs=[\"westwood\", \"sack\", \"newreno\"]",
                "nodes.S.proxy.policy=third",
                "nodes.S.proxy.cache_packets=40",
            ],
        ),
        case(
            "split_third_ack_after_forward",
            CHAIN,
            &[
                "flows.ftp.proxies=[\"S\"]",
                "nodes.S.proxy.policy=third",
                "nodes.S.proxy.cache_packets=63",
                "nodes.S.proxy.ack_after_forward=true",
            ],
        ),
        case(
            "split_buffers",
            CHAIN,
            &[
                "flows.ftp.proxies=[\"T\"]",
                "nodes.T.proxy.policy=buffers",
                "nodes.T.proxy.recv_buffer=\"64 kB\"",
                "nodes.T.proxy.send_buffer=\"32 kB\"",
                "flows.ftp.tcp=sack",
            ],
        ),
        case(
            "handshake_split",
            CHAIN,
            &[
                "tcp.handshake=true",
                "flows.ftp.proxies=[\"T\"]",
                "links.ut.forward.drop_segments=[0]",
            ],
        ),
        case(
            "delayed_ack_newreno",
            CHAIN,
            &["tcp.delayed_ack=true", "tcp.initial_window=3"],
        ),
        case(
            "small_rcv_buffer_bulk",
            CHAIN,
            &[
                "flows.ftp.size=unlimited",
                "run.duration=\"40 s\"",
                "tcp.rcv_buffer=\"20 kB\"",
            ],
        ),
        case(
            "drop_list_sack",
            CHAIN,
            &[
                "flows.ftp.tcp=sack",
                "links.wu.per=0",
                "links.ts.ber=0",
                "links.sg.per=0",
                "links.ts.forward.drop_segments=[14600, 17520, 20440]",
            ],
        ),
        case(
            "drop_list_newreno_impatient",
            CHAIN,
            &[
                "flows.ftp.tcp=newreno",
                "links.wu.per=0",
                "links.ts.ber=0",
                "links.sg.per=0",
                "links.ts.forward.drop_segments=[29200, 32120, 35040, 37960, 40880, 43800]",
            ],
        ),
        case(
            "drop_list_newreno_sbs",
            CHAIN,
            &[
                "flows.ftp.tcp=newreno-sbs",
                "links.wu.per=0",
                "links.ts.ber=0",
                "links.sg.per=0",
                "links.ts.forward.drop_segments=[29200, 32120, 35040, 37960, 40880, 43800]",
            ],
        ),
        // ns-2's TCP (`tcp.profile=ns2`, docs/ns2.md): its agents, the
        // tick-granular timer, the 2001 Westwood, maxburst_ and the eras'
        // switches.
        case(
            "chain_ns2_newreno_sbs",
            CHAIN,
            &["tcp.profile=ns2", "flows.ftp.tcp=newreno-sbs"],
        ),
        case(
            "chain_ns2_sack1",
            CHAIN,
            &["tcp.profile=ns2", "flows.ftp.tcp=sack"],
        ),
        case(
            "chain_ns2_westwood_2001",
            CHAIN,
            &["tcp.profile=ns2", "flows.ftp.tcp=westwood-2001"],
        ),
        case(
            "drop_list_ns2_2001_deflation",
            CHAIN,
            &[
                "tcp.profile=ns2",
                "flows.ftp.tcp=newreno",
                "tcp.rtt_tick=\"100 ms\"",
                "tcp.rto_min_before_backoff=false",
                "tcp.limited_transmit=false",
                "tcp.partial_window_deflation=true",
                "links.wu.per=0",
                "links.ts.ber=0",
                "links.sg.per=0",
                "links.ts.forward.drop_segments=[29200, 32120, 35040, 37960, 40880, 43800]",
            ],
        ),
        case(
            "split_ns2_T_maxburst",
            CHAIN,
            &[
                "tcp.profile=ns2",
                "flows.ftp.proxies=[\"T\"]",
                "tcp.maxburst=4",
            ],
        ),
        case("two_flows", TWO_FLOWS, &[]),
        case(
            "two_flows_acks_lossy",
            TWO_FLOWS,
            &["links.rd.errors_apply_to=acks", "links.rd.per=0.02"],
        ),
    ];
    v.push(Case {
        name: "traced_split_westwood",
        base: CHAIN,
        sets: &[
            "flows.ftp.tcp=westwood",
            "flows.ftp.proxies=[\"T\"]",
            "flows.ftp.size=\"300 kB\"",
        ],
        seed: 3,
        trace: true,
    });
    v
}

fn render(c: &Case) -> String {
    // The golden runs freeze the studies' era machinery (`profile =
    // "studies"`), whatever the default profile; cases under today's
    // defaults name `tcp.profile=linux` among their sets, which come after
    // (and ns-2's, `tcp.profile=ns2`).
    let sets: Vec<String> = std::iter::once("tcp.profile=studies")
        .chain(c.sets.iter().copied())
        .map(|s| s.to_string())
        .collect();
    let scn = load_str(c.base, c.name, &sets).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let r = run(
        &scn,
        c.seed,
        &RunOptions {
            trace: c.trace,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let mut s = serde_json::to_string_pretty(&r).unwrap();
    s.push('\n');
    s
}

#[test]
fn golden_results_are_unchanged() {
    let dir = format!("{}/tests/engine/golden", env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("SKYHOP_BLESS").is_some();
    let cs = cases();
    let outs = common::par_map(&cs, render);
    let mut changed = Vec::new();
    for (c, out) in cs.iter().zip(outs) {
        let path = format!("{dir}/{}.json", c.name);
        if bless {
            std::fs::write(&path, &out).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e} (bless with SKYHOP_BLESS=1)"));
        if want != out {
            let line = want
                .lines()
                .zip(out.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            changed.push(format!(
                "{} (first difference at line {}: want {:?}, got {:?})",
                c.name,
                line + 1,
                want.lines().nth(line).unwrap_or(""),
                out.lines().nth(line).unwrap_or("")
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "golden results changed:\n{}",
        changed.join("\n")
    );
}
