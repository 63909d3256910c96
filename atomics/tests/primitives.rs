//! The synchronisation primitives on host threads: many threads × many phases / rounds.
//!
//! * Barrier: every thread sees every other thread's phase-k writes after phase k (the writes are
//!   to plain, non-atomic memory, so under Miri a missing happens-before is a reported data race);
//!   the completion runs once per phase, after all arrivals and before any waiter returns;
//!   `arrive`/`wait` split, `arrive_n`, `arrive_and_drop` and old tokens.
//! * Latch: no waiter returns before every count-down (again checked on plain memory).
//! * Semaphore: never more than `MAX` holders at once (counted), mutual exclusion of a binary
//!   semaphore on plain memory, timed acquisition.
//! * `Atomic::wait` / `notify_*`: ping-pong rounds (a lost wake-up hangs, which the watchdog turns
//!   into a failure), many waiters released by one `notify_all`, every value type.
//!
//! Scaled down under Miri.

use scoped_atomics::{
    Atomic, AtomicRef, Barrier, BinarySemaphore, Block, CountingSemaphore, Device, Latch,
    PlainScope, System, Thread,
};
use std::cell::UnsafeCell;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const THREADS: usize = if cfg!(miri) { 3 } else { 8 };
const PHASES: u32 = if cfg!(miri) { 4 } else { 300 };
const ROUNDS: u32 = if cfg!(miri) { 4 } else { 2_000 };

/// Fails the test instead of hanging if `body` does not finish in time (a lost wake-up or a
/// deadlock): a watchdog thread aborts the process. (A panicking thread can leave the others of a
/// `thread::scope` waiting at a barrier for ever; its message is printed before the abort.)
/// Miri's clock is virtual and slow, so there `body` runs without a watchdog.
fn within(limit: Duration, body: impl FnOnce()) {
    if cfg!(miri) {
        return body();
    }
    let name = std::thread::current().name().unwrap_or("?").to_owned();
    let (cancel, cancelled) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = cancelled.recv_timeout(limit) {
            eprintln!("test {name} did not finish within {limit:?}: deadlock or lost wake-up");
            std::process::abort();
        }
    });
    body();
    drop(cancel);
}

const LIMIT: Duration = Duration::from_secs(60);

/// Plain memory shared between threads; the primitive under test must order every access.
struct Shared<T>(UnsafeCell<T>);

// SAFETY: the tests only access the cell in ways the primitive under test orders (that is what
// they test; Miri checks it).
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    fn new(value: T) -> Self {
        Self(UnsafeCell::new(value))
    }
    /// The pointer to the value; accesses through it must not race (the primitive under test
    /// orders them).
    fn get(&self) -> *mut T {
        self.0.get()
    }
}

// ---------------------------------------------------------------------------------------- barrier

/// The phase a barrier is in, from its `Debug` output.
fn barrier_phases<S: PlainScope, F>(barrier: &Barrier<S, F>) -> u32 {
    let debug = format!("{barrier:?}");
    let phase = debug
        .strip_prefix("Barrier { phase: ")
        .and_then(|r| r.split(',').next());
    phase
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected {debug}"))
}

/// Each phase: every thread writes its slot of one of two buffers, then `arrive_and_wait`, then
/// reads every slot of that buffer. The other buffer is written in the next phase, and this one
/// again only after a further barrier, when every read of it is done.
fn barrier_publishes_each_phase<S: scoped_atomics::PlainScope>() {
    within(LIMIT, || {
        let barrier = Barrier::<S>::new(THREADS as u32);
        let slots = Shared::new([[0u32; THREADS]; 2]);
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let (barrier, slots) = (&barrier, &slots);
                s.spawn(move || {
                    for phase in 1..=PHASES {
                        let buffer = (phase % 2) as usize;
                        // SAFETY: slot `t` of this buffer is only this thread's during this phase;
                        // the last reads of it ended before the previous barrier.
                        unsafe { (*slots.get())[buffer][t] = phase };
                        barrier.arrive_and_wait();
                        for u in 0..THREADS {
                            // SAFETY: the writes of this phase happen before the barrier returned;
                            // the next writes of this buffer come after the next barrier.
                            let seen = unsafe { (*slots.get())[buffer][u] };
                            assert_eq!(seen, phase, "thread {t} read slot {u} in phase {phase}");
                        }
                    }
                });
            }
        });
        assert_eq!(
            format!("{barrier:?}"),
            format!("Barrier {{ phase: {PHASES}, missing: {THREADS}, expected: {THREADS} }}")
        );
    });
}

#[test]
fn barrier_publishes_each_phase_device() {
    barrier_publishes_each_phase::<Device>();
}

#[test]
fn barrier_publishes_each_phase_system() {
    barrier_publishes_each_phase::<System>();
}

#[test]
fn barrier_publishes_each_phase_block() {
    barrier_publishes_each_phase::<Block>();
}

/// The completion runs exactly once per phase, after every arrival of the phase (it sees all the
/// phase's writes) and before any waiter of the phase returns (they see its write).
#[test]
fn barrier_completion_runs_once_per_phase_between_arrivals_and_waits() {
    within(LIMIT, || {
        let slots = Shared::new([0u32; THREADS]);
        let completed = Shared::new(0u32);
        let barrier = Barrier::<Device, _>::with_completion(THREADS as u32, || {
            // SAFETY: the completion runs after every arrival of the phase and before any thread
            // proceeds (nobody writes a slot or `completed` meanwhile).
            let (slots, completed) = unsafe { (&*slots.get(), &mut *completed.get()) };
            *completed += 1;
            assert!(
                slots.iter().all(|&x| x == *completed),
                "completion {completed} saw {slots:?}"
            );
        });
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let (barrier, slots, completed) = (&barrier, &slots, &completed);
                s.spawn(move || {
                    for phase in 1..=2 * PHASES {
                        // SAFETY: slot `t` is only written by this thread, and read by the
                        // completion, which runs after this thread's arrival below and before
                        // its wait returns.
                        unsafe { (*slots.get())[t] = phase };
                        barrier.arrive_and_wait();
                        // SAFETY: the completion's write happens before the wait returned; the
                        // next one comes after the next phase's arrivals, including this thread's.
                        assert_eq!(unsafe { *completed.get() }, phase);
                    }
                });
            }
        });
        assert_eq!(barrier_phases(&barrier), 2 * PHASES);
        // SAFETY: every thread has finished.
        assert_eq!(unsafe { *completed.get() }, 2 * PHASES);
    });
}

/// `arrive` without waiting, `wait` later, and `arrive_n` on behalf of several threads: a
/// coordinator arrives for the `THREADS - 1` threads it stands for, so one producer's arrival plus
/// the coordinator's `arrive_n` complete each phase. Two phases per round: the producer writes
/// before the first, the coordinator reads between the two.
#[test]
fn barrier_split_arrive_wait_and_arrive_n() {
    within(LIMIT, || {
        let barrier = Barrier::<System>::new(THREADS as u32);
        let data = Shared::new(0u32);
        std::thread::scope(|s| {
            s.spawn(|| {
                for round in 1..=PHASES {
                    // SAFETY: the coordinator reads `data` between this round's two phases; the
                    // next write follows the end of the second, which needs its arrival.
                    unsafe { *data.get() = round };
                    let written = barrier.arrive();
                    std::hint::black_box(round); // other work between arrive and wait
                    barrier.wait(written);
                    let read = barrier.arrive();
                    barrier.wait(read);
                }
            });
            for round in 1..=PHASES {
                let token = barrier.arrive_n(THREADS as u32 - 1);
                barrier.wait(token);
                // SAFETY: the producer's write happens before its arrival in this phase.
                assert_eq!(unsafe { *data.get() }, round);
                let token = barrier.arrive_n(THREADS as u32 - 1);
                barrier.wait(token);
            }
        });
        assert_eq!(
            format!("{barrier:?}"),
            format!(
                "Barrier {{ phase: {}, missing: {THREADS}, expected: {THREADS} }}",
                2 * PHASES
            )
        );
    });
}

/// The tokens of ended phases that the contract allows make `wait` return at once: one of the
/// preceding phase, and one whose arrival completed its phase however old (issue 10, bug 4: the
/// contract the hardware `mbarrier` keeps too; an older token is reported, see
/// `primitives_misuse.rs`).
#[test]
fn barrier_old_tokens_return_at_once() {
    let barrier = Barrier::<Thread>::new(2);
    let phase0 = barrier.arrive();
    let phase0_last = barrier.arrive();
    barrier.wait(phase0); // the preceding phase
    let phase1 = barrier.arrive();
    let phase1_last = barrier.arrive();
    let _phase2 = barrier.arrive();
    barrier.wait(phase1_last);
    barrier.wait(phase1); // the preceding phase
    barrier.wait(phase0_last); // two phases old, but its arrival completed phase 0
    assert_eq!(
        format!("{barrier:?}"),
        "Barrier { phase: 2, missing: 1, expected: 2 }"
    );
}

/// Threads drop out one by one (`arrive_and_drop`), the others go on with one arrival fewer per
/// phase; the completion counts phases.
#[test]
fn barrier_arrive_and_drop_shrinks_later_phases() {
    within(LIMIT, || {
        let phases = Atomic::<u32, Device>::new(0);
        let barrier = Barrier::<Device, _>::with_completion(THREADS as u32, || {
            phases.fetch_add(1, Relaxed);
        });
        let per_thread = PHASES.min(20);
        std::thread::scope(|s| {
            for t in 0..THREADS as u32 {
                let barrier = &barrier;
                s.spawn(move || {
                    // Thread t takes part in (t + 1) * per_thread phases, then leaves.
                    for _ in 1..(t + 1) * per_thread {
                        barrier.arrive_and_wait();
                    }
                    barrier.arrive_and_drop();
                });
            }
        });
        assert_eq!(phases.load(Relaxed), THREADS as u32 * per_thread);
        assert_eq!(
            format!("{barrier:?}"),
            format!(
                "Barrier {{ phase: {}, missing: 0, expected: 0 }}",
                THREADS as u32 * per_thread
            )
        );
    });
}

#[test]
fn barrier_limits() {
    assert!(Barrier::<Device>::max() >= (1 << 20) - 1);
    assert_eq!(Barrier::<Block>::max(), (1 << 31) - 1);
    // A barrier of max() arrivals works: arrive_n(max) completes its phase.
    let big = Barrier::<System>::new(Barrier::<System>::max());
    let token = big.arrive_n(Barrier::<System>::max() - 1);
    let last = big.arrive();
    big.wait(token);
    big.wait(last);
    assert_eq!(
        format!("{big:?}"),
        format!(
            "Barrier {{ phase: 1, missing: {0}, expected: {0} }}",
            (1u32 << 31) - 1
        )
    );
    static STATIC_BARRIER: Barrier<Device> = Barrier::new(1);
    STATIC_BARRIER.arrive_and_wait();
}

// ------------------------------------------------------------------------------------------ latch

/// Writers each fill their slot and count down; readers wait and must see every slot. One latch
/// per round; `try_wait` is false before the last count-down.
#[test]
fn latch_no_waiter_returns_early() {
    within(LIMIT, || {
        let writers = THREADS / 2;
        let readers = THREADS - writers;
        for round in 0..ROUNDS.min(if cfg!(miri) { 2 } else { 200 }) {
            let latch = Latch::<Device>::new(writers as u32);
            let slots = Shared::new([0u32; THREADS]);
            assert!(!latch.try_wait());
            std::thread::scope(|s| {
                for w in 0..writers {
                    let (latch, slots) = (&latch, &slots);
                    s.spawn(move || {
                        // SAFETY: slot `w` is only this thread's until the latch opens; readers read
                        // after it opened.
                        unsafe { (*slots.get())[w] = round + 1 };
                        latch.count_down(1);
                    });
                }
                for _ in 0..readers {
                    let (latch, slots) = (&latch, &slots);
                    s.spawn(move || {
                        latch.wait();
                        assert!(latch.try_wait());
                        // SAFETY: every write happened before its count-down, and so before the
                        // latch opened; no write follows.
                        let seen = unsafe { *slots.get() };
                        assert!(
                            seen[..writers].iter().all(|&x| x == round + 1),
                            "round {round}: {seen:?}"
                        );
                    });
                }
            });
        }
    });
}

/// `arrive_and_wait(n)` with uneven `n`, and a latch of 0.
#[test]
fn latch_arrive_and_wait() {
    within(LIMIT, || {
        let total: u32 = (1..=THREADS as u32).sum();
        let latch = Latch::<System>::new(total);
        let arrived = Atomic::<u32, System>::new(0);
        std::thread::scope(|s| {
            for t in 1..=THREADS as u32 {
                let (latch, arrived) = (&latch, &arrived);
                s.spawn(move || {
                    arrived.fetch_add(t, Relaxed);
                    latch.arrive_and_wait(t);
                    assert_eq!(arrived.load(Relaxed), total);
                });
            }
        });
        let open = Latch::<Block>::new(0);
        assert!(open.try_wait());
        open.wait();
        assert_eq!(format!("{open:?}"), "Latch { count: 0 }");
        assert!(Latch::<Device>::max() >= (1 << 20) - 1);
    });
}

// -------------------------------------------------------------------------------------- semaphore

/// `THREADS` threads take and return units of a semaphore of `MAX`; never more than `MAX` hold one
/// at once, and with enough contention the maximum is reached.
fn semaphore_bounds_holders<const MAX: u32>() {
    within(LIMIT, || {
        let semaphore = CountingSemaphore::<Device, MAX>::new(MAX);
        let holders = Atomic::<u32, Device>::new(0);
        let most = Atomic::<u32, Device>::new(0);
        let acquisitions = Atomic::<u32, Device>::new(0);
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let (semaphore, holders, most, acquisitions) =
                    (&semaphore, &holders, &most, &acquisitions);
                s.spawn(move || {
                    for i in 0..ROUNDS {
                        match (t + i as usize) % 3 {
                            0 => semaphore.acquire(),
                            1 => {
                                while !semaphore.try_acquire() {
                                    std::hint::spin_loop();
                                }
                            }
                            _ => while !semaphore.try_acquire_for(Duration::from_micros(50)) {},
                        }
                        let now = holders.fetch_add(1, AcqRel) + 1;
                        assert!(now <= MAX, "{now} holders of a semaphore of {MAX}");
                        most.fetch_max(now, Relaxed);
                        acquisitions.fetch_add(1, Relaxed);
                        if i % 32 == 0 {
                            std::thread::yield_now();
                        }
                        holders.fetch_sub(1, AcqRel);
                        semaphore.release(1);
                    }
                });
            }
        });
        assert_eq!(acquisitions.load(Relaxed), THREADS as u32 * ROUNDS);
        assert!(most.load(Relaxed) <= MAX);
        assert_eq!(
            format!("{semaphore:?}"),
            format!("CountingSemaphore {{ count: {MAX}, max: {MAX} }}")
        );
    });
}

#[test]
fn semaphore_of_1_bounds_holders() {
    semaphore_bounds_holders::<1>();
}

#[test]
fn semaphore_of_3_bounds_holders() {
    semaphore_bounds_holders::<3>();
}

/// A binary semaphore as a lock around plain memory: increments are never lost, and Miri sees the
/// happens-before from each release to the next acquire.
#[test]
fn binary_semaphore_excludes() {
    within(LIMIT, || {
        let lock = BinarySemaphore::<System>::new(1);
        let counter = Shared::new(0u32);
        std::thread::scope(|s| {
            for _ in 0..THREADS {
                let (lock, counter) = (&lock, &counter);
                s.spawn(move || {
                    for _ in 0..ROUNDS {
                        lock.acquire();
                        // SAFETY: the semaphore admits one thread at a time, with happens-before
                        // from each release to the next acquisition.
                        unsafe { *counter.get() += 1 };
                        lock.release(1);
                    }
                });
            }
        });
        assert_eq!(counter.0.into_inner(), THREADS as u32 * ROUNDS);
    });
}

/// Producers release batches, consumers acquire one at a time: every unit is consumed exactly
/// once, and `release(n)` wakes enough waiters.
#[test]
fn semaphore_release_n_wakes_consumers() {
    within(LIMIT, || {
        let items = CountingSemaphore::<Device>::new(0);
        let consumed = Atomic::<u32, Device>::new(0);
        let consumers = THREADS - 1;
        let per_consumer = ROUNDS;
        std::thread::scope(|s| {
            for _ in 0..consumers {
                let (items, consumed) = (&items, &consumed);
                s.spawn(move || {
                    for _ in 0..per_consumer {
                        items.acquire();
                        consumed.fetch_add(1, Relaxed);
                    }
                });
            }
            let mut left = consumers as u32 * per_consumer;
            let mut batch = 1;
            while left > 0 {
                let n = batch.min(left);
                items.release(n);
                left -= n;
                batch = batch % 7 + 1;
            }
        });
        assert_eq!(consumed.load(Relaxed), consumers as u32 * per_consumer);
        assert!(!items.try_acquire());
    });
}

/// `try_acquire_for` times out after about the timeout, and is woken by a release well before a
/// long timeout.
#[test]
fn semaphore_timed_acquire() {
    within(LIMIT, || {
        let s = BinarySemaphore::<System>::new(0);
        let start = Instant::now();
        assert!(!s.try_acquire_for(Duration::from_millis(20)));
        if !cfg!(miri) {
            assert!(start.elapsed() >= Duration::from_millis(20));
        }
        assert!(!s.try_acquire_for(Duration::ZERO));
        assert!(!s.try_acquire_for(Duration::MAX.min(Duration::from_nanos(1))));

        let start = Instant::now();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(10));
                s.release(1);
            });
            assert!(s.try_acquire_for(Duration::from_secs(60)));
        });
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the release did not wake the waiter"
        );
        // A timeout too long for `Instant` waits without a deadline.
        s.release(1);
        assert!(s.try_acquire_for(Duration::MAX));
    });
}

// ------------------------------------------------------------------------------ wait and notify

/// Two threads take turns through one atomic: each waits for the other's value, then stores its
/// own and notifies. A lost wake-up hangs (and the watchdog fails the test).
fn ping_pong<S: scoped_atomics::PlainScope>(notify_all: bool) {
    within(LIMIT, || {
        let turn = Atomic::<u32, S>::new(0);
        let data = Shared::new(0u32);
        std::thread::scope(|s| {
            for me in 0..2u32 {
                let (turn, data) = (&turn, &data);
                s.spawn(move || {
                    for round in 0..ROUNDS {
                        let mine = 2 * round + me;
                        // Wait for our turn: the value is `mine`.
                        loop {
                            let now = turn.load(Acquire);
                            if now == mine {
                                break;
                            }
                            turn.wait(now, Acquire);
                        }
                        // SAFETY: the turns alternate, with release/acquire between them.
                        unsafe {
                            assert_eq!(*data.get(), mine);
                            *data.get() += 1;
                        }
                        turn.store(mine + 1, Release);
                        if notify_all {
                            turn.notify_all();
                        } else {
                            turn.notify_one();
                        }
                    }
                });
            }
        });
        assert_eq!(turn.load(Relaxed), 2 * ROUNDS);
    });
}

#[test]
fn wait_notify_one_ping_pong_device() {
    ping_pong::<Device>(false);
}

#[test]
fn wait_notify_all_ping_pong_system() {
    ping_pong::<System>(true);
}

/// Many threads wait on one flag; one store and `notify_all` release them all, and they see the
/// data written before the store.
#[test]
fn wait_notify_all_releases_every_waiter() {
    within(LIMIT, || {
        for _ in 0..ROUNDS.min(50) {
            let flag = Atomic::<bool, Device>::new(false);
            let data = Shared::new(0u64);
            let started = Latch::<Device>::new(THREADS as u32);
            std::thread::scope(|s| {
                for _ in 0..THREADS {
                    let (flag, data, started) = (&flag, &data, &started);
                    s.spawn(move || {
                        started.count_down(1);
                        flag.wait(false, Acquire);
                        // SAFETY: written before the release store this wait's load read.
                        assert_eq!(unsafe { *data.get() }, 99);
                    });
                }
                started.wait();
                // SAFETY: no reader reads before the flag is set.
                unsafe { *data.get() = 99 };
                flag.store(true, Release);
                flag.notify_all();
            });
        }
    });
}

/// `wait` on every value type, through `AtomicRef` too, compares bits: a float waiter on `0.0`
/// wakes for `-0.0`.
#[test]
fn wait_every_value_type() {
    within(LIMIT, || {
        macro_rules! check {
            ($t:ty, $old:expr, $new:expr) => {{
                let a = Atomic::<$t, Device>::new($old);
                std::thread::scope(|s| {
                    s.spawn(|| {
                        std::thread::sleep(Duration::from_millis(1));
                        a.store($new, SeqCst);
                        a.notify_all();
                    });
                    a.wait($old, SeqCst);
                });
                assert_eq!(
                    a.load(Relaxed).to_bits_or_self(),
                    ($new as $t).to_bits_or_self()
                );
            }};
        }
        trait Bits {
            type B: PartialEq + std::fmt::Debug;
            fn to_bits_or_self(self) -> Self::B;
        }
        macro_rules! bits_self {
            ($($t:ty),*) => {$(impl Bits for $t { type B = $t; fn to_bits_or_self(self) -> $t { self } })*};
        }
        bits_self!(bool, u8, i8, u16, i16, u32, i32, u64, i64, usize, isize);
        impl Bits for f32 {
            type B = u32;
            fn to_bits_or_self(self) -> u32 {
                self.to_bits()
            }
        }
        impl Bits for f64 {
            type B = u64;
            fn to_bits_or_self(self) -> u64 {
                self.to_bits()
            }
        }
        check!(bool, false, true);
        check!(u8, 1, 2);
        check!(i8, -1, 1);
        check!(u16, 1, 2);
        check!(i16, -1, 1);
        check!(u32, 1, 2);
        check!(i32, -1, 1);
        check!(u64, 1, u64::MAX);
        check!(i64, -1, 1);
        check!(usize, 1, 2);
        check!(isize, -1, 1);
        check!(f32, 0.0, -0.0);
        check!(f64, 0.0, -0.0);

        // Pointers: waiting on the address, and through an `AtomicRef` at another scope.
        let mut x = 1i32;
        let mut y = 2i32;
        let (px, py) = (&mut x as *mut i32, &mut y as *mut i32);
        let p = Atomic::<*mut i32, Block>::new(px);
        let next = Atomic::<*mut i32, Block>::new(py); // raw pointers are not `Send`
        std::thread::scope(|s| {
            s.spawn(|| {
                p.store(next.load(Relaxed), Release);
                p.notify_one();
            });
            AtomicRef::from(&p).wait(px, Acquire);
        });
        assert_eq!(p.load(Relaxed), py);

        let mut raw = 5u32;
        let view = AtomicRef::<u32, System>::new(&mut raw);
        std::thread::scope(|s| {
            s.spawn(move || {
                view.store(6, Release);
                view.with_scope::<Device>().notify_all();
            });
            view.wait(5, Acquire);
        });
        assert_eq!(raw, 6);
    });
}

/// Waiters of many atomics that share parking buckets: each is woken for its own atomic only
/// once its value changed, and none is lost.
#[test]
fn wait_many_addresses_share_buckets() {
    within(LIMIT, || {
        const N: usize = if cfg!(miri) { 4 } else { 200 };
        let flags: Vec<Atomic<u32, System>> =
            (0..N).map(|_| Atomic::<u32, System>::new(0)).collect();
        std::thread::scope(|s| {
            for chunk in flags.chunks(N.div_ceil(THREADS)) {
                s.spawn(move || {
                    for f in chunk {
                        f.wait(0, Acquire);
                        assert_eq!(f.load(Relaxed), 1);
                    }
                });
            }
            for f in flags.iter().rev() {
                f.store(1, Release);
                f.notify_one();
            }
        });
    });
}
