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
