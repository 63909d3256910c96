//! `Atomic<T, S>`: the typed front over the backends.
//!
//! One macro per kind of value (integer, float, bool, pointer) generates the inherent methods for
//! each concrete `T`, as `core::sync::atomic` does; [`atomic_common!`] generates what all kinds share.

use crate::{AtomicPrimitive, AtomicRef, Scope, System};
use core::marker::PhantomData;

mod bool;
mod float;
mod int;
mod ptr;

/// An atomic `T` whose operations synchronise with the threads of scope `S`; `cuda::atomic<T, S>`.
///
/// `T` is `bool`, an integer, `f32`, `f64` or `*mut U`; `S` is [`Thread`](crate::Thread),
/// [`Block`](crate::Block), [`Cluster`](crate::Cluster), [`Device`](crate::Device) or
/// [`System`] (the default). The methods are those of the `core::sync::atomic` type of the same
/// `T`, with the same signatures and semantics; each is documented on its concrete type below.
///
/// `Atomic<T, S>` has the size, alignment and bit layout of the `core::sync::atomic` type of the
/// same width (`AtomicU32` for `u32` and `f32`), whatever `S` is, so a `#[repr(C)]` struct shared by
/// host and device code can hold one.
///
/// On `nvptx64` every operation is the recommended PTX sequence of the Atomics ABI for its ordering
/// and `S` (`ld.acquire.gpu`, `atom.acq_rel.cta.add`, …); on the host it is the `core` operation;
/// under `--cfg loom` it is loom's, checked against the scoped data-race rule.
///
/// ```
/// use scoped_atomics::{Atomic, Block, Device, Ordering};
/// let hits = Atomic::<u32, Device>::new(0);
/// hits.fetch_add(1, Ordering::Relaxed);
/// let local = Atomic::<f32, Block>::new(1.5);
/// local.fetch_add(2.0, Ordering::Relaxed);
/// assert_eq!((hits.load(Ordering::Relaxed), local.load(Ordering::Relaxed)), (1, 3.5));
/// ```
#[repr(transparent)]
pub struct Atomic<T: AtomicPrimitive, S: Scope = System> {
    inner: T::Storage,
    scope: PhantomData<S>,
}

impl<T: AtomicPrimitive, S: Scope> Atomic<T, S> {
    /// A view of this atomic with another scope, for the operations of one phase of an algorithm
    /// that needs a wider (or narrower) scope than the rest (`cuda::atomic_ref` of another scope
    /// over the same object). Mixing scopes on one location is allowed; whether two operations
    /// then synchronise depends on both scopes (PTX ISA 8.7, *morally strong*).
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Block, Device, Ordering};
    /// let counter = Atomic::<u32, Block>::new(0);
    /// counter.fetch_add(1, Ordering::Relaxed); // block-local phase
    /// counter.with_scope::<Device>().fetch_add(1, Ordering::Release); // publish to the device
    /// assert_eq!(counter.load(Ordering::Relaxed), 2);
    /// ```
    #[inline(always)]
    pub fn with_scope<S2: Scope>(&self) -> AtomicRef<'_, T, S2> {
        AtomicRef::from(self.rescoped::<S2>())
    }

    /// The same location as an atomic of another scope.
    #[inline(always)]
    pub(crate) fn rescoped<S2: Scope>(&self) -> &Atomic<T, S2> {
        // SAFETY: `Atomic<T, S>` is `repr(transparent)` over `T::Storage`; the scope is a
        // zero-sized marker, so both types have one layout and the borrow keeps its lifetime.
        unsafe { &*(self as *const Self).cast::<Atomic<T, S2>>() }
    }
}

/// Keeps `const` off a function under `--cfg loom`, whose atomics have no `const fn new`.
macro_rules! const_unless_loom {
    ($(#[$m:meta])* $vis:vis const fn $($rest:tt)*) => {
        #[cfg(not(loom))]
        $(#[$m])* $vis const fn $($rest)*
        #[cfg(loom)]
        $(#[$m])* $vis fn $($rest)*
    };
}
pub(crate) use const_unless_loom;

/// The methods and impls every `Atomic<T, S>` has. `example`, `setup`, `values`: the type name,
/// hidden set-up lines and two distinct values used by the doc examples.
macro_rules! atomic_common {
    (
        impl[$($gen:tt)*] $t:ty, storage $storage:ty,
        example $ex:expr, setup $setup:literal, values $a:literal, $b:literal,
        to_storage |$tv:ident| $to:expr, from_storage |$fv:ident| $from:expr $(,)?
    ) => {
        impl<$($gen)*> Atomic<$t, S> {
            crate::atomic::const_unless_loom! {
                /// Creates a new atomic holding `value`.
                ///
                /// ```
                /// use scoped_atomics::{Atomic, Device, Ordering};
                #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
                #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed), ", $a, ");")]
                /// ```
                #[inline(always)]
                #[must_use]
                pub const fn new(value: $t) -> Self {
                    let $tv = value;
                    Self { inner: <$storage>::new($to), scope: core::marker::PhantomData }
                }
            }

            crate::atomic::const_unless_loom! {
                /// Consumes the atomic and returns the value it holds.
                ///
                /// ```
                /// use scoped_atomics::{Atomic, Device};
                #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
                #[doc = concat!("assert_eq!(a.into_inner(), ", $a, ");")]
                /// ```
                #[inline(always)]
                pub const fn into_inner(self) -> $t {
                    let $fv = self.inner.into_inner();
                    $from
                }
            }

            /// Views memory the caller owns as an atomic (`core`'s `from_ptr`).
            ///
            /// # Safety
            /// As for `core::sync::atomic`: `ptr` is aligned to `align_of::<Self>()` and valid for
            /// reads and writes for `'a`; while the returned reference lives, every access to the
            /// location is atomic and of this size (the PTX model gives mixed-size races no
            /// guarantees, PTX ISA 8.7.2). Not available under `--cfg loom`.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let mut value = ", $a, ";")]
            /// // SAFETY: `value` is aligned, live for the borrow, and only accessed through `a`.
            #[doc = concat!("let a = unsafe { Atomic::<", $ex, ", Device>::from_ptr(&mut value) };")]
            #[doc = concat!("a.store(", $b, ", Ordering::Relaxed);")]
            #[doc = concat!("assert_eq!(value, ", $b, ");")]
            /// ```
            #[cfg(not(loom))]
            #[inline(always)]
            pub const unsafe fn from_ptr<'a>(ptr: *mut $t) -> &'a Self {
                // SAFETY: the caller's contract; `Self` has the layout of `$t` (same size, and an
                // alignment the caller guarantees).
                unsafe { &*ptr.cast::<Self>() }
            }

            /// Gives atomic access to a value the caller holds exclusively (`core`'s unstable
            /// `from_mut`). Compiles only where `$t` is as aligned as the atomic.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let mut value = ", $a, ";")]
            #[doc = concat!("Atomic::<", $ex, ", Device>::from_mut(&mut value).store(", $b, ", Ordering::Relaxed);")]
            #[doc = concat!("assert_eq!(value, ", $b, ");")]
            /// ```
            #[cfg(not(loom))]
            #[inline(always)]
            pub fn from_mut(value: &mut $t) -> &mut Self {
                const { assert!(core::mem::align_of::<$t>() >= core::mem::align_of::<Self>()) };
                // SAFETY: same size and (checked above) sufficient alignment; the exclusive borrow
                // is handed on, so no other access exists while the result lives.
                unsafe { &mut *(value as *mut $t).cast::<Self>() }
            }

            /// Gives atomic access to every element of a slice the caller holds exclusively, e.g. a
            /// per-block histogram in a `&mut [u32]`.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let mut values = [", $a, ", ", $a, "];")]
            #[doc = concat!("let atomics = Atomic::<", $ex, ", Device>::from_mut_slice(&mut values);")]
            #[doc = concat!("atomics[1].store(", $b, ", Ordering::Relaxed);")]
            #[doc = concat!("assert_eq!(values, [", $a, ", ", $b, "]);")]
            /// ```
            #[cfg(not(loom))]
            #[inline(always)]
            pub fn from_mut_slice(values: &mut [$t]) -> &mut [Self] {
                const { assert!(core::mem::align_of::<$t>() >= core::mem::align_of::<Self>()) };
                // SAFETY: as for `from_mut`, element by element; the length is unchanged.
                unsafe { &mut *(values as *mut [$t] as *mut [Self]) }
            }

            /// A mutable reference to the value: no other thread can access it meanwhile. Not
            /// available under `--cfg loom` (loom's atomics offer only `with_mut`).
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let mut a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("*a.get_mut() = ", $b, ";")]
            #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed), ", $b, ");")]
            /// ```
            #[cfg(not(loom))]
            #[inline(always)]
            pub fn get_mut(&mut self) -> &mut $t {
                // SAFETY: `&mut self` excludes every other access; the pointer is valid and aligned.
                unsafe { &mut *self.as_ptr() }
            }

            /// A raw pointer to the value, for passing to a kernel or to foreign code. Accesses
            /// through it that race with this atomic must be atomic and of the same size.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            /// // SAFETY: no other access while we read.
            #[doc = concat!("assert_eq!(unsafe { a.as_ptr().read() }, ", $a, ");")]
            /// ```
            #[cfg(not(loom))]
            #[inline(always)]
            pub const fn as_ptr(&self) -> *mut $t {
                self.inner.as_ptr().cast::<$t>()
            }

            /// Loads the value. `order` is `Relaxed`, `Acquire` or `SeqCst`.
            ///
            /// # Panics
            /// If `order` is `Release` or `AcqRel`, with `core`'s message.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("assert_eq!(a.load(Ordering::Acquire), ", $a, ");")]
            /// ```
            #[inline(always)]
            pub fn load(&self, order: core::sync::atomic::Ordering) -> $t {
                <$storage as crate::imp::RawAtomic<$t>>::load::<S>(&self.inner, order)
            }

            /// Stores `value`. `order` is `Relaxed`, `Release` or `SeqCst`.
            ///
            /// # Panics
            /// If `order` is `Acquire` or `AcqRel`, with `core`'s message.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("a.store(", $b, ", Ordering::Release);")]
            #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed), ", $b, ");")]
            /// ```
            #[inline(always)]
            pub fn store(&self, value: $t, order: core::sync::atomic::Ordering) {
                <$storage as crate::imp::RawAtomic<$t>>::store::<S>(&self.inner, value, order)
            }

            /// Stores `value` and returns the previous value.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("assert_eq!(a.swap(", $b, ", Ordering::AcqRel), ", $a, ");")]
            #[doc = concat!("assert_eq!(a.load(Ordering::Relaxed), ", $b, ");")]
            /// ```
            #[inline(always)]
            pub fn swap(&self, value: $t, order: core::sync::atomic::Ordering) -> $t {
                <$storage as crate::imp::RawAtomic<$t>>::swap::<S>(&self.inner, value, order)
            }

            /// Stores `new` if the value is `current` (compared bit for bit), returning the
            /// previous value: `Ok` if it was `current`, `Err` otherwise. `failure` is the ordering
            /// of the load when the comparison fails.
            ///
            /// # Panics
            /// If `failure` is `Release` or `AcqRel`, with `core`'s message.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering::*};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("assert_eq!(a.compare_exchange(", $a, ", ", $b, ", AcqRel, Acquire), Ok(", $a, "));")]
            #[doc = concat!("assert_eq!(a.compare_exchange(", $a, ", ", $b, ", AcqRel, Acquire), Err(", $b, "));")]
            /// ```
            #[inline(always)]
            pub fn compare_exchange(
                &self,
                current: $t,
                new: $t,
                success: core::sync::atomic::Ordering,
                failure: core::sync::atomic::Ordering,
            ) -> Result<$t, $t> {
                <$storage as crate::imp::RawAtomic<$t>>::compare_exchange::<S>(
                    &self.inner, current, new, success, failure,
                )
            }

            /// Like [`compare_exchange`](Self::compare_exchange), but may fail spuriously even
            /// when the value is `current`; use it in a loop.
            ///
            /// # Panics
            /// If `failure` is `Release` or `AcqRel`, with `core`'s message.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering::*};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("while a.compare_exchange_weak(", $a, ", ", $b, ", Release, Relaxed).is_err() {}")]
            #[doc = concat!("assert_eq!(a.load(Relaxed), ", $b, ");")]
            /// ```
            #[inline(always)]
            pub fn compare_exchange_weak(
                &self,
                current: $t,
                new: $t,
                success: core::sync::atomic::Ordering,
                failure: core::sync::atomic::Ordering,
            ) -> Result<$t, $t> {
                <$storage as crate::imp::RawAtomic<$t>>::compare_exchange_weak::<S>(
                    &self.inner, current, new, success, failure,
                )
            }

            /// Applies `f` to the value until a compare-exchange stores its result, as `core`'s
            /// `fetch_update`: `Ok(previous)` once stored, `Err(previous)` if `f` returns `None`.
            ///
            /// # Panics
            /// If `fetch_order` is `Release` or `AcqRel`, with `core`'s message.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering::*};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("assert_eq!(a.fetch_update(AcqRel, Acquire, |_| None), Err(", $a, "));")]
            #[doc = concat!("assert_eq!(a.fetch_update(AcqRel, Acquire, |_| Some(", $b, ")), Ok(", $a, "));")]
            #[doc = concat!("assert_eq!(a.load(Relaxed), ", $b, ");")]
            /// ```
            #[inline]
            pub fn fetch_update<F>(
                &self,
                set_order: core::sync::atomic::Ordering,
                fetch_order: core::sync::atomic::Ordering,
                f: F,
            ) -> Result<$t, $t>
            where
                F: FnMut($t) -> Option<$t>,
            {
                self.try_update(set_order, fetch_order, f)
            }

            /// `core`'s new name of [`fetch_update`](Self::fetch_update) (Rust 1.95): applies
            /// `f` until a compare-exchange stores its result; `Ok(previous)` once stored,
            /// `Err(previous)` if `f` returns `None`.
            ///
            /// # Panics
            /// If `fetch_order` is `Release` or `AcqRel`, with `core`'s message.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering::*};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("assert_eq!(a.try_update(AcqRel, Acquire, |_| Some(", $b, ")), Ok(", $a, "));")]
            /// ```
            #[inline]
            pub fn try_update(
                &self,
                set_order: core::sync::atomic::Ordering,
                fetch_order: core::sync::atomic::Ordering,
                mut f: impl FnMut($t) -> Option<$t>,
            ) -> Result<$t, $t> {
                let mut previous = self.load(fetch_order);
                while let Some(next) = f(previous) {
                    match self.compare_exchange_weak(previous, next, set_order, fetch_order) {
                        stored @ Ok(_) => return stored,
                        Err(current) => previous = current,
                    }
                }
                Err(previous)
            }

            /// Applies `f` until a compare-exchange stores its result and returns the previous
            /// value (`core`'s `update`, Rust 1.95).
            ///
            /// # Panics
            /// If `fetch_order` is `Release` or `AcqRel`, with `core`'s message.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering::*};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("assert_eq!(a.update(AcqRel, Acquire, |_| ", $b, "), ", $a, ");")]
            #[doc = concat!("assert_eq!(a.load(Relaxed), ", $b, ");")]
            /// ```
            #[inline]
            pub fn update(
                &self,
                set_order: core::sync::atomic::Ordering,
                fetch_order: core::sync::atomic::Ordering,
                mut f: impl FnMut($t) -> $t,
            ) -> $t {
                match self.try_update(set_order, fetch_order, |previous| Some(f(previous))) {
                    Ok(previous) | Err(previous) => previous,
                }
            }

            /// Waits until the value differs from `old` (compared bit for bit), as C++20
            /// `atomic::wait(old, order)`: loads with `order` (`Relaxed`, `Acquire` or `SeqCst`)
            /// and returns once a load reads another value. Pair it with
            /// [`notify_one`](Self::notify_one) / [`notify_all`](Self::notify_all) after the store.
            ///
            /// The load that returns is a load with `order`: with `Acquire` and a `Release` store,
            /// everything before the store happens before `wait` returns. A change that is undone
            /// before the waiter looks (A → B → A) may go unnoticed, as in C++. On the host with
            /// `std` the thread blocks after a short spin; on the device it polls with `nanosleep`
            /// back-off; see [`crate::sync`].
            ///
            /// # Panics
            /// If `order` is `Release` or `AcqRel`, with `core`'s message.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("a.store(", $b, ", Ordering::Release);")]
            /// a.notify_all();
            #[doc = concat!("a.wait(", $a, ", Ordering::Acquire); // returns at once: the value changed")]
            /// ```
            #[inline]
            pub fn wait(&self, old: $t, order: core::sync::atomic::Ordering) {
                let bits = |$tv: $t| $to;
                let old = bits(old);
                crate::sync::wait::wait_until(crate::sync::wait::key(self), || {
                    bits(self.load(order)) != old
                });
            }

            /// Wakes at least one thread blocked in [`wait`](Self::wait) on this atomic, to
            /// re-check the value (C++20 `atomic::notify_one`). On the host with `std` it wakes
            /// every waiter that shares the atomic's parking bucket; elsewhere waiters poll and
            /// this does nothing.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("a.store(", $b, ", Ordering::Release);")]
            /// a.notify_one(); // no waiter: nothing happens
            /// ```
            #[inline]
            pub fn notify_one(&self) {
                crate::sync::wait::wake_all(crate::sync::wait::key(self))
            }

            /// Wakes every thread blocked in [`wait`](Self::wait) on this atomic, to re-check the
            /// value (C++20 `atomic::notify_all`). On the device and without `std`, waiters poll
            /// and this does nothing.
            ///
            /// ```
            /// use scoped_atomics::{Atomic, Device, Ordering};
            #[doc = concat!($setup, "let a = Atomic::<", $ex, ", Device>::new(", $a, ");")]
            #[doc = concat!("a.store(", $b, ", Ordering::Release);")]
            /// a.notify_all(); // no waiter: nothing happens
            /// ```
            ///
            /// Across threads, see the example of [`crate::sync`].
            #[inline]
            pub fn notify_all(&self) {
                crate::sync::wait::wake_all(crate::sync::wait::key(self))
            }
        }

        impl<$($gen)*> core::fmt::Debug for Atomic<$t, S> {
            /// Formats the value as `core`'s atomics do: a relaxed load, formatted as `T`.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Debug::fmt(&self.load(core::sync::atomic::Ordering::Relaxed), f)
            }
        }

        impl<$($gen)*> From<$t> for Atomic<$t, S> {
            /// Same as [`Atomic::new`].
            #[inline(always)]
            fn from(value: $t) -> Self {
                Self::new(value)
            }
        }
    };
}
pub(crate) use atomic_common;
