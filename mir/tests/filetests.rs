//! Pass tests as text: each `mir/filetests/*.mir` file is a module, the passes to run on it,
//! and the function (or module) expected after them.
//!
//! ```text
//! ; What the test shows, in a sentence or two.
//! ; run: simplify dce
//! ; case: (1, 2, 3, 9) (0.5, -1, 2, 7)
//! vertex "main"
//!   input i0 "in0" location 0 vec4
//!   ...
//! fn main() -> (vec4) {
//! ...
//! }
//!
//! ; expect:
//! fn main() -> (vec4) {
//! ...
//! }
//! ```
//!
//! The runner reads the module (`mir::read`), runs the passes named by `; run:` in order
//! (names in [`pass`]; `name=arg` where a pass takes an argument), verifies the module after
//! each, and compares the printed result with the text after `; expect:` (a function when
//! it starts with `fn`, else the whole module), showing a line diff when they differ.
//!
//! It also runs the module in the interpreter before and after, on each `; case:` line (one
//! vector per input; missing lanes are 0) and on a few fixed vectors of its own, with fixed
//! uniforms, and the outputs must be the same (NaN equal to NaN). A file whose module the
//! interpreter cannot run says so and why with `; eval: skip <reason>`.
//!
//! After an intended change, rewrite the expectations with
//! `BLESS=1 cargo test -p mir --test integration filetests::` and review the diff.

use std::path::{Path, PathBuf};

use mir::Module;
use mir::eval::{Env, NoTextures, Outcome};
use mir::passes;
use mir::print::{print_function, print_module};

/// A pass as a filetest runs it.
type Pass = Box<dyn Fn(&mut Module) -> bool>;

/// The pass called `name` (with `arg` after `=`, for those that take one): by the pipeline's
/// names (`mir::passes::pipeline::function_pass`), and those that take an argument here.
fn pass(name: &str, arg: Option<&str>) -> Result<Pass, String> {
    fn on_function(f: fn(&mut mir::Function) -> bool) -> Pass {
        Box::new(move |m| f(&mut m.function))
    }
    let number = |what: &str| -> Result<usize, String> {
        arg.and_then(|a| a.parse().ok())
            .ok_or_else(|| format!("`{name}` takes {what}: `{name}=N`"))
    };
    // The pipeline's own names; two the pipeline does not run alone.
    let plain: Option<fn(&mut mir::Function) -> bool> = match name {
        "once_before_ssa" => Some(passes::once::run_before_ssa),
        "remat" => Some(passes::remat::run),
        _ => passes::pipeline::function_pass(name),
    };
    if let Some(f) = plain {
        return match arg {
            None => Ok(on_function(f)),
            Some(_) => Err(format!("`{name}` takes no argument")),
        };
    }
    Ok(match (name, arg) {
        ("cleanup", None) => Box::new(|m| passes::cleanup(m).is_ok_and(|rounds| rounds > 1)),
        ("bounds", None) => Box::new(passes::bounds::run),
        // `ifconvert=N`: arms of up to N instructions; `ifconvert=all`: every `if`.
        ("ifconvert", Some("all")) => {
            Box::new(|m| passes::ifconvert::run(&mut m.function, None, false))
        }
        ("ifconvert", _) => {
            let cost = number("the largest arms' cost")?;
            Box::new(move |m| passes::ifconvert::run(&mut m.function, Some(cost), false))
        }
        // `unroll=N`: loops of up to N trips, within a budget of 1000 instructions.
        ("unroll", _) => {
            let trips = number("the most trips")? as u32;
            Box::new(move |m| passes::unroll::run(&mut m.function, trips, 1000))
        }
        // `sums` for targets without dph, `sums=dph` for the PICA200.
        ("sums", None) => Box::new(|m| passes::sums::run(&mut m.function, false)),
        ("sums", Some("dph")) => Box::new(|m| passes::sums::run(&mut m.function, true)),
        // `bools` for targets that branch, `bools=blend` for those that do not.
        ("bools", None) => Box::new(|m| passes::bools::run(&mut m.function, true)),
        ("bools", Some("blend")) => Box::new(|m| passes::bools::run(&mut m.function, false)),
        _ => return Err(format!("no pass `{name}` (with argument {arg:?})")),
    })
}

/// One filetest, parsed.
struct FileTest {
    /// The module's text (with the header comments).
    input: String,
    passes: Vec<(String, Option<String>)>,
    cases: Vec<Vec<[f32; 4]>>,
    eval: bool,
    /// The text after `; expect:`, if there is that line.
    expected: Option<String>,
}

const EXPECT: &str = "; expect:";

fn parse(text: &str) -> Result<FileTest, String> {
    let (input, expected) = match text.split_once(&format!("\n{EXPECT}\n")) {
        Some((i, e)) => (i.to_string(), Some(e.trim_end().to_string() + "\n")),
        None => (text.to_string(), None),
    };
    let mut test = FileTest {
        input,
        passes: Vec::new(),
        cases: Vec::new(),
        eval: true,
        expected,
    };
    let mut ran = false;
    for line in test.input.lines() {
        if let Some(names) = line.strip_prefix("; run:") {
            ran = true;
            for word in names.split_whitespace() {
                let (name, arg) = match word.split_once('=') {
                    Some((n, a)) => (n, Some(a.to_string())),
                    None => (word, None),
                };
                test.passes.push((name.to_string(), arg));
            }
        } else if let Some(case) = line.strip_prefix("; case:") {
            test.cases.push(parse_case(case)?);
        } else if let Some(why) = line.strip_prefix("; eval: skip") {
            if why.trim().is_empty() {
                return Err("`; eval: skip` needs a reason".into());
            }
            test.eval = false;
        }
    }
    if !ran {
        return Err("no `; run:` line naming the passes".into());
    }
    Ok(test)
}

/// `(1, 2, 3, 4) (0.5, -1)`: one vector per input.
fn parse_case(text: &str) -> Result<Vec<[f32; 4]>, String> {
    let mut vectors = Vec::new();
    for part in text.split(')') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let inner = part
            .strip_prefix('(')
            .ok_or_else(|| format!("a case is vectors `(x, y, z, w)`, not `{part}`"))?;
        let mut v = [0.0; 4];
        for (k, lane) in inner.split(',').enumerate() {
            let slot = v.get_mut(k).ok_or("a vector has at most four lanes")?;
            *slot = lane
                .trim()
                .parse()
                .map_err(|_| format!("`{}` is not a number", lane.trim()))?;
        }
        vectors.push(v);
    }
    Ok(vectors)
}

/// The inputs the runner tries besides the file's own cases: small values of both signs,
/// exact in f32, different in every lane.
fn fixed_cases(inputs: usize) -> Vec<Vec<[f32; 4]>> {
    (0..4u32)
        .map(|case| {
            (0..inputs as u32)
                .map(|i| {
                    std::array::from_fn(|l| {
                        let k = (case * 7 + i * 5 + l as u32 * 3) % 17;
                        (k as f32 - 8.0) * 0.375
                    })
                })
                .collect()
        })
        .collect()
}

fn outcomes(m: &Module, cases: &[Vec<[f32; 4]>]) -> Result<Vec<Outcome>, String> {
    let uniforms: Vec<[f32; 4]> = (0..96)
        .map(|r| std::array::from_fn(|l| ((r * 4 + l) % 11) as f32 * 0.25 - 1.0))
        .collect();
    let bools: Vec<bool> = (0..16).map(|b| b % 3 == 0).collect();
    cases
        .iter()
        .map(|inputs| {
            let env = Env {
                inputs,
                uniforms: &uniforms,
                bools: &bools,
                textures: &NoTextures,
            };
            mir::eval::run(m, &env).map_err(|e| e.to_string())
        })
        .collect()
}

fn same(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Outputs(x), Outcome::Outputs(y)) => {
            x.len() == y.len()
                && x.iter()
                    .flatten()
                    .zip(y.iter().flatten())
                    .all(|(p, q)| p == q || (p.is_nan() && q.is_nan()))
        }
        _ => a == b,
    }
}

/// Runs one filetest; returns the printed result, or why it failed.
fn run(test: &FileTest) -> Result<String, String> {
    let mut m = mir::read::read_module(&test.input).map_err(|e| format!("input {e}"))?;
    mir::verify::verify(&m).map_err(|e| format!("the input: {e}"))?;
    let mut cases = test.cases.clone();
    cases.extend(fixed_cases(m.inputs.len()));
    let before = if test.eval {
        Some(outcomes(&m, &cases).map_err(|e| {
            format!("{e} (a module the interpreter cannot run says `; eval: skip <why>`)")
        })?)
    } else {
        None
    };
    for (name, arg) in &test.passes {
        let p = pass(name, arg.as_deref())?;
        p(&mut m);
        mir::verify::verify(&m).map_err(|e| format!("after {name}: {e}\n{}", print_module(&m)))?;
    }
    let printed = match &test.expected {
        Some(e) if !e.starts_with("fn ") => print_module(&m),
        _ => print_function(Some(&m), &m.function),
    };
    if let Some(before) = before {
        let after = outcomes(&m, &cases).map_err(|e| format!("after the passes: {e}"))?;
        for ((case, b), a) in cases.iter().zip(&before).zip(&after) {
            if !same(a, b) {
                return Err(format!(
                    "the passes changed what it computes on {case:?}: {b:?} became {a:?}\n{printed}"
                ));
            }
        }
    }
    Ok(printed)
}

/// A line diff of `expected` and `got` (`-` expected only, `+` got only).
fn diff(expected: &str, got: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), got.lines().collect());
    // Longest common subsequence, from the ends.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out += &format!("  {}\n", a[i]);
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out += &format!("- {}\n", a[i]);
            i += 1;
        } else {
            out += &format!("+ {}\n", b[j]);
            j += 1;
        }
    }
    out
}

/// Checks one file's text; `Ok(Some(text))` is the file with its expectation rewritten,
/// when `bless` and it changed.
fn check(text: &str, bless: bool) -> Result<Option<String>, String> {
    let test = parse(text)?;
    let printed = run(&test)?;
    match &test.expected {
        Some(expected) if *expected == printed => Ok(None),
        _ if bless => Ok(Some(format!(
            "{}\n\n{EXPECT}\n{printed}",
            test.input.trim_end()
        ))),
        Some(expected) => Err(format!(
            "the result differs from the expectation (- expected, + got):\n{}",
            diff(expected, &printed)
        )),
        None => Err(format!("no `{EXPECT}` section; the result is:\n{printed}")),
    }
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mir"))
        .collect();
    files.sort();
    files
}

#[test]
fn filetests() {
    let bless = std::env::var_os("BLESS").is_some();
    let files = files();
    assert!(!files.is_empty(), "no filetests found");
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
        match check(&text, bless) {
            Ok(None) => {}
            Ok(Some(blessed)) => std::fs::write(file, blessed).unwrap_or_else(|e| panic!("{e}")),
            Err(e) => failures.push(format!("{}: {e}", file.display())),
        }
    }
    println!("{} filetests", files.len());
    assert!(
        failures.is_empty(),
        "{} of {} filetests failed:\n\n{}\n\nIf the change is intended, run \
         BLESS=1 cargo test -p mir --test integration filetests:: and review the diff.",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// The runner itself: a wrong expectation, a pass that changes what a module computes, and
/// a missing pass all fail.
#[test]
fn the_runner_fails_what_it_should() {
    let module = "; run: fold\nvertex \"main\"\n  input i0 \"in0\" location 0 vec4\n  \
                  output \"out\" location 0 vec4\n\nfn main() -> (vec4) {\nb0:\n  \
                  v0: vec4 = input 0\n  v1: vec4 = const 1.0, 2.0, 3.0, 4.0\n  \
                  v2: vec4 = const 0.5, 0.5, 0.5, 0.5\n  v3: vec4 = mul v1, v2\n  \
                  v4: vec4 = add v0, v3\n  return v4\n}\n";
    let right = "fn main() -> (vec4) {\nb0:\n  v0: vec4 = input 0\n  \
                 v1: vec4 = const 1.0, 2.0, 3.0, 4.0\n  v2: vec4 = const 0.5, 0.5, 0.5, 0.5\n  \
                 v3: vec4 = const 0.5, 1.0, 1.5, 2.0\n  v4: vec4 = add v0, v3\n  return v4\n}\n";
    let good = format!("{module}\n{EXPECT}\n{right}");
    assert_eq!(check(&good, false), Ok(None));
    let wrong = good.replace("const 0.5, 1.0, 1.5, 2.0", "const 0.5, 1.0, 1.5, 2.5");
    let e = check(&wrong, false).expect_err("a wrong expectation fails");
    assert!(e.contains("- ") && e.contains("+ "), "{e}");
    assert!(check(&wrong.replace("fold", "nothing"), false).is_err());
    // Blessing writes the right text back.
    assert_eq!(check(&wrong, true), Ok(Some(good.clone())));
    // A pass that changed the result would be caught by the interpreter.
    let test = parse(&good).expect("parses");
    let mut m = mir::read::read_module(&test.input).expect("reads");
    let cases = fixed_cases(1);
    let before = outcomes(&m, &cases).expect("runs");
    let f = &mut m.function;
    let v1 = f.layout[0];
    let i = f.blocks[v1].insts[1];
    f.insts[i].op = mir::Op::float_const(&[1.0, 2.0, 3.0, 5.0]);
    let after = outcomes(&m, &cases).expect("runs");
    assert!(before.iter().zip(&after).any(|(b, a)| !same(a, b)));
}
