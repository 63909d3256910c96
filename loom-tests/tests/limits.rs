//! What loom and the mirror do not model, each limit shown by a test (the crate docs list them).
//!
//! A test here passes when the limit is as documented: an outcome the GPU allows that loom never
//! produces is asserted absent, a bug the mirror does not catch is asserted to pass. If one of
//! them starts failing, loom or the mirror has changed: update the docs with the test.
#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{Heap, Plain, assert_outcomes, expect_failure, model, outcomes, spin_until};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{Atomic, AtomicRef, Block, Device, Ordering::*, System, fence};

const B0: Position = Position::gpu(0, 0);
const B1: Position = Position::gpu(0, 1);

type Sys = Arc<Atomic<u32, System>>;

fn sys() -> Sys {
    Arc::new(Atomic::<u32, System>::new(0))
}

// ---------------------------------------------------------------------------------------------
// loom

/// loom has no load buffering. The classic LB (`r0 = x; y = 1 || r1 = y; x = 1`, all relaxed)
/// may end with r0 == r1 == 1 on a GPU (nothing in the PTX axioms forbids it: there is no value
/// dependency, so no thin air) and in C++; loom executes each load before the store that follows
/// it in program order, so (1, 1) never appears. The other three outcomes do.
#[test]
fn loom_has_no_load_buffering() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let (x, y) = (sys(), sys());
        let side = |load: Sys, store: Sys| {
            move || {
                let r = load.load(Relaxed);
                store.store(1, Relaxed);
                r
            }
        };
        let a = spawn_in(B0, side(x.clone(), y.clone()));
        let b = spawn_in(B1, side(y.clone(), x.clone()));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_outcomes(
        "LB constant stores (r0, r1)",
        &seen,
        &[(0, 0), (0, 1), (1, 0)],
    );
}

/// loom treats `SeqCst` accesses like `AcqRel` (loom issue 180): SB with `SeqCst` stores and
/// loads on loom's own atomics produces (0, 0), which C++ forbids.
#[test]
fn loom_seqcst_accesses_are_only_acqrel() {
    let seen = outcomes(|| {
        use loom::sync::atomic::AtomicU32;
        let x = Arc::new(AtomicU32::new(0));
        let y = Arc::new(AtomicU32::new(0));
        let side = |mine: Arc<AtomicU32>, theirs: Arc<AtomicU32>| {
            move || {
                mine.store(1, SeqCst);
                theirs.load(SeqCst)
            }
        };
        let a = loom::thread::spawn(side(x.clone(), y.clone()));
        let b = loom::thread::spawn(side(y.clone(), x.clone()));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert!(
        seen.contains(&(0, 0)),
        "loom issue 180 seems fixed: SB with SeqCst accesses no longer gives (0, 0): {seen:?}"
    );
}

/// The mirror maps every `SeqCst` access as the device does (a `SeqCst` fence, then an acquire
/// load / relaxed store), and loom's `SeqCst` fences are sound: through `scoped_atomics`, SB
/// with `SeqCst` accesses never gives (0, 0).
#[test]
fn mirror_seqcst_accesses_are_fences_plus_accesses() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let (x, y) = (sys(), sys());
        let side = |mine: Sys, theirs: Sys| {
            move || {
                mine.store(1, SeqCst);
                theirs.load(SeqCst)
            }
        };
        let a = spawn_in(B0, side(x.clone(), y.clone()));
        let b = spawn_in(B1, side(y.clone(), x.clone()));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_outcomes(
        "SB SeqCst accesses (r0, r1)",
        &seen,
        &[(0, 1), (1, 0), (1, 1)],
    );
}

/// IRIW (independent reads of independent writes), threads of four blocks: two writers (the
/// model's own thread writes x, keeping loom's thread count and the search small) and two readers
/// that read x and y in opposite orders. `reads` is the readers' load ordering. Outcome: (x, y)
/// as read by the first reader, (y, x) as read by the second.
fn iriw(reads: scoped_atomics::Ordering) -> std::collections::BTreeSet<(u32, u32, u32, u32)> {
    outcomes(move || {
        set_position(Position::gpu(0, 0));
        let (x, y) = (sys(), sys());
        let reader = |first: Sys, second: Sys| move || (first.load(reads), second.load(reads));
        let w2 = {
            let y = y.clone();
            spawn_in(Position::gpu(0, 1), move || y.store(1, SeqCst))
        };
        let r1 = spawn_in(Position::gpu(0, 2), reader(x.clone(), y.clone()));
        let r2 = spawn_in(Position::gpu(0, 3), reader(y.clone(), x.clone()));
        x.store(1, SeqCst);
        w2.join().unwrap();
        let ((a, b), (c, d)) = (r1.join().unwrap(), r2.join().unwrap());
        (a, b, c, d)
    })
}

/// Every (r1.x, r1.y, r2.y, r2.x) in {0, 1}^4 except, optionally, (1, 0, 1, 0).
fn iriw_outcomes(without_disagreement: bool) -> Vec<(u32, u32, u32, u32)> {
    (0..16u32)
        .map(|i| (i >> 3 & 1, i >> 2 & 1, i >> 1 & 1, i & 1))
        .filter(|&o| !(without_disagreement && o == (1, 0, 1, 0)))
        .collect()
}

/// IRIW with `SeqCst` everywhere: the readers must agree on the order of the two writes, so
/// (1, 0, 1, 0) — the first reader sees x before y, the second y before x — is forbidden. The
/// mirror's mapping (each `SeqCst` load is `fence.sc; ld.acquire`) forbids it in loom; the other
/// fifteen outcomes appear.
#[test]
fn iriw_seqcst_readers_agree() {
    let seen = iriw(SeqCst);
    assert_outcomes("IRIW SeqCst", &seen, &iriw_outcomes(true));
}

/// IRIW with acquire loads: nothing makes the readers agree, and loom produces all sixteen
/// outcomes, (1, 0, 1, 0) included.
#[test]
fn iriw_acquire_readers_may_disagree() {
    let seen = iriw(Acquire);
    assert_outcomes("IRIW Acquire", &seen, &iriw_outcomes(false));
}

/// At most 5 threads per model, the model's own included (loom's `MAX_THREADS`): a sixth
/// position panics.
#[test]
#[should_panic(expected = "at most 5 threads per model")]
fn a_sixth_thread_panics() {
    model(|| {
        set_position(Position::host());
        let hs: Vec<_> = (0..5)
            .map(|b| spawn_in(Position::gpu(0, b), || ()))
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
    });
}

/// loom orders a plain store after another thread's read-modify-write only if the storing
/// thread has seen it: in a test-and-test-and-set lock unlocked with a plain store, the waiter
/// may read its own failed `swap(true)` forever, and loom gives up ("exceeded maximum number of
/// branches"). The spin lock of `scope_pairs` therefore unlocks with a `swap`.
#[test]
fn loom_spin_after_foreign_rmw_never_ends() {
    let failure = expect_failure(|| {
        set_position(Position::host());
        let lock = Arc::new(Atomic::<bool, Device>::new(false));
        let hs: Vec<_> = [B0, B1]
            .into_iter()
            .map(|p| {
                let lock = lock.clone();
                spawn_in(p, move || {
                    while lock.swap(true, Acquire) {
                        spin_until(|| !lock.load(Relaxed));
                    }
                    lock.store(false, Release);
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
    });
    assert!(
        failure.message.contains("maximum number of branches"),
        "{}",
        failure.message
    );
}

// ---------------------------------------------------------------------------------------------
// The mirror (the limits listed in `atomics/src/imp/mirror/mod.rs`, and two more)

/// A release fence counts with the widest scope of the release fences its thread has executed:
/// data written after a device-scope fence and published through a later block-scope fence is
/// not caught. On a GPU the release pattern is `fence.cta; st.relaxed flag`, which does not
/// include block 1, and the device fence comes before the data write, so the data races; the
/// mirror passes it.
#[test]
fn release_fence_scope_is_the_widest_so_far() {
    model(|| {
        set_position(Position::host());
        let data = Arc::new(Plain::new(0u32));
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let w = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(B0, move || {
                fence::<Device>(Release);
                data.set(42);
                fence::<Block>(Release);
                flag.store(1, Relaxed);
            })
        };
        let r = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(B1, move || {
                if flag.load(Relaxed) == 1 {
                    fence::<Device>(Acquire);
                    assert_eq!(data.get(), 42);
                }
            })
        };
        w.join().unwrap();
        r.join().unwrap();
    });
}

/// Block 0 stores to a block-scope atomic, then signals the model's thread through a relaxed
/// (unsynchronising) system-scope flag; block 1 loads the atomic at device scope. The two
/// operations are not morally strong and nothing orders them: a scope race. `spawn_late`:
/// the model's thread spawns block 1 only after it has seen the signal.
fn late_reader(spawn_late: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let value = Arc::new(Atomic::<u32, Block>::new(0));
        let signal = sys();
        let reader = {
            let value = value.clone();
            let signal = signal.clone();
            move || {
                if !spawn_late {
                    spin_until(|| signal.load(Relaxed) == 1);
                }
                value.with_scope::<Device>().load(Relaxed)
            }
        };
        let early = (!spawn_late).then(|| spawn_in(B1, reader.clone()));
        let w = {
            let (value, signal) = (value.clone(), signal.clone());
            spawn_in(B0, move || {
                value.store(1, Relaxed);
                signal.store(1, Relaxed);
            })
        };
        let r = early.unwrap_or_else(|| {
            spin_until(|| signal.load(Relaxed) == 1);
            spawn_in(B1, reader)
        });
        w.join().unwrap();
        r.join().unwrap();
    }
}

/// A thread spawned after another thread's operation is not checked against that operation's
/// scope: the block-scope store ran before block 1 existed, so it did not mark block 1 as
/// outside its scope, and block 1's device-scope load (whose scope includes block 0) marks
/// nothing either. Missed precisely when the earlier operation's scope excludes the late thread
/// and the late operation's scope includes the earlier thread.
#[test]
fn thread_spawned_after_the_operation_is_not_checked() {
    model(late_reader(true));
}

/// The same program with block 1 spawned first (waiting for the same signal) is reported.
#[test]
#[should_panic(expected = "scope race")]
fn thread_spawned_before_the_operation_is_checked() {
    model(late_reader(false));
}

/// The scoped fence rule is checked wherever an acquire fence follows a relaxed read of a write
/// released by a fence that does not include the reader, even if nothing depends on the
/// synchronisation. Here block 1 reads a statistics counter, which block 0 bumped after a
/// block-scope release fence meant for its own block, and then acquires unrelated data from a
/// thread of its own block: a correct program (every access to the counter is a morally strong
/// device-scope atomic), reported as a scope race. An over-approximation: loom's fences have no
/// scope, so the mirror cannot leave the synchronisation out and must report it.
#[test]
#[should_panic(expected = "release fence of block scope")]
fn fence_rule_is_checked_even_when_nothing_depends_on_it() {
    model(|| {
        set_position(Position::host());
        let stats = Arc::new(Atomic::<u32, Device>::new(0));
        let data = Arc::new(Plain::new(0u32));
        let ready = Arc::new(Atomic::<u32, Block>::new(0));
        let counter = {
            let stats = stats.clone();
            spawn_in(B0, move || {
                fence::<Block>(Release);
                stats.fetch_add(1, Relaxed);
            })
        };
        let mate = {
            let (data, ready) = (data.clone(), ready.clone());
            spawn_in(B1.thread(1), move || {
                data.set(7);
                ready.store(1, Relaxed);
                fence::<Block>(Release);
                ready.store(2, Relaxed);
            })
        };
        let reader = {
            let (stats, data, ready) = (stats.clone(), data.clone(), ready.clone());
            spawn_in(B1, move || {
                let _seen = stats.load(Relaxed);
                if ready.load(Relaxed) == 2 {
                    fence::<Block>(Acquire);
                    assert_eq!(data.get(), 7);
                }
            })
        };
        counter.join().unwrap();
        mate.join().unwrap();
        reader.join().unwrap();
    });
}

/// A check the mirror does make: a location viewed with two sizes (a mixed-size access, for
/// which the PTX model gives no guarantees) panics.
#[test]
#[should_panic(expected = "mixed-size access")]
fn mixed_size_views_panic() {
    model(|| {
        set_position(B0);
        let mut word = 0u64;
        let wide = &mut word as *mut u64;
        // SAFETY: `word` lives for both views; each is used only within this block.
        unsafe {
            AtomicRef::<u64, Device>::from_ptr(wide).store(1, Relaxed);
            AtomicRef::<u32, Device>::from_ptr(wide.cast::<u32>()).store(2, Relaxed);
        }
    });
}

/// `fence::<Block>(SeqCst)` in two different blocks: the two `fence.sc.cta` are not morally
/// strong, so the Fence-SC order does not relate them and SB's (0, 0) is allowed on a GPU. loom's
/// `SeqCst` fences have no scope: (0, 0) never appears. A program that relies on such fences is therefore not
/// reported: a limit of the mirror.
#[test]
fn block_scope_seqcst_fences_order_other_blocks_in_loom() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let (x, y) = (sys(), sys());
        let side = |mine: Sys, theirs: Sys| {
            move || {
                mine.store(1, Relaxed);
                fence::<Block>(SeqCst);
                theirs.load(Relaxed)
            }
        };
        let a = spawn_in(B0, side(x.clone(), y.clone()));
        let b = spawn_in(B1, side(y.clone(), x.clone()));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_outcomes(
        "SB fence.sc.cta across blocks (r0, r1)",
        &seen,
        &[(0, 1), (1, 0), (1, 1)],
    );
}

// ---------------------------------------------------------------------------------------------
// Model choices: where the mirror follows the language's contract (the C++20 model that
// `core::sync::atomic` promises) rather than PTX's stronger patterns, or checks less than PTX

/// Block 0 writes `data` plainly, stores 1 to `flag` with `Release` and then 2 with `Relaxed`
/// (`later_rmw`: adds 1 with a relaxed `fetch_add` instead); block 1 reads the data if its acquire
/// load of `flag` returns 2.
fn release_then_later_write(later_rmw: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let data = Heap::new(0u32);
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let writer = {
            let flag = flag.clone();
            spawn_in(B0, move || {
                data.write(42);
                flag.store(1, Release);
                if later_rmw {
                    flag.fetch_add(1, Relaxed);
                } else {
                    flag.store(2, Relaxed);
                }
            })
        };
        let reader = spawn_in(B1, move || {
            if flag.load(Acquire) == 2 {
                assert_eq!(data.read(), 42);
            }
        });
        writer.join().unwrap();
        reader.join().unwrap();
        // SAFETY: both threads are joined.
        unsafe { data.free() };
    }
}

/// A release store followed by a relaxed store of the same thread does not make the second store
/// a release. PTX says it does (release pattern 2 of PTX ISA 8.8: `st.release [M]; st.relaxed
/// [M]`), so on the device as PTX executes it the reader that sees 2 would see the data. The
/// mirror reports the data race because that is the verdict of the contract the program is written
/// against: `core::sync::atomic` promises the C++20 model, where a release sequence continues
/// only through read-modify-writes, so the same source is a race on the host (an ARM `stlr; str`
/// lets the second store be seen without the data) and under any compiler transformation valid
/// for the language.
#[test]
fn release_store_then_relaxed_store_is_not_a_release() {
    let failure = expect_failure(release_then_later_write(false));
    assert!(
        failure.message.contains("data race on `u32`")
            && failure.message.contains("plain `write`")
            && failure.message.contains("plain `read`"),
        "{}",
        failure.message
    );
}

/// The contrast: a relaxed read-modify-write continues the release sequence (in C++, in loom and
/// in PTX alike), so the reader that sees 2 synchronises with the release store.
#[test]
fn release_store_then_relaxed_rmw_is_still_a_release() {
    model(release_then_later_write(true));
}

/// The acquire counterpart: a relaxed load that reads a release store, followed by an acquire
/// load of the same location, is an acquire pattern in PTX (8.8, pattern 2: `ld.relaxed [M];
/// ld.acquire [M]`), which synchronises with the release store even where the acquire load reads
/// a later, relaxed store. In C++ (and `core`) the acquire load synchronises only with the
/// release sequence of the write it reads itself, so when it reads the relaxed 2 nothing orders
/// the data: reported.
#[test]
fn relaxed_read_then_acquire_read_of_a_later_write_is_not_an_acquire() {
    let failure = expect_failure(|| {
        set_position(Position::host());
        let data = Heap::new(0u32);
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let writer = {
            let flag = flag.clone();
            spawn_in(B0, move || {
                data.write(42);
                flag.store(1, Release);
                flag.store(2, Relaxed);
            })
        };
        let reader = spawn_in(B1, move || {
            if flag.load(Relaxed) == 1 {
                let _later = flag.load(Acquire);
                assert_eq!(data.read(), 42);
            }
        });
        writer.join().unwrap();
        reader.join().unwrap();
        // SAFETY: both threads are joined.
        unsafe { data.free() };
    });
    assert!(
        failure.message.contains("data race on `u32`"),
        "{}",
        failure.message
    );
}

/// `compare_exchange_weak` never fails spuriously in the mirror (loom would only add executions
/// that a strong compare-exchange in a retry loop covers): a single weak compare-exchange of the
/// expected value always succeeds, although on the device (and in `core`) it may fail. A
/// program that wrongly relies on it succeeding is not reported.
#[test]
fn compare_exchange_weak_never_fails_spuriously() {
    let seen = outcomes(|| {
        set_position(B0);
        let x = Atomic::<u32, Device>::new(0);
        x.compare_exchange_weak(0, 1, Relaxed, Relaxed)
    });
    assert_outcomes("compare_exchange_weak", &seen, &[Ok(0)]);
}

/// On the device an 8-bit atomic accesses the aligned 32-bit word that contains it (a
/// compare-and-swap loop rewrites the neighbouring bytes), so a plain write to a neighbouring
/// byte that races with it is a mixed-size data race. The mirror keeps one location per byte
/// and does not see it: this program passes.
#[test]
fn plain_write_to_a_neighbouring_byte_of_an_8bit_atomic_is_not_reported() {
    model(|| {
        set_position(Position::host());
        let word = Heap::new(0u32);
        let atomic = spawn_in(B0, move || {
            // SAFETY: the first byte of a live word; its accesses are all atomic.
            let byte = unsafe { AtomicRef::<u8, Device>::from_ptr(word.as_ptr().cast()) };
            byte.fetch_add(1, Relaxed);
        });
        let plain = spawn_in(B1, move || {
            // SAFETY: the second byte of the live word.
            unsafe { scoped_atomics::plain::write(word.as_ptr().cast::<u8>().add(1), 7u8) };
        });
        atomic.join().unwrap();
        plain.join().unwrap();
        // SAFETY: both threads are joined.
        assert_eq!(unsafe { word.free() }.to_le_bytes(), [1, 7, 0, 0]);
    });
}
