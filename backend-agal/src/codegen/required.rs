//! The outputs Flash requires every program to write: a vertex program all of `op` (#3635),
//! a fragment program its colour `oc` (#3634). A module that leaves one out (a vertex shader
//! that never writes `gl_Position`, a fragment shader that only discards or whose `main` is
//! empty) still compiles: the missing output is added and written with zeros, and a warning
//! says so; so are the colour outputs below the highest one written that a fragment shader
//! leaves out (Flash wants `oc0`, `oc1` … without gaps, #3775). Two outputs at one location
//! (dual-source blending's `layout(index = 1)`) are refused: Stage3D has one colour output
//! per location.

use crate::rules::CodegenRule;
use mir::module::{BuiltIn, Module, Output, Stage};
use mir::{Diagnostic, Span};

use mir::func::Terminator;
use mir::inst::{Op, Operand};
use mir::types::Ty;

/// The rule of the warning for an output the program did not write.
pub const UNWRITTEN: CodegenRule = CodegenRule::UnwrittenOutput;

/// Adds the outputs Flash requires that `module` lacks; the warnings say which. Errors for
/// what Stage3D cannot express.
pub fn complete(module: &Module) -> Result<(Option<Module>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    if module.stage == Stage::Fragment {
        for (k, a) in module.outputs.iter().enumerate() {
            let Some(l) = a.location else { continue };
            if let Some(b) = module.outputs[k + 1..]
                .iter()
                .find(|b| b.location == Some(l))
            {
                errors.push(Diagnostic::error(
                    CodegenRule::DualSource,
                    format!(
                        "outputs `{}` and `{}` are both at location {l} (dual-source blending, \
                         `layout(location = {l}, index = 1)`): Stage3D blends one colour per \
                         output register, so a fragment program has one output per location",
                        a.name, b.name
                    ),
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut missing = Vec::new();
    let mut warnings = Vec::new();
    match module.stage {
        Stage::Vertex
            if !module
                .outputs
                .iter()
                .any(|o| o.builtin == Some(BuiltIn::Position)) =>
        {
            missing.push(Output {
                name: "gl_Position".into(),
                location: None,
                builtin: Some(BuiltIn::Position),
                lanes: 4,
            });
            warnings.push(Diagnostic::warning(
                UNWRITTEN,
                "the vertex program never writes gl_Position; Flash requires op to be written \
                 (error #3635), so it is written with (0, 0, 0, 0), which draws nothing",
            ));
        }
        Stage::Fragment => {
            // Colour outputs oc0, oc1 … without gaps (#3634 for oc0, #3775 for a gap): each
            // location below the highest written one that the shader leaves out.
            let written: Vec<u32> = module.outputs.iter().filter_map(|o| o.location).collect();
            let highest = written.iter().copied().max();
            if highest.is_none() {
                warnings.push(Diagnostic::warning(
                    UNWRITTEN,
                    "the fragment program writes no colour output; Flash requires oc to be \
                     written (error #3634), so it is written with (0, 0, 0, 0)",
                ));
            }
            for l in 0..=highest.unwrap_or(0) {
                if written.contains(&l) {
                    continue;
                }
                missing.push(Output {
                    name: if l == 0 {
                        "oc".into()
                    } else {
                        format!("oc{l}")
                    },
                    location: Some(l),
                    builtin: None,
                    lanes: 4,
                });
                if highest.is_some() {
                    warnings.push(Diagnostic::warning(
                        UNWRITTEN,
                        format!(
                            "the fragment program writes colour output {} but not {l}; Flash \
                             requires colour outputs without gaps (error #{}), so oc{l} is \
                             written with (0, 0, 0, 0)",
                            highest.unwrap_or(0),
                            if l == 0 { 3634 } else { 3775 }
                        ),
                    ));
                }
            }
        }
        _ => {}
    }
    if missing.is_empty() {
        return Ok((None, Vec::new()));
    }
    let mut m = module.clone();
    let count = missing.len();
    m.outputs.extend(missing);
    let f = &mut m.function;
    let zero = f.create_inst(
        Op::Const([0; 4]),
        Vec::new(),
        &[Ty::float(4)],
        Span::default(),
    );
    let value = f.insts[zero].results[0];
    let entry = f.entry;
    f.blocks[entry].insts.insert(0, zero);
    for b in f.layout.clone() {
        if let Terminator::Return(values) = &mut f.blocks[b].term {
            values.extend(std::iter::repeat_n(Operand::new(value), count));
        }
    }
    Ok((Some(m), warnings))
}
