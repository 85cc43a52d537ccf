//! What a source-language front end learned about a module that its SPIR-V cannot say, and
//! lowering applies: the GLSL front end (`frontend-glsl`) rewrites classic GLSL into the
//! Vulkan-style GLSL naga reads, and some of what the author wrote does not survive that
//! trip as SPIR-V (naga has no matrix layouts and no bool uniforms outside blocks). Each
//! hint names a uniform as the module declares it.

/// What lowering is told beyond the module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hints {
    /// Facts about uniforms, applied in order.
    pub uniforms: Vec<UniformHint>,
    /// Inputs and outputs the source names otherwise than the module: (as the module names
    /// it, as the author wrote it), e.g. `spv2retro_FragColor` is `gl_FragColor`, a matrix
    /// varying's columns `TBN[0]` …
    pub renames: Vec<(String, String)>,
}

/// A fact about one uniform (named as declared, without an array index).
#[derive(Clone, Debug, PartialEq)]
pub enum UniformHint {
    /// A loose scalar `uniform bool` the module holds as an int in a block of its own and
    /// reads as `int != 0`: it gets a bool register, as glslang gives it.
    Bool(String),
    /// A matrix (or array of matrices) written row-major, which the module stores as its
    /// transposed type and reads through `transpose`: its registers hold rows.
    RowMajor(String),
    /// The value the source gives the uniform (GLSL's `uniform float x = 0.5;`), which
    /// SPIR-V's uniforms cannot carry: lanes in register order, for the reflection.
    Default {
        /// The uniform.
        name: String,
        /// Its value, lanes in register order (a matrix's columns each padded to four).
        values: Vec<f32>,
    },
    /// A uniform the module stores as another type than the source declares (a `mat2`
    /// stored as two `vec4` columns): the reflection names the declared type.
    Declared {
        /// The uniform.
        name: String,
        /// Its type as declared (`mat2`, `mat3x2[4]`).
        type_name: String,
    },
}

impl Hints {
    /// Whether there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        self.uniforms.is_empty() && self.renames.is_empty()
    }
}

/// Applies `hints` to the lowered module `m`.
pub(super) fn apply(m: &mut mir::Module, hints: &Hints) {
    for (from, to) in &hints.renames {
        let author = |n: &mut String| {
            if n == from {
                n.clone_from(to);
            }
        };
        m.inputs.iter_mut().for_each(|i| author(&mut i.name));
        m.outputs.iter_mut().for_each(|o| author(&mut o.name));
    }
    let names = |bools: bool| -> Vec<&str> {
        hints
            .uniforms
            .iter()
            .filter_map(|h| match h {
                UniformHint::Bool(n) if bools => Some(n.as_str()),
                UniformHint::RowMajor(n) if !bools => Some(n.as_str()),
                _ => None,
            })
            .collect()
    };
    bool_registers(m, &names(true));
    row_major_layouts(m, &names(false));
    for h in &hints.uniforms {
        match h {
            UniformHint::Declared { name, type_name } => {
                for u in m.uniforms.iter_mut().filter(|u| u.name == *name) {
                    u.type_name = type_name.clone();
                }
            }
            UniformHint::Default { name, values } => {
                for u in m.uniforms.iter_mut().filter(|u| u.name == *name) {
                    u.default = Some(values.clone());
                }
            }
            _ => {}
        }
    }
}

/// Marks the uniforms of `names` (row-major matrices the rewrite stored column-major as
/// their transposed type) row-major, as they are in the registers: one row per register.
fn row_major_layouts(m: &mut mir::Module, names: &[&str]) {
    for u in &mut m.uniforms {
        let base = u.name.split('[').next().unwrap_or(&u.name);
        if names.contains(&base) && u.layout.is_some() {
            u.layout = Some(mir::module::MatrixLayout::RowMajor);
        }
    }
}

/// Gives each loose scalar `uniform bool` of `names` (an int in a block of its own, for
/// naga, read as `int != 0`) the bool register it has when glslang compiles the same text
/// (`b0`… on the PICA200, where testing it costs no instruction; AGAL moves bool registers
/// to float registers itself): its reads become bool-uniform reads. A uniform read any
/// other way keeps its int.
fn bool_registers(m: &mut mir::Module, names: &[&str]) {
    use mir::inst::{CmpOp, Op};
    let mut next = m
        .uniforms
        .iter()
        .filter(|u| u.is_bool)
        .map(|u| u.register + 1)
        .max()
        .unwrap_or(0);
    let f = &mut m.function;
    for name in names {
        let Some(u) = m
            .uniforms
            .iter_mut()
            .find(|u| u.name == *name && !u.is_bool && u.count == 1)
        else {
            continue;
        };
        let (register, component) = (u.register, u.component);
        // Every read of the uniform, and every comparison of it with zero.
        let loads: Vec<mir::Value> = f
            .layout
            .iter()
            .flat_map(|&b| f.blocks[b].insts.iter())
            .filter_map(|&i| {
                let inst = &f.insts[i];
                (inst.op == (Op::LoadUniform { register }) && inst.args.is_empty())
                    .then(|| inst.result())
                    .flatten()
            })
            .collect();
        let is_zero = |f: &mir::Function, o: &mir::Operand| {
            matches!(f.def_inst(o.value).map(|d| d.op), Some(Op::Const(bits))
                if f32::from_bits(bits[o.swizzle.lane(0) as usize & 3]) == 0.0)
        };
        let mut tests = Vec::new();
        let mut other_reads = false;
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                let inst = &f.insts[i];
                let reads: Vec<&mir::Operand> = inst
                    .args
                    .iter()
                    .filter(|a| loads.contains(&a.value))
                    .collect();
                if reads.is_empty() {
                    continue;
                }
                let test = inst.op == Op::Cmp(CmpOp::Ne)
                    && reads.len() == 1
                    && !reads[0].neg
                    && !reads[0].abs
                    && reads[0].swizzle.lane(0) == component
                    && inst.args.iter().any(|a| is_zero(f, a));
                if test {
                    tests.push(i);
                } else {
                    other_reads = true;
                }
            }
            if f.blocks[b]
                .term
                .operands()
                .iter()
                .any(|a| loads.contains(&a.value))
            {
                other_reads = true;
            }
        }
        if other_reads || tests.is_empty() {
            continue;
        }
        for i in tests {
            f.insts[i].op = Op::LoadBoolUniform { register: next };
            f.insts[i].args.clear();
        }
        u.register = next;
        u.component = 0;
        u.is_bool = true;
        u.type_name = "bool".into();
        next += 1;
    }
}
