//! Per-link statistics and the per-packet observer: the counters add up,
//! agree with the log event by event, and observing changes nothing.

use crate::common;
use skyhop::engine::Time;
use skyhop::export::link_dirs_by_name;
use skyhop::net::{LossReason, Payload};
use skyhop::observe::{PacketEventKind, PacketLogOptions};
use skyhop::scenario::{load_str, Plan};
use skyhop::{run, RunOptions, RunResult};
use std::collections::BTreeMap;

const TWO_FLOWS: &str = r#"
[run]
duration = "40 s"
[nodes.A]
[nodes.B]
[nodes.R]
[nodes.D]
[links.ar]
between = ["A", "R"]
rate = "10 Mbps"
delay = "5 ms"
per = 0.002
[links.br]
between = ["B", "R"]
rate = "10 Mbps"
delay = "40 ms"
[links.rd]
between = ["R", "D"]
rate = "2 Mbps"
delay = "125 ms"
queue = 20
per = 0.003
[flows.one]
from = "A"
to = "D"
tcp = "sack"
[flows.two]
from = "B"
to = "D"
tcp = "newreno"
start = "3 s"
size = "2 MB"
"#;

fn logged(opts: PacketLogOptions) -> (Plan, RunResult) {
    let scn = load_str(TWO_FLOWS, "two.toml", &common::studies(&[])).unwrap();
    let plan = Plan::build(&scn, "two.toml").unwrap();
    let res = run(
        &scn,
        3,
        &RunOptions {
            packet_log: Some(opts),
            ..Default::default()
        },
    )
    .unwrap();
    (plan, res)
}

#[test]
fn per_link_counters_add_up_and_match_the_packet_log() {
    let (_plan, res) = logged(PacketLogOptions::default());
    let log = res.packet_log.as_ref().unwrap();
    assert_eq!(res.links.len(), 6);
    // Drops per link add up to the run's totals.
    let q: u64 = res.links.iter().map(|l| l.queue_drops).sum();
    let c: u64 = res.links.iter().map(|l| l.channel_drops).sum();
    assert_eq!(q, res.engine.queue_drops);
    assert_eq!(c, res.engine.channel_drops);
    assert!(q > 0 && c > 0, "the scenario exercises both kinds of loss");
    // Bytes carried on a link = the sum over the flows crossing it (from
    // the log, packet by packet); every counter agrees with the events.
    for (ld, l) in res.links.iter().enumerate() {
        let mut per_flow: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        let (mut qd, mut cd, mut arr) = (0, 0, 0);
        for (i, e) in log.events.iter().enumerate() {
            if e.link_dir as usize != ld {
                continue;
            }
            match e.kind {
                PacketEventKind::Enqueue if log.accepted(i) => {
                    let flow = log.conns[e.conn as usize].flow as u32;
                    let s = per_flow.entry(flow).or_default();
                    s.0 += 1;
                    s.1 += e.size_bytes as u64;
                }
                PacketEventKind::Drop(LossReason::Queue) => qd += 1,
                PacketEventKind::Drop(LossReason::Channel) => cd += 1,
                PacketEventKind::Arrive => arr += 1,
                _ => {}
            }
        }
        let name = format!("{}:{}", l.link, l.dir);
        assert_eq!(
            per_flow.values().map(|v| v.0).sum::<u64>(),
            l.packets,
            "{name}"
        );
        assert_eq!(
            per_flow.values().map(|v| v.1).sum::<u64>(),
            l.bytes,
            "{name}"
        );
        assert_eq!(
            (qd, cd, arr),
            (l.queue_drops, l.channel_drops, l.delivered),
            "{name}"
        );
        assert!((0.0..=1.0).contains(&l.utilisation), "{name}");
        assert!(l.mean_queue_packets <= l.max_queue_packets as f64, "{name}");
        if l.link == "rd" && l.dir == "forward" {
            assert_eq!(per_flow.len(), 2, "both flows cross rd");
        }
    }
    // Independently of the log: the first link of flow one carries exactly
    // what its sender sent (40-byte headers; no other flow uses ar).
    let one = &res.flows["one"].legs[0];
    let ar = &res.links[0];
    assert_eq!((ar.link.as_str(), ar.dir.as_str()), ("ar", "forward"));
    assert_eq!(ar.bytes, one.bytes_sent + 40 * one.segments_sent);
    assert_eq!(ar.packets, one.segments_sent);
    // The shared 2 Mb/s bottleneck is busy and holds a standing queue.
    let rd = res
        .links
        .iter()
        .find(|l| l.link == "rd" && l.dir == "forward")
        .unwrap();
    assert!(rd.utilisation > 0.5, "{}", rd.utilisation);
    assert!(
        rd.queue_drops > 0 && rd.max_queue_packets == 21,
        "drops at the bottleneck: 20 waiting + 1 in service"
    );
    assert!(rd.mean_queue_packets > 1.0);
}

#[test]
fn observing_changes_no_result_and_filters_by_link_and_window() {
    let scn = load_str(TWO_FLOWS, "two.toml", &common::studies(&[])).unwrap();
    let plain = run(&scn, 3, &RunOptions::default()).unwrap();
    let (plan, full) = logged(PacketLogOptions::default());
    let mut stripped = full.clone();
    stripped.packet_log = None;
    assert_eq!(plain, stripped);
    let lds = link_dirs_by_name(&plan, &["rd".into(), "br:forward".into()]).unwrap();
    assert_eq!(lds, vec![2, 4, 5]);
    assert!(link_dirs_by_name(&plan, &["xy".into()])
        .unwrap_err()
        .contains("unknown link \"xy\""));
    let (from, to) = (Time(10_000_000_000), Time(20_000_000_000));
    let (_, part) = logged(PacketLogOptions {
        link_dirs: Some(lds.clone()),
        from,
        to,
        built_links: false,
    });
    let want: Vec<_> = full
        .packet_log
        .unwrap()
        .events
        .into_iter()
        .filter(|e| lds.contains(&e.link_dir) && e.t >= from && e.t <= to)
        .collect();
    let got = part.packet_log.unwrap().events;
    assert!(!got.is_empty());
    assert_eq!(got, want);
    // Data, ACKs and sequence numbers are there.
    assert!(got
        .iter()
        .any(|e| matches!(e.payload, Payload::Ack(a) if !a.sack.is_empty())));
}

#[test]
fn describe_derives_slant_range_delays_exactly_as_the_geometry_helper() {
    let path = format!(
        "{}/../../scenarios/e2_geo_onboard.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let scn = load_str(&std::fs::read_to_string(path).unwrap(), "e2", &[]).unwrap();
    let plan = Plan::build(&scn, "e2").unwrap();
    let d = skyhop::scenario::describe::describe(&scn, &plan);
    for (link, ground) in [("up", "NY"), ("down", "SF")] {
        let n = &scn.nodes[ground];
        let g = skyhop::geo::geo_link(n.lat.unwrap(), n.lon.unwrap(), -96.0).unwrap();
        for l in d.links.iter().filter(|l| l.link == link) {
            assert_eq!(l.delay_source, "slant range");
            assert_eq!(l.delay_s, g.delay.as_secs_f64());
            assert_eq!(l.elevation_deg, Some(g.elevation_deg));
            assert_eq!(l.azimuth_deg, Some(g.azimuth_deg));
            assert_eq!(l.slant_range_m, Some(g.slant_range_m));
        }
    }
    // Node positions are checked at the node's key.
    let bad = load_str(
        &std::fs::read_to_string(format!(
            "{}/../../scenarios/e2_geo_onboard.toml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
        "e2",
        &["nodes.NY.lat=95.0".into()],
    )
    .and_then(|s| Plan::build(&s, "e2").map(|_| ()))
    .unwrap_err();
    assert_eq!(bad.key, "nodes.NY.lat");
}

#[test]
fn thinned_traces_are_the_full_traces_sampled_and_change_nothing_else() {
    use skyhop::engine::Dur;
    use skyhop::observe::{thin, TraceOptions};
    let scn = load_str(TWO_FLOWS, "two.toml", &common::studies(&[])).unwrap();
    let traced = |trace_options: TraceOptions| {
        run(
            &scn,
            3,
            &RunOptions {
                trace: true,
                trace_options,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let full = traced(TraceOptions::default());
    let every = Dur::from_millis(250);
    let thinned = traced(TraceOptions {
        every: Some(every),
        quantities: Some(vec!["cwnd".into(), "queue".into()]),
    });
    let stop = Time::from_secs_f64(full.engine.sim_time_s);
    let kept: Vec<&String> = thinned.traces.keys().collect();
    assert!(kept
        .iter()
        .all(|k| k.ends_with(".cwnd") || k.ends_with(".queue")));
    assert!(
        kept.iter().any(|k| k.ends_with(".cwnd")) && kept.iter().any(|k| k.ends_with(".queue"))
    );
    for (name, s) in &thinned.traces {
        assert_eq!(s, &thin(&full.traces[name], every, stop), "{name}");
        // at most one point per 250 ms
        assert!(
            s.t_s.len() as f64 <= full.engine.sim_time_s / 0.25 + 1.0,
            "{name}"
        );
        assert!(s
            .t_s
            .iter()
            .all(|t| (t * 4.0 - (t * 4.0).round()).abs() < 1e-9));
    }
    let points = |r: &RunResult| r.traces.values().map(|s| s.t_s.len()).sum::<usize>();
    assert!(
        points(&thinned) * 20 < points(&full),
        "{} vs {}",
        points(&thinned),
        points(&full)
    );
    // the run itself is the same
    let mut a = full.clone();
    let mut b = thinned.clone();
    a.traces.clear();
    b.traces.clear();
    assert_eq!(a, b);
}
