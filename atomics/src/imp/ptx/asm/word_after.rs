//! The 32-bit atomic word 8 bytes after a 64-bit one, reached from the first word's address:
//! `ld`, `st`, `red.add` and `red.inc` of `[p+8]`, the ABI table's rows with an immediate offset.
//!
//! A `Barrier` is two words, `#[repr(C)]`: the count word, then the phase word (libcu++'s device
//! barrier is one word). Every path of the barrier touches the count word first; addressing the
//! phase word from the count word's register lets ptxas use its register-plus-offset form instead
//! of an `add` of the address in every path (and an increment by 1 takes an immediate, not a
//! `mov` to a register). The instructions are the table's rows for the order, as
//! `Atomic<u32, S>`'s own operations would emit them, on the same location.

use super::super::mapped;
use super::super::table::{self, Sem};
use super::{ScopeAvailable, in_space, trap};
use crate::{Scope, ScopeKind, StateSpace};
use core::arch::asm;
use core::sync::atomic::Ordering;

/// `ld.<sem>.S.b32` of the word at `first + 8` (the table's load row for `order`).
///
/// # Safety
/// `first` is the address of a live `Atomic<u64, S>` followed, 8 bytes on, by a live
/// `Atomic<u32, S>` (a `#[repr(C)]` pair).
#[inline(always)]
pub(crate) unsafe fn load<S: Scope>(first: *mut u64, order: Ordering) -> u32 {
    let p = in_space::<S, _>(first);
    mapped::<S, _>(table::load(order), |sem| {
        let value: u32;
        // SAFETY: the caller's contract; `readonly` for the relaxed load as `Width::ld`'s.
        unsafe {
            match sem {
                Sem::Relaxed => scoped_asm!(S, sem, "ld" [Relaxed "relaxed"],
                    ".b32 {v}, [{p}+8];",
                    (v = out(reg32) value, p = in(reg64) p, options(readonly, nostack))),
                _ => scoped_asm!(S, sem, "ld" [Acquire "acquire"],
                    ".b32 {v}, [{p}+8];",
                    (v = out(reg32) value, p = in(reg64) p, options(nostack))),
            }
        }
        value
    })
}

/// `st.<sem>.S.b32` of `value` to the word at `first + 8` (the table's store row for `order`).
///
/// # Safety
/// As for [`load`].
#[inline(always)]
pub(crate) unsafe fn store<S: Scope>(first: *mut u64, value: u32, order: Ordering) {
    let p = in_space::<S, _>(first);
    mapped::<S, _>(table::store(order), |sem| {
        // SAFETY: the caller's contract.
        unsafe {
            scoped_asm!(S, sem, "st" [Relaxed "relaxed", Release "release"],
                ".b32 [{p}+8], {v};",
                (p = in(reg64) p, v = in(reg32) value, options(nostack)))
        }
    })
}

/// `red.<sem>.S.add.u32` of 1 to the word at `first + 8` (the table's reduction row for
/// `order`, the `1` an immediate).
///
/// # Safety
/// As for [`load`].
#[inline(always)]
pub(crate) unsafe fn increment<S: Scope>(first: *mut u64, order: Ordering) {
    let p = in_space::<S, _>(first);
    mapped::<S, _>(table::reduction(order), |sem| {
        // SAFETY: the caller's contract.
        unsafe {
            scoped_asm!(S, sem, "red" [Relaxed "relaxed", Release "release"],
                ".add.u32 [{p}+8], 1;",
                (p = in(reg64) p, options(nostack)))
        }
    })
}

/// `red.<sem>.S.inc.u32` of the word at `first + 8` with the bound `2³¹ − 1`: the word becomes
/// `old + 1`, or 0 after `2³¹ − 1` (PTX `inc`: `old >= bound ? 0 : old + 1`) — the phase of a
/// `Barrier<Block>`, which wraps below its hardware mark (bit 31), advanced in one reduction
/// instead of an `add`, an `and` and a store. The table's reduction row for `order`.
///
/// # Safety
/// As for [`load`].
#[inline(always)]
pub(crate) unsafe fn increment_below_bit_31<S: Scope>(first: *mut u64, order: Ordering) {
    let p = in_space::<S, _>(first);
    mapped::<S, _>(table::reduction(order), |sem| {
        // SAFETY: the caller's contract.
        unsafe {
            scoped_asm!(S, sem, "red" [Relaxed "relaxed", Release "release"],
                ".inc.u32 [{p}+8], 2147483647;",
                (p = in(reg64) p, options(nostack)))
        }
    })
}
