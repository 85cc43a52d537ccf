//! The validator on the golden programs: it accepts what Flash accepts and rejects
//! `misc_opcodes_vertex` with the errors the independent checker lists, in the same order.

use crate::common;

use backend_agal::validate::Rule;
use backend_agal::{Field, Profile, Version, validate, validate_pair};

fn profile_for(name: &str) -> Profile {
    match common::listing_header(name).0 {
        Version::V1 => Profile::Baseline,
        _ => Profile::Standard,
    }
}

#[test]
fn accepts_the_programs_flash_accepts() {
    for name in [
        "basic_m44_vertex",
        "basic_mov_vertex",
        "basic_mov_fragment",
        "fractal_vertex",
        "fractal_fragment",
        "raytrace_vertex",
        "relative_vertex",
        "misc_opcodes_fragment",
    ] {
        let r = validate(&common::bytes(name), profile_for(name));
        assert!(r.is_ok(), "{name}: {:#?}", r.unwrap_err());
    }
}

#[test]
fn rejects_misc_opcodes_vertex_like_the_independent_checker() {
    let errors = validate(&common::bytes("misc_opcodes_vertex"), Profile::Standard).unwrap_err();
    let got: Vec<(u32, Option<usize>, Option<Field>)> = errors
        .iter()
        .map(|e| (e.code(), e.token, e.operand))
        .collect();
    use Field::*;
    assert_eq!(
        got,
        [
            (3647, Some(5), Some(Source2)),
            (3628, Some(5), Some(Destination)),
            (3648, Some(6), Some(Source2)),
            (3628, Some(6), Some(Destination)),
            (3648, Some(7), Some(Source1)),
            (3648, Some(7), Some(Source2)),
        ]
    );
    assert_eq!(
        errors[0].to_string(),
        "error #3647: m33 reads vt4, which has not been written (source operand 2 at token 5 of the vertex program)"
    );
}

#[test]
fn raytrace_fragment_is_rejected_only_for_its_cube_sampler_without_mipmaps() {
    // The project follows the rule as agal-reference.md states it (#3704); the golden README
    // allows either this or acceptance.
    let errors = validate(&common::bytes("raytrace_fragment"), Profile::Standard).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        (errors[0].rule, errors[0].token),
        (Rule::CubeNoMipmap, Some(828))
    );
}

#[test]
fn golden_pairs() {
    for (v, f) in [
        ("basic_m44_vertex", "basic_mov_fragment"),
        ("basic_mov_vertex", "basic_mov_fragment"),
        ("fractal_vertex", "fractal_fragment"),
    ] {
        let r = validate_pair(&common::bytes(v), &common::bytes(f), Profile::Baseline);
        assert!(r.is_ok(), "{v} + {f}: {:#?}", r.unwrap_err());
    }
    let e = validate_pair(
        &common::bytes("raytrace_vertex"),
        &common::bytes("raytrace_fragment"),
        Profile::Standard,
    )
    .unwrap_err();
    assert_eq!(e.iter().map(|e| e.code()).collect::<Vec<_>>(), [3704]);
    // The misc programs are not a pair: v0 is read but never written.
    let e = validate_pair(
        &common::bytes("relative_vertex"),
        &common::bytes("misc_opcodes_fragment"),
        Profile::Standard,
    )
    .unwrap_err();
    assert_eq!(e.iter().map(|e| e.code()).collect::<Vec<_>>(), [3632]);
}

#[test]
fn info_of_a_golden_program() {
    let info = validate(&common::bytes("basic_m44_vertex"), Profile::Baseline).unwrap();
    assert_eq!(info.tokens, 2);
    assert_eq!(info.attributes, 0b11);
    assert_eq!(info.constants, 4);
    assert_eq!(info.varyings_written[0], backend_agal::Mask::XYZW);
    let info = validate(&common::bytes("relative_vertex"), Profile::Standard).unwrap();
    assert!(info.indirect_constants);
    assert_eq!(info.temporaries, 2);
    let info = validate(&common::bytes("raytrace_vertex"), Profile::StandardExtended).unwrap();
    assert_eq!(info.version, Version::V2);
}
