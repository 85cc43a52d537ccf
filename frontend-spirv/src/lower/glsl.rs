//! The GLSL.std.450 extended instructions.
//!
//! Most map to one MIR operation or a short sequence of them. The inverse trigonometric
//! functions have no instruction on either target and become polynomial approximations here,
//! the same for both targets:
//! - `atan(x)` for |x| ≤ 1: `x (0.99997726 + x²(-0.33262347 + x²(0.19354346 + x²(-0.11643287 +
//!   x²(0.05265332 - 0.01172120 x²)))))`, error below 1e-5 rad; larger |x| use
//!   `sign(x) π/2 - atan(1/x)`;
//! - `asin(x) = atan2(x, sqrt(1 - x²))`, `acos(x) = atan2(sqrt(1 - x²), x)`.

use mir::inst::{CmpOp, Op, Operand};
use mir::{Span, Swizzle, Ty};
use spirv::GlslStd450Op as G;

use super::body::Frame;
use super::value::{Val, vector};
use super::{Lowerer, rule};
use crate::module::Inst;

impl Lowerer<'_> {
    /// Lowers an `OpExtInst` (validation allows only GLSL.std.450 imports).
    pub(super) fn glsl(&mut self, inst: &Inst, frame: &Frame) -> Option<Val> {
        let span = inst.span;
        let number = inst.literal_operand(1)?;
        let Some(g) = G::from_u32(number) else {
            self.error(
                rule::INSTRUCTION,
                inst,
                format!("GLSL.std.450 instruction {number} does not exist"),
            );
            return None;
        };
        let rt = inst.result_type().unwrap_or(0);
        let lanes = self.leaf_types(rt).first().map_or(1, |t| t.lanes);
        let ty = Ty::float(lanes);
        let mut args = Vec::new();
        for i in 2..inst.op.operands.len() {
            let id = inst.id_operand(i)?;
            args.push(self.value(id, inst, frame)?);
        }
        let arg = |i: usize| args.get(i).and_then(Val::vector).map(|(o, _)| o);
        let arg_lanes = |i: usize| args.get(i).and_then(Val::vector).map_or(1, |(_, n)| n);
        let out = |l: &mut Self, op: Op, a: Vec<Operand>| -> Option<Val> {
            Some(vector(l.emit(op, a, ty, span), lanes))
        };
        match g {
            G::Round => out(self, Op::Round, vec![arg(0)?]),
            G::RoundEven => out(self, Op::RoundEven, vec![arg(0)?]),
            G::Trunc => out(self, Op::Trunc, vec![arg(0)?]),
            G::FAbs | G::SAbs => Some(vector(
                Operand {
                    abs: true,
                    neg: false,
                    ..arg(0)?
                },
                lanes,
            )),
            G::FSign | G::SSign => out(self, Op::Sign, vec![arg(0)?]),
            G::Floor => out(self, Op::Floor, vec![arg(0)?]),
            G::Ceil => out(self, Op::Ceil, vec![arg(0)?]),
            G::Fract => out(self, Op::Fract, vec![arg(0)?]),
            G::Radians | G::Degrees => {
                let k = if g == G::Radians {
                    std::f32::consts::PI / 180.0
                } else {
                    180.0 / std::f32::consts::PI
                };
                let k = self.splat_const(k, lanes, span);
                out(self, Op::Mul, vec![arg(0)?, k])
            }
            G::Sin => out(self, Op::Sin, vec![arg(0)?]),
            G::Cos => out(self, Op::Cos, vec![arg(0)?]),
            G::Tan => {
                let s = self.emit(Op::Sin, vec![arg(0)?], ty, span);
                let c = self.emit(Op::Cos, vec![arg(0)?], ty, span);
                out(self, Op::Div, vec![s, c])
            }
            G::Atan => {
                let x = arg(0)?;
                let one = self.splat_const(1.0, lanes, span);
                Some(vector(self.atan2(x, one, lanes, span), lanes))
            }
            G::Atan2 => {
                let (y, x) = (arg(0)?, arg(1)?);
                Some(vector(self.atan2(y, x, lanes, span), lanes))
            }
            G::Asin | G::Acos => {
                // sqrt(1 - x²) beside x, then atan2.
                let x = arg(0)?;
                let one = self.splat_const(1.0, lanes, span);
                let x2 = self.emit(Op::Mul, vec![x, x], ty, span);
                let d = self.emit(Op::Sub, vec![one, x2], ty, span);
                let r = self.emit(Op::Sqrt, vec![d], ty, span);
                let v = if g == G::Asin {
                    self.atan2(x, r, lanes, span)
                } else {
                    self.atan2(r, x, lanes, span)
                };
                Some(vector(v, lanes))
            }
            G::Pow => out(self, Op::Pow, vec![arg(0)?, arg(1)?]),
            G::Exp => Some(vector(self.exp(arg(0)?, lanes, span), lanes)),
            G::Log => Some(vector(self.ln(arg(0)?, lanes, span), lanes)),
            G::Sinh | G::Cosh => {
                // (eˣ ∓ e⁻ˣ) / 2, with e⁻ˣ = 1 / eˣ.
                let x = arg(0)?;
                let e = self.exp(x, lanes, span);
                let r = self.emit(Op::Rcp, vec![e], ty, span);
                let half = self.splat_const(0.5, lanes, span);
                let d = if g == G::Sinh {
                    self.emit(Op::Sub, vec![e, r], ty, span)
                } else {
                    self.emit(Op::Add, vec![e, r], ty, span)
                };
                out(self, Op::Mul, vec![d, half])
            }
            G::Tanh => {
                // 1 - 2 / (e²ˣ + 1): ±1 where e²ˣ overflows or vanishes, never ∞/∞.
                let x = arg(0)?;
                let two = self.splat_const(2.0, lanes, span);
                let x2 = self.emit(Op::Mul, vec![x, two], ty, span);
                let e = self.exp(x2, lanes, span);
                let one = self.splat_const(1.0, lanes, span);
                let d = self.emit(Op::Add, vec![e, one], ty, span);
                let r = self.emit(Op::Rcp, vec![d], ty, span);
                out(self, Op::Mad, vec![r, two.negated(), one])
            }
            G::Asinh => {
                // sign(x) ln(|x| + sqrt(x² + 1)): no cancellation for negative x.
                let x = arg(0)?;
                let ax = Operand {
                    abs: true,
                    neg: false,
                    ..x
                };
                let one = self.splat_const(1.0, lanes, span);
                let q = self.emit(Op::Mad, vec![x, x, one], ty, span);
                let root = self.emit(Op::Sqrt, vec![q], ty, span);
                let sum = self.emit(Op::Add, vec![ax, root], ty, span);
                let l = self.ln(sum, lanes, span);
                let sign = self.emit(Op::Sign, vec![x], ty, span);
                out(self, Op::Mul, vec![sign, l])
            }
            G::Acosh => {
                // ln(x + sqrt(x² - 1)), x ≥ 1.
                let x = arg(0)?;
                let one = self.splat_const(1.0, lanes, span);
                let q = self.emit(Op::Mad, vec![x, x, one.negated()], ty, span);
                let root = self.emit(Op::Sqrt, vec![q], ty, span);
                let sum = self.emit(Op::Add, vec![x, root], ty, span);
                Some(vector(self.ln(sum, lanes, span), lanes))
            }
            G::Atanh => {
                // ln((1 + x) / (1 - x)) / 2.
                let x = arg(0)?;
                let one = self.splat_const(1.0, lanes, span);
                let n = self.emit(Op::Add, vec![one, x], ty, span);
                let d = self.emit(Op::Sub, vec![one, x], ty, span);
                let q = self.emit(Op::Div, vec![n, d], ty, span);
                let l = self.emit(Op::Log2, vec![q], ty, span);
                let k = self.splat_const(std::f32::consts::LN_2 * 0.5, lanes, span);
                out(self, Op::Mul, vec![l, k])
            }
            G::Modf | G::ModfStruct => {
                // whole = trunc(x), fract = x - whole: both with the sign of x.
                let x = arg(0)?;
                let whole = self.emit(Op::Trunc, vec![x], ty, span);
                let fract = self.emit(Op::Sub, vec![x, whole], ty, span);
                let parts = [vector(fract, lanes), vector(whole, lanes)];
                self.two_results(g == G::ModfStruct, parts, args.get(1), inst)
            }
            G::Frexp | G::FrexpStruct => {
                let x = arg(0)?;
                let (significand, exponent) = self.frexp(x, lanes, span);
                let parts = [vector(significand, lanes), vector(exponent, lanes)];
                self.two_results(g == G::FrexpStruct, parts, args.get(1), inst)
            }
            G::Ldexp => {
                // x 2^exp.
                let (x, e) = (arg(0)?, arg(1)?);
                let p = self.emit(Op::Exp2, vec![e], ty, span);
                out(self, Op::Mul, vec![x, p])
            }
            G::Exp2 => out(self, Op::Exp2, vec![arg(0)?]),
            G::Log2 => out(self, Op::Log2, vec![arg(0)?]),
            G::Sqrt => out(self, Op::Sqrt, vec![arg(0)?]),
            G::InverseSqrt => out(self, Op::Rsq, vec![arg(0)?]),
            G::FMin | G::NMin | G::UMin | G::SMin => out(self, Op::Min, vec![arg(0)?, arg(1)?]),
            G::FMax | G::NMax | G::UMax | G::SMax => out(self, Op::Max, vec![arg(0)?, arg(1)?]),
            G::FClamp | G::NClamp | G::UClamp | G::SClamp => {
                let lo = self.emit(Op::Max, vec![arg(0)?, arg(1)?], ty, span);
                out(self, Op::Min, vec![lo, arg(2)?])
            }
            G::FMix => {
                // x + (y - x) * a
                let (x, y, a) = (arg(0)?, arg(1)?, arg(2)?);
                let d = self.emit(Op::Sub, vec![y, x], ty, span);
                out(self, Op::Mad, vec![d, a, x])
            }
            G::Step => {
                // x >= edge ? 1 : 0
                let c = self.emit(
                    Op::Cmp(CmpOp::Ge),
                    vec![arg(1)?, arg(0)?],
                    Ty::bool(lanes),
                    span,
                );
                out(self, Op::BoolToFloat, vec![c])
            }
            G::SmoothStep => {
                // t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2 t)
                let (e0, e1, x) = (arg(0)?, arg(1)?, arg(2)?);
                let num = self.emit(Op::Sub, vec![x, e0], ty, span);
                let den = self.emit(Op::Sub, vec![e1, e0], ty, span);
                let q = self.emit(Op::Div, vec![num, den], ty, span);
                let t = self.emit(Op::Sat, vec![q], ty, span);
                let three = self.splat_const(3.0, lanes, span);
                let two = self.splat_const(2.0, lanes, span);
                let k = self.emit(Op::Mad, vec![two.negated(), t, three], ty, span);
                let t2 = self.emit(Op::Mul, vec![t, t], ty, span);
                out(self, Op::Mul, vec![t2, k])
            }
            G::Fma => out(self, Op::Mad, vec![arg(0)?, arg(1)?, arg(2)?]),
            G::Length => {
                let (v, n) = (arg(0)?, arg_lanes(0));
                let d = if n == 1 {
                    Operand { abs: true, ..v }
                } else {
                    let d = self.emit(Op::Dot(n), vec![v, v], Ty::float(1), span);
                    self.emit(Op::Sqrt, vec![d], Ty::float(1), span)
                };
                Some(vector(d, 1))
            }
            G::Distance => {
                let n = arg_lanes(0);
                let d = self.emit(Op::Sub, vec![arg(0)?, arg(1)?], Ty::float(n), span);
                let r = if n == 1 {
                    Operand { abs: true, ..d }
                } else {
                    let dd = self.emit(Op::Dot(n), vec![d, d], Ty::float(1), span);
                    self.emit(Op::Sqrt, vec![dd], Ty::float(1), span)
                };
                Some(vector(r, 1))
            }
            G::Cross => out(self, Op::Cross, vec![arg(0)?, arg(1)?]),
            G::Normalize => {
                if lanes == 1 {
                    out(self, Op::Sign, vec![arg(0)?])
                } else {
                    out(self, Op::Normalize, vec![arg(0)?])
                }
            }
            G::FaceForward => {
                // dot(Nref, I) < 0 ? N : -N
                let (n, i, nref) = (arg(0)?, arg(1)?, arg(2)?);
                let d = self.dot(lanes, nref, i, Ty::float(1), span);
                let zero = self.fconst(&[0.0], span);
                let c = self.emit(Op::Cmp(CmpOp::Lt), vec![d, zero], Ty::bool(1), span);
                out(
                    self,
                    Op::Select,
                    vec![c.reswizzled(Swizzle::splat(0)), n, n.negated()],
                )
            }
            G::Reflect => {
                // I - 2 dot(N, I) N
                let (i, n) = (arg(0)?, arg(1)?);
                let d = self.dot(lanes, n, i, Ty::float(1), span);
                let two = self.fconst(&[2.0], span);
                let d2 = self.emit(Op::Mul, vec![d, two], Ty::float(1), span);
                out(
                    self,
                    Op::Mad,
                    vec![n, d2.reswizzled(Swizzle::splat(0)).negated(), i],
                )
            }
            G::Refract => {
                // k = 1 - eta² (1 - dot(N,I)²); k < 0 ? 0 : eta I - (eta dot(N,I) + sqrt(k)) N
                let (i, n, eta) = (arg(0)?, arg(1)?, arg(2)?);
                let s1 = Ty::float(1);
                let eta = eta.reswizzled(Swizzle::splat(0));
                let d = self.dot(lanes, n, i, s1, span);
                let one = self.fconst(&[1.0], span);
                let d2 = self.emit(Op::Mul, vec![d, d], s1, span);
                let t = self.emit(Op::Sub, vec![one, d2], s1, span);
                let e2 = self.emit(Op::Mul, vec![eta, eta], s1, span);
                let k = self.emit(Op::Mad, vec![e2.negated(), t, one], s1, span);
                let sk = self.emit(Op::Sqrt, vec![k], s1, span);
                let m = self.emit(Op::Mad, vec![eta, d, sk], s1, span);
                let ei = self.emit(
                    Op::Mul,
                    vec![eta.reswizzled(Swizzle::splat(0)), i],
                    ty,
                    span,
                );
                let r = self.emit(
                    Op::Mad,
                    vec![m.reswizzled(Swizzle::splat(0)).negated(), n, ei],
                    ty,
                    span,
                );
                let zero1 = self.fconst(&[0.0], span);
                let neg = self.emit(Op::Cmp(CmpOp::Lt), vec![k, zero1], Ty::bool(1), span);
                let zero = self.splat_const(0.0, lanes, span);
                out(
                    self,
                    Op::Select,
                    vec![neg.reswizzled(Swizzle::splat(0)), zero, r],
                )
            }
            G::MatrixInverse => {
                // The adjugate over the determinant: column c, row r of the inverse is the
                // cofactor of row c, column r.
                let cols = columns(args.first())?;
                let n = cols.len();
                let s = Ty::float(1);
                let det = self.determinant(&cols, span)?;
                let rdet = self.emit(Op::Rcp, vec![det], s, span);
                let mut out_cols = Vec::new();
                for c in 0..n {
                    let mut lanes = Vec::new();
                    for r in 0..n {
                        let minor = self.minor(&cols, c, r, span)?;
                        let k = self.emit(Op::Mul, vec![minor, rdet], s, span);
                        lanes.push(if (c + r) % 2 == 1 { k.negated() } else { k });
                    }
                    out_cols.push(vector(self.construct(lanes, span), n as u8));
                }
                Some(Val::Composite(out_cols))
            }
            G::Determinant => {
                let cols = columns(args.first())?;
                let d = self.determinant(&cols, span)?;
                Some(vector(d, 1))
            }
            other => {
                self.error(
                    rule::INSTRUCTION,
                    inst,
                    format!("GLSL.std.450 {other:?} is not supported on these targets"),
                );
                None
            }
        }
    }

    /// A float constant with `lanes` equal lanes.
    /// `dot(a, b)` of `lanes` lanes; the scalar forms of `reflect`, `refract` and
    /// `faceforward` take a product (there is no one-lane dot product).
    fn dot(&mut self, lanes: u8, a: Operand, b: Operand, ty: Ty, span: Span) -> Operand {
        let op = if lanes == 1 { Op::Mul } else { Op::Dot(lanes) };
        self.emit(op, vec![a, b], ty, span)
    }

    fn splat_const(&mut self, value: f32, lanes: u8, span: Span) -> Operand {
        self.fconst(&vec![value; lanes as usize], span)
    }

    /// The two results of `modf` or `frexp`: the struct form's members, or the first
    /// returned and the second stored through the pointer operand `out`.
    fn two_results(
        &mut self,
        struct_form: bool,
        [first, second]: [Val; 2],
        out: Option<&Val>,
        inst: &Inst,
    ) -> Option<Val> {
        if struct_form {
            return Some(Val::Composite(vec![first, second]));
        }
        let Some(Val::Pointer(place)) = out else {
            return None;
        };
        let place = place.clone();
        self.store(&place, &second, inst);
        Some(first)
    }

    /// `frexp(x)`, lane-wise: the significand (0.5 ≤ |s| < 1, or 0) and the exponent
    /// (`x = s 2^e`). The exponent from `floor(log₂|x|) + 1`, then corrected by one either
    /// way, as `lg2` is an approximation near the powers of two; zero gives (0, 0).
    fn frexp(&mut self, x: Operand, lanes: u8, span: Span) -> (Operand, Operand) {
        let ty = Ty::float(lanes);
        let bty = Ty::bool(lanes);
        let ax = Operand {
            abs: true,
            neg: false,
            ..x
        };
        let one = self.splat_const(1.0, lanes, span);
        let half = self.splat_const(0.5, lanes, span);
        let two = self.splat_const(2.0, lanes, span);
        let zero = self.splat_const(0.0, lanes, span);
        let l = self.emit(Op::Log2, vec![ax], ty, span);
        let fl = self.emit(Op::Floor, vec![l], ty, span);
        let e0 = self.emit(Op::Add, vec![fl, one], ty, span);
        let p = self.emit(Op::Exp2, vec![e0.negated()], ty, span);
        let s0 = self.emit(Op::Mul, vec![x, p], ty, span);
        // |s| ≥ 1: halve it; |s| < 0.5: double it.
        let abs0 = Operand {
            abs: true,
            neg: false,
            ..s0
        };
        let big = self.emit(Op::Cmp(CmpOp::Ge), vec![abs0, one], bty, span);
        let halved = self.emit(Op::Mul, vec![s0, half], ty, span);
        let s1 = self.emit(Op::Select, vec![big, halved, s0], ty, span);
        let up = self.emit(Op::Add, vec![e0, one], ty, span);
        let e1 = self.emit(Op::Select, vec![big, up, e0], ty, span);
        let abs1 = Operand {
            abs: true,
            neg: false,
            ..s1
        };
        let small = self.emit(Op::Cmp(CmpOp::Lt), vec![abs1, half], bty, span);
        let doubled = self.emit(Op::Mul, vec![s1, two], ty, span);
        let s2 = self.emit(Op::Select, vec![small, doubled, s1], ty, span);
        let down = self.emit(Op::Sub, vec![e1, one], ty, span);
        let e2 = self.emit(Op::Select, vec![small, down, e1], ty, span);
        let is_zero = self.emit(Op::Cmp(CmpOp::Eq), vec![x, zero], bty, span);
        let s = self.emit(Op::Select, vec![is_zero, zero, s2], ty, span);
        let e = self.emit(Op::Select, vec![is_zero, zero, e2], ty, span);
        (s, e)
    }

    /// `eˣ`, lane-wise: `2^(x log₂e)`.
    fn exp(&mut self, x: Operand, lanes: u8, span: Span) -> Operand {
        let ty = Ty::float(lanes);
        let k = self.splat_const(std::f32::consts::LOG2_E, lanes, span);
        let t = self.emit(Op::Mul, vec![x, k], ty, span);
        self.emit(Op::Exp2, vec![t], ty, span)
    }

    /// `ln x`, lane-wise: `log₂x ln 2`.
    fn ln(&mut self, x: Operand, lanes: u8, span: Span) -> Operand {
        let ty = Ty::float(lanes);
        let t = self.emit(Op::Log2, vec![x], ty, span);
        let k = self.splat_const(std::f32::consts::LN_2, lanes, span);
        self.emit(Op::Mul, vec![t, k], ty, span)
    }

    /// `atan2(y, x)`, lane-wise, from the polynomial for |t| ≤ 1.
    fn atan2(&mut self, y: Operand, x: Operand, lanes: u8, span: Span) -> Operand {
        let ty = Ty::float(lanes);
        let bty = Ty::bool(lanes);
        // t = min(|x|, |y|) / max(|x|, |y|), in [0, 1].
        let (ax, ay) = (
            Operand {
                abs: true,
                neg: false,
                ..x
            },
            Operand {
                abs: true,
                neg: false,
                ..y
            },
        );
        let hi = self.emit(Op::Max, vec![ax, ay], ty, span);
        let lo = self.emit(Op::Min, vec![ax, ay], ty, span);
        let t = self.emit(Op::Div, vec![lo, hi], ty, span);
        let t2 = self.emit(Op::Mul, vec![t, t], ty, span);
        let coeffs = [
            -0.011_721_2,
            0.052_653_32,
            -0.116_432_87,
            0.193_543_46,
            -0.332_623_47,
            0.999_977_26,
        ];
        let mut p = self.splat_const(coeffs[0], lanes, span);
        for &c in &coeffs[1..] {
            let k = self.splat_const(c, lanes, span);
            p = self.emit(Op::Mad, vec![p, t2, k], ty, span);
        }
        let mut r = self.emit(Op::Mul, vec![p, t], ty, span);
        // |y| > |x|: π/2 - r.
        let half_pi = self.splat_const(std::f32::consts::FRAC_PI_2, lanes, span);
        let swap = self.emit(Op::Cmp(CmpOp::Gt), vec![ay, ax], bty, span);
        let r2 = self.emit(Op::Sub, vec![half_pi, r], ty, span);
        r = self.emit(Op::Select, vec![swap, r2, r], ty, span);
        // x < 0: π - r.
        let zero = self.splat_const(0.0, lanes, span);
        let pi = self.splat_const(std::f32::consts::PI, lanes, span);
        let left = self.emit(Op::Cmp(CmpOp::Lt), vec![x, zero], bty, span);
        let r3 = self.emit(Op::Sub, vec![pi, r], ty, span);
        r = self.emit(Op::Select, vec![left, r3, r], ty, span);
        // y < 0: -r.
        let below = self.emit(Op::Cmp(CmpOp::Lt), vec![y, zero], bty, span);
        self.emit(Op::Select, vec![below, r.negated(), r], ty, span)
    }

    /// The determinant of a square matrix given by its columns (cofactor expansion).
    /// The determinant of the matrix `cols` without row `row` and column `col`.
    fn minor(&mut self, cols: &[Operand], row: usize, col: usize, span: Span) -> Option<Operand> {
        let n = cols.len();
        let rows: Vec<u8> = (0..n).filter(|&x| x != row).map(|x| x as u8).collect();
        let at = |c: usize, r: u8| cols[c].reswizzled(Swizzle::splat(r));
        if n == 2 {
            return Some(at(1 - col, rows[0]));
        }
        let sub: Vec<Operand> = (0..n)
            .filter(|&c| c != col)
            .map(|c| {
                let lanes: Vec<Operand> = rows.iter().map(|&r| at(c, r)).collect();
                self.construct(lanes, span)
            })
            .collect();
        self.determinant(&sub, span)
    }

    fn determinant(&mut self, cols: &[Operand], span: Span) -> Option<Operand> {
        let s = Ty::float(1);
        let at = |c: usize, r: usize| cols[c].reswizzled(Swizzle::splat(r as u8));
        match cols.len() {
            2 => {
                let a = self.emit(Op::Mul, vec![at(0, 0), at(1, 1)], s, span);
                Some(self.emit(Op::Mad, vec![at(1, 0).negated(), at(0, 1), a], s, span))
            }
            3 => {
                // dot(c0, cross(c1, c2))
                let x = self.emit(Op::Cross, vec![cols[1], cols[2]], Ty::float(3), span);
                Some(self.emit(Op::Dot(3), vec![cols[0], x], s, span))
            }
            4 => {
                // Expansion along the first column with 3x3 minors.
                let mut acc: Option<Operand> = None;
                for r in 0..4 {
                    let m = self.minor(cols, r, 0, span)?;
                    let term = self.emit(Op::Mul, vec![at(0, r), m], s, span);
                    let term = if r % 2 == 1 { term.negated() } else { term };
                    acc = Some(match acc {
                        None => term,
                        Some(a) => self.emit(Op::Add, vec![a, term], s, span),
                    });
                }
                acc
            }
            _ => None,
        }
    }
}

/// The columns of a square matrix operand (2×2 to 4×4; validation guarantees the shape).
fn columns(m: Option<&Val>) -> Option<Vec<Operand>> {
    let Some(Val::Composite(cols)) = m else {
        return None;
    };
    let cols: Vec<Operand> = cols
        .iter()
        .filter_map(Val::vector)
        .map(|(o, _)| o)
        .collect();
    (2..=4).contains(&cols.len()).then_some(cols)
}
