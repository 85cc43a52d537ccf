//! A sum of several scalar terms with signs (`1.0 + t.x - b.y - n.z`) is one dot product of
//! the terms, gathered into one vector, with a constant of the signs: `dph` on the PICA200
//! (whose implied 1 carries the constant term), `dp3`/`dp4` where there is no constant or
//! no `dph`. Hand-written PICA200 code does this for the four cases of a rotation matrix
//! turned into a quaternion (`normalquat`), whose sums share their three terms.
//!
//! Gathering the terms costs a move per value they come from, so a sum is rewritten only
//! where the adds it saves (one per term, less the dot product) pay for the moves: when the
//! terms are lanes of one vector already, or when several sums share the gathered vector
//! (built once, where it dominates them all). Only adds of one block that nothing else
//! reads are absorbed; a multiply feeding an add is left to multiply-add fusion.

use crate::analysis::cfg::Dominators;
use crate::func::{BlockId, Function, InstId, Value, ValueDef};
use crate::hash::{HashMap, HashSet};
use crate::inst::{Op, Operand};
use crate::types::{Swizzle, Ty};

use crate::analysis::constants::lane;

/// A term: a lane of a value, with `abs` or not.
type Term = (Value, u8, bool);

/// One sum: its root instruction, its terms with their factors (in [`Term`] order), its
/// constant, and how many adds it is.
struct Sum {
    root: InstId,
    block: BlockId,
    terms: Vec<(Term, f32)>,
    constant: f32,
    adds: usize,
}

/// Rewrites the sums that pay. `dph`: whether the target has the PICA200's `dph`. Returns
/// whether anything changed.
pub fn run(f: &mut Function, dph: bool) -> bool {
    let uses = f.use_counts();
    let mut block_of: HashMap<InstId, (BlockId, usize)> = HashMap::default();
    for &b in &f.layout {
        for (at, &i) in f.blocks[b].insts.iter().enumerate() {
            block_of.insert(i, (b, at));
        }
    }
    let is_add = |f: &Function, i: InstId| {
        matches!(f.insts[i].op, Op::Add | Op::Sub)
            && f.insts[i].result().is_some_and(|r| {
                let ty = f.ty(r);
                ty.is_float() && ty.lanes == 1
            })
    };
    // An operand an add absorbs: a one-use scalar add of the same block, read plainly.
    let absorbed = |f: &Function, b: BlockId, a: &Operand| -> Option<InstId> {
        if a.abs || uses.get(&a.value) != Some(&1) || a.swizzle.lane(0) != 0 {
            return None;
        }
        let ValueDef::Inst(i, 0) = f.values[a.value].def else {
            return None;
        };
        (is_add(f, i) && block_of.get(&i).is_some_and(|&(ib, _)| ib == b)).then_some(i)
    };
    let mut interior = HashSet::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            if is_add(f, i) {
                interior.extend(f.insts[i].args.iter().filter_map(|a| absorbed(f, b, a)));
            }
        }
    }
    let mut sums = Vec::new();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            if !is_add(f, i) || interior.contains(&i) {
                continue;
            }
            let mut sum = Sum {
                root: i,
                block: b,
                terms: Vec::new(),
                constant: 0.0,
                adds: 0,
            };
            let mut factors: HashMap<Term, f32> = HashMap::default();
            let mut stack = vec![(i, 1.0f32)];
            while let Some((at, sign)) = stack.pop() {
                sum.adds += 1;
                let inst = &f.insts[at];
                for (k, a) in inst.args.iter().enumerate() {
                    let s = sign
                        * if a.neg { -1.0 } else { 1.0 }
                        * if k == 1 && inst.op == Op::Sub {
                            -1.0
                        } else {
                            1.0
                        };
                    if let Some(inner) = absorbed(f, b, a) {
                        stack.push((inner, s));
                    } else if let Some(c) = lane(f, a.value, a.swizzle.lane(0)) {
                        sum.constant += s * if a.abs { c.abs() } else { c };
                    } else {
                        *factors
                            .entry((a.value, a.swizzle.lane(0), a.abs))
                            .or_default() += s;
                    }
                }
            }
            sum.terms = factors.into_iter().collect();
            sum.terms.sort_by_key(|&(t, _)| t);
            let n = sum.terms.len();
            let fits = if sum.constant != 0.0 {
                n == 3
            } else {
                n == 3 || n == 4
            };
            if fits && sum.adds > 1 {
                sums.push(sum);
            }
        }
    }
    // Sums over the same terms share one gathered vector.
    let mut groups: HashMap<Vec<Term>, Vec<Sum>> = HashMap::default();
    for s in sums {
        let key: Vec<Term> = s.terms.iter().map(|&(t, _)| t).collect();
        groups.entry(key).or_default().push(s);
    }
    let doms = Dominators::new(f);
    let mut changed = false;
    let mut groups: Vec<_> = groups.into_iter().collect();
    groups.sort_by_key(|(key, _)| key.clone());
    for (key, group) in groups {
        // A constant term rides on the implied 1 of `dph`, else on a lane of 1.
        let one_lane = !dph && group.iter().any(|s| s.constant != 0.0);
        let mut values: Vec<Value> = key.iter().map(|t| t.0).collect();
        values.dedup();
        let moves = if values.len() == 1 { 0 } else { values.len() } + usize::from(one_lane);
        let saved: usize = group.iter().map(|s| s.adds - 1).sum();
        if saved <= moves {
            continue;
        }
        let Some(place) = placement(f, &doms, &block_of, &key, &group) else {
            continue;
        };
        build(f, place, &key, &group, dph, one_lane);
        changed = true;
    }
    changed
}

/// Where the gathered vector goes: before the first sum when they all are in one block,
/// else at the end of the block that dominates them all. `None` when a term is not
/// available there.
fn placement(
    f: &Function,
    doms: &Dominators,
    block_of: &HashMap<InstId, (BlockId, usize)>,
    key: &[Term],
    group: &[Sum],
) -> Option<(BlockId, usize)> {
    let mut common = group[0].block;
    for s in &group[1..] {
        while !doms.dominates(common, s.block) {
            common = doms.idom(common)?;
        }
    }
    let at = group
        .iter()
        .filter(|s| s.block == common)
        .map(|s| block_of[&s.root].1)
        .min()
        .unwrap_or(f.blocks[common].insts.len());
    let available = key.iter().all(|&(v, ..)| match f.values[v].def {
        ValueDef::Param(b, _) => doms.dominates(b, common),
        ValueDef::Inst(i, _) => block_of.get(&i).is_some_and(|&(b, pos)| {
            if b == common {
                pos < at
            } else {
                doms.dominates(b, common)
            }
        }),
    });
    available.then_some((common, at))
}

/// Gathers the terms at `place` and makes each sum a dot product of them.
fn build(
    f: &mut Function,
    (block, at): (BlockId, usize),
    key: &[Term],
    group: &[Sum],
    dph: bool,
    one_lane: bool,
) {
    let span = f.insts[group[0].root].span;
    let mut new = Vec::new();
    let mut lanes: Vec<Operand> = key
        .iter()
        .map(|&(value, l, abs)| Operand {
            swizzle: Swizzle::splat(l),
            abs,
            ..Operand::new(value)
        })
        .collect();
    if one_lane {
        let one = f.create_inst(Op::float_const(&[1.0]), vec![], &[Ty::float(1)], span);
        new.push(one);
        lanes.push(Operand::new(f.insts[one].results[0]));
    }
    let n = lanes.len() as u8;
    let last = usize::from(n) - 1;
    let one_value = lanes
        .iter()
        .all(|o| o.value == lanes[0].value && o.abs == lanes[0].abs);
    // Lanes of one value are that value, swizzled; else they are gathered.
    let p = if one_value {
        Operand {
            swizzle: Swizzle(std::array::from_fn(|l| lanes[l.min(last)].swizzle.lane(0))),
            ..lanes[0]
        }
    } else {
        let gathered = f.create_inst(Op::Construct, lanes, &[Ty::float(n)], span);
        new.push(gathered);
        Operand {
            swizzle: Swizzle(std::array::from_fn(|l| l.min(last) as u8)),
            ..Operand::new(f.insts[gathered].results[0])
        }
    };
    f.blocks[block].insts.splice(at..at, new);
    for s in group {
        let mut factors: Vec<f32> = s.terms.iter().map(|&(_, k)| k).collect();
        let op = if s.constant == 0.0 && !one_lane {
            Op::Dot(n)
        } else if dph {
            factors.push(s.constant);
            Op::Dph
        } else {
            factors.push(s.constant);
            Op::Dot(4)
        };
        while factors.len() < usize::from(n) {
            factors.push(0.0);
        }
        let k = f.create_inst(
            Op::float_const(&factors),
            vec![],
            &[Ty::float(factors.len() as u8)],
            span,
        );
        let root_at = f.blocks[s.block]
            .insts
            .iter()
            .position(|&i| i == s.root)
            .expect("the root is in its block");
        f.blocks[s.block].insts.insert(root_at, k);
        let k = f.insts[k].results[0];
        let inst = &mut f.insts[s.root];
        inst.op = op;
        inst.args = vec![p, Operand::new(k)];
    }
}
