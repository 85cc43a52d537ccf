//! Validation before lowering: the module obeys the SPIR-V rules lowering relies on, and uses
//! nothing the targets cannot honour.
//!
//! The checks run in phases, and a phase runs only when the ones before it found nothing, so
//! that each error is reported once, by the rule closest to its cause:
//!
//! 1. physical layout: id bound, unique result ids (`ids.rs`; header, word counts and operand
//!    decoding were checked by the reader);
//! 2. logical layout (§2.4): section order, memory model, entry points, decoration targets,
//!    placement of function variables (`layout.rs`);
//! 3. capabilities, addressing model and instruction-set imports (`capability.rs`);
//! 4. ids: every use defined, forward references only where §2.4 allows them, operands of the
//!    right kind, and SSA dominance (`ids.rs`, `cfg.rs` for dominance);
//! 5. types: well-formed declarations and the operand types of the instructions we lower
//!    (`types.rs`), so lowering can trust them;
//! 6. structured control flow (§2.11, §2.16.2) per function (`cfg.rs`).
//!
//! A [`ValidModule`] can only be made here, so later stages can take one as proof.

mod capability;
mod cfg;
mod consteval;
mod ids;
mod layout;
mod types;

use mir::hash::HashMap;

use mir::{Diagnostic, Diagnostics};
use spirv::{Op, Word};

use crate::disasm::Printer;
use crate::module::{Block, Function, Inst, Module};
use crate::reader::rule_error;
use crate::rules::Rule;

pub use types::{Type, TypeTable};

/// How many diagnostics one phase reports before it stops looking.
const MAX_DIAGNOSTICS: usize = 20;

/// A module that passed validation, with the tables validation built.
#[derive(Clone, Debug)]
pub struct ValidModule {
    /// The module.
    pub module: Module,
    /// Where each id is defined.
    pub defs: HashMap<Word, Def>,
    /// The declared types.
    pub types: TypeTable,
}

/// Where an id is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// `module.globals[i]`.
    Global(usize),
    /// The `OpFunction` of `module.functions[f]`.
    Function(usize),
    /// Parameter `p` of function `f`.
    Param(usize, usize),
    /// The label of block `b` of function `f`.
    Label(usize, usize),
    /// Instruction `i` of block `b` of function `f`.
    Block(usize, usize, usize),
}

/// A definition: where, and what instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Def {
    /// Where the defining instruction is.
    pub site: Site,
    /// Its opcode.
    pub opcode: Op,
    /// Its result type, if it has one.
    pub result_type: Option<Word>,
}

impl Def {
    /// Whether the id names a value (something with a type that code can use), as opposed
    /// to a type, a label, a function, an import or a string.
    pub fn is_value(&self) -> bool {
        self.result_type.is_some() && self.opcode != Op::Function
    }
}

/// Where an instruction sits, for diagnostics.
#[derive(Clone, Copy)]
pub(crate) enum Place<'m> {
    Global,
    Function(&'m Function),
    Block(&'m Function, &'m Block),
}

/// Validates `module`.
pub fn validate(module: Module) -> Result<ValidModule, Diagnostics> {
    let checker = {
        let mut c = Checker::new(&module);
        let defs = ids::physical(&mut c);
        c.finish_phase()?;
        layout::check(&mut c, &defs);
        c.finish_phase()?;
        capability::check(&mut c);
        c.finish_phase()?;
        ids::check(&mut c, &defs);
        if c.diags.is_empty() {
            cfg::check_dominance(&mut c, &defs);
        }
        c.finish_phase()?;
        let types = types::collect(&mut c, &defs);
        c.finish_phase()?;
        types::check(&mut c, &defs, &types);
        c.finish_phase()?;
        cfg::check(&mut c);
        c.finish_phase()?;
        (defs, types)
    };
    let (defs, types) = checker;
    Ok(ValidModule {
        module,
        defs,
        types,
    })
}

/// Collects diagnostics for one module.
pub(crate) struct Checker<'m> {
    pub module: &'m Module,
    printer: Printer,
    diags: Vec<Diagnostic>,
}

impl<'m> Checker<'m> {
    fn new(module: &'m Module) -> Self {
        Checker {
            module,
            printer: Printer::new(module),
            diags: Vec::new(),
        }
    }

    /// Whether the phase has reported as much as it should.
    pub fn full(&self) -> bool {
        self.diags.len() >= MAX_DIAGNOSTICS
    }

    /// How many diagnostics this phase has so far.
    pub fn error_count(&self) -> usize {
        self.diags.len()
    }

    /// `%name` or `%N` for an id.
    pub fn id(&self, id: Word) -> String {
        self.printer.id(id)
    }

    /// Reports `rule` broken by `inst` at `place`.
    pub fn error(&mut self, rule: Rule, inst: &Inst, place: Place<'_>, message: impl Into<String>) {
        if self.full() {
            return;
        }
        let mut d = rule_error(rule, message).with_span(inst.span);
        d.instruction = Some(self.printer.inst(&inst.op));
        d.context = match place {
            Place::Global => None,
            Place::Function(f) => Some(format!("function {}", self.id(f.id()))),
            Place::Block(f, b) => Some(format!(
                "function {}, block {}",
                self.id(f.id()),
                self.id(b.id())
            )),
        };
        if let Some(pos) = inst.span.source {
            let file = self
                .module
                .source_files
                .get(pos.file as usize)
                .map_or("<unknown file>", String::as_str);
            d.source = Some(if pos.column > 0 {
                format!("{file}:{}:{}", pos.line, pos.column)
            } else {
                format!("{file}:{}", pos.line)
            });
        }
        self.diags.push(d);
    }

    /// Reports `rule` broken by the module as a whole (no one instruction is at fault).
    pub fn module_error(&mut self, rule: Rule, message: impl Into<String>) {
        if !self.full() {
            self.diags.push(rule_error(rule, message));
        }
    }

    fn finish_phase(&mut self) -> Result<(), Diagnostics> {
        if self.diags.is_empty() {
            Ok(())
        } else {
            Err(Diagnostics(std::mem::take(&mut self.diags)))
        }
    }

    /// The defining instruction of a definition.
    pub fn def_inst(&self, def: &Def) -> &'m Inst {
        def_inst(self.module, def)
    }
}

/// The defining instruction of a definition in `m`.
pub(crate) fn def_inst<'m>(m: &'m Module, def: &Def) -> &'m Inst {
    match def.site {
        Site::Global(i) => &m.globals[i],
        Site::Function(f) => &m.functions[f].def,
        Site::Param(f, p) => &m.functions[f].params[p],
        Site::Label(f, b) => &m.functions[f].blocks[b].label,
        Site::Block(f, b, i) => &m.functions[f].blocks[b].insts[i],
    }
}

/// The value of an integer (or bool) constant expression, spec constants at their defaults.
pub(crate) fn const_int(valid: &ValidModule, id: Word) -> Option<i64> {
    consteval::int_value(&valid.module, &valid.defs, &valid.types, id)
}

/// The ids an instruction uses, with their operand index (`None` for the result type).
pub(crate) fn used_ids(inst: &Inst) -> impl Iterator<Item = (Option<usize>, Word)> + '_ {
    inst.op.result_type.map(|t| (None, t)).into_iter().chain(
        inst.op
            .operands
            .iter()
            .enumerate()
            .filter_map(|(i, o)| match o {
                rspirv::dr::Operand::IdRef(id)
                | rspirv::dr::Operand::IdScope(id)
                | rspirv::dr::Operand::IdMemorySemantics(id) => Some((Some(i), *id)),
                _ => None,
            }),
    )
}

impl ValidModule {
    /// Fills in what a later stage's diagnostics cannot know: the instruction at their span,
    /// disassembled, and its `OpLine` source position.
    pub fn annotate(&self, diags: mir::Diagnostics) -> mir::Diagnostics {
        let printer = crate::disasm::Printer::new(&self.module);
        let annotated = diags
            .0
            .into_iter()
            .map(|mut d| {
                let Some(span) = d.span else { return d };
                if d.instruction.is_none() {
                    if let Some(inst) = self.module.insts().find(|i| i.span.ordinal == span.ordinal)
                    {
                        d.instruction = Some(printer.inst(&inst.op));
                    }
                }
                if d.source.is_none() {
                    d.source = span.source.map(|pos| {
                        let file = self
                            .module
                            .source_files
                            .get(pos.file as usize)
                            .map_or("<unknown file>", String::as_str);
                        format!("{file}:{}", pos.line)
                    });
                }
                d
            })
            .collect();
        mir::Diagnostics(annotated)
    }
}
