//! The sampler operand of `tex`: which `fs` register, and the texture-state flags that AGAL
//! carries in the instruction (dimension, filter, mipmapping, wrapping, texture format,
//! special flags, LOD bias).
//!
//! The flag names and values are AGALMiniAssembler's; [`Sampler::flag_names`] lists them in the
//! order the golden listings use (dimension, filter, mip, wrap, format), and [`Sampler::apply_flag`]
//! is what the assembler calls for each word between `<` and `>`.

/// Texture dimension (bits 44–47).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dimension {
    /// `2d` (0).
    TwoD,
    /// `cube` (1).
    Cube,
    /// `3d` (2): the assembler has it, Stage3D has no 3D textures, Flash rejects it (#3664).
    ThreeD,
}

/// Texture filter (bits 60–63).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// `nearest` (0).
    Nearest,
    /// `linear` (1).
    Linear,
    /// `anisotropic2x` (2).
    Anisotropic2x,
    /// `anisotropic4x` (3).
    Anisotropic4x,
    /// `anisotropic8x` (4).
    Anisotropic8x,
    /// `anisotropic16x` (5).
    Anisotropic16x,
}

/// Mipmapping (bits 56–59).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mipmap {
    /// `mipnone` / `nomip` (0).
    None,
    /// `mipnearest` (1).
    Nearest,
    /// `miplinear` (2).
    Linear,
}

/// Wrapping (bits 52–55).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// `clamp` (0).
    Clamp,
    /// `repeat` / `wrap` (1).
    Repeat,
    /// `clamp_u_repeat_v` (2).
    ClampURepeatV,
    /// `repeat_u_clamp_v` (3).
    RepeatUClampV,
}

/// Texture format the program expects (bits 40–43).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `rgba` (0).
    Rgba,
    /// `dxt1` / `compressed` (1).
    Dxt1,
    /// `dxt5` / `compressedalpha` (2).
    Dxt5,
    /// `video` (3).
    Video,
}

/// The special flags (bits 48–51), OR-ed together: `centroid` 1, `single` 2,
/// `ignoresampler` 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Special(u8);

impl Special {
    /// No flags.
    pub const NONE: Special = Special(0);
    /// `centroid`.
    pub const CENTROID: Special = Special(1);
    /// `single`.
    pub const SINGLE: Special = Special(2);
    /// `ignoresampler`: keep the state set with `Context3D.setSamplerStateAt`.
    pub const IGNORE_SAMPLER: Special = Special(4);

    /// The flags with these bits, if no unknown bit is set.
    pub const fn new(bits: u8) -> Option<Special> {
        if bits < 8 { Some(Special(bits)) } else { None }
    }

    /// The bits in the token.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: Special) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets of flags.
    pub const fn with(self, other: Special) -> Special {
        Special(self.0 | other.0)
    }
}

/// The sampler operand: an `fs` register and its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sampler {
    /// The `fs` register number.
    pub index: u16,
    /// Dimension.
    pub dimension: Dimension,
    /// Filter.
    pub filter: Filter,
    /// Mipmapping.
    pub mipmap: Mipmap,
    /// Wrapping.
    pub wrap: Wrap,
    /// Texture format.
    pub format: Format,
    /// Special flags.
    pub special: Special,
    /// LOD bias in eighths (the bias is `lod_bias / 8`).
    pub lod_bias: i8,
}

impl Sampler {
    /// A sampler with AGALMiniAssembler's starting flags: `2d, nearest, mipnone, clamp, rgba`,
    /// no special flags, no bias.
    pub const fn new(index: u16) -> Sampler {
        Sampler {
            index,
            dimension: Dimension::TwoD,
            filter: Filter::Nearest,
            mipmap: Mipmap::None,
            wrap: Wrap::Clamp,
            format: Format::Rgba,
            special: Special::NONE,
            lod_bias: 0,
        }
    }

    /// The LOD bias as a number.
    pub fn bias(&self) -> f32 {
        f32::from(self.lod_bias) / 8.0
    }

    /// Sets one flag by its AGALMiniAssembler name; `false` if there is no such flag.
    /// Every group but the special flags replaces its previous value; special flags add up.
    pub fn apply_flag(&mut self, name: &str) -> bool {
        match name {
            "2d" => self.dimension = Dimension::TwoD,
            "cube" => self.dimension = Dimension::Cube,
            "3d" => self.dimension = Dimension::ThreeD,
            "nearest" => self.filter = Filter::Nearest,
            "linear" => self.filter = Filter::Linear,
            "anisotropic2x" => self.filter = Filter::Anisotropic2x,
            "anisotropic4x" => self.filter = Filter::Anisotropic4x,
            "anisotropic8x" => self.filter = Filter::Anisotropic8x,
            "anisotropic16x" => self.filter = Filter::Anisotropic16x,
            "mipnone" | "nomip" => self.mipmap = Mipmap::None,
            "mipnearest" => self.mipmap = Mipmap::Nearest,
            "miplinear" => self.mipmap = Mipmap::Linear,
            "clamp" => self.wrap = Wrap::Clamp,
            "repeat" | "wrap" => self.wrap = Wrap::Repeat,
            "clamp_u_repeat_v" => self.wrap = Wrap::ClampURepeatV,
            "repeat_u_clamp_v" => self.wrap = Wrap::RepeatUClampV,
            "rgba" => self.format = Format::Rgba,
            "dxt1" | "compressed" => self.format = Format::Dxt1,
            "dxt5" | "compressedalpha" => self.format = Format::Dxt5,
            "video" => self.format = Format::Video,
            "centroid" => self.special = self.special.with(Special::CENTROID),
            "single" => self.special = self.special.with(Special::SINGLE),
            "ignoresampler" => self.special = self.special.with(Special::IGNORE_SAMPLER),
            _ => return false,
        }
        true
    }

    /// The flags as AGALMiniAssembler words, in listing order: dimension, filter, mip, wrap,
    /// format, then any special flags and a non-zero LOD bias. Applying them with
    /// [`Sampler::apply_flag`] (and the bias) to [`Sampler::new`] gives this sampler back.
    pub fn flag_names(&self) -> Vec<String> {
        let mut v: Vec<String> = vec![
            match self.dimension {
                Dimension::TwoD => "2d",
                Dimension::Cube => "cube",
                Dimension::ThreeD => "3d",
            }
            .into(),
            match self.filter {
                Filter::Nearest => "nearest",
                Filter::Linear => "linear",
                Filter::Anisotropic2x => "anisotropic2x",
                Filter::Anisotropic4x => "anisotropic4x",
                Filter::Anisotropic8x => "anisotropic8x",
                Filter::Anisotropic16x => "anisotropic16x",
            }
            .into(),
            match self.mipmap {
                Mipmap::None => "mipnone",
                Mipmap::Nearest => "mipnearest",
                Mipmap::Linear => "miplinear",
            }
            .into(),
            match self.wrap {
                Wrap::Clamp => "clamp",
                Wrap::Repeat => "repeat",
                Wrap::ClampURepeatV => "clamp_u_repeat_v",
                Wrap::RepeatUClampV => "repeat_u_clamp_v",
            }
            .into(),
            match self.format {
                Format::Rgba => "rgba",
                Format::Dxt1 => "dxt1",
                Format::Dxt5 => "dxt5",
                Format::Video => "video",
            }
            .into(),
        ];
        for (flag, name) in [
            (Special::CENTROID, "centroid"),
            (Special::SINGLE, "single"),
            (Special::IGNORE_SAMPLER, "ignoresampler"),
        ] {
            if self.special.contains(flag) {
                v.push(name.into());
            }
        }
        if self.lod_bias != 0 {
            v.push(format!("{}", self.bias()));
        }
        v
    }
}

/// Numeric codes of the flag groups, as the token stores them.
impl Dimension {
    /// The 4-bit code.
    pub const fn code(self) -> u8 {
        match self {
            Dimension::TwoD => 0,
            Dimension::Cube => 1,
            Dimension::ThreeD => 2,
        }
    }
    /// The dimension with this code.
    pub const fn from_code(c: u8) -> Option<Dimension> {
        match c {
            0 => Some(Dimension::TwoD),
            1 => Some(Dimension::Cube),
            2 => Some(Dimension::ThreeD),
            _ => None,
        }
    }
}

impl Filter {
    /// The 4-bit code.
    pub const fn code(self) -> u8 {
        match self {
            Filter::Nearest => 0,
            Filter::Linear => 1,
            Filter::Anisotropic2x => 2,
            Filter::Anisotropic4x => 3,
            Filter::Anisotropic8x => 4,
            Filter::Anisotropic16x => 5,
        }
    }
    /// The filter with this code.
    pub const fn from_code(c: u8) -> Option<Filter> {
        match c {
            0 => Some(Filter::Nearest),
            1 => Some(Filter::Linear),
            2 => Some(Filter::Anisotropic2x),
            3 => Some(Filter::Anisotropic4x),
            4 => Some(Filter::Anisotropic8x),
            5 => Some(Filter::Anisotropic16x),
            _ => None,
        }
    }
}

impl Mipmap {
    /// The 4-bit code.
    pub const fn code(self) -> u8 {
        match self {
            Mipmap::None => 0,
            Mipmap::Nearest => 1,
            Mipmap::Linear => 2,
        }
    }
    /// The mipmap mode with this code.
    pub const fn from_code(c: u8) -> Option<Mipmap> {
        match c {
            0 => Some(Mipmap::None),
            1 => Some(Mipmap::Nearest),
            2 => Some(Mipmap::Linear),
            _ => None,
        }
    }
}

impl Wrap {
    /// The 4-bit code.
    pub const fn code(self) -> u8 {
        match self {
            Wrap::Clamp => 0,
            Wrap::Repeat => 1,
            Wrap::ClampURepeatV => 2,
            Wrap::RepeatUClampV => 3,
        }
    }
    /// The wrap mode with this code.
    pub const fn from_code(c: u8) -> Option<Wrap> {
        match c {
            0 => Some(Wrap::Clamp),
            1 => Some(Wrap::Repeat),
            2 => Some(Wrap::ClampURepeatV),
            3 => Some(Wrap::RepeatUClampV),
            _ => None,
        }
    }
    /// Whether u (first) and v (second) repeat.
    pub const fn repeats(self) -> (bool, bool) {
        match self {
            Wrap::Clamp => (false, false),
            Wrap::Repeat => (true, true),
            Wrap::ClampURepeatV => (false, true),
            Wrap::RepeatUClampV => (true, false),
        }
    }
}

impl Format {
    /// The 4-bit code.
    pub const fn code(self) -> u8 {
        match self {
            Format::Rgba => 0,
            Format::Dxt1 => 1,
            Format::Dxt5 => 2,
            Format::Video => 3,
        }
    }
    /// The format with this code.
    pub const fn from_code(c: u8) -> Option<Format> {
        match c {
            0 => Some(Format::Rgba),
            1 => Some(Format::Dxt1),
            2 => Some(Format::Dxt5),
            3 => Some(Format::Video),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_round_trip() {
        let mut s = Sampler::new(3);
        for f in [
            "cube",
            "linear",
            "miplinear",
            "clamp",
            "dxt5",
            "ignoresampler",
            "centroid",
        ] {
            assert!(s.apply_flag(f));
        }
        s.lod_bias = -4;
        let names = s.flag_names();
        assert_eq!(
            names,
            [
                "cube",
                "linear",
                "miplinear",
                "clamp",
                "dxt5",
                "centroid",
                "ignoresampler",
                "-0.5"
            ]
        );
        let mut t = Sampler::new(3);
        for n in &names[..names.len() - 1] {
            assert!(t.apply_flag(n));
        }
        t.lod_bias = -4;
        assert_eq!(s, t);
        assert!(!t.apply_flag("bilinear"));
    }
}
