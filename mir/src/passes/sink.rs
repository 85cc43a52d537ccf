//! Sinking: a pure instruction moves down its block to just before its first use, when that
//! makes no operand live longer (each temporary operand is read again at or after the new
//! place, or lives past the block). Its result then holds a register for less time and no
//! other value holds one for more, so the number of live temporaries can only drop: what
//! lets a long shader fit in eight registers. glslang emits each statement's arithmetic
//! where the statement stands, often long before the result is needed.
//!
//! Instructions are visited from the bottom up, so a chain of computations sinks together
//! toward the one use at its end.

use crate::hash::HashSet;

use crate::analysis::liveness::{is_temporary, live_in};
use crate::func::{BlockId, Function, Value};

/// Sinks what it can. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let live = live_in(f);
    let mut changed = false;
    for b in f.layout.clone() {
        let mut live_out: HashSet<Value> = HashSet::default();
        for s in f.blocks[b].term.successors() {
            live_out.extend(live[s.index()].iter().copied());
        }
        for op in f.blocks[b].term.operands() {
            live_out.insert(op.value);
        }
        changed |= sink_block(f, b, &live_out);
    }
    changed
}

/// How far ahead (in instructions) a move looks for readers. Past it a value counts as
/// read (so nothing moves on its account): the pass stays linear in a block's length.
/// Only blocks longer than any program the targets hold are affected (a MIR instruction
/// is at least one PICA instruction or AGAL token, and AGAL 3 runs at most 2048).
const WINDOW: usize = 2048;

fn sink_block(f: &mut Function, b: BlockId, live_out: &HashSet<Value>) -> bool {
    let mut insts = f.blocks[b].insts.clone();
    let mut changed = false;
    let mut k = insts.len();
    while k > 0 {
        k -= 1;
        let inst = &f.insts[insts[k]];
        let Some(result) = inst.result() else {
            continue;
        };
        // Constants, inputs and uniforms hold no temporary: nothing to gain.
        if !inst.op.is_pure() || !is_temporary(f, result) {
            continue;
        }
        let reads = |pos: usize, v: Value| f.insts[insts[pos]].args.iter().any(|a| a.value == v);
        // Whether `v` is read at or after `pos` (or may be, past the window), or needs no
        // temporary.
        let live_from = |pos: usize, v: Value| {
            !is_temporary(f, v)
                || live_out.contains(&v)
                || pos + WINDOW < insts.len()
                || (pos..insts.len()).any(|p| reads(p, v))
        };
        // The new place: just before the first reader in the block (or at the end).
        let end = insts.len().min(k + 1 + WINDOW);
        let first = match (k + 1..end).find(|&p| reads(p, result)) {
            Some(p) => p,
            None if end == insts.len() => end,
            None => continue,
        };
        if !inst.args.iter().all(|a| live_from(first, a.value)) {
            continue;
        }
        // Stay ahead of the reader's other operands computed just before it that could
        // move there just as well: passing them gains nothing, and they would pass this
        // one back on the next run.
        let mut target = first;
        while target > k + 1 && first < insts.len() {
            let y = &f.insts[insts[target - 1]];
            match y.result() {
                Some(r) if reads(first, r) && y.args.iter().all(|a| live_from(first, a.value)) => {
                    target -= 1
                }
                _ => break,
            }
        }
        if target == k + 1 {
            continue;
        }
        let i = insts.remove(k);
        insts.insert(target - 1, i);
        changed = true;
    }
    f.blocks[b].insts = insts;
    changed
}
