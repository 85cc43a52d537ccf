//! Runs C against citro3d's real texture-combiner header: what a C header's functions do to
//! citro3d's texture-combiner state (the TEV stages, the combiner buffer, the alpha test).
//!
//! [`run`] compiles the header with the system C compiler against citro3d's own
//! `c3d/texenv.h` and `c3d/types.h` and libctru's `3ds/gpu/enums.h`
//! (`tests/fixtures/thirdparty/citro3d/`, copied unchanged by its `fetch.sh`), so
//! `C3D_TexEnvInit`, `C3D_TexEnvSrc`, `C3D_TexEnvFunc` and the other static inline builders
//! are citro3d's code. What the 3DS toolchain would provide around them, a `<3ds.h>` with the
//! integer types and a `<citro3d.h>` that includes the real headers, are hand-written stubs
//! in `tests/fixtures/c3d-stubs/`, and so is the program (`harness.c`): citro3d's
//! `C3D_GetTexEnv`, `C3D_SetTexEnv`, `C3D_DirtyTexEnv`, `C3D_TexEnvBufUpdate`,
//! `C3D_TexEnvBufColor` and `C3D_AlphaTest` as they act on citro3d's cached values, and a
//! `main` that prints the state.
//!
//! Needs `cc` (gcc or clang with a C library's headers: Debian's `gcc` and `libc6-dev`, which
//! building Rust on Linux needs anyway).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// citro3d's texture-combiner state after running C code: the registers citro3d would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// Each stage's five register words (SOURCE, OPERAND, COMBINER, COLOR, SCALE), as
    /// citro3d's C3D_TexEnv struct lays them out (that struct is exactly these five u32
    /// words).
    pub stages: [[u32; 5]; 6],
    /// GPUREG_TEXENV_UPDATE_BUFFER as citro3d caches it (bits 8-11 RGB update of stages 0-3,
    /// bits 12-15 alpha).
    pub update_buffer: u32,
    /// GPUREG_TEXENV_BUFFER_COLOR.
    pub buffer_color: u32,
    /// GPUREG_FRAGOP_ALPHA_TEST: enable | func << 4 | ref << 8.
    pub alpha_test: u32,
}

/// A stage as `C3D_TexEnvInit` leaves it: sources PREVIOUS, PRIMARY, PRIMARY for RGB and
/// alpha, operands 0, REPLACE, constant colour 0xFFFFFFFF, scale 1×.
pub const INIT_STAGE: [u32; 5] = [0x000F_000F, 0, 0, 0xFFFF_FFFF, 0];

impl State {
    /// The state as `C3D_Init` leaves it: every stage [`INIT_STAGE`], no buffer update, buffer
    /// colour 0xFFFFFFFF, alpha test off with function ALWAYS (1) and reference 0.
    pub const AFTER_INIT: State = State {
        stages: [INIT_STAGE; 6],
        update_buffer: 0,
        buffer_color: 0xFFFF_FFFF,
        alpha_test: 0x10,
    };
}

/// The C compiler's options: C99, the common warnings as errors, and `__3DS__`, which
/// devkitARM's build rules define and which makes citro3d's `types.h` include `<3ds.h>`.
const CFLAGS: [&str; 5] = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-D__3DS__"];

/// How long the compiled program may run.
const RUN_TIMEOUT: Duration = Duration::from_secs(20);

/// Compiles `header` (a C header text that `#include <citro3d.h>`) with the system C compiler
/// (`cc`, -std=c99 -Wall -Wextra -Werror) against the real citro3d/libctru headers of the
/// fixture and the stubs, in a program that first puts the state into citro3d's defaults
/// after C3D_Init (all six stages C3D_TexEnvInit, buffer colour 0xFFFFFFFF, update bits 0,
/// alpha test disabled ALWAYS 0), then runs the C statements `calls` (e.g.
/// "sprite_texenv(); sprite_set_tint(0x80402010u);"), then prints the state; runs it and
/// parses it. Err with the compiler's or program's output on failure.
///
/// The header is compiled as `header.h` in its own translation unit, whose one function's
/// body is `calls` (compiler messages about them say `header.h` and `calls`). A stage id
/// outside 0-5 given to `C3D_GetTexEnv` or `C3D_SetTexEnv` is an Err (citro3d would index
/// past its stages). Each call uses a fresh directory under the system's temporary folder and
/// removes it.
pub fn run(header: &str, calls: &str) -> Result<State, String> {
    let dir = Scratch::new()?;
    let result = build_and_run(&dir.0, header, calls);
    drop(dir);
    result
}

fn build_and_run(dir: &Path, header: &str, calls: &str) -> Result<State, String> {
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("{}: {e}", dir.display()))
    };
    write("header.h", header)?;
    let unit = format!(
        "#include \"header.h\"\n\
         void c3d_harness_calls(void);\n\
         void c3d_harness_calls(void)\n\
         {{\n\
         #line 1 \"calls\"\n\
         {calls}\n\
         }}\n"
    );
    write("calls.c", &unit)?;

    let stubs = test_kit::fixture("c3d-stubs");
    let thirdparty = test_kit::fixture("thirdparty/citro3d");
    let program = dir.join("c3d-state");
    let output = Command::new("cc")
        .args(CFLAGS)
        .arg("-I")
        .arg(&stubs)
        .arg("-I")
        .arg(thirdparty.join("citro3d/include"))
        .arg("-I")
        .arg(thirdparty.join("libctru/include"))
        .arg(stubs.join("harness.c"))
        .arg(dir.join("calls.c"))
        .arg("-o")
        .arg(&program)
        .current_dir(dir)
        .env("LC_ALL", "C") // plain quotes in the messages
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cc (a C compiler is needed): {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cc failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }

    let (status, stdout, stderr) = run_program(&program, dir)?;
    if !status.success() {
        return Err(format!(
            "the compiled program failed ({status}):\n{stdout}{stderr}"
        ));
    }
    parse(&stdout).map_err(|e| format!("the compiled program's output: {e}:\n{stdout}{stderr}"))
}

/// Runs `program` in `dir` for at most [`RUN_TIMEOUT`]: its exit status, stdout and stderr.
fn run_program(
    program: &Path,
    dir: &Path,
) -> Result<(std::process::ExitStatus, String, String), String> {
    let mut child = Command::new(program)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    // Both pipes are read on threads, so a chatty program cannot fill one and stall.
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < RUN_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                let (out, err) = (
                    out.join().unwrap_or_default(),
                    err.join().unwrap_or_default(),
                );
                return Err(format!(
                    "the compiled program ran longer than {RUN_TIMEOUT:?}:\n{out}{err}"
                ));
            }
            Err(e) => return Err(format!("waiting for {}: {e}", program.display())),
        }
    };
    Ok((
        status,
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    ))
}

/// A thread reading `pipe` to its end, as text.
fn drain<R: std::io::Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The state from the program's `c3d-state` lines (other lines, the caller's own printing,
/// are ignored). Stage words are assembled from the C3D_TexEnv fields as the registers lay
/// them out; OPERAND is the `opAll` word the struct holds, checked against its `opRgb` and
/// `opAlpha` bit-fields (citro3d's ARM ABI puts the first bit-field in the low bits; a host
/// compiler that does not would be an Err, not a wrong word).
fn parse(stdout: &str) -> Result<State, String> {
    let mut stages: [Option<[u32; 5]>; 6] = [None; 6];
    let mut globals = None;
    let mut ended = false;
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("c3d-state ") else {
            continue;
        };
        if ended {
            return Err("state lines after the end".into());
        }
        if rest == "end" {
            ended = true;
            continue;
        }
        let fields = Fields::parse(rest)?;
        if rest.starts_with("stage=") {
            let id = fields.get("stage")? as usize;
            let slot = stages
                .get_mut(id)
                .ok_or_else(|| format!("stage {id} is not 0-5"))?;
            let op_all = fields.get("opAll")?;
            let (op_rgb, op_alpha) = (fields.get("opRgb")?, fields.get("opAlpha")?);
            if op_all & 0x00FF_FFFF != op_rgb | op_alpha << 12 {
                return Err(format!(
                    "stage {id}: opAll {op_all:#x} is not opRgb {op_rgb:#x} | opAlpha {op_alpha:#x} << 12 \
                     (the host compiler lays C3D_TexEnv's bit-fields out unlike citro3d's ARM ABI)"
                ));
            }
            *slot = Some([
                fields.get("srcRgb")? | fields.get("srcAlpha")? << 16,
                op_all,
                fields.get("funcRgb")? | fields.get("funcAlpha")? << 16,
                fields.get("color")?,
                fields.get("scaleRgb")? | fields.get("scaleAlpha")? << 16,
            ]);
        } else {
            globals = Some((
                fields.get("update_buffer")?,
                fields.get("buffer_color")?,
                fields.get("alpha_test")?,
            ));
        }
    }
    if !ended {
        return Err("no end line (the program stopped early?)".into());
    }
    let mut words = [[0; 5]; 6];
    for (id, stage) in stages.iter().enumerate() {
        words[id] = stage.ok_or_else(|| format!("no line for stage {id}"))?;
    }
    let (update_buffer, buffer_color, alpha_test) =
        globals.ok_or("no update_buffer/buffer_color/alpha_test line")?;
    Ok(State {
        stages: words,
        update_buffer,
        buffer_color,
        alpha_test,
    })
}

/// The `name=hex` fields of one state line.
struct Fields<'a>(Vec<(&'a str, u32)>);

impl<'a> Fields<'a> {
    fn parse(line: &'a str) -> Result<Self, String> {
        line.split_whitespace()
            .map(|field| {
                let (name, value) = field
                    .split_once('=')
                    .ok_or_else(|| format!("`{field}` is not name=value"))?;
                let value = u32::from_str_radix(value, 16)
                    .map_err(|e| format!("{name}: `{value}`: {e}"))?;
                Ok((name, value))
            })
            .collect::<Result<_, String>>()
            .map(Fields)
    }

    fn get(&self, name: &str) -> Result<u32, String> {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
            .ok_or_else(|| format!("no field {name}"))
    }
}

/// A fresh directory for one [`run`], removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Self, String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("spv2retro-c3d-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
