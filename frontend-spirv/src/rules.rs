//! The validation rules: each has a stable identifier, the spec section it comes from, and the
//! rule in one sentence. Diagnostics carry the identifier (`error[cfg.back-edge-target]`) and
//! cite the section, so a user can look the rule up and a test can assert which rule fired.

use mir::Fault;

/// A rule the front end enforces before lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each variant is documented by its `summary`
pub enum Rule {
    // Physical layout (§2.3).
    PhysHeader,
    PhysVersion,
    PhysWordCount,
    PhysOpcode,
    PhysOperands,
    PhysBound,
    PhysResultIdUnique,
    // Logical layout (§2.4).
    LayoutSectionOrder,
    LayoutMemoryModel,
    LayoutEntryPoint,
    LayoutDecorationTarget,
    LayoutFunctionVariables,
    LayoutFunctionStructure,
    // Ids.
    IdUndefined,
    IdUseBeforeDef,
    IdDominance,
    IdKind,
    // Types.
    TypeDeclaration,
    TypeOperand,
    TypeLimit,
    // Structured control flow.
    CfgMergePlacement,
    CfgMergeContinueDistinct,
    CfgMergeUnique,
    CfgHeaderDominatesMerge,
    CfgBackEdgeTarget,
    CfgBackEdgeCount,
    CfgContinueTarget,
    CfgConstructEntry,
    CfgStructuredExit,
    CfgConstructNesting,
    CfgSwitch,
    CfgUnstructured,
    CfgPhi,
    CfgEntryBlockTarget,
    CfgBlockOrder,
    // What the targets can honour.
    CapUnsupported,
    CapAddressingModel,
    ExtInstructionSet,
}

impl Rule {
    /// Every rule, in the order the validator checks them.
    pub const ALL: &'static [Rule] = &[
        Rule::PhysHeader,
        Rule::PhysVersion,
        Rule::PhysWordCount,
        Rule::PhysOpcode,
        Rule::PhysOperands,
        Rule::PhysBound,
        Rule::PhysResultIdUnique,
        Rule::LayoutSectionOrder,
        Rule::LayoutMemoryModel,
        Rule::LayoutEntryPoint,
        Rule::LayoutDecorationTarget,
        Rule::LayoutFunctionVariables,
        Rule::LayoutFunctionStructure,
        Rule::CapUnsupported,
        Rule::CapAddressingModel,
        Rule::ExtInstructionSet,
        Rule::IdUndefined,
        Rule::IdUseBeforeDef,
        Rule::IdDominance,
        Rule::IdKind,
        Rule::TypeDeclaration,
        Rule::TypeOperand,
        Rule::TypeLimit,
        Rule::CfgMergePlacement,
        Rule::CfgMergeContinueDistinct,
        Rule::CfgMergeUnique,
        Rule::CfgHeaderDominatesMerge,
        Rule::CfgBackEdgeTarget,
        Rule::CfgBackEdgeCount,
        Rule::CfgContinueTarget,
        Rule::CfgConstructEntry,
        Rule::CfgStructuredExit,
        Rule::CfgConstructNesting,
        Rule::CfgSwitch,
        Rule::CfgUnstructured,
        Rule::CfgPhi,
        Rule::CfgEntryBlockTarget,
        Rule::CfgBlockOrder,
    ];

    /// The identifier shown as `error[...]`.
    pub fn id(self) -> &'static str {
        self.info().0
    }

    /// The spec section the rule comes from.
    pub fn section(self) -> &'static str {
        self.info().1
    }

    /// The rule in one sentence.
    pub fn summary(self) -> &'static str {
        self.info().2
    }

    /// The citation shown as `= rule: ...` under a diagnostic.
    pub fn reference(self) -> String {
        format!("{}: {}", self.section(), self.summary())
    }

    /// Looks a rule up by its identifier.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.id() == id)
    }

    fn info(self) -> (&'static str, &'static str, &'static str) {
        const PHYS: &str = "SPIR-V §2.3 Physical Layout";
        const LAYOUT: &str = "SPIR-V §2.4 Logical Layout of a Module";
        const SSA: &str = "SPIR-V §2.5.1 SSA Form, §2.16.1 Universal Validation Rules";
        const CFG: &str = "SPIR-V §2.11 Structured Control Flow";
        const CFG_UNIVERSAL: &str =
            "SPIR-V §2.16.1 Universal Validation Rules (Control-Flow Graph)";
        match self {
            Rule::PhysHeader => (
                "phys.header",
                PHYS,
                "a module starts with five header words: magic number 0x07230203, version, generator, bound, and a reserved 0",
            ),
            Rule::PhysVersion => (
                "phys.version",
                PHYS,
                "the version word is 0x00MMmm00; versions 1.0 to 1.6 are accepted",
            ),
            Rule::PhysWordCount => (
                "phys.word-count",
                PHYS,
                "each instruction's word count (high 16 bits of its first word) is at least 1 and the instruction ends within the module",
            ),
            Rule::PhysOpcode => (
                "phys.opcode",
                "SPIR-V §3 Binary Form",
                "every opcode is one the SPIR-V grammar defines",
            ),
            Rule::PhysOperands => (
                "phys.operands",
                "SPIR-V §3 Binary Form",
                "an instruction's words hold exactly the operands its grammar lists, with valid enumerants and terminated strings",
            ),
            Rule::PhysBound => ("phys.bound", PHYS, "every <id> satisfies 0 < id < Bound"),
            Rule::PhysResultIdUnique => (
                "phys.result-id-unique",
                "SPIR-V §2.5.1 SSA Form",
                "each <id> appears exactly once as the Result <id> of an instruction",
            ),
            Rule::LayoutSectionOrder => (
                "layout.section-order",
                LAYOUT,
                "instructions appear in the order of the module's sections: capabilities, extensions, imports, memory model, entry points, execution modes, debug, annotations, types/constants/globals, functions",
            ),
            Rule::LayoutMemoryModel => (
                "layout.memory-model",
                LAYOUT,
                "a module has exactly one OpMemoryModel",
            ),
            Rule::LayoutEntryPoint => (
                "layout.entry-point",
                "SPIR-V §2.6 Entry Point, §3 OpEntryPoint",
                "an entry point names a function defined in the module, its name and execution model are unique, and its interface lists global Input/Output variables",
            ),
            Rule::LayoutDecorationTarget => (
                "layout.decoration-target",
                "SPIR-V §2.4, §3 Annotation Instructions",
                "decorations and names target ids the module defines, and member decorations name an existing member",
            ),
            Rule::LayoutFunctionVariables => (
                "layout.function-variables",
                LAYOUT,
                "all OpVariable instructions in a function have storage class Function and come first in the function's first block",
            ),
            Rule::LayoutFunctionStructure => (
                "layout.function-structure",
                LAYOUT,
                "a function is OpFunction, parameters, blocks (each an OpLabel, instructions and one terminator at the end), and OpFunctionEnd",
            ),
            Rule::IdUndefined => (
                "id.undefined",
                SSA,
                "every <id> an instruction uses is defined by some instruction of the module",
            ),
            Rule::IdUseBeforeDef => (
                "id.use-before-def",
                LAYOUT,
                "an <id> is defined before it is used, except for the forward references §2.4 lists (functions, labels, annotations, entry-point interfaces, phi operands)",
            ),
            Rule::IdDominance => (
                "id.dominance",
                SSA,
                "the definition of an SSA <id> dominates all of its uses (an OpPhi operand must dominate the end of its parent block)",
            ),
            Rule::IdKind => (
                "id.kind",
                "SPIR-V §3 Instructions",
                "an <id> operand names the kind of definition the instruction needs: a type, a label of the same function, a function, a pointer, an OpString",
            ),
            Rule::TypeDeclaration => (
                "type.declaration",
                "SPIR-V §2.16.1 Universal Validation Rules (Data rules), §3 Type-Declaration Instructions",
                "types are well formed: 32-bit scalars unless a capability allows more, vectors of 2 to 4 scalars, matrices of 2 to 4 float vectors, arrays of a constant positive length",
            ),
            Rule::TypeOperand => (
                "type.operand",
                "SPIR-V §3 Instructions",
                "operand and result types match what the instruction's description requires",
            ),
            Rule::TypeLimit => (
                "type.limit",
                "SPIR-V §2.17 Universal Limits (the module is valid; the targets' register files are smaller)",
                "a type holds at most 4096 vector components, more than either target's largest register file",
            ),
            Rule::CfgMergePlacement => (
                "cfg.merge-placement",
                "SPIR-V §3 OpSelectionMerge, OpLoopMerge",
                "a merge instruction is the second-to-last instruction of its block; OpSelectionMerge is followed by OpBranchConditional or OpSwitch, OpLoopMerge by OpBranch or OpBranchConditional",
            ),
            Rule::CfgMergeContinueDistinct => (
                "cfg.merge-continue-distinct",
                "SPIR-V §3 OpLoopMerge",
                "a loop's Merge Block and Continue Target are different blocks",
            ),
            Rule::CfgMergeUnique => (
                "cfg.merge-unique",
                CFG,
                "the merge block declared by a header block cannot be a merge block declared by any other header block",
            ),
            Rule::CfgHeaderDominatesMerge => (
                "cfg.header-dominates-merge",
                CFG,
                "each header block strictly dominates its merge block, unless the merge block is unreachable",
            ),
            Rule::CfgBackEdgeTarget => (
                "cfg.back-edge-target",
                CFG,
                "all CFG back edges branch to a loop header",
            ),
            Rule::CfgBackEdgeCount => (
                "cfg.back-edge-count",
                CFG,
                "each loop header has exactly one back edge branching to it",
            ),
            Rule::CfgContinueTarget => (
                "cfg.continue-target",
                CFG,
                "the loop header dominates its Continue Target, the Continue Target dominates the back-edge block, and the back-edge block post-dominates the Continue Target",
            ),
            Rule::CfgConstructEntry => (
                "cfg.construct-entry",
                CFG,
                "all branches into a construct from reachable blocks outside it are to its header block",
            ),
            Rule::CfgStructuredExit => (
                "cfg.structured-exit",
                CFG,
                "a construct is left only by branching to its merge block, to another case of the same switch, along the back edge, or as a break or continue of the innermost loop, or by returning",
            ),
            Rule::CfgConstructNesting => (
                "cfg.construct-nesting",
                CFG,
                "a construct that contains a header block also contains that header's merge block, if it is reachable",
            ),
            Rule::CfgSwitch => (
                "cfg.switch",
                CFG,
                "an OpSwitch block dominates its cases; each case construct branches to and is branched to by at most one other case, and a fall-through goes to the next target in the list",
            ),
            Rule::CfgUnstructured => (
                "cfg.unstructured",
                "SPIR-V §2.16.2 Validation Rules for Shader Capabilities",
                "loops are structured, with an OpLoopMerge in their header, and selections are structured, with an OpSelectionMerge in their header",
            ),
            Rule::CfgPhi => (
                "cfg.phi",
                "SPIR-V §3 OpPhi",
                "OpPhi instructions come first in their block and have exactly one (value, parent) pair for each predecessor of the block",
            ),
            Rule::CfgEntryBlockTarget => (
                "cfg.entry-block-target",
                CFG_UNIVERSAL,
                "the first block of a function is its entry point and cannot be the target of any branch",
            ),
            Rule::CfgBlockOrder => (
                "cfg.block-order",
                CFG_UNIVERSAL,
                "blocks appear in a function before all blocks they dominate",
            ),
            Rule::CapUnsupported => (
                "cap.unsupported",
                "SPIR-V §2.1 Language Capabilities",
                "the module declares only capabilities the PICA200 and AGAL targets can honour",
            ),
            Rule::CapAddressingModel => (
                "cap.addressing-model",
                "SPIR-V §3 OpMemoryModel",
                "the addressing model is Logical and the memory model Simple, GLSL450 or Vulkan: the targets have no memory to address",
            ),
            Rule::ExtInstructionSet => (
                "ext.instruction-set",
                "SPIR-V §2.10 Extended Instruction Sets",
                "the module imports only GLSL.std.450 and non-semantic (debug-information) instruction sets",
            ),
        }
    }
}

impl mir::diag::Rule for Rule {
    fn id(self) -> &'static str {
        Rule::id(self)
    }

    /// Broken validity is the input's; a type too big for the targets is a limit; a
    /// capability, addressing model or instruction set the targets cannot honour is
    /// unsupported.
    fn fault(self) -> Fault {
        match self {
            Rule::TypeLimit => Fault::Limit,
            Rule::CapUnsupported | Rule::CapAddressingModel | Rule::ExtInstructionSet => {
                Fault::Unsupported
            }
            _ => Fault::Input,
        }
    }
}

/// The front end's rules beside validation: the assembly text's syntax, the choice of entry
/// point, and what lowering refuses (valid SPIR-V the targets cannot run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrontRule {
    /// `asm.syntax`: SPIR-V assembly text that does not parse.
    AsmSyntax,
    /// `entry.select`: no entry point, or none that the options choose.
    EntrySelect,
    /// `lower.instruction`: an instruction lowering does not handle.
    LowerInstruction,
    /// `lower.recursion`: a function that calls itself, directly or not.
    LowerRecursion,
    /// `lower.interface`: a variable, built-in or storage class the interface conventions
    /// do not cover.
    LowerInterface,
    /// `lower.image`: an image operation the targets cannot do.
    LowerImage,
    /// `lower.shadow-sampler`: depth-comparison sampling, which neither target's texture
    /// unit can do.
    LowerShadowSampler,
    /// `lower.control-flow`: control flow lowering cannot make structured.
    LowerControlFlow,
    /// `lower.integer`: an integer operation that has no float equivalent.
    LowerInteger,
    /// `lower.internal`: lowering broke one of its own rules (a bug).
    LowerInternal,
}

impl mir::diag::Rule for FrontRule {
    fn id(self) -> &'static str {
        match self {
            FrontRule::AsmSyntax => "asm.syntax",
            FrontRule::EntrySelect => "entry.select",
            FrontRule::LowerInstruction => "lower.instruction",
            FrontRule::LowerRecursion => "lower.recursion",
            FrontRule::LowerInterface => "lower.interface",
            FrontRule::LowerImage => "lower.image",
            FrontRule::LowerShadowSampler => "lower.shadow-sampler",
            FrontRule::LowerControlFlow => "lower.control-flow",
            FrontRule::LowerInteger => "lower.integer",
            FrontRule::LowerInternal => "lower.internal",
        }
    }

    fn fault(self) -> Fault {
        match self {
            FrontRule::AsmSyntax | FrontRule::EntrySelect => Fault::Input,
            FrontRule::LowerInternal => Fault::Internal,
            _ => Fault::Unsupported,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &rule in Rule::ALL {
            assert!(seen.insert(rule.id()), "duplicate id {}", rule.id());
            assert_eq!(Rule::from_id(rule.id()), Some(rule));
            assert!(rule.section().starts_with("SPIR-V §"), "{:?}", rule);
        }
        assert_eq!(Rule::from_id("no.such-rule"), None);
    }
}
