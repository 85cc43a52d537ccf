//! The structured regions of a function, found from the headers' annotations and the
//! dominator tree: which construct each block belongs to, and how constructs nest.
//!
//! A block belongs to the construct of header H when H dominates it, H's merge block does
//! not (for a loop the continue construct is included), and it belongs to the construct
//! enclosing H's, if any. The last condition matters where a branch inside an `if` leaves an
//! enclosing loop: the loop's merge is dominated by the `if`'s header, yet it is outside the
//! loop and so outside the `if` (spirv-opt puts the code after a loop there). The innermost
//! construct of a block is the one with the deepest header.

use crate::analysis::cfg::Dominators;
use crate::func::{BlockId, Function, Structure};

/// One construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Construct {
    /// The header block.
    pub header: BlockId,
    /// What the header declared.
    pub structure: Structure,
}

impl Construct {
    /// The merge block.
    pub fn merge(&self) -> BlockId {
        match self.structure {
            Structure::If { merge }
            | Structure::Loop { merge, .. }
            | Structure::Region { merge } => merge,
        }
    }
}

/// The constructs of a function and its dominators.
pub struct Regions {
    /// Dominators of the function's CFG.
    pub doms: Dominators,
    /// Every construct whose header is reachable.
    pub constructs: Vec<Construct>,
    /// The enclosing construct of each (an index into `constructs`).
    parents: Vec<Option<usize>>,
    /// Which construct each header opens.
    by_header: crate::hash::HashMap<BlockId, usize>,
    /// The innermost construct holding each block, by block index.
    inner: Vec<Option<usize>>,
}

impl Regions {
    /// Finds the constructs of `f`, in time linear in its blocks (plus the nesting depth at
    /// each merge block).
    pub fn new(f: &Function) -> Self {
        let doms = Dominators::new(f);
        let mut constructs: Vec<Construct> = f
            .layout
            .iter()
            .filter(|&&b| doms.reachable(b))
            .filter_map(|&b| {
                f.blocks[b].structure.map(|structure| Construct {
                    header: b,
                    structure,
                })
            })
            .collect();
        // Outer constructs first: an enclosing header dominates, so it is shallower.
        constructs.sort_by_key(|c| doms.depth(c.header));
        let by_header: crate::hash::HashMap<BlockId, usize> = constructs
            .iter()
            .enumerate()
            .map(|(i, c)| (c.header, i))
            .collect();
        let n = f.blocks.len();
        let mut merging: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, c) in constructs.iter().enumerate() {
            merging[c.merge().index()].push(i);
        }
        // Down the dominator tree: a block is in the constructs of its immediate dominator,
        // except one it is the merge of (and everything inside that), plus its own.
        let mut parents = vec![None; constructs.len()];
        let mut inner: Vec<Option<usize>> = vec![None; n];
        for &b in doms.preorder() {
            let mut cur = doms.idom(b).and_then(|p| inner[p.index()]);
            let leaving = &merging[b.index()];
            if !leaving.is_empty() {
                let mut k = cur;
                while let Some(i) = k {
                    if leaving.contains(&i) {
                        cur = parents[i];
                    }
                    k = parents[i];
                }
            }
            if let Some(&i) = by_header.get(&b) {
                parents[i] = cur;
                cur = Some(i);
            }
            inner[b.index()] = cur;
        }
        Regions {
            doms,
            constructs,
            parents,
            by_header,
            inner,
        }
    }

    /// Whether construct `i` holds block `b`.
    fn holds(&self, i: usize, b: BlockId) -> bool {
        let mut k = self.inner.get(b.index()).copied().flatten();
        while let Some(j) = k {
            if j == i {
                return true;
            }
            k = self.parents[j];
        }
        false
    }

    /// Whether block `b` belongs to construct `c`.
    pub fn contains(&self, c: &Construct, b: BlockId) -> bool {
        match self.by_header.get(&c.header) {
            Some(&i) if self.constructs[i] == *c => self.holds(i, b),
            _ => false,
        }
    }

    /// The innermost construct holding `b`, other than one headed by `except`.
    pub fn innermost(&self, b: BlockId, except: Option<BlockId>) -> Option<Construct> {
        let mut k = self.inner.get(b.index()).copied().flatten()?;
        if Some(self.constructs[k].header) == except {
            k = self.parents[k]?;
        }
        Some(self.constructs[k])
    }

    /// The construct directly enclosing construct `c`.
    pub fn parent(&self, c: &Construct) -> Option<Construct> {
        self.innermost(c.header, Some(c.header))
    }

    /// Whether a loop holds `b` (so that it may run more than once).
    pub fn in_loop(&self, b: BlockId) -> bool {
        let mut c = self.innermost(b, None);
        while let Some(k) = c {
            if matches!(k.structure, Structure::Loop { .. }) {
                return true;
            }
            c = self.parent(&k);
        }
        false
    }
}
