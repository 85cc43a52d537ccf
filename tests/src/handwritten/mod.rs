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
    /// Output semantics the rewrite is compiled with (`--semantic L=NAME`), where the
    /// defaults by location do not give the original's (PICA200 programs that feed a
    /// geometry program pass whole registers as `dummy`).
    pub semantics: Vec<(u32, spv2retro::Semantic)>,
}

impl Reference {
    /// The options the rewrite compiles with.
    pub fn options(&self) -> Options {
        let options = match self.target {
            Target::Pica => Options::pica(),
            Target::Agal(profile) => Options::agal(profile),
        };
        self.semantics
            .iter()
            .fold(options.stage(self.stage), |o, &(l, s)| o.semantic(l, s))
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

/// One reference measured: hand-written and compiled instruction counts.
#[derive(Clone, Debug)]
pub struct Measured {
    pub name: String,
    pub target: Target,
    pub hand: usize,
    pub compiled: usize,
    /// The most steps each executed over the simulator check's random cases (PICA200
    /// programs whose original runs; see [`pica::compare`]): hand-written, compiled.
    pub steps: Option<(u64, u64)>,
}

/// Compiles every reference and counts.
pub fn measure(refs: &[Reference]) -> Vec<Measured> {
    refs.iter()
        .map(|r| Measured {
            name: r.name.clone(),
            target: r.target,
            hand: r.hand_instructions,
            compiled: r.compiled_instructions(),
            steps: match r.target {
                Target::Pica => pica::PROGRAMS
                    .iter()
                    .find(|p| p.name == r.name && p.original_unrunnable.is_none())
                    .and_then(|p| pica::compare(p).ok())
                    .map(|c| (c.hand_steps, c.compiled_steps)),
                Target::Agal(_) => None,
            },
        })
        .collect()
}

/// The markdown table of the set: each program's counts and ratio, the sums per target and
/// overall, and how many compile longer than by hand.
pub fn table(refs: &[Reference]) -> String {
    let measured = measure(refs);
    let mut out = String::from(
        "| hand-written program | target | by hand | compiled | ratio | steps by hand | steps compiled |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for m in &measured {
        let target = match m.target {
            Target::Pica => "PICA200".to_string(),
            Target::Agal(p) => format!("AGAL ({p})"),
        };
        // AGAL 1 has no branches: its steps are its tokens.
        let (hs, cs) = match m.steps {
            Some((h, c)) => (h.to_string(), c.to_string()),
            None => (String::new(), String::new()),
        };
        out += &format!(
            "| {} | {target} | {} | {} | {:.2} | {hs} | {cs} |\n",
            m.name,
            m.hand,
            m.compiled,
            m.compiled as f64 / m.hand.max(1) as f64
        );
    }
    let sums = |pick: &dyn Fn(&Measured) -> bool, label: &str| -> String {
        let (h, c, n, longer) =
            measured
                .iter()
                .filter(|m| pick(m))
                .fold((0, 0, 0, 0), |(h, c, n, l), m| {
                    (
                        h + m.hand,
                        c + m.compiled,
                        n + 1,
                        l + usize::from(m.compiled > m.hand),
                    )
                });
        let (hs, cs) = measured
            .iter()
            .filter(|m| pick(m))
            .filter_map(|m| m.steps)
            .fold((0, 0), |(a, b), (h, c)| (a + h, b + c));
        format!(
            "| **{label}** ({n} programs, {longer} longer than by hand) | | {h} | {c} | {:.3} | {hs} | {cs} |\n",
            c as f64 / h.max(1) as f64
        )
    };
    out += &sums(&|m| m.target == Target::Pica, "PICA200");
    out += &sums(&|m| m.target != Target::Pica, "AGAL");
    out += &sums(&|_| true, "all");
    out
}
