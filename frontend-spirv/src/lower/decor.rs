//! Decorations and names, gathered once: rspirv keeps annotations as a flat list.

use mir::hash::HashMap;

use rspirv::dr::Operand;
use spirv::{BuiltIn, Decoration, Op, Word};

use crate::module::Module;

/// A decoration with its first parameter.
type Entry = (Decoration, Option<Operand>);

/// The decorations and names of a module.
#[derive(Default)]
pub struct Decorations {
    /// (target, member) → decorations with their first literal parameter.
    by_target: HashMap<(Word, Option<u32>), Vec<Entry>>,
    names: HashMap<Word, String>,
    member_names: HashMap<(Word, u32), String>,
}

impl Decorations {
    /// Reads `OpDecorate`, `OpMemberDecorate`, decoration groups, `OpName` and `OpMemberName`.
    pub fn new(module: &Module) -> Self {
        let mut d = Decorations::default();
        for inst in &module.globals {
            let ops = &inst.op.operands;
            match inst.opcode() {
                Op::Decorate | Op::DecorateId | Op::DecorateString => {
                    if let (Some(target), Some(Operand::Decoration(dec))) =
                        (inst.id_operand(0), ops.get(1))
                    {
                        // A decoration group's own decorations come before the group is applied.
                        let entry = (*dec, ops.get(2).cloned());
                        d.by_target.entry((target, None)).or_default().push(entry);
                    }
                }
                Op::MemberDecorate | Op::MemberDecorateString => {
                    if let (Some(target), Some(member), Some(Operand::Decoration(dec))) =
                        (inst.id_operand(0), inst.literal_operand(1), ops.get(2))
                    {
                        d.by_target
                            .entry((target, Some(member)))
                            .or_default()
                            .push((*dec, ops.get(3).cloned()));
                    }
                }
                Op::GroupDecorate => {
                    let Some(group) = inst.id_operand(0) else {
                        continue;
                    };
                    let decs = d.list(group, None).to_vec();
                    for i in 1..ops.len() {
                        if let Some(target) = inst.id_operand(i) {
                            d.by_target
                                .entry((target, None))
                                .or_default()
                                .extend(decs.iter().cloned());
                        }
                    }
                }
                Op::GroupMemberDecorate => {
                    let Some(group) = inst.id_operand(0) else {
                        continue;
                    };
                    let decs = d.list(group, None).to_vec();
                    for pair in ops[1..].chunks(2) {
                        if let [Operand::IdRef(target), Operand::LiteralBit32(member)] = pair {
                            d.by_target
                                .entry((*target, Some(*member)))
                                .or_default()
                                .extend(decs.iter().cloned());
                        }
                    }
                }
                Op::Name => {
                    if let (Some(id), Some(name)) = (inst.id_operand(0), inst.string_operand(1)) {
                        d.names.insert(id, name.to_string());
                    }
                }
                Op::MemberName => {
                    if let (Some(id), Some(m), Some(name)) = (
                        inst.id_operand(0),
                        inst.literal_operand(1),
                        inst.string_operand(2),
                    ) {
                        d.member_names.insert((id, m), name.to_string());
                    }
                }
                _ => {}
            }
        }
        d
    }

    fn list(&self, target: Word, member: Option<u32>) -> &[Entry] {
        self.by_target
            .get(&(target, member))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether `target` (or its member) has `dec`.
    pub fn has(&self, target: Word, member: Option<u32>, dec: Decoration) -> bool {
        self.list(target, member).iter().any(|(d, _)| *d == dec)
    }

    /// The literal parameter of `dec` on `target` (or its member).
    pub fn literal(&self, target: Word, member: Option<u32>, dec: Decoration) -> Option<u32> {
        self.list(target, member)
            .iter()
            .find_map(|(d, p)| match (d, p) {
                (d, Some(Operand::LiteralBit32(v))) if *d == dec => Some(*v),
                _ => None,
            })
    }

    /// The built-in `target` (or its member) is decorated with.
    pub fn builtin(&self, target: Word, member: Option<u32>) -> Option<BuiltIn> {
        self.list(target, member)
            .iter()
            .find_map(|(d, p)| match (d, p) {
                (Decoration::BuiltIn, Some(Operand::BuiltIn(b))) => Some(*b),
                _ => None,
            })
    }

    /// The name of `id`, if it has one.
    pub fn name(&self, id: Word) -> Option<&str> {
        self.names
            .get(&id)
            .map(String::as_str)
            .filter(|n| !n.is_empty())
    }

    /// The name of member `m` of struct `id`.
    pub fn member_name(&self, id: Word, m: u32) -> Option<&str> {
        self.member_names
            .get(&(id, m))
            .map(String::as_str)
            .filter(|n| !n.is_empty())
    }
}
