//! The MIR printer (`--emit mir`, golden tests): one line per instruction, values as `vN`,
//! blocks as `bN`, operands with their modifiers and swizzles as a shader assembler writes
//! them (`-|v3|.zyx`), and the source line an instruction came from when the module has one.
//! [`crate::read`] reads it back.
//!
//! ```text
//! vertex "main"
//!   input i0 "position" location 0 vec4
//!   output "gl_Position" Position vec4
//!   uniform u0..u3 "mvp" mat4 row_major (block Camera)
//!   uniform u4 "center" vec2 default [200.0, 200.0]
//!   sampler s0 "tex" binding 0 D2
//!
//! fn main() -> vec4 {
//! b0:
//!   v0: vec4 = input 0
//!   v1: vec4 = uniform u0
//!   v2: f32 = dot4 v0, v1              ; shader.vert:9
//!   ...
//!   return v9
//! }
//! ```

use std::fmt::Write;

use crate::func::{Function, Structure, Terminator};
use crate::inst::Operand;
use crate::module::Module;
use crate::shape::operand_lanes;

/// The whole module as text.
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {}",
        module.stage.name(),
        quoted(&module.entry_point)
    );
    if let Some(g) = module.geometry {
        let _ = writeln!(
            out,
            "  primitives {} -> {}, max_vertices {}",
            g.input.name(),
            g.output.name(),
            g.max_vertices
        );
    }
    for (id, input) in module.inputs.iter() {
        let _ = write!(
            out,
            "  input i{} {} location {} {}",
            id.index(),
            quoted(&input.name),
            input.location,
            crate::types::Ty::float(input.lanes)
        );
        if let Some(v) = input.vertex {
            let _ = write!(out, " vertex {v}");
        }
        if let Some(b) = input.builtin {
            let _ = write!(out, " {b:?}");
        }
        out.push('\n');
    }
    for output in &module.outputs {
        let place = match (output.builtin, output.location) {
            (Some(b), _) => format!("{b:?}"),
            (None, Some(l)) => format!("location {l}"),
            (None, None) => "?".into(),
        };
        let _ = writeln!(
            out,
            "  output {} {place} {}",
            quoted(&output.name),
            crate::types::Ty::float(output.lanes)
        );
    }
    for u in &module.uniforms {
        let space = if u.is_bool { "b" } else { "u" };
        let regs = if u.count > 1 {
            format!("{space}{}..{space}{}", u.register, u.register + u.count - 1)
        } else {
            format!("{space}{}", u.register)
        };
        let component = if u.component > 0 {
            format!(".{}", ['x', 'y', 'z', 'w'][u.component as usize & 3])
        } else {
            String::new()
        };
        let layout = u.layout.map_or(String::new(), |l| format!(" {}", l.name()));
        let block = u
            .block
            .as_ref()
            .map_or(String::new(), |b| format!(" (block {b})"));
        let default = u.default.as_ref().map_or(String::new(), |d| {
            let lanes: Vec<String> = d.iter().map(|v| format!("{v:?}")).collect();
            format!(" default [{}]", lanes.join(", "))
        });
        let _ = writeln!(
            out,
            "  uniform {regs}{component} {} {}{layout}{block}{default}",
            quoted(&u.name),
            u.type_name
        );
    }
    for (id, s) in module.samplers.iter() {
        let _ = writeln!(
            out,
            "  sampler s{} {} binding {} {:?}",
            id.index(),
            quoted(&s.name),
            s.binding,
            s.dim
        );
    }
    out.push('\n');
    out.push_str(&print_function(Some(module), &module.function));
    out
}

/// One function as text (`module` gives sampler shapes, outputs and source files).
pub fn print_function(module: Option<&Module>, f: &Function) -> String {
    let mut out = String::new();
    let returns: Vec<String> = module
        .map(|m| {
            m.outputs
                .iter()
                .map(|o| crate::types::Ty::float(o.lanes).to_string())
                .collect()
        })
        .unwrap_or_default();
    // A name that is not an identifier is quoted.
    let plain = f
        .name
        .chars()
        .enumerate()
        .all(|(i, c)| c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()))
        && !f.name.is_empty();
    let name = if plain {
        f.name.clone()
    } else {
        quoted(&f.name)
    };
    let _ = writeln!(out, "fn {name}() -> ({}) {{", returns.join(", "));
    for (li, l) in f.locals.iter() {
        let _ = writeln!(out, "  local l{}: {} {}", li.index(), l.ty, quoted(&l.name));
    }
    for &b in &f.layout {
        let block = &f.blocks[b];
        let params: Vec<String> = if b == f.entry {
            Vec::new()
        } else {
            block
                .params
                .iter()
                .map(|&p| format!("v{}: {}", p.index(), f.ty(p)))
                .collect()
        };
        let mut label = format!("b{}", b.index());
        if !params.is_empty() {
            label.push_str(&format!("({})", params.join(", ")));
        }
        label.push(':');
        match block.structure {
            Some(Structure::If { merge }) => {
                label.push_str(&format!("  ; if, merge b{}", merge.index()))
            }
            Some(Structure::Loop { merge, cont }) => label.push_str(&format!(
                "  ; loop, merge b{}, continue b{}",
                merge.index(),
                cont.index()
            )),
            Some(Structure::Region { merge }) => {
                label.push_str(&format!("  ; region, merge b{}", merge.index()))
            }
            None => {}
        }
        let _ = writeln!(out, "{label}");
        for &i in &block.insts {
            let inst = &f.insts[i];
            let mut line = String::from("  ");
            if !inst.results.is_empty() {
                let results: Vec<String> = inst
                    .results
                    .iter()
                    .map(|&r| format!("v{}: {}", r.index(), f.ty(r)))
                    .collect();
                line.push_str(&results.join(", "));
                line.push_str(" = ");
            }
            match inst.op {
                crate::inst::Op::Const(bits) => {
                    let ty = inst.result().map(|r| f.ty(r));
                    let lanes = ty.map_or(4, |t| t.lanes) as usize;
                    let vals: Vec<String> = bits[..lanes]
                        .iter()
                        .map(|&b| match ty.map(|t| t.kind) {
                            Some(crate::types::Kind::Bool) => (b != 0).to_string(),
                            _ => format!("{:?}", f32::from_bits(b)),
                        })
                        .collect();
                    line.push_str(&format!("const {}", vals.join(", ")));
                }
                op => line.push_str(&op.name()),
            }
            let args: Vec<String> = inst
                .args
                .iter()
                .enumerate()
                .map(|(k, a)| operand(f, a, operand_lanes(f, module, inst, k)))
                .collect();
            if !args.is_empty() {
                line.push(' ');
                line.push_str(&args.join(", "));
            }
            if let (Some(pos), Some(m)) = (inst.span.source, module) {
                let file = m
                    .source_files
                    .get(pos.file as usize)
                    .map_or("?", String::as_str);
                let pad = 40usize.saturating_sub(line.len());
                line.push_str(&" ".repeat(pad));
                line.push_str(&format!(" ; {file}:{}", pos.line));
            }
            let _ = writeln!(out, "{line}");
        }
        let term = match &block.term {
            Terminator::Jump(e) => format!("jump {}", edge(f, e)),
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => format!(
                "branch {}, {}, {}",
                operand(f, cond, 1),
                edge(f, then),
                edge(f, otherwise)
            ),
            Terminator::Return(values) => {
                // At least the output's lanes, so that a splat of a narrower value shows.
                let vals: Vec<String> = values
                    .iter()
                    .enumerate()
                    .map(|(k, v)| {
                        let output = module.and_then(|m| m.outputs.get(k)).map_or(1, |o| o.lanes);
                        operand(f, v, f.ty(v.value).lanes.max(output).min(4))
                    })
                    .collect();
                if vals.is_empty() {
                    "return".into()
                } else {
                    format!("return {}", vals.join(", "))
                }
            }
            Terminator::Discard => "discard".into(),
            Terminator::Unreachable => "unreachable".into(),
        };
        let _ = writeln!(out, "  {term}");
    }
    out.push_str("}\n");
    out
}

/// A name in quotes; quotes, backslashes and control characters in it escaped (`\"`, `\\`,
/// `\n`, `\u{7f}`).
pub fn quoted(name: &str) -> String {
    let mut s = String::from("\"");
    for c in name.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c if c.is_control() => s.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

fn edge(f: &Function, e: &crate::func::Edge) -> String {
    if e.args.is_empty() {
        format!("b{}", e.target.index())
    } else {
        let params = &f.blocks[e.target].params;
        let args: Vec<String> = e
            .args
            .iter()
            .zip(params)
            .map(|(a, &p)| operand(f, a, f.ty(p).lanes))
            .collect();
        format!("b{}({})", e.target.index(), args.join(", "))
    }
}

/// An operand reading `lanes` lanes: `-|v3|.zyx`; the swizzle is left out when it reads the
/// value's lanes in order.
pub fn operand(f: &Function, op: &Operand, lanes: u8) -> String {
    let mut s = format!("v{}", op.value.index());
    if op.abs {
        s = format!("|{s}|");
    }
    if op.neg {
        s = format!("-{s}");
    }
    let source_lanes = f.values.get(op.value).map_or(4, |v| v.ty.lanes);
    if !(op.swizzle.is_identity(lanes) && lanes == source_lanes) {
        s.push('.');
        s.push_str(&op.swizzle.letters(lanes));
    }
    s
}
