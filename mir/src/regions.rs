//! The structured regions of a function, found from the headers' annotations and the
//! dominator tree: which construct each block belongs to, and how constructs nest.
//!
//! A block belongs to the construct of header H when H dominates it, H's merge block does
//! not (for a loop the continue construct is included), and it belongs to the construct
//! enclosing H's, if any. The last condition matters where a branch inside an `if` leaves an
//! enclosing loop: the loop's merge is dominated by the `if`'s header, yet it is outside the
//! loop and so outside the `if` (spirv-opt puts the code after a loop there). The innermost
//! construct of a block is the one with the deepest header.

use crate::cfg::Dominators;
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
    by_header: std::collections::HashMap<BlockId, usize>,
}

impl Regions {
    /// Finds the constructs of `f`.
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
        let by_header = constructs
            .iter()
            .enumerate()
            .map(|(i, c)| (c.header, i))
            .collect();
        let mut regions = Regions {
            doms,
            constructs,
            parents: Vec::new(),
            by_header,
        };
        for i in 0..regions.constructs.len() {
            let header = regions.constructs[i].header;
            let parent = (0..i)
                .filter(|&e| regions.holds(e, header))
                .max_by_key(|&e| regions.doms.depth(regions.constructs[e].header));
            regions.parents.push(parent);
        }
        regions
    }

    /// Whether construct `i` (whose enclosing constructs are known) holds block `b`.
    fn holds(&self, i: usize, b: BlockId) -> bool {
        let mut cur = Some(i);
        while let Some(k) = cur {
            let c = &self.constructs[k];
            let merge = c.merge();
            if !self.doms.dominates(c.header, b)
                || (self.doms.reachable(merge) && self.doms.dominates(merge, b))
            {
                return false;
            }
            cur = self.parents.get(k).copied().flatten();
        }
        true
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
        self.constructs
            .iter()
            .filter(|c| Some(c.header) != except && self.contains(c, b))
            .max_by_key(|c| self.doms.depth(c.header))
            .copied()
    }

    /// The construct directly enclosing construct `c`.
    pub fn parent(&self, c: &Construct) -> Option<Construct> {
        self.innermost(c.header, Some(c.header))
    }
}
