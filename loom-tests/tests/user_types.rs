//! Issue 25, item 5, under the loom mirror: an `Atomic<Pair, S>` over a user's 8-byte
//! `#[repr(C)]` pair, updated by compare-exchange from two blocks and publishing plain data:
//! correct at device scope, a scope race at block scope across blocks, as for a `u64`.
#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{Plain, model, spin_until};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{Atomic, AtomicValue, Block, Device, Ordering::*, PlainScope};

#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::NoUninit)]
#[repr(C)]
struct Pair {
    version: u32,
    value: u32,
}

impl AtomicValue for Pair {
    type Bits = u64;
}

const B0: Position = Position::gpu(0, 0);
const B1: Position = Position::gpu(0, 1);

/// Block 0 writes plain data and bumps the pair's version with a release compare-exchange;
/// block 1 spins until it sees the new version (acquire) and reads the data.
fn pair_publishes<S: PlainScope>() {
    model(pair_body::<S>);
}

fn pair_body<S: PlainScope>() {
    {
        set_position(Position::host());
        let pair = Arc::new(Atomic::<Pair, S>::new(Pair::default()));
        let data = Arc::new(Plain::new(0u32));
        let writer = {
            let (pair, data) = (pair.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(42);
                let next = Pair {
                    version: 1,
                    value: 7,
                };
                assert_eq!(
                    pair.compare_exchange(Pair::default(), next, Release, Relaxed),
                    Ok(Pair::default())
                );
            })
        };
        let reader = spawn_in(B1, move || {
            spin_until(|| pair.load(Acquire).version == 1);
            assert_eq!(
                pair.load(Relaxed),
                Pair {
                    version: 1,
                    value: 7
                }
            );
            assert_eq!(data.get(), 42);
        });
        writer.join().unwrap();
        reader.join().unwrap();
    }
}

#[test]
fn a_user_pair_publishes_at_device_scope() {
    pair_publishes::<Device>();
}

#[test]
#[should_panic(expected = "scope race")]
fn a_user_pair_at_block_scope_across_blocks_is_a_scope_race() {
    pair_publishes::<Block>();
}

/// Issue 25, item 2: the report names the user's lines of both operations (`#[track_caller]`
/// through the front and the mirror), not the library's.
#[test]
fn a_scope_race_report_names_the_lines_of_both_operations() {
    let failure = loom_tests::expect_failure(pair_body::<Block>);
    let m = &failure.message;
    assert!(m.contains("scope race on `Atomic<"), "{m}");
    assert_eq!(m.matches("tests/user_types.rs:").count(), 2, "{m}");
    assert!(!m.contains("atomics/src/"), "{m}");
}
