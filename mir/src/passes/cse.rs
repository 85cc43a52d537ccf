//! Common-subexpression elimination: a pure instruction identical to one that dominates it
//! (same operation, same operands with the same swizzles and modifiers) is replaced by it.
//! Uniform and input loads count as pure (they read state fixed for the whole run).

use crate::hash::HashMap;

use crate::analysis::cfg::Dominators;
use crate::func::{BlockId, Function, Replacements, Value};
use crate::inst::{Op, Operand};
use crate::types::Ty;

type Key = (Op, Vec<Operand>, Vec<Ty>);

/// Merges identical instructions. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let doms = Dominators::new(f);
    let n = f.blocks.len();
    let mut children: Vec<Vec<BlockId>> = vec![Vec::new(); n];
    for &b in &f.layout {
        if let Some(d) = doms.idom(b) {
            children[d.index()].push(b);
        }
    }
    let mut replace = Replacements::default();
    // A scoped table: entries are added in a block and dropped when the walk leaves it.
    let mut table: HashMap<Key, Value> = HashMap::default();
    let mut stack: Vec<(BlockId, bool, Vec<Key>)> = vec![(f.entry, false, Vec::new())];
    while let Some((b, done, added)) = stack.pop() {
        if done {
            for k in added {
                table.remove(&k);
            }
            continue;
        }
        let mut mine = Vec::new();
        for i in f.blocks[b].insts.clone() {
            // Operands as earlier replacements left them, so that chains of duplicates go
            // in one walk (a block's dominators were walked before it).
            replace.apply(f, i);
            let inst = &f.insts[i];
            if !inst.op.is_pure() || inst.results.len() != 1 {
                continue;
            }
            let tys: Vec<Ty> = inst.results.iter().map(|&r| f.ty(r)).collect();
            let key: Key = (inst.op, inst.args.clone(), tys);
            match table.get(&key) {
                Some(&v) => {
                    replace.insert(inst.results[0], Operand::new(v));
                }
                None => {
                    table.insert(key.clone(), inst.results[0]);
                    mine.push(key);
                }
            }
        }
        stack.push((b, true, mine));
        for &c in &children[b.index()] {
            stack.push((c, false, Vec::new()));
        }
    }
    replace.finish(f)
}
