//! `x * k1 + k2` of a scalar and two literals is one `dph` against `(k1, 0, 0, k2)` on the
//! PICA200 (a MAD reads one constant register, so it would need a literal moved first);
//! where those literals would not fit beside the uniforms, the program is compiled with
//! multiply-adds instead. Both run in the simulator against values computed here.

use backend_pica::sim::Simulator;
use spv2retro::{Compiled, Options, Source, Stage, compile};
use tests::driven::{input_register, output_register, pica_uniforms};

/// Four dependent affine steps (they cannot share one vector instruction), beside a uniform
/// array of `n` registers read at a computed index.
fn shader(n: usize) -> String {
    format!(
        "#version 450
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 idx;
layout(location = 0) out vec4 o;
layout(std140, binding = 0) uniform U {{ vec4 big[{n}]; }};
void main() {{
    gl_Position = big[int(idx.x)];
    float t = a.x * 1.5 + 2.5;
    float u = t * -3.5 + 4.5;
    float v = u * 0.25 + 6.5;
    float w = v * 7.5 - 8.5;
    o = vec4(t, u, v, w);
}}
"
    )
}

fn run(c: &Compiled, n: usize, a: [f32; 4]) -> [f32; 4] {
    let big: Vec<f32> = (0..n * 4).map(|k| k as f32).collect();
    let u = pica_uniforms(c, &[("big", &big)]);
    let reg = |name: &str| input_register(c, name);
    let mut v = [[0.0f32; 4]; 16];
    v[reg("a")] = a;
    v[reg("idx")] = [2.0, 0.0, 0.0, 0.0];
    let out = Simulator::new(&c.bytes).unwrap().run(0, &v, &u).unwrap();
    assert_eq!(
        out.outputs[output_register(c, "gl_Position")],
        [8.0, 9.0, 10.0, 11.0]
    );
    out.outputs[output_register(c, "o")]
}

fn expected(a: [f32; 4]) -> [f32; 4] {
    let t = a[0] * 1.5 + 2.5;
    let u = t * -3.5 + 4.5;
    let v = u * 0.25 + 6.5;
    [t, u, v, v * 7.5 - 8.5]
}

#[test]
fn an_affine_scalar_of_two_literals_is_one_dph() {
    let c = compile(Source::glsl(&shader(8), Stage::Vertex), &Options::pica()).unwrap();
    assert_eq!(c.listing.matches("dphi").count(), 4, "{}", c.listing);
    assert!(!c.listing.contains("mad"), "{}", c.listing);
    for a in [[0.5f32, 0.0, 0.0, 0.0], [-2.25, 1.0, 0.0, 0.0]] {
        let got = run(&c, 8, a);
        let want = expected(a);
        for l in 0..4 {
            assert!(
                (got[l] - want[l]).abs() < 1e-3 * want[l].abs().max(1.0),
                "{got:?} {want:?}"
            );
        }
    }
}

#[test]
fn without_room_for_their_literals_they_stay_multiply_adds() {
    // 92 uniform registers leave c92-c95: room for the multiply-adds' literals (and the
    // index's rounding constants), not for four (k1, 0, 0, k2) vectors.
    let c = compile(Source::glsl(&shader(92), Stage::Vertex), &Options::pica()).unwrap();
    assert!(!c.listing.contains("dphi"), "{}", c.listing);
    assert!(c.listing.contains("mad"), "{}", c.listing);
    let a = [0.75f32, 0.0, 0.0, 0.0];
    let got = run(&c, 92, a);
    let want = expected(a);
    for l in 0..4 {
        assert!(
            (got[l] - want[l]).abs() < 1e-3 * want[l].abs().max(1.0),
            "{got:?} {want:?}"
        );
    }
}
