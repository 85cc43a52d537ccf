//! Classic GLSL as each community writes it (`tests/fixtures/classic`): WebGL 1 (GLSL ES 1.00
//! with no `#version`), OpenFL/Lime's display-list style (`#ifdef GL_ES`, a bool uniform),
//! OpenGL 2.1 (`#version 120`), OpenGL 3.3 core (`in`/`out` and loose uniforms, a uniform
//! array, a cube sampler) and WebGL 2 (GLSL ES 3.00). Each shader is compiled for AGAL (and
//! the vertex shaders for the PICA200), driven through its reflection by name in the
//! simulators, and compared with what this test computes from the shader's formulas; the
//! WebGL pair also compiles to exactly the bytes of its hand-written GLSL 450 rewrite.

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, Texture, VertexInputs, run_fragment, run_vertex};
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile, compile_pair};
use test_kit::all_close_to;
use tests::driven::{AGAL_PROFILES, bools_with, constants_with, register_number as number};
use tests::mirtest::Rng;

fn text(name: &str) -> String {
    std::fs::read_to_string(tests::fixtures("classic").join(name)).unwrap()
}

fn glsl(name: &str, options: &Options) -> Compiled {
    let stage = if name.ends_with(".vert") {
        Stage::Vertex
    } else {
        Stage::Fragment
    };
    let t = text(name);
    compile(Source::glsl(&t, stage).named(name), options).unwrap_or_else(|e| panic!("{e}"))
}

type Values<'a> = &'a [(&'a str, &'a [f32])];

/// An AGAL vertex program run with attributes and uniforms by name: the position and each
/// varying by name.
fn agal_vertex(c: &Compiled, inputs: Values<'_>, uniforms: Values<'_>) -> Vec<(String, [f32; 4])> {
    let p = Program::decode(&c.bytes).unwrap();
    let constants = constants_with(c, uniforms);
    let mut attributes = vec![[0.0f32; 4]; 8];
    for (name, v) in inputs {
        let i = c.reflection.inputs.iter().find(|i| i.name == *name);
        let i = i.unwrap_or_else(|| panic!("no input {name}: {:?}", c.reflection.inputs));
        for (k, x) in v.iter().enumerate() {
            attributes[number(&i.register)][k] = *x;
        }
    }
    let out = run_vertex(
        &p,
        &VertexInputs {
            attributes: &attributes,
            constants: &constants,
            instance_id: 0,
        },
    )
    .unwrap_or_else(|e| panic!("{e:?}\n{}", c.listing));
    c.reflection
        .outputs
        .iter()
        .map(|o| {
            let v = if o.register == "op" {
                out.position
            } else {
                out.varyings[number(&o.register)]
            };
            (o.name.clone(), v)
        })
        .collect()
}

/// A PICA200 vertex program run the same way.
fn pica_vertex(c: &Compiled, inputs: Values<'_>, uniforms: Values<'_>) -> Vec<(String, [f32; 4])> {
    use backend_pica::sim::{Simulator, Uniforms};
    let sim = Simulator::new(&c.bytes).unwrap();
    let mut u = Uniforms::default();
    for (k, r) in constants_with(c, uniforms).iter().take(96).enumerate() {
        u.float[k] = *r;
    }
    u.bool = bools_with(c, uniforms);
    let mut v = [[0.0f32; 4]; 16];
    for (name, x) in inputs {
        let i = c
            .reflection
            .inputs
            .iter()
            .find(|i| i.name == *name)
            .unwrap();
        for (k, x) in x.iter().enumerate() {
            v[number(&i.register)][k] = *x;
        }
    }
    let out = sim
        .run(0, &v, &u)
        .unwrap_or_else(|e| panic!("{e}\n{}", c.listing));
    c.reflection
        .outputs
        .iter()
        .map(|o| (o.name.clone(), out.outputs[number(&o.register)]))
        .collect()
}

/// A texture whose colour is a formula of the coordinate: (x, y, x·y, 1 − x) for 2D, and
/// (|d|-normalised direction, ½) for a cube map.
struct Formula {
    cube: bool,
}

impl Texture for Formula {
    fn is_cube(&self) -> bool {
        self.cube
    }
    fn levels(&self) -> u32 {
        1
    }
    fn size(&self, _level: u32) -> (u32, u32) {
        (4, 4)
    }
    fn texel(&self, _face: u32, _level: u32, _x: u32, _y: u32) -> [f32; 4] {
        [0.0; 4]
    }
    fn exact(&self, c: [f32; 4], _bias: f32) -> Option<[f32; 4]> {
        Some(texel(self.cube, [c[0], c[1], c[2]]))
    }
}

fn texel(cube: bool, c: [f32; 3]) -> [f32; 4] {
    if cube {
        let m = c.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        [c[0] / m, c[1] / m, c[2] / m, 0.5]
    } else {
        [c[0], c[1], c[0] * c[1], 1.0 - c[0]]
    }
}

/// An AGAL fragment program run with varyings and uniforms by name.
fn agal_fragment(c: &Compiled, varyings: Values<'_>, uniforms: Values<'_>) -> [f32; 4] {
    let p = Program::decode(&c.bytes).unwrap();
    let constants = constants_with(c, uniforms);
    let mut v = vec![[0.0f32; 4]; 10];
    for (name, x) in varyings {
        let i = c.reflection.inputs.iter().find(|i| i.name == *name);
        let i = i.unwrap_or_else(|| panic!("no varying {name}: {:?}", c.reflection.inputs));
        for (k, x) in x.iter().enumerate() {
            v[number(&i.register)][k] = *x;
        }
    }
    let (flat, cube) = (Formula { cube: false }, Formula { cube: true });
    let mut bound: [&dyn Texture; 8] = [&flat; 8];
    for s in &c.reflection.samplers {
        if s.dim == "cube" {
            bound[number(&s.register)] = &cube;
        }
    }
    let out = run_fragment(
        &p,
        &v,
        &FragmentInputs {
            constants: &constants,
            textures: &bound,
        },
    )
    .unwrap_or_else(|e| panic!("{e:?}\n{}", c.listing));
    out.colors[0]
}

fn output<'a>(outs: &'a [(String, [f32; 4])], name: &str) -> &'a [f32; 4] {
    &outs
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no output {name}: {outs:?}"))
        .1
}

#[track_caller]
fn assert_close(got: &[f32], want: &[f64], what: &str) {
    assert!(
        all_close_to(got, want, 2e-3),
        "{what}: got {got:?}, want {want:?}"
    );
}

/// Column-major 4×4 times a vector (as GLSL's `m * v`, uploaded column by column).
fn mat_vec(m: &[f32; 16], v: [f64; 4]) -> [f64; 4] {
    std::array::from_fn(|r| (0..4).map(|c| f64::from(m[c * 4 + r]) * v[c]).sum())
}

fn random_matrix(rng: &mut Rng) -> [f32; 16] {
    std::array::from_fn(|_| rng.float(-1.0, 1.0))
}

fn vertex_targets() -> Vec<Options> {
    let mut o: Vec<Options> = AGAL_PROFILES.iter().map(|&p| Options::agal(p)).collect();
    o.push(Options::pica());
    o
}

fn run_vertex_on(
    c: &Compiled,
    inputs: Values<'_>,
    uniforms: Values<'_>,
) -> Vec<(String, [f32; 4])> {
    match c.target {
        spv2retro::Target::Pica => pica_vertex(c, inputs, uniforms),
        spv2retro::Target::Agal => agal_vertex(c, inputs, uniforms),
    }
}

#[test]
fn webgl_shaders_compile_to_the_bytes_of_their_450_rewrites() {
    for options in vertex_targets() {
        let classic = glsl("webgl_textured.vert", &options);
        let rewrite = glsl("webgl_textured.450.vert", &options);
        assert_eq!(classic.bytes, rewrite.bytes, "{:?}", options.target);
    }
    for profile in AGAL_PROFILES {
        let options = Options::agal(profile);
        let classic = glsl("webgl_textured.frag", &options);
        let rewrite = glsl("webgl_textured.450.frag", &options);
        assert_eq!(classic.bytes, rewrite.bytes, "{profile:?}");
        // The names are the author's, gl_FragColor included.
        assert_eq!(classic.reflection.outputs[0].name, "gl_FragColor");
        assert_eq!(classic.reflection.samplers[0].name, "uSampler");
    }
}

#[test]
fn webgl_textured_computes_its_formulas() {
    let mut rng = Rng(0x13);
    for options in vertex_targets() {
        let c = glsl("webgl_textured.vert", &options);
        let names: Vec<&str> = c
            .reflection
            .uniforms
            .iter()
            .map(|u| u.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["uNormalMatrix", "uModelViewMatrix", "uProjectionMatrix"],
            "declaration order"
        );
        for _ in 0..10 {
            let (n, mv, p) = (
                random_matrix(&mut rng),
                random_matrix(&mut rng),
                random_matrix(&mut rng),
            );
            let pos = [
                rng.float(-2.0, 2.0),
                rng.float(-2.0, 2.0),
                rng.float(-2.0, 2.0),
                1.0,
            ];
            let normal = [
                rng.float(-1.0, 1.0),
                rng.float(-1.0, 1.0),
                rng.float(-1.0, 1.0),
            ];
            let uv = [rng.float(0.0, 1.0), rng.float(0.0, 1.0)];
            let outs = run_vertex_on(
                &c,
                &[
                    ("aVertexPosition", &pos),
                    ("aVertexNormal", &normal),
                    ("aTextureCoord", &uv),
                ],
                &[
                    ("uNormalMatrix", &n),
                    ("uModelViewMatrix", &mv),
                    ("uProjectionMatrix", &p),
                ],
            );
            let pos64 = pos.map(f64::from);
            assert_close(
                output(&outs, "gl_Position"),
                &mat_vec(&p, mat_vec(&mv, pos64)),
                "gl_Position",
            );
            assert_close(
                &output(&outs, "vTextureCoord")[..2],
                &uv.map(f64::from),
                "uv",
            );
            let tn = mat_vec(
                &n,
                [normal[0].into(), normal[1].into(), normal[2].into(), 1.0],
            );
            let d = [0.85f64, 0.8, 0.75];
            let len = d.iter().map(|x| x * x).sum::<f64>().sqrt();
            let directional = ((tn[0] * d[0] + tn[1] * d[1] + tn[2] * d[2]) / len).max(0.0);
            assert_close(
                &output(&outs, "vLighting")[..3],
                &[0.3 + directional; 3],
                "vLighting",
            );
        }
    }
    for profile in AGAL_PROFILES {
        let c = glsl("webgl_textured.frag", &Options::agal(profile));
        for _ in 0..10 {
            let uv = [rng.float(0.0, 1.0), rng.float(0.0, 1.0)];
            let light = [
                rng.float(0.0, 1.0),
                rng.float(0.0, 1.0),
                rng.float(0.0, 1.0),
            ];
            let got = agal_fragment(&c, &[("vTextureCoord", &uv), ("vLighting", &light)], &[]);
            let t = texel(false, [uv[0], uv[1], 0.0]).map(f64::from);
            let l = light.map(f64::from);
            assert_close(
                &got,
                &[t[0] * l[0], t[1] * l[1], t[2] * l[2], t[3]],
                "colour",
            );
        }
    }
}

#[test]
fn openfl_style_shaders_with_a_bool_uniform_and_gl_es_guards() {
    let mut rng = Rng(0x0f);
    for options in vertex_targets() {
        let c = glsl("openfl_bitmap.vert", &options);
        for has in [false, true] {
            let m = random_matrix(&mut rng);
            let pos = [rng.float(-1.0, 1.0), rng.float(-1.0, 1.0), 0.0, 1.0];
            let mul = [0.5f32, 0.25, 1.0, 0.75];
            let off = [255.0f32, 51.0, 0.0, 127.5];
            let flag = [f32::from(u8::from(has))];
            let outs = run_vertex_on(
                &c,
                &[
                    ("openfl_Position", &pos),
                    ("openfl_Alpha", &[0.5]),
                    ("openfl_ColorMultiplier", &mul),
                    ("openfl_ColorOffset", &off),
                    ("openfl_TextureCoord", &[0.25, 0.75]),
                ],
                &[("openfl_Matrix", &m), ("openfl_HasColorTransform", &flag)],
            );
            assert_close(
                output(&outs, "gl_Position"),
                &mat_vec(&m, pos.map(f64::from)),
                "position",
            );
            assert_close(&output(&outs, "openfl_Alphav")[..1], &[0.5], "alpha");
            let (want_mul, want_off) = if has {
                (mul.map(f64::from), off.map(|x| f64::from(x) / 255.0))
            } else {
                ([1.0; 4], [0.0; 4])
            };
            // The PICA200 carries 3 of a varying's 4 lanes in some semantics (warned).
            let lanes = if c.target == spv2retro::Target::Pica {
                2
            } else {
                4
            };
            assert_close(
                &output(&outs, "openfl_ColorMultiplierv")[..lanes],
                &want_mul[..lanes],
                "multiplier",
            );
            assert_close(
                &output(&outs, "openfl_ColorOffsetv")[..lanes],
                &want_off[..lanes],
                "offset",
            );
        }
    }
    for profile in AGAL_PROFILES {
        let c = glsl("openfl_bitmap.frag", &Options::agal(profile));
        let (uv, mul, off) = (
            [0.5f32, 0.25],
            [1.0f32, 0.5, 2.0, 1.0],
            [0.1f32, 0.0, -0.1, 0.0],
        );
        let got = agal_fragment(
            &c,
            &[
                ("openfl_TextureCoordv", &uv),
                ("openfl_ColorMultiplierv", &mul),
                ("openfl_ColorOffsetv", &off),
                ("openfl_Alphav", &[0.5]),
            ],
            &[],
        );
        let t = texel(false, [uv[0], uv[1], 0.0]);
        let color: Vec<f64> = (0..4)
            .map(|k| f64::from(off[k] + t[k] * mul[k]).clamp(0.0, 1.0))
            .collect();
        let a = color[3] * 0.5;
        assert_close(
            &got,
            &[color[0] * a, color[1] * a, color[2] * a, a],
            "colour",
        );
    }
}

#[test]
fn gl21_gl33_and_es3_shaders_compute_their_formulas() {
    let mut rng = Rng(0x21);
    for options in vertex_targets() {
        // GLSL 1.20: Lambert.
        let c = glsl("gl21_lambert.vert", &options);
        let (mv, p) = (random_matrix(&mut rng), random_matrix(&mut rng));
        let (pos, normal) = ([0.5f32, -0.25, 1.0], [0.0f32, 0.6, 0.8]);
        let (light, diffuse) = ([0.0f32, -0.6, -0.8], [0.5f32, 0.75, 1.0, 0.25]);
        let outs = run_vertex_on(
            &c,
            &[("position", &pos), ("normal", &normal)],
            &[
                ("modelView", &mv),
                ("projection", &p),
                ("lightDir", &light),
                ("diffuse", &diffuse),
            ],
        );
        let eye = mat_vec(&mv, [pos[0].into(), pos[1].into(), pos[2].into(), 1.0]);
        assert_close(output(&outs, "gl_Position"), &mat_vec(&p, eye), "position");
        let n = mat_vec(
            &mv,
            [normal[0].into(), normal[1].into(), normal[2].into(), 0.0],
        );
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        let l = (-(n[0] * f64::from(light[0])
            + n[1] * f64::from(light[1])
            + n[2] * f64::from(light[2]))
            / len)
            .max(0.0);
        let d = diffuse.map(f64::from);
        assert_close(
            output(&outs, "color"),
            &[d[0] * l, d[1] * l, d[2] * l, d[3]],
            "colour",
        );
        // GLSL 3.30 core: a uniform array and a scalar after it.
        let c = glsl("gl33_core.vert", &options);
        let names: Vec<&str> = c
            .reflection
            .uniforms
            .iter()
            .map(|u| u.name.as_str())
            .collect();
        assert_eq!(names, ["mvp", "colors", "time"]);
        let m = random_matrix(&mut rng);
        let colors = [0.25f32, 0.5, 0.75, 1.0, 2.0, 3.0, 4.0, 5.0];
        let outs = run_vertex_on(
            &c,
            &[
                ("position", &pos),
                ("color", &[1.0, 0.5, 0.25]),
                ("uv", &[0.125, 0.875]),
            ],
            &[("mvp", &m), ("colors", &colors), ("time", &[0.5])],
        );
        assert_close(
            output(&outs, "gl_Position"),
            &mat_vec(&m, [pos[0].into(), pos[1].into(), pos[2].into(), 1.0]),
            "position",
        );
        let s = 0.5f64.sin();
        assert_close(
            &output(&outs, "vColor")[..3],
            &[
                1.0 * 2.0 + 0.25 * s,
                0.5 * 3.0 + 0.5 * s,
                0.25 * 4.0 + 0.75 * s,
            ],
            "vColor",
        );
        assert_close(&output(&outs, "vUV")[..2], &[0.125, 0.875], "vUV");
        // GLSL ES 3.00.
        let c = glsl("es3_fog.vert", &options);
        let (wv, p) = (random_matrix(&mut rng), random_matrix(&mut rng));
        let a = [0.25f32, 0.5, -2.0, 1.0];
        let outs = run_vertex_on(
            &c,
            &[("a_position", &a), ("a_color", &[1.0, 0.0, 0.5, 1.0])],
            &[("u_worldView", &wv), ("u_projection", &p)],
        );
        let view = mat_vec(&wv, a.map(f64::from));
        assert_close(output(&outs, "gl_Position"), &mat_vec(&p, view), "position");
        assert_close(&output(&outs, "v_depth")[..1], &[-view[2]], "depth");
    }
    for profile in [Profile::Standard, Profile::StandardExtended] {
        let o = Options::agal(profile);
        let c = glsl("gl21_lambert.frag", &o);
        let color = [0.25f32, 0.5, 0.75, 0.5];
        let got = agal_fragment(&c, &[("color", &color)], &[("gamma", &[2.2])]);
        let g = |x: f32| f64::from(x).powf(1.0 / 2.2);
        assert_close(&got, &[g(0.25), g(0.5), g(0.75), 0.5], "gamma");

        let c = glsl("gl33_core.frag", &o);
        assert_eq!(c.reflection.outputs[0].name, "fragColor");
        let (uv, vc) = ([0.5f32, 0.25], [1.0f32, 0.5, 2.0]);
        let got = agal_fragment(
            &c,
            &[("vUV", &uv), ("vColor", &vc)],
            &[("mixAmount", &[0.25])],
        );
        let base = texel(false, [uv[0], uv[1], 0.0]);
        let env = texel(true, [uv[0], uv[1], 1.0]);
        let want: Vec<f64> = (0..3)
            .map(|k| f64::from(base[k] * vc[k]) * 0.75 + f64::from(env[k]) * 0.25)
            .chain([f64::from(base[3])])
            .collect();
        assert_close(&got, &want, "mix");

        let c = glsl("es3_fog.frag", &o);
        for depth in [0.5f32, 2.0, 3.5, 9.0] {
            let got = agal_fragment(
                &c,
                &[("v_depth", &[depth]), ("v_color", &[1.0, 0.0, 0.5, 1.0])],
                &[
                    ("u_fogColor", &[0.5, 0.5, 0.5, 1.0]),
                    ("u_fogNear", &[1.0]),
                    ("u_fogFar", &[4.0]),
                ],
            );
            let t = ((f64::from(depth) - 1.0) / 3.0).clamp(0.0, 1.0);
            let f = t * t * (3.0 - 2.0 * t);
            assert_close(&got, &[1.0 + (0.5 - 1.0) * f, 0.5 * f, 0.5, 1.0], "fog");
        }
    }
}

#[test]
fn a_pairs_varyings_are_matched_by_name() {
    // The fragment shader declares the varyings in the other order.
    let vert = "attribute vec4 p;\nvarying vec4 a;\nvarying vec4 b;\n\
                void main() { a = p * 2.0; b = p + 1.0; gl_Position = p; }\n";
    let frag = "precision mediump float;\nvarying vec4 b;\nvarying vec4 a;\n\
                void main() { gl_FragColor = a - b; }\n";
    let (v, f) = compile_pair(
        Source::glsl(vert, Stage::Vertex),
        Source::glsl(frag, Stage::Fragment),
        &Options::agal(Profile::Baseline),
    )
    .unwrap();
    for name in ["a", "b"] {
        let out = v
            .reflection
            .outputs
            .iter()
            .find(|o| o.name == name)
            .unwrap();
        let input = f.reflection.inputs.iter().find(|i| i.name == name).unwrap();
        assert_eq!(out.location, Some(input.location), "{name}");
        assert_eq!(out.register, input.register, "{name}");
    }
    // Run the pair: p = (1, 2, 3, 4) gives a − b = 2p − (p + 1) = p − 1.
    let outs = agal_vertex(&v, &[("p", &[1.0, 2.0, 3.0, 4.0])], &[]);
    let a = output(&outs, "a");
    let b = output(&outs, "b");
    let got = agal_fragment(&f, &[("a", a), ("b", b)], &[]);
    assert_close(&got, &[0.0, 1.0, 2.0, 3.0], "a - b");
}

#[test]
fn defines_extensions_and_errors_at_the_authors_line() {
    let frag = "#version 120\n#extension GL_OES_standard_derivatives : enable\n\
                uniform vec4 tint;\nvoid main() {\n#ifdef BRIGHT\n    gl_FragColor = tint * BRIGHT;\n\
                #else\n    gl_FragColor = tint;\n#endif\n}\n";
    let options = Options::agal(Profile::Baseline).define("BRIGHT", "2.0");
    let c = compile(
        Source::glsl(frag, Stage::Fragment).named("d.frag"),
        &options,
    )
    .unwrap();
    assert_eq!(c.warnings.0[0].rule, "glsl.extension-ignored");
    assert!(
        c.rendered_warnings().contains("d.frag:2:1"),
        "{}",
        c.rendered_warnings()
    );
    let got = agal_fragment(&c, &[], &[("tint", &[0.25, 0.5, 0.125, 0.5])]);
    assert_close(&got, &[0.5, 1.0, 0.25, 1.0], "BRIGHT = 2");
    // Errors name the author's line and column, not the rewritten text's.
    let bad = "attribute vec4 aPosition;\nuniform mat4 uMVP;\nvoid main() {\n    \
               gl_Position = uMVP * aPositio;\n}\n";
    let e = compile(
        Source::glsl(bad, Stage::Vertex).named("bad.vert"),
        &Options::pica(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("--> bad.vert:4:26"), "{e}");
    assert!(e.contains("gl_Position = uMVP * aPositio;"), "{e}");
    // An initial value that is not a constant (a constant one is the reflection's
    // `default`: classic_glsl_forms.rs).
    let init = "uniform float k = sin(2.0);\nvoid main() { gl_Position = vec4(k); }\n";
    let e = compile(
        Source::glsl(init, Stage::Vertex).named("i.vert"),
        &Options::pica(),
    )
    .unwrap_err();
    assert_eq!(e.diagnostics().0[0].rule, "glsl.classic", "{e}");
    assert!(e.to_string().contains("--> i.vert:1:15"), "{e}");
}

#[test]
fn glslangs_test_shaders_as_glsl_source_are_compiled_or_refused_by_a_rule() {
    // 254 GLSL sources nobody wrote for this project, of every version and style: each one
    // compiles, or is refused with a user-facing rule whose position is in the author's text.
    let dir = tests::fixtures("thirdparty/glslang/src");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() > 200);
    let mut compiled = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let stage = if name.ends_with(".vert") {
            Stage::Vertex
        } else {
            Stage::Fragment
        };
        let targets = if stage == Stage::Vertex {
            vec![Options::pica(), Options::agal(Profile::StandardExtended)]
        } else {
            vec![Options::agal(Profile::StandardExtended)]
        };
        for options in targets {
            match compile(Source::glsl(&text, stage).named(&name), &options) {
                Ok(_) => compiled += 1,
                Err(e) => {
                    assert_ne!(e.kind(), spv2retro::ErrorKind::Internal, "{name}: {e}");
                    for d in &e.diagnostics().0 {
                        assert_ne!(d.fault(), spv2retro::Fault::Internal, "{name}: {e}");
                        if let Some(r) = &d.text_range {
                            assert!(r.end <= text.len(), "{name}: {r:?} beyond the text: {e}");
                        }
                    }
                }
            }
        }
    }
    // 88 compile at this writing (the rest use what naga or the targets lack).
    assert!(compiled >= 88, "only {compiled} compiled");
}

#[test]
fn gl21_compatibility_built_ins_are_attributes_uniforms_and_varyings() {
    let (vert, frag) = (text("gl21_compat.vert"), text("gl21_compat.frag"));
    let (v, f) = compile_pair(
        Source::glsl(&vert, Stage::Vertex),
        Source::glsl(&frag, Stage::Fragment),
        &Options::agal(Profile::Standard),
    )
    .unwrap();
    // gl_Vertex is attribute 0, as GL aliases it; the fragment shader's gl_Color is the
    // vertex shader's gl_FrontColor.
    assert_eq!(v.reflection.inputs[0].name, "gl_Vertex");
    assert_eq!(v.reflection.inputs[0].location, 0);
    let front = v
        .reflection
        .outputs
        .iter()
        .find(|o| o.name == "gl_FrontColor")
        .unwrap();
    let color = f
        .reflection
        .inputs
        .iter()
        .find(|i| i.name == "gl_Color")
        .unwrap();
    assert_eq!(front.register, color.register);
    let mut rng = Rng(0x110);
    let mvp = random_matrix(&mut rng);
    // gl_NormalMatrix is a mat3: three registers of three lanes (std140).
    let nm = [
        0.0f32, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
    ];
    for compiled in [v.clone(), glsl("gl21_compat.vert", &Options::pica())] {
        let pos = [0.5f32, 0.25, -1.0, 1.0];
        let outs = run_vertex_on(
            &compiled,
            &[
                ("gl_Vertex", &pos),
                ("gl_Normal", &[1.0, 0.0, 0.0]),
                ("gl_Color", &[0.25, 0.5, 0.75, 1.0]),
                ("gl_MultiTexCoord0", &[0.125, 0.625, 0.0, 1.0]),
            ],
            &[
                ("gl_ModelViewProjectionMatrix", &mvp),
                ("gl_NormalMatrix", &nm),
            ],
        );
        assert_close(
            output(&outs, "gl_Position"),
            &mat_vec(&mvp, pos.map(f64::from)),
            "ftransform()",
        );
        // The normal matrix's columns are (0, 1, 0), (−1, 0, 0), (0, 0, 1): x → y.
        assert_close(&output(&outs, "normal")[..3], &[0.0, 1.0, 0.0], "normal");
        assert_close(
            &output(&outs, "gl_TexCoord")[..2],
            &[0.125, 0.625],
            "gl_TexCoord[0]",
        );
        assert_close(
            &output(&outs, "gl_FrontColor")[..3],
            &[0.25, 0.5, 0.75],
            "gl_FrontColor",
        );
    }
    let got = agal_fragment(
        &f,
        &[
            ("normal", &[0.0, 0.6, 0.8]),
            ("gl_TexCoord", &[0.5, 0.25, 0.0, 1.0]),
            ("gl_Color", &[1.0, 0.5, 0.25, 1.0]),
        ],
        &[],
    );
    let t = texel(false, [0.5, 0.25, 0.0]).map(f64::from);
    let c = [1.0, 0.5, 0.25, 1.0];
    assert_close(
        &got,
        &std::array::from_fn::<f64, 4, _>(|k| t[k] * c[k] * 0.8),
        "colour",
    );
}
