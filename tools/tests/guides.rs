//! The README and the book (`docs/*.md`) cannot drift from the tools: every command of every
//! ```` ```sh ```` block runs here, page by page, in a scratch folder of the page's own where
//! the clone's `tests/` and `examples/` are at hand (symbolic links), with the binaries under
//! test first on the `PATH` under their own names (`cargo run … --bin NAME --` is `NAME`).
//! Each command must exit with 0 and write every file it names (`-o`, `--reflect`, `-H`,
//! `--depfile`, picasso's `-h`), and no command may write into the clone.
//!
//! A block that cannot run on a test machine (devkitARM's `make`, a Cargo build inside the
//! test) is ```` ```sh skip-run: covered by FILE::NAME ````: FILE must have the test `NAME`
//! (a `.rs` file) or contain `NAME` (a script). A ```` ```text output ```` block right after a
//! `sh` block is the output of its last command, compared. The other checks of the pages'
//! code: Rust blocks compile as the `spv2retro` crate's doc tests (its `guides` module must
//! include every page that has one), a `rust,ignore` block is the example crate's own code
//! line for line, the members of a generated Stage3D class that a Haxe block uses exist in
//! the class the page's commands wrote, and the Makefile rules shown are the tested Makefile's.

use std::path::{Path, PathBuf};
use std::process::Command;

use test_kit::scratch;

const BINARIES: [(&str, &str); 3] = [
    ("spv2pica", env!("CARGO_BIN_EXE_spv2pica")),
    ("spv2agal", env!("CARGO_BIN_EXE_spv2agal")),
    ("spv2retro", env!("CARGO_BIN_EXE_spv2retro")),
];

/// What a command may run besides the three binaries: what every machine has.
const COMMON_TOOLS: &[&str] = &["cmp", "cp", "mkdir", "ls", "cat", "grep", "head", "test"];

/// The info strings a page's code blocks may have (`sh skip-run: …` apart): anything else,
/// a `bash` or `console` block say, would escape the checks.
const KNOWN: &[&str] = &[
    "sh",
    "text",
    "text output",
    "rust",
    "rust,no_run",
    "rust,ignore",
    "toml",
    "make",
    "cmake",
    "c",
    "haxe",
    "actionscript",
    "json",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tools/ is in the workspace")
        .to_path_buf()
}

/// The README and every page of `docs/`, by path from the repository's root, in order.
fn pages() -> Vec<(String, String)> {
    let root = repo();
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|n| {
            let text =
                std::fs::read_to_string(root.join(&n)).unwrap_or_else(|e| panic!("{n}: {e}"));
            (n, text)
        })
        .collect()
}

#[derive(Debug)]
struct Block {
    /// The line of the opening fence (1-based).
    line: usize,
    info: String,
    body: String,
}

/// The fenced code blocks of a Markdown page, as CommonMark reads them: a fence is three or
/// more backticks after at most three spaces, with an info string holding no backtick.
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, String, usize, Vec<String>)> = None;
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let ticks = rest.len() - rest.trim_start_matches('`').len();
        match &mut open {
            None => {
                if indent <= 3 && ticks >= 3 && !rest[ticks..].contains('`') {
                    let info = rest[ticks..].trim().to_string();
                    open = Some((i + 1, ticks, info, indent, Vec::new()));
                }
            }
            Some((start, n, info, strip, body)) => {
                if indent <= 3 && ticks >= *n && rest[ticks..].trim().is_empty() {
                    out.push(Block {
                        line: *start,
                        info: std::mem::take(info),
                        body: body.join("\n"),
                    });
                    open = None;
                } else {
                    let cut = (line.len() - line.trim_start_matches(' ').len()).min(*strip);
                    body.push(line[cut..].to_string());
                }
            }
        }
    }
    assert!(open.is_none(), "a code block is never closed");
    out
}

/// A block's commands: continuation lines joined, comment lines and blank lines left out.
fn commands(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in body.lines() {
        let line = line.trim();
        if pending.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head);
                pending.push(' ');
            }
            None => {
                pending.push_str(line);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    assert!(pending.is_empty(), "a command ends with `\\`: {pending}");
    out
}

/// `cargo run [--release] -p spv2retro-cli --bin NAME --` is the binary under test.
fn with_binaries(command: &str) -> String {
    let mut command = command.to_string();
    for (name, _) in BINARIES {
        for release in ["--release ", ""] {
            let from = format!("cargo run {release}-p spv2retro-cli --bin {name} -- ");
            command = command.replace(&from, &format!("{name} "));
        }
    }
    command
}

/// A command's words as the shell splits them (quotes, no expansions), up to a comment.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.get_or_insert_default().push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            None if c.is_whitespace() => out.extend(word.take()),
            None if c == '#' && word.is_none() => break,
            None => word.get_or_insert_default().push(c),
        }
    }
    out.extend(word);
    out
}

/// The simple commands of a command line (split at `&&`, `||`, `;` and `|`).
fn simple_commands(command: &str) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    for w in words(command) {
        if ["&&", "||", ";", "|"].contains(&w.as_str()) {
            out.push(Vec::new());
        } else {
            out.last_mut().unwrap().push(w);
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

/// The files a command of the three binaries says it writes.
fn outputs(simple: &[String]) -> Vec<String> {
    let program = simple[0].as_str();
    let mut flags = vec![
        "-o",
        "--out",
        "--reflect",
        "--depfile",
        "-H",
        "--bin2s-header",
    ];
    if program == "spv2pica" {
        flags.extend(["-h", "--header"]);
    }
    let mut out = Vec::new();
    for (i, w) in simple.iter().enumerate() {
        let value = if let Some((flag, value)) = w.split_once('=') {
            flags.contains(&flag).then(|| value.to_string())
        } else if flags.contains(&w.as_str()) {
            simple.get(i + 1).cloned()
        } else {
            None
        };
        out.extend(value.filter(|v| v != "-"));
    }
    out
}

/// `git status` of the clone's fixtures and examples, when the clone is a git work tree.
fn clone_status(root: &Path) -> Option<String> {
    let out = Command::new("git")
        .current_dir(root)
        .args([
            "status",
            "--porcelain",
            "--untracked-files=all",
            "--",
            "tests",
            "examples",
        ])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn file_name_of(page: &str) -> String {
    page.trim_end_matches(".md").replace('/', "-")
}

/// `skip-run: covered by FILE::NAME`: FILE has the test NAME, or a script mentions NAME.
fn check_cover(page: &str, block: &Block, cover: &str) -> Result<(), String> {
    let at = format!("{page}:{}", block.line);
    let cover = cover
        .strip_prefix("covered by ")
        .ok_or_else(|| format!("{at}: write `skip-run: covered by FILE::NAME`"))?;
    let (file, name) = cover
        .split_once("::")
        .ok_or_else(|| format!("{at}: `{cover}` is not FILE::NAME"))?;
    let text = std::fs::read_to_string(repo().join(file))
        .map_err(|e| format!("{at}: the covering file {file}: {e}"))?;
    if commands(&block.body).is_empty() {
        return Err(format!("{at}: a skip-run block with no command"));
    }
    if file.ends_with(".rs") {
        let lines: Vec<&str> = text.lines().collect();
        let found = lines.iter().enumerate().any(|(i, l)| {
            l.trim_start().starts_with(&format!("fn {name}("))
                && lines[i.saturating_sub(3)..i]
                    .iter()
                    .any(|l| l.trim() == "#[test]")
        });
        if !found {
            return Err(format!("{at}: {file} has no test `{name}`"));
        }
    } else if !text.contains(name) {
        return Err(format!("{at}: {file} does not run `{name}`"));
    }
    Ok(())
}

/// Runs one page's `sh` blocks in `dir`; the number of commands run, or what went wrong.
fn run_page(page: &str, text: &str, dir: &Path, path: &std::ffi::OsStr) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut last_stdout: Option<(usize, String)> = None;
    for block in blocks(text) {
        let at = format!("{page}:{}", block.line);
        let info = block.info.as_str();
        if info == "text output" {
            match last_stdout.take() {
                Some((_, stdout)) if stdout.trim_end() == block.body.trim_end() => {}
                Some((line, stdout)) => failures.push(format!(
                    "{at}: not the output of the command at line {line}, which prints\n{stdout}"
                )),
                None => failures.push(format!(
                    "{at}: a `text output` block with no command before it"
                )),
            }
            continue;
        }
        last_stdout = None;
        if let Some(cover) = info.strip_prefix("sh skip-run: ") {
            if let Err(e) = check_cover(page, &block, cover) {
                failures.push(e);
            }
            continue;
        }
        if !KNOWN.contains(&info) {
            failures.push(format!(
                "{at}: a ```{info} block: use one of {KNOWN:?} (sh blocks run here)"
            ));
            continue;
        }
        if info != "sh" {
            continue;
        }
        let list = commands(&block.body);
        if list.is_empty() {
            failures.push(format!("{at}: an sh block with no command"));
        }
        for command in list {
            let command = with_binaries(&command);
            let simple = simple_commands(&command);
            let mut named = Vec::new();
            let mut runnable = true;
            for s in &simple {
                let program = s[0].as_str();
                if BINARIES.iter().any(|(n, _)| *n == program) {
                    named.extend(outputs(s));
                } else if !COMMON_TOOLS.contains(&program) {
                    failures.push(format!(
                        "{at}: `{command}` runs `{program}`, which a test machine may lack: \
                         mark the block `sh skip-run: covered by FILE::NAME`"
                    ));
                    runnable = false;
                }
            }
            if !runnable {
                continue;
            }
            // A file the command names is its own, not an earlier command's.
            for file in &named {
                let f = dir.join(file);
                let _ = std::fs::remove_file(&f).or_else(|_| std::fs::remove_dir_all(&f));
            }
            let out = Command::new("bash")
                .args(["-o", "pipefail", "-c", &command])
                .current_dir(dir)
                .env("PATH", path)
                .output()
                .expect("bash runs");
            ran += 1;
            if !out.status.success() {
                failures.push(format!(
                    "{at}: `{command}` failed ({}):\n{}{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            }
            for file in &named {
                if !dir.join(file).exists() {
                    failures.push(format!("{at}: `{command}` did not write {file}"));
                }
            }
            last_stdout = Some((
                block.line,
                String::from_utf8_lossy(&out.stdout).into_owned(),
            ));
        }
    }
    (ran, failures)
}

#[test]
fn every_command_in_the_readme_and_the_book_runs() {
    let root = repo();
    let before = clone_status(&root);
    let mut failures = Vec::new();
    let mut total = 0;
    for (page, text) in pages() {
        let dir = scratch(&format!("guides-{}", file_name_of(&page)));
        for linked in ["tests", "examples"] {
            std::os::unix::fs::symlink(root.join(linked), dir.join(linked)).unwrap();
        }
        let bin = dir.join(".bin");
        std::fs::create_dir_all(&bin).unwrap();
        for (name, exe) in BINARIES {
            std::os::unix::fs::symlink(exe, bin.join(name)).unwrap();
        }
        let mut path = std::ffi::OsString::from(&bin);
        if let Some(rest) = std::env::var_os("PATH") {
            path.push(":");
            path.push(rest);
        }
        let (ran, page_failures) = run_page(&page, &text, &dir, &path);
        // What a Haxe block calls on a class the page's commands generated, the class has.
        let mut page_failures = page_failures;
        page_failures.extend(check_haxe_members(&page, &text, &dir));
        println!("{page}: {ran} commands");
        total += ran;
        if page_failures.is_empty() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        failures.extend(page_failures);
    }
    println!("{total} commands ran");
    match (before, clone_status(&root)) {
        (Some(before), Some(after)) => assert_eq!(
            before, after,
            "the guides' commands wrote into the clone's tests/ or examples/"
        ),
        _ => println!(
            "not a git work tree: whether the commands wrote into the clone is not checked"
        ),
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(total > 0, "no command ran");
}

/// `Class.member` in a page's Haxe blocks, for each class `Class.hx` the page's commands
/// wrote: the class declares the member.
fn check_haxe_members(page: &str, text: &str, dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    for block in blocks(text).iter().filter(|b| b.info == "haxe") {
        let tokens = block
            .body
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'));
        for token in tokens {
            let Some((class, member)) = token.split_once('.') else {
                continue;
            };
            let Ok(generated) = std::fs::read_to_string(dir.join(format!("{class}.hx"))) else {
                continue;
            };
            let declared = [
                format!("function {member}("),
                format!("var {member}:"),
                format!("final {member}:"),
            ];
            if !declared.iter().any(|d| generated.contains(d.as_str())) {
                failures.push(format!(
                    "{page}:{}: {class}.hx, as the page's commands write it, has no `{member}`",
                    block.line
                ));
            }
        }
    }
    failures
}

/// The pages' code other than shell: Rust blocks are doc tests, ignored Rust is the example
/// crate's, and the Makefile rules shown are the ones the build-route test runs.
#[test]
fn the_pages_code_is_compiled_or_is_the_tested_files() {
    let root = repo();
    let lib = std::fs::read_to_string(root.join("cli/src/lib.rs")).unwrap();
    let example: Vec<String> = [
        "examples/homebrew/src/main.rs",
        "examples/homebrew/build.rs",
    ]
    .iter()
    .flat_map(|f| {
        std::fs::read_to_string(root.join(f))
            .unwrap()
            .lines()
            .map(|l| l.trim().to_string())
            .collect::<Vec<_>>()
    })
    .collect();
    let makefile =
        std::fs::read_to_string(root.join("tests/fixtures/build-routes/make/Makefile")).unwrap();
    let makefile: Vec<&str> = makefile.lines().map(str::trim).collect();
    let mut failures = Vec::new();
    let mut rust_blocks = 0;
    for (page, text) in pages() {
        let all = blocks(&text);
        if all.iter().any(|b| b.info.starts_with("rust")) {
            let include = format!("include_str!(\"../../{page}\")");
            if !lib.contains(&include) {
                failures.push(format!(
                    "{page} has Rust blocks, but cli/src/lib.rs's guides module has no {include}"
                ));
            }
        }
        for block in &all {
            let at = format!("{page}:{}", block.line);
            let code = block
                .body
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'));
            match block.info.as_str() {
                "rust" | "rust,no_run" => rust_blocks += 1,
                "rust,ignore" => {
                    rust_blocks += 1;
                    for line in code {
                        if !example.iter().any(|l| l == line) {
                            failures.push(format!(
                                "{at}: `{line}` is not a line of examples/homebrew (a rust,ignore \
                                 block must be the example crate's code)"
                            ));
                        }
                    }
                }
                "make" if page == "docs/3ds-c.md" => {
                    for line in code {
                        if !makefile.contains(&line) {
                            failures.push(format!(
                                "{at}: `{line}` is not in tests/fixtures/build-routes/make/Makefile"
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(rust_blocks > 0, "no Rust block in the pages");
}

/// The lines of a page outside its code blocks.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<usize> = None;
    for line in text.lines() {
        let rest = line.trim_start_matches(' ');
        let ticks = rest.len() - rest.trim_start_matches('`').len();
        let indent = line.len() - rest.len();
        match fence {
            None if indent <= 3 && ticks >= 3 && !rest[ticks..].contains('`') => {
                fence = Some(ticks)
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
            Some(n) if indent <= 3 && ticks >= n && rest[ticks..].trim().is_empty() => fence = None,
            Some(_) => {}
        }
    }
    out
}

/// A heading's anchor as the forges make it: lower case, punctuation other than `-` and `_`
/// dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every relative link of the README and the book leads to a file of the clone, and every
/// `#anchor` into a page to one of its headings.
#[test]
fn every_link_between_the_pages_resolves() {
    let root = repo();
    let pages = pages();
    let headings = |text: &str| -> Vec<String> {
        prose(text)
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| anchor(l.trim_start_matches('#')))
            .collect()
    };
    let mut failures = Vec::new();
    let mut links = 0;
    for (page, text) in &pages {
        let prose = prose(text);
        for (i, _) in prose.match_indices("](") {
            let rest = &prose[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let link = &rest[..end];
            if link.contains("://") || link.contains(' ') {
                continue;
            }
            links += 1;
            let (path, fragment) = link.split_once('#').unwrap_or((link, ""));
            let base = Path::new(page).parent().unwrap();
            let target = if path.is_empty() {
                PathBuf::from(page)
            } else {
                base.join(path)
            };
            let full = root.join(&target);
            if !full.exists() {
                failures.push(format!("{page}: the link {link} leads nowhere"));
                continue;
            }
            if fragment.is_empty() || !path.ends_with(".md") && !path.is_empty() {
                continue;
            }
            let text = std::fs::read_to_string(&full).unwrap();
            if !headings(&text).iter().any(|h| h == fragment) {
                failures.push(format!("{page}: {link}: no such heading"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(links > 0, "no link found");
}

#[test]
fn the_block_reader_reads_fences_as_commonmark_does() {
    let text = "a\n```sh\nspv2pica a \\\n  -o b # c\n\n# d\n```\n```` ```sh ```` inline\n  ```text output\nx\n  ```\n";
    let b = blocks(text);
    assert_eq!(b.len(), 2, "{b:?}");
    assert_eq!((b[0].line, b[0].info.as_str()), (2, "sh"));
    assert_eq!(commands(&b[0].body), ["spv2pica a  -o b # c"]);
    assert_eq!(
        simple_commands("spv2pica a  -o b # c"),
        [["spv2pica", "a", "-o", "b"]]
    );
    assert_eq!(
        (b[1].info.as_str(), b[1].body.as_str()),
        ("text output", "x")
    );
    assert_eq!(
        with_binaries("cargo run --release -p spv2retro-cli --bin spv2agal -- x -o 'y z'"),
        "spv2agal x -o 'y z'"
    );
    assert_eq!(
        outputs(&simple_commands("spv2pica x --reflect=r.json -o - -h h.h")[0]),
        ["r.json", "h.h"]
    );
    assert_eq!(simple_commands("a && b | c"), [["a"], ["b"], ["c"]]);
    assert_eq!(prose(text), "a\n```` ```sh ```` inline\n");
    assert_eq!(anchor(" GLSL.std.450"), "glslstd450");
    assert_eq!(
        anchor("`spv2retro run`, `preview` and `serve`"),
        "spv2retro-run-preview-and-serve"
    );
}
