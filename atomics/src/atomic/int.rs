//! Integer atomics: `core`'s integer read-modify-writes, and reductions for 32- and 64-bit types.

use super::Atomic;
use crate::Scope;
use crate::imp::{RawInt, RawIntReduce, RawReduce, Storage};

macro_rules! fetch_ops {
    ($t:ty, $storage:ty, $ex:expr, $(
        $(#[$doc:meta])* $name:ident => $init:literal, $arg:literal, $result:literal;
    )*) => {$(
        $(#[$doc])*
        ///
        /// ```
        /// use scoped_atomics::{Atomic, Device, Ordering};
        #[doc = concat!("let a = Atomic::<", $ex, ", Device>::new(", $init, ");")]
        #[doc = concat!("assert_eq!(a.", stringify!($name), "(", $arg, ", Ordering::AcqRel), ", $init, ");")]
        #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed), ", $result, ");")]
        /// ```
        #[inline(always)]
        pub fn $name(&self, value: $t, order: core::sync::atomic::Ordering) -> $t {
            <$storage as RawInt<$t>>::$name::<S>(&self.inner, value, order)
        }
    )*};
}

macro_rules! atomic_int {
    ($($t:ident => $storage:ident),* $(,)?) => {$(
        super::atomic_common! {
            impl[S: Scope] $t, storage Storage::$storage,
            example stringify!($t), setup "", values "5", "10",
            to_storage |v| v, from_storage |v| v,
        }

        impl<S: Scope> Atomic<$t, S> {
            fetch_ops! { $t, Storage::$storage, stringify!($t),
                /// Adds `value` (wrapping on overflow) and returns the previous value.
                fetch_add => "5", "10", "15";
                /// Subtracts `value` (wrapping on overflow) and returns the previous value.
                fetch_sub => "15", "10", "5";
                /// Bitwise "and" with `value`; returns the previous value.
                fetch_and => "5", "10", "5 & 10";
                /// Bitwise "nand" with `value`; returns the previous value.
                fetch_nand => "5", "10", "!(5 & 10)";
                /// Bitwise "or" with `value`; returns the previous value.
                fetch_or => "5", "10", "5 | 10";
                /// Bitwise "xor" with `value`; returns the previous value.
                fetch_xor => "5", "10", "5 ^ 10";
                /// Stores the minimum of the value and `value`; returns the previous value.
                fetch_min => "5", "10", "5";
                /// Stores the maximum of the value and `value`; returns the previous value.
                fetch_max => "5", "10", "10";
            }
        }

        impl<S: Scope> Default for Atomic<$t, S> {
            /// An atomic holding `0`.
            fn default() -> Self {
                Self::new(0)
            }
        }
    )*};
}

atomic_int! {
    u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, u64 => U64, i64 => I64,
    usize => Usize, isize => Isize,
}

macro_rules! reduce_ops {
    ($t:ty, $storage:ty, $ex:expr, $(
        $(#[$doc:meta])* $name:ident => $raw_trait:ident::$raw:ident, $init:literal, $arg:literal, $result:literal;
    )*) => {$(
        $(#[$doc])*
        ///
        /// A reduction returns nothing: on the device it is `red`, which needs no result register
        /// and lets the thread go on at once — the fast path for counters and histograms. Its read
        /// forms no acquire pattern (PTX ISA 8.8), so `order` is `Relaxed` or `Release`.
        ///
        /// # Panics
        /// If `order` is `Acquire`, `AcqRel` or `SeqCst`.
        ///
        /// ```
        /// use scoped_atomics::{Atomic, Device, Ordering};
        #[doc = concat!("let a = Atomic::<", $ex, ", Device>::new(", $init, ");")]
        #[doc = concat!("a.", stringify!($name), "(", $arg, ", Ordering::Release);")]
        #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed), ", $result, ");")]
        /// ```
        #[inline(always)]
        #[track_caller]
        pub fn $name(&self, value: $t, order: core::sync::atomic::Ordering) {
            crate::ordering::check_reduction(order);
            <$storage as $raw_trait<$t>>::$raw::<S>(&self.inner, value, order)
        }
    )*};
}
pub(crate) use reduce_ops;

macro_rules! int_reductions {
    ($($t:ident => $storage:ident),* $(,)?) => {$(
        impl<S: Scope> Atomic<$t, S> {
            reduce_ops! { $t, Storage::$storage, stringify!($t),
                /// Adds `value` (wrapping), returning nothing.
                add => RawReduce::reduce_add, "5", "10", "15";
                /// Subtracts `value` (wrapping), returning nothing.
                sub => RawReduce::reduce_sub, "15", "10", "5";
                /// Bitwise "and" with `value`, returning nothing.
                and => RawIntReduce::reduce_and, "5", "10", "5 & 10";
                /// Bitwise "or" with `value`, returning nothing.
                or => RawIntReduce::reduce_or, "5", "10", "5 | 10";
                /// Bitwise "xor" with `value`, returning nothing.
                xor => RawIntReduce::reduce_xor, "5", "10", "5 ^ 10";
                /// Stores the minimum of the value and `value`, returning nothing.
                min => RawIntReduce::reduce_min, "5", "10", "5";
                /// Stores the maximum of the value and `value`, returning nothing.
                max => RawIntReduce::reduce_max, "5", "10", "10";
            }
        }
    )*};
}

int_reductions! { u32 => U32, i32 => I32, u64 => U64, i64 => I64, usize => Usize, isize => Isize }
