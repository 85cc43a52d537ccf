//! Classic GLSL in: GLSL ES 1.00 and 3.00, desktop GLSL 1.10–1.50 and 3.30, and 4.x without
//! explicit locations, as WebGL, OpenFL, Starling and OpenGL authors write it, rewritten into
//! the Vulkan-style GLSL 450 that naga's front end reads.
//!
//! The rewrite works on tokens and keeps everything else byte for byte, so naga still parses
//! and type-checks the author's own code; what changes is only what Vulkan-style GLSL spells
//! differently:
//! - `#version` becomes `#version 450` (added when absent); `#extension` lines are dropped with
//!   a warning (what they enable is either in 450 or refused later by a named rule);
//! - `attribute`, `varying`, and global `in`/`out` without a location get one, in declaration
//!   order (a vertex shader's outputs and a fragment shader's inputs; for a pair, the
//!   fragment shader's varyings take the vertex shader's locations by name);
//! - a loose uniform becomes a one-member uniform block (std140, set 2, bindings in
//!   declaration order), so its register follows the declaration order and its name is kept;
//!   a uniform block without a binding gets the next one;
//! - a combined sampler (`uniform sampler2D t;`) becomes a texture at binding k (the k-th
//!   sampler declared) and a sampler object, and `texture2D(t, uv)` becomes
//!   `texture(sampler2D(t, …), uv)`; `texture2D`, `textureCube`, `texture2DProj`,
//!   `texture2DLod` and their `EXT` forms become their 450 names;
//! - `gl_FragColor` and `gl_FragData[n]` become outputs at location 0 and n;
//! - a row-major matrix (`layout(row_major)` on the default, a block, a member or a loose
//!   uniform) is declared as its transposed type, which holds the same registers by column,
//!   and read through `transpose(…)`: naga has no matrix layouts.
//!
//! Every byte of the rewritten text remembers where it came from, so naga's errors are
//! reported at the author's line and column, never in the rewritten text.

use crate::rules::Rule;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use mir::Diagnostic;

use crate::{Hints, Stage, UniformHint};

/// The GLSL a shader is written in, from its `#version` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// GLSL ES, with its version (100, 300, 310, 320).
    Es(u32),
    /// Desktop GLSL, with its version (110 … 460).
    Desktop(u32),
}

impl Dialect {
    /// Older than 4.x: `#extension` lines are dropped.
    fn is_classic(self) -> bool {
        match self {
            Dialect::Es(_) => true,
            Dialect::Desktop(v) => v < 400,
        }
    }
}

/// The rewritten shader.
#[derive(Debug)]
pub(crate) struct Rewritten {
    /// What naga reads.
    pub text: String,
    /// Warnings about the author's text (their ranges are in it).
    pub warnings: Vec<Diagnostic>,
    /// The varyings by name and location: a vertex shader's outputs, a fragment shader's
    /// inputs.
    pub varyings: Vec<(String, u32)>,
    /// What lowering must be told: loose scalar `uniform bool`s (stored as ints in blocks
    /// for naga) get back their bool registers, and row-major matrix uniforms (stored
    /// column-major as their transposed type and read through `transpose`) their layout.
    pub hints: Hints,
    /// (rewritten offset, original offset, whether the bytes are the author's): the map
    /// back, one entry per piece, in order.
    pieces: crate::map::Pieces,
}

impl Rewritten {
    /// The author's byte range for a range of this text.
    pub fn original(&self, range: Range<usize>) -> Range<usize> {
        self.pieces.original(range)
    }
}

/// How a stage's interface is named in GLSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    Punct,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    range: Range<usize>,
    /// Inside a preprocessor line.
    directive: bool,
}

/// A preprocessor line: its range (without the line break) and its first word.
#[derive(Clone, Debug)]
struct Directive {
    range: Range<usize>,
    word: String,
}

/// Splits `text` into tokens (comments dropped) and preprocessor lines.
fn scan(text: &str) -> (Vec<Tok>, Vec<Directive>) {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut directives = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    let mut directive_end: Option<usize> = None;
    while i < b.len() {
        if directive_end.is_some_and(|e| i >= e) {
            directive_end = None;
        }
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i = (i + 2).min(b.len());
            continue;
        }
        if c == b'#' && line_start && directive_end.is_none() {
            // To the end of the line, with `\` continuations.
            let mut e = i;
            while e < b.len() && b[e] != b'\n' {
                if b[e] == b'\\' && b.get(e + 1) == Some(&b'\n') {
                    e += 2;
                    continue;
                }
                e += 1;
            }
            let mut w = i + 1;
            while w < e && (b[w] == b' ' || b[w] == b'\t') {
                w += 1;
            }
            let mut we = w;
            while we < e && (b[we].is_ascii_alphanumeric() || b[we] == b'_') {
                we += 1;
            }
            directives.push(Directive {
                range: i..e,
                word: text[w..we].to_string(),
            });
            directive_end = Some(e);
            i = we;
            line_start = false;
            continue;
        }
        line_start = false;
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            while i < b.len() {
                let d = b[i];
                let exponent_sign = (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E');
                if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || exponent_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            Kind::Number
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            Kind::Punct
        };
        toks.push(Tok {
            kind,
            range: start..i,
            directive: directive_end.is_some(),
        });
    }
    (toks, directives)
}

/// A change: `range` of the author's text becomes `text`.
#[derive(Clone, Debug)]
struct Edit {
    range: Range<usize>,
    text: String,
}

/// The texture functions of older GLSL and their 450 names.
const RENAMED: &[(&str, &str)] = &[
    ("texture2D", "texture"),
    ("texture2DProj", "textureProj"),
    ("texture2DLod", "textureLod"),
    ("texture2DProjLod", "textureProjLod"),
    ("textureCube", "texture"),
    ("textureCubeLod", "textureLod"),
    ("texture3D", "texture"),
    ("texture3DLod", "textureLod"),
    ("shadow2D", "texture"),
    ("texture2DLodEXT", "textureLod"),
    ("texture2DProjLodEXT", "textureProjLod"),
    ("textureCubeLodEXT", "textureLod"),
    ("texture2DGradEXT", "textureGrad"),
    ("texture2DProjGradEXT", "textureProjGrad"),
    ("textureCubeGradEXT", "textureGrad"),
];

/// Functions whose first argument is a sampler (and every `texture…`/`texel…` function).
const SAMPLING: &[&str] = &[
    "texture",
    "textureProj",
    "textureLod",
    "textureProjLod",
    "textureGrad",
    "textureProjGrad",
    "textureOffset",
    "textureLodOffset",
    "textureProjOffset",
    "texelFetch",
    "texelFetchOffset",
    "textureSize",
    "textureGather",
];

/// Qualifiers that may come before a declaration's type.
const QUALIFIERS: &[&str] = &[
    "invariant",
    "precise",
    "flat",
    "smooth",
    "noperspective",
    "centroid",
    "sample",
    "highp",
    "mediump",
    "lowp",
    "const",
    "attribute",
    "varying",
    "in",
    "out",
    "uniform",
];

/// Opaque uniform types and the texture type each becomes.
fn texture_type(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "sampler2D" | "sampler2DShadow" => "texture2D",
        "samplerCube" | "samplerCubeShadow" => "textureCube",
        "sampler3D" => "texture3D",
        "sampler2DArray" | "sampler2DArrayShadow" => "texture2DArray",
        "isampler2D" => "itexture2D",
        "usampler2D" => "utexture2D",
        _ => return None,
    })
}

/// The locations a varying or attribute of type `ty` takes.
fn locations(ty: &str) -> u32 {
    match ty {
        "mat2" | "mat2x2" | "mat2x3" | "mat2x4" => 2,
        "mat3" | "mat3x3" | "mat3x2" | "mat3x4" => 3,
        "mat4" | "mat4x4" | "mat4x2" | "mat4x3" => 4,
        _ => 1,
    }
}

/// A matrix type's columns: how many, and their vector type (`mat3x2` is three `vec2`s).
fn matrix_columns(ty: &str) -> Option<(u32, &'static str)> {
    let dims = ty.strip_prefix("mat")?;
    let (c, r) = match dims.split_once('x') {
        Some((c, r)) => (c, r),
        None => (dims, dims),
    };
    let column = match r {
        "2" => "vec2",
        "3" => "vec3",
        "4" => "vec4",
        _ => return None,
    };
    let columns = match c {
        "2" => 2,
        "3" => 3,
        "4" => 4,
        _ => return None,
    };
    Some((columns, column))
}

/// The element count of array brackets as written (`""` is 1, `[2][3]` is 6); `None` when a
/// length is not a number.
fn decls_count(brackets: &str) -> Option<u32> {
    brackets
        .split('[')
        .skip(1)
        .map(|b| {
            b.trim_end()
                .trim_end_matches(']')
                .trim()
                .parse::<u32>()
                .ok()
        })
        .try_fold(1u32, |n, c| Some(n * c?))
}

/// The value of a uniform's initializer `text` for type `ty`, lanes in register order (a
/// matrix's columns each padded to four lanes); `None` unless it is numbers, `true`/`false`
/// and constructors of them that fit the type.
fn default_value(ty: &str, text: &str) -> Option<Vec<f32>> {
    let words: Vec<String> = {
        let mut out = Vec::new();
        let mut cur = String::new();
        for c in text.chars() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                cur.push(c);
            } else {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                if !c.is_whitespace() {
                    out.push(c.to_string());
                }
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    };
    let mut k = 0;
    let values = constant(&words, &mut k, 0)?;
    if k != words.len() {
        return None;
    }
    let (columns, rows) = match matrix_columns(ty) {
        Some((c, col)) => (c as usize, col[3..].parse::<usize>().ok()?),
        None => (1, vector_size(ty)?),
    };
    let wanted = columns * rows;
    let values = match values.len() {
        1 if columns > 1 => (0..wanted)
            .map(|i| if i / rows == i % rows { values[0] } else { 0.0 })
            .collect(),
        1 => vec![values[0]; rows],
        n if n == wanted => values,
        _ => return None,
    };
    if columns == 1 {
        return Some(values);
    }
    // Each column in a register of its own.
    Some(
        values
            .chunks(rows)
            .flat_map(|c| {
                let mut r = c.to_vec();
                r.resize(4, 0.0);
                r
            })
            .collect(),
    )
}

/// How many components a scalar or vector type has.
fn vector_size(ty: &str) -> Option<usize> {
    match ty {
        "float" | "int" | "uint" | "bool" => Some(1),
        _ => {
            let n = ty
                .strip_prefix(['i', 'u', 'b'])
                .unwrap_or(ty)
                .strip_prefix("vec")?;
            n.parse().ok().filter(|n| (2..=4).contains(n))
        }
    }
}

/// A constant expression of numbers and constructors: its components, flattened (`None`
/// past 64 levels of nesting).
fn constant(words: &[String], k: &mut usize, depth: usize) -> Option<Vec<f32>> {
    if depth > 64 {
        return None;
    }
    let w = words.get(*k)?.as_str();
    *k += 1;
    match w {
        "-" => Some(
            constant(words, k, depth + 1)?
                .into_iter()
                .map(|v| -v)
                .collect(),
        ),
        "+" => constant(words, k, depth + 1),
        "true" => Some(vec![1.0]),
        "false" => Some(vec![0.0]),
        "(" => {
            let v = constant(words, k, depth + 1)?;
            (words.get(*k).map(String::as_str) == Some(")")).then(|| {
                *k += 1;
                v
            })
        }
        _ if w.starts_with(|c: char| c.is_ascii_digit() || c == '.') => {
            let number = w.trim_end_matches(['f', 'F', 'u', 'U']);
            let value = match number
                .strip_prefix("0x")
                .or_else(|| number.strip_prefix("0X"))
            {
                Some(hex) => i64::from_str_radix(hex, 16).ok()? as f32,
                None => number.parse::<f32>().ok()?,
            };
            Some(vec![value])
        }
        _ if builtin_type(w) => {
            if words.get(*k).map(String::as_str) != Some("(") {
                return None;
            }
            *k += 1;
            let mut values = Vec::new();
            loop {
                values.extend(constant(words, k, depth + 1)?);
                match words.get(*k).map(String::as_str) {
                    Some(",") => *k += 1,
                    Some(")") => {
                        *k += 1;
                        break;
                    }
                    _ => return None,
                }
            }
            // A scalar constructor takes the first component; int and bool convert.
            let scalar = |v: f32| match w {
                "int" | "uint" => v.trunc(),
                "bool" => f32::from(u8::from(v != 0.0)),
                _ => v,
            };
            if matches!(w, "float" | "int" | "uint" | "bool") {
                return Some(vec![scalar(*values.first()?)]);
            }
            Some(values.into_iter().map(scalar).collect())
        }
        _ => None,
    }
}

/// One name declared by a statement.
struct Declarator {
    name: String,
    /// Its array brackets, as written.
    arr: String,
    /// How many elements (1 for none; `None` when the length is not a number).
    count: Option<u32>,
    range: Range<usize>,
    /// It has an initial value.
    init: bool,
    /// The initial value's text (after `=`).
    init_text: Option<Range<usize>>,
}

/// The rule of every refusal here.
const RULE: Rule = Rule::GlslClassic;

struct Rewriter<'a> {
    text: &'a str,
    stage: Stage,
    toks: Vec<Tok>,
    edits: Vec<Edit>,
    warnings: Vec<Diagnostic>,
    /// Locations taken, per kind: inputs, outputs.
    used_in: BTreeSet<u32>,
    used_out: BTreeSet<u32>,
    varyings: Vec<(String, u32)>,
    linked: Option<&'a [(String, u32)]>,
    /// Combined samplers: name → (combined type, sampler object's name).
    samplers: BTreeMap<String, (String, String)>,
    /// Functions' combined-sampler parameters: the tokens of the function (parameter list
    /// and body), the name, (combined type, sampler object's name). They hide a uniform
    /// of the same name there.
    scoped_samplers: Vec<(Range<usize>, String, (String, String))>,
    next_texture: u32,
    next_block: u32,
    /// Declarations to add after `#version`.
    globals: Vec<String>,
    /// Statements the `main` wrapper runs before the author's `main` (matrices assembled
    /// from the columns they arrive in) and after it (matrices written out by column).
    prologue: Vec<String>,
    epilogue: Vec<String>,
    /// Uniforms stored as another type than declared: (name, declared type).
    declared: Vec<(String, String)>,
    /// Uniforms' initial values, lanes in register order.
    defaults: Vec<(String, Vec<f32>)>,
    /// Bool uniforms (now ints) by name, with the bool type they are read as.
    bools: BTreeMap<String, String>,
    /// Names given back in the reflection: (as compiled, as the author wrote it).
    renames: Vec<(String, String)>,
    /// `layout(row_major) uniform;` seen: matrices of later blocks are row-major.
    default_row_major: bool,
    /// Row-major matrix uniforms (now column-major, of the transposed type), by member name:
    /// read through `transpose(…)`.
    row_major: BTreeMap<String, RowMajor>,
    /// Tokens that declare those (not reads).
    matrix_decls: BTreeSet<usize>,
    /// `row_major`/`column_major` words taken care of.
    matrix_words: BTreeSet<usize>,
}

/// A row-major matrix uniform.
#[derive(Clone, Debug)]
struct RowMajor {
    /// The block's instance name, when it has one (`inst.m`), and whether it is an array.
    instance: Option<(String, bool)>,
    /// Whether the member is an array of matrices (`m[i]` is one matrix).
    array: bool,
}

/// The column-major type that stores a row-major `ty` (rows become columns): `mat4x3` (four
/// columns of three) is three rows of four, a `mat3x4`.
fn transposed_type(ty: &str) -> Option<String> {
    let dims = ty.strip_prefix("mat")?;
    let dim = |d: &str| matches!(d, "2" | "3" | "4");
    match dims.split_once('x') {
        Some((c, r)) if dim(c) && dim(r) => Some(format!("mat{r}x{c}")),
        None if dim(dims) => Some(ty.to_string()),
        // Not a matrix type (a structure named `matrix…`).
        _ => None,
    }
}

/// Whether `ty` is one of GLSL's own types (not a structure, whose matrices a block's
/// layout would reach too).
fn builtin_type(ty: &str) -> bool {
    matches!(ty, "float" | "int" | "uint" | "bool" | "double")
        || ["vec", "ivec", "uvec", "bvec", "dvec", "mat", "dmat"]
            .iter()
            .any(|p| {
                ty.strip_prefix(p)
                    .is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit()))
            })
}

/// What to do with a `layout(…)` left empty when its matrix words go.
#[derive(Clone, Copy)]
enum Emptied {
    /// `layout(std140)` (a block's, which gets a binding added).
    Std140,
    /// Drop `layout(…)` (a member's).
    Drop,
    /// Drop the whole statement, through this token (`layout(row_major) uniform;`).
    Statement(usize),
}

/// Rewrites `text`, a `stage` shader, into the GLSL naga reads. `linked` are the varyings of
/// the vertex shader a fragment shader is compiled with (by name).
pub(crate) fn rewrite(
    text: &str,
    stage: Stage,
    name: &str,
    linked: Option<&[(String, u32)]>,
) -> Result<Rewritten, Box<Diagnostic>> {
    let (toks, directives) = scan(text);
    let mut r = Rewriter {
        text,
        stage,
        toks,
        edits: Vec::new(),
        warnings: Vec::new(),
        used_in: BTreeSet::new(),
        used_out: BTreeSet::new(),
        varyings: Vec::new(),
        linked,
        samplers: BTreeMap::new(),
        scoped_samplers: Vec::new(),
        next_texture: 0,
        next_block: 0,
        globals: Vec::new(),
        prologue: Vec::new(),
        epilogue: Vec::new(),
        declared: Vec::new(),
        defaults: Vec::new(),
        bools: BTreeMap::new(),
        renames: Vec::new(),
        default_row_major: false,
        row_major: BTreeMap::new(),
        matrix_decls: BTreeSet::new(),
        matrix_words: BTreeSet::new(),
    };
    // The dialect, from `#version`, else ES when the text has precision statements or the
    // file's name says so, else desktop 1.10.
    let version = directives.iter().find(|d| d.word == "version");
    let dialect = match version {
        Some(d) => {
            let words: Vec<&str> = text[d.range.clone()].split_whitespace().skip(1).collect();
            let number: u32 = words
                .first()
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| at(d.range.clone(), "a #version line needs a number"))?;
            if words.get(1) == Some(&"es") || number == 100 {
                Dialect::Es(number)
            } else {
                Dialect::Desktop(number)
            }
        }
        None => {
            let precision = r
                .toks
                .iter()
                .any(|t| !t.directive && r.word(t) == "precision");
            let lower = name.to_ascii_lowercase();
            if precision || lower.contains(".es.") || lower.ends_with(".essl") {
                Dialect::Es(100)
            } else {
                Dialect::Desktop(110)
            }
        }
    };
    for d in &directives {
        match d.word.as_str() {
            "version" => r.edits.push(Edit {
                range: d.range.clone(),
                text: "#version 450".into(),
            }),
            "extension" if dialect.is_classic() => {
                r.warnings.push(ranged(
                    Diagnostic::warning(
                        Rule::GlslExtensionIgnored,
                        format!(
                            "`{}` is ignored: what extensions of this GLSL enable is either \
                             part of the GLSL these shaders compile as, or refused where used",
                            text[d.range.clone()].trim()
                        ),
                    ),
                    d.range.clone(),
                ));
                r.edits.push(Edit {
                    range: d.range.clone(),
                    text: String::new(),
                });
            }
            _ => {}
        }
    }
    r.declarations()?;
    r.matrix_layouts()?;
    r.expressions()?;
    r.precision_qualifiers();
    r.later_keywords(dialect);
    r.wrap_main()?;
    // Where added declarations go: after `#version` (or a new first line).
    let mut added = String::new();
    for g in &r.globals {
        added.push('\n');
        added.push_str(g);
    }
    match version {
        Some(d) => {
            if let Some(e) = r.edits.iter_mut().find(|e| e.range == d.range) {
                e.text.push_str(&added);
            }
        }
        None => r.edits.push(Edit {
            range: 0..0,
            text: format!("#version 450{added}\n"),
        }),
    }
    let (out, pieces) = apply(text, &mut r.edits);
    Ok(Rewritten {
        text: out,
        warnings: r.warnings,
        varyings: r.varyings,
        hints: Hints {
            renames: r.renames,
            uniforms: r
                .bools
                .iter()
                .filter(|(_, ty)| ty.as_str() == "bool")
                .map(|(name, _)| UniformHint::Bool(name.clone()))
                .chain(r.row_major.keys().cloned().map(UniformHint::RowMajor))
                .chain(
                    r.defaults
                        .iter()
                        .map(|(name, values)| UniformHint::Default {
                            name: name.clone(),
                            values: values.clone(),
                        }),
                )
                .chain(
                    r.declared
                        .iter()
                        .map(|(name, type_name)| UniformHint::Declared {
                            name: name.clone(),
                            type_name: type_name.clone(),
                        }),
                )
                .collect(),
        },
        pieces: crate::map::Pieces(pieces),
    })
}

/// An error at `range` of the author's text.
fn at(range: Range<usize>, message: impl Into<String>) -> Box<Diagnostic> {
    Box::new(ranged(Diagnostic::error(RULE, message), range))
}

/// `d` about `range` of the author's text.
pub(crate) fn ranged(mut d: Diagnostic, range: Range<usize>) -> Diagnostic {
    d.text_range = Some(range);
    d
}

/// The text with the edits made, and the map back.
fn apply(text: &str, edits: &mut [Edit]) -> (String, Vec<(usize, usize, bool)>) {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::new();
    let mut pieces = Vec::new();
    let mut pos = 0;
    for e in edits.iter() {
        if e.range.start < pos {
            continue; // overlapping: the first wins (never made by the rewriter)
        }
        pieces.push((out.len(), pos, true));
        out.push_str(&text[pos..e.range.start]);
        pieces.push((out.len(), e.range.start, false));
        out.push_str(&e.text);
        pos = e.range.end;
    }
    pieces.push((out.len(), pos, true));
    out.push_str(&text[pos..]);
    (out, pieces)
}

impl Rewriter<'_> {
    fn word(&self, t: &Tok) -> &str {
        &self.text[t.range.clone()]
    }

    fn w(&self, i: usize) -> &str {
        self.toks.get(i).map_or("", |t| &self.text[t.range.clone()])
    }

    /// The index of the token closing the bracket at `open`.
    fn matching(&self, open: usize) -> Option<usize> {
        let (o, c) = match self.w(open) {
            "(" => ("(", ")"),
            "[" => ("[", "]"),
            "{" => ("{", "}"),
            _ => return None,
        };
        let mut depth = 0;
        for i in open..self.toks.len() {
            if self.toks[i].directive {
                continue;
            }
            let w = self.w(i);
            if w == o {
                depth += 1;
            } else if w == c {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
        }
        None
    }

    fn span(&self, from: usize, to: usize) -> Range<usize> {
        self.toks[from].range.start..self.toks[to].range.end
    }

    /// `row_major` and `column_major` in a `layout(…)` that the declarations did not take
    /// care of (a buffer block, a structure's member): naga's GLSL front end has no matrix
    /// layouts (its IR stores matrices by column), and would only say "Unexpected
    /// qualifier". Refused by name, with the two ways to get what the author wants.
    fn matrix_layouts(&self) -> Result<(), Box<Diagnostic>> {
        for (i, t) in self.toks.iter().enumerate() {
            let w = self.word(t);
            // A loose uniform's declaration is rewritten whole (its layout with it).
            let replaced = self
                .edits
                .iter()
                .any(|e| e.range.start <= t.range.start && t.range.end <= e.range.end);
            if t.directive
                || !matches!(w, "row_major" | "column_major")
                || self.matrix_words.contains(&i)
                || replaced
            {
                continue;
            }
            // Inside `layout(…)`: the nearest bracket before it opens after `layout`.
            let open = (0..i)
                .rev()
                .find(|&k| matches!(self.w(k), "(" | ")" | ";" | "{"));
            let in_layout =
                open.is_some_and(|k| self.w(k) == "(" && k > 0 && self.w(k - 1) == "layout");
            if !in_layout {
                continue;
            }
            let mut d = Diagnostic::error(
                Rule::GlslMatrixLayout,
                format!(
                    "`{w}` is not read here: only uniform blocks, their members and loose \
                     uniforms take a matrix layout in GLSL text (naga's front end has none; \
                     those are rewritten)"
                ),
            )
            .with_note(
                "declare the matrix in a uniform block, or compile with glslang \
                 (`glslangValidator -V shader.vert -o shader.vert.spv`) and pass the .spv",
            );
            d.text_range = Some(t.range.clone());
            return Err(Box::new(d));
        }
        Ok(())
    }

    /// The global declarations: interface variables, uniforms, samplers, blocks.
    fn declarations(&mut self) -> Result<(), Box<Diagnostic>> {
        let code: Vec<usize> = (0..self.toks.len())
            .filter(|&i| !self.toks[i].directive)
            .collect();
        let mut k = 0;
        while k < code.len() {
            // One statement at global scope: to its `;`, or a function body.
            let start = code[k];
            let mut j = k;
            let mut end = None;
            let mut body = false;
            while j < code.len() {
                let i = code[j];
                match self.w(i) {
                    ";" => {
                        end = Some(j);
                        break;
                    }
                    "(" | "[" => {
                        let close = self.matching(i).ok_or_else(|| {
                            at(self.toks[i].range.clone(), "this bracket is never closed")
                        })?;
                        j = code.partition_point(|&c| c < close);
                    }
                    "{" => {
                        let close = self.matching(i).ok_or_else(|| {
                            at(self.toks[i].range.clone(), "this brace is never closed")
                        })?;
                        // A function has a parameter list; a block's `layout(…)` is not one.
                        let is_function = code[k..j]
                            .iter()
                            .any(|&c| self.w(c) == "(" && self.w(c.wrapping_sub(1)) != "layout");
                        j = code.partition_point(|&c| c < close);
                        if is_function {
                            end = Some(j);
                            body = true;
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            let Some(end) = end else {
                break; // an unfinished statement: naga reports it
            };
            if !body {
                let idx: Vec<usize> = code[k..=end].to_vec();
                self.statement(start, &idx)?;
            }
            k = end + 1;
        }
        Ok(())
    }

    /// One global statement (`idx`: its tokens, the `;` last).
    fn statement(&mut self, start: usize, idx: &[usize]) -> Result<(), Box<Diagnostic>> {
        let mut p = 0;
        let mut layout: Option<(usize, usize)> = None; // `layout` … `)`
        let mut quals: Vec<usize> = Vec::new();
        loop {
            let Some(&i) = idx.get(p) else { return Ok(()) };
            let w = self.w(i);
            if w == "layout" {
                let open = idx.get(p + 1).copied().unwrap_or(i);
                let close = self.matching(open).unwrap_or(open);
                layout = Some((i, close));
                p = idx.partition_point(|&c| c <= close);
            } else if QUALIFIERS.contains(&w) {
                quals.push(i);
                p += 1;
            } else {
                break;
            }
        }
        let storage = quals
            .iter()
            .map(|&q| self.w(q))
            .find(|w| matches!(*w, "attribute" | "varying" | "in" | "out" | "uniform"))
            .map(str::to_string);
        let Some(storage) = storage else {
            // `struct S { … };`: a structure with a sampler member, which naga refuses in a
            // structure, is dropped when nothing names it (raylib's fog.fs declares one).
            if idx.get(p).is_some_and(|&i| self.w(i) == "struct") {
                self.unused_sampler_struct(idx);
            }
            return Ok(());
        };
        let end = *idx.last().unwrap_or(&start);
        let layout_text = layout.map(|(a, b)| self.text[self.span(a, b)].to_string());
        let has = |key: &str| {
            layout_text.as_deref().is_some_and(|l| {
                l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .any(|w| w == key)
            })
        };
        // The type, then `{` for a block.
        let Some(&ty_i) = idx.get(p) else {
            return Ok(());
        };
        let ty = self.w(ty_i).to_string();
        if ty == ";" && storage == "uniform" {
            // `layout(row_major) uniform;`: the default for the blocks after it.
            if let Some((kw, close)) = layout {
                let (setting, words) = self.layout_matrix_words(kw + 1, close);
                if let Some(row_major) = setting {
                    self.default_row_major = row_major;
                }
                self.drop_matrix_words(kw, close, &words, Emptied::Statement(end));
            }
            return Ok(());
        }
        if ty == "struct" {
            if storage == "uniform" && layout.is_none() {
                return self.struct_uniform(start, idx, p);
            }
            return Ok(()); // a structure declared in place elsewhere: naga's to judge
        }
        if self.w(idx.get(p + 1).copied().unwrap_or(end)) == "{" {
            if storage == "uniform" {
                self.block_matrices(layout, idx[p + 1])?;
                if !has("binding") {
                    self.block_binding(start, layout)?;
                }
            }
            return Ok(());
        }
        // The type may carry an array (`vec4[2] a;`).
        let mut q = p + 1;
        let mut type_array = String::new();
        while self.w(idx.get(q).copied().unwrap_or(end)) == "[" {
            let open = idx[q];
            let close = self.matching(open).unwrap_or(open);
            type_array.push_str(&self.text[self.span(open, close)]);
            q = idx.partition_point(|&c| c <= close);
        }
        // The declarators: `name [n] (= init)?`, separated by commas.
        let mut decls: Vec<Declarator> = Vec::new();
        while q < idx.len() {
            let i = idx[q];
            if self.toks[i].kind != Kind::Ident {
                return Ok(()); // not a declaration this rewriter knows: naga decides
            }
            let name = self.w(i).to_string();
            let mut arr = String::new();
            let mut count = Some(1);
            q += 1;
            while self.w(idx.get(q).copied().unwrap_or(end)) == "[" {
                let open = idx[q];
                let close = self.matching(open).unwrap_or(open);
                arr.push_str(&self.text[self.span(open, close)]);
                let inner = self.text[self.toks[open].range.end..self.toks[close].range.start]
                    .trim()
                    .parse::<u32>()
                    .ok();
                count = match (count, inner) {
                    (Some(c), Some(n)) => Some(c * n),
                    _ => None,
                };
                q = idx.partition_point(|&c| c <= close);
            }
            let mut init = false;
            let mut init_text: Option<Range<usize>> = None;
            while q < idx.len() && !matches!(self.w(idx[q]), "," | ";") {
                init = true;
                if self.w(idx[q]) != "=" {
                    // Through the matching bracket, which the loop steps over.
                    let last = match self.w(idx[q]) {
                        "(" | "[" | "{" => self.matching(idx[q]).unwrap_or(idx[q]),
                        _ => idx[q],
                    };
                    let r = self.toks[idx[q]].range.start..self.toks[last].range.end;
                    init_text = Some(init_text.map_or(r.clone(), |t| t.start..r.end));
                }
                let i = idx[q];
                q = match self.w(i) {
                    "(" | "[" | "{" => {
                        let close = self.matching(i).unwrap_or(i);
                        idx.partition_point(|&c| c <= close)
                    }
                    _ => q + 1,
                };
            }
            decls.push(Declarator {
                name,
                arr,
                count,
                range: self.toks[i].range.clone(),
                init,
                init_text,
            });
            q += 1;
        }
        if decls.is_empty() || decls.iter().any(|d| d.name.starts_with("gl_")) {
            return Ok(()); // a built-in redeclared: left to naga
        }
        // The qualifiers kept in front of the type (precision, interpolation, …), with the
        // storage word rewritten.
        let stage = self.stage;
        let direction = match (storage.as_str(), stage) {
            ("attribute", _) | ("in", Stage::Vertex) => Some(true),
            ("varying", Stage::Vertex) | ("out", Stage::Vertex) => Some(false),
            ("varying", Stage::Fragment) | ("in", Stage::Fragment) => Some(true),
            ("out", Stage::Fragment) => Some(false),
            _ => None,
        };
        // Precision qualifiers go: the targets have one precision, and naga takes them in
        // few places (see `precision_qualifiers`).
        let kept: Vec<String> = quals
            .iter()
            .map(|&q| self.w(q))
            .filter(|w| {
                !matches!(
                    *w,
                    "attribute"
                        | "varying"
                        | "in"
                        | "out"
                        | "uniform"
                        | "highp"
                        | "mediump"
                        | "lowp"
                )
            })
            .map(str::to_string)
            .collect();
        let kept = if kept.is_empty() {
            String::new()
        } else {
            format!("{} ", kept.join(" "))
        };
        let range = self.span(start, end);
        let mut out = String::new();
        match (storage.as_str(), direction) {
            ("uniform", _) => {
                if let Some(texture) = texture_type(&ty) {
                    for Declarator {
                        name,
                        arr,
                        count,
                        range: r,
                        ..
                    } in &decls
                    {
                        let count = count.ok_or_else(|| {
                            at(r.clone(), "a sampler array needs a number for its length")
                        })?;
                        let binding = match layout_text.as_deref().and_then(binding_of) {
                            Some(b) => b,
                            None => self.next_texture,
                        };
                        self.next_texture = binding + count;
                        let object = format!("spv2retro_sampler_{name}");
                        let shadow = if ty.ends_with("Shadow") {
                            "samplerShadow"
                        } else {
                            "sampler"
                        };
                        out += &format!(
                            "layout(set = 0, binding = {binding}) uniform {kept}{texture} \
                             {name}{type_array}{arr}; layout(set = 1, binding = {binding}) \
                             uniform {shadow} {object};"
                        );
                        self.samplers.insert(name.clone(), (ty.clone(), object));
                    }
                } else {
                    let opaque = [
                        "image", "iimage", "uimage", "texture", "itexture", "utexture",
                    ]
                    .iter()
                    .any(|p| ty.starts_with(p))
                        || ty.contains("sampler")
                        || ty.starts_with("atomic_")
                        || ty.starts_with("subpassInput");
                    if opaque || has("binding") || has("location") {
                        return Ok(()); // the author's own layout, or naga's to judge
                    }
                    for Declarator {
                        name,
                        arr,
                        range: r,
                        init,
                        init_text,
                        ..
                    } in &decls
                    {
                        if *init {
                            // GLSL's default value: the reflection gives it, for the
                            // application to upload (no register keeps a value by itself).
                            let text = init_text.clone().map_or("", |t| &self.text[t]);
                            let values = (arr.is_empty() && type_array.is_empty())
                                .then(|| default_value(&ty, text))
                                .flatten()
                                .ok_or_else(|| {
                                    at(
                                        r.clone(),
                                        format!(
                                            "the uniform `{name}` has an initial value that is \
                                             not a constant this compiler evaluates (numbers, \
                                             `true`/`false` and constructors of them, for a \
                                             uniform that is not an array): set it from the \
                                             application"
                                        ),
                                    )
                                })?;
                            self.defaults.push((name.clone(), values));
                        }
                        let binding = self.next_block;
                        self.next_block += 1;
                        // A bool is not stored in a block: an int (0 or 1) is, read as a bool.
                        let stored = match ty.as_str() {
                            "bool" => "int",
                            "bvec2" => "ivec2",
                            "bvec3" => "ivec3",
                            "bvec4" => "ivec4",
                            other => other,
                        };
                        if stored != ty {
                            self.bools.insert(name.clone(), ty.clone());
                        }
                        // A row-major matrix is stored as its transposed type, by column.
                        let row_major =
                            has("row_major") || (self.default_row_major && !has("column_major"));
                        let transposed = transposed_type(stored).filter(|_| row_major);
                        let stored = transposed.as_deref().unwrap_or(stored);
                        if transposed.is_some() {
                            self.row_major.insert(
                                name.clone(),
                                RowMajor {
                                    instance: None,
                                    array: !arr.is_empty() || !type_array.is_empty(),
                                },
                            );
                        }
                        // A matrix of two-lane columns (`mat2`, `mat3x2`, `mat4x2`) is
                        // stored as its columns in `vec4`s (the same registers, lanes xy),
                        // which naga takes in a block; the author's code reads a matrix
                        // assembled from them before `main`.
                        if let Some((columns, "vec2")) = matrix_columns(stored) {
                            let count: u32 = match (decls_count(arr), decls_count(&type_array)) {
                                (Some(a), Some(b)) => a * b,
                                _ => {
                                    return Err(at(
                                        r.clone(),
                                        format!(
                                            "the length of the uniform `{name}` must be a \
                                             number"
                                        ),
                                    ));
                                }
                            };
                            let block = format!("spv2retro_block_{name}");
                            out += &format!(
                                "layout(std140, set = 2, binding = {binding}) uniform \
                                 spv2retro_uniform_{name} {{ vec4 {name}[{}]; }} {block}; \
                                 {stored}{type_array} {name}{arr};",
                                count * columns
                            );
                            let element = |k: u32| {
                                let cols: Vec<String> = (0..columns)
                                    .map(|c| format!("{block}.{name}[{}].xy", k * columns + c))
                                    .collect();
                                format!("{stored}({})", cols.join(", "))
                            };
                            self.declared.push((
                                name.clone(),
                                if count == 1 {
                                    stored.to_string()
                                } else {
                                    format!("{stored}[{count}]")
                                },
                            ));
                            if arr.is_empty() && type_array.is_empty() {
                                self.prologue.push(format!("{name} = {};", element(0)));
                            } else {
                                for k in 0..count {
                                    self.prologue.push(format!("{name}[{k}] = {};", element(k)));
                                }
                            }
                            continue;
                        }
                        out += &format!(
                            "layout(std140, set = 2, binding = {binding}) uniform \
                             spv2retro_uniform_{name} {{ {kept}{stored}{type_array} {name}{arr}; }};"
                        );
                    }
                }
            }
            (_, Some(input)) => {
                if has("location") {
                    if let Some(l) = layout_text.as_deref().and_then(location_of) {
                        if input {
                            self.used_in.insert(l);
                        } else {
                            self.used_out.insert(l);
                        }
                        if stage == Stage::Vertex && !input {
                            self.varyings.push((decls[0].name.clone(), l));
                        }
                    }
                    return Ok(());
                }
                let word = if input { "in" } else { "out" };
                let other = layout_text
                    .as_deref()
                    .map(|l| {
                        l.trim_start_matches("layout")
                            .trim()
                            .trim_start_matches('(')
                            .trim_end_matches(')')
                            .to_string()
                    })
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| format!(", {l}"))
                    .unwrap_or_default();
                for Declarator {
                    name, arr, count, ..
                } in &decls
                {
                    let size = locations(&ty) * count.unwrap_or(1);
                    let varying =
                        (stage == Stage::Vertex && !input) || (stage == Stage::Fragment && input);
                    let location = match (varying && input, self.linked) {
                        (true, Some(linked)) => linked
                            .iter()
                            .find(|(n, _)| n == name)
                            .map(|&(_, l)| l)
                            .unwrap_or_else(|| self.free(input, size)),
                        _ => self.free(input, size),
                    };
                    for l in location..location + size {
                        if input {
                            self.used_in.insert(l);
                        } else {
                            self.used_out.insert(l);
                        }
                    }
                    if varying {
                        self.varyings.push((name.clone(), location));
                    }
                    // A matrix arrives (or leaves) as its columns, one location each: naga
                    // takes no matrix at the interface. The author's code keeps a matrix
                    // variable, assembled before `main` and written out after it.
                    if let Some((columns, column)) = matrix_columns(&ty).filter(|_| size > 1) {
                        if !arr.is_empty() || !type_array.is_empty() {
                            return Err(at(
                                self.toks[ty_i].range.clone(),
                                format!(
                                    "an array of matrices as an attribute or varying (`{name}`) \
                                     is not taken: declare one matrix per name"
                                ),
                            ));
                        }
                        let column_names: Vec<String> = (0..columns)
                            .map(|c| format!("spv2retro_{name}_{c}"))
                            .collect();
                        for (c, column_name) in column_names.iter().enumerate() {
                            out += &format!(
                                "layout(location = {}{other}) {kept}{word} {column} \
                                 {column_name};",
                                location + c as u32
                            );
                            self.renames
                                .push((column_name.clone(), format!("{name}[{c}]")));
                        }
                        out += &format!(" {ty} {name};");
                        if input {
                            self.prologue
                                .push(format!("{name} = {ty}({});", column_names.join(", ")));
                        } else {
                            for (c, column_name) in column_names.iter().enumerate() {
                                self.epilogue.push(format!("{column_name} = {name}[{c}];"));
                            }
                        }
                        continue;
                    }
                    out += &format!(
                        "layout(location = {location}{other}) {kept}{word} {ty}{type_array} \
                         {name}{arr};"
                    );
                }
            }
            _ => return Ok(()),
        }
        self.edits.push(Edit { range, text: out });
        Ok(())
    }

    /// `uniform struct [S] { members } x, y[2];`: the structure declared on its own (named
    /// `spv2retro_struct_x` when it has no name), then each name a loose uniform of it.
    fn struct_uniform(
        &mut self,
        start: usize,
        idx: &[usize],
        p: usize,
    ) -> Result<(), Box<Diagnostic>> {
        let end = *idx.last().unwrap_or(&start);
        let mut q = p + 1;
        let named = self.toks[idx[q.min(idx.len() - 1)]].kind == Kind::Ident;
        let given = named.then(|| self.w(idx[q]).to_string());
        if named {
            q += 1;
        }
        let Some(&open) = idx.get(q).filter(|&&i| self.w(i) == "{") else {
            return Ok(());
        };
        let close = self.matching(open).unwrap_or(open);
        // The members as written, without precision qualifiers.
        let members: Vec<&str> = (open + 1..close)
            .filter(|&i| !self.toks[i].directive)
            .map(|i| self.w(i))
            .filter(|w| !matches!(*w, "highp" | "mediump" | "lowp"))
            .collect();
        if members.iter().any(|w| texture_type(w).is_some()) {
            return Ok(()); // a sampler member: naga's to judge
        }
        // The declarators after `}`.
        let mut names: Vec<(String, String)> = Vec::new(); // (name, array brackets)
        let mut q = idx.partition_point(|&c| c <= close);
        while q < idx.len() && self.w(idx[q]) != ";" {
            let i = idx[q];
            if self.toks[i].kind != Kind::Ident {
                return Ok(());
            }
            let mut arr = String::new();
            q += 1;
            while q < idx.len() && self.w(idx[q]) == "[" {
                let c = self.matching(idx[q]).unwrap_or(idx[q]);
                arr.push_str(&self.text[self.span(idx[q], c)]);
                q = idx.partition_point(|&x| x <= c);
            }
            if q < idx.len() && self.w(idx[q]) == "=" {
                return Err(at(
                    self.toks[i].range.clone(),
                    format!(
                        "the uniform `{}` has an initial value: set it from the application",
                        self.w(i)
                    ),
                ));
            }
            names.push((self.w(i).to_string(), arr));
            if q < idx.len() && self.w(idx[q]) == "," {
                q += 1;
            }
        }
        let Some(first) = names.first() else {
            return Ok(());
        };
        let ty = given.unwrap_or_else(|| format!("spv2retro_struct_{}", first.0));
        let mut out = format!("struct {ty} {{ {} }};", members.join(" "));
        for (name, arr) in &names {
            let binding = self.next_block;
            self.next_block += 1;
            out += &format!(
                " layout(std140, set = 2, binding = {binding}) uniform spv2retro_uniform_{name} \
                 {{ {ty} {name}{arr}; }};"
            );
        }
        self.edits.push(Edit {
            range: self.span(start, end),
            text: out,
        });
        Ok(())
    }

    /// A global `struct S { … };` with a sampler member that nothing else names: dropped.
    fn unused_sampler_struct(&mut self, idx: &[usize]) {
        let (Some(&kw), Some(&last)) = (idx.first(), idx.last()) else {
            return;
        };
        let Some(&name) = idx.get(1).filter(|&&i| self.toks[i].kind == Kind::Ident) else {
            return;
        };
        let Some(&open) = idx.get(2).filter(|&&i| self.w(i) == "{") else {
            return;
        };
        let close = self.matching(open).unwrap_or(open);
        let sampler = (open + 1..close).any(|i| texture_type(self.w(i)).is_some());
        let n = self.w(name);
        let named_elsewhere = self
            .toks
            .iter()
            .enumerate()
            .any(|(i, t)| !(kw..=last).contains(&i) && !t.directive && self.word(t) == n);
        if sampler && !named_elsewhere && self.w(last) == ";" && close + 1 == last {
            self.edits.push(Edit {
                range: self.span(kw, last),
                text: String::new(),
            });
        }
    }

    /// The first free run of `size` locations of inputs or outputs.
    fn free(&self, input: bool, size: u32) -> u32 {
        let used = if input { &self.used_in } else { &self.used_out };
        (0..)
            .find(|&l| (l..l + size).all(|k| !used.contains(&k)))
            .unwrap_or(0)
    }

    /// If token `i` starts a read of a row-major matrix uniform, the token that ends it.
    fn row_major_read(&self, i: usize) -> Option<usize> {
        if self.matrix_decls.contains(&i) || self.w(i.wrapping_sub(1)) == "." {
            return None;
        }
        let w = self.w(i);
        // Past an array index at `k`, if there is one.
        let past_index = |k: usize| -> usize {
            if self.w(k + 1) == "[" {
                self.matching(k + 1).unwrap_or(k)
            } else {
                k
            }
        };
        if let Some(rm) = self.row_major.get(w).filter(|rm| rm.instance.is_none()) {
            return Some(if rm.array { past_index(i) } else { i });
        }
        // `inst.m`, `inst[j].m`.
        let at = past_index(i);
        if self.w(at + 1) != "." {
            return None;
        }
        let member = self.w(at + 2);
        let rm = self.row_major.get(member)?;
        let (instance, _) = rm.instance.as_ref()?;
        (instance == w).then(|| if rm.array { past_index(at + 2) } else { at + 2 })
    }

    /// The matrix layout a `layout(…)` (its tokens `from..close`) sets, `Some(true)` for
    /// `row_major`, and the tokens that say it.
    fn layout_matrix_words(&self, from: usize, close: usize) -> (Option<bool>, Vec<usize>) {
        let mut setting = None;
        let mut words = Vec::new();
        for k in from..close {
            match self.w(k) {
                "row_major" => setting = Some(true),
                "column_major" => setting = Some(false),
                _ => continue,
            }
            words.push(k);
        }
        (setting, words)
    }

    /// Takes the matrix `words` out of the `layout(…)` at `kw` (`close`: its `)`), with a
    /// comma next to each; a layout left empty becomes what `emptied` says.
    fn drop_matrix_words(&mut self, kw: usize, close: usize, words: &[usize], emptied: Emptied) {
        if words.is_empty() {
            return;
        }
        self.matrix_words.extend(words.iter().copied());
        let items = (kw + 2..close).filter(|&k| self.w(k) != ",").count();
        if items == words.len() {
            let (from, to, text) = match emptied {
                Emptied::Std140 => (kw + 2, close - 1, "std140"),
                Emptied::Drop => (kw, close, ""),
                Emptied::Statement(end) => (kw, end, ""),
            };
            if from <= to {
                self.edits.push(Edit {
                    range: self.span(from, to),
                    text: text.into(),
                });
            }
            return;
        }
        for &k in words {
            let range = if self.w(k + 1) == "," {
                self.toks[k].range.start..self.toks[k + 2].range.start
            } else if self.w(k - 1) == "," {
                self.toks[k - 1].range.start..self.toks[k].range.end
            } else {
                self.toks[k].range.clone()
            };
            self.edits.push(Edit {
                range,
                text: String::new(),
            });
        }
    }

    /// A uniform block (its `{` at `open`): its matrices' layouts, from the block's
    /// `layout(…)`, each member's, and the default. Naga has column-major matrices only, so a
    /// row-major one is declared as its transposed type, which holds the same registers by
    /// column, and read through `transpose` (see `expressions`).
    fn block_matrices(
        &mut self,
        layout: Option<(usize, usize)>,
        open: usize,
    ) -> Result<(), Box<Diagnostic>> {
        let close = self
            .matching(open)
            .ok_or_else(|| at(self.toks[open].range.clone(), "this brace is never closed"))?;
        let mut block_row_major = self.default_row_major;
        if let Some((kw, lclose)) = layout {
            let (setting, words) = self.layout_matrix_words(kw + 1, lclose);
            block_row_major = setting.unwrap_or(block_row_major);
            self.drop_matrix_words(kw, lclose, &words, Emptied::Std140);
        }
        // `} name;` or `} name[n];`: an instance.
        let instance = (self.toks.get(close + 1).map(|t| t.kind) == Some(Kind::Ident))
            .then(|| (self.w(close + 1).to_string(), self.w(close + 2) == "["));
        let mut k = open + 1;
        while k < close {
            // One member: to its `;`.
            let end = (k..close).find(|&e| self.w(e) == ";").unwrap_or(close);
            let mut row_major = block_row_major;
            let mut t = k;
            if self.w(t) == "layout" {
                let lclose = self.matching(t + 1).unwrap_or(t + 1);
                let (setting, words) = self.layout_matrix_words(t + 2, lclose);
                row_major = setting.unwrap_or(row_major);
                self.drop_matrix_words(t, lclose, &words, Emptied::Drop);
                t = lclose + 1;
            }
            while matches!(self.w(t), "highp" | "mediump" | "lowp" | "precise") {
                t += 1;
            }
            let ty = self.w(t).to_string();
            if row_major && !builtin_type(&ty) && t < end {
                let mut d = Diagnostic::error(
                    Rule::GlslMatrixLayout,
                    format!(
                        "a row-major block's structure member `{ty}` is not read from GLSL \
                         text: its matrices would be stored by column"
                    ),
                )
                .with_note(
                    "make the block column-major and the structure's matrices members of \
                     their own, or compile with glslang (`glslangValidator -V shader.vert -o \
                     shader.vert.spv`) and pass the .spv",
                );
                d.text_range = Some(self.toks[t].range.clone());
                return Err(Box::new(d));
            }
            if let Some(stored) = transposed_type(&ty).filter(|_| row_major) {
                if stored != ty {
                    self.edits.push(Edit {
                        range: self.toks[t].range.clone(),
                        text: stored,
                    });
                }
                let type_array = self.w(t + 1) == "[";
                // The declarators: `name`, `name[n]`, separated by commas.
                let mut d = t + 1;
                while d < end {
                    if self.toks[d].kind == Kind::Ident {
                        let array = type_array || self.w(d + 1) == "[";
                        self.matrix_decls.insert(d);
                        self.row_major.insert(
                            self.w(d).to_string(),
                            RowMajor {
                                instance: instance.clone(),
                                array,
                            },
                        );
                    }
                    d = match self.w(d) {
                        "[" => self.matching(d).map_or(d + 1, |c| c + 1),
                        _ => d + 1,
                    };
                }
            }
            k = end + 1;
        }
        Ok(())
    }

    /// A uniform block without a binding gets the next one (set 2, std140 unless the author
    /// chose a layout).
    fn block_binding(
        &mut self,
        start: usize,
        layout: Option<(usize, usize)>,
    ) -> Result<(), Box<Diagnostic>> {
        let binding = self.next_block;
        self.next_block += 1;
        match layout {
            Some((_, close)) => self.edits.push(Edit {
                range: self.toks[close].range.start..self.toks[close].range.start,
                text: format!(", set = 2, binding = {binding}"),
            }),
            None => self.edits.push(Edit {
                range: self.toks[start].range.start..self.toks[start].range.start,
                text: format!("layout(std140, set = 2, binding = {binding}) "),
            }),
        }
        Ok(())
    }

    /// How many arguments the call whose `(` is token `open` has.
    fn arguments(&self, open: usize) -> usize {
        let Some(close) = self.matching(open) else {
            return 0;
        };
        if close == open + 1 {
            return 0;
        }
        let mut count = 1;
        let mut k = open + 1;
        while k < close {
            match self.w(k) {
                "(" | "[" => k = self.matching(k).unwrap_or(k),
                "," => count += 1,
                _ => {}
            }
            k += 1;
        }
        count
    }

    /// With a prologue or epilogue, the author's `main` is renamed and a new `main` runs it
    /// between them (so every `return` of the author's still writes the outputs).
    fn wrap_main(&mut self) -> Result<(), Box<Diagnostic>> {
        if self.prologue.is_empty() && self.epilogue.is_empty() {
            return Ok(());
        }
        let mut depth = 0i32;
        let mut found = None;
        for i in 0..self.toks.len() {
            if self.toks[i].directive {
                continue;
            }
            match self.w(i) {
                "{" => depth += 1,
                "}" => depth -= 1,
                "main"
                    if depth == 0 && self.w(i + 1) == "(" && i > 0 && self.w(i - 1) == "void" =>
                {
                    let close = self.matching(i + 1).unwrap_or(i + 1);
                    if self.w(close + 1) == "{" {
                        found = Some(i);
                    }
                }
                _ => {}
            }
        }
        let Some(main) = found else {
            return Err(at(
                0..self.text.len().min(1),
                "the shader has no `void main() { … }`",
            ));
        };
        self.edits.push(Edit {
            range: self.toks[main].range.clone(),
            text: "spv2retro_main".into(),
        });
        let end = self.text.len();
        self.edits.push(Edit {
            range: end..end,
            text: format!(
                "\nvoid main() {{ {} spv2retro_main(); {} }}\n",
                self.prologue.join(" "),
                self.epilogue.join(" ")
            ),
        });
        Ok(())
    }

    /// Names that GLSL made keywords after the author's version (`sample`, `buffer`…: GLSL
    /// 4.x, which naga reads) renamed `spv2retro_NAME`, and GLSL ES 1.00's
    /// `gl_FragDepthEXT` (EXT_frag_depth) spelled `gl_FragDepth`.
    fn later_keywords(&mut self, dialect: Dialect) {
        const LATER: &[&str] = &[
            "sample",
            "patch",
            "buffer",
            "shared",
            "coherent",
            "volatile",
            "restrict",
            "readonly",
            "writeonly",
            "precise",
            "subroutine",
            "resource",
        ];
        let older = match dialect {
            Dialect::Es(v) => v < 310,
            Dialect::Desktop(v) => v < 400,
        };
        let replaced: Vec<Range<usize>> = self.edits.iter().map(|e| e.range.clone()).collect();
        let mut renames = Vec::new();
        for t in &self.toks {
            if t.kind != Kind::Ident
                || t.directive
                || replaced
                    .iter()
                    .any(|e| e.start <= t.range.start && t.range.end <= e.end)
            {
                continue;
            }
            let w = self.word(t);
            let text = if w == "gl_FragDepthEXT" {
                "gl_FragDepth".to_string()
            } else if older && LATER.contains(&w) {
                format!("spv2retro_{w}")
            } else {
                continue;
            };
            renames.push(Edit {
                range: t.range.clone(),
                text,
            });
        }
        self.edits.extend(renames);
    }

    /// `highp`, `mediump` and `lowp` dropped wherever they qualify a declaration (a
    /// uniform, a parameter, a local, a structure member, a function's return type): the
    /// targets compute at one precision, and naga's GLSL front end refuses the qualifiers in
    /// most of those places. `precision` statements stay (naga reads them).
    fn precision_qualifiers(&mut self) {
        let replaced: Vec<Range<usize>> = self.edits.iter().map(|e| e.range.clone()).collect();
        let mut drops = Vec::new();
        for (i, t) in self.toks.iter().enumerate() {
            if t.kind != Kind::Ident
                || t.directive
                || !matches!(self.word(t), "highp" | "mediump" | "lowp")
                || (i > 0 && self.w(i - 1) == "precision")
                || replaced
                    .iter()
                    .any(|e| e.start <= t.range.start && t.range.end <= e.end)
            {
                continue;
            }
            drops.push(Edit {
                range: t.range.clone(),
                text: String::new(),
            });
        }
        // `precision lowp sampler2DArray;`: naga takes precision statements for its
        // numeric types only, and the targets have one precision anyway.
        for (i, t) in self.toks.iter().enumerate() {
            if t.directive || self.word(t) != "precision" || self.w(i + 3) != ";" {
                continue;
            }
            let ty = self.w(i + 2);
            if matches!(ty, "float" | "int" | "uint") {
                continue;
            }
            let range = t.range.start..self.toks[i + 3].range.end;
            if replaced
                .iter()
                .any(|e| e.start < range.end && range.start < e.end)
            {
                continue;
            }
            drops.push(Edit {
                range,
                text: String::new(),
            });
        }
        self.edits.extend(drops);
    }

    /// A function's combined-sampler parameters (`vec4 Texel(sampler2D s, vec2 c)`, as
    /// LÖVE and libretro write them) split as the uniforms are: a texture and its sampler
    /// object (`texture2D s, sampler spv2retro_sampler_s`), so texture calls inside read
    /// `sampler2D(s, spv2retro_sampler_s)` and calls pass both. Returns the tokens that
    /// declare the parameters' names.
    fn sampler_parameters(&mut self) -> BTreeSet<usize> {
        let mut names = BTreeSet::new();
        let mut depth = 0i32;
        let mut i = 0;
        while i < self.toks.len() {
            if self.toks[i].directive {
                i += 1;
                continue;
            }
            match self.w(i) {
                "{" => depth += 1,
                "}" => depth -= 1,
                // `TYPE NAME (` at global scope: a function's parameter list.
                "(" if depth == 0
                    && i >= 2
                    && self.toks[i - 1].kind == Kind::Ident
                    && self.toks[i - 2].kind == Kind::Ident =>
                {
                    let close = self.matching(i).unwrap_or(i);
                    let mut k = i + 1;
                    while k < close {
                        let ty = self.w(k).to_string();
                        if let Some(texture) = texture_type(&ty) {
                            let name = k + 1;
                            if name < close && self.toks[name].kind == Kind::Ident {
                                let n = self.w(name).to_string();
                                let object = format!("spv2retro_sampler_{n}");
                                let shadow = if ty.ends_with("Shadow") {
                                    "samplerShadow"
                                } else {
                                    "sampler"
                                };
                                self.edits.push(Edit {
                                    range: self.toks[k].range.clone(),
                                    text: texture.to_string(),
                                });
                                let end = self.toks[name].range.end;
                                self.edits.push(Edit {
                                    range: end..end,
                                    text: format!(", {shadow} {object}"),
                                });
                                // The body follows the parameter list (a prototype has none).
                                let end = match self.w(close + 1) {
                                    "{" => self.matching(close + 1).unwrap_or(close),
                                    _ => close,
                                };
                                self.scoped_samplers.push((i..end + 1, n, (ty, object)));
                                names.insert(name);
                            }
                        }
                        k += 1;
                    }
                    i = close;
                }
                _ => {}
            }
            i += 1;
        }
        names
    }

    /// The combined sampler token `i` names, if it names one there: a function's parameter
    /// inside that function, else a uniform.
    fn sampler(&self, i: usize) -> Option<(String, String)> {
        let name = self.w(i);
        self.scoped_samplers
            .iter()
            .find(|(scope, n, _)| scope.contains(&i) && n == name)
            .map(|(_, _, s)| s.clone())
            .or_else(|| self.samplers.get(name).cloned())
    }

    /// The token naming the function whose call has token `arg` as a whole argument (the
    /// name before the enclosing `(`).
    fn call_of_argument(&self, arg: usize) -> Option<usize> {
        let mut depth = 0i32;
        let mut k = arg;
        while k > 0 {
            k -= 1;
            match self.w(k) {
                ")" | "]" => depth += 1,
                "[" => depth -= 1,
                "(" if depth == 0 => return k.checked_sub(1),
                "(" => depth -= 1,
                ";" | "{" | "}" => return None,
                _ => {}
            }
        }
        None
    }

    /// Texture functions renamed and given separate samplers; `gl_FragColor`/`gl_FragData`.
    fn expressions(&mut self) -> Result<(), Box<Diagnostic>> {
        let mut frag_data: BTreeSet<u32> = BTreeSet::new();
        let mut frag_color = false;
        let mut declared: BTreeSet<usize> = BTreeSet::new();
        // Compatibility built-ins used, with the array length each needs.
        let mut compat: BTreeMap<String, u32> = BTreeMap::new();
        // The sampler names' own declarations were replaced whole.
        let replaced: Vec<Range<usize>> = self.edits.iter().map(|e| e.range.clone()).collect();
        let inside = |r: &Range<usize>| {
            replaced
                .iter()
                .any(|e| e.start <= r.start && r.end <= e.end)
        };
        declared.extend(self.sampler_parameters());
        let mut i = 0;
        while i < self.toks.len() {
            let t = self.toks[i].clone();
            if t.kind != Kind::Ident || inside(&t.range) || declared.contains(&i) {
                i += 1;
                continue;
            }
            let w = self.word(&t).to_string();
            let renamed = RENAMED
                .iter()
                .find(|(old, _)| *old == w)
                .map(|(_, new)| *new);
            let function = renamed.unwrap_or(&w);
            let sampling = SAMPLING.contains(&function)
                || function.starts_with("texture")
                || function.starts_with("texel")
                || function.starts_with("sparseTex");
            if sampling && self.w(i + 1) == "(" {
                // In a vertex shader, implicit-LOD sampling reads level 0 (GLSL ES 1.00
                // §8.7): written out, so that the target's own rule (neither samples in a
                // vertex program) is what the author reads, not naga's stage check.
                let implicit =
                    matches!(function, "texture" | "textureProj") && self.arguments(i + 1) == 2;
                let renamed = if implicit && self.stage == Stage::Vertex {
                    if let Some(close) = self.matching(i + 1) {
                        let at = self.toks[close].range.start;
                        self.edits.push(Edit {
                            range: at..at,
                            text: ", 0.0".into(),
                        });
                    }
                    Some(if function == "texture" {
                        "textureLod"
                    } else {
                        "textureProjLod"
                    })
                } else {
                    renamed
                };
                if let Some(new) = renamed {
                    self.edits.push(Edit {
                        range: t.range.clone(),
                        text: new.to_string(),
                    });
                }
                // The first argument: a combined sampler becomes `sampler2D(texture, sampler)`.
                let open = i + 1;
                let arg = open + 1;
                let mut e = arg;
                while e < self.toks.len() && !matches!(self.w(e), "," | ")") {
                    e = match self.w(e) {
                        "(" | "[" => self.matching(e).map_or(e + 1, |c| c + 1),
                        _ => e + 1,
                    };
                }
                if let Some((combined, object)) = self.sampler(arg) {
                    let a = self.toks[arg].range.start;
                    let z = self.toks[e.saturating_sub(1).max(arg)].range.end;
                    self.edits.push(Edit {
                        range: a..a,
                        text: format!("{combined}("),
                    });
                    self.edits.push(Edit {
                        range: z..z,
                        text: format!(", {object})"),
                    });
                    declared.insert(arg);
                }
                i += 2;
                continue;
            }
            // A sampler passed whole to a function of the shader: its sampler object
            // goes along (the function's parameter was split the same way).
            let passed = i > 0
                && matches!(self.w(i - 1), "(" | ",")
                && matches!(self.w(i + 1), "," | ")")
                && self
                    .call_of_argument(i)
                    .is_some_and(|f| self.toks[f].kind == Kind::Ident && !builtin_type(self.w(f)));
            if passed {
                if let Some((_, object)) = self.sampler(i) {
                    self.edits.push(Edit {
                        range: t.range.end..t.range.end,
                        text: format!(", {object}"),
                    });
                    i += 1;
                    continue;
                }
            }
            // `x.a` is a swizzle or a member, not the sampler `a`.
            let member = i > 0 && self.w(i - 1) == ".";
            if !member && self.sampler(i).is_some() {
                return Err(at(
                    t.range.clone(),
                    format!(
                        "the sampler `{w}` can be used only as a texture function's first \
                         argument here (not passed to a function of the shader or copied)"
                    ),
                ));
            }
            if self.stage == Stage::Fragment && w == "gl_FragColor" {
                frag_color = true;
                self.edits.push(Edit {
                    range: t.range.clone(),
                    text: "spv2retro_FragColor".into(),
                });
            }
            if self.stage == Stage::Fragment
                && w == "gl_FragData"
                && self.w(i + 1) == "["
                && self.w(i + 3) == "]"
            {
                let n: u32 = self.w(i + 2).parse().map_err(|_| {
                    at(
                        self.span(i, i + 3),
                        "gl_FragData is indexed by a constant number here",
                    )
                })?;
                let name = if n == 0 {
                    frag_color = true;
                    "spv2retro_FragColor".to_string()
                } else {
                    frag_data.insert(n);
                    format!("spv2retro_FragData_{n}")
                };
                self.edits.push(Edit {
                    range: self.span(i, i + 3),
                    text: name,
                });
                i += 4;
                continue;
            }
            // The compatibility profile's built-ins (GLSL 1.10–1.30): declared when used.
            if w == "ftransform" && self.w(i + 1) == "(" && self.w(i + 2) == ")" {
                self.edits.push(Edit {
                    range: self.span(i, i + 2),
                    text: "(gl_ModelViewProjectionMatrix * gl_Vertex)".into(),
                });
                compat.insert("gl_ModelViewProjectionMatrix".into(), 1);
                compat.insert("gl_Vertex".into(), 1);
                i += 3;
                continue;
            }
            if compat_builtin(self.stage, &w).is_some() {
                // Arrays (gl_TexCoord, gl_TextureMatrix) are as long as the largest constant
                // index used needs (8 when an index is not a number).
                let len = if self.w(i + 1) == "[" {
                    self.w(i + 2).parse::<u32>().map_or(8, |n| n + 1)
                } else {
                    1
                };
                let e = compat.entry(w.clone()).or_insert(0);
                *e = (*e).max(len);
            }
            // A row-major matrix is stored transposed: read through `transpose`, the whole
            // matrix (`m`, `m[i]` of an array of them, `inst.m`, `inst[j].m`).
            if let Some(end) = self.row_major_read(i) {
                let a = t.range.start;
                let z = self.toks[end].range.end;
                self.edits.push(Edit {
                    range: a..a,
                    text: "transpose(".into(),
                });
                self.edits.push(Edit {
                    range: z..z,
                    text: ")".into(),
                });
                i = end + 1;
                continue;
            }
            // A bool uniform is an int in its block: read as a bool where used.
            if let Some(ty) = self.bools.get(&w).cloned() {
                let end = if self.w(i + 1) == "[" {
                    self.matching(i + 1).unwrap_or(i)
                } else {
                    i
                };
                let a = t.range.start;
                let z = self.toks[end].range.end;
                self.edits.push(Edit {
                    range: a..a,
                    text: format!("{ty}("),
                });
                self.edits.push(Edit {
                    range: z..z,
                    text: ")".into(),
                });
                i = end + 1;
                continue;
            }
            i += 1;
        }
        self.compat_declarations(&compat);
        // The outputs gl_FragColor and gl_FragData[n] were: names no GLSL 450 shader may
        // declare, so they are spelled otherwise and given their names back in the
        // reflection.
        if frag_color {
            self.globals
                .push("layout(location = 0) out vec4 spv2retro_FragColor;".to_string());
            self.renames
                .push(("spv2retro_FragColor".into(), "gl_FragColor".into()));
        }
        for n in frag_data {
            self.globals.push(format!(
                "layout(location = {n}) out vec4 spv2retro_FragData_{n};"
            ));
            self.renames.push((
                format!("spv2retro_FragData_{n}"),
                format!("gl_FragData[{n}]"),
            ));
        }
        Ok(())
    }
}

/// What a compatibility-profile built-in is in `stage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compat {
    /// A vertex attribute of this type.
    Attribute(&'static str),
    /// A uniform of this type (an array when indexed).
    Uniform(&'static str),
    /// A varying of this type, and the name the vertex shader writes it under.
    Varying(&'static str, &'static str),
}

/// The compatibility profile's built-ins this rewrite declares.
fn compat_builtin(stage: Stage, name: &str) -> Option<Compat> {
    use Compat::*;
    Some(match (stage, name) {
        (Stage::Vertex, "gl_Vertex" | "gl_Color" | "gl_SecondaryColor") => Attribute("vec4"),
        (Stage::Vertex, "gl_Normal") => Attribute("vec3"),
        (Stage::Vertex, "gl_FogCoord") => Attribute("float"),
        (Stage::Vertex, n) if n.starts_with("gl_MultiTexCoord") => {
            let k: u32 = n["gl_MultiTexCoord".len()..].parse().ok()?;
            if k < 8 {
                Attribute("vec4")
            } else {
                return None;
            }
        }
        (_, "gl_NormalMatrix") => Uniform("mat3"),
        (
            _,
            "gl_ModelViewMatrix"
            | "gl_ProjectionMatrix"
            | "gl_ModelViewProjectionMatrix"
            | "gl_TextureMatrix"
            | "gl_ModelViewMatrixInverse"
            | "gl_ProjectionMatrixInverse"
            | "gl_ModelViewProjectionMatrixInverse"
            | "gl_ModelViewMatrixTranspose"
            | "gl_ModelViewMatrixInverseTranspose",
        ) => Uniform("mat4"),
        (Stage::Vertex, "gl_FrontColor") => Varying("vec4", "gl_FrontColor"),
        (Stage::Vertex, "gl_BackColor") => Varying("vec4", "gl_BackColor"),
        (Stage::Vertex, "gl_FrontSecondaryColor") => Varying("vec4", "gl_FrontSecondaryColor"),
        (Stage::Vertex, "gl_TexCoord") => Varying("vec4", "gl_TexCoord"),
        (Stage::Fragment, "gl_Color") => Varying("vec4", "gl_FrontColor"),
        (Stage::Fragment, "gl_SecondaryColor") => Varying("vec4", "gl_FrontSecondaryColor"),
        (Stage::Fragment, "gl_TexCoord") => Varying("vec4", "gl_TexCoord"),
        (_, "gl_FogFragCoord") => Varying("float", "gl_FogFragCoord"),
        _ => return None,
    })
}

impl Rewriter<'_> {
    /// Declarations for the compatibility built-ins used: attributes, varyings and uniforms
    /// after the author's own, in a fixed order.
    fn compat_declarations(&mut self, used: &BTreeMap<String, u32>) {
        // Attributes in the order GL aliases them to generic ones (gl_Vertex is attribute
        // 0), then the rest by name.
        const ORDER: &[&str] = &[
            "gl_Vertex",
            "gl_Normal",
            "gl_Color",
            "gl_SecondaryColor",
            "gl_FogCoord",
        ];
        let mut used: Vec<(&String, &u32)> = used.iter().collect();
        used.sort_by_key(|(n, _)| {
            (
                ORDER.iter().position(|o| o == n).unwrap_or(ORDER.len()),
                n.as_str(),
            )
        });
        for (name, &len) in used {
            let name = name.as_str();
            let Some(kind) = compat_builtin(self.stage, name) else {
                continue;
            };
            let arr = if matches!(name, "gl_TexCoord" | "gl_TextureMatrix") {
                format!("[{len}]")
            } else {
                String::new()
            };
            let count = if arr.is_empty() { 1 } else { len };
            match kind {
                Compat::Attribute(ty) => {
                    let l = self.free(true, 1);
                    self.used_in.insert(l);
                    self.globals
                        .push(format!("layout(location = {l}) in {ty} {name};"));
                }
                Compat::Uniform(ty) => {
                    let binding = self.next_block;
                    self.next_block += 1;
                    self.globals.push(format!(
                        "layout(std140, set = 2, binding = {binding}) uniform \
                         spv2retro_uniform_{name} {{ {ty} {name}{arr}; }};"
                    ));
                }
                Compat::Varying(ty, written) => {
                    let input = self.stage == Stage::Fragment;
                    let linked = self
                        .linked
                        .and_then(|l| l.iter().find(|(n, _)| n == written))
                        .map(|&(_, l)| l);
                    let l = match (input, linked) {
                        (true, Some(l)) => l,
                        _ => self.free(input, count),
                    };
                    for k in l..l + count {
                        if input {
                            self.used_in.insert(k);
                        } else {
                            self.used_out.insert(k);
                        }
                    }
                    self.varyings.push((written.to_string(), l));
                    let word = if input { "in" } else { "out" };
                    self.globals
                        .push(format!("layout(location = {l}) {word} {ty} {name}{arr};"));
                }
            }
        }
    }
}

/// `binding = N` in a layout's text.
fn binding_of(layout: &str) -> Option<u32> {
    layout_value(layout, "binding")
}

/// `location = N` in a layout's text.
fn location_of(layout: &str) -> Option<u32> {
    layout_value(layout, "location")
}

fn layout_value(layout: &str, key: &str) -> Option<u32> {
    let inner = layout.split_once('(')?.1.rsplit_once(')')?.0;
    inner.split(',').find_map(|part| {
        let (k, v) = part.split_once('=')?;
        (k.trim() == key).then(|| v.trim().parse().ok())?
    })
}

/// The varyings a classic vertex shader declares, by name and the location the rewrite gives
/// them (for compiling its fragment shader as a pair).
pub(crate) fn vertex_varyings(text: &str) -> Vec<(String, u32)> {
    rewrite(text, Stage::Vertex, "", None)
        .map(|r| r.varyings)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(text: &str, stage: Stage) -> String {
        rewrite(text, stage, "t.glsl", None).unwrap().text
    }

    #[test]
    fn only_matrix_types_are_transposed() {
        assert_eq!(transposed_type("mat4x3").as_deref(), Some("mat3x4"));
        assert_eq!(transposed_type("mat3").as_deref(), Some("mat3"));
        assert_eq!(transposed_type("matrixS"), None);
        assert_eq!(transposed_type("mat5"), None);
        assert_eq!(transposed_type("vec4"), None);
    }

    #[test]
    fn row_major_matrices_are_stored_transposed_and_read_through_transpose() {
        let v = "#version 450\nlayout(location = 0) in vec4 p;\n\
                 layout(row_major) uniform mat2x4 t;\n\
                 layout(std140, row_major) uniform B { mat4 m; layout(column_major) mat4 c; };\n\
                 void main() { gl_Position = m * p + c * p + vec4(t * p.xy); }\n";
        let out = rewritten(v, Stage::Vertex);
        // Stored by row (the transposed type's columns); a matrix of two-lane columns as
        // `vec4`s, assembled before `main`.
        assert!(
            out.contains("uniform spv2retro_uniform_t { vec4 t[4]; } spv2retro_block_t; mat4x2 t;"),
            "{out}"
        );
        assert!(
            out.contains("layout(std140, set = 2, binding = 1) uniform B"),
            "{out}"
        );
        assert!(out.contains("{ mat4 m;  mat4 c; }"), "{out}");
        assert!(
            out.contains("transpose(m) * p + c * p + vec4(transpose(t) * p.xy)"),
            "{out}"
        );
        assert!(
            !out.contains("row_major") && !out.contains("column_major"),
            "{out}"
        );
    }

    #[test]
    fn webgl_style_shaders_become_vulkan_glsl() {
        let v = "attribute vec4 aPosition;\nattribute vec2 aUV;\nuniform mat4 uMVP;\n\
                 varying vec2 vUV;\nvoid main() { vUV = aUV; gl_Position = uMVP * aPosition; }\n";
        let out = rewritten(v, Stage::Vertex);
        assert!(out.starts_with("#version 450\n"), "{out}");
        assert!(
            out.contains("layout(location = 0) in vec4 aPosition;"),
            "{out}"
        );
        assert!(out.contains("layout(location = 1) in vec2 aUV;"), "{out}");
        assert!(out.contains(
            "layout(std140, set = 2, binding = 0) uniform spv2retro_uniform_uMVP { mat4 uMVP; };"
        ));
        assert!(out.contains("layout(location = 0) out vec2 vUV;"), "{out}");
        let f = "precision mediump float;\nvarying vec2 vUV;\nuniform sampler2D uTex;\n\
                 void main() { gl_FragColor = texture2D(uTex, vUV * 2.0); }\n";
        let r = rewrite(f, Stage::Fragment, "t.glsl", None).unwrap();
        assert!(
            r.text
                .contains("layout(location = 0) out vec4 spv2retro_FragColor;")
        );
        assert!(
            r.text
                .contains("layout(set = 0, binding = 0) uniform texture2D uTex;")
        );
        assert!(
            r.text.contains(
                "spv2retro_FragColor = texture(sampler2D(uTex, spv2retro_sampler_uTex), vUV * 2.0);"
            ),
            "{}",
            r.text
        );
    }

    #[test]
    fn the_map_leads_back_to_the_authors_text() {
        let v = "attribute vec4 p;\nvoid main() { gl_Position = p * q; }\n";
        let r = rewrite(v, Stage::Vertex, "t.glsl", None).unwrap();
        let q = r.text.find("q;").unwrap();
        assert_eq!(&v[r.original(q..q + 1)], "q");
    }

    #[test]
    fn vulkan_style_shaders_are_left_alone() {
        let v = "#version 450\nlayout(location = 0) in vec4 p;\n\
                 layout(std140, binding = 0) uniform B { mat4 m; };\n\
                 void main() { gl_Position = m * p; }\n";
        assert_eq!(rewritten(v, Stage::Vertex), v);
    }

    #[test]
    fn blocks_get_bindings_and_what_is_not_a_loose_uniform_is_left_alone() {
        let f = "#version 330\nlayout(std140) uniform Light { vec4 color; };\n\
                 uniform Fog { vec4 fog; } fogBlock;\nuniform struct S { vec4 a; } s;\n\
                 out vec4 c;\nvoid main() { c = color + fogBlock.fog + s.a; }\n";
        let out = rewritten(f, Stage::Fragment);
        assert!(
            out.contains("layout(std140, set = 2, binding = 0) uniform Light {"),
            "{out}"
        );
        assert!(
            out.contains("layout(std140, set = 2, binding = 1) uniform Fog {"),
            "{out}"
        );
        // A structure declared in place: declared on its own, then a loose uniform of it.
        assert!(
            out.contains(
                "struct S { vec4 a ; }; layout(std140, set = 2, binding = 2) uniform \
                 spv2retro_uniform_s { S s; };"
            ),
            "{out}"
        );
        assert!(out.contains("layout(location = 0) out vec4 c;"), "{out}");
        let images = "#version 450\nlayout(rgba8) uniform image2D img;\nvoid main() {}\n";
        assert_eq!(rewritten(images, Stage::Fragment), images);
    }
}
