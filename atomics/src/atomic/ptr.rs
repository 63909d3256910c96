//! `Atomic<*mut U, S>`: `core::sync::atomic::AtomicPtr<U>` with a scope.

use super::Atomic;
use crate::Scope;
use crate::imp::{RawPtr, Storage};

super::atomic_common! {
    impl[U, S: Scope] *mut U, storage Storage::Ptr<U>,
    example "*mut i32",
    setup "# let (mut x, mut y) = (1i32, 2i32);\n# let (p, q): (*mut i32, *mut i32) = (&mut x, &mut y);\n",
    values "p", "q",
    to_storage |v| v, from_storage |v| v,
}

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
    pub fn fetch_byte_sub(&self, bytes: usize, order: core::sync::atomic::Ordering) -> *mut U {
        <Storage::Ptr<U> as RawPtr<U>>::fetch_byte_sub::<S>(&self.inner, bytes, order)
    }
}

impl<U, S: Scope> Default for Atomic<*mut U, S> {
    /// An atomic holding a null pointer.
    fn default() -> Self {
        Self::new(core::ptr::null_mut())
    }
}

impl<U, S: Scope> core::fmt::Pointer for Atomic<*mut U, S> {
    /// Formats the pointer as `core`'s `AtomicPtr` does: a relaxed load, formatted with `{:p}`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Pointer::fmt(&self.load(core::sync::atomic::Ordering::Relaxed), f)
    }
}
