//! `spv2pica` inside the two builds 3DS projects have, as they are:
//!
//! - **make**: tests/fixtures/build-routes/make/Makefile, the shader rules of a devkitPro 3DS
//!   Makefile with `spv2pica --emit bin2s -H … --depfile …` in picasso's and bin2s's place,
//!   run by GNU make with host tools in devkitARM's (cc assembles bin2s's assembly and links a
//!   C program that reads `NAME_shbin`, `NAME_shbin_end`, `NAME_shbin_size`); the embedded
//!   bytes are spv2pica's `.shbin` and picasso's, and the depfiles make a changed source
//!   (even one only a `.shlist` names) rebuild.
//! - **CMake**: tests/fixtures/build-routes/cmake/CMakeLists.txt configured with devkitPro's
//!   own `3DS.cmake` toolchain file and `Nintendo3DS.cmake` (copied at a pinned commit by
//!   tests/fixtures/thirdparty/devkitpro-cmake/fetch.sh), `-DCTR_PICASSO_EXE=spv2pica`:
//!   `ctr_add_shader_library` makes a `.shbin` from GLSL and one from picasso sources.
//!
//! Each test says it is skipped when a tool it needs is missing (.ci/install-build-tools
//! installs them), or, for CMake, when devkitPro's files cannot be had.

use std::path::Path;
use std::process::{Command, Output};
use std::time::SystemTime;

use test_kit::{fixture, scratch};

const PICA: &str = env!("CARGO_BIN_EXE_spv2pica");

/// The picasso sources of 3ds-examples' geoshader (a vertex and a geometry program), and
/// what picasso 2.7.1 made of them.
const GEOSHADER: &str =
    "thirdparty/picasso/devkitPro+3ds-examples/graphics-gpu-geoshader-source-program";

/// The tools of `tools` that do not answer `--version`.
fn missing(tools: &[&str]) -> Vec<String> {
    tools
        .iter()
        .filter(|t| Command::new(t).arg("--version").output().is_err())
        .map(|t| t.to_string())
        .collect()
}

fn copy(from: &Path, to: &Path) {
    std::fs::copy(from, to)
        .unwrap_or_else(|e| panic!("{} → {}: {e}", from.display(), to.display()));
}

/// The project's shaders in `dir`: the homebrew example's GLSL vertex shader and
/// 3ds-examples' geoshader sources, unchanged.
fn shaders_into(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let homebrew = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/homebrew/shaders");
    copy(&homebrew.join("vshader.vert"), &dir.join("vshader.vert"));
    for name in ["01-program.v.pica", "02-program.g.pica"] {
        copy(&fixture(GEOSHADER).join(name), &dir.join(name));
    }
}

/// What `spv2pica -o OUT FILE` writes for `file`.
fn spv2pica_shbin(file: &Path, scratch: &Path) -> Vec<u8> {
    let out = scratch.join("reference.shbin");
    let run = Command::new(PICA)
        .arg("-o")
        .arg(&out)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read(&out).unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A file's modification time set to now, as `touch` does.
fn touch(path: &Path) {
    std::fs::File::options()
        .append(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now())
        .unwrap();
}

#[test]
fn a_devkitpro_style_makefile_embeds_spv2picas_bytes_and_rebuilds_from_the_depfiles() {
    let need = missing(&["make", "cc"]);
    if !need.is_empty() {
        eprintln!(
            "skipped: the Makefile route needs {} (.ci/install-build-tools installs them)",
            need.join(", ")
        );
        return;
    }
    let dir = scratch("make-route");
    let project = fixture("build-routes/make");
    for name in ["Makefile", "check.c", "program.shlist"] {
        copy(&project.join(name), &dir.join(name));
    }
    shaders_into(&dir);
    let make = |args: &[&str]| {
        Command::new("make")
            .current_dir(&dir)
            .args(args)
            .arg(format!("SPV2PICA={PICA}"))
            .arg("CC=cc")
            .env_remove("MAKEFLAGS")
            .env_remove("MFLAGS")
            .output()
            .expect("make runs")
    };
    let built = make(&[]);
    assert!(built.status.success(), "make failed:\n{}", text(&built));

    // The program reads the symbols bin2s's assembly and header give it.
    let run = Command::new(dir.join("check"))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let vshader = spv2pica_shbin(&dir.join("vshader.vert"), &dir);
    let picasso = std::fs::read(fixture(GEOSHADER).join("picasso.shbin")).unwrap();
    for (name, want) in [("vshader", &vshader), ("program", &picasso)] {
        let line = format!("{name} {0} bytes end-start={0} aligned=1", want.len());
        assert!(
            stdout.lines().any(|l| l == line),
            "no {line:?} in\n{stdout}"
        );
        let embedded = std::fs::read(dir.join(format!("{name}.embedded"))).unwrap();
        assert!(embedded == *want, "{name}: the embedded bytes differ");
    }
    // The header is bin2s -H's.
    let header = std::fs::read_to_string(dir.join("vshader_shbin.h")).unwrap();
    assert_eq!(
        header,
        spv2retro_cli::make::header("vshader.shbin", vshader.len())
    );
    let depfile = std::fs::read_to_string(dir.join("deps/program.shbin.d")).unwrap();
    assert!(
        depfile.starts_with(
            "program.shbin.s program_shbin.h: ./01-program.v.pica ./02-program.g.pica\n"
        ),
        "{depfile}"
    );

    // Up to date; a source that only the .shlist names, then the GLSL shader, each make it
    // out of date through the depfiles, and each rebuild runs spv2pica on that shader.
    let question = |what: &str| {
        let q = make(&["-q"]);
        assert!(
            matches!(q.status.code(), Some(0 | 1)),
            "make -q: {}",
            text(&q)
        );
        assert_eq!(q.status.code() == Some(0), what == "up to date", "{what}");
    };
    question("up to date");
    for (file, output) in [
        ("02-program.g.pica", "program.shbin.s"),
        ("vshader.vert", "vshader.shbin.s"),
    ] {
        touch(&dir.join(file));
        question(&format!("out of date after touching {file}"));
        let rebuilt = make(&[]);
        assert!(rebuilt.status.success(), "{}", text(&rebuilt));
        let log = String::from_utf8_lossy(&rebuilt.stdout);
        let runs: Vec<&str> = log.lines().filter(|l| l.starts_with(PICA)).collect();
        assert_eq!(runs.len(), 1, "{log}");
        assert!(runs[0].contains(output), "{log}");
        question("up to date");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// devkitPro's CMake files, as pacman installs them under `DEVKITPRO/cmake`, copied by the
/// fetch script into `devkitpro`; `Err` says why they could not be had.
fn devkitpro_cmake(devkitpro: &Path) -> Result<(), String> {
    let script = fixture("thirdparty/devkitpro-cmake/fetch.sh");
    let mut command = Command::new("bash");
    command.arg(&script).arg(devkitpro);
    if let Some(mirror) = std::env::var_os("SPV2RETRO_MIRROR") {
        command.arg(mirror);
    }
    let out = command.output().map_err(|e| format!("bash: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

#[test]
fn devkitpros_cmake_builds_shader_libraries_with_spv2pica_as_picasso() {
    let need = missing(&["cmake", "make", "git"]);
    if !need.is_empty() {
        eprintln!(
            "skipped: the CMake route needs {} (.ci/install-build-tools installs them)",
            need.join(", ")
        );
        return;
    }
    let dir = scratch("cmake-route");
    let devkitpro = dir.join("devkitpro");
    if let Err(why) = devkitpro_cmake(&devkitpro) {
        eprintln!(
            "skipped: the CMake route needs devkitPro's CMake files, which \
             tests/fixtures/thirdparty/devkitpro-cmake/fetch.sh copies from a mirror of \
             devkitPro/pacman-packages or a clone (set SPV2RETRO_MIRROR to a folder of \
             OWNER+NAME/repo git dirs): {why}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    // The one devkitPro tool 3DS.cmake will not configure without: its pkg-config (a
    // project that asks it for a library would need the real one).
    let bin = devkitpro.join("portlibs/3ds/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let pkg_config = bin.join("arm-none-eabi-pkg-config");
    std::fs::write(&pkg_config, "#!/bin/sh\nexit 1\n").unwrap();
    let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&pkg_config, mode).unwrap();

    let source = dir.join("project");
    std::fs::create_dir_all(&source).unwrap();
    copy(
        &fixture("build-routes/cmake/CMakeLists.txt"),
        &source.join("CMakeLists.txt"),
    );
    shaders_into(&source.join("shaders"));
    let build = dir.join("build");
    let cmake = |args: &[&std::ffi::OsStr]| {
        Command::new("cmake")
            .current_dir(&dir)
            .args(args)
            .env("DEVKITPRO", &devkitpro)
            .env_remove("MAKEFLAGS")
            .env_remove("MFLAGS")
            .output()
            .expect("cmake runs")
    };
    let toolchain = devkitpro.join("cmake/3DS.cmake");
    let configured = cmake(&[
        "-S".as_ref(),
        source.as_os_str(),
        "-B".as_ref(),
        build.as_os_str(),
        "-G".as_ref(),
        "Unix Makefiles".as_ref(),
        format!("-DCMAKE_TOOLCHAIN_FILE={}", toolchain.display()).as_ref(),
        format!("-DCTR_PICASSO_EXE={PICA}").as_ref(),
    ]);
    assert!(
        configured.status.success(),
        "cmake (configure) failed:\n{}",
        text(&configured)
    );
    let build_all = || cmake(&["--build".as_ref(), build.as_os_str()]);
    let built = build_all();
    assert!(
        built.status.success(),
        "cmake --build failed:\n{}",
        text(&built)
    );
    let log = text(&built);
    assert!(log.contains("Building shader library vshader"), "{log}");

    // The GLSL shader's .shbin is spv2pica's; the picasso sources' is picasso's.
    let vshader = std::fs::read(build.join("vshader.shbin")).unwrap();
    let want = spv2pica_shbin(&source.join("shaders/vshader.vert"), &dir);
    assert!(vshader == want, "vshader.shbin is not spv2pica's");
    let program = std::fs::read(build.join("program.shbin")).unwrap();
    let picasso = std::fs::read(fixture(GEOSHADER).join("picasso.shbin")).unwrap();
    assert!(program == picasso, "program.shbin is not picasso's");

    // A changed shader is compiled again, and only it.
    touch(&source.join("shaders/vshader.vert"));
    let again = build_all();
    let log = text(&again);
    assert!(again.status.success(), "{log}");
    assert!(log.contains("Building shader library vshader"), "{log}");
    assert!(!log.contains("Building shader library program"), "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn emits_bin2s_beside_the_input_to_standard_output_and_a_depfile_for_a_plain_shbin() {
    let dir = scratch("bin2s-forms");
    shaders_into(&dir);
    let pica = |args: &[&str]| {
        let out = Command::new(PICA)
            .current_dir(&dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        out
    };
    let vshader = spv2pica_shbin(&dir.join("vshader.vert"), &dir);

    // No -o: vshader.shbin.s beside the input, as `bin2s vshader.shbin` prints it (with
    // NAME_size, there being no -H).
    pica(&["--emit", "bin2s", "vshader.vert"]);
    let s = std::fs::read_to_string(dir.join("vshader.shbin.s")).unwrap();
    assert_eq!(
        s,
        spv2retro_cli::make::assembly("vshader.shbin", &vshader, false)
    );
    assert!(s.contains(&format!("vshader_shbin_size: .int {}\n", vshader.len())));

    // To standard output: the symbols take the name of the .shbin spv2pica would write (the
    // first input's, for a link).
    let out = pica(&[
        "--emit",
        "bin2s",
        "-o",
        "-",
        "01-program.v.pica",
        "02-program.g.pica",
    ]);
    let picasso = std::fs::read(fixture(GEOSHADER).join("picasso.shbin")).unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        spv2retro_cli::make::assembly("01-program.shbin", &picasso, false)
    );

    // --depfile with the plain .shbin and picasso's -h header: both are targets.
    pica(&[
        "--depfile",
        "out.d",
        "-o",
        "out.shbin",
        "-h",
        "out.h",
        "vshader.vert",
    ]);
    assert_eq!(std::fs::read(dir.join("out.shbin")).unwrap(), vshader);
    assert_eq!(
        std::fs::read_to_string(dir.join("out.d")).unwrap(),
        "out.shbin out.h: vshader.vert\n\nvshader.vert:\n"
    );

    // -H is bin2s's header: without --emit bin2s it is a usage error.
    let refused = Command::new(PICA)
        .current_dir(&dir)
        .args(["-H", "x.h", "vshader.vert"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(text(&refused).contains("--emit bin2s"));
    std::fs::remove_dir_all(&dir).unwrap();
}
