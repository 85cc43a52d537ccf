//! The optimiser: small passes, each a function over the MIR that says whether it changed
//! anything. Their order is declared as data in [`pipeline`] (what `--print-pipeline`
//! prints; the back ends add their own steps around it). What they do:
//!
//! ```text
//! once      loops that cannot repeat (no reachable continue) become regions
//! exits     early returns and switch breaks become structured (flags and guards)
//! mem2reg   locals become SSA values with block parameters
//! then, until nothing changes:
//!   fold      constant folding            simplify  algebraic identities, peepholes
//!   flags     selects of truth values become and/or; predicated updates change what changes
//!   copyprop  moves and swizzles folded into their uses
//!   cse       identical pure instructions merged
//!   narrow    lanes of a construct nobody reads dropped
//!   conditions  merge parameters that are a branch's condition; edge arguments it decides
//!   dce       dead instructions and parameters removed
//!   once      loops folding left unable to repeat stop being loops
//! unroll    loops with a constant trip count are copied out (within a budget)
//! matrix    MatVec becomes row dot products or column multiply-adds
//! tails     the common tail of both sides of an `if` computed once after the merge
//! homogeneous  a point of several values' lanes and 1 read by dot products: dph (PICA200)
//! ifconvert small `if`s become selects (all of them for targets without branches)
//! bools     bools become floats, except branch and kill conditions (back ends)
//! expand    operations the target lacks become ones it has (back ends)
//! vectorize independent scalar and vec2 operations share one vec4 instruction
//! scaled    a vector of signed lanes of one vector and zeros becomes one multiply
//! gather    a lane-wise operation on lanes gathered from uniform registers goes lane by lane
//! arms      work one side of a branch alone needs moves into that side (PICA200)
//! sums      sums of several signed terms become dot products where that pays
//! mad       a multiply feeding only an add becomes one multiply-add
//! inplace   lanes a vector holds are read from it: a vector with one lane changed keeps the rest
//! sink      instructions move down to their first use, where no operand lives longer
//! order     blocks in reverse post-order
//! ```
//!
//! In tests and debug builds the verifier runs after every pass, so a pass that breaks the
//! IR is caught where it does.

pub mod arms;
pub mod blocks;
pub mod bools;
pub mod bounds;
pub mod breaks;
pub mod conditions;
pub mod copyprop;
pub mod cse;
pub mod dce;
pub mod exits;
pub mod expand;
pub mod fallthrough;
pub mod flags;
pub mod fold;
pub mod gather;
pub mod homogeneous;
pub mod ifconvert;
pub mod inplace;
pub mod mad;
pub mod matrix;
pub mod mem2reg;
pub mod narrow;
pub mod once;
pub mod order;
pub mod params;
pub mod pipeline;
pub mod remat;
pub mod scaled;
pub mod simplify;
pub mod sink;
pub mod sums;
pub mod tails;
pub mod unroll;
pub mod vectorize;

use crate::module::Module;
use crate::verify::VerifyError;

/// Target-dependent choices of the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Which `if`s become selects.
    pub if_conversion: IfConversion,
    /// Loops with a constant trip count up to this are unrolled (0: none).
    pub unroll_trips: u32,
    /// Whether a loop's early exits become a flag its later iterations are predicated on
    /// (see [`breaks`]), so that it unrolls (for targets without a loop instruction).
    pub predicate_breaks: bool,
    /// Whether joins no construct declares (a `switch` case falling through) are removed by
    /// copying what follows them (see [`fallthrough`]), for targets that flatten every
    /// branch.
    pub duplicate_joins: bool,
    /// Unrolling stops when the program would exceed this many instructions.
    pub unroll_budget: usize,
    /// Whether independent narrow operations are merged into vec4 ones (see [`vectorize`]).
    pub vectorize: bool,
    /// Whether a multiply feeding an add becomes a multiply-add (not for AGAL, which has
    /// none).
    pub fuse_mad: bool,
    /// Whether `if`s on bool uniforms stay branches (a PICA200 IFU costs one word and
    /// computes one arm only).
    pub keep_uniform_branches: bool,
    /// Whether bools become floats except branch and kill conditions (for the back ends;
    /// see [`bools`]).
    pub float_bools: bool,
    /// Operations the target lacks, expanded into ones it has.
    pub expand: expand::Expand,
    /// Whether work only one side of a branch needs moves into that side (see [`arms`]; not
    /// for targets whose conditional blocks restrict what they hold).
    pub sink_into_arms: bool,
    /// Whether the target has `dph` itself (the PICA200; AGAL's back end fuses matrix rows
    /// of `dph` or expands them): points built of several values' lanes and a 1 become
    /// `dph`s of three lanes (see [`homogeneous`]), and sums with a constant term use it
    /// (see [`sums`]).
    pub native_dph: bool,
    /// Whether every float select on a scalar condition becomes an `if` (with
    /// `float_bools`, on a target that branches), not only those that would blend a value
    /// that may be non-finite: a try that counts branches against blends.
    pub branch_selects: bool,
}

/// Which `if`s the if-conversion pass turns into selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfConversion {
    /// None.
    Off,
    /// Those whose arms hold at most this many instructions together.
    UpTo(usize),
    /// All of them (AGAL 1 has no branches).
    All,
}

impl Default for Options {
    /// The middle of the road: small `if`s become selects, short counted loops unroll.
    fn default() -> Self {
        Options {
            if_conversion: IfConversion::UpTo(6),
            unroll_trips: 8,
            unroll_budget: 256,
            predicate_breaks: false,
            duplicate_joins: false,
            vectorize: true,
            fuse_mad: true,
            keep_uniform_branches: false,
            float_bools: false,
            expand: expand::Expand::default(),
            sink_into_arms: false,
            native_dph: false,
            branch_selects: false,
        }
    }
}

/// What the pipeline did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions before.
    pub before: usize,
    /// Instructions after.
    pub after: usize,
    /// Rounds of the fixed-point loop.
    pub rounds: usize,
}

/// Runs the whole pipeline with the default options.
pub fn optimize(module: &mut Module) -> Result<Stats, VerifyError> {
    optimize_with(module, &Options::default())
}

/// Runs the shared pipeline (see [`pipeline::Pipeline::shared`]).
pub fn optimize_with(module: &mut Module, options: &Options) -> Result<Stats, VerifyError> {
    let shared: pipeline::Pipeline<(), std::convert::Infallible> =
        pipeline::Pipeline::shared(options.clone());
    shared.run(module, &mut (), None).map_err(|e| match e {
        pipeline::Stopped::Verify(e) => e,
        pipeline::Stopped::Target(never) => match never {},
    })
}

/// A rewrite of a function that says whether it changed anything.
pub type Pass = fn(&mut crate::func::Function) -> bool;

/// The clean-up passes, in the order [`cleanup`] runs them.
pub const CLEANUP: [(&str, Pass); 12] = [
    ("fold", fold::run),
    ("simplify", simplify::run),
    ("flags", flags::run),
    ("copyprop", copyprop::run),
    ("cse", cse::run),
    ("params", params::fold_trivial),
    ("conditions", conditions::run),
    ("narrow", narrow::run),
    ("dce", dce::run),
    ("blocks", blocks::run),
    ("once", once::run),
    ("order", order::run),
];

/// The clean-up passes, until none changes anything; returns the number of rounds.
pub fn cleanup(module: &mut Module) -> Result<usize, VerifyError> {
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut changed = false;
        for (name, pass) in CLEANUP {
            changed |= run_pass(module, name, pass)?;
        }
        if !changed || rounds >= 64 {
            return Ok(rounds);
        }
    }
}

/// Runs one pass, verifying the result in debug builds.
pub fn run_pass(
    module: &mut Module,
    name: &str,
    pass: fn(&mut crate::func::Function) -> bool,
) -> Result<bool, VerifyError> {
    let changed = pass(&mut module.function);
    pipeline::check(module, name, changed)?;
    Ok(changed)
}

#[cfg(test)]
mod tests;
