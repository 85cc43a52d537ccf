//! A fragment program reading a uniform array by a computed index. AGAL addresses constants
//! relatively (`vc[vt0.x + n]`) in vertex programs only (#3639), so in a fragment program
//! the read becomes a chain of selects over the registers the index can reach: the array's,
//! from the one read at index 0 to the array's last (an array of structures is one array
//! here: its elements' uniforms share the name before `[`). Runs after loops are unrolled,
//! when only the indices no unrolling made constant are left.

use mir::func::Function;
use mir::inst::{CmpOp, Op, Operand};
use mir::module::{Module, Uniform};
use mir::{Diagnostic, Stage, Swizzle, Ty};

use crate::rules::CodegenRule;

/// The most registers one read may select among (each costs a compare and a select).
pub const MAX_REGISTERS: u32 = 64;

/// Rewrites every computed-index uniform read of a fragment program; whether it changed
/// anything.
pub fn expand(m: &mut Module) -> Result<bool, Box<Diagnostic>> {
    if m.stage != Stage::Fragment {
        return Ok(false);
    }
    let mut changed = false;
    let f = &mut m.function;
    for b in f.layout.clone() {
        let insts = f.blocks[b].insts.clone();
        let mut kept = Vec::with_capacity(insts.len());
        for i in insts {
            let inst = &f.insts[i];
            let (Op::LoadUniform { register }, [index]) = (inst.op, inst.args.as_slice()) else {
                kept.push(i);
                continue;
            };
            let (index, span) = (*index, inst.span);
            let Some(result) = inst.result() else {
                kept.push(i);
                continue;
            };
            let last = array_end(&m.uniforms, register).ok_or_else(|| {
                Box::new(Diagnostic::error(
                    CodegenRule::Internal,
                    format!("a computed-index read of u{register}, which no uniform holds"),
                ))
            })?;
            if last - register > MAX_REGISTERS {
                return Err(Box::new(Diagnostic::error(
                    CodegenRule::Limit,
                    format!(
                        "a uniform array read by a computed index in a fragment program: AGAL \
                         reads constants by a computed index only in vertex programs, so the \
                         read selects among the array's registers, at most {MAX_REGISTERS}; \
                         this one reaches {}",
                        last - register
                    ),
                )));
            }
            let lane0 = Operand {
                swizzle: Swizzle::splat(index.swizzle.lane(0)),
                ..index
            };
            let load = |f: &mut Function, kept: &mut Vec<_>, r: u32| {
                let id = f.create_inst(
                    Op::LoadUniform { register: r },
                    vec![],
                    &[Ty::float(4)],
                    span,
                );
                kept.push(id);
                f.insts[id].result().expect("one result")
            };
            let mut value = load(f, &mut kept, register);
            for r in register + 1..last {
                let element = load(f, &mut kept, r);
                let at = f.create_inst(
                    Op::float_const(&[(r - register) as f32]),
                    vec![],
                    &[Ty::float(1)],
                    span,
                );
                let is = f.create_inst(
                    Op::Cmp(CmpOp::Eq),
                    vec![
                        lane0,
                        Operand::new(f.insts[at].result().expect("one result")),
                    ],
                    &[Ty::bool(1)],
                    span,
                );
                let select = f.create_inst(
                    Op::Select,
                    vec![
                        Operand::new(f.insts[is].result().expect("one result")),
                        Operand::new(element),
                        Operand::new(value),
                    ],
                    &[Ty::float(4)],
                    span,
                );
                kept.extend([at, is, select]);
                value = f.insts[select].result().expect("one result");
            }
            f.replace_uses(result, Operand::new(value));
            changed = true;
        }
        f.blocks[b].insts = kept;
    }
    Ok(changed)
}

/// One past the last register of the array that holds `register` (the uniforms whose name
/// before `[` is that one's).
fn array_end(uniforms: &[Uniform], register: u32) -> Option<u32> {
    let holder = uniforms
        .iter()
        .find(|u| !u.is_bool && (u.register..u.register + u.count).contains(&register))?;
    let root = holder.name.split('[').next().unwrap_or(&holder.name);
    uniforms
        .iter()
        .filter(|u| !u.is_bool && u.name.split('[').next() == Some(root))
        .map(|u| u.register + u.count)
        .max()
}
