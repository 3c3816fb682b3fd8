//! A packet on the wire: routing metadata plus a TCP data segment or ACK.

use crate::tcp::{AckSeg, DataSeg};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    Data(DataSeg),
    Ack(AckSeg),
    /// A datagram of a probe flow (`conn` is then the flow index): its
    /// number in the flow and when it was sent.
    Datagram {
        seq: u64,
        sent_at: crate::engine::Time,
    },
    /// A packet from outside the simulated network (a live host's IP
    /// packet), carried whole: `conn` is then its index in the world's
    /// table of external packets, which holds its bytes.
    External,
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Bytes on the wire (headers included).
    pub size_bytes: u32,
    /// The connection (flow leg) this packet belongs to (a datagram's flow,
    /// an external packet's index).
    pub conn: u32,
    /// Route (list of link directions) the packet follows, and the index of
    /// the next link direction to cross.
    pub route: u32,
    pub hop: u16,
    pub payload: Payload,
}

impl Packet {
    #[inline]
    pub fn is_ack(&self) -> bool {
        matches!(self.payload, Payload::Ack(_))
    }
}
