//! [`SharedBarrier`]: a block barrier whose type says it lives in block-shared memory, so that on
//! sm_80 and newer every operation is the `mbarrier` instruction alone — no run-time test of
//! where the barrier is and no generic barrier beside it (libcu++'s `cuda::barrier<thread_scope_
//! block>` in `__shared__` memory). Elsewhere (sm_70, the host, loom) it is a `Barrier<Block>`.

#[cfg(hardware_barrier)]
use super::check_owner;
use super::{ArrivalToken, Barrier};
use crate::Block;
#[cfg(hardware_barrier)]
use crate::sync::mbarrier::{self, Phase, Shared};
use crate::sync::message::Message;
use core::borrow::Borrow;
use core::fmt;
use core::time::Duration;

/// The largest expected count (and `arrive_n` count) of a [`SharedBarrier`]: 2²⁰ − 1, what an
/// `mbarrier` holds, on every target.
const MAX: u32 = (1 << 20) - 1;

/// The shared-space address of the `SharedBarrier` at the generic address `p` (its `mbarrier`
/// object is its first 8 bytes): the distance from the block's shared window, which LLVM folds
/// to the array's shared address for a `block_shared!` pointer (no `cvta`).
#[cfg(hardware_barrier)]
#[inline(always)]
fn shared_address(p: *const SharedBarrier) -> Shared {
    Shared(p.addr().wrapping_sub(crate::kernel::shared_window().addr()) as u64)
}

/// A reusable barrier of the threads of one block, in block-shared memory:
/// `__shared__ cuda::barrier<cuda::thread_scope_block>`.
///
/// It is a [`Barrier<Block>`] (same phases, tokens, ordering and contract; no completion
/// function) whose place is part of its type: made only by [`init_in_place`](Self::init_in_place)
/// in memory from [`block_shared!`](crate::block_shared), it is on sm_80 and newer (PTX ISA 7.1
/// or newer) the hardware `mbarrier` with nothing around it — `arrive` is one
/// `mbarrier.arrive` after a `mbarrier.test_wait.parity` that reads its phase's parity (the
/// token), `wait` a loop on `mbarrier.try_wait.parity` (sm_90) or `mbarrier.test_wait.parity`
/// (sm_80), `arrive_and_drop` a count of the participants left and one `mbarrier.arrive_drop`
/// — where a `Barrier<Block>` asks at every operation whether it is the hardware one. On sm_70,
/// on sm_80 at PTX ISA 7.0, on the host and under loom it is the generic `Barrier<Block>`.
///
/// Misuse checks cost nothing on the fast path: counts are checked where they are given
/// (`init_in_place`, `arrive_n`), and debug device builds check with `isspacep.shared` that
/// the barrier is in shared memory. An excess arrival is not detected on the hardware (as with
/// libcu++); the generic form panics.
///
/// ```
/// use scoped_atomics::sync::SharedBarrier;
/// // On the device: `let place = block_shared!(BARRIER: [SharedBarrier; 1]).cast::<SharedBarrier>();`
/// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
/// // SAFETY: `place` is valid, and used by this thread only (on the device: block-shared memory,
/// // initialised by one thread and published by `sync_threads`).
/// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 1) };
/// let barrier = unsafe { place.assume_init_ref() };
/// let token = barrier.arrive();
/// barrier.wait(token);
/// barrier.arrive_and_wait();
/// ```
#[repr(transparent)]
pub struct SharedBarrier {
    /// The generic barrier, or (sm_80+) the `mbarrier` object in its state word with the
    /// expected count marked `MBARRIER`.
    inner: Barrier<Block>,
}

#[allow(clippy::needless_return)] // one `return` per target configuration
impl SharedBarrier {
    /// The largest expected count: 2²⁰ − 1 on every target (the `mbarrier`'s limit).
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// assert_eq!(SharedBarrier::max(), (1 << 20) - 1);
    /// ```
    #[inline(always)]
    pub const fn max() -> u32 {
        MAX
    }

    /// The `mbarrier` object, by its shared-space address (the `.shared` forms).
    #[cfg(hardware_barrier)]
    #[inline(always)]
    fn object(&self) -> Shared {
        shared_address(self)
    }

    /// Initialises a barrier of `expected` arrivals per phase at `place`, in block-shared memory,
    /// by one thread, followed by `sync_threads()` before any thread uses it (`init(&bar, n)` of
    /// libcu++). On sm_80+ this is `mbarrier.init`.
    ///
    /// # Safety
    /// `place` is in block-shared memory on the device (any valid memory on the host), valid for
    /// writes and aligned, holds no live barrier (see
    /// [`invalidate_in_place`](Self::invalidate_in_place)), and no thread uses it until the
    /// initialisation is ordered before its use (by `sync_threads`, or by the initialising
    /// thread itself). Debug device builds trap if `place` is not in shared memory.
    ///
    /// # Panics
    /// If `expected` is 0 or above [`max()`](Self::max), with the numbers in the message.
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 1) };
    /// unsafe { place.assume_init_ref() }.arrive_and_wait();
    /// ```
    #[track_caller]
    pub unsafe fn init_in_place(place: *mut Self, expected: u32) {
        if expected == 0 || expected > MAX {
            Message::new()
                .text("SharedBarrier::init_in_place: the expected count ")
                .num(expected as u64)
                .text(" is not between 1 and SharedBarrier::max() = ")
                .num(MAX as u64)
                .panic()
        }
        #[cfg(hardware_barrier)]
        {
            #[cfg(debug_assertions)]
            if !mbarrier::is_shared(place) {
                // SAFETY: `trap` aborts the kernel: a `SharedBarrier` outside shared memory.
                unsafe { core::arch::asm!("trap;", options(noreturn, nostack)) }
            }
            // The state word is written by `mbarrier.init` alone; the phase word (not part of
            // the `mbarrier` object; the type says what the barrier is, so it needs no mark)
            // counts the participants left, for `arrive_and_drop`'s check.
            // SAFETY: the caller's contract: `place` is valid for writes, in shared memory, and
            // nobody uses it yet; `Atomic<u64, _>` has the layout of a `u64`, 8-aligned.
            unsafe {
                mbarrier::init_counted(shared_address(place), expected);
            }
        }
        #[cfg(not(hardware_barrier))]
        // SAFETY: the caller's contract; `SharedBarrier` is a transparent `Barrier<Block>`.
        unsafe {
            Barrier::<Block>::init_in_place(place.cast::<Barrier<Block>>(), expected);
        }
    }

    /// Ends the life of the barrier at `place` (`mbarrier.inval` on sm_80+), so that its memory
    /// can be initialised again or used for anything else; one thread calls it after a
    /// `sync_threads` that follows every thread's last use of the barrier.
    ///
    /// # Safety
    /// `place` holds a barrier made by [`init_in_place`](Self::init_in_place) that no thread uses
    /// any more or will use until it is initialised again.
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY (each call): `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 1) };
    /// unsafe { SharedBarrier::invalidate_in_place(place.as_mut_ptr()) };
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 2) };
    /// ```
    #[inline]
    pub unsafe fn invalidate_in_place(place: *mut Self) {
        #[cfg(hardware_barrier)]
        // SAFETY: the caller's contract: an initialised `mbarrier` nobody uses any more.
        unsafe {
            mbarrier::inval(shared_address(place));
        }
        #[cfg(not(hardware_barrier))]
        let _ = place;
    }

    /// Arrives once in the current phase without waiting ([`Barrier::arrive`]); pass the token
    /// to [`wait`](Self::wait). On sm_80+ one `mbarrier.arrive`: a fire-and-forget
    /// `let _ = b.arrive()` is that instruction alone.
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 2) };
    /// let b = unsafe { place.assume_init_ref() };
    /// let first = b.arrive();
    /// assert!(!b.try_wait(&first));
    /// let _ = b.arrive();
    /// b.wait(first);
    /// ```
    #[inline]
    #[track_caller]
    pub fn arrive(&self) -> ArrivalToken {
        #[cfg(hardware_barrier)]
        // SAFETY: the type's invariant: an initialised `mbarrier` in shared memory.
        return ArrivalToken {
            token: unsafe { mbarrier::arrive(self.object()) },
            completed: false,
            hardware: true,
            barrier: self.inner.address(),
        };
        #[cfg(not(hardware_barrier))]
        return self.inner.arrive();
    }

    /// Arrives `n` times at once ([`Barrier::arrive_n`]; the same rule about the other lanes'
    /// writes applies).
    ///
    /// # Panics
    /// If `n` is 0 or above [`max()`](Self::max); on the generic form also for more arrivals
    /// than the phase still misses.
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 32) };
    /// let b = unsafe { place.assume_init_ref() };
    /// let token = b.arrive_n(32); // a whole warp, from one lane
    /// b.wait(token);
    /// ```
    #[inline]
    #[track_caller]
    pub fn arrive_n(&self, n: u32) -> ArrivalToken {
        if n == 0 || n > MAX {
            Message::new()
                .text("SharedBarrier::arrive_n: cannot arrive ")
                .num(n as u64)
                .text(" times; n must be between 1 and SharedBarrier::max() = ")
                .num(MAX as u64)
                .panic()
        }
        #[cfg(hardware_barrier)]
        // SAFETY: the type's invariant, and `1 <= n <= mbarrier::MAX`.
        return ArrivalToken {
            token: unsafe { mbarrier::arrive_n(self.object(), n) },
            completed: false,
            hardware: true,
            barrier: self.inner.address(),
        };
        #[cfg(not(hardware_barrier))]
        return self.inner.arrive_n(n);
    }

    /// Waits until the phase of `token` has ended ([`Barrier::wait`]: a token of the current or
    /// the preceding phase). On sm_90 a loop on `mbarrier.try_wait.parity`; on sm_80
    /// `mbarrier.test_wait.parity` polled with back-off.
    ///
    /// An older token is not detected on sm_80+ (see [`Barrier::wait`]), but it is defined: the
    /// token is its phase's parity, so its wait ends at the next end of a phase of that parity.
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 1) };
    /// let b = unsafe { place.assume_init_ref() };
    /// b.wait(b.arrive());
    /// ```
    #[inline]
    #[track_caller]
    pub fn wait(&self, token: ArrivalToken) {
        #[cfg(hardware_barrier)]
        {
            check_owner(&token, self.inner.address(), "SharedBarrier::wait");
            // SAFETY: the type's invariant; the token is this barrier's (checked above) and of
            // the current or the preceding phase (`wait`'s contract).
            return unsafe { mbarrier::wait(self.object(), Phase(token.token)) };
        }
        #[cfg(not(hardware_barrier))]
        return self.inner.wait(token);
    }

    /// Arrives and waits for the end of the phase: `wait(arrive())`.
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 1) };
    /// unsafe { place.assume_init_ref() }.arrive_and_wait();
    /// ```
    #[inline]
    #[track_caller]
    pub fn arrive_and_wait(&self) {
        self.wait(self.arrive())
    }

    /// Arrives and leaves the barrier: every later phase expects one arrival fewer
    /// ([`Barrier::arrive_and_drop`]). On sm_80+ a count of the participants left (one `atom`)
    /// and one `mbarrier.arrive_drop`; the last participant's drop traps there, as
    /// `mbarrier.arrive_drop` leaves an expected count of 0 undefined (the generic form allows
    /// it).
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 2) };
    /// let b = unsafe { place.assume_init_ref() };
    /// b.arrive_and_drop(); // phase 0: 1 of 2 arrivals; later phases expect 1
    /// b.arrive_and_wait(); // completes phase 0
    /// b.arrive_and_wait(); // phase 1: 1 arrival
    /// ```
    #[inline]
    #[track_caller]
    pub fn arrive_and_drop(&self) {
        #[cfg(hardware_barrier)]
        {
            // The last participant may not drop: `mbarrier.arrive_drop` leaves an expected
            // count of 0 undefined. The phase word counts the participants left.
            // SAFETY: the type's invariant (the phase word follows the `mbarrier` object); then
            // the expected count stays at least 1 (checked).
            unsafe {
                mbarrier::count_out_or_trap::<_, 1>(self.object());
                mbarrier::arrive_drop(self.object());
            }
        }
        #[cfg(not(hardware_barrier))]
        return self.inner.arrive_and_drop();
    }

    /// Whether the phase of `token` has ended, without waiting ([`Barrier::try_wait`]).
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 1) };
    /// let b = unsafe { place.assume_init_ref() };
    /// assert!(b.try_wait(b.arrive()));
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    #[track_caller]
    pub fn try_wait(&self, token: impl Borrow<ArrivalToken>) -> bool {
        #[cfg(hardware_barrier)]
        {
            check_owner(
                token.borrow(),
                self.inner.address(),
                "SharedBarrier::try_wait",
            );
            // SAFETY: as in `wait`.
            return unsafe { mbarrier::try_once(self.object(), Phase(token.borrow().token)) };
        }
        #[cfg(not(hardware_barrier))]
        return self.inner.try_wait(token);
    }

    /// Waits at most about `timeout` for the phase of `token` to end; `true` if it did
    /// ([`Barrier::try_wait_for`]).
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// use std::time::Duration;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 2) };
    /// let b = unsafe { place.assume_init_ref() };
    /// assert!(!b.try_wait_for(b.arrive(), Duration::from_micros(20))); // one arrival missing
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    #[track_caller]
    pub fn try_wait_for(&self, token: impl Borrow<ArrivalToken>, timeout: Duration) -> bool {
        #[cfg(hardware_barrier)]
        {
            check_owner(
                token.borrow(),
                self.inner.address(),
                "SharedBarrier::try_wait_for",
            );
            // SAFETY: as in `wait`.
            return unsafe {
                mbarrier::wait_for(self.object(), Phase(token.borrow().token), timeout)
            };
        }
        #[cfg(not(hardware_barrier))]
        return self.inner.try_wait_for(token, timeout);
    }

    /// Waits until the current or the preceding phase of parity `parity` has ended
    /// ([`Barrier::wait_parity`]; PTX ISA 7.1 on sm_80, a compile-time error that says so
    /// below it).
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 1) };
    /// let b = unsafe { place.assume_init_ref() };
    /// let _ = b.arrive(); // completes phase 0 (even)
    /// b.wait_parity(false);
    /// ```
    #[inline]
    pub fn wait_parity(&self, parity: bool) {
        #[cfg(hardware_barrier)]
        // SAFETY: the type's invariant; a parity names the current or the preceding phase.
        return unsafe { mbarrier::wait(self.object(), Phase::parity(parity)) };
        #[cfg(not(hardware_barrier))]
        return self.inner.wait_parity(parity);
    }

    /// Whether the current or the preceding phase of parity `parity` has ended, without waiting
    /// ([`Barrier::try_wait_parity`]).
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 2) };
    /// let b = unsafe { place.assume_init_ref() };
    /// let _ = b.arrive();
    /// assert!(!b.try_wait_parity(false)); // phase 0 misses an arrival
    /// ```
    #[must_use = "the phase may not have ended: check the result"]
    #[inline]
    pub fn try_wait_parity(&self, parity: bool) -> bool {
        #[cfg(hardware_barrier)]
        // SAFETY: as in `wait_parity`.
        return unsafe { mbarrier::try_once(self.object(), Phase::parity(parity)) };
        #[cfg(not(hardware_barrier))]
        return self.inner.try_wait_parity(parity);
    }
}

impl fmt::Debug for SharedBarrier {
    /// As a [`Barrier`]'s on the generic form; on the hardware (sm_80+), `SharedBarrier {
    /// mbarrier: true, .. }` (its memory is an `mbarrier` object that only `mbarrier`
    /// instructions may read).
    ///
    /// ```
    /// use scoped_atomics::sync::SharedBarrier;
    /// let mut place = core::mem::MaybeUninit::<SharedBarrier>::uninit();
    /// // SAFETY: `place` is valid and used by this thread only.
    /// unsafe { SharedBarrier::init_in_place(place.as_mut_ptr(), 3) };
    /// let b = unsafe { place.assume_init_ref() };
    /// assert_eq!(format!("{b:?}"), "Barrier { phase: 0, missing: 3, expected: 3 }");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(hardware_barrier)]
        return f
            .debug_struct("SharedBarrier")
            .field("mbarrier", &true)
            .finish_non_exhaustive();
        #[cfg(not(hardware_barrier))]
        return fmt::Debug::fmt(&self.inner, f);
    }
}
