//! The error every entry point of the library returns: the diagnostics, and the text the
//! command-line compilers print for them.

use std::fmt;

use mir::Diagnostics;

/// Why a compile failed.
///
/// [`Display`](fmt::Display) (and [`Debug`](fmt::Debug), so that `fn main() -> Result<(),
/// spv2retro::Error>` in a build script prints something readable) render exactly what
/// `spv2pica` and `spv2agal` print: the input's name, the rule broken, the instruction and
/// its word offset, and the source line when the module carries one.
///
/// ```
/// use spv2retro::{ErrorKind, Options, Source, compile};
///
/// // Four bytes are no SPIR-V module.
/// let err = compile(Source::spirv(&[1, 2, 3, 4]).named("bad.spv"), &Options::pica())
///     .unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Rejected);
/// assert!(err.to_string().starts_with("bad.spv: error["));
/// assert!(!err.diagnostics().0.is_empty());
/// ```
#[derive(Clone)]
pub struct Error {
    kind: ErrorKind,
    diagnostics: Diagnostics,
    rendered: String,
}

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input is not valid SPIR-V (or GLSL/WGSL), or uses what the target cannot do, or
    /// does not fit the target's limits. Each diagnostic's [`fault`](mir::Diagnostic::fault)
    /// says which.
    Rejected,
    /// A file could not be read or written (build-script helper only).
    Io,
    /// The compiler broke one of its own invariants: a bug, to be reported (the diagnostics
    /// have a rule ending in `.internal`).
    Internal,
}

impl Error {
    /// An error for `diagnostics` about the input called `name`; `text` is the input when it
    /// was assembly text (diagnostics then quote its lines).
    pub(crate) fn rejected(diagnostics: Diagnostics, name: &str, text: Option<&str>) -> Error {
        let rendered = diagnostics.render(name, text);
        // A back end's broken invariant is the compiler's fault, whatever stage found it.
        let internal = diagnostics
            .0
            .iter()
            .any(|d| d.fault() == mir::Fault::Internal);
        Error {
            kind: if internal {
                ErrorKind::Internal
            } else {
                ErrorKind::Rejected
            },
            diagnostics,
            rendered,
        }
    }

    /// An error for `diagnostics`, rendered as `rendered` (for inputs with their own form of
    /// message, such as picasso's).
    pub(crate) fn with_text(diagnostics: Diagnostics, rendered: String) -> Error {
        Error {
            kind: ErrorKind::Rejected,
            diagnostics,
            rendered,
        }
    }

    /// An error that is not about a rule of the input: `message` is the whole text.
    pub(crate) fn other(kind: ErrorKind, message: String) -> Error {
        Error {
            kind,
            diagnostics: Diagnostics(Vec::new()),
            rendered: message,
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The individual diagnostics (empty for I/O and internal errors), for tools that
    /// want the rule identifiers and spans rather than text.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rendered.trim_end())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The rendered text, not the fields: this is what `main` returning an error prints.
        write!(f, "{self}")
    }
}

impl std::error::Error for Error {}
