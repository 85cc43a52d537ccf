//! Two rows of a matrix product going to a `vec2` varying (`(p * texMatrix).xy`): AGAL
//! writes all four lanes of a varying anyway, so one `m44` into the varying computes the two
//! lanes (its other two read the next registers, padding), where two `dp4` and a padding
//! `mov` took three tokens. Run in the simulator on every profile against values computed
//! here. Rows that end the constant file keep their `dp4`s.

use backend_agal::Program;
use backend_agal::sim::{VertexInputs, run_vertex};
use spv2retro::{Options, Source, Stage, compile};
use tests::driven::{AGAL_PROFILES, constants_with, output_register};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 p;
layout(location = 0) out vec2 uv;
layout(std140, binding = 0) uniform U { mat4 mvp; mat4 texMatrix; };
void main() {
    gl_Position = mvp * p;
    uv = (p * texMatrix).xy;
}
";

#[test]
fn two_rows_to_a_varying_are_one_m44() {
    let mvp: Vec<f32> = (0..16)
        .map(|k| if k % 5 == 0 { 1.0 } else { 0.0 })
        .collect();
    let tex: Vec<f32> = (0..16).map(|k| k as f32 * 0.5 - 3.0).collect();
    let p = [0.5f32, -1.0, 2.0, 1.0];
    // p * M: lane i is dot(p, column i) (column-major: elements 4i..4i+4).
    let want: Vec<f32> = (0..2)
        .map(|i| (0..4).map(|k| p[k] * tex[4 * i + k]).sum())
        .collect();
    for profile in AGAL_PROFILES {
        let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::agal(profile)).unwrap();
        assert!(
            c.listing.contains("m44 v0, va0, vc4"),
            "{profile:?}:\n{}",
            c.listing
        );
        assert!(!c.listing.contains("dp4"), "{profile:?}:\n{}", c.listing);
        let constants = constants_with(&c, &[("mvp", &mvp), ("texMatrix", &tex)]);
        let out = run_vertex(
            &Program::decode(&c.bytes).unwrap(),
            &VertexInputs {
                attributes: &[p],
                constants: &constants,
                instance_id: 0,
            },
        )
        .unwrap();
        let got = out.varyings[output_register(&c, "uv")];
        for l in 0..2 {
            assert!(
                (got[l] - want[l]).abs() < 1e-4,
                "{profile:?} lane {l}: {got:?} vs {want:?}"
            );
        }
        assert_eq!(out.position, p, "{profile:?}");
    }
}

#[test]
fn rows_at_the_end_of_the_constant_file_stay_dot_products() {
    // r0 and r1 in vc126 and vc127 of baseline's 128: an m44 would read vc128 and vc129.
    let shader = "#version 450
layout(location = 0) in vec4 p;
layout(location = 0) out vec2 uv;
layout(std140, binding = 0) uniform U { vec4 pad[126]; vec4 r0; vec4 r1; };
void main() {
    gl_Position = p + pad[0];
    uv = vec2(dot(p, r0), dot(p, r1));
}
";
    let c = compile(
        Source::glsl(shader, Stage::Vertex),
        &Options::agal(backend_agal::Profile::Baseline),
    )
    .unwrap();
    assert!(!c.listing.contains("m44"), "{}", c.listing);
    assert!(c.listing.contains("dp4"), "{}", c.listing);
}

/// Two rows of a matrix product kept in a temporary (Starling's displacement map: `m44 ft2,
/// ft1, fc3` of which it reads `.xy`): one `m34` writing `.xy` where two `dp4` took two
/// tokens. Its third row register is read but not used, so it must exist.
const TWO_ROWS_FRAGMENT: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 color;
layout(std140, binding = 0) uniform U { vec4 pad[PAD]; mat4 m; };
void main() {
    vec2 d = (a * m).xy;
    color = vec4(d * a.zw + pad[0].xy, d);
}
";

#[test]
fn two_rows_in_a_temporary_are_one_m34() {
    use backend_agal::sim::{FragmentInputs, run_fragment};
    let m: Vec<f32> = (0..16).map(|k| k as f32 * 0.25 - 1.5).collect();
    let a = [0.5f32, -1.0, 2.0, 0.75];
    let pad0 = [0.125f32, -0.25, 0.0, 0.0];
    // a * m: lane i is dot(a, column i) (column-major: elements 4i..4i+4).
    let d: Vec<f32> = (0..2)
        .map(|i| (0..4).map(|k| a[k] * m[4 * i + k]).sum())
        .collect();
    let want = [d[0] * a[2] + pad0[0], d[1] * a[3] + pad0[1], d[0], d[1]];
    for profile in AGAL_PROFILES {
        let shader = TWO_ROWS_FRAGMENT.replace("PAD", "1");
        let options = Options::agal(profile).stage(Stage::Fragment);
        let c = compile(Source::glsl(&shader, Stage::Fragment), &options).unwrap();
        assert!(c.listing.contains("m34 ft"), "{profile:?}:\n{}", c.listing);
        assert!(!c.listing.contains("dp4"), "{profile:?}:\n{}", c.listing);
        let constants = constants_with(&c, &[("pad", &pad0), ("m", &m)]);
        let out = run_fragment(
            &Program::decode(&c.bytes).unwrap(),
            &[a],
            &FragmentInputs {
                constants: &constants,
                textures: &(),
            },
        )
        .unwrap();
        for l in 0..4 {
            assert!(
                (out.colors[0][l] - want[l]).abs() < 1e-4,
                "{profile:?} lane {l}: {:?} vs {want:?}",
                out.colors[0]
            );
        }
    }
    // Rows in fc26 and fc27 of baseline's 28: an m34 would read fc28.
    let shader = TWO_ROWS_FRAGMENT
        .replace("PAD", "26")
        .replace("mat4 m;", "vec4 m0; vec4 m1;")
        .replace("(a * m).xy", "vec2(dot(a, m0), dot(a, m1))");
    let options = Options::agal(backend_agal::Profile::Baseline).stage(Stage::Fragment);
    let c = compile(Source::glsl(&shader, Stage::Fragment), &options).unwrap();
    assert!(!c.listing.contains("m34"), "{}", c.listing);
    assert!(c.listing.contains("dp4"), "{}", c.listing);
}
