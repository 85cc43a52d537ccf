//! The PICA200 half of the hand-written reference set: every GLSL rewrite in
//! `tests/fixtures/handwritten/pica/`, compiled, runs in the simulator on the same random
//! inputs and uniforms as the hand-written original (the `.shbin` picasso made from it) and
//! writes the same outputs (`tests::handwritten::pica::compare`). A rewrite that computed
//! something else than its original would make the size report's comparison meaningless.
//! Nor may a compiled rewrite execute more steps than its original, in any case (the
//! originals with branches, loops and calls: lenny's and the frag-shader's `jmpc`,
//! MineSweeper3D's `call`, sf2d's `ifu`, normal_mapping's `ifc`, ModMoon's `call`).

use tests::handwritten::pica::{self, compare};

#[test]
fn every_rewrite_computes_what_its_hand_written_original_computes() {
    let mut failures = Vec::new();
    for program in pica::PROGRAMS {
        if let Some(why) = program.original_unrunnable {
            println!("{}: not simulated: {why}", program.name);
            continue;
        }
        match (compare(program), program.known_compiler_bug) {
            (Ok(steps), None) => {
                println!(
                    "{}: {} steps by hand, {} compiled",
                    program.name, steps.hand_steps, steps.compiled_steps
                );
                if steps.compiled_steps > steps.hand_steps {
                    failures.push(format!(
                        "{}: executes {} steps where its original executes {}",
                        program.name, steps.compiled_steps, steps.hand_steps
                    ));
                }
            }
            (Err(e), None) => failures.push(format!("{}: {e}", program.name)),
            (Err(e), Some(bug)) => {
                println!("{}: known compiler bug ({bug}): {e}", program.name);
            }
            (Ok(_), Some(bug)) => failures.push(format!(
                "{}: marked as a known compiler bug ({bug}) but agrees with its original now",
                program.name
            )),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn hand_counts_are_counted_as_compiled_programs_are() {
    let simple_tri = pica::references()
        .into_iter()
        .find(|r| r.name == "3ds-examples/simple_tri")
        .unwrap();
    // mov, mov, 4 dp4, mov, end.
    assert_eq!(simple_tri.hand_instructions, 8);
}
