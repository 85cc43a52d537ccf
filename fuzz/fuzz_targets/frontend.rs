//! Bytes → front end (binary reader, assembler, validator). Any input must give a module or
//! diagnostics; a panic, a hang or an out-of-memory is a bug.
#![no_main]

use frontend_spirv::{Input, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Input::detect takes anything that is not a SPIR-V binary and is UTF-8 as assembly
    // text, so both the reader and the assembler see the fuzzer's inputs.
    let _ = frontend_spirv::load(Input::detect(data), &Options::default());
});
