//! A live host: a node of the scenario made real, as its own Linux network
//! namespace holding one TUN device (`sky0`) with the node's address. The
//! address's /8 prefix routes every other node's address through the
//! device, that is, into the engine; nothing else is reachable (the
//! namespace has only `lo` and `sky0`), so a live run's traffic never
//! leaves the namespaces it made.
//!
//! The namespace lives as long as its descriptor (held here) or a process
//! in it; dropping the host and ending its processes removes both the
//! namespace and the device.

use super::sys;
use crate::net::addr::node_ip;
use serde::Serialize;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// The TUN device's name inside every host's namespace.
pub(super) const DEVICE: &str = "sky0";
/// The device's MTU: the simulated networks' 1500-byte IP packets.
pub(super) const MTU: u32 = 1500;

/// Kernel TCP settings a host runs with, read in its namespace.
pub(super) const SYSCTLS: &[&str] = &[
    "net/ipv4/tcp_congestion_control",
    "net/ipv4/tcp_sack",
    "net/ipv4/tcp_timestamps",
    "net/ipv4/tcp_window_scaling",
    "net/ipv4/tcp_rmem",
    "net/ipv4/tcp_wmem",
    "net/ipv4/tcp_no_metrics_save",
    "net/ipv4/tcp_slow_start_after_idle",
    "net/ipv4/tcp_recovery",
    "net/ipv4/tcp_early_retrans",
    "net/ipv4/tcp_frto",
    "net/core/default_qdisc",
    "net/ipv4/ip_forward",
];

/// What the set-up thread makes: the namespace, the device (and what it
/// offloads), the settings read.
type Made = (
    OwnedFd,
    (OwnedFd, sys::TunOffloads),
    Vec<(String, String)>,
    Option<String>,
);

/// A real host standing for one node.
pub(super) struct Host {
    pub node: u32,
    pub name: String,
    pub ip: [u8; 4],
    ns: OwnedFd,
    tun: OwnedFd,
    /// The device takes and hands over TSO super-packets.
    pub tso: bool,
    /// The kernel settings read in the namespace (name, value).
    pub sysctls: Vec<(String, String)>,
    /// Why the receive processing could not be steered, if it was asked.
    pub steer_error: Option<String>,
}

/// What the run document says of a host.
#[derive(Clone, Debug, Serialize)]
pub struct HostInfo {
    pub node: String,
    pub address: String,
    pub device: &'static str,
    pub mtu: u32,
    /// Checksum and TCP segmentation offloads on the device (the host's
    /// stack passes 64 kB super-packets; the engine cuts them into MTU-sized
    /// packets and merges what it releases, as a NIC's TSO and GRO would).
    pub tso: bool,
    pub sysctl: std::collections::BTreeMap<String, String>,
}

impl Host {
    /// Make the host of node `node` (index `index`): a new namespace with
    /// its TUN device configured; with `steer`, the device's receive
    /// processing steered to that CPU mask (`sys::steer_receive`). Done on a
    /// thread of its own, so the caller's namespaces do not change.
    pub(super) fn create(index: u32, name: &str, steer: Option<&str>) -> io::Result<Host> {
        let ip = node_ip(index);
        let (ns, tun, sysctls, steer_error) = std::thread::scope(|s| {
            s.spawn(move || -> io::Result<Made> {
                let ns = sys::new_netns()?;
                let tun = sys::tun(DEVICE)?;
                // No IPv6 on the device: the engine carries IPv4 only.
                let _ = std::fs::write(
                    format!("/proc/sys/net/ipv6/conf/{DEVICE}/disable_ipv6"),
                    "1",
                );
                // A live node on the path between two others forwards
                // their packets (a router), back out through the device
                // they came in by: no ICMP redirects for that.
                for (k, v) in [
                    ("net/ipv4/ip_forward", "1"),
                    ("net/ipv4/conf/all/send_redirects", "0"),
                    ("net/ipv4/conf/default/send_redirects", "0"),
                ] {
                    let _ = std::fs::write(format!("/proc/sys/{k}"), v);
                }
                sys::configure(DEVICE, ip, 8, MTU)?;
                let _ = std::fs::write(
                    format!("/proc/sys/net/ipv4/conf/{DEVICE}/send_redirects"),
                    "0",
                );
                let sysctls = SYSCTLS
                    .iter()
                    .filter_map(|k| {
                        let v = std::fs::read_to_string(format!("/proc/sys/{k}")).ok()?;
                        Some((k.replace('/', "."), v.trim().replace('\t', " ")))
                    })
                    .collect();
                // Last: it gives this thread a mount namespace of its own.
                let steer_error = steer.and_then(|mask| {
                    sys::steer_receive(DEVICE, mask)
                        .err()
                        .map(|e| format!("receive steering refused: {e}"))
                });
                Ok((ns, tun, sysctls, steer_error))
            })
            .join()
            .expect("host set-up thread")
        })?;
        let (tun, offloads) = tun;
        Ok(Host {
            node: index,
            name: name.to_string(),
            ip,
            ns,
            tun,
            tso: offloads.tso,
            sysctls,
            steer_error,
        })
    }

    pub(super) fn tun_fd(&self) -> RawFd {
        self.tun.as_raw_fd()
    }

    pub(super) fn ns_fd(&self) -> RawFd {
        self.ns.as_raw_fd()
    }

    /// The namespace's inode: identifies the processes inside it.
    pub(super) fn ns_inode(&self) -> io::Result<u64> {
        sys::inode(self.ns.as_raw_fd())
    }

    pub(super) fn address(&self) -> String {
        let [a, b, c, d] = self.ip;
        format!("{a}.{b}.{c}.{d}")
    }

    pub(super) fn info(&self) -> HostInfo {
        HostInfo {
            node: self.name.clone(),
            address: self.address(),
            device: DEVICE,
            mtu: MTU,
            tso: self.tso,
            sysctl: self.sysctls.iter().cloned().collect(),
        }
    }
}
