//! Any text → `mir::read::read_module`: a module or an error, never a panic, a hang or an
//! out-of-memory. A module the reader accepts and the verifier passes prints back to text
//! the reader reads to the same module (printed the same), and the optimiser's shared
//! pipeline (as each target configures it) runs on it without a panic: a pass that panics
//! on verified MIR is a bug of the pass or a gap in the verifier. Seeds: `seed.sh` writes
//! the fixtures' MIR and the filetests' inputs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = mir::read::read_module(text) else {
        return;
    };
    if mir::verify::verify(&m).is_err() {
        return;
    }
    let printed = mir::print::print_module(&m);
    let again = mir::read::read_module(&printed).expect("printed MIR reads back");
    assert_eq!(mir::print::print_module(&again), printed, "the round trip keeps the text");
    for options in [
        backend_pica::codegen::prepare::passes(),
        backend_agal::codegen::prepare::passes(true),
        backend_agal::codegen::prepare::passes(false),
    ] {
        let mut run = m.clone();
        let _ = mir::passes::optimize_with(&mut run, &options);
    }
});
