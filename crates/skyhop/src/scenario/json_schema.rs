//! JSON Schema of the scenario format, generated from the serde types the
//! engine deserialises and validates against ([`Scenario`] and the channel
//! and link-layer spec types it contains), so the schema cannot drift from
//! the engine. Doc comments become descriptions; `#[serde(default = ...)]`
//! values become `default`; `deny_unknown_fields` becomes
//! `additionalProperties: false`.
//!
//! Quantities with units ([`Rate`], [`Duration`], [`Size`], a flow's
//! [`FlowSize`]) are strings; their schemas carry a pattern built from the
//! same unit tables the parser reads. The schema is a guide for editors and
//! other tools: the engine's own validation (ranges, cross references
//! between nodes, links and flows) stays the authority.

use super::{FlowSize, Scenario};
use crate::units::{
    Duration, Length, Rate, Size, Speed, LENGTH_UNITS, RATE_UNITS, SIZE_UNITS, SPEED_UNITS,
    TIME_UNITS,
};
use schemars::gen::{SchemaGenerator, SchemaSettings};
use schemars::schema::{InstanceType, Metadata, Schema, SchemaObject, StringValidation};
use schemars::JsonSchema;

/// The `$id`-less draft-07 JSON Schema of any type deriving [`JsonSchema`],
/// as a JSON value (definitions inlined under `definitions`).
pub(crate) fn json_schema_of<T: JsonSchema>() -> serde_json::Value {
    let settings = SchemaSettings::draft07().with(|s| {
        s.option_nullable = false;
        s.option_add_null_type = false;
    });
    let schema = SchemaGenerator::new(settings).into_root_schema_for::<T>();
    serde_json::to_value(schema).expect("a JSON Schema is always serialisable")
}

/// The JSON Schema of a scenario file (TOML read as JSON, or JSON).
pub fn scenario_json_schema() -> serde_json::Value {
    let mut v = json_schema_of::<Scenario>();
    tcp_defaults(&mut v);
    quic_defaults(&mut v);
    loss_models(&mut v);
    if let Some(o) = v.as_object_mut() {
        o.insert(
            "title".into(),
            serde_json::Value::String("skyhop scenario".into()),
        );
        // Templates (scenario/templates.rs) expand into nodes, links and flows
        // before the scenario types read the file, so they are described here:
        // their entries may hold `{i}` and expressions such as
        // "40 ms + 10 ms * i", which only the expansion can check.
        let entries = serde_json::json!({
            "type": "object",
            "additionalProperties": {"type": "object"},
            "description": "Entries expanded `count` times; `{i}` in keys and strings becomes the index, and a sum of `Q` and `Q * i` terms with one unit is evaluated."
        });
        let template = serde_json::json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["count"],
            "properties": {
                "count": {"type": "integer", "minimum": 0, "maximum": 100000, "description": "Copies: i = 0 … count − 1 (0: switched off until --set templates.NAME.count=N)."},
                "nodes": entries.clone(),
                "links": entries.clone(),
                "flows": entries,
            }
        });
        if let Some(serde_json::Value::Object(props)) = o.get_mut("properties") {
            props.insert(
                "templates".into(),
                serde_json::json!({
                    "type": "object",
                    "description": "Many similar nodes, links and flows declared once (templates.<name>).",
                    "additionalProperties": template,
                }),
            );
        }
        // nodes are required unless templates provide them (links may be
        // absent when a constellation joins the nodes, flows when a node is a
        // live host).
        if let Some(req) = o.remove("required") {
            o.insert(
                "if".into(),
                serde_json::json!({"not": {"required": ["templates"]}}),
            );
            o.insert("then".into(), serde_json::json!({ "required": req }));
        }
    }
    v
}

/// The TCP parameters' defaults and ranges from the table of
/// `tcp/params.rs`: each key's description ends with its default under
/// every profile ("Default 200 ms (1 s with profile \"studies\")."), and
/// carries them as `x-skyhop-defaults` (`{profile: value}`) and
/// `x-skyhop-range` (what docs/scenario.md's tables show).
fn tcp_defaults(schema: &mut serde_json::Value) {
    let Some(props) = schema
        .pointer_mut("/definitions/TcpOptions/properties")
        .and_then(|p| p.as_object_mut())
    else {
        return;
    };
    for doc in super::schema::param_docs() {
        let Some(p) = props.get_mut(doc.key).and_then(|p| p.as_object_mut()) else {
            continue;
        };
        let described = match p.get("description").and_then(|d| d.as_str()) {
            Some(d) => format!("{d} {}", doc.default_sentence()),
            None => doc.default_sentence(),
        };
        p.insert("description".into(), described.into());
        let defaults: serde_json::Map<String, serde_json::Value> = doc
            .defaults
            .iter()
            .map(|(profile, v)| (profile.name().to_string(), v.clone().into()))
            .collect();
        p.insert("x-skyhop-defaults".into(), defaults.into());
        if !doc.range.is_empty() {
            p.insert("x-skyhop-range".into(), doc.range.into());
        }
    }
}

/// The QUIC parameters' defaults (quinn's) and ranges from the table of
/// `quic/params.rs`: each key's description ends with "Default X.", and
/// carries its range as `x-skyhop-range`.
fn quic_defaults(schema: &mut serde_json::Value) {
    let Some(props) = schema
        .pointer_mut("/definitions/QuicOptions/properties")
        .and_then(|p| p.as_object_mut())
    else {
        return;
    };
    for doc in crate::quic::params::quic_param_docs() {
        let Some(p) = props.get_mut(doc.key).and_then(|p| p.as_object_mut()) else {
            continue;
        };
        let sentence = format!("Default {}.", doc.default);
        let described = match p.get("description").and_then(|d| d.as_str()) {
            Some(d) => format!("{d} {sentence}"),
            None => sentence,
        };
        p.insert("description".into(), described.into());
        if !doc.range.is_empty() {
            p.insert("x-skyhop-range".into(), doc.range.into());
        }
    }
}

/// A link's table and a direction's give one loss model (`link_loss.rs`):
/// the schema lists the models (`x-skyhop-loss-models`: key and what it
/// is) and refuses two in one table (draft-07 `dependencies`: each key
/// excludes the others). A `oneOf` would read as a union of types to the
/// tools that type `--set` values and the docs' tables.
fn loss_models(schema: &mut serde_json::Value) {
    const MODELS: [(&str, &str); 3] = [
        ("per", "the per shorthand: { model = \"per\", p = per }"),
        ("ber", "the ber shorthand: { model = \"ber\", ber = ber }"),
        ("channel", "a channel table { model = ..., ... }"),
    ];
    let mut excludes = serde_json::Map::new();
    for (key, _) in MODELS {
        let others: Vec<_> = (MODELS.iter())
            .filter(|(k, _)| *k != key)
            .map(|(k, _)| serde_json::json!({ "required": [k] }))
            .collect();
        excludes.insert(
            key.into(),
            serde_json::json!({ "not": { "anyOf": others } }),
        );
    }
    let listed: serde_json::Map<_, _> = (MODELS.iter())
        .map(|(k, what)| (k.to_string(), serde_json::Value::from(*what)))
        .collect();
    for def in ["LinkSection", "DirSection"] {
        if let Some(o) = schema
            .pointer_mut(&format!("/definitions/{def}"))
            .and_then(|d| d.as_object_mut())
        {
            o.insert("dependencies".into(), excludes.clone().into());
            o.insert("x-skyhop-loss-models".into(), listed.clone().into());
        }
    }
}

/// The regular expression of a number followed by one of `units`.
fn quantity_pattern<F>(units: &[(&str, F)]) -> String {
    let mut names: Vec<&str> = units.iter().map(|u| u.0).collect();
    // longest first, so that alternation never stops at a prefix
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let alts: Vec<String> = names.iter().map(|n| regex_escape(n)).collect();
    format!(
        r"^\s*[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?\s*(?:{})\s*$",
        alts.join("|")
    )
}

fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\^$.|?*+()[]{}/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn unit_names<F>(units: &[(&str, F)]) -> String {
    units
        .iter()
        .map(|u| u.0)
        .filter(|n| n.is_ascii())
        .collect::<Vec<_>>()
        .join(", ")
}

fn quantity_schema<F>(what: &str, example: &str, units: &[(&str, F)]) -> Schema {
    SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        string: Some(Box::new(StringValidation {
            pattern: Some(quantity_pattern(units)),
            ..Default::default()
        })),
        metadata: Some(Box::new(Metadata {
            description: Some(format!(
                "A {what} with a unit, as a string, e.g. \"{example}\" (units: {}). \
                 Decimal prefixes are powers of ten; a bare number is an error.",
                unit_names(units)
            )),
            examples: vec![serde_json::Value::String(example.into())],
            ..Default::default()
        })),
        ..Default::default()
    }
    .into()
}

impl JsonSchema for Rate {
    fn schema_name() -> String {
        "Rate".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity_schema("bit rate", "10 Mbps", RATE_UNITS)
    }
}

impl JsonSchema for Duration {
    fn schema_name() -> String {
        "Duration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity_schema("duration", "125 ms", TIME_UNITS)
    }
}

impl JsonSchema for Size {
    fn schema_name() -> String {
        "Size".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity_schema("size (bytes)", "5 MB", SIZE_UNITS)
    }
}

impl JsonSchema for Length {
    fn schema_name() -> String {
        "Length".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity_schema("length", "10 km", LENGTH_UNITS)
    }
}

impl JsonSchema for Speed {
    fn schema_name() -> String {
        "Speed".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity_schema("speed", "250 m/s", SPEED_UNITS)
    }
}

impl JsonSchema for FlowSize {
    fn schema_name() -> String {
        "FlowSize".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let size = quantity_pattern(SIZE_UNITS);
        SchemaObject {
            instance_type: Some(InstanceType::String.into()),
            string: Some(Box::new(StringValidation {
                pattern: Some(format!(r"{}|^\s*unlimited\s*$", size)),
                ..Default::default()
            })),
            metadata: Some(Box::new(Metadata {
                description: Some(format!(
                    "Bytes to transfer as a size with a unit (units: {}), or \"unlimited\" \
                     for a bulk flow lasting run.duration.",
                    unit_names(SIZE_UNITS)
                )),
                examples: vec!["5 MB".into(), "unlimited".into()],
                ..Default::default()
            })),
            ..Default::default()
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_every_section_and_model() {
        let s = scenario_json_schema();
        let text = s.to_string();
        for key in [
            "\"run\"",
            "\"tcp\"",
            "\"nodes\"",
            "\"links\"",
            "\"flows\"",
            "\"link_layer\"",
            "\"gilbert-elliott\"",
            "\"lms-urban\"",
            "\"fifo\"",
            "\"westwood_tau\"",
        ] {
            assert!(text.contains(key), "{key} missing from the schema");
        }
        assert_eq!(s["additionalProperties"], serde_json::Value::Bool(false));
        assert_eq!(
            s["then"]["required"],
            serde_json::json!(["nodes"]),
            "nodes are required without templates (a constellation may join nodes without links; a live host needs no flows)"
        );
        assert!(s["properties"]["templates"].is_object());
        // the derived default of run.seed
        assert_eq!(
            s["definitions"]["RunSection"]["properties"]["seed"]["default"],
            1
        );
    }

    #[test]
    fn tcp_keys_carry_every_profiles_default_and_their_range() {
        let s = scenario_json_schema();
        let props = &s["definitions"]["TcpOptions"]["properties"];
        let keys = props.as_object().unwrap();
        let docs = crate::scenario::schema::param_docs();
        assert_eq!(docs.len(), keys.len(), "every key is a row of the table");
        for d in &docs {
            let p = &props[d.key];
            for (profile, v) in &d.defaults {
                assert_eq!(p["x-skyhop-defaults"][profile.name()], *v, "{}", d.key);
            }
            let desc = p["description"].as_str().unwrap();
            let sentence = d.default_sentence();
            assert!(desc.ends_with(&sentence), "{}: {desc}", d.key);
            // The docs' tables strip the sentence at its " Default ".
            let meaning = &desc[..desc.len() - sentence.len()];
            assert!(!meaning.contains(" Default "), "{}: {desc}", d.key);
        }
        let rto = &props["rto_min"];
        assert_eq!(
            rto["x-skyhop-defaults"],
            serde_json::json!({"linux": "200 ms", "studies": "1 s", "ns2": "1 s"})
        );
        assert_eq!(rto["x-skyhop-range"], "0 s … 10⁷ s");
        assert!(rto["description"]
            .as_str()
            .unwrap()
            .ends_with("Default 200 ms (1 s with profile \"studies\", 1 s with profile \"ns2\")."));
        assert!(props["mss"]["description"]
            .as_str()
            .unwrap()
            .ends_with("Default 1460 B."));
    }

    #[test]
    fn quic_keys_carry_quinns_defaults_and_their_range() {
        let s = scenario_json_schema();
        let props = &s["definitions"]["QuicOptions"]["properties"];
        let docs = crate::quic::params::quic_param_docs();
        assert_eq!(docs.len(), props.as_object().unwrap().len());
        for d in &docs {
            let desc = props[d.key]["description"].as_str().unwrap();
            assert!(desc.ends_with(&format!("Default {}.", d.default)), "{desc}");
        }
        assert_eq!(props["stream_window"]["x-skyhop-range"], "1 B … 1000 GB");
        let flow = &s["definitions"]["FlowSection"]["properties"];
        assert!(flow["transport"].to_string().contains("Transport"));
        assert!(flow["quic"].to_string().contains("QuicOptions"));
    }

    #[test]
    fn a_flows_variants_are_the_registered_names() {
        let s = scenario_json_schema();
        let names: Vec<&str> = crate::tcp::config::VARIANTS
            .iter()
            .map(|v| v.name)
            .collect();
        assert_eq!(
            s["definitions"]["TcpVariant"]["enum"],
            serde_json::json!(names)
        );
        let flow = &s["definitions"]["FlowSection"]["properties"];
        assert!(flow["tcp"].to_string().contains("TcpVariant"));
        assert!(flow["legs"]["items"].to_string().contains("TcpVariant"));
    }

    #[test]
    fn a_links_tables_list_the_loss_models_and_admit_one_at_most() {
        let s = scenario_json_schema();
        for def in ["LinkSection", "DirSection"] {
            let d = &s["definitions"][def];
            let mut listed: Vec<_> =
                (d["x-skyhop-loss-models"].as_object().unwrap().keys()).collect();
            listed.sort();
            assert_eq!(listed, ["ber", "channel", "per"], "{def}");
            // `dependencies` read as a draft-07 validator reads it: a key
            // present whose schema's `not.anyOf` has a branch whose
            // `required` keys are all present fails.
            let fails = |keys: &[&str]| {
                keys.iter().any(|k| {
                    (d["dependencies"][*k]["not"]["anyOf"]
                        .as_array()
                        .unwrap()
                        .iter())
                    .any(|b| {
                        (b["required"].as_array().unwrap().iter())
                            .all(|r| keys.contains(&r.as_str().unwrap()))
                    })
                })
            };
            for keys in [
                &[][..],
                &["per"],
                &["ber"],
                &["channel"],
                &["per", "ber"],
                &["per", "channel"],
                &["ber", "channel"],
                &["per", "ber", "channel"],
            ] {
                for k in keys {
                    assert!(d["properties"][*k].is_object(), "{def}.{k}");
                }
                assert_eq!(fails(keys), keys.len() > 1, "{def} {keys:?}");
            }
        }
    }

    #[test]
    fn quantity_patterns_list_the_parser_units() {
        let p = quantity_pattern(TIME_UNITS);
        for u in ["ms", "us", "ns", "min", "s"] {
            assert!(p.contains(u));
        }
        assert!(quantity_pattern(RATE_UNITS).contains(r"Mbit\/s"));
    }
}
