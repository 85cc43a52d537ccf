//! The PICA200 shader unit's hard limits, in one place, so that every check in the crate (encoder,
//! container writer, assembler, simulator) names the same constant and the report can cite it.
//!
//! Sources: `pica200-shader-isa.txt` (register files, stacks, fields) and `shbin-format.md`
//! (512 words and 128 descriptors from the Ironfall debug strings, libctru uploading at most 512
//! vertex-shader words, 96 constants per DVLE, seven semantic outputs).

/// Words of vertex-shader code memory: libctru uploads at most this many, `end` included.
pub const MAX_VERTEX_CODE_WORDS: usize = 512;

/// Words addressable by a flow-control target (12-bit DST field); the limit for a whole code blob
/// that also holds geometry-shader code.
pub const MAX_CODE_WORDS: usize = 4096;

/// Entries of the operand-descriptor table (7-bit DESC field).
pub const MAX_OPERAND_DESCRIPTORS: usize = 128;

/// Descriptors a MAD/MADI can address (its DESC field has 5 bits).
pub const MAD_DESCRIPTOR_LIMIT: usize = 32;

/// Input registers `v0`–`v15`.
pub const INPUT_REGISTERS: u8 = 16;

/// Temporary registers `r0`–`r15`.
pub const TEMP_REGISTERS: u8 = 16;

/// Output registers `o0`–`o15`.
pub const OUTPUT_REGISTERS: u8 = 16;

/// Output registers a geometry shader may write (`o0`–`o6`).
pub const GEOMETRY_OUTPUT_REGISTERS: u8 = 7;

/// Output registers that can carry a semantic (libctru's output map has seven slots).
pub const SEMANTIC_OUTPUT_REGISTERS: u8 = 7;

/// Float constant (uniform) registers `c0`–`c95`.
pub const FLOAT_UNIFORMS: u8 = 96;

/// Integer uniform registers `i0`–`i3`.
pub const INT_UNIFORMS: u8 = 4;

/// Boolean uniform registers `b0`–`b15`.
pub const BOOL_UNIFORMS: u8 = 16;

/// Entries in one DVLE's constant table (picasso's `MAX_CONSTANT`).
pub const MAX_CONSTANTS_PER_DVLE: usize = 96;

/// Entries in one DVLE's output table (picasso's `MAX_OUTPUT`).
pub const MAX_OUTPUTS_PER_DVLE: usize = 16;

/// Depth of the CALL stack.
pub const CALL_STACK_DEPTH: usize = 4;

/// Depth of the IF stack.
pub const IF_STACK_DEPTH: usize = 8;

/// Depth of the LOOP stack.
pub const LOOP_STACK_DEPTH: usize = 4;
