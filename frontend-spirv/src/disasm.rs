//! One-line disassembly of an instruction for diagnostics, in spirv-dis syntax.
//!
//! rspirv's `Disassemble` prints raw id numbers and float literals as their bit patterns
//! (`OpConstant %6 1065353216`). A person reading an error wants `%color` and `1.0`, so ids
//! print through the module's `OpName`s (when a name is unique) and constants through their
//! type.

use mir::hash::HashMap;

use rspirv::binary::Disassemble;
use rspirv::dr::{self, Operand};
use spirv::{Op, Word};

use crate::module::Module;

/// Names and literal types, gathered once per module.
#[derive(Default)]
pub struct Printer {
    names: HashMap<Word, String>,
    /// Float type id → width, to print constants as numbers.
    float_types: HashMap<Word, u32>,
    /// Ids of GLSL.std.450 imports, to print extended instructions by name.
    glsl_sets: Vec<Word>,
}

impl Printer {
    /// Collects names and types from `module`.
    pub fn new(module: &Module) -> Self {
        let mut counts: HashMap<&str, u32> = HashMap::default();
        let mut named = Vec::new();
        let mut printer = Printer::default();
        for inst in &module.globals {
            match inst.opcode() {
                Op::Name => {
                    if let (Some(id), Some(name)) = (inst.id_operand(0), inst.string_operand(1)) {
                        if is_identifier(name) {
                            *counts.entry(name).or_default() += 1;
                            named.push((id, name));
                        }
                    }
                }
                Op::TypeFloat => {
                    if let (Some(id), Some(width)) = (inst.result_id(), inst.literal_operand(0)) {
                        printer.float_types.insert(id, width);
                    }
                }
                Op::ExtInstImport if inst.string_operand(0) == Some("GLSL.std.450") => {
                    printer.glsl_sets.extend(inst.result_id());
                }
                _ => {}
            }
        }
        for (id, name) in named {
            if counts[name] == 1 {
                printer.names.insert(id, name.to_string());
            }
        }
        // The assembly text's own names win: they are what the user wrote.
        for (&id, name) in &module.text_names {
            printer.names.insert(id, name.clone());
        }
        printer
    }

    /// `%name` for a uniquely named id, else `%N`.
    pub fn id(&self, id: Word) -> String {
        match self.names.get(&id) {
            Some(name) => format!("%{name}"),
            None => format!("%{id}"),
        }
    }

    /// The instruction on one line, spirv-dis style.
    pub fn inst(&self, inst: &dr::Instruction) -> String {
        let mut out = String::new();
        if let Some(id) = inst.result_id {
            out.push_str(&self.id(id));
            out.push_str(" = ");
        }
        out.push_str("Op");
        out.push_str(inst.class.opname);
        if let Some(ty) = inst.result_type {
            out.push(' ');
            out.push_str(&self.id(ty));
        }
        let float_width = match inst.class.opcode {
            Op::Constant | Op::SpecConstant => inst
                .result_type
                .and_then(|t| self.float_types.get(&t).copied()),
            _ => None,
        };
        let glsl = inst.class.opcode == Op::ExtInst
            && matches!(inst.operands.first(), Some(Operand::IdRef(set)) if self.glsl_sets.contains(set));
        for operand in &inst.operands {
            out.push(' ');
            out.push_str(&self.operand(operand, float_width, glsl));
        }
        // A diagnostic shows one line; OpSource can carry a whole shader.
        const MAX: usize = 120;
        if out.chars().count() > MAX {
            out = out.chars().take(MAX).collect::<String>() + " ...";
        }
        out
    }

    fn operand(&self, operand: &Operand, float_width: Option<u32>, glsl: bool) -> String {
        match *operand {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => {
                self.id(id)
            }
            Operand::LiteralBit32(bits) => match float_width {
                Some(32) => format_float(f32::from_bits(bits), bits),
                Some(16) => format!("0x{bits:04x}"),
                _ => bits.to_string(),
            },
            Operand::LiteralBit64(bits) => match float_width {
                Some(64) => format_float(f64::from_bits(bits), bits),
                _ => bits.to_string(),
            },
            Operand::LiteralString(ref s) => quote(s),
            Operand::LiteralExtInstInteger(n) if glsl => spirv::GlslStd450Op::from_u32(n)
                .map_or_else(|| n.to_string(), |op| format!("{op:?}")),
            Operand::LiteralSpecConstantOpInteger(op) => format!("{op:?}"),
            _ => operand.disassemble(),
        }
    }
}

/// Floats print as the shortest decimal that reads back exactly when finite, and as their bit
/// pattern when not (an infinity or a NaN payload has no decimal spelling).
fn format_float<F: std::fmt::Debug + Copy, B: std::fmt::LowerHex>(value: F, bits: B) -> String
where
    f64: From<F>,
{
    if f64::from(value).is_finite() {
        let text = format!("{value:?}");
        text.strip_suffix(".0").unwrap_or(&text).to_string()
    } else {
        format!("!0x{bits:x}")
    }
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn is_identifier(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
