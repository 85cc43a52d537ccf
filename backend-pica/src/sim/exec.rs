//! The register files and one function per kind of arithmetic instruction, with the ALU's float
//! behaviour as the ISA notes describe it:
//! - every register holds an f24 value; arithmetic results are rounded to f24 ([`round_f32`]);
//! - there is no negative zero, and arithmetic inputs that are f24 subnormals read as +0 (CMP,
//!   MAX, MIN and MOV do not flush);
//! - `inf * 0 = 0` in MUL, MAD and the dot products (`NaN * 0` stays NaN);
//! - MAX and MIN are `a > b ? a : b` and `a < b ? a : b`, so a NaN in src2 wins and one in src1
//!   loses;
//! - MAD rounds the product before adding (it is not fused);
//! - relative addressing adds a0.x, a0.y or aL to the constant index unless the offset lies
//!   outside -128..=127, masks the sum with 0x7F, and reads (1, 1, 1, 1) above c95.
//!
//! Choices the notes leave open (our assumptions): results round to nearest, ties to even; the
//! dot products round once, after summing exact products; SGE/SLT, FLR and DST flush their inputs
//! like other arithmetic; MOVA truncates toward zero (saturating, NaN to 0).

use crate::float24::{flush_input, round_f32};
use crate::inst::{BinaryOp, UnaryOp};
use crate::operand::{Dest, DstReg, Mask, RelIndex, Source, SrcReg};

/// The largest magnitude LITP lets through for y, 128 - 2^-8.
const LITP_CLAMP: f32 = 127.996_09;

/// The shader unit's registers.
#[derive(Clone, Debug)]
pub(super) struct Regs {
    pub(super) v: [[f32; 4]; 16],
    pub(super) r: [[f32; 4]; 16],
    pub(super) c: [[f32; 4]; 96],
    pub(super) i: [[u8; 4]; 4],
    pub(super) b: [bool; 16],
    pub(super) o: [[f32; 4]; 16],
    /// Components of each output written so far (bit 0 = x).
    pub(super) written: [u8; 16],
    pub(super) a0: [i32; 2],
    pub(super) al: i32,
    pub(super) cmp: [bool; 2],
}

/// An output component written twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DoubleWrite {
    pub(super) reg: u8,
    pub(super) component: usize,
}

fn no_negative_zero(x: f32) -> f32 {
    if x == 0.0 { 0.0 } else { x }
}

/// `a * b` with the ALU's rule that infinity times zero is zero (inputs flushed, not rounded).
fn mul_exact(a: f32, b: f32) -> f32 {
    let (a, b) = (flush_input(a), flush_input(b));
    if (a == 0.0 || b == 0.0) && !a.is_nan() && !b.is_nan() {
        0.0
    } else {
        a * b
    }
}

fn max(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

fn min(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

impl Regs {
    pub(super) fn new() -> Regs {
        Regs {
            v: [[0.0; 4]; 16],
            r: [[0.0; 4]; 16],
            c: [[0.0; 4]; 96],
            i: [[0; 4]; 4],
            b: [false; 16],
            o: [[0.0; 4]; 16],
            written: [0; 16],
            a0: [0; 2],
            al: 0,
            cmp: [false; 2],
        }
    }

    /// A source operand's four lanes: register (relative addressing applied), swizzle, negation.
    pub(super) fn read(&self, s: &Source) -> [f32; 4] {
        let value = match s.reg {
            SrcReg::Input(n) => self.v.get(usize::from(n)).copied().unwrap_or([0.0; 4]),
            SrcReg::Temp(n) => self.r.get(usize::from(n)).copied().unwrap_or([0.0; 4]),
            SrcReg::Const(n) => {
                let offset = match s.index {
                    RelIndex::None => 0,
                    RelIndex::A0X => self.a0[0],
                    RelIndex::A0Y => self.a0[1],
                    RelIndex::AL => self.al,
                };
                let offset = if (-128..=127).contains(&offset) {
                    offset
                } else {
                    0
                };
                let index = (i32::from(n) + offset) & 0x7F;
                self.c.get(index as usize).copied().unwrap_or([1.0; 4])
            }
        };
        let lanes = s.swizzle.lanes();
        let mut out = [0.0; 4];
        for (o, c) in out.iter_mut().zip(lanes) {
            let x = value[c.index()];
            *o = no_negative_zero(if s.negate { -x } else { x });
        }
        out
    }

    /// Writes the masked components of `value` to `dst`.
    pub(super) fn write(&mut self, dst: &Dest, value: [f32; 4]) -> Result<(), DoubleWrite> {
        for (k, x) in value.iter().enumerate() {
            if dst.mask.bits() & (1 << k) == 0 {
                continue;
            }
            let x = no_negative_zero(*x);
            match dst.reg {
                DstReg::Temp(n) => {
                    if let Some(r) = self.r.get_mut(usize::from(n)) {
                        r[k] = x;
                    }
                }
                DstReg::Output(n) => {
                    let (Some(o), Some(w)) = (
                        self.o.get_mut(usize::from(n)),
                        self.written.get_mut(usize::from(n)),
                    ) else {
                        continue;
                    };
                    if *w & (1 << k) != 0 {
                        return Err(DoubleWrite {
                            reg: n,
                            component: k,
                        });
                    }
                    *w |= 1 << k;
                    o[k] = x;
                }
            }
        }
        Ok(())
    }

    /// A two-source operation.
    pub(super) fn binary(&self, op: BinaryOp, a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
        let each = |f: &dyn Fn(f32, f32) -> f32| {
            [f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])]
        };
        let dot = |n: usize, homogeneous: bool| {
            let mut sum = 0.0;
            for k in 0..n {
                sum += mul_exact(a[k], b[k]);
            }
            if homogeneous {
                sum += mul_exact(1.0, b[3]);
            }
            [round_f32(sum); 4]
        };
        let flag = |t: bool| if t { 1.0 } else { 0.0 };
        match op {
            BinaryOp::Add => each(&|x, y| round_f32(flush_input(x) + flush_input(y))),
            BinaryOp::Mul => each(&|x, y| round_f32(mul_exact(x, y))),
            BinaryOp::Dp3 => dot(3, false),
            BinaryOp::Dp4 => dot(4, false),
            BinaryOp::Dph => dot(3, true),
            BinaryOp::Dst => [
                1.0,
                round_f32(mul_exact(a[1], b[1])),
                flush_input(a[2]),
                flush_input(b[3]),
            ],
            BinaryOp::Sge => each(&|x, y| flag(flush_input(x) >= flush_input(y))),
            BinaryOp::Slt => each(&|x, y| flag(flush_input(x) < flush_input(y))),
            BinaryOp::Max => each(&max),
            BinaryOp::Min => each(&min),
        }
    }

    /// A one-source operation (LITP also sets the CMP flags).
    pub(super) fn unary(&mut self, op: UnaryOp, a: [f32; 4]) -> [f32; 4] {
        let x = flush_input(a[0]);
        match op {
            UnaryOp::Ex2 => [round_f32(x.exp2()); 4],
            UnaryOp::Lg2 => [round_f32(x.log2()); 4],
            UnaryOp::Rcp => [round_f32(1.0 / x); 4],
            UnaryOp::Rsq => [round_f32(1.0 / x.sqrt()); 4],
            UnaryOp::Flr => a.map(|v| round_f32(flush_input(v).floor())),
            UnaryOp::Mov => a,
            UnaryOp::Litp => {
                self.cmp = [a[0] >= 0.0, a[3] >= 0.0];
                [
                    max(a[0], 0.0),
                    max(min(a[1], LITP_CLAMP), -LITP_CLAMP),
                    0.0,
                    max(a[3], 0.0),
                ]
            }
        }
    }

    /// MOVA.
    pub(super) fn mova(&mut self, mask: Mask, a: [f32; 4]) {
        for (k, (reg, x)) in self.a0.iter_mut().zip(a).enumerate() {
            if mask.bits() & (1 << k) != 0 {
                *reg = x.trunc() as i32;
            }
        }
    }

    /// MAD: `a * b` rounded, plus `c`, rounded.
    pub(super) fn mad(&self, a: [f32; 4], b: [f32; 4], c: [f32; 4]) -> [f32; 4] {
        let mut out = [0.0; 4];
        for k in 0..4 {
            out[k] = round_f32(round_f32(mul_exact(a[k], b[k])) + flush_input(c[k]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isa_float_table() {
        let r = Regs::new();
        let inf = f32::INFINITY;
        let nan = f32::NAN;
        let mul = |a: f32, b: f32| r.binary(BinaryOp::Mul, [a; 4], [b; 4])[0];
        assert_eq!(mul(inf, 0.0), 0.0);
        assert!(mul(nan, 0.0).is_nan());
        assert_eq!(
            r.binary(BinaryOp::Dp4, [inf, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0])[0],
            3.0
        );
        assert!(r.binary(BinaryOp::Add, [inf; 4], [-inf; 4])[0].is_nan());
        let max2 = |a: f32, b: f32| r.binary(BinaryOp::Max, [a; 4], [b; 4])[0];
        let min2 = |a: f32, b: f32| r.binary(BinaryOp::Min, [a; 4], [b; 4])[0];
        assert!(max2(0.0, nan).is_nan());
        assert_eq!(max2(nan, 0.0), 0.0);
        assert_eq!(max2(-inf, inf), inf);
        assert!(min2(0.0, nan).is_nan());
        assert_eq!(min2(nan, 0.0), 0.0);
        assert_eq!(min2(-inf, inf), -inf);
        let mut r = Regs::new();
        let un = |r: &mut Regs, op, x: f32| r.unary(op, [x; 4])[0];
        assert_eq!(un(&mut r, UnaryOp::Rcp, -0.0), inf);
        assert_eq!(un(&mut r, UnaryOp::Rcp, 0.0), inf);
        assert_eq!(un(&mut r, UnaryOp::Rcp, inf), 0.0);
        assert!(un(&mut r, UnaryOp::Rcp, nan).is_nan());
        assert_eq!(un(&mut r, UnaryOp::Rsq, -0.0), inf);
        assert!(un(&mut r, UnaryOp::Rsq, -2.0).is_nan());
        assert_eq!(un(&mut r, UnaryOp::Rsq, inf), 0.0);
        assert!(un(&mut r, UnaryOp::Rsq, -inf).is_nan());
        // rsq(rcp(-inf)) = +inf: there is no -0.
        let rcp = un(&mut r, UnaryOp::Rcp, -inf);
        assert_eq!(un(&mut r, UnaryOp::Rsq, rcp), inf);
        // Subnormals: flushed by MUL, kept by MAX; results below 2^-62 flush.
        let s = crate::float24::F24::from_bits(0x00_FFFF).unwrap().to_f32();
        assert_eq!(mul(s, 2.0), 0.0);
        assert_eq!(max2(s, 0.0), s);
        let n = crate::float24::MIN_NORMAL;
        assert_eq!(mul(n, 0.5), 0.0);
        // 1.0 halves 63 times before it compares equal to zero.
        let mut x = 1.0;
        let mut steps = 0;
        while x != 0.0 {
            x = mul(x, 0.5);
            steps += 1;
        }
        assert_eq!(steps, 63);
    }

    #[test]
    fn relative_addressing() {
        let mut r = Regs::new();
        r.c[10] = [10.0; 4];
        r.c[95] = [95.0; 4];
        let src = |n: u8, idx| Source::new(SrcReg::Const(n)).indexed(idx);
        r.a0 = [2, -5];
        assert_eq!(r.read(&src(8, RelIndex::A0X))[0], 10.0);
        assert_eq!(r.read(&src(15, RelIndex::A0Y))[0], 10.0);
        r.a0 = [200, 0];
        assert_eq!(
            r.read(&src(10, RelIndex::A0X))[0],
            10.0,
            "offset out of byte range is ignored"
        );
        r.a0 = [1, 0];
        assert_eq!(
            r.read(&src(95, RelIndex::A0X)),
            [1.0; 4],
            "c96 and up read 1"
        );
        r.a0 = [-20, 0];
        assert_eq!(
            r.read(&src(10, RelIndex::A0X)),
            [1.0; 4],
            "wraps to 0x76, above c95"
        );
        r.al = 85;
        assert_eq!(r.read(&src(10, RelIndex::AL))[0], 95.0);
    }
}
