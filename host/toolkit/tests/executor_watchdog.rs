//! The host launch's watchdog: a launch that hangs returns `LaunchError::Hung` naming the
//! blocked threads and where they wait, instead of hanging the test run; a launch with a busy
//! thread or a panicking one is never reported as hung.

use scoped_atomics::device::{AtomicBool, AtomicU32};
use scoped_atomics::kernel::emulation::WaitKind;
use scoped_atomics::kernel::{Dim3, block_idx, cluster_sync, spin_loop, sync_threads, thread_idx};
use scoped_atomics::{Barrier, Device, Ordering};
use scoped_atomics_host::executor::{Launch, LaunchError};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WATCHDOG: Duration = Duration::from_millis(300);

/// Runs `launch` on its own thread and fails (instead of hanging the test run) if it has not
/// returned after a minute.
fn returns(
    launch: impl FnOnce() -> Result<(), LaunchError> + Send + 'static,
) -> Result<(), LaunchError> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || send.send(launch()).unwrap());
    receive
        .recv_timeout(Duration::from_secs(60))
        .expect("the launch did not return within a minute: it hangs")
}

#[test]
fn one_producer_and_two_consumers_deadlock_is_an_error_naming_the_waiting_threads() {
    let start = Instant::now();
    let result = returns(|| {
        let items = AtomicU32::new(0);
        Launch::new(Dim3::x(3), Dim3::x(2))
            .watchdog(Some(WATCHDOG))
            .run(|| {
                if block_idx().x == 0 {
                    // The producer block makes one item and returns.
                    if thread_idx().x == 0 {
                        items.fetch_add(1, Ordering::Release);
                    }
                    return;
                }
                // Each consumer block's thread 0 takes an item; its thread 1 waits for it.
                if thread_idx().x == 0 {
                    loop {
                        let n = items.load(Ordering::Acquire);
                        if n > 0
                            && items
                                .compare_exchange(n, n - 1, Ordering::AcqRel, Ordering::Relaxed)
                                .is_ok()
                        {
                            break;
                        }
                        spin_loop(); // SPIN
                    }
                }
                sync_threads(); // BARRIER
            })
    });
    let elapsed = start.elapsed();
    let Err(LaunchError::Hung { after, threads }) = &result else {
        panic!("expected a hang, got {result:?}");
    };
    assert_eq!(*after, WATCHDOG);
    // The consumer block that got no item: thread 0 spins, thread 1 waits at the barrier.
    assert_eq!(threads.len(), 2, "{threads:?}");
    let source = include_str!("executor_watchdog.rs");
    let line_of =
        |marker: &str| source.lines().position(|l| l.ends_with(marker)).unwrap() as u32 + 1;
    let mut threads = threads.clone();
    threads.sort_by_key(|t| t.thread_idx.x);
    let loser = threads[0].block_idx;
    assert!(
        loser == Dim3::new(1, 0, 0) || loser == Dim3::new(2, 0, 0),
        "{loser:?}"
    );
    assert_eq!(threads[1].block_idx, loser);
    assert_eq!(
        (threads[0].thread_idx, threads[0].wait),
        (Dim3::new(0, 0, 0), WaitKind::Spin)
    );
    assert_eq!(
        (threads[1].thread_idx, threads[1].wait),
        (Dim3::new(1, 0, 0), WaitKind::SyncThreads)
    );
    for (t, marker) in threads.iter().zip(["// SPIN", "// BARRIER"]) {
        let location = t.location.expect("the wait's call site");
        assert!(
            location.file().ends_with("executor_watchdog.rs"),
            "{location}"
        );
        assert_eq!(location.line(), line_of(marker), "{location}");
    }
    let message = result.unwrap_err().to_string();
    assert!(message.contains("spins in spin_loop at"), "{message}");
    assert!(message.contains("waits at sync_threads at"), "{message}");
    // Reported after the watchdog's time, and not long after (a loose bound: the machine may be
    // busy).
    assert!(elapsed >= WATCHDOG, "{elapsed:?}");
}

#[test]
fn a_busy_thread_is_never_reported_while_the_others_wait() {
    let result = returns(|| {
        Launch::new(Dim3::x(2), Dim3::x(4))
            .watchdog(Some(Duration::from_millis(50)))
            .run(|| {
                if thread_idx().x == 0 {
                    // Busy (no wait, no spin_loop) for many times the watchdog's time.
                    let start = Instant::now();
                    while start.elapsed() < Duration::from_millis(500) {
                        std::hint::black_box(0);
                    }
                }
                sync_threads();
            })
    });
    assert_eq!(result, Ok(()));
}

#[test]
fn a_long_launch_that_keeps_passing_barriers_is_not_reported() {
    let result = returns(|| {
        let rounds = AtomicU32::new(0);
        Launch::new(Dim3::x(1), Dim3::x(2))
            .watchdog(Some(Duration::from_millis(50)))
            .run(|| {
                // Thread 1 spins for each of thread 0's rounds, which end at a barrier: for
                // ten times the watchdog's time every thread waits most of the time.
                for round in 0..20 {
                    if thread_idx().x == 0 {
                        std::thread::sleep(Duration::from_millis(25));
                        rounds.store(round + 1, Ordering::Release);
                    } else {
                        while rounds.load(Ordering::Acquire) <= round {
                            spin_loop();
                        }
                    }
                    sync_threads();
                }
            })
    });
    assert_eq!(result, Ok(()));
}

#[test]
fn a_panic_that_strands_its_block_at_a_barrier_is_reported_as_the_panic() {
    let result = returns(|| {
        Launch::new(Dim3::x(1), Dim3::x(2))
            .watchdog(Some(WATCHDOG))
            .run(|| {
                assert!(thread_idx().x != 0, "thread 0 fails");
                sync_threads();
            })
    });
    match result {
        Err(LaunchError::Panicked {
            thread, message, ..
        }) => {
            assert_eq!(thread, Dim3::new(0, 0, 0));
            assert!(message.contains("thread 0 fails"), "{message}");
        }
        other => panic!("expected the panic, got {other:?}"),
    }
}

#[test]
fn threads_at_a_cluster_barrier_are_woken_and_named() {
    let result = returns(|| {
        let never = AtomicBool::new(false);
        Launch::new(Dim3::x(2), Dim3::x(1))
            .cluster(Dim3::x(2))
            .watchdog(Some(WATCHDOG))
            .run(|| {
                if block_idx().x == 0 {
                    while !never.load(Ordering::Acquire) {
                        spin_loop();
                    }
                }
                cluster_sync();
            })
    });
    let Err(LaunchError::Hung { threads, .. }) = &result else {
        panic!("expected a hang, got {result:?}");
    };
    let mut waits: Vec<_> = threads.iter().map(|t| (t.block_idx.x, t.wait)).collect();
    waits.sort_by_key(|w| w.0);
    assert_eq!(waits, [(0, WaitKind::Spin), (1, WaitKind::ClusterBarrier)]);
}

#[test]
fn threads_in_a_library_wait_are_woken_and_named() {
    let result = returns(|| {
        // A grid barrier for three threads in a grid of two: nobody completes it.
        let grid_barrier = Barrier::<Device>::new(3);
        Launch::new(Dim3::x(2), Dim3::x(1))
            .watchdog(Some(WATCHDOG))
            .run(|| grid_barrier.arrive_and_wait())
    });
    let Err(LaunchError::Hung { threads, .. }) = &result else {
        panic!("expected a hang, got {result:?}");
    };
    assert_eq!(threads.len(), 2);
    assert!(
        threads.iter().all(|t| t.wait == WaitKind::LibraryWait),
        "{threads:?}"
    );
}

#[test]
fn without_a_watchdog_a_finished_launch_is_unchanged() {
    let n = AtomicU32::new(0);
    Launch::new(Dim3::x(4), Dim3::x(8))
        .watchdog(None)
        .run(|| {
            n.fetch_add(1, Ordering::Relaxed);
            sync_threads();
        })
        .unwrap();
    assert_eq!(n.load(Ordering::Relaxed), 32);
}
