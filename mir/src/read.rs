//! The MIR reader: the text [`crate::print`] writes, back into a [`Module`] or a
//! [`Function`], so that pass tests can be written as text (`mir/filetests/`).
//!
//! It reads what the printer writes and a little more, for text written by hand:
//! - lines that are only a comment (`; ...`) and blank lines are skipped anywhere;
//! - a comment after an instruction is its source line when it reads `; file:line`, and is
//!   ignored otherwise; a comment after a label is a structure annotation when it starts
//!   with `if`, `loop` or `region`, and is ignored otherwise;
//! - values `vN` and blocks `bN` need not be dense nor in order. Their numbers are kept (the
//!   arenas are padded with dead entries, as passes leave them), so the text of a module read
//!   back prints as it was written; numbers far larger than the text needs (past 65535 and
//!   past 16 per value or block defined) are renumbered densely instead, in their order.
//!
//! What the text does not carry is made up: instruction spans have no SPIR-V ordinal, source
//! positions no column, and a constant's lanes past its width are 0. None of it changes how a
//! module prints or what it computes.
//!
//! Errors give the line and column (1-based) and what was expected there. The reader checks
//! the text and the references in it (every value defined once, every block and local
//! declared, operand counts); shapes, dominance and structure are the verifier's.

use std::fmt;

use crate::arena::{Arena, Handle};
use crate::func::{Block, BlockId, Edge, Function, Local, Structure, Terminator, ValueData};
use crate::func::{LocalId, ValueDef};
use crate::hash::HashMap;
use crate::inst::{CmpOp, Inst, Op, Operand, SampleKind};
use crate::module::{
    BuiltIn, Geometry, Input, InputPrimitive, MatrixLayout, Module, Output, OutputPrimitive,
    Sampler, Stage, TextureDim, Uniform,
};
use crate::span::{SourcePos, Span};
use crate::types::{Swizzle, Ty};

/// Why text is not MIR: where, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// What was expected, or what is wrong.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ReadError {}

/// Reads a module as [`crate::print::print_module`] writes it.
pub fn read_module(text: &str) -> Result<Module, ReadError> {
    let mut lines = Lines::new(text);
    let header = read_header(&mut lines)?;
    let mut module = Module {
        stage: header.stage,
        geometry: header.geometry,
        entry_point: header.entry_point,
        inputs: Arena::new(),
        outputs: header.outputs,
        uniforms: header.uniforms,
        samplers: Arena::new(),
        function: Function::new(""),
        source_files: Vec::new(),
    };
    let mut names = Names::default();
    for (number, input) in header.inputs {
        names
            .inputs
            .insert(number, module.inputs.push(input).index());
    }
    for (number, sampler) in header.samplers {
        names
            .samplers
            .insert(number, module.samplers.push(sampler).index());
    }
    let returns = Some(module.outputs.iter().map(|o| Ty::float(o.lanes)).collect());
    let (function, files) = read_body(&mut lines, &names, returns)?;
    module.function = function;
    module.source_files = files;
    Ok(module)
}

/// Reads a lone function as [`crate::print::print_function`] writes it (inputs and samplers
/// are taken by their numbers; source lines are dropped, as there is no module to name
/// their files).
pub fn read_function(text: &str) -> Result<Function, ReadError> {
    let mut lines = Lines::new(text);
    let names = Names {
        open: true,
        ..Names::default()
    };
    Ok(read_body(&mut lines, &names, None)?.0)
}

/// Numbers above this (and above 16 per entity defined) are renumbered rather than kept, so
/// that a short text cannot make huge arenas.
const KEPT_NUMBERS: usize = 1 << 16;

// --- lines and a cursor over one ---

/// The lines of the text that are not blank or only a comment.
struct Lines<'a> {
    lines: Vec<(usize, &'a str)>,
    next: usize,
    /// The line after the last, for errors at the end of the text.
    end: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let all: Vec<&str> = text.lines().collect();
        let lines = all
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                let t = l.trim_start();
                !t.is_empty() && !t.starts_with(';')
            })
            .map(|(n, l)| (n + 1, *l))
            .collect();
        Lines {
            lines,
            next: 0,
            end: all.len() + 1,
        }
    }

    fn peek(&self) -> Option<Cursor<'a>> {
        self.lines.get(self.next).map(|&(n, l)| Cursor::new(n, l))
    }

    fn next(&mut self) -> Option<Cursor<'a>> {
        let c = self.peek();
        self.next += 1;
        c
    }

    fn eof_error(&self, what: &str) -> ReadError {
        ReadError {
            line: self.end,
            column: 1,
            message: format!("expected {what}, found the end of the text"),
        }
    }
}

#[derive(Clone)]
struct Cursor<'a> {
    line: usize,
    text: &'a str,
    pos: usize,
}

/// A position in the text, for errors found after reading.
#[derive(Clone, Copy, Debug)]
struct Pos {
    line: usize,
    column: usize,
}

impl Pos {
    fn error(self, message: impl Into<String>) -> ReadError {
        ReadError {
            line: self.line,
            column: self.column,
            message: message.into(),
        }
    }
}

impl<'a> Cursor<'a> {
    fn new(line: usize, text: &'a str) -> Self {
        Cursor { line, text, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn at(&self) -> Pos {
        let column = self.text.get(..self.pos).map_or(0, |s| s.chars().count()) + 1;
        Pos {
            line: self.line,
            column,
        }
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek_char(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    fn error(&mut self, expected: &str) -> ReadError {
        self.skip_ws();
        let found = match self.rest().chars().next() {
            None | Some(';') => "the end of the line".to_string(),
            Some(_) => {
                let word: String = self
                    .rest()
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .take(24)
                    .collect();
                format!("`{word}`")
            }
        };
        self.at()
            .error(format!("expected {expected}, found {found}"))
    }

    /// Takes `token` if the text goes on with it.
    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), ReadError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(&format!("`{token}`")))
        }
    }

    /// Takes `keyword` if the text goes on with it as a whole word.
    fn eat_word(&mut self, keyword: &str) -> bool {
        let save = self.pos;
        if self.word() == Some(keyword) {
            true
        } else {
            self.pos = save;
            false
        }
    }

    fn expect_word(&mut self, keyword: &str) -> Result<(), ReadError> {
        if self.eat_word(keyword) {
            Ok(())
        } else {
            Err(self.error(&format!("`{keyword}`")))
        }
    }

    /// A word: letters, digits, `_`, and `.` before a letter (`cmp.lt`, `sample.proj`).
    fn word(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let mut n = 0;
        while n < bytes.len() {
            let b = bytes[n];
            let dotted = b == b'.' && bytes.get(n + 1).is_some_and(u8::is_ascii_alphabetic);
            if b.is_ascii_alphanumeric() || b == b'_' || (dotted && n > 0) {
                n += 1;
            } else {
                break;
            }
        }
        if n == 0 {
            return None;
        }
        self.pos += n;
        rest.get(..n)
    }

    /// A decimal number.
    fn number(&mut self, what: &str) -> Result<u32, ReadError> {
        self.skip_ws();
        let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
        let at = self.at();
        let text = self.rest().get(..digits).unwrap_or("");
        match text.parse::<u32>() {
            Ok(n) => {
                self.pos += digits;
                Ok(n)
            }
            Err(_) if digits > 0 => Err(at.error(format!("{what} is too large"))),
            Err(_) => Err(self.error(what)),
        }
    }

    /// A name with a one-letter prefix and a number: `v12`, `b3`, `u0`.
    fn prefixed(&mut self, prefix: char, what: &str) -> Result<u32, ReadError> {
        self.skip_ws();
        let mut chars = self.rest().chars();
        if chars.next() == Some(prefix) && chars.next().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += prefix.len_utf8();
            self.number(what)
        } else {
            Err(self.error(what))
        }
    }

    /// Whether a name `prefix` followed by a digit comes next.
    fn at_prefixed(&mut self, prefix: char) -> bool {
        self.skip_ws();
        let mut chars = self.rest().chars();
        chars.next() == Some(prefix) && chars.next().is_some_and(|c| c.is_ascii_digit())
    }

    /// A quoted name, with the escapes [`crate::print::quoted`] writes.
    fn string(&mut self) -> Result<String, ReadError> {
        self.skip_ws();
        if !self.rest().starts_with('"') {
            return Err(self.error("a quoted name"));
        }
        let at = self.at();
        self.pos += 1;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, '"')) => out.push('"'),
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, 'n')) => out.push('\n'),
                    Some((j, 'u')) => {
                        let rest = self.rest().get(j + 1..).unwrap_or("");
                        let code = rest
                            .strip_prefix('{')
                            .and_then(|r| r.split_once('}'))
                            .and_then(|(hex, _)| u32::from_str_radix(hex, 16).ok())
                            .and_then(char::from_u32);
                        let Some(code) = code else {
                            self.pos += j;
                            return Err(self.at().error("expected `u{hex}` after `\\`"));
                        };
                        out.push(code);
                        // Past the braces: `{`, the digits, `}`.
                        let len = rest.find('}').map_or(0, |e| e + 1);
                        for _ in 0..rest[..len].chars().count() {
                            chars.next();
                        }
                    }
                    _ => {
                        self.pos += i;
                        return Err(self
                            .at()
                            .error("expected `\\\"`, `\\\\`, `\\n` or `\\u{..}`"));
                    }
                },
                c => out.push(c),
            }
        }
        Err(at.error("a quoted name is not closed on its line"))
    }

    /// Everything up to the next white space, comma or parenthesis.
    fn token(&mut self) -> &'a str {
        self.skip_ws();
        let rest = self.rest();
        let n = rest
            .find(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | ';'))
            .unwrap_or(rest.len());
        self.pos += n;
        &rest[..n]
    }

    /// The end of the line: nothing but perhaps a comment, whose text is returned.
    fn end(&mut self) -> Result<Option<&'a str>, ReadError> {
        self.skip_ws();
        let rest = self.rest();
        if rest.is_empty() {
            Ok(None)
        } else if let Some(comment) = rest.strip_prefix(';') {
            self.pos = self.text.len();
            Ok(Some(comment.trim()))
        } else {
            Err(self.error("the end of the line"))
        }
    }

    /// Whether only a comment or nothing is left.
    fn at_end(&mut self) -> bool {
        matches!(self.peek_char(), None | Some(';'))
    }
}

// --- the module header ---

struct Header {
    stage: Stage,
    geometry: Option<Geometry>,
    entry_point: String,
    inputs: Vec<(u32, Input)>,
    outputs: Vec<Output>,
    uniforms: Vec<Uniform>,
    samplers: Vec<(u32, Sampler)>,
}

fn read_header(lines: &mut Lines<'_>) -> Result<Header, ReadError> {
    let mut c = lines
        .next()
        .ok_or_else(|| lines.eof_error("a stage (`vertex`, `fragment` or `geometry`)"))?;
    let stage = match c.word() {
        Some("vertex") => Stage::Vertex,
        Some("fragment") => Stage::Fragment,
        Some("geometry") => Stage::Geometry,
        _ => {
            c.pos = 0;
            return Err(c.error("a stage (`vertex`, `fragment` or `geometry`)"));
        }
    };
    let entry_point = c.string()?;
    c.end()?;
    let mut header = Header {
        stage,
        geometry: None,
        entry_point,
        inputs: Vec::new(),
        outputs: Vec::new(),
        uniforms: Vec::new(),
        samplers: Vec::new(),
    };
    while let Some(mut c) = lines.peek() {
        let save = c.clone();
        match c.word() {
            Some("fn") => break,
            Some("primitives") => header.geometry = Some(read_primitives(&mut c)?),
            Some("input") => {
                let number = c.prefixed('i', "an input `iN`")?;
                if header.inputs.iter().any(|(n, _)| *n == number) {
                    return Err(save
                        .at()
                        .error(format!("input i{number} is declared twice")));
                }
                header.inputs.push((number, read_input(&mut c)?));
            }
            Some("output") => header.outputs.push(read_output(&mut c)?),
            Some("uniform") => header.uniforms.push(read_uniform(&mut c)?),
            Some("sampler") => {
                let number = c.prefixed('s', "a sampler `sN`")?;
                if header.samplers.iter().any(|(n, _)| *n == number) {
                    return Err(save
                        .at()
                        .error(format!("sampler s{number} is declared twice")));
                }
                let name = c.string()?;
                c.expect_word("binding")?;
                let binding = c.number("a binding")?;
                let dim = match c.word() {
                    Some("D2") => TextureDim::D2,
                    Some("Cube") => TextureDim::Cube,
                    _ => return Err(c.error("a dimension (`D2` or `Cube`)")),
                };
                header
                    .samplers
                    .push((number, Sampler { name, binding, dim }));
            }
            _ => {
                let mut c = save;
                return Err(c.error(
                    "`input`, `output`, `uniform`, `sampler`, `primitives` or `fn` in the \
                     module header",
                ));
            }
        }
        c.end()?;
        lines.next();
    }
    Ok(header)
}

/// `primitives triangles -> triangle_strip, max_vertices 3` (after `primitives`).
fn read_primitives(c: &mut Cursor<'_>) -> Result<Geometry, ReadError> {
    let inputs = [
        InputPrimitive::Points,
        InputPrimitive::Lines,
        InputPrimitive::LinesAdjacency,
        InputPrimitive::Triangles,
        InputPrimitive::TrianglesAdjacency,
    ];
    let word = c.word();
    let Some(&input) = inputs.iter().find(|p| Some(p.name()) == word) else {
        return Err(c.error("an input primitive (`points`, `lines`, `triangles`, ...)"));
    };
    c.expect("->")?;
    let outputs = [
        OutputPrimitive::Points,
        OutputPrimitive::LineStrip,
        OutputPrimitive::TriangleStrip,
    ];
    let word = c.word();
    let Some(&output) = outputs.iter().find(|p| Some(p.name()) == word) else {
        return Err(c.error("an output primitive (`points`, `line_strip` or `triangle_strip`)"));
    };
    c.expect(",")?;
    c.expect_word("max_vertices")?;
    let max_vertices = c.number("a vertex count")?;
    Ok(Geometry {
        input,
        output,
        max_vertices,
    })
}

fn builtin(word: Option<&str>) -> Option<BuiltIn> {
    match word? {
        "Position" => Some(BuiltIn::Position),
        "FragDepth" => Some(BuiltIn::FragDepth),
        "PointSize" => Some(BuiltIn::PointSize),
        _ => None,
    }
}

/// `"name" location 0 vec4 [vertex 1] [Position]` (after `input iN`).
fn read_input(c: &mut Cursor<'_>) -> Result<Input, ReadError> {
    let name = c.string()?;
    c.expect_word("location")?;
    let location = c.number("a location")?;
    let lanes = read_float_ty(c)?;
    let mut input = Input::at(name, location, lanes);
    if c.eat_word("vertex") {
        input.vertex = Some(c.number("a vertex index")?);
    }
    if !c.at_end() {
        let word = c.word();
        input.builtin = builtin(word);
        if input.builtin.is_none() {
            return Err(c.error("a built-in (`Position`, `FragDepth` or `PointSize`)"));
        }
    }
    Ok(input)
}

/// `"name" (Position | location 0 | ?) vec4` (after `output`).
fn read_output(c: &mut Cursor<'_>) -> Result<Output, ReadError> {
    let name = c.string()?;
    let (mut location, mut builtin_) = (None, None);
    if c.eat_word("location") {
        location = Some(c.number("a location")?);
    } else if !c.eat("?") {
        let save = c.pos;
        builtin_ = builtin(c.word());
        if builtin_.is_none() {
            c.pos = save;
            return Err(c.error("`location N`, a built-in or `?`"));
        }
    }
    let lanes = read_float_ty(c)?;
    Ok(Output {
        name,
        location,
        builtin: builtin_,
        lanes,
    })
}

/// `u0..u3.y "name" mat4 row_major (block Camera)` (after `uniform`); `b` registers for
/// bools.
fn read_uniform(c: &mut Cursor<'_>) -> Result<Uniform, ReadError> {
    let space = if c.at_prefixed('b') { 'b' } else { 'u' };
    let register = c.prefixed(space, "a register `uN` or `bN`")?;
    let mut count = 1;
    if c.eat("..") {
        let at = c.at();
        let last = c.prefixed(space, &format!("the last register `{space}N`"))?;
        if last <= register {
            return Err(at.error("the last register must come after the first"));
        }
        count = last - register + 1;
    }
    let mut component = 0;
    if c.rest().starts_with('.') {
        c.pos += 1;
        component = match c.rest().chars().next() {
            Some('x') => 0,
            Some('y') => 1,
            Some('z') => 2,
            Some('w') => 3,
            _ => return Err(c.error("a component (`x`, `y`, `z` or `w`)")),
        };
        c.pos += 1;
    }
    let name = c.string()?;
    let type_name = c.token();
    if type_name.is_empty() {
        return Err(c.error("a type name"));
    }
    let save = c.pos;
    let layout = match c.word() {
        Some("column_major") => Some(MatrixLayout::ColumnMajor),
        Some("row_major") => Some(MatrixLayout::RowMajor),
        _ => {
            c.pos = save;
            None
        }
    };
    let mut block = None;
    if c.eat("(") {
        c.expect_word("block")?;
        c.skip_ws();
        let rest = c.rest();
        let Some(end) = rest.find(')') else {
            return Err(c.error("a block name and `)`"));
        };
        block = Some(rest[..end].trim_end().to_string());
        c.pos += end + 1;
    }
    // `default [1.0, 2.5]`: the value the source gives it.
    let save = c.pos;
    let default = if c.word() == Some("default") {
        c.skip_ws();
        let rest = c.rest();
        let (Some(list), Some(end)) = (rest.strip_prefix('['), rest.find(']')) else {
            return Err(c.error("`[` lanes `]` after `default`"));
        };
        let inner = &list[..end - 1];
        let lanes: Result<Vec<f32>, _> = inner
            .split(',')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::parse::<f32>)
            .collect();
        let lanes = lanes.map_err(|_| c.error("numbers for the default's lanes"))?;
        c.pos += end + 1;
        Some(lanes)
    } else {
        c.pos = save;
        None
    };
    Ok(Uniform {
        name,
        block,
        type_name: type_name.to_string(),
        layout,
        register,
        component,
        count,
        is_bool: space == 'b',
        default,
    })
}

fn read_ty(c: &mut Cursor<'_>) -> Result<Ty, ReadError> {
    let save = c.pos;
    let ty = match c.word() {
        Some("f32") => Some(Ty::float(1)),
        Some("vec2") => Some(Ty::float(2)),
        Some("vec3") => Some(Ty::float(3)),
        Some("vec4") => Some(Ty::float(4)),
        Some("bool") => Some(Ty::bool(1)),
        Some("bvec2") => Some(Ty::bool(2)),
        Some("bvec3") => Some(Ty::bool(3)),
        Some("bvec4") => Some(Ty::bool(4)),
        _ => None,
    };
    ty.ok_or_else(|| {
        c.pos = save;
        c.error("a type (`f32`, `vec2`..`vec4`, `bool`, `bvec2`..`bvec4`)")
    })
}

/// A float type; its lanes.
fn read_float_ty(c: &mut Cursor<'_>) -> Result<u8, ReadError> {
    let at = c.at();
    let ty = read_ty(c)?;
    if ty.is_float() {
        Ok(ty.lanes)
    } else {
        Err(at.error("expected a float type here"))
    }
}

// --- the function ---

/// How the function's text refers to the module: input and sampler numbers to their
/// handles (`open`: taken as they are, for a function read without its module).
#[derive(Default)]
struct Names {
    inputs: HashMap<u32, usize>,
    samplers: HashMap<u32, usize>,
    open: bool,
}

impl Names {
    fn input(&self, n: u32, at: Pos) -> Result<usize, ReadError> {
        match self.inputs.get(&n) {
            Some(&h) => Ok(h),
            None if self.open => Ok(n as usize),
            None => Err(at.error(format!("input i{n} is not declared"))),
        }
    }

    fn sampler(&self, n: u32, at: Pos) -> Result<usize, ReadError> {
        match self.samplers.get(&n) {
            Some(&h) => Ok(h),
            None if self.open => Ok(n as usize),
            None => Err(at.error(format!("sampler s{n} is not declared"))),
        }
    }
}

/// An operand as written: the value by its number.
#[derive(Clone, Copy)]
struct RawOperand {
    value: u32,
    at: Pos,
    swizzle: Swizzle,
    neg: bool,
    abs: bool,
}

struct RawEdge {
    target: u32,
    at: Pos,
    args: Vec<RawOperand>,
}

enum RawTerm {
    Jump(RawEdge),
    Branch(RawOperand, RawEdge, RawEdge),
    Return(Vec<RawOperand>),
    Discard,
    Unreachable,
}

enum RawStructure {
    If(u32),
    Loop(u32, u32),
    Region(u32),
}

struct RawInst {
    results: Vec<(u32, Ty, Pos)>,
    op: Op,
    args: Vec<RawOperand>,
    source: Option<SourcePos>,
}

struct RawBlock {
    number: u32,
    at: Pos,
    params: Vec<(u32, Ty, Pos)>,
    structure: Option<(RawStructure, Pos)>,
    insts: Vec<RawInst>,
    term: RawTerm,
}

/// Reads `fn ... { ... }`; returns the function and the source files its lines name.
fn read_body(
    lines: &mut Lines<'_>,
    names: &Names,
    returns: Option<Vec<Ty>>,
) -> Result<(Function, Vec<String>), ReadError> {
    let mut c = lines.next().ok_or_else(|| lines.eof_error("`fn`"))?;
    c.expect_word("fn")?;
    let name = if c.peek_char() == Some('"') {
        c.string()?
    } else {
        c.word()
            .ok_or_else(|| c.error("the function's name"))?
            .to_string()
    };
    c.expect("(")?;
    c.expect(")")?;
    c.expect("->")?;
    c.expect("(")?;
    let at = c.at();
    let mut declared = Vec::new();
    if !c.eat(")") {
        loop {
            declared.push(read_ty(&mut c)?);
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    if let Some(returns) = returns
        && returns != declared
    {
        let list: Vec<String> = returns.iter().map(Ty::to_string).collect();
        return Err(at.error(format!(
            "the function must return the module's outputs: ({})",
            list.join(", ")
        )));
    }
    c.expect("{")?;
    c.end()?;

    let mut locals: Arena<Local> = Arena::new();
    let mut local_numbers: HashMap<u32, LocalId> = HashMap::default();
    let mut files: Vec<String> = Vec::new();
    let mut blocks: Vec<RawBlock> = Vec::new();
    let mut current: Option<(RawBlock, bool)> = None;
    loop {
        let Some(mut c) = lines.next() else {
            return Err(lines.eof_error("`}` closing the function"));
        };
        if c.eat("}") {
            let at = c.at();
            c.end()?;
            if current.is_none() {
                return Err(at.error("expected a block before `}`: the function has none"));
            }
            if let Some((block, done)) = current.take() {
                if !done {
                    return Err(c.at().error(format!(
                        "expected a terminator ending b{} before `}}`",
                        block.number
                    )));
                }
                blocks.push(block);
            }
            break;
        }
        if c.at_prefixed('b') {
            let block = read_label(&mut c)?;
            if let Some((previous, done)) = current.take() {
                if !done {
                    return Err(block.at.error(format!(
                        "expected a terminator ending b{} before the next block",
                        previous.number
                    )));
                }
                blocks.push(previous);
            }
            current = Some((block, false));
            continue;
        }
        let save = c.clone();
        let word = c.word();
        if word == Some("local") {
            if current.is_some() {
                return Err(save
                    .at()
                    .error("locals are declared before the first block"));
            }
            let number = c.prefixed('l', "a local `lN`")?;
            c.expect(":")?;
            let ty = read_ty(&mut c)?;
            let local_name = c.string()?;
            c.end()?;
            if local_numbers.contains_key(&number) {
                return Err(save
                    .at()
                    .error(format!("local l{number} is declared twice")));
            }
            let id = locals.push(Local {
                ty,
                name: local_name,
            });
            local_numbers.insert(number, id);
            continue;
        }
        let Some((block, done)) = current.as_mut() else {
            let mut c = save;
            return Err(c.error("a block label `bN:` or a local"));
        };
        if *done {
            let mut c = save;
            return Err(c.error(&format!(
                "a block label: b{} has ended with its terminator",
                block.number
            )));
        }
        let term = match word {
            Some("jump") => Some(RawTerm::Jump(read_edge(&mut c)?)),
            Some("branch") => {
                let cond = read_operand(&mut c)?;
                c.expect(",")?;
                let then = read_edge(&mut c)?;
                c.expect(",")?;
                Some(RawTerm::Branch(cond, then, read_edge(&mut c)?))
            }
            Some("return") => {
                let values = if c.at_end() {
                    Vec::new()
                } else {
                    read_operands(&mut c)?
                };
                Some(RawTerm::Return(values))
            }
            Some("discard") => Some(RawTerm::Discard),
            Some("unreachable") => Some(RawTerm::Unreachable),
            _ => None,
        };
        if let Some(term) = term {
            c.end()?;
            block.term = term;
            *done = true;
            continue;
        }
        let mut c = save;
        let inst = read_inst(&mut c, names, &local_numbers, &mut files)?;
        block.insts.push(inst);
    }
    let mut c = match lines.next() {
        None => return Ok((build(name, locals, blocks)?, files)),
        Some(c) => c,
    };
    Err(c.error("the end of the text after the function"))
}

/// `bN(vK: ty, ...):  ; if, merge bM`.
fn read_label(c: &mut Cursor<'_>) -> Result<RawBlock, ReadError> {
    c.skip_ws();
    let at = c.at();
    let number = c.prefixed('b', "a block `bN`")?;
    let mut params = Vec::new();
    if c.eat("(") {
        loop {
            c.skip_ws();
            let vat = c.at();
            let v = c.prefixed('v', "a parameter `vN`")?;
            c.expect(":")?;
            params.push((v, read_ty(c)?, vat));
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    c.expect(":")?;
    c.skip_ws();
    let comment_at = c.at();
    let structure = match c.end()? {
        Some(comment) => read_structure(comment, comment_at)?.map(|s| (s, comment_at)),
        None => None,
    };
    Ok(RawBlock {
        number,
        at,
        params,
        structure,
        insts: Vec::new(),
        term: RawTerm::Unreachable,
    })
}

/// A label's comment: `if, merge bM`, `loop, merge bM, continue bC`, `region, merge bM`, or
/// anything else (no structure).
fn read_structure(comment: &str, at: Pos) -> Result<Option<RawStructure>, ReadError> {
    let mut c = Cursor::new(at.line, comment);
    let kind = c.word();
    if !matches!(kind, Some("if" | "loop" | "region")) {
        return Ok(None);
    }
    // Columns inside the comment are counted from its start: point at the comment instead.
    let fail = |_: ReadError| {
        at.error(format!(
            "expected `; {} merge bN{}` after the label",
            kind.unwrap_or("if").to_string() + ",",
            if kind == Some("loop") {
                ", continue bN"
            } else {
                ""
            }
        ))
    };
    c.expect(",").map_err(fail)?;
    c.expect_word("merge").map_err(fail)?;
    let merge = c.prefixed('b', "a block").map_err(fail)?;
    let structure = if kind == Some("loop") {
        c.expect(",").map_err(fail)?;
        c.expect_word("continue").map_err(fail)?;
        RawStructure::Loop(merge, c.prefixed('b', "a block").map_err(fail)?)
    } else if kind == Some("if") {
        RawStructure::If(merge)
    } else {
        RawStructure::Region(merge)
    };
    if !c.at_end() {
        return Err(fail(c.error("")));
    }
    Ok(Some(structure))
}

/// `bN` or `bN(operands)`.
fn read_edge(c: &mut Cursor<'_>) -> Result<RawEdge, ReadError> {
    c.skip_ws();
    let at = c.at();
    let target = c.prefixed('b', "a block `bN`")?;
    let mut args = Vec::new();
    if c.rest().starts_with('(') {
        c.pos += 1;
        if !c.eat(")") {
            args = read_operands(c)?;
            c.expect(")")?;
        }
    }
    Ok(RawEdge { target, at, args })
}

/// Operands separated by commas.
fn read_operands(c: &mut Cursor<'_>) -> Result<Vec<RawOperand>, ReadError> {
    let mut out = vec![read_operand(c)?];
    while c.eat(",") {
        out.push(read_operand(c)?);
    }
    Ok(out)
}

/// `-|v3|.zyx`: lanes past the named ones repeat the last, as the printer leaves them out.
fn read_operand(c: &mut Cursor<'_>) -> Result<RawOperand, ReadError> {
    c.skip_ws();
    let at = c.at();
    let neg = c.eat("-");
    let abs = c.eat("|");
    let value = c.prefixed('v', "an operand `vN`")?;
    if abs {
        c.expect("|")?;
    }
    let mut swizzle = Swizzle::IDENTITY;
    if c.rest().starts_with('.') {
        c.pos += 1;
        let letters: Vec<u8> = c
            .rest()
            .bytes()
            .take_while(|b| matches!(b, b'x' | b'y' | b'z' | b'w'))
            .collect();
        if letters.is_empty() || letters.len() > 4 {
            return Err(c.error("a swizzle of one to four of `xyzw`"));
        }
        c.pos += letters.len();
        let lane = |b: u8| match b {
            b'x' => 0,
            b'y' => 1,
            b'z' => 2,
            _ => 3,
        };
        let mut lanes = [0u8; 4];
        for (i, slot) in lanes.iter_mut().enumerate() {
            *slot = lane(letters[i.min(letters.len() - 1)]);
        }
        swizzle = Swizzle(lanes);
    }
    Ok(RawOperand {
        value,
        at,
        swizzle,
        neg,
        abs,
    })
}

/// The operations without immediates, by their printed names.
const PLAIN_OPS: &[Op] = &[
    Op::Mov,
    Op::Floor,
    Op::Ceil,
    Op::Trunc,
    Op::Round,
    Op::RoundEven,
    Op::Fract,
    Op::Sign,
    Op::Rcp,
    Op::Rsq,
    Op::Sqrt,
    Op::Exp2,
    Op::Log2,
    Op::Sin,
    Op::Cos,
    Op::Sat,
    Op::Ddx,
    Op::Ddy,
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Div,
    Op::Min,
    Op::Max,
    Op::Pow,
    Op::Mad,
    Op::Dph,
    Op::Cross,
    Op::Normalize,
    Op::And,
    Op::Or,
    Op::Not,
    Op::Select,
    Op::BoolToFloat,
    Op::Construct,
    Op::InstanceIndex,
    Op::FragCoord,
    Op::Kill,
    Op::EmitVertex,
    Op::EndPrimitive,
];

/// `vN: ty[, ...] = op immediates operands  ; file:line`, or an instruction without results.
fn read_inst(
    c: &mut Cursor<'_>,
    names: &Names,
    locals: &HashMap<u32, LocalId>,
    files: &mut Vec<String>,
) -> Result<RawInst, ReadError> {
    let mut results = Vec::new();
    if c.at_prefixed('v') {
        loop {
            c.skip_ws();
            let at = c.at();
            let v = c.prefixed('v', "a result `vN`")?;
            c.expect(":")?;
            results.push((v, read_ty(c)?, at));
            if c.eat("=") {
                break;
            }
            c.expect(",")?;
        }
    }
    c.skip_ws();
    let op_at = c.at();
    let Some(word) = c.word() else {
        return Err(c.error("an operation"));
    };
    let mut args = Vec::new();
    let op = match word {
        "const" => {
            let ty = match results.as_slice() {
                [(_, ty, _)] => *ty,
                _ => return Err(op_at.error("a constant has one result")),
            };
            let mut bits = [0u32; 4];
            for (lane, slot) in bits.iter_mut().enumerate().take(ty.lanes as usize) {
                if lane > 0 {
                    c.expect(",")?;
                }
                c.skip_ws();
                let at = c.at();
                let token = c.token();
                *slot = if ty.is_float() {
                    match token.parse::<f32>() {
                        Ok(x) => x.to_bits(),
                        Err(_) => {
                            return Err(at.error(format!("expected a number, found `{token}`")));
                        }
                    }
                } else {
                    match token {
                        "true" => 1,
                        "false" => 0,
                        _ => {
                            return Err(
                                at.error(format!("expected `true` or `false`, found `{token}`"))
                            );
                        }
                    }
                };
            }
            Op::Const(bits)
        }
        "input" => {
            let at = c.at();
            let n = c.number("an input number")?;
            Op::LoadInput(Handle::new(names.input(n, at)?))
        }
        "uniform" => Op::LoadUniform {
            register: c.prefixed('u', "a register `uN`")?,
        },
        "bool_uniform" => Op::LoadBoolUniform {
            register: c.prefixed('b', "a bool register `bN`")?,
        },
        "load_local" | "store_local" => {
            c.skip_ws();
            let at = c.at();
            let n = c.prefixed('l', "a local `lN`")?;
            let Some(&l) = locals.get(&n) else {
                return Err(at.error(format!("local l{n} is not declared")));
            };
            if word == "load_local" {
                Op::LoadLocal(l)
            } else {
                Op::StoreLocal(l)
            }
        }
        _ => {
            if let Some(op) = sample_op(word) {
                let (proj, kind) = op;
                c.skip_ws();
                let at = c.at();
                let n = c.prefixed('s', "a sampler `sN`")?;
                Op::Sample {
                    sampler: Handle::new(names.sampler(n, at)?),
                    kind,
                    proj,
                }
            } else if let Some(op) = numbered_op(word) {
                op
            } else if let Some(&op) = PLAIN_OPS.iter().find(|op| op.name() == word) {
                op
            } else {
                return Err(op_at.error(format!("expected an operation, found `{word}`")));
            }
        }
    };
    if !matches!(op, Op::Const(_)) && !c.at_end() {
        args = read_operands(c)?;
    }
    let (lo, hi) = match (op, op.arity()) {
        (_, Some(n)) => (n, n),
        (Op::LoadUniform { .. }, None) => (0, 1),
        (Op::Sample { kind, .. }, None) => {
            let n = 1 + usize::from(kind != SampleKind::Implicit);
            (n, n)
        }
        (Op::Construct, None) => (1, 4),
        _ => (0, usize::MAX),
    };
    if args.len() < lo || args.len() > hi {
        let count = if lo == hi {
            format!("{lo}")
        } else if hi == usize::MAX {
            format!("at least {lo}")
        } else {
            format!("{lo} to {hi}")
        };
        return Err(op_at.error(format!(
            "`{word}` takes {count} operand{}, not {}",
            if count == "1" { "" } else { "s" },
            args.len()
        )));
    }
    let effect = matches!(
        op,
        Op::Kill | Op::StoreLocal(_) | Op::EmitVertex | Op::EndPrimitive
    );
    if effect != results.is_empty() {
        return Err(op_at.error(if effect {
            format!("`{word}` has no result")
        } else {
            format!("`{word}` needs a result `vN: type =`")
        }));
    }
    let source = match c.end()? {
        Some(comment) => source_pos(comment, files),
        None => None,
    };
    Ok(RawInst {
        results,
        op,
        args,
        source,
    })
}

/// `sample[.proj][.bias|.lod]`: whether projective, and the level-of-detail kind.
fn sample_op(word: &str) -> Option<(bool, SampleKind)> {
    let rest = word.strip_prefix("sample")?;
    let (proj, rest) = match rest.strip_prefix(".proj") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let kind = match rest {
        "" => SampleKind::Implicit,
        ".bias" => SampleKind::Bias,
        ".lod" => SampleKind::Lod,
        _ => return None,
    };
    Some((proj, kind))
}

/// `dotN`, `matvecN`, `cmp.xx`.
fn numbered_op(word: &str) -> Option<Op> {
    if let Some(n) = word.strip_prefix("dot") {
        return match n {
            "2" | "3" | "4" => n.parse().ok().map(Op::Dot),
            _ => None,
        };
    }
    if let Some(n) = word.strip_prefix("matvec") {
        return match n {
            "2" | "3" | "4" => n.parse().ok().map(Op::MatVec),
            _ => None,
        };
    }
    let cmp = word.strip_prefix("cmp.")?;
    [
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Eq,
        CmpOp::Ne,
    ]
    .into_iter()
    .find(|c| c.name() == cmp)
    .map(Op::Cmp)
}

/// `file:line` in an instruction's comment, its file added to `files`; other comments are
/// not source lines.
fn source_pos(comment: &str, files: &mut Vec<String>) -> Option<SourcePos> {
    let (file, line) = comment.rsplit_once(':')?;
    if file.is_empty() {
        return None;
    }
    let line: u32 = line.parse().ok()?;
    let index = match files.iter().position(|f| f == file) {
        Some(i) => i,
        None => {
            files.push(file.to_string());
            files.len() - 1
        }
    };
    Some(SourcePos {
        file: index as u32,
        line,
        column: 0,
    })
}

// --- building the function ---

/// Numbers as written to arena indices: kept when they are small enough, else dense in
/// order of the numbers.
struct Numbering {
    map: HashMap<u32, usize>,
    len: usize,
}

impl Numbering {
    fn new(numbers: impl Iterator<Item = u32>, defined: usize) -> Numbering {
        let mut numbers: Vec<u32> = numbers.collect();
        numbers.sort_unstable();
        let max = numbers.last().map_or(0, |&n| n as usize);
        if max < KEPT_NUMBERS.max(16 * defined) {
            Numbering {
                map: numbers.iter().map(|&n| (n, n as usize)).collect(),
                len: if numbers.is_empty() { 0 } else { max + 1 },
            }
        } else {
            Numbering {
                map: numbers.iter().enumerate().map(|(i, &n)| (n, i)).collect(),
                len: numbers.len(),
            }
        }
    }
}

fn build(name: String, locals: Arena<Local>, blocks: Vec<RawBlock>) -> Result<Function, ReadError> {
    let Some(first) = blocks.first() else {
        return Err(ReadError {
            line: 1,
            column: 1,
            message: "the function has no blocks".into(),
        });
    };
    let first_at = first.at;
    // Definitions, each number once.
    let mut block_at: HashMap<u32, Pos> = HashMap::default();
    for b in &blocks {
        if let Some(previous) = block_at.insert(b.number, b.at) {
            return Err(b.at.error(format!(
                "b{} is defined twice (first at line {})",
                b.number, previous.line
            )));
        }
    }
    let mut value_at: HashMap<u32, Pos> = HashMap::default();
    let defs = blocks.iter().flat_map(|b| {
        b.params
            .iter()
            .chain(b.insts.iter().flat_map(|i| i.results.iter()))
    });
    for &(v, _, at) in defs.clone() {
        if let Some(previous) = value_at.insert(v, at) {
            return Err(at.error(format!(
                "v{v} is defined twice (first at line {})",
                previous.line
            )));
        }
    }
    let defined = value_at.len() + block_at.len();
    let value_ids = Numbering::new(value_at.keys().copied(), defined);
    let block_ids = Numbering::new(block_at.keys().copied(), defined);
    let value = |o: &RawOperand| -> Result<Operand, ReadError> {
        let Some(&index) = value_ids.map.get(&o.value) else {
            return Err(o.at.error(format!("v{} is not defined", o.value)));
        };
        Ok(Operand {
            value: Handle::new(index),
            swizzle: o.swizzle,
            neg: o.neg,
            abs: o.abs,
        })
    };
    let block = |n: u32, at: Pos| -> Result<BlockId, ReadError> {
        block_ids
            .map
            .get(&n)
            .map(|&i| Handle::new(i))
            .ok_or_else(|| at.error(format!("b{n} is not defined")))
    };
    let edge = |e: &RawEdge| -> Result<Edge, ReadError> {
        Ok(Edge {
            target: block(e.target, e.at)?,
            args: e.args.iter().map(value).collect::<Result<_, _>>()?,
        })
    };

    let mut values: Vec<Option<ValueData>> = vec![None; value_ids.len];
    let mut block_slots: Vec<Option<Block>> = vec![None; block_ids.len];
    let mut insts: Arena<Inst> = Arena::new();
    let mut layout = Vec::new();
    for b in &blocks {
        let id = block(b.number, b.at)?;
        let mut params = Vec::new();
        for (k, &(v, ty, _)) in b.params.iter().enumerate() {
            let index = value_ids.map[&v];
            values[index] = Some(ValueData {
                ty,
                def: ValueDef::Param(id, k as u32),
            });
            params.push(Handle::new(index));
        }
        let mut ids = Vec::new();
        for raw in &b.insts {
            let inst_id: Handle<Inst> = Handle::new(insts.len());
            let mut results = Vec::new();
            for (k, &(v, ty, _)) in raw.results.iter().enumerate() {
                let index = value_ids.map[&v];
                values[index] = Some(ValueData {
                    ty,
                    def: ValueDef::Inst(inst_id, k as u32),
                });
                results.push(Handle::new(index));
            }
            insts.push(Inst {
                op: raw.op,
                args: raw.args.iter().map(value).collect::<Result<_, _>>()?,
                results,
                span: Span {
                    source: raw.source,
                    ..Span::default()
                },
            });
            ids.push(inst_id);
        }
        let term = match &b.term {
            RawTerm::Jump(e) => Terminator::Jump(edge(e)?),
            RawTerm::Branch(cond, then, otherwise) => Terminator::Branch {
                cond: value(cond)?,
                then: edge(then)?,
                otherwise: edge(otherwise)?,
            },
            RawTerm::Return(vals) => {
                Terminator::Return(vals.iter().map(value).collect::<Result<_, _>>()?)
            }
            RawTerm::Discard => Terminator::Discard,
            RawTerm::Unreachable => Terminator::Unreachable,
        };
        let structure = match &b.structure {
            None => None,
            Some((RawStructure::If(m), at)) => Some(Structure::If {
                merge: block(*m, *at)?,
            }),
            Some((RawStructure::Loop(m, k), at)) => Some(Structure::Loop {
                merge: block(*m, *at)?,
                cont: block(*k, *at)?,
            }),
            Some((RawStructure::Region(m), at)) => Some(Structure::Region {
                merge: block(*m, *at)?,
            }),
        };
        block_slots[id.index()] = Some(Block {
            params,
            insts: ids,
            term,
            structure,
            span: Span::default(),
        });
        layout.push(id);
    }
    // Numbers the text skips become dead entries: a constant nobody reads, an empty block.
    let mut value_arena: Arena<ValueData> = Arena::new();
    for (index, slot) in values.into_iter().enumerate() {
        let data = slot.unwrap_or_else(|| {
            let pad = insts.push(Inst {
                op: Op::Const([0; 4]),
                args: Vec::new(),
                results: vec![Handle::new(index)],
                span: Span::default(),
            });
            ValueData {
                ty: Ty::float(1),
                def: ValueDef::Inst(pad, 0),
            }
        });
        value_arena.push(data);
    }
    let mut block_arena: Arena<Block> = Arena::new();
    for slot in block_slots {
        block_arena.push(slot.unwrap_or(Block {
            params: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Unreachable,
            structure: None,
            span: Span::default(),
        }));
    }
    let entry = layout
        .first()
        .copied()
        .ok_or_else(|| first_at.error("no blocks"))?;
    Ok(Function {
        name,
        values: value_arena,
        insts,
        blocks: block_arena,
        locals,
        entry,
        layout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::print_module;

    /// Every part of the header, every kind of terminator and structure, modifiers, spans.
    const SAMPLE: &str = r#"fragment "main"
  input i0 "uv" location 0 vec2
  input i1 "n \"quoted\" \\ \u{7} ü" location 1 vec3
  output "color" location 0 vec4
  output "gl_FragDepth" FragDepth f32
  uniform u0..u3 "mvp" mat4 row_major (block Camera)
  uniform u4 "tint" vec4 (block Camera)
  uniform u5.y "scale" float default [2.0]
  uniform u6 "center" vec2 default [200.0, -1.5]
  uniform b0 "flag" bool
  sampler s0 "tex" binding 0 D2
  sampler s1 "sky" binding 1 Cube

fn main() -> (vec4, f32) {
  local l0: vec4 "acc"
b0:
  v0: vec2 = input 0                     ; shader.frag:3
  v1: vec3 = input 1                     ; shader.frag:4
  v2: f32 = const 0.5
  v3: bvec2 = const true, false
  v4: vec4 = sample s0 v0
  v5: vec4 = sample.bias s1 v1, v2
  v6: vec4 = sample.proj.lod s0 v1, v2  ; lib.glsl:10
  v7: bool = bool_uniform b0
  v8: vec4 = uniform u1 v2
  store_local l0 v4
  branch v7, b1, b3(v2)
b1:  ; if, merge b3
  v9: vec4 = load_local l0
  v10: vec4 = mad -|v9|.zyxw, v5, v6.x
  v11: f32 = dot3 v10.xyz, -v1
  kill v3.y
  jump b3(v11)
b3(v20: f32):  ; loop, merge b5, continue b4
  v21: bool = cmp.lt v20, v2
  branch v21, b4, b5
b4:
  v22: f32 = add v20, v2
  jump b3(v22)
b5:
  v23: vec4 = construct v20, v2, v22, v20
  return v23, v20
}
"#;

    #[test]
    fn a_module_reads_back_as_it_prints() {
        let m = read_module(SAMPLE).unwrap_or_else(|e| panic!("{e}"));
        let text = print_module(&m);
        let again = read_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(print_module(&again), text);
        // Numbers are kept, gaps and all.
        assert!(
            text.contains("b3(v20: f32):  ; loop, merge b5, continue b4"),
            "{text}"
        );
        assert!(text.contains("mad -|v9|.zyxw, v5, v6.xxxx"), "{text}");
        assert_eq!(m.source_files, ["shader.frag", "lib.glsl"]);
        assert_eq!(m.inputs[Handle::new(1)].name, "n \"quoted\" \\ \u{7} ü");
        assert_eq!(m.uniforms[2].component, 1);
        assert_eq!(m.uniforms[2].default, Some(vec![2.0]));
        assert_eq!(m.uniforms[3].default, Some(vec![200.0, -1.5]));
        assert!(m.uniforms[4].is_bool);
        assert_eq!(m.uniforms[4].default, None);
        assert_eq!(m.uniforms[0].count, 4);
    }

    #[test]
    fn geometry_headers_read_back() {
        let text = "geometry \"main\"\n  primitives triangles -> triangle_strip, max_vertices 3\n  \
                    input i0 \"gl_in[0].gl_Position\" location 0 vec4 vertex 0 Position\n  \
                    output \"gl_Position\" Position vec4\n\nfn main() -> (vec4) {\nb0:\n  \
                    v0: vec4 = input 0\n  emit_vertex v0\n  end_primitive\n  return v0\n}\n";
        let m = read_module(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(print_module(&m), text);
        assert_eq!(m.inputs[Handle::new(0)].vertex, Some(0));
    }

    fn error(text: &str) -> ReadError {
        match read_module(text) {
            Ok(_) => panic!("read:\n{text}"),
            Err(e) => e,
        }
    }

    #[test]
    fn errors_say_where_and_what_was_expected() {
        let head = "vertex \"main\"\n  output \"o\" location 0 vec4\nfn main() -> (vec4) {\nb0:\n";
        let e = error(&format!("{head}  v0: vec4 = frob v1\n  return v0\n}}\n"));
        assert_eq!((e.line, e.column), (5, 14), "{e}");
        assert!(e.message.contains("an operation, found `frob`"), "{e}");
        let e = error(&format!("{head}  v0: vec4 = add v1, v1\n  return v0\n}}\n"));
        assert_eq!((e.line, e.column), (5, 18), "{e}");
        assert!(e.message.contains("v1 is not defined"), "{e}");
        let e = error(&format!("{head}  v0: vec4 = add v0\n  return v0\n}}\n"));
        assert!(e.message.contains("takes 2 operands, not 1"), "{e}");
        let e = error(&format!(
            "{head}  v0: vec4 = const 1.0, 2.0\n  return v0\n}}\n"
        ));
        assert!(e.message.contains("expected `,`"), "{e}");
        let e = error(&format!("{head}  v0: vec4 = input 0\n"));
        assert!(e.message.contains("input i0 is not declared"), "{e}");
        let e = error(&format!("{head}  return\nb1:\n"));
        assert!(e.message.contains("found the end of the text"), "{e}");
        let e = error(&format!("{head}  jump b7\n}}\n"));
        assert!(e.message.contains("b7 is not defined"), "{e}");
        let e = error("vertex \"main\"\nfn main() -> (vec4) {\n");
        assert!(
            e.message.contains("must return the module's outputs: ()"),
            "{e}"
        );
    }

    #[test]
    fn no_text_makes_it_panic() {
        // Every prefix of the sample, and the sample with each character dropped or doubled.
        let chars: Vec<char> = SAMPLE.chars().collect();
        for n in 0..chars.len() {
            let prefix: String = chars[..n].iter().collect();
            let _ = read_module(&prefix);
            let dropped: String = chars[..n].iter().chain(&chars[n + 1..]).collect();
            let _ = read_module(&dropped);
            let doubled: String = chars[..=n].iter().chain(&chars[n..]).collect();
            if let Ok(m) = read_module(&doubled) {
                let _ = print_module(&m);
            }
        }
        let _ = read_module("vertex \"main\"\nfn main() -> () {\nb4000000000:\n  return\n}\n");
        let m = read_module(
            "vertex \"main\"\nfn main() -> () {\nb0:\n  jump b99999999\nb99999999:\n  return\n}\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.function.blocks.len(), 2, "far numbers are renumbered");
    }
}
