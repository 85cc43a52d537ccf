//! Liveness and register pressure: how many temporaries a function needs at its busiest
//! point, before any back end allocates them. The optimiser's packing and the size reports
//! use it; the back ends' allocators have the final word.
//!
//! A temporary is a value the program computes. Constants, inputs and uniforms are not:
//! both targets read them straight from their own register files.

use crate::hash::HashSet;

use crate::func::{BlockId, Function, Value, ValueDef};

/// The most temporaries live at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pressure {
    /// Values live at once, each in a register of its own.
    pub values: usize,
    /// Their lanes: `lanes.div_ceil(4)` registers if every lane were packed.
    pub lanes: usize,
}

/// Whether `v` needs a temporary register: a block parameter or a computed value (the
/// interface and literals are read where they live, see
/// [`crate::inst::Op::is_interface_or_constant`]).
pub fn is_temporary(f: &Function, v: Value) -> bool {
    match f.values[v].def {
        ValueDef::Param(..) => true,
        ValueDef::Inst(i, _) => !f.insts[i].op.is_interface_or_constant(),
    }
}

/// The values live on entry to each block (indexed by block handle).
pub fn live_in(f: &Function) -> Vec<HashSet<Value>> {
    let mut live: Vec<HashSet<Value>> = vec![HashSet::default(); f.blocks.len()];
    loop {
        let mut changed = false;
        for &b in f.layout.iter().rev() {
            let set = transfer(f, b, live_out(f, b, &live), |_, _| {});
            if set != live[b.index()] {
                live[b.index()] = set;
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
}

fn live_out(f: &Function, b: BlockId, live_in: &[HashSet<Value>]) -> HashSet<Value> {
    let mut out = HashSet::default();
    for s in f.blocks[b].term.successors() {
        out.extend(live_in[s.index()].iter().copied());
    }
    out
}

/// Walks block `b` backwards from the values live at its end, calling `visit` with the live
/// set after each instruction (and after the terminator's uses are added); returns the set
/// live on entry.
fn transfer(
    f: &Function,
    b: BlockId,
    mut live: HashSet<Value>,
    mut visit: impl FnMut(&HashSet<Value>, Option<Value>),
) -> HashSet<Value> {
    let block = &f.blocks[b];
    for op in block.term.operands() {
        live.insert(op.value);
    }
    visit(&live, None);
    for &i in block.insts.iter().rev() {
        let inst = &f.insts[i];
        // The result occupies a register where it is written, even when unused.
        visit(&live, inst.result());
        for r in &inst.results {
            live.remove(r);
        }
        for a in &inst.args {
            live.insert(a.value);
        }
    }
    for p in &block.params {
        live.remove(p);
    }
    live
}

/// The register pressure of `f`.
pub fn pressure(f: &Function) -> Pressure {
    let live = live_in(f);
    let mut worst = Pressure::default();
    for &b in &f.layout {
        let out = live_out(f, b, &live);
        transfer(f, b, out, |set, defined| {
            let mut here = Pressure::default();
            for &v in set
                .iter()
                .chain(defined.iter().filter(|d| !set.contains(d)))
            {
                if is_temporary(f, v) {
                    here.values += 1;
                    here.lanes += f.ty(v).lanes as usize;
                }
            }
            worst.values = worst.values.max(here.values);
            worst.lanes = worst.lanes.max(here.lanes);
        });
    }
    worst
}
