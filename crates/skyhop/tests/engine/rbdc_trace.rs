//! An idle terminal's first packets under RBDC, traced packet by packet
//! through request, grant and timeslot, times worked out by hand; and the
//! same flight under CRA, which does not wait (docs/VALIDATION.md, E7).
//!
//! The return link (as in `net/rcs2/return_link/tests.rs`): waveform 14
//! (188 bytes per burst) with 184 guard symbols at 360 kbaud, so 5 ms
//! timeslots, 10 per 50 ms superframe on one carrier (300.8 kbit/s);
//! scheduler latency 50 ms; 250 ms each way. The scheduler allocates
//! superframe n at g(n) = 0.05 n − 0.05 − 0.25 s, so that its plan reaches
//! the terminal by the superframe's start; the terminal's signalling
//! timeslot is position 0 of every superframe. The request-to-grant loop
//! T = 0.25 + 0.25 + 0.05 + 0.05 = 0.6 s. The forward direction is a FIFO
//! (the beam has no forward part): 2 Mbit/s, 250 ms.
//!
//! The upload: 14 480 bytes from t1 at 1.012 s, skyhop's linux profile
//! (initial window 10 segments, no handshake, delayed ACKs): ten 1500-byte
//! packets enter the terminal's queue at 1.012 s, each 1 523 burst bytes
//! with its RLE headers (188 + 7 × 188 + 19): 15 230 bytes in all; packet
//! k is complete in burst byte 1 523 (k + 1), in timeslot ⌊(1 523 (k + 1)
//! − 1) / 188⌋ counted from the first the terminal uses (0-based).

use skyhop::net::Payload;
use skyhop::observe::{PacketEvent, PacketEventKind, PacketLogOptions};
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};

const SCN: &str = r#"
[run]
duration = "10 s"
[nodes.server]
[nodes.gw]
[nodes.t1]
[links.core]
between = ["server", "gw"]
rate = "100 Mbps"
delay = "5 ms"
[links.l1]
between = ["gw", "t1"]
rate = "2 Mbps"
delay = "250 ms"
[flows.up]
from = "t1"
to = "server"
start = "1.012 s"
size = "14480 B"
[beams.b]
gateway = "gw"
links = ["l1"]
[beams.b.return]
symbol_rate_mbaud = 0.36
waveform = 14
guard_symbols = 184
frame = "50 ms"
scheduler_latency = "50 ms"
"#;

fn run(extra: &str) -> RunResult {
    run_text(&format!("{SCN}{extra}\n"))
}

fn run_text(text: &str) -> RunResult {
    let scn = load_str(text, "rbdc.toml", &[]).expect("scenario loads");
    let plan = Plan::build(&scn, "rbdc.toml").expect("plan builds");
    let opts = RunOptions {
        packet_log: Some(PacketLogOptions::default()),
        ..Default::default()
    };
    run_plan(&plan, 1, &opts).expect("run succeeds")
}

fn events(r: &RunResult, link: &str, dir: &str, kind: PacketEventKind) -> Vec<PacketEvent> {
    r.packet_log
        .as_ref()
        .unwrap()
        .events
        .iter()
        .filter(|e| {
            let l = &r.links[e.link_dir as usize];
            l.link == link && l.dir == dir && e.kind == kind
        })
        .copied()
        .collect()
}

/// When data packet `k` (sequence 1448 k, first transmission) reached the gateway.
fn at_gateway(r: &RunResult, k: u64) -> f64 {
    events(r, "l1", "reverse", PacketEventKind::Arrive)
        .iter()
        .find_map(|e| match e.payload {
            Payload::Data(d) if d.seq == 1448 * k && !d.retx => Some(e.t.as_secs_f64()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("packet {k} never reached the gateway"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The grants table's rows of t1 with timeslots: (superframe start, RBDC
/// rate the gateway holds, RBDC timeslots).
fn rbdc_grants(r: &RunResult) -> Vec<(f64, f64, u64)> {
    r.media["b"].values["grants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["rbdc_slots"].as_f64().unwrap() > 0.0)
        .map(|g| {
            (
                g["t_s"].as_f64().unwrap(),
                g["rbdc_requested_bps"].as_f64().unwrap(),
                g["rbdc_slots"].as_f64().unwrap() as u64,
            )
        })
        .collect()
}

#[test]
fn under_cra_the_first_flight_goes_in_the_next_timeslots() {
    // CRA of the whole carrier: 10 timeslots in every superframe, from the
    // start. The packets arrive at 1.012 s; the next timeslot starts at
    // 1.015 s. Packet 0 ends in timeslot 8 (1 523 bytes): 1.015 + 8 × 0.005
    // = 1.055, burst end 1.060, at the gateway 250 ms later.
    let r = run("cra = \"300.8 kbps\"");
    assert!(close(at_gateway(&r, 0), 1.310), "{}", at_gateway(&r, 0));
    // Packet 1 ends in timeslot 16: seven timeslots left in superframe 20
    // (1.015–1.045), then superframe 21's position 9: 1.095–1.100.
    assert!(close(at_gateway(&r, 1), 1.350));
    // Packet 2, timeslot 24: superframe 22's position 7, 1.135–1.140.
    assert!(close(at_gateway(&r, 2), 1.390));
    // Packet 9, timeslot 81: superframe 28's position 4, 1.420–1.425; the
    // server has it 5 ms + 120 µs (1 500 bytes at 100 Mbit/s) after the
    // gateway: completion 1.680 12 − 1.012 s.
    assert!(close(at_gateway(&r, 9), 1.675));
    let done = r.flows["up"].completion_time_s.unwrap();
    assert!(close(done, 0.668_12), "{done}");
    // No RBDC, and no probe: the first ACK is back long before 1 s.
    assert!(rbdc_grants(&r).is_empty());
    assert!(events(&r, "l1", "reverse", PacketEventKind::Enqueue)
        .iter()
        .all(|e| matches!(e.payload, Payload::Data(d) if !d.retx)));
}

#[test]
fn under_rbdc_an_idle_terminals_first_flight_waits_one_request_grant_loop() {
    let r = run("rbdc_max = \"300.8 kbps\"");
    // Request. The terminal's next signalling timeslot after 1.012 s is at
    // 1.050 s (position 0 of superframe 21). Since the last request (1.000 s,
    // w = 0.05 s) a = 15 230 bytes arrived, q = 15 230 are queued:
    // r = 8a/w + 8q/T = 2 436 800 + 203 066.7 bit/s, held to the maximum,
    // 300 800. It reaches the gateway after the timeslot and the trip up:
    // 1.050 + 0.005 + 0.250 = 1.305 s.
    // Grant. The first allocation after 1.305 s is superframe 33's, at
    // g(33) = 1.65 − 0.30 = 1.35 s; its plan reaches the terminal by 1.65 s.
    // The next requests (1.100 s, 1.150 s, …: nothing arrived, the same 15 230
    // bytes queued) ask 8q/T = 203 066.7 bit/s, 6.75 timeslots a
    // superframe: 7, 7, 7, 7, 6, … (the fraction carried as credit).
    let g = rbdc_grants(&r);
    assert_eq!(
        (g[0].0, g[0].1, g[0].2),
        (1.65, 300_800.0, 10),
        "the first grant: {:?}",
        g[0]
    );
    let q_over_t = 8.0 * 15_230.0 / 0.6;
    assert!(close(g[1].0, 1.70) && (g[1].1 - q_over_t).abs() < 1e-6 && g[1].2 == 7);
    let slots: Vec<u64> = g.iter().take(11).map(|x| x.2).collect();
    assert_eq!(slots, [10, 7, 7, 7, 7, 6, 7, 7, 7, 6, 7]);
    // Timeslots. Packet 0 ends in the first superframe's timeslot 8:
    // 1.690–1.695, at the gateway 1.945 s; under CRA it was there at 1.310:
    // 0.635 s later, the request/grant loop less CRA's own wait for a
    // timeslot (3 ms): 38 ms to the signalling timeslot, 5 ms in it, 250 ms
    // up, 45 ms to the scheduler's allocation, 50 ms of scheduler latency
    // (the plan's lead) and 250 ms down.
    assert!(close(at_gateway(&r, 0), 1.945), "{}", at_gateway(&r, 0));
    let cra = run("cra = \"300.8 kbps\"");
    let lag = at_gateway(&r, 0) - at_gateway(&cra, 0);
    assert!(
        close(lag, 0.038 + 0.005 + 0.25 + 0.045 + 0.05 + 0.25 - 0.003),
        "{lag}"
    );
    // Packet 1, timeslot 16: the second superframe's (1.70 s) 7th, 1.730–1.735.
    assert!(close(at_gateway(&r, 1), 1.985));
    // Packet 2, timeslot 24: the fourth superframe's (1.80 s) first.
    assert!(close(at_gateway(&r, 2), 2.055));
    // Packet 9, timeslot 81: 10 + 7 + 7 + 7 + 7 + 6 + 7 + 7 + 7 + 6 + 7 = 78
    // before superframe 2.20 s, its position 3: 2.215–2.220, at the gateway
    // 2.470 s, at the server 2.475 12 s. The loop costs the first packet
    // 0.635 s; draining the flight at 8q/T (7 timeslots a superframe in
    // place of 10) costs the last 0.16 s more.
    assert!(close(at_gateway(&r, 9), 2.470));
    let done = r.flows["up"].completion_time_s.unwrap();
    assert!(close(done, 1.463_12), "{done}");
    // The first ACK (for two segments, delayed-ACK rule) leaves the server
    // when packet 1 arrives, 1.985 + 0.005 12 s, and reaches the terminal
    // 5 ms + 4.16 µs (52 bytes at 100 Mbit/s) + 208 µs (at 2 Mbit/s) +
    // 250 ms later: 2.245 332 16 s, 1.233 s after the flight was sent —
    // more than the 1 s a sender waits without an RTT sample (RFC 8985
    // §7.2, RFC 6298 §2.1): at 1.012 + 1 s its loss probe resends the last
    // segment, which then queues behind the flight for timeslots.
    let acks = events(&r, "l1", "forward", PacketEventKind::Arrive);
    assert!(
        close(acks[0].t.as_secs_f64(), 2.245_332_16),
        "{:?}",
        acks[0].t
    );
    let retx: Vec<(f64, u64)> = events(&r, "l1", "reverse", PacketEventKind::Enqueue)
        .iter()
        .filter_map(|e| match e.payload {
            Payload::Data(d) if d.retx => Some((e.t.as_secs_f64(), d.seq)),
            _ => None,
        })
        .collect();
    assert_eq!(retx.len(), 1, "{retx:?}");
    assert!(close(retx[0].0, 2.012) && retx[0].1 == 9 * 1448, "{retx:?}");
}

#[test]
fn each_link_direction_reports_its_own_rate() {
    // The member link's return direction carries at the return link's
    // rate (10 timeslots of 188 bytes per 50 ms: 300.8 kbit/s), its forward
    // direction (no forward part in this beam) at its own 2 Mbit/s; a plain
    // link with `reverse.rate` reports each direction's rate.
    let text = format!(
        "{}rbdc_max = \"300.8 kbps\"\n",
        SCN.replace(
            "delay = \"5 ms\"\n",
            "delay = \"5 ms\"\nreverse.rate = \"50 Mbps\"\n"
        )
    );
    let r = run_text(&text);
    let rate = |link: &str, dir: &str| {
        r.links
            .iter()
            .find(|l| l.link == link && l.dir == dir)
            .unwrap()
            .rate_bps
    };
    assert_eq!(rate("core", "forward"), 100_000_000);
    assert_eq!(rate("core", "reverse"), 50_000_000);
    assert_eq!(rate("l1", "forward"), 2_000_000);
    assert_eq!(rate("l1", "reverse"), 300_800);
}
