//! `AtomicFlag<S>` (issue 14): C++20 `atomic_flag` semantics — `test_and_set` returns the old
//! state, `clear` and `test` are a store and a load — mutual exclusion as a spin lock with
//! `wait`/`notify`, and `core`'s messages for orderings a store or a load cannot have.

use scoped_atomics::{AtomicFlag, Block, Device, Ordering::*, System, Thread};
use std::cell::UnsafeCell;

mod common;
use common::panic_of;

const THREADS: usize = if cfg!(miri) { 2 } else { 4 };
const ITERS: usize = if cfg!(miri) { 10 } else { 2_000 };

fn states<S: scoped_atomics::PlainScope>() {
    let flag = AtomicFlag::<S>::default();
    assert!(!flag.test(Relaxed));
    assert_eq!(format!("{flag:?}"), "AtomicFlag(false)");
    assert!(!flag.test_and_set(AcqRel));
    assert!(flag.test(Acquire));
    assert!(flag.test_and_set(SeqCst));
    assert_eq!(format!("{flag:?}"), "AtomicFlag(true)");
    flag.clear(Release);
    assert!(!flag.test(SeqCst));
    flag.wait(true, Acquire); // returns at once: the flag is clear
    assert_eq!(size_of::<AtomicFlag<S>>(), 4);
}

#[test]
fn test_and_set_clear_and_test_at_every_scope() {
    states::<Thread>();
    states::<Block>();
    states::<Device>();
    states::<System>();
}

struct Counter(UnsafeCell<usize>);
// SAFETY: only touched while holding the flag used as a lock below.
unsafe impl Sync for Counter {}

#[test]
fn spin_lock_excludes_and_publishes() {
    let lock = AtomicFlag::<Device>::new();
    let counter = Counter(UnsafeCell::new(0));
    let (lock_ref, counter_ref) = (&lock, &counter);
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(move || {
                let (lock, counter) = (lock_ref, counter_ref);
                for _ in 0..ITERS {
                    while lock.test_and_set(Acquire) {
                        lock.wait(true, Relaxed);
                    }
                    // SAFETY: the flag is held: no other thread touches the counter.
                    unsafe { *counter.0.get() += 1 };
                    lock.clear(Release);
                    lock.notify_one();
                }
            });
        }
    });
    assert_eq!(counter.0.into_inner(), THREADS * ITERS);
    assert!(!lock.test(Relaxed));
}

#[test]
fn invalid_orderings_panic_with_cores_messages() {
    let flag = AtomicFlag::<Block>::new();
    let cases: [(&dyn Fn(), &str); 6] = [
        (
            &|| flag.clear(Acquire),
            "there is no such thing as an acquire store",
        ),
        (
            &|| flag.clear(AcqRel),
            "there is no such thing as an acquire-release store",
        ),
        (
            &|| {
                let _ = flag.test(Release);
            },
            "there is no such thing as a release load",
        ),
        (
            &|| {
                let _ = flag.test(AcqRel);
            },
            "there is no such thing as an acquire-release load",
        ),
        (
            &|| flag.wait(true, Release),
            "there is no such thing as a release load",
        ),
        (
            &|| flag.wait(true, AcqRel),
            "there is no such thing as an acquire-release load",
        ),
    ];
    for (case, expected) in cases {
        let (message, _) = panic_of(case).expect("an invalid ordering must panic");
        assert_eq!(message, expected);
    }
    for order in [Relaxed, Acquire, Release, AcqRel, SeqCst] {
        assert_eq!(
            panic_of(|| {
                let _ = flag.test_and_set(order);
            }),
            None,
            "{order:?}"
        );
    }
}
