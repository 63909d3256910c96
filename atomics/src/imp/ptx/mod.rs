//! The device backend: every operation is the recommended sequence of the PTX Atomics ABI
//! ([`table`]) emitted through inline `asm!` ([`asm`]).
//!
//! Storage is `core::sync::atomic`'s types, used only for their layout and `as_ptr`; every access
//! is ours. How each value type maps:
//!
//! * 32- and 64-bit integers, pointers, floats: one instruction per operation (`ld`, `st`,
//!   `atom.exch`, `atom.cas`, `atom.add`/`and`/`or`/`xor`/`min`/`max`; `fetch_sub` adds the
//!   negation; floats add with `atom.add.f32`/`.f64`). `fetch_nand` and float `fetch_min`/`fetch_max`,
//!   which PTX lacks, are compare-and-swap loops.
//! * 16-bit integers: `ld`/`st`/`atom.cas` `.b16`; every other read-modify-write is an
//!   `atom.cas.b16` loop (PTX has no 16-bit `atom.exch` or arithmetic).
//! * 128-bit integers: `ld`/`st` `.b128`, `atom.exch.b128` and `atom.cas.b128`; every other
//!   read-modify-write is an `atom.cas.b128` loop. A build for a target without them fails at
//!   compile time where an operation is used (`asm::Wide128Available`).
//! * 8-bit integers and `bool`: everything goes through the aligned 32-bit word that holds the
//!   byte, so a location is never accessed at two sizes: loads are `ld.b32` of the word, `and`/`or`/
//!   `xor` one masked `atom.<op>.b32`, stores and the other read-modify-writes `atom.cas.b32` loops.
//!
//! Every compare-and-swap loop starts with a strong `ld.relaxed` and carries the ordering on its
//! `atom.cas`; a compare-exchange never reports failure from that relaxed load, only from an
//! `atom.cas` whose `.sem` covers the failure ordering.

mod asm;
mod half_bits;
pub(crate) mod plain_space;
pub(crate) use asm::word_after;
mod table;

use super::{RawAtomic, RawBool, RawFloat, RawInt, RawIntReduce, RawPtr, RawReduce};
use crate::Scope;
use asm::*;
use core::sync::atomic::Ordering;
use table::{Fence, Mapped, Sem};

pub(crate) use super::core_storage as storage;
pub(crate) use storage as Storage;

/// A value type and the unsigned word of its width that PTX operates on.
trait Bits: Copy {
    type W: Copy + Eq;
    fn to_w(self) -> Self::W;
    fn from_w(w: Self::W) -> Self;
}

macro_rules! bits {
    ($($t:ty => $w:ty: |$a:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl Bits for $t {
            type W = $w;
            #[inline(always)]
            fn to_w(self) -> $w { let $a = self; $to }
            #[inline(always)]
            fn from_w(w: $w) -> Self { let $b = w; $from }
        }
    )*};
}

bits! {
    bool => u8: |v| v as u8, |w| w != 0;
    u8 => u8: |v| v, |w| w;
    i8 => u8: |v| v as u8, |w| w as i8;
    u16 => u16: |v| v, |w| w;
    i16 => u16: |v| v as u16, |w| w as i16;
    u32 => u32: |v| v, |w| w;
    i32 => u32: |v| v as u32, |w| w as i32;
    u64 => u64: |v| v, |w| w;
    i64 => u64: |v| v as u64, |w| w as i64;
    u128 => u128: |v| v, |w| w;
    i128 => u128: |v| v as u128, |w| w as i128;
    usize => u64: |v| v as u64, |w| w as usize;
    isize => u64: |v| v as u64, |w| w as isize;
    f32 => u32: |v| v.to_bits(), |w| f32::from_bits(w);
    f64 => u64: |v| v.to_bits(), |w| f64::from_bits(w);
    half::f16 => u16: |v| v.to_bits(), |w| half::f16::from_bits(w);
    half::bf16 => u16: |v| v.to_bits(), |w| half::bf16::from_bits(w);
}

impl<U> Bits for *mut U {
    type W = u64;
    #[inline(always)]
    fn to_w(self) -> u64 {
        self.expose_provenance() as u64
    }
    #[inline(always)]
    fn from_w(w: u64) -> Self {
        core::ptr::with_exposed_provenance_mut(w as usize)
    }
}

/// Runs one row of the table: the leading `fence.sc` if any, then `op` with the row's `.sem`.
#[inline(always)]
fn mapped<S: Scope, R>(row: Mapped, op: impl FnOnce(Sem) -> R) -> R {
    if row.fence_sc {
        fence_sc::<S>();
    }
    op(row.sem)
}

/// Operations on a location accessed at its own width (16, 32, 64 or 128 bits).
mod native {
    use super::*;

    #[inline(always)]
    pub(super) unsafe fn load<S: Scope, T: Bits<W: Width>>(p: *mut T, order: Ordering) -> T {
        // SAFETY: `p` is the storage of a live atomic (callers: `as_ptr` of `&self`).
        T::from_w(mapped::<S, _>(table::load(order), |sem| unsafe {
            T::W::ld::<S>(p.cast(), sem)
        }))
    }

    #[inline(always)]
    pub(super) unsafe fn store<S: Scope, T: Bits<W: Width>>(p: *mut T, value: T, order: Ordering) {
        // SAFETY: as for `load`.
        mapped::<S, _>(table::store(order), |sem| unsafe {
            T::W::st::<S>(p.cast(), value.to_w(), sem)
        })
    }

    #[inline(always)]
    pub(super) unsafe fn compare_exchange<S: Scope, T: Bits<W: Width>>(
        p: *mut T,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        let expected = current.to_w();
        let row = table::compare_exchange(success, failure);
        // SAFETY: as for `load`.
        let old = mapped::<S, _>(row, |sem| unsafe {
            T::W::cas::<S>(p.cast(), expected, new.to_w(), sem)
        });
        if old == expected {
            Ok(T::from_w(old))
        } else {
            Err(T::from_w(old))
        }
    }

    /// A read-modify-write PTX lacks: `ld.relaxed`, then `atom.cas` with the order's `.sem`
    /// until it stores `f(previous)`. Returns the previous value.
    #[inline(always)]
    pub(super) unsafe fn update<S: Scope, T: Bits<W: Width>>(
        p: *mut T,
        row: Mapped,
        mut f: impl FnMut(T) -> T,
    ) -> T {
        let p = p.cast::<T::W>();
        mapped::<S, _>(row, |sem| {
            // SAFETY: as for `load`.
            let mut current = unsafe { T::W::ld_before_cas::<S>(p) };
            loop {
                let new = f(T::from_w(current)).to_w();
                // SAFETY: as for `load`.
                let old = unsafe { T::W::cas::<S>(p, current, new, sem) };
                if old == current {
                    return T::from_w(old);
                }
                current = old;
            }
        })
    }
}

/// Operations on an 8-bit value through the aligned 32-bit word that contains it.
mod byte {
    use super::*;

    /// The containing word and the bit position of the byte in it (PTX is little-endian).
    #[inline(always)]
    fn slot<T>(p: *mut T) -> (*mut u32, u32) {
        let offset = p.addr() & 3;
        (
            p.cast::<u8>().wrapping_sub(offset).cast::<u32>(),
            offset as u32 * 8,
        )
    }

    #[inline(always)]
    fn get(word: u32, shift: u32) -> u8 {
        (word >> shift) as u8
    }

    #[inline(always)]
    fn put(word: u32, shift: u32, byte: u8) -> u32 {
        (word & !(0xff << shift)) | ((byte as u32) << shift)
    }

    #[inline(always)]
    pub(super) unsafe fn load<S: Scope, T: Bits<W = u8>>(p: *mut T, order: Ordering) -> T {
        let (word, shift) = slot(p);
        // SAFETY: the aligned word containing a live atomic byte is valid memory: allocations
        // on the device are at least word-granular (see the crate docs on 8-bit atomics).
        let w = mapped::<S, _>(table::load(order), |sem| unsafe { u32::ld::<S>(word, sem) });
        T::from_w(get(w, shift))
    }

    /// Stores `f(previous)` into the byte with an `atom.cas.b32` loop on the word, keeping the
    /// other bytes as they are at the moment of the swap. Returns the previous value.
    #[inline(always)]
    pub(super) unsafe fn update<S: Scope, T: Bits<W = u8>>(
        p: *mut T,
        row: Mapped,
        mut f: impl FnMut(T) -> T,
    ) -> T {
        let (word, shift) = slot(p);
        mapped::<S, _>(row, |sem| {
            // SAFETY: as for `load`.
            let mut current = unsafe { u32::ld::<S>(word, Sem::Relaxed) };
            loop {
                let previous = T::from_w(get(current, shift));
                let new = put(current, shift, f(previous).to_w());
                // SAFETY: as for `load`.
                let old = unsafe { u32::cas::<S>(word, current, new, sem) };
                if old == current {
                    return previous;
                }
                current = old;
            }
        })
    }

    #[inline(always)]
    pub(super) unsafe fn compare_exchange<S: Scope, T: Bits<W = u8>>(
        p: *mut T,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        let (word, shift) = slot(p);
        let (expected, new) = (current.to_w(), new.to_w());
        mapped::<S, _>(table::compare_exchange(success, failure), |sem| {
            // SAFETY: as for `load`.
            let mut seen = unsafe { u32::ld::<S>(word, Sem::Relaxed) };
            loop {
                let want = put(seen, shift, expected);
                // SAFETY: as for `load`.
                let old = unsafe { u32::cas::<S>(word, want, put(seen, shift, new), sem) };
                if old == want {
                    return Ok(current);
                }
                if get(old, shift) != expected {
                    // Decided by the `atom.cas`, whose `.sem` covers the failure ordering.
                    return Err(T::from_w(get(old, shift)));
                }
                seen = old; // only a neighbouring byte changed: try again
            }
        })
    }

    /// `and`/`or`/`xor` as one `atom.<op>.b32` on the word, with a mask that leaves the other
    /// bytes unchanged.
    #[inline(always)]
    pub(super) unsafe fn bitwise<S: Scope, T: Bits<W = u8>>(
        p: *mut T,
        value: T,
        order: Ordering,
        op: Bitwise,
    ) -> T {
        let (word, shift) = slot(p);
        let bits = (value.to_w() as u32) << shift;
        // SAFETY: as for `load`.
        let old = mapped::<S, _>(table::rmw(order), |sem| unsafe {
            match op {
                Bitwise::And => atom_and_b32::<S>(word, bits | !(0xff << shift), sem),
                Bitwise::Or => atom_or_b32::<S>(word, bits, sem),
                Bitwise::Xor => atom_xor_b32::<S>(word, bits, sem),
            }
        });
        T::from_w(get(old, shift))
    }

    #[derive(Clone, Copy)]
    pub(super) enum Bitwise {
        And,
        Or,
        Xor,
    }
}

mod ops;

/// `fence::<S>(order)`: the fence row of the table.
#[inline(always)]
#[track_caller]
pub(crate) fn fence<S: Scope>(order: Ordering) {
    match table::fence::<S>(order) {
        Fence::Compiler => compiler_barrier(),
        Fence::Sc => fence_sc::<S>(),
        Fence::AcqRel => fence_acq_rel::<S>(),
        #[cfg(all(target_feature = "sm_90", ptx_isa_at_least = "86"))]
        Fence::Acquire => fence_acquire::<S>(),
        #[cfg(all(target_feature = "sm_90", ptx_isa_at_least = "86"))]
        Fence::Release => fence_release::<S>(),
        #[cfg(not(all(target_feature = "sm_90", ptx_isa_at_least = "86")))]
        Fence::Acquire | Fence::Release => fence_acq_rel::<S>(),
    }
}

/// `compiler_fence(order)`: an empty `asm!` that may touch memory. `core`'s version makes LLVM
/// abort on nvptx64 ("Unsupported scope").
#[inline(always)]
#[track_caller]
pub(crate) fn compiler_fence(order: Ordering) {
    crate::ordering::check_fence(order);
    compiler_barrier()
}
