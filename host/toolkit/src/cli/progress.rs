//! Progress of the long steps as they go: on a terminal, one `indicatif` spinner per target with
//! its current step and elapsed time; elsewhere (CI logs), a line per step on stderr.

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use scoped_atomics_host::abi::AbiTable;
use scoped_atomics_host::conformance::{self, Step, TargetReport};
use scoped_atomics_host::ptx::{self, Target, Toolchain};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

fn describe(step: Step) -> &'static str {
    match step {
        Step::Build => "building the PTX (cargo +nightly, -Zbuild-std=core)",
        Step::Check => "checking every probe against the Atomics ABI table",
        Step::Assemble => "assembling with ptxas (a minute or two for thousands of kernels)",
        Step::Done => "done",
    }
}

/// [`conformance::run_all`] with progress.
pub fn run_targets(
    tc: &Toolchain,
    targets: &[Target],
    table: &AbiTable,
    jobs: usize,
) -> Vec<(Target, ptx::Result<TargetReport>)> {
    if !std::io::stderr().is_terminal() {
        return conformance::run_all_with_progress(tc, targets, table, jobs, &|target, step| {
            eprintln!("    {target}: {}", describe(step));
        });
    }
    let multi = MultiProgress::new();
    let style = ProgressStyle::with_template("  {spinner} {prefix:<12} [{elapsed:>4}] {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    let bars: BTreeMap<Target, ProgressBar> = targets
        .iter()
        .map(|&t| {
            let bar = multi.add(ProgressBar::new_spinner());
            bar.set_style(style.clone());
            bar.set_prefix(t.name());
            bar.set_message("waiting for a job slot");
            bar.enable_steady_tick(Duration::from_millis(200));
            (t, bar)
        })
        .collect();
    let results = conformance::run_all_with_progress(tc, targets, table, jobs, &|target, step| {
        if let Some(bar) = bars.get(&target) {
            if step == Step::Done {
                bar.finish_with_message(describe(step));
            } else {
                bar.set_message(describe(step));
            }
        }
    });
    let _ = multi.clear();
    results
}

/// A spinner for one long step whose output is not shown (the PTX build of a user's crate).
pub fn spinner(message: String) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        eprintln!("    {message}");
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("  {spinner} [{elapsed:>4}] {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(message);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
