//! Compile-time proof that every `Atomic<T, S>` has the layout of the `core` atomic of its width
//! and the auto traits of `core`'s atomics, whatever the scope.

#![cfg(not(loom))]

use crate::{Atomic, Block, Cluster, Device, System, Thread};
use core::panic::{RefUnwindSafe, UnwindSafe};
use core::sync::atomic as core_atomic;
use static_assertions::{assert_eq_align, assert_eq_size, assert_impl_all};

macro_rules! same_layout_as_core {
    ($($t:ty => $core:ty),* $(,)?) => {$(
        same_layout_as_core!(@scopes $t, $core, Thread, Block, Cluster, Device, System);
    )*};
    (@scopes $t:ty, $core:ty, $($scope:ty),*) => {$(
        assert_eq_size!(Atomic<$t, $scope>, $core, $t);
        assert_eq_align!(Atomic<$t, $scope>, $core);
        assert_impl_all!(Atomic<$t, $scope>: Send, Sync, Unpin, UnwindSafe, RefUnwindSafe, Default, core::fmt::Debug);
    )*};
}

same_layout_as_core! {
    bool => core_atomic::AtomicBool,
    u8 => core_atomic::AtomicU8, i8 => core_atomic::AtomicI8,
    u16 => core_atomic::AtomicU16, i16 => core_atomic::AtomicI16,
    u32 => core_atomic::AtomicU32, i32 => core_atomic::AtomicI32,
    u64 => core_atomic::AtomicU64, i64 => core_atomic::AtomicI64,
    usize => core_atomic::AtomicUsize, isize => core_atomic::AtomicIsize,
    f32 => core_atomic::AtomicU32, f64 => core_atomic::AtomicU64,
    *mut u8 => core_atomic::AtomicPtr<u8>,
    *mut [u64; 3] => core_atomic::AtomicPtr<[u64; 3]>,
}

// `AtomicRef` is a shared reference: `Copy`, and `Send + Sync` wherever the atomic is `Sync`.
assert_impl_all!(crate::AtomicRef<'static, u32, Device>: Copy, Send, Sync, Unpin);
assert_impl_all!(crate::AtomicRef<'static, *mut u8, Block>: Copy, Send, Sync);
