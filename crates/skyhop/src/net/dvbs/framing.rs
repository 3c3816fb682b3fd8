//! DVB-S framing: IP packets (TCP segments) carried as 188-byte MPEG2-TS
//! frames. A packet of `b` bytes takes `ceil(b / 188)` frames (a 1504-byte
//! segment, 8 frames). Each frame carries a sequence number (SN) and the
//! begin/end-of-segment marks (BoS, EoS) of the SR-ARQ header; the CRC field
//! is what lets the receiver discard a corrupted frame, which the simulator
//! models as the frame not arriving.
//!
//! SN, BoS, EoS and CRC are 16-bit fields on the wire; the window of the
//! SR-ARQ (a few hundred frames) is far below 2^15, so the simulator keeps
//! SNs as unwrapped `u64` without changing any comparison the wire format
//! allows.

/// Payload bytes of one MPEG2-TS frame (the information a frame carries at
/// the information bit rate).
pub const TS_FRAME_BYTES: u32 = 188;

/// Frames needed to carry a packet of `bytes` bytes (at least one).
#[inline]
pub fn frames_for(bytes: u32) -> u32 {
    bytes.div_ceil(TS_FRAME_BYTES).max(1)
}

/// Begin-of-segment mark.
pub const BOS: u8 = 1;
/// End-of-segment mark.
pub const EOS: u8 = 2;

/// One frame as the receiver sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub sn: u64,
    /// `BOS` and/or `EOS`.
    pub marks: u8,
}

impl Frame {
    #[inline]
    pub fn bos(&self) -> bool {
        self.marks & BOS != 0
    }
    #[inline]
    pub fn eos(&self) -> bool {
        self.marks & EOS != 0
    }
}

/// The marks of frame `i` (from 0) of a segment of `n` frames.
#[inline]
pub fn marks(i: u32, n: u32) -> u8 {
    (if i == 0 { BOS } else { 0 }) | (if i + 1 == n { EOS } else { 0 })
}

/// Probability that a segment of `n` frames is hit when each frame is lost
/// independently with `fer`: 1 − (1 − FER)^n (≈ n·FER for small FER).
pub fn segment_error_rate(fer: f64, n: u32) -> f64 {
    1.0 - (1.0 - fer).powi(n as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1504_byte_segment_is_eight_frames() {
        assert_eq!(frames_for(1504), 8);
        assert_eq!(frames_for(1500), 8);
        assert_eq!(frames_for(1505), 9);
        assert_eq!(frames_for(188), 1);
        assert_eq!(frames_for(40), 1);
        assert_eq!(frames_for(0), 1);
    }

    #[test]
    fn marks_name_the_first_and_last_frames() {
        let m: Vec<u8> = (0..3).map(|i| marks(i, 3)).collect();
        assert_eq!(m, vec![BOS, 0, EOS]);
        assert_eq!(marks(0, 1), BOS | EOS);
    }

    #[test]
    fn ser_is_about_eight_times_fer() {
        let ser = segment_error_rate(1e-5, 8);
        assert!((ser - 8e-5).abs() < 1e-8 && ser < 8e-5);
    }
}
