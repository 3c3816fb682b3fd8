//! Standard AIMD window control of RFC 5681, used by Tahoe, Reno, NewReno
//! and SACK senders (they differ in loss recovery, not in window growth).

use super::CongestionOps;

#[derive(Clone, Debug, Default)]
pub struct RenoCc;

impl CongestionOps for RenoCc {}
