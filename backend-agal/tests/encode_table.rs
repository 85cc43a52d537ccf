//! Table-driven encoder tests in the style of Cranelift's emit tests: each row is an
//! instruction built with the typed constructors, the 24 bytes AGALMiniAssembler produced for
//! it (copied from the golden `.agal` files, named in the row, little-endian as stored), and
//! its listing text. Each row checks encoding, decoding, printing and assembling.

use backend_agal::opcode::Opcode as O;
use backend_agal::operand::{Component as C, Dest, Indirect, Mask, RegType as R, Source, Swizzle};
use backend_agal::sampler::{Dimension, Filter, Sampler};
use backend_agal::{Inst, Program, Stage, Version, asm, disasm};

fn sw(s: &str) -> Swizzle {
    Swizzle::parse(s).unwrap()
}
fn m(s: &str) -> Mask {
    Mask::parse(s).unwrap()
}
fn src(reg: R, i: u16) -> Source {
    Source::reg(reg, i)
}
fn srcs(reg: R, i: u16, s: &str) -> Source {
    Source::new(reg, i, sw(s))
}
fn un(op: O, d: Dest, a: Source) -> Inst {
    Inst::unary(op, d, a).unwrap()
}
fn bin(op: O, d: Dest, a: Source, b: Source) -> Inst {
    Inst::binary(op, d, a, b).unwrap()
}

struct Row {
    from: &'static str,
    stage: Stage,
    inst: Inst,
    hex: &'static str,
    text: &'static str,
}

fn rows() -> Vec<Row> {
    use Stage::{Fragment as F, Vertex as V};
    let full = Dest::full;
    let cube = Sampler {
        dimension: Dimension::Cube,
        filter: Filter::Linear,
        ..Sampler::new(0)
    };
    vec![
        Row {
            from: "basic_m44_vertex",
            stage: V,
            inst: bin(
                O::M44,
                full(R::Output, 0),
                src(R::Attribute, 0),
                src(R::Constant, 0),
            ),
            hex: "1800000000000f03000000e400000000000000e401000000",
            text: "m44 op, va0, vc0",
        },
        Row {
            from: "basic_m44_vertex",
            stage: V,
            inst: un(O::Mov, full(R::Varying, 0), src(R::Attribute, 1)),
            hex: "0000000000000f04010000e4000000000000000000000000",
            text: "mov v0, va1",
        },
        Row {
            from: "basic_mov_fragment",
            stage: F,
            inst: un(O::Mov, full(R::Output, 0), src(R::Varying, 0)),
            hex: "0000000000000f03000000e4040000000000000000000000",
            text: "mov oc, v0",
        },
        Row {
            from: "fractal_fragment",
            stage: F,
            inst: un(
                O::Mov,
                Dest::new(R::Temporary, 0, m("xy")),
                srcs(R::Varying, 0, "xy"),
            ),
            hex: "000000000000030200000054040000000000000000000000",
            text: "mov ft0.xy, v0.xyyy",
        },
        Row {
            from: "fractal_fragment",
            stage: F,
            inst: bin(
                O::Dp3,
                Dest::new(R::Temporary, 0, Mask::X),
                srcs(R::Temporary, 0, "xyw"),
                srcs(R::Temporary, 0, "xzw"),
            ),
            hex: "1200000000000102000000f402000000000000f802000000",
            text: "dp3 ft0.x, ft0.xyww, ft0.xzww",
        },
        Row {
            from: "fractal_fragment",
            stage: F,
            inst: bin(
                O::Slt,
                Dest::new(R::Temporary, 3, Mask::X),
                srcs(R::Temporary, 2, "x"),
                srcs(R::Constant, 0, "w"),
            ),
            hex: "2a000000030001020200000002000000000000ff01000000",
            text: "slt ft3.x, ft2.xxxx, fc0.wwww",
        },
        Row {
            from: "fractal_fragment",
            stage: F,
            inst: un(O::Frc, full(R::Temporary, 2), src(R::Temporary, 2)),
            hex: "0800000002000f02020000e4020000000000000000000000",
            text: "frc ft2, ft2",
        },
        Row {
            from: "misc_opcodes_fragment",
            stage: F,
            inst: un(O::Ddx, full(R::Temporary, 0), src(R::Varying, 0)),
            hex: "1a00000000000f02000000e4040000000000000000000000",
            text: "ddx ft0, v0",
        },
        Row {
            from: "misc_opcodes_fragment",
            stage: F,
            inst: Inst::kil(Source::new(R::Temporary, 1, Swizzle::splat(C::X))),
            hex: "270000000000000001000000020000000000000000000000",
            text: "kil ft1.xxxx",
        },
        Row {
            from: "misc_opcodes_vertex",
            stage: V,
            inst: bin(
                O::M33,
                full(R::Temporary, 4),
                src(R::Constant, 0),
                src(R::Temporary, 3),
            ),
            hex: "1700000004000f02000000e401000000030000e402000000",
            text: "m33 vt4, vc0, vt3",
        },
        Row {
            from: "misc_opcodes_vertex",
            stage: V,
            inst: bin(
                O::Pow,
                full(R::Temporary, 2),
                src(R::Temporary, 1),
                src(R::Attribute, 0),
            ),
            hex: "0b00000002000f02010000e402000000000000e400000000",
            text: "pow vt2, vt1, va0",
        },
        Row {
            from: "raytrace_fragment",
            stage: F,
            inst: un(
                O::Nrm,
                Dest::new(R::Temporary, 3, Mask::XYZ),
                srcs(R::Temporary, 3, "xyz"),
            ),
            hex: "0e00000003000702030000a4020000000000000000000000",
            text: "nrm ft3.xyz, ft3.xyzz",
        },
        Row {
            from: "raytrace_fragment",
            stage: F,
            inst: bin(
                O::Crs,
                Dest::new(R::Temporary, 5, Mask::XYZ),
                srcs(R::Constant, 16, "xyxx"),
                srcs(R::Temporary, 3, "xyz"),
            ),
            hex: "11000000050007021000000401000000030000a402000000",
            text: "crs ft5.xyz, fc16.xyxx, ft3.xyzz",
        },
        Row {
            from: "raytrace_fragment",
            stage: F,
            inst: Inst::condition(
                O::Ine,
                srcs(R::Temporary, 11, "x"),
                srcs(R::Constant, 16, "x"),
            )
            .unwrap(),
            hex: "1d000000000000000b000000020000001000000001000000",
            text: "ine ft11.xxxx, fc16.xxxx",
        },
        Row {
            from: "raytrace_fragment",
            stage: F,
            inst: Inst::els(),
            hex: "200000000000000000000000000000000000000000000000",
            text: "els",
        },
        Row {
            from: "raytrace_fragment",
            stage: F,
            inst: Inst::eif(),
            hex: "210000000000000000000000000000000000000000000000",
            text: "eif",
        },
        Row {
            from: "raytrace_fragment",
            stage: F,
            inst: Inst::tex(full(R::Temporary, 1), srcs(R::Temporary, 9, "xyz"), cube),
            hex: "2800000001000f02090000a4020000000000000005100010",
            text: "tex ft1, ft9.xyzz, fs0 <cube,linear,mipnone,clamp,rgba>",
        },
        Row {
            from: "relative_vertex",
            stage: V,
            inst: un(
                O::Mov,
                full(R::Temporary, 0),
                Source::indirect(
                    R::Constant,
                    Indirect {
                        reg: R::Attribute,
                        index: 0,
                        select: C::X,
                        offset: 5,
                    },
                    Swizzle::IDENTITY,
                ),
            ),
            hex: "0000000000000f02000005e4010000800000000000000000",
            text: "mov vt0, vc[va0.x+5]",
        },
        Row {
            from: "relative_vertex",
            stage: V,
            inst: un(
                O::Mov,
                full(R::Temporary, 1),
                Source::indirect(
                    R::Constant,
                    Indirect {
                        reg: R::Attribute,
                        index: 1,
                        select: C::Y,
                        offset: 6,
                    },
                    Swizzle::IDENTITY,
                ),
            ),
            hex: "0000000001000f02010006e4010001800000000000000000",
            text: "mov vt1, vc[va1.y+6]",
        },
    ]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn encode_decode_print_assemble() {
    for (i, row) in rows().iter().enumerate() {
        let what = format!("row {i} ({}: {})", row.from, row.text);
        assert_eq!(hex(&row.inst.encode()), row.hex, "encode {what}");
        assert_eq!(
            disasm::instruction(&row.inst, row.stage),
            row.text,
            "print {what}"
        );
        let mut p = Program::new(Version::V2, row.stage);
        p.push(row.inst);
        let bytes = p.encode();
        assert_eq!(Program::decode(&bytes).unwrap(), p, "decode {what}");
        let assembled = asm::assemble(row.text, row.stage, Version::V2).unwrap();
        assert_eq!(hex(&assembled[7..]), row.hex, "assemble {what}");
    }
}

#[test]
fn rows_are_in_their_golden_files() {
    let dir = test_kit::fixture("golden/agal");
    for row in rows() {
        let path = dir.join(format!("{}.agal", row.from));
        let bytes =
            std::fs::read(&path).unwrap_or_else(|e| panic!("golden file {}: {e}", path.display()));
        let found = bytes[7..].chunks_exact(24).any(|t| hex(t) == row.hex);
        assert!(found, "{} is not a token of {}", row.hex, row.from);
    }
}
