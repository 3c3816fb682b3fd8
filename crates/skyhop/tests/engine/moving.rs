//! Moving nodes, exactly: straight-line delays from positions, a great-circle
//! flight's GEO slant delay at three instants worked by hand, packets taking
//! the delay of their own transmission instant across a route change (and
//! overtaking the packets of the longer path), links that drop packets
//! while their ends do not see each other.
//!
//! The worlds are built from plans of static scenarios plus a `MotionPlan`
//! (what the scenario keys resolve into), so these tests do not depend on
//! the scenario syntax.

use skyhop::channel::PacketKind;
use skyhop::engine::time::{Dur, Time};
use skyhop::geo::{
    geodetic_to_ecef, Track, Waypoint, EARTH_RADIUS_M, GEO_RADIUS_M, SPEED_OF_LIGHT_M_PER_S,
};
use skyhop::mobility::{NodeMotion, Positions};
use skyhop::net::fifo::Enqueue;
use skyhop::net::mobile::{LinkMotion, MotionPlan, RoutingPolicy};
use skyhop::net::moving::{DirMotion, Visibility, WhenDown};
use skyhop::net::Payload;
use skyhop::net::{FifoDir, LinkPacket};
use skyhop::observe::{PacketEventKind, PacketLogOptions};
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan_with;
use skyhop::{RunOptions, RunResult};
use std::sync::Arc;

fn plan_of(toml: &str) -> Plan {
    let scn = load_str(toml, "t.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    Plan::build(&scn, "t.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn fixed(lat: f64, lon: f64, alt: f64) -> Option<NodeMotion> {
    Some(NodeMotion::Fixed(geodetic_to_ecef(lat, lon, alt)))
}

fn wp(lat: f64, lon: f64, alt: f64, at: f64) -> Waypoint {
    Waypoint {
        lat_deg: lat,
        lon_deg: lon,
        alt_m: alt,
        at_s: at,
    }
}

fn pkt(bytes: u32) -> LinkPacket {
    LinkPacket {
        slot: 0,
        bytes,
        kind: PacketKind::Data,
        seq: 0,
        retx: false,
    }
}

fn ns(range_m: f64) -> u64 {
    (range_m / SPEED_OF_LIGHT_M_PER_S * 1e9).round() as u64
}

fn moving_dir(positions: Positions, vis: Visibility, when_down: WhenDown) -> FifoDir {
    let mut d = FifoDir::new(1_000_000, Dur::ZERO, 100, Vec::new());
    d.motion = Some(Box::new(DirMotion::new(
        Arc::new(positions),
        0,
        1,
        vis,
        when_down,
        false,
    )));
    d
}

#[test]
fn a_uav_1_km_up_above_a_point_2_km_away_is_at_the_straight_line_delay() {
    // Ground node at 45°N 7°E; the UAV 1 km above the point 2 km north of
    // it along the meridian. Law of cosines in the meridian plane:
    // d² = R² + (R + 1000)² − 2·R·(R + 1000)·cos(2000 / R).
    let r = EARTH_RADIUS_M;
    let theta = 2000.0 / r;
    let d = (r * r + (r + 1000.0).powi(2) - 2.0 * r * (r + 1000.0) * theta.cos()).sqrt();
    assert!((d - 2236.07).abs() < 0.2, "{d}");
    let positions = Positions {
        nodes: vec![
            fixed(45.0, 7.0, 0.0),
            fixed(45.0 + theta.to_degrees(), 7.0, 1000.0),
        ],
    };
    let mut dir = moving_dir(positions, Visibility::Always, WhenDown::Drop);
    // 1500 B at 1 Mb/s: 12 ms of transmission, then the propagation.
    assert_eq!(
        dir.enqueue(Time::ZERO, &pkt(1500)),
        Enqueue::Arrives(Time(12_000_000 + ns(d)))
    );
    assert_eq!(ns(d), 7459);
}

#[test]
fn an_aircraft_on_a_great_circle_at_250_m_s_changes_its_geo_slant_delay_as_computed_by_hand() {
    // Northbound on the Greenwich meridian at 10 km from 10°N, at 250 m/s
    // ground speed; a GEO above 0°E. At t the aircraft is at latitude
    // φ(t) = 10° + 250·t / R_e (radians), and the slant range is
    // √(r_a² + r_s² − 2·r_a·r_s·cos φ) with r_a = R_e + 10 km.
    let track = Track::with_speed(
        vec![wp(10.0, 0.0, 10e3, 0.0), wp(60.0, 0.0, 10e3, 0.0)],
        250.0,
        0.0,
        false,
    )
    .unwrap();
    let positions = Positions {
        nodes: vec![
            Some(NodeMotion::Track(track)),
            fixed(0.0, 0.0, GEO_RADIUS_M - EARTH_RADIUS_M),
        ],
    };
    let mut m = DirMotion::new(
        Arc::new(positions),
        0,
        1,
        Visibility::Always,
        WhenDown::Drop,
        false,
    );
    let (ra, rs) = (EARTH_RADIUS_M + 10e3, GEO_RADIUS_M);
    let mut last = 0;
    for t in [0.0, 3600.0, 7200.0] {
        let phi = 10f64.to_radians() + 250.0 * t / EARTH_RADIUS_M;
        let d = (ra * ra + rs * rs - 2.0 * ra * rs * phi.cos()).sqrt();
        let got = m.delay_at(Time((t * 1e9) as u64)).0;
        assert!(
            got.abs_diff(ns(d)) <= 1,
            "t = {t}: {got} ns vs {} ns",
            ns(d)
        );
        // Flying away from the sub-satellite point: the delay grows.
        assert!(got > last);
        last = got;
    }
    // 119.72 ms at 10°N; 900 km further north every hour.
    assert!((m.delay_at(Time::ZERO).0 as f64 * 1e-6 - 119.72).abs() < 0.01);
}

/// The central angle (degrees) between a ground node and a satellite at
/// altitude `alt_m` that it sees at elevation `el_deg`, on a spherical
/// Earth: in the triangle Earth's centre, ground node, satellite the angle
/// at the satellite is arcsin(R·cos el / (R + h)), so the one at the centre
/// is γ = arccos(R·cos el / (R + h)) − el.
fn central_angle_deg(alt_m: f64, el_deg: f64) -> f64 {
    let r = EARTH_RADIUS_M;
    (r * el_deg.to_radians().cos() / (r + alt_m))
        .acos()
        .to_degrees()
        - el_deg
}

/// The ground node to satellite range at central angle `gamma_deg` (law of
/// cosines).
fn slant_range_m(alt_m: f64, gamma_deg: f64) -> f64 {
    let (r, rs) = (EARTH_RADIUS_M, EARTH_RADIUS_M + alt_m);
    (r * r + rs * rs - 2.0 * r * rs * gamma_deg.to_radians().cos()).sqrt()
}

#[test]
fn a_direction_below_its_minimum_elevation_drops_or_holds() {
    // A "satellite" on a track that rises from below a ground node's
    // horizon: 550 km up on the equator, 30° of longitude away (elevation
    // < 0) at t = 0, straight above at t = 100 s; the track turns at a
    // constant rate, so its longitude is 30° − 0.3°·t. It reaches 25° of
    // elevation at the central angle γ = 8.4508°, i.e. at
    // t = (30 − γ) / 0.3 = 71.8306 s.
    let track = Track::timed(
        vec![wp(0.0, 30.0, 550e3, 0.0), wp(0.0, 0.0, 550e3, 100.0)],
        false,
    )
    .unwrap();
    let pos = || Positions {
        nodes: vec![fixed(0.0, 0.0, 0.0), Some(NodeMotion::Track(track.clone()))],
    };
    let vis = Visibility::MinElevation {
        observer_is_from: true,
        min_deg: 25.0,
    };
    let gamma = central_angle_deg(550e3, 25.0);
    let rise_s = (30.0 - gamma) / 0.3;
    assert!((rise_s - 71.8306).abs() < 1e-4, "{rise_s}");
    // The direction comes up at the closed form's instant, to the
    // millisecond: down 1 ms before it, up 1 ms after.
    let mut m = DirMotion::new(Arc::new(pos()), 0, 1, vis, WhenDown::Drop, false);
    let rise_ns = rise_s * 1e9;
    assert!(!m.up_at(Time((rise_ns - 1e6) as u64)));
    assert!(m.up_at(Time((rise_ns + 1e6) as u64)));
    // Dropped below it (at t = 0, and 1 ms before the rise), carried from it.
    let mut drop = moving_dir(pos(), vis, WhenDown::Drop);
    assert_eq!(drop.enqueue(Time::ZERO, &pkt(100)), Enqueue::LinkDown);
    let before = Time((rise_ns - 1e6) as u64);
    assert_eq!(drop.enqueue(before, &pkt(100)), Enqueue::LinkDown);
    assert_eq!(drop.stats.link_drops, 2);
    let after = Time((rise_ns + 1e6) as u64);
    assert!(matches!(
        drop.enqueue(after, &pkt(100)),
        Enqueue::Arrives(_)
    ));
    // Held: it leaves when the elevation reaches 25°, to the microsecond.
    // 100 B at 1 Mb/s take 800 µs; then the slant range when the last bit
    // leaves, at γ = 30° − 0.3°·(t_rise + 800 µs), at c.
    let mut hold = moving_dir(pos(), vis, WhenDown::Hold);
    let Enqueue::Arrives(at) = hold.enqueue(Time::ZERO, &pkt(100)) else {
        panic!("held, not dropped")
    };
    let end_s = rise_s + 800e-6;
    let range = slant_range_m(550e3, 30.0 - 0.3 * end_s);
    assert!((range - 1_123.4e3).abs() < 1e3, "{range}");
    let want_ns = (end_s + range / SPEED_OF_LIGHT_M_PER_S) * 1e9;
    let late_ns = at.0 as f64 - want_ns;
    assert!(
        (-2.0..=1_002.0).contains(&late_ns),
        "arrives {late_ns} ns after the closed form's instant"
    );
}

/// Arrivals at `to` of a cbr flow's datagrams: (seq, sent_at, arrival).
fn datagram_arrivals(r: &RunResult, to: &str) -> Vec<(u64, Time, Time)> {
    let log = r.packet_log.as_ref().expect("a packet log");
    let mut out = Vec::new();
    for e in &log.events {
        if e.kind != PacketEventKind::Arrive || r.links[e.link_dir as usize].to != to {
            continue;
        }
        if let Payload::Datagram { seq, sent_at } = e.payload {
            out.push((seq, sent_at, e.t));
        }
    }
    out
}

const DETOUR: &str = r#"
[run]
duration = "6 s"
[nodes.A]
[nodes.B]
[nodes.R]
[links.ab]
between = ["A", "B"]
rate = "1 Gbps"
delay = "3 ms"
[links.ar]
between = ["A", "R"]
rate = "1 Gbps"
delay = "1 ms"
[links.rb]
between = ["R", "B"]
rate = "1 Gbps"
delay = "1 ms"
[flows.probe]
from = "A"
to = "B"
app = "cbr"
cbr = { rate = "80 Mbps", packet = "1000 B" }
"#;

/// R's latitude at t on its meridian (0.5°E, 20 km up): −6° + 0.6°/s · t.
fn relay_lat(t_s: f64) -> f64 {
    -6.0 + 0.6 * t_s
}

fn detour_motion() -> MotionPlan {
    // Nodes in name order: A, B, R.
    let track = Track::timed(
        vec![
            wp(relay_lat(0.0), 0.5, 20e3, 0.0),
            wp(relay_lat(10.0), 0.5, 20e3, 10.0),
        ],
        false,
    )
    .unwrap();
    let moving = Some(LinkMotion {
        moving_delay: true,
        visibility: Visibility::Always,
    });
    MotionPlan {
        positions: Arc::new(Positions {
            nodes: vec![
                fixed(0.0, 0.0, 0.0),
                fixed(0.0, 1.0, 0.0),
                Some(NodeMotion::Track(track)),
            ],
        }),
        extra_nodes: vec![],
        // ab keeps its explicit 3 ms; ar and rb follow the relay.
        links: vec![None, moving, moving],
        isls: vec![],
        isl_class: 0,
        gsls: vec![],
        classes: vec![],
        routing: RoutingPolicy::Interval(Dur::from_secs(1)),
        when_down: WhenDown::Drop,
        lose_in_flight: false,
        access: None,
        start_spread: Dur::ZERO,
        start_offset: Dur::ZERO,
    }
}

#[test]
fn packets_take_the_delay_of_their_own_transmission_and_a_shorter_path_overtakes() {
    let plan = plan_of(DETOUR);
    let motion = detour_motion();
    let opts = RunOptions {
        packet_log: Some(PacketLogOptions::default()),
        ..Default::default()
    };
    let r = run_plan_with(&plan, Some(&motion), 1, &opts).unwrap();
    // The relay's path A-R-B drops below the direct 3 ms at about 3.3 s;
    // the routes change at the next update, 4 s.
    let changes: Vec<_> = r
        .network_events
        .iter()
        .filter(|e| e.kind == "route" && e.route == "A>B")
        .collect();
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!((changes[0].t_s, changes[0].new.as_str()), (0.0, "A,B"));
    assert_eq!((changes[1].t_s, changes[1].old.as_str()), (4.0, "A,B"));
    assert_eq!(changes[1].new, "A,R,B");

    let arr = datagram_arrivals(&r, "B");
    let tx = 8_000u64; // 1000 B at 1 Gb/s
    let pos = |lat: f64, lon: f64, alt: f64| geodetic_to_ecef(lat, lon, alt);
    let (a, b) = (pos(0.0, 0.0, 0.0), pos(0.0, 1.0, 0.0));
    let relay = |t: Time| pos(relay_lat(t.as_secs_f64()), 0.5, 20e3);
    let switch = Time::from_secs_f64(4.0);
    // Datagrams leave A every 100 µs; the one sent just before the
    // update goes direct, the one sent at the update (the update runs
    // first) goes by the relay.
    let before = arr
        .iter()
        .find(|x| x.1 == Time(switch.0 - 100_000))
        .unwrap();
    assert_eq!(before.2, Time(before.1 .0 + tx + 3_000_000));
    let after = arr.iter().find(|x| x.1 == switch).unwrap();
    // A→R: the last bit leaves at t1, arrives after |A−R(t1)|/c; R→B the
    // same from its own departure.
    let t1 = Time(switch.0 + tx);
    let at_r = Time(t1.0 + ns(a.distance(relay(t1))));
    let t2 = Time(at_r.0 + tx);
    let at_b = Time(t2.0 + ns(relay(t2).distance(b)));
    assert_eq!(after.2, at_b);
    // The short path overtakes: B receives the datagram sent at 4 s before
    // those sent in the last milliseconds on the long path.
    let overtaken = arr.iter().filter(|x| x.1 < switch && x.2 > after.2).count();
    // The paths differ by 0.28 ms: two datagrams are overtaken.
    assert_eq!(overtaken, 2);
    // Every datagram arrived (no link went down).
    let f = &r.flows["probe"];
    assert_eq!(f.packets_lost, Some(0));
    let net = r.network.as_ref().unwrap();
    assert_eq!(net.unroutable, 0);
    assert_eq!(net.route_updates, 7); // 0, 1, ..., 6 s
}

#[test]
fn a_moving_world_is_deterministic_and_a_static_one_has_no_network_results() {
    let plan = plan_of(DETOUR);
    let motion = detour_motion();
    let o = RunOptions::default();
    let a = serde_json::to_string(&run_plan_with(&plan, Some(&motion), 3, &o).unwrap()).unwrap();
    let b = serde_json::to_string(&run_plan_with(&plan, Some(&motion), 3, &o).unwrap()).unwrap();
    assert_eq!(a, b);
    let s = serde_json::to_string(&run_plan_with(&plan, None, 3, &o).unwrap()).unwrap();
    assert!(!s.contains("network"), "{s}");
    assert!(a.contains("network_events"));
}

#[test]
fn a_packet_in_flight_when_its_link_goes_down_is_lost_only_when_asked() {
    // A "satellite" setting below 25° seen from the ground: 550 km up,
    // moving from straight above (0°E) towards 30°E in 100 s; it crosses
    // 25° of elevation at the central angle γ = 8.4508°, at
    // t = γ / 0.3 = 28.1694 s.
    let track = Track::timed(
        vec![wp(0.0, 0.0, 550e3, 0.0), wp(0.0, 30.0, 550e3, 100.0)],
        false,
    )
    .unwrap();
    let pos = || {
        Arc::new(Positions {
            nodes: vec![fixed(0.0, 0.0, 0.0), Some(NodeMotion::Track(track.clone()))],
        })
    };
    let vis = Visibility::MinElevation {
        observer_is_from: true,
        min_deg: 25.0,
    };
    let mut probe = DirMotion::new(pos(), 0, 1, vis, WhenDown::Drop, false);
    let ms = 1_000_000u64;
    let set = (0..100_000u64)
        .map(|k| Time(k * ms))
        .find(|&t| !probe.up_at(t))
        .unwrap();
    let set_s = central_angle_deg(550e3, 25.0) / 0.3;
    assert!((set_s - 28.1694).abs() < 1e-4, "{set_s}");
    assert_eq!(set, Time((set_s * 1e3).ceil() as u64 * ms), "{set_s} s");
    // A 1500 B packet at 1 Mb/s whose last bit leaves 1 ms before the set:
    // it is still on its way (≈ 3 ms) when the link goes down.
    let start = Time(set.0 - 13 * ms);
    for (lose, lost) in [(false, false), (true, true)] {
        let mut d = FifoDir::new(1_000_000, Dur::ZERO, 100, Vec::new());
        d.motion = Some(Box::new(DirMotion::new(
            pos(),
            0,
            1,
            vis,
            WhenDown::Drop,
            lose,
        )));
        let got = d.enqueue(start, &pkt(1500));
        assert_eq!(
            got == Enqueue::LinkDown,
            lost,
            "lose_in_flight = {lose}: {got:?}"
        );
    }
    // Sent after the set: dropped either way.
    let mut d = FifoDir::new(1_000_000, Dur::ZERO, 100, Vec::new());
    d.motion = Some(Box::new(DirMotion::new(
        pos(),
        0,
        1,
        vis,
        WhenDown::Drop,
        false,
    )));
    assert_eq!(d.enqueue(set, &pkt(1500)), Enqueue::LinkDown);
}
