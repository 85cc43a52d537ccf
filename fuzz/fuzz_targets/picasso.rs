//! Text → picasso source through the linker `spv2pica -o out.shbin a.v.pica` runs. Any text
//! must give a `.shbin` that reads back, or diagnostics; a panic, a hang, an out-of-memory or
//! an internal error is a bug. Seeds: `seed.sh` copies the picasso fixtures.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spv2retro::picasso::link;
use spv2retro::{ErrorKind, Options, Source};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match link(&[Source::picasso(&text).named("fuzz.v.pica")], &Options::pica(), true) {
        Ok(linked) => {
            backend_pica::sim::Simulator::new(&linked.bytes).expect("our .shbin reads back");
        }
        Err(e) => assert!(e.kind() != ErrorKind::Internal, "internal error: {e}"),
    }
});
