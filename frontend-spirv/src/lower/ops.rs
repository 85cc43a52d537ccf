//! The instructions: constants, memory, arithmetic, composites, conversions, comparisons,
//! calls. Each SPIR-V instruction becomes a few MIR instructions at the cursor, with the
//! SPIR-V instruction's span.

use mir::inst::{CmpOp, Op, Operand};
use mir::{Kind, Span, Swizzle, Ty};
use rspirv::dr::Operand as SpvOperand;
use spirv::{Op as SpvOp, Word};

use super::body::Frame;
use super::types::{Shape, int_signedness, shape};
use super::value::{Index, Val, vector};
use super::{Lowerer, rule};
use crate::module::Inst;
use crate::validate::Type;

impl Lowerer<'_> {
    /// Lowers one instruction of a function body.
    pub(super) fn lower_inst(&mut self, inst: &Inst, frame: &mut Frame) {
        if let Some(val) = self.lower_value(inst, frame) {
            if let Some(id) = inst.result_id() {
                frame.values.insert(id, val);
            }
        }
    }

    fn operand(&mut self, inst: &Inst, i: usize, frame: &Frame) -> Option<Val> {
        let id = inst.id_operand(i)?;
        self.value(id, inst, frame)
    }

    /// Operand `i` as a vector (operand and lane count).
    fn vec_operand(&mut self, inst: &Inst, i: usize, frame: &Frame) -> Option<(Operand, u8)> {
        self.operand(inst, i, frame)?.vector()
    }

    fn lower_value(&mut self, inst: &Inst, frame: &mut Frame) -> Option<Val> {
        use SpvOp::*;
        let span = inst.span;
        let rt = inst.result_type().unwrap_or(0);
        let lanes = match shape(self.types(), rt) {
            Shape::Float(n) | Shape::Bool(n) => n,
            _ => 0,
        };
        let fty = Ty::float(lanes.max(1));
        let bty = Ty::bool(lanes.max(1));
        let op = inst.opcode();
        match op {
            Nop | Line | NoLine | ModuleProcessed => None,
            Undef => self.zero(rt, span),
            Load => {
                let Val::Pointer(place) = self.operand(inst, 0, frame)? else {
                    self.error(
                        rule::INSTRUCTION,
                        inst,
                        "OpLoad from something that is not a pointer",
                    );
                    return None;
                };
                self.load(&place, inst)
            }
            Store => {
                let Val::Pointer(place) = self.operand(inst, 0, frame)? else {
                    self.error(
                        rule::INSTRUCTION,
                        inst,
                        "OpStore to something that is not a pointer",
                    );
                    return None;
                };
                let v = self.operand(inst, 1, frame)?;
                self.store(&place, &v, inst);
                None
            }
            CopyMemory => {
                let (Val::Pointer(to), Val::Pointer(from)) =
                    (self.operand(inst, 0, frame)?, self.operand(inst, 1, frame)?)
                else {
                    return None;
                };
                let v = self.load(&from, inst)?;
                self.store(&to, &v, inst);
                None
            }
            AccessChain | InBoundsAccessChain => {
                let Val::Pointer(mut place) = self.operand(inst, 0, frame)? else {
                    self.error(
                        rule::INSTRUCTION,
                        inst,
                        "an access chain into something that is not a pointer",
                    );
                    return None;
                };
                for i in 1..inst.op.operands.len() {
                    let id = inst.id_operand(i)?;
                    let index = match self.const_int(id) {
                        Some(k) if k >= 0 => Index::Const(k as u32),
                        _ => Index::Dynamic(self.value(id, inst, frame)?.vector()?.0),
                    };
                    place.path.push(index);
                }
                Some(Val::Pointer(place))
            }
            CopyObject | CopyLogical => self.operand(inst, 0, frame),
            FunctionCall => {
                let callee = inst.id_operand(0)?;
                let mut args = Vec::new();
                for i in 1..inst.op.operands.len() {
                    args.push(self.operand(inst, i, frame)?);
                }
                let exit = self.f.new_block(span);
                self.inline(callee, args, exit, Some(inst))
            }

            // --- float arithmetic ---
            FAdd | FSub | FMul | FDiv => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let (b, _) = self.vec_operand(inst, 1, frame)?;
                let mop = match op {
                    FAdd => Op::Add,
                    FSub => Op::Sub,
                    FMul => Op::Mul,
                    _ => Op::Div,
                };
                Some(vector(self.emit(mop, vec![a, b], fty, span), lanes))
            }
            FNegate | SNegate => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                Some(vector(a.negated(), lanes))
            }
            FMod | FRem | SMod | SRem | UMod => {
                // x - y * floor(x / y) (FMod, SMod: sign of y), or trunc (FRem, SRem: sign of x).
                let (x, _) = self.vec_operand(inst, 0, frame)?;
                let (y, _) = self.vec_operand(inst, 1, frame)?;
                let q = self.emit(Op::Div, vec![x, y], fty, span);
                let rounded = match op {
                    FMod | SMod | UMod => Op::Floor,
                    _ => Op::Trunc,
                };
                let q = self.emit(rounded, vec![q], fty, span);
                Some(vector(
                    self.emit(Op::Mad, vec![q.negated(), y, x], fty, span),
                    lanes,
                ))
            }
            // --- integer arithmetic, carried in floats ---
            IAdd | ISub | IMul => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let (b, _) = self.vec_operand(inst, 1, frame)?;
                let mop = match op {
                    IAdd => Op::Add,
                    ISub => Op::Sub,
                    _ => Op::Mul,
                };
                Some(vector(self.emit(mop, vec![a, b], fty, span), lanes))
            }
            SDiv | UDiv => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let (b, _) = self.vec_operand(inst, 1, frame)?;
                let q = self.emit(Op::Div, vec![a, b], fty, span);
                Some(vector(self.emit(Op::Trunc, vec![q], fty, span), lanes))
            }
            Not => {
                // Two's complement: !x == -x - 1.
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let one = self.fconst(&[1.0; 4][..lanes.max(1) as usize], span);
                Some(vector(
                    self.emit(Op::Sub, vec![a.negated(), one], fty, span),
                    lanes,
                ))
            }
            ShiftLeftLogical | ShiftRightLogical | ShiftRightArithmetic => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let Some(k) = inst
                    .id_operand(1)
                    .and_then(|s| self.const_int(s))
                    .filter(|k| (0..24).contains(k))
                else {
                    self.error(rule::INTEGER, inst, format!("Op{op:?} by a computed amount: integers are carried in floats, which shift only by constants"));
                    return None;
                };
                let factor = (1u32 << k) as f32;
                let f = self.fconst(&vec![factor; lanes.max(1) as usize], span);
                if op == ShiftLeftLogical {
                    Some(vector(self.emit(Op::Mul, vec![a, f], fty, span), lanes))
                } else {
                    let q = self.emit(Op::Div, vec![a, f], fty, span);
                    Some(vector(self.emit(Op::Floor, vec![q], fty, span), lanes))
                }
            }
            BitwiseAnd | BitwiseOr | BitwiseXor => {
                // With a constant operand, from whole-number arithmetic on the float:
                // x & c bit by bit (a mod for c = 2^k - 1), x | c = x + c - (x & c),
                // x ^ c = x + c - 2 (x & c); exact for |x| < 2^24, negatives included.
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let (b, _) = self.vec_operand(inst, 1, frame)?;
                let n = lanes.max(1) as usize;
                let lanes_of = |l: &Self, o: &Operand| {
                    let c = mir::analysis::constants::constant_n(&l.f, o, n as u8)?;
                    c[..n]
                        .iter()
                        .map(|&x| (x.fract() == 0.0 && x.abs() < 16_777_216.0).then_some(x as i64))
                        .collect::<Option<Vec<i64>>>()
                };
                let (x, c) = match (lanes_of(self, &a), lanes_of(self, &b)) {
                    (_, Some(c)) => (a, c),
                    (Some(c), None) => (b, c),
                    (None, None) => {
                        self.error(
                            rule::INTEGER,
                            inst,
                            format!("Op{op:?} of two computed values: integers are carried in floats, which have bitwise operations only with a constant (`i & 3`, `i ^ 1`)"),
                        );
                        return None;
                    }
                };
                let Some(and) = self.and_const(x, &c, lanes, span) else {
                    self.error(
                        rule::INTEGER,
                        inst,
                        format!("Op{op:?} with the constant {c:?}: integers are carried in floats, where a mask of more than 8 bits (other than 2^k - 1) is not computed"),
                    );
                    return None;
                };
                let cf: Vec<f32> = c.iter().map(|&v| v as f32).collect();
                let k = self.fconst(&cf, span);
                let r = match op {
                    BitwiseAnd => and,
                    BitwiseOr => {
                        let sum = self.emit(Op::Add, vec![x, k], fty, span);
                        self.emit(Op::Sub, vec![sum, and], fty, span)
                    }
                    _ => {
                        let sum = self.emit(Op::Add, vec![x, k], fty, span);
                        let two = self.fconst(&vec![2.0; n], span);
                        self.emit(Op::Mad, vec![and, two.negated(), sum], fty, span)
                    }
                };
                Some(vector(r, lanes))
            }
            BitReverse | BitCount | BitFieldInsert | BitFieldSExtract | BitFieldUExtract => {
                self.error(
                    rule::INTEGER,
                    inst,
                    format!("Op{op:?} on computed values: integers are carried in floats, which have no bitwise operations"),
                );
                None
            }
            // --- conversions ---
            ConvertFToS | ConvertFToU => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                Some(vector(self.emit(Op::Trunc, vec![a], fty, span), lanes))
            }
            ConvertSToF | ConvertUToF | FConvert | SConvert | UConvert => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                Some(vector(a, lanes))
            }
            Bitcast => {
                let from = self.value_type(inst.id_operand(0).unwrap_or(0));
                let int_to_int = int_signedness(self.types(), from).is_some()
                    && int_signedness(self.types(), rt).is_some();
                if !int_to_int {
                    self.error(rule::INTEGER, inst, "OpBitcast between floats and integers: values are carried in floats, whose bits cannot be reinterpreted");
                    return None;
                }
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                Some(vector(a, lanes))
            }
            // --- comparisons and logic ---
            FOrdEqual | FUnordEqual | IEqual => self.compare(inst, CmpOp::Eq, bty, frame),
            FOrdNotEqual | FUnordNotEqual | INotEqual => self.compare(inst, CmpOp::Ne, bty, frame),
            FOrdLessThan | FUnordLessThan | SLessThan | ULessThan => {
                self.compare(inst, CmpOp::Lt, bty, frame)
            }
            FOrdLessThanEqual | FUnordLessThanEqual | SLessThanEqual | ULessThanEqual => {
                self.compare(inst, CmpOp::Le, bty, frame)
            }
            FOrdGreaterThan | FUnordGreaterThan | SGreaterThan | UGreaterThan => {
                self.compare(inst, CmpOp::Gt, bty, frame)
            }
            FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | SGreaterThanEqual
            | UGreaterThanEqual => self.compare(inst, CmpOp::Ge, bty, frame),
            LogicalAnd | LogicalOr => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let (b, _) = self.vec_operand(inst, 1, frame)?;
                let mop = if op == LogicalAnd { Op::And } else { Op::Or };
                Some(vector(self.emit(mop, vec![a, b], bty, span), lanes))
            }
            LogicalNot => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                Some(vector(self.emit(Op::Not, vec![a], bty, span), lanes))
            }
            LogicalEqual | LogicalNotEqual => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let (b, _) = self.vec_operand(inst, 1, frame)?;
                let fa = self.emit(Op::BoolToFloat, vec![a], fty, span);
                let fb = self.emit(Op::BoolToFloat, vec![b], fty, span);
                let c = if op == LogicalEqual {
                    CmpOp::Eq
                } else {
                    CmpOp::Ne
                };
                Some(vector(
                    self.emit(Op::Cmp(c), vec![fa, fb], bty, span),
                    lanes,
                ))
            }
            Select => {
                let (cond, cond_lanes) = self.vec_operand(inst, 0, frame)?;
                let a = self.operand(inst, 1, frame)?;
                let b = self.operand(inst, 2, frame)?;
                let cond = if cond_lanes == 1 {
                    cond.reswizzled(Swizzle::splat(0))
                } else {
                    cond
                };
                self.select_val(cond, &a, &b, span)
            }
            IsNan => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                Some(vector(
                    self.emit(Op::Cmp(CmpOp::Ne), vec![a, a], bty, span),
                    lanes,
                ))
            }
            IsInf => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let inf = self.fconst(&vec![f32::INFINITY; lanes.max(1) as usize], span);
                let abs = Operand { abs: true, ..a };
                Some(vector(
                    self.emit(Op::Cmp(CmpOp::Eq), vec![abs, inf], bty, span),
                    lanes,
                ))
            }
            Any | All => {
                let (a, n) = self.vec_operand(inst, 0, frame)?;
                let mop = if op == Any { Op::Or } else { Op::And };
                let mut acc = a.reswizzled(Swizzle::splat(0));
                for l in 1..n {
                    acc = self.emit(
                        mop,
                        vec![acc, a.reswizzled(Swizzle::splat(l))],
                        Ty::bool(1),
                        span,
                    );
                }
                Some(vector(acc, 1))
            }
            // --- vectors and matrices ---
            Dot => {
                let (a, n) = self.vec_operand(inst, 0, frame)?;
                let (b, _) = self.vec_operand(inst, 1, frame)?;
                Some(vector(
                    self.emit(Op::Dot(n), vec![a, b], Ty::float(1), span),
                    1,
                ))
            }
            VectorTimesScalar => {
                let (v, _) = self.vec_operand(inst, 0, frame)?;
                let (s, _) = self.vec_operand(inst, 1, frame)?;
                Some(vector(
                    self.emit(Op::Mul, vec![v, s.reswizzled(Swizzle::splat(0))], fty, span),
                    lanes,
                ))
            }
            MatrixTimesScalar => {
                let Val::Composite(cols) = self.operand(inst, 0, frame)? else {
                    return None;
                };
                let (s, _) = self.vec_operand(inst, 1, frame)?;
                let mut out = Vec::new();
                for c in cols {
                    let (col, rows) = c.vector()?;
                    let m = self.emit(
                        Op::Mul,
                        vec![col, s.reswizzled(Swizzle::splat(0))],
                        Ty::float(rows),
                        span,
                    );
                    out.push(vector(m, rows));
                }
                Some(Val::Composite(out))
            }
            MatrixTimesVector => {
                let cols = self.columns(inst, 0, frame)?;
                let (v, _) = self.vec_operand(inst, 1, frame)?;
                Some(vector(self.matvec(&cols, v, lanes, span), lanes))
            }
            VectorTimesMatrix => {
                // v * M = transpose(M) * v: the transpose's columns gather M's lanes, and the
                // matrix pass then finds whichever form reads registers directly.
                let (v, _) = self.vec_operand(inst, 0, frame)?;
                let cols = self.columns(inst, 1, frame)?;
                let rows = cols.first()?.1;
                let mut transposed = Vec::new();
                for r in 0..rows {
                    let lanes_v: Vec<Operand> = cols
                        .iter()
                        .map(|(c, _)| c.reswizzled(Swizzle::splat(r)))
                        .collect();
                    let n = lanes_v.len() as u8;
                    transposed.push((self.construct(lanes_v, span), n));
                }
                Some(vector(self.matvec(&transposed, v, lanes, span), lanes))
            }
            MatrixTimesMatrix => {
                let a = self.columns(inst, 0, frame)?;
                let b = self.columns(inst, 1, frame)?;
                let rows = a.first()?.1;
                let mut out = Vec::new();
                for (bc, _) in b {
                    out.push(vector(self.matvec(&a, bc, rows, span), rows));
                }
                Some(Val::Composite(out))
            }
            OuterProduct => {
                let (a, rows) = self.vec_operand(inst, 0, frame)?;
                let (b, cols) = self.vec_operand(inst, 1, frame)?;
                let mut out = Vec::new();
                for c in 0..cols {
                    let m = self.emit(
                        Op::Mul,
                        vec![a, b.reswizzled(Swizzle::splat(c))],
                        Ty::float(rows),
                        span,
                    );
                    out.push(vector(m, rows));
                }
                Some(Val::Composite(out))
            }
            Transpose => {
                let cols = self.columns(inst, 0, frame)?;
                let rows = cols.first()?.1;
                let mut out = Vec::new();
                for r in 0..rows {
                    let lanes_v: Vec<Operand> = cols
                        .iter()
                        .map(|(c, _)| c.reswizzled(Swizzle::splat(r)))
                        .collect();
                    let n = lanes_v.len() as u8;
                    out.push(vector(self.construct(lanes_v, span), n));
                }
                Some(Val::Composite(out))
            }
            // --- composites ---
            CompositeConstruct => {
                let mut parts = Vec::new();
                for i in 0..inst.op.operands.len() {
                    parts.push(self.operand(inst, i, frame)?);
                }
                match shape(self.types(), rt) {
                    Shape::Float(_) | Shape::Bool(_) => {
                        let mut lanes_v = Vec::new();
                        for p in parts {
                            let (o, n) = p.vector()?;
                            lanes_v.extend((0..n).map(|l| o.reswizzled(Swizzle::splat(l))));
                        }
                        Some(vector(self.construct(lanes_v, span), lanes))
                    }
                    _ => Some(Val::Composite(parts)),
                }
            }
            CompositeExtract => {
                let mut v = self.operand(inst, 0, frame)?;
                for operand in &inst.op.operands[1..] {
                    let SpvOperand::LiteralBit32(i) = operand else {
                        return None;
                    };
                    v = extract(&v, *i)?;
                }
                Some(v)
            }
            CompositeInsert => {
                let object = self.operand(inst, 0, frame)?;
                let composite = self.operand(inst, 1, frame)?;
                let path: Vec<u32> = inst.op.operands[2..]
                    .iter()
                    .filter_map(|o| match o {
                        SpvOperand::LiteralBit32(i) => Some(*i),
                        _ => None,
                    })
                    .collect();
                self.insert(composite, &path, object, span)
            }
            VectorShuffle => {
                let (a, na) = self.vec_operand(inst, 0, frame)?;
                let (b, _) = self.vec_operand(inst, 1, frame)?;
                let picks: Vec<u32> = inst.op.operands[2..]
                    .iter()
                    .filter_map(|o| match o {
                        SpvOperand::LiteralBit32(i) => Some(*i),
                        _ => None,
                    })
                    .collect();
                let pick = |c: u32| -> Operand {
                    // 0xFFFFFFFF is "undefined": any lane will do.
                    let c = if c == u32::MAX { 0 } else { c };
                    if c < na as u32 {
                        a.reswizzled(Swizzle::splat(c as u8))
                    } else {
                        b.reswizzled(Swizzle::splat((c - na as u32) as u8))
                    }
                };
                if picks.iter().all(|&c| c == u32::MAX || c < na as u32) {
                    // All from the first vector: a swizzle.
                    let mut sw = [0u8; 4];
                    for (i, &c) in picks.iter().enumerate().take(4) {
                        sw[i] = if c == u32::MAX { 0 } else { c as u8 };
                    }
                    for i in picks.len()..4 {
                        sw[i] = sw[picks.len().saturating_sub(1)];
                    }
                    Some(vector(a.reswizzled(Swizzle(sw)), lanes))
                } else {
                    let lanes_v = picks.iter().map(|&c| pick(c)).collect();
                    Some(vector(self.construct(lanes_v, span), lanes))
                }
            }
            VectorExtractDynamic => {
                let (v, n) = self.vec_operand(inst, 0, frame)?;
                let (i, _) = self.vec_operand(inst, 1, frame)?;
                let vals = (0..n)
                    .map(|l| vector(v.reswizzled(Swizzle::splat(l)), 1))
                    .collect();
                self.select_by_index(i, vals, span)
            }
            VectorInsertDynamic => {
                let (v, n) = self.vec_operand(inst, 0, frame)?;
                let (x, _) = self.vec_operand(inst, 1, frame)?;
                let (i, _) = self.vec_operand(inst, 2, frame)?;
                let kind = self.f.ty(v.value).kind;
                let mut lanes_v = Vec::new();
                for l in 0..n {
                    let k = self.fconst(&[l as f32], span);
                    let cond = self.emit(Op::Cmp(CmpOp::Eq), vec![i, k], Ty::bool(1), span);
                    lanes_v.push(self.emit(
                        Op::Select,
                        vec![
                            cond,
                            x.reswizzled(Swizzle::splat(0)),
                            v.reswizzled(Swizzle::splat(l)),
                        ],
                        Ty { kind, lanes: 1 },
                        span,
                    ));
                }
                Some(vector(self.construct(lanes_v, span), lanes))
            }
            // --- derivatives ---
            DPdx | DPdxFine | DPdxCoarse | DPdy | DPdyFine | DPdyCoarse => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let mop = if matches!(op, DPdx | DPdxFine | DPdxCoarse) {
                    Op::Ddx
                } else {
                    Op::Ddy
                };
                Some(vector(self.emit(mop, vec![a], fty, span), lanes))
            }
            Fwidth | FwidthFine | FwidthCoarse => {
                let (a, _) = self.vec_operand(inst, 0, frame)?;
                let dx = self.emit(Op::Ddx, vec![a], fty, span);
                let dy = self.emit(Op::Ddy, vec![a], fty, span);
                let (dx, dy) = (Operand { abs: true, ..dx }, Operand { abs: true, ..dy });
                Some(vector(self.emit(Op::Add, vec![dx, dy], fty, span), lanes))
            }
            EmitVertex if self.geometry.is_some() => {
                self.emit_vertex(span);
                None
            }
            EndPrimitive if self.geometry.is_some() => {
                self.emit_void(Op::EndPrimitive, Vec::new(), span);
                None
            }
            DemoteToHelperInvocation => {
                let t = self.bconst(true, span);
                self.emit_void(Op::Kill, vec![t], span);
                None
            }
            ExtInst => self.glsl(inst, frame),
            SampledImage
            | Image
            | ImageSampleImplicitLod
            | ImageSampleExplicitLod
            | ImageSampleProjImplicitLod
            | ImageSampleProjExplicitLod
            | ImageSampleDrefImplicitLod
            | ImageSampleDrefExplicitLod
            | ImageSampleProjDrefImplicitLod
            | ImageSampleProjDrefExplicitLod
            | ImageFetch
            | ImageGather
            | ImageDrefGather
            | ImageRead
            | ImageWrite
            | ImageQuerySize
            | ImageQuerySizeLod
            | ImageQueryLod
            | ImageQueryLevels
            | ImageQuerySamples => self.image(inst, frame),
            other => {
                self.error(
                    rule::INSTRUCTION,
                    inst,
                    format!("Op{other:?} is not supported: these targets have no equivalent"),
                );
                None
            }
        }
    }

    /// A vector from scalar lanes (a single lane stays as it is).
    pub(super) fn construct(&mut self, lanes_v: Vec<Operand>, span: Span) -> Operand {
        if lanes_v.len() == 1 {
            return lanes_v[0].reswizzled(Swizzle::splat(0));
        }
        let kind = self.f.ty(lanes_v[0].value).kind;
        let n = lanes_v.len() as u8;
        self.emit(Op::Construct, lanes_v, Ty { kind, lanes: n }, span)
    }

    fn compare(&mut self, inst: &Inst, c: CmpOp, bty: Ty, frame: &Frame) -> Option<Val> {
        let (a, n) = self.vec_operand(inst, 0, frame)?;
        let (b, _) = self.vec_operand(inst, 1, frame)?;
        Some(vector(self.emit(Op::Cmp(c), vec![a, b], bty, inst.span), n))
    }

    /// The columns of a matrix operand.
    fn columns(&mut self, inst: &Inst, i: usize, frame: &Frame) -> Option<Vec<(Operand, u8)>> {
        let Val::Composite(cols) = self.operand(inst, i, frame)? else {
            self.error(
                rule::INSTRUCTION,
                inst,
                "a matrix operand that is not a matrix",
            );
            return None;
        };
        cols.iter().map(Val::vector).collect()
    }

    /// `M * v` for columns `cols` (each `rows` lanes).
    pub(super) fn matvec(
        &mut self,
        cols: &[(Operand, u8)],
        v: Operand,
        rows: u8,
        span: Span,
    ) -> Operand {
        let mut args: Vec<Operand> = cols.iter().map(|(c, _)| *c).collect();
        args.push(v);
        self.emit(Op::MatVec(cols.len() as u8), args, Ty::float(rows), span)
    }

    /// `composite` with the part at `path` replaced by `object`.
    fn insert(&mut self, composite: Val, path: &[u32], object: Val, span: Span) -> Option<Val> {
        let Some((&first, rest)) = path.split_first() else {
            return Some(object);
        };
        match composite {
            Val::Composite(mut parts) => {
                let part = parts.get(first as usize)?.clone();
                parts[first as usize] = self.insert(part, rest, object, span)?;
                Some(Val::Composite(parts))
            }
            Val::Vector { op, lanes } => {
                let (x, _) = object.vector()?;
                let lanes_v: Vec<Operand> = (0..lanes)
                    .map(|l| {
                        if l as u32 == first {
                            x.reswizzled(Swizzle::splat(0))
                        } else {
                            op.reswizzled(Swizzle::splat(l))
                        }
                    })
                    .collect();
                Some(vector(self.construct(lanes_v, span), lanes))
            }
            _ => None,
        }
    }

    /// The value of an integer constant id, if it is one.
    /// `x & c` for constant lanes `c` (whole numbers carried in floats): `x mod 2^k` when
    /// every lane is `2^k - 1`, else the sum of `c`'s bits of `x` (at most 8 bits; a
    /// negative `c` as `x - (x & !c)`).
    fn and_const(&mut self, x: Operand, c: &[i64], lanes: u8, span: Span) -> Option<Operand> {
        let n = c.len();
        let fty = Ty::float(lanes.max(1));
        if c.iter().any(|&v| v < 0) {
            if !c.iter().all(|&v| v < 0) {
                return None;
            }
            let inverted: Vec<i64> = c.iter().map(|&v| !v).collect();
            let part = self.and_const(x, &inverted, lanes, span)?;
            return Some(self.emit(Op::Sub, vec![x, part], fty, span));
        }
        let splat = |v: f32| vec![v; n];
        if c.iter().all(|&v| v == c[0]) && (c[0] + 1).count_ones() == 1 {
            // x mod 2^k = x - 2^k floor(x / 2^k).
            let m = (c[0] + 1) as f32;
            let rm = self.fconst(&splat(1.0 / m), span);
            let q = self.emit(Op::Mul, vec![x, rm], fty, span);
            let fl = self.emit(Op::Floor, vec![q], fty, span);
            let mk = self.fconst(&splat(m), span);
            return Some(self.emit(Op::Mad, vec![fl, mk.negated(), x], fty, span));
        }
        let bits = c.iter().fold(0i64, |acc, &v| acc | v);
        if bits >= 1 << 24 || c.iter().any(|v| v.count_ones() > 8) {
            return None;
        }
        // Σ over the bits b of c: 2^b (floor(x / 2^b) mod 2).
        let mut acc: Option<Operand> = None;
        for b in 0..24 {
            if bits & (1 << b) == 0 {
                continue;
            }
            let p = (1u32 << b) as f32;
            let inv = self.fconst(&splat(1.0 / p), span);
            let q = self.emit(Op::Mul, vec![x, inv], fty, span);
            let shifted = self.emit(Op::Floor, vec![q], fty, span);
            let half = self.fconst(&splat(0.5), span);
            let h = self.emit(Op::Mul, vec![shifted, half], fty, span);
            let hf = self.emit(Op::Floor, vec![h], fty, span);
            let two = self.fconst(&splat(2.0), span);
            // The bit: shifted - 2 floor(shifted / 2).
            let bit = self.emit(Op::Mad, vec![hf, two.negated(), shifted], fty, span);
            let weights: Vec<f32> = c
                .iter()
                .map(|&v| if v & (1 << b) != 0 { p } else { 0.0 })
                .collect();
            let w = self.fconst(&weights, span);
            acc = Some(match acc {
                None => self.emit(Op::Mul, vec![bit, w], fty, span),
                Some(a) => self.emit(Op::Mad, vec![bit, w, a], fty, span),
            });
        }
        match acc {
            Some(a) => Some(a),
            None => Some(self.fconst(&splat(0.0), span)),
        }
    }

    pub(super) fn const_int(&self, id: Word) -> Option<i64> {
        let def = self.valid.defs.get(&id)?;
        if !matches!(
            def.opcode,
            SpvOp::Constant | SpvOp::SpecConstant | SpvOp::SpecConstantOp | SpvOp::ConstantNull
        ) {
            return None;
        }
        crate::validate::const_int(self.valid, id)
    }

    /// Lowers a module-level constant (at the cursor, which the caller puts in the entry
    /// block).
    pub(super) fn constant(&mut self, id: Word, inst: &Inst) -> Option<Val> {
        let Some(def) = self.valid.defs.get(&id).copied() else {
            self.error(
                rule::INSTRUCTION,
                inst,
                format!("{} is not defined", self.id(id)),
            );
            return None;
        };
        let site = match def.site {
            crate::validate::Site::Global(i) => &self.valid.module.globals[i],
            _ => {
                // A function-local value missing here is one whose own instruction failed to
                // lower, which has its error already: say nothing more.
                if self.errors.is_empty() {
                    self.error(
                        rule::INSTRUCTION,
                        inst,
                        format!("{} is not available here", self.id(id)),
                    );
                }
                return None;
            }
        };
        let ty = def.result_type.unwrap_or(0);
        let span = site.span;
        match def.opcode {
            SpvOp::Constant | SpvOp::SpecConstant => {
                let bits = match site.op.operands.first() {
                    Some(SpvOperand::LiteralBit32(b)) => *b,
                    _ => return None,
                };
                let value = match self.types().get(ty) {
                    Some(Type::Float { .. }) => f32::from_bits(bits),
                    Some(Type::Int { signed: true, .. }) => bits as i32 as f32,
                    Some(Type::Int { signed: false, .. }) => bits as f32,
                    _ => return None,
                };
                Some(vector(self.fconst(&[value], span), 1))
            }
            SpvOp::ConstantTrue | SpvOp::SpecConstantTrue => {
                Some(vector(self.bconst(true, span), 1))
            }
            SpvOp::ConstantFalse | SpvOp::SpecConstantFalse => {
                Some(vector(self.bconst(false, span), 1))
            }
            SpvOp::ConstantNull | SpvOp::Undef => self.zero(ty, span),
            SpvOp::ConstantComposite | SpvOp::SpecConstantComposite => {
                let mut parts = Vec::new();
                for i in 0..site.op.operands.len() {
                    let part = site.id_operand(i)?;
                    parts.push(self.global_value(part, site)?);
                }
                match shape(self.types(), ty) {
                    Shape::Float(n) | Shape::Bool(n) => {
                        // All-constant lanes: one constant.
                        let mut bits = [0u32; 4];
                        let mut kind = Kind::Float;
                        for (l, p) in parts.iter().enumerate() {
                            let (o, _) = p.vector()?;
                            let value = self.f.def_inst(o.value)?;
                            let Op::Const(b) = value.op else { return None };
                            kind = self.f.ty(o.value).kind;
                            bits[l] = b[o.swizzle.lane(0) as usize];
                        }
                        let c = self.emit(Op::Const(bits), Vec::new(), Ty { kind, lanes: n }, span);
                        Some(vector(c, n))
                    }
                    _ => Some(Val::Composite(parts)),
                }
            }
            SpvOp::SpecConstantOp if self.spec_composite_op(site).is_some() => {
                self.spec_composite_op(site)
                    .and_then(|(op, args, literals)| {
                        let mut vals = Vec::new();
                        for a in args {
                            vals.push(self.constant(a, inst)?);
                        }
                        match op {
                            SpvOp::CompositeExtract => literals
                                .iter()
                                .try_fold(vals[0].clone(), |v, &i| extract(&v, i)),
                            SpvOp::CompositeInsert => {
                                self.insert(vals[1].clone(), &literals, vals[0].clone(), span)
                            }
                            _ => {
                                let (a, na) = vals[0].vector()?;
                                let (b, _) = vals[1].vector()?;
                                let lanes: Vec<Operand> = literals
                                    .iter()
                                    .map(|&c| {
                                        let c = if c == u32::MAX { 0 } else { c };
                                        if c < u32::from(na) {
                                            a.reswizzled(Swizzle::splat(c as u8))
                                        } else {
                                            b.reswizzled(Swizzle::splat((c - u32::from(na)) as u8))
                                        }
                                    })
                                    .collect();
                                let n = lanes.len() as u8;
                                Some(vector(self.construct(lanes, span), n))
                            }
                        }
                    })
                    .or_else(|| {
                        self.error(
                            rule::INSTRUCTION,
                            site,
                            "this OpSpecConstantOp's composite operation does not apply to its operands",
                        );
                        None
                    })
            }
            SpvOp::SpecConstantOp => match crate::validate::const_int(self.valid, id) {
                Some(v) => match self.types().get(ty) {
                    Some(Type::Bool) => Some(vector(self.bconst(v != 0, span), 1)),
                    _ => Some(vector(self.fconst(&[v as f32], span), 1)),
                },
                None => {
                    self.error(rule::INSTRUCTION, site, "this OpSpecConstantOp cannot be evaluated: only integer and bool operations on constants are supported");
                    None
                }
            },
            SpvOp::Variable => {
                self.error(
                    rule::INTERFACE,
                    inst,
                    format!("{} is a variable this entry point cannot use", self.id(id)),
                );
                None
            }
            other => {
                self.error(
                    rule::INSTRUCTION,
                    site,
                    format!("Op{other:?} used as a value is not supported"),
                );
                None
            }
        }
    }
}

/// Part `i` of a value: a member, element, column, or vector lane.
impl Lowerer<'_> {
    /// An `OpSpecConstantOp` computing `OpCompositeExtract`, `OpCompositeInsert` or
    /// `OpVectorShuffle`: the operation, its id operands and its literals.
    fn spec_composite_op(&self, site: &Inst) -> Option<(SpvOp, Vec<Word>, Vec<u32>)> {
        let Some(SpvOperand::LiteralSpecConstantOpInteger(op)) = site.op.operands.first() else {
            return None;
        };
        let ids = match op {
            SpvOp::CompositeExtract => 1,
            SpvOp::CompositeInsert | SpvOp::VectorShuffle => 2,
            _ => return None,
        };
        let rest = &site.op.operands[1..];
        let args = rest
            .iter()
            .take(ids)
            .map(|o| match o {
                SpvOperand::IdRef(a) => Some(*a),
                _ => None,
            })
            .collect::<Option<Vec<Word>>>()?;
        let literals = rest
            .iter()
            .skip(ids)
            .map(|o| match o {
                SpvOperand::LiteralBit32(v) => Some(*v),
                _ => None,
            })
            .collect::<Option<Vec<u32>>>()?;
        (args.len() == ids).then_some((*op, args, literals))
    }
}

fn extract(v: &Val, i: u32) -> Option<Val> {
    match v {
        Val::Composite(parts) => parts.get(i as usize).cloned(),
        Val::Vector { op, .. } => Some(Val::Vector {
            op: op.reswizzled(Swizzle::splat(i as u8)),
            lanes: 1,
        }),
        _ => None,
    }
}
