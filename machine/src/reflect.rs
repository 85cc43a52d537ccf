//! The reflection both back ends produce (`--reflect FILE`, the library's `Reflection`):
//! which register holds each input, output, uniform, literal and sampler, in the schema of
//! docs/conventions.md. Registers are spelled as the target's assembler spells them.
//!
//! The builder ([`Reflection::of`], [`inputs`], [`uniforms`], [`OutputInfo::of`]) fills in
//! what the module says; each back end adds its registers' names and what its container
//! holds (the DVLE's output and constant tables, AGAL's samplers).

use mir::module::{Input, Module, Output, Uniform};
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
    /// The outputs. PICA200: one entry per entry of the DVLE's output table, so an output
    /// split over two semantics (`texcoord0` xy and `texcoord0w` z) has two.
    pub outputs: Vec<OutputInfo>,
    /// The uniforms.
    pub uniforms: Vec<UniformInfo>,
    /// Literal constants the application must upload (AGAL) or that the binary carries
    /// (PICA200, listed for completeness: one entry per entry of the DVLE's constant table,
    /// the loop counters in `i` registers included).
    pub constants: Vec<ConstantInfo>,
    /// Samplers (AGAL).
    pub samplers: Vec<SamplerInfo>,
    /// Sizes.
    pub stats: Stats,
    /// A geometry program's primitives and where its inputs come from (PICA200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geometry: Option<GeometryInfo>,
    /// A PICA200 fragment program: the texture-combiner configuration it compiled to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texenv: Option<TexEnvInfo>,
}

/// A PICA200 fragment program's texture-combiner configuration, with citro3d's names
/// (docs/conventions.md, "The 3DS fragment stage").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TexEnvInfo {
    /// The stages that compute, from stage 0; the stages after them pass the result on
    /// (citro3d's `C3D_TexEnvInit`).
    pub stages: Vec<TexEnvStageInfo>,
    /// `GPUREG_TEXENV_BUFFER_COLOR`: r, g, b, a bytes (0–255).
    pub buffer_color: [u8; 4],
    /// The alpha test, when the program discards.
    pub alpha_test: Option<AlphaTestInfo>,
    /// The texture units the program reads.
    pub textures: Vec<TexUnitInfo>,
    /// The varying read as the vertex colour (`GPU_PRIMARY_COLOR`), if any.
    pub primary_color: Option<String>,
}

/// One combiner stage.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TexEnvStageInfo {
    /// The RGB combiner.
    pub rgb: CombinerInfo,
    /// The alpha combiner.
    pub alpha: CombinerInfo,
    /// The constant colour: r, g, b, a bytes, or the uniform the application sets with
    /// `C3D_TexEnvColor`.
    pub color: StageColorInfo,
    /// Whether the stage writes its results into the combiner buffer.
    pub buffer_update: BufferUpdateInfo,
}

/// One combiner (half of a stage).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CombinerInfo {
    /// Three `GPU_TEVSRC` names.
    pub sources: [String; 3],
    /// Three `GPU_TEVOP_RGB` / `GPU_TEVOP_A` names.
    pub operands: [String; 3],
    /// The `GPU_COMBINEFUNC` name.
    pub func: String,
    /// 1, 2 or 4.
    pub scale: u8,
}

/// A stage's constant colour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StageColorInfo {
    /// Fixed r, g, b, a bytes.
    Bytes([u8; 4]),
    /// A uniform's value (its lanes r, g, b, a), which the application sets.
    Uniform {
        /// The uniform's name.
        uniform: String,
    },
}

impl Default for StageColorInfo {
    fn default() -> Self {
        StageColorInfo::Bytes([255; 4])
    }
}

/// A stage's buffer writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferUpdateInfo {
    /// The RGB result goes into the buffer.
    pub rgb: bool,
    /// The alpha result goes into the buffer.
    pub alpha: bool,
}

/// The alpha test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlphaTestInfo {
    /// The `GPU_TESTFUNC` name of the comparison that keeps a fragment.
    pub func: String,
    /// The threshold as the shader wrote it.
    #[serde(rename = "ref")]
    pub reference: f32,
    /// The reference byte the register holds (what `C3D_AlphaTest` takes).
    pub ref_byte: u8,
}

impl Eq for AlphaTestInfo {}

/// A texture unit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TexUnitInfo {
    /// 0, 1 or 2.
    pub unit: u8,
    /// The sampler bound to it.
    pub sampler: String,
    /// The vertex output semantic that carries its coordinates (`texcoord0` …).
    pub texcoord: String,
    /// The varying the fragment shader reads them from.
    pub varying: String,
    /// `2d` or `cube`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// How a geometry program is set up and fed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeometryInfo {
    /// The geometry unit's mode: `"point"` (inputs in `v` registers).
    pub mode: String,
    /// The primitive it reads: `points`, `lines`, `lines_adjacency`, `triangles`,
    /// `triangles_adjacency`.
    pub input_primitive: String,
    /// Vertices per input primitive.
    pub vertices_in: u32,
    /// The primitive it emits (`triangle_strip`).
    pub output_primitive: String,
    /// `max_vertices`.
    pub max_vertices: u32,
    /// The vertex program's output registers each vertex brings, in register order: what
    /// each carries (`gl_Position`, `location N`, or `unused`).
    pub vertex_outputs: Vec<String>,
    /// The value to pass to `shaderProgramSetGsh` (and citro3d-rs's
    /// `Program::set_geometry_shader`): registers per vertex × vertices per primitive.
    pub stride: u32,
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
    /// In a geometry program: which vertex of the input primitive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertex: Option<u32>,
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
    /// The components written (`xyzw`); PICA200: the components that carry `semantic`.
    pub mask: String,
}

/// A uniform.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// The value the source gives it (GLSL `uniform vec2 center = vec2(0.5);`), lanes in
    /// register order from `component` on: upload it unless the application sets another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<f32>>,
}

/// A literal-constant register.
///
/// In JSON (see [`ConstantInfo::is_integer`] for the integer registers):
///
/// ```json
/// {"register": "c95", "value": [0.5, "Infinity", -2.0, "NaN"],
///  "bits": ["0x3f000000", "0x7f800000", "0xc0000000", "0x7fc00000"]}
/// ```
///
/// `value` holds numbers where they are finite and the strings `"Infinity"`, `"-Infinity"` and
/// `"NaN"` where they are not (JSON has no such numbers; JavaScript's and ActionScript's
/// `Number()`, Python's `float()`, C's `strtod` and Rust's `str::parse` all read these
/// spellings). `bits` is each value's IEEE 754 binary32 bit pattern, so the exact value,
/// NaN payload and sign of zero included, survives any JSON reader: for the PICA200 it is the
/// `f32` equal to the float24 the `.shbin` holds (every float24 is one), for AGAL the `f32` to
/// upload. When reading, `bits` wins over `value`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantInfo {
    /// The register.
    pub register: String,
    /// Its four values.
    pub value: [f32; 4],
}

impl ConstantInfo {
    /// Whether this is an integer register (the PICA200's `i0`–`i3`, which counted loops
    /// read: iteration count − 1, start and step of `aL`, 0). Its values are whole numbers
    /// 0–255, written in JSON as integers with `bits` the byte each component holds
    /// (`"0xff"`).
    pub fn is_integer(&self) -> bool {
        self.register.starts_with('i')
    }
}

/// A float in the reflection's JSON spelling: a number where finite, else `"Infinity"`,
/// `"-Infinity"` or `"NaN"`.
pub fn json_number(v: f32) -> serde_json::Value {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // The shortest decimal that reads back as this f32 (`0.1`), not the f64 widening
    // (`0.10000000149011612`) that `Value::from(f32)` would print.
    let shortest: f64 = format!("{v:?}").parse().unwrap_or(f64::from(v));
    serde_json::Number::from_f64(shortest).map_or(serde_json::Value::Null, Into::into)
}

/// A float's value read back from [`json_number`]'s spelling.
fn number_from_json(v: &serde_json::Value) -> Option<f32> {
    match v {
        serde_json::Value::Number(n) => n.as_f64().map(|f| f as f32),
        serde_json::Value::String(s) => match s.as_str() {
            "Infinity" | "inf" => Some(f32::INFINITY),
            "-Infinity" | "-inf" => Some(f32::NEG_INFINITY),
            "NaN" | "nan" => Some(f32::NAN),
            _ => None,
        },
        _ => None,
    }
}

impl Serialize for ConstantInfo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("ConstantInfo", 3)?;
        s.serialize_field("register", &self.register)?;
        if self.is_integer() {
            let bytes = self.value.map(|v| v as u8);
            s.serialize_field("value", &bytes)?;
            s.serialize_field("bits", &bytes.map(|b| format!("0x{b:02x}")))?;
        } else {
            s.serialize_field("value", &self.value.map(json_number))?;
            s.serialize_field(
                "bits",
                &self.value.map(|v| format!("0x{:08x}", v.to_bits())),
            )?;
        }
        s.end()
    }
}

impl<'de> Deserialize<'de> for ConstantInfo {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        struct Raw {
            register: String,
            value: [serde_json::Value; 4],
            #[serde(default)]
            bits: Option<[String; 4]>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let mut value = [0.0f32; 4];
        for (slot, v) in value.iter_mut().zip(&raw.value) {
            *slot = number_from_json(v)
                .ok_or_else(|| D::Error::custom(format!("not a constant value: {v}")))?;
        }
        let mut info = ConstantInfo {
            register: raw.register,
            value,
        };
        if let (Some(bits), false) = (raw.bits, info.is_integer()) {
            for (slot, b) in info.value.iter_mut().zip(&bits) {
                let hex = b.strip_prefix("0x").unwrap_or(b);
                *slot = u32::from_str_radix(hex, 16)
                    .map(f32::from_bits)
                    .map_err(|_| D::Error::custom(format!("not a bit pattern: {b}")))?;
            }
        }
        Ok(info)
    }
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
    /// Constant registers used by literals: the entries of `constants` (on the PICA200 the
    /// float `c` and the integer `i` registers of the DVLE's constant table).
    pub constant_registers: usize,
    /// Operand descriptors (PICA200); `None` for AGAL.
    pub operand_descriptors: Option<usize>,
}

impl Reflection {
    /// The reflection of module `m` compiled for `target` (`"pica"`, `"agal"`) with
    /// everything the module alone says (stage, entry point); the lists are the back end's.
    pub fn of(m: &Module, target: &str, agal_version: Option<u8>) -> Reflection {
        Reflection {
            target: target.into(),
            agal_version,
            stage: m.stage.name().into(),
            entry_point: m.entry_point.clone(),
            ..Reflection::default()
        }
    }

    /// The reflection as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// glsl2agal's JSON for an AGAL program with this reflection: `info` (empty: errors are
    /// reported, not written), `varnames` (each input, output, uniform and sampler by name,
    /// with its register), `consts` (each literal register with its four values, spelled as
    /// [`json_number`] spells them), `agalasm` (the listing) and `agalbin` (the bytes, as
    /// numbers). Compact, with a final line break.
    pub fn glsl2agal_json(&self, listing: &str, bytes: &[u8]) -> String {
        use serde_json::{Map, Value, json};
        let mut varnames = Map::new();
        let named = self
            .inputs
            .iter()
            .map(|i| (&i.name, &i.register))
            .chain(self.outputs.iter().map(|o| (&o.name, &o.register)))
            .chain(self.uniforms.iter().map(|u| (&u.name, &u.register)))
            .chain(self.samplers.iter().map(|s| (&s.name, &s.register)));
        for (name, register) in named {
            varnames.insert(name.clone(), Value::from(register.clone()));
        }
        let mut consts = Map::new();
        for c in &self.constants {
            consts.insert(
                c.register.clone(),
                Value::Array(c.value.iter().map(|&v| json_number(v)).collect()),
            );
        }
        let value = json!({
            "info": "",
            "varnames": varnames,
            "consts": consts,
            "agalasm": listing,
            "agalbin": bytes,
        });
        let mut text = serde_json::to_string(&value).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// The module's inputs, in order, each in the register `register` names.
pub fn inputs(m: &Module, register: impl Fn(usize, &Input) -> String) -> Vec<InputInfo> {
    m.inputs
        .iter()
        .enumerate()
        .map(|(k, (_, i))| InputInfo {
            name: i.name.clone(),
            location: i.location,
            register: register(k, i),
            vertex: i.vertex,
        })
        .collect()
}

/// The module's uniforms, in order, each from the register `register` names.
pub fn uniforms(m: &Module, register: impl Fn(&Uniform) -> String) -> Vec<UniformInfo> {
    m.uniforms
        .iter()
        .map(|u| UniformInfo {
            name: u.name.clone(),
            block: u.block.clone(),
            type_name: u.type_name.clone(),
            layout: u.layout.map(|l| l.name().to_string()),
            register: register(u),
            component: u.component,
            count: u.count,
            default: u.default.clone(),
        })
        .collect()
}

impl OutputInfo {
    /// Output `o` in `register`, writing the `mask` bits (bit 0 is x), with its PICA200
    /// semantic.
    pub fn of(o: &Output, register: String, semantic: Option<String>, mask: u8) -> OutputInfo {
        OutputInfo {
            name: o.name.clone(),
            location: o.location,
            builtin: o.builtin.map(|b| format!("{b:?}")),
            register,
            semantic,
            mask: mask_letters(mask),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_survive_json_bit_for_bit() {
        let odd = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::from_bits(0x7fc0_1234),
            -0.0,
            0.1,
            1e30,
            f32::from_bits(1),
            -2.5,
        ];
        for values in odd.chunks(4) {
            let k = ConstantInfo {
                register: "c95".into(),
                value: values.try_into().unwrap(),
            };
            let text = serde_json::to_string(&k).unwrap();
            assert!(!text.contains("null"), "{text}");
            let back: ConstantInfo = serde_json::from_str(&text).unwrap();
            assert_eq!(
                back.value.map(f32::to_bits),
                k.value.map(f32::to_bits),
                "{text}"
            );
        }
        let k = ConstantInfo {
            register: "c0".into(),
            value: [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 0.1],
        };
        assert_eq!(
            serde_json::to_string(&k).unwrap(),
            r#"{"register":"c0","value":["Infinity","-Infinity","NaN",0.1],"bits":["0x7f800000","0xff800000","0x7fc00000","0x3dcccccd"]}"#
        );
        // Without `bits`, the values are read from their spelling.
        let k: ConstantInfo =
            serde_json::from_str(r#"{"register":"c1","value":["Infinity",-1,0.5,"NaN"]}"#).unwrap();
        assert_eq!(k.value[..3], [f32::INFINITY, -1.0, 0.5]);
        assert!(k.value[3].is_nan());
    }

    #[test]
    fn integer_registers_are_written_as_integers() {
        let k = ConstantInfo {
            register: "i3".into(),
            value: [255.0, 0.0, 1.0, 0.0],
        };
        assert!(k.is_integer());
        let text = serde_json::to_string(&k).unwrap();
        assert_eq!(
            text,
            r#"{"register":"i3","value":[255,0,1,0],"bits":["0xff","0x00","0x01","0x00"]}"#
        );
        assert_eq!(serde_json::from_str::<ConstantInfo>(&text).unwrap(), k);
    }
}
