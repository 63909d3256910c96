//! [`CountingSemaphore<S, MAX>`] and [`BinarySemaphore<S>`]: `cuda::counting_semaphore<Scope,
//! LeastMaxValue>` and `cuda::binary_semaphore<Scope>`.
//!
//! One `Atomic<u32, S>` holds the count. `acquire` is a compare-exchange loop that decrements a
//! positive count (`Acquire`); `release(n)` is a compare-exchange loop that adds `n` (`Release`)
//! after checking that the result stays within `MAX`, so an excess release panics without changing
//! the count. The releases and acquisitions are read-modify-writes of one location: an acquire
//! that takes a unit reads from a release (or from the release sequence after it), so everything
//! before the `release` happens before the `acquire` returns.

use super::message::Message;
use super::wait::{Deadline, key, wait_until, wake_all};
use crate::{Atomic, PlainScope, Scope, System};
use core::fmt;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use core::time::Duration;

/// A counting semaphore for the threads of scope `S`, whose count never exceeds `MAX`:
/// `cuda::counting_semaphore<S, MAX>`, with C++20 `std::counting_semaphore` semantics.
///
/// [`acquire`](Self::acquire) takes one unit, waiting while the count is 0;
/// [`release(n)`](Self::release) returns `n` units and wakes waiters. Everything a thread does
/// before a `release` happens before the return of an `acquire` that takes one of its units.
///
/// `S` is the scope of the semaphore's atomic and so of the threads that may use it, as for
/// [`Barrier`](crate::Barrier).
///
/// ```
/// use scoped_atomics::{CountingSemaphore, Device, Ordering, device::AtomicU32};
///
/// // At most two threads in the section at once.
/// let slots = CountingSemaphore::<Device, 2>::new(2);
/// let inside = AtomicU32::new(0);
/// std::thread::scope(|s| {
///     for _ in 0..6 {
///         s.spawn(|| {
///             slots.acquire();
///             assert!(inside.fetch_add(1, Ordering::Relaxed) < 2);
///             inside.fetch_sub(1, Ordering::Relaxed);
///             slots.release(1);
///         });
///     }
/// });
/// ```
pub struct CountingSemaphore<S: Scope = System, const MAX: u32 = { u32::MAX }> {
    pub(super) count: Atomic<u32, S>,
}

/// A semaphore with a count of 0 or 1: `cuda::binary_semaphore<S>`.
///
/// ```
/// use scoped_atomics::{BinarySemaphore, Block};
/// let signal = BinarySemaphore::<Block>::new(0);
/// assert!(!signal.try_acquire());
/// signal.release(1);
/// assert!(signal.try_acquire());
/// ```
pub type BinarySemaphore<S = System> = CountingSemaphore<S, 1>;

impl<S: Scope, const MAX: u32> CountingSemaphore<S, MAX> {
    crate::atomic::const_unless_loom! {
        /// A semaphore holding `initial` units.
        ///
        /// # Panics
        /// If `initial` is above `MAX`, with a message that gives the numbers.
        ///
        /// ```
        /// use scoped_atomics::{CountingSemaphore, Device};
        /// static POOL: CountingSemaphore<Device, 8> = CountingSemaphore::new(8);
        /// assert!(POOL.try_acquire());
        /// ```
        #[track_caller]
        #[must_use]
        pub const fn new(initial: u32) -> Self
        where
            S: PlainScope,
        {
            // SAFETY: a plain scope promises no state space.
            unsafe { Self::new_in_space(initial) }
        }
    }

    crate::atomic::const_unless_loom! {
        /// A semaphore holding `initial` units, of any scope — also one on a state space ([`Global<S>`](crate::Global),
        /// [`Shared<S>`](crate::Shared)), whose operations name `.global` or `.shared`: for a
        /// device `static` (global memory) or one written into a
        /// [`block_shared!`](crate::block_shared) array. For a plain scope it is
        /// [`new`](Self::new).
        ///
        /// # Safety
        /// As for [`Atomic::new_in_space`](crate::Atomic::new_in_space): if `S` has a state
        /// space, every operation on the semaphore is made while it lies in memory of that space.
        ///
        /// # Panics
        /// As [`new`](Self::new).
        ///
        /// ```
        /// use scoped_atomics::{CountingSemaphore, Device, Global};
        /// // SAFETY: a `static` lives in global memory on the device and is never moved.
        /// static POOL: CountingSemaphore<Global<Device>, 8> = unsafe { CountingSemaphore::new_in_space(8) };
        /// assert!(POOL.try_acquire());
        /// ```
        #[track_caller]
        #[must_use]
        pub const unsafe fn new_in_space(initial: u32) -> Self {
            if initial > MAX {
                Message::new()
                    .text("CountingSemaphore::new: the initial count ")
                    .num(initial as u64)
                    .text(" is above MAX = ")
                    .num(MAX as u64)
                    .panic()
            }
            // SAFETY: the caller's contract (the space).
            Self { count: unsafe { Atomic::<u32, S>::new_in_space(initial) } }
        }
    }

    /// The largest count: `MAX`.
    ///
    /// ```
    /// use scoped_atomics::{BinarySemaphore, CountingSemaphore, Device};
    /// assert_eq!(CountingSemaphore::<Device, 16>::max(), 16);
    /// assert_eq!(BinarySemaphore::<Device>::max(), 1);
    /// ```
    #[inline(always)]
    pub const fn max() -> u32 {
        MAX
    }

    /// Takes one unit if the count is positive, without waiting; `true` if it did. Does not fail
    /// spuriously: `false` means the count was 0.
    ///
    /// ```
    /// use scoped_atomics::{CountingSemaphore, System};
    /// let s = CountingSemaphore::<System, 4>::new(1);
    /// assert!(s.try_acquire());
    /// assert!(!s.try_acquire());
    /// ```
    #[inline]
    pub fn try_acquire(&self) -> bool {
        super::debug_assert_not_local(self);
        let mut count = self.count.load(Relaxed);
        while count > 0 {
            match self
                .count
                .compare_exchange_weak(count, count - 1, Acquire, Relaxed)
            {
                Ok(_) => return true,
                Err(current) => count = current,
            }
        }
        false
    }

    /// Takes one unit, waiting while the count is 0.
    ///
    /// ```
    /// use scoped_atomics::{BinarySemaphore, Device, Ordering, device::AtomicU32};
    /// let done = BinarySemaphore::<Device>::new(0);
    /// let result = AtomicU32::new(0);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| {
    ///         result.store(42, Ordering::Relaxed);
    ///         done.release(1);
    ///     });
    ///     done.acquire();
    ///     assert_eq!(result.load(Ordering::Relaxed), 42);
    /// });
    /// ```
    #[inline]
    pub fn acquire(&self) {
        while !self.try_acquire() {
            wait_until(key(&self.count), || self.count.load(Relaxed) > 0);
        }
    }

    /// Takes one unit, waiting at most about `timeout` while the count is 0; `true` if it took
    /// one. The clock is `Instant` on the host with `std`, `%globaltimer` on the device; the host
    /// without `std` has no clock and counts spin-loop hints instead (approximate); under loom a
    /// timed wait yields once.
    ///
    /// ```
    /// use scoped_atomics::{BinarySemaphore, System};
    /// use std::time::Duration;
    /// let s = BinarySemaphore::<System>::new(0);
    /// assert!(!s.try_acquire_for(Duration::from_millis(1)));
    /// s.release(1);
    /// assert!(s.try_acquire_for(Duration::from_millis(1)));
    /// ```
    pub fn try_acquire_for(&self, timeout: Duration) -> bool {
        if self.try_acquire() {
            return true;
        }
        let mut deadline = Deadline::after(timeout);
        loop {
            if !deadline.wait_until(key(&self.count), || self.count.load(Relaxed) > 0) {
                return false;
            }
            if self.try_acquire() {
                return true;
            }
        }
    }

    /// Takes one unit, waiting until `deadline` at the latest while the count is 0; `true` if it
    /// took one (`cuda::counting_semaphore::try_acquire_until`): [`try_acquire_for`](Self::try_acquire_for)
    /// with the time left until `deadline`. A deadline is a [`time::Instant`](crate::time::Instant)
    /// (device and host) or a `std::time::Instant` (host with `std`); one in the past still tries
    /// once. See [`crate::time`].
    ///
    /// ```
    /// use scoped_atomics::{BinarySemaphore, Device, time::Instant};
    /// use std::time::Duration;
    /// let s = BinarySemaphore::<Device>::new(0);
    /// assert!(!s.try_acquire_until(Instant::now() + Duration::from_micros(100)));
    /// s.release(1);
    /// assert!(s.try_acquire_until(Instant::now())); // a unit is there: no need to wait
    /// ```
    #[inline]
    pub fn try_acquire_until(&self, deadline: impl crate::time::Deadline) -> bool {
        self.try_acquire_for(deadline.time_left())
    }

    /// Returns `n` units (a release) and wakes waiters.
    ///
    /// # Panics
    /// If the count would exceed `MAX`, with a message that gives the numbers; the count is then
    /// unchanged.
    ///
    /// ```
    /// use scoped_atomics::{CountingSemaphore, Block};
    /// let s = CountingSemaphore::<Block, 3>::new(0);
    /// s.release(3);
    /// assert!(s.try_acquire() && s.try_acquire() && s.try_acquire() && !s.try_acquire());
    /// ```
    #[track_caller]
    pub fn release(&self, n: u32) {
        super::debug_assert_not_local(self);
        let mut count = self.count.load(Relaxed);
        loop {
            let Some(new) = count.checked_add(n).filter(|&new| new <= MAX) else {
                Message::new()
                    .text("CountingSemaphore::release: release(")
                    .num(n as u64)
                    .text(") would raise the count from ")
                    .num(count as u64)
                    .text(" to ")
                    .num(count as u64 + n as u64)
                    .text(", above MAX = ")
                    .num(MAX as u64)
                    .panic()
            };
            match self
                .count
                .compare_exchange_weak(count, new, Release, Relaxed)
            {
                Ok(_) => break,
                Err(current) => count = current,
            }
        }
        if n > 0 {
            wake_all(key(&self.count));
        }
    }
}

impl<S: Scope, const MAX: u32> fmt::Debug for CountingSemaphore<S, MAX> {
    /// The count (a relaxed load) and `MAX`.
    ///
    /// ```
    /// use scoped_atomics::{BinarySemaphore, Block};
    /// assert_eq!(
    ///     format!("{:?}", BinarySemaphore::<Block>::new(1)),
    ///     "CountingSemaphore { count: 1, max: 1 }"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountingSemaphore")
            .field("count", &self.count.load(Relaxed))
            .field("max", &MAX)
            .finish()
    }
}
