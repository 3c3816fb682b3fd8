//! The results of a run, assembled from the world when it stops: per flow
//! (end to end, per leg and direction summed over the flow's streams), per
//! proxy, per link direction, engine counters and the recorded traces.

use super::state::Conn;
use super::world::World;
use crate::app::StreamDir;
use crate::engine::Time;
use crate::net::{Dir, Payload};
use crate::result::{
    EngineStats, FlowResult, LegResult, LinkResult, ProxyResult, RunResult, Series,
};

impl World {
    /// The run's results, the world stopped at `stop`.
    pub fn finish(mut self, stop: Time) -> RunResult {
        let events = self.events;
        // Member links take their counters from their media.
        let media = self.settle_media(stop);
        let trace = self.trace;
        let names = *self.names;
        let plan_nodes = &names.nodes;
        let mut res = RunResult {
            seed: names.seed,
            warnings: names.warnings.clone(),
            media: media
                .into_iter()
                .map(|(n, r)| (n, crate::result::MediumResult::from_report(r)))
                .collect(),
            ..Default::default()
        };
        let mut conns: Vec<Option<Conn>> = self.conns.into_iter().map(Some).collect();
        // Datagrams still on their way when the run stops (neither received nor lost).
        let mut in_flight = vec![0u64; self.flows.len()];
        if self.flows.iter().any(|f| f.dgram.is_some()) {
            for p in self.packets.live() {
                if matches!(p.payload, Payload::Datagram { .. }) {
                    in_flight[p.conn as usize] += 1;
                }
            }
        }
        for (fi, f) in self.flows.into_iter().enumerate() {
            if f.quic.is_some() {
                let name = f.name.clone();
                let out = super::quic_result::QuicOut {
                    rows: &mut res.quic,
                    proxies: &mut res.proxies,
                    traces: &mut res.traces,
                    warnings: &mut res.warnings,
                };
                let (fr, warning) = super::quic_result::quic_flow_result(f, plan_nodes, stop, out);
                res.warnings.extend(warning);
                res.flows.insert(name, fr);
                continue;
            }
            if let Some(d) = &f.dgram {
                let end = f.done_at.unwrap_or(stop);
                let active = end.since(f.start).as_secs_f64();
                let mut fr = FlowResult {
                    bytes_delivered: d.bytes_received,
                    bytes_sent: d.bytes_sent,
                    active_time_s: active,
                    packets_sent: Some(d.sent),
                    packets_received: Some(d.received),
                    packets_lost: Some(d.lost(in_flight[fi])),
                    loss_rate: Some(d.loss_rate(in_flight[fi])),
                    delay_mean_s: d.delay_mean_s(),
                    delay_max_s: d.delay_max_s(),
                    ..Default::default()
                };
                if active > 0.0 {
                    fr.goodput_bps = d.bytes_received as f64 * 8.0 / active;
                    fr.throughput_bps = d.bytes_sent as f64 * 8.0 / active;
                }
                if let Some(samples) = &d.delays {
                    // By send instant: each received datagram's one-way delay.
                    let mut samples = samples.clone();
                    samples.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let (t_s, value) = samples.into_iter().unzip();
                    res.traces
                        .insert(format!("{}.delay", f.name), Series { t_s, value });
                }
                res.flows.insert(f.name.clone(), fr);
                continue;
            }
            // Delivered: in order at the far end of every forward stream.
            let mut delivered = 0;
            let mut bytes_sent = 0;
            for (s, st) in f.streams.iter().enumerate() {
                if f.stream_dirs[s] == StreamDir::Forward {
                    delivered += conns[*st.last().unwrap()]
                        .as_ref()
                        .unwrap()
                        .ledger
                        .delivered();
                    bytes_sent += conns[st[0]].as_ref().unwrap().sender.stats.bytes_sent;
                }
            }
            let end = f.done_at.unwrap_or(stop);
            let active = end.since(f.start).as_secs_f64();
            let mut fr = FlowResult {
                completion_time_s: f.done_at.map(|t| t.since(f.start).as_secs_f64()),
                bytes_delivered: delivered,
                bytes_sent,
                active_time_s: active,
                ..Default::default()
            };
            fr.app = f.app.report(end);
            fr.handshake_s = tcp_handshake_s(&f.streams, &conns);
            // Legs and proxies: one entry per position along the path and
            // direction, summed over the flow's streams (a file transfer
            // has one stream, so one entry per leg).
            let n = f.proto.legs.len();
            let mut has_reverse = false;
            let mut legs: Vec<Option<LegResult>> = vec![None; 2 * n];
            let mut deferred = vec![0u64; 2 * n];
            let mut proxies: Vec<Option<(ProxyResult, f64)>> = vec![None; 2 * n];
            let mut pk = 0;
            for (s, st) in f.streams.iter().enumerate() {
                let rev = f.stream_dirs[s] == StreamDir::Reverse;
                has_reverse |= rev;
                for (pos, &ci) in st.iter().enumerate() {
                    let c = conns[ci].take().unwrap();
                    let g = if rev { n + pos } else { pos };
                    let stats = &c.sender.stats;
                    fr.retransmissions += stats.retransmissions;
                    fr.timeouts += stats.timeouts;
                    fr.fast_recoveries += stats.fast_recoveries;
                    deferred[g] += c.receiver.stats.deferred_acks;
                    let lp = &f.proto.legs[c.leg];
                    let ends = if rev {
                        (lp.ends.1.clone(), lp.ends.0.clone())
                    } else {
                        lp.ends.clone()
                    };
                    let lr = leg_result(ends, &lp.variant, &c);
                    match &mut legs[g] {
                        Some(sum) => sum.add(&lr),
                        slot => *slot = Some(lr),
                    }
                    if let Some(tr) = c.trace {
                        for (k, s) in tr.into_series(&format!("{}.{}", f.name, pos), stop) {
                            res.traces.insert(k, s);
                        }
                    }
                }
                for pos in 0..n.saturating_sub(1) {
                    let p = &f.proxies[pk];
                    pk += 1;
                    let g = if rev { n + pos } else { pos };
                    let area = p.occupancy.area(end);
                    let pr = ProxyResult {
                        flow: f.name.clone(),
                        node: plan_nodes[p.node as usize].clone(),
                        cache_bytes: p.cache_bytes,
                        quic: false,
                        max_occupancy_bytes: p.occupancy.max(),
                        mean_occupancy_bytes: 0.0,
                        window_updates: 0,
                        drops: 0,
                        ack_after_forward: p.ack_after_forward,
                        acks_ahead_of_forwarding: p.acks_ahead,
                        max_acked_unforwarded_bytes: p.max_acked_unforwarded,
                        deferred_acks: 0,
                    };
                    match &mut proxies[g] {
                        Some((sum, a)) => {
                            sum.max_occupancy_bytes =
                                sum.max_occupancy_bytes.max(pr.max_occupancy_bytes);
                            sum.acks_ahead_of_forwarding += pr.acks_ahead_of_forwarding;
                            sum.max_acked_unforwarded_bytes = sum
                                .max_acked_unforwarded_bytes
                                .max(pr.max_acked_unforwarded_bytes);
                            *a += area;
                        }
                        slot => *slot = Some((pr, area)),
                    }
                }
            }
            let span = end.since(f.start).as_secs_f64();
            for g in 0..2 * n {
                if g >= n && !has_reverse {
                    break;
                }
                let Some(lr) = legs[g].take() else { continue };
                fr.legs.push(lr);
                if let Some((mut pr, area)) = proxies[g].take() {
                    // Mean over the flow's active time of the occupancy
                    // summed over its connections (all on the same node).
                    pr.mean_occupancy_bytes = if span > 0.0 { area / span } else { 0.0 };
                    pr.window_updates = fr.legs.last().unwrap().window_updates_sent;
                    pr.deferred_acks = deferred[g];
                    res.proxies.push(pr);
                }
            }
            if active > 0.0 {
                fr.goodput_bps = delivered as f64 * 8.0 / active;
                fr.throughput_bps = fr.bytes_sent as f64 * 8.0 / active;
            }
            for (pi, tr) in f.proxy_traces.into_iter().enumerate() {
                let node = &plan_nodes[f.proxies[pi].node as usize];
                res.traces.insert(
                    format!("{}.proxy.{}.occupancy", f.name, node),
                    tr.into_series(stop),
                );
            }
            res.flows.insert(f.name.clone(), fr);
        }
        let dir_stats = || {
            self.layers
                .iter()
                .flat_map(|l| [l.stats(Dir::Forward), l.stats(Dir::Reverse)])
        };
        res.engine = EngineStats {
            events,
            packet_hops: self.packet_hops,
            sim_time_s: stop.as_secs_f64(),
            queue_drops: dir_stats().map(|s| s.queue_drops).sum(),
            channel_drops: dir_stats().map(|s| s.channel_drops).sum(),
            peak_packets: self.packets.high_water() as u64,
        };
        // Per link direction: counters, utilisation and queue occupancy up to `stop`.
        let mut layers = self.layers;
        let mobile = self.mobile;
        for (k, layer) in layers.iter_mut().enumerate() {
            // Links built during a moving run follow the plan's.
            let (link_name, rates) = match names.links.get(k) {
                Some(l) => l.clone(),
                None => {
                    let (name, rate) =
                        mobile.as_ref().unwrap().built[k - names.links.len()].clone();
                    (name, [rate, rate])
                }
            };
            for dir in [Dir::Forward, Dir::Reverse] {
                let ld = 2 * k + dir.index();
                let (from, to) = match names.dirs.get(ld) {
                    Some(&(a, b)) => (
                        plan_nodes[a as usize].clone(),
                        plan_nodes[b as usize].clone(),
                    ),
                    None => {
                        let m = mobile.as_ref().unwrap();
                        let (a, b) = m.dir_ends[ld];
                        (m.names[a as usize].clone(), m.names[b as usize].clone())
                    }
                };
                let st = layer.stats_at(dir, stop);
                let dir_name = if dir == Dir::Forward {
                    "forward"
                } else {
                    "reverse"
                };
                res.links.push(LinkResult {
                    link: link_name.clone(),
                    dir: dir_name.to_string(),
                    from,
                    to,
                    rate_bps: rates[dir.index()],
                    packets: st.packets,
                    bytes: st.bytes,
                    delivered: st.delivered,
                    utilisation: if stop.0 > 0 {
                        st.busy_ns as f64 / stop.0 as f64
                    } else {
                        0.0
                    },
                    queue_drops: st.queue_drops,
                    channel_drops: st.channel_drops,
                    link_drops: st.link_drops,
                    mean_queue_packets: st.mean_queue(stop.0),
                    max_queue_packets: st.max_occupancy,
                    layer: layer
                        .counters(dir)
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                });
                if let Some(tr) = layer.queue_trace(dir, stop) {
                    let (t_s, value) = tr
                        .into_iter()
                        .map(|(t, n)| (t.as_secs_f64(), n as f64))
                        .unzip();
                    res.traces.insert(
                        format!("link.{link_name}.{dir_name}.queue"),
                        Series { t_s, value },
                    );
                }
            }
        }
        if let Some(mut m) = mobile {
            res.network = Some(m.stats());
            if let Some(tr) = m.delay_traces.take() {
                for (i, series) in tr.into_iter().enumerate() {
                    let (src, slot) = m.routes[i];
                    let dst = m.routing.dests[slot as usize];
                    res.traces.insert(
                        format!(
                            "route.{}>{}.delay",
                            m.names[src as usize], m.names[dst as usize]
                        ),
                        series,
                    );
                }
            }
            res.network_events = std::mem::take(&mut m.events);
        }
        if let Some(t) = trace {
            t.apply(&mut res.traces, stop);
        }
        res.packet_log = self.log.map(|b| *b);
        let goodputs: Vec<f64> = res.flows.values().map(|f| f.goodput_bps).collect();
        res.jain_fairness = crate::result::jain_index(&goodputs);
        res
    }
}

/// A TCP flow's handshake time: of the first stream (in opening order)
/// whose connection at the client (the stream's first) opened with a
/// handshake, SYN to SYN-ACK (`None` if it never completed); 0 when no
/// connection of the flow had one.
fn tcp_handshake_s(streams: &[Vec<usize>], conns: &[Option<Conn>]) -> Option<f64> {
    for st in streams {
        let c = conns[st[0]].as_ref().unwrap();
        if let Some((syn, est)) = c.sender.handshake_times() {
            return est.map(|t| t.since(syn).as_secs_f64());
        }
    }
    Some(0.0)
}

/// A connection's leg entry in the results.
fn leg_result(ends: (String, String), variant: &str, c: &Conn) -> LegResult {
    let st = &c.sender.stats;
    LegResult {
        from: ends.0,
        to: ends.1,
        tcp: variant.to_string(),
        bytes_sent: st.bytes_sent,
        bytes_acked: c.sender.snd_una(),
        retransmissions: st.retransmissions,
        timeouts: st.timeouts,
        fast_recoveries: st.fast_recoveries,
        segments_sent: st.segments_sent,
        acks_received: st.acks_received,
        window_probes: st.window_probes,
        window_updates_sent: c.receiver.stats.window_updates,
    }
}
