//! A narrower value returned to a wider output through a swizzle (`a.yzzx` of a vec3 `a`
//! into a vec4): every lane the swizzle names reaches the output, on AGAL as on the PICA200.
//! (Found by the generated-shader run: AGAL moved three lanes, repeating the third.)

use backend_agal::Program;
use backend_agal::sim::{VertexInputs, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Options, Source, Stage, compile};
use tests::driven::{AGAL_PROFILES, literal_constants, output_register, register_number};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 p;
layout(location = 0) out vec4 color;
void main() {
    vec3 a = p.xyz * 2.0 + 1.0;
    color = a.yzzx;
    gl_Position = a.zxyy;
}
";

#[test]
fn a_vec3_returned_to_a_vec4_output_keeps_every_lane() {
    let p = [0.5f32, -1.0, 2.0, 7.0];
    let a = [p[0] * 2.0 + 1.0, p[1] * 2.0 + 1.0, p[2] * 2.0 + 1.0];
    let color = [a[1], a[2], a[2], a[0]];
    let position = [a[2], a[0], a[1], a[1]];
    for profile in AGAL_PROFILES {
        let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::agal(profile))
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let program = Program::decode(&c.bytes).unwrap();
        let out = run_vertex(
            &program,
            &VertexInputs {
                attributes: &[p],
                constants: &literal_constants(&c),
                instance_id: 0,
            },
        )
        .unwrap();
        assert_eq!(
            out.varyings[output_register(&c, "color")],
            color,
            "{profile:?}"
        );
        assert_eq!(out.position, position, "{profile:?}");
    }
    let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::pica()).unwrap();
    let sim = Simulator::new(&c.bytes).unwrap();
    let mut u = Uniforms::default();
    for (slot, v) in u.float.iter_mut().zip(literal_constants(&c)) {
        *slot = v;
    }
    let mut inputs = [[0.0f32; 4]; 16];
    inputs[register_number(&c.reflection.inputs[0].register)] = p;
    let out = sim.run(0, &inputs, &u).unwrap();
    assert_eq!(out.outputs[output_register(&c, "color")], color);
    assert_eq!(out.outputs[output_register(&c, "gl_Position")], position);
}
