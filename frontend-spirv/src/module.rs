//! The loaded module: rspirv's instructions in stream order, each with its span.
//!
//! rspirv's own `dr::Loader` sorts instructions into per-section lists, which loses the order
//! the logical-layout rules (§2.4) are about, and it has no place for a span. Our reader keeps
//! the stream order of everything before the first function and the nesting of functions and
//! blocks after it, with an [`mir::Span`] on every instruction. [`Module::to_dr`] gives rspirv's
//! form back for tools that want it.

use mir::hash::HashMap;

use mir::Span;
use rspirv::dr;
use spirv::{Op, Word};

/// The five header words, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// SPIR-V version (major, minor), 1.0 to 1.6.
    pub version: (u8, u8),
    /// The generator's magic number (word 2), as written by the producer.
    pub generator: u32,
    /// The id bound: every id satisfies 0 < id < bound.
    pub bound: u32,
    /// Whether the file was big-endian (we accept either byte order).
    pub big_endian: bool,
}

/// One instruction with the place it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// The instruction as rspirv decoded it.
    pub op: dr::Instruction,
    /// Ordinal, word offset and `OpLine` position.
    pub span: Span,
}

impl Inst {
    /// The opcode.
    pub fn opcode(&self) -> Op {
        self.op.class.opcode
    }

    /// The result id, if the instruction has one.
    pub fn result_id(&self) -> Option<Word> {
        self.op.result_id
    }

    /// The result type id, if the instruction has one.
    pub fn result_type(&self) -> Option<Word> {
        self.op.result_type
    }

    /// Operand `i` as an id, if it is one.
    pub fn id_operand(&self, i: usize) -> Option<Word> {
        match self.op.operands.get(i)? {
            dr::Operand::IdRef(id)
            | dr::Operand::IdScope(id)
            | dr::Operand::IdMemorySemantics(id) => Some(*id),
            _ => None,
        }
    }

    /// Operand `i` as a 32-bit literal, if it is one.
    pub fn literal_operand(&self, i: usize) -> Option<u32> {
        match self.op.operands.get(i)? {
            dr::Operand::LiteralBit32(v) | dr::Operand::LiteralExtInstInteger(v) => Some(*v),
            _ => None,
        }
    }

    /// Operand `i` as a string, if it is one.
    pub fn string_operand(&self, i: usize) -> Option<&str> {
        match self.op.operands.get(i)? {
            dr::Operand::LiteralString(s) => Some(s),
            _ => None,
        }
    }
}

/// A block: its label and its instructions, the last of which is the terminator.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The `OpLabel`.
    pub label: Inst,
    /// The instructions after the label; never empty, and the last one is a terminator.
    pub insts: Vec<Inst>,
}

impl Block {
    /// The block's label id.
    pub fn id(&self) -> Word {
        self.label.result_id().unwrap_or(0)
    }

    /// The terminator (the reader guarantees there is one).
    pub fn terminator(&self) -> &Inst {
        self.insts.last().unwrap_or(&self.label)
    }

    /// The instruction just before the terminator, if any.
    pub fn before_terminator(&self) -> Option<&Inst> {
        self.insts.len().checked_sub(2).map(|i| &self.insts[i])
    }
}

/// A function: definition, parameters, blocks (none for a declaration) and end.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The `OpFunction`.
    pub def: Inst,
    /// The `OpFunctionParameter`s.
    pub params: Vec<Inst>,
    /// The blocks in the order they appear; the first is the entry block.
    pub blocks: Vec<Block>,
    /// The `OpFunctionEnd`.
    pub end: Inst,
}

impl Function {
    /// The function's result id.
    pub fn id(&self) -> Word {
        self.def.result_id().unwrap_or(0)
    }
}

/// A SPIR-V module as read from its binary form.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The decoded header.
    pub header: Header,
    /// Every instruction before the first `OpFunction`, in stream order (`OpLine`/`OpNoLine`
    /// are not kept as instructions: their positions live in the spans).
    pub globals: Vec<Inst>,
    /// The functions, in stream order.
    pub functions: Vec<Function>,
    /// File names named by `OpLine`, indexed by [`mir::SourcePos::file`].
    pub source_files: Vec<String>,
    /// Result ids of the non-semantic instructions the reader dropped (NonSemantic.* and the
    /// OpenCL/DXC debug-info sets): names and decorations may refer to them, code may not.
    pub dropped_ids: Vec<Word>,
    /// How many instructions the binary holds, dropped ones included.
    pub instruction_count: u32,
    /// The names ids had in the assembly text this module was assembled from (empty for a
    /// binary), so that diagnostics speak of `%color` rather than `%12`.
    pub text_names: HashMap<Word, String>,
}

impl Module {
    /// Every instruction, in stream order (functions after globals).
    pub fn insts(&self) -> impl Iterator<Item = &Inst> {
        self.globals
            .iter()
            .chain(self.functions.iter().flat_map(|f| {
                std::iter::once(&f.def)
                    .chain(f.params.iter())
                    .chain(
                        f.blocks
                            .iter()
                            .flat_map(|b| std::iter::once(&b.label).chain(b.insts.iter())),
                    )
                    .chain(std::iter::once(&f.end))
            }))
    }

    /// The module in rspirv's data representation (for its disassembler and assembler).
    pub fn to_dr(&self) -> dr::Module {
        let mut m = dr::Module::new();
        let mut header = dr::ModuleHeader::new(self.header.bound);
        header.set_version(self.header.version.0, self.header.version.1);
        header.generator = self.header.generator;
        m.header = Some(header);
        for inst in &self.globals {
            let op = inst.op.clone();
            match inst.opcode() {
                Op::Capability => m.capabilities.push(op),
                Op::Extension => m.extensions.push(op),
                Op::ExtInstImport => m.ext_inst_imports.push(op),
                Op::MemoryModel => m.memory_model = Some(op),
                Op::EntryPoint => m.entry_points.push(op),
                Op::ExecutionMode | Op::ExecutionModeId => m.execution_modes.push(op),
                Op::String | Op::SourceExtension | Op::Source | Op::SourceContinued => {
                    m.debug_string_source.push(op)
                }
                Op::Name | Op::MemberName => m.debug_names.push(op),
                Op::ModuleProcessed => m.debug_module_processed.push(op),
                code if code.is_annotation() => m.annotations.push(op),
                _ => m.types_global_values.push(op),
            }
        }
        for f in &self.functions {
            let mut df = dr::Function::new();
            df.def = Some(f.def.op.clone());
            df.parameters = f.params.iter().map(|p| p.op.clone()).collect();
            df.blocks = f
                .blocks
                .iter()
                .map(|b| {
                    let mut db = dr::Block::new();
                    db.label = Some(b.label.op.clone());
                    db.instructions = b.insts.iter().map(|i| i.op.clone()).collect();
                    db
                })
                .collect();
            df.end = Some(f.end.op.clone());
            m.functions.push(df);
        }
        m
    }
}
