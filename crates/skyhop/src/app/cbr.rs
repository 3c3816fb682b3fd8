//! A constant-rate probe, like iperf in UDP mode (`app = "cbr"`, the table
//! `flows.<id>.cbr`): datagrams of `packet` bytes (on the wire) every
//! `packet · 8 / rate` seconds from the flow's start until the run stops,
//! with no congestion control and no retransmission. The engine carries
//! them as datagrams along the flow's path and reports, per flow, datagrams
//! sent, received and lost, the loss rate and the one-way delay (mean, max).

use super::{AppBounds, AppIo, AppSection, AppSpecOps, Application, FlowShape, RunShape};
use crate::engine::time::Time;
use crate::units::{Rate, Size};
use serde::{Deserialize, Serialize};

/// `flows.<id>.cbr`: the probe's rate and datagram size.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrSection {
    /// Sending rate (required), e.g. "1 Mbps".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Datagram size on the wire (headers included). Default 1500 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet: Option<Size>,
}

/// Datagrams of `packet_bytes` at `rate_bps` until the run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CbrSpec {
    pub rate_bps: u64,
    pub packet_bytes: u32,
}

impl AppSection for CbrSection {
    type Spec = CbrSpec;

    fn validate(&self) -> Result<(), (String, String)> {
        if self.rate.is_none() {
            return Err((
                "rate".into(),
                "missing: a cbr probe needs a rate, e.g. cbr = { rate = \"1 Mbps\" }".into(),
            ));
        }
        match self.packet {
            Some(p) if p.0 == 0 || p.0 > 65_535 => Err((
                "packet".into(),
                format!("{} B must be between 1 B and 65535 B", p.0),
            )),
            _ => Ok(()),
        }
    }

    fn resolve(&self, flow: &FlowShape) -> Result<(CbrSpec, Vec<String>), (String, String)> {
        if flow.size.is_some() {
            return Err((
                "size".into(),
                "a cbr probe sends until the run stops; leave size out".into(),
            ));
        }
        if flow.proxies > 0 {
            return Err((
                "proxies".into(),
                "a cbr probe carries datagrams end to end; it takes no split proxies".into(),
            ));
        }
        let spec = CbrSpec {
            rate_bps: self.rate.expect("checked: a cbr probe has a rate").0,
            packet_bytes: self.packet.map_or(1500, |p| p.0 as u32),
        };
        Ok((spec, Vec::new()))
    }
}

impl AppSpecOps for CbrSpec {
    type Built = Cbr;
    fn build(&self, _seed: u64, _flow: &str) -> Cbr {
        Cbr::new(self.rate_bps, self.packet_bytes)
    }
    fn finite(&self) -> bool {
        false
    }
    fn describe(&self) -> String {
        format!(
            "cbr probe, {} bit/s in {} B datagrams",
            self.rate_bps, self.packet_bytes
        )
    }
    fn opens_stream_at_start(&self) -> bool {
        false
    }
    fn datagrams(&self) -> bool {
        true
    }
    fn bounds(&self, _run: &RunShape) -> AppBounds {
        AppBounds {
            datagrams: Some((self.rate_bps, self.packet_bytes)),
            ..AppBounds::default()
        }
    }
}

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
