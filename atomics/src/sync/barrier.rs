//! [`Barrier<S, F>`]: `cuda::barrier<Scope, CompletionFunction>`, a reusable barrier of phases.
//!
//! # The two words
//! One `Atomic<u64, S>`, the *count word*, holds the counts of the current phase, and one
//! `Atomic<u32, S>` holds its number, the *phase word*:
//!
//! ```text
//!  count word:   63    62                 32   31   30                 0
//!              +-------+--------------------+----+--------------------+
//!              | guard | arrivals missing   | 0  | expected count     |
//!              +-------+--------------------+----+--------------------+
//!  phase word:  the phase (32 bits; 31 for a `Barrier<Block>`, whose bit 31 marks the hardware
//!               barrier, see `mbarrier.rs`)
//! ```
//!
//! * An arrival of `n` is one `fetch_sub(n << 32, AcqRel)` of the count word; `arrive_and_drop`
//!   is one `fetch_sub((1 << 32) + 1, AcqRel)`: it leaves the barrier (the expected count of the
//!   phases to come) and arrives, in one atomic (as libcu++'s drop is one). The guard bit is
//!   always 1 between phases and `n` is at most [`Barrier::max`], so even an arrival of more than
//!   are missing only borrows from the guard bit (and out of the word), never from the expected
//!   count: the excess is detected (the arriver panics) and the phase that waiters watch is
//!   untouched.
//! * Every check is off the fast path: one 64-bit compare of the result tells "more missing than
//!   this arrival" (the fast path) from "the last arrival, or an excess" (the slow path, where a
//!   second compare tells the two apart — on the device a predicated `trap`, no branch — and, on
//!   the host, a drop past zero participants from an excess).
//!   The expected count is always at least the missing count (a drop lowers both, an arrival the
//!   missing one only), so a drop with no participant left has 0 missing: the slow path.
//! * The arrival that takes the count to 0 is the last of its phase. It runs the completion, then
//!   adds the expected count (from the word its arrival read: every drop of the phase was an
//!   arrival before it) to the missing arrivals (`red.add` of the word shifted left by 32, as
//!   libcu++'s reset), then starts the next phase in the phase word with `Release`, and wakes the
//!   waiters. Between its arrival and that store, the count
//!   is 0: any further arrival in the phase is an excess.
//! * An arrival's token is the phase word, read (`Relaxed`) before the arrival: a thread arrives
//!   for the next phase only after it saw the current one end (its wait read the new phase, or it
//!   stored it as the last arriver, or a thread that did happens before it), so by coherence it
//!   reads the phase its arrival counts in. That is C++'s precondition in effect:
//!   `std::barrier::arrive(update)` requires `update` to be at most the current phase's expected
//!   count, which is 0 from the phase's last arrival until its completion step resets it, so a
//!   thread that has not seen the phase end cannot know its arrival is allowed; the only thing
//!   ordered after the reset that a program can observe is the next phase, which is what the
//!   rule asks for.
//! * On the device the phase word is addressed from the count word's register (`[p+8]`, see
//!   `imp::word_after`), and a `Barrier<Block>`'s one load of the phase word both tells a
//!   hardware barrier (see `mbarrier.rs`) and gives the arrival its token; the token then says
//!   which kind the barrier is, so a wait does not load the phase word to dispatch.
//! * A waiter waits, with `Acquire` loads of the phase word, until the phase differs from its
//!   token's. A token of an older phase therefore returns at once. The phase wraps: a waiter that
//!   slept through exactly a multiple of 2³² (2³¹) phases would not notice, which cannot happen
//!   while it is one of the expected arrivals.
//!
//! # Ordering
//! Each arrival is a release; the last arriver's arrival acquires all of them (release sequence:
//! all arrivals of a phase are read-modify-writes of the count word), and its store of the new
//! phase is a release that each waiter's `Acquire` load reads. So every access before an `arrive`
//! of phase *k* happens before the completion of phase *k*, which happens before every access
//! after a `wait` for phase *k* returns — within scope `S`. The count word's reset is stored
//! before the phase, so an arrival of the next phase (made after reading the new phase with
//! `Acquire`) reads the reset count or a later one.

mod arrive;
mod in_place;
mod shared;

pub use shared::SharedBarrier;

use super::message::Message;
use crate::{Atomic, CompletionScope, PlainScope, Scope, System};
use core::cell::UnsafeCell;
use core::fmt;
use core::sync::atomic::Ordering::Relaxed;

/// Bit 31 of the high half of the count word: set between phases; an excess arrival clears it
/// instead of borrowing from anything else.
pub(super) const GUARD: u32 = 1 << 31;
/// One arrival in the count word (the missing count is its high half).
pub(super) const ONE: u64 = 1 << 32;
/// What `arrive_and_drop` subtracts from the count word: one arrival and one participant.
pub(super) const DROP: u64 = ONE + 1;
/// The largest expected count: what fits under the guard bit.
const MAX: u32 = (1 << 31) - 1;
/// Set in the phase word of a `Barrier<Block>` when its count word is a hardware `mbarrier`
/// object (see `mbarrier.rs`; the phase word then holds `MBARRIER | expected`); never set
/// elsewhere, since the phase of a `Barrier<Block>` wraps at 2³¹ ([`phase_mask`]).
pub(super) const MBARRIER: u32 = 1 << 31;

/// [`Barrier::max`] of scope `S`: [`MAX`], except for a `Barrier<Block>` on sm_80+, where it is
/// what an `mbarrier` holds (2²⁰ − 1).
#[inline(always)]
pub(super) const fn max_of<S: Scope>() -> u32 {
    #[cfg(hardware_barrier)]
    if matches!(S::KIND, crate::ScopeKind::Block) {
        return super::mbarrier::MAX;
    }
    MAX
}

/// The count word of a phase with `missing` arrivals to go and `expected` for the next ones.
#[inline(always)]
pub(super) const fn word(expected: u32, missing: u32) -> u64 {
    (((GUARD | missing) as u64) << 32) | expected as u64
}

/// The missing arrivals in count word `word` (0 after an excess cleared the guard).
#[inline(always)]
pub(super) const fn missing(word: u64) -> u32 {
    ((word >> 32) as u32).saturating_sub(GUARD)
}

/// The bits of the phase word that count phases: all 32, except for a `Barrier<Block>`, whose
/// bit 31 is the hardware barrier's mark ([`MBARRIER`]).
#[inline(always)]
pub(super) const fn phase_mask<S: Scope>() -> u32 {
    if matches!(S::KIND, crate::ScopeKind::Block) {
        !MBARRIER
    } else {
        u32::MAX
    }
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
/// end (its `wait` returned, or it was the last arriver). On the hardware barrier (a block
/// barrier in shared memory on sm_80+, and [`SharedBarrier`](crate::SharedBarrier)) the last
/// arriver's own completion does not count: PTX requires some wait of the phase to have returned
/// `true` before any arrival in the next one (see [`crate::sync`], "Phases observed"), and the
/// simulator reports an arrival that breaks the rule.
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
    /// The count word: the expected count of the phases to come (`expected` less the
    /// `arrive_and_drop`s so far), the guard bit and the missing arrivals; the `mbarrier` object
    /// of a hardware barrier. See the module documentation.
    pub(super) state: Atomic<u64, S>,
    /// The phase word: the current phase (`MBARRIER | expected` for a hardware barrier).
    pub(super) phase: Atomic<u32, S>,
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
/// assert_eq!(size_of::<Barrier<Device>>(), 16); // the count word and the phase word
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
/// forms); `cuda::barrier::arrival_token`. It has no parity accessor, as libcu++'s has none (see
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
    /// The phase (generic barrier), or its parity, 0 or 1 (hardware barrier: the `.parity`
    /// waits are defined for a token of any age, the state-token waits are not; `mbarrier.rs`).
    pub(super) token: u32,
    /// Whether this arrival was the last of its phase (generic barrier); always `false` on the
    /// hardware barrier, whose arrival does not look at the barrier after it (see `mbarrier.rs`).
    pub(super) completed: bool,
    /// Whether the barrier is a hardware `mbarrier` (fixed when it is initialised), so that a
    /// wait dispatches on the token instead of loading the phase word again.
    pub(super) hardware: bool,
    /// The address of the barrier that made the token: a wait checks it, so that a token is
    /// only ever tested by its own barrier (another barrier's `mbarrier.test_wait` of it, or a
    /// hardware token on a barrier in global memory, would be undefined PTX). When the arrival
    /// and the wait are inlined on the same barrier, the check folds away.
    pub(super) barrier: usize,
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
        pub const fn new(expected: u32) -> Self
        where
            S: PlainScope,
        {
            // SAFETY: a plain scope promises no state space.
            unsafe { Self::build(expected, NoCompletion) }
        }
    }

    crate::atomic::const_unless_loom! {
        /// A barrier whose phases each wait for `expected` arrivals, of any scope — also one on
        /// a state space ([`Global<S>`](crate::Global), [`Shared<S>`](crate::Shared)), whose
        /// operations name `.global` or `.shared`: for a device `static` (global memory). For a
        /// plain scope it is [`new`](Self::new).
        ///
        /// # Safety
        /// As for [`Atomic::new_in_space`](crate::Atomic::new_in_space): if `S` has a state
        /// space, every operation on the barrier is made while it lies in memory of that space.
        ///
        /// # Panics
        /// As [`new`](Self::new).
        ///
        /// ```
        /// use scoped_atomics::{Barrier, Device, Global};
        /// // SAFETY: a `static` lives in global memory on the device and is never moved.
        /// static GRID_BARRIER: Barrier<Global<Device>> = unsafe { Barrier::new_in_space(1) };
        /// GRID_BARRIER.arrive_and_wait();
        /// ```
        #[track_caller]
        #[must_use]
        pub const unsafe fn new_in_space(expected: u32) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Self::build(expected, NoCompletion) }
        }
    }
}

impl<S: Scope, F> Barrier<S, F> {
    crate::atomic::const_unless_loom! {
        /// # Safety
        /// As for [`Atomic::new_in_space`]: if `S` has a state space, the barrier is only
        /// operated on in memory of that space.
        #[track_caller]
        const unsafe fn build(expected: u32, completion: F) -> Self {
            if expected == 0 {
                Message::new()
                    .text("Barrier::new: the expected count is 0; a barrier needs at least 1 arrival per phase")
                    .panic()
            }
            // `max()`, so that `new` takes what `max()` says (2^20 - 1 for a block barrier on
            // sm_80+, whose `init_in_place` may make the hardware barrier).
            if expected > max_of::<S>() {
                Message::new()
                    .text("Barrier::new: the expected count ")
                    .num(expected as u64)
                    .text(" is above Barrier::max() = ")
                    .num(max_of::<S>() as u64)
                    .panic()
            }
            Self {
                // SAFETY: the caller's contract (the space).
                state: unsafe { Atomic::<u64, S>::new_in_space(word(expected, expected)) },
                // SAFETY: as above.
                phase: unsafe { Atomic::<u32, S>::new_in_space(0) },
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
            // SAFETY: a plain scope promises no state space.
            unsafe { Self::build(expected, completion) }
        }
    }
}

/// Checks that a token of `phase` waited on in phase `now` is of the current or the preceding
/// phase (a token whose arrival completed its phase is not checked): on the device a predicated
/// `trap`, on the host a panic with the phases.
#[inline(always)]
#[track_caller]
pub(super) fn check_token<S: Scope>(phase: u32, now: u32) {
    let distance = now.wrapping_sub(phase) & phase_mask::<S>();
    #[cfg(target_arch = "nvptx64")]
    crate::sync::device_check::trap_if_above_const::<1>(distance);
    #[cfg(not(target_arch = "nvptx64"))]
    if distance > 1 {
        stale_token(phase, now)
    }
}

/// Checks that `token` was made by the barrier at `barrier` (`name` is the waiting method, for
/// the message): on the device a predicated `trap` (nothing where the compiler sees the token
/// come from the same barrier), on the host a panic with both addresses.
#[inline(always)]
#[track_caller]
pub(super) fn check_owner(token: &ArrivalToken, barrier: usize, name: &str) {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = name;
        let same = token.barrier == barrier;
        if !(core::intrinsics::is_val_statically_known(same) && same) {
            crate::sync::device_check::trap_if_ne(token.barrier as u64, barrier as u64);
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    if token.barrier != barrier {
        foreign_token(name, token.barrier, barrier)
    }
}

/// The misuse a wait reports: a token of the barrier at `owner` waited on at `barrier`.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[track_caller]
fn foreign_token(name: &str, owner: usize, barrier: usize) -> ! {
    Message::new()
        .text(name)
        .text(": the token was made by the barrier at address ")
        .num(owner as u64)
        .text(", not by this one at address ")
        .num(barrier as u64)
        .text("; a token may be waited on only at the barrier it arrived at")
        .panic()
}

/// The misuse `wait` reports: a token `phase` waited on in phase `now`.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[track_caller]
fn stale_token(phase: u32, now: u32) -> ! {
    Message::new()
        .text("Barrier::wait: the token is of phase ")
        .num(phase as u64)
        .text(", but the barrier is in phase ")
        .num(now as u64)
        .text("; a token may be waited on only in its own phase or the next, unless its arrival completed its phase")
        .panic()
}

/// What tells a hardware barrier: its `mbarrier` object, on sm_80+; elsewhere there is none.
#[cfg(hardware_barrier)]
pub(super) type Hardware = *const u64;
/// What tells a hardware barrier: its `mbarrier` object, on sm_80+; elsewhere there is none.
#[cfg(not(hardware_barrier))]
pub(super) type Hardware = core::convert::Infallible;

/// The phase word's operations. On the device they address it from the count word's register
/// (`[p+8]`, see `imp::word_after`): every path of the barrier has that register already, and
/// ptxas's register-plus-offset form saves an `add` of the address in each.
impl<S: Scope, F> Barrier<S, F> {
    /// The barrier's address, which its tokens carry ([`check_owner`]).
    #[inline(always)]
    pub(super) fn address(&self) -> usize {
        (self as *const Self).addr()
    }

    /// The phase word, loaded with `order` (`Relaxed` or `Acquire`).
    #[inline(always)]
    pub(super) fn load_phase(&self, order: core::sync::atomic::Ordering) -> u32 {
        #[cfg(target_arch = "nvptx64")]
        {
            const { assert!(core::mem::offset_of!(Self, phase) == 8) };
            // SAFETY: `#[repr(C)]`: the count word, then the phase word 8 bytes on (asserted).
            unsafe { crate::imp::word_after::load::<S>(self.state.as_ptr(), order) }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.phase.load(order)
    }

    /// Stores `phase` in the phase word with `order` (`Relaxed` or `Release`).
    #[inline(always)]
    pub(super) fn store_phase(&self, phase: u32, order: core::sync::atomic::Ordering) {
        #[cfg(target_arch = "nvptx64")]
        {
            const { assert!(core::mem::offset_of!(Self, phase) == 8) };
            // SAFETY: as in `load_phase`.
            unsafe { crate::imp::word_after::store::<S>(self.state.as_ptr(), phase, order) }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.phase.store(phase, order)
    }

    /// Advances the phase word of a `Barrier<Block>` (whose phase wraps below its hardware mark,
    /// bit 31) with `order` (`Relaxed` or `Release`): one `red.inc` bounded by `2³¹ − 1`.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub(super) fn increment_phase_below_mark(&self, order: core::sync::atomic::Ordering) {
        const { assert!(core::mem::offset_of!(Self, phase) == 8) };
        // SAFETY: as in `load_phase`.
        unsafe { crate::imp::word_after::increment_below_bit_31::<S>(self.state.as_ptr(), order) }
    }

    /// Adds 1 to the phase word with `order` (`Relaxed` or `Release`), as a reduction.
    #[inline(always)]
    pub(super) fn increment_phase(&self, order: core::sync::atomic::Ordering) {
        #[cfg(target_arch = "nvptx64")]
        {
            const { assert!(core::mem::offset_of!(Self, phase) == 8) };
            // SAFETY: as in `load_phase`.
            unsafe { crate::imp::word_after::increment::<S>(self.state.as_ptr(), order) }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.phase.add(1, order)
    }
}

impl<S: Scope, F: BarrierCompletion> Barrier<S, F> {
    /// The `mbarrier` object of a block barrier made by `init_in_place` in shared memory (for
    /// the parity waits, which have no token to tell).
    #[cfg(hardware_barrier)]
    #[inline(always)]
    pub(super) fn mbarrier(&self) -> Option<*const u64> {
        self.hardware_or_phase().err()
    }

    /// The count word as an `mbarrier` object: for a barrier whose token says it is one.
    #[cfg(hardware_barrier)]
    #[inline(always)]
    pub(super) fn object(&self) -> *const u64 {
        self.state.as_ptr().cast_const()
    }

    /// For a `Barrier<Block>` on sm_80+: `Err` with the `mbarrier` object of a hardware barrier,
    /// or `Ok` with the phase word (`Relaxed`) of a generic one — one load that tells the two
    /// apart and gives an arrival its token's phase. `Ok(None)` for the other scopes (always
    /// generic), whose phase is not loaded here.
    #[inline(always)]
    pub(super) fn hardware_or_phase(&self) -> Result<Option<u32>, Hardware> {
        #[cfg(hardware_barrier)]
        if matches!(S::KIND, crate::ScopeKind::Block) {
            let phase = self.load_phase(Relaxed);
            return if phase & MBARRIER != 0 {
                Err(self.object())
            } else {
                Ok(Some(phase))
            };
        }
        Ok(None)
    }
}

impl<S: Scope, F> fmt::Debug for Barrier<S, F> {
    /// The phase, the arrivals still missing in it, and the expected count of the next phases
    /// (relaxed loads). For a hardware barrier (`init_in_place` in shared memory on sm_80+), only
    /// `Barrier { mbarrier: true, expected: N, .. }` with the participants left (the expected
    /// count it was initialised with, less the drops): its state word may be read by `mbarrier`
    /// instructions alone.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// let barrier = Barrier::<Block>::new(3);
    /// let _ = barrier.arrive();
    /// assert_eq!(format!("{barrier:?}"), "Barrier { phase: 0, missing: 2, expected: 3 }");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let phase = self.load_phase(Relaxed);
        if matches!(S::KIND, crate::ScopeKind::Block) && phase & MBARRIER != 0 {
            // A hardware barrier: its state word is an `mbarrier` object, which only `mbarrier`
            // instructions may read. Its expected count at initialisation is all there is to show.
            return f
                .debug_struct("Barrier")
                .field("mbarrier", &true)
                .field("expected", &(phase & !MBARRIER))
                .finish_non_exhaustive();
        }
        let state = self.state.load(Relaxed);
        f.debug_struct("Barrier")
            .field("phase", &phase)
            .field("missing", &missing(state))
            .field("expected", &(state as u32))
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Barrier, MBARRIER};
    use crate::Block;
    use core::sync::atomic::Ordering::Relaxed;
    use std::format;

    /// Issue 10, bug 3: `Debug` of a hardware barrier must not read the count word (an
    /// `mbarrier` object, which only `mbarrier` instructions may access). Here the count word
    /// holds 3 missing arrivals and then the phase word is marked as a hardware barrier's: the
    /// missing count must not appear (it would, had `Debug` loaded the word).
    #[test]
    fn debug_of_a_hardware_barrier_leaves_the_state_word_alone() {
        let barrier = Barrier::<Block>::new(3);
        barrier.state.store(super::word(3, 3), Relaxed);
        barrier.phase.store(7, Relaxed);
        assert_eq!(
            format!("{barrier:?}"),
            "Barrier { phase: 7, missing: 3, expected: 3 }"
        );
        barrier.phase.store(3 | MBARRIER, Relaxed);
        assert_eq!(
            format!("{barrier:?}"),
            "Barrier { mbarrier: true, expected: 3, .. }"
        );
    }

    /// Issue 24: `arrive_and_drop` is one atomic on the count word (a participant and an
    /// arrival); the last arrival of the phase starts the next one with the participants left,
    /// whichever of the phase's arrivals were drops and in whatever order.
    #[test]
    fn drops_and_arrivals_of_a_phase_set_the_next_phases_count() {
        let barrier = Barrier::<crate::Device>::new(3);
        barrier.arrive_and_drop();
        assert_eq!(
            format!("{barrier:?}"),
            "Barrier { phase: 0, missing: 2, expected: 2 }"
        );
        let _ = barrier.arrive();
        barrier.arrive_and_drop(); // the last arrival of phase 0 is a drop
        assert_eq!(
            format!("{barrier:?}"),
            "Barrier { phase: 1, missing: 1, expected: 1 }"
        );
        let token = barrier.arrive(); // completes phase 1 alone
        assert!(token.completed);
        assert_eq!(
            format!("{barrier:?}"),
            "Barrier { phase: 2, missing: 1, expected: 1 }"
        );
        barrier.arrive_and_drop(); // nobody left: the next phase expects none
        assert_eq!(
            format!("{barrier:?}"),
            "Barrier { phase: 3, missing: 0, expected: 0 }"
        );
    }
}
