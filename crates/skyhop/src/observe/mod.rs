//! Observers: time series recorded only when a run asks for traces, the
//! per-packet event log ([`PacketLog`]; its table and pcap export, which
//! need the plan's names, are in `crate::export`).

mod packet_log;

use crate::engine::time::Time;
pub use packet_log::{ConnLabel, PacketEvent, PacketEventKind, PacketLog, PacketLogOptions};
use serde::{Deserialize, Serialize};

/// Per-leg sender trace: one row per change-worthy event.
#[derive(Clone, Debug, Default)]
pub struct SenderTrace {
    pub t: Vec<f64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    pub srtt: Vec<f64>,
    pub flight: Vec<f64>,
    pub rwnd: Vec<f64>,
    /// The controller's rate estimate (Westwood ERE / BWE), bit/s; NaN if none.
    pub rate: Vec<f64>,
}

impl SenderTrace {
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        now: Time,
        cwnd: u64,
        ssthresh: u64,
        srtt_s: f64,
        flight: u64,
        rwnd: u64,
        rate: Option<f64>,
    ) {
        // Skip rows identical to the last one apart from time.
        if let Some(&c) = self.cwnd.last() {
            let n = self.cwnd.len() - 1;
            if c == cwnd as f64
                && self.ssthresh[n] == ssthresh as f64
                && self.flight[n] == flight as f64
                && self.rwnd[n] == rwnd as f64
                && self.srtt[n] == srtt_s
            {
                return;
            }
        }
        self.t.push(now.as_secs_f64());
        self.cwnd.push(cwnd as f64);
        self.ssthresh.push(if ssthresh > u64::MAX / 8 {
            f64::NAN
        } else {
            ssthresh as f64
        });
        self.srtt.push(srtt_s);
        self.flight.push(flight as f64);
        self.rwnd.push(rwnd as f64);
        self.rate.push(rate.unwrap_or(f64::NAN));
    }

    /// Split into named series `<prefix>.<quantity>`.
    pub fn into_series(self, prefix: &str) -> Vec<(String, Series)> {
        let t = self.t;
        [
            ("cwnd", self.cwnd),
            ("ssthresh", self.ssthresh),
            ("srtt", self.srtt),
            ("flight", self.flight),
            ("rwnd", self.rwnd),
            ("rate_estimate", self.rate),
        ]
        .into_iter()
        .map(|(q, v)| {
            (
                format!("{prefix}.{q}"),
                Series {
                    t_s: t.clone(),
                    value: v,
                },
            )
        })
        .collect()
    }
}

/// A single-valued series.
#[derive(Clone, Debug, Default)]
pub struct ValueTrace {
    pub t: Vec<f64>,
    pub v: Vec<f64>,
}

impl ValueTrace {
    pub fn push(&mut self, now: Time, v: f64) {
        if self.v.last() == Some(&v) {
            return;
        }
        self.t.push(now.as_secs_f64());
        self.v.push(v);
    }
    pub fn into_series(self) -> Series {
        Series {
            t_s: self.t,
            value: self.v,
        }
    }
}

/// A named time series: `t_s` and `value` columns of equal length.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Series {
    pub t_s: Vec<f64>,
    pub value: Vec<f64>,
}
