//! The lowering state both selectors share (as Cranelift's `machinst::Lower` is to its
//! ISAs): the code being filled, the values' virtual registers, the errors, and where the
//! current block's values are placed. An instruction set's selector embeds it and keeps
//! beside it only what is its own; the driver ([`crate::select::drive`]) reaches it through
//! [`crate::select::Hooks::lower`].
//!
//! Its own module rather than part of `select`: `select` is the driver and the placement
//! analyses, which read a function; this is the state a selector writes.

use crate::inst::VInst;
use mir::func::{BlockId, Function, Value, ValueDef};
use mir::hash::{HashMap, HashSet};
use mir::inst::{Op, Operand};
use mir::{Diagnostic, Span};
use regalloc2::VReg;

use crate::select::{Chains, Packs, Values, positions};
use crate::vcode::VCode;

/// Where a value is computed, when not into a register of its own; `O` is an output in the
/// instruction set's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place<O> {
    /// Lanes of a vector a construct builds (the construct reads the value once, lane by
    /// lane in order).
    Lane {
        /// The construct's result.
        chain: Value,
        /// The first lane.
        lane: u8,
        /// How many lanes.
        count: u8,
    },
    /// An output (read once, by the end of the program or an emit).
    Output(O),
}

/// The state of selecting one function into virtual code of instruction `I`: `O` is an
/// output in the instruction set's terms, `X` what it keeps beside a chain, `K` what names a
/// register it copies into a temporary.
pub struct Lower<'f, I, O, X, K> {
    /// The function being selected.
    pub f: &'f Function,
    /// The code being filled.
    pub code: VCode<I>,
    /// The virtual register of each computed value.
    pub vregs: Values,
    /// The errors so far (selection goes on after one, so that all are reported).
    pub errors: Vec<Diagnostic>,
    /// The MIR instruction being selected: each instruction and error made is its.
    pub span: Span,
    /// How many times each value is read (operands and terminators).
    pub uses: HashMap<Value, usize>,
    /// Values computed straight into an output, found before selection.
    pub outputs_at: HashMap<Value, O>,
    /// Values of the current block computed straight into their final place.
    pub places: HashMap<Value, Place<O>>,
    /// Vectors being written piece by piece in the current block.
    pub chains: Chains<X>,
    /// The packed values of the current block (when lane packing is on).
    pub packs: Packs,
    /// Whether lane packing is on.
    pub pack_lanes: bool,
    /// Registers copied into a temporary in the current block, reused while it lasts.
    pub copies: Copies<K>,
}

impl<'f, I, O, X: Copy, K> Lower<'f, I, O, X, K> {
    /// The state for selecting `f`, with lane packing on or off.
    pub fn new(f: &'f Function, pack_lanes: bool) -> Self {
        Lower {
            f,
            code: VCode::new(f),
            vregs: Values::default(),
            errors: Vec::new(),
            span: Span::default(),
            uses: f.use_counts(),
            outputs_at: HashMap::default(),
            places: HashMap::default(),
            chains: Chains::default(),
            packs: Packs::default(),
            pack_lanes,
            copies: Copies::default(),
        }
    }

    /// The virtual register of computed value `v`, made on first ask.
    pub fn vreg(&mut self, v: Value) -> VReg {
        self.vregs.get(&mut self.code, v)
    }

    /// A new virtual block starts: forgets the previous block's places, chains, packs and
    /// copies (the instruction set forgets its own).
    pub fn start_block(&mut self) {
        self.places.clear();
        self.chains.clear();
        self.packs.clear();
        self.copies.clear();
    }

    /// Starts the placement of block `b`'s values with those it computes straight into an
    /// output. Returns where in `b` each of its results is defined.
    pub fn place_outputs(&mut self, b: BlockId) -> HashMap<Value, usize>
    where
        O: Copy,
    {
        let here = positions(self.f, b);
        let outputs_here: Vec<(Value, Place<O>)> = self
            .outputs_at
            .iter()
            .filter(|(v, _)| here.contains_key(v))
            .map(|(v, o)| (*v, Place::Output(*o)))
            .collect();
        self.places.extend(outputs_here);
        here
    }

    /// The output the current block computes `v` straight into, if any.
    pub fn output(&self, v: Value) -> Option<O>
    where
        O: Copy,
    {
        match self.places.get(&v) {
            Some(Place::Output(o)) => Some(*o),
            _ => None,
        }
    }

    /// Whether `v` is computed straight into lanes of the vector `c`.
    pub fn in_chain(&self, v: Value, c: Value) -> bool {
        matches!(self.places.get(&v), Some(Place::Lane { chain, .. }) if *chain == c)
    }

    /// The values with a place of their own, which are not packed: the current block's
    /// places and every output's.
    pub fn placed(&self) -> HashSet<Value> {
        let mut out: HashSet<Value> = self.places.keys().copied().collect();
        out.extend(self.outputs_at.keys().copied());
        out
    }

    /// Makes what follows `v`'s, when `v`'s definition has a source line (a copy of a value
    /// is where the value was read or made).
    pub fn at_definition(&mut self, v: Value) {
        if let Some(d) = self.f.def_inst(v).filter(|d| d.span.source.is_some()) {
            self.span = d.span;
        }
    }

    /// Records error `d`, at the instruction being selected unless it names its own span.
    pub fn error(&mut self, mut d: Diagnostic) {
        d.span.get_or_insert(self.span);
        self.errors.push(d);
    }

    /// The register `op` reads when it is a plain read of a value in a register of its own:
    /// a block parameter, or a value neither packed nor `read_in_place` by the instruction
    /// set.
    pub fn own_vreg(&mut self, op: &Operand, read_in_place: impl Fn(Op) -> bool) -> Option<VReg> {
        let plain = !op.neg && !op.abs && op.swizzle == mir::Swizzle::IDENTITY;
        let own = match self.f.values[op.value].def {
            ValueDef::Param(..) => true,
            ValueDef::Inst(i, _) => {
                !self.packs.contains(op.value) && !read_in_place(self.f.insts[i].op)
            }
        };
        (plain && own).then(|| self.vreg(op.value))
    }

    /// A temporary holding `lanes` (a mask) of register `key`: the current block's copy
    /// when there is one, else a new temporary that the move `mov` makes fills, kept for
    /// later reads of `key` (`None`: a register not worth keeping).
    pub fn copy(&mut self, key: Option<K>, lanes: u8, mov: impl FnOnce(VReg) -> I) -> VReg
    where
        I: VInst,
        K: PartialEq,
    {
        if let Some(t) = key.as_ref().and_then(|k| self.copies.get(k, lanes)) {
            return t;
        }
        let t = self.code.vreg();
        if let Some(k) = key {
            self.copies.insert(k, lanes, t);
        }
        let mov = mov(t);
        let ops = mov.operands();
        self.code.push(mov, &ops, self.span);
        t
    }

    /// The code, or the errors.
    pub fn finish(self) -> Result<VCode<I>, Vec<Diagnostic>> {
        if self.errors.is_empty() {
            Ok(self.code)
        } else {
            Err(self.errors)
        }
    }
}

/// Registers copied into a temporary in the current block (for an instruction that cannot
/// read them where they are), so that a later read of lanes already copied reads the copy.
#[derive(Clone, Debug)]
pub struct Copies<K>(Vec<(K, u8, VReg)>);

impl<K> Default for Copies<K> {
    fn default() -> Self {
        Copies(Vec::new())
    }
}

impl<K: PartialEq> Copies<K> {
    /// The first copy of register `key` holding at least `lanes` (a mask, lane `l` at bit
    /// `l`).
    pub fn get(&self, key: &K, lanes: u8) -> Option<VReg> {
        self.0
            .iter()
            .find(|(k, held, _)| k == key && held & lanes == lanes)
            .map(|&(.., t)| t)
    }
}

impl<K> Copies<K> {
    /// Records `copy` as holding `lanes` of register `key`.
    pub fn insert(&mut self, key: K, lanes: u8, copy: VReg) {
        self.0.push((key, lanes, copy));
    }

    /// Forgets every copy (a new block).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regalloc2::RegClass;

    fn vreg(n: usize) -> VReg {
        VReg::new(n, RegClass::Float)
    }

    #[test]
    fn a_copy_serves_the_lanes_it_holds() {
        let mut copies = Copies::default();
        copies.insert(3u8, 0b0011, vreg(0));
        assert_eq!(copies.get(&3, 0b0001), Some(vreg(0)));
        assert_eq!(copies.get(&3, 0b0011), Some(vreg(0)));
        // A lane it does not hold, or another register: no copy.
        assert_eq!(copies.get(&3, 0b0111), None);
        assert_eq!(copies.get(&4, 0b0001), None);
    }

    #[test]
    fn the_first_copy_that_holds_the_lanes_is_read() {
        let mut copies = Copies::default();
        copies.insert(3u8, 0b0001, vreg(0));
        copies.insert(3u8, 0b1111, vreg(1));
        copies.insert(3u8, 0b1111, vreg(2));
        assert_eq!(copies.get(&3, 0b0001), Some(vreg(0)));
        assert_eq!(copies.get(&3, 0b0100), Some(vreg(1)));
        copies.clear();
        assert_eq!(copies.get(&3, 0b0001), None);
    }
}
