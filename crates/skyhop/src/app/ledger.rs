//! Independent check of a receiver's deliveries, kept per connection by the
//! world: every byte an application is told about arrived once and in order.

use crate::tcp::rangeset::RangeSet;

/// Independent check of a receiver's deliveries: records which bytes really
/// arrived in data packets, and verifies each in-order delivery the receiver
/// claims is contiguous with the last and made only of arrived bytes.
///
/// The bytes arrived are `[0, prefix)` and the ranges of `above` (none of
/// which touches the prefix): an arrival in order costs two comparisons
/// (the set's lowest start is kept beside it, so the set itself is not
/// read), one out of order a range-set insert.
#[derive(Clone, Debug)]
pub struct ByteLedger {
    prefix: u64,
    /// The start of `above`'s lowest range (`u64::MAX` when it is empty).
    above_from: u64,
    delivered: u64,
    above: RangeSet,
}

impl Default for ByteLedger {
    fn default() -> Self {
        ByteLedger {
            prefix: 0,
            above_from: u64::MAX,
            delivered: 0,
            above: RangeSet::new(),
        }
    }
}

impl ByteLedger {
    #[inline]
    pub fn on_arrival(&mut self, seq: u64, len: u32) {
        let end = seq + len as u64;
        if seq > self.prefix {
            self.above.insert(seq, end);
            // A merge keeps the lowest start of what it merges.
            self.above_from = self.above_from.min(seq);
        } else if end > self.prefix {
            self.prefix = end;
            // Held ranges the prefix now reaches join it (one arrival can
            // span several, e.g. a resend cut differently).
            while self.above_from <= self.prefix {
                let (_, e) = self.above.first().expect("a held range");
                self.prefix = self.prefix.max(e);
                self.above.remove_below(self.prefix);
                self.above_from = self.above.first().map_or(u64::MAX, |r| r.0);
            }
        }
    }

    /// Check a delivery `[a, b)`; returns a description of the violation.
    #[inline]
    pub fn on_delivery(&mut self, a: u64, b: u64) -> Result<(), String> {
        if a != self.delivered {
            return Err(format!(
                "delivery of bytes [{a}, {b}) does not continue from byte {} (duplicate or gap)",
                self.delivered
            ));
        }
        if self.prefix == 0 || self.prefix < b {
            return Err(format!(
                "delivery of bytes [{a}, {b}) includes bytes that never arrived"
            ));
        }
        self.delivered = b;
        Ok(())
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_accepts_contiguous_deliveries_of_arrived_bytes() {
        let mut l = ByteLedger::default();
        l.on_arrival(0, 100);
        l.on_arrival(200, 100);
        assert!(l.on_delivery(0, 100).is_ok());
        l.on_arrival(100, 100);
        assert!(l.on_delivery(100, 300).is_ok());
        assert_eq!(l.delivered(), 300);
    }

    #[test]
    fn ledger_joins_out_of_order_ranges_to_the_prefix() {
        let mut l = ByteLedger::default();
        l.on_arrival(300, 100);
        l.on_arrival(100, 100);
        assert!(l.on_delivery(0, 1).is_err(), "byte 0 never arrived");
        l.on_arrival(0, 50);
        // [0, 50) then a hole: the range above stays apart.
        assert_eq!((l.prefix, l.above.len()), (50, 2));
        l.on_arrival(40, 60);
        // [0, 100) now touches [100, 200): joined; [300, 400) stays above.
        assert_eq!((l.prefix, l.above.len()), (200, 1));
        assert!(l.on_delivery(0, 250).is_err());
        assert!(l.on_delivery(0, 200).is_ok());
        l.on_arrival(150, 200);
        // Reaching past a held range swallows it whole.
        assert_eq!((l.prefix, l.above.len()), (400, 0));
        assert!(l.on_delivery(200, 400).is_ok());
    }

    #[test]
    fn ledger_joins_every_held_range_one_arrival_reaches() {
        let mut l = ByteLedger::default();
        l.on_arrival(100, 100);
        l.on_arrival(300, 100);
        l.on_arrival(600, 100);
        // [0, 350) covers [100, 200) and reaches into [300, 400).
        l.on_arrival(0, 350);
        assert_eq!((l.prefix, l.above.len(), l.above_from), (400, 1, 600));
        assert!(l.on_delivery(0, 400).is_ok());
        l.on_arrival(400, 200);
        assert_eq!((l.prefix, l.above.len(), l.above_from), (700, 0, u64::MAX));
    }

    #[test]
    fn ledger_rejects_duplicates_gaps_and_phantom_bytes() {
        let mut l = ByteLedger::default();
        l.on_arrival(0, 100);
        assert!(l.on_delivery(0, 100).is_ok());
        assert!(l
            .on_delivery(0, 100)
            .unwrap_err()
            .contains("duplicate or gap"));
        assert!(l.on_delivery(150, 200).is_err());
        assert!(l
            .on_delivery(100, 200)
            .unwrap_err()
            .contains("never arrived"));
    }
}
