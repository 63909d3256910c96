//! 128-bit atomics under the loom mirror (issue 14): the mirror logs 128-bit values whole, so a
//! versioned 128-bit word publishes data between blocks at device scope, is reported as a scope
//! race at block scope, and views of caller-owned `u128` memory (`AtomicRef::from_ptr`) write
//! through all 16 bytes.
#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{Heap, Plain, model, spin_until};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{Atomic, Block, Device, Ordering::*, PlainScope};

const B0: Position = Position::gpu(0, 0);
const B1: Position = Position::gpu(0, 1);

/// The word: version in the high half, payload in the low half.
const fn word(version: u64, payload: u64) -> u128 {
    ((version as u128) << 64) | payload as u128
}

/// Block 0 writes plain data, then bumps the version of a 128-bit word of scope `S` with a
/// release compare-exchange; block 1 waits for version 1 with acquire loads and reads the data
/// and the payload.
fn versioned_publish<S: PlainScope>() {
    model(|| {
        set_position(Position::host());
        let slot = Arc::new(Atomic::<u128, S>::new(word(0, u64::MAX)));
        let data = Arc::new(Plain::new(0u32));
        let writer = {
            let (slot, data) = (slot.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(42);
                let old = slot.load(Relaxed);
                // The carry out of the low half must reach the version: a 128-bit add.
                let new = old.wrapping_add(1) | 7;
                assert_eq!(slot.compare_exchange(old, new, Release, Relaxed), Ok(old));
            })
        };
        let reader = spawn_in(B1, move || {
            spin_until(|| slot.load(Acquire) >> 64 == 1);
            assert_eq!(data.get(), 42);
            assert_eq!(slot.load(Relaxed), word(1, 7));
        });
        writer.join().unwrap();
        reader.join().unwrap();
    });
}

#[test]
fn versioned_128_bit_word_publishes_at_device_scope() {
    versioned_publish::<Device>();
}

#[test]
#[should_panic(expected = "scope race")]
fn versioned_128_bit_word_at_block_scope_across_blocks_is_a_scope_race() {
    versioned_publish::<Block>();
}

/// Two blocks update one caller-owned `i128` through `AtomicRef` views at device scope; the
/// memory holds the whole 128-bit result afterwards.
#[test]
fn views_of_i128_memory_write_through_all_16_bytes() {
    model(|| {
        set_position(Position::host());
        let cell = Heap::new(-1i128);
        let hs: Vec<_> = [(B0, 1i128 << 100), (B1, 3)]
            .into_iter()
            .map(|(p, v)| {
                spawn_in(p, move || {
                    cell.view::<Device>().fetch_add(v, AcqRel);
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        // SAFETY: both threads that viewed the cell have been joined.
        assert_eq!(unsafe { cell.free() }, (1i128 << 100) + 2);
    });
}
