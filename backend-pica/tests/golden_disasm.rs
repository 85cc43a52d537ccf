//! Every golden `.shbin` disassembles to picasso text that assembles back to the same bytes.

use crate::common;

use backend_pica::asm::{self, SourceFile};
use backend_pica::{disasm, shbin};

#[test]
fn listings_reassemble_to_the_same_bytes() {
    for name in common::programs() {
        let bytes = common::shbin(&name);
        let bin = shbin::read(&bytes).unwrap();
        let listing = disasm::disassemble(&bin);
        assert!(
            listing.warnings.is_empty(),
            "{name}: {:?}\n{}",
            listing.warnings,
            listing.text()
        );
        let files: Vec<SourceFile> = listing
            .files
            .iter()
            .map(|f| SourceFile {
                name: &f.name,
                text: &f.text,
            })
            .collect();
        let again =
            asm::assemble(&files).unwrap_or_else(|e| panic!("{name}: {e}\n{}", listing.text()));
        let out = shbin::write(&again).unwrap();
        assert!(
            out == bytes,
            "{name}: {}\n{}",
            common::describe_diff(&bytes, &out),
            listing.text()
        );
        // The single-text form is what `--emit asm` prints.
        assert_eq!(disasm::listing(&bin), listing.text());
    }
}
