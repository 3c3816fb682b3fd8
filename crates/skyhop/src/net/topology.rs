//! The network as a graph of nodes and link directions, and its static
//! routes: fewest hops, ties broken towards the lowest node index, so the
//! choice is deterministic. The one route search of a static network: the
//! plan takes a flow's path from here when it names none, and packets from
//! outside the simulation (a live host's) get theirs here, on first use of
//! a (from, to) pair.

use std::collections::VecDeque;

/// Nodes and the link directions leaving each, by neighbour.
#[derive(Clone, Debug, Default)]
pub struct Topology {
    /// For each node: (neighbour, link direction), sorted by neighbour.
    adj: Vec<Vec<(u32, u32)>>,
}

impl Topology {
    /// `nodes` nodes joined by the link directions `dirs[i] = (from, to)`
    /// (direction `i`).
    pub fn new(nodes: usize, dirs: impl IntoIterator<Item = (u32, u32)>) -> Topology {
        let mut adj = vec![Vec::new(); nodes];
        for (i, (from, to)) in dirs.into_iter().enumerate() {
            adj[from as usize].push((to, i as u32));
        }
        for a in &mut adj {
            a.sort_unstable();
        }
        Topology { adj }
    }

    pub fn nodes(&self) -> usize {
        self.adj.len()
    }

    /// The node path from `src` to `dst` with the fewest hops (`None` if
    /// they are not connected).
    pub fn path(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
        let n = self.adj.len();
        if src as usize >= n || dst as usize >= n {
            return None;
        }
        let mut prev = vec![u32::MAX; n];
        let mut seen = vec![false; n];
        let mut q = VecDeque::new();
        seen[src as usize] = true;
        q.push_back(src);
        while let Some(u) = q.pop_front() {
            if u == dst {
                let mut p = vec![dst];
                let mut c = dst;
                while c != src {
                    c = prev[c as usize];
                    p.push(c);
                }
                p.reverse();
                return Some(p);
            }
            for &(v, _) in &self.adj[u as usize] {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    prev[v as usize] = u;
                    q.push_back(v);
                }
            }
        }
        None
    }

    /// The link direction from `a` to its neighbour `b`.
    pub fn dir_between(&self, a: u32, b: u32) -> Option<u32> {
        let l = &self.adj[a as usize];
        l.binary_search_by_key(&b, |&(v, _)| v).ok().map(|k| l[k].1)
    }

    /// The link directions along a node path.
    pub fn dirs_of(&self, path: &[u32]) -> Vec<u32> {
        path.windows(2)
            .map(|w| {
                self.dir_between(w[0], w[1])
                    .expect("consecutive nodes of a path are joined")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewest_hops_with_ties_to_the_lowest_node() {
        // 0 - 1 - 3 and 0 - 2 - 3 (two equal paths), 3 - 4.
        let links = [(0, 1), (1, 3), (0, 2), (2, 3), (3, 4)];
        let dirs: Vec<(u32, u32)> = links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let t = Topology::new(5, dirs);
        assert_eq!(t.path(0, 4), Some(vec![0, 1, 3, 4]));
        assert_eq!(t.path(4, 0), Some(vec![4, 3, 1, 0]));
        assert_eq!(t.dirs_of(&[0, 1, 3, 4]), vec![0, 2, 8]);
        assert_eq!(t.path(2, 2), Some(vec![2]));
        let lonely = Topology::new(3, [(0, 1), (1, 0)]);
        assert_eq!(lonely.path(0, 2), None);
        assert_eq!(lonely.path(0, 7), None);
    }
}
