//! Golden MIR: the optimised MIR of a handful of shaders, as `--emit mir` prints it, is
//! compared with the text committed in `tests/golden/mir/`. A change to the optimiser that
//! changes the code shows up here as a diff to review. Each file was chosen for one feature:
//!
//! | shader | shows |
//! |---|---|
//! | mvp_color.vert | the smallest program: a matrix as four multiply-adds |
//! | lights_const_loop.vert | a counted loop unrolled, its uniform indices constant |
//! | helper_functions.vert.opt | early returns of inlined functions, made structured, then selects |
//! | alpha_test.frag | a discard become a kill |
//! | skinning4.vert | dynamic indexing of a bone palette, index arithmetic packed |
//! | particles_scalar.vert | scalar code packed into vector instructions |
//! | switch_texgen.vert | a switch as a chain of ifs |
//! | while_waves.vert | a loop left rolled, with break and continue |
//!
//! After an intended change, rewrite the files with
//! `BLESS=1 cargo test -p tests --test integration mir_golden::` and review the diff.

use tests::fixtures;
use tests::mirtest::lower;

const GOLDEN: &[&str] = &[
    "mvp_color.vert.spv",
    "lights_const_loop.vert.spv",
    "helper_functions.vert.opt.spv",
    "alpha_test.frag.spv",
    "skinning4.vert.spv",
    "particles_scalar.vert.spv",
    "switch_texgen.vert.spv",
    "while_waves.vert.spv",
];

#[test]
fn optimised_mir_matches_the_golden_text() {
    let bless = std::env::var_os("BLESS").is_some();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/mir");
    let mut stale = Vec::new();
    for file in GOLDEN {
        let bytes = std::fs::read(fixtures("glsl").join(file)).expect(file);
        let mut module = lower(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        mir::passes::optimize(&mut module).unwrap_or_else(|e| panic!("{file}: {e}"));
        let text = mir::print::print_module(&module);
        let golden = dir.join(file.replace(".spv", ".mir"));
        if bless {
            std::fs::write(&golden, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_else(|e| {
            panic!("{}: {e} (run with BLESS=1 to create it)", golden.display())
        });
        if expected != text {
            stale.push(format!(
                "{file}: the MIR differs from {}\n--- got ---\n{text}",
                golden.display()
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "{}\n\nIf the change is intended, run BLESS=1 cargo test -p tests --test integration mir_golden:: and review the diff.",
        stale.join("\n")
    );
}
