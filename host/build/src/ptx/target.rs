//! The build configurations of the probe kernels: target CPU, PTX ISA, ptxas, what each has.

use std::fmt;

/// The flags that make one crate's PTX self-contained (see [`Target::rustflags`]), for every
/// device build: the conformance builds and `PtxBuilder`'s.
pub const SELF_CONTAINED_FLAGS: [&str; 3] = [
    "-Zunstable-options",
    "-Cpanic=immediate-abort",
    "-Zcross-crate-inline-threshold=always",
];

/// The four build configurations of the probe kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// `-C target-cpu=sm_70`; ptxas 12.9.
    Sm70,
    /// `-C target-cpu=sm_80 -C target-feature=+ptx71` (PTX ISA 7.1, the version
    /// scoped-atomics-build writes for sm_80: the hardware barrier's `.parity` waits); ptxas 13.5.
    Sm80,
    /// `-C target-cpu=sm_90` (PTX ISA 7.8, `.cluster` scope); ptxas 13.5.
    Sm90,
    /// `-C target-cpu=sm_90 -C target-feature=+ptx86` (PTX ISA 8.6: `fence.acquire`/`.release`).
    Sm90Ptx86,
}

impl Target {
    pub const ALL: [Target; 4] = [Target::Sm70, Target::Sm80, Target::Sm90, Target::Sm90Ptx86];

    /// The config name: `sm_70`, `sm_80`, `sm_90`, `sm_90_ptx86`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Sm70 => "sm_70",
            Target::Sm80 => "sm_80",
            Target::Sm90 => "sm_90",
            Target::Sm90Ptx86 => "sm_90_ptx86",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The target's `-C` flags: the SM and, for `sm_80` and `sm_90_ptx86`, the PTX ISA version.
    pub fn target_flags(self) -> &'static str {
        match self {
            Target::Sm70 => "-C target-cpu=sm_70",
            Target::Sm80 => "-C target-cpu=sm_80 -C target-feature=+ptx71",
            Target::Sm90 => "-C target-cpu=sm_90",
            Target::Sm90Ptx86 => "-C target-cpu=sm_90 -C target-feature=+ptx86",
        }
    }

    /// `RUSTFLAGS` of the build: the target flags (through `RUSTFLAGS`, so that the dependency
    /// crates see the target features too) and what makes one crate's PTX self-contained —
    /// the PTX of an rlib holds only that crate's code, so every function it calls must be
    /// inlinable: panics abort in place (`-Cpanic=immediate-abort`) instead of calling `core`'s
    /// panic machinery, and every function of every crate may be inlined across crates
    /// (`-Zcross-crate-inline-threshold=always`). Otherwise ptxas finds them unresolved.
    pub fn rustflags(self) -> String {
        Target::rustflags_with(self.target_flags())
    }

    /// The `RUSTFLAGS` of a build like the conformance builds for other target flags
    /// (`-C target-cpu=sm_100`, or none where the CPU is given elsewhere): `target_flags` and
    /// the flags that make one crate's PTX self-contained.
    ///
    /// ```
    /// use scoped_atomics_build::ptx::Target;
    /// let flags = Target::rustflags_with("-C target-cpu=sm_100");
    /// assert!(flags.starts_with("-C target-cpu=sm_100 ") && !flags.contains("ptx71"));
    /// assert_eq!(Target::Sm70.rustflags(), Target::rustflags_with(Target::Sm70.target_flags()));
    /// ```
    pub fn rustflags_with(target_flags: &str) -> String {
        format!("{target_flags} {}", SELF_CONTAINED_FLAGS.join(" "))
    }

    /// `ptxas -arch=`, which is also the PTX `.target`.
    pub fn arch(self) -> &'static str {
        match self {
            Target::Sm70 => "sm_70",
            Target::Sm80 => "sm_80",
            Target::Sm90 | Target::Sm90Ptx86 => "sm_90",
        }
    }

    /// Whether the `.cluster` scope (and so the cluster probes) exists: sm_90.
    pub fn has_cluster_scope(self) -> bool {
        matches!(self, Target::Sm90 | Target::Sm90Ptx86)
    }

    /// Whether `fence.acquire`/`fence.release` exist: sm_90 with PTX ISA 8.6.
    pub fn has_split_fences(self) -> bool {
        matches!(self, Target::Sm90Ptx86)
    }

    /// Whether the 128-bit atomics (and so the `u128`/`i128` probes) exist: `ld`/`st` `.b128`
    /// need PTX ISA 8.3, `atom.cas.b128`/`atom.exch.b128` sm_90 with PTX ISA 8.3, and `.b128` at
    /// `.sys` PTX ISA 8.4; of the four targets only sm_90 with PTX ISA 8.6 has them.
    pub fn has_b128_atomics(self) -> bool {
        matches!(self, Target::Sm90Ptx86)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
