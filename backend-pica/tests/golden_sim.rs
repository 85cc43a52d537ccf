//! The simulator runs every golden program (picasso's bytes) and gives the values each `.pica`
//! says it computes; the expected values are computed here, from the programs' comments.

use crate::common;

use backend_pica::operand::Mask;
use backend_pica::shbin::UniformFile;
use backend_pica::sim::{Outcome, Simulator, Uniforms};
use test_kit::all_close_to;

fn sim(name: &str) -> Simulator {
    Simulator::new(&common::shbin(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The first register of uniform `name` in DVLE `dvle`'s table.
fn reg(s: &Simulator, dvle: usize, name: &str) -> usize {
    let u = s.binary().dvles[dvle]
        .uniforms
        .iter()
        .find(|u| u.name == name)
        .unwrap_or_else(|| panic!("{name}"));
    let (_, n, _) = u.range().unwrap();
    usize::from(n)
}

fn inputs(values: &[[f32; 4]]) -> [[f32; 4]; 16] {
    let mut v = [[0.0; 4]; 16];
    v[..values.len()].copy_from_slice(values);
    v
}

#[track_caller]
fn assert_vec(got: [f32; 4], want: [f32; 4], what: &str) {
    assert!(
        all_close_to(&got, &want, 1e-3),
        "{what}: got {got:?}, want {want:?}"
    );
}

#[track_caller]
fn complete(out: &Outcome) {
    assert!(
        out.missing.is_empty(),
        "unwritten output components: {:?}",
        out.missing
    );
}

fn dot3(a: [f32; 4], b: [f32; 4]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn dph(a: [f32; 4], b: [f32; 4]) -> f32 {
    dot3(a, b) + b[3]
}

fn dot4(a: [f32; 4], b: [f32; 4]) -> f32 {
    dot3(a, b) + a[3] * b[3]
}

#[test]
fn mvp_color() {
    let s = sim("mvp_color");
    let mut u = Uniforms::default();
    let mvp = [
        [1.0, 0.0, 0.0, 10.0],
        [0.0, 2.0, 0.0, 20.0],
        [0.0, 0.0, 3.0, 30.0],
        [1.0, 1.0, 1.0, 1.0],
    ];
    let base = reg(&s, 0, "mvp");
    u.float[base..base + 4].copy_from_slice(&mvp);
    let pos = [1.0, 2.0, 3.0, 99.0];
    let clr = [0.25, 0.5, 0.75, 1.0];
    let out = s.run(0, &inputs(&[pos, clr]), &u).unwrap();
    assert_vec(out.outputs[0], mvp.map(|row| dph(pos, row)), "clip");
    assert_eq!(out.outputs[0], [11.0, 24.0, 39.0, 7.0]);
    assert_vec(out.outputs[1], clr, "colour");
    complete(&out);
}

#[test]
fn diffuse_light() {
    let s = sim("diffuse_light");
    let mut u = Uniforms::default();
    let proj = [
        [2.0, 0.0, 0.0, 0.0],
        [0.0, 2.0, 0.0, 0.0],
        [0.0, 0.0, -1.0, -0.5],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let mv = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 2.0],
        [0.0, 0.0, 1.0, -5.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let p = reg(&s, 0, "projection");
    u.float[p..p + 4].copy_from_slice(&proj);
    let m = reg(&s, 0, "modelView");
    u.float[m..m + 4].copy_from_slice(&mv);
    let light_dir = [0.0, 0.6, 0.8, 0.0];
    let light_clr = [0.5, 0.5, 0.5, 0.0];
    let ambient = [0.25, 0.25, 0.25, 0.0];
    u.float[reg(&s, 0, "lightDir")] = light_dir;
    u.float[reg(&s, 0, "lightClr")] = light_clr;
    u.float[reg(&s, 0, "ambient")] = ambient;
    let pos = [1.0, 1.0, 1.0, 1.0];
    let nrm = [0.0, 0.0, 2.0, 0.0];
    let clr = [1.0, 0.5, 0.25, 0.75];
    let out = s.run(0, &inputs(&[pos, nrm, clr]), &u).unwrap();
    let view = mv.map(|row| dph(pos, row));
    assert_vec(out.outputs[0], proj.map(|row| dot4(row, view)), "clip");
    // n = normalize(mat3(mv) * nrm) = (0, 0, 1); n.l = 0.8.
    let ndotl = f32::max(0.0, dot3(light_dir, [0.0, 0.0, 1.0, 0.0]));
    let lit: Vec<f32> = (0..3)
        .map(|k| clr[k] * f32::min(1.0, ambient[k] + ndotl * light_clr[k]))
        .collect();
    assert_vec(out.outputs[1], [lit[0], lit[1], lit[2], clr[3]], "colour");
    complete(&out);
}

#[test]
fn fog_ex2() {
    let s = sim("fog_ex2");
    let mut u = Uniforms::default();
    let ident = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let p = reg(&s, 0, "projection");
    u.float[p..p + 4].copy_from_slice(&ident);
    let m = reg(&s, 0, "modelView");
    u.float[m..m + 4].copy_from_slice(&ident);
    // density 0.5 (per ln 2), start 1: view.z = -3 gives 2^(-0.5 * 2) = 0.5.
    u.float[reg(&s, 0, "fogParams")] = [0.5, 1.0, 0.0, 0.0];
    let fog = [0.5, 0.5, 0.5, 1.0];
    u.float[reg(&s, 0, "fogColor")] = fog;
    let clr = [1.0, 0.0, 0.25, 1.0];
    let out = s
        .run(0, &inputs(&[[0.0, 0.0, -3.0, 1.0], clr]), &u)
        .unwrap();
    assert_vec(out.outputs[0], [0.0, 0.0, -3.0, 1.0], "clip");
    let f = f32::min(1.0, f32::exp2(-0.5 * f32::max(0.0, 3.0 - 1.0)));
    assert_eq!(f, 0.5);
    assert_vec(
        out.outputs[1],
        [0, 1, 2, 3].map(|k| fog[k] + f * (clr[k] - fog[k])),
        "colour",
    );
    // Closer than the fog start: no fog at all.
    let out = s
        .run(0, &inputs(&[[0.0, 0.0, -0.5, 1.0], clr]), &u)
        .unwrap();
    assert_vec(out.outputs[1], clr, "colour without fog");
    complete(&out);
}

#[test]
fn skinning_palette() {
    let s = sim("skinning_palette");
    let mut u = Uniforms::default();
    let p = reg(&s, 0, "projection");
    let proj = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0, 1.0],
    ];
    u.float[p..p + 4].copy_from_slice(&proj);
    let bones = reg(&s, 0, "bones");
    // Bone b translates by (b, 2b, 4b) and scales x by (b + 1).
    for b in 0..8 {
        let f = b as f32;
        u.float[bones + 3 * b] = [f + 1.0, 0.0, 0.0, f];
        u.float[bones + 3 * b + 1] = [0.0, 1.0, 0.0, 2.0 * f];
        u.float[bones + 3 * b + 2] = [0.0, 0.0, 1.0, 4.0 * f];
    }
    let pos = [1.0, 1.0, 1.0, 1.0];
    let idx = [2.0, 5.0, 0.0, 0.0];
    let wgt = [0.75, 0.25, 0.0, 0.0];
    let clr = [0.1, 0.2, 0.3, 0.4];
    let out = s.run(0, &inputs(&[pos, idx, wgt, clr]), &u).unwrap();
    let bone = |b: usize| -> [f32; 3] {
        let row = |k: usize| dph(pos, u.float[bones + 3 * b + k]);
        [row(0), row(1), row(2)]
    };
    let (p0, p1) = (bone(2), bone(5));
    let skin = [0, 1, 2].map(|k| p0[k] * wgt[0] + p1[k] * wgt[1]);
    let skin = [skin[0], skin[1], skin[2], 1.0];
    assert_vec(out.outputs[0], proj.map(|row| dot4(row, skin)), "clip");
    assert_vec(out.outputs[1], clr, "colour");
    complete(&out);
}

#[test]
fn fmt1_arith() {
    let s = sim("fmt1_arith");
    let mut u = Uniforms::default();
    let (ua, ub) = ([1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, -3.0]);
    let uc = [[8.0, 7.0, 6.0, 5.0], [-1.0, 4.0, -2.0, 9.0]];
    u.float[reg(&s, 0, "ua")] = ua;
    u.float[reg(&s, 0, "ub")] = ub;
    let c = reg(&s, 0, "uc");
    u.float[c] = uc[0];
    u.float[c + 1] = uc[1];
    let kc = [0.5, -2.0, 4.0, 1.0];
    let (va, vb) = ([2.0, -1.0, 0.5, 3.0], [-4.0, 1.5, 6.0, 2.0]);
    let out = s.run(0, &inputs(&[va, vb]), &u).unwrap();
    let o = out.outputs;
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    assert_vec(
        o[0],
        [ua[0] + va[0], ua[1] + va[1], -ub[1] + vb[0], kc[3] - vb[3]],
        "add",
    );
    let dp4_neg = -(ub[0] * vb[0] + ub[1] * vb[1] + ub[2] * vb[2] + ub[3] * vb[3]);
    assert_vec(
        o[1],
        [dot3(ua, va), dp4_neg, dph(ua, vb), dph(va, ub)],
        "dot products",
    );
    assert_vec(o[2], [1.0, ua[1] * vb[1], ua[2], vb[3]], "dst");
    assert_vec(o[3], [1.0, vb[1] * uc[1][1], vb[2], uc[1][3]], "dsti");
    assert_vec(
        o[4],
        [kc[0] * va[3], kc[1] * va[2], kc[2] * va[1], kc[3] * va[0]],
        "mul",
    );
    assert_vec(
        o[5],
        [
            flag(ua[0] >= va[0]),
            flag(ua[1] >= va[1]),
            flag(-va[0] >= kc[2]),
            flag(-va[3] >= kc[3]),
        ],
        "sge",
    );
    assert_vec(
        o[6],
        [
            flag(ub[1] < -vb[0]),
            flag(ub[0] < -vb[1]),
            flag(vb[2] < ua[2]),
            flag(vb[3] < ua[3]),
        ],
        "slt",
    );
    assert_vec(
        o[7],
        [
            uc[1][0].max(va[0]),
            uc[1][1].max(va[1]),
            uc[0][2].min(vb[2]),
            uc[0][3].min(vb[2]),
        ],
        "max/min",
    );
    complete(&out);
}

#[test]
fn fmt1u_unary() {
    let s = sim("fmt1u_unary");
    let mut u = Uniforms::default();
    let uin = [0.0, 0.0, 2.75, 1.0];
    u.float[reg(&s, 0, "uin")] = uin;
    let t = reg(&s, 0, "utab");
    for k in 0..4 {
        let f = k as f32;
        u.float[t + k] = [f, f + 0.25, f + 0.5, f + 0.75];
    }
    let vin = [3.0, 2.0, 0.5, -2.0];
    let out = s.run(0, &inputs(&[vin]), &u).unwrap();
    let o = out.outputs;
    let utab = |k: usize| u.float[t + k];
    // a0.x = trunc(2.75) = 2, a0.y = trunc(1) = 1.
    assert_vec(o[4], utab(2), "utab[a0.x]");
    let e = utab(2);
    assert_vec(o[5], [-e[1], -e[2], -e[3], -e[0]], "-utab[a0.y+1].yzwx");
    assert_vec(o[1], [8.0, 1.0, -2.0, 1.0], "ex2 lg2 rcp rsq");
    assert_vec(o[2], [3.0, 2.0, 0.0, 0.0], "litp");
    assert_vec(o[3], [-3.0, 0.0, 0.0, -1.0], "flr");
    // Then a0.x = trunc(vin.y) = 2 and a0.y = 2.
    assert_vec(
        [o[6][0], o[6][1], 0.0, 0.0],
        [utab(3)[0], utab(3)[1], 0.0, 0.0],
        "utab[a0.x+1]",
    );
    assert_vec(
        [o[6][2], o[6][3], 0.0, 0.0],
        [utab(2)[2], utab(2)[2], 0.0, 0.0],
        "utab[a0.y].xxzz",
    );
    assert_vec(o[0], [vin[3], vin[2], vin[1], vin[0]], "mov");
    complete(&out);
}

#[test]
fn cmp_conditions() {
    let s = sim("cmp_conditions");
    let r = reg(&s, 0, "uref");
    for (uref, vin) in [
        ([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]),
        ([1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 2.0, 5.0]),
        ([0.0, 5.0, -1.0, 0.0], [-1.0, 5.0, 7.0, -2.0]),
        ([3.0, -3.0, 9.0, 9.0], [4.0, -4.0, 1.0, 9.0]),
    ] {
        let mut u = Uniforms::default();
        u.float[r] = uref;
        let out = s.run(0, &inputs(&[vin]), &u).unwrap();
        let mut x = 0.0;
        let (cx, cy) = (uref[0] == vin[0], uref[1] != vin[1]);
        x += if cx { 1.0 } else { 0.0 } + if cy { 2.0 } else { 0.0 };
        let (cx, cy) = (uref[0] < vin[0], uref[1] <= vin[1]);
        x += if !cx { 4.0 } else { 0.0 } + if !cy { 8.0 } else { 0.0 };
        let (cx, cy) = (uref[2] > vin[2], uref[3] >= vin[3]);
        let mut y = 0.0;
        for (cond, bit) in [
            (cx && cy, 1.0),
            (cx || cy, 2.0),
            (!cx && cy, 4.0),
            (cx || !cy, 8.0),
            (!cx && !cy, 16.0),
            (!cy || !cx, 32.0),
        ] {
            if cond {
                y += bit;
            }
        }
        assert_vec(
            out.outputs[1],
            [x, y, 0.0, 0.0],
            &format!("{uref:?} vs {vin:?}"),
        );
        assert_vec(out.outputs[0], vin, "position");
        complete(&out);
    }
}

#[test]
fn flow_if_else() {
    let s = sim("flow_if_else");
    let (bflag, bother) = (reg(&s, 0, "bflag"), reg(&s, 0, "bother"));
    for bits in 0..16 {
        let (px, py, flag, other) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0);
        let vin = [
            if px { 1.0 } else { -1.0 },
            if py { 2.0 } else { 0.0 },
            5.0,
            6.0,
        ];
        let mut u = Uniforms::default();
        u.bool[bflag] = flag;
        u.bool[bother] = other;
        let out = s.run(0, &inputs(&[vin]), &u).unwrap();
        let x = if px { 2.0 } else { 0.0 };
        let y = if py { 2.0 } else { 3.0 };
        let z = if flag {
            if px && py { 1.0 } else { 2.0 }
        } else if px || py {
            3.0
        } else {
            0.0
        };
        let w = if other { 3.0 } else { 0.0 } + if flag { 1.0 } else { 0.0 };
        assert_vec(out.outputs[1], [x, y, z, w], &format!("case {bits:04b}"));
        complete(&out);
    }
}

#[test]
fn flow_jmp_call() {
    let s = sim("flow_jmp_call");
    let (ba, bb) = (reg(&s, 0, "ba"), reg(&s, 0, "bb"));
    for bits in 0..16 {
        let (px, ny, a, b) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0);
        let vin = [
            if px { 1.0 } else { -1.0 },
            if ny { -1.0 } else { 1.0 },
            0.0,
            0.0,
        ];
        let mut u = Uniforms::default();
        u.bool[ba] = a;
        u.bool[bb] = b;
        let out = s.run(0, &inputs(&[vin]), &u).unwrap();
        let (cx, cy) = (0.0 < vin[0], 0.0 >= vin[1]);
        let mut x = 1.0;
        if a {
            x += 3.0;
        }
        if cx {
            x += 1.0;
        }
        if !cx && !cy {
            x += 3.0;
        }
        let y = if cy { 0.0 } else { 1.0 };
        let z = if b { 0.0 } else { 2.0 };
        let w = if a { 4.0 } else { 0.0 };
        assert_vec(out.outputs[1], [x, y, z, w], &format!("case {bits:04b}"));
        complete(&out);
    }
}

#[test]
fn flow_loop_break() {
    let s = sim("flow_loop_break");
    let mut u = Uniforms::default();
    let t = reg(&s, 0, "table");
    for k in 0..8 {
        let f = k as f32;
        u.float[t + k] = [f, 10.0 * f, 100.0 * f, 1000.0 * f];
    }
    // iloop: 3 iterations, aL = 1, 3, 5.
    u.int[reg(&s, 0, "iloop")] = [2, 1, 2, 0];
    let vin = [2.5, 0.0, 0.0, 0.0];
    let out = s.run(0, &inputs(&[vin]), &u).unwrap();
    let sum = [1, 3, 5].iter().fold([0.0; 4], |acc, &k| {
        let e = u.float[t + k];
        [acc[0] + e[0], acc[1] + e[1], acc[2] + e[2], acc[3] + e[3]]
    });
    assert_vec(out.outputs[1], sum, "sum over table[aL]");
    // r1.x counts 1, 2, 3 and breaks at 3 >= 2.5, after adding table[0].y and table[1].y.
    assert_vec(out.outputs[3], [3.0, 0.0 + 10.0, 0.0, 0.0], "breakc");
    // The break leaves after one pass (table[aL+1] with aL = 0); 2 x 2 nested passes add 0.5.
    assert_vec(
        out.outputs[2],
        [1.0, 2.0, 0.0, 0.0],
        "break and nested loops",
    );
    assert_vec(out.outputs[0], vin, "position");
    complete(&out);
}

#[test]
fn uniforms_all_kinds() {
    let s = sim("uniforms_all_kinds");
    let mut u = Uniforms::default();
    let f = |name| reg(&s, 0, name);
    u.float[f("ufirst")] = [1.0, 1.0, 1.0, 1.0];
    let m = f("umat");
    for k in 0..4 {
        let mut row = [0.0; 4];
        row[k] = 2.0;
        u.float[m + k] = row;
    }
    u.float[f("u.dotted")] = [0.5, 0.5, 0.5, 0.5];
    u.float[6] = [0.25, 0.25, 0.25, 0.25]; // _hidden, not in the table, at c6
    let l = f("ulast");
    u.float[l] = [2.0, 2.0, 2.0, 2.0];
    u.float[l + 1] = [4.0, 4.0, 4.0, 4.0];
    u.int[f("iarr") + 1] = [2, 0, 1, 0];
    u.bool[f("bsingle")] = true;
    u.bool[f("barr") + 2] = false;
    u.bool[11] = true; // overridden by `.setb b11 off`
    let vpos = [1.0, 2.0, 3.0, 4.0];
    let vnorm = [1.0, 0.0, -1.0, 0.5];
    let vextra = [1.0, 1.0, 1.0, 1.0];
    let out = s
        .run(0, &inputs(&[vpos, vnorm, [0.0; 4], vextra]), &u)
        .unwrap();
    let o = out.outputs;
    assert_vec(o[0], [4.0, 6.0, 8.0, 10.0], "umat * (vpos + ufirst)");
    let r1 = vnorm.map(|x| (x + 0.5 + 0.25) * 4.0);
    assert_vec(
        o[1],
        [0, 1, 2, 3].map(|k| vextra[k] * 2.0 + r1[k]),
        "mad with ulast",
    );
    // r3 = kpad[1] (0) + karr[2] + karr[0] + karr[1]; then 3 x 65504 in x and 6 x 0.1 in y.
    let kpi_y = 0.099_999_43;
    let r3 = [
        -8.0 + 1.0 + 0.25 + 3.0 * 65504.0,
        16.0 + 2.0 + 0.5 + 6.0 * kpi_y,
        -32.0 + 3.0 + 0.75,
        64.0 + 4.0 + 1.0,
    ];
    assert_vec(o[2], r3, "constants and loops");
    // r2 = c40 + kpad[0] (bsingle) + (0, kpi.y, 0, 0) (b10 true); b3 and b11 false.
    let r2 = [1.5 + 5.0, 2.5 + 6.0 + kpi_y, 3.5 + 7.0, 4.5 + 8.0];
    // kodd = (0, inf, -0, subnormal): the products are 0, inf, 0 and 0 (flushed).
    assert_vec(o[3], [0.0, f32::INFINITY, 0.0, 0.0], "kodd * r2");
    assert!(r2[1] > 0.0);
    complete(&out);
}

#[test]
fn outputs_all_semantics() {
    let s = sim("outputs_all_semantics");
    let (vpos, vnrm, vclr, vtc) = (
        [1.0, 2.0, 3.0, 4.0],
        [5.0, 6.0, 7.0, 8.0],
        [0.1, 0.2, 0.3, 0.4],
        [9.0, 10.0, 11.0, 12.0],
    );
    let out = s
        .run(0, &inputs(&[vpos, vnrm, vclr, vtc]), &Uniforms::default())
        .unwrap();
    let o = out.outputs;
    assert_vec(o[0], vpos, "position");
    assert_vec(o[1], vnrm, "normalquat");
    assert_vec(o[2], vclr, "color");
    assert_vec(
        [o[3][0], o[3][1], o[3][2], 0.0],
        [9.0, 10.0, 12.0, 0.0],
        "texcoord0 + texcoord0w",
    );
    assert_vec(o[4], [11.0, 12.0, 9.0, 10.0], "texcoord1 + texcoord2");
    assert_vec(
        [o[5][0], o[5][1], o[5][2], 0.0],
        [-1.0, -2.0, -3.0, 0.0],
        "view",
    );
    assert_vec(o[7], [8.0, 7.0, 6.0, 5.0], "dummy");
    assert_eq!(out.written[6], Mask::NONE);
    complete(&out);
}

#[test]
fn mad_forms() {
    let s = sim("mad_forms");
    let mut u = Uniforms::default();
    let (scale, off) = ([2.0, 3.0, 4.0, 5.0], [0.5, 0.25, -1.0, 8.0]);
    u.float[reg(&s, 0, "uscale")] = scale;
    u.float[reg(&s, 0, "uoff")] = off;
    let a = reg(&s, 0, "uarr");
    let arr = [
        [1.0, 1.0, 1.0, 1.0],
        [2.0, -2.0, 2.0, -2.0],
        [10.0, 20.0, 30.0, 40.0],
    ];
    for (k, e) in arr.iter().enumerate() {
        u.float[a + k] = *e;
    }
    let v = [1.0, -2.0, 3.0, 0.5];
    let out = s.run(0, &inputs(&[v]), &u).unwrap();
    let o = out.outputs;
    let each = |f: &dyn Fn(usize) -> f32| [f(0), f(1), f(2), f(3)];
    let yxwz = [1, 0, 3, 2];
    assert_vec(o[0], each(&|k| v[k] * scale[k] + v[k]), "mad");
    assert_vec(
        o[1],
        each(&|k| (-v[yxwz[k]]) * (-scale[2]) - v[k]),
        "all negated",
    );
    assert_vec(o[2], each(&|k| v[k] * v[k] + off[k]), "madi");
    let zwzw = [2, 3, 2, 3];
    let wzyx = [3, 2, 1, 0];
    let o3 = each(&|k| {
        if k < 2 {
            v[zwzw[k]] * v[k] - off[wzyx[k]]
        } else {
            v[k] * arr[1][k] + v[k]
        }
    });
    assert_vec(o[3], o3, "partial masks, relative src2");
    assert_vec(o[4], each(&|k| v[k] * v[k] + arr[2][k]), "relative src3");
    let yxwz_scale = [scale[1], scale[0], scale[3], scale[2]];
    assert_vec(
        o[5],
        each(&|k| v[3] * yxwz_scale[k] - v[k]),
        "swapped descriptor",
    );
    let xxyy = [0, 0, 1, 1];
    assert_eq!(out.written[6].to_string(), "yw");
    assert_vec(
        [0.0, o[6][1], 0.0, o[6][3]],
        [
            0.0,
            v[xxyy[1]] * -v[1] + off[2],
            0.0,
            v[xxyy[3]] * -v[3] + off[2],
        ],
        "o6.yw",
    );
    // The program declares o6 with all four components but writes only y and w.
    assert_eq!(out.missing, vec![(6, Mask::new(0b0101).unwrap())]);
}

#[test]
fn gsh_point() {
    let s = sim("gsh_point");
    assert_eq!(s.binary().dvles.len(), 2);
    // Vertex shader.
    let mut u = Uniforms::default();
    let m = reg(&s, 0, "mvp");
    let mvp = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    u.float[m..m + 4].copy_from_slice(&mvp);
    let (pos, size, clr) = (
        [1.0, 2.0, 3.0, 1.0],
        [0.5, 0.25, 0.0, 0.0],
        [1.0, 0.0, 0.0, 1.0],
    );
    let vs = s.run(0, &inputs(&[pos, size, clr]), &u).unwrap();
    assert_vec(vs.outputs[0], [2.0, 2.0, 3.0, 1.0], "clip");
    complete(&vs);
    // Geometry shader: its inputs are the vertex shader's outputs, its uniforms its own space.
    let mut g = Uniforms::default();
    assert_eq!(
        s.binary().dvles[1].uniforms[0].range().map(|r| r.0),
        Some(UniformFile::Float)
    );
    g.float[reg(&s, 1, "halfsize")] = [2.0, 2.0, 0.0, 0.0];
    let gs = s
        .run(
            1,
            &inputs(&[vs.outputs[0], vs.outputs[1], vs.outputs[2]]),
            &g,
        )
        .unwrap();
    let c = vs.outputs[0];
    let (hx, hy) = (2.0 * size[0], 2.0 * size[1]);
    let expect = [
        (0, false, false, [c[0] - hx, c[1] - hy]),
        (1, false, false, [c[0] + hx, c[1] - hy]),
        (2, true, false, [c[0] - hx, c[1] + hy]),
        (0, true, true, [c[0] + hx, c[1] + hy]),
    ];
    assert_eq!(gs.vertices.len(), 4);
    for (v, (id, prim, inv, xy)) in gs.vertices.iter().zip(expect) {
        assert_eq!((v.vertex, v.primitive, v.winding), (id, prim, inv));
        assert_vec(v.outputs[0], [xy[0], xy[1], c[2], c[3]], "corner");
        assert_vec(v.outputs[1], clr, "corner colour");
        assert_eq!(v.written[0], Mask::XYZW);
    }
}
