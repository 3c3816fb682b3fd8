//! Property test of the scenario loader: random mutations of valid scenarios
//! (values of the wrong type, out-of-range, fractional, huge, negative,
//! non-finite numbers, bad units, deleted keys, unknown keys, random `--set`
//! overrides) either load or give one `ScenarioError` with a non-empty key:
//! never a panic. A scenario that loads must round-trip through its resolved
//! JSON (what the Python layer runs), so nothing was clamped to a value the
//! loader would itself refuse, and no non-finite number was let through.
//!
//! The mutations reach inside nested and tagged tables (a link's `channel`
//! and `link_layer`, `[constellation]`, `[routing]`, a node's `route` and
//! its waypoints, template entries). Three kinds have a sharper contract:
//!
//! - a value of another type, or an unknown key: if refused, the error
//!   names the mutated key itself (or a key inside it), in whatever table
//!   it sits, never only the table around it;
//! - a quantity below the engine's resolution or beyond f64 precision
//!   (`"1e-400 s"`, `"1.0000004 ns"`, `"5000000000000.4 bps"`,
//!   `"200000.0000004 B"`, and the same digits in each quantity's own
//!   unit): always refused, at that key, with the exact value in words;
//!   never rounded;
//! - `--set` replacing a whole table of named entries (`nodes`, `links`,
//!   `flows`, `templates`, a template's `nodes`/`links`/`flows`) or a whole
//!   template or link with one that invents an entry and drops another:
//!   always refused, at that path, naming the entries that exist.
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
    include_str!("../../../../scenarios/e4_shadowed.toml"),
    include_str!("../../../../scenarios/e5_aero.toml"),
    include_str!("../../../../scenarios/e6_geo_3g.toml"),
    include_str!("../../../../scenarios/aircraft_atlantic.toml"),
    include_str!("../../../../scenarios/leo_rome_geometric.toml"),
    include_str!("../../../../scenarios/starlink_rome.toml"),
    // Channels per direction and a Gilbert-Elliott chain, a PER channel
    // both ways, a template with a proxy.
    r#"
[run]
duration = "20 s"
[nodes.A]
[nodes.B.proxy]
policy = "third"
cache = "200 kB"
[nodes.C]
[links.ab]
between = ["A", "B"]
rate = "2 Mbps"
delay = "125 ms"
queue = 50
channel = { model = "per", p = 0.001, apply_to = "data" }
[links.bc]
between = ["B", "C"]
rate = "2 Mbps"
delay = "10 ms"
forward = { rate = "1 Mbps", channel = { model = "gilbert-elliott", t_good = "6 s", t_bad = "2 s", per_good = 0.0, per_bad = 0.5, initial = "good" } }
reverse = { queue = 20, channel = { model = "ber", ber = 1e-7 } }
[flows.ftp]
from = "A"
to = "C"
tcp = "sack"
proxies = ["B"]
size = "200000 B"
[templates.t]
count = 2
[templates.t.nodes."S{i}"]
[templates.t.links."s{i}"]
between = ["S{i}", "A"]
rate = "10 Mbps"
delay = "1 ms + 0.5 ms * i"
[templates.t.flows."f{i}"]
from = "S{i}"
to = "C"
size = "100 kB"
"#,
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

/// One step of a path: a table key or a list index.
#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

type Path = Vec<Seg>;

/// A path as the loader's errors spell it: `a.b[0].c`.
fn dotted(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Every path to a value (tables' and lists' own paths included), through
/// tables and lists of tables.
fn paths(v: &Value, prefix: &mut Path, out: &mut Vec<Path>) {
    let mut visit = |seg: Seg, x: &Value, prefix: &mut Path| {
        prefix.push(seg);
        out.push(prefix.clone());
        paths(x, prefix, out);
        prefix.pop();
    };
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                visit(Seg::Key(k.clone()), x, prefix);
            }
        }
        Value::Array(a) if a.iter().any(Value::is_table) => {
            for (i, x) in a.iter().enumerate() {
                visit(Seg::Index(i), x, prefix);
            }
        }
        _ => {}
    }
}

fn get<'a>(root: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    let mut cur = root;
    for seg in path {
        cur = match seg {
            Seg::Key(k) => cur.as_table()?.get(k)?,
            Seg::Index(i) => cur.as_array()?.get(*i)?,
        };
    }
    Some(cur)
}

fn get_mut<'a>(root: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    let mut cur = root;
    for seg in path {
        cur = match seg {
            Seg::Key(k) => cur.as_table_mut()?.get_mut(k)?,
            Seg::Index(i) => cur.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(cur)
}

/// The table holding the last key of `path` (none if it is a list index).
fn get_parent<'a>(root: &'a mut Value, path: &[Seg]) -> Option<&'a mut toml::Table> {
    get_mut(root, &path[..path.len() - 1])?.as_table_mut()
}

/// A value's type as the scenario reads it (a whole number is a number too).
fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Integer(_) | Value::Float(_) => "number",
        Value::Boolean(_) => "boolean",
        Value::Datetime(_) => "datetime",
        Value::Array(_) => "array",
        Value::Table(_) => "table",
    }
}

/// What a case's outcome must satisfy beyond "loads, or one keyed error".
#[derive(Debug)]
enum Expect {
    /// Nothing more.
    Any,
    /// If refused, the error's key is `key` or a key inside it.
    KeyedAt(String),
    /// Refused, at `key` or inside it, the message containing every word.
    Refused(String, Vec<String>),
}

/// A quantity's text with its digits pushed below the engine's resolution
/// or beyond f64 precision, in its own unit (`None` if `s` is no quantity).
fn unroundable(r: &mut Rng, s: &str) -> Option<(String, &'static str)> {
    let (num, unit) = s.trim().split_once(' ')?;
    let unit = unit.trim();
    let base = match unit {
        "s" | "ms" | "us" | "ns" | "min" | "h" => "ns",
        "bps" | "kbps" | "Mbps" | "Gbps" => "bit/s",
        "B" | "kB" | "KB" | "MB" | "GB" | "KiB" | "MiB" | "GiB" => "bytes",
        _ => return None,
    };
    let n: f64 = num.parse().ok()?;
    if !(n.is_finite() && n > 0.0) || num.contains(['e', 'E']) {
        return None;
    }
    // The digits of the issue's examples, each in this quantity's unit:
    // 4e-7 of a nanosecond / bit per second / byte below the value
    // (or the value itself times 1e-400).
    let tiny = match (unit, r.below(3)) {
        (_, 0) => return Some((format!("1e-400 {unit}"), "below")),
        ("s", _) => "0000000000000004",
        ("ms", _) => "0000000000004",
        ("us", _) => "0000000004",
        ("ns", _) => "0000004",
        ("min", _) => "00000000000000000004",
        ("h", _) => "00000000000000000000004",
        ("bps" | "B", _) => "0000004",
        ("kbps" | "kB" | "KB" | "KiB", _) => "0000000004",
        ("Mbps" | "MB" | "MiB", _) => "0000000000004",
        _ => "0000000000000004",
    };
    let dot = if num.contains('.') { "" } else { "." };
    Some((format!("{num}{dot}{tiny} {unit}"), base))
}

/// Named entries' tables a whole `--set` may not replace: (path, the
/// entries the table holds).
fn named_tables(root: &Value) -> Vec<(String, Vec<String>)> {
    let names = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_table)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for sec in ["nodes", "links", "flows", "templates"] {
        if root.get(sec).is_some() {
            out.push((sec.to_string(), names(root.get(sec))));
        }
    }
    if let Some(Value::Table(ts)) = root.get("templates") {
        for (name, t) in ts {
            for sec in ["nodes", "links", "flows"] {
                if t.get(sec).is_some() {
                    out.push((format!("templates.{name}.{sec}"), names(t.get(sec))));
                }
            }
        }
    }
    out
}

/// A `--set` replacing a whole table: one that renames an entry of a named
/// table, a template or a link (invents one, drops one). The set, its
/// path and what the refusal must say.
fn whole_table_set(r: &mut Rng, root: &Value) -> Option<(String, String, Vec<String>)> {
    let mut choices: Vec<(String, Vec<String>)> = named_tables(root);
    // A whole template whose entries are renamed, a whole link whose ends are.
    if let Some(Value::Table(ts)) = root.get("templates") {
        for name in ts.keys() {
            choices.push((format!("templates.{name}"), vec![]));
        }
    }
    if let Some(Value::Table(ls)) = root.get("links") {
        for name in ls.keys() {
            choices.push((format!("links.{name}"), vec![]));
        }
    }
    if choices.is_empty() {
        return None;
    }
    let (path, names) = r.pick(&choices).clone();
    let segs: Path = path.split('.').map(|k| Seg::Key(k.into())).collect();
    let mut table = get(root, &segs)?.as_table()?.clone();
    if segs.len() == 2 && segs[0] == Seg::Key("links".into()) {
        // A whole link between a node that exists and one that does not.
        let ends = table.get("between")?.as_array()?.clone();
        let mut ends = ends;
        let i = r.below(ends.len().max(1));
        *ends.get_mut(i)? = Value::String("Invented".into());
        table.insert("between".into(), Value::Array(ends));
        return Some((
            format!("{path}={}", inline_value(&Value::Table(table))),
            format!("{path}.between"),
            vec!["Invented".into()],
        ));
    }
    if segs.len() == 2 && segs[0] == Seg::Key("templates".into()) {
        // A whole template: an entry of one of its tables renamed.
        let secs: Vec<String> = ["nodes", "links", "flows"]
            .iter()
            .filter(|s| {
                table
                    .get(**s)
                    .and_then(Value::as_table)
                    .is_some_and(|t| !t.is_empty())
            })
            .map(|s| s.to_string())
            .collect();
        if secs.is_empty() {
            return None;
        }
        let sec = r.pick(&secs).clone();
        let entries = table.get_mut(&sec)?.as_table_mut()?;
        let first = entries.keys().next()?.clone();
        let v = entries.remove(&first)?;
        entries.insert("Invented{i}".into(), v);
        return Some((
            format!("{path}={}", inline_value(&Value::Table(table))),
            path.clone(),
            vec![first],
        ));
    }
    // A named table: one entry dropped (if any), one invented.
    let mut t = table;
    if let Some(k) = names.first() {
        let v = t.remove(k);
        t.insert(
            "Invented".into(),
            v.unwrap_or(Value::Table(toml::Table::new())),
        );
    } else {
        t.insert("Invented".into(), Value::Table(toml::Table::new()));
    }
    let mut words: Vec<String> = names.clone();
    if words.is_empty() {
        words.push("none".into());
    }
    Some((
        format!("{path}={}", inline_value(&Value::Table(t))),
        path,
        words,
    ))
}

/// A value as one line of TOML (inline tables all the way down).
fn inline_value(v: &Value) -> String {
    match v {
        Value::Table(t) => {
            let items: Vec<String> = t
                .iter()
                .map(|(k, x)| format!("{} = {}", toml_key(k), inline_value(x)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(inline_value).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        k.to_string()
    } else {
        format!("{k:?}")
    }
}

fn mutate(r: &mut Rng, root: &mut Value, sets: &mut Vec<String>) -> Expect {
    let mut all = Vec::new();
    paths(root, &mut Vec::new(), &mut all);
    // Half the time a path at least three deep: inside the nested tables.
    let deep: Vec<Path> = all.iter().filter(|p| p.len() >= 3).cloned().collect();
    let path = if !deep.is_empty() && r.below(2) == 0 {
        r.pick(&deep).clone()
    } else {
        r.pick(&all).clone()
    };
    let key = dotted(&path);
    let last = match path.last() {
        Some(Seg::Key(k)) => Some(k.clone()),
        _ => None,
    };
    let in_template = key.starts_with("templates.");
    match r.below(10) {
        // Replace a value (any type).
        0 => {
            let v = random_value(r, 0);
            if let Some(x) = get_mut(root, &path) {
                *x = v;
            }
            Expect::Any
        }
        // A value of another type: refused at that key, if refused.
        1 | 2 => {
            let Some(old) = get(root, &path).cloned() else {
                return Expect::Any;
            };
            let mut v = random_value(r, 0);
            for _ in 0..20 {
                if kind(&v) != kind(&old) && !matches!(v, Value::Table(_)) {
                    break;
                }
                v = random_value(r, 0);
            }
            if kind(&v) == kind(&old) {
                return Expect::Any;
            }
            // (--set paths have no list indices.)
            if r.below(3) == 0 && !in_template && !key.contains('[') {
                let raw = match &v {
                    Value::String(s) if r.below(2) == 0 => s.clone(),
                    v => inline_value(v),
                };
                sets.push(format!("{key}={raw}"));
            } else if let Some(x) = get_mut(root, &path) {
                *x = v;
            }
            Expect::KeyedAt(key)
        }
        // Delete a key.
        3 => {
            if let (Some(t), Some(k)) = (get_parent(root, &path), &last) {
                t.remove(k);
            }
            Expect::Any
        }
        // Insert an unknown (or known) key next to it.
        4 => {
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
                    "t_good",
                    "arq",
                    "model",
                ])
                .to_string();
            let v = random_value(r, 0);
            let Some(t) = get_parent(root, &path) else {
                return Expect::Any;
            };
            if t.contains_key(&k) {
                t.insert(k, v);
                return Expect::Any;
            }
            t.insert(k.clone(), v);
            let parent = dotted(&path[..path.len() - 1]);
            Expect::KeyedAt(if parent.is_empty() {
                k
            } else {
                format!("{parent}.{k}")
            })
        }
        // A quantity below the resolution or beyond f64 precision.
        5 | 6 => {
            let quantities: Vec<Path> = all
                .iter()
                .filter(|p| {
                    matches!(get(root, p), Some(Value::String(s)) if unroundable(&mut Rng(1), s).is_some())
                })
                .cloned()
                .collect();
            if quantities.is_empty() {
                return Expect::Any;
            }
            let path = r.pick(&quantities).clone();
            let key = dotted(&path);
            let Some(Value::String(old)) = get(root, &path).cloned() else {
                return Expect::Any;
            };
            let (text, base) = unroundable(r, &old).unwrap();
            let words = if text.starts_with("1e-400") {
                vec!["below".to_string()]
            } else {
                vec!["resolution".to_string(), format!("whole number of {base}")]
            };
            let settable = !key.starts_with("templates.") && !key.contains('[');
            if settable && r.below(3) == 0 {
                sets.push(format!("{key}=\"{text}\""));
            } else if let Some(x) = get_mut(root, &path) {
                *x = Value::String(text);
            }
            Expect::Refused(key, words)
        }
        // A whole table replaced by --set: refused, naming what exists.
        7 => match whole_table_set(r, root) {
            Some((set, key, words)) => {
                sets.push(set);
                Expect::Refused(key, words)
            }
            None => Expect::Any,
        },
        // A --set override of an existing or invented path.
        _ => {
            let mut p = key.clone();
            if p.contains('[') {
                return Expect::Any;
            }
            if r.below(4) == 0 {
                p.push_str(".extra");
            }
            if r.below(6) == 0 {
                p = format!(
                    "{}.nope.{}",
                    r.pick(&["nodes", "links", "flows"]),
                    last.unwrap_or_default()
                );
            }
            let raw = match random_value(r, 1) {
                Value::String(s) if r.below(2) == 0 => s,
                v => inline_value(&v),
            };
            sets.push(format!("{p}={raw}"));
            Expect::Any
        }
    }
}

fn cases() -> u64 {
    std::env::var("SKYHOP_PROP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

/// `key` is `at` or a key inside it.
fn within(key: &str, at: &str) -> bool {
    key == at
        || key
            .strip_prefix(at)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

#[test]
fn mutated_scenarios_load_or_give_one_keyed_error_never_a_panic() {
    let seed: u64 = std::env::var("SKYHOP_PROP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED);
    let mut r = Rng(seed | 1);
    let (mut loaded, mut refused, mut sharp) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in 0..cases() {
        let base = r.pick(BASES);
        let mut v = Value::Table(toml::from_str(base).unwrap());
        let mut sets = Vec::new();
        let n = 1 + r.below(3);
        let mut expect = Expect::Any;
        for _ in 0..n {
            expect = mutate(&mut r, &mut v, &mut sets);
        }
        // Only a lone mutation has a sharper contract.
        if n > 1 {
            expect = Expect::Any;
        }
        let text = toml::to_string(&v).unwrap();
        let what = format!("case {case} (seed {seed}): {expect:?}\n{text}\nsets: {sets:?}");
        let res = catch_unwind(AssertUnwindSafe(|| load_str(&text, "p.toml", &sets)))
            .unwrap_or_else(|_| panic!("the loader panicked on {what}"));
        match res {
            Err(e) => {
                refused += 1;
                assert_eq!(e.file, "p.toml", "{e}\n{what}");
                assert!(!e.key.is_empty(), "an error with no key: {e}\n{what}");
                assert!(!e.message.is_empty(), "{what}");
                assert!(!e.message.contains('\n'), "a multi-line error: {e}\n{what}");
                match &expect {
                    Expect::Any => {}
                    Expect::KeyedAt(at) | Expect::Refused(at, _) => {
                        sharp += 1;
                        if !within(&e.key, at) {
                            failures.push(format!(
                                "the error names {:?}, not {at:?}: {e}\n{what}",
                                e.key
                            ));
                        }
                    }
                }
                if let Expect::Refused(_, words) = &expect {
                    for w in words {
                        if !e.message.contains(w.as_str()) {
                            failures.push(format!("the error does not say {w:?}: {e}\n{what}"));
                        }
                    }
                }
            }
            Ok(scn) => {
                loaded += 1;
                if let Expect::Refused(..) = expect {
                    failures.push(format!("accepted: {what}"));
                }
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
    assert!(
        failures.is_empty(),
        "{} of {} cases broke the contract:\n\n{}",
        failures.len(),
        cases(),
        failures.join("\n\n")
    );
    // Both outcomes occur: the mutations are neither all fatal nor all inert.
    if cases() >= 64 {
        assert!(
            loaded > 0 && refused > 0 && sharp > 0,
            "loaded {loaded}, refused {refused} ({sharp} with a sharper contract)"
        );
    }
}

/// Hostile values of the constellation and routing keys (issue 39): each
/// refused at its key, with the words that say why, before anything is
/// allocated or run (a constellation of 4 billion satellites, a route
/// recomputation every nanosecond, a TLE file that is a device).
#[test]
fn hostile_constellation_and_routing_values_are_refused_at_their_key() {
    let base = include_str!("../../../../scenarios/leo_rome_geometric.toml");
    let cases: &[(&[&str], &str, &[&str])] = &[
        (
            &[
                "constellation.planes=65535",
                "constellation.per_plane=65535",
            ],
            "constellation.planes",
            &["4294836225 satellites", "65536 nodes"],
        ),
        (
            &["constellation.per_plane=4294967295"],
            "constellation.planes",
            &["more than the 65536 nodes"],
        ),
        (
            &["constellation.planes=256", "constellation.per_plane=256"],
            "constellation",
            &[
                "65539 nodes (3 on the ground, 65536 satellites)",
                "10.255.255.1",
            ],
        ),
        (
            &["routing.update=\"1 ns\""],
            "routing.update",
            &["run.event_budget", "60000000000 times"],
        ),
        (
            &["routing.policy=\"epochs\"", "routing.epoch=\"1 ns\""],
            "routing.epoch",
            &["run.event_budget"],
        ),
        (
            &["constellation.phasing=\"x\""],
            "constellation.phasing",
            &["\"x\"", "half-offset", "whole number"],
        ),
        (
            &["constellation.phasing=-1"],
            "constellation.phasing",
            &["-1", "half-offset"],
        ),
        (
            &["constellation.phasing=1.5"],
            "constellation.phasing",
            &["1.5", "half-offset"],
        ),
        (
            &["constellation.gsl.shift=3"],
            "constellation.gsl.shift",
            &["inter-satellite"],
        ),
        (
            &["run.duration=\"10 s\"\nrun.seed = 5"],
            "run.duration",
            &["more than one value", "run"],
        ),
    ];
    for (sets, key, words) in cases {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = catch_unwind(AssertUnwindSafe(|| load_str(base, "p.toml", &sets)))
            .unwrap_or_else(|_| panic!("the loader panicked on {sets:?}"))
            .expect_err(&format!("accepted: {sets:?}"));
        assert_eq!(e.key, *key, "{e} ({sets:?})");
        assert!(!e.message.contains("untagged"), "{e}");
        for w in *words {
            assert!(e.message.contains(w), "{e} does not say {w:?} ({sets:?})");
        }
    }
    // A node named like one of the cities constellation.cities adds would
    // silently be that city.
    let tokyo = base
        .replace("[nodes.Rome]", "[nodes.Tokyo]")
        .replace("\"Rome\"", "\"Tokyo\"");
    let sets = vec!["constellation.cities=3".to_string()];
    let e = load_str(&tokyo, "p.toml", &sets).unwrap_err();
    assert_eq!(e.key, "nodes.Tokyo", "{e}");
    assert!(e.message.contains("city 1 of the 3"), "{e}");
    assert!(load_str(&tokyo, "p.toml", &[]).is_ok());
}
