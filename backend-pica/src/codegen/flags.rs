//! Branch conditions carried in the CMP flags from the arms of an `if`.
//!
//! A bool an `if`'s arms decide and a later branch alone tests (`skip = noRespawn ? t < 0 ||
//! t > 1 : false; if (!skip) …`) reaches the selector as a float block parameter (the
//! `bools` pass makes bools 0.0/1.0) and a `cmp.ne 1.0, p` before the branch: each arm
//! computes 0.0 or 1.0 with SLT/SGE (and MAX/MIN for `||`/`&&`), and the branch compares it
//! again. The PICA200 can do what a hand-writer does instead: each arm ends with the one CMP
//! that sets `cmp.x` (and `cmp.y`, for two comparisons joined by `||` or `&&`), and the
//! branch tests the flags (`cmp.x`, `cmp.x || cmp.y`, `cmp.x && cmp.y`). An arm whose value
//! is a constant sets both flags false by comparing a register with itself (`x < x`, false
//! for every value, NaN too); when an arm's constant is true, the flags hold the negation
//! instead (a negated comparison is the inverted one, as for any comparison read only as a
//! truth value).
//!
//! Only where nothing between the arms' ends and the branch can touch the flags: the merge
//! block holds no instruction and goes straight on (or is the branch's block), and the
//! branch's block holds only the test.

use mir::func::{BlockId, Function, Structure, Terminator, Value, ValueDef};
use mir::hash::{HashMap, HashSet};
use mir::inst::{CmpOp, Op};
use mir::types::Swizzle;

use crate::operand::{CondOp, Condition};

/// What CMP's wide source reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wide {
    /// A value, lane x for `cmp.x`, lane y for `cmp.y`.
    Value(mir::Operand),
    /// Two literals, for `cmp.x` and `cmp.y`.
    Literals([f32; 2]),
}

/// What one arm sets the flags with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arm {
    /// Both flags false.
    False,
    /// `CMP wide, x, y, narrow`: lane x of each for `cmp.x`, lane y for `cmp.y`.
    Cmp {
        /// The first (wide) source.
        wide: Wide,
        /// The operator for `cmp.x`.
        x: CmpOp,
        /// The operator for `cmp.y`.
        y: CmpOp,
        /// The second (narrow) source.
        narrow: mir::Operand,
    },
}

/// The branches that test flags their arms set, found before selection.
#[derive(Clone, Debug, Default)]
pub struct Carried {
    /// What to set at the end of each edge `(from, to)` into a merge (the end of block
    /// `from` when it jumps, its split edge when it branches).
    pub arms: HashMap<(BlockId, BlockId), Arm>,
    /// Each branch that tests the flags, with the condition true when its test is.
    pub tests: HashMap<BlockId, Condition>,
    /// The merges' parameters (never in a register) and the values that only fed them
    /// (never selected).
    pub skipped: HashSet<Value>,
}

/// How an arm's value reads, before the flags' sense is chosen.
#[derive(Clone, Copy)]
enum Value01 {
    Const(bool),
    One(mir::Operand),
    Two(CondOp, mir::Operand, mir::Operand),
}

/// Finds the branches of `f` whose test can be carried in the flags.
pub fn carried(f: &Function) -> Carried {
    let uses = f.use_counts();
    let preds = f.predecessors();
    let merges: HashSet<BlockId> = f
        .layout
        .iter()
        .filter_map(|&b| match f.blocks[b].structure {
            Some(Structure::If { merge }) => Some(merge),
            _ => None,
        })
        .collect();
    let mut out = Carried::default();
    for &b in &f.layout {
        if let Some(found) = branch(f, &uses, &preds, &merges, b) {
            let Found {
                cond,
                arms,
                skipped,
            } = found;
            out.tests.insert(b, cond);
            out.arms.extend(arms);
            out.skipped.extend(skipped);
        }
    }
    out
}

struct Found {
    cond: Condition,
    arms: Vec<((BlockId, BlockId), Arm)>,
    skipped: Vec<Value>,
}

fn once(uses: &HashMap<Value, usize>, v: Value) -> bool {
    uses.get(&v).copied() == Some(1)
}

/// The flags for the branch ending block `b`, when its test can read them.
fn branch(
    f: &Function,
    uses: &HashMap<Value, usize>,
    preds: &[Vec<BlockId>],
    merges: &HashSet<BlockId>,
    b: BlockId,
) -> Option<Found> {
    let Terminator::Branch { cond, .. } = &f.blocks[b].term else {
        return None;
    };
    // The test: `p != 1.0`, `p == 0.0`, … of a parameter `p` of 0.0/1.0, read once.
    let test = f.def_inst(cond.value)?;
    let Op::Cmp(op) = test.op else { return None };
    if !once(uses, cond.value) || f.blocks[b].insts.as_slice() != [def_id(f, cond.value)?] {
        return None;
    }
    let (k, p) = match (
        mir::analysis::constants::scalar(f, &test.args[0]),
        mir::analysis::constants::scalar(f, &test.args[1]),
    ) {
        (Some(k), None) => (k, test.args[1]),
        (None, Some(k)) => (k, test.args[0]),
        _ => return None,
    };
    if p.neg || p.abs || !once(uses, p.value) || f.ty(p.value).lanes != 1 {
        return None;
    }
    // Whether the test is true when p is 1.0.
    let when_one = match (op, k) {
        (CmpOp::Ne, 0.0) | (CmpOp::Eq, 1.0) => true,
        (CmpOp::Eq, 0.0) | (CmpOp::Ne, 1.0) => false,
        _ => return None,
    };
    let ValueDef::Param(m, index) = f.values[p.value].def else {
        return None;
    };
    // From the merge to the branch, nothing but jumps.
    if !merges.contains(&m) || !reaches(f, preds, m, b) {
        return None;
    }
    let mut skipped = vec![p.value];
    let mut arms = Vec::new();
    let mut from_blocks = preds[m.index()].clone();
    from_blocks.dedup();
    for &from in &from_blocks {
        for e in f.blocks[from].term.edges() {
            if e.target != m {
                continue;
            }
            let arg = e.args.get(index as usize)?;
            if arg.neg || arg.abs {
                return None;
            }
            arms.push(((from, m), value01(f, uses, *arg, &mut skipped)?));
        }
    }
    // The flags hold p, or !p when an arm's constant is true.
    let consts: Vec<bool> = arms
        .iter()
        .filter_map(|(_, a)| match a {
            Value01::Const(c) => Some(*c),
            _ => None,
        })
        .collect();
    let inverted = consts.contains(&true);
    if inverted && consts.contains(&false) {
        return None;
    }
    let mut joined = None;
    let mut set = Vec::new();
    for (edge, a) in arms {
        let arm = match a {
            Value01::Const(_) => Arm::False,
            Value01::One(c) => {
                let (wide, op, narrow) = sides(f, c, inverted)?;
                Arm::Cmp {
                    wide: Wide::Value(wide),
                    x: op,
                    y: op,
                    narrow,
                }
            }
            Value01::Two(op, c1, c2) => {
                // !(a || b) is !a && !b.
                let op = match (op, inverted) {
                    (CondOp::Or, true) => CondOp::And,
                    (CondOp::And, true) => CondOp::Or,
                    (op, _) => op,
                };
                if joined.is_some_and(|j| j != op) {
                    return None;
                }
                joined = Some(op);
                pair(f, sides(f, c1, inverted)?, sides(f, c2, inverted)?)?
            }
        };
        set.push((edge, arm));
    }
    let held = match joined {
        Some(CondOp::And) => Condition::and(true, true),
        Some(_) => Condition::or(true, true),
        None => Condition::x(true),
    };
    // The test is true when p is when_one; the flags' condition when p is !inverted.
    let cond = if when_one != inverted {
        held
    } else {
        held.negated()
    };
    Some(Found {
        cond,
        arms: set,
        skipped,
    })
}

/// Comparison `c` (one lane of a bool) as `(a, operator, b)` of one lane each (splat), the
/// operator inverted when the flag holds its negation.
fn sides(
    f: &Function,
    c: mir::Operand,
    inverted: bool,
) -> Option<(mir::Operand, CmpOp, mir::Operand)> {
    let d = f.def_inst(c.value)?;
    let Op::Cmp(op) = d.op else { return None };
    let lane = usize::from(c.swizzle.lane(0));
    let pick = |o: mir::Operand| mir::Operand {
        swizzle: Swizzle::splat(o.swizzle.lane(lane)),
        ..o
    };
    let op = if inverted { op.inverted() } else { op };
    Some((pick(d.args[0]), op, pick(d.args[1])))
}

/// One CMP for two comparisons, `cmp.x` the first and `cmp.y` the second, when their
/// operands pair up: on the narrow side one value (not a literal) read at two lanes, on
/// the wide side that too or two literals. Either comparison may be turned round.
fn pair(
    f: &Function,
    (a1, c1, b1): (mir::Operand, CmpOp, mir::Operand),
    (a2, c2, b2): (mir::Operand, CmpOp, mir::Operand),
) -> Option<Arm> {
    let literal = |o: &mir::Operand| mir::analysis::constants::scalar(f, o);
    let same =
        |p: &mir::Operand, q: &mir::Operand| p.value == q.value && p.neg == q.neg && p.abs == q.abs;
    let two = |p: &mir::Operand, q: &mir::Operand| mir::Operand {
        swizzle: Swizzle([
            p.swizzle.lane(0),
            q.swizzle.lane(0),
            q.swizzle.lane(0),
            q.swizzle.lane(0),
        ]),
        ..*p
    };
    let ways = |a: mir::Operand, c: CmpOp, b: mir::Operand| [(a, c, b), (b, c.swapped(), a)];
    for (wa, x, na) in ways(a1, c1, b1) {
        for (wb, y, nb) in ways(a2, c2, b2) {
            if !same(&na, &nb) || literal(&na).is_some() {
                continue;
            }
            let wide = match (literal(&wa), literal(&wb)) {
                (Some(p), Some(q)) => Wide::Literals([p, q]),
                (None, None) if same(&wa, &wb) => Wide::Value(two(&wa, &wb)),
                _ => continue,
            };
            return Some(Arm::Cmp {
                wide,
                x,
                y,
                narrow: two(&na, &nb),
            });
        }
    }
    None
}

/// The instruction that defines `v`.
fn def_id(f: &Function, v: Value) -> Option<mir::InstId> {
    match f.values[v].def {
        ValueDef::Inst(id, _) => Some(id),
        ValueDef::Param(..) => None,
    }
}

/// Whether block `to` is `from`, or follows it through blocks with no instructions that
/// jump (with no arguments) to a block only they reach.
fn reaches(f: &Function, preds: &[Vec<BlockId>], from: BlockId, to: BlockId) -> bool {
    let mut b = from;
    for _ in 0..f.blocks.len() {
        if b == to {
            return true;
        }
        let block = &f.blocks[b];
        match &block.term {
            Terminator::Jump(e)
                if block.insts.is_empty()
                    && e.args.is_empty()
                    && !matches!(block.structure, Some(Structure::Loop { .. }))
                    && preds[e.target.index()].len() == 1 =>
            {
                b = e.target
            }
            _ => return false,
        }
    }
    false
}

/// How `arg`, an arm's 0.0/1.0, reads as comparisons; the values that fed only it go into
/// `skipped`.
fn value01(
    f: &Function,
    uses: &HashMap<Value, usize>,
    arg: mir::Operand,
    skipped: &mut Vec<Value>,
) -> Option<Value01> {
    let v = arg.value;
    if let Some(k) = mir::analysis::constants::scalar(f, &arg) {
        return match k {
            0.0 => Some(Value01::Const(false)),
            1.0 => Some(Value01::Const(true)),
            _ => None,
        };
    }
    if !once(uses, v) {
        return None;
    }
    let d = f.def_inst(v)?;
    // Lane 0 of `o`, a comparison's 0.0/1.0 read `reads` times, all here: the comparison's
    // lane it reads.
    let comparison = |o: mir::Operand, reads: usize, skipped: &mut Vec<Value>| {
        let d = f.def_inst(o.value)?;
        if d.op != Op::BoolToFloat || uses.get(&o.value).copied() != Some(reads) {
            return None;
        }
        let c = d.args[0];
        if !matches!(f.def_inst(c.value)?.op, Op::Cmp(_)) || c.neg || c.abs || o.neg || o.abs {
            return None;
        }
        if !skipped.contains(&o.value) {
            skipped.push(o.value);
        }
        Some(mir::Operand {
            swizzle: c.swizzle.then(o.swizzle),
            ..c
        })
    };
    match d.op {
        Op::BoolToFloat => {
            let lane0 = mir::Operand {
                swizzle: Swizzle::splat(arg.swizzle.lane(0)),
                ..arg
            };
            Some(Value01::One(comparison(lane0, 1, skipped)?))
        }
        // `||` is the larger of the two, `&&` the smaller or the product (of lane 0, with
        // the arm's swizzle).
        Op::Max | Op::Min | Op::Mul if f.ty(v).lanes == 1 || arg.swizzle.lane(0) == 0 => {
            let at = |o: mir::Operand| mir::Operand {
                swizzle: Swizzle::splat(o.swizzle.lane(usize::from(arg.swizzle.lane(0)))),
                ..o
            };
            let (a, b) = (at(d.args[0]), at(d.args[1]));
            let reads = if a.value == b.value { 2 } else { 1 };
            let c1 = comparison(a, reads, skipped)?;
            let c2 = comparison(b, reads, skipped)?;
            skipped.push(v);
            let op = if d.op == Op::Max {
                CondOp::Or
            } else {
                CondOp::And
            };
            Some(Value01::Two(op, c1, c2))
        }
        _ => None,
    }
}
