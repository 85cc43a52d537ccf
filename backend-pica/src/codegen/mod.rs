//! The PICA200 code generator: a MIR vertex module to a `.shbin`.
//!
//! This is the PICA200's hooks on the machine layer (the `machine` crate: selection driver,
//! value placement, literal pool, lane packing, allocation retries, reflection):
//!
//! ```text
//! mir::Module ──► prepare (the PICA200's passes) ──► outputs/inputs ──► select (hooks on
//!     machine::select, pool) ──► VCode ──► machine::retry (regalloc2, r0–r15; lane packing,
//!     then rematerialisation when the values do not fit) ──► emit (IFC/IFU/LOOP, padding)
//!     ──► Vec<Inst> + tables ──► encode (descriptors) ──► ShaderBinary ──► shbin::write
//! ```
//!
//! Every limit is an error naming it: 512 words, 128 operand descriptors, 16 temporaries
//! (with the source position where the most values are live), c0–c95 shared by uniforms
//! and literals, seven semantic outputs, the IF and LOOP stack depths.

pub mod emit;
pub mod flags;
pub mod geometry;
pub mod outline;
pub mod outputs;
pub mod pool;
pub mod prepare;
pub mod select;
pub mod vinst;

use crate::rules::Rule;
use mir::hash::HashMap;

use machine::retry::{self, Policy};

pub use machine::retry::Packing;
use mir::{Diagnostic, Diagnostics, Module};

use crate::encode::encode_program;
use crate::error::EncodeError;
use crate::float24::F24;
use crate::inst::Inst;
use crate::limits;
use crate::shbin::{self, Constant, Semantic, ShaderBinary, UniformFile};
use vinst::VSrc;

/// What a user can choose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Output semantics by location, replacing the defaults.
    pub semantics: Vec<(u32, Semantic)>,
    /// When small values share registers (by default when the program needs more
    /// temporaries than the PICA200's sixteen).
    pub packing: Packing,
    /// A geometry program: the output registers of the vertex program it follows (by
    /// default [`geometry::Layout::assumed`]).
    pub geometry_layout: Option<geometry::Layout>,
    /// A vertex program a geometry program follows: its `dummy` outputs may use `o7`–`o15`
    /// (the geometry unit takes up to 16 registers; the rasteriser seven).
    pub feeds_geometry: bool,
    /// A geometry program whose runs of emitted vertices repeat may call a procedure per
    /// run, where that saves at least as many words as it adds steps ([`outline`]); `false`
    /// keeps every run inline (the most steps saved).
    pub procedures: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            semantics: Vec::new(),
            packing: Packing::WhenNeeded,
            geometry_layout: None,
            feeds_geometry: false,
            procedures: true,
        }
    }
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The `.shbin` file (what `DVLB_ParseFile` reads).
    pub bytes: Vec<u8>,
    /// The `.shbin` contents.
    pub binary: ShaderBinary,
    /// The instructions of `main` (END included).
    pub code: Vec<Inst>,
    /// For each word of `code`, the MIR span it came from (`None` for padding and END).
    pub spans: Vec<Option<mir::Span>>,
    /// Temporaries used.
    pub temporaries: usize,
    /// Whether lane packing was needed to fit the sixteen temporaries.
    pub packed_lanes: bool,
    /// The literal pool: registers and values, c95 first.
    pub constants: Vec<(u8, [f32; 4])>,
    /// For each output of the module (in its order), the register and components written
    /// (`None` for an output the PICA200 ignores, such as `gl_PointSize`).
    pub outputs: Vec<Option<(u8, crate::operand::Mask)>>,
    /// Where everything is, for the application (docs/conventions.md's JSON).
    pub reflection: machine::reflect::Reflection,
    /// What the program leaves out of the shader, which compiled anyway (components of an
    /// output that no semantic carries).
    pub warnings: Vec<Diagnostic>,
}

fn diagnostics(errors: Vec<Diagnostic>) -> Diagnostics {
    Diagnostics(errors)
}

/// What an encoding failure tells the user: the hardware's limits are limits; any other
/// encoding error is the code generator's (a limit would also send [`compile`] on a retry
/// that cannot help).
fn encoding_diagnostic(e: EncodeError) -> Diagnostic {
    match e {
        EncodeError::TooManyWords { words, limit } => Diagnostic::error(
            Rule::Limit,
            format!("the program is {words} instructions long; the PICA200 runs at most {limit}"),
        ),
        EncodeError::TooManyDescriptors { limit, .. } => Diagnostic::error(
            Rule::Limit,
            format!(
                "the program needs more than {limit} operand descriptors (distinct \
                 swizzle/negate/mask combinations), the PICA200's limit"
            ),
        ),
        EncodeError::MadDescriptor { .. } => Diagnostic::error(
            Rule::Limit,
            "the program's multiply-adds need more than 32 operand descriptors (distinct \
             swizzle/negate/mask combinations): a MAD can use only the first 32",
        ),
        other => Diagnostic::error(
            Rule::Internal,
            format!("internal error in encoding (this is a bug): {other}"),
        ),
    }
}

/// Compiles a vertex or geometry module.
///
/// - A loop left from inside an `if` cannot use `breakc`, which leaves a loop from its top
///   level only: a program with one is compiled again with its breaks predicated
///   ([`prepare::Try::predicate_breaks`]).
/// - Scalar multiply-adds of two literals are `dph`s, a word shorter each, whose literals
///   (`(k1, 0, 0, k2)`) may pack fewer values per register: a program that then breaks a
///   limit (the literal registers, operand descriptors) is compiled again without them.
pub fn compile(module: &Module, options: &Options) -> Result<Compiled, Diagnostics> {
    let (mut attempt, prepared) = prepare::choose(module);
    let mut result = prepared.and_then(|m| compile_prepared(m, options));
    if attempt != prepare::Try::FIRST && result.is_err() {
        // The unrolled program broke a limit the loop kept: the loop, then.
        attempt = prepare::Try::FIRST;
        result = compile_once(module, options, attempt);
    }
    if matches!(&result, Err(e) if e.errors().any(|d| d.is(Rule::ControlFlow))) {
        attempt.predicate_breaks = true;
        result = compile_once(module, options, attempt);
    }
    match result {
        Err(e) if e.errors().any(|d| d.is(Rule::Limit)) => {
            attempt.affine = false;
            compile_once(module, options, attempt)
        }
        result => result,
    }
}

fn compile_once(
    module: &Module,
    options: &Options,
    attempt: prepare::Try,
) -> Result<Compiled, Diagnostics> {
    compile_prepared(prepare::prepare_with(module, attempt)?, options)
}

/// What selection, allocation and emission take beside the module.
struct Generation<'a> {
    /// Where each input is read (by the input's index).
    sources: &'a HashMap<usize, VSrc>,
    /// Where each output goes.
    slots: &'a [Option<select::OutputSlot>],
    /// How allocation may retry.
    policy: &'a Policy,
    /// The most words the program may take.
    code_limit: usize,
}

impl Generation<'_> {
    /// Selects, allocates and emits `m`'s function as `role` and `unit`, its literals
    /// pooled after `pool`'s: the code, the pool and whether lanes were packed.
    fn generate(
        &self,
        m: &mut Module,
        emits: &HashMap<mir::InstId, vinst::VInst>,
        role: select::Role<'_>,
        unit: emit::Unit,
        pool: pool::Pool,
    ) -> Result<(emit::Emitted, pool::Pool, bool), Diagnostics> {
        let code_limit = self.code_limit;
        let fitted = retry::allocate(m, self.policy, |m, pack| {
            let mut pool = pool.clone();
            let selected =
                select::select(m, self.sources, emits, self.slots, &mut pool, pack, role)
                    .map_err(diagnostics)?;
            // Every selected instruction is one word: past the limit already, no allocation
            // (the slowest step on a program that large) can help.
            let words = (0..selected.code.len())
                .filter(|&i| selected.code.inst(i).is_some())
                .count();
            if words > code_limit {
                return Err(diagnostics(vec![Diagnostic::error(
                    Rule::Limit,
                    format!(
                        "the program is at least {words} instructions long (before register \
                         moves and control flow); the PICA200 runs at most {code_limit}",
                    ),
                )]));
            }
            Ok((selected.code, (selected.branches, pool)))
        });
        let (code, branches, pool, alloc, packed_lanes) = match fitted {
            Ok(f) => (f.code, f.selected.0, f.selected.1, f.alloc, f.packed),
            Err(retry::Failure::Select(d)) => return Err(d),
            Err(retry::Failure::TooManyLive { needed, span }) => {
                let d = Diagnostic::error(
                    Rule::Limit,
                    format!(
                        "the program needs {needed} temporaries here; the PICA200 has {}",
                        limits::TEMP_REGISTERS
                    ),
                )
                .with_span(span);
                return Err(diagnostics(vec![d]));
            }
            Err(retry::Failure::Internal(e)) => {
                return Err(diagnostics(vec![Diagnostic::error(
                    Rule::Internal,
                    format!("internal error (this is a bug): {e}"),
                )]));
            }
        };
        let emitted =
            emit::emit(&m.function, &code, &alloc, &branches, unit).map_err(diagnostics)?;
        Ok((emitted, pool, packed_lanes))
    }

    /// `m` with procedure `o`: the procedure compiled first (what it writes, its calls
    /// clobber), then the program that calls it, with the procedure after its END; and the
    /// steps it runs (straight-line: its words, and the procedure's once per call). `None`
    /// where either does not compile (then the program goes without).
    fn with_procedure(
        &self,
        m: &Module,
        emits: &HashMap<mir::InstId, vinst::VInst>,
        o: &outline::Outline,
    ) -> Option<(emit::Emitted, pool::Pool, usize)> {
        // The calls' places are instructions of this function: nothing may rewrite it.
        let policy = Policy {
            rematerialise: false,
            ..self.policy.clone()
        };
        let g = Generation {
            policy: &policy,
            ..*self
        };
        // The procedure in as few registers as it fits: each one it writes is one fewer for
        // the values its caller keeps across the calls.
        let params = o.body.blocks[o.body.entry].params.len().max(1);
        let tight = Policy {
            smaller_first: (params..usize::from(limits::TEMP_REGISTERS)).collect(),
            ..policy.clone()
        };
        let body_generation = Generation {
            policy: &tight,
            ..g
        };
        let mut body_module = m.clone();
        body_module.function = o.body.clone();
        let (body, pool, _) = body_generation
            .generate(
                &mut body_module,
                &o.body_emits,
                select::Role::Procedure,
                emit::Unit::Procedure,
                pool::Pool::default(),
            )
            .ok()?;
        let words = u8::try_from(body.code.len()).ok()?;
        // What the procedure overwrites: every register it writes (a parameter it only
        // reads is still there after the call).
        let mut clobbers: Vec<usize> = Vec::new();
        for inst in &body.code {
            if let Inst::Binary { dst, .. } | Inst::Unary { dst, .. } | Inst::Mad { dst, .. } = inst
            {
                if let crate::operand::DstReg::Temp(r) = dst.reg {
                    if !clobbers.contains(&usize::from(r)) {
                        clobbers.push(usize::from(r));
                    }
                }
            }
        }
        let mut main = m.clone();
        let (mut program, pool, _) = g
            .generate(
                &mut main,
                emits,
                select::Role::Caller {
                    outline: o,
                    clobbers: &clobbers,
                },
                emit::Unit::Program {
                    procedure_words: words,
                },
                pool,
            )
            .ok()?;
        let steps = program.code.len() + o.runs * body.code.len();
        program.entry_end = program.code.len();
        program.code.extend(body.code);
        program.spans.extend(body.spans);
        program.temporaries = program.temporaries.max(body.temporaries);
        Some((program, pool, steps))
    }
}

/// Compiles a module the pipeline prepared.
fn compile_prepared(mut m: Module, options: &Options) -> Result<Compiled, Diagnostics> {
    let layout = (m.stage == mir::Stage::Geometry).then(|| {
        options
            .geometry_layout
            .clone()
            .unwrap_or_else(|| geometry::Layout::assumed(&m))
    });

    // Inputs: location L is vL (a geometry program's: see `geometry`).
    let mut errors = Vec::new();
    let mut inputs: HashMap<usize, u8> = HashMap::default();
    let mut input_mask = 0u16;
    let mut placed: Option<geometry::Placed> = None;
    if let Some(layout) = &layout {
        // picasso keeps b15 of a geometry program for the geometry unit.
        if let Some(u) = m.uniforms.iter().find(|u| u.is_bool && u.register >= 15) {
            return Err(diagnostics(vec![Diagnostic::error(
                Rule::Limit,
                format!(
                    "the bool uniform `{}` needs b{}; a geometry program has b0 to b14",
                    u.name, u.register
                ),
            )]));
        }
        let p = geometry::place_inputs(&m, layout).map_err(diagnostics)?;
        if p.mode == geometry::Mode::Point {
            input_mask = p.registers.values().fold(0, |mask, &r| mask | 1 << r);
        }
        geometry::shift_uniforms(&mut m, p.uniform_base);
        inputs = p.registers.clone();
        placed = Some(p);
    }
    for (h, input) in m.inputs.iter().filter(|_| layout.is_none()) {
        if input.location >= u32::from(limits::INPUT_REGISTERS) {
            errors.push(Diagnostic::error(
                Rule::Limit,
                format!(
                    "input `{}` at location {}: the PICA200 has inputs v0 to v15",
                    input.name, input.location
                ),
            ));
            continue;
        }
        inputs.insert(h.index(), input.location as u8);
        input_mask |= 1 << input.location;
    }
    let assigned = match outputs::assign(&m.outputs, &options.semantics, options.feeds_geometry) {
        Ok(x) => x,
        Err(e) => {
            errors.extend(e);
            return Err(diagnostics(errors));
        }
    };
    if !errors.is_empty() {
        return Err(diagnostics(errors));
    }
    let slots = &assigned.slots;
    drop_uncarried_lanes(&mut m.function, slots);

    // When the values do not fit the temporaries: lane packing, then the cheap values
    // recomputed at their readers (see `machine::retry`).
    let policy = Policy {
        registers: usize::from(limits::TEMP_REGISTERS),
        smaller_first: Vec::new(),
        packing: options.packing,
        rematerialise: true,
    };
    let code_limit = if layout.is_some() {
        limits::MAX_CODE_WORDS
    } else {
        limits::MAX_VERTEX_CODE_WORDS
    };
    let fixed = placed
        .as_ref()
        .is_some_and(|p| p.mode == geometry::Mode::Fixed);
    let sources: HashMap<usize, VSrc> = inputs
        .iter()
        .map(|(&k, &r)| {
            (
                k,
                if fixed {
                    VSrc::Const(r)
                } else {
                    VSrc::Input(r)
                },
            )
        })
        .collect();
    let emits = if m.stage == mir::Stage::Geometry {
        geometry::emits(&m.function).map_err(diagnostics)?
    } else {
        HashMap::default()
    };
    let generation = Generation {
        sources: &sources,
        slots,
        policy: &policy,
        code_limit,
    };
    let mut generated = generation.generate(
        &mut m,
        &emits,
        select::Role::Program,
        emit::Unit::Program { procedure_words: 0 },
        pool::Pool::default(),
    );
    // A run of emits repeated with other values: a procedure, where it pays, or where the
    // program inline breaks a limit (too long, too many values live) and with it does not.
    if let Some(o) = (options.procedures && m.stage == mir::Stage::Geometry)
        .then(|| outline::plan(&m.function, &emits))
        .flatten()
    {
        if let Some((with, p, steps)) = generation.with_procedure(&m, &emits, &o) {
            let fits = |words| words <= limits::MAX_VERTEX_CODE_WORDS;
            let better = match &generated {
                Ok((plain, _, _)) => {
                    let words = plain.code.len();
                    outline::worth(with.code.len(), steps, words, words)
                        || (!fits(words) && fits(with.code.len()))
                }
                Err(_) => fits(with.code.len()),
            };
            if better {
                generated = Ok((with, p, false));
            }
        }
    }
    let (emitted, pool, packed_lanes) = generated?;

    // The literal pool and the uniforms share c0–c95.
    let top_uniform = m.first_free_float_register();
    if pool.len() > usize::from(limits::FLOAT_UNIFORMS) {
        return Err(diagnostics(vec![Diagnostic::error(
            Rule::Limit,
            format!(
                "the program's literals need {} float registers; the PICA200 has {}",
                pool.len(),
                limits::FLOAT_UNIFORMS
            ),
        )]));
    }
    if let Some(lowest) = pool.lowest() {
        if top_uniform > u32::from(lowest) {
            return Err(diagnostics(vec![Diagnostic::error(
                Rule::Limit,
                format!(
                    "the uniforms take c0 to c{} and the program's {} literal registers c{lowest} \
                     to c95: together more than the PICA200's 96 float registers",
                    top_uniform - 1,
                    pool.len()
                ),
            )]));
        }
    }
    if top_uniform > u32::from(limits::FLOAT_UNIFORMS) {
        return Err(diagnostics(vec![Diagnostic::error(
            Rule::Limit,
            format!(
                "the uniforms need {top_uniform} float registers; the PICA200 has {}",
                limits::FLOAT_UNIFORMS
            ),
        )]));
    }

    let encoded =
        encode_program(&emitted.code).map_err(|e| diagnostics(vec![encoding_diagnostic(e)]))?;

    let mut constants: Vec<Constant> = pool
        .registers()
        .into_iter()
        .map(|(reg, v)| Constant::Float {
            reg,
            value: v.map(F24::from_f32_picasso),
        })
        .collect();
    for &(reg, value) in &emitted.int_constants {
        constants.push(Constant::Int { reg, value });
    }
    let mut uniforms: Vec<shbin::Uniform> = m
        .uniforms
        .iter()
        .map(|u| {
            let file = if u.is_bool {
                UniformFile::Bool
            } else {
                UniformFile::Float
            };
            let first = file.index(u.register as u8);
            shbin::Uniform {
                name: u.name.clone(),
                start: first,
                end: first + u.count.max(1) as u16 - 1,
            }
        })
        .collect();
    // picasso lists `.in` names in the same table (registers 0x00-0x0F).
    for (h, input) in m.inputs.iter().filter(|_| !fixed) {
        if let Some(&reg) = inputs.get(&h.index()) {
            let index = UniformFile::Input.index(reg);
            if !uniforms.iter().any(|u| u.start == index) {
                uniforms.push(shbin::Uniform {
                    name: input.name.clone(),
                    start: index,
                    end: index,
                });
            }
        }
    }
    uniforms.sort_by_key(|u| u.start);
    let output_mask = assigned.table.iter().fold(0u16, |m, o| m | 1 << o.reg);
    let geometry_params = match &placed {
        Some(p) if p.mode == geometry::Mode::Fixed => shbin::GeometryParams {
            mode: 2,
            fixed_start: 0,
            fixed_num: m.geometry.map_or(1, |g| g.input.vertices()) as u8,
            variable_num: 0,
        },
        _ => shbin::GeometryParams::default(),
    };
    let dvle = shbin::Dvle {
        shader_type: if layout.is_some() {
            shbin::ShaderType::Geometry
        } else {
            shbin::ShaderType::Vertex
        },
        entry_start: 0,
        entry_end: emitted.entry_end as u32,
        input_mask,
        output_mask,
        geometry: geometry_params,
        constants,
        outputs: assigned.table.clone(),
        uniforms,
        ..Default::default()
    };
    let binary = ShaderBinary {
        code: encoded.code,
        descriptors: encoded.descriptors,
        dvles: vec![dvle],
    };
    let mut reflection = reflect(
        &m,
        &binary,
        &assigned.owners,
        emitted.temporaries,
        &inputs,
        if fixed { 'c' } else { 'v' },
    );
    if let (Some(layout), Some(g)) = (&layout, m.geometry) {
        reflection.geometry = Some(machine::reflect::GeometryInfo {
            mode: if fixed { "fixed" } else { "point" }.into(),
            input_primitive: g.input.name().into(),
            vertices_in: g.input.vertices(),
            output_primitive: g.output.name().into(),
            max_vertices: g.max_vertices,
            vertex_outputs: layout
                .registers
                .iter()
                .map(|r| match r {
                    Some(geometry::Carried::Position) => "gl_Position".into(),
                    Some(geometry::Carried::Location(l)) => format!("location {l}"),
                    None => "unused".into(),
                })
                .collect(),
            // Point mode: every register of a primitive; fixed mode: of a vertex.
            stride: if fixed {
                layout.per_vertex()
            } else {
                layout.per_vertex() * g.input.vertices()
            },
        });
    }
    // The limits were checked above; a table the container still cannot hold is a bug.
    let bytes = shbin::write(&binary).map_err(|e| {
        diagnostics(vec![Diagnostic::error(
            Rule::Internal,
            format!("internal error (this is a bug): the .shbin cannot be written: {e}"),
        )])
    })?;
    Ok(Compiled {
        reflection,
        bytes,
        binary,
        code: emitted.code,
        spans: emitted.spans,
        temporaries: emitted.temporaries,
        packed_lanes,
        outputs: slots
            .iter()
            .map(|s| s.as_ref().map(|s| (s.reg, s.mask)))
            .collect(),
        constants: pool.registers(),
        warnings: assigned.warnings,
    })
}

/// The reflection of a compiled module, read from its DVLE where the DVLE has the facts: one
/// output entry per output-table entry (`owners[k]` is the module output table entry `k`
/// carries), and one constant entry per constant-table entry.
fn reflect(
    m: &Module,
    binary: &ShaderBinary,
    owners: &[usize],
    temporaries: usize,
    input_registers: &HashMap<usize, u8>,
    input_file: char,
) -> machine::reflect::Reflection {
    use machine::reflect::*;
    let dvle = binary.dvles.first();
    let outputs = dvle
        .map(|d| d.outputs.as_slice())
        .unwrap_or(&[])
        .iter()
        .zip(owners)
        .map(|(entry, &i)| {
            OutputInfo::of(
                &m.outputs[i],
                format!("o{}", entry.reg),
                Some(entry.semantic.name().to_string()),
                entry.mask.bits(),
            )
        })
        .collect();
    let constants = dvle.map(constants).unwrap_or_default();
    Reflection {
        inputs: inputs(m, |k, i| {
            format!(
                "{input_file}{}",
                input_registers.get(&k).copied().unwrap_or(i.location as u8)
            )
        }),
        outputs,
        uniforms: uniforms(m, |u| {
            format!("{}{}", if u.is_bool { 'b' } else { 'c' }, u.register)
        }),
        stats: Stats {
            instructions: binary.code.len(),
            temporaries,
            constant_registers: constants.len(),
            operand_descriptors: Some(binary.descriptors.len()),
        },
        constants,
        ..Reflection::of(m, "pica", None)
    }
}

/// A DVLE's constant table as the reflection lists it. Float registers hold float24: listed
/// as the f32 equal to it. Integer registers (the counts of `loop`) as their four bytes.
/// Booleans are left out: the compiler keeps none in the table (bool uniforms are the
/// application's).
fn constants(dvle: &crate::shbin::Dvle) -> Vec<machine::reflect::ConstantInfo> {
    use machine::reflect::ConstantInfo;
    dvle.constants
        .iter()
        .filter_map(|c| match *c {
            Constant::Float { reg, value } => Some(ConstantInfo {
                register: format!("c{reg}"),
                value: value.map(F24::to_f32),
            }),
            Constant::Int { reg, value } => Some(ConstantInfo {
                register: format!("i{reg}"),
                value: value.map(f32::from),
            }),
            Constant::Bool { .. } => None,
        })
        .collect()
}

/// The reflection of DVLE `index` of a program that was assembled, not compiled (picasso
/// source): what its tables say. Inputs and uniforms by their table names (an input's
/// location is its register), outputs by semantic and register, every uniform a `vec4`
/// (`ivec4`, `bool`) per register, since picasso declares no other types.
pub fn reflect_dvle(binary: &ShaderBinary, index: usize) -> Option<machine::reflect::Reflection> {
    use crate::shbin::{ShaderType, UniformFile};
    use machine::reflect::*;
    let dvle = binary.dvles.get(index)?;
    let mut inputs = Vec::new();
    let mut uniforms = Vec::new();
    for u in &dvle.uniforms {
        let Some((file, first, count)) = u.range() else {
            continue;
        };
        let (letter, type_name) = match file {
            UniformFile::Input => {
                for k in 0..count {
                    let reg = u32::from(first) + u32::from(k);
                    inputs.push(InputInfo {
                        name: if count == 1 {
                            u.name.clone()
                        } else {
                            format!("{}[{k}]", u.name)
                        },
                        location: reg,
                        register: format!("v{reg}"),
                        vertex: None,
                    });
                }
                continue;
            }
            UniformFile::Float => ('c', "vec4"),
            UniformFile::Int => ('i', "ivec4"),
            UniformFile::Bool => ('b', "bool"),
        };
        uniforms.push(UniformInfo {
            name: u.name.clone(),
            block: None,
            type_name: if count == 1 {
                type_name.to_string()
            } else {
                format!("{type_name}[{count}]")
            },
            layout: None,
            register: format!("{letter}{first}"),
            component: 0,
            count: count.into(),
            default: None,
        });
    }
    let outputs = dvle
        .outputs
        .iter()
        .map(|o| OutputInfo {
            name: o.semantic.name().to_string(),
            location: None,
            builtin: (o.semantic == crate::shbin::Semantic::Position)
                .then(|| "Position".to_string()),
            register: format!("o{}", o.reg),
            semantic: Some(o.semantic.name().to_string()),
            mask: mask_letters(o.mask.bits()),
        })
        .collect();
    let constants = constants(dvle);
    Some(Reflection {
        target: "pica".into(),
        agal_version: None,
        stage: match dvle.shader_type {
            ShaderType::Vertex => "vertex",
            ShaderType::Geometry => "geometry",
        }
        .into(),
        entry_point: "main".into(),
        inputs,
        outputs,
        uniforms,
        stats: Stats {
            instructions: binary.code.len(),
            temporaries: 0,
            constant_registers: constants.len(),
            operand_descriptors: Some(binary.descriptors.len()),
        },
        constants,
        samplers: Vec::new(),
        geometry: None,
        texenv: None,
    })
}

/// Lanes of a returned vector that its output's semantic does not carry (`pica.output-dropped`)
/// are never written: where the vector is a construct only the return reads, what those
/// lanes alone read is not computed either (the lanes read a constant 0 instead, and dead
/// code goes).
fn drop_uncarried_lanes(f: &mut mir::Function, slots: &[Option<select::OutputSlot>]) {
    let uses = f.use_counts();
    let Some(values) = f.layout.iter().find_map(|&b| match &f.blocks[b].term {
        mir::func::Terminator::Return(values) => Some(values.clone()),
        _ => None,
    }) else {
        return;
    };
    let mut changed = false;
    for (k, v) in values.iter().enumerate() {
        let Some(Some(slot)) = slots.get(k) else {
            continue;
        };
        let carried = slot.mask.bits().count_ones() as usize;
        let mir::func::ValueDef::Inst(i, 0) = f.values[v.value].def else {
            continue;
        };
        let inst = &f.insts[i];
        let plain = v.swizzle.is_identity(f.ty(v.value).lanes) && !v.neg && !v.abs;
        if inst.op != mir::inst::Op::Construct
            || !plain
            || uses.get(&v.value) != Some(&1)
            || inst.args.len() <= carried
        {
            continue;
        }
        let span = inst.span;
        let zero = f.create_inst(
            mir::inst::Op::float_const(&[0.0]),
            Vec::new(),
            &[mir::Ty::float(1)],
            span,
        );
        let at = f.layout.iter().find_map(|&b| {
            let pos = f.blocks[b].insts.iter().position(|&x| x == i)?;
            Some((b, pos))
        });
        let Some((b, pos)) = at else {
            continue;
        };
        f.blocks[b].insts.insert(pos, zero);
        let zero = mir::Operand::new(f.insts[zero].results[0]);
        for a in &mut f.insts[i].args[carried..] {
            *a = zero;
        }
        changed = true;
    }
    if changed {
        mir::passes::dce::run(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::InstError;
    use crate::inst::BinaryOp;
    use mir::Fault;

    #[test]
    fn only_the_hardwares_limits_are_limits_when_encoding_fails() {
        let words = encoding_diagnostic(EncodeError::TooManyWords {
            words: 600,
            limit: 512,
        });
        assert_eq!((words.rule, words.fault()), ("pica.limit", Fault::Limit));
        let mad = encoding_diagnostic(EncodeError::MadDescriptor { index: 3 });
        assert_eq!(mad.fault(), Fault::Limit);
        // An instruction the selector made that cannot be encoded is a bug, not a limit
        // (it used to read `pica.limit`, and sent `compile` on a retry).
        let bug = encoding_diagnostic(EncodeError::Inst {
            index: 7,
            source: InstError::NoInvertedForm { op: BinaryOp::Add },
        });
        assert_eq!((bug.rule, bug.fault()), ("pica.internal", Fault::Internal));
        assert!(
            bug.message.starts_with("internal error in encoding"),
            "{}",
            bug.message
        );
    }
}
