//! `AtomicFlag<S>`: C++'s `atomic_flag` with a thread scope, which libcu++ lacks
//! (`cuda::atomic_flag` is always system scope).

use crate::{Atomic, PlainScope, Scope, System};
use core::fmt;
use core::sync::atomic::Ordering;

/// A flag that is set or clear, with scope `S`: C++20's `std::atomic_flag` (`test_and_set`,
/// `clear`, `test`, `wait`, `notify_one`, `notify_all`), whose operations synchronise with the
/// threads of `S`.
///
/// It holds a 32-bit word (0 clear, 1 set), not a byte: on the device every operation is then
/// one instruction of the ABI table at 32 bits — `test_and_set` an `atom.exch.b32`, `clear` an
/// `st.b32`, `test` an `ld.b32` — where an 8-bit `bool` would need compare-and-swap loops on its
/// word. It has the layout of an `Atomic<u32, S>`.
///
/// A block-scope spin lock:
///
/// ```
/// use scoped_atomics::{AtomicFlag, Block, Ordering};
/// static LOCK: AtomicFlag<Block> = AtomicFlag::new();
/// static mut COUNT: u32 = 0;
/// std::thread::scope(|s| {
///     for _ in 0..4 {
///         s.spawn(|| {
///             while LOCK.test_and_set(Ordering::Acquire) {
///                 LOCK.wait(true, Ordering::Relaxed);
///             }
///             // SAFETY: the flag excludes every other thread until `clear`.
///             unsafe { COUNT += 1 };
///             LOCK.clear(Ordering::Release);
///             LOCK.notify_one();
///         });
///     }
/// });
/// // SAFETY: every thread has been joined.
/// assert_eq!(unsafe { COUNT }, 4);
/// ```
#[repr(transparent)]
pub struct AtomicFlag<S: Scope = System> {
    /// 0 when clear, 1 when set.
    state: Atomic<u32, S>,
}

const CLEAR: u32 = 0;
const SET: u32 = 1;

impl<S: Scope> AtomicFlag<S> {
    crate::atomic::const_unless_loom! {
        /// A clear flag (C++'s `ATOMIC_FLAG_INIT` and default constructor).
        ///
        /// ```
        /// use scoped_atomics::{AtomicFlag, Device, Ordering};
        /// static DONE: AtomicFlag<Device> = AtomicFlag::new();
        /// assert!(!DONE.test(Ordering::Relaxed));
        /// ```
        #[inline(always)]
        #[must_use]
        pub const fn new() -> Self
        where
            S: PlainScope,
        {
            // SAFETY: a plain scope promises no state space.
            unsafe { Self::new_in_space() }
        }
    }

    crate::atomic::const_unless_loom! {
        /// A clear flag, of any scope — also one on a state space ([`Global<S>`](crate::Global),
        /// [`Shared<S>`](crate::Shared)), whose operations name `.global` or `.shared`: for a
        /// device `static` (global memory) or one written into a
        /// [`block_shared!`](crate::block_shared) array. For a plain scope it is
        /// [`new`](Self::new).
        ///
        /// # Safety
        /// As for [`Atomic::new_in_space`](crate::Atomic::new_in_space): if `S` has a state
        /// space, every operation on the flag is made while it lies in memory of that space.
        ///
        /// ```
        /// use scoped_atomics::{AtomicFlag, Device, Global, Ordering};
        /// // SAFETY: a `static` lives in global memory on the device and is never moved.
        /// static DONE: AtomicFlag<Global<Device>> = unsafe { AtomicFlag::new_in_space() };
        /// assert!(!DONE.test_and_set(Ordering::AcqRel));
        /// ```
        #[inline(always)]
        #[must_use]
        pub const unsafe fn new_in_space() -> Self {
            // SAFETY: the caller's contract (the space).
            Self { state: unsafe { Atomic::new_in_space(CLEAR) } }
        }
    }

    /// Sets the flag and returns whether it was set before: a swap with `order`.
    ///
    /// ```
    /// use scoped_atomics::{AtomicFlag, Device, Ordering};
    /// let flag = AtomicFlag::<Device>::new();
    /// assert!(!flag.test_and_set(Ordering::AcqRel));
    /// assert!(flag.test_and_set(Ordering::AcqRel));
    /// ```
    #[inline(always)]
    #[cfg_attr(loom, track_caller)]
    pub fn test_and_set(&self, order: Ordering) -> bool {
        self.state.swap(SET, order) != CLEAR
    }

    /// Clears the flag: a store with `order` (`Relaxed`, `Release` or `SeqCst`).
    ///
    /// # Panics
    /// If `order` is `Acquire` or `AcqRel`, with `core`'s message for a store.
    ///
    /// ```
    /// use scoped_atomics::{AtomicFlag, Block, Ordering};
    /// let flag = AtomicFlag::<Block>::new();
    /// flag.test_and_set(Ordering::Relaxed);
    /// flag.clear(Ordering::Release);
    /// assert!(!flag.test(Ordering::Acquire));
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn clear(&self, order: Ordering) {
        self.state.store(CLEAR, order)
    }

    /// Whether the flag is set: a load with `order` (`Relaxed`, `Acquire` or `SeqCst`).
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message for a load.
    ///
    /// ```
    /// use scoped_atomics::{AtomicFlag, System, Ordering};
    /// let flag = AtomicFlag::<System>::default();
    /// assert!(!flag.test(Ordering::SeqCst));
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn test(&self, order: Ordering) -> bool {
        self.state.load(order) != CLEAR
    }

    /// Waits until the flag is no longer `old`, as C++20's `atomic_flag::wait(old, order)`: see
    /// [`Atomic::wait`].
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message for a load.
    ///
    /// ```
    /// use scoped_atomics::{AtomicFlag, Device, Ordering};
    /// let flag = AtomicFlag::<Device>::new();
    /// std::thread::scope(|s| {
    ///     s.spawn(|| {
    ///         flag.test_and_set(Ordering::Release);
    ///         flag.notify_all();
    ///     });
    ///     flag.wait(false, Ordering::Acquire);
    /// });
    /// assert!(flag.test(Ordering::Relaxed));
    /// ```
    #[inline]
    #[track_caller]
    pub fn wait(&self, old: bool, order: Ordering) {
        self.state.wait(u32::from(old), order)
    }

    /// Waits at most about `timeout` until the flag is no longer `old`; `true` if it changed,
    /// `false` if the time ran out first: see [`Atomic::wait_for`].
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message for a load.
    ///
    /// ```
    /// use scoped_atomics::{AtomicFlag, Block, Ordering};
    /// use std::time::Duration;
    /// let flag = AtomicFlag::<Block>::new();
    /// assert!(!flag.wait_for(false, Ordering::Acquire, Duration::from_micros(20)));
    /// flag.test_and_set(Ordering::Release);
    /// assert!(flag.wait_for(false, Ordering::Acquire, Duration::from_micros(20)));
    /// ```
    #[inline]
    #[track_caller]
    pub fn wait_for(&self, old: bool, order: Ordering, timeout: core::time::Duration) -> bool {
        self.state.wait_for(u32::from(old), order, timeout)
    }

    /// Waits until `deadline` at the latest for the flag to be no longer `old`; `true` if it
    /// changed: see [`Atomic::wait_until`] and [`crate::time`].
    ///
    /// # Panics
    /// If `order` is `Release` or `AcqRel`, with `core`'s message for a load.
    ///
    /// ```
    /// use scoped_atomics::{AtomicFlag, Device, Ordering, time::Instant};
    /// use std::time::Duration;
    /// let flag = AtomicFlag::<Device>::new();
    /// flag.test_and_set(Ordering::Relaxed);
    /// assert!(flag.wait_until(false, Ordering::Acquire, Instant::now() + Duration::from_millis(1)));
    /// assert!(!flag.wait_until(true, Ordering::Acquire, Instant::now()));
    /// ```
    #[inline]
    #[track_caller]
    pub fn wait_until(
        &self,
        old: bool,
        order: Ordering,
        deadline: impl crate::time::Deadline,
    ) -> bool {
        self.state.wait_until(u32::from(old), order, deadline)
    }

    /// Wakes at least one thread blocked in [`wait`](Self::wait): see [`Atomic::notify_one`].
    ///
    /// ```
    /// use scoped_atomics::{AtomicFlag, Device, Ordering};
    /// let flag = AtomicFlag::<Device>::new();
    /// flag.clear(Ordering::Release);
    /// flag.notify_one(); // no waiter: nothing happens
    /// ```
    #[inline]
    #[cfg_attr(loom, track_caller)]
    pub fn notify_one(&self) {
        self.state.notify_one()
    }

    /// Wakes every thread blocked in [`wait`](Self::wait): see [`Atomic::notify_all`].
    ///
    /// ```
    /// use scoped_atomics::{AtomicFlag, Device, Ordering};
    /// let flag = AtomicFlag::<Device>::new();
    /// flag.test_and_set(Ordering::Release);
    /// flag.notify_all(); // no waiter: nothing happens
    /// ```
    #[inline]
    #[cfg_attr(loom, track_caller)]
    pub fn notify_all(&self) {
        self.state.notify_all()
    }
}

impl<S: PlainScope> Default for AtomicFlag<S> {
    /// A clear flag.
    #[inline(always)]
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Scope> fmt::Debug for AtomicFlag<S> {
    /// `AtomicFlag(true)` when set (a relaxed load).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("AtomicFlag")
            .field(&self.test(Ordering::Relaxed))
            .finish()
    }
}
