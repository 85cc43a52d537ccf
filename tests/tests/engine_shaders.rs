//! Engine shaders as their engines hand them to OpenGL (`tests/fixtures/thirdparty/engines`,
//! rebuilt by its `fetch.sh`, described in its README.md): raylib's example shaders, PixiJS's
//! and pixi-filters' filters, LÖVE's default shaders, OpenFL's shaders and a selection of
//! libretro's glsl-shaders, each as the text the engine assembles, with glslang's SPIR-V of the
//! same text as an independent reference. `MANIFEST.tsv` lists the stage texts.
//!
//! - [`engine_shaders_compile_or_are_refused_by_a_listed_rule`]: every text is compiled from
//!   its GLSL for every target it has a stage for (the PICA200 for vertex shaders; AGAL
//!   `baseline`, `standard`, `standardExtended` for both), and glslang's `.spv` likewise. A
//!   panic or an internal error fails; the texts compiled per target may not fall below
//!   `FLOOR_*` (raise them as the front end improves); and every refusal's rule must be in
//!   [`KNOWN_RULES`], so that a new way of being refused, while being read or by a target,
//!   shows up. A fragment shader refused only because it reads `gl_FragCoord` is compiled
//!   again with [`POSITION_VARYING`], as an application compiling it alone would. With
//!   `--nocapture` it prints the table (engine, file, stage, per target `OK`, `OK+pos` or the
//!   refusal's rule, and under each refusal its first diagnostic), the counts per engine and
//!   target, and the refusals by rule with an example each.
//! - [`engine_shaders_compute_what_glslangs_spirv_computes`]: for every text that compiles both
//!   from its GLSL and from glslang's `.spv`, on every target, both programs run in the
//!   simulators on [`CASES`] random cases: inputs and uniforms by reflection name (the same
//!   name gets the same values in both; integer and bool uniforms whole values; a row-major
//!   matrix transposed), textures by sampler name (a smooth formula of the coordinate, a
//!   different one per name, with the simulator's exact textures), and every output lane must
//!   agree: relative 1e-3 on the PICA200 (float24), 1e-4 on AGAL (float32), with as much
//!   absolute slack near 0. Vertex outputs are matched by name (the k-th of several entries of
//!   one name, an array's elements from GLSL, as `name[k]`, the SPIR-V spelling), fragment
//!   outputs by register. Lanes that are not finite in either program are skipped (`pow`,
//!   `log`, `sqrt` of what the random values make negative are undefined in GLSL). When lanes
//!   differ, the GLSL program runs again on a nearby case (every value nudged by 1e-5, 3e-5 on
//!   the PICA200): a lane that moves beyond the tolerance there hinges on rounding (a `step`,
//!   `floor` or comparison at its edge, or an ill-conditioned formula); it is skipped and
//!   counted, and when no other lane differs the case is drawn again (up to [`REDRAWS`]
//!   times). Fails on any other difference, on a program that cannot run, and on uniforms
//!   whose reflected registers overlap (an application cannot set both; the SPIR-V program is
//!   then compiled again with its uniforms' locations spaced by their sizes, to still compare
//!   what it computes). `ENGINE_SHADERS_SHOW=PART` prints both programs (reflection and
//!   listing) of the texts whose name and target contain PART.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, Texture, VertexInputs, run_fragment, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, ErrorKind, Fault, Options, Profile, Source, Stage, Target, compile};
use tests::mirtest::Rng;

/// The targets, as the table names them. The PICA200 takes vertex shaders only.
const TARGETS: [&str; 4] = ["pica", "baseline", "standard", "standardExtended"];

/// How many texts compile from GLSL for each target, at least: of the 77 vertex texts for the
/// PICA200, of all 256 texts for each AGAL profile (a fragment shader compiled with
/// [`POSITION_VARYING`] for `gl_FragCoord` counts). Raise these as the front end improves; a
/// regression fails.
const FLOOR_PICA: usize = 64;
const FLOOR_BASELINE: usize = 209;
const FLOOR_STANDARD: usize = 234;
const FLOOR_STANDARD_EXTENDED: usize = 234;
const FLOOR: [usize; 4] = [
    FLOOR_PICA,
    FLOOR_BASELINE,
    FLOOR_STANDARD,
    FLOOR_STANDARD_EXTENDED,
];

/// Every rule a refusal may name. A rule not listed fails the test: add it here once its
/// refusals are understood.
const KNOWN_RULES: &[&str] = &[
    // Refused while reading the text (the GLSL front end).
    "naga.glsl",
    "glsl.classic",
    // What a target cannot do or hold.
    "agal.limit",
    "agal.unsupported",
    "pica.interface",
    "pica.unsupported",
    "lower.integer",
    "lower.interface",
];

fn options(target: usize) -> Options {
    match target {
        0 => Options::pica(),
        1 => Options::agal(Profile::Baseline),
        2 => Options::agal(Profile::Standard),
        _ => Options::agal(Profile::StandardExtended),
    }
}

/// One line of MANIFEST.tsv: a stage text, and glslang's SPIR-V of it when there is one.
struct Shader {
    file: String,
    engine: String,
    stage: Stage,
    text: String,
    spv: Option<Vec<u8>>,
}

/// Why a compile did not give a program.
#[derive(Clone)]
struct Refusal {
    rule: String,
    /// The first diagnostic, on one line.
    line: String,
}

/// A compile's outcome; `None` where the target has no such stage.
type Outcome = Option<Result<Compiled, Refusal>>;

struct Compiles {
    shaders: Vec<Shader>,
    /// Per shader, per target: from the GLSL text, and from glslang's SPIR-V.
    text: Vec<[Outcome; 4]>,
    spv: Vec<[Outcome; 4]>,
    /// Panics and internal errors.
    failures: Vec<String>,
}

fn manifest() -> Vec<Shader> {
    let dir = tests::fixtures("thirdparty/engines");
    let tsv = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    tsv.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 7, "MANIFEST.tsv: {line}");
            let bytes = std::fs::read(dir.join(f[0])).unwrap_or_else(|e| panic!("{}: {e}", f[0]));
            Shader {
                file: f[0].to_string(),
                engine: f[1].to_string(),
                stage: if f[2] == "vertex" {
                    Stage::Vertex
                } else {
                    Stage::Fragment
                },
                // A comment may hold bytes that are not UTF-8; the compiler takes text.
                text: String::from_utf8_lossy(&bytes).into_owned(),
                spv: (f[6] != "-").then(|| {
                    std::fs::read(dir.join(f[6])).unwrap_or_else(|e| panic!("{}: {e}", f[6]))
                }),
            }
        })
        .collect()
}

/// The start of the refusal of a fragment shader that reads `gl_FragCoord` compiled alone.
const FRAG_COORD_ALONE: &str = "gl_FragCoord: AGAL has no register";

/// The varying a fragment program compiled alone reads `gl_FragCoord` from (the last of the
/// eight every profile has), as an application compiling the stages separately chooses it.
const POSITION_VARYING: u32 = 7;

/// Compiles `source` for `target`; a fragment shader refused only because AGAL has no
/// `gl_FragCoord` register is compiled again as an application compiling it alone does, with
/// [`POSITION_VARYING`] set (and counted as compiled). A panic or an internal error goes to
/// `failures`.
fn attempt(source: Source<'_>, target: usize, what: &str, failures: &mut Vec<String>) -> Outcome {
    let first = attempt_with(&source, options(target), target, what, failures);
    if let Some(Err(r)) = &first {
        if r.line.contains(FRAG_COORD_ALONE) {
            let mut o = options(target);
            o.position_varying = Some(POSITION_VARYING);
            return attempt_with(&source, o, target, what, failures);
        }
    }
    first
}

fn attempt_with(
    source: &Source<'_>,
    options: Options,
    target: usize,
    what: &str,
    failures: &mut Vec<String>,
) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| compile(source, &options))) {
        Err(_) => {
            failures.push(format!("{what} ({}): panicked", TARGETS[target]));
            None
        }
        Ok(Ok(c)) => Some(Ok(c)),
        Ok(Err(e)) => {
            let internal = e.kind() == ErrorKind::Internal
                || e.diagnostics()
                    .0
                    .iter()
                    .any(|d| d.fault() == Fault::Internal || d.rule.ends_with(".internal"));
            if internal {
                failures.push(format!("{what} ({}): {e}", TARGETS[target]));
            }
            let first = e.diagnostics().0.first();
            Some(Err(Refusal {
                rule: first.map_or("(no rule)".into(), |d| d.rule.to_string()),
                line: first.map_or_else(
                    || e.to_string().lines().next().unwrap_or("").to_string(),
                    |d| format!("{}: {}", d.rule, d.message.replace('\n', " ")),
                ),
            }))
        }
    }
}

/// Every compile, once for both tests.
fn compiles() -> &'static Compiles {
    static COMPILES: OnceLock<Compiles> = OnceLock::new();
    COMPILES.get_or_init(|| {
        let shaders = manifest();
        let mut failures = Vec::new();
        let mut text = Vec::new();
        let mut spv = Vec::new();
        for s in &shaders {
            let mut t: [Outcome; 4] = Default::default();
            let mut v: [Outcome; 4] = Default::default();
            for target in 0..4 {
                if target == 0 && s.stage != Stage::Vertex {
                    continue;
                }
                t[target] = attempt(
                    Source::glsl(&s.text, s.stage).named(&s.file),
                    target,
                    &s.file,
                    &mut failures,
                );
                if let Some(bytes) = &s.spv {
                    let name = format!("{}.spv", s.file);
                    v[target] = attempt(
                        Source::spirv(bytes).named(&name),
                        target,
                        &name,
                        &mut failures,
                    );
                }
            }
            text.push(t);
            spv.push(v);
        }
        Compiles {
            shaders,
            text,
            spv,
            failures,
        }
    })
}

#[test]
fn engine_shaders_compile_or_are_refused_by_a_listed_rule() {
    let c = compiles();
    assert!(
        c.shaders.len() >= 250,
        "only {} stage texts",
        c.shaders.len()
    );
    // The table.
    println!("engine\tfile\tstage\t{}", TARGETS.join("\t"));
    for (k, s) in c.shaders.iter().enumerate() {
        let cell = |o: &Outcome| match o {
            None => "-".to_string(),
            // Compiled with POSITION_VARYING for gl_FragCoord.
            Some(Ok(p))
                if p.reflection
                    .uniforms
                    .iter()
                    .any(|u| u.name == "spv2retro_viewport") =>
            {
                "OK+pos".to_string()
            }
            Some(Ok(_)) => "OK".to_string(),
            Some(Err(r)) => r.rule.clone(),
        };
        println!(
            "{}\t{}\t{}\t{}",
            s.engine,
            s.file,
            s.stage.name(),
            c.text[k].iter().map(cell).collect::<Vec<_>>().join("\t")
        );
        for (target, o) in c.text[k].iter().enumerate() {
            if let Some(Err(r)) = o {
                println!("\t\t{}: {}", TARGETS[target], r.line);
            }
        }
    }
    // The counts: per engine and target, compiled from the text, from glslang's SPIR-V, and
    // the refusals by rule.
    let mut engines: Vec<&str> = Vec::new();
    for s in &c.shaders {
        if !engines.contains(&s.engine.as_str()) {
            engines.push(&s.engine);
        }
    }
    let mut totals = [0usize; 4];
    let mut by_rule: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for engine in &engines {
        for target in 0..4 {
            let (mut n, mut from_text, mut from_spv, mut spvs) = (0, 0, 0, 0);
            let mut rules: BTreeMap<&str, usize> = BTreeMap::new();
            for (k, s) in c.shaders.iter().enumerate() {
                if s.engine != *engine {
                    continue;
                }
                match &c.text[k][target] {
                    None => continue,
                    Some(Ok(_)) => from_text += 1,
                    Some(Err(r)) => {
                        *rules.entry(&r.rule).or_default() += 1;
                        let e = by_rule.entry(format!("{} {}", r.rule, TARGETS[target]));
                        e.or_insert((0, format!("{}: {}", s.file, r.line))).0 += 1;
                    }
                }
                n += 1;
                if s.spv.is_some() {
                    spvs += 1;
                }
                if let Some(Ok(_)) = &c.spv[k][target] {
                    from_spv += 1;
                }
            }
            totals[target] += from_text;
            if n > 0 {
                println!(
                    "{engine} {}: {from_text}/{n} from GLSL, {from_spv}/{spvs} from glslang's \
                     SPIR-V; refused {rules:?}",
                    TARGETS[target]
                );
            }
        }
    }
    println!("compiled from GLSL per target {TARGETS:?}: {totals:?}");
    for (rule, (n, example)) in &by_rule {
        println!("{n:4} {rule}\n       e.g. {example}");
    }
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
    for target in 0..4 {
        assert!(
            totals[target] >= FLOOR[target],
            "{}: {} compile, fewer than {}",
            TARGETS[target],
            totals[target],
            FLOOR[target]
        );
    }
    let unlisted: Vec<&String> = by_rule
        .keys()
        .filter(|k| !KNOWN_RULES.contains(&k.split(' ').next().unwrap()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "refused by rules not in KNOWN_RULES: {unlisted:?}"
    );
}

// --- The differential run ------------------------------------------------------------------------

/// Random cases per program pair and target.
const CASES: usize = 4;
/// Extra draws allowed when a case's inputs sit where the result hinges on rounding.
const REDRAWS: usize = 4;

/// A register's number as the reflection spells it (`vc12` is 12; `oc` and `op` are 0).
fn number(register: &str) -> usize {
    register
        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(0)
}

/// 64 bits from a name and a case: the same name gets the same values in both programs.
fn hash(name: &str, seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What a uniform holds, by its reflection type: how many lanes of each register it fills,
/// and what kind of values (`f`loat, `i`nteger, `b`ool).
fn uniform_shape(type_name: &str) -> (usize, char) {
    let base = type_name.split('[').next().unwrap_or(type_name);
    let kind = if base.starts_with("bool") || base.starts_with("bvec") {
        'b'
    } else if base.starts_with("int")
        || base.starts_with("uint")
        || base.starts_with("ivec")
        || base.starts_with("uvec")
    {
        'i'
    } else {
        'f'
    };
    let digits: String = base.chars().filter(char::is_ascii_digit).collect();
    let lanes = if base.starts_with("mat") {
        // matN or matCxR: a register per column, R lanes each.
        digits
            .chars()
            .last()
            .and_then(|d| d.to_digit(10))
            .unwrap_or(4) as usize
    } else {
        digits.parse::<usize>().unwrap_or(1)
    };
    (lanes.clamp(1, 4), kind)
}

/// A matrix type's columns and rows (`mat3` is (3, 3), `mat2x4` (2, 4)).
fn matrix_size(type_name: &str) -> Option<(usize, usize)> {
    let base = type_name.split('[').next()?.strip_prefix("mat")?;
    let mut sizes = base.split('x').map(|n| n.parse::<usize>().ok());
    let columns = sizes.next()??;
    let rows = sizes.next().map_or(Some(columns), |r| r)?;
    Some((columns, rows))
}

/// The inputs of one case: uniform, input and texture values by name.
#[derive(Clone, Copy)]
struct Case {
    seed: u64,
    /// Float uniforms in [0.05, 0.95] as inputs are (the combiners' colours are bytes),
    /// rather than in [0.25, 1.25].
    unit: bool,
    /// Relative nudge of every input and uniform (0 for the case itself): a nearby case, to
    /// see whether a lane's value hinges on rounding.
    nudge: f32,
}

impl Case {
    fn value(&self, name: &str, k: usize, kind: char) -> f32 {
        let mut rng =
            Rng(hash(name, self.seed) ^ (k as u64).wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
        rng.next_u64();
        match kind {
            'b' => f32::from(u8::from(rng.next_u64() & 1 == 1)),
            'i' => (1 + rng.next_u64() % 3) as f32,
            // Inputs (`x`): texture coordinates, colours, positions; uniforms: positive, away
            // from 0 (sizes and strengths are divided by).
            'x' => rng.float(0.05, 0.95) * (1.0 + self.nudge),
            _ if self.unit => rng.float(0.05, 0.95) * (1.0 + self.nudge),
            _ => rng.float(0.25, 1.25) * (1.0 + self.nudge),
        }
    }

    /// The constant registers a program reads: its literals, and each uniform's lanes.
    fn constants(&self, c: &Compiled) -> (Vec<[f32; 4]>, [bool; 16]) {
        let mut regs = vec![[0.0f32; 4]; 256];
        let mut bools = [false; 16];
        for k in c
            .reflection
            .constants
            .iter()
            .filter(|k| !k.register.starts_with('i'))
        {
            regs[number(&k.register)] = k.value;
        }
        for u in &c.reflection.uniforms {
            let (lanes, kind) = uniform_shape(&u.type_name);
            let first = number(&u.register);
            if u.register.starts_with('b') {
                bools[first] = self.value(&u.name, 0, 'b') != 0.0;
                continue;
            }
            // A row-major matrix holds a row per register: the same element (column c, row r)
            // gets the same value as in a column-major one.
            let rows = match (u.layout.as_deref(), matrix_size(&u.type_name)) {
                (Some("row_major"), Some((_, rows))) => Some(rows),
                _ => None,
            };
            let mut k = 0;
            for r in 0..u.count as usize {
                let start = if r == 0 { usize::from(u.component) } else { 0 };
                let lanes = rows.map_or(lanes, |_| matrix_size(&u.type_name).map_or(4, |m| m.0));
                for lane in start..(start + lanes).min(4) {
                    let element = match rows {
                        // register r is row r % rows of matrix r / rows; lane is the column
                        Some(rows) => (r / rows) * rows * lanes + lane * rows + r % rows,
                        None => k,
                    };
                    if let Some(reg) = regs.get_mut(first + r) {
                        reg[lane] = self.value(&u.name, element, kind);
                    }
                    k += 1;
                }
            }
        }
        (regs, bools)
    }

    /// An input's four lanes.
    fn input(&self, name: &str) -> [f32; 4] {
        std::array::from_fn(|k| self.value(name, k, 'x'))
    }
}

/// A texture that is a smooth formula of the coordinate, different for each sampler name
/// (the simulator's exact textures: no filtering, wrapping or mip level in between).
struct Formula {
    cube: bool,
    phase: f32,
}

impl Texture for Formula {
    fn is_cube(&self) -> bool {
        self.cube
    }
    fn levels(&self) -> u32 {
        1
    }
    fn size(&self, _level: u32) -> (u32, u32) {
        (4, 4)
    }
    fn texel(&self, _face: u32, _level: u32, _x: u32, _y: u32) -> [f32; 4] {
        [0.0; 4]
    }
    fn exact(&self, c: [f32; 4], _bias: f32) -> Option<[f32; 4]> {
        let (x, y, z, p) = (c[0], c[1], if self.cube { c[2] } else { 0.0 }, self.phase);
        Some([
            0.5 + 0.4 * (3.0 * x + y + p).sin(),
            0.5 + 0.4 * (2.0 * y - x + z + 2.0 * p).cos(),
            0.5 + 0.4 * (x * y + z + 3.0 * p).sin(),
            0.75 + 0.2 * (x + 2.0 * y - z + p).cos(),
        ])
    }
}

/// The reflection's input or output names, with the k-th of several entries of one name (the
/// elements of an array, which the GLSL front end names after the array) as `name[k]`, the
/// spelling the SPIR-V front end uses.
fn indexed<'a>(names: impl Iterator<Item = &'a str> + Clone) -> Vec<String> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    names
        .clone()
        .map(|n| {
            let total = names.clone().filter(|m| *m == n).count();
            let k = seen.entry(n).or_default();
            *k += 1;
            if total > 1 {
                format!("{n}[{}]", *k - 1)
            } else {
                n.to_string()
            }
        })
        .collect()
}

/// `module` with its loose uniforms' (`UniformConstant` variables that are not samplers)
/// `Location`s spaced by the registers each takes, in their order. In OpenGL a uniform
/// location is a handle (a `mat4` takes one, as glslang's `--auto-map-locations` gives them);
/// the compiler takes it as the first register.
fn respaced_uniform_locations(module: &[u8]) -> Vec<u8> {
    let mut words: Vec<u32> = module
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut types: BTreeMap<u32, Vec<u32>> = BTreeMap::new(); // id -> opcode and operands
    let mut constants: BTreeMap<u32, u32> = BTreeMap::new();
    let mut uniforms: BTreeMap<u32, u32> = BTreeMap::new(); // variable -> pointee type
    let mut locations = Vec::new(); // (location, variable, word index of the location)
    let mut at = 5;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        let w = &words[at..at + count];
        match w[0] & 0xffff {
            // OpTypeBool … OpTypeStruct, OpTypePointer: by result id
            20..=32 => {
                types.insert(w[1], w.to_vec());
            }
            // OpConstant
            43 if count >= 4 => {
                constants.insert(w[2], w[3]);
            }
            // OpVariable, UniformConstant
            59 if w[3] == 0 => {
                if let Some(ptr) = types.get(&w[1]) {
                    uniforms.insert(w[2], ptr[3]);
                }
            }
            // OpDecorate %x Location L
            71 if count >= 4 && w[2] == 30 => locations.push((w[3], w[1], at + 3)),
            _ => {}
        }
        at += count;
    }
    fn span(
        types: &BTreeMap<u32, Vec<u32>>,
        constants: &BTreeMap<u32, u32>,
        ty: u32,
    ) -> Option<u32> {
        let t = types.get(&ty)?;
        match t[0] & 0xffff {
            20..=23 => Some(1),
            24 => Some(t[3]),
            28 => Some(constants.get(&t[3])? * span(types, constants, t[2])?),
            30 => t[2..].iter().map(|&m| span(types, constants, m)).sum(),
            _ => None, // an image, a sampler: not a register
        }
    }
    locations.sort();
    let mut next = 0;
    for (_, variable, word) in locations {
        let Some(&ty) = uniforms.get(&variable) else {
            continue;
        };
        let Some(n) = span(&types, &constants, ty) else {
            continue;
        };
        words[word] = next;
        next += n;
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Uniforms whose registers overlap (an application cannot set both): `None` when none do.
fn overlapping_uniforms(c: &Compiled) -> Option<String> {
    let mut owner: BTreeMap<(String, usize, usize), &str> = BTreeMap::new();
    for u in &c.reflection.uniforms {
        let (lanes, _) = uniform_shape(&u.type_name);
        let file: String = u
            .register
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        let first = number(&u.register);
        for r in 0..u.count as usize {
            let start = if r == 0 { usize::from(u.component) } else { 0 };
            for lane in start..(start + lanes).min(4) {
                let key = (file.clone(), first + r, lane);
                if let Some(other) = owner.insert(key, &u.name) {
                    return Some(format!(
                        "uniforms `{other}` and `{}` both hold {file}{} lane {lane}",
                        u.name,
                        first + r
                    ));
                }
            }
        }
    }
    None
}

/// The lanes a program's outputs hold after one run, by output name (several reflection
/// entries of a name are concatenated in order), and whether the fragment was discarded.
type Outputs = (BTreeMap<String, Vec<f32>>, bool);

/// Runs a compiled program on a case; `Err` says why it could not run.
fn run(c: &Compiled, case: &Case) -> Result<Outputs, String> {
    let (constants, bools) = case.constants(c);
    let input_names = indexed(c.reflection.inputs.iter().map(|i| i.name.as_str()));
    let output_names = indexed(c.reflection.outputs.iter().map(|o| o.name.as_str()));
    let mut outputs: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    let lanes = |mask: &str, v: [f32; 4]| -> Vec<f32> {
        "xyzw"
            .chars()
            .zip(v)
            .filter(|(l, _)| mask.contains(*l))
            .map(|(_, x)| x)
            .collect()
    };
    match (c.target, c.stage) {
        (Target::Pica, _) => {
            let sim = Simulator::new(&c.bytes).map_err(|e| format!("load: {e}"))?;
            let mut inputs = [[0.0f32; 4]; 16];
            for (i, name) in c.reflection.inputs.iter().zip(&input_names) {
                inputs[number(&i.register).min(15)] = case.input(name);
            }
            let mut u = Uniforms::default();
            for (slot, v) in u.float.iter_mut().zip(&constants) {
                *slot = *v;
            }
            u.bool = bools;
            let out = sim.run(0, &inputs, &u).map_err(|e| format!("run: {e}"))?;
            for (k, o) in c.reflection.outputs.iter().enumerate() {
                let v = out.outputs[number(&o.register).min(15)];
                outputs
                    .entry(output_names[k].clone())
                    .or_default()
                    .extend(lanes(&o.mask, v));
            }
            Ok((outputs, false))
        }
        (Target::Agal, Stage::Vertex) => {
            let p = Program::decode(&c.bytes).map_err(|e| format!("decode: {e}"))?;
            let mut attributes = vec![[0.0f32; 4]; 16];
            for (i, name) in c.reflection.inputs.iter().zip(&input_names) {
                attributes[number(&i.register).min(15)] = case.input(name);
            }
            let out = run_vertex(
                &p,
                &VertexInputs {
                    attributes: &attributes,
                    constants: &constants,
                    instance_id: 0,
                },
            )
            .map_err(|e| format!("run: {e}"))?;
            for (k, o) in c.reflection.outputs.iter().enumerate() {
                let v = if o.register == "op" {
                    out.position
                } else {
                    out.varyings[number(&o.register).min(9)]
                };
                outputs
                    .entry(output_names[k].clone())
                    .or_default()
                    .extend(lanes(&o.mask, v));
            }
            Ok((outputs, false))
        }
        (Target::Agal, _) => {
            let p = Program::decode(&c.bytes).map_err(|e| format!("decode: {e}"))?;
            let mut varyings = vec![[0.0f32; 4]; 10];
            for (i, name) in c.reflection.inputs.iter().zip(&input_names) {
                varyings[number(&i.register).min(9)] = case.input(name);
            }
            let textures: Vec<Formula> = (0..16)
                .map(|k| {
                    let s = c
                        .reflection
                        .samplers
                        .iter()
                        .find(|s| number(&s.register) == k);
                    Formula {
                        cube: s.is_some_and(|s| s.dim == "cube"),
                        phase: s.map_or(0.0, |s| (hash(&s.name, 7) % 1000) as f32 / 250.0),
                    }
                })
                .collect();
            let bound: Vec<&dyn Texture> = textures.iter().map(|t| t as &dyn Texture).collect();
            let out = run_fragment(
                &p,
                &varyings,
                &FragmentInputs {
                    constants: &constants,
                    textures: &bound,
                },
            )
            .map_err(|e| format!("run: {e}"))?;
            // By register: a fragment output is where it goes (`gl_FragColor` and an `out vec4`
            // at location 0 are both `oc`).
            for o in &c.reflection.outputs {
                let v = if o.register.starts_with("od") {
                    [out.depth.unwrap_or(0.0), 0.0, 0.0, 0.0]
                } else {
                    out.colors[number(&o.register).min(3)]
                };
                outputs
                    .entry(o.register.clone())
                    .or_default()
                    .extend(lanes(&o.mask, v));
            }
            Ok((outputs, out.discarded))
        }
    }
}

/// Whether two lanes agree: relative 1e-3 on the PICA200 (float24), 1e-4 on AGAL (float32),
/// with that much absolute slack near 0.
fn agree(a: f32, b: f32, target: Target) -> bool {
    let tolerance = if target == Target::Pica { 1e-3 } else { 1e-4 };
    a == b || (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn engine_shaders_compute_what_glslangs_spirv_computes() {
    let c = compiles();
    let mut mismatches = Vec::new();
    let mut failures = Vec::new();
    let (mut pairs, mut cases, mut lanes, mut hinged, mut undefined, mut redrawn) =
        (0, 0, 0, 0, 0, 0);
    let mut layouts = Vec::new();
    let mut overlaps = Vec::new();
    let mut relocated = 0;
    let mut names = std::collections::BTreeSet::new();
    for (k, s) in c.shaders.iter().enumerate() {
        for (target, target_name) in TARGETS.iter().enumerate() {
            let (Some(Ok(a)), Some(Ok(b))) = (&c.text[k][target], &c.spv[k][target]) else {
                continue;
            };
            pairs += 1;
            let what = format!("{} ({target_name})", s.file);
            // Uniforms sharing registers are a failure of their own; the SPIR-V's program is
            // then compiled again with its uniforms' locations spaced by their sizes, to
            // compare what it computes.
            if let Some(o) = overlapping_uniforms(a) {
                overlaps.push(format!("{what}: from GLSL: {o}"));
                continue;
            }
            let replaced;
            let b = match overlapping_uniforms(b) {
                None => b,
                Some(o) => {
                    overlaps.push(format!("{what}: from glslang's SPIR-V: {o}"));
                    let module = respaced_uniform_locations(s.spv.as_deref().unwrap_or_default());
                    let name = format!("{}.spv", s.file);
                    match attempt(
                        Source::spirv(&module).named(&name),
                        target,
                        &name,
                        &mut failures,
                    ) {
                        Some(Ok(p)) if overlapping_uniforms(&p).is_none() => {
                            relocated += 1;
                            replaced = p;
                            &replaced
                        }
                        _ => continue,
                    }
                }
            };
            // The names an application looks inputs and vertex outputs up by: the same from
            // both? (A fragment output is compared by register: the text's own `#if
            // __VERSION__` branches name it `gl_FragColor` or an `out` variable.) Printed once
            // per text, not a failure.
            let spelled = |p: &Compiled| {
                let outputs = p
                    .reflection
                    .outputs
                    .iter()
                    .filter(|_| s.stage == Stage::Vertex);
                let mut n: Vec<String> = (p.reflection.inputs.iter())
                    .map(|i| format!("in {}", i.name))
                    .chain(outputs.map(|o| format!("out {}", o.name)))
                    .collect();
                n.sort();
                n.dedup();
                n
            };
            let (na, nb) = (spelled(a), spelled(b));
            if na != nb {
                let only = |x: &[String], y: &[String]| {
                    let o: Vec<&str> = x
                        .iter()
                        .filter(|n| !y.contains(n))
                        .map(|n| n.as_str())
                        .collect();
                    o.join(", ")
                };
                names.insert(format!(
                    "{}: from GLSL only [{}]; from glslang's SPIR-V only [{}]",
                    s.file,
                    only(&na, &nb),
                    only(&nb, &na)
                ));
            }
            // ENGINE_SHADERS_SHOW=PART prints both programs of the texts whose name contains it.
            if std::env::var("ENGINE_SHADERS_SHOW").is_ok_and(|p| what.contains(&p)) {
                for (from, p) in [("GLSL", a), ("glslang's SPIR-V", b)] {
                    let json = serde_json::to_string_pretty(&p.reflection).unwrap_or_default();
                    println!("=== {what} from {from}\n{json}\n{}", p.listing);
                }
            }
            let mut good = 0;
            let mut draw = 0u64;
            while good < CASES && draw < (CASES + REDRAWS) as u64 {
                let case = Case {
                    unit: false,
                    seed: hash(&what, draw),
                    nudge: 0.0,
                };
                draw += 1;
                let (x, y) = match (run(a, &case), run(b, &case)) {
                    (Ok(x), Ok(y)) => (x, y),
                    (Err(e), _) => {
                        failures.push(format!("{what}: from GLSL: {e}"));
                        break;
                    }
                    (_, Err(e)) => {
                        failures.push(format!("{what}: from glslang's SPIR-V: {e}"));
                        break;
                    }
                };
                // Lanes that differ beyond the tolerance; then, for those only, a nearby case:
                // a lane whose own value moves beyond the tolerance there hinges on rounding.
                let mut differing = Vec::new();
                let mut shapes = Vec::new();
                // A fragment both programs discard has no colour to compare.
                let both_discarded = x.1 && y.1;
                for (name, xs) in x.0.iter().filter(|_| !both_discarded) {
                    let Some(ys) = y.0.get(name) else { continue };
                    if xs.len() != ys.len() {
                        shapes.push(format!(
                            "{name}: {} lanes from GLSL, {} from SPIR-V",
                            xs.len(),
                            ys.len()
                        ));
                        continue;
                    }
                    // A fragment's depth reaches the depth buffer clamped to [0, 1] (GL
                    // clamps gl_FragDepth; naga's SPIR-V writes the clamp, glslang's does
                    // not): compared as the depth test sees it.
                    let depth = name == "od" || name == "gl_FragDepth";
                    let seen = |v: f32| if depth { v.clamp(0.0, 1.0) } else { v };
                    for (lane, (&p, &q)) in xs.iter().zip(ys).enumerate() {
                        let (p, q) = (seen(p), seen(q));
                        if !p.is_finite() || !q.is_finite() {
                            undefined += 1;
                        } else if !agree(p, q, a.target) {
                            differing.push((name.clone(), lane, p, q));
                        } else {
                            lanes += 1;
                        }
                    }
                }
                if !shapes.is_empty() {
                    layouts.push(format!("{what}: {}", shapes.join("; ")));
                }
                if x.0.keys().all(|n| !y.0.contains_key(n)) {
                    failures.push(format!("{what}: no output of the same name to compare"));
                    break;
                }
                let discard_differs = x.1 != y.1;
                if differing.is_empty() && !discard_differs {
                    good += 1;
                    cases += 1;
                    continue;
                }
                let near = Case {
                    unit: false,
                    nudge: if a.target == Target::Pica { 3e-5 } else { 1e-5 },
                    ..case
                };
                let nearby = run(a, &near).ok();
                let hinges = |name: &str, lane: usize, p: f32| {
                    nearby
                        .as_ref()
                        .and_then(|n| n.0.get(name).and_then(|v| v.get(lane)))
                        .is_none_or(|&m| !agree(m, p, a.target))
                };
                if discard_differs && nearby.as_ref().is_some_and(|n| n.1 == x.1) {
                    mismatches.push(format!(
                        "{what}: case {}: discarded from GLSL {}, from glslang's SPIR-V {}",
                        draw - 1,
                        x.1,
                        y.1
                    ));
                    break;
                }
                let real: Vec<_> = differing
                    .iter()
                    .filter(|(n, l, p, _)| !hinges(n, *l, *p))
                    .collect();
                hinged += differing.len() - real.len();
                if let Some((name, lane, p, q)) = real.first() {
                    mismatches.push(format!(
                        "{what}: case {}: output {name} lane {lane}: from GLSL {p}, from glslang's \
                         SPIR-V {q} ({} lanes differ)",
                        draw - 1,
                        real.len()
                    ));
                    break;
                }
                redrawn += 1;
            }
        }
    }
    println!(
        "{pairs} program pairs ({relocated} with the SPIR-V's uniform locations respaced), {cases} \
         cases agree ({lanes} lanes compared; {hinged} lanes skipped as hinging on rounding, \
         {undefined} lanes not finite, {redrawn} cases redrawn)"
    );
    for n in &names {
        println!("names differ: {n}");
    }
    for o in &overlaps {
        println!("OVERLAP {o}");
    }
    for m in &mismatches {
        println!("MISMATCH {m}");
    }
    for f in &failures {
        println!("FAILED {f}");
    }
    let mut wrong = Vec::new();
    for (title, list) in [
        ("programs that did not run", &failures),
        ("outputs that differ", &mismatches),
        ("outputs whose lanes differ in number", &layouts),
        (
            "uniforms sharing registers (no upload can set both)",
            &overlaps,
        ),
    ] {
        if !list.is_empty() {
            wrong.push(format!("{} {title}:\n  {}", list.len(), list.join("\n  ")));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Fragment shaders on the PICA200's texture combiners: every engine fragment text is
/// compiled for them; a refusal must be by rule (the combiners' own, `pica.fragment`, or the
/// front end's), never an internal error; and each compiled configuration, read back by the
/// register documentation's decoder (`tests::tev_oracle`), colours fragments as the same text
/// compiled for AGAL computes in floats (the Stage3D simulator, an independent path), with
/// varyings, uniforms and textures in [0, 1]: within (1 + stages) · scale / 255 per lane,
/// and the same discards (away from the alpha test's edge).
#[test]
fn engine_fragment_shaders_on_the_combiners() {
    use tests::tev_oracle::{self as oracle, Config};
    let shaders = manifest();
    let mut compiled = 0;
    let mut refusals: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut compared = 0;
    let mut failures = Vec::new();
    let fragments: Vec<&Shader> = shaders
        .iter()
        .filter(|s| s.stage == Stage::Fragment)
        .collect();
    for sh in &fragments {
        let options = Options::pica().stage(Stage::Fragment);
        let source = Source::glsl(&sh.text, Stage::Fragment).named(&sh.file);
        let pica = match catch_unwind(AssertUnwindSafe(|| compile(&source, &options))) {
            Err(_) => {
                failures.push(format!("{}: panicked", sh.file));
                continue;
            }
            Ok(Err(e)) => {
                let shown = e.to_string();
                let rule = shown
                    .split("error[")
                    .nth(1)
                    .and_then(|r| r.split(']').next())
                    .unwrap_or("?")
                    .to_string();
                if e.kind() == ErrorKind::Internal
                    || ![
                        "pica.fragment",
                        "naga.glsl",
                        "glsl.classic",
                        "lower.integer",
                        "lower.interface",
                    ]
                    .contains(&rule.as_str())
                {
                    failures.push(format!("{}: refused by {rule}: {shown}", sh.file));
                }
                let first = shown.lines().next().unwrap_or("").to_string();
                refusals.entry(rule).or_default().push(first);
                continue;
            }
            Ok(Ok(c)) => c,
        };
        compiled += 1;
        let Ok(agal) = compile(
            &source,
            &Options::agal(Profile::StandardExtended).stage(Stage::Fragment),
        ) else {
            continue;
        };
        let t = pica.texenv().expect("texenv").clone();
        let words: Vec<u32> = pica
            .bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let scale = t
            .stages
            .iter()
            .map(|s| s.rgb.scale.max(s.alpha.scale))
            .max()
            .unwrap_or(1) as f32;
        let tolerance = (1.0 + t.stages_used() as f32) * scale / 255.0 + 1e-4;
        for seed in 0..8u64 {
            let case = Case {
                seed,
                unit: true,
                nudge: 0.0,
            };
            let Ok((outputs, discarded)) = run(&agal, &case) else {
                failures.push(format!("{}: the AGAL program does not run", sh.file));
                break;
            };
            let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
            let input = |name: &str| case.input(name);
            let primary = t.color.as_ref().map_or([0; 4], |(n, _)| input(n).map(byte));
            let mut units = [[0u8; 4]; 4];
            for u in &t.textures {
                let f = Formula {
                    cube: u.kind == backend_pica::fragment::config::TextureKind::Cube,
                    phase: (hash(&u.sampler, 7) % 1000) as f32 / 250.0,
                };
                let texel = f.exact(input(&u.varying), 0.0).expect("exact");
                units[u.unit as usize] = texel.map(byte);
            }
            // The uniforms that are stage colours, as the application sets them.
            let mut w = words.clone();
            for (k, st) in t.stages.iter().enumerate() {
                if let backend_pica::fragment::config::Color::Uniform { name, .. } = &st.color {
                    let (lanes, kind) = pica
                        .reflection
                        .uniforms
                        .iter()
                        .find(|u| u.name == *name)
                        .map_or((4, 'f'), |u| uniform_shape(&u.type_name));
                    let v: [u8; 4] = std::array::from_fn(|i| {
                        if i < lanes {
                            byte(case.value(name, i, kind))
                        } else {
                            255
                        }
                    });
                    let base = [0x0C0u32, 0x0C8, 0x0D0, 0x0D8, 0x0F0, 0x0F8][k];
                    w.extend([u32::from_le_bytes(v), 0x000F_0000 | (base + 3)]);
                }
            }
            let config = Config::from_words(&w).expect("the words decode");
            let got = oracle::evaluate(&config, primary, units);
            let color = outputs.get("oc").cloned().unwrap_or_default();
            compared += 1;
            match (discarded, got) {
                (true, None) => {}
                (false, Some(g)) => {
                    for (k, want) in color.iter().enumerate().take(4) {
                        let have = f32::from(g[k]) / 255.0;
                        if (have - want.clamp(0.0, 1.0)).abs() > tolerance {
                            failures.push(format!(
                                "{} case {seed} lane {k}: combiners {have}, AGAL {want}\n{}",
                                sh.file, pica.listing
                            ));
                            break;
                        }
                    }
                }
                (d, g) => {
                    // The alpha test compares a byte: at its edge the two may differ.
                    let a = color.get(3).copied().unwrap_or(0.0);
                    let edge = t
                        .alpha_test
                        .is_some_and(|x| (a * 255.0 - f32::from(x.reference)).abs() <= 2.0);
                    if !edge {
                        failures.push(format!(
                            "{} case {seed}: AGAL discarded {d}, combiners {g:?}\n{}",
                            sh.file, pica.listing
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "engine fragment shaders on the combiners: {compiled} of {} compiled, {compared} cases \
         compared with AGAL",
        fragments.len()
    );
    for (rule, lines) in &refusals {
        eprintln!("  {} refused by {rule}, e.g. {}", lines.len(), lines[0]);
        if std::env::var_os("ENGINE_FRAGMENT_REFUSALS").is_some() {
            for l in lines {
                eprintln!("    {l}");
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        compiled >= FLOOR_PICA_FRAGMENT,
        "{compiled} compiled, floor {FLOOR_PICA_FRAGMENT}"
    );
}

/// How many engine fragment texts the combiners compute, at least (raise it as the fragment
/// compiler improves).
const FLOOR_PICA_FRAGMENT: usize = 23;
