//! Line and token level of picasso's syntax: comments, labels, the command word, argument lists,
//! identifiers and numbers.
//!
//! picasso is line oriented: `;` starts a comment, every `name:` prefix defines a label, the first
//! word is the command and the rest is split on commas (instructions, `.fvec`, …) or on blanks
//! (`.in`, `.out`, `.alias`, …). Its number parsing is C's (`atof`, `atoi`, `strtoll` with base
//! 0), which silently accepts trailing garbage and reads a leading `0` as octal; here a number
//! must be the whole token and leading zeros are refused, so anything this module accepts means
//! the same to picasso.

/// One source line, split.
#[derive(Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// Labels defined on the line, in order.
    pub labels: Vec<&'a str>,
    /// The command word (`mov`, `.proc`), if any.
    pub command: Option<&'a str>,
    /// Everything after the command word, trimmed.
    pub rest: &'a str,
}

/// Splits a line: strips the comment, peels off `label:` prefixes, separates the command word.
pub fn split_line(raw: &str) -> Line<'_> {
    let mut line = match raw.find(';') {
        Some(i) => &raw[..i],
        None => raw,
    }
    .trim();
    let mut labels = Vec::new();
    while let Some(colon) = line.find(':') {
        labels.push(&line[..colon]);
        line = line[colon + 1..].trim();
    }
    if line.is_empty() {
        return Line {
            labels,
            command: None,
            rest: "",
        };
    }
    let end = line.find([' ', '\t']).unwrap_or(line.len());
    Line {
        labels,
        command: Some(&line[..end]),
        rest: line[end..].trim(),
    }
}

/// Splits comma-separated arguments (an empty string has none).
pub fn comma_args(rest: &str) -> Vec<&str> {
    if rest.is_empty() {
        Vec::new()
    } else {
        rest.split(',').map(str::trim).collect()
    }
}

/// Splits blank-separated arguments.
pub fn blank_args(rest: &str) -> Vec<&str> {
    rest.split([' ', '\t']).filter(|s| !s.is_empty()).collect()
}

pub use crate::syntax::is_identifier;

/// A non-negative integer: decimal without leading zeros, or `0x` hexadecimal.
pub fn parse_uint(s: &str) -> Option<u32> {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        return u32::from_str_radix(hex, 16).ok();
    }
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return None;
    }
    s.parse().ok()
}

/// An integer as `atoi` reads it (optional sign, decimal digits), whole token.
pub fn parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) || digits.len() > 12 {
        return None;
    }
    s.parse().ok()
}

/// A float as `atof` reads it (decimal, `inf`, `nan`), rounded to `f32` through `f64` as C's
/// `float f = atof(s)` does; the whole token must be a number.
pub fn parse_float(s: &str) -> Option<f32> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let word = body.to_ascii_lowercase();
    let numeric = matches!(word.as_str(), "inf" | "infinity" | "nan")
        || (!body.is_empty()
            && body
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
            && body
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == '.'));
    if !numeric {
        return None;
    }
    s.parse::<f64>().ok().map(|v| v as f32)
}

/// Splits `name(a, b, c, d)` (as `.constf`, `.setf` and `.consti` take it) into the name and
/// four value strings.
pub fn paren_args(rest: &str) -> Option<(&str, [&str; 4])> {
    let open = rest.find('(')?;
    let close = rest.find(')')?;
    if close < open || !rest[close + 1..].trim().is_empty() {
        return None;
    }
    let name = rest[..open].trim();
    let inner: Vec<&str> = rest[open + 1..close].split(',').map(str::trim).collect();
    let values: [&str; 4] = inner.try_into().ok()?;
    Some((name, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let l = split_line("skip_y:\tjmpu bb, skip_b   ; comment: with colon");
        assert_eq!(l.labels, vec!["skip_y"]);
        assert_eq!(l.command, Some("jmpu"));
        assert_eq!(l.rest, "bb, skip_b");
        assert_eq!(split_line("  ; only a comment").command, None);
        assert_eq!(
            comma_args("r0, -c1.wzyx , v0"),
            vec!["r0", "-c1.wzyx", "v0"]
        );
        assert_eq!(
            blank_args("- texcoord0w\totc0.p"),
            vec!["-", "texcoord0w", "otc0.p"]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_uint("95"), Some(95));
        assert_eq!(parse_uint("0x1F"), Some(31));
        assert_eq!(parse_uint("010"), None);
        assert_eq!(parse_int("-1"), Some(-1));
        assert_eq!(parse_float("1e-20"), Some(1e-20));
        assert_eq!(parse_float("-0.0").map(f32::to_bits), Some(0x8000_0000));
        assert_eq!(parse_float("inf"), Some(f32::INFINITY));
        assert_eq!(parse_float("1.0abc"), None);
        assert_eq!(
            paren_args("kpi(3.14159, 0.1, -1.0, 65504.0)"),
            Some(("kpi", ["3.14159", "0.1", "-1.0", "65504.0"]))
        );
        assert!(paren_args("k(1, 2, 3)").is_none());
        assert!(is_identifier("u$dotted") && is_identifier("_hidden") && !is_identifier("1a"));
    }
}
