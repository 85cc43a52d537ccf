//! The pass order as data: a [`Pipeline`] is one declared list of named [`Step`]s — the
//! shared passes of this crate ([`Pipeline::shared`]) and a target's own steps around them —
//! that can be printed (`--print-pipeline`), run, and stopped after any step to look at the
//! MIR there (`--emit mir --after STEP`).
//!
//! A step runs one rewrite (or a target's check), then what its [`Then`] says: the clean-up
//! passes ([`super::cleanup`]) always or only if the step changed something, the step again
//! until it changes nothing, or further steps if it changed something. In tests and debug
//! builds the verifier runs after every step that changed the module.
//!
//! Steps are numbered in the order they are printed (a nested step after its parent,
//! from 1), and a step is named by its number or, when no other step has it, by its name.

use std::fmt::{self, Write};

use super::{IfConversion, Options, Stats};
use super::{
    arms, bools, bounds, breaks, cleanup, exits, expand, fallthrough, gather, homogeneous,
    ifconvert, inplace, mad, matrix, mem2reg, once, order, scaled, sink, sums, tails, unroll,
    vectorize,
};
use crate::func::Function;
use crate::module::Module;
use crate::verify::{VerifyError, verify};

/// What a step does after its rewrite.
pub enum Then<C, E> {
    /// Nothing.
    Nothing,
    /// The clean-up passes.
    Cleanup,
    /// The clean-up passes, if the step changed something.
    CleanupIfChanged,
    /// The clean-up passes, then the step again, until the step changes nothing.
    Repeat,
    /// These steps, if the step changed something.
    IfChanged(Vec<Step<C, E>>),
}

/// What a step runs.
enum Run<C, E> {
    /// A rewrite of the function.
    Pass(fn(&mut Function) -> bool),
    /// A rewrite of the module that reads the pipeline's options.
    Module(fn(&mut Module, &Options) -> bool),
    /// A target's rewrite or check, with the target's context `C`; it may refuse the
    /// program (`E`).
    Target(fn(&mut Module, &mut C) -> Result<bool, E>),
}

/// One named step.
pub struct Step<C, E> {
    /// Its name (`mem2reg`; a target's steps carry the target's prefix: `agal.bool-flags`).
    pub name: &'static str,
    /// What it does, in one line.
    pub summary: &'static str,
    run: Run<C, E>,
    then: Then<C, E>,
}

impl<C, E> Step<C, E> {
    /// A rewrite of the function.
    pub fn pass(name: &'static str, summary: &'static str, run: fn(&mut Function) -> bool) -> Self {
        Step {
            name,
            summary,
            run: Run::Pass(run),
            then: Then::Nothing,
        }
    }

    /// A rewrite of the module that reads the options.
    pub fn module(
        name: &'static str,
        summary: &'static str,
        run: fn(&mut Module, &Options) -> bool,
    ) -> Self {
        Step {
            name,
            summary,
            run: Run::Module(run),
            then: Then::Nothing,
        }
    }

    /// A target's rewrite or check.
    pub fn target(
        name: &'static str,
        summary: &'static str,
        run: fn(&mut Module, &mut C) -> Result<bool, E>,
    ) -> Self {
        Step {
            name,
            summary,
            run: Run::Target(run),
            then: Then::Nothing,
        }
    }

    /// The step, followed by `then`.
    pub fn then(self, then: Then<C, E>) -> Self {
        Step { then, ..self }
    }

    /// The rewrite of the function this step runs, when it is one that reads nothing else.
    pub fn function_pass(&self) -> Option<fn(&mut Function) -> bool> {
        match self.run {
            Run::Pass(run) => Some(run),
            _ => None,
        }
    }
}

/// The rewrite of the function called `name` that reads nothing else: a clean-up pass (see
/// [`super::CLEANUP`]), or a shared step that is one (with every option on). For tests that
/// run passes by name.
pub fn function_pass(name: &str) -> Option<fn(&mut Function) -> bool> {
    if let Some((_, run)) = super::CLEANUP.iter().find(|(n, _)| *n == name) {
        return Some(*run);
    }
    let all = Options {
        duplicate_joins: true,
        predicate_breaks: true,
        native_dph: true,
        sink_into_arms: true,
        ..Options::default()
    };
    shared_steps::<(), ()>(&all)
        .iter()
        .find(|s| s.name == name)
        .and_then(Step::function_pass)
}

/// Why a pipeline stopped early.
#[derive(Debug)]
pub enum Stopped<E> {
    /// A step broke the IR (a bug).
    Verify(VerifyError),
    /// A target's step refused the program.
    Target(E),
}

impl<E> From<VerifyError> for Stopped<E> {
    fn from(e: VerifyError) -> Self {
        Stopped::Verify(e)
    }
}

/// A step, by number or name (see the module comment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepRef {
    /// Its number, from 1.
    Number(usize),
    /// Its name.
    Name(String),
}

impl StepRef {
    /// `7` or `mem2reg`.
    pub fn parse(s: &str) -> StepRef {
        match s.parse() {
            Ok(n) => StepRef::Number(n),
            Err(_) => StepRef::Name(s.to_string()),
        }
    }
}

/// The pipeline: its options and its steps.
pub struct Pipeline<C, E> {
    /// The options the shared steps read.
    pub options: Options,
    steps: Vec<Step<C, E>>,
}

impl<C, E> Pipeline<C, E> {
    /// A pipeline of `steps` with `options`.
    pub fn new(options: Options, steps: Vec<Step<C, E>>) -> Self {
        Pipeline { options, steps }
    }

    /// The shared passes `options` select, in order (what [`super::optimize_with`] runs).
    pub fn shared(options: Options) -> Self {
        Pipeline {
            steps: shared_steps(&options),
            options,
        }
    }

    /// Puts `steps` before the pipeline's.
    pub fn prepend(mut self, steps: Vec<Step<C, E>>) -> Self {
        let rest = std::mem::replace(&mut self.steps, steps);
        self.steps.extend(rest);
        self
    }

    /// Puts `steps` right after the first top-level step called `name` (at the end when
    /// none is).
    pub fn insert_after(mut self, name: &str, steps: Vec<Step<C, E>>) -> Self {
        let at = self
            .steps
            .iter()
            .position(|s| s.name == name)
            .map_or(self.steps.len(), |k| k + 1);
        self.steps.splice(at..at, steps);
        self
    }

    /// Puts `steps` after the pipeline's.
    pub fn append(mut self, steps: Vec<Step<C, E>>) -> Self {
        self.steps.extend(steps);
        self
    }

    /// Every step with its number and nesting depth, in order.
    pub fn steps(&self) -> Vec<(usize, usize, &Step<C, E>)> {
        fn walk<'a, C, E>(
            steps: &'a [Step<C, E>],
            depth: usize,
            out: &mut Vec<(usize, usize, &'a Step<C, E>)>,
        ) {
            for s in steps {
                out.push((out.len() + 1, depth, s));
                if let Then::IfChanged(inner) = &s.then {
                    walk(inner, depth + 1, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.steps, 0, &mut out);
        out
    }

    /// The number of step `r`, or why there is none: no such step, or a name several steps
    /// share (with their numbers).
    pub fn find(&self, r: &StepRef) -> Result<usize, String> {
        let steps = self.steps();
        match r {
            StepRef::Number(n) if (1..=steps.len()).contains(n) => Ok(*n),
            StepRef::Number(n) => Err(format!(
                "there is no step {n}: the pipeline has steps 1 to {}",
                steps.len()
            )),
            StepRef::Name(name) => {
                let found: Vec<usize> = steps
                    .iter()
                    .filter(|(_, _, s)| s.name == name)
                    .map(|(n, ..)| *n)
                    .collect();
                match found.as_slice() {
                    [n] => Ok(*n),
                    [] => {
                        let mut names: Vec<&str> = steps.iter().map(|(_, _, s)| s.name).collect();
                        names.sort_unstable();
                        names.dedup();
                        Err(format!(
                            "there is no step '{name}'; the steps are: {}",
                            names.join(", ")
                        ))
                    }
                    many => Err(format!(
                        "'{name}' runs at steps {}: name one by its number (see --print-pipeline)",
                        many.iter()
                            .map(|n| n.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                }
            }
        }
    }

    /// Runs the steps on `m` with the target's context `cx`, stopping after step number
    /// `stop` (where it would run, if its parent did not change anything) when given.
    pub fn run(
        &self,
        m: &mut Module,
        cx: &mut C,
        stop: Option<usize>,
    ) -> Result<Stats, Stopped<E>> {
        let mut run = Runner {
            options: &self.options,
            stats: Stats {
                before: m.function.inst_count(),
                ..Stats::default()
            },
            next: 1,
            stop,
        };
        run.steps(&self.steps, m, cx)?;
        run.stats.after = m.function.inst_count();
        Ok(run.stats)
    }
}

impl<C, E> fmt::Display for Pipeline<C, E> {
    /// One line per step: number, name (indented under its parent), what it does and what
    /// follows it; then what the clean-up runs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let steps = self.steps();
        let width = steps
            .iter()
            .map(|(_, d, s)| 2 * d + s.name.len())
            .max()
            .unwrap_or(0);
        for (n, depth, s) in steps {
            let mut line = format!("{n:>3}  {:1$}", "", 2 * depth);
            let _ = write!(line, "{:1$}  {2}", s.name, width - 2 * depth, s.summary);
            let after = match &s.then {
                Then::Nothing => "",
                Then::Cleanup => "; then clean-up",
                Then::CleanupIfChanged => "; clean-up if it changed anything",
                Then::Repeat => "; with clean-up, until it changes nothing",
                Then::IfChanged(_) => "; if it changed anything:",
            };
            writeln!(f, "{line}{after}")?;
        }
        let names: Vec<&str> = super::CLEANUP.iter().map(|(n, _)| *n).collect();
        writeln!(
            f,
            "clean-up: {}, until none changes anything",
            names.join(" ")
        )
    }
}

struct Runner<'a> {
    options: &'a Options,
    stats: Stats,
    /// The number of the next step.
    next: usize,
    stop: Option<usize>,
}

/// Reached the step to stop after.
struct Stop;

impl Runner<'_> {
    fn steps<C, E>(
        &mut self,
        steps: &[Step<C, E>],
        m: &mut Module,
        cx: &mut C,
    ) -> Result<Option<Stop>, Stopped<E>> {
        for s in steps {
            if self.step(s, m, cx)?.is_some() {
                return Ok(Some(Stop));
            }
        }
        Ok(None)
    }

    /// Runs step `s`; `Some` when the run stops here.
    fn step<C, E>(
        &mut self,
        s: &Step<C, E>,
        m: &mut Module,
        cx: &mut C,
    ) -> Result<Option<Stop>, Stopped<E>> {
        let number = self.next;
        self.next += 1;
        let mut changed = self.rewrite(s, m, cx)?;
        match &s.then {
            Then::Nothing => {}
            Then::Cleanup => self.stats.rounds += cleanup(m)?,
            Then::CleanupIfChanged if changed => self.stats.rounds += cleanup(m)?,
            Then::CleanupIfChanged => {}
            Then::Repeat => loop {
                self.stats.rounds += cleanup(m)?;
                if !changed {
                    break;
                }
                changed = self.rewrite(s, m, cx)?;
            },
            Then::IfChanged(inner) => {
                if self.stop == Some(number) {
                    return Ok(Some(Stop));
                }
                if changed {
                    return self.steps(inner, m, cx);
                }
                // The nested steps do not run, but keep their numbers; a stop among them
                // stops here.
                let skipped = count(inner);
                let first = self.next;
                self.next += skipped;
                let inside = self
                    .stop
                    .is_some_and(|n| (first..first + skipped).contains(&n));
                return Ok(inside.then_some(Stop));
            }
        }
        Ok((self.stop == Some(number)).then_some(Stop))
    }

    fn rewrite<C, E>(
        &mut self,
        s: &Step<C, E>,
        m: &mut Module,
        cx: &mut C,
    ) -> Result<bool, Stopped<E>> {
        let changed = match &s.run {
            Run::Pass(run) => run(&mut m.function),
            Run::Module(run) => run(m, self.options),
            Run::Target(run) => run(m, cx).map_err(Stopped::Target)?,
        };
        check(m, s.name, changed)?;
        Ok(changed)
    }
}

/// The number of steps in `steps`, nested ones included.
fn count<C, E>(steps: &[Step<C, E>]) -> usize {
    steps
        .iter()
        .map(|s| {
            1 + match &s.then {
                Then::IfChanged(inner) => count(inner),
                _ => 0,
            }
        })
        .sum()
}

/// Verifies the module after step `name` changed it (in debug builds).
pub(super) fn check(module: &Module, name: &str, changed: bool) -> Result<(), VerifyError> {
    if cfg!(debug_assertions) && changed {
        verify(module).map_err(|e| VerifyError {
            function: e.function,
            message: format!("after the {name} pass: {}", e.message),
        })?;
    }
    Ok(())
}

/// The shared steps `o` selects.
fn shared_steps<C, E>(o: &Options) -> Vec<Step<C, E>> {
    use Then::{Cleanup, CleanupIfChanged, IfChanged, Repeat};
    let exits = || {
        Step::pass(
            "exits",
            "early returns and switch breaks become structured (flags and guards)",
            exits::run,
        )
    };
    let mem2reg = || {
        Step::pass(
            "mem2reg",
            "locals become SSA values with block parameters",
            mem2reg::run,
        )
        .then(Cleanup)
    };
    let expand = || {
        Step::module(
            "expand",
            "operations the target lacks become ones it has",
            |m, o| expand::run(&mut m.function, &o.expand),
        )
    };
    let mut steps = vec![Step::pass(
        "once",
        "loops that cannot repeat (no reachable continue) become regions",
        once::run_before_ssa,
    )];
    if o.duplicate_joins {
        steps.push(Step::pass(
            "fallthrough",
            "joins no construct declares (a switch case falling through) are copied away",
            fallthrough::run,
        ));
    }
    steps.extend([exits(), mem2reg()]);
    if o.predicate_breaks {
        steps.push(Step::module(
            "bounds",
            "loops bounded by the uniform array they read get a constant trip test",
            |m, _| bounds::run(m),
        ));
        steps.push(
            Step::pass(
                "breaks",
                "a loop's early exits become a flag its later iterations are predicated on",
                breaks::run,
            )
            .then(IfChanged(vec![exits(), mem2reg()])),
        );
    }
    if o.unroll_trips > 0 {
        steps.push(
            Step::module(
                "unroll",
                "loops with a constant trip count are copied out (within a budget)",
                |m, o| unroll::run(&mut m.function, o.unroll_trips, o.unroll_budget),
            )
            .then(Cleanup),
        );
    }
    steps.push(
        Step::pass(
            "matrix",
            "matrix products become row dot products or column multiply-adds",
            matrix::run,
        )
        .then(Cleanup),
    );
    steps.push(
        Step::pass(
            "tails",
            "the common tail of both sides of an if is computed once after the merge",
            tails::run,
        )
        .then(CleanupIfChanged),
    );
    if o.native_dph {
        steps.push(
            Step::pass(
                "homogeneous",
                "a point of several values' lanes and 1 read by dot products becomes dph",
                homogeneous::run,
            )
            .then(CleanupIfChanged),
        );
    }
    if o.if_conversion != IfConversion::Off {
        steps.push(
            Step::module("ifconvert", "small ifs become selects", |m, o| {
                let cost = match o.if_conversion {
                    IfConversion::UpTo(n) => Some(n),
                    _ => None,
                };
                ifconvert::run(&mut m.function, cost, o.keep_uniform_branches)
            })
            .then(Repeat),
        );
    }
    // Expansions make bools (roundEven's tie test), and the bools pass makes operations
    // that may need expanding (its blends' multiply-adds): expand on both sides of it.
    if o.float_bools {
        steps.push(expand());
        steps.push(Step::module(
            "bools",
            "bools become floats, except branch and kill conditions",
            |m, o| {
                let branches = o.if_conversion != IfConversion::All;
                bools::run_with(&mut m.function, branches, o.branch_selects)
            },
        ));
    }
    steps.push(expand().then(Cleanup));
    if o.vectorize {
        steps.push(
            Step::pass(
                "vectorize",
                "independent scalar and vec2 operations share one vec4 instruction",
                vectorize::run,
            )
            .then(Cleanup),
        );
    }
    steps.push(
        Step::pass(
            "scaled",
            "a vector of signed lanes of one vector and zeros becomes one multiply",
            scaled::run,
        )
        .then(CleanupIfChanged),
    );
    steps.push(
        Step::pass(
            "gather",
            "a lane-wise operation on lanes gathered from uniform registers goes lane by lane",
            gather::run,
        )
        .then(CleanupIfChanged),
    );
    if o.sink_into_arms {
        steps.push(
            Step::pass(
                "arms",
                "work one side of a branch alone needs moves into that side",
                arms::run,
            )
            .then(CleanupIfChanged),
        );
    }
    steps.push(
        Step::module(
            "sums",
            "sums of several signed terms become dot products where that pays",
            |m, o| sums::run(&mut m.function, o.native_dph),
        )
        .then(CleanupIfChanged),
    );
    if o.fuse_mad {
        steps.push(
            Step::pass(
                "mad",
                "a multiply feeding only an add becomes one multiply-add",
                mad::run,
            )
            .then(Cleanup),
        );
    }
    steps.push(Step::pass(
        "inplace",
        "lanes a vector holds are read from it, so a vector with one lane changed keeps the rest",
        inplace::run,
    ));
    steps.push(Step::pass(
        "sink",
        "instructions move down to their first use, where no operand lives longer",
        sink::run,
    ));
    steps.push(Step::pass(
        "order",
        "blocks in reverse post-order",
        order::run,
    ));
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Arena;
    use crate::module::Stage;

    fn module() -> Module {
        Module {
            stage: Stage::Vertex,
            geometry: None,
            entry_point: "main".into(),
            inputs: Arena::new(),
            outputs: Vec::new(),
            uniforms: Vec::new(),
            samplers: Arena::new(),
            function: Function::new("main"),
            source_files: Vec::new(),
        }
    }

    /// What ran, in order; each step says it changed something when its name is in
    /// `changes`.
    #[derive(Default)]
    struct Log {
        ran: Vec<&'static str>,
        changes: Vec<&'static str>,
    }

    type P = Pipeline<Log, String>;

    /// A step that logs its name (a literal: a function pointer captures nothing).
    macro_rules! logged {
        ($name:literal) => {
            Step::target($name, "logs itself", |_, log: &mut Log| {
                log.ran.push($name);
                Ok(log.changes.contains(&$name))
            })
        };
    }

    /// Every step of the test pipeline, in order.
    const NAMES: [&str; 5] = ["a", "b", "b1", "b2", "c"];

    fn pipeline() -> P {
        Pipeline::new(
            Options::default(),
            vec![
                logged!("a"),
                logged!("b").then(Then::IfChanged(vec![logged!("b1"), logged!("b2")])),
                logged!("c"),
            ],
        )
    }

    fn run(changes: &[&'static str], stop: Option<usize>) -> Vec<&'static str> {
        let mut log = Log {
            changes: changes.to_vec(),
            ..Log::default()
        };
        let mut m = module();
        pipeline().run(&mut m, &mut log, stop).expect("runs");
        log.ran
    }

    #[test]
    fn steps_are_numbered_in_order_with_nested_ones_after_their_parent() {
        let p = pipeline();
        let steps: Vec<(usize, usize, &str)> =
            p.steps().iter().map(|(n, d, s)| (*n, *d, s.name)).collect();
        assert_eq!(
            steps,
            [
                (1, 0, "a"),
                (2, 0, "b"),
                (3, 1, "b1"),
                (4, 1, "b2"),
                (5, 0, "c")
            ]
        );
        let text = p.to_string();
        assert!(
            text.contains("  2  b     logs itself; if it changed anything:\n"),
            "{text}"
        );
        assert!(text.contains("  3    b1  logs itself\n"), "{text}");
    }

    #[test]
    fn nested_steps_run_only_when_their_parent_changed_something() {
        assert_eq!(run(&[], None), ["a", "b", "c"]);
        assert_eq!(run(&["b"], None), NAMES);
    }

    #[test]
    fn a_run_stops_after_the_step_named() {
        assert_eq!(run(&["b"], Some(1)), ["a"]);
        assert_eq!(run(&["b"], Some(2)), ["a", "b"]);
        assert_eq!(run(&["b"], Some(3)), ["a", "b", "b1"]);
        assert_eq!(run(&["b"], Some(5)), NAMES);
        // Nested steps that do not run: a stop among them stops where they would have.
        assert_eq!(run(&[], Some(4)), ["a", "b"]);
    }

    #[test]
    fn steps_are_found_by_number_or_unique_name() {
        let p = Pipeline::<Log, String>::new(
            Options::default(),
            vec![logged!("a"), logged!("b"), logged!("a")],
        );
        assert_eq!(p.find(&StepRef::parse("b")), Ok(2));
        assert_eq!(p.find(&StepRef::parse("3")), Ok(3));
        let many = p.find(&StepRef::parse("a")).unwrap_err();
        assert!(many.contains("steps 1, 3"), "{many}");
        let none = p.find(&StepRef::parse("z")).unwrap_err();
        assert!(none.contains("the steps are: a, b"), "{none}");
        let out = p.find(&StepRef::parse("4")).unwrap_err();
        assert!(out.contains("steps 1 to 3"), "{out}");
    }

    #[test]
    fn a_refusal_stops_the_run_with_the_targets_error() {
        let p = Pipeline::<Log, String>::new(
            Options::default(),
            vec![
                Step::target("no", "refuses", |_, _| Err("refused".to_string())),
                logged!("a"),
            ],
        );
        let mut log = Log::default();
        match p.run(&mut module(), &mut log, None) {
            Err(Stopped::Target(e)) => assert_eq!(e, "refused"),
            other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
        }
        assert!(log.ran.is_empty());
    }

    #[test]
    fn the_shared_pipeline_has_the_steps_its_options_select() {
        let names = |o: Options| -> Vec<&'static str> {
            Pipeline::<(), String>::shared(o)
                .steps()
                .iter()
                .map(|(_, _, s)| s.name)
                .collect()
        };
        let plain = names(Options::default());
        assert!(!plain.contains(&"breaks") && !plain.contains(&"bools"));
        assert_eq!(plain.first(), Some(&"once"));
        assert_eq!(plain.last(), Some(&"order"));
        let agal_like = names(Options {
            predicate_breaks: true,
            float_bools: true,
            fuse_mad: false,
            ..Options::default()
        });
        assert!(agal_like.contains(&"breaks") && agal_like.contains(&"bools"));
        assert!(!agal_like.contains(&"mad"));
        assert_eq!(agal_like.iter().filter(|&&n| n == "expand").count(), 2);
    }
}
