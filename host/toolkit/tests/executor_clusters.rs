//! The executor's thread-block clusters: the blocks of a cluster share a cluster barrier and each
//! other's block-shared memory (`map_shared_rank`), the cluster coordinates are right in 2-D,
//! gpu-kernels' `cluster_exchange` gives its exact result, and a bad cluster shape, a rank out of
//! range or a foreign pointer are refused or panic with the numbers.

use scoped_atomics::Ordering;
use scoped_atomics::kernel::{Dim3, block_idx, thread_idx};
use scoped_atomics_host::executor::{Launch, LaunchError};
use std::sync::Mutex;

#[test]
fn clusters_share_a_barrier_and_each_others_shared_memory() {
    use scoped_atomics::kernel::{
        block_idx_in_cluster, cluster_dim, cluster_grid_dim, cluster_idx, cluster_rank,
        cluster_size, cluster_sync, map_shared_rank,
    };
    use scoped_atomics::{AtomicRef, Cluster};
    // A 4 x 2 grid of 16-thread blocks in 2 x 2 clusters, one cluster resident at a time:
    // each block counts into every block's word of the cluster, then reads its own.
    let (grid, block, shape) = (Dim3::new(4, 2, 1), Dim3::x(16), Dim3::new(2, 2, 1));
    let run = Launch::new(grid, block).cluster(shape).resident_blocks(4);
    assert_eq!(run.waves(), Ok(2));
    let seen = Mutex::new(Vec::new());
    run.run(|| {
        assert_eq!(
            (cluster_dim(), cluster_size(), cluster_grid_dim()),
            (shape, 4, Dim3::new(2, 1, 1))
        );
        let within = block_idx_in_cluster();
        assert_eq!(cluster_rank(), within.linear(shape));
        let b = block_idx();
        assert_eq!((b.x / 2, b.y / 2), (cluster_idx().x, cluster_idx().y));
        let own = scoped_atomics::block_shared!(WORD: [u32; 1]).cast::<u32>();
        // SAFETY: block-shared words, accessed atomically only.
        let word = |p| unsafe { AtomicRef::<u32, Cluster>::from_ptr(p) };
        if thread_idx().x == 0 {
            word(own).store(0, Ordering::Relaxed);
        }
        cluster_sync();
        for rank in 0..cluster_size() {
            word(map_shared_rank(own, rank)).fetch_add(rank + 1, Ordering::Relaxed);
        }
        cluster_sync();
        // Every thread of the cluster's 4 blocks added `own rank + 1`... to this word: 64 (r + 1).
        let expected = 64 * (cluster_rank() + 1);
        assert_eq!(word(own).load(Ordering::Relaxed), expected);
        if thread_idx().x == 0 {
            seen.lock().unwrap().push(b.linear(grid));
        }
    })
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen, (0..8).collect::<Vec<_>>());
}

#[test]
fn the_cluster_exchange_kernel_reads_the_next_blocks_two_phases() {
    // gpu-kernels' cluster_exchange: a Barrier<Cluster> in rank 0's shared memory used by
    // every block of the cluster, plain slots read across blocks.
    for (grid, cluster, block) in [(4u32, 2u32, 16u32), (8, 4, 8)] {
        let threads = (grid * block) as usize;
        let mut out = vec![0u32; 2 * threads];
        let at = Shared(out.as_mut_ptr());
        Launch::new(Dim3::x(grid), Dim3::x(block))
            .cluster(Dim3::x(cluster))
            .run(move || {
                let at = at;
                // SAFETY: two words per thread of the grid, live for the launch.
                unsafe { gpu_kernels::kernels::cluster_exchange(at.0) }
            })
            .unwrap();
        for g in 0..threads as u32 {
            let (b, t) = (g / block, g % block);
            let next = (b % cluster + 1) % cluster;
            let got = &out[2 * g as usize..2 * g as usize + 2];
            assert_eq!(
                got,
                [1000 * next + t, 1000 * next + t + 1],
                "thread {t} of block {b}"
            );
        }
    }
}

/// A pointer shared by the threads of a launch (they write disjoint words).
#[derive(Clone, Copy)]
struct Shared(*mut u32);
// SAFETY: see the type's documentation.
unsafe impl Send for Shared {}
// SAFETY: see the type's documentation.
unsafe impl Sync for Shared {}

#[test]
fn cluster_misuse_is_refused_or_panics_with_the_numbers() {
    let shape = Launch::new(Dim3::x(6), Dim3::x(4))
        .cluster(Dim3::x(4))
        .run(|| {});
    assert_eq!(
        shape,
        Err(LaunchError::ClusterShape {
            grid: Dim3::x(6),
            cluster: Dim3::x(4)
        })
    );
    let too_many = Launch::new(Dim3::x(16), Dim3::x(4))
        .cluster(Dim3::x(16))
        .waves();
    assert!(
        too_many
            .unwrap_err()
            .to_string()
            .contains("at most 8 blocks")
    );
    let rank = Launch::new(Dim3::x(2), Dim3::x(1))
        .cluster(Dim3::x(2))
        .run(|| {
            let own = scoped_atomics::block_shared!(WORD: [u32; 1]).cast::<u32>();
            scoped_atomics::kernel::map_shared_rank(own, 2);
        });
    let Err(LaunchError::Panicked { message, .. }) = rank else {
        panic!("{rank:?}")
    };
    assert!(message.contains("rank 2 is out of range"), "{message}");
    assert!(message.contains("ranks 0..2"), "{message}");
    let foreign = Launch::new(Dim3::x(2), Dim3::x(1))
        .cluster(Dim3::x(2))
        .run(|| {
            let mut local = 0u32;
            scoped_atomics::kernel::map_shared_rank(&mut local, 1);
        });
    let Err(LaunchError::Panicked { message, .. }) = foreign else {
        panic!("{foreign:?}")
    };
    assert!(
        message.contains("not inside a `block_shared!` array"),
        "{message}"
    );
}

/// A panic inside the emulation (here `map_shared_rank` refusing a foreign pointer) must leave
/// the emulation's shared state usable: another thread of the block that maps a good pointer
/// afterwards gets its answer, not a `PoisonError` of the first thread's lock. CI saw the launch
/// report that `PoisonError` instead of the kernel's own message, by chance of scheduling; here
/// the order is forced: thread 0 panics (and catches it) before thread 1 maps.
#[test]
fn a_refused_map_does_not_poison_the_clusters_shared_memory() {
    use std::sync::atomic::{AtomicBool, AtomicU32};
    let (refused, mapped) = (AtomicBool::new(false), AtomicU32::new(0));
    let run = Launch::new(Dim3::x(2), Dim3::x(2))
        .cluster(Dim3::x(2))
        .run(|| {
            let own = scoped_atomics::block_shared!(WORD: [u32; 1]).cast::<u32>();
            if thread_idx().x == 0 && block_idx().x == 0 {
                let mut local = 0u32;
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    scoped_atomics::kernel::map_shared_rank(&mut local, 1)
                }));
                assert!(caught.is_err(), "a foreign pointer was mapped");
                refused.store(true, std::sync::atomic::Ordering::Release);
            } else if thread_idx().x == 1 && block_idx().x == 0 {
                while !refused.load(std::sync::atomic::Ordering::Acquire) {
                    std::thread::yield_now();
                }
                scoped_atomics::kernel::map_shared_rank(own, 1);
                mapped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        });
    assert_eq!(run, Ok(()));
    assert_eq!(mapped.into_inner(), 1);
}

/// Runs `launch` on a helper thread; `None` when it has not returned after a minute (a hang).
fn within_a_minute(
    launch: impl FnOnce() -> Result<(), LaunchError> + Send + 'static,
) -> Option<Result<(), LaunchError>> {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(launch());
    });
    finished
        .recv_timeout(std::time::Duration::from_secs(60))
        .ok()
}

#[test]
fn the_cluster_barrier_waits_only_for_the_non_exited_threads() {
    use scoped_atomics::kernel::{cluster_arrive, cluster_rank, cluster_sync};
    // PTX: `barrier.cluster.wait` waits for the non-exited threads of the cluster. In each
    // cluster of two blocks of 8 threads, rank 1's odd threads return at once, its thread 2
    // arrives and returns without waiting (a leaked arrival: its phase still counts it), and
    // every other thread syncs twice. A host run that kept exited threads counted never ends.
    let outcome = within_a_minute(|| {
        Launch::new(Dim3::x(4), Dim3::x(8))
            .cluster(Dim3::x(2))
            .run(|| {
                let t = thread_idx().x;
                if cluster_rank() == 1 && t % 2 == 1 {
                    return;
                }
                if cluster_rank() == 1 && t == 2 {
                    // SAFETY: this thread exits at once: it never arrives again.
                    core::mem::forget(unsafe { cluster_arrive() });
                    return;
                }
                cluster_sync();
                cluster_sync();
            })
    });
    assert_eq!(
        outcome,
        Some(Ok(())),
        "the launch did not end in a minute: an exited thread held the cluster barrier"
    );
}

#[test]
fn a_dropped_cluster_arrival_waits() {
    use scoped_atomics::kernel::{cluster_arrive, cluster_rank, map_shared_rank};
    use scoped_atomics::{AtomicRef, Cluster};
    // Dropping the arrival is its wait: the next arrive is defined, and what the other block
    // stored before its arrival is visible after the drop.
    Launch::new(Dim3::x(2), Dim3::x(4))
        .cluster(Dim3::x(2))
        .run(|| {
            let own = scoped_atomics::block_shared!(FLAG: [u32; 1]).cast::<u32>();
            // SAFETY: block-shared words, accessed atomically only.
            let word = |p| unsafe { AtomicRef::<u32, Cluster>::from_ptr(p) };
            if thread_idx().x == 0 {
                word(own).store(cluster_rank() + 1, Ordering::Relaxed);
            }
            // SAFETY: each arrival is waited for (by its drop, then by `wait`) before the next.
            drop(unsafe { cluster_arrive() });
            let other = (cluster_rank() + 1) % 2;
            assert_eq!(
                word(map_shared_rank(own, other)).load(Ordering::Relaxed),
                other + 1
            );
            unsafe { cluster_arrive() }.wait();
        })
        .unwrap();
}

/// Issue 29, item 3, checked from outside: exits in the middle of a run of `cluster_sync`s must
/// not let a phase end early. In clusters of two blocks of 8 threads, thread `t` of rank `r`
/// syncs `(3 * t + r) % 5` times and returns (every third thread arrives without waiting in its
/// last phase); before each sync a thread counts itself in that phase, and after it reads the phase's count, which must be every thread still syncing then
/// (a barrier that counted an exited thread twice, or an arrival of the next phase in this one,
/// lets a thread read fewer). Repeated, as the exits race with the arrivals.
#[test]
fn exits_between_cluster_syncs_never_end_a_phase_early() {
    use scoped_atomics::kernel::{cluster_arrive, cluster_rank, cluster_sync};
    use std::sync::atomic::AtomicU32;
    const PHASES: usize = 5;
    let syncs = |rank: u32, t: u32| ((3 * t + rank) % PHASES as u32) as usize;
    let expected: Vec<u32> = (0..PHASES)
        .map(|p| {
            (0..2)
                .flat_map(|r| (0..8).map(move |t| (r, t)))
                .filter(|&(r, t)| syncs(r, t) > p)
                .count() as u32
        })
        .collect();
    for _ in 0..50 {
        // One count per cluster and phase.
        let counts: std::sync::Arc<Vec<AtomicU32>> =
            std::sync::Arc::new((0..2 * PHASES).map(|_| AtomicU32::new(0)).collect());
        let seen = counts.clone();
        let expected = expected.clone();
        let outcome = within_a_minute(move || {
            Launch::new(Dim3::x(4), Dim3::x(8))
                .cluster(Dim3::x(2))
                .run(move || {
                    let cluster = (block_idx().x / 2) as usize;
                    let (t, n) = (thread_idx().x, syncs(cluster_rank(), thread_idx().x));
                    for p in 0..n {
                        seen[cluster * PHASES + p].fetch_add(1, Ordering::Relaxed);
                        if t % 3 == 2 && p + 1 == n {
                            // The last phase of every third thread: it arrives and returns
                            // without waiting (its arrival counts in this phase only).
                            // SAFETY: the thread exits at once: it never arrives again.
                            core::mem::forget(unsafe { cluster_arrive() });
                            return;
                        }
                        cluster_sync();
                        assert_eq!(
                            seen[cluster * PHASES + p].load(Ordering::Relaxed),
                            expected[p],
                            "phase {p} ended before every non-exited thread arrived"
                        );
                    }
                })
        });
        assert_eq!(outcome, Some(Ok(())));
        let _ = counts;
    }
}
