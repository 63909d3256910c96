//! Pairs of programs: a correct one, and the same program with one scope bug — the bugs scoped
//! atomics exist to catch. The correct program passes every execution loom explores; the buggy
//! one is reported as a scope race (`#[should_panic(expected = "scope race")]`). Then, for the
//! buggy programs, a test that the report comes within the first few executions: a scope bug must
//! not need an unbounded search to be found.
//!
//! Every program is a function generic over the scope (or taking the one thing that differs), so
//! both halves of a pair are the same code; [`scope_pairs!`] writes the two tests of each pair as
//! `<pair>::correct` and `<pair>::buggy`.
#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{Heap, Plain, first_failure, spin_until};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{
    Atomic, Block, Cluster, Device, Ordering::*, PlainScope, System, Thread, fence,
};

/// Thread 0 of blocks 0 and 1 of device 0 (one block per cluster, clusters numbered as blocks).
const B0: Position = Position::gpu(0, 0);
const B1: Position = Position::gpu(0, 1);

/// For each pair, a module with `correct` (runs the full model, must pass) and `buggy` (must be
/// reported as a scope race).
macro_rules! scope_pairs {
    ($($(#[doc = $doc:literal])* $pair:ident { correct: $correct:expr, buggy: $buggy:expr $(,)? })*) => {$(
        $(#[doc = $doc])*
        mod $pair {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn correct() {
                loom_tests::model($correct);
            }

            #[test]
            #[should_panic(expected = "scope race")]
            fn buggy() {
                loom_tests::model($buggy);
            }
        }
    )*};
}

scope_pairs! {
    /// Two blocks count into one counter: `fetch_add` at device scope, or at block scope (the
    /// two read-modify-writes are not morally strong: atomicity litmus test 2).
    cross_block_counter { correct: counter::<Device>, buggy: counter::<Block> }
    /// A test-and-test-and-set spin lock (`swap`) guarding plain data, used by two blocks.
    spin_lock { correct: spin_lock::<Device>, buggy: spin_lock::<Block> }
    /// A compare-exchange lock guarding plain data, used by two blocks.
    cas_lock { correct: cas_lock::<Device>, buggy: cas_lock::<Block> }
    /// A GPU thread publishes to a host thread: the flag needs system scope; device scope does
    /// not include the host.
    host_flag { correct: mp_to::<System>(Position::host()), buggy: mp_to::<Device>(Position::host()) }
    /// Two GPUs: device scope includes only one of them.
    two_devices { correct: mp_to::<System>(Position::gpu(1, 0)), buggy: mp_to::<Device>(Position::gpu(1, 0)) }
    /// Cluster-scope message passing between two blocks of one cluster, or of two clusters.
    cluster_scope { correct: cluster_mp(0), buggy: cluster_mp(1) }
    /// The reader's acquire load is narrower than the writer's release store.
    narrow_reader { correct: mp_reader::<Device>, buggy: mp_reader::<Block> }
    /// `fence::<S>(Release)` + relaxed device-scope flag, read by another block with a relaxed
    /// load and `fence::<Device>(Acquire)`: the release fence must include the reader.
    narrow_release_fence { correct: release_fence::<Device>, buggy: release_fence::<Block> }
    /// Release store at device scope, read relaxed by another block and followed by
    /// `fence::<S>(Acquire)`: the acquire fence must include the writer.
    narrow_acquire_fence { correct: acquire_fence::<Device>, buggy: acquire_fence::<Block> }
    /// One location through `AtomicRef`: a block-local phase at block scope, then a device-scope
    /// phase by another block. Correct when the block phase happens-before the device phase; the
    /// bug is publishing before the block phase is over.
    atomic_ref_phases { correct: phases(true), buggy: phases(false) }
    /// A counter shared by two threads of one block: block scope, or thread scope (which includes
    /// no other thread).
    thread_scope { correct: same_block_counter::<Block>, buggy: same_block_counter::<Thread> }
    /// Reductions (`red`, no result) from two blocks into one counter.
    reduction { correct: reduction::<Device>, buggy: reduction::<Block> }
    /// "Last block done": each block writes its partial result and takes a ticket with an
    /// acq_rel `fetch_add`; the block that takes the last ticket reads every partial.
    last_block { correct: last_block::<Device>, buggy: last_block::<Block> }
    /// SB with sequentially consistent accesses from two blocks, whose leading `fence.sc` has the
    /// accesses' scope.
    seqcst_accesses { correct: sb_seqcst::<Device>, buggy: sb_seqcst::<Block> }
}

/// Two blocks `fetch_add` into an `Atomic<u32, S>`.
fn counter<S: PlainScope>() {
    set_position(Position::host());
    let c = Arc::new(Atomic::<u32, S>::new(0));
    let hs: Vec<_> = [B0, B1]
        .into_iter()
        .map(|p| {
            let c = c.clone();
            spawn_in(p, move || c.fetch_add(1, Relaxed))
        })
        .collect();
    let mut seen: Vec<u32> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    seen.sort();
    assert_eq!(seen, [0, 1]);
    assert_eq!(c.load(Relaxed), 2);
}

/// Two blocks increment plain data under a test-and-test-and-set lock of scope `S`.
fn spin_lock<S: PlainScope>() {
    set_position(Position::host());
    let lock = Arc::new(Atomic::<bool, S>::new(false));
    let data = Arc::new(Plain::new(0u32));
    let hs: Vec<_> = [B0, B1]
        .into_iter()
        .map(|p| {
            let (lock, data) = (lock.clone(), data.clone());
            spawn_in(p, move || {
                while lock.swap(true, Acquire) {
                    spin_until(|| !lock.load(Relaxed));
                }
                data.set(data.get() + 1);
                // Unlocked with a swap, not a store: loom does not order a plain store after
                // another thread's read-modify-write it has not seen, so the waiter could read its
                // own `swap(true)` forever (`limits::loom_spin_after_foreign_rmw_never_ends`).
                lock.swap(false, Release);
            })
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(data.get(), 2);
}

/// Two blocks increment plain data under a compare-exchange lock of scope `S`.
fn cas_lock<S: PlainScope>() {
    set_position(Position::host());
    let lock = Arc::new(Atomic::<u32, S>::new(0));
    let data = Arc::new(Plain::new(0u32));
    let hs: Vec<_> = [B0, B1]
        .into_iter()
        .map(|p| {
            let (lock, data) = (lock.clone(), data.clone());
            spawn_in(p, move || {
                spin_until(|| lock.compare_exchange_weak(0, 1, Acquire, Relaxed).is_ok());
                data.set(data.get() + 1);
                lock.store(0, Release);
            })
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(data.get(), 2);
}

/// Message passing from thread 0 of block 0 of device 0 to a thread at `reader`, through plain
/// data and a flag of scope `S` (release store, acquire load).
fn mp_to<S: PlainScope>(reader: Position) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let data = Arc::new(Plain::new(0u32));
        let flag = Arc::new(Atomic::<u32, S>::new(0));
        let w = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(B0, move || {
                data.set(42);
                flag.store(1, Release);
            })
        };
        let r = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(reader, move || {
                if flag.load(Acquire) == 1 {
                    assert_eq!(data.get(), 42);
                }
            })
        };
        w.join().unwrap();
        r.join().unwrap();
    }
}

/// Cluster-scope message passing from block 0 in cluster 0 to block 1 in `cluster`.
fn cluster_mp(cluster: u32) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let data = Arc::new(Plain::new(0u32));
        let flag = Arc::new(Atomic::<u32, Cluster>::new(0));
        let w = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(Position::gpu(0, 0).in_cluster(0), move || {
                data.set(42);
                flag.store(1, Release);
            })
        };
        let r = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(Position::gpu(0, 1).in_cluster(cluster), move || {
                spin_until(|| flag.load(Acquire) == 1);
                assert_eq!(data.get(), 42);
            })
        };
        w.join().unwrap();
        r.join().unwrap();
    }
}

/// Device-scope release store; the other block acquires with a load of scope `S`.
fn mp_reader<S: PlainScope>() {
    set_position(Position::host());
    let data = Arc::new(Plain::new(0u32));
    let flag = Arc::new(Atomic::<u32, Device>::new(0));
    let w = {
        let (data, flag) = (data.clone(), flag.clone());
        spawn_in(B0, move || {
            data.set(42);
            flag.store(1, Release);
        })
    };
    let r = {
        let (data, flag) = (data.clone(), flag.clone());
        spawn_in(B1, move || {
            if flag.with_scope::<S>().load(Acquire) == 1 {
                assert_eq!(data.get(), 42);
            }
        })
    };
    w.join().unwrap();
    r.join().unwrap();
}

/// `data = 42; fence::<S>(Release); flag.store(1, Relaxed)` (device-scope flag) in block 0;
/// `if flag.load(Relaxed) == 1 { fence::<Device>(Acquire); data }` in block 1.
fn release_fence<S: PlainScope>() {
    set_position(Position::host());
    let data = Arc::new(Plain::new(0u32));
    let flag = Arc::new(Atomic::<u32, Device>::new(0));
    let w = {
        let (data, flag) = (data.clone(), flag.clone());
        spawn_in(B0, move || {
            data.set(42);
            fence::<S>(Release);
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
}

/// `data = 42; flag.store(1, Release)` (device scope) in block 0;
/// `if flag.load(Relaxed) == 1 { fence::<S>(Acquire); data }` in block 1.
fn acquire_fence<S: PlainScope>() {
    set_position(Position::host());
    let data = Arc::new(Plain::new(0u32));
    let flag = Arc::new(Atomic::<u32, Device>::new(0));
    let w = {
        let (data, flag) = (data.clone(), flag.clone());
        spawn_in(B0, move || {
            data.set(42);
            flag.store(1, Release);
        })
    };
    let r = {
        let (data, flag) = (data.clone(), flag.clone());
        spawn_in(B1, move || {
            if flag.load(Relaxed) == 1 {
                fence::<S>(Acquire);
                assert_eq!(data.get(), 42);
            }
        })
    };
    w.join().unwrap();
    r.join().unwrap();
}

/// A `u32` viewed through `AtomicRef`: threads 0 and 1 of block 0 each add 1 at block scope
/// (the block-local phase) and thread 1 signals the end of its part with a block-scope release.
/// Thread 0 then publishes a device-scope `ready` flag — after acquiring thread 1's signal if
/// `wait_for_block`, at once otherwise — and thread 0 of block 1, once it sees `ready`, adds 100
/// to the same location at device scope. The block phase must happen-before the device phase.
fn phases(wait_for_block: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_position(Position::host());
        let value = Heap::new(0u32);
        let arrived = Arc::new(Atomic::<u32, Block>::new(0));
        let ready = Arc::new(Atomic::<bool, Device>::new(false));
        let helper = {
            let arrived = arrived.clone();
            spawn_in(B0.thread(1), move || {
                value.view::<Block>().fetch_add(1, Relaxed);
                arrived.store(1, Release);
            })
        };
        let leader = {
            let (arrived, ready) = (arrived.clone(), ready.clone());
            spawn_in(B0, move || {
                let local = value.view::<Block>();
                local.fetch_add(1, Relaxed);
                if !wait_for_block || arrived.load(Acquire) == 1 {
                    ready.store(true, Release);
                }
            })
        };
        let other_block = {
            let ready = ready.clone();
            spawn_in(B1, move || {
                if ready.load(Acquire) {
                    let global = value.view::<Device>();
                    let before = global.fetch_add(100, Relaxed);
                    assert!(!wait_for_block || before == 2);
                }
            })
        };
        helper.join().unwrap();
        leader.join().unwrap();
        other_block.join().unwrap();
        // SAFETY: every thread that viewed `value` has been joined.
        let total = unsafe { value.free() };
        assert!(total == 2 || total == 102, "total {total}");
    }
}

/// Two threads of block 0 `fetch_add` into an `Atomic<u32, S>`.
fn same_block_counter<S: PlainScope>() {
    set_position(Position::host());
    let c = Arc::new(Atomic::<u32, S>::new(0));
    let hs: Vec<_> = [B0, B0.thread(1)]
        .into_iter()
        .map(|p| {
            let c = c.clone();
            spawn_in(p, move || c.fetch_add(1, Relaxed))
        })
        .collect();
    hs.into_iter().for_each(|h| {
        h.join().unwrap();
    });
    assert_eq!(c.load(Relaxed), 2);
}

/// Two blocks `add` (reduction) into an `Atomic<u32, S>`.
fn reduction<S: PlainScope>() {
    set_position(Position::host());
    let c = Arc::new(Atomic::<u32, S>::new(0));
    let hs: Vec<_> = [(B0, 1), (B1, 10)]
        .into_iter()
        .map(|(p, v)| {
            let c = c.clone();
            spawn_in(p, move || c.add(v, Relaxed))
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(c.load(Relaxed), 11);
}

/// Each of two blocks writes its partial sum (plain data) and takes a ticket with
/// `fetch_add(1, AcqRel)` of scope `S`; whoever takes ticket 1 (the last) adds both partials.
fn last_block<S: PlainScope>() {
    set_position(Position::host());
    let partial = Arc::new([Plain::new(0u32), Plain::new(0u32)]);
    let tickets = Arc::new(Atomic::<u32, S>::new(0));
    let hs: Vec<_> = [B0, B1]
        .into_iter()
        .enumerate()
        .map(|(b, p)| {
            let (partial, tickets) = (partial.clone(), tickets.clone());
            spawn_in(p, move || {
                partial[b].set(b as u32 + 1);
                if tickets.fetch_add(1, AcqRel) == 1 {
                    Some(partial[0].get() + partial[1].get())
                } else {
                    None
                }
            })
        })
        .collect();
    let sums: Vec<u32> = hs.into_iter().filter_map(|h| h.join().unwrap()).collect();
    assert_eq!(sums, [3]);
}

/// SB with `SeqCst` stores and loads on atomics of scope `S`, from two blocks: `r0 == 1 OR
/// r1 == 1` must hold.
fn sb_seqcst<S: PlainScope>() {
    set_position(Position::host());
    let x = Arc::new(Atomic::<u32, S>::new(0));
    let y = Arc::new(Atomic::<u32, S>::new(0));
    let side = |mine: Arc<Atomic<u32, S>>, theirs: Arc<Atomic<u32, S>>| {
        move || {
            mine.store(1, SeqCst);
            theirs.load(SeqCst)
        }
    };
    let a = spawn_in(B0, side(x.clone(), y.clone()));
    let b = spawn_in(B1, side(y.clone(), x.clone()));
    let (r0, r1) = (a.join().unwrap(), b.join().unwrap());
    assert!(r0 == 1 || r1 == 1, "SB: both loads read 0");
}

/// How many executions loom may run before a scope bug must have been reported: a bug in these
/// tests must show in the first few executions, not only under an unbounded search.
const EARLY: usize = 3;

/// For every buggy program above (the scope races of the litmus tests are checked likewise in
/// `litmus::scope_races_are_reported_in_the_first_executions`): counts the
/// executions (a `std` counter incremented at the start of each run of the model's closure)
/// until the model panics, and asserts that it panicked with a scope race within [`EARLY`].
#[test]
fn bugs_are_reported_within_the_first_executions() {
    type Program = Box<dyn Fn() + Send + Sync>;
    let buggy: Vec<(&str, Program)> = vec![
        ("cross_block_counter", Box::new(counter::<Block>)),
        ("spin_lock", Box::new(spin_lock::<Block>)),
        ("cas_lock", Box::new(cas_lock::<Block>)),
        ("host_flag", Box::new(mp_to::<Device>(Position::host()))),
        (
            "two_devices",
            Box::new(mp_to::<Device>(Position::gpu(1, 0))),
        ),
        ("cluster_scope", Box::new(cluster_mp(1))),
        ("narrow_reader", Box::new(mp_reader::<Block>)),
        ("narrow_release_fence", Box::new(release_fence::<Block>)),
        ("narrow_acquire_fence", Box::new(acquire_fence::<Block>)),
        ("atomic_ref_phases", Box::new(phases(false))),
        ("thread_scope", Box::new(same_block_counter::<Thread>)),
        ("reduction", Box::new(reduction::<Block>)),
        ("last_block", Box::new(last_block::<Block>)),
        ("seqcst_accesses", Box::new(sb_seqcst::<Block>)),
    ];
    let mut report = Vec::new();
    for (name, program) in buggy {
        let failure = first_failure(program)
            .unwrap_or_else(|| panic!("{name}: the scope bug was not reported at all"));
        assert!(
            failure.message.contains("scope race"),
            "{name}: failed, but not with a scope race: {}",
            failure.message
        );
        report.push((name, failure.executions));
    }
    let late: Vec<_> = report.iter().filter(|(_, n)| *n > EARLY).collect();
    assert!(
        late.is_empty(),
        "scope bugs reported only after more than {EARLY} executions: {late:?} (all: {report:?})"
    );
    println!("executions until the scope race was reported: {report:?}");
}
