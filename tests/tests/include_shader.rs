//! `include_shader!` (spv2retro-macros) on a shader the compiler refuses: a crate that uses it
//! fails to build at the macro's argument, with the shader's own file, line and rule. The
//! crate is tests/fixtures/include-shader-error, built as a user builds a crate of their own
//! (`cargo build --offline`, the workspace's lock file, the workspace's target folder so the
//! compiler is not built again). `homebrew_example` checks a good shader's bytes.

use std::path::Path;
use std::process::Command;

use test_kit::{fixture, scratch};

#[test]
fn a_bad_shader_fails_the_build_at_the_macro_with_the_shaders_file_line_and_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().unwrap();
    // A copy, so the build writes nothing into the source tree, with the macro crate's path
    // made absolute and the workspace's lock file beside it.
    let dir = scratch("include-shader-error");
    let crate_dir = fixture("include-shader-error");
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let macros = format!("path = {:?}", root.join("macros").to_str().unwrap());
    assert!(
        manifest.contains("path = \"../../../macros\""),
        "{manifest}"
    );
    let manifest = manifest.replace("path = \"../../../macros\"", &macros);
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    for sub in ["src", "shaders"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for entry in std::fs::read_dir(crate_dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.join(sub).join(path.file_name().unwrap())).unwrap();
        }
    }
    // The target folder of this test run (CARGO_TARGET_TMPDIR is its tmp/).
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let output = Command::new(env!("CARGO"))
        .current_dir(&dir)
        .args(["build", "--offline", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target)
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the crate built:\n{stderr}");
    // The compiler's diagnostic: the shader's file, the rule, the line and column, the line.
    assert!(
        stderr.contains("error: shaders/bad.vert: error[naga.glsl]: Unknown variable: tint"),
        "{stderr}"
    );
    assert!(stderr.contains("--> shaders/bad.vert:9:16"), "{stderr}");
    assert!(stderr.contains("outColor = tint;"), "{stderr}");
    // At the macro's argument in the crate's source, and only there: the picasso source
    // beside it assembles.
    assert!(stderr.contains("--> src/lib.rs:5:59"), "{stderr}");
    assert_eq!(stderr.matches("error[").count(), 1, "{stderr}");
    assert!(
        stderr.contains("could not compile `include-shader-error`"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
