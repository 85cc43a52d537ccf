//! One deliberately broken program per Flash rule, each caught with the right error number.
//!
//! Programs are written in assembly where the assembler can express the mistake, and patched
//! at the byte level where it cannot (the assembler refuses, like Adobe's, what has no
//! spelling). Every case asserts the complete list of error numbers, so that a rule firing
//! where it should not shows up too.

use backend_agal::validate::Rule;
use backend_agal::{Profile, Stage, Version, asm, validate, validate_pair};

fn vs(text: &str, v: Version) -> Vec<u8> {
    asm::assemble(text, Stage::Vertex, v).unwrap_or_else(|e| panic!("{text}: {e}"))
}
fn fs(text: &str, v: Version) -> Vec<u8> {
    asm::assemble(text, Stage::Fragment, v).unwrap_or_else(|e| panic!("{text}: {e}"))
}
fn codes(bytes: &[u8], p: Profile) -> Vec<u32> {
    match validate(bytes, p) {
        Ok(_) => vec![],
        Err(e) => e.iter().map(|e| e.code()).collect(),
    }
}
fn pair_codes(v: &[u8], f: &[u8], p: Profile) -> Vec<u32> {
    match validate_pair(v, f, p) {
        Ok(_) => vec![],
        Err(e) => e.iter().map(|e| e.code()).collect(),
    }
}
/// Overwrites a field of token `k` (from 0): 4 = destination, 8 = source 1, 16 = source 2.
fn patch(bytes: &mut [u8], k: usize, at: usize, value: &[u8]) {
    let start = 7 + 24 * k + at;
    bytes[start..start + value.len()].copy_from_slice(value);
}
fn src(ty: u64, num: u64, swizzle: u64) -> [u8; 8] {
    (num | swizzle << 24 | ty << 32).to_le_bytes()
}

use Profile::{Baseline as B, BaselineConstrained as BC, Standard as S, StandardExtended as SX};
use Version::{V1, V2, V3};

const OK_VS: &str = "mov op, va0\n";
const OK_FS: &str = "mov oc, v0\n";

#[test]
fn valid_programs_pass() {
    assert_eq!(codes(&vs(OK_VS, V1), B), [0u32; 0]);
    assert_eq!(codes(&fs(OK_FS, V1), B), [0u32; 0]);
    let ifs = "ife v0.x, fc0.x\nmov ft0, v0\nels\nmov ft0, fc1\neif\nmov oc, ft0\n";
    assert_eq!(codes(&fs(ifs, V2), S), [0u32; 0]);
    let tex = "tex ft0, v0, fs0 <2d,linear,repeat,mipnone>\ntex ft1, v1, fs0 <2d,linear,repeat,mipnone>\nadd oc, ft0, ft1";
    assert_eq!(codes(&fs(tex, V1), B), [0u32; 0]);
    assert_eq!(
        codes(&vs("mov vt0, iid\nadd op, vt0, va15", V3), SX),
        [0u32; 0]
    );
}

#[test]
fn header_and_size() {
    assert_eq!(codes(&[], B), [3615]);
    assert_eq!(codes(&[0xa0, 1, 0, 0, 0, 0xa1, 1], B), [3615]);
    let mut p = fs(OK_FS, V1);
    p.push(0);
    assert_eq!(codes(&p, B), [3615]);
    let mut p = fs(OK_FS, V1);
    p[0] = 0xa1;
    assert_eq!(codes(&p, B), [3616]);
    let mut p = fs(OK_FS, V1);
    p[1] = 4;
    assert_eq!(codes(&p, B), [3617]);
    let mut p = fs(OK_FS, V1);
    p[5] = 0xa0;
    assert_eq!(codes(&p, B), [3618]);
    let mut p = fs(OK_FS, V1);
    p[6] = 2;
    assert_eq!(codes(&p, B), [3619]);
    assert_eq!(codes(&fs(OK_FS, V2), B), [3725]);
    assert_eq!(codes(&fs(OK_FS, V3), S), [3725]);
    let long = "mov ft0, v0\n".repeat(200) + OK_FS;
    assert_eq!(codes(&fs(&long, V1), B), [3629]);
}

#[test]
fn opcodes() {
    let mut p = fs(OK_FS, V1);
    patch(&mut p, 0, 0, &0xffu32.to_le_bytes());
    assert_eq!(codes(&p, B), [3620, 3634]);
    let mut p = fs(OK_FS, V1);
    patch(&mut p, 0, 0, &0x2bu32.to_le_bytes()); // sgn
    assert_eq!(codes(&p, B), [3621, 3634]);
    // kil in a vertex program: assembled as fragment, then relabelled.
    let mut p = fs("kil fc0.x\n", V1);
    p[6] = 0;
    p.extend_from_slice(&vs(OK_VS, V1)[7..]);
    assert_eq!(codes(&p, B), [3622]);
    // ddx in a version 1 program.
    let mut p = fs("ddx ft0, v0\nmov oc, ft0", V2);
    p[1] = 1;
    assert_eq!(codes(&p, B), [3726]);
}

#[test]
fn unused_and_reserved_fields() {
    let mut p = fs("kil v0.x\nmov oc, v0", V1);
    patch(&mut p, 0, 4, &0x020f_0000u32.to_le_bytes());
    assert_eq!(codes(&p, B), [3627]);
    let mut p = fs(OK_FS, V1);
    patch(&mut p, 0, 16, &src(1, 0, 0xe4));
    assert_eq!(codes(&p, B), [3636]);
    let mut p = fs(OK_FS, V1);
    patch(&mut p, 0, 4, &0x130f_0000u32.to_le_bytes()); // bit 28
    assert_eq!(codes(&p, B), [3654, 3634]);
    let mut p = fs(OK_FS, V1);
    patch(
        &mut p,
        0,
        8,
        &(u64::from_le_bytes(src(4, 0, 0xe4)) | 1 << 40 | 1 << 36).to_le_bytes(),
    );
    assert_eq!(codes(&p, B), [3654]);
    let mut p = fs(OK_FS, V1);
    patch(&mut p, 0, 8, &src(8, 0, 0xe4));
    assert_eq!(codes(&p, B), [3655]);
    let mut p = fs(OK_FS, V1);
    patch(&mut p, 0, 4, &0x0300_0000u32.to_le_bytes());
    assert_eq!(codes(&p, B), [3653, 3634]);
}

#[test]
fn register_directions_and_stages() {
    assert_eq!(codes(&fs("mov ft0, fs0\nmov oc, v0", V1), B), [3638]);
    let mut p = vs("mov op, vc0", V1);
    patch(&mut p, 0, 8, &src(5, 0, 0xe4));
    assert_eq!(codes(&p, B), [3637]);
    assert_eq!(codes(&vs("mov op, v0", V1), B), [3644]);
    let mut p = fs(OK_FS, V1);
    patch(&mut p, 0, 8, &src(0, 0, 0xe4));
    assert_eq!(codes(&p, B), [3645]);
    assert_eq!(codes(&fs("mov ft0, oc\nmov oc, v0", V1), B), [3646]);
    assert_eq!(codes(&fs("mov fs0, v0\nmov oc, v0", V1), B), [3649]);
    assert_eq!(codes(&fs("mov v0, fc0\nmov oc, v0", V1), B), [3650]);
    assert_eq!(codes(&vs("mov va0, vc0\nmov op, va0", V1), B), [3651]);
    assert_eq!(codes(&vs("mov vc0, va0\nmov op, va0", V1), B), [3652]);
}

#[test]
fn index_bounds() {
    assert_eq!(
        codes(&fs("tex ft0, v0, fs8 <2d>\nmov oc, ft0", V1), B),
        [3656]
    );
    assert_eq!(codes(&fs("mov oc, v8", V1), B), [3657]);
    assert_eq!(codes(&vs("mov op, va8", V1), B), [3658]);
    assert_eq!(codes(&vs("mov op, va8", V3), SX), [0u32; 0]);
    assert_eq!(codes(&vs("mov op, vc128", V1), B), [3659]);
    assert_eq!(codes(&vs("m44 op, va0, vc125", V1), B), [3659]);
    assert_eq!(codes(&fs("mov oc, fc28", V1), B), [3659]);
    assert_eq!(codes(&fs("mov oc, fc63", V2), S), [0u32; 0]);
    assert_eq!(codes(&fs("mov oc, v0\nmov oc1, v0", V1), B), [3660]);
    assert_eq!(codes(&vs("mov vt8, va0\nmov op, vt8", V1), B), [3661, 3661]);
    assert_eq!(codes(&fs("mov ft7, v0\nmov oc, ft7", V1), BC), [3661, 3661]);
    assert_eq!(codes(&fs("mov ft7, v0\nmov oc, ft7", V1), B), [0u32; 0]);
    assert_eq!(codes(&fs("mov od, v0.x\nmov oc, v0", V1), B), [3749]);
    assert_eq!(codes(&fs("mov ft0, od\nmov oc, v0", V1), B), [3749]);
    assert_eq!(codes(&fs("mov od1.x, v0\nmov oc, v0", V2), S), [3749]);
}

#[test]
fn relative_addressing() {
    // `mov oc, ft0[fc0.x+0]`: relative in a fragment program.
    let mut p = fs(OK_FS, V1);
    patch(
        &mut p,
        0,
        8,
        &(u64::from_le_bytes(src(2, 0, 0xe4)) | 1 << 40 | 1 << 63).to_le_bytes(),
    );
    assert_eq!(codes(&p, B), [3639]);
    // `mov op, vt0[va0.x+0]`: relative into a temporary.
    let mut p = vs(OK_VS, V1);
    patch(
        &mut p,
        0,
        8,
        &(u64::from_le_bytes(src(2, 0, 0xe4)) | 1 << 63).to_le_bytes(),
    );
    assert_eq!(codes(&p, B), [3640]);
    // Index register of type varying.
    let mut p = vs(OK_VS, V1);
    patch(
        &mut p,
        0,
        8,
        &(u64::from_le_bytes(src(1, 0, 0xe4)) | 4 << 40 | 1 << 63).to_le_bytes(),
    );
    assert_eq!(codes(&p, B), [3642]);
    // A direct source with an offset.
    let mut p = vs(OK_VS, V1);
    let mut field = src(0, 0, 0xe4);
    field[2] = 3; // offset 3
    patch(&mut p, 0, 8, &field);
    assert_eq!(codes(&p, B), [3643]);
    assert_eq!(
        codes(&vs("add op, vc[va0.x+0], vc[va1.x+4]", V1), B),
        [3626, 3625]
    );
    assert_eq!(
        codes(&vs("mov vt0, va0\nmov op, vc[vt0.y+0]", V1), B),
        [0u32; 0]
    );
    assert_eq!(
        codes(&vs("mov vt0.x, va0\nmov op, vc[vt0.y+0]", V1), B),
        [3648]
    );
}

#[test]
fn operand_pairs() {
    assert_eq!(codes(&vs("add op, vc0, vc1", V1), B), [3625]);
    assert_eq!(codes(&vs("m44 op, va0, vc0.yyyy", V1), B), [3689]);
    assert_eq!(codes(&fs("kil v0.xy\nmov oc, v0", V1), B), [3703]);
    assert_eq!(
        codes(&fs("ife v0.x, fc0\nmov ft0, v0\neif\nmov oc, v0", V2), S),
        [3703]
    );
    assert_eq!(
        codes(&fs("ife v0.x, v0.x\nmov ft0, v0\neif\nmov oc, v0", V2), S),
        [3758]
    );
}

#[test]
fn temporaries_and_masks() {
    assert_eq!(codes(&fs("mov oc, ft0", V1), B), [3647]);
    assert_eq!(codes(&fs("mov ft0.x, v0\nmov oc, ft0", V1), B), [3648]);
    assert_eq!(codes(&fs("mov ft0.x, v0\nmov oc, ft0.x", V1), B), [0u32; 0]);
    assert_eq!(codes(&fs("nrm ft0, v0\nmov oc, ft0", V1), B), [3628, 3648]);
    // Every lane a swizzle names counts as read, whatever the destination mask.
    assert_eq!(
        codes(
            &fs(
                "mov ft0.x, v0\nmov ft1, v0\nmov ft1.y, ft0\nmov oc, ft1",
                V1
            ),
            B
        ),
        [3648]
    );
    assert_eq!(
        codes(
            &fs(
                "mov ft0.x, v0\nmov ft1, v0\nmov ft1.y, ft0.x\nmov oc, ft1",
                V1
            ),
            B
        ),
        [0u32; 0]
    );
    let tex = |coord: &str| {
        codes(
            &fs(
                &format!("mov ft0.xy, v0\ntex ft1, {coord}, fs0 <2d>\nmov oc, ft1"),
                V1,
            ),
            B,
        )
    };
    assert_eq!(tex("ft0"), [3648]);
    assert_eq!(tex("ft0.xy"), [0u32; 0]);
    assert_eq!(
        codes(
            &fs("crs ft0.xyz, v0, v1\nmov ft0.w, v0\nmov oc, ft0", V1),
            B
        ),
        [0u32; 0]
    );
}

#[test]
fn outputs_and_varyings() {
    assert_eq!(codes(&fs("mov ft0, v0", V1), B), [3634]);
    assert_eq!(codes(&fs("mov oc.xyz, v0", V1), B), [3701]);
    assert_eq!(codes(&fs("mov oc, v0\nmov oc, v1", V1), B), [3744]);
    assert_eq!(codes(&vs("mov op.xyz, va0", V1), B), [3635]);
    assert_eq!(
        codes(&vs("mov op.xy, va0\nmov op.zw, va1", V1), B),
        [0u32; 0]
    );
    assert_eq!(codes(&vs("mov op, va0\nmov v0.xy, va0", V1), B), [3633]);
    assert_eq!(codes(&fs("mov od, v0\nmov oc, v0", V2), S), [3756]);
    assert_eq!(codes(&fs("mov od.x, v0\nmov oc, v0", V2), S), [0u32; 0]);
    let mut p = fs("mov od.x, v0\nmov oc, v0", V2);
    p[6] = 0; // now a vertex program writing od
    patch(&mut p, 0, 8, &src(1, 0, 0xe4));
    patch(&mut p, 1, 4, &0x030f_0000u32.to_le_bytes());
    patch(&mut p, 1, 8, &src(0, 0, 0xe4));
    assert_eq!(codes(&p, S), [3750]);
    assert_eq!(codes(&fs("mov oc, v0\nmov oc2, v0", V2), S), [3775]);
    assert_eq!(codes(&fs("mov oc, v0\nmov oc1, v1", V2), S), [0u32; 0]);
    assert_eq!(
        codes(
            &fs("mov oc, v0\nmov oc1, v1", V2),
            Profile::StandardConstrained
        ),
        [3660]
    );
}

#[test]
fn samplers() {
    let t = |flags: &str| fs(&format!("tex ft0, v0, fs0 <{flags}>\nmov oc, ft0"), V1);
    assert_eq!(codes(&t("cube,linear,miplinear,clamp"), B), [0u32; 0]);
    assert_eq!(codes(&t("cube,linear,miplinear,repeat"), B), [3662]);
    assert_eq!(codes(&t("cube,linear,mipnone,clamp"), B), [3704]);
    assert_eq!(codes(&t("3d,linear"), B), [3664]);
    for (bit_shift, value, code) in [
        (60, 6u64, 3665),
        (56, 3, 3666),
        (52, 4, 3667),
        (48, 8, 3668),
    ] {
        let mut p = t("2d");
        let field = u64::from_le_bytes(p[7 + 16..7 + 24].try_into().unwrap()) | value << bit_shift;
        patch(&mut p, 0, 16, &field.to_le_bytes());
        assert_eq!(codes(&p, B), [code], "shift {bit_shift}");
    }
    // tex whose source 2 is a constant register.
    let mut p = t("2d");
    patch(&mut p, 0, 16, &src(1, 0, 0xe4));
    assert_eq!(codes(&p, B), [3693]);
    let two = "tex ft0, v0, fs0 <2d,repeat,linear,mipnone>\ntex ft1, v0, fs0 <2d,repeat,linear,mipnearest>\nadd oc, ft0, ft1";
    let errors = validate(&fs(two, V1), B).unwrap_err();
    assert_eq!(
        (errors[0].rule, errors[0].token),
        (Rule::SamplerMismatch, Some(2))
    );
}

#[test]
fn conditionals() {
    let f = |text: &str| codes(&fs(text, V2), S);
    assert_eq!(f("mov oc, v0\neif"), [3623]);
    let deep = "ife v0.x, fc0.x\n".repeat(5) + "mov ft0, v0\n" + &"eif\n".repeat(5) + "mov oc, v0";
    assert_eq!(f(&deep), [3624]);
    let four = "ife v0.x, fc0.x\n".repeat(4) + "mov ft0, v0\n" + &"eif\n".repeat(4) + "mov oc, v0";
    assert_eq!(f(&four), [0u32; 0]);
    assert_eq!(f("ife v0.x, fc0.x\nmov ft0, v0\nmov oc, v0"), [3751, 3739]);
    assert_eq!(f("ife v0.x, fc0.x\neif\nmov oc, v0"), [3748]);
    assert_eq!(
        f("ife v0.x, fc0.x\nels\nmov ft0, v0\neif\nmov oc, v0"),
        [3748]
    );
    assert_eq!(f("els\nmov oc, v0"), [3752]);
    assert_eq!(
        f("ife v0.x, fc0.x\nmov ft0, v0\nels\nmov ft0, v1\nels\nmov ft0, v2\neif\nmov oc, ft0"),
        [3752]
    );
    assert_eq!(f("ife v0.x, fc0.x\nmov oc, v0\neif"), [3751]);
    assert_eq!(f("ife v0.x, fc0.x\nddx ft0, v0\neif\nmov oc, v0"), [3742]);
    assert_eq!(
        f("ife v0.x, fc0.x\ntex ft0, v0, fs0 <2d>\neif\nmov oc, v0"),
        [0u32; 0]
    );
    assert_eq!(
        f("mov ft1, v0\nife v0.x, fc0.x\ntex ft0, ft1, fs0 <2d>\neif\nmov oc, v0"),
        [3741]
    );
    assert_eq!(
        codes(&vs("ife va0.x, vc0.x\nmov op, va0\neif", V2), S),
        [3751]
    );
}

#[test]
fn instance_id() {
    assert_eq!(codes(&vs("mov op, iid", V2), S), [3789]);
    assert_eq!(codes(&vs("mov iid, vc0\nmov op, va0", V3), SX), [3786]);
    let mut p = fs(OK_FS, V3);
    patch(&mut p, 0, 8, &src(7, 0, 0xe4));
    assert_eq!(codes(&p, SX), [3788]);
}

#[test]
fn native_limits_of_baseline_constrained() {
    let alu = "mov ft0, v0\n".repeat(64) + OK_FS;
    assert_eq!(codes(&fs(&alu, V1), BC), [3716]);
    assert_eq!(codes(&fs(&alu, V1), B), [0u32; 0]);
    let tex = "tex ft0, v0, fs0 <2d>\n".repeat(33) + OK_FS;
    assert_eq!(codes(&fs(&tex, V1), BC), [3717]);
}

#[test]
fn linkage() {
    let v = vs("mov op, va0\nmov v0, va1", V1);
    assert_eq!(pair_codes(&v, &fs("add oc, v0, v1", V1), B), [3632]);
    assert_eq!(pair_codes(&v, &fs(OK_FS, V1), B), [0u32; 0]);
    assert_eq!(pair_codes(&fs(OK_FS, V1), &v, B), [3631, 3630]);
    let v2 = vs("mov op, va0\nmov v0, va1", V2);
    assert_eq!(pair_codes(&v2, &fs(OK_FS, V1), S), [3757]);
}

#[test]
fn messages_name_token_and_operand() {
    let e = validate(&fs("mov ft0.x, v0\nmov oc, ft0", V1), B).unwrap_err();
    assert_eq!(
        e[0].to_string(),
        "error #3648: mov reads ft0.yzw, which has not been written (only .x has) (source operand 1 at token 2 of the fragment program)"
    );
    let e = validate(&vs("mov vt8, va0\nmov op, vt8", V1), B).unwrap_err();
    assert_eq!(
        e[0].to_string(),
        "error #3661: vt8 is out of bounds: 8 temporary registers (vt0 to vt7) (destination operand at token 1 of the vertex program)"
    );
}

#[test]
fn every_rule_has_a_distinct_number() {
    let mut seen = std::collections::BTreeSet::new();
    for r in Rule::ALL {
        assert!(seen.insert(r.code()));
        assert!(!r.summary().is_empty());
    }
}
