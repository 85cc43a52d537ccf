//! When picasso inserts a padding NOP, as a rule the compiler can follow too.
//!
//! The flow-control stacks compare the incremented program counter with the end address of the
//! innermost IF, LOOP and CALL after each instruction and pop at most one IF and one LOOP entry
//! per instruction, and a pending jump loses to a pop. picasso therefore pads a block with a NOP
//! at its `.end` (or at an `.else`) when:
//! - the block just closed another IF/FOR block (two block ends would share one address);
//! - its last word is a JMPC, JMPU, CALL, CALLC or CALLU (the jump would lose to the pop);
//! - it is a FOR body ending in BREAK or BREAKC;
//! - it is empty (an IF or FOR body with no word, a procedure with no word).
//!
//! An else-part is never padded for being empty (its length is counted from the IF word), and a
//! one-word body is not padded (`cmp_conditions`).

use crate::inst::Inst;

/// What a `.end` or `.else` closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closing {
    /// `.else` of an IF.
    Else,
    /// `.end` of a procedure.
    Proc,
    /// `.end` of a FOR (LOOP) block.
    Loop,
    /// `.end` of an IF (with or without an else-part).
    If,
}

/// Whether a NOP goes at the current end of `code`, closing a block opened at `start` (the
/// position of its IF or LOOP word, or of the procedure's first word). `closed_block` says the
/// last thing before this point was the `.end` of an IF or FOR block, with no instruction since.
pub fn needs_nop(code: &[Inst], closing: Closing, start: usize, closed_block: bool) -> bool {
    if closed_block {
        return true;
    }
    let Some(last) = code.last() else {
        return false;
    };
    let jumps = matches!(
        last,
        Inst::JmpC { .. }
            | Inst::JmpU { .. }
            | Inst::Call { .. }
            | Inst::CallC { .. }
            | Inst::CallU { .. }
    );
    let breaks = matches!(last, Inst::Break | Inst::BreakC { .. });
    let len = code.len().saturating_sub(start);
    match closing {
        Closing::Else | Closing::If => jumps || len < 2,
        Closing::Loop => jumps || breaks || len < 2,
        Closing::Proc => jumps || len < 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operand::{Condition, Target};

    #[test]
    fn rules() {
        let t = Target::new(0).unwrap();
        let body = [
            Inst::Loop {
                i: crate::operand::IntReg::new(0).unwrap(),
                last: t,
            },
            Inst::Nop,
        ];
        assert!(!needs_nop(&body, Closing::Loop, 0, false));
        assert!(needs_nop(&body[..1], Closing::Loop, 0, false));
        assert!(needs_nop(&body, Closing::Loop, 0, true));
        let brk = [body[0], Inst::Break];
        assert!(needs_nop(&brk, Closing::Loop, 0, false));
        let jmp = [
            Inst::Nop,
            Inst::JmpC {
                cond: Condition::x(true),
                target: t,
            },
        ];
        assert!(needs_nop(&jmp, Closing::Proc, 0, false));
        assert!(!needs_nop(&jmp[..1], Closing::Proc, 0, false));
        assert!(!needs_nop(&[], Closing::Proc, 0, false));
    }
}
