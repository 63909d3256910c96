//! Spin loops of several threads at once under loom: `kernel::spin_loop` (and the library's
//! waits) end loom's exploration below a round that can see nothing new, so two threads spinning
//! at once do not yield to each other without end (which exceeded loom's branch limit). The
//! correct kernels finish; the buggy ones, whose bug needs an interleaving after the spinners'
//! rounds, are still found.

#![cfg(loom)]

use scoped_atomics::kernel::{Dim3, spin_loop};
use scoped_atomics::{AtomicRef, Block, Device, Ordering, PlainScope};
use scoped_atomics_host::executor::{launch_loom, loom_builder};

/// Kernel memory: a raw pointer the model owns, `Send + Sync` as kernel arguments are.
#[derive(Clone, Copy)]
struct Arg<T>(*mut T);
// SAFETY: the kernels synchronise every access.
unsafe impl<T> Send for Arg<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Arg<T> {}

/// The examples' ticket lock: `next` hands out tickets, `serving` says whose turn it is; the
/// critical section is a load and a store, so a broken lock loses counts.
///
/// # Safety
/// The pointers are valid for atomic `u32` access.
unsafe fn ticket_lock<S: PlainScope>(next: *mut u32, serving: *mut u32, counter: *mut u32) {
    // SAFETY: the caller's contract.
    let (next, serving, counter) = unsafe {
        (
            AtomicRef::<u32, S>::from_ptr(next),
            AtomicRef::<u32, S>::from_ptr(serving),
            AtomicRef::<u32, Device>::from_ptr(counter),
        )
    };
    let ticket = next.fetch_add(1, Ordering::Relaxed);
    while serving.load(Ordering::Acquire) != ticket {
        spin_loop();
    }
    counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    serving.store(ticket + 1, Ordering::Release);
}

fn ticket_lock_of<S: PlainScope>(blocks: u32) {
    loom_builder().check(move || {
        let cells = Arg(Box::into_raw(Box::new([0u32; 3])));
        launch_loom(Dim3::x(blocks), Dim3::x(1), move || {
            let cells = cells;
            let base = cells.0.cast::<u32>();
            // SAFETY: three cells, live until the launch returned.
            unsafe { ticket_lock::<S>(base, base.add(1), base.add(2)) }
        })
        .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        let cells = *unsafe { Box::from_raw(cells.0) };
        assert_eq!(cells, [blocks; 3]);
    });
}

/// Two threads spin at once while the third holds the lock (0.4 s; it exceeded the branch limit
/// when a spin round only yielded).
#[test]
fn ticket_lock_of_three_blocks_finishes() {
    ticket_lock_of::<Device>(3);
}

#[test]
#[should_panic(expected = "scope race")]
fn ticket_lock_of_three_blocks_at_block_scope_is_a_scope_race() {
    ticket_lock_of::<Block>(3);
}

/// A test-and-test-and-set lock; with `early`, it releases before it leaves its critical
/// section, so a thread that spun while another held the lock can enter while the holder is
/// still inside: an interleaving after the spinners' rounds, which loom must still explore.
///
/// # Safety
/// The pointers are valid for atomic `u32` access.
unsafe fn ttas_lock(lock: *mut u32, inside: *mut u32, early: bool) {
    // SAFETY: the caller's contract.
    let (lock, inside) = unsafe {
        (
            AtomicRef::<u32, Device>::from_ptr(lock),
            AtomicRef::<u32, Device>::from_ptr(inside),
        )
    };
    loop {
        while lock.load(Ordering::Relaxed) != 0 {
            spin_loop();
        }
        if lock
            .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            break;
        }
    }
    assert_eq!(
        inside.fetch_add(1, Ordering::Relaxed),
        0,
        "two threads inside the lock"
    );
    if early {
        lock.store(0, Ordering::Release);
        inside.fetch_sub(1, Ordering::Relaxed);
    } else {
        inside.fetch_sub(1, Ordering::Relaxed);
        lock.store(0, Ordering::Release);
    }
}

fn ttas_lock_of(blocks: u32, early: bool) {
    loom_builder().check(move || {
        let cells = Arg(Box::into_raw(Box::new([0u32; 2])));
        launch_loom(Dim3::x(blocks), Dim3::x(1), move || {
            let cells = cells;
            let base = cells.0.cast::<u32>();
            // SAFETY: two cells, live until the launch returned.
            unsafe { ttas_lock(base, base.add(1), early) }
        })
        .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        drop(unsafe { Box::from_raw(cells.0) });
    });
}

#[test]
fn ttas_lock_of_three_blocks_finishes() {
    ttas_lock_of(3, false);
}

#[test]
#[should_panic(expected = "two threads inside the lock")]
fn ttas_lock_released_early_is_found_with_three_blocks() {
    ttas_lock_of(3, true);
}

#[test]
#[should_panic(expected = "two threads inside the lock")]
fn ttas_lock_released_early_is_found_with_four_blocks() {
    ttas_lock_of(4, true);
}

/// Two blocks of two threads, one cluster, meet at the cluster barrier: each thread then reads
/// what a thread of the other block wrote before it (a missing order would fail the assertion).
/// Under loom the cluster barrier's waiters park, as the block barrier's do: 0.6 s here, 7.4 s
/// when they polled; the examples' cluster histogram on two blocks of two threads took 94 s,
/// and more than 15 minutes (stopped unfinished) when they polled.
#[test]
fn a_cluster_sync_of_two_blocks_of_two_threads_finishes() {
    use scoped_atomics::Cluster;
    use scoped_atomics::kernel::{block_dim, block_idx, cluster_sync, thread_idx};
    use scoped_atomics_host::executor::Launch;
    loom_builder().check(|| {
        let cells = Arg(Box::into_raw(Box::new([0u32; 4])));
        Launch::new(Dim3::x(2), Dim3::x(2))
            .cluster(Dim3::x(2))
            .run_loom(move || {
                let cells = cells;
                let me = (block_idx().x * block_dim().x + thread_idx().x) as usize;
                let other = (me + 2) % 4; // the same thread of the other block
                // SAFETY: four cells, live until the launch returned.
                let (mine, theirs) = unsafe {
                    (
                        AtomicRef::<u32, Cluster>::from_ptr(cells.0.cast::<u32>().add(me)),
                        AtomicRef::<u32, Cluster>::from_ptr(cells.0.cast::<u32>().add(other)),
                    )
                };
                mine.store(1, Ordering::Relaxed);
                cluster_sync();
                assert_eq!(theirs.load(Ordering::Relaxed), 1);
            })
            .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        drop(unsafe { Box::from_raw(cells.0) });
    });
}

/// PTX: `barrier.cluster.wait` waits for the non-exited threads of the cluster. A cluster of
/// three blocks of one thread: block 2's thread returns at once, block 1's arrives and returns
/// without waiting (a leaked arrival, counted in its phase), block 0's syncs twice and reads what
/// block 1 stored before its arrival. A model that kept exited threads counted deadlocks.
#[test]
fn the_cluster_barrier_waits_only_for_the_non_exited_threads() {
    use scoped_atomics::Cluster;
    use scoped_atomics::kernel::{block_idx, cluster_arrive, cluster_sync};
    use scoped_atomics_host::executor::Launch;
    loom_builder().check(|| {
        let cell = Arg(Box::into_raw(Box::new(0u32)));
        Launch::new(Dim3::x(3), Dim3::x(1))
            .cluster(Dim3::x(3))
            .run_loom(move || {
                let cell = cell;
                // SAFETY: a cell live until the launch returned.
                let word = unsafe { AtomicRef::<u32, Cluster>::from_ptr(cell.0) };
                match block_idx().x {
                    2 => {}
                    1 => {
                        word.store(1, Ordering::Relaxed);
                        // SAFETY: this thread exits at once: it never arrives again.
                        core::mem::forget(unsafe { cluster_arrive() });
                    }
                    _ => {
                        cluster_sync();
                        assert_eq!(word.load(Ordering::Relaxed), 1);
                        cluster_sync();
                    }
                }
            })
            .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        drop(unsafe { Box::from_raw(cell.0) });
    });
}

/// Issue 29, item 3, checked from outside: a thread that returns *between* phases stops counting
/// from the next phase on, in every interleaving. A cluster of three blocks of one thread: block
/// 2 stores and syncs once, then returns; block 1 stores, arrives without waiting and returns
/// (its arrival counted in phase 0); block 0 syncs three times and, after the first, reads both
/// stores. A barrier that counted an exit twice would let block 0 read before a store (the
/// assertion), one that kept an exited thread counted would deadlock.
#[test]
fn threads_that_exit_between_phases_stop_counting() {
    use scoped_atomics::Cluster;
    use scoped_atomics::kernel::{block_idx, cluster_arrive, cluster_sync};
    use scoped_atomics_host::executor::Launch;
    loom_builder().check(|| {
        let cells = Arg(Box::into_raw(Box::new([0u32; 3])));
        Launch::new(Dim3::x(3), Dim3::x(1))
            .cluster(Dim3::x(3))
            .run_loom(move || {
                let cells = cells;
                let b = block_idx().x as usize;
                // SAFETY: three cells, live until the launch returned.
                let word = |i: usize| unsafe {
                    AtomicRef::<u32, Cluster>::from_ptr(cells.0.cast::<u32>().add(i))
                };
                match b {
                    2 => {
                        word(2).store(1, Ordering::Relaxed);
                        cluster_sync();
                    }
                    1 => {
                        word(1).store(1, Ordering::Relaxed);
                        // SAFETY: this thread returns at once: it never arrives again.
                        core::mem::forget(unsafe { cluster_arrive() });
                    }
                    _ => {
                        cluster_sync();
                        assert_eq!(
                            (
                                word(1).load(Ordering::Relaxed),
                                word(2).load(Ordering::Relaxed)
                            ),
                            (1, 1)
                        );
                        cluster_sync();
                        cluster_sync();
                    }
                }
            })
            .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        drop(unsafe { Box::from_raw(cells.0) });
    });
}
