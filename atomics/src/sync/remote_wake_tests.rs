//! Issue 10, bug 2: a host thread waiting on a primitive whose other side is a device thread is
//! never notified (the device cannot signal a host condition variable), so every host wait must
//! see a change made without `notify` within a bounded time.
//!
//! Each test has a host thread wait on a `System`-scope primitive, then — after the waiter has had
//! ample time to park — changes the primitive's memory the way a device thread does: the same
//! read-modify-write or store, through a plain `core::sync::atomic` on the same memory, and no
//! wake-up. The waiter must return; a generous watchdog (10 s) fails the test instead of hanging.
//! Nothing is asserted about speed.

use crate::{Atomic, Barrier, CountingSemaphore, Latch, System};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Long enough for the waiter to pass its spinning and park.
const PARK_TIME: Duration = Duration::from_millis(100);
/// The watchdog: far above any bounded back-off.
const WATCHDOG: Duration = Duration::from_secs(10);

/// Runs `wait` on a thread of its own, then `device_side` on this one, and fails if `wait` has not
/// returned within [`WATCHDOG`]. (A waiter that never returns is left blocked on its `static`
/// primitive: the test fails rather than hangs.)
fn returns_without_notify(
    what: &str,
    wait: impl FnOnce() + Send + 'static,
    device_side: impl FnOnce(),
) {
    let (done, returned) = mpsc::channel();
    thread::spawn(move || {
        wait();
        let _ = done.send(());
    });
    thread::sleep(PARK_TIME);
    device_side();
    assert!(
        returned.recv_timeout(WATCHDOG).is_ok(),
        "{what}: the host waiter did not return within {WATCHDOG:?} of a change made without notify"
    );
}

#[test]
fn atomic_wait_sees_a_plain_store() {
    static FLAG: Atomic<u32, System> = Atomic::<u32, System>::new(0);
    let flag = &FLAG;
    returns_without_notify(
        "Atomic<u32, System>::wait",
        || flag.wait(0, Ordering::Acquire),
        // SAFETY: the atomic's own memory, accessed only atomically.
        || unsafe { AtomicU32::from_ptr(flag.as_ptr()) }.store(1, Ordering::Release),
    );
}

#[test]
fn latch_wait_sees_a_count_down_without_notify() {
    static LATCH: Latch<System> = Latch::new(1);
    let latch = &LATCH;
    returns_without_notify(
        "Latch<System>::wait",
        || latch.wait(),
        // SAFETY: the latch's count, accessed only atomically; a device `count_down(1)`.
        || {
            unsafe { AtomicU32::from_ptr(latch.count.as_ptr()) }.fetch_sub(1, Ordering::Release);
        },
    );
}

#[test]
fn barrier_wait_sees_the_last_arrival_without_notify() {
    static BARRIER: Barrier<System> = Barrier::new(2);
    let barrier = &BARRIER;
    returns_without_notify(
        "Barrier<System>::arrive_and_wait",
        || barrier.arrive_and_wait(),
        || {
            // A device `arrive()`: the arrival, and, as the last one, the next phase's stores.
            // SAFETY: the barrier's count and phase words, accessed only atomically.
            let state = unsafe { AtomicU64::from_ptr(barrier.state.as_ptr()) };
            let phase = unsafe { AtomicU32::from_ptr(barrier.phase.as_ptr()) };
            let old = state.fetch_sub(super::barrier::ONE, Ordering::AcqRel);
            assert_eq!(
                (old >> 32) as u32,
                super::barrier::GUARD + 1,
                "not the last arrival"
            );
            state.store(super::barrier::word(2, 2), Ordering::Relaxed);
            phase.store(1, Ordering::Release);
        },
    );
}

#[test]
fn semaphore_acquire_sees_a_release_without_notify() {
    static SEMAPHORE: CountingSemaphore<System, 4> = CountingSemaphore::new(0);
    let semaphore = &SEMAPHORE;
    returns_without_notify(
        "CountingSemaphore<System>::acquire",
        || semaphore.acquire(),
        // SAFETY: the semaphore's count, accessed only atomically; a device `release(1)`.
        || {
            unsafe { AtomicU32::from_ptr(semaphore.count.as_ptr()) }
                .fetch_add(1, Ordering::Release);
        },
    );
}

#[test]
fn timed_acquire_sees_a_release_without_notify() {
    static SEMAPHORE: CountingSemaphore<System, 4> = CountingSemaphore::new(0);
    let semaphore = &SEMAPHORE;
    returns_without_notify(
        "CountingSemaphore<System>::try_acquire_for",
        // An hour: only a bounded wait returns before the watchdog.
        || assert!(semaphore.try_acquire_for(Duration::from_secs(3600))),
        // SAFETY: as above.
        || {
            unsafe { AtomicU32::from_ptr(semaphore.count.as_ptr()) }
                .fetch_add(1, Ordering::Release);
        },
    );
}
