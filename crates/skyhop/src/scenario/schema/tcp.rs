//! `[tcp]` and `flows.<id>.options`: TCP parameters, generated from the
//! table of `tcp/params.rs`, and the choices among them as enums (the JSON
//! Schema lists their values; an unknown one is an error naming them); a
//! flow's TCP variant by name (`flows.<id>.tcp`, `legs`).

use crate::tcp::config::{VariantDef, VARIANTS};
use crate::tcp::params::{tcp_params, Param, Ranges};
pub use crate::tcp::params::{Profile, WestwoodFilter};
use crate::tcp::{RecKind, TcpConfig};
use crate::units::{Duration, Rate, Size};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// [`TcpOptions`] from the rows of `tcp/params.rs`: one optional field per
/// row, its doc comment the row's meaning.
macro_rules! options_struct {
    (plain { $(
        $(#[doc = $doc:literal])*
        $key:ident : $sty:ty => $field:ident : $cty:ty { $($p:pat => $v:expr),+ $(,)? } $range:expr;
    )* } special { $(
        $(#[doc = $sdoc:literal])*
        $skey:ident : $ssty:ty = $shown:expr;
    )* }) => {
        /// TCP parameters. All optional: a flow's value overrides `[tcp]`,
        /// which overrides the default of the flow's profile.
        #[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct TcpOptions {
            $(
                $(#[doc = $doc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $key: Option<$sty>,
            )*
            $(
                $(#[doc = $sdoc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $skey: Option<$ssty>,
            )*
        }

        /// Each key's default under every profile and its range, in the
        /// docs' words, in the table's order.
        pub fn param_docs() -> Vec<ParamDoc> {
            #[allow(unused_imports)]
            use crate::tcp::params::row::*;
            let mut out = Vec::new();
            $(
                out.push(ParamDoc {
                    key: stringify!($key),
                    defaults: Profile::ALL
                        .iter()
                        .map(|&p| {
                            let d = TcpConfig::table_defaults(p);
                            (p, <$sty as Param<$cty>>::show(&d.$field))
                        })
                        .collect(),
                    range: Ranges::$key.describe(),
                    special: false,
                });
            )*
            $(
                let shown: fn(Profile) -> String = $shown;
                out.push(ParamDoc {
                    key: stringify!($skey),
                    defaults: Profile::ALL.iter().map(|&p| (p, shown(p))).collect(),
                    range: String::new(),
                    special: true,
                });
            )*
            out
        }
    };
}
tcp_params!(options_struct!);

/// A key of the table as the docs show it (`param_docs`).
#[derive(Clone, Debug)]
pub struct ParamDoc {
    pub key: &'static str,
    /// The default under each profile ([`Profile::ALL`] order).
    pub defaults: Vec<(Profile, String)>,
    /// The valid range (empty: any value of the type).
    pub range: String,
    /// A special row: its defaults say how it resolves, not a value per
    /// profile (the sentence names the default profile's only).
    pub special: bool,
}

impl ParamDoc {
    /// "Default X." when every profile agrees, else "Default X (Y with
    /// profile "p")." naming the profiles that differ from the default's.
    pub fn default_sentence(&self) -> String {
        let (first, rest) = self.defaults.split_first().expect("a profile");
        let others: Vec<String> = rest
            .iter()
            .filter(|(_, v)| *v != first.1 && !self.special)
            .map(|(p, v)| format!("{v} with profile \"{}\"", p.name()))
            .collect();
        if others.is_empty() {
            format!("Default {}.", first.1)
        } else {
            format!("Default {} ({}).", first.1, others.join(", "))
        }
    }
}

impl TcpOptions {
    /// The profile a flow with these options runs under, `[tcp]` being
    /// `global`: its own, else `[tcp]`'s, else Linux.
    pub fn profile_under(&self, global: &TcpOptions) -> Profile {
        Profile::of(self.profile, global.profile)
    }
}

/// How an `aerotcp` leg sets its window (docs/scenario.md, "AeroTCP").
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AeroAllocationSection {
    /// "static" (SatBW/N x SatRTT, default), "prdp" (peak_rate x SatRTT),
    /// "adaptive" (SatBW/n x SatRTT, n = connections open now), "table"
    /// (rates[n-1] x SatRTT) or "window" (`window` segments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<AeroMode>,
    /// Satellite link capacity. Default: the leg's bottleneck rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sat_bw: Option<Rate>,
    /// static: number of connections sharing it. Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// prdp: per-connection peak rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rate: Option<Rate>,
    /// Round trip of the satellite leg. Default: the leg's propagation round trip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sat_rtt: Option<Duration>,
    /// table: target rate per connection with 1, 2, ... connections open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rates: Option<Vec<Rate>>,
    /// window: the window in segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
}

/// How an `aerotcp` leg sets its window (`aero_allocation.mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AeroMode {
    Static,
    Prdp,
    Adaptive,
    Table,
    Window,
}

/// A loss recovery by its registered name (`tcp.recovery`): any name of
/// `tcp/registry.rs`'s `recoveries!` list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recovery(pub RecKind);

impl Serialize for Recovery {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name())
    }
}

impl<'de> Deserialize<'de> for Recovery {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        RecKind::parse(&name).map(Recovery).ok_or_else(|| {
            let known: Vec<String> = RecKind::NAMES.iter().map(|n| format!("{n:?}")).collect();
            de::Error::custom(format!("{name:?} is not one of {}", known.join(", ")))
        })
    }
}

impl schemars::JsonSchema for Recovery {
    fn schema_name() -> String {
        "Recovery".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        schemars::schema::SchemaObject {
            instance_type: Some(schemars::schema::InstanceType::String.into()),
            enum_values: Some(RecKind::NAMES.iter().map(|n| (*n).into()).collect()),
            ..Default::default()
        }
        .into()
    }
}

/// A TCP variant by its registered name (`flows.<id>.tcp`, `legs`): any
/// name of `tcp/registry.rs`'s `VARIANTS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantName(pub &'static VariantDef);

impl VariantName {
    pub fn parse(name: &str) -> Option<VariantName> {
        VARIANTS.iter().find(|d| d.name == name).map(VariantName)
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The (controller, recovery, SACK option) the name stands for.
    pub fn variant(self) -> crate::tcp::Variant {
        crate::tcp::Variant::of(self.0)
    }
}

impl PartialEq<&str> for VariantName {
    fn eq(&self, name: &&str) -> bool {
        self.name() == *name
    }
}

impl Serialize for VariantName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for VariantName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        VariantName::parse(&name).ok_or_else(|| {
            let names = VARIANTS.iter().map(|v| v.name);
            de::Error::custom(format!(
                "unknown TCP variant {name:?} (known: {}){}",
                names.clone().collect::<Vec<_>>().join(", "),
                crate::suggest::hint(&name, names)
            ))
        })
    }
}

impl schemars::JsonSchema for VariantName {
    fn schema_name() -> String {
        "TcpVariant".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        schemars::schema::SchemaObject {
            instance_type: Some(schemars::schema::InstanceType::String.into()),
            enum_values: Some(VARIANTS.iter().map(|v| v.name.into()).collect()),
            ..Default::default()
        }
        .into()
    }
}
