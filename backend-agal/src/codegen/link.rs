//! A vertex and a fragment program compiled together: Flash's upload rules between them
//! (each in its slot, one version, every varying the fragment program reads written by the
//! vertex program: #3630–#3632, #3757), and a stricter check of the shaders' own interfaces:
//! a fragment input at location L that the fragment program reads is a vertex output at
//! location L with at least as many components (Flash cannot see this one: varyings are
//! padded to four components). An input the shader declares but never reads (PixiJS pairs
//! its filters so) needs nothing from the vertex shader.

use crate::rules::CodegenRule;
use mir::{Diagnostic, Diagnostics};

use super::Compiled;
use crate::limits::Profile;
use crate::validate::validate_pair;

/// Flash's upload rules for a vertex and a fragment program's bytes.
pub fn check_program_pair(
    vertex: &[u8],
    fragment: &[u8],
    profile: Profile,
) -> Result<(), Diagnostics> {
    match validate_pair(vertex, fragment, profile) {
        Ok(_) => Ok(()),
        Err(flash) => Err(Diagnostics(
            flash
                .into_iter()
                .map(|e| {
                    Diagnostic::error(CodegenRule::Link, format!("the programs do not link: {e}"))
                })
                .collect(),
        )),
    }
}

/// Checks that `vertex` and `fragment` work together.
pub fn check_link(vertex: &Compiled, fragment: &Compiled) -> Result<(), Diagnostics> {
    let mut errors = Vec::new();
    // One context holds both programs: the stronger profile, so that a version mismatch
    // shows as that (#3757).
    let profile = vertex.profile.max(fragment.profile);
    if let Err(Diagnostics(flash)) = check_program_pair(&vertex.bytes, &fragment.bytes, profile) {
        errors.extend(flash);
    }
    // The varyings the fragment program's code reads (all of them, if its bytes do not
    // validate: Flash's errors above say why).
    let read = crate::validate::validate(&fragment.bytes, fragment.profile)
        .ok()
        .map(|info| info.varyings_read);
    let is_read = |location: u32| {
        read.as_ref()
            .is_none_or(|r| r.get(location as usize).is_some_and(|m| !m.is_empty()))
    };
    for input in fragment.inputs.iter().filter(|i| is_read(i.location)) {
        let written = vertex
            .outputs
            .iter()
            .find(|o| o.builtin.is_none() && o.location == Some(input.location));
        match written {
            None => errors.push(Diagnostic::error(
                CodegenRule::Link,
                format!(
                    "the fragment shader reads `{}` (location {}, varying v{}), which the \
                     vertex shader does not write",
                    input.name, input.location, input.location
                ),
            )),
            Some(o) if o.lanes < input.lanes => errors.push(Diagnostic::error(
                CodegenRule::Link,
                format!(
                    "the fragment shader reads {} components of `{}` (location {}), but the \
                     vertex shader's `{}` has {}",
                    input.lanes, input.name, input.location, o.name, o.lanes
                ),
            )),
            Some(_) => {}
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(errors))
    }
}
