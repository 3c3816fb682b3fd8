//! The shipped beam scenario (`scenarios/geo_broadband.toml`) end to end,
//! and every bad beam input as one error naming its key.

use crate::common;
use skyhop::scenario::Plan;
use skyhop::{run, RunOptions};

fn plan_err(sets: &[&str]) -> skyhop::ScenarioError {
    let scn = skyhop::scenario::load_str(
        &std::fs::read_to_string(format!(
            "{}/../../scenarios/geo_broadband.toml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
        "geo_broadband.toml",
        &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    );
    match scn {
        Err(e) => e,
        Ok(scn) => match Plan::build(&scn, "geo_broadband.toml") {
            Err(e) => e,
            Ok(_) => panic!("{sets:?} builds"),
        },
    }
}

#[test]
fn the_shipped_beam_runs() {
    let scn = common::scenario("geo_broadband.toml", &["run.duration=\"20 s\""]);
    let r = run(&scn, 1, &RunOptions::default()).unwrap();
    for f in ["up1", "up2", "up3", "up4"] {
        assert!(
            r.flows[f].bytes_delivered > 100_000,
            "{f}: {:?}",
            r.flows[f].bytes_delivered
        );
    }
    assert!(r.flows["down1"].bytes_delivered > 1_000_000);
    let b = &r.media["beam1"].values;
    // The return link's timeslots: never more granted than offered.
    let offered = b["return_slots_offered"].as_f64().unwrap();
    let granted = b["return_slots_granted"].as_f64().unwrap();
    let used = b["return_slots_used"].as_f64().unwrap();
    assert!(used <= granted && granted <= offered && used > 0.0);
    // Every terminal link is still a link in the results, its directions
    // with the beam's counters.
    for t in ["t1", "t2", "t3", "t4"] {
        let rev = r
            .links
            .iter()
            .find(|l| l.link == t && l.dir == "reverse")
            .unwrap();
        assert!(rev.delivered > 0, "{t}");
    }
    // The members' directions at the beam's rates, not the links' own
    // 100 Mb/s: forward, 30 Mbaud at the most efficient MODCOD; return,
    // one carrier's 16 timeslots of 188 bytes per 26.5 ms (a terminal
    // sends on one carrier at a time).
    let p = Plan::build(&scn, "geo_broadband.toml").unwrap();
    let rate = |n: &str| p.links.iter().find(|d| d.name == n).unwrap().rate_bps;
    assert_eq!(
        rate("t3:reverse"),
        (16.0 * 188.0 * 8.0 / 0.0265_f64).round() as u64
    );
    assert!(rate("t3:forward") > 150_000_000, "{}", rate("t3:forward"));
    assert_eq!(rate("core:forward"), 1_000_000_000);
    let terms = b["terminals"].as_array().unwrap();
    assert_eq!(terms.len(), 4);
    assert_eq!(terms[0]["member"], "t1");
    let modcods = b["modcods"].as_array().unwrap();
    assert!(modcods.iter().any(|m| m["member"] == "t1"));
}

#[test]
fn bad_beams_are_one_line_naming_the_key() {
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["beams.beam1.forward.modcods=[\"QPSK 1/2\", \"QPSK 5/7\"]"],
            "beams.beam1.forward.modcods[1]",
            "unknown MODCOD \"QPSK 5/7\"",
        ),
        (
            &["beams.beam1.return.slots_per_frame=17"],
            "beams.beam1.return.slots_per_frame",
            "17 timeslots",
        ),
        (
            &["beams.beam1.return.terminals.t4.cra=\"4 Mbps\""],
            "beams.beam1.return.terminals.t4.cra",
            "more than the beam's 64",
        ),
        (
            &["beams.b2.gateway=\"gw\"", "beams.b2.links=[\"t2\"]"],
            "beams.beam1.links[1]",
            "already in beam \"b2\"",
        ),
        (
            &["beams.beam1.links=[\"t1\", \"t2\", \"t3\", \"t1\", \"t4\"]"],
            "beams.beam1.links[3]",
            "link \"t1\" is listed twice",
        ),
        (
            &["beams.beam1.gateway=\"gx\""],
            "beams.beam1.gateway",
            "node \"gx\" does not exist",
        ),
        (
            &["beams.beam1.return.waveform=30"],
            "beams.beam1.return.waveform",
            "30 is not a reference waveform",
        ),
        (
            &["links.t2.link_layer={model=\"dvbs\"}"],
            "links.t2.link_layer",
            "carried by beam",
        ),
        (
            &["beams.beam1.return.bogus=1"],
            "beams.beam1.return.bogus",
            "",
        ),
    ];
    for (sets, key, words) in cases {
        let e = plan_err(sets);
        assert_eq!(e.key, *key, "{sets:?}: {e}");
        assert!(e.message.contains(words), "{sets:?}: {}", e.message);
        assert!(!e.to_string().contains('\n'), "one line: {e}");
    }
}

#[test]
fn channel_plot_samples_a_terminals_es_n0_and_the_modcod_its_acm_picks() {
    use skyhop::scenario::sample::sample_channel;
    let scn = common::scenario("geo_broadband.toml", &[]);
    let p = Plan::build(&scn, "geo_broadband.toml").unwrap();
    // t1 under rain: the rain model's observables and the beam's ACM.
    let (s, _) = sample_channel(&p, "t1", "forward", 1, 600.0, 1.0).unwrap();
    assert_eq!(s["model"], "rain-fade");
    assert_eq!(s["medium"], "beam1");
    let es = s["esn0_db"].as_array().unwrap();
    let th = s["modcod_threshold_db"].as_array().unwrap();
    let lost = s["frame_lost"].as_array().unwrap();
    let names = s["modcod"].as_array().unwrap();
    assert_eq!(es.len(), 601);
    assert_eq!(s["attenuation_db"].as_array().unwrap().len(), 601);
    for i in 0..es.len() {
        let (e, t) = (es[i].as_f64().unwrap(), th[i].as_f64().unwrap());
        assert_eq!(lost[i].as_f64().unwrap() == 1.0, e < t, "sample {i}");
    }
    assert!(names
        .iter()
        .all(|n| n.as_str().is_some_and(|n| !n.is_empty())));
    // t2 has no model: the beam's clear-sky Es/N0 and, once its first
    // report has arrived (within a second), one MODCOD.
    let (s, _) = sample_channel(&p, "t2", "forward", 1, 10.0, 1.0).unwrap();
    assert!(s["model"].is_null());
    assert!(s["esn0_db"].as_array().unwrap().iter().all(|e| e == 13.5));
    let names = s["modcod"].as_array().unwrap();
    assert!(names[1..].iter().all(|n| n == &names[1]), "{names:?}");
    // A link outside any beam and without a model has nothing to plot.
    let Err(e) = sample_channel(&p, "core", "forward", 1, 10.0, 1.0) else {
        panic!("core has nothing to plot")
    };
    assert!(e.contains("no channel model"), "{e}");
}
