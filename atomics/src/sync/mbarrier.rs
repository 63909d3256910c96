//! The hardware barrier of sm_80 and newer (`mbarrier`), for a `Barrier<Block>` in shared memory
//! and the [`SharedBarrier`](crate::SharedBarrier), in builds of PTX ISA 7.1 or newer
//! (`cfg(hardware_barrier)`, set by the build script).
//!
//! A `Barrier<Block>` initialised with [`Barrier::init_in_place`](super::Barrier::init_in_place)
//! in block-shared memory keeps an `mbarrier` object in its state word (8 bytes, 8-aligned) and
//! `MBARRIER | expected` (bit 31) in its phase word. An arrival is `mbarrier.arrive` (release at
//! CTA scope) after `mbarrier.test_wait.parity` has read the parity of the phase under way; the
//! token is that parity, and every wait is a `.parity` form (`mbarrier.test_wait.parity` /
//! `mbarrier.try_wait.parity`, acquire at CTA scope). `Barrier::invalidate_in_place` is
//! `mbarrier.inval`.
//!
//! # Why parities
//! PTX defines the state-token waits only on a token of the current or the immediately
//! preceding phase, and safe code can hold an older one: a thread may arrive again before it
//! waits on its first token, and the documented contract lets phases end without a thread (64
//! threads sharing a barrier of 32), so even `arrive_and_wait` can find its token two phases old
//! at its first test. A parity is defined for the `.parity` forms at any time: it names the
//! current phase or the one before it. So a token two or more phases old is no longer undefined
//! PTX: its wait ends at the next end of a phase of its parity (or at once, if the phase before
//! the current one has its parity). The generic barrier detects such a token and panics (traps).
//! The cost is the parity read: two instructions per arrival (`mbarrier.test_wait.parity` and a
//! `selp`). An sm_80 build at PTX ISA 7.0 (LLVM's default for `-C target-cpu=sm_80` without
//! `+ptx71`) has no `.parity` forms and uses the generic barrier instead.
//!
//! The blocking waits loop on `mbarrier.try_wait.parity` on sm_90, whose hardware suspend does the
//! waiting (as libcu++'s), and poll `mbarrier.test_wait.parity` with the back-off of every device
//! wait on sm_80; the waits that give up (`try_wait`, the timed and the parity waits;
//! `barrier_wait.rs`) are `mbarrier.test_wait.parity` on sm_80 and `mbarrier.try_wait.parity`
//! (with a `suspendTimeHint` for the timed forms) on sm_90. Between `mbarrier.init` and
//! `mbarrier.inval` nothing else touches the object. Everything else (other scopes, global
//! memory, sm_70, sm_80 at ISA 7.0, the host) uses the generic barrier.
//!
//! What the hardware does not do, and so this path does not either: a completion function (only
//! `init_in_place`, which has none, selects it), and detecting more arrivals in a phase than
//! expected. Such an excess arrival is **undefined** on the hardware (PTX: the pending count
//! must not go below zero; the simulator reports it as a fault): it is not an early completion
//! of the phase. The generic barrier detects it and panics (traps).

#![cfg(hardware_barrier)]

use core::arch::asm;

/// Where an `mbarrier` object is named: a generic address (`*const u64`, the `Barrier<Block>` of
/// `init_in_place`, found in shared memory at run time) or a shared-space address ([`Shared`],
/// the `SharedBarrier`, whose type says where it is: the `.shared` forms of the instructions,
/// as libcu++'s block barrier in `__shared__` memory).
pub(super) trait Object: Copy {
    /// Whether this is a shared-space address (the `.shared` forms).
    const SHARED: bool;
    /// The generic address (for `SHARED = false`).
    fn generic(self) -> *const u64;
    /// The shared-space address (for `SHARED = true`), in a 64-bit register as nvcc's: no
    /// conversion from the shared window's distance.
    fn shared(self) -> u64;
}

impl Object for *const u64 {
    const SHARED: bool = false;
    #[inline(always)]
    fn generic(self) -> *const u64 {
        self
    }
    #[inline(always)]
    fn shared(self) -> u64 {
        0
    }
}

/// The shared-space address of an `mbarrier` object.
#[derive(Clone, Copy)]
pub(super) struct Shared(pub(super) u64);

impl Object for Shared {
    const SHARED: bool = true;
    #[inline(always)]
    fn generic(self) -> *const u64 {
        core::ptr::null()
    }
    #[inline(always)]
    fn shared(self) -> u64 {
        self.0
    }
}

/// One `mbarrier` instruction on `object`: `$pre` + (`.shared` for a [`Shared`] object) +
/// `.b64` + `$post`, with the object as operand `{o}` (a generic or a shared-space address).
macro_rules! mbar {
    ($object:expr, $pre:literal, $post:literal, $($args:tt)*) => {
        if shared_form($object) {
            asm!(concat!($pre, ".shared.b64", $post), o = in(reg64) $object.shared(), $($args)*)
        } else {
            asm!(concat!($pre, ".b64", $post), o = in(reg64) $object.generic(), $($args)*)
        }
    };
}

/// Whether `object` takes the `.shared` forms (a constant for each type).
#[inline(always)]
const fn shared_form<O: Object>(_: O) -> bool {
    O::SHARED
}

/// The largest expected count an `mbarrier` takes (2²⁰ − 1).
pub(super) const MAX: u32 = (1 << 20) - 1;

/// Whether `p` is a generic address of block-shared memory (`isspacep.shared`).
#[inline(always)]
pub(super) fn is_shared<T>(p: *const T) -> bool {
    let shared: u32;
    // SAFETY: only classifies an address; touches no memory.
    unsafe {
        asm!(
            "{{ .reg .pred %s; isspacep.shared %s, {p}; selp.u32 {r}, 1, 0, %s; }}",
            p = in(reg64) p,
            r = out(reg32) shared,
            options(pure, nomem, nostack),
        )
    };
    shared != 0
}

/// `mbarrier.init`: an `mbarrier` expecting `count` arrivals per phase.
///
/// # Safety
/// `object` is 8-aligned block-shared memory that no other thread accesses until a block-wide
/// barrier (`sync_threads`) after this call.
#[inline(always)]
pub(super) unsafe fn init<O: Object>(object: O, count: u32) {
    // SAFETY: the caller's contract.
    unsafe { mbar!(object, "mbarrier.init", " [{o}], {c};", c = in(reg32) count, options(nostack)) }
}

/// `mbarrier.init` of a [`SharedBarrier`](crate::SharedBarrier) at the shared address `object`,
/// after a store of `count` into the word 8 bytes on (the barrier's phase word, not part of the
/// `mbarrier` object), which counts the participants left for [`count_out_or_trap`].
///
/// # Safety
/// As for [`init`].
#[inline(always)]
pub(super) unsafe fn init_counted(object: Shared, count: u32) {
    // SAFETY: the caller's contract; `[o+8]` is the barrier's phase word.
    unsafe {
        asm!(
            "st.shared.u32 [{o}+8], {c};",
            "mbarrier.init.shared.b64 [{o}], {c};",
            o = in(reg64) object.shared(),
            c = in(reg32) count,
            options(nostack),
        )
    }
}

/// Counts one participant out of the word 8 bytes after `object` (the barrier's phase word,
/// which holds `LAST - 1 + participants`), trapping if it held `LAST`: the drop of the last
/// participant, which would take the `mbarrier`'s expected count to 0 (undefined for
/// `mbarrier.arrive_drop`). One `atom`, one `setp` and a predicated `trap`.
///
/// # Safety
/// `object` is an initialised `mbarrier` in block-shared memory whose phase word follows it.
#[inline(always)]
pub(super) unsafe fn count_out_or_trap<O: Object, const LAST: u32>(object: O) {
    // SAFETY: the caller's contract: `[o+8]` is the barrier's phase word; `trap` aborts.
    unsafe {
        if O::SHARED {
            asm!(
                "{{ .reg .pred %t; .reg .b32 %left;",
                "atom.relaxed.cta.shared.add.u32 %left, [{o}+8], -1;",
                "setp.eq.u32 %t, %left, {last}; @%t trap; }}",
                o = in(reg64) object.shared(),
                last = const LAST,
                options(nostack),
            )
        } else {
            asm!(
                "{{ .reg .pred %t; .reg .b32 %left;",
                "atom.relaxed.cta.add.u32 %left, [{o}+8], -1;",
                "setp.eq.u32 %t, %left, {last}; @%t trap; }}",
                o = in(reg64) object.generic(),
                last = const LAST,
                options(nostack),
            )
        }
    }
}

/// The parity of the phase under way: 1 if odd. One `mbarrier.test_wait.parity` of the even
/// parity (true when the even phase just before an odd current one has ended) and a `selp`.
/// A read, not a write (`pure, readonly`): where the token is unused (a fire-and-forget
/// `let _ = b.arrive()`) the compiler drops it, and the arrival is the `mbarrier.arrive` alone.
/// It cannot move after the arrival, which writes the object.
///
/// Read by an arrival just before its `mbarrier.arrive`, it is the parity of the phase the
/// arrival lands in: that phase cannot end in between, as it still misses this arrival — the
/// generic barrier's token is likewise its phase word read before the arrival. Only more
/// arrivals than expected (other threads ending the phase without this one, which the generic
/// barrier reports as an excess arrival or a stale token) can end it in between; the token then
/// names an older phase, and its wait returns early or waits for a later phase of that parity
/// (possibly forever): a misuse, but defined PTX, where the state token's test was undefined.
///
/// # Safety
/// `object` is an initialised `mbarrier` in block-shared memory.
#[inline(always)]
unsafe fn current_parity<O: Object>(object: O) -> u32 {
    let odd: u32;
    // SAFETY: the caller's contract.
    unsafe {
        mbar!(
            object,
            "{{ .reg .pred %e; mbarrier.test_wait.parity",
            " %e, [{o}], 0; selp.u32 {r}, 1, 0, %e; }}",
            r = out(reg32) odd, options(pure, readonly, nostack)
        )
    };
    odd
}

/// `mbarrier.arrive` (release at CTA scope): one arrival; returns the parity of its phase
/// ([`current_parity`], read first), the token its waits test with the `.parity` forms.
///
/// # Why a parity and not the state
/// `mbarrier.arrive` returns a state token, but PTX defines `mbarrier.test_wait`/`try_wait` on
/// it only while it is of the current or the immediately preceding phase. Safe code can hold a
/// token longer: a thread that arrives twice before waiting on its first token, or 64 threads
/// sharing a barrier of 32, where the other threads can end two phases between an arrival and
/// its first test. The `.parity` forms are defined for either parity at any time (a parity
/// names the current phase or the one before), so an old token waits for the next end of a
/// phase of its parity instead of executing undefined PTX.
///
/// # Safety
/// `object` is an initialised `mbarrier` in block-shared memory.
#[cfg_attr(target_feature = "sm_90", allow(dead_code))] // sm_90 arrives with a count
#[inline(always)]
pub(super) unsafe fn arrive<O: Object>(object: O) -> u32 {
    // SAFETY: the caller's contract.
    unsafe {
        let parity = current_parity(object);
        arrive_once(object);
        parity
    }
}

/// One `mbarrier.arrive`, its state token unused.
///
/// # Safety
/// As for [`arrive`].
#[inline(always)]
unsafe fn arrive_once<O: Object>(object: O) {
    let _state: u64;
    // SAFETY: the caller's contract.
    unsafe {
        mbar!(object, "mbarrier.arrive", " {t}, [{o}];", t = out(reg64) _state, options(nostack))
    };
}

/// `n` arrivals (`1 <= n <= MAX`): one `mbarrier.arrive` with a count on sm_90; on sm_80 an
/// `mbarrier.arrive.noComplete` of `n - 1` and one `mbarrier.arrive`. Returns the parity of the
/// phase, read before the first ([`arrive`] says why a parity).
///
/// # Safety
/// As for [`arrive`], and `1 <= n <= MAX` (the hardware's range of an arrival count).
#[inline(always)]
pub(super) unsafe fn arrive_n<O: Object>(object: O, n: u32) -> u32 {
    #[cfg(target_feature = "sm_90")]
    {
        // SAFETY: the caller's contract.
        unsafe {
            let parity = current_parity(object);
            let _state: u64;
            mbar!(
                object,
                "mbarrier.arrive",
                " {t}, [{o}], {n};",
                t = out(reg64) _state, n = in(reg32) n, options(nostack)
            );
            parity
        }
    }
    #[cfg(not(target_feature = "sm_90"))]
    {
        // sm_80 has a count only on `mbarrier.arrive.noComplete`, which must not complete the
        // phase: `n - 1` arrivals with it, then the last one with a plain `mbarrier.arrive`
        // (as libcu++ does). In a correct program `n` is at most the arrivals still missing,
        // so `n - 1` leaves at least one.
        if n > 1 {
            // SAFETY: the caller's contract; `1 <= n - 1 < MAX`, and fewer than the arrivals
            // still missing in the phase (the caller's side of an arrival count).
            unsafe {
                let parity = current_parity(object);
                let _state: u64;
                mbar!(
                    object,
                    "mbarrier.arrive.noComplete",
                    " {t}, [{o}], {n};",
                    t = out(reg64) _state, n = in(reg32) n - 1, options(nostack)
                );
                arrive_once(object);
                return parity;
            }
        }
        // SAFETY: the caller's contract.
        unsafe { arrive(object) }
    }
}

/// `mbarrier.inval`: ends the life of the `mbarrier` object at `object`; its memory may then be
/// re-initialised or used for anything else.
///
/// # Safety
/// `object` is an initialised `mbarrier` in block-shared memory that no thread uses any more
/// (its last uses are ordered before this call, e.g. by `sync_threads`).
#[inline(always)]
pub(super) unsafe fn inval<O: Object>(object: O) {
    // SAFETY: the caller's contract.
    unsafe { mbar!(object, "mbarrier.inval", " [{o}];", options(nostack)) }
}

/// `mbarrier.arrive_drop`: an arrival that also lowers the expected count of later phases.
///
/// # Safety
/// As for [`arrive`], and the expected count is above 1 (PTX leaves a count of 0 undefined).
#[inline(always)]
pub(super) unsafe fn arrive_drop<O: Object>(object: O) {
    let _state: u64;
    // SAFETY: the caller's contract.
    unsafe {
        mbar!(object, "mbarrier.arrive_drop", " {t}, [{o}];", t = out(reg64) _state, options(nostack))
    };
}

/// A phase of an `mbarrier`, named by its parity: 0 for the even phases, 1 for the odd ones. It
/// names the current phase or the one just before it, whichever has that parity, so every
/// value is defined for the `.parity` waits at any time.
#[derive(Clone, Copy)]
pub(super) struct Phase(pub(super) u32);

impl Phase {
    /// The phase of parity `odd` (`false`: even, `true`: odd).
    #[inline(always)]
    pub(super) fn parity(odd: bool) -> Phase {
        Phase(u32::from(odd))
    }
}

/// `mbarrier.test_wait.parity` (acquire at CTA scope): whether `phase` has completed, without
/// waiting — whether the current phase's parity differs from it.
///
/// # Safety
/// As for [`arrive`].
#[cfg_attr(target_feature = "sm_90", allow(dead_code))] // sm_90 waits with `try_wait`
#[inline(always)]
pub(super) unsafe fn test<O: Object>(object: O, phase: Phase) -> bool {
    let done: u32;
    // SAFETY: the caller's contract.
    unsafe {
        mbar!(
            object,
            "{{ .reg .pred %d; mbarrier.test_wait.parity",
            " %d, [{o}], {p}; selp.u32 {r}, 1, 0, %d; }}",
            p = in(reg32) phase.0, r = out(reg32) done, options(nostack)
        )
    };
    done != 0
}

/// `mbarrier.try_wait.parity` (sm_90, acquire at CTA scope): whether `phase` has completed,
/// after the hardware suspended the thread for at most about `hint_ns` nanoseconds
/// (`suspendTimeHint`) waiting for it — or, with `None`, for a system-dependent time.
///
/// # Safety
/// As for [`arrive`].
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(super) unsafe fn try_wait<O: Object>(object: O, phase: Phase, hint_ns: Option<u32>) -> bool {
    let done: u32;
    // SAFETY: the caller's contract.
    unsafe {
        match hint_ns {
            None => mbar!(
                object,
                "{{ .reg .pred %d; mbarrier.try_wait.parity",
                " %d, [{o}], {p}; selp.u32 {r}, 1, 0, %d; }}",
                p = in(reg32) phase.0, r = out(reg32) done, options(nostack)
            ),
            Some(hint) => mbar!(
                object,
                "{{ .reg .pred %d; mbarrier.try_wait.parity",
                " %d, [{o}], {p}, {h}; selp.u32 {r}, 1, 0, %d; }}",
                p = in(reg32) phase.0, h = in(reg32) hint, r = out(reg32) done,
                options(nostack)
            ),
        }
    };
    done != 0
}

/// Whether `phase` has completed, waiting a little if the hardware can do so itself: one
/// `mbarrier.try_wait.parity` on sm_90 (as libcu++'s `try_wait`), one `mbarrier.test_wait.parity` on sm_80.
///
/// # Safety
/// As for [`test`].
#[inline(always)]
pub(super) unsafe fn try_once<O: Object>(object: O, phase: Phase) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        #[cfg(target_feature = "sm_90")]
        return try_wait(object, phase, None);
        #[cfg(not(target_feature = "sm_90"))]
        return test(object, phase);
    }
}

/// Waits until `phase` has completed (the blocking `wait` and `wait_parity`). On sm_90, a loop
/// on `mbarrier.try_wait.parity` without a time hint: the hardware suspends the thread until the
/// phase completes or a system-dependent time passes, so no back-off is needed (libcu++'s `wait`
/// on sm_90). The loop is inside the `asm` block, two instructions — the `try_wait` and a
/// branch back on its predicate — where a loop in Rust also turns the predicate into a register
/// and compares it (`selp`, `setp`). Its label is local to the block's braces, as PTX scopes
/// labels, so the block may be inlined any number of times. On sm_80,
/// `mbarrier.test_wait.parity` polled with the back-off of every device wait ([`super::wait`]:
/// [`POLLS`](super::wait::POLLS) checks without sleeping, then `nanosleep` from
/// [`SLEEP_MIN_NS`](super::wait::SLEEP_MIN_NS), doubling up to
/// [`SLEEP_MAX_NS`](super::wait::SLEEP_MAX_NS)), also inside the `asm` block: the test and its
/// branch out are two instructions, where a loop in Rust adds a `selp` and a `setp` to every
/// check.
///
/// # Safety
/// As for [`test`].
#[inline(always)]
pub(super) unsafe fn wait<O: Object>(object: O, phase: Phase) {
    #[cfg(target_feature = "sm_90")]
    {
        // SAFETY: the caller's contract; the loop ends when the phase has completed.
        // `named_asm_labels` guards against a label defined twice when the block is duplicated;
        // PTX scopes a label to its `{ }` block, so each copy has its own.
        #[allow(named_asm_labels)]
        unsafe {
            mbar!(
                object,
                "{{ .reg .pred %d; scoped_atomics_wait: mbarrier.try_wait.parity",
                " %d, [{o}], {p}; @!%d bra scoped_atomics_wait; }}",
                p = in(reg32) phase.0, options(nostack)
            )
        };
    }
    #[cfg(not(target_feature = "sm_90"))]
    {
        use super::wait::{POLLS, SLEEP_MAX_NS, SLEEP_MIN_NS};
        // SAFETY: the caller's contract; the loop ends when the phase has completed. Labels are
        // local to the block's braces (see the sm_90 form).
        #[allow(named_asm_labels)]
        unsafe {
            mbar!(
                object,
                "{{ .reg .pred %d, %s; .reg .b32 %i, %ns; mov.u32 %i, 0; mov.u32 %ns, {min}; \
                 scoped_atomics_poll: mbarrier.test_wait.parity",
                " %d, [{o}], {p}; @%d bra scoped_atomics_done; \
                 setp.lt.u32 %s, %i, {polls}; add.u32 %i, %i, 1; @%s bra scoped_atomics_poll; \
                 nanosleep.u32 %ns; shl.b32 %ns, %ns, 1; min.u32 %ns, %ns, {max}; \
                 bra scoped_atomics_poll; scoped_atomics_done: }}",
                p = in(reg32) phase.0,
                polls = const POLLS,
                min = const SLEEP_MIN_NS,
                max = const SLEEP_MAX_NS,
                options(nostack)
            )
        };
    }
}

/// Waits at most about `timeout` for `phase` to complete; `true` if it did. On sm_90, repeated
/// `mbarrier.try_wait.parity` with the time left as `suspendTimeHint` (the hardware suspends the thread
/// until the phase completes or the hint expires; as libcu++ does); on sm_80, `mbarrier.test_wait.parity`
/// polled with the back-off of every device wait, against `%globaltimer`.
///
/// # Safety
/// As for [`test`].
#[inline(always)]
pub(super) unsafe fn wait_for<O: Object>(
    object: O,
    phase: Phase,
    timeout: core::time::Duration,
) -> bool {
    #[cfg(target_feature = "sm_90")]
    {
        use super::wait::global_timer;
        // Saturating, in 64-bit arithmetic (`as_nanos` is a `u128`: multi-word adds).
        let ns = timeout
            .as_secs()
            .saturating_mul(1_000_000_000)
            .saturating_add(u64::from(timeout.subsec_nanos()));
        let start = global_timer();
        let end = start.saturating_add(ns);
        let mut now = start;
        loop {
            let hint = (end - now).min(u32::MAX as u64) as u32;
            // SAFETY: the caller's contract.
            if unsafe { try_wait(object, phase, Some(hint)) } {
                return true;
            }
            now = global_timer();
            if now >= end {
                return false;
            }
        }
    }
    #[cfg(not(target_feature = "sm_90"))]
    {
        let key = 0; // the device back end has no parking table: no key
        // SAFETY: the caller's contract.
        super::wait::Deadline::after(timeout).wait_until(key, || unsafe { test(object, phase) })
    }
}
