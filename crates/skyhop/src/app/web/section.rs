//! `flows.<id>.web`: a web session's scenario table, its checks, and its
//! resolution into a [`WebSpec`] (defaults in [`WebSpec::default`] and
//! docs/scenario.md).

use super::model::{Http, WebSpec};
use crate::app::{AppSection, FlowShape};
use crate::units::{Duration, Size};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// A web browsing session (`app = "web"`): pages of a main object and
/// inline objects, user think times between pages.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSection {
    /// "1.0" (a new connection per object, `parallel` at once) or "1.1"
    /// (one persistent connection, one request at a time). Default "1.1".
    /// The numbers 1.0 and 1.1 are read the same (`--set ...http=1.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpVersion>,
    /// HTTP/1.0: connections at once for inline objects. Default 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<u32>,
    /// Pages per session; absent: until the run stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u64>,
    /// Single-object mode: every page is one object of this size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_size: Option<Size>,
    /// Every request this size (instead of the bimodal draw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_size: Option<Size>,
    /// Bimodal request sizes: the large peak's centre. Default 250 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_small: Option<Size>,
    /// The smaller peak's centre. Default 1 KB (1024 B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_large: Option<Size>,
    /// Share of requests in the peak near `request_large`. Default 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_p_large: Option<f64>,
    /// Standard deviation of each peak as a fraction of its centre. Default 0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_spread: Option<f64>,
    /// Pareto shape of reply (object) sizes. Default 1.1 (the studies: 1.04 to 1.14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_alpha: Option<f64>,
    /// Pareto scale (minimum) of reply sizes. Default 1 KB (1024 B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_k: Option<Size>,
    /// Cap on a reply's size. Default none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_max: Option<Size>,
    /// Gamma mean of inline objects per page. Default 5.55.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_mean: Option<f64>,
    /// Gamma standard deviation of inline objects per page. Default 11.4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_sd: Option<f64>,
    /// Pareto shape of think times. Default 1.5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_alpha: Option<f64>,
    /// Pareto scale (minimum) of think times. Default 1 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_k: Option<Duration>,
    /// Open each new connection with a three-way handshake. Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
}

/// An HTTP version: "1.0" or "1.1", written as a string or a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpVersion {
    V10,
    V11,
}

impl HttpVersion {
    pub fn text(self) -> &'static str {
        match self {
            HttpVersion::V10 => "1.0",
            HttpVersion::V11 => "1.1",
        }
    }
}

impl Serialize for HttpVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.text())
    }
}

impl<'de> Deserialize<'de> for HttpVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = HttpVersion;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"1.0\" or \"1.1\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<HttpVersion, E> {
                match v {
                    "1.0" => Ok(HttpVersion::V10),
                    "1.1" => Ok(HttpVersion::V11),
                    _ => Err(E::custom(format!("{v:?} is not one of \"1.0\", \"1.1\""))),
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<HttpVersion, E> {
                if v == 1.0 {
                    Ok(HttpVersion::V10)
                } else if v == 1.1 {
                    Ok(HttpVersion::V11)
                } else {
                    Err(E::custom(format!("{v} is not one of \"1.0\", \"1.1\"")))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<HttpVersion, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<HttpVersion, E> {
                self.visit_f64(v as f64)
            }
        }
        d.deserialize_any(V)
    }
}

impl schemars::JsonSchema for HttpVersion {
    fn schema_name() -> String {
        "HttpVersion".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        // The strings only: the numbers the loader also reads are another
        // spelling of the same two values.
        schemars::schema::SchemaObject {
            instance_type: Some(schemars::schema::InstanceType::String.into()),
            enum_values: Some(vec!["1.0".into(), "1.1".into()]),
            ..Default::default()
        }
        .into()
    }
}

impl AppSection for WebSection {
    type Spec = WebSpec;

    fn validate(&self) -> Result<(), (String, String)> {
        let err = |k: &str, m: String| Err((k.to_string(), m));
        if self.parallel == Some(0) {
            return err("parallel", "must be at least 1".into());
        }
        if self.pages == Some(0) {
            return err("pages", "must be at least 1".into());
        }
        for (k, s) in [
            ("object_size", self.object_size),
            ("request_size", self.request_size),
            ("request_small", self.request_small),
            ("request_large", self.request_large),
            ("reply_k", self.reply_k),
            ("reply_max", self.reply_max),
        ] {
            if s == Some(Size(0)) {
                return err(k, "must be at least 1 B".into());
            }
        }
        for (k, x) in [
            ("reply_alpha", self.reply_alpha),
            ("think_alpha", self.think_alpha),
            ("inline_sd", self.inline_sd),
        ] {
            if let Some(x) = x.filter(|x| !(x.is_finite() && *x > 0.0)) {
                return err(k, format!("{x} must be a positive number"));
            }
        }
        if let Some(p) = self.request_p_large.filter(|p| !(0.0..=1.0).contains(p)) {
            return err(
                "request_p_large",
                format!("{p} is not a probability in [0, 1]"),
            );
        }
        for (k, x) in [
            ("request_spread", self.request_spread),
            ("inline_mean", self.inline_mean),
        ] {
            if let Some(x) = x.filter(|x| !(x.is_finite() && *x >= 0.0)) {
                return err(k, format!("{x} must be zero or positive"));
            }
        }
        if self.think_k.is_some_and(|t| t.0 .0 == 0) {
            return err("think_k", "must be positive".into());
        }
        let reply_k = self
            .reply_k
            .map_or(WebSpec::default().reply_k, |s| s.0 as f64);
        if let Some(m) = self.reply_max.filter(|m| (m.0 as f64) < reply_k) {
            return err(
                "reply_max",
                format!("{} B is below reply_k ({reply_k} B)", m.0),
            );
        }
        Ok(())
    }

    fn resolve(&self, flow: &FlowShape) -> Result<(WebSpec, Vec<String>), (String, String)> {
        if flow.size.is_some() {
            return Err((
                "size".into(),
                "a web session's sizes come from its page model (the web table); leave size out"
                    .into(),
            ));
        }
        let d = WebSpec::default();
        let mut warns = Vec::new();
        let http = match self.http.unwrap_or(HttpVersion::V11) {
            HttpVersion::V10 => Http::V10 {
                parallel: self.parallel.unwrap_or(4),
            },
            HttpVersion::V11 => {
                if let Some(k) = self.parallel {
                    // Not an error: a sweep over `http` keeps one table.
                    warns.push(format!(
                        "parallel = {k} applies to HTTP/1.0 only; HTTP/1.1 uses one persistent connection"
                    ));
                }
                Http::V11
            }
        };
        let spec = WebSpec {
            http,
            pages: self.pages,
            object_size: self.object_size.map(|s| s.0),
            request_size: self.request_size.map(|s| s.0),
            request_small: self.request_small.map_or(d.request_small, |b| b.0 as f64),
            request_large: self.request_large.map_or(d.request_large, |b| b.0 as f64),
            request_p_large: self.request_p_large.unwrap_or(d.request_p_large),
            request_spread: self.request_spread.unwrap_or(d.request_spread),
            reply_alpha: self.reply_alpha.unwrap_or(d.reply_alpha),
            reply_k: self.reply_k.map_or(d.reply_k, |b| b.0 as f64),
            reply_max: self.reply_max.map(|s| s.0),
            inline_mean: self.inline_mean.unwrap_or(d.inline_mean),
            inline_sd: self.inline_sd.unwrap_or(d.inline_sd),
            think_alpha: self.think_alpha.unwrap_or(d.think_alpha),
            think_k_s: self.think_k.map_or(d.think_k_s, |t| t.0.as_secs_f64()),
            handshake: self.handshake.unwrap_or(d.handshake),
        };
        if spec.object_size.is_none() && spec.reply_alpha <= 1.0 && spec.reply_max.is_none() {
            warns.push(format!(
                "reply_alpha = {} gives reply sizes of infinite mean; mean goodput and page times will not converge (set reply_max to cap them)",
                spec.reply_alpha
            ));
        }
        if spec.pages != Some(1) && spec.think_alpha <= 1.0 {
            warns.push(format!(
                "think_alpha = {} gives think times of infinite mean",
                spec.think_alpha
            ));
        }
        if spec.http == Http::V11 && !flow.idle_restart {
            // A default that shapes what HTTP/1.1 measures: say so.
            warns.push(
                "HTTP/1.1 keeps its connection across think times and tcp.idle_restart is off, so each page starts with the window the previous one ended with; RFC 5681 (4.1) restarts it from the initial window (tcp.idle_restart = true, or tcp.profile = \"linux\")".into(),
            );
        }
        Ok((spec, warns))
    }
}
