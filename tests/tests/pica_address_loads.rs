//! Indices into a uniform array that are lanes of one value (four bones' indices in one
//! attribute) are loaded into the address registers two at a time: `mova a0.xy, r.xy`.
//! Run in the simulator against values computed here.

use backend_pica::sim::Simulator;
use spv2retro::{Options, Source, Stage, compile};
use tests::driven::{input_register, output_register, pica_uniforms};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 bones;
layout(location = 2) in vec4 weights;
layout(location = 0) out vec4 color;
layout(std140, binding = 0) uniform U { vec4 palette[8]; };
void main() {
    gl_Position = pos;
    ivec4 i = ivec4(bones);
    color = palette[i.x] * weights.x + palette[i.y] * weights.y
          + palette[i.z] * weights.z + palette[i.w] * weights.w;
}
";

#[test]
fn four_indices_take_two_address_loads() {
    let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::pica()).unwrap();
    assert_eq!(c.listing.matches("mova").count(), 2, "{}", c.listing);
    assert!(c.listing.contains("mova a0.xy,"), "{}", c.listing);
    let palette: Vec<f32> = (0..32).map(|k| k as f32 * 0.5 - 3.0).collect();
    let u = pica_uniforms(&c, &[("palette", &palette)]);
    let reg = |name: &str| input_register(&c, name);
    for (bones, weights) in [
        ([3.0f32, 0.0, 7.0, 5.0], [0.5f32, 0.25, 0.125, 0.125]),
        ([1.0, 6.0, 2.0, 4.0], [0.1, 0.2, 0.3, 0.4]),
    ] {
        let mut v = [[0.0f32; 4]; 16];
        v[reg("pos")] = [1.0, 2.0, 3.0, 1.0];
        v[reg("bones")] = bones;
        v[reg("weights")] = weights;
        let out = Simulator::new(&c.bytes).unwrap().run(0, &v, &u).unwrap();
        let got = out.outputs[output_register(&c, "color")];
        for l in 0..4 {
            let want: f32 = (0..4)
                .map(|b| palette[bones[b] as usize * 4 + l] * weights[b])
                .sum();
            assert!(
                (got[l] - want).abs() < 1e-3,
                "lane {l}: {got:?}, want {want}"
            );
        }
    }
}
