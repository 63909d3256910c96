//! Float atomics (`cuda::atomic<float>`): held as their bits in the integer atomic of the same
//! width.
//!
//! * `compare_exchange` and `compare_exchange_weak` compare **bits**: `-0.0` does not match `0.0`,
//!   and a NaN matches a NaN with the same bits.
//! * `fetch_min` / `fetch_max` follow [`f32::min`] / [`f32::max`]: a NaN operand is ignored (the
//!   other one is kept), and a NaN is stored only if both are NaN. On every backend they are a
//!   compare-exchange loop on the bits, so the result is the same on host and device.
//! * `fetch_add` / `fetch_sub` round as IEEE addition does. On the device they are
//!   `atom.add.f32` / `atom.add.f64` (subtraction adds the negation, which is exact); `atom.add.f32`
//!   flushes subnormal inputs and results to sign-preserving zero and rounds to nearest even, so a
//!   sum that is subnormal on the host is `0.0` on the device. `atom.add.f64` keeps subnormals.

use super::Atomic;
use super::int::reduce_ops;
use crate::Scope;
use crate::imp::{RawFloat, RawReduce, Storage};

macro_rules! atomic_float {
    ($($t:ident => $storage:ident),* $(,)?) => {$(
        super::atomic_common! {
            impl[S: Scope] $t, storage Storage::$storage,
            example stringify!($t), setup "", values "1.5", "-2.25",
            to_storage |v| v.to_bits(), from_storage |bits| $t::from_bits(bits),
        }

        impl<S: Scope> Atomic<$t, S> {
            /// Adds `value` and returns the previous value.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!("let a = Atomic::<", stringify!($t), ", Device>::new(1.5);")]
            /// assert_eq!(a.fetch_add(2.0, Ordering::AcqRel), 1.5);
            /// assert_eq!(a.load(Ordering::Relaxed), 3.5);
            /// ```
            #[inline(always)]
            pub fn fetch_add(&self, value: $t, order: core::sync::atomic::Ordering) -> $t {
                <Storage::$storage as RawFloat<$t>>::fetch_add::<S>(&self.inner, value, order)
            }

            /// Subtracts `value` and returns the previous value.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!("let a = Atomic::<", stringify!($t), ", Device>::new(1.5);")]
            /// assert_eq!(a.fetch_sub(2.0, Ordering::AcqRel), 1.5);
            /// assert_eq!(a.load(Ordering::Relaxed), -0.5);
            /// ```
            #[inline(always)]
            pub fn fetch_sub(&self, value: $t, order: core::sync::atomic::Ordering) -> $t {
                <Storage::$storage as RawFloat<$t>>::fetch_sub::<S>(&self.inner, value, order)
            }

            /// Stores the minimum of the value and `value` as `f32::min` computes it (a NaN is
            /// ignored); returns the previous value.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!("let a = Atomic::<", stringify!($t), ", Device>::new(1.5);")]
            #[doc = concat!("assert_eq!(a.fetch_min(", stringify!($t), "::NAN, Ordering::AcqRel), 1.5);")]
            /// assert_eq!(a.fetch_min(-3.0, Ordering::AcqRel), 1.5);
            /// assert_eq!(a.load(Ordering::Relaxed), -3.0);
            /// ```
            #[inline(always)]
            pub fn fetch_min(&self, value: $t, order: core::sync::atomic::Ordering) -> $t {
                <Storage::$storage as RawFloat<$t>>::fetch_min::<S>(&self.inner, value, order)
            }

            /// Stores the maximum of the value and `value` as `f32::max` computes it (a NaN is
            /// ignored); returns the previous value.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!("let a = Atomic::<", stringify!($t), ", Device>::new(", stringify!($t), "::NAN);")]
            /// assert!(a.fetch_max(2.0, Ordering::AcqRel).is_nan());
            /// assert_eq!(a.load(Ordering::Relaxed), 2.0);
            /// ```
            #[inline(always)]
            pub fn fetch_max(&self, value: $t, order: core::sync::atomic::Ordering) -> $t {
                <Storage::$storage as RawFloat<$t>>::fetch_max::<S>(&self.inner, value, order)
            }

            reduce_ops! { $t, Storage::$storage, stringify!($t),
                /// Adds `value`, returning nothing.
                add => RawReduce::reduce_add, "1.5", "2.0", "3.5";
                /// Subtracts `value`, returning nothing.
                sub => RawReduce::reduce_sub, "1.5", "2.0", "-0.5";
            }
        }

        impl<S: Scope> Default for Atomic<$t, S> {
            /// An atomic holding `0.0`.
            fn default() -> Self {
                Self::new(0.0)
            }
        }
    )*};
}

atomic_float! { f32 => F32, f64 => F64 }
