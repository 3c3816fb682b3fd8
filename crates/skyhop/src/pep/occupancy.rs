//! A proxy's cache occupancy over time: the largest, and the time-weighted
//! mean (the integral of the occupancy over time, divided by the span).
//! Split-TCP proxies (`ProxyRt`) and QUIC relays (`QuicRelay`) keep theirs
//! the same way, so their results read alike.

use crate::engine::time::Time;

#[derive(Clone, Debug, Default)]
pub struct Occupancy {
    max: u64,
    last_t: Time,
    last: u64,
    /// Byte-seconds up to `last_t`.
    area: f64,
    start: Time,
}

impl Occupancy {
    /// Count from `t` (the stream's or connection's opening).
    pub fn set_start(&mut self, t: Time) {
        self.start = t;
        self.last_t = t;
    }

    /// The occupancy after an event at `now` is `bytes`.
    pub fn observe(&mut self, now: Time, bytes: u64) {
        if now > self.last_t {
            self.area += self.last as f64 * (now - self.last_t).as_secs_f64();
            self.last_t = now;
        }
        self.last = bytes;
        self.max = self.max.max(bytes);
    }

    /// The largest occupancy seen.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The occupancy now (the last observed).
    pub fn current(&self) -> u64 {
        self.last
    }

    /// Occupancy integrated over time up to `end` (byte-seconds).
    pub fn area(&self, end: Time) -> f64 {
        let mut area = self.area;
        if end > self.last_t {
            area += self.last as f64 * (end - self.last_t).as_secs_f64();
        }
        area
    }

    /// The time-weighted mean from the start to `end`.
    pub fn mean(&self, end: Time) -> f64 {
        let span = end.since(self.start).as_secs_f64();
        if span > 0.0 {
            self.area(end) / span
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Dur;

    #[test]
    fn the_mean_weighs_each_level_by_how_long_it_lasted() {
        // 0 B for 1 s, 300 B for 2 s, 100 B for 1 s: (600 + 100) / 4.
        let s = |x: u64| Time::ZERO + Dur::from_secs(x);
        let mut o = Occupancy::default();
        o.set_start(s(1));
        o.observe(s(2), 300);
        o.observe(s(4), 100);
        assert_eq!(o.max(), 300);
        assert_eq!(o.current(), 100);
        assert_eq!(o.area(s(5)), 700.0);
        assert_eq!(o.mean(s(5)), 175.0);
        // Two events at one instant: the later level counts from there.
        o.observe(s(5), 50);
        o.observe(s(5), 10);
        assert_eq!(o.area(s(6)), 710.0);
    }
}
