//! A beam's own results: the forward carrier's frames by MODCOD and each
//! terminal's MODCOD over time; the return link's timeslots offered,
//! granted and used, each terminal's requests and grants per superframe,
//! and its access delays.

use super::{Beam, Forward, Return};
use crate::engine::time::Time;
use crate::net::dvbs2::MODCODS;
use crate::net::medium::{MediumReport, MediumTable};

fn table(name: &str, columns: &[&str], rows: Vec<Vec<f64>>) -> MediumTable {
    MediumTable {
        name: name.into(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

pub(super) fn of(b: &Beam, stop: Time) -> MediumReport {
    let n = b.names.len();
    let mut r = MediumReport {
        members: b.names.clone(),
        ..Default::default()
    };
    let secs = stop.as_secs_f64().max(1e-9);
    let mut term_rows: Vec<Vec<f64>> = (0..n).map(|m| vec![m as f64]).collect();
    if let Forward::Carrier(c) = &b.fwd {
        r.scalars
            .push(("forward_frames".into(), c.counters.frames as f64));
        r.scalars.push((
            "forward_padding_bytes".into(),
            c.counters.padding_bytes as f64,
        ));
        r.scalars.push((
            "forward_busy_fraction".into(),
            (c.counters.busy_ns as f64 * 1e-9 / secs).min(1.0),
        ));
        r.tables.push(table(
            "forward_frames",
            &["modcod", "efficiency", "frames"],
            c.counters
                .by_modcod
                .iter()
                .map(|&(i, k)| {
                    let mc = &MODCODS[i];
                    vec![
                        i as f64,
                        mc.efficiency(c.cfg.frame, c.cfg.pilots).unwrap_or(0.0),
                        k as f64,
                    ]
                })
                .collect(),
        ));
        let mut hist = Vec::new();
        for (m, row) in term_rows.iter_mut().enumerate() {
            let tc = c.term_counters(m);
            row.extend([
                tc.frames as f64,
                tc.frames_lost as f64,
                (c.acm_history(m).len() - 1) as f64,
            ]);
            for &(t, rung) in c.acm_history(m) {
                let l = &c.cfg.ladder;
                hist.push(vec![
                    t.as_secs_f64(),
                    m as f64,
                    l.index[rung] as f64,
                    l.efficiency[rung],
                    l.threshold_db[rung],
                ]);
            }
        }
        r.tables.push(table(
            "modcods",
            &["t_s", "member", "modcod", "efficiency", "threshold_db"],
            hist,
        ));
    } else {
        for row in term_rows.iter_mut() {
            row.extend([0.0, 0.0, 0.0]);
        }
    }
    if let Return::Rcs2(rl) = &b.ret {
        let (mut granted, mut used) = (0, 0);
        for (m, row) in term_rows.iter_mut().enumerate() {
            let (g, u) = rl.slots(m);
            granted += g;
            used += u;
            let (k, mean) = rl.access_delay(m);
            row.extend([
                g as f64,
                u as f64,
                k as f64,
                mean,
                rl.access_delay_quantile(m, 0.5),
                rl.access_delay_quantile(m, 0.95),
                rl.access_delay_quantile(m, 0.99),
            ]);
        }
        let offered = rl.slots_offered.max(1) as f64;
        r.scalars
            .push(("return_capacity_bps".into(), rl.cfg.sf.rate_bps()));
        r.scalars
            .push(("return_slots_offered".into(), rl.slots_offered as f64));
        r.scalars
            .push(("return_slots_granted".into(), granted as f64));
        r.scalars.push(("return_slots_used".into(), used as f64));
        r.scalars
            .push(("return_utilisation".into(), used as f64 / offered));
        r.scalars
            .push(("return_granted_fraction".into(), granted as f64 / offered));
        r.tables.push(rl.grant_table());
        r.tables.push(rl.delay_table());
    } else {
        for row in term_rows.iter_mut() {
            row.extend([0.0; 7]);
        }
    }
    r.tables.push(table(
        "terminals",
        &[
            "member",
            "forward_frames",
            "forward_frames_lost",
            "modcod_switches",
            "return_slots_granted",
            "return_slots_used",
            "access_delays",
            "access_delay_mean_s",
            "access_delay_p50_s",
            "access_delay_p95_s",
            "access_delay_p99_s",
        ],
        term_rows,
    ));
    r
}
