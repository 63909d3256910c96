//! `Atomic<*mut U, S>`: `core::sync::atomic::AtomicPtr<U>` with a scope.

use super::Atomic;
use crate::Scope;
use crate::imp::{RawPtr, Storage};

impl<U, S: Scope> Atomic<*mut U, S> {
    /// Offsets the pointer by `count` elements of `U` (wrapping, keeping provenance) and returns
    /// the previous pointer.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut array = [0u64; 4];
    /// let a = Atomic::<*mut u64, Device>::new(array.as_mut_ptr());
    /// assert_eq!(a.fetch_ptr_add(3, Ordering::AcqRel), array.as_mut_ptr());
    /// assert_eq!(a.load(Ordering::Relaxed), array.as_mut_ptr().wrapping_add(3));
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_ptr_add(&self, count: usize, order: core::sync::atomic::Ordering) -> *mut U {
        self.fetch_byte_add(count.wrapping_mul(core::mem::size_of::<U>()), order)
    }

    /// Offsets the pointer back by `count` elements of `U` (wrapping) and returns the previous
    /// pointer.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut array = [0u64; 4];
    /// let end = array.as_mut_ptr().wrapping_add(4);
    /// let a = Atomic::<*mut u64, Device>::new(end);
    /// assert_eq!(a.fetch_ptr_sub(4, Ordering::AcqRel), end);
    /// assert_eq!(a.load(Ordering::Relaxed), array.as_mut_ptr());
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_ptr_sub(&self, count: usize, order: core::sync::atomic::Ordering) -> *mut U {
        self.fetch_byte_sub(count.wrapping_mul(core::mem::size_of::<U>()), order)
    }

    /// Offsets the pointer by `bytes` bytes (wrapping) and returns the previous pointer.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut array = [0u32; 4];
    /// let a = Atomic::<*mut u32, Device>::new(array.as_mut_ptr());
    /// a.fetch_byte_add(8, Ordering::AcqRel);
    /// assert_eq!(a.load(Ordering::Relaxed), array.as_mut_ptr().wrapping_add(2));
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_byte_add(&self, bytes: usize, order: core::sync::atomic::Ordering) -> *mut U {
        <Storage::Ptr<U> as RawPtr<U>>::fetch_byte_add::<S>(&self.inner, bytes, order)
    }

    /// Offsets the pointer back by `bytes` bytes (wrapping) and returns the previous pointer.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut array = [0u32; 4];
    /// let a = Atomic::<*mut u32, Device>::new(array.as_mut_ptr().wrapping_add(2));
    /// a.fetch_byte_sub(8, Ordering::AcqRel);
    /// assert_eq!(a.load(Ordering::Relaxed), array.as_mut_ptr());
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_byte_sub(&self, bytes: usize, order: core::sync::atomic::Ordering) -> *mut U {
        <Storage::Ptr<U> as RawPtr<U>>::fetch_byte_sub::<S>(&self.inner, bytes, order)
    }
}

macro_rules! address_ops {
    ($($(#[$doc:meta])* $name:ident => $raw:ident, $tag:literal, $result:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// ```
        /// use scoped_atomics::{Atomic, Device, Ordering};
        /// let mut x = 0u64; // 8-byte aligned: the low 3 address bits are free for tags
        /// let p: *mut u64 = &mut x;
        /// let a = Atomic::<*mut u64, Device>::new(p.map_addr(|a| a | 1));
        #[doc = concat!("a.", stringify!($name), "(", $tag, ", Ordering::AcqRel);")]
        #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed).addr(), ", $result, ");")]
        /// ```
        #[inline(always)]
        pub fn $name(&self, value: usize, order: core::sync::atomic::Ordering) -> *mut U {
            <Storage::Ptr<U> as RawPtr<U>>::$raw::<S>(&self.inner, value, order)
        }
    )*};
}

impl<U, S: Scope> Atomic<*mut U, S> {
    address_ops! {
        /// Bitwise "and" of the address with `value`, keeping the pointer's provenance (tagged
        /// pointers: clear tag bits); returns the previous pointer.
        fetch_and => fetch_addr_and, "!1", "p.addr()";
        /// Bitwise "or" of the address with `value`, keeping the pointer's provenance (tagged
        /// pointers: set tag bits); returns the previous pointer.
        fetch_or => fetch_addr_or, "2", "p.addr() | 3";
        /// Bitwise "xor" of the address with `value`, keeping the pointer's provenance (tagged
        /// pointers: toggle tag bits); returns the previous pointer.
        fetch_xor => fetch_addr_xor, "1", "p.addr()";
    }
}

impl<U, S: Scope> core::fmt::Pointer for Atomic<*mut U, S> {
    /// Formats the pointer as `core`'s `AtomicPtr` does: a relaxed load, formatted with `{:p}`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Pointer::fmt(&self.load(core::sync::atomic::Ordering::Relaxed), f)
    }
}
