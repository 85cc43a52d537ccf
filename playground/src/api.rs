//! The playground's JSON API, for the page and for tools.
//!
//! Every endpoint takes the same request (`source`, `language`, `target`, `stage`,
//! `profile`, and for `run`/`preview` `inputs`, `uniforms`, `mesh`, `size`) and answers
//! `ok` and `diagnostics` (`severity`, `rule`, `message`, `line`, `column`: the author's line
//! and column, 1-based, when known) besides its own fields:
//!
//! - `POST /api/compile`: `listing` (the target's assembly), `lines` (per listing line the
//!   source line it came from, or null), `reflection`, `bytes` (hex), `size`;
//! - `POST /api/run`: `inputs` and `outputs` (name, register, value), `discarded`, and a
//!   geometry program's `emitted` vertices;
//! - `POST /api/preview`: `png` (base64).
//!
//! A fragment shader compiled for the PICA200 (`target` `pica`, `stage` `fragment`) is the
//! texture combiners' configuration: its listing has a line per stage, its bytes are the GPU
//! command list, `run` gives its colour (or says the alpha test discarded it) from its
//! varyings and stage-colour uniforms, and `preview` shades the full-screen quad; textures
//! are the built-in ones.
//!
//! Languages: `glsl`, `wgsl`, `spvasm` (SPIR-V assembly), `pica` (picasso source) and `agal`
//! (AGALMiniAssembler text). Assembly has no names: its reflection names each register after
//! itself (`v0`, `va1`, `o1`), and AGAL's constant file is one uniform, `vc` or `fc`, filled
//! from register 0 on.

use std::collections::BTreeMap;

use machine::reflect::Reflection;
use serde::Deserialize;
use serde_json::{Value as Json, json};

use spv2retro::{Options, Profile, Source, Stage};

/// A request to any endpoint.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct Request {
    /// The text.
    pub source: String,
    /// `glsl` (default), `wgsl`, `spvasm`, `pica` or `agal`.
    pub language: Option<String>,
    /// `pica` or `agal` (default: agal for a fragment shader, else pica).
    pub target: Option<String>,
    /// `vertex` (default), `fragment` or `geometry`.
    pub stage: Option<String>,
    /// A Stage3D profile (default `baseline`).
    pub profile: Option<String>,
    /// Input values by name.
    pub inputs: BTreeMap<String, Vec<f32>>,
    /// Uniform values by name.
    pub uniforms: BTreeMap<String, Vec<f32>>,
    /// `cube` (default), `sphere` or `quad`.
    pub mesh: Option<String>,
    /// `WxH` (default 256x256, at most 512x512).
    pub size: Option<String>,
}

/// A diagnostic as the API spells it.
fn diagnostic(severity: &str, rule: &str, message: &str, at: Option<(usize, usize)>) -> Json {
    json!({
        "severity": severity,
        "rule": rule,
        "message": message,
        "line": at.map(|a| a.0),
        "column": at.map(|a| a.1),
    })
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// `name:line:column` → (line, column).
fn position(source: &str) -> Option<(usize, usize)> {
    let mut parts = source.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((line, column))
}

fn diagnostics_json(d: &mir::Diagnostics, text: &str) -> Vec<Json> {
    d.0.iter()
        .map(|d| {
            let at = d
                .source
                .as_deref()
                .and_then(position)
                .or_else(|| d.text_range.as_ref().map(|r| line_column(text, r.start)));
            let severity = match d.severity {
                mir::Severity::Error => "error",
                mir::Severity::Warning => "warning",
            };
            let mut message = d.message.clone();
            for n in &d.notes {
                message.push('\n');
                message.push_str(n);
            }
            diagnostic(severity, d.rule, &message, at)
        })
        .collect()
}

/// A compiled or assembled program.
struct Built {
    bytes: Vec<u8>,
    listing: String,
    /// Per instruction, the source line (compiled shaders).
    source_lines: Vec<Option<u32>>,
    reflection: Reflection,
    warnings: Vec<Json>,
}

fn stage_of(r: &Request) -> Result<Stage, Vec<Json>> {
    match r.stage.as_deref().unwrap_or("vertex") {
        "vertex" => Ok(Stage::Vertex),
        "fragment" => Ok(Stage::Fragment),
        "geometry" => Ok(Stage::Geometry),
        other => Err(vec![diagnostic(
            "error",
            "api.request",
            &format!("stage `{other}`: expected vertex, fragment or geometry"),
            None,
        )]),
    }
}

fn profile_of(r: &Request) -> Result<Profile, Vec<Json>> {
    r.profile
        .as_deref()
        .unwrap_or("baseline")
        .parse()
        .map_err(|e| vec![diagnostic("error", "api.request", &format!("{e}"), None)])
}

/// Builds the program the request describes.
fn build(r: &Request) -> Result<Built, Vec<Json>> {
    let stage = stage_of(r)?;
    let profile = profile_of(r)?;
    let language = r.language.as_deref().unwrap_or("glsl");
    let agal = match r.target.as_deref() {
        Some("agal") => true,
        Some("pica") => false,
        None => stage == Stage::Fragment || language == "agal",
        Some(other) => {
            return Err(vec![diagnostic(
                "error",
                "api.request",
                &format!("target `{other}`: expected pica or agal"),
                None,
            )]);
        }
    };
    let text = r.source.as_str();
    // Assembly is for its own target, whatever the request says.
    let (source, agal) = match language {
        "glsl" => (Source::glsl(text, stage), agal),
        "wgsl" => (Source::wgsl(text), agal),
        "spvasm" => (Source::spirv_text(text), agal),
        "pica" => (Source::picasso(text), false),
        "agal" => {
            let stage = if stage == Stage::Fragment {
                Stage::Fragment
            } else {
                Stage::Vertex
            };
            (Source::agal_assembly(text, stage), true)
        }
        other => {
            return Err(vec![diagnostic(
                "error",
                "api.request",
                &format!("language `{other}`: expected glsl, wgsl, spvasm, pica or agal"),
                None,
            )]);
        }
    };
    let mut options = if agal {
        Options::agal(profile)
    } else {
        Options::pica()
    };
    options.stage = Some(stage);
    let c = spv2retro::compile(source.named("shader"), &options).map_err(|e| {
        let mut d = diagnostics_json(e.diagnostics(), text);
        if d.is_empty() {
            d.push(diagnostic("error", "api.compile", &e.to_string(), None));
        }
        d
    })?;
    Ok(Built {
        source_lines: c.source_lines,
        warnings: diagnostics_json(&c.warnings, text),
        bytes: c.bytes,
        listing: c.listing,
        reflection: c.reflection,
    })
}

/// For each line of `listing`, the source line of the instruction on it: instructions are
/// the lines that are not directives (`.proc`, `.end`, `.else`…), labels, comments or blank,
/// in program order, one per word or token.
fn listing_lines(listing: &str, source_lines: &[Option<u32>]) -> Vec<Json> {
    let mut next = source_lines.iter();
    listing
        .lines()
        .map(|l| {
            let code = l.split(';').next().unwrap_or("").trim();
            let instruction = !code.is_empty() && !code.starts_with('.') && !code.ends_with(':');
            match instruction
                .then(|| next.next())
                .flatten()
                .copied()
                .flatten()
            {
                Some(n) => json!(n),
                None => Json::Null,
            }
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `POST /api/compile`.
pub fn compile(r: &Request) -> Json {
    match build(r) {
        Ok(b) => {
            let lines = listing_lines(&b.listing, &b.source_lines);
            json!({
                "ok": true,
                "listing": b.listing,
                "lines": lines,
                "reflection": serde_json::to_value(&b.reflection).unwrap_or(Json::Null),
                "diagnostics": b.warnings,
                "bytes": hex(&b.bytes),
                "size": b.bytes.len(),
            })
        }
        Err(d) => json!({
            "ok": false,
            "listing": "",
            "lines": [],
            "reflection": null,
            "diagnostics": d,
            "bytes": "",
            "size": 0,
        }),
    }
}

fn values(r: &Request) -> preview::Values {
    preview::Values {
        inputs: r
            .inputs
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        uniforms: r
            .uniforms
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        textures: Vec::new(),
    }
}

fn failed(d: Vec<Json>) -> Json {
    json!({ "ok": false, "diagnostics": d })
}

fn preview_failure(e: preview::Error) -> Json {
    failed(vec![diagnostic("error", "preview", &e.to_string(), None)])
}

/// `POST /api/run`.
pub fn run(r: &Request) -> Json {
    let b = match build(r) {
        Ok(b) => b,
        Err(d) => return failed(d),
    };
    let program = preview::Program {
        bytes: &b.bytes,
        reflection: &b.reflection,
    };
    match preview::run(program, &values(r)) {
        Ok(out) => {
            let mut j = crate::outputs_json(&out);
            j["ok"] = json!(true);
            j["diagnostics"] = json!(b.warnings);
            j
        }
        Err(e) => preview_failure(e),
    }
}

/// The largest preview the server draws.
pub const MAX_PREVIEW: u32 = 512;

/// `POST /api/preview`.
pub fn preview(r: &Request) -> Json {
    let b = match build(r) {
        Ok(b) => b,
        Err(d) => return failed(d),
    };
    let (w, h) = match crate::parse_size(r.size.as_deref().unwrap_or("256x256")) {
        Ok((w, h)) if w <= MAX_PREVIEW && h <= MAX_PREVIEW => (w, h),
        Ok((w, h)) => {
            return failed(vec![diagnostic(
                "error",
                "api.request",
                &format!(
                    "a preview of {w}x{h}: the playground draws at most {MAX_PREVIEW}x{MAX_PREVIEW}"
                ),
                None,
            )]);
        }
        Err(e) => return failed(vec![diagnostic("error", "api.request", &e, None)]),
    };
    let mesh = match preview::mesh::builtin(r.mesh.as_deref().unwrap_or("cube")) {
        Some(m) => m,
        None => {
            return failed(vec![diagnostic(
                "error",
                "api.request",
                "mesh: expected cube, sphere or quad",
                None,
            )]);
        }
    };
    let program = preview::Program {
        bytes: &b.bytes,
        reflection: &b.reflection,
    };
    let values = values(r);
    let scene = if b.reflection.stage == "fragment" {
        preview::Scene::Fragment {
            program,
            values: &values,
        }
    } else {
        preview::Scene::Vertex {
            program,
            values: &values,
            mesh: &mesh,
        }
    };
    match preview::render(scene, w, h, &mut |_, _| {}).and_then(|f| f.png()) {
        Ok(png) => json!({
            "ok": true,
            "png": base64(&png),
            "diagnostics": b.warnings,
        }),
        Err(e) => preview_failure(e),
    }
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn positions_read_as_line_and_column() {
        assert_eq!(position("shader:3:14"), Some((3, 14)));
        assert_eq!(position("a:b:3:1"), Some((3, 1)));
        assert_eq!(line_column("ab\ncd\nef", 7), (3, 2));
        // An offset inside a character, or past the end, is never a panic.
        assert_eq!(line_column("é\nx", 1), (1, 1));
        assert_eq!(line_column("ab", 99), (1, 3));
    }
}
