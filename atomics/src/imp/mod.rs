//! The backends, and the one place that chooses between them.
//!
//! | build                         | backend      | storage of `Atomic<u32, S>`          |
//! |-------------------------------|--------------|--------------------------------------|
//! | `target_arch = "nvptx64"`     | [`ptx`]      | `core::sync::atomic::AtomicU32`, driven by inline `asm!` |
//! | `--cfg loom`                  | [`mirror`]   | a loom location with scope checks    |
//! | anything else                 | `host`       | `core::sync::atomic::AtomicU32`      |
//!
//! Every backend implements the `Raw*` traits below on its storage types; the typed front in
//! `crate::atomic` calls nothing else. The scope travels as a type parameter so that the PTX
//! backend can pick the qualifier and the loom mirror can check moral strength.

use crate::Scope;
use core::sync::atomic::Ordering;

pub(crate) mod core_storage;
#[cfg(target_arch = "nvptx64")]
mod ptx;
#[cfg(target_arch = "nvptx64")]
pub(crate) use ptx::{Storage, compiler_fence, fence, plain_space, word_after};

#[cfg(not(any(target_arch = "nvptx64", loom)))]
mod host;
#[cfg(not(any(target_arch = "nvptx64", loom)))]
pub(crate) use host::{Storage, compiler_fence, fence};

#[cfg(all(loom, not(target_arch = "nvptx64")))]
mod mirror;
#[cfg(all(loom, not(target_arch = "nvptx64")))]
pub(crate) use mirror::plain_access;
#[cfg(all(loom, not(target_arch = "nvptx64")))]
pub(crate) use mirror::topology::spin as loom_spin;
#[cfg(all(loom, not(target_arch = "nvptx64")))]
pub(crate) use mirror::{Storage, compiler_fence, fence, topology, view};

// The ABI table is plain data: its unit tests run on the host too.
#[cfg(all(test, not(target_arch = "nvptx64"), not(loom)))]
#[path = "ptx/half_bits.rs"]
mod ptx_half_bits;
#[cfg(all(test, not(target_arch = "nvptx64"), not(loom)))]
#[path = "ptx/table.rs"]
mod ptx_table;

/// Operations every atomic value type has.
#[doc(hidden)]
pub trait RawAtomic<T: Copy> {
    fn load<S: Scope>(&self, order: Ordering) -> T;
    fn store<S: Scope>(&self, value: T, order: Ordering);
    fn swap<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn compare_exchange<S: Scope>(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T>;
    fn compare_exchange_weak<S: Scope>(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T>;
}

/// Integer read-modify-writes (wrapping, as `core`).
#[doc(hidden)]
pub trait RawInt<T: Copy>: RawAtomic<T> {
    fn fetch_add<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_sub<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_and<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_nand<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_or<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_xor<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_min<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_max<S: Scope>(&self, value: T, order: Ordering) -> T;
}

/// Reductions: read-modify-writes whose result is not returned (PTX `red`). Orderings are checked
/// by the front (`Relaxed` or `Release` only).
#[doc(hidden)]
pub trait RawReduce<T: Copy>: RawAtomic<T> {
    fn reduce_add<S: Scope>(&self, value: T, order: Ordering);
    fn reduce_sub<S: Scope>(&self, value: T, order: Ordering);
}

/// Bitwise and min/max reductions, for 32- and 64-bit integers.
#[doc(hidden)]
pub trait RawIntReduce<T: Copy>: RawReduce<T> {
    fn reduce_and<S: Scope>(&self, value: T, order: Ordering);
    fn reduce_or<S: Scope>(&self, value: T, order: Ordering);
    fn reduce_xor<S: Scope>(&self, value: T, order: Ordering);
    fn reduce_min<S: Scope>(&self, value: T, order: Ordering);
    fn reduce_max<S: Scope>(&self, value: T, order: Ordering);
}

/// Boolean read-modify-writes.
#[doc(hidden)]
pub trait RawBool: RawAtomic<bool> {
    fn fetch_and<S: Scope>(&self, value: bool, order: Ordering) -> bool;
    fn fetch_nand<S: Scope>(&self, value: bool, order: Ordering) -> bool;
    fn fetch_or<S: Scope>(&self, value: bool, order: Ordering) -> bool;
    fn fetch_xor<S: Scope>(&self, value: bool, order: Ordering) -> bool;
}

/// Floating-point read-modify-writes. `fetch_min`/`fetch_max` follow `f32::min`/`f32::max`.
#[doc(hidden)]
pub trait RawFloat<T: Copy>: RawAtomic<T> {
    fn fetch_add<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_sub<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_min<S: Scope>(&self, value: T, order: Ordering) -> T;
    fn fetch_max<S: Scope>(&self, value: T, order: Ordering) -> T;
}

/// Pointer arithmetic read-modify-writes, in bytes (the front scales by the pointee size).
#[doc(hidden)]
pub trait RawPtr<U>: RawAtomic<*mut U> {
    fn fetch_byte_add<S: Scope>(&self, bytes: usize, order: Ordering) -> *mut U;
    fn fetch_byte_sub<S: Scope>(&self, bytes: usize, order: Ordering) -> *mut U;
    /// Bitwise operations on the address, keeping the provenance of the stored pointer.
    fn fetch_addr_and<S: Scope>(&self, value: usize, order: Ordering) -> *mut U;
    fn fetch_addr_or<S: Scope>(&self, value: usize, order: Ordering) -> *mut U;
    fn fetch_addr_xor<S: Scope>(&self, value: usize, order: Ordering) -> *mut U;
}
