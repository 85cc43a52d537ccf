//! `cargo run -p tests --bin size-report`: what every corpus shader compiles to, as a
//! markdown table: its SPIR-V instruction count; PICA200 instructions, operand descriptors
//! and constant registers; AGAL tokens, temporaries and constant registers (baseline
//! profile, or standard where baseline refuses it); and the hand-written count where a
//! library or example ships the same shader in assembly. Then every program with a branch,
//! loop or call: its length and the steps it executes (`tests::steps`) on the PICA200 and
//! each AGAL version. Then the hand-written reference set (`tests::handwritten`): each
//! public hand-written program against its GLSL rewrite, in instructions and, for the
//! PICA200, in steps executed.

use std::fmt::Write as _;

use spv2retro::{Options, Profile, Source, Stage, compile};

/// Hand-written programs the corpus reimplements in GLSL: (fixture stem, target,
/// instructions, where it comes from).
const HAND_WRITTEN: &[(&str, &str, usize, &str)] = &[
    ("ctr_simple_tri.vert", "pica", 8, "3ds-examples simple_tri"),
    ("ctr_skybox.vert", "pica", 12, "3ds-examples skybox"),
    (
        "ctr_textured_cube.vert",
        "pica",
        34,
        "3ds-examples textured_cube",
    ),
    ("ctr_lenny.vert", "pica", 29, "3ds-examples lenny"),
    ("stage3d_mesh.vert", "agal", 3, "Starling mesh VS"),
    ("starling_mesh.frag", "agal", 2, "Starling mesh FS"),
    (
        "stage3d_color_matrix.frag",
        "agal",
        7,
        "Starling color matrix",
    ),
    ("stage3d_blur.frag", "agal", 14, "Starling 5-tap blur"),
    ("stage3d_skybox.vert", "agal", 3, "Away3D skybox VS"),
    ("skybox.frag", "agal", 2, "Away3D skybox FS"),
];

/// SPIR-V instructions in a binary module (after the 5-word header).
fn instructions(bytes: &[u8]) -> usize {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut at = 5;
    let mut n = 0;
    while at < words.len() {
        at += (words[at] >> 16).max(1) as usize;
        n += 1;
    }
    n
}

fn main() {
    let mut rows = Vec::new();
    for path in tests::fixture_files("glsl", ".spv") {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let stem = file.strip_suffix(".spv").unwrap().to_string();
        // One row per source: the unoptimised glslang module.
        if stem.contains(".opt")
            || stem.contains(".g")
            || stem.contains(".v13")
            || stem.contains("optsize")
        {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let stage = if stem.ends_with(".frag") || stem.contains(".ps.") {
            Stage::Fragment
        } else {
            Stage::Vertex
        };
        let source = Source::spirv(&bytes).named(&file);
        let pica = match stage {
            Stage::Vertex => match compile(&source, &Options::pica()) {
                Ok(p) => {
                    let s = &p.reflection.stats;
                    format!(
                        "{} | {} | {}",
                        s.instructions,
                        s.operand_descriptors.unwrap_or(0),
                        s.constant_registers
                    )
                }
                Err(e) => format!("{} | | ", rule(&e)),
            },
            _ => "– | – | –".to_string(),
        };
        let agal = [Profile::Baseline, Profile::Standard]
            .into_iter()
            .map(|profile| {
                (
                    profile,
                    compile(&source, &Options::agal(profile).stage(stage)),
                )
            })
            .find(|(_, r)| r.is_ok());
        let agal = match agal {
            Some((profile, Ok(p))) => {
                let s = &p.reflection.stats;
                format!(
                    "{}{} | {} | {}",
                    s.instructions,
                    if profile == Profile::Baseline {
                        ""
                    } else {
                        " (standard)"
                    },
                    s.temporaries,
                    s.constant_registers
                )
            }
            _ => match compile(&source, &Options::agal(Profile::Standard).stage(stage)) {
                Err(e) => format!("{} | | ", rule(&e)),
                Ok(_) => unreachable!("found above"),
            },
        };
        let hand = HAND_WRITTEN
            .iter()
            .filter(|h| h.0 == stem)
            .map(|h| format!("{} {}: {}", h.1, h.3, h.2))
            .collect::<Vec<_>>()
            .join("; ");
        rows.push(format!(
            "| {stem} | {} | {pica} | {agal} | {hand} |",
            instructions(&bytes)
        ));
    }
    println!(
        "| shader | SPIR-V insts | PICA insts | PICA descriptors | PICA constants | AGAL tokens | AGAL temps | AGAL constants | hand-written |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
    println!();
    println!("{}", steps_table());
    println!();
    println!("{}", tests::handwritten::table(&tests::handwritten::all()));
    println!();
    println!("{}", geometry_table());
}

/// devkitPro's hand-written geometry programs beside their GLSL rewrites
/// (`tests::geometry`): words and steps executed, compiled as users get them and without
/// procedures.
fn geometry_table() -> String {
    use tests::geometry::{geoshader, particles};
    let mut out = String::from(
        "Hand-written geometry programs (devkitPro's examples): words / steps executed\n\n\
         | program | values | hand-written | compiled | compiled, --no-procedures |\n\
         |---|---|---|---|---|\n",
    );
    let inline = Options::pica().procedures(false);
    let (_, _, g) = geoshader(&Options::pica());
    let (_, _, n) = geoshader(&inline);
    let mut rows = vec![("geoshader", g, n)];
    for (p, n) in particles(&Options::pica())
        .into_iter()
        .zip(particles(&inline))
    {
        rows.push(("particles", p, n));
    }
    for (name, m, n) in rows {
        let _ = writeln!(
            out,
            "| {name} | {} | {} / {} | {} / {} | {} / {} |",
            m.setting, m.hand.0, m.hand.1, m.compiled.0, m.compiled.1, n.compiled.0, n.compiled.1
        );
    }
    out
}

/// Every corpus shader with a branch, loop or call: its length and the steps it executes
/// (`tests::steps`, at the stated values) on the PICA200 and each AGAL version.
fn steps_table() -> String {
    let mut out = format!(
        "Programs with a branch, loop or call: instructions and steps executed (inputs {}, \
         uniforms {} in every lane)\n\n| shader | PICA200 | AGAL 1 | AGAL 2 | AGAL 3 |\n\
         |---|---|---|---|---|\n",
        tests::steps::INPUT,
        tests::steps::UNIFORM
    );
    for p in tests::steps::corpus() {
        let stem = &p.name;
        let cell =
            |options: Options| tests::steps::outcome(&compile(p.source(), &options.stage(p.stage)));
        let cells = [
            cell(Options::pica()),
            cell(Options::agal(Profile::Baseline)),
            cell(Options::agal(Profile::Standard)),
            cell(Options::agal(Profile::StandardExtended)),
        ];
        out += &format!("| {stem} | {} |\n", cells.join(" | "));
    }
    out
}

/// The rule of an error's first diagnostic (`pica.limit`), for a table cell.
fn rule(e: &spv2retro::Error) -> String {
    e.diagnostics()
        .0
        .first()
        .map(|d| format!("refused: {}", d.rule))
        .unwrap_or_else(|| "refused".into())
}
