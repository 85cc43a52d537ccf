//! Programs already written as assembly go through the same door as shaders:
//! `Source::from_path` tells the language by the file's name, and `compile` assembles
//! picasso and AGALMiniAssembler text into the bytes picasso and AGALMiniAssembler make,
//! with a reflection an application (here the preview's driver) can run the program by.

use spv2retro::{ErrorKind, Language, Options, Profile, Source, Stage, compile};
use tests::fixtures;

/// A scratch folder holding `files`.
fn scratch(name: &str, files: &[(&str, &[u8])]) -> std::path::PathBuf {
    let dir = test_kit::scratch(&format!("assembled-{name}"));
    for (file, bytes) in files {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    dir
}

/// Row `r` of a column-major `mat4` held as four registers of rows (picasso's `dp4`
/// layout): the registers are the rows.
fn dp4(rows: &[f32; 16], v: [f32; 4]) -> [f32; 4] {
    let mut out = [0.0; 4];
    for (r, o) in out.iter_mut().enumerate() {
        *o = (0..4).map(|c| rows[r * 4 + c] * v[c]).sum();
    }
    out
}

#[test]
fn a_picasso_file_compiles_to_picassos_own_bytes_and_runs_by_its_reflection() {
    let dir = fixtures("thirdparty/picasso/devkitPro+3ds-examples")
        .join("graphics-gpu-lenny-source-vshader");
    let source = Source::from_path(dir.join("01-vshader.v.pica")).unwrap();
    assert_eq!(source.language(), Language::Picasso);
    assert_eq!(source.stage(), Some(Stage::Vertex));
    // Assembly is for its own target: an AGAL options value does not change it.
    let program = compile(&source, &Options::agal(Profile::Standard)).unwrap();
    // What devkitPro's picasso made of the same file.
    let picasso = std::fs::read(dir.join("picasso.shbin")).unwrap();
    assert_eq!(program.bytes, picasso);
    let r = &program.reflection;
    assert_eq!((r.target.as_str(), r.stage.as_str()), ("pica", "vertex"));
    let uniform = |name: &str| {
        let u = r.uniforms.iter().find(|u| u.name == name).unwrap();
        (u.register.clone(), u.count)
    };
    assert_eq!(uniform("projection"), ("c0".to_string(), 4));
    assert_eq!(uniform("modelView"), ("c4".to_string(), 4));
    let inputs: Vec<(&str, &str)> = r
        .inputs
        .iter()
        .map(|i| (i.name.as_str(), i.register.as_str()))
        .collect();
    assert_eq!(inputs, [("inpos", "v0"), ("innrm", "v1")]);
    // The constant `myconst` the program carries is listed as libctru uploads it.
    assert_eq!(r.constants.len(), 1, "{:?}", r.constants);
    assert_eq!(r.constants[0].register, "c95");
    assert_eq!(r.constants[0].value, [0.0, 1.0, -1.0, 0.5]);
    // A link of picasso sources describes each of its programs the same way.
    let linked =
        spv2retro::picasso::link(std::slice::from_ref(&source), &Options::pica(), true).unwrap();
    assert_eq!(linked.bytes, picasso);
    assert_eq!(&linked.shaders[0].reflection, r);

    // Run it as an application would: uniforms and inputs by the reflection's names.
    let projection: [f32; 16] = [
        1.5, 0.0, 0.25, 0.0, //
        0.0, 2.0, 0.0, -1.0, //
        0.0, 0.0, -1.0, 0.5, //
        0.0, 0.0, -1.0, 0.0,
    ];
    let model_view: [f32; 16] = [
        1.0, 0.0, 0.0, 0.5, //
        0.0, 0.0, -1.0, 0.25, //
        0.0, 1.0, 0.0, -3.0, //
        0.0, 0.0, 0.0, 1.0,
    ];
    let pos = [0.5, -1.0, 2.0, 7.0]; // w is forced to 1 by the program
    let values = preview::Values {
        inputs: vec![
            ("inpos".into(), pos.to_vec()),
            ("innrm".into(), vec![0.0, 0.0, 1.0, 0.0]),
        ],
        uniforms: vec![
            ("projection".into(), projection.to_vec()),
            ("modelView".into(), model_view.to_vec()),
        ],
        textures: Vec::new(),
    };
    let ran = preview::run(
        preview::Program {
            bytes: &program.bytes,
            reflection: r,
        },
        &values,
    )
    .unwrap();
    let eye = dp4(&model_view, [pos[0], pos[1], pos[2], 1.0]);
    let expected = dp4(&projection, eye);
    let position = ran.outputs.iter().find(|o| o.name == "position").unwrap();
    for (got, want) in position.value.iter().zip(expected) {
        // float24 arithmetic: a few ulps of 2^-16.
        assert!(
            (got - want).abs() <= 1e-3 * want.abs().max(1.0),
            "{position:?} vs {expected:?}"
        );
    }
    let view = ran.outputs.iter().find(|o| o.name == "view").unwrap();
    for (got, want) in view.value.iter().zip(eye) {
        assert!(
            (got + want).abs() <= 1e-3 * want.abs().max(1.0),
            "{view:?} vs -{eye:?}"
        );
    }
}

#[test]
fn agal_assembly_takes_its_stage_from_its_name_and_runs_by_its_reflection() {
    let dir = scratch(
        "agal",
        &[
            ("tint.frag.agalasm", b"mul ft0, v0, fc0\nadd oc, ft0, fc1\n"),
            ("plain.agalasm", b"mov oc, v0\n"),
        ],
    );
    let source = Source::from_path(dir.join("tint.frag.agalasm")).unwrap();
    assert_eq!(source.language(), Language::AgalAssembly);
    assert_eq!(source.stage(), Some(Stage::Fragment));
    // The PICA200's options do not make AGAL text anything else.
    let program = compile(&source, &Options::pica()).unwrap();
    assert_eq!(program.stage, Stage::Fragment);
    assert_eq!(program.bytes[0], 0xa0, "the AGAL header");
    let r = &program.reflection;
    assert_eq!(r.agal_version, Some(1), "the options' profile is baseline");
    assert_eq!(r.inputs.len(), 1, "{:?}", r.inputs);
    assert_eq!(r.inputs[0].register, "v0");
    assert_eq!(r.uniforms[0].register, "fc0");
    assert_eq!(r.uniforms[0].count, 2, "fc0 and fc1 are read");
    assert_eq!(r.outputs[0].register, "oc");
    assert_eq!(program.source_lines, [Some(1), Some(2)]);
    let v0 = [0.5, -2.0, 3.0, 1.0];
    let fc = [2.0, 0.25, -1.0, 4.0, 0.125, 1.0, 10.0, -3.0];
    let ran = preview::run(
        preview::Program {
            bytes: &program.bytes,
            reflection: r,
        },
        &preview::Values {
            inputs: vec![("v0".into(), v0.to_vec())],
            uniforms: vec![("fc".into(), fc.to_vec())],
            textures: Vec::new(),
        },
    )
    .unwrap();
    let oc = &ran.outputs[0].value;
    for k in 0..4 {
        assert_eq!(oc[k], v0[k] * fc[k] + fc[4 + k], "lane {k}: {oc:?}");
    }

    // Without a stage in its name, the options give it; without either, the error says
    // both ways to give one.
    let plain = Source::from_path(dir.join("plain.agalasm")).unwrap();
    assert_eq!(plain.stage(), None);
    let e = compile(&plain, &Options::agal(Profile::Standard)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rejected);
    assert!(e.to_string().contains("error[agal.asm]"), "{e}");
    assert!(e.to_string().contains("X.frag.agalasm"), "{e}");
    assert!(e.to_string().contains("--fragment"), "{e}");
    let vertex_or_not = compile(
        &plain,
        &Options::agal(Profile::Standard).stage(Stage::Fragment),
    );
    assert_eq!(vertex_or_not.unwrap().stage, Stage::Fragment);

    // Flash's rules: the same diagnostics the command line prints, with rule ids.
    let bad = Source::agal_assembly("mov oc, ft3\n", Stage::Fragment).named("bad.agalasm");
    let e = compile(&bad, &Options::agal(Profile::Baseline)).unwrap_err();
    assert!(
        e.to_string().starts_with("bad.agalasm: error[flash."),
        "{e}"
    );
    assert_eq!(e.diagnostics().0[0].rule, "agal.validate");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_front_door_tells_a_file_by_the_same_names() {
    let glsl = b"#version 450\nlayout(location = 0) in vec4 p;\nvoid main() { gl_Position = p; }\n";
    let frag = b"#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    let dir = scratch(
        "names",
        &[
            ("a.vert", glsl),
            ("a.glsl", frag),
            (
                "a.wgsl",
                b"@vertex fn main() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }",
            ),
            ("a.vsh", b".proc main\n\tend\n.end\n"),
            ("a.g.pica", b".gsh point c0\n.proc main\n\tend\n.end\n"),
            ("a.spv", b"; SPIR-V text in a .spv file\n"),
            ("bad.frag", &[0xff, 0xfe, b'x']),
        ],
    );
    let language = |f: &str| Source::from_path(dir.join(f)).unwrap().language();
    assert_eq!(language("a.vert"), Language::Glsl);
    assert_eq!(language("a.wgsl"), Language::Wgsl);
    assert_eq!(language("a.vsh"), Language::Picasso);
    assert_eq!(language("a.spv"), Language::Spirv);
    let stage = |f: &str| Source::from_path(dir.join(f)).unwrap().stage();
    assert_eq!(stage("a.vert"), Some(Stage::Vertex));
    assert_eq!(stage("a.g.pica"), Some(Stage::Geometry));
    assert_eq!(stage("a.glsl"), None);
    // A `.glsl` file takes the options' stage.
    let a = Source::from_path(dir.join("a.glsl")).unwrap();
    let c = compile(&a, &Options::agal(Profile::Baseline).stage(Stage::Fragment)).unwrap();
    assert_eq!(c.stage, Stage::Fragment);
    // A `.spv` file is a binary: text in one is refused as a header, not parsed.
    let e = compile(
        Source::from_path(dir.join("a.spv")).unwrap(),
        &Options::pica(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("error[phys.header]"), "{e}");
    // Text that is not UTF-8, and a file that is not there: errors that name the file.
    let e = Source::from_path(dir.join("bad.frag")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rejected);
    assert!(
        e.to_string()
            .contains("bad.frag: the source text is not UTF-8"),
        "{e}"
    );
    let e = Source::from_path(dir.join("missing.vert")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("missing.vert"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

/// picasso sources pin uniforms to registers (`.fvec name c8`), so that hand-written
/// programs share a layout with compiled ones: the pinned uniform is there, the next one
/// follows it, and a register already taken is an error.
#[test]
fn picasso_sources_pin_uniforms_to_registers() {
    use spv2retro::picasso::link;
    let text = ".fvec mvp[4], tint c8, after\n.bool flag b3\n.out pos position\n.proc main\n\
                \tdp4 pos.x, mvp[0], v0\n\tmov r0, tint\n\tadd r0.y, after.x, r0.y\n\
                \tmov pos.yzw, r0\n\tend\n.end\n";
    let linked = link(
        &[Source::picasso(text).named("pinned.v.pica")],
        &Options::pica(),
        true,
    )
    .expect("assembles");
    let at = |name: &str| {
        linked.shaders[0]
            .uniforms
            .iter()
            .find(|u| u.name == name)
            .map(|u| format!("{}{}", u.file, u.register))
    };
    assert_eq!(at("mvp").as_deref(), Some("c0"));
    assert_eq!(at("tint").as_deref(), Some("c8"));
    assert_eq!(at("after").as_deref(), Some("c9"));
    assert_eq!(at("flag").as_deref(), Some("b3"));
    let taken = ".fvec mvp[4], tint c2\n.proc main\n\tend\n.end\n";
    let e = link(
        &[Source::picasso(taken).named("taken.v.pica")],
        &Options::pica(),
        true,
    )
    .expect_err("c2 is inside mvp");
    assert!(e.to_string().contains("is taken"), "{e}");
}
