//! The value types an [`Atomic`](crate::Atomic) can hold, and what each can do: one sealed
//! capability trait per group of operations, so that generic code can name what it needs
//! (`T: AtomicArithmetic` for `fetch_add`, `T: AtomicBitwise` for `fetch_or`, …) and the methods
//! of `Atomic<T, S>` are written (and documented) once, for every `T` that has the capability.
//!
//! | trait                   | operations on `Atomic<T, S>`                         | `T`                          |
//! |-------------------------|------------------------------------------------------|------------------------------|
//! | [`AtomicPrimitive`]     | `new`, `load`, `store`, `swap`, `compare_exchange`, `fetch_update`, `wait`, … | all          |
//! | [`AtomicArithmetic`]    | `fetch_add`, `fetch_sub`, `fetch_min`, `fetch_max`   | integers, floats             |
//! | [`AtomicBitwise`]       | `fetch_and`, `fetch_nand`, `fetch_or`, `fetch_xor`   | integers, `bool`             |
//! | [`AtomicInteger`]       | both of the above                                    | integers (`u8` … `u128`)     |
//! | [`AtomicFloat`]         | [`AtomicArithmetic`] with IEEE semantics             | `f32`, `f64`, `f16`, `bf16`  |
//! | [`AtomicReduce`]        | `add`, `sub` (PTX `red`, no result)                  | 32- and 64-bit integers, floats |
//! | [`AtomicCoreInterop`]   | `as_core`, `from_core` (host)                        | all but `u128`, `i128`       |
//! | [`AtomicIntegerReduce`] | `and`, `or`, `xor`, `min`, `max` (PTX `red`)         | 32- and 64-bit integers      |
//!
//! Pointers (`*mut U`) have their own methods (`fetch_ptr_add`, `fetch_or` on the address, …) on
//! `Atomic<*mut U, S>`, which is generic over `U`.

use crate::Scope;
use crate::imp::{
    RawAtomic, RawBool, RawFloat, RawInt, RawIntReduce, RawReduce, Storage, core_storage,
};
use crate::value::{self, AtomicValue};
use core::sync::atomic::Ordering;
use half::{bf16, f16};

pub(crate) mod sealed {
    pub trait Sealed {}

    /// Every value type but the pointers, which have address operations of their own named as
    /// the bitwise ones (`fetch_and`, `fetch_or`, `fetch_xor` with a `usize`): the bound of the
    /// bitwise operations' `impl` block, so that the two blocks do not overlap while the
    /// capability bound itself sits on each method (see `atomic/ops.rs`).
    pub trait NotPointer {}
}

/// A type that [`Atomic<T, S>`](crate::Atomic) can hold: `bool`, the integers `u8` … `u128`,
/// `i8` … `i128`, `usize`, `isize`, the floats `f32` and `f64`, the half-precision
/// [`f16`](crate::f16) and [`bf16`](crate::bf16) (the `half` crate's), raw pointers `*mut U`,
/// and the user's own types of 1, 2, 4, 8 or 16 bytes through [`AtomicValue`].
///
/// Sealed (implement [`AtomicValue`] for a type of your own). `Atomic<T, S>` has the size and alignment of the `core::sync::atomic` type of the same
/// width (`AtomicU32` for `u32` and `f32`, `AtomicPtr<U>` for `*mut U`, …; 16 bytes, 16-aligned
/// for `u128` and `i128`, see [`AtomicInteger`] for where those run). Every `Atomic<T, S>`
/// has the methods `core::sync::atomic`'s types share (`load`, `store`, `swap`,
/// `compare_exchange`, `fetch_update`, …, and C++20's `wait`/`notify_*`); the other operations
/// come with the capability traits of this module ([`AtomicArithmetic`], [`AtomicBitwise`], …).
///
/// Generic code over the value type and the scope:
///
/// ```
/// use scoped_atomics::{Atomic, AtomicPrimitive, Device, Ordering, Scope};
///
/// /// Publishes `value` once: whoever comes first wins.
/// fn publish_once<T: AtomicPrimitive + PartialEq, S: Scope>(slot: &Atomic<T, S>, empty: T, value: T) -> bool {
///     slot.compare_exchange(empty, value, Ordering::AcqRel, Ordering::Acquire).is_ok()
/// }
///
/// let slot = Atomic::<u64, Device>::new(0);
/// assert!(publish_once(&slot, 0, 7));
/// assert!(!publish_once(&slot, 0, 8));
/// assert_eq!(slot.load(Ordering::Acquire), 7);
/// assert_eq!(core::mem::size_of::<Atomic<f64, Device>>(), 8);
/// ```
pub trait AtomicPrimitive: Copy + sealed::Sealed {
    /// The backend's storage: a `core::sync::atomic` type on the host and on the device
    /// (`portable_atomic::AtomicU128` on the host and a 16-byte aligned cell on the device for
    /// 128 bits), a loom atomic under `--cfg loom`. `Send + Sync + Unpin` so that every
    /// `Atomic<T, S>` is, in generic code too (as every `core` atomic is).
    #[doc(hidden)]
    type Storage: RawAtomic<Self> + Send + Sync + Unpin;

    /// Whether every operation on `Atomic<Self, _>` is lock-free on every machine this build
    /// runs on (`Atomic::is_always_lock_free`).
    #[doc(hidden)]
    const ALWAYS_LOCK_FREE: bool = true;

    /// Whether the operations on `Atomic<Self, _>` are lock-free on this machine
    /// (`Atomic::is_lock_free`; the CPU is asked where that is needed).
    #[doc(hidden)]
    #[inline(always)]
    fn is_lock_free() -> bool {
        Self::ALWAYS_LOCK_FREE
    }

    /// What `Default` gives: zero, `false`, a null pointer, or an [`AtomicValue`]'s `default()`.
    #[doc(hidden)]
    fn default_value() -> Self;

    /// Whether `self` and `other` have the same bits (what `compare_exchange` and `wait` compare).
    #[doc(hidden)]
    fn same_bits(self, other: Self) -> bool;

    /// The storage holding `value` (loom's atomics are built by a call, not by a bit copy).
    #[cfg(loom)]
    #[doc(hidden)]
    fn storage_new(value: Self) -> Self::Storage;

    /// The value `storage` holds.
    #[cfg(loom)]
    #[doc(hidden)]
    fn storage_into_inner(storage: Self::Storage) -> Self;

    /// The loom mirror's location for the value at `ptr` (see `AtomicRef::from_ptr`).
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes of `Self` while the result is used.
    #[cfg(loom)]
    #[doc(hidden)]
    unsafe fn mirror_view<'a>(ptr: *mut Self) -> &'a Self::Storage;
}

/// The value types whose `Atomic<T, S>` has a `core::sync::atomic` counterpart of the same
/// width, for [`Atomic::as_core`](crate::Atomic::as_core) and
/// [`Atomic::from_core`](crate::Atomic::from_core): every [`AtomicPrimitive`] except `u128` and
/// `i128`, for which `core` has no stable atomic type (calling `as_core` on an
/// `Atomic<u128, S>` is a compile error naming this trait). Sealed.
///
/// ```
/// use scoped_atomics::{Atomic, AtomicCoreInterop, Device, Ordering, Scope};
///
/// fn core_view<T: AtomicCoreInterop, S: Scope>(a: &Atomic<T, S>) -> &T::Core {
///     a.as_core()
/// }
///
/// let a = Atomic::<u32, Device>::new(1);
/// core_view(&a).store(2, Ordering::Relaxed); // a `&core::sync::atomic::AtomicU32`
/// assert_eq!(a.load(Ordering::Relaxed), 2);
/// ```
///
/// `u128` has no `core` view (`core::sync::atomic::AtomicU128` is unstable):
///
/// ```compile_fail,E0599
/// use scoped_atomics::{Atomic, Device};
/// let wide = Atomic::<u128, Device>::new(1);
/// let _ = wide.as_core(); // error: `u128: AtomicCoreInterop` is not satisfied
/// ```
pub trait AtomicCoreInterop: AtomicPrimitive {
    /// The `core::sync::atomic` type of the same width: `AtomicU32` for `u32` and `f32`,
    /// `AtomicBool` for `bool`, `AtomicPtr<U>` for `*mut U`; what
    /// [`Atomic::as_core`](crate::Atomic::as_core) returns on the host.
    type Core;
}

/// The value types with atomic `fetch_add`, `fetch_sub`, `fetch_min` and `fetch_max`: every
/// integer (wrapping on overflow, as `core`) and the floats `f32`, `f64`, `f16`, `bf16` (see
/// [`AtomicFloat`] for their rounding and NaN rules). Sealed.
///
/// A generic reduction over `u32`, `u64` or `f32`, at any scope:
///
/// ```
/// use scoped_atomics::{Atomic, AtomicArithmetic, Block, Device, Ordering, Scope};
///
/// fn sum_into<T: AtomicArithmetic, S: Scope>(total: &Atomic<T, S>, values: &[T]) {
///     for &v in values {
///         total.fetch_add(v, Ordering::Relaxed);
///     }
/// }
///
/// let a = Atomic::<u32, Device>::new(0);
/// let b = Atomic::<u64, Block>::new(0);
/// let c = Atomic::<f32, Device>::new(0.0);
/// std::thread::scope(|s| {
///     for _ in 0..4 {
///         s.spawn(|| {
///             sum_into(&a, &[1, 2, 3]);
///             sum_into(&b, &[10, 20]);
///             sum_into(&c, &[0.5, 0.25]);
///         });
///     }
/// });
/// assert_eq!(a.load(Ordering::Relaxed), 24);
/// assert_eq!(b.load(Ordering::Relaxed), 120);
/// assert_eq!(c.load(Ordering::Relaxed), 3.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic arithmetic (`fetch_add`, `fetch_sub`, `fetch_min`, `fetch_max`)",
    label = "`{Self}` is not `AtomicArithmetic`",
    note = "the integers and the floats (`f32`, `f64`, `f16`, `bf16`) are `AtomicArithmetic`; on `bool` use `fetch_or`/`fetch_and`/`fetch_xor`, on pointers `fetch_ptr_add`/`fetch_byte_add`, otherwise `fetch_update` (a compare-exchange loop)"
)]
pub trait AtomicArithmetic: AtomicPrimitive {
    #[doc(hidden)]
    fn raw_fetch_add<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn raw_fetch_sub<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn raw_fetch_min<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn raw_fetch_max<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> Self;
}

/// The value types with atomic `fetch_and`, `fetch_nand`, `fetch_or` and `fetch_xor`: every
/// integer (bitwise) and `bool` (logical). Sealed.
///
/// ```
/// use scoped_atomics::{Atomic, AtomicBitwise, Ordering, Scope, System};
///
/// /// Sets `bits` and says whether they were all clear before.
/// fn claim<T: AtomicBitwise + PartialEq, S: Scope>(a: &Atomic<T, S>, bits: T, clear: T) -> bool {
///     a.fetch_or(bits, Ordering::AcqRel) == clear
/// }
///
/// assert!(claim(&Atomic::<u8, System>::new(0), 0b100, 0));
/// assert!(!claim(&Atomic::<bool, System>::new(true), true, false));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic bitwise operations (`fetch_and`, `fetch_nand`, `fetch_or`, `fetch_xor`)",
    label = "`{Self}` is not `AtomicBitwise`",
    note = "the integers and `bool` are `AtomicBitwise`; for the bits of a float, use an atomic of `u32`/`u64` with `to_bits`/`from_bits`, or `fetch_update` (a compare-exchange loop)"
)]
pub trait AtomicBitwise: AtomicPrimitive + sealed::NotPointer {
    #[doc(hidden)]
    fn raw_fetch_and<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn raw_fetch_nand<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn raw_fetch_or<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn raw_fetch_xor<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> Self;
}

/// The integers `u8` … `u128`, `i8` … `i128`, `usize`, `isize`: [`AtomicArithmetic`] (wrapping)
/// and [`AtomicBitwise`]. Sealed.
///
/// # 128-bit integers
///
/// `Atomic<u128, S>` and `Atomic<i128, S>` have every method the 64-bit integers have except the
/// reductions (`add`, `or`, …: PTX has no 128-bit `red`) and `as_core` (`core` has no stable
/// 128-bit atomic). Where they run:
///
/// * host: `portable_atomic::AtomicU128`, lock-free where the CPU has a 128-bit compare-and-swap
///   (x86_64 with `cmpxchg16b`, detected at run time; aarch64; …), with portable-atomic's locks
///   elsewhere; [`Atomic::is_lock_free`](crate::Atomic::is_lock_free) says which.
/// * device: `load` and `store` are `ld`/`st` `.b128` (PTX ISA 8.3 on sm_70 or newer; PTX ISA
///   8.4 at the `System` scope); `swap` is `atom.exch.b128`, `compare_exchange` is
///   `atom.cas.b128`, and `fetch_add`, `fetch_and`, `fetch_max`, … are `atom.cas.b128` loops
///   (sm_90 with PTX ISA 8.3, 8.4 at the `System` scope). Every sequence follows the ABI
///   table as the 64-bit operations do. Build with e.g. scoped-atomics-build's
///   `PtxBuilder::new(..).arch("sm_90").ptx_isa(8, 4)` (`-C target-cpu=sm_90 -C
///   target-feature=+ptx84` for every crate); on a target without them, using an operation is
///   a compile-time error that names what it needs.
/// * `--cfg loom`: the mirror models them like every other value.
///
/// What "atomic" rests on at 128 bits:
///
/// * **Device.** The PTX memory model relates scalar accesses of at most 64 bits; it models a
///   vector access as a set of scalar accesses in an unspecified order (PTX ISA, memory
///   consistency model, §8.2.4). That a `.b128` `ld`/`st`/`atom` is single-copy atomic rests on
///   the instruction descriptions of `ld`, `st` and `atom` (a `.b128` access is performed as one
///   access), as libcu++'s 128-bit `cuda::atomic` rests on them too; the model's axioms (and this
///   project's litmus checker) say nothing about it.
/// * **Host and device together.** An `Atomic<u128, System>` in memory that a kernel also
///   accesses is atomic only where the host side is lock-free (`is_lock_free()`):
///   portable-atomic's fallback takes a lock that the GPU knows nothing of, so the device's
///   `.b128` accesses race with the host's locked ones. And even then the PTX memory model limits
///   atomicity at the system scope: on some systems, some strong system-scope operations on
///   host memory are not performed atomically (§8.1.1, which defers to CUDA's atomicity
///   requirements), so a 128-bit atomic shared with the host is as atomic as the platform makes
///   it.
///
/// ```
/// use scoped_atomics::{Atomic, Device, Ordering};
///
/// // A 128-bit "version + value" word that is updated as one.
/// let slot = Atomic::<u128, Device>::new(0);
/// let publish = |value: u64| {
///     slot.fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
///         let version = (old >> 64) as u64 + 1;
///         Some((u128::from(version) << 64) | u128::from(value))
///     })
/// };
/// publish(7).unwrap();
/// publish(9).unwrap();
/// assert_eq!(slot.load(Ordering::Acquire), (2 << 64) | 9);
/// assert_eq!(Atomic::<i128, Device>::new(-1).fetch_add(1 << 100, Ordering::Relaxed), -1);
/// ```
///
/// ```
/// use scoped_atomics::{Atomic, AtomicInteger, Block, Ordering, Scope};
///
/// /// Takes a ticket and toggles the low bit of the flags word.
/// fn ticket<T: AtomicInteger, S: Scope>(next: &Atomic<T, S>, one: T) -> T {
///     next.fetch_xor(one, Ordering::Relaxed);
///     next.fetch_add(one, Ordering::Relaxed)
/// }
///
/// let next = Atomic::<i16, Block>::new(0);
/// assert_eq!(ticket(&next, 1), 1);
/// assert_eq!(next.load(Ordering::Relaxed), 2);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an atomic integer type",
    label = "`{Self}` is not `AtomicInteger`",
    note = "`AtomicInteger` is `u8` … `u128`, `i8` … `i128`, `usize` and `isize`; for floats use `AtomicFloat` or `AtomicArithmetic`, for `bool` `AtomicBitwise`"
)]
pub trait AtomicInteger: AtomicArithmetic + AtomicBitwise {}

/// `f32`, `f64` and the half-precision [`f16`](crate::f16) and [`bf16`](crate::bf16):
/// [`AtomicArithmetic`] with these rules, the same on every backend. Sealed.
///
/// * `fetch_add` / `fetch_sub` round as IEEE addition does. On the device they are
///   `atom.add.f32` / `atom.add.f64` (subtraction adds the negation, which is exact);
///   `atom.add.f32` flushes subnormal inputs and results to sign-preserving zero, so a sum that is
///   subnormal on the host is `0.0` on the device. `atom.add.f64` keeps subnormals.
/// * `f16` / `bf16` add with `atom.add.noftz.f16` (sm_70) / `atom.add.noftz.bf16` (sm_90; a
///   compare-and-swap loop before it), which keep subnormals and round to nearest even, as the
///   host does (`half`'s arithmetic); so the device and the host agree bit for bit (a NaN result
///   may differ in sign and payload, which IEEE leaves open).
/// * `fetch_min` / `fetch_max` follow [`f32::min`] / [`f32::max`]: a NaN operand is ignored (the
///   other one is kept), and a NaN is stored only if both are NaN. They are a compare-exchange loop
///   on the bits on every backend.
/// * `compare_exchange` compares **bits**: `-0.0` does not match `0.0`, and a NaN matches a NaN
///   with the same bits.
///
/// ```
/// use scoped_atomics::{Atomic, AtomicFloat, Device, Ordering, Scope};
///
/// fn running_max<T: AtomicFloat, S: Scope>(m: &Atomic<T, S>, sample: T) -> T {
///     m.fetch_max(sample, Ordering::Relaxed)
/// }
///
/// let m = Atomic::<f64, Device>::new(f64::NAN);
/// running_max(&m, 2.5);
/// running_max(&m, f64::NAN); // ignored
/// assert_eq!(m.load(Ordering::Relaxed), 2.5);
///
/// use scoped_atomics::{bf16, f16};
/// let h = Atomic::<f16, Device>::new(f16::from_f32(1.5));
/// h.add(f16::from_f32(0.25), Ordering::Relaxed); // `red.relaxed.gpu.add.noftz.f16`
/// assert_eq!(h.load(Ordering::Relaxed).to_f32(), 1.75);
/// let b = Atomic::<bf16, Device>::new(bf16::ONE);
/// assert_eq!(running_max(&b, bf16::from_f32(-2.0)), bf16::ONE);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an atomic float type",
    label = "`{Self}` is not `AtomicFloat`",
    note = "`AtomicFloat` is `f32`, `f64`, `f16` and `bf16`; for integers use `AtomicInteger` or `AtomicArithmetic`"
)]
pub trait AtomicFloat: AtomicArithmetic {}

/// The value types with fire-and-forget reductions `add` and `sub` (PTX `red`): the 32- and
/// 64-bit integers (`u32`, `i32`, `u64`, `i64`, `usize`, `isize`) and the floats `f32`, `f64`,
/// `f16`, `bf16` (`bf16` before sm_90: a compare-and-swap loop). Sealed.
///
/// ```
/// use scoped_atomics::{Atomic, AtomicReduce, Device, Ordering, Scope};
///
/// fn count<T: AtomicReduce, S: Scope>(hits: &Atomic<T, S>, one: T) {
///     hits.add(one, Ordering::Relaxed); // `red.relaxed.<scope>.add` on the device
/// }
///
/// let hits = Atomic::<f32, Device>::new(0.0);
/// count(&hits, 1.0);
/// assert_eq!(hits.load(Ordering::Relaxed), 1.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no fire-and-forget reductions (`add`, `sub`: PTX `red`)",
    label = "`{Self}` is not `AtomicReduce`",
    note = "the 32- and 64-bit integers and the floats are `AtomicReduce` (PTX has no 8-, 16- or 128-bit `red`); otherwise call `fetch_add`/`fetch_sub` and ignore the result"
)]
pub trait AtomicReduce: AtomicArithmetic {
    #[doc(hidden)]
    fn raw_add<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering);
    #[doc(hidden)]
    fn raw_sub<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering);
}

/// The 32- and 64-bit integers, with the reductions `and`, `or`, `xor`, `min`, `max` (PTX `red`)
/// besides [`AtomicReduce`]'s. Sealed.
///
/// ```
/// use scoped_atomics::{Atomic, AtomicIntegerReduce, Block, Ordering, Scope};
///
/// fn mark<T: AtomicIntegerReduce, S: Scope>(seen: &Atomic<T, S>, bit: T) {
///     seen.or(bit, Ordering::Relaxed);
/// }
///
/// let seen = Atomic::<u64, Block>::new(0);
/// mark(&seen, 1 << 40);
/// assert_eq!(seen.load(Ordering::Relaxed), 1 << 40);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no bitwise or min/max reductions (`and`, `or`, `xor`, `min`, `max`: PTX `red`)",
    label = "`{Self}` is not `AtomicIntegerReduce`",
    note = "the 32- and 64-bit integers are `AtomicIntegerReduce`; otherwise call `fetch_and`/`fetch_or`/`fetch_xor`/`fetch_min`/`fetch_max` and ignore the result"
)]
pub trait AtomicIntegerReduce: AtomicReduce + AtomicInteger {
    #[doc(hidden)]
    fn raw_and<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering);
    #[doc(hidden)]
    fn raw_or<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering);
    #[doc(hidden)]
    fn raw_xor<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering);
    #[doc(hidden)]
    fn raw_min<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering);
    #[doc(hidden)]
    fn raw_max<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering);
}

/// `AtomicPrimitive` for each value type: `$storage` is its backend storage, `|$v| $bits` its
/// bits as the storage holds them and `|$b| $value` the way back.
macro_rules! primitives {
    ($($t:ty => $storage:ident, $default:expr, |$v:ident| $bits:expr, |$b:ident| $value:expr
        $(, lock_free: $always:expr, $now:expr)?;)*) => {$(
        impl sealed::Sealed for $t {}
        impl sealed::NotPointer for $t {}
        impl AtomicPrimitive for $t {
            type Storage = Storage::$storage;
            #[inline(always)]
            fn default_value() -> Self {
                $default
            }
            $(
                const ALWAYS_LOCK_FREE: bool = $always;
                #[inline(always)]
                fn is_lock_free() -> bool {
                    $now
                }
            )?
            #[inline(always)]
            fn same_bits(self, other: Self) -> bool {
                let bits = |$v: $t| $bits;
                bits(self) == bits(other)
            }
            #[cfg(loom)]
            fn storage_new(value: Self) -> Self::Storage {
                let $v = value;
                Storage::$storage::new($bits)
            }
            #[cfg(loom)]
            fn storage_into_inner(storage: Self::Storage) -> Self {
                let $b = storage.into_inner();
                $value
            }
            #[cfg(loom)]
            unsafe fn mirror_view<'a>(ptr: *mut Self) -> &'a Self::Storage {
                // SAFETY: the caller's contract.
                unsafe { crate::imp::view(ptr.cast()) }
            }
        }
    )*};
}

primitives! {
    bool => Bool, false, |v| v, |v| v;
    u8 => U8, 0, |v| v, |v| v;
    i8 => I8, 0, |v| v, |v| v;
    u16 => U16, 0, |v| v, |v| v;
    i16 => I16, 0, |v| v, |v| v;
    u32 => U32, 0, |v| v, |v| v;
    i32 => I32, 0, |v| v, |v| v;
    u64 => U64, 0, |v| v, |v| v;
    i64 => I64, 0, |v| v, |v| v;
    usize => Usize, 0, |v| v, |v| v;
    isize => Isize, 0, |v| v, |v| v;
    f32 => F32, 0.0, |v| v.to_bits(), |bits| f32::from_bits(bits);
    f64 => F64, 0.0, |v| v.to_bits(), |bits| f64::from_bits(bits);
    f16 => F16, f16::ZERO, |v| v.to_bits(), |bits| f16::from_bits(bits);
    bf16 => Bf16, bf16::ZERO, |v| v.to_bits(), |bits| bf16::from_bits(bits);
    u128 => U128, 0, |v| v, |v| v, lock_free: wide_lock_free::ALWAYS_U128, wide_lock_free::u128_now();
    i128 => I128, 0, |v| v, |v| v, lock_free: wide_lock_free::ALWAYS_I128, wide_lock_free::i128_now();
}

/// Lock-freedom of the 128-bit atomics: on the host portable-atomic's answer (it asks the CPU);
/// on the device (`atom.cas.b128`) and under loom always.
mod wide_lock_free {
    #[cfg(not(any(target_arch = "nvptx64", loom)))]
    mod answer {
        use portable_atomic::{AtomicI128, AtomicU128};
        pub(crate) const ALWAYS_U128: bool = AtomicU128::is_always_lock_free();
        pub(crate) const ALWAYS_I128: bool = AtomicI128::is_always_lock_free();
        #[inline]
        pub(crate) fn u128_now() -> bool {
            AtomicU128::is_lock_free()
        }
        #[inline]
        pub(crate) fn i128_now() -> bool {
            AtomicI128::is_lock_free()
        }
    }
    #[cfg(any(target_arch = "nvptx64", loom))]
    mod answer {
        pub(crate) const ALWAYS_U128: bool = true;
        pub(crate) const ALWAYS_I128: bool = true;
        #[inline(always)]
        pub(crate) fn u128_now() -> bool {
            true
        }
        #[inline(always)]
        pub(crate) fn i128_now() -> bool {
            true
        }
    }
    pub(super) use answer::*;
}

/// `AtomicCoreInterop` for each value type with a `core::sync::atomic` counterpart.
macro_rules! core_interop {
    ($($t:ty => $storage:ident),*) => {$(
        impl AtomicCoreInterop for $t {
            type Core = core_storage::$storage;
        }
    )*};
}

core_interop! {
    bool => Bool, u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32,
    u64 => U64, i64 => I64, usize => Usize, isize => Isize, f32 => F32, f64 => F64,
    f16 => F16, bf16 => Bf16
}

impl<U> AtomicCoreInterop for *mut U {
    type Core = core_storage::Ptr<U>;
}

impl<U> sealed::Sealed for *mut U {}
impl<U> AtomicPrimitive for *mut U {
    type Storage = Storage::Ptr<U>;
    #[inline(always)]
    fn default_value() -> Self {
        core::ptr::null_mut()
    }
    #[inline(always)]
    fn same_bits(self, other: Self) -> bool {
        // The address, as `AtomicPtr::compare_exchange` compares it (provenance is not compared).
        self == other
    }
    #[cfg(loom)]
    fn storage_new(value: Self) -> Self::Storage {
        Storage::Ptr::new(value)
    }
    #[cfg(loom)]
    fn storage_into_inner(storage: Self::Storage) -> Self {
        storage.into_inner()
    }
    #[cfg(loom)]
    unsafe fn mirror_view<'a>(ptr: *mut Self) -> &'a Self::Storage {
        // SAFETY: the caller's contract.
        unsafe { crate::imp::view(ptr) }
    }
}

impl<T: AtomicValue> sealed::Sealed for T {}

/// A user's type travels as its `Bits` (see [`AtomicValue`]): the integer's storage, lock
/// freedom and mirror location.
impl<T> AtomicPrimitive for T
where
    T: AtomicValue,
    <T::Bits as AtomicPrimitive>::Storage: RawAtomic<T>,
{
    type Storage = <T::Bits as AtomicPrimitive>::Storage;
    const ALWAYS_LOCK_FREE: bool = <T::Bits as AtomicPrimitive>::ALWAYS_LOCK_FREE;
    #[inline(always)]
    fn is_lock_free() -> bool {
        <T::Bits as AtomicPrimitive>::is_lock_free()
    }
    #[inline(always)]
    fn default_value() -> Self {
        T::default()
    }
    #[inline(always)]
    fn same_bits(self, other: Self) -> bool {
        value::to_bits(self) == value::to_bits(other)
    }
    #[cfg(loom)]
    fn storage_new(value: Self) -> Self::Storage {
        <T::Bits as AtomicPrimitive>::storage_new(value::to_bits(value))
    }
    #[cfg(loom)]
    fn storage_into_inner(storage: Self::Storage) -> Self {
        value::from_bits(<T::Bits as AtomicPrimitive>::storage_into_inner(storage))
    }
    #[cfg(loom)]
    unsafe fn mirror_view<'a>(ptr: *mut Self) -> &'a Self::Storage {
        // SAFETY: the caller's contract; `Self` and `Bits` have one size.
        unsafe { <T::Bits as AtomicPrimitive>::mirror_view(ptr.cast()) }
    }
}

/// Forwards a capability trait's hidden methods to the backend trait `$raw` of the storage.
macro_rules! forward {
    ($capability:ident via $raw:ident for $($t:ty),*: $methods:tt) => {$(
        forward!(@impl $capability, $raw, $t, $methods);
    )*};
    (@impl $capability:ident, $raw:ident, $t:ty, {$($name:ident => $raw_name:ident -> $ret:ty),*}) => {
        impl $capability for $t {$(
            #[inline(always)]
            #[cfg_attr(loom, track_caller)]
            fn $name<S: Scope>(storage: &Self::Storage, value: Self, order: Ordering) -> $ret {
                <Self::Storage as $raw<$t>>::$raw_name::<S>(storage, value, order)
            }
        )*}
    };
}

forward! { AtomicArithmetic via RawInt for u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, usize, isize: {
    raw_fetch_add => fetch_add -> Self, raw_fetch_sub => fetch_sub -> Self,
    raw_fetch_min => fetch_min -> Self, raw_fetch_max => fetch_max -> Self
}}
forward! { AtomicArithmetic via RawFloat for f32, f64, f16, bf16: {
    raw_fetch_add => fetch_add -> Self, raw_fetch_sub => fetch_sub -> Self,
    raw_fetch_min => fetch_min -> Self, raw_fetch_max => fetch_max -> Self
}}
forward! { AtomicBitwise via RawInt for u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, usize, isize: {
    raw_fetch_and => fetch_and -> Self, raw_fetch_nand => fetch_nand -> Self,
    raw_fetch_or => fetch_or -> Self, raw_fetch_xor => fetch_xor -> Self
}}
forward! { AtomicReduce via RawReduce for u32, i32, u64, i64, usize, isize, f32, f64, f16, bf16: {
    raw_add => reduce_add -> (), raw_sub => reduce_sub -> ()
}}
forward! { AtomicIntegerReduce via RawIntReduce for u32, i32, u64, i64, usize, isize: {
    raw_and => reduce_and -> (), raw_or => reduce_or -> (), raw_xor => reduce_xor -> (),
    raw_min => reduce_min -> (), raw_max => reduce_max -> ()
}}

impl AtomicBitwise for bool {
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    fn raw_fetch_and<S: Scope>(storage: &Self::Storage, value: bool, order: Ordering) -> bool {
        <Self::Storage as RawBool>::fetch_and::<S>(storage, value, order)
    }
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    fn raw_fetch_nand<S: Scope>(storage: &Self::Storage, value: bool, order: Ordering) -> bool {
        <Self::Storage as RawBool>::fetch_nand::<S>(storage, value, order)
    }
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    fn raw_fetch_or<S: Scope>(storage: &Self::Storage, value: bool, order: Ordering) -> bool {
        <Self::Storage as RawBool>::fetch_or::<S>(storage, value, order)
    }
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    fn raw_fetch_xor<S: Scope>(storage: &Self::Storage, value: bool, order: Ordering) -> bool {
        <Self::Storage as RawBool>::fetch_xor::<S>(storage, value, order)
    }
}

macro_rules! markers {
    ($marker:ident: $($t:ty),*) => {$( impl $marker for $t {} )*};
}
markers! { AtomicInteger: u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, usize, isize }
markers! { AtomicFloat: f32, f64, f16, bf16 }
