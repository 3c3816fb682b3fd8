//! Scenario files: loading (TOML or JSON), `--set` overrides by dotted path,
//! validation with errors that name the file and the key, and the resolved
//! [`Plan`] the simulator builds from.

pub mod describe;
pub mod describe_access;
pub mod json_schema;
mod link_loss;
mod load_error;
mod memory;
mod memory_quic;
pub use memory_quic::BYTES_PER_QUIC_CONNECTION;
mod plan;
mod proxy_sizing;
pub mod sample;
mod schema;
mod templates;
mod validate;

pub use memory::{
    check_against, check_chains, check_chains_over, check_with, estimate, estimate_memory,
    limit_from, memory_limit, Estimate, Recording, BYTES_PER_PACKET,
};
pub use plan::{
    bytes_in, plan_builds, quic_stretches, LegFigures, Plan, PlanFlow, PlanLayer, PlanLeg,
    PlanProxy, QuicStretch, SenderFactory,
};
pub use schema::*;
pub use validate::MAX_RUNS;

use crate::error::ScenarioError;

/// A scenario read and checked, with the plan it resolves to: loading
/// builds the plan (every check runs there), and this keeps it, so that
/// the runs of a scenario, its description and its memory check share one
/// build ([`plan_builds`] counts them).
pub struct Loaded {
    /// The scenario as read (serde's defaults filled in).
    pub scenario: Scenario,
    /// Its resolved plan.
    pub plan: Plan,
}

/// Parse TOML scenario text, apply `--set` overrides (`"dotted.path=VALUE"`,
/// VALUE read as a TOML value, a bare word being a string) and validate.
pub fn load_str(text: &str, file: &str, sets: &[String]) -> Result<Scenario, ScenarioError> {
    load_str_in(text, file, sets, &cwd())
}

/// [`load_str`] with relative file paths in the scenario resolved against `base`.
pub fn load_str_in(
    text: &str,
    file: &str,
    sets: &[String],
    base: &std::path::Path,
) -> Result<Scenario, ScenarioError> {
    load_str_plan(text, file, sets, base).map(|l| l.scenario)
}

/// [`load_str_in`], keeping the plan the checks built.
pub fn load_str_plan(
    text: &str,
    file: &str,
    sets: &[String],
    base: &std::path::Path,
) -> Result<Loaded, ScenarioError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let msg = e.message().to_string();
        let line = e
            .span()
            .map(|sp| {
                format!(
                    " (line {})",
                    text[..sp.start.min(text.len())].lines().count().max(1)
                )
            })
            .unwrap_or_default();
        ScenarioError::new(file, "", format!("malformed TOML{line}: {msg}"))
    })?;
    load_value(toml::Value::Table(table), file, sets, base)
}

fn cwd() -> std::path::PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// The same as [`load_str`] for a JSON document of the same structure
/// (the resolved scenario a run reports round-trips through this).
pub fn load_json_str(text: &str, file: &str, sets: &[String]) -> Result<Scenario, ScenarioError> {
    load_json_str_in(text, file, sets, &cwd())
}

pub(crate) fn load_json_str_in(
    text: &str,
    file: &str,
    sets: &[String],
    base: &std::path::Path,
) -> Result<Scenario, ScenarioError> {
    load_json_str_plan(text, file, sets, base).map(|l| l.scenario)
}

/// [`load_json_str_in`], keeping the plan the checks built.
pub fn load_json_str_plan(
    text: &str,
    file: &str,
    sets: &[String],
    base: &std::path::Path,
) -> Result<Loaded, ScenarioError> {
    let malformed =
        |e: serde_json::Error| ScenarioError::new(file, "", format!("malformed JSON: {e}"));
    let v: serde_json::Value = serde_json::from_str(text).map_err(malformed)?;
    load_error::no_duplicate_keys(text).map_err(malformed)?;
    let tv = json_to_toml(&v, "").map_err(|(k, m)| ScenarioError::new(file, k, m))?;
    load_value(tv, file, sets, base)
}

/// The largest scenario file read (bytes).
pub(crate) const MAX_SCENARIO_BYTES: u64 = 64 << 20;

/// Read a scenario file (TOML, or JSON by extension), at most
/// [`MAX_SCENARIO_BYTES`] of it (a regular file or a pipe; a device such
/// as /dev/zero, a FIFO nobody writes to or a directory is refused unread).
pub fn load_path(path: &str, sets: &[String]) -> Result<Scenario, ScenarioError> {
    load_path_plan(path, sets).map(|l| l.scenario)
}

/// [`load_path`], keeping the plan the checks built.
pub(crate) fn load_path_plan(path: &str, sets: &[String]) -> Result<Loaded, ScenarioError> {
    use crate::files::{read_text, Accept};
    let text = read_text(
        std::path::Path::new(path),
        MAX_SCENARIO_BYTES,
        Accept::RegularOrPipe,
    )
    .map_err(|e| ScenarioError::new(path, "", format!("cannot read scenario file: {e}")))?;
    // Relative paths inside the scenario (fade traces, masking files, a TLE
    // file) are relative to the scenario file.
    let base = cwd().join(
        std::path::Path::new(path)
            .parent()
            .unwrap_or(std::path::Path::new("")),
    );
    if path.ends_with(".json") {
        load_json_str_plan(&text, path, sets, &base)
    } else {
        load_str_plan(&text, path, sets, &base)
    }
}

fn json_to_toml(v: &serde_json::Value, key: &str) -> Result<toml::Value, (String, String)> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => {
            return Err((
                key.to_string(),
                "null is not a value; leave the key out".into(),
            ))
        }
        J::Bool(b) => toml::Value::Boolean(*b),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                toml::Value::Integer(i)
            } else if let Some(u) = n.as_u64() {
                return Err((
                    key.to_string(),
                    format!("{u} is larger than {}, the largest whole number a scenario holds (TOML's 64-bit integers)", i64::MAX),
                ));
            } else {
                toml::Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        J::String(s) => toml::Value::String(s.clone()),
        J::Array(a) => toml::Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| json_to_toml(x, &format!("{key}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(o) => {
            let mut t = toml::Table::new();
            for (k, x) in o {
                let sub = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                t.insert(k.clone(), json_to_toml(x, &sub)?);
            }
            toml::Value::Table(t)
        }
    })
}

/// Maps whose entries are named by the user: `--set` may not invent entries there.
const NAMED_MAPS: &[(&str, &str)] = &[("nodes", "node"), ("links", "link"), ("flows", "flow")];

/// VALUE of `--set PATH=VALUE`: one TOML value, a bare word being a string;
/// anything after the value (a newline and more TOML) is an error, not
/// silently dropped.
fn parse_set_value(raw: &str) -> Result<toml::Value, String> {
    let doc = format!("v = {raw}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => {
            let v = t
                .remove("v")
                .unwrap_or(toml::Value::String(raw.to_string()));
            match t.keys().next() {
                Some(more) => Err(format!(
                    "{raw:?} is more than one value (it goes on to set {more:?}): give one TOML value after ="
                )),
                None => Ok(v),
            }
        }
        Err(_) => Ok(toml::Value::String(raw.trim().to_string())),
    }
}

fn apply_set(root: &mut toml::Value, set: &str, file: &str) -> Result<(), ScenarioError> {
    let Some((path, raw)) = set.split_once('=') else {
        return Err(ScenarioError::new(
            file,
            set,
            "--set needs PATH=VALUE, e.g. --set links.wu.per=0.005",
        ));
    };
    let path = path.trim();
    let parts: Vec<&str> = path.split('.').collect();
    if path.is_empty() || parts.iter().any(|p| p.is_empty()) {
        return Err(ScenarioError::new(
            file,
            if path.is_empty() { "--set" } else { path },
            format!("the path of {set:?} is empty or has an empty part: --set needs PATH=VALUE, e.g. --set links.wu.per=0.005"),
        ));
    }
    // `nodes.X…`, `links.X…`, `flows.X…` (and a template's) must name an
    // existing entry, at any depth, and a whole table of entries is not
    // replaced: --set changes values, it never invents or removes an entry.
    let names_of = |t: Option<&toml::Value>| -> Vec<String> {
        t.and_then(|t| t.as_table())
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    };
    let have = |names: &[String]| {
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    let refuse_whole = |table: &str, names: &[String], what: &str| {
        let example = names
            .first()
            .map(|n| format!(", e.g. --set {table}.{n}.KEY=VALUE"))
            .unwrap_or_default();
        Err(ScenarioError::new(
            file,
            path,
            format!(
                "--set cannot replace the whole {table} table: it changes values of existing {what}s and never adds or removes one ({table}: {}); set a key of one{example}",
                have(names)
            ),
        ))
    };
    let check_entry = |table: &str, what: &str, names: &[String], name: &str| {
        if names.iter().any(|n| n == name) {
            return Ok(());
        }
        let hint = crate::suggest::hint(name, names.iter().map(String::as_str));
        Err(ScenarioError::new(
            file,
            path,
            format!(
                "--set names no existing {what} {name:?} ({table}: {}): --set changes existing values, it never invents a {what}{hint}",
                have(names)
            ),
        ))
    };
    let map_of = |sec: &str| NAMED_MAPS.iter().find(|(m, _)| *m == sec).map(|x| x.1);
    if let Some(what) = map_of(parts[0]) {
        let known = names_of(root.get(parts[0]));
        if parts.len() == 1 {
            return refuse_whole(parts[0], &known, what);
        }
        check_entry(parts[0], what, &known, parts[1])?;
    }
    if parts[0] == "templates" {
        let templates = root.get("templates");
        let known = names_of(templates);
        if parts.len() == 1 {
            return refuse_whole("templates", &known, "template");
        }
        check_entry("templates", "template", &known, parts[1])?;
        if parts.len() == 2 {
            check_whole_template(templates.and_then(|t| t.get(parts[1])), raw, file, path)?;
        }
        if let (Some(sec), Some(what)) = (parts.get(2), parts.get(2).and_then(|s| map_of(s))) {
            let table = format!("templates.{}.{sec}", parts[1]);
            let entries = names_of(
                templates
                    .and_then(|t| t.get(parts[1]))
                    .and_then(|t| t.get(*sec)),
            );
            if parts.len() == 3 {
                return refuse_whole(&table, &entries, what);
            }
            check_entry(&table, what, &entries, parts[3])?;
        }
    }
    let mut cur = root;
    for (i, part) in parts.iter().enumerate() {
        let here = parts[..i].join(".");
        let t = match cur {
            toml::Value::Table(t) => t,
            _ => {
                return Err(ScenarioError::new(
                    file,
                    path,
                    format!("--set path goes through {here}, which is not a table"),
                ))
            }
        };
        if i + 1 == parts.len() {
            let v = parse_set_value(raw).map_err(|m| ScenarioError::new(file, path, m))?;
            t.insert(part.to_string(), v);
            return Ok(());
        }
        cur = t
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    }
    Ok(())
}

/// `--set templates.NAME={...}` replaces a whole template: its nodes, links
/// and flows must keep their names (the values may change), or the set
/// would invent or remove entries.
fn check_whole_template(
    old: Option<&toml::Value>,
    raw: &str,
    file: &str,
    path: &str,
) -> Result<(), ScenarioError> {
    let toml::Value::Table(new) =
        parse_set_value(raw).map_err(|m| ScenarioError::new(file, path, m))?
    else {
        // Not a table: the template's own check says so.
        return Ok(());
    };
    let names = |t: Option<&toml::Value>, sec: &str| -> Vec<String> {
        t.and_then(|t| t.get(sec))
            .and_then(|t| t.as_table())
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    };
    let new = toml::Value::Table(new);
    for (sec, what) in NAMED_MAPS {
        let (have, given) = (names(old, sec), names(Some(&new), sec));
        if have == given {
            continue;
        }
        let list = |ns: &[String]| {
            if ns.is_empty() {
                "none".to_string()
            } else {
                ns.join(", ")
            }
        };
        return Err(ScenarioError::new(
            file,
            path,
            format!(
                "--set cannot add or remove a template's {what}s: {path}.{sec} has {}, the new table {}; set a key of one, e.g. --set {path}.{sec}.NAME.KEY=VALUE",
                list(&have),
                list(&given)
            ),
        ));
    }
    Ok(())
}

fn load_value(
    mut v: toml::Value,
    file: &str,
    sets: &[String],
    base: &std::path::Path,
) -> Result<Loaded, ScenarioError> {
    // `--set templates.…` changes a template before it expands; every other
    // path applies to the expanded scenario (so `flows.web3.tcp` exists).
    let (tsets, rest): (Vec<&String>, Vec<&String>) = sets.iter().partition(|s| {
        let path = s.split_once('=').map_or(s.as_str(), |(p, _)| p).trim();
        path == "templates" || path.starts_with("templates.")
    });
    for s in tsets {
        apply_set(&mut v, s, file)?;
    }
    let origins = templates::expand(&mut v, file)?;
    for s in &rest {
        apply_set(&mut v, s, file)?;
    }
    // An error in an expanded entry names the template key it came from,
    // unless a --set named that entry itself.
    let set_paths: Vec<&str> = rest
        .iter()
        .map(|s| s.split_once('=').map_or(s.as_str(), |(p, _)| p).trim())
        .collect();
    let keep = |entry: &str| {
        set_paths.iter().any(|p| {
            p.strip_prefix(entry)
                .is_some_and(|r| r.is_empty() || r.starts_with('.'))
        })
    };
    let name = |e: ScenarioError| origins.name(e, keep);
    load_checked(v, file, base).map_err(name)
}

fn load_checked(
    v: toml::Value,
    file: &str,
    base: &std::path::Path,
) -> Result<Loaded, ScenarioError> {
    let read = |v: toml::Value| serde_path_to_error::deserialize::<_, Scenario>(v);
    let reload = |v: toml::Value| {
        read(v)
            .err()
            .map(|e| (e.path().to_string(), e.inner().message().to_string()))
    };
    let mut scn = read(v.clone()).map_err(|e| load_error::from_serde(file, &v, &e, &reload))?;
    // serde reads a table's fields from a list in order: refuse that.
    if let Ok(out) = serde_json::to_value(&scn) {
        if let Some(key) = list_as_table(&v, &out, String::new()) {
            return Err(ScenarioError::new(
                file,
                key,
                "expected a table, got a list (a table is { key = value, ... })",
            ));
        }
    }
    for l in scn.links.values_mut() {
        let dirs = [l.forward.as_mut(), l.reverse.as_mut()];
        let dir_channels = dirs
            .into_iter()
            .flatten()
            .filter_map(|d| d.channel.as_mut());
        for c in l.channel.iter_mut().chain(dir_channels) {
            c.resolve_paths(base);
        }
    }
    // A TLE file is found as a channel's files are: beside the scenario.
    if let Some(t) = scn.constellation.as_mut().and_then(|c| c.tle.as_mut()) {
        *t = crate::channel::table::resolve(base, t);
    }
    // Every value, then everything the run relies on, then the memory it
    // would need.
    let plan = Plan::build(&scn, file)?;
    memory::check_memory(&plan, file)?;
    memory::check_chains(&plan, file, plan.duration, plan.event_budget)?;
    Ok(Loaded {
        scenario: scn,
        plan,
    })
}

/// The first key where the scenario as written has a list and the
/// scenario as read has a table.
fn list_as_table(written: &toml::Value, read: &serde_json::Value, key: String) -> Option<String> {
    let sub = |k: &str| {
        if key.is_empty() {
            k.to_string()
        } else {
            format!("{key}.{k}")
        }
    };
    match (written, read) {
        (toml::Value::Array(_), serde_json::Value::Object(_)) => Some(key),
        (toml::Value::Table(t), serde_json::Value::Object(o)) => t
            .iter()
            .find_map(|(k, x)| o.get(k).and_then(|y| list_as_table(x, y, sub(k)))),
        (toml::Value::Array(a), serde_json::Value::Array(b)) => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| list_as_table(x, y, format!("{key}[{i}]"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
