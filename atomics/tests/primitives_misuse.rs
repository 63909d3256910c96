//! Misuse of the synchronisation primitives panics with a message that names the mistake and the
//! numbers, at the caller's location (`#[track_caller]` all the way):
//!
//! `Barrier::new(0)` or above `max()`, `arrive_n(0)`, more arrivals in a phase than expected,
//! more drops than participants, `Latch::new` above `max()`, `Latch::count_down` past zero or
//! above `max()`, `CountingSemaphore::new(initial)` above `MAX`, `release(n)` beyond `MAX`.
//! Each case checks the whole message, and what the primitive looks like afterwards where that is
//! specified (a refused release leaves the count unchanged, a count-down past zero opens the
//! latch).

use scoped_atomics::{
    Atomic, Barrier, BinarySemaphore, Block, CountingSemaphore, Device, Latch, System,
};
use std::sync::atomic::Ordering;

mod common;

/// Runs `f`, which must panic with exactly `expected`, reported in this file.
#[track_caller]
fn assert_panics(expected: &str, f: impl FnOnce()) {
    let Some((message, file)) = common::panic_of(f) else {
        panic!("did not panic; expected {expected:?}");
    };
    assert_eq!(message, expected);
    assert!(
        file.as_deref()
            .is_some_and(|f| f.ends_with("primitives_misuse.rs")),
        "{expected:?} was reported at {file:?}, not at the caller"
    );
}

const MAX: u32 = (1 << 31) - 1;

// ---------------------------------------------------------------------------------------- barrier

#[test]
fn barrier_new_zero() {
    let msg = "Barrier::new: the expected count is 0; a barrier needs at least 1 arrival per phase";
    assert_panics(msg, || drop(Barrier::<Device>::new(0)));
    assert_panics(msg, || {
        drop(Barrier::<Device, _>::with_completion(0, || {}));
    });
}

#[test]
fn barrier_new_above_max() {
    assert_eq!(Barrier::<Block>::max(), MAX);
    assert_panics(
        "Barrier::new: the expected count 2147483648 is above Barrier::max() = 2147483647",
        || drop(Barrier::<Block>::new(MAX + 1)),
    );
    assert_panics(
        "Barrier::new: the expected count 4294967295 is above Barrier::max() = 2147483647",
        || drop(Barrier::<Block, _>::with_completion(u32::MAX, || {})),
    );
    // max() itself is fine.
    drop(Barrier::<System>::new(MAX));
}

#[test]
fn barrier_arrive_n_out_of_range() {
    let barrier = Barrier::<Device>::new(4);
    for n in [0, MAX + 1, u32::MAX] {
        assert_panics(
            &format!(
                "Barrier::arrive_n: cannot arrive {n} times; n must be between 1 and \
                 Barrier::max() = 2147483647"
            ),
            || drop(barrier.arrive_n(n)),
        );
    }
    // Nothing happened to the barrier.
    assert_eq!(
        format!("{barrier:?}"),
        "Barrier { phase: 0, missing: 4, expected: 4 }"
    );
}

#[test]
fn barrier_more_arrivals_than_expected() {
    let barrier = Barrier::<Device>::new(2);
    assert_panics(
        "Barrier: more arrivals in a phase than expected: 3 arrivals with 2 missing in phase 0 \
         (expected count 2)",
        || drop(barrier.arrive_n(3)),
    );

    let barrier = Barrier::<Device>::new(3);
    let _ = barrier.arrive_n(3); // phase 0 complete
    let _ = barrier.arrive_n(2); // phase 1: 1 missing
    assert_panics(
        "Barrier: more arrivals in a phase than expected: 2 arrivals with 1 missing in phase 1 \
         (expected count 3)",
        || drop(barrier.arrive_n(2)),
    );

    // All dropped out: the next phase expects nobody, and any arrival is one too many.
    let barrier = Barrier::<System>::new(1);
    barrier.arrive_and_drop();
    assert_panics(
        "Barrier: more arrivals in a phase than expected: 1 arrival with 0 missing in phase 1 \
         (expected count 0)",
        || drop(barrier.arrive()),
    );
}

/// The phase a waiter watches is untouched by an excess arrival: a waiter of the phase does not
/// return early.
#[test]
fn barrier_excess_arrival_does_not_release_waiters() {
    let barrier = Barrier::<Device>::new(2);
    let token = barrier.arrive();
    assert_panics(
        "Barrier: more arrivals in a phase than expected: 5 arrivals with 1 missing in phase 0 \
         (expected count 2)",
        || drop(barrier.arrive_n(5)),
    );
    assert!(format!("{barrier:?}").starts_with("Barrier { phase: 0,"));
    // The token's phase has not ended: waiting would block. (Not waited on here.)
    drop(token);
}

/// Issue 10, bug 4: a token two phases old whose arrival did not complete its phase is outside
/// the contract the hardware `mbarrier` can keep (`mbarrier.test_wait` knows the current and the
/// preceding phase only), so the generic barrier reports it rather than return.
#[test]
fn barrier_wait_on_a_stale_token() {
    assert_panics(
        "Barrier::wait: the token is of phase 0, but the barrier is in phase 2; a token may be \
         waited on only in its own phase or the next, unless its arrival completed its phase",
        || {
            let barrier = Barrier::<Block>::new(2);
            let stale = barrier.arrive(); // phase 0, not its last arrival
            let _ = barrier.arrive(); // completes phase 0
            let _ = barrier.arrive_n(2); // completes phase 1
            barrier.wait(stale);
        },
    );
}

/// The tokens the contract allows return at once: the arrival that completed its phase (however
/// old), and a token of the preceding phase.
#[test]
fn barrier_wait_on_tokens_within_the_contract_returns() {
    let one = Barrier::<Block>::new(1);
    let t0 = one.arrive(); // completes phase 0
    let t1 = one.arrive(); // completes phase 1
    one.wait(t0); // two phases old, but its own arrival completed it
    one.wait(t1);

    let two = Barrier::<Device>::new(2);
    let previous = two.arrive(); // phase 0
    let _ = two.arrive(); // completes phase 0: `previous` is of the preceding phase now
    two.wait(previous);
}

#[test]
fn barrier_more_drops_than_participants() {
    let barrier = Barrier::<Block>::new(1);
    barrier.arrive_and_drop();
    assert_panics(
        "Barrier::arrive_and_drop: more drops than participants: the expected count is already 0",
        || barrier.arrive_and_drop(),
    );
}

#[test]
fn barrier_arrive_and_wait_reports_at_caller() {
    let barrier = Barrier::<Device>::new(1);
    barrier.arrive_and_drop();
    assert_panics(
        "Barrier: more arrivals in a phase than expected: 1 arrival with 0 missing in phase 1 \
         (expected count 0)",
        || barrier.arrive_and_wait(),
    );
}

#[test]
#[should_panic(expected = "Barrier::new: the expected count is 0")]
fn barrier_new_zero_should_panic() {
    let _ = Barrier::<Device>::new(0);
}

// ------------------------------------------------------------------------------------------ latch

#[test]
fn latch_new_above_max() {
    assert_eq!(Latch::<Device>::max(), MAX);
    assert_panics(
        "Latch::new: the expected count 2147483648 is above Latch::max() = 2147483647",
        || drop(Latch::<Device>::new(MAX + 1)),
    );
    drop(Latch::<Device>::new(MAX));
}

#[test]
fn latch_count_down_past_zero() {
    let latch = Latch::<Device>::new(2);
    assert_panics(
        "Latch::count_down: count_down(3) past zero: the counter was 2",
        || latch.count_down(3),
    );
    // The latch went past zero, so it is open.
    assert!(latch.try_wait());
    latch.wait();

    let latch = Latch::<System>::new(1);
    latch.count_down(1);
    assert_panics(
        "Latch::count_down: count_down(1) past zero: the counter was 0",
        || latch.count_down(1),
    );
    // Counting down 0 from 0 is not a mistake.
    let open = Latch::<Block>::new(0);
    open.count_down(0);
    assert!(open.try_wait());

    let latch = Latch::<Device>::new(1);
    assert_panics(
        "Latch::count_down: count_down(2) past zero: the counter was 1",
        || latch.arrive_and_wait(2),
    );
}

#[test]
fn latch_count_down_above_max() {
    let latch = Latch::<Device>::new(5);
    assert_panics(
        "Latch::count_down: n = 4294967295 is above Latch::max() = 2147483647",
        || latch.count_down(u32::MAX),
    );
    // Nothing happened to the latch.
    assert_eq!(format!("{latch:?}"), "Latch { count: 5 }");
}

#[test]
#[should_panic(expected = "past zero")]
fn latch_count_down_past_zero_should_panic() {
    Latch::<Device>::new(0).count_down(1);
}

// -------------------------------------------------------------------------------------- semaphore

#[test]
fn semaphore_new_above_max() {
    assert_panics(
        "CountingSemaphore::new: the initial count 6 is above MAX = 5",
        || drop(CountingSemaphore::<Device, 5>::new(6)),
    );
    assert_panics(
        "CountingSemaphore::new: the initial count 2 is above MAX = 1",
        || drop(BinarySemaphore::<Block>::new(2)),
    );
    drop(CountingSemaphore::<Device, 5>::new(5));
}

#[test]
fn semaphore_release_beyond_max() {
    let s = CountingSemaphore::<Device, 5>::new(4);
    assert_panics(
        "CountingSemaphore::release: release(2) would raise the count from 4 to 6, above MAX = 5",
        || s.release(2),
    );
    // The count is unchanged.
    assert_eq!(format!("{s:?}"), "CountingSemaphore { count: 4, max: 5 }");
    s.release(1);

    let b = BinarySemaphore::<System>::new(1);
    assert_panics(
        "CountingSemaphore::release: release(1) would raise the count from 1 to 2, above MAX = 1",
        || b.release(1),
    );

    // The default MAX is u32::MAX; the sum is reported without wrapping.
    let big = CountingSemaphore::<Device>::new(u32::MAX);
    assert_panics(
        "CountingSemaphore::release: release(3) would raise the count from 4294967295 to \
         4294967298, above MAX = 4294967295",
        || big.release(3),
    );
}

#[test]
#[should_panic(expected = "above MAX = 1")]
fn binary_semaphore_double_release_should_panic() {
    let b = BinarySemaphore::<Device>::new(0);
    b.release(1);
    b.release(1);
}

// ------------------------------------------------------------------------------ wait and notify

/// `wait` takes a load ordering: `Release` and `AcqRel` panic with `core`'s messages.
#[test]
fn wait_with_a_store_ordering() {
    let a = Atomic::<u32, Device>::new(1);
    for (order, message) in [
        (
            Ordering::Release,
            "there is no such thing as a release load",
        ),
        (
            Ordering::AcqRel,
            "there is no such thing as an acquire-release load",
        ),
    ] {
        let (text, _) =
            common::panic_of(|| a.wait(0, order)).expect("wait with a store ordering must panic");
        assert_eq!(text, message);
    }
}

// ------------------------------------------------------------------- tokens and in-place counts

/// The address a token of `barrier` carries, as the messages print it.
fn address<T>(barrier: &T) -> usize {
    (barrier as *const T).addr()
}

/// The message of a token of the barrier at `owner` waited on at `barrier` by `name`.
fn foreign(name: &str, owner: usize, barrier: usize) -> String {
    format!(
        "{name}: the token was made by the barrier at address {owner}, not by this one at \
         address {barrier}; a token may be waited on only at the barrier it arrived at"
    )
}

/// Issue 29, item 2: a token is bound to the barrier it arrived at. Here `b` is a phase ahead of
/// the token's phase, so the old `wait` returned at once for `a`'s token (and on the device a
/// hardware token waited on at another barrier was `mbarrier.test_wait` of another object).
#[test]
fn barrier_wait_on_another_barriers_token() {
    let a = Barrier::<Device>::new(2);
    let b = Barrier::<Device>::new(1);
    b.arrive_and_wait(); // `b` is in phase 1
    let msg = foreign("Barrier::wait", address(&a), address(&b));
    assert_panics(&msg, || b.wait(a.arrive()));
    let msg = foreign("Barrier::try_wait", address(&a), address(&b));
    let token = a.arrive(); // completes `a`'s phase 0
    assert_panics(&msg, || {
        let _ = b.try_wait(&token);
    });
    let msg = foreign("Barrier::try_wait_for", address(&a), address(&b));
    assert_panics(&msg, || {
        let _ = b.try_wait_for(&token, std::time::Duration::from_millis(1));
    });
    a.wait(token); // its own barrier: fine
}

/// Issue 29, item 2: a `SharedBarrier`'s token waited on at a `Barrier<Device>` (on the device
/// the old code emitted `mbarrier.try_wait` on the global barrier).
#[test]
fn a_shared_barriers_token_at_a_device_barrier() {
    let mut place = core::mem::MaybeUninit::<scoped_atomics::SharedBarrier>::uninit();
    // SAFETY: `place` is valid and used by this thread only.
    unsafe { scoped_atomics::SharedBarrier::init_in_place(place.as_mut_ptr(), 2) };
    // SAFETY: initialised above.
    let shared = unsafe { place.assume_init_ref() };
    let device = Barrier::<Device>::new(2);
    let msg = foreign("Barrier::wait", address(shared), address(&device));
    assert_panics(&msg, || device.wait(shared.arrive()));
}

/// Issue 29, item 2: `init_in_place` takes what an `mbarrier` holds (2^20 - 1) on every target and
/// wherever the barrier is; the old code took up to 2^31 - 1 outside shared memory and on the
/// host, while `max()` said 2^20 - 1 on sm_80+.
#[test]
fn barrier_init_in_place_takes_what_an_mbarrier_holds() {
    let mut place = core::mem::MaybeUninit::<Barrier<Block>>::uninit();
    assert_panics(
        "Barrier::init_in_place: the expected count 1048576 is not between 1 and 2^20 - 1 = \
         1048575, what a hardware barrier (mbarrier) holds",
        // SAFETY: `place` is valid and used by this thread only.
        || unsafe { Barrier::init_in_place(place.as_mut_ptr(), 1 << 20) },
    );
    // SAFETY: as above.
    unsafe { Barrier::init_in_place(place.as_mut_ptr(), (1 << 20) - 1) };
    assert_eq!(Barrier::<Block>::max(), MAX); // what `new` takes
}
