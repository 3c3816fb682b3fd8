//! A constant-rate probe, like iperf in UDP mode: datagrams of `packet`
//! bytes (on the wire) every `packet · 8 / rate` seconds from the flow's
//! start until the run stops, with no congestion control and no
//! retransmission. The engine carries them as datagrams along the flow's
//! path and reports, per flow, datagrams sent, received and lost, the loss
//! rate and the one-way delay (mean, max).

use super::{AppIo, Application};
use crate::engine::time::Time;

pub struct Cbr {
    rate_bps: u64,
    packet_bytes: u32,
    start: Time,
    /// Datagrams sent so far.
    sent: u64,
    next: Option<Time>,
}

impl Cbr {
    pub fn new(rate_bps: u64, packet_bytes: u32) -> Self {
        Cbr {
            rate_bps,
            packet_bytes,
            start: Time::ZERO,
            sent: 0,
            next: None,
        }
    }

    /// Send instant of datagram `k` (exact: no accumulated rounding).
    fn at(&self, k: u64) -> Time {
        let ns = k as u128 * self.packet_bytes as u128 * 8 * 1_000_000_000 / self.rate_bps as u128;
        Time(self.start.0.saturating_add(ns.min(u64::MAX as u128) as u64))
    }

    fn send_due(&mut self, now: Time, io: &mut AppIo) {
        while self.at(self.sent) <= now {
            io.send_datagram(0, self.packet_bytes);
            self.sent += 1;
        }
        self.next = Some(self.at(self.sent));
    }
}

impl Application for Cbr {
    fn start(&mut self, now: Time, io: &mut AppIo) {
        self.start = now;
        self.send_due(now, io);
    }
    fn on_delivered(&mut self, _: Time, _: usize, _: u64, _: u64, io: &mut AppIo) {
        io.fail("a cbr probe received stream bytes");
    }
    fn on_timer(&mut self, now: Time, io: &mut AppIo) {
        self.send_due(now, io);
    }
    fn poll_at(&self) -> Option<Time> {
        self.next
    }
    fn done(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_at_the_exact_rate() {
        // 1500 B at 1 Mb/s: one every 12 ms.
        let mut c = Cbr::new(1_000_000, 1500);
        let mut io = AppIo::default();
        c.start(Time(5), &mut io);
        assert_eq!(io.datagrams.len(), 1);
        assert_eq!(c.poll_at(), Some(Time(5 + 12_000_000)));
        let mut n = 1;
        while let Some(t) = c.poll_at() {
            if t > Time(1_000_000_005) {
                break;
            }
            c.on_timer(t, &mut io);
            n += 1;
        }
        // t = 0, 12 ms, ..., 996 ms: 84 datagrams in the first second.
        assert_eq!(n, 84);
        assert_eq!(io.datagrams.len(), 84);
    }
}
