//! One direction of a point-to-point link: a drop-tail queue feeding a
//! transmitter of fixed rate, then a propagation delay and an error model.
//!
//! The link is FIFO at a constant rate, so a packet's departure time is known
//! the moment it is queued: `start = max(now, busy_until)`, `end = start +
//! size/rate`. The engine therefore needs one event per hop (the arrival at
//! the far end), and none for a packet the channel corrupts. Queue occupancy
//! is recovered from the pending departure times.
//!
//! Queue limit: the number of packets waiting, not counting the one being
//! transmitted (as ns-2's DropTail with its link holding the packet in service).

use super::NodeId;
use crate::channel::ErrorModel;
use crate::engine::rng::RngStream;
use crate::engine::time::{Dur, Time};
use std::collections::VecDeque;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub packets: u64,
    pub bytes: u64,
    pub queue_drops: u64,
    pub channel_drops: u64,
    pub max_queue: u32,
}

pub struct LinkDir {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Dur,
    pub queue_limit: u32,
    pub errors: ErrorModel,
    pub rng: RngStream,
    busy_until: Time,
    /// Transmission end times of packets queued or in service, oldest first.
    departures: VecDeque<Time>,
    pub stats: LinkStats,
}

/// What became of a packet handed to a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    /// It will arrive at the far end at this time.
    Arrives(Time),
    /// The queue was full.
    QueueDrop,
    /// It will be transmitted but corrupted on the way (lost).
    Corrupted,
}

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: Dur,
        queue_limit: u32,
        errors: ErrorModel,
        rng: RngStream,
    ) -> LinkDir {
        LinkDir {
            name,
            from,
            to,
            rate_bps,
            delay,
            queue_limit,
            errors,
            rng,
            busy_until: Time::ZERO,
            departures: VecDeque::with_capacity(64),
            stats: LinkStats::default(),
        }
    }

    /// Packets waiting (not counting the one in service) at `now`.
    #[inline]
    pub fn waiting(&mut self, now: Time) -> u32 {
        while let Some(&d) = self.departures.front() {
            if d <= now {
                self.departures.pop_front();
            } else {
                break;
            }
        }
        // The front packet, if any, is in service.
        self.departures.len().saturating_sub(1) as u32
    }

    /// Hand a packet to this link direction at `now`. `lost_by_list` is the
    /// exact-drop decision made by the caller (it knows the segment).
    #[inline]
    pub fn enqueue(
        &mut self,
        now: Time,
        size_bytes: u32,
        is_ack: bool,
        lost_by_list: bool,
    ) -> Enqueue {
        let waiting = self.waiting(now);
        if !self.departures.is_empty() && waiting >= self.queue_limit {
            self.stats.queue_drops += 1;
            return Enqueue::QueueDrop;
        }
        if waiting + 1 > self.stats.max_queue {
            self.stats.max_queue = waiting + 1;
        }
        let start = if self.busy_until > now {
            self.busy_until
        } else {
            now
        };
        let end = start + Dur::transmission(size_bytes as u64, self.rate_bps);
        self.busy_until = end;
        self.departures.push_back(end);
        self.stats.packets += 1;
        self.stats.bytes += size_bytes as u64;
        if lost_by_list || self.errors.is_lost(&mut self.rng, size_bytes, is_ack) {
            self.stats.channel_drops += 1;
            return Enqueue::Corrupted;
        }
        Enqueue::Arrives(end + self.delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(queue: u32) -> LinkDir {
        LinkDir::new(
            "l".into(),
            NodeId(0),
            NodeId(1),
            1_000_000,
            Dur::from_millis(125),
            queue,
            ErrorModel::none(),
            RngStream::derive(1, "l"),
        )
    }

    #[test]
    fn back_to_back_packets_serialise_one_after_another() {
        let mut l = link(10);
        assert_eq!(
            l.enqueue(Time::ZERO, 1500, false, false),
            Enqueue::Arrives(Time(137_000_000))
        );
        assert_eq!(
            l.enqueue(Time::ZERO, 1500, false, false),
            Enqueue::Arrives(Time(149_000_000))
        );
        // After the link drains, a packet starts at once.
        assert_eq!(
            l.enqueue(Time(1_000_000_000), 40, true, false),
            Enqueue::Arrives(Time(1_000_000_000 + 320_000 + 125_000_000))
        );
    }

    #[test]
    fn drop_tail_counts_waiting_packets_not_the_one_in_service() {
        let mut l = link(2);
        for _ in 0..3 {
            assert!(matches!(
                l.enqueue(Time::ZERO, 1500, false, false),
                Enqueue::Arrives(_)
            ));
        }
        assert_eq!(
            l.enqueue(Time::ZERO, 1500, false, false),
            Enqueue::QueueDrop
        );
        // After the first departs (12 ms), one slot frees.
        assert!(matches!(
            l.enqueue(Time(12_000_000), 1500, false, false),
            Enqueue::Arrives(_)
        ));
        assert_eq!(
            l.enqueue(Time(12_000_000), 1500, false, false),
            Enqueue::QueueDrop
        );
        assert_eq!(l.stats.queue_drops, 2);
    }
}
