//! A TUN device with offloads hands over and takes packets behind a
//! virtio-net header (`struct virtio_net_hdr`, Virtual I/O Device (VIRTIO)
//! Version 1.2, section 5.1.6): a host's TCP may pass one TCP "super-packet"
//! of up to 64 kB (TSO/GSO) whose checksum it left to the device
//! (`VIRTIO_NET_HDR_F_NEEDS_CSUM`, the kernel's CHECKSUM_PARTIAL). The
//! engine does what the device would: it cuts the super-packet at MSS
//! boundaries into the packets that go on the wire, each with its own IP
//! and TCP headers and checksums, as Linux's software GSO does
//! (`inet_gso_segment`, `tcp_gso_segment`): the IP identification counts
//! up from the super-packet's, the sequence number advances by the MSS,
//! FIN and PSH stay on the last segment only, CWR on the first only.

use crate::csum;

/// The header's size (no `num_buffers` field).
pub(super) const VNET_HDR_LEN: usize = 10;
/// The device must complete the checksum from `csum_start`, stored at
/// `csum_start + csum_offset`; the field holds the pseudo-header's sum.
pub(super) const F_NEEDS_CSUM: u8 = 1;
pub(super) const GSO_NONE: u8 = 0;
pub(super) const GSO_TCPV4: u8 = 1;
/// With a GSO type: the TCP stream uses ECN (a CWR flag may be set).
pub(super) const GSO_ECN: u8 = 0x80;

const TCP: u8 = 6;
const FIN: u8 = 0x01;
const PSH: u8 = 0x08;
const CWR: u8 = 0x80;

/// `struct virtio_net_hdr` (little-endian fields, as a TUN device without
/// `TUNSETVNETBE` uses on little-endian machines and legacy devices in the
/// machine's order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct VnetHdr {
    pub flags: u8,
    pub gso_type: u8,
    pub hdr_len: u16,
    pub gso_size: u16,
    pub csum_start: u16,
    pub csum_offset: u16,
}

impl VnetHdr {
    pub(super) fn parse(b: &[u8]) -> Option<VnetHdr> {
        if b.len() < VNET_HDR_LEN {
            return None;
        }
        let u = |k: usize| u16::from_ne_bytes([b[k], b[k + 1]]);
        Some(VnetHdr {
            flags: b[0],
            gso_type: b[1],
            hdr_len: u(2),
            gso_size: u(4),
            csum_start: u(6),
            csum_offset: u(8),
        })
    }

    pub(super) fn encode(&self) -> [u8; VNET_HDR_LEN] {
        let mut b = [0u8; VNET_HDR_LEN];
        b[0] = self.flags;
        b[1] = self.gso_type;
        b[2..4].copy_from_slice(&self.hdr_len.to_ne_bytes());
        b[4..6].copy_from_slice(&self.gso_size.to_ne_bytes());
        b[6..8].copy_from_slice(&self.csum_start.to_ne_bytes());
        b[8..10].copy_from_slice(&self.csum_offset.to_ne_bytes());
        b
    }
}

/// Why a packet from a device could not be made into wire packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// A GSO type other than TCP over IPv4 (the device offers no other).
    GsoType,
    /// Headers or checksum offsets outside the packet.
    Malformed,
}

/// The IPv4 and TCP header lengths of a TCP/IPv4 packet (no fragment).
fn tcp_headers(p: &[u8]) -> Option<(usize, usize)> {
    if p.len() < 20 || p[0] >> 4 != 4 || p[9] != TCP {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    if ihl < 20 || p.len() < ihl + 20 {
        return None;
    }
    let thl = (p[ihl + 12] >> 4) as usize * 4;
    if thl < 20 || p.len() < ihl + thl {
        return None;
    }
    Some((ihl, thl))
}

fn addrs(p: &[u8]) -> ([u8; 4], [u8; 4]) {
    ([p[12], p[13], p[14], p[15]], [p[16], p[17], p[18], p[19]])
}

/// The packets `packet` (read behind header `h`) puts on the wire, each
/// passed to `emit` (a scratch buffer: copy what is kept). A packet
/// without GSO is one packet, its checksum completed if the device was to
/// do it; a TCP/IPv4 super-packet is cut at `gso_size` bytes of payload.
/// `scratch` is the buffer the segments are built in (reused).
pub(super) fn segment(
    h: &VnetHdr,
    packet: &mut [u8],
    scratch: &mut Vec<u8>,
    mut emit: impl FnMut(&[u8]),
) -> Result<usize, Refused> {
    if h.gso_type == GSO_NONE {
        if h.flags & F_NEEDS_CSUM != 0 {
            complete_checksum(h, packet)?;
        }
        emit(packet);
        return Ok(1);
    }
    if h.gso_type & !GSO_ECN != GSO_TCPV4 {
        return Err(Refused::GsoType);
    }
    let (ihl, thl) = tcp_headers(packet).ok_or(Refused::Malformed)?;
    let hl = ihl + thl;
    let payload = packet.len() - hl;
    let mss = h.gso_size as usize;
    let (src, dst) = addrs(packet);
    if mss == 0 || payload <= mss {
        // Not more than one segment's worth: one packet, whole checksums.
        let total = packet.len() as u16;
        packet[2..4].copy_from_slice(&total.to_be_bytes());
        csum::set_ipv4_header(packet, ihl);
        csum::set_tcp(&mut packet[ihl..], src, dst);
        emit(packet);
        return Ok(1);
    }
    let id0 = u16::from_be_bytes([packet[4], packet[5]]);
    let seq0 = u32::from_be_bytes([
        packet[ihl + 4],
        packet[ihl + 5],
        packet[ihl + 6],
        packet[ihl + 7],
    ]);
    let flags = packet[ihl + 13];
    let n = payload.div_ceil(mss);
    for k in 0..n {
        let from = hl + k * mss;
        let to = (from + mss).min(packet.len());
        scratch.clear();
        scratch.extend_from_slice(&packet[..hl]);
        scratch.extend_from_slice(&packet[from..to]);
        let s = &mut scratch[..];
        let total = (hl + to - from) as u16;
        s[2..4].copy_from_slice(&total.to_be_bytes());
        s[4..6].copy_from_slice(&id0.wrapping_add(k as u16).to_be_bytes());
        csum::set_ipv4_header(s, ihl);
        let seq = seq0.wrapping_add((k * mss) as u32);
        s[ihl + 4..ihl + 8].copy_from_slice(&seq.to_be_bytes());
        let mut f = flags;
        if k + 1 < n {
            f &= !(FIN | PSH);
        }
        if k > 0 {
            f &= !CWR;
        }
        s[ihl + 13] = f;
        csum::set_tcp(&mut s[ihl..], src, dst);
        emit(s);
    }
    Ok(n)
}

/// Complete a checksum left to the device: the one's complement sum from
/// `csum_start` to the end (the field holds the pseudo-header's sum),
/// complemented and stored at `csum_start + csum_offset`.
fn complete_checksum(h: &VnetHdr, p: &mut [u8]) -> Result<(), Refused> {
    let start = h.csum_start as usize;
    let at = start + h.csum_offset as usize;
    if at + 2 > p.len() {
        return Err(Refused::Malformed);
    }
    let mut c = !csum::fold(csum::sum(&p[start..], 0));
    // A UDP checksum of zero means "none" (RFC 768): sent as all ones.
    if c == 0 && p.len() >= 20 && p[9] == 17 {
        c = 0xffff;
    }
    p[at..at + 2].copy_from_slice(&c.to_be_bytes());
    Ok(())
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// The one's complement sum, word by word, of a segment and its
    /// pseudo-header (an independent computation of RFC 1071 and RFC 9293
    /// section 3.1): all ones when the checksum is right.
    pub fn tcp_sums_to_ones(p: &[u8]) -> bool {
        let ihl = (p[0] & 0x0f) as usize * 4;
        let tcp = &p[ihl..];
        let mut words: Vec<u16> = vec![
            u16::from_be_bytes([p[12], p[13]]),
            u16::from_be_bytes([p[14], p[15]]),
            u16::from_be_bytes([p[16], p[17]]),
            u16::from_be_bytes([p[18], p[19]]),
            6,
            tcp.len() as u16,
        ];
        for w in tcp.chunks(2) {
            words.push(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]));
        }
        ones(&words)
    }

    pub fn ip_sums_to_ones(p: &[u8]) -> bool {
        let ihl = (p[0] & 0x0f) as usize * 4;
        let words: Vec<u16> = p[..ihl]
            .chunks(2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]))
            .collect();
        ones(&words)
    }

    fn ones(words: &[u16]) -> bool {
        let mut s: u32 = 0;
        for &w in words {
            s += w as u32;
            s = (s & 0xffff) + (s >> 16);
        }
        s == 0xffff
    }

    /// A TCP/IPv4 super-packet as a host's stack hands it to a device with
    /// TSO: IP total length of the whole, timestamps option (12 bytes),
    /// `payload` bytes counting 0, 1, 2, ..., the TCP checksum field
    /// holding the pseudo-header's sum (CHECKSUM_PARTIAL).
    pub fn super_packet(payload: usize, flags: u8, id: u16, seq: u32) -> Vec<u8> {
        let ihl = 20;
        let thl = 32;
        let total = ihl + thl + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(total.min(65535) as u16).to_be_bytes());
        p[4..6].copy_from_slice(&id.to_be_bytes());
        p[6] = 0x40; // DF
        p[8] = 64;
        p[9] = 6;
        p[12..16].copy_from_slice(&[10, 0, 0, 1]);
        p[16..20].copy_from_slice(&[10, 0, 1, 1]);
        let t = &mut p[ihl..];
        t[0..2].copy_from_slice(&40_000u16.to_be_bytes());
        t[2..4].copy_from_slice(&5003u16.to_be_bytes());
        t[4..8].copy_from_slice(&seq.to_be_bytes());
        t[8..12].copy_from_slice(&777u32.to_be_bytes());
        t[12] = ((thl / 4) as u8) << 4;
        t[13] = flags;
        t[14..16].copy_from_slice(&502u16.to_be_bytes());
        // NOP NOP TS(kind 8, len 10, TSval, TSecr)
        t[20..32].copy_from_slice(&[1, 1, 8, 10, 0, 0, 0x12, 0x34, 0, 0, 0x56, 0x78]);
        for (i, b) in p[ihl + thl..].iter_mut().enumerate() {
            *b = i as u8;
        }
        let partial = csum::fold(csum::pseudo_header(
            [10, 0, 0, 1],
            [10, 0, 1, 1],
            6,
            thl + payload,
        ));
        p[ihl + 16..ihl + 18].copy_from_slice(&partial.to_be_bytes());
        p
    }

    fn tso(mss: u16) -> VnetHdr {
        VnetHdr {
            flags: F_NEEDS_CSUM,
            gso_type: GSO_TCPV4,
            hdr_len: 52,
            gso_size: mss,
            csum_start: 20,
            csum_offset: 16,
        }
    }

    fn cut(h: &VnetHdr, mut p: Vec<u8>) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        let n = segment(h, &mut p, &mut scratch, |s| out.push(s.to_vec())).unwrap();
        assert_eq!(n, out.len());
        out
    }

    fn be16(p: &[u8], at: usize) -> u16 {
        u16::from_be_bytes([p[at], p[at + 1]])
    }

    fn be32(p: &[u8], at: usize) -> u32 {
        u32::from_be_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
    }

    #[test]
    fn a_super_packet_of_n_mss_and_a_remainder_gives_the_wire_segments() {
        // 3 x 1448 + 100 bytes, PSH and FIN on the super-packet, CWR too.
        let mss = 1448usize;
        let payload = 3 * mss + 100;
        let flags = 0x10 | PSH | FIN | CWR; // ACK PSH FIN CWR
        let seq0 = u32::MAX - 2000; // the sequence numbers wrap
        let sp = super_packet(payload, flags, 0xfffe, seq0);
        let segs = cut(&tso(mss as u16), sp.clone());
        assert_eq!(segs.len(), 4);
        let lens = [mss, mss, mss, 100];
        let ids = [0xfffe, 0xffff, 0x0000, 0x0001];
        let flags_of = [0x10 | CWR, 0x10, 0x10, 0x10 | PSH | FIN];
        for (k, s) in segs.iter().enumerate() {
            assert_eq!(s.len(), 52 + lens[k], "segment {k} length");
            assert_eq!(be16(s, 2) as usize, 52 + lens[k], "IP total length");
            assert_eq!(be16(s, 4), ids[k], "IP id");
            assert_eq!(be32(s, 24), seq0.wrapping_add((k * mss) as u32), "seq");
            assert_eq!(be32(s, 28), 777, "ack");
            assert_eq!(s[33], flags_of[k], "flags of segment {k}");
            // Everything else of the headers as in the super-packet.
            assert_eq!(s[..2], sp[..2]);
            assert_eq!(s[6..10], sp[6..10]);
            assert_eq!(s[12..20], sp[12..20]);
            assert_eq!(s[20..24], sp[20..24]);
            assert_eq!(s[32], sp[32]);
            assert_eq!(s[34..36], sp[34..36]);
            assert_eq!(s[38..52], sp[38..52]);
            // The payload: the super-packet's bytes from k * mss on.
            assert_eq!(s[52..], sp[52 + k * mss..52 + k * mss + lens[k]]);
            assert!(ip_sums_to_ones(s), "IP checksum of segment {k}");
            assert!(tcp_sums_to_ones(s), "TCP checksum of segment {k}");
        }
    }

    #[test]
    fn exact_multiples_and_single_segments() {
        // 2 x MSS exactly: two full segments, PSH on the second only.
        let segs = cut(&tso(1000), super_packet(2000, 0x18, 7, 1));
        assert_eq!(
            segs.iter().map(|s| s.len()).collect::<Vec<_>>(),
            [1052, 1052]
        );
        assert_eq!((segs[0][33], segs[1][33]), (0x10, 0x18));
        assert!(segs
            .iter()
            .all(|s| tcp_sums_to_ones(s) && ip_sums_to_ones(s)));
        // No more than one MSS: the packet itself, checksums completed.
        let one = cut(&tso(1448), super_packet(1448, 0x18, 9, 5));
        assert_eq!(one.len(), 1);
        assert_eq!(
            (one[0].len(), one[0][33], be16(&one[0], 4)),
            (1500, 0x18, 9)
        );
        assert!(tcp_sums_to_ones(&one[0]) && ip_sums_to_ones(&one[0]));
    }

    #[test]
    fn a_partial_checksum_without_gso_is_completed_and_others_pass_as_they_are() {
        // A pure ACK whose checksum was left to the device.
        let ack = super_packet(0, 0x10, 3, 99);
        let h = VnetHdr {
            flags: F_NEEDS_CSUM,
            csum_start: 20,
            csum_offset: 16,
            ..Default::default()
        };
        let out = cut(&h, ack.clone());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0][..36], ack[..36]);
        assert!(tcp_sums_to_ones(&out[0]));
        // Without the flag the bytes are not touched.
        let as_is = cut(&VnetHdr::default(), ack.clone());
        assert_eq!(as_is, vec![ack]);
        // Offsets outside the packet, an unknown GSO type: refused.
        let mut p = super_packet(0, 0x10, 3, 99);
        let bad = VnetHdr {
            csum_start: 50,
            ..h
        };
        assert_eq!(
            segment(&bad, &mut p, &mut Vec::new(), |_| {}),
            Err(Refused::Malformed)
        );
        let udp = VnetHdr {
            gso_type: 3,
            ..tso(1000)
        };
        assert_eq!(
            segment(&udp, &mut p, &mut Vec::new(), |_| {}),
            Err(Refused::GsoType)
        );
    }

    #[test]
    fn the_header_round_trips_in_the_machines_byte_order() {
        let h = tso(1448);
        assert_eq!(VnetHdr::parse(&h.encode()), Some(h));
        assert_eq!(VnetHdr::parse(&[0; 9]), None);
        let b = h.encode();
        assert_eq!((b[0], b[1]), (F_NEEDS_CSUM, GSO_TCPV4));
        assert_eq!(u16::from_ne_bytes([b[4], b[5]]), 1448);
    }
}
