//! `examples/homebrew` built the way a user builds it (`cargo build --offline`, reusing the
//! workspace's lock file and dependencies): its build script compiles GLSL shaders with
//! `spv2retro::build`, and its program includes the results. Checked here: the `.shbin` in
//! its OUT_DIR loads in the PICA simulator and computes what the shader says, and the
//! constants the generated module gives the program match the reflection written beside it,
//! and its `include_shader!` (spv2retro-macros) gives spv2pica's bytes, aligned.

use std::path::{Path, PathBuf};
use std::process::Command;

use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::Reflection;
use test_kit::all_close_to;

/// Builds the example; its OUT_DIR and its executable.
fn build_example() -> (PathBuf, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = Command::new(env!("CARGO"))
        .current_dir(&root)
        .args([
            "build",
            "--offline",
            "--quiet",
            "-p",
            "homebrew-example",
            "--message-format=json",
        ])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building examples/homebrew failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut out_dir = None;
    let mut executable = None;
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if !msg["package_id"]
            .as_str()
            .is_some_and(|p| p.contains("homebrew"))
        {
            continue;
        }
        match msg["reason"].as_str() {
            Some("build-script-executed") => out_dir = msg["out_dir"].as_str().map(PathBuf::from),
            Some("compiler-artifact") => {
                if let Some(e) = msg["executable"].as_str() {
                    executable = Some(PathBuf::from(e));
                }
            }
            _ => {}
        }
    }
    (
        out_dir.expect("cargo reports the build script's OUT_DIR"),
        executable.expect("cargo reports the executable"),
    )
}

fn reflection(out_dir: &Path, module: &str) -> Reflection {
    let text = std::fs::read_to_string(out_dir.join(format!("{module}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn register(r: &Reflection, name: &str) -> usize {
    let u = r.uniforms.iter().find(|u| u.name == name).unwrap();
    u.register
        .trim_start_matches(char::is_alphabetic)
        .parse()
        .unwrap()
}

fn mat_vec(columns: &[[f32; 4]; 4], v: [f32; 4]) -> [f32; 4] {
    std::array::from_fn(|row| (0..4).map(|c| columns[c][row] * v[c]).sum())
}

#[test]
fn the_homebrew_example_builds_offline_and_its_outputs_agree() {
    let (out_dir, executable) = build_example();

    // The .shbin runs in the simulator and computes the shader's formulas.
    let shbin = std::fs::read(out_dir.join("vshader.shbin")).unwrap();
    assert_eq!(shbin.len() % 4, 0, "a .shbin is whole words");
    let sim = Simulator::new(&shbin).expect("the .shbin loads");
    let r = reflection(&out_dir, "vshader");
    let projection = [
        [1.5, 0.0, 0.0, 0.0],
        [0.0, 2.0, 0.0, 0.0],
        [0.0, 0.0, -1.0, -1.0],
        [0.0, 0.0, -0.5, 0.0],
    ];
    let model_view = [
        [0.0, 1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.25, -0.25, -3.0, 1.0],
    ];
    let (light_dir, light_color, ambient) = (
        [0.0, 0.0, -1.0, 0.0],
        [0.5, 0.25, 1.0, 1.0],
        [0.125, 0.125, 0.25, 1.0],
    );
    let mut u = Uniforms::default();
    for (name, columns) in [("projection", projection), ("modelView", model_view)] {
        let at = register(&r, name);
        u.float[at..at + 4].copy_from_slice(&columns);
    }
    u.float[register(&r, "lightDir")] = light_dir;
    u.float[register(&r, "lightColor")] = light_color;
    u.float[register(&r, "ambient")] = ambient;
    let (position, texcoord) = ([0.5f32, -1.0, 2.0], [0.25f32, 0.75]);
    let normal = [0.6f32, 0.0, 0.8];
    let mut inputs = [[0.0f32; 4]; 16];
    inputs[0] = [position[0], position[1], position[2], 1.0];
    inputs[1] = [texcoord[0], texcoord[1], 0.0, 1.0];
    inputs[2] = [normal[0], normal[1], normal[2], 1.0];
    let out = sim.run(0, &inputs, &u).expect("the program runs");

    let eye = mat_vec(&model_view, inputs[0]);
    let want_position = mat_vec(&projection, eye);
    let n = mat_vec(&model_view, [normal[0], normal[1], normal[2], 0.0]);
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    let diffuse =
        (-(n[0] * light_dir[0] + n[1] * light_dir[1] + n[2] * light_dir[2]) / len).max(0.0);
    let want_color: [f32; 4] = std::array::from_fn(|i| ambient[i] + light_color[i] * diffuse);
    let reg = |name: &str| -> usize {
        let o = r
            .outputs
            .iter()
            .find(|o| o.name == name || o.builtin.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no output {name} in {:?}", r.outputs));
        o.register.trim_start_matches('o').parse().unwrap()
    };
    let close = |got: [f32; 4], want: [f32; 4], lanes: usize, what: &str| {
        assert!(
            all_close_to(&got[..lanes], &want, 2e-3),
            "{what}: got {got:?}, want {want:?}"
        );
    };
    close(
        out.outputs[reg("Position")],
        want_position,
        4,
        "gl_Position",
    );
    close(out.outputs[reg("outColor")], want_color, 4, "outColor");
    close(
        out.outputs[reg("outTexCoord")],
        [texcoord[0], texcoord[1], 0.0, 0.0],
        2,
        "outTexCoord",
    );

    // The program's constants (printed by it) are the reflection's registers.
    let run = Command::new(&executable)
        .output()
        .expect("the example runs");
    assert!(run.status.success());
    let stdout = String::from_utf8_lossy(&run.stdout);
    let mut compared = 0;
    for module in ["vshader", "sprite_vs", "sprite_fs"] {
        let r = reflection(&out_dir, module);
        assert!(
            stdout.contains(&format!("program {module} ")) && stdout.contains("aligned=true"),
            "{stdout}"
        );
        for u in &r.uniforms {
            let line = format!(
                "uniform {module} {} {} {} {}",
                u.name, u.register, u.component, u.count
            );
            assert!(
                stdout.lines().any(|l| l == line),
                "missing {line:?} in\n{stdout}"
            );
            compared += 1;
        }
        for k in &r.constants {
            if module == "sprite_fs" {
                let line = format!("constant {module} {} {:?}", k.register, k.value);
                assert!(
                    stdout.lines().any(|l| l == line),
                    "missing {line:?} in\n{stdout}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 8, "only {compared} constants compared");

    // `include_shader!` (spv2retro-macros, citro3d-macros' signature): the same shader,
    // aligned, byte for byte what spv2pica writes for it, which is the build helper's
    // vshader.shbin.
    let hex = stdout
        .lines()
        .find_map(|l| l.strip_prefix("include_shader vshader bytes "))
        .expect("the example prints include_shader!'s bytes");
    let included: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/homebrew");
    let source = spv2retro::Source::from_path(root.join("shaders/vshader.vert")).unwrap();
    let spv2pica = spv2retro::compile(source, &spv2retro::Options::pica()).unwrap();
    let line = format!(
        "include_shader vshader {} bytes aligned=true",
        included.len()
    );
    assert!(
        stdout.lines().any(|l| l == line),
        "no {line:?} in\n{stdout}"
    );
    assert_eq!(
        included, spv2pica.bytes,
        "include_shader! and spv2pica differ"
    );
    assert_eq!(
        included,
        std::fs::read(out_dir.join("vshader.shbin")).unwrap(),
        "include_shader! and the build helper differ"
    );

    // The sprite program: the GLSL vertex shader and the hand-written geometry shader,
    // linked into one .shbin; the constants the program prints are the DVLEs' tables.
    let shbin = std::fs::read(out_dir.join("sprite.shbin")).unwrap();
    let bin = backend_pica::shbin::read(&shbin).expect("the linked .shbin reads");
    assert_eq!(bin.dvles.len(), 2);
    assert_eq!(
        bin.dvles[1].shader_type,
        backend_pica::shbin::ShaderType::Geometry
    );
    for (k, module) in [(0, "sprite"), (1, "sprite.geometry")] {
        for u in &bin.dvles[k].uniforms {
            let Some((backend_pica::shbin::UniformFile::Float, first, count)) = u.range() else {
                continue;
            };
            let line = format!("uniform {module} {} c{first} 0 {count}", u.name);
            assert!(
                stdout.lines().any(|l| l == line),
                "missing {line:?} in\n{stdout}"
            );
        }
    }
    // Run it: a point through the vertex program, its outputs into the geometry program.
    let sim = Simulator::new(&shbin).unwrap();
    let model_view = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.5, -0.25, -2.0, 1.0],
    ];
    let mut u = Uniforms::default();
    u.float[0..4].copy_from_slice(&model_view);
    let mut inputs = [[0.0f32; 4]; 16];
    inputs[0] = [1.0, 2.0, 3.0, 1.0];
    inputs[1] = [0.25, 0.5, 0.75, 1.0];
    let vertex = sim.run(0, &inputs, &u).expect("the vertex program runs");
    let mut g_inputs = [[0.0f32; 4]; 16];
    g_inputs[0] = vertex.outputs[0];
    g_inputs[1] = vertex.outputs[1];
    let view = mat_vec(&model_view, inputs[0]);
    close(g_inputs[0], view, 4, "the point in view space");
    // The geometry program's projection (rows, for DP4) and half-size.
    let mut g = Uniforms::default();
    g.float[0] = [2.0, 0.0, 0.0, 0.0];
    g.float[1] = [0.0, 2.0, 0.0, 0.0];
    g.float[2] = [0.0, 0.0, 1.0, 0.0];
    g.float[3] = [0.0, 0.0, -1.0, 0.0];
    g.float[4] = [0.125, 0.25, 0.0, 0.0];
    let quad = sim
        .run(1, &g_inputs, &g)
        .expect("the geometry program runs");
    let corners = [
        (-1.0, -1.0, 0, false),
        (1.0, -1.0, 1, false),
        (-1.0, 1.0, 2, true),
        (1.0, 1.0, 0, true),
    ];
    assert_eq!(quad.vertices.len(), 4);
    for (v, &(sx, sy, slot, primitive)) in quad.vertices.iter().zip(&corners) {
        let c = [view[0] + sx * 0.125, view[1] + sy * 0.25, view[2], view[3]];
        let want = [2.0 * c[0], 2.0 * c[1], c[2], -c[2]];
        close(v.outputs[0], want, 4, "a corner");
        close(v.outputs[1], inputs[1], 4, "the colour");
        assert_eq!((v.vertex, v.primitive), (slot, primitive));
    }
    assert!(quad.vertices[3].winding, "the second triangle is inverted");

    // The AGALMiniAssembler text became a program Flash accepts.
    let tint = std::fs::read(out_dir.join("tint.agal")).unwrap();
    backend_agal::validate(&tint, backend_agal::Profile::Baseline).expect("Flash's rules");
    assert!(stdout.contains("program tint 55 bytes"), "{stdout}");

    // The textured mesh: a GLSL vertex + fragment pair. The fragment shader's combiner words
    // are beside the .shbin; the register documentation's decoder reads them as `texture *
    // shade * tint` with the alpha test, and the stages the program prints (its typed
    // constants) are the same registers.
    let words: Vec<u32> = std::fs::read(out_dir.join("textured.tev"))
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let config = tests::tev_oracle::Config::from_words(&words).expect("the words decode");
    let regs = tests::tev_oracle::registers(&words, &tests::tev_oracle::citro3d_registers())
        .expect("the words decode");
    for (k, base) in [0x0C0u16, 0x0C8, 0x0D0, 0x0D8, 0x0F0, 0x0F8]
        .iter()
        .enumerate()
    {
        let printed: Vec<String> = (0..5)
            .map(|i| format!("{:08x}", regs[&(base + i)]))
            .collect();
        let line = format!("texenv textured stage {k} {}", printed.join(" "));
        assert!(
            stdout.lines().any(|l| l == line),
            "missing {line:?} in\n{stdout}"
        );
    }
    assert!(
        stdout.contains("texenv textured color tint stages [1]"),
        "{stdout}"
    );
    // GEQUAL (7) 128: `c.a < 0.5` discards.
    assert_eq!(config.alpha_test, Some((7, 128)));
    let texel = [200u8, 100, 50, 255];
    let shade = [128u8, 128, 128, 255];
    let tint = [255u8, 255, 0, 255];
    let mut config = config;
    config.stages[1].color = tint;
    let got =
        tests::tev_oracle::evaluate(&config, shade, [texel, [0; 4], [0; 4], [0; 4]]).expect("kept");
    let want: [f32; 4] = std::array::from_fn(|i| {
        f32::from(texel[i]) * f32::from(shade[i]) * f32::from(tint[i]) / (255.0 * 255.0)
    });
    for i in 0..4 {
        assert!(
            (f32::from(got[i]) - want[i]).abs() <= 2.0,
            "lane {i}: {got:?} vs {want:?}"
        );
    }
    // The vertex outputs carry what the combiners read: uv is texcoord0, shade is color.
    let shbin = std::fs::read(out_dir.join("textured.shbin")).unwrap();
    let bin = backend_pica::shbin::read(&shbin).expect("the .shbin reads");
    let r = reflection_of_linked(&bin);
    assert!(r.contains(&"texcoord0".to_string()), "{r:?}");
    assert!(r.contains(&"color".to_string()), "{r:?}");
}

/// The semantics a `.shbin`'s first DVLE outputs.
fn reflection_of_linked(bin: &backend_pica::ShaderBinary) -> Vec<String> {
    bin.dvles[0]
        .outputs
        .iter()
        .map(|o| o.semantic.name().to_string())
        .collect()
}
