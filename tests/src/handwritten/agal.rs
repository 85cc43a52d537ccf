//! The agal half of the hand-written reference set (see the parent module).

use super::Reference;

/// The agal references.
pub fn references() -> Vec<Reference> {
    Vec::new()
}
