//! Drop-in aliases: the generic ones at the crate root, and one module per scope that mirrors
//! `core::sync::atomic`, so that `use scoped_atomics::device::{AtomicU32, Ordering, fence};`
//! replaces `use std::sync::atomic::{AtomicU32, Ordering, fence};` with no other change.

macro_rules! generic_aliases {
    ($($(#[$doc:meta])* $alias:ident = $t:ty, $ex:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// ```
        #[doc = concat!("use scoped_atomics::{", stringify!($alias), ", Block, Ordering};")]
        #[doc = concat!("let a: ", stringify!($alias), "<Block> = Default::default();")]
        #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed), ", $ex, ");")]
        /// ```
        pub type $alias<S = crate::System> = crate::Atomic<$t, S>;
    )*};
}

generic_aliases! {
    /// `Atomic<bool, S>`.
    AtomicBool = bool, "false";
    /// `Atomic<u8, S>`.
    AtomicU8 = u8, "0";
    /// `Atomic<i8, S>`.
    AtomicI8 = i8, "0";
    /// `Atomic<u16, S>`.
    AtomicU16 = u16, "0";
    /// `Atomic<i16, S>`.
    AtomicI16 = i16, "0";
    /// `Atomic<u32, S>`.
    AtomicU32 = u32, "0";
    /// `Atomic<i32, S>`.
    AtomicI32 = i32, "0";
    /// `Atomic<u64, S>`.
    AtomicU64 = u64, "0";
    /// `Atomic<i64, S>`.
    AtomicI64 = i64, "0";
    /// `Atomic<u128, S>` (see [`AtomicInteger`](crate::AtomicInteger) for where 128-bit atomics
    /// run).
    AtomicU128 = u128, "0";
    /// `Atomic<i128, S>` (see [`AtomicInteger`](crate::AtomicInteger) for where 128-bit atomics
    /// run).
    AtomicI128 = i128, "0";
    /// `Atomic<usize, S>`.
    AtomicUsize = usize, "0";
    /// `Atomic<isize, S>`.
    AtomicIsize = isize, "0";
    /// `Atomic<f32, S>`.
    AtomicF32 = f32, "0.0";
    /// `Atomic<f64, S>`.
    AtomicF64 = f64, "0.0";
}

/// `Atomic<*mut T, S>`, `core::sync::atomic::AtomicPtr<T>` with a scope.
///
/// ```
/// use scoped_atomics::{AtomicPtr, Device, Ordering};
/// let a: AtomicPtr<u8, Device> = Default::default();
/// assert!(a.load(Ordering::Relaxed).is_null());
/// ```
pub type AtomicPtr<T, S = crate::System> = crate::Atomic<*mut T, S>;

macro_rules! scope_module {
    ($(#[$doc:meta])* $module:ident, $scope:ident) => {
        $(#[$doc])*
        pub mod $module {
            pub use core::sync::atomic::Ordering;
            pub use crate::compiler_fence;

            scope_module!(@aliases $module, $scope,
                AtomicBool = bool, "false"; AtomicU8 = u8, "0"; AtomicI8 = i8, "0";
                AtomicU16 = u16, "0"; AtomicI16 = i16, "0"; AtomicU32 = u32, "0";
                AtomicI32 = i32, "0"; AtomicU64 = u64, "0"; AtomicI64 = i64, "0";
                AtomicU128 = u128, "0"; AtomicI128 = i128, "0";
                AtomicUsize = usize, "0"; AtomicIsize = isize, "0"; AtomicF32 = f32, "0.0";
                AtomicF64 = f64, "0.0";
            );

            #[doc = concat!("`Atomic<*mut T, ", stringify!($scope), ">`: `core::sync::atomic::AtomicPtr<T>` at this scope.")]
            ///
            /// ```
            #[doc = concat!("use scoped_atomics::", stringify!($module), "::{AtomicPtr, Ordering};")]
            /// let a = AtomicPtr::<u8>::new(core::ptr::null_mut());
            /// assert!(a.load(Ordering::Relaxed).is_null());
            /// ```
            pub type AtomicPtr<T> = crate::Atomic<*mut T, crate::$scope>;

            #[doc = concat!("`AtomicRef<'a, T, ", stringify!($scope), ">`: an atomic view of memory the caller owns, at this scope.")]
            ///
            /// ```
            #[doc = concat!("use scoped_atomics::", stringify!($module), "::{AtomicRef, Ordering};")]
            /// let mut x = 1u32;
            /// AtomicRef::new(&mut x).fetch_add(1, Ordering::Relaxed);
            /// assert_eq!(x, 2);
            /// ```
            pub type AtomicRef<'a, T> = crate::AtomicRef<'a, T, crate::$scope>;

            #[doc = concat!("A fence at this scope: `scoped_atomics::fence::<", stringify!($scope), ">(order)`, with the signature of `core::sync::atomic::fence`.")]
            ///
            /// # Panics
            /// If `order` is `Relaxed`, with `core`'s message.
            ///
            /// ```
            #[doc = concat!("use scoped_atomics::", stringify!($module), "::{fence, Ordering};")]
            /// fence(Ordering::AcqRel);
            /// ```
            #[inline(always)]
            #[track_caller]
            pub fn fence(order: Ordering) {
                crate::fence::<crate::$scope>(order)
            }
        }
    };
    (@aliases $module:ident, $scope:ident, $($alias:ident = $t:ty, $zero:literal;)*) => {$(
        #[doc = concat!("`Atomic<", stringify!($t), ", ", stringify!($scope), ">`: `core::sync::atomic::", stringify!($alias), "` at this scope.")]
        ///
        /// ```
        #[doc = concat!("use scoped_atomics::", stringify!($module), "::{", stringify!($alias), ", Ordering};")]
        #[doc = concat!("static A: ", stringify!($alias), " = ", stringify!($alias), "::new(", $zero, ");")]
        #[doc = concat!("assert_eq!(A.load(Ordering::Relaxed), ", $zero, ");")]
        /// ```
        pub type $alias = crate::Atomic<$t, crate::$scope>;
    )*};
}

scope_module! {
    /// `core::sync::atomic`'s names at system scope (`cuda::thread_scope_system`, PTX `.sys`):
    /// synchronises with every thread of the program, host included.
    system, System
}
scope_module! {
    /// `core::sync::atomic`'s names at device scope (`cuda::thread_scope_device`, PTX `.gpu`).
    device, Device
}
scope_module! {
    /// `core::sync::atomic`'s names at cluster scope (PTX `.cluster`, sm_90 and newer).
    cluster, Cluster
}
scope_module! {
    /// `core::sync::atomic`'s names at block scope (`cuda::thread_scope_block`, PTX `.cta`).
    block, Block
}
scope_module! {
    /// `core::sync::atomic`'s names at thread scope (`cuda::thread_scope_thread`).
    thread, Thread
}
