//! Independent check of a receiver's deliveries, kept per connection by the
//! world: every byte an application is told about arrived once and in order.

use crate::tcp::rangeset::RangeSet;

/// Independent check of a receiver's deliveries: records which bytes really
/// arrived in data packets, and verifies each in-order delivery the receiver
/// claims is contiguous with the last and made only of arrived bytes.
#[derive(Clone, Debug, Default)]
pub struct ByteLedger {
    arrived: RangeSet,
    delivered: u64,
}

impl ByteLedger {
    #[inline]
    pub fn on_arrival(&mut self, seq: u64, len: u32) {
        self.arrived.insert(seq, seq + len as u64);
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
        match self.arrived.first() {
            Some((0, end)) if end >= b => {}
            _ => {
                return Err(format!(
                    "delivery of bytes [{a}, {b}) includes bytes that never arrived"
                ))
            }
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
