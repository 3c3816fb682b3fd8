//! Moving networks from scenario files: delays from positions, routes,
//! constellations, the shipped scenarios, `describe`, and bad input named
//! by file, key and value.

use super::common::scenario;
use skyhop::geo::{EARTH_RADIUS_M, SPEED_OF_LIGHT_M_PER_S};
use skyhop::scenario::describe::describe;
use skyhop::scenario::{load_str, Plan};
use skyhop::{run, RunOptions};

fn plan(text: &str, sets: &[&str]) -> Result<Plan, skyhop::ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = load_str(text, "m.toml", &sets)?;
    Plan::build(&scn, "m.toml")
}

const UAV: &str = r#"
[run]
duration = "10 s"
[nodes.G]
lat = 45.0
lon = 7.0
[nodes.U]
lat = 45.017986
lon = 7.0
altitude = "1 km"
[links.gu]
between = ["G", "U"]
rate = "10 Mbps"
[flows.f]
from = "G"
to = "U"
size = "1 MB"
"#;

#[test]
fn a_uav_link_gets_the_straight_line_delay_from_the_scenario() {
    let p = plan(UAV, &[]).unwrap();
    // 0.017986° of latitude is 2002.2 m on the sphere; 1 km up.
    let theta = 0.017986f64.to_radians();
    let r = EARTH_RADIUS_M;
    let d = (r * r + (r + 1000.0).powi(2) - 2.0 * r * (r + 1000.0) * theta.cos()).sqrt();
    let ns = (d / SPEED_OF_LIGHT_M_PER_S * 1e9).round() as u64;
    assert_eq!(p.links[0].delay.0, ns);
    assert!(p.motion.is_none(), "nothing moves: a static plan");
    // An explicit delay wins.
    let p = plan(UAV, &["links.gu.delay=\"5 ms\""]).unwrap();
    assert_eq!(p.links[0].delay.0, 5_000_000);
}

#[test]
fn the_shipped_moving_scenarios_run_and_describe_their_motion() {
    let air = scenario("aircraft_atlantic.toml", &["run.duration=\"2 min\""]);
    let p = Plan::build(&air, "aircraft_atlantic.toml").unwrap();
    let d = describe(&air, &p);
    let down = d
        .links
        .iter()
        .find(|l| l.link == "down" && l.dir == "forward")
        .unwrap();
    assert_eq!(down.delay_source, "moving positions");
    let [lo, hi] = down.delay_range_s.unwrap();
    // Heathrow to mid-Atlantic under a GEO at 30°W: around 125 ms, moving.
    assert!(lo > 0.12 && hi < 0.14 && hi > lo, "{lo} {hi}");
    assert_eq!(down.up_fraction, Some(1.0));
    let agw = d.nodes.iter().find(|n| n.node == "AGW").unwrap();
    assert!(agw.position.is_some() && agw.position_end.is_some());
    let r = run(&air, 1, &RunOptions::default()).unwrap();
    assert!(
        r.flows.values().all(|f| f.goodput_bps > 0.5e6),
        "{:?}",
        r.flows
    );

    let leo = scenario("leo_rome_geometric.toml", &["run.duration=\"20 s\""]);
    let p = Plan::build(&leo, "leo_rome_geometric.toml").unwrap();
    let d = describe(&leo, &p);
    let m = d.motion.unwrap();
    assert_eq!((m.satellites, m.inter_satellite_links), (1584, 3168));
    assert_eq!(m.ground_nodes, vec!["Frankfurt", "Rome"]);
    let r = run(&leo, 1, &RunOptions::default()).unwrap();
    assert!(r.flows["download"].goodput_bps > 10e6, "{:?}", r.flows);
    let first = &r.network_events[0];
    assert_eq!((first.t_s, first.kind.as_str()), (0.0, "route"));
    assert!(
        first.new.starts_with("server,Frankfurt,starlink-550-"),
        "{first:?}"
    );
    assert!(first.new.ends_with(",Rome"), "{first:?}");
}

#[test]
fn cities_are_ground_stations_by_name() {
    let text = r#"
[run]
duration = "5 s"
[nodes]
[links]
[constellation]
preset = "kuiper-630"
cities = 100
isl = { rate = "1 Gbps" }
gsl = { rate = "1 Gbps" }
[flows.f]
from = "Manila"
to = "Dalian"
app = "cbr"
cbr = { rate = "1 Mbps", packet = "1000 B" }
"#;
    let p = plan(text, &[]).unwrap();
    assert_eq!(p.nodes.len(), 100);
    let r = skyhop::sim::run_plan(&p, 1, &RunOptions::default()).unwrap();
    assert_eq!(r.flows["f"].packets_lost, Some(0));
    // Manila to Dalian is about 2 700 km: 10-20 ms one way over Kuiper.
    let d = r.flows["f"].delay_mean_s.unwrap();
    assert!(d > 0.009 && d < 0.02, "{d}");
}

fn error(text: &str, sets: &[&str]) -> skyhop::ScenarioError {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, "bad.toml", &sets).unwrap_err()
}

#[test]
fn bad_motion_input_names_file_key_and_value() {
    let leo = r#"
[run]
duration = "10 s"
[nodes.A]
lat = 41.9
lon = 12.5
[nodes.B]
lat = 50.1
lon = 8.7
[constellation]
preset = "starlink-550"
gsl = { rate = "1 Gbps" }
[flows.f]
from = "A"
to = "B"
"#;
    let e = error(leo, &["constellation.altitude=\"80 km\""]);
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("bad.toml", "constellation.altitude")
    );
    assert!(e.message.contains("80 km is below 100 km"), "{e}");
    let e = error(leo, &["constellation.min_elevation=95"]);
    assert_eq!(e.key, "constellation.min_elevation");
    assert!(e.message.contains("95"), "{e}");
    let e = error(UAV, &["links.gu.min_elevation=-3"]);
    assert_eq!(e.key, "links.gu.min_elevation");
    assert!(e.message.contains("-3"), "{e}");
    // A TLE that does not parse: the file and its line.
    let dir = std::env::temp_dir().join(format!("skyhop-tle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tle = dir.join("bad.tle");
    std::fs::write(
        &tle,
        "ISS\n1 25544U 98067A   20194.88612269 -.00002218  00000-0 -31515-4 0  9993\n2 25544  51.6461 221.2784 0001413  89.1723 280.4612 15.49507896236008\n",
    )
    .unwrap();
    let set = format!("constellation.tle=\"{}\"", tle.display());
    let e = error(leo, &["constellation.preset=\"starlink-550\"", &set]);
    assert_eq!(e.key, "constellation.tle", "{e}");
    let text = leo.replace("preset = \"starlink-550\"\n", "");
    let e = error(&text, &[&set]);
    assert_eq!(e.key, "constellation.tle", "{e}");
    assert!(e.message.contains("bad.tle line 2"), "{e}");
    // Waypoints out of order: the waypoint's time.
    let route = r#"
[run]
duration = "10 s"
[nodes.G]
lat = 0.0
lon = 0.0
[nodes.P.route]
waypoints = [
  { lat = 0.0, lon = 1.0, altitude = "10 km", at = "10 s" },
  { lat = 0.0, lon = 2.0, altitude = "10 km", at = "5 s" },
]
[links.gp]
between = ["G", "P"]
rate = "1 Mbps"
[flows.f]
from = "G"
to = "P"
"#;
    let e = error(route, &[]);
    assert_eq!(e.key, "nodes.P.route.waypoints[1].at", "{e}");
    assert!(
        e.message.contains("out of order") && e.message.contains("5 s"),
        "{e}"
    );
    // One line each.
    for e in [
        error(leo, &["constellation.altitude=\"80 km\""]),
        error(route, &[]),
    ] {
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}

#[test]
fn routes_held_for_epochs_change_only_at_epoch_starts() {
    let leo = scenario(
        "leo_rome_geometric.toml",
        &[
            "run.duration=\"60 s\"",
            "routing.policy=\"epochs\"",
            "routing.epoch=\"15 s\"",
            "routing.epoch_offset=\"12 s\"",
        ],
    );
    let r = run(&leo, 1, &RunOptions::default()).unwrap();
    let net = r.network.clone().unwrap();
    // t = 0, then 12, 27, 42 and 57 s.
    assert_eq!(net.route_updates, 5);
    for e in &r.network_events {
        assert!(
            [0.0, 12.0, 27.0, 42.0, 57.0].contains(&e.t_s),
            "{e:?} outside an epoch start"
        );
    }
    assert_eq!(net.unroutable, 0);
}

#[test]
fn routing_keys_the_starlink_scheduler_overrides_are_refused() {
    let text = std::fs::read_to_string(format!(
        "{}/../../scenarios/starlink_rome.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    // The scheduler holds each terminal's path for its epoch: an update
    // interval, or the interval policy, would change nothing or move the
    // change off the boundary.
    let e = error(&text, &["routing.update=\"100 ms\""]);
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("bad.toml", "routing.update")
    );
    assert!(
        e.message.contains("\"100 ms\"") && e.message.contains("starlink"),
        "{e}"
    );
    let e = error(&text, &["routing.policy=\"shortest-delay\""]);
    assert_eq!(e.key, "routing.policy", "{e}");
    assert!(e.message.contains("\"shortest-delay\""), "{e}");
    assert!(!e.to_string().contains('\n'), "{e}");
    // The epochs are the scheduler's: accepted, and they move its boundaries.
    let p = plan(
        &text,
        &[
            "routing.policy=\"epochs\"",
            "routing.epoch=\"10 s\"",
            "routing.epoch_offset=\"3 s\"",
        ],
    )
    .unwrap();
    let net = p.motion.as_ref().unwrap().access.as_ref().unwrap();
    assert_eq!(
        (net.params.clock.period.0, net.params.clock.offset.0),
        (10_000_000_000, 3_000_000_000)
    );
    // The geometric model keeps its update interval.
    let geo = std::fs::read_to_string(format!(
        "{}/../../scenarios/leo_rome_geometric.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let p = plan(&geo, &["routing.update=\"50 ms\""]).unwrap();
    assert_eq!(
        p.motion.unwrap().routing,
        skyhop::net::mobile::RoutingPolicy::Interval(skyhop::engine::time::Dur::from_millis(50))
    );
}
