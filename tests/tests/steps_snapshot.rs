//! What every program with a branch, loop or call costs to run, pinned: for each such shader
//! of `tests/fixtures/glsl`, `tests/fixtures/edge` and `tests/fixtures/loops`, and of the
//! engine corpus (`tests/fixtures/thirdparty/engines`, glslang's SPIR-V of each text), the
//! instructions and the steps executed at the stated values (`tests::steps`) on the PICA200
//! and AGAL 1, 2 and 3, or the rule of the refusal, are `tests/golden/steps.txt`, one line
//! each.
//!
//! A change that makes a pinned program execute more steps, or refuses one that compiled,
//! fails the test with the programs named; any other change (fewer steps, another length)
//! shows up as a diff of the file to review. After an intended change:
//! `BLESS=1 cargo test -p tests --test integration steps_snapshot::`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use spv2retro::{Options, Profile, compile};

const TARGETS: [&str; 4] = ["pica", "agal1", "agal2", "agal3"];

fn options(target: usize) -> Options {
    match target {
        0 => Options::pica(),
        1 => Options::agal(Profile::Baseline),
        2 => Options::agal(Profile::Standard),
        _ => Options::agal(Profile::StandardExtended),
    }
}

fn snapshot() -> String {
    let mut out = String::new();
    for p in tests::steps::corpus() {
        for (target, label) in TARGETS.iter().enumerate() {
            let line = tests::steps::outcome(&compile(p.source(), &options(target).stage(p.stage)));
            let _ = writeln!(out, "{} {label}: {line}", p.name);
        }
    }
    out
}

/// `name target` → steps, or `None` when refused; other lines (stages) are left out.
fn steps_of(text: &str) -> BTreeMap<String, Option<u64>> {
    text.lines()
        .filter_map(|l| {
            let (key, rest) = l.split_once(": ")?;
            if rest.starts_with("refused") {
                return Some((key.to_string(), None));
            }
            let steps = rest
                .split(", ")
                .nth(1)?
                .strip_suffix(" steps")?
                .parse()
                .ok()?;
            Some((key.to_string(), Some(steps)))
        })
        .collect()
}

#[test]
fn no_program_with_control_flow_runs_more_steps_than_pinned() {
    let now = snapshot();
    let Some(before) = tests::golden("steps.txt", &now) else {
        return;
    };
    let (was, is) = (steps_of(&before), steps_of(&now));
    let worse: Vec<String> = was
        .iter()
        .filter_map(|(key, &then)| {
            let then = then?;
            match is.get(key) {
                Some(Some(n)) if *n > then => Some(format!("{key}: {then} steps, now {n}")),
                Some(None) => Some(format!("{key}: {then} steps, now refused")),
                _ => None,
            }
        })
        .collect();
    assert!(worse.is_empty(), "slower or refused:\n{}", worse.join("\n"));
    tests::golden_unchanged(&before, &now, "steps_snapshot::");
}
