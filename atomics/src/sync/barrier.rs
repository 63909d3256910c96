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

mod arrive;
mod in_place;
mod shared;

pub use shared::SharedBarrier;

use super::message::Message;
use crate::{Atomic, CompletionScope, Scope, System};
use core::cell::UnsafeCell;
use core::fmt;
use core::sync::atomic::Ordering::Relaxed;

/// Bit 31: set between phases; an excess arrival clears it instead of borrowing from the phase.
pub(super) const GUARD: u64 = 1 << 31;
/// The low 32 bits: guard and count.
pub(super) const LOW: u64 = u32::MAX as u64;
/// The largest expected count: what fits under the guard bit.
const MAX: u32 = (1 << 31) - 1;
/// Set in `expected` when the state word is a hardware `mbarrier` object (see `mbarrier.rs`);
/// never set elsewhere, since an expected count is at most [`MAX`].
pub(super) const MBARRIER: u32 = 1 << 31;

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
/// `Barrier<Block>` synchronises the threads of one block, a `Barrier<Cluster>` the blocks of one
/// thread-block cluster (sm_90; libcu++ has no cluster-scope `cuda::barrier` because its barrier
/// is one block's hardware `mbarrier` — this one is two scoped atomic words, which any thread of
/// the scope may use, in global memory or in one block's shared memory reached through
/// [`map_shared_rank`](crate::kernel::map_shared_rank)), a `Barrier<Device>` a whole grid, a
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
#[repr(C)]
pub struct Barrier<S: Scope = System, F = NoCompletion> {
    /// Phase, guard bit and missing arrivals; see the module documentation.
    pub(super) state: Atomic<u64, S>,
    /// The expected count of the phases to come: `expected` less the `arrive_and_drop`s so far.
    expected: Atomic<u32, S>,
    /// Run by the last arriver of each phase, before the next phase starts; [`NoCompletion`]
    /// (zero-sized, nothing called) unless made by [`Barrier::with_completion`].
    completion: UnsafeCell<F>,
}

/// The completion of a [`Barrier`] without one (the default): zero-sized, and an arrival calls
/// nothing — no function pointer is stored, so a barrier built on the host works on the device
/// and the other way round.
///
/// ```
/// use scoped_atomics::{Barrier, Device, sync::NoCompletion};
/// let barrier: Barrier<Device, NoCompletion> = Barrier::new(1);
/// assert_eq!(size_of::<Barrier<Device>>(), 16); // the state word and the expected count
/// barrier.arrive_and_wait();
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoCompletion;

/// What the last arrival of a barrier's phase runs: [`NoCompletion`] (nothing), or any
/// `FnMut()` given to [`Barrier::with_completion`].
///
/// ```
/// use scoped_atomics::sync::{BarrierCompletion, NoCompletion};
/// fn runs<F: BarrierCompletion>(mut f: F) { f.complete() }
/// runs(NoCompletion);
/// let mut n = 0;
/// runs(|| n += 1);
/// assert_eq!(n, 1);
/// ```
pub trait BarrierCompletion {
    /// Runs the completion once.
    fn complete(&mut self);
}

impl BarrierCompletion for NoCompletion {
    #[inline(always)]
    fn complete(&mut self) {}
}

impl<F: FnMut()> BarrierCompletion for F {
    #[inline(always)]
    fn complete(&mut self) {
        self()
    }
}

// SAFETY: the only access to `completion` through `&Barrier` is the call in `complete_phase`, made
// by the one thread whose arrival took the phase's count to 0. Calls of different phases are
// ordered by happens-before: the completion of phase k precedes the release store of phase k + 1,
// which every arrival of phase k + 1, and so the last one, reads from (directly, or through the
// release sequence of the read-modify-writes after it) with its `AcqRel` arrival. So there is never
// more than one access at a time, as with a `Mutex<F>`, which is `Sync` when `F: Send` — `F` moves
// from thread to thread.
unsafe impl<S: Scope, F: Send> Sync for Barrier<S, F> {}

/// The phase a thread arrived in, for [`Barrier::wait`] and [`Barrier::try_wait`] (and its timed
/// forms); `cuda::barrier::arrival_token`. It has no parity accessor: on the hardware barrier it
/// is the `mbarrier` state, whose encoding the PTX ISA leaves unspecified (see
/// [`Barrier::wait_parity`] for waiting by parity).
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
    pub(super) token: u64,
    /// Whether this arrival was the last of its phase (generic barrier); always `false` on the
    /// hardware barrier, whose arrival does not look at the barrier after it (see `mbarrier.rs`).
    pub(super) completed: bool,
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
            Self::build(expected, NoCompletion)
        }
    }
}

impl<S: Scope, F> Barrier<S, F> {
    crate::atomic::const_unless_loom! {
        #[track_caller]
        const fn build(expected: u32, completion: F) -> Self {
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
}

// The bounds sit on `with_completion`, not on the `impl` block, so that a wrong scope gets
// `CompletionScope`'s message (E0277) instead of E0599 "trait bounds were not satisfied".
impl<S: Scope, F> Barrier<S, F> {
    crate::atomic::const_unless_loom! {
        /// A barrier whose phases each wait for `expected` arrivals; the last arrival of each phase
        /// runs `completion` once, after every arrival of the phase and before any waiter of the
        /// phase returns.
        ///
        /// The completion runs on the thread of the last arrival, within its `arrive`: on the
        /// device if that thread is a GPU thread. It must not use the barrier itself, and should
        /// not panic: the phase would not end, and its waiters would wait forever.
        ///
        /// # Where a completion can be
        /// Only scopes whose threads all run on one processor take a completion
        /// ([`CompletionScope`]: `Thread`, `Block`, `Cluster`, `Device`); a `Barrier<System>`,
        /// which host and device threads share, cannot carry one — the completion's code would run
        /// on whichever processor arrives last. For a barrier built on one processor and used on
        /// the other (a `Barrier<Device>` built on the host and passed to a kernel), use
        /// [`Barrier::new`] (no completion, nothing called); a completion's code pointer (an `fn()`
        /// or a `dyn FnMut`) is an address of the processor that built it.
        ///
        /// ```compile_fail
        /// use scoped_atomics::{Barrier, System};
        /// // error: `System` is not a `CompletionScope`
        /// let barrier = Barrier::<System, _>::with_completion(2, || {});
        /// ```
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
        pub const fn with_completion(expected: u32, completion: F) -> Self
        where
            S: CompletionScope,
            F: FnMut(),
        {
            Self::build(expected, completion)
        }
    }
}

/// The misuse `wait` reports: a token `phase` waited on in phase `now`.
#[cold]
#[track_caller]
pub(super) fn stale_token(phase: u32, now: u32) -> ! {
    Message::new()
        .text("Barrier::wait: the token is of phase ")
        .num(phase as u64)
        .text(", but the barrier is in phase ")
        .num(now as u64)
        .text("; a token may be waited on only in its own phase or the next, unless its arrival completed its phase")
        .panic()
}

impl<S: Scope, F: BarrierCompletion> Barrier<S, F> {
    /// The `mbarrier` object of a block barrier made by `init_in_place` in shared memory.
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
    #[inline(always)]
    pub(super) fn mbarrier(&self) -> Option<*const u64> {
        let hardware = matches!(S::KIND, crate::ScopeKind::Block)
            && self.expected.load(Relaxed) & MBARRIER != 0;
        hardware.then(|| self.state.as_ptr().cast_const())
    }
}

impl<S: Scope, F> fmt::Debug for Barrier<S, F> {
    /// The phase, the arrivals still missing in it, and the expected count of the next phases
    /// (relaxed loads). For a hardware barrier (`init_in_place` in shared memory on sm_80+), only
    /// `Barrier { mbarrier: true, expected: N, .. }` with the expected count it was initialised
    /// with: its state word may be read by `mbarrier` instructions alone.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// let barrier = Barrier::<Block>::new(3);
    /// let _ = barrier.arrive();
    /// assert_eq!(format!("{barrier:?}"), "Barrier { phase: 0, missing: 2, expected: 3 }");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = self.expected.load(Relaxed);
        if expected & MBARRIER != 0 {
            // A hardware barrier: its state word is an `mbarrier` object, which only `mbarrier`
            // instructions may read. Its expected count at initialisation is all there is to show.
            return f
                .debug_struct("Barrier")
                .field("mbarrier", &true)
                .field("expected", &(expected & !MBARRIER))
                .finish_non_exhaustive();
        }
        let state = self.state.load(Relaxed);
        f.debug_struct("Barrier")
            .field("phase", &((state >> 32) as u32))
            .field("missing", &((state & LOW).saturating_sub(GUARD)))
            .field("expected", &expected)
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Barrier, MBARRIER};
    use crate::Block;
    use core::sync::atomic::Ordering::Relaxed;
    use std::format;

    /// Issue 10, bug 3: `Debug` of a hardware barrier must not read the state word (an
    /// `mbarrier` object, which only `mbarrier` instructions may access). Here the state word
    /// holds phase 7 and the expected count is marked as a hardware barrier's: the phase must
    /// not appear (it would, had `Debug` loaded the word).
    #[test]
    fn debug_of_a_hardware_barrier_leaves_the_state_word_alone() {
        let barrier = Barrier::<Block>::new(3);
        barrier.state.store(super::word(7, 3), Relaxed);
        assert_eq!(
            format!("{barrier:?}"),
            "Barrier { phase: 7, missing: 3, expected: 3 }"
        );
        barrier.expected.store(3 | MBARRIER, Relaxed);
        assert_eq!(
            format!("{barrier:?}"),
            "Barrier { mbarrier: true, expected: 3, .. }"
        );
    }
}
