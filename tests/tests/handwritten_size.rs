//! The compiler against the hand-written reference set (`tests::handwritten`): public
//! PICA200 and AGAL programs written in assembly, each rewritten in GLSL and checked against
//! its original in the simulator (`handwritten_pica.rs`, `handwritten_agal.rs`). No compiled
//! rewrite may be longer than its original, and the set's sum may not grow back: the bound
//! below is the sum measured when it was last lowered (lower it when the compiler improves;
//! `cargo run --release -p tests --bin size-report` prints the table).

use tests::handwritten::{all, measure, table};

/// Programs in the set: a reference dropped from it cannot make the sum look better.
const PROGRAMS: usize = 74;

/// The set's compiled sum (hand-written: 958), at most.
const COMPILED_SUM: usize = 825;

#[test]
fn no_program_compiles_longer_than_by_hand_and_the_sum_does_not_grow() {
    let refs = all();
    let measured = measure(&refs);
    println!("{}", table(&refs));
    assert_eq!(measured.len(), PROGRAMS, "the set changed size");
    let longer: Vec<String> = measured
        .iter()
        .filter(|m| m.compiled > m.hand)
        .map(|m| format!("{}: {} compiled, {} by hand", m.name, m.compiled, m.hand))
        .collect();
    assert!(
        longer.is_empty(),
        "longer than by hand:\n{}",
        longer.join("\n")
    );
    let sum: usize = measured.iter().map(|m| m.compiled).sum();
    let hand: usize = measured.iter().map(|m| m.hand).sum();
    assert_eq!(hand, 958, "the hand-written counts changed");
    assert!(
        sum <= COMPILED_SUM,
        "the set compiles to {sum} instructions, more than the {COMPILED_SUM} measured before"
    );
}
