//! libcu++'s `atomic_ref` rule as an opt-in strict mode of the mirror
//! (`model::Options::strict_atomic_ref_scopes`, off by default).
//!
//! libcu++ forbids referencing one object concurrently through `atomic_ref`s of different
//! scopes. The PTX model (the mirror's default) allows it when each operation's scope includes
//! the other thread: two threads of one block using block- and device-scope views of one counter
//! are morally strong. Each program below runs in both modes.
#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{Heap, expect_failure, first_failure, model};
use scoped_atomics::model::{Options, Position, set_options, set_position, spawn_in};
use scoped_atomics::{Atomic, Block, Device, Ordering::*, PlainScope};

/// Two threads of block 0.
const T0: Position = Position::gpu(0, 0);
const T1: Position = Position::gpu(0, 0).thread(1);

fn mode(strict: bool) -> Options {
    Options::new().with_strict_atomic_ref_scopes(strict)
}

/// Threads 0 and 1 of one block increment one counter concurrently, through views of scopes
/// `A` and `B`.
fn counter<A: PlainScope, B: PlainScope>(strict: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_options(mode(strict));
        set_position(Position::host());
        let x = Heap::new(0u32);
        let a = spawn_in(T0, move || x.view::<A>().fetch_add(1, Relaxed));
        let b = spawn_in(T1, move || x.view::<B>().fetch_add(1, Relaxed));
        a.join().unwrap();
        b.join().unwrap();
        // SAFETY: both threads are joined.
        assert_eq!(unsafe { x.free() }, 2);
    }
}

#[test]
fn default_mode_allows_views_of_different_scopes_that_include_each_other() {
    model(counter::<Block, Device>(false));
}

#[test]
fn strict_mode_reports_concurrent_views_of_different_scopes() {
    let failure = expect_failure(counter::<Block, Device>(true));
    let message = &failure.message;
    assert!(
        message.contains("atomic_ref scope rule (strict mode)"),
        "{message}"
    );
    for named in [
        "`fetch_add(Relaxed)` at block scope",
        "`fetch_add(Relaxed)` at device scope",
        "(device 0, cluster 0, block 0, thread 0)",
        "(device 0, cluster 0, block 0, thread 1)",
    ] {
        assert!(message.contains(named), "`{named}` not named: {message}");
    }
    assert_eq!(failure.executions, 1, "reported late: {message}");
}

#[test]
fn strict_mode_allows_concurrent_views_of_one_scope() {
    model(counter::<Device, Device>(true));
}

/// Loads only: libcu++ forbids concurrent references, not only conflicting ones.
fn two_loads(strict: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        set_options(mode(strict));
        set_position(Position::host());
        let x = Heap::new(3u32);
        let a = spawn_in(T0, move || x.view::<Block>().load(Acquire));
        let b = spawn_in(T1, move || x.view::<Device>().load(Acquire));
        assert_eq!((a.join().unwrap(), b.join().unwrap()), (3, 3));
        // SAFETY: both threads are joined.
        unsafe { x.free() };
    }
}

#[test]
fn default_mode_allows_concurrent_loads_of_different_scopes() {
    model(two_loads(false));
}

#[test]
fn strict_mode_reports_concurrent_loads_of_different_scopes() {
    let failure = expect_failure(two_loads(true));
    assert!(
        failure.message.contains("atomic_ref scope rule"),
        "{}",
        failure.message
    );
}

/// A block-scope phase, then a device-scope phase, ordered by a release/acquire handshake: the
/// views are never used concurrently, so even the strict mode accepts it.
#[test]
fn strict_mode_allows_views_of_different_scopes_in_ordered_phases() {
    model(|| {
        set_options(mode(true));
        set_position(Position::host());
        let x = Heap::new(0u32);
        let done = Arc::new(Atomic::<bool, Device>::new(false));
        let first = {
            let done = done.clone();
            spawn_in(T0, move || {
                x.view::<Block>().fetch_add(1, Relaxed);
                done.store(true, Release);
            })
        };
        let second = spawn_in(T1, move || {
            if done.load(Acquire) {
                x.view::<Device>().fetch_add(1, Relaxed);
            }
        });
        first.join().unwrap();
        second.join().unwrap();
        // SAFETY: both threads are joined.
        unsafe { x.free() };
    });
}

/// Scope races are still reported in the strict mode (a block-scope store read from another
/// block at device scope).
#[test]
fn strict_mode_still_reports_scope_races() {
    let failure = first_failure(|| {
        set_options(mode(true));
        set_position(Position::host());
        let x = Heap::new(0u32);
        let w = spawn_in(Position::gpu(0, 0), move || {
            x.view::<Block>().store(1, Relaxed)
        });
        let r = spawn_in(Position::gpu(0, 1), move || x.view::<Block>().load(Relaxed));
        w.join().unwrap();
        r.join().unwrap();
    })
    .expect("not reported");
    assert!(
        failure.message.contains("scope race"),
        "{}",
        failure.message
    );
}

/// The options must be set before any location or position exists in the execution.
#[test]
#[should_panic(expected = "`set_options` must be the first thing the model does")]
fn set_options_after_a_location_exists_panics() {
    model(|| {
        let _early = Atomic::<u32, Device>::new(0);
        set_options(mode(true));
    });
}
