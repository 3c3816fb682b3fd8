//! The gateway's allocation of one superframe's timeslots among the
//! terminals of a beam, in the order of the capacity categories of DVB-RCS2
//! (ETSI TS 101 545-3 / EN 301 545-2: CRA, RBDC, VBDC, FCA):
//!
//! 1. CRA: each terminal's constant-rate slots (the plan checks their sum
//!    fits the superframe; here they are served first, by the same fair
//!    share if they ever did not);
//! 2. RBDC: the slots of each terminal's current rate request, shared by
//!    weighted max-min fairness when they exceed what is left;
//! 3. VBDC: the slots of each terminal's outstanding volume, the same way;
//! 4. FCA: what is left, one slot at a time in turn to the terminals
//!    allowed free capacity, the turn's start rotating each superframe.
//!
//! No terminal gets more timeslots than the superframe has time positions
//! (it sends on one carrier at a time), so no demand counts beyond that.
//!
//! **Weighted max-min fairness** over integer slots: every terminal whose
//! demand is at most its weighted share of what is left (left × w_i / Σ w)
//! gets its demand, and the share is computed again over the others, until
//! none is satisfied; then each gets the integer part of its share and the
//! slots that remain go one each by largest fractional part, ties in the
//! superframe's rotating order.
//!
//! **Placement** (McNaughton's wrap-around rule): the superframe's cells
//! are taken carrier by carrier, each carrier's time positions in order;
//! the terminals, in the rotating order, take consecutive runs of their
//! grant. A run of at most one superframe's positions never holds two
//! cells of the same position, so every grant that fits is placed.

/// One terminal's demand for a superframe, in timeslots.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Demand {
    pub cra: u32,
    pub rbdc: u32,
    pub vbdc: u32,
    pub fca: bool,
    pub weight: f64,
}

/// What one terminal is granted, by category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grant {
    pub cra: u32,
    pub rbdc: u32,
    pub vbdc: u32,
    pub fca: u32,
}

impl Grant {
    pub fn total(&self) -> u32 {
        self.cra + self.rbdc + self.vbdc + self.fca
    }
}

/// Weighted max-min fair shares of `cap` slots for `demand` (see the
/// module's text); `rotate` sets the tie order.
pub fn max_min(cap: u32, demand: &[u32], weight: &[f64], rotate: usize) -> Vec<u32> {
    let n = demand.len();
    let mut alloc = vec![0u32; n];
    let mut active: Vec<usize> = (0..n)
        .filter(|&i| demand[i] > 0 && weight[i] > 0.0)
        .collect();
    let mut left = cap;
    while !active.is_empty() && left > 0 {
        let w: f64 = active.iter().map(|&i| weight[i]).sum();
        let share = |i: usize| left as f64 * weight[i] / w;
        let sat: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&i| (demand[i] as f64) <= share(i))
            .collect();
        if !sat.is_empty() {
            for &i in &sat {
                alloc[i] = demand[i];
                left -= demand[i];
            }
            active.retain(|i| !sat.contains(i));
            continue;
        }
        let shares: Vec<(usize, f64)> = active.iter().map(|&i| (i, share(i))).collect();
        for &(i, s) in &shares {
            let whole = s.floor() as u32;
            alloc[i] = whole;
            left -= whole;
        }
        let mut order = shares;
        order.sort_by(|a, b| {
            let fa = a.1 - a.1.floor();
            let fb = b.1 - b.1.floor();
            fb.total_cmp(&fa)
                .then(((a.0 + n - rotate % n.max(1)) % n).cmp(&((b.0 + n - rotate % n.max(1)) % n)))
        });
        for (i, _) in order.into_iter().take(left as usize) {
            alloc[i] += 1;
        }
        left = 0;
    }
    alloc
}

/// The grants of one superframe of `capacity` slots and `positions` time
/// positions; `round` (the superframe's index) rotates ties and FCA.
pub fn allocate(capacity: u32, positions: u32, demands: &[Demand], round: u64) -> Vec<Grant> {
    let n = demands.len();
    let rot = if n == 0 {
        0
    } else {
        (round % n as u64) as usize
    };
    let weight: Vec<f64> = demands.iter().map(|d| d.weight).collect();
    let mut g = vec![Grant::default(); n];
    let mut left = capacity;
    let mut room: Vec<u32> = vec![positions; n];
    let step = |want: &dyn Fn(&Demand) -> u32,
                put: &dyn Fn(&mut Grant, u32),
                left: &mut u32,
                g: &mut Vec<Grant>,
                room: &mut Vec<u32>| {
        let d: Vec<u32> = demands
            .iter()
            .zip(room.iter())
            .map(|(x, &r)| want(x).min(r))
            .collect();
        let a = max_min(*left, &d, &weight, rot);
        for i in 0..n {
            put(&mut g[i], a[i]);
            room[i] -= a[i];
            *left -= a[i];
        }
    };
    step(&|d| d.cra, &|g, a| g.cra = a, &mut left, &mut g, &mut room);
    step(
        &|d| d.rbdc,
        &|g, a| g.rbdc = a,
        &mut left,
        &mut g,
        &mut room,
    );
    step(
        &|d| d.vbdc,
        &|g, a| g.vbdc = a,
        &mut left,
        &mut g,
        &mut room,
    );
    // FCA: one slot at a time in turn.
    let fca: Vec<usize> = (0..n)
        .map(|k| (rot + k) % n)
        .filter(|&i| demands[i].fca)
        .collect();
    while left > 0 {
        let mut gave = false;
        for &i in &fca {
            if left == 0 {
                break;
            }
            if room[i] > 0 {
                g[i].fca += 1;
                room[i] -= 1;
                left -= 1;
                gave = true;
            }
        }
        if !gave {
            break;
        }
    }
    g
}

/// Time positions of each terminal's timeslots (sorted), by McNaughton's
/// rule over `carriers` × `positions` cells, terminals taken from `rot`.
pub fn place(totals: &[u32], positions: u32, carriers: u32, rot: usize) -> Vec<Vec<u32>> {
    let n = totals.len();
    let mut out = vec![Vec::new(); n];
    let mut cell = 0u32;
    for k in 0..n {
        let i = (rot + k) % n;
        for _ in 0..totals[i] {
            assert!(
                cell < positions * carriers,
                "grants beyond the superframe's cells"
            );
            out[i].push(cell % positions);
            cell += 1;
        }
        out[i].sort_unstable();
    }
    out
}

#[cfg(test)]
mod tests;
