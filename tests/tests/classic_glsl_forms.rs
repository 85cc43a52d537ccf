//! Classic GLSL as engines write it (issue 28's list): qualifiers and types spelled through
//! macros, precision qualifiers on declarations and parameters, matrices as attributes and
//! varyings, `mat2` uniforms, raylib's `.vs`/`.fs` names and GLSL recognised by its text.
//! Each shader is compiled for every target it has a stage on, run through its reflection
//! by name (the preview's driver: what an application binds), and compared with what this
//! test computes from the shader's formulas.

use spv2retro::{Compiled, Language, Options, Profile, Source, Stage, compile, compile_pair};

const PROFILES: [Profile; 3] = [
    Profile::Baseline,
    Profile::Standard,
    Profile::StandardExtended,
];

use tests::driven::run_by_name as run;

/// The output called `name`, and the lanes it carries (all four on AGAL; the semantic's on
/// the PICA200).
fn output(c: &Compiled, out: &preview::Outputs, name: &str) -> ([f32; 4], Vec<usize>) {
    let value = out
        .outputs
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no output {name}: {:?}", out.outputs))
        .value;
    let mask = &c
        .reflection
        .outputs
        .iter()
        .find(|o| o.name == name)
        .unwrap()
        .mask;
    let lanes = "xyzw"
        .chars()
        .enumerate()
        .filter(|(_, l)| mask.contains(*l))
        .map(|(k, _)| k)
        .collect();
    (value, lanes)
}

#[track_caller]
fn near(got: f32, want: f64, what: &str) {
    assert!(
        test_kit::close_to(f64::from(got), want, 2e-3),
        "{what}: got {got}, want {want}"
    );
}

/// `m` (column-major, `columns` columns of `rows`) times `v`.
fn mat_vec(m: &[f32], columns: usize, rows: usize, v: &[f64]) -> Vec<f64> {
    (0..rows)
        .map(|r| {
            (0..columns)
                .map(|c| f64::from(m[c * rows + r]) * v[c])
                .sum()
        })
        .collect()
}

const VERTEX: &str = "\
// a model matrix per instance, as engines pass one: four attributes, one per column
#define COMPAT_ATTRIBUTE attribute
#define COMPAT_VARYING varying
#define P highp
COMPAT_ATTRIBUTE vec4 pos;
COMPAT_ATTRIBUTE P mat4 model;
uniform P mat2 rot;
uniform mediump float scale;
COMPAT_VARYING mat2 R;
COMPAT_VARYING lowp vec2 uv;
mediump vec2 twice(mediump vec2 v) { return v * 2.0; }
void main() {
    R = rot * scale;
    uv = twice(pos.xy);
    if (scale < 0.0) return; // the outputs are still written after an early return
    gl_Position = model * pos + vec4(rot * pos.xy, 0.0, 0.0);
}
";

const FRAGMENT: &str = "\
#ifdef GL_ES
precision mediump float;
#endif
varying mat2 R;
varying vec2 uv;
uniform highp vec4 tint;
float f(mediump float c) { return c * 0.5; }
void main() {
    vec2 t = R * uv;
    gl_FragColor = vec4(t, f(uv.x), 1.0) * tint;
}
";

#[test]
fn engine_style_declarations_compile_and_run_on_every_target() {
    let model: Vec<f32> = vec![
        1.0, 0.5, 0.0, 0.0, //
        0.0, 2.0, 0.25, 0.0, //
        -1.0, 0.0, 1.0, 0.5, //
        0.25, -0.5, 3.0, 1.0,
    ];
    let rot = vec![0.5f32, -1.5, 2.0, 0.25]; // columns (0.5, -1.5), (2, 0.25)
    // As the registers hold it (and std140 lays it out): a column per register, lanes xy.
    let rot_registers = vec![0.5f32, -1.5, 0.0, 0.0, 2.0, 0.25, 0.0, 0.0];
    let pos = vec![0.75f32, -0.5, 1.5, 1.0];
    let scale = 3.0f32;
    let p64: Vec<f64> = pos.iter().map(|&x| f64::from(x)).collect();
    let mp = mat_vec(&model, 4, 4, &p64);
    let rp = mat_vec(&rot, 2, 2, &p64[..2]);
    let position = [mp[0] + rp[0], mp[1] + rp[1], mp[2], mp[3]];
    let r_scaled: Vec<f64> = rot.iter().map(|&x| f64::from(x * scale)).collect();
    let uv = [p64[0] * 2.0, p64[1] * 2.0];

    let mut targets = vec![Options::pica()];
    targets.extend(PROFILES.map(Options::agal));
    for options in targets {
        let what = format!("{:?} {:?}", options.target, options.profile);
        let source = Source::glsl(VERTEX, Stage::Vertex).named("engine.vert");
        let v = compile(&source, &options).unwrap_or_else(|e| panic!("{what}: {e}"));
        // The matrix attribute and varying are their columns, named after the matrix.
        let inputs: Vec<&str> = v
            .reflection
            .inputs
            .iter()
            .map(|i| i.name.as_str())
            .collect();
        assert_eq!(
            inputs,
            ["pos", "model[0]", "model[1]", "model[2]", "model[3]"],
            "{what}"
        );
        let mut bound: Vec<(&str, Vec<f32>)> = vec![("pos", pos.clone())];
        for (c, name) in ["model[0]", "model[1]", "model[2]", "model[3]"]
            .iter()
            .enumerate()
        {
            bound.push((name, model[c * 4..c * 4 + 4].to_vec()));
        }
        // The reflection says what the author declared.
        let u = v
            .reflection
            .uniforms
            .iter()
            .find(|u| u.name == "rot")
            .unwrap();
        assert_eq!((u.type_name.as_str(), u.count), ("mat2", 2), "{what}");
        let out = run(
            &v,
            &bound,
            &[("rot", rot_registers.clone()), ("scale", vec![scale])],
        );
        let (got, lanes) = output(&v, &out, "gl_Position");
        for k in lanes {
            near(got[k], position[k], &format!("{what} gl_Position.{k}"));
        }
        for c in 0..2 {
            let (got, lanes) = output(&v, &out, &format!("R[{c}]"));
            for k in lanes.into_iter().filter(|&k| k < 2) {
                near(got[k], r_scaled[c * 2 + k], &format!("{what} R[{c}].{k}"));
            }
        }
        let (got, lanes) = output(&v, &out, "uv");
        for k in lanes.into_iter().filter(|&k| k < 2) {
            near(got[k], uv[k], &format!("{what} uv.{k}"));
        }
    }

    // The pair on AGAL: the fragment shader's matrix varying takes the vertex shader's
    // locations, and its columns arrive by name.
    let tint = vec![0.5f32, 2.0, -1.0, 0.25];
    for profile in PROFILES {
        let (v, f) = compile_pair(
            Source::glsl(VERTEX, Stage::Vertex),
            Source::glsl(FRAGMENT, Stage::Fragment),
            &Options::agal(profile),
        )
        .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let _ = v;
        let r: Vec<f32> = r_scaled.iter().map(|&x| x as f32).collect();
        let out = run(
            &f,
            &[
                ("R[0]", vec![r[0], r[1], 0.0, 0.0]),
                ("R[1]", vec![r[2], r[3], 0.0, 0.0]),
                ("uv", vec![uv[0] as f32, uv[1] as f32, 0.0, 0.0]),
            ],
            &[("tint", tint.clone())],
        );
        let t = mat_vec(&r, 2, 2, &uv);
        let want = [t[0], t[1], uv[0] * 0.5, 1.0];
        let (got, _) = output(&f, &out, "gl_FragColor");
        for k in 0..4 {
            near(
                got[k],
                want[k] * f64::from(tint[k]),
                &format!("{profile:?} lane {k}"),
            );
        }
    }
}

#[test]
fn mat2_uniform_arrays_read_every_element() {
    let src = "uniform mat2 m[2];\nattribute vec4 p;\nvoid main() { gl_Position = vec4(m[0] * p.xy, m[1] * p.zw); }\n";
    let m = [1.0f32, 2.0, 3.0, 4.0, -1.0, 0.5, 0.25, -2.0];
    let p = [0.5f32, 1.5, -2.0, 3.0];
    let p64: Vec<f64> = p.iter().map(|&x| f64::from(x)).collect();
    let a = mat_vec(&m[..4], 2, 2, &p64[..2]);
    let b = mat_vec(&m[4..], 2, 2, &p64[2..]);
    let want = [a[0], a[1], b[0], b[1]];
    let mut targets = vec![Options::pica()];
    targets.extend(PROFILES.map(Options::agal));
    for options in targets {
        let c = compile(Source::glsl(src, Stage::Vertex), &options).unwrap();
        // Two registers per matrix, one per column.
        let u = &c.reflection.uniforms[0];
        assert_eq!(
            (u.name.as_str(), u.type_name.as_str(), u.count),
            ("m", "mat2[2]", 4),
            "{:?}",
            c.reflection.uniforms
        );
        let out = run(
            &c,
            &[("p", p.to_vec())],
            &[("m", {
                // std140: each column a register, lanes xy.
                m.chunks(2)
                    .flat_map(|col| [col[0], col[1], 0.0, 0.0])
                    .collect()
            })],
        );
        let (got, lanes) = output(&c, &out, "gl_Position");
        for k in lanes {
            near(got[k], want[k], &format!("{:?} lane {k}", options.target));
        }
    }
}

#[test]
fn raylib_names_and_glsl_text_are_read_as_glsl() {
    let dir = test_kit::scratch("classic-forms-names");
    let fs = "#version 100\nprecision mediump float;\nvarying vec2 fragTexCoord;\n\
              void main() { gl_FragColor = vec4(fragTexCoord, 0.0, 1.0); }\n";
    let vs = "# version 100\nattribute vec3 vertexPosition;\nuniform mat4 mvp;\n\
              void main() { gl_Position = mvp * vec4(vertexPosition, 1.0); }\n";
    std::fs::write(dir.join("base.fs"), fs).unwrap();
    std::fs::write(dir.join("base.vs"), vs).unwrap();
    std::fs::write(dir.join("shader.txt"), fs).unwrap();
    std::fs::write(dir.join("lit.frag.glsl"), fs).unwrap();
    for (file, stage) in [
        ("base.fs", Some(Stage::Fragment)),
        ("base.vs", Some(Stage::Vertex)),
        ("shader.txt", None),
        ("lit.frag.glsl", Some(Stage::Fragment)),
    ] {
        let s = Source::from_path(dir.join(file)).unwrap();
        assert_eq!(s.language(), Language::Glsl, "{file}");
        assert_eq!(s.stage(), stage, "{file}");
        let options = Options::agal(Profile::Baseline).stage(stage.unwrap_or(Stage::Fragment));
        let c = compile(&s, &options).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(c.stage, stage.unwrap_or(Stage::Fragment), "{file}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn preprocessor_errors_point_at_the_authors_line() {
    let src = "precision mediump float;\n#define F(a, b) a + b\nvoid main() {\n  gl_FragColor = vec4(F(1.0));\n}\n";
    let e = compile(
        Source::glsl(src, Stage::Fragment).named("f.frag"),
        &Options::agal(Profile::Baseline),
    )
    .unwrap_err();
    assert_eq!(e.diagnostics().0[0].rule, "glsl.preprocessor", "{e}");
    assert!(e.to_string().contains("--> f.frag:4:"), "{e}");
    // A syntax error naga finds in an expansion is reported where the macro was used.
    let src = "precision mediump float;\n#define BAD vec3(1.0) * * 2.0\nvoid main() {\n  gl_FragColor = vec4(BAD, 1.0);\n}\n";
    let e = compile(
        Source::glsl(src, Stage::Fragment).named("g.frag"),
        &Options::agal(Profile::Baseline),
    )
    .unwrap_err();
    assert!(e.to_string().contains("--> g.frag:4:"), "{e}");
}

#[test]
fn a_row_major_matrix_of_two_lane_rows_is_read_by_row() {
    // mat2x4: two columns of four; row-major, its four rows of two are its registers.
    let src = "#version 450\nlayout(location = 0) in vec4 p;\nlayout(row_major) uniform mat2x4 t;\n\
               void main() { gl_Position = t * p.xy; }\n";
    let columns = [[1.0f32, -2.0, 0.5, 3.0], [0.25, 4.0, -1.0, 2.0]];
    let p = [1.5f32, -0.5, 0.0, 0.0];
    let rows: Vec<f32> = (0..4)
        .flat_map(|r| [columns[0][r], columns[1][r], 0.0, 0.0])
        .collect();
    let mut targets = vec![Options::pica()];
    targets.extend(PROFILES.map(Options::agal));
    for options in targets {
        let c = compile(Source::glsl(src, Stage::Vertex), &options).unwrap();
        let out = run(&c, &[("p", p.to_vec())], &[("t", rows.clone())]);
        let (got, lanes) = output(&c, &out, "gl_Position");
        for r in lanes {
            let want = f64::from(columns[0][r]) * f64::from(p[0])
                + f64::from(columns[1][r]) * f64::from(p[1]);
            near(got[r], want, &format!("{:?} row {r}", options.target));
        }
    }
}

#[test]
fn a_varying_the_fragment_shader_declares_but_never_reads_needs_no_writer() {
    // PixiJS pairs its default vertex shader with filters that declare more varyings.
    let vert = "attribute vec2 aVertexPosition;\nvarying vec2 vTextureCoord;\n\
                void main() { vTextureCoord = aVertexPosition * 0.5; \
                gl_Position = vec4(aVertexPosition, 0.0, 1.0); }\n";
    let unused = "precision mediump float;\nvarying vec2 vTextureCoord;\nvarying vec4 vColor;\n\
                  void main() { gl_FragColor = vec4(vTextureCoord, 0.0, 1.0); }\n";
    let read = "precision mediump float;\nvarying vec2 vTextureCoord;\nvarying vec4 vColor;\n\
                void main() { gl_FragColor = vec4(vTextureCoord, 0.0, 1.0) * vColor; }\n";
    for profile in PROFILES {
        let (_, f) = compile_pair(
            Source::glsl(vert, Stage::Vertex),
            Source::glsl(unused, Stage::Fragment),
            &Options::agal(profile),
        )
        .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let out = run(&f, &[("vTextureCoord", vec![0.25, -0.5, 0.0, 0.0])], &[]);
        assert_eq!(output(&f, &out, "gl_FragColor").0, [0.25, -0.5, 0.0, 1.0]);
        let e = compile_pair(
            Source::glsl(vert, Stage::Vertex),
            Source::glsl(read, Stage::Fragment),
            &Options::agal(profile),
        )
        .unwrap_err();
        assert!(e.to_string().contains("`vColor`"), "{e}");
    }
}

#[test]
fn sampling_in_a_vertex_shader_is_refused_by_the_targets_rule_at_the_authors_line() {
    // No `#version`: the rewrite adds lines before the author's; the error still names the
    // author's line 3.
    let src = "attribute vec4 pos;\nuniform sampler2D heights;\n\
               void main() { gl_Position = pos + texture2D(heights, pos.xy); }\n";
    let e = compile(
        Source::glsl(src, Stage::Vertex).named("h.vert"),
        &Options::pica(),
    )
    .unwrap_err();
    assert_eq!(e.diagnostics().0[0].rule, "pica.unsupported", "{e}");
    assert!(e.to_string().contains("source: h.vert:3"), "{e}");
    let e = compile(
        Source::glsl(src, Stage::Vertex).named("h.vert"),
        &Options::agal(Profile::Standard),
    )
    .unwrap_err();
    assert_eq!(e.diagnostics().0[0].rule, "agal.unsupported", "{e}");
}

#[test]
fn samplers_passed_to_the_shaders_own_functions_sample_what_they_name() {
    // LÖVE's `Texel` overloads, with the same parameter name for different sampler types.
    let src = "precision mediump float;\nuniform sampler2D tex;\nuniform samplerCube env;\n\
               varying vec2 uv;\n\
               vec4 Texel(sampler2D s, vec2 c) { return texture2D(s, c); }\n\
               vec4 Texel(samplerCube s, vec3 c) { return textureCube(s, c); }\n\
               vec4 twice(sampler2D s, vec2 c) { return Texel(s, c) * 2.0; }\n\
               void main() { gl_FragColor = twice(tex, uv) * 0.25 + Texel(env, vec3(uv, 1.0)) * 0.5; }\n";
    let a = [0.25f32, 0.5, 0.75, 1.0];
    let b = [1.0f32, 0.0, 0.5, 0.25];
    let solid = |c: [f32; 4]| backend_agal::sim::Image::new_2d(1, 1, vec![c]).unwrap();
    let cube = backend_agal::sim::Image::new_cube(1, vec![b; 6]).unwrap();
    for profile in PROFILES {
        let c = compile(Source::glsl(src, Stage::Fragment), &Options::agal(profile))
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let binding = |name: &str| {
            c.reflection
                .samplers
                .iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("no sampler {name}: {:?}", c.reflection.samplers))
                .binding
        };
        let values = preview::Values {
            inputs: vec![("uv".into(), vec![0.3, 0.6, 0.0, 0.0])],
            uniforms: Vec::new(),
            textures: vec![(binding("tex"), solid(a)), (binding("env"), cube.clone())],
        };
        let out = preview::run(
            preview::Program {
                bytes: &c.bytes,
                reflection: &c.reflection,
            },
            &values,
        )
        .unwrap();
        let (got, _) = output(&c, &out, "gl_FragColor");
        for k in 0..4 {
            near(
                got[k],
                f64::from(a[k]) * 0.5 + f64::from(b[k]) * 0.5,
                &format!("{profile:?} {k}"),
            );
        }
    }
}

#[test]
fn names_later_glsl_made_keywords_and_extension_spellings_are_read() {
    // `sample` is a keyword from GLSL 4.00 (naga reads 4.50); GLSL ES 1.00's
    // EXT_frag_depth spells the depth output gl_FragDepthEXT; a precision statement may
    // name a sampler type.
    let src = "#extension GL_EXT_frag_depth : enable\nprecision mediump float;\n\
               precision lowp sampler2D;\nvarying vec2 uv;\n\
               void main() { float sample = uv.x * 0.5; gl_FragDepthEXT = sample; \
               gl_FragColor = vec4(sample); }\n";
    for profile in [Profile::Standard, Profile::StandardExtended] {
        let c = compile(Source::glsl(src, Stage::Fragment), &Options::agal(profile))
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let out = run(&c, &[("uv", vec![0.5, 0.0, 0.0, 0.0])], &[]);
        let depth = out
            .outputs
            .iter()
            .find(|o| o.register == "od")
            .unwrap_or_else(|| panic!("no depth output: {:?}", out.outputs));
        assert_eq!(depth.value[0], 0.25);
        assert_eq!(output(&c, &out, "gl_FragColor").0, [0.25; 4]);
    }
}

#[test]
fn a_uniforms_initial_value_is_reflected_and_used_until_the_application_sets_it() {
    // raylib's `uniform vec2 center = vec2(200.0, 200.0);`
    let src = "#version 330\nin vec4 p;\nuniform vec2 center = vec2(200.0, -100.0);\n\
               uniform float k = 0.5;\nuniform mat2 m = mat2(2.0);\nuniform int n = 3;\n\
               void main() { gl_Position = vec4(m * (p.xy * k) + center, float(n), 1.0); }\n";
    let mut targets = vec![Options::pica()];
    targets.extend(PROFILES.map(Options::agal));
    for options in targets {
        let what = format!("{:?} {:?}", options.target, options.profile);
        let c = compile(Source::glsl(src, Stage::Vertex), &options)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let default = |name: &str| {
            c.reflection
                .uniforms
                .iter()
                .find(|u| u.name == name)
                .unwrap()
                .default
                .clone()
        };
        assert_eq!(default("center"), Some(vec![200.0, -100.0]), "{what}");
        assert_eq!(default("k"), Some(vec![0.5]), "{what}");
        // A matrix's columns each fill a register.
        assert_eq!(
            default("m"),
            Some(vec![2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]),
            "{what}"
        );
        assert_eq!(default("n"), Some(vec![3.0]), "{what}");
        // Unset, they hold their initial values; set, the application's.
        let p = vec![4.0f32, 8.0, 0.0, 1.0];
        let out = run(&c, &[("p", p.clone())], &[]);
        let (got, lanes) = output(&c, &out, "gl_Position");
        let want = [2.0 * 4.0 * 0.5 + 200.0, 2.0 * 8.0 * 0.5 - 100.0, 3.0, 1.0];
        for k in lanes.iter().copied() {
            near(got[k], want[k], &format!("{what} default lane {k}"));
        }
        let out = run(&c, &[("p", p)], &[("k", vec![1.0])]);
        let (got, _) = output(&c, &out, "gl_Position");
        near(got[0], 2.0 * 4.0 + 200.0, &format!("{what} k set"));
    }
    let e = compile(
        Source::glsl(
            "uniform float x = sin(1.0);\nvoid main() { gl_Position = vec4(x); }\n",
            Stage::Vertex,
        ),
        &Options::pica(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("not a constant this compiler evaluates"),
        "{e}"
    );
}

#[test]
fn structure_uniforms_declared_in_place_and_unused_sampler_structures() {
    // `uniform struct { … } x;`, and a structure with a sampler member nothing uses
    // (raylib's fog.fs declares one).
    let src = "struct Material { vec3 color; sampler2D map; };\n\
               uniform struct { vec3 s; highp float t; } x, y;\nattribute vec4 p;\n\
               void main() { gl_Position = vec4(x.s * x.t + y.s, p.w); }\n";
    let mut targets = vec![Options::pica()];
    targets.extend(PROFILES.map(Options::agal));
    for options in targets {
        let what = format!("{:?} {:?}", options.target, options.profile);
        let c = compile(Source::glsl(src, Stage::Vertex), &options)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let names: Vec<&str> = c
            .reflection
            .uniforms
            .iter()
            .map(|u| u.name.as_str())
            .collect();
        assert_eq!(names, ["x.s", "x.t", "y.s", "y.t"], "{what}");
        let out = run(
            &c,
            &[("p", vec![0.0, 0.0, 0.0, 1.0])],
            &[
                ("x.s", vec![1.0, -2.0, 0.5]),
                ("x.t", vec![3.0]),
                ("y.s", vec![0.25, 0.5, 0.75]),
            ],
        );
        let (got, lanes) = output(&c, &out, "gl_Position");
        let want = [3.25, -5.5, 2.25, 1.0];
        for k in lanes {
            near(got[k], want[k], &format!("{what} lane {k}"));
        }
    }
}

#[test]
fn an_array_varyings_elements_are_named_by_index() {
    // PixiJS's and OpenFL's blur filters pass their taps as `varying vec2 vBlurTexCoords[n]`.
    let vert = "attribute vec4 p;\nvarying vec2 blur[3];\n\
                void main() { for (int i = 0; i < 3; i++) { blur[i] = p.xy * float(i + 1); } \
                gl_Position = p; }\n";
    let frag = "precision mediump float;\nvarying vec2 blur[3];\n\
                void main() { gl_FragColor = vec4(blur[0], blur[2]); }\n";
    for profile in PROFILES {
        let (v, f) = compile_pair(
            Source::glsl(vert, Stage::Vertex),
            Source::glsl(frag, Stage::Fragment),
            &Options::agal(profile),
        )
        .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let outputs: Vec<&str> = v
            .reflection
            .outputs
            .iter()
            .map(|o| o.name.as_str())
            .collect();
        assert_eq!(
            outputs,
            ["blur[0]", "blur[1]", "blur[2]", "gl_Position"],
            "{profile:?}"
        );
        let out = run(&v, &[("p", vec![0.5, -1.0, 0.0, 1.0])], &[]);
        assert_eq!(
            output(&v, &out, "blur[2]").0[..2],
            [1.5, -3.0],
            "{profile:?}"
        );
        let out = run(
            &f,
            &[
                ("blur[0]", vec![0.25, 0.5, 0.0, 0.0]),
                ("blur[2]", vec![-1.0, 2.0, 0.0, 0.0]),
            ],
            &[],
        );
        assert_eq!(
            output(&f, &out, "gl_FragColor").0,
            [0.25, 0.5, -1.0, 2.0],
            "{profile:?}"
        );
    }
}
