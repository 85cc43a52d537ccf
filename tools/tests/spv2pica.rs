//! `spv2pica` as a user runs it: what it writes for each `--emit`, the reflection, output
//! semantics, and that a failed compile leaves no file behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use test_kit::{fixture, scratch};

mod picasso;

const PICA: &str = env!("CARGO_BIN_EXE_spv2pica");

fn run(args: &[&str]) -> Output {
    Command::new(PICA)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn copy_in(dir: &Path, fixture_name: &str, as_name: &str) -> PathBuf {
    let path = dir.join(as_name);
    std::fs::copy(fixture(fixture_name), &path).unwrap();
    path
}

#[test]
fn writes_a_shbin_beside_the_input() {
    let dir = scratch("shbin");
    let input = copy_in(&dir, "glsl/mvp_color.vert.spv", "mvp.spv");
    let out = run(&[input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(dir.join("mvp.shbin")).expect("mvp.shbin written");
    assert_eq!(&bytes[..4], b"DVLB");
    let bin = backend_pica::shbin::read(&bytes).expect("a .shbin libctru can parse");
    assert_eq!(bin.dvles.len(), 1);
    assert!(bin.dvles[0].uniforms.iter().any(|u| u.name == "mvp"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn emits_assembly_that_picasso_syntax_reassembles() {
    let path = fixture("glsl/ctr_textured_cube.vert.spv");
    let out = run(&[path.to_str().unwrap(), "--emit", "asm", "-o", "-"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(".proc main"), "{text}");
    let shbin = run(&[path.to_str().unwrap(), "-o", "-"]);
    let again = backend_pica::asm::assemble_str("listing.v.pica", &text).expect("assembles");
    assert_eq!(backend_pica::shbin::write(&again).unwrap(), shbin.stdout);
}

#[test]
fn writes_the_reflection_and_takes_semantics() {
    let dir = scratch("reflect");
    let json = dir.join("r.json");
    let path = fixture("glsl/starling_mesh.vert.spv");
    let out = run(&[
        path.to_str().unwrap(),
        "--semantic",
        "1=color",
        "--reflect",
        json.to_str().unwrap(),
        "-o",
        dir.join("s.shbin").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r: spv2retro::Reflection =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r.target, "pica");
    assert_eq!(r.stage, "vertex");
    let color = r.outputs.iter().find(|o| o.location == Some(1)).unwrap();
    assert_eq!(color.semantic.as_deref(), Some("color"));
    assert_eq!(color.mask, "xyzw");
    let position = r.outputs.iter().find(|o| o.builtin.is_some()).unwrap();
    assert_eq!(
        (position.register.as_str(), position.semantic.as_deref()),
        ("o0", Some("position"))
    );
    assert!(
        r.uniforms
            .iter()
            .any(|u| u.name == "mvpMatrix" && u.register == "c0")
    );
    assert_eq!(
        r.stats.instructions,
        std::fs::read(dir.join("s.shbin"))
            .map(|b| { backend_pica::shbin::read(&b).unwrap().code.len() })
            .unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_semantic_is_a_usage_error_and_writes_nothing() {
    let dir = scratch("badsem");
    let input = copy_in(&dir, "glsl/mvp_color.vert.spv", "mvp.spv");
    let out = run(&[input.to_str().unwrap(), "--semantic", "0=colour"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown semantic"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("mvp.shbin").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_compile_error_names_the_limit_and_leaves_no_file() {
    // Location 9 has no default semantic.
    let dir = scratch("nosem");
    let text = "; SPIR-V\n; Version: 1.0\n".to_string()
        + "OpCapability Shader\n%1 = OpExtInstImport \"GLSL.std.450\"\n"
        + "OpMemoryModel Logical GLSL450\nOpEntryPoint Vertex %main \"main\" %out\n"
        + "OpDecorate %out Location 9\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n"
        + "%float = OpTypeFloat 32\n%v4 = OpTypeVector %float 4\n"
        + "%ptr = OpTypePointer Output %v4\n%out = OpVariable %ptr Output\n"
        + "%one = OpConstant %float 1\n%c = OpConstantComposite %v4 %one %one %one %one\n"
        + "%main = OpFunction %void None %fn\n%l = OpLabel\nOpStore %out %c\nOpReturn\n"
        + "OpFunctionEnd\n";
    let input = dir.join("nosem.spvasm");
    std::fs::write(&input, text).unwrap();
    let out = run(&[input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error[pica.interface]"), "{err}");
    assert!(err.contains("--semantic 9="), "{err}");
    assert!(!dir.join("nosem.shbin").exists());
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 1, "only the input: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn text_in_a_spv_file_is_not_a_spirv_binary() {
    let dir = scratch("notspv");
    let input = dir.join("x.spv");
    std::fs::write(
        &input,
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\n",
    )
    .unwrap();
    let shown = input.to_str().unwrap();
    let out = run(&[shown]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    // The first word of the file, "OpCa" read little-endian.
    assert!(
        err.starts_with(&format!(
            "{shown}: error[phys.header]: not a SPIR-V binary (magic 0x6143704f, \"OpCa\")"
        )),
        "{err}"
    );
    assert!(err.contains("= rule: SPIR-V §2.3 Physical Layout"), "{err}");
    assert!(
        !err.contains("asm.syntax") && !err.contains("docs/"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 1, "only the input: {left:?}");
    // The same text named .spvasm is assembly, and its errors cite no file of ours.
    let asm = dir.join("x.spvasm");
    std::fs::write(&asm, "OpCapability Shader\nOpFoo\n").unwrap();
    let out = run(&[asm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error[asm.syntax]"), "{err}");
    assert!(err.contains("= rule: SPIRV-Tools assembly syntax"), "{err}");
    assert!(
        !err.contains("docs/") && !err.contains("../shared"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dropped_output_components_are_a_warning_on_stderr() {
    let dir = scratch("dropped");
    let input = copy_in(&dir, "glsl/wide_outputs.vert.spv", "wide.spv");
    let json = dir.join("wide.json");
    let shown = input.to_str().unwrap();
    let out = run(&[shown, "--reflect", json.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "{shown}: warning[pica.output-dropped]: output `outUv0` at location 1 has 4 \
             components, but the output table carries only xyz (texcoord0 xy, texcoord0w z): \
             component w is dropped\n"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "\n{shown}: warning[pica.output-dropped]: output `outUv1` at location 2 has 4 \
             components, but the output table carries only xy (texcoord1 xy): components zw \
             are dropped\n"
        )),
        "{err}"
    );
    let bin = backend_pica::shbin::read(&std::fs::read(dir.join("wide.shbin")).unwrap()).unwrap();
    let r: spv2retro::Reflection =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r.outputs.len(), bin.dvles[0].outputs.len());
    // A clean shader prints nothing.
    let clean = fixture("glsl/mvp_color.vert.spv");
    let out = run(&["--check", clean.to_str().unwrap()]);
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_vertex_and_a_geometry_shader_link_into_one_shbin_with_both_reflections() {
    let dir = scratch("geometry");
    copy_in(&dir, "geometry/sprite.vert.spv", "sprite.vert.spv");
    copy_in(&dir, "geometry/sprite.geom.spv", "sprite.geom.spv");
    let out = Command::new(PICA)
        .current_dir(&dir)
        .args([
            "-o",
            "sprite.shbin",
            "--reflect",
            "sprite.json",
            "sprite.vert.spv",
            "sprite.geom.spv",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The library's link makes the same bytes.
    let (v, g) = (
        std::fs::read(dir.join("sprite.vert.spv")).unwrap(),
        std::fs::read(dir.join("sprite.geom.spv")).unwrap(),
    );
    let inputs = [
        spv2retro::Source::spirv(&v).named("sprite.vert.spv"),
        spv2retro::Source::spirv(&g).named("sprite.geom.spv"),
    ];
    let linked = spv2retro::picasso::link(&inputs, &spv2retro::Options::pica(), true).unwrap();
    let bytes = std::fs::read(dir.join("sprite.shbin")).unwrap();
    assert_eq!(bytes, linked.bytes);
    let binary = backend_pica::shbin::read(&bytes).expect("a .shbin libctru can parse");
    assert_eq!(binary.dvles.len(), 2);
    assert_eq!(
        binary.dvles[1].shader_type,
        backend_pica::shbin::ShaderType::Geometry
    );
    // One reflection per DVLE; the geometry one says what shaderProgramSetGsh takes.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sprite.json")).unwrap()).unwrap();
    assert_eq!(json[0]["stage"], "vertex");
    assert_eq!(json[1]["stage"], "geometry");
    assert_eq!(json[1]["geometry"]["stride"], 3);
    assert_eq!(json[1]["geometry"]["mode"], "point");
    // A GLSL geometry shader is read by glslang: an incomplete one is refused by its rule.
    std::fs::write(
        dir.join("sprite.geom"),
        "#version 450\nlayout(points) in;\n",
    )
    .unwrap();
    let out = Command::new(PICA)
        .current_dir(&dir)
        .args(["sprite.geom"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error[glsl.glslang]") && stderr(&out).contains("max_vertices"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("sprite.shbin.tmp").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
