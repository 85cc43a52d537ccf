//! The PICA200's fragment stage: fragment shaders compiled to the texture combiners.
//!
//! The command words the compiler writes are read back by [`tests::tev_oracle`], a decoder
//! and evaluator written from the register documentation
//! (`../shared/docs/pica200-fragment-pipeline.md`), not from the encoder; the expected
//! values come from the documentation's examples and table (§6, §11) or from the generated
//! program's own tree ([`tests::tevgen`]), computed in floats.

use spv2retro::{Options, Source, Stage, compile, compile_pair};
use test_kit::Rng;
use tests::tev_oracle::{self as oracle, Config};
use tests::tevgen::{Env, Program};

fn frag(body: &str) -> String {
    format!(
        "#version 450\n\
         layout(location = 0) in vec2 uv0;\nlayout(location = 1) in vec2 uv1;\n\
         layout(location = 2) in vec2 uv2;\nlayout(location = 3) in vec4 vColor;\n\
         layout(binding = 0) uniform sampler2D t0;\nlayout(binding = 1) uniform sampler2D t1;\n\
         layout(binding = 2) uniform sampler2D t2;\n\
         layout(binding = 3) uniform U {{ vec4 tint; vec4 tint2; }};\n\
         layout(location = 0) out vec4 color;\n\
         void main() {{\n{body}\n}}\n"
    )
}

fn compiled(glsl: &str) -> spv2retro::Compiled {
    compile(
        Source::glsl(glsl, Stage::Fragment),
        &Options::pica().stage(Stage::Fragment),
    )
    .unwrap_or_else(|e| panic!("{glsl}\n{e}"))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    assert_eq!(
        bytes.len() % 8,
        0,
        "a command list is whole 8-byte commands"
    );
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The configuration the words set (over citro3d's defaults), decoded by the oracle.
fn decoded(c: &spv2retro::Compiled) -> Config {
    Config::from_words(&words(&c.bytes)).expect("the command list decodes")
}

/// A stage as the documentation's table spells it: `FUNC [s1, s2, s3 | o1, o2, o3]` for the
/// RGB combiner, with the sources and operands the function reads.
fn spell_rgb(c: &Config, k: usize) -> String {
    let s = &c.stages[k];
    let n = arity(s.rgb_func);
    let sources: Vec<&str> = s.rgb_sources[..n]
        .iter()
        .map(|v| oracle::source_name(*v).unwrap_or("?"))
        .collect();
    let operands: Vec<&str> = s.rgb_operands[..n]
        .iter()
        .map(|v| oracle::rgb_operand_name(*v).unwrap_or("?"))
        .collect();
    format!(
        "{} [{} | {}] x{}",
        oracle::func_name(s.rgb_func).unwrap_or("?"),
        sources.join(", "),
        operands.join(", "),
        1 << s.rgb_scale
    )
}

fn spell_alpha(c: &Config, k: usize) -> String {
    let s = &c.stages[k];
    let n = arity(s.alpha_func);
    let sources: Vec<&str> = s.alpha_sources[..n]
        .iter()
        .map(|v| oracle::source_name(*v).unwrap_or("?"))
        .collect();
    let operands: Vec<&str> = s.alpha_operands[..n]
        .iter()
        .map(|v| oracle::alpha_operand_name(*v).unwrap_or("?"))
        .collect();
    format!(
        "{} [{} | {}] x{}",
        oracle::func_name(s.alpha_func).unwrap_or("?"),
        sources.join(", "),
        operands.join(", "),
        1 << s.alpha_scale
    )
}

fn arity(func: u8) -> usize {
    match func {
        0 => 1,
        4 | 8 | 9 => 3,
        _ => 2,
    }
}

/// Stages that do something: not REPLACE GPU_PREVIOUS in both combiners.
fn working_stages(c: &Config) -> usize {
    c.stages
        .iter()
        .rposition(|s| {
            !(s.rgb_func == 0
                && s.rgb_sources[0] == 0xF
                && s.alpha_func == 0
                && s.alpha_sources[0] == 0xF
                && s.rgb_operands[0] == 0
                && s.alpha_operands[0] == 0
                && s.rgb_scale == 0
                && s.alpha_scale == 0)
        })
        .map_or(0, |k| k + 1)
}

#[test]
fn texture_times_vertex_colour_is_the_documented_command() {
    // §6: "So `texture0 * vColor` is [0x00030003, 0x804F00C0, 0x00000000, 0x00010001,
    // 0xFFFFFFFF, 0x00000000]".
    let c = compiled(&frag("color = texture(t0, uv0) * vColor;"));
    let w = words(&c.bytes);
    assert_eq!(
        w[..6],
        [
            0x00030003, 0x804F00C0, 0x00000000, 0x00010001, 0xFFFFFFFF, 0x00000000
        ]
    );
    let d = decoded(&c);
    assert_eq!(working_stages(&d), 1);
    for k in 1..6 {
        // The stages after it pass the value on: REPLACE GPU_PREVIOUS.
        assert_eq!(
            spell_rgb(&d, k),
            "GPU_REPLACE [GPU_PREVIOUS | GPU_TEVOP_RGB_SRC_COLOR] x1"
        );
    }
    assert_eq!(d.alpha_test, None);
    let t = c.texenv().expect("a fragment program has a configuration");
    assert_eq!(t.textures[0].sampler, "t0");
    assert_eq!(t.color.as_ref().map(|c| c.0.as_str()), Some("vColor"));
}

/// The documentation's table of common expressions (§11), each compiled to the stages it
/// lists (RGB combiner; alpha where the row says).
#[test]
fn the_documented_forms_compile_to_the_documented_stages() {
    let src = "GPU_TEVOP_RGB_SRC_COLOR";
    let rows: Vec<(&str, Vec<String>)> = vec![
        (
            "color = texture(t0, uv0);",
            vec![format!("GPU_REPLACE [GPU_TEXTURE0 | {src}] x1")],
        ),
        (
            "color = vColor;",
            vec![format!("GPU_REPLACE [GPU_PRIMARY_COLOR | {src}] x1")],
        ),
        (
            "color = texture(t0, uv0) * vColor * tint;",
            vec![
                format!("GPU_MODULATE [GPU_TEXTURE0, GPU_PRIMARY_COLOR | {src}, {src}] x1"),
                format!("GPU_MODULATE [GPU_PREVIOUS, GPU_CONSTANT | {src}, {src}] x1"),
            ],
        ),
        (
            "color = mix(texture(t0, uv0), texture(t1, uv1), vColor);",
            vec![format!(
                "GPU_INTERPOLATE [GPU_TEXTURE1, GPU_TEXTURE0, GPU_PRIMARY_COLOR | {src}, {src}, {src}] x1"
            )],
        ),
        (
            "color = mix(texture(t0, uv0), texture(t1, uv1), vColor.a);",
            vec![format!(
                "GPU_INTERPOLATE [GPU_TEXTURE1, GPU_TEXTURE0, GPU_PRIMARY_COLOR | {src}, {src}, GPU_TEVOP_RGB_SRC_ALPHA] x1"
            )],
        ),
        (
            "color = texture(t0, uv0) * vColor + tint;",
            vec![format!(
                "GPU_MULTIPLY_ADD [GPU_TEXTURE0, GPU_PRIMARY_COLOR, GPU_CONSTANT | {src}, {src}, {src}] x1"
            )],
        ),
        (
            "color = min(texture(t0, uv0) + vColor, 1.0) * tint;",
            vec![format!(
                "GPU_ADD_MULTIPLY [GPU_TEXTURE0, GPU_PRIMARY_COLOR, GPU_CONSTANT | {src}, {src}, {src}] x1"
            )],
        ),
        (
            "color = texture(t0, uv0) + vColor - 0.5;",
            vec![format!(
                "GPU_ADD_SIGNED [GPU_TEXTURE0, GPU_PRIMARY_COLOR | {src}, {src}] x1"
            )],
        ),
        (
            "color = 1.0 - texture(t0, uv0);",
            vec!["GPU_REPLACE [GPU_TEXTURE0 | GPU_TEVOP_RGB_ONE_MINUS_SRC_COLOR] x1".into()],
        ),
        (
            "color = texture(t0, uv0).aaaa;",
            vec!["GPU_REPLACE [GPU_TEXTURE0 | GPU_TEVOP_RGB_SRC_ALPHA] x1".into()],
        ),
        (
            "color = vec4(vec3(texture(t0, uv0).g), 1.0);",
            vec!["GPU_REPLACE [GPU_TEXTURE0 | GPU_TEVOP_RGB_SRC_G] x1".into()],
        ),
        (
            "color = texture(t0, uv0) * 2.0;",
            vec![format!("GPU_REPLACE [GPU_TEXTURE0 | {src}] x2")],
        ),
        (
            "color = texture(t0, uv0) * vColor * 4.0;",
            vec![format!(
                "GPU_MODULATE [GPU_TEXTURE0, GPU_PRIMARY_COLOR | {src}, {src}] x4"
            )],
        ),
        (
            "color = clamp(texture(t0, uv0), 0.0, 1.0);",
            vec![format!("GPU_REPLACE [GPU_TEXTURE0 | {src}] x1")],
        ),
        (
            "color = vec4(vec3(dot(texture(t0, uv0).rgb - 0.5, vColor.rgb - 0.5) * 4.0), 1.0);",
            vec![format!(
                "GPU_DOT3_RGB [GPU_TEXTURE0, GPU_PRIMARY_COLOR | {src}, {src}] x1"
            )],
        ),
        (
            "color = vec4(vec3(dot(texture(t0, uv0).rgb * 2.0 - 1.0, vColor.rgb * 2.0 - 1.0)), 1.0);",
            vec![format!(
                "GPU_DOT3_RGB [GPU_TEXTURE0, GPU_PRIMARY_COLOR | {src}, {src}] x1"
            )],
        ),
    ];
    let mut wrong = Vec::new();
    for (body, want) in rows {
        let c = compiled(&frag(body));
        let d = decoded(&c);
        let got: Vec<String> = (0..working_stages(&d)).map(|k| spell_rgb(&d, k)).collect();
        if got != want {
            wrong.push(format!(
                "{body}\n  want {want:#?}\n  got  {got:#?}\n{}",
                c.listing
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // `vec4(a.rgb, b.a)`: one stage, RGB from one, alpha from the other.
    let c = compiled(&frag("color = vec4(texture(t0, uv0).rgb, vColor.a);"));
    let d = decoded(&c);
    assert_eq!(working_stages(&d), 1);
    assert_eq!(
        spell_rgb(&d, 0),
        format!("GPU_REPLACE [GPU_TEXTURE0 | {src}] x1")
    );
    assert_eq!(
        spell_alpha(&d, 0),
        "GPU_REPLACE [GPU_PRIMARY_COLOR | GPU_TEVOP_A_SRC_ALPHA] x1"
    );
}

/// §10 rule 15: `a < t` → GEQUAL ⌈255t⌉, `a <= t` → GREATER ⌊255t⌋, `a > t` → LEQUAL ⌊255t⌋,
/// `a >= t` → LESS ⌈255t⌉; t outside [0, 1] folds.
#[test]
fn a_discard_on_the_final_alpha_is_the_alpha_test() {
    let cases = [
        ("<", "0.5", Some((7u8, 128u8))),
        ("<=", "0.5", Some((6, 127))),
        (">", "0.5", Some((5, 127))),
        (">=", "0.5", Some((4, 128))),
        ("<", "0.1", Some((7, 26))),
        ("==", "0.2", Some((3, 51))),
        ("<", "0.0", Some((1, 0))),
        ("<", "2.0", Some((0, 0))),
    ];
    for (op, t, want) in cases {
        let body =
            format!("vec4 c = texture(t0, uv0) * vColor; if (c.a {op} {t}) discard; color = c;");
        let d = decoded(&compiled(&frag(&body)));
        assert_eq!(d.alpha_test, want, "{body}");
    }
}

/// What the combiners cannot compute is refused by `pica.fragment`, naming the line.
#[test]
fn what_the_combiners_cannot_compute_is_refused_with_its_line() {
    let cases = [
        ("color = sin(texture(t0, uv0));", "sine"),
        ("color = texture(t0, uv0 * 2.0);", "computed coordinate"),
        ("color = texture(t0, uv0) / vColor.x;", "division"),
        (
            "color = (texture(t0, uv0) + vColor) * tint;",
            "can be 0.000 to 2.000",
        ),
        ("color = texture(t0, uv0) * 5.0;", "a factor of 5"),
        (
            "color = texture(t0, uv0) * vColor + vec4(1.5);",
            "outside [0, 1]",
        ),
        ("color = texture(t0, uv0).bgra;", "channels"),
        (
            "color = texture(t0, uv0) * vec4(uv0.x);",
            "texture coordinate",
        ),
        ("color = vec4(uv0, 0.0, 1.0);", "channels"),
        (
            "vec4 c = texture(t0, uv0); if (c.a < 0.5) discard; color = c * vColor;",
            "final alpha",
        ),
    ];
    for (body, why) in cases {
        let text = frag(body);
        let e = compile(
            Source::glsl(&text, Stage::Fragment),
            &Options::pica().stage(Stage::Fragment),
        )
        .expect_err(body);
        let shown = e.to_string();
        assert!(shown.contains("error[pica.fragment]"), "{body}: {shown}");
        assert!(shown.contains(why), "{body}: want {why:?} in {shown}");
        // The body is line 12 of the text.
        assert!(shown.contains(":12"), "{body}: no line 12 in {shown}");
    }
}

/// Seven dependent operations do not fit six stages; four textures do not fit three units.
#[test]
fn hardware_limits_are_refused_with_the_numbers() {
    let long = frag(
        "vec4 a = texture(t0, uv0);\n\
         a = mix(a, texture(t1, uv1), vColor.a); a = a * tint; a = mix(a, vColor, tint2.a);\n\
         a = 1.0 - a * texture(t2, uv2); a = a * vColor; a = mix(tint, a, texture(t0, uv0).a);\n\
         a = a * texture(t1, uv1).rrrr; color = a;",
    );
    let e = compile(
        Source::glsl(&long, Stage::Fragment),
        &Options::pica().stage(Stage::Fragment),
    )
    .expect_err("seven stages");
    assert!(e.to_string().contains("fit the PICA200's 6 stages"), "{e}");
    // A loop too long to unroll is named as a loop, not as a branch.
    let looped = frag(
        "vec4 c = vColor;\nfor (int i = 0; i < 60; i++) { c = c * vColor + vColor * 0.01; }\n\
         color = c;",
    );
    let e = compile(
        Source::glsl(&looped, Stage::Fragment),
        &Options::pica().stage(Stage::Fragment),
    )
    .expect_err("a loop of 60 trips");
    assert!(e.to_string().contains("a loop that does not unroll"), "{e}");
}

fn env(r: &mut Rng) -> ([[u8; 4]; 3], [u8; 4], [u8; 4]) {
    let mut b = || std::array::from_fn(|_| r.index(256) as u8);
    (std::array::from_fn(|_| b()), b(), b())
}

/// The words, with the uniform `tint`'s value in the stages whose colour it is (as the
/// application sets it: a command per stage after the program's list).
fn with_tint(c: &spv2retro::Compiled, tint: [u8; 4]) -> Vec<u32> {
    let mut w = words(&c.bytes);
    let info = c.reflection.texenv.as_ref().expect("texenv");
    for (k, s) in info.stages.iter().enumerate() {
        if let spv2retro::reflect::StageColorInfo::Uniform { uniform } = &s.color {
            assert_eq!(uniform, "tint");
            let base = [0x0C0u32, 0x0C8, 0x0D0, 0x0D8, 0x0F0, 0x0F8][k];
            // COLOR is the fourth register of a stage: one parameter, all bytes.
            w.extend([u32::from_le_bytes(tint), 0x000F_0000 | (base + 3)]);
        }
    }
    w
}

/// Generated programs: the oracle runs the compiler's words on random inputs, and the
/// colour must be what the program's tree computes in floats, within 2/255 per lane on the
/// rounding model (half a byte more per stage beyond three, times a ×2/×4 scale) and
/// (1 + stages)/255 on the truncating one; the simulator
/// (`backend_pica::fragment::sim`) must agree with the oracle byte for byte.
#[test]
fn generated_programs_compute_what_glsl_computes() {
    let mut r = Rng(0x7e5_f12a6);
    let (mut compiled_count, mut refused, mut cases, mut worst_rounded, mut worst_bytes) =
        (0, 0, 0, 0.0f32, 0.0f32);
    // The same, over programs with no stage scaled by 2 or 4 (a scale multiplies the error
    // of the stages before it).
    let (mut worst_rounded_1, mut worst_bytes_1) = (0.0f32, 0.0f32);
    let mut refusals = Vec::new();
    for n in 0..400 {
        let p = Program::random(&mut r, 2);
        let text = p.glsl();
        let c = match compile(
            Source::glsl(&text, Stage::Fragment),
            &Options::pica().stage(Stage::Fragment),
        ) {
            Ok(c) => c,
            Err(e) => {
                // A refusal must be the combiners' rule (never an internal error); the
                // count of compiled programs is checked below.
                let shown = e.to_string();
                assert!(
                    shown.contains("error[pica.fragment]"),
                    "program {n} refused for another reason:\n{text}\n{shown}"
                );
                refused += 1;
                refusals.push(format!("{text}\n{shown}"));
                continue;
            }
        };
        compiled_count += 1;
        let t = c.texenv().expect("texenv").clone();
        for _ in 0..24 {
            let (tex, primary, tint) = env(&mut r);
            let f = |b: [u8; 4]| b.map(|x| f32::from(x) / 255.0);
            let e = Env {
                textures: tex.map(f),
                color: f(primary),
                tint: f(tint),
            };
            // Units by sampler name (t0, t1, t2).
            let mut units = [[0u8; 4]; 4];
            for u in &t.textures {
                let k: usize = u.sampler[1..].parse().expect("sampler tK");
                units[u.unit as usize] = tex[k];
            }
            let config = Config::from_words(&with_tint(&c, tint)).expect("decodes");
            let got = oracle::evaluate(&config, primary, units);
            let rounded = oracle::evaluate_rounded(
                &config,
                f(primary),
                units.map(|b| b.map(|x| f32::from(x) / 255.0)),
            );
            let mut with_uniform = t.clone();
            for s in &mut with_uniform.stages {
                if let backend_pica::fragment::config::Color::Uniform { bytes, .. } = &mut s.color {
                    *bytes = tint;
                }
            }
            let sim = backend_pica::fragment::sim::run(
                &with_uniform,
                &backend_pica::fragment::sim::Inputs {
                    primary,
                    textures: [units[0], units[1], units[2]],
                },
            );
            assert_eq!(
                sim, got,
                "the simulator and the oracle differ on program {n}\n{text}"
            );
            let want = p.eval(&e);
            if let Some(threshold) = p.discard_below {
                // Skip fragments at the alpha test's edge (the byte rounding decides).
                if (p.alpha(&e) - threshold).abs() < 4.0 / 255.0 {
                    continue;
                }
            }
            cases += 1;
            match (want, got, rounded) {
                (None, None, None) => {}
                (Some(w), Some(g), Some(rd)) => {
                    let unscaled = config
                        .stages
                        .iter()
                        .all(|s| s.rgb_scale == 0 && s.alpha_scale == 0);
                    for k in 0..4 {
                        let gb = f32::from(g[k]) / 255.0;
                        worst_bytes = worst_bytes.max((gb - w[k]).abs());
                        worst_rounded = worst_rounded.max((rd[k] - w[k]).abs());
                        if unscaled {
                            worst_bytes_1 = worst_bytes_1.max((gb - w[k]).abs());
                            worst_rounded_1 = worst_rounded_1.max((rd[k] - w[k]).abs());
                        }
                    }
                    // A stage's scale multiplies the 8-bit error of the stages before it.
                    let scale = config
                        .stages
                        .iter()
                        .map(|s| 1u32 << s.rgb_scale.max(s.alpha_scale))
                        .max()
                        .unwrap_or(1) as f32;
                    let stages = working_stages(&config) as f32 * scale;
                    assert!(
                        // 2/255, and half a byte more per stage beyond three (each stage
                        // rounds its result to a byte; §10.17).
                        (0..4).all(|k| (rd[k] - w[k]).abs()
                            <= (2.0f32).max((1.0 + stages / scale) / 2.0) * scale / 255.0 + 1e-4),
                        "program {n}, rounding model: want {w:?}, got {rd:?}\n{text}\n{}",
                        c.listing
                    );
                    assert!(
                        (0..4).all(|k| (f32::from(g[k]) / 255.0 - w[k]).abs()
                            <= (1.0 + stages) / 255.0 + 1e-4),
                        "program {n}, byte model: want {w:?}, got {g:?}\n{text}\n{}",
                        c.listing
                    );
                }
                other => panic!(
                    "program {n}: the discard differs (want, bytes, rounded) = {other:?}\n{text}\n{}",
                    c.listing
                ),
            }
        }
    }
    eprintln!(
        "{compiled_count} programs compiled, {refused} refused by pica.fragment, {cases} \
         cases; worst lane error {:.2}/255 (rounding model), {:.2}/255 (bytes); without \
         scaling {:.2}/255 and {:.2}/255",
        worst_rounded * 255.0,
        worst_bytes * 255.0,
        worst_rounded_1 * 255.0,
        worst_bytes_1 * 255.0
    );
    if std::env::var_os("TEV_SHOW_REFUSALS").is_some() {
        eprintln!("{}", refusals.join("\n"));
    }
    assert!(
        compiled_count >= 340,
        "{compiled_count} of 400 compiled (TEV_SHOW_REFUSALS=1 lists the refusals)"
    );
}

/// The C header, compiled against citro3d's own `texenv.h` and run, sets the registers the
/// command words set.
#[test]
fn the_c_header_sets_what_the_command_words_set() {
    let mut r = Rng(0xc3d);
    let mut checked = 0;
    for n in 0..12 {
        let p = Program::random(&mut r, 2);
        let text = p.glsl();
        let Ok(c) = compile(
            Source::glsl(&text, Stage::Fragment),
            &Options::pica().stage(Stage::Fragment),
        ) else {
            continue;
        };
        let header = c.c_header("gen", "gen.frag").expect("a header");
        let tint = [0x10u8, 0x80, 0xC0, 0xFF];
        let mut calls = String::from("gen_texenv();");
        if header.contains("gen_set_tint") {
            calls += &format!(
                " gen_set_tint({:.6}f, {:.6}f, {:.6}f, {:.6}f);",
                f32::from(tint[0]) / 255.0,
                f32::from(tint[1]) / 255.0,
                f32::from(tint[2]) / 255.0,
                f32::from(tint[3]) / 255.0
            );
        }
        let state = tests::c3d::run(&header, &calls)
            .unwrap_or_else(|e| panic!("program {n}: the header does not run: {e}\n{header}"));
        let want = Config::from_words(&with_tint(&c, tint)).expect("decodes");
        let mut regs = std::collections::BTreeMap::new();
        for (k, base) in [0x0C0u16, 0x0C8, 0x0D0, 0x0D8, 0x0F0, 0x0F8]
            .iter()
            .enumerate()
        {
            for (i, w) in state.stages[k].iter().enumerate() {
                regs.insert(base + i as u16, *w);
            }
        }
        regs.insert(0x0E0, state.update_buffer);
        regs.insert(0x0FD, state.buffer_color);
        regs.insert(0x104, state.alpha_test);
        let got = Config::from_registers(&regs);
        assert_eq!(got, want, "program {n}:\n{text}\n{header}");
        checked += 1;
    }
    assert!(checked >= 8, "{checked} of 12 headers checked");
}

/// A pair: the vertex outputs the combiners read get their semantics.
#[test]
fn a_pair_gives_the_vertex_outputs_the_semantics_the_combiners_read() {
    let vert = "#version 450\n\
        layout(location = 0) in vec4 pos;\nlayout(location = 1) in vec2 st;\n\
        layout(location = 2) in vec4 rgba;\n\
        layout(location = 0) out vec4 vColor;\nlayout(location = 1) out vec2 uvA;\n\
        layout(location = 2) out vec2 uvB;\n\
        void main() { gl_Position = pos; vColor = rgba; uvA = st; uvB = st * 2.0; }\n";
    let frag = "#version 450\n\
        layout(location = 0) in vec4 vColor;\nlayout(location = 1) in vec2 uvA;\n\
        layout(location = 2) in vec2 uvB;\n\
        layout(binding = 0) uniform sampler2D base;\nlayout(binding = 1) uniform sampler2D detail;\n\
        layout(location = 0) out vec4 color;\n\
        void main() { color = texture(detail, uvB) * texture(base, uvA) * vColor; }\n";
    let (v, f) = compile_pair(
        Source::glsl(vert, Stage::Vertex),
        Source::glsl(frag, Stage::Fragment),
        &Options::pica(),
    )
    .expect("the pair compiles");
    let semantic = |name: &str| {
        v.reflection
            .outputs
            .iter()
            .find(|o| o.name == name)
            .and_then(|o| o.semantic.clone())
    };
    let t = f.texenv().expect("texenv");
    let unit = |s: &str| t.textures.iter().find(|u| u.sampler == s).map(|u| u.unit);
    assert_eq!(semantic("vColor").as_deref(), Some("color"));
    assert_eq!(
        semantic("uvB"),
        unit("detail").map(|u| format!("texcoord{u}"))
    );
    assert_eq!(
        semantic("uvA"),
        unit("base").map(|u| format!("texcoord{u}"))
    );
}

/// Two uniform colours in a row: the alpha half is computed with the first and carried on
/// by the last stage, whose constant is the second (two stages, not a refusal).
#[test]
fn a_result_whose_constant_clashes_is_carried_into_the_last_stage() {
    let c = compiled(&frag(
        "vec4 c = vColor * tint; color = vec4(c.rgb * tint2.rgb, c.a);",
    ));
    let d = decoded(&c);
    assert_eq!(working_stages(&d), 2, "{}", c.listing);
    assert_eq!(
        spell_alpha(&d, 1),
        "GPU_REPLACE [GPU_PREVIOUS | GPU_TEVOP_A_SRC_ALPHA] x1",
        "{}",
        c.listing
    );
    // Run it: tint = (0.5, 1, 1, 0.5), tint2 = (1, 0.5, 1, 1), vColor = 1.
    let mut w = words(&c.bytes);
    w.extend([0x80FF_FF80, 0x000F_00C3, 0xFFFF_80FF, 0x000F_00CB]);
    let got = oracle::evaluate(&Config::from_words(&w).unwrap(), [255; 4], [[0; 4]; 4]);
    assert_eq!(got, Some([128, 128, 255, 128]));
}

/// A sampler named like a swizzle (`a`) is not the `.a` of a colour.
#[test]
fn a_sampler_named_like_a_swizzle_is_not_a_swizzle() {
    let text = "precision mediump float;\nvarying vec2 uv;\nvarying vec4 vColor;\n\
                uniform sampler2D a;\n\
                void main() { gl_FragColor = texture2D(a, uv) * vColor.a; }\n";
    let c = compile(
        Source::glsl(text, Stage::Fragment),
        &Options::pica().stage(Stage::Fragment),
    )
    .expect("compiles");
    let d = decoded(&c);
    assert_eq!(
        spell_rgb(&d, 0),
        "GPU_MODULATE [GPU_TEXTURE0, GPU_PRIMARY_COLOR | GPU_TEVOP_RGB_SRC_COLOR, GPU_TEVOP_RGB_SRC_ALPHA] x1"
    );
}

/// Two texture units reading one varying: the vertex program writes it twice, once per
/// unit's texcoord, and both carry its value.
#[test]
fn two_units_reading_one_varying_get_it_twice_from_the_vertex_program() {
    let vert = "#version 450\n\
        layout(location = 0) in vec4 pos;\nlayout(location = 1) in vec2 st;\n\
        layout(location = 0) out vec2 uv;\n\
        void main() { gl_Position = pos; uv = st; }\n";
    let frag = "#version 450\n\
        layout(location = 0) in vec2 uv;\n\
        layout(binding = 0) uniform sampler2D base;\nlayout(binding = 1) uniform sampler2D detail;\n\
        layout(location = 0) out vec4 color;\n\
        void main() { color = texture(base, uv) * texture(detail, uv); }\n";
    let (v, f) = compile_pair(
        Source::glsl(vert, Stage::Vertex),
        Source::glsl(frag, Stage::Fragment),
        &Options::pica(),
    )
    .expect("the pair compiles");
    let t = f.texenv().expect("texenv");
    assert_eq!(t.textures.len(), 2);
    let outputs: Vec<(String, String)> = v
        .reflection
        .outputs
        .iter()
        .filter(|o| o.name == "uv")
        .map(|o| (o.register.clone(), o.semantic.clone().unwrap_or_default()))
        .collect();
    let semantics: Vec<&str> = outputs.iter().map(|(_, s)| s.as_str()).collect();
    assert!(
        semantics.contains(&"texcoord0") && semantics.contains(&"texcoord1"),
        "{outputs:?}"
    );
    // Both registers hold the coordinate.
    let sim = backend_pica::sim::Simulator::new(&v.bytes).unwrap();
    let mut inputs = [[0.0f32; 4]; 16];
    let reg = |name: &str| {
        let i = v.reflection.inputs.iter().find(|i| i.name == name).unwrap();
        i.register[1..].parse::<usize>().unwrap()
    };
    inputs[reg("pos")] = [0.0, 0.0, 0.0, 1.0];
    inputs[reg("st")] = [0.25, 0.75, 0.0, 0.0];
    let out = sim
        .run(0, &inputs, &backend_pica::sim::Uniforms::default())
        .unwrap();
    for (register, _) in &outputs {
        let r: usize = register[1..].parse().unwrap();
        assert_eq!(out.outputs[r][..2], [0.25, 0.75], "{register}");
    }
}
