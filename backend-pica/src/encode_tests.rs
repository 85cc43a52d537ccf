//! Table-driven encoder tests in the style of Cranelift's emit tests: each row is an instruction,
//! the operand descriptor it names, the expected word and its picasso text.
//!
//! The words and descriptor numbers are copied from the golden files, which picasso 2.7.1
//! (devkitPro/picasso d522455) assembled (`../shared/golden/pica/*.txt`, words as the listing
//! prints them: the value of the little-endian u32). Each row checks encoding, decoding back
//! (against a descriptor table holding the instruction's own descriptor) and printing.

use super::*;
use crate::decode::decode_word;
use crate::disasm::render_plain;
use crate::inst::{BinaryOp, UnaryOp};
use crate::opdesc;
use crate::operand::{
    BoolReg, CmpOp, Component, Condition, Dest, DstReg, IntReg, Mask, RelIndex, Source, SrcReg,
    Swizzle, Target,
};

fn sw(s: &str) -> Swizzle {
    let c: Vec<Component> = s
        .chars()
        .map(|ch| Component::from_index("xyzw".find(ch).unwrap_or(0)))
        .collect();
    Swizzle::new([c[0], c[1], c[2], c[3]])
}
fn mask(s: &str) -> Mask {
    Mask::of(
        &s.chars()
            .map(|ch| Component::from_index("xyzw".find(ch).unwrap_or(0)))
            .collect::<Vec<_>>(),
    )
}
fn v(n: u8) -> Source {
    Source::new(SrcReg::Input(n))
}
fn r(n: u8) -> Source {
    Source::new(SrcReg::Temp(n))
}
fn c(n: u8) -> Source {
    Source::new(SrcReg::Const(n))
}
fn o(n: u8) -> Dest {
    Dest::new(DstReg::Output(n))
}
fn rd(n: u8) -> Dest {
    Dest::new(DstReg::Temp(n))
}
fn t(a: u32) -> Target {
    Target::new(a).unwrap()
}
fn b(n: u8) -> BoolReg {
    BoolReg::new(n).unwrap()
}
fn bin(op: BinaryOp, d: Dest, s1: Source, s2: Source) -> Inst {
    Inst::binary(op, d, s1, s2).unwrap()
}
fn un(op: UnaryOp, d: Dest, s: Source) -> Inst {
    Inst::unary(op, d, s).unwrap()
}
fn mad(d: Dest, s1: Source, s2: Source, s3: Source) -> Inst {
    Inst::mad(d, s1, s2, s3).unwrap()
}

fn rows() -> Vec<(Inst, usize, u32, &'static str)> {
    use BinaryOp::*;
    use UnaryOp::*;
    vec![
        // fmt1u_unary / mad_forms / flow_*: one-source forms.
        (un(Mov, rd(0), v(0)), 0x00, 0x4E00_0000, "mov r0, v0"),
        (
            Inst::mova(mask("x"), c(95).swizzled(sw("xxxx"))).unwrap(),
            0x23,
            0x4807_F023,
            "mova a0.x, c95.xxxx",
        ),
        (
            Inst::mova(mask("xy"), c(0).swizzled(sw("zwww"))).unwrap(),
            0x00,
            0x4802_0000,
            "mova a0.xy, c0.zwww",
        ),
        (
            Inst::mova(mask("x"), r(0).swizzled(sw("yyyy"))).unwrap(),
            0x03,
            0x4801_0003,
            "mova a0.x, r0.yyyy",
        ),
        (
            un(Mov, o(4), c(1).indexed(RelIndex::A0X)),
            0x01,
            0x4C8A_1001,
            "mov o4, c1[a0.x]",
        ),
        (
            un(
                Mov,
                o(5),
                c(2).indexed(RelIndex::A0Y).swizzled(sw("yzwx")).negated(),
            ),
            0x02,
            0x4CB2_2002,
            "mov o5, -c2[a0.y].yzwx",
        ),
        (
            un(Ex2, o(1).masked(mask("x")), r(0)),
            0x04,
            0x1421_0004,
            "ex2 o1.x, r0",
        ),
        (
            un(Lg2, o(1).masked(mask("y")), r(0).swizzled(sw("yzzz"))),
            0x05,
            0x1821_0005,
            "lg2 o1.y, r0.yzzz",
        ),
        (
            un(
                Rcp,
                o(1).masked(mask("z")),
                r(0).swizzled(sw("zzzz")).negated(),
            ),
            0x06,
            0x3821_0006,
            "rcp o1.z, -r0.zzzz",
        ),
        (
            un(Rsq, o(1).masked(mask("w")), c(0).swizzled(sw("wwww"))),
            0x07,
            0x3C22_0007,
            "rsq o1.w, c0.wwww",
        ),
        (un(Litp, o(2), r(0)), 0x01, 0x1C41_0001, "litp o2, r0"),
        (
            un(Flr, o(3), c(0).swizzled(sw("zxyw")).negated()),
            0x08,
            0x2C62_0008,
            "flr o3, -c0.zxyw",
        ),
        (un(Mov, rd(3), c(89)), 0x00, 0x4E67_9000, "mov r3, c89"),
        // fmt1_arith: two-source forms, normal and inverted.
        (
            bin(Add, o(0).masked(mask("xy")), c(0), v(0)),
            0x01,
            0x0002_0001,
            "add o0.xy, c0, v0",
        ),
        (
            bin(
                Add,
                o(0).masked(mask("z")),
                c(1).swizzled(sw("wzyx")).negated(),
                r(0).swizzled(sw("yyxx")),
            ),
            0x02,
            0x0002_1802,
            "add o0.z, -c1.wzyx, r0.yyxx",
        ),
        (
            bin(Add, o(0).masked(mask("w")), c(95), r(0).negated()),
            0x03,
            0x0007_F803,
            "add o0.w, c95, -r0",
        ),
        (
            bin(Dp3, o(1).masked(mask("x")), c(0), v(0)),
            0x04,
            0x0422_0004,
            "dp3 o1.x, c0, v0",
        ),
        (
            bin(Dp4, o(1).masked(mask("y")), c(1).negated(), r(0)),
            0x05,
            0x0822_1805,
            "dp4 o1.y, -c1, r0",
        ),
        (
            bin(Dph, o(1).masked(mask("z")), c(0), r(0)),
            0x06,
            0x0C22_0806,
            "dph o1.z, c0, r0",
        ),
        (
            bin(Dph, o(1).masked(mask("w")), v(0), c(1)),
            0x07,
            0x6020_1087,
            "dphi o1.w, v0, c1",
        ),
        (
            bin(Dst, o(2), c(0), r(0)),
            0x00,
            0x1042_0800,
            "dst o2, c0, r0",
        ),
        (
            bin(Dst, o(3), r(0), c(3)),
            0x00,
            0x6464_1180,
            "dsti o3, r0, c3",
        ),
        (
            bin(Mul, o(4), c(95), v(0).swizzled(sw("wzyx"))),
            0x08,
            0x2087_F008,
            "mul o4, c95, v0.wzyx",
        ),
        (
            bin(Sge, o(5).masked(mask("xy")), c(0), v(0)),
            0x01,
            0x24A2_0001,
            "sge o5.xy, c0, v0",
        ),
        (
            bin(
                Sge,
                o(5).masked(mask("zw")),
                v(0).swizzled(sw("zyxw")).negated(),
                c(95),
            ),
            0x09,
            0x68A0_3F89,
            "sgei o5.zw, -v0.zyxw, c95",
        ),
        (
            bin(
                Slt,
                o(6).masked(mask("xy")),
                c(1).swizzled(sw("yxwz")),
                r(0).negated(),
            ),
            0x0A,
            0x28C2_180A,
            "slt o6.xy, c1.yxwz, -r0",
        ),
        (
            bin(Slt, o(6).masked(mask("zw")), r(0), c(0)),
            0x0B,
            0x6CC4_100B,
            "slti o6.zw, r0, c0",
        ),
        (
            bin(Max, o(7).masked(mask("xy")), c(3), v(0)),
            0x01,
            0x30E2_3001,
            "max o7.xy, c3, v0",
        ),
        (
            bin(
                Min,
                o(7).masked(mask("zw")),
                c(2),
                r(0).swizzled(sw("zzzz")),
            ),
            0x0C,
            0x34E2_280C,
            "min o7.zw, c2, r0.zzzz",
        ),
        (
            bin(Add, rd(3), c(91).indexed(RelIndex::AL), r(3)),
            0x00,
            0x027F_B980,
            "add r3, c91[aL], r3",
        ),
        (
            bin(
                Dph,
                rd(2).masked(mask("z")),
                v(0),
                c(6).indexed(RelIndex::A0Y),
            ),
            0x04,
            0x6250_1304,
            "dphi r2.z, v0, c6[a0.y]",
        ),
        (
            mad(
                rd(3).masked(mask("xyz")),
                r(2),
                v(2).swizzled(sw("yyyy")),
                r(3),
            ),
            0x06,
            0xF324_0A66,
            "mad r3.xyz, r2, v2.yyyy, r3",
        ),
        // mad_forms: MAD and MADI.
        (
            mad(o(0), v(0), c(0), r(0)),
            0x00,
            0xE000_8200,
            "mad o0, v0, c0, r0",
        ),
        (
            mad(
                o(1),
                r(0).swizzled(sw("yxwz")).negated(),
                c(0).swizzled(sw("zzzz")).negated(),
                v(0).negated(),
            ),
            0x02,
            0xE120_8002,
            "mad o1, -r0.yxwz, -c0.zzzz, -v0",
        ),
        (
            mad(o(2), r(0), v(0), c(1)),
            0x00,
            0xC220_0420,
            "madi o2, r0, v0, c1",
        ),
        (
            mad(
                o(3).masked(mask("xy")),
                v(0).swizzled(sw("zwzw")),
                r(0),
                c(1).swizzled(sw("wzyx")).negated(),
            ),
            0x03,
            0xC301_0423,
            "madi o3.xy, v0.zwzw, r0, -c1.wzyx",
        ),
        (
            mad(
                o(3).masked(mask("zw")),
                r(0),
                c(2).indexed(RelIndex::A0X),
                v(0),
            ),
            0x04,
            0xE360_8804,
            "mad o3.zw, r0, c2[a0.x], v0",
        ),
        (
            mad(o(4), r(0), v(0), c(3).indexed(RelIndex::A0X)),
            0x00,
            0xC460_0460,
            "madi o4, r0, v0, c3[a0.x]",
        ),
        // cmp_conditions / flow_loop_break: CMP.
        (
            Inst::cmp(c(0), CmpOp::Eq, CmpOp::Ne, v(0)).unwrap(),
            0x00,
            0xB822_0000,
            "cmp c0, eq, ne, v0",
        ),
        (
            Inst::cmp(
                c(0).swizzled(sw("zwxy")),
                CmpOp::Gt,
                CmpOp::Ge,
                v(0).swizzled(sw("zwxy")),
            )
            .unwrap(),
            0x05,
            0xBCA2_0005,
            "cmp c0.zwxy, gt, ge, v0.zwxy",
        ),
        (
            Inst::cmp(r(1), CmpOp::Ge, CmpOp::Ge, v(0)).unwrap(),
            0x01,
            0xBDA1_1001,
            "cmp r1, ge, ge, v0",
        ),
        (
            Inst::cmp(c(0), CmpOp::Lt, CmpOp::Le, v(0)).unwrap(),
            0x00,
            0xBA62_0000,
            "cmp c0, lt, le, v0",
        ),
        // Flow control (flow_if_else, flow_jmp_call, flow_loop_break, cmp_conditions, uniforms_all_kinds).
        (
            Inst::IfC {
                cond: Condition::x(true),
                dst: t(4),
                num: 0,
            },
            0,
            0xA380_1000,
            "ifc cmp.x",
        ),
        (
            Inst::IfC {
                cond: Condition::y(false),
                dst: t(0xB),
                num: 0,
            },
            0,
            0xA2C0_2C00,
            "ifc !cmp.y",
        ),
        (
            Inst::IfC {
                cond: Condition::and(false, false),
                dst: t(0x16),
                num: 0,
            },
            0,
            0xA040_5800,
            "ifc !cmp.x && !cmp.y",
        ),
        (
            Inst::IfC {
                cond: Condition::or(true, false),
                dst: t(0x14),
                num: 0,
            },
            0,
            0xA200_5000,
            "ifc cmp.x || !cmp.y",
        ),
        (
            Inst::IfC {
                cond: Condition::y(true),
                dst: t(7),
                num: 1,
            },
            0,
            0xA3C0_1C01,
            "ifc cmp.y",
        ),
        (
            Inst::IfU {
                b: b(0),
                dst: t(0xD),
                num: 4,
            },
            0,
            0x9C00_3404,
            "ifu b0",
        ),
        (
            Inst::IfU {
                b: b(11),
                dst: t(0x1C),
                num: 0,
            },
            0,
            0x9EC0_7000,
            "ifu b11",
        ),
        (
            Inst::Loop {
                i: IntReg::new(2).unwrap(),
                last: t(0xF),
            },
            0,
            0xA480_3C00,
            "for i2",
        ),
        (
            Inst::Loop {
                i: IntReg::new(3).unwrap(),
                last: t(8),
            },
            0,
            0xA4C0_2000,
            "for i3",
        ),
        (
            Inst::BreakC {
                cond: Condition::x(true),
            },
            0,
            0x8F80_0000,
            "breakc cmp.x",
        ),
        (Inst::Break, 0, 0x8000_0000, "break"),
        (Inst::Nop, 0, 0x8400_0000, "nop"),
        (Inst::End, 0, 0x8800_0000, "end"),
        (
            Inst::Call {
                target: t(0),
                num: 1,
            },
            0,
            0x9000_0001,
            "call L000",
        ),
        (
            Inst::CallU {
                b: b(0),
                target: t(1),
                num: 3,
            },
            0,
            0x9800_0403,
            "callu b0, L001",
        ),
        (
            Inst::CallC {
                cond: Condition::x(true),
                target: t(0),
                num: 1,
            },
            0,
            0x9780_0001,
            "callc cmp.x, L000",
        ),
        (
            Inst::CallC {
                cond: Condition::and(false, false),
                target: t(1),
                num: 3,
            },
            0,
            0x9440_0403,
            "callc !cmp.x && !cmp.y, L001",
        ),
        (
            Inst::JmpC {
                cond: Condition::y(true),
                target: t(0xC),
            },
            0,
            0xB3C0_3000,
            "jmpc cmp.y, L00C",
        ),
        (
            Inst::JmpU {
                b: b(1),
                if_false: false,
                target: t(0xE),
            },
            0,
            0xB440_3800,
            "jmpu b1, L00E",
        ),
        (
            Inst::JmpU {
                b: b(0),
                if_false: true,
                target: t(0x10),
            },
            0,
            0xB400_4001,
            "jmpu !b0, L010",
        ),
        // gsh_point: geometry-shader instructions.
        (
            Inst::SetEmit {
                vertex: 0,
                primitive: false,
                winding: false,
            },
            0,
            0xAC00_0000,
            "setemit 0",
        ),
        (
            Inst::SetEmit {
                vertex: 2,
                primitive: true,
                winding: false,
            },
            0,
            0xAE80_0000,
            "setemit 2, prim",
        ),
        (
            Inst::SetEmit {
                vertex: 0,
                primitive: true,
                winding: true,
            },
            0,
            0xACC0_0000,
            "setemit 0, prim inv",
        ),
        (Inst::Emit, 0, 0xA800_0000, "emit"),
    ]
}

#[test]
fn rows_encode_decode_and_print() {
    for (inst, desc, word, text) in rows() {
        assert_eq!(encode_inst(&inst, desc), Ok(word), "{text}: encoding");
        let mut table = vec![0; desc + 1];
        if let Some(req) = opdesc::request(&inst) {
            table[desc] = req.value;
        }
        let decoded = decode_word(word, &table).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(decoded.inst, inst, "{text}: decoding");
        assert!(decoded.reencodes(), "{text}");
        assert_eq!(render_plain(&inst), text, "{text}: printing");
    }
}

#[test]
fn descriptor_table_of_simple_program() {
    // mvp_color: four DPHI against the rows and a move; picasso's table has five entries.
    let rows: Vec<Inst> = (0..4)
        .map(|i| {
            bin(
                BinaryOp::Dph,
                o(0).masked(Mask::new(1 << i).unwrap()),
                v(0),
                c(i),
            )
        })
        .chain([un(UnaryOp::Mov, o(1), v(1)), Inst::End])
        .collect();
    let p = encode_program(&rows).unwrap();
    assert_eq!(
        p.code,
        [
            0x6000_1000,
            0x6000_1081,
            0x6000_1102,
            0x6000_1183,
            0x4C20_1004,
            0x8800_0000
        ]
    );
    assert_eq!(p.descriptors, [0x6C368, 0x6C364, 0x6C362, 0x6C361, 0x36F]);
}

#[test]
fn limits_are_errors() {
    let long = vec![Inst::Nop; 513];
    assert_eq!(
        encode_program(&long),
        Err(EncodeError::TooManyWords {
            words: 513,
            limit: 512
        })
    );
    assert!(encode_program(&long[..512]).is_ok());
    assert!(encode_program_with_limit(&long, 4096).is_ok());

    // 129 full-mask moves with pairwise different swizzles need 129 descriptors.
    let moves: Vec<Inst> = (0..129u8)
        .map(|s| un(UnaryOp::Mov, o(0), v(0).swizzled(Swizzle::from_selector(s))))
        .collect();
    let e = encode_program(&moves).unwrap_err();
    assert!(
        matches!(e, EncodeError::TooManyDescriptors { limit: 128, .. }),
        "{e}"
    );
    assert_eq!(
        encode_program(&moves[..128]).map(|p| p.descriptors.len()),
        Ok(128)
    );

    // 33 MADs with different descriptors: the 33rd finds no slot below 32.
    let mads: Vec<Inst> = (0..33u8)
        .map(|s| mad(o(0), v(0).swizzled(Swizzle::from_selector(s)), c(0), r(0)))
        .collect();
    assert_eq!(
        encode_program(&mads[..32]).map(|p| p.descriptors.len()),
        Ok(32)
    );
    assert_eq!(
        encode_program(&mads),
        Err(EncodeError::MadDescriptor { index: 32 })
    );

    // A descriptor number that does not fit the field.
    let m = mad(o(0), v(0), c(0), r(0));
    assert_eq!(
        encode_inst(&m, 32),
        Err(EncodeError::DescriptorField { desc: 32, bits: 5 })
    );
    assert!(encode_inst(&un(UnaryOp::Mov, o(0), v(0)), 128).is_err());
}

#[test]
fn operand_rules_are_errors_not_misencodings() {
    use crate::error::InstError;
    use crate::inst::Form;
    // A constant in src2 of the normal form (it has 5 bits).
    let bad = Inst::Binary {
        op: BinaryOp::Add,
        form: Form::Normal,
        dst: o(0),
        src1: v(0),
        src2: c(1),
    };
    assert!(matches!(
        encode_inst(&bad, 0),
        Err(EncodeError::Inst {
            source: InstError::ConstInNarrowSlot { slot: "src2", .. },
            ..
        })
    ));
    // MAD form with a constant in src3; MADI with one in src2.
    let bad = Inst::Mad {
        form: Form::Normal,
        dst: o(0),
        src1: v(0),
        src2: r(0),
        src3: c(0),
    };
    assert!(encode_inst(&bad, 0).is_err());
    let bad = Inst::Mad {
        form: Form::Inverted,
        dst: o(0),
        src1: v(0),
        src2: c(0),
        src3: r(0),
    };
    assert!(encode_inst(&bad, 0).is_err());
    // Two different inputs, reported with the instruction's position.
    let prog = [
        un(UnaryOp::Mov, rd(0), v(0)),
        Inst::Binary {
            op: BinaryOp::Mul,
            form: Form::Normal,
            dst: o(0),
            src1: v(0),
            src2: v(1),
        },
    ];
    assert!(matches!(
        encode_program(&prog),
        Err(EncodeError::Inst {
            index: 1,
            source: InstError::TwoInputs { .. }
        })
    ));
}
