//! The pica half of the hand-written reference set (see the parent module).

use super::Reference;

/// The pica references.
pub fn references() -> Vec<Reference> {
    Vec::new()
}
