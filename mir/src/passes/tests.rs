//! One test per pass: a small function built by hand, the pass run on it, and what it
//! changed — checked on the printed MIR (what a reviewer reads), by the verifier, and by the
//! interpreter (the program still computes the same thing).

use crate::arena::Arena;
use crate::eval::{Env, NoTextures, Outcome, run};
use crate::func::{BlockId, Edge, Function, Structure, Terminator};
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
fn fold_computes_constants_and_branches() {
    let mut m = module(0);
    let f = &mut m.function;
    let e = f.entry;
    let a = konst(f, e, &[1.0, 2.0, 3.0, 4.0]);
    let b = konst(f, e, &[0.5; 4]);
    let s = op(f, e, Op::Mul, vec![a, b], 4);
    ret(f, e, s);
    assert!(check(&mut m, fold::run, &[vec![]]));
    assert!(
        text(&m).contains("= const 0.5, 1.0, 1.5, 2.0"),
        "{}",
        text(&m)
    );
}

#[test]
fn simplify_removes_identities_and_finds_dph() {
    let mut m = module(2);
    let f = &mut m.function;
    let e = f.entry;
    let p = input(f, e, 0);
    let r = input(f, e, 1);
    let one = konst(f, e, &[1.0]);
    let hp = op(
        f,
        e,
        Op::Construct,
        vec![
            p.reswizzled(Swizzle::splat(0)),
            p.reswizzled(Swizzle::splat(1)),
            p.reswizzled(Swizzle::splat(2)),
            one,
        ],
        4,
    );
    let d = op(f, e, Op::Dot(4), vec![hp, r], 1);
    let ones = konst(f, e, &[1.0; 4]);
    let x = op(f, e, Op::Mul, vec![r, ones], 4);
    let quarter = konst(f, e, &[4.0; 4]);
    let y = op(f, e, Op::Div, vec![x, quarter], 4);
    let z = op(f, e, Op::Add, vec![y, d.reswizzled(Swizzle::splat(0))], 4);
    ret(f, e, z);
    let cases = [vec![[1.0, 2.0, 3.0, 9.0], [0.5, -1.0, 2.0, 7.0]]];
    let simplify_then_dce = |f: &mut Function| {
        let changed = simplify::run(f);
        dce::run(f);
        changed
    };
    assert!(check(&mut m, simplify_then_dce, &cases));
    let t = text(&m);
    assert!(t.contains("dph v0.xyz, v1"), "{t}");
    assert!(!t.contains("div"), "x / 4 is x * 0.25:\n{t}");
    assert!(t.contains("const 0.25, 0.25, 0.25, 0.25"), "{t}");
    assert_eq!(t.matches("= mul v1, ").count(), 1, "x * 1 is x:\n{t}");
}

#[test]
fn copyprop_turns_moves_and_lane_constructs_into_swizzles() {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let mv = op(f, e, Op::Mov, vec![a.negated()], 4);
    let c = op(
        f,
        e,
        Op::Construct,
        (0..4)
            .map(|l| mv.reswizzled(Swizzle::splat(3 - l)))
            .collect(),
        4,
    );
    let s = op(f, e, Op::Add, vec![c, a], 4);
    ret(f, e, s);
    assert!(check(&mut m, copyprop::run, &[vec![[1.0, 2.0, 3.0, 4.0]]]));
    assert!(text(&m).contains("add -v0.wzyx, v0"), "{}", text(&m));
}

#[test]
fn copyprop_reads_several_lanes_of_a_construct_from_their_source() {
    // c = (p.x, q.y, p.y, q.w); c.xz (read as xzzz) is p.xy: the construct dies.
    let mut m = module(2);
    let f = &mut m.function;
    let e = f.entry;
    let p = input(f, e, 0);
    let q = input(f, e, 1);
    let lanes = [(p, 0), (q, 1), (p, 1), (q, 3)];
    let c = op(
        f,
        e,
        Op::Construct,
        lanes
            .iter()
            .map(|&(v, l)| v.reswizzled(Swizzle::splat(l)).negated())
            .collect(),
        4,
    );
    let xz = c.reswizzled(Swizzle([0, 2, 2, 2]));
    let s = op(f, e, Op::Mul, vec![xz, q], 4);
    ret(f, e, s);
    let inputs = [vec![[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]];
    assert!(check(&mut m, copyprop::run, &inputs));
    assert!(text(&m).contains("mul -v0.xyyy, v1"), "{}", text(&m));
}

/// `construct(v.x, -v.y, v.y, 0)` of `v`, and what reads it (`dot` reads it through a
/// dot product).
fn signed_lanes(v_op: Option<Op>, dot: bool) -> Module {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let v = match v_op {
        Some(o) => op(f, e, o, vec![a], 4),
        None => a,
    };
    let zero = konst(f, e, &[0.0]);
    let lane = |l: u8| v.reswizzled(Swizzle::splat(l));
    let c = op(
        f,
        e,
        Op::Construct,
        vec![lane(0), lane(1).negated(), lane(1), zero],
        4,
    );
    let r = if dot {
        let d = op(f, e, Op::Dot(4), vec![c, a], 1);
        op(f, e, Op::Add, vec![c, d.reswizzled(Swizzle::splat(0))], 4)
    } else {
        c
    };
    ret(f, e, r);
    m
}

#[test]
fn scaled_makes_signed_lanes_and_zeros_one_multiply() {
    let cases = [vec![[1.5, -2.0, 3.0, 4.0]], vec![[-0.25, 0.5, 0.0, -8.0]]];
    let mut m = signed_lanes(None, false);
    assert!(check(&mut m, scaled::run, &cases));
    let t = text(&m);
    assert!(t.contains("const 1.0, -1.0, 1.0, 0.0"), "{t}");
    assert!(t.contains("= mul v0.xyyx, "), "{t}");
    assert!(!t.contains("construct"), "{t}");
    // A dot product reads the construct (its zero lane makes it a dot3 or a dph): kept.
    let mut m = signed_lanes(None, true);
    assert!(!check(&mut m, scaled::run, &cases), "{}", text(&m));
    // A vector that may be infinite: 0 * inf is not 0, kept.
    let mut m = signed_lanes(Some(Op::Rsq), false);
    let positive = [vec![[1.5, 0.0, 3.0, 4.0]]];
    assert!(!check(&mut m, scaled::run, &positive), "{}", text(&m));
}

#[test]
fn gather_multiplies_lanes_of_uniform_registers_in_place() {
    // construct(u4.x, u5.x, u6.x) * in0.x: three scalar products, one per register.
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let rows: Vec<Operand> = (4..7)
        .map(|r| op(f, e, Op::LoadUniform { register: r }, vec![], 4))
        .map(|u| u.reswizzled(Swizzle::splat(0)))
        .collect();
    let c = op(f, e, Op::Construct, rows.clone(), 3);
    let s = op(f, e, Op::Mul, vec![c, a.reswizzled(Swizzle::splat(0))], 3);
    ret(f, e, s.reswizzled(Swizzle([0, 1, 2, 2])));
    assert!(check(&mut m, gather::run, &[vec![[1.5, 2.0, 3.0, 4.0]]]));
    let t = text(&m);
    assert_eq!(t.matches(": f32 = mul ").count(), 3, "{t}");
    // Two operands from uniforms (a second constant in one instruction): kept.
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let rows: Vec<Operand> = (4..7)
        .map(|r| op(f, e, Op::LoadUniform { register: r }, vec![], 4))
        .map(|u| u.reswizzled(Swizzle::splat(0)))
        .collect();
    let u = op(f, e, Op::LoadUniform { register: 8 }, vec![], 4);
    let c = op(f, e, Op::Construct, rows, 3);
    let s = op(f, e, Op::Mul, vec![c, u.reswizzled(Swizzle::splat(0))], 3);
    ret(f, e, s.reswizzled(Swizzle([0, 1, 2, 2])));
    assert!(!check(&mut m, gather::run, &[vec![[1.5, 2.0, 3.0, 4.0]]]));
}

#[test]
fn cse_merges_identical_instructions() {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let x = op(f, e, Op::Add, vec![a, a], 4);
    let y = op(f, e, Op::Add, vec![a, a], 4);
    let z = op(f, e, Op::Mul, vec![x, y], 4);
    ret(f, e, z);
    assert!(check(&mut m, cse::run, &[vec![[1.0, 2.0, 3.0, 4.0]]]));
    assert!(text(&m).contains("mul v1, v1"), "{}", text(&m));
}

#[test]
fn dce_removes_unused_instructions_and_parameters() {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let unused = op(f, e, Op::Sin, vec![a], 4);
    let next = f.new_block(span());
    let p = f.add_param(next, Ty::float(4));
    f.blocks[e].term = Terminator::Jump(Edge {
        target: next,
        args: vec![unused],
    });
    let _ = p;
    ret(f, next, a);
    assert!(check(&mut m, dce::run, &[vec![[1.0; 4]]]));
    let t = text(&m);
    assert!(!t.contains("sin") && !t.contains("b1(v"), "{t}");
}

#[test]
fn params_fold_a_parameter_with_one_value() {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let c = op(
        f,
        e,
        Op::Cmp(CmpOp::Gt),
        vec![
            a.reswizzled(Swizzle::splat(0)),
            a.reswizzled(Swizzle::splat(1)),
        ],
        1,
    );
    let (t, o, j) = (
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
    );
    let p = f.add_param(j, Ty::float(4));
    f.values[c.value].ty = Ty::bool(1);
    f.blocks[e].term = Terminator::Branch {
        cond: c,
        then: Edge::to(t),
        otherwise: Edge::to(o),
    };
    f.blocks[e].structure = Some(Structure::If { merge: j });
    f.blocks[t].term = Terminator::Jump(Edge {
        target: j,
        args: vec![a],
    });
    f.blocks[o].term = Terminator::Jump(Edge {
        target: j,
        args: vec![a],
    });
    ret(f, j, Operand::new(p));
    assert!(check(
        &mut m,
        params::fold_trivial,
        &[vec![[1.0, 0.0, 0.0, 0.0]]]
    ));
    assert!(text(&m).contains("return v0"), "{}", text(&m));
}

/// `x = c ? 1.0 : 0.0` written as an `if` (then: 1, else: 0 through an empty arm), then
/// `y = (float(x != 0) ... ` and an edge passing `1 - x`: the merge parameter becomes
/// `float(c)`, the `if` choosing between nothing goes, `x != 0` is `c`, and the edge where
/// `c` is false passes 1.
#[test]
fn conditions_make_merges_of_the_condition_the_condition() {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let c = op(
        f,
        e,
        Op::Cmp(CmpOp::Gt),
        vec![
            a.reswizzled(Swizzle::splat(0)),
            a.reswizzled(Swizzle::splat(1)),
        ],
        1,
    );
    f.values[c.value].ty = Ty::bool(1);
    let one = konst(f, e, &[1.0]);
    let (arm, j, t2, end) = (
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
    );
    let x = f.add_param(j, Ty::float(1));
    f.blocks[e].term = Terminator::Branch {
        cond: c,
        then: Edge {
            target: j,
            args: vec![one],
        },
        otherwise: Edge::to(arm),
    };
    f.blocks[e].structure = Some(Structure::If { merge: j });
    let zero = konst(f, arm, &[0.0]);
    f.blocks[arm].term = Terminator::Jump(Edge {
        target: j,
        args: vec![zero],
    });
    // In j: test x != 0 again, and pass 1 - x where it is false.
    let zero_j = konst(f, j, &[0.0]);
    let again = op(f, j, Op::Cmp(CmpOp::Ne), vec![Operand::new(x), zero_j], 1);
    f.values[again.value].ty = Ty::bool(1);
    let not_x = op(f, j, Op::Sub, vec![one, Operand::new(x)], 1);
    let r = f.add_param(end, Ty::float(1));
    f.blocks[j].term = Terminator::Branch {
        cond: again,
        then: Edge::to(t2),
        otherwise: Edge {
            target: end,
            args: vec![not_x],
        },
    };
    f.blocks[j].structure = Some(Structure::If { merge: end });
    let half = konst(f, t2, &[0.5]);
    f.blocks[t2].term = Terminator::Jump(Edge {
        target: end,
        args: vec![half],
    });
    let out = op(
        f,
        end,
        Op::Mul,
        vec![a, Operand::new(r).reswizzled(Swizzle::splat(0))],
        4,
    );
    ret(f, end, out);
    let cases = [vec![[2.0, 1.0, 0.0, 0.0]], vec![[-1.0, 3.0, 5.0, 7.0]]];
    assert!(check(&mut m, conditions::run, &cases));
    let t = text(&m);
    assert!(t.contains("bool_to_float v"), "x is float(c):\n{t}");
    // Once the unused parameter is gone, the `if` chooses between nothing.
    assert!(check(&mut m, dce::run, &cases));
    assert!(check(&mut m, conditions::run, &cases));
    let t = text(&m);
    assert!(
        !t.contains(&format!("b{}:", arm.index())),
        "the empty if is gone:\n{t}"
    );
    // The cleanup after it: `x != 0` is `c`, and `1 - x` on its false edge is 1.
    assert!(check(&mut m, simplify::run, &cases));
    assert!(check(&mut m, conditions::run, &cases));
    assert!(check(&mut m, dce::run, &cases));
    let t = text(&m);
    assert!(
        t.contains(&format!("branch v{}, ", c.value.index())),
        "tests c:\n{t}"
    );
    assert!(!t.contains("= sub ") && !t.contains("cmp.ne"), "{t}");
}

/// `q = c ? f(a) : k` as a branch passing `f(a)` straight to the merge: `f(a)`, and what only
/// it reads, move into an arm of their own; what the condition reads stays.
#[test]
fn arms_move_work_one_side_alone_needs_into_that_side() {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let c = op(
        f,
        e,
        Op::Cmp(CmpOp::Gt),
        vec![
            a.reswizzled(Swizzle::splat(0)),
            a.reswizzled(Swizzle::splat(1)),
        ],
        1,
    );
    f.values[c.value].ty = Ty::bool(1);
    let s = op(f, e, Op::Sin, vec![a], 4);
    let q = op(f, e, Op::Mul, vec![s, a], 4);
    let k = konst(f, e, &[1.0, 0.0, 0.0, 0.0]);
    let (other, j) = (f.new_block(span()), f.new_block(span()));
    let p = f.add_param(j, Ty::float(4));
    f.blocks[e].term = Terminator::Branch {
        cond: c,
        then: Edge {
            target: j,
            args: vec![q],
        },
        otherwise: Edge::to(other),
    };
    f.blocks[e].structure = Some(Structure::If { merge: j });
    f.blocks[other].term = Terminator::Jump(Edge {
        target: j,
        args: vec![k],
    });
    ret(f, j, Operand::new(p));
    let cases = [vec![[2.0, 1.0, 0.5, 0.25]], vec![[-1.0, 3.0, 5.0, 7.0]]];
    assert!(check(&mut m, arms::run, &cases));
    let t = text(&m);
    // The entry block's text: from `b0:` to the next block.
    let header = t.split("\nb").nth(1).unwrap_or_default();
    assert!(header.contains("cmp.gt") && !header.contains("sin"), "{t}");
    assert!(
        t.contains(&format!("branch v{}, b", c.value.index())),
        "{t}"
    );
    // Nothing left to move: a second run changes nothing.
    assert!(!check(&mut m, arms::run, &cases), "{}", text(&m));
}

#[test]
fn blocks_merge_straight_line_pairs() {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let b1 = f.new_block(span());
    let b2 = f.new_block(span());
    f.blocks[e].term = Terminator::Jump(Edge::to(b1));
    let x = op(f, b1, Op::Add, vec![a, a], 4);
    f.blocks[b1].term = Terminator::Jump(Edge {
        target: b2,
        args: Vec::new(),
    });
    ret(f, b2, x);
    assert!(check(&mut m, blocks::run, &[vec![[1.0; 4]]]));
    assert_eq!(m.function.layout.len(), 1, "{}", text(&m));
}

#[test]
fn matrix_uses_rows_for_gathered_registers_and_columns_otherwise() {
    // Rows: each column gathers lane j of the four row values.
    let mut m = module(5);
    let f = &mut m.function;
    let e = f.entry;
    let rows: Vec<Operand> = (0..4).map(|i| input(f, e, i)).collect();
    let v = input(f, e, 4);
    let cols: Vec<Operand> = (0..4)
        .map(|j| {
            let lanes = rows
                .iter()
                .map(|r| r.reswizzled(Swizzle::splat(j)))
                .collect();
            op(f, e, Op::Construct, lanes, 4)
        })
        .collect();
    let mut args = cols;
    args.push(v);
    let r = op(f, e, Op::MatVec(4), args, 4);
    ret(f, e, r);
    let case = vec![
        [1.0, 2.0, 3.0, 4.0],
        [5.0, 6.0, 7.0, 8.0],
        [9.0, 1.0, 2.0, 3.0],
        [4.0, 5.0, 6.0, 7.0],
        [0.5, -1.0, 2.0, 1.0],
    ];
    assert!(check(&mut m, matrix::run, std::slice::from_ref(&case)));
    let t = text(&m);
    assert_eq!(t.matches("dot4").count(), 4, "{t}");
    // Columns: plain vectors.
    let mut m = module(5);
    let f = &mut m.function;
    let e = f.entry;
    let mut args: Vec<Operand> = (0..5).map(|i| input(f, e, i)).collect();
    let v = args.pop().expect("five");
    args.push(v);
    let r = op(f, e, Op::MatVec(4), args, 4);
    ret(f, e, r);
    assert!(check(&mut m, matrix::run, &[case]));
    let t = text(&m);
    assert_eq!(
        (t.matches("= mul").count(), t.matches("= mad").count()),
        (1, 3),
        "{t}"
    );
}

#[test]
fn mad_fuses_a_single_use_multiply() {
    let mut m = module(3);
    let f = &mut m.function;
    let e = f.entry;
    let (a, b, c) = (input(f, e, 0), input(f, e, 1), input(f, e, 2));
    let p = op(f, e, Op::Mul, vec![a, b], 4);
    let s = op(f, e, Op::Sub, vec![c, p], 4);
    ret(f, e, s);
    let case = vec![[1.0, 2.0, 3.0, 4.0], [0.5; 4], [10.0; 4]];
    assert!(check(&mut m, mad::run, &[case]));
    assert!(text(&m).contains("mad -v0, v1, v2"), "{}", text(&m));
}

/// `out = in.x > in.y ? in * 2 : in + 1` as an if/else with a merge parameter.
fn diamond() -> Module {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let c = Operand::new(f.ins(
        e,
        Op::Cmp(CmpOp::Gt),
        vec![
            a.reswizzled(Swizzle::splat(0)),
            a.reswizzled(Swizzle::splat(1)),
        ],
        Ty::bool(1),
        span(),
    ));
    let (t, o, j) = (
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
    );
    let p = f.add_param(j, Ty::float(4));
    f.blocks[e].term = Terminator::Branch {
        cond: c,
        then: Edge::to(t),
        otherwise: Edge::to(o),
    };
    f.blocks[e].structure = Some(Structure::If { merge: j });
    let two = konst(f, t, &[2.0; 4]);
    let x = op(f, t, Op::Mul, vec![a, two], 4);
    f.blocks[t].term = Terminator::Jump(Edge {
        target: j,
        args: vec![x],
    });
    let one = konst(f, o, &[1.0; 4]);
    let y = op(f, o, Op::Add, vec![a, one], 4);
    f.blocks[o].term = Terminator::Jump(Edge {
        target: j,
        args: vec![y],
    });
    ret(f, j, Operand::new(p));
    m
}

#[test]
fn ifconvert_turns_a_small_if_into_a_select() {
    let mut m = diamond();
    let cases = [vec![[3.0, 1.0, 0.0, 0.0]], vec![[1.0, 3.0, 0.0, 0.0]]];
    assert!(check(&mut m, |f| ifconvert::run(f, Some(4), false), &cases));
    let t = text(&m);
    assert!(t.contains("select v1, "), "{t}");
    assert!(!t.contains("branch"), "{t}");
}

#[test]
fn ifconvert_respects_its_cost_model() {
    let mut m = diamond();
    assert!(!check(
        &mut m,
        |f| ifconvert::run(f, Some(1), false),
        &[vec![[1.0; 4]]]
    ));
}

#[test]
fn ifconvert_turns_a_discard_into_a_kill() {
    let mut m = diamond();
    m.stage = Stage::Fragment;
    let f = &mut m.function;
    let t = match &f.blocks[f.entry].term {
        Terminator::Branch { then, .. } => then.target,
        _ => unreachable!(),
    };
    f.blocks[t].term = Terminator::Discard;
    let cases = [vec![[3.0, 1.0, 0.0, 0.0]], vec![[1.0, 3.0, 0.0, 0.0]]];
    assert!(check(&mut m, |f| ifconvert::run(f, None, false), &cases));
    assert!(text(&m).contains("kill v1"), "{}", text(&m));
}

/// `acc = 0; for (i = 0; i < 3; i++) acc += in * i; out = acc`.
fn counted_loop() -> Module {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let zero = konst(f, e, &[0.0]);
    let zeros = konst(f, e, &[0.0; 4]);
    let (h, body, cont, exit) = (
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
    );
    let i = Operand::new(f.add_param(h, Ty::float(1)));
    let acc = Operand::new(f.add_param(h, Ty::float(4)));
    f.blocks[e].term = Terminator::Jump(Edge {
        target: h,
        args: vec![zero, zeros],
    });
    f.blocks[h].structure = Some(Structure::Loop { merge: exit, cont });
    let three = konst(f, h, &[3.0]);
    let c = Operand::new(f.ins(h, Op::Cmp(CmpOp::Lt), vec![i, three], Ty::bool(1), span()));
    f.blocks[h].term = Terminator::Branch {
        cond: c,
        then: Edge::to(body),
        otherwise: Edge::to(exit),
    };
    let term = op(
        f,
        body,
        Op::Mul,
        vec![a, i.reswizzled(Swizzle::splat(0))],
        4,
    );
    let next_acc = op(f, body, Op::Add, vec![acc, term], 4);
    f.blocks[body].term = Terminator::Jump(Edge::to(cont));
    let one = konst(f, cont, &[1.0]);
    let next_i = op(f, cont, Op::Add, vec![i, one], 1);
    f.blocks[cont].term = Terminator::Jump(Edge {
        target: h,
        args: vec![next_i, next_acc],
    });
    ret(f, exit, acc);
    m
}

#[test]
fn unroll_copies_a_counted_loop() {
    let mut m = counted_loop();
    let cases = [vec![[1.0, 2.0, 3.0, 4.0]]];
    assert!(check(&mut m, |f| unroll::run(f, 8, 1000), &cases));
    let t = text(&m);
    assert!(!t.contains("loop"), "{t}");
    // Three trips: three multiplies.
    assert_eq!(t.matches("= mul").count(), 3, "{t}");
}

#[test]
fn unroll_refuses_too_many_trips() {
    let mut m = counted_loop();
    assert!(!check(
        &mut m,
        |f| unroll::run(f, 2, 1000),
        &[vec![[1.0; 4]]]
    ));
    assert!(text(&m).contains("loop"));
}

#[test]
fn mem2reg_and_exits_make_an_early_return_structured() {
    // out = in; if (in.x > in.y) { out = in * 2; return; } out = out + 1;
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let local = f.add_local(Ty::float(4), "out");
    let a = input(f, e, 0);
    f.push(e, Op::StoreLocal(local), vec![a], &[], span());
    let (region, test, early, rest, join, exit) = (
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
    );
    f.blocks[e].term = Terminator::Jump(Edge::to(region));
    f.blocks[region].structure = Some(Structure::Region { merge: exit });
    f.blocks[region].term = Terminator::Jump(Edge::to(test));
    let c = Operand::new(f.ins(
        test,
        Op::Cmp(CmpOp::Gt),
        vec![
            a.reswizzled(Swizzle::splat(0)),
            a.reswizzled(Swizzle::splat(1)),
        ],
        Ty::bool(1),
        span(),
    ));
    f.blocks[test].structure = Some(Structure::If { merge: join });
    f.blocks[test].term = Terminator::Branch {
        cond: c,
        then: Edge::to(early),
        otherwise: Edge::to(join),
    };
    let two = konst(f, early, &[2.0; 4]);
    let x = op(f, early, Op::Mul, vec![a, two], 4);
    f.push(early, Op::StoreLocal(local), vec![x], &[], span());
    f.blocks[early].term = Terminator::Jump(Edge::to(exit)); // the early return
    f.blocks[join].term = Terminator::Jump(Edge::to(rest));
    let cur = Operand::new(f.ins(rest, Op::LoadLocal(local), Vec::new(), Ty::float(4), span()));
    let one = konst(f, rest, &[1.0; 4]);
    let y = op(f, rest, Op::Add, vec![cur, one], 4);
    f.push(rest, Op::StoreLocal(local), vec![y], &[], span());
    f.blocks[rest].term = Terminator::Jump(Edge::to(exit));
    let out = Operand::new(f.ins(exit, Op::LoadLocal(local), Vec::new(), Ty::float(4), span()));
    ret(f, exit, out);
    let cases = [vec![[3.0, 1.0, 0.0, 0.0]], vec![[1.0, 3.0, 0.0, 0.0]]];
    assert!(check(&mut m, exits::run, &cases));
    let t = text(&m);
    assert!(!t.contains("region"), "{t}");
    assert!(check(&mut m, mem2reg::run, &cases));
    let t = text(&m);
    assert!(!t.contains("local"), "{t}");
    // Every jump now goes to its construct's merge: the verifier and the results agree,
    // and no block but the last returns.
    assert_eq!(t.matches("return").count(), 1, "{t}");
}

#[test]
fn order_puts_blocks_after_their_dominators() {
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let late = f.new_block(span());
    let early = f.new_block(span());
    f.blocks[e].term = Terminator::Jump(Edge::to(early));
    f.blocks[early].term = Terminator::Jump(Edge::to(late));
    ret(f, late, a);
    assert!(check(&mut m, order::run, &[vec![[1.0; 4]]]));
    assert_eq!(m.function.layout, vec![e, early, late]);
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
fn pack_leaves_dependent_and_mismatched_operations_alone() {
    // y = a.x * k.x; z = y * k.y (depends on y); w = a.y * a.z (operands from other values
    // in the same positions would need a construct).
    let mut m = module(2);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let k = input(f, e, 1);
    let lane = |o: Operand, l: u8| o.reswizzled(Swizzle::splat(l));
    let y = op(f, e, Op::Mul, vec![lane(a, 0), lane(k, 0)], 1);
    let z = op(f, e, Op::Mul, vec![y, lane(k, 1)], 1);
    let w = op(f, e, Op::Add, vec![lane(k, 2), lane(a, 2)], 1);
    let v = op(f, e, Op::Add, vec![lane(a, 1), lane(k, 3)], 1);
    let out = op(f, e, Op::Construct, vec![y, z, w, v], 4);
    ret(f, e, out);
    assert!(!check(
        &mut m,
        vectorize::run,
        &[vec![[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]
    ));
}

#[test]
fn simplify_finds_min_max_sat_and_plain_conditions() {
    // a = x < 0 ? 0 : x (max); b = min(max(y, 0), 1) (sat); c = (x > y) ? true : false.
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let v = input(f, e, 0);
    let x = v.reswizzled(Swizzle::splat(0));
    let y = v.reswizzled(Swizzle::splat(1));
    let zero = konst(f, e, &[0.0]);
    let one = konst(f, e, &[1.0]);
    let lt = Operand::new(f.ins(e, Op::Cmp(CmpOp::Lt), vec![x, zero], Ty::bool(1), span()));
    let a = op(f, e, Op::Select, vec![lt, zero, x], 1);
    let lo = op(f, e, Op::Max, vec![y, zero], 1);
    let b = op(f, e, Op::Min, vec![lo, one], 1);
    let gt = Operand::new(f.ins(e, Op::Cmp(CmpOp::Gt), vec![x, y], Ty::bool(1), span()));
    let yes = Operand::new(f.ins(e, Op::Const([1, 0, 0, 0]), vec![], Ty::bool(1), span()));
    let no = Operand::new(f.ins(e, Op::Const([0; 4]), vec![], Ty::bool(1), span()));
    let c = Operand::new(f.ins(e, Op::Select, vec![gt, yes, no], Ty::bool(1), span()));
    let cf = op(f, e, Op::BoolToFloat, vec![c], 1);
    let out = op(f, e, Op::Construct, vec![a, b, cf, one], 4);
    ret(f, e, out);
    let cases: Vec<Vec<[f32; 4]>> = [[-1.0, 2.0], [0.5, -0.25], [3.0, 0.5], [0.0, 0.0]]
        .iter()
        .map(|&[x, y]| vec![[x, y, 0.0, 0.0]])
        .collect();
    let simplify_then_dce = |f: &mut Function| {
        let changed = simplify::run(f);
        dce::run(f);
        changed
    };
    assert!(check(&mut m, simplify_then_dce, &cases));
    let t = text(&m);
    assert!(t.contains("= max v0.x, v"), "{t}");
    assert!(t.contains("= sat v0.y"), "{t}");
    assert!(t.contains("bool_to_float v"), "{t}");
    assert!(!t.contains("select"), "{t}");
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

#[test]
fn bools_become_floats_except_conditions() {
    // c = in.x < in.y; d = in.z > 0; out = vec4(select(c && d, in.x, in.y), float(c), ...);
    // kill(c) stays a condition.
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let v = input(f, e, 0);
    let lane = |l: u8| v.reswizzled(Swizzle::splat(l));
    let zero = konst(f, e, &[0.0]);
    let c = Operand::new(f.ins(
        e,
        Op::Cmp(CmpOp::Lt),
        vec![lane(0), lane(1)],
        Ty::bool(1),
        span(),
    ));
    let d = Operand::new(f.ins(
        e,
        Op::Cmp(CmpOp::Gt),
        vec![lane(2), zero],
        Ty::bool(1),
        span(),
    ));
    let cd = Operand::new(f.ins(e, Op::And, vec![c, d], Ty::bool(1), span()));
    let s = op(f, e, Op::Select, vec![cd, lane(0), lane(1)], 1);
    let k = Operand::new(f.ins(
        e,
        Op::Cmp(CmpOp::Gt),
        vec![lane(3), zero],
        Ty::bool(1),
        span(),
    ));
    f.push(e, Op::Kill, vec![k], &[], span());
    let cf = op(f, e, Op::BoolToFloat, vec![c], 1);
    let out = op(f, e, Op::Construct, vec![s, cf, s, s], 4);
    ret(f, e, out);
    let cases: Vec<Vec<[f32; 4]>> = [
        [1.0, 2.0, 1.0, -1.0],
        [3.0, 2.0, 1.0, -1.0],
        [1.0, 2.0, -1.0, -1.0],
        [1.0, 2.0, 1.0, 1.0],
    ]
    .iter()
    .map(|&x| vec![x])
    .collect();
    let bools_then_dce = |f: &mut Function| {
        let changed = bools::run(f, true);
        dce::run(f);
        changed
    };
    assert!(check(&mut m, bools_then_dce, &cases));
    let t = text(&m);
    assert!(!t.contains("select"), "{t}");
    assert!(!t.contains("= and"), "{t}");
    // The kill's comparison stays a bool.
    assert!(t.contains("bool = cmp.gt v0.w"), "{t}");
    assert!(t.contains("kill v"), "{t}");
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
fn homogeneous_makes_dph_of_a_point_of_several_values() {
    // p = vec4(in0.x, in0.y, in1.z, 1.0), read by two dot products: both become dph of
    // vec3(in0.x, in0.y, in1.z).
    let build = |third_use: bool| {
        let mut m = module(3);
        let f = &mut m.function;
        let e = f.entry;
        let (a, b, r) = (input(f, e, 0), input(f, e, 1), input(f, e, 2));
        let one = konst(f, e, &[1.0]);
        let lanes = vec![
            a.reswizzled(Swizzle::splat(0)),
            a.reswizzled(Swizzle::splat(1)),
            b.reswizzled(Swizzle::splat(2)),
            one,
        ];
        let p = op(f, e, Op::Construct, lanes, 4);
        let d0 = op(f, e, Op::Dot(4), vec![r, p], 1);
        let d1 = op(
            f,
            e,
            Op::Dot(4),
            vec![p, r.reswizzled(Swizzle([3, 2, 1, 0]))],
            1,
        );
        let last = if third_use {
            // Also read whole: the 4-lane vector stays, so nothing changes.
            op(f, e, Op::Add, vec![p, r], 4).reswizzled(Swizzle::splat(3))
        } else {
            d1
        };
        let out = op(f, e, Op::Construct, vec![d0, d1, last, d0], 4);
        ret(f, e, out);
        m
    };
    let cases = [vec![
        [1.0, 2.0, 3.0, 4.0],
        [5.0, -6.0, 7.0, 8.0],
        [0.5, 0.25, -2.0, 3.0],
    ]];
    let mut m = build(false);
    assert!(check(&mut m, homogeneous::run, &cases));
    dce::run(&mut m.function);
    let t = text(&m);
    assert_eq!(t.matches("= dph ").count(), 2, "{t}");
    assert!(t.contains("vec3 = construct v0.x, v0.y, v1.z"), "{t}");
    assert!(!t.contains("dot4"), "{t}");
    let mut m = build(true);
    assert!(!check(&mut m, homogeneous::run, &cases), "{}", text(&m));
}

/// Four sums over the lanes a.x, b.y, c.z with a constant, one per arm of two nested ifs
/// (the cases of a rotation matrix made a quaternion), and a sum of three lanes of one value.
fn quaternion_cases() -> Module {
    let mut m = module(3);
    let f = &mut m.function;
    let e = f.entry;
    let (a, b, c) = (input(f, e, 0), input(f, e, 1), input(f, e, 2));
    let (x, y, z) = (
        a.reswizzled(Swizzle::splat(0)),
        b.reswizzled(Swizzle::splat(1)),
        c.reswizzled(Swizzle::splat(2)),
    );
    let zero = konst(f, e, &[0.0]);
    let outer = Operand::new(f.ins(e, Op::Cmp(CmpOp::Gt), vec![z, zero], Ty::bool(1), span()));
    let j = f.new_block(span());
    let p = f.add_param(j, Ty::float(1));
    let (t, o) = (f.new_block(span()), f.new_block(span()));
    f.blocks[e].term = Terminator::Branch {
        cond: outer,
        then: Edge::to(t),
        otherwise: Edge::to(o),
    };
    f.blocks[e].structure = Some(Structure::If { merge: j });
    let signs = [
        [1.0, -1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-1.0, -1.0, 1.0],
        [1.0, 1.0, 1.0],
    ];
    for (arm, pair) in [t, o].into_iter().zip([[0, 1], [2, 3]]) {
        let inner = Operand::new(f.ins(arm, Op::Cmp(CmpOp::Gt), vec![x, y], Ty::bool(1), span()));
        let (u, v, k) = (
            f.new_block(span()),
            f.new_block(span()),
            f.new_block(span()),
        );
        let q = f.add_param(k, Ty::float(1));
        f.blocks[arm].term = Terminator::Branch {
            cond: inner,
            then: Edge::to(u),
            otherwise: Edge::to(v),
        };
        f.blocks[arm].structure = Some(Structure::If { merge: k });
        for (block, case) in [u, v].into_iter().zip(pair) {
            let s = signs[case];
            let one = konst(f, block, &[1.0]);
            let signed = |o: Operand, k: f32| if k < 0.0 { o.negated() } else { o };
            let s1 = op(f, block, Op::Add, vec![one, signed(x, s[0])], 1);
            let s2 = op(f, block, Op::Add, vec![s1, signed(y, s[1])], 1);
            let s3 = if s[2] < 0.0 {
                op(f, block, Op::Sub, vec![s2, z], 1)
            } else {
                op(f, block, Op::Add, vec![s2, z], 1)
            };
            f.blocks[block].term = Terminator::Jump(Edge {
                target: k,
                args: vec![s3],
            });
        }
        f.blocks[k].term = Terminator::Jump(Edge {
            target: j,
            args: vec![Operand::new(q)],
        });
    }
    // And a.x + a.y - a.w, lanes of one vector: a dot product with nothing to gather.
    let l = |n| a.reswizzled(Swizzle::splat(n));
    let h1 = op(f, j, Op::Add, vec![l(0), l(1)], 1);
    let h2 = op(f, j, Op::Sub, vec![h1, l(3)], 1);
    let out = op(f, j, Op::Construct, vec![Operand::new(p), h2, h2, h2], 4);
    ret(f, j, out);
    m
}

#[test]
fn sums_of_signed_terms_become_dot_products_where_that_pays() {
    let cases: Vec<Vec<[f32; 4]>> = [
        (
            [0.5, 0.0, 0.0, 2.0],
            [0.0, 0.25, 0.0, 0.0],
            [0.0, 0.0, 1.5, 0.0],
        ),
        (
            [0.75, 0.0, 0.0, -1.0],
            [0.0, 0.25, 0.0, 0.0],
            [0.0, 0.0, -0.5, 0.0],
        ),
        (
            [0.125, 3.0, 0.0, 0.0],
            [0.0, 0.5, 0.0, 0.0],
            [0.0, 0.0, 2.0, 0.0],
        ),
        (
            [-0.5, 1.0, 0.0, 4.0],
            [0.0, 0.25, 0.0, 0.0],
            [0.0, 0.0, -1.0, 0.0],
        ),
    ]
    .iter()
    .map(|&(a, b, c)| vec![a, b, c])
    .collect();
    // The PICA200's dph carries the constant: one gathered vec3 serves the four cases.
    let mut m = quaternion_cases();
    let sums_then_dce = |dph: bool| {
        move |f: &mut Function| {
            let changed = sums::run(f, dph);
            dce::run(f);
            changed
        }
    };
    assert!(check(&mut m, sums_then_dce(true), &cases));
    let t = text(&m);
    assert_eq!(t.matches("= dph ").count(), 4, "{t}");
    assert_eq!(
        t.matches("vec3 = construct v0.x, v1.y, v2.z").count(),
        1,
        "{t}"
    );
    assert!(t.contains("const 1.0, -1.0, -1.0, 1.0"), "{t}");
    assert!(t.contains("= dot3 v0.xyw, "), "{t}");
    assert!(!t.contains("= add") && !t.contains("= sub"), "{t}");
    // Without dph, a lane of 1 carries it (one more move, still paid for by eight adds).
    let mut m = quaternion_cases();
    assert!(check(&mut m, sums_then_dce(false), &cases));
    let t = text(&m);
    assert_eq!(t.matches("= dot4 ").count(), 4, "{t}");
    assert!(t.contains("vec4 = construct v0.x, v1.y, v2.z, v"), "{t}");
}

#[test]
fn a_sum_gathered_for_one_use_does_not_pay() {
    // in0.x + in1.y + in2.z: three moves to save one add. Kept.
    let mut m = module(3);
    let f = &mut m.function;
    let e = f.entry;
    let (a, b, c) = (input(f, e, 0), input(f, e, 1), input(f, e, 2));
    let s1 = op(
        f,
        e,
        Op::Add,
        vec![
            a.reswizzled(Swizzle::splat(0)),
            b.reswizzled(Swizzle::splat(1)),
        ],
        1,
    );
    let s2 = op(f, e, Op::Add, vec![s1, c.reswizzled(Swizzle::splat(2))], 1);
    let out = op(f, e, Op::Construct, vec![s2, s2, s2, s2], 4);
    ret(f, e, out);
    let cases = [vec![
        [1.0, 2.0, 3.0, 4.0],
        [5.0, 6.0, 7.0, 8.0],
        [9.0, 1.0, 2.0, 3.0],
    ]];
    assert!(!check(&mut m, |f| sums::run(f, true), &cases));
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
fn simplify_merges_constant_factors_when_exact() {
    // (in.zyx * 32) * 0.03125806 is in.zyx * 1.000258 (32 is a power of two: exact);
    // (in * 3) * 0.1 rounds differently from in * 0.3: kept.
    let build = |k1: f32| {
        let mut m = module(1);
        let f = &mut m.function;
        let e = f.entry;
        let a = input(f, e, 0);
        let k = konst(f, e, &[k1; 4]);
        let inner = op(f, e, Op::Mul, vec![a, k], 4);
        let k2 = konst(f, e, &[0.031_258_06, 0.1, -0.5, 2.0]);
        let outer = op(
            f,
            e,
            Op::Mul,
            vec![k2, inner.reswizzled(Swizzle([2, 1, 0, 3]))],
            4,
        );
        ret(f, e, outer);
        m
    };
    let cases = [vec![[1.5, -2.0, 3.0, 4.0]], vec![[-0.25, 0.5, 1e-3, -8.0]]];
    let mut m = build(32.0);
    assert!(check(&mut m, simplify::run, &cases));
    dce::run(&mut m.function);
    let t = text(&m);
    assert_eq!(t.matches("= mul ").count(), 1, "{t}");
    assert!(t.contains("mul v0.zyxw, "), "{t}");
    let mut m = build(3.0);
    assert!(!check(&mut m, simplify::run, &cases), "{}", text(&m));
}

/// `out = (in0.x > in0.y ? in0 * in1 : in1) * k + in0`, scaled by k2: both sides end with the
/// same multiply-add and multiply of their own constants, over different values.
fn common_tails(same_constants: bool) -> Module {
    let mut m = module(2);
    let f = &mut m.function;
    let e = f.entry;
    let (a, b) = (input(f, e, 0), input(f, e, 1));
    let c = Operand::new(f.ins(
        e,
        Op::Cmp(CmpOp::Gt),
        vec![
            a.reswizzled(Swizzle::splat(0)),
            a.reswizzled(Swizzle::splat(1)),
        ],
        Ty::bool(1),
        span(),
    ));
    let (t, o, j) = (
        f.new_block(span()),
        f.new_block(span()),
        f.new_block(span()),
    );
    let p = f.add_param(j, Ty::float(4));
    f.blocks[e].term = Terminator::Branch {
        cond: c,
        then: Edge::to(t),
        otherwise: Edge::to(o),
    };
    f.blocks[e].structure = Some(Structure::If { merge: j });
    let x = op(f, t, Op::Mul, vec![a, b], 4);
    for (side, v, k2) in [(t, x, 0.5), (o, b, if same_constants { 0.5 } else { 0.25 })] {
        let k = konst(f, side, &[2.0, 3.0, -4.0, 5.0]);
        let k2 = konst(f, side, &[k2; 4]);
        let y = op(
            f,
            side,
            Op::Mad,
            vec![v.reswizzled(Swizzle([1, 0, 2, 3])), k, a],
            4,
        );
        let z = op(f, side, Op::Mul, vec![y.negated(), k2], 4);
        f.blocks[side].term = Terminator::Jump(Edge {
            target: j,
            args: vec![z],
        });
    }
    ret(f, j, Operand::new(p));
    m
}

#[test]
fn tails_common_to_both_sides_are_computed_after_the_merge() {
    let cases = [
        vec![[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 7.0]],
        vec![[3.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 7.0]],
    ];
    let tails_then_dce = |f: &mut Function| {
        let changed = tails::run(f);
        dce::run(f);
        changed
    };
    let mut m = common_tails(true);
    assert!(check(&mut m, tails_then_dce, &cases));
    let t = text(&m);
    assert_eq!(t.matches("= mad ").count(), 1, "{t}");
    assert_eq!(
        t.matches("= mul ").count(),
        2,
        "the side's own product and the tail's:\n{t}"
    );
    assert!(t.contains("mad v"), "{t}");
    // Different constants on the two sides: no common tail beyond the multiply-add, which
    // alone does not pay for its parameter's move.
    let mut m = common_tails(false);
    assert!(!check(&mut m, tails_then_dce, &cases), "{}", text(&m));
}

#[test]
fn pack_follows_two_chains_to_their_ends() {
    // Two Horner chains of eight steps over a.x and a.y (sin and cos of one angle, as
    // `expand` writes them): each step packs once the step before it has.
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let a = input(f, e, 0);
    let ks: Vec<Operand> = (0..8).map(|n| konst(f, e, &[0.5 + n as f32])).collect();
    let mut ends = Vec::new();
    for l in 0..2u8 {
        let x = a.reswizzled(Swizzle::splat(l));
        let x2 = op(f, e, Op::Mul, vec![x, x], 1);
        let mut acc = op(f, e, Op::Mad, vec![ks[0], x2, ks[1]], 1);
        for k in &ks[2..] {
            acc = op(f, e, Op::Mad, vec![acc, x2, *k], 1);
        }
        ends.push(op(f, e, Op::Mul, vec![acc, x], 1));
    }
    let out = op(
        f,
        e,
        Op::Construct,
        vec![ends[0], ends[1], ends[0], ends[1]],
        4,
    );
    ret(f, e, out);
    let cases = [vec![[0.25, -0.5, 3.0, 4.0]], vec![[-0.125, 0.75, 0.0, 9.0]]];
    let pack_then_dce = |f: &mut Function| {
        let changed = vectorize::run(f);
        dce::run(f);
        changed
    };
    assert!(check(&mut m, pack_then_dce, &cases));
    let t = text(&m);
    assert_eq!(t.matches(": f32 = m").count(), 0, "every step packed:\n{t}");
    assert_eq!(t.matches(": vec2 = mad ").count(), 7, "{t}");
}

#[test]
fn simplify_computes_a_splat_once_and_undoes_a_double_reciprocal() {
    // d / length(d) as the expansion writes it: d * rcp(rcp(rsq(dot(d, d))).xxx).
    let mut m = module(1);
    let f = &mut m.function;
    let e = f.entry;
    let d = input(f, e, 0);
    let dd = op(f, e, Op::Dot(3), vec![d, d], 1);
    let r = op(f, e, Op::Rsq, vec![dd], 1);
    let len = op(f, e, Op::Rcp, vec![r], 1);
    let inv = op(f, e, Op::Rcp, vec![len.reswizzled(Swizzle::splat(0))], 3);
    let n = op(
        f,
        e,
        Op::Mul,
        vec![d.reswizzled(Swizzle([0, 1, 2, 2])), inv],
        3,
    );
    ret(f, e, n.reswizzled(Swizzle([0, 1, 2, 2])));
    let cases = [vec![[3.0, 4.0, 12.0, 1.0]], vec![[-0.5, 0.25, 2.0, 0.0]]];
    let simplify_then_dce = |f: &mut Function| {
        let changed = simplify::run(f);
        dce::run(f);
        simplify::run(f);
        dce::run(f);
        changed
    };
    // The interpreter's rcp is exact, so 1 / (1 / x) is x there too: equal outputs.
    assert!(check(&mut m, simplify_then_dce, &cases));
    let t = text(&m);
    assert!(!t.contains("rcp"), "{t}");
    assert!(t.contains("vec3 = mul v0.xyz, v"), "{t}");
    assert!(t.contains(".xxx"), "the scalar read splat:\n{t}");
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

#[test]
fn simplify_moves_negations_out_of_products() {
    // n * -(-dot(n, -l) * 2) + dot(n, l): dot(n, -l) is -dot(n, l), the same dot product,
    // and the negations cancel down to one.
    let mut m = module(2);
    let f = &mut m.function;
    let e = f.entry;
    let (n, l) = (input(f, e, 0), input(f, e, 1));
    let d1 = op(f, e, Op::Dot(3), vec![n, l.negated()], 1);
    let two = konst(f, e, &[2.0]);
    let t = op(f, e, Op::Mul, vec![d1.negated(), two], 1);
    let u = op(
        f,
        e,
        Op::Mul,
        vec![n, t.negated().reswizzled(Swizzle::splat(0))],
        4,
    );
    let d2 = op(f, e, Op::Dot(3), vec![n, l], 1);
    let out = op(f, e, Op::Add, vec![u, d2.reswizzled(Swizzle::splat(0))], 4);
    ret(f, e, out);
    let cases = [vec![[0.5, -1.0, 2.0, 0.0], [1.5, 0.25, -3.0, 1.0]]];
    let cleanup = |f: &mut Function| {
        let changed = simplify::run(f);
        for _ in 0..3 {
            simplify::run(f);
            cse::run(f);
            dce::run(f);
        }
        changed
    };
    assert!(check(&mut m, cleanup, &cases));
    let t = text(&m);
    assert_eq!(t.matches("dot3").count(), 1, "one dot product:\n{t}");
    // d * 2 with no negation; the one left is the sum's, which a subtraction absorbs.
    assert!(t.contains("mul v0, v"), "{t}");
    assert_eq!(t.matches(" -v").count(), 1, "{t}");
}
