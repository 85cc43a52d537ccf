//! A texture-combiner configuration: what the PICA200's fragment stage is told, in the
//! terms of its registers (`../shared/docs/pica200-fragment-pipeline.md` §3–§5) and with
//! citro3d's enum names (`GPU_TEXTURE0`, `GPU_MODULATE` …).

/// Where a combiner operand comes from (`GPU_TEVSRC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// The interpolated vertex colour (the `color` output semantic).
    PrimaryColor,
    /// Texture unit 0, 1 or 2.
    Texture(u8),
    /// The combiner buffer (one stage late; see [`crate::fragment`]).
    PreviousBuffer,
    /// The stage's constant colour.
    Constant,
    /// The previous stage's result.
    Previous,
}

impl Source {
    /// The register field's value.
    pub fn code(self) -> u32 {
        match self {
            Source::PrimaryColor => 0x0,
            Source::Texture(k) => 0x3 + u32::from(k),
            Source::PreviousBuffer => 0xD,
            Source::Constant => 0xE,
            Source::Previous => 0xF,
        }
    }

    /// citro3d's name.
    pub fn name(self) -> &'static str {
        match self {
            Source::PrimaryColor => "GPU_PRIMARY_COLOR",
            Source::Texture(0) => "GPU_TEXTURE0",
            Source::Texture(1) => "GPU_TEXTURE1",
            Source::Texture(2) => "GPU_TEXTURE2",
            Source::Texture(_) => "GPU_TEXTURE3",
            Source::PreviousBuffer => "GPU_PREVIOUS_BUFFER",
            Source::Constant => "GPU_CONSTANT",
            Source::Previous => "GPU_PREVIOUS",
        }
    }

    /// The listing's short name.
    pub fn short(self) -> &'static str {
        match self {
            Source::PrimaryColor => "primary",
            Source::Texture(0) => "texture0",
            Source::Texture(1) => "texture1",
            Source::Texture(2) => "texture2",
            Source::Texture(_) => "texture3",
            Source::PreviousBuffer => "buffer",
            Source::Constant => "constant",
            Source::Previous => "previous",
        }
    }
}

/// Which channels of a source an operand reads: the RGB combiner reads its colour or one
/// channel broadcast, the alpha combiner any one channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Channel {
    /// r, g, b (RGB combiner only).
    Rgb,
    /// Red.
    R,
    /// Green.
    G,
    /// Blue.
    B,
    /// Alpha.
    A,
}

impl Channel {
    /// The channel of lane `lane` (0–3).
    pub fn of_lane(lane: u8) -> Channel {
        match lane {
            0 => Channel::R,
            1 => Channel::G,
            2 => Channel::B,
            _ => Channel::A,
        }
    }

    /// The lane a single channel reads (`None` for [`Channel::Rgb`]).
    pub fn lane(self) -> Option<usize> {
        match self {
            Channel::Rgb => None,
            Channel::R => Some(0),
            Channel::G => Some(1),
            Channel::B => Some(2),
            Channel::A => Some(3),
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Channel::Rgb => "rgb",
            Channel::R => "r",
            Channel::G => "g",
            Channel::B => "b",
            Channel::A => "a",
        }
    }
}

/// One operand: a channel selection of a source, or one minus it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Operand {
    /// Which channels.
    pub channel: Channel,
    /// `1 - x`.
    pub one_minus: bool,
}

impl Operand {
    /// The RGB combiner's field value (`GPU_TEVOP_RGB`).
    pub fn rgb_code(self) -> u32 {
        let base = match self.channel {
            Channel::Rgb => 0,
            Channel::A => 2,
            Channel::R => 4,
            Channel::G => 8,
            Channel::B => 12,
        };
        base | u32::from(self.one_minus)
    }

    /// The alpha combiner's field value (`GPU_TEVOP_A`).
    pub fn alpha_code(self) -> u32 {
        let base = match self.channel {
            Channel::A | Channel::Rgb => 0,
            Channel::R => 2,
            Channel::G => 4,
            Channel::B => 6,
        };
        base | u32::from(self.one_minus)
    }

    /// citro3d's name in an RGB combiner.
    pub fn rgb_name(self) -> &'static str {
        const NAMES: [&str; 14] = [
            "GPU_TEVOP_RGB_SRC_COLOR",
            "GPU_TEVOP_RGB_ONE_MINUS_SRC_COLOR",
            "GPU_TEVOP_RGB_SRC_ALPHA",
            "GPU_TEVOP_RGB_ONE_MINUS_SRC_ALPHA",
            "GPU_TEVOP_RGB_SRC_R",
            "GPU_TEVOP_RGB_ONE_MINUS_SRC_R",
            "",
            "",
            "GPU_TEVOP_RGB_SRC_G",
            "GPU_TEVOP_RGB_ONE_MINUS_SRC_G",
            "",
            "",
            "GPU_TEVOP_RGB_SRC_B",
            "GPU_TEVOP_RGB_ONE_MINUS_SRC_B",
        ];
        NAMES[self.rgb_code() as usize]
    }

    /// citro3d's name in an alpha combiner.
    pub fn alpha_name(self) -> &'static str {
        const NAMES: [&str; 8] = [
            "GPU_TEVOP_A_SRC_ALPHA",
            "GPU_TEVOP_A_ONE_MINUS_SRC_ALPHA",
            "GPU_TEVOP_A_SRC_R",
            "GPU_TEVOP_A_ONE_MINUS_SRC_R",
            "GPU_TEVOP_A_SRC_G",
            "GPU_TEVOP_A_ONE_MINUS_SRC_G",
            "GPU_TEVOP_A_SRC_B",
            "GPU_TEVOP_A_ONE_MINUS_SRC_B",
        ];
        NAMES[self.alpha_code() as usize]
    }

    /// The listing's spelling of this operand of `source` (`1-texture0.a`).
    pub fn spell(self, source: Source) -> String {
        format!(
            "{}{}.{}",
            if self.one_minus { "1-" } else { "" },
            source.short(),
            self.channel.suffix()
        )
    }
}

/// A combiner function (`GPU_COMBINEFUNC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    /// `x`.
    Replace,
    /// `x * y`.
    Modulate,
    /// `x + y`.
    Add,
    /// `x + y - 0.5`.
    AddSigned,
    /// `x * z + y * (1 - z)`.
    Interpolate,
    /// `x - y`.
    Subtract,
    /// `4 * ((x - 0.5) · (y - 0.5))` over r, g, b, to r, g, b.
    Dot3Rgb,
    /// The same, to alpha as well.
    Dot3Rgba,
    /// `x * y + z`.
    MultiplyAdd,
    /// `min(x + y, 1) * z`.
    AddMultiply,
}

impl Func {
    /// Every function, in register order.
    pub const ALL: [Func; 10] = [
        Func::Replace,
        Func::Modulate,
        Func::Add,
        Func::AddSigned,
        Func::Interpolate,
        Func::Subtract,
        Func::Dot3Rgb,
        Func::Dot3Rgba,
        Func::MultiplyAdd,
        Func::AddMultiply,
    ];

    /// The register field's value.
    pub fn code(self) -> u32 {
        Func::ALL.iter().position(|f| *f == self).unwrap_or(0) as u32
    }

    /// How many operands it reads.
    pub fn arity(self) -> usize {
        match self {
            Func::Replace => 1,
            Func::Interpolate | Func::MultiplyAdd | Func::AddMultiply => 3,
            _ => 2,
        }
    }

    /// citro3d's name.
    pub fn name(self) -> &'static str {
        match self {
            Func::Replace => "GPU_REPLACE",
            Func::Modulate => "GPU_MODULATE",
            Func::Add => "GPU_ADD",
            Func::AddSigned => "GPU_ADD_SIGNED",
            Func::Interpolate => "GPU_INTERPOLATE",
            Func::Subtract => "GPU_SUBTRACT",
            Func::Dot3Rgb => "GPU_DOT3_RGB",
            Func::Dot3Rgba => "GPU_DOT3_RGBA",
            Func::MultiplyAdd => "GPU_MULTIPLY_ADD",
            Func::AddMultiply => "GPU_ADD_MULTIPLY",
        }
    }

    /// The listing's short name.
    pub fn short(self) -> &'static str {
        match self {
            Func::Replace => "replace",
            Func::Modulate => "modulate",
            Func::Add => "add",
            Func::AddSigned => "add_signed",
            Func::Interpolate => "interpolate",
            Func::Subtract => "subtract",
            Func::Dot3Rgb => "dot3_rgb",
            Func::Dot3Rgba => "dot3_rgba",
            Func::MultiplyAdd => "multiply_add",
            Func::AddMultiply => "add_multiply",
        }
    }
}

/// One combiner (the RGB or the alpha half of a stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Combiner {
    /// The three sources.
    pub sources: [Source; 3],
    /// The three operands (channel selections).
    pub operands: [Operand; 3],
    /// The function.
    pub func: Func,
    /// The scale: 1, 2 or 4.
    pub scale: u8,
}

impl Combiner {
    /// `REPLACE` of `source`'s own channels (the RGB combiner's colour, the alpha
    /// combiner's alpha), scale 1, other operands as citro3d's `C3D_TexEnvInit` leaves them.
    pub fn replace(source: Source, alpha: bool) -> Combiner {
        let own = Operand {
            channel: if alpha { Channel::A } else { Channel::Rgb },
            one_minus: false,
        };
        Combiner {
            sources: [source, Source::PrimaryColor, Source::PrimaryColor],
            operands: [own; 3],
            func: Func::Replace,
            scale: 1,
        }
    }

    /// The scale's register field value (`GPU_TEVSCALE`).
    pub fn scale_code(self) -> u32 {
        match self.scale {
            4 => 2,
            2 => 1,
            _ => 0,
        }
    }

    /// citro3d's name of the scale.
    pub fn scale_name(self) -> &'static str {
        match self.scale {
            4 => "GPU_TEVSCALE_4",
            2 => "GPU_TEVSCALE_2",
            _ => "GPU_TEVSCALE_1",
        }
    }
}

/// A stage's constant colour.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Fixed bytes (r, g, b, a).
    Bytes([u8; 4]),
    /// A uniform's value, which the application sets with `C3D_TexEnvColor`: its lanes are
    /// r, g, b, a in order. `bytes` is its initial value (the uniform's default, else
    /// 0xFFFFFFFF, citro3d's).
    Uniform {
        /// The uniform's name.
        name: String,
        /// The colour written until the application sets it.
        bytes: [u8; 4],
    },
}

impl Color {
    /// The bytes the stage's register holds as compiled.
    pub fn bytes(&self) -> [u8; 4] {
        match self {
            Color::Bytes(b) | Color::Uniform { bytes: b, .. } => *b,
        }
    }

    /// The register word: r in bits 0–7 … a in bits 24–31.
    pub fn word(&self) -> u32 {
        u32::from_le_bytes(self.bytes())
    }
}

/// One combiner stage.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stage {
    /// The RGB combiner.
    pub rgb: Combiner,
    /// The alpha combiner.
    pub alpha: Combiner,
    /// The constant colour.
    pub color: Color,
    /// Whether this stage's RGB result goes into the combiner buffer (stages 0–3).
    pub update_rgb: bool,
    /// Whether its alpha result does.
    pub update_alpha: bool,
}

impl Stage {
    /// A stage that passes the previous stage's result on (`REPLACE GPU_PREVIOUS`), as
    /// citro3d's `C3D_TexEnvInit` leaves a stage.
    pub fn pass_through() -> Stage {
        Stage {
            rgb: Combiner::replace(Source::Previous, false),
            alpha: Combiner::replace(Source::Previous, true),
            color: Color::Bytes([0xFF; 4]),
            update_rgb: false,
            update_alpha: false,
        }
    }

    /// Whether the stage only passes the previous result on.
    pub fn is_pass_through(&self) -> bool {
        self.rgb == Combiner::replace(Source::Previous, false)
            && self.alpha == Combiner::replace(Source::Previous, true)
            && !self.update_rgb
            && !self.update_alpha
    }

    /// The five register words (SOURCE, OPERAND, COMBINER, COLOR, SCALE), which are also
    /// citro3d's `C3D_TexEnv` in memory.
    pub fn words(&self) -> [u32; 5] {
        let three = |f: &dyn Fn(usize) -> u32, shift: u32| {
            (0..3).fold(0, |w, k| w | f(k) << (shift * k as u32))
        };
        let src_rgb = three(&|k| self.rgb.sources[k].code(), 4);
        let src_a = three(&|k| self.alpha.sources[k].code(), 4);
        let op_rgb = three(&|k| self.rgb.operands[k].rgb_code(), 4);
        let op_a = three(&|k| self.alpha.operands[k].alpha_code(), 4);
        [
            src_rgb | src_a << 16,
            op_rgb | op_a << 12,
            self.rgb.func.code() | self.alpha.func.code() << 16,
            self.color.word(),
            self.rgb.scale_code() | self.alpha.scale_code() << 16,
        ]
    }
}

/// An alpha-test comparison (`GPU_TESTFUNC`): the fragment is kept when
/// `alpha FUNC reference` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestFunc {
    /// Never kept.
    Never,
    /// Always kept.
    Always,
    /// `==`.
    Equal,
    /// `!=`.
    NotEqual,
    /// `<`.
    Less,
    /// `<=`.
    LessEqual,
    /// `>`.
    Greater,
    /// `>=`.
    GreaterEqual,
}

impl TestFunc {
    /// The register field's value.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// citro3d's name.
    pub fn name(self) -> &'static str {
        match self {
            TestFunc::Never => "GPU_NEVER",
            TestFunc::Always => "GPU_ALWAYS",
            TestFunc::Equal => "GPU_EQUAL",
            TestFunc::NotEqual => "GPU_NOTEQUAL",
            TestFunc::Less => "GPU_LESS",
            TestFunc::LessEqual => "GPU_LEQUAL",
            TestFunc::Greater => "GPU_GREATER",
            TestFunc::GreaterEqual => "GPU_GEQUAL",
        }
    }

    /// Whether alpha byte `a` passes against `reference`.
    pub fn passes(self, a: u8, reference: u8) -> bool {
        match self {
            TestFunc::Never => false,
            TestFunc::Always => true,
            TestFunc::Equal => a == reference,
            TestFunc::NotEqual => a != reference,
            TestFunc::Less => a < reference,
            TestFunc::LessEqual => a <= reference,
            TestFunc::Greater => a > reference,
            TestFunc::GreaterEqual => a >= reference,
        }
    }
}

/// The alpha test (`GPUREG_FRAGOP_ALPHA_TEST`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AlphaTest {
    /// The comparison that keeps a fragment.
    pub func: TestFunc,
    /// The reference byte.
    pub reference: u8,
}

impl AlphaTest {
    /// The register word: enable, function, reference.
    pub fn word(test: Option<AlphaTest>) -> u32 {
        test.map_or(TestFunc::Always.code() << 4, |t| {
            1 | t.func.code() << 4 | u32::from(t.reference) << 8
        })
    }
}

/// What a texture unit samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureKind {
    /// A 2D texture at (u, v).
    D2,
    /// A cube map at (u, v, w) (unit 0 only; w is `texcoord0w`).
    Cube,
}

/// A texture unit the program reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextureUnit {
    /// 0, 1 or 2.
    pub unit: u8,
    /// The sampler's name.
    pub sampler: String,
    /// The sampler's binding in the source.
    pub binding: u32,
    /// The varying (input) whose value is the coordinate.
    pub varying: String,
    /// Its location.
    pub location: u32,
    /// 2D or cube.
    pub kind: TextureKind,
}

impl TextureUnit {
    /// The vertex output semantic that carries its coordinates (`texcoord0` …).
    pub fn texcoord(&self) -> String {
        format!("texcoord{}", self.unit)
    }
}

/// A whole fragment configuration: six stages, the buffer's initial colour, the alpha test,
/// the texture units and the colour varying.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TexEnv {
    /// Stages 0–5.
    pub stages: [Stage; 6],
    /// `GPUREG_TEXENV_BUFFER_COLOR`.
    pub buffer_color: [u8; 4],
    /// The alpha test, when the program discards.
    pub alpha_test: Option<AlphaTest>,
    /// The texture units read, by unit.
    pub textures: Vec<TextureUnit>,
    /// The varying read as `GPU_PRIMARY_COLOR` (its name and location), if any.
    pub color: Option<(String, u32)>,
}

impl TexEnv {
    /// `GPUREG_TEXENV_UPDATE_BUFFER`'s bits 8–15 (RGB of stages 0–3 in 8–11, alpha in
    /// 12–15).
    pub fn update_bits(&self) -> u32 {
        let mut w = 0;
        for (k, s) in self.stages.iter().take(4).enumerate() {
            w |= u32::from(s.update_rgb) << (8 + k) | u32::from(s.update_alpha) << (12 + k);
        }
        w
    }

    /// `C3D_TexEnvBufUpdate`'s masks (bit k = stage k): RGB, then alpha.
    pub fn update_masks(&self) -> (u8, u8) {
        let mask = |alpha: bool| {
            self.stages
                .iter()
                .take(4)
                .enumerate()
                .filter(|(_, s)| if alpha { s.update_alpha } else { s.update_rgb })
                .fold(0u8, |m, (k, _)| m | 1 << k)
        };
        (mask(false), mask(true))
    }

    /// The uniforms that are stage colours, each with the stages it colours, in order.
    pub fn uniform_colors(&self) -> Vec<(String, Vec<usize>)> {
        let mut out: Vec<(String, Vec<usize>)> = Vec::new();
        for (k, s) in self.stages.iter().enumerate() {
            if let Color::Uniform { name, .. } = &s.color {
                match out.iter_mut().find(|(n, _)| n == name) {
                    Some((_, stages)) => stages.push(k),
                    None => out.push((name.clone(), vec![k])),
                }
            }
        }
        out
    }

    /// How many stages do work (the last one that does not only pass its input on, plus
    /// one).
    pub fn stages_used(&self) -> usize {
        self.stages
            .iter()
            .rposition(|s| !s.is_pass_through())
            .map_or(0, |k| k + 1)
    }
}
