//! Independent check of a receiver's deliveries, kept per connection by the
//! world: every byte an application is told about arrived once and in order.

use crate::tcp::rangeset::RangeSet;

/// Independent check of a receiver's deliveries: records which bytes really
/// arrived in data packets, and verifies each in-order delivery the receiver
/// claims is contiguous with the last and made only of arrived bytes.
///
/// The bytes arrived are `[0, prefix)` and the ranges of `above` (none of
/// which touches the prefix): an arrival in order costs a comparison, one
/// out of order a range-set insert.
#[derive(Clone, Debug, Default)]
pub struct ByteLedger {
    prefix: u64,
    above: RangeSet,
    delivered: u64,
}

impl ByteLedger {
    #[inline]
    pub fn on_arrival(&mut self, seq: u64, len: u32) {
        let end = seq + len as u64;
        if seq > self.prefix {
            self.above.insert(seq, end);
        } else if end > self.prefix {
            self.prefix = end;
            // The held range the prefix now reaches joins it (ranges in the
            // set never touch, so at most one does).
            if let Some((s, e)) = self.above.first() {
                if s <= self.prefix {
                    self.prefix = self.prefix.max(e);
                    self.above.remove_below(self.prefix);
                }
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
