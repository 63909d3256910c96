//! The litmus tests of the PTX memory model (PTX ISA 8.10–8.11, `shared/reference/000_*`) and the
//! message-passing example of the libcu++ memory model (`shared/reference/004_*`), on the loom
//! mirror.
//!
//! Each litmus test collects the outcome of every execution loom explores (outside the model:
//! loom re-runs the closure) and asserts the outcome set: the outcomes the text forbids never
//! appear, and the outcomes it allows do appear wherever loom can produce them. Where loom cannot
//! (load buffering; the weak outcome of a reduction), the test asserts what loom does produce
//! and says why; the crate docs list these limits.
//!
//! The text's weak (`ld`/`st` without `.relaxed`) accesses are relaxed atomics here wherever
//! the outcome must be read in every execution: a weak access that races is a data race, which
//! loom would report instead of producing an outcome. The message-passing tests also run once with
//! plain data, read only where the text's condition holds, to show that no race is reported.
#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{
    Heap, Plain, assert_outcomes, expect_failure, first_failure, model, outcomes, spin_until,
};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{Atomic, Block, Device, Ordering::*, System, fence};

/// T1 and T2 of the litmus tests: thread 0 of blocks 0 and 1 of device 0 (different CTAs, as
/// litmus test 2 requires; the `.sys`/`.gpu` scopes of the others include both).
const T1: Position = Position::gpu(0, 0);
const T2: Position = Position::gpu(0, 1);

type Sys = Arc<Atomic<u32, System>>;

fn sys(v: u32) -> Sys {
    Arc::new(Atomic::<u32, System>::new(v))
}

// ---------------------------------------------------------------------------------------------
// 8.10.3 Atomicity

/// Litmus test 1: `atom.sys.inc` from two threads. FINAL STATE: x == 2, and the two increments
/// read 0 and 1 in some order.
#[test]
fn atomicity_1_morally_strong_rmws_are_atomic() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let x = sys(0);
        let a = {
            let x = x.clone();
            spawn_in(T1, move || x.fetch_add(1, Relaxed))
        };
        let b = {
            let x = x.clone();
            spawn_in(T2, move || x.fetch_add(1, Relaxed))
        };
        let (r0, r1) = (a.join().unwrap(), b.join().unwrap());
        (r0, r1, x.load(Relaxed))
    });
    assert_outcomes("atomicity 1 (r0, r1, x)", &seen, &[(0, 1, 2), (1, 0, 2)]);
}

/// Litmus test 2: `atom.cta.inc` and `atom.gpu.inc` from different CTAs are not morally strong;
/// PTX allows x == 1 (a lost update) as well as x == 2. loom's read-modify-writes are always
/// atomic, so loom cannot produce x == 1; the mirror reports the two operations as a scope race
/// instead, in the first execution (`scope_races_are_reported_in_the_first_executions`).
#[test]
#[should_panic(expected = "scope race on `Atomic<u32>`")]
fn atomicity_2_rmws_that_are_not_morally_strong_race() {
    model(atomicity_2);
}

/// `atom.cta.inc` from block 0 and `atom.gpu.inc` from block 1 on one location.
fn atomicity_2() {
    set_position(Position::host());
    let x = Arc::new(Atomic::<u32, Device>::new(0));
    let a = {
        let x = x.clone();
        spawn_in(T1, move || x.with_scope::<Block>().fetch_add(1, Relaxed))
    };
    let b = {
        let x = x.clone();
        spawn_in(T2, move || x.fetch_add(1, Relaxed))
    };
    a.join().unwrap();
    b.join().unwrap();
}

// ---------------------------------------------------------------------------------------------
// 8.10.4 No thin air

/// LB as the text states it: each thread copies what it read into the other variable. FINAL
/// STATE: x == 0 AND y == 0 — the only outcome, in every execution. (The classic LB, with
/// constant stores, whose weak outcome PTX allows but loom cannot produce, is
/// `limits::loom_has_no_load_buffering`.)
#[test]
fn lb_no_values_out_of_thin_air() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let (x, y) = (sys(0), sys(0));
        let a = {
            let (x, y) = (x.clone(), y.clone());
            spawn_in(T1, move || {
                let r0 = x.load(Relaxed);
                y.store(r0, Relaxed);
                r0
            })
        };
        let b = {
            let (x, y) = (x.clone(), y.clone());
            spawn_in(T2, move || {
                let r1 = y.load(Relaxed);
                x.store(r1, Relaxed);
                r1
            })
        };
        let (r0, r1) = (a.join().unwrap(), b.join().unwrap());
        (r0, r1, x.load(Relaxed), y.load(Relaxed))
    });
    assert_outcomes("LB (r0, r1, x, y)", &seen, &[(0, 0, 0, 0)]);
}

// ---------------------------------------------------------------------------------------------
// 8.10.5 Sequential consistency per location

/// CoRR: IF r0 == 1 THEN r1 == 1. Allowed: (0, 0), (0, 1), (1, 1); forbidden: (1, 0).
#[test]
fn corr_reads_of_one_location_are_coherent() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let x = sys(0);
        let w = {
            let x = x.clone();
            spawn_in(T1, move || x.store(1, Relaxed))
        };
        let r = {
            let x = x.clone();
            spawn_in(T2, move || (x.load(Relaxed), x.load(Relaxed)))
        };
        w.join().unwrap();
        r.join().unwrap()
    });
    assert_outcomes("CoRR (r0, r1)", &seen, &[(0, 0), (0, 1), (1, 1)]);
}

// ---------------------------------------------------------------------------------------------
// 8.10.6 Causality: message passing

/// MP with `fence.sys` (`fence.acq_rel.sys`, `fence::<System>(AcqRel)`) on both sides:
/// IF r0 == 1 THEN r1 == 1. Allowed: (0, 0), (0, 1), (1, 1); forbidden: (1, 0).
#[test]
fn mp_with_fences() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let (data, flag) = (sys(0), sys(0));
        let w = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(T1, move || {
                data.store(1, Relaxed);
                fence::<System>(AcqRel);
                flag.store(1, Relaxed);
            })
        };
        let r = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(T2, move || {
                let r0 = flag.load(Relaxed);
                fence::<System>(AcqRel);
                (r0, data.load(Relaxed))
            })
        };
        w.join().unwrap();
        r.join().unwrap()
    });
    assert_outcomes("MP with fences (r0, r1)", &seen, &[(0, 0), (0, 1), (1, 1)]);
}

/// MP with a release store and an acquire load on the flag: the same outcome set.
#[test]
fn mp_with_release_acquire() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let (data, flag) = (sys(0), sys(0));
        let w = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(T1, move || {
                data.store(1, Relaxed);
                flag.store(1, Release);
            })
        };
        let r = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(T2, move || {
                let r0 = flag.load(Acquire);
                (r0, data.load(Relaxed))
            })
        };
        w.join().unwrap();
        r.join().unwrap()
    });
    assert_outcomes(
        "MP release/acquire (r0, r1)",
        &seen,
        &[(0, 0), (0, 1), (1, 1)],
    );
}

/// MP with plain (weak) data, as the text writes it, read only when the flag was seen: no race
/// is reported, the data read is always 1, and both branches are explored.
#[test]
fn mp_with_fences_and_plain_data() {
    let seen = outcomes(|| {
        set_position(Position::host());
        let (data, flag) = (Arc::new(Plain::new(0u32)), sys(0));
        let w = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(T1, move || {
                data.set(1);
                fence::<System>(AcqRel);
                flag.store(1, Relaxed);
            })
        };
        let r = {
            let (data, flag) = (data.clone(), flag.clone());
            spawn_in(T2, move || {
                let r0 = flag.load(Relaxed);
                fence::<System>(AcqRel);
                (r0, if r0 == 1 { Some(data.get()) } else { None })
            })
        };
        w.join().unwrap();
        r.join().unwrap()
    });
    assert_outcomes("MP plain data (r0, r1)", &seen, &[(0, None), (1, Some(1))]);
}

// ---------------------------------------------------------------------------------------------
// Store buffering

/// SB `x = 1; F; r0 = y || y = 1; F; r1 = x`, the fences of the given order at system scope.
fn sb_with_fences(order: scoped_atomics::Ordering) -> std::collections::BTreeSet<(u32, u32)> {
    outcomes(move || {
        set_position(Position::host());
        let (x, y) = (sys(0), sys(0));
        let side = |mine: Sys, theirs: Sys| {
            move || {
                mine.store(1, Relaxed);
                fence::<System>(order);
                theirs.load(Relaxed)
            }
        };
        let a = spawn_in(T1, side(x.clone(), y.clone()));
        let b = spawn_in(T2, side(y.clone(), x.clone()));
        (a.join().unwrap(), b.join().unwrap())
    })
}

/// SB with `fence.sc.sys`: r0 == 1 OR r1 == 1. The Fence-SC order forbids (0, 0); the other
/// three outcomes appear.
#[test]
fn sb_with_seqcst_fences_forbids_both_zero() {
    let seen = sb_with_fences(SeqCst);
    assert_outcomes("SB fence.sc (r0, r1)", &seen, &[(0, 1), (1, 0), (1, 1)]);
}

/// SB with `fence.acq_rel.sys`: "there may be an execution where the write from each thread
/// remains unobserved from the other thread" — (0, 0) appears, with the other three.
#[test]
fn sb_with_acqrel_fences_allows_both_zero() {
    let seen = sb_with_fences(AcqRel);
    assert_outcomes(
        "SB fence.acq_rel (r0, r1)",
        &seen,
        &[(0, 0), (0, 1), (1, 0), (1, 1)],
    );
}

// ---------------------------------------------------------------------------------------------
// 8.11.1 Reductions do not form acquire patterns

/// MP with a reduction whose result is unused: T1 `x = 42; st.release.gpu [flag], 1` and T2
/// `red.sys.add [flag], 1; fence.acquire.gpu; r1 = x`. Outcome (r1, final flag).
fn mp_with_rmw(reduction: bool) -> std::collections::BTreeSet<(u32, u32)> {
    outcomes(move || mp_with_rmw_body(reduction))
}

fn mp_with_rmw_body(reduction: bool) -> (u32, u32) {
    {
        set_position(Position::host());
        let x = Arc::new(Atomic::<u32, Device>::new(0));
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let w = {
            let (x, flag) = (x.clone(), flag.clone());
            spawn_in(T1, move || {
                x.store(42, Relaxed);
                flag.store(1, Release);
            })
        };
        let r = {
            let (x, flag) = (x.clone(), flag.clone());
            spawn_in(T2, move || {
                if reduction {
                    flag.with_scope::<System>().add(1, Relaxed);
                } else {
                    flag.with_scope::<System>().fetch_add(1, Relaxed);
                }
                fence::<Device>(Acquire);
                x.load(Relaxed)
            })
        };
        w.join().unwrap();
        let r1 = r.join().unwrap();
        (r1, flag.load(Relaxed))
    }
}

/// PTX allows `r1 == 0 AND flag == 2` with `red` (its read forms no acquire pattern) and
/// forbids it with `atom`. What loom can show: loom's acquire fence synchronises with every
/// store its thread has read, a reduction's read included, so loom alone never produces (0, 2);
/// with `atom` the outcome set is {(0, 1), (42, 1), (42, 2)} (flag == 1 when the RMW ran before
/// the store, which then overwrote it). With `red` the mirror reports the acquire fence that
/// would synchronise through the reduction's read, since on a GPU it does not: the program's
/// correctness would rest on a synchronisation PTX does not have.
#[test]
fn mp_with_reduction() {
    let with_atom = mp_with_rmw(false);
    assert_outcomes(
        "MP atom (r1, flag)",
        &with_atom,
        &[(0, 1), (42, 1), (42, 2)],
    );
    let failure = expect_failure(|| {
        mp_with_rmw_body(true);
    });
    assert!(
        failure.message.contains("forms no acquire pattern"),
        "{}",
        failure.message
    );
}

// ---------------------------------------------------------------------------------------------
// libcu++ memory model: message passing through `atomic_ref` (004_*)

/// The example: thread 0 of block 0 writes `x = 42` and stores 1 to `f` through a
/// `cuda::atomic_ref<int, thread_scope_device>`; thread 0 of block 1 spins on the flag with an
/// acquire load of a device-scope `atomic_ref` of `f` and asserts `x == 42`. `S` is the scope of
/// the writer's `atomic_ref`.
fn libcudacxx_mp<S: scoped_atomics::PlainScope>() {
    set_position(Position::host());
    let x = Arc::new(Plain::new(0i32));
    let f = Heap::new(0i32);
    let t0 = {
        let x = x.clone();
        spawn_in(Position::gpu(0, 0), move || {
            x.set(42);
            let flag = f.view::<S>();
            flag.store(1, Release);
        })
    };
    let t1 = {
        let x = x.clone();
        spawn_in(Position::gpu(0, 1), move || {
            let flag = f.view::<Device>();
            spin_until(|| flag.load(Acquire) == 1);
            assert_eq!(x.get(), 42);
        })
    };
    t0.join().unwrap();
    t1.join().unwrap();
    // SAFETY: both threads that viewed `f` have been joined.
    assert_eq!(unsafe { f.free() }, 1);
}

/// With a device-scope flag the message passes in every execution.
#[test]
fn libcudacxx_mp_device_scope_passes() {
    model(libcudacxx_mp::<Device>);
}

/// With a block-scope `atomic_ref` for the store, "the store and the load [are] not atomic,
/// introducing a data-race": reported as a scope race.
#[test]
#[should_panic(expected = "scope race on `Atomic<i32>`")]
fn libcudacxx_mp_block_scope_store_is_a_scope_race() {
    model(libcudacxx_mp::<Block>);
}

/// The two scope races of this file are reported within the first 3 executions (counted as in
/// `scope_pairs::bugs_are_reported_within_the_first_executions`).
#[test]
fn scope_races_are_reported_in_the_first_executions() {
    for (name, program) in [
        ("atomicity 2", atomicity_2 as fn()),
        ("libcu++ MP, block scope", libcudacxx_mp::<Block>),
    ] {
        let failure = first_failure(program).unwrap_or_else(|| panic!("{name}: not reported"));
        assert!(
            failure.message.contains("scope race"),
            "{name}: {}",
            failure.message
        );
        assert!(
            failure.executions <= 3,
            "{name}: reported after {} executions",
            failure.executions
        );
    }
}
