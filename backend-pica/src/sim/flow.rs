//! The flow-control stacks and how they choose the next program counter.
//!
//! The hardware keeps three independent stacks: CALL (4 deep), IF (8) and LOOP (4). A push onto
//! a full stack discards the oldest entry. After every instruction the incremented PC is handed
//! to each stack, which compares it with the end address of its top entry:
//! - LOOP: at the end of the body either loops back (aL += step) or pops; one entry at most;
//! - IF: pops and continues after the else-part; one entry at most;
//! - CALL: pops and returns, and checks again with the return address until it no longer
//!   matches; on the fourth pop in a row the PC update is lost (the third one stands), a
//!   documented hardware bug.
//!
//! The first stack (in the order LOOP, IF, CALL) that changed its copy of the PC decides; a jump
//! (JMP, a taken CALL, a false IF, BREAK) only applies when no stack did.

/// A bounded stack that drops its oldest entry when full.
#[derive(Clone, Debug)]
pub(super) struct Ring<T> {
    items: Vec<T>,
    depth: usize,
}

impl<T> Ring<T> {
    pub(super) fn new(depth: usize) -> Ring<T> {
        Ring {
            items: Vec::with_capacity(depth),
            depth,
        }
    }

    pub(super) fn push(&mut self, item: T) {
        if self.items.len() == self.depth {
            self.items.remove(0);
        }
        self.items.push(item);
    }

    pub(super) fn pop(&mut self) -> Option<T> {
        self.items.pop()
    }

    pub(super) fn top(&self) -> Option<&T> {
        self.items.last()
    }

    pub(super) fn top_mut(&mut self) -> Option<&mut T> {
        self.items.last_mut()
    }
}

/// An IF whose then-part is running: at `end`, continue at `resume`.
#[derive(Clone, Copy, Debug)]
pub(super) struct IfEntry {
    pub(super) end: u32,
    pub(super) resume: u32,
}

/// A procedure call: at `end`, return to `ret`.
#[derive(Clone, Copy, Debug)]
pub(super) struct CallEntry {
    pub(super) end: u32,
    pub(super) ret: u32,
}

/// A loop: body `start..end`, `remaining` more iterations, `step` added to aL each time.
#[derive(Clone, Copy, Debug)]
pub(super) struct LoopEntry {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) remaining: u32,
    pub(super) step: i32,
}

/// The three stacks.
#[derive(Clone, Debug)]
pub(super) struct Stacks {
    pub(super) ifs: Ring<IfEntry>,
    pub(super) calls: Ring<CallEntry>,
    pub(super) loops: Ring<LoopEntry>,
}

impl Stacks {
    pub(super) fn new() -> Stacks {
        Stacks {
            ifs: Ring::new(crate::limits::IF_STACK_DEPTH),
            calls: Ring::new(crate::limits::CALL_STACK_DEPTH),
            loops: Ring::new(crate::limits::LOOP_STACK_DEPTH),
        }
    }

    /// The PC after the instruction at `pc`, given the jump it asked for; `al` is the loop
    /// counter, updated when a loop goes round again.
    pub(super) fn next_pc(&mut self, pc: u32, jump: Option<u32>, al: &mut i32) -> u32 {
        let copy = pc + 1;
        let mut from_loop = None;
        if let Some(top) = self.loops.top_mut() {
            if top.end == copy {
                if top.remaining > 0 {
                    top.remaining -= 1;
                    *al = al.wrapping_add(top.step);
                    from_loop = Some(top.start);
                } else {
                    self.loops.pop();
                    from_loop = Some(copy);
                }
            }
        }
        let mut from_if = None;
        if self.ifs.top().is_some_and(|t| t.end == copy) {
            from_if = self.ifs.pop().map(|t| t.resume);
        }
        let mut from_call = None;
        let mut call_copy = copy;
        let mut pops = 0;
        while let Some(top) = self.calls.top().copied() {
            if top.end != call_copy {
                break;
            }
            self.calls.pop();
            pops += 1;
            if pops != 4 {
                call_copy = top.ret;
            }
            from_call = Some(call_copy);
        }
        from_loop.or(from_if).or(from_call).or(jump).unwrap_or(copy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_drops_oldest() {
        let mut r = Ring::new(2);
        r.push(1);
        r.push(2);
        r.push(3);
        assert_eq!(r.pop(), Some(3));
        assert_eq!(r.pop(), Some(2));
        assert_eq!(r.pop(), None);
    }

    #[test]
    fn loop_wins_over_if_and_jump() {
        let mut s = Stacks::new();
        let mut al = 0;
        s.loops.push(LoopEntry {
            start: 1,
            end: 5,
            remaining: 1,
            step: 2,
        });
        s.ifs.push(IfEntry { end: 5, resume: 9 });
        assert_eq!(s.next_pc(4, Some(7), &mut al), 1);
        assert_eq!(al, 2);
        // The IF entry popped too (each stack checks on its own).
        assert!(s.ifs.top().is_none());
        assert_eq!(s.next_pc(4, None, &mut al), 5);
        assert!(s.loops.top().is_none());
    }

    #[test]
    fn nested_returns_and_the_fourth_pop() {
        let mut s = Stacks::new();
        let mut al = 0;
        // Three calls ending where the next returns to: all three pop at once.
        s.calls.push(CallEntry { end: 20, ret: 3 });
        s.calls.push(CallEntry { end: 30, ret: 20 });
        s.calls.push(CallEntry { end: 40, ret: 30 });
        assert_eq!(s.next_pc(39, None, &mut al), 3);
        // Four in a row: the fourth update is lost, the third return address stands.
        s.calls.push(CallEntry { end: 20, ret: 3 });
        s.calls.push(CallEntry { end: 30, ret: 20 });
        s.calls.push(CallEntry { end: 40, ret: 30 });
        s.calls.push(CallEntry { end: 50, ret: 40 });
        assert_eq!(s.next_pc(49, None, &mut al), 20);
    }
}
