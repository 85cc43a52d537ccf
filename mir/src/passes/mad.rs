//! Multiply-add fusion: `a * b + c` becomes one `mad` when the product has no other use
//! (both targets have a multiply-add; the PICA200's rounds the product, which is what the
//! separate instructions did anyway). `c - a * b` becomes `mad(-a, b, c)`.

use crate::hash::HashMap;

use crate::func::{Function, Value};
use crate::inst::{Op, Operand};

/// Fuses multiplies into adds. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut uses: HashMap<Value, usize> = HashMap::default();
    let mut count = |op: &Operand| *uses.entry(op.value).or_default() += 1;
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            f.insts[i].args.iter().for_each(&mut count);
        }
        f.blocks[b].term.operands().into_iter().for_each(&mut count);
    }
    let mut changed = false;
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            let op = f.insts[i].op;
            if op != Op::Add && op != Op::Sub {
                continue;
            }
            let Some(result) = f.insts[i].result() else {
                continue;
            };
            let lanes = f.ty(result).lanes;
            let args = f.insts[i].args.clone();
            // Which operand is a single-use multiply read lane for lane, without abs?
            let product = |k: usize| -> Option<(Operand, Operand)> {
                let a = args[k];
                if a.abs || uses.get(&a.value) != Some(&1) || !a.swizzle.is_identity(lanes) {
                    return None;
                }
                let m = f.def_inst(a.value)?;
                if m.op != Op::Mul || f.ty(a.value).lanes != lanes {
                    return None;
                }
                let (x, y) = (m.args[0], m.args[1]);
                Some((if a.neg { x.negated() } else { x }, y))
            };
            let fused = match op {
                Op::Add => product(0)
                    .map(|(x, y)| (x, y, args[1]))
                    .or_else(|| product(1).map(|(x, y)| (x, y, args[0]))),
                _ => product(0)
                    .map(|(x, y)| (x, y, args[1].negated()))
                    .or_else(|| product(1).map(|(x, y)| (x.negated(), y, args[0]))),
            };
            if let Some((x, y, c)) = fused {
                let inst = &mut f.insts[i];
                inst.op = Op::Mad;
                inst.args = vec![x, y, c];
                changed = true;
            }
        }
    }
    changed
}
