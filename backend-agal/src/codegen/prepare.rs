//! The MIR the selector receives: the module after AGAL's pass pipeline, with four changes
//! of this back end's own.
//!
//! - **Bool uniforms become float registers** (before the pipeline). AGAL has no bool
//!   registers: a loose `uniform bool` takes the next constant register after the uniforms,
//!   holding 1.0 or 0.0 in x, and reads as `u.x != 0`.
//! - **Loops and branches.** No AGAL version has a loop instruction, so every loop must
//!   unroll; one that did not is an error naming it. AGAL 1 has no branches either: every
//!   `if` was flattened. AGAL 2 and 3 keep an `if` as `ife`/`ine`/`ifl` … `eif` only where
//!   Flash allows it (no `ddx`/`ddy`, no `tex` with computed coordinates inside, at most the
//!   profile's nesting depth); outputs are written after the last merge anyway. If any `if`
//!   breaks those rules the whole program is flattened as for AGAL 1.
//! - **Blends of values that may be infinite** (`flag * x`) clamp `x` to the finite range
//!   first (see `finite_blends`): AGAL 1 runs both arms of a flattened `if`.
//! - **Rows of `dph`** (a row-major matrix times `vec4(p, 1)`, which simplify turned into one
//!   homogeneous dot product per row) become `dot4`s of one `vec4(p, 1)`, so that the
//!   selector can fuse them into one `m44` or `m34`.

use crate::rules::CodegenRule;
use mir::hash::HashMap;

use mir::analysis::regions::Regions;
use mir::func::{Function, Replacements, Structure, Terminator, Value};
use mir::inst::{CmpOp, Op, Operand};
use mir::module::Module;
use mir::passes::expand::Expand;
use mir::passes::pipeline::{Step, Stopped, Then};
use mir::passes::{IfConversion, Options};
use mir::types::{Swizzle, Ty};
use mir::{Diagnostic, Diagnostics, Span};

use crate::header::Version;
use crate::limits::Profile;

/// The module as the selector receives it.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The optimised module.
    pub module: Module,
    /// Each bool uniform's bool register and the constant register now holding it.
    pub bool_registers: Vec<(u32, u32)>,
    /// Whether an AGAL 2 or 3 program had its `if`s flattened (some `if` broke Flash's rules
    /// for conditional blocks).
    pub flattened: bool,
    /// What the interface steps warned about (colour outputs left unwritten).
    pub warnings: Vec<Diagnostic>,
}

/// Which `if`s of an AGAL 2 or 3 program become selects (AGAL 1 has no branches: all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ifs {
    /// Those whose arms hold at most six instructions together: the first try.
    Small,
    /// Only those whose arms compute nothing (a choice between values): the try that keeps
    /// arms with work in them as branches, which is shorter when both arms are expensive
    /// (`ifl`/`tex`/`els`/`tex`/`eif` against both reads, two compares and a blend). Selects
    /// become branches too (`ifl`/`mov`/`eif` against two compares and a blend).
    Few,
    /// All of them: the try after a branch broke Flash's rules for conditional blocks.
    All,
}

/// AGAL's choices for the optimiser: its expansions, bools as floats, no multiply-add (AGAL
/// has none), loops unrolled completely (no AGAL version has a loop instruction); with
/// `branches` false (AGAL 1) every `if` becomes selects, else those `ifs` says.
pub fn passes(branches: bool) -> Options {
    passes_with(if branches { Ifs::Small } else { Ifs::All })
}

/// [`passes`] with the `if`s that `ifs` says converted.
pub fn passes_with(ifs: Ifs) -> Options {
    Options {
        if_conversion: match ifs {
            Ifs::Small => IfConversion::UpTo(6),
            Ifs::Few => IfConversion::UpTo(0),
            Ifs::All => IfConversion::All,
        },
        unroll_trips: 256,
        unroll_budget: 2048,
        predicate_breaks: true,
        duplicate_joins: true,
        fuse_mad: false,
        float_bools: true,
        branch_selects: ifs == Ifs::Few,
        expand: Expand {
            sub: false,
            mad: true,
            div: false,
            sqrt: false,
            pow: false,
            sin_cos: false,
            floor: true,
            fract: false,
            rounding: true,
            sat: false,
            // The back end fuses the `dph`s of a matrix's rows into one `m44` and expands
            // the others itself.
            dph: false,
            cross: false,
            normalize: 0b10110,
            dot2: true,
        },
        ..Options::default()
    }
}

/// What AGAL's own steps keep between them.
#[derive(Clone, Debug)]
pub struct Cx {
    /// The profile compiled for.
    pub profile: Profile,
    /// Whether the profile has branches (AGAL 2 and 3).
    branches: bool,
    /// Whether every `if` is flattened although the profile has branches.
    flattened: bool,
    /// Each bool uniform's bool register and the constant register now holding it.
    bool_registers: Vec<(u32, u32)>,
    /// The varying that passes the position on for `gl_FragCoord` (see
    /// [`super::position`]).
    position_varying: Option<u16>,
    /// What the interface steps warned about.
    warnings: Vec<Diagnostic>,
}

/// Why AGAL's steps stopped the pipeline.
#[derive(Clone, Debug)]
pub enum Refusal {
    /// The program cannot run on AGAL.
    Errors(Vec<Diagnostic>),
    /// Some `if` kept as a branch breaks Flash's rules for conditional blocks: the whole
    /// program is prepared again with every `if` flattened.
    Flatten,
}

/// What [`super::compile`] tries beside the first try, as `--print-pipeline` says it.
pub const RETRIES: &str = "\
if an if kept as a branch breaks Flash's rules for conditional blocks: again with every if flattened
AGAL 2 and 3, with ifs or selects: again converting only ifs that compute nothing, selects as branches; the shorter program is kept
";

/// AGAL's pipeline, as `--print-pipeline` shows it.
pub type Pipeline = mir::passes::pipeline::Pipeline<Cx, Refusal>;

/// The pipeline for `profile` with the `if`s that `ifs` says converted: bool uniforms as
/// float registers, the shared passes, then this back end's checks and rewrites (see the
/// module comment).
pub fn pipeline(profile: Profile, ifs: Ifs) -> Pipeline {
    let branches = profile.version() >= Version::V2;
    let options = passes_with(if branches { ifs } else { Ifs::All });
    Pipeline::shared(options)
        .prepend(vec![
            Step::target(
                "agal.stage",
                "Stage3D runs vertex and fragment programs",
                |m, _: &mut Cx| {
                    super::interface::stage(m).map_err(|d| Refusal::Errors(vec![*d]))?;
                    Ok(false)
                },
            ),
            Step::target(
                "agal.position",
                "gl_FragCoord is computed from the position the vertex program passes on",
                |m, cx| {
                    let linked = super::position::link(m, cx.position_varying)
                        .map_err(|d: Diagnostics| Refusal::Errors(d.0))?;
                    Ok(linked.map(|l| *m = l).is_some())
                },
            ),
            Step::target(
                "agal.required-outputs",
                "a fragment program's colour outputs are written without gaps (zeros)",
                |m, cx| {
                    let (completed, warnings) =
                        super::required::complete(m).map_err(Refusal::Errors)?;
                    cx.warnings = warnings;
                    Ok(completed.map(|c| *m = c).is_some())
                },
            ),
            Step::target(
                "agal.bool-uniforms",
                "bool uniforms take float registers after the others and read as x != 0",
                |m, cx| {
                    cx.bool_registers = bool_uniforms(m);
                    Ok(!cx.bool_registers.is_empty())
                },
            ),
        ])
        .insert_after(
            "unroll",
            vec![
                Step::target(
                    "agal.uniform-index",
                    "a fragment program's uniform read by a computed index selects among the array's registers",
                    |m, _: &mut Cx| {
                        super::uniform_index::expand(m).map_err(|d| Refusal::Errors(vec![*d]))
                    },
                )
                .then(Then::CleanupIfChanged),
            ],
        )
        .append(vec![
            Step::target(
                "agal.conditional-blocks",
                "an if that breaks Flash's rules for conditional blocks flattens them all",
                |m, cx| {
                    let flatten =
                        cx.branches && !cx.flattened && needs_flattening(&m.function, cx.profile);
                    if flatten {
                        Err(Refusal::Flatten)
                    } else {
                        Ok(false)
                    }
                },
            ),
            Step::target(
                "agal.loops",
                "refuses loops left and branches where the program cannot branch",
                |m, cx| {
                    let mut errors = loops(&m.function);
                    // A loop left over keeps its own branch: the loop's error says it all.
                    if errors.is_empty() && (!cx.branches || cx.flattened) {
                        errors.extend(branches_left(&m.function));
                    }
                    if errors.is_empty() {
                        Ok(false)
                    } else {
                        Err(Refusal::Errors(errors))
                    }
                },
            ),
            Step::target(
                "agal.finite-blends",
                "a value that may be infinite is clamped before a flag multiplies it",
                |m, _| Ok(finite_blends(&mut m.function)),
            ),
            // After the blends' clamps, which look for the flags this replaces.
            Step::target(
                "agal.bool-flags",
                "a blend's flag float(u.x != 0) of a bool uniform is u.x itself",
                |m, cx| Ok(bool_flags(&mut m.function, &cx.bool_registers)),
            ),
            Step::target(
                "agal.dph-rows",
                "the dph rows of a matrix become dot4s of one vec4(p, 1), to fuse into m44",
                |m, _| Ok(dph_rows(&mut m.function)),
            ),
        ])
}

/// Runs the pipeline and this back end's rewrites.
///
/// `ifs` says which `if`s of an AGAL 2 or 3 program become selects ([`Ifs::All`]: the
/// compiler's try when the program with branches broke one of Flash's rules).
pub fn prepare(
    module: &Module,
    options: &super::Options,
    ifs: Ifs,
) -> Result<Prepared, Vec<Diagnostic>> {
    prepare_until(module, options, ifs, None)
}

/// [`prepare`], stopping after step number `stop` of [`pipeline`] when given (what `--emit
/// mir --after STEP` prints).
pub fn prepare_until(
    module: &Module,
    options: &super::Options,
    ifs: Ifs,
    stop: Option<usize>,
) -> Result<Prepared, Vec<Diagnostic>> {
    let profile = options.profile;
    let branches = profile.version() >= Version::V2;
    let run = |ifs: Ifs| {
        let mut m = module.clone();
        let mut cx = Cx {
            profile,
            branches,
            flattened: branches && ifs == Ifs::All,
            bool_registers: Vec::new(),
            position_varying: options.position_varying,
            warnings: Vec::new(),
        };
        pipeline(profile, ifs)
            .run(&mut m, &mut cx, stop)
            .map(|_| (m, cx))
    };
    let ran = match run(ifs) {
        Err(Stopped::Target(Refusal::Flatten)) => run(Ifs::All),
        ran => ran,
    };
    match ran {
        Ok((module, cx)) => Ok(Prepared {
            module,
            bool_registers: cx.bool_registers,
            flattened: cx.flattened,
            warnings: cx.warnings,
        }),
        Err(Stopped::Target(Refusal::Errors(errors))) => Err(errors),
        Err(Stopped::Target(Refusal::Flatten)) => Err(vec![Diagnostic::error(
            CodegenRule::Internal,
            "internal error (this is a bug): the flattened program still breaks the rules \
             for conditional blocks",
        )]),
        Err(Stopped::Verify(e)) => Err(vec![Diagnostic::error(
            CodegenRule::Internal,
            format!("internal error (this is a bug): {e}"),
        )]),
    }
}

/// A bool uniform's register holds 1.0 or 0.0 (the interface contract), so the flag a blend
/// multiplies by, `float(u.x != 0)`, is `u.x` itself, and `float(u.x == 0)` is `1 - u.x`:
/// no comparison (and no copy of the 0 it compares with, a second constant operand).
fn bool_flags(f: &mut Function, bool_registers: &[(u32, u32)]) -> bool {
    let floats: Vec<u32> = bool_registers.iter().map(|&(_, r)| r).collect();
    let mut changed = false;
    let mut replace = Replacements::default();
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            let inst = &f.insts[i];
            let Some(r) = inst.result() else { continue };
            if inst.op != Op::BoolToFloat || f.ty(r).lanes != 1 {
                continue;
            }
            let c = inst.args[0];
            let Some(cmp) = f.def_inst(c.value) else {
                continue;
            };
            let eq = match cmp.op {
                Op::Cmp(CmpOp::Ne) => false,
                Op::Cmp(CmpOp::Eq) => true,
                _ => continue,
            };
            let lane = usize::from(c.swizzle.lane(0));
            let read = |o: &Operand| {
                let l = o.swizzle.lane(lane);
                let d = f.def_inst(o.value)?;
                let is_flag_register = matches!(d.op, Op::LoadUniform { register }
                    if d.args.is_empty() && floats.contains(&register));
                (is_flag_register && l == 0 && !o.neg && !o.abs).then_some(o.value)
            };
            let zero = |o: &Operand| {
                mir::analysis::constants::lane(f, o.value, o.swizzle.lane(lane)) == Some(0.0)
            };
            let (a, z) = (&cmp.args[0], &cmp.args[1]);
            let u = match (read(a), read(z)) {
                (Some(u), None) if zero(z) => u,
                (None, Some(u)) if zero(a) => u,
                _ => continue,
            };
            let flag = Operand::lane(u, 0);
            if eq {
                let span = f.insts[i].span;
                let one = f.create_inst(Op::float_const(&[1.0]), vec![], &[Ty::float(1)], span);
                let at = f.blocks[b].insts.iter().position(|&x| x == i).unwrap_or(0);
                f.blocks[b].insts.insert(at, one);
                let one = Operand::new(f.insts[one].results[0]);
                f.insts[i].op = Op::Sub;
                f.insts[i].args = vec![one, flag];
                changed = true;
            } else {
                replace.insert(r, flag);
            }
        }
    }
    changed |= replace.finish(f);
    mir::passes::dce::run(f) | changed
}

/// Gives every bool uniform a float register after the others and reads it as `x != 0`.
fn bool_uniforms(m: &mut Module) -> Vec<(u32, u32)> {
    let first = m.first_free_float_register();
    let mut map = Vec::new();
    for (next, u) in (first..).zip(m.uniforms.iter_mut().filter(|u| u.is_bool)) {
        map.push((u.register, next));
        u.register = next;
        u.is_bool = false;
        u.count = 1;
    }
    if map.is_empty() {
        return map;
    }
    let f = &mut m.function;
    for b in f.layout.clone() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for i in old {
            if let Op::LoadBoolUniform { register } = f.insts[i].op {
                let float = map
                    .iter()
                    .find(|(b, _)| *b == register)
                    .map_or(0, |(_, r)| *r);
                let span = f.insts[i].span;
                let load = f.create_inst(
                    Op::LoadUniform { register: float },
                    vec![],
                    &[Ty::float(4)],
                    span,
                );
                let zero = f.create_inst(Op::float_const(&[0.0]), vec![], &[Ty::float(1)], span);
                out.extend([load, zero]);
                let (load, zero) = (f.insts[load].results[0], f.insts[zero].results[0]);
                f.insts[i].op = Op::Cmp(CmpOp::Ne);
                f.insts[i].args = vec![Operand::lane(load, 0), Operand::new(zero)];
            }
            out.push(i);
        }
        f.blocks[b].insts = out;
    }
    map
}

/// Whether some `if` breaks Flash's rules for conditional blocks.
fn needs_flattening(f: &Function, profile: Profile) -> bool {
    let regions = Regions::new(f);
    let depth_limit = usize::from(profile.limits().max_nesting);
    for c in &regions.constructs {
        let mut depth = 1;
        let mut at = *c;
        while let Some(p) = regions.parent(&at) {
            depth += 1;
            at = p;
        }
        if depth > depth_limit {
            return true;
        }
    }
    for &b in &f.layout {
        if regions.innermost(b, Some(b)).is_none() {
            continue;
        }
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            match inst.op {
                Op::Ddx | Op::Ddy => return true,
                Op::Sample { proj, .. } => {
                    let interpolated = inst.args.first().is_some_and(|c| {
                        !c.neg
                            && !c.abs
                            && f.def_inst(c.value)
                                .is_some_and(|d| matches!(d.op, Op::LoadInput(_)))
                    });
                    if proj || !interpolated {
                        return true;
                    }
                }
                _ => {}
            }
        }
    }
    false
}

/// An error for every loop the pipeline could not unroll.
fn loops(f: &Function) -> Vec<Diagnostic> {
    f.layout
        .iter()
        .filter(|&&b| matches!(f.blocks[b].structure, Some(Structure::Loop { .. })))
        .map(|&b| {
            Diagnostic::error(
                CodegenRule::Unsupported,
                "a loop that cannot be unrolled: AGAL has no loop instructions, so every loop \
                 must unroll completely, and this one's trip count depends on data (or it runs \
                 more than 256 times, or unrolled it would exceed 2048 instructions); bound it \
                 by a constant (`for (int i = 0; i < 8; ++i) { if (i >= n) break; ... }`), or \
                 read a uniform array by its counter on every iteration so that the array's \
                 length bounds it",
            )
            .with_span(first_span(f, b))
        })
        .collect()
}

/// An error for every branch left where the program cannot branch.
fn branches_left(f: &Function) -> Vec<Diagnostic> {
    f.layout
        .iter()
        .filter(|&&b| matches!(f.blocks[b].term, Terminator::Branch { .. }))
        // One is enough: the rest are the same construct's other tests.
        .take(1)
        .map(|&b| {
            Diagnostic::error(
                CodegenRule::Unsupported,
                "a branch that cannot be flattened into selects (the program must run without \
                 branches here, and this `if` or `switch` is not nested the way flattening \
                 needs; a `switch` case that falls through into another is the usual cause)",
            )
            .with_span(first_span(f, b))
        })
        .collect()
}

/// The span of a block: its label's, else its first instruction's.
fn first_span(f: &Function, b: mir::BlockId) -> Span {
    let block = &f.blocks[b];
    if block.span != Span::default() {
        return block.span;
    }
    block
        .insts
        .first()
        .map_or(Span::default(), |&i| f.insts[i].span)
}

/// Clamps to the finite range every value that may be infinite or NaN and is multiplied by
/// a 0/1 flag: a flattened `if` blends its arms as `c * a + (1 - c) * b`, and `0 * inf` is
/// NaN on AGAL's IEEE hardware, so an arm not taken would poison the result.
/// `min(MAX, max(-MAX, x))` is `x` for finite `x`, ±MAX for ±inf and -MAX for NaN (`max`
/// returns its first operand when either is NaN).
fn finite_blends(f: &mut Function) -> bool {
    let mut changed = false;
    let non_finite = mir::analysis::finite::maybe_non_finite(f);
    for b in f.layout.clone() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for i in old {
            let inst = &f.insts[i];
            let flagged = (inst.op == Op::Mul && inst.result().is_some())
                .then(|| {
                    (0..2).find(|&k| {
                        let flag = f
                            .def_inst(inst.args[k].value)
                            .is_some_and(|d| d.op == Op::BoolToFloat);
                        flag && non_finite.contains(&inst.args[1 - k].value)
                    })
                })
                .flatten();
            if let Some(k) = flagged {
                let other = 1 - k;
                let span = inst.span;
                let lanes = inst.result().map_or(1, |r| f.ty(r).lanes);
                let x = inst.args[other];
                let ty = Ty::float(lanes);
                let big = vec![f32::MAX; usize::from(lanes)];
                let small = vec![-f32::MAX; usize::from(lanes)];
                let hi = f.create_inst(Op::float_const(&big), vec![], &[ty], span);
                let lo = f.create_inst(Op::float_const(&small), vec![], &[ty], span);
                let (hv, lv) = (f.insts[hi].results[0], f.insts[lo].results[0]);
                let floor = f.create_inst(Op::Max, vec![Operand::new(lv), x], &[ty], span);
                let fv = f.insts[floor].results[0];
                let clamp = f.create_inst(
                    Op::Min,
                    vec![Operand::new(hv), Operand::new(fv)],
                    &[ty],
                    span,
                );
                out.extend([hi, lo, floor, clamp]);
                f.insts[i].args[other] = Operand::new(f.insts[clamp].results[0]);
                changed = true;
            }
            out.push(i);
        }
        f.blocks[b].insts = out;
    }
    changed
}

/// Rewrites the `dph` rows of a matrix (see the module comment).
fn dph_rows(f: &mut Function) -> bool {
    let mut changed = false;
    let uses = f.use_counts();
    for b in f.layout.clone() {
        let mut k = 0;
        while k < f.blocks[b].insts.len() {
            let c = f.blocks[b].insts[k];
            k += 1;
            if f.insts[c].op != Op::Construct {
                continue;
            }
            let Some(rows) = dph_row_insts(f, &f.insts[c].args, &uses) else {
                continue;
            };
            let first = rows[0].0;
            let p = rows[0].1;
            let span = f.insts[first].span;
            let one = f.create_inst(Op::float_const(&[1.0]), vec![], &[Ty::float(1)], span);
            let lanes: Vec<Operand> = (0..3)
                .map(|l| Operand {
                    swizzle: Swizzle::splat(p.swizzle.lane(l)),
                    ..p
                })
                .chain([Operand::new(f.insts[one].results[0])])
                .collect();
            let v = f.create_inst(Op::Construct, lanes, &[Ty::float(4)], span);
            let vec = f.insts[v].results[0];
            for (inst, _) in &rows {
                f.insts[*inst].op = Op::Dot(4);
                f.insts[*inst].args[0] = Operand::new(vec);
            }
            let at = f.blocks[b]
                .insts
                .iter()
                .position(|&i| rows.iter().any(|(r, _)| *r == i))
                .unwrap_or(0);
            f.blocks[b].insts.splice(at..at, [one, v]);
            k += 2;
            changed = true;
        }
    }
    changed
}

/// The `dph` instructions of lanes 0, 1, 2 (and 3) of a construct when they are rows of one
/// uniform matrix applied to one point, with that point.
fn dph_row_insts(
    f: &Function,
    args: &[Operand],
    uses: &HashMap<Value, usize>,
) -> Option<Vec<(mir::InstId, Operand)>> {
    let mut rows = Vec::new();
    let mut base: Option<(u32, Vec<Operand>)> = None;
    for (i, a) in args.iter().enumerate() {
        let ok = (|| {
            if a.neg || a.abs || a.swizzle.lane(0) != 0 || uses.get(&a.value) != Some(&1) {
                return None;
            }
            let mir::func::ValueDef::Inst(id, _) = f.values[a.value].def else {
                return None;
            };
            let d = &f.insts[id];
            if d.op != Op::Dph {
                return None;
            }
            let (p, r) = (d.args[0], d.args[1]);
            if r.neg || r.abs || !r.swizzle.is_identity(4) {
                return None;
            }
            let load = f.def_inst(r.value)?;
            let Op::LoadUniform { register } = load.op else {
                return None;
            };
            match &base {
                None => base = Some((register, load.args.clone())),
                Some((first, index)) => {
                    if register != first + i as u32 || *index != load.args {
                        return None;
                    }
                }
            }
            if rows
                .first()
                .is_some_and(|(_, q): &(mir::InstId, Operand)| *q != p)
            {
                return None;
            }
            Some((id, p))
        })();
        match ok {
            Some(row) => rows.push(row),
            None => break,
        }
    }
    (rows.len() >= 3).then_some(rows)
}
