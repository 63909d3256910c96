//! The kernels' PTX (`app::PTX`, built by `build.rs`) in the PTX simulator, from the same launch
//! descriptions as on host threads (`Kernel::in_simulator`): the same results as on host threads
//! and as computed directly, under several schedules, with no finding (no race, hang,
//! divergence or fault); the planted `Block`-scope bugs come back as race findings, values that
//! name the threads and the kernel author's Rust lines.

use app::Variant;
use scoped_atomics_host::sim::{Finding, FindingKind};

/// The first finding, which must be a race.
fn first_race(findings: &[Finding]) -> &Finding {
    let race = &findings[0];
    assert_eq!(race.kind, FindingKind::Race, "{findings:?}");
    assert!(race.text.starts_with("race:"), "{race}");
    race
}

#[test]
fn histogram_in_the_simulator_matches_host_threads() {
    let input = app::input(4_099, 5);
    let expected = app::expected_histogram(&input);
    // One block; blocks smaller than the bins; several blocks adding into the global bins.
    for (grid, block, seed) in [(1, 64, 1), (3, 5, 2), (4, 128, 3)] {
        let kernel = app::histogram(&input, grid, block);
        let simulated = kernel
            .in_simulator(seed)
            .unwrap_or_else(|findings| panic!("grid {grid} x block {block}: {findings:?}"));
        assert_eq!(simulated, expected, "grid {grid} x block {block}");
        assert_eq!(
            kernel.on_host_threads().unwrap(),
            simulated,
            "host threads, grid {grid} x block {block}"
        );
    }
}

#[test]
fn cluster_histogram_in_the_simulator_at_sm_90_matches_host_threads() {
    let input = app::input(1_031, 9);
    let expected = app::expected_histogram(&input);
    // Clusters of 2 and of 4; blocks smaller than a cluster's share of the bins.
    for (grid, cluster, block, seed) in [(2, 2, 32, 1), (8, 4, 16, 2), (4, 4, 3, 3)] {
        let shape = (grid, cluster, block);
        let kernel = app::cluster_histogram(&input, shape, Variant::Correct);
        let simulated = kernel
            .in_simulator(seed)
            .unwrap_or_else(|findings| panic!("{shape:?}: {findings:?}"));
        assert_eq!(
            simulated, expected,
            "grid {grid} in clusters of {cluster} x block {block}"
        );
        assert_eq!(
            kernel.on_host_threads().unwrap(),
            simulated,
            "host threads, {shape:?}"
        );
    }
}

#[test]
fn block_scope_counters_across_a_cluster_are_a_race_in_the_simulator() {
    let input = app::input(257, 4);
    for cluster in [2, 4] {
        let findings =
            app::cluster_histogram(&input, (cluster, cluster, 32), Variant::BlockScopeBug)
                .in_simulator(1)
                .expect_err("the Block-scope counters raced with no finding");
        let race = first_race(&findings).text.lines().next().unwrap();
        assert!(race.starts_with("race: strong (cta)"), "{findings:?}");
        assert!(
            race.contains("a scope does not include the other thread"),
            "{findings:?}"
        );
        // Two different blocks of the cluster: `(block,thread)` names with different blocks.
        let blocks: Vec<&str> = race
            .split(" by (")
            .skip(1)
            .map(|s| s.split(',').next().unwrap())
            .collect();
        assert_eq!(blocks.len(), 2, "{race}");
        assert_ne!(blocks[0], blocks[1], "{race}");
    }
}

#[test]
fn message_passing_in_the_simulator_matches_host_threads() {
    let kernel = app::message_passing(32, Variant::Correct);
    let host = kernel.on_host_threads().unwrap();
    for seed in 1..=4 {
        let simulated = kernel
            .in_simulator(seed)
            .unwrap_or_else(|findings| panic!("{findings:?}"));
        assert_eq!(simulated, [42, 1, 42], "seed {seed}");
        assert_eq!(simulated, host, "seed {seed}");
    }
}

#[test]
fn message_passing_with_a_block_scope_flag_is_a_race_in_the_simulator() {
    let findings = app::message_passing(32, Variant::BlockScopeBug)
        .in_simulator(1)
        .expect_err("a block-scope flag across blocks raced nowhere");
    // The race names the kernel author's Rust lines, inside `message_passing`'s body.
    let body = lines_of_fn("pub unsafe fn message_passing<");
    let named = rust_lines(first_race(&findings).text.lines().next().unwrap());
    assert!(
        !named.is_empty() && named.iter().all(|n| body.contains(n)),
        "lines {named:?} not all in message_passing ({body:?}):\n{findings:?}"
    );
}

#[test]
fn ticket_lock_in_the_simulator_matches_host_threads() {
    let kernel = app::ticket_lock(3, 2, Variant::Correct);
    for seed in 1..=3 {
        let simulated = kernel
            .in_simulator(seed)
            .unwrap_or_else(|findings| panic!("{findings:?}"));
        assert_eq!(simulated, [6, 6, 6], "seed {seed}");
    }
    assert_eq!(kernel.on_host_threads().unwrap(), [6, 6, 6]);
}

#[test]
fn ticket_lock_at_block_scope_is_a_race_in_the_simulator() {
    let findings = app::ticket_lock(3, 1, Variant::BlockScopeBug)
        .in_simulator(1)
        .expect_err("a block-scope ticket lock across blocks raced nowhere");
    // The race names the kernel author's Rust lines, inside `ticket_lock`'s body.
    let body = lines_of_fn("pub unsafe fn ticket_lock<");
    let named = rust_lines(first_race(&findings).text.lines().next().unwrap());
    assert!(
        !named.is_empty() && named.iter().all(|n| body.contains(n)),
        "lines {named:?} not all in ticket_lock ({body:?}):\n{findings:?}"
    );
}

/// The `kernels/src/lib.rs:N` line numbers a finding names.
fn rust_lines(finding: &str) -> Vec<usize> {
    finding
        .split("kernels/src/lib.rs:")
        .skip(1)
        .filter_map(|s| s.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .collect()
}

/// The line numbers of the function of `kernels/src/lib.rs` whose header starts with `header`,
/// up to its closing brace at the start of a line.
fn lines_of_fn(header: &str) -> std::ops::RangeInclusive<usize> {
    let source = include_str!("../../kernels/src/lib.rs");
    let lines: Vec<&str> = source.lines().collect();
    let start = lines.iter().position(|l| l.starts_with(header)).unwrap();
    let end = start + lines[start..].iter().position(|l| *l == "}").unwrap();
    start + 1..=end + 1
}

/// The line of `kernels/src/lib.rs` that contains `text`.
fn line_of(text: &str) -> usize {
    let source = include_str!("../../kernels/src/lib.rs");
    1 + source.lines().position(|l| l.contains(text)).unwrap()
}

#[test]
fn block_sum_in_the_simulator_matches_host_threads() {
    // Warp shuffles over whole warps and a short last warp.
    for (grid, block, seed) in [(2, 64, 1), (3, 40, 2)] {
        let n = grid * block;
        let input: Vec<u32> = (0..n).collect();
        let kernel = app::block_sum(&input, grid, block, Variant::Correct);
        let simulated = kernel
            .in_simulator(seed)
            .unwrap_or_else(|findings| panic!("{findings:?}"));
        assert_eq!(simulated, n * (n - 1) / 2, "grid {grid} x block {block}");
        assert_eq!(kernel.on_host_threads().unwrap(), simulated);
    }
}

#[test]
fn block_sum_at_block_scope_is_a_race_in_the_simulator() {
    let input: Vec<u32> = (0..64).collect();
    let findings = app::block_sum(&input, 2, 32, Variant::BlockScopeBug)
        .in_simulator(1)
        .expect_err("a block-scope total across blocks raced nowhere");
    // Both accesses are the block's add into the total: the author's line, not the library's.
    let add = line_of("total.add(partial.load(Ordering::Relaxed)");
    let race = first_race(&findings).text.lines().next().unwrap();
    assert_eq!(rust_lines(race), [add, add], "{findings:?}");
}
