//! Lane packing: independent scalars (and vec2s, vec3s) of a block share one register's lanes.
//!
//! regalloc2 gives each virtual register a whole vec4 register, so with AGAL 1's eight
//! temporaries, or the PICA200's sixteen, a program of many scalars runs out although most
//! lanes are idle. A *pack* is
//! one register written lane by lane: each value assigned to it is computed into its own
//! lanes by an instruction whose destination is tied to the pack's previous version (as the
//! pieces of a construct are), and every later read of a value in the pack reads the pack's
//! current version through a swizzle. A value keeps its lanes from its definition to its last
//! use; a lane is then free for the next value. When every lane of a pack is free, the next
//! value starts the pack afresh (a new chain), so a pack holds a register only while some
//! lane is in use.
//!
//! Assignment is first fit, in order of definition (interval colouring per lane). Only values
//! defined and used in one block are packed, by instructions that can write any lanes (which
//! the instruction set says: lane-wise operations, whose sources are read through shifted
//! swizzles, and those that write one value to every lane of the mask, such as dot
//! products).

use mir::hash::{HashMap, HashSet};

use mir::func::{BlockId, Function, Terminator, Value};
use mir::inst::Op;

/// Where a packed value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packed {
    /// Which pack (numbered within the block).
    pub pack: usize,
    /// Its first lane.
    pub offset: u8,
    /// Whether it starts the pack afresh (no lane of the pack is in use at its definition).
    pub fresh: bool,
}

/// The packing of block `b`'s values, except those in `exclude` (values with a place of
/// their own); `placeable`: whether an operation's result of so many lanes can be written at
/// any lanes.
pub fn plan(
    f: &Function,
    b: BlockId,
    exclude: &HashSet<Value>,
    placeable: impl Fn(Op, u8) -> bool,
) -> HashMap<Value, Packed> {
    let block = &f.blocks[b];
    let end = block.insts.len();
    // Where each value of the block is defined and last used in it; values used elsewhere
    // are left out.
    let mut def: HashMap<Value, usize> = HashMap::default();
    for (k, &i) in block.insts.iter().enumerate() {
        let inst = &f.insts[i];
        if let Some(r) = inst.result() {
            let ty = f.ty(r);
            if ty.is_float()
                && ty.lanes <= 3
                && placeable(inst.op, ty.lanes)
                && !exclude.contains(&r)
            {
                def.insert(r, k);
            }
        }
    }
    // The selectors compute some values where they are read, not where they stand: a
    // comparison's operands are read by the branch that tests it or the conversion to
    // float, and a uniform read by index reads its index at each reader. A read by such an
    // instruction counts where its value is last read (the end for the terminator; `None`:
    // in another block).
    let deferred = |v: Value| {
        !f.ty(v).is_float()
            || f.def_inst(v)
                .is_some_and(|d| d.op.is_interface_or_constant() && !d.args.is_empty())
    };
    let mut read: HashMap<Value, Option<usize>> = HashMap::default();
    let later = |a: Option<usize>, b: Option<usize>| a.zip(b).map(|(a, b)| a.max(b));
    for a in block.term.operands() {
        if deferred(a.value) {
            read.insert(a.value, Some(end));
        }
    }
    for &other in f.layout.iter().filter(|&&o| o != b) {
        let insts = f.blocks[other].insts.iter().flat_map(|&i| &f.insts[i].args);
        for a in insts.chain(f.blocks[other].term.operands()) {
            if deferred(a.value) {
                read.insert(a.value, None);
            }
        }
    }
    let read_at =
        |read: &HashMap<Value, Option<usize>>, k: usize| match f.insts[block.insts[k]].result() {
            Some(r) if deferred(r) => read.get(&r).copied().unwrap_or(Some(k)),
            _ => Some(k),
        };
    for k in (0..end).rev() {
        let at = read_at(&read, k);
        for a in &f.insts[block.insts[k]].args {
            if deferred(a.value) {
                let e = read.entry(a.value).or_insert(at);
                *e = later(*e, at);
            }
        }
    }
    let mut last: HashMap<Value, usize> = HashMap::default();
    let mut outside = Vec::new();
    for k in 0..end {
        let at = read_at(&read, k);
        for a in &f.insts[block.insts[k]].args {
            if !def.contains_key(&a.value) {
                continue;
            }
            match at {
                Some(at) => {
                    let e = last.entry(a.value).or_insert(at);
                    *e = (*e).max(at);
                }
                None => outside.push(a.value),
            }
        }
    }
    for v in outside {
        def.remove(&v);
    }
    match &block.term {
        Terminator::Return(values) => {
            for a in values {
                if def.contains_key(&a.value) {
                    last.insert(a.value, end);
                }
            }
        }
        term => {
            for a in term.operands() {
                def.remove(&a.value);
            }
        }
    }
    // Uses in other blocks.
    for &other in f.layout.iter().filter(|&&o| o != b) {
        for &i in &f.blocks[other].insts {
            for a in &f.insts[i].args {
                def.remove(&a.value);
            }
        }
        for a in f.blocks[other].term.operands() {
            def.remove(&a.value);
        }
    }

    let mut order: Vec<(usize, Value)> = def
        .iter()
        .filter(|(v, _)| last.contains_key(v))
        .map(|(v, k)| (*k, *v))
        .collect();
    order.sort();
    // Per pack and lane: the last use of the value holding it.
    let mut packs: Vec<[Option<usize>; 4]> = Vec::new();
    let mut out = HashMap::default();
    for (at, v) in order {
        let lanes = usize::from(f.ty(v).lanes);
        let until = last[&v];
        let free = |l: &Option<usize>| l.is_none_or(|u| u <= at);
        let found = packs.iter().enumerate().find_map(|(p, lane_use)| {
            (0..=4 - lanes)
                .find(|&o| lane_use[o..o + lanes].iter().all(free))
                .map(|o| (p, o))
        });
        let (pack, offset) = found.unwrap_or_else(|| {
            packs.push([None; 4]);
            (packs.len() - 1, 0)
        });
        let fresh = packs[pack].iter().all(free);
        if fresh {
            packs[pack] = [None; 4];
        }
        for l in &mut packs[pack][offset..offset + lanes] {
            *l = Some(until);
        }
        out.insert(
            v,
            Packed {
                pack,
                offset: offset as u8,
                fresh,
            },
        );
    }
    out
}
