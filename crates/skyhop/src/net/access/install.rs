//! The epoch's access paths written into a moving network's routing state.
//!
//! A moving network forwards every packet by its destination's next-hop
//! table (`net::mobile::RoutingState`), computed as shortest-delay trees.
//! For each destination in use, and each terminal with service in the
//! epoch, the terminal's path overrides the tree:
//! - towards the terminal (its host or its dish): PoP → gateway → the
//!   satellites in reverse → dish;
//! - towards anything else: dish → serving satellite → … → gateway → PoP,
//!   and from the PoP on, the tree.
//!
//! A terminal without service in the epoch has no next hop from its dish
//! (its packets are dropped there as unroutable). A table of next hops
//! per destination holds one way on from each node: where the way down to
//! a terminal and another terminal's way up share a gateway or satellite,
//! the way down wins; where two terminals' ways up cross the same
//! satellite, the later terminal's hop wins there. So traffic from one
//! terminal to another turns at the first node where its way up meets the
//! other's way down (a shared gateway sends it back up without the PoP). The delays of every node's route are then
//! recomputed along the new next hops, with the snapshot's link delays.

use super::AccessNet;
use crate::engine::time::Dur;
use crate::net::routing::{Graph, NO_HOP};

impl AccessNet {
    /// Override the next hops (`next[slot][node]`) and route delays
    /// (`dist[slot][node]`, ns) of every destination slot (`dests[slot]`
    /// its node) with the access paths of the epoch holding `t`; `g` is
    /// the snapshot the trees were computed on.
    pub fn install(
        &self,
        t: Dur,
        g: &Graph,
        dests: &[u32],
        next: &mut [Vec<u32>],
        dist: &mut [Vec<u64>],
    ) {
        if self.terminals.is_empty() {
            return;
        }
        let plan = self.plan_at(t);
        for (slot, &dst) in dests.iter().enumerate() {
            let nx = &mut next[slot];
            let towards = |term: &super::TerminalSpec| dst == term.host || dst == term.dish;
            // The other terminals' ways up first, then the way down to the
            // destination's terminal: where they share a gateway (up: on to
            // the PoP; down: to the satellite), the way down wins.
            for (term, a) in self.terminals.iter().zip(&plan.terminals) {
                match a {
                    _ if towards(term) => {}
                    Some(a) => {
                        for w in a.path.windows(2) {
                            nx[w[0] as usize] = w[1];
                        }
                    }
                    None => nx[term.dish as usize] = NO_HOP,
                }
            }
            for (term, a) in self.terminals.iter().zip(&plan.terminals) {
                if let (true, Some(a)) = (towards(term), a) {
                    for w in a.path.windows(2) {
                        nx[w[1] as usize] = w[0];
                    }
                }
            }
            route_delays(g, dst, nx, &mut dist[slot]);
        }
    }
}

/// `dist[v]`: the delay (ns) from `v` along the next hops to `dst`
/// (`u64::MAX` when they lead nowhere or round a loop).
pub(super) fn route_delays(g: &Graph, dst: u32, next: &[u32], dist: &mut [u64]) {
    const TODO: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let n = next.len();
    let mut state = vec![TODO; n];
    dist[dst as usize] = 0;
    state[dst as usize] = DONE;
    let mut stack = Vec::new();
    for v in 0..n {
        if state[v] != TODO {
            continue;
        }
        // Walk forward until a node whose delay is known (or a dead end,
        // or a node already on this walk: a loop).
        let mut u = v;
        let end = loop {
            if state[u] == DONE {
                break dist[u];
            }
            if state[u] == OPEN {
                break u64::MAX;
            }
            state[u] = OPEN;
            stack.push(u);
            let w = next[u];
            if w == NO_HOP {
                break u64::MAX;
            }
            u = w as usize;
        };
        // Unwind: each node's delay is its hop's plus the rest.
        let mut acc = end;
        while let Some(x) = stack.pop() {
            if acc != u64::MAX {
                acc = match g.weight(x as u32, next[x]) {
                    Some(w) => acc + w,
                    None => u64::MAX,
                };
            }
            dist[x] = acc;
            state[x] = DONE;
        }
    }
}
