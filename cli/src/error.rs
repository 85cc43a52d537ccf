//! The error every entry point of the library returns: the diagnostics, and the text the
//! command-line compilers print for them.

use std::fmt;

use std::process::ExitCode;

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

    /// The error for a source language the front end refused: `text` is the source
    /// `name` holds.
    #[cfg(any(feature = "glsl", feature = "wgsl"))]
    pub(crate) fn from_source(r: frontend_glsl::Rejected, name: &str, text: &str) -> Error {
        Error::rejected(r.diagnostics, name, r.quotes_source.then_some(text))
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

/// Where a bug is reported: the project's issue tracker.
pub const REPORT_BUGS_AT: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/issues");

/// Runs `f`, turning a panic into an [`ErrorKind::Internal`] error (rule
/// `compiler.internal`) that says what broke and where to report it with the input
/// attached: a bug in the compiler never reaches a user as a bare panic.
pub(crate) fn guarded<T>(name: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    let outer = GUARDED.with(|g| g.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(outer));
    match result {
        Ok(result) => result,
        Err(payload) => {
            let at = PANICKED_AT
                .with(|w| w.borrow_mut().take())
                .map(|at| format!(" at {at}"))
                .unwrap_or_default();
            let what = panic_message(payload.as_ref());
            let d = mir::Diagnostic::error(
                crate::rules::Rule::CompilerInternal,
                format!(
                    "internal error (this is a bug): the compiler stopped on `{what}`{at}; \
                     please report it at {REPORT_BUGS_AT} with `{name}` attached"
                ),
            );
            Err(Error::rejected(Diagnostics(vec![d]), name, None))
        }
    }
}

thread_local! {
    /// Whether this thread is inside [`guarded`] (its panics become errors).
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Where the last guarded panic happened, when [`report_panics_as_bugs`] is in force.
    static PANICKED_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// What a panic said (its `&str` or `String` payload).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// The command-line tools' `main`: runs `tool_main` with panics reported as bugs. No
/// backtrace: a panic inside the library becomes the `compiler.internal` error the tool
/// reports (with the source location of the fault); any other prints one line,
/// `TOOL: error[compiler.internal]: …`, that says where to report it, and the tool exits 1.
pub fn run_tool(tool: &'static str, tool_main: fn() -> ExitCode) -> ExitCode {
    report_panics_as_bugs(tool);
    std::panic::catch_unwind(tool_main).unwrap_or(ExitCode::from(1))
}

fn report_panics_as_bugs(tool: &'static str) {
    std::panic::set_hook(Box::new(move |info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if GUARDED.with(std::cell::Cell::get) {
            PANICKED_AT.with(|w| *w.borrow_mut() = Some(at));
            return;
        }
        let what = panic_message(info.payload());
        eprintln!(
            "{tool}: error[compiler.internal]: internal error (this is a bug): `{what}` at \
             {at}; please report it at {REPORT_BUGS_AT} with the input attached"
        );
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_the_library_is_an_internal_error_that_says_where_to_report_it() {
        let e = guarded::<()>("shader.vert", || panic!("index out of bounds")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Internal);
        assert_eq!(e.diagnostics().0[0].rule, "compiler.internal");
        let text = e.to_string();
        assert!(
            text.starts_with("shader.vert: error[compiler.internal]"),
            "{text}"
        );
        assert!(text.contains("index out of bounds"), "{text}");
        assert!(text.contains(REPORT_BUGS_AT) && text.contains("`shader.vert` attached"));
        // A nested guard leaves the outer one in force, and no guard is left behind.
        assert!(guarded("a", || guarded("b", || Ok(1))).is_ok());
        assert!(!GUARDED.with(std::cell::Cell::get));
    }
}
