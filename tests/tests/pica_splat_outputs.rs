//! A scalar returned as a whole vector (`o = vec4(s)`) is computed straight into every lane
//! of its output register, its lane-wise sources read broadcast, with no copy after; and
//! `gl_Position` next to it is still copied whole (the broadcast is that instruction's
//! only). Lanes of an output that no semantic carries are not computed at all. Run in the
//! simulator against values computed here.

use backend_pica::sim::Simulator;
use spv2retro::{Options, Source, Stage, compile};
use tests::driven::{input_register, output_register, pica_uniforms};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 b;
layout(location = 0) out vec4 o;
layout(location = 4) out vec4 d;
layout(std140, binding = 0) uniform U { mat4 m; };
void main() {
    gl_Position = a;
    o = vec4(m[1].x * a.x + m[2].y * b.y);
    d = vec4(dot(a, b));
}
";

#[test]
fn a_splat_scalar_is_computed_into_the_whole_output() {
    let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::pica()).unwrap();
    // mul, mad into o1, mov r1 v1 (one input register per instruction), dp4 into o2,
    // mov o0, end: no copy of the scalars.
    assert_eq!(c.reflection.stats.instructions, 6, "{}", c.listing);
    assert!(!c.listing.contains("mov o1"), "{}", c.listing);
    assert!(!c.listing.contains("mov o2"), "{}", c.listing);
    let m: Vec<f32> = (0..16).map(|k| k as f32 * 0.25 - 1.0).collect();
    let u = pica_uniforms(&c, &[("m", &m)]);
    let (a, b) = ([0.5f32, -2.0, 3.0, 1.0], [1.5f32, 0.25, -1.0, 2.0]);
    let mut v = [[0.0f32; 4]; 16];
    let reg = |name: &str| input_register(&c, name);
    v[reg("a")] = a;
    v[reg("b")] = b;
    let out = Simulator::new(&c.bytes).unwrap().run(0, &v, &u).unwrap();
    assert!(out.missing.is_empty());
    // Column-major m: m[1].x is element 4, m[2].y element 9.
    let s = m[4] * a[0] + m[9] * b[1];
    let dot: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let close = |got: [f32; 4], want: f32| got.iter().all(|g| (g - want).abs() < 1e-3);
    assert!(
        close(out.outputs[output_register(&c, "o")], s),
        "{:?}",
        out.outputs
    );
    assert!(
        close(out.outputs[output_register(&c, "d")], dot),
        "{:?}",
        out.outputs
    );
    assert_eq!(out.outputs[output_register(&c, "gl_Position")], a);
}

/// Lanes of an output that no semantic carries (the `w` of a `vec4` at location 1, the `zw`
/// of one at location 2: `pica.output-dropped`) are not computed: a lane-wise result goes
/// straight into the carried lanes, with no temporary and no copy.
const WIDE: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 b;
layout(location = 1) out vec4 t0;
layout(location = 2) out vec4 t1;
layout(location = 3) out vec4 t2;
layout(std140, binding = 0) uniform U { vec4 k; };
void main() {
    gl_Position = a;
    t0 = b * k;
    t1 = a.wzyx * 2.0 + b;
    t2 = vec4(a.x * b.y, k.z, a.z * k.x, b.w * 3.0);
}
";

#[test]
fn lanes_no_semantic_carries_are_not_computed() {
    let c = compile(Source::glsl(WIDE, Stage::Vertex), &Options::pica()).unwrap();
    // mul into o1.xyz, mad into o2.xy (one input register per instruction: a move of one
    // input first), mov o0, end.
    assert!(c.listing.contains("mul o1.xyz,"), "{}", c.listing);
    assert!(c.listing.contains("o2.xy,"), "{}", c.listing);
    assert!(!c.listing.contains("mov o1"), "{}", c.listing);
    assert!(!c.listing.contains("mov o2"), "{}", c.listing);
    // t2 (texcoord2 takes xy) is built in o3.xy: no temporary, no z or w.
    assert!(
        !c.listing.contains("o3.z") && !c.listing.contains("o3.w"),
        "{}",
        c.listing
    );
    assert!(!c.listing.contains("mov o3.xy, r"), "{}", c.listing);
    assert_eq!(c.reflection.stats.instructions, 8, "{}", c.listing);
    let k = [0.5f32, -2.0, 4.0, 8.0];
    let u = pica_uniforms(&c, &[("k", &k)]);
    let (a, b) = ([0.5f32, -2.0, 3.0, 1.0], [1.5f32, 0.25, -1.0, 2.0]);
    let mut v = [[0.0f32; 4]; 16];
    let reg = |name: &str| input_register(&c, name);
    v[reg("a")] = a;
    v[reg("b")] = b;
    let out = Simulator::new(&c.bytes).unwrap().run(0, &v, &u).unwrap();
    let t0 = out.outputs[output_register(&c, "t0")];
    let t1 = out.outputs[output_register(&c, "t1")];
    for l in 0..3 {
        assert!((t0[l] - b[l] * k[l]).abs() < 1e-4, "{t0:?}");
    }
    for l in 0..2 {
        assert!((t1[l] - (a[3 - l] * 2.0 + b[l])).abs() < 1e-4, "{t1:?}");
    }
    let t2 = out.outputs[output_register(&c, "t2")];
    assert!((t2[0] - a[0] * b[1]).abs() < 1e-4, "{t2:?}");
    assert!((t2[1] - k[2]).abs() < 1e-4, "{t2:?}");
}
