//! The PICA200's 24-bit float: 1 sign bit, 7 exponent bits (bias 63), 16 mantissa bits.
//!
//! Three conversions live here, because three parties disagree on how to get there:
//! - [`F24::from_f32_picasso`] is picasso's own conversion of `.constf` values (mantissa
//!   truncated, exponent underflow to a signed zero, overflow to infinity, NaN to infinity). The
//!   `.shbin` constant table must hold exactly these bits, so it is reproduced bit for bit,
//!   including its quirks: `-0.0` keeps the sign bit and values in `[2^-63, 2^-62)` land on
//!   exponent field 0 with a non-zero mantissa.
//! - [`F24::to_f32`] reads a pattern the way the hardware is believed to: exponent field 0x7F is
//!   infinity (mantissa 0) or NaN, exponent field 0 is zero or a subnormal. Every f24 value is
//!   exactly representable as an `f32`.
//! - [`round_f32`] rounds an arithmetic result to what a register can hold, for the simulator:
//!   16 mantissa bits, no negative zero, subnormals flushed to +0, overflow to infinity. The
//!   rounding mode of the real ALU is not documented; round-to-nearest-even is our assumption.

/// Smallest positive normal f24 value, 2^-62.
pub const MIN_NORMAL: f32 = 2.168_404_3e-19;

/// Bits of an f24 value in the low 24 bits of a `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct F24(u32);

impl F24 {
    /// +0.
    pub const ZERO: F24 = F24(0);
    /// 1.0.
    pub const ONE: F24 = F24(0x3F_0000);

    /// The pattern `bits`, if it fits in 24 bits.
    pub fn from_bits(bits: u32) -> Option<F24> {
        (bits <= 0xFF_FFFF).then_some(F24(bits))
    }

    /// The raw 24-bit pattern.
    pub fn bits(self) -> u32 {
        self.0
    }

    /// picasso's `f32tof24`: truncate the mantissa to 16 bits, re-bias the exponent, flush an
    /// exponent below the range to a zero that keeps the sign, saturate one above it to infinity.
    pub fn from_f32_picasso(value: f32) -> F24 {
        let bits = value.to_bits();
        let sign = bits >> 31;
        let exponent = ((bits >> 23) & 0xFF) as i32 - 127 + 63;
        let mantissa = (bits & 0x7F_FFFF) >> 7;
        if exponent < 0 {
            F24(sign << 23)
        } else if exponent > 0x7F {
            F24((sign << 23) | (0x7F << 16))
        } else {
            F24((sign << 23) | ((exponent as u32) << 16) | mantissa)
        }
    }

    /// An `f32` that [`F24::from_f32_picasso`] maps back to these exact bits (used to print
    /// `.setf` values in listings). Zeros give `±0.0`; every other pattern, including exponent
    /// fields 0 and 0x7F, has a finite preimage in `[2^-63, 2^65)`.
    pub fn picasso_preimage(self) -> f32 {
        let sign = (self.0 >> 23) & 1;
        let exponent = (self.0 >> 16) & 0x7F;
        let mantissa = self.0 & 0xFFFF;
        if exponent == 0 && mantissa == 0 {
            return if sign == 1 { -0.0 } else { 0.0 };
        }
        if exponent == 0x7F && mantissa == 0 {
            return if sign == 1 {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            };
        }
        f32::from_bits((sign << 31) | ((exponent + 64) << 23) | (mantissa << 7))
    }

    /// The value this pattern stands for (exact).
    pub fn to_f32(self) -> f32 {
        let negative = (self.0 >> 23) & 1 == 1;
        let exponent = (self.0 >> 16) & 0x7F;
        let mantissa = self.0 & 0xFFFF;
        let magnitude = match exponent {
            0x7F if mantissa == 0 => f32::INFINITY,
            0x7F => f32::NAN,
            // Subnormal: mantissa * 2^(1 - 63 - 16).
            0 => mantissa as f32 * f32::from_bits((127 - 78) << 23),
            _ => f32::from_bits(((exponent + 64) << 23) | (mantissa << 7)),
        };
        if negative { -magnitude } else { magnitude }
    }

    /// The nearest register value to `value`, as [`round_f32`] computes it, as bits.
    pub fn from_f32_rounded(value: f32) -> F24 {
        let rounded = round_f32(value);
        if rounded.is_nan() {
            return F24(0x7F_FFFF);
        }
        let bits = rounded.to_bits();
        let sign = bits >> 31;
        if rounded == 0.0 {
            return F24::ZERO;
        }
        if rounded.is_infinite() {
            return F24((sign << 23) | (0x7F << 16));
        }
        let exponent = ((bits >> 23) & 0xFF) - 64;
        F24((sign << 23) | (exponent << 16) | ((bits & 0x7F_FFFF) >> 7))
    }
}

/// Rounds an `f32` to f24 precision the way the simulator models the ALU: NaN stays NaN,
/// infinities stay, the mantissa is rounded to 16 bits (nearest, ties to even), a result below
/// 2^-62 in magnitude becomes +0 (no subnormals, no negative zero) and one above the largest
/// finite f24 becomes infinity.
pub fn round_f32(value: f32) -> f32 {
    if value.is_nan() {
        return f32::NAN;
    }
    if value.is_infinite() {
        return value;
    }
    let bits = value.to_bits();
    let sign = bits & 0x8000_0000;
    let magnitude = bits & 0x7FFF_FFFF;
    // Round the 23-bit mantissa to 16 bits; a carry ripples into the exponent, as it should.
    let dropped = magnitude & 0x7F;
    let mut kept = magnitude >> 7;
    if dropped > 0x40 || (dropped == 0x40 && kept & 1 == 1) {
        kept += 1;
    }
    let rounded = kept << 7;
    let exponent = (rounded >> 23) as i32 - 127;
    if exponent < -62 {
        return 0.0;
    }
    if exponent > 63 {
        return f32::from_bits(sign | 0x7F80_0000);
    }
    f32::from_bits(sign | rounded)
}

/// Flushes an arithmetic input the way the ALU does: f24 subnormals and negative zero read as +0.
pub fn flush_input(value: f32) -> f32 {
    if value.abs() < MIN_NORMAL { 0.0 } else { value }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::approx_constant)] // 3.14159 is the golden file's literal.
    fn picasso_golden_cases() {
        // The values `uniforms_all_kinds.shbin` pins down (picasso 2.7.1).
        let cases: [(f32, u32); 12] = [
            (0.1, 0x3B_9999),
            (1e-20, 0x00_0000),
            (1e30, 0x7F_0000),
            (-0.0, 0x80_0000),
            (1.5e-19, 0x00_622D),
            (3.14159, 0x40_921F),
            (-1.0, 0xBF_0000),
            (65504.0, 0x4E_FFC0),
            (1.0, 0x3F_0000),
            (0.0, 0x00_0000),
            (-32.0, 0xC4_0000),
            (4.5, 0x41_2000),
        ];
        for (value, bits) in cases {
            assert_eq!(F24::from_f32_picasso(value).bits(), bits, "{value}");
        }
        assert_eq!(F24::from_f32_picasso(f32::NAN).bits(), 0x7F_0000);
        assert_eq!(F24::from_f32_picasso(f32::NEG_INFINITY).bits(), 0xFF_0000);
    }

    #[test]
    fn preimage_round_trips_every_exponent() {
        for exponent in 0..=0x7F_u32 {
            for (sign, mantissa) in [(0, 0), (1, 0), (0, 1), (1, 0x622D), (0, 0xFFFF)] {
                let f = F24::from_bits((sign << 23) | (exponent << 16) | mantissa).unwrap();
                assert_eq!(F24::from_f32_picasso(f.picasso_preimage()), f, "{f:?}");
            }
        }
    }

    #[test]
    fn to_f32_values() {
        assert_eq!(F24::ONE.to_f32(), 1.0);
        assert_eq!(F24::from_bits(0x3B_9999).unwrap().to_f32(), 0.099_999_43);
        assert_eq!(F24::from_bits(0x7F_0000).unwrap().to_f32(), f32::INFINITY);
        assert!(F24::from_bits(0x7F_0001).unwrap().to_f32().is_nan());
        assert_eq!(
            F24::from_bits(0x80_0000).unwrap().to_f32().to_bits(),
            (-0.0f32).to_bits()
        );
        // The golden listing's reading of 0x00622D.
        assert_eq!(
            F24::from_bits(0x00_622D).unwrap().to_f32() as f64,
            8.315_812_134_118_098e-20
        );
        assert_eq!(F24::from_bits(0x01_0000).unwrap().to_f32(), MIN_NORMAL);
        assert!(F24::from_bits(0x100_0000).is_none());
    }

    #[test]
    fn rounding() {
        assert_eq!(round_f32(1.0), 1.0);
        assert_eq!(round_f32(-0.0).to_bits(), 0);
        assert_eq!(round_f32(MIN_NORMAL), MIN_NORMAL);
        assert_eq!(round_f32(MIN_NORMAL * 0.5), 0.0);
        assert_eq!(round_f32(-MIN_NORMAL * 0.75).to_bits(), 0);
        // 1 + 2^-17 is a tie: to even (1.0); 1 + 3*2^-17 rounds up to 1 + 2^-15.
        assert_eq!(round_f32(1.0 + f32::powi(2.0, -17)), 1.0);
        assert_eq!(
            round_f32(1.0 + 3.0 * f32::powi(2.0, -17)),
            1.0 + f32::powi(2.0, -15)
        );
        assert_eq!(round_f32(0.1), F24::from_bits(0x3B_999A).unwrap().to_f32());
        assert_eq!(round_f32(f32::powi(2.0, 64)), f32::INFINITY);
        assert_eq!(round_f32(-f32::powi(2.0, 63) * 1.999_999), -f32::INFINITY);
        assert!(round_f32(f32::NAN).is_nan());
        assert_eq!(F24::from_f32_rounded(0.1).bits(), 0x3B_999A);
        assert_eq!(F24::from_f32_rounded(-0.0).bits(), 0);
        assert_eq!(
            flush_input(F24::from_bits(0x00_622D).unwrap().to_f32()),
            0.0
        );
    }
}
