//! mem2reg: locals become SSA values.
//!
//! Lowering gives every scalar or vector leaf of a variable its own local (so there is no
//! aliasing and every local can be promoted). The classic construction: a parameter for
//! local L goes on every block in the iterated dominance frontier of the blocks that store
//! L; a walk down the dominator tree then replaces each load with the value current at that
//! point and passes the current values along each edge. A local read before any store reads
//! zero. Parameters that turn out to receive one value only are then folded away.

use crate::hash::HashMap;

use crate::analysis::cfg::Dominators;
use crate::func::{BlockId, Function, LocalId, Value, compose};
use crate::inst::{Op, Operand};

/// Promotes every local. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    if f.locals.is_empty() {
        return false;
    }
    let doms = Dominators::new(f);
    let n = f.blocks.len();
    let preds = f.predecessors();
    // Dominance frontiers.
    let mut frontier: Vec<Vec<BlockId>> = vec![Vec::new(); n];
    for &b in &f.layout {
        let ps: Vec<BlockId> = preds[b.index()]
            .iter()
            .copied()
            .filter(|&p| doms.reachable(p))
            .collect();
        if ps.len() < 2 || !doms.reachable(b) {
            continue;
        }
        let Some(idom) = doms.idom(b) else { continue };
        for p in ps {
            let mut runner = p;
            while runner != idom {
                if !frontier[runner.index()].contains(&b) {
                    frontier[runner.index()].push(b);
                }
                match doms.idom(runner) {
                    Some(r) => runner = r,
                    None => break,
                }
            }
        }
    }
    // Parameters at the iterated frontier of each local's stores.
    let locals: Vec<LocalId> = f.locals.handles().collect();
    let mut phi_params: HashMap<(BlockId, LocalId), Value> = HashMap::default();
    let mut block_phis: Vec<Vec<(LocalId, Value)>> = vec![Vec::new(); n];
    // The blocks storing each local, found in one walk.
    let mut stores: HashMap<LocalId, Vec<BlockId>> = HashMap::default();
    for &b in f.layout.iter().filter(|&&b| doms.reachable(b)) {
        for &i in &f.blocks[b].insts {
            if let Op::StoreLocal(l) = f.insts[i].op {
                let list = stores.entry(l).or_default();
                if list.last() != Some(&b) {
                    list.push(b);
                }
            }
        }
    }
    // `placed[d] == k + 1`: local k has its parameter on d (no clearing between locals).
    let mut placed = vec![0usize; n];
    for (k, &l) in locals.iter().enumerate() {
        let mut work: Vec<BlockId> = stores.remove(&l).unwrap_or_default();
        while let Some(b) = work.pop() {
            for &d in &frontier[b.index()] {
                if placed[d.index()] != k + 1 {
                    placed[d.index()] = k + 1;
                    let ty = f.locals[l].ty;
                    let p = f.add_param(d, ty);
                    phi_params.insert((d, l), p);
                    block_phis[d.index()].push((l, p));
                    work.push(d);
                }
            }
        }
    }
    // Zero for locals read before any store.
    let span = f.blocks[f.entry].span;
    let mut zeros: HashMap<LocalId, Operand> = HashMap::default();
    let mut zero_insts = Vec::with_capacity(locals.len());
    for &l in &locals {
        let ty = f.locals[l].ty;
        let id = f.create_inst(Op::Const([0; 4]), Vec::new(), &[ty], span);
        zeros.insert(l, Operand::new(f.insts[id].results[0]));
        zero_insts.push(id);
    }
    f.blocks[f.entry].insts.splice(0..0, zero_insts);
    // Children in the dominator tree.
    let mut children: Vec<Vec<BlockId>> = vec![Vec::new(); n];
    for &b in &f.layout {
        if let Some(d) = doms.idom(b) {
            children[d.index()].push(b);
        }
    }
    let mut subst: HashMap<Value, Operand> = HashMap::default();
    let resolve = |subst: &HashMap<Value, Operand>, mut op: Operand| {
        while let Some(&inner) = subst.get(&op.value) {
            op = compose(inner, op);
        }
        op
    };
    // Walk the dominator tree; `current` holds each local's value at the point reached
    // (indexed by local), and `undo` what a block overwrote, restored when the walk leaves
    // it: no copy of the whole state per block.
    let mut current: Vec<Operand> = locals.iter().map(|l| zeros[l]).collect();
    let mut undo: Vec<(usize, Operand)> = Vec::new();
    enum Step {
        Enter(BlockId),
        Leave(usize),
    }
    let mut stack = vec![Step::Enter(f.entry)];
    while let Some(step) = stack.pop() {
        let b = match step {
            Step::Enter(b) => b,
            Step::Leave(mark) => {
                while undo.len() > mark {
                    let (l, old) = undo.pop().expect("above the mark");
                    current[l] = old;
                }
                continue;
            }
        };
        stack.push(Step::Leave(undo.len()));
        let mut set = |current: &mut Vec<Operand>, l: usize, v: Operand| {
            undo.push((l, current[l]));
            current[l] = v;
        };
        for &(l, p) in &block_phis[b.index()] {
            set(&mut current, l.index(), Operand::new(p));
        }
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut kept = Vec::with_capacity(insts.len());
        for i in insts {
            match f.insts[i].op {
                Op::LoadLocal(l) => {
                    let r = f.insts[i].results[0];
                    let v = resolve(&subst, current[l.index()]);
                    subst.insert(r, v);
                }
                Op::StoreLocal(l) => {
                    let v = resolve(&subst, f.insts[i].args[0]);
                    set(&mut current, l.index(), v);
                }
                _ => kept.push(i),
            }
        }
        f.blocks[b].insts = kept;
        // Pass the current values to the successors' new parameters.
        let succs: Vec<BlockId> = f.blocks[b].term.successors();
        for (k, s) in succs.iter().enumerate() {
            let args: Vec<Operand> = block_phis[s.index()]
                .iter()
                .map(|(l, _)| resolve(&subst, current[l.index()]))
                .collect();
            if let Some(e) = f.blocks[b].term.edges_mut().into_iter().nth(k) {
                e.args.extend(args);
            }
        }
        for &c in &children[b.index()] {
            stack.push(Step::Enter(c));
        }
    }
    // Unreachable blocks: loads read zero, stores go.
    for &b in &f.layout.clone() {
        if doms.reachable(b) {
            continue;
        }
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut kept = Vec::new();
        for i in insts {
            match f.insts[i].op {
                Op::LoadLocal(l) => {
                    subst.insert(f.insts[i].results[0], zeros[&l]);
                }
                Op::StoreLocal(_) => {}
                _ => kept.push(i),
            }
        }
        f.blocks[b].insts = kept;
        // Edges from here to blocks with new parameters need arguments too.
        let succs = f.blocks[b].term.successors();
        for (k, s) in succs.iter().enumerate() {
            let args: Vec<Operand> = block_phis[s.index()]
                .iter()
                .map(|(l, _)| zeros[l])
                .collect();
            if let Some(e) = f.blocks[b].term.edges_mut().into_iter().nth(k) {
                e.args.extend(args);
            }
        }
    }
    f.for_each_operand_mut(|op| *op = resolve(&subst, *op));
    f.locals = crate::arena::Arena::new();
    super::params::fold_trivial(f);
    true
}
