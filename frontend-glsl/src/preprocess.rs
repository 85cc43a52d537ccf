//! The GLSL preprocessor, run first, as a GL driver does: macros (object- and function-like,
//! `##`), `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` with `defined`, `#undef`,
//! `#error`, `#line`, `#pragma` (kept out: none changes what these targets compile) and
//! `-D` definitions. What comes out is the text the classic rewrite and naga read: every
//! directive line blank (so line numbers hold) except `#version` and `#extension`, which
//! are kept (normalised: `# version 100` is `#version 100`) for the rewrite to read;
//! compiled-out lines blank; macros expanded.
//!
//! Every byte that comes out remembers where it came from in the author's text: the
//! author's own bytes their own offset, a macro's expansion the offset of the name that
//! invoked it. [`Preprocessed::original`] maps a range back.
//!
//! Predefined: `__LINE__`, `__FILE__` (0), `__VERSION__`, `GL_ES` (1, GLSL ES: a
//! `#version 100`/`… es`, or no `#version` and a `precision` statement or a name with
//! `.es.`/`.essl`) and `GL_FRAGMENT_PRECISION_HIGH` (1, GLSL ES fragment shaders).

use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use mir::Diagnostic;

use crate::rules::Rule;
use crate::{Rejected, Stage};

/// The text after preprocessing, and the map back to the author's.
#[derive(Clone, Debug)]
pub(crate) struct Preprocessed {
    /// What the rewrite reads.
    pub text: String,
    /// Warnings about the author's text (ranges in it).
    pub warnings: Vec<Diagnostic>,
    /// (output offset, author offset, whether the bytes are the author's): one entry per
    /// piece, in order.
    pieces: crate::map::Pieces,
}

impl Preprocessed {
    /// The author's byte range for a range of this text.
    pub fn original(&self, range: Range<usize>) -> Range<usize> {
        self.pieces.original(range)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    Punct,
    /// Spaces, tabs, comments, line continuations (not line breaks).
    Space,
    Newline,
}

/// A token: its text, where it came from, and the macros it may not expand again.
#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: Rc<str>,
    /// The author's offset: its own, or the invoking name's for an expansion.
    at: usize,
    /// Whether `text` is the author's bytes at `at` (else made by an expansion).
    verbatim: bool,
    /// Macros this token came out of (it is not expanded as them again).
    hide: Rc<[Rc<str>]>,
}

impl Tok {
    fn is(&self, s: &str) -> bool {
        matches!(self.kind, Kind::Ident | Kind::Punct | Kind::Number) && &*self.text == s
    }
}

#[derive(Clone, Debug)]
struct Macro {
    params: Option<Vec<Rc<str>>>,
    body: Vec<Tok>,
}

/// Splits `text` into tokens. Comments are `Space` (a block comment's line breaks are kept
/// as `Newline`s after it, so lines hold); `\` + line break is `Space`.
fn lex(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let no_hide: Rc<[Rc<str>]> = Rc::from(Vec::new());
    let mut out = Vec::new();
    let mut i = 0;
    let tok = |kind, range: Range<usize>| Tok {
        kind,
        text: Rc::from(&text[range.clone()]),
        at: range.start,
        verbatim: true,
        hide: no_hide.clone(),
    };
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = if c == b'\n' {
            i += 1;
            Kind::Newline
        } else if c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 2;
            Kind::Space
        } else if c == b'\\' && b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') {
            i += 3;
            Kind::Space
        } else if c.is_ascii_whitespace() {
            while i < b.len() && b[i] != b'\n' && b[i].is_ascii_whitespace() {
                i += 1;
            }
            Kind::Space
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                // A `\` at the end of a `//` comment continues it.
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                i += 1;
            }
            Kind::Space
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i = (i + 2).min(b.len());
            // The comment is one space. One that spans lines keeps its line breaks (as a
            // space that holds them: it does not end a directive's line).
            let breaks = text[start..i].matches('\n').count();
            if breaks == 0 {
                out.push(tok(Kind::Space, start..i));
            } else {
                out.push(Tok {
                    kind: Kind::Space,
                    text: Rc::from(format!(" {}", "\n".repeat(breaks))),
                    at: start,
                    verbatim: false,
                    hide: no_hide.clone(),
                });
            }
            continue;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            // A pp-number: digits, letters, `.`, and a sign after an exponent.
            while i < b.len() {
                let d = b[i];
                let sign = (d == b'+' || d == b'-')
                    && matches!(b[i - 1], b'e' | b'E')
                    && !text[start..i].starts_with("0x");
                if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || sign {
                    i += 1;
                } else {
                    break;
                }
            }
            Kind::Number
        } else {
            const THREE: [&str; 2] = ["<<=", ">>="];
            const TWO: [&str; 19] = [
                "##", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "^^", "++", "--", "+=", "-=",
                "*=", "/=", "%=", "&=", "|=",
            ];
            let rest = &text[i..];
            if let Some(p) = THREE.iter().find(|p| rest.starts_with(**p)) {
                i += p.len();
            } else if let Some(p) = TWO.iter().find(|p| rest.starts_with(**p)) {
                i += p.len();
            } else {
                // One character (a whole UTF-8 sequence, for text that is not ASCII).
                i += rest.chars().next().map_or(1, char::len_utf8);
            }
            Kind::Punct
        };
        out.push(tok(kind, start..i));
    }
    out
}

/// Preprocesses `text`, a `stage` shader called `name`, with `defines` (`-D NAME=VALUE`).
pub(crate) fn preprocess(
    text: &str,
    stage: Stage,
    name: &str,
    defines: &[(String, String)],
) -> Result<Preprocessed, Rejected> {
    let mut p = Pre {
        text,
        macros: HashMap::new(),
        out: String::new(),
        pieces: Vec::new(),
        warnings: Vec::new(),
        line_offset: 0,
    };
    let toks = lex(text);
    let (version, es) = dialect(&toks, name);
    p.define_text("__VERSION__", &version.to_string());
    p.define_text("__FILE__", "0");
    if es {
        p.define_text("GL_ES", "1");
        if stage == Stage::Fragment {
            p.define_text("GL_FRAGMENT_PRECISION_HIGH", "1");
        }
    }
    for (k, v) in defines {
        p.define_text(k, v);
    }
    p.run(&toks).map_err(|d| Rejected {
        diagnostics: mir::Diagnostics(vec![*d]),
        quotes_source: true,
    })?;
    Ok(Preprocessed {
        text: p.out,
        warnings: p.warnings,
        pieces: crate::map::Pieces(p.pieces),
    })
}

/// The `#version` number, and whether the shader is GLSL ES: its `#version` says so
/// (`100`, `… es`); without one, a `precision` statement or the file's name does (as the
/// classic rewrite decides), and the version is 100 (ES) or 110.
fn dialect(toks: &[Tok], name: &str) -> (i64, bool) {
    let significant: Vec<&Tok> = toks.iter().filter(|t| t.kind != Kind::Space).collect();
    for (k, t) in significant.iter().enumerate() {
        if t.is("#")
            && (k == 0 || significant[k - 1].kind == Kind::Newline)
            && significant.get(k + 1).is_some_and(|w| w.is("version"))
        {
            let number = significant.get(k + 2).map_or("", |n| &*n.text);
            let profile = significant.get(k + 3).map(|n| &*n.text);
            let es = number == "100" || profile == Some("es");
            return (number.parse().unwrap_or(if es { 100 } else { 110 }), es);
        }
    }
    let lower = name.to_ascii_lowercase();
    let es = significant.iter().any(|t| t.is("precision"))
        || lower.contains(".es.")
        || lower.ends_with(".essl");
    (if es { 100 } else { 110 }, es)
}

/// One `#if` group: whether its current branch is taken, whether one was, whether `#else`
/// was seen, and whether the group's surroundings are active.
struct Cond {
    active: bool,
    taken: bool,
    seen_else: bool,
    outer: bool,
    at: usize,
}

struct Pre<'a> {
    text: &'a str,
    macros: HashMap<Rc<str>, Macro>,
    out: String,
    pieces: Vec<(usize, usize, bool)>,
    warnings: Vec<Diagnostic>,
    /// `#line`: what `__LINE__` adds to the physical line.
    line_offset: i64,
}

type Failure = Box<Diagnostic>;

fn error(range: Range<usize>, message: impl Into<String>) -> Failure {
    let mut d = Diagnostic::error(Rule::GlslPreprocessor, message);
    d.text_range = Some(range);
    Box::new(d)
}

impl Pre<'_> {
    fn define_text(&mut self, name: &str, value: &str) {
        let body = lex(value)
            .into_iter()
            .filter(|t| !matches!(t.kind, Kind::Space | Kind::Newline))
            .map(|mut t| {
                t.verbatim = false;
                t.at = 0;
                t
            })
            .collect();
        self.macros
            .insert(Rc::from(name), Macro { params: None, body });
    }

    /// Appends a token to the output.
    fn emit(&mut self, t: &Tok) {
        let continues = self.pieces.last().is_some_and(|&(out, at, verbatim)| {
            if t.verbatim {
                verbatim && at + (self.out.len() - out) == t.at
            } else {
                !verbatim && at == t.at
            }
        });
        if !continues {
            self.pieces.push((self.out.len(), t.at, t.verbatim));
        }
        self.out.push_str(&t.text);
    }

    fn newline(&mut self, at: usize) {
        self.emit(&Tok {
            kind: Kind::Newline,
            text: Rc::from("\n"),
            at,
            verbatim: false,
            hide: Rc::from(Vec::new()),
        });
    }

    fn run(&mut self, toks: &[Tok]) -> Result<(), Failure> {
        let mut conds: Vec<Cond> = Vec::new();
        let mut k = 0;
        let mut line_start = true;
        while k < toks.len() {
            let active = conds.last().is_none_or(|c| c.active);
            let t = &toks[k];
            // A directive: `#` first on its line.
            if line_start && t.is("#") {
                let end = toks[k..]
                    .iter()
                    .position(|t| t.kind == Kind::Newline)
                    .map_or(toks.len(), |e| k + e);
                self.directive(&toks[k..end], &mut conds, active)?;
                k = end;
                continue;
            }
            match t.kind {
                Kind::Newline => {
                    line_start = true;
                    self.newline(t.at);
                    k += 1;
                    continue;
                }
                Kind::Space => {
                    if active {
                        self.emit(t);
                    } else {
                        for _ in t.text.matches('\n') {
                            self.newline(t.at);
                        }
                    }
                    k += 1;
                    continue;
                }
                _ => line_start = false,
            }
            if !active {
                k += 1;
                continue;
            }
            // The rest of the line's text (and further lines a macro's arguments need).
            let end = self.expansion_end(toks, k);
            let (expanded, breaks) = self.expand(&toks[k..end])?;
            for e in &expanded {
                self.emit(e);
            }
            for _ in 0..breaks {
                self.newline(toks[end.saturating_sub(1)].at);
            }
            k = end;
        }
        if let Some(c) = conds.last() {
            return Err(error(c.at..c.at + 1, "this `#if` has no `#endif`"));
        }
        Ok(())
    }

    /// Where the text expanded from `toks[k]` ends: the end of its line, or further while
    /// a function-like macro's argument list is open (a call of one may span lines).
    fn expansion_end(&self, toks: &[Tok], k: usize) -> usize {
        // The depth of parentheses inside an open macro call (0: none open).
        let mut call_depth = 0usize;
        let mut pending_call = false;
        let mut e = k;
        while e < toks.len() {
            let t = &toks[e];
            match t.kind {
                Kind::Newline if call_depth == 0 && !pending_call => break,
                Kind::Ident if call_depth == 0 => {
                    // A function-like macro, or a name that expands to one (`#define F SQ`).
                    let function_like =
                        |name: &str| self.macros.get(name).is_some_and(|m| m.params.is_some());
                    pending_call = function_like(&t.text)
                        || self.macros.get(&*t.text).is_some_and(|m| {
                            m.params.is_none()
                                && m.body
                                    .iter()
                                    .rev()
                                    .find(|b| b.kind != Kind::Space)
                                    .is_some_and(|b| function_like(&b.text))
                        });
                }
                Kind::Punct if t.is("(") => {
                    if call_depth > 0 || pending_call {
                        call_depth += 1;
                    }
                    pending_call = false;
                }
                Kind::Punct if t.is(")") => call_depth = call_depth.saturating_sub(1),
                Kind::Space | Kind::Newline => {}
                _ => pending_call = false,
            }
            // A directive line inside an argument list ends it (the GLSL spec leaves this
            // undefined; the argument list is then unterminated).
            if t.kind == Kind::Newline
                && toks[e + 1..]
                    .iter()
                    .find(|t| t.kind != Kind::Space)
                    .is_some_and(|t| t.is("#"))
            {
                break;
            }
            e += 1;
        }
        e
    }

    /// Expands the macros in `toks` (author text without directive lines). The line breaks
    /// it held come back as a count: they are written after the expansion.
    fn expand(&self, toks: &[Tok]) -> Result<(Vec<Tok>, usize), Failure> {
        let breaks = toks.iter().filter(|t| t.kind == Kind::Newline).count();
        // Joined onto one line, a `//` comment would hide what followed it: a space.
        let input: Vec<Tok> = toks
            .iter()
            .filter(|t| t.kind != Kind::Newline)
            .map(|t| {
                if breaks > 0 && t.kind == Kind::Space && t.text.starts_with("//") {
                    Tok {
                        text: Rc::from(" "),
                        verbatim: false,
                        ..t.clone()
                    }
                } else {
                    t.clone()
                }
            })
            .collect();
        Ok((self.expand_list(input, 0)?, breaks))
    }

    fn expand_list(&self, input: Vec<Tok>, depth: usize) -> Result<Vec<Tok>, Failure> {
        if depth > 200 {
            let at = input.first().map_or(0, |t| t.at);
            return Err(error(at..at + 1, "macros expand more than 200 levels deep"));
        }
        let mut queue: std::collections::VecDeque<Tok> = input.into();
        let mut out = Vec::new();
        while let Some(t) = queue.pop_front() {
            if t.kind != Kind::Ident || t.hide.iter().any(|h| **h == *t.text) {
                out.push(t);
                continue;
            }
            if &*t.text == "__LINE__" {
                let line = self.text[..t.at.min(self.text.len())].matches('\n').count() as i64
                    + 1
                    + self.line_offset;
                out.push(Tok {
                    kind: Kind::Number,
                    text: Rc::from(line.to_string()),
                    verbatim: false,
                    ..t
                });
                continue;
            }
            let Some(m) = self.macros.get(&*t.text) else {
                out.push(t);
                continue;
            };
            let mut hide: Vec<Rc<str>> = t.hide.to_vec();
            hide.push(t.text.clone());
            let hide: Rc<[Rc<str>]> = Rc::from(hide);
            let made = |b: &Tok| Tok {
                at: t.at,
                verbatim: false,
                hide: hide.clone(),
                ..b.clone()
            };
            let replacement: Vec<Tok> = match &m.params {
                None => paste(m.body.iter().map(made).collect()),
                Some(params) => {
                    // A function-like macro's name without `(` after it is just a name.
                    let next = queue.iter().position(|t| t.kind != Kind::Space);
                    if !next.is_some_and(|n| queue[n].is("(")) {
                        out.push(t);
                        continue;
                    }
                    for _ in 0..=next.unwrap_or(0) {
                        queue.pop_front();
                    }
                    let args = arguments(&mut queue, &t)?;
                    let args = if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                        Vec::new()
                    } else {
                        args
                    };
                    if args.len() != params.len() {
                        return Err(error(
                            t.at..t.at + t.text.len(),
                            format!(
                                "the macro `{}` takes {} argument{}, and is given {}",
                                t.text,
                                params.len(),
                                if params.len() == 1 { "" } else { "s" },
                                args.len()
                            ),
                        ));
                    }
                    let mut body = Vec::new();
                    for (j, b) in m.body.iter().enumerate() {
                        let param = (b.kind == Kind::Ident)
                            .then(|| params.iter().position(|p| **p == *b.text))
                            .flatten();
                        let Some(index) = param else {
                            body.push(made(b));
                            continue;
                        };
                        // An operand of `##` is pasted as written; others expand first.
                        let near = |d: isize| {
                            let mut q = j as isize + d;
                            while q >= 0 && (q as usize) < m.body.len() {
                                if m.body[q as usize].kind != Kind::Space {
                                    return m.body[q as usize].is("##");
                                }
                                q += d;
                            }
                            false
                        };
                        let arg: Vec<Tok> = args[index].iter().map(made).collect();
                        if near(-1) || near(1) {
                            body.extend(arg);
                        } else {
                            let expanded = self.expand_list(args[index].clone(), depth + 1)?;
                            body.extend(expanded.iter().map(|e| Tok {
                                at: t.at,
                                verbatim: false,
                                hide: hide.clone(),
                                ..e.clone()
                            }));
                        }
                    }
                    paste(body)
                }
            };
            // Rescanned with what follows (a name that expands to a function-like macro's
            // name takes the arguments after it). A space keeps it from gluing to a word
            // on either side.
            let word =
                |t: Option<&Tok>| t.is_some_and(|t| matches!(t.kind, Kind::Ident | Kind::Number));
            let mut spaced = Vec::with_capacity(replacement.len() + 2);
            if word(out.last()) && word(replacement.first()) {
                spaced.push(space(&t, &hide));
            }
            let glue_after = word(replacement.last()) && word(queue.front());
            spaced.extend(replacement);
            if glue_after {
                spaced.push(space(&t, &hide));
            }
            for r in spaced.into_iter().rev() {
                queue.push_front(r);
            }
            if queue.len() > 1 << 20 {
                return Err(error(
                    t.at..t.at + 1,
                    "a macro expands to more than 2^20 tokens",
                ));
            }
        }
        // Two spaces in a row (from an expansion) are one.
        out.dedup_by(|b, a| {
            a.kind == Kind::Space && b.kind == Kind::Space && !b.verbatim && &*b.text == " "
        });
        Ok(out)
    }

    fn directive(
        &mut self,
        line: &[Tok],
        conds: &mut Vec<Cond>,
        active: bool,
    ) -> Result<(), Failure> {
        let words: Vec<&Tok> = line.iter().filter(|t| t.kind != Kind::Space).collect();
        let start = line[0].at;
        let end = line.last().map_or(start, |t| t.at + t.text.len());
        let range = start..end;
        let name = words.get(1).map_or("", |w| &*w.text);
        let rest: Vec<Tok> = {
            let after = line
                .iter()
                .position(|t| words.get(1).is_some_and(|w| std::ptr::eq(t, *w)))
                .map_or(line.len(), |p| p + 1);
            line[after..].to_vec()
        };
        let rest_words: Vec<&Tok> = rest.iter().filter(|t| t.kind != Kind::Space).collect();
        // Line breaks inside the directive (`\` continuations, comments) are blank lines
        // after it.
        let continuations: usize = line
            .iter()
            .filter(|t| t.kind == Kind::Space)
            .map(|t| t.text.matches('\n').count())
            .sum();
        let blank = |p: &mut Self| {
            for _ in 0..continuations {
                p.newline(end);
            }
        };
        match name {
            "if" | "ifdef" | "ifndef" => {
                let value = if !active {
                    false
                } else if name == "if" {
                    self.condition(&rest, &range)? != 0
                } else {
                    let Some(w) = rest_words.first().filter(|w| w.kind == Kind::Ident) else {
                        return Err(error(range, format!("`#{name}` needs a macro name")));
                    };
                    self.macros.contains_key(&*w.text) == (name != "ifndef")
                };
                conds.push(Cond {
                    active: active && value,
                    taken: value,
                    seen_else: false,
                    outer: active,
                    at: start,
                });
            }
            "elif" | "else" => {
                let Some(c) = conds.last_mut() else {
                    return Err(error(range, format!("`#{name}` without `#if`")));
                };
                if c.seen_else {
                    return Err(error(range, format!("`#{name}` after `#else`")));
                }
                let (outer, taken) = (c.outer, c.taken);
                let value = if name == "else" {
                    !taken
                } else if !outer || taken {
                    false
                } else {
                    self.condition(&rest, &range)? != 0
                };
                let c = conds.last_mut().expect("checked above");
                c.seen_else = name == "else";
                c.active = outer && value;
                c.taken |= value;
            }
            "endif" => {
                if conds.pop().is_none() {
                    return Err(error(range, "`#endif` without `#if`"));
                }
            }
            _ if !active => {}
            "" => {} // `#` alone
            "define" => self.define(&rest, &range)?,
            "undef" => {
                let Some(w) = rest_words.first().filter(|w| w.kind == Kind::Ident) else {
                    return Err(error(range, "`#undef` needs a macro name"));
                };
                self.macros.remove(&*w.text);
            }
            "error" => {
                let message = self.text[range.clone()].trim_start_matches(['#', ' ', '\t']);
                return Err(error(range.clone(), format!("#{}", message.trim_end())));
            }
            "line" => {
                // `#line L [S]`: the next line is L (macros expanded first).
                let (expanded, _) = self.expand(&rest)?;
                let number = expanded
                    .iter()
                    .find(|t| t.kind != Kind::Space)
                    .and_then(|t| t.text.parse::<i64>().ok())
                    .ok_or_else(|| error(range.clone(), "`#line` needs a line number"))?;
                let physical = self.text[..end].matches('\n').count() as i64 + 2;
                self.line_offset = number - physical;
            }
            "pragma" => {}
            "version" | "extension" => {
                // Kept for the rewrite (and naga): spelled as the GLSL spec spells it.
                let words: Vec<&str> = rest_words.iter().map(|w| &*w.text).collect();
                let text = match name {
                    "version" => format!("#version {}", words.join(" ")),
                    _ => format!("#extension {}", words.join(" ")),
                };
                self.emit(&Tok {
                    kind: Kind::Punct,
                    text: Rc::from(text),
                    at: start,
                    verbatim: false,
                    hide: Rc::from(Vec::new()),
                });
            }
            other => {
                return Err(error(
                    range,
                    format!("`#{other}` is not a GLSL preprocessor directive"),
                ));
            }
        }
        blank(self);
        Ok(())
    }

    fn define(&mut self, rest: &[Tok], range: &Range<usize>) -> Result<(), Failure> {
        let mut k = 0;
        while k < rest.len() && rest[k].kind == Kind::Space {
            k += 1;
        }
        let Some(name) = rest.get(k).filter(|t| t.kind == Kind::Ident) else {
            return Err(error(range.clone(), "`#define` needs a macro name"));
        };
        if name.text.starts_with("GL_") || name.text.contains("__") {
            let mut d = Diagnostic::warning(
                Rule::GlslPreprocessor,
                format!(
                    "`{}` is reserved (names starting with `GL_` or holding `__` are the \
                     implementation's); defined anyway",
                    name.text
                ),
            );
            d.text_range = Some(name.at..name.at + name.text.len());
            self.warnings.push(d);
        }
        k += 1;
        // `(` right after the name: a function-like macro.
        let params = if rest.get(k).is_some_and(|t| t.is("(")) {
            k += 1;
            let mut params = Vec::new();
            loop {
                while k < rest.len() && rest[k].kind == Kind::Space {
                    k += 1;
                }
                match rest.get(k) {
                    Some(t) if t.is(")") && params.is_empty() => {
                        k += 1;
                        break;
                    }
                    Some(t) if t.kind == Kind::Ident => params.push(t.text.clone()),
                    _ => {
                        return Err(error(
                            range.clone(),
                            "a macro's parameter list is names separated by commas",
                        ));
                    }
                }
                k += 1;
                while k < rest.len() && rest[k].kind == Kind::Space {
                    k += 1;
                }
                match rest.get(k) {
                    Some(t) if t.is(",") => k += 1,
                    Some(t) if t.is(")") => {
                        k += 1;
                        break;
                    }
                    _ => {
                        return Err(error(
                            range.clone(),
                            "a macro's parameter list is names separated by commas",
                        ));
                    }
                }
            }
            Some(params)
        } else {
            None
        };
        let mut body: Vec<Tok> = rest[k..].to_vec();
        while body.first().is_some_and(|t| t.kind == Kind::Space) {
            body.remove(0);
        }
        while body.last().is_some_and(|t| t.kind == Kind::Space) {
            body.pop();
        }
        // Spaces inside the body are one space.
        for t in &mut body {
            if t.kind == Kind::Space {
                t.text = Rc::from(" ");
            }
        }
        let m = Macro { params, body };
        if let Some(old) = self.macros.get(&name.text) {
            if !same(old, &m) {
                self.warnings.push({
                    let mut d = Diagnostic::warning(
                        Rule::GlslPreprocessor,
                        format!(
                            "`{}` is defined again, differently: the new body holds",
                            name.text
                        ),
                    );
                    d.text_range = Some(name.at..name.at + name.text.len());
                    d
                });
            }
        }
        self.macros.insert(name.text.clone(), m);
        Ok(())
    }

    /// The value of an `#if`/`#elif` expression.
    fn condition(&self, rest: &[Tok], range: &Range<usize>) -> Result<i64, Failure> {
        // `defined X` and `defined(X)` first, then macros.
        let mut resolved = Vec::new();
        let words: Vec<&Tok> = rest.iter().filter(|t| t.kind != Kind::Space).collect();
        let mut k = 0;
        while k < words.len() {
            let t = words[k];
            if t.is("defined") {
                let (name, used) = match (words.get(k + 1), words.get(k + 2), words.get(k + 3)) {
                    (Some(o), Some(n), Some(c)) if o.is("(") && c.is(")") => (n, 4),
                    (Some(n), _, _) if n.kind == Kind::Ident => (n, 2),
                    _ => return Err(error(range.clone(), "`defined` needs a macro name")),
                };
                let value = self.macros.contains_key(&*name.text) || &*name.text == "__LINE__";
                resolved.push(Tok {
                    kind: Kind::Number,
                    text: Rc::from(if value { "1" } else { "0" }),
                    verbatim: false,
                    ..t.clone()
                });
                k += used;
                continue;
            }
            resolved.push(t.clone());
            k += 1;
        }
        let expanded: Vec<Tok> = self
            .expand_list(resolved, 0)?
            .into_iter()
            .filter(|t| t.kind != Kind::Space)
            .collect();
        let mut e = Expr {
            toks: &expanded,
            k: 0,
            range: range.clone(),
            depth: 0,
        };
        let value = e.ternary()?;
        if e.k != expanded.len() {
            return Err(error(
                range.clone(),
                format!(
                    "unexpected `{}` in the `#if` expression",
                    expanded[e.k].text
                ),
            ));
        }
        Ok(value)
    }
}

fn space(t: &Tok, hide: &Rc<[Rc<str>]>) -> Tok {
    Tok {
        kind: Kind::Space,
        text: Rc::from(" "),
        at: t.at,
        verbatim: false,
        hide: hide.clone(),
    }
}

/// Whether two definitions are the same (a redefinition with the same body is allowed).
fn same(a: &Macro, b: &Macro) -> bool {
    let body = |m: &Macro| -> Vec<String> {
        m.body
            .iter()
            .filter(|t| t.kind != Kind::Space)
            .map(|t| t.text.to_string())
            .collect()
    };
    a.params == b.params && body(a) == body(b)
}

/// The arguments of a call whose `(` was taken off `queue`, each without its outer spaces.
fn arguments(
    queue: &mut std::collections::VecDeque<Tok>,
    name: &Tok,
) -> Result<Vec<Vec<Tok>>, Failure> {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    loop {
        let Some(t) = queue.pop_front() else {
            return Err(error(
                name.at..name.at + name.text.len(),
                format!("the call of the macro `{}` has no `)`", name.text),
            ));
        };
        if t.is("(") {
            depth += 1;
        } else if t.is(")") {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if t.is(",") && depth == 0 {
            args.push(Vec::new());
            continue;
        }
        args.last_mut().expect("one argument at least").push(t);
    }
    for a in &mut args {
        while a.first().is_some_and(|t| t.kind == Kind::Space) {
            a.remove(0);
        }
        while a.last().is_some_and(|t| t.kind == Kind::Space) {
            a.pop();
        }
    }
    Ok(args)
}

/// `a ## b` pasted into one token.
fn paste(mut toks: Vec<Tok>) -> Vec<Tok> {
    let mut k = 0;
    while k < toks.len() {
        if !toks[k].is("##") {
            k += 1;
            continue;
        }
        let before = (0..k).rev().find(|&j| toks[j].kind != Kind::Space);
        let after = (k + 1..toks.len()).find(|&j| toks[j].kind != Kind::Space);
        match (before, after) {
            (Some(b), Some(a)) => {
                let text = format!("{}{}", toks[b].text, toks[a].text);
                let kind = match lex(&text).as_slice() {
                    [one] => one.kind,
                    _ => Kind::Punct,
                };
                toks[b] = Tok {
                    kind,
                    text: Rc::from(text),
                    ..toks[b].clone()
                };
                toks.drain(b + 1..=a);
                k = b + 1;
            }
            _ => {
                toks.remove(k);
            }
        }
    }
    toks
}

/// An `#if` expression: C's integer operators, as GLSL has them.
struct Expr<'t> {
    toks: &'t [Tok],
    k: usize,
    range: Range<usize>,
    /// How deep the parser is (parentheses, unary operators, `?:`): bounded, so that no
    /// expression overflows the stack.
    depth: usize,
}

/// The deepest an `#if` expression may nest.
const MAX_DEPTH: usize = 256;

impl Expr<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.k).map(|t| &*t.text)
    }

    fn fail(&self, message: String) -> Failure {
        error(self.range.clone(), message)
    }

    fn ternary(&mut self) -> Result<i64, Failure> {
        self.depth += 1;
        let v = self.ternary_inner();
        self.depth -= 1;
        v
    }

    fn ternary_inner(&mut self) -> Result<i64, Failure> {
        if self.depth > MAX_DEPTH {
            return Err(self.fail(format!(
                "the `#if` expression nests more than {MAX_DEPTH} levels deep"
            )));
        }
        let c = self.binary(0)?;
        if self.peek() == Some("?") {
            self.k += 1;
            let a = self.ternary()?;
            if self.peek() != Some(":") {
                return Err(self.fail("`?` without `:` in the `#if` expression".into()));
            }
            self.k += 1;
            let b = self.ternary()?;
            return Ok(if c != 0 { a } else { b });
        }
        Ok(c)
    }

    fn binary(&mut self, min: u8) -> Result<i64, Failure> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek() {
            let level = match op {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => break,
            };
            if level < min.max(1) {
                break;
            }
            let op = op.to_string();
            self.k += 1;
            let rhs = self.binary(level + 1)?;
            lhs = match op.as_str() {
                "||" => i64::from(lhs != 0 || rhs != 0),
                "&&" => i64::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => i64::from(lhs == rhs),
                "!=" => i64::from(lhs != rhs),
                "<" => i64::from(lhs < rhs),
                ">" => i64::from(lhs > rhs),
                "<=" => i64::from(lhs <= rhs),
                ">=" => i64::from(lhs >= rhs),
                "<<" => lhs.wrapping_shl(rhs as u32),
                ">>" => lhs.wrapping_shr(rhs as u32),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" if rhs == 0 => {
                    return Err(self.fail("division by zero in the `#if` expression".into()));
                }
                "/" => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<i64, Failure> {
        self.depth += 1;
        let v = self.unary_inner();
        self.depth -= 1;
        v
    }

    fn unary_inner(&mut self) -> Result<i64, Failure> {
        if self.depth > MAX_DEPTH {
            return Err(self.fail(format!(
                "the `#if` expression nests more than {MAX_DEPTH} levels deep"
            )));
        }
        let Some(t) = self.toks.get(self.k) else {
            return Err(self.fail("the `#if` expression ends early".into()));
        };
        self.k += 1;
        match (t.kind, &*t.text) {
            (_, "!") => Ok(i64::from(self.unary()? == 0)),
            (_, "~") => Ok(!self.unary()?),
            (_, "-") => Ok(self.unary()?.wrapping_neg()),
            (_, "+") => self.unary(),
            (_, "(") => {
                let v = self.ternary()?;
                if self.peek() != Some(")") {
                    return Err(self.fail("`(` without `)` in the `#if` expression".into()));
                }
                self.k += 1;
                Ok(v)
            }
            (Kind::Number, n) => integer(n)
                .ok_or_else(|| self.fail(format!("`{n}` is not an integer the `#if` can use"))),
            (Kind::Ident, name) => Err(self.fail(format!(
                "`{name}` is not a macro: an `#if` expression reads only macros and integers \
                 (GLSL gives no default of 0)"
            ))),
            (_, other) => Err(self.fail(format!("unexpected `{other}` in the `#if` expression"))),
        }
    }
}

/// A GLSL integer literal (decimal, octal, hexadecimal, an optional `u`).
fn integer(text: &str) -> Option<i64> {
    let t = text.trim_end_matches(['u', 'U']);
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pp(text: &str) -> String {
        preprocess(text, Stage::Fragment, "t.frag", &[])
            .unwrap()
            .text
    }

    fn fails(text: &str) -> String {
        preprocess(text, Stage::Fragment, "t.frag", &[])
            .unwrap_err()
            .diagnostics
            .0[0]
            .message
            .clone()
    }

    #[test]
    fn qualifiers_and_types_spelled_through_macros_are_expanded() {
        let out = pp(
            "#define COMPAT_VARYING varying\n#define COMPAT_TEXTURE texture2D\n\
                      COMPAT_VARYING vec2 uv;\nvoid main() { gl_FragColor = COMPAT_TEXTURE(t, uv); }\n",
        );
        assert!(out.contains("varying vec2 uv;"), "{out}");
        assert!(
            out.contains("texture2D (t, uv)") || out.contains("texture2D(t, uv)"),
            "{out}"
        );
        // Lines hold: the directives are blank lines.
        assert_eq!(out.lines().count(), 4, "{out}");
    }

    #[test]
    fn conditionals_choose_and_lines_hold() {
        let src = "#version 100\n#ifdef GL_ES\nprecision mediump float;\n#else\n#define lowp\n\
                   #endif\n#if defined(FOO) || __VERSION__ >= 100 && !defined BAR\nint a;\n\
                   #elif 1\nint b;\n#endif\n";
        let out = pp(src);
        assert_eq!(out.lines().count(), src.lines().count(), "{out}");
        assert!(out.starts_with("#version 100\n"), "{out}");
        assert!(out.contains("precision mediump float;"), "{out}");
        assert!(out.contains("int a;") && !out.contains("int b;"), "{out}");
    }

    #[test]
    fn function_like_macros_take_arguments_across_lines_and_rescan() {
        let out = pp(
            "#define SQ(x) ((x) * (x))\n#define F SQ\nfloat a = F(1.0 +\n 2.0);\nfloat b = SQ;\n",
        );
        assert!(out.contains("((1.0 + 2.0) * (1.0 + 2.0))"), "{out}");
        assert!(out.contains("float b = SQ;"), "{out}");
        assert_eq!(out.lines().count(), 5, "{out}");
        // Self-reference stops; `##` pastes.
        let out =
            pp("#define x x + 1\n#define CAT(a, b) a ## b\nfloat q = x; float CAT(my, Name);\n");
        assert!(out.contains("x + 1;"), "{out}");
        assert!(out.contains("myName"), "{out}");
    }

    #[test]
    fn comments_spanning_lines_continue_a_directive_and_keep_the_lines() {
        // glslang's preprocessor.edge_cases.vert
        let src = "#define X(Y) /*\n */ Y + 2\n#define Z(Y) /*\n */ \\\n 2 /*\n */ + 3 \\\n * Y\n\
                   float a = X(3) + Z(2);\n/* a\n#define Q 1\n*/\n#ifdef Q\nint q;\n#endif\n";
        let out = pp(src);
        assert_eq!(out.lines().count(), src.lines().count(), "{out}");
        assert!(out.contains("float a = 3 + 2 + 2 + 3 * 2;"), "{out}");
        assert!(
            !out.contains("int q;"),
            "a #define inside a comment defines nothing: {out}"
        );
    }

    #[test]
    fn a_call_spanning_lines_keeps_its_lines_unless_a_macro_takes_it() {
        let src = "mat2 m = mat2(1.0, // one\n 2.0, // two\n 3.0, 4.0);\n#define F(a, b) a + b\n\
                   float x = F(1.0, // first\n 2.0);\nfloat y;\n";
        let out = pp(src);
        assert_eq!(out.lines().count(), src.lines().count(), "{out}");
        assert!(
            out.starts_with("mat2 m = mat2(1.0, // one\n 2.0, // two\n"),
            "{out}"
        );
        assert!(out.contains("float x = 1.0 + 2.0;"), "{out}");
        assert!(out.contains("\nfloat y;"), "{out}");
    }

    #[test]
    fn spaced_directives_and_pragmas_are_read() {
        let out = pp(
            "# version 100\n#pragma parameter X \"label\" 0.1 0.0 1.0 0.01\n\
                      #extension GL_OES_standard_derivatives : enable\nvoid main() {}\n",
        );
        assert!(
            out.starts_with("#version 100\n\n#extension GL_OES_standard_derivatives : enable\n"),
            "{out}"
        );
    }

    #[test]
    fn deep_expressions_are_errors_not_a_stack_overflow() {
        let deep = format!(
            "#if {}1{}\n#endif\n",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        assert!(fails(&deep).contains("nests more than 256"));
        let bangs = format!("#if {}1\n#endif\n", "!".repeat(100_000));
        assert!(fails(&bangs).contains("nests more than 256"));
        let macros = (0..300)
            .map(|k| format!("#define M{k} M{}\n", k + 1))
            .collect::<String>()
            + "float x = M0;\n";
        assert!(preprocess(&macros, Stage::Vertex, "t", &[]).is_ok());
    }

    #[test]
    fn errors_name_the_rule_and_the_place() {
        assert!(fails("#if FOO\n#endif\n").contains("`FOO` is not a macro"));
        assert!(fails("#ifdef A\n").contains("no `#endif`"));
        assert!(fails("#error stop here\n").contains("#error stop here"));
        assert!(fails("#define F(a) a\nF(1, 2)\n").contains("takes 1 argument"));
        assert!(fails("#foo\n").contains("not a GLSL preprocessor directive"));
        let e = preprocess("int a;\n#if 1 +\n#endif\n", Stage::Vertex, "t", &[]).unwrap_err();
        assert_eq!(e.diagnostics.0[0].rule, "glsl.preprocessor");
        assert_eq!(
            e.diagnostics.0[0].text_range.clone().map(|r| r.start),
            Some(7)
        );
    }

    #[test]
    fn expansions_map_back_to_the_name_that_invoked_them() {
        let src = "#define T texture2D\nvec4 c = T(s, uv);\n";
        let p = preprocess(src, Stage::Fragment, "t", &[]).unwrap();
        let at = p.text.find("texture2D").unwrap();
        let original = p.original(at..at + 9);
        assert_eq!(&src[original.start..original.start + 1], "T");
        let uv = p.text.find("uv").unwrap();
        assert_eq!(&src[p.original(uv..uv + 2)], "uv");
    }

    #[test]
    fn defines_from_the_command_line_and_es_predefines() {
        let p = preprocess(
            "precision highp float;\n#if defined(GL_ES) && GL_FRAGMENT_PRECISION_HIGH && N == 3\nint ok;\n#endif\n",
            Stage::Fragment,
            "t",
            &[("N".into(), "3".into())],
        )
        .unwrap();
        assert!(p.text.contains("int ok;"), "{}", p.text);
    }
}
