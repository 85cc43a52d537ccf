//! picasso's lexical rules that listings must follow as much as the assembler reads them.

/// picasso's identifiers: letters, `_`, `$`, and digits after the first character.
pub fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars().enumerate().all(|(i, c)| {
            c.is_ascii_alphabetic() || c == '_' || c == '$' || (i > 0 && c.is_ascii_digit())
        })
}
