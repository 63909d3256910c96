//! The non-blocking, timed and parity waits of [`Barrier`]: libcu++'s `cuda::barrier::try_wait`,
//! `try_wait_for`, `try_wait_until`, `wait_parity`, `try_wait_parity`, `try_wait_parity_for` and
//! `try_wait_parity_until`.
//!
//! # Two ways to name a phase
//! * An [`ArrivalToken`], from the thread's own arrival, as for [`Barrier::wait`] (same contract:
//!   a token of the current or the preceding phase; on the generic barrier also one whose own
//!   arrival completed its phase).
//! * A **parity**: `false` for the even phases (0, 2, 4, …), `true` for the odd ones. A parity
//!   names the current phase or the one just before it — whichever has that parity — and its
//!   wait is over once the current phase's parity differs from it. A thread that did not arrive
//!   (a consumer that only watches the barrier, as in libcu++'s producer/consumer pipelines)
//!   tracks the parity of the phase it waits for itself: it starts at `false` and flips after
//!   each phase it saw end. A parity names nothing older, so a waiter that falls two phases behind
//!   sees its phase as not ended (an even phase ended twice later looks like the current even one).
//!
//! # Paths
//! * Generic barrier: an `Acquire` load of the phase word, comparing the phase with the token's
//!   phase or the parity; the timed forms poll it with the back-off and clock of every timed wait
//!   ([`crate::sync`]).
//! * Hardware barrier (`init_in_place` in block-shared memory, sm_80+ at PTX ISA 7.1+; a
//!   token is its phase's parity there): `mbarrier.test_wait.parity` on sm_80, polled with the
//!   same back-off for the timed forms; on sm_90 `mbarrier.try_wait.parity`, the hardware suspending the thread, with the time left as
//!   its `suspendTimeHint` for the timed forms, repeated until the phase ends or the time is up
//!   (`%globaltimer`). The blocking `wait_parity` is, like `wait`, a loop on
//!   `mbarrier.try_wait.parity` on sm_90 (no back-off: the hardware suspends the thread) and
//!   `mbarrier.test_wait.parity` polled with back-off on sm_80.
//!
//! # No parity accessor on tokens
//! libcu++ gives none; the generic barrier's token is a phase number, the hardware one's the
//! parity read at the arrival, which is not part of the API.

use super::barrier::{check_owner, check_token};
#[cfg(hardware_barrier)]
use super::mbarrier::{self, Phase};
use super::wait::{Deadline as Timer, key, wait_until};
use super::{ArrivalToken, Barrier, BarrierCompletion};
use crate::Scope;
use crate::time::Deadline;
use core::borrow::Borrow;
use core::sync::atomic::Ordering::Acquire;
use core::time::Duration;

impl<S: Scope, F: BarrierCompletion> Barrier<S, F> {
    /// The current phase of a generic barrier (an `Acquire` load).
    #[inline(always)]
    fn current_phase(&self) -> u32 {
        self.load_phase(Acquire)
    }

    /// Whether the phase of `token` has ended, without waiting (libcu++'s `try_wait`); `true`
    /// once every arrival of that phase has happened, and then everything other threads did
    /// before their arrivals, and the phase's completion, happens before this returns — as for
    /// [`wait`](Self::wait). Takes the token by reference (to try again) or by value.
    ///
    /// On the hardware barrier of sm_90 this is one `mbarrier.try_wait.parity`, which may suspend the
    /// thread for a short, system-dependent time while the phase is not over (as libcu++'s).
    ///
    /// # Panics
    /// As [`wait`](Self::wait): for a token two or more phases old that did not end its phase
    /// (generic barrier).
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Device};
    /// let barrier = Barrier::<Device>::new(2);
    /// let token = barrier.arrive();
    /// assert!(!barrier.try_wait(&token)); // one arrival is missing
    /// let _ = barrier.arrive();
    /// assert!(barrier.try_wait(token));
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    #[track_caller]
    pub fn try_wait(&self, token: impl Borrow<ArrivalToken>) -> bool {
        let token = token.borrow();
        super::debug_assert_not_local(self);
        check_owner(token, self.address(), "Barrier::try_wait");
        if token.completed {
            return true;
        }
        #[cfg(hardware_barrier)]
        if matches!(S::KIND, crate::ScopeKind::Block) && token.hardware {
            // SAFETY: the token's arrival found an initialised `mbarrier` in block-shared memory;
            // the token is of the current or the preceding phase (the caller's side of `wait`).
            return unsafe { mbarrier::try_once(self.object(), Phase(token.token)) };
        }
        let phase = token.token;
        let now = self.current_phase();
        check_token::<S>(phase, now);
        now != phase
    }

    /// Waits at most about `timeout` for the phase of `token` to end; `true` if it did (then as
    /// [`wait`](Self::wait) returning), `false` if the time ran out first (libcu++'s
    /// `try_wait_for`). Takes the token by reference (to try again) or by value. The clock is
    /// that of every timed wait: see [`crate::time`].
    ///
    /// # Panics
    /// As [`try_wait`](Self::try_wait).
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Device};
    /// use std::time::Duration;
    /// let barrier = Barrier::<Device>::new(2);
    /// let token = barrier.arrive();
    /// assert!(!barrier.try_wait_for(&token, Duration::from_micros(50))); // nobody else arrives
    /// std::thread::scope(|s| {
    ///     s.spawn(|| barrier.arrive_and_wait());
    ///     assert!(barrier.try_wait_for(token, Duration::from_secs(60)));
    /// });
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    #[track_caller]
    pub fn try_wait_for(&self, token: impl Borrow<ArrivalToken>, timeout: Duration) -> bool {
        let token = token.borrow();
        super::debug_assert_not_local(self);
        check_owner(token, self.address(), "Barrier::try_wait_for");
        if token.completed {
            return true;
        }
        #[cfg(hardware_barrier)]
        if matches!(S::KIND, crate::ScopeKind::Block) && token.hardware {
            // SAFETY: as in `try_wait`.
            return unsafe { mbarrier::wait_for(self.object(), Phase(token.token), timeout) };
        }
        let phase = token.token;
        let mut now = phase;
        let ended = Timer::after(timeout).wait_until(key(&self.phase), || {
            now = self.current_phase();
            now != phase
        });
        if ended {
            check_token::<S>(phase, now);
        }
        ended
    }

    /// Waits until `deadline` at the latest for the phase of `token` to end; `true` if it did
    /// (libcu++'s `try_wait_until`): [`try_wait_for`](Self::try_wait_for) with the time left
    /// until `deadline`, a [`time::Instant`](crate::time::Instant) or, on the host with `std`, a
    /// `std::time::Instant` (see [`crate::time`]).
    ///
    /// # Panics
    /// As [`try_wait`](Self::try_wait).
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block, time::Instant};
    /// use std::time::Duration;
    /// let barrier = Barrier::<Block>::new(2);
    /// let token = barrier.arrive();
    /// assert!(!barrier.try_wait_until(&token, Instant::now() + Duration::from_micros(50)));
    /// let _ = barrier.arrive();
    /// assert!(barrier.try_wait_until(&token, Instant::now())); // ended: no need to wait
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    #[track_caller]
    pub fn try_wait_until(
        &self,
        token: impl Borrow<ArrivalToken>,
        deadline: impl Deadline,
    ) -> bool {
        self.try_wait_for(token, deadline.time_left())
    }

    /// Whether the current or preceding phase of parity `parity` (`false`: even, `true`: odd)
    /// has ended, without waiting (libcu++'s `try_wait_parity`): whether the current phase's
    /// parity differs from `parity`. When `true`, everything other threads did before their
    /// arrivals in that phase, and its completion, happens before this returns. See the module
    /// documentation for what a parity can name.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// let barrier = Barrier::<Block>::new(1);
    /// assert!(!barrier.try_wait_parity(false)); // phase 0 (even) is under way
    /// let _ = barrier.arrive(); // ends phase 0
    /// assert!(barrier.try_wait_parity(false));
    /// assert!(!barrier.try_wait_parity(true)); // phase 1 (odd) is under way
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    pub fn try_wait_parity(&self, parity: bool) -> bool {
        super::debug_assert_not_local(self);
        #[cfg(hardware_barrier)]
        if let Some(object) = self.mbarrier() {
            // SAFETY: `mbarrier()` found an initialised `mbarrier` in block-shared memory; a
            // parity names the current or the preceding phase.
            return unsafe { mbarrier::try_once(object, Phase::parity(parity)) };
        }
        self.parity_ended(parity)
    }

    /// Whether the current phase's parity differs from `parity` (generic barrier).
    #[inline(always)]
    fn parity_ended(&self, parity: bool) -> bool {
        (self.current_phase() & 1 != 0) != parity
    }

    /// Waits until the current or preceding phase of parity `parity` (`false`: even, `true`:
    /// odd) has ended (libcu++'s `wait_parity`): until the current phase's parity differs from
    /// `parity`. Everything other threads did before their arrivals in that phase, and its
    /// completion, happens before this returns.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Device, Ordering, device::AtomicU32};
    /// let barrier = Barrier::<Device>::new(1);
    /// let data = AtomicU32::new(0);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| {
    ///         data.store(42, Ordering::Relaxed);
    ///         let _ = barrier.arrive(); // the producer ends phase 0
    ///     });
    ///     barrier.wait_parity(false); // the consumer waits for phase 0 without arriving
    ///     assert_eq!(data.load(Ordering::Relaxed), 42);
    /// });
    /// ```
    #[inline]
    pub fn wait_parity(&self, parity: bool) {
        super::debug_assert_not_local(self);
        #[cfg(hardware_barrier)]
        if let Some(object) = self.mbarrier() {
            // SAFETY: as in `try_wait_parity`.
            return unsafe { mbarrier::wait(object, Phase::parity(parity)) };
        }
        wait_until(key(&self.phase), || self.parity_ended(parity));
    }

    /// Waits at most about `timeout` for the current or preceding phase of parity `parity` to
    /// end; `true` if it did (libcu++'s `try_wait_parity_for`). See
    /// [`wait_parity`](Self::wait_parity) and, for the clock, [`crate::time`].
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// use std::time::Duration;
    /// let barrier = Barrier::<Block>::new(1);
    /// assert!(!barrier.try_wait_parity_for(false, Duration::from_micros(20)));
    /// let _ = barrier.arrive();
    /// assert!(barrier.try_wait_parity_for(false, Duration::from_micros(20)));
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    pub fn try_wait_parity_for(&self, parity: bool, timeout: Duration) -> bool {
        super::debug_assert_not_local(self);
        #[cfg(hardware_barrier)]
        if let Some(object) = self.mbarrier() {
            // SAFETY: as in `try_wait_parity`.
            return unsafe { mbarrier::wait_for(object, Phase::parity(parity), timeout) };
        }
        Timer::after(timeout).wait_until(key(&self.phase), || self.parity_ended(parity))
    }

    /// Waits until `deadline` at the latest for the current or preceding phase of parity
    /// `parity` to end; `true` if it did (libcu++'s `try_wait_parity_until`):
    /// [`try_wait_parity_for`](Self::try_wait_parity_for) with the time left until `deadline`.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Device, time::Instant};
    /// let barrier = Barrier::<Device>::new(1);
    /// let _ = barrier.arrive(); // ends phase 0
    /// assert!(barrier.try_wait_parity_until(false, Instant::now()));
    /// assert!(!barrier.try_wait_parity_until(true, Instant::now()));
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    pub fn try_wait_parity_until(&self, parity: bool, deadline: impl Deadline) -> bool {
        self.try_wait_parity_for(parity, deadline.time_left())
    }
}
