//! The PICA200's fragment stage: a fragment program compiled into the texture combiners'
//! configuration (six TEV stages, the combiner buffer, the alpha test and the texture units
//! the stages read), as `../shared/docs/pica200-fragment-pipeline.md` describes them.
//!
//! ```text
//!  MIR ──► pipeline (unroll, if-conversion, folding) ──► lanes::Lanes (an expression per lane)
//!      ──► select (group expressions, matched to combiner functions) ──► schedule (stages,
//!          buffer, constants) ──► config::TexEnv ──► words (GPU command list), text (listing,
//!          C header for citro3d), reflection
//! ```
//!
//! A stage's arithmetic is on bytes in [0, 1] and clamps every result, so the compiler
//! checks the interval of each intermediate value as GLSL computes it (every leaf in
//! [0, 1]) and refuses, with `pica.fragment`, what would compute something else.

pub mod config;
pub mod lanes;
pub mod schedule;
pub mod select;
#[cfg(feature = "sim")]
pub mod sim;
pub mod text;
pub mod words;

use mir::inst::CmpOp;
use mir::passes::pipeline::{Step, Stopped};
use mir::{Diagnostic, Diagnostics, Module, Stage as MirStage};

use crate::rules::Rule;
use config::{AlphaTest, Channel, Color, Combiner, Operand, Source, Stage, TestFunc, TexEnv};
use lanes::{Lanes, Leaf, Node};
use select::{G, Group, Konst, Ref, Sel};

/// A compiled fragment program.
#[derive(Clone, Debug)]
pub struct Fragment {
    /// The configuration.
    pub texenv: TexEnv,
    /// The GPU command list that sets it (see [`words::words`]).
    pub words: Vec<u32>,
    /// The reflection (with its `texenv`).
    pub reflection: machine::reflect::Reflection,
}

/// The optimiser's choices for the fragment stage: every `if` a select (the combiners
/// cannot branch), loops unrolled, no vectorising or multiply-add fusion (the selector
/// matches sums and products itself), bools kept for the discard's comparison.
pub fn passes() -> mir::passes::Options {
    mir::passes::Options {
        if_conversion: mir::passes::IfConversion::All,
        unroll_trips: 64,
        unroll_budget: 512,
        predicate_breaks: true,
        duplicate_joins: true,
        vectorize: false,
        fuse_mad: false,
        ..mir::passes::Options::default()
    }
}

/// The fragment stage's pipeline, as `--print-pipeline` shows it.
pub type Pipeline = mir::passes::pipeline::Pipeline<(), Vec<Diagnostic>>;

/// The stage check and the shared passes.
pub fn pipeline() -> Pipeline {
    Pipeline::shared(passes()).prepend(vec![Step::target(
        "pica.fragment-stage",
        "a fragment program becomes the texture combiners' configuration",
        |m, _| {
            if m.stage == MirStage::Fragment {
                Ok(false)
            } else {
                Err(vec![Diagnostic::error(
                    Rule::Stage,
                    "the fragment compiler takes fragment programs",
                )])
            }
        },
    )])
}

/// The module after [`pipeline`] (stopped after step `stop` when given).
pub fn prepare_until(module: &Module, stop: Option<usize>) -> Result<Module, Diagnostics> {
    let mut m = module.clone();
    pipeline().run(&mut m, &mut (), stop).map_err(|e| match e {
        Stopped::Verify(e) => Diagnostics(vec![Diagnostic::error(
            Rule::Internal,
            format!("internal error (this is a bug): {e}"),
        )]),
        Stopped::Target(errors) => Diagnostics(errors),
    })?;
    Ok(m)
}

fn refuse(why: impl Into<String>, span: mir::Span) -> Diagnostics {
    Diagnostics(vec![Diagnostic::error(Rule::Fragment, why).with_span(span)])
}

/// Compiles a fragment `module` into the combiners' configuration.
pub fn compile(module: &Module) -> Result<Fragment, Diagnostics> {
    let m = prepare_until(module, None)?;
    let l = Lanes::of(&m).map_err(|(why, span)| refuse(why, span))?;
    let names = |leaf: Leaf| leaf_name(&m, &l, leaf);
    // Where an expression is: its instruction, or where the colour is written when the
    // instruction has no source line (a load of a varying).
    let at = |e: lanes::E| {
        let s = l.spans[e as usize];
        if s.source.is_some() { s } else { l.color_span }
    };
    let explain = |(why, e): select::Why| {
        let expr = select::describe(&l, e, &names, 4);
        let why = if matches!(l.nodes[e as usize], Node::Bad(_)) {
            why
        } else {
            format!("`{expr}`: {why}")
        };
        refuse(why, at(e))
    };
    let mut u = select::Unify::new(&l);
    let rgb = u.unify(&l.color[..3]).map_err(explain)?;
    let alpha = u.unify(&l.color[3..]).map_err(explain)?;
    let mut chosen = select::select(&rgb, &alpha).map_err(explain)?;
    let placed = schedule::place(&mut chosen).map_err(|(rgb, alpha)| {
        refuse(
            format!(
                "the colour needs {rgb} RGB and {alpha} alpha combiner operations, which do not \
                 fit the PICA200's 6 stages (one RGB and one alpha operation each; a value needed \
                 two or more stages later must pass through the combiner buffer, which only \
                 stages 0-3 write, and each stage has one constant colour)"
            ),
            l.color_span,
        )
    })?;
    let alpha_test = alpha_test(&l, &alpha).map_err(|mut d| {
        for x in &mut d.0 {
            if x.span.is_some_and(|s| s.source.is_none()) {
                x.span = Some(l.color_span);
            }
        }
        d
    })?;
    let texenv = build(&m, &l, &chosen, &placed, alpha_test)?;
    let words = words::words(&texenv);
    let reflection = reflect(&m, &texenv, &l);
    Ok(Fragment {
        texenv,
        words,
        reflection,
    })
}

/// How diagnostics and listings name a leaf.
fn leaf_name(m: &Module, l: &Lanes, leaf: Leaf) -> String {
    match leaf {
        Leaf::Input(k) => m.inputs[mir::module::InputId::new(k)].name.clone(),
        Leaf::Texture(u) => l.textures.iter().find(|t| t.unit == u).map_or_else(
            || format!("texture{u}"),
            |t| format!("texture({})", t.sampler),
        ),
        Leaf::Uniform(r) => uniform_name(m, r),
    }
}

fn uniform_name(m: &Module, register: u32) -> String {
    m.uniforms
        .iter()
        .filter(|u| register >= u.register && register < u.register + u.count.max(1))
        .map(|u| {
            if u.count > 1 {
                format!("{}[{}]", u.name, register - u.register)
            } else {
                u.name.clone()
            }
        })
        .collect::<Vec<_>>()
        .join("+")
}

/// The alpha test of the program's discard.
fn alpha_test(l: &Lanes, alpha: &G) -> Result<Option<AlphaTest>, Diagnostics> {
    let Some(kill) = &l.kill else {
        return Ok(None);
    };
    let kill = match kill {
        Ok(k) => k,
        Err(_) => {
            return Ok(Some(AlphaTest {
                func: TestFunc::Never,
                reference: 0,
            }));
        }
    };
    let num = |e: lanes::E| match l.nodes[e as usize] {
        Node::Num(b) => Some(f64::from(f32::from_bits(b))),
        _ => None,
    };
    let final_alpha = |e: lanes::E| e == l.color[3] || e == alpha.at;
    let (op, t) = match (
        final_alpha(kill.a),
        num(kill.b),
        num(kill.a),
        final_alpha(kill.b),
    ) {
        (true, Some(t), ..) => (kill.op, t),
        (_, _, Some(t), true) => (kill.op.swapped(), t),
        _ => {
            return Err(refuse(
                "a discard that is not a comparison of the colour's final alpha with a \
                 constant: the alpha test compares the alpha the combiners output (write the \
                 condition on the alpha you return, e.g. `if (color.a < 0.5) discard;`)",
                kill.span,
            ));
        }
    };
    let scaled = t * 255.0;
    let integral = (scaled - scaled.round()).abs() < 1e-3;
    let up = if integral {
        scaled.round()
    } else {
        scaled.ceil()
    };
    let down = if integral {
        scaled.round()
    } else {
        scaled.floor()
    };
    let byte = |v: f64| v.clamp(0.0, 255.0) as u8;
    // The comparison that keeps the fragment, on the alpha byte A (a = A / 255).
    let keep = match op {
        // discard a < t: keep A >= ceil(255 t)
        CmpOp::Lt if up <= 0.0 => None,
        CmpOp::Lt if up > 255.0 => Some((TestFunc::Never, 0)),
        CmpOp::Lt => Some((TestFunc::GreaterEqual, byte(up))),
        // discard a <= t: keep A > floor(255 t)
        CmpOp::Le if down < 0.0 => None,
        CmpOp::Le if down >= 255.0 => Some((TestFunc::Never, 0)),
        CmpOp::Le => Some((TestFunc::Greater, byte(down))),
        // discard a > t: keep A <= floor(255 t)
        CmpOp::Gt if down >= 255.0 => None,
        CmpOp::Gt if down < 0.0 => Some((TestFunc::Never, 0)),
        CmpOp::Gt => Some((TestFunc::LessEqual, byte(down))),
        // discard a >= t: keep A < ceil(255 t)
        CmpOp::Ge if up > 255.0 => None,
        CmpOp::Ge if up <= 0.0 => Some((TestFunc::Never, 0)),
        CmpOp::Ge => Some((TestFunc::Less, byte(up))),
        CmpOp::Eq | CmpOp::Ne if !integral || !(0.0..=255.0).contains(&scaled) => {
            return Err(refuse(
                format!(
                    "a discard on alpha {} {t}: the alpha test compares bytes, and {t} is not \
                     a byte (n / 255), so no byte compares as the float does",
                    if op == CmpOp::Eq { "==" } else { "!=" }
                ),
                kill.span,
            ));
        }
        CmpOp::Eq => Some((TestFunc::NotEqual, byte(scaled.round()))),
        CmpOp::Ne => Some((TestFunc::Equal, byte(scaled.round()))),
    };
    Ok(Some(match keep {
        Some((func, reference)) => AlphaTest { func, reference },
        // Never discards: the test keeps everything.
        None => AlphaTest {
            func: TestFunc::Always,
            reference: 0,
        },
    }))
}

/// The six stages, the buffer and the units from the placed operations.
fn build(
    m: &Module,
    l: &Lanes,
    chosen: &select::Selected,
    placed: &schedule::Placement,
    alpha_test: Option<AlphaTest>,
) -> Result<TexEnv, Diagnostics> {
    // The colour varying: at most one input is read as a value.
    let mut color: Option<usize> = None;
    for (k, op) in chosen.ops.iter().enumerate() {
        if placed.stage[k].is_none() {
            continue;
        }
        for a in &op.args {
            if let Ref::Leaf(Leaf::Input(i)) = a.r {
                match color {
                    Some(c) if c != i => {
                        return Err(refuse(
                            format!(
                                "two varyings read as values ('{}' and '{}'): the fragment \
                                 stage has one interpolated colour (GPU_PRIMARY_COLOR); other \
                                 varyings can only be texture coordinates",
                                leaf_name(m, l, Leaf::Input(c)),
                                leaf_name(m, l, Leaf::Input(i))
                            ),
                            l.spans[a.at as usize],
                        ));
                    }
                    _ => color = Some(i),
                }
            }
        }
    }
    if let Some(c) = color {
        if l.coordinates.contains(&c) {
            return Err(refuse(
                format!(
                    "the varying '{}' is read both as a colour and as a texture coordinate: the \
                     vertex program's output carries one semantic (color or texcoord)",
                    leaf_name(m, l, Leaf::Input(c))
                ),
                l.color_span,
            ));
        }
    }
    // A cube map reads texcoord0 (and texcoord0.w): its unit must be 0.
    let mut textures = l.textures.clone();
    let cubes = textures
        .iter()
        .filter(|t| t.kind == config::TextureKind::Cube)
        .count();
    if cubes > 1 {
        return Err(refuse(
            "two cube maps: only texture unit 0 samples a cube map",
            l.color_span,
        ));
    }
    let mut unit_map: Vec<u8> = (0..textures.len() as u8).collect();
    if let Some(c) = textures
        .iter()
        .position(|t| t.kind == config::TextureKind::Cube)
    {
        unit_map.swap(0, c);
        textures.swap(0, c);
        for (k, t) in textures.iter_mut().enumerate() {
            t.unit = k as u8;
        }
        // unit_map[old] = new
        let mut inverse = vec![0u8; unit_map.len()];
        for (new, old) in unit_map.iter().enumerate() {
            inverse[*old as usize] = new as u8;
        }
        unit_map = inverse;
    }
    let mut stages: [Stage; 6] = std::array::from_fn(|_| Stage::pass_through());
    // Stage 0 may not read GPU_PREVIOUS: its idle halves replace the primary colour.
    for st in &mut stages[..=placed.last] {
        st.rgb = Combiner::replace(Source::PrimaryColor, false);
        st.alpha = Combiner::replace(Source::PrimaryColor, true);
    }
    for (k, op) in chosen.ops.iter().enumerate() {
        let Some(s) = placed.stage[k] else { continue };
        let alpha = op.group == Group::Alpha;
        let mut c = Combiner::replace(Source::PrimaryColor, alpha);
        c.func = op.func;
        c.scale = op.scale;
        for (i, a) in op.args.iter().enumerate() {
            c.sources[i] = match a.r {
                Ref::Leaf(Leaf::Input(_)) => Source::PrimaryColor,
                Ref::Leaf(Leaf::Texture(u)) => Source::Texture(unit_map[u as usize]),
                Ref::Leaf(Leaf::Uniform(_)) | Ref::Const(_) => Source::Constant,
                Ref::Op(p) if placed.stage[p] == Some(s - 1) => Source::Previous,
                Ref::Op(_) => Source::PreviousBuffer,
            };
            c.operands[i] = Operand {
                channel: match a.sel {
                    Sel::Own if alpha => Channel::A,
                    Sel::Own => Channel::Rgb,
                    Sel::Chan(x) => Channel::of_lane(x),
                },
                one_minus: a.one_minus,
            };
        }
        let st = &mut stages[s];
        if alpha {
            st.alpha = c;
            st.update_alpha = placed.buffered[k];
        } else {
            st.rgb = c;
            st.update_rgb = placed.buffered[k];
        }
    }
    for (s, k) in placed.constants.iter().enumerate() {
        let Some(k) = k else { continue };
        stages[s].color = match k {
            Konst::Lanes(lanes) => {
                let mut b = [0xFF; 4];
                for (lane, v) in lanes {
                    b[*lane as usize] = *v;
                }
                Color::Bytes(b)
            }
            Konst::Uniform(reg) => {
                let u = m
                    .uniforms
                    .iter()
                    .find(|u| *reg >= u.register && *reg < u.register + u.count.max(1));
                let bytes = u.and_then(|u| u.default.as_ref()).map_or([0xFF; 4], |d| {
                    std::array::from_fn(|i| d.get(i).map_or(0xFF, |v| select::byte(f64::from(*v))))
                });
                Color::Uniform {
                    name: uniform_name(m, *reg),
                    bytes,
                }
            }
        };
    }
    Ok(TexEnv {
        stages,
        buffer_color: [0xFF; 4],
        alpha_test,
        textures,
        color: color.map(|c| {
            let i = &m.inputs[mir::module::InputId::new(c)];
            (i.name.clone(), i.location)
        }),
    })
}

/// The reflection of a fragment program: its varyings by semantic, its uniforms by the stage
/// whose colour they are, its samplers by unit, and the configuration.
fn reflect(m: &Module, t: &TexEnv, _l: &Lanes) -> machine::reflect::Reflection {
    use machine::reflect::*;
    let semantic = |loc: u32| -> String {
        if t.color.as_ref().is_some_and(|(_, l)| *l == loc) {
            return "color".into();
        }
        let units: Vec<String> = t
            .textures
            .iter()
            .filter(|u| u.location == loc)
            .map(|u| u.texcoord())
            .collect();
        if units.is_empty() {
            "unused".into()
        } else {
            units.join(",")
        }
    };
    let stage_of = |name: &str| -> String {
        t.stages
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(&s.color, Color::Uniform { name: n, .. } if n == name))
            .map(|(k, _)| format!("texenv{k}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let used = t.stages_used().max(1);
    let info = TexEnvInfo {
        stages: t.stages[..used]
            .iter()
            .map(|s| TexEnvStageInfo {
                rgb: combiner_info(&s.rgb, false),
                alpha: combiner_info(&s.alpha, true),
                color: match &s.color {
                    Color::Bytes(b) => StageColorInfo::Bytes(*b),
                    Color::Uniform { name, .. } => StageColorInfo::Uniform {
                        uniform: name.clone(),
                    },
                },
                buffer_update: BufferUpdateInfo {
                    rgb: s.update_rgb,
                    alpha: s.update_alpha,
                },
            })
            .collect(),
        buffer_color: t.buffer_color,
        alpha_test: t.alpha_test.map(|a| AlphaTestInfo {
            func: a.func.name().into(),
            reference: f32::from(a.reference) / 255.0,
            ref_byte: a.reference,
        }),
        textures: t
            .textures
            .iter()
            .map(|u| TexUnitInfo {
                unit: u.unit,
                sampler: u.sampler.clone(),
                texcoord: u.texcoord(),
                varying: u.varying.clone(),
                kind: match u.kind {
                    config::TextureKind::D2 => "2d",
                    config::TextureKind::Cube => "cube",
                }
                .into(),
            })
            .collect(),
        primary_color: t.color.as_ref().map(|(n, _)| n.clone()),
    };
    Reflection {
        inputs: inputs(m, |_, i| semantic(i.location)),
        outputs: m
            .outputs
            .iter()
            .map(|o| OutputInfo::of(o, format!("texenv{}", used - 1), None, 0b1111))
            .collect(),
        uniforms: uniforms(m, |u| stage_of(&u.name))
            .into_iter()
            .filter(|u| !u.register.is_empty())
            .collect(),
        samplers: t
            .textures
            .iter()
            .map(|u| SamplerInfo {
                name: u.sampler.clone(),
                binding: u.binding,
                register: format!("unit{}", u.unit),
                dim: match u.kind {
                    config::TextureKind::D2 => "2d",
                    config::TextureKind::Cube => "cube",
                }
                .into(),
                flags: Vec::new(),
            })
            .collect(),
        stats: Stats {
            instructions: used,
            ..Stats::default()
        },
        texenv: Some(info),
        ..Reflection::of(m, "pica", None)
    }
}

fn combiner_info(c: &Combiner, alpha: bool) -> machine::reflect::CombinerInfo {
    machine::reflect::CombinerInfo {
        sources: c.sources.map(|s| s.name().to_string()),
        operands: c
            .operands
            .map(|o| if alpha { o.alpha_name() } else { o.rgb_name() }.to_string()),
        func: c.func.name().into(),
        scale: c.scale,
    }
}
