//! The structured regions of a function, found from the headers' annotations and the
//! dominator tree: which construct each block belongs to, and how constructs nest.
//!
//! A block belongs to the construct of header H when H dominates it and H's merge block
//! does not (for a loop the continue construct is included). The innermost construct of a
//! block is the one with the deepest header.

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
}

impl Regions {
    /// Finds the constructs of `f`.
    pub fn new(f: &Function) -> Self {
        let doms = Dominators::new(f);
        let constructs = f
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
        Regions { doms, constructs }
    }

    /// Whether block `b` belongs to construct `c`.
    pub fn contains(&self, c: &Construct, b: BlockId) -> bool {
        let merge = c.merge();
        self.doms.dominates(c.header, b)
            && !(self.doms.reachable(merge) && self.doms.dominates(merge, b))
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
