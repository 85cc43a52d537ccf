//! The Stage3D runtime the program is for: Adobe's (Flash Player, AIR) by default, whose
//! rules the validator checks, or one that converts AGAL to another shading language and
//! mishandles some forms Adobe's runtime takes.
//!
//! OpenFL 8.9.6 on HTML5 (`openfl.display3D.Program3D.upload`) turns AGAL into GLSL ES with
//! its `AGALConverter` (`src/openfl/_internal/formats/agal/AGALConverter.hx` in the `openfl`
//! package), instruction by instruction, keeping a map of how each register is used:
//!
//! - `m34` (lines 332–363) becomes `dest.xyz = src * vcN;` when `vcN` has not been read as
//!   a vector before (line 346): a `vec3` or `vec4` times a `mat4` assigned to three lanes,
//!   which GLSL refuses; after such a read, three dot products (lines 351–362), whose `vec3`
//!   fits only a destination masked `.xyz`. `m33` into `.xy` (two rows) is a `vec2` times a
//!   `mat3`, or a `vec3`, assigned to two lanes (lines 270–297): refused either way.
//! - A constant register that `m44`, `m34` or `m33` reads as a matrix is declared
//!   `uniform mat4 vcN;`, and a later read of `vcN` as a vector throws "Cannot use register in
//!   multiple ways yet (mat4/vec4)" (`RegisterMap.add`, lines 601–622). Registers `N+1` to
//!   `N+3` read as vectors become `vec4` uniforms of their own, which `UniformMap.markDirty`
//!   (`src/openfl/display3D/Program3D.hx`, lines 1093–1124: it skips from a uniform to the
//!   end of its registers, line 1118) does not refresh when the matrix's registers are set
//!   again: they keep their old values until the program is set again.
//!
//! A matrix read through an index (`m34 vt0.xyz, vt1, vc[vt2.x+4]`) is an array to the
//! converter, which takes the dot-product path for it: that one is fine.
//!
//! Under [`Runtime::OpenFl`] the selector therefore writes no `m34` of direct rows, no
//! two-row `m33`, and no matrix instruction whose four registers (`mat4 vcN` takes four,
//! `m33` too) are also read otherwise (as a vector, by another matrix or by an indexed
//! read): their rows are `dp4` and `dp3` instead, which OpenFL converts as the `vec4`
//! uniforms they are. Everything else is the same program.

use std::fmt;
use std::str::FromStr;

use mir::func::{Function, Value};
use mir::hash::{HashMap, HashSet};
use mir::inst::Op;

use super::matrix::MatrixPlan;
use crate::opcode::Opcode;

/// The runtime a program is compiled for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Runtime {
    /// Adobe's Flash Player and AIR, and runtimes that read AGAL as they do (Ruffle): every
    /// form the AGAL documentation and Flash's validation allow.
    #[default]
    Flash,
    /// OpenFL's Stage3D (8.9.6 and earlier on HTML5 and native targets, through its
    /// AGAL-to-GLSL converter): no form it converts wrongly (see the module documentation).
    OpenFl,
}

impl Runtime {
    /// Every runtime.
    pub const ALL: [Runtime; 2] = [Runtime::Flash, Runtime::OpenFl];

    /// The command line's name: `flash` or `openfl`.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Flash => "flash",
            Runtime::OpenFl => "openfl",
        }
    }

    /// Whether a matrix instruction may be written for `plan` at all: for OpenFL, an `m34`
    /// only with indexed rows (which it reads as dot products with an array).
    pub(crate) fn allows_matrix(self, plan: &MatrixPlan) -> bool {
        self == Runtime::Flash || plan.op != Opcode::M34 || plan.index.is_some()
    }

    /// Whether two rows may make an `m34`/`m33` writing `.xy`.
    pub(crate) fn allows_two_rows(self) -> bool {
        self == Runtime::Flash
    }

    /// Drops the matrix plans this runtime cannot take (see the module documentation): for
    /// OpenFL, those whose four registers from the first are read otherwise than by the
    /// dot products of plans starting at the same register, or that reach past the last of
    /// the stage's `registers`. Plans read through an index are kept (OpenFL reads them as
    /// the array they are either way).
    pub(crate) fn keep_matrices(
        self,
        f: &Function,
        plans: &mut Vec<(Value, MatrixPlan)>,
        padded: &mut Vec<(Value, MatrixPlan)>,
        registers: u32,
    ) {
        if self == Runtime::Flash {
            return;
        }
        // Every uniform read: its register, whether it is indexed, and the values of the
        // instructions reading it (`None`: a terminator).
        let mut reads: Vec<(u32, bool, Vec<Option<Value>>)> = Vec::new();
        let mut at: HashMap<Value, usize> = HashMap::default();
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                let inst = &f.insts[i];
                if let (Op::LoadUniform { register }, Some(r)) = (inst.op, inst.result()) {
                    at.insert(r, reads.len());
                    reads.push((register, !inst.args.is_empty(), Vec::new()));
                }
            }
        }
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                let inst = &f.insts[i];
                for a in &inst.args {
                    if let Some(&k) = at.get(&a.value) {
                        reads[k].2.push(inst.result());
                    }
                }
            }
            for a in f.blocks[b].term.operands() {
                if let Some(&k) = at.get(&a.value) {
                    reads[k].2.push(None);
                }
            }
        }
        loop {
            let mut own: HashMap<u32, HashSet<Value>> = HashMap::default();
            for (_, p) in plans.iter().chain(padded.iter()) {
                if p.index.is_none() {
                    own.entry(p.register)
                        .or_default()
                        .extend(p.dots.iter().copied());
                }
            }
            let conflicts = |p: &MatrixPlan| {
                if p.index.is_some() {
                    return false;
                }
                if p.register.saturating_add(3) >= registers {
                    return true;
                }
                let dots = &own[&p.register];
                let span = p.register..p.register + 4;
                reads.iter().any(|(register, indexed, readers)| {
                    span.contains(register)
                        && (*indexed
                            || readers
                                .iter()
                                .any(|r| !r.is_some_and(|r| dots.contains(&r))))
                })
            };
            let before = plans.len() + padded.len();
            plans.retain(|(_, p)| !conflicts(p));
            padded.retain(|(_, p)| !conflicts(p));
            if plans.len() + padded.len() == before {
                return;
            }
        }
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A runtime name this compiler does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRuntime(pub String);

impl fmt::Display for UnknownRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown Stage3D runtime `{}` (expected flash or openfl)",
            self.0
        )
    }
}

impl std::error::Error for UnknownRuntime {}

impl FromStr for Runtime {
    type Err = UnknownRuntime;
    fn from_str(s: &str) -> Result<Runtime, UnknownRuntime> {
        Runtime::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| UnknownRuntime(s.to_string()))
    }
}
