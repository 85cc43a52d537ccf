//! Choosing the entry point to compile (docs/conventions.md, "Stages and entry points").
//!
//! A module may hold several entry points. The caller names one (`--entry`), or a stage
//! (`--vertex`/`--fragment`), or neither when the module has exactly one the target can run.

use mir::{Diagnostic, Diagnostics};
use rspirv::dr::Operand;
use spirv::{ExecutionModel, Op, Word};

use crate::validate::ValidModule;

/// The rule identifier of entry-point selection errors.
pub const RULE: crate::rules::FrontRule = crate::rules::FrontRule::EntrySelect;

/// A shader stage the targets know: the IR's, one type from the front end to the back ends.
pub use mir::Stage;

/// The stage of an execution model, if the targets know it.
fn stage_of(model: ExecutionModel) -> Option<Stage> {
    match model {
        ExecutionModel::Vertex => Some(Stage::Vertex),
        ExecutionModel::Fragment => Some(Stage::Fragment),
        ExecutionModel::Geometry => Some(Stage::Geometry),
        _ => None,
    }
}

/// An entry point of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// Its name.
    pub name: String,
    /// Its execution model.
    pub model: ExecutionModel,
    /// The function it names.
    pub function: Word,
    /// The interface variables it lists.
    pub interface: Vec<Word>,
}

impl EntryPoint {
    /// Its stage (`None` for execution models neither target has, which
    /// [`select`] never returns).
    pub fn stage(&self) -> Option<Stage> {
        stage_of(self.model)
    }
}

/// What the caller asks for.
pub struct Query<'a> {
    /// `--entry NAME`.
    pub name: Option<&'a str>,
    /// `--vertex` / `--fragment`.
    pub stage: Option<Stage>,
    /// The stages the target can run.
    pub supported: &'a [Stage],
    /// Why a stage outside `supported` cannot be compiled for this target.
    pub unsupported_reason: &'a dyn Fn(Stage) -> String,
}

/// Every entry point of the module, in order.
pub fn entry_points(module: &ValidModule) -> Vec<EntryPoint> {
    module
        .module
        .globals
        .iter()
        .filter(|i| i.opcode() == Op::EntryPoint)
        .filter_map(|i| {
            let Some(Operand::ExecutionModel(model)) = i.op.operands.first() else {
                return None;
            };
            Some(EntryPoint {
                name: i.string_operand(2)?.to_string(),
                model: *model,
                function: i.id_operand(1)?,
                interface: (3..i.op.operands.len())
                    .filter_map(|k| i.id_operand(k))
                    .collect(),
            })
        })
        .collect()
}

fn fail(message: impl Into<String>) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(RULE, message))
}

/// Picks the entry point `query` asks for.
pub fn select(module: &ValidModule, query: &Query<'_>) -> Result<EntryPoint, Diagnostics> {
    pick(module, query).map_err(|d| Diagnostics::from(*d))
}

fn pick(module: &ValidModule, query: &Query<'_>) -> Result<EntryPoint, Box<Diagnostic>> {
    let all = entry_points(module);
    let list = || {
        all.iter()
            .map(|e| format!("\"{}\" ({:?})", e.name, e.model))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if all.is_empty() {
        return Err(fail("the module has no entry point (OpEntryPoint)"));
    }
    let mut candidates: Vec<&EntryPoint> = all.iter().collect();
    if let Some(name) = query.name {
        candidates.retain(|e| e.name == name);
        if candidates.is_empty() {
            return Err(fail(format!(
                "no entry point is named \"{name}\"; the module has {}",
                list()
            )));
        }
    }
    if let Some(stage) = query.stage {
        candidates.retain(|e| stage_of(e.model) == Some(stage));
        if candidates.is_empty() {
            return Err(fail(format!(
                "no {} entry point{}; the module has {}",
                stage.name(),
                query
                    .name
                    .map_or(String::new(), |n| format!(" named \"{n}\"")),
                list()
            )));
        }
    }
    // Among what is left, the ones this target can run.
    let runnable: Vec<&EntryPoint> = candidates
        .iter()
        .copied()
        .filter(|e| stage_of(e.model).is_some_and(|s| query.supported.contains(&s)))
        .collect();
    match (runnable.as_slice(), candidates.as_slice()) {
        ([one], _) => Ok((*one).clone()),
        ([], [only]) => {
            let why = match stage_of(only.model) {
                Some(stage) => (query.unsupported_reason)(stage),
                None => format!(
                    "{:?} programs are not supported: the targets run vertex and fragment programs",
                    only.model
                ),
            };
            Err(fail(format!(
                "entry point \"{}\" is a {:?} program: {why}",
                only.name, only.model
            )))
        }
        ([], _) => Err(fail(format!(
            "none of the entry points can be compiled for this target: {}",
            list()
        ))),
        (_, _) => Err(fail(format!(
            "the module has several entry points ({}); choose one with --entry NAME{}",
            list(),
            if query.supported.len() > 1 {
                " or a stage flag"
            } else {
                ""
            }
        ))),
    }
}
