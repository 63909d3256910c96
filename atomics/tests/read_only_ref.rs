//! `AtomicReadRef`, the read-only view (libcu++'s `atomic_ref<const T>`, issue 14): loads through
//! a `*const T` observe another thread's atomic writes and acquire what it released; a view of
//! a shared borrow reads the value; scopes and conversions keep the location (also under Miri).

use scoped_atomics::{
    Atomic, AtomicReadRef, AtomicRef, Block, Device, Ordering::*, System, Thread,
};
use std::cell::UnsafeCell;

const ROUNDS: u32 = if cfg!(miri) { 3 } else { 1_000 };

/// Memory shared by a writer (through `*mut`) and a reader (through `*const`), as a kernel's
/// arguments would be.
struct Shared {
    flag: UnsafeCell<u32>,
    data: UnsafeCell<u64>,
}
// SAFETY: every access to the cells below is atomic, or ordered by the flag's release/acquire.
unsafe impl Sync for Shared {}

#[test]
fn read_only_view_acquires_what_a_writer_released() {
    for round in 1..=ROUNDS {
        let shared = Shared {
            flag: UnsafeCell::new(0),
            data: UnsafeCell::new(0),
        };
        let shared = &shared;
        std::thread::scope(|s| {
            s.spawn(move || {
                // SAFETY: aligned, live for the scope; the flag is only accessed atomically.
                let flag = unsafe { AtomicRef::<u32, Device>::from_ptr(shared.flag.get()) };
                // SAFETY: the reader reads `data` only after acquiring the flag.
                unsafe { *shared.data.get() = u64::from(round) * 3 };
                flag.store(round, Release);
                flag.notify_all();
            });
            let flag_ptr: *const u32 = shared.flag.get();
            // SAFETY: as above; the view only loads.
            let flag = unsafe { AtomicReadRef::<u32, Device>::from_ptr(flag_ptr) };
            flag.wait(0, Acquire);
            assert_eq!(flag.load(Relaxed), round);
            // SAFETY: the acquire load above synchronises with the writer's release store.
            assert_eq!(unsafe { *shared.data.get() }, u64::from(round) * 3);
        });
    }
}

#[test]
fn view_of_a_shared_borrow_and_conversions() {
    let table = [1.5f32, -2.0, 4.25];
    let views: Vec<AtomicReadRef<f32, Block>> = table.iter().map(AtomicReadRef::new).collect();
    let loaded: Vec<f32> = views.iter().map(|v| v.load(Acquire)).collect();
    assert_eq!(loaded, table);
    assert_eq!(views[2].with_scope::<System>().load(SeqCst), 4.25);

    let a = Atomic::<i64, Thread>::new(-9);
    let from_atomic = AtomicReadRef::from(&a);
    let from_view: AtomicReadRef<i64, Thread> = AtomicRef::from(&a).into();
    a.fetch_add(10, Relaxed);
    assert_eq!((from_atomic.load(Relaxed), from_view.load(Relaxed)), (1, 1));
    assert_eq!(format!("{from_atomic:?}"), "1");
    assert_eq!(AtomicReadRef::<u64, Device>::required_alignment(), 8);
    assert!(AtomicReadRef::<bool, Device>::is_always_lock_free());
}
