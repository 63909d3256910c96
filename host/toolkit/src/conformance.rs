//! The PTX conformance check of the probe kernels, end to end: build for a [`Target`], check
//! every probe's memory-model sequence against [`crate::abi`], assemble with ptxas, and the
//! snapshot and tables the test and the `scoped-atomics-host ptx` command print.

use crate::abi::{self, AbiTable, Expected, LoopReason, Probe};
use crate::ptx::{self, Kernel, PtxasReport, Target, Toolchain};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One probe's verdict.
#[derive(Clone, Debug)]
pub struct ProbeResult {
    pub probe: Probe,
    pub expected: Expected,
    /// The kernel's memory-model sequence, normalised; empty if the kernel is missing.
    pub actual: Vec<String>,
    /// Deviations; empty if the kernel conforms.
    pub problems: Vec<String>,
}

/// The check of one target's PTX (no tools needed: see [`check_ptx`]).
#[derive(Clone, Debug)]
pub struct Checked {
    pub target: Target,
    /// `.version` and `.target` of the PTX.
    pub version: String,
    pub arch: String,
    /// Every expected probe, sorted by name.
    pub results: Vec<ProbeResult>,
    /// Kernels in the PTX named like a probe (`…__<scope>`) that no probe rule produces.
    pub unexpected: Vec<String>,
    /// The other kernels (the example kernels): assembled, not checked against the table.
    pub others: Vec<String>,
    /// Number of probe-named `.entry` kernels in the PTX.
    pub kernels: usize,
    /// Memory-model instructions over all kernels (labels and branches not counted).
    pub memory_instructions: usize,
    /// The snapshot text (`host/checks/snapshots/<config>.txt`).
    pub snapshot: String,
}

impl Checked {
    pub fn deviations(&self) -> impl Iterator<Item = &ProbeResult> {
        self.results.iter().filter(|r| !r.problems.is_empty())
    }

    pub fn matched(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.problems.is_empty())
            .count()
    }

    /// CAS-loop probes, per reason.
    pub fn loops(&self) -> BTreeMap<LoopReason, usize> {
        let mut out = BTreeMap::new();
        for r in &self.results {
            if let Some(reason) = r.expected.cas_loop {
                *out.entry(reason).or_default() += 1;
            }
        }
        out
    }

    /// Whether the PTX header is what the target should produce.
    pub fn header_problem(&self) -> Option<String> {
        (self.arch != self.target.arch()).then(|| {
            format!(
                "{}: PTX `.target {}`, expected {}",
                self.target,
                self.arch,
                self.target.arch()
            )
        })
    }
}

/// Whether a kernel is named like a probe: `<op>__…__<scope>`.
pub fn is_probe_name(name: &str) -> bool {
    let name = abi::Space::ALL
        .iter()
        .filter(|s| **s != abi::Space::Generic)
        .find_map(|s| name.strip_suffix(s.suffix()))
        .unwrap_or(name);
    name.rsplit_once("__")
        .is_some_and(|(_, scope)| abi::Scope::ALL.iter().any(|s| s.name() == scope))
}

/// Checks the PTX text of `target` against the table: every probe of [`abi::probes`] must be a
/// kernel whose memory-model sequence conforms, and there must be no other probe-named kernel.
/// Kernels not named like probes (the example kernels) are only listed.
pub fn check_ptx(ptx_text: &str, target: Target, table: &AbiTable) -> Checked {
    let (version, arch) = ptx::ptx_header(ptx_text);
    let (kernels, others): (BTreeMap<String, Kernel>, BTreeMap<String, Kernel>) =
        ptx::parse_kernels(ptx_text)
            .into_iter()
            .filter(|k| k.entry)
            .map(|k| (k.name.clone(), k))
            .partition(|(name, _)| is_probe_name(name));
    let mut probes = abi::probes(target);
    probes.sort_by(|a, b| a.name.cmp(&b.name));
    let names: BTreeSet<&str> = probes.iter().map(|p| p.name.as_str()).collect();
    let unexpected = kernels
        .keys()
        .filter(|k| !names.contains(k.as_str()))
        .cloned()
        .collect();
    let mut results = Vec::with_capacity(probes.len());
    let mut memory_instructions = 0;
    let mut lines: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for probe in probes {
        let expected = abi::expected(&probe, table, target);
        let (actual, problems) = match kernels.get(&probe.name) {
            Some(k) => {
                let items = ptx::instructions(k);
                memory_instructions += items
                    .iter()
                    .filter(|i| matches!(i, ptx::Item::Instr(i) if i.is_memory_model()))
                    .count();
                let actual = abi::snapshot_lines_of(&items);
                lines.insert(&k.name, actual.clone());
                (actual, abi::check_items(k, &items, &expected))
            }
            None => (vec![], vec!["kernel missing from the PTX".into()]),
        };
        results.push(ProbeResult {
            probe,
            expected,
            actual,
            problems,
        });
    }
    let version = version.unwrap_or_default();
    let arch = arch.unwrap_or_default();
    let mut snapshot = format!(
        "# Memory-model sequences of the probe kernels for {target} (PTX .version {version}, \
         .target {arch}):\n# registers and labels renamed. Written by host/tests/ptx_conformance.rs \
         with UPDATE_SNAPSHOTS=1.\n"
    );
    for (name, k) in &kernels {
        let _ = writeln!(snapshot, "== {name}");
        let section = match lines.get(name.as_str()) {
            Some(l) => l.clone(),
            None => abi::snapshot_lines(k), // an unexpected probe-named kernel
        };
        for line in section {
            let _ = writeln!(snapshot, "{line}");
        }
    }
    let _ = writeln!(
        snapshot,
        "# Other kernels (the example kernels and the synchronisation primitives): their\n\
         # memory-model sequences, not checked against the table but kept here so that a codegen\n\
         # change shows in review."
    );
    for (name, k) in &others {
        let _ = writeln!(snapshot, "== {name}");
        for line in abi::snapshot_lines(k) {
            let _ = writeln!(snapshot, "{line}");
        }
    }
    Checked {
        target,
        version,
        arch,
        kernels: kernels.len(),
        results,
        unexpected,
        others: others.into_keys().collect(),
        memory_instructions,
        snapshot,
    }
}

/// Wall time of each step.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    pub build: Duration,
    pub check: Duration,
    pub assemble: Duration,
}

/// Everything about one target.
#[derive(Clone, Debug)]
pub struct TargetReport {
    pub ptx: PathBuf,
    pub checked: Checked,
    pub ptxas: Result<PtxasReport, ptx::Error>,
    pub timings: Timings,
}

/// A step of [`run`], reported to the progress callback of [`run_all_with_progress`] as it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Building the PTX (cargo, the pinned nightly).
    Build,
    /// Checking every probe against the table.
    Check,
    /// Assembling with ptxas.
    Assemble,
    /// Finished (successfully or not).
    Done,
}

/// Builds, checks and assembles `target`. Fails only if the build does; a ptxas failure is in
/// the report.
pub fn run(tc: &Toolchain, target: Target, table: &AbiTable) -> ptx::Result<TargetReport> {
    run_with_progress(tc, target, table, &|_| {})
}

fn run_with_progress(
    tc: &Toolchain,
    target: Target,
    table: &AbiTable,
    step: &dyn Fn(Step),
) -> ptx::Result<TargetReport> {
    step(Step::Build);
    let t = Instant::now();
    let ptx_path = ptx::build_ptx(tc, target)?;
    let build = t.elapsed();
    let t = Instant::now();
    let text = std::fs::read_to_string(&ptx_path)
        .map_err(|e| ptx::Error::Failed(format!("reading {}: {e}", ptx_path.display())))?;
    step(Step::Check);
    let checked = check_ptx(&text, target, table);
    let check = t.elapsed();
    let t = Instant::now();
    step(Step::Assemble);
    let ptxas = ptx::assemble(tc, &ptx_path, target);
    let assemble = t.elapsed();
    Ok(TargetReport {
        ptx: ptx_path,
        checked,
        ptxas,
        timings: Timings {
            build,
            check,
            assemble,
        },
    })
}

/// [`run`] for each target, on `jobs` threads (targets handed out in order); results in the
/// order of `targets`.
pub fn run_all(
    tc: &Toolchain,
    targets: &[Target],
    table: &AbiTable,
    jobs: usize,
) -> Vec<(Target, ptx::Result<TargetReport>)> {
    run_all_with_progress(tc, targets, table, jobs, &|_, _| {})
}

/// [`run_all`], calling `progress(target, step)` as each step of each target starts (and with
/// [`Step::Done`] when the target is finished), from the worker threads.
pub fn run_all_with_progress(
    tc: &Toolchain,
    targets: &[Target],
    table: &AbiTable,
    jobs: usize,
    progress: &(dyn Fn(Target, Step) + Sync),
) -> Vec<(Target, ptx::Result<TargetReport>)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, targets.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&target) = targets.get(i) else { break };
                    let r = run_with_progress(tc, target, table, &|step| progress(target, step));
                    progress(target, Step::Done);
                    results.lock().unwrap().push((i, target, r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _, _)| *i);
    results.into_iter().map(|(_, t, r)| (t, r)).collect()
}

fn render(header: &[String], rows: &[Vec<String>]) -> String {
    let cols = header.len();
    let width: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        for (c, cell) in cells.iter().enumerate() {
            if c == 0 {
                let _ = write!(out, "{cell:<w$}", w = width[c]);
            } else {
                let _ = write!(out, "  {cell:>w$}", w = width[c]);
            }
        }
        out.push('\n');
    };
    line(&mut out, header);
    let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
    line(&mut out, &rule);
    for r in rows {
        line(&mut out, r);
    }
    out
}

/// The position of a group in the results table.
fn group_rank(group: &str) -> (usize, String) {
    const ORDER: &[&str] = &[
        "load",
        "store",
        "swap",
        "compare_exchange",
        "fetch_add",
        "fetch_sub",
        "fetch_and",
        "fetch_nand",
        "fetch_or",
        "fetch_xor",
        "fetch_not",
        "fetch_min",
        "fetch_max",
        "fetch_ptr_add",
        "fetch_ptr_sub",
        "fetch_byte_add",
        "fetch_byte_sub",
        "reduce_add",
        "reduce_sub",
        "reduce_and",
        "reduce_or",
        "reduce_xor",
        "reduce_min",
        "reduce_max",
        "fence",
    ];
    let rank = ORDER
        .iter()
        .position(|g| *g == group)
        .unwrap_or(ORDER.len());
    (rank, group.to_string())
}

/// Rows = operation group, columns = targets, cells = `matched/total`; a last row of totals.
pub fn results_table(checked: &[&Checked]) -> String {
    let mut groups: Vec<String> = Vec::new();
    for c in checked {
        for r in &c.results {
            let g = r.probe.op.group();
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    groups.sort_by_key(|g| group_rank(g));
    let mut header = vec!["operation".to_string()];
    header.extend(checked.iter().map(|c| c.target.name().to_string()));
    let cell = |c: &Checked, g: Option<&str>| {
        let rs: Vec<_> = c
            .results
            .iter()
            .filter(|r| g.is_none_or(|g| r.probe.op.group() == g))
            .collect();
        let ok = rs.iter().filter(|r| r.problems.is_empty()).count();
        format!("{ok}/{}", rs.len())
    };
    let mut rows: Vec<Vec<String>> = groups
        .iter()
        .map(|g| {
            let mut row = vec![g.clone()];
            row.extend(checked.iter().map(|c| cell(c, Some(g))));
            row
        })
        .collect();
    let mut total = vec!["total".to_string()];
    total.extend(checked.iter().map(|c| cell(c, None)));
    rows.push(total);
    let mut kernels = vec!["probe kernels in PTX".to_string()];
    kernels.extend(checked.iter().map(|c| c.kernels.to_string()));
    rows.push(kernels);
    render(&header, &rows)
}

/// Probes that are longer than the one recommended instruction because they are CAS loops, per
/// reason and target.
pub fn loops_table(checked: &[&Checked]) -> String {
    let mut reasons = BTreeSet::new();
    for c in checked {
        reasons.extend(c.loops().into_keys());
    }
    let mut header = vec!["CAS loop (longer than the table's instruction)".to_string()];
    header.extend(checked.iter().map(|c| c.target.name().to_string()));
    let mut rows: Vec<Vec<String>> = reasons
        .iter()
        .map(|r| {
            let mut row = vec![r.describe().to_string()];
            row.extend(
                checked
                    .iter()
                    .map(|c| c.loops().get(r).copied().unwrap_or(0).to_string()),
            );
            row
        })
        .collect();
    let mut total = vec!["total".to_string()];
    total.extend(
        checked
            .iter()
            .map(|c| c.loops().values().sum::<usize>().to_string()),
    );
    rows.push(total);
    render(&header, &rows)
}

/// The deviating probes, with what was expected and the actual sequence (at most `limit` per
/// target).
pub fn deviations_report(checked: &[&Checked], limit: usize) -> String {
    let mut out = String::new();
    for c in checked {
        if let Some(p) = c.header_problem() {
            let _ = writeln!(out, "{p}");
        }
        for k in &c.unexpected {
            let _ = writeln!(
                out,
                "{}: kernel {k} is in the PTX but no probe rule makes it",
                c.target
            );
        }
        let devs: Vec<_> = c.deviations().collect();
        for r in devs.iter().take(limit) {
            let _ = writeln!(out, "{}: {}", c.target, r.probe.name);
            let _ = writeln!(out, "    expected: {}", r.expected);
            for p in &r.problems {
                let _ = writeln!(out, "    problem:  {p}");
            }
            let _ = writeln!(out, "    actual:");
            for l in &r.actual {
                let _ = writeln!(out, "        {l}");
            }
        }
        if devs.len() > limit {
            let _ = writeln!(
                out,
                "{}: … and {} more deviating probes",
                c.target,
                devs.len() - limit
            );
        }
    }
    out
}

/// Registers (min/max over the probes) and memory-model instruction counts, per target.
pub fn summary_table(reports: &[&TargetReport]) -> String {
    let header: Vec<String> = [
        "target",
        "PTX",
        "kernels",
        "mem instrs",
        "per kernel",
        "regs min",
        "regs max",
        "build s",
        "ptxas s",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            let c = &r.checked;
            let (min, max) = match &r.ptxas {
                Ok(p) => {
                    let probes: Vec<u32> = c
                        .results
                        .iter()
                        .filter_map(|x| p.registers.get(&x.probe.name).copied())
                        .collect();
                    (
                        probes.iter().min().map_or("-".into(), |v| v.to_string()),
                        probes.iter().max().map_or("-".into(), |v| v.to_string()),
                    )
                }
                Err(_) => ("ptxas failed".into(), "-".into()),
            };
            vec![
                c.target.name().into(),
                format!("{} {}", c.version, c.arch),
                c.kernels.to_string(),
                c.memory_instructions.to_string(),
                format!(
                    "{:.2}",
                    c.memory_instructions as f64 / c.kernels.max(1) as f64
                ),
                min,
                max,
                format!("{:.1}", r.timings.build.as_secs_f64()),
                match &r.ptxas {
                    Ok(p) if p.cached => "cached".into(),
                    _ => format!("{:.1}", r.timings.assemble.as_secs_f64()),
                },
            ]
        })
        .collect();
    render(&header, &rows)
}

/// `host/checks/snapshots/<config>.txt`.
pub fn snapshot_path(tc_root: &std::path::Path, target: Target) -> PathBuf {
    tc_root
        .join("host/checks/snapshots")
        .join(format!("{}.txt", target.name()))
}

/// The sections (`== name` and its lines) of a snapshot text.
fn sections(text: &str) -> BTreeMap<&str, Vec<&str>> {
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut current = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("== ") {
            current = Some(name.trim());
            out.entry(name.trim()).or_default();
        } else if let Some(c) = current {
            out.entry(c).or_default().push(line);
        }
    }
    out
}

fn header(text: &str) -> Vec<&str> {
    text.lines().take_while(|l| l.starts_with('#')).collect()
}

/// `None` if `actual` equals the stored snapshot `stored`; else a diff of the first `limit`
/// differing probes.
pub fn snapshot_diff(stored: &str, actual: &str, limit: usize) -> Option<String> {
    if stored == actual {
        return None;
    }
    let (s, a) = (sections(stored), sections(actual));
    let names: BTreeSet<&str> = s.keys().chain(a.keys()).copied().collect();
    let mut out = String::new();
    if header(stored) != header(actual) {
        let _ = writeln!(
            out,
            "header:\n- {}\n+ {}",
            header(stored).join("\n- "),
            header(actual).join("\n+ ")
        );
    }
    let differing: Vec<&str> = names.into_iter().filter(|k| s.get(k) != a.get(k)).collect();
    for (n, name) in differing.iter().enumerate() {
        if n == limit {
            let _ = writeln!(
                out,
                "… and {} more differing probes",
                differing.len() - limit
            );
            break;
        }
        let _ = writeln!(out, "== {name}");
        match (s.get(name), a.get(name)) {
            (None, _) => {
                let _ = writeln!(out, "   (not in the snapshot)");
            }
            (_, None) => {
                let _ = writeln!(out, "   (no longer in the PTX)");
            }
            _ => {}
        }
        for l in s.get(name).into_iter().flatten() {
            let _ = writeln!(out, "-  {l}");
        }
        for l in a.get(name).into_iter().flatten() {
            let _ = writeln!(out, "+  {l}");
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_diff_names_the_differing_probes() {
        let a = "# h\n== a\nx\n== b\ny\n";
        assert_eq!(snapshot_diff(a, a, 5), None);
        let d = snapshot_diff(a, "# h\n== a\nx\n== b\nz\n== c\n", 5).unwrap();
        assert!(d.contains("== b\n-  y\n+  z\n"), "{d}");
        assert!(d.contains("== c\n   (not in the snapshot)"), "{d}");
        assert!(!d.contains("== a"), "{d}");
    }

    #[test]
    fn check_ptx_reports_missing_and_unexpected_kernels() {
        let ptx = ".version 7.0\n.target sm_80\n.visible .entry load__u32__acquire__device()\n{\nld.acquire.gpu.b32 %r1, [%rd1];\nret;\n}\n.visible .entry mystery__device()\n{\nret;\n}\n.visible .entry histogram()\n{\nret;\n}\n";
        let c = check_ptx(ptx, Target::Sm80, &AbiTable::builtin());
        assert_eq!(c.kernels, 2);
        assert_eq!(c.matched(), 1);
        assert_eq!(c.unexpected, ["mystery__device"]);
        assert_eq!(c.others, ["histogram"]);
        assert_eq!(c.results.len(), 4284);
        assert!(c.snapshot.contains(
            "== load__u32__acquire__device\nld.acquire.gpu.b32 %r0, [%rd0]\n== mystery__device\n"
        ));
        // Non-probe kernels come last, after the probes, in their own section.
        let others = c
            .snapshot
            .find("# Other kernels")
            .expect("the other kernels' section");
        assert!(
            c.snapshot
                .find("== histogram")
                .is_some_and(|at| at > others)
        );
        let table = results_table(&[&c]);
        assert!(table.contains("load"), "{table}");
        assert!(deviations_report(&[&c], 2).contains("kernel missing"));
    }
}
