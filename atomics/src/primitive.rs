//! The value types an [`Atomic`](crate::Atomic) can hold, and the backend storage of each.

use crate::imp::Storage;

mod sealed {
    pub trait Sealed {}
}

/// A type that [`Atomic<T, S>`](crate::Atomic) can hold: `bool`, the integers `u8` … `u64`,
/// `i8` … `i64`, `usize`, `isize`, the floats `f32` and `f64`, and raw pointers `*mut U`.
///
/// Sealed. `Atomic<T, S>` has the size and alignment of the `core::sync::atomic` type of the same
/// width (`AtomicU32` for `u32` and `f32`, `AtomicPtr<U>` for `*mut U`, …).
///
/// ```
/// use scoped_atomics::{Atomic, AtomicPrimitive, Device};
/// fn zeroed<T: AtomicPrimitive + Default>() -> T { T::default() }
/// assert_eq!(zeroed::<u32>(), 0);
/// assert_eq!(core::mem::size_of::<Atomic<f64, Device>>(), 8);
/// ```
pub trait AtomicPrimitive: Copy + sealed::Sealed {
    /// The backend's storage: a `core::sync::atomic` type on the host and on the device, a loom
    /// atomic under `--cfg loom`.
    #[doc(hidden)]
    type Storage;

    /// The loom mirror's location for the value at `ptr` (see `AtomicRef::from_ptr`).
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes of `Self` while the result is used.
    #[cfg(loom)]
    #[doc(hidden)]
    unsafe fn mirror_view<'a>(ptr: *mut Self) -> &'a Self::Storage;
}

macro_rules! primitives {
    ($($t:ty => $storage:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicPrimitive for $t {
            type Storage = Storage::$storage;
            #[cfg(loom)]
            unsafe fn mirror_view<'a>(ptr: *mut Self) -> &'a Self::Storage {
                // SAFETY: the caller's contract.
                unsafe { crate::imp::view(ptr.cast()) }
            }
        }
    )*};
}

primitives! {
    bool => Bool,
    u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, u64 => U64, i64 => I64,
    usize => Usize, isize => Isize,
    f32 => F32, f64 => F64,
}

impl<U> sealed::Sealed for *mut U {}
impl<U> AtomicPrimitive for *mut U {
    type Storage = Storage::Ptr<U>;
    #[cfg(loom)]
    unsafe fn mirror_view<'a>(ptr: *mut Self) -> &'a Self::Storage {
        // SAFETY: the caller's contract.
        unsafe { crate::imp::view(ptr) }
    }
}
