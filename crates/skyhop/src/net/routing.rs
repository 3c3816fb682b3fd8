//! Shortest-delay routes over a graph whose links and delays change with
//! time: a snapshot of the graph at an instant (compressed adjacency, delay
//! in nanoseconds per directed edge), and for each destination the
//! shortest-path tree towards it (Dijkstra with an indexed binary heap,
//! one entry per node, from the destination; delays are symmetric, so the tree gives every node's next
//! hop). Ties go to the lower node index: the result does not depend on
//! the order edges were listed.

/// No next hop (the destination is unreachable, or the node is it).
pub const NO_HOP: u32 = u32::MAX;

/// A graph snapshot: for node u, its edges are `targets[offsets[u]..offsets[u+1]]`.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    offsets: Vec<u32>,
    targets: Vec<u32>,
    weights: Vec<u64>,
}

impl Graph {
    /// From undirected edges (a, b, delay ns): both directions.
    pub fn undirected(nodes: usize, edges: &[(u32, u32, u64)]) -> Graph {
        let mut deg = vec![0u32; nodes + 1];
        for &(a, b, _) in edges {
            deg[a as usize] += 1;
            deg[b as usize] += 1;
        }
        let mut offsets = vec![0u32; nodes + 1];
        for u in 0..nodes {
            offsets[u + 1] = offsets[u] + deg[u];
        }
        let mut fill = offsets.clone();
        let m = 2 * edges.len();
        let (mut targets, mut weights) = (vec![0u32; m], vec![0u64; m]);
        for &(a, b, w) in edges {
            for (u, v) in [(a, b), (b, a)] {
                let i = fill[u as usize] as usize;
                targets[i] = v;
                weights[i] = w;
                fill[u as usize] += 1;
            }
        }
        Graph {
            offsets,
            targets,
            weights,
        }
    }

    pub fn nodes(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn edges(&self) -> usize {
        self.targets.len() / 2
    }

    /// The delay of the edge u → v, if there is one.
    pub fn weight(&self, u: u32, v: u32) -> Option<u64> {
        let (a, b) = (self.offsets[u as usize], self.offsets[u as usize + 1]);
        (a..b)
            .find(|&i| self.targets[i as usize] == v)
            .map(|i| self.weights[i as usize])
    }

    /// The shortest-path tree towards `dst`: `dist[u]` (ns, `u64::MAX` if
    /// unreachable) and `next[u]`, u's next hop towards `dst`.
    pub fn tree_to(&self, dst: u32, dist: &mut Vec<u64>, next: &mut Vec<u32>) {
        let n = self.nodes();
        dist.clear();
        dist.resize(n, u64::MAX);
        next.clear();
        next.resize(n, NO_HOP);
        let mut heap = IndexedHeap::new(n);
        dist[dst as usize] = 0;
        heap.push_or_decrease(dst, dist);
        while let Some(u) = heap.pop(dist) {
            let d = dist[u as usize];
            let (a, b) = (self.offsets[u as usize], self.offsets[u as usize + 1]);
            for i in a as usize..b as usize {
                let v = self.targets[i];
                if heap.settled(v) {
                    continue;
                }
                let nd = d + self.weights[i];
                let dv = dist[v as usize];
                // Ties to the lower next hop.
                if nd < dv || (nd == dv && u < next[v as usize]) {
                    dist[v as usize] = nd;
                    next[v as usize] = u;
                    heap.push_or_decrease(v, dist);
                }
            }
        }
    }
}

/// A binary min-heap of node indices keyed by (distance, node), with each
/// node's position so that a key decreases in place: at most one entry per
/// node.
struct IndexedHeap {
    heap: Vec<u32>,
    /// Position in `heap`, `NO_HOP` when absent; `SETTLED` once popped.
    pos: Vec<u32>,
}

const SETTLED: u32 = u32::MAX - 1;

impl IndexedHeap {
    fn new(n: usize) -> IndexedHeap {
        IndexedHeap {
            heap: Vec::with_capacity(64),
            pos: vec![NO_HOP; n],
        }
    }

    #[inline]
    fn settled(&self, v: u32) -> bool {
        self.pos[v as usize] == SETTLED
    }

    #[inline]
    fn less(dist: &[u64], a: u32, b: u32) -> bool {
        (dist[a as usize], a) < (dist[b as usize], b)
    }

    fn push_or_decrease(&mut self, v: u32, dist: &[u64]) {
        let mut i = match self.pos[v as usize] {
            NO_HOP => {
                self.heap.push(v);
                self.heap.len() - 1
            }
            p => p as usize,
        };
        // Sift up.
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.heap[parent];
            if !Self::less(dist, v, p) {
                break;
            }
            self.heap[i] = p;
            self.pos[p as usize] = i as u32;
            i = parent;
        }
        self.heap[i] = v;
        self.pos[v as usize] = i as u32;
    }

    fn pop(&mut self, dist: &[u64]) -> Option<u32> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().unwrap();
        self.pos[top as usize] = SETTLED;
        if self.heap.is_empty() {
            return Some(top);
        }
        // Sift `last` down from the root.
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && Self::less(dist, self.heap[r], self.heap[l]) {
                r
            } else {
                l
            };
            if !Self::less(dist, self.heap[c], last) {
                break;
            }
            self.heap[i] = self.heap[c];
            self.pos[self.heap[i] as usize] = i as u32;
            i = c;
        }
        self.heap[i] = last;
        self.pos[last as usize] = i as u32;
        Some(top)
    }
}

/// The node path from `src` along `next` pointers to their root (empty if
/// there is no route; at most `limit` nodes).
pub fn path_from(next: &[u32], src: u32, dst: u32, limit: usize) -> Vec<u32> {
    let mut p = vec![src];
    let mut u = src;
    while u != dst {
        u = next[u as usize];
        if u == NO_HOP || p.len() > limit {
            return Vec::new();
        }
        p.push(u);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_gives_next_hops_along_the_shortest_delays() {
        // 0 -1- 1 -1- 2, and 0 -5- 2; 3 alone.
        let g = Graph::undirected(4, &[(0, 1, 1), (1, 2, 1), (0, 2, 5)]);
        let (mut d, mut n) = (Vec::new(), Vec::new());
        g.tree_to(2, &mut d, &mut n);
        assert_eq!(d, vec![2, 1, 0, u64::MAX]);
        assert_eq!(n[0], 1);
        assert_eq!(path_from(&n, 0, 2, 10), vec![0, 1, 2]);
        assert!(path_from(&n, 3, 2, 10).is_empty());
        // Make the direct edge shorter: the route changes.
        let g = Graph::undirected(4, &[(0, 1, 1), (1, 2, 1), (0, 2, 1)]);
        g.tree_to(2, &mut d, &mut n);
        assert_eq!(path_from(&n, 0, 2, 10), vec![0, 2]);
        assert_eq!(g.weight(2, 0), Some(1));
    }

    #[test]
    fn equal_paths_go_through_the_lower_node() {
        // 0-1-3 and 0-2-3, all delays equal, edges listed high first.
        let g = Graph::undirected(4, &[(2, 3, 1), (0, 2, 1), (1, 3, 1), (0, 1, 1)]);
        let (mut d, mut n) = (Vec::new(), Vec::new());
        g.tree_to(3, &mut d, &mut n);
        assert_eq!(path_from(&n, 0, 3, 10), vec![0, 1, 3]);
    }
}
