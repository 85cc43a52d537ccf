//! Geometry programs whose runs of emitted vertices repeat with other values call one
//! procedure per run (`backend_pica::codegen::outline`). Random geometry shaders (GLSL text:
//! helper functions that emit vertices, called with values the program computes, between
//! emits of its own) are compiled with procedures and without (`Options::procedures`), and
//! both run in the PICA200 simulator on the same random inputs and uniforms: every emitted
//! vertex (its slot, primitive and winding flags, and every lane of every output) must agree.
//! The test fails if too few programs call a procedure to have tested anything.
//!
//! `GENERATED_GEOMETRY=N` runs N programs (default 40), `GENERATED_GEOMETRY_SEED` picks the
//! first seed.

use backend_pica::sim::Simulator;
use spv2retro::{Compiled, Options, Source, Stage, compile};
use tests::driven::{input_register, pica_uniforms};
use tests::geometry::output_reg;
use tests::mirtest::Rng;

/// A random `vec4` expression of `vars` (names), at most `depth` deep.
fn expr(rng: &mut Rng, vars: &[String], depth: u32) -> String {
    let leaf = |rng: &mut Rng| vars[rng.index(vars.len())].clone();
    if depth == 0 || rng.index(4) == 0 {
        return leaf(rng);
    }
    let a = expr(rng, vars, depth - 1);
    match rng.index(9) {
        0 => format!("({a} + {})", expr(rng, vars, depth - 1)),
        1 => format!("({a} - {})", expr(rng, vars, depth - 1)),
        2 => format!("({a} * {})", expr(rng, vars, depth - 1)),
        3 => format!("({a} * k.{})", ["xxxx", "yzwx", "wwzz"][rng.index(3)]),
        4 => format!("(m * {a})"),
        5 => format!("mix({a}, {}, 0.25)", expr(rng, vars, depth - 1)),
        6 => format!("max({a}, {})", expr(rng, vars, depth - 1)),
        7 => format!("abs({a}).yzwx"),
        _ => format!("({a} + vec4({:.3}))", rng.float(-1.0, 1.0)),
    }
}

/// A geometry shader: `helpers` functions of 1-3 parameters emitting 1-3 vertices each
/// (some ending the primitive), called 3-6 times, now and then between emits of `main`'s
/// own.
fn shader(rng: &mut Rng) -> String {
    let mut helpers = String::new();
    let mut emitted = 0usize;
    let count = if rng.index(3) == 0 { 2 } else { 1 };
    let mut shapes = Vec::new();
    for h in 0..count {
        let params = 1 + rng.index(3);
        let names: Vec<String> = (0..params).map(|p| format!("a{p}")).collect();
        let mut vars = names.clone();
        vars.push("vColor[0]".into());
        vars.push("k".into());
        let vertices = 1 + rng.index(3);
        let mut body = String::new();
        for _ in 0..vertices {
            body += &format!(
                "    gl_Position = {};\n    color = {};\n    EmitVertex();\n",
                expr(rng, &vars, 2),
                expr(rng, &vars, 1)
            );
        }
        let ends = rng.index(2) == 0;
        if ends {
            body += "    EndPrimitive();\n";
        }
        let list: Vec<String> = names.iter().map(|n| format!("vec4 {n}")).collect();
        helpers += &format!("void h{h}({}) {{\n{body}}}\n", list.join(", "));
        shapes.push((params, vertices));
    }
    let mut main = String::from(
        "    vec4 p0 = gl_in[0].gl_Position, p1 = gl_in[1].gl_Position, p2 = gl_in[2].gl_Position;\n",
    );
    let mut pool: Vec<String> = vec!["p0".into(), "p1".into(), "p2".into(), "vColor[1]".into()];
    for t in 0..1 + rng.index(3) {
        main += &format!("    vec4 t{t} = {};\n", expr(rng, &pool, 2));
        pool.push(format!("t{t}"));
    }
    let calls = 3 + rng.index(4);
    for _ in 0..calls {
        if rng.index(8) == 0 {
            main += &format!(
                "    gl_Position = {};\n    color = vColor[2];\n    EmitVertex();\n",
                expr(rng, &pool, 1)
            );
            emitted += 1;
        }
        let h = rng.index(count);
        let (params, vertices) = shapes[h];
        let args: Vec<String> = (0..params)
            .map(|_| {
                if rng.index(3) == 0 {
                    expr(rng, &pool, 1)
                } else {
                    pool[rng.index(pool.len())].clone()
                }
            })
            .collect();
        main += &format!("    h{h}({});\n", args.join(", "));
        emitted += vertices;
    }
    format!(
        "#version 450
layout(triangles) in;
layout(triangle_strip, max_vertices = {emitted}) out;
layout(location = 0) in vec4 vColor[];
layout(location = 0) out vec4 color;
layout(std140, binding = 0) uniform U {{
    mat4 m;
    vec4 k;
}};
{helpers}void main() {{
{main}}}
"
    )
}

fn build(text: &str, procedures: bool) -> Compiled {
    compile(
        Source::glsl(text, Stage::Geometry),
        &Options::pica().procedures(procedures),
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn programs_that_call_a_procedure_emit_what_they_emit_inline() {
    let count: u64 = std::env::var("GENERATED_GEOMETRY")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40);
    let first: u64 = std::env::var("GENERATED_GEOMETRY_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let (mut called, mut words, mut inline_words) = (0, 0, 0);
    for seed in first..first + count {
        let mut rng = Rng(seed * 0x9E37_79B9 + 7);
        let text = shader(&mut rng);
        let with = build(&text, true);
        // A program that breaks a limit inline may still compile with a procedure: nothing
        // to compare it with here (`a_program_too_big_inline_compiles_with_a_procedure`).
        let Ok(without) = compile(
            Source::glsl(&text, Stage::Geometry),
            &Options::pica().procedures(false),
        ) else {
            continue;
        };
        assert!(!without.listing.contains("call "), "{}", without.listing);
        if !with.listing.contains("call ") {
            continue;
        }
        called += 1;
        words += with.reflection.stats.instructions;
        inline_words += without.reflection.stats.instructions;
        for case in 0..4 {
            let mut m = [0.0f32; 16];
            for v in &mut m {
                *v = rng.float(-1.0, 1.0);
            }
            let k = rng.lanes(-1.0, 1.0);
            let mut inputs = [[0.0f32; 4]; 16];
            for v in inputs.iter_mut().take(6) {
                *v = rng.lanes(-2.0, 2.0);
            }
            let values: [(&str, &[f32]); 2] = [("m", &m), ("k", &k)];
            let run = |c: &Compiled| {
                Simulator::new(&c.bytes)
                    .unwrap()
                    .run(0, &inputs, &pica_uniforms(c, &values))
                    .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", c.listing))
            };
            let (a, b) = (run(&with), run(&without));
            assert_eq!(
                a.vertices.len(),
                b.vertices.len(),
                "seed {seed} case {case}\n{text}"
            );
            for (n, (x, y)) in a.vertices.iter().zip(&b.vertices).enumerate() {
                assert_eq!(
                    (x.vertex, x.primitive, x.winding),
                    (y.vertex, y.primitive, y.winding),
                    "seed {seed} case {case} vertex {n}\n{text}\n{}",
                    with.listing
                );
                for (o, (p, q)) in x.outputs.iter().zip(&y.outputs).enumerate() {
                    for l in 0..4 {
                        let close =
                            (p[l] - q[l]).abs() <= 1e-3 * p[l].abs().max(q[l].abs()).max(1.0);
                        assert!(
                            close || (p[l].is_nan() && q[l].is_nan()),
                            "seed {seed} case {case} vertex {n} o{o}: {p:?} with the procedure, \
                             {q:?} inline\n{text}\n{}",
                            with.listing
                        );
                    }
                }
            }
        }
    }
    println!(
        "{called} of {count} programs call a procedure: {words} words where inline they take {inline_words}"
    );
    assert!(
        called * 4 >= count as usize,
        "only {called} of {count} programs call a procedure"
    );
}

/// Fourteen triangles of three lit corners each: inline, too many values live at once for
/// the sixteen temporaries (refused); with a procedure per triangle it compiles, and every
/// emitted vertex is what this test computes from the GLSL.
#[test]
fn a_program_too_big_inline_compiles_with_a_procedure() {
    let calls: Vec<String> = (0..14)
        .map(|i| format!("    tri(p{}, p{}, q{});", i % 3, (i + 1) % 3, i % 4))
        .collect();
    let text = format!(
        "#version 450
layout(triangles) in;
layout(triangle_strip, max_vertices = 42) out;
layout(location = 0) in vec4 vColor[];
layout(location = 0) out vec4 color;
layout(std140, binding = 0) uniform U {{ mat4 m; vec4 k; vec4 light; }};
void corner(vec4 p, vec4 c) {{
    vec4 q = m * (p + k * p.yzwx);
    gl_Position = q;
    color = c * max(dot(q.xyz, light.xyz), 0.25) + light.w * abs(q - p);
    EmitVertex();
}}
void tri(vec4 a, vec4 b, vec4 c) {{
    corner(a, vColor[0]);
    corner(b, vColor[1]);
    corner(c, vColor[2]);
    EndPrimitive();
}}
void main() {{
    vec4 p0 = gl_in[0].gl_Position, p1 = gl_in[1].gl_Position, p2 = gl_in[2].gl_Position;
    vec4 q0 = (p0 + p1) * 0.5, q1 = (p1 + p2) * 0.5, q2 = (p2 + p0) * 0.5;
    vec4 q3 = (p0 + p1 + p2) / 3.0;
{}
}}
",
        calls.join("\n")
    );
    let refused = compile(
        Source::glsl(&text, Stage::Geometry),
        &Options::pica().procedures(false),
    );
    let why = match refused {
        Ok(c) => panic!("compiled inline:\n{}", c.listing),
        Err(e) => e.to_string(),
    };
    assert!(why.contains("temporaries"), "{why}");
    let c = build(&text, true);
    assert!(c.listing.contains("call "), "{}", c.listing);
    assert!(c.reflection.stats.instructions <= 512);
    let mut rng = Rng(0x7717);
    let mut m = [[0.0f32; 4]; 4];
    for row in &mut m {
        *row = rng.lanes(-1.0, 1.0);
    }
    let (k, light) = (rng.lanes(-0.5, 0.5), rng.lanes(-1.0, 1.0));
    // Column-major, as the std140 block holds a mat4: column j is m[..][j].
    let columns: Vec<f32> = (0..4).flat_map(|j| (0..4).map(move |i| m[i][j])).collect();
    let values: [(&str, &[f32]); 3] = [("m", &columns), ("k", &k), ("light", &light)];
    let mut inputs = [[0.0f32; 4]; 16];
    for v in inputs.iter_mut().take(6) {
        *v = rng.lanes(-2.0, 2.0);
    }
    let reg = |name: &str| input_register(&c, name);
    let p: Vec<[f32; 4]> = (0..3)
        .map(|i| inputs[reg(&format!("gl_in[{i}].gl_Position"))])
        .collect();
    let colours: Vec<[f32; 4]> = (0..3)
        .map(|i| inputs[reg(&format!("vColor[{i}]"))])
        .collect();
    let lane = |f: &dyn Fn(usize) -> f32| -> [f32; 4] { std::array::from_fn(f) };
    let q = [
        lane(&|l| (p[0][l] + p[1][l]) * 0.5),
        lane(&|l| (p[1][l] + p[2][l]) * 0.5),
        lane(&|l| (p[2][l] + p[0][l]) * 0.5),
        lane(&|l| (p[0][l] + p[1][l] + p[2][l]) / 3.0),
    ];
    let corner = |v: [f32; 4], colour: [f32; 4]| {
        let s = lane(&|l| v[l] + k[l] * v[(l + 1) % 4]);
        let pos = lane(&|i| (0..4).map(|j| m[i][j] * s[j]).sum());
        let d = (0..3).map(|l| pos[l] * light[l]).sum::<f32>().max(0.25);
        let col = lane(&|l| colour[l] * d + light[3] * (pos[l] - v[l]).abs());
        (pos, col)
    };
    let mut want = Vec::new();
    for i in 0..14 {
        for (n, v) in [p[i % 3], p[(i + 1) % 3], q[i % 4]].into_iter().enumerate() {
            want.push(corner(v, colours[n]));
        }
    }
    let out = Simulator::new(&c.bytes)
        .unwrap()
        .run(0, &inputs, &pica_uniforms(&c, &values))
        .unwrap();
    assert_eq!(out.vertices.len(), want.len());
    let (rp, rc) = (output_reg(&c, "gl_Position"), output_reg(&c, "color"));
    for (n, (v, (pos, col))) in out.vertices.iter().zip(&want).enumerate() {
        for l in 0..4 {
            for (got, want) in [(v.outputs[rp][l], pos[l]), (v.outputs[rc][l], col[l])] {
                assert!(
                    (got - want).abs() <= 2e-3 * want.abs().max(1.0),
                    "vertex {n} lane {l}: {got}, want {want}\n{}",
                    c.listing
                );
            }
        }
    }
}
