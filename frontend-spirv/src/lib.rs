//! The SPIR-V front end: load a module (binary or assembly text), validate it, and (later)
//! lower it to MIR.
//!
//! ```text
//!  .spvasm text ──► asm::assemble ──┐
//!                                   ├─► reader::read ──► Module ──► validate ──► ValidModule
//!  .spv bytes (either byte order) ──┘    (spans, OpLine,              (rules.rs: layout, ids,
//!                                         non-semantic dropped)        types, structured CFG,
//!                                                                      capabilities)
//! ```
//!
//! Every error is a [`mir::Diagnostic`] that names a [`Rule`], the instruction (ordinal, word
//! offset, disassembly, and line and column when the input was text) and the `OpLine` source
//! position when the module has one.
#![deny(missing_docs)]

pub mod asm;
mod disasm;
pub mod entry;
mod grammar;
pub mod lower;
pub mod module;
mod reader;
mod rules;
pub mod validate;

pub use module::{Block, Function, Header, Inst, Module};
pub use rules::{FrontRule, Rule};
pub use validate::ValidModule;

use mir::Diagnostics;

/// The input to [`load`]: a binary or assembly text.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// A SPIR-V binary in either byte order.
    Binary(&'a [u8]),
    /// SPIR-V assembly text (`.spvasm`).
    Text(&'a str),
}

impl<'a> Input<'a> {
    /// Tells a binary from text by the magic number: anything that does not start with it in
    /// either byte order and is UTF-8 is taken as assembly text.
    pub fn detect(bytes: &'a [u8]) -> Input<'a> {
        let magic = spirv::MAGIC_NUMBER.to_le_bytes();
        let swapped = spirv::MAGIC_NUMBER.to_be_bytes();
        if bytes.starts_with(&magic) || bytes.starts_with(&swapped) {
            return Input::Binary(bytes);
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Input::Text(text),
            Err(_) => Input::Binary(bytes),
        }
    }
}

/// Options for [`load`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// How assembly text is assembled (version, id numbering).
    pub asm: asm::Options,
}

/// Reads and validates a module: the entry point later stages use.
pub fn load(input: Input<'_>, options: &Options) -> Result<ValidModule, Diagnostics> {
    let (module, assembled) = read(input, options)?;
    validate::validate(module).map_err(|ds| locate_in_text(ds, assembled.as_ref()))
}

/// Reads a module from `input` without validating it.
pub fn parse(input: Input<'_>, options: &Options) -> Result<Module, Diagnostics> {
    read(input, options).map(|(module, _)| module)
}

/// Reads a module, assembling it first when it is text (the assembly is kept to point
/// diagnostics at the text).
fn read(
    input: Input<'_>,
    options: &Options,
) -> Result<(Module, Option<asm::Assembled>), Diagnostics> {
    match input {
        Input::Binary(bytes) => {
            let module = reader::read(bytes).map_err(|d| Diagnostics::from(*d))?;
            Ok((module, None))
        }
        Input::Text(text) => {
            let assembled = asm::assemble(text, &options.asm)?;
            let bytes: Vec<u8> = assembled
                .words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let mut module = reader::read(&bytes)
                .map_err(|d| locate_in_text(Diagnostics::from(*d), Some(&assembled)))?;
            module.text_names = assembled.id_names.iter().cloned().collect();
            Ok((module, Some(assembled)))
        }
    }
}

/// Points diagnostics about an assembled module at their instructions' text.
fn locate_in_text(mut diags: Diagnostics, assembled: Option<&asm::Assembled>) -> Diagnostics {
    let Some(assembled) = assembled else {
        return diags;
    };
    for diag in &mut diags.0 {
        if let Some(span) = diag.span {
            if span.ordinal > 0 {
                diag.text_range = assembled.inst_text.get(span.ordinal as usize - 1).cloned();
            }
        }
    }
    diags
}
