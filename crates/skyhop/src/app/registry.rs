//! The one place an application is registered. From one list this
//! generates what the scenario, the plan and the world need:
//!
//! - [`AppSpec`]: a flow's resolved application (one variant per spec,
//!   plus `Custom` for user code), answering the engine's questions
//!   through each spec's [`AppSpecOps`];
//! - [`App`]: the built application, with static dispatch on the
//!   per-delivery path;
//! - [`AppName`]: the names a scenario selects with `app = "<name>"`;
//! - [`AppTables`]: the applications' own tables of a flow,
//!   `flows.<id>.<name>` (the JSON Schema lists each with its keys), their
//!   checks and their resolution into an [`AppSpec`].
//!
//! Adding an application: its file (spec, table, application), a `mod`
//! line in `app/mod.rs`, and one line below.

use super::{
    AppBounds, AppIo, AppReport, AppSection, AppSpecOps, Application, Bulk, BulkSpec, Cbr,
    CbrSection, CbrSpec, CustomApp, FileSpec, FileTransfer, FlowShape, RunShape, WebSection,
    WebSession, WebSpec,
};
use crate::engine::time::Time;
use serde::de::{self, Deserialize, Deserializer, MapAccess};
use serde::{Serialize, Serializer};

macro_rules! apps {
    (
        unnamed { $($uv:ident($uspec:ty => $uapp:ty)),* $(,)? }
        named { $($(#[$doc:meta])* $nv:ident($nspec:ty => $napp:ty) = $name:literal, $field:ident: $section:ty),* $(,)? }
    ) => {
        /// The application of a flow, resolved from the scenario.
        #[derive(Clone, Debug)]
        pub enum AppSpec {
            $($uv($uspec),)*
            $($nv($nspec),)*
            /// Built by user code (not available in scenario files).
            Custom(CustomApp),
        }

        impl AppSpec {
            /// Whether the application can finish (a run with only such apps stops early).
            pub fn finite(&self) -> bool {
                match self {
                    $(AppSpec::$uv(s) => s.finite(),)*
                    $(AppSpec::$nv(s) => s.finite(),)*
                    AppSpec::Custom(_) => true,
                }
            }
            /// The application in words, for `skyhop describe`.
            pub fn describe(&self) -> String {
                match self {
                    $(AppSpec::$uv(s) => s.describe(),)*
                    $(AppSpec::$nv(s) => s.describe(),)*
                    AppSpec::Custom(_) => "custom application".into(),
                }
            }
            /// Whether the flow's stream 0 (forward) exists from the start; an
            /// application without it opens its streams itself.
            pub fn opens_stream_at_start(&self) -> bool {
                match self {
                    $(AppSpec::$uv(s) => s.opens_stream_at_start(),)*
                    $(AppSpec::$nv(s) => s.opens_stream_at_start(),)*
                    AppSpec::Custom(_) => true,
                }
            }
            /// Whether the flow carries datagrams rather than TCP streams.
            pub fn datagrams(&self) -> bool {
                match self {
                    $(AppSpec::$uv(s) => s.datagrams(),)*
                    $(AppSpec::$nv(s) => s.datagrams(),)*
                    AppSpec::Custom(_) => false,
                }
            }
            /// Upper bounds of what the application holds over a run (memory estimate).
            pub fn bounds(&self, run: &RunShape) -> AppBounds {
                match self {
                    $(AppSpec::$uv(s) => s.bounds(run),)*
                    $(AppSpec::$nv(s) => s.bounds(run),)*
                    AppSpec::Custom(_) => AppBounds::default(),
                }
            }
        }

        /// A built application (static dispatch; `Custom` for user code).
        pub enum App {
            $($uv($uapp),)*
            $($nv($napp),)*
            Custom(Box<dyn Application>),
        }

        impl App {
            /// The application of `spec` for flow `name` in the run with `seed`
            /// (random applications draw from streams derived from both).
            pub fn build(spec: &AppSpec, seed: u64, name: &str) -> App {
                match spec {
                    $(AppSpec::$uv(s) => App::$uv(s.build(seed, name)),)*
                    $(AppSpec::$nv(s) => App::$nv(s.build(seed, name)),)*
                    AppSpec::Custom(f) => App::Custom((f.0)()),
                }
            }
            #[inline]
            pub fn start(&mut self, now: Time, io: &mut AppIo) {
                match self {
                    $(App::$uv(a) => a.start(now, io),)*
                    $(App::$nv(a) => a.start(now, io),)*
                    App::Custom(a) => a.start(now, io),
                }
            }
            #[inline]
            pub fn on_delivered(&mut self, now: Time, stream: usize, bytes: u64, total: u64, io: &mut AppIo) {
                match self {
                    $(App::$uv(a) => a.on_delivered(now, stream, bytes, total, io),)*
                    $(App::$nv(a) => a.on_delivered(now, stream, bytes, total, io),)*
                    App::Custom(a) => a.on_delivered(now, stream, bytes, total, io),
                }
            }
            #[inline]
            pub fn on_timer(&mut self, now: Time, io: &mut AppIo) {
                match self {
                    $(App::$uv(a) => a.on_timer(now, io),)*
                    $(App::$nv(a) => a.on_timer(now, io),)*
                    App::Custom(a) => a.on_timer(now, io),
                }
            }
            #[inline]
            pub fn poll_at(&self) -> Option<Time> {
                match self {
                    $(App::$uv(a) => a.poll_at(),)*
                    $(App::$nv(a) => a.poll_at(),)*
                    App::Custom(a) => a.poll_at(),
                }
            }
            #[inline]
            pub fn done(&self) -> bool {
                match self {
                    $(App::$uv(a) => a.done(),)*
                    $(App::$nv(a) => a.done(),)*
                    App::Custom(a) => a.done(),
                }
            }
            /// The application's own results (at the end of the run).
            pub fn report(&self, end: Time) -> AppReport {
                match self {
                    $(App::$uv(a) => a.report(end),)*
                    $(App::$nv(a) => a.report(end),)*
                    App::Custom(a) => a.report(end),
                }
            }
        }

        /// An application a scenario selects by name (`app = "<name>"`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum AppName {
            $($nv,)*
        }

        impl AppName {
            pub const ALL: &'static [AppName] = &[$(AppName::$nv),*];
            pub const NAMES: &'static [&'static str] = &[$($name),*];

            pub fn name(self) -> &'static str {
                match self {
                    $(AppName::$nv => $name,)*
                }
            }
            pub fn parse(s: &str) -> Option<AppName> {
                match s {
                    $($name => Some(AppName::$nv),)*
                    _ => None,
                }
            }
        }

        /// The applications' own tables of a flow, `flows.<id>.<name>`,
        /// each given or not.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, schemars::JsonSchema)]
        pub struct AppTables {
            $(
                $(#[$doc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$section>,
            )*
        }

        impl AppTables {
            /// Read application `name`'s table: the value of the entry `map`
            /// is at.
            pub fn read<'de, A: MapAccess<'de>>(&mut self, name: AppName, map: &mut A) -> Result<(), A::Error> {
                match name {
                    $(AppName::$nv => self.$field = Some(map.next_value()?),)*
                }
                Ok(())
            }

            /// The applications whose table is given, in registration order.
            pub fn given(&self) -> Vec<AppName> {
                let mut out = Vec::new();
                $(if self.$field.is_some() {
                    out.push(AppName::$nv);
                })*
                out
            }

            /// Range checks of application `name`'s table (its defaults
            /// when absent); `Err((key within the table, message))`.
            fn validate_one(&self, name: AppName) -> Result<(), (String, String)> {
                match name {
                    $(AppName::$nv => match &self.$field {
                        Some(t) => t.validate(),
                        None => <$section>::default().validate(),
                    },)*
                }
            }

            /// The spec of application `name` from its (checked) table on
            /// its flow, and warnings about it; `Err((key of the flow, message))`.
            pub fn resolve(&self, name: AppName, flow: &FlowShape) -> Result<(AppSpec, Vec<String>), (String, String)> {
                match name {
                    $(AppName::$nv => {
                        let (spec, warnings) = match &self.$field {
                            Some(t) => t.resolve(flow)?,
                            None => <$section>::default().resolve(flow)?,
                        };
                        Ok((AppSpec::$nv(spec), warnings))
                    })*
                }
            }
        }
    };
}

apps! {
    // A flow without `app`: its `size` makes it a file transfer, or a bulk
    // source when absent or "unlimited" (`AppSpec::without_app`).
    unnamed {
        File(FileSpec => FileTransfer),
        Bulk(BulkSpec => Bulk),
    }
    // `app = "<name>"`, configured by its table `flows.<id>.<name>`.
    named {
        /// cbr: the probe's sending rate and datagram size.
        Cbr(CbrSpec => Cbr) = "cbr", cbr: CbrSection,
        /// web: the page model and HTTP version (defaults in docs/scenario.md).
        Web(WebSpec => Box<WebSession>) = "web", web: WebSection,
    }
}

impl AppSpec {
    /// The application of a flow that names none: a file transfer of
    /// `size` bytes, or a bulk source when the size is absent or unlimited.
    pub fn without_app(size: Option<u64>) -> AppSpec {
        match size {
            Some(size) => AppSpec::File(FileSpec::payload(size)),
            None => AppSpec::Bulk(BulkSpec),
        }
    }
}

impl AppTables {
    /// Check a flow's tables against the application it selects (`app`):
    /// each given table belongs to it, and its values are in range (the
    /// defaults of an absent table too: a required key may be missing).
    /// `Err((key of the flow, message))`.
    pub fn validate(&self, app: Option<AppName>) -> Result<(), (String, String)> {
        for name in self.given() {
            if Some(name) != app {
                let n = name.name();
                let is = match app {
                    Some(a) => format!("this flow's app is {:?}", a.name()),
                    None => "this flow has no app (a file transfer or bulk flow)".to_string(),
                };
                return Err((
                    n.to_string(),
                    format!("a {n} table belongs to app = {n:?}; {is}"),
                ));
            }
        }
        match app {
            Some(name) => self
                .validate_one(name)
                .map_err(|(k, m)| (format!("{}.{k}", name.name()), m)),
            None => Ok(()),
        }
    }
}

impl Serialize for AppName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for AppName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        AppName::parse(&name).ok_or_else(|| {
            let known: Vec<String> = AppName::NAMES.iter().map(|n| format!("{n:?}")).collect();
            de::Error::custom(format!(
                "unknown application {name:?} (known: {}; leave app out for a file transfer or bulk flow){}",
                known.join(", "),
                crate::suggest::hint(&name, AppName::NAMES.iter().copied())
            ))
        })
    }
}

impl schemars::JsonSchema for AppName {
    fn schema_name() -> String {
        "AppName".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        schemars::schema::SchemaObject {
            instance_type: Some(schemars::schema::InstanceType::String.into()),
            enum_values: Some(AppName::NAMES.iter().map(|n| (*n).into()).collect()),
            ..Default::default()
        }
        .into()
    }
}
