//! Issue 14's additions under the loom mirror: generic code over `Atomic<T, S>` (a reduction
//! over `AtomicArithmetic` types, half precision included), `AtomicFlag` publishing plain data,
//! and `AtomicReadRef` acquiring through a read-only view; each correct at device scope and
//! reported as a scope race at block scope, between two blocks.
#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{Heap, Plain, model, spin_until};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{
    Atomic, AtomicArithmetic, AtomicFlag, AtomicReadRef, Block, Device, Ordering::*, PlainScope,
};

const B0: Position = Position::gpu(0, 0);
const B1: Position = Position::gpu(0, 1);

/// Two blocks add `one` twice each into a generic counter of scope `S`.
fn generic_sum<T, S: PlainScope>(one: T, four: T)
where
    T: AtomicArithmetic + PartialEq + core::fmt::Debug + Send + Sync + 'static,
{
    model(move || {
        set_position(Position::host());
        let total = Arc::new(Atomic::<T, S>::default());
        let hs: Vec<_> = [B0, B1]
            .into_iter()
            .map(|p| {
                let total = total.clone();
                spawn_in(p, move || {
                    total.fetch_add(one, Relaxed);
                    total.fetch_add(one, Relaxed);
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(total.load(Relaxed), four);
    });
}

#[test]
fn generic_reduction_over_u64_and_f32_at_device_scope() {
    generic_sum::<u64, Device>(1, 4);
    generic_sum::<f32, Device>(0.5, 2.0);
    generic_sum::<scoped_atomics::f16, Device>(
        scoped_atomics::f16::from_f32(0.5),
        scoped_atomics::f16::from_f32(2.0),
    );
    generic_sum::<scoped_atomics::bf16, Device>(
        scoped_atomics::bf16::ONE,
        scoped_atomics::bf16::from_f32(4.0),
    );
}

#[test]
#[should_panic(expected = "scope race")]
fn generic_reduction_at_block_scope_across_blocks_is_a_scope_race() {
    generic_sum::<u32, Block>(1, 4);
}

/// Block 0 writes plain data and sets a flag of scope `S`; block 1 waits for the flag and reads.
fn flag_publishes<S: PlainScope>() {
    model(|| {
        set_position(Position::host());
        let flag = Arc::new(AtomicFlag::<S>::new());
        let data = Arc::new(Plain::new(0u32));
        let writer = {
            let (flag, data) = (flag.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(42);
                assert!(!flag.test_and_set(Release));
            })
        };
        let reader = spawn_in(B1, move || {
            spin_until(|| flag.test(Acquire));
            assert_eq!(data.get(), 42);
        });
        writer.join().unwrap();
        reader.join().unwrap();
    });
}

#[test]
fn flag_publishes_at_device_scope() {
    flag_publishes::<Device>();
}

#[test]
#[should_panic(expected = "scope race")]
fn flag_at_block_scope_across_blocks_is_a_scope_race() {
    flag_publishes::<Block>();
}

/// Block 0 publishes through a heap word viewed with scope `S`; block 1 reads it through a
/// read-only view of the same scope.
fn read_only_view_acquires<S: PlainScope>() {
    model(|| {
        set_position(Position::host());
        let word = Heap::new(0u32);
        let data = Arc::new(Plain::new(0u32));
        let writer = {
            let data = data.clone();
            spawn_in(B0, move || {
                data.set(7);
                word.view::<S>().store(1, Release);
            })
        };
        let reader = spawn_in(B1, move || {
            let view = AtomicReadRef::from(word.view::<S>());
            spin_until(|| view.load(Acquire) == 1);
            assert_eq!(data.get(), 7);
        });
        writer.join().unwrap();
        reader.join().unwrap();
        // SAFETY: both threads that viewed the word have been joined.
        assert_eq!(unsafe { word.free() }, 1);
    });
}

#[test]
fn read_only_view_acquires_at_device_scope() {
    read_only_view_acquires::<Device>();
}

#[test]
#[should_panic(expected = "scope race")]
fn read_only_view_at_block_scope_across_blocks_is_a_scope_race() {
    read_only_view_acquires::<Block>();
}
