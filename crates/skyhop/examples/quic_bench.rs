//! `cargo run --release --example quic_bench [-- --repeat N] [--case NAME]`: the speed
//! of QUIC flows (quinn-proto in virtual time, both endpoints, the world
//! around them): processor time per QUIC datagram (both directions, the
//! encryption included) and simulated seconds per second of processor
//! time, on three cases. Processor time of this process (not wall time:
//! the machine may be shared), best of N.
//!
//! - `geo-20/2`: the satellite case of the QUIC study (20 Mb/s down,
//!   2 Mb/s up, 600 ms RTT, a 25-packet queue), 10 MiB, quinn NewReno.
//! - `geo-100`: 100 Mb/s GEO (270 ms each way), 60 s of bulk, CUBIC.
//! - `lan-1g`: 1 Gb/s, 1 ms each way, 5 s of bulk, CUBIC (quinn's
//!   windows; its 1.25 MB stream window is five times the path's
//!   bandwidth-delay product, and below the 2000-packet queue).

use skyhop::quic::{QuicConfig, QuicController};
use skyhop::scenario::{load_str, Plan};

fn cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer to a timespec the call fills.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn case(name: &str, toml: &str, cfg: QuicConfig, repeat: usize) {
    let only: Vec<String> = std::env::args()
        .skip_while(|a| a != "--case")
        .skip(1)
        .take(1)
        .collect();
    if only.first().is_some_and(|c| c != name) {
        return;
    }
    let scn = load_str(toml, name, &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut plan = Plan::build(&scn, name).unwrap_or_else(|e| panic!("{e}"));
    plan.flows[0].quic = Some(cfg);
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..repeat {
        let t0 = cpu_s();
        let r = skyhop::sim::run_plan(&plan, 1, &skyhop::RunOptions::default()).unwrap();
        best = best.min(cpu_s() - t0);
        out = Some(r);
    }
    let r = out.unwrap();
    let dgrams: u64 = r.quic.iter().map(|q| q.datagrams_sent).sum();
    let f = &r.flows["f"];
    println!(
        "{name}: {dgrams} datagrams, {} events, {:.3} s simulated, goodput {:.2} Mb/s; \
         {:.3} CPU-s: {:.2} us per datagram, {:.0} simulated s per CPU-s (best of {repeat})",
        r.engine.events,
        r.engine.sim_time_s,
        f.goodput_bps / 1e6,
        best,
        best / dgrams as f64 * 1e6,
        r.engine.sim_time_s / best,
    );
    if let Some(e) = &f.connection_error {
        println!("  closed by quinn: {e}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let repeat = match args.iter().position(|a| a == "--repeat") {
        Some(i) => args[i + 1].parse().expect("--repeat N"),
        None => 3,
    };
    let geo_20_2 = r#"
[run]
duration = "120 s"
[nodes.A]
[nodes.B]
[links.sat]
between = ["A", "B"]
delay = "300 ms"
queue = 25
forward = { rate = "20 Mbps" }
reverse = { rate = "2 Mbps" }
[flows.f]
from = "A"
to = "B"
size = "10 MiB"
"#;
    let newreno = QuicConfig {
        controller: QuicController::NewReno,
        ..QuicConfig::default()
    };
    case("geo-20/2", geo_20_2, newreno, repeat);
    let geo_100 = r#"
[run]
duration = "60 s"
[nodes.A]
[nodes.B]
[links.sat]
between = ["A", "B"]
rate = "100 Mbps"
delay = "270 ms"
queue = 4000
[flows.f]
from = "A"
to = "B"
"#;
    case("geo-100", geo_100, QuicConfig::default(), repeat);
    let lan = r#"
[run]
duration = "5 s"
[nodes.A]
[nodes.B]
[links.l]
between = ["A", "B"]
rate = "1 Gbps"
delay = "1 ms"
queue = 2000
[flows.f]
from = "A"
to = "B"
"#;
    case("lan-1g", lan, QuicConfig::default(), repeat);
}
