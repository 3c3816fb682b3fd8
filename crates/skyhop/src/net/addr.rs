//! Node addresses: node *i* (nodes in name order, from 0) is
//! `10.<i/256>.<i%256>.1`. The pcap export stamps packets with them,
//! `skyhop describe` lists them, and a live run gives them to its hosts.

/// The most nodes (ground nodes and satellites) that have addresses of
/// their own: 10.0.0.1 to 10.255.255.1.
pub const MAX_NODES: usize = 1 << 16;

/// The IPv4 address of node `i` (below [`MAX_NODES`]).
pub fn node_ip(i: u32) -> [u8; 4] {
    [10, (i >> 8) as u8, (i & 0xff) as u8, 1]
}

/// The node an address belongs to, if it is one of `nodes` nodes' addresses.
pub fn node_of_ip(ip: [u8; 4], nodes: usize) -> Option<u32> {
    if ip[0] != 10 || ip[3] != 1 {
        return None;
    }
    let i = ((ip[1] as u32) << 8) | ip[2] as u32;
    ((i as usize) < nodes).then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip_and_foreign_ones_are_refused() {
        assert_eq!(node_ip(0), [10, 0, 0, 1]);
        assert_eq!(node_ip(258), [10, 1, 2, 1]);
        assert_eq!(node_of_ip([10, 1, 2, 1], 300), Some(258));
        assert_eq!(node_of_ip([10, 1, 2, 1], 258), None);
        assert_eq!(node_of_ip([10, 0, 0, 2], 5), None);
        assert_eq!(node_of_ip([192, 168, 0, 1], 5), None);
    }
}
