//! `gl_FragCoord`: AGAL has no register for a fragment's window position. When a vertex and a
//! fragment program are compiled as a pair (`spv2agal VERT --link FRAG`,
//! `spv2retro::compile_pair`), the vertex program also writes its clip-space position to a
//! spare varying ([`Options::position_varying`](super::Options)), and the fragment program
//! computes the window position from it and a viewport constant the application uploads:
//! the uniform `spv2retro_viewport` = (width, height, 0, 0) in pixels, listed in the
//! reflection like any uniform.
//!
//! With the origin at the top left (SPIR-V's `OriginUpperLeft`) and Stage3D's clip space
//! (y up, depth 0 to 1): `x = (x_c / w_c + 1) / 2 · width`, `y = (1 - y_c / w_c) / 2 ·
//! height`, `z = z_c / w_c`, `w = 1 / w_c`, at the pixel's centre as the varying is
//! interpolated there.

use crate::rules::CodegenRule;
use mir::func::Terminator;
use mir::inst::{Op, Operand};
use mir::module::{BuiltIn, Input, Output, Uniform};
use mir::{Diagnostic, Diagnostics, Module, Stage, Swizzle, Ty};

/// The uniform the application fills with the viewport's size.
pub const VIEWPORT: &str = "spv2retro_viewport";

/// The varying's name in both programs.
pub const POSITION: &str = "spv2retro_position";

/// Whether the module reads `gl_FragCoord`.
pub fn reads_frag_coord(m: &Module) -> bool {
    m.function
        .layout
        .iter()
        .flat_map(|&b| &m.function.blocks[b].insts)
        .any(|&i| m.function.insts[i].op == Op::FragCoord)
}

/// The module with the position passed on (vertex) or `gl_FragCoord` computed (fragment),
/// when `varying` is given; `None` when nothing changes.
pub fn link(m: &Module, varying: Option<u16>) -> Result<Option<Module>, Diagnostics> {
    match m.stage {
        Stage::Fragment if reads_frag_coord(m) => {
            let Some(k) = varying else {
                return Err(Diagnostics::from(Diagnostic::error(
                    CodegenRule::Unsupported,
                    "gl_FragCoord: AGAL has no register for a fragment's position; compile the \
                     vertex and fragment shaders as a pair (`spv2agal VERT.spv --link \
                     FRAG.spv`, or `spv2retro::compile_pair`) so that the vertex program passes \
                     its position on in a spare varying, and upload the viewport's size to \
                     the uniform `spv2retro_viewport`",
                )));
            };
            Ok(Some(fragment(m, k)))
        }
        _ if reads_frag_coord(m) => Err(Diagnostics::from(Diagnostic::error(
            CodegenRule::Unsupported,
            "gl_FragCoord outside a fragment program: only a fragment has a window position",
        ))),
        Stage::Vertex => Ok(varying.map(|k| vertex(m, k))),
        _ => Ok(None),
    }
}

/// The vertex program also returns its position as the varying at location `k`.
fn vertex(m: &Module, k: u16) -> Module {
    let mut m = m.clone();
    let Some(pos) = m
        .outputs
        .iter()
        .position(|o| o.builtin == Some(BuiltIn::Position))
    else {
        return m;
    };
    m.outputs.push(Output {
        name: POSITION.into(),
        location: Some(u32::from(k)),
        builtin: None,
        lanes: 4,
    });
    let f = &mut m.function;
    for b in f.layout.clone() {
        if let Terminator::Return(values) = &mut f.blocks[b].term {
            let v = values[pos];
            values.push(v);
        }
    }
    m
}

/// The fragment program reads the position from the varying at location `k` and computes
/// `gl_FragCoord` from it and the viewport.
fn fragment(m: &Module, k: u16) -> Module {
    let mut m = m.clone();
    let input = m.inputs.push(Input::at(POSITION, u32::from(k), 4));
    let register = m.first_free_float_register();
    m.uniforms.push(Uniform {
        name: VIEWPORT.into(),
        block: None,
        type_name: "vec4".into(),
        layout: None,
        register,
        component: 0,
        count: 1,
        is_bool: false,
        default: None,
    });
    let f = &mut m.function;
    for b in f.layout.clone() {
        let mut k = 0;
        while k < f.blocks[b].insts.len() {
            let i = f.blocks[b].insts[k];
            if f.insts[i].op != Op::FragCoord {
                k += 1;
                continue;
            }
            let span = f.insts[i].span;
            let mut new = Vec::new();
            let mut emit = |f: &mut mir::Function, op: Op, args: Vec<Operand>, ty: Ty| {
                let id = f.create_inst(op, args, &[ty], span);
                new.push(id);
                Operand::new(f.insts[id].results[0])
            };
            let s = Ty::float(1);
            let p = emit(f, Op::LoadInput(input), Vec::new(), Ty::float(4));
            let vp = emit(f, Op::LoadUniform { register }, Vec::new(), Ty::float(4));
            let lane = |o: Operand, l: u8| o.reswizzled(Swizzle::splat(l));
            let rw = emit(f, Op::Rcp, vec![lane(p, 3)], s);
            let half = emit(f, Op::float_const(&[0.5]), Vec::new(), s);
            let nx = emit(f, Op::Mul, vec![lane(p, 0), rw], s);
            let ny = emit(f, Op::Mul, vec![lane(p, 1), rw], s);
            let z = emit(f, Op::Mul, vec![lane(p, 2), rw], s);
            let fx = emit(f, Op::Mad, vec![nx, half, half], s);
            let fy = emit(f, Op::Mad, vec![ny, half.negated(), half], s);
            let x = emit(f, Op::Mul, vec![fx, lane(vp, 0)], s);
            let y = emit(f, Op::Mul, vec![fy, lane(vp, 1)], s);
            f.insts[i].op = Op::Construct;
            f.insts[i].args = vec![x, y, z, rw];
            let n = new.len();
            f.blocks[b].insts.splice(k..k, new);
            k += n + 1;
        }
    }
    m
}
