//! Control flow: SSA dominance of uses, and the structured control-flow rules (§2.11,
//! §2.16.1, §2.16.2).
//!
//! Per function we build the CFG with petgraph and three dominator trees:
//! - plain dominance on the CFG, for SSA (`id.dominance`) and block order;
//! - *structural* dominance and post-dominance, on the CFG plus an edge from each header to
//!   its merge block and continue target. This is how the current spec and spirv-val define
//!   back edges and constructs; it keeps a loop whose merge is unreachable (`while (true)`)
//!   well defined.
//!
//! Post-dominance needs every block to reach an exit. A region that never exits (an infinite
//! loop) gets a pseudo edge from its first block to the exit, as spirv-val's augmented CFG does.
//!
//! Constructs are never materialised: membership is a pair of dominator-tree interval tests
//! (`in selection of H` = H dominates B and the merge does not), so the checks stay linear in
//! the number of blocks per construct.

use mir::hash::{HashMap, HashSet};

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use rspirv::dr::Operand;
use spirv::{Op, Word};

use super::{Checker, Def, Place, Site};
use crate::module::{Block, Function, Inst};
use crate::rules::Rule;

/// A dominator tree with interval numbering for O(1) dominance queries.
struct DomTree {
    /// Immediate dominator of each node (`None` for the root and unreachable nodes).
    idom: Vec<Option<usize>>,
    pre: Vec<u32>,
    post: Vec<u32>,
    depth: Vec<u32>,
    reachable: Vec<bool>,
    /// The node whose `pre` number is the index (`usize::MAX` at `post` numbers): a
    /// subtree is the contiguous range between its root's `pre` and `post`.
    by_pre: Vec<usize>,
}

impl DomTree {
    /// Dominators of `graph` (nodes `0..n`, plus any extra nodes) from `root`.
    fn new(graph: &DiGraph<(), ()>, root: usize, n: usize) -> Self {
        let doms = simple_fast(graph, NodeIndex::new(root));
        let mut idom = vec![None; n];
        let mut reachable = vec![false; n];
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (node, slot) in idom.iter_mut().enumerate() {
            if node == root {
                reachable[node] = true;
                continue;
            }
            if let Some(d) = doms.immediate_dominator(NodeIndex::new(node)) {
                reachable[node] = true;
                if d.index() < n {
                    *slot = Some(d.index());
                    children[d.index()].push(node);
                }
            }
        }
        let (mut pre, mut post, mut depth) = (vec![0; n], vec![0; n], vec![0; n]);
        let mut counter = 0;
        let mut by_pre = Vec::with_capacity(2 * n);
        // Iterative DFS over the tree.
        let mut stack = vec![(root, false)];
        while let Some((node, done)) = stack.pop() {
            if done {
                post[node] = counter;
                counter += 1;
                by_pre.push(usize::MAX);
                continue;
            }
            pre[node] = counter;
            counter += 1;
            by_pre.push(node);
            stack.push((node, true));
            for &child in children[node].iter().rev() {
                depth[child] = depth[node] + 1;
                stack.push((child, false));
            }
        }
        DomTree {
            idom,
            pre,
            post,
            depth,
            reachable,
            by_pre,
        }
    }

    /// The nodes `a` dominates (itself included), in tree preorder.
    fn dominated_by(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        let range = if self.reachable[a] {
            self.pre[a] as usize..self.post[a] as usize
        } else {
            0..0
        };
        self.by_pre[range]
            .iter()
            .copied()
            .filter(|&b| b != usize::MAX)
    }

    /// Whether `a` dominates `b` (every node dominates itself).
    fn dominates(&self, a: usize, b: usize) -> bool {
        self.reachable[a]
            && self.reachable[b]
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }
}

/// What kind of header a block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HeaderKind {
    Selection,
    Switch,
    Loop,
}

/// A header block and what its merge instruction declares.
#[derive(Clone, Copy, Debug)]
struct Header {
    block: usize,
    kind: HeaderKind,
    merge: usize,
    /// Loops: the continue target.
    cont: usize,
    /// Loops: the back-edge block, when there is exactly one.
    back_edge: Option<usize>,
}

/// The CFG of one function.
struct Cfg<'m> {
    f: &'m Function,
    index: HashMap<Word, usize>,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    dom: DomTree,
}

impl<'m> Cfg<'m> {
    fn new(f: &'m Function) -> Self {
        let n = f.blocks.len();
        let index: HashMap<Word, usize> = f
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (b.id(), i))
            .collect();
        let mut succs = vec![Vec::new(); n];
        let mut preds = vec![Vec::new(); n];
        for (i, b) in f.blocks.iter().enumerate() {
            for target in branch_targets(b.terminator()) {
                if let Some(&t) = index.get(&target) {
                    if !succs[i].contains(&t) {
                        succs[i].push(t);
                        preds[t].push(i);
                    }
                }
            }
        }
        let mut graph = DiGraph::<(), ()>::with_capacity(n, n);
        for _ in 0..n {
            graph.add_node(());
        }
        for (i, s) in succs.iter().enumerate() {
            for &t in s {
                graph.add_edge(NodeIndex::new(i), NodeIndex::new(t), ());
            }
        }
        let dom = DomTree::new(&graph, 0, n);
        Cfg {
            f,
            index,
            succs,
            preds,
            dom,
        }
    }

    fn block(&self, i: usize) -> &'m Block {
        &self.f.blocks[i]
    }

    fn label(&self, i: usize) -> Word {
        self.f.blocks[i].id()
    }
}

/// The label ids a terminator branches to.
fn branch_targets(inst: &Inst) -> Vec<Word> {
    match inst.opcode() {
        Op::Branch => inst.id_operand(0).into_iter().collect(),
        Op::BranchConditional => [1, 2].iter().filter_map(|&i| inst.id_operand(i)).collect(),
        Op::Switch => inst
            .op
            .operands
            .iter()
            .skip(1)
            .filter_map(|o| match o {
                Operand::IdRef(id) => Some(*id),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// SSA: every use is dominated by its definition.
pub(super) fn check_dominance(c: &mut Checker<'_>, defs: &HashMap<Word, Def>) {
    let module = c.module;
    for (fi, f) in module.functions.iter().enumerate() {
        if f.blocks.is_empty() {
            continue;
        }
        let cfg = Cfg::new(f);
        for (bi, b) in f.blocks.iter().enumerate() {
            if !cfg.dom.reachable[bi] {
                continue;
            }
            for (ii, inst) in b.insts.iter().enumerate() {
                let phi = inst.opcode() == Op::Phi;
                for (i, operand) in inst.op.operands.iter().enumerate() {
                    let Operand::IdRef(id) = operand else {
                        continue;
                    };
                    let Some(def) = defs.get(id) else { continue };
                    let Site::Block(df, db, di) = def.site else {
                        continue;
                    };
                    if df != fi || def.opcode == Op::Label {
                        continue;
                    }
                    let ok = if phi {
                        // The value must be available at the end of its parent block.
                        let parent = inst
                            .id_operand(i + 1)
                            .and_then(|p| cfg.index.get(&p).copied());
                        match parent {
                            Some(p) if cfg.dom.reachable[p] => cfg.dom.dominates(db, p),
                            _ => true,
                        }
                    } else if db == bi {
                        di < ii
                    } else {
                        cfg.dom.dominates(db, bi)
                    };
                    if !ok {
                        let def_label = c.id(f.blocks[db].id());
                        let message = if phi {
                            format!(
                                "{} (defined in block {def_label}) does not dominate the end of \
                                 block {}, the OpPhi parent it is paired with",
                                c.id(*id),
                                c.id(inst.id_operand(i + 1).unwrap_or(0))
                            )
                        } else if db == bi {
                            format!("{} is used before its definition in this block", c.id(*id))
                        } else {
                            format!(
                                "{} is defined in block {def_label}, which does not dominate this \
                                 use: some path reaches here without passing the definition",
                                c.id(*id)
                            )
                        };
                        c.error(Rule::IdDominance, inst, Place::Block(f, b), message);
                    }
                }
            }
        }
    }
}

/// The structured control-flow rules, per function.
pub(super) fn check(c: &mut Checker<'_>) {
    let module = c.module;
    for f in &module.functions {
        if f.blocks.is_empty() || c.full() {
            continue;
        }
        let cfg = Cfg::new(f);
        let before = c.error_count();
        let Some(mut headers) = merge_instructions(c, &cfg) else {
            continue;
        };
        entry_and_order(c, &cfg);
        phis(c, &cfg);
        if c.error_count() > before {
            continue;
        }
        let structure = Structure::new(&cfg, &headers);
        if !back_edges(c, &cfg, &structure, &mut headers) {
            continue;
        }
        if !unstructured(c, &cfg, &structure, &headers) {
            continue;
        }
        loops_and_merges(c, &cfg, &structure, &headers);
        if c.error_count() > before {
            continue;
        }
        constructs(c, &cfg, &structure, &headers);
    }
}

/// Finds the merge instructions, checking where they are and what follows them.
fn merge_instructions(c: &mut Checker<'_>, cfg: &Cfg<'_>) -> Option<Vec<Header>> {
    let f = cfg.f;
    let mut headers = Vec::new();
    let mut ok = true;
    let mut merge_of: HashMap<usize, usize> = HashMap::default();
    for (bi, b) in f.blocks.iter().enumerate() {
        let place = Place::Block(f, b);
        let last = b.insts.len() - 1;
        for (ii, inst) in b.insts.iter().enumerate() {
            let op = inst.opcode();
            if !matches!(op, Op::SelectionMerge | Op::LoopMerge) {
                continue;
            }
            let terminator = b.terminator().opcode();
            let follows_ok = match op {
                Op::SelectionMerge => matches!(terminator, Op::BranchConditional | Op::Switch),
                _ => matches!(terminator, Op::Branch | Op::BranchConditional),
            };
            if ii + 1 != last {
                c.error(
                    Rule::CfgMergePlacement,
                    inst,
                    place,
                    format!("Op{op:?} must be the second-to-last instruction of its block, right before the branch"),
                );
                ok = false;
                continue;
            }
            if !follows_ok {
                let wanted = if op == Op::SelectionMerge {
                    "OpBranchConditional or OpSwitch"
                } else {
                    "OpBranch or OpBranchConditional"
                };
                c.error(
                    Rule::CfgMergePlacement,
                    inst,
                    place,
                    format!("Op{op:?} must be followed by {wanted}, not Op{terminator:?}"),
                );
                ok = false;
                continue;
            }
            let block_of = |i: usize| inst.id_operand(i).and_then(|l| cfg.index.get(&l).copied());
            let (Some(merge), cont) = (block_of(0), block_of(1)) else {
                ok = false;
                continue;
            };
            let kind = match (op, terminator) {
                (Op::LoopMerge, _) => HeaderKind::Loop,
                (_, Op::Switch) => HeaderKind::Switch,
                _ => HeaderKind::Selection,
            };
            if kind == HeaderKind::Loop {
                let Some(cont) = cont else {
                    ok = false;
                    continue;
                };
                if cont == merge {
                    c.error(
                        Rule::CfgMergeContinueDistinct,
                        inst,
                        place,
                        format!(
                            "the loop's Merge Block and Continue Target are both {}",
                            c.id(cfg.label(merge))
                        ),
                    );
                    ok = false;
                }
            }
            if let Some(&other) = merge_of.get(&merge) {
                c.error(
                    Rule::CfgMergeUnique,
                    inst,
                    place,
                    format!(
                        "{} is already the merge block of the header {}",
                        c.id(cfg.label(merge)),
                        c.id(cfg.label(other))
                    ),
                );
                ok = false;
            }
            merge_of.insert(merge, bi);
            headers.push(Header {
                block: bi,
                kind,
                merge,
                cont: if kind == HeaderKind::Loop {
                    cont.unwrap_or(merge)
                } else {
                    merge
                },
                back_edge: None,
            });
        }
    }
    ok.then_some(headers)
}

/// The entry block is no branch target; blocks come after their dominators.
fn entry_and_order(c: &mut Checker<'_>, cfg: &Cfg<'_>) {
    let f = cfg.f;
    for &p in &cfg.preds[0] {
        let b = cfg.block(p);
        c.error(
            Rule::CfgEntryBlockTarget,
            b.terminator(),
            Place::Block(f, b),
            format!(
                "block {} branches to {}, the function's first block",
                c.id(b.id()),
                c.id(cfg.label(0))
            ),
        );
    }
    for bi in 1..f.blocks.len() {
        if let Some(d) = cfg.dom.idom[bi] {
            if d > bi {
                let b = cfg.block(bi);
                c.error(
                    Rule::CfgBlockOrder,
                    &b.label,
                    Place::Block(f, b),
                    format!(
                        "block {} appears before its dominator {}",
                        c.id(b.id()),
                        c.id(cfg.label(d))
                    ),
                );
            }
        }
    }
}

/// OpPhi placement and parents.
fn phis(c: &mut Checker<'_>, cfg: &Cfg<'_>) {
    let f = cfg.f;
    for (bi, b) in f.blocks.iter().enumerate() {
        let place = Place::Block(f, b);
        let mut past_phis = false;
        for inst in &b.insts {
            if inst.opcode() != Op::Phi {
                past_phis = true;
                continue;
            }
            if past_phis {
                c.error(
                    Rule::CfgPhi,
                    inst,
                    place,
                    "OpPhi after other instructions; a block's OpPhis come first",
                );
                continue;
            }
            let preds: HashSet<usize> = cfg.preds[bi].iter().copied().collect();
            let mut seen = HashSet::default();
            let parents: Vec<Word> = inst
                .op
                .operands
                .iter()
                .skip(1)
                .step_by(2)
                .filter_map(|o| match o {
                    Operand::IdRef(id) => Some(*id),
                    _ => None,
                })
                .collect();
            for parent in &parents {
                let p = cfg.index.get(parent).copied();
                if !p.is_some_and(|p| preds.contains(&p)) {
                    c.error(
                        Rule::CfgPhi,
                        inst,
                        place,
                        format!(
                            "OpPhi names {} as a parent, but it does not branch to {}",
                            c.id(*parent),
                            c.id(b.id())
                        ),
                    );
                } else if !seen.insert(*parent) {
                    c.error(
                        Rule::CfgPhi,
                        inst,
                        place,
                        format!("OpPhi names the parent {} twice", c.id(*parent)),
                    );
                }
            }
            if parents.len() != preds.len() && !c.full() {
                let missing: Vec<String> = cfg.preds[bi]
                    .iter()
                    .filter(|&&p| !parents.contains(&cfg.label(p)))
                    .map(|&p| c.id(cfg.label(p)))
                    .collect();
                let mut message = format!(
                    "OpPhi has {} (value, parent) pair(s), but block {} has {} predecessor(s)",
                    parents.len(),
                    c.id(b.id()),
                    preds.len()
                );
                if !missing.is_empty() {
                    message.push_str(&format!("; missing: {}", missing.join(", ")));
                }
                c.error(Rule::CfgPhi, inst, place, message);
            }
        }
    }
}

/// Structural dominance and post-dominance.
struct Structure {
    dom: DomTree,
    post: DomTree,
}

impl Structure {
    fn new(cfg: &Cfg<'_>, headers: &[Header]) -> Self {
        let n = cfg.f.blocks.len();
        let mut edges: Vec<(usize, usize)> = Vec::new();
        for (i, s) in cfg.succs.iter().enumerate() {
            edges.extend(s.iter().map(|&t| (i, t)));
        }
        for h in headers {
            edges.push((h.block, h.merge));
            if h.kind == HeaderKind::Loop {
                edges.push((h.block, h.cont));
            }
        }
        let mut forward = DiGraph::<(), ()>::with_capacity(n, edges.len());
        for _ in 0..n {
            forward.add_node(());
        }
        for &(a, b) in &edges {
            forward.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
        }
        let dom = DomTree::new(&forward, 0, n);

        // Post-dominance: the reversed graph from a pseudo exit that every exiting block (no
        // successors) reaches, plus one block of each region that never exits.
        let exit = n;
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for &(a, b) in &edges {
            out[a].push(b);
        }
        for o in out.iter_mut().take(n) {
            if o.is_empty() {
                o.push(exit);
            }
        }
        loop {
            let reaches = reaches_exit(&out, exit);
            // The first block in layout order that cannot reach the exit heads a region that
            // never exits; give it a pseudo exit edge and look again.
            match (0..n).find(|&i| !reaches[i] && dom.reachable[i]) {
                Some(i) => out[i].push(exit),
                None => break,
            }
        }
        let mut reverse = DiGraph::<(), ()>::with_capacity(n + 1, edges.len() + n);
        for _ in 0..=n {
            reverse.add_node(());
        }
        for (a, targets) in out.iter().enumerate() {
            for &b in targets {
                reverse.add_edge(NodeIndex::new(b), NodeIndex::new(a), ());
            }
        }
        let post = DomTree::new(&reverse, exit, n + 1);
        Structure { dom, post }
    }

    fn dominates(&self, a: usize, b: usize) -> bool {
        self.dom.dominates(a, b)
    }

    fn post_dominates(&self, a: usize, b: usize) -> bool {
        self.post.dominates(a, b)
    }
}

fn reaches_exit(out: &[Vec<usize>], exit: usize) -> Vec<bool> {
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); out.len()];
    for (a, targets) in out.iter().enumerate() {
        for &b in targets {
            into[b].push(a);
        }
    }
    let mut seen = vec![false; out.len()];
    let mut stack = vec![exit];
    seen[exit] = true;
    while let Some(x) = stack.pop() {
        for &p in &into[x] {
            if !seen[p] {
                seen[p] = true;
                stack.push(p);
            }
        }
    }
    seen
}

/// Back edges go to loop headers, one per header; and the CFG is reducible.
fn back_edges(c: &mut Checker<'_>, cfg: &Cfg<'_>, s: &Structure, headers: &mut [Header]) -> bool {
    let f = cfg.f;
    let before = c.error_count();
    let mut count: HashMap<usize, Vec<usize>> = HashMap::default();
    for (a, targets) in cfg.succs.iter().enumerate() {
        // Back edges are counted on the structural CFG (with the header → continue-target
        // edge), as spirv-val does: a loop whose continue target is never reached
        // (`do { …; break; } while (false)`) still has its one back edge there.
        if !s.dom.reachable[a] {
            continue;
        }
        for &b in targets {
            if !s.dominates(b, a) {
                continue;
            }
            let is_loop = headers
                .iter()
                .any(|h| h.block == b && h.kind == HeaderKind::Loop);
            if is_loop {
                count.entry(b).or_default().push(a);
            } else {
                let block = cfg.block(a);
                c.error(
                    Rule::CfgBackEdgeTarget,
                    block.terminator(),
                    Place::Block(f, block),
                    format!(
                        "block {} branches back to {}, which is not a loop header (it has no OpLoopMerge)",
                        c.id(block.id()),
                        c.id(cfg.label(b))
                    ),
                );
            }
        }
    }
    for h in headers.iter_mut() {
        if h.kind != HeaderKind::Loop || !cfg.dom.reachable[h.block] {
            continue;
        }
        let b = cfg.block(h.block);
        let merge_inst = b.before_terminator().unwrap_or(b.terminator());
        // A continue target the header does not dominate is the cause when the back edge is
        // then missing, so it is reported instead.
        if cfg.dom.reachable[h.cont] && !s.dominates(h.block, h.cont) {
            c.error(
                Rule::CfgContinueTarget,
                merge_inst,
                Place::Block(f, b),
                format!(
                    "loop header {} does not dominate its continue target {}: the continue \
                     target is reachable without entering the loop",
                    c.id(b.id()),
                    c.id(cfg.label(h.cont))
                ),
            );
            continue;
        }
        let sources = count.get(&h.block).cloned().unwrap_or_default();
        if sources.len() == 1 {
            h.back_edge = Some(sources[0]);
            continue;
        }
        let from: Vec<String> = sources.iter().map(|&a| c.id(cfg.label(a))).collect();
        c.error(
            Rule::CfgBackEdgeCount,
            merge_inst,
            Place::Block(f, b),
            if sources.is_empty() {
                format!(
                    "loop header {} has no back edge; it needs exactly one",
                    c.id(b.id())
                )
            } else {
                format!(
                    "loop header {} has {} back edges (from {}); it needs exactly one",
                    c.id(b.id()),
                    sources.len(),
                    from.join(", ")
                )
            },
        );
    }
    c.error_count() == before
}

/// §2.16.2: branches and loops must be structured.
fn unstructured(c: &mut Checker<'_>, cfg: &Cfg<'_>, s: &Structure, headers: &[Header]) -> bool {
    let f = cfg.f;
    let before = c.error_count();
    // Branching to a merge block or continue target (a break or continue) or to a case of a
    // switch (a fall-through) needs no merge instruction; what such an edge may do is up to
    // the construct rules.
    let mut exits: HashSet<usize> = headers.iter().flat_map(|h| [h.merge, h.cont]).collect();
    for h in headers.iter().filter(|h| h.kind == HeaderKind::Switch) {
        exits.extend(cfg.succs[h.block].iter().copied());
    }
    for (bi, b) in f.blocks.iter().enumerate() {
        if !cfg.dom.reachable[bi] || headers.iter().any(|h| h.block == bi) {
            continue;
        }
        let term = b.terminator();
        match term.opcode() {
            Op::Switch => c.error(
                Rule::CfgUnstructured,
                term,
                Place::Block(f, b),
                "OpSwitch without an OpSelectionMerge before it",
            ),
            Op::BranchConditional => {
                let targets = &cfg.succs[bi];
                // A conditional break or continue needs no merge; a real two-way branch does.
                if targets.len() == 2 && !targets.iter().any(|t| exits.contains(t)) {
                    c.error(
                        Rule::CfgUnstructured,
                        term,
                        Place::Block(f, b),
                        format!(
                            "conditional branch from {} to {} and {} without an OpSelectionMerge; \
                             a shader's selections must be structured",
                            c.id(b.id()),
                            c.id(cfg.label(targets[0])),
                            c.id(cfg.label(targets[1]))
                        ),
                    );
                }
            }
            _ => {}
        }
    }
    // With back edges removed, a reducible CFG has no cycles.
    let n = f.blocks.len();
    let mut graph = DiGraph::<(), ()>::with_capacity(n, n);
    for _ in 0..n {
        graph.add_node(());
    }
    for (a, targets) in cfg.succs.iter().enumerate() {
        for &b in targets {
            if cfg.dom.reachable[a] && !s.dominates(b, a) {
                graph.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
            }
        }
    }
    if c.error_count() == before && petgraph::algo::is_cyclic_directed(&graph) {
        c.error(
            Rule::CfgUnstructured,
            &f.def,
            Place::Function(f),
            format!(
                "function {} has a cycle that no loop header dominates (irreducible control flow)",
                c.id(f.id())
            ),
        );
    }
    c.error_count() == before
}

/// Continue-target rules, and each header strictly dominating its merge.
fn loops_and_merges(c: &mut Checker<'_>, cfg: &Cfg<'_>, s: &Structure, headers: &[Header]) {
    let f = cfg.f;
    for h in headers {
        if !cfg.dom.reachable[h.block] {
            continue;
        }
        let b = cfg.block(h.block);
        let merge_inst = b.before_terminator().unwrap_or(b.terminator());
        let place = Place::Block(f, b);
        let name = |c: &Checker<'_>, i: usize| c.id(cfg.label(i));
        // Plain dominance, as §2.11 words it: with structural edges every header would
        // dominate its merge.
        if cfg.dom.reachable[h.merge]
            && !(h.merge != h.block && cfg.dom.dominates(h.block, h.merge))
        {
            c.error(
                Rule::CfgHeaderDominatesMerge,
                merge_inst,
                place,
                format!(
                    "header {} does not strictly dominate its merge block {}: the merge block is \
                     reachable without passing the header",
                    name(c, h.block),
                    name(c, h.merge)
                ),
            );
        }
        if h.kind != HeaderKind::Loop {
            continue;
        }
        let Some(back) = h.back_edge else { continue };
        if !s.dominates(h.cont, back) {
            c.error(
                Rule::CfgContinueTarget,
                merge_inst,
                place,
                format!(
                    "the continue target {} does not dominate the back-edge block {}",
                    name(c, h.cont),
                    name(c, back)
                ),
            );
        } else if !s.post_dominates(back, h.cont) {
            c.error(
                Rule::CfgContinueTarget,
                merge_inst,
                place,
                format!(
                    "the back-edge block {} does not post-dominate the continue target {}: a \
                     path from the continue target avoids the back edge",
                    name(c, back),
                    name(c, h.cont)
                ),
            );
        }
    }
}

/// What kind of construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConstructKind {
    Selection,
    Loop,
    Continue,
    Case,
}

/// A construct: its kind, entry block, the header it belongs to, and for cases the target.
#[derive(Clone, Copy, Debug)]
struct Construct {
    kind: ConstructKind,
    entry: usize,
    header: usize,
}

impl ConstructKind {
    fn name(self) -> &'static str {
        match self {
            ConstructKind::Selection => "selection",
            ConstructKind::Loop => "loop",
            ConstructKind::Continue => "continue",
            ConstructKind::Case => "case",
        }
    }
}

struct Constructs<'a> {
    s: &'a Structure,
    headers: &'a [Header],
    list: Vec<Construct>,
}

impl Constructs<'_> {
    fn header(&self, k: &Construct) -> &Header {
        &self.headers[k.header]
    }

    /// Whether block `b` belongs to construct `k`.
    fn contains(&self, k: &Construct, b: usize) -> bool {
        let h = self.header(k);
        let s = self.s;
        if s.dominates(h.merge, b) {
            return false;
        }
        match k.kind {
            ConstructKind::Selection | ConstructKind::Case => s.dominates(k.entry, b),
            ConstructKind::Continue => self.in_continue(h, b),
            ConstructKind::Loop => s.dominates(h.block, b) && !self.in_continue(h, b),
        }
    }

    fn in_continue(&self, h: &Header, b: usize) -> bool {
        match h.back_edge {
            Some(back) => {
                self.s.dominates(h.cont, b)
                    && self.s.post_dominates(back, b)
                    && !self.s.dominates(h.merge, b)
            }
            None => false,
        }
    }

    /// The innermost loop whose loop or continue construct holds block `b`, other than the
    /// loop headed by `except`.
    fn innermost_loop(&self, b: usize, except: Option<usize>) -> Option<&Header> {
        self.headers
            .iter()
            .filter(|h| h.kind == HeaderKind::Loop && Some(h.block) != except)
            .filter(|h| {
                (self.s.dominates(h.block, b) && !self.s.dominates(h.merge, b))
                    || self.in_continue(h, b)
            })
            .max_by_key(|h| self.s.dom.depth[h.block])
    }

    /// The innermost switch whose selection construct holds block `b`.
    fn innermost_switch(&self, b: usize) -> Option<&Header> {
        self.headers
            .iter()
            .filter(|h| h.kind == HeaderKind::Switch)
            .filter(|h| self.s.dominates(h.block, b) && !self.s.dominates(h.merge, b))
            .max_by_key(|h| self.s.dom.depth[h.block])
    }
}

/// The construct rules: entries, exits, nesting, switches.
fn constructs(c: &mut Checker<'_>, cfg: &Cfg<'_>, s: &Structure, headers: &[Header]) {
    let f = cfg.f;
    let mut list = Vec::new();
    for (hi, h) in headers.iter().enumerate() {
        if !s.dom.reachable[h.block] {
            continue;
        }
        match h.kind {
            HeaderKind::Loop => {
                list.push(Construct {
                    kind: ConstructKind::Loop,
                    entry: h.block,
                    header: hi,
                });
                if h.back_edge.is_some() {
                    list.push(Construct {
                        kind: ConstructKind::Continue,
                        entry: h.cont,
                        header: hi,
                    });
                }
            }
            HeaderKind::Selection | HeaderKind::Switch => {
                list.push(Construct {
                    kind: ConstructKind::Selection,
                    entry: h.block,
                    header: hi,
                });
                if h.kind == HeaderKind::Switch {
                    for &t in &cfg.succs[h.block] {
                        if t != h.merge {
                            list.push(Construct {
                                kind: ConstructKind::Case,
                                entry: t,
                                header: hi,
                            });
                        }
                    }
                }
            }
        }
    }
    let ks = Constructs { s, headers, list };
    let name = |c: &Checker<'_>, i: usize| c.id(cfg.label(i));
    for k in &ks.list {
        let h = *ks.header(k);
        // Every block of a construct is dominated by its entry: look only there (a scan of
        // all blocks per construct made validation quadratic in the function's size).
        let mut members: Vec<usize> = s
            .dom
            .dominated_by(k.entry)
            .filter(|&b| ks.contains(k, b))
            .collect();
        members.sort_unstable();
        let member_set: HashSet<usize> = members.iter().copied().collect();
        let what = format!("{} construct headed by {}", k.kind.name(), name(c, k.entry));
        // Entries: from outside only to the entry block.
        for &b in &members {
            for &p in &cfg.preds[b] {
                if b != k.entry && cfg.dom.reachable[p] && !member_set.contains(&p) {
                    let pb = cfg.block(p);
                    c.error(
                        Rule::CfgConstructEntry,
                        pb.terminator(),
                        Place::Block(f, pb),
                        format!(
                            "block {} branches into the {what} at {}, not at its entry",
                            name(c, p),
                            name(c, b)
                        ),
                    );
                }
            }
        }
        // Exits.
        for &b in &members {
            for &t in &cfg.succs[b] {
                if member_set.contains(&t) || exit_allowed(&ks, k, &h, cfg, b, t) {
                    continue;
                }
                let bb = cfg.block(b);
                c.error(
                    Rule::CfgStructuredExit,
                    bb.terminator(),
                    Place::Block(f, bb),
                    format!(
                        "block {} leaves the {what} by branching to {}, which is not a \
                         structured exit (its merge block, a break or continue of the innermost \
                         loop, or the innermost switch's merge)",
                        name(c, b),
                        name(c, t)
                    ),
                );
            }
        }
        // Nesting: headers inside include their merges.
        for &b in &members {
            if b == k.entry {
                continue;
            }
            for inner in headers.iter().filter(|x| x.block == b) {
                if cfg.dom.reachable[inner.merge] && !member_set.contains(&inner.merge) {
                    let ib = cfg.block(b);
                    c.error(
                        Rule::CfgConstructNesting,
                        ib.before_terminator().unwrap_or(ib.terminator()),
                        Place::Block(f, ib),
                        format!(
                            "header {} is inside the {what}, but its merge block {} is not",
                            name(c, b),
                            name(c, inner.merge)
                        ),
                    );
                }
            }
        }
    }
    switches(c, cfg, &ks);
}

/// Whether the edge `b → t` out of construct `k` is a structured exit.
fn exit_allowed(
    ks: &Constructs<'_>,
    k: &Construct,
    h: &Header,
    cfg: &Cfg<'_>,
    b: usize,
    t: usize,
) -> bool {
    if t == h.merge {
        return true;
    }
    match k.kind {
        ConstructKind::Loop => t == h.cont,
        ConstructKind::Continue => t == h.block && Some(b) == h.back_edge,
        ConstructKind::Selection | ConstructKind::Case => {
            if k.kind == ConstructKind::Case
                && h.kind == HeaderKind::Switch
                && cfg.succs[h.block].contains(&t)
            {
                return true; // fall-through to another case of the same switch
            }
            let header_block = h.block;
            let lp = ks.innermost_loop(header_block, None);
            if let Some(l) = lp {
                if t == l.merge || t == l.cont || (t == l.block && Some(b) == l.back_edge) {
                    return true;
                }
            }
            if let Some(sw) = ks.innermost_switch(header_block) {
                let sw = if sw.block == header_block {
                    // The switch's own construct: look for the next one out.
                    ks.headers
                        .iter()
                        .filter(|x| x.kind == HeaderKind::Switch && x.block != header_block)
                        .filter(|x| {
                            ks.s.dominates(x.block, header_block)
                                && !ks.s.dominates(x.merge, header_block)
                        })
                        .max_by_key(|x| ks.s.dom.depth[x.block])
                } else {
                    Some(sw)
                };
                if let Some(sw) = sw {
                    // Breaking out of a switch is fine unless a loop sits between.
                    let loop_inside = lp.is_some_and(|l| ks.s.dominates(sw.block, l.block));
                    if t == sw.merge && !loop_inside {
                        return true;
                    }
                }
            }
            false
        }
    }
}

/// The switch rules for case constructs.
fn switches(c: &mut Checker<'_>, cfg: &Cfg<'_>, ks: &Constructs<'_>) {
    let f = cfg.f;
    let name = |c: &Checker<'_>, i: usize| c.id(cfg.label(i));
    for h in ks.headers.iter().filter(|h| h.kind == HeaderKind::Switch) {
        if !cfg.dom.reachable[h.block] {
            continue;
        }
        let b = cfg.block(h.block);
        let term = b.terminator();
        let place = Place::Block(f, b);
        // Case targets in list order (the default first).
        let targets: Vec<usize> = branch_targets(term)
            .iter()
            .filter_map(|l| cfg.index.get(l).copied())
            .collect();
        let default = targets.first().copied();
        let cases: Vec<&Construct> = ks
            .list
            .iter()
            .filter(|k| k.kind == ConstructKind::Case && ks.headers[k.header].block == h.block)
            .collect();
        let mut branched_to: HashMap<usize, Vec<usize>> = HashMap::default();
        for k in &cases {
            if !ks.s.dominates(h.block, k.entry) {
                c.error(
                    Rule::CfgSwitch,
                    term,
                    place,
                    format!(
                        "the OpSwitch block {} does not dominate its case {}",
                        name(c, h.block),
                        name(c, k.entry)
                    ),
                );
                continue;
            }
            let mut reaches = HashSet::default();
            for blk in (0..f.blocks.len()).filter(|&x| ks.contains(k, x)) {
                for &t in &cfg.succs[blk] {
                    if t != k.entry && cases.iter().any(|o| o.entry == t) {
                        reaches.insert(t);
                    }
                }
            }
            if reaches.len() > 1 {
                let list: Vec<String> = reaches.iter().map(|&t| name(c, t)).collect();
                c.error(
                    Rule::CfgSwitch,
                    term,
                    place,
                    format!(
                        "case {} branches to more than one other case ({})",
                        name(c, k.entry),
                        list.join(", ")
                    ),
                );
            }
            for &t in &reaches {
                branched_to.entry(t).or_default().push(k.entry);
            }
            if let Some(&t2) = reaches.iter().next() {
                // T1 → T2, possibly through the default: T1 must immediately precede T2.
                let target2 = if Some(t2) == default { None } else { Some(t2) };
                if let Some(t2) = target2 {
                    let case_list = &targets[1..];
                    let adjacent = case_list.windows(2).any(|w| w[0] == k.entry && w[1] == t2)
                        || Some(k.entry) == default;
                    if !adjacent {
                        c.error(
                            Rule::CfgSwitch,
                            term,
                            place,
                            format!(
                                "case {} falls through to case {}, which does not immediately \
                                 follow it in the OpSwitch target list",
                                name(c, k.entry),
                                name(c, t2)
                            ),
                        );
                    }
                }
            }
        }
        for (t, from) in branched_to {
            if from.len() > 1 {
                let list: Vec<String> = from.iter().map(|&x| name(c, x)).collect();
                c.error(
                    Rule::CfgSwitch,
                    term,
                    place,
                    format!(
                        "case {} is branched to by more than one other case ({})",
                        name(c, t),
                        list.join(", ")
                    ),
                );
            }
        }
    }
}
