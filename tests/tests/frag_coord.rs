//! `gl_FragCoord` on AGAL: compiled as a pair, the vertex program passes its position on in
//! a spare varying and the fragment program computes the window position from it and the
//! uniform `spv2retro_viewport`. The vertex program runs in the simulator; its varyings (the
//! values at a vertex, where interpolation gives them back exactly) feed the fragment
//! program, whose `gl_FragCoord` is compared with the window position this test computes
//! from the vertex's clip position. Alone, the fragment shader is refused, saying how to
//! compile it.

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, VertexInputs, run_fragment, run_vertex};
use spv2retro::{Options, Profile, Source, Stage, compile, compile_pair};
use tests::driven::{constants_with, literal_constants, register_number as number};
use tests::mirtest::Rng;

const VERTEX: &str = "#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 tint;
layout(location = 0) out vec4 vTint;
void main() {
    vTint = tint;
    gl_Position = pos;
}
";

const FRAGMENT: &str = "#version 450
layout(location = 0) in vec4 vTint;
layout(location = 0) out vec4 color;
void main() {
    color = vec4(gl_FragCoord.x / 100.0, gl_FragCoord.y / 50.0, gl_FragCoord.z,
                 gl_FragCoord.w) + vTint * 0.0;
}
";

#[test]
fn frag_coord_from_the_position_the_vertex_program_passes_on() {
    for profile in [
        Profile::Baseline,
        Profile::Standard,
        Profile::StandardExtended,
    ] {
        let (v, f) = compile_pair(
            Source::glsl(VERTEX, Stage::Vertex),
            Source::glsl(FRAGMENT, Stage::Fragment),
            &Options::agal(profile),
        )
        .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        assert!(
            f.reflection
                .uniforms
                .iter()
                .any(|u| u.name == "spv2retro_viewport"),
            "{:?}",
            f.reflection.uniforms
        );
        let vp = Program::decode(&v.bytes).unwrap();
        let fp = Program::decode(&f.bytes).unwrap();
        let viewport = [200.0, 100.0, 0.0, 0.0];
        let mut rng = Rng(0xfc);
        for _ in 0..50 {
            let w = rng.float(0.5, 3.0);
            let pos = [rng.float(-w, w), rng.float(-w, w), rng.float(0.0, w), w];
            let tint = rng.lanes(0.0, 1.0);
            let mut attributes = vec![[0.0f32; 4]; 8];
            for i in &v.reflection.inputs {
                attributes[number(&i.register)] = if i.name == "pos" { pos } else { tint };
            }
            let out = run_vertex(
                &vp,
                &VertexInputs {
                    attributes: &attributes,
                    constants: &literal_constants(&v),
                    instance_id: 0,
                },
            )
            .unwrap();
            assert_eq!(out.position, pos);
            let got = run_fragment(
                &fp,
                &out.varyings,
                &FragmentInputs {
                    constants: &constants_with(&f, &[("spv2retro_viewport", &viewport)]),
                    textures: &(),
                },
            )
            .unwrap()
            .colors[0];
            let p = pos.map(f64::from);
            let want = [
                (p[0] / p[3] + 1.0) / 2.0 * 200.0 / 100.0,
                (1.0 - p[1] / p[3]) / 2.0 * 100.0 / 50.0,
                p[2] / p[3],
                1.0 / p[3],
            ];
            for (l, w) in want.iter().enumerate() {
                let g = f64::from(got[l]);
                assert!(
                    (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                    "{profile:?} pos {pos:?} lane {l}: {g} vs {w}\n{}",
                    f.listing
                );
            }
        }
    }
}

#[test]
fn alone_the_fragment_shader_says_how_to_get_frag_coord() {
    let e = compile(
        Source::glsl(FRAGMENT, Stage::Fragment),
        &Options::agal(Profile::Standard).stage(Stage::Fragment),
    )
    .expect_err("no position without the vertex program");
    let text = e.to_string();
    assert!(
        text.contains("error[agal.unsupported]: gl_FragCoord"),
        "{text}"
    );
    assert!(text.contains("--link"), "{text}");
    assert!(text.contains("compile_pair"), "{text}");
}

/// `FragCoord` read by a vertex shader (which spirv-val would refuse, and this front end lets
/// through): a rule on both targets, not an internal error.
#[test]
fn frag_coord_in_a_vertex_shader_is_refused_by_a_rule() {
    let text = "               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main \"main\" %fc %pos
               OpDecorate %fc BuiltIn FragCoord
               OpDecorate %pos BuiltIn Position
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
         %v4 = OpTypeVector %float 4
        %pin = OpTypePointer Input %v4
       %pout = OpTypePointer Output %v4
         %fc = OpVariable %pin Input
        %pos = OpVariable %pout Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %x = OpLoad %v4 %fc
               OpStore %pos %x
               OpReturn
               OpFunctionEnd
";
    for options in [Options::agal(Profile::Standard), Options::pica()] {
        let e = compile(Source::spirv_text(text), &options).expect_err("no window position");
        let text = e.to_string();
        assert!(text.contains(".unsupported]"), "{text}");
        assert!(!text.contains("internal"), "{text}");
    }
}
