//! The datagram transport of a probe flow (`app = "cbr"`): no connection,
//! no retransmission, one route from the flow's `from` node to its `to`
//! node. It numbers what it sends, stamps each datagram with its send time,
//! and counts what arrives and how late; what was neither received nor lost
//! when the run stopped is in flight.

use crate::engine::time::Time;

/// One flow's datagram path and counters.
#[derive(Clone, Debug, Default)]
pub struct DatagramPath {
    /// The route (a list of link directions) every datagram follows.
    pub route: u32,
    pub sent: u64,
    pub bytes_sent: u64,
    pub received: u64,
    pub bytes_received: u64,
    pub delay_sum_s: f64,
    pub delay_max_s: f64,
    /// Traced runs: (send instant, one-way delay) of every datagram
    /// received, seconds, in arrival order.
    pub delays: Option<Vec<(f64, f64)>>,
}

impl DatagramPath {
    pub fn new(route: u32) -> DatagramPath {
        DatagramPath {
            route,
            ..Default::default()
        }
    }

    /// Record every received datagram's delay (traced runs).
    pub fn traced(mut self, on: bool) -> DatagramPath {
        if on {
            self.delays = Some(Vec::new());
        }
        self
    }

    /// A datagram of `bytes` leaves: its number in the flow.
    #[inline]
    pub fn on_send(&mut self, bytes: u32) -> u64 {
        let seq = self.sent;
        self.sent += 1;
        self.bytes_sent += bytes as u64;
        seq
    }

    /// A datagram of `bytes` sent at `sent_at` arrives at `now`.
    #[inline]
    pub fn on_arrival(&mut self, now: Time, sent_at: Time, bytes: u32) {
        let delay = now.since(sent_at).as_secs_f64();
        self.received += 1;
        self.bytes_received += bytes as u64;
        self.delay_sum_s += delay;
        self.delay_max_s = self.delay_max_s.max(delay);
        if let Some(d) = self.delays.as_mut() {
            d.push((sent_at.as_secs_f64(), delay));
        }
    }

    /// Datagrams lost: sent, not received, and not among the `in_flight`
    /// still on their way when the run stopped.
    pub fn lost(&self, in_flight: u64) -> u64 {
        self.sent - self.received - in_flight
    }

    /// lost / (received + lost): the loss rate of the datagrams judged.
    pub fn loss_rate(&self, in_flight: u64) -> f64 {
        let lost = self.lost(in_flight);
        let judged = self.received + lost;
        if judged > 0 {
            lost as f64 / judged as f64
        } else {
            0.0
        }
    }

    /// Mean one-way delay of the received datagrams (s).
    pub fn delay_mean_s(&self) -> Option<f64> {
        (self.received > 0).then(|| self.delay_sum_s / self.received as f64)
    }

    /// Largest one-way delay of the received datagrams (s).
    pub fn delay_max_s(&self) -> Option<f64> {
        (self.received > 0).then_some(self.delay_max_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_delays_and_losses_with_datagrams_in_flight_left_out() {
        let mut d = DatagramPath::new(3);
        assert_eq!(d.on_send(100), 0);
        assert_eq!(d.on_send(100), 1);
        assert_eq!(d.on_send(100), 2);
        d.on_arrival(Time(3_000_000), Time(1_000_000), 100);
        // One received (2 ms), one lost, one in flight.
        assert_eq!(d.lost(1), 1);
        assert_eq!(d.loss_rate(1), 0.5);
        assert_eq!(d.delay_mean_s(), Some(0.002));
        assert_eq!(d.delay_max_s(), Some(0.002));
        assert_eq!(d.bytes_sent, 300);
        assert_eq!(d.bytes_received, 100);
        assert!(d.delays.is_none());
        // Traced: each arrival's send instant and delay.
        let mut d = DatagramPath::new(0).traced(true);
        d.on_send(100);
        d.on_send(100);
        d.on_arrival(Time(5_000_000), Time(2_000_000), 100);
        d.on_arrival(Time(9_000_000), Time(4_000_000), 100);
        assert_eq!(d.delays, Some(vec![(0.002, 0.003), (0.004, 0.005)]));
    }
}
