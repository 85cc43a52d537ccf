//! A construct that keeps lanes of a vector where they are (`vec4(s, t.yzw)` with `t` read
//! by nothing else) is written into that vector's register: its other lanes are computed
//! there, and the kept lanes need no move. Both targets, run in their simulators against
//! values computed here.

use backend_agal::Program;
use backend_agal::sim::{VertexInputs, run_vertex};
use backend_pica::sim::Simulator;
use spv2retro::{Options, Source, Stage, compile};
use tests::driven::{
    AGAL_PROFILES, constants_with, input_register, output_register, pica_uniforms,
};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 b;
layout(location = 0) out vec4 o;
layout(std140, binding = 0) uniform U { vec4 k; vec4 k2; };
void main() {
    vec4 t = a * k;
    gl_Position = vec4(b.x * 2.0, t.yzw) * k2;
    o = b;
}
";

const A: [f32; 4] = [0.5, -2.0, 3.0, 1.0];
const B: [f32; 4] = [1.5, 0.25, -1.0, 2.0];
const K: [f32; 4] = [2.0, 0.5, -1.5, 4.0];
const K2: [f32; 4] = [1.0, -1.0, 0.25, 3.0];

fn want() -> [f32; 4] {
    let t: [f32; 4] = std::array::from_fn(|l| A[l] * K[l]);
    let c = [B[0] * 2.0, t[1], t[2], t[3]];
    std::array::from_fn(|l| c[l] * K2[l])
}

#[test]
fn the_pica200_writes_a_construct_into_the_vector_whose_lanes_it_keeps() {
    let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::pica()).unwrap();
    // mul t, mul into t.x, mul o0, mov o1, end: no move of t's lanes.
    assert_eq!(c.reflection.stats.instructions, 5, "{}", c.listing);
    assert!(!c.listing.contains(".yzw, r"), "{}", c.listing);
    let u = pica_uniforms(&c, &[("k", &K), ("k2", &K2)]);
    let mut v = [[0.0f32; 4]; 16];
    v[input_register(&c, "a")] = A;
    v[input_register(&c, "b")] = B;
    let out = Simulator::new(&c.bytes).unwrap().run(0, &v, &u).unwrap();
    assert_eq!(out.outputs[output_register(&c, "gl_Position")], want());
}

#[test]
fn agal_writes_a_construct_into_the_vector_whose_lanes_it_keeps() {
    for profile in AGAL_PROFILES {
        let options = Options::agal(profile).stage(Stage::Vertex);
        let c = compile(Source::glsl(SHADER, Stage::Vertex), &options).unwrap();
        assert!(
            !c.listing.contains(".yzw, vt"),
            "{profile:?}:\n{}",
            c.listing
        );
        let constants = constants_with(&c, &[("k", &K), ("k2", &K2)]);
        let out = run_vertex(
            &Program::decode(&c.bytes).unwrap(),
            &VertexInputs {
                attributes: &[A, B],
                constants: &constants,
                instance_id: 0,
            },
        )
        .unwrap();
        assert_eq!(out.position, want(), "{profile:?}:\n{}", c.listing);
    }
}
