//! `spv2agal --emit haxe` and `--emit as3`: the Stage3D class of a program pair (`--link`) or
//! of one program, named after the output file. What the class does is tested with the
//! library (`cli/tests/glue.rs`: compiled by haxe and Apache Royale, run against a recording
//! Context3D); here, the command line: names, files, standard output, refusals.

use std::process::{Command, Output};

use test_kit::scratch;

const AGAL: &str = env!("CARGO_BIN_EXE_spv2agal");

const VERT: &str = "attribute vec2 aPosition;
attribute vec2 aTexCoord;
uniform mat4 mvp;
varying vec2 vTexCoord;
void main() {
    vTexCoord = aTexCoord;
    gl_Position = mvp * vec4(aPosition, 0.0, 1.0);
}
";

const FRAG: &str = "precision mediump float;
uniform sampler2D uTexture;
uniform vec4 tint;
varying vec2 vTexCoord;
void main() {
    gl_FragColor = texture2D(uTexture, vTexCoord) * tint;
}
";

fn agal(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(AGAL)
        .current_dir(dir)
        .args(args)
        .output()
        .expect("spv2agal runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_linked_pair_is_one_class_named_after_the_output_file() {
    let dir = scratch("cli-stage3d-pair");
    std::fs::write(dir.join("tint.vert"), VERT).unwrap();
    std::fs::write(dir.join("tint.frag"), FRAG).unwrap();
    let args = |emit: &'static str, out: &'static str| {
        [
            "tint.vert",
            "--link",
            "tint.frag",
            "--emit",
            emit,
            "-o",
            out,
        ]
    };
    let out = agal(&dir, &args("haxe", "TintFilter.hx"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let hx = std::fs::read_to_string(dir.join("TintFilter.hx")).unwrap();
    assert!(hx.contains("@:final class TintFilter\n"), "{hx}");
    assert!(hx.contains("public static function upload(context:Context3D):Program3D"));
    assert!(hx.contains("public static function setMvp(context:Context3D, matrix:Matrix3D):Void"));
    assert!(hx.contains(
        "public static function setTint(context:Context3D, x:Float, y:Float, z:Float, w:Float):Void"
    ));
    assert!(
        hx.contains("public static inline var A_POSITION:Int = 0;"),
        "{hx}"
    );
    assert!(
        hx.contains("public static inline var U_TEXTURE:Int = 0;"),
        "{hx}"
    );

    let out = agal(&dir, &args("as3", "TintFilter.as"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let as3 = std::fs::read_to_string(dir.join("TintFilter.as")).unwrap();
    assert!(as3.contains("public final class TintFilter {"), "{as3}");
    assert!(as3.contains("public static function setTint(context:Context3D, x:Number, y:Number, z:Number, w:Number):void {"));

    // The fragment shader as the input: the same class.
    let out = agal(
        &dir,
        &[
            "tint.frag",
            "--link",
            "tint.vert",
            "--emit",
            "haxe",
            "-o",
            "-",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // `-o -`: the class is named after the input.
    assert_eq!(
        text(&out.stdout),
        hx.replace("class TintFilter", "class Tint")
    );

    // Without -o: CLASS.hx beside the input.
    let out = agal(&dir, &["tint.vert", "--link", "tint.frag", "--emit", "as3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.join("Tint.as").exists());
}

#[test]
fn one_program_is_a_class_of_its_half() {
    let dir = scratch("cli-stage3d-half");
    std::fs::write(dir.join("tint.frag"), FRAG).unwrap();
    let out = agal(
        &dir,
        &[
            "tint.frag",
            "--emit",
            "haxe",
            "--profile",
            "standard",
            "-o",
            "Tint.hx",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let hx = std::fs::read_to_string(dir.join("Tint.hx")).unwrap();
    assert!(
        hx.contains("public static function fragmentBytes():ByteArray"),
        "{hx}"
    );
    assert!(
        !hx.contains("vertexBytes") && !hx.contains("function upload("),
        "{hx}"
    );
    assert!(hx.contains("public static function uploadConstants(context:Context3D):Void"));
    assert!(
        hx.contains("function setUTextureSamplerState(context:Context3D):Void"),
        "{hx}"
    );
}

#[test]
fn a_file_name_that_cannot_name_the_class_is_refused() {
    let dir = scratch("cli-stage3d-bad");
    std::fs::write(dir.join("tint.frag"), FRAG).unwrap();
    let out = agal(&dir, &["tint.frag", "--emit", "haxe", "-o", "tint.hx"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("cannot name a Haxe class"), "{err}");
    assert!(err.contains("`Tint.hx`"), "{err}");
    assert!(!dir.join("tint.hx").exists());
    let out = agal(&dir, &["tint.frag", "--emit", "as3", "-o", "class.as"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("keyword"),
        "{}",
        text(&out.stderr)
    );
}

/// `--variant` with `--emit haxe`: a class per variant and one that chooses among them by
/// name, which type-checks against OpenFL's externs when `haxe` is installed.
#[test]
fn variants_are_classes_chosen_by_name() {
    let dir = scratch("cli-stage3d-variants");
    std::fs::write(dir.join("filter.vert"), VERT).unwrap();
    std::fs::write(dir.join("filter.frag"), FRAG).unwrap();
    let out = agal(
        &dir,
        &[
            "filter.frag",
            "--link",
            "filter.vert",
            "--emit",
            "haxe",
            "-o",
            "gen",
            "--variant",
            "plain:",
            "--variant",
            "dxt5:0=dxt5",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let generated = dir.join("gen");
    let selector = std::fs::read_to_string(generated.join("Filter.hx")).unwrap();
    assert!(
        selector.contains("case \"dxt5\": FilterDxt5.upload(context);"),
        "{selector}"
    );
    assert!(selector.contains("[\"plain\", \"dxt5\"]"), "{selector}");
    let dxt5 = std::fs::read_to_string(generated.join("FilterDxt5.hx")).unwrap();
    assert!(dxt5.contains("class FilterDxt5"), "{dxt5}");
    let table = std::fs::read_to_string(generated.join("variants.json")).unwrap();
    assert!(table.contains("\"class\": \"FilterDxt5.hx\""), "{table}");
    // Type-check a use of them with OpenFL's externs, when the tools are there.
    let externs = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/stage3d/node_modules/openfl/lib");
    let haxe = Command::new("haxe").arg("--version").output();
    if !externs.exists() || !haxe.is_ok_and(|o| o.status.success()) {
        let message = "skipped the Haxe check: needs haxe and tests/stage3d's npm packages \
                       (.ci/install-stage3d)";
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("{message}");
        return;
    }
    std::fs::write(
        generated.join("CheckMain.hx"),
        "import openfl.display3D.Context3D;\n\
         class CheckMain {\n\tstatic function main() {}\n\
         \tstatic function draw(context:Context3D) {\n\
         \t\tvar program = Filter.upload(context, \"dxt5\");\n\
         \t\tcontext.setProgram(program);\n\
         \t\tvar chosen:Class<Dynamic> = Filter.classFor(\"plain\");\n\
         \t\tFilterDxt5.setTint(context, 1.0, 0.5, 0.25, 1.0);\n\t}\n}\n",
    )
    .unwrap();
    let check = Command::new("haxe")
        .current_dir(&dir)
        .arg("-cp")
        .arg(&externs)
        .arg("-cp")
        .arg(&generated)
        .args(["-main", "CheckMain", "-js", "check.js", "--no-output"])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}{}",
        text(&check.stdout),
        text(&check.stderr)
    );
}
