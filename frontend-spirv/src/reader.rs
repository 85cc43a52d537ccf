//! Reading a SPIR-V binary into a [`Module`].
//!
//! Three steps, each guarding the next:
//! 1. the header: size, magic number in either byte order, version 1.0–1.6;
//! 2. a scan of the instruction words: every word count fits, every opcode exists, and every
//!    `OpSpecConstantOp` computes an opcode the spec allows. rspirv's parser trusts word counts
//!    when it slices out strings and panics on some `OpSpecConstantOp` payloads, so nothing
//!    reaches it until this scan has passed;
//! 3. rspirv's parser, feeding our [`Consumer`] that numbers each instruction, attaches the
//!    `OpLine` in effect, drops non-semantic instructions, and builds functions and blocks.
//!
//! Everything that goes wrong is a [`Diagnostic`] naming the instruction and its word offset.

use mir::hash::{HashMap, HashSet};

use mir::{Diagnostic, SourcePos, Span};
use rspirv::binary::{Consumer, ParseAction, ParseState};
use rspirv::dr;
use rspirv::grammar::reflect;
use spirv::{Op, Word};

use crate::grammar;
use crate::module::{Block, Function, Header, Inst, Module};
use crate::rules::Rule;

/// Reads `bytes` as a SPIR-V binary.
pub fn read(bytes: &[u8]) -> Result<Module, Box<Diagnostic>> {
    let (words, big_endian) = decode_words(bytes)?;
    let header = decode_header(&words, big_endian)?;
    let offsets = scan(&words)?;
    let (words_for_rspirv, trailing) = spec_constant_op_literals(&words, &offsets);
    let mut consumer = ModuleBuilder::new(header, &offsets);
    consumer.trailing = trailing;
    let result = rspirv::binary::parse_words(&words_for_rspirv, &mut consumer);
    if let Some(diag) = consumer.error.take() {
        return Err(Box::new(diag));
    }
    if let Err(state) = result {
        return Err(Box::new(parse_error(state, &consumer, &words, &offsets)));
    }
    Ok(consumer.finish())
}

/// The error for a [`Rule`], with the rule's citation attached.
pub(crate) fn rule_error(rule: Rule, message: impl Into<String>) -> Diagnostic {
    let mut d = Diagnostic::error(rule, message);
    d.reference = Some(rule.reference());
    d
}

fn decode_words(bytes: &[u8]) -> Result<(Vec<Word>, bool), Box<Diagnostic>> {
    let header_error =
        |message: String| Box::new(rule_error(Rule::PhysHeader, message).with_span(Span::HEADER));
    let Some(&[b0, b1, b2, b3]) = bytes.first_chunk::<4>() else {
        return Err(header_error(format!(
            "not a SPIR-V binary: the input is {} bytes long, shorter than the 20-byte SPIR-V \
             header",
            bytes.len()
        )));
    };
    let first = u32::from_le_bytes([b0, b1, b2, b3]);
    let big_endian = if first == spirv::MAGIC_NUMBER {
        false
    } else if first.swap_bytes() == spirv::MAGIC_NUMBER {
        true
    } else {
        // Text where a binary was expected is the usual mistake: show the bytes as text too.
        let shown = if [b0, b1, b2, b3]
            .iter()
            .all(|b| b.is_ascii_graphic() || *b == b' ')
        {
            format!(", {:?}", String::from_utf8_lossy(&[b0, b1, b2, b3]))
        } else {
            String::new()
        };
        let mut d = header_error(format!(
            "not a SPIR-V binary (magic 0x{first:08x}{shown}): a SPIR-V module starts with \
             0x07230203, in either byte order"
        ));
        if std::str::from_utf8(bytes).is_ok() {
            d.notes
                .push("the input is text; SPIR-V assembly text goes in a `.spvasm` file".into());
        }
        return Err(d);
    };
    if bytes.len() < 20 {
        return Err(header_error(format!(
            "the input is {} bytes long, shorter than the 20-byte SPIR-V header",
            bytes.len()
        )));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(Box::new(
            rule_error(
                Rule::PhysWordCount,
                format!(
                    "the input is {} bytes long, which is not a whole number of 32-bit words",
                    bytes.len()
                ),
            )
            .with_span(Span::HEADER),
        ));
    }
    let words = bytes
        .chunks_exact(4)
        .map(|c| {
            let w = [c[0], c[1], c[2], c[3]];
            if big_endian {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            }
        })
        .collect();
    Ok((words, big_endian))
}

fn decode_header(words: &[Word], big_endian: bool) -> Result<Header, Box<Diagnostic>> {
    let version = words[1];
    let (major, minor) = ((version >> 16) as u8, (version >> 8) as u8);
    if version & 0xff00_00ff != 0 || major != 1 || minor > 6 {
        return Err(Box::new(
            rule_error(
                Rule::PhysVersion,
                format!(
                    "the version word is 0x{version:08x}; this compiler reads SPIR-V 1.0 to 1.6 \
                 (0x00010000 to 0x00010600)"
                ),
            )
            .with_span(Span::HEADER),
        ));
    }
    if words[4] != 0 {
        return Err(Box::new(
            rule_error(
                Rule::PhysHeader,
                format!(
                    "header word 4 (reserved for an instruction schema) is 0x{:08x}; it must be 0",
                    words[4]
                ),
            )
            .with_span(Span::HEADER),
        ));
    }
    Ok(Header {
        version: (major, minor),
        generator: words[2],
        bound: words[3],
        big_endian,
    })
}

/// Checks the word structure and returns each instruction's word offset, in stream order.
fn scan(words: &[Word]) -> Result<Vec<u32>, Box<Diagnostic>> {
    let mut offsets = Vec::new();
    let mut at = 5usize;
    while at < words.len() {
        let ordinal = offsets.len() as u32 + 1;
        let span = Span::new(ordinal, at as u32);
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 {
            return Err(Box::new(
                rule_error(
                    Rule::PhysWordCount,
                    format!("instruction word 0x{:08x} has a word count of 0", words[at]),
                )
                .with_span(span),
            ));
        }
        if at + count > words.len() {
            return Err(Box::new(rule_error(
                Rule::PhysWordCount,
                format!(
                    "the instruction's word count is {count}, but only {} words remain in the module",
                    words.len() - at
                ),
            )
            .with_span(span)
            .with_note(raw_words(&words[at..]))));
        }
        let Some(class) = grammar::instruction(opcode) else {
            return Err(Box::new(
                rule_error(
                    Rule::PhysOpcode,
                    format!("opcode {opcode} is not a SPIR-V opcode"),
                )
                .with_span(span)
                .with_note(raw_words(&words[at..at + count])),
            ));
        };
        if class.opcode == Op::SpecConstantOp && count >= 4 {
            let inner = words[at + 3];
            if !grammar::spec_constant_op_allowed(inner) {
                let name = grammar::instruction(inner)
                    .map_or_else(|| format!("opcode {inner}"), |g| format!("Op{}", g.opname));
                return Err(Box::new(
                    rule_error(
                        Rule::PhysOperands,
                        format!("OpSpecConstantOp cannot compute {name}"),
                    )
                    .with_span(span)
                    .with_note(
                        "§3 OpSpecConstantOp lists the opcodes a specialization constant may use",
                    )
                    .with_note(raw_words(&words[at..at + count])),
                ));
            }
        }
        offsets.push(at as u32);
        at += count;
    }
    Ok(offsets)
}

/// rspirv reads an `OpSpecConstantOp`'s operation with each operand of the operation's
/// grammar taken once, so the second and later literals of `OpCompositeExtract`,
/// `OpCompositeInsert` (indexes) and `OpVectorShuffle` (components) are left over and it
/// reports "more words than its operands use". Those instructions reach rspirv shortened to
/// their first literal; the rest, by instruction ordinal, are appended to the parsed operands
/// afterwards. Returns the words for rspirv (a copy only when something was shortened).
fn spec_constant_op_literals<'w>(
    words: &'w [Word],
    offsets: &[u32],
) -> (std::borrow::Cow<'w, [Word]>, HashMap<u32, Vec<Word>>) {
    let mut trailing = HashMap::default();
    let mut cut: Vec<(usize, usize)> = Vec::new(); // (offset, words kept)
    for (k, &at) in offsets.iter().enumerate() {
        let at = at as usize;
        let count = (words[at] >> 16) as usize;
        if words[at] & 0xffff != Op::SpecConstantOp as u32 || count < 4 {
            continue;
        }
        // Words up to and including the first literal: the opcode word, result type, result
        // id, the operation, then its id operands.
        let keep = match words[at + 3] {
            x if x == Op::CompositeExtract as u32 => 6,
            x if x == Op::CompositeInsert as u32 || x == Op::VectorShuffle as u32 => 7,
            _ => continue,
        };
        if count > keep {
            trailing.insert(k as u32 + 1, words[at + keep..at + count].to_vec());
            cut.push((at, keep));
        }
    }
    if cut.is_empty() {
        return (std::borrow::Cow::Borrowed(words), trailing);
    }
    let mut out = Vec::with_capacity(words.len());
    let mut from = 0;
    for (at, keep) in cut {
        out.extend_from_slice(&words[from..at]);
        out.push(((keep as u32) << 16) | (words[at] & 0xffff));
        out.extend_from_slice(&words[at + 1..at + keep]);
        from = at + (words[at] >> 16) as usize;
    }
    out.extend_from_slice(&words[from..]);
    (std::borrow::Cow::Owned(out), trailing)
}

/// Up to eight words of an instruction in hex, for instructions that do not decode.
fn raw_words(words: &[Word]) -> String {
    let shown: Vec<String> = words.iter().take(8).map(|w| format!("0x{w:08x}")).collect();
    let more = if words.len() > 8 { " ..." } else { "" };
    format!("instruction words: {}{more}", shown.join(" "))
}

/// Turns an rspirv parse failure into a diagnostic on the instruction being parsed.
fn parse_error(
    state: ParseState,
    consumer: &ModuleBuilder,
    words: &[Word],
    offsets: &[u32],
) -> Diagnostic {
    // rspirv parses in stream order, so the failing instruction is the one after the last
    // one it handed to the consumer.
    let index = consumer.next_ordinal as usize - 1;
    let span = offsets
        .get(index)
        .map_or(Span::HEADER, |&at| Span::new(index as u32 + 1, at));
    let (name, raw) = match offsets.get(index) {
        Some(&at) => {
            let at = at as usize;
            let end = (at + (words[at] >> 16) as usize).min(words.len());
            let name = grammar::instruction(words[at] & 0xffff).map_or_else(
                || "the instruction".to_string(),
                |g| format!("Op{}", g.opname),
            );
            (name, raw_words(&words[at..end]))
        }
        None => ("the instruction".to_string(), String::new()),
    };
    let message = match state {
        ParseState::OperandExpected(..) => {
            format!("{name} is missing operands: its word count ends before a required operand")
        }
        ParseState::OperandExceeded(..) => {
            format!("{name} has more words than its operands use")
        }
        ParseState::OperandError(err) => format!("{name} {}", decode_error(&err)),
        ParseState::TypeUnsupported(..) => {
            format!("{name} has a literal whose type is not an integer or float of 8 to 64 bits")
        }
        ParseState::SpecConstantOpIntegerIncorrect(..) => {
            format!("{name} names an opcode that does not exist")
        }
        other => format!("{name} does not decode: {other}"),
    };
    let mut diag = rule_error(Rule::PhysOperands, message).with_span(span);
    if !raw.is_empty() {
        diag = diag.with_note(raw);
    }
    diag
}

/// Says what is wrong with an operand rspirv could not decode. Its messages give byte
/// offsets as "index"; ours name the problem.
fn decode_error(err: &rspirv::binary::DecodeError) -> String {
    use rspirv::binary::DecodeError as E;
    match err {
        E::StreamExpected(_) | E::LimitReached(_) => "runs out of words in the middle of an \
            operand: a required operand is missing, or a string has no terminating zero byte \
            within the instruction's word count"
            .to_string(),
        E::DecodeStringFailed(_, why) => format!("has a string that is not UTF-8 ({why})"),
        other => {
            // The remaining variants are `<Kind>Unknown(offset, value)`.
            let debug = format!("{other:?}");
            let kind = debug
                .split('(')
                .next()
                .unwrap_or("")
                .trim_end_matches("Unknown");
            let value = debug
                .trim_end_matches(')')
                .rsplit([',', ' '])
                .next()
                .unwrap_or("?");
            format!("has {value} as its {kind} operand, which names no {kind}")
        }
    }
}

/// Where the consumer is in the module's nesting.
enum Nesting {
    /// Before the first function, or between functions.
    Module,
    /// Inside a function, before its first block or between blocks.
    Function(Function),
    /// Inside a block of a function.
    Block(Function, Block),
}

/// The rspirv [`Consumer`] that builds our [`Module`].
struct ModuleBuilder<'a> {
    module: Module,
    offsets: &'a [u32],
    next_ordinal: u32,
    nesting: Nesting,
    /// The `OpLine` in effect; cleared by `OpNoLine` and at the end of each block.
    line: Option<SourcePos>,
    /// `OpString` result ids → index in `module.source_files`.
    strings: HashMap<Word, u32>,
    /// Ids of imported non-semantic instruction sets.
    non_semantic_sets: HashSet<Word>,
    /// Literals rspirv did not read, by instruction ordinal (see
    /// [`spec_constant_op_literals`]).
    trailing: HashMap<u32, Vec<Word>>,
    error: Option<Diagnostic>,
}

impl<'a> ModuleBuilder<'a> {
    fn new(header: Header, offsets: &'a [u32]) -> Self {
        ModuleBuilder {
            module: Module {
                header,
                globals: Vec::new(),
                functions: Vec::new(),
                source_files: Vec::new(),
                dropped_ids: Vec::new(),
                instruction_count: offsets.len() as u32,
                text_names: HashMap::default(),
            },
            offsets,
            next_ordinal: 1,
            nesting: Nesting::Module,
            line: None,
            strings: HashMap::default(),
            non_semantic_sets: HashSet::default(),
            trailing: HashMap::default(),
            error: None,
        }
    }

    fn finish(self) -> Module {
        self.module
    }

    fn fail(&mut self, rule: Rule, span: Span, message: String) -> ParseAction {
        self.error = Some(rule_error(rule, message).with_span(span));
        ParseAction::Stop
    }

    /// Handles `OpLine`/`OpNoLine`; they are not kept as instructions.
    fn track_line(&mut self, inst: &dr::Instruction, span: Span) -> ParseAction {
        if inst.class.opcode == Op::NoLine {
            self.line = None;
            return ParseAction::Continue;
        }
        let (Some(dr::Operand::IdRef(file)), Some(dr::Operand::LiteralBit32(line))) =
            (inst.operands.first(), inst.operands.get(1))
        else {
            return ParseAction::Continue;
        };
        let Some(&file) = self.strings.get(file) else {
            let message = format!("OpLine names %{file} as its file, which is not an OpString");
            return self.fail(Rule::IdKind, span, message);
        };
        let column = match inst.operands.get(2) {
            Some(dr::Operand::LiteralBit32(c)) => *c,
            _ => 0,
        };
        self.line = Some(SourcePos {
            file,
            line: *line,
            column,
        });
        ParseAction::Continue
    }

    /// Whether `inst` belongs to a non-semantic instruction set and is dropped.
    fn is_non_semantic(&mut self, inst: &dr::Instruction) -> bool {
        match inst.class.opcode {
            Op::ExtInstImport => {
                let name = match inst.operands.first() {
                    Some(dr::Operand::LiteralString(s)) => s.as_str(),
                    _ => return false,
                };
                let dropped = name.starts_with("NonSemantic.")
                    || name == "OpenCL.DebugInfo.100"
                    || name == "DebugInfo";
                if dropped {
                    self.non_semantic_sets.extend(inst.result_id);
                }
                dropped
            }
            Op::ExtInst => matches!(
                inst.operands.first(),
                Some(dr::Operand::IdRef(set)) if self.non_semantic_sets.contains(set)
            ),
            _ => false,
        }
    }

    fn add(&mut self, inst: dr::Instruction, span: Span) -> ParseAction {
        let opcode = inst.class.opcode;
        let inst = Inst { op: inst, span };
        let nesting = std::mem::replace(&mut self.nesting, Nesting::Module);
        self.nesting = match (nesting, opcode) {
            (Nesting::Module, Op::Function) => Nesting::Function(Function {
                end: inst.clone(),
                def: inst,
                params: Vec::new(),
                blocks: Vec::new(),
            }),
            (Nesting::Module, Op::FunctionEnd) => {
                return self.fail(
                    Rule::LayoutFunctionStructure,
                    span,
                    "OpFunctionEnd outside a function".into(),
                );
            }
            (Nesting::Module, Op::Label | Op::FunctionParameter) => {
                let message = format!("Op{:?} outside a function", opcode);
                return self.fail(Rule::LayoutFunctionStructure, span, message);
            }
            (Nesting::Module, _) if reflect::is_block_terminator(opcode) => {
                let message = format!("Op{:?} outside a block", opcode);
                return self.fail(Rule::LayoutFunctionStructure, span, message);
            }
            (Nesting::Module, _) => {
                if let Some(last) = self.module.functions.last() {
                    let message = format!(
                        "Op{:?} comes after function %{}; types, constants and global \
                         variables come before all functions",
                        opcode,
                        last.id()
                    );
                    return self.fail(Rule::LayoutSectionOrder, span, message);
                }
                self.module.globals.push(inst);
                Nesting::Module
            }
            (Nesting::Function(mut f), Op::FunctionParameter) if f.blocks.is_empty() => {
                f.params.push(inst);
                Nesting::Function(f)
            }
            (Nesting::Function(f), Op::Label) => Nesting::Block(
                f,
                Block {
                    label: inst,
                    insts: Vec::new(),
                },
            ),
            (Nesting::Function(mut f), Op::FunctionEnd) => {
                f.end = inst;
                self.module.functions.push(f);
                Nesting::Module
            }
            (Nesting::Function(f), _) => {
                let message = if opcode == Op::Function {
                    format!(
                        "OpFunction inside function %{}, which has no OpFunctionEnd",
                        f.id()
                    )
                } else if f.blocks.is_empty() && opcode != Op::FunctionParameter {
                    format!(
                        "Op{:?} in function %{} before its first OpLabel; instructions belong in blocks",
                        opcode,
                        f.id()
                    )
                } else {
                    format!(
                        "Op{:?} in function %{} outside any block (after a terminator, before the next OpLabel)",
                        opcode,
                        f.id()
                    )
                };
                return self.fail(Rule::LayoutFunctionStructure, span, message);
            }
            (Nesting::Block(f, b), Op::Label | Op::FunctionEnd | Op::Function) => {
                let message = format!(
                    "block %{} in function %{} has no terminator before this Op{:?}",
                    b.id(),
                    f.id(),
                    opcode
                );
                return self.fail(Rule::LayoutFunctionStructure, span, message);
            }
            (Nesting::Block(mut f, mut b), _) if reflect::is_block_terminator(opcode) => {
                b.insts.push(inst);
                f.blocks.push(b);
                // An OpLine's scope ends with its block.
                self.line = None;
                Nesting::Function(f)
            }
            (Nesting::Block(f, mut b), _) => {
                b.insts.push(inst);
                Nesting::Block(f, b)
            }
        };
        ParseAction::Continue
    }
}

impl Consumer for ModuleBuilder<'_> {
    fn initialize(&mut self) -> ParseAction {
        ParseAction::Continue
    }

    fn finalize(&mut self) -> ParseAction {
        let (message, f) = match std::mem::replace(&mut self.nesting, Nesting::Module) {
            Nesting::Module => return ParseAction::Continue,
            Nesting::Function(f) => ("the module ends inside function", f),
            Nesting::Block(f, _) => ("the module ends inside a block of function", f),
        };
        let span = f.def.span;
        let message = format!("{message} %{} (no OpFunctionEnd)", f.id());
        self.fail(Rule::LayoutFunctionStructure, span, message)
    }

    fn consume_header(&mut self, _header: dr::ModuleHeader) -> ParseAction {
        // We decoded the header ourselves: rspirv's copy drops the generator word.
        ParseAction::Continue
    }

    fn consume_instruction(&mut self, mut inst: dr::Instruction) -> ParseAction {
        if let Some(rest) = self.trailing.remove(&self.next_ordinal) {
            inst.operands
                .extend(rest.into_iter().map(dr::Operand::LiteralBit32));
        }
        let index = self.next_ordinal as usize - 1;
        let offset = self.offsets.get(index).copied().unwrap_or(0);
        let mut span = Span::new(self.next_ordinal, offset);
        self.next_ordinal += 1;
        if reflect::is_location_debug(inst.class.opcode) {
            return self.track_line(&inst, span);
        }
        if self.is_non_semantic(&inst) {
            self.module.dropped_ids.extend(inst.result_id);
            return ParseAction::Continue;
        }
        if inst.class.opcode == Op::String {
            if let (Some(id), Some(dr::Operand::LiteralString(name))) =
                (inst.result_id, inst.operands.first())
            {
                self.strings
                    .insert(id, self.module.source_files.len() as u32);
                self.module.source_files.push(name.clone());
            }
        }
        span.source = self.line;
        self.add(inst, span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small valid module, as words.
    fn module_words() -> Vec<u32> {
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                    OpEntryPoint Vertex %main \"main\"\n%void = OpTypeVoid\n\
                    %fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n\
                    %entry = OpLabel\nOpReturn\nOpFunctionEnd\n";
        let options = crate::asm::Options {
            version: Some((1, 0)),
            preserve_numeric_ids: false,
        };
        crate::asm::assemble(text, &options).unwrap().words
    }

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn rule_of(bytes: &[u8]) -> &'static str {
        read(bytes).expect_err("the input should be rejected").rule
    }

    #[test]
    fn reads_either_byte_order() {
        let words = module_words();
        let little = read(&bytes(&words)).unwrap();
        let big: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        let big = read(&big).unwrap();
        assert!(!little.header.big_endian && big.header.big_endian);
        assert_eq!(little.globals, big.globals);
        assert_eq!(little.functions, big.functions);
        assert_eq!(little.header.version, (1, 0));
    }

    #[test]
    fn keeps_the_generator_word() {
        let mut words = module_words();
        words[2] = 0x0008_000b; // glslang
        assert_eq!(read(&bytes(&words)).unwrap().header.generator, 0x0008_000b);
    }

    #[test]
    fn header_errors() {
        assert_eq!(rule_of(&[]), "phys.header");
        assert_eq!(rule_of(&bytes(&module_words())[..19]), "phys.header");
        let mut words = module_words();
        words[0] = 0x0723_0204;
        assert_eq!(rule_of(&bytes(&words)), "phys.header");
        let mut words = module_words();
        words[4] = 1;
        assert_eq!(rule_of(&bytes(&words)), "phys.header");
        let mut b = bytes(&module_words());
        b.push(0);
        assert_eq!(rule_of(&b), "phys.word-count");
    }

    #[test]
    fn versions_one_zero_to_one_six() {
        for minor in 0..=6 {
            let mut words = module_words();
            words[1] = 0x0001_0000 | (minor << 8);
            assert!(read(&bytes(&words)).is_ok(), "1.{minor}");
        }
        for bad in [
            0x0001_0700,
            0x0002_0000,
            0x0000_0000,
            0x0001_0001,
            0x0101_0000,
        ] {
            let mut words = module_words();
            words[1] = bad;
            assert_eq!(rule_of(&bytes(&words)), "phys.version", "0x{bad:08x}");
        }
    }

    #[test]
    fn spec_constant_op_that_would_panic_rspirv_is_an_error() {
        // OpSpecConstantOp computing OpConstant: rspirv's parser panics on this payload, so
        // the scan must stop it first.
        let mut words = module_words();
        let at = words.len() - 9; // before OpFunction (5 + 2 + 1 + 1 words to the end)
        words.splice(at..at, [0x0005_0034, 1, 99, Op::Constant as u32, 7]);
        let err = read(&bytes(&words)).unwrap_err();
        assert_eq!(err.rule, "phys.operands");
        assert!(err.message.contains("OpConstant"), "{}", err.message);
    }

    #[test]
    fn instruction_spans_count_ordinals_and_words() {
        let module = read(&bytes(&module_words())).unwrap();
        let spans: Vec<(u32, u32)> = module
            .insts()
            .map(|i| (i.span.ordinal, i.span.word_offset))
            .collect();
        assert_eq!(spans[0], (1, 5));
        assert_eq!(spans[1], (2, 7)); // OpCapability is 2 words
        assert_eq!(spans.len(), module.instruction_count as usize);
    }

    #[test]
    fn op_line_positions_reach_spans_until_the_block_ends() {
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                    OpEntryPoint Vertex %main \"main\"\n%file = OpString \"shader.vert\"\n\
                    %void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                    %main = OpFunction %void None %fn\n%entry = OpLabel\n\
                    OpLine %file 12 5\nOpBranch %next\n%next = OpLabel\nOpReturn\nOpFunctionEnd\n";
        let words = crate::asm::assemble(text, &Default::default())
            .unwrap()
            .words;
        let module = read(&bytes(&words)).unwrap();
        assert_eq!(module.source_files, ["shader.vert"]);
        let f = &module.functions[0];
        let pos = f.blocks[0]
            .terminator()
            .span
            .source
            .expect("OpLine applies");
        assert_eq!((pos.file, pos.line, pos.column), (0, 12, 5));
        assert_eq!(
            f.blocks[1].terminator().span.source,
            None,
            "scope ends with the block"
        );
    }

    #[test]
    fn non_semantic_instructions_are_dropped() {
        let text = "OpCapability Shader\nOpExtension \"SPV_KHR_non_semantic_info\"\n\
                    %dbg = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n\
                    OpMemoryModel Logical GLSL450\nOpEntryPoint Vertex %main \"main\"\n\
                    %void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                    %src = OpExtInst %void %dbg 35 %void\n\
                    %main = OpFunction %void None %fn\n%entry = OpLabel\n\
                    %scope = OpExtInst %void %dbg 23 %src\nOpReturn\nOpFunctionEnd\n";
        let words = crate::asm::assemble(text, &Default::default())
            .unwrap()
            .words;
        let module = read(&bytes(&words)).unwrap();
        assert_eq!(module.dropped_ids.len(), 3);
        assert!(module.insts().all(|i| i.opcode() != Op::ExtInst));
        assert_eq!(module.instruction_count, 13);
    }

    #[test]
    fn structure_errors_name_the_instruction() {
        let mut words = module_words();
        // Drop OpReturn: the block has no terminator before OpFunctionEnd.
        let at = words.len() - 2;
        words.remove(at);
        let err = read(&bytes(&words)).unwrap_err();
        assert_eq!(err.rule, "layout.function-structure");
        assert!(err.message.contains("no terminator"), "{}", err.message);
        assert_eq!(err.span.map(|s| s.word_offset), Some(at as u32));
    }
}
