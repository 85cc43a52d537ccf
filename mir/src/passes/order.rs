//! Block order: the layout becomes reverse post-order (every block after its dominators, as
//! the back ends emit structured code in layout order), with unreachable blocks removed
//! unless a structured region still names them.

use crate::hash::HashSet;

use crate::analysis::cfg::reverse_post_order;
use crate::func::{BlockId, Function, Structure};

/// Reorders the layout. Returns whether it changed.
pub fn run(f: &mut Function) -> bool {
    let mut order = reverse_post_order(f);
    let reached: HashSet<BlockId> = order.iter().copied().collect();
    // Merge blocks that no path reaches stay: their headers still name them.
    let mut named = Vec::new();
    for &b in &order {
        match f.blocks[b].structure {
            Some(Structure::If { merge } | Structure::Region { merge }) => named.push(merge),
            Some(Structure::Loop { merge, cont }) => named.extend([merge, cont]),
            None => {}
        }
    }
    for b in named {
        if !reached.contains(&b) && !order.contains(&b) {
            order.push(b);
        }
    }
    let changed = order != f.layout;
    f.layout = order;
    changed
}
