//! What C++ and `core` users reach for besides the operations: lock-freedom and alignment queries
//! (libcu++'s `is_lock_free`, `is_always_lock_free`, `required_alignment`), `core`'s
//! slice conversions, and views as `core::sync::atomic` types on the host.

use super::Atomic;
use crate::{AtomicCoreInterop, AtomicPrimitive, Scope};

impl<T: AtomicPrimitive, S: Scope> Atomic<T, S> {
    /// Whether every operation on this type is lock-free on every machine this build runs on
    /// (libcu++'s `is_always_lock_free`). True for every value type on the device (native PTX
    /// atomics or compare-and-swap loops on them) and under loom; on the host true for every
    /// value type up to 64 bits (`core::sync::atomic` types, which `core` provides only where
    /// they are lock-free), and for `u128`/`i128` only where the build targets a CPU that has a
    /// 128-bit compare-and-swap (e.g. `-C target-feature=+cmpxchg16b`; otherwise
    /// [`is_lock_free`](Self::is_lock_free) asks the CPU at run time).
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device};
    /// const LOCK_FREE: bool = Atomic::<u64, Device>::is_always_lock_free();
    /// assert!(LOCK_FREE);
    /// ```
    #[inline(always)]
    #[must_use]
    pub const fn is_always_lock_free() -> bool {
        T::ALWAYS_LOCK_FREE
    }

    /// Whether the operations on this atomic are lock-free on this machine (libcu++'s
    /// `is_lock_free()`). It differs from [`is_always_lock_free`](Self::is_always_lock_free) only
    /// for `u128`/`i128` on the host, where the CPU is asked (x86_64 `cmpxchg16b`); no value type
    /// here is lock-free only at some addresses.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Block};
    /// assert!(Atomic::<f32, Block>::new(0.0).is_lock_free());
    /// // `true` on every x86_64 CPU of the last 15 years, and on aarch64.
    /// let wide = Atomic::<u128, Block>::new(0).is_lock_free();
    /// assert!(wide || !Atomic::<u128, Block>::is_always_lock_free());
    /// ```
    #[inline(always)]
    #[must_use]
    pub fn is_lock_free(&self) -> bool {
        T::is_lock_free()
    }

    /// The alignment memory must have to be viewed as this atomic ([`AtomicRef::from_ptr`],
    /// [`from_ptr`](Self::from_ptr)); libcu++'s `atomic_ref<T>::required_alignment`. It is the
    /// size of `T`, which can be more than `align_of::<T>()` (`u64` on 32-bit x86).
    ///
    /// [`AtomicRef::from_ptr`]: crate::AtomicRef::from_ptr
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device};
    /// assert_eq!(Atomic::<u64, Device>::required_alignment(), 8);
    /// assert_eq!(Atomic::<bool, Device>::required_alignment(), 1);
    /// assert_eq!(Atomic::<u128, Device>::required_alignment(), 16);
    /// ```
    #[inline(always)]
    #[must_use]
    pub const fn required_alignment() -> usize {
        core::mem::size_of::<T>()
    }

    /// The values of a slice of atomics the caller holds exclusively (`core`'s unstable
    /// `get_mut_slice`): no other thread can access them meanwhile. Not available under
    /// `--cfg loom`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut atomics = [Atomic::<u32, Device>::new(1), Atomic::new(2)];
    /// Atomic::get_mut_slice(&mut atomics)[0] = 5;
    /// assert_eq!(atomics[0].load(Ordering::Relaxed), 5);
    /// ```
    #[cfg(not(loom))]
    #[inline(always)]
    pub fn get_mut_slice(this: &mut [Self]) -> &mut [T] {
        // SAFETY: `Self` has `T`'s size and holds `T`'s bits (see `new`), and at least its
        // alignment; the exclusive borrow excludes every other access while the result lives.
        unsafe { &mut *(this as *mut [Self] as *mut [T]) }
    }
}

impl<T: AtomicCoreInterop, S: Scope> Atomic<T, S> {
    /// This atomic as the `core::sync::atomic` type of its width — `AtomicU32` for `u32` (and for
    /// `f32`, as its bits), `AtomicBool` for `bool`, `AtomicPtr<U>` for `*mut U` — to pass it to
    /// an API that takes `core`'s atomics. Not for `u128`/`i128`, which have no stable `core`
    /// counterpart (see [`AtomicCoreInterop`]).
    ///
    /// Host targets only (not `nvptx64`, not `--cfg loom`). There the storage of every `Atomic<T,
    /// S>` *is* that `core` type and the scope changes no instruction, so `core`'s operations on
    /// the view are exactly this atomic's, and the view is sound: the same object, the same size,
    /// accessed only atomically. On the device, `core`'s operations would be LLVM's lowering with
    /// its own scope (not `S`), so a `core` view would silently change the scope; under loom the
    /// storage is a model location. Both are a compile error rather than a surprise.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// use std::sync::atomic::AtomicU32;
    /// fn bump(counter: &AtomicU32) {
    ///     counter.fetch_add(1, Ordering::Relaxed);
    /// }
    /// let a = Atomic::<u32, Device>::new(1);
    /// bump(a.as_core());
    /// assert_eq!(a.load(Ordering::Relaxed), 2);
    /// ```
    #[cfg(not(any(target_arch = "nvptx64", loom)))]
    #[inline(always)]
    pub const fn as_core(&self) -> &T::Core {
        // SAFETY: on the host backend `T::Storage` is `T::Core` (both are
        // `imp::core_storage`'s type for `T`), over which `Self` is `repr(transparent)`.
        unsafe { &*(self as *const Self).cast::<T::Core>() }
    }

    /// The scoped atomic at a `core::sync::atomic` object of its width (the way back from
    /// [`as_core`](Self::as_core)); host targets only, for the same reason.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Block, Ordering};
    /// use std::sync::atomic::AtomicBool;
    /// let flag = AtomicBool::new(false);
    /// Atomic::<bool, Block>::from_core(&flag).store(true, Ordering::Release);
    /// assert!(flag.load(Ordering::Acquire));
    /// ```
    #[cfg(not(any(target_arch = "nvptx64", loom)))]
    #[inline(always)]
    pub const fn from_core(atomic: &T::Core) -> &Self {
        // SAFETY: as for `as_core`: `Self` is `repr(transparent)` over `T::Core` on the host.
        unsafe { &*(atomic as *const T::Core).cast::<Self>() }
    }
}
