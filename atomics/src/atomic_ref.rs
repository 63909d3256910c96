//! `AtomicRef<'a, T, S>`: an atomic view of memory the caller owns; `cuda::atomic_ref<T, S>`.

use crate::{Atomic, AtomicPrimitive, Global, PlainScope, RescopeFrom, Scope, Shared, System};
use core::fmt;
use core::ops::Deref;
use core::sync::atomic::Ordering;

/// An atomic view of a `T` that the caller owns, with scope `S`: the counterpart of
/// `cuda::atomic_ref<T, S>`, for memory that is not declared atomic — a `*mut T` kernel argument,
/// an element of a `&mut [T]`, a field of a `#[repr(C)]` struct shared with the host.
///
/// It is `Copy` and can be shared between threads; every method of [`Atomic<T, S>`] is available
/// on it (it dereferences to the atomic it views). One location may be viewed with different
/// scopes at different times ([`with_scope`](Self::with_scope)); whether two operations then
/// synchronise depends on both scopes (PTX ISA 8.7).
///
/// ```
/// use scoped_atomics::{AtomicRef, Block, Device, Ordering};
/// let mut histogram = [0u32; 4];
/// let bins = scoped_atomics::Atomic::<u32, Block>::from_mut_slice(&mut histogram);
/// let bin = AtomicRef::from(&bins[2]);
/// std::thread::scope(|s| {
///     for _ in 0..2 {
///         s.spawn(move || bin.fetch_add(1, Ordering::Relaxed));
///     }
/// });
/// bin.with_scope::<Device>().fetch_add(10, Ordering::Release);
/// assert_eq!(histogram, [0, 0, 12, 0]);
/// ```
pub struct AtomicRef<'a, T: AtomicPrimitive, S: Scope = System> {
    atomic: &'a Atomic<T, S>,
}

impl<'a, T: AtomicPrimitive, S: Scope> AtomicRef<'a, T, S> {
    /// An atomic view of `value`, which stays borrowed for `'a`. Under `--cfg loom` the view is a
    /// mirror location created with the value found there; every write is copied back, so the
    /// owner sees the final value once the view is gone.
    ///
    /// ```
    /// use scoped_atomics::{AtomicRef, Device, Ordering};
    /// let mut flag = 0u32;
    /// let r = AtomicRef::<u32, Device>::new(&mut flag);
    /// r.store(1, Ordering::Release);
    /// assert_eq!(flag, 1);
    /// ```
    ///
    /// The scope is a plain one ([`PlainScope`]): a view that names a state space is made with
    /// the `unsafe` [`from_global_ptr`](Self::from_global_ptr) or
    /// [`from_shared_ptr`](Self::from_shared_ptr).
    ///
    /// ```compile_fail
    /// use scoped_atomics::{AtomicRef, Device, Global};
    /// let mut on_the_stack = 0u32;
    /// let _ = AtomicRef::<u32, Global<Device>>::new(&mut on_the_stack); // error: not global
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn new(value: &'a mut T) -> Self
    where
        S: PlainScope,
    {
        #[cfg(not(loom))]
        const {
            assert!(core::mem::align_of::<T>() >= core::mem::align_of::<Atomic<T, S>>())
        };
        // SAFETY: an exclusive borrow is valid, aligned for `T` and accessed by no one else for
        // `'a`; `T`'s alignment suffices for the atomic (checked above).
        unsafe { Self::from_ptr(value) }
    }

    /// An atomic view of the `T` at `ptr`, e.g. a kernel's pointer argument (under `--cfg loom`,
    /// as for [`new`](Self::new)).
    ///
    /// # Safety
    /// `ptr` is aligned to `align_of::<Atomic<T, S>>()` and valid for reads and writes for `'a`;
    /// while the view lives, every access to the location that may race with it is atomic and of
    /// the same size. If `S` has a state space ([`Global<S>`](crate::Global),
    /// [`Shared<S>`](crate::Shared)), `ptr` is a generic address of memory in that space (as for
    /// [`from_global_ptr`](Self::from_global_ptr) and [`from_shared_ptr`](Self::from_shared_ptr)).
    ///
    /// ```
    /// use scoped_atomics::{AtomicRef, Device, Ordering};
    /// let mut counter = 7u64;
    /// // SAFETY: `counter` is aligned, live, and only accessed through `r` meanwhile.
    /// let r = unsafe { AtomicRef::<u64, Device>::from_ptr(&mut counter) };
    /// r.fetch_add(1, Ordering::Relaxed);
    /// assert_eq!(counter, 8);
    /// ```
    #[inline(always)]
    pub unsafe fn from_ptr(ptr: *mut T) -> Self {
        #[cfg(not(loom))]
        let atomic: *const Atomic<T, S> = {
            const { assert!(core::mem::size_of::<T>() == core::mem::size_of::<Atomic<T, S>>()) };
            // `Atomic<T, S>` is `repr(transparent)` over a `core` atomic with the size and bit
            // layout of `T`.
            ptr.cast()
        };
        #[cfg(loom)]
        // SAFETY: the caller's contract. The mirror location is `Atomic<T, S>`'s storage, over
        // which it is `repr(transparent)`.
        let atomic: *const Atomic<T, S> =
            unsafe { (T::mirror_view(ptr) as *const T::Storage).cast() };
        // SAFETY: the caller's contract (valid and aligned for `'a`, accessed atomically).
        Self {
            atomic: unsafe { &*atomic },
        }
    }

    /// An atomic view of the `T` at `ptr` in **global** memory (a `cudaMalloc`ed kernel argument,
    /// a device `static`): every operation is the `.global` form of the operation of scope `S`
    /// (`cvta.to.global` of the address, then `red.relaxed.gpu.global.add.f32`, …), so ptxas
    /// emits `RED`/`ATOMG`/`LDG` without the fallback paths of a generic address. The view's
    /// scope is [`Global<S>`](crate::Global), whose [`KIND`](Scope::KIND) is that of `S`. On
    /// the host and under loom it is [`from_ptr`](Self::from_ptr).
    ///
    /// # Safety
    /// That of [`from_ptr`](Self::from_ptr), and `ptr` is a generic address of global memory
    /// (PTX `isspacep.global`); a debug device build checks this and traps otherwise.
    ///
    /// ```
    /// use scoped_atomics::{AtomicRef, Device, Ordering};
    /// let mut hits = 0u32;
    /// // SAFETY: live and aligned, only accessed through the view; a kernel would pass a
    /// // pointer to global memory here.
    /// let r = unsafe { AtomicRef::<u32, Device>::from_global_ptr(&mut hits) };
    /// r.add(2, Ordering::Relaxed); // `red.relaxed.gpu.global.add.u32` on the device
    /// assert_eq!(r.load(Ordering::Acquire), 2);
    /// ```
    #[inline(always)]
    pub unsafe fn from_global_ptr(ptr: *mut T) -> AtomicRef<'a, T, Global<S>>
    where
        S: PlainScope,
    {
        // SAFETY: the caller's contract; the space is the caller's promise too.
        unsafe { AtomicRef::<'a, T, Global<S>>::from_ptr(ptr) }
    }

    /// An atomic view of the `T` at `ptr` in the **shared** memory of the calling thread's
    /// block (a [`block_shared!`](crate::block_shared) array): every operation is the `.shared`
    /// form of the operation of scope `S` (`atom.relaxed.cta.shared.add.u32`, … on the shared
    /// address that `cvta.to.shared` would give, computed as the distance from the shared window
    /// so that LLVM folds it into a `block_shared!` array's index), so ptxas emits `ATOMS`/`LDS`
    /// without the fallback paths of a generic address. The
    /// view's scope is [`Shared<S>`](crate::Shared). On the host and under loom it is
    /// [`from_ptr`](Self::from_ptr).
    ///
    /// # Safety
    /// That of [`from_ptr`](Self::from_ptr), and `ptr` is a generic address of the block's shared
    /// memory (PTX `isspacep.shared`); a debug device build checks this and traps otherwise.
    ///
    /// ```
    /// use scoped_atomics::{AtomicRef, Block, Ordering};
    /// let mut bins = [0u32; 4];
    /// // SAFETY: live and aligned, only accessed through the view; a kernel would pass an
    /// // element of a `block_shared!` array here.
    /// let bin = unsafe { AtomicRef::<u32, Block>::from_shared_ptr(&mut bins[1]) };
    /// bin.fetch_add(1, Ordering::Relaxed); // `atom.relaxed.cta.shared.add.u32` on the device
    /// assert_eq!(bins, [0, 1, 0, 0]);
    /// ```
    #[inline(always)]
    pub unsafe fn from_shared_ptr(ptr: *mut T) -> AtomicRef<'a, T, Shared<S>>
    where
        S: PlainScope,
    {
        // SAFETY: the caller's contract; the space is the caller's promise too.
        unsafe { AtomicRef::<'a, T, Shared<S>>::from_ptr(ptr) }
    }

    /// The same location viewed with scope `S2`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, AtomicRef, Block, System, Ordering};
    /// let a = Atomic::<u32, Block>::new(0);
    /// let r = AtomicRef::from(&a);
    /// r.with_scope::<System>().store(3, Ordering::Release);
    /// assert_eq!(r.load(Ordering::Acquire), 3);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn with_scope<S2: RescopeFrom<S>>(self) -> AtomicRef<'a, T, S2> {
        AtomicRef {
            atomic: self.atomic.rescoped::<S2>(),
        }
    }

    /// The alignment `from_ptr` requires (libcu++'s `atomic_ref<T>::required_alignment`): the
    /// size of `T`, which can exceed `align_of::<T>()`.
    ///
    /// ```
    /// use scoped_atomics::{AtomicRef, Device};
    /// assert_eq!(AtomicRef::<u32, Device>::required_alignment(), 4);
    /// ```
    #[inline(always)]
    #[must_use]
    pub const fn required_alignment() -> usize {
        Atomic::<T, S>::required_alignment()
    }

    /// Whether every operation through such a view is lock-free (libcu++'s
    /// `atomic_ref<T>::is_always_lock_free`); see [`Atomic::is_always_lock_free`].
    ///
    /// ```
    /// use scoped_atomics::{AtomicRef, Block};
    /// assert!(AtomicRef::<f64, Block>::is_always_lock_free());
    /// ```
    #[inline(always)]
    #[must_use]
    pub const fn is_always_lock_free() -> bool {
        Atomic::<T, S>::is_always_lock_free()
    }

    /// The atomic this view refers to, with the view's lifetime.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, AtomicRef, Device};
    /// let a = Atomic::<i64, Device>::new(-1);
    /// assert!(core::ptr::eq(AtomicRef::from(&a).as_atomic(), &a));
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn as_atomic(self) -> &'a Atomic<T, S> {
        self.atomic
    }
}

impl<T: AtomicPrimitive, S: Scope> Clone for AtomicRef<'_, T, S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: AtomicPrimitive, S: Scope> Copy for AtomicRef<'_, T, S> {}

impl<T: AtomicPrimitive, S: Scope> Deref for AtomicRef<'_, T, S> {
    type Target = Atomic<T, S>;
    #[inline(always)]
    fn deref(&self) -> &Atomic<T, S> {
        self.atomic
    }
}

impl<'a, T: AtomicPrimitive, S: Scope> From<&'a Atomic<T, S>> for AtomicRef<'a, T, S> {
    /// A view of an existing atomic.
    #[inline(always)]
    fn from(atomic: &'a Atomic<T, S>) -> Self {
        Self { atomic }
    }
}

impl<T: AtomicPrimitive, S: Scope> fmt::Debug for AtomicRef<'_, T, S>
where
    Atomic<T, S>: fmt::Debug,
{
    /// Formats the value as the atomic does (a relaxed load).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.atomic, f)
    }
}

/// A read-only atomic view of a `T`, with scope `S`: libcu++'s `cuda::atomic_ref<const T, S>`.
/// It has the loads of [`AtomicRef`] — [`load`](Self::load), [`wait`](Self::wait) — and nothing
/// that writes, so it can be made from a shared borrow or a `*const T` (a kernel's read-only
/// argument that other threads update atomically).
///
/// Every load is the same operation as [`Atomic::load`] (on the device the ABI's `ld` for its
/// ordering and scope), so a read-only view can acquire what another thread released.
///
/// ```
/// use scoped_atomics::{Atomic, AtomicReadRef, Device, Ordering};
/// let ready = Atomic::<u32, Device>::new(0);
/// let view = AtomicReadRef::from(&ready);
/// std::thread::scope(|s| {
///     s.spawn(|| ready.store(1, Ordering::Release));
///     view.wait(0, Ordering::Acquire);
/// });
/// assert_eq!(view.load(Ordering::Relaxed), 1);
/// ```
pub struct AtomicReadRef<'a, T: AtomicPrimitive, S: Scope = System> {
    source: Source<'a, T, S>,
}

/// Where an [`AtomicReadRef`] reads.
enum Source<'a, T: AtomicPrimitive, S: Scope> {
    /// A location others may write atomically: every load is the atomic's.
    Atomic(&'a Atomic<T, S>),
    /// A shared borrow: nothing writes it while the view lives, so a plain read returns what
    /// any atomic load would (and, unlike a view as an atomic, keeps the borrow read-only, as
    /// Rust's aliasing rules require of memory without interior mutability).
    Frozen(&'a T),
}

impl<T: AtomicPrimitive, S: Scope> Clone for Source<'_, T, S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: AtomicPrimitive, S: Scope> Copy for Source<'_, T, S> {}

impl<'a, T: AtomicPrimitive, S: Scope> AtomicReadRef<'a, T, S> {
    /// A read-only atomic view of `value`, which stays borrowed (and so unchanged) for `'a`; for
    /// a location that others write meanwhile, use [`from_ptr`](Self::from_ptr) or a view of the
    /// [`Atomic`]/[`AtomicRef`] that writes it. As nothing can write the value while it is
    /// borrowed, its loads are plain reads (with the ordering checked as [`Atomic::load`] does).
    ///
    /// ```
    /// use scoped_atomics::{AtomicReadRef, Block, Ordering};
    /// let table = [3u64, 5, 8];
    /// let entry = AtomicReadRef::<u64, Block>::new(&table[1]);
    /// assert_eq!(entry.load(Ordering::Acquire), 5);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn new(value: &'a T) -> Self {
        Self {
            source: Source::Frozen(value),
        }
    }

    /// A read-only atomic view of the `T` at `ptr`, e.g. a kernel's `*const T` argument that
    /// other threads update atomically.
    ///
    /// # Safety
    /// `ptr` is aligned to [`required_alignment`](Self::required_alignment) and valid for reads
    /// for `'a`; every access to the location that may race with the view is atomic and of the
    /// same size. The view sees the location as an atomic, a type with interior mutability, so
    /// `ptr` must carry write permission (come from a `*mut T`, `&raw mut`, or an `UnsafeCell`)
    /// even though the view only reads; for a shared borrow, use [`new`](Self::new). If `S` has a
    /// state space ([`Global<S>`](crate::Global), [`Shared<S>`](crate::Shared)), `ptr` is a
    /// generic address of memory in that space.
    ///
    /// ```
    /// use scoped_atomics::{AtomicReadRef, Device, Ordering};
    /// let mut counter = 7u32;
    /// let p: *const u32 = (&raw mut counter).cast_const();
    /// // SAFETY: `counter` is aligned, live, and not otherwise accessed meanwhile.
    /// let r = unsafe { AtomicReadRef::<u32, Device>::from_ptr(p) };
    /// assert_eq!(r.load(Ordering::Acquire), 7);
    /// ```
    #[inline(always)]
    pub unsafe fn from_ptr(ptr: *const T) -> Self {
        // SAFETY: the caller's contract: that of `AtomicRef::from_ptr` (write permission
        // included) except validity for writes, which a view that never writes does not need.
        Self::from(unsafe { AtomicRef::<T, S>::from_ptr(ptr.cast_mut()) })
    }

    /// Loads the value: [`Atomic::load`]. `order` is `Relaxed`, `Acquire` or `SeqCst`.
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, AtomicReadRef, Device, Ordering};
    /// let a = Atomic::<f32, Device>::new(2.5);
    /// assert_eq!(AtomicReadRef::from(&a).load(Ordering::SeqCst), 2.5);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, order: Ordering) -> T {
        match self.source {
            Source::Atomic(atomic) => atomic.load(order),
            Source::Frozen(value) => {
                crate::ordering::check_load(order);
                *value
            }
        }
    }

    /// Waits until the value differs from `old`: [`Atomic::wait`], woken by the writer's
    /// [`notify_one`](Atomic::notify_one)/[`notify_all`](Atomic::notify_all).
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, AtomicReadRef, Block, Ordering};
    /// let a = Atomic::<bool, Block>::new(true);
    /// AtomicReadRef::from(&a).wait(false, Ordering::Acquire); // returns at once
    /// ```
    #[inline]
    #[track_caller]
    pub fn wait(&self, old: T, order: Ordering) {
        match self.source {
            Source::Atomic(atomic) => atomic.wait(old, order),
            Source::Frozen(value) => {
                crate::ordering::check_load(order);
                // Nothing can change a borrowed value: waiting for a change that cannot come
                // would hang, as C++'s `wait` on a value nobody writes does.
                crate::sync::wait::wait_until(crate::sync::wait::key(value), || {
                    !value.same_bits(old)
                });
            }
        }
    }

    /// Waits at most about `timeout` until the value differs from `old`; `true` if it did:
    /// [`Atomic::wait_for`]. A view of a `&T` never changes: it returns `false` once the time is
    /// up, unless the value differs from `old` to begin with.
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, AtomicReadRef, Block, Ordering};
    /// use std::time::Duration;
    /// let a = Atomic::<u32, Block>::new(1);
    /// let view = AtomicReadRef::from(&a);
    /// assert!(!view.wait_for(1, Ordering::Acquire, Duration::from_micros(10)));
    /// assert!(view.wait_for(0, Ordering::Acquire, Duration::ZERO));
    /// ```
    #[inline]
    #[track_caller]
    pub fn wait_for(&self, old: T, order: Ordering, timeout: core::time::Duration) -> bool {
        match self.source {
            Source::Atomic(atomic) => atomic.wait_for(old, order, timeout),
            Source::Frozen(value) => {
                crate::ordering::check_load(order);
                crate::sync::wait::Deadline::after(timeout)
                    .wait_until(crate::sync::wait::key(value), || !value.same_bits(old))
            }
        }
    }

    /// Waits until `deadline` at the latest for the value to differ from `old`; `true` if it
    /// did: [`Atomic::wait_until`], see [`crate::time`].
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message.
    ///
    /// ```
    /// use scoped_atomics::{AtomicReadRef, Device, Ordering, time::Instant};
    /// let value = 3u32;
    /// let view = AtomicReadRef::<u32, Device>::new(&value);
    /// assert!(!view.wait_until(3, Ordering::Acquire, Instant::now())); // cannot change
    /// assert!(view.wait_until(4, Ordering::Acquire, Instant::now()));
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

    /// The same location viewed with scope `S2`.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, AtomicReadRef, Block, System, Ordering};
    /// let a = Atomic::<u32, Block>::new(3);
    /// assert_eq!(AtomicReadRef::from(&a).with_scope::<System>().load(Ordering::Acquire), 3);
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn with_scope<S2: RescopeFrom<S>>(self) -> AtomicReadRef<'a, T, S2> {
        AtomicReadRef {
            source: match self.source {
                Source::Atomic(atomic) => Source::Atomic(atomic.rescoped::<S2>()),
                Source::Frozen(value) => Source::Frozen(value),
            },
        }
    }

    /// The alignment [`from_ptr`](Self::from_ptr) requires (libcu++'s `required_alignment`).
    ///
    /// ```
    /// use scoped_atomics::{AtomicReadRef, Device};
    /// assert_eq!(AtomicReadRef::<u64, Device>::required_alignment(), 8);
    /// ```
    #[inline(always)]
    #[must_use]
    pub const fn required_alignment() -> usize {
        Atomic::<T, S>::required_alignment()
    }

    /// Whether the loads are always lock-free; see [`Atomic::is_always_lock_free`].
    ///
    /// ```
    /// use scoped_atomics::{AtomicReadRef, Device};
    /// assert!(AtomicReadRef::<u8, Device>::is_always_lock_free());
    /// ```
    #[inline(always)]
    #[must_use]
    pub const fn is_always_lock_free() -> bool {
        Atomic::<T, S>::is_always_lock_free()
    }
}

impl<T: AtomicPrimitive, S: Scope> Clone for AtomicReadRef<'_, T, S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: AtomicPrimitive, S: Scope> Copy for AtomicReadRef<'_, T, S> {}

impl<'a, T: AtomicPrimitive, S: Scope> From<&'a Atomic<T, S>> for AtomicReadRef<'a, T, S> {
    /// A read-only view of an existing atomic.
    #[inline(always)]
    fn from(atomic: &'a Atomic<T, S>) -> Self {
        Self {
            source: Source::Atomic(atomic),
        }
    }
}

impl<'a, T: AtomicPrimitive, S: Scope> From<AtomicRef<'a, T, S>> for AtomicReadRef<'a, T, S> {
    /// The read-only half of a view.
    #[inline(always)]
    fn from(view: AtomicRef<'a, T, S>) -> Self {
        Self::from(view.as_atomic())
    }
}

impl<T: AtomicPrimitive + fmt::Debug, S: Scope> fmt::Debug for AtomicReadRef<'_, T, S> {
    /// Formats the value as the atomic does (a relaxed load).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.load(Ordering::Relaxed), f)
    }
}
