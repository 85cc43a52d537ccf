//! The assembler's state: the code being built, the block stack, procedures, per-file aliases
//! and labels, per-DVLE tables and the uniform allocators; the line loop; and the final step that
//! resolves procedure calls and entry points, encodes and builds the [`ShaderBinary`].

use std::collections::HashMap;

use super::AsmError;
use super::operand::{Alias, Reg};
use super::text;
use crate::encode;
use crate::float24::F24;
use crate::inst::Inst;
use crate::limits;
use crate::operand::Target;
use crate::padding::{self, Closing};
use crate::shbin::{self, Constant, GeometryParams, Output, ShaderBinary, ShaderType, Uniform};

/// picasso's register numbering for uniforms: v 0x00, c 0x20, i 0x80, b 0x88.
pub(super) const FVEC_BASE: u16 = 0x20;
pub(super) const IVEC_BASE: u16 = 0x80;
pub(super) const BOOL_BASE: u16 = 0x88;

/// The three kinds of uniform declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UniformKind {
    Float,
    Int,
    Bool,
}

impl UniformKind {
    /// The register at picasso position `pos`.
    pub(super) fn reg(self, pos: u16) -> Reg {
        match self {
            UniformKind::Float => Reg::Const((pos - FVEC_BASE) as u8),
            UniformKind::Int => Reg::Int((pos - IVEC_BASE) as u8),
            UniformKind::Bool => Reg::Bool((pos - BOOL_BASE) as u8),
        }
    }
}

/// picasso's `UniformAlloc`: globals grow upward from `start`, locals downward from `end`, and
/// neither may cross the other.
#[derive(Clone, Copy, Debug)]
pub(super) struct Alloc {
    start: u16,
    end: u16,
    bound: u16,
    top: u16,
}

impl Alloc {
    fn new(start: u16, end: u16) -> Alloc {
        Alloc {
            start,
            end,
            bound: end,
            top: end,
        }
    }

    pub(super) fn global(&mut self, size: u16) -> Option<u16> {
        if self.start + size > self.bound {
            return None;
        }
        let pos = self.start;
        self.start += size;
        Some(pos)
    }

    /// A global at `pos` (`.fvec name c4`): where nothing is yet, at or after the globals so
    /// far (the registers skipped stay free); the next globals follow it.
    pub(super) fn global_at(&mut self, pos: u16, size: u16) -> Option<u16> {
        if pos < self.start || pos + size > self.bound {
            return None;
        }
        self.start = pos + size;
        Some(pos)
    }

    pub(super) fn local(&mut self, size: u16) -> Option<u16> {
        let pos = self.end.checked_sub(size)?;
        if pos < self.start {
            return None;
        }
        self.bound = self.bound.min(pos);
        self.end = pos;
        Some(pos)
    }

    fn clear_local(&mut self) {
        self.end = self.top;
    }
}

/// One uniform space's allocators.
#[derive(Clone, Copy, Debug)]
pub(super) struct Space {
    pub(super) fvec: Alloc,
    pub(super) ivec: Alloc,
    pub(super) bool: Alloc,
}

impl Space {
    pub(super) fn new(first_free: u16, bool_end: u16) -> Space {
        Space {
            fvec: Alloc::new(first_free, 0x80),
            ivec: Alloc::new(IVEC_BASE, 0x84),
            bool: Alloc::new(BOOL_BASE, bool_end),
        }
    }

    pub(super) fn get(&mut self, kind: UniformKind) -> &mut Alloc {
        match kind {
            UniformKind::Float => &mut self.fvec,
            UniformKind::Int => &mut self.ivec,
            UniformKind::Bool => &mut self.bool,
        }
    }
}

/// A uniform in the shared vertex-shader space.
#[derive(Clone, Debug)]
pub(super) struct GlobalUniform {
    pub(super) name: String,
    pub(super) pos: u16,
    pub(super) size: u16,
    pub(super) kind: UniformKind,
}

/// A constant as declared (floats are converted to f24 when the binary is built).
#[derive(Clone, Copy, Debug)]
pub(super) enum ConstDecl {
    Float(u8, [f32; 4]),
    Int(u8, [u8; 4]),
    Bool(u8, bool),
}

/// What one file contributes to its DVLE.
#[derive(Clone, Debug, Default)]
pub(super) struct DvleState {
    /// The index of the file that made it.
    pub(super) source: usize,
    pub(super) entry: String,
    pub(super) nodvle: bool,
    pub(super) geo: bool,
    pub(super) compat_geo: bool,
    pub(super) merge: bool,
    pub(super) input_mask: u16,
    pub(super) output_mask: u16,
    pub(super) output_used: u32,
    pub(super) geometry: GeometryParams,
    /// (name, picasso position, size): inputs at 0x00–0x0F.
    pub(super) uniforms: Vec<(String, u16, u16)>,
    pub(super) constants: Vec<ConstDecl>,
    pub(super) outputs: Vec<Output>,
}

impl DvleState {
    pub(super) fn uses_gsh_space(&self) -> bool {
        self.geo && !self.compat_geo
    }

    pub(super) fn max_output(&self) -> u8 {
        if self.geo {
            limits::GEOMETRY_OUTPUT_REGISTERS
        } else {
            limits::OUTPUT_REGISTERS
        }
    }
}

/// An open block.
#[derive(Clone, Debug)]
pub(super) enum BlockKind {
    Proc(String),
    For,
    If {
        else_start: Option<usize>,
    },
    Array {
        name: String,
        size: Option<usize>,
        elems: Vec<[f32; 4]>,
    },
}

#[derive(Clone, Debug)]
pub(super) struct Block {
    pub(super) kind: BlockKind,
    pub(super) pos: usize,
    /// Where it opened, for an error if it never closes.
    pub(super) line: usize,
    pub(super) text: String,
}

/// A reference to a procedure or label, resolved later.
#[derive(Clone, Debug)]
pub(super) struct Reloc {
    pub(super) at: usize,
    pub(super) name: String,
    pub(super) file: String,
    pub(super) line: usize,
    /// The line's text, for the column of an error.
    pub(super) text: String,
}

/// Per-file state (picasso clears it before each file).
#[derive(Clone, Debug, Default)]
pub(super) struct FileState {
    pub(super) name: String,
    pub(super) line: usize,
    /// The current line's text.
    pub(super) text: String,
    pub(super) aliases: HashMap<String, Alias>,
    pub(super) labels: HashMap<String, usize>,
    pub(super) label_relocs: Vec<Reloc>,
    pub(super) dvle: Option<usize>,
    /// Its place in the command line.
    pub(super) index: usize,
}

pub(crate) struct Assembler {
    pub(super) code: Vec<Inst>,
    pub(super) stack: Vec<Block>,
    pub(super) last_was_end: bool,
    pub(super) procs: HashMap<String, (usize, usize)>,
    pub(super) proc_relocs: Vec<Reloc>,
    pub(super) dvles: Vec<DvleState>,
    pub(super) globals: Vec<GlobalUniform>,
    pub(super) shared: Space,
    pub(super) gsh: Space,
    pub(super) file: FileState,
    pub(super) options: super::Options,
    pub(super) warnings: Vec<AsmError>,
}

/// picasso's limit on nested blocks.
const MAX_STACK: usize = 32;

impl Assembler {
    pub(crate) fn new(options: super::Options) -> Assembler {
        Assembler {
            code: Vec::new(),
            stack: Vec::new(),
            last_was_end: false,
            procs: HashMap::default(),
            proc_relocs: Vec::new(),
            dvles: Vec::new(),
            globals: Vec::new(),
            shared: Space::new(FVEC_BASE, 0x98),
            gsh: Space::new(FVEC_BASE, 0x97),
            file: FileState::default(),
            options,
            warnings: Vec::new(),
        }
    }

    /// An error at the current line.
    pub(super) fn err(&self, message: impl Into<String>) -> AsmError {
        AsmError::new(&self.file.name, self.file.line, message)
    }

    /// The current file's DVLE, created on first use (as picasso's `GetDvleData`).
    pub(super) fn dvle(&mut self) -> &mut DvleState {
        let index = match self.file.dvle {
            Some(i) => i,
            None => {
                self.dvles.push(DvleState {
                    source: self.file.index,
                    entry: "main".to_string(),
                    ..DvleState::default()
                });
                self.file.dvle = Some(self.dvles.len() - 1);
                self.dvles.len() - 1
            }
        };
        &mut self.dvles[index]
    }

    /// The output-register count of the current file's shader.
    pub(super) fn max_output(&mut self) -> u8 {
        self.dvle().max_output()
    }

    /// The allocators the current file's uniforms use.
    pub(super) fn space(&mut self) -> &mut Space {
        if self.dvle().uses_gsh_space() {
            &mut self.gsh
        } else {
            &mut self.shared
        }
    }

    pub(super) fn push_block(&mut self, kind: BlockKind) -> Result<(), AsmError> {
        if self.stack.len() == MAX_STACK {
            return Err(self.err("too many nested blocks"));
        }
        self.stack.push(Block {
            kind,
            pos: self.code.len(),
            line: self.file.line,
            text: self.file.text.clone(),
        });
        Ok(())
    }

    fn pad_if(&mut self, closing: Closing, start: usize) {
        let closed = self.last_was_end;
        if padding::needs_nop(&self.code, closing, start, closed) {
            if self.options.padding_nops {
                self.code.push(Inst::Nop);
            } else {
                // picasso -n: the NOP is left out, with a warning.
                self.warnings
                    .push(self.err("a padding NOP is required here").warning());
            }
        }
        if closed {
            self.last_was_end = false;
        }
    }

    pub(super) fn target(&self, addr: usize) -> Result<Target, AsmError> {
        Target::new(addr as u32).ok_or_else(|| self.err("code address beyond 4095"))
    }

    /// `.else`.
    pub(super) fn dir_else(&mut self, rest: &str) -> Result<(), AsmError> {
        if !rest.is_empty() {
            return Err(self.err("too many parameters"));
        }
        let (pos, done) = match self.stack.last() {
            Some(Block {
                kind: BlockKind::If { else_start },
                pos,
                ..
            }) => (*pos, else_start.is_some()),
            _ => return Err(self.err(".else with unmatched IF")),
        };
        if done {
            return Err(self.err("spurious .else"));
        }
        self.pad_if(Closing::Else, pos);
        let here = self.code.len();
        let t = self.target(here)?;
        if let Some(Inst::IfC { dst, .. } | Inst::IfU { dst, .. }) = self.code.get_mut(pos) {
            *dst = t;
        }
        if let Some(Block {
            kind: BlockKind::If { else_start },
            ..
        }) = self.stack.last_mut()
        {
            *else_start = Some(here);
        }
        Ok(())
    }

    /// `.end`.
    pub(super) fn dir_end(&mut self, rest: &str) -> Result<(), AsmError> {
        if !rest.is_empty() {
            return Err(self.err("too many parameters"));
        }
        let Some(block) = self.stack.pop() else {
            return Err(self.err(".end with unmatched block"));
        };
        let closing = match &block.kind {
            BlockKind::Proc(_) => Some(Closing::Proc),
            BlockKind::For => Some(Closing::Loop),
            BlockKind::If { .. } => Some(Closing::If),
            BlockKind::Array { .. } => None,
        };
        if let Some(closing) = closing {
            self.pad_if(closing, block.pos);
        }
        let here = self.code.len();
        match block.kind {
            BlockKind::Proc(name) => {
                self.procs.insert(name, (block.pos, here - block.pos));
            }
            BlockKind::For => {
                let t = self.target(here.saturating_sub(1))?;
                if let Some(Inst::Loop { last, .. }) = self.code.get_mut(block.pos) {
                    *last = t;
                }
                self.last_was_end = true;
            }
            BlockKind::If { else_start } => {
                match else_start {
                    None => {
                        let t = self.target(here)?;
                        if let Some(Inst::IfC { dst, .. } | Inst::IfU { dst, .. }) =
                            self.code.get_mut(block.pos)
                        {
                            *dst = t;
                        }
                    }
                    Some(start) => {
                        let n = u8::try_from(here - start).map_err(|_| {
                            self.err("else part longer than 255 words (NUM has 8 bits)")
                        })?;
                        if let Some(Inst::IfC { num, .. } | Inst::IfU { num, .. }) =
                            self.code.get_mut(block.pos)
                        {
                            *num = n;
                        }
                    }
                }
                self.last_was_end = true;
            }
            BlockKind::Array { name, size, elems } => self.finish_array(name, size, elems)?,
        }
        Ok(())
    }

    /// Assembles the file at `index` on the command line.
    pub(crate) fn assemble_file(
        &mut self,
        index: usize,
        name: &str,
        text: &str,
    ) -> Result<(), AsmError> {
        self.shared.fvec.clear_local();
        self.shared.ivec.clear_local();
        self.shared.bool.clear_local();
        self.file = FileState {
            index,
            name: name.to_string(),
            ..FileState::default()
        };
        let mut next_line = 1;
        for raw in text.split('\n') {
            self.file.line = next_line;
            next_line += 1;
            self.file.text = raw.to_string();
            let warned = self.warnings.len();
            self.assemble_line(raw, &mut next_line)
                .map_err(|e| e.locate(raw))?;
            for w in &mut self.warnings[warned..] {
                *w = std::mem::take(w).locate(raw);
            }
        }
        if let Some(open) = self.stack.last() {
            // Where the innermost open block began (picasso names the end of the file).
            return Err(AsmError::new(
                &self.file.name,
                open.line,
                "unclosed block(s): this block has no .end",
            )
            .locate(&open.text));
        }
        let relocs = std::mem::take(&mut self.file.label_relocs);
        for r in relocs {
            let Some(&addr) = self.file.labels.get(&r.name) else {
                return Err(AsmError::new(
                    &r.file,
                    r.line,
                    format!("label '{}' is undefined", r.name),
                )
                .locate(&r.text));
            };
            let t = self.target(addr)?;
            match self.code.get_mut(r.at) {
                Some(Inst::JmpC { target, .. } | Inst::JmpU { target, .. }) => *target = t,
                _ => return Err(self.err("internal: label relocation on a non-jump")),
            }
        }
        Ok(())
    }

    /// Assembles one line; `next_line` is the number the next line gets (a `#` line marker
    /// changes it).
    fn assemble_line(&mut self, raw: &str, next_line: &mut usize) -> Result<(), AsmError> {
        let line = text::split_line(raw);
        for label in &line.labels {
            if !text::is_identifier(label) {
                return Err(self.err(format!("invalid label name: {label}")));
            }
            if self
                .file
                .labels
                .insert(label.to_string(), self.code.len())
                .is_some()
            {
                return Err(self.err(format!("duplicate label: {label}")));
            }
        }
        let Some(command) = line.command else {
            return Ok(());
        };
        if let Some(marker) = command.strip_prefix('#') {
            // A `# N "file"` line marker from cpp: the next line is line N of that file.
            let words = text::blank_args(marker.trim_start());
            let mut parts = words
                .iter()
                .chain(text::blank_args(line.rest).iter())
                .copied()
                .collect::<Vec<_>>();
            parts.retain(|p| !p.is_empty());
            if let Some(n) = parts.first().and_then(|n| text::parse_uint(n)) {
                *next_line = n as usize;
            }
            if let Some(f) = parts.get(1) {
                self.file.name = f.trim_matches('"').to_string();
            }
            return Ok(());
        }
        if let Some(directive) = command.strip_prefix('.') {
            self.directive(&directive.to_ascii_lowercase(), line.rest)?;
        } else {
            self.instruction(&command.to_ascii_lowercase(), line.rest)?;
        }
        Ok(())
    }

    /// Resolves procedures and entry points, encodes, and builds the binary.
    pub(crate) fn finish(mut self) -> Result<super::Assembled, AsmError> {
        let relocs = std::mem::take(&mut self.proc_relocs);
        for r in relocs {
            let at_err = |message: String| AsmError::new(&r.file, r.line, message).locate(&r.text);
            let &(start, size) = self
                .procs
                .get(&r.name)
                .ok_or_else(|| at_err(format!("procedure '{}' is undefined", r.name)))?;
            let t = Target::new(start as u32)
                .ok_or_else(|| at_err("code address beyond 4095".into()))?;
            let n = u8::try_from(size).map_err(|_| {
                at_err(format!(
                    "procedure '{}' is {size} words; NUM has 8 bits",
                    r.name
                ))
            })?;
            match self.code.get_mut(r.at) {
                Some(
                    Inst::Call { target, num }
                    | Inst::CallC { target, num, .. }
                    | Inst::CallU { target, num, .. },
                ) => {
                    *target = t;
                    *num = n;
                }
                _ => {
                    return Err(at_err(
                        "internal: procedure relocation on a non-call".into(),
                    ));
                }
            }
        }
        let last_file = self.file.name.clone();
        let fail = |message: String| AsmError::new(&last_file, 0, message);
        if self.dvles.iter().all(|d| d.nodvle) {
            return Err(fail(
                "no DVLEs can be generated from the given input file(s)".into(),
            ));
        }
        let program = encode::encode_program_with_limit(&self.code, limits::MAX_CODE_WORDS)
            .map_err(|e| fail(e.to_string()))?;
        let mut dvles = Vec::new();
        for d in self.dvles.iter().filter(|d| !d.nodvle) {
            let &(start, size) = self
                .procs
                .get(&d.entry)
                .ok_or_else(|| fail(format!("entrypoint '{}' is undefined", d.entry)))?;
            let constants = d
                .constants
                .iter()
                .map(|c| match *c {
                    ConstDecl::Float(reg, v) => Constant::Float {
                        reg,
                        value: v.map(F24::from_f32_picasso),
                    },
                    ConstDecl::Int(reg, value) => Constant::Int { reg, value },
                    ConstDecl::Bool(reg, value) => Constant::Bool { reg, value },
                })
                .collect();
            let mut sorted = d.uniforms.clone();
            sorted.sort_by_key(|u| u.1);
            let uniforms = sorted
                .into_iter()
                .map(|(name, pos, size)| {
                    let start = if pos >= FVEC_BASE { pos - 0x10 } else { pos };
                    Uniform {
                        name: name.replace('$', "."),
                        start,
                        end: start + size - 1,
                    }
                })
                .collect();
            dvles.push(shbin::Dvle {
                shader_type: if d.geo {
                    ShaderType::Geometry
                } else {
                    ShaderType::Vertex
                },
                merge_outmaps: d.merge,
                entry_start: start as u32,
                entry_end: (start + size) as u32,
                input_mask: d.input_mask,
                output_mask: d.output_mask,
                geometry: d.geometry,
                constants,
                outputs: d.outputs.clone(),
                uniforms,
            });
        }
        let header = self.header();
        let sources = self
            .dvles
            .iter()
            .filter(|d| !d.nodvle)
            .map(|d| d.source)
            .collect();
        Ok(super::Assembled {
            sources,
            binary: ShaderBinary {
                code: program.code,
                descriptors: program.descriptors,
                dvles,
            },
            header,
            warnings: self.warnings,
        })
    }

    /// picasso's `-h` header: every declaration in the shared (vertex) uniform space, in
    /// order and once per declaration (a uniform declared by two files is listed twice), but
    /// not the hidden `_` ones; the prefix is `GSH` when the first file's shader is a geometry
    /// shader, else `VSH`.
    fn header(&self) -> String {
        let prefix = match self.dvles.first() {
            Some(d) if d.geo => "GSH",
            _ => "VSH",
        };
        let mut h = String::from("// Generated by picasso\n#pragma once\n");
        for u in self.globals.iter().filter(|u| !u.name.starts_with('_')) {
            let name = &u.name;
            match u.kind {
                UniformKind::Float => {
                    h += &format!("#define {prefix}_FVEC_{name} 0x{:02X}\n", u.pos - FVEC_BASE)
                }
                UniformKind::Int => {
                    h += &format!("#define {prefix}_IVEC_{name} 0x{:02X}\n", u.pos - IVEC_BASE)
                }
                UniformKind::Bool if u.size == 1 => {
                    h += &format!("#define {prefix}_FLAG_{name} BIT({})\n", u.pos - BOOL_BASE)
                }
                UniformKind::Bool => {
                    h += &format!(
                        "#define {prefix}_FLAG_{name}(_n) BIT({}+(_n))\n",
                        u.pos - BOOL_BASE
                    )
                }
            }
            h += &format!("#define {prefix}_ULEN_{name} {}\n", u.size);
        }
        h
    }
}
