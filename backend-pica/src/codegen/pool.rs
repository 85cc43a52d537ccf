//! The literal pool (the machine layer's [`LiteralPool`]): every constant the program reads,
//! packed four to a register and shared (negated values through the source negate bit), in
//! the float registers from c95 down. The DVLE constant table holds
//! them, so libctru uploads them when the program is bound.

use machine::pool::LiteralPool;

use crate::operand::{Component, Swizzle};

/// The pool: the machine layer's, numbered from c95 down, read through PICA swizzles.
#[derive(Clone, Debug)]
pub struct Pool(LiteralPool);

impl Default for Pool {
    fn default() -> Pool {
        // PICA sources negate: a pooled `x` also serves `-x`.
        Pool(LiteralPool::new(true))
    }
}

/// Where a constant operand reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The register.
    pub reg: u8,
    /// Which lanes feed the operand's lanes.
    pub swizzle: Swizzle,
    /// Whether the values are stored negated.
    pub neg: bool,
}

/// The highest register the pool uses.
pub const TOP: u8 = 95;

/// The register of the pool's `i`th entry (c95 first). Past c0 (more than 96 entries, which
/// the code generator then refuses with the limit) every entry reads c0.
fn register(i: usize) -> u8 {
    TOP.saturating_sub(u8::try_from(i).unwrap_or(u8::MAX))
}

impl Pool {
    /// Places `values` (1 to 4 lanes; the operand's later lanes repeat the last) and says
    /// how to read them.
    pub fn place(&mut self, values: &[f32]) -> Placed {
        let want = std::array::from_fn(|p| values.get(p.min(values.len().max(1) - 1)).copied());
        let slot = self.0.place(want);
        let mut lanes = [Component::X; 4];
        for (l, s) in lanes.iter_mut().zip(slot.lanes) {
            *l = Component::from_index(usize::from(s.unwrap_or(0)));
        }
        Placed {
            reg: register(slot.index),
            swizzle: Swizzle::new(lanes),
            neg: slot.neg,
        }
    }

    /// How many registers it uses.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The lowest register it uses, if any.
    pub fn lowest(&self) -> Option<u8> {
        (!self.0.is_empty()).then(|| register(self.0.len() - 1))
    }

    /// Each register with its four values (free lanes are 0), c95 first.
    pub fn registers(&self) -> Vec<(u8, [f32; 4])> {
        self.0
            .values()
            .into_iter()
            .enumerate()
            .map(|(i, v)| (register(i), v))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_share_a_register_and_negation_is_free() {
        let mut p = Pool::default();
        let a = p.place(&[0.5]);
        let b = p.place(&[2.0]);
        let c = p.place(&[-0.5]);
        assert_eq!((a.reg, b.reg, c.reg), (95, 95, 95));
        assert!(c.neg);
        assert_eq!(b.swizzle, Swizzle::broadcast(Component::Y));
        let v = p.place(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(v.reg, 94, "a full vector gets its own register");
        assert_eq!(v.swizzle, Swizzle::IDENTITY);
        assert_eq!(p.place(&[4.0, 1.0]).swizzle.to_string(), "wxxx");
        assert_eq!(p.lowest(), Some(94));
        assert_eq!(p.registers()[0].1, [0.5, 2.0, 0.0, 0.0]);
    }
}
