//! The store-and-forward link: per direction a drop-tail queue feeding a
//! transmitter of fixed rate, then a propagation delay and a channel stack.
//!
//! A direction is FIFO at a constant rate, so a packet's departure time is
//! known the moment it is queued: `start = max(now, busy_until)`, `end =
//! start + size/rate`. The engine therefore needs one event per hop (the
//! arrival at the far end), and none for a packet the channel corrupts: the
//! channel judges the packet over its transmission interval when it is
//! queued. Only the head of each direction's in-flight list asks for a
//! wake-up; the others keep the sequence number they took when queued, and
//! ask in turn, so the global (time, sequence) order is that of one event
//! per packet. Queue occupancy is recovered from the pending departure times.
//! A wake-up's token names the direction (bit 0) and the head packet's slot
//! (the bits above), so that whoever holds the event can bring the packet
//! in before the wake-up is due (`World::prefetch_next`).
//!
//! The in-flight list is kept in the packets' slots (`PacketStore`): each
//! slot holds the slot queued after it on the same direction, with that
//! packet's arrival time and sequence number; the direction holds the
//! first and the last. The arrival reads the packet's slot anyway, so the
//! list costs no memory of its own and no cache line beyond the slots, and
//! an arrival schedules the next without reading the next packet's line. The
//! engine calls the link through [`FifoLink::send_direct`] and
//! [`FifoLink::wake_direct`], which are handed the packet store.
//!
//! Queue limit: the number of packets waiting, not counting the one being
//! transmitted (as ns-2's DropTail with its link holding the packet in service).
//!
//! Statistics at O(1) per packet: the busy time is the sum of transmission
//! times, and the integral of the occupancy (packets waiting or in service)
//! over time is the sum of each accepted packet's sojourn `end - now`
//! (Little's law, exact for a FIFO); both are cut at the end of the run for
//! packets still queued then ([`FifoDir::stats_at`]). A traced run also keeps
//! the occupancy as a step function, one point per change, recorded when the
//! departures are pruned (lazily, in time order).
//!
//! A direction between moving nodes (`motion`, `moving.rs`) takes each
//! packet's delay from the positions when its last bit leaves, keeps
//! arrivals in order, and drops (or holds) packets while it is down; a
//! direction without motion runs the same code with its fixed delay.

use super::layer::{Dir, LinkBuild, LinkIo, LinkLayer, LinkPacket, LinkStats, LossReason, Wake};
use super::moving::DirMotion;
use super::packet::{PacketStore, NO_SLOT};
use crate::channel::{Channel, Tx};
use crate::engine::time::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The FIFO link has no parameters beyond the link's rate, delay and queue.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FifoSpec {}

impl super::layer::LinkLayerSpecOps for FifoSpec {
    type Built = FifoLink;
    fn build(&self, b: LinkBuild) -> FifoLink {
        FifoLink::build(self, b)
    }
    fn supports_motion(&self) -> bool {
        true
    }
    fn shown(&self) -> bool {
        false
    }
}

/// One direction. Its fields are laid out by use, a cache line each: what
/// every packet's enqueue and arrival read and write first (the
/// transmitter, the queue, the in-flight list), then what each enqueue
/// reads (delay, motion, channels, trace), then the counters; the layer
/// records of a thousand busy directions are read cold at every hop.
#[repr(C, align(64))]
pub struct FifoDir {
    busy_until: Time,
    /// Transmission end times of packets queued or in service, oldest first.
    departures: VecDeque<Time>,
    /// The oldest and the newest packet in flight (slots; `NO_SLOT`: none),
    /// linked through their slots' `next`.
    head: u32,
    tail: u32,
    pub queue_limit: u32,
    pub rate_bps: u64,
    pub delay: Dur,
    /// Delay and visibility from moving positions (`None`: the fixed `delay`).
    pub motion: Option<Box<DirMotion>>,
    pub channels: Vec<Channel>,
    /// Occupancy at every change (time, packets waiting or in service), when traced.
    trace: Option<Vec<(Time, u32)>>,
    pub stats: LinkStats,
}

/// What became of a packet handed to a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    /// It will arrive at the far end at this time.
    Arrives(Time),
    /// The queue was full.
    QueueDrop,
    /// It will be transmitted but corrupted on the way (lost).
    Corrupted,
    /// The direction is down (moving ends out of sight).
    LinkDown,
}

impl FifoDir {
    pub fn new(rate_bps: u64, delay: Dur, queue_limit: u32, channels: Vec<Channel>) -> FifoDir {
        FifoDir {
            rate_bps,
            delay,
            queue_limit,
            channels,
            busy_until: Time::ZERO,
            departures: VecDeque::with_capacity(64),
            head: NO_SLOT,
            tail: NO_SLOT,
            stats: LinkStats::default(),
            trace: None,
            motion: None,
        }
    }

    /// Start recording the occupancy as a step function.
    pub fn trace_queue(&mut self) {
        self.trace.get_or_insert_with(|| vec![(Time::ZERO, 0)]);
    }

    /// The statistics as of `stop`: busy time and occupancy integral without
    /// what lies beyond `stop` (packets queued at the end of the run). The
    /// departures form one busy period ending at `busy_until`, which began
    /// at or before `stop` (every packet was accepted by then).
    pub fn stats_at(&self, stop: Time) -> LinkStats {
        let mut st = self.stats.clone();
        if self.busy_until > stop {
            st.busy_ns -= self.busy_until.since(stop).0;
            let beyond: u128 = self
                .departures
                .iter()
                .filter(|&&d| d > stop)
                .map(|&d| d.since(stop).0 as u128)
                .sum();
            st.occupancy_ns -= beyond;
        }
        st
    }

    /// The occupancy trace up to `stop` (departures up to `stop` included).
    pub fn take_trace(&mut self, stop: Time) -> Option<Vec<(Time, u32)>> {
        let mut tr = self.trace.take()?;
        let mut len = self.departures.len() as u32;
        for &d in self.departures.iter() {
            if d > stop {
                break;
            }
            len -= 1;
            tr.push((d, len));
        }
        Some(tr)
    }

    /// Record the occupancy at `t` (traced runs only; out of line).
    #[cold]
    #[inline(never)]
    fn trace_point(&mut self, t: Time) {
        let n = self.departures.len() as u32;
        if let Some(tr) = self.trace.as_mut() {
            tr.push((t, n));
        }
    }

    /// Packets waiting (not counting the one in service) at `now`.
    #[inline]
    pub fn waiting(&mut self, now: Time) -> u32 {
        while let Some(&d) = self.departures.front() {
            if d <= now {
                self.departures.pop_front();
                if self.trace.is_some() {
                    self.trace_point(d);
                }
            } else {
                break;
            }
        }
        // The front packet, if any, is in service.
        self.departures.len().saturating_sub(1) as u32
    }

    /// Queue a packet at `now`: admission, transmission interval, channel.
    #[inline(always)]
    pub fn enqueue(&mut self, now: Time, pkt: &LinkPacket) -> Enqueue {
        let waiting = self.waiting(now);
        if !self.departures.is_empty() && waiting >= self.queue_limit {
            self.stats.queue_drops += 1;
            return Enqueue::QueueDrop;
        }
        // The packet joins `waiting` others and the one in service (if any):
        // the occupancy, counted like the mean.
        let occupancy = self.departures.len() as u32 + 1;
        if occupancy > self.stats.max_occupancy {
            self.stats.max_occupancy = occupancy;
        }
        let mut start = if self.busy_until > now {
            self.busy_until
        } else {
            now
        };
        if self.motion.is_some() {
            match self.moving_start(start) {
                Some(s) => start = s,
                None => return Enqueue::LinkDown,
            }
        }
        let tx_time = Dur::transmission(pkt.bytes as u64, self.rate_bps);
        let end = start + tx_time;
        self.busy_until = end;
        self.departures.push_back(end);
        self.stats.packets += 1;
        self.stats.bytes += pkt.bytes as u64;
        self.stats.busy_ns += tx_time.0;
        self.stats.occupancy_ns += end.since(now).0 as u128;
        if self.trace.is_some() {
            self.trace_point(now);
        }
        if !self.channels.is_empty() {
            let tx = Tx {
                start,
                end,
                bytes: pkt.bytes,
                kind: pkt.kind,
                seq: pkt.seq,
                retx: pkt.retx,
            };
            for ch in self.channels.iter_mut() {
                if ch.is_lost(&tx) {
                    self.stats.channel_drops += 1;
                    return Enqueue::Corrupted;
                }
            }
        }
        if self.motion.is_some() {
            return self.moving_arrival(end);
        }
        Enqueue::Arrives(end + self.delay)
    }

    /// A moving direction: when the transmission may start (`None`: the
    /// direction is down and the packet dropped).
    #[cold]
    #[inline(never)]
    fn moving_start(&mut self, start: Time) -> Option<Time> {
        let s = self.motion.as_deref_mut()?.start_at(start);
        if s.is_none() {
            self.stats.link_drops += 1;
        }
        s
    }

    /// A moving direction: the arrival of a packet whose last bit leaves at `end`.
    #[cold]
    #[inline(never)]
    fn moving_arrival(&mut self, end: Time) -> Enqueue {
        match self.motion.as_deref_mut().and_then(|m| m.arrival(end)) {
            Some(t) => Enqueue::Arrives(t),
            None => {
                self.stats.link_drops += 1;
                Enqueue::LinkDown
            }
        }
    }
}

/// Both directions of a FIFO link.
pub struct FifoLink {
    pub dirs: [FifoDir; 2],
}

impl FifoLink {
    pub fn build(_spec: &FifoSpec, b: LinkBuild) -> FifoLink {
        let [cf, cr] = b.channels;
        let [f, r] = b.dirs;
        FifoLink {
            dirs: [
                FifoDir::new(f.rate_bps, f.delay, f.queue, cf),
                FifoDir::new(r.rate_bps, r.delay, r.queue, cr),
            ],
        }
    }
}

/// What became of a packet a FIFO link accepted or refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FifoSent {
    /// In flight; `Some` when it is the head of its direction and needs a wake-up.
    InFlight(Option<Wake>),
    Lost(LossReason),
}

impl FifoLink {
    /// Queue the packet `pkt` (in `packets`) on direction `dir` at `now`;
    /// `seq` is the engine's insertion-sequence counter.
    #[inline(always)]
    pub fn send_direct(
        &mut self,
        now: Time,
        dir: Dir,
        pkt: &LinkPacket,
        seq: &mut u64,
        packets: &mut PacketStore,
    ) -> FifoSent {
        let d = &mut self.dirs[dir.index()];
        match d.enqueue(now, pkt) {
            Enqueue::Arrives(t) => {
                *seq += 1;
                packets.slot_mut(pkt.slot).next = NO_SLOT;
                let wake = if d.head == NO_SLOT {
                    d.head = pkt.slot;
                    Some(Wake {
                        at: t,
                        seq: *seq,
                        token: head_token(dir.index(), pkt.slot),
                    })
                } else {
                    let tail = packets.slot_mut(d.tail);
                    tail.next = pkt.slot;
                    tail.next_arrival = t;
                    tail.next_seq = *seq;
                    None
                };
                d.tail = pkt.slot;
                FifoSent::InFlight(wake)
            }
            Enqueue::QueueDrop => FifoSent::Lost(LossReason::Queue),
            Enqueue::Corrupted => FifoSent::Lost(LossReason::Channel),
            Enqueue::LinkDown => FifoSent::Lost(LossReason::LinkDown),
        }
    }

    /// The head packet of the direction `token` names arrives at `now`;
    /// returns its slot, and the next head's wake-up and slot (read from
    /// the arriving packet's slot: the next head's own line is not read).
    #[inline(always)]
    pub fn wake_direct(
        &mut self,
        now: Time,
        token: u32,
        packets: &PacketStore,
    ) -> (Dir, u32, Option<(Wake, u32)>) {
        let dir = Dir::from_index((token & 1) as usize);
        let d = &mut self.dirs[dir.index()];
        let slot = d.head;
        assert!(slot != NO_SLOT, "FIFO link woken with nothing in flight");
        debug_assert_eq!(slot, token >> 1);
        let s = packets.slot(slot);
        d.stats.delivered += 1;
        d.head = s.next;
        if d.head == NO_SLOT {
            return (dir, slot, None);
        }
        debug_assert!(s.next_arrival >= now);
        let next = Wake {
            at: s.next_arrival,
            seq: s.next_seq,
            token: head_token(dir.index(), d.head),
        };
        (dir, slot, Some((next, d.head)))
    }
}

/// The token of a direction's wake-up: the direction, and its head's slot.
#[inline(always)]
fn head_token(dir: usize, slot: u32) -> u32 {
    debug_assert!(slot < 1 << 31, "packet slots beyond 2^31");
    dir as u32 | slot << 1
}

/// The engine moves a FIFO link's packets through `send_direct` and
/// `wake_direct`, which keep the in-flight list in the packet store; the
/// generic calls, whose record holds no packets, are never made to it.
impl LinkLayer for FifoLink {
    fn send(&mut self, _now: Time, _dir: Dir, _pkt: LinkPacket, _io: &mut LinkIo) {
        unreachable!("the engine sends on a FIFO link through send_direct")
    }

    fn wake(&mut self, _now: Time, _token: u32, _io: &mut LinkIo) {
        unreachable!("the engine wakes a FIFO link through wake_direct")
    }

    fn stats(&self, dir: Dir) -> LinkStats {
        self.dirs[dir.index()].stats.clone()
    }

    fn stats_at(&self, dir: Dir, stop: Time) -> LinkStats {
        self.dirs[dir.index()].stats_at(stop)
    }

    fn trace_queues(&mut self) {
        for d in self.dirs.iter_mut() {
            d.trace_queue();
        }
    }

    fn queue_trace(&mut self, dir: Dir, stop: Time) -> Option<Vec<(Time, u32)>> {
        self.dirs[dir.index()].take_trace(stop)
    }
    fn set_motion(&mut self, dir: Dir, motion: Box<DirMotion>) {
        self.dirs[dir.index()].motion = Some(motion);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::PacketKind;

    fn dir(queue: u32) -> FifoDir {
        FifoDir::new(1_000_000, Dur::from_millis(125), queue, Vec::new())
    }
    fn pkt(bytes: u32) -> LinkPacket {
        LinkPacket {
            slot: 0,
            bytes,
            kind: PacketKind::Data,
            seq: 0,
            retx: false,
        }
    }

    #[test]
    fn back_to_back_packets_serialise_one_after_another() {
        let mut l = dir(10);
        assert_eq!(
            l.enqueue(Time::ZERO, &pkt(1500)),
            Enqueue::Arrives(Time(137_000_000))
        );
        assert_eq!(
            l.enqueue(Time::ZERO, &pkt(1500)),
            Enqueue::Arrives(Time(149_000_000))
        );
        // After the link drains, a packet starts at once.
        assert_eq!(
            l.enqueue(Time(1_000_000_000), &pkt(40)),
            Enqueue::Arrives(Time(1_000_000_000 + 320_000 + 125_000_000))
        );
    }

    #[test]
    fn drop_tail_counts_waiting_packets_not_the_one_in_service() {
        let mut l = dir(2);
        for _ in 0..3 {
            assert!(matches!(
                l.enqueue(Time::ZERO, &pkt(1500)),
                Enqueue::Arrives(_)
            ));
        }
        assert_eq!(l.enqueue(Time::ZERO, &pkt(1500)), Enqueue::QueueDrop);
        // After the first departs (12 ms), one slot frees.
        assert!(matches!(
            l.enqueue(Time(12_000_000), &pkt(1500)),
            Enqueue::Arrives(_)
        ));
        assert_eq!(l.enqueue(Time(12_000_000), &pkt(1500)), Enqueue::QueueDrop);
        assert_eq!(l.stats.queue_drops, 2);
    }

    const SEG: crate::tcp::DataSeg = crate::tcp::DataSeg {
        seq: 0,
        len: 1448,
        retx: false,
        probe: false,
        ts: Time::ZERO,
    };

    #[test]
    fn only_the_head_of_a_direction_asks_for_a_wake_up() {
        let mut link = FifoLink {
            dirs: [dir(10), dir(10)],
        };
        let mut packets = PacketStore::default();
        let mut send = |link: &mut FifoLink, t: Time, d: Dir, seq: &mut u64| {
            let slot = packets.alloc_data(1500, 0, 0, &SEG);
            let p = LinkPacket { slot, ..pkt(1500) };
            (slot, link.send_direct(t, d, &p, seq, &mut packets))
        };
        let mut seq = 0;
        let (a, sa) = send(&mut link, Time::ZERO, Dir::Forward, &mut seq);
        let (b, sb) = send(&mut link, Time::ZERO, Dir::Forward, &mut seq);
        let (r, sr) = send(&mut link, Time(1_000_000), Dir::Reverse, &mut seq);
        let (c, sc) = send(&mut link, Time(2_000_000), Dir::Forward, &mut seq);
        let wake = |at, seq, dir, slot| {
            FifoSent::InFlight(Some(Wake {
                at: Time(at),
                seq,
                token: head_token(dir, slot),
            }))
        };
        assert_eq!(sa, wake(137_000_000, 1, 0, a));
        assert_eq!(sb, FifoSent::InFlight(None));
        assert_eq!(sr, wake(138_000_000, 3, 1, r));
        assert_eq!(sc, FifoSent::InFlight(None));
        // The forward head arrives; the next is b, with the sequence number
        // it took when queued (both kept in a's slot, with b's place).
        assert_eq!(
            (packets.slot(a).next, packets.slot(a).next_arrival),
            (b, Time(149_000_000))
        );
        assert_eq!((packets.slot(b).next, packets.slot(c).next), (c, NO_SLOT));
        let tok = head_token(0, a);
        let (d, slot, next) = link.wake_direct(Time(137_000_000), tok, &packets);
        assert_eq!((d, slot), (Dir::Forward, a));
        let (w, n) = next.unwrap();
        assert_eq!(
            (w.at, w.seq, w.token, n),
            (Time(149_000_000), 2, head_token(0, b), b)
        );
        let (_, slot, next) = link.wake_direct(w.at, w.token, &packets);
        assert_eq!(slot, b);
        let (w, n) = next.unwrap();
        assert_eq!((w.at, w.seq, n), (Time(161_000_000), 4, c));
        let (_, slot, next) = link.wake_direct(w.at, w.token, &packets);
        assert_eq!((slot, next), (c, None));
        // The reverse direction's list was apart all along.
        let (d, slot, next) = link.wake_direct(Time(138_000_000), head_token(1, r), &packets);
        assert_eq!((d, slot, next), (Dir::Reverse, r, None));
        assert_eq!(link.dirs[0].stats.delivered, 3);
    }

    #[test]
    fn occupancy_integral_and_busy_time_are_exact_and_cut_at_the_end() {
        // Three 1500 B packets at t = 0 on 1 Mb/s (12 ms each): sojourns
        // 12, 24 and 36 ms; the link is busy for 36 ms.
        let mut l = dir(10);
        l.trace_queue();
        for _ in 0..3 {
            l.enqueue(Time::ZERO, &pkt(1500));
        }
        let ms = 1_000_000u64;
        let st = l.stats_at(Time(100 * ms));
        assert_eq!(st.busy_ns, 36 * ms);
        assert_eq!(st.max_occupancy, 3);
        assert_eq!(st.occupancy_ns, (72 * ms) as u128);
        assert!((st.mean_queue(100 * ms) - 0.72).abs() < 1e-12);
        // Cut at 18 ms: busy 18 ms; occupancy 3 for 12 ms then 2 for 6 ms.
        let st = l.stats_at(Time(18 * ms));
        assert_eq!(st.busy_ns, 18 * ms);
        assert_eq!(st.occupancy_ns, (3 * 12 * ms + 2 * 6 * ms) as u128);
        // The step function: 1, 2, 3 at 0; 2 at 12 ms, 1 at 24 ms, 0 at 36 ms.
        let tr = l.take_trace(Time(30 * ms)).unwrap();
        assert_eq!(
            tr,
            vec![
                (Time::ZERO, 0),
                (Time::ZERO, 1),
                (Time::ZERO, 2),
                (Time::ZERO, 3),
                (Time(12 * ms), 2),
                (Time(24 * ms), 1),
            ]
        );
    }
}
