//! The literal pool: every constant the program reads, packed four to a register and shared
//! (a value already in some register's lane is read from there, negated values through the
//! source negate bit), in the float registers from c95 down. The DVLE constant table holds
//! them, so libctru uploads them when the program is bound.

use crate::operand::{Component, Swizzle};

/// The pool.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    /// Register c95 first, then c94, ...; each lane holds a value (by bits) or is free.
    regs: Vec<[Option<u32>; 4]>,
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
    /// Places `values` (1 to 4 lanes) and says how to read them.
    pub fn place(&mut self, values: &[f32]) -> Placed {
        let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
        let negated: Vec<u32> = values.iter().map(|v| (-v).to_bits()).collect();
        // Already all in one register (as they are, or all negated)?
        for (i, reg) in self.regs.iter().enumerate() {
            for (want, neg) in [(&bits, false), (&negated, true)] {
                if let Some(sw) = find_all(reg, want) {
                    return Placed {
                        reg: register(i),
                        swizzle: sw,
                        neg,
                    };
                }
            }
        }
        // A register with room for what it lacks.
        for i in 0..self.regs.len() {
            let missing: Vec<u32> = distinct(&bits)
                .into_iter()
                .filter(|b| !self.regs[i].contains(&Some(*b)))
                .collect();
            let free = self.regs[i].iter().filter(|l| l.is_none()).count();
            if missing.len() <= free {
                for b in missing {
                    let slot = self.regs[i].iter().position(Option::is_none).unwrap_or(0);
                    self.regs[i][slot] = Some(b);
                }
                let sw = find_all(&self.regs[i], &bits).unwrap_or(Swizzle::IDENTITY);
                return Placed {
                    reg: register(i),
                    swizzle: sw,
                    neg: false,
                };
            }
        }
        // A new register, values in order (a vector constant reads as `.xyzw`).
        let mut reg = [None; 4];
        let mut lane = 0;
        for b in &bits {
            if !reg[..lane].contains(&Some(*b)) {
                reg[lane] = Some(*b);
                lane += 1;
            }
        }
        self.regs.push(reg);
        let i = self.regs.len() - 1;
        Placed {
            reg: register(i),
            swizzle: find_all(&self.regs[i], &bits).unwrap_or(Swizzle::IDENTITY),
            neg: false,
        }
    }

    /// How many registers it uses.
    pub fn len(&self) -> usize {
        self.regs.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.regs.is_empty()
    }

    /// The lowest register it uses, if any.
    pub fn lowest(&self) -> Option<u8> {
        (!self.regs.is_empty()).then(|| register(self.regs.len() - 1))
    }

    /// Each register with its four values (free lanes are 0), c95 first.
    pub fn registers(&self) -> Vec<(u8, [f32; 4])> {
        self.regs
            .iter()
            .enumerate()
            .map(|(i, r)| (register(i), r.map(|l| f32::from_bits(l.unwrap_or(0)))))
            .collect()
    }
}

fn distinct(bits: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for &b in bits {
        if !out.contains(&b) {
            out.push(b);
        }
    }
    out
}

/// The swizzle reading `want[i]` into lane i (later lanes repeat the last), if the register
/// holds every value.
fn find_all(reg: &[Option<u32>; 4], want: &[u32]) -> Option<Swizzle> {
    let mut lanes = [Component::X; 4];
    for (i, slot) in lanes.iter_mut().enumerate() {
        let b = want[i.min(want.len() - 1)];
        let l = reg.iter().position(|&x| x == Some(b))?;
        *slot = Component::from_index(l);
    }
    Some(Swizzle::new(lanes))
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
