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
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Bytes on the wire (headers included).
    pub size_bytes: u32,
    /// The connection (flow leg) this packet belongs to.
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
