//! A simulator of the PICA200 shader unit that runs a `.shbin` (the bytes, decoded here, not the
//! compiler's instruction values) on given inputs and uniforms.
//!
//! It does what libctru and the hardware do, as far as they are documented:
//! - user uniforms are set first, then the DVLE's constant table is applied on top (libctru
//!   uploads it when the program is bound); float inputs and uniforms are rounded to f24;
//! - execution starts at the DVLE's entry point and stops at END, under a step limit;
//! - arithmetic follows the float model of `exec.rs`, flow control the stack model of `flow.rs` (CALL 4,
//!   IF 8, LOOP 4 deep; LOOP runs `i.x + 1` times with aL starting at `i.y`, stepping by `i.z`
//!   taken as a signed byte);
//! - writing an output component twice is an error (the hardware freezes), as is BREAK outside a
//!   loop (it hangs).
//!
//! Geometry shaders are simulated too: SETEMIT records the vertex id and flags, EMIT records a
//! snapshot of the outputs as an [`EmittedVertex`] and lets the outputs be written again. How
//! the primitive assembler combines emitted vertices is not modelled.

mod exec;
mod flow;

use crate::decode::{self, Decoded};
use crate::error::{DecodeError, ReadError};
use crate::inst::Inst;
use crate::operand::Mask;
use crate::shbin::{self, Constant, ShaderBinary, ShaderType};

use exec::Regs;
use flow::{CallEntry, IfEntry, LoopEntry, Stacks};

/// Uniform values, as the application would upload them.
#[derive(Clone, Debug, PartialEq)]
pub struct Uniforms {
    /// `c0`–`c95` (rounded to f24 when loaded).
    pub float: [[f32; 4]; 96],
    /// `i0`–`i3`: iteration count − 1, initial aL, aL step, unused.
    pub int: [[u8; 4]; 4],
    /// `b0`–`b15`.
    pub bool: [bool; 16],
}

impl Default for Uniforms {
    fn default() -> Uniforms {
        Uniforms {
            float: [[0.0; 4]; 96],
            int: [[0; 4]; 4],
            bool: [false; 16],
        }
    }
}

/// A vertex a geometry shader emitted.
#[derive(Clone, Debug, PartialEq)]
pub struct EmittedVertex {
    /// SETEMIT's vertex id.
    pub vertex: u8,
    /// SETEMIT's primitive flag.
    pub primitive: bool,
    /// SETEMIT's winding flag.
    pub winding: bool,
    /// The output registers at EMIT.
    pub outputs: [[f32; 4]; 16],
    /// Which components were written since the previous EMIT.
    pub written: [Mask; 16],
}

/// The result of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// `o0`–`o15` at END (unwritten components are 0).
    pub outputs: [[f32; 4]; 16],
    /// Which components of each output were written.
    pub written: [Mask; 16],
    /// Output components the DVLE's output table declares that were never written (vertex
    /// shaders only; the hardware needs every one written once).
    pub missing: Vec<(u8, Mask)>,
    /// Vertices a geometry shader emitted.
    pub vertices: Vec<EmittedVertex>,
    /// Instructions executed, END included.
    pub steps: u64,
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The bytes are not a valid `.shbin`.
    #[error("cannot read the shader binary: {0}")]
    Read(#[from] ReadError),
    /// There is no DVLE with this index.
    #[error("the binary has no DVLE {0}")]
    NoDvle(usize),
    /// Execution left the code.
    #[error("program counter {0:#05X} is outside the code")]
    PcOutOfRange(u32),
    /// An executed word does not decode.
    #[error("at {pc:#05X}: {error}")]
    Decode {
        /// Where.
        pc: u32,
        /// Why.
        error: DecodeError,
    },
    /// An output component was written a second time (the GPU would freeze).
    #[error("at {pc:#05X}: o{reg}.{component} written twice (the GPU freezes)")]
    OutputWrittenTwice {
        /// Where.
        pc: u32,
        /// The output register.
        reg: u8,
        /// `x`, `y`, `z` or `w`.
        component: char,
    },
    /// BREAK or a taken BREAKC with no loop running (the GPU would hang).
    #[error("at {pc:#05X}: break outside a loop (the GPU hangs)")]
    BreakOutsideLoop {
        /// Where.
        pc: u32,
    },
    /// EMIT before any SETEMIT.
    #[error("at {pc:#05X}: emit without setemit")]
    EmitWithoutSetemit {
        /// Where.
        pc: u32,
    },
    /// The step limit was reached.
    #[error("no END after {0} steps")]
    StepLimit(u64),
}

/// A loaded binary, ready to run.
#[derive(Clone, Debug)]
pub struct Simulator {
    binary: ShaderBinary,
    decoded: Vec<Result<Decoded, DecodeError>>,
    step_limit: u64,
}

/// The default step limit.
pub const DEFAULT_STEP_LIMIT: u64 = 1_000_000;

impl Simulator {
    /// Reads a `.shbin`.
    pub fn new(shbin: &[u8]) -> Result<Simulator, SimError> {
        let binary = shbin::read(shbin)?;
        let decoded = decode::decode_code(&binary.code, &binary.descriptors);
        Ok(Simulator {
            binary,
            decoded,
            step_limit: DEFAULT_STEP_LIMIT,
        })
    }

    /// The same simulator with another step limit.
    pub fn with_step_limit(mut self, limit: u64) -> Simulator {
        self.step_limit = limit;
        self
    }

    /// The binary it runs.
    pub fn binary(&self) -> &ShaderBinary {
        &self.binary
    }

    /// Runs DVLE `dvle` once with inputs `v0`–`v15`.
    pub fn run(
        &self,
        dvle: usize,
        inputs: &[[f32; 4]; 16],
        uniforms: &Uniforms,
    ) -> Result<Outcome, SimError> {
        let d = self.binary.dvles.get(dvle).ok_or(SimError::NoDvle(dvle))?;
        let mut regs = Regs::new();
        regs.v = inputs.map(|v| v.map(crate::float24::round_f32));
        regs.c = uniforms.float.map(|v| v.map(crate::float24::round_f32));
        regs.i = uniforms.int;
        regs.b = uniforms.bool;
        for c in &d.constants {
            match *c {
                Constant::Float { reg, value } => {
                    if let Some(slot) = regs.c.get_mut(usize::from(reg)) {
                        *slot = value.map(|f| f.to_f32());
                    }
                }
                Constant::Int { reg, value } => {
                    if let Some(slot) = regs.i.get_mut(usize::from(reg)) {
                        *slot = value;
                    }
                }
                Constant::Bool { reg, value } => {
                    if let Some(slot) = regs.b.get_mut(usize::from(reg)) {
                        *slot = value;
                    }
                }
            }
        }

        let mut stacks = Stacks::new();
        let mut emit: Option<(u8, bool, bool)> = None;
        let mut vertices = Vec::new();
        let mut pc = d.entry_start;
        let mut steps = 0u64;
        let masks = |w: &[u8; 16]| w.map(|m| Mask::new(m & 0xF).unwrap_or(Mask::NONE));
        loop {
            steps += 1;
            if steps > self.step_limit {
                return Err(SimError::StepLimit(self.step_limit));
            }
            let decoded = match self.decoded.get(pc as usize) {
                None => return Err(SimError::PcOutOfRange(pc)),
                Some(Err(e)) => {
                    return Err(SimError::Decode {
                        pc,
                        error: e.clone(),
                    });
                }
                Some(Ok(d)) => d,
            };
            let write = |regs: &mut Regs, dst, value| {
                regs.write(dst, value)
                    .map_err(|e| SimError::OutputWrittenTwice {
                        pc,
                        reg: e.reg,
                        component: ['x', 'y', 'z', 'w'][e.component & 3],
                    })
            };
            let cmp = regs.cmp;
            let test = |c: &crate::operand::Condition| c.eval(cmp[0], cmp[1]);
            let mut jump = None;
            match &decoded.inst {
                Inst::Binary {
                    op,
                    dst,
                    src1,
                    src2,
                    ..
                } => {
                    let value = regs.binary(*op, regs.read(src1), regs.read(src2));
                    write(&mut regs, dst, value)?;
                }
                Inst::Unary { op, dst, src } => {
                    let a = regs.read(src);
                    let value = regs.unary(*op, a);
                    write(&mut regs, dst, value)?;
                }
                Inst::Mova { mask, src } => {
                    let a = regs.read(src);
                    regs.mova(*mask, a);
                }
                Inst::Cmp { src1, x, y, src2 } => {
                    let (a, b) = (regs.read(src1), regs.read(src2));
                    regs.cmp = [x.eval(a[0], b[0]), y.eval(a[1], b[1])];
                }
                Inst::Mad {
                    dst,
                    src1,
                    src2,
                    src3,
                    ..
                } => {
                    let value = regs.mad(regs.read(src1), regs.read(src2), regs.read(src3));
                    write(&mut regs, dst, value)?;
                }
                Inst::Nop => {}
                Inst::End => break,
                Inst::Emit => {
                    let (vertex, primitive, winding) =
                        emit.ok_or(SimError::EmitWithoutSetemit { pc })?;
                    vertices.push(EmittedVertex {
                        vertex,
                        primitive,
                        winding,
                        outputs: regs.o,
                        written: masks(&regs.written),
                    });
                    regs.written = [0; 16];
                }
                Inst::SetEmit {
                    vertex,
                    primitive,
                    winding,
                } => emit = Some((*vertex, *primitive, *winding)),
                Inst::Break => jump = Some(self.break_loop(&mut stacks, pc)?),
                Inst::BreakC { cond } => {
                    if test(cond) {
                        jump = Some(self.break_loop(&mut stacks, pc)?);
                    }
                }
                Inst::Call { target, num } => {
                    stacks.calls.push(CallEntry {
                        end: target.addr() + u32::from(*num),
                        ret: pc + 1,
                    });
                    jump = Some(target.addr());
                }
                Inst::CallC { cond, target, num } => {
                    if test(cond) {
                        stacks.calls.push(CallEntry {
                            end: target.addr() + u32::from(*num),
                            ret: pc + 1,
                        });
                        jump = Some(target.addr());
                    }
                }
                Inst::CallU { b, target, num } => {
                    if regs.b[usize::from(b.index())] {
                        stacks.calls.push(CallEntry {
                            end: target.addr() + u32::from(*num),
                            ret: pc + 1,
                        });
                        jump = Some(target.addr());
                    }
                }
                Inst::IfC { cond, dst, num } => {
                    if test(cond) {
                        stacks.ifs.push(IfEntry {
                            end: dst.addr(),
                            resume: dst.addr() + u32::from(*num),
                        });
                    } else {
                        jump = Some(dst.addr());
                    }
                }
                Inst::IfU { b, dst, num } => {
                    if regs.b[usize::from(b.index())] {
                        stacks.ifs.push(IfEntry {
                            end: dst.addr(),
                            resume: dst.addr() + u32::from(*num),
                        });
                    } else {
                        jump = Some(dst.addr());
                    }
                }
                Inst::Loop { i, last } => {
                    let p = regs.i[usize::from(i.index())];
                    regs.al = i32::from(p[1]);
                    stacks.loops.push(LoopEntry {
                        start: pc + 1,
                        end: last.addr() + 1,
                        remaining: u32::from(p[0]),
                        step: i32::from(p[2] as i8),
                    });
                }
                Inst::JmpC { cond, target } => {
                    if test(cond) {
                        jump = Some(target.addr());
                    }
                }
                Inst::JmpU {
                    b,
                    if_false,
                    target,
                } => {
                    if regs.b[usize::from(b.index())] != *if_false {
                        jump = Some(target.addr());
                    }
                }
            }
            pc = stacks.next_pc(pc, jump, &mut regs.al);
        }

        let mut missing = Vec::new();
        if d.shader_type == ShaderType::Vertex {
            for o in &d.outputs {
                let have = regs.written.get(usize::from(o.reg)).copied().unwrap_or(0);
                let lacking = o.mask.bits() & !have;
                if lacking != 0 {
                    missing.push((o.reg, Mask::new(lacking).unwrap_or(Mask::NONE)));
                }
            }
        }
        Ok(Outcome {
            outputs: regs.o,
            written: masks(&regs.written),
            missing,
            vertices,
            steps,
        })
    }

    fn break_loop(&self, stacks: &mut Stacks, pc: u32) -> Result<u32, SimError> {
        stacks
            .loops
            .pop()
            .map(|l| l.end)
            .ok_or(SimError::BreakOutsideLoop { pc })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(body: &str, outputs: &str) -> Result<Outcome, SimError> {
        let text = format!("{outputs}\n.proc main\n{body}\n\tend\n.end\n");
        let bin = crate::asm::assemble_str("t.pica", &text).unwrap_or_else(|e| panic!("{e}"));
        let bytes = shbin::write(&bin).unwrap();
        Simulator::new(&bytes)?
            .with_step_limit(1000)
            .run(0, &[[1.0; 4]; 16], &Uniforms::default())
    }

    #[test]
    fn errors() {
        let e = run("\tmov o0, v0\n\tmov o0.y, v0", ".out - position o0").unwrap_err();
        assert_eq!(
            e,
            SimError::OutputWrittenTwice {
                pc: 1,
                reg: 0,
                component: 'y'
            }
        );
        let e = run("\tbreak", "").unwrap_err();
        assert_eq!(e, SimError::BreakOutsideLoop { pc: 0 });
        let e = run("top:\tnop\n\tjmpu !b0, top", "").unwrap_err();
        assert_eq!(e, SimError::StepLimit(1000));
        let e = run("\temit", "").unwrap_err();
        assert_eq!(e, SimError::EmitWithoutSetemit { pc: 0 });
        assert!(matches!(Simulator::new(b"DVLB"), Err(SimError::Read(_))));
        let bytes =
            shbin::write(&crate::asm::assemble_str("t", ".proc main\n\tend\n.end\n").unwrap())
                .unwrap();
        let s = Simulator::new(&bytes).unwrap();
        assert_eq!(
            s.run(3, &[[0.0; 4]; 16], &Uniforms::default()),
            Err(SimError::NoDvle(3))
        );
    }

    #[test]
    fn missing_outputs_are_reported() {
        let out = run("\tmov o0.xy, v0", ".out - position o0\n.out - color o1").unwrap();
        assert_eq!(
            out.missing,
            vec![(0, Mask::new(0xC).unwrap()), (1, Mask::XYZW)]
        );
        assert_eq!(out.written[0], Mask::new(0x3).unwrap());
    }

    #[test]
    fn loops_calls_and_ifs() {
        // LOOP runs i.x + 1 times, aL from i.y by i.z (a signed byte); constants override uniforms.
        let out = run(
            "\tmov r0, c90\n\tfor i0\n\t\tadd r0.x, c91, r0\n\t\tadd r0.y, c80[aL], r0\n\t.end\n\tmov o0, r0",
            ".out - position o0\n.seti i0(3, 5, 255, 0)\n.setf c91(1, 0, 0, 0)\n.setf c90(0, 0, 0, 0)\n.setf c85(1, 1, 1, 1)\n.setf c84(2, 2, 2, 2)\n.setf c83(4, 4, 4, 4)\n.setf c82(8, 8, 8, 8)",
        )
        .unwrap();
        assert_eq!(out.outputs[0], [4.0, 15.0, 0.0, 0.0]);
        // A call inside a loop body and an IF inside the called procedure.
        let text = ".out - position o0\n.setf c95(1, 0, 0, 0)\n.seti i1(2, 0, 1, 0)\n.proc inc\n\tcmp c95, eq, eq, r0\n\tifc !cmp.x\n\t\tadd r0.x, c95, r0\n\t.end\n\tnop\n.end\n.proc main\n\tmov r0, c94\n\tfor i1\n\t\tcall inc\n\t\tnop\n\t.end\n\tmov o0, r0\n\tend\n.end\n";
        let bin = crate::asm::assemble_str("t", text).unwrap();
        let s = Simulator::new(&shbin::write(&bin).unwrap()).unwrap();
        let out = s.run(0, &[[0.0; 4]; 16], &Uniforms::default()).unwrap();
        // r0.x goes 0 -> 1, then stays 1 (cmp.x true), three iterations.
        assert_eq!(out.outputs[0][0], 1.0);
    }
}
