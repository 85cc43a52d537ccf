//! `mir::analysis::regions` finds constructs in one walk down the dominator tree; this checks it
//! against the rule it implements, evaluated literally (SPIR-V 2.11: a block is in the
//! construct of header H when H dominates it, H's merge does not, and it is in the construct
//! enclosing H's), on every corpus module before and after optimisation and on generated
//! shaders.

use mir::analysis::regions::{Construct, Regions};
use mir::func::{BlockId, Function};
use tests::generate::vertex_shader;
use tests::mirtest::{Rng, lower};

/// Whether `c` holds `b`, by the definition.
fn holds(r: &Regions, c: &Construct, b: BlockId) -> bool {
    let merge = c.merge();
    r.doms.dominates(c.header, b)
        && !(r.doms.reachable(merge) && r.doms.dominates(merge, b))
        && enclosing(r, c).is_none_or(|e| holds(r, &e, b))
}

/// The deepest other construct holding `c`'s header, by the definition.
fn enclosing(r: &Regions, c: &Construct) -> Option<Construct> {
    r.constructs
        .iter()
        .filter(|e| e.header != c.header && holds(r, e, c.header))
        .max_by_key(|e| r.doms.depth(e.header))
        .copied()
}

/// Compares every construct with every block; returns how many pairs were compared.
fn check(f: &Function, what: &str) -> usize {
    let r = Regions::new(f);
    let mut pairs = 0;
    for c in &r.constructs {
        assert_eq!(r.parent(c), enclosing(&r, c), "{what}: parent of {c:?}");
        for &b in &f.layout {
            assert_eq!(
                r.contains(c, b),
                holds(&r, c, b),
                "{what}: {c:?} holds {b:?}"
            );
            pairs += 1;
        }
    }
    for &b in &f.layout {
        let deepest = r
            .constructs
            .iter()
            .filter(|c| holds(&r, c, b))
            .max_by_key(|c| r.doms.depth(c.header))
            .copied();
        assert_eq!(r.innermost(b, None), deepest, "{what}: innermost of {b:?}");
    }
    pairs
}

#[test]
fn regions_follow_their_definition() {
    let mut pairs = 0;
    let mut constructs = 0;
    for path in tests::fixture_files("glsl", ".spv") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Ok(m) = lower(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        constructs += Regions::new(&m.function).constructs.len();
        pairs += check(&m.function, &name);
        let mut o = m.clone();
        // Only the structure-changing early passes: later ones flatten most constructs.
        mir::passes::run_pass(&mut o, "exits", mir::passes::exits::run).unwrap();
        pairs += check(&o.function, &format!("{name} after exits"));
    }
    for seed in 0..40u64 {
        let mut rng = Rng(0xc0ff_ee00 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let text = vertex_shader(&mut rng, 60);
        let words = frontend_spirv::asm::assemble(&text, &Default::default())
            .unwrap()
            .words;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let m = lower(&bytes).unwrap();
        constructs += Regions::new(&m.function).constructs.len();
        pairs += check(&m.function, &format!("generated {seed}"));
    }
    eprintln!("{constructs} constructs, {pairs} construct/block pairs agree with the rule");
    assert!(
        constructs > 500 && pairs > 10_000,
        "too little was compared"
    );
}
