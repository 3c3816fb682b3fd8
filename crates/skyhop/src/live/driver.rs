//! The wall-clock driver: the world's time is the time elapsed since the
//! run began. Each turn of its loop takes the clock, runs every event due
//! by then, writes the packets that reached live nodes to those nodes'
//! devices (measuring how late each is; consecutive segments of a TCP
//! stream merged into one write, `gro.rs`), takes what the hosts the last
//! look found ready wrote (a TSO super-packet cut into the packets of the
//! wire, `gso.rs`) and injects it at their nodes, and then looks at the
//! devices once (`ppoll`), sleeping until the next event is due or a host
//! writes.

use super::gro;
use super::gso::{self, VnetHdr, VNET_HDR_LEN};
use super::host::Host;
use super::ip;
use super::lateness::Lateness;
use super::record::Recorder;
use super::sys;
use crate::engine::{Dur, Time};
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
    /// Packets read from the hosts' devices, as the wire carries them
    /// (a TSO super-packet counts as the segments it was cut into).
    pub read: u64,
    /// Of those, IPv4 packets for a node's address, injected.
    pub injected: u64,
    /// Not IPv4, not for a node's address, or a super-packet that could
    /// not be cut (not carried).
    pub foreign: u64,
    /// For a node with no route from the host's node (not carried).
    pub unroutable: u64,
    /// Written to the hosts' devices.
    pub released: u64,
    /// Refused by a host's device (its queue full).
    pub release_refused: u64,
    /// Reads that returned a packet or super-packet.
    pub device_reads: u64,
    /// Of those, TSO super-packets cut into more than one packet.
    pub super_packets_read: u64,
    /// Writes to the hosts' devices (one per packet or merged group).
    pub device_writes: u64,
    /// Of those, groups of segments written as one super-packet.
    pub merged_writes: u64,
    /// Times the engine's thread waited (each wait a sleep: a timer armed
    /// unless the wait is for a device only).
    pub waits: u64,
    /// Of those, waits ended by their timer (no device readable): the
    /// engine woke for an event of its own.
    pub waits_timed_out: u64,
}

/// A loop over a world joined to live hosts.
pub(super) struct WallClock<'a> {
    pub hosts: &'a [Host],
    /// Stop at this simulated (= elapsed) time.
    pub end: Time,
    /// Asked every few milliseconds: stop now, and why.
    pub should_stop: &'a mut dyn FnMut() -> Option<StopReason>,
    pub recorder: Option<Recorder>,
    pub lateness: Lateness,
    pub counters: LiveCounters,
    pub stopped: Option<StopReason>,
    /// Sleep this long past the next event (`LiveOptions::wake_window`).
    pub wake_window: Dur,
    /// The largest share of a second of wall time the engine's thread
    /// spent running (user + system), over the run's whole seconds.
    pub busiest_second: f64,
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
    /// The packets of this turn for each host, in the order they arrived.
    pending: Vec<Vec<Outbound>>,
    /// Where merged headers and cut segments are built.
    header: Vec<u8>,
    scratch: Vec<u8>,
}

/// How often the stop condition is asked.
const CHECK_NS: u64 = 5_000_000;
/// How often the packet log is written to the pcap files.
const PCAP_NS: u64 = 200_000_000;
/// At most this many reads, or this many bytes, are taken from one host
/// per turn (the others and the events are not starved; a turn stays
/// short enough to release the next packets on time).
const BATCH: usize = 64;
const BATCH_BYTES: usize = 64 * 1024;
/// A read buffer larger than any packet a device hands over (a 64 kB
/// super-packet behind its virtio-net header).
const READ_BUF: usize = 1 << 17;
/// The virtio-net header of a packet written as it is (no offload: the
/// host's stack checks its checksums).
const PLAIN: [u8; VNET_HDR_LEN] = [0; VNET_HDR_LEN];

impl<'a> WallClock<'a> {
    pub(super) fn new(
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
            wake_window: Dur::ZERO,
            busiest_second: 0.0,
            record_error: None,
            pcap,
            pcap_error: None,
            plan,
            start_ns: 0,
            host_of,
            nodes,
            pending: hosts.iter().map(|_| Vec::new()).collect(),
            header: Vec::with_capacity(128),
            scratch: Vec::with_capacity(2048),
        }
    }

    #[inline]
    fn now(&self) -> Time {
        Time(sys::monotonic_ns().saturating_sub(self.start_ns))
    }

    /// Write the packets that reached live nodes to their devices: for
    /// each host in the order they arrived, consecutive segments of one
    /// TCP stream merged into one super-packet where its device takes them.
    fn release(&mut self, out: &mut Vec<Outbound>) {
        if out.is_empty() {
            return;
        }
        for o in out.drain(..) {
            if let Some(h) = self.host_of[o.node as usize] {
                self.pending[h].push(o);
            }
        }
        for h in 0..self.hosts.len() {
            if self.pending[h].is_empty() {
                continue;
            }
            let v = std::mem::take(&mut self.pending[h]);
            let merge = self.hosts[h].tso;
            let mut i = 0;
            while i < v.len() {
                let first = &v[i].packet.data;
                let mut j = i + 1;
                if merge {
                    if let Some((hl, _)) = gro::mergeable(first) {
                        let mut total = first.len();
                        while j < v.len()
                            && gro::continues(
                                first,
                                &v[j - 1].packet.data,
                                j - i,
                                total,
                                &v[j].packet.data,
                            )
                        {
                            total += v[j].packet.data.len() - hl;
                            j += 1;
                        }
                    }
                }
                self.write_group(h, &v[i..j]);
                i = j;
            }
            let mut v = v;
            v.clear();
            self.pending[h] = v;
        }
    }

    /// Write `group` (one packet, or segments [`gro::continues`] joined)
    /// to host `h`'s device, and note each packet's lateness.
    fn write_group(&mut self, h: usize, group: &[Outbound]) {
        let fd = self.hosts[h].tun_fd();
        let ok = if group.len() == 1 {
            sys::writev(fd, &[&PLAIN, &group[0].packet.data])
        } else {
            let segs: Vec<&[u8]> = group.iter().map(|o| o.packet.data.as_slice()).collect();
            gro::header(&segs, &mut self.header);
            let hl = self.header.len() - VNET_HDR_LEN;
            let mut parts: Vec<&[u8]> = Vec::with_capacity(group.len() + 1);
            parts.push(&self.header);
            parts.extend(segs.iter().map(|s| &s[hl..]));
            sys::writev(fd, &parts)
        }
        .unwrap_or(false);
        let now = self.now().0;
        if ok {
            self.counters.device_writes += 1;
            self.counters.merged_writes += (group.len() > 1) as u64;
            self.counters.released += group.len() as u64;
            for o in group {
                self.lateness.push(now.saturating_sub(o.at.0));
            }
        } else {
            self.counters.release_refused += group.len() as u64;
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

    /// Take what the hosts found ready (`fds`' `revents`) wrote, and
    /// inject it at `now`: each packet as the wire carries it.
    fn take_in(&mut self, world: &mut World, now: Time, buf: &mut [u8], fds: &[libc::pollfd]) {
        let mut scratch = std::mem::take(&mut self.scratch);
        for (h, f) in fds.iter().enumerate() {
            if f.revents & libc::POLLIN == 0 {
                continue;
            }
            let fd = self.hosts[h].tun_fd();
            let node = self.hosts[h].node;
            let mut bytes = 0;
            for _ in 0..BATCH {
                let n = match sys::read(fd, buf) {
                    Ok(Some(n)) => n,
                    _ => break,
                };
                self.counters.device_reads += 1;
                bytes += n;
                let Some(vh) = VnetHdr::parse(&buf[..n]) else {
                    self.counters.foreign += 1;
                    continue;
                };
                let packet = &mut buf[VNET_HDR_LEN..n];
                match gso::segment(&vh, packet, &mut scratch, |p| {
                    self.inject_one(world, now, node, p)
                }) {
                    Ok(k) => self.counters.super_packets_read += (k > 1) as u64,
                    Err(_) => self.counters.foreign += 1,
                }
                if bytes >= BATCH_BYTES {
                    break;
                }
            }
        }
        self.scratch = scratch;
    }

    /// One packet from node `node`'s host enters the world at `now`.
    fn inject_one(&mut self, world: &mut World, now: Time, node: u32, data: &[u8]) {
        self.counters.read += 1;
        let Some(hd) = ip::parse(data) else {
            self.counters.foreign += 1;
            return;
        };
        let Some(to) = node_of_ip(hd.dst, self.nodes) else {
            self.counters.foreign += 1;
            return;
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

impl Driver for WallClock<'_> {
    fn drive(&mut self, world: &mut World) -> Result<Time, SimError> {
        let outside: Vec<u32> = self.hosts.iter().map(|h| h.node).collect();
        world.set_outside(&outside);
        let mut fds: Vec<libc::pollfd> =
            self.hosts.iter().map(|h| sys::pollfd(h.tun_fd())).collect();
        let mut buf = vec![0u8; READ_BUF];
        let mut out = Vec::with_capacity(256);
        // The first turn reads every device.
        for f in fds.iter_mut() {
            f.revents = libc::POLLIN;
        }
        self.start_ns = sys::monotonic_ns();
        let mut next_check = 0u64;
        let mut next_pcap = PCAP_NS;
        // Where the current second of the thread's CPU time began: (when,
        // CPU seconds used then).
        let mut second = (0u64, sys::thread_cpu_s());
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
            self.take_in(world, now, &mut buf, &fds);
            world.take_outbound(&mut out);
            self.release(&mut out);
            if now.0 >= next_check {
                next_check = now.0 + CHECK_NS;
                if now.0 - second.0 >= 1_000_000_000 {
                    // How busy the thread was over the last second or so.
                    let cpu = sys::thread_cpu_s();
                    let wall = (now.0 - second.0) as f64 / 1e9;
                    self.busiest_second = self.busiest_second.max((cpu - second.1) / wall);
                    second = (now.0, cpu);
                }
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
            // One look at the devices; asleep until the next event, a
            // host's packet, or the next check. Every wait is a sleep, however
            // short: a thread that looks without pause takes its CPU from the
            // hosts and, under SCHED_FIFO, is stopped by the kernel's
            // real-time throttling for 50 ms of each second it stays busy
            // (docs/live.md, "Speed": measured against looking through waits
            // under 20 µs).
            let deadline = world
                .next_deadline()
                .map_or(Time::MAX, |d| Time(d.0.saturating_add(self.wake_window.0)))
                .min(self.end)
                .min(Time(next_check));
            let wait = deadline.0.saturating_sub(self.now().0);
            for f in fds.iter_mut() {
                f.revents = 0;
            }
            let readable =
                sys::wait_readable(&mut fds, Some(wait)).map_err(|e| SimError::Live {
                    detail: format!("waiting for the hosts' devices: {e}"),
                })?;
            self.counters.waits += 1;
            self.counters.waits_timed_out += u64::from(!readable);
        }
    }
}
