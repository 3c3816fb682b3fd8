//! Property test of the scenario loader: random mutations of valid scenarios
//! (values of the wrong type, out-of-range, fractional, huge, negative,
//! non-finite numbers, bad units, deleted keys, unknown keys, random `--set`
//! overrides) either load or give one `ScenarioError` with a non-empty key:
//! never a panic. A scenario that loads must round-trip through its resolved
//! JSON (what the Python layer runs), so nothing was clamped to a value the
//! loader would itself refuse, and no non-finite number was let through.
//!
//! A seeded, hand-rolled mutator (no extra dependency). `SKYHOP_PROP_CASES`
//! sets the number of cases (default 256), `SKYHOP_PROP_SEED` the seed.

use skyhop::scenario::{load_json_str, load_str};
use std::panic::{catch_unwind, AssertUnwindSafe};
use toml::Value;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const BASES: &[&str] = &[
    include_str!("../../../../scenarios/geo_single.toml"),
    include_str!("../../../../scenarios/e1_haps.toml"),
    include_str!("../../../../scenarios/e2_geo_onboard.toml"),
    include_str!("../../../../scenarios/e3_double_geo.toml"),
    include_str!("../../../../benches/e1_chain.toml"),
    include_str!("../../../../benches/holes.toml"),
];

const STRINGS: &[&str] = &[
    "",
    "x",
    "unlimited",
    "sack",
    "newreno",
    "third",
    "half-free",
    "buffers",
    "data",
    "1 Mbps",
    "0 Mbps",
    "-1 Mbps",
    "1.7 bps",
    "1e30 Gbps",
    "10 Tbps",
    "100 Gbps",
    "125 ms",
    "0 s",
    "0.4 ns",
    "-5 ms",
    "1e300 s",
    "inf s",
    "nan s",
    "1e-3 s",
    "9 s",
    "1 min",
    "1460 B",
    "1460.5 B",
    "1e30 GB",
    "0 B",
    "10 GB",
    "64 KiB",
    "5 MB",
    "1 GB",
    "-1 B",
    "3",
    "1e",
    "e5 B",
    "1_000 B",
    "1 ms ms",
    "NaN B",
    "  2 kB ",
    "1 XB",
];

fn random_value(r: &mut Rng, depth: u32) -> Value {
    match r.below(if depth > 1 { 5 } else { 7 }) {
        0 => Value::String(r.pick(STRINGS).to_string()),
        1 => Value::Integer(*r.pick(&[
            0,
            1,
            -1,
            2,
            3,
            50,
            1460,
            100_000,
            200_000_000,
            i64::MAX,
            i64::MIN,
            u32::MAX as i64,
            u32::MAX as i64 + 1,
        ])),
        2 => Value::Float(*r.pick(&[
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            1.5,
            200.0,
            -200.0,
            1e300,
            -1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ])),
        3 => Value::Boolean(r.below(2) == 0),
        4 => Value::String(format!(
            "{} {}",
            r.pick(&["0", "1", "2.5", "1e9", "1e20", "-3", "0.001"]),
            r.pick(&["s", "ms", "us", "ns", "B", "kB", "MB", "GB", "bps", "Mbps", "Gbps", "%"])
        )),
        5 => Value::Array(
            (0..r.below(4))
                .map(|_| random_value(r, depth + 1))
                .collect(),
        ),
        _ => {
            let mut t = toml::Table::new();
            for _ in 0..r.below(3) {
                t.insert(
                    r.pick(&["a", "rate", "delay", "from", "to", "mss", "zz"])
                        .to_string(),
                    random_value(r, depth + 1),
                );
            }
            Value::Table(t)
        }
    }
}

/// Every dotted path to a value (tables' own paths included).
fn paths(v: &Value, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if let Value::Table(t) = v {
        for (k, x) in t {
            prefix.push(k.clone());
            out.push(prefix.clone());
            paths(x, prefix, out);
            prefix.pop();
        }
    }
}

fn get_parent<'a>(root: &'a mut Value, path: &[String]) -> Option<&'a mut toml::Table> {
    let mut cur = root;
    for p in &path[..path.len() - 1] {
        cur = cur.as_table_mut()?.get_mut(p)?;
    }
    cur.as_table_mut()
}

fn mutate(r: &mut Rng, root: &mut Value, sets: &mut Vec<String>) {
    let mut all = Vec::new();
    paths(root, &mut Vec::new(), &mut all);
    let path = r.pick(&all).clone();
    let last = path.last().unwrap().clone();
    match r.below(6) {
        // Replace a value (any type).
        0 | 1 => {
            let v = random_value(r, 0);
            if let Some(t) = get_parent(root, &path) {
                t.insert(last, v);
            }
        }
        // Delete a key.
        2 => {
            if let Some(t) = get_parent(root, &path) {
                t.remove(&last);
            }
        }
        // Insert an unknown (or known) key next to it.
        3 => {
            let k = r
                .pick(&[
                    "bogus",
                    "rate",
                    "delay",
                    "queue",
                    "per",
                    "ber",
                    "lat",
                    "lon",
                    "geo_longitude",
                    "start",
                    "rto_min",
                    "rto_max",
                    "header",
                    "initial_window",
                    "event_budget",
                    "proxy",
                    "options",
                ])
                .to_string();
            let v = random_value(r, 0);
            if let Some(t) = get_parent(root, &path) {
                t.insert(k, v);
            }
        }
        // A --set override of an existing or invented path.
        _ => {
            let mut p = path.join(".");
            if r.below(4) == 0 {
                p.push_str(".extra");
            }
            if r.below(6) == 0 {
                p = format!("{}.nope.{}", r.pick(&["nodes", "links", "flows"]), last);
            }
            let raw = match random_value(r, 1) {
                Value::String(s) if r.below(2) == 0 => s,
                v => v.to_string(),
            };
            sets.push(format!("{p}={raw}"));
        }
    }
}

fn cases() -> u64 {
    std::env::var("SKYHOP_PROP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

#[test]
fn mutated_scenarios_load_or_give_one_keyed_error_never_a_panic() {
    let seed: u64 = std::env::var("SKYHOP_PROP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED);
    let mut r = Rng(seed | 1);
    let (mut loaded, mut refused) = (0, 0);
    for case in 0..cases() {
        let base = r.pick(BASES);
        let mut v = Value::Table(toml::from_str(base).unwrap());
        let mut sets = Vec::new();
        for _ in 0..1 + r.below(3) {
            mutate(&mut r, &mut v, &mut sets);
        }
        let text = toml::to_string(&v).unwrap();
        let what = format!("case {case} (seed {seed}):\n{text}\nsets: {sets:?}");
        let res = catch_unwind(AssertUnwindSafe(|| load_str(&text, "p.toml", &sets)))
            .unwrap_or_else(|_| panic!("the loader panicked on {what}"));
        match res {
            Err(e) => {
                refused += 1;
                assert_eq!(e.file, "p.toml", "{e}\n{what}");
                assert!(!e.key.is_empty(), "an error with no key: {e}\n{what}");
                assert!(!e.message.is_empty(), "{what}");
                assert!(!e.message.contains('\n'), "a multi-line error: {e}\n{what}");
            }
            Ok(scn) => {
                loaded += 1;
                let json = serde_json::to_string(&scn).unwrap();
                let back =
                    catch_unwind(AssertUnwindSafe(|| load_json_str(&json, "<resolved>", &[])))
                        .unwrap_or_else(|_| {
                            panic!("reloading the resolved scenario panicked: {what}")
                        });
                if let Err(e) = back {
                    panic!("the resolved scenario does not reload: {e}\n{json}\n{what}");
                }
            }
        }
    }
    // Both outcomes occur: the mutations are neither all fatal nor all inert.
    if cases() >= 64 {
        assert!(
            loaded > 0 && refused > 0,
            "loaded {loaded}, refused {refused}"
        );
    }
}
