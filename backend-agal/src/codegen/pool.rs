//! The literal pool (the machine layer's [`LiteralPool`]). AGAL has no immediate operands:
//! every number a program uses lives in a constant register the application uploads, in the
//! registers after the uniforms (`vc` or `fc`). Unlike the PICA200's pool there is no
//! negation to reuse: AGAL sources have no negate modifier, so `-x` is a value of its own.

use machine::pool::LiteralPool;

use crate::operand::{Component, Mask, Swizzle};

/// The pool: the machine layer's, numbered from `base` up, read through AGAL swizzles.
#[derive(Clone, Debug)]
pub struct Pool {
    /// The first register it uses.
    base: u16,
    pool: LiteralPool,
}

impl Pool {
    /// An empty pool starting at register `base`.
    pub fn new(base: u16) -> Pool {
        Pool {
            base,
            // AGAL sources have no negate modifier.
            pool: LiteralPool::new(false),
        }
    }

    /// Places the values an operand reads at each position (`None` where the operation does
    /// not read the position) and returns the register and the swizzle reading them; the
    /// positions not read repeat a read one, so the swizzle names only pool lanes in use.
    pub fn place(&mut self, want: [Option<f32>; 4]) -> (u16, Swizzle) {
        let slot = self.pool.place(want);
        let mut lanes = [Component::X; 4];
        let mut read = 0u8;
        for (p, l) in slot.lanes.iter().enumerate() {
            if let Some(l) = l {
                lanes[p] = Component::from_bits(*l);
                read |= 1 << p;
            }
        }
        let swizzle = Swizzle::new(lanes).restricted_to(Mask::from_bits_truncate(read));
        (self.base + slot.index as u16, swizzle)
    }

    /// How many registers it uses.
    pub fn len(&self) -> usize {
        self.pool.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.pool.is_empty()
    }

    /// The first register.
    pub fn base(&self) -> u16 {
        self.base
    }

    /// Each register with its four values (free lanes are 0), in order.
    pub fn registers(&self) -> Vec<(u16, [f32; 4])> {
        self.pool
            .values()
            .into_iter()
            .enumerate()
            .map(|(i, v)| (self.base + i as u16, v))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_pack_after_the_base_and_are_shared() {
        let mut p = Pool::new(5);
        let (r, s) = p.place([Some(0.5), None, None, None]);
        assert_eq!((r, s.to_string()), (5, "xxxx".to_string()));
        let (r, s) = p.place([Some(2.0), Some(2.0), None, None]);
        assert_eq!((r, s.to_string()), (5, "yyyy".to_string()));
        // Negation is a value of its own: no source modifier reads 0.5 as -0.5.
        let (r, s) = p.place([None, None, Some(-0.5), None]);
        assert_eq!((r, s.to_string()), (5, "zzzz".to_string()));
        let (r, s) = p.place([Some(1.0), Some(2.0), Some(3.0), Some(4.0)]);
        assert_eq!((r, s.to_string()), (6, "xyzw".to_string()));
        let (r, s) = p.place([Some(4.0), Some(1.0), None, None]);
        assert_eq!((r, s.to_string()), (6, "wxxx".to_string()));
        assert_eq!(p.len(), 2);
        assert_eq!(p.registers()[0], (5, [0.5, 2.0, -0.5, 0.0]));
    }
}
