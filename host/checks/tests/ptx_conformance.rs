//! PTX conformance: for each of the four build configurations (sm_70, sm_80, sm_90,
//! sm_90_ptx86), build the probe kernels of `gpu-kernels` with the pinned nightly, check every
//! probe's memory-model sequence against the PTX Atomics ABI table (`host/abi/ptx-atomics-abi.txt`
//! realised by the rules of `scoped_atomics_host::abi`), assemble with ptxas, and compare with the snapshots in
//! `host/checks/snapshots/<config>.txt`.
//!
//! * `UPDATE_SNAPSHOTS=1 cargo test -p scoped-atomics-checks --test ptx_conformance` rewrites the snapshots.
//! * `-- --nocapture` shows the tables on success.
//! * Without the tools (pinned nightly with rust-src, ptxas): skipped with a loud message on
//!   stderr; with `CI=true`, a failure.
//! * `PTX_JOBS=N` builds N configurations at a time (default 2).

use scoped_atomics_host::abi::{self, AbiTable};
use scoped_atomics_host::conformance::{self, TargetReport};
use scoped_atomics_host::ptx::{Error, Target, Toolchain};
use std::io::Write as _;
use std::time::Instant;

fn env_is(key: &str, values: &[&str]) -> bool {
    std::env::var(key).is_ok_and(|v| values.iter().any(|x| v.eq_ignore_ascii_case(x)))
}

/// Skips (or, on CI, fails) for a missing tool.
fn missing(why: &str) {
    if env_is("CI", &["true", "1"]) {
        panic!(
            "ptx_conformance: {why}; with CI=true the tools must be installed (run bash tools/install.sh)"
        );
    }
    // Straight to the stderr stream: `eprintln!` would be captured by the test harness, and a
    // skip must be seen.
    let bar = "=".repeat(72);
    let msg =
        format!("\n{bar}\nSKIPPED ptx_conformance: {why} (run bash tools/install.sh)\n{bar}\n\n");
    let _ = std::io::stderr().write_all(msg.as_bytes());
}

#[test]
fn ptx_conformance() {
    let started = Instant::now();
    let tc = match Toolchain::discover() {
        Ok(tc) => tc,
        Err(Error::Missing(why)) => return missing(&why),
        Err(e) => panic!("ptx_conformance: {e}"),
    };
    let table = AbiTable::builtin();
    let jobs = std::env::var("PTX_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(2);
    let update = env_is("UPDATE_SNAPSHOTS", &["1", "true"]);

    let mut failures: Vec<String> = Vec::new();
    let mut reports: Vec<TargetReport> = Vec::new();
    for (target, result) in conformance::run_all(&tc, &Target::ALL, &table, jobs) {
        match result {
            Ok(r) => reports.push(r),
            Err(Error::Missing(why)) => return missing(&format!("{target}: {why}")),
            Err(e) => failures.push(format!("{target}: build failed: {e}")),
        }
    }

    let checked: Vec<_> = reports.iter().map(|r| &r.checked).collect();
    println!("{}", conformance::results_table(&checked));
    println!("{}", conformance::loops_table(&checked));
    println!(
        "{}",
        conformance::summary_table(&reports.iter().collect::<Vec<_>>())
    );

    for r in &reports {
        let c = &r.checked;
        let target = c.target;
        if !c.others.is_empty() {
            println!(
                "{target}: other (non-probe) kernels, not checked against the table: {}",
                c.others.join(", ")
            );
        }
        // Every kernel the generator rules make, and nothing else.
        let expected = abi::probes(target).len();
        if c.kernels != expected || !c.unexpected.is_empty() {
            failures.push(format!(
                "{target}: {} kernels in the PTX, the generator rules make {expected}",
                c.kernels
            ));
        }
        let missing: Vec<_> = c
            .results
            .iter()
            .filter(|p| p.actual.is_empty() && !p.problems.is_empty())
            .map(|p| p.probe.name.as_str())
            .collect();
        if !missing.is_empty() {
            failures.push(format!(
                "{target}: {} probes missing from the PTX, e.g. {:?}",
                missing.len(),
                &missing[..missing.len().min(5)]
            ));
        }
        let deviating = c.deviations().count();
        if deviating > 0 || c.header_problem().is_some() || !c.unexpected.is_empty() {
            failures.push(format!(
                "{target}: {deviating} of {} probes deviate from the PTX Atomics ABI table:\n{}",
                c.results.len(),
                conformance::deviations_report(&[c], 30)
            ));
        }
        // ptxas: assembles, and compiled every probe.
        match &r.ptxas {
            Ok(p) => {
                let unassembled: Vec<_> = c
                    .results
                    .iter()
                    .map(|x| x.probe.name.as_str())
                    .filter(|n| !p.registers.contains_key(*n))
                    .collect();
                if !unassembled.is_empty() {
                    failures.push(format!(
                        "{target}: ptxas -v reports no registers for {} probes, e.g. {:?}",
                        unassembled.len(),
                        &unassembled[..unassembled.len().min(5)]
                    ));
                }
                for w in &p.warnings {
                    println!("{target}: ptxas: {w}");
                }
            }
            Err(e) => failures.push(format!("{target}: {e}")),
        }
        // Snapshot.
        let path = conformance::snapshot_path(&tc.root, target);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &c.snapshot)
                .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            println!("{target}: wrote {}", path.display());
        } else {
            match std::fs::read_to_string(&path) {
                Err(e) => failures.push(format!(
                    "{target}: no snapshot {} ({e}); rerun with UPDATE_SNAPSHOTS=1 to write it",
                    path.display()
                )),
                Ok(stored) => {
                    if let Some(diff) = conformance::snapshot_diff(&stored, &c.snapshot, 10) {
                        failures.push(format!(
                            "{target}: the PTX differs from the snapshot {} (- snapshot, + now); \
                             if the change is intended, rerun with UPDATE_SNAPSHOTS=1 and review \
                             the diff:\n{diff}",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    for r in &reports {
        let t = r.timings;
        println!(
            "{}: build {:.1} s, check {:.2} s, ptxas {:.1} s",
            r.checked.target,
            t.build.as_secs_f64(),
            t.check.as_secs_f64(),
            t.assemble.as_secs_f64()
        );
    }
    println!(
        "ptx_conformance: {:.1} s wall ({jobs} jobs)",
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "ptx_conformance failed:\n\n{}",
        failures.join("\n\n")
    );
}
