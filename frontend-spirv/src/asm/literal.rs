//! Numeric literals, encoded exactly as spirv-as (SPIRV-Tools) encodes them.
//!
//! What spirv-as does, checked by running it (see tests/fixtures/spvasm):
//! - Integers: an optional sign, then C `strtoull` base-0 spelling: `0x`/`0X` hex, a leading
//!   `0` octal, else decimal. Unsigned types reject negative values. For signed types a
//!   non-negative hex literal is a bit pattern of the type's width and is sign-extended
//!   (`0xffff` in a 16-bit signed type is -1); any other literal must be in the type's range.
//!   Types narrower than 32 bits take one word, sign- or zero-extended; 64-bit types take two
//!   words, low word first.
//! - Floats: decimal spellings are rounded to nearest (as `strtof`/`strtod` do) and rejected
//!   when they overflow; `inf` and `nan` are not accepted. 16-bit floats are parsed as 32-bit
//!   and then narrowed by truncation. Hex floats (`0x1.8p3`, the `p` is mandatory and lower
//!   case) are truncated toward zero; an exponent one above the largest normal one keeps the
//!   fraction bits (so `0x1.8p+128` is the quiet NaN 0x7fc00000), anything larger is infinity.

/// An integer literal as written: sign, magnitude and whether it was hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLiteral {
    /// A leading `-`.
    pub negative: bool,
    /// The value without its sign.
    pub magnitude: u64,
    /// Written in hex (`0x...`).
    pub hex: bool,
}

/// Parses an integer literal, or returns `None` when the text is not one.
pub fn parse_int(text: &str) -> Option<IntLiteral> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (digits, radix, hex) =
        if let Some(h) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            (h, 16, true)
        } else if rest.len() > 1 && rest.starts_with('0') {
            (&rest[1..], 8, false)
        } else {
            (rest, 10, false)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    Some(IntLiteral {
        negative,
        magnitude,
        hex,
    })
}

/// Encodes `text` as an integer of `width` bits (8, 16, 32 or 64), `signed` or not.
pub fn encode_int(text: &str, width: u32, signed: bool) -> Result<Vec<u32>, String> {
    let kind = if signed { "signed" } else { "unsigned" };
    let lit = parse_int(text).ok_or_else(|| format!("invalid {kind} integer literal: {text}"))?;
    let value: i128 = if lit.negative {
        -(lit.magnitude as i128)
    } else {
        lit.magnitude as i128
    };
    let fits = || format!("integer {text} does not fit in a {width}-bit {kind} integer");
    let encoded: u64 = if !signed {
        if lit.negative && lit.magnitude != 0 {
            return Err("a negative number cannot go in an unsigned literal".into());
        }
        if width < 64 && lit.magnitude >> width != 0 {
            return Err(fits());
        }
        lit.magnitude
    } else if lit.hex && !lit.negative {
        if width < 64 && lit.magnitude >> width != 0 {
            return Err(fits());
        }
        // A bit pattern: sign-extend from `width` bits.
        let shift = 64 - width;
        (((lit.magnitude << shift) as i64) >> shift) as u64
    } else {
        let min = -(1i128 << (width - 1));
        let max = (1i128 << (width - 1)) - 1;
        if value < min || value > max {
            return Err(fits());
        }
        value as i64 as u64
    };
    Ok(if width == 64 {
        vec![encoded as u32, (encoded >> 32) as u32]
    } else {
        vec![encoded as u32]
    })
}

/// The layout of an IEEE binary float format.
#[derive(Clone, Copy)]
struct Format {
    /// Mantissa (fraction) bits.
    mantissa: u32,
    /// Exponent bias; the largest normal exponent equals it.
    bias: i64,
    /// Total width.
    width: u32,
}

const F16: Format = Format {
    mantissa: 10,
    bias: 15,
    width: 16,
};
const F32: Format = Format {
    mantissa: 23,
    bias: 127,
    width: 32,
};
const F64: Format = Format {
    mantissa: 52,
    bias: 1023,
    width: 64,
};

/// Encodes `text` as a float of `width` bits (16, 32 or 64).
pub fn encode_float(text: &str, width: u32) -> Result<Vec<u32>, String> {
    let invalid = || format!("invalid {width}-bit float literal: {text}");
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let format = match width {
        16 => F16,
        32 => F32,
        64 => F64,
        _ => return Err(format!("{width}-bit floats are not supported")),
    };
    let bits = if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        let (significand, exponent) = parse_hex_float(hex).ok_or_else(invalid)?;
        encode_hex_float(significand, exponent, format)
    } else {
        if !is_decimal_float(rest) {
            return Err(invalid());
        }
        match width {
            64 => {
                let v: f64 = rest.parse().map_err(|_| invalid())?;
                if v.is_infinite() {
                    return Err(invalid());
                }
                v.to_bits()
            }
            _ => {
                let v: f32 = rest.parse().map_err(|_| invalid())?;
                if v.is_infinite() {
                    return Err(invalid());
                }
                if width == 16 {
                    narrow_to_f16(v.to_bits()).ok_or_else(invalid)?
                } else {
                    v.to_bits() as u64
                }
            }
        }
    };
    let sign = if negative { 1u64 << (width - 1) } else { 0 };
    let bits = bits | sign;
    Ok(if width == 64 {
        vec![bits as u32, (bits >> 32) as u32]
    } else {
        vec![bits as u32]
    })
}

/// `[digits][.digits][e[+-]digits]` with at least one digit before the exponent.
fn is_decimal_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let digits = mantissa.chars().filter(|c| c.is_ascii_digit()).count();
    let dots = mantissa.chars().filter(|&c| c == '.').count();
    let mantissa_ok = digits > 0 && dots <= 1 && digits + dots == mantissa.len();
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}

/// Parses the part of a hex float after `0x`: returns the significand's leading bits (as an
/// integer) and the power of two it is scaled by.
fn parse_hex_float(text: &str) -> Option<(u128, i64)> {
    let p = text.find('p')?;
    let (mantissa, exponent) = (&text[..p], &text[p + 1..]);
    let exponent_digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    if exponent_digits.is_empty() || !exponent_digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // Exponents beyond any format's range only need to stay beyond it.
    let magnitude: i64 = exponent_digits
        .parse::<u64>()
        .map_or(i64::MAX / 4, |e| e.min(1 << 40) as i64);
    let mut exponent = if exponent.starts_with('-') {
        -magnitude
    } else {
        magnitude
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut significand: u128 = 0;
    let mut seen_digits = false;
    for (i, c) in int_part.chars().chain(frac_part.chars()).enumerate() {
        let d = c.to_digit(16)? as u128;
        let is_fraction = i >= int_part.len();
        // Keep 96 significant bits; truncation toward zero makes the rest irrelevant.
        if significand >> 96 == 0 {
            significand = significand * 16 + d;
            if is_fraction {
                exponent -= 4;
            }
        } else if !is_fraction {
            exponent += 4;
        }
        seen_digits = true;
    }
    seen_digits.then_some((significand, exponent))
}

/// Encodes `significand × 2^exponent` (without sign) in `f`, truncating toward zero.
fn encode_hex_float(significand: u128, exponent: i64, f: Format) -> u64 {
    if significand == 0 {
        return 0;
    }
    let top = 127 - significand.leading_zeros() as i64; // index of the leading 1
    let e = top + exponent; // the value is 1.xxx × 2^e
    let fraction_of = |shift: i64| -> u64 {
        // The `f.mantissa` bits below the leading 1, truncated.
        let below = top - shift;
        let bits = if below >= 0 {
            significand >> below
        } else {
            significand << (-below)
        };
        (bits as u64) & ((1u64 << f.mantissa) - 1)
    };
    let exp_all_ones = (1u64 << (f.width - 1 - f.mantissa)) - 1;
    if e > f.bias + 1 {
        exp_all_ones << f.mantissa
    } else if e == f.bias + 1 {
        (exp_all_ones << f.mantissa) | fraction_of(f.mantissa as i64)
    } else if e >= 1 - f.bias {
        (((e + f.bias) as u64) << f.mantissa) | fraction_of(f.mantissa as i64)
    } else {
        // Subnormal: units of 2^(1 - bias - mantissa).
        let unit = 1 - f.bias - f.mantissa as i64;
        let shift = unit - exponent;
        if shift >= 128 {
            0
        } else if shift >= 0 {
            (significand >> shift) as u64
        } else {
            (significand << (-shift)) as u64
        }
    }
}

/// Narrows a finite, positive-or-negative f32 bit pattern to f16 by truncation, as spirv-as
/// does for 16-bit decimal literals; `None` when it overflows.
fn narrow_to_f16(bits: u32) -> Option<u64> {
    let magnitude = bits & 0x7fff_ffff;
    let exponent = (magnitude >> 23) as i64 - 127;
    let mantissa = (magnitude & 0x7f_ffff) as u128 | if magnitude >> 23 != 0 { 1 << 23 } else { 0 };
    if magnitude == 0 {
        return Some(0);
    }
    if exponent > 15 {
        return None;
    }
    let value_exponent = if magnitude >> 23 == 0 {
        -149
    } else {
        exponent - 23
    };
    Some(encode_hex_float(mantissa, value_exponent, F16) & 0x7fff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str, width: u32, signed: bool) -> Result<Vec<u32>, String> {
        encode_int(text, width, signed)
    }

    fn float(text: &str, width: u32) -> u64 {
        let words = encode_float(text, width).unwrap();
        words
            .iter()
            .rev()
            .fold(0u64, |acc, &w| (acc << 32) | w as u64)
    }

    // Expected values below were produced by spirv-as (SPIRV-Tools v2023.1).
    #[test]
    fn integers_match_spirv_as() {
        assert_eq!(int("-2147483648", 32, true), Ok(vec![0x8000_0000]));
        assert!(int("2147483648", 32, true).is_err());
        assert_eq!(int("0xffffffff", 32, true), Ok(vec![0xffff_ffff]));
        assert_eq!(int("-0x1", 32, true), Ok(vec![0xffff_ffff]));
        assert_eq!(int("+5", 32, true), Ok(vec![5]));
        assert_eq!(int("0777", 32, false), Ok(vec![0o777]));
        assert!(int("1e3", 32, true).is_err());
        assert!(int("-1", 32, false).is_err());
        assert_eq!(int("0xffff", 16, true), Ok(vec![0xffff_ffff]));
        assert_eq!(int("0x8000", 16, true), Ok(vec![0xffff_8000]));
        assert!(int("32768", 16, true).is_err());
        assert!(int("0x10000", 16, true).is_err());
        assert_eq!(int("0xffff", 16, false), Ok(vec![0xffff]));
        assert!(int("65536", 16, false).is_err());
        assert_eq!(int("0x80", 8, true), Ok(vec![0xffff_ff80]));
        assert_eq!(int("-1", 64, true), Ok(vec![0xffff_ffff, 0xffff_ffff]));
        assert_eq!(
            int("0x8000000000000000", 64, true),
            Ok(vec![0, 0x8000_0000])
        );
        assert!(int("9223372036854775808", 64, true).is_err());
        assert_eq!(
            int("18446744073709551615", 64, false),
            Ok(vec![0xffff_ffff, 0xffff_ffff])
        );
        assert!(int("18446744073709551616", 64, false).is_err());
    }

    #[test]
    fn floats_match_spirv_as() {
        let cases32 = [
            ("0x1.000001p0", 0x3f80_0000),
            ("0x1.000003p0", 0x3f80_0001),
            ("0x1.0000018p0", 0x3f80_0000),
            ("0x1p+129", 0x7f80_0000),
            ("0x1.8p+129", 0x7f80_0000),
            ("0x1p+128", 0x7f80_0000),
            ("0x1.8p+128", 0x7fc0_0000),
            ("-0x1.0002p+128", 0xff80_0100),
            ("0x1p-149", 0x0000_0001),
            ("0x1p-150", 0),
            ("0x1.8p-149", 1),
            ("0x3p-150", 1),
            ("0x0.8p-126", 0x0040_0000),
            ("0x1.fffffep-128", 0x003f_ffff),
            ("0x1.ffffffp127", 0x7f7f_ffff),
            ("0x10p0", 0x4180_0000),
            ("0X1p3", 0x4100_0000),
            ("0x.8p1", 0x3f80_0000),
            ("0x1.p1", 0x4000_0000),
            ("-0x0p0", 0x8000_0000),
            ("0x1p-10000", 0),
            ("0x1p+10000", 0x7f80_0000),
            ("1e-46", 0),
            ("-0.0", 0x8000_0000),
            ("0.1", 0x3dcc_cccd),
            ("3.4028235e38", 0x7f7f_ffff),
            ("1.", 0x3f80_0000),
            (".5", 0x3f00_0000),
            ("-5", 0xc0a0_0000),
        ];
        for (text, bits) in cases32 {
            assert_eq!(float(text, 32), bits, "{text}");
        }
        for bad in [
            "1e39",
            "inf",
            "nan",
            "3.4028236e38",
            "1.5e",
            "0x1",
            "0x1p",
            "0x1P+3",
            "0x1.8p1f",
        ] {
            assert!(encode_float(bad, 32).is_err(), "{bad}");
        }
        let cases16 = [
            ("0.1", 0x2e66),
            ("65504", 0x7bff),
            ("65520", 0x7bff),
            ("65519.99", 0x7bff),
            ("0x1.8p+16", 0x7e00),
            ("0x1.004p+16", 0x7c01),
            ("0x1p+16", 0x7c00),
            ("0x1p-24", 1),
            ("0x1p-25", 0),
            ("0x1.ffep15", 0x7bff),
            ("0x1.006p0", 0x3c01),
            ("0.0001", 0x068d),
            ("6e-8", 1),
            ("3e-8", 0),
            ("-2.5", 0xc100),
        ];
        for (text, bits) in cases16 {
            assert_eq!(float(text, 16), bits, "{text}");
        }
        assert!(encode_float("65536", 16).is_err());
        assert!(encode_float("1e5", 16).is_err());
        let cases64 = [
            ("0.1", 0x3fb9_9999_9999_999a),
            ("0x1p+1024", 0x7ff0_0000_0000_0000),
            ("0x1.8p+1024", 0x7ff8_0000_0000_0000),
            ("0x1.00000000000008p0", 0x3ff0_0000_0000_0000),
            ("4.9e-324", 1),
            ("2e-324", 0),
        ];
        for (text, bits) in cases64 {
            assert_eq!(float(text, 64), bits, "{text}");
        }
        assert!(encode_float("1e309", 64).is_err());
    }
}
