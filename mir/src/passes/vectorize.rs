//! Vectorising: independent lane-wise instructions of one kind in a block, whose lanes
//! fit in one vec4, become one instruction (superword-level parallelism, as LLVM's SLP
//! vectoriser does for wide machines). `a = x.x * k.y; b = x.z * k.w` becomes
//! `p = x.xz * k.yw`, with `a` and `b` read as `p.x` and `p.y`.
//!
//! Both targets are vec4 machines with eight to sixteen temporaries: every scalar left on
//! its own holds a whole register for its lifetime, and costs an instruction slot that
//! could have computed three more lanes. Packing only happens when it costs nothing: each
//! operand position of the group must read lanes of one value with the same modifiers
//! (the merged operand is a swizzle of it) or be constant in every member (the merged
//! operand is a new constant). Operands that would need a `Construct` (a move per lane on
//! both targets) are left alone: that trade belongs to the back end, which knows whether
//! the lanes can be written in place.
//!
//! Members are merged a pair at a time, in rounds: scalars become vec2s in one round, vec2s
//! vec4s in the next. A round pairs each instruction with at most one later partner within
//! `WINDOW` instructions, so a round costs time linear in the block's length.

use crate::hash::{HashMap, HashSet};

use crate::func::{BlockId, Function, InstId, Value};
use crate::inst::{Op, Operand};
use crate::types::{Kind, Swizzle, Ty};

use crate::analysis::constants::constant_n;

/// How far ahead a partner is looked for.
const WINDOW: usize = 64;

/// Rounds per block, at most. A round pairs what can be paired now: 1+1 lanes, then 2+2 or
/// a vec3 and a scalar in the next; and a chain (`sin` and `cos` of one angle, each a
/// polynomial of eight steps) one step per round, as each step's operands become lanes of
/// one value only once the step before is packed.
const ROUNDS: usize = 32;

/// Packs what it can. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    for b in f.layout.clone() {
        for _ in 0..ROUNDS {
            let pairs = find_pairs(f, b);
            if pairs.is_empty() {
                break;
            }
            let mut replaced = HashMap::default();
            // What goes in place of each kept member; the other members are dropped.
            let mut at: HashMap<usize, Vec<InstId>> = HashMap::default();
            let mut dropped = vec![false; f.blocks[b].insts.len()];
            for pair in pairs {
                let gone = if pair.at == pair.earlier {
                    pair.later
                } else {
                    pair.earlier
                };
                dropped[gone] = true;
                at.insert(pair.at, merge(f, b, &pair, &mut replaced));
            }
            let old = std::mem::take(&mut f.blocks[b].insts);
            for (pos, i) in old.into_iter().enumerate() {
                match at.remove(&pos) {
                    Some(new) => f.blocks[b].insts.extend(new),
                    None if !dropped[pos] => f.blocks[b].insts.push(i),
                    None => {}
                }
            }
            f.replace_uses_all(&replaced);
            changed = true;
        }
    }
    changed
}

/// Whether instructions of this kind compute each lane from the same lane of their
/// operands, so that two of them can share one instruction.
fn packable(op: Op) -> bool {
    op.is_lanewise_float()
        || matches!(
            op,
            Op::Cmp(_) | Op::And | Op::Or | Op::Not | Op::Select | Op::BoolToFloat
        )
}

/// A merged operand: a swizzle of one value, or constant lanes still to be created.
#[derive(Clone, Debug)]
enum Merged {
    Read(Operand),
    Constant(Ty, [f32; 4]),
}

/// Two instructions that become one, at `at`: the earlier position (the later member moves
/// up) or the later one (the earlier member moves down).
struct Pair {
    earlier: usize,
    later: usize,
    /// The later member's lanes come first in the merged value.
    later_first: bool,
    at: usize,
    args: Vec<Merged>,
}

/// Disjoint pairs of positions in block `b` whose instructions can each become one.
///
/// Applying them all at once is sound. A member moves down only when nothing up to its new
/// place reads its result, and it is then never the operand source of a member that moves
/// up (`pinned`). A member moves up only when its operands are defined above the earlier
/// position by instructions that do not move down (`sunk`). Any other reader of a moved
/// result was already checked against the result's new place.
fn find_pairs(f: &Function, b: BlockId) -> Vec<Pair> {
    let insts = &f.blocks[b].insts;
    // Where each value is first used and where it is defined, in this block.
    let mut first_use: HashMap<Value, usize> = HashMap::default();
    let mut def_at: HashMap<Value, usize> = HashMap::default();
    for (pos, &i) in insts.iter().enumerate() {
        for a in &f.insts[i].args {
            first_use.entry(a.value).or_insert(pos);
        }
        for &r in &f.insts[i].results {
            def_at.insert(r, pos);
        }
    }
    // Values the block's return alone reads, whole: both back ends compute those straight
    // into their output register, where a packed one would need a move out of the pack.
    let mut returned: HashSet<Value> = HashSet::default();
    if let crate::func::Terminator::Return(values) = &f.blocks[b].term {
        let uses = f.use_counts();
        for v in values {
            let lanes = f.ty(v.value).lanes;
            if !v.neg
                && !v.abs
                && v.swizzle.is_identity(lanes)
                && uses.get(&v.value) == Some(&1)
                && def_at.contains_key(&v.value)
            {
                returned.insert(v.value);
            }
        }
    }
    let mut taken = vec![false; insts.len()];
    let mut sunk = vec![false; insts.len()];
    let mut pinned: HashSet<Value> = HashSet::default();
    let mut pairs = Vec::new();
    for (pos_i, &i) in insts.iter().enumerate() {
        let a = &f.insts[i];
        let Some(ra) = a.result() else { continue };
        let ta = f.ty(ra);
        if taken[pos_i] || !packable(a.op) || ta.lanes >= 4 || returned.contains(&ra) {
            continue;
        }
        let last = insts.len().min(pos_i + 1 + WINDOW);
        for pos_j in pos_i + 1..last {
            let c = &f.insts[insts[pos_j]];
            if taken[pos_j] || c.op != a.op {
                continue;
            }
            let Some(rc) = c.result() else { continue };
            if returned.contains(&rc) {
                continue;
            }
            let tc = f.ty(rc);
            if ta.kind != tc.kind || ta.lanes + tc.lanes > 4 {
                continue;
            }
            // Constants do not count: a merged constant operand is made anew.
            let can_hoist = c.args.iter().all(|x| match def_at.get(&x.value) {
                Some(&d) => (d < pos_i && !sunk[d]) || matches!(f.insts[insts[d]].op, Op::Const(_)),
                None => true,
            });
            let can_sink = !pinned.contains(&ra) && first_use.get(&ra).is_none_or(|&u| u > pos_j);
            if !can_hoist && !can_sink {
                continue;
            }
            // Either member's lanes may come first: take the order that reads more
            // operands in place (`mul a.xyzw, b` rather than `mul a.wxyz, b.wxyz`).
            let merge_in =
                |first: &crate::inst::Inst, n1: u8, second: &crate::inst::Inst, n2: u8| {
                    first
                        .args
                        .iter()
                        .zip(&second.args)
                        .map(|(x, y)| merge_operands(f, x, n1, y, n2))
                        .collect::<Option<Vec<Merged>>>()
                };
            let Some(forward) = merge_in(a, ta.lanes, c, tc.lanes) else {
                continue;
            };
            let backward = merge_in(c, tc.lanes, a, ta.lanes);
            let in_place = |args: &[Merged]| {
                let n = ta.lanes + tc.lanes;
                args.iter()
                    .filter(|m| matches!(m, Merged::Read(op) if op.swizzle.is_identity(n)))
                    .count()
            };
            let (args, later_first) = match backward {
                Some(b) if in_place(&b) > in_place(&forward) => (b, true),
                _ => (forward, false),
            };
            taken[pos_i] = true;
            taken[pos_j] = true;
            // Moving down keeps the later result's live range as it was.
            let at = if can_sink {
                sunk[pos_i] = true;
                pos_j
            } else {
                pinned.extend(c.args.iter().map(|x| x.value));
                pos_i
            };
            pairs.push(Pair {
                earlier: pos_i,
                later: pos_j,
                at,
                later_first,
                args,
            });
            break;
        }
    }
    pairs
}

/// One operand reading `x`'s first `nx` lanes then `y`'s first `ny` lanes, if that costs
/// nothing.
fn merge_operands(f: &Function, x: &Operand, nx: u8, y: &Operand, ny: u8) -> Option<Merged> {
    let n = (nx + ny) as usize;
    if x.value == y.value && x.neg == y.neg && x.abs == y.abs {
        // Lanes past the last are don't-care, kept at the last named one.
        let sw: [u8; 4] = std::array::from_fn(|l| {
            let l = l.min(n - 1);
            if l < nx as usize {
                x.swizzle.lane(l)
            } else {
                y.swizzle.lane(l - nx as usize)
            }
        });
        return Some(Merged::Read(Operand {
            swizzle: Swizzle(sw),
            ..*x
        }));
    }
    let (cx, cy) = (constant_n(f, x, nx)?, constant_n(f, y, ny)?);
    let kind = f.ty(x.value).kind;
    if f.ty(y.value).kind != kind {
        return None;
    }
    let mut lanes = [0.0; 4];
    lanes[..nx as usize].copy_from_slice(&cx[..nx as usize]);
    lanes[nx as usize..n].copy_from_slice(&cy[..ny as usize]);
    Some(Merged::Constant(
        Ty {
            kind,
            lanes: n as u8,
        },
        lanes,
    ))
}

/// The instructions that replace a pair's members (at `pair.at`), recording how their
/// results are now read.
fn merge(
    f: &mut Function,
    b: BlockId,
    pair: &Pair,
    replaced: &mut HashMap<Value, Operand>,
) -> Vec<InstId> {
    let insts = &f.blocks[b].insts;
    let (i, j): (InstId, InstId) = (insts[pair.earlier], insts[pair.later]);
    let (ri, rj) = (f.insts[i].results[0], f.insts[j].results[0]);
    let (ti, tj) = (f.ty(ri), f.ty(rj));
    let span = f.insts[j].span;
    let mut args = Vec::with_capacity(pair.args.len());
    let mut new_consts = Vec::new();
    for m in &pair.args {
        args.push(match m {
            Merged::Read(op) => *op,
            Merged::Constant(ty, lanes) => {
                let bits = lanes.map(|x| match ty.kind {
                    Kind::Float => x.to_bits(),
                    Kind::Bool => (x != 0.0) as u32,
                });
                let id = f.create_inst(Op::Const(bits), Vec::new(), &[*ty], span);
                new_consts.push(id);
                Operand::new(f.insts[id].results[0])
            }
        });
    }
    let ty = Ty {
        kind: ti.kind,
        lanes: ti.lanes + tj.lanes,
    };
    let op = f.insts[j].op;
    let packed = f.create_inst(op, args, &[ty], span);
    let result = f.insts[packed].results[0];
    let lanes_from = |start: u8, n: u8| {
        let mut sw = [0u8; 4];
        for (l, s) in sw.iter_mut().enumerate() {
            *s = start + (l as u8).min(n - 1);
        }
        Swizzle(sw)
    };
    let (start_i, start_j) = if pair.later_first {
        (tj.lanes, 0)
    } else {
        (0, ti.lanes)
    };
    replaced.insert(ri, Operand::swizzled(result, lanes_from(start_i, ti.lanes)));
    replaced.insert(rj, Operand::swizzled(result, lanes_from(start_j, tj.lanes)));
    // Constants first, then the packed instruction.
    new_consts.push(packed);
    new_consts
}
