//! A QUIC flow's results: the flow's keys (as a TCP flow's), one row per
//! connection end from quinn's statistics (`RunResult.quic`), and for each
//! QUIC-terminating proxy its occupancy, as a split-TCP proxy reports it.

use super::state::FlowRt;
use crate::engine::Time;
use crate::result::{FlowResult, ProxyResult, QuicResult, Series};
use std::collections::BTreeMap;

/// Where a QUIC flow's results go besides its flow entry.
pub(super) struct QuicOut<'a> {
    pub rows: &'a mut Vec<QuicResult>,
    pub proxies: &'a mut Vec<ProxyResult>,
    pub traces: &'a mut BTreeMap<String, Series>,
    pub warnings: &'a mut Vec<String>,
}

/// The flow result of QUIC flow `f` (legs: none; its connections' rows,
/// its proxies and their traces in `out`), and the warning of an error
/// that closed one of its connections.
pub(super) fn quic_flow_result(
    f: FlowRt,
    plan_nodes: &[String],
    stop: Time,
    out: QuicOut<'_>,
) -> (FlowResult, Option<String>) {
    let name = &f.name;
    let q = f.quic.as_deref().expect("a QUIC flow");
    let (first, last) = (&q.legs[0].conn, &q.legs[q.legs.len() - 1].conn);
    let end = f.done_at.or(q.failed_at).unwrap_or(stop);
    let active = end.since(f.start).as_secs_f64();
    let mut fr = FlowResult {
        completion_time_s: f.done_at.map(|t| t.since(f.start).as_secs_f64()),
        active_time_s: active,
        ..Default::default()
    };
    // Delivered: in order at the far end of every forward stream.
    for s in 0..last.streams().len() {
        if last.streams().sender(s) == 0 {
            fr.bytes_delivered += last.streams().delivered(s);
        }
    }
    fr.bytes_sent = first.stats(0).map_or(0, |st| st.udp_tx.bytes);
    for (k, leg) in q.legs.iter().enumerate() {
        let c = &leg.conn;
        let handshake = |e: usize| {
            c.connected_at(e)
                .zip(c.opened_at())
                .map(|(t, o)| t.since(o).as_secs_f64())
        };
        for e in 0..2 {
            let Some(st) = c.stats(e) else { continue };
            fr.retransmissions += st.path.lost_packets;
            fr.timeouts += c.ptos(e);
            fr.fast_recoveries += st.path.congestion_events;
            let role = if c.client() == Some(e) {
                "client"
            } else {
                "server"
            };
            out.rows.push(QuicResult {
                flow: name.to_string(),
                leg: k as u32,
                end: role.to_string(),
                node: plan_nodes[leg.nodes[e] as usize].clone(),
                controller: leg.controller.to_string(),
                handshake_s: handshake(e),
                rtt_s: st.path.rtt.as_secs_f64(),
                min_rtt_s: st.path.min_rtt.as_secs_f64(),
                cwnd_bytes: st.path.cwnd,
                congestion_events: st.path.congestion_events,
                lost_packets: st.path.lost_packets,
                lost_bytes: st.path.lost_bytes,
                packets_sent: st.path.sent_packets,
                datagrams_sent: st.udp_tx.datagrams,
                datagrams_received: st.udp_rx.datagrams,
                bytes_sent: st.udp_tx.bytes,
                bytes_received: st.udp_rx.bytes,
                ptos: c.ptos(e),
                mtu: st.path.current_mtu as u64,
                stream_frames_sent: st.frame_tx.stream,
                ack_frames_sent: st.frame_tx.acks,
            });
        }
    }
    // The flow's handshake: its client's, on the connection it opened.
    let client = match (first.client(), last.client()) {
        (Some(0), _) => Some((first, 0)),
        (_, Some(1)) => Some((last, 1)),
        _ => None,
    };
    fr.handshake_s = client.and_then(|(c, e)| {
        c.connected_at(e)
            .zip(c.opened_at())
            .map(|(t, o)| t.since(o).as_secs_f64())
    });
    if q.probe {
        // A probe over QUIC: its datagrams as a probe's (sent: handed to
        // the connection; lost ones are not told from those in flight).
        let (sent, ..) = first.datagram_counts();
        let (_, received, bytes, mean, max) = last.datagram_counts();
        fr.packets_sent = Some(sent);
        fr.packets_received = Some(received);
        fr.bytes_delivered = bytes;
        fr.delay_mean_s = mean;
        fr.delay_max_s = max;
    }
    if active > 0.0 {
        fr.goodput_bps = fr.bytes_delivered as f64 * 8.0 / active;
        fr.throughput_bps = fr.bytes_sent as f64 * 8.0 / active;
    }
    // Terminating proxies: forward, and reverse if any stream went that way.
    let reverse = (0..first.streams().len()).any(|s| first.streams().sender(s) == 1);
    for (p, pair) in q.relays.iter().enumerate() {
        for (dir, r) in pair.iter().enumerate() {
            if dir == 1 && !reverse {
                continue;
            }
            // Credit the proxy's incoming end announced (MAX_STREAM_DATA, MAX_DATA).
            let (leg, e) = if dir == 0 { (p, 1) } else { (p + 1, 0) };
            let updates = q.legs[leg]
                .conn
                .stats(e)
                .map_or(0, |st| st.frame_tx.max_stream_data + st.frame_tx.max_data);
            out.proxies.push(ProxyResult {
                flow: name.to_string(),
                node: plan_nodes[r.node as usize].clone(),
                cache_bytes: r.cache_bytes,
                quic: true,
                max_occupancy_bytes: r.occupancy.max(),
                mean_occupancy_bytes: r.occupancy.mean(end),
                window_updates: updates,
                ..Default::default()
            });
        }
    }
    for (p, tr) in f.proxy_traces.into_iter().enumerate() {
        let node = &plan_nodes[q.relays[p][0].node as usize];
        out.traces.insert(
            format!("{name}.proxy.{node}.occupancy"),
            tr.into_series(stop),
        );
    }
    fr.app = f.app.report(end);
    let dropped: u64 = q.legs.iter().map(|l| l.conn.relay_dropped()).sum();
    if dropped > 0 {
        out.warnings.push(format!(
            "flow {name}: {dropped} datagrams dropped at a QUIC-terminating proxy, \
             too large for the connection onward (its path's datagram size still smaller)"
        ));
    }
    let error = q
        .legs
        .iter()
        .filter_map(|l| l.conn.error().map(|e| (l, e)))
        .min_by_key(|(_, e)| e.0);
    let warning = error.map(|(l, (t, e, words))| {
        let node = &plan_nodes[l.nodes[*e] as usize];
        fr.connection_error = Some(words.clone());
        format!(
            "flow {name}: quinn closed the QUIC connection at {node} at t = {} s: {words}",
            t.as_secs_f64()
        )
    });
    (fr, warning)
}
