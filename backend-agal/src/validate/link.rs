//! The rules between the two programs of a `Program3D.upload(vertex, fragment)`: each is in
//! the slot for its stage (#3630/#3631), both have the same version (#3757), and every varying
//! the fragment program reads is one the vertex program writes (#3632).

use super::{Error, Info, Rule, validate};
use crate::header::Stage;
use crate::limits::Profile;

/// Checks a vertex and a fragment program as Flash checks them together on upload: each one
/// with [`validate`], then the linkage between them. Returns both programs' [`Info`], or every
/// error of both programs and of the linkage.
pub fn validate_pair(
    vertex: &[u8],
    fragment: &[u8],
    profile: Profile,
) -> Result<(Info, Info), Vec<Error>> {
    let v = validate(vertex, profile);
    let f = validate(fragment, profile);
    let (v, f) = match (v, f) {
        (Ok(v), Ok(f)) => (v, f),
        (v, f) => {
            let mut all = v.err().unwrap_or_default();
            all.extend(f.err().unwrap_or_default());
            return Err(all);
        }
    };
    let mut errors = Vec::new();
    let whole = |rule, stage, message| Error {
        rule,
        stage: Some(stage),
        token: None,
        operand: None,
        message,
    };
    if v.stage != Stage::Vertex {
        errors.push(whole(
            Rule::WrongVertexType,
            v.stage,
            "the vertex program is a fragment program".into(),
        ));
    }
    if f.stage != Stage::Fragment {
        errors.push(whole(
            Rule::WrongFragmentType,
            f.stage,
            "the fragment program is a vertex program".into(),
        ));
    }
    if v.version != f.version {
        errors.push(whole(
            Rule::VersionMismatch,
            Stage::Fragment,
            format!(
                "the vertex program is AGAL version {}, the fragment program version {}",
                v.version, f.version
            ),
        ));
    }
    if errors.is_empty() {
        for (i, read) in f.varyings_read.iter().enumerate() {
            let written = v.varyings_written.get(i).copied().unwrap_or_default();
            if !read.is_empty() && written.is_empty() {
                errors.push(whole(
                    Rule::VaryingNotWritten,
                    Stage::Fragment,
                    format!(
                        "v{i} is read by the fragment program but not written by the vertex program"
                    ),
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok((v, f))
    } else {
        Err(errors)
    }
}
