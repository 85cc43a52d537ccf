//! The encoder, decoder, disassembler and assembler against Adobe AGALMiniAssembler's output
//! (the golden files): every program decodes to its listing, the listing and the original
//! source assemble to the identical bytes, and decoding then encoding gives the bytes back.

use crate::common;

use backend_agal::{Program, asm, disasm};

#[test]
fn every_golden_program_decodes_to_its_listing() {
    for name in common::names() {
        let bytes = common::bytes(&name);
        let p = Program::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (version, stage, tokens) = common::listing_header(&name);
        assert_eq!(
            (p.version, p.stage, p.instructions.len()),
            (version, stage, tokens),
            "{name}"
        );
        let listing = disasm::listing(&bytes).unwrap();
        let expected = common::listing_body(&name);
        for (i, (got, want)) in listing.lines().zip(expected.lines()).enumerate() {
            assert_eq!(got, want, "{name}: token {}", i + 1);
        }
        assert_eq!(listing, expected, "{name}");
    }
}

#[test]
fn decode_then_encode_gives_the_bytes_back() {
    for name in common::names() {
        let bytes = common::bytes(&name);
        assert_eq!(Program::decode(&bytes).unwrap().encode(), bytes, "{name}");
    }
}

#[test]
fn every_listing_assembles_to_the_golden_bytes() {
    for name in common::names() {
        let bytes = common::bytes(&name);
        let (version, stage, _) = common::listing_header(&name);
        let text = common::text(&name, "asm.txt").unwrap();
        let out = asm::assemble(&text, stage, version).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out, bytes, "{name}");
    }
}

#[test]
fn every_source_assembles_to_the_golden_bytes() {
    let mut seen = 0;
    for name in common::names() {
        let Some(source) = common::text(&name, "source.txt") else {
            continue; // raytrace_*: the generated text is not in the repository
        };
        seen += 1;
        let bytes = common::bytes(&name);
        let (version, stage, _) = common::listing_header(&name);
        let out = asm::assemble(&source, stage, version).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out, bytes, "{name}");
    }
    assert_eq!(seen, 8);
}

#[test]
fn listing_of_own_disassembly_round_trips() {
    for name in common::names() {
        let bytes = common::bytes(&name);
        let p = Program::decode(&bytes).unwrap();
        let text = disasm::program_listing(&p);
        let again = asm::parse(&text, p.stage, p.version).unwrap();
        assert_eq!(again, p, "{name}");
    }
}
