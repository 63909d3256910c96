//! libcu++'s lock-freedom and alignment queries, `core`'s slice conversions, and the views as
//! `core::sync::atomic` types (issue 14): their results, and that `core`'s operations through a
//! view and the scoped ones act on one object (also under Miri).

use scoped_atomics::{
    Atomic, AtomicPrimitive, AtomicRef, Block, Device, Ordering::*, PlainScope, System,
};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, AtomicU32, AtomicU64};

fn alignment_of<T: AtomicPrimitive, S: PlainScope>() -> usize {
    assert!(Atomic::<T, S>::is_always_lock_free());
    assert!(AtomicRef::<T, S>::is_always_lock_free());
    assert_eq!(
        AtomicRef::<T, S>::required_alignment(),
        Atomic::<T, S>::required_alignment()
    );
    Atomic::<T, S>::required_alignment()
}

#[test]
fn queries_match_the_core_atomic_of_the_same_width() {
    assert_eq!(alignment_of::<bool, Device>(), align_of::<AtomicBool>());
    assert_eq!(alignment_of::<u8, Block>(), align_of::<AtomicU8>());
    assert_eq!(alignment_of::<u32, System>(), align_of::<AtomicU32>());
    assert_eq!(alignment_of::<f32, Device>(), align_of::<AtomicU32>());
    assert_eq!(alignment_of::<u64, Device>(), align_of::<AtomicU64>());
    assert_eq!(alignment_of::<f64, Block>(), align_of::<AtomicU64>());
    assert_eq!(
        alignment_of::<*mut [u8; 3], Device>(),
        align_of::<AtomicPtr<u8>>()
    );
    assert_eq!(Atomic::<u64, Device>::required_alignment(), 8);
    assert!(Atomic::<i16, Block>::new(3).is_lock_free());
}

#[test]
fn get_mut_slice_and_from_mut_slice_round_trip() {
    let mut values = [1u64, 2, 3];
    let atomics = Atomic::<u64, Device>::from_mut_slice(&mut values);
    atomics[0].fetch_add(10, Relaxed);
    let plain = Atomic::get_mut_slice(atomics);
    plain[2] = 30;
    assert_eq!(values, [11, 2, 30]);

    let mut floats = [Atomic::<f32, Block>::new(0.5), Atomic::new(1.5)];
    Atomic::get_mut_slice(&mut floats)[1] *= 2.0;
    assert_eq!(floats[1].load(Relaxed), 3.0);
}

#[test]
fn core_views_share_the_object_across_threads() {
    const N: u32 = if cfg!(miri) { 20 } else { 10_000 };
    let scoped = Atomic::<u32, Device>::new(0);
    let core_view: &AtomicU32 = scoped.as_core();
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..N {
                core_view.fetch_add(1, Relaxed);
            }
        });
        s.spawn(|| {
            for _ in 0..N {
                scoped.fetch_add(1, Relaxed);
            }
        });
    });
    assert_eq!(scoped.load(Relaxed), 2 * N);
    assert!(std::ptr::eq(
        Atomic::<u32, Device>::from_core(core_view),
        &scoped
    ));

    // Floats are their bits in the `core` integer atomic; pointers keep their provenance.
    let f = Atomic::<f64, Block>::new(1.5);
    assert_eq!(f.as_core().load(Relaxed), 1.5f64.to_bits());
    let mut target = 7u8;
    let p = AtomicPtr::new(&mut target as *mut u8);
    let scoped_p = Atomic::<*mut u8, System>::from_core(&p);
    // SAFETY: `target` is live and only accessed through this pointer meanwhile.
    unsafe { *scoped_p.load(Acquire) += 1 };
    assert_eq!(target, 8);
    let flag = AtomicBool::new(false);
    assert!(!Atomic::<bool, Device>::from_core(&flag).swap(true, AcqRel));
    assert!(flag.load(Acquire));
}
