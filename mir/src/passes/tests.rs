//! Pass tests that check what the printed MIR cannot show: register pressure, results within
//! a tolerance, special values in the interpreter, and the finiteness analysis. Tests of what a
//! pass makes of a small function are text files in `mir/filetests/` (see
//! `mir/tests/filetests.rs`).

use crate::arena::Arena;
use crate::eval::{Env, NoTextures, Outcome, run};
use crate::func::{BlockId, Function, Terminator};
use crate::inst::{CmpOp, Op, Operand};
use crate::module::{Input, Module, Output, Stage};
use crate::print::print_function;
use crate::types::{Swizzle, Ty};
use crate::verify::verify;

use super::*;

/// A vertex module with `inputs` vec4 inputs and one vec4 output, code to be filled in.
fn module(inputs: usize) -> Module {
    let mut ins = Arena::new();
    for i in 0..inputs {
        ins.push(Input::at(format!("in{i}"), i as u32, 4));
    }
    Module {
        stage: Stage::Vertex,
        geometry: None,
        entry_point: "main".into(),
        inputs: ins,
        outputs: vec![Output {
            name: "out".into(),
            location: Some(0),
            builtin: None,
            lanes: 4,
        }],
        uniforms: Vec::new(),
        samplers: Arena::new(),
        function: Function::new("main"),
        source_files: Vec::new(),
    }
}

fn span() -> crate::span::Span {
    crate::span::Span::default()
}

fn input(f: &mut Function, b: BlockId, i: usize) -> Operand {
    Operand::new(f.ins(
        b,
        Op::LoadInput(crate::arena::Handle::new(i)),
        Vec::new(),
        Ty::float(4),
        span(),
    ))
}

fn konst(f: &mut Function, b: BlockId, lanes: &[f32]) -> Operand {
    Operand::new(f.ins(
        b,
        Op::float_const(lanes),
        Vec::new(),
        Ty::float(lanes.len() as u8),
        span(),
    ))
}

fn op(f: &mut Function, b: BlockId, op: Op, args: Vec<Operand>, lanes: u8) -> Operand {
    Operand::new(f.ins(b, op, args, Ty::float(lanes), span()))
}

fn text(m: &Module) -> String {
    print_function(Some(m), &m.function)
}

/// Runs the module on `inputs`.
fn outputs(m: &Module, inputs: &[[f32; 4]]) -> Outcome {
    let env = Env {
        inputs,
        uniforms: &[[0.0; 4]; 16],
        bools: &[false; 16],
        textures: &NoTextures,
    };
    run(m, &env).expect("runs")
}

/// Applies `pass`, checks the verifier, and that results on `cases` did not change.
fn check(m: &mut Module, pass: impl Fn(&mut Function) -> bool, cases: &[Vec<[f32; 4]>]) -> bool {
    verify(m).expect("valid before");
    let before: Vec<Outcome> = cases.iter().map(|c| outputs(m, c)).collect();
    let changed = pass(&mut m.function);
    verify(m).unwrap_or_else(|e| panic!("{e}\n{}", text(m)));
    let after: Vec<Outcome> = cases.iter().map(|c| outputs(m, c)).collect();
    assert_eq!(before, after, "results changed:\n{}", text(m));
    changed
}

fn ret(f: &mut Function, b: BlockId, v: Operand) {
    f.blocks[b].term = Terminator::Return(vec![v]);
}

#[test]
fn pack_puts_independent_scalars_in_one_instruction() {
    // x = a.x * k.y; y = x + a.z; z = a.z * k.w; u = a.y * 2; w = a.w * 3
    // out = vec4(y, z, u, w)
    let mut m = module(2);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let k = input(f, e, 1);
    let lane = |o: Operand, l: u8| o.reswizzled(Swizzle::splat(l));
    let x = op(f, e, Op::Mul, vec![lane(a, 0), lane(k, 1)], 1);
    let y = op(f, e, Op::Add, vec![x, lane(a, 2)], 1);
    let z = op(f, e, Op::Mul, vec![lane(a, 2), lane(k, 3)], 1);
    let two = konst(f, e, &[2.0]);
    let u = op(f, e, Op::Mul, vec![lane(a, 1), two], 1);
    let three = konst(f, e, &[3.0]);
    let w = op(f, e, Op::Mul, vec![lane(a, 3), three], 1);
    let out = op(f, e, Op::Construct, vec![y, z, u, w], 4);
    ret(f, e, out);
    let cases = [
        vec![[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]],
        vec![[-1.5, 0.0, 0.25, 9.0], [2.0, -3.0, 0.5, -1.0]],
    ];
    let before = crate::analysis::liveness::pressure(&m.function);
    let pack_then_dce = |f: &mut Function| {
        let changed = vectorize::run(f);
        dce::run(f);
        changed
    };
    assert!(check(&mut m, pack_then_dce, &cases));
    let t = text(&m);
    // `x` is read before `z`, so `z` moves up to `x`; the constants merge into one.
    assert!(t.contains("vec2 = mul v0.xz, v1.yw"), "{t}");
    assert!(t.contains("vec2 = mul v0.yw, v"), "{t}");
    assert!(t.contains("const 2.0, 3.0"), "{t}");
    assert_eq!(t.matches("= mul").count(), 2, "{t}");
    let after = crate::analysis::liveness::pressure(&m.function);
    assert!(after.values < before.values, "{before:?} -> {after:?}\n{t}");
}

#[test]
fn sink_moves_work_to_its_use_without_lengthening_operands() {
    // t1 = in0 * in1 and t2 = in0 - in1 are computed first but read last, after a chain
    // s1..s3 that needs one register.
    let mut m = module(2);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let b = input(f, e, 1);
    let t1 = op(f, e, Op::Mul, vec![a, b], 4);
    let t2 = op(f, e, Op::Sub, vec![a, b], 4);
    let s1 = op(f, e, Op::Add, vec![a, b], 4);
    let s2 = op(f, e, Op::Sin, vec![s1], 4);
    let s3 = op(f, e, Op::Cos, vec![s2], 4);
    let u1 = op(f, e, Op::Add, vec![s3, t1], 4);
    let u2 = op(f, e, Op::Add, vec![u1, t2], 4);
    ret(f, e, u2);
    let before = crate::analysis::liveness::pressure(&m.function);
    assert!(check(
        &mut m,
        sink::run,
        &[vec![[1.0, 2.0, 3.0, 4.0], [0.5; 4]]]
    ));
    let t = text(&m);
    let mul = t.find("= mul").unwrap();
    let cos = t.find("= cos").unwrap();
    assert!(mul > cos, "the multiply moves to just before its use:\n{t}");
    let after = crate::analysis::liveness::pressure(&m.function);
    assert!(after.values < before.values, "{before:?} -> {after:?}");
    // A second run finds nothing to do.
    assert!(!sink::run(&mut m.function));
}

/// Runs `pass` and checks results within a relative tolerance (expansions approximate).
fn check_close(
    m: &mut Module,
    pass: impl Fn(&mut Function) -> bool,
    cases: &[Vec<[f32; 4]>],
    tolerance: f32,
) -> bool {
    verify(m).expect("valid before");
    let before: Vec<Outcome> = cases.iter().map(|c| outputs(m, c)).collect();
    let changed = pass(&mut m.function);
    verify(m).unwrap_or_else(|e| panic!("{e}\n{}", text(m)));
    for (case, b) in cases.iter().zip(&before) {
        let a = outputs(m, case);
        let (Outcome::Outputs(x), Outcome::Outputs(y)) = (b, &a) else {
            panic!("{b:?} {a:?}");
        };
        for (p, q) in x.iter().flatten().zip(y.iter().flatten()) {
            let scale = p.abs().max(1.0);
            assert!(
                (p - q).abs() <= tolerance * scale,
                "{case:?}: {p} became {q}\n{}",
                text(m)
            );
        }
    }
    changed
}

/// One module computing `ops` of input 0 (one lane each, `in.x` and `in.y` as operands).
fn unary_ops(ops: &[Op]) -> Module {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let v = input(f, e, 0);
    let x = v.reswizzled(Swizzle::splat(0));
    let y = v.reswizzled(Swizzle::splat(1));
    let mut lanes = Vec::new();
    for &o in ops {
        let args = match o.arity() {
            Some(2) => vec![x, y],
            _ => vec![x],
        };
        lanes.push(op(f, e, o, args, 1));
    }
    let mut acc = lanes[0];
    for &l in &lanes[1..] {
        // Sum with distinct weights, so every result counts.
        let k = konst(f, e, &[1.618]);
        acc = op(f, e, Op::Mad, vec![acc, k, l], 1);
    }
    let out = op(f, e, Op::Construct, vec![acc, acc, acc, acc], 4);
    ret(f, e, out);
    m
}

#[test]
fn expand_leaves_only_what_each_target_has() {
    let ops = [
        Op::Sin,
        Op::Cos,
        Op::Div,
        Op::Pow,
        Op::Sqrt,
        Op::Round,
        Op::RoundEven,
        Op::Trunc,
        Op::Ceil,
        Op::Sign,
        Op::Fract,
        Op::Floor,
    ];
    // x over several turns (both signs, ties for rounding), y > 0 for pow and division.
    let cases: Vec<Vec<[f32; 4]>> = [-7.25, -2.5, -0.5, 0.0, 0.3, 1.5, 2.5, 3.7, 12.9]
        .iter()
        .map(|&x: &f32| vec![[x, 0.75 + x.abs() * 0.1, 0.0, 0.0]])
        .collect();
    for (name, what) in [
        ("floor kept", everything_expanded(false)),
        ("fract kept", everything_expanded(true)),
    ] {
        let mut m = unary_ops(&ops);
        // pow and sqrt of a negative x are undefined: feed them |x|.
        for &i in &m.function.blocks[m.function.entry].insts.clone() {
            if matches!(m.function.insts[i].op, Op::Pow | Op::Sqrt) {
                m.function.insts[i].args[0].abs = true;
            }
        }
        let run = |f: &mut Function| expand::run(f, &what);
        assert!(check_close(&mut m, run, &cases, 1e-5), "{name}");
        let t = text(&m);
        let last: &str = if what.floor { "= floor" } else { "= fract" };
        let gone = [
            "= sin", "= cos", "= div", "= pow", "= sqrt", "= round", "= trunc", "= ceil", "= sign",
            last,
        ];
        for g in gone {
            assert!(!t.contains(g), "{name}: {g} left:\n{t}");
        }
    }
}

/// Every expansion on, with `floor` expanded through `fract` or the reverse (the back ends
/// choose their own sets; these cover every expansion).
fn everything_expanded(floor: bool) -> expand::Expand {
    expand::Expand {
        sub: true,
        mad: true,
        div: true,
        sqrt: true,
        pow: true,
        sin_cos: true,
        floor,
        fract: !floor,
        rounding: true,
        sat: true,
        dph: true,
        cross: true,
        normalize: 0b11110,
        dot2: true,
    }
}

#[test]
fn expand_keeps_sin_accurate_over_many_turns() {
    let mut m = unary_ops(&[Op::Sin, Op::Cos]);
    let cases: Vec<Vec<[f32; 4]>> = (-40..=40)
        .map(|k| vec![[k as f32 * 0.37, 0.0, 0.0, 0.0]])
        .collect();
    let what = everything_expanded(false);
    assert!(check_close(&mut m, |f| expand::run(f, &what), &cases, 1e-5));
}

/// `out = in.x > 0 ? 1 / in.x : 0`.
fn guarded_reciprocal() -> Module {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let v = input(f, e, 0);
    let x = v.reswizzled(Swizzle::splat(0));
    let zero = konst(f, e, &[0.0]);
    let c = Operand::new(f.ins(e, Op::Cmp(CmpOp::Gt), vec![x, zero], Ty::bool(1), span()));
    let r = op(f, e, Op::Rcp, vec![x], 1);
    let s = op(f, e, Op::Select, vec![c, r, zero], 1);
    let out = op(f, e, Op::Construct, vec![s, s, s, s], 4);
    ret(f, e, out);
    m
}

#[test]
fn bools_branch_around_a_select_of_a_possibly_infinite_value() {
    // With branches the select must not become (1/x) * c, NaN at x = 0.
    let mut m = guarded_reciprocal();
    let cases = [
        vec![[0.0; 4]],
        vec![[2.0, 0.0, 0.0, 0.0]],
        vec![[-1.0, 0.0, 0.0, 0.0]],
    ];
    assert!(check(&mut m, |f| bools::run(f, true), &cases));
    let t = text(&m);
    assert!(t.contains("; if, merge"), "a branch, not a blend:\n{t}");
    // Without branches (AGAL 1) it is the blend, and NaN at 0 as that hardware computes it.
    let mut m = guarded_reciprocal();
    assert!(bools::run(&mut m.function, false));
    dce::run(&mut m.function);
    verify(&m).unwrap();
    let t = text(&m);
    assert!(!t.contains("; if") && !t.contains("select"), "{t}");
    let Outcome::Outputs(o) = outputs(&m, &cases[0]) else {
        panic!()
    };
    assert!(o[0][0].is_nan(), "{o:?}");
    let Outcome::Outputs(o) = outputs(&m, &cases[1]) else {
        panic!()
    };
    assert_eq!(o[0][0], 0.5);
}

#[test]
fn a_divisor_that_cannot_be_zero_makes_nothing_infinite() {
    // d = in.y - in.z; in.x / (d + float(d == 0)) is finite; in.x / d and 1 / in.w are not,
    // nor is inversesqrt(in.w); inversesqrt(max(in.w, 1e-6)) and sqrt(in.w * in.w) are.
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let v = input(f, e, 0);
    let l = |n| v.reswizzled(Swizzle::splat(n));
    let d = op(f, e, Op::Sub, vec![l(1), l(2)], 1);
    let zero = konst(f, e, &[0.0]);
    let is_zero = Operand::new(f.ins(e, Op::Cmp(CmpOp::Eq), vec![d, zero], Ty::bool(1), span()));
    let flag = op(f, e, Op::BoolToFloat, vec![is_zero], 1);
    let safe = op(f, e, Op::Add, vec![d, flag], 1);
    let guarded = op(f, e, Op::Div, vec![l(0), safe], 1);
    let plain = op(f, e, Op::Div, vec![l(0), d], 1);
    let rcp = op(f, e, Op::Rcp, vec![l(3)], 1);
    let rsq = op(f, e, Op::Rsq, vec![l(3)], 1);
    let eps = konst(f, e, &[1e-6]);
    let floor = op(f, e, Op::Max, vec![l(3), eps], 1);
    let rsq_floor = op(f, e, Op::Rsq, vec![floor], 1);
    let square = op(f, e, Op::Mul, vec![l(3), l(3)], 1);
    let root = op(f, e, Op::Sqrt, vec![square], 1);
    let out = op(f, e, Op::Construct, vec![guarded, plain, rcp, rsq], 4);
    let out2 = op(f, e, Op::Construct, vec![rsq_floor, root, root, root], 4);
    let sum = op(f, e, Op::Add, vec![out, out2], 4);
    ret(f, e, sum);
    let unsafe_values = crate::analysis::finite::maybe_non_finite(&m.function);
    for (v, may) in [
        (guarded, false),
        (rsq_floor, false),
        (root, false),
        (plain, true),
        (rcp, true),
        (rsq, true),
        (sum, true),
    ] {
        assert_eq!(unsafe_values.contains(&v.value), may, "{}", text(&m));
    }
}

#[test]
fn a_comparison_of_an_infinite_value_is_finite() {
    // r = 1 / in.x may be infinite; r < in.y is a bool and float(r < in.y) a 0 or 1,
    // finite; a select carries what it chooses, not its condition.
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let v = input(f, e, 0);
    let l = |n| v.reswizzled(Swizzle::splat(n));
    let r = op(f, e, Op::Rcp, vec![l(0)], 1);
    let c = Operand::new(f.ins(e, Op::Cmp(CmpOp::Lt), vec![r, l(1)], Ty::bool(1), span()));
    let flag = op(f, e, Op::BoolToFloat, vec![c], 1);
    let picked = op(f, e, Op::Select, vec![c, l(2), l(3)], 1);
    let risky = op(f, e, Op::Select, vec![c, r, l(3)], 1);
    let out = op(f, e, Op::Construct, vec![flag, picked, risky, flag], 4);
    ret(f, e, out);
    let unsafe_values = crate::analysis::finite::maybe_non_finite(&m.function);
    for (v, may) in [
        (r, true),
        (c, false),
        (flag, false),
        (picked, false),
        (risky, true),
    ] {
        assert_eq!(unsafe_values.contains(&v.value), may, "{}", text(&m));
    }
}
