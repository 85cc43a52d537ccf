//! Where each output goes: `gl_Position` in o0, user outputs in the next free `o` registers in
//! location order, each with the semantic its location has by default (docs/conventions.md) or the
//! one `--semantic L=NAME` gives it.

use crate::rules::Rule;
use machine::reflect::mask_letters;
use mir::Diagnostic;
use mir::module::{BuiltIn, Output};

use super::select::OutputSlot;
use crate::limits;
use crate::operand::{Component, Mask};
use crate::shbin::{self, Semantic};

/// The default semantic of each location, with the components it takes.
fn default_semantic(location: u32) -> Option<Semantic> {
    Some(match location {
        0 => Semantic::Color,
        1 => Semantic::TexCoord0,
        2 => Semantic::TexCoord1,
        3 => Semantic::TexCoord2,
        4 => Semantic::NormalQuat,
        5 => Semantic::View,
        _ => return None,
    })
}

/// The components a semantic carries, from x.
fn semantic_lanes(s: Semantic) -> u8 {
    match s {
        Semantic::Position | Semantic::Color | Semantic::NormalQuat | Semantic::Dummy => 4,
        Semantic::View => 3,
        Semantic::TexCoord0 | Semantic::TexCoord1 | Semantic::TexCoord2 => 2,
        Semantic::TexCoord0W => 1,
    }
}

/// picasso's name for a semantic, for `--semantic`.
pub fn parse_semantic(name: &str) -> Option<Semantic> {
    use Semantic::*;
    [
        Position, NormalQuat, Color, TexCoord0, TexCoord0W, TexCoord1, TexCoord2, View, Dummy,
    ]
    .into_iter()
    .find(|s| s.name() == name)
}

fn mask(first: u8, count: u8) -> Mask {
    Mask::of(
        &(first..first + count)
            .map(|l| Component::from_index(l as usize))
            .collect::<Vec<_>>(),
    )
}

/// Where the outputs went.
#[derive(Clone, Debug, Default)]
pub struct Assigned {
    /// One slot per module output, in the module's order (`None` for one the PICA200
    /// ignores, such as `gl_PointSize`).
    pub slots: Vec<Option<OutputSlot>>,
    /// The DVLE output table.
    pub table: Vec<shbin::Output>,
    /// For each entry of `table`, the index of the module output it carries.
    pub owners: Vec<usize>,
    /// Components of outputs that no semantic carries, and that are therefore not written
    /// (the `w` of a `vec4` at location 1, the `zw` of one at location 2).
    pub warnings: Vec<Diagnostic>,
}

/// Assigns the outputs their registers and semantics.
pub fn assign(
    outputs: &[Output],
    overrides: &[(u32, Semantic)],
    feeds_geometry: bool,
) -> Result<Assigned, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut assigned = Assigned {
        slots: vec![None; outputs.len()],
        ..Assigned::default()
    };
    let mut next = 0u8;
    // gl_Position first, in o0.
    let mut order: Vec<usize> = (0..outputs.len()).collect();
    order.sort_by_key(|&i| match (outputs[i].builtin, outputs[i].location) {
        (Some(BuiltIn::Position), _) => (0, 0),
        (_, Some(l)) => (1, l),
        _ => (2, 0),
    });
    for i in order {
        let o = &outputs[i];
        let (semantic, lanes) = match (o.builtin, o.location) {
            (Some(BuiltIn::Position), _) => (Semantic::Position, 4),
            (Some(BuiltIn::PointSize), _) => continue,
            (Some(BuiltIn::FragDepth), _) => {
                errors.push(Diagnostic::error(
                    Rule::Interface,
                    "gl_FragDepth is a fragment output; the PICA200 runs vertex programs",
                ));
                continue;
            }
            (None, Some(l)) => {
                let s = overrides
                    .iter()
                    .find(|(loc, _)| *loc == l)
                    .map(|(_, s)| *s)
                    .or_else(|| default_semantic(l));
                let Some(s) = s else {
                    errors.push(
                        Diagnostic::error(
                            Rule::Interface,
                            format!(
                                "output `{}` at location {l} has no semantic: locations 0 to \
                                 5 have defaults",
                                o.name
                            ),
                        )
                        .with_note(format!(
                            "give it one with --semantic {l}=NAME (position, normalquat, \
                             color, texcoord0, texcoord0w, texcoord1, texcoord2, view, dummy)"
                        )),
                    );
                    continue;
                };
                (s, o.lanes)
            }
            (None, None) => continue,
        };
        // A `dummy` a geometry program reads may use o7-o15 too (the rasteriser takes seven).
        let limit = if semantic == Semantic::Dummy && feeds_geometry {
            limits::OUTPUT_REGISTERS
        } else {
            limits::SEMANTIC_OUTPUT_REGISTERS
        };
        if next >= limit {
            errors.push(Diagnostic::error(
                Rule::Limit,
                format!(
                    "more than {} outputs: only o0 to o6 carry a semantic (libctru's output \
                     map has seven slots)",
                    limits::SEMANTIC_OUTPUT_REGISTERS
                ),
            ));
            continue;
        }
        let reg = next;
        next += 1;
        let own = semantic_lanes(semantic).min(lanes);
        assigned.table.push(shbin::Output {
            semantic,
            reg,
            mask: mask(0, own),
        });
        assigned.owners.push(i);
        let mut written = own;
        let mut carriers = format!("{} {}", semantic.name(), mask_letters(mask(0, own).bits()));
        // A texture coordinate's third component is `texcoord0w`.
        if semantic == Semantic::TexCoord0 && lanes >= 3 {
            assigned.table.push(shbin::Output {
                semantic: Semantic::TexCoord0W,
                reg,
                mask: mask(2, 1),
            });
            assigned.owners.push(i);
            written = 3;
            carriers.push_str(", texcoord0w z");
        }
        if written < lanes {
            assigned
                .warnings
                .push(dropped(o, written, lanes, &carriers));
        }
        assigned.slots[i] = Some(OutputSlot {
            reg,
            mask: mask(0, written),
        });
    }
    if errors.is_empty() {
        Ok(assigned)
    } else {
        Err(errors)
    }
}

/// The warning for the components `written..lanes` of output `o`, which no semantic carries
/// (`carriers` lists the table entries that carry the others).
fn dropped(o: &Output, written: u8, lanes: u8, carriers: &str) -> Diagnostic {
    let lost = lanes - written;
    let place = match o.location {
        Some(l) => format!(" at location {l}"),
        None => String::new(),
    };
    let d = Diagnostic::warning(
        Rule::OutputDropped,
        format!(
            "output `{}`{place} has {lanes} components, but the output table carries only {} \
             ({carriers}): {} {} {} dropped",
            o.name,
            mask_letters(mask(0, written).bits()),
            if lost == 1 { "component" } else { "components" },
            mask_letters(mask(written, lost).bits()),
            if lost == 1 { "is" } else { "are" },
        ),
    );
    match o.location {
        Some(l) => d.with_note(format!(
            "declare it with {written} components, or give location {l} a semantic that takes \
             all {lanes} with --semantic {l}=NAME (color, normalquat and dummy take four, view \
             three)"
        )),
        None => d,
    }
}
