//! `Atomic<T, S>`: the typed front over the backends.
//!
//! One generic impl holds what every value type has (here); the operations of a capability
//! ([`AtomicArithmetic`](crate::AtomicArithmetic), [`AtomicBitwise`](crate::AtomicBitwise), …)
//! are impls bounded by its trait (`ops.rs`); `bool` and pointers add their own (`bool.rs`,
//! `ptr.rs`). Each method is written and documented once.

use crate::imp::RawAtomic;
use crate::{AtomicPrimitive, AtomicRef, PlainScope, RescopeFrom, Scope, System};
use core::fmt;
use core::marker::PhantomData;
use core::sync::atomic::Ordering;

mod bool;
mod interop;
mod ops;
mod ptr;

/// An atomic `T` whose operations synchronise with the threads of scope `S`; `cuda::atomic<T, S>`.
///
/// `T` is `bool`, an integer, `f32`, `f64`, [`f16`](crate::f16), [`bf16`](crate::bf16),
/// `*mut U`, or a type of the user's of 1, 2, 4, 8 or 16 bytes ([`AtomicValue`](crate::AtomicValue));
/// `S` is [`Thread`](crate::Thread),
/// [`Block`](crate::Block), [`Cluster`](crate::Cluster), [`Device`](crate::Device) or
/// [`System`] (the default). The methods are those of the `core::sync::atomic` type of the same
/// `T`, with the same signatures and semantics. Those every `T` has are in the first impl below;
/// the others come with a capability of `T` ([`AtomicArithmetic`](crate::AtomicArithmetic) for
/// `fetch_add`, [`AtomicBitwise`](crate::AtomicBitwise) for `fetch_or`, …; see
/// [`AtomicPrimitive`]), so generic code over `T` and `S` names what it needs.
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
///
/// Generic code over the value type and the scope, as with `cuda::atomic<T, Scope>`: a wait-free
/// append-only log that publishes each entry with a release store.
///
/// ```
/// use scoped_atomics::{Atomic, AtomicPrimitive, Block, Device, Ordering::*, PlainScope, Scope};
///
/// struct Log<T: AtomicPrimitive, S: Scope, const N: usize> {
///     len: Atomic<usize, S>,
///     entries: [Atomic<T, S>; N],
///     ready: [Atomic<bool, S>; N],
/// }
///
/// impl<T: AtomicPrimitive, S: PlainScope, const N: usize> Log<T, S, N> {
///     fn new() -> Self {
///         let entries = core::array::from_fn(|_| Atomic::default());
///         Self { len: Atomic::new(0), entries, ready: core::array::from_fn(|_| Atomic::new(false)) }
///     }
///     fn push(&self, value: T) -> bool {
///         let i = self.len.fetch_add(1, Relaxed);
///         if i >= N {
///             return false;
///         }
///         self.entries[i].store(value, Relaxed);
///         self.ready[i].store(true, Release);
///         true
///     }
///     fn get(&self, i: usize) -> Option<T> {
///         self.ready[i].load(Acquire).then(|| self.entries[i].load(Relaxed))
///     }
/// }
///
/// let log = Log::<f32, Device, 4>::new();
/// std::thread::scope(|s| {
///     s.spawn(|| assert!(log.push(0.5)));
///     s.spawn(|| assert!(log.push(0.5)));
/// });
/// assert_eq!((log.get(0), log.get(1), log.get(2)), (Some(0.5), Some(0.5), None));
/// let flags = Log::<u64, Block, 1>::new();
/// assert!(flags.push(7) && !flags.push(8));
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
    ///
    /// The view keeps the atomic's state space, or drops it: an atomic of a plain scope views
    /// only with plain scopes (a `with_scope::<Shared<Block>>()` of a global atomic would send its
    /// operations to shared memory), one of `Global<S>` also with `Global<S2>` ([`RescopeFrom`]).
    ///
    /// ```compile_fail
    /// use scoped_atomics::{Atomic, Block, Device, Shared};
    /// let counter = Atomic::<u32, Device>::new(0);
    /// let _ = counter.with_scope::<Shared<Block>>(); // error: would promise shared memory
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn with_scope<S2: RescopeFrom<S>>(&self) -> AtomicRef<'_, T, S2> {
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
    ($(#[$m:meta])* $vis:vis const unsafe fn $($rest:tt)*) => {
        #[cfg(not(loom))]
        $(#[$m])* $vis const unsafe fn $($rest)*
        #[cfg(loom)]
        $(#[$m])* $vis unsafe fn $($rest)*
    };
}
pub(crate) use const_unless_loom;

/// Reinterprets a value as another type of the same size, in a `const fn` (where
/// `core::mem::transmute` cannot take generic types).
///
/// # Safety
/// As for `transmute`: every bit pattern `from` can have is a valid `To`.
#[cfg(not(loom))]
#[inline(always)]
const unsafe fn transmute_const<From, To>(from: From) -> To {
    use core::mem::ManuallyDrop;
    union Bits<From, To> {
        from: ManuallyDrop<From>,
        to: ManuallyDrop<To>,
    }
    const { assert!(core::mem::size_of::<From>() == core::mem::size_of::<To>()) };
    // SAFETY: same size (checked above); the caller guarantees the bits are a valid `To`.
    ManuallyDrop::into_inner(unsafe {
        Bits {
            from: ManuallyDrop::new(from),
        }
        .to
    })
}

impl<T: AtomicPrimitive, S: Scope> Atomic<T, S> {
    const_unless_loom! {
        /// Creates a new atomic holding `value`.
        ///
        /// ```
        /// use scoped_atomics::{Atomic, Device, Ordering};
        /// static HITS: Atomic<u32, Device> = Atomic::new(0);
        /// let x: Atomic<f32> = Atomic::new(1.5); // scope `System`, the default
        /// assert_eq!((HITS.load(Ordering::Relaxed), x.load(Ordering::Relaxed)), (0, 1.5));
        /// ```
        /// The scope is a plain one ([`PlainScope`]); an atomic whose operations name a state
        /// space is made with the `unsafe` [`new_in_space`](Self::new_in_space).
        #[inline(always)]
        #[must_use]
        pub const fn new(value: T) -> Self
        where
            S: PlainScope,
        {
            // SAFETY: a plain scope promises no state space.
            unsafe { Self::new_in_space(value) }
        }
    }

    const_unless_loom! {
        /// Creates a new atomic holding `value`, of any scope — also one on a state space
        /// ([`Global<S>`](crate::Global), [`Shared<S>`](crate::Shared)), whose operations name
        /// `.global` or `.shared`: for a device `static` (global memory) or an atomic written
        /// into a [`block_shared!`](crate::block_shared) array. For a plain scope it is
        /// [`new`](Self::new).
        ///
        /// # Safety
        /// If `S` has a state space ([`Scope::SPACE`] is not `Generic`), every operation on the
        /// atomic is made while it lies in memory of that space: in global memory (a `static`,
        /// or memory from `cudaMalloc`) for `Global<S>`, in the shared memory of the calling
        /// thread's block for `Shared<S>`. A value that is moved elsewhere (the stack, a local)
        /// is not operated on there. On the host and under loom the space changes nothing.
        ///
        /// ```
        /// use scoped_atomics::{Atomic, Device, Global, Ordering};
        /// // SAFETY: a `static` lives in global memory on the device and is never moved.
        /// static HITS: Atomic<u32, Global<Device>> = unsafe { Atomic::new_in_space(0) };
        /// HITS.add(1, Ordering::Relaxed); // `red.relaxed.gpu.global.add.u32` on the device
        /// assert_eq!(HITS.load(Ordering::Relaxed), 1);
        /// ```
        #[inline(always)]
        #[must_use]
        pub const unsafe fn new_in_space(value: T) -> Self {
            #[cfg(not(loom))]
            // SAFETY: without loom the storage is the `core::sync::atomic` type of `T`'s width,
            // which holds `T`'s bits as they are (`AtomicU32` holds an `f32` as its bits,
            // `AtomicPtr<U>` a `*mut U` with its provenance, `AtomicBool` a `bool`'s byte).
            let inner = unsafe { transmute_const::<T, T::Storage>(value) };
            #[cfg(loom)]
            let inner = T::storage_new(value);
            Self { inner, scope: PhantomData }
        }
    }

    const_unless_loom! {
        /// Consumes the atomic and returns the value it holds.
        ///
        /// ```
        /// use scoped_atomics::{Atomic, Device};
        /// assert_eq!(Atomic::<i64, Device>::new(-5).into_inner(), -5);
        /// ```
        #[inline(always)]
        pub const fn into_inner(self) -> T {
            #[cfg(not(loom))]
            // SAFETY: `Self` is `repr(transparent)` over the storage, which holds a `T`'s bits
            // (see `new`); every write to it stored a `T`.
            return unsafe { transmute_const::<Self, T>(self) };
            #[cfg(loom)]
            return T::storage_into_inner(self.inner);
        }
    }

    /// Views memory the caller owns as an atomic (`core`'s `from_ptr`).
    ///
    /// # Safety
    /// As for `core::sync::atomic`: `ptr` is aligned to `align_of::<Self>()` and valid for reads
    /// and writes for `'a`; while the returned reference lives, every access to the location is
    /// atomic and of this size (the PTX model gives mixed-size races no guarantees, PTX ISA
    /// 8.7.2). If `S` has a state space ([`Global<S>`](crate::Global),
    /// [`Shared<S>`](crate::Shared)), `ptr` is a generic address of memory in that space (global
    /// memory; the calling thread's block's shared memory): the operations name the space, and
    /// on other memory they read and write another location or fault. Not available under
    /// `--cfg loom`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut value = 5u32;
    /// // SAFETY: `value` is aligned, live for the borrow, and only accessed through `a`.
    /// let a = unsafe { Atomic::<u32, Device>::from_ptr(&mut value) };
    /// a.store(10, Ordering::Relaxed);
    /// assert_eq!(value, 10);
    /// ```
    #[cfg(not(loom))]
    #[inline(always)]
    pub const unsafe fn from_ptr<'a>(ptr: *mut T) -> &'a Self {
        // SAFETY: the caller's contract; `Self` has the layout of `T` (same size, and an
        // alignment the caller guarantees).
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Gives atomic access to a value the caller holds exclusively (`core`'s unstable `from_mut`).
    /// Compiles only where `T` is as aligned as the atomic (not `u64` on 32-bit x86).
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut value = 5u32;
    /// Atomic::<u32, Device>::from_mut(&mut value).store(10, Ordering::Relaxed);
    /// assert_eq!(value, 10);
    /// ```
    #[cfg(not(loom))]
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn from_mut(value: &mut T) -> &mut Self
    where
        S: PlainScope,
    {
        const { assert!(core::mem::align_of::<T>() >= core::mem::align_of::<Self>()) };
        // SAFETY: same size and (checked above) sufficient alignment; the exclusive borrow is
        // handed on, so no other access exists while the result lives.
        unsafe { &mut *(value as *mut T).cast::<Self>() }
    }

    /// Gives atomic access to every element of a slice the caller holds exclusively, e.g. a
    /// per-block histogram in a `&mut [u32]`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut values = [5u32, 5];
    /// let atomics = Atomic::<u32, Device>::from_mut_slice(&mut values);
    /// atomics[1].store(10, Ordering::Relaxed);
    /// assert_eq!(values, [5, 10]);
    /// ```
    #[cfg(not(loom))]
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn from_mut_slice(values: &mut [T]) -> &mut [Self]
    where
        S: PlainScope,
    {
        const { assert!(core::mem::align_of::<T>() >= core::mem::align_of::<Self>()) };
        // SAFETY: as for `from_mut`, element by element; the length is unchanged.
        unsafe { &mut *(values as *mut [T] as *mut [Self]) }
    }

    /// A mutable reference to the value: no other thread can access it meanwhile. Not available
    /// under `--cfg loom` (loom's atomics offer only `with_mut`).
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let mut a = Atomic::<u32, Device>::new(5);
    /// *a.get_mut() = 10;
    /// assert_eq!(a.load(Ordering::Relaxed), 10);
    /// ```
    #[cfg(not(loom))]
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn get_mut(&mut self) -> &mut T {
        // SAFETY: `&mut self` excludes every other access; the pointer is valid and aligned.
        unsafe { &mut *self.as_ptr() }
    }

    /// A raw pointer to the value, for passing to a kernel or to foreign code. Accesses through it
    /// that race with this atomic must be atomic and of the same size.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device};
    /// let a = Atomic::<u32, Device>::new(5);
    /// // SAFETY: no other access while we read.
    /// assert_eq!(unsafe { a.as_ptr().read() }, 5);
    /// ```
    #[cfg(not(loom))]
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut T {
        // The storage is a `core` atomic, whose bytes are inside an `UnsafeCell`: a pointer
        // derived from `&self` may write them, as `core`'s `as_ptr` (`UnsafeCell::get`) does.
        (self as *const Self).cast_mut().cast::<T>()
    }

    /// Loads the value. `order` is `Relaxed`, `Acquire` or `SeqCst`.
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(5);
    /// assert_eq!(a.load(Ordering::Acquire), 5);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn load(&self, order: Ordering) -> T {
        <T::Storage as RawAtomic<T>>::load::<S>(&self.inner, order)
    }

    /// Stores `value`. `order` is `Relaxed`, `Release` or `SeqCst`.
    ///
    /// # Panics
    /// If `order` is `Acquire` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(5);
    /// a.store(10, Ordering::Release);
    /// assert_eq!(a.load(Ordering::Relaxed), 10);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn store(&self, value: T, order: Ordering) {
        <T::Storage as RawAtomic<T>>::store::<S>(&self.inner, value, order)
    }

    /// Stores `value` and returns the previous value.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(5);
    /// assert_eq!(a.swap(10, Ordering::AcqRel), 5);
    /// assert_eq!(a.load(Ordering::Relaxed), 10);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn swap(&self, value: T, order: Ordering) -> T {
        <T::Storage as RawAtomic<T>>::swap::<S>(&self.inner, value, order)
    }

    /// Stores `new` if the value is `current` (compared bit for bit), returning the previous
    /// value: `Ok` if it was `current`, `Err` otherwise. `failure` is the ordering of the load
    /// when the comparison fails.
    ///
    /// # Panics
    /// If `failure` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering::*};
    /// let a = Atomic::<u32, Device>::new(5);
    /// assert_eq!(a.compare_exchange(5, 10, AcqRel, Acquire), Ok(5));
    /// assert_eq!(a.compare_exchange(5, 10, AcqRel, Acquire), Err(10));
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn compare_exchange(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        <T::Storage as RawAtomic<T>>::compare_exchange::<S>(
            &self.inner,
            current,
            new,
            success,
            failure,
        )
    }

    /// Like [`compare_exchange`](Self::compare_exchange), but may fail spuriously even when the
    /// value is `current`; use it in a loop.
    ///
    /// # Panics
    /// If `failure` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering::*};
    /// let a = Atomic::<u32, Device>::new(5);
    /// while a.compare_exchange_weak(5, 10, Release, Relaxed).is_err() {}
    /// assert_eq!(a.load(Relaxed), 10);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn compare_exchange_weak(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        <T::Storage as RawAtomic<T>>::compare_exchange_weak::<S>(
            &self.inner,
            current,
            new,
            success,
            failure,
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
    /// let a = Atomic::<u32, Device>::new(5);
    /// assert_eq!(a.fetch_update(AcqRel, Acquire, |_| None), Err(5));
    /// assert_eq!(a.fetch_update(AcqRel, Acquire, |x| Some(x * 2)), Ok(5));
    /// assert_eq!(a.load(Relaxed), 10);
    /// ```
    #[inline]
    #[cfg_attr(loom, track_caller)]
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<T, T>
    where
        F: FnMut(T) -> Option<T>,
    {
        self.try_update(set_order, fetch_order, f)
    }

    /// `core`'s new name of [`fetch_update`](Self::fetch_update) (Rust 1.95): applies `f` until a
    /// compare-exchange stores its result; `Ok(previous)` once stored, `Err(previous)` if `f`
    /// returns `None`.
    ///
    /// # Panics
    /// If `fetch_order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering::*};
    /// let a = Atomic::<u32, Device>::new(5);
    /// assert_eq!(a.try_update(AcqRel, Acquire, |x| x.checked_sub(6)), Err(5));
    /// assert_eq!(a.try_update(AcqRel, Acquire, |_| Some(10)), Ok(5));
    /// ```
    #[inline]
    #[cfg_attr(loom, track_caller)]
    pub fn try_update(
        &self,
        set_order: Ordering,
        fetch_order: Ordering,
        mut f: impl FnMut(T) -> Option<T>,
    ) -> Result<T, T> {
        let mut previous = self.load(fetch_order);
        while let Some(next) = f(previous) {
            match self.compare_exchange_weak(previous, next, set_order, fetch_order) {
                stored @ Ok(_) => return stored,
                Err(current) => previous = current,
            }
        }
        Err(previous)
    }

    /// Applies `f` until a compare-exchange stores its result and returns the previous value
    /// (`core`'s `update`, Rust 1.95).
    ///
    /// # Panics
    /// If `fetch_order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering::*};
    /// let a = Atomic::<f64, Device>::new(1.5);
    /// assert_eq!(a.update(AcqRel, Acquire, |x| x * x), 1.5);
    /// assert_eq!(a.load(Relaxed), 2.25);
    /// ```
    #[inline]
    #[cfg_attr(loom, track_caller)]
    pub fn update(
        &self,
        set_order: Ordering,
        fetch_order: Ordering,
        mut f: impl FnMut(T) -> T,
    ) -> T {
        match self.try_update(set_order, fetch_order, |previous| Some(f(previous))) {
            Ok(previous) | Err(previous) => previous,
        }
    }

    /// Waits until the value differs from `old` (compared bit for bit), as C++20
    /// `atomic::wait(old, order)`: loads with `order` (`Relaxed`, `Acquire` or `SeqCst`) and
    /// returns once a load reads another value. Pair it with [`notify_one`](Self::notify_one) /
    /// [`notify_all`](Self::notify_all) after the store.
    ///
    /// The load that returns is a load with `order`: with `Acquire` and a `Release` store,
    /// everything before the store happens before `wait` returns. A change that is undone before
    /// the waiter looks (A → B → A) may go unnoticed, as in C++. On the host with `std` the thread
    /// blocks after a short spin; on the device it polls with `nanosleep` back-off; see
    /// [`crate::sync`].
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(5);
    /// a.store(10, Ordering::Release);
    /// a.notify_all();
    /// a.wait(5, Ordering::Acquire); // returns at once: the value changed
    /// ```
    #[inline]
    #[cfg_attr(loom, track_caller)]
    pub fn wait(&self, old: T, order: Ordering) {
        crate::sync::wait::wait_until(crate::sync::wait::key(self), || {
            !self.load(order).same_bits(old)
        });
    }

    /// Waits at most about `timeout` until the value differs from `old`; `true` if it did (then
    /// as [`wait`](Self::wait) returning), `false` if the time ran out first (libcu++'s
    /// `cuda::atomic::wait_for`, C++26's timed waits). Loads with `order` at least once, so a
    /// value that already differs returns `true` even with a zero timeout.
    ///
    /// The clock is that of the backend (see [`crate::time`]): `%globaltimer` on the device,
    /// `std::time::Instant` on the host with `std`, counted spin-loop hints without `std`; under
    /// loom, a check, one yield and a second check.
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// use std::time::Duration;
    /// let a = Atomic::<u32, Device>::new(5);
    /// assert!(!a.wait_for(5, Ordering::Acquire, Duration::from_micros(50))); // times out
    /// a.store(6, Ordering::Release);
    /// assert!(a.wait_for(5, Ordering::Acquire, Duration::ZERO)); // changed
    /// ```
    #[inline]
    #[track_caller]
    pub fn wait_for(&self, old: T, order: Ordering, timeout: core::time::Duration) -> bool {
        crate::sync::wait::Deadline::after(timeout).wait_until(crate::sync::wait::key(self), || {
            !self.load(order).same_bits(old)
        })
    }

    /// Waits until `deadline` at the latest for the value to differ from `old`; `true` if it
    /// did, `false` if the deadline passed first: [`wait_for`](Self::wait_for) with the time
    /// left until `deadline` (libcu++'s `wait_until`). A deadline is a
    /// [`time::Instant`](crate::time::Instant) (device and host) or a `std::time::Instant` (host
    /// with `std`); see [`crate::time`].
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering, time::Instant};
    /// use std::time::Duration;
    /// let a = Atomic::<u32, Device>::new(5);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| {
    ///         a.store(6, Ordering::Release);
    ///         a.notify_all();
    ///     });
    ///     // Returns as soon as the store is seen (or after a minute).
    ///     assert!(a.wait_until(5, Ordering::Acquire, Instant::now() + Duration::from_secs(60)));
    /// });
    /// ```
    #[inline]
    #[track_caller]
    pub fn wait_until(
        &self,
        old: T,
        order: Ordering,
        deadline: impl crate::time::Deadline,
    ) -> bool {
        self.wait_for(old, order, deadline.time_left())
    }

    /// Wakes at least one thread blocked in [`wait`](Self::wait) on this atomic, to re-check the
    /// value (C++20 `atomic::notify_one`). On the host with `std` it wakes every waiter that
    /// shares the atomic's parking bucket; elsewhere waiters poll and this does nothing.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(5);
    /// a.store(10, Ordering::Release);
    /// a.notify_one(); // no waiter: nothing happens
    /// ```
    #[inline]
    #[cfg_attr(loom, track_caller)]
    pub fn notify_one(&self) {
        crate::sync::wait::wake_all(crate::sync::wait::key(self))
    }

    /// Wakes every thread blocked in [`wait`](Self::wait) on this atomic, to re-check the value
    /// (C++20 `atomic::notify_all`). On the device and without `std`, waiters poll and this does
    /// nothing. Across threads, see the example of [`crate::sync`].
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// let a = Atomic::<u32, Device>::new(5);
    /// a.store(10, Ordering::Release);
    /// a.notify_all(); // no waiter: nothing happens
    /// ```
    #[inline]
    #[cfg_attr(loom, track_caller)]
    pub fn notify_all(&self) {
        crate::sync::wait::wake_all(crate::sync::wait::key(self))
    }
}

impl<T: AtomicPrimitive + fmt::Debug, S: Scope> fmt::Debug for Atomic<T, S> {
    /// Formats the value as `core`'s atomics do: a relaxed load, formatted as `T`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.load(Ordering::Relaxed), f)
    }
}

impl<T: AtomicPrimitive, S: PlainScope> From<T> for Atomic<T, S> {
    /// Same as [`Atomic::new`].
    #[inline(always)]
    fn from(value: T) -> Self {
        Self::new(value)
    }
}

impl<T: AtomicPrimitive, S: PlainScope> Default for Atomic<T, S> {
    /// An atomic holding zero, `false` or a null pointer, as `core`'s atomics (an
    /// [`AtomicValue`](crate::AtomicValue)'s `default()`).
    #[inline(always)]
    fn default() -> Self {
        Self::new(T::default_value())
    }
}
