//! Return Link Encapsulation of IP packets into DVB-RCS2 bursts (ETSI EN
//! 301 545-2 §7.2): each packet becomes an ALPDU (the packet, after a
//! protocol type of 2 bytes, or 1 compressed, or none if suppressed), sent
//! as one PPDU or fragmented across the bursts of the terminal's granted
//! timeslots. PPDU headers: 2 bytes for a complete ALPDU, 4 for the start
//! of a fragmented one, 2 for a continuation or the end; a fragmented
//! ALPDU ends with a trailer, a 1-byte sequence number (or a 4-byte CRC).
//! Sizes as implemented by the reference library librle.
//!
//! A burst's payload (the waveform's payload bytes) holds PPDUs back to
//! back; what is left is padding.

/// Header sizes of the PPDU kinds and the ALPDU's extra bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rle {
    /// Protocol type bytes of an ALPDU: 2, 1 or 0.
    pub protocol_type: u32,
    /// Trailer of a fragmented ALPDU: 1 (sequence number) or 4 (CRC-32).
    pub trailer: u32,
}

pub const COMPLETE_HEADER: u32 = 2;
pub const START_HEADER: u32 = 4;
pub const CONT_HEADER: u32 = 2;

impl Default for Rle {
    fn default() -> Rle {
        Rle {
            protocol_type: 2,
            trailer: 1,
        }
    }
}

impl Rle {
    /// Bytes one packet of `bytes` takes when sent whole.
    pub fn whole(&self, bytes: u32) -> u32 {
        COMPLETE_HEADER + self.protocol_type + bytes
    }

    /// Place what is left of a packet of `bytes` of which `sent` ALPDU
    /// bytes already went (0: not started) in `room` bytes of a burst:
    /// (burst bytes used, ALPDU bytes carried, the packet is complete).
    /// The ALPDU of a fragmented packet is protocol type + packet + trailer.
    pub fn place(&self, bytes: u32, sent: u32, room: u32) -> (u32, u32, bool) {
        if sent == 0 {
            let whole = self.whole(bytes);
            if whole <= room {
                return (whole, self.protocol_type + bytes, true);
            }
            if room <= START_HEADER {
                return (0, 0, false);
            }
            // A start PPDU: at least one byte left for the end.
            let alpdu = self.protocol_type + bytes + self.trailer;
            let carry = (room - START_HEADER).min(alpdu - 1);
            return (carry + START_HEADER, carry, false);
        }
        let alpdu = self.protocol_type + bytes + self.trailer;
        let left = alpdu - sent;
        if left + CONT_HEADER <= room {
            return (left + CONT_HEADER, left, true);
        }
        if room <= CONT_HEADER {
            return (0, 0, false);
        }
        let carry = (room - CONT_HEADER).min(left - 1);
        (carry + CONT_HEADER, carry, false)
    }
}

impl Rle {
    /// Burst bytes a packet of `bytes` uses when it starts a burst of
    /// `burst` bytes and fills the next ones (headers, fragments and
    /// trailer): what a terminal asks for to send it.
    pub fn burst_bytes(&self, bytes: u32, burst: u32) -> u32 {
        let (mut sent, mut total) = (0, 0);
        loop {
            let (used, carried, done) = self.place(bytes, sent, burst);
            assert!(used > 0, "a burst holds at least a header and a byte");
            total += used;
            sent += carried;
            if done {
                return total;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_sent_whole_or_as_start_continuation_and_end() {
        let r = Rle::default();
        // 188-byte bursts (waveform 14). A 40-byte ACK: 2 + 2 + 40.
        assert_eq!(r.place(40, 0, 188), (44, 42, true));
        // A 1 500-byte packet: ALPDU 2 + 1 500 + 1 = 1 503 bytes: a start
        // of 184, seven continuations of 186, an end of 17 (+ 2).
        let mut sent = 0;
        let mut bursts = Vec::new();
        loop {
            let (used, carried, done) = r.place(1500, sent, 188);
            bursts.push((used, carried));
            sent += carried;
            if done {
                break;
            }
        }
        assert_eq!(bursts[0], (188, 184));
        assert!(bursts[1..8].iter().all(|&b| b == (188, 186)));
        assert_eq!(bursts[8], (19, 17));
        assert_eq!(sent, 1503);
        // No room for a header and a byte: nothing.
        assert_eq!(r.place(1500, 0, 4), (0, 0, false));
        assert_eq!(r.place(1500, 10, 2), (0, 0, false));
        // What a terminal asks for: 8 full bursts and 19 bytes.
        assert_eq!(r.burst_bytes(1500, 188), 8 * 188 + 19);
        assert_eq!(r.burst_bytes(40, 188), 44);
    }
}
