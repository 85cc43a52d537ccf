//! The MIR the selector receives: the module after the PICA200's pass pipeline (what
//! `--emit mir` prints), and the pipeline's choices for this machine.

use crate::rules::Rule;
use mir::analysis::constants::{constant_n, is_power_of_two};
use mir::analysis::cost::worst_steps;
use mir::func::{Function, Structure, compose};
use mir::inst::{Op, Operand};
use mir::passes::Options;
use mir::passes::expand::Expand;
use mir::passes::pipeline::{Step, Stopped};
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
    /// Loops unroll further: up to 32 trips and 1024 instructions (see [`choose`]).
    pub unroll: bool,
}

impl Try {
    /// The first try: `dph` affines, breaks as written.
    pub const FIRST: Try = Try {
        affine: true,
        predicate_breaks: false,
        unroll: false,
    };
}

/// What [`super::compile`] tries beside the first try's program, or when it is refused,
/// as `--print-pipeline` says it.
pub const RETRIES: &str = "\
if the program keeps a loop: also with loops unrolled up to 32 trips, and that with breaks predicated (steps bounds and breaks added); kept if it runs a fifth fewer steps at most, or fewer with no more instructions
if a loop is left from inside an if: again with the loop's breaks predicated (steps bounds and breaks added)
if a limit is broken: again without pica.affine-scalars
if a straight-line geometry program emits runs of vertices that repeat with other values: also with a procedure each run calls; kept if it saves at least as many words as it adds steps, or if only it fits the limits
";

/// The PICA200's pipeline, as `--print-pipeline` shows it.
pub type Pipeline = mir::passes::pipeline::Pipeline<(), Vec<Diagnostic>>;

/// The pipeline of one [`Try`] for a program that emits at most `max_vertices` vertices (a
/// geometry program; `None` for a vertex program): the stage check, the shared passes, and
/// this machine's rewrites and checks.
pub fn pipeline(attempt: Try, max_vertices: Option<u32>) -> Pipeline {
    let mut options = passes();
    options.predicate_breaks |= attempt.predicate_breaks;
    if attempt.unroll {
        options.unroll_trips = options.unroll_trips.max(32);
        options.unroll_budget = options.unroll_budget.max(1024);
    }
    if let Some(most) = max_vertices {
        // A SETEMIT's slot is an immediate, so a loop that emits must unroll: as many trips
        // as the program may emit vertices (a ring of 17 quads' edges is 34), within the
        // geometry unit's 4096 words.
        options.unroll_trips = options.unroll_trips.max(most.min(256));
        options.unroll_budget = options.unroll_budget.max(2048);
    }
    let mut own = vec![Step::target(
        "pica.scaled-input-sums",
        "(a + b) * k of two inputs and a power of two becomes mad(a, k, b * k)",
        |m, _| Ok(split_scaled_input_sums(&mut m.function)),
    )];
    if attempt.affine {
        own.push(Step::target(
            "pica.affine-scalars",
            "a scalar x * k1 + k2 of two literals becomes one dph",
            |m, _| Ok(affine_scalars(&mut m.function)),
        ));
    }
    own.push(Step::target(
        "pica.loops-left",
        "refuses a loop that always leaves on its first trip from inside an if",
        |m, _| loops_left(m).map(|()| false),
    ));
    Pipeline::shared(options)
        .prepend(vec![Step::target(
            "pica.stage",
            "the PICA200 runs vertex and geometry programs (a geometry program's own rules)",
            |m, _| stage(m).map(|()| false),
        )])
        .append(own)
}

/// [`prepare`] for one [`Try`].
pub fn prepare_with(module: &Module, attempt: Try) -> Result<Module, Diagnostics> {
    prepare_until(module, attempt, None)
}

/// The try a program starts with, and its module. When the program keeps a loop, two more
/// are prepared: its loops unrolled further (up to 32 trips, 1024 instructions), and that
/// with its exits predicated too (so that a loop with a `break` unrolls). An alternative is
/// kept when it pays (`pays`): fewer steps run in the worst case (`mir::analysis::cost`),
/// by a fifth or more, or with no more instructions. A loop kept runs its body on every
/// trip; an unrolled one runs every trip's code, however early a predicated exit comes, so
/// this compares the most each can run. An alternative that breaks a limit later falls back
/// to the loop ([`super::compile`]).
pub fn choose(module: &Module) -> (Try, Result<Module, Diagnostics>) {
    let first = Try::FIRST;
    let kept = prepare_with(module, first);
    let Ok(m) = &kept else {
        return (first, kept);
    };
    if !has_loop(&m.function) {
        return (first, kept);
    }
    let mut best = (first, measure(&m.function), kept);
    for alternative in [
        Try {
            unroll: true,
            ..first
        },
        Try {
            unroll: true,
            predicate_breaks: true,
            ..first
        },
    ] {
        let Ok(p) = prepare_with(module, alternative) else {
            continue;
        };
        let cost = measure(&p.function);
        if pays(best.1, cost) {
            best = (alternative, cost, Ok(p));
        }
    }
    (best.0, best.2)
}

/// Whether a function still has a loop.
fn has_loop(f: &Function) -> bool {
    f.layout
        .iter()
        .any(|&b| matches!(f.blocks[b].structure, Some(Structure::Loop { .. })))
}

/// A function's worst-case steps, its instructions, and whether a loop's count is unknown.
fn measure(f: &Function) -> (usize, usize, bool) {
    let (steps, unknown) = worst_steps(f, 256);
    (steps, f.inst_count(), unknown)
}

/// Whether `alternative` is worth more than `kept` (see [`measure`]): fewer steps, by a fifth
/// or more or with no more instructions. When a loop's count is unknown the steps are a
/// guess: only fewer steps with no more instructions.
fn pays(kept: (usize, usize, bool), alternative: (usize, usize, bool)) -> bool {
    let (fewer, smaller) = (alternative.0 < kept.0, alternative.1 <= kept.1);
    let guess = kept.2 || alternative.2;
    fewer && (smaller || (!guess && alternative.0 * 5 <= kept.0 * 4))
}

/// [`prepare_with`], stopping after step number `stop` of [`pipeline`] when given (what
/// `--emit mir --after STEP` prints).
pub fn prepare_until(
    module: &Module,
    attempt: Try,
    stop: Option<usize>,
) -> Result<Module, Diagnostics> {
    let mut m = module.clone();
    let most =
        (module.stage == Stage::Geometry).then(|| module.geometry.map_or(0, |g| g.max_vertices));
    pipeline(attempt, most)
        .run(&mut m, &mut (), stop)
        .map_err(|e| match e {
            Stopped::Verify(e) => Diagnostics(vec![Diagnostic::error(
                Rule::Internal,
                format!("internal error (this is a bug): {e}"),
            )]),
            Stopped::Target(errors) => Diagnostics(errors),
        })?;
    Ok(m)
}

/// The stage check: a vertex program, or a geometry program that keeps the geometry
/// unit's rules.
fn stage(module: &Module) -> Result<(), Vec<Diagnostic>> {
    if module.stage == Stage::Geometry {
        super::geometry::check(module).map_err(|d| vec![*d])
    } else if module.stage != Stage::Vertex {
        Err(vec![Diagnostic::error(
            Rule::Stage,
            format!(
                "{} programs are not supported: the PICA200 back end compiles vertex programs",
                module.stage.name()
            ),
        )])
    } else {
        Ok(())
    }
}

/// A loop that folding left unable to repeat, left early from inside an `if`.
fn loops_left(m: &Module) -> Result<(), Vec<Diagnostic>> {
    let stuck = mir::passes::once::remaining(&m.function);
    if stuck.is_empty() {
        return Ok(());
    }
    Err(stuck
        .into_iter()
        .map(|span| {
            Diagnostic::error(
                Rule::ControlFlow,
                "a loop whose body always leaves it on the first trip, through a `break` \
                 inside an `if`, is not supported: write the body without the loop",
            )
            .with_span(span)
        })
        .collect())
}

/// `(a + b) * k` with `a` and `b` two inputs and `k` a power of two (a midpoint,
/// `(v0 + v1) * 0.5`) becomes `mad(a, k, b * k)`, exactly the same: an instruction reads
/// one input register at most, so the sum would need a move first (three words, now two).
fn split_scaled_input_sums(f: &mut Function) -> bool {
    let mut changed = false;
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
            changed = true;
        }
    }
    mir::passes::dce::run(f);
    changed
}

/// `x * k1 + k2` of a scalar with two literals is `dph(x.xxx, (k1, 0, 0, k2))`: a MAD reads
/// one constant register at most (its second or third operand), so the multiply-add needs
/// one literal moved into a temporary first; DPH reads the whole constant vector in one
/// operand and adds its `w` (`0.5 * n.z + 0.5`, `3 - 2 * k`: one word, not two). The
/// PICA200 gives `0 * inf = 0`, so the zero lanes cannot turn an infinite `x` into NaN.
fn affine_scalars(f: &mut Function) -> bool {
    let mut changed = false;
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
            changed = true;
        }
    }
    changed
}
