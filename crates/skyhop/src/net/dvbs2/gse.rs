//! Generic Stream Encapsulation (ETSI TS 102 606-1) of IP packets into the
//! data field of BBFRAMEs: each packet (a PDU) travels as one GSE packet,
//! or, when it does not fit the room left in a frame, as fragments in
//! successive frames. Header bytes by kind (S and E are the start and end
//! flags of the 2-byte fixed header, which also holds the label type and
//! the GSE length):
//!
//! | GSE packet | fixed | Frag ID | Total Length | Protocol Type | Label | CRC-32 |
//! |---|---|---|---|---|---|---|
//! | whole PDU (S=1, E=1) | 2 | – | – | 2 | L | – |
//! | first fragment (S=1, E=0) | 2 | 1 | 2 | 2 | L | – |
//! | middle fragment (S=0, E=0) | 2 | 1 | – | – | – | – |
//! | last fragment (S=0, E=1) | 2 | 1 | – | – | – | 4 |
//!
//! with a label of L = 6, 3 or 0 bytes. The GSE length counts the bytes
//! after the fixed header and is 12 bits, so one GSE packet is at most
//! 4 097 bytes. The room a frame's data field has left after its last GSE
//! packet is padding.

/// Bytes of the fixed header.
pub const FIXED: u32 = 2;
/// Largest value of the 12-bit GSE length (bytes after the fixed header).
pub const MAX_GSE_LENGTH: u32 = 4095;

/// A PDU waiting in a terminal's queue, with what of it was already sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pdu {
    /// The engine's handle for the packet.
    pub slot: u32,
    /// The PDU's length (the IP packet), bytes.
    pub bytes: u32,
    /// Bytes of it placed in earlier frames (0: not started).
    pub sent: u32,
    /// A frame that carried one of its fragments was lost.
    pub hit: bool,
}

/// Header bytes of the GSE packet kinds for a label of `label` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headers {
    pub whole: u32,
    pub first: u32,
    pub middle: u32,
    pub last: u32,
}

impl Headers {
    pub fn new(label: u32) -> Headers {
        Headers {
            whole: FIXED + 2 + label,
            first: FIXED + 1 + 2 + 2 + label,
            middle: FIXED + 1,
            last: FIXED + 1 + 4,
        }
    }
}

/// What one frame carries of one PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub slot: u32,
    /// PDU bytes carried.
    pub bytes: u32,
    /// This piece completes the PDU (whole, or its last fragment).
    pub completes: bool,
}

/// Place as much of `pdu` as fits in `room` bytes of a data field:
/// returns (bytes of the data field used, PDU bytes carried), (0, 0) when
/// not even one PDU byte fits.
pub fn place(pdu: &Pdu, room: u32, h: &Headers) -> (u32, u32) {
    let left = pdu.bytes - pdu.sent;
    // The whole of what is left, as one GSE packet (whole PDU or last fragment).
    let head = if pdu.sent == 0 { h.whole } else { h.last };
    if left + head <= room && left + head - FIXED <= MAX_GSE_LENGTH {
        return (left + head, left);
    }
    // A fragment: first, or middle, carrying as many bytes as fit and
    // leaving at least one for a later fragment.
    let head = if pdu.sent == 0 { h.first } else { h.middle };
    if room <= head {
        return (0, 0);
    }
    let cap = (room - head).min(MAX_GSE_LENGTH + FIXED - head);
    let carry = cap.min(left - 1);
    if carry == 0 {
        return (0, 0);
    }
    (carry + head, carry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdu(bytes: u32, sent: u32) -> Pdu {
        Pdu {
            slot: 0,
            bytes,
            sent,
            hit: false,
        }
    }

    #[test]
    fn header_sizes_with_a_six_byte_label() {
        let h = Headers::new(6);
        assert_eq!(
            h,
            Headers {
                whole: 10,
                first: 13,
                middle: 3,
                last: 7
            }
        );
        assert_eq!(Headers::new(3).whole, 7);
        assert_eq!(Headers::new(0).first, 7);
    }

    #[test]
    fn a_pdu_that_fits_goes_whole() {
        let h = Headers::new(6);
        assert_eq!(place(&pdu(1500, 0), 4016, &h), (1510, 1500));
        assert_eq!(place(&pdu(1500, 0), 1510, &h), (1510, 1500));
    }

    #[test]
    fn a_pdu_that_does_not_fit_is_cut_into_first_middle_and_last_fragments() {
        let h = Headers::new(6);
        // 1 000 bytes of room: a first fragment of 987 PDU bytes.
        let mut p = pdu(1500, 0);
        assert_eq!(place(&p, 1000, &h), (1000, 987));
        p.sent = 987;
        // 300 bytes of room: a middle fragment of 297.
        assert_eq!(place(&p, 300, &h), (300, 297));
        p.sent = 1284;
        // The last 216 bytes with their 7-byte header and CRC.
        assert_eq!(place(&p, 4016, &h), (223, 216));
        // No room for a header and a byte: nothing.
        assert_eq!(place(&pdu(1500, 0), 13, &h), (0, 0));
        assert_eq!(place(&pdu(1500, 10), 3, &h), (0, 0));
    }

    #[test]
    fn one_gse_packet_holds_at_most_4097_bytes() {
        let h = Headers::new(6);
        // A 9 000-byte PDU in an empty 7 274-byte data field (32APSK 9/10):
        // a first fragment of 4 097 − 13 = 4 084 bytes, then it stops there
        // for this GSE packet (the caller places the next one after it).
        assert_eq!(place(&pdu(9000, 0), 7264, &h), (4097, 4084));
    }
}
