//! The AGAL code generator: a MIR vertex or fragment module to an AGAL program for a Stage3D
//! profile.
//!
//! This is AGAL's hooks on the machine layer (the `machine` crate: selection driver, value
//! placement, literal pool, lane packing, allocation retries, reflection):
//!
//! ```text
//! mir::Module ──► prepare (bool uniforms, Options::agal, loops/branches, blends, dph rows)
//!     ──► interface (va/v/op/oc/od, vc/fc, fs flags) ──► select (hooks on machine::select,
//!     pool) ──► VCode ──► machine::retry (regalloc2, the profile's temporaries; lane
//!     packing, then rematerialisation) ──► emit (ife/els/eif) ──► Program
//!     ──► limits ──► validate (Flash's rules: a failure is a compiler bug) ──► bytes
//! ```
//!
//! Every limit of the profile's table is an error naming the limit and the count: tokens,
//! temporaries (with the instruction where the most values are live), constant registers
//! (uniforms and literals together), attributes, varyings, samplers, colour and depth
//! outputs, and `baselineConstrained`'s native ALU and texture instruction counts. When a
//! program needs more temporaries than the profile has, lane packing is tried, then
//! rematerialisation (values made from registers alone recomputed at their readers).

pub mod emit;
pub mod interface;

pub mod link;
pub mod matrix;
pub mod pool;
pub mod position;
pub mod prepare;
pub mod reflect;
pub mod required;
pub mod runtime;
pub mod samplers;
pub mod select;
pub mod uniform_index;
pub mod vinst;

use crate::rules::CodegenRule;
use machine::retry::{self, Fitted, Policy};

pub use machine::retry::Packing;
use mir::func::Structure;
use mir::{Diagnostic, Diagnostics, Module};

use crate::disasm;
use crate::header::{Stage, Version};
use crate::limits::Profile;
use crate::opcode::Opcode;
use crate::operand::RegType;
use crate::program::Program;
use crate::sampler::Sampler;
use crate::validate::validate;
use prepare::Ifs;

pub use interface::{Interface, OutputReg};
pub use link::{check_link, check_program_pair};
pub use runtime::{Runtime, UnknownRuntime};
pub use samplers::SamplerFlags;

/// What a user can choose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The Stage3D profile: the AGAL version and every limit.
    pub profile: Profile,
    /// Sampler flags by binding, over the defaults.
    pub samplers: Vec<SamplerFlags>,
    /// When small values share registers (by default when the program needs more
    /// temporaries than the profile has).
    pub packing: Packing,
    /// The varying that carries the vertex position to the fragment program, for
    /// `gl_FragCoord` (see [`position`]): set for both programs of a pair.
    pub position_varying: Option<u16>,
    /// Whether values computed from inputs, uniforms and literals alone may be computed
    /// again at each reader when the program still needs more temporaries (on unless a test
    /// wants to see the difference).
    pub rematerialise: bool,
    /// The runtime the program is for (see [`runtime`]): Adobe's by default.
    pub runtime: Runtime,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            profile: Profile::Baseline,
            samplers: Vec::new(),
            packing: Packing::WhenNeeded,
            position_varying: None,
            rematerialise: true,
            runtime: Runtime::Flash,
        }
    }
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The program.
    pub program: Program,
    /// Its bytes (what `Program3D.upload` takes).
    pub bytes: Vec<u8>,
    /// The profile it was compiled for.
    pub profile: Profile,
    /// Where everything is, for the application (docs/conventions.md's JSON).
    pub reflection: machine::reflect::Reflection,
    /// The literal pool: registers and values, to upload once.
    pub constants: Vec<(u16, [f32; 4])>,
    /// The interface's registers.
    pub interface: Interface,
    /// The module's inputs and outputs (names, locations, lanes), for the link check.
    pub inputs: Vec<mir::module::Input>,
    /// See `inputs`.
    pub outputs: Vec<mir::module::Output>,
    /// The uniforms with their registers (bool uniforms moved to float registers).
    pub uniforms: Vec<mir::module::Uniform>,
    /// Each bool uniform's bool register and the constant register that holds it
    /// (1.0 or 0.0 in x).
    pub bool_registers: Vec<(u32, u32)>,
    /// Temporaries used.
    pub temporaries: usize,
    /// For each token of the program, the MIR span it came from.
    pub spans: Vec<Option<mir::Span>>,
    /// Whether lane packing was needed to fit the profile's temporaries.
    pub packed_lanes: bool,
    /// Whether an AGAL 2 or 3 program had its `if`s flattened.
    pub flattened: bool,
    /// Warnings: what the program does that the source did not say (see [`required`]).
    pub warnings: Vec<Diagnostic>,
}

impl Compiled {
    /// The AGALMiniAssembler listing.
    pub fn listing(&self) -> String {
        disasm::program_listing(&self.program)
    }

    /// glsl2agal's JSON (see [`machine::reflect::Reflection::glsl2agal_json`]).
    pub fn glsl2agal_json(&self) -> String {
        self.reflection.glsl2agal_json(&self.listing(), &self.bytes)
    }
}

fn limit(message: String) -> Diagnostic {
    Diagnostic::error(CodegenRule::Limit, message)
}

/// The module as the selector receives it (what `--emit mir` prints).
pub fn prepare(module: &Module, options: &Options) -> Result<Module, Diagnostics> {
    prepare_until(module, options, None)
}

/// [`prepare()`], stopping after step number `stop` of [`pipeline`] (what `--emit mir --after
/// STEP` prints).
pub fn prepare_until(
    module: &Module,
    options: &Options,
    stop: Option<usize>,
) -> Result<Module, Diagnostics> {
    prepare::prepare_until(module, options, Ifs::Small, stop)
        .map(|p| p.module)
        .map_err(Diagnostics)
}

/// The pipeline [`prepare()`] runs for `profile` (the first try), as `--print-pipeline` shows
/// it.
pub fn pipeline(profile: Profile) -> prepare::Pipeline {
    prepare::pipeline(profile, Ifs::Small)
}

/// Why one try of [`compile`] failed.
enum Failure {
    /// The program was made but breaks one of Flash's rules (a bug, unless the program kept
    /// branches whose shape Flash's conditional blocks cannot take: then flattening them is
    /// the second try).
    BreaksFlashRules(Diagnostics, bool),
    /// Anything else: the diagnostics say what.
    Refused(Diagnostics),
}

impl From<Diagnostics> for Failure {
    fn from(d: Diagnostics) -> Failure {
        Failure::Refused(d)
    }
}

/// Compiles a vertex or fragment module.
///
/// An AGAL 2 or 3 program with `if`s or selects is compiled twice, small `if`s flattened and
/// (the second try) only those that compute nothing, with selects as branches; the shorter
/// program is kept, and on a tie the one with more tokens inside conditional blocks (it
/// can skip more): whether a branch beats a blend depends on what both arms cost,
/// which the count says best.
pub fn compile(module: &Module, options: &Options) -> Result<Compiled, Diagnostics> {
    let first = match compile_once(module, options, Ifs::Small) {
        Ok(c) => Ok(c),
        Err(Failure::BreaksFlashRules(_, true)) => match compile_once(module, options, Ifs::All) {
            Ok(c) => Ok(c),
            Err(Failure::BreaksFlashRules(d, _) | Failure::Refused(d)) => Err(d),
        },
        Err(Failure::BreaksFlashRules(d, _) | Failure::Refused(d)) => Err(d),
    }?;
    let f = &module.function;
    let has_choices = f.layout.iter().any(|&b| {
        matches!(f.blocks[b].structure, Some(Structure::If { .. }))
            || f.blocks[b]
                .insts
                .iter()
                .any(|&i| f.insts[i].op == mir::inst::Op::Select)
    });
    if options.profile.version() >= Version::V2 && has_choices && !first.flattened {
        match compile_once(module, options, Ifs::Few) {
            Ok(fewer) if !fewer.flattened && better(&fewer.program, &first.program) => {
                return Ok(fewer);
            }
            // The second try is an optimisation: a refusal or a broken rule of it leaves the
            // first program. A bug in it is still a bug: the debug builds (every test) say
            // so rather than hide it; release builds keep the first program.
            Err(Failure::Refused(d) | Failure::BreaksFlashRules(d, _))
                if cfg!(debug_assertions)
                    && d.errors().any(|e| e.fault() == mir::Fault::Internal) =>
            {
                return Err(d);
            }
            _ => {}
        }
    }
    Ok(first)
}

/// Whether `b` is a better program than `a`: shorter, or as long with more tokens inside
/// conditional blocks (a program runs at most its length, and a conditional block's tokens
/// only when its condition holds: as long and with more of them, it can skip more).
fn better(b: &crate::Program, a: &crate::Program) -> bool {
    let conditional = |p: &crate::Program| {
        let mut depth = 0usize;
        let mut inside = 0usize;
        for i in &p.instructions {
            match i.opcode().shape() {
                crate::Shape::Condition => depth += 1,
                crate::Shape::Bare if i.opcode() == crate::Opcode::Eif => {
                    depth = depth.saturating_sub(1)
                }
                crate::Shape::Bare => {}
                _ => inside += usize::from(depth > 0),
            }
        }
        inside
    };
    let (lb, la) = (b.instructions.len(), a.instructions.len());
    lb < la || (lb == la && conditional(b) > conditional(a))
}

/// One try of [`compile`], with the `if`s `ifs` says flattened.
fn compile_once(module: &Module, options: &Options, ifs: Ifs) -> Result<Compiled, Failure> {
    let profile = options.profile;
    let limits = profile.limits();
    let prepared = prepare::prepare(module, options, ifs).map_err(Diagnostics)?;
    let warnings = prepared.warnings.clone();
    let mut m = prepared.module.clone();
    let iface = interface::assign(&m, profile, &options.samplers).map_err(Diagnostics)?;
    let temps = usize::from(limits.temporaries);

    // Lane packing, then rematerialisation, when the values do not fit (see
    // `machine::retry`); smaller register files first.
    let policy = Policy {
        registers: temps,
        smaller_first: vec![8, 16],
        packing: options.packing,
        rematerialise: options.rematerialise,
    };
    let fitted = retry::allocate(&mut m, &policy, |m, pack| -> Result<_, Diagnostics> {
        let mut pool = pool::Pool::new(iface.uniform_registers);
        let code = select::select(m, &iface, &mut pool, profile, options.runtime, pack)
            .map_err(Diagnostics)?;
        Ok((code, pool))
    });
    let Fitted {
        code,
        selected: pool,
        alloc,
        packed,
        ..
    } = match fitted {
        Ok(f) => f,
        Err(retry::Failure::Select(d)) => return Err(d.into()),
        Err(retry::Failure::TooManyLive { needed, span }) => {
            let d = limit(format!(
                "the program needs {needed} temporaries here; the {profile} profile has \
                 {temps} ({}0 to {}{})",
                RegType::Temporary.prefix(iface.stage),
                RegType::Temporary.prefix(iface.stage),
                temps - 1
            ))
            .with_span(span);
            return Err(Diagnostics::from(d).into());
        }
        Err(retry::Failure::Internal(e)) => {
            return Err(Diagnostics::from(Diagnostic::error(
                CodegenRule::Internal,
                format!("internal error (this is a bug): {e}"),
            ))
            .into());
        }
    };
    let emitted = emit::emit(&m.function, &code, &alloc).map_err(Diagnostics)?;
    let spans = emitted.spans;
    let m = &m;
    let program = Program {
        version: profile.version(),
        stage: iface.stage,
        instructions: emitted.code,
    };

    let mut errors = Vec::new();
    let tokens = program.instructions.len();
    if tokens > limits.tokens as usize {
        errors.push(limit(format!(
            "the program is {tokens} instructions long; the {profile} profile allows {} \
             (AGAL {} tokens)",
            limits.tokens, limits.version
        )));
    }
    let constants = match iface.stage {
        Stage::Vertex => limits.vertex_constants,
        Stage::Fragment => limits.fragment_constants,
    };
    let used = usize::from(iface.uniform_registers) + pool.len();
    if used > usize::from(constants) {
        errors.push(limit(format!(
            "the program needs {used} constant registers ({} for uniforms, {} for literals); \
             the {profile} profile has {constants} ({}0 to {}{})",
            iface.uniform_registers,
            pool.len(),
            RegType::Constant.prefix(iface.stage),
            RegType::Constant.prefix(iface.stage),
            constants - 1
        )));
    }
    let tex = program
        .instructions
        .iter()
        .filter(|i| i.opcode() == Opcode::Tex)
        .count();
    let alu = program
        .instructions
        .iter()
        .filter(|i| {
            !i.opcode().opens_block()
                && !matches!(i.opcode(), Opcode::Tex | Opcode::Els | Opcode::Eif)
        })
        .count();
    if let Some(max) = limits.native_alu {
        if alu > max as usize {
            errors.push(limit(format!(
                "the program has {alu} arithmetic instructions; the {profile} profile's \
                 native shaders take {max}"
            )));
        }
    }
    if let Some(max) = limits.native_texture {
        if tex > max as usize {
            errors.push(limit(format!(
                "the program has {tex} texture instructions; the {profile} profile's native \
                 shaders take {max}"
            )));
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors).into());
    }

    let bytes = program.encode();
    let kept_branches = profile.version() >= Version::V2 && !prepared.flattened;
    let info = validate(&bytes, profile).map_err(|errs| {
        let d = Diagnostics(
            errs.into_iter()
                .map(|e| {
                    Diagnostic::error(
                        CodegenRule::Internal,
                        format!(
                            "internal error (this is a bug): the program breaks Flash's rule \
                             {e}"
                        ),
                    )
                })
                .collect(),
        );
        Failure::BreaksFlashRules(d, kept_branches)
    })?;
    let samplers: Vec<Sampler> = iface
        .samplers
        .iter()
        .map(|s| {
            info.samplers
                .iter()
                .find(|x| x.index == s.index)
                .copied()
                .unwrap_or(*s)
        })
        .collect();
    let constants = pool.registers();
    let reflection = reflect::reflection(
        m,
        &iface,
        &constants,
        &samplers,
        tokens,
        emitted.temporaries,
        profile.version().number() as u8,
    );
    Ok(Compiled {
        program,
        bytes,
        profile,
        reflection,
        constants,
        inputs: m.inputs.iter().map(|(_, i)| i.clone()).collect(),
        outputs: m.outputs.clone(),
        uniforms: m.uniforms.clone(),
        bool_registers: prepared.bool_registers,
        temporaries: emitted.temporaries,
        spans,
        packed_lanes: packed,
        flattened: prepared.flattened,
        warnings,
        interface: Interface { samplers, ..iface },
    })
}
