//! The PICA200 reflection against the `.shbin` it describes, read from the bytes here with a
//! parser of this file's own (shbin-format §1.2–1.8), not the crate's reader: outputs one
//! entry per output-table entry, constants one entry per constant-table entry (integer
//! registers included), each value exact through JSON; and the picasso listing keeps uniform
//! names that are also register names.

use spv2retro::{Compiled, Options, Profile, Source, compile};

/// One DVLE's tables, as the bytes have them.
#[derive(Debug, Default)]
struct Tables {
    /// (type, id, data words).
    constants: Vec<(u16, u16, [u32; 4])>,
    /// (type, register, mask).
    outputs: Vec<(u16, u16, u32)>,
    /// (name, first register index, last register index).
    uniforms: Vec<(String, u16, u16)>,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The tables of the only DVLE of `b`.
fn tables(b: &[u8]) -> Tables {
    assert_eq!(&b[0..4], b"DVLB");
    assert_eq!(u32_at(b, 4), 1, "one DVLE");
    let dvle = u32_at(b, 8) as usize;
    assert_eq!(&b[dvle..dvle + 4], b"DVLE");
    // Offsets in the DVLE header are relative to the DVLE.
    let field = |off: usize| u32_at(b, dvle + off) as usize;
    let mut t = Tables::default();
    let (at, n) = (dvle + field(0x18), field(0x1C));
    for k in 0..n {
        let e = at + 20 * k;
        let data = std::array::from_fn(|i| u32_at(b, e + 4 + 4 * i));
        t.constants.push((u16_at(b, e), u16_at(b, e + 2), data));
    }
    let (at, n) = (dvle + field(0x28), field(0x2C));
    for k in 0..n {
        let e = at + 8 * k;
        t.outputs
            .push((u16_at(b, e), u16_at(b, e + 2), u32_at(b, e + 4)));
    }
    let (at, n, symbols) = (dvle + field(0x30), field(0x34), dvle + field(0x38));
    for k in 0..n {
        let e = at + 8 * k;
        let start = symbols + u32_at(b, e) as usize;
        let end = start + b[start..].iter().position(|&c| c == 0).unwrap();
        let name = String::from_utf8(b[start..end].to_vec()).unwrap();
        t.uniforms.push((name, u16_at(b, e + 4), u16_at(b, e + 6)));
    }
    t
}

/// The output type codes (shbin-format §1.7).
fn semantic(code: u16) -> &'static str {
    match code {
        0 => "position",
        1 => "normalquat",
        2 => "color",
        3 => "texcoord0",
        4 => "texcoord0w",
        5 => "texcoord1",
        6 => "texcoord2",
        8 => "view",
        9 => "dummy",
        other => panic!("output type {other}"),
    }
}

/// A component mask (bit 0 is x) as letters.
fn letters(mask: u32) -> String {
    "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect()
}

/// A float24 word (sign 23, exponent 22–16 with bias 63, mantissa 15–0) as the f32 of the
/// same value.
fn f24(word: u32) -> f32 {
    assert_eq!(word >> 24, 0, "float24 in the low 24 bits");
    let (sign, exponent, mantissa) = (word >> 23, (word >> 16) & 0x7F, word & 0xFFFF);
    let magnitude = match exponent {
        0x7F if mantissa == 0 => f32::INFINITY,
        0x7F => f32::NAN,
        0 => mantissa as f32 * 2f32.powi(-78),
        e => f32::from_bits((e + 127 - 63) << 23 | mantissa << 7),
    };
    if sign == 1 { -magnitude } else { magnitude }
}

/// What the constant table says: (register, values) per entry, in table order.
fn table_constants(t: &Tables) -> Vec<(String, [f32; 4])> {
    t.constants
        .iter()
        .map(|&(kind, id, data)| match kind {
            2 => (format!("c{id}"), data.map(f24)),
            1 => (format!("i{id}"), data[0].to_le_bytes().map(f32::from)),
            other => panic!("constant type {other}"),
        })
        .collect()
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(tests::fixtures("glsl").join(name)).unwrap()
}

fn pica(name: &str) -> Compiled {
    compile(Source::spirv(&fixture(name)).named(name), &Options::pica())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The reflection's outputs are the output table, entry for entry, and its constants the
/// constant table, with each value's `bits` in the JSON decoding to the value the table holds.
fn check_against_tables(name: &str, c: &Compiled) {
    let t = tables(&c.bytes);
    let from_bytes: Vec<(String, String, String)> = t
        .outputs
        .iter()
        .map(|&(kind, reg, mask)| (semantic(kind).into(), format!("o{reg}"), letters(mask)))
        .collect();
    let reflected: Vec<(String, String, String)> = c
        .reflection
        .outputs
        .iter()
        .map(|o| {
            (
                o.semantic.clone().unwrap_or_default(),
                o.register.clone(),
                o.mask.clone(),
            )
        })
        .collect();
    assert_eq!(reflected, from_bytes, "{name}: outputs");

    let json: serde_json::Value = serde_json::from_str(&c.reflection.to_json()).unwrap();
    let listed = json["constants"].as_array().unwrap();
    let want = table_constants(&t);
    assert_eq!(
        listed.len(),
        want.len(),
        "{name}: {listed:?} against {want:?}"
    );
    for (entry, (register, values)) in listed.iter().zip(&want) {
        assert_eq!(entry["register"], register.as_str(), "{name}");
        let bits = entry["bits"].as_array().unwrap();
        for (k, (b, v)) in bits.iter().zip(values).enumerate() {
            let hex = b.as_str().unwrap().strip_prefix("0x").unwrap();
            let raw = u32::from_str_radix(hex, 16).unwrap();
            if register.starts_with('i') {
                assert_eq!(raw as f32, *v, "{name} {register}[{k}]");
                assert_eq!(entry["value"][k].as_u64(), Some(raw.into()), "{name}");
            } else {
                assert_eq!(raw, v.to_bits(), "{name} {register}[{k}]: {b} holds {v}");
            }
        }
    }
    // And back: the JSON reads back as the same reflection, bit for bit.
    let again: spv2retro::Reflection = serde_json::from_value(json).unwrap();
    for (a, b) in again.constants.iter().zip(&c.reflection.constants) {
        assert_eq!(a.register, b.register);
        assert_eq!(
            a.value.map(f32::to_bits),
            b.value.map(f32::to_bits),
            "{name}"
        );
    }
}

#[test]
fn outputs_are_the_output_table_and_dropped_components_are_warned_about() {
    let name = "wide_outputs.vert.spv";
    let c = pica(name);
    check_against_tables(name, &c);
    let outputs: Vec<(&str, &str, &str, &str)> = c
        .reflection
        .outputs
        .iter()
        .map(|o| {
            (
                o.name.as_str(),
                o.register.as_str(),
                o.semantic.as_deref().unwrap(),
                o.mask.as_str(),
            )
        })
        .collect();
    assert_eq!(
        outputs,
        [
            ("gl_Position", "o0", "position", "xyzw"),
            ("outColor", "o1", "color", "xyzw"),
            ("outUv0", "o2", "texcoord0", "xy"),
            ("outUv0", "o2", "texcoord0w", "z"),
            ("outUv1", "o3", "texcoord1", "xy"),
        ]
    );
    let first_lines: Vec<&str> = c
        .rendered_warnings()
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.is_empty())
        .collect();
    assert_eq!(
        first_lines,
        [
            "wide_outputs.vert.spv: warning[pica.output-dropped]: output `outUv0` at location 1 \
             has 4 components, but the output table carries only xyz (texcoord0 xy, texcoord0w \
             z): component w is dropped",
            "wide_outputs.vert.spv: warning[pica.output-dropped]: output `outUv1` at location 2 \
             has 4 components, but the output table carries only xy (texcoord1 xy): components \
             zw are dropped",
        ]
    );
    assert!(
        c.warnings
            .0
            .iter()
            .all(|d| d.severity == mir::diag::Severity::Warning)
    );
    // A semantic that takes all four components leaves nothing out.
    let wide = compile(
        Source::spirv(&fixture(name)),
        &Options::pica()
            .semantic(1, spv2retro::Semantic::Dummy)
            .semantic(2, spv2retro::Semantic::NormalQuat),
    )
    .unwrap();
    assert!(wide.warnings.0.is_empty(), "{}", wide.rendered_warnings());
    assert_eq!(wide.rendered_warnings(), "");
    check_against_tables(name, &wide);
}

#[test]
fn loop_counters_are_listed_with_the_constants() {
    let name = "counted_loop.vert.spv";
    let c = pica(name);
    assert!(c.listing.contains("for i3"), "{}", c.listing);
    check_against_tables(name, &c);
    let json: serde_json::Value = serde_json::from_str(&c.reflection.to_json()).unwrap();
    let i3 = json["constants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["register"] == "i3")
        .unwrap_or_else(|| panic!("no i3 in {json}"));
    // 40 iterations: LOOP runs i3.x + 1 times, aL from 0 in steps of 1.
    assert_eq!(i3["value"], serde_json::json!([39, 0, 1, 0]));
    assert_eq!(
        i3["bits"],
        serde_json::json!(["0x27", "0x00", "0x01", "0x00"])
    );
    let k = c
        .reflection
        .constants
        .iter()
        .find(|k| k.register == "i3")
        .unwrap();
    assert!(k.is_integer());
    assert_eq!(
        c.reflection.stats.constant_registers,
        c.reflection.constants.len()
    );
}

#[test]
fn infinities_have_an_exact_spelling() {
    let name = "infinite_literals.vert.spv";
    let c = pica(name);
    check_against_tables(name, &c);
    let json: serde_json::Value = serde_json::from_str(&c.reflection.to_json()).unwrap();
    let k = &json["constants"][0];
    let values = k["value"].as_array().unwrap();
    assert!(values.iter().all(|v| !v.is_null()), "{k}");
    assert!(values.contains(&"Infinity".into()), "{k}");
    assert!(values.contains(&"-Infinity".into()), "{k}");
    let bits = k["bits"].as_array().unwrap();
    assert!(bits.contains(&"0x7f800000".into()), "{k}");
    assert!(bits.contains(&"0xff800000".into()), "{k}");

    // AGAL: the reflection and glsl2agal's JSON, where the application uploads the values.
    let agal = compile(
        Source::spirv(&fixture(name)).named(name),
        &Options::agal(Profile::Baseline),
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&agal.reflection.to_json()).unwrap();
    let listed = json["constants"].as_array().unwrap();
    assert!(!listed.is_empty());
    for (entry, k) in listed.iter().zip(&agal.reflection.constants) {
        for (i, v) in k.value.iter().enumerate() {
            let hex = entry["bits"][i].as_str().unwrap();
            let raw = u32::from_str_radix(hex.strip_prefix("0x").unwrap(), 16).unwrap();
            assert_eq!(raw, v.to_bits(), "{entry}");
            let spelled = &entry["value"][i];
            match spelled.as_f64() {
                Some(n) => assert_eq!(n as f32, *v, "{entry}"),
                None => assert_eq!(spelled.as_str().unwrap().parse::<f32>().ok(), Some(*v)),
            }
        }
    }
    let glsl2agal: serde_json::Value =
        serde_json::from_str(&agal.glsl2agal_json().unwrap()).unwrap();
    let consts: Vec<&serde_json::Value> = glsl2agal["consts"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|v| v.as_array().unwrap())
        .collect();
    assert!(consts.iter().all(|v| !v.is_null()), "{glsl2agal}");
    assert!(consts.contains(&&"Infinity".into()), "{glsl2agal}");
    assert!(consts.contains(&&"-Infinity".into()), "{glsl2agal}");
}

#[test]
fn uniforms_named_like_registers_keep_their_names_in_the_listing() {
    let name = "register_names.vert.spv";
    let c = pica(name);
    let names: Vec<String> = tables(&c.bytes).uniforms.into_iter().map(|u| u.0).collect();
    for want in ["mvp", "v3", "c0", "o1", "inExtra"] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    // The listing assembles (with picasso's rule that a declared name hides the register of
    // the same name) back to the same bytes, names included.
    let again = backend_pica::asm::assemble_str("listing.v.pica", &c.listing)
        .unwrap_or_else(|e| panic!("{e}\n{}", c.listing));
    assert_eq!(
        backend_pica::shbin::write(&again).unwrap(),
        c.bytes,
        "{}",
        c.listing
    );
    // And picasso would list every one: no declared name starts with `_`.
    for line in c.listing.lines() {
        let Some((directive, rest)) = line.split_once(' ') else {
            continue;
        };
        if [".fvec", ".ivec", ".bool", ".in"].contains(&directive) {
            let declared = rest.split(['[', ' ']).next().unwrap();
            assert!(!declared.starts_with('_'), "{line}\n{}", c.listing);
        }
    }
}

/// Every vertex shader of the corpus that the PICA200 takes: the reflection is the tables.
#[test]
fn corpus_reflections_are_the_tables() {
    let mut checked = 0;
    for path in tests::fixture_files("glsl", ".vert.spv") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let Ok(c) = compile(Source::spirv(&bytes).named(&name), &Options::pica()) else {
            continue;
        };
        check_against_tables(&name, &c);
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} shaders");
}
