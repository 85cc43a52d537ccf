//! The interpreter: registers per lane, one step per token, each opcode's arithmetic.

use super::texture::{effective, face_coords, project, sample};
use super::{COLOR_OUTPUTS, SimError, SimErrorKind, TEMPORARIES, Textures, VARYINGS, Vec4};
use crate::header::Stage;
use crate::inst::Inst;
use crate::opcode::{Opcode, Shape};
use crate::operand::{Address, Component, Dest, Mask, RegType, Source};
use crate::program::Program;
use crate::sampler::Dimension;

/// One lane's registers and outputs.
#[derive(Clone, Debug, Default)]
pub(super) struct Lane {
    pub temps: [Vec4; TEMPORARIES],
    pub position: Vec4,
    pub varyings: [Vec4; VARYINGS],
    pub varyings_written: [Mask; VARYINGS],
    pub colors: [Vec4; COLOR_OUTPUTS],
    pub depth: Option<f32>,
    pub discarded: bool,
    /// Tokens this lane executed: those it was active for (a conditional's `els` and `eif`
    /// when the conditional itself ran).
    pub steps: u64,
}

type Step<T> = Result<T, SimErrorKind>;

/// The machine: one lane per vertex or fragment, run in lock step.
pub(super) struct Machine<'a> {
    stage: Stage,
    /// Attributes (vertex) or varyings (fragment), per lane.
    inputs: Vec<&'a [Vec4]>,
    constants: &'a [Vec4],
    textures: &'a dyn Textures,
    pub instance_id: u32,
    pub lanes: Vec<Lane>,
    active: Vec<bool>,
    /// Per open conditional: the active mask before it, and the condition.
    blocks: Vec<(Vec<bool>, Vec<bool>)>,
}

impl<'a> Machine<'a> {
    pub fn new<const N: usize>(
        stage: Stage,
        inputs: [&'a [Vec4]; N],
        constants: &'a [Vec4],
        textures: &'a dyn Textures,
    ) -> Machine<'a> {
        Machine {
            stage,
            inputs: inputs.to_vec(),
            constants,
            textures,
            instance_id: 0,
            lanes: vec![Lane::default(); N],
            active: vec![true; N],
            blocks: Vec::new(),
        }
    }

    pub fn run(&mut self, program: &Program) -> Result<(), SimError> {
        for (i, inst) in program.instructions.iter().enumerate() {
            let counted = match inst.opcode().shape() {
                Shape::Bare => self.blocks.last().map_or(&self.active, |(prev, _)| prev),
                _ => &self.active,
            };
            for (lane, &on) in self.lanes.iter_mut().zip(counted) {
                lane.steps += u64::from(on);
            }
            self.step(inst)
                .map_err(|kind| SimError { token: i + 1, kind })?;
        }
        Ok(())
    }

    fn n(&self) -> usize {
        self.lanes.len()
    }

    fn fetch(&self, lane: usize, reg: RegType, index: u32) -> Step<Vec4> {
        let at = |slice: &[Vec4]| slice.get(index as usize).copied().unwrap_or_default();
        match (reg, self.stage) {
            (RegType::Attribute, Stage::Vertex) | (RegType::Varying, Stage::Fragment) => {
                Ok(self.inputs.get(lane).map_or([0.0; 4], |s| at(s)))
            }
            (RegType::Constant, _) => Ok(at(self.constants)),
            (RegType::Temporary, _) => self
                .lanes
                .get(lane)
                .and_then(|l| l.temps.get(index as usize))
                .copied()
                .ok_or(SimErrorKind::OutOfRange(reg, index)),
            (RegType::InstanceId, Stage::Vertex) => Ok([self.instance_id as f32, 0.0, 0.0, 0.0]),
            _ => Err(SimErrorKind::Unreadable(reg)),
        }
    }

    /// Register `row` after the one a source names, swizzled.
    fn read_row(&self, lane: usize, s: &Source, row: u32) -> Step<Vec4> {
        let index = match s.address {
            Address::Direct(n) => u32::from(n) + row,
            Address::Indirect(by) => {
                let v = self.fetch(lane, by.reg, u32::from(by.index))?;
                let base = v.get(by.select.index()).copied().unwrap_or_default();
                let i = base.trunc() as i64 + i64::from(by.offset) + i64::from(row);
                u32::try_from(i)
                    .ok()
                    .filter(|i| *i <= u32::from(u16::MAX))
                    .ok_or(SimErrorKind::BadRelativeIndex(i))?
            }
        };
        let raw = self.fetch(lane, s.reg, index)?;
        Ok(s.swizzle.lanes().map(|c| raw[c.index()]))
    }

    fn read(&self, lane: usize, s: &Source) -> Step<Vec4> {
        self.read_row(lane, s, 0)
    }

    fn read_all(&self, s: &Source) -> Step<Vec<Vec4>> {
        (0..self.n()).map(|l| self.read(l, s)).collect()
    }

    fn write(&mut self, lane: usize, d: &Dest, value: Vec4, lanes: Mask) -> Step<()> {
        let stage = self.stage;
        let Some(l) = self.lanes.get_mut(lane) else {
            return Ok(());
        };
        let index = usize::from(d.index);
        let oor = SimErrorKind::OutOfRange(d.reg, u32::from(d.index));
        let target: &mut Vec4 = match (d.reg, stage) {
            (RegType::Temporary, _) => l.temps.get_mut(index).ok_or(oor)?,
            (RegType::Output, Stage::Vertex) if index == 0 => &mut l.position,
            (RegType::Output, Stage::Fragment) => l.colors.get_mut(index).ok_or(oor)?,
            (RegType::Varying, Stage::Vertex) => {
                let w = l.varyings_written.get_mut(index).ok_or(oor)?;
                *w = w.or(lanes);
                l.varyings.get_mut(index).ok_or(oor)?
            }
            (RegType::Depth, Stage::Fragment) if index == 0 => {
                if lanes.contains(Component::X) {
                    l.depth = Some(value[0]);
                }
                return Ok(());
            }
            (RegType::Output | RegType::Depth, _) => return Err(oor),
            _ => return Err(SimErrorKind::Unwritable(d.reg)),
        };
        for c in Component::ALL {
            if lanes.contains(c) {
                target[c.index()] = value[c.index()];
            }
        }
        Ok(())
    }

    /// Writes per-lane results to the active lanes.
    fn write_all(&mut self, d: &Dest, values: &[Vec4], lanes: Mask) -> Step<()> {
        for (l, v) in values.iter().enumerate() {
            if self.active.get(l).copied().unwrap_or(false) {
                self.write(l, d, *v, lanes)?;
            }
        }
        Ok(())
    }

    fn step(&mut self, inst: &Inst) -> Step<()> {
        let op = inst.opcode();
        match op.shape() {
            Shape::Condition => {
                let (Some(a), Some(b)) = (inst.src1(), inst.src2()) else {
                    return Ok(());
                };
                let (a, b) = (self.read_all(a)?, self.read_all(b)?);
                let cond: Vec<bool> = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| compare(op, x[0], y[0]))
                    .collect();
                let prev = self.active.clone();
                self.active = prev.iter().zip(&cond).map(|(p, c)| *p && *c).collect();
                self.blocks.push((prev, cond));
                Ok(())
            }
            Shape::Bare => {
                if op == Opcode::Els {
                    let (prev, cond) = self.blocks.last().ok_or(SimErrorKind::Nesting)?;
                    self.active = prev.iter().zip(cond).map(|(p, c)| *p && !*c).collect();
                } else {
                    let (prev, _) = self.blocks.pop().ok_or(SimErrorKind::Nesting)?;
                    self.active = prev;
                }
                Ok(())
            }
            Shape::Kill => {
                let Some(a) = inst.src1() else { return Ok(()) };
                let values = self.read_all(a)?;
                for (l, v) in values.iter().enumerate() {
                    if v[0] < 0.0 && self.active.get(l).copied().unwrap_or(false) {
                        if let Some(lane) = self.lanes.get_mut(l) {
                            lane.discarded = true;
                        }
                    }
                }
                Ok(())
            }
            Shape::Texture => self.tex(inst),
            Shape::Unary | Shape::Binary | Shape::Matrix => {
                let (Some(d), Some(a)) = (inst.dest(), inst.src1()) else {
                    return Ok(());
                };
                let values = match op {
                    Opcode::Ddx | Opcode::Ddy => {
                        let v = self.read_all(a)?;
                        let bit = if op == Opcode::Ddx { 1 } else { 2 };
                        (0..v.len())
                            .map(|l| {
                                let lo = v.get(l & !bit).copied().unwrap_or_default();
                                let hi = v.get(l | bit).copied().unwrap_or(lo);
                                std::array::from_fn(|i| hi[i] - lo[i])
                            })
                            .collect()
                    }
                    _ => (0..self.n())
                        .map(|l| self.compute(op, l, a, inst.src2()))
                        .collect::<Step<Vec<Vec4>>>()?,
                };
                self.write_all(d, &values, d.mask.and(op.result_lanes()))
            }
        }
    }

    /// Arithmetic and matrix operations for one lane.
    fn compute(&self, op: Opcode, lane: usize, a: &Source, b: Option<&Source>) -> Step<Vec4> {
        let x = self.read(lane, a)?;
        if let Some(rows) = op.matrix_rows() {
            let Some(b) = b else { return Ok(x) };
            let mut out = [0.0; 4];
            for (i, slot) in out.iter_mut().enumerate().take(usize::from(rows)) {
                let row = self.read_row(lane, b, i as u32)?;
                *slot = if op == Opcode::M33 {
                    dot3(x, row)
                } else {
                    dot4(x, row)
                };
            }
            return Ok(out);
        }
        let y = match b {
            Some(b) => self.read(lane, b)?,
            None => [0.0; 4],
        };
        Ok(match op {
            Opcode::Dp3 => [dot3(x, y); 4],
            Opcode::Dp4 => [dot4(x, y); 4],
            Opcode::Crs => [
                x[1] * y[2] - x[2] * y[1],
                x[2] * y[0] - x[0] * y[2],
                x[0] * y[1] - x[1] * y[0],
                0.0,
            ],
            Opcode::Nrm => {
                let len = dot3(x, x).sqrt();
                [x[0] / len, x[1] / len, x[2] / len, 0.0]
            }
            _ => std::array::from_fn(|i| component(op, x[i], y[i])),
        })
    }

    fn tex(&mut self, inst: &Inst) -> Step<()> {
        let (Some(d), Some(c), Some(s)) = (inst.dest(), inst.src1(), inst.sampler()) else {
            return Ok(());
        };
        let tex = self
            .textures
            .texture(s.index)
            .ok_or(SimErrorKind::NoTexture(s.index))?;
        let cube = match s.dimension {
            Dimension::TwoD => false,
            Dimension::Cube => true,
            Dimension::ThreeD => return Err(SimErrorKind::TextureMismatch(s.index)),
        };
        if cube != tex.is_cube() {
            return Err(SimErrorKind::TextureMismatch(s.index));
        }
        let flags = effective(s, self.textures);
        let coords = self.read_all(c)?;
        let (w, h) = tex.size(0);
        let (w, h) = (w as f32, h as f32);
        let mut values = Vec::with_capacity(coords.len());
        for (l, coord) in coords.iter().enumerate() {
            if let Some(v) = tex.exact(*coord, s.bias()) {
                values.push(v);
                continue;
            }
            let at = project(s.dimension, *coord);
            let (face, u, v) = at;
            let footprint = |other: usize| {
                let n = coords.get(other).copied().unwrap_or(*coord);
                let (_, nu, nv) = if cube {
                    face_coords(face, n)
                } else {
                    (0, n[0], n[1])
                };
                ((nu - u) * w).hypot((nv - v) * h)
            };
            let lod = footprint(l ^ 1).max(footprint(l ^ 2)).log2();
            values.push(sample(tex, s, flags, at, lod));
        }
        self.write_all(d, &values, d.mask)
    }
}

fn dot3(a: Vec4, b: Vec4) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn dot4(a: Vec4, b: Vec4) -> f32 {
    dot3(a, b) + a[3] * b[3]
}

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

/// Component-wise operations.
fn component(op: Opcode, a: f32, b: f32) -> f32 {
    match op {
        Opcode::Mov => a,
        Opcode::Add => a + b,
        Opcode::Sub => a - b,
        Opcode::Mul => a * b,
        Opcode::Div => a / b,
        Opcode::Rcp => 1.0 / a,
        Opcode::Min => a.min(b),
        Opcode::Max => a.max(b),
        Opcode::Frc => a - a.floor(),
        Opcode::Sqt => a.sqrt(),
        Opcode::Rsq => 1.0 / a.sqrt(),
        Opcode::Pow => a.powf(b),
        Opcode::Log => a.log2(),
        Opcode::Exp => a.exp2(),
        Opcode::Sin => a.sin(),
        Opcode::Cos => a.cos(),
        Opcode::Abs => a.abs(),
        Opcode::Neg => -a,
        Opcode::Sat => {
            if a.is_nan() {
                0.0
            } else {
                a.clamp(0.0, 1.0)
            }
        }
        Opcode::Sge => flag(a >= b),
        Opcode::Slt => flag(a < b),
        Opcode::Seq => flag(a == b),
        Opcode::Sne => flag(a != b),
        _ => a,
    }
}

fn compare(op: Opcode, a: f32, b: f32) -> bool {
    match op {
        Opcode::Ife => a == b,
        Opcode::Ine => a != b,
        Opcode::Ifg => a >= b,
        _ => a < b,
    }
}
