//! Work both sides of an `if` end with moves to the merge: `if (t) pos = p * (m * v); else
//! pos = p * v;` computes `p * x` on both sides, for a different `x`. The common tail is
//! computed once after the merge, from a merge parameter that takes each side's `x` (a
//! move on a side at most, against the tail's instructions on all sides but one).
//!
//! The tails must be the same instructions (operation, shape, operand swizzles and
//! modifiers) over operands that are the same value, equal reads of the interface (the same
//! uniform register, input or constant, each side loading its own), or the differing values
//! (the "holes", each a new parameter). Each side's instructions must be its own: in that
//! side's block and read only by the tail.

use crate::analysis::cfg::Dominators;
use crate::func::{BlockId, Function, InstId, Structure, Terminator, Value, ValueDef};
use crate::hash::HashMap;
use crate::inst::{Op, Operand};
use crate::types::Ty;

/// Sinks the tails that pay. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    // One tail at a time: each changes the uses and blocks the next is matched against.
    for _ in 0..64 {
        let Some(plan) = find(f) else {
            break;
        };
        apply(f, plan);
        changed = true;
    }
    changed
}

/// The shape of a tail, over the sides' operands.
#[derive(Clone, Debug)]
enum Pat {
    /// The same operand on every side, available at the merge.
    Same(Operand),
    /// Each side reads the interface alike (an operation without operands): done again.
    Leaf { op: Op, ty: Ty, read: Operand },
    /// The sides' values differ: merge parameter `index` carries them.
    Hole { index: usize, read: Operand },
    /// The same instruction on every side.
    Inst {
        op: Op,
        ty: Ty,
        read: Operand,
        args: Vec<Pat>,
    },
}

struct Plan {
    merge: BlockId,
    param: Value,
    sides: Vec<BlockId>,
    tail: Pat,
    /// Per hole, each side's value.
    holes: Vec<Vec<Value>>,
}

struct Matcher<'a> {
    f: &'a Function,
    doms: &'a Dominators,
    uses: &'a HashMap<Value, usize>,
    block_of: &'a HashMap<InstId, BlockId>,
    merge: BlockId,
    sides: &'a [BlockId],
    holes: Vec<Vec<Value>>,
}

impl Matcher<'_> {
    fn available(&self, v: Value) -> bool {
        match self.f.values[v].def {
            ValueDef::Param(b, _) => self.doms.dominates(b, self.merge),
            ValueDef::Inst(i, _) => self
                .block_of
                .get(&i)
                .is_some_and(|&b| b != self.merge && self.doms.dominates(b, self.merge)),
        }
    }

    fn at(&mut self, ops: &[Operand]) -> Option<Pat> {
        let first = ops[0];
        if ops.iter().all(|o| *o == first) && self.available(first.value) {
            return Some(Pat::Same(first));
        }
        let read = Operand {
            value: first.value,
            ..first
        };
        let alike = ops
            .iter()
            .all(|o| o.swizzle == first.swizzle && o.neg == first.neg && o.abs == first.abs);
        if !alike {
            return None;
        }
        let ty = self.f.ty(first.value);
        if ops.iter().any(|o| self.f.ty(o.value) != ty) {
            return None;
        }
        let defs: Option<Vec<(InstId, &crate::inst::Inst)>> = ops
            .iter()
            .map(|o| match self.f.values[o.value].def {
                ValueDef::Inst(i, 0) => Some((i, &self.f.insts[i])),
                _ => None,
            })
            .collect();
        if let Some(defs) = defs {
            let op = defs[0].1.op;
            let same_op = defs
                .iter()
                .all(|(_, d)| d.op == op && d.args.len() == defs[0].1.args.len());
            if same_op && op.is_interface_or_constant() && defs[0].1.args.is_empty() {
                return Some(Pat::Leaf { op, ty, read });
            }
            let own = defs.iter().zip(self.sides).all(|((i, d), &side)| {
                self.block_of.get(i) == Some(&side)
                    && d.results.len() == 1
                    && self.uses.get(&d.results[0]) == Some(&1)
            });
            if same_op && own && sinkable(op) {
                let mut args = Vec::new();
                let holes = self.holes.len();
                for k in 0..defs[0].1.args.len() {
                    let column: Vec<Operand> = defs.iter().map(|(_, d)| d.args[k]).collect();
                    match self.at(&column) {
                        Some(p) => args.push(p),
                        None => {
                            args.clear();
                            break;
                        }
                    }
                }
                if args.len() == defs[0].1.args.len() {
                    return Some(Pat::Inst { op, ty, read, args });
                }
                self.holes.truncate(holes);
            }
        }
        // A hole: the same one for the same values.
        let values: Vec<Value> = ops.iter().map(|o| o.value).collect();
        let index = match self.holes.iter().position(|h| *h == values) {
            Some(k) => k,
            None => {
                self.holes.push(values);
                self.holes.len() - 1
            }
        };
        Some(Pat::Hole { index, read })
    }
}

/// Operations that compute a value from their operands alone.
fn sinkable(op: Op) -> bool {
    !op.is_interface_or_constant()
        && !matches!(
            op,
            Op::Kill | Op::EmitVertex | Op::EndPrimitive | Op::LoadLocal(_) | Op::StoreLocal(_)
        )
}

/// Instructions a tail moves (constructs cost nothing where their lanes are computed in
/// place, so they do not count).
fn cost(p: &Pat) -> usize {
    match p {
        Pat::Inst { op, args, .. } => {
            usize::from(*op != Op::Construct) + args.iter().map(cost).sum::<usize>()
        }
        _ => 0,
    }
}

fn find(f: &Function) -> Option<Plan> {
    let doms = Dominators::new(f);
    let uses = f.use_counts();
    let mut block_of = HashMap::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            block_of.insert(i, b);
        }
    }
    let preds = f.predecessors();
    for &h in &f.layout {
        let Some(Structure::If { merge }) = f.blocks[h].structure else {
            continue;
        };
        let sides = &preds[merge.index()];
        if sides.len() < 2 {
            continue;
        }
        let jumps: Option<Vec<&Vec<Operand>>> = sides
            .iter()
            .map(|&s| match &f.blocks[s].term {
                Terminator::Jump(e) if e.target == merge => Some(&e.args),
                _ => None,
            })
            .collect();
        let Some(jumps) = jumps else {
            continue;
        };
        let mut distinct = sides.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() != sides.len() {
            continue;
        }
        for (j, &param) in f.blocks[merge].params.iter().enumerate() {
            let ops: Vec<Operand> = jumps.iter().map(|a| a[j]).collect();
            let mut m = Matcher {
                f,
                doms: &doms,
                uses: &uses,
                block_of: &block_of,
                merge,
                sides,
                holes: Vec::new(),
            };
            let Some(tail) = m.at(&ops) else {
                continue;
            };
            let saved = cost(&tail) * (sides.len() - 1);
            if matches!(tail, Pat::Inst { .. }) && saved > m.holes.len() {
                return Some(Plan {
                    merge,
                    param,
                    sides: sides.clone(),
                    tail,
                    holes: m.holes,
                });
            }
        }
    }
    None
}

fn apply(f: &mut Function, plan: Plan) {
    let mut params = Vec::new();
    for hole in &plan.holes {
        let p = f.add_param(plan.merge, f.ty(hole[0]));
        params.push(p);
        for (side, &v) in plan.sides.iter().zip(hole) {
            if let Terminator::Jump(e) = &mut f.blocks[*side].term {
                e.args.push(Operand::new(v));
            }
        }
    }
    let span = f.blocks[plan.merge].span;
    let mut new = Vec::new();
    let root = build(f, &plan.tail, &params, span, &mut new);
    f.blocks[plan.merge].insts.splice(0..0, new);
    f.replace_uses(plan.param, root);
}

/// Emits `p` (into `out`, operands first) and returns the operand that reads it.
fn build(
    f: &mut Function,
    p: &Pat,
    params: &[Value],
    span: crate::span::Span,
    out: &mut Vec<InstId>,
) -> Operand {
    match p {
        Pat::Same(o) => *o,
        Pat::Hole { index, read } => Operand {
            value: params[*index],
            ..*read
        },
        Pat::Leaf { op, ty, read } => {
            let i = f.create_inst(*op, Vec::new(), &[*ty], span);
            out.push(i);
            Operand {
                value: f.insts[i].results[0],
                ..*read
            }
        }
        Pat::Inst { op, ty, read, args } => {
            let args: Vec<Operand> = args
                .iter()
                .map(|a| build(f, a, params, span, out))
                .collect();
            let i = f.create_inst(*op, args, &[*ty], span);
            out.push(i);
            Operand {
                value: f.insts[i].results[0],
                ..*read
            }
        }
    }
}
