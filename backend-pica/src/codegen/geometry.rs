//! Geometry programs (docs/conventions.md, "Geometry programs"): where each per-vertex input
//! arrives, and the SETEMIT each `EmitVertex` needs.
//!
//! **Inputs (point mode).** libctru's `shaderProgramSetGsh(sp, dvle, stride)` makes the
//! geometry unit collect `stride` output registers of the vertex program (those its output
//! mask enables, in register order) and run the geometry program with them in `v0…`: vertex
//! `i`'s `k`-th register is `v(i·R + k)`, where `R` is the number of registers each vertex
//! brings and `stride` = `R` × the primitive's vertices. So an input's register depends on
//! the vertex program's outputs: the [`Layout`] says which of them holds what.
//!
//! **Emission.** The primitive assembler keeps three vertex slots; `SETEMIT s` chooses the
//! slot the next `EMIT` fills, and `SETEMIT s, prim` makes that EMIT draw a triangle of the
//! three slots (`inv` inverts its winding). The `k`-th vertex of a GLSL triangle strip goes
//! to slot `k mod 3` and draws a triangle from `k = 2` on; the slots then hold a rotation of
//! `(v(k−2), v(k−1), v(k))`, which keeps that triangle's winding, and GL draws every second
//! triangle of a strip reversed, so odd `k` gets `inv`. The slot is an immediate, so every
//! `EmitVertex` must be reached after the same number of vertices of its strip on every path
//! (after the counted loops around it are unrolled); `EndPrimitive` starts a new strip.

use crate::rules::Rule;
use mir::hash::HashMap;
use mir::module::{BuiltIn, OutputPrimitive};
use mir::{Diagnostic, Function, InstId, Module, Op};

use super::vinst::VInst;
use crate::limits;

/// The rule of geometry program errors.
pub const RULE: Rule = Rule::Geometry;

/// What a vertex program output register carries into the geometry program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carried {
    /// `gl_Position`.
    Position,
    /// The user output at this location.
    Location(u32),
}

/// The vertex program's output registers, as the geometry program receives them: one entry
/// per register its output mask enables, in register order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// What each register carries (`None`: something the geometry program does not read).
    pub registers: Vec<Option<Carried>>,
}

impl Layout {
    /// The layout a vertex program compiled by this compiler has when it writes exactly what
    /// `m` reads: `gl_Position` in `o0`, then the locations in ascending order.
    pub fn assumed(m: &Module) -> Layout {
        let mut locations: Vec<u32> = m
            .inputs
            .iter()
            .filter(|(_, i)| i.builtin.is_none())
            .map(|(_, i)| i.location)
            .collect();
        locations.sort_unstable();
        locations.dedup();
        let mut registers = vec![Some(Carried::Position)];
        registers.extend(locations.into_iter().map(|l| Some(Carried::Location(l))));
        Layout { registers }
    }

    /// Registers per vertex.
    pub fn per_vertex(&self) -> u32 {
        self.registers.len() as u32
    }
}

/// How the geometry unit hands a program its input vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Point mode: all vertices' registers in `v0…` (at most 16).
    Point,
    /// Fixed mode: vertex `i`'s `k`-th register in `c(i·R + k)` from `c0`, the program's own
    /// uniforms after the array (`.gsh fixed cF c0 N`).
    Fixed,
}

/// Where the inputs are: the mode, and each input's register (by the input's index).
#[derive(Clone, Debug)]
pub struct Placed {
    /// The mode.
    pub mode: Mode,
    /// `vN` (point mode) or `cN` (fixed mode) of each input.
    pub registers: HashMap<usize, u8>,
    /// Fixed mode: the first register after the vertex array, where the uniforms start.
    pub uniform_base: u32,
}

/// Each input's register, in point mode when the primitive's registers fit `v0`–`v15`, else in
/// fixed mode; errors name what does not fit.
pub fn place_inputs(m: &Module, layout: &Layout) -> Result<Placed, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let vertices = m.geometry.map_or(1, |g| g.input.vertices());
    let per = layout.per_vertex();
    let total = per * vertices;
    let mode = if total <= u32::from(limits::INPUT_REGISTERS) {
        Mode::Point
    } else {
        Mode::Fixed
    };
    // Fixed mode: the array, the uniforms after it and the literals below c95 share c0-c95.
    if mode == Mode::Fixed
        && total + m.first_free_float_register() > u32::from(limits::FLOAT_UNIFORMS)
    {
        errors.push(
            Diagnostic::error(
                Rule::Limit,
                format!(
                    "the geometry program reads {vertices} vertices of {per} registers each, \
                     {total} in all: more than point mode's 16 (v0 to v15), and in fixed mode \
                     they and the {} uniform registers exceed the PICA200's {} float registers",
                    m.first_free_float_register(),
                    limits::FLOAT_UNIFORMS
                ),
            )
            .with_note(
                "pass fewer varyings from the vertex program, or pack them into fewer vec4s",
            ),
        );
        return Err(errors);
    }
    let mut registers = HashMap::default();
    for (h, input) in m.inputs.iter() {
        let key = match input.builtin {
            Some(BuiltIn::Position) => Carried::Position,
            Some(_) => continue,
            None => Carried::Location(input.location),
        };
        let Some(slot) = layout.registers.iter().position(|r| *r == Some(key)) else {
            // Once per variable, not per vertex.
            let name = input.name.split('[').next().unwrap_or(&input.name);
            let message = format!(
                "the geometry program reads `{name}` (location {}), which the vertex program \
                 before it does not write; it writes {}",
                input.location,
                layout
                    .registers
                    .iter()
                    .flatten()
                    .map(|c| match c {
                        Carried::Position => "gl_Position".to_string(),
                        Carried::Location(l) => format!("location {l}"),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if !errors.iter().any(|e: &Diagnostic| e.message == message) {
                errors.push(Diagnostic::error(RULE, message));
            }
            continue;
        };
        let vertex = input.vertex.unwrap_or(0);
        registers.insert(h.index(), (vertex * per + slot as u32) as u8);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Placed {
        mode,
        registers,
        uniform_base: if mode == Mode::Fixed { total } else { 0 },
    })
}

/// Moves the float uniforms of `m` up by `base` registers (fixed mode's array comes first).
pub fn shift_uniforms(m: &mut Module, base: u32) {
    if base == 0 {
        return;
    }
    for u in m.uniforms.iter_mut().filter(|u| !u.is_bool) {
        u.register += base;
    }
    for inst in m.function.insts.iter_mut() {
        if let Op::LoadUniform { register } = &mut inst.op {
            *register += base;
        }
    }
}

/// Why a geometry module cannot run on the PICA200 at all, if it cannot.
pub fn check(m: &Module) -> Result<(), Box<Diagnostic>> {
    let Some(g) = m.geometry else {
        return Err(Box::new(Diagnostic::error(
            RULE,
            "the geometry program declares no primitives",
        )));
    };
    if g.output != OutputPrimitive::TriangleStrip {
        return Err(Box::new(Diagnostic::error(
            RULE,
            format!(
                "the geometry program emits {}; the PICA200 draws only triangles: declare \
                 layout(triangle_strip, max_vertices = N) out and emit quads for points or lines",
                g.output.name()
            ),
        )));
    }
    Ok(())
}

/// How many vertices of the current strip have been emitted on entry to a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Count {
    /// No path reaches it yet.
    Unreached,
    /// The same number on every path.
    Known(u32),
    /// Different numbers on different paths.
    Mixed,
}

fn meet(a: Count, b: Count) -> Count {
    match (a, b) {
        (Count::Unreached, x) | (x, Count::Unreached) => x,
        (Count::Known(x), Count::Known(y)) if x == y => Count::Known(x),
        _ => Count::Mixed,
    }
}

/// The SETEMIT of every `EmitVertex` in `f`, or an error for each one whose place in its
/// strip differs between paths.
pub fn emits(f: &Function) -> Result<HashMap<InstId, VInst>, Vec<Diagnostic>> {
    let order = mir::analysis::cfg::reverse_post_order(f);
    let preds = f.predecessors();
    let mut entry: HashMap<mir::BlockId, Count> = HashMap::default();
    let mut exit: HashMap<mir::BlockId, Count> = HashMap::default();
    let through = |b: mir::BlockId, mut c: Count| {
        for &i in &f.blocks[b].insts {
            match f.insts[i].op {
                Op::EmitVertex => {
                    c = match c {
                        Count::Known(k) => Count::Known(k + 1),
                        other => other,
                    }
                }
                Op::EndPrimitive => c = Count::Known(0),
                _ => {}
            }
        }
        c
    };
    // Each block's count only rises (unreached, then known, then mixed): a fixpoint.
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let c = if b == f.entry {
                Count::Known(0)
            } else {
                preds[b.index()]
                    .iter()
                    .map(|p| exit.get(p).copied().unwrap_or(Count::Unreached))
                    .fold(Count::Unreached, meet)
            };
            let out = through(b, c);
            if entry.get(&b) != Some(&c) || exit.get(&b) != Some(&out) {
                entry.insert(b, c);
                exit.insert(b, out);
                changed = true;
            }
        }
    }
    let mut plan = HashMap::default();
    let mut errors = Vec::new();
    for &b in &order {
        let mut c = entry.get(&b).copied().unwrap_or(Count::Unreached);
        for &i in &f.blocks[b].insts {
            match f.insts[i].op {
                Op::EmitVertex => match c {
                    Count::Known(k) => {
                        plan.insert(
                            i,
                            VInst::SetEmit {
                                vertex: (k % 3) as u8,
                                primitive: k >= 2,
                                winding: k >= 2 && k % 2 == 1,
                            },
                        );
                        c = Count::Known(k + 1);
                    }
                    Count::Mixed => errors.push(
                        Diagnostic::error(
                            RULE,
                            "this EmitVertex is reached after different numbers of vertices \
                             on different paths; the PICA200's SETEMIT names the vertex's \
                             place in the triangle as a constant",
                        )
                        .with_span(f.insts[i].span)
                        .with_note(
                            "emit the same number of vertices on every path, in loops with a \
                             constant trip count of at most max_vertices trips (which are \
                             unrolled), or end the strip (EndPrimitive) in every iteration",
                        ),
                    ),
                    Count::Unreached => {}
                },
                Op::EndPrimitive => c = Count::Known(0),
                _ => {}
            }
        }
    }
    if errors.is_empty() {
        Ok(plan)
    } else {
        Err(errors)
    }
}
