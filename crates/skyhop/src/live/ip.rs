//! What the engine needs to know of a real IP packet: where it goes and how
//! channel models and link layers see it (TCP data with its sequence
//! number, a pure ACK, a SYN; anything else as data).

use crate::channel::PacketKind;

/// The parts of an IPv4 packet the engine uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub kind: PacketKind,
    /// A TCP segment's sequence number (0 for anything else).
    pub seq: u64,
}

const TCP: u8 = 6;
const SYN: u8 = 0x02;

/// Parse an IPv4 packet; `None` for anything else (IPv6, a truncated packet).
pub(super) fn parse(p: &[u8]) -> Option<Header> {
    if p.len() < 20 || p[0] >> 4 != 4 {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([p[2], p[3]]) as usize;
    if ihl < 20 || p.len() < ihl || total < ihl {
        return None;
    }
    let src = [p[12], p[13], p[14], p[15]];
    let dst = [p[16], p[17], p[18], p[19]];
    let mut kind = PacketKind::Data;
    let mut seq = 0;
    // Only a first fragment carries the TCP header.
    let frag_offset = u16::from_be_bytes([p[6], p[7]]) & 0x1fff;
    if p[9] == TCP && frag_offset == 0 && p.len() >= ihl + 20 {
        let t = &p[ihl..];
        let doff = (t[12] >> 4) as usize * 4;
        let payload = total.min(p.len()).saturating_sub(ihl + doff);
        seq = u32::from_be_bytes([t[4], t[5], t[6], t[7]]) as u64;
        kind = if t[13] & SYN != 0 {
            PacketKind::Syn
        } else if payload == 0 {
            PacketKind::Ack
        } else {
            PacketKind::Data
        };
    }
    Some(Header {
        src,
        dst,
        kind,
        seq,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(flags: u8, payload: usize) -> Vec<u8> {
        let total = 40 + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[9] = 6;
        p[12..16].copy_from_slice(&[10, 0, 0, 1]);
        p[16..20].copy_from_slice(&[10, 0, 2, 1]);
        p[24..28].copy_from_slice(&123_456u32.to_be_bytes());
        p[32] = 5 << 4;
        p[33] = flags;
        p
    }

    #[test]
    fn tcp_segments_are_data_acks_or_syns() {
        let d = parse(&tcp(0x18, 100)).unwrap();
        assert_eq!((d.kind, d.seq), (PacketKind::Data, 123_456));
        assert_eq!((d.src, d.dst), ([10, 0, 0, 1], [10, 0, 2, 1]));
        assert_eq!(parse(&tcp(0x10, 0)).unwrap().kind, PacketKind::Ack);
        assert_eq!(parse(&tcp(0x02, 0)).unwrap().kind, PacketKind::Syn);
        assert_eq!(parse(&tcp(0x12, 0)).unwrap().kind, PacketKind::Syn);
    }

    #[test]
    fn other_protocols_are_data_and_non_ipv4_is_refused() {
        let mut u = tcp(0, 20);
        u[9] = 17;
        assert_eq!(
            parse(&u).unwrap(),
            Header {
                src: [10, 0, 0, 1],
                dst: [10, 0, 2, 1],
                kind: PacketKind::Data,
                seq: 0
            }
        );
        let mut v6 = tcp(0, 20);
        v6[0] = 0x60;
        assert_eq!(parse(&v6), None);
        assert_eq!(parse(&[0x45; 10]), None);
    }
}
