//! The literal pool. Neither target has immediate operands: every number a program uses
//! lives in a constant register (the PICA200's DVLE constant table loads them, an AGAL
//! application uploads them). Literals are packed four to a register and shared: a value
//! already in some register's lane is read from there, and where the target's sources can
//! negate, a value whose negation is pooled is read negated.
//!
//! The pool numbers its registers 0, 1, 2 … in the order it opens them; each back end maps
//! that index to a register (the PICA200 counts down from c95, AGAL up from the first
//! register after the uniforms).

/// The pool.
#[derive(Clone, Debug)]
pub struct LiteralPool {
    /// Whether the target's sources can negate (a pooled `x` then also serves `-x`).
    negation: bool,
    /// Its registers in order; each lane holds a value (by bits) or is free.
    regs: Vec<[Option<u32>; 4]>,
}

/// Where a literal operand reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The pool's register (0 for the first it opened).
    pub index: usize,
    /// The register lane each position reads (`None` where the operand reads nothing).
    pub lanes: [Option<u8>; 4],
    /// Whether the register holds the values negated (only when the pool may negate).
    pub neg: bool,
}

impl LiteralPool {
    /// An empty pool; `negation`: whether the target's sources can negate.
    pub fn new(negation: bool) -> LiteralPool {
        LiteralPool {
            negation,
            regs: Vec::new(),
        }
    }

    /// Places the values an operand reads at each position (`None` where it reads nothing)
    /// and says how to read them. An operand that reads nothing reads a pooled 0.0.
    pub fn place(&mut self, want: [Option<f32>; 4]) -> Slot {
        if want.iter().all(Option::is_none) {
            return self.place([Some(0.0), None, None, None]);
        }
        let bits = want.map(|w| w.map(f32::to_bits));
        let negated = want.map(|w| w.map(|v| (-v).to_bits()));
        let distinct = distinct(&bits);
        // Already all in one register (as they are, or all negated)?
        for (i, reg) in self.regs.iter().enumerate() {
            if let Some(lanes) = find_all(reg, &bits) {
                return Slot {
                    index: i,
                    lanes,
                    neg: false,
                };
            }
            if self.negation {
                if let Some(lanes) = find_all(reg, &negated) {
                    return Slot {
                        index: i,
                        lanes,
                        neg: true,
                    };
                }
            }
        }
        // A register with room for what it lacks, else a new one (values in the order
        // read: a vector constant reads as `.xyzw`).
        let index = self
            .regs
            .iter()
            .position(|r| {
                let missing = distinct.iter().filter(|b| !r.contains(&Some(**b))).count();
                missing <= r.iter().filter(|l| l.is_none()).count()
            })
            .unwrap_or_else(|| {
                self.regs.push([None; 4]);
                self.regs.len() - 1
            });
        let reg = &mut self.regs[index];
        for b in distinct {
            if !reg.contains(&Some(b)) {
                if let Some(free) = reg.iter().position(Option::is_none) {
                    reg[free] = Some(b);
                }
            }
        }
        Slot {
            index,
            lanes: find_all(reg, &bits).unwrap_or([Some(0), None, None, None]),
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

    /// Each register's four values (free lanes are 0), in the pool's order.
    pub fn values(&self) -> Vec<[f32; 4]> {
        self.regs
            .iter()
            .map(|r| r.map(|l| f32::from_bits(l.unwrap_or(0))))
            .collect()
    }
}

/// The values of `bits`, each once, in order.
fn distinct(bits: &[Option<u32>; 4]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for &b in bits.iter().flatten() {
        if !out.contains(&b) {
            out.push(b);
        }
    }
    out
}

/// The lane of `reg` holding each wanted value, if the register holds every one.
fn find_all(reg: &[Option<u32>; 4], want: &[Option<u32>; 4]) -> Option<[Option<u8>; 4]> {
    let mut lanes = [None; 4];
    for (slot, w) in lanes.iter_mut().zip(want) {
        if let Some(b) = w {
            *slot = Some(reg.iter().position(|x| *x == Some(*b))? as u8);
        }
    }
    Some(lanes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(values: &[f32]) -> [Option<f32>; 4] {
        std::array::from_fn(|p| values.get(p.min(values.len() - 1)).copied())
    }

    #[test]
    fn scalars_share_a_register_and_negation_is_free_where_sources_negate() {
        let mut p = LiteralPool::new(true);
        let a = p.place(all(&[0.5]));
        let b = p.place(all(&[2.0]));
        let c = p.place(all(&[-0.5]));
        assert_eq!((a.index, b.index, c.index), (0, 0, 0));
        assert!(c.neg && !a.neg);
        assert_eq!(b.lanes, [Some(1); 4]);
        let v = p.place(all(&[1.0, 2.0, 3.0, 4.0]));
        assert_eq!(v.index, 1, "a full vector gets its own register");
        assert_eq!(v.lanes, [Some(0), Some(1), Some(2), Some(3)]);
        assert_eq!(
            p.place(all(&[4.0, 1.0])).lanes,
            [Some(3), Some(0), Some(0), Some(0)]
        );
        assert_eq!(p.values()[0], [0.5, 2.0, 0.0, 0.0]);
    }

    #[test]
    fn without_negation_a_negated_value_is_a_value_of_its_own() {
        let mut p = LiteralPool::new(false);
        assert_eq!(
            p.place([Some(0.5), None, None, None]).lanes,
            [Some(0), None, None, None]
        );
        let s = p.place([None, None, Some(-0.5), None]);
        assert_eq!(
            (s.index, s.lanes, s.neg),
            (0, [None, None, Some(1), None], false)
        );
        // Nothing read: a pooled 0.0.
        let z = p.place([None; 4]);
        assert_eq!((z.index, z.lanes), (0, [Some(2), None, None, None]));
        assert_eq!(p.values(), vec![[0.5, -0.5, 0.0, 0.0]]);
        assert_eq!(p.len(), 1);
    }
}
