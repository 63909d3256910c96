//! One location, plain and atomic: `scoped_atomics::plain` accesses logged on the same mirror
//! location as the `AtomicRef` views of that memory.
//!
//! * The classic coherence tests (CoRR, CoWR, CoRW, CoWW) with one plain (weak) and one atomic
//!   access to the same location: ordered by happens-before, the outcome set is exactly the
//!   coherent one; unordered, the plain access is a data race, reported naming both operations
//!   and both threads.
//! * Kernel shapes, each correct program next to its racy twin: plain initialisation →
//!   `sync_threads` / grid barrier / release-acquire → atomic use, and a plain read of the result
//!   after the barrier; the twin without the synchronisation is reported.
#![cfg(loom)]

use gpu_kernels::kernels;
use loom::sync::Arc;
use loom_tests::{Failure, Heap, assert_outcomes, expect_failure, model, outcomes, spin_until};
use scoped_atomics::kernel::{Dim3, block_idx, sync_threads, sync_warp, thread_idx};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{Atomic, Barrier, Block, Device, Ordering::*};
use scoped_atomics_host::executor::launch_loom;

const B0: Position = Position::gpu(0, 0);
const B1: Position = Position::gpu(0, 1);

/// How a thread of `position` is named in the mirror's reports.
fn named(position: Position) -> String {
    format!("({position})")
}

/// Asserts that `failure` is a data race of a plain access naming both operations and both
/// threads, reported within the first three executions (as every scope bug of this suite).
#[track_caller]
fn assert_data_race(failure: &Failure, operations: [&str; 2], threads: [Position; 2]) {
    let message = &failure.message;
    assert!(message.contains("data race on `u32`"), "{message}");
    for operation in operations {
        assert!(
            message.contains(operation),
            "`{operation}` not named: {message}"
        );
    }
    for thread in threads {
        assert!(
            message.contains(&named(thread)),
            "{thread} not named: {message}"
        );
    }
    assert!(
        failure.executions <= 3,
        "reported only in execution {}",
        failure.executions
    );
}

// ---------------------------------------------------------------------------------------------
// Coherence with one plain and one atomic access

/// CoRR: block 0 stores 1 (release); block 1 reads x atomically, then plainly. `ordered`: the
/// first read acquires and the plain read happens only if it saw 1, so happens-before orders
/// it after the store, and it cannot read the older 0. Unordered (a relaxed first read, the
/// plain read always): the plain read races with the store. Outcome: (atomic read, plain read).
fn corr(ordered: bool) -> impl Fn() -> (u32, Option<u32>) + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let x = Heap::new(0u32);
        let w = spawn_in(B0, move || x.view::<Device>().store(1, Release));
        let r = spawn_in(B1, move || {
            let first = x
                .view::<Device>()
                .load(if ordered { Acquire } else { Relaxed });
            let second = (!ordered || first == 1).then(|| x.read());
            (first, second)
        });
        w.join().unwrap();
        let seen = r.join().unwrap();
        // SAFETY: both threads are joined.
        unsafe { x.free() };
        seen
    }
}

#[test]
fn corr_plain_read_ordered_after_the_atomic_write() {
    let seen = outcomes(corr(true));
    assert_outcomes(
        "CoRR plain (atomic, plain)",
        &seen,
        &[(0, None), (1, Some(1))],
    );
}

#[test]
fn corr_plain_read_racing_the_atomic_write_is_reported() {
    let failure = expect_failure(|| {
        corr(false)();
    });
    assert_data_race(
        &failure,
        ["`store(Release)` at device scope", "plain `read`"],
        [B0, B1],
    );
}

/// CoWR: block 0 writes 1 plainly, raises a flag (release) and reads x atomically: it must read
/// its own write or a later one, never the initial 0. Block 1 stores 2 atomically, `ordered`: only
/// after acquiring the flag. Outcome: (block 0's read, final x).
fn cowr(ordered: bool) -> impl Fn() -> (u32, u32) + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let x = Heap::new(0u32);
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let w = {
            let flag = flag.clone();
            spawn_in(B0, move || {
                x.write(1);
                flag.store(1, Release);
                x.view::<Device>().load(Relaxed)
            })
        };
        let other = spawn_in(B1, move || {
            if !ordered || flag.load(Acquire) == 1 {
                x.view::<Device>().store(2, Relaxed);
            }
        });
        let read = w.join().unwrap();
        other.join().unwrap();
        // SAFETY: both threads are joined.
        (read, unsafe { x.free() })
    }
}

#[test]
fn cowr_plain_write_then_atomic_read() {
    let seen = outcomes(cowr(true));
    assert_outcomes("CoWR plain (read, final)", &seen, &[(1, 1), (1, 2), (2, 2)]);
}

#[test]
fn cowr_plain_write_racing_an_atomic_store_is_reported() {
    let failure = expect_failure(|| {
        cowr(false)();
    });
    assert_data_race(
        &failure,
        ["plain `write`", "`store(Relaxed)` at device scope"],
        [B0, B1],
    );
}

/// CoRW: block 1 stores 2 atomically and raises a flag (release). Block 0, `ordered`: only after
/// acquiring the flag, reads x plainly and then stores 1 atomically: the read cannot see its own
/// later write, and that write is coherence-after the 2 it read (final 1). Unordered, the plain
/// read races with block 1's store. Outcome: (block 0's plain read, final x).
fn corw(ordered: bool) -> impl Fn() -> (Option<u32>, u32) + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let x = Heap::new(0u32);
        let ready = Arc::new(Atomic::<u32, Device>::new(0));
        let reader = {
            let ready = ready.clone();
            spawn_in(B0, move || {
                (!ordered || ready.load(Acquire) == 1).then(|| {
                    let seen = x.read();
                    x.view::<Device>().store(1, Relaxed);
                    seen
                })
            })
        };
        let writer = spawn_in(B1, move || {
            x.view::<Device>().store(2, Relaxed);
            ready.store(1, Release);
        });
        let seen = reader.join().unwrap();
        writer.join().unwrap();
        // SAFETY: both threads are joined.
        (seen, unsafe { x.free() })
    }
}

#[test]
fn corw_plain_read_then_atomic_write() {
    let seen = outcomes(corw(true));
    assert_outcomes(
        "CoRW plain (read, final)",
        &seen,
        &[(None, 2), (Some(2), 1)],
    );
}

#[test]
fn corw_plain_read_racing_an_atomic_store_is_reported() {
    let failure = expect_failure(|| {
        corw(false)();
    });
    assert_data_race(
        &failure,
        ["plain `read`", "`store(Relaxed)` at device scope"],
        [B0, B1],
    );
}

/// CoWW: block 0 writes 1 plainly, raises a flag (release) and stores 2 atomically: the final
/// value is 2 in every execution. Block 1 reads x atomically, `ordered`: only after acquiring the
/// flag, so never the initial 0. Outcome: (block 1's read, final x).
fn coww(ordered: bool) -> impl Fn() -> (Option<u32>, u32) + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let x = Heap::new(0u32);
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let writer = {
            let flag = flag.clone();
            spawn_in(B0, move || {
                x.write(1);
                flag.store(1, Release);
                x.view::<Device>().store(2, Relaxed);
            })
        };
        let reader = spawn_in(B1, move || {
            (!ordered || flag.load(Acquire) == 1).then(|| x.view::<Device>().load(Relaxed))
        });
        writer.join().unwrap();
        let seen = reader.join().unwrap();
        // SAFETY: both threads are joined.
        (seen, unsafe { x.free() })
    }
}

#[test]
fn coww_plain_write_then_atomic_write() {
    let seen = outcomes(coww(true));
    assert_outcomes(
        "CoWW plain (read, final)",
        &seen,
        &[(None, 2), (Some(1), 2), (Some(2), 2)],
    );
}

#[test]
fn coww_plain_write_racing_an_atomic_load_is_reported() {
    let failure = expect_failure(|| {
        coww(false)();
    });
    assert_data_race(
        &failure,
        ["plain `write`", "`load(Relaxed)` at device scope"],
        [B0, B1],
    );
}

// ---------------------------------------------------------------------------------------------
// Kernel shapes

/// One block of two threads: thread 0 initialises a counter plainly; (`sync_before`) a
/// `sync_threads`; both threads add 1 with block-scope atomics; (`sync_after`) a `sync_threads`;
/// thread 0 reads the count plainly.
fn block_counter(sync_before: bool, sync_after: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        let counter = Heap::new(7u32);
        launch_loom(Dim3::x(1), Dim3::x(2), move || {
            if thread_idx().x == 0 {
                counter.write(0);
            }
            if sync_before {
                sync_threads();
            }
            counter.view::<Block>().fetch_add(1, Relaxed);
            if sync_after {
                sync_threads();
            }
            if thread_idx().x == 0 {
                assert_eq!(counter.read(), 2);
            }
        })
        .unwrap();
        // SAFETY: the launch has joined every thread.
        assert_eq!(unsafe { counter.free() }, 2);
    }
}

#[test]
fn plain_init_sync_threads_atomic_use_plain_result() {
    model(block_counter(true, true));
}

#[test]
fn plain_init_without_sync_threads_is_reported() {
    let failure = expect_failure(block_counter(false, true));
    assert_data_race(
        &failure,
        ["plain `write`", "`fetch_add(Relaxed)` at block scope"],
        [B0, B0.thread(1)],
    );
}

#[test]
fn plain_result_read_without_sync_threads_is_reported() {
    let failure = expect_failure(block_counter(true, false));
    assert_data_race(
        &failure,
        ["plain `read`", "`fetch_add(Relaxed)` at block scope"],
        [B0, B0.thread(1)],
    );
}

/// One warp of two threads (issue 14, `sync_warp`): each writes its own cell plainly;
/// (`sync`) `sync_warp(0b11)`; each reads the other's cell plainly. With the warp barrier each
/// read sees the other's write; without it the plain accesses race.
fn warp_exchange(sync: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        let cells = [Heap::new(0u32), Heap::new(0u32)];
        launch_loom(Dim3::x(1), Dim3::x(2), move || {
            let me = thread_idx().x as usize;
            cells[me].write(10 + me as u32);
            if sync {
                sync_warp(0b11);
                assert_eq!(cells[1 - me].read(), 11 - me as u32);
            } else {
                let _ = cells[1 - me].read();
            }
        })
        .unwrap();
        // SAFETY: the launch has joined every thread.
        let values = cells.map(|c| unsafe { c.free() });
        assert_eq!(values, [10, 11]);
    }
}

#[test]
fn plain_writes_sync_warp_plain_reads() {
    model(warp_exchange(true));
}

#[test]
fn plain_exchange_without_sync_warp_is_reported() {
    let failure = expect_failure(warp_exchange(false));
    assert_data_race(
        &failure,
        ["plain `write`", "plain `read`"],
        [B0, B0.thread(1)],
    );
}

/// Two blocks of one thread: block 0 initialises x plainly; (`barrier`) a grid-wide
/// `Barrier<Device>`; both blocks add 1 with device-scope atomics. Without the barrier, the plain
/// write races with block 1's read-modify-write.
fn grid_counter(barrier: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let x = Heap::new(9u32);
        let grid = Arc::new(Barrier::<Device>::new(2));
        launch_loom(Dim3::x(2), Dim3::x(1), move || {
            if block_idx().x == 0 {
                x.write(0);
            }
            if barrier {
                grid.arrive_and_wait();
            }
            x.view::<Device>().fetch_add(1, Relaxed);
        })
        .unwrap();
        // SAFETY: the launch has joined every thread.
        assert_eq!(unsafe { x.free() }, 2);
    }
}

#[test]
fn plain_init_grid_barrier_atomic_use() {
    model(grid_counter(true));
}

#[test]
fn plain_write_racing_an_rmw_of_another_block_is_reported() {
    let failure = expect_failure(grid_counter(false));
    assert_data_race(
        &failure,
        ["plain `write`", "`fetch_add(Relaxed)` at device scope"],
        [B0, B1],
    );
}

/// Block 0 initialises x plainly and raises a device-scope flag with `publish`; block 1 waits
/// for the flag with `observe` and adds 1 to x atomically. Release/acquire orders the plain write
/// before the read-modify-write; relaxed/relaxed does not.
fn flag_counter(
    publish: scoped_atomics::Ordering,
    observe: scoped_atomics::Ordering,
) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let x = Heap::new(9u32);
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let producer = {
            let flag = flag.clone();
            spawn_in(B0, move || {
                x.write(5);
                flag.store(1, publish);
            })
        };
        let consumer = spawn_in(B1, move || {
            spin_until(|| flag.load(observe) == 1);
            x.view::<Device>().fetch_add(1, Relaxed);
        });
        producer.join().unwrap();
        consumer.join().unwrap();
        // SAFETY: both threads are joined.
        assert_eq!(unsafe { x.free() }, 6);
    }
}

#[test]
fn plain_init_release_acquire_atomic_use() {
    model(flag_counter(Release, Acquire));
}

#[test]
fn plain_init_relaxed_flag_atomic_use_is_reported() {
    let failure = expect_failure(flag_counter(Relaxed, Relaxed));
    assert_data_race(
        &failure,
        ["plain `write`", "`fetch_add(Relaxed)` at device scope"],
        [B0, B1],
    );
}

/// The example kernel `count_above` of `gpu-kernels` (plain initialisation of a block-shared
/// counter, block-scope increments between two `sync_threads`, plain read and write of the
/// result) on one block of two threads.
#[test]
fn count_above_kernel_one_block_of_two_threads() {
    model(|| {
        let (counts, total) = (Heap::new(0u32), Heap::new(0u32));
        let values = Arc::new([5u32, 20, 30]);
        launch_loom(Dim3::x(1), Dim3::x(2), move || {
            // SAFETY: three inputs, one count (one block) and the total, live for the launch.
            unsafe { kernels::count_above(values.as_ptr(), 3, 10, counts.as_ptr(), total.as_ptr()) }
        })
        .unwrap();
        // SAFETY: the launch has joined every thread.
        let (count, sum) = unsafe { (counts.free(), total.free()) };
        assert_eq!((count, sum), (2, 2));
    });
}
