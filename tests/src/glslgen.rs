//! Random valid GLSL shaders with their own evaluator, for differential testing of every
//! target and profile from the text users write.
//!
//! Where [`crate::generate`] makes SPIR-V assembly and leaves the reference to the MIR
//! interpreter, this generator builds a small program tree, prints it as GLSL 450 and
//! computes its outputs itself ([`Program::eval`]), so a fault anywhere from naga's parser to
//! the encoders shows up as a wrong lane. It aims at what hand-written tests reach least:
//!
//! - fragment shaders that sample textures inside selects (`c ? texture(t, uv) : vec4(s)`)
//!   and inside `if`s, splats and lane selections on both sides of a select, `mix` by a
//!   step flag (the blends AGAL 1 makes of selects);
//! - partial writes (`x.y = …`), dynamic lane indices (`v[i]`) and loops whose `break`,
//!   `continue` or `discard` sits inside an `if`, nested in `if`s and loops;
//! - vertex shaders with the same statements (no textures), for the PICA200 and AGAL.
//!
//! Values are made so that every target agrees up to rounding, as in [`crate::generate`]:
//! inputs, uniforms and literals are multiples of 1/8 in [-4, 4]; an *exact* value is a small
//! multiple of a power of two that f24 (the PICA200's floats) holds without rounding, and only
//! exact values reach discontinuous places (comparisons, `floor`, `fract`, `step`, texture
//! coordinates, indices). Inexact values (`sqrt`, reciprocals) reach outputs only through
//! continuous operations, and everything is clamped to [-16, 16].
//!
//! Textures are formulas of the coordinate ([`texel`]), exact for exact coordinates, with a
//! different value in each lane, so that a lane taken from the wrong side of a select shows.

use std::fmt::Write;

use crate::generate::Source;

/// Which stage a generated shader is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `in vec4 aK` inputs, `out vec4 oK` outputs and `gl_Position`; no textures.
    Vertex,
    /// `in vec4 vK` varyings, one `out vec4 color`, samplers `tex0`, `tex1`, `discard`.
    Fragment,
}

/// What a texture returns at coordinate `(u, v)` for the sampler at binding `k`: exact for
/// exact coordinates (within [-16, 16], multiples of 1/256), and a different value in each lane.
pub fn texel(k: u32, u: f64, v: f64) -> [f64; 4] {
    let k = f64::from(k);
    [
        (u * 4.0).floor() / 8.0,
        (v * 4.0).floor() / 8.0 + k / 4.0,
        (u * 2.0 - v * 2.0).floor() / 4.0,
        1.0 - k / 8.0,
    ]
}

/// The uniform vec4s (`u0` …) and floats (`f0` …) of the block `U`.
pub const UNIFORM_VECS: usize = 3;
/// See [`UNIFORM_VECS`].
pub const UNIFORM_FLOATS: usize = 2;
/// How many samplers a fragment shader declares (`tex0` at binding 1, `tex1` at 2).
pub const SAMPLERS: u32 = 2;

const BOUND: f64 = 16.0;
/// Exact values are kept to multiples of 1/256 where they are stored.
const VAR_DEN: u32 = 8;

/// What is known of an expression's values.
#[derive(Clone, Copy, Debug)]
struct Info {
    vec: bool,
    /// `Some(den)`: a multiple of 2^-den, exactly representable.
    den: Option<u32>,
    bound: f64,
}

fn representable(den: u32, bound: f64) -> bool {
    den <= 12 && bound * f64::from(1u32 << den) < 65536.0
}

#[derive(Clone, Copy, Debug)]
enum Bin {
    Add,
    Sub,
    Mul,
    Min,
    Max,
    Step,
}

#[derive(Clone, Copy, Debug)]
enum Un {
    Neg,
    Abs,
    Floor,
    Fract,
    /// `sqrt(abs(x))`: inexact.
    Sqrt,
    /// `1.0 / (abs(x) + 1.0)`: inexact.
    Recip,
    /// `1.0 / (floor(x) + 0.5)`: inexact, never infinite, though the compiler cannot prove
    /// it (so AGAL 2 and 3 branch around selects of it rather than blend).
    Div,
    /// `clamp(x, -16.0, 16.0)`.
    Clamp,
    /// `floor(x * 256.0) / 256.0`: exact again at [`VAR_DEN`].
    Quant,
}

#[derive(Clone, Copy, Debug)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Debug)]
enum Cond {
    Cmp(Cmp, Box<Expr>, Box<Expr>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

#[derive(Clone, Debug)]
enum Expr {
    Lit(f64),
    /// A vec4 input (`aK` or `vK`).
    Input(usize),
    UniformVec(usize),
    UniformFloat(usize),
    Var(usize),
    /// `float(iK)` of loop counter K.
    Counter(usize),
    /// `e.x` (a lane of a vec4).
    Lane(Box<Expr>, u8),
    /// `e.zyxw`.
    Swizzle(Box<Expr>, [u8; 4]),
    /// `vec4(e)`.
    Splat(Box<Expr>),
    /// `var[iK]`: a vec4 variable's lane picked by a loop counter below 4.
    Index(usize, usize),
    Bin(Bin, Box<Expr>, Box<Expr>),
    Un(Un, Box<Expr>),
    Dot(Box<Expr>, Box<Expr>),
    Select(Box<Cond>, Box<Expr>, Box<Expr>),
    /// `mix(a, b, step(e, x))`.
    Mix(Box<Expr>, Box<Expr>, Box<Expr>, Box<Expr>),
    /// `texture(texK, e.xy)`.
    Tex(u32, Box<Expr>),
}

#[derive(Clone, Debug)]
enum Stmt {
    Decl(usize, Expr),
    Assign(usize, Expr),
    /// `var.x = e` (lane of a vec4 variable).
    AssignLane(usize, u8, Expr),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    /// `for (int iK = 0; iK < n; iK++)`.
    For(usize, u32, Vec<Stmt>),
    Break,
    Continue,
    Discard,
}

#[derive(Clone, Copy, Debug)]
struct Var {
    vec: bool,
    exact: bool,
}

/// A generated shader.
#[derive(Clone, Debug)]
pub struct Program {
    stage: Stage,
    inputs: usize,
    outputs: usize,
    vars: Vec<Var>,
    counters: usize,
    body: Vec<Stmt>,
    /// Output K's value (vertex: `oK`, then `gl_Position` last; fragment: `color`).
    results: Vec<Expr>,
}

/// Values a shader runs with.
#[derive(Clone, Debug)]
pub struct Values {
    /// Input K (`aK` or `vK`).
    pub inputs: Vec<[f32; 4]>,
    /// `u0` …
    pub vecs: Vec<[f32; 4]>,
    /// `f0` …
    pub floats: Vec<f32>,
}

/// What a shader computes: its outputs in order (see [`Program::output_names`]), or `None`
/// when the fragment is discarded.
pub type Outcome = Option<Vec<[f64; 4]>>;

impl Program {
    /// The stage.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The inputs' names, in order.
    pub fn input_names(&self) -> Vec<String> {
        let p = if self.stage == Stage::Vertex {
            'a'
        } else {
            'v'
        };
        (0..self.inputs).map(|k| format!("{p}{k}")).collect()
    }

    /// The outputs' names as the reflection spells them, in the order of the outcome.
    pub fn output_names(&self) -> Vec<String> {
        match self.stage {
            Stage::Fragment => vec!["color".into()],
            Stage::Vertex => (0..self.outputs)
                .map(|k| format!("o{k}"))
                .chain(["gl_Position".into()])
                .collect(),
        }
    }

    /// Whether the shader has a loop, an `if`, a texture read inside a select or branch.
    pub fn features(&self) -> Features {
        let mut f = Features::default();
        fn expr(e: &Expr, f: &mut Features, guarded: bool) {
            match e {
                Expr::Tex(_, c) => {
                    f.textures_guarded |= guarded;
                    expr(c, f, guarded);
                }
                Expr::Select(c, a, b) => {
                    f.selects += 1;
                    cond(c, f, guarded);
                    expr(a, f, true);
                    expr(b, f, true);
                }
                Expr::Mix(a, b, c, d) => {
                    f.selects += 1;
                    for e in [a, b, c, d] {
                        expr(e, f, true);
                    }
                }
                Expr::Index(..) => f.indexed = true,
                Expr::Lane(e, _) | Expr::Swizzle(e, _) | Expr::Splat(e) | Expr::Un(_, e) => {
                    expr(e, f, guarded)
                }
                Expr::Bin(_, a, b) | Expr::Dot(a, b) => {
                    expr(a, f, guarded);
                    expr(b, f, guarded);
                }
                _ => {}
            }
        }
        fn cond(c: &Cond, f: &mut Features, g: bool) {
            match c {
                Cond::Cmp(_, a, b) => {
                    expr(a, f, g);
                    expr(b, f, g);
                }
                Cond::And(a, b) | Cond::Or(a, b) => {
                    cond(a, f, g);
                    cond(b, f, g);
                }
                Cond::Not(a) => cond(a, f, g),
            }
        }
        fn stmts(s: &[Stmt], f: &mut Features, guarded: bool, in_loop: bool) {
            for s in s {
                match s {
                    Stmt::Decl(_, e) | Stmt::Assign(_, e) | Stmt::AssignLane(_, _, e) => {
                        expr(e, f, guarded)
                    }
                    Stmt::If(c, a, b) => {
                        f.ifs += 1;
                        cond(c, f, guarded);
                        stmts(a, f, true, in_loop);
                        stmts(b, f, true, in_loop);
                    }
                    Stmt::For(_, _, b) => {
                        f.loops += 1;
                        stmts(b, f, guarded, true);
                    }
                    Stmt::Break | Stmt::Continue => f.exits += in_loop as usize,
                    Stmt::Discard => f.discards += 1,
                }
            }
        }
        stmts(&self.body, &mut f, false, false);
        for r in &self.results {
            expr(r, &mut f, false);
        }
        f
    }

    /// The shader as GLSL 450.
    pub fn glsl(&self) -> String {
        let mut s = String::from("#version 450\n");
        let input = if self.stage == Stage::Vertex {
            'a'
        } else {
            'v'
        };
        for k in 0..self.inputs {
            let _ = writeln!(s, "layout(location = {k}) in vec4 {input}{k};");
        }
        match self.stage {
            Stage::Vertex => {
                for k in 0..self.outputs {
                    let _ = writeln!(s, "layout(location = {k}) out vec4 o{k};");
                }
            }
            Stage::Fragment => {
                s.push_str("layout(location = 0) out vec4 color;\n");
                for k in 0..SAMPLERS {
                    let _ = writeln!(s, "layout(binding = {}) uniform sampler2D tex{k};", k + 1);
                }
            }
        }
        s.push_str("layout(std140, binding = 0) uniform U {\n");
        for k in 0..UNIFORM_VECS {
            let _ = writeln!(s, "    vec4 u{k};");
        }
        for k in 0..UNIFORM_FLOATS {
            let _ = writeln!(s, "    float f{k};");
        }
        s.push_str("};\nvoid main() {\n");
        self.print_block(&mut s, &self.body, 1);
        match self.stage {
            Stage::Fragment => {
                let _ = writeln!(s, "    color = {};", self.expr(&self.results[0]));
            }
            Stage::Vertex => {
                for (k, r) in self.results.iter().enumerate() {
                    let name = if k == self.outputs {
                        "gl_Position".to_string()
                    } else {
                        format!("o{k}")
                    };
                    let _ = writeln!(s, "    {name} = {};", self.expr(r));
                }
            }
        }
        s.push_str("}\n");
        s
    }

    fn print_block(&self, s: &mut String, body: &[Stmt], depth: usize) {
        let pad = "    ".repeat(depth);
        for st in body {
            match st {
                Stmt::Decl(v, e) => {
                    let ty = if self.vars[*v].vec { "vec4" } else { "float" };
                    let _ = writeln!(s, "{pad}{ty} x{v} = {};", self.expr(e));
                }
                Stmt::Assign(v, e) => {
                    let _ = writeln!(s, "{pad}x{v} = {};", self.expr(e));
                }
                Stmt::AssignLane(v, l, e) => {
                    let _ = writeln!(s, "{pad}x{v}.{} = {};", lane_name(*l), self.expr(e));
                }
                Stmt::If(c, a, b) => {
                    let _ = writeln!(s, "{pad}if ({}) {{", self.cond(c));
                    self.print_block(s, a, depth + 1);
                    if b.is_empty() {
                        let _ = writeln!(s, "{pad}}}");
                    } else {
                        let _ = writeln!(s, "{pad}}} else {{");
                        self.print_block(s, b, depth + 1);
                        let _ = writeln!(s, "{pad}}}");
                    }
                }
                Stmt::For(k, n, b) => {
                    let _ = writeln!(s, "{pad}for (int i{k} = 0; i{k} < {n}; i{k}++) {{");
                    self.print_block(s, b, depth + 1);
                    let _ = writeln!(s, "{pad}}}");
                }
                Stmt::Break => {
                    let _ = writeln!(s, "{pad}break;");
                }
                Stmt::Continue => {
                    let _ = writeln!(s, "{pad}continue;");
                }
                Stmt::Discard => {
                    let _ = writeln!(s, "{pad}discard;");
                }
            }
        }
    }

    fn cond(&self, c: &Cond) -> String {
        match c {
            Cond::Cmp(op, a, b) => {
                let op = match op {
                    Cmp::Lt => "<",
                    Cmp::Le => "<=",
                    Cmp::Gt => ">",
                    Cmp::Ge => ">=",
                    Cmp::Eq => "==",
                    Cmp::Ne => "!=",
                };
                format!("{} {op} {}", self.expr(a), self.expr(b))
            }
            Cond::And(a, b) => format!("({}) && ({})", self.cond(a), self.cond(b)),
            Cond::Or(a, b) => format!("({}) || ({})", self.cond(a), self.cond(b)),
            Cond::Not(a) => format!("!({})", self.cond(a)),
        }
    }

    fn expr(&self, e: &Expr) -> String {
        let input = if self.stage == Stage::Vertex {
            'a'
        } else {
            'v'
        };
        match e {
            Expr::Lit(x) => format!("({x:?})"),
            Expr::Input(k) => format!("{input}{k}"),
            Expr::UniformVec(k) => format!("u{k}"),
            Expr::UniformFloat(k) => format!("f{k}"),
            Expr::Var(v) => format!("x{v}"),
            Expr::Counter(k) => format!("float(i{k})"),
            Expr::Lane(e, l) => format!("({}).{}", self.expr(e), lane_name(*l)),
            Expr::Swizzle(e, sw) => {
                let sw: String = sw.iter().map(|&l| lane_name(l)).collect();
                format!("({}).{sw}", self.expr(e))
            }
            Expr::Splat(e) => format!("vec4({})", self.expr(e)),
            Expr::Index(v, k) => format!("x{v}[i{k}]"),
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                match op {
                    Bin::Add => format!("({a} + {b})"),
                    Bin::Sub => format!("({a} - {b})"),
                    Bin::Mul => format!("({a} * {b})"),
                    Bin::Min => format!("min({a}, {b})"),
                    Bin::Max => format!("max({a}, {b})"),
                    Bin::Step => format!("step({a}, {b})"),
                }
            }
            Expr::Un(op, a) => {
                let a = self.expr(a);
                match op {
                    Un::Neg => format!("(-{a})"),
                    Un::Abs => format!("abs({a})"),
                    Un::Floor => format!("floor({a})"),
                    Un::Fract => format!("fract({a})"),
                    Un::Sqrt => format!("sqrt(abs({a}))"),
                    Un::Recip => format!("(1.0 / (abs({a}) + 1.0))"),
                    Un::Div => format!("(1.0 / (floor({a}) + 0.5))"),
                    Un::Clamp => format!("clamp({a}, -16.0, 16.0)"),
                    Un::Quant => format!("(floor({a} * 256.0) / 256.0)"),
                }
            }
            Expr::Dot(a, b) => format!("dot({}, {})", self.expr(a), self.expr(b)),
            Expr::Select(c, a, b) => {
                format!("(({}) ? {} : {})", self.cond(c), self.expr(a), self.expr(b))
            }
            Expr::Mix(a, b, e, x) => format!(
                "mix({}, {}, step({}, {}))",
                self.expr(a),
                self.expr(b),
                self.expr(e),
                self.expr(x)
            ),
            Expr::Tex(k, c) => format!("texture(tex{k}, ({}).xy)", self.expr(c)),
        }
    }

    /// Runs the shader on `values` (see [`texel`] for the textures).
    pub fn eval(&self, values: &Values) -> Outcome {
        let mut st = Eval {
            values,
            vars: vec![[0.0; 4]; self.vars.len()],
            counters: vec![0; self.counters],
        };
        match st.block(&self.body) {
            Flow::Discard => return None,
            Flow::Normal => {}
            Flow::Break | Flow::Continue => unreachable!("an exit outside a loop"),
        }
        Some(self.results.iter().map(|r| st.expr(r)).collect())
    }
}

/// What a shader contains, for the tests' counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    /// `if` statements.
    pub ifs: usize,
    /// `for` loops.
    pub loops: usize,
    /// `break`s and `continue`s.
    pub exits: usize,
    /// `discard`s.
    pub discards: usize,
    /// Selects and mixes.
    pub selects: usize,
    /// Whether a texture is read inside a select or a branch.
    pub textures_guarded: bool,
    /// Whether a lane is picked by a loop counter.
    pub indexed: bool,
}

fn lane_name(l: u8) -> char {
    ['x', 'y', 'z', 'w'][usize::from(l)]
}

enum Flow {
    Normal,
    Break,
    Continue,
    Discard,
}

struct Eval<'a> {
    values: &'a Values,
    vars: Vec<[f64; 4]>,
    counters: Vec<u32>,
}

fn lanes(v: [f32; 4]) -> [f64; 4] {
    v.map(f64::from)
}

impl Eval<'_> {
    fn block(&mut self, body: &[Stmt]) -> Flow {
        for s in body {
            match s {
                Stmt::Decl(v, e) | Stmt::Assign(v, e) => self.vars[*v] = self.expr(e),
                Stmt::AssignLane(v, l, e) => self.vars[*v][usize::from(*l)] = self.expr(e)[0],
                Stmt::If(c, a, b) => {
                    let flow = if self.cond(c) {
                        self.block(a)
                    } else {
                        self.block(b)
                    };
                    if !matches!(flow, Flow::Normal) {
                        return flow;
                    }
                }
                Stmt::For(k, n, b) => {
                    self.counters[*k] = 0;
                    while self.counters[*k] < *n {
                        match self.block(b) {
                            Flow::Break => break,
                            Flow::Discard => return Flow::Discard,
                            Flow::Normal | Flow::Continue => {}
                        }
                        self.counters[*k] += 1;
                    }
                }
                Stmt::Break => return Flow::Break,
                Stmt::Continue => return Flow::Continue,
                Stmt::Discard => return Flow::Discard,
            }
        }
        Flow::Normal
    }

    fn cond(&mut self, c: &Cond) -> bool {
        match c {
            Cond::Cmp(op, a, b) => {
                let (a, b) = (self.expr(a)[0], self.expr(b)[0]);
                match op {
                    Cmp::Lt => a < b,
                    Cmp::Le => a <= b,
                    Cmp::Gt => a > b,
                    Cmp::Ge => a >= b,
                    Cmp::Eq => a == b,
                    Cmp::Ne => a != b,
                }
            }
            // GLSL's && and || short-circuit; neither side has effects here.
            Cond::And(a, b) => self.cond(a) & self.cond(b),
            Cond::Or(a, b) => self.cond(a) | self.cond(b),
            Cond::Not(a) => !self.cond(a),
        }
    }

    /// A value's lanes (a float in every lane).
    fn expr(&mut self, e: &Expr) -> [f64; 4] {
        let map = |a: [f64; 4], f: &dyn Fn(f64) -> f64| a.map(f);
        let zip = |a: [f64; 4], b: [f64; 4], f: &dyn Fn(f64, f64) -> f64| {
            std::array::from_fn(|l| f(a[l], b[l]))
        };
        match e {
            Expr::Lit(x) => [*x; 4],
            Expr::Input(k) => lanes(self.values.inputs[*k]),
            Expr::UniformVec(k) => lanes(self.values.vecs[*k]),
            Expr::UniformFloat(k) => [f64::from(self.values.floats[*k]); 4],
            Expr::Var(v) => self.vars[*v],
            Expr::Counter(k) => [f64::from(self.counters[*k]); 4],
            Expr::Lane(e, l) => [self.expr(e)[usize::from(*l)]; 4],
            Expr::Swizzle(e, sw) => {
                let v = self.expr(e);
                sw.map(|l| v[usize::from(l)])
            }
            Expr::Splat(e) => [self.expr(e)[0]; 4],
            Expr::Index(v, k) => [self.vars[*v][self.counters[*k] as usize]; 4],
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                match op {
                    Bin::Add => zip(a, b, &|x, y| x + y),
                    Bin::Sub => zip(a, b, &|x, y| x - y),
                    Bin::Mul => zip(a, b, &|x, y| x * y),
                    Bin::Min => zip(a, b, &f64::min),
                    Bin::Max => zip(a, b, &f64::max),
                    Bin::Step => zip(a, b, &|e, x| if x < e { 0.0 } else { 1.0 }),
                }
            }
            Expr::Un(op, a) => {
                let a = self.expr(a);
                match op {
                    Un::Neg => map(a, &|x| -x),
                    Un::Abs => map(a, &f64::abs),
                    Un::Floor => map(a, &f64::floor),
                    Un::Fract => map(a, &|x| x - x.floor()),
                    Un::Sqrt => map(a, &|x| x.abs().sqrt()),
                    Un::Recip => map(a, &|x| 1.0 / (x.abs() + 1.0)),
                    Un::Div => map(a, &|x| 1.0 / (x.floor() + 0.5)),
                    Un::Clamp => map(a, &|x| x.clamp(-BOUND, BOUND)),
                    Un::Quant => map(a, &|x| (x * 256.0).floor() / 256.0),
                }
            }
            Expr::Dot(a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                [(0..4).map(|l| a[l] * b[l]).sum(); 4]
            }
            Expr::Select(c, a, b) => {
                if self.cond(c) {
                    self.expr(a)
                } else {
                    self.expr(b)
                }
            }
            Expr::Mix(a, b, e, x) => {
                let (a, b, e, x) = (self.expr(a), self.expr(b), self.expr(e), self.expr(x));
                std::array::from_fn(|l| if x[l] < e[l] { a[l] } else { b[l] })
            }
            Expr::Tex(k, c) => {
                let c = self.expr(c);
                texel(*k, c[0], c[1])
            }
        }
    }
}

/// The generator's state.
struct Gen<'s> {
    src: &'s mut dyn Source,
    stage: Stage,
    inputs: usize,
    vars: Vec<Var>,
    /// Variables in scope, innermost scope last.
    scopes: Vec<Vec<usize>>,
    /// Loop counters in scope (index, trip count).
    counters_in_scope: Vec<(usize, u32)>,
    counters: usize,
    budget: usize,
    depth: usize,
    /// Every texture read takes an input as its coordinate (half the fragment shaders), so
    /// that AGAL 2 and 3 keep their branches.
    plain_coords: bool,
    /// Divisions the compiler cannot prove finite ([`Options::divisions`]).
    divisions: bool,
}

/// What [`shader_with`] may generate beyond [`shader`]'s programs. With every option off it
/// makes the same program from the same randomness as [`shader`] (seeds stay meaningful).
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `1.0 / (floor(x) + 0.5)`: finite, but not provably so, which makes AGAL 2 and 3 turn
    /// the selects it reaches into branches in their first try.
    pub divisions: bool,
}

/// A random shader for `stage` with about `size` statements.
pub fn shader(src: &mut dyn Source, stage: Stage, size: usize) -> Program {
    shader_with(src, stage, size, Options::default())
}

/// [`shader`] with more kinds of operation.
pub fn shader_with(src: &mut dyn Source, stage: Stage, size: usize, options: Options) -> Program {
    let inputs = 1 + src.below(3) as usize;
    let outputs = 1 + src.below(2) as usize;
    let plain_coords = src.chance(1, 2);
    let mut g = Gen {
        plain_coords,
        divisions: options.divisions,
        src,
        stage,
        inputs,
        vars: Vec::new(),
        scopes: vec![Vec::new()],
        counters_in_scope: Vec::new(),
        counters: 0,
        budget: size,
        depth: 0,
    };
    let body = g.block(false);
    let results = match stage {
        Stage::Fragment => vec![g.result()],
        Stage::Vertex => (0..=outputs).map(|_| g.result()).collect(),
    };
    Program {
        stage,
        inputs,
        outputs,
        vars: g.vars,
        counters: g.counters,
        body,
        results,
    }
}

impl Gen<'_> {
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.src.below(items.len() as u32) as usize]
    }

    fn in_scope(&self) -> Vec<usize> {
        self.scopes.iter().flatten().copied().collect()
    }

    /// Statements until the budget runs out or the block ends by chance.
    fn block(&mut self, in_loop: bool) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        let mut body = Vec::new();
        let nested = self.depth > 0;
        while self.budget > 0 {
            self.budget -= 1;
            body.push(self.statement(in_loop));
            if nested && self.src.chance(1, 3) {
                break;
            }
        }
        self.scopes.pop();
        body
    }

    fn statement(&mut self, in_loop: bool) -> Stmt {
        let vars = self.in_scope();
        let roll = self.src.below(20);
        match roll {
            0..=3 if self.depth < 3 => {
                let c = self.cond(2);
                self.depth += 1;
                let mut then = self.block(in_loop);
                // Exits sit inside `if`s, as people write them.
                if in_loop && self.src.chance(1, 2) {
                    then.push(if self.src.chance(2, 3) {
                        Stmt::Break
                    } else {
                        Stmt::Continue
                    });
                } else if self.stage == Stage::Fragment && self.src.chance(1, 8) {
                    then.push(Stmt::Discard);
                }
                let otherwise = if self.src.chance(1, 2) {
                    self.block(in_loop)
                } else {
                    Vec::new()
                };
                self.depth -= 1;
                Stmt::If(c, then, otherwise)
            }
            4..=5 if self.depth < 3 && self.counters_in_scope.len() < 2 => {
                let k = self.counters;
                self.counters += 1;
                let n = 1 + self.src.below(5);
                self.counters_in_scope.push((k, n));
                self.depth += 1;
                let body = self.block(true);
                self.depth -= 1;
                self.counters_in_scope.pop();
                Stmt::For(k, n, body)
            }
            6..=11 if !vars.is_empty() => {
                let v = self.pick(&vars);
                let var = self.vars[v];
                if var.vec && self.src.chance(1, 3) {
                    let l = self.src.below(4) as u8;
                    let e = self.value(false, var.exact, 3);
                    Stmt::AssignLane(v, l, self.fit(e, var.exact))
                } else {
                    let e = self.value(var.vec, var.exact, 3);
                    Stmt::Assign(v, self.fit(e, var.exact))
                }
            }
            _ => {
                let vec = self.src.chance(2, 3);
                let exact = self.src.chance(3, 4);
                let e = self.value(vec, exact, 3);
                let e = self.fit(e, exact);
                let v = self.vars.len();
                self.vars.push(Var { vec, exact });
                self.scopes.last_mut().expect("a scope").push(v);
                Stmt::Decl(v, e)
            }
        }
    }

    /// An output's value: mostly variables, so the statements count.
    fn result(&mut self) -> Expr {
        let vars: Vec<usize> = self.scopes[0].clone();
        let vecs: Vec<usize> = vars.iter().copied().filter(|&v| self.vars[v].vec).collect();
        if !vecs.is_empty() && self.src.chance(2, 3) {
            let v = self.pick(&vecs);
            return Expr::Var(v);
        }
        let e = self.expr(true, false, 3);
        self.fit(e, false)
    }

    fn info_of(&self, vec: bool, exact: bool) -> Info {
        Info {
            vec,
            den: exact.then_some(VAR_DEN),
            bound: BOUND,
        }
    }

    /// A value of the kind given: exact ones only where `exact`.
    fn value(&mut self, vec: bool, exact: bool, depth: u32) -> (Expr, Info) {
        self.expr(vec, exact, depth)
    }

    /// `e` made to fit a variable: clamped to the bound, and quantised when exact.
    fn fit(&mut self, (e, i): (Expr, Info), exact: bool) -> Expr {
        let e = if i.bound > BOUND {
            Expr::Un(Un::Clamp, Box::new(e))
        } else {
            e
        };
        match i.den {
            Some(d) if exact && d > VAR_DEN => Expr::Un(Un::Quant, Box::new(e)),
            _ => e,
        }
    }

    /// A condition on exact values.
    fn cond(&mut self, depth: u32) -> Cond {
        if depth > 0 && self.src.chance(1, 5) {
            let a = Box::new(self.cond(depth - 1));
            return match self.src.below(3) {
                0 => Cond::And(a, Box::new(self.cond(depth - 1))),
                1 => Cond::Or(a, Box::new(self.cond(depth - 1))),
                _ => Cond::Not(a),
            };
        }
        let op = self.pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne]);
        let (a, _) = self.expr(false, true, depth);
        let (b, _) = self.expr(false, true, depth);
        Cond::Cmp(op, Box::new(a), Box::new(b))
    }

    fn leaf(&mut self, vec: bool, exact: bool) -> (Expr, Info) {
        let grid = Info {
            vec,
            den: Some(3),
            bound: 4.0,
        };
        let vars: Vec<usize> = self
            .in_scope()
            .into_iter()
            .filter(|&v| !exact || self.vars[v].exact)
            .collect();
        {
            match self.src.below(7) {
                0 | 1 if !vars.is_empty() => {
                    let v = self.pick(&vars);
                    let var = self.vars[v];
                    let info = self.info_of(var.vec, var.exact);
                    let e = Expr::Var(v);
                    self.shape((e, info), vec)
                }
                2 => {
                    let e = Expr::Input(self.src.below(self.inputs as u32) as usize);
                    self.shape((e, Info { vec: true, ..grid }), vec)
                }
                3 => {
                    let e = Expr::UniformVec(self.src.below(UNIFORM_VECS as u32) as usize);
                    self.shape((e, Info { vec: true, ..grid }), vec)
                }
                4 => {
                    let e = Expr::UniformFloat(self.src.below(UNIFORM_FLOATS as u32) as usize);
                    self.shape((e, Info { vec: false, ..grid }), vec)
                }
                5 if !self.counters_in_scope.is_empty() => {
                    let (k, n) = self.pick(&self.counters_in_scope.clone());
                    // A lane of a vec4 variable picked by the counter, where it stays below 4.
                    let vec_vars: Vec<usize> =
                        vars.iter().copied().filter(|&v| self.vars[v].vec).collect();
                    if n <= 4 && !vec_vars.is_empty() && self.src.chance(1, 2) {
                        let v = self.pick(&vec_vars);
                        let var = self.vars[v];
                        let info = self.info_of(false, var.exact);
                        return self.shape((Expr::Index(v, k), info), vec);
                    }
                    let info = Info {
                        vec: false,
                        den: Some(0),
                        bound: f64::from(n),
                    };
                    self.shape((Expr::Counter(k), info), vec)
                }
                _ => {
                    let x = (self.src.below(65) as i32 - 32) as f64 / 8.0;
                    let info = Info { vec: false, ..grid };
                    self.shape((Expr::Lit(x), info), vec)
                }
            }
        }
    }

    /// `e` as a vec4 or a float: a lane, a swizzle or a splat.
    fn shape(&mut self, (e, i): (Expr, Info), vec: bool) -> (Expr, Info) {
        match (i.vec, vec) {
            (true, true) if self.src.chance(1, 3) => {
                let sw = [0; 4].map(|_| self.src.below(4) as u8);
                (Expr::Swizzle(Box::new(e), sw), i)
            }
            (false, true) => (Expr::Splat(Box::new(e)), Info { vec: true, ..i }),
            (true, false) => {
                let l = self.src.below(4) as u8;
                (Expr::Lane(Box::new(e), l), Info { vec: false, ..i })
            }
            _ => (e, i),
        }
    }

    /// An expression: a vec4 when `vec`, exact when `exact`.
    fn expr(&mut self, vec: bool, exact: bool, depth: u32) -> (Expr, Info) {
        if depth == 0 || self.src.chance(1, 4) {
            return self.leaf(vec, exact);
        }
        let d = depth - 1;
        match self.src.below(14) {
            0..=4 => {
                let op = self.pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Min, Bin::Max, Bin::Step]);
                // Step's operands decide; they must be exact.
                let operands_exact = exact || matches!(op, Bin::Step);
                let (mut a, mut ai) = self.operand(vec, operands_exact, d);
                // GLSL mixes a vec4 with a float in arithmetic.
                let b_vec =
                    vec && !(matches!(op, Bin::Mul | Bin::Add | Bin::Sub) && self.src.chance(1, 3));
                let (mut b, mut bi) = self.operand(b_vec, operands_exact, d);
                let den = |a: Info, b: Info| Some(a.den?.max(b.den?));
                let info = match op {
                    Bin::Add | Bin::Sub => Info {
                        vec,
                        den: den(ai, bi),
                        bound: ai.bound + bi.bound,
                    },
                    Bin::Mul => {
                        // Keep products exact: floor an operand until they are.
                        for _ in 0..2 {
                            let ok = match (ai.den, bi.den) {
                                (Some(x), Some(y)) => representable(x + y, ai.bound * bi.bound),
                                _ => true,
                            };
                            if ok {
                                break;
                            }
                            if ai.den > Some(0) {
                                a = Expr::Un(Un::Floor, Box::new(a));
                                ai.den = Some(0);
                            } else {
                                b = Expr::Un(Un::Floor, Box::new(b));
                                bi.den = Some(0);
                            }
                        }
                        let d = match (ai.den, bi.den) {
                            (Some(x), Some(y)) => Some(x + y),
                            _ => None,
                        };
                        Info {
                            vec,
                            den: d,
                            bound: ai.bound * bi.bound,
                        }
                    }
                    Bin::Min | Bin::Max => Info {
                        vec,
                        den: den(ai, bi),
                        bound: ai.bound.max(bi.bound),
                    },
                    Bin::Step => Info {
                        vec,
                        den: Some(0),
                        bound: 1.0,
                    },
                };
                let e = Expr::Bin(op, Box::new(a), Box::new(b));
                self.bounded((e, info))
            }
            5 | 6 => {
                let op = if exact {
                    self.pick(&[Un::Neg, Un::Abs, Un::Floor, Un::Fract])
                } else if self.divisions {
                    self.pick(&[Un::Neg, Un::Abs, Un::Floor, Un::Sqrt, Un::Recip, Un::Div])
                } else {
                    self.pick(&[Un::Neg, Un::Abs, Un::Floor, Un::Fract, Un::Sqrt, Un::Recip])
                };
                let needs_exact = exact || matches!(op, Un::Floor | Un::Fract | Un::Div);
                let (a, ai) = self.expr(vec, needs_exact, d);
                let info = match op {
                    Un::Floor => Info { den: Some(0), ..ai },
                    Un::Fract => Info { bound: 1.0, ..ai },
                    Un::Sqrt => Info {
                        den: None,
                        bound: ai.bound.sqrt(),
                        ..ai
                    },
                    Un::Recip => Info {
                        den: None,
                        bound: 1.0,
                        ..ai
                    },
                    Un::Div => Info {
                        den: None,
                        bound: 2.0,
                        ..ai
                    },
                    _ => ai,
                };
                (Expr::Un(op, Box::new(a)), info)
            }
            7 if !vec => {
                let (a, ai) = self.expr(true, exact, d);
                let (b, bi) = self.expr(true, exact, d);
                let info = Info {
                    vec: false,
                    den: match (ai.den, bi.den) {
                        (Some(x), Some(y)) if representable(x + y, 4.0 * ai.bound * bi.bound) => {
                            Some(x + y)
                        }
                        _ if exact => {
                            // Too fine to stay exact: take floors.
                            let e = Expr::Dot(
                                Box::new(Expr::Un(Un::Floor, Box::new(a))),
                                Box::new(Expr::Un(Un::Floor, Box::new(b))),
                            );
                            let info = Info {
                                vec: false,
                                den: Some(0),
                                bound: 4.0 * ai.bound * bi.bound,
                            };
                            return self.bounded((e, info));
                        }
                        _ => None,
                    },
                    bound: 4.0 * ai.bound * bi.bound,
                };
                self.bounded((Expr::Dot(Box::new(a), Box::new(b)), info))
            }
            8..=10 => {
                // Selects: splats, swizzles and texture reads on either side.
                let c = self.cond(d.min(1));
                let (a, ai) = self.side(vec, exact, d);
                let (b, bi) = self.side(vec, exact, d);
                let info = merge(ai, bi, vec);
                if self.src.chance(1, 3) {
                    let (e, _) = self.expr(vec, true, 1);
                    let (x, _) = self.expr(vec, true, 1);
                    let mix = Expr::Mix(Box::new(a), Box::new(b), Box::new(e), Box::new(x));
                    return (mix, info);
                }
                (Expr::Select(Box::new(c), Box::new(a), Box::new(b)), info)
            }
            11 | 12 if self.stage == Stage::Fragment => {
                let (t, ti) = self.texture(d);
                self.shape((t, ti), vec)
            }
            _ => self.leaf(vec, exact),
        }
    }

    /// An operand of arithmetic: when exact, at most as fine as a variable ([`VAR_DEN`]), so
    /// that sums, differences and blends of two operands stay representable in f24.
    fn operand(&mut self, vec: bool, exact: bool, depth: u32) -> (Expr, Info) {
        let (e, i) = self.expr(vec, exact, depth);
        match i.den {
            Some(d) if exact && d > VAR_DEN => (
                Expr::Un(Un::Quant, Box::new(e)),
                Info {
                    den: Some(VAR_DEN),
                    ..i
                },
            ),
            _ => (e, i),
        }
    }

    /// One side of a select: often a splat, a swizzle or a texture read.
    fn side(&mut self, vec: bool, exact: bool, depth: u32) -> (Expr, Info) {
        match self.src.below(4) {
            0 if vec => {
                let (e, i) = self.operand(false, exact, depth);
                (Expr::Splat(Box::new(e)), Info { vec: true, ..i })
            }
            1 if self.stage == Stage::Fragment => {
                let t = self.texture(depth);
                self.shape(t, vec)
            }
            _ => self.operand(vec, exact, depth),
        }
    }

    /// `texture(texK, c.xy)` with an exact coordinate.
    fn texture(&mut self, depth: u32) -> (Expr, Info) {
        let k = self.src.below(SAMPLERS);
        // Often an interpolated input as it is: AGAL 2 keeps a branch around such a read
        // (a computed coordinate inside one makes it flatten the program).
        if self.plain_coords || self.src.chance(1, 3) {
            let input = Expr::Input(self.src.below(self.inputs as u32) as usize);
            let info = Info {
                vec: true,
                den: Some(3),
                bound: BOUND,
            };
            return (Expr::Tex(k, Box::new(input)), info);
        }
        let (c, ci) = self.expr(true, true, depth.min(2));
        let c = self.fit((c, ci), true);
        (
            Expr::Tex(k, Box::new(c)),
            Info {
                vec: true,
                den: Some(3),
                bound: BOUND,
            },
        )
    }

    /// `e` clamped when it may leave the bound.
    fn bounded(&mut self, (e, i): (Expr, Info)) -> (Expr, Info) {
        if i.bound > BOUND {
            (Expr::Un(Un::Clamp, Box::new(e)), Info { bound: BOUND, ..i })
        } else {
            (e, i)
        }
    }
}

fn merge(a: Info, b: Info, vec: bool) -> Info {
    Info {
        vec,
        den: match (a.den, b.den) {
            (Some(x), Some(y)) => Some(x.max(y)),
            _ => None,
        },
        bound: a.bound.max(b.bound),
    }
}

/// Values on the generator's grid: multiples of 1/8 in [-4, 4].
pub fn values(p: &Program, src: &mut dyn Source) -> Values {
    let mut grid = || (src.below(65) as i32 - 32) as f32 / 8.0;
    Values {
        inputs: (0..p.inputs)
            .map(|_| [grid(), grid(), grid(), grid()])
            .collect(),
        vecs: (0..UNIFORM_VECS)
            .map(|_| [grid(), grid(), grid(), grid()])
            .collect(),
        floats: (0..UNIFORM_FLOATS).map(|_| grid()).collect(),
    }
}
