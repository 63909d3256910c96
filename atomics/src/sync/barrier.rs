//! [`Barrier<S, F>`]: `cuda::barrier<Scope, CompletionFunction>`, a reusable barrier of phases.
//!
//! # The state word
//! One `Atomic<u64, S>` holds the whole state of the current phase:
//!
//! ```text
//!  63            32   31    30                     0
//! +----------------+-------+------------------------+
//! |     phase      | guard | arrivals still missing |
//! +----------------+-------+------------------------+
//! ```
//!
//! * An arrival of `n` is one `fetch_sub(n, AcqRel)`. The guard bit is always 1 between phases
//!   and `n` is at most [`Barrier::max`], so even an arrival of more than are missing borrows from
//!   the guard bit, never from the phase: the excess is detected (the arriver panics) without
//!   touching the phase that waiters watch.
//! * The arrival that takes the count to 0 is the last of its phase. It runs the completion, then
//!   stores `(phase + 1, guard, expected)` with `Release` and wakes the waiters. Between its
//!   arrival and that store, the count is 0: any further arrival in the phase is an excess.
//! * A waiter holds an [`ArrivalToken`] with the phase it arrived in and waits, with `Acquire`
//!   loads, until the phase in the word differs. A token of an older phase therefore returns at
//!   once. The phase is 32 bits and wraps: a waiter that slept through exactly a multiple of 2³²
//!   phases would not notice, which cannot happen while it is one of the expected arrivals.
//! * The expected count of the next phase is a second `Atomic<u32, S>`: `arrive_and_drop`
//!   decrements it before it arrives. The last arriver reads it after its `AcqRel` arrival, which
//!   is ordered after every arrival of the phase (all arrivals are read-modify-writes of one
//!   word, so they form a release sequence), so it sees every drop of the phase.
//!
//! # Ordering
//! Each arrival is a release; the last arriver's arrival acquires all of them (release sequence),
//! and its store of the new phase is a release that each waiter's `Acquire` load reads. So every
//! access before an `arrive` of phase *k* happens before the completion of phase *k*, which happens
//! before every access after a `wait` for phase *k* returns — within scope `S`.

#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
use super::mbarrier;
use super::message::Message;
use super::wait::{key, wait_until, wake_all};
use crate::{Atomic, Scope, System};
use core::cell::UnsafeCell;
use core::fmt;
use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

/// Bit 31: set between phases; an excess arrival clears it instead of borrowing from the phase.
pub(super) const GUARD: u64 = 1 << 31;
/// The low 32 bits: guard and count.
pub(super) const LOW: u64 = u32::MAX as u64;
/// The largest expected count: what fits under the guard bit.
const MAX: u32 = (1 << 31) - 1;

/// The state word of a phase with `missing` arrivals to go.
#[inline(always)]
pub(super) const fn word(phase: u32, missing: u32) -> u64 {
    ((phase as u64) << 32) | GUARD | missing as u64
}

/// A reusable barrier for the threads of scope `S`: `cuda::barrier<S, F>`, with C++20
/// `std::barrier` semantics.
///
/// Each phase waits for `expected` arrivals; the last one runs the completion function `F` (if
/// any, see [`with_completion`](Self::with_completion)) and starts the next phase, which releases
/// the waiters. The barrier can be used for any number of phases.
///
/// `S` is the scope of the barrier's atomics, and so of the threads that may use it: a
/// `Barrier<Block>` synchronises the threads of one block, a `Barrier<Device>` a whole grid, a
/// `Barrier<System>` (the default) host and device threads. Threads outside `S` that use the
/// barrier race on it (the loom mirror reports it). The arrivals of one phase must not exceed
/// `expected` (a panic), and a thread arrives for the next phase only after it saw the current one
/// end (its `wait` returned, or it was the last arriver).
///
/// On the host with `std`, waiters block (they spin briefly first); elsewhere they poll, with
/// `nanosleep` back-off on the device. A `Barrier<Device>` across the blocks of a grid needs all of
/// them resident at once (a cooperative launch). See [`crate::sync`].
///
/// ```
/// use scoped_atomics::{Barrier, Device, Ordering, device::AtomicU32};
///
/// const THREADS: usize = 4;
/// let barrier = Barrier::<Device>::new(THREADS as u32);
/// let slots: [AtomicU32; THREADS] = Default::default();
/// std::thread::scope(|s| {
///     for i in 0..THREADS {
///         let (barrier, slots) = (&barrier, &slots);
///         s.spawn(move || {
///             for phase in 1..=3 {
///                 slots[i].store(phase, Ordering::Relaxed);
///                 barrier.arrive_and_wait();
///                 // Every thread's write of this phase is visible now.
///                 assert!(slots.iter().all(|x| x.load(Ordering::Relaxed) == phase));
///                 barrier.arrive_and_wait(); // nobody writes the next phase before all have read
///             }
///         });
///     }
/// });
/// ```
pub struct Barrier<S: Scope = System, F = fn()> {
    /// Phase, guard bit and missing arrivals; see the module documentation.
    pub(super) state: Atomic<u64, S>,
    /// The expected count of the phases to come: `expected` less the `arrive_and_drop`s so far.
    expected: Atomic<u32, S>,
    /// Run by the last arriver of each phase, before the next phase starts.
    completion: UnsafeCell<F>,
}

// SAFETY: the only access to `completion` through `&Barrier` is the call in `complete_phase`, made
// by the one thread whose arrival took the phase's count to 0. Calls of different phases are
// ordered by happens-before: the completion of phase k precedes the release store of phase k + 1,
// which every arrival of phase k + 1, and so the last one, reads from (directly, or through the
// release sequence of the read-modify-writes after it) with its `AcqRel` arrival. So there is never
// more than one access at a time, as with a `Mutex<F>`, which is `Sync` when `F: Send` — `F` moves
// from thread to thread.
unsafe impl<S: Scope, F: Send> Sync for Barrier<S, F> {}

/// The phase a thread arrived in, for [`Barrier::wait`]; `cuda::barrier::arrival_token`.
///
/// ```
/// use scoped_atomics::{Barrier, Block};
/// let barrier = Barrier::<Block>::new(1);
/// let token = barrier.arrive(); // the only arrival: the phase completes at once
/// barrier.wait(token); // returns at once
/// ```
#[must_use = "pass the token to `Barrier::wait`; to arrive without waiting, drop it explicitly"]
#[derive(Debug, PartialEq, Eq)]
pub struct ArrivalToken {
    /// The phase (generic barrier), or the `mbarrier` state token (hardware barrier).
    token: u64,
}

impl<S: Scope> Barrier<S> {
    crate::atomic::const_unless_loom! {
        /// A barrier whose phases each wait for `expected` arrivals, with no completion function.
        ///
        /// # Panics
        /// If `expected` is 0 or above [`max()`](Self::max), with a message that gives the numbers
        /// (in a `const` context: a compile-time error).
        ///
        /// ```
        /// use scoped_atomics::{Barrier, Device};
        /// static GRID_BARRIER: Barrier<Device> = Barrier::new(4);
        /// # let _ = &GRID_BARRIER;
        /// ```
        #[track_caller]
        #[must_use]
        pub const fn new(expected: u32) -> Self {
            fn nothing() {}
            Self::with_completion(expected, nothing as fn())
        }
    }
}

impl<S: Scope, F: FnMut()> Barrier<S, F> {
    crate::atomic::const_unless_loom! {
        /// A barrier whose phases each wait for `expected` arrivals; the last arrival of each phase
        /// runs `completion` once, after every arrival of the phase and before any waiter of the
        /// phase returns.
        ///
        /// The completion runs on the thread of the last arrival, within its `arrive`. It must not
        /// use the barrier itself, and should not panic: the phase would not end, and its waiters
        /// would wait forever.
        ///
        /// # Panics
        /// If `expected` is 0 or above [`max()`](Self::max), with a message that gives the numbers.
        ///
        /// ```
        /// use scoped_atomics::{Barrier, Device, Ordering, device::AtomicU32};
        ///
        /// let completed = AtomicU32::new(0);
        /// let barrier = Barrier::<Device, _>::with_completion(3, || {
        ///     completed.fetch_add(1, Ordering::Relaxed);
        /// });
        /// std::thread::scope(|s| {
        ///     for _ in 0..3 {
        ///         s.spawn(|| {
        ///             for phase in 1..=5 {
        ///                 barrier.arrive_and_wait();
        ///                 // The completion of this phase ran before any wait returned.
        ///                 assert!(completed.load(Ordering::Relaxed) >= phase);
        ///             }
        ///         });
        ///     }
        /// });
        /// assert_eq!(completed.load(Ordering::Relaxed), 5);
        /// ```
        #[track_caller]
        #[must_use]
        pub const fn with_completion(expected: u32, completion: F) -> Self {
            if expected == 0 {
                Message::new()
                    .text("Barrier::new: the expected count is 0; a barrier needs at least 1 arrival per phase")
                    .panic()
            }
            if expected > MAX {
                Message::new()
                    .text("Barrier::new: the expected count ")
                    .num(expected as u64)
                    .text(" is above Barrier::max() = ")
                    .num(MAX as u64)
                    .panic()
            }
            Self {
                state: Atomic::<u64, S>::new(word(0, expected)),
                expected: Atomic::<u32, S>::new(expected),
                completion: UnsafeCell::new(completion),
            }
        }
    }

    /// The largest expected count a barrier can have: 2³¹ − 1.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// assert!(Barrier::<Block>::max() >= (1 << 20) - 1);
    /// ```
    #[inline(always)]
    pub const fn max() -> u32 {
        MAX
    }

    /// Arrives once in the current phase, without waiting; pass the token to
    /// [`wait`](Self::wait). If this is the last arrival of the phase, runs the completion and
    /// starts the next phase before returning.
    ///
    /// # Panics
    /// If the phase already has all its `expected` arrivals.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Device};
    /// let barrier = Barrier::<Device>::new(2);
    /// let first = barrier.arrive();
    /// let second = barrier.arrive(); // the phase is complete
    /// barrier.wait(first);
    /// barrier.wait(second);
    /// ```
    #[inline]
    #[track_caller]
    pub fn arrive(&self) -> ArrivalToken {
        self.arrive_n(1)
    }

    /// Arrives `n` times at once in the current phase (`cuda::barrier::arrive(n)`), e.g. for the
    /// whole warp from one lane.
    ///
    /// # Panics
    /// If `n` is 0, or more than the arrivals still missing in the phase ("more arrivals in a
    /// phase than expected"); the message gives the numbers. After an excess arrival the other
    /// participants of that phase may wait forever.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// let barrier = Barrier::<Block>::new(33);
    /// let warp = barrier.arrive_n(32); // on behalf of 32 threads
    /// let last = barrier.arrive(); // the 33rd arrival completes the phase
    /// barrier.wait(warp);
    /// barrier.wait(last);
    /// ```
    #[track_caller]
    pub fn arrive_n(&self, n: u32) -> ArrivalToken {
        if n == 0 || n > MAX {
            Message::new()
                .text("Barrier::arrive_n: cannot arrive ")
                .num(n as u64)
                .text(" times; n must be between 1 and Barrier::max() = ")
                .num(MAX as u64)
                .panic()
        }
        #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
        if let Some(object) = self.mbarrier() {
            // SAFETY: `mbarrier()` found an initialised `mbarrier` in block-shared memory.
            return ArrivalToken {
                token: unsafe { mbarrier::arrive_n(object, n) },
            };
        }
        let old = self.state.fetch_sub(n as u64, AcqRel);
        let low = old & LOW;
        let phase = (old >> 32) as u32;
        if low < GUARD + n as u64 {
            let missing = low.saturating_sub(GUARD);
            Message::new()
                .text("Barrier: more arrivals in a phase than expected: ")
                .num(n as u64)
                .text(if n == 1 { " arrival" } else { " arrivals" })
                .text(" with ")
                .num(missing)
                .text(" missing in phase ")
                .num(phase as u64)
                .text(" (expected count ")
                .num(self.expected.load(Relaxed) as u64)
                .text(")")
                .panic()
        }
        if low == GUARD + n as u64 {
            self.complete_phase(phase);
        }
        ArrivalToken {
            token: phase as u64,
        }
    }

    /// Runs the completion and starts phase `phase + 1`; called by the last arriver of `phase`.
    #[inline]
    fn complete_phase(&self, phase: u32) {
        // SAFETY: this thread's arrival took the count of `phase` to 0, so no other thread is in
        // `complete_phase` for `phase`, and the one of `phase - 1` happened before (see the `Sync`
        // impl). No reference to the completion outlives this call.
        unsafe { (*self.completion.get())() };
        let expected = self.expected.load(Relaxed);
        self.state
            .store(word(phase.wrapping_add(1), expected), Release);
        wake_all(key(&self.state));
    }

    /// Waits until the phase of `token` has ended; returns at once if it already has (also for a
    /// token of any older phase). Everything other threads did before their arrivals in that phase,
    /// and the phase's completion, happens before `wait` returns.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Device, Ordering, device::AtomicU32};
    /// let barrier = Barrier::<Device>::new(2);
    /// let data = AtomicU32::new(0);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| {
    ///         data.store(7, Ordering::Relaxed);
    ///         let _ = barrier.arrive(); // publish, don't wait
    ///     });
    ///     let token = barrier.arrive();
    ///     barrier.wait(token);
    ///     assert_eq!(data.load(Ordering::Relaxed), 7);
    /// });
    /// ```
    #[inline]
    pub fn wait(&self, token: ArrivalToken) {
        #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
        if let Some(object) = self.mbarrier() {
            // SAFETY: as in `arrive_n`.
            return wait_until(key(&self.state), || unsafe {
                mbarrier::test_wait(object, token.token)
            });
        }
        wait_until(key(&self.state), || {
            (self.state.load(Acquire) >> 32) as u32 != token.token as u32
        });
    }

    /// Arrives and waits for the end of the phase: `wait(arrive())`.
    ///
    /// # Panics
    /// As [`arrive`](Self::arrive).
    ///
    /// ```
    /// use scoped_atomics::{Barrier, System};
    /// let barrier = Barrier::<System>::new(2);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| barrier.arrive_and_wait());
    ///     barrier.arrive_and_wait();
    /// });
    /// ```
    #[inline]
    #[track_caller]
    pub fn arrive_and_wait(&self) {
        let token = self.arrive();
        self.wait(token);
    }

    /// Arrives in the current phase and leaves the barrier: every later phase expects one arrival
    /// fewer. Does not wait.
    ///
    /// # Panics
    /// As [`arrive`](Self::arrive); also if every participant has already dropped out.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Device};
    /// let barrier = Barrier::<Device>::new(2);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| barrier.arrive_and_drop()); // takes part in the first phase only
    ///     barrier.arrive_and_wait(); // phase 0: 2 arrivals
    ///     barrier.arrive_and_wait(); // phase 1: 1 arrival
    /// });
    /// ```
    #[track_caller]
    pub fn arrive_and_drop(&self) {
        #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
        if let Some(object) = self.mbarrier() {
            // SAFETY: as in `arrive_n`.
            let _ = unsafe { mbarrier::arrive_drop(object) };
            return;
        }
        if self
            .expected
            .fetch_update(Relaxed, Relaxed, |e| e.checked_sub(1))
            .is_err()
        {
            Message::new()
                .text("Barrier::arrive_and_drop: more drops than participants: the expected count is already 0")
                .panic()
        }
        // The arrival (a release) publishes the decrement to the last arriver of this phase.
        let _ = self.arrive();
    }
}

impl<S: Scope, F: FnMut()> Barrier<S, F> {
    /// The `mbarrier` object of a block barrier made by `init_in_place` in shared memory.
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
    #[inline(always)]
    fn mbarrier(&self) -> Option<*const u64> {
        let hardware = matches!(S::KIND, crate::ScopeKind::Block)
            && self.expected.load(Relaxed) & mbarrier::MBARRIER != 0;
        hardware.then(|| self.state.as_ptr().cast_const())
    }
}

impl Barrier<crate::Block> {
    /// Initialises a block barrier in place — typically in block-shared memory, by one thread,
    /// followed by `sync_threads()` before any thread uses it (`cuda::barrier`'s `init`). On
    /// sm_80 and newer, in shared memory, it is then the hardware `mbarrier` (`mbarrier.arrive`,
    /// `mbarrier.test_wait`): no completion function, at most 2²⁰ − 1 expected arrivals, and an
    /// excess arrival is not detected. Elsewhere it is [`Barrier::new`] written in place.
    ///
    /// # Safety
    /// `place` is valid for writes and aligned, and no thread uses it until the initialisation
    /// is ordered before its use (by `sync_threads`, or by the initialising thread itself).
    ///
    /// # Panics
    /// If `expected` is 0, above [`max()`](Self::max), or, for the hardware barrier, above
    /// 2²⁰ − 1.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// let mut place = core::mem::MaybeUninit::<Barrier<Block>>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { Barrier::init_in_place(place.as_mut_ptr(), 1) };
    /// // SAFETY: initialised above.
    /// let barrier = unsafe { place.assume_init_ref() };
    /// barrier.arrive_and_wait();
    /// ```
    #[track_caller]
    pub unsafe fn init_in_place(place: *mut Self, expected: u32) {
        let barrier = Self::new(expected);
        #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
        if mbarrier::is_shared(place) {
            if expected > mbarrier::MAX {
                Message::new()
                    .text("Barrier::init_in_place: a hardware barrier takes at most 2^20 - 1 = ")
                    .num(mbarrier::MAX as u64)
                    .text(" expected arrivals, not ")
                    .num(expected as u64)
                    .panic()
            }
            barrier
                .expected
                .store(expected | mbarrier::MBARRIER, Relaxed);
            // SAFETY: the caller's contract.
            unsafe { place.write(barrier) };
            // SAFETY: the state word is 8-aligned shared memory nobody uses before the caller's
            // `sync_threads`.
            unsafe { mbarrier::init((*place).state.as_ptr(), expected) };
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { place.write(barrier) };
    }
}

impl<S: Scope, F> fmt::Debug for Barrier<S, F> {
    /// The phase, the arrivals still missing in it, and the expected count of the next phases
    /// (relaxed loads).
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// let barrier = Barrier::<Block>::new(3);
    /// let _ = barrier.arrive();
    /// assert_eq!(format!("{barrier:?}"), "Barrier { phase: 0, missing: 2, expected: 3 }");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.load(Relaxed);
        f.debug_struct("Barrier")
            .field("phase", &((state >> 32) as u32))
            .field("missing", &((state & LOW).saturating_sub(GUARD)))
            .field("expected", &self.expected.load(Relaxed))
            .finish()
    }
}
