//! The wall-clock driver: the world's time is the time elapsed since the
//! run began. Each turn of its loop takes the clock, runs every event due
//! by then, takes the packets the live hosts wrote to their devices and
//! injects them at their nodes, writes the packets that reached live nodes
//! to those nodes' devices (measuring how late each is), and sleeps until
//! the next event is due or a host writes.

use super::host::Host;
use super::ip;
use super::lateness::Lateness;
use super::record::Recorder;
use super::sys;
use crate::engine::Time;
use crate::error::SimError;
use crate::export::pcap::PcapStream;
use crate::net::addr::node_of_ip;
use crate::scenario::Plan;
use crate::sim::{Driver, ExternalPacket, Injected, Outbound, World};
use serde::Serialize;

/// Why a live run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// Every (foreground) command exited.
    CommandsDone,
    /// The run's duration was reached.
    Duration,
    /// Interrupted (Ctrl-C, SIGTERM).
    Interrupted,
    /// The 99th percentile of the lateness went above the abort threshold.
    Lateness,
}

/// Counters of the packets between the hosts and the world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LiveCounters {
    /// Packets read from the hosts' devices.
    pub read: u64,
    /// Of those, IPv4 packets for a node's address, injected.
    pub injected: u64,
    /// Not IPv4 or not for a node's address (not carried).
    pub foreign: u64,
    /// For a node with no route from the host's node (not carried).
    pub unroutable: u64,
    /// Written to the hosts' devices.
    pub released: u64,
    /// Refused by a host's device (its queue full).
    pub release_refused: u64,
}

/// A loop over a world joined to live hosts.
pub struct WallClock<'a> {
    pub hosts: &'a [Host],
    /// Stop at this simulated (= elapsed) time.
    pub end: Time,
    /// Asked every few milliseconds: stop now, and why.
    pub should_stop: &'a mut dyn FnMut() -> Option<StopReason>,
    pub recorder: Option<Recorder>,
    pub lateness: Lateness,
    pub counters: LiveCounters,
    pub stopped: Option<StopReason>,
    /// Record errors (the record stops, the run goes on).
    pub record_error: Option<String>,
    /// pcap files written as the run goes (the packet log drained into them).
    pub pcap: Option<PcapStream>,
    pub pcap_error: Option<String>,
    plan: &'a Plan,
    /// CLOCK_MONOTONIC at the run's time zero.
    start_ns: u64,
    /// Host (index in `hosts`) of each node index.
    host_of: Vec<Option<usize>>,
    nodes: usize,
}

/// Sleeps shorter than this are spent polling (a sleep's wake-up costs
/// more than that).
const SPIN_NS: u64 = 20_000;
/// How often the stop condition is asked.
const CHECK_NS: u64 = 5_000_000;
/// How often the packet log is written to the pcap files.
const PCAP_NS: u64 = 200_000_000;
/// At most this many packets are taken from one host per turn (the others
/// and the events are not starved).
const BATCH: usize = 64;

impl<'a> WallClock<'a> {
    pub fn new(
        hosts: &'a [Host],
        plan: &'a Plan,
        end: Time,
        should_stop: &'a mut dyn FnMut() -> Option<StopReason>,
        lateness: Lateness,
        recorder: Option<Recorder>,
        pcap: Option<PcapStream>,
    ) -> WallClock<'a> {
        let nodes = plan.nodes.len();
        let mut host_of = vec![None; nodes];
        for (i, h) in hosts.iter().enumerate() {
            host_of[h.node as usize] = Some(i);
        }
        WallClock {
            hosts,
            end,
            should_stop,
            recorder,
            lateness,
            counters: LiveCounters::default(),
            stopped: None,
            record_error: None,
            pcap,
            pcap_error: None,
            plan,
            start_ns: 0,
            host_of,
            nodes,
        }
    }

    #[inline]
    fn now(&self) -> Time {
        Time(sys::monotonic_ns().saturating_sub(self.start_ns))
    }

    /// Write the packets that reached live nodes to their devices.
    fn release(&mut self, out: &mut Vec<Outbound>) {
        for o in out.drain(..) {
            let Some(h) = self.host_of[o.node as usize] else {
                continue;
            };
            let ok = sys::write(self.hosts[h].tun_fd(), &o.packet.data).unwrap_or(false);
            let late = self.now().0.saturating_sub(o.at.0);
            if ok {
                self.counters.released += 1;
                self.lateness.push(late);
            } else {
                self.counters.release_refused += 1;
            }
        }
    }

    /// Write what the packet log holds before `now` to the pcap files.
    fn write_pcap(&mut self, world: &mut World, now: Time) {
        let Some(p) = self.pcap.as_mut() else {
            return;
        };
        if let Some(log) = world.take_packet_log_before(now) {
            if let Err(e) = p.write(self.plan, &log) {
                self.pcap_error = Some(e.to_string());
                self.pcap = None;
            }
        }
    }

    /// Take what the hosts wrote and inject it at `now`.
    fn take_in(&mut self, world: &mut World, now: Time, buf: &mut [u8]) {
        for h in 0..self.hosts.len() {
            let fd = self.hosts[h].tun_fd();
            let node = self.hosts[h].node;
            for _ in 0..BATCH {
                let n = match sys::read(fd, buf) {
                    Ok(Some(n)) => n,
                    _ => break,
                };
                self.counters.read += 1;
                let data = &buf[..n];
                let Some(hd) = ip::parse(data) else {
                    self.counters.foreign += 1;
                    continue;
                };
                let Some(to) = node_of_ip(hd.dst, self.nodes) else {
                    self.counters.foreign += 1;
                    continue;
                };
                if let Some(r) = self.recorder.as_mut() {
                    if let Err(e) = r.arrival(now, node, data) {
                        self.record_error = Some(e.to_string());
                        self.recorder = None;
                    }
                }
                let p = ExternalPacket {
                    data: data.to_vec(),
                    kind: hd.kind,
                    seq: hd.seq,
                    retx: false,
                };
                match world.inject(now, node, to, p) {
                    Injected::Sent => self.counters.injected += 1,
                    Injected::Unroutable => self.counters.unroutable += 1,
                }
            }
        }
    }
}

impl Driver for WallClock<'_> {
    fn drive(&mut self, world: &mut World) -> Result<Time, SimError> {
        let outside: Vec<u32> = self.hosts.iter().map(|h| h.node).collect();
        world.set_outside(&outside);
        let mut fds: Vec<libc::pollfd> =
            self.hosts.iter().map(|h| sys::pollfd(h.tun_fd())).collect();
        let mut buf = vec![0u8; 65_536];
        let mut out = Vec::with_capacity(256);
        self.start_ns = sys::monotonic_ns();
        let mut next_check = 0u64;
        let mut next_pcap = PCAP_NS;
        loop {
            let now = self.now();
            let until = now.min(self.end);
            world.step(until, u64::MAX, false)?;
            world.take_outbound(&mut out);
            self.release(&mut out);
            if now >= self.end {
                self.stopped = Some(StopReason::Duration);
                return Ok(self.end);
            }
            self.take_in(world, now, &mut buf);
            world.take_outbound(&mut out);
            self.release(&mut out);
            if now.0 >= next_check {
                next_check = now.0 + CHECK_NS;
                if now.0 >= next_pcap {
                    next_pcap = now.0 + PCAP_NS;
                    self.write_pcap(world, now);
                }
                if let Some(why) = (self.should_stop)() {
                    self.stopped = Some(why);
                    return Ok(now);
                }
                if self.lateness.p99_above_threshold() {
                    self.stopped = Some(StopReason::Lateness);
                    return Ok(now);
                }
            }
            // Sleep until the next event, a host's packet, or the next check.
            let deadline = world
                .next_deadline()
                .unwrap_or(Time::MAX)
                .min(self.end)
                .min(Time(next_check));
            let now = self.now();
            let wait = deadline.0.saturating_sub(now.0);
            if wait == 0 {
                continue;
            }
            for f in fds.iter_mut() {
                f.revents = 0;
            }
            let timeout = if wait < SPIN_NS { 0 } else { wait };
            sys::wait_readable(&mut fds, Some(timeout)).map_err(|e| SimError::Live {
                detail: format!("waiting for the hosts' devices: {e}"),
            })?;
        }
    }
}
