//! `scoped_atomics::plain` on the host (and under Miri): the plain access itself, on memory that
//! is also used through `AtomicRef` views, for every kind of value type. Under `--cfg loom` the
//! mirror's checks of these accesses are tested in `loom-tests/tests/plain_and_atomic.rs`.
#![cfg(not(loom))]

use scoped_atomics::{AtomicRef, Block, Device, Ordering::*, System, plain};

#[test]
fn plain_writes_and_reads_round_trip_for_each_kind_of_value() {
    let mut word = 0u32;
    let mut byte = 0i8;
    let mut flag = false;
    let mut float = 0.0f64;
    let mut target = 5u16;
    let mut pointer: *mut u16 = core::ptr::null_mut();
    // SAFETY: every pointer is to a live local, used by this thread only.
    unsafe {
        plain::write(&mut word, 0xdead_beef);
        plain::write(&mut byte, -7);
        plain::write(&mut flag, true);
        plain::write(&mut float, -2.5);
        plain::write(&mut pointer, &raw mut target);
        assert_eq!(plain::read(&word), 0xdead_beef);
        assert_eq!(plain::read(&byte), -7);
        assert!(plain::read(&flag));
        assert_eq!(plain::read(&float), -2.5);
        assert_eq!(*plain::read(&pointer), 5);
    }
}

#[test]
fn plain_and_atomic_accesses_see_each_other() {
    let mut counter = 1u64;
    let p: *mut u64 = &mut counter;
    // SAFETY: `p` is live and aligned; the threads below use it only atomically, between the
    // plain accesses, and the scope's join orders them.
    unsafe { plain::write(p, 10) };
    // SAFETY: as above.
    let view = unsafe { AtomicRef::<u64, Device>::from_ptr(p) };
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(move || view.fetch_add(1, Relaxed));
        }
    });
    view.with_scope::<Block>().fetch_add(100, Release);
    // SAFETY: as above; the atomic use is over.
    assert_eq!(unsafe { plain::read(p) }, 112);
    // SAFETY: as above.
    unsafe { plain::write(p, 3) };
    // SAFETY: as above; no other thread runs.
    let again = unsafe { AtomicRef::<u64, System>::from_ptr(p) };
    assert_eq!(again.load(Acquire), 3);
}
