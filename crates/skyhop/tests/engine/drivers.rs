//! The driver seam, proven from outside the crate: a driver written here
//! (time advancing in fixed ticks) runs the very same world as the
//! virtual-time driver, gives the same results when nothing is injected,
//! and carries packets injected at a node through the simulated links,
//! whole, to where they leave.

use crate::common;
use skyhop::channel::PacketKind;
use skyhop::engine::{Dur, Time};
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::{Driver, ExternalPacket, Injected, Outbound, Step, VirtualTime, World};
use skyhop::{RunOptions, SimError};

/// A driver that advances time in fixed ticks, injects the packets
/// scheduled for each tick at its start, and collects what leaves.
struct Ticks {
    tick: Dur,
    end: Time,
    /// (time, from node, to node, packet), in time order.
    inject: Vec<(Time, u32, u32, ExternalPacket)>,
    collected: Vec<Outbound>,
    unroutable: usize,
}

impl Driver for Ticks {
    fn drive(&mut self, world: &mut World) -> Result<Time, SimError> {
        let mut t = Time::ZERO;
        let mut next = 0;
        loop {
            // Everything due up to this tick (stopping, like a simulation,
            // when every application is done and nothing more comes from
            // outside), then what arrives from outside now.
            let last = next == self.inject.len();
            if world.step(t, u64::MAX, last)? == Step::AppsDone {
                world.take_outbound(&mut self.collected);
                return Ok(world.now());
            }
            while next < self.inject.len() && self.inject[next].0 <= t {
                let (_, from, to, p) = self.inject[next].clone();
                if world.inject(t, from, to, p) == Injected::Unroutable {
                    self.unroutable += 1;
                }
                next += 1;
            }
            world.take_outbound(&mut self.collected);
            if t >= self.end {
                return Ok(self.end);
            }
            t = Time(t.0 + self.tick.0).min(self.end);
        }
    }
}

const CHAIN: &str = r#"
[run]
duration = "200 s"
[nodes.A]
[nodes.R]
[nodes.B]
[links.ar]
between = ["A", "R"]
rate = "1 Mbps"
delay = "10 ms"
queue = 30
[links.rb]
between = ["R", "B"]
rate = "2 Mbps"
delay = "125 ms"
queue = 30
per = 0.01
[flows.ftp]
from = "A"
to = "B"
tcp = "sack"
size = "400 kB"
"#;

fn plan(text: &str) -> Plan {
    let scn = load_str(text, "chain.toml", &common::studies(&[])).unwrap();
    Plan::build(&scn, "chain.toml").unwrap()
}

fn packet(n: usize, fill: u8) -> ExternalPacket {
    ExternalPacket {
        data: (0..n).map(|i| fill.wrapping_add(i as u8)).collect(),
        kind: PacketKind::Data,
        seq: 0,
        retx: false,
    }
}

#[test]
fn a_ticking_driver_gives_the_virtual_time_results_when_nothing_is_injected() {
    let plan = plan(CHAIN);
    for seed in [1, 2, 3] {
        let opts = RunOptions {
            trace: true,
            ..Default::default()
        };
        let expected = skyhop::sim::run_plan(&plan, seed, &opts).unwrap();
        for tick in [Dur::from_millis(1), Dur::from_millis(37), Dur::from_secs(5)] {
            let mut world = World::build(&plan, seed, &opts);
            let mut d = Ticks {
                tick,
                end: Time(plan.duration.0),
                inject: Vec::new(),
                collected: Vec::new(),
                unroutable: 0,
            };
            let stop = d.drive(&mut world).unwrap();
            let got = world.finish(stop);
            assert_eq!(
                serde_json::to_string(&got).unwrap(),
                serde_json::to_string(&expected).unwrap(),
                "seed {seed}, tick {tick:?}"
            );
        }
    }
}

#[test]
fn virtual_time_is_one_driver_of_the_world() {
    let plan = plan(CHAIN);
    let opts = RunOptions::default();
    let mut world = World::build(&plan, 7, &opts);
    let mut d = VirtualTime {
        end: Time(plan.duration.0),
        cancel: None,
    };
    let stop = d.drive(&mut world).unwrap();
    let got = world.finish(stop);
    assert_eq!(got, skyhop::sim::run_plan(&plan, 7, &opts).unwrap());
    assert!(got.flows["ftp"].completion_time_s.is_some());
}

#[test]
fn injected_packets_cross_the_links_whole_and_leave_at_their_node() {
    // No simulated traffic: an idle network, so the times are exact.
    let idle = CHAIN
        .replace("per = 0.01\n", "")
        .replace("size = \"400 kB\"", "size = \"1 B\"\nstart = \"150 s\"");
    let plan = plan(&idle);
    let (a, r, b) = (0, 2, 1); // nodes in name order: A, B, R
    let mut world = World::build(&plan, 1, &RunOptions::default());
    world.set_outside(&[a, b]);
    let mut d = Ticks {
        tick: Dur::from_millis(1),
        end: Time(Dur::from_secs(5).0),
        inject: vec![
            (Time(Dur::from_millis(100).0), a, b, packet(1000, 1)),
            (Time(Dur::from_millis(100).0), a, b, packet(500, 2)),
            (Time(Dur::from_millis(300).0), b, a, packet(40, 3)),
            (Time(Dur::from_millis(300).0), a, r, packet(100, 4)),
        ],
        collected: Vec::new(),
        unroutable: 0,
    };
    d.drive(&mut world).unwrap();
    assert_eq!(d.unroutable, 0);
    let out = &d.collected;
    assert_eq!(out.len(), 4, "{out:?}");
    let ms = |x: f64| Time((x * 1e6).round() as u64);
    // 1000 B: 8 ms on the 1 Mb/s link, 10 ms, 4 ms on the 2 Mb/s link, 125 ms.
    let first = out.iter().find(|o| o.packet.data[0] == 1).unwrap();
    assert_eq!(first.node, b);
    assert_eq!(first.at, ms(100.0 + 8.0 + 10.0 + 4.0 + 125.0));
    assert_eq!(first.packet, packet(1000, 1));
    // 500 B queued behind it on A-R: leaves A at 108 ms + 4 ms; on R-B the
    // link is free again (the first left R at 122 ms): 2 ms.
    let second = out.iter().find(|o| o.packet.data[0] == 2).unwrap();
    assert_eq!(second.at, ms(100.0 + 8.0 + 4.0 + 10.0 + 2.0 + 125.0));
    assert_eq!(second.packet.data.len(), 500);
    // 40 B from B to A: 0.16 ms + 125 ms + 0.32 ms + 10 ms.
    let back = out.iter().find(|o| o.packet.data[0] == 3).unwrap();
    assert_eq!((back.node, back.from), (a, b));
    assert_eq!(back.at, ms(300.0 + 0.16 + 125.0 + 0.32 + 10.0));
    // For R, a simulated node: it leaves at R.
    let to_r = out.iter().find(|o| o.packet.data[0] == 4).unwrap();
    assert_eq!((to_r.node, to_r.at), (r, ms(300.0 + 0.8 + 10.0)));
    let st = world.external_stats();
    assert_eq!((st.injected, st.delivered, st.lost), (4, 4, 0));
    assert_eq!(st.injected_bytes, 1640);
    // The links counted them like any packet.
    let res = world.finish(Time(Dur::from_secs(5).0));
    let ar = res
        .links
        .iter()
        .find(|l| l.link == "ar" && l.dir == "forward")
        .unwrap();
    assert_eq!((ar.packets, ar.bytes), (3, 1600));
}

#[test]
fn an_outside_facing_node_on_the_way_takes_the_packet_and_simulated_traffic_shares_the_queues() {
    let plan = plan(CHAIN);
    let (a, r, b) = (0, 2, 1);
    // R faces outside (a live proxy there): a packet from A for B leaves at R.
    let mut world = World::build(&plan, 1, &RunOptions::default());
    world.set_outside(&[a, r, b]);
    world.step(Time::ZERO, u64::MAX, false).unwrap();
    assert_eq!(
        world.inject(Time::ZERO, a, b, packet(1000, 9)),
        Injected::Sent
    );
    let mut out = Vec::new();
    world
        .step(Time(Dur::from_secs(1).0), u64::MAX, false)
        .unwrap();
    world.take_outbound(&mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].node, r);
    // Behind the file transfer's first segment (1500 B at t = 0 on A-R):
    // 12 ms + 8 ms + 10 ms, later than on an idle link.
    assert_eq!(out[0].at, Time(Dur::from_millis(30).0));
}

#[test]
fn a_packet_with_no_route_is_counted_and_dropped() {
    let text = CHAIN.replace("[flows.ftp]", "[nodes.Z]\n[flows.ftp]");
    let plan = plan(&text);
    let mut world = World::build(&plan, 1, &RunOptions::default());
    let z = 3;
    assert_eq!(
        world.inject(Time::ZERO, 0, z, packet(10, 0)),
        Injected::Unroutable
    );
    assert_eq!(world.external_stats().unroutable, 1);
    assert_eq!(world.external_stats().injected, 0);
}
