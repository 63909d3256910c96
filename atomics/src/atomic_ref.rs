//! `AtomicRef<'a, T, S>`: an atomic view of memory the caller owns; `cuda::atomic_ref<T, S>`.

use crate::{Atomic, AtomicPrimitive, Scope, System};
use core::fmt;
use core::ops::Deref;

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
    #[inline(always)]
    pub fn new(value: &'a mut T) -> Self {
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
    /// the same size.
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
    pub fn with_scope<S2: Scope>(self) -> AtomicRef<'a, T, S2> {
        AtomicRef {
            atomic: self.atomic.rescoped::<S2>(),
        }
    }

    /// The alignment `from_ptr` requires (libcu++'s `atomic_ref<T>::required_alignment`): that of
    /// the `core` atomic of `T`'s width, which can exceed `align_of::<T>()`.
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
    /// `atomic_ref<T>::is_always_lock_free`): always `true` here; see
    /// [`Atomic::is_always_lock_free`].
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
