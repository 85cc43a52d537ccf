//! A sum of two inputs scaled by a power of two (`(a + b) * 0.5`, a geometry program's
//! midpoint) is `mad(a, k, b * k)` on the PICA200: an instruction reads one input register
//! at most, so the sum itself would need a move first. Run in the simulator against values
//! computed here; a factor that is not a power of two keeps the sum (the distributed form
//! would round differently).

use backend_pica::sim::Simulator;
use spv2retro::{Options, Source, Stage, compile};
use tests::driven::{input_register, output_register, pica_uniforms};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 b;
layout(location = 0) out vec4 mid;
layout(location = 4) out vec4 third;
void main() {
    gl_Position = a;
    mid = (a - b) * 0.5;
    third = (a + b) * 3.0;
}
";

#[test]
fn a_scaled_sum_of_two_inputs_needs_no_move() {
    let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::pica()).unwrap();
    // mid: mul, mad into o1; third: mov, add, mul into o2; mov o0; end.
    assert!(c.listing.contains("\tmad o1,"), "{}", c.listing);
    assert_eq!(c.reflection.stats.instructions, 7, "{}", c.listing);
    let (a, b) = ([0.5f32, -2.0, 3.0, 1.0], [1.5f32, 0.25, -1.0, 2.0]);
    let mut v = [[0.0f32; 4]; 16];
    let reg = |name: &str| input_register(&c, name);
    v[reg("a")] = a;
    v[reg("b")] = b;
    let u = pica_uniforms(&c, &[]);
    let out = Simulator::new(&c.bytes).unwrap().run(0, &v, &u).unwrap();
    let mid = out.outputs[output_register(&c, "mid")];
    let third = out.outputs[output_register(&c, "third")];
    for l in 0..4 {
        assert_eq!(mid[l], (a[l] - b[l]) * 0.5, "{mid:?}");
        assert!((third[l] - (a[l] + b[l]) * 3.0).abs() < 1e-4, "{third:?}");
    }
}
