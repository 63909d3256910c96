//! Arriving at a [`Barrier`] and the blocking wait: `arrive`, `arrive_n`, `wait`,
//! `arrive_and_wait`, `arrive_and_drop`, and the last arriver's completion of the phase.

use super::{
    ArrivalToken, Barrier, BarrierCompletion, DROP, GUARD, MAX, ONE, check_owner, check_token,
    phase_mask,
};
use crate::Scope;
#[cfg(hardware_barrier)]
use crate::sync::mbarrier;
use crate::sync::message::Message;
use crate::sync::wait::{key, wait_until, wake_all};
use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

impl<S: Scope, F: BarrierCompletion> Barrier<S, F> {
    /// The largest expected count [`new`](Barrier::new) accepts: 2³¹ − 1, except for a
    /// `Barrier<Block>` on sm_80 and newer, where it is 2²⁰ − 1 — the most an `mbarrier` holds
    /// (libcu++'s block barrier's `max()` is `(1 << 20) - 1` too). A block barrier made by
    /// [`init_in_place`](Barrier::init_in_place) takes at most 2²⁰ − 1 on every target
    /// ([`SharedBarrier::max`](crate::SharedBarrier::max)), wherever it is, so that a count the
    /// hardware barrier cannot hold fails on the host too.
    ///
    /// ```
    /// use scoped_atomics::{Barrier, Block, Device, SharedBarrier};
    /// assert!(Barrier::<Block>::max() >= (1 << 20) - 1);
    /// assert_eq!(Barrier::<Device>::max(), (1 << 31) - 1);
    /// assert_eq!(SharedBarrier::max(), (1 << 20) - 1); // and `Barrier::init_in_place`'s limit
    /// ```
    #[inline(always)]
    pub const fn max() -> u32 {
        super::max_of::<S>()
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
        let phase = match self.hardware_or_phase() {
            Ok(phase) => phase,
            #[cfg(hardware_barrier)]
            Err(object) => return Self::arrive_hardware(object, n),
            #[cfg(not(hardware_barrier))]
            Err(none) => match none {},
        };
        // The token's phase, read before the arrival (see the module documentation).
        let phase = phase.unwrap_or_else(|| self.load_phase(Relaxed));
        self.arrive_generic(n, n as u64 * ONE, Some(phase))
    }

    /// An arrival of `n` at the hardware barrier `object`.
    #[cfg(hardware_barrier)]
    #[inline(always)]
    #[track_caller]
    fn arrive_hardware(object: *const u64, n: u32) -> ArrivalToken {
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
        // SAFETY: the phase word's mark said `object` is an initialised `mbarrier` in block-shared
        // memory, and `1 <= n <= mbarrier::MAX`.
        let token = unsafe { mbarrier::arrive_n(object, n) };
        ArrivalToken {
            token,
            completed: false,
            hardware: true,
            // The count word is the barrier's first field: its address is the barrier's.
            barrier: object.addr(),
        }
    }

    /// The arrival of `n` (`delta = n << 32`) or a drop (`n = 1`, `delta = DROP`) at the
    /// generic barrier: one `fetch_sub` of the count word and, on the fast path, one compare.
    /// `phase` is the phase word read before the arrival (see the module documentation): always
    /// for an arrival, whose token it is; for a drop only where it was loaded anyway (a
    /// `Barrier<Block>` on sm_80+), else the last arriver reads the phase.
    #[inline(always)]
    #[track_caller]
    fn arrive_generic(&self, n: u32, delta: u64, phase: Option<u32>) -> ArrivalToken {
        let token_phase = phase.unwrap_or(0);
        let old = self.state.fetch_sub(delta, AcqRel);
        // The high half of `old` is guard + missing before the arrival: the arrival is the last
        // of its phase if it is exactly `GUARD + n`, an excess if below.
        let last = ((GUARD + n) as u64) << 32;
        if old <= last | u32::MAX as u64 {
            // An immediate bound where `n` is known to be 1 (`arrive`, `arrive_and_drop`).
            #[cfg(target_arch = "nvptx64")]
            if core::intrinsics::is_val_statically_known(n) && n == 1 {
                crate::sync::device_check::trap_if_below_const::<{ ((GUARD + 1) as u64) << 32 }>(
                    old,
                );
            } else {
                crate::sync::device_check::trap_if_below(old, last);
            }
            #[cfg(not(target_arch = "nvptx64"))]
            if old < last {
                self.excess(old, n, delta == DROP, phase)
            }
            self.complete_phase(phase, old - delta);
            return ArrivalToken {
                token: token_phase,
                completed: true,
                hardware: false,
                barrier: self.address(),
            };
        }
        ArrivalToken {
            token: token_phase,
            completed: false,
            hardware: false,
            barrier: self.address(),
        }
    }

    /// The misuse of an arrival of `n` whose `fetch_sub` returned `old`, on the host: more
    /// arrivals than are missing in the phase, or (`drop`) a drop with no participant left. A
    /// panic with the numbers (a drop is undone first, as if it had not happened).
    #[cfg(not(target_arch = "nvptx64"))]
    #[cold]
    #[track_caller]
    fn excess(&self, old: u64, n: u32, drop: bool, phase: Option<u32>) -> ! {
        let expected = old as u32;
        if drop {
            self.state.fetch_add(DROP, Relaxed);
            if expected == 0 {
                Message::new()
                    .text("Barrier::arrive_and_drop: more drops than participants: the expected count is already 0")
                    .panic()
            }
        }
        let phase = phase.unwrap_or_else(|| self.load_phase(Relaxed));
        Message::new()
            .text("Barrier: more arrivals in a phase than expected: ")
            .num(n as u64)
            .text(if n == 1 { " arrival" } else { " arrivals" })
            .text(" with ")
            .num(super::missing(old) as u64)
            .text(" missing in phase ")
            .num((phase & phase_mask::<S>()) as u64)
            .text(" (expected count ")
            .num(expected as u64)
            .text(")")
            .panic()
    }

    /// Runs the completion and starts the next phase; called by the last arriver of the phase,
    /// with its number if it has read it (`phase`), and `after`, the count word its arrival left
    /// (the guard, 0 missing, the expected count of the next phase).
    #[inline]
    fn complete_phase(&self, phase: Option<u32>, after: u64) {
        // SAFETY: this thread's arrival took the count of the phase to 0, so no other thread is
        // in `complete_phase` for it, and the one of the phase before happened before (see the
        // `Sync` impl). No reference to the completion outlives this call.
        unsafe { (*self.completion.get()).complete() };
        // `expected` missing: the expected count (the low half) copied into the high half. Stored
        // before the phase, whose release a next-phase arrival acquires before it arrives.
        self.state.store(after + (after << 32), Relaxed);
        match phase {
            // On the device a `Barrier<Block>`'s phase, which wraps below its hardware mark, is
            // advanced by one bounded `red.inc` (the PTX `inc` wraps to 0 at the mask), whether or
            // not the phase is at hand: no `add`, `and` nor load of it.
            #[cfg(target_arch = "nvptx64")]
            _ if phase_mask::<S>() != u32::MAX => self.increment_phase_below_mark(Release),
            Some(phase) => self.store_phase(phase.wrapping_add(1) & phase_mask::<S>(), Release),
            // Without the phase at hand (a drop), one reduction; a `Barrier<Block>`'s phase wraps
            // below its hardware mark, so it is read and stored.
            None if phase_mask::<S>() == u32::MAX => self.increment_phase(Release),
            None => {
                let phase = self.load_phase(Relaxed);
                self.store_phase(phase.wrapping_add(1) & phase_mask::<S>(), Release)
            }
        }
        wake_all(key(&self.phase));
    }

    /// Waits until the phase of `token` has ended; returns at once if it already has. Everything
    /// other threads did before their arrivals in that phase, and the phase's completion, happens
    /// before `wait` returns.
    ///
    /// # Which tokens
    /// As with C++'s `std::barrier::wait` and libcu++'s, a token is meant to be of the current
    /// phase or of the one just before it — which a thread that waits before it arrives again
    /// always satisfies. An older token is a misuse, but never undefined behaviour:
    /// * the generic barrier accepts a token whose own arrival completed its phase, however old
    ///   (with `Barrier::new(1)`, `let t0 = b.arrive(); let t1 = b.arrive(); b.wait(t0)`
    ///   returns), and panics (traps on the device) for any other older token;
    /// * the hardware barrier (`init_in_place` in shared memory on sm_80+ at PTX ISA 7.1, and
    ///   [`SharedBarrier`](crate::SharedBarrier)) keeps only the phase's parity in the token and
    ///   waits with `mbarrier.try_wait.parity` / `test_wait.parity`, which PTX defines for any
    ///   parity: a token two or more phases old waits for the next end of a phase of its parity
    ///   (or returns at once). It cannot see the age — the hardware ends phases without software,
    ///   so there is no phase count to compare — and so it neither panics nor traps; the
    ///   `ptx-sim` simulator reports such a wait.
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
        check_owner(&token, self.address(), "Barrier::wait");
        if token.completed {
            return;
        }
        #[cfg(hardware_barrier)]
        if matches!(S::KIND, crate::ScopeKind::Block) && token.hardware {
            // SAFETY: as in `arrive_n`; the token is of the current or the preceding phase (the
            // contract above).
            return unsafe { mbarrier::wait(self.object(), mbarrier::Phase(token.token)) };
        }
        let phase = token.token;
        let mut now = phase;
        wait_until(key(&self.phase), || {
            now = self.load_phase(Acquire);
            now != phase
        });
        check_token::<S>(phase, now);
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
    /// On the hardware barrier (`init_in_place` in shared memory on sm_80+) the last
    /// participant may not drop: `mbarrier.arrive_drop` leaves an expected count of 0 undefined,
    /// so that drop traps (the generic barrier allows it: its next phases expect no arrival).
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
        let phase = match self.hardware_or_phase() {
            Ok(phase) => phase,
            #[cfg(hardware_barrier)]
            Err(object) => {
                // The phase word counts the participants left (`MBARRIER | count`): a drop by
                // the last one would take the `mbarrier`'s expected count to 0, which
                // `mbarrier.arrive_drop` leaves undefined — refused with a trap.
                // SAFETY: as in `arrive_n`; the phase word follows the `mbarrier` object. Then
                // the expected count stays at least 1 (checked).
                unsafe {
                    mbarrier::count_out_or_trap::<_, { super::MBARRIER | 1 }>(object);
                    mbarrier::arrive_drop(object);
                }
                return;
            }
            #[cfg(not(hardware_barrier))]
            Err(none) => match none {},
        };
        // One `fetch_sub` for the drop and the arrival (libcu++'s drop is one atomic too); a drop
        // with no participant left is detected from its result, off the fast path.
        let _ = self.arrive_generic(1, DROP, phase);
    }
}
