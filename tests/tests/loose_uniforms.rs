//! Loose uniforms of OpenGL-style SPIR-V take their location as register, unless that would
//! put two in the same registers: glslang's `--aml` numbers them as GL does, a `mat4` one
//! location, so the uniform after a matrix would share its registers (and no upload could
//! set both). Then each, in location order, takes the next free register from its location.

use spv2retro::{Options, Profile, Source, compile};

/// `uniform mat4 m` at `location m`, `uniform vec4 t` at `location t`;
/// `gl_Position = m * pos + t`.
fn module(m: u32, t: u32) -> String {
    format!(
        "
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main \"main\" %pos %out
               OpName %m \"m\"
               OpName %t \"t\"
               OpName %pos \"pos\"
               OpDecorate %m Location {m}
               OpDecorate %t Location {t}
               OpDecorate %pos Location 0
               OpDecorate %out BuiltIn Position
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %vec4 = OpTypeVector %float 4
       %mat4 = OpTypeMatrix %vec4 4
      %p_mat = OpTypePointer UniformConstant %mat4
      %p_vec = OpTypePointer UniformConstant %vec4
       %p_in = OpTypePointer Input %vec4
      %p_out = OpTypePointer Output %vec4
          %m = OpVariable %p_mat UniformConstant
          %t = OpVariable %p_vec UniformConstant
        %pos = OpVariable %p_in Input
        %out = OpVariable %p_out Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %mv = OpLoad %mat4 %m
         %tv = OpLoad %vec4 %t
         %pv = OpLoad %vec4 %pos
         %mp = OpMatrixTimesVector %vec4 %mv %pv
          %r = OpFAdd %vec4 %mp %tv
               OpStore %out %r
               OpReturn
               OpFunctionEnd
"
    )
}

#[test]
fn uniforms_numbered_as_gl_does_take_registers_of_their_own() {
    let m: Vec<f32> = (0..16).map(|k| (k as f32) * 0.25 - 1.0).collect();
    let t = vec![10.0f32, 20.0, 30.0, 40.0];
    let pos = [1.0f32, -2.0, 0.5, 1.0];
    let want: Vec<f64> = (0..4)
        .map(|r| {
            (0..4)
                .map(|c| f64::from(m[c * 4 + r]) * f64::from(pos[c]))
                .sum::<f64>()
                + f64::from(t[r])
        })
        .collect();
    // (m's location, t's location) → (m's register, t's register)
    for ((lm, lt), (rm, rt)) in [
        ((0, 1), (0, 4)),
        ((0, 4), (0, 4)),
        ((5, 0), (5, 0)),
        ((1, 0), (1, 0)),
    ] {
        // (1, 0): t in register 0, m from 1 on: no overlap, so locations hold.
        let text = module(lm, lt);
        for options in [Options::pica(), Options::agal(Profile::Standard)] {
            let c = compile(Source::spirv_text(&text), &options).unwrap();
            let register = |name: &str| {
                let u = c
                    .reflection
                    .uniforms
                    .iter()
                    .find(|u| u.name == name)
                    .unwrap();
                tests::driven::register_number(&u.register)
            };
            assert_eq!(
                (register("m"), register("t")),
                (rm, rt),
                "locations {lm}, {lt} on {:?}",
                options.target
            );
            let out = preview::run(
                preview::Program {
                    bytes: &c.bytes,
                    reflection: &c.reflection,
                },
                &preview::Values {
                    inputs: vec![("pos".into(), pos.to_vec())],
                    uniforms: vec![("m".into(), m.clone()), ("t".into(), t.clone())],
                    textures: Vec::new(),
                },
            )
            .unwrap();
            let got = out.outputs[0].value;
            for k in 0..4 {
                assert!(
                    (f64::from(got[k]) - want[k]).abs() < 1e-2,
                    "locations {lm}, {lt} on {:?}: lane {k}: {got:?} vs {want:?}",
                    options.target
                );
            }
        }
    }
}
