//! Atomics over the user's own types: `cuda::atomic<T>` for a trivially copyable `T` of 1, 2, 4,
//! 8 or 16 bytes. The value travels as the bits of the unsigned integer of its size, through that
//! integer's storage and operations, so each backend runs exactly what it runs for the integer:
//! the same PTX on the device, `core`'s (portable-atomic's for 16 bytes) on the host, the same
//! mirror location under loom.

use crate::AtomicPrimitive;
#[cfg(not(loom))]
use crate::Scope;
#[cfg(not(loom))]
use crate::imp::{RawAtomic, Storage};
#[cfg(not(loom))]
use core::sync::atomic::Ordering;

/// A type of the user's that [`Atomic<T, S>`](crate::Atomic) and
/// [`AtomicRef`](crate::AtomicRef) can hold, as `cuda::atomic<T>` holds any trivially copyable
/// `T`: `load`, `store`, `swap`, `compare_exchange` (and `_weak`), `fetch_update`, `wait` and
/// `notify_*`, with the orderings and scopes of every other atomic.
///
/// What makes it sound is checked, not promised: `T` is [`bytemuck::NoUninit`] (its derive
/// proves at compile time that `T` is `Copy`, `'static` and has no padding, so every byte of a
/// value is initialised and the value *is* its bits), and `Bits`, the unsigned integer of
/// `T`'s size (`u8`, `u16`, `u32`, `u64` or `u128`), has exactly `T`'s size (a compile-time
/// error otherwise). `T`'s own alignment may be smaller: an `Atomic<T, S>` is aligned as the
/// integer (`from_mut` compiles only where `T` is as aligned, as for `u64` on 32-bit x86).
///
/// As in C++, `compare_exchange` and `wait` compare the **bits** of the values (not
/// `PartialEq`). A 16-byte type has the 128-bit atomics' requirements on the device (PTX ISA 8.3
/// for `load`/`store`, sm_90 for the read-modify-writes).
///
/// ```
/// use scoped_atomics::{Atomic, AtomicValue, Device, Ordering::*};
///
/// #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::NoUninit)]
/// #[repr(C)]
/// struct Pair {
///     version: u32,
///     value: u32,
/// }
///
/// impl AtomicValue for Pair {
///     type Bits = u64;
/// }
///
/// // Updated as one 64-bit word: `atom.acq_rel.gpu.cas.b64` on the device.
/// let slot = Atomic::<Pair, Device>::new(Pair { version: 0, value: 7 });
/// let old = slot.load(Acquire);
/// let new = Pair { version: old.version + 1, value: 9 };
/// assert_eq!(slot.compare_exchange(old, new, AcqRel, Acquire), Ok(old));
/// assert_eq!(slot.compare_exchange(old, new, AcqRel, Acquire), Err(new));
/// assert_eq!(slot.swap(Pair::default(), Relaxed), new);
/// assert_eq!(core::mem::size_of::<Atomic<Pair, Device>>(), 8);
/// ```
///
/// A type with padding is refused by `NoUninit`'s derive:
///
/// ```compile_fail
/// #[derive(Clone, Copy, Default, bytemuck::NoUninit)]
/// #[repr(C)]
/// struct Padded { tag: u8, value: u32 } // three bytes of padding after `tag`
/// impl scoped_atomics::AtomicValue for Padded { type Bits = u64; }
/// ```
///
/// and a `Bits` of another size by the first use:
///
/// ```compile_fail,E0080
/// use scoped_atomics::{Atomic, AtomicValue, Device, Ordering};
/// #[derive(Clone, Copy, Default, bytemuck::NoUninit)]
/// #[repr(C)]
/// struct Rgb { r: u16, g: u16, b: u16 } // 6 bytes
/// impl AtomicValue for Rgb { type Bits = u64; }
/// let c = Atomic::<Rgb, Device>::new(Rgb::default());
/// let _ = c.load(Ordering::Relaxed);
/// ```
pub trait AtomicValue: bytemuck::NoUninit + Default {
    /// The unsigned integer of `Self`'s size that holds its bits: `u8`, `u16`, `u32`, `u64`
    /// or `u128`.
    type Bits: ValueBits;
}

/// The integers that hold an [`AtomicValue`]'s bits: `u8`, `u16`, `u32`, `u64`, `u128`. Sealed.
pub trait ValueBits: AtomicPrimitive + bytemuck::Pod + Eq + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! value_bits {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ValueBits for $t {}
    )*};
}
value_bits!(u8, u16, u32, u64, u128);

/// Stops, at compile time, a `Bits` whose size is not the value's.
struct SameSize<T>(core::marker::PhantomData<T>);

impl<T: AtomicValue> SameSize<T> {
    const CHECK: () = assert!(
        core::mem::size_of::<T>() == core::mem::size_of::<T::Bits>(),
        "scoped-atomics: an AtomicValue's `Bits` must have the value's size (1, 2, 4, 8 or 16 bytes)"
    );
}

/// The bits of `value`.
#[inline(always)]
pub(crate) fn to_bits<T: AtomicValue>(value: T) -> T::Bits {
    let () = SameSize::<T>::CHECK;
    // `NoUninit` to `Pod` of the same size (checked above, so bytemuck's run-time size check
    // folds away).
    bytemuck::cast(value)
}

/// The value whose bits are `bits`.
#[inline(always)]
pub(crate) fn from_bits<T: AtomicValue>(bits: T::Bits) -> T {
    let () = SameSize::<T>::CHECK;
    // SAFETY: same size (checked above), and every `Bits` an atomic of `T` holds or returns
    // came from a `T` (`new`, `store`, `swap`, `compare_exchange` take `T`s; `from_ptr` and
    // `AtomicRef` are given memory holding a `T`): these bits are a valid `T`. `transmute_copy`
    // reads unaligned where `T` is more aligned than `Bits`.
    unsafe { core::mem::transmute_copy::<T::Bits, T>(&bits) }
}

/// `RawAtomic<T>` on the storage of `T::Bits` (host and device): the integer's operations on
/// the bits.
#[cfg(not(loom))]
macro_rules! value_storage {
    ($($bits:ty => $storage:ident),*) => {$(
        impl<T: AtomicValue<Bits = $bits>> RawAtomic<T> for Storage::$storage {
            #[inline(always)]
            fn load<S: Scope>(&self, order: Ordering) -> T {
                from_bits(<Self as RawAtomic<$bits>>::load::<S>(self, order))
            }
            #[inline(always)]
            fn store<S: Scope>(&self, value: T, order: Ordering) {
                <Self as RawAtomic<$bits>>::store::<S>(self, to_bits(value), order)
            }
            #[inline(always)]
            fn swap<S: Scope>(&self, value: T, order: Ordering) -> T {
                from_bits(<Self as RawAtomic<$bits>>::swap::<S>(self, to_bits(value), order))
            }
            #[inline(always)]
            fn compare_exchange<S: Scope>(
                &self,
                current: T,
                new: T,
                success: Ordering,
                failure: Ordering,
            ) -> Result<T, T> {
                <Self as RawAtomic<$bits>>::compare_exchange::<S>(
                    self, to_bits(current), to_bits(new), success, failure,
                )
                .map(from_bits)
                .map_err(from_bits)
            }
            #[inline(always)]
            fn compare_exchange_weak<S: Scope>(
                &self,
                current: T,
                new: T,
                success: Ordering,
                failure: Ordering,
            ) -> Result<T, T> {
                <Self as RawAtomic<$bits>>::compare_exchange_weak::<S>(
                    self, to_bits(current), to_bits(new), success, failure,
                )
                .map(from_bits)
                .map_err(from_bits)
            }
        }
    )*};
}

#[cfg(not(loom))]
value_storage!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, u128 => U128);
