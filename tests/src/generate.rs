//! Random valid vertex shaders, as SPIR-V assembly text: expression DAGs over the operations
//! the compiler supports, structured `if`s on comparisons and counted loops, for
//! differential testing (compile, simulate, compare with the MIR interpreter) and fuzzing.
//!
//! The shaders are made so that a correct compiler gives the same answer on every target up
//! to rounding:
//! - inputs and uniforms are multiples of 1/8 in [-4, 4], exact in f24;
//! - every value knows whether it is still exact (a small multiple of a power of two,
//!   representable in f24 without rounding) and how large it can be; discontinuous
//!   operations (floor, fract, step, the comparisons `if`s test) only take exact values, so
//!   f24 rounding cannot flip them;
//! - operations that grow values are clamped to [-16, 16], so f24's smaller range is never
//!   reached.
//!
//! Everything random comes from a [`Source`], so a seed (tests) or fuzzer bytes (cargo-fuzz)
//! drive it alike.

use std::fmt::Write;

/// Where the randomness comes from.
pub trait Source {
    /// The next 32 random bits.
    fn next_u32(&mut self) -> u32;

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: u32) -> u32 {
        self.next_u32() % n.max(1)
    }

    /// True with probability `num / den`.
    fn chance(&mut self, num: u32, den: u32) -> bool {
        self.below(den) < num
    }
}

impl Source for crate::mirtest::Rng {
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

/// A source that reads fuzzer bytes, then zeros.
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    /// Reads `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, at: 0 }
    }
}

impl Source for Bytes<'_> {
    fn next_u32(&mut self) -> u32 {
        let mut w = [0u8; 4];
        for b in &mut w {
            *b = self.data.get(self.at).copied().unwrap_or(0);
            self.at += 1;
        }
        u32::from_le_bytes(w)
    }
}

/// An exactly representable value's shape: the power of two of its denominator and a
/// bound on its magnitude.
type Exact = (u32, f64);

/// What is known of a value: its id, and whether (and how) it is exact.
#[derive(Clone, Copy, Debug)]
struct Val {
    id: usize,
    exact: Option<Exact>,
}

/// Values up to this size in f24 mantissa bits stay exact (f24 keeps 17 with the hidden
/// bit; one spare).
const EXACT_BITS: f64 = 65536.0;

fn exact(den: u32, bound: f64) -> Option<Exact> {
    (bound * f64::from(1u32 << den.min(20)) < EXACT_BITS && den <= 12).then_some((den, bound))
}

/// A generator's state: the text so far, the values in scope.
struct Gen<'s> {
    src: &'s mut dyn Source,
    types: String,
    consts: String,
    code: String,
    next: usize,
    /// Values usable here (a stack of scopes).
    scopes: Vec<Vec<Val>>,
    /// Function variables, declared at the top of the entry block.
    /// Function variables: id, and whether it is an int loop counter (else a vec4).
    vars: Vec<(usize, bool)>,
    depth: usize,
    statements: usize,
    float_consts: Vec<(u32, usize)>,
    int_consts: Vec<(i32, usize)>,
    composites: Vec<([u32; 4], usize)>,
}

/// A random vertex shader: `inputs` vec4 inputs, a uniform block of eight vec4s, `outputs`
/// vec4 outputs plus `gl_Position`, and about `size` statements.
pub fn vertex_shader(src: &mut dyn Source, size: usize) -> String {
    let inputs = 1 + src.below(3) as usize;
    let outputs = 1 + src.below(3) as usize;
    let mut g = Gen {
        src,
        types: String::new(),
        consts: String::new(),
        code: String::new(),
        next: 100,
        scopes: vec![Vec::new()],
        vars: Vec::new(),
        depth: 0,
        statements: 0,
        float_consts: Vec::new(),
        int_consts: Vec::new(),
        composites: Vec::new(),
    };
    // The interface: inputs, then the uniforms' eight registers.
    for i in 0..inputs {
        let v = g.fresh();
        writeln!(g.code, "%{v} = OpLoad %v4 %in{i}").ok();
        g.scope().push(Val {
            id: v,
            exact: Some((3, 4.0)),
        });
    }
    for k in 0..8 {
        let idx = g.int_const(k);
        let (p, v) = (g.fresh(), g.fresh());
        writeln!(g.code, "%{p} = OpAccessChain %ptr_u_v4 %u %int_0 %{idx}").ok();
        writeln!(g.code, "%{v} = OpLoad %v4 %{p}").ok();
        g.scope().push(Val {
            id: v,
            exact: Some((3, 4.0)),
        });
    }
    let _ = g.int_const(0);
    while g.statements < size {
        g.statement();
    }
    // Outputs read the latest values.
    let mut stores = String::new();
    for o in 0..=outputs {
        let v = g.pick_recent();
        let target = if o == 0 {
            "%pos".to_string()
        } else {
            format!("%out{}", o - 1)
        };
        writeln!(stores, "OpStore {target} %{}", v.id).ok();
    }
    g.code += &stores;
    g.finish(inputs, outputs)
}

impl Gen<'_> {
    fn fresh(&mut self) -> usize {
        self.next += 1;
        self.next
    }

    fn scope(&mut self) -> &mut Vec<Val> {
        self.scopes.last_mut().expect("a scope")
    }

    fn all(&self) -> Vec<Val> {
        self.scopes.iter().flatten().copied().collect()
    }

    fn pick(&mut self) -> Val {
        let all = self.all();
        all[self.src.below(all.len() as u32) as usize]
    }

    /// A recent value (from the last eight), so chains get long.
    fn pick_recent(&mut self) -> Val {
        let all = self.all();
        let from = all.len().saturating_sub(8);
        all[from + self.src.below((all.len() - from) as u32) as usize]
    }

    fn pick_exact(&mut self) -> Option<Val> {
        let exact: Vec<Val> = self
            .all()
            .into_iter()
            .filter(|v| v.exact.is_some())
            .collect();
        (!exact.is_empty()).then(|| exact[self.src.below(exact.len() as u32) as usize])
    }

    fn float_const(&mut self, bits: u32) -> usize {
        if let Some(&(_, id)) = self.float_consts.iter().find(|(b, _)| *b == bits) {
            return id;
        }
        let id = self.fresh();
        writeln!(
            self.consts,
            "%{id} = OpConstant %f32 {}",
            f32::from_bits(bits)
        )
        .ok();
        self.float_consts.push((bits, id));
        id
    }

    /// The name of an `i32` constant (`int_N`), declared on first use.
    fn int_const(&mut self, value: i32) -> String {
        let name = format!("int_{value}");
        if !self.int_consts.iter().any(|(v, _)| *v == value) {
            writeln!(self.consts, "%{name} = OpConstant %i32 {value}").ok();
            self.int_consts.push((value, 0));
        }
        name
    }

    /// A vec4 constant of multiples of 1/8 (exact).
    fn vec_const(&mut self) -> Val {
        let lanes: [f32; 4] =
            std::array::from_fn(|_| (self.src.below(65) as i32 - 32) as f32 / 8.0);
        let bits = lanes.map(f32::to_bits);
        if let Some(&(_, id)) = self.composites.iter().find(|(b, _)| *b == bits) {
            return Val {
                id,
                exact: Some((3, 4.0)),
            };
        }
        let ids: Vec<usize> = bits.iter().map(|&b| self.float_const(b)).collect();
        let id = self.fresh();
        writeln!(
            self.consts,
            "%{id} = OpConstantComposite %v4 %{} %{} %{} %{}",
            ids[0], ids[1], ids[2], ids[3]
        )
        .ok();
        self.composites.push((bits, id));
        Val {
            id,
            exact: Some((3, 4.0)),
        }
    }

    fn splat(&mut self, x: f32) -> usize {
        let bits = [x.to_bits(); 4];
        if let Some(&(_, id)) = self.composites.iter().find(|(b, _)| *b == bits) {
            return id;
        }
        let c = self.float_const(x.to_bits());
        let id = self.fresh();
        writeln!(
            self.consts,
            "%{id} = OpConstantComposite %v4 %{c} %{c} %{c} %{c}"
        )
        .ok();
        self.composites.push((bits, id));
        id
    }

    fn emit(&mut self, line: String, exact: Option<Exact>) -> Val {
        let id = self.fresh();
        writeln!(self.code, "%{id} = {line}").ok();
        let v = Val { id, exact };
        self.scope().push(v);
        v
    }

    /// `clamp(x, -16, 16)`, for operations that can grow.
    fn bounded(&mut self, v: Val) -> Val {
        let (lo, hi) = (self.splat(-16.0), self.splat(16.0));
        let id = self.fresh();
        writeln!(
            self.code,
            "%{id} = OpExtInst %v4 %glsl FClamp %{} %{lo} %{hi}",
            v.id
        )
        .ok();
        // The unclamped value is not to be reused: replace it.
        self.scope().pop();
        let out = Val {
            id,
            exact: v.exact.map(|(d, b)| (d, b.min(16.0))),
        };
        self.scope().push(out);
        out
    }

    fn statement(&mut self) {
        self.statements += 1;
        let roll = self.src.below(100);
        if roll < 8 && self.depth < 2 {
            return self.if_statement();
        }
        if roll < 13 && self.depth < 2 {
            return self.loop_statement();
        }
        self.expression();
    }

    /// One new value from those in scope.
    fn expression(&mut self) {
        let a = self.pick_recent();
        let b = self.pick();
        let op = self.src.below(20);
        let ex = |x: Option<Exact>, y: Option<Exact>, f: fn(Exact, Exact) -> Exact| match (x, y) {
            (Some(p), Some(q)) => {
                let (d, m) = f(p, q);
                exact(d, m)
            }
            _ => None,
        };
        let v = match op {
            0 => {
                let e = ex(a.exact, b.exact, |p, q| (p.0.max(q.0), p.1 + q.1));
                let v = self.emit(format!("OpFAdd %v4 %{} %{}", a.id, b.id), e);
                self.bounded(v)
            }
            1 => {
                let e = ex(a.exact, b.exact, |p, q| (p.0.max(q.0), p.1 + q.1));
                let v = self.emit(format!("OpFSub %v4 %{} %{}", a.id, b.id), e);
                self.bounded(v)
            }
            2 => {
                let e = ex(a.exact, b.exact, |p, q| (p.0 + q.0, p.1 * q.1));
                let v = self.emit(format!("OpFMul %v4 %{} %{}", a.id, b.id), e);
                self.bounded(v)
            }
            3 => {
                let c = self.pick();
                let e = match (a.exact, b.exact, c.exact) {
                    (Some(p), Some(q), Some(r)) => exact((p.0 + q.0).max(r.0), p.1 * q.1 + r.1),
                    _ => None,
                };
                let v = self.emit(
                    format!("OpExtInst %v4 %glsl Fma %{} %{} %{}", a.id, b.id, c.id),
                    e,
                );
                self.bounded(v)
            }
            4 => {
                let e = ex(a.exact, b.exact, |p, q| (p.0.max(q.0), p.1.max(q.1)));
                self.emit(format!("OpExtInst %v4 %glsl FMin %{} %{}", a.id, b.id), e)
            }
            5 => {
                let e = ex(a.exact, b.exact, |p, q| (p.0.max(q.0), p.1.max(q.1)));
                self.emit(format!("OpExtInst %v4 %glsl FMax %{} %{}", a.id, b.id), e)
            }
            6 => self.emit(format!("OpExtInst %v4 %glsl FAbs %{}", a.id), a.exact),
            7 => self.emit(format!("OpFNegate %v4 %{}", a.id), a.exact),
            8 => {
                // A swizzle of two values.
                let l: Vec<u32> = (0..4).map(|_| self.src.below(8)).collect();
                let e = ex(a.exact, b.exact, |p, q| (p.0.max(q.0), p.1.max(q.1)));
                self.emit(
                    format!(
                        "OpVectorShuffle %v4 %{} %{} {} {} {} {}",
                        a.id, b.id, l[0], l[1], l[2], l[3]
                    ),
                    e,
                )
            }
            9 => match self.pick_exact() {
                Some(x) => {
                    let (d, m) = x.exact.unwrap_or((0, 16.0));
                    self.emit(
                        format!("OpExtInst %v4 %glsl Floor %{}", x.id),
                        exact(0, m + 1.0).or(Some((0, m + 1.0))).filter(|_| d < 20),
                    )
                }
                None => self.emit(format!("OpExtInst %v4 %glsl Sin %{}", a.id), None),
            },
            10 => match self.pick_exact() {
                Some(x) => {
                    let d = x.exact.map_or(0, |e| e.0);
                    self.emit(
                        format!("OpExtInst %v4 %glsl Fract %{}", x.id),
                        exact(d, 1.0),
                    )
                }
                None => self.emit(format!("OpExtInst %v4 %glsl Cos %{}", a.id), None),
            },
            11 => match (self.pick_exact(), self.pick_exact()) {
                (Some(e), Some(x)) => self.emit(
                    format!("OpExtInst %v4 %glsl Step %{} %{}", e.id, x.id),
                    Some((0, 1.0)),
                ),
                _ => self.emit(format!("OpExtInst %v4 %glsl Sin %{}", a.id), None),
            },
            12 => self.emit(format!("OpExtInst %v4 %glsl Sin %{}", a.id), None),
            13 => self.emit(format!("OpExtInst %v4 %glsl Cos %{}", a.id), None),
            14 => {
                // sqrt(|x| + 1): defined everywhere.
                let one = self.splat(1.0);
                let abs = self.fresh();
                let sum = self.fresh();
                writeln!(self.code, "%{abs} = OpExtInst %v4 %glsl FAbs %{}", a.id).ok();
                writeln!(self.code, "%{sum} = OpFAdd %v4 %{abs} %{one}").ok();
                let f = if self.src.chance(1, 2) {
                    "Sqrt"
                } else {
                    "InverseSqrt"
                };
                self.emit(format!("OpExtInst %v4 %glsl {f} %{sum}"), None)
            }
            15 => {
                // x / (|y| + 1).
                let one = self.splat(1.0);
                let abs = self.fresh();
                let sum = self.fresh();
                writeln!(self.code, "%{abs} = OpExtInst %v4 %glsl FAbs %{}", b.id).ok();
                writeln!(self.code, "%{sum} = OpFAdd %v4 %{abs} %{one}").ok();
                self.emit(format!("OpFDiv %v4 %{} %{sum}", a.id), None)
            }
            16 => {
                // A dot product, splat.
                let d = self.fresh();
                writeln!(self.code, "%{d} = OpDot %f32 %{} %{}", a.id, b.id).ok();
                let e = ex(a.exact, b.exact, |p, q| (p.0 + q.0, 4.0 * p.1 * q.1));
                let v = self.emit(format!("OpCompositeConstruct %v4 %{d} %{d} %{d} %{d}"), e);
                self.bounded(v)
            }
            17 => {
                let c = self.vec_const();
                let e = ex(a.exact, c.exact, |p, q| (p.0 + q.0, p.1 * q.1));
                let v = self.emit(format!("OpFMul %v4 %{} %{}", a.id, c.id), e);
                self.bounded(v)
            }
            18 => {
                let c = self.vec_const();
                let e = ex(a.exact, c.exact, |p, q| (p.0.max(q.0), p.1 + q.1));
                let v = self.emit(format!("OpFAdd %v4 %{} %{}", a.id, c.id), e);
                self.bounded(v)
            }
            _ => {
                // mix(a, b, w) with w = clamp(c, 0, 1): continuous in every operand.
                let c = self.pick();
                let (zero, one) = (self.splat(0.0), self.splat(1.0));
                let w = self.fresh();
                writeln!(
                    self.code,
                    "%{w} = OpExtInst %v4 %glsl FClamp %{} %{zero} %{one}",
                    c.id
                )
                .ok();
                self.emit(
                    format!("OpExtInst %v4 %glsl FMix %{} %{} %{w}", a.id, b.id),
                    None,
                )
            }
        };
        let _ = v;
    }

    /// A variable holding a value, assigned in both arms of an `if` on a comparison of
    /// exact lanes.
    fn if_statement(&mut self) {
        let (Some(x), Some(y)) = (self.pick_exact(), self.pick_exact()) else {
            return self.expression();
        };
        let init = self.pick();
        let var = self.fresh();
        self.vars.push((var, false));
        writeln!(self.code, "OpStore %{var} %{}", init.id).ok();
        let (lx, ly) = (self.src.below(4), self.src.below(4));
        let (ex, ey, c) = (self.fresh(), self.fresh(), self.fresh());
        writeln!(self.code, "%{ex} = OpCompositeExtract %f32 %{} {lx}", x.id).ok();
        writeln!(self.code, "%{ey} = OpCompositeExtract %f32 %{} {ly}", y.id).ok();
        let cmp = [
            "OpFOrdLessThan",
            "OpFOrdGreaterThanEqual",
            "OpFOrdEqual",
            "OpFOrdNotEqual",
        ][self.src.below(4) as usize];
        writeln!(self.code, "%{c} = {cmp} %bool %{ex} %{ey}").ok();
        let (then, otherwise, merge) = (self.fresh(), self.fresh(), self.fresh());
        writeln!(self.code, "OpSelectionMerge %{merge} None").ok();
        writeln!(self.code, "OpBranchConditional %{c} %{then} %{otherwise}").ok();
        for arm in [then, otherwise] {
            writeln!(self.code, "%{arm} = OpLabel").ok();
            self.scopes.push(Vec::new());
            self.depth += 1;
            let n = 1 + self.src.below(4);
            for _ in 0..n {
                self.statement();
            }
            let v = self.pick_recent();
            writeln!(self.code, "OpStore %{var} %{}", v.id).ok();
            self.depth -= 1;
            self.scopes.pop();
            writeln!(self.code, "OpBranch %{merge}").ok();
        }
        writeln!(self.code, "%{merge} = OpLabel").ok();
        self.emit(format!("OpLoad %v4 %{var}"), None);
    }

    /// `for (i = 0; i < N; i++) { acc = f(acc, ...); [if (…) break;] }`, N from 1 to 12.
    fn loop_statement(&mut self) {
        let trips = 1 + self.src.below(12) as i32;
        let init = self.pick();
        let (acc, counter) = (self.fresh(), self.fresh());
        self.vars.push((acc, false));
        self.vars.push((counter, true));
        let (zero, one, n) = (self.int_const(0), self.int_const(1), self.int_const(trips));
        writeln!(self.code, "OpStore %{acc} %{}", init.id).ok();
        writeln!(self.code, "OpStore %{counter} %{zero}").ok();
        let (header, test, body, cont, merge) = (
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
        );
        writeln!(self.code, "OpBranch %{header}\n%{header} = OpLabel").ok();
        writeln!(
            self.code,
            "OpLoopMerge %{merge} %{cont} None\nOpBranch %{test}"
        )
        .ok();
        let (i, c) = (self.fresh(), self.fresh());
        writeln!(
            self.code,
            "%{test} = OpLabel\n%{i} = OpLoad %i32 %{counter}"
        )
        .ok();
        writeln!(self.code, "%{c} = OpSLessThan %bool %{i} %{n}").ok();
        writeln!(self.code, "OpBranchConditional %{c} %{body} %{merge}").ok();
        writeln!(self.code, "%{body} = OpLabel").ok();
        self.scopes.push(Vec::new());
        self.depth += 1;
        // acc = acc / 2 + sin(v) / 2, with v from the values outside the loop: a
        // contraction, so rounding differences shrink each trip instead of growing (a
        // loop feeding acc back through sin would be chaotic, and any two correct
        // compilers would disagree).
        let a = self.fresh();
        writeln!(self.code, "%{a} = OpLoad %v4 %{acc}").ok();
        let k = 1 + self.src.below(3);
        for _ in 0..k {
            self.statement();
        }
        let v = self.pick_recent();
        let (half, s, t) = (self.splat(0.5), self.fresh(), self.fresh());
        writeln!(self.code, "%{s} = OpExtInst %v4 %glsl Sin %{}", v.id).ok();
        writeln!(self.code, "%{t} = OpFMul %v4 %{s} %{half}").ok();
        let next = self.fresh();
        writeln!(
            self.code,
            "%{next} = OpExtInst %v4 %glsl Fma %{a} %{half} %{t}"
        )
        .ok();
        writeln!(self.code, "OpStore %{acc} %{next}").ok();
        // An early exit, sometimes: `if (i == k) break;` on the counter (exact on every
        // target), or `if (a < b) break;` on two constants (which folds: the loop then runs
        // once, or the test goes).
        let exit = match self.src.below(6) {
            0 | 1 => {
                let at = self.src.below(trips as u32) as i32;
                let (ic, k) = (self.fresh(), self.int_const(at));
                writeln!(self.code, "%{ic} = OpLoad %i32 %{counter}").ok();
                Some(format!("OpIEqual %bool %{ic} %{k}"))
            }
            2 => {
                let (x, y) = (self.src.below(3) as i32, self.src.below(3) as i32);
                let (a, b) = (self.int_const(x), self.int_const(y));
                Some(format!("OpSLessThan %bool %{a} %{b}"))
            }
            _ => None,
        };
        if let Some(test) = exit {
            let (c, brk, after) = (self.fresh(), self.fresh(), self.fresh());
            writeln!(self.code, "%{c} = {test}").ok();
            writeln!(
                self.code,
                "OpSelectionMerge %{after} None\nOpBranchConditional %{c} %{brk} %{after}"
            )
            .ok();
            writeln!(self.code, "%{brk} = OpLabel\nOpBranch %{merge}").ok();
            writeln!(self.code, "%{after} = OpLabel").ok();
        }
        self.depth -= 1;
        self.scopes.pop();
        writeln!(self.code, "OpBranch %{cont}\n%{cont} = OpLabel").ok();
        let (i2, inc) = (self.fresh(), self.fresh());
        writeln!(self.code, "%{i2} = OpLoad %i32 %{counter}").ok();
        writeln!(self.code, "%{inc} = OpIAdd %i32 %{i2} %{one}").ok();
        writeln!(self.code, "OpStore %{counter} %{inc}\nOpBranch %{header}").ok();
        writeln!(self.code, "%{merge} = OpLabel").ok();
        self.emit(format!("OpLoad %v4 %{acc}"), None);
    }

    fn finish(self, inputs: usize, outputs: usize) -> String {
        let mut t = String::new();
        t += "; SPIR-V\n; Version: 1.0\n";
        t += "OpCapability Shader\n%glsl = OpExtInstImport \"GLSL.std.450\"\n";
        t += "OpMemoryModel Logical GLSL450\n";
        let mut iface: Vec<String> = (0..inputs).map(|i| format!("%in{i}")).collect();
        iface.extend((0..outputs).map(|o| format!("%out{o}")));
        iface.push("%pos".into());
        writeln!(t, "OpEntryPoint Vertex %main \"main\" {}", iface.join(" ")).ok();
        for i in 0..inputs {
            writeln!(t, "OpDecorate %in{i} Location {i}").ok();
        }
        for o in 0..outputs {
            writeln!(t, "OpDecorate %out{o} Location {o}").ok();
        }
        t += "OpDecorate %pos BuiltIn Position\n";
        t += "OpDecorate %arr ArrayStride 16\nOpMemberDecorate %U 0 Offset 0\n";
        t += "OpDecorate %U Block\nOpDecorate %u DescriptorSet 0\nOpDecorate %u Binding 0\n";
        t += "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%f32 = OpTypeFloat 32\n";
        t += "%v4 = OpTypeVector %f32 4\n%bool = OpTypeBool\n%i32 = OpTypeInt 32 1\n";
        t += "%u32 = OpTypeInt 32 0\n%u32_8 = OpConstant %u32 8\n";
        t += "%arr = OpTypeArray %v4 %u32_8\n%U = OpTypeStruct %arr\n";
        t += "%ptr_u = OpTypePointer Uniform %U\n%ptr_u_v4 = OpTypePointer Uniform %v4\n";
        t += "%ptr_in = OpTypePointer Input %v4\n%ptr_out = OpTypePointer Output %v4\n";
        t += "%ptr_fn = OpTypePointer Function %v4\n%ptr_fn_i = OpTypePointer Function %i32\n";
        t += &self.types;
        t += &self.consts;
        t += "%u = OpVariable %ptr_u Uniform\n";
        for i in 0..inputs {
            writeln!(t, "%in{i} = OpVariable %ptr_in Input").ok();
        }
        for o in 0..outputs {
            writeln!(t, "%out{o} = OpVariable %ptr_out Output").ok();
        }
        t += "%pos = OpVariable %ptr_out Output\n";
        t += "%main = OpFunction %void None %fn\n%entry = OpLabel\n";
        // Variables: vec4 ones, and the loop counters.
        for &(v, counter) in &self.vars {
            let ty = if counter { "%ptr_fn_i" } else { "%ptr_fn" };
            writeln!(t, "%{v} = OpVariable {ty} Function").ok();
        }
        t += &self.code;
        t += "OpReturn\nOpFunctionEnd\n";
        t
    }
}
