//! `Atomic<bool, S>`: `core::sync::atomic::AtomicBool` with a scope.

use super::Atomic;
use crate::Scope;
use crate::imp::{RawBool, Storage};

super::atomic_common! {
    impl[S: Scope] bool, storage Storage::Bool,
    example "bool", setup "", values "false", "true",
    to_storage |v| v, from_storage |v| v,
}

macro_rules! bool_ops {
    ($($(#[$doc:meta])* $name:ident => $init:literal, $arg:literal, $result:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// ```
        /// use scoped_atomics::{Atomic, Device, Ordering};
        #[doc = concat!("let a = Atomic::<bool, Device>::new(", $init, ");")]
        #[doc = concat!("assert_eq!(a.", stringify!($name), "(", $arg, ", Ordering::AcqRel), ", $init, ");")]
        #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed), ", $result, ");")]
        /// ```
        #[inline(always)]
        pub fn $name(&self, value: bool, order: core::sync::atomic::Ordering) -> bool {
            <Storage::Bool as RawBool>::$name::<S>(&self.inner, value, order)
        }
    )*};
}

impl<S: Scope> Atomic<bool, S> {
    bool_ops! {
        /// Logical "and" with `value`; returns the previous value.
        fetch_and => "true", "false", "false";
        /// Logical "nand" with `value`; returns the previous value.
        fetch_nand => "true", "true", "false";
        /// Logical "or" with `value`; returns the previous value.
        fetch_or => "false", "true", "true";
        /// Logical "xor" with `value`; returns the previous value.
        fetch_xor => "true", "true", "false";
    }

    /// Logical "not" of the value; returns the previous value.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<bool, Device>::new(true);
    /// assert_eq!(a.fetch_not(Ordering::AcqRel), true);
    /// assert_eq!(a.load(Ordering::Relaxed), false);
    /// ```
    #[inline(always)]
    pub fn fetch_not(&self, order: core::sync::atomic::Ordering) -> bool {
        self.fetch_xor(true, order)
    }
}

impl<S: Scope> Default for Atomic<bool, S> {
    /// An atomic holding `false`.
    fn default() -> Self {
        Self::new(false)
    }
}
