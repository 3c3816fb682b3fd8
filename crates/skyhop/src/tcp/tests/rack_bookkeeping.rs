//! RACK's bookkeeping (`tcp/rack.rs`) against a recount, over random losses.

use crate::engine::rng::RngStream;
use crate::engine::time::{Dur, Time};
use crate::tcp::{new_receiver, new_sender, AckSeg, DataSeg, TcpConfig, Variant};
use std::collections::BTreeMap;

/// A sender and receiver over a 50 ms each-way path that drops data
/// (and reorders nothing): RACK's byte counts always agree with a
/// recount, and every byte arrives.
#[test]
fn bookkeeping_holds_over_random_losses() {
    for (seed, variant, per) in [(1, "sack", 0.05), (2, "cubic", 0.02), (3, "bbr", 0.1)] {
        let cfg = TcpConfig {
            variant: Variant::parse(variant).unwrap(),
            rack: true,
            initial_window: 10,
            rto_min: Dur::from_millis(200),
            ..TcpConfig::default()
        };
        let mut rng = RngStream::derive(seed, "rack-bookkeeping");
        let mut snd = new_sender(cfg.clone());
        let mut rcv = new_receiver(&cfg);
        let total = 3_000_000;
        // Events by (time, sequence): data to the receiver or ACKs back.
        let mut q: BTreeMap<(Time, u64), Result<DataSeg, AckSeg>> = BTreeMap::new();
        let mut n = 0u64;
        let hop = Dur::from_millis(50);
        let mut out = Vec::new();
        let mut acks = Vec::new();
        let mut now = Time::ZERO;
        snd.add_app_data(now, total, &mut out);
        for _ in 0..2_000_000 {
            for (k, d) in out.drain(..).enumerate() {
                // Serialisation at 10 Mb/s keeps the data in order.
                if rng.uniform() >= per {
                    n += 1;
                    q.insert((now + hop + Dur(k as u64 * 1_200_000), n), Ok(d));
                }
            }
            for a in acks.drain(..) {
                n += 1;
                q.insert((now + hop, n), Err(a));
            }
            if snd.all_acked() {
                break;
            }
            let next_q = q.keys().next().map(|k| k.0);
            let cand = [next_q, snd.poll_at(), rcv.poll_at()];
            now = cand
                .iter()
                .flatten()
                .copied()
                .min()
                .expect("something pending");
            if next_q == Some(now) {
                let (_, ev) = q.pop_first().unwrap();
                match ev {
                    Ok(d) => {
                        rcv.on_segment(now, &d, &mut acks);
                    }
                    Err(a) => {
                        snd.on_ack(now, &a, &mut out);
                        snd.rack().unwrap().check();
                    }
                }
            } else if snd.poll_at() == Some(now) {
                snd.on_timer(now, &mut out);
                snd.rack().unwrap().check();
            } else {
                rcv.on_timer(now, &mut acks);
            }
        }
        assert!(snd.all_acked(), "{variant}: {}", snd.snd_una());
        assert_eq!(rcv.rcv_nxt(), total);
        let st = snd.rack().unwrap().stats.clone();
        assert!(st.marked_lost > 0, "{variant}: {st:?}");
    }
}
