//! A simulator for AGAL programs: float32 arithmetic with each opcode's documented semantics,
//! AGAL 2 conditionals, `kil`, and texture sampling through the [`Texture`] trait.
//!
//! Fragment programs run as a 2×2 quad, as GPUs run them, so that `ddx`/`ddy` and the mip
//! level of `tex` have neighbours to difference: lanes 0 1 on the top row, 2 3 below; `ddx` is
//! right minus left in the lane's row, `ddy` bottom minus top in its column (y grows
//! downwards). [`run_fragment`] runs one fragment by giving all four lanes the same inputs, so
//! its derivatives are 0. Conditionals run lock-step with a per-lane active mask.
//!
//! Choices where the documentation is silent:
//! - registers start at 0; attributes, varyings and constants beyond the slices given read 0;
//! - a relative index is `trunc(index lane) + offset` (an index below 0 or above 65535 is an
//!   error);
//! - `ife`/`ine`/`ifg`/`ifl` compare lane x of the swizzled sources; `ifg` is "greater than or
//!   equal" as the bytecode documentation says;
//! - `kil` discards when lane x of its swizzled source is below 0;
//! - `nrm`, `crs`, `m33` and `m34` write only x, y, z; `dp3`/`dp4` write their sum to every
//!   masked lane; `sat` of NaN is 0; other NaN behaviour is IEEE (Rust's `f32`).
//!
//! The simulator runs any decodable program; it does not enforce Flash's rules (run
//! [`crate::validate()`] for that) and reports only what makes execution impossible, such as a
//! read from an output register, as a [`SimError`].

mod exec;
mod texture;

pub use texture::{Image, SamplerState, Texture, Textures};

use crate::header::Stage;
use crate::operand::{Mask, RegType};
use crate::program::Program;
use std::fmt;

/// Four float32 lanes.
pub type Vec4 = [f32; 4];

/// How many temporaries the simulator has (the largest profile's).
pub const TEMPORARIES: usize = crate::limits::MAX_TEMPORARIES;
/// Varying registers the simulator keeps.
pub const VARYINGS: usize = 10;
/// Colour outputs the simulator keeps.
pub const COLOR_OUTPUTS: usize = 4;

/// What a vertex program reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct VertexInputs<'a> {
    /// `va0`, `va1` … (missing ones read 0).
    pub attributes: &'a [Vec4],
    /// `vc0`, `vc1` … (missing ones read 0).
    pub constants: &'a [Vec4],
    /// The instance number `iid` reads (in lane x).
    pub instance_id: u32,
}

/// What a vertex program wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexOutput {
    /// `op`.
    pub position: Vec4,
    /// `v0` … `v9`.
    pub varyings: Vec<Vec4>,
    /// The lanes written of each varying.
    pub varyings_written: Vec<Mask>,
    /// Tokens executed (a conditional block's, when its condition held).
    pub steps: u64,
}

/// What a fragment program reads besides its varyings.
#[derive(Clone, Copy)]
pub struct FragmentInputs<'a> {
    /// `fc0`, `fc1` … (missing ones read 0).
    pub constants: &'a [Vec4],
    /// The textures bound to the samplers.
    pub textures: &'a dyn Textures,
}

/// What a fragment program produced.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentOutput {
    /// Whether `kil` discarded the fragment.
    pub discarded: bool,
    /// `oc0` … `oc3` (`oc` is `oc0`).
    pub colors: [Vec4; COLOR_OUTPUTS],
    /// `od.x`, if written.
    pub depth: Option<f32>,
    /// Tokens executed for this fragment (a conditional block's, when its condition held).
    pub steps: u64,
}

/// Why a program could not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimErrorKind {
    /// The program reads a register that cannot be read here (an output, a sampler …).
    Unreadable(RegType),
    /// The program writes a register that cannot be written here.
    Unwritable(RegType),
    /// A register number beyond what the simulator has.
    OutOfRange(RegType, u32),
    /// A relative index below 0 or above 65535.
    BadRelativeIndex(i64),
    /// `tex` on a sampler with no texture bound.
    NoTexture(u16),
    /// The sampler's dimension does not match the bound texture (Flash #3754 at draw time).
    TextureMismatch(u16),
    /// `els` or `eif` without an open conditional.
    Nesting,
    /// A vertex program run with the fragment entry point or the reverse.
    WrongStage,
}

/// A [`SimErrorKind`] at a token (counting from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimError {
    /// The token.
    pub token: usize,
    /// What went wrong.
    pub kind: SimErrorKind,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "token {}: ", self.token)?;
        match self.kind {
            SimErrorKind::Unreadable(r) => {
                write!(f, "cannot read a {} register here", r.description())
            }
            SimErrorKind::Unwritable(r) => {
                write!(f, "cannot write a {} register here", r.description())
            }
            SimErrorKind::OutOfRange(r, i) => {
                write!(f, "{} register {i} does not exist", r.description())
            }
            SimErrorKind::BadRelativeIndex(i) => write!(f, "relative index {i} is out of range"),
            SimErrorKind::NoTexture(s) => write!(f, "no texture bound to fs{s}"),
            SimErrorKind::TextureMismatch(s) => write!(
                f,
                "the texture bound to fs{s} does not match the sampler's dimension"
            ),
            SimErrorKind::Nesting => f.write_str("els or eif without an open conditional"),
            SimErrorKind::WrongStage => f.write_str("the program is for the other stage"),
        }
    }
}

impl std::error::Error for SimError {}

/// Runs a vertex program for one vertex.
pub fn run_vertex(program: &Program, inputs: &VertexInputs<'_>) -> Result<VertexOutput, SimError> {
    if program.stage != Stage::Vertex {
        return Err(SimError {
            token: 0,
            kind: SimErrorKind::WrongStage,
        });
    }
    let mut m = exec::Machine::new(Stage::Vertex, [inputs.attributes], inputs.constants, &());
    m.instance_id = inputs.instance_id;
    m.run(program)?;
    let lane = m.lanes.into_iter().next().unwrap_or_default();
    Ok(VertexOutput {
        position: lane.position,
        varyings: lane.varyings.to_vec(),
        varyings_written: lane.varyings_written.to_vec(),
        steps: lane.steps,
    })
}

/// Runs a fragment program for one fragment (all four quad lanes get the same varyings, so
/// derivatives are 0).
pub fn run_fragment(
    program: &Program,
    varyings: &[Vec4],
    inputs: &FragmentInputs<'_>,
) -> Result<FragmentOutput, SimError> {
    let [first, ..] = run_fragment_quad(program, [varyings; 4], inputs)?;
    Ok(first)
}

/// Runs a fragment program for a 2×2 quad of fragments: top-left, top-right, bottom-left,
/// bottom-right.
pub fn run_fragment_quad(
    program: &Program,
    varyings: [&[Vec4]; 4],
    inputs: &FragmentInputs<'_>,
) -> Result<[FragmentOutput; 4], SimError> {
    if program.stage != Stage::Fragment {
        return Err(SimError {
            token: 0,
            kind: SimErrorKind::WrongStage,
        });
    }
    let mut m = exec::Machine::new(Stage::Fragment, varyings, inputs.constants, inputs.textures);
    m.run(program)?;
    Ok(std::array::from_fn(|i| {
        let lane = m.lanes.get(i).cloned().unwrap_or_default();
        FragmentOutput {
            discarded: lane.discarded,
            colors: lane.colors,
            depth: lane.depth,
            steps: lane.steps,
        }
    }))
}
