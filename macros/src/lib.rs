//! `include_shader!`: citro3d-rs's `citro3d_macros::include_shader!` with the compiler inside.
//!
//! citro3d-macros runs devkitPro's `picasso` on a `.pica` file while the crate compiles and
//! puts the `.shbin` into the program. This macro has the same signature and expands to the
//! same expression (a `&'static [u8]` whose bytes are 4-byte aligned, as libctru's
//! `DVLB_ParseFile` reads words, by the same `#[repr(C)]` struct with a `[u32; 0]` field), but
//! compiles with `spv2retro`: no devkitPro install, and the file may be GLSL, WGSL or SPIR-V
//! as well as picasso source.
//!
//! ```
//! use spv2retro_macros::include_shader;
//!
//! // In a crate of one's own, "shaders/vshader.vert"; this crate's doctests run in macros/.
//! static SHADER: &[u8] = include_shader!("../examples/homebrew/shaders/vshader.vert");
//!
//! assert_eq!(&SHADER[..4], b"DVLB");
//! assert!((SHADER.as_ptr() as usize).is_multiple_of(4));
//! ```
//!
//! - The path is relative to the calling crate's folder (its `CARGO_MANIFEST_DIR`), or
//!   absolute. (citro3d-macros takes it relative to the calling source file, as
//!   `include_bytes!` does; a crate that moves over keeps working when its shaders are named
//!   from the crate's folder.)
//! - The language comes from the file's name as `spv2retro::Source::from_path` tells it:
//!   `.vert` (GLSL), `.wgsl`, `.spv`, `.spvasm`, picasso's `.pica`/`.v.pica`/`.vsh`/`.gsh`, …
//!   Shaders are compiled with `spv2retro::Options::pica()`; a picasso source is assembled as
//!   `picasso -o out.shbin FILE` does (`spv2retro::picasso::link`), to picasso's bytes. The
//!   bytes are what `spv2pica FILE` writes.
//! - A shader the compiler refuses stops the build at the macro's argument with the
//!   compiler's diagnostic, which names the shader's own file, line and rule.
//! - The expansion includes the shader file with `include_bytes!`, as citro3d-macros does,
//!   so the crate is rebuilt when the shader changes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use spv2retro::{Language, Options, Source};

/// Compiles the PICA200 shader at the given path (relative to the crate's folder) and gives
/// its `.shbin` as a 4-byte-aligned `&'static [u8]`.
///
/// The argument must be one string literal. A file that cannot be read or compiled is a
/// compile error at the argument, with the compiler's diagnostic.
///
/// ```
/// // In a crate of one's own, "shaders/sprite.g.pica"; this crate's doc tests run in macros/.
/// static GEOMETRY: &[u8] = spv2retro_macros::include_shader!("../examples/homebrew/shaders/sprite.g.pica");
/// assert_eq!(&GEOMETRY[..4], b"DVLB");
/// ```
///
/// A shader that does not exist, or does not compile, stops the build:
///
/// ```compile_fail
/// static MISSING: &[u8] = spv2retro_macros::include_shader!("shaders/no-such-shader.vert");
/// ```
#[proc_macro]
pub fn include_shader(input: TokenStream) -> TokenStream {
    let (literal, span) = match argument(input) {
        Ok(found) => found,
        Err((message, span)) => return compile_error(&message, span),
    };
    match expand(&literal) {
        Ok(tokens) => tokens,
        Err(message) => compile_error(&message, span),
    }
}

/// The one string literal the macro takes, with its span.
fn argument(input: TokenStream) -> Result<(String, Span), (String, Span)> {
    let mut tokens: Vec<TokenTree> = input.into_iter().collect();
    // A literal passed on by a `macro_rules!` macro arrives in an invisible group.
    while let [TokenTree::Group(g)] = tokens.as_slice() {
        if g.delimiter() != Delimiter::None {
            break;
        }
        tokens = g.stream().into_iter().collect();
    }
    let expected = "include_shader! takes one string literal: the shader's path, relative to \
                    the crate's folder";
    match tokens.as_slice() {
        [TokenTree::Literal(lit)] => match string_value(&lit.to_string()) {
            Some(value) => Ok((value, lit.span())),
            None => Err((expected.to_string(), lit.span())),
        },
        [] => Err((expected.to_string(), Span::call_site())),
        [first, ..] => Err((
            format!("{expected}; got {} tokens", tokens.len()),
            first.span(),
        )),
    }
}

/// The value of a Rust string literal's source text (`"…"` with escapes, or raw `r#"…"#`);
/// `None` for any other literal.
fn string_value(text: &str) -> Option<String> {
    if let Some(raw) = text.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let inner = raw[hashes..].strip_prefix('"')?;
        let inner = inner.strip_suffix(&"#".repeat(hashes))?;
        return inner.strip_suffix('"').map(str::to_string);
    }
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            '0' => out.push('\0'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'x' => {
                let hex: String = [chars.next()?, chars.next()?].iter().collect();
                out.push(char::from(u8::from_str_radix(&hex, 16).ok()?));
            }
            'u' => {
                if chars.next()? != '{' {
                    return None;
                }
                let mut hex = String::new();
                loop {
                    match chars.next()? {
                        '}' => break,
                        '_' => {}
                        h => hex.push(h),
                    }
                }
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            // A line continuation: the newline and the whitespace after it are dropped.
            '\n' | '\r' => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The expansion for the shader at `written` (as the macro's argument names it).
fn expand(written: &str) -> Result<TokenStream, String> {
    let base = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .ok_or("include_shader!: CARGO_MANIFEST_DIR is not set and there is no current folder")?;
    let path = base.join(written);
    let path = path
        .canonicalize()
        .map_err(|e| format!("include_shader!: cannot read {}: {e}", path.display()))?;
    let bytes = shbin(&path, written)?;
    let shown = path.to_str().ok_or_else(|| {
        format!(
            "include_shader!: {} is not UTF-8, which include_bytes! needs to track it",
            path.display()
        )
    })?;
    Ok(aligned_bytes(&bytes, shown))
}

/// The `.shbin` `spv2pica FILE` writes for the file at `path`, named `shown` in diagnostics.
fn shbin(path: &Path, shown: &str) -> Result<Vec<u8>, String> {
    let source = Source::from_path(path)
        .map_err(|e| e.to_string())?
        .named(shown);
    let options = Options::pica();
    let bytes = if source.language() == Language::Picasso {
        spv2retro::picasso::link(&[source], &options, true)
            .map_err(|e| e.to_string())?
            .bytes
    } else {
        spv2retro::compile(source, &options)
            .map_err(|e| e.to_string())?
            .bytes
    };
    Ok(bytes)
}

/// citro3d-macros' expansion: the source file included (so the crate is rebuilt when it
/// changes), and the bytes in a `#[repr(C)]` struct whose empty `[u32; 0]` field aligns them
/// to 4, coerced to a slice.
fn aligned_bytes(bytes: &[u8], source_file: &str) -> TokenStream {
    let mut list = String::with_capacity(bytes.len() * 6);
    for b in bytes {
        let _ = write!(list, "{b}u8, ");
    }
    let path = Literal::string(source_file);
    format!(
        "{{
            const _SOURCE: &[u8] = include_bytes!({path});
            #[repr(C)]
            struct AlignedAsU32<Bytes: ?Sized> {{
                _align: [u32; 0],
                bytes: Bytes,
            }}
            const ALIGNED: &AlignedAsU32<[u8]> = &AlignedAsU32 {{
                _align: [],
                bytes: [{list}],
            }};
            &ALIGNED.bytes
        }}"
    )
    .parse()
    .expect("the expansion is Rust")
}

/// `compile_error!("message")` at `span`.
fn compile_error(message: &str, span: Span) -> TokenStream {
    let mut text = Literal::string(message);
    text.set_span(span);
    let mut bang = Punct::new('!', Spacing::Alone);
    bang.set_span(span);
    let mut args = Group::new(Delimiter::Parenthesis, TokenTree::Literal(text).into());
    args.set_span(span);
    [
        TokenTree::Ident(Ident::new("compile_error", span)),
        TokenTree::Punct(bang),
        TokenTree::Group(args),
    ]
    .into_iter()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::string_value;

    #[test]
    fn reads_string_literals_as_rust_does() {
        assert_eq!(string_value(r#""a/b.vert""#).as_deref(), Some("a/b.vert"));
        assert_eq!(
            string_value(r#""a\\b\x41\u{42}\"""#).as_deref(),
            Some("a\\bAB\"")
        );
        assert_eq!(string_value(r###"r#"a"b"#"###).as_deref(), Some("a\"b"));
        assert_eq!(string_value(r#"r"x""#).as_deref(), Some("x"));
        assert_eq!(string_value("\"a\\\n    b\"").as_deref(), Some("ab"));
        assert_eq!(string_value(r#"b"x""#), None);
        assert_eq!(string_value("42"), None);
        assert_eq!(string_value(r#""bad\q""#), None);
    }
}
