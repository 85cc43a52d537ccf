//! Assembles a `.spvasm` file with our assembler, for comparing with `spirv-as`:
//! `cargo run -p frontend-spirv --example spvasm -- [--target-env spv1.N] [--preserve-numeric-ids] IN OUT`
use std::process::ExitCode;

use frontend_spirv::asm;

fn main() -> ExitCode {
    let mut options = asm::Options::default();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--preserve-numeric-ids" => options.preserve_numeric_ids = true,
            "--target-env" => {
                let env = args.next().unwrap_or_default();
                let Some((major, minor)) = env
                    .strip_prefix("spv")
                    .and_then(|v| v.split_once('.'))
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                else {
                    eprintln!("unsupported --target-env {env}");
                    return ExitCode::from(2);
                };
                options.version = Some((major, minor));
            }
            _ => files.push(arg),
        }
    }
    let [input, output] = files.as_slice() else {
        eprintln!("usage: spvasm [--target-env spv1.N] [--preserve-numeric-ids] IN OUT");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(input) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{input}: {e}");
            return ExitCode::from(2);
        }
    };
    match asm::assemble(&text, &options) {
        Ok(assembled) => {
            let bytes: Vec<u8> = assembled
                .words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            if let Err(e) = std::fs::write(output, bytes) {
                eprintln!("{output}: {e}");
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
        Err(diag) => {
            eprint!("{}", diag.render(input, Some(&text)));
            ExitCode::FAILURE
        }
    }
}
