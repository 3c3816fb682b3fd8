//! Each seam of the engine takes an implementation written outside it: a
//! channel model, a link layer, an application, a loss recovery and a paced
//! congestion controller, all defined in this file and plugged into a
//! resolved plan without touching the engine.

use crate::common;
use skyhop::app::{AppIo, AppReport, AppSpec, Application, Cell, CustomApp, Table};
use skyhop::channel::{ChannelModel, ChannelSpec, CustomChannel, Tx};
use skyhop::engine::Time;
use skyhop::net::{
    CustomLinkLayer, Dir, LinkBuild, LinkIo, LinkLayer, LinkLayerSpec, LinkPacket, LinkStats,
};
use skyhop::scenario::{load_str, Plan, SenderFactory};
use skyhop::sim::run_plan;
use skyhop::tcp::cc::{AckSample, Cc, CcState, CongestionOps};
use skyhop::tcp::recovery::{Rec, RecoveryOps, SendCore};
use skyhop::tcp::{DataSeg, TcpSender};
use skyhop::{RunOptions, RunResult};
use std::collections::BTreeMap;
use std::sync::Arc;

const ONE_HOP: &str = r#"
[run]
duration = "300 s"
[tcp]
rcv_buffer = "30 kB"  # 20 segments: below the 1 Mb/s x 250 ms pipe, so no queue losses
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = "1 Mbps"
delay = "125 ms"
queue = 100
[flows.f]
from = "A"
to = "B"
size = "500 kB"
"#;

fn plan(sets: &[&str]) -> Plan {
    let sets = common::studies(sets);
    let scn = load_str(ONE_HOP, "one_hop.toml", &sets).expect("scenario loads");
    Plan::build(&scn, "one_hop.toml").expect("plan builds")
}

fn go(p: &Plan) -> RunResult {
    run_plan(p, 1, &RunOptions::default()).expect("run succeeds")
}

// ---- channel: a two-state channel that loses everything while BAD ----------

/// GOOD for 4 s, BAD for 1 s, repeating; every data packet whose
/// transmission starts in a BAD period is lost. Records what it judged.
struct Periodic {
    /// (transmission start in s, lost) of every data packet.
    seen: Arc<std::sync::Mutex<Vec<(f64, bool)>>>,
}

fn bad_at(t: f64) -> bool {
    t % 5.0 >= 4.0
}

impl ChannelModel for Periodic {
    fn is_lost(&mut self, tx: &Tx) -> bool {
        if tx.kind.is_ack() {
            return false;
        }
        let t = tx.start.as_secs_f64();
        let lost = bad_at(t);
        self.seen.lock().unwrap().push((t, lost));
        lost
    }
}

#[test]
fn a_channel_model_from_outside_the_engine_decides_losses() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut p = plan(&[]);
    let s2 = seen.clone();
    p.links[0]
        .channels
        .push(ChannelSpec::Custom(CustomChannel(Arc::new(move |_ctx| {
            Box::new(Periodic { seen: s2.clone() })
        }))));
    let clean = go(&plan(&[]));
    assert_eq!(clean.engine.channel_drops, 0);
    let r = go(&p);
    let seen = seen.lock().unwrap();
    let lost = seen.iter().filter(|x| x.1).count() as u64;
    assert!(lost > 0, "the BAD periods lose packets");
    assert!(
        seen.iter().any(|x| !x.1 && x.0 > 5.0),
        "GOOD periods pass packets"
    );
    assert_eq!(r.engine.channel_drops, lost);
    assert_eq!(r.flows["f"].bytes_delivered, 500_000);
    assert!(r.flows["f"].completion_time_s > clean.flows["f"].completion_time_s);
    assert!(r.flows["f"].retransmissions > 0);
}

// ---- link layer: every tenth packet of a direction held back 40 ms ----------

/// No queue, infinite rate: a packet arrives after the propagation delay,
/// and every tenth one 40 ms later (so packets overtake it).
struct DelayEveryTenth {
    delay: [Time; 2],
    count: [u64; 2],
    /// Pending arrivals by (time, sequence): (direction, slot).
    pending: BTreeMap<(Time, u64), (Dir, u32)>,
    stats: [LinkStats; 2],
    held: Arc<std::sync::atomic::AtomicU64>,
}

impl LinkLayer for DelayEveryTenth {
    fn send(&mut self, now: Time, dir: Dir, pkt: LinkPacket, io: &mut LinkIo) {
        let d = dir.index();
        self.count[d] += 1;
        self.stats[d].packets += 1;
        self.stats[d].bytes += pkt.bytes as u64;
        let mut at = Time(now.0 + self.delay[d].0);
        if self.count[d].is_multiple_of(10) {
            at = Time(at.0 + 40_000_000);
            self.held.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let seq = io.next_seq();
        self.pending.insert((at, seq), (dir, pkt.slot));
        // One wake-up per packet; the token is unused (the map says what is due).
        io.wake(at, seq, 0);
    }

    fn wake(&mut self, now: Time, _token: u32, io: &mut LinkIo) {
        let (&(at, seq), &(dir, slot)) = self.pending.iter().next().expect("something due");
        assert_eq!(at, now);
        self.pending.remove(&(at, seq));
        self.stats[dir.index()].delivered += 1;
        io.deliver(dir, slot);
    }

    fn stats(&self, dir: Dir) -> LinkStats {
        self.stats[dir.index()].clone()
    }
}

#[test]
fn a_link_layer_from_outside_the_engine_carries_and_reorders_packets() {
    let held = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let h2 = held.clone();
    let mut p = plan(&["flows.f.tcp=sack"]);
    p.layers[0].spec = LinkLayerSpec::Custom(CustomLinkLayer(Arc::new(move |b: LinkBuild| {
        Box::new(DelayEveryTenth {
            delay: [Time(b.dirs[0].delay.0), Time(b.dirs[1].delay.0)],
            count: [0, 0],
            pending: BTreeMap::new(),
            stats: Default::default(),
            held: h2.clone(),
        })
    })));
    let r = go(&p);
    assert!(held.load(std::sync::atomic::Ordering::Relaxed) > 10);
    let f = &r.flows["f"];
    assert_eq!(f.bytes_delivered, 500_000);
    // Nothing is lost, but packets overtaking the held one cause duplicate
    // ACKs and spurious retransmissions.
    assert_eq!(r.engine.channel_drops + r.engine.queue_drops, 0);
    assert!(f.retransmissions > 0 && f.fast_recoveries > 0, "{f:?}");
    let fifo = go(&plan(&["flows.f.tcp=sack"]));
    assert_eq!(fifo.flows["f"].retransmissions, 0);
}

// ---- application: two files, one after the other ----------------------------

struct TwoFiles {
    first: u64,
    second: u64,
    sent_second: bool,
    done: bool,
    second_started_at: Arc<std::sync::Mutex<Option<f64>>>,
}

impl Application for TwoFiles {
    fn start(&mut self, _now: Time, io: &mut AppIo) {
        io.send(0, self.first);
    }
    fn on_delivered(&mut self, now: Time, stream: usize, _b: u64, total: u64, io: &mut AppIo) {
        assert_eq!(stream, 0);
        if total == self.first && !self.sent_second {
            self.sent_second = true;
            *self.second_started_at.lock().unwrap() = Some(now.as_secs_f64());
            io.send(0, self.second);
        }
        if total == self.first + self.second {
            self.done = true;
        }
    }
    fn done(&self) -> bool {
        self.done
    }
}

#[test]
fn an_application_from_outside_the_engine_sends_two_files_in_turn() {
    let started = Arc::new(std::sync::Mutex::new(None));
    let s2 = started.clone();
    let mut p = plan(&[]);
    p.flows[0].app = AppSpec::Custom(CustomApp(Arc::new(move || {
        Box::new(TwoFiles {
            first: 200_000,
            second: 300_000,
            sent_second: false,
            done: false,
            second_started_at: s2.clone(),
        })
    })));
    let r = go(&p);
    let f = &r.flows["f"];
    assert_eq!(f.bytes_delivered, 500_000);
    let done = f
        .completion_time_s
        .expect("both files arrive, the run stops");
    let second = started.lock().unwrap().expect("the second file was sent");
    // The second file starts when the first has arrived, and it takes at
    // least its own transmission time (300 kB at 1 Mb/s = 2.4 s) plus one
    // one-way delay on top.
    assert!(second > 1.6, "{second}");
    assert!(done > second + 2.4 + 0.125, "{done} vs {second}");
    // Sending both at once is faster (no idle round trip in between).
    let at_once = go(&plan(&[])).flows["f"].completion_time_s.unwrap();
    assert!(done > at_once);
}

// ---- application results: a table of its own, under the flow ---------------

/// Sends `chunks` chunks one after the other on stream 0 and reports when
/// each was handed over and when it arrived: a table `chunks` and a scalar.
struct Chunks {
    size: u64,
    chunks: u64,
    /// (handed over, arrived) of each chunk so far, in seconds.
    times: Vec<(f64, Option<f64>)>,
}

impl Application for Chunks {
    fn start(&mut self, now: Time, io: &mut AppIo) {
        self.times.push((now.as_secs_f64(), None));
        io.send(0, self.size);
    }
    fn on_delivered(&mut self, now: Time, _s: usize, _b: u64, total: u64, io: &mut AppIo) {
        let k = self.times.len() as u64;
        if total == k * self.size {
            self.times[k as usize - 1].1 = Some(now.as_secs_f64());
            if k < self.chunks {
                self.times.push((now.as_secs_f64(), None));
                io.send(0, self.size);
            }
        }
    }
    fn done(&self) -> bool {
        self.times.len() as u64 == self.chunks && self.times.iter().all(|t| t.1.is_some())
    }
    fn report(&self, _end: Time) -> AppReport {
        let mut t = Table::new(&["chunk", "bytes", "sent_at_s", "arrived_at_s"]);
        for (i, (sent, arrived)) in self.times.iter().enumerate() {
            t.push(vec![
                (i as u64).into(),
                self.size.into(),
                (*sent).into(),
                (*arrived).into(),
            ]);
        }
        let mut r = AppReport::default();
        r.add_scalar(
            "chunks_delivered",
            self.times.iter().filter(|t| t.1.is_some()).count() as u64,
        );
        r.add_table("chunks", t);
        r
    }
}

#[test]
fn an_application_from_outside_the_engine_reports_its_own_table_under_its_flow() {
    let mut p = plan(&[]);
    p.flows[0].app = AppSpec::Custom(CustomApp(Arc::new(|| {
        Box::new(Chunks {
            size: 100_000,
            chunks: 5,
            times: Vec::new(),
        })
    })));
    let r = go(&p);
    assert_eq!(r.flows["f"].bytes_delivered, 500_000);
    let v = serde_json::to_value(&r).unwrap();
    let f = &v["flows"]["f"];
    assert_eq!(f["chunks_delivered"], 5);
    let rows = f["chunks"]
        .as_array()
        .expect("the table is a list under the flow");
    assert_eq!(rows.len(), 5);
    let mut last = 0.0;
    for (i, row) in rows.iter().enumerate() {
        let rec = row.as_object().expect("each row a record");
        let mut keys: Vec<&str> = rec.keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["arrived_at_s", "bytes", "chunk", "sent_at_s"]);
        assert_eq!(rec["chunk"], i);
        assert_eq!(rec["bytes"], 100_000);
        let (sent, arrived) = (
            rec["sent_at_s"].as_f64().unwrap(),
            rec["arrived_at_s"].as_f64().unwrap(),
        );
        // Each chunk is handed over when the previous one has arrived, and
        // takes at least its transmission (0.8 s at 1 Mb/s) and a delay.
        assert!(sent >= last && arrived > sent + 0.8 + 0.125, "{row}");
        last = arrived;
    }
    assert_eq!(r.flows["f"].completion_time_s, Some(last));
    // In column order in the document, and back from it.
    let text = serde_json::to_string(&r).unwrap();
    assert!(text
        .contains("\"chunks\":[{\"chunk\":0,\"bytes\":100000,\"sent_at_s\":0.0,\"arrived_at_s\":"));
    let back: RunResult = serde_json::from_str(&text).unwrap();
    let t = back.flows["f"].app.table("chunks").unwrap();
    assert_eq!(t.columns(), ["chunk", "bytes", "sent_at_s", "arrived_at_s"]);
    assert_eq!(t.get(4, "chunk"), Some(&Cell::UInt(4)));
}

// ---- recovery: retransmit only on timeout ------------------------------------

/// Ignores duplicate ACKs: every loss waits for the retransmission timer.
struct TimeoutOnly;

impl RecoveryOps for TimeoutOnly {
    fn in_recovery(&self) -> bool {
        false
    }
    fn on_dupack(&mut self, _s: &mut SendCore, _n: Time, _a: &AckSample, _o: &mut Vec<DataSeg>) {}
    fn on_new_ack(
        &mut self,
        _s: &mut SendCore,
        _n: Time,
        _a: &AckSample,
        _o: &mut Vec<DataSeg>,
    ) -> bool {
        true
    }
    fn on_rto(&mut self, _snd_una: u64) {}
}

#[test]
fn a_recovery_from_outside_the_engine_replaces_fast_retransmit() {
    let sets = ["links.ab.forward.drop_segments=[146000]"];
    let newreno = go(&plan(&sets));
    assert_eq!(newreno.flows["f"].fast_recoveries, 1);
    assert_eq!(newreno.flows["f"].timeouts, 0);

    let mut p = plan(&sets);
    p.flows[0].legs[0].make_sender = Some(SenderFactory(Arc::new(|cfg| {
        let cc = Cc::build(cfg.variant.cc, &cfg);
        TcpSender::new(cfg, cc, Rec::Custom(Box::new(TimeoutOnly)))
    })));
    let r = go(&p);
    let f = &r.flows["f"];
    assert_eq!(f.fast_recoveries, 0);
    assert!(f.timeouts >= 1);
    assert_eq!(f.bytes_delivered, 500_000);
    assert!(f.completion_time_s > newreno.flows["f"].completion_time_s);
}

/// Retransmits on the first duplicate ACK (once per window of data), with
/// the primitives of the state the sender lends its recovery.
struct FirstDupack;

impl RecoveryOps for FirstDupack {
    fn in_recovery(&self) -> bool {
        false
    }
    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
        if s.dupacks() == 1 && s.may_enter_recovery() {
            s.enter_loss(now, a);
            s.retransmit_first(now, out);
        }
    }
    fn on_new_ack(
        &mut self,
        _s: &mut SendCore,
        _n: Time,
        _a: &AckSample,
        _o: &mut Vec<DataSeg>,
    ) -> bool {
        true
    }
    fn on_rto(&mut self, _snd_una: u64) {}
}

#[test]
fn a_recovery_from_outside_the_engine_retransmits_through_the_lent_state() {
    let sets = ["links.ab.forward.drop_segments=[146000]"];
    let mut p = plan(&sets);
    p.flows[0].legs[0].make_sender = Some(SenderFactory(Arc::new(|cfg| {
        let cc = Cc::build(cfg.variant.cc, &cfg);
        TcpSender::new(cfg, cc, Rec::Custom(Box::new(FirstDupack)))
    })));
    let r = go(&p);
    let f = &r.flows["f"];
    assert_eq!(f.fast_recoveries, 1);
    assert_eq!(f.retransmissions, 1);
    assert_eq!(f.timeouts, 0);
    assert_eq!(f.bytes_delivered, 500_000);
}

// ---- controller: a fixed window, paced at 200 kb/s ----------------------------

struct PacedFixed {
    rate_bps: f64,
}

impl CongestionOps for PacedFixed {
    fn on_ack(&mut self, s: &mut CcState, _a: &AckSample) {
        s.cwnd = 40 * s.mss;
    }
    fn pacing_rate_bps(&self, _s: &CcState) -> Option<f64> {
        Some(self.rate_bps)
    }
}

#[test]
fn a_paced_controller_from_outside_the_engine_sends_at_its_rate() {
    let mut p = plan(&[
        "tcp.initial_window=40",
        "tcp.rcv_buffer=\"1 MB\"",
        "flows.f.size=\"300 kB\"",
    ]);
    p.flows[0].legs[0].make_sender = Some(SenderFactory(Arc::new(|cfg| {
        let rec = Rec::build(cfg.variant.recovery, &cfg);
        TcpSender::new(
            cfg,
            Cc::Custom(Box::new(PacedFixed {
                rate_bps: 200_000.0,
            })),
            rec,
        )
    })));
    let r = go(&p);
    let f = &r.flows["f"];
    assert_eq!(f.bytes_delivered, 300_000);
    // 300 kB of payload in 1500-byte packets at 200 kb/s of wire bits:
    // 206 packets * 12000 bits / 200 kb/s = 12.3 s, plus one one-way delay.
    let t = f.completion_time_s.unwrap();
    let wire = (300_000f64 / 1460.0).ceil() * 1500.0 * 8.0;
    let expect = wire / 200_000.0 + 0.125;
    assert!((t - expect).abs() < 0.1, "{t} vs {expect}");
    // Unpaced, the same window finishes in about 3 s at 1 Mb/s.
    assert!(t > 10.0);
}
