//! Typed operands: register types, swizzles, write masks, destinations and sources (direct or
//! relative, `vc[vt1.x+4]`).
//!
//! Every value of these types fits its bit field, so an [`Inst`](crate::Inst)
//! built from them always encodes. What the types cannot rule out (a register that does not
//! exist in a profile, a varying read in a vertex program) is for the validator, which reports
//! it the way Flash would.

use crate::header::Stage;
use std::fmt;

/// A register file, with the 4-bit code the token stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegType {
    /// `va`: vertex attributes (vertex programs, read only).
    Attribute,
    /// `vc` / `fc`: program constants (read only).
    Constant,
    /// `vt` / `ft`: temporaries.
    Temporary,
    /// `op` / `oc`: the position output of a vertex program, the colour output(s) of a fragment
    /// program (write only).
    Output,
    /// `v`: varyings, written by the vertex program and read by the fragment program.
    Varying,
    /// `fs`: texture samplers (fragment programs, only as source 2 of `tex`).
    Sampler,
    /// `od`: the fragment depth output (AGAL 2 and later, write only).
    Depth,
    /// `iid`: the instance id (AGAL 3 vertex programs, read only).
    InstanceId,
}

impl RegType {
    /// Every register type, by code.
    pub const ALL: [RegType; 8] = [
        RegType::Attribute,
        RegType::Constant,
        RegType::Temporary,
        RegType::Output,
        RegType::Varying,
        RegType::Sampler,
        RegType::Depth,
        RegType::InstanceId,
    ];

    /// The 4-bit code in the token.
    pub const fn code(self) -> u8 {
        match self {
            RegType::Attribute => 0,
            RegType::Constant => 1,
            RegType::Temporary => 2,
            RegType::Output => 3,
            RegType::Varying => 4,
            RegType::Sampler => 5,
            RegType::Depth => 6,
            RegType::InstanceId => 7,
        }
    }

    /// The register type with this code.
    pub const fn from_code(code: u8) -> Option<RegType> {
        match code {
            0 => Some(RegType::Attribute),
            1 => Some(RegType::Constant),
            2 => Some(RegType::Temporary),
            3 => Some(RegType::Output),
            4 => Some(RegType::Varying),
            5 => Some(RegType::Sampler),
            6 => Some(RegType::Depth),
            7 => Some(RegType::InstanceId),
            _ => None,
        }
    }

    /// The AGALMiniAssembler spelling in a program of this stage (`vc` or `fc`, `op` or `oc` …).
    pub const fn prefix(self, stage: Stage) -> &'static str {
        match (self, stage) {
            (RegType::Attribute, _) => "va",
            (RegType::Constant, Stage::Vertex) => "vc",
            (RegType::Constant, Stage::Fragment) => "fc",
            (RegType::Temporary, Stage::Vertex) => "vt",
            (RegType::Temporary, Stage::Fragment) => "ft",
            (RegType::Output, Stage::Vertex) => "op",
            (RegType::Output, Stage::Fragment) => "oc",
            (RegType::Varying, _) => "v",
            (RegType::Sampler, _) => "fs",
            (RegType::Depth, _) => "od",
            (RegType::InstanceId, _) => "iid",
        }
    }

    /// Whether the listing leaves out register number 0 (`op`, `oc`, `od`, `iid`), as
    /// AGALMiniAssembler sources do.
    pub const fn number_optional(self) -> bool {
        matches!(self, RegType::Output | RegType::Depth | RegType::InstanceId)
    }

    /// The register's name in listings: prefix and number (`vt3`, `v0`, `oc`, `oc1`).
    pub fn register_name(self, stage: Stage, index: u16) -> String {
        if index == 0 && self.number_optional() {
            self.prefix(stage).to_string()
        } else {
            format!("{}{}", self.prefix(stage), index)
        }
    }

    /// The name Flash's messages use for the file ("temporary", "constant" …).
    pub const fn description(self) -> &'static str {
        match self {
            RegType::Attribute => "attribute",
            RegType::Constant => "constant",
            RegType::Temporary => "temporary",
            RegType::Output => "output",
            RegType::Varying => "varying",
            RegType::Sampler => "sampler",
            RegType::Depth => "depth output",
            RegType::InstanceId => "instance id",
        }
    }
}

/// One of the four lanes of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    /// Lane 0.
    X,
    /// Lane 1.
    Y,
    /// Lane 2.
    Z,
    /// Lane 3.
    W,
}

impl Component {
    /// The four lanes in order.
    pub const ALL: [Component; 4] = [Component::X, Component::Y, Component::Z, Component::W];

    /// The lane number, 0–3.
    pub const fn index(self) -> usize {
        match self {
            Component::X => 0,
            Component::Y => 1,
            Component::Z => 2,
            Component::W => 3,
        }
    }

    /// The lane with this number (only the low two bits count).
    pub const fn from_bits(bits: u8) -> Component {
        match bits & 3 {
            0 => Component::X,
            1 => Component::Y,
            2 => Component::Z,
            _ => Component::W,
        }
    }

    /// The lane's letter.
    pub const fn letter(self) -> char {
        match self {
            Component::X => 'x',
            Component::Y => 'y',
            Component::Z => 'z',
            Component::W => 'w',
        }
    }

    /// The lane a letter names (`x`, `y`, `z`, `w`).
    pub const fn from_letter(c: char) -> Option<Component> {
        match c {
            'x' => Some(Component::X),
            'y' => Some(Component::Y),
            'z' => Some(Component::Z),
            'w' => Some(Component::W),
            _ => None,
        }
    }
}

/// A source swizzle: for each destination lane, which source lane feeds it (2 bits per lane,
/// lane 0 in the low bits; `xyzw` is 0xE4). Every byte is a valid swizzle.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle(u8);

impl Swizzle {
    /// `xyzw`, the identity (what a source without a swizzle gets).
    pub const IDENTITY: Swizzle = Swizzle(0xe4);

    /// The swizzle that sends these lanes to x, y, z and w.
    pub const fn new(lanes: [Component; 4]) -> Swizzle {
        Swizzle(
            lanes[0].index() as u8
                | (lanes[1].index() as u8) << 2
                | (lanes[2].index() as u8) << 4
                | (lanes[3].index() as u8) << 6,
        )
    }

    /// The swizzle that replicates one lane (`xxxx`, `yyyy` …).
    pub const fn splat(c: Component) -> Swizzle {
        Swizzle::new([c, c, c, c])
    }

    /// The swizzle with these bits.
    pub const fn from_bits(bits: u8) -> Swizzle {
        Swizzle(bits)
    }

    /// The byte in the token.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The source lane that feeds destination lane `lane` (0–3; higher values wrap).
    pub const fn lane(self, lane: usize) -> Component {
        Component::from_bits(self.0 >> ((lane & 3) * 2))
    }

    /// The four source lanes in order.
    pub const fn lanes(self) -> [Component; 4] {
        [self.lane(0), self.lane(1), self.lane(2), self.lane(3)]
    }

    /// The lane this swizzle replicates, if it is one of `xxxx`, `yyyy`, `zzzz`, `wwww` (what
    /// `kil` and the conditionals require, #3703).
    pub const fn scalar(self) -> Option<Component> {
        let c = self.lane(0);
        let b = c.index() as u8;
        if self.0 == b | b << 2 | b << 4 | b << 6 {
            Some(c)
        } else {
            None
        }
    }

    /// Parses the letters after the dot, AGALMiniAssembler style: 1 to 4 of `xyzw`, a short
    /// swizzle repeating its last letter (`xy` is `xyyy`).
    pub fn parse(letters: &str) -> Option<Swizzle> {
        let mut lanes = [Component::X; 4];
        let mut n = 0;
        for c in letters.chars() {
            let slot = lanes.get_mut(n)?;
            *slot = Component::from_letter(c)?;
            n += 1;
        }
        let last = *lanes.get(n.checked_sub(1)?)?;
        for slot in lanes.iter_mut().skip(n) {
            *slot = last;
        }
        Some(Swizzle::new(lanes))
    }

    /// The swizzle with the positions outside `mask` filled with a position inside it (the
    /// nearest one before, else the first one after), so that the source names only lanes
    /// the operation uses: `xyzw` restricted to `.z` is `zzzz`, to `.xz` it is `xxzz`. The
    /// validator counts every lane a swizzle names as read; a code generator emits this form
    /// so that no unwritten lane is named. An empty mask leaves the swizzle as it is.
    pub fn restricted_to(self, mask: Mask) -> Swizzle {
        let Some(first) = Component::ALL.into_iter().find(|c| mask.contains(*c)) else {
            return self;
        };
        let mut lanes = self.lanes();
        let mut fill = self.lane(first.index());
        for (i, slot) in lanes.iter_mut().enumerate() {
            if mask.contains(Component::from_bits(i as u8)) {
                fill = *slot;
            } else {
                *slot = fill;
            }
        }
        Swizzle::new(lanes)
    }

    /// The source lanes that the given destination lanes read.
    pub fn read_lanes(self, lanes: Mask) -> Mask {
        let mut m = 0u8;
        for c in Component::ALL {
            if lanes.contains(c) {
                m |= 1 << self.lane(c.index()).index();
            }
        }
        Mask(m)
    }
}

impl fmt::Display for Swizzle {
    /// Four letters (`xyzw`, `xyyy`).
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

/// A set of lanes: a destination write mask (x = 1, y = 2, z = 4, w = 8), or the lanes an
/// operation reads. A destination needs a non-empty one ([`Mask::new`] refuses 0; Flash error
/// #3653).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Mask(u8);

impl Mask {
    /// No lanes (never a valid write mask).
    pub const NONE: Mask = Mask(0);
    /// Lane x.
    pub const X: Mask = Mask(1);
    /// Lanes x and y.
    pub const XY: Mask = Mask(3);
    /// Lanes x, y and z.
    pub const XYZ: Mask = Mask(7);
    /// All four lanes (what a destination without a mask gets).
    pub const XYZW: Mask = Mask(15);

    /// The write mask with these bits, if it names at least one lane and nothing beyond w.
    pub const fn new(bits: u8) -> Option<Mask> {
        if bits != 0 && bits < 16 {
            Some(Mask(bits))
        } else {
            None
        }
    }

    /// A lane set from the low four bits (may be empty).
    pub const fn from_bits_truncate(bits: u8) -> Mask {
        Mask(bits & 15)
    }

    /// The mask of a single lane.
    pub const fn of(c: Component) -> Mask {
        Mask(1 << c.index())
    }

    /// The bits in the token.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether the lane is in the set.
    pub const fn contains(self, c: Component) -> bool {
        self.0 & (1 << c.index()) != 0
    }

    /// Whether every lane of `other` is in the set.
    pub const fn covers(self, other: Mask) -> bool {
        self.0 & other.0 == other.0
    }

    /// The lanes in both sets.
    pub const fn and(self, other: Mask) -> Mask {
        Mask(self.0 & other.0)
    }

    /// The lanes in either set.
    pub const fn or(self, other: Mask) -> Mask {
        Mask(self.0 | other.0)
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Parses the letters after the dot: each of `xyzw` at most once, in order (`xz`, `yw`).
    pub fn parse(letters: &str) -> Option<Mask> {
        let mut bits = 0u8;
        let mut last: Option<Component> = None;
        for ch in letters.chars() {
            let c = Component::from_letter(ch)?;
            if last.is_some_and(|l| l >= c) {
                return None;
            }
            bits |= 1 << c.index();
            last = Some(c);
        }
        Mask::new(bits)
    }
}

impl fmt::Display for Mask {
    /// The letters of the lanes in the set (`xyz`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in Component::ALL {
            if self.contains(c) {
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

/// The destination of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dest {
    /// The register file.
    pub reg: RegType,
    /// The register number.
    pub index: u16,
    /// The lanes written.
    pub mask: Mask,
}

impl Dest {
    /// A destination writing the lanes of `mask`.
    pub const fn new(reg: RegType, index: u16, mask: Mask) -> Dest {
        Dest { reg, index, mask }
    }

    /// A destination writing all four lanes.
    pub const fn full(reg: RegType, index: u16) -> Dest {
        Dest::new(reg, index, Mask::XYZW)
    }
}

/// The register that indexes a relative source, `vt1.x` in `vc[vt1.x+4]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Indirect {
    /// The index register's file (Flash allows attribute, constant or temporary).
    pub reg: RegType,
    /// The index register's number.
    pub index: u16,
    /// The lane of the index register that holds the index.
    pub select: Component,
    /// Added to the index (0–255).
    pub offset: u8,
}

/// How a source names its register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Address {
    /// The register with this number.
    Direct(u16),
    /// The register whose number is `int(index register lane) + offset` at run time. The
    /// token has no room for a base register number: the base is always the offset.
    Indirect(Indirect),
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// The register file read.
    pub reg: RegType,
    /// Which register.
    pub address: Address,
    /// Which lanes feed which destination lanes.
    pub swizzle: Swizzle,
}

impl Source {
    /// A direct source.
    pub const fn new(reg: RegType, index: u16, swizzle: Swizzle) -> Source {
        Source {
            reg,
            address: Address::Direct(index),
            swizzle,
        }
    }

    /// A direct source with the identity swizzle.
    pub const fn reg(reg: RegType, index: u16) -> Source {
        Source::new(reg, index, Swizzle::IDENTITY)
    }

    /// A relative source, `vc[vt1.x+4]`.
    pub const fn indirect(reg: RegType, by: Indirect, swizzle: Swizzle) -> Source {
        Source {
            reg,
            address: Address::Indirect(by),
            swizzle,
        }
    }

    /// The register number of a direct source.
    pub const fn direct_index(&self) -> Option<u16> {
        match self.address {
            Address::Direct(i) => Some(i),
            Address::Indirect(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzles_repeat_their_last_letter() {
        assert_eq!(Swizzle::parse("xy").unwrap().bits(), 0x54);
        assert_eq!(Swizzle::parse("xyw").unwrap().bits(), 0xf4);
        assert_eq!(Swizzle::parse("x").unwrap().bits(), 0x00);
        assert_eq!(Swizzle::parse("xyzw").unwrap(), Swizzle::IDENTITY);
        assert_eq!(Swizzle::parse(""), None);
        assert_eq!(Swizzle::parse("xyzwx"), None);
        assert_eq!(Swizzle::parse("rgba"), None);
        assert_eq!(Swizzle::parse("zw").unwrap().to_string(), "zwww");
        assert_eq!(Swizzle::splat(Component::Y).scalar(), Some(Component::Y));
        assert_eq!(Swizzle::IDENTITY.scalar(), None);
    }

    #[test]
    fn masks() {
        assert_eq!(Mask::parse("zw").unwrap().bits(), 0xc);
        assert_eq!(Mask::parse("wz"), None);
        assert_eq!(Mask::parse("xx"), None);
        assert_eq!(Mask::new(0), None);
        assert_eq!(Mask::XYZ.to_string(), "xyz");
        assert_eq!(
            Swizzle::IDENTITY
                .restricted_to(Mask::parse("z").unwrap())
                .to_string(),
            "zzzz"
        );
        assert_eq!(
            Swizzle::IDENTITY
                .restricted_to(Mask::parse("xz").unwrap())
                .to_string(),
            "xxzz"
        );
        assert_eq!(
            Swizzle::IDENTITY
                .restricted_to(Mask::parse("yw").unwrap())
                .to_string(),
            "yyyw"
        );
        assert_eq!(
            Swizzle::IDENTITY.restricted_to(Mask::XYZW),
            Swizzle::IDENTITY
        );
        let s = Swizzle::parse("zwxy").unwrap();
        assert_eq!(s.read_lanes(Mask::X), Mask::of(Component::Z));
    }

    #[test]
    fn register_names() {
        assert_eq!(RegType::Output.register_name(Stage::Fragment, 0), "oc");
        assert_eq!(RegType::Output.register_name(Stage::Fragment, 2), "oc2");
        assert_eq!(RegType::Varying.register_name(Stage::Vertex, 0), "v0");
        assert_eq!(RegType::Constant.register_name(Stage::Fragment, 16), "fc16");
        for t in RegType::ALL {
            assert_eq!(RegType::from_code(t.code()), Some(t));
        }
    }
}
