//! The values a TCP parameter may take ([`Range`]): the check each
//! scenario value passes when it loads (with the messages users see), and
//! the range, and the defaults, in the words of docs/scenario.md.

use crate::engine::time::Dur;
use crate::units::{Duration, Size, MAX_DURATION};

/// The initial ssthresh when none is given: effectively unlimited (and
/// the docs write sizes from it on as "unlimited").
pub const UNLIMITED_SSTHRESH: u64 = u64::MAX / 4;

/// Bytes as the docs write them: "unlimited" from [`UNLIMITED_SSTHRESH`]
/// on; from 1 MB on with the largest decimal (or binary) prefix that
/// divides them; else in bytes.
pub fn show_size(b: u64) -> String {
    if b >= UNLIMITED_SSTHRESH {
        return "unlimited".into();
    }
    for (unit, f) in [
        ("GB", 1_000_000_000),
        ("MB", 1_000_000),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
    ] {
        if b >= f && b.is_multiple_of(f) {
            return format!("{} {unit}", b / f);
        }
    }
    format!("{b} B")
}

/// A duration as the docs write it: 10⁷ s for the largest, else in the
/// largest unit that divides it.
pub fn show_dur(d: Dur) -> String {
    if d == MAX_DURATION {
        return "10⁷ s".into();
    }
    let ns = d.0;
    if ns == 0 {
        return "0 s".into();
    }
    for (unit, f) in [("s", 1_000_000_000), ("ms", 1_000_000), ("µs", 1_000)] {
        if ns.is_multiple_of(f) {
            return format!("{} {unit}", ns / f);
        }
    }
    format!("{ns} ns")
}

fn show_count(n: u32) -> String {
    match n {
        1_000_000 => "10⁶".into(),
        _ => n.to_string(),
    }
}

/// The values a parameter may take. Checked when the scenario loads (its
/// messages are the ones users see), and shown in docs/scenario.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    /// Any value of the type (a flag, a choice).
    Any,
    /// Bytes in [lo, hi].
    Size { lo: u64, hi: u64 },
    /// A count in [lo, hi], `unit` after the bounds in messages.
    Count {
        lo: u32,
        hi: u32,
        unit: &'static str,
    },
    /// A duration in [lo, hi].
    Dur { lo: Dur, hi: Dur },
    /// A duration in (0, 10⁷ s].
    Positive,
    /// A count of at most `hi`, "more than the `hi` `why`".
    AtMost { hi: u32, why: &'static str },
}

impl Range {
    pub const ANY: Range = Range::Any;
    pub const POSITIVE: Range = Range::Positive;

    pub const fn size(lo: u64, hi: u64) -> Range {
        Range::Size { lo, hi }
    }
    pub const fn count(lo: u32, hi: u32, unit: &'static str) -> Range {
        Range::Count { lo, hi, unit }
    }
    pub const fn dur(lo: Dur, hi: Dur) -> Range {
        Range::Dur { lo, hi }
    }
    pub const fn at_most(hi: u32, why: &'static str) -> Range {
        Range::AtMost { hi, why }
    }

    /// The range in the docs' words (empty for [`Range::Any`]).
    pub fn describe(&self) -> String {
        match *self {
            Range::Any => String::new(),
            Range::Size { lo, hi: u64::MAX } => format!("≥ {}", show_size(lo)),
            Range::Size { lo, hi } => format!("{} … {}", show_size(lo), show_size(hi)),
            Range::Count { lo, hi, unit } => {
                format!("{} … {}{unit}", show_count(lo), show_count(hi))
            }
            Range::Dur { lo, hi } => format!("{} … {}", show_dur(lo), show_dur(hi)),
            Range::Positive => format!("(0 s, {}]", show_dur(MAX_DURATION)),
            Range::AtMost { hi, .. } => format!("0 … {hi}"),
        }
    }
}

/// A scenario value checked against its [`Range`]: `Err(message)`.
pub trait InRange {
    fn in_range(&self, r: &Range) -> Result<(), String>;
}

/// A flag: any value.
impl InRange for bool {
    fn in_range(&self, _: &Range) -> Result<(), String> {
        Ok(())
    }
}

impl InRange for u32 {
    fn in_range(&self, r: &Range) -> Result<(), String> {
        let n = *self;
        match *r {
            Range::Count { lo, hi, unit } if n < lo || n > hi => Err(format!(
                "{n} is out of range: must be between {lo} and {hi}{unit}"
            )),
            Range::AtMost { hi, why } if n > hi => Err(format!("{n} is more than the {hi} {why}")),
            _ => Ok(()),
        }
    }
}

impl InRange for Size {
    fn in_range(&self, r: &Range) -> Result<(), String> {
        match *r {
            Range::Size { lo, hi } if self.0 < lo || self.0 > hi => Err(format!(
                "{self} is out of range: must be between {} and {}",
                Size(lo),
                Size(hi)
            )),
            _ => Ok(()),
        }
    }
}

impl InRange for Duration {
    fn in_range(&self, r: &Range) -> Result<(), String> {
        let (lo, hi) = match *r {
            Range::Dur { lo, hi } => (lo, hi),
            Range::Positive if self.0 == Dur::ZERO => return Err("must be positive".into()),
            Range::Positive => (Dur::ZERO, MAX_DURATION),
            _ => return Ok(()),
        };
        if self.0 < lo || self.0 > hi {
            return Err(format!(
                "{self} is out of range: must be between {} and {}",
                Duration(lo),
                Duration(hi)
            ));
        }
        Ok(())
    }
}
