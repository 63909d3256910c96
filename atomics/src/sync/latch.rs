//! [`Latch<S>`]: `cuda::latch<Scope>`, a single-use count-down.
//!
//! One `Atomic<u32, S>` holds the count as an `i32`: positive while the latch is closed, 0 (or,
//! after a misuse, negative) once open. `count_down(n)` is one `fetch_sub(n, Release)`; `n` is at
//! most [`Latch::max`] = `i32::MAX`, so a count-down past zero makes the count negative (the latch
//! opens, the offending thread panics) rather than wrapping around to a large positive count.
//! Waiters load with `Acquire` until the count is at most 0; the count-downs, being
//! read-modify-writes of one location, form a release sequence that the final load reads from, so
//! everything before every `count_down` happens before the wait returns.

use super::message::Message;
use super::wait::{key, wait_until, wake_all};
use crate::{Atomic, PlainScope, Scope, System};
use core::fmt;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// The largest count.
const MAX: u32 = i32::MAX as u32;

/// A single-use count-down for the threads of scope `S`: `cuda::latch<S>`, with C++20
/// `std::latch` semantics.
///
/// The counter starts at `expected`; [`count_down`](Self::count_down) decrements it, and the
/// latch opens — every [`wait`](Self::wait) returns — once it reaches 0. It cannot be reset.
/// Everything a thread does before its `count_down` happens before every `wait` (or successful
/// [`try_wait`](Self::try_wait)) returns.
///
/// `S` is the scope of the latch's atomic and so of the threads that may use it, as for
/// [`Barrier`](crate::Barrier).
///
/// ```
/// use scoped_atomics::{Device, Latch, Ordering, device::AtomicU32};
///
/// let ready = Latch::<Device>::new(3);
/// let sum = AtomicU32::new(0);
/// std::thread::scope(|s| {
///     for i in 1..=3 {
///         let (ready, sum) = (&ready, &sum);
///         s.spawn(move || {
///             sum.fetch_add(i, Ordering::Relaxed);
///             ready.count_down(1);
///         });
///     }
///     ready.wait();
///     assert_eq!(sum.load(Ordering::Relaxed), 6);
/// });
/// ```
pub struct Latch<S: Scope = System> {
    /// The count, as an `i32`; see the module documentation.
    pub(super) count: Atomic<u32, S>,
}

impl<S: Scope> Latch<S> {
    crate::atomic::const_unless_loom! {
        /// A latch that opens after `expected` count-downs; a latch of 0 is open from the start.
        ///
        /// # Panics
        /// If `expected` is above [`max()`](Self::max), with a message that gives the numbers.
        ///
        /// ```
        /// use scoped_atomics::{Device, Latch};
        /// static DONE: Latch<Device> = Latch::new(2);
        /// assert!(Latch::<Device>::new(0).try_wait());
        /// # let _ = &DONE;
        /// ```
        #[track_caller]
        #[must_use]
        pub const fn new(expected: u32) -> Self
        where
            S: PlainScope,
        {
            // SAFETY: a plain scope promises no state space.
            unsafe { Self::new_in_space(expected) }
        }
    }

    crate::atomic::const_unless_loom! {
        /// A latch that opens after `expected` count-downs, of any scope — also one on a state space ([`Global<S>`](crate::Global),
        /// [`Shared<S>`](crate::Shared)), whose operations name `.global` or `.shared`: for a
        /// device `static` (global memory) or one written into a
        /// [`block_shared!`](crate::block_shared) array. For a plain scope it is
        /// [`new`](Self::new).
        ///
        /// # Safety
        /// As for [`Atomic::new_in_space`](crate::Atomic::new_in_space): if `S` has a state
        /// space, every operation on the latch is made while it lies in memory of that space.
        ///
        /// # Panics
        /// As [`new`](Self::new).
        ///
        /// ```
        /// use scoped_atomics::{Device, Global, Latch};
        /// // SAFETY: a `static` lives in global memory on the device and is never moved.
        /// static DONE: Latch<Global<Device>> = unsafe { Latch::new_in_space(1) };
        /// DONE.count_down(1);
        /// assert!(DONE.try_wait());
        /// ```
        #[track_caller]
        #[must_use]
        pub const unsafe fn new_in_space(expected: u32) -> Self {
            if expected > MAX {
                Message::new()
                    .text("Latch::new: the expected count ")
                    .num(expected as u64)
                    .text(" is above Latch::max() = ")
                    .num(MAX as u64)
                    .panic()
            }
            // SAFETY: the caller's contract (the space).
            Self { count: unsafe { Atomic::<u32, S>::new_in_space(expected) } }
        }
    }

    /// The largest expected count: 2³¹ − 1.
    ///
    /// ```
    /// use scoped_atomics::{Latch, Block};
    /// assert!(Latch::<Block>::max() >= (1 << 20) - 1);
    /// ```
    #[inline(always)]
    pub const fn max() -> u32 {
        MAX
    }

    /// Decrements the counter by `n` (a release), without waiting; opens the latch if it reaches 0.
    ///
    /// # Panics
    /// If `n` is more than the counter ("count_down past zero"), or above [`max()`](Self::max);
    /// the message gives the numbers. A count-down past zero still opens the latch.
    ///
    /// ```
    /// use scoped_atomics::{Latch, System};
    /// let latch = Latch::<System>::new(5);
    /// latch.count_down(2);
    /// assert!(!latch.try_wait());
    /// latch.count_down(3);
    /// assert!(latch.try_wait());
    /// ```
    #[track_caller]
    pub fn count_down(&self, n: u32) {
        super::debug_assert_not_local(self);
        if n > MAX {
            Message::new()
                .text("Latch::count_down: n = ")
                .num(n as u64)
                .text(" is above Latch::max() = ")
                .num(MAX as u64)
                .panic()
        }
        let old = self.count.fetch_sub(n, Release) as i32;
        if old <= n as i32 {
            // Open now (or was already): let the waiters go before reporting a misuse.
            wake_all(key(&self.count));
        }
        if old < n as i32 && n > 0 {
            Message::new()
                .text("Latch::count_down: count_down(")
                .num(n as u64)
                .text(") past zero: the counter was ")
                .num(old.max(0) as u64)
                .panic()
        }
    }

    /// Whether the latch is open (an `Acquire` load): if `true`, every `count_down` happened
    /// before this call returned.
    ///
    /// ```
    /// use scoped_atomics::{Latch, Block};
    /// let latch = Latch::<Block>::new(1);
    /// assert!(!latch.try_wait());
    /// latch.count_down(1);
    /// assert!(latch.try_wait());
    /// ```
    #[inline]
    pub fn try_wait(&self) -> bool {
        super::debug_assert_not_local(self);
        self.count.load(Acquire) as i32 <= 0
    }

    /// Waits until the latch is open.
    ///
    /// ```
    /// use scoped_atomics::{Latch, System};
    /// let latch = Latch::<System>::new(1);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| latch.count_down(1));
    ///     latch.wait();
    /// });
    /// ```
    #[inline]
    pub fn wait(&self) {
        wait_until(key(&self.count), || self.try_wait());
    }

    /// Counts down by `n` and waits until the latch is open: `count_down(n); wait()`.
    ///
    /// # Panics
    /// As [`count_down`](Self::count_down).
    ///
    /// ```
    /// use scoped_atomics::{Device, Latch};
    /// let latch = Latch::<Device>::new(4);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| latch.arrive_and_wait(3));
    ///     latch.arrive_and_wait(1);
    /// });
    /// ```
    #[inline]
    #[track_caller]
    pub fn arrive_and_wait(&self, n: u32) {
        self.count_down(n);
        self.wait();
    }
}

impl<S: Scope> fmt::Debug for Latch<S> {
    /// The count still to go (a relaxed load; 0 once open).
    ///
    /// ```
    /// use scoped_atomics::{Latch, Block};
    /// assert_eq!(format!("{:?}", Latch::<Block>::new(2)), "Latch { count: 2 }");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = (self.count.load(Relaxed) as i32).max(0);
        f.debug_struct("Latch").field("count", &count).finish()
    }
}
