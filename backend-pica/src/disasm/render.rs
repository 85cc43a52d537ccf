//! One instruction as picasso text: `dphi o1.w, v0, c1`, `mad o3.zw, r0, c2[a0.x], v0`,
//! `ifc !cmp.x && cmp.y`, `jmpu !b0, L010`.
//!
//! Registers are printed by number, swizzles only when they are not `xyzw`, write masks only when
//! they are not `xyzw`. Mnemonics are the encoded ones (`dphi`, `sgei`, `madi`); picasso accepts
//! them and picks the same form again from the operands. Flow targets are named by the caller.

use crate::inst::Inst;
use crate::operand::{Dest, Mask, Source, Swizzle, Target};

/// A source operand: `-c2[a0.y].yzwx`.
pub fn source(s: &Source) -> String {
    let mut out = String::new();
    if s.negate {
        out.push('-');
    }
    out += &s.reg.to_string();
    if let Some(name) = s.index.name() {
        out += &format!("[{name}]");
    }
    if s.swizzle != Swizzle::IDENTITY {
        out += &format!(".{}", s.swizzle);
    }
    out
}

/// A destination operand: `o3.zw`.
pub fn dest(d: &Dest) -> String {
    if d.mask == Mask::XYZW {
        d.reg.to_string()
    } else {
        format!("{}.{}", d.reg, d.mask)
    }
}

/// MOVA's destination: `a0.x`, `a0.y` or `a0.xy` (other masks cannot be written in picasso).
pub fn mova_dest(mask: Mask) -> String {
    match mask.bits() {
        0x1 => "a0.x".to_string(),
        0x2 => "a0.y".to_string(),
        _ => "a0.xy".to_string(),
    }
}

/// The instruction in picasso syntax, naming flow targets with `name`. IF and LOOP print their
/// opening line only (`ifc cmp.x`, `for i0`); their extent is the listing's business.
pub fn render(inst: &Inst, name: &dyn Fn(Target) -> String) -> String {
    let m = inst.opcode().name();
    match inst {
        Inst::Binary {
            dst, src1, src2, ..
        } => {
            format!("{m} {}, {}, {}", dest(dst), source(src1), source(src2))
        }
        Inst::Unary { dst, src, .. } => format!("{m} {}, {}", dest(dst), source(src)),
        Inst::Mova { mask, src } => format!("{m} {}, {}", mova_dest(*mask), source(src)),
        Inst::Cmp { src1, x, y, src2 } => {
            format!(
                "{m} {}, {}, {}, {}",
                source(src1),
                x.name(),
                y.name(),
                source(src2)
            )
        }
        Inst::Mad {
            dst,
            src1,
            src2,
            src3,
            ..
        } => {
            format!(
                "{m} {}, {}, {}, {}",
                dest(dst),
                source(src1),
                source(src2),
                source(src3)
            )
        }
        Inst::Nop | Inst::End | Inst::Emit | Inst::Break => m.to_string(),
        Inst::BreakC { cond } => format!("{m} {cond}"),
        Inst::Call { target, .. } => format!("{m} {}", name(*target)),
        Inst::CallC { cond, target, .. } => format!("{m} {cond}, {}", name(*target)),
        Inst::CallU { b, target, .. } => format!("{m} {b}, {}", name(*target)),
        Inst::IfC { cond, .. } => format!("{m} {cond}"),
        Inst::IfU { b, .. } => format!("{m} {b}"),
        Inst::Loop { i, .. } => format!("for {i}"),
        Inst::JmpC { cond, target } => format!("{m} {cond}, {}", name(*target)),
        Inst::JmpU {
            b,
            if_false,
            target,
        } => {
            let bang = if *if_false { "!" } else { "" };
            format!("{m} {bang}{b}, {}", name(*target))
        }
        Inst::SetEmit {
            vertex,
            primitive,
            winding,
        } => {
            let mut flags = Vec::new();
            if *primitive {
                flags.push("prim");
            }
            if *winding {
                flags.push("inv");
            }
            if flags.is_empty() {
                format!("{m} {vertex}")
            } else {
                format!("{m} {vertex}, {}", flags.join(" "))
            }
        }
    }
}

/// [`render`] naming targets `L` + three hex digits (`L00F`).
pub fn render_plain(inst: &Inst) -> String {
    render(inst, &|t| format!("L{:03X}", t.addr()))
}
