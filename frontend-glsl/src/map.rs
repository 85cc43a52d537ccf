//! The map from a text this front end made (the preprocessor's output, the classic rewrite's)
//! back to the text it was made from, so that every diagnostic names the author's line and
//! column.

use std::ops::Range;

/// Pieces of a made text, in order: (offset in the made text, offset in the source, whether
/// the piece's bytes are the source's own). A piece that is not (an inserted declaration,
/// a macro's expansion) maps wholly to its one source offset.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pieces(pub Vec<(usize, usize, bool)>);

impl Pieces {
    /// The source's byte range for `range` of the made text (never empty).
    pub fn original(&self, range: Range<usize>) -> Range<usize> {
        let at = |offset: usize| -> usize {
            let i = self.0.partition_point(|p| p.0 <= offset).saturating_sub(1);
            match self.0.get(i) {
                Some(&(out, orig, true)) => orig + (offset - out),
                Some(&(_, orig, false)) => orig,
                None => 0,
            }
        };
        let start = at(range.start);
        let end = at(range.end.max(range.start + 1) - 1) + 1;
        start..end.max(start + 1)
    }
}
