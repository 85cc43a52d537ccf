//! The directive part of a listing file: `.gsh`, `.in`, `.fvec`/`.ivec`/`.bool`, `.setf`/`.seti`/
//! `.setb`, `.out` and `.entry`, chosen so that picasso rebuilds the DVLE's tables exactly.
//!
//! - Uniforms are declared in register order. picasso allocates them upward, so a gap in the
//!   table (a hidden `_name` uniform, or one only another file declares) is filled with a hidden
//!   uniform `_c6_1` (file letter, register, size). Vertex-shader files share one allocation
//!   space, carried from file to file in [`UniformSpace`]; a `.gsh` file starts its own at its
//!   first uniform.
//! - Constants are written as `.setf`/`.seti`/`.setb` on their registers, in table order, which
//!   reproduces the table without allocating; float values are printed as the `f32` that
//!   picasso's truncating conversion maps back to the stored bits.
//! - Outputs are written with an explicit register and mask.
//! - Names are written as they are, so picasso's table gets the user's name. picasso binds each
//!   declared name as an alias that wins over the register of the same name, so when a name is
//!   also a register's (`v3`, `c0`), the file's `.in`/`.fvec`/`.ivec`/`.bool` lines go after its
//!   code instead of before, where no register operand follows them. A name picasso cannot read
//!   at all is respelled (never with a leading `_`, which would hide it), with a warning.

use std::collections::HashMap;

use crate::float24::F24;
use crate::shbin::{Constant, Dvle, Semantic, ShaderType, UniformFile};

/// Allocation state of one uniform space: next free register per file, and names seen.
#[derive(Clone, Debug, Default)]
pub(super) struct UniformSpace {
    next: [u16; 3],
    known: HashMap<String, (UniformFile, u16, u16)>,
}

impl UniformSpace {
    pub(super) fn new(first_float: u16) -> UniformSpace {
        UniformSpace {
            next: [first_float, 0, 0],
            known: HashMap::default(),
        }
    }
}

fn slot(file: UniformFile) -> Option<(usize, &'static str, char)> {
    match file {
        UniformFile::Float => Some((0, "fvec", 'c')),
        UniformFile::Int => Some((1, "ivec", 'i')),
        UniformFile::Bool => Some((2, "bool", 'b')),
        UniformFile::Input => None,
    }
}

/// A float as text that `atof` + picasso's conversion turn into exactly `value`'s bits.
pub(super) fn float_text(value: F24) -> String {
    let f = value.picasso_preimage();
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let short = format!("{f:?}");
    // C reads the text as a double and rounds it to float; check that path gives `f` back.
    if short.parse::<f64>().map(|d| (d as f32).to_bits()) == Ok(f.to_bits()) {
        short
    } else {
        format!("{:.16e}", f64::from(f))
    }
}

fn looks_like_register(name: &str) -> bool {
    let mut c = name.chars();
    c.next().is_some_and(|k| "ovrcib".contains(k)) && c.next().is_some_and(|d| d.is_ascii_digit())
}

/// Writes the directives of DVLE `dvle` (whose entry procedure is `entry`) to `out`, using and
/// updating `shared` when the DVLE is a vertex shader.
pub(super) fn declare(
    dvle: &Dvle,
    entry: &str,
    shared: &mut UniformSpace,
    out: &mut String,
    tail: &mut String,
    warnings: &mut Vec<String>,
) {
    let mut names: HashMap<String, ()> = HashMap::default();
    // Whether a declared name is also a register's name (see the end).
    let mut shadows = false;
    // A name picasso cannot read (`lights[2].color` from a struct array) is written with
    // `_` for each character it rejects, and with a `u` in front when it does not start
    // with a letter (never with a `_` in front: picasso leaves such names out of the
    // table), so the listing still assembles; only the symbol string differs then, and a
    // warning says so.
    let mut name_ok = |name: &mut String, warnings: &mut Vec<String>| {
        if !crate::syntax::is_identifier(name) {
            let spelled = picasso_spelling(name);
            warnings.push(format!(
                "name {name:?} is not usable in picasso; written as {spelled:?}"
            ));
            *name = spelled;
        }
        shadows |= looks_like_register(name);
        if names.insert(name.to_string(), ()).is_some() {
            warnings.push(format!("name {name:?} is declared twice"));
        }
    };

    let floats = dvle
        .uniforms
        .iter()
        .filter_map(|u| u.range())
        .filter(|r| r.0 == UniformFile::Float)
        .map(|r| u16::from(r.1));
    let geometry = dvle.shader_type == ShaderType::Geometry;
    let mut own;
    let space = if geometry {
        let g = dvle.geometry;
        let first = floats.min().unwrap_or(match g.mode {
            2 => u16::from(g.fixed_start) + 1,
            _ => 0,
        });
        let mode = match g.mode {
            0 => format!("point c{first}"),
            1 => format!("variable c{first} {}", g.variable_num),
            2 => format!("fixed c{first} c{} {}", g.fixed_start, g.fixed_num),
            m => {
                warnings.push(format!("geometry mode {m} has no picasso spelling"));
                format!("point c{first}")
            }
        };
        if g.mode == 2 && u16::from(g.fixed_start) >= first {
            warnings.push("fixed-mode vertex array overlaps the uniforms".into());
        }
        if g.mode != 1 && g.variable_num != 0 || g.mode != 2 && (g.fixed_start | g.fixed_num) != 0 {
            warnings.push("geometry fields unused by the mode are not zero".into());
        }
        *out += &format!(".gsh {mode}\n");
        own = UniformSpace::new(first);
        &mut own
    } else {
        if dvle.geometry != Default::default() {
            warnings.push("vertex DVLE with non-zero geometry fields".into());
        }
        shared
    };

    // Inputs and uniforms go to `decls`: at the top of the file, or after the code when a
    // name is also a register's (see the end).
    let mut decls = String::new();
    let out_head = std::mem::take(out);
    // Inputs.
    let mut input_mask = 0u16;
    let mut input_names = Vec::new();
    for u in &dvle.uniforms {
        if let Some((UniformFile::Input, n, count)) = u.range() {
            let mut name = u.name.replace('.', "$");
            name_ok(&mut name, warnings);
            if count != 1 || n == 15 {
                warnings.push(format!(
                    "input {name} (v{n}, {count} registers) has no picasso spelling"
                ));
            }
            // `.in` reads its register after the earlier `.in` names are bound.
            if input_names.contains(&format!("v{n}")) {
                warnings.push(format!(
                    "input {name}: its register v{n} is the name of an earlier input"
                ));
            }
            input_mask |= 1 << n;
            decls += &format!(".in {name} v{n}\n");
            input_names.push(name);
        }
    }
    if input_mask != dvle.input_mask {
        warnings.push(format!(
            "input mask {:#06X} differs from the declared inputs",
            dvle.input_mask
        ));
    }

    // Uniforms, file by file in register order, with hidden fillers for gaps.
    for file in [UniformFile::Float, UniformFile::Int, UniformFile::Bool] {
        let Some((i, directive, letter)) = slot(file) else {
            continue;
        };
        let mut entries: Vec<(String, u16, u16)> = dvle
            .uniforms
            .iter()
            .filter_map(|u| match u.range() {
                Some((f, n, count)) if f == file => {
                    Some((u.name.replace('.', "$"), u16::from(n), u16::from(count)))
                }
                _ => None,
            })
            .collect();
        entries.sort_by_key(|e| e.1);
        for (mut name, n, count) in entries {
            name_ok(&mut name, warnings);
            let decl = |name: &str, count: u16| {
                if count == 1 {
                    format!(".{directive} {name}\n")
                } else {
                    format!(".{directive} {name}[{count}]\n")
                }
            };
            if let Some(&(f, pos, size)) = space.known.get(&name) {
                if (f, pos, size) != (file, n, count) {
                    warnings.push(format!(
                        "uniform {name} is declared elsewhere at another register"
                    ));
                }
                decls += &decl(&name, count);
                continue;
            }
            if n < space.next[i] {
                warnings.push(format!(
                    "uniform {name} ({letter}{n}) lies below the allocation point"
                ));
            } else if n > space.next[i] {
                let gap = format!("_{letter}{}_{}", space.next[i], n - space.next[i]);
                space
                    .known
                    .insert(gap.clone(), (file, space.next[i], n - space.next[i]));
                decls += &decl(&gap, n - space.next[i]);
            }
            space.known.insert(name.clone(), (file, n, count));
            space.next[i] = space.next[i].max(n + count);
            decls += &decl(&name, count);
        }
    }

    // Constants, in table order.
    for c in &dvle.constants {
        *out += &match c {
            Constant::Float { reg, value } => {
                let v = value.map(float_text);
                format!(".setf c{reg}({}, {}, {}, {})\n", v[0], v[1], v[2], v[3])
            }
            Constant::Int { reg, value } => {
                format!(
                    ".seti i{reg}({}, {}, {}, {})\n",
                    value[0], value[1], value[2], value[3]
                )
            }
            Constant::Bool { reg, value } => format!(".setb b{reg} {value}\n"),
        };
    }

    // Outputs.
    let mut output_mask = 0u16;
    let mut used = 0u32;
    let mut dummy = false;
    for o in &dvle.outputs {
        let mask = o.mask.bits();
        if mask == 0 {
            warnings.push(format!("output o{} has an empty mask", o.reg));
        }
        if o.reg >= 7 && (o.semantic != Semantic::Dummy || geometry) {
            warnings.push(format!(
                "output o{} cannot be {} in picasso",
                o.reg,
                o.semantic.name()
            ));
        }
        let shifted = u32::from(mask) << ((4 * u32::from(o.reg)) % 32);
        if used & shifted != 0 {
            warnings.push(format!(
                "output o{} collides with an earlier one in picasso",
                o.reg
            ));
        }
        used |= shifted;
        output_mask |= 1 << o.reg;
        dummy |= o.semantic == Semantic::Dummy;
        let m = if mask == 0xF {
            String::new()
        } else {
            format!(".{}", o.mask)
        };
        *out += &format!(".out - {} o{}{m}\n", o.semantic.name(), o.reg);
    }
    if output_mask != dvle.output_mask {
        warnings.push(format!(
            "output mask {:#06X} differs from the declared outputs",
            dvle.output_mask
        ));
    }
    if dvle.merge_outmaps != (geometry && dummy) {
        warnings.push("merge-outmaps flag does not follow from the outputs".into());
    }
    *out += &format!(".entry {entry}\n");

    // picasso binds every declared name as an alias, and an alias wins over the register of
    // the same name in every operand after it: after `.fvec v3`, `v3` means that uniform's
    // `c` register. A name that is also a register's (`v3`, `c0`, `o1`; picasso's test is a
    // letter of `ovrcib` followed by a digit) is still written as it is, so that picasso keeps
    // it in the table under the user's name, but then the declarations go after everything
    // that names a register (`.setf`, `.out`, the code) and so shadow none of them. Their order
    // among themselves, which fixes the allocation, is unchanged.
    let rest = std::mem::replace(out, out_head);
    if shadows {
        *out += &rest;
        tail.push_str(
            "\n; declared after the code: a name below is also a register's name, and picasso \
             would read that register as the name after the declaration\n",
        );
        tail.push_str(&decls);
    } else {
        *out += &decls;
        *out += &rest;
    }
}

/// `name` with `_` for each character picasso's identifiers do not take, and a `u` in front
/// when it does not start with a letter, `_` or `$` (a `_` in front would hide it).
fn picasso_spelling(name: &str) -> String {
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$');
    let mut spelled = String::new();
    if !starts_well {
        spelled.push('u');
    }
    spelled.extend(name.chars().map(|c| {
        if c == '$' || c == '_' || c.is_ascii_alphanumeric() {
            c
        } else {
            '_'
        }
    }));
    spelled
}
