//! Exact losses for hand-worked tests: the first bytes of data segments to
//! lose on their first transmission in this direction (any connection
//! crossing it). Each entry is consumed when used; a retransmission or a SYN
//! is never claimed. Draws nothing at random.

use super::{ChannelCtx, ChannelModel, PacketKind, Tx};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropListSpec {
    /// First bytes of the data segments to drop.
    pub segments: Vec<u64>,
}

impl super::ChannelSpecOps for DropListSpec {
    type Model = DropList;
    fn build(&self, ctx: &ChannelCtx) -> DropList {
        DropList::build(self, ctx)
    }
    /// It names segments of simulated connections.
    fn names_segments(&self) -> bool {
        true
    }
}

pub struct DropList {
    pending: Vec<u64>,
}

impl DropList {
    pub fn build(s: &DropListSpec, _ctx: &ChannelCtx) -> DropList {
        DropList {
            pending: s.segments.clone(),
        }
    }
}

impl ChannelModel for DropList {
    #[inline]
    fn is_lost(&mut self, tx: &Tx) -> bool {
        if self.pending.is_empty() || tx.kind != PacketKind::Data || tx.retx {
            return false;
        }
        if let Some(i) = self.pending.iter().position(|&s| s == tx.seq) {
            self.pending.swap_remove(i);
            return true;
        }
        false
    }
}
