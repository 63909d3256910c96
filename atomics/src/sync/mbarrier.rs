//! The hardware barrier of sm_80 and newer (`mbarrier`), for a `Barrier<Block>` in shared memory.
//!
//! A `Barrier<Block>` initialised with [`Barrier::init_in_place`](super::Barrier::init_in_place)
//! in block-shared memory on sm_80+ keeps an `mbarrier` object in its state word (8 bytes,
//! 8-aligned) and `MBARRIER | expected` (bit 31) in its phase word. Its operations are then one
//! instruction each: `mbarrier.arrive` (release at CTA scope), `mbarrier.test_wait` /
//! `mbarrier.try_wait` (acquire at CTA scope), `mbarrier.arrive_drop`; the token is the
//! `mbarrier` state of the arrival, and `Barrier::invalidate_in_place` is `mbarrier.inval`. An
//! arrival is the `mbarrier.arrive` alone: tokens are tested only by the waits, as libcu++ does,
//! because PTX defines a test only on a token of the current or the preceding phase, which a
//! token held by a waiter is (the contract of `Barrier::wait`), while right after an arrival the
//! barrier may already be two phases on (see [`arrive_n`]). The blocking waits loop on
//! `mbarrier.try_wait` (`.parity`) on sm_90, whose hardware suspend does the waiting (as
//! libcu++'s), and poll `mbarrier.test_wait` with the back-off of every device wait on sm_80; the
//! waits that give up (`try_wait`, the timed and the parity waits; `barrier_wait.rs`) are
//! `mbarrier.test_wait` (`.parity`) on sm_80 and `mbarrier.try_wait` (`.parity`, with a
//! `suspendTimeHint` for the timed forms) on sm_90. Between `mbarrier.init` and `mbarrier.inval`
//! nothing else touches the object. Everything else (other scopes, global memory, sm_70, the
//! host) uses the generic barrier.
//!
//! What the hardware does not do, and so this path does not either: a completion function (only
//! `init_in_place`, which has none, selects it), and detecting more arrivals in a phase than
//! expected. Such an excess arrival is **undefined** on the hardware (PTX: the pending count
//! must not go below zero; the simulator reports it as a fault): it is not an early completion
//! of the phase. The generic barrier detects it and panics (traps).
//!
//! Nor does this path check a token's age: a wait on a token two or more phases old (safe code
//! can hold one while the other threads complete two phases) runs `mbarrier.test_wait` /
//! `try_wait` on it, which PTX leaves undefined (the simulator reports it; the generic barrier
//! panics or traps). Closing it would take a phase the device can compare, and there is none
//! for free: the state token's encoding is unspecified, and the hardware completes phases
//! itself, so software keeps no phase count. The `.parity` waits are defined for any parity (a
//! stale token's parity would wait for the current phase instead), but they need PTX ISA 7.1
//! (an sm_80 build is 7.0), and reading the phase's parity before each arrival is two more
//! instructions per arrival (`mbarrier.test_wait.parity` and a `selp`), over the cost budget of
//! `SharedBarrier`, whose arrival was one instruction.

#![cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]

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

/// `mbarrier.arrive` (release at CTA scope): one arrival; returns the state token of the phase.
///
/// # Safety
/// `object` is an initialised `mbarrier` in block-shared memory.
#[cfg_attr(target_feature = "sm_90", allow(dead_code))] // sm_90 arrives with a count
#[inline(always)]
pub(super) unsafe fn arrive<O: Object>(object: O) -> u64 {
    let token: u64;
    // SAFETY: the caller's contract.
    unsafe {
        mbar!(object, "mbarrier.arrive", " {t}, [{o}];", t = out(reg64) token, options(nostack))
    };
    token
}

/// `n` arrivals (`1 <= n <= MAX`): one `mbarrier.arrive` with a count on sm_90; on sm_80 an
/// `mbarrier.arrive.noComplete` of `n - 1` and one `mbarrier.arrive`. Returns the state token
/// of the last `mbarrier.arrive`.
///
/// # Why nothing tests the token here
/// The PTX ISA defines `mbarrier.test_wait`/`try_wait` only on a token of the current phase or
/// of the one just before it. Right after an arrival that need not hold: the documented contract
/// of `Barrier` lets phases complete without this thread (64 threads sharing a barrier of 32,
/// one warp arriving without waiting, say), so between the arrive and a test the other threads
/// can finish the next phase too. A waiter's token is of the current or the preceding phase by
/// `wait`'s contract, as in libcu++, which also tests tokens only in its waits.
///
/// # Safety
/// As for [`arrive`], and `1 <= n <= MAX` (the hardware's range of an arrival count).
#[inline(always)]
pub(super) unsafe fn arrive_n<O: Object>(object: O, n: u32) -> u64 {
    #[cfg(target_feature = "sm_90")]
    {
        let token: u64;
        // SAFETY: the caller's contract.
        unsafe {
            mbar!(
                object,
                "mbarrier.arrive",
                " {t}, [{o}], {n};",
                t = out(reg64) token, n = in(reg32) n, options(nostack)
            )
        };
        token
    }
    #[cfg(not(target_feature = "sm_90"))]
    {
        // sm_80 has a count only on `mbarrier.arrive.noComplete`, which must not complete the
        // phase: `n - 1` arrivals with it, then the last one with a plain `mbarrier.arrive`
        // (as libcu++ does). In a correct program `n` is at most the arrivals still missing,
        // so `n - 1` leaves at least one.
        if n > 1 {
            let _state: u64;
            // SAFETY: the caller's contract; `1 <= n - 1 < MAX`, and fewer than the arrivals
            // still missing in the phase (the caller's side of an arrival count).
            unsafe {
                mbar!(
                    object,
                    "mbarrier.arrive.noComplete",
                    " {t}, [{o}], {n};",
                    t = out(reg64) _state, n = in(reg32) n - 1, options(nostack)
                )
            };
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
/// As for [`arrive`].
#[inline(always)]
pub(super) unsafe fn arrive_drop<O: Object>(object: O) -> u64 {
    let token: u64;
    // SAFETY: the caller's contract.
    unsafe {
        mbar!(object, "mbarrier.arrive_drop", " {t}, [{o}];", t = out(reg64) token, options(nostack))
    };
    token
}

/// `mbarrier.test_wait` (acquire at CTA scope): whether the phase of `token` has completed.
///
/// # Safety
/// As for [`arrive`].
#[inline(always)]
pub(super) unsafe fn test_wait<O: Object>(object: O, token: u64) -> bool {
    let done: u32;
    // SAFETY: the caller's contract.
    unsafe {
        mbar!(
            object,
            "{{ .reg .pred %d; mbarrier.test_wait",
            " %d, [{o}], {t}; selp.u32 {r}, 1, 0, %d; }}",
            t = in(reg64) token, r = out(reg32) done, options(nostack)
        )
    };
    done != 0
}

/// `mbarrier.test_wait.parity` (acquire at CTA scope; PTX ISA 7.1): whether the phase of parity
/// `odd` — the current phase or the one just before it — has completed; that is, whether the
/// current phase's parity differs from `odd`.
///
/// # Safety
/// As for [`arrive`].
#[cfg(ptx_isa_at_least = "71")]
#[inline(always)]
pub(super) unsafe fn test_wait_parity<O: Object>(object: O, odd: bool) -> bool {
    let done: u32;
    // SAFETY: the caller's contract.
    unsafe {
        mbar!(
            object,
            "{{ .reg .pred %d; mbarrier.test_wait.parity",
            " %d, [{o}], {p}; selp.u32 {r}, 1, 0, %d; }}",
            p = in(reg32) u32::from(odd), r = out(reg32) done, options(nostack)
        )
    };
    done != 0
}

/// What a wait waits for: the phase of a state token, or the phase of a parity.
#[derive(Clone, Copy)]
pub(super) enum Phase {
    /// The phase of an `mbarrier` state token (current or preceding).
    Token(u64),
    /// The current or preceding phase whose parity is odd (`true`) or even (`false`); the
    /// `.parity` forms need PTX ISA 7.1 (sm_90 implies 7.8).
    #[cfg(ptx_isa_at_least = "71")]
    Parity(bool),
}

/// `mbarrier.test_wait` or `mbarrier.test_wait.parity`: whether `phase` has completed, without
/// waiting.
///
/// # Safety
/// As for [`arrive`], and a token of `phase` is of the current or the preceding phase.
#[inline(always)]
pub(super) unsafe fn test<O: Object>(object: O, phase: Phase) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        match phase {
            Phase::Token(token) => test_wait(object, token),
            #[cfg(ptx_isa_at_least = "71")]
            Phase::Parity(odd) => test_wait_parity(object, odd),
        }
    }
}

/// `mbarrier.try_wait` / `mbarrier.try_wait.parity` (sm_90, acquire at CTA scope): whether
/// `phase` has completed, after the hardware suspended the thread for at most about `hint_ns`
/// nanoseconds (`suspendTimeHint`) waiting for it — or, with `None`, for a system-dependent time.
///
/// # Safety
/// As for [`test`].
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(super) unsafe fn try_wait<O: Object>(object: O, phase: Phase, hint_ns: Option<u32>) -> bool {
    let done: u32;
    // SAFETY: the caller's contract.
    unsafe {
        match (phase, hint_ns) {
            (Phase::Token(token), None) => mbar!(
                object,
                "{{ .reg .pred %d; mbarrier.try_wait",
                " %d, [{o}], {t}; selp.u32 {r}, 1, 0, %d; }}",
                t = in(reg64) token, r = out(reg32) done, options(nostack)
            ),
            (Phase::Token(token), Some(hint)) => mbar!(
                object,
                "{{ .reg .pred %d; mbarrier.try_wait",
                " %d, [{o}], {t}, {h}; selp.u32 {r}, 1, 0, %d; }}",
                t = in(reg64) token, h = in(reg32) hint, r = out(reg32) done, options(nostack)
            ),
            (Phase::Parity(odd), None) => mbar!(
                object,
                "{{ .reg .pred %d; mbarrier.try_wait.parity",
                " %d, [{o}], {p}; selp.u32 {r}, 1, 0, %d; }}",
                p = in(reg32) u32::from(odd), r = out(reg32) done, options(nostack)
            ),
            (Phase::Parity(odd), Some(hint)) => mbar!(
                object,
                "{{ .reg .pred %d; mbarrier.try_wait.parity",
                " %d, [{o}], {p}, {h}; selp.u32 {r}, 1, 0, %d; }}",
                p = in(reg32) u32::from(odd), h = in(reg32) hint, r = out(reg32) done,
                options(nostack)
            ),
        }
    };
    done != 0
}

/// Whether `phase` has completed, waiting a little if the hardware can do so itself: one
/// `mbarrier.try_wait` on sm_90 (as libcu++'s `try_wait`), one `mbarrier.test_wait` on sm_80.
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
/// on `mbarrier.try_wait` without a time hint: the hardware suspends the thread until the phase
/// completes or a system-dependent time passes, so no back-off is needed (libcu++'s `wait` on
/// sm_90). On sm_80, `mbarrier.test_wait` polled with the back-off of every device wait.
///
/// # Safety
/// As for [`test`].
#[inline(always)]
pub(super) unsafe fn wait<O: Object>(object: O, phase: Phase) {
    #[cfg(target_feature = "sm_90")]
    {
        // SAFETY: the caller's contract.
        while !unsafe { try_wait(object, phase, None) } {}
    }
    #[cfg(not(target_feature = "sm_90"))]
    {
        // SAFETY: the caller's contract.
        super::wait::wait_until(0, || unsafe { test(object, phase) });
    }
}

/// Waits at most about `timeout` for `phase` to complete; `true` if it did. On sm_90, repeated
/// `mbarrier.try_wait` with the time left as `suspendTimeHint` (the hardware suspends the thread
/// until the phase completes or the hint expires; as libcu++ does); on sm_80, `mbarrier.test_wait`
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
