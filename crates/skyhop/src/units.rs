//! Quantities with units, as written in scenario files.
//!
//! Decimal prefixes are powers of ten: `"5 MB"` is 5·10^6 bytes and
//! `"1 Mbps"` is 10^6 bit/s. Binary prefixes are spelled out: `"64 KiB"` is
//! 65 536 bytes. A bare number is an error for every quantity with a unit.

use crate::engine::time::Dur;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Longest duration anywhere in a scenario (run, delays, timers, start):
/// 10^7 s (about 116 days).
pub const MAX_DURATION: Dur = Dur(10_000_000 * crate::engine::time::NS_PER_S);
/// Highest link rate: 10 Tb/s.
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;
/// Largest buffer or cache: 10^12 bytes (1000 GB; the memory check usually
/// binds first).
pub const MAX_BUFFER: u64 = 1_000_000_000_000;

/// A decimal number read exactly: `±digits × 10^exp`, with the digits
/// kept as an integer (nothing is rounded: a quantity is converted to its
/// base unit in exact arithmetic, so a value is either a whole number of
/// the base unit or refused, whatever f64 would have made of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    pub negative: bool,
    pub digits: u128,
    pub exp: i32,
}

/// Significant digits a quantity may have (a u128 holds them times any unit factor).
const MAX_DIGITS: usize = 24;

impl Decimal {
    /// Parse `[+-]digits[.digits][e[+-]digits]` (underscores between digits
    /// allowed, as in TOML); `None` if the text is not such a number.
    pub(crate) fn parse(text: &str) -> Option<Result<Decimal, String>> {
        let t = text.replace('_', "");
        let (negative, t) = match t.strip_prefix('-') {
            Some(r) => (true, r.to_string()),
            None => (false, t.strip_prefix('+').unwrap_or(&t).to_string()),
        };
        let (mant, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (&t[..], None),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        if (int.is_empty() && frac.is_empty())
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut e: i64 = match exp {
            None => 0,
            Some(x) => {
                let digits = x.strip_prefix(['+', '-']).unwrap_or(x);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                // Beyond ±10^6 nothing is representable; keep the sign only.
                let v: i64 = digits.parse().unwrap_or(i64::MAX / 4).min(1_000_000_000);
                if x.starts_with('-') {
                    -v
                } else {
                    v
                }
            }
        };
        let all = format!("{int}{frac}");
        e -= frac.len() as i64;
        let all = all.trim_start_matches('0');
        // Trailing zeros move into the exponent.
        let trimmed = all.trim_end_matches('0');
        e += (all.len() - trimmed.len()) as i64;
        if trimmed.is_empty() {
            return Some(Ok(Decimal {
                negative,
                digits: 0,
                exp: 0,
            }));
        }
        if trimmed.len() > MAX_DIGITS {
            return Some(Err(format!(
                "has {} significant digits, more than the {MAX_DIGITS} skyhop reads",
                trimmed.len()
            )));
        }
        let digits: u128 = trimmed.parse().expect("checked digits");
        let exp = e.clamp(-1_000_000_000, 1_000_000_000) as i32;
        Some(Ok(Decimal {
            negative,
            digits,
            exp,
        }))
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.digits == 0
    }

    /// The value times a whole `factor`, if it is a whole number: `Ok(Some(n))`
    /// when it fits in 64 bits, `Ok(None)` when it is whole but larger, `Err`
    /// with the exact value (as decimal text) when it is not whole.
    pub(crate) fn times(&self, factor: u64) -> Result<Option<u64>, String> {
        let n = self.digits * factor as u128; // < 10^24 · 2^64 < 2^128
        if n == 0 {
            return Ok(Some(0));
        }
        if self.exp >= 0 {
            let mut v = n;
            for _ in 0..self.exp {
                v = match v.checked_mul(10) {
                    Some(x) if x <= u64::MAX as u128 => x,
                    _ => return Ok(None),
                };
            }
            return Ok(u64::try_from(v).ok());
        }
        let k = -(self.exp as i64);
        if k <= 38 && n.is_multiple_of(10u128.pow(k as u32)) {
            return Ok(u64::try_from(n / 10u128.pow(k as u32)).ok());
        }
        Err(decimal_text(n, self.exp))
    }

    /// The value as f64 (for the words of a message).
    pub(crate) fn to_f64(self) -> f64 {
        let v: f64 = format!("{}e{}", self.digits, self.exp)
            .parse()
            .unwrap_or(f64::NAN);
        if self.negative {
            -v
        } else {
            v
        }
    }
}

/// `n × 10^exp` as plain decimal text (exp < 0), e.g. `1.0000004`; in
/// scientific notation when the number is far below one.
fn decimal_text(n: u128, exp: i32) -> String {
    let s = n.to_string();
    let k = (-(exp as i64)) as usize;
    if k > 30 {
        let (a, b) = s.split_at(1);
        let b = b.trim_end_matches('0');
        let e = s.len() as i64 - 1 - k as i64;
        return if b.is_empty() {
            format!("{a}e{e}")
        } else {
            format!("{a}.{b}e{e}")
        };
    }
    let padded = format!("{s:0>width$}", width = k + 1);
    let (i, f) = padded.split_at(padded.len() - k);
    format!("{i}.{}", f.trim_end_matches('0'))
}

/// Split `"1.5 ms"` into the number's text and the unit.
fn split_number(s: &str) -> (&str, &str) {
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
    (num, unit)
}

/// A quantity's number and the factor of its unit (in the base unit).
fn parse_with<F: Copy>(s: &str, what: &str, units: &[(&str, F)]) -> Result<(Decimal, F), String> {
    let names = unit_list(units);
    let (num, unit) = split_number(s);
    let Some(dec) = Decimal::parse(num) else {
        return Err(format!(
            "cannot read {what} {s:?}: expected a number and a unit ({names})"
        ));
    };
    let dec = dec.map_err(|m| format!("{what} {s:?} {m}"))?;
    if unit.is_empty() {
        return Err(format!(
            "{what} {s:?} has no unit: write e.g. \"{} {}\" (units: {names})",
            num.trim(),
            units[0].0
        ));
    }
    match units.iter().find(|(name, _)| *name == unit) {
        Some((_, factor)) => Ok((dec, *factor)),
        None => {
            let hint = crate::suggest::did_you_mean(unit, units.iter().map(|u| u.0))
                .map(|s| format!("; did you mean {s:?}?"))
                .unwrap_or_default();
            Err(format!(
                "unknown unit {unit:?} in {what} {s:?} (units: {names}){hint}"
            ))
        }
    }
}

/// The unit names, without the spellings that only differ in case or symbol.
fn unit_list<F>(units: &[(&str, F)]) -> String {
    units
        .iter()
        .map(|u| u.0)
        .filter(|n| n.is_ascii())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A quantity converted to its base unit as an integer: it must fit in 64
/// bits and be a whole number of the base unit, computed exactly (nothing
/// is silently rounded or clamped: `"1.0000004 ns"` and `"1e-400 s"` are
/// refused, not read as 1 ns and 0).
fn whole(
    dec: Decimal,
    factor: u64,
    what: &str,
    s: &str,
    base: &str,
    resolution: &str,
) -> Result<u64, String> {
    match dec.times(factor) {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(format!(
            "{what} {s:?} is out of range: it exceeds 2^64 - 1 {base}"
        )),
        Err(exact) => Err(format!(
            "{what} {s:?} is not a whole number of {base} (it is {exact} {base}; \
             {resolution} is the engine's resolution)"
        )),
    }
}

/// Rate units and their factor in bit/s.
pub(crate) const RATE_UNITS: &[(&str, u64)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("bit/s", 1),
    ("kbit/s", 1_000),
    ("Mbit/s", 1_000_000),
    ("Gbit/s", 1_000_000_000),
    ("b/s", 1),
    ("kb/s", 1_000),
    ("Kb/s", 1_000),
    ("Mb/s", 1_000_000),
    ("Gb/s", 1_000_000_000),
    ("mbps", 1_000_000),
    ("gbps", 1_000_000_000),
    ("mb/s", 1_000_000),
    ("gb/s", 1_000_000_000),
    ("Kbit/s", 1_000),
    ("mbit/s", 1_000_000),
    ("gbit/s", 1_000_000_000),
];
/// Time units and their factor in nanoseconds (`µs` with the micro sign or
/// the Greek mu, as `us`).
pub(crate) const TIME_UNITS: &[(&str, u64)] = &[
    ("s", 1_000_000_000),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("ns", 1),
    ("min", 60_000_000_000),
    ("\u{b5}s", 1_000),
    ("\u{3bc}s", 1_000),
];
/// Size units and their factor in bytes.
pub(crate) const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("kB", 1_000),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1_024),
    ("MiB", 1_048_576),
    ("GiB", 1_073_741_824),
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
    /// `"10 km"`, `"550e3 m"`: a number and a unit of `LENGTH_UNITS`.
    pub fn parse(s: &str) -> Result<Length, String> {
        let (d, f) = parse_with(s, "length", LENGTH_UNITS)?;
        Ok(Length(d.to_f64() * f))
    }
}
impl Speed {
    /// `"250 m/s"`: a positive number and a unit of `SPEED_UNITS`.
    pub fn parse(s: &str) -> Result<Speed, String> {
        let (d, f) = parse_with(s, "speed", SPEED_UNITS)?;
        let v = d.to_f64() * f;
        if v <= 0.0 || !v.is_finite() {
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
    /// `"1 Mbps"`: a positive number and a unit of `RATE_UNITS`, whole
    /// bit/s.
    pub fn parse(s: &str) -> Result<Rate, String> {
        let (d, f) = parse_with(s, "rate", RATE_UNITS)?;
        if d.negative || d.is_zero() {
            return Err(format!("rate {s:?} must be positive"));
        }
        if d.to_f64() * (f as f64) < 1.0 {
            return Err(format!(
                "rate {s:?} is below 1 bit/s, the engine's resolution"
            ));
        }
        Ok(Rate(whole(d, f, "rate", s, "bit/s", "1 bit/s")?))
    }
}
impl Duration {
    /// `"125 ms"`: a number not below zero and a unit of `TIME_UNITS`,
    /// whole nanoseconds.
    pub fn parse(s: &str) -> Result<Duration, String> {
        let (d, f) = parse_with(s, "duration", TIME_UNITS)?;
        if d.negative && !d.is_zero() {
            return Err(format!("duration {s:?} must not be negative"));
        }
        if !d.is_zero() && d.to_f64() * (f as f64) < 1.0 {
            return Err(format!(
                "duration {s:?} is below 1 ns, the engine's resolution (write 0 s for none)"
            ));
        }
        Ok(Duration(Dur(whole(d, f, "duration", s, "ns", "1 ns")?)))
    }
}
impl Size {
    /// `"5 MB"`: a number not below zero and a unit of `SIZE_UNITS`,
    /// whole bytes.
    pub fn parse(s: &str) -> Result<Size, String> {
        let (d, f) = parse_with(s, "size", SIZE_UNITS)?;
        if d.negative && !d.is_zero() {
            return Err(format!("size {s:?} must not be negative"));
        }
        if !d.is_zero() && d.to_f64() * (f as f64) < 1.0 {
            return Err(format!("size {s:?} is below 1 byte"));
        }
        Ok(Size(whole(d, f, "size", s, "bytes", "1 byte")?))
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
            .contains("below 1 ns, the engine's resolution"));
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
        assert!(Size::parse("18446744073709551616 B")
            .unwrap_err()
            .contains("out of range"));
    }
    #[test]
    fn nothing_below_the_resolution_or_beyond_f64_precision_is_rounded() {
        for (text, words) in [
            ("1e-400 s", "below 1 ns"),
            ("1.0000004 ns", "it is 1.0000004 ns"),
            ("5000000000000.4 bps", "it is 5000000000000.4 bit/s"),
            ("200000.0000004 B", "it is 200000.0000004 bytes"),
            ("0.3 KiB", "it is 307.2 bytes"),
            ("1e-10 s", "below 1 ns"),
        ] {
            let e = match text.split_whitespace().last() {
                Some("s" | "ns") => Duration::parse(text).unwrap_err(),
                Some("bps") => Rate::parse(text).unwrap_err(),
                _ => Size::parse(text).unwrap_err(),
            };
            assert!(e.contains(words), "{text}: {e}");
            assert!(
                e.contains("resolution") || e.contains("below"),
                "{text}: {e}"
            );
        }
        // Decimal fractions are exact, however f64 would round them.
        assert_eq!(
            Duration::parse("0.3 s").unwrap(),
            Duration(Dur(300_000_000))
        );
        assert_eq!(
            Duration::parse("1.000000001 s").unwrap(),
            Duration(Dur(1_000_000_001))
        );
        assert_eq!(
            Rate::parse("5000000000000 bps").unwrap(),
            Rate(5_000_000_000_000)
        );
        assert_eq!(Size::parse("1_000 B").unwrap(), Size(1000));
        assert_eq!(Size::parse("0.5 KiB").unwrap(), Size(512));
        assert_eq!(
            Duration::parse("1e3 ms").unwrap(),
            Duration(Dur(1_000_000_000))
        );
        assert_eq!(Duration::parse("-0 s").unwrap(), Duration(Dur(0)));
        assert_eq!(Duration::parse(".5 s").unwrap(), Duration(Dur(500_000_000)));
        assert_eq!(
            Duration::parse("18446744073709551615 ns").unwrap().0 .0,
            u64::MAX
        );
        assert!(Duration::parse("18446744073709551616 ns")
            .unwrap_err()
            .contains("out of range"));
        assert!(Duration::parse("1e1000000000000 s")
            .unwrap_err()
            .contains("out of range"));
        assert!(Size::parse("1.0000000000000000000000001 B")
            .unwrap_err()
            .contains("significant digits"));
    }
    #[test]
    fn micro_seconds_take_the_micro_sign() {
        for t in ["10 us", "10 \u{b5}s", "10 \u{3bc}s", "10\u{b5}s"] {
            assert_eq!(Duration::parse(t).unwrap(), Duration(Dur(10_000)), "{t}");
        }
        let e = Duration::parse("10 mss").unwrap_err();
        assert!(e.contains("did you mean \"ms\"?"), "{e}");
    }
    #[test]
    fn durations_print_exactly() {
        assert_eq!(Duration::parse("125 ms").unwrap().to_string(), "125 ms");
        assert_eq!(Duration::parse("0.5 us").unwrap().to_string(), "500 ns");
    }
}
