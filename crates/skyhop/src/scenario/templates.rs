//! Templates: many similar nodes, links and flows declared once.
//!
//! ```toml
//! [templates.web]
//! count = 10                                  # i = 0 … 9
//! [templates.web.nodes."S{i}"]
//! [templates.web.links."g{i}"]
//! between = ["S{i}", "GGW"]
//! rate = "100 Mbps"
//! delay = "25 ms + 5 ms * i"                  # 25, 30, … 70 ms
//! [templates.web.flows."web{i}"]
//! from = "S{i}"
//! to = "C{i}"
//! ```
//!
//! Each entry of `nodes`, `links` and `flows` expands `count` times (0: a
//! part switched off until `--set templates.web.count=N`): `{i}`
//! in keys and strings becomes the index, and a string that is a sum of
//! terms `Q` or `Q * i` with one unit (`"40 ms + 10 ms * i"`) is evaluated.
//! The expanded entries join the scenario's own (a name used twice is an
//! error naming the template key); the `templates` table itself is removed,
//! so the resolved scenario lists the expanded entries.

use crate::error::ScenarioError;

const SECTIONS: &[&str] = &["nodes", "links", "flows"];

/// The largest `count` of a template.
pub(crate) const MAX_COUNT: u64 = 100_000;
/// The most entries all templates may expand to.
pub(crate) const MAX_EXPANDED: u64 = 1_000_000;

/// Where expanded entries came from: an error at `links.g3.rate` is one
/// of the template's `templates.web.links."g{i}".rate`.
#[derive(Debug, Default)]
pub(super) struct Origins(Vec<Origin>);

#[derive(Debug)]
struct Origin {
    template: String,
    section: &'static str,
    entry: String,
    count: u64,
}

impl Origins {
    /// The error of an expanded entry named at the template key the user
    /// wrote (with the entry it expanded to), unless `keep(entry)`: e.g. a
    /// `--set` changed that entry after the expansion.
    pub(super) fn name(&self, e: ScenarioError, keep: impl Fn(&str) -> bool) -> ScenarioError {
        let mut parts = e.key.splitn(3, '.');
        let (Some(sec), Some(name)) = (parts.next(), parts.next()) else {
            return e;
        };
        // `nodes.C0[0]`: the entry is `C0`, what follows is inside it.
        let (name, index) = name.split_at(name.find('[').unwrap_or(name.len()));
        let rest = match (index, parts.next()) {
            ("", r) => r.map(|r| format!(".{r}")).unwrap_or_default(),
            (ix, Some(r)) => format!("{ix}.{r}"),
            (ix, None) => ix.to_string(),
        };
        let expanded = format!("{sec}.{name}");
        if keep(&expanded) {
            return e;
        }
        for o in self.0.iter().filter(|o| o.section == sec) {
            let Some(i) = index_of(&o.entry, name, o.count) else {
                continue;
            };
            let key = format!("templates.{}.{sec}.{}{rest}", o.template, o.entry);
            let message = format!("{} (in {expanded}, i = {i})", e.message);
            return ScenarioError::new(&e.file, key, message);
        }
        e
    }
}

/// The `i` for which the entry pattern `pattern` (with `{i}`) expands to
/// `name`, if one below `count` does.
fn index_of(pattern: &str, name: &str, count: u64) -> Option<u64> {
    if !pattern.contains("{i}") {
        return (pattern == name).then_some(0);
    }
    // The digits where the first `{i}` stands; the whole name must match them.
    let (head, _) = pattern.split_once("{i}")?;
    let digits: String = name
        .strip_prefix(head)?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let i: u64 = digits.parse().ok()?;
    (i < count && pattern.replace("{i}", &i.to_string()) == name).then_some(i)
}

pub(super) fn expand(root: &mut toml::Value, file: &str) -> Result<Origins, ScenarioError> {
    let mut origins = Origins::default();
    let Some(t) = root.as_table_mut() else {
        return Ok(origins);
    };
    let Some(templates) = t.remove("templates") else {
        return Ok(origins);
    };
    let templates = match templates {
        toml::Value::Table(x) => x,
        _ => {
            return Err(ScenarioError::new(
                file,
                "templates",
                "must be a table of templates",
            ))
        }
    };
    let mut expanded: u64 = 0;
    for (name, tv) in templates {
        let key = |k: &str| format!("templates.{name}.{k}");
        let toml::Value::Table(tt) = tv else {
            return Err(ScenarioError::new(
                file,
                format!("templates.{name}"),
                "must be a table",
            ));
        };
        for k in tt.keys() {
            if k != "count" && !SECTIONS.contains(&k.as_str()) {
                return Err(ScenarioError::new(
                    file,
                    key(k),
                    "unknown template key (known: count, nodes, links, flows)",
                ));
            }
        }
        let count = match tt.get("count") {
            Some(toml::Value::Integer(n)) if *n < 0 => {
                return Err(ScenarioError::new(
                    file,
                    key("count"),
                    format!("N = {n}: a template's count is a whole number from 0 to {MAX_COUNT}"),
                ))
            }
            Some(toml::Value::Integer(n)) if *n as u64 > MAX_COUNT => {
                return Err(ScenarioError::new(
                    file,
                    key("count"),
                    format!(
                        "N = {n} is out of range: a template expands at most {MAX_COUNT} times"
                    ),
                ))
            }
            // 0: a part of the scenario switched off until `--set
            // templates.NAME.count=N` (e.g. a live scenario's simulated twin)
            Some(toml::Value::Integer(n)) => *n as u64,
            Some(v) => {
                return Err(ScenarioError::new(
                    file,
                    key("count"),
                    format!("expected a whole number from 0 to {MAX_COUNT}, got {v}"),
                ))
            }
            None => {
                return Err(ScenarioError::new(
                    file,
                    key("count"),
                    "missing: this key is required (how many times the template expands)",
                ))
            }
        };
        for sec in SECTIONS {
            let Some(entries) = tt.get(*sec) else {
                continue;
            };
            let Some(entries) = entries.as_table() else {
                return Err(ScenarioError::new(file, key(sec), "must be a table"));
            };
            expanded = expanded.saturating_add(count.saturating_mul(entries.len() as u64));
            if expanded > MAX_EXPANDED {
                return Err(ScenarioError::new(
                    file,
                    key("count"),
                    format!("the templates would expand to more than {MAX_EXPANDED} nodes, links and flows"),
                ));
            }
            let target = t
                .entry(sec.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            let Some(target) = target.as_table_mut() else {
                return Err(ScenarioError::new(file, *sec, "must be a table"));
            };
            origins.0.extend(entries.keys().map(|k| Origin {
                template: name.clone(),
                section: sec,
                entry: k.clone(),
                count,
            }));
            for i in 0..count {
                for (k, v) in entries {
                    let n = k.replace("{i}", &i.to_string());
                    if target.contains_key(&n) {
                        return Err(ScenarioError::new(
                            file,
                            format!("templates.{name}.{sec}.{k}"),
                            format!("expands to {sec}.{n}, which already exists"),
                        ));
                    }
                    target.insert(n, subst(v, i));
                }
            }
        }
    }
    Ok(origins)
}

fn subst(v: &toml::Value, i: u64) -> toml::Value {
    match v {
        toml::Value::String(s) => {
            let s = s.replace("{i}", &i.to_string());
            toml::Value::String(linear(&s, i).unwrap_or(s))
        }
        toml::Value::Array(a) => toml::Value::Array(a.iter().map(|x| subst(x, i)).collect()),
        toml::Value::Table(t) => {
            toml::Value::Table(t.iter().map(|(k, x)| (k.clone(), subst(x, i))).collect())
        }
        other => other.clone(),
    }
}

/// `"40 ms + 10 ms * i"` at index `i`, as `"<value> ms"`; `None` if the
/// string is not such a sum (a sum of `Q` and `Q * i` terms, one unit).
fn linear(s: &str, i: u64) -> Option<String> {
    if !s.split_whitespace().any(|w| w == "i") {
        return None;
    }
    // Exact decimal arithmetic: the sum is the text the unit parser then
    // reads, so it must not pick up binary rounding ("0.1 ms + 0.1 ms * i").
    let mut terms: Vec<(i128, i32)> = Vec::new();
    let mut unit: Option<String> = None;
    for term in s.split('+') {
        let parts: Vec<&str> = term.split('*').map(str::trim).collect();
        let (q, mult) = match parts.as_slice() {
            [q] => (*q, 1),
            [q, "i"] | ["i", q] => (*q, i),
            _ => return None,
        };
        let mut w = q.split_whitespace();
        let d = crate::units::Decimal::parse(w.next()?)?.ok()?;
        let u = w.collect::<Vec<_>>().join(" ");
        if unit.as_ref().is_some_and(|prev| *prev != u) {
            return None;
        }
        unit = Some(u);
        let v = i128::try_from(d.digits).ok()?.checked_mul(mult as i128)?;
        terms.push((if d.negative { -v } else { v }, d.exp));
    }
    let unit = unit?;
    let exp = terms.iter().map(|t| t.1).min()?;
    let mut total: i128 = 0;
    for (v, e) in terms {
        let scale = 10i128.checked_pow(u32::try_from(e - exp).ok()?)?;
        total = total.checked_add(v.checked_mul(scale)?)?;
    }
    let number = if exp >= 0 {
        match 10i128
            .checked_pow(exp as u32)
            .and_then(|m| total.checked_mul(m))
        {
            Some(v) => v.to_string(),
            None => format!("{total}e{exp}"),
        }
    } else {
        let digits = total.unsigned_abs().to_string();
        let k = (-exp) as usize;
        let padded = format!("{digits:0>width$}", width = k + 1);
        let (a, b) = padded.split_at(padded.len() - k);
        let b = b.trim_end_matches('0');
        let sign = if total < 0 { "-" } else { "" };
        if b.is_empty() {
            format!("{sign}{a}")
        } else {
            format!("{sign}{a}.{b}")
        }
    };
    Some(if unit.is_empty() {
        number
    } else {
        format!("{number} {unit}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_expressions_evaluate_per_index() {
        assert_eq!(linear("40 ms + 10 ms * i", 3).as_deref(), Some("70 ms"));
        assert_eq!(linear("i * 2.5 Mbps", 2).as_deref(), Some("5 Mbps"));
        assert_eq!(linear("40 ms + 10 s * i", 1), None);
        assert_eq!(linear("40 ms", 1), None);
        // exact: no binary rounding for the unit parser to refuse
        assert_eq!(linear("0.1 ms + 0.1 ms * i", 2).as_deref(), Some("0.3 ms"));
        assert_eq!(linear("1.5 Mbps * i", 4).as_deref(), Some("6 Mbps"));
    }

    #[test]
    fn templates_expand_nodes_links_and_flows() {
        let text = r#"
            [nodes.G]
            [links.x]
            between = ["G", "G"]
            [templates.t]
            count = 3
            [templates.t.nodes."S{i}"]
            [templates.t.links."g{i}"]
            between = ["S{i}", "G"]
            delay = "20 ms + 5 ms * i"
            [templates.t.flows."f{i}"]
            from = "S{i}"
            to = "G"
        "#;
        let mut v = toml::Value::Table(toml::from_str(text).unwrap());
        expand(&mut v, "t.toml").unwrap();
        assert!(v.get("templates").is_none());
        assert_eq!(v["links"]["g2"]["delay"].as_str(), Some("30 ms"));
        assert_eq!(v["links"]["g1"]["between"][0].as_str(), Some("S1"));
        assert_eq!(v["flows"]["f0"]["from"].as_str(), Some("S0"));
        assert!(v["nodes"].get("S2").is_some());

        // count 0: switched off, nothing expands (a --set switches it on)
        let zero = text.replace("count = 3", "count = 0");
        let mut v = toml::Value::Table(toml::from_str(&zero).unwrap());
        expand(&mut v, "t.toml").unwrap();
        assert!(v.get("templates").is_none());
        assert!(v
            .get("flows")
            .is_none_or(|f| f.as_table().unwrap().is_empty()));
        let negative = text.replace("count = 3", "count = -1");
        let mut v = toml::Value::Table(toml::from_str(&negative).unwrap());
        let e = expand(&mut v, "t.toml").unwrap_err().to_string();
        assert!(
            e.contains("templates.t.count") && e.contains("from 0"),
            "{e}"
        );
    }

    #[test]
    fn an_expanded_entry_is_traced_to_its_template_key() {
        assert_eq!(index_of("g{i}", "g12", 13), Some(12));
        assert_eq!(index_of("g{i}", "g13", 13), None);
        assert_eq!(index_of("g{i}", "g01", 13), None);
        assert_eq!(index_of("S{i}-C{i}", "S2-C2", 3), Some(2));
        assert_eq!(index_of("S{i}-C{i}", "S2-C1", 3), None);
        assert_eq!(index_of("fixed", "fixed", 3), Some(0));
    }
}
