//! Splitting assembly text into tokens.
//!
//! Tokens are separated by white space; `;` starts a comment that runs to the end of the line;
//! a `"` starts a string that runs to the next unescaped `"` (it may contain white space and
//! line breaks; `\` escapes the next character, whatever it is).

use std::ops::Range;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// `%name`: an id (the text after `%`).
    Id(String),
    /// `=` on its own.
    Equals,
    /// A quoted string, escapes resolved.
    Str(String),
    /// `!<integer>`: the raw word (the text after `!`).
    Raw(String),
    /// Anything else: an opcode, an enumerant or mask, a number.
    Word(String),
}

/// A token and where it is in the text.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// Its byte range in the text.
    pub range: Range<usize>,
}

/// A lexing error: message and byte range.
#[derive(Clone, Debug, PartialEq)]
pub struct LexError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub range: Range<usize>,
}

/// Splits `text` into tokens.
pub fn tokenize(text: &str) -> Result<Vec<Token>, LexError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        if c.is_ascii_whitespace() {
            at += 1;
            continue;
        }
        if c == b';' {
            while at < bytes.len() && bytes[at] != b'\n' {
                at += 1;
            }
            continue;
        }
        let start = at;
        if c == b'"' {
            at += 1;
            let mut value = Vec::new();
            loop {
                match bytes.get(at) {
                    None => {
                        return Err(LexError {
                            message: "the string has no closing quote".into(),
                            range: start..bytes.len(),
                        });
                    }
                    Some(b'"') => {
                        at += 1;
                        break;
                    }
                    Some(b'\\') if at + 1 < bytes.len() => {
                        value.push(bytes[at + 1]);
                        at += 2;
                    }
                    Some(&b) => {
                        value.push(b);
                        at += 1;
                    }
                }
            }
            // Escapes only ever drop an ASCII backslash, so the bytes stay UTF-8.
            let value = String::from_utf8(value).map_err(|_| LexError {
                message: "the string is not valid UTF-8".into(),
                range: start..at,
            })?;
            tokens.push(Token {
                kind: TokenKind::Str(value),
                range: start..at,
            });
            continue;
        }
        while at < bytes.len() && !bytes[at].is_ascii_whitespace() && bytes[at] != b';' {
            at += 1;
        }
        let word = &text[start..at];
        let kind = if word == "=" {
            TokenKind::Equals
        } else if let Some(name) = word.strip_prefix('%') {
            TokenKind::Id(name.to_string())
        } else if let Some(raw) = word.strip_prefix('!') {
            TokenKind::Raw(raw.to_string())
        } else {
            TokenKind::Word(word.to_string())
        };
        tokens.push(Token {
            kind,
            range: start..at,
        });
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        tokenize(text)
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn splits_words_ids_strings_and_comments() {
        use TokenKind::*;
        assert_eq!(
            kinds("%a = OpString \"x \\\"y\\\" \\q\\\\\" ; comment\n!0x10 OpNop"),
            vec![
                Id("a".into()),
                Equals,
                Word("OpString".into()),
                Str("x \"y\" q\\".into()),
                Raw("0x10".into()),
                Word("OpNop".into()),
            ]
        );
    }

    #[test]
    fn strings_span_lines_and_report_missing_quote() {
        assert_eq!(kinds("\"a\nb\""), vec![TokenKind::Str("a\nb".into())]);
        let err = tokenize("OpName %x \"abc").unwrap_err();
        assert_eq!(err.range, 10..14);
    }
}
