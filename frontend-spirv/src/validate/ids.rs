//! Ids: the bound and uniqueness (physical layout), then definitions, forward references and
//! the kind of thing each operand names.

use mir::hash::{HashMap, HashSet};

use spirv::{Op, Word};

use super::{Checker, Def, Place, Site, used_ids};
use crate::module::Inst;
use crate::rules::Rule;

/// Checks the id bound and result-id uniqueness, and returns where every id is defined.
pub(super) fn physical(c: &mut Checker<'_>) -> HashMap<Word, Def> {
    let module = c.module;
    let bound = module.header.bound;
    let mut defs: HashMap<Word, Def> = HashMap::default();
    let mut sites = Vec::new();
    for (i, inst) in module.globals.iter().enumerate() {
        sites.push((inst, Place::Global, Site::Global(i)));
    }
    for (fi, f) in module.functions.iter().enumerate() {
        sites.push((&f.def, Place::Function(f), Site::Function(fi)));
        for (pi, p) in f.params.iter().enumerate() {
            sites.push((p, Place::Function(f), Site::Param(fi, pi)));
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            sites.push((&b.label, Place::Block(f, b), Site::Label(fi, bi)));
            for (ii, inst) in b.insts.iter().enumerate() {
                sites.push((inst, Place::Block(f, b), Site::Block(fi, bi, ii)));
            }
        }
        sites.push((&f.end, Place::Function(f), Site::Function(fi)));
    }
    for (inst, place, site) in sites {
        for (_, id) in used_ids(inst) {
            if id == 0 || id >= bound {
                c.error(
                    Rule::PhysBound,
                    inst,
                    place,
                    format!("the instruction uses id {id}, outside 0 < id < {bound} (the header's bound)"),
                );
            }
        }
        let Some(id) = inst.result_id() else { continue };
        if id == 0 || id >= bound {
            c.error(
                Rule::PhysBound,
                inst,
                place,
                format!("result id {id} is outside 0 < id < {bound} (the header's bound)"),
            );
        }
        let def = Def {
            site,
            opcode: inst.opcode(),
            result_type: inst.result_type(),
        };
        if let Some(first) = defs.get(&id) {
            let first = c.def_inst(first);
            let (ordinal, offset) = (first.span.ordinal, first.span.word_offset);
            c.error(
                Rule::PhysResultIdUnique,
                inst,
                place,
                format!(
                    "id {} is already the result of instruction #{ordinal} (word {offset})",
                    c.id(id)
                ),
            );
        } else {
            defs.insert(id, def);
        }
    }
    defs
}

/// What an id operand must name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A value: anything with a result type except a function.
    Value,
    /// A type.
    Type,
    /// A label of the same function.
    Label,
    /// A function.
    Function,
    /// A value whose type is a pointer.
    Pointer,
    /// An `OpExtInstImport`.
    ExtSet,
    /// Anything (names and decorations).
    Any,
}

/// The role of id operand `index` of `inst` (`None`: the result type).
fn role(inst: &Inst, index: Option<usize>) -> Role {
    use Op::*;
    let Some(i) = index else { return Role::Type };
    if inst.opcode().is_debug() {
        return Role::Any;
    }
    match inst.opcode() {
        Name | MemberName | Decorate | MemberDecorate | DecorateString | MemberDecorateString
        | GroupDecorate | GroupMemberDecorate | DecorateId => {
            if i == 0 || inst.opcode() == GroupDecorate || inst.opcode() == GroupMemberDecorate {
                Role::Any
            } else {
                Role::Value
            }
        }
        EntryPoint => {
            if i == 1 {
                Role::Function
            } else {
                Role::Any
            }
        }
        ExecutionMode | ExecutionModeId if i == 0 => Role::Function,
        TypeVector | TypeMatrix | TypeImage | TypeSampledImage | TypeRuntimeArray | TypeStruct
        | TypeFunction | TypePointer | TypeForwardPointer => Role::Type,
        TypeArray => {
            if i == 0 {
                Role::Type
            } else {
                Role::Value
            }
        }
        Function => Role::Type,
        Branch | SelectionMerge | LoopMerge => Role::Label,
        BranchConditional | Switch => {
            if i == 0 {
                Role::Value
            } else {
                Role::Label
            }
        }
        Phi => {
            if i % 2 == 0 {
                Role::Value
            } else {
                Role::Label
            }
        }
        FunctionCall if i == 0 => Role::Function,
        Load | AccessChain | InBoundsAccessChain | PtrAccessChain | InBoundsPtrAccessChain
            if i == 0 =>
        {
            Role::Pointer
        }
        Store if i == 0 => Role::Pointer,
        CopyMemory | CopyMemorySized if i < 2 => Role::Pointer,
        ExtInst if i == 0 => Role::ExtSet,
        _ => Role::Value,
    }
}

/// Whether §2.4 lets operand `index` of `inst` refer forward.
fn forward_allowed(inst: &Inst, index: Option<usize>) -> bool {
    use Op::*;
    let op = inst.opcode();
    op.is_annotation()
        || op.is_debug()
        || matches!(
            op,
            EntryPoint | ExecutionMode | ExecutionModeId | TypeForwardPointer | Phi
        )
        || matches!(role(inst, index), Role::Label | Role::Function)
}

/// Checks that every used id is defined, defined before its use where §2.4 requires it, and
/// names the kind of thing its operand needs.
pub(super) fn check(c: &mut Checker<'_>, defs: &HashMap<Word, Def>) {
    let module = c.module;
    let dropped: HashSet<Word> = module.dropped_ids.iter().copied().collect();
    for (gi, inst) in module.globals.iter().enumerate() {
        check_inst(c, defs, &dropped, inst, Place::Global, Some(gi), None);
    }
    for (fi, f) in module.functions.iter().enumerate() {
        check_inst(
            c,
            defs,
            &dropped,
            &f.def,
            Place::Function(f),
            None,
            Some(fi),
        );
        for p in &f.params {
            check_inst(c, defs, &dropped, p, Place::Function(f), None, Some(fi));
        }
        for b in &f.blocks {
            for inst in &b.insts {
                check_inst(c, defs, &dropped, inst, Place::Block(f, b), None, Some(fi));
            }
        }
    }
}

fn check_inst(
    c: &mut Checker<'_>,
    defs: &HashMap<Word, Def>,
    dropped: &HashSet<Word>,
    inst: &Inst,
    place: Place<'_>,
    global_index: Option<usize>,
    function: Option<usize>,
) {
    let op = inst.opcode();
    for (index, id) in used_ids(inst) {
        let Some(def) = defs.get(&id) else {
            if dropped.contains(&id) {
                if !(op.is_annotation() || op.is_debug()) {
                    c.error(
                        Rule::IdKind,
                        inst,
                        place,
                        format!(
                            "{} is the result of a non-semantic (debug information) instruction, \
                             which code cannot use",
                            c.id(id)
                        ),
                    );
                }
            } else {
                c.error(
                    Rule::IdUndefined,
                    inst,
                    place,
                    format!("{} is used here but no instruction defines it", c.id(id)),
                );
            }
            continue;
        };
        // Forward references among module-level instructions.
        if let Some(gi) = global_index {
            let later = match def.site {
                Site::Global(di) => di >= gi,
                _ => true,
            };
            if later && !forward_allowed(inst, index) {
                c.error(
                    Rule::IdUseBeforeDef,
                    inst,
                    place,
                    format!(
                        "{} is used before the instruction that defines it (Op{:?}, instruction #{})",
                        c.id(id),
                        def.opcode,
                        c.def_inst(def).span.ordinal
                    ),
                );
                continue;
            }
        }
        // Values of one function cannot be used in another.
        if let (Some(fi), Site::Param(df, _) | Site::Block(df, _, _)) = (function, def.site) {
            if df != fi {
                c.error(
                    Rule::IdDominance,
                    inst,
                    place,
                    format!(
                        "{} is defined in function {}, so it cannot be used in this one",
                        c.id(id),
                        c.id(c.module.functions[df].id())
                    ),
                );
                continue;
            }
        }
        let role = role(inst, index);
        let ok = match role {
            Role::Any => true,
            Role::Value => def.is_value(),
            Role::Pointer => {
                def.is_value()
                    && def
                        .result_type
                        .and_then(|t| defs.get(&t))
                        .is_some_and(|t| t.opcode == Op::TypePointer)
            }
            Role::Type => def.opcode.is_type(),
            Role::Function => def.opcode == Op::Function,
            Role::ExtSet => def.opcode == Op::ExtInstImport,
            Role::Label => {
                def.opcode == Op::Label
                    && match (function, def.site) {
                        (Some(fi), Site::Label(df, _)) => fi == df,
                        _ => true,
                    }
            }
        };
        if !ok {
            let wanted = match role {
                Role::Value => "a value",
                Role::Pointer => "a pointer",
                Role::Type => "a type",
                Role::Function => "a function",
                Role::ExtSet => "an OpExtInstImport",
                Role::Label if def.opcode == Op::Label => "a label of this function",
                Role::Label => "a label",
                Role::Any => unreachable!("Any accepts every definition"),
            };
            let what = match index {
                None => "its result type".to_string(),
                Some(i) => format!("operand {}", i + 1),
            };
            c.error(
                Rule::IdKind,
                inst,
                place,
                format!(
                    "Op{:?} needs {wanted} as {what}, but {} is the result of an Op{:?}{}",
                    op,
                    c.id(id),
                    def.opcode,
                    if role == Role::Pointer && def.is_value() {
                        " (not a pointer)"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
}
