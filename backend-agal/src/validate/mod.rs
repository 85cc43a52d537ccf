//! Flash Player's upload-time AGAL validation, run on bytes.
//!
//! [`validate`] checks one program against a profile and returns either what the program uses
//! ([`Info`]) or every rule it breaks, in token order, each with Flash's error number
//! ([`Rule::code`]), the token (counted from 1, as Flash counts) and the operand. Flash stops at
//! its first error; this validator goes on, so that one run shows every problem, but it does
//! not report consequences of an error it has already reported (an operand whose fields are
//! broken is not looked at further).
//!
//! The checks, per token and in this order:
//!
//! 1. the opcode: known (#3620/#3621), available in the version (#3726) and stage (#3622);
//! 2. each operand field on its own (module `operands`): reserved bits, register type, index
//!    bounds for the profile, stage and direction (what may be read, what written), relative
//!    addressing, the sampler's flags;
//! 3. rules between operands: two constants (#3625), two indirect reads (#3626), a swizzled
//!    matrix (#3689), scalar swizzles (#3703), a constant condition (#3758);
//! 4. reads of temporaries against what has been written (module `dataflow`, #3647/#3648);
//! 5. the destination's meaning: `.xyz` results (#3628), outputs (#3701, #3744, #3751, #3756);
//! 6. conditional structure (module `flow`).
//!
//! After the last token: open blocks (#3739), outputs and varyings written in full
//! (#3633–#3635, #3775). [`validate_pair`] adds the linkage rules between a vertex and a
//! fragment program (#3630–#3632, #3757).
//!
//! Semantics chosen where Flash's behaviour is not documented:
//! - temporaries are tracked in program order, a write inside a conditional counting for
//!   everything after it;
//! - a temporary source must have written every lane its swizzle names, all four positions,
//!   whatever the destination mask and the opcode use (`mov ft0.x, ft1` needs all of `ft1`;
//!   `mov ft0.x, ft1.x` only `ft1.x`). This is the stricter of the two readings Flash could have,
//!   chosen so that what passes here passes Flash; a code generator meets it by giving unused
//!   swizzle positions a used lane ([`Swizzle::restricted_to`](crate::Swizzle::restricted_to)).
//!   The golden programs get the same verdicts under either reading;
//! - opcode numbers above 0x2d are "out of range" (#3620), unassigned numbers below it (0x22–
//!   0x26, 0x2b: the legacy loop opcodes, `ted`, `sgn`) "not implemented" (#3621);
//! - a length that is not 7 + 24·n is "below minimum length" (#3615); a texture format above 3
//!   counts as reserved bits (#3654);
//! - an older version under a newer profile gets the limits of that version's default profile
//!   (a version 1 program under `standard` has `baseline`'s limits);
//! - #3689 ("can not swizzle second operand") applies to the matrix operand of m33/m34/m44;
//! - #3751 covers `op`, `oc` and `od`, not varyings; at most 4 nested conditionals (#3624);
//! - #3704 (cube maps must mipmap) is enforced, as agal-reference.md states it;
//! - #3716/#3717 count AGAL tokens against `baselineConstrained`'s 64 ALU / 32 texture
//!   instructions (a lower bound of the native count).
//!
//! Not checked, because the bytes do not decide them: #3612 (the `ByteArray`'s endian flag),
//! #3641 (which operands may not be relative is not documented), the `ted` rules (#3740,
//! #3743; `ted` is not in the opcode table), draw-time rules that depend on bound textures and
//! vertex streams (#3606, #3607, #3611, #3697, #3753–#3755, #3763, #3778), and native shader
//! compilation limits other than the two above (#3715, #3718–#3721).

mod dataflow;
mod flow;
mod link;
mod operands;
mod rules;

pub use link::validate_pair;
pub use rules::Rule;

use crate::header::{HEADER_LEN, MAGIC, RawHeader, Stage, TOKEN_LEN, TYPE_TAG, Version};
use crate::limits::{Limits, Profile};
use crate::opcode::{Opcode, Shape};
use crate::operand::{Mask, RegType};
use crate::program::Field;
use crate::sampler::Sampler;
use crate::token::RawToken;
use std::fmt;

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The rule (its [`Rule::code`] is Flash's error number).
    pub rule: Rule,
    /// The program's stage, when the header says.
    pub stage: Option<Stage>,
    /// The token, counting from 1 as Flash does; `None` for the header and whole-program rules.
    pub token: Option<usize>,
    /// The operand, when the rule is about one.
    pub operand: Option<Field>,
    /// What is wrong, naming the opcode and registers involved.
    pub message: String,
}

impl Error {
    /// Flash's error number.
    pub const fn code(&self) -> u32 {
        self.rule.code()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error #{}: {}", self.code(), self.message)?;
        let stage = self.stage.map(Stage::name);
        match (self.operand, self.token, stage) {
            (Some(op), Some(t), Some(s)) => write!(f, " ({op} at token {t} of the {s} program)"),
            (None, Some(t), Some(s)) => write!(f, " (token {t} of the {s} program)"),
            (_, _, Some(s)) => write!(f, " ({s} program)"),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for Error {}

/// What a valid program uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// The AGAL version.
    pub version: Version,
    /// The stage.
    pub stage: Stage,
    /// How many tokens.
    pub tokens: usize,
    /// One more than the highest temporary named.
    pub temporaries: u16,
    /// The attributes read, one bit per `va` register.
    pub attributes: u32,
    /// One more than the highest constant read directly (matrix rows included).
    pub constants: u16,
    /// Whether constants are also read through relative addressing.
    pub indirect_constants: bool,
    /// The lanes written of each varying (vertex programs).
    pub varyings_written: Vec<Mask>,
    /// The lanes read of each varying (fragment programs).
    pub varyings_read: Vec<Mask>,
    /// Every sampler used, with its flags, by register number.
    pub samplers: Vec<Sampler>,
    /// The colour outputs written, one bit per `oc` register.
    pub color_outputs: u8,
    /// Whether `od` is written.
    pub depth: bool,
}

/// `errors` as the command-line tools print them about the program called `name`: one
/// `name: error[flash.NNNN]: message` line each, the token and operand, then the rule's
/// number and summary.
pub fn render(name: &str, errors: &[Error]) -> String {
    errors
        .iter()
        .map(|e| {
            let mut line = format!("{name}: error[flash.{}]: {}", e.code(), e.message);
            if let Some(t) = e.token {
                line.push_str(&format!("\n  --> token {t}"));
                if let Some(field) = e.operand {
                    line.push_str(&format!(", {field}"));
                }
            }
            line.push_str(&format!(
                "\n   = rule: #{} {}\n",
                e.code(),
                e.rule.summary()
            ));
            line
        })
        .collect()
}

/// Checks a program the way Flash Player checks it when `Program3D.upload` is called in a
/// context created with `profile`.
pub fn validate(bytes: &[u8], profile: Profile) -> Result<Info, Vec<Error>> {
    let (stage, version, limits) = check_header(bytes, profile)?;
    let body = bytes.get(HEADER_LEN..).unwrap_or_default();
    let mut c = Checker::new(stage, version, limits);
    let count = body.len() / TOKEN_LEN;
    if count > limits.tokens as usize {
        c.whole(
            Rule::TooManyTokens,
            format!("{count} tokens, but the limit is {}", limits.tokens),
        );
    }
    for (i, raw) in RawToken::split(body).enumerate() {
        c.token = i + 1;
        c.check_token(raw);
    }
    c.finish(count);
    if c.errors.is_empty() {
        Ok(c.info)
    } else {
        Err(c.errors)
    }
}

/// The header checks, in the order Flash runs them: length first (a header-only program is
/// "below minimum length" whatever its header says), then magic, version, tag, type, and the
/// version against the profile.
fn check_header(
    bytes: &[u8],
    profile: Profile,
) -> Result<(Stage, Version, &'static Limits), Vec<Error>> {
    let stage = RawHeader::read(bytes).and_then(|h| Stage::from_byte(h.stage));
    let fail = |rule: Rule, message: String| {
        vec![Error {
            rule,
            stage,
            token: None,
            operand: None,
            message,
        }]
    };
    let min = HEADER_LEN + TOKEN_LEN;
    let Some(h) = RawHeader::read(bytes).filter(|_| bytes.len() >= min) else {
        return Err(fail(
            Rule::ProgramTooShort,
            format!(
                "{} bytes; a program is at least {min} bytes (header and one token)",
                bytes.len()
            ),
        ));
    };
    if h.magic != MAGIC {
        return Err(fail(
            Rule::BadMagic,
            format!("the magic byte is {:#04x}, not 0xa0", h.magic),
        ));
    }
    let Some(version) = Version::from_number(h.version) else {
        return Err(fail(
            Rule::BadVersion,
            format!("AGAL version {} does not exist", h.version),
        ));
    };
    if h.tag != TYPE_TAG {
        return Err(fail(
            Rule::BadTypeTag,
            format!("the type tag is {:#04x}, not 0xa1", h.tag),
        ));
    }
    let Some(stage) = stage else {
        return Err(fail(
            Rule::BadShaderType,
            format!(
                "shader type {} is neither 0 (vertex) nor 1 (fragment)",
                h.stage
            ),
        ));
    };
    let rest = bytes.len() - HEADER_LEN;
    if !rest.is_multiple_of(TOKEN_LEN) {
        return Err(fail(
            Rule::ProgramTooShort,
            format!("the {rest} bytes after the header are not a whole number of 24-byte tokens"),
        ));
    }
    let Some(limits) = profile.limits_for(version) else {
        return Err(fail(
            Rule::VersionNotInProfile,
            format!(
                "AGAL version {version} is not available under the {profile} profile (which takes version {} at most)",
                profile.version()
            ),
        ));
    };
    Ok((stage, version, limits))
}

/// The validator's state while it walks the tokens.
pub(crate) struct Checker {
    pub stage: Stage,
    pub version: Version,
    pub limits: &'static Limits,
    pub errors: Vec<Error>,
    /// The current token, from 1.
    pub token: usize,
    pub flow: flow::Flow,
    pub data: dataflow::Dataflow,
    pub info: Info,
    /// Each sampler register's field at its first use (#3696).
    pub samplers: Vec<(u16, u64)>,
    alu_tokens: u32,
    tex_tokens: u32,
}

impl Checker {
    fn new(stage: Stage, version: Version, limits: &'static Limits) -> Checker {
        Checker {
            stage,
            version,
            limits,
            errors: Vec::new(),
            token: 0,
            flow: flow::Flow::default(),
            data: dataflow::Dataflow::new(limits),
            info: Info {
                version,
                stage,
                tokens: 0,
                temporaries: 0,
                attributes: 0,
                constants: 0,
                indirect_constants: false,
                varyings_written: vec![Mask::NONE; usize::from(limits.varyings)],
                varyings_read: vec![Mask::NONE; usize::from(limits.varyings)],
                samplers: Vec::new(),
                color_outputs: 0,
                depth: false,
            },
            samplers: Vec::new(),
            alu_tokens: 0,
            tex_tokens: 0,
        }
    }

    /// Records an error about an operand of the current token.
    pub fn at(&mut self, rule: Rule, operand: Option<Field>, message: String) {
        self.errors.push(Error {
            rule,
            stage: Some(self.stage),
            token: Some(self.token),
            operand,
            message,
        });
    }

    /// Records an error about the whole program.
    pub fn whole(&mut self, rule: Rule, message: String) {
        self.errors.push(Error {
            rule,
            stage: Some(self.stage),
            token: None,
            operand: None,
            message,
        });
    }

    fn check_token(&mut self, t: RawToken) {
        let Some(op) = Opcode::from_code(t.opcode) else {
            let rule = if t.opcode > Opcode::MAX_CODE {
                Rule::OpcodeOutOfRange
            } else {
                Rule::OpcodeNotImplemented
            };
            self.at(
                rule,
                Some(Field::Opcode),
                format!("opcode {:#x} is not in the AGAL opcode table", t.opcode),
            );
            return;
        };
        if op.min_version() > self.version {
            self.at(
                Rule::OpcodeNeedsVersion2,
                Some(Field::Opcode),
                format!(
                    "{op} needs AGAL version 2, the program is version {}",
                    self.version
                ),
            );
        }
        if op.fragment_only() && self.stage == Stage::Vertex {
            self.at(
                Rule::FragmentOnlyOpcode,
                Some(Field::Opcode),
                format!("{op} is only allowed in fragment programs"),
            );
        }
        match op {
            Opcode::Tex => self.tex_tokens += 1,
            Opcode::Ife | Opcode::Ine | Opcode::Ifg | Opcode::Ifl | Opcode::Els | Opcode::Eif => {}
            _ => self.alu_tokens += 1,
        }

        // 2. Each field on its own.
        let shape = op.shape();
        let dest = if shape.has_dest() {
            self.check_dest(op, t.dest)
        } else {
            if t.dest != 0 {
                self.at(
                    Rule::DestinationNotZero,
                    Some(Field::Destination),
                    format!(
                        "{op} has no destination, but the destination field is {:#010x}",
                        t.dest
                    ),
                );
            }
            None
        };
        let src1 = if shape.sources() >= 1 {
            self.check_source(op, t.src1, Field::Source1)
        } else {
            self.unused(op, t.src1, Field::Source1);
            None
        };
        let src2 = match shape {
            Shape::Texture => {
                self.check_sampler(op, t.src2);
                None
            }
            _ if shape.sources() >= 2 => self.check_source(op, t.src2, Field::Source2),
            _ => {
                self.unused(op, t.src2, Field::Source2);
                None
            }
        };

        // 3. Rules between operands.
        self.check_pair(op, t, src1.as_ref(), src2.as_ref());

        // 4. Reads.
        if let Some(s) = &src1 {
            self.read(op, s, Field::Source1);
        }
        if let Some(s) = &src2 {
            self.read(op, s, Field::Source2);
        }

        // 5. The destination's meaning, then the write.
        if let Some(d) = dest {
            self.write(op, d, src1.as_ref());
        }

        // 6. Conditional structure.
        self.flow_step(op);
    }

    /// Reports a non-zero field the opcode does not use.
    fn unused(&mut self, op: Opcode, field: u64, which: Field) {
        if field != 0 {
            self.at(
                Rule::UnusedNotZero,
                Some(which),
                format!("{op} does not use its {which}, but the field is {field:#018x}"),
            );
        }
    }

    fn finish(&mut self, count: usize) {
        self.info.tokens = count;
        self.flow_end();
        self.data_end();
        if let Some(max) = self.limits.native_alu {
            if self.alu_tokens > max {
                self.whole(
                    Rule::NativeAluLimit,
                    format!(
                        "{} ALU instructions; this profile's native shaders take {max}",
                        self.alu_tokens
                    ),
                );
            }
        }
        if let Some(max) = self.limits.native_texture {
            if self.tex_tokens > max {
                self.whole(
                    Rule::NativeTextureLimit,
                    format!(
                        "{} texture instructions; this profile's native shaders take {max}",
                        self.tex_tokens
                    ),
                );
            }
        }
        self.info.samplers.sort_by_key(|s| s.index);
    }
}

/// A register's name for messages, also for files the stage does not have.
pub(super) fn reg_name(stage: Stage, ty: RegType, index: u16) -> String {
    ty.register_name(stage, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_rules() {
        let code = |b: &[u8]| validate(b, Profile::Standard).unwrap_err()[0].code();
        assert_eq!(code(&[]), 3615);
        assert_eq!(code(&[0xa0, 99, 0, 0, 0, 0xa1, 1]), 3615);
        let mut p = vec![0xff; 7];
        p.extend_from_slice(&[0; 24]);
        assert_eq!(code(&p), 3616);
        p[0] = 0xa0;
        assert_eq!(code(&p), 3617);
        p[1..5].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(code(&p), 3618);
        p[5] = 0xa1;
        assert_eq!(code(&p), 3619);
        p[6] = 1;
        p.push(0);
        assert_eq!(code(&p), 3615);
        p.pop();
        p[1] = 3;
        assert_eq!(code(&p), 3725);
    }
}
