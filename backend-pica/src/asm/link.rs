//! picasso's link: several sources, one `.shbin` (DVLB) with one DVLE per source that makes
//! one, in order. Procedures are global across the files and the vertex sources share one
//! uniform space (`.gsh` files have their own), as picasso has it. A compiler's listing is
//! picasso source too, so a compiled shader joins a link as its listing: [`Procedures`]
//! renames its procedures where another file already defines the name.
//!
//! ```
//! use backend_pica::asm::{Options, SourceFile, link};
//!
//! let vsh = ".fvec mvp[4]\n.out pos position\n.proc main\n\tdp4 pos.x, mvp[0], v0\n\
//!            \tdp4 pos.y, mvp[1], v0\n\tdp4 pos.z, mvp[2], v0\n\tdp4 pos.w, mvp[3], v0\n\
//!            \tend\n.end\n";
//! let files = [SourceFile { name: "sprite.v.pica", text: vsh }];
//! let linked = link::link(&files, &Options::default()).unwrap();
//! assert_eq!(&linked.bytes[..4], b"DVLB");
//! assert!(linked.header.contains("#define VSH_FVEC_mvp 0x00\n"));
//! assert_eq!(linked.shaders[0].uniforms[0].name, "mvp");
//! ```

use std::collections::HashSet;

use super::{AsmError, Options, SourceFile, assemble_with};
use crate::WriteError;
use crate::shbin::{self, Dvle, ShaderType, UniformFile};

/// A uniform of one shader of a linked program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedUniform {
    /// Its name as declared (`$` kept; the `.shbin` table has `.`).
    pub name: String,
    /// The register file: `c` (float vectors), `i` (integer vectors) or `b` (booleans).
    pub file: &'static str,
    /// The first register.
    pub register: u16,
    /// How many registers.
    pub count: u16,
}

/// One DVLE of a linked program.
#[derive(Clone, Debug)]
pub struct LinkedDvle {
    /// The index of the file it came from.
    pub source: usize,
    /// Vertex or geometry.
    pub shader_type: ShaderType,
    /// Its uniforms by register (inputs left out), as its table lists them.
    pub uniforms: Vec<LinkedUniform>,
}

/// What [`link`] made.
#[derive(Clone, Debug)]
pub struct Linked {
    /// The `.shbin` (DVLB) for libctru's `DVLB_ParseFile`.
    pub bytes: Vec<u8>,
    /// The C header `picasso -h` writes, byte for byte: the vertex uniform space's
    /// registers as `VSH_FVEC_name`, `VSH_IVEC_name`, `VSH_FLAG_name`, `VSH_ULEN_name`.
    pub header: String,
    /// One entry per DVLE, in order.
    pub shaders: Vec<LinkedDvle>,
    /// The program `bytes` holds.
    pub binary: shbin::ShaderBinary,
    /// Warnings (with padding NOPs off, each place that needs one).
    pub warnings: Vec<AsmError>,
}

/// Why a link failed.
#[derive(Clone, Debug)]
pub enum LinkError {
    /// A file does not assemble (or the files do not link: a procedure defined twice…).
    Asm(AsmError),
    /// The program does not fit a `.shbin` (too many code words, operand descriptors…).
    Write(WriteError),
}

/// Links `files` into one program, as `picasso -o out.shbin a b …` does.
pub fn link(files: &[SourceFile<'_>], options: &Options) -> Result<Linked, LinkError> {
    let assembled = assemble_with(files, options).map_err(LinkError::Asm)?;
    let bytes = shbin::write(&assembled.binary).map_err(LinkError::Write)?;
    let shaders = assembled
        .binary
        .dvles
        .iter()
        .zip(&assembled.sources)
        .map(|(dvle, &source)| LinkedDvle {
            source,
            shader_type: dvle.shader_type,
            uniforms: uniforms(dvle),
        })
        .collect();
    Ok(Linked {
        bytes,
        header: assembled.header,
        shaders,
        binary: assembled.binary,
        warnings: assembled.warnings,
    })
}

/// The uniforms of a DVLE's table (its inputs left out).
pub fn uniforms(dvle: &Dvle) -> Vec<LinkedUniform> {
    dvle.uniforms
        .iter()
        .filter_map(|u| {
            let (file, first, count) = u.range()?;
            let file = match file {
                UniformFile::Input => return None,
                UniformFile::Float => "c",
                UniformFile::Int => "i",
                UniformFile::Bool => "b",
            };
            Some(LinkedUniform {
                name: u.name.clone(),
                file,
                register: first.into(),
                count: count.into(),
            })
        })
        .collect()
}

/// Whether picasso source `text` is a geometry shader (`.gsh`, or `setemit` in a legacy one).
pub fn is_geometry(text: &str) -> bool {
    text.lines().any(|l| {
        matches!(
            words(l).first().map(|w| w.to_ascii_lowercase()).as_deref(),
            Some(".gsh" | "setemit")
        )
    })
}

/// The procedure names a link's files have taken so far: each listing that joins is
/// renamed where it would define one twice.
#[derive(Clone, Debug, Default)]
pub struct Procedures {
    taken: HashSet<String>,
}

impl Procedures {
    /// Takes the names `text` defines (a hand-written file's, kept as they are).
    pub fn declare(&mut self, text: &str) {
        self.taken.extend(defined(text));
    }

    /// `listing` (the link's file `index`) with each procedure whose name is taken renamed
    /// (`main` → `main_2`), in its `.proc`, `.entry` and calls; its names are then taken.
    pub fn rename(&mut self, listing: &str, index: usize) -> String {
        let mut renames: Vec<(String, String)> = Vec::new();
        for name in defined(listing) {
            if self.taken.contains(&name) {
                let mut new = format!("{name}_{index}");
                while self.taken.contains(&new) {
                    new.push('_');
                }
                self.taken.insert(new.clone());
                renames.push((name, new));
            }
        }
        let text = if renames.is_empty() {
            listing.to_string()
        } else {
            renamed(listing, &renames)
        };
        self.declare(&text);
        text
    }
}

fn renamed(listing: &str, renames: &[(String, String)]) -> String {
    let mut out = String::new();
    for line in listing.lines() {
        let w = words(line);
        let is_ref = matches!(
            w.first().map(|c| c.to_ascii_lowercase()).as_deref(),
            Some(".proc" | ".entry" | "call" | "callc" | "callu")
        );
        let mut line = line.to_string();
        if is_ref {
            if let Some(last) = w.last() {
                if let Some((_, new)) = renames.iter().find(|(old, _)| old == last) {
                    if let Some(at) = line.rfind(last) {
                        line.replace_range(at..at + last.len(), new);
                    }
                }
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The words of a picasso line: its command and arguments, comments and labels left out.
fn words(line: &str) -> Vec<&str> {
    let code = line.split(';').next().unwrap_or("");
    let code = code.rsplit(':').next().unwrap_or(code);
    code.split([' ', '\t', ','])
        .filter(|w| !w.is_empty())
        .collect()
}

/// The procedures a picasso text defines.
fn defined(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| match words(l).as_slice() {
            [cmd, name, ..] if cmd.eq_ignore_ascii_case(".proc") => Some(name.to_string()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_joining_a_link_renames_only_the_procedures_already_taken() {
        let mut p = Procedures::default();
        p.declare(".proc main\n\tend\n.end\n.proc helper\n\tend\n.end\n");
        let listing = ".proc main\n\tcall helper\n\tcall own\n\tend\n.end\n\
                       .proc own\n\tend\n.end\n.entry main\n";
        let text = p.rename(listing, 2);
        assert_eq!(
            text,
            ".proc main_2\n\tcall helper\n\tcall own\n\tend\n.end\n\
             .proc own\n\tend\n.end\n.entry main_2\n"
        );
        // Its names are taken now: a third file's `own` is renamed.
        assert!(
            p.rename(".proc own\n.end\n", 3)
                .starts_with(".proc own_3\n")
        );
    }

    #[test]
    fn geometry_sources_are_told_by_gsh_or_setemit() {
        assert!(is_geometry(".gsh point c0\n"));
        assert!(is_geometry("\tsetemit 0, prim\n"));
        assert!(!is_geometry("; setemit in a comment\n.proc main\n"));
    }
}
