use super::*;
use crate::engine::rng::RngStream;

fn d(cra: u32, rbdc: u32, vbdc: u32, fca: bool) -> Demand {
    Demand {
        cra,
        rbdc,
        vbdc,
        fca,
        weight: 1.0,
    }
}

#[test]
fn max_min_gives_small_demands_in_full_and_splits_the_rest() {
    // 10 slots for demands 2, 8, 8: 2, then 4 and 4.
    assert_eq!(max_min(10, &[2, 8, 8], &[1.0; 3], 0), vec![2, 4, 4]);
    // Weights 1 and 3 over 8 slots, both wanting 10: 2 and 6.
    assert_eq!(max_min(8, &[10, 10], &[1.0, 3.0], 0), vec![2, 6]);
    // 10 slots, three wanting 5: 10/3 each; the one slot left goes to the
    // first in the rotating order.
    assert_eq!(max_min(10, &[5, 5, 5], &[1.0; 3], 0), vec![4, 3, 3]);
    assert_eq!(max_min(10, &[5, 5, 5], &[1.0; 3], 1), vec![3, 4, 3]);
    // Enough for all: demands.
    assert_eq!(max_min(100, &[5, 0, 7], &[1.0; 3], 0), vec![5, 0, 7]);
}

#[test]
fn categories_are_served_in_order() {
    // 20 slots, 10 positions: CRA 3 and 2 first; RBDC 10 and 10, capped
    // at the positions each has left (7 and 8), take the 15 left; VBDC
    // and FCA get nothing.
    let g = allocate(20, 10, &[d(3, 10, 5, true), d(2, 10, 0, true)], 0);
    assert_eq!(
        g[0],
        Grant {
            cra: 3,
            rbdc: 7,
            vbdc: 0,
            fca: 0
        }
    );
    assert_eq!(
        g[1],
        Grant {
            cra: 2,
            rbdc: 8,
            vbdc: 0,
            fca: 0
        }
    );
    // With room: VBDC, then FCA in turn to those allowed it (capped at
    // the 10 positions each).
    let g = allocate(
        30,
        10,
        &[d(1, 2, 3, true), d(0, 0, 0, false), d(0, 0, 1, true)],
        0,
    );
    assert_eq!(
        g[0],
        Grant {
            cra: 1,
            rbdc: 2,
            vbdc: 3,
            fca: 4
        }
    );
    assert_eq!(g[1], Grant::default());
    assert_eq!(
        g[2],
        Grant {
            cra: 0,
            rbdc: 0,
            vbdc: 1,
            fca: 9
        }
    );
}

#[test]
fn the_beam_never_grants_more_than_its_slots() {
    let mut rng = RngStream::derive(7, "scheduler");
    for round in 0..2000u64 {
        let n = 1 + (rng.uniform() * 12.0) as usize;
        let carriers = 1 + (rng.uniform() * 4.0) as u32;
        let positions = 1 + (rng.uniform() * 20.0) as u32;
        let cap = carriers * positions;
        let demands: Vec<Demand> = (0..n)
            .map(|_| Demand {
                cra: (rng.uniform() * 4.0) as u32,
                rbdc: (rng.uniform() * 30.0) as u32,
                vbdc: (rng.uniform() * 30.0) as u32,
                fca: rng.uniform() < 0.5,
                weight: 0.5 + rng.uniform() * 2.0,
            })
            .collect();
        let g = allocate(cap, positions, &demands, round);
        let total: u32 = g.iter().map(Grant::total).sum();
        assert!(total <= cap, "{total} > {cap}");
        for (gi, di) in g.iter().zip(&demands) {
            assert!(gi.total() <= positions);
            assert!(gi.cra <= di.cra && gi.rbdc <= di.rbdc && gi.vbdc <= di.vbdc);
            assert!(di.fca || gi.fca == 0);
        }
        // Work-conserving: slots stay free only if no demand is left.
        let unmet = g.iter().zip(&demands).any(|(gi, di)| {
            gi.total() < positions
                && (gi.cra < di.cra || gi.rbdc < di.rbdc || gi.vbdc < di.vbdc || di.fca)
        });
        assert!(
            total == cap || !unmet,
            "round {round}: {g:?} for {demands:?}"
        );
        let totals: Vec<u32> = g.iter().map(Grant::total).collect();
        let pos = place(&totals, positions, carriers, round as usize % n);
        let mut cells = std::collections::BTreeMap::new();
        for (i, p) in pos.iter().enumerate() {
            assert_eq!(p.len() as u32, totals[i]);
            assert!(p.windows(2).all(|w| w[0] < w[1]), "one carrier at a time");
            for &x in p {
                *cells.entry(x).or_insert(0u32) += 1;
            }
        }
        assert!(
            cells.values().all(|&c| c <= carriers),
            "no cell given twice"
        );
    }
}

#[test]
fn placement_wraps_runs_across_carriers() {
    // 2 carriers × 5 positions; grants 3, 4, 3 from terminal 0: 0 takes
    // positions 0–2 of carrier 0, 1 takes 3–4 of carrier 0 and 0–1 of
    // carrier 1, 2 takes 2–4 of carrier 1.
    assert_eq!(
        place(&[3, 4, 3], 5, 2, 0),
        vec![vec![0, 1, 2], vec![0, 1, 3, 4], vec![2, 3, 4]]
    );
    // Rotated: 1 first.
    assert_eq!(
        place(&[3, 4, 3], 5, 2, 1),
        vec![vec![2, 3, 4], vec![0, 1, 2, 3], vec![0, 1, 4]]
    );
}
