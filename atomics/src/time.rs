//! Time points for the timed waits: the [`Deadline`] trait, and [`Instant`], the clock a kernel
//! can read on the device and on the host alike.
//!
//! Every timed wait has two forms, as in C++: `*_for(…, Duration)` waits at most a duration, and
//! `*_until(…, deadline)` until a time point — [`Atomic::wait_for`](crate::Atomic::wait_for) /
//! [`wait_until`](crate::Atomic::wait_until),
//! [`CountingSemaphore::try_acquire_for`](crate::CountingSemaphore::try_acquire_for) /
//! [`try_acquire_until`](crate::CountingSemaphore::try_acquire_until),
//! [`Barrier::try_wait_for`](crate::Barrier::try_wait_for) /
//! [`try_wait_until`](crate::Barrier::try_wait_until), … A deadline is any [`Deadline`]:
//!
//! * [`Instant`] (this module): `%globaltimer` (nanoseconds) on the device, `std::time::Instant`
//!   on the host with `std` (and under loom). Kernel code that computes its deadlines with
//!   `time::Instant::now() + timeout` runs unchanged on the GPU and on host threads.
//! * `std::time::Instant`, on the host with the `std` feature.
//!
//! As in libcu++ (`try_wait_until(t)` is `try_wait_for(t - clock::now())`), an `*_until` turns
//! its deadline into the time left when it starts ([`Deadline::time_left`]) and then waits that
//! long on the clock of its backend (see [`crate::sync`]): `%globaltimer` on the device,
//! `std::time::Instant` on the host with `std`, a count of spin-loop hints on the host without
//! `std` (approximate: there is no clock there, and no `Instant` either), and under loom, which
//! has no time, one yield between two checks — loom explores both the wait that succeeds and the
//! one that times out.
//!
//! A deadline in the past still checks once: a wait whose condition already holds succeeds.
//!
//! ```
//! use scoped_atomics::{Atomic, Device, Ordering, time::Instant};
//! use std::time::Duration;
//!
//! let a = Atomic::<u32, Device>::new(0);
//! let deadline = Instant::now() + Duration::from_micros(100);
//! assert!(!a.wait_until(0, Ordering::Acquire, deadline)); // nobody changes it: times out
//! a.store(1, Ordering::Release);
//! assert!(a.wait_until(0, Ordering::Acquire, deadline)); // changed: true, even past the deadline
//! ```

use core::time::Duration;

mod sealed {
    pub trait Sealed {}
}

/// A time point a timed wait can wait until: [`time::Instant`](Instant) and, on the host with
/// the `std` feature, `std::time::Instant`. Sealed: the waits read the clock of their backend, so
/// only time points of those clocks are deadlines.
///
/// ```
/// use scoped_atomics::{BinarySemaphore, Device, time::Deadline};
/// use std::time::{Duration, Instant};
///
/// fn take_before(s: &BinarySemaphore<Device>, deadline: impl Deadline) -> bool {
///     s.try_acquire_until(deadline)
/// }
/// let s = BinarySemaphore::<Device>::new(1);
/// assert!(take_before(&s, Instant::now() + Duration::from_millis(1)));
/// assert!(!take_before(&s, Instant::now()));
/// ```
pub trait Deadline: sealed::Sealed {
    /// The time from now until the deadline; zero if it has passed.
    ///
    /// ```
    /// use scoped_atomics::time::{Deadline, Instant};
    /// use std::time::Duration;
    /// let deadline = Instant::now() + Duration::from_secs(60);
    /// assert!(deadline.time_left() <= Duration::from_secs(60));
    /// assert_eq!(Instant::now().time_left(), Duration::ZERO);
    /// ```
    fn time_left(&self) -> Duration;
}

/// A time point of the clock timed waits use: `%globaltimer` (nanoseconds since an unspecified
/// origin, the GPU's global timer) on the device, `std::time::Instant` on the host with `std`
/// and under loom. Not on the host without `std`, which has no clock: use the `*_for(Duration)`
/// forms there.
///
/// The two clocks are unrelated: an `Instant` is meaningful only on the processor that read it
/// (do not pass one from the host to a kernel).
///
/// ```
/// use scoped_atomics::time::Instant;
/// use std::time::Duration;
/// let start = Instant::now();
/// let later = start + Duration::from_nanos(500);
/// assert!(later > start);
/// assert_eq!(later.duration_since(start), Duration::from_nanos(500));
/// assert_eq!(start.duration_since(later), Duration::ZERO); // saturates, as `std`'s does
/// ```
#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Instant(imp::Clock);

#[cfg(target_arch = "nvptx64")]
mod imp {
    /// Nanoseconds of `%globaltimer`.
    pub(super) type Clock = u64;

    #[inline(always)]
    pub(super) fn now() -> Clock {
        crate::sync::wait::global_timer()
    }

    #[inline(always)]
    pub(super) fn since(later: Clock, earlier: Clock) -> core::time::Duration {
        core::time::Duration::from_nanos(later.saturating_sub(earlier))
    }

    /// In 64-bit arithmetic (`as_nanos` is a `u128`: multi-word adds on the device).
    #[inline(always)]
    pub(super) fn add(at: Clock, d: core::time::Duration) -> Option<Clock> {
        let ns = d
            .as_secs()
            .checked_mul(1_000_000_000)?
            .checked_add(u64::from(d.subsec_nanos()))?;
        at.checked_add(ns)
    }
}

#[cfg(all(not(target_arch = "nvptx64"), any(feature = "std", loom)))]
mod imp {
    pub(super) type Clock = std::time::Instant;

    #[inline(always)]
    pub(super) fn now() -> Clock {
        std::time::Instant::now()
    }

    #[inline(always)]
    pub(super) fn since(later: Clock, earlier: Clock) -> core::time::Duration {
        later.saturating_duration_since(earlier)
    }

    #[inline(always)]
    pub(super) fn add(at: Clock, d: core::time::Duration) -> Option<Clock> {
        at.checked_add(d)
    }
}

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
impl Instant {
    /// The current time: a read of `%globaltimer` on the device, `std::time::Instant::now()` on
    /// the host.
    ///
    /// ```
    /// use scoped_atomics::time::Instant;
    /// let a = Instant::now();
    /// assert!(Instant::now() >= a);
    /// ```
    #[inline]
    #[must_use]
    pub fn now() -> Self {
        Self(imp::now())
    }

    /// The time from `earlier` to `self`; zero if `earlier` is later.
    ///
    /// ```
    /// use scoped_atomics::time::Instant;
    /// use std::time::Duration;
    /// let a = Instant::now();
    /// assert_eq!((a + Duration::from_micros(3)).duration_since(a), Duration::from_micros(3));
    /// ```
    #[inline]
    #[must_use]
    pub fn duration_since(&self, earlier: Self) -> Duration {
        imp::since(self.0, earlier.0)
    }

    /// The time since `self`; zero if `self` is in the future.
    ///
    /// ```
    /// use scoped_atomics::time::Instant;
    /// let a = Instant::now();
    /// let _ = a.elapsed();
    /// ```
    #[inline]
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        Self::now().duration_since(*self)
    }

    /// `self + d`, or `None` if the clock cannot represent it.
    ///
    /// ```
    /// use scoped_atomics::time::Instant;
    /// use std::time::Duration;
    /// assert!(Instant::now().checked_add(Duration::from_secs(1)).is_some());
    /// ```
    #[inline]
    #[must_use]
    pub fn checked_add(&self, d: Duration) -> Option<Self> {
        imp::add(self.0, d).map(Self)
    }
}

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
impl core::ops::Add<Duration> for Instant {
    type Output = Self;

    /// `self + d`.
    ///
    /// # Panics
    /// If the clock cannot represent the result (as `std::time::Instant`'s `+`); use
    /// [`checked_add`](Instant::checked_add) to get `None` instead.
    #[inline]
    #[track_caller]
    fn add(self, d: Duration) -> Self {
        match self.checked_add(d) {
            Some(sum) => sum,
            // A message on the host, a bare `trap` on the device (no formatting code there).
            None => crate::sync::message::Message::new()
                .text("overflow when adding a duration to a time::Instant")
                .panic(),
        }
    }
}

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
impl sealed::Sealed for Instant {}

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
impl Deadline for Instant {
    #[inline]
    fn time_left(&self) -> Duration {
        self.duration_since(Self::now())
    }
}

#[cfg(all(not(target_arch = "nvptx64"), any(feature = "std", loom)))]
impl sealed::Sealed for std::time::Instant {}

#[cfg(all(not(target_arch = "nvptx64"), any(feature = "std", loom)))]
impl Deadline for std::time::Instant {
    #[inline]
    fn time_left(&self) -> Duration {
        self.saturating_duration_since(std::time::Instant::now())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Deadline, Instant};
    use core::time::Duration;

    #[test]
    fn a_deadline_in_the_past_has_no_time_left() {
        let past = Instant::now();
        assert_eq!(past.time_left(), Duration::ZERO);
        let std_past = std::time::Instant::now();
        assert_eq!(std_past.time_left(), Duration::ZERO);
    }

    #[test]
    fn a_deadline_in_the_future_has_at_most_its_distance_left() {
        let future = Instant::now() + Duration::from_secs(3600);
        let left = future.time_left();
        assert!(left > Duration::from_secs(3000) && left <= Duration::from_secs(3600));
    }

    #[test]
    fn checked_add_reports_overflow() {
        assert!(Instant::now().checked_add(Duration::MAX).is_none());
    }
}
