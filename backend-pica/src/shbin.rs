//! The `.shbin` container (DVLB / DVLP / DVLE) as picasso 2.7.1 lays it out, and a reader for it.
//!
//! ```text
//! DVLB  "DVLB", N, N absolute DVLE offsets
//! DVLP  "DVLP", 0, 0x28, code words, 0x28 + 4·words, descriptors, DVLP size, 0, 0, 0
//!       code words; descriptors as (word, 0) pairs
//! DVLE  × N: 64-byte header, constants (20 bytes each), outputs (8), uniforms (8),
//!       symbol strings (NUL-terminated, in uniform order), zero padding to 4 bytes
//! ```
//!
//! [`ShaderBinary`] is the unit both directions use: the shared code blob and descriptor table,
//! and one [`Dvle`] per entry point. [`write()`] always produces picasso's layout; [`read()`] follows
//! the offsets (as libctru does), checks every offset, count and value against the file, and
//! ignores only the fields no loader reads (DVLP words 1 and 6–9, the label table, the DVLE
//! version and the symbol-table size).

use crate::error::{ReadError, WriteError};
use crate::float24::F24;
use crate::limits;
use crate::operand::Mask;

const DVLB_MAGIC: u32 = 0x424C_5644;
const DVLP_MAGIC: u32 = 0x504C_5644;
const DVLE_MAGIC: u32 = 0x454C_5644;
const DVLP_HEADER: usize = 40;
const DVLE_HEADER: usize = 64;
const DVLE_VERSION: u16 = 0x1002;

/// A whole `.shbin`: the code blob and descriptor table all entry points share, and the DVLEs.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ShaderBinary {
    /// The code words.
    pub code: Vec<u32>,
    /// The operand-descriptor table (low words; the high words are always 0).
    pub descriptors: Vec<u32>,
    /// One entry per shader (vertex or geometry).
    pub dvles: Vec<Dvle>,
}

/// Which shader unit a DVLE is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ShaderType {
    /// A vertex shader (type byte 0).
    #[default]
    Vertex,
    /// A geometry shader (type byte 1).
    Geometry,
}

/// The geometry-shader fields of a DVLE header (bytes 0x14–0x17; zero for vertex shaders).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GeometryParams {
    /// 0 point, 1 variable (subdivision), 2 fixed (particle).
    pub mode: u8,
    /// Fixed mode: first constant register of the vertex array.
    pub fixed_start: u8,
    /// Variable mode: number of fully defined vertices.
    pub variable_num: u8,
    /// Fixed mode: number of vertices.
    pub fixed_num: u8,
}

/// One entry point with its tables.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Dvle {
    /// Vertex or geometry.
    pub shader_type: ShaderType,
    /// Merge the vertex and geometry output maps (set by a `dummy` output in a geometry shader).
    pub merge_outmaps: bool,
    /// First word of the entry procedure.
    pub entry_start: u32,
    /// One past its last word.
    pub entry_end: u32,
    /// Bit n: input `vn` is declared.
    pub input_mask: u16,
    /// Bit n: output `on` is declared.
    pub output_mask: u16,
    /// Geometry-shader parameters.
    pub geometry: GeometryParams,
    /// Constants libctru uploads when the program is bound, in table order.
    pub constants: Vec<Constant>,
    /// The output table.
    pub outputs: Vec<Output>,
    /// The uniform table (picasso sorts it by register).
    pub uniforms: Vec<Uniform>,
}

/// A constant-table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constant {
    /// `bN = value` (type 0).
    Bool {
        /// N, below 16.
        reg: u8,
        /// The value.
        value: bool,
    },
    /// `iN = (x, y, z, w)` (type 1).
    Int {
        /// N, below 4.
        reg: u8,
        /// The four bytes.
        value: [u8; 4],
    },
    /// `cN = (x, y, z, w)` (type 2).
    Float {
        /// N, below 96.
        reg: u8,
        /// The four f24 values.
        value: [F24; 4],
    },
}

/// An output semantic (the output table's type field, libctru's `DVLE_outputAttribute_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Semantic {
    /// `position`.
    Position = 0,
    /// `normalquat`.
    NormalQuat = 1,
    /// `color`.
    Color = 2,
    /// `texcoord0`.
    TexCoord0 = 3,
    /// `texcoord0w`.
    TexCoord0W = 4,
    /// `texcoord1`.
    TexCoord1 = 5,
    /// `texcoord2`.
    TexCoord2 = 6,
    /// `view`.
    View = 8,
    /// `dummy`.
    Dummy = 9,
}

impl Semantic {
    /// From the type field.
    pub fn from_raw(raw: u16) -> Option<Semantic> {
        use Semantic::*;
        Some(match raw {
            0 => Position,
            1 => NormalQuat,
            2 => Color,
            3 => TexCoord0,
            4 => TexCoord0W,
            5 => TexCoord1,
            6 => TexCoord2,
            8 => View,
            9 => Dummy,
            _ => return None,
        })
    }

    /// The type field.
    pub fn raw(self) -> u16 {
        self as u16
    }

    /// picasso's spelling in `.out`.
    pub fn name(self) -> &'static str {
        use Semantic::*;
        match self {
            Position => "position",
            NormalQuat => "normalquat",
            Color => "color",
            TexCoord0 => "texcoord0",
            TexCoord0W => "texcoord0w",
            TexCoord1 => "texcoord1",
            TexCoord2 => "texcoord2",
            View => "view",
            Dummy => "dummy",
        }
    }
}

/// An output-table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    /// What the components mean to the rasterizer.
    pub semantic: Semantic,
    /// The output register `oN`.
    pub reg: u8,
    /// The components that carry the semantic.
    pub mask: Mask,
}

/// Which register file a uniform-table entry is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniformFile {
    /// `v` (from `.in`): table indices 0x00–0x0F.
    Input,
    /// `c`: 0x10–0x6F.
    Float,
    /// `i`: 0x70–0x73.
    Int,
    /// `b`: 0x78–0x87.
    Bool,
}

impl UniformFile {
    /// The file and register number of a uniform-table index.
    pub fn of_index(index: u16) -> Option<(UniformFile, u8)> {
        let (file, base) = match index {
            0x00..=0x0F => (UniformFile::Input, 0x00),
            0x10..=0x6F => (UniformFile::Float, 0x10),
            0x70..=0x73 => (UniformFile::Int, 0x70),
            0x78..=0x87 => (UniformFile::Bool, 0x78),
            _ => return None,
        };
        Some((file, (index - base) as u8))
    }

    /// The table index of register `n` of this file.
    pub fn index(self, n: u8) -> u16 {
        let base = match self {
            UniformFile::Input => 0x00,
            UniformFile::Float => 0x10,
            UniformFile::Int => 0x70,
            UniformFile::Bool => 0x78,
        };
        base + u16::from(n)
    }
}

/// A uniform-table entry: a named register range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uniform {
    /// The name as stored (picasso turns `$` into `.`).
    pub name: String,
    /// First register, as a table index (see [`UniformFile`]).
    pub start: u16,
    /// Last register (inclusive), as a table index.
    pub end: u16,
}

impl Uniform {
    /// The register file, first register number and register count, if the range lies in one
    /// file.
    pub fn range(&self) -> Option<(UniformFile, u8, u8)> {
        let (file, first) = UniformFile::of_index(self.start)?;
        let (file_end, last) = UniformFile::of_index(self.end)?;
        (file == file_end && last >= first).then(|| (file, first, last - first + 1))
    }
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

fn symbol_size(dvle: &Dvle) -> usize {
    dvle.uniforms.iter().map(|u| u.name.len() + 1).sum()
}

fn dvle_size(dvle: &Dvle) -> usize {
    align4(
        DVLE_HEADER
            + 20 * dvle.constants.len()
            + 8 * dvle.outputs.len()
            + 8 * dvle.uniforms.len()
            + symbol_size(dvle),
    )
}

fn check_count(what: &'static str, count: usize, limit: usize) -> Result<(), WriteError> {
    if count > limit {
        Err(WriteError::TooMany { what, count, limit })
    } else {
        Ok(())
    }
}

fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Writes `bin` in picasso's layout.
pub fn write(bin: &ShaderBinary) -> Result<Vec<u8>, WriteError> {
    check_count("code words", bin.code.len(), limits::MAX_CODE_WORDS)?;
    check_count(
        "operand descriptors",
        bin.descriptors.len(),
        limits::MAX_OPERAND_DESCRIPTORS,
    )?;
    check_count("DVLEs", bin.dvles.len(), 0xFFFF)?;
    for (index, d) in bin.dvles.iter().enumerate() {
        if d.entry_start > d.entry_end || d.entry_end as usize > bin.code.len() {
            return Err(WriteError::EntryRange {
                index,
                start: d.entry_start,
                end: d.entry_end,
                words: bin.code.len(),
            });
        }
        check_count("constants", d.constants.len(), 0xFFFF)?;
        check_count("outputs", d.outputs.len(), 0xFFFF)?;
        check_count("uniforms", d.uniforms.len(), 0xFFFF)?;
        for c in &d.constants {
            let (what, reg, limit) = match c {
                Constant::Bool { reg, .. } => {
                    ("bool constant register", *reg, limits::BOOL_UNIFORMS)
                }
                Constant::Int { reg, .. } => ("int constant register", *reg, limits::INT_UNIFORMS),
                Constant::Float { reg, .. } => {
                    ("float constant register", *reg, limits::FLOAT_UNIFORMS)
                }
            };
            if reg >= limit {
                return Err(WriteError::BadValue {
                    what,
                    value: u64::from(reg),
                });
            }
        }
        for o in &d.outputs {
            if o.reg >= limits::OUTPUT_REGISTERS {
                return Err(WriteError::BadValue {
                    what: "output register",
                    value: o.reg.into(),
                });
            }
        }
        for u in &d.uniforms {
            if u.name.contains('\0') {
                return Err(WriteError::NulInName(u.name.clone()));
            }
            if u.range().is_none() {
                return Err(WriteError::BadValue {
                    what: "uniform register range",
                    value: (u64::from(u.start) << 16) | u64::from(u.end),
                });
            }
        }
    }

    let n = bin.dvles.len();
    let dvlp_size = DVLP_HEADER + 4 * bin.code.len() + 8 * bin.descriptors.len();
    let total = 8 + 4 * n + dvlp_size + bin.dvles.iter().map(dvle_size).sum::<usize>();
    let mut out = Vec::with_capacity(total);

    put_u32(&mut out, DVLB_MAGIC);
    put_u32(&mut out, n as u32);
    let mut offset = 8 + 4 * n + dvlp_size;
    for d in &bin.dvles {
        put_u32(&mut out, offset as u32);
        offset += dvle_size(d);
    }

    let words = bin.code.len() as u32;
    for w in [
        DVLP_MAGIC,
        0,
        DVLP_HEADER as u32,
        words,
        DVLP_HEADER as u32 + 4 * words,
        bin.descriptors.len() as u32,
        dvlp_size as u32,
        0,
        0,
        0,
    ] {
        put_u32(&mut out, w);
    }
    for &w in &bin.code {
        put_u32(&mut out, w);
    }
    for &d in &bin.descriptors {
        put_u32(&mut out, d);
        put_u32(&mut out, 0);
    }

    for d in &bin.dvles {
        let start = out.len();
        let consts_off = DVLE_HEADER;
        let outs_off = consts_off + 20 * d.constants.len();
        let unifs_off = outs_off + 8 * d.outputs.len();
        let syms_off = unifs_off + 8 * d.uniforms.len();
        put_u32(&mut out, DVLE_MAGIC);
        put_u16(&mut out, DVLE_VERSION);
        out.push(match d.shader_type {
            ShaderType::Vertex => 0,
            ShaderType::Geometry => 1,
        });
        out.push(u8::from(d.merge_outmaps));
        put_u32(&mut out, d.entry_start);
        put_u32(&mut out, d.entry_end);
        put_u16(&mut out, d.input_mask);
        put_u16(&mut out, d.output_mask);
        let g = d.geometry;
        out.extend_from_slice(&[g.mode, g.fixed_start, g.variable_num, g.fixed_num]);
        for w in [
            consts_off,
            d.constants.len(),
            outs_off, // the (empty) label table
            0,
            outs_off,
            d.outputs.len(),
            unifs_off,
            d.uniforms.len(),
            syms_off,
            symbol_size(d),
        ] {
            put_u32(&mut out, w as u32);
        }
        for c in &d.constants {
            match c {
                Constant::Bool { reg, value } => {
                    put_u16(&mut out, 0);
                    put_u16(&mut out, u16::from(*reg));
                    for w in [u32::from(*value), 0, 0, 0] {
                        put_u32(&mut out, w);
                    }
                }
                Constant::Int { reg, value } => {
                    put_u16(&mut out, 1);
                    put_u16(&mut out, u16::from(*reg));
                    out.extend_from_slice(value);
                    for w in [0, 0, 0] {
                        put_u32(&mut out, w);
                    }
                }
                Constant::Float { reg, value } => {
                    put_u16(&mut out, 2);
                    put_u16(&mut out, u16::from(*reg));
                    for v in value {
                        put_u32(&mut out, v.bits());
                    }
                }
            }
        }
        for o in &d.outputs {
            put_u16(&mut out, o.semantic.raw());
            put_u16(&mut out, u16::from(o.reg));
            put_u32(&mut out, u32::from(o.mask.bits()));
        }
        let mut sym = 0u32;
        for u in &d.uniforms {
            put_u32(&mut out, sym);
            put_u16(&mut out, u.start);
            put_u16(&mut out, u.end);
            sym += u.name.len() as u32 + 1;
        }
        for u in &d.uniforms {
            out.extend_from_slice(u.name.as_bytes());
            out.push(0);
        }
        while (out.len() - start) % 4 != 0 {
            out.push(0);
        }
    }
    Ok(out)
}

/// Bounds-checked little-endian access to the file.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn slice(&self, what: &'static str, offset: usize, len: usize) -> Result<&[u8], ReadError> {
        offset
            .checked_add(len)
            .and_then(|end| self.0.get(offset..end))
            .ok_or(ReadError::Truncated {
                what,
                offset,
                len,
                size: self.0.len(),
            })
    }

    fn u32(&self, what: &'static str, offset: usize) -> Result<u32, ReadError> {
        let b = self.slice(what, offset, 4)?;
        let size = self.0.len();
        let bytes: [u8; 4] = b.try_into().map_err(|_| ReadError::Truncated {
            what,
            offset,
            len: 4,
            size,
        })?;
        Ok(u32::from_le_bytes(bytes))
    }

    fn u16(&self, what: &'static str, offset: usize) -> Result<u16, ReadError> {
        let b = self.slice(what, offset, 2)?;
        let size = self.0.len();
        let bytes: [u8; 2] = b.try_into().map_err(|_| ReadError::Truncated {
            what,
            offset,
            len: 2,
            size,
        })?;
        Ok(u16::from_le_bytes(bytes))
    }

    fn u8(&self, what: &'static str, offset: usize) -> Result<u8, ReadError> {
        let size = self.0.len();
        self.slice(what, offset, 1)?
            .first()
            .copied()
            .ok_or(ReadError::Truncated {
                what,
                offset,
                len: 1,
                size,
            })
    }

    /// An offset relative to `base`, checked for overflow.
    fn at(&self, what: &'static str, base: usize, rel: u32) -> Result<usize, ReadError> {
        base.checked_add(rel as usize).ok_or(ReadError::BadValue {
            what,
            value: u64::from(rel),
        })
    }
}

fn bad(what: &'static str, value: impl Into<u64>) -> ReadError {
    ReadError::BadValue {
        what,
        value: value.into(),
    }
}

fn magic(b: &Bytes, what: &'static str, offset: usize, expected: u32) -> Result<(), ReadError> {
    let found = b.u32(what, offset)?;
    if found == expected {
        Ok(())
    } else {
        Err(ReadError::BadMagic {
            what,
            expected,
            found,
        })
    }
}

/// Reads a `.shbin`, rejecting anything malformed.
pub fn read(bytes: &[u8]) -> Result<ShaderBinary, ReadError> {
    let b = Bytes(bytes);
    magic(&b, "DVLB header", 0, DVLB_MAGIC)?;
    let n = b.u32("DVLE count", 4)? as usize;
    let table = b.slice(
        "DVLE offset table",
        8,
        n.checked_mul(4).ok_or(bad("DVLE count", n as u64))?,
    )?;
    let dvlp = 8 + table.len();
    magic(&b, "DVLP header", dvlp, DVLP_MAGIC)?;
    let code_off = b.at("code offset", dvlp, b.u32("DVLP header", dvlp + 8)?)?;
    let code_words = b.u32("DVLP header", dvlp + 12)? as usize;
    let desc_off = b.at("descriptor offset", dvlp, b.u32("DVLP header", dvlp + 16)?)?;
    let desc_count = b.u32("DVLP header", dvlp + 20)? as usize;
    if code_words > limits::MAX_CODE_WORDS {
        return Err(bad("code size", code_words as u64));
    }
    if desc_count > limits::MAX_OPERAND_DESCRIPTORS {
        return Err(bad("descriptor count", desc_count as u64));
    }
    b.slice("code", code_off, 4 * code_words)?;
    b.slice("operand descriptors", desc_off, 8 * desc_count)?;
    let code = (0..code_words)
        .map(|i| b.u32("code", code_off + 4 * i))
        .collect::<Result<Vec<_>, _>>()?;
    let descriptors = (0..desc_count)
        .map(|i| b.u32("operand descriptors", desc_off + 8 * i))
        .collect::<Result<Vec<_>, _>>()?;

    let mut dvles = Vec::with_capacity(n);
    for i in 0..n {
        let off = b.u32("DVLE offset table", 8 + 4 * i)? as usize;
        dvles.push(read_dvle(&b, off, code.len())?);
    }
    Ok(ShaderBinary {
        code,
        descriptors,
        dvles,
    })
}

fn read_dvle(b: &Bytes, base: usize, code_words: usize) -> Result<Dvle, ReadError> {
    b.slice("DVLE header", base, DVLE_HEADER)?;
    magic(b, "DVLE header", base, DVLE_MAGIC)?;
    let shader_type = match b.u8("DVLE type", base + 6)? {
        0 => ShaderType::Vertex,
        1 => ShaderType::Geometry,
        t => return Err(bad("DVLE shader type", t)),
    };
    let merge_outmaps = match b.u8("DVLE merge flag", base + 7)? {
        0 => false,
        1 => true,
        m => return Err(bad("DVLE merge-outmaps flag", m)),
    };
    let entry_start = b.u32("DVLE header", base + 8)?;
    let entry_end = b.u32("DVLE header", base + 12)?;
    if entry_start > entry_end || entry_end as usize > code_words {
        return Err(bad(
            "DVLE entry range",
            (u64::from(entry_start) << 32) | u64::from(entry_end),
        ));
    }
    let input_mask = b.u16("DVLE header", base + 0x10)?;
    let output_mask = b.u16("DVLE header", base + 0x12)?;
    let geometry = GeometryParams {
        mode: b.u8("DVLE header", base + 0x14)?,
        fixed_start: b.u8("DVLE header", base + 0x15)?,
        variable_num: b.u8("DVLE header", base + 0x16)?,
        fixed_num: b.u8("DVLE header", base + 0x17)?,
    };
    let word = |i: usize| b.u32("DVLE header", base + 4 * i);
    let consts_off = b.at("constant table offset", base, word(6)?)?;
    let consts_n = word(7)? as usize;
    let outs_off = b.at("output table offset", base, word(10)?)?;
    let outs_n = word(11)? as usize;
    let unifs_off = b.at("uniform table offset", base, word(12)?)?;
    let unifs_n = word(13)? as usize;
    let syms_off = b.at("symbol table offset", base, word(14)?)?;

    let table = |what, off: usize, n: usize, size: usize| {
        n.checked_mul(size)
            .ok_or(bad(what, n as u64))
            .and_then(|len| b.slice(what, off, len))
    };
    table("constant table", consts_off, consts_n, 20)?;
    table("output table", outs_off, outs_n, 8)?;
    table("uniform table", unifs_off, unifs_n, 8)?;

    let mut constants = Vec::with_capacity(consts_n);
    for i in 0..consts_n {
        let e = consts_off + 20 * i;
        let kind = b.u16("constant table", e)?;
        let reg = b.u16("constant table", e + 2)?;
        let data = |j: usize| b.u32("constant table", e + 4 + 4 * j);
        constants.push(match kind {
            0 => {
                if reg >= u16::from(limits::BOOL_UNIFORMS) {
                    return Err(bad("bool constant register", reg));
                }
                let value = match data(0)? {
                    0 => false,
                    1 => true,
                    v => return Err(bad("bool constant value", v)),
                };
                Constant::Bool {
                    reg: reg as u8,
                    value,
                }
            }
            1 => {
                if reg >= u16::from(limits::INT_UNIFORMS) {
                    return Err(bad("int constant register", reg));
                }
                Constant::Int {
                    reg: reg as u8,
                    value: data(0)?.to_le_bytes(),
                }
            }
            2 => {
                if reg >= u16::from(limits::FLOAT_UNIFORMS) {
                    return Err(bad("float constant register", reg));
                }
                let mut value = [F24::ZERO; 4];
                for (j, v) in value.iter_mut().enumerate() {
                    let w = data(j)?;
                    *v = F24::from_bits(w).ok_or(bad("float constant value", w))?;
                }
                Constant::Float {
                    reg: reg as u8,
                    value,
                }
            }
            k => return Err(bad("constant type", k)),
        });
    }

    let mut outputs = Vec::with_capacity(outs_n);
    for i in 0..outs_n {
        let e = outs_off + 8 * i;
        let kind = b.u16("output table", e)?;
        let semantic = Semantic::from_raw(kind).ok_or(bad("output semantic", kind))?;
        let reg = b.u16("output table", e + 2)?;
        if reg >= u16::from(limits::OUTPUT_REGISTERS) {
            return Err(bad("output register", reg));
        }
        let mask = b.u32("output table", e + 4)?;
        let mask = u8::try_from(mask)
            .ok()
            .and_then(Mask::new)
            .ok_or(bad("output mask", mask))?;
        outputs.push(Output {
            semantic,
            reg: reg as u8,
            mask,
        });
    }

    let mut uniforms = Vec::with_capacity(unifs_n);
    for i in 0..unifs_n {
        let e = unifs_off + 8 * i;
        let sym = b.u32("uniform table", e)?;
        let start = b.u16("uniform table", e + 4)?;
        let end = b.u16("uniform table", e + 6)?;
        let name_off = syms_off
            .checked_add(sym as usize)
            .ok_or(ReadError::BadSymbol {
                index: i,
                offset: sym,
            })?;
        let rest = b.0.get(name_off..).ok_or(ReadError::BadSymbol {
            index: i,
            offset: sym,
        })?;
        let len = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or(ReadError::BadSymbol {
                index: i,
                offset: sym,
            })?;
        let name = std::str::from_utf8(rest.get(..len).unwrap_or_default())
            .map_err(|_| ReadError::BadSymbol {
                index: i,
                offset: sym,
            })?
            .to_string();
        let u = Uniform { name, start, end };
        if u.range().is_none() {
            return Err(bad(
                "uniform register range",
                (u64::from(start) << 16) | u64::from(end),
            ));
        }
        uniforms.push(u);
    }

    Ok(Dvle {
        shader_type,
        merge_outmaps,
        entry_start,
        entry_end,
        input_mask,
        output_mask,
        geometry,
        constants,
        outputs,
        uniforms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ShaderBinary {
        ShaderBinary {
            code: vec![0x4E00_0000, 0x8800_0000],
            descriptors: vec![0x36E],
            dvles: vec![Dvle {
                entry_end: 2,
                input_mask: 1,
                output_mask: 1,
                constants: vec![
                    Constant::Float {
                        reg: 95,
                        value: [F24::ONE; 4],
                    },
                    Constant::Int {
                        reg: 3,
                        value: [5, 1, 2, 255],
                    },
                    Constant::Bool {
                        reg: 10,
                        value: true,
                    },
                ],
                outputs: vec![Output {
                    semantic: Semantic::Position,
                    reg: 0,
                    mask: Mask::XYZW,
                }],
                uniforms: vec![Uniform {
                    name: "pos".into(),
                    start: 0,
                    end: 0,
                }],
                ..Dvle::default()
            }],
        }
    }

    #[test]
    fn round_trip() {
        let bin = sample();
        let bytes = write(&bin).unwrap();
        assert_eq!(bytes.len() % 4, 0);
        assert_eq!(read(&bytes).unwrap(), bin);
    }

    #[test]
    fn rejects_truncation_and_garbage() {
        let bytes = write(&sample()).unwrap();
        for len in 0..bytes.len() {
            // Every prefix that cuts a table or the code must fail, never panic.
            let _ = read(&bytes[..len]);
        }
        assert!(read(&bytes[..bytes.len() - 8]).is_err());
        let mut bad_magic = bytes.clone();
        bad_magic[0] = b'X';
        assert!(matches!(read(&bad_magic), Err(ReadError::BadMagic { .. })));
        let mut bad_count = bytes.clone();
        bad_count[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(read(&bad_count).is_err());
        // Flip every byte in turn: reading must return, whatever it decides.
        for i in 0..bytes.len() {
            let mut m = bytes.clone();
            m[i] ^= 0xFF;
            let _ = read(&m);
        }
    }

    #[test]
    fn writer_checks() {
        let mut bin = sample();
        bin.dvles[0].entry_end = 3;
        assert!(matches!(write(&bin), Err(WriteError::EntryRange { .. })));
        let mut bin = sample();
        bin.dvles[0].uniforms[0].name = "a\0b".into();
        assert!(matches!(write(&bin), Err(WriteError::NulInName(_))));
        let mut bin = sample();
        bin.descriptors = vec![0; 129];
        assert!(matches!(write(&bin), Err(WriteError::TooMany { .. })));
    }
}
