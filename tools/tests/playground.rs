//! `spv2retro run`, `preview` and `serve` as a user runs them: the binary, its output and
//! exit status, the pictures' pixels, and the playground's HTTP API over a real socket (and
//! the page in headless Chromium, where it is installed; `.ci/run` installs it).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use test_kit::{fixture, scratch};

const RETRO: &str = env!("CARGO_BIN_EXE_spv2retro");

fn retro(args: &[&str]) -> Output {
    Command::new(RETRO)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// RGBA8 pixels of a PNG file.
fn pixels(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn run_prints_every_output_by_name_from_the_values_given() {
    let shader = fixture("glsl/mvp_color.vert.spv");
    let shader = shader.to_str().unwrap();
    // mvp: scale by (2, 3, 4), move by (1, 0, 0) — column-major, as the block holds it.
    let mvp = "2,0,0,0, 0,3,0,0, 0,0,4,0, 1,0,0,1";
    for target in ["pica", "agal"] {
        let out = retro(&[
            "run",
            shader,
            "--target",
            target,
            "--input",
            "inPosition=0.5,0.25,-1",
            "--input",
            "inColor=0.1,0.2,0.3,0.4",
            "--uniform",
            &format!("mvp={mvp}"),
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let find = |name: &str| -> Vec<f64> {
            json["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == name)
                .unwrap_or_else(|| panic!("{target}: no output {name}: {json}"))["value"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        };
        let want = [2.0 * 0.5 + 1.0, 3.0 * 0.25, -4.0, 1.0];
        for (g, w) in find("gl_Position").iter().zip(want) {
            assert!((g - w).abs() < 1e-3, "{target}: gl_Position {g} vs {w}");
        }
        for (g, w) in find("outColor").iter().zip([0.1, 0.2, 0.3, 0.4]) {
            assert!((g - w).abs() < 1e-3, "{target}: outColor {g} vs {w}");
        }
    }
    // The text form names inputs and outputs; identity matrices by default.
    let out = retro(&["run", shader, "--input", "inPosition=1,2,3"]);
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    assert!(s.contains("gl_Position  o0    (1, 2, 3, 1)"), "{s}");
    // A name the shader does not have, a value that is not a number: exit 1, no panic.
    let out = retro(&["run", shader, "--input", "position=1,2,3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no input `position`; it has `inPosition`, `inColor`"),
        "{}",
        text(&out.stderr)
    );
    let out = retro(&["run", shader, "--uniform", "mvp=1,x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("`x` is not a number"));
}

#[test]
fn preview_draws_the_same_bytes_every_time_with_the_shaders_colours() {
    let dir = scratch("preview");
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    let shader = fixture("glsl/mvp_color.vert.spv");
    for out in [&a, &b] {
        let o = retro(&[
            "preview",
            shader.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--mesh",
            "quad",
            "--size",
            "64x32",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // The quad fills the picture (identity matrices); its colour runs from (0, 0, 0.5) at the
    // bottom left to (1, 1, 0.5) at the top right (the quad's vertex colours).
    let (w, h, px) = pixels(&a);
    assert_eq!((w, h), (64, 32));
    let at = |x: u32, y: u32| &px[((y * w + x) * 4) as usize..((y * w + x) * 4 + 4) as usize];
    let centre = at(32, 16);
    assert!(
        (i32::from(centre[0]) - 128).abs() <= 6 && (i32::from(centre[1]) - 128).abs() <= 6,
        "{centre:?}"
    );
    let top_right = at(63, 0);
    assert!(top_right[0] > 245 && top_right[1] > 240, "{top_right:?}");
    let bottom_left = at(0, 31);
    assert!(
        bottom_left[0] < 10 && bottom_left[2] > 120 && bottom_left[2] < 135,
        "{bottom_left:?}"
    );
    // A fragment shader (AGAL) on the full-screen quad, sampling the built-in checkerboard.
    let frag = fixture("glsl/alpha_test.frag.spv");
    let o = retro(&[
        "preview",
        frag.to_str().unwrap(),
        "-o",
        a.to_str().unwrap(),
        "--size",
        "32x32",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // Pairs: a PICA200 vertex and geometry program; an AGAL vertex and fragment program.
    for (v, g, extra) in [
        (
            "geometry/line.vert.spv",
            "geometry/line.geom.spv",
            "width=0.01",
        ),
        (
            "classic/webgl_textured.vert",
            "classic/webgl_textured.frag",
            "",
        ),
    ] {
        let (v, g) = (fixture(v), fixture(g));
        let mut args = vec![
            "preview",
            v.to_str().unwrap(),
            g.to_str().unwrap(),
            "-o",
            b.to_str().unwrap(),
            "--size",
            "32x32",
            "--mesh",
            "sphere",
        ];
        if !extra.is_empty() {
            args.extend(["--uniform", extra]);
        }
        let o = retro(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let (_, _, px) = pixels(&b);
        let bg = &px[0..4];
        assert!(
            px.chunks(4).filter(|p| *p != bg).count() > 50,
            "{args:?} drew almost nothing"
        );
    }
    // A bad size is a usage error; a geometry program alone has no preview (exit 1, no file).
    let o = retro(&[
        "preview",
        shader.to_str().unwrap(),
        "-o",
        "x.png",
        "--size",
        "0x9",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let none = dir.join("none.png");
    let o = retro(&[
        "preview",
        fixture("geometry/sprite.geom.spv").to_str().unwrap(),
        "-o",
        none.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("geometry program cannot transform a mesh"),
        "{}",
        text(&o.stderr)
    );
    assert!(!none.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The server, started on a free port and stopped when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(RETRO)
            .args(["serve", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().rsplit(' ').next().unwrap().to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "{line}");
        let port = url
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches('/')
            .parse()
            .unwrap();
        Server { child, port }
    }

    /// One request; (status, body).
    fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        let _ = s.write_all(body);
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let split = answer
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a response head");
        let status = text(&answer[9..12]).parse().unwrap();
        (status, answer[split + 4..].to_vec())
    }

    fn api(&self, path: &str, request: serde_json::Value) -> serde_json::Value {
        let (status, body) = self.request("POST", path, request.to_string().as_bytes());
        assert_eq!(status, 200, "{}", text(&body));
        serde_json::from_slice(&body).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const VERT: &str = "#version 450\nlayout(location = 0) in vec4 position;\nlayout(location = 1) in vec4 color;\nlayout(location = 0) out vec4 vColor;\nlayout(std140, binding = 0) uniform U { mat4 mvp; };\nvoid main() { gl_Position = mvp * position; vColor = color; }\n";

#[test]
fn the_playground_api_compiles_runs_and_draws_and_survives_bad_requests() {
    let server = Server::start();
    // The page and its assets, from the binary.
    let (status, page) = server.request("GET", "/", b"");
    assert_eq!(status, 200);
    assert!(text(&page).contains("<textarea"), "{}", text(&page));
    for asset in ["/app.js", "/style.css"] {
        let (status, body) = server.request("GET", asset, b"");
        assert_eq!(status, 200, "{asset}");
        assert!(!body.is_empty());
    }
    // Compile for both targets.
    let r = server.api("/api/compile", serde_json::json!({"source": VERT, "language": "glsl", "target": "pica", "stage": "vertex"}));
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        r["listing"].as_str().unwrap().contains("dp4")
            || r["listing"].as_str().unwrap().contains("mad"),
        "{r}"
    );
    assert_eq!(r["reflection"]["target"], "pica");
    // Each instruction names the source line it came from (all of main is line 6 here);
    // directives name none.
    let lines: Vec<Option<u64>> = r["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64())
        .collect();
    assert_eq!(lines.len(), r["listing"].as_str().unwrap().lines().count());
    assert!(lines.contains(&Some(6)), "{r}");
    assert!(lines.iter().all(|l| matches!(l, None | Some(6))), "{r}");
    for (text, line) in r["listing"].as_str().unwrap().lines().zip(&lines) {
        if text.trim_start().starts_with('.') {
            assert_eq!(*line, None, "{text}");
        }
    }
    assert_eq!(
        r["size"].as_u64().unwrap() * 2,
        r["bytes"].as_str().unwrap().len() as u64
    );
    let r = server.api(
        "/api/compile",
        serde_json::json!({"source": VERT, "target": "agal", "profile": "standard"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["reflection"]["agal_version"], 2);
    // An error at the author's line and column.
    let bad = "#version 450\nvoid main() {\n  gl_Position = undefined_thing;\n}\n";
    let r = server.api("/api/compile", serde_json::json!({"source": bad}));
    assert_eq!(r["ok"], false);
    assert_eq!(r["diagnostics"][0]["line"], 3, "{r}");
    assert_eq!(r["diagnostics"][0]["severity"], "error");
    // Run: the outputs for the inputs given (identity mvp by default).
    let r = server.api("/api/run", serde_json::json!({"source": VERT, "inputs": {"position": [1, 2, 3, 1], "color": [0.5, 0.5, 0.5, 1]}}));
    assert_eq!(r["ok"], true, "{r}");
    let pos = r["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "gl_Position")
        .unwrap();
    assert_eq!(pos["value"], serde_json::json!([1.0, 2.0, 3.0, 1.0]));
    // Preview: a PNG.
    let r = server.api(
        "/api/preview",
        serde_json::json!({"source": VERT, "mesh": "sphere", "size": "64x64"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        r["png"].as_str().unwrap().starts_with("iVBORw0KGgo"),
        "a PNG signature"
    );
    // Target assembly: picasso and AGALMiniAssembler text.
    let pica = ".out opos position\n.out ocol color\n.in ipos v0\n.proc main\n\tmov opos, ipos\n\tmov ocol, ipos\n\tend\n.end\n";
    let r = server.api(
        "/api/run",
        serde_json::json!({"source": pica, "language": "pica", "inputs": {"ipos": [1, 2, 3, 4]}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let r = server.api("/api/compile", serde_json::json!({"source": "mov oc, v0\n", "language": "agal", "target": "agal", "stage": "fragment"}));
    assert_eq!(r["ok"], true, "{r}");
    let r = server.api("/api/compile", serde_json::json!({"source": "mov oc, v0\nbogus ft0\n", "language": "agal", "stage": "fragment"}));
    assert_eq!(
        (r["ok"].clone(), r["diagnostics"][0]["line"].clone()),
        (serde_json::json!(false), serde_json::json!(2)),
        "{r}"
    );
    // Bad requests: not JSON, too large, unknown path, wrong method, garbage. The server
    // answers each and keeps going.
    assert_eq!(server.request("POST", "/api/compile", b"{not json").0, 400);
    assert_eq!(
        server
            .request("POST", "/api/compile", &vec![b' '; 300 * 1024])
            .0,
        413
    );
    assert_eq!(server.request("GET", "/nothing", b"").0, 404);
    assert_eq!(server.request("GET", "/api/compile", b"").0, 405);
    {
        let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        let _ = s.write_all(b"\x00\x01garbage\r\n\r\n");
    }
    let r = server.api(
        "/api/compile",
        serde_json::json!({"source": VERT, "language": "cobol"}),
    );
    assert_eq!(r["ok"], false);
    let (status, _) = server.request("GET", "/", b"");
    assert_eq!(status, 200, "still serving");
}

/// A fragment shader for the PICA200 in the playground: the combiners' listing, their colour
/// from the inputs and uniforms given (or the alpha test's discard), the full-screen quad.
#[test]
fn the_playground_compiles_runs_and_draws_a_pica_fragment_shader() {
    let server = Server::start();
    let frag = "#version 450\nlayout(location = 0) in vec4 vColor;\nlayout(location = 1) in vec2 vUv;\nlayout(binding = 0) uniform sampler2D tex;\nuniform vec4 tint;\nlayout(location = 0) out vec4 fragColor;\nvoid main() {\n    vec4 c = texture(tex, vUv) * vColor * tint;\n    if (c.a < 0.5) discard;\n    fragColor = c;\n}\n";
    let request = |extra: serde_json::Value| {
        let mut r = serde_json::json!({"source": frag, "target": "pica", "stage": "fragment"});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        r
    };
    let r = server.api("/api/compile", request(serde_json::json!({})));
    assert_eq!(r["ok"], true, "{r}");
    let listing = r["listing"].as_str().unwrap();
    assert!(
        listing.contains("stage 0: rgb = modulate(texture0.rgb"),
        "{listing}"
    );
    assert!(
        listing.contains("alpha test: keep GPU_GEQUAL 128"),
        "{listing}"
    );
    assert_eq!(r["reflection"]["stage"], "fragment");
    assert!(r["reflection"]["texenv"].is_object(), "{r}");
    // 42 command words.
    assert_eq!(r["size"], 168);
    // Run: the checkerboard's white square at (0.9, 0.9), times vColor and tint.
    let r = server.api(
        "/api/run",
        request(serde_json::json!({
            "inputs": {"vColor": [1, 0.5, 0.25, 1], "vUv": [0.9, 0.9]},
            "uniforms": {"tint": [1, 1, 1, 0.8]},
        })),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["discarded"], false, "{r}");
    let colour: Vec<f64> = r["outputs"][0]["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for (g, w) in colour.iter().zip([1.0, 0.5, 0.25, 0.8]) {
        assert!((g - w).abs() < 2.0 / 255.0, "{colour:?}");
    }
    let r = server.api(
        "/api/run",
        request(serde_json::json!({
            "inputs": {"vColor": [1, 1, 1, 1], "vUv": [0.9, 0.9]},
            "uniforms": {"tint": [1, 1, 1, 0.25]},
        })),
    );
    assert_eq!(r["discarded"], true, "{r}");
    let r = server.api(
        "/api/preview",
        request(serde_json::json!({"uniforms": {"tint": [1, 1, 1, 1]}, "size": "32x32"})),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(r["png"].as_str().unwrap().starts_with("iVBORw0KGgo"));
}

/// The page as a person uses it, in headless Chromium (tests/browser/playground.mjs): typing
/// a shader, the listing, an error marker at its line, the preview, the outputs table.
#[test]
fn the_playground_page_works_in_headless_chromium() {
    let browser_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/browser");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let missing: Vec<&str> = [
        (
            !Path::new(&chromium).exists(),
            "chromium (Debian's chromium package)",
        ),
        (
            Command::new("node").arg("--version").output().is_err(),
            "node",
        ),
        (
            !browser_dir.join("node_modules/playwright-core").exists(),
            "playwright-core (npm ci in tests/browser)",
        ),
    ]
    .into_iter()
    .filter(|(m, _)| *m)
    .map(|(_, what)| what)
    .collect();
    if !missing.is_empty() {
        eprintln!(
            "skipped: the browser test needs {} (.ci/install-browser installs them)",
            missing.join(", ")
        );
        return;
    }
    let server = Server::start();
    let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/playground-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let out = Command::new("node")
        .arg(browser_dir.join("playground.mjs"))
        .env(
            "PLAYGROUND_URL",
            format!("http://127.0.0.1:{}/", server.port),
        )
        .env("SCREENSHOT_DIR", &shots)
        .env("CHROMIUM", &chromium)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the browser test failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("4 passed, 0 failed"),
        "{}",
        text(&out.stdout)
    );
}

/// `--texture` binds a PNG the user gives, `--mesh` reads an OBJ file; a bad one of each is
/// an error with exit 1 and no picture.
#[test]
fn preview_takes_a_texture_and_an_obj_mesh() {
    let dir = scratch("preview-files");
    // A 2x2 texture, all one colour: whatever the shader samples is that colour.
    let tex = dir.join("red.png");
    {
        let mut e = png::Encoder::new(std::fs::File::create(&tex).unwrap(), 2, 2);
        e.set_color(png::ColorType::Rgba);
        e.set_depth(png::BitDepth::Eight);
        e.write_header()
            .unwrap()
            .write_image_data(&[200, 40, 10, 255].repeat(4))
            .unwrap();
    }
    let frag = fixture("glsl/gl_textured.frag.spv");
    let out = dir.join("tex.png");
    let binding = format!("0={}", tex.display());
    let o = retro(&[
        "preview",
        frag.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--size",
        "8x8",
        "--texture",
        &binding,
        "--uniform",
        "tint=1,1,1,1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (_, _, px) = pixels(&out);
    let centre = &px[(4 * 8 + 4) * 4..(4 * 8 + 4) * 4 + 4];
    // gl_textured is texel * vColor * tint; vColor holds the quad's coordinates (u, v, 0, 1),
    // so the centre is about (0.78 u, 0.16 v, 0) of the red texel: red, a little green, no
    // blue, where the built-in checkerboard would be grey or white.
    assert!(
        centre[0] > 80 && centre[1] < 40 && centre[2] < 5,
        "{centre:?}"
    );
    // An OBJ triangle covering the middle of the picture, drawn by a vertex shader.
    let obj = dir.join("tri.obj");
    std::fs::write(
        &obj,
        "v -0.9 -0.9 0\nv 0.9 -0.9 0\nv 0 0.9 0\nvn 0 0 1\nf 1//1 2//1 3//1\n",
    )
    .unwrap();
    let vert = fixture("glsl/mvp_color.vert.spv");
    let o = retro(&[
        "preview",
        vert.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--size",
        "16x16",
        "--mesh",
        obj.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (_, _, px) = pixels(&out);
    let at = |x: usize, y: usize| px[(y * 16 + x) * 4..(y * 16 + x) * 4 + 4].to_vec();
    assert_ne!(
        at(8, 10),
        at(0, 0),
        "the triangle covers the middle, not the corner"
    );
    // A broken OBJ, an oversized PNG header: refused, no file.
    std::fs::write(&obj, "v 0 0 0\nf 1 2 3\n").unwrap();
    let none = dir.join("none.png");
    let o = retro(&[
        "preview",
        vert.to_str().unwrap(),
        "-o",
        none.to_str().unwrap(),
        "--mesh",
        obj.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("OBJ line 2"),
        "{}",
        text(&o.stderr)
    );
    {
        let mut e = png::Encoder::new(std::fs::File::create(&tex).unwrap(), 5000, 1);
        e.set_color(png::ColorType::Grayscale);
        e.write_header()
            .unwrap()
            .write_image_data(&vec![0; 5000])
            .unwrap();
    }
    let o = retro(&[
        "preview",
        frag.to_str().unwrap(),
        "-o",
        none.to_str().unwrap(),
        "--texture",
        &binding,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("at most 4096"),
        "{}",
        text(&o.stderr)
    );
    assert!(!none.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The server's resident memory in KiB (Linux), for the bounded-memory check.
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The API's robustness under what a public page meets: malformed requests of every kind
/// from 8 clients at once (400 requests), bodies over the limit, clients that trickle their
/// request a byte at a time and would hold every worker forever, and clients that hang up
/// half-way. The server answers every complete request, cuts the trickling ones off after
/// its I/O deadline, answers a good request while they are connected, and its memory stays
/// bounded. Loopback only, bounded in count and time.
#[test]
fn the_playground_keeps_answering_bad_slow_and_concurrent_clients_in_bounded_memory() {
    use std::time::{Duration, Instant};
    let server = Server::start();
    let port = server.port;
    let good = serde_json::json!({"source": VERT, "language": "glsl", "target": "agal", "stage": "vertex"})
        .to_string();
    // Warm up, then measure.
    assert_eq!(
        server.request("POST", "/api/compile", good.as_bytes()).0,
        200
    );
    let before = resident_kib(server.child.id());

    // 1. Eight clients, fifty requests each, of eight kinds.
    fn raw(port: u16, bytes: Vec<u8>) -> Option<u16> {
        let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
        let _ = s.write_all(&bytes);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        text(answer.get(9..12)?).parse().ok()
    }
    fn post(path: &str, body: &[u8]) -> Vec<u8> {
        let mut r = format!(
            "POST {path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        r.extend_from_slice(body);
        r
    }
    let clients: Vec<_> = (0..8u32)
        .map(|client| {
            let good = good.clone();
            std::thread::spawn(move || {
                let mut statuses = Vec::new();
                for k in 0..50u32 {
                    let request = match (client + k) % 8 {
                        0 => post("/api/compile", good.as_bytes()),
                        1 => post("/api/compile", b"{\"source\": 12, \"language\": []}"),
                        2 => post("/api/run", b"not json at all \xff\xfe"),
                        3 => b"POST /api/compile HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n"
                            .to_vec(),
                        4 => {
                            let mut r = b"GET / HTTP/1.1\r\n".to_vec();
                            r.extend(std::iter::repeat_n(b'x', 20_000));
                            r.extend_from_slice(b": y\r\n\r\n");
                            r
                        }
                        5 => {
                            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n".to_vec()
                        }
                        // Hangs up with half its body sent.
                        6 => {
                            b"POST /api/compile HTTP/1.1\r\nContent-Length: 1000\r\n\r\n{\"source\""
                                .to_vec()
                        }
                        _ => post(
                            "/api/preview",
                            b"{\"source\": \"\", \"size\": \"99999x99999\"}",
                        ),
                    };
                    statuses.push(((client + k) % 8, raw(port, request)));
                }
                statuses
            })
        })
        .collect();
    let mut answered = 0;
    for c in clients {
        for (kind, status) in c.join().unwrap() {
            match kind {
                0 => assert_eq!(status, Some(200), "a good request"),
                6 => assert!(status.is_none_or(|s| s == 400 || s == 408), "{status:?}"),
                _ => assert!(
                    status.is_some_and(|s| (200..600).contains(&s)),
                    "kind {kind}: {status:?}"
                ),
            }
            answered += status.is_some() as usize;
        }
    }
    assert!(answered >= 350, "{answered} of 400 answered");

    // 2. Trickling clients: more than the server has workers, a byte a second.
    let start = Instant::now();
    let slow: Vec<_> = (0..6)
        .map(|_| {
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                let request = b"POST /api/compile HTTP/1.1\r\nContent-Length: 100\r\n\r\n";
                for &b in request.iter().chain([b'{'; 40].iter()) {
                    if s.write_all(&[b]).is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1000));
                    if start.elapsed() > Duration::from_secs(30) {
                        break;
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // A good request while they trickle: answered once the deadline cuts them (10 s).
    let asked = Instant::now();
    assert_eq!(
        server.request("POST", "/api/compile", good.as_bytes()).0,
        200
    );
    let waited = asked.elapsed();
    assert!(
        waited < Duration::from_secs(20),
        "answered after {waited:?}"
    );
    for s in slow {
        s.join().unwrap();
    }

    // 3. Memory: what the load left behind is bounded.
    if let (Some(before), Some(after)) = (before, resident_kib(server.child.id())) {
        eprintln!("server resident memory: {before} KiB before, {after} KiB after the load");
        assert!(after < before + 256 * 1024, "{before} KiB -> {after} KiB");
    }
    assert_eq!(server.request("GET", "/", b"").0, 200, "still answering");
}
