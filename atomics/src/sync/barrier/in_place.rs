//! A block barrier initialised and invalidated in place (the hardware `mbarrier` on sm_80+).

use super::Barrier;
#[cfg(hardware_barrier)]
use super::MBARRIER;
#[cfg(hardware_barrier)]
use crate::Atomic;
#[cfg(hardware_barrier)]
use crate::sync::mbarrier;
use crate::sync::message::Message;
#[cfg(hardware_barrier)]
use core::sync::atomic::Ordering::Relaxed;

/// The largest expected count `init_in_place` takes, on every target: what an `mbarrier` holds.
pub(super) const IN_PLACE_MAX: u32 = (1 << 20) - 1;

impl Barrier<crate::Block> {
    /// Initialises a block barrier in place — typically in block-shared memory, by one thread,
    /// followed by `sync_threads()` before any thread uses it (`cuda::barrier`'s `init`). On
    /// sm_80 and newer (PTX ISA 7.1 or newer), in shared memory, it is then the hardware `mbarrier`
    /// (`mbarrier.arrive`, `mbarrier.test_wait.parity`): no completion function, at most 2²⁰ − 1 expected arrivals, and an
    /// excess arrival is not detected. Elsewhere it is [`Barrier::new`] written in place.
    ///
    /// # Lifetime of a hardware barrier
    /// From `mbarrier.init` on, the barrier's state word is an `mbarrier` object, which only
    /// `mbarrier` instructions may touch: this function never writes it with plain stores, and
    /// `Debug` does not read it. Before its memory is initialised again or reused for anything
    /// else (the next use of a shared array, a second `init_in_place`), end its life with
    /// [`invalidate_in_place`](Self::invalidate_in_place), after a `sync_threads` that orders
    /// every thread's last use of it before that.
    ///
    /// # Safety
    /// `place` is valid for writes and aligned, and no thread uses it until the initialisation
    /// is ordered before its use (by `sync_threads`, or by the initialising thread itself).
    /// `place` does not hold a live barrier: a barrier initialised there before must have been
    /// ended with [`invalidate_in_place`](Self::invalidate_in_place).
    ///
    /// # Panics
    /// If `expected` is 0 or above 2²⁰ − 1 ([`SharedBarrier::max`](crate::SharedBarrier::max),
    /// what an `mbarrier` holds) — on every target and wherever `place` is, not only where the
    /// barrier becomes the hardware one, so that a count the device would refuse fails on the
    /// host too. ([`Barrier::new`] takes up to [`max()`](Self::max), 2³¹ − 1.)
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
        if expected == 0 || expected > IN_PLACE_MAX {
            Message::new()
                .text("Barrier::init_in_place: the expected count ")
                .num(expected as u64)
                .text(" is not between 1 and 2^20 - 1 = ")
                .num(IN_PLACE_MAX as u64)
                .text(", what a hardware barrier (mbarrier) holds")
                .panic()
        }
        let barrier = Self::new(expected);
        #[cfg(hardware_barrier)]
        if mbarrier::is_shared(place) {
            // Only the phase word (not part of the `mbarrier` object: the mark and the expected
            // count) is written with a plain store; the state word is written by
            // `mbarrier.init` alone. The completion is zero-sized: nothing to write.
            // SAFETY: the caller's contract: `place` is valid for writes and nobody uses it yet.
            unsafe {
                (&raw mut (*place).phase)
                    .write(Atomic::<u32, crate::Block>::new(expected | MBARRIER));
                // `Atomic<u64, _>` has the layout of a `u64` (`layout.rs`), 8-aligned in `place`.
                mbarrier::init(
                    (&raw mut (*place).state).cast::<u64>().cast_const(),
                    expected,
                );
            }
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { place.write(barrier) };
    }

    /// Ends the life of a block barrier made by [`init_in_place`](Self::init_in_place), so that
    /// its memory can be initialised again or used for anything else: `mbarrier.inval` for the
    /// hardware barrier, nothing for the generic one (plain memory). One thread calls it, after a
    /// `sync_threads` that follows every thread's last use of the barrier, and a `sync_threads`
    /// follows it before the memory is used again by other threads.
    ///
    /// # Safety
    /// `place` holds a barrier made by `init_in_place` that no thread uses any more (every use is
    /// ordered before this call) or will use until it is initialised again.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block};
    /// let mut place = core::mem::MaybeUninit::<Barrier<Block>>::uninit();
    /// // SAFETY (each call): `place` is valid and used by this thread only.
    /// unsafe { Barrier::init_in_place(place.as_mut_ptr(), 1) };
    /// unsafe { place.assume_init_ref() }.arrive_and_wait();
    /// unsafe { Barrier::invalidate_in_place(place.as_mut_ptr()) };
    /// unsafe { Barrier::init_in_place(place.as_mut_ptr(), 2) }; // a new barrier in the same place
    /// ```
    #[inline]
    pub unsafe fn invalidate_in_place(place: *mut Self) {
        #[cfg(hardware_barrier)]
        {
            // SAFETY: the caller's contract: `place` holds an initialised barrier; its expected
            // count is not part of the `mbarrier` object.
            let phase = unsafe { &*(&raw const (*place).phase) }.load(Relaxed);
            if phase & MBARRIER != 0 {
                // SAFETY: an initialised `mbarrier` nobody uses any more (the caller's contract).
                unsafe { mbarrier::inval((&raw mut (*place).state).cast::<u64>().cast_const()) };
            }
        }
        let _ = place;
    }
}
