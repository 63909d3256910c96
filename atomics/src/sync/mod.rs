//! Scoped synchronisation primitives: what libcu++'s `cuda::barrier`, `cuda::latch`,
//! `cuda::counting_semaphore` / `cuda::binary_semaphore` and `cuda::atomic::wait` /
//! `notify_one` / `notify_all` are to CUDA C++, with C++20 semantics.
//!
//! * [`Barrier<S, F>`] — a reusable barrier of phases, with an optional completion function.
//! * [`Latch<S>`] — a single-use count-down.
//! * [`CountingSemaphore<S, MAX>`] and [`BinarySemaphore<S>`].
//! * [`Atomic::wait`](crate::Atomic::wait), [`notify_one`](crate::Atomic::notify_one) and
//!   [`notify_all`](crate::Atomic::notify_all) on every `Atomic<T, S>` (and through `Deref` on
//!   every [`AtomicRef`](crate::AtomicRef)).
//! * Waits that give up: [`Barrier::try_wait`], [`try_wait_for`](Barrier::try_wait_for),
//!   [`try_wait_until`](Barrier::try_wait_until) and the parity waits
//!   ([`wait_parity`](Barrier::wait_parity), [`try_wait_parity`](Barrier::try_wait_parity), …),
//!   [`CountingSemaphore::try_acquire_for`] / [`try_acquire_until`](CountingSemaphore::try_acquire_until),
//!   [`Atomic::wait_for`](crate::Atomic::wait_for) / [`wait_until`](crate::Atomic::wait_until)
//!   (also on [`AtomicReadRef`](crate::AtomicReadRef) and [`AtomicFlag`](crate::AtomicFlag)).
//!   Deadlines are [`time::Instant`](crate::time::Instant) (device and host) or
//!   `std::time::Instant` (host); see [`crate::time`].
//!
//! Everything a thread does before it arrives at a barrier, counts a latch down, releases a
//! semaphore or stores a value that a waiter then sees, happens before everything the waiting thread
//! does after the matching `wait` / `acquire` returns.
//!
//! ```
//! use scoped_atomics::{Device, Ordering, device::AtomicU32};
//!
//! let flag = AtomicU32::new(0);
//! let data = AtomicU32::new(0);
//! std::thread::scope(|s| {
//!     s.spawn(|| {
//!         data.store(42, Ordering::Relaxed);
//!         flag.store(1, Ordering::Release);
//!         flag.notify_one();
//!     });
//!     flag.wait(0, Ordering::Acquire); // blocks while the flag is 0
//!     assert_eq!(data.load(Ordering::Relaxed), 42);
//! });
//! # let _ = Device;
//! ```
//!
//! # Scopes
//! The scope `S` of a primitive is the scope of its internal atomics, and so of the threads that
//! may use it: a `Barrier<Block>` synchronises the threads of one block, a `Latch<Device>` those
//! of one GPU, a `CountingSemaphore<System>` (the default scope) host and device threads
//! together. A primitive used by threads outside its scope — a `Barrier<Block>` shared by two
//! blocks — has a scope race on its atomics, which the loom mirror reports, and gives no
//! guarantee on the device.
//!
//! The primitives use nothing but the public [`Atomic<u32 | u64, S>`](crate::Atomic) operations
//! (`load`, `store`, `compare_exchange`, `fetch_sub`, …), so they run on every backend: PTX
//! instructions of scope `S` on the device, `core::sync::atomic` on the host, and loom's
//! (model-checked) atomics under `--cfg loom`.
//!
//! # Waiting
//! * **Device** (`nvptx64`): waiters poll. The first 16 checks follow each other directly; then
//!   the thread sleeps with `nanosleep` (sm_70 and newer) between checks, starting at 256 ns and
//!   doubling up to 64 µs (65 536 ns). A sleep is never longer than the time already waited, so a
//!   waiter sees the condition at most about twice as late as it became true, and the cap bounds
//!   that delay in long waits while keeping waiting warps off the memory system. Timed waits read
//!   `%globaltimer`. The hardware barrier's timed waits on sm_90 are `mbarrier.try_wait.parity` with the
//!   time left as its `suspendTimeHint` (the hardware suspends the thread). Notifying does nothing. Waiting for a thread of the same warp relies on the
//!   independent thread scheduling of sm_70 and newer; a `Barrier<Device>` (or any wait for another
//!   block) needs every participating block to be resident at once (a cooperative launch, or a
//!   grid no larger than the GPU holds), as with CUDA's grid-wide synchronisation.
//! * **Host with the `std` feature** (the default): a waiter checks a few times with `spin_loop`
//!   hints and `thread::yield_now` between checks (a short wait costs no system call), then blocks
//!   in a parking table: 64 buckets of `Mutex` + `Condvar`, chosen by the address of the atomic
//!   the waiter watches. A waiter registers in its bucket and re-checks its condition under the
//!   bucket's lock before it sleeps; a notifier (every arrival, count-down, release and `notify_*`)
//!   issues a `SeqCst` fence after its modification and takes the bucket's lock to wake the bucket
//!   if anybody is registered there, so no wake-up is lost. A parked waiter also re-checks on
//!   its own, after sleeps of 50 µs doubling up to 1 ms: the other side of a `System`-scope
//!   primitive may be a GPU thread, which cannot wake a host thread, so a host wait returns at
//!   most about 1 ms after a device thread released it. Waiters of other addresses in the same
//!   bucket wake too, re-check, and sleep again; for the same reason `notify_one` wakes every
//!   waiter of the bucket (C++ allows spurious wake-ups).
//! * **Host without `std`**: waiters spin, with exponential `spin_loop` back-off (1 to 64 hints
//!   between checks); timed waits count hints at a nominal 10 ns each, as there is no clock.
//! * **`--cfg loom`**: waiters never block on a std primitive; they check, and call
//!   `loom::thread::yield_now()` between two checks, so loom explores the interleavings of the
//!   wait (a round that can see nothing new ends the exploration below it, as
//!   `kernel::spin_loop` does). A timed wait (every `*_for` and `*_until`: loom has no clock) checks, yields once, and
//!   checks again, so loom explores both its success and its timeout.
//!
//! # Design of each primitive
//! * [`Barrier`]: two words. The *count word*, one `Atomic<u64, S>`, holds the arrivals still
//!   missing in the phase (31 bits) under a guard bit, and the expected count of the phases to
//!   come (31 bits, which `arrive_and_drop` lowers in the same atomic as its arrival), so
//!   [`Barrier::max`] is 2³¹ − 1 on the generic path. The *phase word*, an `Atomic<u32, S>` 8
//!   bytes on, holds the phase number. An arrival is one `fetch_sub` of the count word
//!   (`AcqRel`); the guard bit absorbs the borrow of an excess arrival, so it is detected without
//!   touching the expected count or the phase. The last arriver runs the completion, adds the
//!   expected count back to the missing arrivals, then stores the next phase in the phase word
//!   (`Release`); waiters watch the phase word (`Acquire`), and a token is the phase word read
//!   before the arrival. The module documentation of `barrier.rs` draws the words.
//!   The completion `F` lives in an `UnsafeCell`: only the last arriver of a phase calls it, and
//!   the phases are ordered by the barrier's own release/acquire chain, so calls never overlap.
//!   Without a completion `F` is [`NoCompletion`], zero-sized: nothing is stored and nothing is
//!   called, so a barrier built on one processor is valid on the other (`#[repr(C)]`, 16 bytes:
//!   the count word and the phase word).
//!   A completion is a type-level choice, open only to the scopes of one processor
//!   ([`CompletionScope`](crate::CompletionScope): not `System`), and runs on the thread of the
//!   phase's last arrival.
//! * [`Latch`]: one `Atomic<u32, S>` holding the count as an `i32`; `count_down` is a `fetch_sub`
//!   (`Release`), waiters load (`Acquire`) until the count is at most 0.
//! * [`CountingSemaphore`]: one `Atomic<u32, S>`; `acquire` is a compare-exchange loop that takes
//!   a unit from a positive count (`Acquire`), `release` a compare-exchange loop that checks the
//!   result against `MAX` before it stores it (`Release`).
//!
//! # Misuse
//! `Barrier::new(0)` or above `max()`, more arrivals in a phase than expected, a `wait` on a
//! token two or more phases old that did not complete its phase, counting a latch down past
//! zero, a semaphore release beyond `MAX` and a semaphore created above `MAX` each panic, with a
//! message that names the mistake and the numbers, at the caller's location. On the device a
//! misuse at run time is a bare `trap`: no message is built there (no calls, no local memory; each
//! check is a compare and a branch to `trap`), while a bad count in a `static` stays a
//! compile-time error with its message on every target. In debug device builds a primitive on
//! the kernel's stack (local memory, where `atom` is undefined) traps too. The constructors are `const` (except under loom), so in a `static` a bad
//! count is a compile-time error:
//!
//! ```compile_fail
//! use scoped_atomics::{Barrier, Device};
//! // error: "Barrier::new: the expected count is 0; a barrier needs at least 1 arrival per phase"
//! static BROKEN: Barrier<Device> = Barrier::new(0);
//! # let _ = &BROKEN;
//! ```
//!
//! # The hardware barrier
//! A `Barrier<Block>` initialised with `Barrier::init_in_place` in block-shared memory on sm_80
//! and newer, built for PTX ISA 7.1 or newer (detected with `isspacep.shared`), is the hardware
//! `mbarrier`, as in libcu++: one `mbarrier.arrive` per arrival after a read of the phase's
//! parity, and `mbarrier.try_wait.parity` (sm_90) or `mbarrier.test_wait.parity` (sm_80) in the
//! waits; it has no completion function
//! and cannot detect an excess arrival. Every other barrier uses the generic algorithm above,
//! which is correct at every scope. Both keep one contract:
//! * **Lifetime.** From `mbarrier.init` to `mbarrier.inval` the state word is an `mbarrier`
//!   object that only `mbarrier` instructions touch (no plain stores at initialisation, no load in
//!   `Debug`). Before the memory is initialised again or reused,
//!   [`Barrier::invalidate_in_place`] ends its life.
//! * **Tokens.** `wait` takes a token of the current or the preceding phase (C++'s and libcu++'s
//!   contract). The generic barrier also accepts a token whose own arrival completed its phase,
//!   however old, and reports any other older token. The hardware one keeps only the phase's
//!   parity (read with `mbarrier.test_wait.parity` before the `mbarrier.arrive`) and waits with
//!   the `.parity` forms, which PTX defines for any parity — unlike the state-token forms, which
//!   are undefined on a token two phases old, as safe code can hold one (a thread arriving twice
//!   before it waits, or threads that end two phases between another thread's arrival and its
//!   first test). An older token there waits for the next end of a phase of its parity.
//! * **Phases observed (hardware only).** PTX requires that each phase of an `mbarrier` be seen
//!   complete by a wait — an `mbarrier.test_wait`/`try_wait` that returns true — before any
//!   arrival in the next phase. So on the hardware barrier a thread arrives in phase *k* + 1 only
//!   after a `wait` (or `try_wait` returning `true`, or `arrive_and_wait`) of some thread returned
//!   for phase *k*: a last arriver that arrives again without anyone having waited
//!   (`init_in_place(p, 1); let _ = b.arrive(); let _ = b.arrive();`) is undefined there (the
//!   simulator reports it). The generic barrier needs only its own rule (a thread arrives for the
//!   next phase after it saw the current one end, which the last arriver has).
//! * **Drops (hardware only).** `mbarrier.arrive_drop` leaves an expected count of 0 undefined,
//!   so on the hardware barrier the last participant's `arrive_and_drop` traps (the phase word
//!   counts the participants left); the generic barrier lets it drop (no arrival expected then).
//! * **Tokens belong to their barrier.** A token carries the address of the barrier it arrived
//!   at, and every wait checks it: a token waited on at another barrier (a `SharedBarrier`'s at a
//!   `Barrier<Device>`, whose wait would have been an `mbarrier.test_wait` of global memory)
//!   panics on the host and traps on the device. Where the arrival and the wait are inlined on the
//!   same barrier the check folds away.
//! * **Place in the type.** [`SharedBarrier`] is a block barrier that can only be made in
//!   block-shared memory: on sm_80+ it is the `mbarrier` alone, with no run-time dispatch and no
//!   generic barrier compiled beside it (libcu++'s `__shared__ cuda::barrier<thread_scope_block>`).
//! * **Counts.** An expected count and an `arrive_n` are at most 2²⁰ − 1 on the hardware path
//!   (2³¹ − 1 on the generic one); beyond, `arrive_n` panics (traps). `init_in_place` takes at
//!   most 2²⁰ − 1 on every target and wherever the barrier is (a count the hardware could not
//!   hold fails on the host too). On the device `Barrier::<Block>::max()` is 2²⁰ − 1, as
//!   libcu++'s block barrier's, and `Barrier::<Block>::new` takes what `max()` says.
//! * **Not detected on the hardware.** A token two or more phases old, and an arrival in a phase
//!   nobody has yet seen the previous one end, are undefined on the `mbarrier` (as in libcu++)
//!   and are not checked there: the `mbarrier` keeps no phase number to compare with. The
//!   generic barrier panics (traps) on such a token.

mod barrier;
mod barrier_wait;
mod latch;
mod mbarrier;
pub(crate) mod message;
#[cfg(all(test, feature = "std", not(loom)))]
mod remote_wake_tests;
mod semaphore;
pub(crate) mod wait;

pub use barrier::{ArrivalToken, Barrier, BarrierCompletion, NoCompletion, SharedBarrier};

/// Misuse checks of the primitives on the device: one `setp` and a predicated `trap` each, with no
/// branch and no block of their own (the host reports the same misuse with a panic that gives
/// the numbers). Not `nomem`: a check stays ordered with the memory accesses around it.
#[cfg(target_arch = "nvptx64")]
pub(crate) mod device_check {
    use core::arch::asm;

    /// Traps if `value < bound` (unsigned).
    #[inline(always)]
    pub(crate) fn trap_if_below(value: u64, bound: u64) {
        // SAFETY: `trap` aborts the kernel; nothing else is done.
        unsafe {
            asm!(
                "{{ .reg .pred %t; setp.lt.u64 %t, {v}, {b}; @%t trap; }}",
                v = in(reg64) value,
                b = in(reg64) bound,
                options(nostack, preserves_flags),
            )
        }
    }

    /// Traps if `value < bound` for the constant `bound` (an immediate operand, no register).
    #[inline(always)]
    pub(crate) fn trap_if_below_const<const BOUND: u64>(value: u64) {
        // SAFETY: as in `trap_if_below`.
        unsafe {
            asm!(
                "{{ .reg .pred %t; setp.lt.u64 %t, {v}, {b}; @%t trap; }}",
                v = in(reg64) value,
                b = const BOUND,
                options(nostack, preserves_flags),
            )
        }
    }

    /// Traps if `a != b`.
    #[inline(always)]
    pub(crate) fn trap_if_ne(a: u64, b: u64) {
        // SAFETY: as in `trap_if_below`.
        unsafe {
            asm!(
                "{{ .reg .pred %t; setp.ne.u64 %t, {a}, {b}; @%t trap; }}",
                a = in(reg64) a,
                b = in(reg64) b,
                options(nostack, preserves_flags),
            )
        }
    }

    /// Traps if `value > bound` for the constant `bound` (32 bits).
    #[inline(always)]
    pub(crate) fn trap_if_above_const<const BOUND: u32>(value: u32) {
        // SAFETY: as in `trap_if_below`.
        unsafe {
            asm!(
                "{{ .reg .pred %t; setp.gt.u32 %t, {v}, {b}; @%t trap; }}",
                v = in(reg32) value,
                b = const BOUND,
                options(nostack, preserves_flags),
            )
        }
    }
}

/// In debug device builds, traps if the primitive at `p` is in local memory (a kernel's stack),
/// where `atom` and `mbarrier` are undefined; one `isspacep.local` and a branch. Nothing in
/// release builds or on the host.
#[inline(always)]
pub(crate) fn debug_assert_not_local<T>(p: *const T) {
    #[cfg(all(target_arch = "nvptx64", debug_assertions))]
    {
        let local: u32;
        // SAFETY: only classifies an address; touches no memory.
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred %l; isspacep.local %l, {p}; selp.u32 {r}, 1, 0, %l; }}",
                p = in(reg64) p,
                r = out(reg32) local,
                options(pure, nomem, nostack),
            )
        };
        if local != 0 {
            // SAFETY: `trap` aborts the kernel: a synchronisation primitive on the stack.
            unsafe { core::arch::asm!("trap;", options(noreturn, nostack)) }
        }
    }
    #[cfg(not(all(target_arch = "nvptx64", debug_assertions)))]
    let _ = p;
}
pub use latch::Latch;
pub use semaphore::{BinarySemaphore, CountingSemaphore};
