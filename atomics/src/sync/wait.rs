//! How the primitives wait: one back end per build, chosen here and nowhere else.
//!
//! | build                                   | waiting                                              |
//! |-----------------------------------------|------------------------------------------------------|
//! | `target_arch = "nvptx64"`               | poll, then `nanosleep` with exponential back-off     |
//! | `--cfg loom`                            | poll, yielding to loom (`kernel::spin_loop`'s round)  |
//! | host, feature `std`                     | poll, spin, yield, then park in an address-keyed table |
//! | host without `std`                      | poll with `core::hint::spin_loop()` back-off          |
//!
//! Every back end offers the same three things, keyed by the address of the atomic the waiter
//! polls:
//!
//! * [`wait_until(key, cond)`](wait_until) returns once `cond()` has returned `true`. `cond` does
//!   the atomic load (with the ordering the primitive needs); the back end only decides how long to
//!   wait between two calls.
//! * [`wake_all(key)`](wake_all) is called after a modification that may make a waiter's `cond`
//!   true. Only the parking back end does anything; the others poll.
//! * [`Deadline`] bounds a wait in time: [`Deadline::wait_until`] returns `false` if `cond()` is
//!   still `false` when the time is up.
//!
//! A waiter may be woken for nothing (another address in its bucket, or a modification that does
//! not make its condition true); it then re-checks and waits again.

/// The key of the parking table for `location`: its address.
#[inline(always)]
pub(crate) fn key<T>(location: &T) -> usize {
    core::ptr::from_ref(location) as usize
}

#[cfg(target_arch = "nvptx64")]
mod backend {
    //! The device: waiters poll, with exponential back-off through `nanosleep` (sm_70 and newer).
    //!
    //! * The first [`POLLS`] checks follow each other directly: a short wait (the common case
    //!   of a block-wide barrier) costs no sleep.
    //! * Then the thread sleeps [`SLEEP_MIN_NS`] ns, doubling after every check up to
    //!   [`SLEEP_MAX_NS`] ns (256 ns → 64 µs in 9 steps). Each sleep is at most the time already
    //!   slept, so a waiter returns at most about twice as late as the condition became true (plus
    //!   the hardware's imprecision: `nanosleep` sleeps up to twice the requested time), and the
    //!   cap bounds that delay for long waits while keeping a waiting warp off the memory system.
    //! * `%globaltimer` (nanoseconds) measures timed waits.

    use core::arch::asm;
    use core::time::Duration;

    /// Checks without sleeping before the first `nanosleep`.
    pub(crate) const POLLS: u32 = 16;
    /// The first sleep, in nanoseconds.
    pub(crate) const SLEEP_MIN_NS: u32 = 256;
    /// The longest sleep, in nanoseconds.
    pub(crate) const SLEEP_MAX_NS: u32 = 65_536;

    /// Sleeps about `ns` nanoseconds (`nanosleep.u32`, sm_70+); below sm_70, returns at once.
    #[inline(always)]
    fn nanosleep(ns: u32) {
        #[cfg(target_feature = "sm_70")]
        // SAFETY: `nanosleep` only suspends the thread; it reads and writes no memory the program
        // owns. No `nomem`: it stays a compiler barrier, as a polling loop wants.
        unsafe {
            asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nostack, preserves_flags));
        }
        #[cfg(not(target_feature = "sm_70"))]
        let _ = ns;
    }

    /// The global nanosecond timer (`%globaltimer`); also the clock of `time::Instant`.
    #[inline(always)]
    pub(crate) fn global_timer() -> u64 {
        let t: u64;
        // SAFETY: reads a special register; no memory is touched. Not `pure`: every read is a new
        // time.
        unsafe {
            asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack, nomem, preserves_flags));
        }
        t
    }

    struct Backoff {
        polls: u32,
        sleep_ns: u32,
    }

    impl Backoff {
        #[inline(always)]
        const fn new() -> Self {
            Self {
                polls: 0,
                sleep_ns: SLEEP_MIN_NS,
            }
        }

        /// Waits before the next check: nothing for the first `POLLS` checks, then an
        /// exponentially growing sleep, never longer than `limit_ns`.
        #[inline(always)]
        fn snooze(&mut self, limit_ns: u64) {
            if self.polls < POLLS {
                self.polls += 1;
                return;
            }
            nanosleep(if (self.sleep_ns as u64) < limit_ns {
                self.sleep_ns
            } else {
                limit_ns as u32
            });
            self.sleep_ns = if self.sleep_ns < SLEEP_MAX_NS / 2 {
                self.sleep_ns * 2
            } else {
                SLEEP_MAX_NS
            };
        }
    }

    #[inline]
    pub(crate) fn wait_until(_key: usize, mut cond: impl FnMut() -> bool) {
        let mut backoff = Backoff::new();
        while !cond() {
            backoff.snooze(u64::MAX);
        }
    }

    /// Waiters poll: nothing to wake.
    #[inline(always)]
    pub(crate) fn wake_all(_key: usize) {}

    /// An instant on `%globaltimer`.
    pub(crate) struct Deadline {
        end: u64,
    }

    impl Deadline {
        #[inline]
        pub(crate) fn after(timeout: Duration) -> Self {
            // Saturating, in 64-bit arithmetic: `as_nanos` is a `u128`, whose multi-word adds
            // (`add.cc`/`addc.cc`) a timeout computed at run time (`*_until`) would cost.
            let ns = timeout
                .as_secs()
                .saturating_mul(1_000_000_000)
                .saturating_add(u64::from(timeout.subsec_nanos()));
            Self {
                end: global_timer().saturating_add(ns),
            }
        }

        #[inline]
        pub(crate) fn wait_until(&mut self, _key: usize, mut cond: impl FnMut() -> bool) -> bool {
            let mut backoff = Backoff::new();
            loop {
                if cond() {
                    return true;
                }
                let now = global_timer();
                if now >= self.end {
                    return false;
                }
                backoff.snooze(self.end - now);
            }
        }
    }
}

#[cfg(all(loom, not(target_arch = "nvptx64")))]
mod backend {
    //! Under loom: never block on a std primitive (loom cannot see it); poll, yielding to loom's
    //! scheduler between two checks. Loom treats `yield_now` as "this thread cannot progress until
    //! another one does", so the waits are explored rather than spun through; a round that can
    //! see nothing new also ends the exploration below it (the mirror's `topology::spin`, as
    //! `kernel::spin_loop`), so that two waiters do not yield to each other without end.
    //!
    //! Loom has no clock: a timed wait checks, yields once, and checks again. Loom then explores
    //! both the interleavings in which the wait succeeds and those in which it times out.

    use core::time::Duration;

    #[inline]
    pub(crate) fn wait_until(_key: usize, mut cond: impl FnMut() -> bool) {
        while !cond() {
            crate::imp::loom_spin();
        }
    }

    /// Waiters poll: nothing to wake.
    #[inline(always)]
    pub(crate) fn wake_all(_key: usize) {}

    /// A timed wait under loom: one yield between two checks.
    pub(crate) struct Deadline(());

    impl Deadline {
        pub(crate) fn after(_timeout: Duration) -> Self {
            Self(())
        }

        pub(crate) fn wait_until(&mut self, _key: usize, mut cond: impl FnMut() -> bool) -> bool {
            if cond() {
                return true;
            }
            loom::thread::yield_now();
            cond()
        }
    }
}

#[cfg(all(feature = "std", not(loom), not(target_arch = "nvptx64")))]
mod backend {
    //! The host with `std`: poll briefly, then block in a parking table so that a waiting thread
    //! does not burn a core.
    //!
    //! # The parking table
    //! [`BUCKETS`] buckets, each a waiter count, a `Mutex<()>` and a `Condvar`; an address hashes
    //! (Fibonacci hashing) to one bucket. Unrelated addresses may share a bucket: waking a bucket
    //! wakes all its waiters, which re-check their own condition.
    //!
    //! # The protocol (no lost wake-up)
    //! Waiter, after its spinning failed:
    //! 1. lock the bucket; 2. increment its waiter count; 3. `fence(SeqCst)`; 4. check `cond()`:
    //!    if true, go to 6; 5. `condvar.wait` (atomically unlocks and sleeps; relocks on wake-up),
    //!    then go to 4; 6. decrement the count, unlock.
    //!
    //! Notifier, after its modification of the atomic (any ordering):
    //! a. `fence(SeqCst)`; b. read the waiter count: if 0, done; c. lock the bucket, `notify_all`,
    //!    unlock.
    //!
    //! Why a waiter cannot sleep through the modification: the two `SeqCst` fences are ordered.
    //! If the notifier's fence (a) comes first, the modification precedes it and the waiter's
    //! check (4) follows the waiter's fence (3), so the check sees the modification (or a later
    //! value) and the waiter does not sleep. If the waiter's fence (3) comes first, the notifier's
    //! read (b) sees the waiter's increment (2), so the notifier takes the lock (c). The waiter
    //! holds the lock from (1) until `condvar.wait` releases it, so the notifier either gets the lock
    //! before (1) — then its modification happens before the waiter's check (4), through the mutex —
    //! or after the waiter sleeps, and its `notify_all` wakes it. The count lets a notifier skip
    //! the lock when nobody waits: a release, arrival or count-down then costs one fence and one load.
    //!
    //! # Waking without a notifier
    //! A parked waiter also wakes on its own: its sleeps are [`PARK_MIN`] (50 µs), doubling up to
    //! [`PARK_MAX`] (1 ms), and it re-checks after each. The other side of a `System`-scope
    //! primitive may be a GPU thread, whose wake-up does nothing (it cannot signal a host
    //! condition variable), or any writer that does not notify (another process, a plain store
    //! through a mapping): the waiter then still sees the change, at most about 1 ms (or twice the
    //! time already parked, if less) after it happened. A notifier on the host still wakes it at
    //! once. The bound holds for every host wait — the parking table knows addresses, not scopes —
    //! and costs a parked thread about a thousand short wake-ups a second.
    //!
    //! # Spinning first
    //! Before parking, a waiter checks [`SPIN_ROUNDS`] times with 1, 2, 4, … `spin_loop` hints in
    //! between (127 hints), then [`YIELDS`] times with `thread::yield_now` in between; a wait shorter
    //! than that never touches the table.

    use core::hint::spin_loop;
    use core::sync::atomic::{AtomicUsize, Ordering, fence};
    use core::time::Duration;
    use std::sync::{Condvar, Mutex, PoisonError};
    use std::time::Instant;

    /// Buckets of the parking table (a power of two).
    pub(crate) const BUCKETS: usize = 64;
    /// Rounds of `spin_loop` hints (1, 2, 4, … per round) before yielding.
    pub(crate) const SPIN_ROUNDS: u32 = 7;
    /// Rounds of `thread::yield_now` before parking.
    pub(crate) const YIELDS: u32 = 3;
    /// The first parked sleep before a re-check without a wake-up.
    pub(crate) const PARK_MIN: Duration = Duration::from_micros(50);
    /// The longest parked sleep before a re-check without a wake-up.
    pub(crate) const PARK_MAX: Duration = Duration::from_millis(1);

    // One cache line per bucket, so that waiters on different buckets do not contend.
    #[repr(align(64))]
    struct Bucket {
        /// Threads between steps 2 and 6 of the protocol.
        waiters: AtomicUsize,
        lock: Mutex<()>,
        condvar: Condvar,
    }

    static TABLE: [Bucket; BUCKETS] = [const {
        Bucket {
            waiters: AtomicUsize::new(0),
            lock: Mutex::new(()),
            condvar: Condvar::new(),
        }
    }; BUCKETS];

    #[inline]
    fn bucket(key: usize) -> &'static Bucket {
        let hash =
            (key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BUCKETS.trailing_zeros());
        &TABLE[hash as usize]
    }

    /// Spins, then yields, checking `cond` after each round; `false` if it never became true or
    /// `expired()` said stop.
    #[inline]
    fn spin(cond: &mut impl FnMut() -> bool, expired: impl Fn() -> bool) -> bool {
        for round in 0..SPIN_ROUNDS {
            for _ in 0..1u32 << round {
                spin_loop();
            }
            if cond() {
                return true;
            }
            if expired() {
                return false;
            }
        }
        for _ in 0..YIELDS {
            std::thread::yield_now();
            if cond() {
                return true;
            }
            if expired() {
                return false;
            }
        }
        false
    }

    /// Decrements the waiter count on every exit (step 6), even if `cond` panics.
    struct Registered(&'static Bucket);

    impl Drop for Registered {
        fn drop(&mut self) {
            self.0.waiters.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Steps 1–6 of the protocol; `false` if `deadline` passed first. Every sleep is bounded
    /// (see "Waking without a notifier"): at most [`PARK_MAX`], or the time left to `deadline`.
    #[cold]
    fn park(key: usize, cond: &mut dyn FnMut() -> bool, deadline: Option<Instant>) -> bool {
        let bucket = bucket(key);
        let mut guard = bucket.lock.lock().unwrap_or_else(PoisonError::into_inner);
        bucket.waiters.fetch_add(1, Ordering::Relaxed);
        let _registered = Registered(bucket);
        fence(Ordering::SeqCst);
        let mut slice = PARK_MIN;
        loop {
            if cond() {
                return true;
            }
            let mut sleep = slice;
            if let Some(deadline) = deadline {
                let now = Instant::now();
                if now >= deadline {
                    return false;
                }
                sleep = sleep.min(deadline - now);
            }
            guard = bucket
                .condvar
                .wait_timeout(guard, sleep)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            slice = (slice * 2).min(PARK_MAX);
        }
    }

    #[inline]
    pub(crate) fn wait_until(key: usize, mut cond: impl FnMut() -> bool) {
        if cond() {
            return;
        }
        // A simulated kernel thread of a host launch: its watchdog sees the wait (and a stopped
        // launch ends it at the next check).
        let _waiting = crate::kernel::emulation::waiting(
            crate::kernel::emulation::WaitKind::LibraryWait,
            None,
        );
        let mut cond = || {
            crate::kernel::emulation::check_stop();
            cond()
        };
        if spin(&mut cond, || false) {
            return;
        }
        park(key, &mut cond, None);
    }

    /// Steps a–c of the protocol.
    #[inline]
    pub(crate) fn wake_all(key: usize) {
        fence(Ordering::SeqCst);
        let bucket = bucket(key);
        if bucket.waiters.load(Ordering::Relaxed) != 0 {
            let _guard = bucket.lock.lock().unwrap_or_else(PoisonError::into_inner);
            bucket.condvar.notify_all();
        }
    }

    /// An `Instant`, or none if the timeout is too long to represent (then the wait is unbounded).
    pub(crate) struct Deadline(Option<Instant>);

    impl Deadline {
        #[inline]
        pub(crate) fn after(timeout: Duration) -> Self {
            Self(Instant::now().checked_add(timeout))
        }

        pub(crate) fn wait_until(&mut self, key: usize, mut cond: impl FnMut() -> bool) -> bool {
            // A timed wait returns by itself: to a host launch's watchdog it is a round of a
            // spin (a kernel that retries it for ever spins).
            crate::kernel::emulation::spinning(None);
            let deadline = self.0;
            let expired = || deadline.is_some_and(|d| Instant::now() >= d);
            if cond() {
                return true;
            }
            if expired() {
                return false;
            }
            if spin(&mut cond, expired) {
                return true;
            }
            park(key, &mut cond, deadline)
        }
    }
}

#[cfg(all(not(feature = "std"), not(loom), not(target_arch = "nvptx64")))]
mod backend {
    //! The host without `std`: nothing to block on, so waiters spin, with 1, 2, 4, … up to
    //! [`MAX_SPINS`] `spin_loop` hints between two checks.
    //!
    //! There is no clock either: a timed wait counts its hints, each taken as
    //! [`NOMINAL_NS_PER_SPIN`] ns. The real time per hint varies by machine (a `pause` on x86 is
    //! 10–150 cycles), so the timeout is approximate.

    use core::hint::spin_loop;
    use core::time::Duration;

    /// The most `spin_loop` hints between two checks.
    pub(crate) const MAX_SPINS: u32 = 64;
    /// The nominal duration of one `spin_loop` hint for timed waits, in nanoseconds.
    pub(crate) const NOMINAL_NS_PER_SPIN: u64 = 10;

    #[inline]
    pub(crate) fn wait_until(_key: usize, mut cond: impl FnMut() -> bool) {
        let mut spins = 1;
        while !cond() {
            for _ in 0..spins {
                spin_loop();
            }
            spins = (spins * 2).min(MAX_SPINS);
        }
    }

    /// Waiters spin: nothing to wake.
    #[inline(always)]
    pub(crate) fn wake_all(_key: usize) {}

    /// The remaining budget of `spin_loop` hints.
    pub(crate) struct Deadline(u64);

    impl Deadline {
        pub(crate) fn after(timeout: Duration) -> Self {
            let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
            Self(ns / NOMINAL_NS_PER_SPIN)
        }

        pub(crate) fn wait_until(&mut self, _key: usize, mut cond: impl FnMut() -> bool) -> bool {
            let mut spins = 1;
            loop {
                if cond() {
                    return true;
                }
                if self.0 == 0 {
                    return false;
                }
                let n = spins.min(self.0);
                for _ in 0..n {
                    spin_loop();
                }
                self.0 -= n;
                spins = (spins * 2).min(MAX_SPINS as u64);
            }
        }
    }
}

#[cfg(target_arch = "nvptx64")]
pub(crate) use backend::global_timer;
// The hardware barrier's sm_80 wait polls with the same back-off inside its `asm` loop.
pub(crate) use backend::{Deadline, wait_until, wake_all};
#[cfg(all(hardware_barrier, not(target_feature = "sm_90")))]
pub(crate) use backend::{POLLS, SLEEP_MAX_NS, SLEEP_MIN_NS};
