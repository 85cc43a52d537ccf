//! picasso's directives: blocks (`.proc`, `.else`, `.end`), names (`.alias`), uniforms (`.fvec`,
//! `.ivec`, `.bool`), constants (`.constf`, `.consti`, `.constfa`, `.setf`, `.seti`, `.setb`),
//! the interface (`.in`, `.out`), and the DVLE itself (`.entry`, `.nodvle`, `.gsh`).

use super::AsmError;
use super::assembler::{
    Assembler, BlockKind, ConstDecl, FVEC_BASE, GlobalUniform, Space, UniformKind,
};
use super::operand::{Alias, Reg, mask_of, parse_operand, parse_swizzle};
use super::text::{
    self, blank_args, comma_args, is_identifier, paren_args, parse_float, parse_int,
};
use crate::limits;
use crate::operand::{Mask, Swizzle};
use crate::shbin::{Output, Semantic};

fn semantic(name: &str) -> Option<Semantic> {
    use Semantic::*;
    Some(match name.to_ascii_lowercase().as_str() {
        "pos" | "position" => Position,
        "nquat" | "normalquat" => NormalQuat,
        "clr" | "color" => Color,
        "tcoord0" | "texcoord0" => TexCoord0,
        "tcoord0w" | "texcoord0w" => TexCoord0W,
        "tcoord1" | "texcoord1" => TexCoord1,
        "tcoord2" | "texcoord2" => TexCoord2,
        "view" => View,
        "dummy" => Dummy,
        _ => return None,
    })
}

impl Assembler {
    pub(super) fn directive(&mut self, name: &str, rest: &str) -> Result<(), AsmError> {
        match name {
            "proc" => self.dir_proc(rest),
            "else" => self.dir_else(rest),
            "end" => self.dir_end(rest),
            "alias" => self.dir_alias(rest),
            "fvec" => self.dir_uniform(UniformKind::Float, rest),
            "ivec" => self.dir_uniform(UniformKind::Int, rest),
            "bool" => self.dir_uniform(UniformKind::Bool, rest),
            "constf" => self.dir_const(UniformKind::Float, rest),
            "consti" => self.dir_const(UniformKind::Int, rest),
            "constfa" => self.dir_constfa(rest),
            "setf" => self.dir_set(UniformKind::Float, rest),
            "seti" => self.dir_set(UniformKind::Int, rest),
            "setb" => self.dir_setb(rest),
            "in" => self.dir_in(rest),
            "out" => self.dir_out(rest),
            "entry" => self.dir_entry(rest),
            "nodvle" => self.dir_nodvle(rest),
            "gsh" => self.dir_gsh(rest),
            _ => Err(self.err(format!("invalid instruction: .{name}"))),
        }
    }

    fn new_alias(&mut self, name: &str, alias: Alias) -> Result<(), AsmError> {
        if self.file.aliases.contains_key(name) {
            return Err(self.err(format!("identifier already used: {name}")));
        }
        self.file.aliases.insert(name.to_string(), alias);
        Ok(())
    }

    fn dir_proc(&mut self, rest: &str) -> Result<(), AsmError> {
        let args = comma_args(rest);
        let [name] = args.as_slice() else {
            return Err(self.err("expected one procedure name"));
        };
        if !is_identifier(name) {
            return Err(self.err(format!("invalid procedure name: {name}")));
        }
        if self.procs.contains_key(*name)
            || self
                .stack
                .iter()
                .any(|b| matches!(&b.kind, BlockKind::Proc(p) if p == name))
        {
            return Err(self.err(format!("proc already exists: {name}")));
        }
        self.push_block(BlockKind::Proc(name.to_string()))
    }

    fn dir_alias(&mut self, rest: &str) -> Result<(), AsmError> {
        let args = blank_args(rest);
        let [name, reg] = args.as_slice() else {
            return Err(self.err(".alias takes a name and a register"));
        };
        if !is_identifier(name) {
            return Err(self.err(format!("invalid alias name: {name}")));
        }
        let mut chars = name.chars();
        if chars.next().is_some_and(|c| "ovrcib".contains(c))
            && chars.next().is_some_and(|c| c.is_ascii_digit())
        {
            return Err(self.err("cannot redefine register"));
        }
        let max = self.max_output();
        let op = parse_operand(reg, &self.file.aliases, false, max).map_err(|m| self.err(m))?;
        self.new_alias(
            name,
            Alias {
                reg: op.reg,
                swizzle: op.swizzle,
                negate: op.negate,
            },
        )
    }

    fn dir_uniform(&mut self, kind: UniformKind, rest: &str) -> Result<(), AsmError> {
        let shared = !self.dvle().uses_gsh_space();
        for arg in comma_args(rest) {
            // `.fvec name c4`: the register it must take (the proposed picasso syntax for
            // layouts shared between programs).
            let (arg, at) = match arg.split_once([' ', '\t']) {
                Some((decl, at)) => (decl.trim(), Some(at.trim())),
                None => (arg, None),
            };
            let (name, size) = match arg.find('[') {
                Some(open) => {
                    let inner = arg[open + 1..]
                        .strip_suffix(']')
                        .ok_or_else(|| self.err(format!("missing closing bracket: {arg}")))?;
                    let size = text::parse_uint(inner.trim())
                        .filter(|&s| s >= 1)
                        .ok_or_else(|| self.err(format!("invalid uniform size: {arg}")))?;
                    (arg[..open].trim(), size as u16)
                }
                None => (arg, 1),
            };
            if !is_identifier(name) {
                return Err(self.err(format!("invalid uniform name: {name}")));
            }
            if self.file.aliases.contains_key(name) {
                return Err(self.err(format!("identifier already used: {name}")));
            }
            let mut pos = None;
            if shared {
                if let Some(g) = self.globals.iter().find(|g| g.name == name) {
                    if g.kind != kind {
                        return Err(self.err(format!("mismatched uniform type: {name}")));
                    }
                    if g.size != size {
                        return Err(self.err(format!(
                            "uniform '{name}' previously declared as having size {}",
                            g.size
                        )));
                    }
                    pos = Some(g.pos);
                }
            }
            let wanted = match at {
                Some(at) => Some(self.uniform_position(kind, at, name)?),
                None => None,
            };
            if let (Some(p), Some(w)) = (pos, wanted) {
                if p != w {
                    return Err(self.err(format!(
                        "uniform '{name}' is already at another register in the shared space"
                    )));
                }
            }
            let pos = match (pos, wanted) {
                (Some(p), _) => p,
                (None, Some(w)) => self.space().get(kind).global_at(w, size).ok_or_else(|| {
                    self.err(format!(
                        "the register of '{name}' is taken or out of range: uniforms placed at \
                         a register go after those declared before them"
                    ))
                })?,
                (None, None) => {
                    self.space().get(kind).global(size).ok_or_else(|| {
                        self.err(format!("not enough uniform space: {name}[{size}]"))
                    })?
                }
            };
            if shared {
                self.globals.push(GlobalUniform {
                    name: name.to_string(),
                    pos,
                    size,
                    kind,
                });
            }
            if !name.starts_with('_') {
                self.dvle().uniforms.push((name.to_string(), pos, size));
            }
            self.new_alias(name, Alias::of(kind.reg(pos)))?;
        }
        Ok(())
    }

    /// The picasso position of register `at` (`c4`, `i1`, `b3`) for a uniform of `kind`.
    fn uniform_position(&self, kind: UniformKind, at: &str, name: &str) -> Result<u16, AsmError> {
        let (prefix, base, count) = match kind {
            UniformKind::Float => ('c', super::assembler::FVEC_BASE, 96),
            UniformKind::Int => ('i', super::assembler::IVEC_BASE, 4),
            UniformKind::Bool => ('b', super::assembler::BOOL_BASE, 16),
        };
        at.strip_prefix(prefix)
            .and_then(|n| n.parse::<u16>().ok())
            .filter(|n| *n < count)
            .map(|n| base + n)
            .ok_or_else(|| {
                self.err(format!(
                    "invalid register for uniform '{name}': {at} (expected {prefix}0 to \
                     {prefix}{})",
                    count - 1
                ))
            })
    }

    fn floats(&self, values: [&str; 4]) -> Result<[f32; 4], AsmError> {
        let mut out = [0.0; 4];
        for (o, v) in out.iter_mut().zip(values) {
            *o = parse_float(v).ok_or_else(|| self.err(format!("invalid number: {v}")))?;
        }
        Ok(out)
    }

    fn ints(&self, values: [&str; 4]) -> Result<[u8; 4], AsmError> {
        let mut out = [0; 4];
        for (o, v) in out.iter_mut().zip(values) {
            // picasso stores `atoi(v) & 0xFF`, so -1 becomes 255.
            *o = (parse_int(v).ok_or_else(|| self.err(format!("invalid integer: {v}")))? & 0xFF)
                as u8;
        }
        Ok(out)
    }

    fn push_constant(&mut self, c: ConstDecl) -> Result<(), AsmError> {
        if self.dvle().constants.len() == limits::MAX_CONSTANTS_PER_DVLE {
            return Err(self.err("too many local constants"));
        }
        self.dvle().constants.push(c);
        Ok(())
    }

    fn dir_const(&mut self, kind: UniformKind, rest: &str) -> Result<(), AsmError> {
        let (name, values) = paren_args(rest).ok_or_else(|| self.err("invalid syntax"))?;
        if !is_identifier(name) {
            return Err(self.err(format!("invalid identifier: {name}")));
        }
        if self.file.aliases.contains_key(name) {
            return Err(self.err(format!("identifier already used: {name}")));
        }
        let pos = self
            .space()
            .get(kind)
            .local(1)
            .ok_or_else(|| self.err(format!("not enough space for local constant '{name}'")))?;
        let decl = match kind.reg(pos) {
            Reg::Const(n) => ConstDecl::Float(n, self.floats(values)?),
            Reg::Int(n) => ConstDecl::Int(n, self.ints(values)?),
            _ => return Err(self.err("internal: boolean constant")),
        };
        self.push_constant(decl)?;
        self.new_alias(name, Alias::of(kind.reg(pos)))
    }

    fn dir_constfa(&mut self, rest: &str) -> Result<(), AsmError> {
        let in_array =
            matches!(self.stack.last(), Some(b) if matches!(b.kind, BlockKind::Array { .. }));
        if !in_array {
            let open = rest
                .find('[')
                .ok_or_else(|| self.err(format!("missing opening bracket: {rest}")))?;
            let close = rest
                .find(']')
                .ok_or_else(|| self.err(format!("missing closing bracket: {rest}")))?;
            if close < open || !rest[close + 1..].trim().is_empty() {
                return Err(self.err(format!("garbage found: {rest}")));
            }
            let name = rest[..open].trim();
            let inner = rest[open + 1..close].trim();
            let size = if inner.is_empty() {
                None
            } else {
                Some(
                    text::parse_uint(inner)
                        .filter(|&s| s > 0)
                        .ok_or_else(|| self.err(format!("invalid array size: {rest}")))?
                        as usize,
                )
            };
            if !is_identifier(name) {
                return Err(self.err(format!("invalid array name: {name}")));
            }
            self.dvle();
            return self.push_block(BlockKind::Array {
                name: name.to_string(),
                size,
                elems: Vec::new(),
            });
        }
        let body = rest.trim();
        let inner = body
            .strip_prefix('(')
            .and_then(|b| b.strip_suffix(')'))
            .ok_or_else(|| self.err("invalid syntax"))?;
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        let values: [&str; 4] = parts
            .try_into()
            .map_err(|_| self.err("expected four values"))?;
        let v = self.floats(values)?;
        if let Some(BlockKind::Array { size, elems, .. }) =
            self.stack.last_mut().map(|b| &mut b.kind)
        {
            if size.is_some_and(|s| elems.len() == s) {
                let s = size.unwrap_or(0);
                return Err(self.err(format!("too many elements in the array, expected {s}")));
            }
            elems.push(v);
        }
        Ok(())
    }

    /// `.end` of a `.constfa` block.
    pub(super) fn finish_array(
        &mut self,
        name: String,
        size: Option<usize>,
        mut elems: Vec<[f32; 4]>,
    ) -> Result<(), AsmError> {
        if self.file.aliases.contains_key(&name) {
            return Err(self.err(format!("identifier already used: {name}")));
        }
        if let Some(s) = size {
            elems.resize(s, [0.0; 4]);
        }
        if elems.is_empty() {
            return Err(self.err(format!("no elements have been specified in array '{name}'")));
        }
        let pos = u16::try_from(elems.len())
            .ok()
            .and_then(|n| self.space().fvec.local(n))
            .ok_or_else(|| {
                self.err(format!(
                    "not enough space for local constant array '{name}'"
                ))
            })?;
        if self.dvle().constants.len() + elems.len() > limits::MAX_CONSTANTS_PER_DVLE {
            return Err(self.err("too many local constants"));
        }
        for (i, v) in elems.iter().enumerate() {
            let reg = (pos - FVEC_BASE) as u8 + i as u8;
            self.dvle().constants.push(ConstDecl::Float(reg, *v));
        }
        self.new_alias(&name, Alias::of(Reg::Const((pos - FVEC_BASE) as u8)))
    }

    fn dir_set(&mut self, kind: UniformKind, rest: &str) -> Result<(), AsmError> {
        let (reg, values) = paren_args(rest).ok_or_else(|| self.err("invalid syntax"))?;
        let max = self.max_output();
        let op = parse_operand(reg, &self.file.aliases, false, max).map_err(|m| self.err(m))?;
        let decl = match (kind, op.reg) {
            (UniformKind::Float, Reg::Const(n)) => ConstDecl::Float(n, self.floats(values)?),
            (UniformKind::Int, Reg::Int(n)) => ConstDecl::Int(n, self.ints(values)?),
            (UniformKind::Float, _) => {
                return Err(self.err(format!("invalid floating point vector uniform: {reg}")));
            }
            _ => return Err(self.err(format!("invalid integer vector uniform: {reg}"))),
        };
        self.push_constant(decl)
    }

    fn dir_setb(&mut self, rest: &str) -> Result<(), AsmError> {
        let args = blank_args(rest);
        let [reg, value] = args.as_slice() else {
            return Err(self.err(".setb takes a register and a value"));
        };
        let max = self.max_output();
        let op = parse_operand(reg, &self.file.aliases, false, max).map_err(|m| self.err(m))?;
        let Reg::Bool(n) = op.reg else {
            return Err(self.err(format!("invalid boolean uniform: {reg}")));
        };
        let value = match value.to_ascii_lowercase().as_str() {
            "true" | "on" | "1" => true,
            "false" | "off" | "0" => false,
            _ => return Err(self.err(format!("invalid bool value: {value}"))),
        };
        self.push_constant(ConstDecl::Bool(n, value))
    }

    fn dir_in(&mut self, rest: &str) -> Result<(), AsmError> {
        let args = blank_args(rest);
        let (name, reg) = match args.as_slice() {
            [name] => (*name, None),
            [name, reg] => (*name, Some(*reg)),
            _ => return Err(self.err(".in takes a name and an optional register")),
        };
        if !is_identifier(name) {
            return Err(self.err(format!("invalid identifier: {name}")));
        }
        if self.file.aliases.contains_key(name) {
            return Err(self.err(format!("identifier already used: {name}")));
        }
        let n = match reg {
            Some(r) => {
                let max = self.max_output();
                match parse_operand(r, &self.file.aliases, false, max)
                    .map_err(|m| self.err(m))?
                    .reg
                {
                    Reg::Input(n) => n,
                    _ => return Err(self.err(format!("invalid input register: {r}"))),
                }
            }
            None => {
                let mask = self.dvle().input_mask;
                (0..16)
                    .find(|i| mask & (1 << i) == 0)
                    .ok_or_else(|| self.err("too many inputs"))?
            }
        };
        let d = self.dvle();
        d.input_mask |= 1 << n;
        d.uniforms.push((name.to_string(), u16::from(n), 1));
        self.new_alias(name, Alias::of(Reg::Input(n)))
    }

    fn dir_out(&mut self, rest: &str) -> Result<(), AsmError> {
        let args = blank_args(rest);
        let (name, kind, reg) = match args.as_slice() {
            [name, kind] => (*name, *kind, None),
            [name, kind, reg] => (*name, *kind, Some(*reg)),
            _ => return Err(self.err(".out takes a name, a semantic and an optional register")),
        };
        let name = if name == "-" {
            None
        } else if is_identifier(name) {
            Some(name)
        } else {
            return Err(self.err(format!("invalid identifier: {name}")));
        };
        let max = self.max_output();
        let (reg, swizzle, kind) = match reg {
            Some(r) => {
                let op =
                    parse_operand(r, &self.file.aliases, false, max).map_err(|m| self.err(m))?;
                let Reg::Output(n) = op.reg else {
                    return Err(self.err(format!("invalid output register: {r}")));
                };
                (Some(n), op.swizzle, kind)
            }
            None => match kind.split_once('.') {
                Some((k, m)) => {
                    let sw = parse_swizzle(m)
                        .ok_or_else(|| self.err(format!("invalid output mask: {m}")))?;
                    (None, sw, k)
                }
                None => (None, Swizzle::IDENTITY, kind),
            },
        };
        let mask = mask_of(swizzle);
        let semantic =
            semantic(kind).ok_or_else(|| self.err(format!("invalid output type: {kind}")))?;
        let d = self.dvle();
        let reg = match reg {
            // picasso keeps the used components of every register in one 32-bit word, shifted by
            // 4 x register: o8-o15 wrap onto o0-o7 (the x86 shift count is taken mod 32).
            Some(n) => {
                if d.output_used & (u32::from(mask) << ((4 * u32::from(n)) % 32)) != 0 {
                    return Err(
                        self.err("this output collides with another one previously defined")
                    );
                }
                n
            }
            None => (0..max)
                .find(|i| d.output_mask & (1 << i) == 0)
                .ok_or_else(|| self.err("too many outputs"))?,
        };
        if self.dvle().outputs.len() == limits::MAX_OUTPUTS_PER_DVLE {
            return Err(self.err("too many outputs"));
        }
        if let Some(n) = name {
            if self.file.aliases.contains_key(n) {
                return Err(self.err(format!("identifier already used: {n}")));
            }
        }
        if reg >= 7 && semantic != Semantic::Dummy {
            return Err(self.err(format!("this register (o{reg}) can only be a dummy output")));
        }
        let d = self.dvle();
        d.outputs.push(Output {
            semantic,
            reg,
            mask: Mask::new(mask).unwrap_or(Mask::XYZW),
        });
        d.output_mask |= 1 << reg;
        d.output_used |= u32::from(mask) << ((4 * u32::from(reg)) % 32);
        if semantic == Semantic::Dummy && d.uses_gsh_space() {
            d.merge = true;
        }
        if let Some(n) = name {
            self.new_alias(n, Alias::of(Reg::Output(reg)))?;
        }
        Ok(())
    }

    fn dir_entry(&mut self, rest: &str) -> Result<(), AsmError> {
        let args = blank_args(rest);
        let [name] = args.as_slice() else {
            return Err(self.err(".entry takes one name"));
        };
        if !is_identifier(name) {
            return Err(self.err(format!("invalid identifier: {name}")));
        }
        self.dvle().entry = name.to_string();
        Ok(())
    }

    fn dir_nodvle(&mut self, rest: &str) -> Result<(), AsmError> {
        if !rest.is_empty() {
            return Err(self.err("too many parameters"));
        }
        self.dvle().nodvle = true;
        Ok(())
    }

    fn dir_gsh(&mut self, rest: &str) -> Result<(), AsmError> {
        let args = blank_args(rest);
        let Some(mode) = args.first() else {
            let d = self.dvle();
            d.geo = true;
            d.compat_geo = true;
            return Ok(());
        };
        let d = self.dvle();
        if d.geo {
            return Err(self.err(".gsh had already been used"));
        }
        if !d.constants.is_empty() || !d.uniforms.is_empty() || d.output_mask != 0 {
            return Err(
                self.err(".gsh must be used before any constant, uniform or output is declared")
            );
        }
        let mode = match mode.to_ascii_lowercase().as_str() {
            "point" => 0,
            "variable" | "subdivision" => 1,
            "fixed" | "particle" => 2,
            _ => return Err(self.err(format!("invalid geometry shader mode: {mode}"))),
        };
        let expected = [2, 3, 4][usize::from(mode)];
        if args.len() != expected {
            return Err(self.err("wrong number of .gsh parameters"));
        }
        let float_reg = |a: &Assembler, text: &str| -> Result<u8, AsmError> {
            match parse_operand(text, &a.file.aliases, false, 16)
                .map_err(|m| a.err(m))?
                .reg
            {
                Reg::Const(n) => Ok(n),
                _ => Err(a.err(format!("invalid float uniform register: {text}"))),
            }
        };
        let count = |a: &Assembler, text: &str| -> Result<u8, AsmError> {
            text::parse_uint(text)
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(|| a.err(format!("invalid value: {text}")))
        };
        let first_free = float_reg(self, args[1])?;
        let mut geometry = crate::shbin::GeometryParams {
            mode,
            ..Default::default()
        };
        match mode {
            1 => geometry.variable_num = count(self, args[2])?,
            2 => {
                let start = float_reg(self, args[2])?;
                if start >= first_free {
                    return Err(self.err(format!(
                        "specified location overlaps uniform allocation pool: {}",
                        args[2]
                    )));
                }
                geometry.fixed_start = start;
                geometry.fixed_num = count(self, args[3])?;
            }
            _ => {}
        }
        let d = self.dvle();
        d.geo = true;
        d.geometry = geometry;
        self.gsh = Space::new(FVEC_BASE + u16::from(first_free), 0x97);
        Ok(())
    }
}
