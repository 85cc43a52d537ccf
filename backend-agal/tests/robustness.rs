//! Robustness: arbitrary and mutated bytes never make the decoder, validator, disassembler or
//! simulator panic, and every program that decodes re-encodes to the same bytes and survives
//! a listing round trip. Deterministic (a fixed-seed generator), so failures reproduce.

use crate::common;

use backend_agal::opcode::Shape;
use backend_agal::operand::{Component, Dest, Indirect, Mask, RegType, Source, Swizzle};
use backend_agal::sampler::Sampler;
use backend_agal::sim::{self, FragmentInputs, VertexInputs};
use backend_agal::{
    Inst, Opcode, Operand2, Profile, Program, Stage, Version, asm, disasm, validate,
};
use test_kit::Rng;

/// Runs everything on the bytes; whether they decoded.
fn exercise(bytes: &[u8]) -> bool {
    for p in Profile::ALL {
        let _ = validate(bytes, p);
    }
    if let Ok(program) = Program::decode(bytes) {
        assert_eq!(program.encode(), bytes);
        let text = disasm::listing(bytes).unwrap();
        if let Ok(again) = asm::parse(&text, program.stage, program.version) {
            assert_eq!(again, program, "{text}");
        }
        let c = [[0.5f32; 4]; 8];
        match program.stage {
            Stage::Vertex => {
                let _ = sim::run_vertex(
                    &program,
                    &VertexInputs {
                        attributes: &c,
                        constants: &c,
                        instance_id: 3,
                    },
                );
            }
            Stage::Fragment => {
                let _ = sim::run_fragment(
                    &program,
                    &c,
                    &FragmentInputs {
                        constants: &c,
                        textures: &(),
                    },
                );
            }
        }
        return true;
    }
    false
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut decoded = 0;
    for _ in 0..3000 {
        let tokens = rng.index(4);
        let mut b = vec![
            0xa0,
            1 + rng.index(3) as u8,
            0,
            0,
            0,
            0xa1,
            rng.index(2) as u8,
        ];
        for _ in 0..tokens * 24 + usize::from(rng.index(8) == 0) {
            // Mostly small field values, so that some tokens decode.
            let byte = match rng.index(4) {
                0 => rng.next_u64() as u8,
                1 => 0xe4,
                _ => rng.index(3) as u8,
            };
            b.push(byte);
        }
        if rng.index(10) == 0 {
            let i = rng.index(b.len());
            b[i] = rng.next_u64() as u8;
        }
        decoded += usize::from(exercise(&b));
    }
    assert!(
        decoded > 300,
        "only {decoded} of the random programs decoded"
    );
}

#[test]
fn mutated_golden_programs_never_panic() {
    let mut rng = Rng(42);
    for name in common::names() {
        let original = common::bytes(&name);
        assert!(exercise(&original));
        for _ in 0..60 {
            let mut b = original.clone();
            for _ in 0..1 + rng.index(3) {
                let i = rng.index(b.len());
                b[i] ^= 1 << rng.index(8);
            }
            if rng.index(8) == 0 {
                b.truncate(rng.index(b.len()));
            }
            exercise(&b);
        }
    }
}

fn reg_for(rng: &mut Rng, stage: Stage, write: bool) -> RegType {
    let choices: &[RegType] = match (stage, write) {
        (Stage::Vertex, false) => &[RegType::Attribute, RegType::Constant, RegType::Temporary],
        (Stage::Vertex, true) => &[RegType::Temporary, RegType::Output, RegType::Varying],
        (Stage::Fragment, false) => &[RegType::Constant, RegType::Temporary, RegType::Varying],
        (Stage::Fragment, true) => &[RegType::Temporary, RegType::Output, RegType::Depth],
    };
    choices[rng.index(choices.len())]
}

fn source(rng: &mut Rng, stage: Stage) -> Source {
    let swizzle = Swizzle::from_bits(rng.next_u64() as u8);
    if stage == Stage::Vertex && rng.index(5) == 0 {
        let by = Indirect {
            reg: reg_for(rng, stage, false),
            index: rng.index(8) as u16,
            select: Component::from_bits(rng.next_u64() as u8),
            offset: rng.next_u64() as u8,
        };
        return Source::indirect(RegType::Constant, by, swizzle);
    }
    Source::new(reg_for(rng, stage, false), rng.index(300) as u16, swizzle)
}

/// Typed instructions with registers each stage can spell: encode, decode, print, assemble.
#[test]
fn generated_instructions_round_trip() {
    let mut rng = Rng(7);
    for _ in 0..400 {
        let stage = if rng.index(2) == 0 {
            Stage::Vertex
        } else {
            Stage::Fragment
        };
        let mut p = Program::new(Version::V3, stage);
        for _ in 0..8 {
            let ops: Vec<Opcode> = Opcode::ALL
                .iter()
                .copied()
                .filter(|o| stage == Stage::Fragment || !o.fragment_only())
                .collect();
            let op = ops[rng.index(ops.len())];
            let dest = Dest::new(
                reg_for(&mut rng, stage, true),
                rng.index(4) as u16,
                Mask::new(1 + rng.index(15) as u8).unwrap(),
            );
            let s1 = source(&mut rng, stage);
            let s2 = source(&mut rng, stage);
            let mut sampler = Sampler::new(rng.index(16) as u16);
            for _ in 0..rng.index(4) {
                let flags = [
                    "cube",
                    "linear",
                    "miplinear",
                    "repeat",
                    "dxt5",
                    "centroid",
                    "single",
                    "ignoresampler",
                    "anisotropic8x",
                    "clamp_u_repeat_v",
                ];
                sampler.apply_flag(flags[rng.index(flags.len())]);
            }
            sampler.lod_bias = rng.next_u64() as i8;
            let inst = match op.shape() {
                Shape::Unary => Inst::new(op, Some(dest), Some(s1), None),
                Shape::Binary | Shape::Matrix => {
                    Inst::new(op, Some(dest), Some(s1), Some(Operand2::Source(s2)))
                }
                Shape::Texture => Ok(Inst::tex(dest, s1, sampler)),
                Shape::Kill => Ok(Inst::kil(s1)),
                Shape::Condition => Inst::condition(op, s1, s2),
                Shape::Bare => Inst::new(op, None, None, None),
            }
            .unwrap();
            p.push(inst);
        }
        let bytes = p.encode();
        assert_eq!(Program::decode(&bytes).unwrap(), p);
        let text = disasm::program_listing(&p);
        let again = asm::parse(&text, stage, Version::V3).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(again, p, "{text}");
        let _ = validate(&bytes, Profile::StandardExtended);
    }
}
