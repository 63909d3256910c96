//! The methods `core` added most recently (`try_update`/`update`, Rust 1.95; `AtomicPtr`'s
//! address `fetch_and`/`fetch_or`/`fetch_xor`, Rust 1.91) give `core`'s results.

use scoped_atomics::{Atomic, Device, Ordering::*, System};
use std::sync::atomic::{AtomicPtr, AtomicU32};

#[test]
fn update_and_try_update_match_core() {
    for start in [0u32, 7, u32::MAX] {
        let (ours, theirs) = (Atomic::<u32, Device>::new(start), AtomicU32::new(start));
        let f = |x: u32| x.wrapping_mul(3).wrapping_add(1);
        assert_eq!(
            ours.update(AcqRel, Acquire, f),
            theirs.update(AcqRel, Acquire, f)
        );
        let g = |x: u32| x.is_multiple_of(2).then_some(x / 2);
        assert_eq!(
            ours.try_update(Release, Relaxed, g),
            theirs.try_update(Release, Relaxed, g)
        );
        assert_eq!(ours.load(SeqCst), theirs.load(SeqCst));
    }
}

#[test]
fn pointer_address_bitwise_operations_match_core() {
    let mut data = [0u64; 4];
    let base = data.as_mut_ptr();
    for (value, tag) in [(0usize, 1usize), (1, 7), (3, !0)] {
        let start = base.wrapping_add(value % 4);
        let ours = Atomic::<*mut u64, System>::new(start);
        let theirs = AtomicPtr::new(start);
        assert_eq!(
            ours.fetch_or(tag & 7, AcqRel),
            theirs.fetch_or(tag & 7, AcqRel)
        );
        assert_eq!(ours.fetch_xor(2, Relaxed), theirs.fetch_xor(2, Relaxed));
        assert_eq!(ours.fetch_and(!7, Release), theirs.fetch_and(!7, Release));
        assert_eq!(ours.load(Acquire), theirs.load(Acquire));
        // The provenance is kept: the result still points into `data`.
        assert_eq!(ours.load(Relaxed), start);
    }
}
