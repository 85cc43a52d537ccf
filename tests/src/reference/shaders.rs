//! The references, one per corpus shader, each following its shader's source line by line
//! (see the shader files in `tests/fixtures/glsl`).

#![allow(clippy::needless_range_loop)] // index-based matrix and lane maths reads closest to GLSL

use std::array::from_fn;

use super::maths::*;
use super::{CM, Ctx, Expect, RM, loc, outputs, pos};

// ------------------------------------------------------------------------------------------
// The references, one per shader, following its source line by line.
// ------------------------------------------------------------------------------------------

pub fn mvp_color(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvp", CM, &mvp);
    let p: V3 = c.v(-2.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &color);
    outputs(vec![pos(mv(&mvp, v4(p, 1.0))), loc(0, &color)])
}

pub fn modelview_proj_texcoord(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let p: V4 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &color);
    let eye = mv(&model_view, p);
    outputs(vec![pos(mv(&proj, eye)), loc(1, &tc), loc(0, &color)])
}

pub fn vertex_lighting(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let normal_matrix: Mat<3, 3> = c.rmat(-1.0, 1.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    c.set_mat("normalMatrix", CM, &normal_matrix);
    let mut light_pos: V4 = c.v(-3.0, 3.0);
    light_pos[3] = c.pick(&[0.0, 1.0]);
    let [ld, ls, amb, md, ms]: [V4; 5] = from_fn(|_| c.v(0.0, 1.0));
    let shininess = c.f(1.0, 16.0);
    c.set("lightPosEye", &light_pos);
    c.set("lightDiffuse", &ld);
    c.set("lightSpecular", &ls);
    c.set("ambient", &amb);
    c.set("materialDiffuse", &md);
    c.set("materialSpecular", &ms);
    c.set("shininess", &[shininess]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&normal_matrix, n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let l = sub(xyz(light_pos), sc(xyz(eye), light_pos[3]));
    long(l, 0.2)?;
    let l = normalize(l);
    long(xyz(eye), 0.2)?;
    let v = normalize(neg(xyz(eye)));
    long(add(l, v), 0.2)?;
    let h = normalize(add(l, v));
    away(dot(n, l), 0.0, 1e-3)?; // NdotL > 0.0 decides whether pow() counts
    let ndotl = dot(n, l).max(0.0);
    let ndoth = dot(n, h).max(0.0);
    c.path(if ndotl > 0.0 { "lit" } else { "unlit" });
    let spec = if ndotl > 0.0 {
        ndoth.powf(shininess)
    } else {
        0.0
    };
    let color = add(
        add(mul(xyz(amb), xyz(md)), mul(sc(xyz(ld), ndotl), xyz(md))),
        mul(sc(xyz(ls), spec), xyz(ms)),
    );
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &v4(color, md[3])),
        loc(1, &tc),
    ])
}

pub fn normal_quat(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let mut model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let emission: V4 = c.v(0.0, 1.0);
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let mut n_in: V3 = c.v(-1.0, 1.0);
    // One case in six: a normal pointing exactly along -Z after the transform (exact in f32),
    // which takes the degenerate branch.
    let degenerate = c.int(0, 5) == 0;
    if degenerate {
        let s = c.pick(&[0.5, 1.0, 2.0]);
        model_view[2] = [0.0, 0.0, s, model_view[2][3]];
        n_in = [0.0, 0.0, -c.pick(&[0.25, 1.0, 2.0])];
    }
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    c.set("materialEmission", &emission);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &n_in);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let w = 1.0 + n[2];
    let q = if w > 0.00001 {
        // Away from the threshold, and where 1 + n.z does not lose most of its digits.
        (w > 0.05).then_some(())?;
        c.path("quat");
        normalize([-n[1], n[0], 0.0, w])
    } else {
        assert!(degenerate);
        c.path("degenerate");
        [1.0, 0.0, 0.0, 0.0]
    };
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &emission),
        loc(1, &tc),
        loc(4, &q),
        loc(5, &neg(xyz(eye))),
    ])
}

pub fn fog(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let start = c.f(0.0, 5.0);
    let end = start + c.f(1.0, 10.0);
    let end = end as f32 as f64;
    let density = c.f(0.0, 0.5);
    c.set("fogStart", &[start]);
    c.set("fogEnd", &[end]);
    c.set("fogDensity", &[density]);
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &color);
    let eye = mv(&model_view, v4(p, 1.0));
    let dist = length(xyz(eye));
    let linear = sat((end - dist) / (end - start));
    let fd = density * dist;
    let exp_fog = sat((-fd * fd).exp());
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &color),
        loc(1, &tc),
        loc(2, &[linear, exp_fog]),
    ])
}

pub fn skinning4(c: &mut Ctx) -> Option<Expect> {
    let vp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("viewProjection", CM, &vp);
    let light_dir: V4 = c.v(-1.0, 1.0);
    let light_color: V4 = c.v(0.0, 1.0);
    let ambient: V4 = c.v(0.0, 0.5);
    c.set("lightDirWorld", &light_dir);
    c.set("lightColor", &light_color);
    c.set("ambientColor", &ambient);
    let bones: [Mat<4, 4>; 16] = from_fn(|_| c.rmat(-1.5, 1.5));
    for (i, b) in bones.iter().enumerate() {
        c.set_mat_at("bones", i as u32, CM, b);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    // Float bone indices with a fractional part: int() truncates.
    let indices: V4 = c.v(0.0, 15.99);
    let weights: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);
    c.input(3, &indices);
    c.input(4, &weights);

    let mut skinned_pos = [0.0; 4];
    let mut skinned_normal = [0.0; 3];
    for i in 0..4 {
        let bone = &bones[indices[i] as usize];
        skinned_pos = add(skinned_pos, sc(mv(bone, v4(p, 1.0)), weights[i]));
        skinned_normal = add(skinned_normal, sc(xyz(mv(bone, v4(n_in, 0.0))), weights[i]));
    }
    long(skinned_normal, 0.2)?;
    let n = normalize(skinned_normal);
    let diffuse = dot(n, xyz(light_dir)).max(0.0);
    outputs(vec![
        pos(mv(&vp, v4(xyz(skinned_pos), 1.0))),
        loc(
            0,
            &v4(add(xyz(ambient), sc(xyz(light_color), diffuse)), 1.0),
        ),
        loc(1, &tc),
    ])
}

pub fn skinning2_affine(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", RM, &proj);
    let bones: [Mat<4, 3>; 24] = from_fn(|_| c.rmat(-1.5, 1.5));
    for (i, b) in bones.iter().enumerate() {
        c.set_mat_at("bones", i as u32, RM, b);
    }
    let tint: V4 = c.v(0.0, 1.0);
    c.set("tint", &tint);
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let indices: V2 = c.v(0.0, 23.99);
    let w0 = c.f(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &indices);
    c.input(3, &[w0]);
    let p4 = v4(p, 1.0);
    let (b0, b1) = (indices[0] as usize, indices[1] as usize);
    let skinned = add(sc(mv(&bones[b0], p4), w0), sc(mv(&bones[b1], p4), 1.0 - w0));
    outputs(vec![
        pos(mv(&proj, v4(skinned, 1.0))),
        loc(0, &tint),
        loc(1, &tc),
    ])
}

pub fn lights_const_loop(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-1.0, 1.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let mut light_pos = [[0.0; 4]; 4];
    let mut light_color = [[0.0; 4]; 4];
    for i in 0..4 {
        light_pos[i] = c.v(-3.0, 3.0);
        light_pos[i][3] = c.f(0.01, 0.5);
        light_color[i] = c.v(0.0, 1.0);
        c.set_at("lightPosEye", i as u32, &light_pos[i]);
        c.set_at("lightColor", i as u32, &light_color[i]);
    }
    let ambient: V4 = c.v(0.0, 0.5);
    c.set("ambient", &ambient);
    let p: V3 = c.v(-1.5, 1.5);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let mut total = xyz(ambient);
    for i in 0..4 {
        let to_light = sub(xyz(light_pos[i]), xyz(eye));
        let d2 = dot(to_light, to_light);
        (d2 > 0.05).then_some(())?;
        let l = sc(to_light, 1.0 / d2.sqrt());
        let atten = (1.0 - d2 * light_pos[i][3]).max(0.0);
        total = add(total, sc(xyz(light_color[i]), dot(n, l).max(0.0) * atten));
    }
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &v4(total.map(|x| x.min(1.0)), 1.0)),
        loc(1, &tc),
    ])
}

pub fn lights_uniform_loop(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let normal_matrix: Mat<3, 3> = c.rmat(-1.0, 1.0);
    c.set_mat("mvp", CM, &mvp);
    c.set_mat("normalMatrix", CM, &normal_matrix);
    let ambient: V4 = c.v(0.0, 0.5);
    c.set("ambient", &ambient);
    let count = c.int(-1, 8);
    c.set("numLights", &[count as f64]);
    let dirs: [V4; 8] = from_fn(|_| c.v(-1.0, 1.0));
    let colors: [V4; 8] = from_fn(|_| c.v(0.0, 1.0));
    for i in 0..8 {
        c.set_at("lightDir", i as u32, &dirs[i]);
        c.set_at("lightColor", i as u32, &colors[i]);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &color);

    let nn = mv(&normal_matrix, n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let mut lit = xyz(ambient);
    c.path(format!("n={count}"));
    for i in 0..count.max(0) as usize {
        let ndl = dot(n, xyz(dirs[i])).max(0.0);
        lit = add(lit, sc(xyz(colors[i]), ndl));
    }
    outputs(vec![
        pos(mv(&mvp, v4(p, 1.0))),
        loc(0, &v4(mul(xyz(color), lit), color[3])),
    ])
}

pub fn bool_uniform_branch(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let material: V4 = c.v(0.0, 1.0);
    c.set("materialColor", &material);
    let (sphere_map, use_vertex_color) = (c.coin(), c.coin());
    // std140 bools (uint in SPIR-V), carried in floats: 1 or 0.
    c.set("sphereMap", &[sphere_map as u8 as f64]);
    c.set("useVertexColor", &[use_vertex_color as u8 as f64]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);
    c.input(3, &color);

    let eye = mv(&model_view, v4(p, 1.0));
    c.path(if sphere_map { "sphere" } else { "texcoord" });
    c.path(if use_vertex_color {
        "vertex colour"
    } else {
        "material"
    });
    let uv = if sphere_map {
        long(xyz(eye), 0.2)?;
        let u = normalize(xyz(eye));
        let nn = mv(&mat3(&model_view), n_in);
        long(nn, 0.2)?;
        let n = normalize(nn);
        let r = reflect(u, n);
        let m = 2.0 * (r[0] * r[0] + r[1] * r[1] + (r[2] + 1.0) * (r[2] + 1.0)).sqrt();
        (m > 0.2).then_some(())?;
        adds(sc(xy(r), 1.0 / m), 0.5)
    } else {
        tc
    };
    let out_color = if use_vertex_color {
        mul(material, color)
    } else {
        material
    };
    outputs(vec![pos(mv(&proj, eye)), loc(0, &out_color), loc(1, &uv)])
}

pub fn computed_branch(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let light: V4 = c.v(-1.0, 1.0);
    let [front, back, ambient]: [V4; 3] = from_fn(|_| c.v(0.0, 1.0));
    c.set("lightDirEye", &light);
    c.set("frontColor", &front);
    c.set("backColor", &back);
    c.set("ambient", &ambient);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let mut n = normalize(nn);
    let v = neg(xyz(eye));
    away(dot(n, v), 0.0, 1e-3 * (1.0 + length(v)))?;
    let material = if dot(n, v) < 0.0 {
        n = neg(n);
        c.path("back");
        back
    } else {
        c.path("front");
        front
    };
    let diffuse = dot(n, xyz(light)).max(0.0);
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(
            0,
            &v4(mul(xyz(material), adds(xyz(ambient), diffuse)), material[3]),
        ),
    ])
}

pub fn billboard(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let atlas: V4 = c.v(-1.0, 1.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    c.set("atlasRect", &atlas);
    let center: V3 = c.v(-2.0, 2.0);
    let corner: V2 = c.v(-0.5, 0.5);
    let size_rot = [
        c.f(0.1, 2.0),
        c.f(-std::f64::consts::PI, std::f64::consts::PI),
    ];
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &center);
    c.input(1, &corner);
    c.input(2, &size_rot);
    c.input(3, &color);

    let mut eye = mv(&model_view, v4(center, 1.0));
    let (s, co) = (size_rot[1].sin(), size_rot[1].cos());
    let offset = sc(
        [
            corner[0] * co - corner[1] * s,
            corner[0] * s + corner[1] * co,
        ],
        size_rot[0],
    );
    eye[0] += offset[0];
    eye[1] += offset[1];
    let tc = add(xy(atlas), mul(adds(corner, 0.5), zw(atlas)));
    outputs(vec![pos(mv(&proj, eye)), loc(0, &color), loc(1, &tc)])
}

pub fn texture_matrix(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let tm: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvp", CM, &mvp);
    c.set_mat("textureMatrix0", CM, &tm);
    let so: V4 = c.v(-2.0, 2.0);
    let diffuse: V4 = c.v(0.0, 1.0);
    c.set("scaleOffset1", &so);
    c.set("diffuse", &diffuse);
    let p: V3 = c.v(-2.0, 2.0);
    let tc0: V2 = c.v(-1.0, 2.0);
    let tc1: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &tc0);
    c.input(2, &tc1);
    let t = mv(&tm, [tc0[0], tc0[1], 0.0, 1.0]);
    outputs(vec![
        pos(mv(&mvp, v4(p, 1.0))),
        loc(0, &diffuse),
        loc(1, &[t[0], t[1], t[3]]),
        loc(2, &add(mul(tc1, xy(so)), zw(so))),
    ])
}

pub fn starling_vert(c: &mut Ctx) -> Option<Expect> {
    let m: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvpMatrix", RM, &m);
    let alpha: V4 = c.v(0.0, 1.0);
    c.set("alpha", &alpha);
    let p: V2 = c.v(-100.0, 100.0);
    let tc: V2 = c.v(0.0, 1.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &color);
    outputs(vec![
        pos(mv(&m, [p[0], p[1], 0.0, 1.0])),
        loc(0, &tc),
        loc(1, &mul(color, alpha)),
    ])
}

pub fn skybox_v(c: &mut Ctx) -> Option<Expect> {
    let vp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("viewProjection", RM, &vp);
    let camera: V4 = c.v(-5.0, 5.0);
    let scale: V4 = c.v(0.5, 3.0);
    c.set("cameraPosition", &camera);
    c.set("scale", &scale);
    let p: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    let world = add(mul(p, xyz(scale)), xyz(camera));
    let clip = mv(&vp, v4(world, 1.0));
    outputs(vec![pos([clip[0], clip[1], clip[3], clip[3]]), loc(0, &p)])
}

pub fn helper_functions(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let [key_dir, fill_dir]: [V4; 2] = from_fn(|_| c.v(-1.0, 1.0));
    let [key_color, fill_color, rim_color]: [V4; 3] = from_fn(|_| c.v(0.0, 1.0));
    let rim_power = c.f(1.0, 8.0);
    c.set("keyLightDir", &key_dir);
    c.set("keyLightColor", &key_color);
    c.set("fillLightDir", &fill_dir);
    c.set("fillLightColor", &fill_color);
    c.set("rimColor", &rim_color);
    c.set("rimPower", &[rim_power]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);

    let to_eye = |m: &Mat<4, 4>, p: V3| mv(m, v4(p, 1.0));
    let lambert = |n: V3, l: V3, paths: &mut Vec<String>| {
        let d = dot(n, l);
        if d <= 0.0 {
            paths.push("early return".into());
            return 0.0;
        }
        d
    };
    let add_light = |n: V3, dir: V3, color: V3, accum: &mut V3, paths: &mut Vec<String>| {
        long(dir, 0.2)?;
        *accum = add(*accum, sc(color, lambert(n, normalize(dir), paths)));
        Some(())
    };
    let rim = |n: V3, v: V3| {
        let r = 1.0 - dot(n, v).max(0.0);
        sc(xyz(rim_color), r.powf(rim_power))
    };

    let eye = to_eye(&model_view, p);
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    long(xyz(eye), 0.2)?;
    let v = normalize(neg(xyz(eye)));
    let mut light = [0.0; 3];
    add_light(n, xyz(key_dir), xyz(key_color), &mut light, &mut c.paths)?;
    add_light(n, xyz(fill_dir), xyz(fill_color), &mut light, &mut c.paths)?;
    let rim_light = rim(n, v);
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &v4(add(light, rim_light), 1.0)),
        loc(1, &tc),
    ])
}

pub fn struct_lights(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-1.0, 1.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let mut lights = [([0.0; 3], 0.0, [0.0; 4]); 4];
    for (i, light) in lights.iter_mut().enumerate() {
        *light = (c.v(-3.0, 3.0), c.f(2.0, 10.0), c.v(0.0, 1.0));
        c.set(&format!("lights[{i}].position"), &light.0);
        c.set(&format!("lights[{i}].range"), &[light.1]);
        c.set(&format!("lights[{i}].color"), &light.2);
    }
    let ambient: V4 = c.v(0.0, 0.5);
    c.set("ambient", &ambient);
    let p: V3 = c.v(-1.0, 1.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let mut sum = xyz(ambient);
    for (position, range, color) in lights {
        let d = sub(position, xyz(eye));
        let dist = length(d);
        (dist > 0.1).then_some(())?;
        let falloff = sat(1.0 - dist / range);
        sum = add(
            sum,
            sc(xyz(color), dot(n, sc(d, 1.0 / dist)).max(0.0) * falloff),
        );
    }
    outputs(vec![pos(mv(&proj, eye)), loc(0, &v4(sum, 1.0))])
}

pub fn row_major_block(c: &mut Ctx) -> Option<Expect> {
    let wvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let world_inverse: Mat<3, 3> = c.rmat(-1.0, 1.0);
    c.set_mat("worldViewProj", RM, &wvp);
    c.set_mat("worldInverse", RM, &world_inverse);
    let light: V4 = c.v(-1.0, 1.0);
    let diffuse: V4 = c.v(0.0, 1.0);
    c.set("lightDir", &light);
    c.set("diffuse", &diffuse);
    let p: V4 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);
    let nn = vm(n_in, &world_inverse);
    long(nn, 0.2)?;
    let n = normalize(nn);
    outputs(vec![
        pos(mv(&wvp, p)),
        loc(
            0,
            &v4(sc(xyz(diffuse), dot(n, xyz(light)).max(0.0)), diffuse[3]),
        ),
        loc(1, &tc),
    ])
}

pub fn column_major_block(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let normal_matrix: Mat<3, 3> = c.rmat(-1.0, 1.0);
    let uv_rotation: Mat<2, 2> = c.rmat(-1.0, 1.0);
    let uv_project: Mat<4, 2> = c.rmat(-1.0, 1.0);
    c.set_mat("modelViewProjection", CM, &mvp);
    c.set_mat("normalMatrix", CM, &normal_matrix);
    c.set_mat("uvRotation", CM, &uv_rotation);
    c.set_mat("uvProject", CM, &uv_project);
    let light: V4 = c.v(-1.0, 1.0);
    let color: V4 = c.v(0.0, 1.0);
    c.set("lightDir", &light);
    c.set("color", &color);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);
    let nn = mv(&normal_matrix, n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let ndl = dot(n, xyz(light)).max(0.0);
    let uv = adds(mv(&uv_rotation, adds(tc, -0.5)), 0.5);
    let uv = add(uv, mv(&uv_project, v4(p, 0.0)));
    outputs(vec![
        pos(mv(&mvp, v4(p, 1.0))),
        loc(0, &v4(sc(xyz(color), ndl), color[3])),
        loc(1, &uv),
    ])
}

pub fn switch_texgen(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let [plane_s, plane_t]: [V4; 2] = from_fn(|_| c.v(-1.0, 1.0));
    let color: V4 = c.v(0.0, 1.0);
    let mode = c.int(-1, 5);
    c.set("planeS", &plane_s);
    c.set("planeT", &plane_t);
    c.set("color", &color);
    c.set("mode", &[mode as f64]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);

    let obj = v4(p, 1.0);
    let eye = mv(&model_view, obj);
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let en = normalize(nn);
    long(xyz(eye), 0.2)?;
    c.path(format!("mode {}", mode.clamp(-1, 4)));
    let tc_out = match mode {
        0 => [tc[0], tc[1], 0.0],
        1 => [dot(plane_s, obj), dot(plane_t, obj), 0.0],
        2 => {
            let r = reflect(normalize(xyz(eye)), en);
            let m = 2.0 * length(add(r, [0.0, 0.0, 1.0]));
            (m > 0.2).then_some(())?;
            let uv = adds(sc(xy(r), 1.0 / m), 0.5);
            [uv[0], uv[1], 0.0]
        }
        3 => reflect(normalize(xyz(eye)), en),
        _ => [0.0; 3],
    };
    outputs(vec![pos(mv(&proj, eye)), loc(0, &color), loc(1, &tc_out)])
}

pub fn while_waves(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvp", CM, &mvp);
    let [deep, shallow]: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    let time = c.f(0.0, 10.0);
    let wave_count = c.int(-1, 8);
    c.set("deepColor", &deep);
    c.set("shallowColor", &shallow);
    c.set("time", &[time]);
    c.set("waveCount", &[wave_count as f64]);
    let mut waves = [([0.0; 4], 0.0); 6];
    for (i, w) in waves.iter_mut().enumerate() {
        let mut dir_freq: V4 = c.v(-1.0, 1.0);
        dir_freq[2] = c.f(0.1, 3.0);
        let amplitude = if c.int(0, 3) == 0 {
            0.0
        } else {
            c.f(-0.5, 1.0)
        };
        *w = (dir_freq, amplitude);
        c.set(&format!("waves[{i}].dirFreq"), &dir_freq);
        c.set(&format!("waves[{i}].amplitude"), &[amplitude]);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &tc);

    let mut height = 0.0;
    let mut slope = [0.0; 2];
    let mut i = 0;
    loop {
        if i >= wave_count || i >= 6 {
            c.path(if i >= 6 {
                "break at 6"
            } else {
                "break at waveCount"
            });
            break;
        }
        let (dir_freq, amplitude) = waves[i as usize];
        i += 1;
        if amplitude <= 0.0 {
            c.path("continue");
            continue;
        }
        c.path("wave");
        let phase = dot(xy(dir_freq), [p[0], p[2]]) * dir_freq[2] + time * dir_freq[3];
        height += amplitude * phase.sin();
        slope = add(
            slope,
            sc(xy(dir_freq), amplitude * dir_freq[2] * phase.cos()),
        );
    }
    let displaced = [p[0], p[1] + height, p[2]];
    let steep = sat(length(slope));
    outputs(vec![
        pos(mv(&mvp, v4(displaced, 1.0))),
        loc(0, &mixv(deep, shallow, steep)),
        loc(1, &add(tc, sc(slope, 0.05))),
    ])
}

pub fn builtins(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let [base, glow]: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    let focus_point: V4 = c.v(-3.0, 3.0);
    let time = c.f(0.0, 10.0);
    let scanlines = c.f(1.0, 20.0);
    let gamma = c.f(0.5, 3.0);
    c.set("baseColor", &base);
    c.set("glowColor", &glow);
    c.set("focusPoint", &focus_point);
    c.set("time", &[time]);
    c.set("scanlines", &[scanlines]);
    c.set("gamma", &[gamma]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let t_in: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &t_in);

    let mut eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let t = mv(&mat3(&model_view), t_in);
    long(t, 0.2)?;
    let t = sc(t, 1.0 / dot(t, t).sqrt());
    let b = cross(n, t);
    long(xyz(eye), 0.2)?;
    let v = normalize(neg(xyz(eye)));
    let r = reflect(neg(v), n);
    let fresnel = (1.0 - sat(dot(n, v))).powi(3);

    // atan(y, x): keep away from the branch cut (x < 0, y = ±0) and the origin.
    let xz_len = length([p[0], p[2]]);
    (xz_len > 0.1).then_some(())?;
    if p[0] < 0.0 {
        away(p[2], 0.0, 1e-2)?;
    }
    let angle = p[2].atan2(p[0]);
    let tilt = (p[1] / xz_len.max(0.001)).atan();
    // The compiler's atan is a polynomial with error below 1e-4 rad; scaled by 1/2π and 1/π
    // here, that is below 1.6e-5 and 3.2e-5, inside the default tolerance.
    #[allow(clippy::approx_constant)] // the shader's own literals
    let uv = [angle * 0.15915494 + 0.5, tilt * 0.31830989 + 0.5];

    let scan = p[1] * scanlines;
    let line = fract(scan + time);
    // fract, floor and step are discontinuous: keep away from their jumps.
    away(fract(scan + time + 1e-3), 1e-3, 2e-3)?; // line near 0 or 1
    away(line, 0.5, 1e-3)?;
    away(fract(scan + 1e-3), 1e-3, 2e-3)?; // scan near an integer
    let band = scan.floor() * 0.5;
    let on = if line >= 0.5 { 1.0 } else { 0.0 };
    c.path(if on == 1.0 { "on" } else { "off" });

    let wobble = (time * 7.0 + band).sin() * (time * 3.0).cos();
    eye[0] += sign(wobble) * wobble.abs().min(0.05) * on;

    let focus = smoothstep(0.0, 4.0, length(sub(xyz(eye), xyz(focus_point))));
    let intensity = (gamma * (fresnel + 0.2 * on).max(0.0001).log2()).exp2();

    let mut color = mixv(xyz(base), xyz(glow), intensity);
    color = sc(color, 1.0 - 0.5 * focus);
    color = add(color, sc(b.map(f64::abs), 0.1 * r[1].max(0.0)));

    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &v4(color, sat(base[3] + fresnel))),
        loc(1, &uv),
        loc(2, &[line, focus]),
    ])
}

pub fn starling_frag(c: &mut Ctx) -> Option<Expect> {
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &tc);
    c.input(1, &color);
    let t = c.tex2d("texture0", tc, 0.0);
    outputs(vec![loc(0, &mul(t, color))])
}

pub fn color_matrix(c: &mut Ctx) -> Option<Expect> {
    let m: Mat<4, 4> = c.rmat(-1.0, 1.0);
    c.set_mat("matrix", RM, &m);
    let offset: V4 = c.v(-0.5, 0.5);
    c.set("offset", &offset);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &tc);
    let texel = c.tex2d("inputTexture", tc, 0.0);
    let a = texel[3].max(0.0001);
    let straight = v4(sc(xyz(texel), 1.0 / a), texel[3]);
    let result = add(mv(&m, straight), offset).map(sat);
    outputs(vec![loc(0, &v4(sc(xyz(result), result[3]), result[3]))])
}

pub fn blur5(c: &mut Ctx) -> Option<Expect> {
    let step: V4 = c.v(-0.2, 0.2);
    let tint: V4 = c.v(0.0, 2.0);
    c.set("texelStep", &step);
    c.set("tint", &tint);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &tc);
    let o1 = xy(step);
    let o2 = sc(xy(step), 2.0);
    let t = |uv: V2| c.tex2d("source", uv, 0.0);
    let mut sum = sc(t(tc), 0.375);
    sum = add(sum, sc(t(sub(tc, o1)), 0.25));
    sum = add(sum, sc(t(add(tc, o1)), 0.25));
    sum = add(sum, sc(t(sub(tc, o2)), 0.0625));
    sum = add(sum, sc(t(add(tc, o2)), 0.0625));
    outputs(vec![loc(0, &mul(sum, tint))])
}

pub fn skybox_f(c: &mut Ctx) -> Option<Expect> {
    let exposure: V4 = c.v(0.0, 2.0);
    c.set("exposure", &exposure);
    let dir: V3 = c.v(-1.0, 1.0);
    c.input(0, &dir);
    long(dir, 0.2)?;
    outputs(vec![loc(0, &mul(c.tex_cube("skyTexture", dir), exposure))])
}

pub fn distance_field_text(c: &mut Ctx) -> Option<Expect> {
    let outline_color: V4 = c.v(0.0, 1.0);
    let threshold = c.f(0.3, 0.7);
    let softness = c.f(0.02, 0.2);
    let outline_width = if c.coin() { 0.0 } else { c.f(0.0, 0.3) };
    c.set("outlineColor", &outline_color);
    c.set("threshold", &[threshold]);
    c.set("softness", &[softness]);
    c.set("outlineWidth", &[outline_width]);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &tc);
    c.input(1, &color);
    let dist = c.tex2d("distanceField", tc, 0.0)[3];
    c.path(if dist < threshold - softness {
        "outside"
    } else if dist > threshold + softness {
        "inside"
    } else {
        "edge"
    });
    let inner = smoothstep(threshold - softness, threshold + softness, dist);
    let outer_edge = threshold - outline_width;
    let outer = smoothstep(outer_edge - softness, outer_edge + softness, dist);
    let fill = sc(color, inner);
    let outline = sc(outline_color, outer - inner);
    outputs(vec![loc(0, &add(fill, sc(outline, color[3])))])
}

pub fn phong(c: &mut Ctx) -> Option<Expect> {
    let light_pos: V4 = c.v(-3.0, 3.0);
    let [light_color, ambient, specular]: [V4; 3] = from_fn(|_| c.v(0.0, 1.0));
    let shininess = c.f(1.0, 16.0);
    c.set("lightPosEye", &light_pos);
    c.set("lightColor", &light_color);
    c.set("ambientColor", &ambient);
    c.set("specularColor", &specular);
    c.set("shininess", &[shininess]);
    let n_in: V3 = c.v(-1.0, 1.0);
    let eye: V3 = c.v(-3.0, 3.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &n_in);
    c.input(1, &eye);
    c.input(2, &tc);
    long(n_in, 0.2)?;
    let n = normalize(n_in);
    let l = sub(xyz(light_pos), eye);
    long(l, 0.2)?;
    let l = normalize(l);
    long(eye, 0.2)?;
    let v = normalize(neg(eye));
    let r = reflect(neg(l), n);
    let diffuse = dot(n, l).max(0.0);
    let spec = dot(r, v).max(0.0).powf(shininess);
    let albedo = c.tex2d("diffuseMap", tc, 0.0);
    let color = add(
        mul(
            xyz(albedo),
            add(xyz(ambient), sc(xyz(light_color), diffuse)),
        ),
        mul(sc(xyz(specular), spec), xyz(light_color)),
    );
    outputs(vec![loc(0, &v4(color, albedo[3]))])
}

pub fn fog_blend(c: &mut Ctx) -> Option<Expect> {
    let fog_color: V4 = c.v(0.0, 1.0);
    let exp_weight = c.f(0.0, 1.0);
    c.set("fogColor", &fog_color);
    c.set("expWeight", &[exp_weight]);
    let color: V4 = c.v(0.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let fog: V2 = c.v(-0.5, 1.5);
    c.input(0, &color);
    c.input(1, &tc);
    c.input(2, &fog);
    let base = mul(c.tex2d("baseMap", tc, 0.0), color);
    let f = sat(mix(fog[0], fog[1], exp_weight));
    outputs(vec![loc(
        0,
        &v4(mixv(xyz(fog_color), xyz(base), f), base[3]),
    )])
}

pub fn alpha_test(c: &mut Ctx) -> Option<Expect> {
    let alpha_ref = c.f(0.0, 1.0);
    c.set("alphaRef", &[alpha_ref]);
    let color: V4 = c.v(0.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &color);
    c.input(1, &tc);
    let texel = c.tex2d("cutoutMap", tc, 0.0);
    let a = texel[3] * color[3];
    away(a, alpha_ref, 1e-4)?;
    if a < alpha_ref {
        c.path("discard");
        return Some(Expect::Discard);
    }
    c.path("kept");
    outputs(vec![loc(0, &v4(mul(xyz(texel), xyz(color)), 1.0))])
}

pub fn toon_bands(c: &mut Ctx) -> Option<Expect> {
    let light: V4 = c.v(-1.0, 1.0);
    let [highlight, midtone, shadow]: [V4; 3] = from_fn(|_| c.v(0.0, 1.0));
    let threshold = c.f(0.0, 0.6);
    c.set("lightDir", &light);
    c.set("highlight", &highlight);
    c.set("midtone", &midtone);
    c.set("shadow", &shadow);
    c.set("outlineThreshold", &[threshold]);
    let n_in: V3 = c.v(-1.0, 1.0);
    let view: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &n_in);
    c.input(1, &view);
    c.input(2, &tc);
    long(n_in, 0.2)?;
    long(xyz(light), 0.2)?;
    long(view, 0.2)?;
    let n = normalize(n_in);
    let ndl = dot(n, normalize(xyz(light)));
    away(ndl, 0.8, 1e-4)?;
    away(ndl, 0.2, 1e-4)?;
    let band = if ndl > 0.8 {
        c.path("highlight");
        xyz(highlight)
    } else if ndl > 0.2 {
        c.path("midtone");
        xyz(midtone)
    } else {
        c.path("shadow");
        xyz(shadow)
    };
    let albedo = c.tex2d("albedoMap", tc, 0.0);
    let mut color = mul(xyz(albedo), band);
    let facing = dot(n, normalize(view)).abs();
    away(facing, threshold, 1e-4)?;
    if facing < threshold {
        c.path("outline");
        color = sc(color, 0.1);
    } else {
        c.path("face");
        color = sc(color, 1.1).map(|x| x.min(1.0));
    }
    outputs(vec![loc(0, &v4(color, albedo[3]))])
}

pub fn texture_lookups(c: &mut Ctx) -> Option<Expect> {
    let lod_bias = c.f(-2.0, 2.0);
    let glow_level = c.f(0.0, 4.0);
    c.set("lodBias", &[lod_bias]);
    c.set("glowLevel", &[glow_level]);
    let tc: V2 = c.v(-1.0, 2.0);
    let mut decal: V3 = c.v(-2.0, 2.0);
    decal[2] = c.f(0.5, 2.0) * c.pick(&[-1.0, 1.0]);
    let mut light: V4 = c.v(-2.0, 2.0);
    light[3] = c.f(0.5, 2.0) * c.pick(&[-1.0, 1.0]);
    c.input(0, &tc);
    c.input(1, &decal);
    c.input(2, &light);
    let base = c.tex2d("baseMap", tc, lod_bias);
    let decal = c.tex2d("decalMap", [decal[0] / decal[2], decal[1] / decal[2]], 0.0);
    // textureProj on a sampler2D with a vec4: (s/q, t/q); r is ignored.
    let projected = c.tex2d(
        "projectorMap",
        [light[0] / light[3], light[1] / light[3]],
        0.0,
    );
    let glow = c.tex2d("glowMap", tc, glow_level);
    let mut color = mixv(xyz(base), xyz(decal), decal[3]);
    color = mul(color, adds(xyz(projected), 0.5));
    color = add(color, sc(xyz(glow), glow[3]));
    outputs(vec![loc(0, &v4(color, base[3]))])
}

pub fn gl_mvp_fog(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let fog_params = [
        c.f(-2.0, 2.0),
        c.f(0.05, 1.0),
        c.f(-9.0, 9.0),
        c.f(-9.0, 9.0),
    ];
    c.set("fogParams", &fog_params);
    let use_fog = c.coin();
    c.loose_bool("useFog", use_fog);
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &color);
    let eye = mv(&model_view, v4(p, 1.0));
    let mut fog = 1.0;
    c.path(if use_fog { "fog" } else { "no fog" });
    if use_fog {
        fog = sat(1.0 - (-eye[2] - fog_params[0]) * fog_params[1]);
    }
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &color),
        loc(1, &tc),
        loc(2, &[fog]),
    ])
}

pub fn gl_lit(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let normal_matrix: Mat<3, 3> = c.rmat(-1.0, 1.0);
    c.set_mat("modelViewProjection", CM, &mvp);
    c.set_mat("modelView", CM, &model_view);
    c.set_mat("normalMatrix", CM, &normal_matrix);
    let light_pos: V4 = c.v(-3.0, 3.0);
    let [light_color, ambient]: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    let shininess = c.f(1.0, 16.0);
    c.set("lightPosition", &light_pos);
    c.set("lightColor", &light_color);
    c.set("ambient", &ambient);
    c.set("shininess", &[shininess]);
    let (lighting, specular) = (c.coin(), c.coin());
    c.loose_bool("lightingEnabled", lighting);
    c.loose_bool("specularEnabled", specular);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let color_in: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &color_in);

    let mut color = color_in;
    c.path(match (lighting, specular) {
        (false, _) => "unlit",
        (true, false) => "diffuse",
        (true, true) => "specular",
    });
    if lighting {
        let eye = xyz(mv(&model_view, v4(p, 1.0)));
        let nn = mv(&normal_matrix, n_in);
        long(nn, 0.2)?;
        let n = normalize(nn);
        let l = sub(xyz(light_pos), eye);
        long(l, 0.2)?;
        let l = normalize(l);
        let ndl = dot(n, l).max(0.0);
        let mut lit = add(xyz(ambient), sc(xyz(light_color), ndl));
        if specular {
            long(eye, 0.2)?;
            let h = sub(l, normalize(eye));
            long(h, 0.2)?;
            let h = normalize(h);
            lit = add(
                lit,
                sc(xyz(light_color), dot(n, h).max(0.0).powf(shininess)),
            );
        }
        let rgb = mul(xyz(color), lit);
        color = v4(rgb, color[3]);
    }
    outputs(vec![pos(mv(&mvp, v4(p, 1.0))), loc(0, &color)])
}

pub fn gl_skinning(c: &mut Ctx) -> Option<Expect> {
    let vp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("viewProjection", CM, &vp);
    let diffuse: V4 = c.v(0.0, 1.0);
    c.set("diffuseColor", &diffuse);
    let last_bone = c.int(0, 7);
    c.set("lastBone", &[last_bone as f64]);
    let bones: [Mat<4, 4>; 8] = from_fn(|_| c.rmat(-1.5, 1.5));
    for (i, b) in bones.iter().enumerate() {
        c.set_mat_at("bones", i as u32, CM, b);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let indices: V2 = c.v(0.0, 7.99);
    let weights: V2 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &indices);
    c.input(3, &weights);
    let p4 = v4(p, 1.0);
    if indices[0] as i32 > last_bone {
        c.path("clamped");
    }
    let i0 = (indices[0] as i32).min(last_bone) as usize;
    let i1 = (indices[1] as i32).min(last_bone) as usize;
    let world = add(
        sc(mv(&bones[i0], p4), weights[0]),
        sc(mv(&bones[i1], p4), weights[1]),
    );
    outputs(vec![pos(mv(&vp, world)), loc(0, &diffuse), loc(1, &tc)])
}

pub fn gl_textured(c: &mut Ctx) -> Option<Expect> {
    let tint: V4 = c.v(0.0, 1.0);
    let alpha_ref = c.f(0.0, 1.0);
    let alpha_test = c.coin();
    c.set("tint", &tint);
    c.set("alphaRef", &[alpha_ref]);
    c.loose_bool("alphaTest", alpha_test);
    let color: V4 = c.v(0.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &color);
    c.input(1, &tc);
    let out = mul(mul(c.tex2d("diffuseMap", tc, 0.0), color), tint);
    away(out[3], alpha_ref, 1e-4)?;
    if alpha_test && out[3] < alpha_ref {
        c.path("discard");
        return Some(Expect::Discard);
    }
    c.path(if alpha_test { "passed" } else { "no test" });
    outputs(vec![loc(0, &out)])
}

pub fn sprite_vs(c: &mut Ctx) -> Option<Expect> {
    let vp: [[f64; 4]; 4] = c.rmat(-2.0, 2.0);
    c.set_hlsl_mat("viewProjection", 0, &vp);
    let size = [c.f(64.0, 512.0).floor(), c.f(64.0, 512.0).floor()];
    let viewport = [
        size[0],
        size[1],
        (1.0 / size[0]) as f32 as f64,
        (1.0 / size[1]) as f32 as f64,
    ];
    let snap = c.pick(&[0.0, 1.0, 0.25, 0.5]);
    c.set("viewportSize", &viewport);
    c.set("snapToPixel", &[snap]);
    let p: V2 = c.v(-2.0, 2.0);
    let uv: V2 = c.v(0.0, 1.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &uv);
    c.input(2, &color);

    let mut clip = hmul_mv(&vp, [p[0], p[1], 0.0, 1.0]);
    (clip[3].abs() > 0.3).then_some(())?;
    let ndc = sc(xy(clip), 1.0 / clip[3]);
    (ndc[0].abs() < 4.0 && ndc[1].abs() < 4.0).then_some(())?;
    let pixel = mul(adds(sc(ndc, 0.5), 0.5), xy(viewport));
    // round() jumps at .5: keep away.
    away(fract(pixel[0]), 0.5, 0.01)?;
    away(fract(pixel[1]), 0.5, 0.01)?;
    let snapped = sc(
        adds(mul(pixel.map(f64::round), zw(viewport)), -0.5),
        2.0 * clip[3],
    );
    c.path(format!("snap {snap}"));
    let lerped = mixv(xy(clip), snapped, snap);
    clip[0] = lerped[0];
    clip[1] = lerped[1];
    outputs(vec![pos(clip), loc(0, &color), loc(1, &uv)])
}

pub fn sprite_ps(c: &mut Ctx) -> Option<Expect> {
    let tint: V4 = c.v(0.0, 1.0);
    let cutoff = c.f(-0.1, 1.0);
    c.set("tint", &tint);
    c.set("alphaCutoff", &[cutoff]);
    let color: V4 = c.v(0.0, 1.0);
    let uv: V2 = c.v(-1.0, 2.0);
    c.input(0, &color);
    c.input(1, &uv);
    let col = mul(mul(c.tex2d("spriteTexture", uv, 0.0), color), tint);
    away(col[3] - cutoff, 0.0, 1e-4)?;
    if col[3] - cutoff < 0.0 {
        c.path("clip");
        return Some(Expect::Discard);
    }
    c.path("kept");
    outputs(vec![loc(0, &v4(sc(xyz(col), col[3]), col[3]))])
}

pub fn lit_vs(c: &mut Ctx) -> Option<Expect> {
    let world: [[f64; 4]; 4] = c.rmat(-2.0, 2.0);
    let vp: [[f64; 4]; 4] = c.rmat(-2.0, 2.0);
    c.set_hlsl_mat("world", 0, &world);
    c.set_hlsl_mat("viewProjection", 0, &vp);
    let dirs: [V4; 2] = from_fn(|_| c.v(-1.0, 1.0));
    let colors: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    for i in 0..2 {
        c.set_at("lightDirection", i as u32, &dirs[i]);
        c.set_at("lightColor", i as u32, &colors[i]);
    }
    let [ambient, material]: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    c.set("ambientColor", &ambient);
    c.set("materialColor", &material);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let uv: V2 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &uv);

    let world_pos = hmul_vm(v4(p, 1.0), &world);
    let world3: [[f64; 3]; 3] = from_fn(|r| from_fn(|col| world[r][col]));
    let nn = hmul_vm(n_in, &world3);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let mut light = xyz(ambient);
    for i in 0..2 {
        light = add(light, sc(xyz(colors[i]), sat(dot(n, xyz(dirs[i])))));
    }
    outputs(vec![
        pos(hmul_vm(world_pos, &vp)),
        loc(0, &v4(mul(xyz(material), light), material[3])),
        loc(1, &uv),
    ])
}

pub fn skinned_vs(c: &mut Ctx) -> Option<Expect> {
    let vp: [[f64; 4]; 4] = c.rmat(-2.0, 2.0);
    c.set_hlsl_mat("viewProjection", 0, &vp);
    let light: V4 = c.v(-1.0, 1.0);
    c.set("lightDirection", &light);
    // float4x3: 4 rows, 3 columns (m[row][column]).
    let bones: [[[f64; 3]; 4]; 20] = from_fn(|_| from_fn(|_| c.v(-1.5, 1.5)));
    for (i, b) in bones.iter().enumerate() {
        c.set_hlsl_mat("bones", i as u32, b);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let uv: V2 = c.v(0.0, 1.0);
    // uint4 BLENDINDICES arrive as whole numbers in floats.
    let indices: V4 = from_fn(|_| c.int(0, 19) as f64);
    let weights: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &uv);
    c.input(3, &indices);
    c.input(4, &weights);

    let p4 = v4(p, 1.0);
    let mut skinned_pos = [0.0; 3];
    let mut skinned_normal = [0.0; 3];
    for i in 0..4 {
        let bone = &bones[indices[i] as usize];
        let bone3: [[f64; 3]; 3] = from_fn(|r| bone[r]);
        skinned_pos = add(skinned_pos, sc(hmul_vm(p4, bone), weights[i]));
        skinned_normal = add(skinned_normal, sc(hmul_vm(n_in, &bone3), weights[i]));
    }
    long(skinned_normal, 0.2)?;
    let ndl = sat(dot(normalize(skinned_normal), xyz(light)));
    let shade = 0.25 + 0.75 * ndl;
    outputs(vec![
        pos(hmul_vm(v4(skinned_pos, 1.0), &vp)),
        loc(0, &[shade, shade, shade, 1.0]),
        loc(1, &uv),
    ])
}

pub fn tonemap(c: &mut Ctx) -> Option<Expect> {
    let exposure = c.f(0.25, 4.0);
    let bloom_strength = c.f(0.0, 2.0);
    let vignette_strength = c.f(0.0, 1.5);
    let center: V2 = c.v(0.2, 0.8);
    c.set("exposure", &[exposure]);
    c.set("bloomStrength", &[bloom_strength]);
    c.set("vignetteStrength", &[vignette_strength]);
    c.set("vignetteCenter", &center);
    let uv: V2 = c.v(-0.5, 1.5);
    c.input(0, &uv);
    let mut hdr = sc(xyz(c.tex2d("sceneTexture", uv, 0.0)), exposure);
    hdr = add(
        hdr,
        sc(xyz(c.tex2d("bloomTexture", uv, 1.0)), bloom_strength),
    );
    let mut mapped: V3 = from_fn(|i| hdr[i] / (1.0 + hdr[i]));
    let d = sub(uv, center);
    let v = smoothstep(0.8, 0.2, dot(d, d) * 2.0);
    mapped = sc(mapped, mix(1.0, v, vignette_strength));
    let luma = dot(mapped, [0.299, 0.587, 0.114]);
    if mapped.iter().any(|x| *x < 0.0) {
        c.path("saturated");
    }
    outputs(vec![loc(0, &v4(mapped.map(sat), luma))])
}

// --- The 3ds-examples shaders written in GLSL (ctr_*.vert), and the scalar particles. ---

pub fn ctr_simple_tri(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", RM, &proj);
    let p: V3 = c.v(-2.0, 2.0);
    c.input(0, &p);
    outputs(vec![pos(mv(&proj, v4(p, 1.0))), loc(0, &[1.0; 4])])
}

pub fn ctr_skybox(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", RM, &proj);
    c.set_mat("modelView", RM, &model_view);
    let p: V3 = c.v(-2.0, 2.0);
    c.input(0, &p);
    outputs(vec![
        pos(mv(&proj, mv(&model_view, v4(p, 1.0)))),
        loc(1, &p),
    ])
}

pub fn ctr_textured_cube(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", RM, &proj);
    c.set_mat("modelView", RM, &model_view);
    let light_vec: V4 = c.v(-1.0, 1.0);
    let half_vec: V4 = c.v(-1.0, 1.0);
    let light_clr: V4 = c.v(0.0, 1.0);
    c.set("lightVec", &light_vec);
    c.set("lightHalfVec", &half_vec);
    c.set("lightClr", &light_clr);
    let material: [V4; 4] = [c.v(0.0, 1.0), c.v(0.0, 1.0), c.v(0.0, 1.0), c.v(0.0, 1.0)];
    for (i, m) in material.iter().enumerate() {
        c.set_at("material", i as u32, m);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &n_in);
    let eye = mv(&model_view, v4(p, 1.0));
    let nn = xyz(mv(&model_view, v4(n_in, 0.0)));
    long(nn, 0.2)?;
    let n = normalize(nn);
    let diffuse = (-dot(xyz(light_vec), n)).max(0.0);
    let s = dot(neg(xyz(half_vec)), n).max(0.0);
    let shininess = s * s;
    let mut color = material[3];
    color = add(color, mul(material[2], sc(light_clr, shininess)));
    color = add(color, mul(material[1], sc(light_clr, diffuse)));
    color = add(color, mul(material[0], light_clr));
    let color: V4 = from_fn(|i| color[i].min(1.0));
    outputs(vec![pos(mv(&proj, eye)), loc(0, &color), loc(1, &tc)])
}

pub fn ctr_lenny(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let mut model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let p: V3 = c.v(-2.0, 2.0);
    let mut n_in: V3 = c.v(-1.0, 1.0);
    // One case in six: a normal exactly along -Z after the transform (exact in f32), which
    // takes the degenerate branch.
    let degenerate = c.int(0, 5) == 0;
    if degenerate {
        model_view[2] = [0.0, 0.0, -c.pick(&[0.5, 1.0, 2.0]), model_view[2][3]];
        n_in = [0.0, 0.0, 1.0];
    }
    c.set_mat("projection", RM, &proj);
    c.set_mat("modelView", RM, &model_view);
    c.input(0, &p);
    c.input(1, &n_in);
    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let h = (1.0 + n[2]) * 0.5;
    // Away from the branch threshold (but for the exact degenerate cases), and where
    // 1 + n.z keeps its digits.
    if !degenerate {
        away(h, 0.0, 0.02)?;
    }
    let q = if h > 0.0 {
        c.path("quat");
        let r = 1.0 / h.sqrt();
        [0.5 * n[0] * r, 0.5 * n[1] * r, 1.0 / r, 0.0]
    } else {
        c.path("degenerate");
        [1.0, 0.0, 0.0, 0.0]
    };
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &[1.0; 4]),
        loc(4, &q),
        loc(5, &neg(eye)),
    ])
}

pub fn particles_scalar(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvp", CM, &mvp);
    let time: V4 = c.v(0.0, 4.0);
    let gravity: V4 = c.v(-2.0, 2.0);
    let tint: V4 = c.v(0.0, 1.0);
    c.set("time", &time);
    c.set("gravity", &gravity);
    c.set("tint", &tint);
    let position: V4 = c.v(-2.0, 2.0);
    let velocity: V4 = c.v(-1.0, 1.0);
    let params: V4 = c.v(0.0, 1.0);
    c.input(0, &position);
    c.input(1, &velocity);
    c.input(2, &params);
    let age = time[0] - velocity[3];
    let px = position[0] + velocity[0] * age;
    let py = position[1] + velocity[1] * age + gravity[1] * age * age * 0.5;
    let pz = position[2] + velocity[2] * age;
    let life = clamp(1.0 - age * params[2], 0.0, 1.0);
    let size = params[0] * (1.0 + age * 0.25);
    let angle = params[1] * age + params[3];
    let (co, si) = (angle.cos(), angle.sin());
    let color = [
        tint[0] * life,
        tint[1] * life,
        tint[2] * life,
        tint[3] * life * life,
    ];
    outputs(vec![
        pos(mv(&mvp, [px + co * size, py + si * size, pz, 1.0])),
        loc(0, &color),
        loc(1, &[co * 0.5 + 0.5, si * 0.5 + 0.5, life, size]),
    ])
}
