//! Shared helpers of the integration tests: load a shipped scenario with
//! `--set`-style overrides and run it.

#![allow(dead_code)]

use skyhop::scenario::{load_str, Scenario};
use skyhop::{run, RunOptions, RunResult};

/// `scenarios/<file>` with overrides such as `"links.up.per=0.01"`.
pub fn scenario(file: &str, sets: &[&str]) -> Scenario {
    let path = format!("{}/../../scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(&text, file, &sets).unwrap_or_else(|e| panic!("{e}"))
}

/// The studies' era defaults, for tests whose numbers are worked out for
/// them (closed forms, exact times): the first `--set` of [`studies`].
pub const STUDIES: &str = "tcp.profile=studies";

/// `sets` after [`STUDIES`] (a later set may still override the profile).
pub fn studies(sets: &[&str]) -> Vec<String> {
    std::iter::once(STUDIES)
        .chain(sets.iter().copied())
        .map(|s| s.to_string())
        .collect()
}

/// [`scenario`] under the studies' defaults.
pub fn scenario_studies(file: &str, sets: &[&str]) -> Scenario {
    let all: Vec<String> = studies(sets);
    let all: Vec<&str> = all.iter().map(|s| s.as_str()).collect();
    scenario(file, &all)
}

pub fn run_ok(scn: &Scenario, seed: u64) -> RunResult {
    run(scn, seed, &RunOptions::default()).unwrap_or_else(|e| panic!("seed {seed}: {e}"))
}

/// Run `jobs` on all cores; results in input order.
pub fn par_map<T: Sync, R: Send>(jobs: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<Option<R>> = (0..jobs.len()).map(|_| None).collect();
    let slots = std::sync::Mutex::new(&mut out);
    std::thread::scope(|s| {
        for _ in 0..threads.min(jobs.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= jobs.len() {
                    break;
                }
                let r = f(&jobs[i]);
                slots.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_iter().map(|r| r.unwrap()).collect()
}

/// Payload capacity of a 1 Mb/s link with 1460-byte segments in 1500-byte packets.
pub const PAYLOAD_CAPACITY_BPS: f64 = 1e6 * 1460.0 / 1500.0;
