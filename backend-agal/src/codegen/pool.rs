//! The literal pool. AGAL has no immediate operands: every number a program uses lives in a
//! constant register the application uploads. Literals are packed four to a register and
//! shared (a value already in some register's lane is read from there), in the registers
//! after the uniforms (`vc` or `fc`). Unlike the PICA200's pool there is no negation to reuse:
//! AGAL sources have no negate modifier, so `-x` is a value of its own.

use crate::operand::{Component, Mask, Swizzle};

/// The pool.
#[derive(Clone, Debug)]
pub struct Pool {
    /// The first register it uses.
    base: u16,
    /// Its registers in order; each lane holds a value (by bits) or is free.
    regs: Vec<[Option<u32>; 4]>,
}

impl Pool {
    /// An empty pool starting at register `base`.
    pub fn new(base: u16) -> Pool {
        Pool {
            base,
            regs: Vec::new(),
        }
    }

    /// Places the values an operand reads at each position (`None` where the operation does
    /// not read the position) and returns the register and the swizzle reading them; the
    /// positions not read repeat a read one, so the swizzle names only pool lanes in use.
    pub fn place(&mut self, want: [Option<f32>; 4]) -> (u16, Swizzle) {
        let bits: Vec<u32> = want.iter().flatten().map(|v| v.to_bits()).collect();
        if bits.is_empty() {
            return self.place([Some(0.0), None, None, None]);
        }
        let mut distinct: Vec<u32> = Vec::new();
        for &b in &bits {
            if !distinct.contains(&b) {
                distinct.push(b);
            }
        }
        let index = self
            .regs
            .iter()
            .position(|r| distinct.iter().all(|b| r.contains(&Some(*b))))
            .or_else(|| {
                // A register with room for what it lacks.
                let i = self.regs.iter().position(|r| {
                    let missing = distinct.iter().filter(|b| !r.contains(&Some(**b))).count();
                    missing <= r.iter().filter(|l| l.is_none()).count()
                })?;
                for &b in &distinct {
                    if !self.regs[i].contains(&Some(b)) {
                        let free = self.regs[i].iter().position(Option::is_none)?;
                        self.regs[i][free] = Some(b);
                    }
                }
                Some(i)
            })
            .unwrap_or_else(|| {
                // A new register, values in the order read (a vector reads as `.xyzw`).
                let mut reg = [None; 4];
                for (slot, &b) in reg.iter_mut().zip(&distinct) {
                    *slot = Some(b);
                }
                self.regs.push(reg);
                self.regs.len() - 1
            });
        let reg = self.regs[index];
        let mut lanes = [Component::X; 4];
        let mut read = 0u8;
        for (p, w) in want.iter().enumerate() {
            if let Some(v) = w {
                let l = reg
                    .iter()
                    .position(|x| *x == Some(v.to_bits()))
                    .unwrap_or(0);
                lanes[p] = Component::from_bits(l as u8);
                read |= 1 << p;
            }
        }
        let swizzle = Swizzle::new(lanes).restricted_to(Mask::from_bits_truncate(read));
        (self.base + index as u16, swizzle)
    }

    /// How many registers it uses.
    pub fn len(&self) -> usize {
        self.regs.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.regs.is_empty()
    }

    /// The first register.
    pub fn base(&self) -> u16 {
        self.base
    }

    /// Each register with its four values (free lanes are 0), in order.
    pub fn registers(&self) -> Vec<(u16, [f32; 4])> {
        self.regs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    self.base + i as u16,
                    r.map(|l| f32::from_bits(l.unwrap_or(0))),
                )
            })
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
