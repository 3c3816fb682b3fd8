//! A deserialisation error as a [`ScenarioError`]: the full dotted key of
//! the value at fault and a message in the scenario's words.
//!
//! serde reports an error at the path it was reading, with its own wording
//! ("unknown variant `x`, expected one of `a`, `b`"). Two things are
//! mended here:
//!
//! - **The key.** A tagged table (`channel = { model = "...", ... }`,
//!   `link_layer = { model = "dvbs", ... }`) is read whole before its model
//!   is known, so an error inside it is reported at the table. The key is
//!   completed from the table itself: the unknown or missing field, or the
//!   entry holding the value the message names (when several hold it, the
//!   one whose removal makes the error go away).
//! - **The words.** Unknown values list the allowed ones (`"x" is not one
//!   of "a", "b"`), unknown keys the known ones, a missing key says it is
//!   required; other messages lose serde's backticks.

use crate::error::ScenarioError;
use serde_path_to_error::Segment;

/// What a message says, once parsed.
enum Says {
    /// `missing field `f``.
    Missing(String),
    /// `unknown field `f`, expected ...`.
    UnknownField(String, Vec<String>),
    /// `unknown variant `v`, expected ...`.
    UnknownValue(String, Vec<String>),
    /// Anything else; the value it names, if it names one.
    Other(Option<toml::Value>),
}

/// The words between backticks in `s`, in order.
fn quoted(s: &str) -> Vec<String> {
    s.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn parse(msg: &str) -> Says {
    let first = |s: &str| quoted(s).into_iter().next().unwrap_or_default();
    if let Some(rest) = msg.strip_prefix("missing field ") {
        return Says::Missing(first(rest));
    }
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        let (name, expected) = rest.split_once(", ").unwrap_or((rest, ""));
        return Says::UnknownField(first(name), quoted(expected));
    }
    if let Some(rest) = msg.strip_prefix("unknown variant ") {
        let (name, expected) = rest.split_once(", ").unwrap_or((rest, ""));
        return Says::UnknownValue(first(name), quoted(expected));
    }
    // serde's `Unexpected` values: `string "x"`, `integer `3``, ...
    let value = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))
        .and_then(|rest| {
            if let Some(s) = rest.strip_prefix("string \"") {
                return s
                    .split_once('"')
                    .map(|(v, _)| toml::Value::String(v.into()));
            }
            let v = quoted(rest).into_iter().next()?;
            if rest.starts_with("integer") {
                v.parse().ok().map(toml::Value::Integer)
            } else if rest.starts_with("floating point") {
                v.parse().ok().map(toml::Value::Float)
            } else if rest.starts_with("boolean") {
                v.parse().ok().map(toml::Value::Boolean)
            } else {
                None
            }
        });
    Says::Other(value)
}

/// `"a", "b" or "c"` style list of allowed words.
fn words(ws: &[String]) -> String {
    ws.iter()
        .map(|w| format!("{w:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// serde's backticks as the scenario writes values: numbers and booleans
/// bare, anything else in double quotes.
fn plain(msg: &str) -> String {
    let mut out = String::new();
    for (i, part) in msg.split('`').enumerate() {
        let bare = part.parse::<f64>().is_ok() || part == "true" || part == "false";
        if i % 2 == 0 || bare {
            out.push_str(part);
        } else {
            out.push_str(&format!("{part:?}"));
        }
    }
    out
}

/// serde's `Unexpected` as the scenario writes it: `"x"`, `3`, `a list`.
fn got_words(unexp: &str) -> String {
    if let Some(s) = unexp.strip_prefix("string ") {
        return s.to_string();
    }
    for kind in ["integer ", "floating point ", "boolean "] {
        if let Some(v) = unexp.strip_prefix(kind) {
            return v.trim_matches('`').to_string();
        }
    }
    match unexp {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        "unit value" => "nothing".into(),
        other => plain(other),
    }
}

/// serde's `expected ...` in the scenario's words.
fn want_words(exp: &str) -> String {
    let bits = |t: &str| match t {
        "u8" => Some(8),
        "u16" => Some(16),
        "u32" => Some(32),
        "u64" | "usize" => Some(64),
        _ => None,
    };
    if let Some(b) = bits(exp) {
        let max: u64 = if b == 64 { u64::MAX } else { (1u64 << b) - 1 };
        return format!("a whole number from 0 to {max}");
    }
    match exp {
        "f64" | "f32" => "a number, e.g. 0.01".into(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "a boolean" => "true or false".into(),
        "a string" | "a borrowed string" | "a character" => "a string in quotes".into(),
        "a sequence" => "a list in brackets".into(),
        "a map" | "a flow table" => "a table".into(),
        e if e.starts_with("struct ") => "a table".into(),
        e if e.starts_with("internally tagged enum ") => "a table { model = \"...\", ... }".into(),
        e => plain(e),
    }
}

/// A hint for a value of the wrong type: what the value probably meant.
fn type_hint(got: &str, want: &str) -> String {
    let text = got.strip_prefix('"').and_then(|g| g.strip_suffix('"'));
    let Some(text) = text else {
        return String::new();
    };
    let t = text.trim();
    if want.starts_with("a number") {
        if let Some(pc) = t
            .strip_suffix('%')
            .and_then(|n| n.trim().parse::<f64>().ok())
        {
            return format!(
                " (a fraction: {} % is {})",
                fmt_num(pc),
                fmt_num(pc / 100.0)
            );
        }
        if t.parse::<f64>().is_ok() {
            return format!(" (write it without quotes: {t})");
        }
    }
    if want.starts_with("a whole number") && t.parse::<i128>().is_ok() {
        return format!(" (write it without quotes: {t})");
    }
    if want == "true or false" && matches!(t, "true" | "false") {
        return format!(" (write it without quotes: {t})");
    }
    if want.starts_with("a list") {
        return format!(", e.g. [{got}]");
    }
    String::new()
}

fn fmt_num(x: f64) -> String {
    let s = format!("{x}");
    // 0.1 + noise from the division: the shortest text that reads back the same
    for digits in 1..17 {
        let t = format!("{x:.digits$}");
        if t.parse::<f64>().ok() == Some(x) {
            return t.trim_end_matches('0').trim_end_matches('.').to_string();
        }
    }
    s
}

/// A serde message in the scenario's words: no Rust type names, the value
/// given and what is expected, with an example or a hint where one helps.
fn humane(msg: &str) -> String {
    let split = |rest: &str| -> Option<(String, String)> {
        let (unexp, exp) = rest.rsplit_once(", expected ")?;
        Some((got_words(unexp), want_words(exp)))
    };
    if let Some((got, want)) = msg.strip_prefix("invalid type: ").and_then(split) {
        let hint = type_hint(&got, &want);
        return format!("expected {want}, got {got}{hint}");
    }
    if let Some((got, want)) = msg.strip_prefix("invalid value: ").and_then(split) {
        return format!("{got} is out of range: expected {want}");
    }
    if let Some(rest) = msg.strip_prefix("invalid length ") {
        if let Some((n, exp)) = rest.split_once(", expected ") {
            return format!("{n} entries: expected {}", plain(exp));
        }
    }
    if let Some(rest) = msg.strip_prefix("duplicate field ") {
        return format!("{} is given twice", plain(rest));
    }
    plain(msg)
}

/// Does `msg` name `v` (a value of the scenario)?
fn mentions(msg: &str, v: &toml::Value) -> bool {
    let word = |w: &str| {
        msg.split(|c: char| c.is_whitespace() || matches!(c, '`' | ',' | ':' | '(' | ')'))
            .any(|x| x == w)
    };
    match v {
        toml::Value::String(s) => msg.contains(&format!("{s:?}")),
        toml::Value::Integer(i) => word(&i.to_string()),
        toml::Value::Float(f) => word(&f.to_string()),
        toml::Value::Boolean(b) => word(&b.to_string()),
        _ => false,
    }
}

/// The value at `path` under `root`, following map keys and array indices.
fn value_at<'a>(root: &'a toml::Value, path: &[Segment]) -> Option<&'a toml::Value> {
    let mut cur = root;
    for s in path {
        cur = match (s, cur) {
            (Segment::Map { key }, toml::Value::Table(t)) => t.get(key)?,
            (Segment::Seq { index }, toml::Value::Array(a)) => a.get(*index)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn set_at(root: &mut toml::Value, path: &[Segment], value: toml::Value) {
    let Some((Segment::Map { key }, parent)) = path.split_last() else {
        return;
    };
    if let Some(t) = table_at_mut(root, parent) {
        t.insert(key.clone(), value);
    }
}

fn table_at_mut<'a>(root: &'a mut toml::Value, path: &[Segment]) -> Option<&'a mut toml::Table> {
    let mut cur = root;
    for s in path {
        cur = match (s, cur) {
            (Segment::Map { key }, toml::Value::Table(t)) => t.get_mut(key)?,
            (Segment::Seq { index }, toml::Value::Array(a)) => a.get_mut(*index)?,
            _ => return None,
        };
    }
    cur.as_table_mut()
}

/// Turn a deserialisation error of the scenario `root` into a
/// [`ScenarioError`] of `file`. `reload` deserialises a changed scenario
/// and returns its first error as (path, message), to tell which of
/// several entries of a tagged table holds the value at fault.
pub(super) fn from_serde(
    file: &str,
    root: &toml::Value,
    e: &serde_path_to_error::Error<toml::de::Error>,
    reload: &dyn Fn(toml::Value) -> Option<(String, String)>,
) -> ScenarioError {
    let path: Vec<Segment> = e.path().iter().cloned().collect();
    let at = e.path().to_string();
    let at = if at == "." { String::new() } else { at };
    let msg = e.inner().message().to_string();
    let join = |field: &str| {
        if at.is_empty() {
            field.to_string()
        } else {
            format!("{at}.{field}")
        }
    };
    let here = value_at(root, &path).and_then(|v| v.as_table());
    let last = match path.last() {
        Some(Segment::Map { key }) => key.as_str(),
        _ => "",
    };
    // The entry of the table at the error's path that holds `value`.
    let holder = |value: &toml::Value| -> Option<String> {
        let t = here?;
        let mut found: Vec<&String> = t
            .iter()
            .filter(|(_, v)| *v == value)
            .map(|(k, _)| k)
            .collect();
        if found.len() > 1 {
            // The one whose removal changes the error.
            let culprit = found.iter().position(|k| {
                let mut changed = root.clone();
                if let Some(t) = table_at_mut(&mut changed, &path) {
                    t.remove(k.as_str());
                }
                reload(changed) != Some((e.path().to_string(), msg.clone()))
            });
            found = vec![found[culprit.unwrap_or(0)]];
        }
        found.first().map(|k| k.to_string())
    };
    // A tagged table (`{ model = ... }`) is read whole, so serde stops at
    // it: the entry at fault is the one the message names (the one whose
    // removal changes the error, if several do).
    let tagged = here.is_some_and(|t| t.contains_key("model"));
    // Of several entries, the one whose removal changes the error.
    let culprit = |found: &[&String]| -> Option<String> {
        found
            .iter()
            .find(|k| {
                let mut changed = root.clone();
                if let Some(t) = table_at_mut(&mut changed, &path) {
                    t.remove(k.as_str());
                }
                reload(changed) != Some((e.path().to_string(), msg.clone()))
            })
            .map(|k| k.to_string())
    };
    let named_entry = |msg: &str| -> Option<String> {
        let t = here?;
        let mut found: Vec<&String> = t
            .iter()
            .filter(|(k, v)| k.as_str() != "model" && mentions(msg, v))
            .map(|(k, _)| k)
            .collect();
        // A quoted string the message names outranks a number that happens
        // to be a word of it ("write 0 s for none" is not `per_good = 0`).
        if found.iter().any(|k| t[k.as_str()].is_str()) {
            found.retain(|k| t[k.as_str()].is_str());
        }
        // A list or a table where another type belongs: the entries that
        // hold one.
        if found.is_empty() {
            let kind = |v: &toml::Value| match v {
                toml::Value::Array(_) => msg.starts_with("invalid type: sequence"),
                toml::Value::Table(_) => msg.starts_with("invalid type: map"),
                _ => false,
            };
            found = t
                .iter()
                .filter(|(k, v)| k.as_str() != "model" && kind(v))
                .map(|(k, _)| k)
                .collect();
        }
        match found.len() {
            0 => None,
            1 => Some(found[0].clone()),
            _ => culprit(&found).or_else(|| Some(found[0].clone())),
        }
    };
    let (key, message) = match parse(&msg) {
        Says::Missing(field) => (join(&field), "missing: this key is required".to_string()),
        Says::UnknownField(field, known) => {
            // Inside a tagged table the path stops at the table.
            let key = if last != field && here.is_some_and(|t| t.contains_key(&field)) {
                join(&field)
            } else {
                at.clone()
            };
            let hint = crate::suggest::hint(&field, known.iter().map(String::as_str));
            let known = if known.is_empty() {
                "this table takes no keys".to_string()
            } else {
                format!("known: {}", known.join(", "))
            };
            (key, format!("unknown field {field:?} ({known}){hint}"))
        }
        Says::UnknownValue(value, allowed) => {
            let key = holder(&toml::Value::String(value.clone()))
                .map_or_else(|| at.clone(), |k| join(&k));
            let hint = crate::suggest::hint(&value, allowed.iter().map(String::as_str));
            let message = match allowed.len() {
                0 => format!("{value:?} is not a known value"),
                1 => format!("{value:?} is not {}", words(&allowed)),
                _ => format!("{value:?} is not one of {}", words(&allowed)),
            };
            (key, format!("{message}{hint}"))
        }
        Says::Other(named) => {
            let entry = named.and_then(|v| holder(&v)).or_else(|| {
                if tagged {
                    named_entry(&msg)
                } else {
                    None
                }
            });
            let key = entry.as_deref().map_or_else(|| at.clone(), join);
            let mut at_fault = path.clone();
            at_fault.extend(entry.map(|key| Segment::Map { key }));
            let message = match value_at(root, &at_fault) {
                // A number or boolean where a word is expected: the words,
                // from the error a word that is none of them gives.
                Some(
                    v @ (toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_)),
                ) => {
                    let mut changed = root.clone();
                    let words_of = |(_, m): (String, String)| match parse(&m) {
                        Says::UnknownValue(_, allowed) if !allowed.is_empty() => Some(allowed),
                        _ => None,
                    };
                    set_at(&mut changed, &at_fault, toml::Value::String("\u{1}".into()));
                    match reload(changed).and_then(words_of) {
                        Some(allowed) => format!("{v} is not one of {}", words(&allowed)),
                        None => humane(&msg),
                    }
                }
                _ => humane(&msg),
            };
            // A value where a tagged table belongs: the models there are.
            let message = if msg.contains("expected internally tagged enum") {
                let mut changed = root.clone();
                let mut probe = toml::Table::new();
                probe.insert("model".into(), toml::Value::String("\u{1}".into()));
                set_at(&mut changed, &at_fault, toml::Value::Table(probe));
                match reload(changed).map(|(_, m)| parse(&m)) {
                    Some(Says::UnknownValue(_, models)) if !models.is_empty() => format!(
                        "{message} (models: {}), e.g. {{ model = {:?} }}",
                        words(&models),
                        models[0]
                    ),
                    _ => message,
                }
            } else {
                message
            };
            (key, message)
        }
    };
    ScenarioError::new(file, key, message)
}

/// JSON text whose objects give no key twice (serde_json would keep the
/// last value silently); the error names the key and where.
pub(super) fn no_duplicate_keys(text: &str) -> Result<(), serde_json::Error> {
    use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    struct Unique;
    impl<'de> Deserialize<'de> for Unique {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(Unique)
        }
    }
    impl<'de> Visitor<'de> for Unique {
        type Value = Unique;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Unique, E> {
            Ok(Unique)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Unique, E> {
            Ok(Unique)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Unique, E> {
            Ok(Unique)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Unique, E> {
            Ok(Unique)
        }
        fn visit_str<E>(self, _: &str) -> Result<Unique, E> {
            Ok(Unique)
        }
        fn visit_unit<E>(self) -> Result<Unique, E> {
            Ok(Unique)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Unique, A::Error> {
            while a.next_element::<Unique>()?.is_some() {}
            Ok(Unique)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Unique, A::Error> {
            let mut seen = std::collections::BTreeSet::new();
            while let Some(k) = a.next_key::<String>()? {
                if !seen.insert(k.clone()) {
                    return Err(A::Error::custom(format!(
                        "the key {k:?} is given twice in one object"
                    )));
                }
                a.next_value::<Unique>()?;
            }
            Ok(Unique)
        }
    }
    serde_json::from_str::<Unique>(text).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_wording_is_parsed() {
        match parse("unknown variant `x`, expected one of `a`, `b`, `c`") {
            Says::UnknownValue(v, a) => {
                assert_eq!(v, "x");
                assert_eq!(a, ["a", "b", "c"]);
            }
            _ => panic!(),
        }
        match parse("unknown field `foo`, expected `p` or `apply_to`") {
            Says::UnknownField(f, k) => {
                assert_eq!(f, "foo");
                assert_eq!(k, ["p", "apply_to"]);
            }
            _ => panic!(),
        }
        match parse("unknown field `foo`, there are no fields") {
            Says::UnknownField(f, k) => assert!(f == "foo" && k.is_empty()),
            _ => panic!(),
        }
        match parse("invalid type: string \"fast\", expected f64") {
            Says::Other(Some(toml::Value::String(s))) => assert_eq!(s, "fast"),
            _ => panic!(),
        }
        match parse("invalid type: integer `3`, expected a string") {
            Says::Other(Some(toml::Value::Integer(3))) => {}
            _ => panic!(),
        }
        assert_eq!(
            plain("invalid type: integer `3`, expected `good`"),
            "invalid type: integer 3, expected \"good\""
        );
    }
}
