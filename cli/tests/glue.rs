//! The Stage3D classes (`spv2retro::glue`): the Haxe class type-checks with the Haxe compiler
//! against OpenFL's own externs (the `openfl` npm package, 8.9.6) and, run in Haxe's
//! interpreter against a recording `Context3D` (tests/stage3d/haxe-mock), fills the registers
//! so that the programs compute what the values given by name say: `M * v` for a
//! `Matrix3D` `M`, in both matrix layouts. The ActionScript class compiles with Apache Royale's
//! compiler (asjsc) against OpenFL's ActionScript declarations of `flash.*`, and every
//! uniform has its setter with its registers.
//!
//! The tools come from `.ci/install-stage3d` (Debian's haxe, `npm ci` in tests/stage3d).
//! Without them these tests say they are skipped, except under CI (`CI` set), where that is a
//! failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use backend_agal::sim::{self, FragmentInputs, Image, Texture, VertexInputs};
use spv2retro::build::Shaders;
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile, compile_pair, glue};
use test_kit::scratch;

fn stage3d_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/stage3d")
}

/// Whether `what` is usable; if not, says the test is skipped (a failure under CI).
fn have(what: &str, ok: bool) -> bool {
    if !ok {
        let message = format!("skipped: this test needs {what} (.ci/install-stage3d installs it)");
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("{message}");
    }
    ok
}

fn haxe_available() -> bool {
    have(
        "the Haxe compiler, `haxe` (Debian's haxe)",
        Command::new("haxe")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
    ) && have(
        "OpenFL's externs (npm ci in tests/stage3d)",
        stage3d_dir()
            .join("node_modules/openfl/lib/openfl/display3D/Context3D.hx")
            .exists(),
    )
}

fn asjsc() -> Option<PathBuf> {
    let path = stage3d_dir().join("node_modules/@apache-royale/royale-js/royale-asjs/js/bin/asjsc");
    let java = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    (have("Java (Apache Royale's compiler runs on it)", java)
        && have(
            "Apache Royale's asjsc (npm ci in tests/stage3d)",
            path.exists(),
        )
        && have(
            "OpenFL's openfl.swc (npm ci in tests/stage3d)",
            stage3d_dir()
                .join("node_modules/openfl/dist/openfl.swc")
                .exists(),
        ))
    .then_some(path)
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

/// Type-checks `class` and `use_hx` (a class `Use`) against OpenFL's externs, as the JS
/// target builds them, without writing output.
fn haxe_check(dir: &Path, class: &str, class_hx: &str, use_hx: &str) {
    let gen_dir = dir.join("gen");
    std::fs::create_dir_all(&gen_dir).unwrap();
    std::fs::write(gen_dir.join(format!("{class}.hx")), class_hx).unwrap();
    std::fs::write(gen_dir.join("Use.hx"), use_hx).unwrap();
    std::fs::write(
        gen_dir.join("CheckMain.hx"),
        "class CheckMain {\n\tstatic function main() {\n\t\tvar draw = Use.draw;\n\t}\n}\n",
    )
    .unwrap();
    run(Command::new("haxe")
        .current_dir(dir)
        .arg("-cp")
        .arg(stage3d_dir().join("node_modules/openfl/lib"))
        .arg("-cp")
        .arg(&gen_dir)
        .args(["-main", "CheckMain", "-js", "check.js", "--no-output"]));
}

/// What the recording Context3D saw.
struct Recorded {
    vc: Vec<[f32; 4]>,
    fc: Vec<[f32; 4]>,
    vertex_bytes: Option<Vec<u8>>,
    fragment_bytes: Option<Vec<u8>>,
    endian: String,
    log: Vec<String>,
}

/// Runs `Use.draw` in Haxe's interpreter against the recording Context3D.
fn haxe_run(dir: &Path) -> Recorded {
    std::fs::write(
        dir.join("gen/RunMain.hx"),
        r#"import openfl.display3D.Context3D;
class RunMain {
	static function hex(b:openfl.utils.ByteArray):String {
		return b == null ? "-" : b.bytes.toHex();
	}
	static function main() {
		var c = new Context3D();
		var p = Use.draw(c);
		Sys.println("vc " + c.vertexConstants.join(","));
		Sys.println("fc " + c.fragmentConstants.join(","));
		Sys.println("vbytes " + (p == null ? "-" : hex(p.vertex)));
		Sys.println("fbytes " + (p == null ? "-" : hex(p.fragment)));
		Sys.println("endian " + (p == null ? "-" : p.vertex.endian + " " + p.fragment.endian));
		Sys.println("log " + c.log.join("|"));
	}
}
"#,
    )
    .unwrap();
    let out = run(Command::new("haxe")
        .current_dir(dir)
        .arg("-cp")
        .arg(stage3d_dir().join("haxe-mock"))
        .arg("-cp")
        .arg(dir.join("gen"))
        .args(["-main", "RunMain", "--interp"]));
    let line = |key: &str| -> String {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{key} ")))
            .unwrap_or_else(|| panic!("no `{key}` line in:\n{out}"))
            .to_string()
    };
    let registers = |key: &str| -> Vec<[f32; 4]> {
        let floats: Vec<f32> = line(key)
            .split(',')
            .map(|f| f.parse().unwrap_or_else(|_| panic!("{f:?} in {out}")))
            .collect();
        floats.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
    };
    let bytes = |key: &str| -> Option<Vec<u8>> {
        let h = line(key);
        (h != "-").then(|| {
            (0..h.len() / 2)
                .map(|k| u8::from_str_radix(&h[2 * k..2 * k + 2], 16).unwrap())
                .collect()
        })
    };
    Recorded {
        vc: registers("vc"),
        fc: registers("fc"),
        vertex_bytes: bytes("vbytes"),
        fragment_bytes: bytes("fbytes"),
        endian: line("endian"),
        log: line("log")
            .split('|')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    }
}

/// `M * v` for a Matrix3D's column-major `rawData`.
fn times(raw: &[f32; 16], v: [f32; 4]) -> [f32; 4] {
    std::array::from_fn(|r| (0..4).map(|c| raw[c * 4 + r] * v[c]).sum())
}

fn close(got: [f32; 4], want: [f32; 4]) -> bool {
    got.iter()
        .zip(want)
        .all(|(g, w)| (g - w).abs() <= 1e-4 * (1.0 + w.abs()))
}

fn list(v: &[f32]) -> String {
    v.iter()
        .map(|f| format!("{f:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

const TINT_VERT: &str = "attribute vec2 aPosition;
attribute vec2 aTexCoord;
uniform mat4 mvp;
varying vec2 vTexCoord;
void main() {
    vTexCoord = aTexCoord;
    gl_Position = mvp * vec4(aPosition, 0.0, 1.0);
}
";

/// A Starling-like colour-matrix filter: a texture, a 4×4 matrix and an offset.
const TINT_FRAG: &str = "precision mediump float;
uniform sampler2D uTexture;
uniform mat4 colorMatrix;
uniform vec4 colorOffset;
varying vec2 vTexCoord;
void main() {
    vec4 c = texture2D(uTexture, vTexCoord);
    gl_FragColor = colorMatrix * c + colorOffset;
}
";

fn tint_pair(profile: Profile) -> (Compiled, Compiled) {
    compile_pair(
        Source::glsl(TINT_VERT, Stage::Vertex).named("tint.vert"),
        Source::glsl(TINT_FRAG, Stage::Fragment).named("tint.frag"),
        &Options::agal(profile),
    )
    .unwrap()
}

const MVP: [f32; 16] = [
    2.0, 0.5, 0.0, 0.0, -1.0, 3.0, 0.25, 0.0, 0.0, 0.0, 1.0, 0.0, 10.0, 20.0, 30.0, 1.0,
];
const COLOR_MATRIX: [f32; 16] = [
    0.5, 0.1, 0.0, 0.0, 0.2, 0.6, 0.0, 0.0, 0.0, 0.3, 0.7, 0.0, 0.0, 0.0, 0.4, 1.0,
];

/// The pair, set through the class by name only, computes `mvp * v` and `colorMatrix * c +
/// colorOffset` in the AGAL simulator with the registers OpenFL's Context3D would hold.
#[test]
fn the_haxe_class_compiles_against_openfl_and_its_setters_fill_the_right_registers() {
    if !haxe_available() {
        return;
    }
    let dir = scratch("glue-haxe-tint");
    let (v, f) = tint_pair(Profile::Standard);
    let class = glue::haxe("TintFilter", Some(&v), Some(&f)).unwrap();
    // No register number in the application's code: only the class's names.
    let use_hx = format!(
        "import openfl.Vector;
import openfl.display3D.Context3D;
import openfl.display3D.Program3D;
import openfl.geom.Matrix3D;

class Use {{
	public static function draw(context:Context3D):Program3D {{
		var program:Program3D = TintFilter.upload(context);
		context.setProgram(program);
		TintFilter.setMvp(context, new Matrix3D(Vector.ofArray(([{}] : Array<Float>))));
		TintFilter.setColorMatrix(context, new Matrix3D(Vector.ofArray(([{}] : Array<Float>))));
		TintFilter.setColorOffset(context, 0.125, 0.25, 0.0, -0.5);
		TintFilter.setUTextureSamplerState(context);
		context.setVertexBufferAt(TintFilter.A_POSITION, null, 0, TintFilter.A_POSITION_FORMAT);
		context.setVertexBufferAt(TintFilter.A_TEX_COORD, null, 0, TintFilter.A_TEX_COORD_FORMAT);
		context.setTextureAt(TintFilter.U_TEXTURE, null);
		return program;
	}}
}}
",
        list(&MVP),
        list(&COLOR_MATRIX)
    );
    haxe_check(&dir, "TintFilter", &class, &use_hx);
    let rec = haxe_run(&dir);
    assert_eq!(rec.vertex_bytes.as_deref(), Some(v.bytes.as_slice()));
    assert_eq!(rec.fragment_bytes.as_deref(), Some(f.bytes.as_slice()));
    assert_eq!(rec.endian, "littleEndian littleEndian");
    let va = |name: &str| {
        let i = v.reflection.inputs.iter().find(|i| i.name == name).unwrap();
        i.register.trim_start_matches("va").to_string()
    };
    assert!(
        rec.log
            .contains(&format!("buffer {} float2", va("aPosition"))),
        "{:?}",
        rec.log
    );
    assert!(
        rec.log
            .contains(&format!("buffer {} float2", va("aTexCoord"))),
        "{:?}",
        rec.log
    );
    // The sampler state as compiled (2D defaults: repeat, linear, mipnone).
    assert!(
        rec.log
            .contains(&"sampler 0 repeat linear mipnone".to_string()),
        "{:?}",
        rec.log
    );
    assert!(rec.log.contains(&"texture 0".to_string()), "{:?}", rec.log);

    // The vertex program with those registers: op = mvp * (x, y, 0, 1).
    let vp = backend_agal::Program::decode(&v.bytes).unwrap();
    let mut attributes = vec![[0.0f32; 4]; 8];
    let pos = [0.5, -0.25, 0.0, 1.0];
    attributes[va("aPosition").parse::<usize>().unwrap()] = [0.5, -0.25, 0.0, 0.0];
    attributes[va("aTexCoord").parse::<usize>().unwrap()] = [0.3, 0.7, 0.0, 0.0];
    let out = sim::run_vertex(
        &vp,
        &VertexInputs {
            attributes: &attributes,
            constants: &rec.vc,
            instance_id: 0,
        },
    )
    .unwrap();
    let want = times(&MVP, pos);
    assert!(
        close(out.position, want),
        "op {:?}, want {want:?}",
        out.position
    );

    // The fragment program: oc = colorMatrix * texel + colorOffset.
    let fp = backend_agal::Program::decode(&f.bytes).unwrap();
    let texel = [0.2, 0.4, 0.6, 0.8];
    let image = Image::new_2d(1, 1, vec![texel]).unwrap();
    let textures: Vec<&dyn Texture> = vec![&image];
    let mut varyings = vec![[0.0f32; 4]; 10];
    varyings[0] = [0.3, 0.7, 0.0, 0.0];
    let out = sim::run_fragment(
        &fp,
        &varyings,
        &FragmentInputs {
            constants: &rec.fc,
            textures: &textures,
        },
    )
    .unwrap();
    let m = times(&COLOR_MATRIX, texel);
    let want = [m[0] + 0.125, m[1] + 0.25, m[2], m[3] - 0.5];
    assert!(
        close(out.colors[0], want),
        "oc {:?}, want {want:?}",
        out.colors[0]
    );
}

/// Row-major matrices (transposed uploads), a `mat3` from a `Matrix3D`, a `float` packed into
/// the register of a `vec3`, an array, a `vec2`, and a literal constant, in one block.
const SCENE_VERT: &str = "#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in float weight;
layout(location = 0) out vec4 o1;
layout(location = 1) out vec4 o2;
layout(std140, binding = 0, row_major) uniform Scene {
    mat4 mvp;
    mat3 normalMat;
    vec3 lightDir;
    float intensity;
    float weights[3];
    vec2 offset;
};
void main() {
    gl_Position = mvp * pos;
    o1 = vec4(normalMat * pos.xyz, intensity * weight);
    o2 = vec4(lightDir + vec3(offset, 0.5), weights[0] + weights[1] * 10.0 + weights[2] * 100.0);
}
";

#[test]
fn row_major_matrices_packed_scalars_and_arrays_are_set_by_name() {
    if !haxe_available() {
        return;
    }
    let dir = scratch("glue-haxe-scene");
    let v = compile(
        Source::glsl(SCENE_VERT, Stage::Vertex).named("scene.vert"),
        &Options::agal(Profile::Baseline),
    )
    .unwrap();
    let layouts: Vec<_> = v
        .reflection
        .uniforms
        .iter()
        .map(|u| u.layout.clone())
        .collect();
    assert_eq!(layouts[0].as_deref(), Some("row_major"));
    let class = glue::haxe("pack.Scene", Some(&v), None).unwrap();
    assert!(class.contains("package pack;"), "{class}");
    assert!(
        class.contains("matrix, true);"),
        "a row-major mat4 is uploaded transposed:\n{class}"
    );
    assert!(
        !class.contains("function upload("),
        "one program: no pair upload\n{class}"
    );
    let normal: [f32; 16] = [
        0.0, 1.0, 0.0, 9.0, -1.0, 0.0, 0.0, 9.0, 0.0, 0.0, 2.0, 9.0, 9.0, 9.0, 9.0, 9.0,
    ];
    let use_hx = format!(
        "import openfl.Vector;
import openfl.display3D.Context3D;
import openfl.display3D.Program3D;
import openfl.geom.Matrix3D;
import pack.Scene;

class Use {{
	public static function draw(context:Context3D):Program3D {{
		Scene.uploadConstants(context);
		Scene.setMvp(context, new Matrix3D(Vector.ofArray(([{}] : Array<Float>))));
		Scene.setNormalMat(context, new Matrix3D(Vector.ofArray(([{}] : Array<Float>))));
		Scene.setIntensity(context, 3.0);
		Scene.setLightDir(context, 1.0, 2.0, 3.0);
		Scene.setWeights(context, Vector.ofArray(([1.0, 2.0, 3.0] : Array<Float>)));
		Scene.setOffset(context, 0.25, 0.75);
		context.setVertexBufferAt(Scene.POS, null, 0, Scene.POS_FORMAT);
		context.setVertexBufferAt(Scene.WEIGHT, null, 0, Scene.WEIGHT_FORMAT);
		return null;
	}}
}}
",
        list(&MVP),
        list(&normal)
    );
    let pack = dir.join("gen/pack");
    std::fs::create_dir_all(&pack).unwrap();
    std::fs::write(pack.join("Scene.hx"), &class).unwrap();
    haxe_check(&dir, "Unused", "class Unused {}\n", &use_hx);
    let rec = haxe_run(&dir);
    assert!(
        rec.log.contains(&"buffer 0 float4".to_string()),
        "{:?}",
        rec.log
    );
    assert!(
        rec.log.contains(&"buffer 1 float1".to_string()),
        "{:?}",
        rec.log
    );
    let vp = backend_agal::Program::decode(&v.bytes).unwrap();
    let pos = [1.0, -2.0, 0.5, 1.0];
    let weight = 0.5;
    let out = sim::run_vertex(
        &vp,
        &VertexInputs {
            attributes: &[pos, [weight, 0.0, 0.0, 0.0]],
            constants: &rec.vc,
            instance_id: 0,
        },
    )
    .unwrap();
    let want = times(&MVP, pos);
    assert!(
        close(out.position, want),
        "op {:?}, want {want:?}",
        out.position
    );
    // normalMat = the Matrix3D's upper-left 3×3 (column-major rawData, stride 4).
    let n: [f32; 3] = std::array::from_fn(|r| (0..3).map(|c| normal[c * 4 + r] * pos[c]).sum());
    let want = [n[0], n[1], n[2], 3.0 * weight];
    assert!(
        close(out.varyings[0], want),
        "o1 {:?}, want {want:?}",
        out.varyings[0]
    );
    let want = [1.25, 2.75, 3.5, 321.0];
    assert!(
        close(out.varyings[1], want),
        "o2 {:?}, want {want:?}",
        out.varyings[1]
    );
}

/// Every uniform has one setter naming its registers, every attribute and sampler its
/// constant; a keyword or clash is respelled; the class compiles with Apache Royale's
/// ActionScript compiler against OpenFL's declarations of `flash.*`.
#[test]
fn the_as3_class_has_a_setter_per_uniform_and_compiles() {
    let (v, f) = tint_pair(Profile::Standard);
    let text = glue::as3("TintFilter", Some(&v), Some(&f)).unwrap();
    assert!(text.contains("package {\n"), "{text}");
    assert!(text.contains("public final class TintFilter {"), "{text}");
    assert!(
        text.contains("bytes.endian = Endian.LITTLE_ENDIAN;"),
        "{text}"
    );
    for (c, program) in [(&v, "VERTEX"), (&f, "FRAGMENT")] {
        for u in &c.reflection.uniforms {
            let setter = match u.name.as_str() {
                "mvp" => "setMvp",
                "colorMatrix" => "setColorMatrix",
                "colorOffset" => "setColorOffset",
                other => panic!("unexpected uniform {other}"),
            };
            let start = text
                .find(&format!(
                    "public static function {setter}(context:Context3D"
                ))
                .unwrap_or_else(|| panic!("no {setter} in\n{text}"));
            let body = &text[start..start + text[start..].find("\n    }\n").unwrap()];
            let register = u.register.trim_start_matches(char::is_alphabetic);
            assert!(
                body.contains(&format!("Context3DProgramType.{program}, {register}, ")),
                "{setter} does not write {}:\n{body}",
                u.register
            );
        }
        for i in &c.reflection.inputs {
            if c.stage == Stage::Vertex {
                let name = if i.name == "aPosition" {
                    "A_POSITION"
                } else {
                    "A_TEX_COORD"
                };
                let number = i.register.trim_start_matches("va");
                assert!(text.contains(&format!("public static const {name}:int = {number};")));
                assert!(text.contains(&format!(
                    "public static const {name}_FORMAT:String = Context3DVertexBufferFormat.FLOAT_2;"
                )));
            }
        }
    }
    assert!(
        text.contains("public static const U_TEXTURE:int = 0;"),
        "{text}"
    );
    assert!(text.contains(
        "context.setSamplerStateAt(0, Context3DWrapMode.REPEAT, Context3DTextureFilter.LINEAR, Context3DMipFilter.MIPNONE);"
    ));
    // AGAL 1: no sampler state setter.
    let (v1, f1) = tint_pair(Profile::Baseline);
    let baseline = glue::as3("TintFilter", Some(&v1), Some(&f1)).unwrap();
    assert!(!baseline.contains("setSamplerStateAt"), "{baseline}");

    let Some(asjsc) = asjsc() else {
        return;
    };
    let dir = scratch("glue-as3");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("shaders")).unwrap();
    let packaged = glue::as3("shaders.TintFilter", Some(&v), Some(&f)).unwrap();
    std::fs::write(src.join("shaders/TintFilter.as"), &packaged).unwrap();
    std::fs::write(
        src.join("Baseline.as"),
        glue::as3("Baseline", Some(&v1), Some(&f1)).unwrap(),
    )
    .unwrap();
    std::fs::write(
        src.join("Main.as"),
        format!(
            "package {{
import flash.display3D.Context3D;
import flash.display3D.Program3D;
import flash.geom.Matrix3D;
import flash.utils.ByteArray;
import shaders.TintFilter;

public class Main {{
    public static function draw(context:Context3D):Program3D {{
        var program:Program3D = TintFilter.upload(context);
        context.setProgram(program);
        TintFilter.setMvp(context, new Matrix3D(Vector.<Number>([{}])));
        TintFilter.setColorMatrix(context, new Matrix3D());
        TintFilter.setColorOffset(context, 0.125, 0.25, 0, -0.5);
        TintFilter.setUTextureSamplerState(context);
        context.setVertexBufferAt(TintFilter.A_POSITION, null, 0, TintFilter.A_POSITION_FORMAT);
        context.setTextureAt(TintFilter.U_TEXTURE, null);
        var bytes:ByteArray = Baseline.fragmentBytes();
        Baseline.setColorOffset(context, 1, 1, 1, 1);
        return program;
    }}
}}
}}
",
            list(&MVP)
        ),
    )
    .unwrap();
    let out = run(Command::new(&asjsc)
        .current_dir(&dir)
        .arg(format!(
            "-external-library-path+={}",
            stage3d_dir()
                .join("node_modules/openfl/dist/openfl.swc")
                .display()
        ))
        .arg("-source-path=src")
        .arg("-js-output=out")
        .arg("src/Main.as"));
    // asjsc exits 0 on some errors: read what it says too.
    assert!(!out.contains("Error:"), "{out}");
    assert!(!out.contains("Warning:"), "{out}");
}

#[test]
fn names_are_respelled_by_the_rule() {
    let frag = "precision mediump float;
uniform sampler2D position;
uniform vec4 modelView;
uniform vec4 model_view;
uniform bool enabled;
void main() { gl_FragColor = texture2D(position, vec2(0.5)) + modelView + model_view + (enabled ? vec4(1.0) : vec4(0.0)); }
";
    let f = compile(
        Source::glsl(frag, Stage::Fragment),
        &Options::agal(Profile::Standard),
    )
    .unwrap();
    let text = glue::haxe("Names", None, Some(&f)).unwrap();
    assert!(
        text.contains("function setModelView(context:Context3D, x:Float"),
        "{text}"
    );
    assert!(
        text.contains("function setModelView_2(context:Context3D, x:Float"),
        "{text}"
    );
    assert!(
        text.contains("function setEnabled(context:Context3D, value:Bool)"),
        "{text}"
    );
    assert!(text.contains("(value ? 1 : 0);"), "{text}");
    assert!(
        text.contains("public static inline var POSITION:Int = 0;"),
        "{text}"
    );
    assert!(
        text.contains("function setPositionSamplerState(context:Context3D)"),
        "{text}"
    );
    assert!(!text.contains("vertexBytes"), "{text}");
    assert!(
        text.contains("public static function fragmentBytes():ByteArray"),
        "{text}"
    );

    // Class and package names: keywords and lower-case Haxe classes are refused.
    for bad in ["class", "dynamic", "function", "2d", "a-b", "each"] {
        let e = glue::as3(bad, None, Some(&f)).unwrap_err();
        assert!(e.to_string().contains("cannot name a class"), "{bad}: {e}");
    }
    let e = glue::haxe("tint", None, Some(&f)).unwrap_err();
    assert!(e.to_string().contains("`Tint.hx`"), "{e}");
    let e = glue::haxe("Pack.Tint", None, Some(&f)).unwrap_err();
    assert!(e.to_string().contains("package name"), "{e}");
    assert!(glue::as3("tint", None, Some(&f)).is_ok());
    assert!(glue::haxe("Tint", None, None).is_err());
    let pica = compile(Source::glsl(TINT_VERT, Stage::Vertex), &Options::pica()).unwrap();
    let e = glue::haxe("Tint", Some(&pica), None).unwrap_err();
    assert!(e.to_string().contains("AGAL"), "{e}");
    assert_eq!(glue::class_name("tint_filter.frag"), "TintFilter");
}

#[test]
fn the_names_test_class_compiles_in_haxe() {
    // The generated spellings (`_2`, Bool, the viewport) type-check too; a uniform both
    // programs have is one setter for both; an initial value is uploaded with the constants.
    if !haxe_available() {
        return;
    }
    let frag = "precision mediump float;
uniform sampler2D position;
uniform vec4 modelView;
uniform vec4 model_view;
uniform bool enabled;
uniform ivec2 cells;
uniform vec4 shift;
uniform vec2 center = vec2(200.0, 100.0);
void main() { gl_FragColor = texture2D(position, gl_FragCoord.xy) + modelView + model_view + shift + vec4(center, 0.0, 0.0) + (enabled ? vec4(vec2(cells), 0.0, 0.0) : vec4(0.0)); }
";
    let vert = "attribute vec4 p;\nuniform vec4 shift;\nvoid main() { gl_Position = p + shift; }\n";
    let (v, f) = compile_pair(
        Source::glsl(vert, Stage::Vertex),
        Source::glsl(frag, Stage::Fragment),
        &Options::agal(Profile::Standard),
    )
    .unwrap();
    let class = glue::haxe("Names", Some(&v), Some(&f)).unwrap();
    assert!(
        class.contains("function setViewport(context:Context3D, width:Float, height:Float)"),
        "{class}"
    );
    let dir = scratch("glue-haxe-names");
    let use_hx = "import openfl.display3D.Context3D;
import openfl.display3D.Program3D;
class Use {
	public static function draw(context:Context3D):Program3D {
		var p = Names.upload(context);
		Names.setModelView(context, 1, 2, 3, 4);
		Names.setModelView_2(context, 1, 2, 3, 4);
		Names.setEnabled(context, true);
		Names.setCells(context, 3, 4);
		Names.setViewport(context, 640, 480);
		Names.setPositionSamplerState(context);
		Names.setShift(context, 5, 6, 7, 8);
		return p;
	}
}
";
    haxe_check(&dir, "Names", &class, use_hx);
    let rec = haxe_run(&dir);
    let viewport = f
        .reflection
        .uniforms
        .iter()
        .find(|u| u.name == "spv2retro_viewport")
        .unwrap();
    let n: usize = viewport.register.trim_start_matches("fc").parse().unwrap();
    assert_eq!(rec.fc[n], [640.0, 480.0, 0.0, 0.0]);
    let enabled = f
        .reflection
        .uniforms
        .iter()
        .find(|u| u.name == "enabled")
        .unwrap();
    let n: usize = enabled.register.trim_start_matches("fc").parse().unwrap();
    assert_eq!(rec.fc[n][usize::from(enabled.component)], 1.0);
    assert!(!class.contains("setShift_2"), "{class}");
    let register = |c: &Compiled, name: &str| -> (usize, usize) {
        let u = c
            .reflection
            .uniforms
            .iter()
            .find(|u| u.name == name)
            .unwrap();
        let n = u
            .register
            .trim_start_matches(char::is_alphabetic)
            .parse()
            .unwrap();
        (n, usize::from(u.component))
    };
    assert_eq!(rec.vc[register(&v, "shift").0], [5.0, 6.0, 7.0, 8.0]);
    assert_eq!(rec.fc[register(&f, "shift").0], [5.0, 6.0, 7.0, 8.0]);
    let (n, c) = register(&f, "center");
    assert_eq!(rec.fc[n][c..c + 2], [200.0, 100.0]);
}

/// The build helper writes the classes of an AGAL pair.
#[test]
fn the_build_helper_writes_stage3d_classes() {
    let dir = scratch("glue-build");
    std::fs::write(dir.join("tint.vert"), TINT_VERT).unwrap();
    std::fs::write(dir.join("tint.frag"), TINT_FRAG).unwrap();
    let classes = dir.join("classes");
    let outputs = Shaders::new()
        .stage3d_pair(
            "tint_filter",
            dir.join("tint.vert"),
            dir.join("tint.frag"),
            Options::agal(Profile::Standard),
        )
        .stage3d_classes_in(glue::Language::Haxe, &classes)
        .stage3d_classes(glue::Language::As3)
        .out_dir(&dir)
        .compile()
        .unwrap();
    let hx = std::fs::read_to_string(classes.join("TintFilter.hx")).unwrap();
    let as3 = std::fs::read_to_string(dir.join("TintFilter.as")).unwrap();
    assert!(hx.contains("@:final class TintFilter"), "{hx}");
    assert!(as3.contains("public final class TintFilter {"), "{as3}");
    assert_eq!(
        outputs.classes,
        vec![classes.join("TintFilter.hx"), dir.join("TintFilter.as")]
    );
    // The programs and the Rust module as for any shader.
    let (v, f) = tint_pair(Profile::Standard);
    assert_eq!(
        std::fs::read(dir.join("tint_filter_vertex.agal")).unwrap(),
        v.bytes
    );
    assert_eq!(
        std::fs::read(dir.join("tint_filter_fragment.agal")).unwrap(),
        f.bytes
    );
    let module = std::fs::read_to_string(&outputs.module).unwrap();
    assert!(module.contains("pub mod tint_filter_vertex {"), "{module}");
    assert!(
        module.contains("pub mod tint_filter_fragment {"),
        "{module}"
    );
}
