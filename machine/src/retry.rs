//! Register allocation, and what is tried when a program's values do not fit the target's
//! temporaries. Neither target has memory to spill to, so the program is selected again,
//! differently:
//! 1. with lane packing (small independent values share a register's lanes, see
//!    [`crate::lanes`]): as soon as the selected code has more values live at once than
//!    registers, or when allocation runs out;
//! 2. with rematerialisation (values computed from inputs, uniforms and literals alone are
//!    computed again at each reader: more instructions, shorter live ranges).
//!
//! What remains is the target's limit, with the place where the most values are live.

use mir::{Module, Span};

use crate::vcode::{AllocError, Allocated, VCode};

/// When values are lane-packed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Packing {
    /// Never (a test that wants to see the difference).
    Off,
    /// When the values do not fit the registers otherwise (what users get).
    #[default]
    WhenNeeded,
    /// Always (a test of packing itself, on programs that would fit without it).
    Always,
}

/// What to try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The temporaries the target has.
    pub registers: usize,
    /// Smaller register files to try first (AGAL: fewer temporaries leave the native shader
    /// compiler room); each is used only when the program fits it.
    pub smaller_first: Vec<usize>,
    /// When lane packing is used.
    pub packing: Packing,
    /// Whether rematerialisation may be tried.
    pub rematerialise: bool,
}

/// A selection that fit.
pub struct Fitted<I, S> {
    /// The code.
    pub code: VCode<I>,
    /// What the selector made beside it (the literal pool, branch tests …).
    pub selected: S,
    /// Where each operand landed.
    pub alloc: Allocated,
    /// Whether the code is lane-packed.
    pub packed: bool,
    /// Whether values were rematerialised (the module was changed).
    pub rematerialised: bool,
}

/// Why nothing fit.
#[derive(Debug)]
pub enum Failure<E> {
    /// The selector refused the program.
    Select(E),
    /// After every try, `needed` values are live at once at `span`.
    TooManyLive {
        /// Registers needed.
        needed: usize,
        /// Where the most values are live.
        span: Span,
    },
    /// A bug: regalloc2 rejected the code, or the passes after rematerialisation failed
    /// (what went wrong, to follow "internal error (this is a bug): ").
    Internal(String),
}

/// Selects `m` (`select(module, pack_lanes)`) and allocates its registers, trying what
/// `policy` allows when the values do not fit. Rematerialisation changes `m`.
pub fn allocate<I, S, E>(
    m: &mut Module,
    policy: &Policy,
    mut select: impl FnMut(&Module, bool) -> Result<(VCode<I>, S), E>,
) -> Result<Fitted<I, S>, Failure<E>> {
    let first = policy.packing == Packing::Always;
    let (mut code, mut selected) = select(m, first).map_err(Failure::Select)?;
    let mut packed = first;
    let mut rematerialised = false;
    let may_pack = policy.packing != Packing::Off;
    if may_pack && !packed && code.max_live().0 > policy.registers {
        (code, selected) = select(m, true).map_err(Failure::Select)?;
        packed = true;
    }
    let alloc = loop {
        if let Some(alloc) = policy
            .smaller_first
            .iter()
            .filter(|&&n| n < policy.registers)
            .find_map(|&n| code.allocate(n).ok())
        {
            break alloc;
        }
        match code.allocate(policy.registers) {
            Ok(alloc) => break alloc,
            Err(AllocError::TooManyLive { .. }) if may_pack && !packed => {
                (code, selected) = select(m, true).map_err(Failure::Select)?;
                packed = true;
            }
            Err(AllocError::TooManyLive { .. })
                if policy.rematerialise && !rematerialised && rematerialise(m)? =>
            {
                rematerialised = true;
                (code, selected) = select(m, packed).map_err(Failure::Select)?;
            }
            Err(AllocError::TooManyLive { needed, at }) => {
                return Err(Failure::TooManyLive {
                    needed,
                    span: code.span(at),
                });
            }
            Err(AllocError::Internal(e)) => {
                return Err(Failure::Internal(format!("in register allocation: {e}")));
            }
        }
    };
    Ok(Fitted {
        code,
        selected,
        alloc,
        packed,
        rematerialised,
    })
}

/// Recomputes the values made from inputs, uniforms and literals alone at their readers;
/// whether anything changed.
fn rematerialise<E>(m: &mut Module) -> Result<bool, Failure<E>> {
    if !mir::passes::remat::run(&mut m.function) {
        return Ok(false);
    }
    mir::passes::run_pass(m, "dce", mir::passes::dce::run)
        .and_then(|_| mir::passes::run_pass(m, "order", mir::passes::order::run))
        .map_err(|e| Failure::Internal(e.to_string()))?;
    Ok(true)
}
