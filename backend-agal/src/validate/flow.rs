//! AGAL 2 conditional structure: `ife`/`ine`/`ifg`/`ifl` open a block, `els` splits it once,
//! `eif` closes it (#3623, #3624, #3739, #3748, #3752).

use super::{Checker, Rule};
use crate::opcode::Opcode;

/// How deep blocks may nest (the 2015 assembler's `MAX_NESTING`; the ray tracer in the golden
/// files, which Flash ran, nests four deep).
pub const MAX_NESTING: usize = 4;

/// The open blocks.
#[derive(Default)]
pub(crate) struct Flow {
    /// One entry per open block: whether it has had its `els`.
    open: Vec<bool>,
    /// Whether the current branch has no instruction yet.
    empty: bool,
}

impl Flow {
    /// How many blocks are open.
    pub fn depth(&self) -> usize {
        self.open.len()
    }
}

impl Checker {
    pub(super) fn flow_step(&mut self, op: Opcode) {
        match op {
            Opcode::Ife | Opcode::Ine | Opcode::Ifg | Opcode::Ifl => {
                if self.flow.open.len() >= MAX_NESTING {
                    self.at(
                        Rule::NestingOverflow,
                        None,
                        format!(
                            "{op} opens block {}; at most {MAX_NESTING} may be open",
                            self.flow.open.len() + 1
                        ),
                    );
                }
                self.flow.open.push(false);
                self.flow.empty = true;
            }
            Opcode::Els => match self.flow.open.last_mut() {
                None => self.at(
                    Rule::BrokenElseChain,
                    None,
                    "els without an open conditional".into(),
                ),
                Some(true) => self.at(
                    Rule::BrokenElseChain,
                    None,
                    "a second els in one conditional".into(),
                ),
                Some(has_else) => {
                    *has_else = true;
                    if self.flow.empty {
                        self.at(Rule::EmptyBranch, None, "els ends an empty branch".into());
                    }
                    self.flow.empty = true;
                }
            },
            Opcode::Eif => {
                if self.flow.open.pop().is_none() {
                    self.at(
                        Rule::NestingUnderflow,
                        None,
                        "eif without an open conditional".into(),
                    );
                } else if self.flow.empty {
                    self.at(Rule::EmptyBranch, None, "eif ends an empty branch".into());
                }
                self.flow.empty = false;
            }
            _ => self.flow.empty = false,
        }
    }

    pub(super) fn flow_end(&mut self) {
        let n = self.flow.open.len();
        if n > 0 {
            self.whole(
                Rule::OpenBlock,
                format!("{n} conditional block(s) still open at the end"),
            );
        }
    }
}
