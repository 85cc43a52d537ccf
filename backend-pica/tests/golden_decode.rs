//! Every golden `.shbin` decodes to what its `.txt` listing (written by an independent decoder)
//! says: code words with their instructions and raw fields, operand descriptors with their
//! fields, and each DVLE's header, constants, outputs and uniforms.

use crate::common;

use backend_pica::decode::{Decoded, decode_word};
use backend_pica::disasm::render_plain;
use backend_pica::inst::{Form, Inst};
use backend_pica::opdesc::DescFields;
use backend_pica::shbin::{self, Constant, ShaderBinary, ShaderType, UniformFile};

/// The instruction as the `.txt` spells it (picasso syntax, but LOOP is `loop`).
fn txt_text(inst: &Inst) -> String {
    match inst {
        Inst::Loop { i, .. } => format!("loop {i}"),
        _ => render_plain(inst),
    }
}

/// The raw fields the `.txt` lists for a word, derived from our decoding.
fn fields(d: &Decoded) -> Vec<(&'static str, u32)> {
    let raw = |r: u8| u32::from(r);
    let mut f = Vec::new();
    let desc = d.desc.unwrap_or(0) as u32;
    match &d.inst {
        Inst::Binary {
            form,
            dst,
            src1,
            src2,
            ..
        } => {
            let idx = if *form == Form::Normal {
                src1.index
            } else {
                src2.index
            };
            f.extend([
                ("op", d.inst.opcode() as u32),
                ("dst", raw(dst.reg.raw())),
                ("s1", raw(src1.reg.raw())),
                ("s2", raw(src2.reg.raw())),
                ("idx", u32::from(idx.raw())),
                ("desc", desc),
            ]);
        }
        Inst::Unary { dst, src, .. } => f.extend([
            ("op", d.inst.opcode() as u32),
            ("dst", raw(dst.reg.raw())),
            ("s1", raw(src.reg.raw())),
            ("idx", u32::from(src.index.raw())),
            ("desc", desc),
        ]),
        Inst::Mova { src, .. } => f.extend([
            ("op", d.inst.opcode() as u32),
            ("s1", raw(src.reg.raw())),
            ("idx", u32::from(src.index.raw())),
            ("desc", desc),
        ]),
        Inst::Cmp { src1, x, y, src2 } => f.extend([
            ("op", d.inst.opcode() as u32),
            ("s1", raw(src1.reg.raw())),
            ("s2", raw(src2.reg.raw())),
            ("idx", u32::from(src1.index.raw())),
            ("desc", desc),
            ("cx", u32::from(x.raw())),
            ("cy", u32::from(y.raw())),
        ]),
        Inst::Mad {
            form,
            dst,
            src1,
            src2,
            src3,
        } => {
            let idx = if *form == Form::Normal {
                src2.index
            } else {
                src3.index
            };
            f.extend([
                ("op3", if *form == Form::Normal { 7 } else { 6 }),
                ("dst", raw(dst.reg.raw())),
                ("s1", raw(src1.reg.raw())),
                ("s2", raw(src2.reg.raw())),
                ("s3", raw(src3.reg.raw())),
                ("idx", u32::from(idx.raw())),
                ("desc", desc),
            ]);
        }
        Inst::Call { target, num } => f.extend([
            ("op", 0x24),
            ("dst", target.addr()),
            ("num", u32::from(*num)),
            ("condop", 0),
            ("refx", 0),
            ("refy", 0),
        ]),
        Inst::BreakC { cond } => f.extend([
            ("op", 0x23),
            ("dst", 0),
            ("num", 0),
            ("condop", u32::from(cond.op.raw())),
            ("refx", u32::from(cond.ref_x)),
            ("refy", u32::from(cond.ref_y)),
        ]),
        Inst::CallC { cond, target, num }
        | Inst::IfC {
            cond,
            dst: target,
            num,
        } => f.extend([
            ("op", d.inst.opcode() as u32),
            ("dst", target.addr()),
            ("num", u32::from(*num)),
            ("condop", u32::from(cond.op.raw())),
            ("refx", u32::from(cond.ref_x)),
            ("refy", u32::from(cond.ref_y)),
        ]),
        Inst::JmpC { cond, target } => f.extend([
            ("op", 0x2C),
            ("dst", target.addr()),
            ("num", 0),
            ("condop", u32::from(cond.op.raw())),
            ("refx", u32::from(cond.ref_x)),
            ("refy", u32::from(cond.ref_y)),
        ]),
        Inst::CallU { b, target, num }
        | Inst::IfU {
            b,
            dst: target,
            num,
        } => f.extend([
            ("op", d.inst.opcode() as u32),
            ("dst", target.addr()),
            ("num", u32::from(*num)),
            ("b", u32::from(b.index())),
        ]),
        Inst::JmpU {
            b,
            if_false,
            target,
        } => f.extend([
            ("op", 0x2D),
            ("dst", target.addr()),
            ("num", u32::from(*if_false)),
            ("b", u32::from(b.index())),
        ]),
        Inst::Loop { i, last } => f.extend([
            ("op", 0x29),
            ("dst", last.addr()),
            ("num", 0),
            ("i", u32::from(i.index())),
        ]),
        Inst::SetEmit {
            vertex,
            primitive,
            winding,
        } => f.extend([
            ("op", 0x2B),
            ("vtx", u32::from(*vertex)),
            ("prim", u32::from(*primitive)),
            ("inv", u32::from(*winding)),
        ]),
        Inst::Nop | Inst::End | Inst::Emit | Inst::Break => f.push(("op", d.inst.opcode() as u32)),
    }
    f
}

/// Keys whose values the listing writes in decimal.
fn decimal(key: &str) -> bool {
    matches!(
        key,
        "num"
            | "b"
            | "i"
            | "idx"
            | "cx"
            | "cy"
            | "condop"
            | "refx"
            | "refy"
            | "vtx"
            | "prim"
            | "inv"
            | "op3"
    )
}

fn desc_text(word: u32) -> String {
    let f = DescFields::unpack(word);
    let mask = if f.mask.bits() == 0 {
        "-".to_string()
    } else {
        f.mask.to_string()
    };
    let mut out = mask;
    for (neg, swz) in f.src {
        out += &format!(
            " {}{} [{:02X}]",
            if neg { "-" } else { "" },
            swz,
            swz.selector()
        );
    }
    out
}

fn reg_text(index: u16) -> String {
    let (file, n) = UniformFile::of_index(index).unwrap();
    let letter = match file {
        UniformFile::Input => 'v',
        UniformFile::Float => 'c',
        UniformFile::Int => 'i',
        UniformFile::Bool => 'b',
    };
    format!("{letter}{n}")
}

fn check(name: &str, bytes: &[u8], bin: &ShaderBinary, txt: &str) -> Result<usize, String> {
    let word_at = |off: usize| u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap());
    let mut checked = 0;
    let mut section = String::new();
    let mut dvle_index = 0usize;
    let mut dvle_base = 0usize;
    for line in txt.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("== ") {
            section = rest.split_whitespace().next().unwrap_or("").to_string();
            if section == "DVLE" {
                let k: usize = rest.split_whitespace().nth(1).unwrap().parse().unwrap();
                dvle_index = k;
                dvle_base = word_at(8 + 4 * k) as usize;
                let at = rest.split('@').nth(1).unwrap().trim_end_matches(" ==");
                if usize::from_str_radix(at.trim_start_matches("0x"), 16).unwrap() != dvle_base {
                    return Err(format!("DVLE {k} offset"));
                }
            }
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        match section.as_str() {
            "DVLP" if t.starts_with("words:") => {
                let dvlp = 8 + 4 * bin.dvles.len();
                for (i, w) in words[1..].iter().enumerate() {
                    if u32::from_str_radix(w, 16).unwrap() != word_at(dvlp + 4 * i) {
                        return Err(format!("DVLP word {i}"));
                    }
                }
                if words[4] != format!("{:08X}", bin.code.len())
                    || words[6] != format!("{:08X}", bin.descriptors.len())
                {
                    return Err("DVLP sizes".into());
                }
                checked += 1;
            }
            "code" if words.len() >= 3 && words[0].len() == 3 && words[1].len() == 8 => {
                let addr = usize::from_str_radix(words[0], 16).map_err(|e| e.to_string())?;
                let word = u32::from_str_radix(words[1], 16).map_err(|e| e.to_string())?;
                if bin.code.get(addr) != Some(&word) {
                    return Err(format!("code word {addr:03X}"));
                }
                let d = decode_word(word, &bin.descriptors).map_err(|e| e.to_string())?;
                let fields_at = t
                    .find(" op=")
                    .or_else(|| t.find(" op3="))
                    .ok_or("no fields")?;
                let before = &t[..fields_at];
                let text_start = before.find(words[1]).unwrap() + 8;
                let text = before[text_start..]
                    .split(';')
                    .next()
                    .unwrap()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                if text != txt_text(&d.inst) {
                    return Err(format!(
                        "{addr:03X}: text {text:?}, ours {:?}",
                        txt_text(&d.inst)
                    ));
                }
                let theirs: Vec<(String, u32)> = t[fields_at..]
                    .split_whitespace()
                    .map(|kv| {
                        let (k, v) = kv.split_once('=').unwrap();
                        let radix = if decimal(k) { 10 } else { 16 };
                        (k.to_string(), u32::from_str_radix(v, radix).unwrap())
                    })
                    .collect();
                let ours: Vec<(String, u32)> = fields(&d)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
                if theirs != ours {
                    return Err(format!("{addr:03X}: fields {theirs:?}, ours {ours:?}"));
                }
                if !d.reencodes() {
                    return Err(format!("{addr:03X}: does not re-encode"));
                }
                checked += 1;
            }
            "operand" if words.len() >= 3 && words[1].starts_with("0x") => {
                let id = usize::from_str_radix(words[0], 16).unwrap();
                let low = u32::from_str_radix(&words[1][2..], 16).unwrap();
                if bin.descriptors.get(id) != Some(&low) || words[2] != "0" {
                    return Err(format!("descriptor {id:02X}"));
                }
                let theirs = words[3..].join(" ");
                if theirs != desc_text(low) {
                    return Err(format!(
                        "descriptor {id:02X}: {theirs:?} vs {:?}",
                        desc_text(low)
                    ));
                }
                checked += 1;
            }
            "DVLE" => {
                let d = &bin.dvles[dvle_index];
                if t.starts_with("header words:") {
                    for (i, w) in words[2..].iter().enumerate() {
                        if u32::from_str_radix(w, 16).unwrap() != word_at(dvle_base + 4 * i) {
                            return Err(format!("DVLE {dvle_index} header word {i}"));
                        }
                    }
                } else if t.starts_with("type ") {
                    let ty = if d.shader_type == ShaderType::Vertex {
                        "vertex"
                    } else {
                        "geometry"
                    };
                    let want = format!(
                        "type {ty}, merge-outmaps {}, entry {:#05X}..{:#05X} (end exclusive)",
                        u8::from(d.merge_outmaps),
                        d.entry_start,
                        d.entry_end
                    )
                    .replace("0X", "0x");
                    if t != want {
                        return Err(format!("{t:?} vs {want:?}"));
                    }
                } else if t.starts_with("input mask") {
                    let want_in = format!("input mask {:#06X}", d.input_mask).replace("0X", "0x");
                    let want_out =
                        format!("output mask {:#06X}", d.output_mask).replace("0X", "0x");
                    if !t.starts_with(&want_in) || !t.contains(&want_out) {
                        return Err(format!("masks: {t}"));
                    }
                } else if t.starts_with("gs mode") {
                    let g = d.geometry;
                    let want = format!(
                        "gs mode {}, fixed start c{}, variable num {}, fixed num {}",
                        g.mode, g.fixed_start, g.variable_num, g.fixed_num
                    );
                    if t != want {
                        return Err(format!("{t:?} vs {want:?}"));
                    }
                } else if t.starts_with('[') {
                    let k: usize = t[1..t.find(']').unwrap()].parse().unwrap();
                    let ok = match words.get(1).copied() {
                        Some("float") => match d.constants.get(k) {
                            Some(Constant::Float { reg, value }) => {
                                let f24: Vec<String> =
                                    value.iter().map(|v| format!("{:06X}", v.bits())).collect();
                                let list = &t[t.find('(').unwrap() + 1..t.find(')').unwrap()];
                                let values_ok = list.split(", ").zip(value).all(|(s, v)| {
                                    let x: f64 = s.parse().unwrap();
                                    let y = f64::from(v.to_f32());
                                    x == y || (x.is_nan() && y.is_nan())
                                });
                                words[2] == format!("c{reg}")
                                    && t.ends_with(&format!("f24 {}", f24.join(" ")))
                                    && values_ok
                            }
                            _ => false,
                        },
                        Some("int") => match d.constants.get(k) {
                            Some(Constant::Int { reg, value }) => {
                                words[2] == format!("i{reg}")
                                    && t.contains(&format!(
                                        "({}, {}, {}, {})",
                                        value[0], value[1], value[2], value[3]
                                    ))
                                    && t.ends_with(&format!(
                                        "word {:08X}",
                                        u32::from_le_bytes(*value)
                                    ))
                            }
                            _ => false,
                        },
                        Some("bool") => match d.constants.get(k) {
                            Some(Constant::Bool { reg, value }) => {
                                words[2] == format!("b{reg}") && words[4] == value.to_string()
                            }
                            _ => false,
                        },
                        Some(r) if r.starts_with('o') => match d.outputs.get(k) {
                            Some(o) => {
                                r == format!("o{}", o.reg)
                                    && words[2] == o.semantic.name()
                                    && words[4] == format!("0x{:X}", o.mask.bits())
                                    && words[5] == format!("({})", o.mask)
                            }
                            None => false,
                        },
                        Some(_) => match d.uniforms.get(k) {
                            Some(u) => {
                                words[1] == reg_text(u.start)
                                    && words[2] == format!("..{}", reg_text(u.end))
                                    && words[3] == format!("{:?}", u.name)
                            }
                            None => false,
                        },
                        None => false,
                    };
                    if !ok {
                        return Err(format!("DVLE {dvle_index}: {t}"));
                    }
                } else {
                    continue;
                }
                checked += 1;
            }
            _ => {}
        }
    }
    let _ = name;
    Ok(checked)
}

#[test]
fn golden_shbins_decode_as_their_listings_say() {
    let mut failures = Vec::new();
    for name in common::programs() {
        let bytes = common::shbin(&name);
        let bin = shbin::read(&bytes).unwrap();
        match check(&name, &bytes, &bin, &common::listing_txt(&name)) {
            Ok(n) => {
                // Every code word and descriptor, plus headers and tables, was compared.
                let tables: usize = bin
                    .dvles
                    .iter()
                    .map(|d| 4 + d.constants.len() + d.outputs.len() + d.uniforms.len())
                    .sum();
                let least = 1 + bin.code.len() + bin.descriptors.len() + tables;
                assert!(n >= least, "{name}: only {n} lines checked");
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
