//! The logical layout of a module (§2.4): sections in order, one memory model, entry points
//! that name functions, decorations that name existing things, function variables first.

use mir::hash::{HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::{ExecutionModel, Op, StorageClass, Word};

use super::{Checker, Def, Place, Site};
use crate::module::Inst;
use crate::rules::Rule;

/// The module-level sections of §2.4, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Capability,
    Extension,
    ExtInstImport,
    MemoryModel,
    EntryPoint,
    ExecutionMode,
    DebugSource,
    DebugName,
    DebugModuleProcessed,
    Annotation,
    TypesConstantsGlobals,
}

impl Section {
    fn of(op: Op) -> Option<Section> {
        use Op::*;
        Some(match op {
            Capability => Section::Capability,
            Extension => Section::Extension,
            ExtInstImport => Section::ExtInstImport,
            MemoryModel => Section::MemoryModel,
            EntryPoint => Section::EntryPoint,
            ExecutionMode | ExecutionModeId => Section::ExecutionMode,
            String | SourceExtension | Source | SourceContinued => Section::DebugSource,
            Name | MemberName => Section::DebugName,
            ModuleProcessed => Section::DebugModuleProcessed,
            op if op.is_annotation() => Section::Annotation,
            op if op.is_type() || op.is_constant() => Section::TypesConstantsGlobals,
            Variable | Undef => Section::TypesConstantsGlobals,
            _ => return None,
        })
    }

    fn describe(self) -> &'static str {
        match self {
            Section::Capability => "capabilities (OpCapability)",
            Section::Extension => "extensions (OpExtension)",
            Section::ExtInstImport => "instruction-set imports (OpExtInstImport)",
            Section::MemoryModel => "the memory model (OpMemoryModel)",
            Section::EntryPoint => "entry points (OpEntryPoint)",
            Section::ExecutionMode => "execution modes (OpExecutionMode)",
            Section::DebugSource => "OpString, OpSource and OpSourceExtension",
            Section::DebugName => "names (OpName, OpMemberName)",
            Section::DebugModuleProcessed => "OpModuleProcessed",
            Section::Annotation => "decorations",
            Section::TypesConstantsGlobals => "types, constants and global variables",
        }
    }
}

pub(super) fn check(c: &mut Checker<'_>, defs: &HashMap<Word, Def>) {
    section_order(c);
    memory_model(c);
    entry_points(c, defs);
    decoration_targets(c, defs);
    function_bodies(c);
}

fn section_order(c: &mut Checker<'_>) {
    let mut current = Section::Capability;
    let mut current_inst: Option<&Inst> = None;
    for inst in &c.module.globals {
        let op = inst.opcode();
        let Some(section) = Section::of(op) else {
            c.error(
                Rule::LayoutSectionOrder,
                inst,
                Place::Global,
                format!("Op{op:?} outside a function; it belongs in a function's block"),
            );
            continue;
        };
        if section < current {
            let before = current_inst.map_or(String::new(), |i| {
                format!(" (instruction #{}, Op{:?})", i.span.ordinal, i.opcode())
            });
            c.error(
                Rule::LayoutSectionOrder,
                inst,
                Place::Global,
                format!(
                    "Op{op:?} belongs with {}, which come before {}{before}",
                    section.describe(),
                    current.describe()
                ),
            );
        } else if section > current {
            current = section;
            current_inst = Some(inst);
        }
        if op == Op::Variable && storage_class(inst) == Some(StorageClass::Function) {
            c.error(
                Rule::LayoutFunctionVariables,
                inst,
                Place::Global,
                "a Function-storage OpVariable outside a function; module-level variables use another storage class",
            );
        }
    }
}

fn memory_model(c: &mut Checker<'_>) {
    let models: Vec<&Inst> = c
        .module
        .globals
        .iter()
        .filter(|i| i.opcode() == Op::MemoryModel)
        .collect();
    match models.as_slice() {
        [] => c.module_error(
            Rule::LayoutMemoryModel,
            "the module has no OpMemoryModel; exactly one is required",
        ),
        [_] => {}
        [first, rest @ ..] => {
            let first = first.span.ordinal;
            for inst in rest {
                c.error(
                    Rule::LayoutMemoryModel,
                    inst,
                    Place::Global,
                    format!("a second OpMemoryModel (the first is instruction #{first}); exactly one is allowed"),
                );
            }
        }
    }
}

fn storage_class(inst: &Inst) -> Option<StorageClass> {
    match inst.op.operands.first() {
        Some(Operand::StorageClass(s)) => Some(*s),
        _ => None,
    }
}

fn entry_points(c: &mut Checker<'_>, defs: &HashMap<Word, Def>) {
    let module = c.module;
    let version = module.header.version;
    let mut seen: HashMap<(ExecutionModel, &str), u32> = HashMap::default();
    let mut entry_functions = HashSet::default();
    for inst in &module.globals {
        if inst.opcode() != Op::EntryPoint {
            continue;
        }
        let (Some(Operand::ExecutionModel(model)), Some(function), Some(name)) = (
            inst.op.operands.first(),
            inst.id_operand(1),
            inst.string_operand(2),
        ) else {
            continue;
        };
        entry_functions.insert(function);
        match defs.get(&function) {
            Some(def) if def.opcode == Op::Function => {
                if let Site::Function(fi) = def.site {
                    if module.functions[fi].blocks.is_empty() {
                        c.error(
                            Rule::LayoutEntryPoint,
                            inst,
                            Place::Global,
                            format!(
                                "entry point \"{name}\" names {}, a function without a body",
                                c.id(function)
                            ),
                        );
                    }
                }
            }
            Some(def) => c.error(
                Rule::LayoutEntryPoint,
                inst,
                Place::Global,
                format!(
                    "entry point \"{name}\" names {}, which is an Op{:?}, not a function",
                    c.id(function),
                    def.opcode
                ),
            ),
            None => c.error(
                Rule::LayoutEntryPoint,
                inst,
                Place::Global,
                format!(
                    "entry point \"{name}\" names {}, which is not defined",
                    c.id(function)
                ),
            ),
        }
        if let Some(first) = seen.insert((*model, name), inst.span.ordinal) {
            c.error(
                Rule::LayoutEntryPoint,
                inst,
                Place::Global,
                format!(
                    "a second {model:?} entry point named \"{name}\" (the first is instruction #{first}); \
                     the pair of name and execution model must be unique"
                ),
            );
        }
        for (i, operand) in inst.op.operands.iter().enumerate().skip(3) {
            let Operand::IdRef(id) = operand else {
                continue;
            };
            let storage = defs.get(id).and_then(|d| match d.site {
                Site::Global(gi) if d.opcode == Op::Variable => storage_class(&module.globals[gi]),
                _ => None,
            });
            let ok = match storage {
                Some(StorageClass::Input | StorageClass::Output) => true,
                // From SPIR-V 1.4 on, the interface lists every global variable the entry
                // point uses.
                Some(s) => version >= (1, 4) && s != StorageClass::Function,
                None => false,
            };
            if !ok {
                c.error(
                    Rule::LayoutEntryPoint,
                    inst,
                    Place::Global,
                    format!(
                        "interface operand {} of entry point \"{name}\" is {}, which is not a \
                         module-level Input or Output OpVariable",
                        i + 1,
                        c.id(*id)
                    ),
                );
            }
        }
    }
    for inst in &module.globals {
        if !matches!(inst.opcode(), Op::ExecutionMode | Op::ExecutionModeId) {
            continue;
        }
        if let Some(target) = inst.id_operand(0) {
            if !entry_functions.contains(&target) {
                c.error(
                    Rule::LayoutEntryPoint,
                    inst,
                    Place::Global,
                    format!(
                        "the execution mode names {}, which is not an entry point's function",
                        c.id(target)
                    ),
                );
            }
        }
    }
}

fn decoration_targets(c: &mut Checker<'_>, defs: &HashMap<Word, Def>) {
    let module = c.module;
    let dropped: HashSet<Word> = module.dropped_ids.iter().copied().collect();
    for inst in &module.globals {
        let op = inst.opcode();
        let targets: Vec<(Word, Option<u32>)> = match op {
            Op::Decorate | Op::DecorateId | Op::DecorateString | Op::Name => {
                inst.id_operand(0).map(|t| (t, None)).into_iter().collect()
            }
            Op::MemberDecorate | Op::MemberDecorateString | Op::MemberName => inst
                .id_operand(0)
                .map(|t| (t, inst.literal_operand(1)))
                .into_iter()
                .collect(),
            Op::GroupDecorate => inst.op.operands[1..]
                .iter()
                .filter_map(|o| match o {
                    Operand::IdRef(id) => Some((*id, None)),
                    _ => None,
                })
                .collect(),
            Op::GroupMemberDecorate => inst.op.operands[1..]
                .chunks(2)
                .filter_map(|pair| match pair {
                    [Operand::IdRef(id), Operand::LiteralBit32(m)] => Some((*id, Some(*m))),
                    _ => None,
                })
                .collect(),
            _ => continue,
        };
        if op == Op::GroupDecorate || op == Op::GroupMemberDecorate {
            if let Some(group) = inst.id_operand(0) {
                if defs.get(&group).map(|d| d.opcode) != Some(Op::DecorationGroup) {
                    c.error(
                        Rule::LayoutDecorationTarget,
                        inst,
                        Place::Global,
                        format!("{} is not an OpDecorationGroup", c.id(group)),
                    );
                }
            }
        }
        for (target, member) in targets {
            let Some(def) = defs.get(&target) else {
                if !dropped.contains(&target) {
                    c.error(
                        Rule::LayoutDecorationTarget,
                        inst,
                        Place::Global,
                        format!(
                            "Op{op:?} targets {}, which no instruction defines",
                            c.id(target)
                        ),
                    );
                }
                continue;
            };
            let Some(member) = member else { continue };
            let members = match def.site {
                Site::Global(gi) if def.opcode == Op::TypeStruct => {
                    Some(module.globals[gi].op.operands.len())
                }
                _ => None,
            };
            match members {
                None => c.error(
                    Rule::LayoutDecorationTarget,
                    inst,
                    Place::Global,
                    format!(
                        "Op{op:?} names member {member} of {}, which is an Op{:?}, not a structure type",
                        c.id(target),
                        def.opcode
                    ),
                ),
                Some(n) if member as usize >= n => c.error(
                    Rule::LayoutDecorationTarget,
                    inst,
                    Place::Global,
                    format!(
                        "Op{op:?} names member {member} of {}, which has {n} member{}",
                        c.id(target),
                        if n == 1 { "" } else { "s" }
                    ),
                ),
                Some(_) => {}
            }
        }
    }
}

fn function_bodies(c: &mut Checker<'_>) {
    let module = c.module;
    for f in &module.functions {
        if f.blocks.is_empty() {
            c.error(
                Rule::LayoutFunctionStructure,
                &f.def,
                Place::Function(f),
                format!(
                    "function {} has no blocks; a function declaration imports its body through \
                     the Linkage capability, which this compiler does not support (link the \
                     module first)",
                    c.id(f.id())
                ),
            );
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            // Function variables may only open the first block.
            let mut variables_allowed = bi == 0;
            for inst in &b.insts {
                let op = inst.opcode();
                let place = Place::Block(f, b);
                match op {
                    Op::Variable => {
                        if storage_class(inst) != Some(StorageClass::Function) {
                            c.error(
                                Rule::LayoutFunctionVariables,
                                inst,
                                place,
                                "an OpVariable inside a function must have storage class Function",
                            );
                        } else if !variables_allowed {
                            let why = if bi == 0 {
                                "after other instructions"
                            } else {
                                "outside the function's first block"
                            };
                            c.error(
                                Rule::LayoutFunctionVariables,
                                inst,
                                place,
                                format!(
                                    "a function variable {why}; all of a function's OpVariables \
                                     come first in its first block"
                                ),
                            );
                        }
                        continue;
                    }
                    Op::FunctionParameter => {
                        c.error(
                            Rule::LayoutFunctionStructure,
                            inst,
                            place,
                            "OpFunctionParameter inside a block; parameters come right after OpFunction",
                        );
                    }
                    Op::Undef | Op::ExtInst => {}
                    _ => {
                        if let Some(section) = Section::of(op) {
                            c.error(
                                Rule::LayoutSectionOrder,
                                inst,
                                place,
                                format!(
                                    "Op{op:?} inside a function; it belongs with {} before all functions",
                                    section.describe()
                                ),
                            );
                        }
                    }
                }
                variables_allowed = false;
            }
        }
    }
}
