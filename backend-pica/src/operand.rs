//! Checked operand newtypes: registers, swizzles, write masks, relative indices, comparison
//! operators, conditions and flow targets.
//!
//! Every constructor that takes a number checks its range and returns `None` when it does not
//! fit the field it will be encoded into, so a value of these types is always encodable on its
//! own. Rules that involve more than one operand (which source slot may hold a constant register,
//! two different input registers) are checked by [`crate::inst::Inst::validate`].

use std::fmt;

use crate::limits;

/// A vector component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// The first component.
    X,
    /// The second component.
    Y,
    /// The third component.
    Z,
    /// The fourth component.
    W,
}

impl Component {
    /// All four, in order.
    pub const ALL: [Component; 4] = [Component::X, Component::Y, Component::Z, Component::W];

    /// 0 for x up to 3 for w.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The component with index `i & 3`.
    pub fn from_index(i: usize) -> Component {
        Component::ALL[i & 3]
    }

    /// `x`, `y`, `z` or `w`.
    pub fn letter(self) -> char {
        ['x', 'y', 'z', 'w'][self.index()]
    }
}

/// A source swizzle: for each lane, the component it reads. Stored as the 8-bit selector of the
/// operand descriptor (lane x in bits 6–7, lane w in bits 0–1), so every value is encodable.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle(u8);

impl Swizzle {
    /// `.xyzw`.
    pub const IDENTITY: Swizzle = Swizzle(0x1B);

    /// The swizzle reading `lanes[i]` into lane `i`.
    pub fn new(lanes: [Component; 4]) -> Swizzle {
        let mut selector = 0;
        for (i, c) in lanes.iter().enumerate() {
            selector |= (c.index() as u8) << (6 - 2 * i);
        }
        Swizzle(selector)
    }

    /// Every lane reads `c`.
    pub fn broadcast(c: Component) -> Swizzle {
        Swizzle::new([c; 4])
    }

    /// The swizzle with this descriptor selector byte.
    pub fn from_selector(selector: u8) -> Swizzle {
        Swizzle(selector)
    }

    /// The descriptor selector byte.
    pub fn selector(self) -> u8 {
        self.0
    }

    /// The component lane `lane` reads.
    pub fn lane(self, lane: Component) -> Component {
        Component::from_index(usize::from(self.0 >> (6 - 2 * lane.index())))
    }

    /// The four components, lane x first.
    pub fn lanes(self) -> [Component; 4] {
        Component::ALL.map(|l| self.lane(l))
    }

    /// `inner` applied first, then `self`: lane `i` reads `inner.lane(self.lane(i))`.
    pub fn compose(self, inner: Swizzle) -> Swizzle {
        Swizzle::new(self.lanes().map(|c| inner.lane(c)))
    }
}

impl fmt::Display for Swizzle {
    /// The four letters, e.g. `xyzw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.lanes() {
            write!(f, "{}", c.letter())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Swizzle({self})")
    }
}

/// A destination write mask: bit 0 is x, bit 3 is w (the order of the `.shbin` output table; the
/// operand descriptor stores the reverse, see [`Mask::descriptor_bits`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mask(u8);

impl Mask {
    /// All four components.
    pub const XYZW: Mask = Mask(0xF);
    /// No component (only meaningful where the mask is ignored, as in CMP).
    pub const NONE: Mask = Mask(0);

    /// The mask with these bits (bit 0 = x), if they fit in four bits.
    pub fn new(bits: u8) -> Option<Mask> {
        (bits <= 0xF).then_some(Mask(bits))
    }

    /// The mask of exactly these components.
    pub fn of(components: &[Component]) -> Mask {
        Mask(components.iter().fold(0, |m, c| m | 1 << c.index()))
    }

    /// Bits with x in bit 0.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// Bits in the operand descriptor's order (x in bit 3, w in bit 0).
    pub fn descriptor_bits(self) -> u8 {
        (0..4).fold(0, |m, i| {
            if self.0 & (1 << i) != 0 {
                m | (8 >> i)
            } else {
                m
            }
        })
    }

    /// The mask from descriptor bits (x in bit 3).
    pub fn from_descriptor_bits(bits: u8) -> Mask {
        Mask((0..4).fold(0, |m, i| {
            if bits & (8 >> i) != 0 {
                m | (1 << i)
            } else {
                m
            }
        }))
    }

    /// Whether `c` is written.
    pub fn has(self, c: Component) -> bool {
        self.0 & (1 << c.index()) != 0
    }
}

impl fmt::Display for Mask {
    /// The letters of the written components in order, e.g. `xz`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in Component::ALL {
            if self.has(c) {
                write!(f, "{}", c.letter())?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mask({self})")
    }
}

/// A register a source operand reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SrcReg {
    /// `v0`–`v15`.
    Input(u8),
    /// `r0`–`r15`.
    Temp(u8),
    /// `c0`–`c95`.
    Const(u8),
}

impl SrcReg {
    /// `vN`, if N < 16.
    pub fn input(n: u8) -> Option<SrcReg> {
        (n < limits::INPUT_REGISTERS).then_some(SrcReg::Input(n))
    }

    /// `rN`, if N < 16.
    pub fn temp(n: u8) -> Option<SrcReg> {
        (n < limits::TEMP_REGISTERS).then_some(SrcReg::Temp(n))
    }

    /// `cN`, if N < 96.
    pub fn constant(n: u8) -> Option<SrcReg> {
        (n < limits::FLOAT_UNIFORMS).then_some(SrcReg::Const(n))
    }

    /// The register from its 7-bit source field (0x00–0x0F v, 0x10–0x1F r, 0x20–0x7F c).
    pub fn from_raw(raw: u8) -> Option<SrcReg> {
        match raw {
            0x00..=0x0F => Some(SrcReg::Input(raw)),
            0x10..=0x1F => Some(SrcReg::Temp(raw - 0x10)),
            0x20..=0x7F => Some(SrcReg::Const(raw - 0x20)),
            _ => None,
        }
    }

    /// The 7-bit source field value.
    pub fn raw(self) -> u8 {
        match self {
            SrcReg::Input(n) => n,
            SrcReg::Temp(n) => 0x10 + n,
            SrcReg::Const(n) => 0x20 + n,
        }
    }

    /// Whether it fits a 5-bit ("narrow") source field: inputs and temporaries only.
    pub fn is_narrow(self) -> bool {
        !matches!(self, SrcReg::Const(_))
    }
}

impl fmt::Display for SrcReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SrcReg::Input(n) => write!(f, "v{n}"),
            SrcReg::Temp(n) => write!(f, "r{n}"),
            SrcReg::Const(n) => write!(f, "c{n}"),
        }
    }
}

/// A register an instruction writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DstReg {
    /// `o0`–`o15`.
    Output(u8),
    /// `r0`–`r15`.
    Temp(u8),
}

impl DstReg {
    /// `oN`, if N < 16.
    pub fn output(n: u8) -> Option<DstReg> {
        (n < limits::OUTPUT_REGISTERS).then_some(DstReg::Output(n))
    }

    /// `rN`, if N < 16.
    pub fn temp(n: u8) -> Option<DstReg> {
        (n < limits::TEMP_REGISTERS).then_some(DstReg::Temp(n))
    }

    /// The register from its 5-bit destination field (0x00–0x0F o, 0x10–0x1F r).
    pub fn from_raw(raw: u8) -> Option<DstReg> {
        match raw {
            0x00..=0x0F => Some(DstReg::Output(raw)),
            0x10..=0x1F => Some(DstReg::Temp(raw - 0x10)),
            _ => None,
        }
    }

    /// The 5-bit destination field value.
    pub fn raw(self) -> u8 {
        match self {
            DstReg::Output(n) => n,
            DstReg::Temp(n) => 0x10 + n,
        }
    }
}

impl fmt::Display for DstReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DstReg::Output(n) => write!(f, "o{n}"),
            DstReg::Temp(n) => write!(f, "r{n}"),
        }
    }
}

/// The address register added to a constant-register index (the 2-bit IDX field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RelIndex {
    /// No relative addressing.
    #[default]
    None,
    /// `a0.x`.
    A0X,
    /// `a0.y`.
    A0Y,
    /// `aL`, the loop counter.
    AL,
}

impl RelIndex {
    /// From the 2-bit field.
    pub fn from_raw(raw: u8) -> RelIndex {
        match raw & 3 {
            0 => RelIndex::None,
            1 => RelIndex::A0X,
            2 => RelIndex::A0Y,
            _ => RelIndex::AL,
        }
    }

    /// The 2-bit field.
    pub fn raw(self) -> u8 {
        self as u8
    }

    /// picasso's spelling inside brackets (`a0.x`, `a0.y`, `aL`), or `None`.
    pub fn name(self) -> Option<&'static str> {
        match self {
            RelIndex::None => None,
            RelIndex::A0X => Some("a0.x"),
            RelIndex::A0Y => Some("a0.y"),
            RelIndex::AL => Some("aL"),
        }
    }
}

/// A source operand: a register, the swizzle and negation of its descriptor, and a relative
/// index (only meaningful on constant registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// The register read.
    pub reg: SrcReg,
    /// Which components feed the four lanes.
    pub swizzle: Swizzle,
    /// Whether the value is negated.
    pub negate: bool,
    /// The address register added to a constant register's index.
    pub index: RelIndex,
}

impl Source {
    /// `reg` read as `.xyzw`, not negated, not indexed.
    pub fn new(reg: SrcReg) -> Source {
        Source {
            reg,
            swizzle: Swizzle::IDENTITY,
            negate: false,
            index: RelIndex::None,
        }
    }

    /// The same operand with swizzle `swizzle`.
    pub fn swizzled(self, swizzle: Swizzle) -> Source {
        Source { swizzle, ..self }
    }

    /// The same operand negated (toggled).
    pub fn negated(self) -> Source {
        Source {
            negate: !self.negate,
            ..self
        }
    }

    /// The same operand indexed by `index`.
    pub fn indexed(self, index: RelIndex) -> Source {
        Source { index, ..self }
    }
}

/// A destination operand: a register and the components written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dest {
    /// The register written.
    pub reg: DstReg,
    /// The components written.
    pub mask: Mask,
}

impl Dest {
    /// All four components of `reg`.
    pub fn new(reg: DstReg) -> Dest {
        Dest {
            reg,
            mask: Mask::XYZW,
        }
    }

    /// The same register with mask `mask`.
    pub fn masked(self, mask: Mask) -> Dest {
        Dest { mask, ..self }
    }
}

/// A CMP comparison operator (3-bit CMPX/CMPY field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `src1 == src2`.
    Eq,
    /// `src1 != src2`.
    Ne,
    /// `src1 < src2`.
    Lt,
    /// `src1 <= src2`.
    Le,
    /// `src1 > src2`.
    Gt,
    /// `src1 >= src2`.
    Ge,
    /// Raw value 6: always true on hardware; picasso 2.7.1 has no spelling for it.
    True6,
    /// Raw value 7: always true on hardware; picasso 2.7.1 has no spelling for it.
    True7,
}

impl CmpOp {
    /// From the 3-bit field.
    pub fn from_raw(raw: u8) -> CmpOp {
        [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
            CmpOp::True6,
            CmpOp::True7,
        ][usize::from(raw & 7)]
    }

    /// The 3-bit field.
    pub fn raw(self) -> u8 {
        self as u8
    }

    /// The picasso spelling (`eq` … `ge`; `6`/`7` for the unnamed ones).
    pub fn name(self) -> &'static str {
        ["eq", "ne", "lt", "le", "gt", "ge", "6", "7"][usize::from(self.raw())]
    }

    /// Applies the comparison.
    pub fn eval(self, a: f32, b: f32) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::True6 | CmpOp::True7 => true,
        }
    }
}

/// How a condition combines its two tests (the 2-bit CONDOP field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CondOp {
    /// `cmp.x == ref_x || cmp.y == ref_y`.
    Or,
    /// `cmp.x == ref_x && cmp.y == ref_y`.
    And,
    /// `cmp.x == ref_x`.
    X,
    /// `cmp.y == ref_y`.
    Y,
}

impl CondOp {
    /// From the 2-bit field.
    pub fn from_raw(raw: u8) -> CondOp {
        [CondOp::Or, CondOp::And, CondOp::X, CondOp::Y][usize::from(raw & 3)]
    }

    /// The 2-bit field.
    pub fn raw(self) -> u8 {
        self as u8
    }
}

/// A condition on the CMP flags, as BREAKC, CALLC, IFC and JMPC test it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Condition {
    /// How the two tests combine.
    pub op: CondOp,
    /// The value `cmp.x` is compared with (REFX).
    pub ref_x: bool,
    /// The value `cmp.y` is compared with (REFY).
    pub ref_y: bool,
}

impl Condition {
    /// `cmp.x` (or `!cmp.x` when `expect` is false). REFY is 1, as picasso leaves it.
    pub fn x(expect: bool) -> Condition {
        Condition {
            op: CondOp::X,
            ref_x: expect,
            ref_y: true,
        }
    }

    /// `cmp.y` (or `!cmp.y`). REFX is 1, as picasso leaves it.
    pub fn y(expect: bool) -> Condition {
        Condition {
            op: CondOp::Y,
            ref_x: true,
            ref_y: expect,
        }
    }

    /// `[!]cmp.x && [!]cmp.y`.
    pub fn and(x: bool, y: bool) -> Condition {
        Condition {
            op: CondOp::And,
            ref_x: x,
            ref_y: y,
        }
    }

    /// `[!]cmp.x || [!]cmp.y`.
    pub fn or(x: bool, y: bool) -> Condition {
        Condition {
            op: CondOp::Or,
            ref_x: x,
            ref_y: y,
        }
    }

    /// The condition true when this one is false: `!(a || b)` is `!a && !b`.
    pub fn negated(self) -> Condition {
        let op = match self.op {
            CondOp::Or => CondOp::And,
            CondOp::And => CondOp::Or,
            other => other,
        };
        // REFX (REFY) is compared only where the condition reads cmp.x (cmp.y); the other
        // stays 1, as picasso leaves it.
        let (reads_x, reads_y) = match self.op {
            CondOp::X => (true, false),
            CondOp::Y => (false, true),
            _ => (true, true),
        };
        Condition {
            op,
            ref_x: if reads_x { !self.ref_x } else { self.ref_x },
            ref_y: if reads_y { !self.ref_y } else { self.ref_y },
        }
    }

    /// The condition's value for the flags `(cmp_x, cmp_y)`.
    pub fn eval(self, cmp_x: bool, cmp_y: bool) -> bool {
        let x = cmp_x == self.ref_x;
        let y = cmp_y == self.ref_y;
        match self.op {
            CondOp::Or => x || y,
            CondOp::And => x && y,
            CondOp::X => x,
            CondOp::Y => y,
        }
    }
}

impl fmt::Display for Condition {
    /// picasso's spelling: `cmp.x`, `!cmp.y`, `cmp.x && !cmp.y`, `!cmp.x || cmp.y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = if self.ref_x { "cmp.x" } else { "!cmp.x" };
        let y = if self.ref_y { "cmp.y" } else { "!cmp.y" };
        match self.op {
            CondOp::Or => write!(f, "{x} || {y}"),
            CondOp::And => write!(f, "{x} && {y}"),
            CondOp::X => f.write_str(x),
            CondOp::Y => f.write_str(y),
        }
    }
}

/// A boolean uniform `b0`–`b15`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoolReg(u8);

impl BoolReg {
    /// `bN`, if N < 16.
    pub fn new(n: u8) -> Option<BoolReg> {
        (n < limits::BOOL_UNIFORMS).then_some(BoolReg(n))
    }

    /// The register a 4-bit field names (the value is masked to 4 bits).
    pub fn from_field(raw: u8) -> BoolReg {
        BoolReg(raw & 0xF)
    }

    /// The index N.
    pub fn index(self) -> u8 {
        self.0
    }
}

impl fmt::Display for BoolReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}

/// An integer uniform `i0`–`i3` (loop parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntReg(u8);

impl IntReg {
    /// `iN`, if N < 4.
    pub fn new(n: u8) -> Option<IntReg> {
        (n < limits::INT_UNIFORMS).then_some(IntReg(n))
    }

    /// The register a 2-bit field names (the value is masked to 2 bits).
    pub fn from_field(raw: u8) -> IntReg {
        IntReg(raw & 0x3)
    }

    /// The index N.
    pub fn index(self) -> u8 {
        self.0
    }
}

impl fmt::Display for IntReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "i{}", self.0)
    }
}

/// A code address a flow-control instruction names (12-bit DST field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Target(u16);

impl Target {
    /// Address `addr`, if it fits in 12 bits.
    pub fn new(addr: u32) -> Option<Target> {
        (addr < limits::MAX_CODE_WORDS as u32).then_some(Target(addr as u16))
    }

    /// The address a 12-bit field holds (the value is masked to 12 bits).
    pub fn from_field(raw: u32) -> Target {
        Target((raw & 0xFFF) as u16)
    }

    /// The address in words.
    pub fn addr(self) -> u32 {
        u32::from(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_selector_layout() {
        use Component::*;
        assert_eq!(Swizzle::IDENTITY.to_string(), "xyzw");
        assert_eq!(Swizzle::broadcast(Y).selector(), 0x55);
        assert_eq!(Swizzle::new([Z, W, X, Y]).selector(), 0xB1);
        assert_eq!(Swizzle::from_selector(0x6C).to_string(), "yzwx");
        let yx = Swizzle::new([Y, X, W, Z]);
        assert_eq!(Swizzle::new([X, X, Y, Y]).compose(yx).to_string(), "yyxx");
    }

    #[test]
    fn mask_orders() {
        let xy = Mask::of(&[Component::X, Component::Y]);
        assert_eq!(xy.bits(), 0x3);
        assert_eq!(xy.descriptor_bits(), 0xC);
        assert_eq!(Mask::from_descriptor_bits(0x5).to_string(), "yw");
        assert!(Mask::new(0x10).is_none());
    }

    #[test]
    fn register_ranges() {
        assert!(SrcReg::input(16).is_none());
        assert!(SrcReg::constant(96).is_none());
        assert_eq!(SrcReg::from_raw(0x7F), Some(SrcReg::Const(95)));
        assert_eq!(SrcReg::from_raw(0x80), None);
        assert_eq!(DstReg::from_raw(0x13), Some(DstReg::Temp(3)));
        assert!(Target::new(4096).is_none());
        assert!(BoolReg::new(16).is_none() && IntReg::new(4).is_none());
    }

    #[test]
    fn conditions() {
        assert_eq!(Condition::and(false, true).to_string(), "!cmp.x && cmp.y");
        assert!(Condition::or(true, false).eval(false, false));
        assert!(!Condition::x(true).eval(false, true));
    }
}
