//! The Internet checksum (RFC 1071): the 16-bit one's complement of the
//! one's complement sum of the data taken as big-endian 16-bit words (an
//! odd last byte padded with a zero byte), and the IPv4 pseudo-header that
//! TCP and UDP checksums cover (RFC 9293, section 3.1; RFC 768).

/// The one's complement sum of `data` added to `acc`, not yet folded.
/// Summed four bytes at a time (RFC 1071, section 2(B): the sum may be
/// taken over wider words and folded at the end); the result folds to
/// the same 16-bit sum as word-by-word addition.
#[inline]
pub(crate) fn sum(data: &[u8], mut acc: u64) -> u64 {
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        acc += u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as u64;
    }
    let rest = chunks.remainder();
    let mut tail = [0u8; 4];
    tail[..rest.len()].copy_from_slice(rest);
    acc + u32::from_be_bytes(tail) as u64
}

/// Fold a wide one's complement sum to 16 bits (end-around carries).
#[inline]
pub(crate) fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// The checksum of `data` (the complement of its folded sum).
#[inline]
pub(crate) fn checksum(data: &[u8]) -> u16 {
    !fold(sum(data, 0))
}

/// The sum of the IPv4 pseudo-header: source, destination, protocol and
/// the transport segment's length (header and payload).
#[inline]
pub(crate) fn pseudo_header(src: [u8; 4], dst: [u8; 4], proto: u8, len: usize) -> u64 {
    u32::from_be_bytes(src) as u64 + u32::from_be_bytes(dst) as u64 + proto as u64 + len as u64
}

/// Set the header checksum of the IPv4 header `ip` (its first `ihl` bytes).
#[inline]
pub(crate) fn set_ipv4_header(ip: &mut [u8], ihl: usize) {
    ip[10] = 0;
    ip[11] = 0;
    let c = checksum(&ip[..ihl]);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
}

/// Set the TCP checksum of the segment `tcp` (header and payload) sent
/// from `src` to `dst`.
#[inline]
pub(crate) fn set_tcp(tcp: &mut [u8], src: [u8; 4], dst: [u8; 4]) {
    tcp[16] = 0;
    tcp[17] = 0;
    let c = !fold(sum(tcp, pseudo_header(src, dst, 6, tcp.len())));
    tcp[16..18].copy_from_slice(&c.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Word by word, as RFC 1071 section 1 states it.
    fn naive(data: &[u8]) -> u16 {
        let mut s: u32 = 0;
        for w in data.chunks(2) {
            let v = if w.len() == 2 {
                u16::from_be_bytes([w[0], w[1]])
            } else {
                u16::from_be_bytes([w[0], 0])
            };
            s += v as u32;
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }

    #[test]
    fn rfc1071_example_and_word_by_word_agree() {
        // RFC 1071 section 3: the bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2.
        let d = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(sum(&d, 0)), 0xddf2);
        assert_eq!(checksum(&d), !0xddf2);
        // Every length from 0 to 67 (each remainder of the four-byte
        // loop, odd lengths), bytes chosen to carry often.
        for n in 0..68usize {
            let v: Vec<u8> = (0..n).map(|i| (i * 97 + 200) as u8 | 0x80).collect();
            assert_eq!(checksum(&v), naive(&v), "length {n}");
        }
    }

    #[test]
    fn a_header_with_its_checksum_sums_to_all_ones() {
        // An IPv4 header from RFC 791's layout: 20 bytes, checksum field zero.
        let mut h = [
            0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0, 1, 0xc0, 0xa8, 0,
            0xc7,
        ];
        set_ipv4_header(&mut h, 20);
        // The well-known value of this header's checksum.
        assert_eq!(u16::from_be_bytes([h[10], h[11]]), 0xb861);
        assert_eq!(naive(&h), 0);
    }
}
