//! Register operands in picasso's syntax: `-name[idx+off].swz`, with aliases.
//!
//! An operand is a register or an alias (a name bound by `.alias`, `.fvec`, `.constf`, `.in`,
//! `.out`, …), an optional bracket with a static offset and/or an index register (`a0.x`, `a0.y`,
//! `aL`, and the old names `a0`, `a1`, `a2`, `lcnt`), and an optional swizzle (`xyzw`, `rgba` or
//! `stpq` letters, short ones repeating their last letter). A swizzle on an alias composes with
//! the alias's own, and negations combine.
//!
//! Unlike picasso, registers are typed here: picasso numbers `v0` and `o0` alike, so an output
//! alias used as a source silently reads an input; this parser refuses such operands, refuses an
//! index on a register that is not a constant, and refuses a negative offset (which picasso drops
//! without a word, index register and all).

use std::collections::HashMap;

use super::text::parse_uint;
use crate::operand::{Component, RelIndex, Swizzle};

/// A register of any file, as the assembler names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reg {
    /// `vN`.
    Input(u8),
    /// `oN`.
    Output(u8),
    /// `rN`.
    Temp(u8),
    /// `cN`.
    Const(u8),
    /// `iN`.
    Int(u8),
    /// `bN`.
    Bool(u8),
}

impl Reg {
    /// The register `offset` further in the same file, if it exists. picasso's `v` registers stop
    /// at `v14` (its parser refuses `v15`).
    fn offset(self, by: u32, max_output: u8) -> Option<Reg> {
        let (n, limit, make): (u8, u8, fn(u8) -> Reg) = match self {
            Reg::Input(n) => (n, 15, Reg::Input),
            Reg::Output(n) => (n, max_output, Reg::Output),
            Reg::Temp(n) => (n, 16, Reg::Temp),
            Reg::Const(n) => (n, 96, Reg::Const),
            Reg::Int(n) => (n, 4, Reg::Int),
            Reg::Bool(n) => (n, 16, Reg::Bool),
        };
        let m = u32::from(n).checked_add(by)?;
        (m < u32::from(limit)).then(|| make(m as u8))
    }
}

/// What an alias stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The register.
    pub reg: Reg,
    /// The alias's swizzle.
    pub swizzle: Swizzle,
    /// Whether the alias negates.
    pub negate: bool,
}

impl Alias {
    /// A plain alias of `reg`.
    pub fn of(reg: Reg) -> Alias {
        Alias {
            reg,
            swizzle: Swizzle::IDENTITY,
            negate: false,
        }
    }
}

/// A parsed operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The register, offset included.
    pub reg: Reg,
    /// The swizzle after composing with the alias's.
    pub swizzle: Swizzle,
    /// Whether the operand is negated.
    pub negate: bool,
    /// The index register, if any.
    pub index: RelIndex,
    /// Whether a swizzle was written (or came from an alias with one).
    pub explicit_swizzle: bool,
}

/// Parses a swizzle (1–4 letters; missing lanes repeat the last).
pub fn parse_swizzle(s: &str) -> Option<Swizzle> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    let mut lanes = [Component::X; 4];
    let mut last = Component::X;
    for (i, ch) in s.chars().enumerate() {
        last = match ch.to_ascii_lowercase() {
            'x' | 'r' | 's' => Component::X,
            'y' | 'g' | 't' => Component::Y,
            'z' | 'b' | 'p' => Component::Z,
            'w' | 'a' | 'q' => Component::W,
            _ => return None,
        };
        lanes[i] = last;
    }
    for lane in lanes.iter_mut().skip(s.len()) {
        *lane = last;
    }
    Some(Swizzle::new(lanes))
}

fn index_name(s: &str) -> Option<RelIndex> {
    match s.to_ascii_lowercase().as_str() {
        "a0" | "a0.x" => Some(RelIndex::A0X),
        "a1" | "a0.y" => Some(RelIndex::A0Y),
        "a2" | "lcnt" | "al" => Some(RelIndex::AL),
        _ => None,
    }
}

fn literal(base: &str, max_output: u8) -> Result<Option<Reg>, String> {
    let mut chars = base.chars();
    let (Some(kind), Some(d)) = (chars.next(), chars.next()) else {
        return Ok(None);
    };
    if !d.is_ascii_digit() || !"ovrcib".contains(kind) {
        return Ok(None);
    }
    let n = parse_uint(&base[1..]).ok_or_else(|| format!("invalid register: {base}"))?;
    let (limit, make, what): (u32, fn(u8) -> Reg, &str) = match kind {
        'o' => (u32::from(max_output), Reg::Output, "output"),
        'v' => (15, Reg::Input, "input"),
        'r' => (16, Reg::Temp, "temporary"),
        'c' => (96, Reg::Const, "floating-point vector uniform"),
        'i' => (4, Reg::Int, "integer vector uniform"),
        _ => (16, Reg::Bool, "boolean uniform"),
    };
    if n >= limit {
        return Err(format!("invalid {what} register: {base}"));
    }
    Ok(Some(make(n as u8)))
}

/// Parses an operand. `allow_index` says whether an index register may appear; `max_output` is
/// the number of output registers of the current shader (16, or 7 in a geometry shader).
pub fn parse_operand(
    text: &str,
    aliases: &HashMap<String, Alias>,
    allow_index: bool,
    max_output: u8,
) -> Result<Operand, String> {
    let (negate, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let (base, offset, index, swz) = match body.find('[') {
        Some(open) => {
            let close = body[open..]
                .find(']')
                .map(|c| c + open)
                .ok_or_else(|| format!("missing closing bracket: {text}"))?;
            let inner = body[open + 1..close].trim();
            let after = &body[close + 1..];
            let swz = match after.strip_prefix('.') {
                Some(s) => Some(s),
                None if after.is_empty() => None,
                None => return Err(format!("garbage after bracket: {text}")),
            };
            let (index, offset) = if let Some(idx) = index_name(inner) {
                (idx, 0)
            } else if let Some(plus) = inner.find('+') {
                let name = inner[..plus].trim();
                let idx =
                    index_name(name).ok_or_else(|| format!("invalid index register: {name}"))?;
                let off = inner[plus + 1..].trim();
                (
                    idx,
                    parse_uint(off).ok_or_else(|| format!("invalid register offset: {off}"))?,
                )
            } else {
                let off = parse_uint(inner).ok_or_else(|| {
                    format!("invalid register offset: {inner} (picasso drops negative offsets)")
                })?;
                (RelIndex::None, off)
            };
            if index != RelIndex::None && !allow_index {
                return Err(format!("index register not allowed here: {text}"));
            }
            (&body[..open], offset, index, swz)
        }
        None => match body.find('.') {
            Some(dot) => (&body[..dot], 0, RelIndex::None, Some(&body[dot + 1..])),
            None => (body, 0, RelIndex::None, None),
        },
    };
    let written = match swz {
        Some(s) => Some(parse_swizzle(s).ok_or_else(|| format!("invalid swizzling mask: {s}"))?),
        None => None,
    };
    let (alias, explicit) = match aliases.get(base) {
        Some(a) => (*a, a.swizzle != Swizzle::IDENTITY),
        None => match literal(base, max_output)? {
            Some(reg) => (Alias::of(reg), false),
            None => return Err(format!("invalid register: {base}")),
        },
    };
    let reg = alias
        .reg
        .offset(offset, max_output)
        .ok_or_else(|| format!("register offset out of range: {text}"))?;
    if index != RelIndex::None && !matches!(reg, Reg::Const(_)) {
        return Err("index register not allowed with this kind of register".to_string());
    }
    let swizzle = match written {
        Some(w) => w.compose(alias.swizzle),
        None => alias.swizzle,
    };
    Ok(Operand {
        reg,
        swizzle,
        negate: negate ^ alias.negate,
        index,
        explicit_swizzle: explicit || written.is_some(),
    })
}

/// The destination write mask a swizzle spells (picasso's `maskFromSwizzling`): every component
/// any lane names. Bit 0 is x.
pub fn mask_of(swizzle: Swizzle) -> u8 {
    swizzle.lanes().iter().fold(0, |m, c| m | 1 << c.index())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, aliases: &HashMap<String, Alias>) -> Result<Operand, String> {
        parse_operand(text, aliases, true, 16)
    }

    #[test]
    fn forms() {
        let mut a = HashMap::default();
        a.insert("utab".to_string(), Alias::of(Reg::Const(1)));
        a.insert(
            "swz".to_string(),
            Alias {
                reg: Reg::Temp(0),
                swizzle: parse_swizzle("yx").unwrap(),
                negate: true,
            },
        );
        let o = parse("-utab[a0.y+1].yzwx", &a).unwrap();
        assert_eq!(o.reg, Reg::Const(2));
        assert_eq!(o.index, RelIndex::A0Y);
        assert!(o.negate);
        assert_eq!(o.swizzle.to_string(), "yzwx");
        let o = parse("utab[aL]", &a).unwrap();
        assert_eq!((o.reg, o.index), (Reg::Const(1), RelIndex::AL));
        let o = parse("c95.w", &a).unwrap();
        assert_eq!(o.swizzle.to_string(), "wwww");
        let o = parse("-swz.y", &a).unwrap();
        assert_eq!(
            (o.reg, o.negate, o.swizzle.to_string().as_str()),
            (Reg::Temp(0), false, "xxxx")
        );
        assert!(parse("v15", &a).is_err());
        assert!(parse("r0[a0.x]", &a).is_err());
        assert!(parse("utab[a0.x-1]", &a).is_err());
        assert!(parse("c95[1]", &a).is_err());
        assert!(parse("x0", &a).is_err());
        assert_eq!(mask_of(parse_swizzle("xyz").unwrap()), 0x7);
    }
}
