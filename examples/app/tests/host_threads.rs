//! The kernels on host threads (`scoped_atomics_host::executor::launch`), against results
//! computed directly.

#[test]
fn histogram_matches_the_direct_count_on_several_grids() {
    let input = app::input(10_007, 3);
    let expected = app::expected_histogram(&input);
    // One block; blocks smaller than the bins; more blocks than are resident at once (waves).
    for (grid, block) in [(1, 64), (3, 5), (64, 256)] {
        assert_eq!(
            app::histogram_on_host(&input, grid, block).unwrap(),
            expected,
            "grid {grid} x block {block}"
        );
    }
}

#[test]
fn cluster_histogram_matches_the_direct_count_in_clusters_of_2_and_4() {
    let input = app::input(10_007, 7);
    let expected = app::expected_histogram(&input);
    // Clusters smaller and larger than the bins' spread; blocks smaller than a cluster's bins.
    for (grid, cluster, block) in [(2, 2, 64), (8, 4, 3), (16, 2, 128)] {
        assert_eq!(
            app::cluster_histogram_on_host(&input, grid, cluster, block).unwrap(),
            expected,
            "grid {grid} in clusters of {cluster} x block {block}"
        );
    }
}

#[test]
fn message_passing_delivers_the_data() {
    assert_eq!(app::message_passing_on_host().unwrap(), [42, 1, 42]);
}

#[test]
fn block_sum_adds_every_thread_s_value() {
    // Whole warps, a short last warp, one thread per block.
    for (grid, block) in [(4, 64), (3, 40), (5, 1)] {
        let n = grid * block;
        assert_eq!(
            app::block_sum_on_host(grid, block).unwrap(),
            n * (n - 1) / 2,
            "grid {grid} x block {block}"
        );
    }
}

#[test]
fn ticket_lock_counts_every_thread() {
    for (grid, block) in [(8, 4), (3, 1)] {
        let n = grid * block;
        assert_eq!(
            app::ticket_lock_on_host(grid, block).unwrap(),
            [n, n, n],
            "grid {grid} x block {block}"
        );
    }
}

/// The entry points `#[kernel]` writes, by the names the simulator and the GPU launch: each
/// kernel's in the sm_70 PTX, and the cluster kernels' only in the sm_90 PTX.
#[test]
fn the_ptx_has_every_entry_point_by_its_stated_name() {
    let entry = |ptx: &str, name: &str| {
        ptx.contains(&format!(".entry {name}(")) || ptx.contains(&format!(".entry {name}\n"))
    };
    for name in [
        "histogram",
        "message_passing",
        "block_sum",
        "block_sum_block_scope_bug",
        "ticket_lock",
        "ticket_lock_block_scope_bug",
    ] {
        assert!(entry(app::PTX, name), "sm_70 PTX lacks .entry {name}");
        assert!(entry(app::PTX_SM90, name), "sm_90 PTX lacks .entry {name}");
    }
    for name in ["cluster_histogram", "cluster_histogram_block_scope_bug"] {
        assert!(
            !entry(app::PTX, name),
            "sm_70 PTX has the sm_90-only .entry {name}"
        );
        assert!(entry(app::PTX_SM90, name), "sm_90 PTX lacks .entry {name}");
    }
    assert_eq!(app::PTX.matches(".entry ").count(), 6, "sm_70 entries");
    assert_eq!(app::PTX_SM90.matches(".entry ").count(), 8, "sm_90 entries");
}

// The same kernels' PTX in the simulator: tests/simulator.rs.
