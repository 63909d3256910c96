//! Issue 30, item 2: the simulator (`ptx-sim`) against the litmus checker (`ptx-litmus`), two
//! independent implementations of the PTX memory model checking each other. Every litmus test
//! of the checker's corpora (`classic/`, `reference/`, `rules/`, `forms/`), the generated corpus
//! of its `corpus` example, and this check's own tests (`host/checks/litmus-sim/`) runs as a
//! kernel over many schedules of the simulator, once with each location in a buffer of its own
//! and once with all packed 4 bytes apart (two locations per 8-byte granule of the race
//! detector). What is compared is said in `litmus_sim`: final states allowed, races the
//! checker's, races of every execution reported, hangs the checker's deadlocks. Races of the
//! checker that no schedule showed are printed as coverage.
//!
//! Tests the translation cannot express (several GPUs, aliases and other proxies, fences or RMWs
//! of host threads,
//! `atom.mul`/`atom.div`, loops in tests with barriers) are skipped with their reason printed,
//! and the number run must stay above a floor. Disagreements known and being fixed elsewhere are
//! listed in [`EXPECTED_DISAGREEMENTS`]; the test fails when a test outside the list disagrees
//! and when a listed test agrees (so the list is emptied as the fixes land).
//!
//! Time: about 8 s of CPU in a debug build (`cargo test -p scoped-atomics-checks --test
//! litmus_vs_sim`). `LITMUS_SIM_ONLY=PART` runs the tests whose name contains PART.

mod litmus_sim;

#[allow(dead_code)] // the example's `main` writes files; only its generator is used here
#[path = "../../litmus/examples/corpus.rs"]
mod corpus;

use ptx_litmus::parse::parse;
use std::collections::BTreeMap;
use std::path::Path;

/// Schedules (seeds) per test: enough for every corpus test to show its races and final
/// states on the simulator's random scheduler, small enough for a debug `cargo test`.
const SEEDS: u64 = 60;

/// Schedules per test with the locations packed into one buffer.
const PACKED_SEEDS: u64 = 30;

/// The fewest tests that must be translated and run (of about 380).
const FLOOR: usize = 345;

/// Tests on which the simulator disagrees with the checker, each with the fix that should make
/// them agree. Empty since the race detector's synchronisation rules were fixed (issue 30 item
/// 1: moral strength, release patterns, wide fences, `red` with `fence.acquire`; item 1b: shadow
/// cells): the eleven entries this check listed on the old simulator all agree now.
const EXPECTED_DISAGREEMENTS: &[(&str, &str)] = &[];

fn corpus_dir(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = format!(
                "{}/{}",
                dir.trim_start_matches("../"),
                p.file_name().unwrap().to_string_lossy()
            );
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn the_simulator_agrees_with_the_litmus_checker() {
    let mut tests = Vec::new();
    for dir in [
        "../litmus/classic",
        "../litmus/reference",
        "../litmus/rules",
        "../litmus/forms",
        "litmus-sim",
    ] {
        let files = corpus_dir(dir);
        assert!(!files.is_empty(), "{dir}: no tests");
        tests.extend(files);
    }
    let generated = corpus::files();
    assert!(
        generated.len() >= 240,
        "{} generated tests",
        generated.len()
    );
    tests.extend(
        generated
            .into_iter()
            .map(|(n, t)| (format!("generated/{n}"), t)),
    );

    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut disagreeing: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut run, mut unseen, mut states) = (0, 0, 0);
    // `LITMUS_SIM_ONLY=NAME_PART` runs the tests whose name contains it (the floor and the
    // expected list then apply to those alone: for looking at one test).
    let only = std::env::var("LITMUS_SIM_ONLY").ok();
    if let Some(o) = &only {
        tests.retain(|(n, _)| n.contains(o.as_str()));
    }
    for (name, text) in &tests {
        let t = parse(name, text).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Each location in a buffer of its own, then all in one buffer 4 bytes apart (two
        // locations to each 8-byte granule of the race detector's shadow state).
        for (packed, seeds, label) in [
            (false, SEEDS, name.clone()),
            (true, PACKED_SEEDS, format!("{name} [packed]")),
        ] {
            match litmus_sim::check(&t, seeds, packed) {
                Err(why) => {
                    if !packed {
                        skipped.entry(why).or_default().push(name.clone());
                    }
                    break;
                }
                Ok(r) => {
                    run += usize::from(!packed);
                    states += r.states_seen;
                    for u in &r.races_before_deadlock {
                        println!(
                            "note: {label}: race {u} in a run that then deadlocks (the checker reports no races of deadlocking executions)"
                        );
                    }
                    for u in &r.unseen_races {
                        unseen += 1;
                        println!("coverage: {label}: the checker's race {u} in no schedule");
                    }
                    if !r.disagreements.is_empty() {
                        disagreeing.insert(label, r.disagreements);
                    }
                }
            }
        }
    }
    for (why, names) in &skipped {
        println!("skipped {} ({why}): {}", names.len(), names.join(", "));
    }
    for (name, d) in &disagreeing {
        for line in d {
            println!("disagreement: {name}: {line}");
        }
    }
    let skips: usize = skipped.values().map(Vec::len).sum();
    println!(
        "{run} tests run over {SEEDS} schedules each and {PACKED_SEEDS} with packed locations ({states} distinct final states), {skips} skipped, {} disagree, {unseen} races of the checker unseen",
        disagreeing.len()
    );
    if only.is_some() {
        for (name, d) in &disagreeing {
            println!("{name}: {} disagreement(s)", d.len());
        }
        return;
    }
    assert!(
        run >= FLOOR,
        "only {run} tests translated and run (floor {FLOOR})"
    );
    let unexpected: Vec<String> = disagreeing
        .iter()
        .filter(|(n, _)| !EXPECTED_DISAGREEMENTS.iter().any(|(e, _)| e == n))
        .map(|(n, d)| format!("{n}:\n  {}", d.join("\n  ")))
        .collect();
    let agreeing: Vec<String> = EXPECTED_DISAGREEMENTS
        .iter()
        .filter(|(n, _)| !disagreeing.contains_key(*n))
        .map(|(n, fix)| format!("{n} (expected to disagree until {fix})"))
        .collect();
    assert!(
        unexpected.is_empty() && agreeing.is_empty(),
        "the simulator and the checker disagree on:\n{}\nlisted as disagreeing but agree now (remove from EXPECTED_DISAGREEMENTS):\n{}",
        unexpected.join("\n"),
        agreeing.join("\n")
    );
}
