//! The comparison: both sides' costs per case and configuration, and the fewer/equal/more tally.

use super::{Case, PtxCost, SassCost, SassInstr, sass_cost};
use scoped_atomics_host::ptx::Target;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Both costs of one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cost {
    pub ptx: PtxCost,
    pub sass: SassCost,
}

/// The four metrics, in report order.
pub const METRICS: [&str; 4] = ["PTX mm", "PTX total", "SASS total", "SASS mm"];

impl Cost {
    /// The metrics in the order of [`METRICS`].
    pub fn metrics(&self) -> [usize; 4] {
        [self.ptx.mm, self.ptx.total, self.sass.total, self.sass.mm]
    }
}

/// A build configuration of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// `sm_80`, `sm_90`, `sm_90_ptx86`.
    pub name: &'static str,
    /// Our build (`scoped_atomics_host::ptx::Target`).
    pub ours: Target,
    /// libcu++'s `nvcc -arch` and the ptxas target its PTX is assembled for.
    pub lib: Target,
    /// What the configuration is, for the report.
    pub about: &'static str,
}

/// The configurations: sm_80; sm_90 with our default PTX ISA 7.8; sm_90 with PTX ISA 8.6 (our
/// `fence.acquire`/`fence.release`). libcu++ is compiled by nvcc 13.5 for sm_80 and sm_90.
pub const CONFIGS: [Config; 3] = [
    Config {
        name: "sm_80",
        ours: Target::Sm80,
        lib: Target::Sm80,
        about: "sm_80: ours `-C target-cpu=sm_80`; libcu++ `nvcc -arch=sm_80`",
    },
    Config {
        name: "sm_90",
        ours: Target::Sm90,
        lib: Target::Sm90,
        about: "sm_90: ours `-C target-cpu=sm_90` (PTX ISA 7.8); libcu++ `nvcc -arch=sm_90`",
    },
    Config {
        name: "sm_90_ptx86",
        ours: Target::Sm90Ptx86,
        lib: Target::Sm90,
        about: "sm_90 + PTX ISA 8.6: ours `-C target-cpu=sm_90 -C target-feature=+ptx86` \
                (split fences); libcu++ `nvcc -arch=sm_90` (the same libcu++ build as `sm_90`)",
    },
];

/// One case compared in one configuration.
#[derive(Debug, Clone)]
pub struct Compared {
    pub case: Case,
    pub ours: Cost,
    pub lib: Cost,
}

impl Compared {
    /// Ours against libcu++, per metric (`Less`: ours has fewer).
    pub fn orderings(&self) -> [Ordering; 4] {
        let (o, l) = (self.ours.metrics(), self.lib.metrics());
        [0, 1, 2, 3].map(|i| o[i].cmp(&l[i]))
    }

    /// The verdict of the case: by SASS total, then PTX memory-model count, then PTX total.
    pub fn verdict(&self) -> Ordering {
        let [mm, total, sass, _] = self.orderings();
        sass.then(mm).then(total)
    }
}

/// Fewer / equal / more counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub fewer: usize,
    pub equal: usize,
    pub more: usize,
}

impl Tally {
    pub fn add(&mut self, o: Ordering) {
        match o {
            Ordering::Less => self.fewer += 1,
            Ordering::Equal => self.equal += 1,
            Ordering::Greater => self.more += 1,
        }
    }

    pub fn of<'a>(
        rows: impl IntoIterator<Item = &'a Compared>,
        f: impl Fn(&Compared) -> Ordering,
    ) -> Tally {
        let mut t = Tally::default();
        for r in rows {
            t.add(f(r));
        }
        t
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} fewer, {} equal, {} more",
            self.fewer, self.equal, self.more
        )
    }
}

/// One configuration's result.
#[derive(Debug, Clone)]
pub struct ConfigResult {
    pub config: Config,
    /// `.version` of our PTX and of libcu++'s.
    pub ptx_versions: (String, String),
    pub rows: Vec<Compared>,
}

/// Pairs the costs of both sides for `cases`; a case missing on a side is an error.
pub fn compare(
    cases: &[Case],
    ours_ptx: &BTreeMap<String, PtxCost>,
    ours_sass: &BTreeMap<String, Vec<SassInstr>>,
    lib_ptx: &BTreeMap<String, PtxCost>,
    lib_sass: &BTreeMap<String, Vec<SassInstr>>,
) -> Result<Vec<Compared>, String> {
    let cost = |side: &str,
                ptx: &BTreeMap<String, PtxCost>,
                sass: &BTreeMap<String, Vec<SassInstr>>,
                name: &str| {
        Ok::<_, String>(Cost {
            ptx: ptx
                .get(name)
                .cloned()
                .ok_or_else(|| format!("{side}: no PTX kernel {name}"))?,
            sass: sass_cost(
                sass.get(name)
                    .ok_or_else(|| format!("{side}: no SASS function {name}"))?,
            ),
        })
    };
    cases
        .iter()
        .map(|case| {
            Ok(Compared {
                case: case.clone(),
                ours: cost("ours", ours_ptx, ours_sass, &case.name)?,
                lib: cost("libcu++", lib_ptx, lib_sass, &case.name)?,
            })
        })
        .collect()
}
