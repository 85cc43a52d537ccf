//! Dead-code elimination: keeps what the outputs, the branches and the kills depend on, and
//! removes every other instruction and block parameter (with its edge arguments).

use crate::func::{Function, Value, ValueDef};

/// Removes dead instructions and parameters. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    // A bit per value: DCE runs after every other pass, so it must stay cheap.
    let mut live: Vec<bool> = vec![false; f.values.len()];
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut Vec<bool>, work: &mut Vec<Value>| {
        if !std::mem::replace(&mut live[v.index()], true) {
            work.push(v);
        }
    };
    // Roots: terminator conditions and returned values, and the operands of instructions
    // with effects. Edge arguments are live only if their parameter is.
    for &b in &f.layout {
        match &f.blocks[b].term {
            crate::func::Terminator::Branch { cond, .. } => mark(cond.value, &mut live, &mut work),
            crate::func::Terminator::Return(values) => {
                for v in values {
                    mark(v.value, &mut live, &mut work);
                }
            }
            _ => {}
        }
        for &i in &f.blocks[b].insts {
            if !f.insts[i].op.is_pure() {
                for a in &f.insts[i].args {
                    mark(a.value, &mut live, &mut work);
                }
            }
        }
    }
    // Edge arguments by parameter.
    let mut args_of: Vec<Vec<Value>> = vec![Vec::new(); f.values.len()];
    for &b in &f.layout {
        for e in f.blocks[b].term.edges() {
            for (a, &p) in e.args.iter().zip(&f.blocks[e.target].params) {
                args_of[p.index()].push(a.value);
            }
        }
    }
    while let Some(v) = work.pop() {
        match f.values[v].def {
            ValueDef::Inst(i, _) => {
                for a in f.insts[i].args.clone() {
                    mark(a.value, &mut live, &mut work);
                }
            }
            ValueDef::Param(..) => {
                for a in args_of[v.index()].clone() {
                    mark(a, &mut live, &mut work);
                }
            }
        }
    }
    let mut changed = false;
    let mut dropped = Vec::new();
    for b in f.layout.clone() {
        let before = f.blocks[b].insts.len();
        let insts = std::mem::take(&mut f.blocks[b].insts);
        f.blocks[b].insts = insts
            .into_iter()
            .filter(|&i| {
                let inst = &f.insts[i];
                !inst.op.is_pure() || inst.results.iter().any(|r| live[r.index()])
            })
            .collect();
        changed |= f.blocks[b].insts.len() != before;
        if b != f.entry {
            let drop: Vec<bool> = f.blocks[b]
                .params
                .iter()
                .map(|p| !live[p.index()])
                .collect();
            if drop.contains(&true) {
                dropped.push((b, drop));
            }
        }
    }
    if !dropped.is_empty() {
        super::params::remove_params(f, &dropped);
        changed = true;
    }
    changed
}
