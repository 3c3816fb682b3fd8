//! A beam of terminals built from its scenario table and driven by hand.

use super::*;
use crate::engine::time::Dur;
use crate::net::link_dir::LinkDirSpec;
use crate::net::medium::{MediumBuild, MemberBuild};
use std::collections::BTreeMap;

fn spec(text: &str) -> BeamSpec {
    toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
}

fn dir(name: &str, from: u32, to: u32) -> LinkDirSpec {
    LinkDirSpec {
        name: name.into(),
        from,
        to,
        rate_bps: 1_000_000,
        delay: Dur::from_millis(250),
        queue: 100,
        channels: Vec::new(),
        geometry: None,
    }
}

fn shapes(n: usize, esn0: bool) -> Vec<(String, MemberShape<'static>)> {
    (0..n)
        .map(|i| {
            let name: &'static str = Box::leak(format!("t{i}").into_boxed_str());
            (
                name.to_string(),
                MemberShape {
                    name,
                    fwd_delay: Dur::from_millis(250),
                    rtn_delay: Dur::from_millis(250),
                    has_esn0: esn0,
                },
            )
        })
        .collect()
}

const BEAM: &str = r#"
gateway = "gw"
links = ["t0", "t1"]
[forward]
symbol_rate_mbaud = 1.0
pilots = false
modcods = ["QPSK 1/4", "QPSK 1/2", "8PSK 3/4"]
margin_db = 0.0
hysteresis_db = 0.0
report_delay = "0 ms"
esn0_db = 2.0
[return]
symbol_rate_mbaud = 0.36
waveform = 14
guard_symbols = 184
frame = "50 ms"
scheduler_latency = "50 ms"
cra = "30080 bps"
[return.terminals.t1]
cra = "60160 bps"
weight = 2.0
"#;

fn resolve(text: &str, n: usize, esn0: bool) -> Result<BeamParams, (String, String)> {
    let s = shapes(n, esn0);
    let m: Vec<MemberShape> = s.iter().map(|x| x.1).collect();
    spec(text).resolve(&m)
}

#[test]
fn bad_beams_name_their_key() {
    let modcod = BEAM.replace("\"8PSK 3/4\"]", "\"8PSK 3/5\", \"8PSK 7/8\"]");
    let e = resolve(&modcod, 2, true).unwrap_err();
    assert_eq!(e.0, "forward.modcods[3]");
    assert!(e.1.starts_with("unknown MODCOD \"8PSK 7/8\""), "{}", e.1);
    let slots = BEAM.replace(
        "frame = \"50 ms\"",
        "frame = \"50 ms\"\nslots_per_frame = 11",
    );
    let e = resolve(&slots, 2, true).unwrap_err();
    assert_eq!(e.0, "return.slots_per_frame");
    // 10 timeslots of 1 504 bits per 50 ms: 300.8 kbit/s; CRA of 5 and 6
    // timeslots per superframe does not fit.
    let cra = BEAM
        .replace("cra = \"30080 bps\"", "cra = \"150400 bps\"")
        .replace("cra = \"60160 bps\"", "cra = \"180480 bps\"");
    let e = resolve(&cra, 2, true).unwrap_err();
    assert_eq!(e.0, "return.terminals.t1.cra");
    assert!(
        e.1.contains("needs 11 timeslots per superframe, more than the beam's 10"),
        "{}",
        e.1
    );
    let stranger = BEAM.replace("[return.terminals.t1]", "[return.terminals.t9]");
    assert_eq!(
        resolve(&stranger, 2, true).unwrap_err().0,
        "return.terminals.t9"
    );
    let none = BEAM.replace("cra = \"30080 bps\"\n", "");
    assert_eq!(
        resolve(&none, 2, true).unwrap_err().0,
        "return.terminals.t0"
    );
    let no_esn0 = BEAM.replace("esn0_db = 2.0\n", "");
    let e = resolve(&no_esn0, 2, false).unwrap_err();
    assert_eq!(e.0, "forward.esn0_db");
    let wf = BEAM.replace("waveform = 14", "waveform = 2");
    assert_eq!(resolve(&wf, 2, true).unwrap_err().0, "return.waveform");
}

#[test]
fn describe_gives_the_modcod_range_the_superframe_and_the_categories() {
    let s = shapes(2, true);
    let m: Vec<MemberShape> = s.iter().map(|x| x.1).collect();
    let b = spec(BEAM);
    let p = b.resolve(&m).unwrap();
    let lines = b.describe(&p, &m);
    assert!(lines[0].contains("3 MODCODs from QPSK 1/4 (-2.35 dB, 0.490 bit/sym) to 8PSK 3/4 (7.91 dB, 2.228 bit/sym)"), "{}", lines[0]);
    assert!(lines[1].contains("waveform 14 (QPSK 1/2, 188 bytes per 1616-symbol burst), 1 carrier(s) at 0.36 Mbaud, superframe 50 ms of 1 frame(s) × 10 timeslots of 5.000 ms: 10 timeslots, 300800 bit/s"), "{}", lines[1]);
    assert_eq!(lines[2], "terminal t0: CRA 30080 bit/s, weight 1");
    assert_eq!(lines[3], "terminal t1: CRA 60160 bit/s, weight 2");
}

/// Drive a built beam: arrivals (time s, member, dir, slot, bytes); returns
/// deliveries (time, member, dir, slot).
#[allow(clippy::type_complexity)]
fn drive(
    beam: &mut Beam,
    arrivals: &[(f64, u32, Dir, u32, u32)],
    stop: f64,
) -> Vec<(Time, u32, Dir, u32)> {
    let mut io = MediumIo::default();
    beam.start(&mut io);
    let mut q: BTreeMap<(Time, u64), u32> = BTreeMap::new();
    let (mut next, mut got) = (0, Vec::new());
    let stop = Time::from_secs_f64(stop);
    loop {
        for w in io.wakes.drain(..) {
            q.insert((w.at, w.seq), w.token);
        }
        assert!(io.lost.is_empty(), "{:?}", io.lost);
        let ta = arrivals.get(next).map(|a| Time::from_secs_f64(a.0));
        let tw = q.first_key_value().map(|(k, _)| k.0);
        match (ta, tw) {
            (Some(a), w) if w.is_none_or(|w| a < w) && a <= stop => {
                let (_, m, d, s, b) = arrivals[next];
                let pkt = LinkPacket {
                    slot: s,
                    bytes: b,
                    kind: crate::channel::PacketKind::Data,
                    seq: 0,
                    retx: false,
                };
                beam.send(a, m, d, pkt, &mut io);
                next += 1;
            }
            (_, Some(w)) if w <= stop => {
                let ((at, _), tok) = q.pop_first().unwrap();
                beam.wake(at, tok, &mut io);
                got.extend(io.delivered.drain(..).map(|(m, d, s)| (at, m, d, s)));
            }
            _ => break,
        }
    }
    got
}

fn build(text: &str) -> Beam {
    let links: Vec<[LinkDirSpec; 2]> = (0..2)
        .map(|i| {
            [
                dir(&format!("t{i}:forward"), 0, i + 1),
                dir(&format!("t{i}:reverse"), i + 1, 0),
            ]
        })
        .collect();
    let mut s = spec(text);
    let sh = shapes(2, true);
    let m: Vec<MemberShape> = sh.iter().map(|x| x.1).collect();
    s.prepare(&m).unwrap();
    let names = ["t0", "t1"];
    let members = links
        .iter()
        .zip(names)
        .map(|(l, name)| MemberBuild {
            name,
            dirs: [&l[0], &l[1]],
            channels: [Vec::new(), Vec::new()],
            from_hub: Dir::Forward,
        })
        .collect();
    Beam::build(
        &s,
        MediumBuild {
            name: "b",
            seed: 1,
            members,
        },
    )
}

#[test]
fn forward_packets_ride_the_carrier_and_return_ones_the_timeslots() {
    let mut beam = build(BEAM);
    // Forward, to t1 at 2 dB (QPSK 1/2): a 994-byte packet alone in a
    // 32.49 ms frame, then 250 ms to the terminal.
    // Return, from t0 (CRA: one timeslot per superframe at position 0 —
    // t1's two come after it, or before it, by the rotating order): a packet
    // at 1.012 s goes at the start of superframe 21 or in its second slot.
    let got = drive(
        &mut beam,
        &[
            (0.0, 1, Dir::Forward, 1, 994),
            (1.012, 0, Dir::Reverse, 2, 100),
        ],
        3.0,
    );
    assert_eq!(got[0], (Time(32_490_000 + 250_000_000), 1, Dir::Forward, 1));
    let (t, m, d, s) = got[1];
    assert_eq!((m, d, s), (0, Dir::Reverse, 2));
    // Superframe 21 (1.05 s): by the order of superframe 21 (21 mod 2 = 1:
    // t1 first, positions 0–1), t0 has position 2: 1.060–1.065 s.
    assert_eq!(t, Time::from_secs_f64(1.065 + 0.25));
    assert_eq!(beam.stats(1, Dir::Forward).delivered, 1);
    assert_eq!(beam.stats(0, Dir::Reverse).delivered, 1);
    assert_eq!(beam.stats(0, Dir::Forward).packets, 0);
    let r = beam.report(Time::from_secs_f64(3.0));
    assert_eq!(r.members, vec!["t0", "t1"]);
    let names: Vec<&str> = r.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "forward_frames",
            "modcods",
            "grants",
            "access_delay",
            "terminals"
        ]
    );
    let util = r
        .scalars
        .iter()
        .find(|s| s.0 == "return_utilisation")
        .unwrap()
        .1;
    // One timeslot used of 10 per superframe over the superframes allocated by 3 s.
    assert!(util > 0.0 && util < 0.01, "{util}");
}

#[test]
fn without_parts_a_beam_is_fifos() {
    let text = "gateway = \"gw\"\nlinks = [\"t0\", \"t1\"]\n";
    let mut beam = build(text);
    // 1 000 bytes at 1 Mb/s: 8 ms, then 250 ms.
    let got = drive(
        &mut beam,
        &[
            (0.0, 0, Dir::Forward, 1, 1000),
            (0.0, 1, Dir::Reverse, 2, 1000),
        ],
        1.0,
    );
    assert_eq!(
        got,
        vec![
            (Time(258_000_000), 0, Dir::Forward, 1),
            (Time(258_000_000), 1, Dir::Reverse, 2)
        ]
    );
}
