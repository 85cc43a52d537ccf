//! The hand-written reference set: public PICA200 and AGAL programs that people wrote in
//! assembly, each rewritten faithfully in GLSL (`tests/fixtures/handwritten/`). The size
//! report measures the compiler against them, and `tests/tests/handwritten_*.rs` run each
//! rewrite against its original in the simulator, so a rewrite that does something else than
//! the original cannot make the compiler look good.

pub mod agal;
pub mod pica;

use std::path::PathBuf;

use spv2retro::{Compiled, Options, Source, Stage};

/// Which back end a reference is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A PICA200 program (a DVLE of a picasso-made `.shbin`).
    Pica,
    /// An AGAL program for the given profile (the one the original was written for).
    Agal(spv2retro::Profile),
}

/// One hand-written program and its GLSL rewrite.
#[derive(Clone, Debug)]
pub struct Reference {
    /// Short unique name, `project/program` (e.g. `3ds-examples/textured_cube`).
    pub name: String,
    pub target: Target,
    pub stage: Stage,
    /// The GLSL rewrite (under `tests/fixtures/handwritten/`).
    pub rewrite: PathBuf,
    /// The hand-written original (a picasso set's source or an `.agalasm` file).
    pub original: PathBuf,
    /// Instructions in the original, counted from its assembled bytes (PICA200: the
    /// program's instruction words, `end` included; AGAL: tokens).
    pub hand_instructions: usize,
}

impl Reference {
    /// The options the rewrite compiles with.
    pub fn options(&self) -> Options {
        let options = match self.target {
            Target::Pica => Options::pica(),
            Target::Agal(profile) => Options::agal(profile),
        };
        options.stage(self.stage)
    }

    /// The rewrite compiled from its GLSL text, as a user's `spv2pica x.vert` would.
    pub fn compile(&self) -> Compiled {
        let text = std::fs::read_to_string(&self.rewrite)
            .unwrap_or_else(|e| panic!("{}: {e}", self.rewrite.display()));
        let name = self.rewrite.to_string_lossy().to_string();
        spv2retro::compile(
            Source::glsl(&text, self.stage).named(&name),
            &self.options(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    /// The compiled rewrite's instruction count, counted as `hand_instructions` is.
    pub fn compiled_instructions(&self) -> usize {
        self.compile().reflection.stats.instructions
    }
}

/// Every reference, PICA200 first.
pub fn all() -> Vec<Reference> {
    let mut all = pica::references();
    all.extend(agal::references());
    all
}
