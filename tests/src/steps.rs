//! Executed steps: what a compiled program runs for one vertex or fragment, counted by the
//! simulators (PICA200 instruction words, `end` included; AGAL tokens, a conditional block's
//! only when its condition held) at stated values. What users feel on these GPUs is the
//! instructions executed per vertex or pixel, which for a program with a branch, loop or
//! call is not its length.
//!
//! The stated values: every input lane [`INPUT`], every uniform lane [`UNIFORM`] (a loop
//! bounded by a count uniform makes three trips), every texture the built-in one
//! (`preview`'s checkerboard or gradient).

use spv2retro::Compiled;

/// Every input lane.
pub const INPUT: f32 = 0.5;
/// Every uniform lane.
pub const UNIFORM: f32 = 3.0;

/// The stated values for a compiled program, by its reflection's names.
pub fn stated(c: &Compiled) -> preview::Values {
    let r = &c.reflection;
    preview::Values {
        inputs: r
            .inputs
            .iter()
            .map(|i| (i.name.clone(), vec![INPUT; 4]))
            .collect(),
        uniforms: r
            .uniforms
            .iter()
            .map(|u| {
                // As many lanes as the uniform's registers hold from its first lane.
                let lanes = (u.count.max(1) as usize * 4).saturating_sub(usize::from(u.component));
                (u.name.clone(), vec![UNIFORM; lanes])
            })
            .collect(),
        textures: Vec::new(),
    }
}

/// The steps `c` executes at the stated values (`None` for the texture combiners, which run
/// every stage).
pub fn executed(c: &Compiled) -> Result<Option<u64>, String> {
    let program = preview::Program {
        bytes: &c.bytes,
        reflection: &c.reflection,
    };
    let out = preview::run(program, &stated(c)).map_err(|e| e.to_string())?;
    Ok(out.steps)
}

/// Whether a compiled program branches, loops or calls (PICA200 `ifc`/`ifu`/`loop`/`call…`/
/// `jmp…`/`breakc`; AGAL `ife`/`ine`/`ifg`/`ifl`): its steps may differ from its length.
pub fn has_control_flow(c: &Compiled) -> bool {
    if c.reflection.target == "agal" {
        let Ok(p) = backend_agal::Program::decode(&c.bytes) else {
            return false;
        };
        return p
            .instructions
            .iter()
            .any(|i| i.opcode().shape() == backend_agal::opcode::Shape::Condition);
    }
    let Ok(binary) = backend_pica::shbin::read(&c.bytes) else {
        return false;
    };
    use backend_pica::inst::Inst;
    backend_pica::decode::decode_code(&binary.code, &binary.descriptors)
        .into_iter()
        .flatten()
        .any(|w| {
            matches!(
                w.inst,
                Inst::Break
                    | Inst::BreakC { .. }
                    | Inst::Call { .. }
                    | Inst::CallC { .. }
                    | Inst::CallU { .. }
                    | Inst::IfC { .. }
                    | Inst::IfU { .. }
                    | Inst::Loop { .. }
                    | Inst::JmpC { .. }
                    | Inst::JmpU { .. }
            )
        })
}

/// Whether a SPIR-V module has a branch, loop or call (`OpSelectionMerge`, `OpLoopMerge`,
/// `OpBranchConditional`, `OpSwitch`, `OpFunctionCall`): the programs whose steps the size
/// report gives.
pub fn spirv_has_control_flow(bytes: &[u8]) -> bool {
    const FLOW: [u32; 5] = [57, 246, 247, 250, 251];
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut at = 5;
    while at < words.len() {
        let (count, op) = (words[at] >> 16, words[at] & 0xffff);
        if FLOW.contains(&op) {
            return true;
        }
        at += count.max(1) as usize;
    }
    false
}
