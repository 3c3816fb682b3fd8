//! Exact tests of the access network: the epoch clock, the access link's
//! frames, grants, pauses, queues and shares (hand-worked timings), and the
//! epoch schedule on fixed geometry (hand-placed satellites) and on
//! Starlink's first shell (delays recomputed independently).

use super::schedule::{GatewaySpec, SchedulerParams, TerminalSpec};
use super::*;
use crate::channel::PacketKind;
use crate::engine::time::{Dur, Time};
use crate::geo::{delay_of, geodetic_to_ecef};
use crate::mobility::{NodeMotion, Positions};
use crate::net::layer::{LinkBuild, LinkIo, LinkLayer, LinkPacket, LossReason};
use crate::net::{Dir, LinkDirSpec};
use crate::units::Duration;
use std::sync::Arc;

const MS: u64 = 1_000_000;

#[test]
fn epochs_open_at_the_offset_then_every_period() {
    let c = EpochClock::STARLINK;
    assert_eq!(c.index_at(Dur::ZERO), 0);
    assert_eq!(c.index_at(Dur(12_000 * MS - 1)), 0);
    assert_eq!(c.index_at(Dur(12_000 * MS)), 1);
    assert_eq!(c.index_at(Dur(26_999 * MS)), 1);
    assert_eq!(c.index_at(Dur(27_000 * MS)), 2);
    assert_eq!((c.start(0), c.end(0)), (Dur::ZERO, Dur::from_secs(12)));
    assert_eq!(
        (c.start(3), c.end(3)),
        (Dur::from_secs(42), Dur::from_secs(57))
    );
    assert!(c.is_boundary(Dur::from_secs(57)) && !c.is_boundary(Dur::from_secs(15)));
    assert!(!c.is_boundary(Dur::ZERO));
    // Without an offset the first boundary is one period in.
    let z = EpochClock {
        period: Dur::from_secs(15),
        offset: Dur::ZERO,
    };
    assert_eq!(
        (
            z.index_at(Dur::from_secs(14)),
            z.index_at(Dur::from_secs(15))
        ),
        (0, 1)
    );
    assert_eq!(z.start(2), Dur::from_secs(30));
}

fn dir_spec(rate_bps: u64, queue: u32) -> LinkDirSpec {
    LinkDirSpec {
        name: "access".into(),
        from: 0,
        to: 1,
        rate_bps,
        delay: Dur::ZERO,
        queue,
        channels: Vec::new(),
        geometry: None,
    }
}

/// An access link: uplink (forward) and downlink at `rate_bps`.
fn link(spec: AccessLinkSpec, rate_bps: u64, queue: u32) -> AccessLink {
    let (f, r) = (dir_spec(rate_bps, queue), dir_spec(rate_bps, queue));
    AccessLink::build(
        &spec,
        LinkBuild {
            name: "access",
            seed: 1,
            dirs: [&f, &r],
            channels: [Vec::new(), Vec::new()],
        },
    )
}

fn pkt(slot: u32, bytes: u32) -> LinkPacket {
    LinkPacket {
        slot,
        bytes,
        kind: PacketKind::Data,
        seq: 0,
        retx: false,
    }
}

/// What a driven link did: (slot, delivery time) and (slot, loss reason),
/// in the order they happened.
type Outcome = (Vec<(u32, Time)>, Vec<(u32, LossReason)>);

/// Drive the link: send `sends` (time, direction, slot, bytes) in time
/// order, running its wake-ups in between.
fn drive(l: &mut AccessLink, sends: &[(Time, Dir, u32, u32)]) -> Outcome {
    let mut wakes: Vec<(Time, u64, u32)> = Vec::new();
    let (mut got, mut lost) = (Vec::new(), Vec::new());
    let mut io = LinkIo::default();
    let mut i = 0;
    loop {
        wakes.sort();
        let next_wake = wakes.first().copied();
        let next_send = sends.get(i).copied();
        let take_send = match (next_wake, next_send) {
            (None, None) => break,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(w), Some(s)) => s.0 <= w.0,
        };
        io.delivered.clear();
        io.lost.clear();
        io.wakes.clear();
        let now = if take_send {
            let (t, d, slot, bytes) = next_send.unwrap();
            l.send(t, d, pkt(slot, bytes), &mut io);
            i += 1;
            t
        } else {
            let (t, _, token) = wakes.remove(0);
            l.wake(t, token, &mut io);
            t
        };
        got.extend(io.delivered.iter().map(|&(_, s)| (s, now)));
        lost.extend(io.lost.iter().map(|&(_, s, why)| (s, why)));
        wakes.extend(io.wakes.iter().map(|w| (w.at, w.seq, w.token)));
    }
    (got, lost)
}

/// Frame k of a 750 Hz link starts at ⌊k · 4 000 000 / 3⌋ ns.
fn f750(k: u64) -> Time {
    Time(k * 4_000_000 / 3)
}

#[test]
fn an_idle_downlink_delivers_at_the_end_of_the_first_frame_after_arrival() {
    // 12 Mb/s at 750 frames/s: 16 000 bits (2 000 B) per frame.
    let mut l = link(AccessLinkSpec::default(), 12_000_000, 100);
    let (got, lost) = drive(
        &mut l,
        &[
            // 1 ms: frame 1 (1.333 ms) carries it, delivered at frame 2.
            (Time(MS), Dir::Reverse, 1, 1500),
            // 3 000 B at 10 ms: frame 8 (10.667 ms) takes 2 000 B, frame 9
            // the rest; delivered at frame 10 (13.333 ms).
            (Time(10 * MS), Dir::Reverse, 2, 3000),
            // Exactly at a frame's start (frame 30, 40 ms): that frame.
            (f750(30), Dir::Reverse, 3, 100),
        ],
    );
    assert!(lost.is_empty());
    assert_eq!(got, vec![(1, f750(2)), (2, f750(10)), (3, f750(31))]);
}

#[test]
fn every_uplink_packet_waits_its_grant_busy_or_idle() {
    let mut l = link(AccessLinkSpec::default(), 12_000_000, 100);
    let (got, _) = drive(
        &mut l,
        &[
            // 1 ms: ready at 18 ms, frame 14 (18.667 ms) carries it.
            (Time(MS), Dir::Forward, 1, 1500),
            // 2 ms: ready at 19 ms, too late for frame 14 though 500 B of
            // it are free: frame 15 (20 ms).
            (Time(2 * MS), Dir::Forward, 2, 1500),
            // Right after them: ready at 38 ms, frame 29 (38.667 ms).
            (Time(21 * MS), Dir::Forward, 3, 100),
            // Ready at 117 ms, frame 88 (117.333 ms).
            (Time(100 * MS), Dir::Forward, 4, 100),
        ],
    );
    assert_eq!(
        got,
        vec![(1, f750(15)), (2, f750(16)), (3, f750(30)), (4, f750(89))]
    );
    // The downlink has no grant: 1 ms -> frame 1.
    let mut l = link(AccessLinkSpec::default(), 12_000_000, 100);
    let (got, _) = drive(&mut l, &[(Time(MS), Dir::Reverse, 1, 1500)]);
    assert_eq!(got, vec![(1, f750(2))]);
}

#[test]
fn frames_carry_nothing_during_the_pause_after_a_boundary() {
    let mut l = link(AccessLinkSpec::default(), 12_000_000, 100);
    let (got, _) = drive(
        &mut l,
        &[
            // Before the boundary at 12 s: frame 8999 (11.998667 s) carries
            // it, delivered at 12 s.
            (Time(11_998 * MS), Dir::Reverse, 2, 1500),
            // Just after the boundary: frames up to 12.14 s are paused;
            // frame 9105 (12.14 s) carries it.
            (Time(12_000 * MS + 1), Dir::Reverse, 1, 1500),
            // Mid-pause, uplink: ready at 12.117 s (its grant), still
            // paused; frame 9105.
            (Time(12_100 * MS), Dir::Forward, 3, 100),
        ],
    );
    assert_eq!(got, vec![(2, f750(9000)), (1, f750(9106)), (3, f750(9106))]);
    // A pause before the boundary too: frames from 11.9 s on are empty.
    let spec = AccessLinkSpec {
        pause_before: Some(crate::net::dvbs::spec::Checked::Ok(Duration(
            Dur::from_millis(100),
        ))),
        ..Default::default()
    };
    let mut l = link(spec, 12_000_000, 100);
    let (got, _) = drive(&mut l, &[(Time(11_950 * MS), Dir::Reverse, 1, 1500)]);
    assert_eq!(got, vec![(1, f750(9106))]);
}

#[test]
fn a_full_queue_drops_its_oldest_waiting_packet_or_the_newcomer() {
    // 1.2 Mb/s: 1 600 bits (200 B) per frame; 1 000 B packets take 5 frames.
    let sends: Vec<_> = (1..=4).map(|s| (Time(MS), Dir::Reverse, s, 1000)).collect();
    // Queue of 3 waiting: at 1 ms all four arrive before any frame; the
    // fourth finds 3 waiting (none in service yet).
    let mut l = link(AccessLinkSpec::default(), 1_200_000, 3);
    let (got, lost) = drive(&mut l, &sends[..3]);
    assert!(lost.is_empty() && got.len() == 3);
    let mut l = link(AccessLinkSpec::default(), 1_200_000, 3);
    let (got, lost) = drive(&mut l, &sends);
    assert_eq!(lost, vec![(1, LossReason::Queue)]);
    // Slots 2, 3, 4 in frames 1-5, 6-10, 11-15.
    assert_eq!(got, vec![(2, f750(6)), (3, f750(11)), (4, f750(16))]);
    let spec = AccessLinkSpec {
        drop: Some(DropPolicy::Tail),
        ..Default::default()
    };
    let mut l = link(spec, 1_200_000, 3);
    let (got, lost) = drive(&mut l, &sends);
    assert_eq!(lost, vec![(4, LossReason::Queue)]);
    assert_eq!(got, vec![(1, f750(6)), (2, f750(11)), (3, f750(16))]);
    // A packet a frame already started to carry (slot 1, from frame 1 at
    // 1.333 ms) is in service: not counted, not dropped.
    let mut l = link(AccessLinkSpec::default(), 1_200_000, 1);
    let (_, lost) = drive(
        &mut l,
        &[
            (Time(MS), Dir::Reverse, 1, 1000),
            (Time(2 * MS), Dir::Reverse, 2, 1000),
            (Time(2 * MS + MS / 2), Dir::Reverse, 3, 1000),
        ],
    );
    assert_eq!(lost, vec![(2, LossReason::Queue)]);
}

#[test]
fn flushing_drops_what_waited_from_before_the_boundary() {
    let spec = AccessLinkSpec {
        flush: Some(true),
        ..Default::default()
    };
    // 1.2 Mb/s: five 1 000 B packets at 11.99 s need 25 frames (33 ms):
    // frames 8993-8999 carry slot 1 and part of slot 2 before 12 s; then
    // the pause; at 12.14 s slots 3-5 are dropped, slot 2 (in service)
    // goes on in frames 9105-9107.
    let sends: Vec<_> = (1..=5)
        .map(|s| (Time(11_990 * MS), Dir::Reverse, s, 1000))
        .collect();
    let mut l = link(spec, 1_200_000, 100);
    let (got, lost) = drive(&mut l, &sends);
    assert_eq!(got, vec![(1, f750(8998)), (2, f750(9108))]);
    assert_eq!(
        lost,
        vec![
            (3, LossReason::LinkDown),
            (4, LossReason::LinkDown),
            (5, LossReason::LinkDown)
        ]
    );
}

// ---- The schedule on hand-placed geometry ----------------------------------

/// Node indices of the hand-placed network (all on the equator, by longitude).
mod at {
    pub const D1: u32 = 0; // terminal 1's dish, lon 0
    pub const D4: u32 = 1; // terminal 4's dish, lon 0
    pub const D2: u32 = 2; // lon 10
    pub const D3: u32 = 3; // lon 30
    pub const POP: u32 = 4; // lon 4
    pub const GW_A: u32 = 5; // lon 3, one antenna, 0.1 ms to the PoP
    pub const GW_B: u32 = 6; // lon -3, 5 ms
    pub const GW_C: u32 = 7; // lon 11.5, 3 ms
    pub const SATS: u32 = 8; // sA 1.5, sB -1.5, sC 7, sD 30, sE 24, sF 20, sG 16
    pub const HOSTS: u32 = 100;
}

fn sat(i: u32) -> u32 {
    at::SATS + i
}

/// Satellites 550 km above fixed points; with a 40° minimum elevation a
/// node sees a satellite up to 5.15° of arc away (4.5°: 44.2°; 6°: 35.3°).
fn hand_net(isl_hops: u32, antennas_a: u32) -> AccessNet {
    let ground = |lon: f64| Some(NodeMotion::Fixed(geodetic_to_ecef(0.0, lon, 0.0)));
    let up = |lon: f64| Some(NodeMotion::Fixed(geodetic_to_ecef(0.0, lon, 550e3)));
    let mut nodes = vec![
        ground(0.0),
        ground(0.0),
        ground(10.0),
        ground(30.0),
        ground(4.0),
        ground(3.0),
        ground(-3.0),
        ground(11.5),
    ];
    nodes.extend([1.5, -1.5, 7.0, 30.0, 24.0, 20.0, 16.0].map(up));
    let positions = Arc::new(Positions { nodes });
    let gw = |node, antennas, ms| GatewaySpec {
        node,
        min_elevation_deg: 40.0,
        antennas,
        fibre: vec![Dur(ms * MS / 10)],
    };
    let term = |i: u32, dish| TerminalSpec {
        host: at::HOSTS + i,
        dish,
        pop: 0,
    };
    AccessNet::new(
        positions,
        at::SATS..at::SATS + 7,
        // The chain sD - sE - sF - sG.
        &[(sat(3), sat(4)), (sat(4), sat(5)), (sat(5), sat(6))],
        vec![at::POP],
        vec![
            gw(at::GW_A, antennas_a, 1),
            gw(at::GW_B, 8, 50),
            gw(at::GW_C, 8, 30),
        ],
        vec![
            term(1, at::D1),
            term(4, at::D4),
            term(2, at::D2),
            term(3, at::D3),
        ],
        SchedulerParams {
            clock: EpochClock::STARLINK,
            min_elevation_deg: 40.0,
            isl_hops,
        },
    )
}

/// One-way propagation along `path` of the hand-placed network, plus the fibre.
fn hand_delay(net: &AccessNet, path: &[u32], fibre: Dur) -> Dur {
    let p = |n: u32| net_pos(net, n);
    let legs: u64 = path[..path.len() - 1]
        .windows(2)
        .map(|w| delay_of(p(w[0]).distance(p(w[1]))).0)
        .sum();
    Dur(legs + fibre.0)
}

fn net_pos(_net: &AccessNet, n: u32) -> crate::geo::Vec3 {
    let lon = match n {
        at::D1 | at::D4 => 0.0,
        at::D2 => 10.0,
        at::D3 => 30.0,
        at::GW_A => 3.0,
        at::GW_C => 11.5,
        _ => {
            let lon = [1.5, -1.5, 7.0, 30.0, 24.0, 20.0, 16.0][(n - at::SATS) as usize];
            return geodetic_to_ecef(0.0, lon, 550e3);
        }
    };
    geodetic_to_ecef(0.0, lon, 0.0)
}

#[test]
fn bent_pipe_then_antennas_then_isls_as_the_policy_says() {
    let net = hand_net(3, 1);
    let p = net.plan(0);
    let got = |k: usize| p.terminals[k].clone().expect("served");
    // Terminal 1: sA (1.5°) to gateway A (1.5° further, 0.1 ms of fibre)
    // beats sB to A (4.5°) and anything through B (5 ms).
    let t1 = got(0);
    assert_eq!(t1.path, vec![at::D1, sat(0), at::GW_A, at::POP]);
    assert_eq!((t1.sat, t1.gateway, t1.isl_hops), (sat(0), 0, 0));
    assert_eq!(t1.delay, hand_delay(&net, &t1.path, Dur(MS / 10)));
    // Terminal 4, at the same place, shares sA and A's one antenna on it.
    let t4 = got(1);
    assert_eq!(t4.path, vec![at::D4, sat(0), at::GW_A, at::POP]);
    assert_eq!((t1.sharers, t4.sharers), (2, 2));
    // Terminal 2 sees sC only; A would be nearer the PoP (0.1 ms against
    // 3 ms) but its antenna tracks sA: C.
    let t2 = got(2);
    assert_eq!(t2.path, vec![at::D2, sat(2), at::GW_C, at::POP]);
    assert_eq!(
        (t2.sharers, t2.delay),
        (1, hand_delay(&net, &t2.path, Dur(3 * MS)))
    );
    // Terminal 3 sees only sD, which no gateway sees: three ISL hops to
    // sG, which C sees.
    let t3 = got(3);
    assert_eq!(
        t3.path,
        vec![at::D3, sat(3), sat(4), sat(5), sat(6), at::GW_C, at::POP]
    );
    assert_eq!(t3.isl_hops, 3);
    assert_eq!(t3.delay, hand_delay(&net, &t3.path, Dur(3 * MS)));
    // With two antennas at A, terminal 2 lands at A.
    let two = hand_net(3, 2).plan(0);
    assert_eq!(
        two.terminals[2].as_ref().unwrap().path,
        vec![at::D2, sat(2), at::GW_A, at::POP]
    );
    // Two ISL hops are not enough for terminal 3: no service.
    let short = hand_net(2, 1).plan(0);
    assert!(short.terminals[3].is_none());
    assert!(short.terminals[..3].iter().all(Option::is_some));
}

#[test]
fn the_paths_are_written_into_the_next_hops_both_ways() {
    use crate::net::routing::{Graph, NO_HOP};
    let net = hand_net(3, 1);
    let p = net.plan(0);
    // A graph holding every edge of the paths (weights from the positions)
    // and the hosts' links to their dishes; a server behind the PoP.
    let server = 200;
    let n = 201usize;
    let mut edges = Vec::new();
    for a in p.terminals.iter().flatten() {
        for w in a.path.windows(2) {
            let d = if w[1] == at::POP {
                net.gateways[a.gateway].fibre[0].0
            } else {
                delay_of(net_pos(&net, w[0]).distance(net_pos(&net, w[1]))).0
            };
            edges.push((w[0], w[1], d));
        }
    }
    for t in &net.terminals {
        edges.push((t.host, t.dish, 0));
    }
    edges.push((at::POP, server, MS));
    edges.sort();
    edges.dedup();
    let g = Graph::undirected(n, &edges);
    // Terminal 2's host is a destination too (terminal 3 sends to it):
    // terminal 3's way up crosses gateway C, where 2's way down turns.
    let dests = [server, at::HOSTS + 3, at::HOSTS + 2];
    let mut next = vec![vec![NO_HOP; n]; 3];
    let mut dist = vec![vec![u64::MAX; n]; 3];
    for (s, &d) in dests.iter().enumerate() {
        g.tree_to(d, &mut dist[s], &mut next[s]);
    }
    net.install(Dur::ZERO, &g, &dests, &mut next, &mut dist);
    let t3 = p.terminals[3].as_ref().unwrap();
    // Towards the server: from terminal 3's host up its path, then the PoP.
    let up = crate::net::routing::path_from(&next[0], at::HOSTS + 3, server, n);
    let mut want = vec![at::HOSTS + 3];
    want.extend(&t3.path);
    want.push(server);
    assert_eq!(up, want);
    // Its delay: the path's plus the PoP's link to the server.
    assert_eq!(dist[0][(at::HOSTS + 3) as usize], t3.delay.0 + MS);
    // Towards the host: from the server down the same path reversed.
    let down = crate::net::routing::path_from(&next[1], server, at::HOSTS + 3, n);
    let mut rev = want.clone();
    rev.reverse();
    assert_eq!(down, rev);
    assert_eq!(dist[1][server as usize], t3.delay.0 + MS);
    // Terminal 3 to terminal 2: up 3's path as far as gateway C, where
    // 2's way down turns (next hops go by destination: the packet does not
    // visit the PoP), then down 2's path.
    let t2 = p.terminals[2].as_ref().unwrap();
    let across = crate::net::routing::path_from(&next[2], at::HOSTS + 3, at::HOSTS + 2, n);
    let mut want = vec![at::HOSTS + 3];
    want.extend(&t3.path[..t3.path.len() - 1]);
    want.extend([sat(2), at::D2, at::HOSTS + 2]);
    assert_eq!(across, want);
    let fibre_c = 3 * MS;
    assert_eq!(
        dist[2][(at::HOSTS + 3) as usize],
        t3.delay.0 - fibre_c + t2.delay.0 - fibre_c
    );
}

#[test]
fn a_terminal_sharing_its_satellite_gets_its_share_of_each_frame() {
    // Terminals 1 and 4 share sA (two sharers); terminal 2 has sC alone;
    // with a two-hop ISL limit terminal 3 has no satellite at all.
    let net = Arc::new(hand_net(2, 1));
    let on = |terminal: usize| {
        let spec = AccessLinkSpec {
            beam: Some(BeamShare {
                net: net.clone(),
                terminal,
            }),
            ..Default::default()
        };
        // 12 Mb/s: 2 000 B per frame alone, 1 000 B per frame shared by two.
        link(spec, 12_000_000, 100)
    };
    let sends = [(Time(MS), Dir::Reverse, 1, 1500)];
    // Shared: frame 1 carries 1 000 B, frame 2 the last 500: delivered at
    // the end of frame 2.
    let (got, lost) = drive(&mut on(0), &sends);
    assert!(lost.is_empty());
    assert_eq!(got, vec![(1, f750(3))]);
    let (got, _) = drive(&mut on(1), &sends);
    assert_eq!(got, vec![(1, f750(3))]);
    // Alone: frame 1 carries all of it.
    let (got, _) = drive(&mut on(2), &sends);
    assert_eq!(got, vec![(1, f750(2))]);
    // Unserved: no frame carries anything; the link looks again at each
    // epoch's first frame (12 s, then 27 s), the packet still waiting.
    let mut l = on(3);
    let mut io = LinkIo::default();
    l.send(Time(MS), Dir::Reverse, pkt(1, 1500), &mut io);
    let wakes: Vec<Time> = io.wakes.iter().map(|w| w.at).collect();
    assert_eq!(wakes, vec![f750(9000)]);
    let token = io.wakes[0].token;
    let mut io = LinkIo::default();
    l.wake(f750(9000), token, &mut io);
    let wakes: Vec<Time> = io.wakes.iter().map(|w| w.at).collect();
    assert_eq!(wakes, vec![f750(20250)]);
    assert!(io.delivered.is_empty() && io.lost.is_empty());
}

#[test]
fn an_overloaded_drop_front_queue_delivers_the_oldest_of_the_last_arrivals() {
    // 1.2 Mb/s: one 200 B packet per frame (750 per second); 200 B arrive
    // every 0.5 ms (2 000 per second) into a queue of 10. Full, the queue
    // holds the last 10 arrivals: the frame opening at f carries the tenth
    // newest arrival by f, which waited about 10 / 2 000 s (drop-front: the
    // queue's length over the arrival rate); drop-tail keeps the oldest,
    // which waited about 10 / 750 s.
    let at = |i: u64| Time(i * MS / 2 + MS / 10);
    let sends: Vec<_> = (0..600u32)
        .map(|i| (at(i as u64), Dir::Reverse, i, 200))
        .collect();
    let newest_by = |t: Time| (0..600u64).rev().find(|&i| at(i) <= t);
    for (drop, head) in [(DropPolicy::Front, 9u64), (DropPolicy::Tail, 0)] {
        let spec = AccessLinkSpec {
            drop: Some(drop),
            ..Default::default()
        };
        let (got, lost) = drive(&mut link(spec, 1_200_000, 10), &sends);
        assert_eq!(got.len() + lost.len(), 600);
        let mut waits = Vec::new();
        let mut prev_slot = None;
        for &(slot, t) in &got {
            // Delivered at the end of frame k, which opened at f750(k).
            let k = (t.0 * 3).div_ceil(4_000_000) - 1;
            assert_eq!(t, f750(k + 1));
            let newest = newest_by(f750(k)).unwrap();
            if !(40..599).contains(&newest) {
                continue; // filling up; or the arrivals have stopped
            }
            match drop {
                // The tenth newest arrival by the frame's start.
                DropPolicy::Front => assert_eq!(slot as u64, newest - head, "frame {k}"),
                // The queue of 10 behind it, in arrival order.
                DropPolicy::Tail => assert!(prev_slot.is_none_or(|p| slot > p)),
            }
            prev_slot = Some(slot);
            waits.push(t.since(at(slot as u64)).0);
        }
        let mean = waits.iter().sum::<u64>() / waits.len() as u64;
        match drop {
            // 9 arrivals of 0.5 ms, the wait for the frame, the frame.
            DropPolicy::Front => assert!((5 * MS..7 * MS).contains(&mean), "{mean}"),
            // 10 frames of 1.33 ms ahead of it, and its own.
            DropPolicy::Tail => assert!((13 * MS..16 * MS).contains(&mean), "{mean}"),
        }
    }
}
