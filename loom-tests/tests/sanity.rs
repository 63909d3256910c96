#![cfg(loom)]
use loom::sync::Arc;
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{AtomicRef, Block, Device, Ordering};

#[test]
fn mp_device_scope_passes() {
    loom_tests::model(|| {
        set_position(Position::host());
        let data = Arc::new(loom::cell::UnsafeCell::new(0u32));
        let flag = Arc::new(scoped_atomics::device::AtomicU32::new(0));
        let (d, f) = (data.clone(), flag.clone());
        let t0 = spawn_in(Position::gpu(0, 0), move || {
            d.with_mut(|p| unsafe { *p = 42 });
            f.store(1, Ordering::Release);
        });
        let (d, f) = (data.clone(), flag.clone());
        let t1 = spawn_in(Position::gpu(0, 1), move || {
            if f.load(Ordering::Acquire) == 1 {
                assert_eq!(d.with(|p| unsafe { *p }), 42);
            }
        });
        t0.join().unwrap();
        t1.join().unwrap();
    });
}

#[test]
#[should_panic(expected = "scope race")]
fn mp_block_scope_store_is_a_race() {
    loom_tests::model(|| {
        set_position(Position::host());
        let flag = Arc::new(scoped_atomics::Atomic::<u32, Block>::new(0));
        let f = flag.clone();
        let t0 = spawn_in(Position::gpu(0, 0), move || f.store(1, Ordering::Release));
        let f = flag.clone();
        let t1 = spawn_in(Position::gpu(0, 1), move || {
            let _ = f.with_scope::<Device>().load(Ordering::Acquire);
        });
        t0.join().unwrap();
        t1.join().unwrap();
    });
}

#[test]
#[should_panic(expected = "scope race")]
fn fence_narrower_than_partner_is_reported() {
    loom_tests::model(|| {
        set_position(Position::host());
        let flag = Arc::new(scoped_atomics::device::AtomicU32::new(0));
        let f = flag.clone();
        let t0 = spawn_in(Position::gpu(0, 0), move || {
            scoped_atomics::fence::<Block>(Ordering::Release);
            f.store(1, Ordering::Relaxed);
        });
        let f = flag.clone();
        let t1 = spawn_in(Position::gpu(0, 1), move || {
            if f.load(Ordering::Relaxed) == 1 {
                scoped_atomics::fence::<Device>(Ordering::Acquire);
            }
        });
        t0.join().unwrap();
        t1.join().unwrap();
    });
}

#[test]
fn atomic_ref_writes_through() {
    loom_tests::model(|| {
        set_position(Position::gpu(0, 0));
        let mut x = 5u32;
        {
            let r = AtomicRef::<u32, Device>::new(&mut x);
            r.fetch_add(2, Ordering::Relaxed);
        }
        assert_eq!(x, 7);
    });
}

/// The report names the location's value type, both operations with their orderings and scopes,
/// and both threads with their positions.
#[test]
fn the_report_names_type_operations_scopes_and_positions() {
    let failure = loom_tests::expect_failure(|| {
        set_position(Position::host());
        let x = Arc::new(scoped_atomics::Atomic::<f32, Block>::new(0.0));
        let a = x.clone();
        let t0 = spawn_in(Position::gpu(0, 0), move || a.store(1.5, Ordering::Release));
        let b = x.clone();
        let t1 = spawn_in(Position::gpu(0, 1), move || {
            let _ = b.with_scope::<Device>().load(Ordering::Acquire);
        });
        t0.join().unwrap();
        t1.join().unwrap();
    });
    let m = &failure.message;
    for part in [
        "scope race on `Atomic<f32>`",
        "`store(Release)` at block scope by thread 1 (device 0, cluster 0, block 0, thread 0)",
        "`load(Acquire)` at device scope by thread 2 (device 0, cluster 1, block 1, thread 0)",
        "not morally strong",
    ] {
        assert!(m.contains(part), "missing {part:?} in:\n{m}");
    }
}
