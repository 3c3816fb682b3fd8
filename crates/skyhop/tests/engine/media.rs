//! The shared-medium seam from outside the crate: a medium written here
//! (one uplink transmitter shared by a group of links) plugged into a
//! resolved plan, each member link still a link for routing and results;
//! and the built-in beam (DVB-S2 forward carrier, DVB-RCS2 return link)
//! plugged the same way, its timing worked out by hand.

use skyhop::engine::Time;
use skyhop::net::beam::{BeamSpec, MemberShape};
use skyhop::net::{
    CustomMedium, Dir, LinkPacket, LinkStats, Medium, MediumBuild, MediumIo, MediumSpec, PlanMedium,
};
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};
use std::collections::VecDeque;
use std::sync::Arc;

const STAR: &str = r#"
[run]
duration = "60 s"
[nodes.server]
[nodes.gw]
[nodes.t1]
[nodes.t2]
[links.core]
between = ["server", "gw"]
rate = "100 Mbps"
delay = "5 ms"
queue = 1000
[links.l1]
between = ["gw", "t1"]
rate = "2 Mbps"
delay = "250 ms"
queue = 1000
[links.l2]
between = ["gw", "t2"]
rate = "2 Mbps"
delay = "250 ms"
queue = 1000
[flows.up1]
from = "t1"
to = "server"
size = "500 kB"
[flows.up2]
from = "t2"
to = "server"
size = "500 kB"
"#;

fn plan(text: &str, sets: &[&str]) -> Plan {
    let mut all = vec!["tcp.profile=studies".to_string()];
    all.extend(sets.iter().map(|s| s.to_string()));
    let scn = load_str(text, "star.toml", &all).expect("scenario loads");
    Plan::build(&scn, "star.toml").expect("plan builds")
}

fn go(p: &Plan) -> RunResult {
    run_plan(p, 1, &RunOptions::default()).expect("run succeeds")
}

fn link<'a>(r: &'a RunResult, link: &str, dir: &str) -> &'a skyhop::result::LinkResult {
    r.links
        .iter()
        .find(|l| l.link == link && l.dir == dir)
        .unwrap()
}

// ---- a medium from outside: one uplink transmitter for the group -----------

/// The directions into the hub share one transmitter of `rate` (first
/// come, first served, no queue limit); the directions out of it deliver
/// after their link's delay. Counts what it carries per member direction.
struct SharedUplink {
    rate_bps: u64,
    delays: Vec<[u64; 2]>,
    from_hub: Vec<Dir>,
    busy_until: Time,
    /// (arrival, sequence, member, direction, slot), in arrival order per kind.
    pending: VecDeque<(Time, u64, u32, Dir, u32)>,
    stats: Vec<[LinkStats; 2]>,
}

impl Medium for SharedUplink {
    fn send(&mut self, now: Time, member: u32, dir: Dir, pkt: LinkPacket, io: &mut MediumIo) {
        let m = member as usize;
        let d = dir.index();
        let st = &mut self.stats[m][d];
        st.packets += 1;
        st.bytes += pkt.bytes as u64;
        let at = if dir == self.from_hub[m] {
            Time(now.0 + self.delays[m][d])
        } else {
            let start = self.busy_until.max(now);
            let tx = pkt.bytes as u64 * 8 * 1_000_000_000 / self.rate_bps;
            self.busy_until = Time(start.0 + tx);
            st.busy_ns += tx;
            Time(self.busy_until.0 + self.delays[m][d])
        };
        let seq = io.next_seq();
        io.wake(at, seq, 0);
        self.pending.push_back((at, seq, member, dir, pkt.slot));
    }

    fn wake(&mut self, now: Time, _token: u32, io: &mut MediumIo) {
        // The earliest pending (time, sequence) is the one due.
        let i = (0..self.pending.len())
            .min_by_key(|&i| (self.pending[i].0, self.pending[i].1))
            .expect("something pending");
        let (at, _, m, d, slot) = self.pending.remove(i).unwrap();
        assert_eq!(at, now);
        self.stats[m as usize][d.index()].delivered += 1;
        io.deliver(m, d, slot);
    }

    fn stats(&self, member: u32, dir: Dir) -> LinkStats {
        self.stats[member as usize][dir.index()].clone()
    }
}

fn shared_uplink(p: &mut Plan, rate_bps: u64) {
    let make = move |b: MediumBuild| -> Box<dyn Medium> {
        Box::new(SharedUplink {
            rate_bps,
            delays: b
                .members
                .iter()
                .map(|m| [m.dirs[0].delay.0, m.dirs[1].delay.0])
                .collect(),
            from_hub: b.members.iter().map(|m| m.from_hub).collect(),
            busy_until: Time::ZERO,
            pending: VecDeque::new(),
            stats: vec![Default::default(); b.members.len()],
        })
    };
    p.media.push(PlanMedium {
        name: "uplink".into(),
        spec: MediumSpec::Custom(CustomMedium(Arc::new(make))),
        // Links in name order: core (0), l1 (1), l2 (2); gw is their first end.
        links: vec![1, 2],
        from_hub: vec![Dir::Forward, Dir::Forward],
    });
}

#[test]
fn a_medium_from_outside_shares_one_transmitter_among_its_links() {
    let alone = go(&plan(STAR, &[]));
    let mut p = plan(STAR, &[]);
    shared_uplink(&mut p, 1_000_000);
    let r = go(&p);
    for f in ["up1", "up2"] {
        assert_eq!(r.flows[f].bytes_delivered, 500_000);
        assert!(r.flows[f].completion_time_s > alone.flows[f].completion_time_s);
    }
    // Each member link is still a link in the results, with what the
    // medium counted for it; the two uploads' data crossed the shared
    // transmitter, whose busy time is the sum of theirs.
    let (a, b) = (link(&r, "l1", "reverse"), link(&r, "l2", "reverse"));
    assert!(
        a.packets > 340 && b.packets > 340,
        "{} {}",
        a.packets,
        b.packets
    );
    assert_eq!((a.delivered, b.delivered), (a.packets, b.packets));
    let busy = (a.utilisation + b.utilisation) * r.engine.sim_time_s;
    let bits = (a.bytes + b.bytes) as f64 * 8.0;
    assert!(
        (busy - bits / 1e6).abs() < 1e-6,
        "busy {busy} s for {bits} bits"
    );
    // Both transfers ran at once: they finish within a few round trips of
    // each other, both later than 2 × 500 kB at 1 Mb/s.
    let (c1, c2) = (
        r.flows["up1"].completion_time_s.unwrap(),
        r.flows["up2"].completion_time_s.unwrap(),
    );
    assert!(c1.max(c2) > 8.0 && (c1 - c2).abs() < 3.0, "{c1} {c2}");
    // The links not in the medium are untouched.
    assert_eq!(
        link(&r, "core", "forward").packets,
        link(&alone, "core", "forward").packets
    );
}

// ---- the built-in beam ----------------------------------------------------

fn beam(p: &mut Plan, text: &str, links: &[u32]) {
    let mut spec: BeamSpec = toml::from_str(text).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = links
        .iter()
        .map(|&k| p.layers[k as usize].name.clone())
        .collect();
    let shapes: Vec<MemberShape> = links
        .iter()
        .zip(&names)
        .map(|(&k, n)| MemberShape {
            name: n,
            fwd_delay: p.links[2 * k as usize].delay,
            rtn_delay: p.links[2 * k as usize + 1].delay,
            has_esn0: false,
        })
        .collect();
    spec.prepare(&shapes).unwrap_or_else(|e| panic!("{e:?}"));
    p.media.push(PlanMedium {
        name: "b".into(),
        spec: MediumSpec::Beam(Box::new(spec)),
        links: links.to_vec(),
        from_hub: vec![Dir::Forward; links.len()],
    });
}

/// One cbr datagram of 100 bytes from t1 at 1.012 s (the next would be at
/// 11.012 s, after the run).
const PROBE: &str = r#"
[run]
duration = "3 s"
[nodes.server]
[nodes.gw]
[nodes.t1]
[links.core]
between = ["server", "gw"]
rate = "100 Mbps"
delay = "5 ms"
[links.l1]
between = ["gw", "t1"]
rate = "2 Mbps"
delay = "250 ms"
[flows.probe]
from = "t1"
to = "server"
start = "1.012 s"
app = "cbr"
cbr = { rate = "80 bps", packet = "100 B" }
"#;

/// The return link of `return_link.rs`'s hand-worked tests: 5 ms
/// timeslots, 10 per 50 ms superframe, scheduler latency 50 ms.
const RCS2: &str = r#"
gateway = "gw"
links = ["l1"]
[return]
symbol_rate_mbaud = 0.36
waveform = 14
guard_symbols = 184
frame = "50 ms"
scheduler_latency = "50 ms"
"#;

#[test]
fn through_the_beam_a_first_packet_under_rbdc_waits_one_request_grant_loop() {
    // As worked out in `return_link.rs`: the burst is 1.650–1.655 s, the
    // gateway has it 250 ms later; then the core link: 5 ms and 100 bytes
    // at 100 Mb/s (8 µs). One-way delay from 1.012 s: 0.898 008 s.
    let mut p = plan(PROBE, &[]);
    beam(&mut p, &format!("{RCS2}rbdc_max = \"1 Mbps\"\n"), &[1]);
    let r = go(&p);
    let f = &r.flows["probe"];
    assert_eq!((f.packets_sent, f.packets_received), (Some(1), Some(1)));
    assert!(
        (f.delay_max_s.unwrap() - 0.898_008).abs() < 1e-9,
        "{:?}",
        f.delay_max_s
    );
    // Under CRA (one timeslot per superframe): the next timeslot, 1.050 s.
    let mut p = plan(PROBE, &[]);
    beam(&mut p, &format!("{RCS2}cra = \"30080 bps\"\n"), &[1]);
    let r = go(&p);
    assert!((r.flows["probe"].delay_max_s.unwrap() - 0.298_008).abs() < 1e-9);
    // The beam's own results: its grants and access delays by terminal link.
    let b = &r.media["b"].values;
    let terminals = b["terminals"].as_array().unwrap();
    assert_eq!(terminals[0]["member"], "l1");
    assert!((terminals[0]["access_delay_mean_s"].as_f64().unwrap() - 0.038).abs() < 1e-9);
}

/// A download from the server to t1 over the beam's forward carrier.
const DOWN: &str = r#"
[run]
duration = "10 s"
[nodes.server]
[nodes.gw]
[nodes.t1]
[links.core]
between = ["server", "gw"]
rate = "100 Mbps"
delay = "5 ms"
[links.l1]
between = ["gw", "t1"]
rate = "2 Mbps"
delay = "250 ms"
queue = 1000
[flows.down]
from = "server"
to = "t1"
app = "cbr"
cbr = { rate = "1.2 Mbps", packet = "994 B" }
"#;

const DVBS2: &str = r#"
gateway = "gw"
links = ["l1"]
[forward]
symbol_rate_mbaud = 1.0
pilots = false
modcods = ["QPSK 1/4", "QPSK 1/2"]
margin_db = 0.0
hysteresis_db = 0.0
report_delay = "0 ms"
esn0_db = 2.0
"#;

#[test]
fn a_forward_link_carries_its_modcods_payload_rate() {
    // QPSK 1/2 at 1 Mbaud: 4 016 data-field bytes per 32 490 symbols, four
    // 994-byte datagrams (1 004 bytes of GSE each) per 32.49 ms frame:
    // 979.01 kbit/s, below the probe's 1.2 Mb/s. The first datagram
    // reaches the gateway at 5 ms + 994 × 8 / 100 Mb/s and leaves alone in
    // the first frame; from the second frame on, the queue fills them. A
    // frame's datagrams arrive 250 ms after it ends.
    let mut p = plan(DOWN, &[]);
    beam(&mut p, DVBS2, &[1]);
    let r = go(&p);
    let first: f64 = 0.005 + 994.0 * 8.0 / 100e6;
    let frame: f64 = 0.032_49;
    let frames = ((10.0 - 0.25 - first) / frame).floor() as u64;
    let f = &r.flows["down"];
    assert_eq!(f.packets_received, Some(1 + 4 * (frames - 1)));
    assert_eq!(link(&r, "l1", "forward").channel_drops, 0);
    // The rate of the full frames is the payload rate.
    let rate = 4.0 * 994.0 * 8.0 / frame;
    assert!((rate - 979_008.9).abs() < 1.0, "{rate}");
}

// ---- a channel from outside the engine gives the beam its Es/N0 ------------

/// Es/N0 of 2 dB until 5.05 s, then 0 dB; loses nothing itself.
struct Step;

impl skyhop::channel::ChannelModel for Step {
    fn is_lost(&mut self, _tx: &skyhop::channel::Tx) -> bool {
        false
    }
    fn esn0_db(&mut self, now: Time, _symbol_rate: f64) -> Option<f64> {
        Some(if now < Time::from_secs_f64(5.05) {
            2.0
        } else {
            0.0
        })
    }
}

#[test]
fn a_channel_from_outside_gives_the_beam_its_es_n0_and_the_acm_follows() {
    use skyhop::channel::{ChannelSpec, CustomChannel};
    // QPSK 1/2 needs 1.00 dB (EN 302 307-1 Table 13), QPSK 1/4 −2.35 dB:
    // the first report (at 0 s, no delay, no margin) moves the terminal from
    // the most robust MODCOD to QPSK 1/2; from 5.05 s (0 dB) its frames are
    // lost until the next report, at 5.1 s, moves it to QPSK 1/4: two
    // switches, and lost at most the frames sent in those 50 ms (32.49 ms
    // each: at most 3).
    let mut p = plan(DOWN, &[]);
    p.links[2]
        .channels
        .push(ChannelSpec::Custom(CustomChannel(Arc::new(|_ctx| {
            Box::new(Step)
        }))));
    beam(&mut p, DVBS2, &[1]);
    let r = go(&p);
    let fwd = link(&r, "l1", "forward");
    assert_eq!(fwd.layer["modcod_switches"], 2, "{:?}", fwd.layer);
    let lost = fwd.layer["frames_lost"];
    assert!((1..=3).contains(&lost), "{lost}");
    let m = r.media["b"].values["modcods"].as_array().unwrap();
    let last = m.last().unwrap();
    // The table's last switch: to QPSK 1/4 (its threshold, −2.35 dB).
    assert!(
        (last["threshold_db"].as_f64().unwrap() + 2.35).abs() < 1e-9,
        "{last}"
    );
    let t = last["t_s"].as_f64().unwrap();
    assert!((t - 5.1).abs() < 1e-9, "{t}");
}
