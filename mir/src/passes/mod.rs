//! The optimiser: small passes, each a function over the MIR that says whether it changed
//! anything, run in a fixed order until nothing changes.
//!
//! ```text
//! exits     early returns and switch breaks become structured (flags and guards)
//! mem2reg   locals become SSA values with block parameters
//! then, until nothing changes:
//!   fold      constant folding            simplify  algebraic identities, peepholes
//!   copyprop  moves and swizzles folded into their uses
//!   cse       identical pure instructions merged
//!   dce       dead instructions and parameters removed
//! matrix    MatVec becomes row dot products or column multiply-adds
//! mad       a multiply feeding only an add becomes one multiply-add
//! order     blocks in reverse post-order
//! ```
//!
//! In tests and debug builds the verifier runs after every pass, so a pass that breaks the
//! IR is caught where it does.

pub mod blocks;
pub mod copyprop;
pub mod cse;
pub mod dce;
pub mod exits;
pub mod fold;
pub mod mad;
pub mod matrix;
pub mod mem2reg;
pub mod order;
pub mod params;
pub mod simplify;

use crate::module::Module;
use crate::verify::{VerifyError, verify};

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

/// Runs the whole pipeline.
pub fn optimize(module: &mut Module) -> Result<Stats, VerifyError> {
    let before = module.function.inst_count();
    let mut rounds = 0;
    run_pass(module, "exits", exits::run)?;
    run_pass(module, "mem2reg", mem2reg::run)?;
    rounds += cleanup(module)?;
    run_pass(module, "matrix", matrix::run)?;
    rounds += cleanup(module)?;
    run_pass(module, "mad", mad::run)?;
    rounds += cleanup(module)?;
    run_pass(module, "order", order::run)?;
    Ok(Stats {
        before,
        after: module.function.inst_count(),
        rounds,
    })
}

/// The clean-up passes, until none changes anything; returns the number of rounds.
pub fn cleanup(module: &mut Module) -> Result<usize, VerifyError> {
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut changed = false;
        changed |= run_pass(module, "fold", fold::run)?;
        changed |= run_pass(module, "simplify", simplify::run)?;
        changed |= run_pass(module, "copyprop", copyprop::run)?;
        changed |= run_pass(module, "cse", cse::run)?;
        changed |= run_pass(module, "params", params::fold_trivial)?;
        changed |= run_pass(module, "dce", dce::run)?;
        changed |= run_pass(module, "blocks", blocks::run)?;
        changed |= run_pass(module, "order", order::run)?;
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
    if cfg!(debug_assertions) && changed {
        verify(module).map_err(|e| VerifyError {
            function: e.function,
            message: format!("after the {name} pass: {}", e.message),
        })?;
    }
    Ok(changed)
}
