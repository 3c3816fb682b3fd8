//! What TCP state machines exchange: data segments and acknowledgements.
//! Metadata only; no payload bytes.

/// At most this many SACK blocks fit in one ACK (RFC 2018 with timestamps off: 4;
/// the studies and SPEC use 3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A data segment: bytes `[seq, seq + len)` of the connection's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataSeg {
    pub seq: u64,
    pub len: u32,
    /// Sent before (a retransmission or go-back-N resend).
    pub retx: bool,
    /// A zero-window probe.
    pub probe: bool,
}

impl DataSeg {
    #[inline]
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
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
    /// A pure window update (not caused by a data arrival).
    pub window_update: bool,
}
