//! Lowering a validated SPIR-V module to MIR, for one entry point.
//!
//! ```text
//! interface.rs  inputs, outputs, uniforms (std140 → registers), samplers
//! storage.rs    variables as trees of MIR locals; loads, stores, access chains
//! body.rs       functions, blocks and control flow; calls inlined as they are met
//! ops.rs        the instructions; glsl.rs the GLSL.std.450 set; image.rs sampling
//! ```
//!
//! Design decisions:
//! - **Inlining happens here.** SPIR-V passes `in`/`inout` arguments by pointer (glslang
//!   always does) and lets functions reach global variables. Inlining while lowering maps a
//!   parameter pointer to the caller's variable, so MIR never needs pointers. Recursion is an
//!   error.
//! - **Variables become locals, leaf by leaf** (scalar replacement by construction): a
//!   `mat4` variable is four vector locals, an array of structs one local per member of each
//!   element. The mem2reg pass then turns them into SSA values. A computed index into a local
//!   array becomes a chain of selects.
//! - **Returns jump to a region's merge.** Each function body (the entry point's too) is a
//!   `Region` whose merge block receives every return; return values go through locals. The
//!   MIR pass `exits` makes early returns structured.
//! - **Integers are floats.** Integer arithmetic is carried out in floats, exact while the
//!   values stay small (2^24 in f32, 2^16 on the PICA200); division truncates explicitly.

mod body;
mod decor;
mod geometry;
mod glsl;
mod hints;
mod image;
mod interface;
mod ops;
mod storage;
mod types;
mod value;

use mir::hash::HashMap;

use mir::func::{BlockId, Function};
use mir::inst::{Op, Operand};
use mir::{Diagnostic, Diagnostics, Span, Ty};
use spirv::Word;

use crate::disasm::Printer;
use crate::entry::EntryPoint;
use crate::module::Inst;
use crate::rules::FrontRule;
use crate::validate::ValidModule;
use decor::Decorations;
use storage::Var;
use value::Val;

pub use hints::{Hints, UniformHint};

/// Lowers `valid`'s entry point `entry` to MIR.
pub fn lower(valid: &ValidModule, entry: &EntryPoint) -> Result<mir::Module, Diagnostics> {
    lower_with(valid, entry, &Hints::default())
}

/// Lowers `valid`'s entry point `entry` to MIR, with what the source language's front end
/// learned that the module cannot say ([`Hints`]).
pub fn lower_with(
    valid: &ValidModule,
    entry: &EntryPoint,
    hints: &Hints,
) -> Result<mir::Module, Diagnostics> {
    let mut l = Lowerer::new(valid, entry);
    l.run();
    if l.errors.is_empty() {
        l.endless_loops();
    }
    if l.errors.is_empty() {
        let mut m = l.finish();
        hints::apply(&mut m, hints);
        index_shared_names(&mut m);
        Ok(m)
    } else {
        Err(Diagnostics(l.errors))
    }
}

/// Interface variables that share a name at different locations (how naga's SPIR-V writer
/// spells an array varying: a variable per element, each under the array's name) are
/// `name[0]`, `name[1]` … by location, as the module would name one array variable's.
fn index_shared_names(m: &mut mir::Module) {
    fn index(mut entries: Vec<(&mut String, Option<u32>)>) {
        let mut names: Vec<String> = entries.iter().map(|(n, _)| (*n).clone()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let mut locations: Vec<u32> = entries
                .iter()
                .filter(|(n, _)| **n == name)
                .filter_map(|(_, l)| *l)
                .collect();
            locations.sort_unstable();
            locations.dedup();
            if locations.len() < 2 || name.is_empty() || name.ends_with(']') {
                continue;
            }
            for (n, l) in entries.iter_mut().filter(|(n, _)| **n == name) {
                if let Some(k) = l.and_then(|l| locations.iter().position(|&x| x == l)) {
                    **n = format!("{name}[{k}]");
                }
            }
        }
    }
    index(
        m.inputs
            .iter_mut()
            .map(|i| (&mut i.name, Some(i.location)))
            .collect(),
    );
    index(
        m.outputs
            .iter_mut()
            .map(|o| (&mut o.name, o.location))
            .collect(),
    );
}

/// Lowering errors name what the targets cannot do; these rules label them (see
/// [`FrontRule`]).
pub mod rule {
    use crate::rules::FrontRule;

    /// An instruction lowering does not handle.
    pub const INSTRUCTION: FrontRule = FrontRule::LowerInstruction;
    /// A function that calls itself, directly or not.
    pub const RECURSION: FrontRule = FrontRule::LowerRecursion;
    /// A variable, built-in or storage class the interface conventions do not cover.
    pub const INTERFACE: FrontRule = FrontRule::LowerInterface;
    /// An image operation the targets cannot do.
    pub const IMAGE: FrontRule = FrontRule::LowerImage;
    /// Depth-comparison sampling (a shadow sampler): valid SPIR-V, which neither target's
    /// texture unit can do.
    pub const SHADOW_SAMPLER: FrontRule = FrontRule::LowerShadowSampler;
    /// Control flow the lowering cannot make structured (switch fall-through).
    pub const CONTROL_FLOW: FrontRule = FrontRule::LowerControlFlow;
    /// An integer operation that has no float equivalent (bitwise operations on values).
    pub const INTEGER: FrontRule = FrontRule::LowerInteger;
}

/// The state of one lowering.
pub(crate) struct Lowerer<'m> {
    pub valid: &'m ValidModule,
    pub entry: &'m EntryPoint,
    pub decor: Decorations,
    printer: Printer,
    /// The MIR being built.
    pub f: Function,
    pub inputs: mir::arena::Arena<mir::module::Input>,
    pub outputs: Vec<(mir::module::Output, usize)>,
    pub uniforms: Vec<mir::module::Uniform>,
    pub samplers: mir::arena::Arena<mir::module::Sampler>,
    /// A geometry program's primitives.
    pub geometry: Option<mir::module::Geometry>,
    /// The block instructions are appended to.
    pub cursor: BlockId,
    /// Every variable (global and each inlined function's), by index.
    pub vars: Vec<Var>,
    /// Global variable ids → index in `vars`.
    pub global_vars: HashMap<Word, usize>,
    /// Module-level constants already lowered (each is materialised once, in the entry
    /// block).
    pub constants: HashMap<Word, Val>,
    /// Functions being inlined, innermost last (for recursion errors).
    pub call_stack: Vec<Word>,
    pub errors: Vec<Diagnostic>,
}

impl<'m> Lowerer<'m> {
    fn new(valid: &'m ValidModule, entry: &'m EntryPoint) -> Self {
        let mut f = Function::new(entry.name.clone());
        let cursor = f.entry;
        f.blocks[cursor].span = Span::default();
        Lowerer {
            valid,
            entry,
            decor: Decorations::new(&valid.module),
            printer: Printer::new(&valid.module),
            f,
            inputs: mir::arena::Arena::new(),
            outputs: Vec::new(),
            uniforms: Vec::new(),
            samplers: mir::arena::Arena::new(),
            geometry: None,
            cursor,
            vars: Vec::new(),
            global_vars: HashMap::default(),
            constants: HashMap::default(),
            call_stack: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn run(&mut self) {
        if self.entry.stage() == Some(mir::Stage::Geometry) {
            self.geometry = self.geometry_modes();
        }
        self.place_interface();
        if !self.errors.is_empty() {
            return;
        }
        self.lower_entry();
    }

    fn finish(self) -> mir::Module {
        let stage = self.entry.stage().unwrap_or(mir::Stage::Vertex);
        mir::Module {
            stage,
            geometry: self.geometry,
            entry_point: self.entry.name.clone(),
            inputs: self.inputs,
            outputs: self.outputs.into_iter().map(|(o, _)| o).collect(),
            uniforms: self.uniforms,
            samplers: self.samplers,
            function: self.f,
            source_files: self.valid.module.source_files.clone(),
        }
    }

    /// Refuses every loop no path leaves (`for (;;) {}` with no `break`, `return` or
    /// `discard`): valid SPIR-V, but a program neither target can finish. The PICA200's
    /// LOOP would stop after 256 trips with the outputs unwritten; AGAL has no loops at all.
    fn endless_loops(&mut self) {
        let f = &self.f;
        let doms = mir::analysis::cfg::Dominators::new(f);
        let mut endless = Vec::new();
        for &h in &f.layout {
            if !matches!(
                f.blocks[h].structure,
                Some(mir::func::Structure::Loop { .. })
            ) || !doms.reachable(h)
            {
                continue;
            }
            let mut seen = mir::hash::HashSet::default();
            let mut stack = vec![h];
            let mut leaves = false;
            while let Some(b) = stack.pop() {
                if !seen.insert(b) {
                    continue;
                }
                let term = &f.blocks[b].term;
                if !doms.dominates(h, b)
                    || matches!(
                        term,
                        mir::func::Terminator::Return(_) | mir::func::Terminator::Discard
                    )
                {
                    leaves = true;
                    break;
                }
                // A branch on a constant (`while (true)`) goes one way only.
                match term {
                    mir::func::Terminator::Branch {
                        cond,
                        then,
                        otherwise,
                    } => match f.def_inst(cond.value).map(|d| &d.op) {
                        Some(Op::Const(bits)) => {
                            stack.push(if bits[cond.swizzle.lane(0) as usize & 3] != 0 {
                                then.target
                            } else {
                                otherwise.target
                            })
                        }
                        _ => stack.extend(term.successors()),
                    },
                    _ => stack.extend(term.successors()),
                }
            }
            if !leaves {
                endless.push(f.blocks[h].span);
            }
        }
        for span in endless {
            self.error_at(
                rule::CONTROL_FLOW,
                span,
                "this loop never exits (no `break`, `return` or `discard` leaves it): the \
                 program would never finish, which neither the PICA200 nor Stage3D can run",
            );
        }
    }

    /// `%name` or `%N`, for messages.
    pub fn id(&self, id: Word) -> String {
        self.printer.id(id)
    }

    /// The type table.
    pub fn types(&self) -> &'m crate::validate::TypeTable {
        &self.valid.types
    }

    /// Reports an error at `inst`.
    pub fn error(&mut self, rule: FrontRule, inst: &Inst, message: impl Into<String>) {
        let mut d = Diagnostic::error(rule, message).with_span(inst.span);
        d.instruction = Some(self.printer.inst(&inst.op));
        d.source = self.source_of(inst.span);
        self.errors.push(d);
    }

    /// Reports an error about the module as a whole, or a variable.
    pub fn error_at(&mut self, rule: FrontRule, span: Span, message: impl Into<String>) {
        let mut d = Diagnostic::error(rule, message);
        if span.ordinal > 0 {
            d = d.with_span(span);
            d.source = self.source_of(span);
        }
        self.errors.push(d);
    }

    fn source_of(&self, span: Span) -> Option<String> {
        span.source.map(|pos| {
            let file = self
                .valid
                .module
                .source_files
                .get(pos.file as usize)
                .map_or("<unknown file>", String::as_str);
            format!("{file}:{}", pos.line)
        })
    }

    /// Appends an instruction with one result at the cursor.
    pub fn emit(&mut self, op: Op, args: Vec<Operand>, ty: Ty, span: Span) -> Operand {
        Operand::new(self.f.ins(self.cursor, op, args, ty, span))
    }

    /// Appends an instruction without a result at the cursor.
    pub fn emit_void(&mut self, op: Op, args: Vec<Operand>, span: Span) {
        self.f.push(self.cursor, op, args, &[], span);
    }

    /// A float constant with the given lanes, at the cursor.
    pub fn fconst(&mut self, lanes: &[f32], span: Span) -> Operand {
        self.emit(
            Op::float_const(lanes),
            Vec::new(),
            Ty::float(lanes.len() as u8),
            span,
        )
    }

    /// A bool constant.
    pub fn bconst(&mut self, value: bool, span: Span) -> Operand {
        self.emit(
            Op::Const([value as u32, 0, 0, 0]),
            Vec::new(),
            Ty::bool(1),
            span,
        )
    }
}
