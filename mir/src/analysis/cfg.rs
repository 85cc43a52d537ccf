//! Control-flow analyses over a function's live blocks: reverse post-order and dominators.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::func::{BlockId, Function};

/// Dominator information for one function.
pub struct Dominators {
    /// Immediate dominator by block index (`None` for the entry and unreachable blocks).
    idom: Vec<Option<BlockId>>,
    reachable: Vec<bool>,
    pre: Vec<u32>,
    post: Vec<u32>,
    depth: Vec<u32>,
    /// The reachable blocks, each after its immediate dominator.
    preorder: Vec<BlockId>,
}

impl Dominators {
    /// Computes the dominators of `f`'s live blocks.
    pub fn new(f: &Function) -> Self {
        let n = f.blocks.len();
        let mut graph = DiGraph::<(), ()>::with_capacity(n, n);
        for _ in 0..n {
            graph.add_node(());
        }
        for &b in &f.layout {
            for s in f.blocks[b].term.successors() {
                graph.add_edge(NodeIndex::new(b.index()), NodeIndex::new(s.index()), ());
            }
        }
        let doms = simple_fast(&graph, NodeIndex::new(f.entry.index()));
        let mut idom = vec![None; n];
        let mut reachable = vec![false; n];
        let mut children = vec![Vec::new(); n];
        reachable[f.entry.index()] = true;
        for &b in &f.layout {
            if b == f.entry {
                continue;
            }
            if let Some(d) = doms.immediate_dominator(NodeIndex::new(b.index())) {
                reachable[b.index()] = true;
                idom[b.index()] = Some(BlockId::new(d.index()));
                children[d.index()].push(b.index());
            }
        }
        let (mut pre, mut post, mut depth) = (vec![0; n], vec![0; n], vec![0; n]);
        let mut counter = 0;
        let mut preorder = Vec::new();
        let mut stack = vec![(f.entry.index(), false)];
        while let Some((node, done)) = stack.pop() {
            if done {
                post[node] = counter;
                counter += 1;
                continue;
            }
            pre[node] = counter;
            counter += 1;
            preorder.push(BlockId::new(node));
            stack.push((node, true));
            for &c in children[node].iter().rev() {
                depth[c] = depth[node] + 1;
                stack.push((c, false));
            }
        }
        Dominators {
            idom,
            reachable,
            pre,
            post,
            depth,
            preorder,
        }
    }

    /// Whether `a` dominates `b` (a block dominates itself).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let (a, b) = (a.index(), b.index());
        self.reachable[a]
            && self.reachable[b]
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }

    /// The immediate dominator of `b`.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.idom[b.index()]
    }

    /// The depth of `b` in the dominator tree (the entry is 0).
    pub fn depth(&self, b: BlockId) -> u32 {
        self.depth[b.index()]
    }

    /// The reachable blocks in a pre-order walk of the dominator tree: every block comes
    /// after its immediate dominator, so facts can be propagated down the tree in one pass.
    pub fn preorder(&self) -> &[BlockId] {
        &self.preorder
    }

    /// Whether `b` is reachable from the entry.
    pub fn reachable(&self, b: BlockId) -> bool {
        self.reachable[b.index()]
    }
}

/// The live blocks in reverse post-order from the entry (unreachable blocks left out).
pub fn reverse_post_order(f: &Function) -> Vec<BlockId> {
    let mut seen = vec![false; f.blocks.len()];
    let mut order = Vec::new();
    let mut stack = vec![(f.entry, 0usize)];
    seen[f.entry.index()] = true;
    while let Some((b, i)) = stack.pop() {
        let succs = f.blocks[b].term.successors();
        if i < succs.len() {
            stack.push((b, i + 1));
            let s = succs[i];
            if !seen[s.index()] {
                seen[s.index()] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(b);
        }
    }
    order.reverse();
    order
}
