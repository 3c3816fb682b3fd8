//! Quantities with units, as written in scenario files.
//!
//! Decimal prefixes are powers of ten: `"5 MB"` is 5·10^6 bytes and
//! `"1 Mbps"` is 10^6 bit/s. Binary prefixes are spelled out: `"64 KiB"` is
//! 65 536 bytes. A bare number is an error for every quantity with a unit.

use crate::engine::time::Dur;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-' | '_')))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e" followed by a letter: back off the exponent marker if not followed by digits.
    let (mut num, mut unit) = (&s[..end], s[end..].trim());
    if num.ends_with(['e', 'E']) {
        num = &num[..num.len() - 1];
        unit = s[end - 1..].trim();
    }
    let num = num.replace('_', "");
    let v: f64 = num.parse().ok()?;
    Some((v, unit))
}

fn parse_with(s: &str, what: &str, units: &[(&str, f64)]) -> Result<f64, String> {
    let names: Vec<&str> = units.iter().map(|u| u.0).collect();
    let Some((v, unit)) = split_number(s) else {
        return Err(format!(
            "cannot read {what} {s:?}: expected a number and a unit ({})",
            names.join(", ")
        ));
    };
    if unit.is_empty() {
        return Err(format!(
            "{what} {s:?} has no unit: write e.g. \"{s} {}\" (units: {})",
            units[0].0,
            names.join(", ")
        ));
    }
    for (name, factor) in units {
        if unit == *name {
            if !v.is_finite() {
                return Err(format!("{what} {s:?} is not a finite number"));
            }
            return Ok(v * factor);
        }
    }
    Err(format!(
        "unknown unit {unit:?} in {what} {s:?} (units: {})",
        names.join(", ")
    ))
}

/// A quantity converted to its base unit (`x`, from the text `s`) as an
/// integer: it must fit in 64 bits and be a whole number of the base unit
/// (nothing is silently rounded or clamped). A tolerance of a millionth of
/// the base unit, or 10^-12 relative, absorbs the binary representation of
/// decimal fractions such as "1.5e-3 s".
fn whole(x: f64, what: &str, s: &str, base: &str) -> Result<u64, String> {
    // 2^64: the first value that does not fit.
    const LIMIT: f64 = 18_446_744_073_709_551_616.0;
    if x.is_nan() {
        return Err(format!("{what} {s:?} is not a finite number"));
    }
    if x >= LIMIT {
        return Err(format!(
            "{what} {s:?} is out of range: it exceeds 2^64 - 1 {base}"
        ));
    }
    let r = x.round();
    let tol = 1e-6_f64.max(x.abs() * 1e-12);
    if (x - r).abs() > tol || (r == 0.0 && x != 0.0) {
        return Err(format!(
            "{what} {s:?} must be a whole number of {base} (it is {x} {base})"
        ));
    }
    Ok(r as u64)
}

pub(crate) const RATE_UNITS: &[(&str, f64)] = &[
    ("bps", 1.0),
    ("kbps", 1e3),
    ("Kbps", 1e3),
    ("Mbps", 1e6),
    ("Gbps", 1e9),
    ("bit/s", 1.0),
    ("kbit/s", 1e3),
    ("Mbit/s", 1e6),
    ("Gbit/s", 1e9),
    ("b/s", 1.0),
    ("kb/s", 1e3),
    ("Kb/s", 1e3),
    ("Mb/s", 1e6),
    ("Gb/s", 1e9),
    ("mbps", 1e6),
    ("gbps", 1e9),
    ("mb/s", 1e6),
    ("gb/s", 1e9),
    ("Kbit/s", 1e3),
    ("mbit/s", 1e6),
    ("gbit/s", 1e9),
];
pub(crate) const TIME_UNITS: &[(&str, f64)] = &[
    ("s", 1.0),
    ("ms", 1e-3),
    ("us", 1e-6),
    ("ns", 1e-9),
    ("min", 60.0),
];
pub(crate) const SIZE_UNITS: &[(&str, f64)] = &[
    ("B", 1.0),
    ("kB", 1e3),
    ("KB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("KiB", 1024.0),
    ("MiB", 1048576.0),
    ("GiB", 1073741824.0),
];

pub(crate) const LENGTH_UNITS: &[(&str, f64)] = &[("m", 1.0), ("km", 1e3), ("ft", 0.3048)];
pub(crate) const SPEED_UNITS: &[(&str, f64)] =
    &[("m/s", 1.0), ("km/h", 1.0 / 3.6), ("kn", 1852.0 / 3600.0)];

/// A length (an altitude, a distance), stored in metres.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
pub struct Length(pub f64);
/// A speed, stored in metres per second.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
pub struct Speed(pub f64);

impl Length {
    pub fn parse(s: &str) -> Result<Length, String> {
        Ok(Length(parse_with(s, "length", LENGTH_UNITS)?))
    }
}
impl Speed {
    pub fn parse(s: &str) -> Result<Speed, String> {
        let v = parse_with(s, "speed", SPEED_UNITS)?;
        if v <= 0.0 {
            return Err(format!("speed {s:?} must be positive"));
        }
        Ok(Speed(v))
    }
}
impl fmt::Display for Length {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} m", self.0)
    }
}
impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} m/s", self.0)
    }
}

/// A bit rate, stored in bit/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);
/// A duration, stored in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Dur);
/// A size, stored in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size(pub u64);

impl Rate {
    pub fn parse(s: &str) -> Result<Rate, String> {
        let v = parse_with(s, "rate", RATE_UNITS)?;
        if v <= 0.0 {
            return Err(format!("rate {s:?} must be positive"));
        }
        if v < 1.0 {
            return Err(format!("rate {s:?} is below 1 bit/s"));
        }
        Ok(Rate(whole(v, "rate", s, "bit/s")?))
    }
}
impl Duration {
    pub fn parse(s: &str) -> Result<Duration, String> {
        let v = parse_with(s, "duration", TIME_UNITS)?;
        if v < 0.0 {
            return Err(format!("duration {s:?} must not be negative"));
        }
        // The same arithmetic as Dur::from_secs_f64, checked first.
        let ns = whole(
            v * crate::engine::time::NS_PER_S as f64,
            "duration",
            s,
            "ns",
        )?;
        Ok(Duration(Dur(ns)))
    }
}
impl Size {
    pub fn parse(s: &str) -> Result<Size, String> {
        let v = parse_with(s, "size", SIZE_UNITS)?;
        if v < 0.0 {
            return Err(format!("size {s:?} must not be negative"));
        }
        Ok(Size(whole(v, "size", s, "bytes")?))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bps", self.0)
    }
}
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Exact in nanoseconds, shortest unit-free loss: print as seconds with 9 decimals trimmed.
        let ns = (self.0).0;
        if ns.is_multiple_of(1_000_000) {
            write!(f, "{} ms", ns / 1_000_000)
        } else if ns.is_multiple_of(1000) {
            write!(f, "{} us", ns / 1000)
        } else {
            write!(f, "{ns} ns")
        }
    }
}
impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} B", self.0)
    }
}

macro_rules! serde_quantity {
    ($t:ty, $what:literal) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "a {} with a unit, as a string", $what)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                        <$t>::parse(v).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$t, E> {
                        Err(E::custom(format!(
                            "{} {v} has no unit: write it as a string with a unit, e.g. \"{v} {}\"",
                            $what,
                            default_unit($what)
                        )))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$t, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$t, E> {
                        Err(E::custom(format!(
                            "{} {v} has no unit: write it as a string with a unit, e.g. \"{v} {}\"",
                            $what,
                            default_unit($what)
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

fn default_unit(what: &str) -> &'static str {
    match what {
        "rate" => "Mbps",
        "duration" => "ms",
        "length" => "km",
        "speed" => "m/s",
        _ => "B",
    }
}

serde_quantity!(Rate, "rate");
serde_quantity!(Duration, "duration");
serde_quantity!(Size, "size");
serde_quantity!(Length, "length");
serde_quantity!(Speed, "speed");

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn decimal_prefixes_are_powers_of_ten() {
        assert_eq!(Rate::parse("1 Mbps").unwrap(), Rate(1_000_000));
        assert_eq!(Size::parse("5 MB").unwrap(), Size(5_000_000));
        assert_eq!(Size::parse("64 KiB").unwrap(), Size(65_536));
        assert_eq!(
            Duration::parse("125 ms").unwrap(),
            Duration(Dur::from_millis(125))
        );
        assert_eq!(
            Duration::parse("1.5e-3 s").unwrap(),
            Duration(Dur::from_micros(1500))
        );
        assert_eq!(Rate::parse("144 kbps").unwrap(), Rate(144_000));
    }
    #[test]
    fn missing_unknown_and_negative_units_are_errors() {
        assert!(Rate::parse("1").unwrap_err().contains("no unit"));
        assert!(Rate::parse("1 Mbs").unwrap_err().contains("unknown unit"));
        assert!(Rate::parse("0 Mbps").unwrap_err().contains("positive"));
        assert!(Rate::parse("-1 Mbps").unwrap_err().contains("positive"));
        assert!(Duration::parse("-5 ms").unwrap_err().contains("negative"));
        assert!(Size::parse("MB").is_err());
    }
    #[test]
    fn out_of_range_and_fractional_quantities_are_errors() {
        assert!(Duration::parse("1e300 s")
            .unwrap_err()
            .contains("out of range"));
        assert!(Size::parse("1e30 GB").unwrap_err().contains("out of range"));
        assert!(Rate::parse("1e30 Gbps")
            .unwrap_err()
            .contains("out of range"));
        assert!(Size::parse("1460.5 B")
            .unwrap_err()
            .contains("whole number of bytes"));
        assert!(Duration::parse("0.4 ns")
            .unwrap_err()
            .contains("whole number of ns"));
        assert!(Rate::parse("1.7 bps")
            .unwrap_err()
            .contains("whole number of bit/s"));
        assert!(Duration::parse("inf s").is_err());
        assert!(Duration::parse("nan s").is_err());
        assert_eq!(Size::parse("1.5 kB").unwrap(), Size(1500));
        assert_eq!(
            Duration::parse("0.1 s").unwrap(),
            Duration(Dur(100_000_000))
        );
        assert_eq!(Duration::parse("2.5 us").unwrap(), Duration(Dur(2500)));
        assert_eq!(Rate::parse("1.5 Mbps").unwrap(), Rate(1_500_000));
        assert!(Size::parse("18446744073709551615 B")
            .unwrap_err()
            .contains("out of range"));
    }
    #[test]
    fn durations_print_exactly() {
        assert_eq!(Duration::parse("125 ms").unwrap().to_string(), "125 ms");
        assert_eq!(Duration::parse("0.5 us").unwrap().to_string(), "500 ns");
    }
}
