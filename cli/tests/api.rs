//! The library API as a build script or tool uses it: errors as values (never a panic), and
//! the build-script helper's outputs. That the binaries write the same bytes and print the
//! same diagnostics is tested with them (`tools/tests/api.rs`).

use spv2retro::build::Shaders;
use spv2retro::{ErrorKind, Options, Profile, Source, compile};
use test_kit::{fixture, scratch};

#[test]
fn a_target_limit_is_an_error_value() {
    // Phong shading for the PICA200's texture combiners, and garbage: errors, not panics.
    let bytes = std::fs::read(fixture("glsl/phong.frag.spv")).unwrap();
    let err = compile(Source::spirv(&bytes), &Options::pica()).unwrap_err();
    assert!(err.to_string().contains("error[pica.fragment]"), "{err}");
    let err = compile(Source::spirv(&[1, 2, 3, 4, 5]), &Options::pica()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Rejected);
}

#[test]
fn the_build_helper_writes_programs_reflection_and_a_module() {
    let out = scratch("build-ok");
    let outputs = Shaders::new()
        .shader(fixture("glsl/mvp_color.vert.spv"), Options::pica())
        .shader_named(
            "phong",
            fixture("glsl/phong.frag.spv"),
            Options::agal(Profile::Baseline),
        )
        .out_dir(&out)
        .compile()
        .unwrap();
    assert_eq!(outputs.shaders.len(), 2);
    assert_eq!(outputs.shaders[0].module, "mvp_color");
    let shbin = std::fs::read(out.join("mvp_color.shbin")).unwrap();
    assert_eq!(shbin, outputs.shaders[0].bytes);
    assert_eq!(&shbin[..4], b"DVLB");
    let agal = std::fs::read(out.join("phong.agal")).unwrap();
    assert_eq!(agal[0], 0xa0);
    let module = std::fs::read_to_string(&outputs.module).unwrap();
    assert!(module.contains("pub mod mvp_color {"), "{module}");
    assert!(module.contains("pub mod phong {"), "{module}");
    // Every uniform of the reflection has its constant, with its register.
    for shader in &outputs.shaders {
        for u in &shader.compiled.as_ref().unwrap().reflection.uniforms {
            let number = u.register.trim_start_matches(char::is_alphabetic);
            assert!(
                module.contains(&format!("register: {number}, component: {}", u.component)),
                "{} in {module}",
                u.name
            );
        }
    }
}

#[test]
fn the_build_helper_stops_on_the_first_bad_shader_with_its_file() {
    let out = scratch("build-bad");
    let bad = fixture("invalid/cfg.back-edge-target--selfloop.spvasm");
    let err = Shaders::new()
        .shader(fixture("glsl/mvp_color.vert.spv"), Options::pica())
        .shader(&bad, Options::pica())
        .out_dir(&out)
        .compile()
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("{}: error[cfg.back-edge-target]", bad.display())),
        "{text}"
    );
    assert!(text.contains("-->"), "it points at the instruction: {text}");
    assert!(
        !out.join("shaders.rs").exists(),
        "no module for a failed build"
    );

    let err = Shaders::new()
        .shader(fixture("glsl/mvp_color.vert.spv"), Options::pica())
        .shader(fixture("glsl/mvp_color.vert.opt.spv"), Options::pica())
        .out_dir(&out)
        .compile()
        .unwrap_err();
    assert!(err.to_string().contains("shader_named"), "{err}");
}

#[test]
fn a_uniform_without_a_name_gets_its_registers_name_in_the_module() {
    // A block with no OpName or OpMemberName at all (a stripped module): its member's name is
    // empty, which is no Rust identifier; the constant is named after the register.
    let out = scratch("build-unnamed");
    let source = out.join("stripped.spvasm");
    std::fs::write(
        &source,
        "OpCapability Shader
         OpMemoryModel Logical GLSL450
         OpEntryPoint Vertex %main \"main\" %pos %out
         OpDecorate %pos Location 0
         OpDecorate %out BuiltIn Position
         OpDecorate %blk Block
         OpMemberDecorate %blk 0 Offset 0
         OpDecorate %u DescriptorSet 0
         OpDecorate %u Binding 0
 %void = OpTypeVoid
   %fn = OpTypeFunction %void
%float = OpTypeFloat 32
 %vec4 = OpTypeVector %float 4
  %int = OpTypeInt 32 1
%int_0 = OpConstant %int 0
  %blk = OpTypeStruct %vec4
%p_blk = OpTypePointer Uniform %blk
 %p_uv = OpTypePointer Uniform %vec4
 %p_in = OpTypePointer Input %vec4
%p_out = OpTypePointer Output %vec4
    %u = OpVariable %p_blk Uniform
  %pos = OpVariable %p_in Input
  %out = OpVariable %p_out Output
 %main = OpFunction %void None %fn
%entry = OpLabel
    %a = OpLoad %vec4 %pos
   %pu = OpAccessChain %p_uv %u %int_0
    %b = OpLoad %vec4 %pu
    %c = OpFAdd %vec4 %a %b
         OpStore %out %c
         OpReturn
         OpFunctionEnd
",
    )
    .unwrap();
    let outputs = Shaders::new()
        .shader(&source, Options::pica())
        .out_dir(&out)
        .compile()
        .unwrap();
    let module = std::fs::read_to_string(&outputs.module).unwrap();
    assert!(module.contains("pub const C0: Uniform"), "{module}");
    assert!(module.contains("(\"\", C0),"), "{module}");
    assert!(!module.contains("pub const _:"), "{module}");
}

#[test]
fn the_build_helper_pairs_a_pica_vertex_and_fragment_shader_of_one_name() {
    let out = scratch("build-pica-pair");
    let src = out.join("shaders");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("lit.vert"),
        "#version 450\nlayout(location = 0) in vec4 p;\nlayout(location = 1) in vec2 t;\n\
         layout(location = 0) out vec2 uv;\nvoid main() { gl_Position = p; uv = t; }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("lit.frag"),
        "#version 450\nlayout(location = 0) in vec2 uv;\n\
         layout(binding = 0) uniform sampler2D tex;\nlayout(binding = 1) uniform M { vec4 tint; };\n\
         layout(location = 0) out vec4 color;\n\
         void main() { color = texture(tex, uv) * tint; }\n",
    )
    .unwrap();
    let outputs = Shaders::new()
        .dir(&src, Options::pica())
        .out_dir(&out)
        .compile()
        .unwrap();
    let names: Vec<&str> = outputs.shaders.iter().map(|s| s.module.as_str()).collect();
    assert_eq!(names, ["lit"], "one program of the pair");
    assert_eq!(&std::fs::read(out.join("lit.shbin")).unwrap()[..4], b"DVLB");
    let tev = std::fs::read(out.join("lit.tev")).unwrap();
    assert_eq!(tev.len(), 42 * 4);
    let module = std::fs::read_to_string(&outputs.module).unwrap();
    assert!(module.contains("pub mod texenv {"), "{module}");
    assert!(module.contains("(\"tint\", &[0]),"), "{module}");
    assert!(module.contains("(0, \"tex\", false),"), "{module}");
    // The words in the module are the file's.
    let first = u32::from_le_bytes([tev[0], tev[1], tev[2], tev[3]]);
    assert!(
        module.contains(&format!("pub static WORDS: [u32; 42] = [0x{first:08X},")),
        "{module}"
    );
}

#[test]
fn the_build_helper_takes_picasso_sets_and_agal_text_from_a_folder() {
    let out = scratch("build-picasso");
    let src = out.join("shaders");
    std::fs::create_dir_all(&src).unwrap();
    let set = fixture("thirdparty/picasso/devkitPro+3ds-examples")
        .join("graphics-gpu-geoshader-source-program");
    std::fs::copy(set.join("01-program.v.pica"), src.join("program.v.pica")).unwrap();
    std::fs::copy(set.join("02-program.g.pica"), src.join("program.g.pica")).unwrap();
    std::fs::write(src.join("tint.frag.agalasm"), "mul oc, v0, fc0\n").unwrap();
    let outputs = Shaders::new()
        .dir(&src, Options::pica())
        .out_dir(&out)
        .compile()
        .unwrap();
    // X.v.pica and X.g.pica are one program, as devkitPro's rules link them.
    let names: Vec<&str> = outputs.shaders.iter().map(|s| s.module.as_str()).collect();
    assert_eq!(names, ["program", "tint"]);
    assert_eq!(
        std::fs::read(out.join("program.shbin")).unwrap(),
        std::fs::read(set.join("picasso.shbin")).unwrap(),
        "picasso's bytes"
    );
    let module = std::fs::read_to_string(&outputs.module).unwrap();
    assert!(module.contains("pub mod geometry {"), "{module}");
    assert!(
        module.contains(
            "pub const PROJECTION: Uniform = Uniform { file: \"c\", register: 0, component: 0, count: 4 };"
        ),
        "{module}"
    );
    let agal = std::fs::read(out.join("tint.agal")).unwrap();
    assert_eq!(agal[0], 0xa0);
    assert_eq!(agal[6], 1, "a fragment program");

    // A devkitPro .shlist: the files it names, linked in its order.
    std::fs::write(src.join("both.shlist"), "program.v.pica\nprogram.g.pica\n").unwrap();
    let listed = Shaders::new()
        .shader(src.join("both.shlist"), Options::pica())
        .out_dir(&out)
        .compile()
        .unwrap();
    assert_eq!(listed.shaders[0].module, "both");
    assert_eq!(
        listed.shaders[0].bytes,
        std::fs::read(set.join("picasso.shbin")).unwrap()
    );
    std::fs::remove_file(src.join("both.shlist")).unwrap();

    // A mistake in a picasso source stops the build with picasso's position and the rule.
    std::fs::write(
        src.join("program.g.pica"),
        ".gsh point c0\n.proc gmain\n\tmov r0, v99\n\tend\n.end\n.entry gmain\n",
    )
    .unwrap();
    let err = Shaders::new()
        .linked(
            "p",
            [src.join("program.v.pica"), src.join("program.g.pica")],
            Options::pica(),
        )
        .out_dir(&out)
        .compile()
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("program.g.pica:3:10: error: invalid input register: v99"),
        "{text}"
    );
    assert!(text.contains("= rule: picasso.operand"), "{text}");
    assert_eq!(err.diagnostics().0[0].rule, "picasso.operand");
    // AGALMiniAssembler text whose name gives no stage, with no stage in the options.
    std::fs::write(src.join("bare.agalasm"), "mov oc, fc0\n").unwrap();
    let err = Shaders::new()
        .shader(src.join("bare.agalasm"), Options::agal(Profile::Baseline))
        .out_dir(&out)
        .compile()
        .unwrap_err();
    assert!(
        err.to_string().contains("X.vert.agalasm or X.frag.agalasm"),
        "{err}"
    );
}

#[test]
fn the_build_helper_takes_classic_glsl_with_its_names() {
    let out = scratch("build-classic");
    let classic = fixture("classic");
    let outputs = Shaders::new()
        .shader(classic.join("gl33_core.vert"), Options::pica())
        .shader_named(
            "fog",
            classic.join("es3_fog.frag"),
            Options::agal(Profile::Standard).define("UNUSED", "1"),
        )
        .out_dir(&out)
        .compile()
        .unwrap();
    let module = std::fs::read_to_string(&outputs.module).unwrap();
    for constant in [
        "pub const MVP: Uniform = Uniform { file: \"c\", register: 0, component: 0, count: 4 };",
        "pub const COLORS: Uniform = Uniform { file: \"c\", register: 4, component: 0, count: 2 };",
        "pub const TIME: Uniform = Uniform { file: \"c\", register: 6, component: 0, count: 1 };",
        "pub const U_FOG_COLOR: Uniform = Uniform { file: \"fc\", register: 0",
    ] {
        assert!(module.contains(constant), "{constant} in {module}");
    }
    // The .shbin's uniform table has the names as declared (what
    // shaderInstanceGetUniformLocation looks up).
    let bin =
        backend_pica::shbin::read(&std::fs::read(out.join("gl33_core.shbin")).unwrap()).unwrap();
    let names: Vec<&str> = bin.dvles[0]
        .uniforms
        .iter()
        .map(|u| u.name.as_str())
        .collect();
    for name in ["mvp", "colors", "time", "position", "color", "uv"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
}

#[test]
fn the_build_helper_links_a_vertex_and_a_geometry_shader_with_the_stride() {
    let out = scratch("build-geometry");
    let dir = fixture("geometry");
    let outputs = Shaders::new()
        .linked(
            "sprite",
            [dir.join("sprite.vert.spv"), dir.join("sprite.geom.spv")],
            Options::pica(),
        )
        .out_dir(&out)
        .compile()
        .unwrap();
    let module = std::fs::read_to_string(&outputs.module).unwrap();
    assert!(module.contains("pub mod geometry {"), "{module}");
    assert!(module.contains("pub const STRIDE: u8 = 3;"), "{module}");
    assert!(module.contains("pub const PROJECTION: Uniform"), "{module}");
    assert!(module.contains("pub const MODEL_VIEW: Uniform"), "{module}");
    let bytes = std::fs::read(out.join("sprite.shbin")).unwrap();
    let binary = backend_pica::shbin::read(&bytes).unwrap();
    assert_eq!(binary.dvles.len(), 2);
}

#[test]
fn the_build_helper_compiles_variants_and_a_table_of_them() {
    use spv2retro::variants::Variant;
    let out = scratch("build-variants");
    let src = out.join("filter.frag");
    std::fs::write(
        &src,
        "#version 450\nlayout(location = 0) in vec2 uv;\nlayout(binding = 0) uniform sampler2D tex;\n\
         layout(location = 0) out vec4 color;\nvoid main() {\n#ifdef HALF\n\
         color = texture(tex, uv) * 0.5;\n#else\ncolor = texture(tex, uv);\n#endif\n}\n",
    )
    .unwrap();
    let variants = [
        Variant::parse("plain:").unwrap(),
        Variant::parse("half-dxt5:HALF,0=dxt5").unwrap(),
    ];
    let outputs = Shaders::new()
        .variants("filter", &src, Options::agal(Profile::Baseline), &variants)
        .out_dir(&out)
        .compile()
        .unwrap();
    let names: Vec<&str> = outputs.shaders.iter().map(|s| s.module.as_str()).collect();
    assert_eq!(names, ["filter_plain", "filter_half_dxt5"]);
    let module = std::fs::read_to_string(&outputs.module).unwrap();
    assert!(module.contains("pub mod filter {"), "{module}");
    assert!(
        module.contains("(\"half-dxt5\", super::filter_half_dxt5::BYTES),"),
        "{module}"
    );
    let plain = std::fs::read(out.join("filter_plain.agal")).unwrap();
    let half = std::fs::read(out.join("filter_half_dxt5.agal")).unwrap();
    assert!(half.len() > plain.len(), "the HALF variant multiplies");
}

#[test]
fn a_shared_layout_places_uniforms_of_the_same_name_alike() {
    use spv2retro::layout::Layout;
    let out = scratch("build-layout");
    let first = out.join("first.vert");
    let second = out.join("second.vert");
    std::fs::write(
        &first,
        "#version 450\nlayout(location = 0) in vec4 p;\n\
         layout(binding = 0) uniform S { mat4 mvp; vec4 tint; };\n\
         layout(location = 0) out vec4 c;\nvoid main() { gl_Position = mvp * p; c = tint; }\n",
    )
    .unwrap();
    // The same uniforms in another order, and one more.
    std::fs::write(
        &second,
        "#version 450\nlayout(location = 0) in vec4 p;\n\
         layout(binding = 0) uniform S { vec4 tint; vec4 offset; mat4 mvp; };\n\
         layout(location = 0) out vec4 c;\n\
         void main() { gl_Position = mvp * (p + offset); c = tint; }\n",
    )
    .unwrap();
    let one = compile(Source::from_path(&first).unwrap(), &Options::pica()).unwrap();
    let layout = Layout::from_json(&one.reflection.to_json(), "first.json").unwrap();
    // Without the layout the build helper sees no promise to check; with it, both agree.
    let outputs = Shaders::new()
        .shader(&first, Options::pica())
        .shader(&second, Options::pica())
        .layout(layout.clone())
        .out_dir(&out)
        .compile()
        .unwrap();
    let places = |k: usize| -> Vec<(String, String)> {
        let c = outputs.shaders[k].compiled.as_ref().unwrap();
        let mut v: Vec<(String, String)> = c
            .reflection
            .uniforms
            .iter()
            .map(|u| (u.name.clone(), u.register.clone()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        places(1),
        [
            ("mvp".to_string(), "c0".to_string()),
            ("offset".into(), "c5".into()),
            ("tint".into(), "c4".into())
        ]
    );
    assert_eq!(
        places(0),
        [
            ("mvp".to_string(), "c0".to_string()),
            ("tint".into(), "c4".into())
        ]
    );
    // A third program with only `offset`: it takes c0, where the second has it at c5. The
    // build stops, naming both.
    let third = out.join("third.vert");
    std::fs::write(
        &third,
        "#version 450\nlayout(location = 0) in vec4 p;\n\
         layout(binding = 0) uniform S { vec4 offset; };\n\
         void main() { gl_Position = p + offset; }\n",
    )
    .unwrap();
    let e = Shaders::new()
        .shader(&second, Options::pica())
        .shader(&third, Options::pica())
        .layout(layout.clone())
        .out_dir(&out)
        .compile()
        .unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.contains("`offset` is at c5") && shown.contains("at c0") && shown.contains("`third`"),
        "{shown}"
    );
    // A uniform of another type under a pinned name is refused, naming both places.
    let bad = out.join("bad.vert");
    std::fs::write(
        &bad,
        "#version 450\nlayout(location = 0) in vec4 p;\n\
         layout(binding = 0) uniform S { mat4 tint; };\n\
         void main() { gl_Position = tint * p; }\n",
    )
    .unwrap();
    let e = compile(
        Source::from_path(&bad).unwrap(),
        &Options::pica().layout(layout),
    )
    .unwrap_err();
    let shown = e.to_string();
    assert!(shown.contains("error[layout.pin]"), "{shown}");
    assert!(shown.contains("first.json (c4)"), "{shown}");
}
