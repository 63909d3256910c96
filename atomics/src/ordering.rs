//! Ordering checks and arithmetic shared by the backends.
//!
//! The panic messages are those of `core::sync::atomic`, word for word, so that code moved from
//! `std` to this crate fails the same way. The host backend over `core` needs none of these
//! checks (core performs them); the PTX and loom backends call them.

// The plain host backend leaves the checks to `core`; only the PTX and loom backends call them.
#![cfg_attr(not(any(loom, target_arch = "nvptx64")), allow(dead_code))]

use core::sync::atomic::Ordering::{self, AcqRel, Acquire, Relaxed, Release, SeqCst};

#[cold]
#[track_caller]
fn invalid(message: &'static str) -> ! {
    panic!("{}", message)
}

/// Panics as `core` does for an ordering a load cannot have.
#[inline(always)]
#[track_caller]
pub(crate) fn check_load(order: Ordering) {
    match order {
        Release => invalid("there is no such thing as a release load"),
        AcqRel => invalid("there is no such thing as an acquire-release load"),
        _ => {}
    }
}

/// Panics as `core` does for an ordering a store cannot have.
#[inline(always)]
#[track_caller]
pub(crate) fn check_store(order: Ordering) {
    match order {
        Acquire => invalid("there is no such thing as an acquire store"),
        AcqRel => invalid("there is no such thing as an acquire-release store"),
        _ => {}
    }
}

/// Panics as `core` does for a compare-exchange failure ordering that cannot be.
#[inline(always)]
#[track_caller]
pub(crate) fn check_failure(failure: Ordering) {
    match failure {
        AcqRel => invalid("there is no such thing as an acquire-release failure ordering"),
        Release => invalid("there is no such thing as a release failure ordering"),
        _ => {}
    }
}

/// Panics as `core` does for a relaxed fence.
#[inline(always)]
#[track_caller]
pub(crate) fn check_fence(order: Ordering) {
    if let Relaxed = order {
        invalid("there is no such thing as a relaxed fence")
    }
}

/// Panics for an ordering a reduction (`red`) cannot have: a reduction's read forms no acquire
/// pattern (PTX ISA 8.8), so only `Relaxed` and `Release` make sense.
#[inline(always)]
#[track_caller]
pub(crate) fn check_reduction(order: Ordering) {
    match order {
        Acquire => invalid("there is no such thing as an acquire reduction"),
        AcqRel => invalid("there is no such thing as an acquire-release reduction"),
        SeqCst => invalid("there is no such thing as a sequentially consistent reduction"),
        _ => {}
    }
}

/// The ordering of a read-modify-write that must cover both the success and the failure ordering
/// of a compare-exchange: the weakest ordering at least as strong as both. Strengthening is always
/// allowed (the note at the head of the PTX Atomics ABI).
#[inline(always)]
pub(crate) const fn cas_order(success: Ordering, failure: Ordering) -> Ordering {
    match (success, failure) {
        (SeqCst, _) | (_, SeqCst) => SeqCst,
        (AcqRel, _) | (Release, Acquire) => AcqRel,
        (Relaxed, Acquire) => Acquire,
        (order, _) => order,
    }
}

/// The strongest failure ordering a compare-exchange with `success` may have, used by the
/// compare-exchange loops that emulate read-modify-writes on the host.
#[cfg(not(any(target_arch = "nvptx64", loom)))]
#[inline(always)]
pub(crate) const fn failure_order(success: Ordering) -> Ordering {
    match success {
        Release | Relaxed => Relaxed,
        Acquire | AcqRel => Acquire,
        _ => SeqCst,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Ordering; 5] = [Relaxed, Release, Acquire, AcqRel, SeqCst];

    /// (acquires, releases).
    fn rank(order: Ordering) -> (bool, bool) {
        (
            matches!(order, Acquire | AcqRel | SeqCst),
            matches!(order, Release | AcqRel | SeqCst),
        )
    }

    #[test]
    fn cas_order_covers_both_and_is_minimal() {
        for success in ALL {
            for failure in [Relaxed, Acquire, SeqCst] {
                let joined = cas_order(success, failure);
                let seq = success == SeqCst || failure == SeqCst;
                assert_eq!(
                    joined == SeqCst,
                    seq,
                    "{success:?}/{failure:?} -> {joined:?}"
                );
                if !seq {
                    let (sa, sr) = rank(success);
                    let (fa, _) = rank(failure);
                    assert_eq!(
                        rank(joined),
                        (sa || fa, sr),
                        "{success:?}/{failure:?} -> {joined:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn failure_order_is_valid_and_no_stronger_than_success() {
        for success in ALL {
            let failure = failure_order(success);
            assert!(!matches!(failure, Release | AcqRel));
            assert_eq!(cas_order(success, failure), success);
        }
    }
}
