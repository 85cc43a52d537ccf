//! The MIR the selector receives: the module after the PICA200's pass pipeline (what
//! `--emit mir` prints), and the pipeline's choices for this machine.

use mir::analysis::constants::{constant_n, is_power_of_two};
use mir::func::{Function, compose};
use mir::inst::{Op, Operand};
use mir::passes::expand::Expand;
use mir::passes::{Options, optimize_with};
use mir::types::Ty;
use mir::{Diagnostic, Diagnostics, Module, Stage};

/// The PICA200's choices for the optimiser: its expansions (no `sin`, `cos`, `pow`,
/// division or square root in hardware; SUB and SAT are written directly by selection, so
/// expanding them would only make simplify undo it), bools as floats, `if`s on bool uniforms
/// kept as IFU branches, small `if`s (six instructions) as selects, counted loops of up to 8
/// trips unrolled.
pub fn passes() -> Options {
    Options {
        keep_uniform_branches: true,
        float_bools: true,
        sink_into_arms: true,
        native_dph: true,
        expand: Expand {
            sub: false,
            mad: false,
            div: true,
            sqrt: true,
            pow: true,
            sin_cos: true,
            floor: false,
            fract: true,
            rounding: true,
            sat: false,
            dph: false,
            cross: true,
            normalize: 0b11110,
            dot2: true,
        },
        ..Options::default()
    }
}

/// Runs the pipeline on a vertex or geometry module; errors for what this machine cannot
/// run.
pub fn prepare(module: &Module) -> Result<Module, Diagnostics> {
    prepare_with(module, Try::FIRST)
}

/// What one compile of a program tries; the first that works wins (see
/// [`super::compile`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Try {
    /// Scalar multiply-adds of two literals become `dph`s (see `affine_scalars`: a word
    /// less each, but a literal register may hold fewer values).
    pub affine: bool,
    /// Loops left from inside an `if` (which the PICA200's `breakc` cannot do: it leaves a
    /// loop from its top level only) have their exits predicated as for AGAL
    /// (`mir::passes::breaks`): a flag set at the exit, the rest of each iteration skipped
    /// once it is set, so that the loop keeps one exit, its count.
    pub predicate_breaks: bool,
}

impl Try {
    /// The first try: `dph` affines, breaks as written.
    pub const FIRST: Try = Try {
        affine: true,
        predicate_breaks: false,
    };
}

/// [`prepare`] for one [`Try`].
pub fn prepare_with(module: &Module, attempt: Try) -> Result<Module, Diagnostics> {
    if module.stage == Stage::Geometry {
        super::geometry::check(module).map_err(|d| Diagnostics(vec![*d]))?;
    } else if module.stage != Stage::Vertex {
        return Err(Diagnostics(vec![Diagnostic::error(
            "pica.stage",
            format!(
                "{} programs are not supported: the PICA200 back end compiles vertex programs",
                module.stage.name()
            ),
        )]));
    }
    let mut m = module.clone();
    let mut options = passes();
    options.predicate_breaks |= attempt.predicate_breaks;
    if module.stage == Stage::Geometry {
        // A SETEMIT's slot is an immediate, so a loop that emits must unroll: as many trips
        // as the program may emit vertices (a ring of 17 quads' edges is 34), within the
        // geometry unit's 4096 words.
        let most = module.geometry.map_or(0, |g| g.max_vertices);
        options.unroll_trips = options.unroll_trips.max(most.min(256));
        options.unroll_budget = options.unroll_budget.max(2048);
    }
    optimize_with(&mut m, &options).map_err(|e| {
        Diagnostics(vec![Diagnostic::error(
            "pica.internal",
            format!("internal error (this is a bug): {e}"),
        )])
    })?;
    split_scaled_input_sums(&mut m.function);
    if attempt.affine {
        affine_scalars(&mut m.function);
    }
    // A loop that folding left unable to repeat, left early from inside an `if`.
    let stuck = mir::passes::once::remaining(&m.function);
    if !stuck.is_empty() {
        return Err(Diagnostics(
            stuck
                .into_iter()
                .map(|span| {
                    Diagnostic::error(
                        "pica.control-flow",
                        "a loop whose body always leaves it on the first trip, through a \
                         `break` inside an `if`, is not supported: write the body without \
                         the loop",
                    )
                    .with_span(span)
                })
                .collect(),
        ));
    }
    Ok(m)
}

/// `(a + b) * k` with `a` and `b` two inputs and `k` a power of two (a midpoint,
/// `(v0 + v1) * 0.5`) becomes `mad(a, k, b * k)`, exactly the same: an instruction reads
/// one input register at most, so the sum would need a move first (three words, now two).
fn split_scaled_input_sums(f: &mut Function) {
    let uses = f.use_counts();
    let is_input = |f: &Function, o: &Operand| {
        f.def_inst(o.value)
            .is_some_and(|d| matches!(d.op, Op::LoadInput(_)))
    };
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            if f.insts[i].op != Op::Mul {
                continue;
            }
            let Some(r) = f.insts[i].result() else {
                continue;
            };
            let lanes = f.ty(r).lanes;
            let args = f.insts[i].args.clone();
            let found = [(0usize, 1usize), (1, 0)].into_iter().find_map(|(k, s)| {
                let c = constant_n(f, &args[k], lanes)?;
                let pow2 = (0..usize::from(lanes)).all(|l| is_power_of_two(c[l]));
                let sum = args[s];
                let def = f.def_inst(sum.value)?;
                let plain = pow2 && !sum.abs && uses.get(&sum.value) == Some(&1);
                let (x, y) = (def.args.first()?, def.args.get(1)?);
                let two_inputs = matches!(def.op, Op::Add | Op::Sub)
                    && is_input(f, x)
                    && is_input(f, y)
                    && x.value != y.value;
                let y = if def.op == Op::Sub { y.negated() } else { *y };
                (plain && two_inputs).then(|| (args[k], compose(*x, sum), compose(y, sum)))
            });
            let Some((k, x, y)) = found else {
                continue;
            };
            let span = f.insts[i].span;
            let t = f.create_inst(Op::Mul, vec![y, k], &[Ty::float(lanes)], span);
            let at = f.blocks[b].insts.iter().position(|&n| n == i).unwrap_or(0);
            f.blocks[b].insts.insert(at, t);
            let t = f.insts[t].results[0];
            f.insts[i].op = Op::Mad;
            f.insts[i].args = vec![x, k, Operand::new(t)];
        }
    }
    mir::passes::dce::run(f);
}

/// `x * k1 + k2` of a scalar with two literals is `dph(x.xxx, (k1, 0, 0, k2))`: a MAD reads
/// one constant register at most (its second or third operand), so the multiply-add needs
/// one literal moved into a temporary first; DPH reads the whole constant vector in one
/// operand and adds its `w` (`0.5 * n.z + 0.5`, `3 - 2 * k`: one word, not two). The
/// PICA200 gives `0 * inf = 0`, so the zero lanes cannot turn an infinite `x` into NaN.
fn affine_scalars(f: &mut Function) {
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            let inst = &f.insts[i];
            if inst.op != Op::Mad || inst.result().is_none_or(|r| f.ty(r).lanes != 1) {
                continue;
            }
            let args = inst.args.clone();
            let Some(k2) = constant_n(f, &args[2], 1) else {
                continue;
            };
            let found = [(0usize, 1usize), (1, 0)].into_iter().find_map(|(xk, kk)| {
                let k1 = constant_n(f, &args[kk], 1)?;
                constant_n(f, &args[xk], 1)
                    .is_none()
                    .then_some((args[xk], k1[0]))
            });
            let Some((x, k1)) = found else {
                continue;
            };
            let span = f.insts[i].span;
            let k = f.create_inst(
                Op::float_const(&[k1, 0.0, 0.0, k2[0]]),
                Vec::new(),
                &[Ty::float(4)],
                span,
            );
            let at = f.blocks[b].insts.iter().position(|&n| n == i).unwrap_or(0);
            f.blocks[b].insts.insert(at, k);
            let x = Operand {
                swizzle: mir::types::Swizzle::splat(x.swizzle.lane(0)),
                ..x
            };
            f.insts[i].op = Op::Dph;
            f.insts[i].args = vec![x, Operand::new(f.insts[k].results[0])];
        }
    }
}
