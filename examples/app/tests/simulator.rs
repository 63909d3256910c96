//! The kernels' PTX (`app::PTX`, built by `build.rs`) in the PTX simulator
//! (`scoped_atomics_host::sim`): the same results as on host threads and as computed directly,
//! under several schedules, with no finding (no race, hang, divergence or fault).

#[test]
fn histogram_in_the_simulator_matches_host_threads() {
    let input = app::input(4_099, 5);
    let expected = app::expected_histogram(&input);
    // One block; blocks smaller than the bins; several blocks adding into the global bins.
    for (grid, block, seed) in [(1, 64, 1), (3, 5, 2), (4, 128, 3)] {
        let simulated = app::histogram_in_simulator(&input, grid, block, seed)
            .unwrap_or_else(|findings| panic!("grid {grid} x block {block}: {findings}"));
        assert_eq!(simulated, expected, "grid {grid} x block {block}");
        assert_eq!(
            app::histogram_on_host(&input, grid, block).unwrap(),
            simulated,
            "host threads, grid {grid} x block {block}"
        );
    }
}

#[test]
fn message_passing_in_the_simulator_matches_host_threads() {
    let host = app::message_passing_on_host().unwrap();
    for seed in 1..=4 {
        let simulated =
            app::message_passing_in_simulator(seed).unwrap_or_else(|findings| panic!("{findings}"));
        assert_eq!(simulated, [42, 1, 42], "seed {seed}");
        assert_eq!(simulated, host, "seed {seed}");
    }
}
