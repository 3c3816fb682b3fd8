//! Coalescing for the receiving host (as a NIC's GRO would): consecutive
//! TCP segments of one stream released to a host in the same turn are
//! written as one super-packet behind a virtio-net header (TCP over IPv4,
//! `gso_size` the first segment's payload, checksum left to the device as
//! CHECKSUM_PARTIAL), so the host's stack takes them in one pass, as it
//! takes what its NIC's GRO merged. The rules are those of Linux's
//! `inet_gro_receive` and `tcp_gro_receive`: the same addresses, ports,
//! TOS, TTL, DF, acknowledgment number, window, flags (but CWR, PSH, FIN)
//! and options; IP identifications counting up; each sequence number
//! following the last; every segment but the last exactly the first's
//! payload size; a segment with PSH, FIN, URG, RST or SYN ends the
//! group, one with CWR starts a new one; at most 64 kB. The simulated
//! network never sees the merged packet: it carried the segments.

use super::gso::{VnetHdr, F_NEEDS_CSUM, GSO_ECN, GSO_TCPV4};
use crate::csum;

/// At most this many segments in one super-packet.
pub(super) const MAX_SEGMENTS: usize = 64;
const MAX_TOTAL: usize = 65_535;

const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const PSH: u8 = 0x08;
const URG: u8 = 0x20;
const CWR: u8 = 0x80;

/// A segment that GRO may merge: TCP over IPv4 without IP options, not a
/// fragment, with payload; its header length (20 + TCP header) and payload.
#[inline]
pub(super) fn mergeable(p: &[u8]) -> Option<(usize, usize)> {
    if p.len() < 40 || p[0] != 0x45 || p[9] != 6 {
        return None;
    }
    // Neither MF nor a fragment offset; the length field is the packet's.
    if u16::from_be_bytes([p[6], p[7]]) & 0x3fff != 0
        || u16::from_be_bytes([p[2], p[3]]) as usize != p.len()
    {
        return None;
    }
    let thl = (p[32] >> 4) as usize * 4;
    if thl < 20 || p.len() <= 20 + thl {
        return None;
    }
    Some((20 + thl, p.len() - 20 - thl))
}

/// Whether `next` may join the group that starts with `first`, ends with
/// `last` and holds `count` segments, `total` bytes as one IP packet.
pub(super) fn continues(
    first: &[u8],
    last: &[u8],
    count: usize,
    total: usize,
    next: &[u8],
) -> bool {
    let (Some((hl, mss)), Some((lhl, lpay)), Some((nhl, npay))) =
        (mergeable(first), mergeable(last), mergeable(next))
    else {
        return false;
    };
    if count >= MAX_SEGMENTS || total + npay > MAX_TOTAL || nhl != hl || lhl != hl {
        return false;
    }
    // The last segment was a full one and did not end the group.
    if lpay != mss || last[33] & (URG | PSH | RST | SYN | FIN) != 0 {
        return false;
    }
    if npay > mss || next[33] & CWR != 0 {
        return false;
    }
    // IP: TOS, DF (the whole fragment field is zero), TTL, protocol,
    // addresses; the identification one more than the last's.
    let id = |p: &[u8]| u16::from_be_bytes([p[4], p[5]]);
    if first[1] != next[1] || first[6..10] != next[6..10] || first[12..20] != next[12..20] {
        return false;
    }
    if id(next) != id(last).wrapping_add(1) {
        return false;
    }
    // TCP: ports, acknowledgment, data offset, flags but CWR/PSH/FIN,
    // window, urgent pointer and options as the first's (not the checksum).
    let (f, n) = (&first[20..hl], &next[20..hl]);
    if f[0..4] != n[0..4] || f[8..13] != n[8..13] || f[14..16] != n[14..16] || f[18..] != n[18..] {
        return false;
    }
    if (f[13] ^ n[13]) & !(CWR | PSH | FIN) != 0 {
        return false;
    }
    let seq = |p: &[u8]| u32::from_be_bytes([p[24], p[25], p[26], p[27]]);
    seq(next) == seq(last).wrapping_add(lpay as u32)
}

/// The virtio-net header and IP/TCP headers of the super-packet merging
/// `group` (segments for which [`continues`] held), into `out`; the
/// payloads follow them on the wire, in order.
pub(super) fn header(group: &[&[u8]], out: &mut Vec<u8>) {
    let first = group[0];
    let (hl, mss) = mergeable(first).expect("a mergeable first segment");
    let payload: usize = group.iter().map(|s| s.len() - hl).sum();
    let total = hl + payload;
    let last_flags = group[group.len() - 1][33];
    let vh = VnetHdr {
        flags: F_NEEDS_CSUM,
        gso_type: GSO_TCPV4 | if first[33] & CWR != 0 { GSO_ECN } else { 0 },
        hdr_len: hl as u16,
        gso_size: mss as u16,
        csum_start: 20,
        csum_offset: 16,
    };
    out.clear();
    out.extend_from_slice(&vh.encode());
    out.extend_from_slice(&first[..hl]);
    let h = &mut out[super::gso::VNET_HDR_LEN..];
    h[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    csum::set_ipv4_header(h, 20);
    h[33] |= last_flags & (PSH | FIN);
    // CHECKSUM_PARTIAL: the field holds the pseudo-header's sum over the
    // whole TCP length; the device (here: the host's stack, which trusts
    // it) sums the rest.
    let src = [h[12], h[13], h[14], h[15]];
    let dst = [h[16], h[17], h[18], h[19]];
    let partial = csum::fold(csum::pseudo_header(src, dst, 6, total - 20));
    h[36..38].copy_from_slice(&partial.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::super::gso::tests::{ip_sums_to_ones, super_packet, tcp_sums_to_ones};
    use super::super::gso::{segment, VnetHdr};
    use super::*;

    fn wire(payload: usize, flags: u8, mss: u16) -> Vec<Vec<u8>> {
        let h = VnetHdr {
            flags: F_NEEDS_CSUM,
            gso_type: GSO_TCPV4,
            hdr_len: 52,
            gso_size: mss,
            csum_start: 20,
            csum_offset: 16,
        };
        let mut p = super_packet(payload, flags, 100, 5_000);
        let mut out = Vec::new();
        segment(&h, &mut p, &mut Vec::new(), |s| out.push(s.to_vec())).unwrap();
        out
    }

    /// Greedy grouping, as the driver does it.
    fn groups(segs: &[Vec<u8>]) -> Vec<usize> {
        let mut sizes = Vec::new();
        let mut i = 0;
        while i < segs.len() {
            let mut j = i + 1;
            let mut total = segs[i].len();
            while j < segs.len() && continues(&segs[i], &segs[j - 1], j - i, total, &segs[j]) {
                total += segs[j].len() - 52;
                j += 1;
            }
            sizes.push(j - i);
            i = j;
        }
        sizes
    }

    fn merge(segs: &[Vec<u8>]) -> (VnetHdr, Vec<u8>) {
        let refs: Vec<&[u8]> = segs.iter().map(|s| s.as_slice()).collect();
        let mut out = Vec::new();
        header(&refs, &mut out);
        let vh = VnetHdr::parse(&out).unwrap();
        let mut p = out[10..].to_vec();
        for s in segs {
            p.extend_from_slice(&s[52..]);
        }
        (vh, p)
    }

    #[test]
    fn merged_segments_cut_again_give_the_same_segments() {
        // 5 x 1448 + 700, PSH FIN on the last: one group, and GSO of the
        // merged packet (what the host's stack would do to forward it)
        // gives back exactly the wire segments.
        let segs = wire(5 * 1448 + 700, 0x19, 1448);
        assert_eq!(groups(&segs), [6]);
        let (vh, mut p) = merge(&segs);
        assert_eq!(
            (vh.gso_type, vh.gso_size, vh.hdr_len),
            (GSO_TCPV4, 1448, 52)
        );
        assert_eq!(
            (vh.flags, vh.csum_start, vh.csum_offset),
            (F_NEEDS_CSUM, 20, 16)
        );
        assert_eq!(u16::from_be_bytes([p[2], p[3]]) as usize, p.len());
        assert_eq!(p[33], 0x19, "PSH and FIN of the last segment");
        assert!(ip_sums_to_ones(&p));
        let mut again = Vec::new();
        segment(&vh, &mut p, &mut Vec::new(), |s| again.push(s.to_vec())).unwrap();
        assert_eq!(again, segs);
        for s in &again {
            assert!(tcp_sums_to_ones(s));
        }
    }

    #[test]
    fn what_ends_a_group() {
        let base = wire(6 * 1000, 0x10, 1000);
        assert_eq!(groups(&base), [6]);
        // A short segment ends it: 1000, 1000, 400 | 1000 ...
        let mut short = wire(2 * 1000 + 400, 0x10, 1000);
        let mut more = wire(2000, 0x10, 1000);
        let seq_after =
            u32::from_be_bytes([short[2][24], short[2][25], short[2][26], short[2][27]]) + 400;
        for (k, s) in more.iter_mut().enumerate() {
            s[24..28].copy_from_slice(&(seq_after + 1000 * k as u32).to_be_bytes());
            s[4..6].copy_from_slice(&(103 + k as u16).to_be_bytes());
        }
        short.extend(more);
        assert_eq!(groups(&short), [3, 2]);
        // PSH in the middle ends the group after it.
        let mut psh = base.clone();
        psh[2][33] |= PSH;
        assert_eq!(groups(&psh), [3, 3]);
        // CWR starts a new group.
        let mut cwr = base.clone();
        cwr[4][33] |= CWR;
        assert_eq!(groups(&cwr), [4, 2]);
        // A gap in the sequence, another window, another timestamp, an IP
        // id out of order, another TTL: each ends the group there
        // (and the segment after it no longer follows it either).
        for (at, byte) in [
            (27usize, 0x01u8),
            (35, 0x01),
            (47, 0x01),
            (5, 0x10),
            (8, 0x01),
        ] {
            let mut v = base.clone();
            v[3][at] ^= byte;
            assert_eq!(groups(&v), [3, 1, 2], "byte {at}");
        }
        // Another stream (port) and pure ACKs never merge.
        let mut port = base.clone();
        port[1][21] ^= 1;
        assert_eq!(groups(&port)[0], 1);
        let acks = wire(0, 0x10, 1000);
        assert_eq!(mergeable(&acks[0]), None);
        // At most 64 kB: 60 x 1100 bytes of payload do not fit in one.
        assert_eq!(groups(&wire(60 * 1100, 0x10, 1100)), [59, 1]);
    }
}
