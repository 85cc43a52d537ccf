//! Shared uniform layouts (`--layout FILE`, [`Options::layout`](crate::Options::layout),
//! the build helper's [`Shaders::layout`](crate::build::Shaders::layout)): a reflection this
//! compiler wrote for another program says where its uniforms are, and a program compiled
//! with it puts every uniform of the same name there (`mir::layout`), so that an engine
//! switching programs sets each uniform once.

use mir::{Diagnostic, Diagnostics};

use crate::error::{Error, ErrorKind};
use crate::{Stage, Target};

/// A uniform's place in a reflection: `register` as the reflection spells it (`c4`, `b2`,
/// `vc4`, `fc0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The uniform's name.
    pub name: String,
    /// Its first register, spelled as the target's assembler spells it.
    pub register: String,
    /// Its first component there.
    pub component: u8,
    /// Its type.
    pub type_name: String,
}

/// The places a layout pins, and where they were read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// The uniforms.
    pub uniforms: Vec<Placed>,
    /// Where the layout comes from (a file name), for diagnostics.
    pub origin: String,
}

impl Layout {
    /// Reads the `uniforms` of a reflection JSON (`--reflect`'s output: one object, or an
    /// array of them as a link of several programs writes). `origin` names it in
    /// diagnostics.
    pub fn from_json(text: &str, origin: &str) -> Result<Layout, Error> {
        let bad = |why: String| {
            Error::other(
                ErrorKind::Rejected,
                format!("{origin}: error[layout.pin]: not a reflection this compiler wrote: {why}"),
            )
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let objects = match &value {
            serde_json::Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        let mut uniforms: Vec<Placed> = Vec::new();
        for o in objects {
            let list = o["uniforms"]
                .as_array()
                .ok_or_else(|| bad("it has no `uniforms` list".into()))?;
            for u in list {
                let field = |k: &str| {
                    u[k].as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(format!("a uniform has no `{k}`")))
                };
                let placed = Placed {
                    name: field("name")?,
                    register: field("register")?,
                    component: u["component"].as_u64().unwrap_or(0) as u8,
                    type_name: field("type")?,
                };
                match uniforms.iter().find(|p| p.name == placed.name) {
                    // The same uniform in several programs of one file: one place.
                    Some(p) if p.register == placed.register => {}
                    Some(p) => {
                        return Err(bad(format!(
                            "it puts `{}` in both {} and {}",
                            placed.name, p.register, placed.register
                        )));
                    }
                    None => uniforms.push(placed),
                }
            }
        }
        Ok(Layout {
            uniforms,
            origin: origin.to_string(),
        })
    }

    /// The pins for a program of `stage` on `target`: the uniforms in its register files.
    pub(crate) fn pins(&self, target: Target, stage: Stage) -> Vec<mir::layout::Pin> {
        let files: &[(&str, bool)] = match (target, stage) {
            (Target::Pica, _) => &[("c", false), ("b", true)],
            (Target::Agal, Stage::Fragment) => &[("fc", false)],
            (Target::Agal, _) => &[("vc", false)],
        };
        self.uniforms
            .iter()
            .filter_map(|p| {
                let digits = p
                    .register
                    .trim_start_matches(|c: char| c.is_ascii_alphabetic());
                let file = &p.register[..p.register.len() - digits.len()];
                let (_, is_bool) = files.iter().find(|(f, _)| *f == file)?;
                Some(mir::layout::Pin {
                    name: p.name.clone(),
                    is_bool: *is_bool,
                    register: digits.parse().ok()?,
                    component: p.component,
                    type_name: p.type_name.clone(),
                    origin: format!("{} ({})", self.origin, p.register),
                })
            })
            .collect()
    }
}

/// Moves `m`'s uniforms to `layout`'s places; each conflict is a `layout.pin` error.
pub(crate) fn apply(
    m: &mut mir::Module,
    layout: &Layout,
    target: Target,
    stage: Stage,
) -> Result<(), Diagnostics> {
    mir::layout::apply(m, &layout.pins(target, stage)).map_err(|conflicts| {
        Diagnostics(
            conflicts
                .into_iter()
                .map(|c| Diagnostic::error(crate::rules::Rule::Layout, c))
                .collect(),
        )
    })
}
