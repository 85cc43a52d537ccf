//! A SPIR-V assembler: `.spvasm` text in the syntax of SPIRV-Tools (docs/spirv-assembly-syntax)
//! to the binary form, driven by rspirv's grammar tables.
//!
//! The output is what `spirv-as` writes for the same text and options, word for word, except
//! the generator word (ours is 0, "unregistered"). That covers:
//! - `%name = OpX ...`, named and numeric ids, numbered in order of first appearance (or kept
//!   as written with [`Options::preserve_numeric_ids`], like `--preserve-numeric-ids`);
//! - strings with `\` escapes, integer and float literals typed by the result type of
//!   `OpConstant`/`OpSpecConstant` and the selector of `OpSwitch` (see [`literal`]);
//! - enumerants, `A|B` masks and the operands enumerants bring (`Location 3`);
//! - `OpSpecConstantOp` with opcode names without `Op`, and `OpExtInst` by instruction name
//!   through the set its import names;
//! - `!<integer>` raw words and the alternate parsing mode they start, which runs until the
//!   next opcode or `%id =`.
//!
//! Errors name the offending token: the diagnostic's text range gives line and column.

mod enums;
mod lexer;
pub mod literal;

use mir::hash::{HashMap, HashSet};
use std::ops::Range;

use mir::{Diagnostic, Diagnostics};
use rspirv::grammar::{LogicalOperand, OperandKind, OperandQuantifier};
use spirv::Op;

use crate::grammar;
use enums::Param;
use lexer::{Token, TokenKind};

/// How to assemble.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The SPIR-V version written in the header. `None` takes it from a `; Version: 1.N`
    /// comment line (spirv-dis writes one) before the first instruction, else 1.6 as spirv-as
    /// does.
    pub version: Option<(u8, u8)>,
    /// Give ids whose names are numbers (`%12`) that number, as `spirv-as
    /// --preserve-numeric-ids` does; other ids take the lowest numbers left free.
    pub preserve_numeric_ids: bool,
}

/// The assembled module and where each instruction came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    /// The module's words, header included.
    pub words: Vec<u32>,
    /// For each instruction (by ordinal − 1), its byte range in the text.
    pub inst_text: Vec<Range<usize>>,
    /// The name each id had in the text (`%color` → 12), sorted by id.
    pub id_names: Vec<(u32, String)>,
}

/// The rule identifier of assembly errors.
pub const RULE: crate::rules::FrontRule = crate::rules::FrontRule::AsmSyntax;

/// An assembly error while assembling: what, and which bytes of the text.
#[derive(Debug)]
struct AsmError {
    message: String,
    range: Range<usize>,
}

impl AsmError {
    fn into_diagnostic(self) -> Diagnostic {
        let mut d = Diagnostic::error(RULE, self.message);
        d.text_range = Some(self.range);
        d.reference = Some(
            "SPIRV-Tools assembly syntax (what spirv-as reads and spirv-dis writes): one \
             instruction per line, `%result = OpName operands`, ids as `%name`, strings in \
             double quotes, `;` comments"
                .into(),
        );
        d
    }
}

/// Assembles `text`.
pub fn assemble(text: &str, options: &Options) -> Result<Assembled, Diagnostics> {
    assemble_text(text, options).map_err(|e| Diagnostics::from(e.into_diagnostic()))
}

fn assemble_text(text: &str, options: &Options) -> Result<Assembled, AsmError> {
    let tokens = lexer::tokenize(text).map_err(|e| error(e.message, e.range))?;
    if text.trim().is_empty() {
        return Err(error("the assembly text is empty", 0..0));
    }
    let version = options
        .version
        .or_else(|| version_comment(text))
        .unwrap_or((1, 6));
    let mut asm = Assembler::new(&tokens, options.preserve_numeric_ids);
    while asm.pos < tokens.len() {
        asm.instruction()?;
    }
    let bound = asm.ids.bound();
    let mut words = vec![
        spirv::MAGIC_NUMBER,
        (u32::from(version.0) << 16) | (u32::from(version.1) << 8),
        0,
        bound,
        0,
    ];
    words.extend_from_slice(&asm.out);
    let mut id_names: Vec<(u32, String)> = asm
        .ids
        .by_name
        .into_iter()
        .map(|(name, id)| (id, name))
        .collect();
    id_names.sort();
    Ok(Assembled {
        words,
        inst_text: asm.inst_text,
        id_names,
    })
}

fn error(message: impl Into<String>, range: Range<usize>) -> AsmError {
    AsmError {
        message: message.into(),
        range,
    }
}

/// The version from a `; Version: 1.N` comment among the leading comment lines.
fn version_comment(text: &str) -> Option<(u8, u8)> {
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let comment = line.strip_prefix(';')?.trim();
        if let Some(v) = comment.strip_prefix("Version:") {
            let (major, minor) = v.trim().split_once('.')?;
            return Some((major.parse().ok()?, minor.parse().ok()?));
        }
    }
    None
}

/// Id numbering: names in order of first appearance, or numbers kept as written.
struct Ids {
    by_name: HashMap<String, u32>,
    reserved: HashSet<u32>,
    next: u32,
    max: u32,
}

impl Ids {
    fn new(tokens: &[Token], preserve_numeric: bool) -> Self {
        let mut ids = Ids {
            by_name: HashMap::default(),
            reserved: HashSet::default(),
            next: 1,
            max: 0,
        };
        if preserve_numeric {
            for t in tokens {
                if let TokenKind::Id(name) = &t.kind {
                    if let Some(n) = numeric_id(name) {
                        ids.by_name.insert(name.clone(), n);
                        ids.reserved.insert(n);
                        ids.max = ids.max.max(n);
                    }
                }
            }
        }
        ids
    }

    fn get(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.by_name.get(name) {
            return n;
        }
        while self.reserved.contains(&self.next) {
            self.next += 1;
        }
        let n = self.next;
        self.next += 1;
        self.max = self.max.max(n);
        self.by_name.insert(name.to_string(), n);
        n
    }

    fn bound(&self) -> u32 {
        self.max + 1
    }
}

/// The number a name stands for under `--preserve-numeric-ids`: any unsigned `strtoul`
/// spelling (decimal, `0x` hex, leading-`0` octal) that fits in 32 bits.
fn numeric_id(name: &str) -> Option<u32> {
    if !name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    literal::parse_int(name)
        .filter(|l| !l.negative)
        .and_then(|l| u32::try_from(l.magnitude).ok())
}

/// What a numeric literal's type is, for `OpConstant` and `OpSwitch`.
#[derive(Clone, Copy)]
enum NumType {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

struct Assembler<'t> {
    tokens: &'t [Token],
    pos: usize,
    ids: Ids,
    /// Type ids of OpTypeInt/OpTypeFloat.
    num_types: HashMap<u32, NumType>,
    /// Result id → result type id, for OpSwitch selectors.
    value_types: HashMap<u32, u32>,
    /// OpExtInstImport result ids → set names.
    ext_sets: HashMap<u32, String>,
    out: Vec<u32>,
    inst_text: Vec<Range<usize>>,
}

/// The words of the instruction being assembled.
struct InstWords {
    words: Vec<u32>,
}

impl<'t> Assembler<'t> {
    fn new(tokens: &'t [Token], preserve_numeric: bool) -> Self {
        Assembler {
            tokens,
            pos: 0,
            ids: Ids::new(tokens, preserve_numeric),
            num_types: HashMap::default(),
            value_types: HashMap::default(),
            ext_sets: HashMap::default(),
            out: Vec::new(),
            inst_text: Vec::new(),
        }
    }

    fn peek(&self) -> Option<&'t Token> {
        self.tokens.get(self.pos)
    }

    fn next_token(&mut self) -> Option<&'t Token> {
        let t = self.tokens.get(self.pos);
        self.pos += t.is_some() as usize;
        t
    }

    /// The range of the token just consumed (or the end of the text).
    fn last_range(&self) -> Range<usize> {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(0..0, |t| t.range.clone())
    }

    /// Whether the token at `pos` starts an instruction: an opcode, or `%id =`.
    fn starts_instruction(&self, pos: usize) -> bool {
        match self.tokens.get(pos).map(|t| &t.kind) {
            // `Op` and a capital letter: an opcode, or a misspelt one that should be reported
            // as such rather than as a stray operand. No enumerant is spelt that way.
            Some(TokenKind::Word(w)) => {
                opcode_class(w).is_some()
                    || w.strip_prefix("Op")
                        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
            }
            Some(TokenKind::Id(_)) => {
                matches!(
                    self.tokens.get(pos + 1).map(|t| &t.kind),
                    Some(TokenKind::Equals)
                )
            }
            _ => false,
        }
    }

    fn at_operand(&self) -> bool {
        self.pos < self.tokens.len() && !self.starts_instruction(self.pos)
    }

    fn instruction(&mut self) -> Result<(), AsmError> {
        let start = self.tokens[self.pos].range.start;
        let result = match (&self.tokens[self.pos].kind, self.tokens.get(self.pos + 1)) {
            (
                TokenKind::Id(name),
                Some(Token {
                    kind: TokenKind::Equals,
                    ..
                }),
            ) => {
                self.pos += 2;
                Some((name.clone(), self.tokens[self.pos - 2].range.clone()))
            }
            _ => None,
        };
        let Some(token) = self.next_token() else {
            return Err(error("expected an opcode after `=`", self.last_range()));
        };
        let mut inst = InstWords { words: vec![0] };
        match &token.kind {
            TokenKind::Word(word) => {
                let Some(class) = opcode_class(word) else {
                    let message = if word.starts_with("Op") {
                        format!("unknown opcode `{word}`")
                    } else {
                        format!("expected an opcode, found `{word}`")
                    };
                    return Err(error(message, token.range.clone()));
                };
                self.operands(class, result, &mut inst, token.range.clone())?;
                inst.words[0] = ((inst.words.len() as u32) << 16) | class.opcode as u32;
            }
            TokenKind::Raw(raw) if result.is_none() => {
                inst.words[0] = raw_word(raw, token.range.clone())?;
                self.alternate_mode(&mut inst)?;
            }
            TokenKind::Raw(_) => {
                return Err(error(
                    "an opcode given as !<integer> cannot follow `%id =`; write the whole \
                     instruction as !<integer> words instead",
                    token.range.clone(),
                ));
            }
            other => {
                return Err(error(
                    format!("expected an opcode, found {}", describe(other)),
                    token.range.clone(),
                ));
            }
        }
        self.out.extend_from_slice(&inst.words);
        self.inst_text.push(start..self.last_range().end);
        Ok(())
    }

    fn operands(
        &mut self,
        class: &'static rspirv::grammar::Instruction<'static>,
        result: Option<(String, Range<usize>)>,
        inst: &mut InstWords,
        op_range: Range<usize>,
    ) -> Result<(), AsmError> {
        let start = result.as_ref().map_or(op_range.start, |r| r.1.start);
        let has_result = class
            .operands
            .iter()
            .any(|o| o.kind == OperandKind::IdResult);
        if let Some((_, range)) = &result {
            if !has_result {
                return Err(error(
                    format!(
                        "Op{} has no result id, so it cannot be assigned to",
                        class.opname
                    ),
                    range.clone(),
                ));
            }
        } else if has_result {
            return Err(error(
                format!(
                    "Op{} produces a result: write `%name = Op{} ...`",
                    class.opname, class.opname
                ),
                op_range,
            ));
        }
        let mut result_id = None;
        let mut result_type = None;
        let mut raw = false;
        for operand in class.operands {
            if raw {
                break;
            }
            let LogicalOperand { kind, quantifier } = operand;
            if *kind == OperandKind::IdResult {
                let (name, _) = result.as_ref().expect("checked above");
                let id = self.ids.get(name);
                result_id = Some(id);
                inst.words.push(id);
                continue;
            }
            loop {
                if !self.at_operand() {
                    if *quantifier == OperandQuantifier::One {
                        let range = self.peek().map_or(self.last_range(), |t| t.range.clone());
                        return Err(error(
                            format!(
                                "Op{} expects {} operand here",
                                class.opname,
                                kind_name(*kind)
                            ),
                            range,
                        ));
                    }
                    break;
                }
                if let Some(TokenKind::Raw(_)) = self.peek().map(|t| &t.kind) {
                    raw = true;
                    self.alternate_mode(inst)?;
                    break;
                }
                match kind {
                    OperandKind::IdResultType => {
                        let id = self.id()?;
                        result_type = Some(id);
                        inst.words.push(id);
                    }
                    OperandKind::LiteralContextDependentNumber => {
                        let ty = result_type.and_then(|t| self.num_types.get(&t).copied());
                        self.typed_number(ty, "Type for Constant", inst)?;
                    }
                    OperandKind::PairLiteralIntegerIdRef => {
                        let selector = inst.words.get(1).copied();
                        let ty = selector
                            .and_then(|s| self.value_types.get(&s))
                            .and_then(|t| self.num_types.get(t).copied());
                        self.typed_number(ty, "Type for Switch selector", inst)?;
                        let id = self.id()?;
                        inst.words.push(id);
                    }
                    OperandKind::LiteralExtInstInteger => {
                        let set = inst.words.get(3).copied().unwrap_or(0);
                        self.ext_inst(set, inst)?;
                        raw = true; // the extended instruction's own operands are done
                    }
                    OperandKind::LiteralSpecConstantOpInteger => {
                        self.spec_constant_op(inst)?;
                    }
                    _ => self.operand(*kind, inst)?,
                }
                if *quantifier != OperandQuantifier::ZeroOrMore || raw {
                    break;
                }
            }
        }
        if !raw {
            if let Some(t) = self.peek() {
                // A raw word after the last operand starts the next instruction.
                if !self.starts_instruction(self.pos) && !matches!(t.kind, TokenKind::Raw(_)) {
                    return Err(error(
                        format!(
                            "Op{} takes no more operands; expected the next instruction, found {}",
                            class.opname,
                            describe(&t.kind)
                        ),
                        t.range.clone(),
                    ));
                }
            }
        }
        if inst.words.len() > 0xffff {
            return Err(error(
                format!(
                    "Op{} has {} words, more than the 65535 a word count can hold",
                    class.opname,
                    inst.words.len()
                ),
                start..self.last_range().end,
            ));
        }
        self.track(class.opcode, result_id, result_type, inst);
        Ok(())
    }

    /// Records what later literals need: numeric types, value types, instruction sets.
    fn track(&mut self, op: Op, result: Option<u32>, result_type: Option<u32>, inst: &InstWords) {
        let Some(id) = result else { return };
        if let Some(ty) = result_type {
            self.value_types.insert(id, ty);
        }
        match op {
            Op::TypeInt if inst.words.len() >= 4 => {
                let (width, signed) = (inst.words[2], inst.words[3] != 0);
                self.num_types.insert(id, NumType::Int { width, signed });
            }
            Op::TypeFloat if inst.words.len() >= 3 => {
                self.num_types.insert(
                    id,
                    NumType::Float {
                        width: inst.words[2],
                    },
                );
            }
            Op::ExtInstImport => {
                let name = words_to_string(&inst.words[2..]);
                self.ext_sets.insert(id, name);
            }
            _ => {}
        }
    }

    /// A literal whose width comes from a type (`OpConstant`, `OpSwitch`).
    fn typed_number(
        &mut self,
        ty: Option<NumType>,
        what: &str,
        inst: &mut InstWords,
    ) -> Result<(), AsmError> {
        let token = self.next_token().expect("caller checked at_operand");
        let TokenKind::Word(text) = &token.kind else {
            return Err(error(
                format!("expected a number, found {}", describe(&token.kind)),
                token.range.clone(),
            ));
        };
        let words = match ty {
            Some(NumType::Int { width, signed }) if matches!(width, 8 | 16 | 32 | 64) => {
                literal::encode_int(text, width, signed)
            }
            Some(NumType::Float { width }) if matches!(width, 16 | 32 | 64) => {
                literal::encode_float(text, width)
            }
            _ => Err(format!(
                "{what} must be a scalar integer or floating-point type of 8 to 64 bits \
                 declared before this instruction"
            )),
        };
        inst.words
            .extend(words.map_err(|m| error(m, token.range.clone()))?);
        Ok(())
    }

    fn id(&mut self) -> Result<u32, AsmError> {
        let token = self.next_token().expect("caller checked at_operand");
        match &token.kind {
            TokenKind::Id(name) if is_id_name(name) => Ok(self.ids.get(name)),
            TokenKind::Id(name) => Err(error(
                format!(
                    "`%{name}` is not a valid id: ids are `%` followed by letters, digits and `_`"
                ),
                token.range.clone(),
            )),
            other => Err(error(
                format!("expected an id (`%name`), found {}", describe(other)),
                token.range.clone(),
            )),
        }
    }

    /// One operand of a kind that needs no context.
    fn operand(&mut self, kind: OperandKind, inst: &mut InstWords) -> Result<(), AsmError> {
        match kind {
            OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics => {
                let id = self.id()?;
                inst.words.push(id);
            }
            OperandKind::PairIdRefIdRef => {
                let a = self.id()?;
                inst.words.push(a);
                self.expect_operand("a second id")?;
                let b = self.id()?;
                inst.words.push(b);
            }
            OperandKind::PairIdRefLiteralInteger => {
                let a = self.id()?;
                inst.words.push(a);
                self.expect_operand("a literal integer")?;
                self.literal_integer(inst)?;
            }
            OperandKind::LiteralInteger => self.literal_integer(inst)?,
            OperandKind::LiteralFloat => {
                let token = self.next_token().expect("caller checked at_operand");
                let TokenKind::Word(text) = &token.kind else {
                    return Err(error(
                        format!("expected a float, found {}", describe(&token.kind)),
                        token.range.clone(),
                    ));
                };
                let words =
                    literal::encode_float(text, 32).map_err(|m| error(m, token.range.clone()))?;
                inst.words.extend(words);
            }
            OperandKind::LiteralString => {
                let token = self.next_token().expect("caller checked at_operand");
                let TokenKind::Str(s) = &token.kind else {
                    return Err(error(
                        format!("expected a quoted string, found {}", describe(&token.kind)),
                        token.range.clone(),
                    ));
                };
                inst.words.extend(string_words(s));
            }
            kind => self.enumerant(kind, inst)?,
        }
        Ok(())
    }

    fn expect_operand(&self, what: &str) -> Result<(), AsmError> {
        if self.at_operand() {
            Ok(())
        } else {
            Err(error(format!("expected {what} here"), self.last_range()))
        }
    }

    fn literal_integer(&mut self, inst: &mut InstWords) -> Result<(), AsmError> {
        let token = self.next_token().expect("caller checked at_operand");
        let TokenKind::Word(text) = &token.kind else {
            return Err(error(
                format!(
                    "expected a literal integer, found {}",
                    describe(&token.kind)
                ),
                token.range.clone(),
            ));
        };
        let words =
            literal::encode_int(text, 32, false).map_err(|m| error(m, token.range.clone()))?;
        inst.words.extend(words);
        Ok(())
    }

    /// A value enumerant or mask of `kind`, and the parameters it brings.
    fn enumerant(&mut self, kind: OperandKind, inst: &mut InstWords) -> Result<(), AsmError> {
        let token = self.next_token().expect("caller checked at_operand");
        let TokenKind::Word(text) = &token.kind else {
            return Err(error(
                format!(
                    "expected {}, found {}",
                    kind_name(kind),
                    describe(&token.kind)
                ),
                token.range.clone(),
            ));
        };
        let range = token.range.clone();
        let mut params: Vec<&'static [Param]> = Vec::new();
        if enums::is_mask(kind) {
            let mut mask = 0u32;
            for name in text.split('|') {
                let bit = enums::mask_bit(kind, name).ok_or_else(|| {
                    error(
                        format!("`{name}` is not a {} name", kind_name(kind)),
                        range.clone(),
                    )
                })?;
                mask |= bit;
            }
            inst.words.push(mask);
            for i in 0..32 {
                let bit = 1u32 << i;
                if mask & bit != 0 {
                    params.push(enums::mask_params(kind, bit));
                }
            }
        } else {
            let value = enums::value(kind, text).ok_or_else(|| {
                let what = match kind {
                    OperandKind::Debuginfo(_)
                    | OperandKind::NonsemanticClspvreflection(_)
                    | OperandKind::NonsemanticShaderDebuginfo100(_)
                    | OperandKind::OpenclDebuginfo100(_) => {
                        "an extended instruction set's own enumerant, which this assembler \
                         does not know"
                            .to_string()
                    }
                    _ => format!("a {} name", kind_name(kind)),
                };
                error(format!("`{text}` is not {what}"), range.clone())
            })?;
            inst.words.push(value);
            params.push(enums::value_params(kind, value));
        }
        for param in params.into_iter().flatten() {
            if !self.at_operand() {
                return Err(error(
                    format!("`{text}` must be followed by {}", param_name(*param)),
                    range.clone(),
                ));
            }
            if let Some(TokenKind::Raw(_)) = self.peek().map(|t| &t.kind) {
                // The rest of the instruction is raw words.
                return self.alternate_mode(inst);
            }
            match *param {
                Param::Literal => self.literal_integer(inst)?,
                Param::Id => {
                    let id = self.id()?;
                    inst.words.push(id);
                }
                Param::Str => self.operand(OperandKind::LiteralString, inst)?,
                Param::Enum(kind) => self.enumerant(kind, inst)?,
            }
        }
        Ok(())
    }

    /// `OpExtInst`'s instruction, by name through the set's grammar, and its operands.
    fn ext_inst(&mut self, set: u32, inst: &mut InstWords) -> Result<(), AsmError> {
        let token = self.next_token().expect("caller checked at_operand");
        let TokenKind::Word(text) = &token.kind else {
            return Err(error(
                format!(
                    "expected an extended instruction name or number, found {}",
                    describe(&token.kind)
                ),
                token.range.clone(),
            ));
        };
        let table = self
            .ext_sets
            .get(&set)
            .and_then(|name| rspirv::grammar::ext_inst_table(name));
        let class = match literal::parse_int(text) {
            Some(lit) if !lit.negative && lit.magnitude <= u32::MAX as u64 => {
                let number = lit.magnitude as u32;
                inst.words.push(number);
                table.and_then(|t| t.lookup_opcode(number))
            }
            _ => {
                let Some(table) = table else {
                    return Err(error(
                        format!(
                            "`{text}` cannot be looked up: the instruction set of %{set} is \
                             not one this assembler knows by name; give the instruction's number"
                        ),
                        token.range.clone(),
                    ));
                };
                let class = table
                    .iter()
                    .find(|c| c.opname == text.as_str())
                    .ok_or_else(|| {
                        let set_name = self.ext_sets.get(&set).cloned().unwrap_or_default();
                        error(
                            format!("`{text}` is not an instruction of {set_name}"),
                            token.range.clone(),
                        )
                    })?;
                inst.words.push(class.opcode.into());
                Some(class)
            }
        };
        match class {
            Some(class) => {
                for operand in class.operands {
                    loop {
                        if !self.at_operand() {
                            break;
                        }
                        if let Some(TokenKind::Raw(_)) = self.peek().map(|t| &t.kind) {
                            return self.alternate_mode(inst);
                        }
                        self.operand(operand.kind, inst)?;
                        if operand.quantifier != OperandQuantifier::ZeroOrMore {
                            break;
                        }
                    }
                }
            }
            None => {
                // An instruction we have no grammar for: its operands are ids.
                while self.at_operand() {
                    if let Some(TokenKind::Raw(_)) = self.peek().map(|t| &t.kind) {
                        return self.alternate_mode(inst);
                    }
                    let id = self.id()?;
                    inst.words.push(id);
                }
            }
        }
        Ok(())
    }

    /// `OpSpecConstantOp`'s operation (an opcode name without `Op`) and its operands.
    fn spec_constant_op(&mut self, inst: &mut InstWords) -> Result<(), AsmError> {
        let token = self.next_token().expect("caller checked at_operand");
        let TokenKind::Word(text) = &token.kind else {
            return Err(error(
                format!("expected an opcode name, found {}", describe(&token.kind)),
                token.range.clone(),
            ));
        };
        let class = grammar::instruction_by_name(text)
            .filter(|c| grammar::spec_constant_op_allowed(c.opcode as u32))
            .ok_or_else(|| {
                error(
                    format!(
                        "`{text}` is not an operation OpSpecConstantOp allows (write the \
                         opcode name without `Op`, e.g. IAdd)"
                    ),
                    token.range.clone(),
                )
            })?;
        inst.words.push(class.opcode as u32);
        for operand in class.operands {
            if matches!(
                operand.kind,
                OperandKind::IdResultType | OperandKind::IdResult
            ) {
                continue;
            }
            loop {
                if !self.at_operand() {
                    if operand.quantifier == OperandQuantifier::One {
                        return Err(error(
                            format!("{text} expects {} operand here", kind_name(operand.kind)),
                            self.last_range(),
                        ));
                    }
                    break;
                }
                if let Some(TokenKind::Raw(_)) = self.peek().map(|t| &t.kind) {
                    return self.alternate_mode(inst);
                }
                self.operand(operand.kind, inst)?;
                if operand.quantifier != OperandQuantifier::ZeroOrMore {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The alternate parsing mode: every token up to the next instruction is one or more
    /// words, emitted without checking.
    fn alternate_mode(&mut self, inst: &mut InstWords) -> Result<(), AsmError> {
        while self.at_operand() {
            let token = self.next_token().expect("at_operand");
            match &token.kind {
                TokenKind::Raw(raw) => inst.words.push(raw_word(raw, token.range.clone())?),
                TokenKind::Id(_) => {
                    self.pos -= 1;
                    let id = self.id()?;
                    inst.words.push(id);
                }
                TokenKind::Str(s) => inst.words.extend(string_words(s)),
                TokenKind::Word(text) => inst.words.push(free_number(text).ok_or_else(|| {
                    error(
                        format!(
                            "`{text}` cannot be used after !<integer>: only ids, numbers, \
                             strings and further !<integer> words are (enumerants must be \
                             written as !<integer> too)"
                        ),
                        token.range.clone(),
                    )
                })?),
                TokenKind::Equals => {
                    return Err(error(
                        "unexpected `=` after !<integer>",
                        token.range.clone(),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The grammar of an opcode word `OpX`.
fn opcode_class(word: &str) -> Option<&'static rspirv::grammar::Instruction<'static>> {
    grammar::instruction_by_name(word.strip_prefix("Op")?)
}

/// A `!<integer>` word: any `strtoul` spelling that fits in 32 bits.
fn raw_word(text: &str, range: Range<usize>) -> Result<u32, AsmError> {
    literal::parse_int(text)
        .filter(|l| !l.negative && l.magnitude <= u32::MAX as u64)
        .map(|l| l.magnitude as u32)
        .ok_or_else(|| error(format!("`!{text}` is not a 32-bit unsigned integer"), range))
}

/// A number in the alternate parsing mode: a 32-bit integer (negative ones in two's
/// complement) or a 32-bit float.
fn free_number(text: &str) -> Option<u32> {
    if let Some(lit) = literal::parse_int(text) {
        return if lit.negative {
            (lit.magnitude <= 1 << 31).then(|| (lit.magnitude as i64).wrapping_neg() as u32)
        } else {
            (lit.magnitude <= u32::MAX as u64).then_some(lit.magnitude as u32)
        };
    }
    // spirv-as takes a word as a float here only when it has a decimal point.
    text.contains('.')
        .then(|| literal::encode_float(text, 32).ok().map(|w| w[0]))
        .flatten()
}

fn is_id_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A string's words: UTF-8 bytes, a terminating NUL, zero padding to a word boundary.
pub(crate) fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn words_to_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn describe(kind: &TokenKind) -> String {
    match kind {
        TokenKind::Id(name) => format!("`%{name}`"),
        TokenKind::Equals => "`=`".into(),
        TokenKind::Str(s) => format!("the string \"{s}\""),
        TokenKind::Raw(r) => format!("`!{r}`"),
        TokenKind::Word(w) => format!("`{w}`"),
    }
}

fn kind_name(kind: OperandKind) -> String {
    match kind {
        OperandKind::IdRef | OperandKind::IdResultType => "an id".into(),
        OperandKind::LiteralInteger => "a literal integer".into(),
        OperandKind::LiteralString => "a string".into(),
        OperandKind::LiteralContextDependentNumber => "a number".into(),
        other => format!("{other:?}"),
    }
}

fn param_name(param: Param) -> String {
    match param {
        Param::Literal => "a literal integer".into(),
        Param::Id => "an id".into(),
        Param::Str => "a string".into(),
        Param::Enum(kind) => kind_name(kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<u32> {
        assemble(text, &Options::default()).unwrap().words
    }

    #[test]
    fn the_syntax_documents_first_example() {
        // Word for word what spirv-as (v2023.1) writes, generator word aside.
        let w = words(
            "OpCapability Shader OpMemoryModel Logical Simple OpEntryPoint GLCompute %3 \"main\" \
             OpExecutionMode %3 LocalSize 64 64 1 %1 = OpTypeVoid %2 = OpTypeFunction %1 \
             %3 = OpFunction %1 None %2 %4 = OpLabel OpReturn OpFunctionEnd",
        );
        let expected = [
            0x07230203, 0x00010600, 0, 5, 0, 0x00020011, 1, 0x0003000e, 0, 0, 0x0005000f, 5, 1,
            0x6e69616d, 0, 0x00060010, 1, 0x11, 0x40, 0x40, 1, 0x00020013, 2, 0x00030021, 3, 2,
            0x00050036, 2, 1, 0, 3, 0x000200f8, 4, 0x000100fd, 0x00010038,
        ];
        assert_eq!(w, expected);
    }

    #[test]
    fn preserved_numeric_ids_reserve_their_numbers_first() {
        let options = Options {
            version: None,
            preserve_numeric_ids: true,
        };
        let a = assemble(
            "%7 = OpTypeVoid\n%a = OpTypeBool\n%100 = OpTypeInt 32 0\n%b = OpTypeFloat 32\n%2 = OpTypeInt 16 0\n",
            &options,
        )
        .unwrap();
        assert_eq!(a.words[3], 101);
        assert_eq!(
            &a.words[5..],
            &[
                0x00020013, 7, 0x00020014, 1, 0x00040015, 100, 32, 0, 0x00030016, 3, 32,
                0x00040015, 2, 16, 0
            ]
        );
    }

    #[test]
    fn alternate_mode_runs_to_the_next_opcode() {
        let w = words("OpCapability Shader !0x00040015 %x 32 -1 1.5 \"ab\" OpCapability Shader");
        assert_eq!(
            &w[5..],
            &[
                0x00020011,
                1,
                0x00040015,
                1,
                0x20,
                0xffff_ffff,
                0x3fc0_0000,
                0x6261,
                0x00020011,
                1
            ]
        );
    }

    #[test]
    fn errors_point_at_the_token() {
        let text = "OpCapability Shader\n%i = OpTypeInt 32 0\n%c = OpConstant %i -1\n";
        let err = assemble(text, &Options::default()).unwrap_err().0.remove(0);
        assert!(err.is(RULE));
        let rendered = err.render("t.spvasm", Some(text));
        assert!(rendered.contains("t.spvasm:3:20"), "{rendered}");
        let err = assemble("OpFoo", &Options::default())
            .unwrap_err()
            .0
            .remove(0);
        assert!(err.message.contains("unknown opcode `OpFoo`"));
        let err = assemble("OpTypeVoid", &Options::default())
            .unwrap_err()
            .0
            .remove(0);
        assert!(err.message.contains("produces a result"), "{}", err.message);
    }

    #[test]
    fn version_comes_from_the_disassembler_header() {
        let a = assemble(
            "; SPIR-V\n; Version: 1.3\nOpCapability Shader\n",
            &Options::default(),
        )
        .unwrap();
        assert_eq!(a.words[1], 0x0001_0300);
    }
}
