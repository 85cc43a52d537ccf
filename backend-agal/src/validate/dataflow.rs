//! What has been written so far: the lanes of each temporary (#3647/#3648), of `op` and of
//! each varying (#3635/#3633), which colour outputs (#3744, #3634, #3775), and the rules about
//! what a destination may be written with (#3628, #3701, #3741, #3742, #3751, #3756).
//!
//! Writes count in program order, inside conditionals or not (a write in one branch makes the
//! register "written" for everything after it). A lane counts as written only if the
//! operation produces it: `m33 vt4, …` leaves `vt4.w` unwritten whatever the mask says.

use super::{Checker, Rule, reg_name};
use crate::header::Stage;
use crate::limits::Limits;
use crate::opcode::{Opcode, Shape};
use crate::operand::{Address, Dest, Mask, RegType, Source};
use crate::program::Field;

/// Lanes written so far.
pub(crate) struct Dataflow {
    temps: Vec<Mask>,
    position: Mask,
    varyings: Vec<Mask>,
    colors: u8,
}

impl Dataflow {
    pub fn new(limits: &Limits) -> Dataflow {
        Dataflow {
            temps: vec![Mask::NONE; usize::from(limits.temporaries)],
            position: Mask::NONE,
            varyings: vec![Mask::NONE; usize::from(limits.varyings)],
            colors: 0,
        }
    }
}

impl Checker {
    /// Checks that `needed` lanes of temporary `index` have been written.
    fn temp_written(&mut self, op: Opcode, which: Field, index: u16, needed: Mask) -> bool {
        let written = self
            .data
            .temps
            .get(usize::from(index))
            .copied()
            .unwrap_or(Mask::NONE);
        let name = reg_name(self.stage, RegType::Temporary, index);
        if written.is_empty() && !needed.is_empty() {
            self.at(
                Rule::TemporaryNotWritten,
                Some(which),
                format!("{op} reads {name}, which has not been written"),
            );
            return false;
        }
        if !written.covers(needed) {
            let missing = Mask::from_bits_truncate(needed.bits() & !written.bits());
            self.at(
                Rule::TemporaryComponentNotWritten,
                Some(which),
                format!(
                    "{op} reads {name}.{missing}, which has not been written (only .{written} has)"
                ),
            );
            return false;
        }
        true
    }

    /// A source read: records what it uses and checks temporaries. Every lane the swizzle
    /// names counts as read (of every row, for a matrix operand).
    pub(super) fn read(&mut self, op: Opcode, s: &Source, which: Field) {
        let matrix = op.shape() == Shape::Matrix && which == Field::Source2;
        let rows = match (matrix, op.matrix_rows()) {
            (true, Some(n)) => n,
            _ => 1,
        };
        let needed = s.swizzle.read_lanes(Mask::XYZW);
        match s.address {
            Address::Indirect(by) => {
                self.info.indirect_constants = true;
                match by.reg {
                    RegType::Temporary => {
                        self.note_temp(by.index);
                        self.temp_written(op, which, by.index, Mask::of(by.select));
                    }
                    RegType::Attribute => {
                        self.info.attributes |= 1u32.checked_shl(u32::from(by.index)).unwrap_or(0)
                    }
                    RegType::Constant => self.note_constant(by.index),
                    _ => {}
                }
            }
            Address::Direct(n) => match s.reg {
                RegType::Temporary => {
                    for r in 0..rows {
                        let index = n.saturating_add(r);
                        self.note_temp(index);
                        if !self.temp_written(op, which, index, needed) {
                            break;
                        }
                    }
                }
                RegType::Constant => self.note_constant(n.saturating_add(rows - 1)),
                RegType::Attribute => {
                    for r in 0..rows {
                        self.info.attributes |=
                            1u32.checked_shl(u32::from(n) + u32::from(r)).unwrap_or(0);
                    }
                }
                RegType::Varying => {
                    for r in 0..rows {
                        if let Some(m) = self
                            .info
                            .varyings_read
                            .get_mut(usize::from(n) + usize::from(r))
                        {
                            *m = m.or(needed);
                        }
                    }
                }
                _ => {}
            },
        }
    }

    fn note_temp(&mut self, index: u16) {
        self.info.temporaries = self.info.temporaries.max(index.saturating_add(1));
    }

    fn note_constant(&mut self, index: u16) {
        self.info.constants = self.info.constants.max(index.saturating_add(1));
    }

    /// The destination's rules, then the write.
    pub(super) fn write(&mut self, op: Opcode, d: Dest, src1: Option<&Source>) {
        let f = Some(Field::Destination);
        let name = reg_name(self.stage, d.reg, d.index);
        let in_block = self.flow.depth() > 0;
        if op.xyz_only() && d.mask.contains(crate::operand::Component::W) {
            self.at(
                Rule::MaskW,
                f,
                format!(
                    "{op} produces x, y and z only, but writes {name}.{} (use .xyz or less)",
                    d.mask
                ),
            );
        }
        if in_block && matches!(op, Opcode::Ddx | Opcode::Ddy) {
            self.at(
                Rule::DerivativeInConditional,
                None,
                format!("{op} inside a conditional block"),
            );
        }
        if in_block && op == Opcode::Tex {
            let interpolated =
                src1.is_some_and(|s| s.reg == RegType::Varying && s.direct_index().is_some());
            if !interpolated {
                self.at(
                    Rule::TexCoordInConditional,
                    Some(Field::Source1),
                    "tex inside a conditional block reads computed coordinates, not a varying"
                        .into(),
                );
            }
        }
        let lanes = d.mask.and(op.result_lanes());
        match (d.reg, self.stage) {
            (RegType::Temporary, _) => {
                self.note_temp(d.index);
                if let Some(m) = self.data.temps.get_mut(usize::from(d.index)) {
                    *m = m.or(lanes);
                }
            }
            (RegType::Output, Stage::Vertex) => {
                if in_block {
                    self.at(
                        Rule::OutputInConditional,
                        f,
                        format!("{op} writes {name} inside a conditional block"),
                    );
                }
                self.data.position = self.data.position.or(lanes);
            }
            (RegType::Output, Stage::Fragment) => {
                if in_block {
                    self.at(
                        Rule::OutputInConditional,
                        f,
                        format!("{op} writes {name} inside a conditional block"),
                    );
                }
                if d.mask != Mask::XYZW {
                    self.at(
                        Rule::ColorOutputMask,
                        f,
                        format!("{op} writes {name}.{}; the colour output takes all four components at once", d.mask),
                    );
                }
                let bit = 1u8.checked_shl(u32::from(d.index)).unwrap_or(0);
                if self.data.colors & bit != 0 {
                    self.at(
                        Rule::ColorOutputRewritten,
                        f,
                        format!("{op} writes {name} a second time"),
                    );
                }
                self.data.colors |= bit;
            }
            (RegType::Depth, _) => {
                if d.mask != Mask::X {
                    self.at(
                        Rule::DepthMask,
                        f,
                        format!("{op} writes {name}.{}; depth takes the mask .x", d.mask),
                    );
                }
                if in_block {
                    self.at(
                        Rule::OutputInConditional,
                        f,
                        format!("{op} writes {name} inside a conditional block"),
                    );
                }
                self.info.depth = true;
            }
            (RegType::Varying, Stage::Vertex) => {
                if let Some(m) = self.data.varyings.get_mut(usize::from(d.index)) {
                    *m = m.or(lanes);
                }
            }
            _ => {}
        }
    }

    /// Whole-program output rules.
    pub(super) fn data_end(&mut self) {
        match self.stage {
            Stage::Vertex => {
                if self.data.position != Mask::XYZW {
                    let msg = if self.data.position.is_empty() {
                        "op is never written".to_string()
                    } else {
                        format!(
                            "only op.{} is written; all four components must be",
                            self.data.position
                        )
                    };
                    self.whole(Rule::VertexOutputIncomplete, msg);
                }
                for (i, m) in self.data.varyings.clone().into_iter().enumerate() {
                    if !m.is_empty() && m != Mask::XYZW {
                        self.whole(
                            Rule::VaryingPartiallyWritten,
                            format!("only v{i}.{m} is written; a varying is written in all four components"),
                        );
                    }
                }
                self.info.varyings_written = self.data.varyings.clone();
            }
            Stage::Fragment => {
                let c = self.data.colors;
                if c == 0 {
                    self.whole(Rule::FragmentOutputIncomplete, "oc is never written".into());
                } else if c & c.wrapping_add(1) != 0 {
                    self.whole(
                        Rule::NonConsecutiveOutputs,
                        format!("colour outputs {c:#06b} are written; they must be oc0, oc1 … without gaps"),
                    );
                }
                self.info.color_outputs = c;
            }
        }
    }
}
