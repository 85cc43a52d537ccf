//! The reflection both back ends produce (`--reflect FILE`, the library's `Reflection`):
//! which register holds each input, output, uniform, literal and sampler, in the schema of
//! conventions.md. Registers are spelled as the target's assembler spells them.

use serde::{Deserialize, Serialize};

/// Everything an application needs to feed a compiled program.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    /// `"pica"` or `"agal"`.
    pub target: String,
    /// 1, 2 or 3 for AGAL; `None` for the PICA200.
    pub agal_version: Option<u8>,
    /// `"vertex"`, `"fragment"` or `"geometry"`.
    pub stage: String,
    /// The entry point's name.
    pub entry_point: String,
    /// The inputs.
    pub inputs: Vec<InputInfo>,
    /// The outputs.
    pub outputs: Vec<OutputInfo>,
    /// The uniforms.
    pub uniforms: Vec<UniformInfo>,
    /// Literal constants the application must upload (AGAL) or that the binary carries
    /// (PICA200, listed for completeness).
    pub constants: Vec<ConstantInfo>,
    /// Samplers (AGAL).
    pub samplers: Vec<SamplerInfo>,
    /// Sizes.
    pub stats: Stats,
}

/// An input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputInfo {
    /// Its name.
    pub name: String,
    /// Its location.
    pub location: u32,
    /// Its register (`v0`, `va0`).
    pub register: String,
}

/// An output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputInfo {
    /// Its name.
    pub name: String,
    /// Its location, for user outputs.
    pub location: Option<u32>,
    /// Its built-in (`Position`, `FragDepth`), for built-ins.
    pub builtin: Option<String>,
    /// Its register (`o0`, `op`, `v1`, `oc`).
    pub register: String,
    /// The PICA200 semantic (`position`, `color`, ...); `None` for AGAL.
    pub semantic: Option<String>,
    /// The components written (`xyzw`).
    pub mask: String,
}

/// A uniform.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UniformInfo {
    /// Its name (`projection`, `lights[2].color`).
    pub name: String,
    /// Its block's type name, for block members.
    pub block: Option<String>,
    /// Its GLSL-style type (`mat4`, `vec3`, `float[8]`).
    #[serde(rename = "type")]
    pub type_name: String,
    /// `row_major` or `column_major`, for matrices.
    pub layout: Option<String>,
    /// The first register (`c0`, `b3`, `vc4`, `fc0`).
    pub register: String,
    /// The first component in that register (0 to 3).
    pub component: u8,
    /// Consecutive registers spanned.
    pub count: u32,
}

/// A literal-constant register.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstantInfo {
    /// The register.
    pub register: String,
    /// Its four values.
    pub value: [f32; 4],
}

/// A sampler.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplerInfo {
    /// Its name.
    pub name: String,
    /// Its binding.
    pub binding: u32,
    /// Its register (`fs0`).
    pub register: String,
    /// `2d` or `cube`.
    pub dim: String,
    /// Its flags, as AGALMiniAssembler spells them.
    pub flags: Vec<String>,
}

/// Sizes of the program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Instructions (PICA200 words, AGAL tokens).
    pub instructions: usize,
    /// Temporary registers used.
    pub temporaries: usize,
    /// Constant registers used by literals.
    pub constant_registers: usize,
    /// Operand descriptors (PICA200); `None` for AGAL.
    pub operand_descriptors: Option<usize>,
}

impl Reflection {
    /// The reflection as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The reflection's spelling of a write mask of `lanes` bits (bit 0 is x).
pub fn mask_letters(bits: u8) -> String {
    ['x', 'y', 'z', 'w']
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, c)| *c)
        .collect()
}
