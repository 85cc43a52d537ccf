//! Stage3D profiles and what each one allows: one table, from `agal-reference.md` §2.
//!
//! The profile fixes the AGAL version and the size of every register file. Sources:
//! the AIR SDK's register table per AGAL version (AGAL 1: 8 attributes, 128/28 constants,
//! 8 temporaries, 8 varyings, 8 samplers, 200 tokens; AGAL 2: 250/64 constants, 26 temporaries,
//! 10 varyings, 16 samplers, 1024 tokens; AGAL 3: 16 attributes, 200 fragment constants, 2048
//! tokens), narrowed per profile where a source says so:
//!
//! - `baselineConstrained` has 7 temporaries (Flash rejects `ft7`/`vt7` with #3661 there) and
//!   Adobe documents 64 ALU and 32 texture instructions for its native shaders;
//! - `standardConstrained` has 8 varyings and 8 samplers and no multiple render targets;
//! - only the standard profiles have `od`, only `standard` and `standardExtended` four colour
//!   outputs, only `standardExtended` the instance id.
//!
//! The 2015 AGALMiniAssembler caps `fs` at 8 in every version; the AIR SDK table and the
//! profile notes give 16 for the standard profiles, which is what this table uses.

use crate::header::{Stage, Version};
use crate::operand::RegType;
use std::fmt;
use std::str::FromStr;

/// A Stage3D profile (`Context3DProfile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// `baselineConstrained`: AGAL 1 for PS 2.0-class GPUs.
    BaselineConstrained,
    /// `baseline`: AGAL 1, the default.
    #[default]
    Baseline,
    /// `baselineExtended`: AGAL 1 with 4096² textures.
    BaselineExtended,
    /// `standardConstrained`: AGAL 2 without multiple render targets.
    StandardConstrained,
    /// `standard`: AGAL 2 with up to four render targets.
    Standard,
    /// `standardExtended`: AGAL 3 (instanced drawing).
    StandardExtended,
}

/// The most temporaries any profile has (AGAL 2 and 3: `ft0`–`ft25`, `vt0`–`vt25`); what the
/// code generator's and the simulator's register files are sized by.
pub const MAX_TEMPORARIES: usize = 26;

/// What a profile allows. Counts are numbers of registers (the highest index is one less).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// The highest AGAL version the profile accepts (#3725 above it).
    pub version: Version,
    /// Tokens per program (#3629).
    pub tokens: u32,
    /// `va` registers (#3658).
    pub attributes: u16,
    /// `vc` registers (#3659).
    pub vertex_constants: u16,
    /// `fc` registers (#3659).
    pub fragment_constants: u16,
    /// `vt` / `ft` registers, per program (#3661).
    pub temporaries: u16,
    /// `v` registers (#3657).
    pub varyings: u16,
    /// `fs` registers (#3656).
    pub samplers: u16,
    /// `op` registers (#3660).
    pub vertex_outputs: u16,
    /// `oc` registers: more than one means multiple render targets (#3660).
    pub color_outputs: u16,
    /// `od` registers (#3749).
    pub depth_outputs: u16,
    /// `iid` registers (#3789).
    pub instance_ids: u16,
    /// How deep `ife`/`ine`/`ifg`/`ifl` blocks may nest (#3624); 0 without conditionals.
    pub max_nesting: u8,
    /// Native ALU instructions per shader, where Adobe documents a cap (#3716).
    pub native_alu: Option<u32>,
    /// Native texture instructions per shader, where Adobe documents a cap (#3717).
    pub native_texture: Option<u32>,
}

const AGAL1: Limits = Limits {
    version: Version::V1,
    tokens: 200,
    attributes: 8,
    vertex_constants: 128,
    fragment_constants: 28,
    temporaries: 8,
    varyings: 8,
    samplers: 8,
    vertex_outputs: 1,
    color_outputs: 1,
    depth_outputs: 0,
    instance_ids: 0,
    max_nesting: 0,
    native_alu: None,
    native_texture: None,
};

const AGAL2: Limits = Limits {
    version: Version::V2,
    tokens: 1024,
    attributes: 8,
    vertex_constants: 250,
    fragment_constants: 64,
    temporaries: 26,
    varyings: 10,
    samplers: 16,
    vertex_outputs: 1,
    color_outputs: 4,
    depth_outputs: 1,
    instance_ids: 0,
    max_nesting: 4,
    native_alu: None,
    native_texture: None,
};

const BASELINE_CONSTRAINED: Limits = Limits {
    temporaries: 7,
    native_alu: Some(64),
    native_texture: Some(32),
    ..AGAL1
};

const STANDARD_CONSTRAINED: Limits = Limits {
    varyings: 8,
    samplers: 8,
    color_outputs: 1,
    ..AGAL2
};

const STANDARD_EXTENDED: Limits = Limits {
    version: Version::V3,
    tokens: 2048,
    attributes: 16,
    fragment_constants: 200,
    instance_ids: 1,
    ..AGAL2
};

impl Profile {
    /// Every profile, weakest first.
    pub const ALL: [Profile; 6] = [
        Profile::BaselineConstrained,
        Profile::Baseline,
        Profile::BaselineExtended,
        Profile::StandardConstrained,
        Profile::Standard,
        Profile::StandardExtended,
    ];

    /// The name as Stage3D spells it (`Context3DProfile.BASELINE` is `"baseline"`).
    pub const fn name(self) -> &'static str {
        match self {
            Profile::BaselineConstrained => "baselineConstrained",
            Profile::Baseline => "baseline",
            Profile::BaselineExtended => "baselineExtended",
            Profile::StandardConstrained => "standardConstrained",
            Profile::Standard => "standard",
            Profile::StandardExtended => "standardExtended",
        }
    }

    /// The profile with this Stage3D name (case-sensitive, as Flash compares it).
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The profile's own limits.
    pub const fn limits(self) -> &'static Limits {
        match self {
            Profile::BaselineConstrained => &BASELINE_CONSTRAINED,
            Profile::Baseline | Profile::BaselineExtended => &AGAL1,
            Profile::StandardConstrained => &STANDARD_CONSTRAINED,
            Profile::Standard => &AGAL2,
            Profile::StandardExtended => &STANDARD_EXTENDED,
        }
    }

    /// The AGAL version the profile's programs are written in (the header version a compiler
    /// targeting it writes).
    pub const fn version(self) -> Version {
        self.limits().version
    }

    /// The default profile for a version: `baseline`, `standard`, `standardExtended`.
    pub const fn for_version(version: Version) -> Profile {
        match version {
            Version::V1 => Profile::Baseline,
            Version::V2 => Profile::Standard,
            Version::V3 => Profile::StandardExtended,
        }
    }

    /// The limits that apply to a program of `version` under this profile: the profile's own
    /// for its version, the default profile's for an older version, and `None` for a newer
    /// one (Flash #3725, "AGAL version 2 requires standard profile").
    pub const fn limits_for(self, version: Version) -> Option<&'static Limits> {
        let own = self.limits();
        if version as u8 == own.version as u8 {
            Some(own)
        } else if (version as u8) < (own.version as u8) {
            Some(Profile::for_version(version).limits())
        } else {
            None
        }
    }
}

impl Limits {
    /// How many registers of a file a program of `stage` can name: the bound the index checks
    /// use. Files a stage cannot use still get their size (Flash checks the stage separately,
    /// after the bound).
    pub const fn count(&self, reg: RegType, stage: Stage) -> u16 {
        match reg {
            RegType::Attribute => self.attributes,
            RegType::Constant => match stage {
                Stage::Vertex => self.vertex_constants,
                Stage::Fragment => self.fragment_constants,
            },
            RegType::Temporary => self.temporaries,
            RegType::Output => match stage {
                Stage::Vertex => self.vertex_outputs,
                Stage::Fragment => self.color_outputs,
            },
            RegType::Varying => self.varyings,
            RegType::Sampler => self.samplers,
            RegType::Depth => self.depth_outputs,
            RegType::InstanceId => self.instance_ids,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A profile name Stage3D does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProfile(pub String);

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown Stage3D profile `{}` (expected one of ", self.0)?;
        for (i, p) in Profile::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(p.name())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownProfile {}

impl FromStr for Profile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Profile, UnknownProfile> {
        Profile::from_name(s).ok_or_else(|| UnknownProfile(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_files_are_sized_by_the_largest_profile() {
        let most = Profile::ALL.iter().map(|p| p.limits().temporaries).max();
        assert_eq!(most.map(usize::from), Some(MAX_TEMPORARIES));
    }

    #[test]
    fn names_and_versions() {
        for p in Profile::ALL {
            assert_eq!(p.name().parse::<Profile>(), Ok(p));
        }
        assert!("Standard".parse::<Profile>().is_err());
        assert_eq!(Profile::BaselineExtended.version(), Version::V1);
        assert_eq!(Profile::StandardConstrained.version(), Version::V2);
        assert_eq!(Profile::StandardExtended.version(), Version::V3);
    }

    #[test]
    fn the_table() {
        let b = Profile::Baseline.limits();
        assert_eq!(
            (b.tokens, b.temporaries, b.fragment_constants, b.varyings),
            (200, 8, 28, 8)
        );
        assert_eq!(Profile::BaselineConstrained.limits().temporaries, 7);
        let s = Profile::Standard.limits();
        assert_eq!(
            (
                s.tokens,
                s.temporaries,
                s.vertex_constants,
                s.fragment_constants
            ),
            (1024, 26, 250, 64)
        );
        assert_eq!(
            (s.varyings, s.samplers, s.color_outputs, s.depth_outputs),
            (10, 16, 4, 1)
        );
        let x = Profile::StandardExtended.limits();
        assert_eq!(
            (x.tokens, x.attributes, x.fragment_constants),
            (2048, 16, 200)
        );
        assert_eq!(
            Profile::Standard.limits_for(Version::V1),
            Some(Profile::Baseline.limits())
        );
        assert_eq!(Profile::Baseline.limits_for(Version::V2), None);
        assert_eq!(x.count(RegType::Constant, Stage::Fragment), 200);
    }
}
