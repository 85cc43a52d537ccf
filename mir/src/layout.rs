//! Shared uniform layouts: uniforms moved to the registers another program gave the
//! uniforms of the same names, so that an engine switching programs sets each uniform once
//! (`--layout FILE`, the build helper's `layout`).
//!
//! Uniforms that share registers (packed components) move together, as one unit. A unit
//! with a pinned member moves by the pin's offset; every pinned member of it must agree on
//! that offset and match its pin's type and component. The other units then take the lowest
//! registers free of pinned ones, in their order. The function's reads follow their units.

use crate::func::Function;
use crate::inst::Op;
use crate::module::Module;

/// Where a uniform must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    /// The uniform's name.
    pub name: String,
    /// Whether it is a bool register (the PICA200's `b`), else a float register.
    pub is_bool: bool,
    /// Its first register.
    pub register: u32,
    /// Its first component there.
    pub component: u8,
    /// Its type (`vec4`, `mat4` …), which the moved uniform must have.
    pub type_name: String,
    /// Where the pin comes from, for diagnostics (`layout.json: c4`).
    pub origin: String,
}

/// Why a layout cannot be honoured (one message per conflict).
pub type Conflicts = Vec<String>;

/// A set of uniforms sharing registers, in one register file.
struct Unit {
    members: Vec<usize>,
    is_bool: bool,
    base: u32,
    size: u32,
}

fn units(m: &Module) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    let mut order: Vec<usize> = (0..m.uniforms.len()).collect();
    order.sort_by_key(|&k| (m.uniforms[k].is_bool, m.uniforms[k].register));
    for k in order {
        let u = &m.uniforms[k];
        let (start, end) = (u.register, u.register + u.count.max(1));
        match out.last_mut() {
            Some(unit) if unit.is_bool == u.is_bool && start < unit.base + unit.size => {
                unit.size = unit.size.max(end - unit.base);
                unit.members.push(k);
            }
            _ => out.push(Unit {
                members: vec![k],
                is_bool: u.is_bool,
                base: start,
                size: end - start,
            }),
        }
    }
    out
}

/// Moves `m`'s uniforms to honour `pins` (those of names `m` does not have are ignored).
pub fn apply(m: &mut Module, pins: &[Pin]) -> Result<(), Conflicts> {
    let mut conflicts = Vec::new();
    let units = units(m);
    // Each unit's new base, when pinned.
    let mut bases: Vec<Option<u32>> = vec![None; units.len()];
    for (k, unit) in units.iter().enumerate() {
        for &i in &unit.members {
            let u = &m.uniforms[i];
            let Some(pin) = pins.iter().find(|p| p.name == u.name) else {
                continue;
            };
            let file = if u.is_bool { "b" } else { "c" };
            if pin.is_bool != u.is_bool || pin.type_name != u.type_name {
                conflicts.push(format!(
                    "the uniform `{}` is a `{}` here, but {} has it as a `{}`",
                    u.name, u.type_name, pin.origin, pin.type_name
                ));
                continue;
            }
            if pin.component != u.component {
                conflicts.push(format!(
                    "the uniform `{}` starts at component {} here, but at {} in {}: a \
                     register's components cannot be moved",
                    u.name, u.component, pin.component, pin.origin
                ));
                continue;
            }
            let Some(base) = (pin.register + unit.base).checked_sub(u.register) else {
                conflicts.push(format!(
                    "the uniform `{}` cannot be at {file}{} ({}): the uniforms sharing its \
                     registers would start below {file}0",
                    u.name, pin.register, pin.origin
                ));
                continue;
            };
            match bases[k] {
                Some(b) if b != base => conflicts.push(format!(
                    "the uniform `{}` shares registers with `{}`, and {} puts them {} \
                     registers apart",
                    u.name,
                    m.uniforms[unit.members[0]].name,
                    pin.origin,
                    base.abs_diff(b)
                )),
                _ => bases[k] = Some(base),
            }
        }
    }
    // Pinned units must not overlap one another.
    for a in 0..units.len() {
        for b in a + 1..units.len() {
            let (Some(x), Some(y)) = (bases[a], bases[b]) else {
                continue;
            };
            if units[a].is_bool == units[b].is_bool
                && x < y + units[b].size
                && y < x + units[a].size
            {
                conflicts.push(format!(
                    "the layout puts `{}` and `{}` in the same registers ({}{} and {}{})",
                    m.uniforms[units[a].members[0]].name,
                    m.uniforms[units[b].members[0]].name,
                    if units[a].is_bool { "b" } else { "c" },
                    x,
                    if units[b].is_bool { "b" } else { "c" },
                    y
                ));
            }
        }
    }
    if !conflicts.is_empty() {
        return Err(conflicts);
    }
    // The rest: the lowest free registers, in order.
    for k in 0..units.len() {
        if bases[k].is_some() {
            continue;
        }
        let taken = |b: u32, bases: &[Option<u32>]| {
            units.iter().zip(bases).any(|(other, base)| {
                base.is_some_and(|o| {
                    other.is_bool == units[k].is_bool && b < o + other.size && o < b + units[k].size
                })
            })
        };
        let mut b = 0;
        while taken(b, &bases) {
            b += 1;
        }
        bases[k] = Some(b);
    }
    // A read at a computed index (`lights[i].color`) steps over several uniforms' registers:
    // they may only move together.
    let dynamic = m.function.layout.iter().any(|b| {
        m.function.blocks[*b].insts.iter().any(|i| {
            let inst = &m.function.insts[*i];
            matches!(inst.op, Op::LoadUniform { .. }) && !inst.args.is_empty()
        })
    });
    if dynamic {
        let deltas: Vec<i64> = units
            .iter()
            .zip(&bases)
            .filter(|(u, _)| !u.is_bool)
            .map(|(u, b)| i64::from(b.unwrap_or(u.base)) - i64::from(u.base))
            .collect();
        if deltas.iter().any(|d| *d != deltas[0]) {
            return Err(vec![
                "the program reads uniforms at a computed index, which steps over their \
                 registers in order: the layout would move them apart (pin them all by the same \
                 offset, or none)"
                    .to_string(),
            ]);
        }
    }
    // Move the uniforms and the reads.
    let moves: Vec<(bool, u32, u32, i64)> = units
        .iter()
        .zip(&bases)
        .map(|(u, b)| {
            (
                u.is_bool,
                u.base,
                u.size,
                i64::from(b.unwrap_or(u.base)) - i64::from(u.base),
            )
        })
        .collect();
    let moved = |is_bool: bool, r: u32| -> u32 {
        moves
            .iter()
            .find(|(b, base, size, _)| *b == is_bool && r >= *base && r < base + size)
            .map_or(r, |(_, _, _, d)| (i64::from(r) + d) as u32)
    };
    for u in &mut m.uniforms {
        u.register = moved(u.is_bool, u.register);
    }
    rewrite_reads(&mut m.function, &moved);
    Ok(())
}

fn rewrite_reads(f: &mut Function, moved: &dyn Fn(bool, u32) -> u32) {
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            let inst = &mut f.insts[i];
            inst.op = match inst.op {
                Op::LoadUniform { register } => Op::LoadUniform {
                    register: moved(false, register),
                },
                Op::LoadBoolUniform { register } => Op::LoadBoolUniform {
                    register: moved(true, register),
                },
                other => other,
            };
        }
    }
}
