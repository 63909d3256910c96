//! Arriving at a [`Barrier`] and the blocking wait: `arrive`, `arrive_n`, `wait`,
//! `arrive_and_wait`, `arrive_and_drop`, and the last arriver's completion of the phase.

use super::{ArrivalToken, Barrier, BarrierCompletion, GUARD, LOW, MAX, stale_token, word};
use crate::Scope;
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
use crate::sync::mbarrier;
use crate::sync::message::Message;
use crate::sync::wait::{key, wait_until, wake_all};
use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

impl<S: Scope, F: BarrierCompletion> Barrier<S, F> {
    /// The largest expected count a barrier can have: 2³¹ − 1, except for a `Barrier<Block>` on
    /// sm_80 and newer, where it is 2²⁰ − 1 — the most an `mbarrier` holds, and so what
    /// [`init_in_place`](Barrier::init_in_place) accepts in shared memory (libcu++'s block
    /// barrier's `max()` is `(1 << 20) - 1` too).
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block, Device};
    /// assert!(Barrier::<Block>::max() >= (1 << 20) - 1);
    /// assert_eq!(Barrier::<Device>::max(), (1 << 31) - 1);
    /// ```
    #[inline(always)]
    pub const fn max() -> u32 {
        #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
        if matches!(S::KIND, crate::ScopeKind::Block) {
            return mbarrier::MAX;
        }
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
    /// An arrival publishes only what its *own* thread did before it (it is a release by that
    /// thread). When one lane arrives for the whole warp, the other lanes' writes must reach it
    /// first — a warp-wide sync (`__syncwarp`, which orders memory among the warp's lanes) or a
    /// release by each lane that the arriving lane acquires — or the waiters of the phase may not
    /// see them.
    ///
    /// On the hardware barrier (`init_in_place` in shared memory on sm_80+), `n` is at most
    /// 2²⁰ − 1, the `mbarrier`'s limit (an expected count cannot be larger there either).
    ///
    /// # Panics
    /// If `n` is 0, or more than the arrivals still missing in the phase ("more arrivals in a
    /// phase than expected"); the message gives the numbers. After an excess arrival the other
    /// participants of that phase may wait forever. On the hardware barrier: if `n` is above
    /// 2²⁰ − 1 (an excess arrival below that is not detected there).
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block, Ordering, block::AtomicU32};
    /// let barrier = Barrier::<Block>::new(33);
    /// let lanes_done = AtomicU32::new(0);
    /// // Lanes 1..32 of a "warp" write their data and publish it with a release ...
    /// lanes_done.fetch_add(31, Ordering::Release);
    /// // ... which lane 0 acquires (on the device: a warp sync) before it arrives for all 32.
    /// while lanes_done.load(Ordering::Acquire) != 31 {}
    /// let warp = barrier.arrive_n(32); // on behalf of 32 threads
    /// let last = barrier.arrive(); // the 33rd arrival completes the phase
    /// barrier.wait(warp);
    /// barrier.wait(last);
    /// ```
    #[track_caller]
    pub fn arrive_n(&self, n: u32) -> ArrivalToken {
        crate::sync::debug_assert_not_local(self);
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
            if n > mbarrier::MAX {
                // Above the hardware's arrival count: undefined there, and necessarily more than
                // the (at most 2^20 - 1) expected arrivals.
                Message::new()
                    .text("Barrier::arrive_n: a hardware barrier (mbarrier) takes at most 2^20 - 1 = ")
                    .num(mbarrier::MAX as u64)
                    .text(" arrivals at once, not ")
                    .num(n as u64)
                    .panic()
            }
            // SAFETY: `mbarrier()` found an initialised `mbarrier` in block-shared memory, and
            // `1 <= n <= mbarrier::MAX`.
            let token = unsafe { mbarrier::arrive_n(object, n) };
            return ArrivalToken {
                token,
                completed: false,
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
        let completed = low == GUARD + n as u64;
        if completed {
            self.complete_phase(phase);
        }
        ArrivalToken {
            token: phase as u64,
            completed,
        }
    }

    /// Runs the completion and starts phase `phase + 1`; called by the last arriver of `phase`.
    #[inline]
    fn complete_phase(&self, phase: u32) {
        // SAFETY: this thread's arrival took the count of `phase` to 0, so no other thread is in
        // `complete_phase` for `phase`, and the one of `phase - 1` happened before (see the `Sync`
        // impl). No reference to the completion outlives this call.
        unsafe { (*self.completion.get()).complete() };
        let expected = self.expected.load(Relaxed);
        self.state
            .store(word(phase.wrapping_add(1), expected), Release);
        wake_all(key(&self.state));
    }

    /// Waits until the phase of `token` has ended; returns at once if it already has. Everything
    /// other threads did before their arrivals in that phase, and the phase's completion, happens
    /// before `wait` returns.
    ///
    /// # Which tokens
    /// As with C++'s `std::barrier::wait` and libcu++'s, the token must be of the current phase
    /// or of the one just before it — which a thread that waits before it arrives again always
    /// satisfies. The hardware `mbarrier` can only tell those phases apart (`mbarrier.test_wait`),
    /// so this is the contract of every barrier; an older token is a misuse, undefined on the
    /// hardware barrier (as in libcu++). The generic barrier also accepts a token whose own
    /// arrival completed its phase, however old (with `Barrier::new(1)`, `let t0 = b.arrive(); let
    /// t1 = b.arrive(); b.wait(t0)` returns), and panics (traps on the device) for any other
    /// older token.
    ///
    /// # Panics
    /// For a token two or more phases old that did not complete its phase (generic barrier),
    /// with the phases in the message.
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
    #[track_caller]
    pub fn wait(&self, token: ArrivalToken) {
        crate::sync::debug_assert_not_local(self);
        if token.completed {
            return;
        }
        #[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
        if let Some(object) = self.mbarrier() {
            // SAFETY: as in `arrive_n`; the token is of the current or the preceding phase (the
            // contract above).
            return unsafe { mbarrier::wait(object, mbarrier::Phase::Token(token.token)) };
        }
        let phase = token.token as u32;
        let mut now = phase;
        wait_until(key(&self.state), || {
            now = (self.state.load(Acquire) >> 32) as u32;
            now != phase
        });
        if now.wrapping_sub(phase) > 1 {
            stale_token(phase, now)
        }
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
        // One `fetch_sub` (libcu++'s drop is one too); a drop below zero is detected from its
        // result, off the fast path, and undone before the panic.
        if self.expected.fetch_sub(1, Relaxed) == 0 {
            self.expected.fetch_add(1, Relaxed);
            Message::new()
                .text("Barrier::arrive_and_drop: more drops than participants: the expected count is already 0")
                .panic()
        }
        // The arrival (a release) publishes the decrement to the last arriver of this phase.
        let _ = self.arrive();
    }
}
