//! Adaptive coding and modulation per terminal on a DVB-S2 forward
//! carrier: the terminal measures the Es/N₀ it receives every report
//! period and reports it; the gateway receives each report `delay` later
//! and picks the MODCOD for the frames it sends that terminal from then on:
//!
//! - the usable Es/N₀ is the report minus the margin, E = r − margin;
//! - down at once: if the MODCOD in use needs more than E, the most
//!   efficient MODCOD whose threshold is at most E (the most robust one if
//!   none is);
//! - up with hysteresis: otherwise, the most efficient MODCOD whose
//!   threshold plus the hysteresis is at most E, if it is more efficient
//!   than the one in use.
//!
//! Reports are taken at k × period (k = 0, 1, …) and applied in order,
//! lazily, when the gateway next needs the terminal's MODCOD. Until the
//! first report arrives the gateway uses the most robust MODCOD allowed.
//! A threshold is the MODCOD's ideal Es/N₀ plus the carrier's threshold
//! offset (e.g. an implementation loss).

use crate::engine::time::{Dur, Time};

/// The MODCODs a carrier may use, with their thresholds: indices into
/// `modcod::MODCODS`, and (threshold dB, efficiency bit/symbol) of each.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder {
    pub index: Vec<usize>,
    pub threshold_db: Vec<f64>,
    pub efficiency: Vec<f64>,
}

impl Ladder {
    /// The most robust rung (lowest threshold).
    pub fn most_robust(&self) -> usize {
        (0..self.index.len())
            .min_by(|&a, &b| self.threshold_db[a].total_cmp(&self.threshold_db[b]))
            .expect("a ladder has a rung")
    }
    /// The most efficient rung whose threshold is at most `e_db`.
    pub fn best_under(&self, e_db: f64) -> Option<usize> {
        (0..self.index.len())
            .filter(|&r| self.threshold_db[r] <= e_db)
            .max_by(|&a, &b| {
                self.efficiency[a]
                    .total_cmp(&self.efficiency[b])
                    .then(self.threshold_db[b].total_cmp(&self.threshold_db[a]))
            })
    }
}

/// The ACM rule's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AcmRule {
    pub margin_db: f64,
    pub hysteresis_db: f64,
    pub period: Dur,
}

/// One terminal's ACM state at the gateway.
#[derive(Clone, Debug)]
pub struct Acm {
    /// The rung in use.
    pub rung: usize,
    /// Index of the next report to apply.
    next: u64,
    delay: Dur,
    /// MODCOD switches made.
    pub switches: u64,
    /// (time applied, rung) at each change.
    pub history: Vec<(Time, usize)>,
}

impl Acm {
    pub fn new(ladder: &Ladder, delay: Dur) -> Acm {
        let rung = ladder.most_robust();
        Acm {
            rung,
            next: 0,
            delay,
            switches: 0,
            history: vec![(Time::ZERO, rung)],
        }
    }

    /// The rule applied to one report `r_db` (reported Es/N₀).
    pub fn decide(ladder: &Ladder, rule: &AcmRule, current: usize, r_db: f64) -> usize {
        let e = r_db - rule.margin_db;
        if ladder.threshold_db[current] > e {
            return ladder.best_under(e).unwrap_or_else(|| ladder.most_robust());
        }
        match ladder.best_under(e - rule.hysteresis_db) {
            Some(u) if ladder.efficiency[u] > ladder.efficiency[current] => u,
            _ => current,
        }
    }

    /// Apply every report that reached the gateway by `now`; `measure(t)`
    /// is the Es/N₀ the terminal measured at `t`. Returns the rung in use.
    pub fn update(
        &mut self,
        now: Time,
        ladder: &Ladder,
        rule: &AcmRule,
        mut measure: impl FnMut(Time) -> f64,
    ) -> usize {
        loop {
            if rule.period.0 == 0 && self.next > 0 {
                break; // (a period of zero: one report, at 0)
            }
            let taken = Time(self.next.saturating_mul(rule.period.0));
            if taken + self.delay > now {
                break;
            }
            let r = measure(taken);
            let next = Acm::decide(ladder, rule, self.rung, r);
            if next != self.rung {
                self.rung = next;
                self.switches += 1;
                self.history.push((taken + self.delay, next));
            }
            self.next += 1;
        }
        self.rung
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dvbs2::modcod::{by_name, MODCODS};

    /// The DVB-S2 QPSK and 8PSK rungs (normal frames).
    fn ladder() -> Ladder {
        let names = [
            "QPSK 1/4",
            "QPSK 1/3",
            "QPSK 2/5",
            "QPSK 1/2",
            "QPSK 3/5",
            "QPSK 2/3",
            "QPSK 3/4",
            "QPSK 4/5",
            "QPSK 5/6",
            "QPSK 8/9",
            "QPSK 9/10",
            "8PSK 3/5",
            "8PSK 2/3",
            "8PSK 3/4",
            "8PSK 5/6",
            "8PSK 8/9",
            "8PSK 9/10",
        ];
        let index: Vec<usize> = names.iter().map(|n| by_name(n).unwrap()).collect();
        Ladder {
            threshold_db: index.iter().map(|&i| MODCODS[i].esn0_db).collect(),
            efficiency: index.iter().map(|&i| MODCODS[i].table_efficiency).collect(),
            index,
        }
    }

    fn name(l: &Ladder, r: usize) -> &'static str {
        MODCODS[l.index[r]].name
    }

    #[test]
    fn the_most_efficient_mode_under_the_margin_is_chosen() {
        let l = ladder();
        let rule = AcmRule {
            margin_db: 0.5,
            hysteresis_db: 0.3,
            period: Dur::from_millis(100),
        };
        let start = l.most_robust();
        assert_eq!(name(&l, start), "QPSK 1/4");
        // 10 dB − 0.5 = 9.5 ≥ 9.35 + 0.3? No (9.65): 8PSK 3/4 (7.91 + 0.3).
        assert_eq!(name(&l, Acm::decide(&l, &rule, start, 10.0)), "8PSK 3/4");
        // QPSK 9/10 (6.42) beats 8PSK 3/5 (5.50) in efficiency: 1.7886 > 1.7800.
        assert_eq!(name(&l, Acm::decide(&l, &rule, start, 7.3)), "QPSK 9/10");
    }

    #[test]
    fn switches_happen_at_thresholds_plus_hysteresis_after_the_report_delay() {
        // Es/N0 10 dB until 5 s, 3 dB until 10 s, then 8 dB; reports every
        // 100 ms arrive 250 ms after they are taken.
        let l = ladder();
        let rule = AcmRule {
            margin_db: 0.5,
            hysteresis_db: 0.3,
            period: Dur::from_millis(100),
        };
        let esn0 = |t: Time| match t.as_secs_f64() {
            x if x < 5.0 => 10.0,
            x if x < 10.0 => 3.0,
            _ => 8.0,
        };
        let mut acm = Acm::new(&l, Dur::from_millis(250));
        let at = |s: f64| Time::from_secs_f64(s);
        // Before the first report arrives (taken at 0, in at 0.25 s): the most robust.
        assert_eq!(
            name(&l, acm.update(at(0.249_999), &l, &rule, esn0)),
            "QPSK 1/4"
        );
        // 10 − 0.5 − 0.3 = 9.2 ≥ 7.91: 8PSK 3/4 from 0.25 s.
        assert_eq!(name(&l, acm.update(at(0.25), &l, &rule, esn0)), "8PSK 3/4");
        // The report taken at 5.0 s (3 dB) arrives at 5.25 s: down at once to
        // the best under 2.5 dB, QPSK 3/5 (2.23).
        assert_eq!(name(&l, acm.update(at(5.249), &l, &rule, esn0)), "8PSK 3/4");
        assert_eq!(name(&l, acm.update(at(5.25), &l, &rule, esn0)), "QPSK 3/5");
        // The report taken at 10.0 s (8 dB): up to the best under
        // 8 − 0.5 − 0.3 = 7.2 dB, 8PSK 2/3 (6.62), at 10.25 s.
        assert_eq!(
            name(&l, acm.update(at(10.249), &l, &rule, esn0)),
            "QPSK 3/5"
        );
        assert_eq!(name(&l, acm.update(at(10.25), &l, &rule, esn0)), "8PSK 2/3");
        let h: Vec<(f64, &str)> = acm
            .history
            .iter()
            .map(|&(t, r)| (t.as_secs_f64(), name(&l, r)))
            .collect();
        assert_eq!(
            h,
            vec![
                (0.0, "QPSK 1/4"),
                (0.25, "8PSK 3/4"),
                (5.25, "QPSK 3/5"),
                (10.25, "8PSK 2/3")
            ]
        );
        assert_eq!(acm.switches, 3);
    }

    #[test]
    fn within_the_hysteresis_band_the_mode_stays() {
        let l = ladder();
        let rule = AcmRule {
            margin_db: 0.0,
            hysteresis_db: 1.0,
            period: Dur::from_millis(100),
        };
        let q34 = l
            .index
            .iter()
            .position(|&i| MODCODS[i].name == "QPSK 3/4")
            .unwrap();
        // QPSK 4/5 needs 4.68: at 5.5 dB it is 0.82 dB clear, inside the
        // 1 dB band, so QPSK 3/4 stays; at 5.68 it goes up.
        assert_eq!(Acm::decide(&l, &rule, q34, 5.5), q34);
        assert_eq!(name(&l, Acm::decide(&l, &rule, q34, 5.68)), "QPSK 4/5");
        // Down as soon as the mode in use is above the measure.
        assert_eq!(name(&l, Acm::decide(&l, &rule, q34, 4.0)), "QPSK 2/3");
    }
}
