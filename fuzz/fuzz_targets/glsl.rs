//! Text → the GLSL front end as users call it (`Source::glsl`: the classic-GLSL rewriter and
//! preprocessor, then naga), for a vertex and a fragment shader, on both targets. Any text
//! must give a program or diagnostics; a panic, a hang, an out-of-memory or an internal
//! error (`ErrorKind::Internal`) is a bug. Seeds: `seed.sh` copies the GLSL fixtures.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spv2retro::{ErrorKind, Options, Profile, Source, Stage, compile};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for stage in [Stage::Vertex, Stage::Fragment] {
        for options in [Options::pica(), Options::agal(Profile::Standard)] {
            if let Err(e) = compile(Source::glsl(&text, stage), &options.stage(stage)) {
                assert!(e.kind() != ErrorKind::Internal, "internal error: {e}");
            }
        }
    }
});
