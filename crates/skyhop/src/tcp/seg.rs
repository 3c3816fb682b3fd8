//! What TCP state machines exchange: data segments and acknowledgements.
//! Metadata only; no payload bytes.

use crate::engine::time::Time;

/// At most this many SACK blocks fit in one ACK (RFC 2018 with timestamps off: 4;
/// the studies use 3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A data segment: bytes `[seq, seq + len)` of the connection's stream.
///
/// A segment of length 0 is the SYN of the optional three-way handshake
/// (`DataSeg::syn`): header only, and it takes no sequence space here (the
/// first data byte is 0 either way). No other segment is ever empty: data
/// segments carry at least one byte, window probes exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataSeg {
    pub seq: u64,
    pub len: u32,
    /// Sent before (a retransmission or go-back-N resend).
    pub retx: bool,
    /// A zero-window probe.
    pub probe: bool,
    /// RFC 7323 TSval: the sender's clock when it sent the segment (the
    /// simulation time; echoed only when the connection uses timestamps).
    pub ts: Time,
}

impl DataSeg {
    /// A copy read field by field, each load the size of the store that
    /// wrote the field. Read back right after the sender wrote it, a
    /// segment copied in wider loads spans several of those stores: the
    /// processor cannot forward them and the load waits until every older
    /// store has reached the cache, cold per-connection lines included.
    #[inline(always)]
    pub fn read_fields(s: &DataSeg) -> DataSeg {
        // SAFETY: each pointer comes from a reference to an initialised field.
        unsafe {
            DataSeg {
                seq: std::ptr::read_volatile(&s.seq),
                len: std::ptr::read_volatile(&s.len),
                retx: std::ptr::read_volatile(&s.retx),
                probe: std::ptr::read_volatile(&s.probe),
                ts: std::ptr::read_volatile(&s.ts),
            }
        }
    }

    #[inline]
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }

    /// The handshake's SYN (`retx`: a retransmission of it), sent at `ts`.
    #[inline]
    pub fn syn(retx: bool, ts: Time) -> DataSeg {
        DataSeg {
            seq: 0,
            len: 0,
            retx,
            probe: false,
            ts,
        }
    }

    /// This segment is a SYN.
    #[inline]
    pub fn is_syn(&self) -> bool {
        self.len == 0 && !self.probe
    }
}

/// SACK blocks `[start, end)`, most recent first (RFC 2018 section 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    n: u8,
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    pub fn push(&mut self, start: u64, end: u64) {
        if (self.n as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.n as usize] = (start, end);
            self.n += 1;
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.n as usize
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.n as usize]
    }
    /// The block array as stored (entries past `len()` unused).
    #[inline(always)]
    pub fn blocks(&self) -> [(u64, u64); MAX_SACK_BLOCKS] {
        self.blocks
    }
    /// `n` blocks from an array `blocks` gave.
    #[inline(always)]
    pub fn from_blocks(n: u8, blocks: [(u64, u64); MAX_SACK_BLOCKS]) -> SackBlocks {
        debug_assert!(n as usize <= MAX_SACK_BLOCKS);
        SackBlocks { n, blocks }
    }
    pub fn from_slice(b: &[(u64, u64)]) -> SackBlocks {
        let mut s = SackBlocks::default();
        for &(a, e) in b {
            s.push(a, e);
        }
        s
    }
}

/// A cumulative acknowledgement with the advertised window and SACK blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckSeg {
    /// Next byte expected.
    pub ack: u64,
    /// Advertised receive window in bytes (window scaling assumed: not capped at 64 KiB).
    pub wnd: u64,
    pub sack: SackBlocks,
    /// A pure window update (not caused by a data arrival). The SYN-ACK sets
    /// it too (`AckSeg::syn_ack`): like a window update, it carries the
    /// receiver's window and is never a duplicate ACK.
    pub window_update: bool,
    /// RFC 7323 TSecr: the TSval the receiver echoes (`None` without
    /// timestamps).
    pub tsecr: Option<Time>,
}

impl AckSeg {
    /// The handshake's SYN-ACK: acknowledges the SYN (ack 0: the SYN takes no
    /// sequence space) and advertises the window `wnd`; header only.
    #[inline]
    pub fn syn_ack(wnd: u64, tsecr: Option<Time>) -> AckSeg {
        AckSeg {
            ack: 0,
            wnd,
            sack: SackBlocks::default(),
            window_update: true,
            tsecr,
        }
    }
}
