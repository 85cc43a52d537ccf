//! Variants: one source compiled once per set of preprocessor definitions and sampler
//! flags, as Starling builds a program per texture format (`spv2agal --variant`, the build
//! helper's [`crate::build::Shaders::variants`]).

use crate::Options;

/// One variant: its name, its definitions, and sampler flags added to the command line's.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// The name (the file's stem).
    pub name: String,
    /// `#define NAME VALUE`s.
    pub defines: Vec<(String, String)>,
    /// Sampler flags by binding, added after the command line's `--sampler` flags.
    pub samplers: Vec<(u32, String)>,
}

impl Variant {
    /// Parses `NAME:ITEM,ITEM…`: an item `A=1` or `A` is a definition (`A` is 1); an item
    /// `B=FLAG` with `B` a binding number adds a sampler flag (`0=dxt5`; repeat the binding
    /// for several: `0=dxt5,0=nearest`). `NAME:` alone is the source as it is.
    pub fn parse(spec: &str) -> Result<Variant, String> {
        let (name, items) = spec.split_once(':').unwrap_or((spec, ""));
        let name = name.trim();
        let ok_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !ok_name {
            return Err(format!(
                "--variant {spec}: the name {name:?} is not a file stem (letters, digits, _ and -)"
            ));
        }
        let mut v = Variant {
            name: name.to_string(),
            defines: Vec::new(),
            samplers: Vec::new(),
        };
        for item in items.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (key, value) = item.split_once('=').unwrap_or((item, "1"));
            if let Ok(binding) = key.trim().parse::<u32>() {
                v.samplers.push((binding, value.trim().to_string()));
                continue;
            }
            let key = key.trim();
            let macro_name = key
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !macro_name {
                return Err(format!(
                    "--variant {spec}: {key:?} is neither a macro name nor a sampler binding"
                ));
            }
            v.defines.push((key.to_string(), value.trim().to_string()));
        }
        Ok(v)
    }

    /// `base` with this variant's definitions and sampler flags.
    pub fn options(&self, base: &Options) -> Options {
        let mut o = base.clone();
        for (name, value) in &self.defines {
            o = o.define(name.clone(), value.clone());
        }
        for (binding, flag) in &self.samplers {
            let mut flags: Vec<String> = o
                .samplers
                .iter()
                .find(|s| s.binding == *binding)
                .map(|s| s.flags.clone())
                .unwrap_or_default();
            flags.push(flag.clone());
            o = o.sampler(*binding, flags);
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::Variant;

    #[test]
    fn variants_parse_definitions_and_sampler_flags() {
        let v = Variant::parse("dxt5:ALPHA=0,TINTED,0=dxt5,0=nearest").unwrap();
        assert_eq!(v.name, "dxt5");
        assert_eq!(
            v.defines,
            [("ALPHA".into(), "0".into()), ("TINTED".into(), "1".into())]
        );
        assert_eq!(v.samplers, [(0, "dxt5".into()), (0, "nearest".into())]);
        assert_eq!(Variant::parse("plain:").unwrap().defines, []);
        assert!(Variant::parse("a b:X").is_err());
        assert!(Variant::parse("x:1A=2").is_err());
    }
}
