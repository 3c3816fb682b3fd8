//! A QUIC datagram on the wire: IPv4 and UDP headers before its bytes, as
//! a host would send it, so that the world carries the whole packet and a
//! pcap file holds what tshark reads as QUIC.

use crate::csum::checksum;
use std::net::{IpAddr, SocketAddr};

/// IPv4 (20 B) and UDP (8 B) headers.
pub const HEADER: usize = 28;

/// The UDP port of every QUIC server (HTTP/3's, where tshark looks for QUIC).
pub const SERVER_PORT: u16 = 443;

fn v4(a: SocketAddr) -> [u8; 4] {
    match a.ip() {
        IpAddr::V4(ip) => ip.octets(),
        IpAddr::V6(_) => unreachable!("QUIC ends have IPv4 addresses"),
    }
}

/// The IPv4 packet of a UDP datagram from `src` to `dst` carrying `payload`
/// (identification `id`, don't-fragment set as QUIC requires, RFC 9000
/// §14; the UDP checksum left at zero, which IPv4 allows).
pub(super) fn packet(src: SocketAddr, dst: SocketAddr, id: u64, payload: &[u8]) -> Vec<u8> {
    let total = HEADER + payload.len();
    let mut p = Vec::with_capacity(total);
    p.extend_from_slice(&[0x45, 0]);
    p.extend_from_slice(&(total.min(65_535) as u16).to_be_bytes());
    p.extend_from_slice(&(id as u16).to_be_bytes());
    p.extend_from_slice(&[0x40, 0, 64, 17, 0, 0]);
    p.extend_from_slice(&v4(src));
    p.extend_from_slice(&v4(dst));
    let ck = checksum(&p[..20]);
    p[10..12].copy_from_slice(&ck.to_be_bytes());
    p.extend_from_slice(&src.port().to_be_bytes());
    p.extend_from_slice(&dst.port().to_be_bytes());
    p.extend_from_slice(&((total - 20).min(65_535) as u16).to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(payload);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_frame_the_payload_with_valid_lengths_and_checksum() {
        let src: SocketAddr = "10.0.0.1:50000".parse().unwrap();
        let dst: SocketAddr = "10.0.1.1:443".parse().unwrap();
        let p = packet(src, dst, 7, &[0xc0, 1, 2]);
        assert_eq!(p.len(), 31);
        assert_eq!(u16::from_be_bytes([p[2], p[3]]), 31);
        assert_eq!(checksum(&p[..20]), 0, "the header checksum verifies");
        assert_eq!(p[9], 17, "UDP");
        assert_eq!(&p[12..20], &[10, 0, 0, 1, 10, 0, 1, 1]);
        assert_eq!(u16::from_be_bytes([p[20], p[21]]), 50_000);
        assert_eq!(u16::from_be_bytes([p[22], p[23]]), 443);
        assert_eq!(u16::from_be_bytes([p[24], p[25]]), 11);
        assert_eq!(&p[HEADER..], &[0xc0, 1, 2]);
    }
}
