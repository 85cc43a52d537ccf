//! Random fragment shaders the PICA200's texture combiners can compute, each with its value
//! computed here, in floats, from the same tree the GLSL text is printed from: the test
//! compiles the text, runs the command words it gets through an independent decoder and
//! evaluator ([`crate::tev_oracle`]), and compares.
//!
//! Every inner value stays in [0, 1] for inputs in [0, 1] (products, `mix`, `1.0 - x`,
//! channel broadcasts, clamped sums and differences, `vec4(a.rgb, b.a)`), so the combiners'
//! clamping never changes it; the top may leave [0, 1] (a sum, a difference, a scale by 2 or
//! 4, `a + b - 0.5`, `a * b + c`), as the framebuffer clamps the colour. A shader may discard
//! on the final alpha.

use test_kit::Rng;

/// A vec4 expression.
#[derive(Clone, Debug)]
pub enum V {
    /// `texture(tK, uvK)`.
    Tex(u8),
    /// The colour varying.
    Color,
    /// The uniform `tint`.
    Tint,
    /// A literal.
    Lit([f32; 4]),
    /// `a * b`.
    Mul(Box<V>, Box<V>),
    /// `mix(a, b, t)`; with `alpha` the weight is `t.a`.
    Mix(Box<V>, Box<V>, Box<V>, bool),
    /// `1.0 - a`.
    OneMinus(Box<V>),
    /// `a.cccc` (a channel broadcast).
    Chan(Box<V>, u8),
    /// `clamp(a + b, 0.0, 1.0)`.
    SatAdd(Box<V>, Box<V>),
    /// `clamp(a - b, 0.0, 1.0)`.
    SatSub(Box<V>, Box<V>),
    /// `vec4(a.rgb, b.a)`.
    Join(Box<V>, Box<V>),
}

/// The top of a program: where the value may leave [0, 1].
#[derive(Clone, Debug)]
pub enum Top {
    /// The value.
    Plain(V),
    /// `a + b`.
    Add(V, V),
    /// `a - b`.
    Sub(V, V),
    /// `a * b + c`.
    MulAdd(V, V, V),
    /// `a + b - 0.5`.
    AddSigned(V, V),
    /// `a * k` (k 2 or 4).
    Scale(V, f32),
}

/// A generated program.
#[derive(Clone, Debug)]
pub struct Program {
    /// The colour.
    pub top: Top,
    /// `if (c.a < t) discard;`.
    pub discard_below: Option<f32>,
}

/// The inputs of one fragment: values in [0, 1] (bytes / 255).
#[derive(Clone, Copy, Debug)]
pub struct Env {
    /// Units' samples by sampler `t0`, `t1`, `t2`.
    pub textures: [[f32; 4]; 3],
    /// The colour varying.
    pub color: [f32; 4],
    /// The uniform.
    pub tint: [f32; 4],
}

fn map2(a: [f32; 4], b: [f32; 4], f: impl Fn(f32, f32) -> f32) -> [f32; 4] {
    std::array::from_fn(|k| f(a[k], b[k]))
}

impl V {
    /// The value at `e`.
    pub fn eval(&self, e: &Env) -> [f32; 4] {
        match self {
            V::Tex(k) => e.textures[*k as usize],
            V::Color => e.color,
            V::Tint => e.tint,
            V::Lit(v) => *v,
            V::Mul(a, b) => map2(a.eval(e), b.eval(e), |x, y| x * y),
            V::Mix(a, b, t, alpha) => {
                let (a, b, t) = (a.eval(e), b.eval(e), t.eval(e));
                std::array::from_fn(|k| {
                    let w = if *alpha { t[3] } else { t[k] };
                    a[k] * (1.0 - w) + b[k] * w
                })
            }
            V::OneMinus(a) => a.eval(e).map(|x| 1.0 - x),
            V::Chan(a, c) => [a.eval(e)[*c as usize]; 4],
            V::SatAdd(a, b) => map2(a.eval(e), b.eval(e), |x, y| (x + y).clamp(0.0, 1.0)),
            V::SatSub(a, b) => map2(a.eval(e), b.eval(e), |x, y| (x - y).clamp(0.0, 1.0)),
            V::Join(a, b) => {
                let (a, b) = (a.eval(e), b.eval(e));
                [a[0], a[1], a[2], b[3]]
            }
        }
    }

    /// GLSL.
    pub fn glsl(&self) -> String {
        match self {
            V::Tex(k) => format!("texture(t{k}, uv{k})"),
            V::Color => "vColor".into(),
            V::Tint => "tint".into(),
            V::Lit(v) => format!("vec4({:.2}, {:.2}, {:.2}, {:.2})", v[0], v[1], v[2], v[3]),
            V::Mul(a, b) => format!("({} * {})", a.glsl(), b.glsl()),
            V::Mix(a, b, t, alpha) => format!(
                "mix({}, {}, {}{})",
                a.glsl(),
                b.glsl(),
                t.glsl(),
                if *alpha { ".a" } else { "" }
            ),
            V::OneMinus(a) => format!("(1.0 - {})", a.glsl()),
            V::Chan(a, c) => {
                let l = ["r", "g", "b", "a"][*c as usize];
                format!("{}.{l}{l}{l}{l}", a.glsl())
            }
            V::SatAdd(a, b) => format!("clamp({} + {}, 0.0, 1.0)", a.glsl(), b.glsl()),
            V::SatSub(a, b) => format!("clamp({} - {}, 0.0, 1.0)", a.glsl(), b.glsl()),
            V::Join(a, b) => format!("vec4(({}).rgb, ({}).a)", a.glsl(), b.glsl()),
        }
    }

    /// A random expression of at most `depth` levels.
    pub fn random(r: &mut Rng, depth: u32) -> V {
        if depth == 0 || r.index(3) == 0 {
            return match r.index(6) {
                0 => V::Tex(0),
                1 => V::Tex(1),
                2 => V::Tex(2),
                3 => V::Color,
                4 => V::Tint,
                _ => V::Lit(std::array::from_fn(|_| (r.index(101) as f32) / 100.0)),
            };
        }
        let kind = r.index(8);
        let channel = r.index(4) as u8;
        let mut sub = || Box::new(V::random(r, depth - 1));
        match kind {
            0 => V::Mul(sub(), sub()),
            1 => V::Mix(sub(), sub(), sub(), false),
            2 => V::Mix(sub(), sub(), sub(), true),
            3 => V::OneMinus(sub()),
            4 => V::Chan(sub(), channel),
            5 => V::SatAdd(sub(), sub()),
            6 => V::SatSub(sub(), sub()),
            _ => V::Join(sub(), sub()),
        }
    }
}

impl Top {
    /// The value at `e` (not clamped).
    pub fn eval(&self, e: &Env) -> [f32; 4] {
        match self {
            Top::Plain(v) => v.eval(e),
            Top::Add(a, b) => map2(a.eval(e), b.eval(e), |x, y| x + y),
            Top::Sub(a, b) => map2(a.eval(e), b.eval(e), |x, y| x - y),
            Top::MulAdd(a, b, c) => {
                let p = map2(a.eval(e), b.eval(e), |x, y| x * y);
                map2(p, c.eval(e), |x, y| x + y)
            }
            Top::AddSigned(a, b) => map2(a.eval(e), b.eval(e), |x, y| x + y - 0.5),
            Top::Scale(a, k) => a.eval(e).map(|x| x * k),
        }
    }

    fn glsl(&self) -> String {
        match self {
            Top::Plain(v) => v.glsl(),
            Top::Add(a, b) => format!("{} + {}", a.glsl(), b.glsl()),
            Top::Sub(a, b) => format!("{} - {}", a.glsl(), b.glsl()),
            Top::MulAdd(a, b, c) => format!("{} * {} + {}", a.glsl(), b.glsl(), c.glsl()),
            Top::AddSigned(a, b) => format!("{} + {} - 0.5", a.glsl(), b.glsl()),
            Top::Scale(a, k) => format!("{} * {k:.1}", a.glsl()),
        }
    }
}

impl Program {
    /// A random program whose inner expressions have at most `depth` levels.
    pub fn random(r: &mut Rng, depth: u32) -> Program {
        let kind = r.index(8);
        let top = {
            let mut v = || V::random(r, depth);
            match kind {
                0 => Top::Add(v(), v()),
                1 => Top::Sub(v(), v()),
                2 => Top::MulAdd(v(), v(), v()),
                3 => Top::AddSigned(v(), v()),
                4 => Top::Scale(v(), 2.0),
                5 => Top::Scale(v(), 4.0),
                _ => Top::Plain(v()),
            }
        };
        let discard = r.index(4) == 0;
        let threshold = (r.index(99) as f32 + 1.0) / 100.0;
        let discard_below = discard.then_some(threshold);
        Program { top, discard_below }
    }

    /// The colour at `e`, clamped as the framebuffer stores it, or `None` when discarded.
    pub fn eval(&self, e: &Env) -> Option<[f32; 4]> {
        let c = self.top.eval(e);
        if let Some(t) = self.discard_below {
            if c[3] < t {
                return None;
            }
        }
        Some(c.map(|x| x.clamp(0.0, 1.0)))
    }

    /// The final alpha before clamping (to skip cases at the alpha test's edge).
    pub fn alpha(&self, e: &Env) -> f32 {
        self.top.eval(e)[3]
    }

    /// The fragment shader (GLSL 450).
    pub fn glsl(&self) -> String {
        let mut s = String::from("#version 450\n");
        for k in 0..3 {
            s += &format!(
                "layout(location = {k}) in vec2 uv{k};\nlayout(binding = {k}) uniform sampler2D t{k};\n"
            );
        }
        s += "layout(location = 3) in vec4 vColor;\n";
        s += "layout(binding = 3) uniform U { vec4 tint; };\n";
        s += "layout(location = 0) out vec4 color;\n";
        s += "void main() {\n";
        s += &format!("    vec4 c = {};\n", self.top.glsl());
        if let Some(t) = self.discard_below {
            s += &format!("    if (c.a < {t:.2}) discard;\n");
        }
        s += "    color = c;\n}\n";
        s
    }
}
