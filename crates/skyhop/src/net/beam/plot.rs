//! What `channel plot` draws of a beam's terminal: on its forward
//! direction, the Es/N0 it receives on the beam's carrier and the MODCOD
//! the gateway's ACM picks for it from its delayed reports (the same rule
//! as in a run: `dvbs2/acm.rs`), with that MODCOD's threshold — a frame
//! is lost where the Es/N0 is below it.

use super::spec::BeamParams;
use crate::engine::time::Time;
use crate::net::dvbs2::acm::Acm;
use crate::net::dvbs2::MODCODS;
use crate::net::medium::{Esn0Fn, MemberPlot};

pub(crate) fn member(
    p: &BeamParams,
    m: usize,
    out_of_hub: bool,
    esn0: &mut Esn0Fn,
    times: &[Time],
) -> MemberPlot {
    let Some(f) = &p.forward else {
        return MemberPlot::default();
    };
    if !out_of_hub {
        return MemberPlot::default();
    }
    let rs = f.symbol_rate;
    let default = f.default_esn0_db;
    let mut at = |t: Time| esn0(t, rs).or(default).unwrap_or(f64::NAN);
    let mut acm = Acm::new(&f.ladder, f.report_delay[m]);
    let (mut es, mut th, mut eff, mut lost, mut names) = (vec![], vec![], vec![], vec![], vec![]);
    for &t in times {
        let rung = acm.update(t, &f.ladder, &f.rule, &mut at);
        let e = at(t);
        es.push(e);
        th.push(f.ladder.threshold_db[rung]);
        eff.push(f.ladder.efficiency[rung]);
        lost.push(if e < f.ladder.threshold_db[rung] {
            1.0
        } else {
            0.0
        });
        names.push(MODCODS[f.ladder.index[rung]].name.to_string());
    }
    MemberPlot {
        series: vec![
            ("esn0_db", es),
            ("modcod_threshold_db", th),
            ("modcod_efficiency", eff),
            ("frame_lost", lost),
        ],
        labels: vec![("modcod", names)],
    }
}
