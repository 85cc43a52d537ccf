//! The MIR verifier: shapes, SSA dominance, edges and structured regions. It runs after
//! lowering and, in tests and debug builds, after every pass, so a pass that breaks the IR is
//! caught where it did so rather than as a wrong result three stages later.

use crate::hash::HashSet;
use std::fmt;

use crate::analysis::cfg::Dominators;
use crate::func::{BlockId, Function, Structure, Terminator, Value, ValueDef};
use crate::inst::{Op, Operand};
use crate::module::Module;
use crate::shape::{operand_kind, operand_lanes};
use crate::types::{Kind, Ty};

/// What the verifier found wrong, in which function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function's name.
    pub function: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MIR verifier, function {}: {}",
            self.function, self.message
        )
    }
}

impl std::error::Error for VerifyError {}

/// Verifies `module`.
pub fn verify(module: &Module) -> Result<(), VerifyError> {
    let f = &module.function;
    verify_function(module, f).map_err(|message| VerifyError {
        function: f.name.clone(),
        message,
    })
}

fn verify_function(module: &Module, f: &Function) -> Result<(), String> {
    let live: HashSet<BlockId> = f.layout.iter().copied().collect();
    if f.layout.first() != Some(&f.entry) {
        return Err("the entry block is not first in the layout".into());
    }
    if live.len() != f.layout.len() {
        return Err("a block appears twice in the layout".into());
    }
    let doms = Dominators::new(f);
    // Where each live value is defined: (block, position; params at -1).
    let mut defined_at = vec![None; f.values.len()];
    for &b in &f.layout {
        for &p in &f.blocks[b].params {
            if f.values[p].def != ValueDef::Param(b, position(&f.blocks[b].params, p)) {
                return Err(format!(
                    "v{} is listed as a parameter of b{} but not defined there",
                    p.index(),
                    b.index()
                ));
            }
            defined_at[p.index()] = Some((b, -1i64));
        }
        for (pos, &i) in f.blocks[b].insts.iter().enumerate() {
            for (k, &r) in f.insts[i].results.iter().enumerate() {
                if f.values[r].def != ValueDef::Inst(i, k as u32) {
                    return Err(format!(
                        "v{} is a result of i{} but defined elsewhere",
                        r.index(),
                        i.index()
                    ));
                }
                if defined_at[r.index()].is_some() {
                    return Err(format!("v{} is defined twice", r.index()));
                }
                defined_at[r.index()] = Some((b, pos as i64));
            }
        }
    }
    let available = |v: Value, b: BlockId, pos: i64| -> bool {
        match defined_at.get(v.index()).copied().flatten() {
            Some((db, dpos)) if db == b => dpos < pos,
            Some((db, _)) => doms.dominates(db, b),
            None => false,
        }
    };
    let check_operand =
        |op: &Operand, lanes: u8, kind: Option<Kind>, what: &str| -> Result<(), String> {
            let Some(data) = f.values.get(op.value) else {
                return Err(format!(
                    "{what} uses v{}, which does not exist",
                    op.value.index()
                ));
            };
            if let Some(kind) = kind {
                if data.ty.kind != kind {
                    return Err(format!(
                        "{what} reads v{} ({}) where a {kind:?} value is needed",
                        op.value.index(),
                        data.ty
                    ));
                }
            }
            for i in 0..lanes as usize {
                if op.swizzle.0[i] >= data.ty.lanes {
                    return Err(format!(
                        "{what} reads lane {} of v{}, which has {} lane(s)",
                        op.swizzle.0[i],
                        op.value.index(),
                        data.ty.lanes
                    ));
                }
            }
            if (op.neg || op.abs) && data.ty.kind != Kind::Float {
                return Err(format!(
                    "{what} negates or takes the absolute value of a bool"
                ));
            }
            Ok(())
        };
    for &b in &f.layout {
        let block = &f.blocks[b];
        let reachable = doms.reachable(b);
        for (pos, &i) in block.insts.iter().enumerate() {
            let inst = &f.insts[i];
            let what = format!("i{} ({}) in b{}", i.index(), inst.op.name(), b.index());
            if let Some(n) = inst.op.arity() {
                if inst.args.len() != n {
                    return Err(format!(
                        "{what} has {} operands, needs {n}",
                        inst.args.len()
                    ));
                }
            }
            for (k, a) in inst.args.iter().enumerate() {
                let lanes = operand_lanes(f, Some(module), inst, k);
                check_operand(a, lanes, operand_kind(inst.op, k), &what)?;
                if reachable && !available(a.value, b, pos as i64) {
                    return Err(format!(
                        "{what} uses v{}, which is not defined on every path to it",
                        a.value.index()
                    ));
                }
            }
            check_result(module, f, inst, &what)?;
        }
        // The terminator.
        let what = format!("the terminator of b{}", b.index());
        for e in block.term.edges() {
            if !live.contains(&e.target) {
                return Err(format!(
                    "{what} jumps to b{}, which is not in the layout",
                    e.target.index()
                ));
            }
            let params = &f.blocks[e.target].params;
            if e.args.len() != params.len() {
                return Err(format!(
                    "{what} passes {} argument(s) to b{}, which has {} parameter(s)",
                    e.args.len(),
                    e.target.index(),
                    params.len()
                ));
            }
            for (a, &p) in e.args.iter().zip(params) {
                let ty = f.ty(p);
                check_operand(a, ty.lanes, Some(ty.kind), &what)?;
            }
        }
        if let Terminator::Branch { cond, .. } = &block.term {
            check_operand(cond, 1, Some(Kind::Bool), &what)?;
        }
        if let Terminator::Return(values) = &block.term {
            // A geometry program's outputs leave with each `EmitVertex`.
            let expected: Vec<Ty> = match module.stage {
                crate::Stage::Geometry => Vec::new(),
                _ => module.outputs.iter().map(|o| Ty::float(o.lanes)).collect(),
            };
            if values.len() != expected.len() {
                return Err(format!(
                    "{what} returns {} value(s), the function {}",
                    values.len(),
                    expected.len()
                ));
            }
            for (v, ty) in values.iter().zip(expected) {
                check_operand(v, ty.lanes, Some(ty.kind), &what)?;
            }
        }
        if reachable {
            for op in block.term.operands() {
                if !available(op.value, b, i64::MAX) {
                    return Err(format!(
                        "{what} uses v{}, which is not defined on every path to it",
                        op.value.index()
                    ));
                }
            }
        }
        // Structured regions.
        match block.structure {
            Some(Structure::If { merge }) => {
                if !matches!(block.term, Terminator::Branch { .. }) {
                    return Err(format!(
                        "b{} opens an if but does not end in a branch",
                        b.index()
                    ));
                }
                if !live.contains(&merge) {
                    return Err(format!(
                        "the if at b{} merges at b{}, which is not live",
                        b.index(),
                        merge.index()
                    ));
                }
            }
            Some(Structure::Loop { merge, cont }) => {
                if !live.contains(&merge) || !live.contains(&cont) {
                    return Err(format!(
                        "the loop at b{} names a merge or continue block that is not live",
                        b.index()
                    ));
                }
                if merge == cont {
                    return Err(format!(
                        "the loop at b{} has the same merge and continue block",
                        b.index()
                    ));
                }
            }
            Some(Structure::Region { merge }) if !live.contains(&merge) => {
                return Err(format!(
                    "the region at b{} merges at b{}, which is not live",
                    b.index(),
                    merge.index()
                ));
            }
            Some(Structure::Region { .. }) => {}
            None => {}
        }
    }
    check_cycles(f, &doms)
}

/// Control flow goes round only through loops: every back edge (to a block that dominates
/// its source) runs from a loop's continue construct to its header, and no cycle avoids a back
/// edge (the CFG is reducible). The back ends emit loops only where a header says so.
fn check_cycles(f: &Function, doms: &Dominators) -> Result<(), String> {
    let mut forward_preds = vec![0usize; f.blocks.len()];
    for &a in &f.layout {
        if !doms.reachable(a) {
            continue;
        }
        for s in f.blocks[a].term.successors() {
            if doms.dominates(s, a) {
                match f.blocks[s].structure {
                    // The back edge leaves the continue construct: the continue block or a
                    // block it dominates (a pass may have split it).
                    Some(Structure::Loop { cont, .. }) if doms.dominates(cont, a) => {}
                    _ => {
                        return Err(format!(
                            "b{} jumps back to b{}, which is not the header of a loop whose \
                             continue construct holds b{}",
                            a.index(),
                            s.index(),
                            a.index()
                        ));
                    }
                }
            } else {
                forward_preds[s.index()] += 1;
            }
        }
    }
    // Without the back edges the graph must be acyclic: peel off blocks whose forward
    // predecessors are all peeled.
    let mut ready = vec![f.entry];
    let mut peeled = 0;
    while let Some(a) = ready.pop() {
        peeled += 1;
        for s in f.blocks[a].term.successors() {
            if !doms.dominates(s, a) {
                forward_preds[s.index()] -= 1;
                if forward_preds[s.index()] == 0 {
                    ready.push(s);
                }
            }
        }
    }
    let reachable = f.layout.iter().filter(|&&b| doms.reachable(b)).count();
    if peeled != reachable {
        return Err("the control flow has a cycle that is not a structured loop".into());
    }
    Ok(())
}

fn position(list: &[Value], v: Value) -> u32 {
    list.iter().position(|&x| x == v).unwrap_or(usize::MAX) as u32
}

/// Checks an instruction's results against its operation and operands.
fn check_result(
    module: &Module,
    f: &Function,
    inst: &crate::inst::Inst,
    what: &str,
) -> Result<(), String> {
    let arg_ty = |i: usize| inst.args.get(i).map(|a| f.ty(a.value));
    let results: Vec<Ty> = inst.results.iter().map(|&r| f.ty(r)).collect();
    let expect_one = |kind: Kind, lanes: Option<u8>| -> Result<(), String> {
        match results.as_slice() {
            [t] if t.kind == kind
                && lanes.is_none_or(|l| l == t.lanes)
                && (1..=4).contains(&t.lanes) =>
            {
                Ok(())
            }
            _ => Err(format!(
                "{what} defines {:?}; it should define one {kind:?} value{}",
                results,
                lanes.map_or(String::new(), |l| format!(" of {l} lane(s)"))
            )),
        }
    };
    match inst.op {
        Op::Dot(_) | Op::Dph => expect_one(Kind::Float, Some(1)),
        Op::Cross => expect_one(Kind::Float, Some(3)),
        Op::Cmp(_) | Op::And | Op::Or | Op::Not => expect_one(Kind::Bool, None),
        Op::LoadBoolUniform { .. } => expect_one(Kind::Bool, Some(1)),
        Op::InstanceIndex => expect_one(Kind::Float, Some(1)),
        Op::FragCoord => expect_one(Kind::Float, Some(4)),
        Op::LoadUniform { .. } | Op::Sample { .. } => expect_one(Kind::Float, Some(4)),
        Op::LoadInput(input) => {
            let lanes = module.inputs.get(input).map(|i| i.lanes);
            if lanes.is_none() {
                return Err(format!("{what} reads an input that does not exist"));
            }
            expect_one(Kind::Float, lanes)
        }
        Op::Select => expect_one(arg_ty(1).map_or(Kind::Float, |t| t.kind), None),
        Op::Const(_) => match results.as_slice() {
            [t] if (1..=4).contains(&t.lanes) => Ok(()),
            _ => Err(format!(
                "{what} defines {results:?}; a constant defines one value"
            )),
        },
        Op::Construct => {
            let kind = arg_ty(0).map_or(Kind::Float, |t| t.kind);
            if inst.args.iter().any(|a| f.ty(a.value).kind != kind) {
                return Err(format!("{what} mixes bool and float lanes"));
            }
            expect_one(kind, Some(inst.args.len() as u8))
        }
        Op::EmitVertex if inst.args.len() != module.outputs.len() => Err(format!(
            "{what} emits {} values; the module has {} outputs",
            inst.args.len(),
            module.outputs.len()
        )),
        Op::Kill | Op::StoreLocal(_) | Op::EmitVertex | Op::EndPrimitive => {
            if results.is_empty() {
                Ok(())
            } else {
                Err(format!("{what} defines values but has no result"))
            }
        }
        Op::LoadLocal(l) => {
            let ty = f
                .locals
                .get(l)
                .map(|l| l.ty)
                .ok_or_else(|| format!("{what} reads a local that does not exist"))?;
            expect_one(ty.kind, Some(ty.lanes))
        }
        _ => expect_one(Kind::Float, None),
    }
}
