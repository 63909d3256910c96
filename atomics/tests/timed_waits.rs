//! Issue 14: the non-blocking, timed and parity waits on host threads — `Barrier::try_wait`,
//! `try_wait_for`, `try_wait_until`, `wait_parity`, `try_wait_parity(_for/_until)`,
//! `CountingSemaphore::try_acquire_until`, `Atomic::wait_for` / `wait_until` (and on
//! `AtomicRef`, `AtomicReadRef`, `AtomicFlag`), with both kinds of deadline
//! (`scoped_atomics::time::Instant` and `std::time::Instant`).
//!
//! Each timed wait is checked both ways: one that must time out (nobody changes anything) and
//! one that must succeed (the change is there already, or another thread makes it while a long
//! timeout runs). Only outcomes are asserted, never durations; a lost wake-up or a wait that
//! never returns makes the watchdog abort the run. Under Miri (whose clock is virtual) the
//! timeouts are short and the threads few.

mod common;

use common::panic_of;
use scoped_atomics::time::{Deadline, Instant};
use scoped_atomics::{
    Atomic, AtomicFlag, AtomicReadRef, AtomicRef, Barrier, BinarySemaphore, Block, Device,
    Ordering, System,
};
use std::cell::UnsafeCell;
use std::sync::mpsc;
use std::time::Duration;

/// A timeout that expires quickly.
const SHORT: Duration = Duration::from_micros(200);
/// A timeout no successful wait gets near (the watchdog fires first).
const LONG: Duration = Duration::from_secs(600);
const ROUNDS: u32 = if cfg!(miri) { 3 } else { 200 };

/// Fails the test instead of hanging if `body` does not finish within a minute (a lost wake-up):
/// a watchdog thread aborts the process. Under Miri `body` runs without one.
fn within(body: impl FnOnce()) {
    if cfg!(miri) {
        return body();
    }
    let (cancel, cancelled) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) =
            cancelled.recv_timeout(Duration::from_secs(60))
        {
            eprintln!("a timed wait did not return: lost wake-up");
            std::process::abort();
        }
    });
    body();
    drop(cancel);
}

/// Plain memory the primitive under test must order (Miri reports a race otherwise).
struct Shared(UnsafeCell<u32>);
// SAFETY: accessed only in ways the primitive under test orders (what the tests check).
unsafe impl Sync for Shared {}
impl Shared {
    fn set(&self, v: u32) {
        // SAFETY: see the `Sync` impl.
        unsafe { *self.0.get() = v }
    }
    fn get(&self) -> u32 {
        // SAFETY: see the `Sync` impl.
        unsafe { *self.0.get() }
    }
}

#[test]
fn atomic_wait_for_times_out_or_sees_the_change() {
    within(|| {
        let a = Atomic::<u32, Device>::new(1);
        assert!(!a.wait_for(1, Ordering::Acquire, SHORT));
        assert!(!a.wait_for(1, Ordering::Relaxed, Duration::ZERO));
        assert!(a.wait_for(0, Ordering::Acquire, Duration::ZERO)); // differs already
        assert!(!a.wait_until(1, Ordering::SeqCst, Instant::now() + SHORT));
        assert!(!a.wait_until(1, Ordering::SeqCst, std::time::Instant::now()));
        assert!(a.wait_until(2, Ordering::Acquire, Instant::now())); // past deadline, differs
        // Floats compare bit for bit, as `wait` does: -0.0 differs from 0.0.
        let f = Atomic::<f32, Block>::new(-0.0);
        assert!(f.wait_for(0.0, Ordering::Acquire, Duration::ZERO));
        assert!(!f.wait_for(-0.0, Ordering::Acquire, SHORT));
    });
}

#[test]
fn atomic_wait_for_is_woken_by_a_notified_store_and_orders_the_data() {
    within(|| {
        for round in 0..ROUNDS {
            let flag = Atomic::<u32, System>::new(0);
            let data = Shared(UnsafeCell::new(0));
            std::thread::scope(|s| {
                s.spawn(|| {
                    data.set(round + 1);
                    flag.store(1, Ordering::Release);
                    flag.notify_one();
                });
                let changed = if round % 2 == 0 {
                    flag.wait_for(0, Ordering::Acquire, LONG)
                } else {
                    flag.wait_until(0, Ordering::Acquire, std::time::Instant::now() + LONG)
                };
                assert!(changed);
                assert_eq!(data.get(), round + 1);
            });
        }
    });
}

#[test]
fn atomic_wait_for_panics_on_a_store_ordering() {
    let a = Atomic::<u64, Device>::new(0);
    for order in [Ordering::Release, Ordering::AcqRel] {
        let (message, _) = panic_of(|| {
            let _ = a.wait_for(1, order, SHORT);
        })
        .expect("wait_for with a store ordering must panic");
        assert!(
            message.contains("there is no such thing as"),
            "not core's message: {message}"
        );
    }
}

#[test]
fn views_and_flags_have_the_timed_waits() {
    within(|| {
        let a = Atomic::<u16, Device>::new(7);
        let view = AtomicRef::from(&a);
        assert!(!view.wait_for(7, Ordering::Acquire, SHORT));
        assert!(view.wait_until(8, Ordering::Acquire, Instant::now() + SHORT));
        let read = AtomicReadRef::from(&a);
        assert!(!read.wait_until(7, Ordering::Acquire, Instant::now() + SHORT));
        a.store(9, Ordering::Release);
        assert!(read.wait_for(7, Ordering::Acquire, SHORT));
        let frozen = 5u32;
        let frozen = AtomicReadRef::<u32, Block>::new(&frozen);
        assert!(!frozen.wait_for(5, Ordering::Acquire, SHORT)); // cannot change
        assert!(frozen.wait_for(4, Ordering::Acquire, SHORT));

        let flag = AtomicFlag::<Device>::new();
        assert!(!flag.wait_for(false, Ordering::Acquire, SHORT));
        std::thread::scope(|s| {
            s.spawn(|| {
                flag.test_and_set(Ordering::Release);
                flag.notify_all();
            });
            assert!(flag.wait_until(false, Ordering::Acquire, Instant::now() + LONG));
        });
        assert!(!flag.wait_until(true, Ordering::Acquire, Instant::now()));
    });
}

#[test]
fn semaphore_try_acquire_until_times_out_or_takes_a_unit() {
    within(|| {
        let s = BinarySemaphore::<System>::new(0);
        assert!(!s.try_acquire_until(Instant::now() + SHORT));
        assert!(!s.try_acquire_until(std::time::Instant::now()));
        s.release(1);
        assert!(s.try_acquire_until(Instant::now())); // a unit is there: the past is fine
        assert!(!s.try_acquire(), "took the unit");
        let data = Shared(UnsafeCell::new(0));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                data.set(3);
                s.release(1);
            });
            assert!(s.try_acquire_until(std::time::Instant::now() + LONG));
            assert_eq!(data.get(), 3);
        });
    });
}

#[test]
fn barrier_try_wait_tells_whether_the_phase_ended() {
    let barrier = Barrier::<Device>::new(3);
    let first = barrier.arrive();
    assert!(!barrier.try_wait(&first));
    let second = barrier.arrive();
    assert!(!barrier.try_wait(&second));
    assert!(!barrier.try_wait_for(&first, SHORT));
    assert!(!barrier.try_wait_until(&second, Instant::now() + SHORT));
    assert!(!barrier.try_wait_until(&second, std::time::Instant::now()));
    let last = barrier.arrive(); // ends phase 0
    assert!(barrier.try_wait(&first));
    assert!(barrier.try_wait(second)); // by value
    assert!(barrier.try_wait_for(&last, Duration::ZERO));
    assert!(barrier.try_wait_until(last, Instant::now()));
    // The token of the preceding phase still reads as ended once the next phase is under way.
    let next = barrier.arrive();
    assert!(barrier.try_wait(&first));
    assert!(!barrier.try_wait(&next));
}

#[test]
fn barrier_try_wait_for_is_released_by_the_last_arrival_and_orders_the_data() {
    within(|| {
        for round in 0..ROUNDS {
            let barrier = Barrier::<System>::new(2);
            let data = Shared(UnsafeCell::new(0));
            std::thread::scope(|s| {
                s.spawn(|| {
                    data.set(round + 1);
                    let _ = barrier.arrive();
                });
                let token = barrier.arrive();
                let ended = if round % 2 == 0 {
                    barrier.try_wait_for(&token, LONG)
                } else {
                    barrier.try_wait_until(&token, Instant::now() + LONG)
                };
                assert!(ended);
                assert_eq!(data.get(), round + 1);
            });
        }
    });
}

#[test]
fn barrier_parity_waits_follow_the_phase_parity() {
    let barrier = Barrier::<Block>::new(1);
    for phase in 0..6u32 {
        let parity = phase % 2 == 1;
        assert!(!barrier.try_wait_parity(parity), "phase {phase} under way");
        assert!(
            barrier.try_wait_parity(!parity),
            "phase {} ended",
            phase.wrapping_sub(1)
        );
        assert!(!barrier.try_wait_parity_for(parity, SHORT));
        assert!(!barrier.try_wait_parity_until(parity, Instant::now() + SHORT));
        assert!(barrier.try_wait_parity_until(!parity, std::time::Instant::now()));
        let _ = barrier.arrive(); // ends `phase`
        assert!(barrier.try_wait_parity(parity));
        assert!(barrier.try_wait_parity_for(parity, Duration::ZERO));
        barrier.wait_parity(parity); // returns at once
    }
}

/// A consumer that never arrives follows a producer phase by phase with `wait_parity`, flipping
/// its parity after each phase (libcu++'s pipeline pattern); the producer waits for the
/// consumer's acknowledgement before the next phase, so the consumer is never two phases behind.
#[test]
fn barrier_wait_parity_lets_a_non_participant_follow_the_phases() {
    within(|| {
        let produced = Barrier::<Device>::new(1);
        let consumed = Barrier::<Device>::new(1);
        let data = Shared(UnsafeCell::new(0));
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut parity = false;
                for round in 0..ROUNDS {
                    if round > 0 {
                        consumed.wait_parity(parity);
                        parity = !parity;
                    }
                    data.set(round + 1);
                    let _ = produced.arrive();
                }
            });
            let mut parity = false;
            for round in 0..ROUNDS {
                if round % 2 == 0 {
                    produced.wait_parity(parity);
                } else {
                    assert!(produced.try_wait_parity_for(parity, LONG));
                }
                assert_eq!(data.get(), round + 1);
                parity = !parity;
                let _ = consumed.arrive();
            }
        });
    });
}

#[test]
fn barrier_try_wait_reports_a_stale_token() {
    let barrier = Barrier::<Device>::new(2);
    let stale = barrier.arrive(); // phase 0, not its last arrival
    let _ = barrier.arrive(); // ends phase 0
    let _ = barrier.arrive();
    let _ = barrier.arrive(); // ends phase 1: the token is two phases old
    for case in [0, 1] {
        let (message, file) = panic_of(|| {
            if case == 0 {
                let _ = barrier.try_wait(&stale);
            } else {
                let _ = barrier.try_wait_for(&stale, SHORT);
            }
        })
        .expect("a stale token must panic");
        assert!(
            message.contains("the token is of phase 0, but the barrier is in phase 2"),
            "{message}"
        );
        assert!(
            file.is_some_and(|f| f.ends_with("timed_waits.rs")),
            "not reported at the caller"
        );
    }
}

#[test]
fn both_clocks_are_deadlines() {
    fn left(d: impl Deadline) -> Duration {
        d.time_left()
    }
    assert_eq!(left(Instant::now()), Duration::ZERO);
    assert_eq!(left(std::time::Instant::now()), Duration::ZERO);
    assert!(left(Instant::now() + LONG) > Duration::ZERO);
    assert!(left(std::time::Instant::now() + LONG) > Duration::ZERO);
}
