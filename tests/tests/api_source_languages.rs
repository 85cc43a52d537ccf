//! GLSL and WGSL through the library (`spv2retro`'s `glsl`/`wgsl` features, naga's front
//! ends): compiled, run in the back ends' simulators, compared with values computed here;
//! and a source error comes back as an error naming the line, not a panic.

use backend_agal::sim::{FragmentInputs, VertexInputs, run_fragment, run_vertex};
use spv2retro::{Options, Profile, Source, Stage, compile};

const VERTEX: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vColor;
layout(std140, binding = 0) uniform Transform { mat4 mvp; vec4 scale; };
void main() {
    gl_Position = mvp * position;
    vColor = color * scale;
}
";

#[test]
fn glsl_compiles_for_both_targets_and_computes_the_shader() {
    let mvp: [[f32; 4]; 4] = [
        [2.0, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, -1.0, 0.25, 1.0],
    ];
    let (position, color, scale) = (
        [0.5f32, 1.5, -2.0, 1.0],
        [0.25f32, 0.5, 0.75, 1.0],
        [2.0f32, 0.5, 1.0, 0.25],
    );
    let want_position: [f32; 4] =
        std::array::from_fn(|row| (0..4).map(|c| mvp[c][row] * position[c]).sum());
    let want_color: [f32; 4] = std::array::from_fn(|i| color[i] * scale[i]);
    let close = |got: [f32; 4], want: [f32; 4], what: &str| {
        for i in 0..4 {
            assert!(
                (got[i] - want[i]).abs() < 1e-3,
                "{what}: got {got:?}, want {want:?}"
            );
        }
    };

    // AGAL: registers from the reflection.
    let program = compile(
        Source::glsl(VERTEX, Stage::Vertex).named("color.vert"),
        &Options::agal(Profile::Baseline),
    )
    .unwrap();
    let r = &program.reflection;
    let reg = |name: &str| -> usize {
        let u = r.uniforms.iter().find(|u| u.name == name).unwrap();
        u.register.trim_start_matches("vc").parse().unwrap()
    };
    let mut constants = vec![[0.0f32; 4]; 128];
    constants[reg("mvp")..reg("mvp") + 4].copy_from_slice(&mvp);
    constants[reg("scale")] = scale;
    for k in &r.constants {
        constants[k
            .register
            .trim_start_matches("vc")
            .parse::<usize>()
            .unwrap()] = k.value;
    }
    let decoded = backend_agal::Program::decode(&program.bytes).unwrap();
    let out = run_vertex(
        &decoded,
        &VertexInputs {
            attributes: &[position, color],
            constants: &constants,
            instance_id: 0,
        },
    )
    .unwrap();
    close(out.position, want_position, "AGAL position");
    let v: usize = r
        .outputs
        .iter()
        .find(|o| o.name == "vColor")
        .unwrap()
        .register[1..]
        .parse()
        .unwrap();
    close(out.varyings[v], want_color, "AGAL vColor");

    // PICA200.
    let program = compile(Source::glsl(VERTEX, Stage::Vertex), &Options::pica()).unwrap();
    let r = &program.reflection;
    let sim = backend_pica::sim::Simulator::new(&program.bytes).unwrap();
    let mut u = backend_pica::sim::Uniforms::default();
    let reg = |name: &str| -> usize {
        let u = r.uniforms.iter().find(|u| u.name == name).unwrap();
        u.register.trim_start_matches('c').parse().unwrap()
    };
    u.float[reg("mvp")..reg("mvp") + 4].copy_from_slice(&mvp);
    u.float[reg("scale")] = scale;
    let mut inputs = [[0.0f32; 4]; 16];
    inputs[0] = position;
    inputs[1] = color;
    let out = sim.run(0, &inputs, &u).unwrap();
    let o = |name: &str| -> usize {
        let o = r
            .outputs
            .iter()
            .find(|o| o.name == name || o.builtin.as_deref() == Some(name))
            .unwrap();
        o.register[1..].parse().unwrap()
    };
    close(out.outputs[o("Position")], want_position, "PICA position");
    close(out.outputs[o("vColor")], want_color, "PICA vColor");
}

#[test]
fn wgsl_fragment_shader_runs() {
    let source = "
struct Material { tint: vec4<f32> }
@group(0) @binding(0) var<uniform> material: Material;
@fragment
fn main(@location(0) color: vec4<f32>) -> @location(0) vec4<f32> {
    return clamp(color * material.tint, vec4(0.0), vec4(1.0));
}
";
    let program = compile(
        Source::wgsl(source).named("tint.wgsl"),
        &Options::agal(Profile::Standard),
    )
    .unwrap();
    assert_eq!(program.stage, Stage::Fragment);
    let r = &program.reflection;
    let mut constants = vec![[0.0f32; 4]; 64];
    let tint = [2.0f32, 0.5, -1.0, 1.0];
    let at: usize = r.uniforms[0].register[2..].parse().unwrap();
    constants[at] = tint;
    for k in &r.constants {
        constants[k.register[2..].parse::<usize>().unwrap()] = k.value;
    }
    let decoded = backend_agal::Program::decode(&program.bytes).unwrap();
    let color = [0.25f32, 0.5, 0.75, 0.5];
    let out = run_fragment(
        &decoded,
        &[color],
        &FragmentInputs {
            constants: &constants,
            textures: &(),
        },
    )
    .unwrap();
    let want: [f32; 4] = std::array::from_fn(|i| (color[i] * tint[i]).clamp(0.0, 1.0));
    for i in 0..4 {
        assert!(
            (out.colors[0][i] - want[i]).abs() < 1e-5,
            "{:?} vs {want:?}",
            out.colors[0]
        );
    }
}

#[test]
fn source_errors_name_the_line() {
    let bad =
        "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() {\n    c = vec4(1.0) +;\n}\n";
    let err = compile(
        Source::glsl(bad, Stage::Fragment).named("bad.frag"),
        &Options::agal(Profile::Baseline),
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("bad.frag: error[naga.glsl]"), "{text}");
    assert!(text.contains(":4:"), "the line is named: {text}");
    let err = compile(
        Source::wgsl("fn main( {").named("bad.wgsl"),
        &Options::pica(),
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with("bad.wgsl: error[naga.wgsl]"),
        "{err}"
    );
}

/// A counted loop, as every GLSL author writes one. naga's SPIR-V writer adds a loop-bounding
/// counter by default (a WebGPU safety measure) that made the trip count data-dependent:
/// AGAL refused the loop and the PICA200 carried a u32 counter in floats.
const LOOP: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 o;
layout(std140, binding = 0) uniform U { vec4 d[4]; };
void main() {
    vec4 acc = vec4(0.0);
    for (int i = 0; i < 4; i++) acc += d[i] * a.x;
    o = acc;
    gl_Position = a;
}
";

#[test]
fn glsl_counted_loops_unroll_on_agal_and_stay_lean_on_the_pica() {
    let a = [1.5f32, 2.0, 3.0, 4.0];
    let d: [[f32; 4]; 4] = [
        [1.0, 2.0, 3.0, 4.0],
        [0.5, 0.25, 0.125, 1.0],
        [-1.0, 0.0, 1.0, 2.0],
        [3.0, 1.0, -2.0, 0.5],
    ];
    let want: [f32; 4] = std::array::from_fn(|l| (0..4).map(|i| d[i][l] * a[0]).sum());
    for profile in [Profile::Baseline, Profile::StandardExtended] {
        let program = compile(
            Source::glsl(LOOP, Stage::Vertex).named("loop.vert"),
            &Options::agal(profile),
        )
        .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let r = &program.reflection;
        let number =
            |s: &str| -> usize { s.trim_start_matches(char::is_alphabetic).parse().unwrap() };
        let mut constants = vec![[0.0f32; 4]; 128];
        let at = number(&r.uniforms.iter().find(|u| u.name == "d").unwrap().register);
        constants[at..at + 4].copy_from_slice(&d);
        for k in &r.constants {
            constants[number(&k.register)] = k.value;
        }
        let decoded = backend_agal::Program::decode(&program.bytes).unwrap();
        let out = run_vertex(
            &decoded,
            &VertexInputs {
                attributes: &[a],
                constants: &constants,
                instance_id: 0,
            },
        )
        .unwrap();
        let v = number(&r.outputs.iter().find(|o| o.name == "o").unwrap().register);
        for (got, want) in out.varyings[v].iter().zip(want) {
            assert!((got - want).abs() < 1e-5, "{profile:?}");
        }
    }
    let pica = compile(
        Source::glsl(LOOP, Stage::Vertex).named("loop.vert"),
        &Options::pica(),
    )
    .unwrap();
    // Four multiply-adds (unrolled) and the moves around them: no counter, no 2^32 literal.
    assert!(!pica.listing.contains("4294967"), "{}", pica.listing);
    assert!(!pica.listing.contains("breakc"), "{}", pica.listing);
}
