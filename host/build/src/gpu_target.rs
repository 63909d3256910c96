//! What [`PtxBuilder`](crate::PtxBuilder) builds for: a GPU architecture (`-C target-cpu`) from
//! sm_70 on, a PTX ISA version (`-C target-feature=+ptxNN`), and the `ptxas` that assembles it.

use crate::Error;
use std::fmt;

/// The architectures [`PtxBuilder::arch`](crate::PtxBuilder::arch) accepts: every
/// `-C target-cpu` of the pinned nightly's nvptx backend from sm_70 (Volta) on, and
/// `sm_90_ptx86`, short for sm_90 with PTX ISA 8.6. Each with the oldest PTX ISA version that
/// has it (LLVM's minimum, which it emits when no newer one is asked for).
pub const ARCHS: [(&str, (u8, u8)); 29] = [
    ("sm_70", (6, 0)),
    ("sm_72", (6, 1)),
    ("sm_75", (6, 3)),
    ("sm_80", (7, 0)),
    ("sm_86", (7, 1)),
    ("sm_87", (7, 4)),
    ("sm_88", (9, 0)),
    ("sm_89", (7, 8)),
    ("sm_90", (7, 8)),
    ("sm_90a", (8, 0)),
    ("sm_90_ptx86", (8, 6)),
    ("sm_100", (8, 6)),
    ("sm_100a", (8, 6)),
    ("sm_100f", (8, 8)),
    ("sm_101", (8, 6)),
    ("sm_101a", (8, 6)),
    ("sm_101f", (8, 8)),
    ("sm_103", (8, 8)),
    ("sm_103a", (8, 8)),
    ("sm_103f", (8, 8)),
    ("sm_110", (9, 0)),
    ("sm_110a", (9, 0)),
    ("sm_110f", (9, 0)),
    ("sm_120", (8, 7)),
    ("sm_120a", (8, 7)),
    ("sm_120f", (8, 8)),
    ("sm_121", (8, 8)),
    ("sm_121a", (8, 8)),
    ("sm_121f", (8, 8)),
];

/// The PTX ISA versions [`PtxBuilder::ptx_isa`](crate::PtxBuilder::ptx_isa) accepts: those the
/// pinned nightly's nvptx backend can emit from PTX ISA 6.0 on.
pub const PTX_ISAS: [(u8, u8); 23] = [
    (6, 0),
    (6, 1),
    (6, 2),
    (6, 3),
    (6, 4),
    (6, 5),
    (7, 0),
    (7, 1),
    (7, 2),
    (7, 3),
    (7, 4),
    (7, 5),
    (7, 6),
    (7, 7),
    (7, 8),
    (8, 0),
    (8, 1),
    (8, 2),
    (8, 3),
    (8, 4),
    (8, 5),
    (8, 6),
    (8, 7),
];

/// The oldest PTX ISA version the builder writes for sm_80 when none is asked for: 7.1, where
/// LLVM would write 7.0. The hardware block barrier's waits are `mbarrier.test_wait.parity` /
/// `try_wait.parity` (ISA 7.1), the only `mbarrier` waits PTX defines for every token safe code
/// can hold; nvcc has written 7.1 or newer for sm_80 since CUDA 11.1. The builder raises the
/// `.version` of the PTX itself (ISA 7.1 is a superset of 7.0) and tells the library's build
/// script with [`ISA_ENV`], instead of `-C target-feature=+ptx71`, about which rustc warns in
/// every crate of the build.
const SM_80_FLOOR: (u8, u8) = (7, 1);

/// The environment variable through which the builder tells `scoped-atomics`'s build script the
/// PTX ISA version it raises a build's `.version` to (`71`): the library's `cfg` gates then see
/// the version the PTX file has.
pub const ISA_ENV: &str = "SCOPED_ATOMICS_PTX_ISA";

/// The newest PTX ISA version `rustc` knows as a `target_feature` (so that `cfg` sees it);
/// newer ones (8.8, 9.0) reach LLVM only as the minimum of an architecture.
const NEWEST_CFG_ISA: (u8, u8) = (8, 7);

/// One build configuration of [`PtxBuilder`](crate::PtxBuilder): an architecture and a PTX ISA
/// version.
///
/// ```
/// use scoped_atomics_build::GpuTarget;
/// let t = GpuTarget::new("sm_70", Some((8, 3)))?;
/// assert_eq!(t.name(), "sm_70_ptx83");
/// assert_eq!(t.ptx_isa(), (8, 3));
/// assert_eq!(t.rustflags(), ["-Ctarget-cpu=sm_70", "-Ctarget-feature=+ptx83"]);
/// assert_eq!(GpuTarget::new("sm_100", None)?.ptx_isa(), (8, 6));
/// # Ok::<(), scoped_atomics_build::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuTarget {
    cpu: &'static str,
    ptx_isa: (u8, u8),
    /// Whether the ISA version was asked for (it is then part of [`name`](Self::name)).
    explicit_isa: bool,
    /// The name the user gave, for the file name.
    arch: &'static str,
}

impl GpuTarget {
    /// `arch` (one of [`ARCHS`]) with PTX ISA `ptx_isa` (one of [`PTX_ISAS`]), or the
    /// architecture's oldest — except sm_80, written as 7.1 (see
    /// [`raised_version`](Self::raised_version)). An ISA older than the architecture's oldest is an error
    /// ([`Error::UnknownArch`], which says what is accepted).
    pub fn new(arch: &str, ptx_isa: Option<(u8, u8)>) -> Result<GpuTarget, Error> {
        let &(name, min) = ARCHS
            .iter()
            .find(|(a, _)| *a == arch)
            .ok_or_else(|| Error::UnknownArch(arch.to_string()))?;
        let cpu = name.strip_suffix("_ptx86").unwrap_or(name);
        let isa = match ptx_isa {
            None if cpu == "sm_80" => min.max(SM_80_FLOOR),
            None => min,
            Some(isa) if !PTX_ISAS.contains(&isa) => {
                return Err(Error::UnknownPtxIsa(format!(
                    "PTX ISA {}.{} is not one the pinned nightly emits: accepted are {}",
                    isa.0,
                    isa.1,
                    PTX_ISAS.map(|(a, b)| format!("{a}.{b}")).join(", ")
                )));
            }
            Some(isa) if isa < min => {
                return Err(Error::UnknownPtxIsa(format!(
                    "{arch} needs PTX ISA {}.{} or newer, not {}.{}",
                    min.0, min.1, isa.0, isa.1
                )));
            }
            Some(isa) => isa,
        };
        Ok(GpuTarget {
            cpu,
            ptx_isa: isa,
            explicit_isa: ptx_isa.is_some(),
            arch: name,
        })
    }

    /// Reads a [`name`](Self::name): an architecture of [`ARCHS`], optionally followed by
    /// `_ptx<MAJOR><MINOR>` (`sm_70_ptx83`, `sm_100_ptx87`). What the command line's `--target`
    /// takes.
    ///
    /// ```
    /// use scoped_atomics_build::GpuTarget;
    /// assert_eq!(GpuTarget::parse("sm_70_ptx83")?, GpuTarget::new("sm_70", Some((8, 3)))?);
    /// assert_eq!(GpuTarget::parse("sm_90_ptx86")?.cpu(), "sm_90");
    /// assert!(GpuTarget::parse("sm_61").is_err());
    /// # Ok::<(), scoped_atomics_build::Error>(())
    /// ```
    pub fn parse(name: &str) -> Result<GpuTarget, Error> {
        if ARCHS.iter().any(|(a, _)| *a == name) {
            return GpuTarget::new(name, None);
        }
        match name.rsplit_once("_ptx") {
            Some((cpu, isa)) => match parse_ptx_isa(isa) {
                Some(isa) => GpuTarget::new(cpu, Some(isa)),
                None => Err(Error::UnknownPtxIsa(format!(
                    "`{name}`: the PTX ISA after `_ptx` is two digits, e.g. sm_70_ptx83"
                ))),
            },
            None => GpuTarget::new(name, None),
        }
    }

    /// `sm_70`, `sm_90_ptx86`, or with an ISA asked for, `sm_70_ptx83`: the `<arch>` of the PTX
    /// file `<crate>.<arch>.ptx`.
    pub fn name(&self) -> String {
        if self.explicit_isa {
            format!("{}_ptx{}{}", self.cpu, self.ptx_isa.0, self.ptx_isa.1)
        } else {
            self.arch.to_string()
        }
    }

    /// The architecture: `-C target-cpu`, `ptxas -arch` and the PTX `.target`.
    pub fn cpu(&self) -> &'static str {
        self.cpu
    }

    /// The architecture as given to [`new`](Self::new) (`sm_90_ptx86` stays that).
    pub fn arch(&self) -> &'static str {
        self.arch
    }

    /// The PTX ISA version given to [`new`](Self::new), if one was.
    pub fn requested_ptx_isa(&self) -> Option<(u8, u8)> {
        self.explicit_isa.then_some(self.ptx_isa)
    }

    /// The PTX ISA version of the PTX (`.version`).
    pub fn ptx_isa(&self) -> (u8, u8) {
        self.ptx_isa
    }

    /// The `-C` flags of the target: `-C target-cpu`, and `-C target-feature=+ptxNN` only for
    /// a PTX ISA version newer than the one LLVM emits for the architecture anyway (rustc warns
    /// "unstable feature specified for `-Ctarget-feature`" about every `+ptxNN`, in each crate of
    /// the build). The library's gates read the version the build emits from its build script
    /// (`cfg(ptx_isa_at_least = "…")`, derived from the CPU and any `+ptxNN`), not from
    /// `cfg(target_feature = "ptxNN")`, which rustc sets only for a version named with `+ptxNN`.
    ///
    /// ```
    /// use scoped_atomics_build::GpuTarget;
    /// assert_eq!(GpuTarget::new("sm_86", None)?.rustflags(), ["-Ctarget-cpu=sm_86"]);
    /// assert_eq!(GpuTarget::new("sm_86", Some((7, 1)))?.rustflags(), ["-Ctarget-cpu=sm_86"]);
    /// assert_eq!(
    ///     GpuTarget::new("sm_86", Some((8, 3)))?.rustflags(),
    ///     ["-Ctarget-cpu=sm_86", "-Ctarget-feature=+ptx83"]
    /// );
    /// # Ok::<(), scoped_atomics_build::Error>(())
    /// ```
    pub fn rustflags(&self) -> Vec<String> {
        let mut flags = vec![format!("-Ctarget-cpu={}", self.cpu)];
        let isa = self.ptx_isa.min(NEWEST_CFG_ISA);
        if isa > self.emitted_without_feature() && self.raised_version().is_none() {
            flags.push(format!("-Ctarget-feature=+ptx{}{}", isa.0, isa.1));
        }
        flags
    }

    /// The `.version` the builder writes over LLVM's, where it raises it (sm_80 without an ISA
    /// asked for: 7.1, see [`ISA_ENV`]); `None` where the PTX keeps LLVM's.
    ///
    /// ```
    /// use scoped_atomics_build::GpuTarget;
    /// let t = GpuTarget::new("sm_80", None)?;
    /// assert_eq!((t.ptx_isa(), t.raised_version()), ((7, 1), Some((7, 1))));
    /// assert_eq!(t.rustflags(), ["-Ctarget-cpu=sm_80"]); // no `+ptx71`, so no rustc warning
    /// assert_eq!(t.build_env(), Some(("SCOPED_ATOMICS_PTX_ISA", "71".to_string())));
    /// assert_eq!(GpuTarget::new("sm_80", Some((7, 0)))?.raised_version(), None);
    /// # Ok::<(), scoped_atomics_build::Error>(())
    /// ```
    pub fn raised_version(&self) -> Option<(u8, u8)> {
        let raised = !self.explicit_isa && self.arch == "sm_80";
        (raised && self.ptx_isa > self.emitted_without_feature()).then_some(self.ptx_isa)
    }

    /// The environment variable of the build that tells the library's build script the
    /// raised version ([`ISA_ENV`]), where the builder raises it.
    pub fn build_env(&self) -> Option<(&'static str, String)> {
        self.raised_version()
            .map(|(major, minor)| (ISA_ENV, format!("{major}{minor}")))
    }

    /// The PTX as the builder writes it: LLVM's `.version` line replaced by the
    /// [`raised_version`](Self::raised_version), where there is one (`None`: unchanged).
    ///
    /// ```
    /// use scoped_atomics_build::GpuTarget;
    /// let t = GpuTarget::new("sm_80", None)?;
    /// let ptx = "//\n.version 7.0\n.target sm_80\n";
    /// assert_eq!(t.raise_version(ptx).as_deref(), Some("//\n.version 7.1\n.target sm_80\n"));
    /// assert_eq!(t.raise_version("//\n.version 7.1\n.target sm_80\n"), None); // already
    /// # Ok::<(), scoped_atomics_build::Error>(())
    /// ```
    pub fn raise_version(&self, ptx: &str) -> Option<String> {
        let (major, minor) = self.raised_version()?;
        let mut offset = 0;
        for line in ptx.split_inclusive('\n') {
            let text = line.trim_end();
            if let Some(version) = text.strip_prefix(".version ") {
                let older = parse_ptx_isa(version.trim()).is_some_and(|v| v < (major, minor));
                let end = offset + text.len();
                return older
                    .then(|| format!("{}.version {major}.{minor}{}", &ptx[..offset], &ptx[end..]));
            }
            offset += line.len();
        }
        None
    }

    /// The PTX ISA version LLVM emits for the architecture without a `+ptxNN` feature: the
    /// architecture's oldest, and never below 7.0, the floor of rustc's nvptx64 target.
    fn emitted_without_feature(&self) -> (u8, u8) {
        let oldest = ARCHS
            .iter()
            .find(|(arch, _)| *arch == self.cpu)
            .map_or((7, 0), |&(_, isa)| isa);
        oldest.max((7, 0))
    }

    /// Whether `ptxas` 12.9 (not 13.x, which dropped them) assembles it: sm_70 and sm_72.
    pub fn needs_ptxas_12(&self) -> bool {
        matches!(self.cpu, "sm_70" | "sm_72")
    }
}

impl fmt::Display for GpuTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Reads a PTX ISA version written `8.3` (or `83`).
///
/// ```
/// assert_eq!(scoped_atomics_build::parse_ptx_isa("8.3"), Some((8, 3)));
/// assert_eq!(scoped_atomics_build::parse_ptx_isa("83"), Some((8, 3)));
/// assert_eq!(scoped_atomics_build::parse_ptx_isa("8"), None);
/// ```
pub fn parse_ptx_isa(text: &str) -> Option<(u8, u8)> {
    let (major, minor) = match text.split_once('.') {
        Some(parts) => parts,
        None if text.len() == 2 => text.split_at(1),
        None => return None,
    };
    Some((major.parse().ok()?, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_arch_is_accepted_with_its_oldest_isa_and_a_newer_one() {
        for (arch, min) in ARCHS {
            let t = GpuTarget::new(arch, None).unwrap();
            let expected = if arch == "sm_80" { SM_80_FLOOR } else { min };
            assert_eq!(t.ptx_isa(), expected, "{arch}");
            assert_eq!(t.name(), arch);
            assert!(t.rustflags()[0].ends_with(t.cpu()), "{arch}");
            if min < (8, 7) {
                let t = GpuTarget::new(arch, Some((8, 7))).unwrap();
                assert_eq!(t.rustflags()[1], "-Ctarget-feature=+ptx87", "{arch}");
            }
        }
    }

    /// Issue 32, item 5: rustc warns "unstable feature specified for `-Ctarget-feature`: `ptx71`"
    /// about every `+ptxNN`, in every crate of the build; the builder passed one for every
    /// architecture from sm_80 on, the oldest version included (sm_86: `+ptx71`).
    #[test]
    fn no_ptx_feature_where_the_architecture_emits_that_version_anyway() {
        for (arch, _) in ARCHS {
            let flags = GpuTarget::new(arch, None).unwrap().rustflags();
            let expected = (arch == "sm_90_ptx86").then_some("-Ctarget-feature=+ptx86");
            assert_eq!(
                flags.get(1).map(String::as_str),
                expected,
                "{arch}: {flags:?}"
            );
        }
        // Asked for explicitly at the architecture's own version: still none.
        let t = GpuTarget::new("sm_89", Some((7, 8))).unwrap();
        assert_eq!(t.rustflags(), ["-Ctarget-cpu=sm_89"]);
        let t = GpuTarget::new("sm_70", Some((7, 0))).unwrap();
        assert_eq!(t.rustflags(), ["-Ctarget-cpu=sm_70"]);
    }

    #[test]
    fn a_name_reads_back_as_the_same_target() {
        for (arch, _) in ARCHS {
            let t = GpuTarget::new(arch, None).unwrap();
            assert_eq!(GpuTarget::parse(&t.name()).unwrap(), t);
        }
        let t = GpuTarget::new("sm_100", Some((8, 7))).unwrap();
        assert_eq!(GpuTarget::parse(&t.name()).unwrap(), t);
        assert!(GpuTarget::parse("sm_70_ptx8").is_err());
    }

    #[test]
    fn sm_90_ptx86_is_sm_90_with_ptx_isa_8_6() {
        let t = GpuTarget::new("sm_90_ptx86", None).unwrap();
        assert_eq!(
            (t.cpu(), t.ptx_isa(), t.name()),
            ("sm_90", (8, 6), "sm_90_ptx86".into())
        );
        assert_eq!(
            t.rustflags(),
            ["-Ctarget-cpu=sm_90", "-Ctarget-feature=+ptx86"]
        );
    }

    #[test]
    fn an_isa_the_arch_predates_or_nobody_emits_is_refused_with_the_reason() {
        let e = GpuTarget::new("sm_100", Some((8, 3))).unwrap_err();
        assert!(
            e.to_string()
                .contains("sm_100 needs PTX ISA 8.6 or newer, not 8.3"),
            "{e}"
        );
        let e = GpuTarget::new("sm_70", Some((8, 9))).unwrap_err();
        assert!(e.to_string().contains("accepted are 6.0, 6.1"), "{e}");
        assert!(matches!(
            GpuTarget::new("sm_60", None),
            Err(Error::UnknownArch(_))
        ));
    }

    #[test]
    fn isas_newer_than_rustc_knows_are_left_to_the_cpu() {
        let t = GpuTarget::new("sm_110", None).unwrap();
        assert_eq!(t.ptx_isa(), (9, 0));
        assert_eq!(t.rustflags(), ["-Ctarget-cpu=sm_110"]);
        assert!(GpuTarget::new("sm_72", None).unwrap().needs_ptxas_12());
        assert!(!GpuTarget::new("sm_75", None).unwrap().needs_ptxas_12());
    }
}
