//! A sender under test, fed ACKs by hand; outputs printed as trace tokens.

use crate::engine::time::{Dur, Time};
use crate::tcp::{AckSeg, DataSeg, SackBlocks, TcpConfig, TcpSender, Variant};

/// The MSS of every test connection: 1000 bytes, so segment k is [1000k, 1000k+1000).
pub const MSS: u64 = 1000;
/// A receive window that never limits (bytes).
pub const BIG_WND: u64 = 1 << 30;
/// An application with unlimited data.
pub const UNLIMITED: u64 = u64::MAX;

/// Milliseconds since the start of the test, as simulated time.
pub fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

/// The defaults of `TcpConfig` with a 1000-byte MSS and the named variant.
pub fn cfg(variant: &str) -> TcpConfig {
    TcpConfig {
        variant: Variant::parse(variant).expect("known variant"),
        mss: MSS as u32,
        ..TcpConfig::default()
    }
}

/// Trace tokens: `7` (new), `R7` (retransmitted), `P[4000+1]` (probe);
/// segments that are not one whole MSS-aligned segment print as `[seq+len]`.
pub fn show(segs: &[DataSeg]) -> String {
    segs.iter()
        .map(|d| {
            let tag = if d.probe {
                "P"
            } else if d.retx {
                "R"
            } else {
                ""
            };
            if d.seq % MSS == 0 && d.len as u64 == MSS {
                format!("{tag}{}", d.seq / MSS)
            } else {
                format!("{tag}[{}+{}]", d.seq, d.len)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub struct H {
    pub s: TcpSender,
    pub now: Time,
}

impl H {
    pub fn new(cfg: TcpConfig) -> H {
        H {
            s: crate::tcp::new_sender(cfg),
            now: Time::ZERO,
        }
    }

    /// Move the clock to `t_ms` (never backwards).
    pub fn at(&mut self, t_ms: u64) -> &mut H {
        let t = ms(t_ms);
        assert!(t >= self.now, "the test clock went backwards");
        self.now = t;
        self
    }

    /// Give the RTT estimator `n` samples of `rtt_ms`, as if the connection
    /// had run at that round-trip time for a while (so RTO = max(min RTO,
    /// SRTT + 4 RTTVAR) has converged).
    pub fn prime_rtt(&mut self, rtt_ms: u64, n: usize) -> &mut H {
        for _ in 0..n {
            self.s.core.rtt.sample(Dur::from_millis(rtt_ms));
        }
        self
    }

    pub fn app(&mut self, bytes: u64) -> String {
        let mut out = Vec::new();
        self.s.add_app_data(self.now, bytes, &mut out);
        show(&out)
    }

    /// Any ACK segment.
    pub fn ack_seg(&mut self, a: AckSeg) -> String {
        let mut out = Vec::new();
        self.s.on_ack(self.now, &a, &mut out);
        show(&out)
    }

    /// A cumulative ACK of segments [0, seg), large window, no SACK.
    pub fn ack(&mut self, seg: u64) -> String {
        self.ack_seg(AckSeg {
            ack: seg * MSS,
            wnd: BIG_WND,
            sack: SackBlocks::default(),
            window_update: false,
            tsecr: None,
        })
    }

    /// A cumulative ACK of segments [0, seg) with SACK blocks in segments
    /// (`(3, 5)` = bytes [3000, 5000)), most recent first.
    pub fn sack(&mut self, seg: u64, blocks: &[(u64, u64)]) -> String {
        let b: Vec<(u64, u64)> = blocks.iter().map(|&(s, e)| (s * MSS, e * MSS)).collect();
        self.sack_bytes(seg * MSS, &b)
    }

    /// The same with byte offsets.
    pub fn sack_bytes(&mut self, ack: u64, blocks: &[(u64, u64)]) -> String {
        self.ack_seg(AckSeg {
            ack,
            wnd: BIG_WND,
            sack: SackBlocks::from_slice(blocks),
            window_update: false,
            tsecr: None,
        })
    }

    /// A cumulative ACK of segments [0, seg) echoing the TSval `ts_ms`
    /// (RFC 7323), with SACK blocks in segments.
    pub fn ack_ts(&mut self, seg: u64, blocks: &[(u64, u64)], ts_ms: u64) -> String {
        let b: Vec<(u64, u64)> = blocks.iter().map(|&(s, e)| (s * MSS, e * MSS)).collect();
        self.ack_seg(AckSeg {
            ack: seg * MSS,
            wnd: BIG_WND,
            sack: SackBlocks::from_slice(&b),
            window_update: false,
            tsecr: Some(ms(ts_ms)),
        })
    }

    /// A cumulative ACK (bytes) advertising window `wnd`.
    pub fn ack_wnd(&mut self, ack: u64, wnd: u64) -> String {
        self.ack_seg(AckSeg {
            ack,
            wnd,
            sack: SackBlocks::default(),
            window_update: false,
            tsecr: None,
        })
    }

    /// The sender's timer, which must be due exactly now.
    pub fn timer(&mut self) -> String {
        assert_eq!(
            self.s.poll_at(),
            Some(self.now),
            "the sender's timer is not due at {}",
            self.now
        );
        let mut out = Vec::new();
        self.s.on_timer(self.now, &mut out);
        show(&out)
    }

    pub fn cwnd(&self) -> u64 {
        self.s.cwnd()
    }
    pub fn ssthresh(&self) -> u64 {
        self.s.ssthresh()
    }
    /// When the sender next needs a timer call, in ms.
    pub fn poll_ms(&self) -> Option<u64> {
        self.s.poll_at().map(|t| {
            assert_eq!(t.0 % 1_000_000, 0, "timer at a fractional ms: {t}");
            t.0 / 1_000_000
        })
    }
}

/// An ACK in trace form: `ack 2000 wnd 3000 sack [6000,7000) [3000,5000)`;
/// `update` marks a pure window update.
pub fn show_ack(a: &AckSeg) -> String {
    let mut s = format!("ack {} wnd {}", a.ack, a.wnd);
    if !a.sack.is_empty() {
        s.push_str(" sack");
        for &(b, e) in a.sack.as_slice() {
            s.push_str(&format!(" [{b},{e})"));
        }
    }
    if let Some(t) = a.tsecr {
        s.push_str(&format!(" ts {}", t.0 / 1_000_000));
    }
    if a.window_update {
        s.push_str(" update");
    }
    s
}

pub fn show_acks(acks: &[AckSeg]) -> String {
    acks.iter().map(show_ack).collect::<Vec<_>>().join("; ")
}

/// A receiver under test: segments in, ACKs out (printed).
pub struct Rx {
    pub r: crate::tcp::TcpReceiver,
}

impl Rx {
    /// `buffer` bytes, MSS 1000, `sack_blocks` (0 = no SACK), delayed ACKs
    /// with a 200 ms timeout when `delayed`.
    pub fn new(buffer: u64, sack_blocks: u32, delayed: bool) -> Rx {
        Rx {
            r: crate::tcp::TcpReceiver::new(
                buffer,
                MSS as u32,
                sack_blocks,
                delayed,
                Dur::from_millis(200),
            ),
        }
    }

    /// Whole segment `k`, sent at `ts_ms` (its TSval), arrives at `t_ms`.
    pub fn seg_ts(&mut self, t_ms: u64, k: u64, ts_ms: u64) -> String {
        self.data(
            t_ms,
            DataSeg {
                seq: k * MSS,
                len: MSS as u32,
                retx: false,
                probe: false,
                ts: ms(ts_ms),
            },
        )
    }

    /// Whole segment `k` (bytes [1000k, 1000k + 1000)) arrives at `t_ms`.
    pub fn seg(&mut self, t_ms: u64, k: u64) -> String {
        self.data(
            t_ms,
            DataSeg {
                seq: k * MSS,
                len: MSS as u32,
                retx: false,
                probe: false,
                ts: crate::engine::time::Time::ZERO,
            },
        )
    }

    pub fn data(&mut self, t_ms: u64, d: DataSeg) -> String {
        let mut acks = Vec::new();
        self.r.on_segment(ms(t_ms), &d, &mut acks);
        show_acks(&acks)
    }

    /// Like `data`, returning the ACKs themselves (to feed a sender).
    pub fn data_acks(&mut self, t_ms: u64, d: &DataSeg) -> Vec<AckSeg> {
        let mut acks = Vec::new();
        self.r.on_segment(ms(t_ms), d, &mut acks);
        acks
    }

    pub fn timer(&mut self, t_ms: u64) -> String {
        let mut acks = Vec::new();
        self.r.on_timer(ms(t_ms), &mut acks);
        show_acks(&acks)
    }
}
