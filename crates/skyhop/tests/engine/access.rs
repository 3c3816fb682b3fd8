//! The Starlink access network in a run, exactly: a terminal in Rome on
//! Starlink's first shell, three gateways (Milano, Marsala, Frankfurt) with
//! fibre to the Frankfurt PoP and a server behind it.
//! - The terminal's serving satellite changes only at epoch boundaries:
//!   every packet the dish sends goes to the satellite the epoch's plan
//!   names for the instant it is sent, and the routes change only at the
//!   boundaries (12, 27, 42, 57 s).
//! - A bent-pipe path's delay is the terminal–satellite–gateway slant
//!   ranges plus the fibre: each downlink probe reaches the dish when the
//!   delays of its hops, computed here from the positions at the instants
//!   its last bit leaves each node, say (to the nanosecond, ±2 ns for the
//!   engine's interpolated orbits).
//! - The reconfiguration interrupts the access link: every probe leaves
//!   the access link at the end of the first 750 Hz frame it may use — on
//!   the uplink after its 17 ms grant, and never in a frame starting within
//!   140 ms after a boundary — computed here frame by frame.
//!
//! The run is simulated once and read by each test. Its plan comes from a
//! scenario with the engine's own keys (no preset); the access network is
//! attached in Rust, so these tests hold the engine to the hand-worked
//! figures independently of `scenario/plan/access.rs`.
//! Routes are recomputed every 100 ms, so that the shortest-delay trees
//! alone would move the terminal between satellites within an epoch: the
//! epoch plan written over them is what holds it.

use skyhop::engine::time::{Dur, Time};
use skyhop::geo::delay_of;
use skyhop::mobility::ground::{site, terrestrial_delay, SiteKind, ROUTE_FACTOR};
use skyhop::net::access::{
    AccessNet, BeamShare, EpochClock, GatewaySpec, SchedulerParams, TerminalSpec,
};
use skyhop::net::{LinkLayerSpec, Payload};
use skyhop::observe::{PacketEventKind, PacketLogOptions};
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};
use std::sync::Arc;

const GATEWAYS: [&str; 3] = ["Milano", "Marsala", "Frankfurt"];

fn fibre(gw: &str) -> Dur {
    let g = site(SiteKind::Gateway, gw).unwrap();
    let p = site(SiteKind::Pop, "FRA").unwrap();
    terrestrial_delay((g.lat_deg, g.lon_deg), (p.lat_deg, p.lon_deg), ROUTE_FACTOR)
}

fn scenario() -> String {
    let mut s = String::from(
        r#"
name = "access"
[run]
duration = "60 s"
[nodes.Rome]
lat = 41.9028
lon = 12.4964
[nodes.Rome-dish]
lat = 41.9028
lon = 12.4964
[nodes.server]
[nodes.pop-FRA]
lat = 50.12
lon = 8.73
[constellation]
preset = "starlink-550"
ground = ["Rome-dish", "gw-Milano", "gw-Marsala", "gw-Frankfurt"]
isl = { rate = "10 Gbps", queue = 100 }
gsl = { rate = "10 Gbps", queue = 1000 }
[routing]
update = "100 ms"
[links.access]
between = ["Rome", "Rome-dish"]
rate = "200 Mbps"
delay = "0 s"
queue = 1500
forward = { rate = "20 Mbps" }
link_layer = { model = "starlink-access" }
[links.pop]
between = ["pop-FRA", "server"]
rate = "10 Gbps"
delay = "1 ms"
[flows.down]
from = "server"
to = "Rome"
app = "cbr"
cbr = { rate = "80 kbps", packet = "100 B" }
[flows.up]
from = "Rome"
to = "server"
app = "cbr"
cbr = { rate = "80 kbps", packet = "100 B" }
start = "3 ms"
"#,
    );
    for gw in GATEWAYS {
        let g = site(SiteKind::Gateway, gw).unwrap();
        s += &format!(
            "[nodes.gw-{gw}]\nlat = {}\nlon = {}\n[links.fibre-{gw}]\nbetween = [\"gw-{gw}\", \"pop-FRA\"]\nrate = \"100 Gbps\"\ndelay = \"{} ns\"\n",
            g.lat_deg,
            g.lon_deg,
            fibre(gw).0
        );
    }
    s
}

/// The plan with its access network attached.
fn plan() -> (Plan, Arc<AccessNet>) {
    let scn = load_str(&scenario(), "access.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut plan = Plan::build(&scn, "access.toml").unwrap_or_else(|e| panic!("{e}"));
    let idx = |n: &str| plan.nodes.iter().position(|x| x == n).unwrap() as u32;
    let (rome, dish, pop) = (idx("Rome"), idx("Rome-dish"), idx("pop-FRA"));
    let gateways: Vec<GatewaySpec> = GATEWAYS
        .iter()
        .map(|gw| GatewaySpec {
            node: idx(&format!("gw-{gw}")),
            min_elevation_deg: 25.0,
            antennas: 8,
            fibre: vec![fibre(gw)],
        })
        .collect();
    let m = plan.motion.as_mut().unwrap();
    let net = Arc::new(AccessNet::new(
        m.positions.clone(),
        m.gsls[0].sats.clone(),
        &m.isls,
        vec![pop],
        gateways,
        vec![TerminalSpec {
            host: rome,
            dish,
            pop: 0,
        }],
        SchedulerParams {
            clock: EpochClock::STARLINK,
            min_elevation_deg: 25.0,
            isl_hops: 4,
        },
    ));
    m.access = Some(net.clone());
    let k = plan.layers.iter().position(|l| l.name == "access").unwrap();
    match &mut plan.layers[k].spec {
        LinkLayerSpec::StarlinkAccess(s) => {
            s.beam = Some(BeamShare {
                net: net.clone(),
                terminal: 0,
            })
        }
        _ => unreachable!(),
    }
    (plan, net)
}

/// The run every test of it reads (simulated once per test process).
fn run() -> &'static (Plan, Arc<AccessNet>, RunResult) {
    static RUN: std::sync::OnceLock<(Plan, Arc<AccessNet>, RunResult)> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let (plan, net) = plan();
        let opts = RunOptions {
            packet_log: Some(PacketLogOptions::default()),
            ..Default::default()
        };
        let r = run_plan(&plan, 7, &opts).unwrap();
        (plan, net, r)
    })
}

fn boundary_near(t: Time, within: Dur) -> bool {
    [12, 27, 42, 57].iter().any(|&b| {
        let b = Time(b * 1_000_000_000);
        t.since(b) < within && b.since(t) < within
    })
}

#[test]
fn the_serving_satellite_changes_only_at_epoch_boundaries() {
    let (plan, net, r) = run();
    let m = plan.motion.as_ref().unwrap();
    let name = |n: u32| {
        plan.nodes
            .iter()
            .chain(m.extra_nodes.iter())
            .nth(n as usize)
            .unwrap()
            .clone()
    };
    let log = r.packet_log.as_ref().unwrap();
    let mut checked = 0;
    let mut served = std::collections::BTreeSet::new();
    for e in &log.events {
        let l = &r.links[e.link_dir as usize];
        if e.kind != PacketEventKind::Enqueue || l.from != "Rome-dish" || l.to == "Rome" {
            continue;
        }
        // The dish sends to the satellite of the epoch holding the instant.
        let a = net.plan_at(Dur(e.t.0)).terminals[0].clone().unwrap();
        assert_eq!(l.to, name(a.sat), "t = {:?}", e.t);
        served.insert((net.params.clock.index_at(Dur(e.t.0)), l.to.clone()));
        checked += 1;
    }
    // 100 B every 10 ms for 60 s, each through the dish once.
    assert!(checked >= 5990, "{checked}");
    // One satellite per epoch, and it did change.
    let epochs: std::collections::BTreeSet<u64> = served.iter().map(|s| s.0).collect();
    assert_eq!(epochs.len(), 5);
    assert_eq!(served.len(), 5);
    let sats: std::collections::BTreeSet<&String> = served.iter().map(|s| &s.1).collect();
    assert!(sats.len() >= 2, "{served:?}");
    // Route changes and epoch events only at boundaries.
    assert!(r
        .network_events
        .iter()
        .filter(|e| e.kind == "route" || e.kind == "epoch")
        .all(|e| [0.0, 12.0, 27.0, 42.0, 57.0].contains(&e.t_s)));
    let epochs: Vec<_> = r
        .network_events
        .iter()
        .filter(|e| e.kind == "epoch")
        .collect();
    assert_eq!(epochs.len(), 5);
    for e in &epochs {
        let a = net.plan_at(Dur::from_secs_f64(e.t_s)).terminals[0]
            .clone()
            .unwrap();
        let path: Vec<String> = a.path.iter().map(|&n| name(n)).collect();
        assert_eq!(e.new, path.join(","));
        assert_eq!(e.delay_s, Some(a.delay.as_secs_f64()));
        assert_eq!(e.node, "Rome");
    }
    assert_eq!(r.flows["up"].packets_lost, Some(0));
    assert_eq!(r.flows["down"].packets_lost, Some(0));
}

#[test]
fn a_bent_pipe_path_takes_the_slant_ranges_and_the_fibre_computed_by_hand() {
    let (plan, net, r) = run();
    let m = plan.motion.as_ref().unwrap();
    let node = |name: &str| -> u32 {
        plan.nodes
            .iter()
            .chain(m.extra_nodes.iter())
            .position(|x| x == name)
            .unwrap() as u32
    };
    let pos = |n: u32, t: Time| m.positions.position(n, t.as_secs_f64());
    let log = r.packet_log.as_ref().unwrap();
    let down = plan.flows.iter().position(|f| f.name == "down").unwrap() as u32;
    // Per downlink datagram: the gateway it landed at and its arrival at the dish.
    let mut via = std::collections::BTreeMap::new();
    let mut at_dish = std::collections::BTreeMap::new();
    for e in &log.events {
        let Payload::Datagram { sent_at, .. } = e.payload else {
            continue;
        };
        if e.conn != down {
            continue;
        }
        let l = &r.links[e.link_dir as usize];
        if e.kind == PacketEventKind::Enqueue && l.from.starts_with("gw-") {
            via.insert(sent_at.0, (l.from.clone(), l.to.clone()));
        }
        if e.kind == PacketEventKind::Arrive && l.to == "Rome-dish" {
            at_dish.insert(sent_at.0, e.t);
        }
    }
    let tx = |bytes: u64, bps: u64| Dur(bytes * 8 * 1_000_000_000 / bps);
    let (mut checked, mut worst) = (0, 0i64);
    for (&sent, (gw, sat)) in &via {
        let t0 = Time(sent);
        if boundary_near(t0, Dur::from_millis(50)) {
            continue;
        }
        // The path of the epoch: this satellite and gateway.
        let a = net.plan_at(Dur(sent)).terminals[0].clone().unwrap();
        assert_eq!(a.path[1], node(sat), "t = {sent}");
        assert_eq!(a.path[a.path.len() - 2], node(gw));
        assert_eq!(a.isl_hops, 0, "a bent pipe over Italy");
        // server → PoP: 100 B at 10 Gb/s, 1 ms.
        let t1 = t0 + tx(100, 10_000_000_000) + Dur::from_millis(1);
        // PoP → gateway: 100 Gb/s, the fibre.
        let t2 = t1 + tx(100, 100_000_000_000) + fibre(&gw[3..]);
        // Gateway → satellite: its last bit leaves at e2, then the slant range.
        let e2 = t2 + tx(100, 10_000_000_000);
        let t3 = e2 + delay_of(pos(node(gw), e2).distance(pos(node(sat), e2)));
        // Satellite → dish.
        let e3 = t3 + tx(100, 10_000_000_000);
        let t4 = e3 + delay_of(pos(node(sat), e3).distance(pos(node("Rome-dish"), e3)));
        let got = at_dish[&sent];
        let diff = got.0 as i64 - t4.0 as i64;
        assert!(
            diff.abs() <= 2,
            "t = {sent}: skyhop {got:?}, by hand {t4:?}"
        );
        worst = worst.max(diff.abs());
        checked += 1;
    }
    assert!(checked >= 5900, "{checked}");
    eprintln!("{checked} downlink probes, worst difference {worst} ns");
}

/// Frame k of the 750 Hz access link starts at ⌊k · 4 000 000 / 3⌋ ns.
fn frame(k: u64) -> Time {
    Time(k * 4_000_000 / 3)
}

/// The access link's first usable frame starting at or after `t`: frames
/// starting within 140 ms after a boundary (12, 27, 42, 57 s) carry nothing.
fn usable_frame(t: Time) -> u64 {
    let mut k = (t.0 * 3).div_ceil(4_000_000);
    for b in [12u64, 27, 42, 57] {
        let (from, to) = (b * 1_000_000_000, b * 1_000_000_000 + 140_000_000);
        if (from..to).contains(&frame(k).0) {
            k = (to * 3).div_ceil(4_000_000);
        }
    }
    k
}

#[test]
fn the_access_link_stops_for_the_reconfiguration_and_grants_the_uplink_as_computed_by_hand() {
    let (plan, _, r) = run();
    let log = r.packet_log.as_ref().unwrap();
    let flow = |n: &str| plan.flows.iter().position(|f| f.name == n).unwrap() as u32;
    let (up, down) = (flow("up"), flow("down"));
    // Per datagram: when it entered the access link and when it left it.
    let mut entered = std::collections::BTreeMap::new();
    let mut left = std::collections::BTreeMap::new();
    for e in &log.events {
        let Payload::Datagram { sent_at, .. } = e.payload else {
            continue;
        };
        let l = &r.links[e.link_dir as usize];
        let access = |from: &str, to: &str| l.from == from && l.to == to;
        let key = (e.conn, sent_at.0);
        match e.kind {
            PacketEventKind::Enqueue if e.conn == up && access("Rome", "Rome-dish") => {
                entered.insert(key, e.t);
            }
            PacketEventKind::Arrive if e.conn == up && access("Rome", "Rome-dish") => {
                left.insert(key, e.t);
            }
            PacketEventKind::Arrive if e.conn == down && l.to == "Rome-dish" => {
                entered.insert(key, e.t);
            }
            PacketEventKind::Arrive if e.conn == down && access("Rome-dish", "Rome") => {
                left.insert(key, e.t);
            }
            _ => {}
        }
    }
    let (mut held, mut checked) = ([0u32; 2], [0u32; 2]);
    for (&(conn, sent), &t) in &entered {
        let Some(&got) = left.get(&(conn, sent)) else {
            // Still on its way when the run stops.
            assert!(t > Time::from_secs_f64(59.95), "{t:?}");
            continue;
        };
        // 100 B every 10 ms: one frame carries every packet waiting (at
        // most 15 after a pause), so each leaves at the end of the first
        // usable frame after it may go: its arrival on the downlink, its
        // arrival plus the 17 ms grant on the uplink.
        let uplink = conn == up;
        let ready = if uplink { t + Dur::from_millis(17) } else { t };
        let k = usable_frame(ready);
        assert_eq!(got, frame(k + 1), "uplink {uplink}, sent at {sent} ns");
        let i = usize::from(uplink);
        checked[i] += 1;
        if k != (ready.0 * 3).div_ceil(4_000_000) {
            held[i] += 1;
        }
    }
    // 6 000 datagrams each way, of which the pauses at 12, 27, 42 and 57 s
    // held 4 × 14 (the uplink: sent in the 140 ms up to 17 ms before each
    // pause's end) or 4 × 14 (downlink) — none lost.
    assert!(checked.iter().all(|&c| c >= 5990), "{checked:?}");
    assert_eq!(held, [56, 56]);
    assert_eq!(r.flows["up"].packets_lost, Some(0));
}

#[test]
fn each_epoch_takes_the_least_delay_bent_pipe_among_all_by_brute_force() {
    // Over 20 epochs, the plan's choice against every (satellite, gateway)
    // pair seen at 25° at the epoch's start and end, costed here.
    let (plan, net) = plan();
    let m = plan.motion.as_ref().unwrap();
    let node = |name: &str| plan.nodes.iter().position(|x| x == name).unwrap() as u32;
    let sees = |obs: u32, sat: u32, t: f64| {
        let look = m.positions.look(obs, sat, t);
        look.elevation_deg >= 25.0
    };
    let dish = node("Rome-dish");
    for n in 0..20 {
        let (t0, t1) = (
            net.params.clock.start(n).as_secs_f64(),
            net.params.clock.end(n).as_secs_f64(),
        );
        let p = |a: u32, t: f64| m.positions.position(a, t);
        let mut best: Option<(u64, u32, &str)> = None;
        for sat in m.gsls[0].sats.clone() {
            if !(sees(dish, sat, t0) && sees(dish, sat, t1)) {
                continue;
            }
            for gw in GATEWAYS {
                let g = node(&format!("gw-{gw}"));
                if !(sees(g, sat, t0) && sees(g, sat, t1)) {
                    continue;
                }
                let cost = delay_of(p(dish, t0).distance(p(sat, t0))).0
                    + delay_of(p(sat, t0).distance(p(g, t0))).0
                    + fibre(gw).0;
                if best.is_none_or(|b| cost < b.0) {
                    best = Some((cost, sat, gw));
                }
            }
        }
        let (cost, sat, gw) = best.expect("Rome always has a bent pipe");
        let a = net.plan(n).terminals[0].clone().unwrap();
        assert_eq!(
            (a.delay.0, a.sat, a.path[2]),
            (cost, sat, node(&format!("gw-{gw}"))),
            "epoch {n}"
        );
    }
}

// ---- The `starlink` preset from scenario keys --------------------------------

const ROME: &str = r#"
name = "rome"
[access]
preset = "starlink"
[run]
duration = "20 s"
[nodes.Rome]
lat = 41.9028
lon = 12.4964
[nodes.server]
[constellation]
preset = "starlink-550"
ground = ["Rome"]
isl = { rate = "10 Gbps", queue = 100 }
gsl = { rate = "10 Gbps", queue = 1000 }
[links.internet]
between = ["pop-FRA", "server"]
rate = "10 Gbps"
delay = "1 ms"
[flows.down]
from = "server"
to = "Rome"
app = "cbr"
cbr = { rate = "80 kbps", packet = "100 B" }
"#;

fn build(text: &str, sets: &[&str]) -> Result<Plan, String> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = load_str(text, "rome.toml", &sets).map_err(|e| e.to_string())?;
    Plan::build(&scn, "rome.toml").map_err(|e| e.to_string())
}

#[test]
fn the_preset_adds_the_dish_gateways_pop_links_and_epochs() {
    let plan = build(ROME, &[]).unwrap();
    for n in [
        "Rome-dish",
        "pop-FRA",
        "gw-Milano",
        "gw-Marsala",
        "gw-Frankfurt",
    ] {
        assert!(plan.nodes.iter().any(|x| x == n), "{n}: {:?}", plan.nodes);
    }
    // Gateways within 2000 km of Rome only (Ballinspittle is 1 930 km
    // away, Lekki 4 300 km).
    assert!(plan.nodes.iter().any(|x| x == "gw-Ballinspittle"));
    assert!(!plan.nodes.iter().any(|x| x == "gw-Lekki"));
    let layer = |name: &str| plan.layers.iter().position(|l| l.name == name).unwrap();
    let k = layer("access-Rome");
    assert!(
        matches!(plan.layers[k].spec, LinkLayerSpec::StarlinkAccess(ref s) if s.beam.is_some())
    );
    // Forward is the uplink: 20 Mb/s, dish queue; reverse 200 Mb/s.
    assert_eq!(
        (plan.links[2 * k].rate_bps, plan.links[2 * k].queue),
        (20_000_000, 1500)
    );
    assert_eq!(plan.links[2 * k + 1].rate_bps, 200_000_000);
    let f = layer("fibre-Milano-FRA");
    assert_eq!(plan.links[2 * f].delay, fibre("Milano"));
    let m = plan.motion.as_ref().unwrap();
    assert_eq!(
        m.routing,
        skyhop::net::mobile::RoutingPolicy::Epochs {
            period: Dur::from_secs(15),
            offset: Dur::from_secs(12)
        }
    );
    // The dish is the constellation's ground node; the gateways have rules
    // of their own (25°, and feeder links).
    let idx = |n: &str| plan.nodes.iter().position(|x| x == n).unwrap() as u32;
    assert_eq!(m.gsls[0].grounds, vec![idx("Rome-dish")]);
    assert!(m.gsls[1..]
        .iter()
        .all(|r| m.classes[r.class].name == "feeder"));
    let rule_of = |n: &str| m.gsls.iter().find(|r| r.grounds.contains(&idx(n))).unwrap();
    assert_eq!(rule_of("gw-Milano").min_elevation_deg, 25.0);
    assert_eq!(rule_of("gw-Isle-of-Man").min_elevation_deg, 5.0);
    let net = m.access.as_ref().unwrap();
    assert_eq!(net.terminals[0].host, idx("Rome"));
    assert_eq!(net.params.clock, EpochClock::STARLINK);
    // It runs, and its probes arrive.
    let r = run_plan(&plan, 1, &RunOptions::default()).unwrap();
    assert_eq!(r.flows["down"].packets_lost, Some(0));
    assert!(r
        .network_events
        .iter()
        .any(|e| e.kind == "epoch" && e.t_s == 12.0));
}

#[test]
fn the_preset_takes_its_keys() {
    let plan = build(
        ROME,
        &[
            "access.gateways=[\"Milano\"]",
            "access.downlink=\"100 Mbps\"",
            "access.link.grant=\"5 ms\"",
            "routing.epoch_offset=\"3 s\"",
            "access.sites.Own.kind=\"gateway\"",
            "access.sites.Own.lat=42.0",
            "access.sites.Own.lon=12.0",
            "access.sites.Own.min_elevation=40.0",
        ],
    )
    .unwrap();
    let gws: Vec<&String> = plan.nodes.iter().filter(|n| n.starts_with("gw-")).collect();
    assert_eq!(gws, vec!["gw-Milano"]);
    let k = plan
        .layers
        .iter()
        .position(|l| l.name == "access-Rome")
        .unwrap();
    assert_eq!(plan.links[2 * k + 1].rate_bps, 100_000_000);
    let LinkLayerSpec::StarlinkAccess(s) = &plan.layers[k].spec else {
        unreachable!()
    };
    let p = s.params().unwrap();
    assert_eq!(
        (p.grant, p.clock.offset),
        (Dur::from_millis(5), Dur::from_secs(3))
    );
    // The legs' round trips carry the access link's idle scheduling: the
    // grant and 1.5 frames each way (3 frames of 1/750 s: 4 ms; of 1/500
    // s: 6 ms) on top of propagation and transmission.
    let rtt = |sets: &[&str]| {
        let plan = build(ROME, sets).unwrap();
        let fig = plan.flows[0].legs[0].figures.clone();
        (fig.rtt, fig.propagation)
    };
    let (base, prop) = rtt(&[]);
    let (slower, prop2) = rtt(&["access.link.grant=\"5 ms\"", "access.link.frame_rate=500"]);
    assert_eq!(prop, prop2);
    assert_eq!(
        base.0 - slower.0,
        (Dur::from_millis(17) + Dur(4_000_000)).0 - (Dur::from_millis(5) + Dur(6_000_000)).0
    );
    assert!(
        base.0 - prop.0 > Dur::from_millis(21).0,
        "{base:?} {prop:?}"
    );
    // A site of one's own, named in `gateways` or within reach.
    let plan = build(
        ROME,
        &[
            "access.sites.Own.kind=\"gateway\"",
            "access.sites.Own.lat=42.0",
            "access.sites.Own.lon=12.0",
            "access.sites.Own.min_elevation=40.0",
        ],
    )
    .unwrap();
    let m = plan.motion.as_ref().unwrap();
    let own = plan.nodes.iter().position(|x| x == "gw-Own").unwrap() as u32;
    let rule = m.gsls.iter().find(|r| r.grounds.contains(&own)).unwrap();
    assert_eq!(rule.min_elevation_deg, 40.0);
    // The geometric model stays the default and an explicit choice.
    let geo = build(ROME, &["access=\"geometric\""]).err().unwrap();
    assert!(
        geo.contains("pop-FRA"),
        "the PoP node exists only under the preset: {geo}"
    );
}

#[test]
fn bad_access_input_is_one_error_naming_its_key() {
    let cases: &[(&[&str], &str)] = &[
        (&["access.terminals=[\"Nowhere\"]"], "access.terminals[0]"),
        (&["access.terminals=[\"server\"]"], "access.terminals[0]"),
        (&["access.pop=\"XYZ\""], "access.pop"),
        (&["access.gateways=[\"Atlantis\"]"], "access.gateways[0]"),
        (&["access.route_factor=0.5"], "access.route_factor"),
        (&["access.link.grant=\"5 parsecs\""], "access.link.grant"),
        (&["access.link.pause=\"20 s\""], "access.link.pause"),
        (&["access.link.epoch=\"10 s\""], "access.link.epoch"),
        (&["access.link.frame_rate=0"], "access.link.frame_rate"),
        (
            &["access.link.epoch_offset=\"20 s\""],
            "access.link.epoch_offset",
        ),
        (&["access.dish_queue=0"], "access.dish_queue"),
        (&["access.gateway_queue=0"], "access.gateway_queue"),
        (&["access.reach=\"1 km\""], "access.gateways"),
        (
            &[
                "access.sites.X.kind=\"gateway\"",
                "access.sites.X.lat=95.0",
                "access.sites.X.lon=0.0",
            ],
            "access.sites.X.lat",
        ),
        (&["access=\"fast\""], "access"),
        (&["access.preset=\"fast\""], "access.preset"),
        (&["access.colour=\"red\""], "access.colour"),
    ];
    for (sets, key) in cases {
        let e = build(ROME, sets)
            .err()
            .unwrap_or_else(|| panic!("{key}: no error"));
        assert!(
            e.contains(&format!("{key}:")) || e.contains(&format!("{key} ")),
            "{key}: {e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // No constellation: the keys of [constellation] removed.
    let text: String = ROME
        .lines()
        .filter(|l| {
            !["[constellation]", "preset", "ground", "isl", "gsl"]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let e = build(&text, &[]).err().unwrap();
    assert!(
        e.contains("access: the starlink access needs a [constellation]"),
        "{e}"
    );
}

#[test]
fn a_legs_route_at_the_start_is_the_schedulers_first_epoch() {
    // describe, the warnings and the memory estimate read the leg's route
    // at the start: under the preset it is the path of the first epoch
    // (server, PoP, gateway, satellites, dish, host), the one the packets
    // take, not the least-delay path through the constellation at t = 0.
    // The third case: a second terminal in Milan and one gateway, of one's
    // own, between the two with a single antenna, where the least-delay
    // path at t = 0 (which knows neither antennas nor the gateway's own
    // rule) takes another satellite for Rome than the scheduler.
    let milan = format!(
        "{ROME}[nodes.Milan]\nlat = 45.4642\nlon = 9.19\n[flows.down2]\nfrom = \"server\"\nto = \"Milan\"\napp = \"cbr\"\ncbr = {{ rate = \"80 kbps\", packet = \"100 B\" }}\n"
    );
    let two: &[&str] = &[
        "constellation.ground=[\"Rome\", \"Milan\"]",
        "access.sites.Own.kind=\"gateway\"",
        "access.sites.Own.lat=43.8",
        "access.sites.Own.lon=11.0",
        "access.sites.Own.antennas=1",
        "access.gateways=[\"Own\"]",
        "access.pop=\"FRA\"",
    ];
    for (text, sets) in [
        (ROME, &[][..]),
        (
            ROME,
            &["routing.epoch_offset=\"5 s\"", "access.isl_hops=0"][..],
        ),
        (milan.as_str(), two),
    ] {
        let plan = build(text, sets).unwrap();
        let m = plan.motion.as_ref().unwrap();
        let net = m.access.as_ref().unwrap();
        let idx = |n: &str| plan.nodes.iter().position(|x| x == n).unwrap() as u32;
        let mut gateways = Vec::new();
        for f in &plan.flows {
            let to = *f.legs[0].path.last().unwrap();
            let k = net.terminals.iter().position(|t| t.host == to).unwrap();
            let a = net.plan(0).terminals[k].clone().unwrap();
            gateways.push((a.sat, a.isl_hops));
            let mut want = vec![idx("server")];
            want.extend(a.path.iter().rev());
            want.push(to);
            let fig = &f.legs[0].figures;
            assert_eq!(fig.route_at_start.as_ref(), Some(&want), "{sets:?}");
            // Its propagation: the epoch's one-way delay dish to PoP and
            // the server's 1 ms, there and back (each hop rounded to the
            // ns once in each sum).
            let hops = want.len() as u64 - 1;
            let one_way = a.delay.0 + 1_000_000;
            assert!(
                fig.propagation.0.abs_diff(2 * one_way) <= 2 * hops,
                "{:?} against {}",
                fig.propagation,
                2 * one_way
            );
            // The round trip adds the access link's idle scheduling: the
            // grant (17 ms) and three frames of 1/750 s, and transmissions.
            assert!(fig.rtt.0 >= fig.propagation.0 + 21_000_000, "{fig:?}");
        }
        // In the third, the gateway's one antenna tracks one satellite:
        // Milan shares Rome's, or reaches it over inter-satellite links.
        if sets == two {
            assert_eq!(gateways[0].1, 0, "{gateways:?}");
            assert!(
                gateways[1].0 == gateways[0].0 || gateways[1].1 > 0,
                "{gateways:?}"
            );
        }
    }
}
