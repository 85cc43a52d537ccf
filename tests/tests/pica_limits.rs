//! The PICA200's limits are errors that name the limit and the count, never truncation: one
//! shader past each limit (made in the test by naga's GLSL front end, or from the corpus),
//! and each must be refused with the rule and the numbers in its message. Shaders at or just
//! under a limit compile.

use backend_pica::codegen::{Options, compile};
use backend_pica::shbin::Semantic;
use mir::Diagnostics;
use tests::mirtest::lower;

/// A GLSL vertex shader's MIR, through the library's GLSL input (naga).
fn vertex(source: &str) -> mir::Module {
    let bytes = spv2retro::spirv_from_glsl(source, spv2retro::Stage::Vertex)
        .unwrap_or_else(|e| panic!("{e}\n{source}"));
    lower(&bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// The first error's rule and message.
fn refused(result: Result<backend_pica::codegen::Compiled, Diagnostics>) -> (String, String) {
    let e = result.map(|_| ()).expect_err("refused");
    let d = e.errors().next().expect("an error");
    (d.rule.to_string(), d.message.clone())
}

#[test]
fn more_temporaries_than_sixteen() {
    // Twenty values, each from a running value that changes (so none can be computed
    // later), all read at the end.
    let mut body = String::from("vec4 s = a;\n");
    for i in 0..20 {
        body += &format!("vec4 t{i} = sin(s); s = s * k[{i}] + b;\n");
    }
    let sum: Vec<String> = (0..10).map(|i| format!("t{i} * t{}", 19 - i)).collect();
    body += &format!("o = {};\n", sum.join(" + "));
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a; layout(location=1) in vec4 b;\n\
         layout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U {{ vec4 k[20]; }};\n\
         void main() {{ {body} gl_Position = a; }}"
    ));
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.limit", "{message}");
    assert!(message.contains("temporaries"), "{message}");
    assert!(message.contains("has 16"), "{message}");
    let needed: usize = message
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .expect("a count");
    assert!(needed > 16, "{message}");
}

#[test]
fn more_than_512_instructions() {
    // Sixty sines, a dozen words each.
    let mut body = String::from("vec4 acc = vec4(0.0);\n");
    for i in 0..60 {
        body += &format!("acc += sin(a * k[{i}]);\n");
    }
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U {{ vec4 k[60]; }};\n\
         void main() {{ {body} o = acc; gl_Position = a; }}"
    ));
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.limit", "{message}");
    assert!(message.contains("runs at most 512"), "{message}");
}

#[test]
fn uniforms_and_literals_share_96_registers() {
    let m = vertex(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U { vec4 k[95]; };\n\
         void main() { o = a * k[3] + vec4(0.25, 0.5, 0.75, 2.0) + vec4(3.0, 5.0, 7.0, 9.0); \
         gl_Position = a * k[94]; }",
    );
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.limit", "{message}");
    assert!(message.contains("c0 to c94"), "{message}");
    assert!(message.contains("96 float registers"), "{message}");
    // One register fewer of uniforms fits.
    let m = vertex(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U { vec4 k[94]; };\n\
         void main() { o = a * k[3] + vec4(0.25, 0.5, 0.75, 2.0); gl_Position = a * k[93]; }",
    );
    compile(&m, &Options::default()).expect("fits");
}

#[test]
fn seven_semantic_outputs_at_most() {
    let outs: String = (0..7)
        .map(|l| format!("layout(location={l}) out vec4 o{l};\n"))
        .collect();
    let writes: String = (0..7).map(|l| format!("o{l} = a * {l}.0;\n")).collect();
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a;\n{outs}void main() {{ {writes} gl_Position = a; }}"
    ));
    // Location 6 has no default semantic.
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.interface", "{message}");
    assert!(message.contains("location 6 has no semantic"), "{message}");
    // With one, that is eight outputs with gl_Position: one too many.
    let options = Options {
        semantics: vec![(6, Semantic::Dummy)],
        ..Options::default()
    };
    let (rule, message) = refused(compile(&m, &options));
    assert_eq!(rule, "pica.limit", "{message}");
    assert!(message.contains("more than 7 outputs"), "{message}");
}

#[test]
fn inputs_v0_to_v15() {
    let m =
        vertex("#version 450\nlayout(location=16) in vec4 a;\nvoid main() { gl_Position = a; }");
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.limit", "{message}");
    assert!(message.contains("location 16"), "{message}");
    let m =
        vertex("#version 450\nlayout(location=15) in vec4 a;\nvoid main() { gl_Position = a; }");
    compile(&m, &Options::default()).expect("v15 exists");
}

#[test]
fn if_nesting_deeper_than_eight() {
    // Twelve nested ifs on values the program computes, with arms too big to become
    // selects (the innermost may).
    let mut body = String::from("vec4 r = a;\n");
    for i in 0..12 {
        body += &format!("if (a.x > k[{i}].x) {{ r = r * sin(k[{i}]);\n");
    }
    body += &"}".repeat(12);
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U {{ vec4 k[12]; }};\n\
         void main() {{ {body} o = r; gl_Position = a; }}"
    ));
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.control-flow", "{message}");
    assert!(message.contains("deeper than 8"), "{message}");
}

#[test]
fn loop_nesting_deeper_than_four() {
    // Five loops on uniform counts (not unrollable), nested.
    let mut body = String::from("vec4 r = a;\n");
    for i in 0..5 {
        body += &format!("for (int i{i} = 0; i{i} < n[{i}].x; i{i}++) {{\n");
    }
    body += "r = r * 0.5 + a;";
    body += &"}".repeat(5);
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U {{ ivec4 n[5]; }};\n\
         void main() {{ {body} o = r; gl_Position = a; }}"
    ));
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.control-flow", "{message}");
    assert!(message.contains("deeper than 4"), "{message}");
}

#[test]
fn more_than_128_operand_descriptors() {
    // Products of differently swizzled operands, added and subtracted: a descriptor each
    // (a negated product is a subtraction, whose negated operand is a descriptor too).
    let letters = ['x', 'y', 'z', 'w'];
    let mut body = String::from("vec4 acc = vec4(0.0);\n");
    for i in 0..150usize {
        let sw: String = (0..4).map(|k| letters[(i >> (2 * k)) & 3]).collect();
        let sw2: String = (0..4)
            .map(|k| letters[((i * 7 + 3) >> (2 * k)) & 3])
            .collect();
        let op = if i % 2 == 0 { "+=" } else { "-=" };
        body += &format!("acc {op} a.{sw} * b.{sw2};\n");
    }
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a; layout(location=1) in vec4 b;\n\
         layout(location=0) out vec4 o;\nvoid main() {{ {body} o = acc; gl_Position = a; }}"
    ));
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.limit", "{message}");
    assert!(message.contains("128 operand descriptors"), "{message}");
}

#[test]
fn the_corpus_stays_within_every_limit() {
    // What does compile is within the limits by construction: check the numbers.
    for path in tests::fixture_files("glsl", ".vert.spv") {
        let m = lower(&std::fs::read(&path).unwrap()).unwrap();
        let Ok(p) = compile(&m, &Options::default()) else {
            continue;
        };
        let r = &p.reflection.stats;
        assert!(r.instructions <= 512, "{}", path.display());
        assert!(r.temporaries <= 16, "{}", path.display());
        assert!(r.operand_descriptors.unwrap() <= 128, "{}", path.display());
        assert!(r.constant_registers <= 96, "{}", path.display());
    }
}

#[test]
fn more_than_32_multiply_add_patterns_still_compile() {
    // MAD reaches operand descriptors 0-31 only: fifty differently swizzled multiply-adds
    // need more, so the later ones become MUL + ADD; the result must not change.
    let letters = ['x', 'y', 'z', 'w'];
    let mut body = String::from("vec4 acc = vec4(0.0);\n");
    for i in 0..50usize {
        let sw: String = (0..4).map(|k| letters[(i >> (2 * k)) & 3]).collect();
        body += &format!("acc += a.{sw} * b.wzyx;\n");
    }
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a; layout(location=1) in vec4 b;\n\
         layout(location=0) out vec4 o;\nvoid main() {{ {body} o = acc; gl_Position = a; }}"
    ));
    let p = compile(&m, &Options::default()).expect("compiles");
    let mads = p
        .code
        .iter()
        .filter(|i| matches!(i, backend_pica::Inst::Mad { .. }))
        .count();
    assert!(
        (30..=32).contains(&mads),
        "{mads} MADs: the limit is not exercised"
    );
    let sim = backend_pica::sim::Simulator::new(&p.bytes).unwrap();
    let mut rng = tests::mirtest::Rng(7);
    for _ in 0..20 {
        let values = tests::mirtest::Values::random(&m, &mut rng, false);
        let env = values.env(&tests::mirtest::Procedural);
        let mir::eval::Outcome::Outputs(want) = mir::eval::run(&m, &env).unwrap() else {
            panic!()
        };
        let mut inputs = [[0.0f32; 4]; 16];
        for (i, (_, input)) in m.inputs.iter().enumerate() {
            inputs[input.location as usize] = values.inputs[i];
        }
        let out = sim
            .run(0, &inputs, &backend_pica::sim::Uniforms::default())
            .unwrap();
        let k = m
            .outputs
            .iter()
            .position(|o| o.location == Some(0))
            .unwrap();
        let reg = p.outputs[k].unwrap().0 as usize;
        for l in 0..4 {
            assert!(
                tests::mirtest::close(want[k][l], out.outputs[reg][l], 1e-3),
                "{:?} vs {:?}",
                want[k],
                out.outputs[reg]
            );
        }
    }
}

#[test]
fn rematerialisation_makes_room() {
    // Twenty products of an input and a uniform, each read twice far apart: held in
    // registers they need twenty temporaries; recomputed at each reader they fit.
    let mut body = String::new();
    for i in 0..20 {
        body += &format!("vec4 t{i} = a * k[{i}];\n");
    }
    let sum: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
    body += &format!("vec4 s = {};\n", sum.join(" + "));
    let prod: Vec<String> = (0..20).map(|i| format!("(s - t{i})")).collect();
    body += &format!("o = {};\n", prod.join(" * "));
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U {{ vec4 k[20]; }};\n\
         void main() {{ {body} gl_Position = a; }}"
    ));
    let mut optimised = m.clone();
    mir::passes::optimize_with(&mut optimised, &backend_pica::codegen::prepare::passes()).unwrap();
    let pressure = mir::analysis::liveness::pressure(&optimised.function).values;
    assert!(
        pressure > 16,
        "only {pressure} live at once: nothing to show"
    );
    let p = compile(&m, &Options::default()).expect("fits once values are recomputed");
    let sim = backend_pica::sim::Simulator::new(&p.bytes).unwrap();
    let mut rng = tests::mirtest::Rng(11);
    for _ in 0..10 {
        let values = tests::mirtest::Values::random(&m, &mut rng, false);
        let env = values.env(&tests::mirtest::Procedural);
        let mir::eval::Outcome::Outputs(want) = mir::eval::run(&m, &env).unwrap() else {
            panic!()
        };
        let mut inputs = [[0.0f32; 4]; 16];
        for (i, (_, input)) in m.inputs.iter().enumerate() {
            inputs[input.location as usize] = values.inputs[i];
        }
        let mut u = backend_pica::sim::Uniforms::default();
        for (slot, v) in u.float.iter_mut().zip(&values.uniforms) {
            *slot = *v;
        }
        let out = sim.run(0, &inputs, &u).unwrap();
        let k = m
            .outputs
            .iter()
            .position(|o| o.location == Some(0))
            .unwrap();
        let reg = p.outputs[k].unwrap().0 as usize;
        for l in 0..4 {
            // Twenty factors: the f24 errors add up.
            assert!(
                tests::mirtest::close(want[k][l], out.outputs[reg][l], 2e-2),
                "{:?} vs {:?}",
                want[k],
                out.outputs[reg]
            );
        }
    }
}

#[test]
fn exactly_512_instructions_compile_and_513_do_not() {
    // A chain of n multiplies by a uniform is n instructions plus a fixed few; find the n
    // where the program is 512 words long.
    let chain = |n: usize| {
        let mut body = String::from("vec4 x = a;\n");
        for i in 0..n {
            body += &format!("x = x * k[{}];\n", i % 4);
        }
        vertex(&format!(
            "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
             layout(std140, binding=0) uniform U {{ vec4 k[4]; }};\n\
             void main() {{ {body} o = x; gl_Position = a; }}"
        ))
    };
    let words = |n: usize| compile(&chain(n), &Options::default()).map(|p| p.code.len());
    let base = words(100).expect("100 multiplies fit");
    let n = 100 + (512 - base);
    assert_eq!(words(n).expect("512 words fit"), 512, "n = {n}");
    let (rule, message) = refused(compile(&chain(n + 1), &Options::default()));
    assert_eq!(rule, "pica.limit", "{message}");
    assert!(message.contains("513 instructions long"), "{message}");
    assert!(message.contains("runs at most 512"), "{message}");
}

#[test]
fn more_literal_registers_than_96() {
    // A hundred different vec4 literals, each added after a multiply by a uniform: one
    // register each. (This overflowed the pool's register numbering once: found by the
    // megabyte test in huge_inputs.rs.)
    let mut body = String::from("vec4 x = a;\n");
    for i in 0..100 {
        let v = i as f32 * 4.0;
        body += &format!(
            "x = x * k + vec4({}, {}, {}, {});\n",
            v + 0.125,
            v + 1.125,
            v + 2.125,
            v + 3.125
        );
    }
    let m = vertex(&format!(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U {{ vec4 k; }};\n\
         void main() {{ {body} o = x; gl_Position = a; }}"
    ));
    let (rule, message) = refused(compile(&m, &Options::default()));
    assert_eq!(rule, "pica.limit", "{message}");
    assert!(message.contains("the PICA200 has 96"), "{message}");
}
