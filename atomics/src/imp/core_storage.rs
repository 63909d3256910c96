//! The storage of the backends that use `core::sync::atomic`'s types for their layout: the host
//! backend (which also uses their operations) and the PTX backend (which uses only `as_ptr`).

use core::sync::atomic as a;
pub type Bool = a::AtomicBool;
pub type U8 = a::AtomicU8;
pub type I8 = a::AtomicI8;
pub type U16 = a::AtomicU16;
pub type I16 = a::AtomicI16;
pub type U32 = a::AtomicU32;
pub type I32 = a::AtomicI32;
pub type U64 = a::AtomicU64;
pub type I64 = a::AtomicI64;
pub type Usize = a::AtomicUsize;
pub type Isize = a::AtomicIsize;
pub type F32 = a::AtomicU32;
pub type F64 = a::AtomicU64;
pub type F16 = a::AtomicU16;
pub type Bf16 = a::AtomicU16;
pub type Ptr<U> = a::AtomicPtr<U>;

// 128 bits: `core` has no stable `AtomicU128`. On the host, portable-atomic's (same layout as
// `u128`, 16-byte aligned); on the device our own cell, which the PTX backend drives with
// `.b128` instructions.
// (Under `--cfg loom` the mirror's locations are the storage.)
#[cfg(not(any(target_arch = "nvptx64", loom)))]
pub type U128 = portable_atomic::AtomicU128;
#[cfg(not(any(target_arch = "nvptx64", loom)))]
pub type I128 = portable_atomic::AtomicI128;
#[cfg(target_arch = "nvptx64")]
pub type U128 = Cell128<u128>;
#[cfg(target_arch = "nvptx64")]
pub type I128 = Cell128<i128>;

/// A 16-byte aligned 128-bit location that is accessed only through the PTX backend's
/// instructions (`ld`/`st`/`atom` `.b128`).
#[cfg(target_arch = "nvptx64")]
#[repr(C, align(16))]
pub struct Cell128<T>(core::cell::UnsafeCell<T>);

// SAFETY: every access to the cell is one of the PTX backend's atomic instructions.
#[cfg(target_arch = "nvptx64")]
unsafe impl<T> Sync for Cell128<T> {}

#[cfg(target_arch = "nvptx64")]
impl<T> Cell128<T> {
    /// The location, for the PTX backend's instructions.
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut T {
        self.0.get()
    }
}
