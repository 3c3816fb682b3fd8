//! A link's loss settings read as what they are: one loss model per table
//! (the link's, or a direction's), given as the `per` shorthand, the `ber`
//! shorthand or a `channel` table, never two of them. Validation reports
//! the first key that does not fit; the plan builds each direction's
//! channel from the same reading (a direction's own model, else the
//! link's).

use super::schema::{DirSection, LinkSection};
use crate::channel::{ber_spec, per_spec, ChannelSpec};

/// The loss model one table gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel<'a> {
    /// `per = p`: `channel = { model = "per", p = p }`.
    Per(f64),
    /// `ber = b`: `channel = { model = "ber", ber = b }`.
    Ber(f64),
    /// `channel = { model = "...", ... }`.
    Channel(&'a ChannelSpec),
}

impl LossModel<'_> {
    /// The key within the table that gives the model.
    pub fn key(&self) -> &'static str {
        match self {
            LossModel::Per(_) => "per",
            LossModel::Ber(_) => "ber",
            LossModel::Channel(_) => "channel",
        }
    }

    /// The channel model it stands for.
    pub fn spec(&self) -> ChannelSpec {
        match *self {
            LossModel::Per(p) => ChannelSpec::Per(per_spec(p, None)),
            LossModel::Ber(b) => ChannelSpec::Ber(ber_spec(b, None)),
            LossModel::Channel(c) => c.clone(),
        }
    }
}

/// A shorthand's probability: finite, in [0, 1).
fn probability(key: &str, x: Option<f64>) -> Result<(), (String, String)> {
    match x {
        Some(v) if !v.is_finite() => Err((key.into(), format!("{v} is not a finite number"))),
        Some(p) if !(0.0..1.0).contains(&p) => {
            Err((key.into(), format!("{p} is not a probability in [0, 1)")))
        }
        _ => Ok(()),
    }
}

/// Read one table's `per`, `ber` and `channel`; `Err((key within the
/// table, message))` for the first that is out of range or gives a second
/// model.
pub(crate) fn loss_model<'a>(
    per: Option<f64>,
    ber: Option<f64>,
    channel: Option<&'a ChannelSpec>,
) -> Result<Option<LossModel<'a>>, (String, String)> {
    probability("per", per)?;
    probability("ber", ber)?;
    match (per, ber, channel) {
        (None, None, None) => Ok(None),
        (Some(p), None, None) => Ok(Some(LossModel::Per(p))),
        (None, Some(b), None) => Ok(Some(LossModel::Ber(b))),
        (Some(_), Some(_), _) => Err(("ber".into(), "give per or ber, not both".into())),
        (per, _, Some(_)) if per.is_some() || ber.is_some() => Err((
            if per.is_some() { "per" } else { "ber" }.into(),
            "give a channel table or the per/ber shorthand, not both".into(),
        )),
        (_, _, Some(c)) => {
            c.validate().map_err(|(f, m)| (format!("channel.{f}"), m))?;
            Ok(Some(LossModel::Channel(c)))
        }
    }
}

impl LinkSection {
    /// The loss model of both directions unless a direction gives its own.
    pub fn loss(&self) -> Result<Option<LossModel<'_>>, (String, String)> {
        loss_model(self.per, self.ber, self.channel.as_ref())
    }
}

impl DirSection {
    /// This direction's own loss model (None: the link's).
    pub fn loss(&self) -> Result<Option<LossModel<'_>>, (String, String)> {
        loss_model(self.per, self.ber, self.channel.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_table_gives_at_most_one_model_and_the_first_misfit_is_keyed() {
        let c = ChannelSpec::Per(per_spec(0.5, None));
        assert_eq!(loss_model(None, None, None), Ok(None));
        assert_eq!(
            loss_model(Some(0.01), None, None),
            Ok(Some(LossModel::Per(0.01)))
        );
        assert_eq!(
            loss_model(None, Some(1e-6), None),
            Ok(Some(LossModel::Ber(1e-6)))
        );
        let m = loss_model(None, None, Some(&c)).unwrap().unwrap();
        assert_eq!((m.key(), m.spec()), ("channel", c.clone()));
        let key = |per, ber, ch: Option<&ChannelSpec>| loss_model(per, ber, ch).unwrap_err();
        let both = key(Some(0.1), Some(0.1), None);
        assert_eq!(both, ("ber".into(), "give per or ber, not both".into()));
        assert_eq!(key(Some(0.1), Some(0.1), Some(&c)).0, "ber");
        let shorthand = "give a channel table or the per/ber shorthand, not both";
        assert_eq!(
            key(Some(0.1), None, Some(&c)),
            ("per".into(), shorthand.into())
        );
        assert_eq!(
            key(None, Some(0.1), Some(&c)),
            ("ber".into(), shorthand.into())
        );
        // Ranges come first, per before ber.
        assert_eq!(key(Some(1.0), Some(f64::NAN), None).0, "per");
        assert_eq!(
            key(None, Some(f64::NAN), Some(&c)),
            ("ber".into(), "NaN is not a finite number".into())
        );
        let bad = ChannelSpec::Per(per_spec(1.5, None));
        assert_eq!(key(None, None, Some(&bad)).0, "channel.p");
        assert_eq!(
            LossModel::Ber(1e-6).spec(),
            ChannelSpec::Ber(ber_spec(1e-6, None))
        );
        assert_eq!(LossModel::Per(0.2).key(), "per");
    }
}
