//! The host backend: `core::sync::atomic` (and `portable_atomic::AtomicU128`/`AtomicI128` for
//! 128 bits, which `core` does not have on stable). On the host the scope changes no machine instruction;
//! it stays in every signature so that the loom mirror (`--cfg loom`, in `imp/mirror`) can use it.
//! `core` checks the orderings itself, with the messages the other backends copy.

use super::{RawAtomic, RawBool, RawFloat, RawInt, RawIntReduce, RawPtr, RawReduce};
use crate::ordering::failure_order;
use crate::{Scope, ScopeKind};
use core::sync::atomic::Ordering;
use half::{bf16, f16};

use core::sync::atomic as atomic_types;

pub(crate) use super::core_storage as storage;
pub(crate) use storage as Storage;

/// `RawAtomic` for a type whose storage holds it as itself (`$into`/`$from` identity) or as bits.
macro_rules! raw_atomic {
    ($t:ty, $storage:ty, $into:expr, $from:expr) => {
        impl RawAtomic<$t> for $storage {
            #[inline(always)]
            fn load<S: Scope>(&self, order: Ordering) -> $t {
                $from(<$storage>::load(self, order))
            }
            #[inline(always)]
            fn store<S: Scope>(&self, value: $t, order: Ordering) {
                <$storage>::store(self, $into(value), order)
            }
            #[inline(always)]
            fn swap<S: Scope>(&self, value: $t, order: Ordering) -> $t {
                $from(<$storage>::swap(self, $into(value), order))
            }
            #[inline(always)]
            fn compare_exchange<S: Scope>(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                <$storage>::compare_exchange(self, $into(current), $into(new), success, failure)
                    .map($from)
                    .map_err($from)
            }
            #[inline(always)]
            fn compare_exchange_weak<S: Scope>(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                <$storage>::compare_exchange_weak(
                    self,
                    $into(current),
                    $into(new),
                    success,
                    failure,
                )
                .map($from)
                .map_err($from)
            }
        }
    };
}

macro_rules! raw_int {
    ($($t:ty => $storage:ty),* $(,)?) => {$(
        raw_atomic!($t, $storage, core::convert::identity, core::convert::identity);
        impl RawInt<$t> for $storage {
            #[inline(always)]
            fn fetch_add<S: Scope>(&self, v: $t, order: Ordering) -> $t { <$storage>::fetch_add(self, v, order) }
            #[inline(always)]
            fn fetch_sub<S: Scope>(&self, v: $t, order: Ordering) -> $t { <$storage>::fetch_sub(self, v, order) }
            #[inline(always)]
            fn fetch_and<S: Scope>(&self, v: $t, order: Ordering) -> $t { <$storage>::fetch_and(self, v, order) }
            #[inline(always)]
            fn fetch_nand<S: Scope>(&self, v: $t, order: Ordering) -> $t { <$storage>::fetch_nand(self, v, order) }
            #[inline(always)]
            fn fetch_or<S: Scope>(&self, v: $t, order: Ordering) -> $t { <$storage>::fetch_or(self, v, order) }
            #[inline(always)]
            fn fetch_xor<S: Scope>(&self, v: $t, order: Ordering) -> $t { <$storage>::fetch_xor(self, v, order) }
            #[inline(always)]
            fn fetch_min<S: Scope>(&self, v: $t, order: Ordering) -> $t { <$storage>::fetch_min(self, v, order) }
            #[inline(always)]
            fn fetch_max<S: Scope>(&self, v: $t, order: Ordering) -> $t { <$storage>::fetch_max(self, v, order) }
        }
    )*};
}

raw_int! {
    u8 => storage::U8, i8 => storage::I8, u16 => storage::U16, i16 => storage::I16,
    u32 => storage::U32, i32 => storage::I32, u64 => storage::U64, i64 => storage::I64,
    usize => storage::Usize, isize => storage::Isize,
    // portable-atomic's, with `core`'s method names, semantics and ordering panics.
    u128 => storage::U128, i128 => storage::I128,
}

/// On the host a reduction is the matching `fetch_` operation with its result dropped.
macro_rules! raw_reduce_via_fetch {
    ($trait_:ident: $($t:ty => $storage:ty),* $(,)?) => {$(
        impl RawReduce<$t> for $storage {
            #[inline(always)]
            fn reduce_add<S: Scope>(&self, v: $t, order: Ordering) { <Self as $trait_<$t>>::fetch_add::<S>(self, v, order); }
            #[inline(always)]
            fn reduce_sub<S: Scope>(&self, v: $t, order: Ordering) { <Self as $trait_<$t>>::fetch_sub::<S>(self, v, order); }
        }
    )*};
}

raw_reduce_via_fetch! { RawInt:
    u32 => storage::U32, i32 => storage::I32, u64 => storage::U64, i64 => storage::I64,
    usize => storage::Usize, isize => storage::Isize,
}
raw_reduce_via_fetch! { RawFloat: f32 => storage::F32, f64 => storage::F64, f16 => storage::F16, bf16 => storage::Bf16 }

macro_rules! raw_int_reduce {
    ($($t:ty => $storage:ty),* $(,)?) => {$(
        impl RawIntReduce<$t> for $storage {
            #[inline(always)]
            fn reduce_and<S: Scope>(&self, v: $t, order: Ordering) { <$storage>::fetch_and(self, v, order); }
            #[inline(always)]
            fn reduce_or<S: Scope>(&self, v: $t, order: Ordering) { <$storage>::fetch_or(self, v, order); }
            #[inline(always)]
            fn reduce_xor<S: Scope>(&self, v: $t, order: Ordering) { <$storage>::fetch_xor(self, v, order); }
            #[inline(always)]
            fn reduce_min<S: Scope>(&self, v: $t, order: Ordering) { <$storage>::fetch_min(self, v, order); }
            #[inline(always)]
            fn reduce_max<S: Scope>(&self, v: $t, order: Ordering) { <$storage>::fetch_max(self, v, order); }
        }
    )*};
}

raw_int_reduce! {
    u32 => storage::U32, i32 => storage::I32, u64 => storage::U64, i64 => storage::I64,
    usize => storage::Usize, isize => storage::Isize,
}

raw_atomic!(
    bool,
    storage::Bool,
    core::convert::identity,
    core::convert::identity
);

impl RawBool for storage::Bool {
    #[inline(always)]
    fn fetch_and<S: Scope>(&self, v: bool, order: Ordering) -> bool {
        storage::Bool::fetch_and(self, v, order)
    }
    #[inline(always)]
    fn fetch_nand<S: Scope>(&self, v: bool, order: Ordering) -> bool {
        storage::Bool::fetch_nand(self, v, order)
    }
    #[inline(always)]
    fn fetch_or<S: Scope>(&self, v: bool, order: Ordering) -> bool {
        storage::Bool::fetch_or(self, v, order)
    }
    #[inline(always)]
    fn fetch_xor<S: Scope>(&self, v: bool, order: Ordering) -> bool {
        storage::Bool::fetch_xor(self, v, order)
    }
}

/// Floats live in an integer atomic as their bits: compare-exchange compares bits (so `-0.0` and
/// `0.0` differ and a NaN equals the same NaN), and arithmetic is a compare-exchange loop.
macro_rules! raw_float {
    ($($t:ident => $storage:ty),* $(,)?) => {$(
        raw_atomic!($t, $storage, $t::to_bits, $t::from_bits);
        impl RawFloat<$t> for $storage {
            #[inline(always)]
            fn fetch_add<S: Scope>(&self, v: $t, order: Ordering) -> $t { float_update!($t, $storage, self, order, |x| x + v) }
            #[inline(always)]
            fn fetch_sub<S: Scope>(&self, v: $t, order: Ordering) -> $t { float_update!($t, $storage, self, order, |x| x - v) }
            #[inline(always)]
            fn fetch_min<S: Scope>(&self, v: $t, order: Ordering) -> $t { float_update!($t, $storage, self, order, |x| x.min(v)) }
            #[inline(always)]
            fn fetch_max<S: Scope>(&self, v: $t, order: Ordering) -> $t { float_update!($t, $storage, self, order, |x| x.max(v)) }
        }
    )*};
}

/// A float read-modify-write as a compare-exchange loop on the bits; returns the previous value.
macro_rules! float_update {
    ($t:ident, $storage:ty, $atomic:expr, $order:expr, |$x:ident| $next:expr) => {{
        let update = |bits| {
            let $x = $t::from_bits(bits);
            Some(($next).to_bits())
        };
        // The closure never declines, so `fetch_update` always returns `Ok`.
        let previous = <$storage>::fetch_update($atomic, $order, failure_order($order), update);
        $t::from_bits(previous.unwrap_or_else(|bits| bits))
    }};
}

raw_float! { f32 => storage::F32, f64 => storage::F64, f16 => storage::F16, bf16 => storage::Bf16 }

impl<U> RawAtomic<*mut U> for storage::Ptr<U> {
    #[inline(always)]
    fn load<S: Scope>(&self, order: Ordering) -> *mut U {
        storage::Ptr::load(self, order)
    }
    #[inline(always)]
    fn store<S: Scope>(&self, value: *mut U, order: Ordering) {
        storage::Ptr::store(self, value, order)
    }
    #[inline(always)]
    fn swap<S: Scope>(&self, value: *mut U, order: Ordering) -> *mut U {
        storage::Ptr::swap(self, value, order)
    }
    #[inline(always)]
    fn compare_exchange<S: Scope>(
        &self,
        current: *mut U,
        new: *mut U,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut U, *mut U> {
        storage::Ptr::compare_exchange(self, current, new, success, failure)
    }
    #[inline(always)]
    fn compare_exchange_weak<S: Scope>(
        &self,
        current: *mut U,
        new: *mut U,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut U, *mut U> {
        storage::Ptr::compare_exchange_weak(self, current, new, success, failure)
    }
}

impl<U> RawPtr<U> for storage::Ptr<U> {
    #[inline(always)]
    fn fetch_byte_add<S: Scope>(&self, bytes: usize, order: Ordering) -> *mut U {
        storage::Ptr::fetch_byte_add(self, bytes, order)
    }
    #[inline(always)]
    fn fetch_byte_sub<S: Scope>(&self, bytes: usize, order: Ordering) -> *mut U {
        storage::Ptr::fetch_byte_sub(self, bytes, order)
    }
    #[inline(always)]
    fn fetch_addr_and<S: Scope>(&self, value: usize, order: Ordering) -> *mut U {
        storage::Ptr::fetch_and(self, value, order)
    }
    #[inline(always)]
    fn fetch_addr_or<S: Scope>(&self, value: usize, order: Ordering) -> *mut U {
        storage::Ptr::fetch_or(self, value, order)
    }
    #[inline(always)]
    fn fetch_addr_xor<S: Scope>(&self, value: usize, order: Ordering) -> *mut U {
        storage::Ptr::fetch_xor(self, value, order)
    }
}

/// A fence of scope `S`. A thread-scope fence orders nothing beyond the executing thread, so it is
/// a compiler fence; every wider scope is a full fence on the host.
#[inline(always)]
pub(crate) fn fence<S: Scope>(order: Ordering) {
    match S::KIND {
        ScopeKind::Thread => compiler_fence(order),
        _ => atomic_types::fence(order),
    }
}

/// A compiler-only fence.
#[inline(always)]
pub(crate) fn compiler_fence(order: Ordering) {
    core::sync::atomic::compiler_fence(order);
}
