//! Simulated time: integer nanoseconds, never floats.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

pub const NS_PER_S: u64 = 1_000_000_000;

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * NS_PER_S as f64).round() as u64)
    }
    /// Time elapsed since `earlier` (saturating at zero).
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NS_PER_S)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub fn from_secs_f64(s: f64) -> Dur {
        Dur((s * NS_PER_S as f64).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Time to serialise `bytes` at `rate_bps` bits per second, rounded up to the nanosecond.
    #[inline]
    pub fn transmission(bytes: u64, rate_bps: u64) -> Dur {
        // bits × 10⁹ fits 64 bits below 2³¹ bytes (every packet): one
        // 64-bit division instead of a call to the 128-bit one (a hop costs
        // one of these).
        if bytes < 1 << 31 {
            return Dur((bytes * 8 * NS_PER_S).div_ceil(rate_bps));
        }
        let bits = bytes as u128 * 8 * NS_PER_S as u128;
        Dur(bits.div_ceil(rate_bps as u128) as u64)
    }
    pub fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    fn sub(self, t: Time) -> Dur {
        debug_assert!(self >= t, "negative duration");
        Dur(self.0 - t.0)
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn transmission_time_of_a_1500_byte_packet_at_1_mbps_is_12_ms() {
        assert_eq!(Dur::transmission(1500, 1_000_000), Dur::from_millis(12));
    }
    #[test]
    fn transmission_time_rounds_up() {
        // 1 byte at 3 bit/s = 8/3 s
        assert_eq!(Dur::transmission(1, 3), Dur(2_666_666_667));
    }
    #[test]
    fn transmission_time_is_the_same_on_both_sides_of_the_64_bit_path() {
        // 2³¹ − 1 bytes takes the 64-bit division, 2³¹ the 128-bit one;
        // at 7 bit/s: ceil(bytes × 8 × 10⁹ / 7) ns.
        let exact = |b: u128| Dur((b * 8_000_000_000).div_ceil(7) as u64);
        for b in [(1u64 << 31) - 1, 1 << 31, 1500, 52] {
            assert_eq!(Dur::transmission(b, 7), exact(b as u128), "{b} bytes");
        }
    }
}
