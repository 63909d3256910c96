//! The kernels on host threads (each kernel's one launch description, `Kernel::on_host_threads`),
//! against results computed directly.

use app::Variant;

#[test]
fn histogram_matches_the_direct_count_on_several_grids() {
    let input = app::input(10_007, 3);
    let expected = app::expected_histogram(&input);
    // One block; blocks smaller than the bins; more blocks than are resident at once (waves).
    for (grid, block) in [(1, 64), (3, 5), (64, 256)] {
        assert_eq!(
            app::histogram(&input, grid, block)
                .on_host_threads()
                .unwrap(),
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
    for shape @ (grid, cluster, block) in [(2, 2, 64), (8, 4, 3), (16, 2, 128)] {
        assert_eq!(
            app::cluster_histogram(&input, shape, Variant::Correct)
                .on_host_threads()
                .unwrap(),
            expected,
            "grid {grid} in clusters of {cluster} x block {block}"
        );
    }
}

#[test]
fn message_passing_delivers_the_data() {
    assert_eq!(
        app::message_passing(32, Variant::Correct)
            .on_host_threads()
            .unwrap(),
        [42, 1, 42]
    );
}

#[test]
fn block_sum_adds_every_thread_s_value() {
    // Whole warps, a short last warp, one thread per block.
    for (grid, block) in [(4, 64), (3, 40), (5, 1)] {
        let n = grid * block;
        let input: Vec<u32> = (0..n).collect();
        assert_eq!(
            app::block_sum(&input, grid, block, Variant::Correct)
                .on_host_threads()
                .unwrap(),
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
            app::ticket_lock(grid, block, Variant::Correct)
                .on_host_threads()
                .unwrap(),
            [n, n, n],
            "grid {grid} x block {block}"
        );
    }
}

/// Blocks that wait for each other need every block resident at once: the description asks for
/// a cooperative launch, so a grid too big for that is refused with the reason instead of
/// hanging.
#[test]
fn a_ticket_lock_grid_that_cannot_be_resident_at_once_is_refused() {
    let e = app::ticket_lock(5, 1024, Variant::Correct)
        .on_host_threads()
        .unwrap_err();
    assert!(
        matches!(
            e,
            scoped_atomics_host::executor::LaunchError::NotResident { blocks: 5, .. }
        ),
        "{e}"
    );
}

/// The entry points `#[kernel]` writes, by the names the simulator and the GPU launch (each
/// launch description's name): each kernel's in the sm_70 PTX, and the cluster kernels' only in
/// the sm_90 PTX.
#[test]
fn the_ptx_has_every_entry_point_by_its_stated_name() {
    let entry = |ptx: &str, name: &str| {
        ptx.contains(&format!(".entry {name}(")) || ptx.contains(&format!(".entry {name}\n"))
    };
    for kernel in [
        kernels::HISTOGRAM,
        kernels::MESSAGE_PASSING,
        kernels::MESSAGE_PASSING_BLOCK_SCOPE_BUG,
        kernels::BLOCK_SUM,
        kernels::BLOCK_SUM_BLOCK_SCOPE_BUG,
        kernels::TICKET_LOCK,
        kernels::TICKET_LOCK_BLOCK_SCOPE_BUG,
    ] {
        let name = kernel.name();
        assert!(entry(app::PTX, name), "sm_70 PTX lacks .entry {name}");
        assert!(entry(app::PTX_SM90, name), "sm_90 PTX lacks .entry {name}");
    }
    for kernel in [
        kernels::CLUSTER_HISTOGRAM,
        kernels::CLUSTER_HISTOGRAM_BLOCK_SCOPE_BUG,
    ] {
        let name = kernel.name();
        assert!(
            !entry(app::PTX, name),
            "sm_70 PTX has the sm_90-only .entry {name}"
        );
        assert!(entry(app::PTX_SM90, name), "sm_90 PTX lacks .entry {name}");
    }
    assert_eq!(app::PTX.matches(".entry ").count(), 7, "sm_70 entries");
    assert_eq!(app::PTX_SM90.matches(".entry ").count(), 9, "sm_90 entries");
}

/// The GPU path of every description compiles and, without a CUDA driver, skips cleanly.
#[test]
fn the_gpu_run_skips_cleanly_without_a_driver() {
    match app::run_on_gpu(&app::input(1_000, 2)).unwrap() {
        Err(skipped) if !scoped_atomics_host::gpu::driver_present() => {
            assert_eq!(skipped, scoped_atomics_host::gpu::NO_DRIVER)
        }
        Err(skipped) => println!("{skipped}"),
        Ok(results) => {
            assert!(!results.is_empty());
            for (kernel, same) in results {
                assert!(same, "{kernel}: GPU != host threads");
            }
        }
    }
}

// The same descriptions in the simulator: tests/simulator.rs; under loom: tests/loom.rs.
