//! Issue 14: the non-blocking, timed and parity waits under loom, with 2 threads. Loom has no
//! clock: a timed wait checks, yields once and checks again (as `try_acquire_for` always did), so
//! loom explores both the executions in which it succeeds and those in which it times out. Each
//! test asserts, in every execution, what the outcome it got guarantees: a wait that reports
//! success orders the other thread's data before it (a read of plain data, which the mirror would
//! report as a race otherwise), and both outcomes occur across the executions. A parity wait on a
//! block barrier shared by two blocks is a scope race.

#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{Plain, model};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::time::Instant;
use scoped_atomics::{Atomic, Barrier, BinarySemaphore, Block, Device, Ordering, PlainScope};
use std::sync::Mutex;
use std::time::Duration;

const B0: Position = Position::gpu(0, 0);
const B1: Position = Position::gpu(0, 1);

/// The outcomes (`true`: the wait succeeded) seen across the executions of a model: loom re-runs
/// the closure, so they are collected outside it.
struct Outcomes(Mutex<Vec<bool>>);

impl Outcomes {
    fn new() -> &'static Self {
        Box::leak(Box::new(Self(Mutex::new(Vec::new()))))
    }

    fn record(&self, outcome: bool) {
        self.0.lock().unwrap().push(outcome);
    }

    /// Both a success and a timeout were explored.
    fn assert_both(&self) {
        let seen = self.0.lock().unwrap();
        assert!(seen.contains(&true), "no execution succeeded");
        assert!(seen.contains(&false), "no execution timed out");
    }
}

#[test]
fn barrier_try_wait_for_orders_the_data_when_it_succeeds() {
    let outcomes = Outcomes::new();
    model(move || {
        set_position(Position::host());
        let barrier = Arc::new(Barrier::<Device>::new(2));
        let data = Arc::new(Plain::new(0u32));
        let writer = {
            let (barrier, data) = (barrier.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(7);
                let _ = barrier.arrive();
            })
        };
        let waiter = {
            let (barrier, data) = (barrier.clone(), data.clone());
            spawn_in(B1, move || {
                let token = barrier.arrive();
                let ended = barrier.try_wait_for(&token, Duration::from_micros(1));
                outcomes.record(ended);
                if !ended {
                    barrier.wait(token);
                }
                assert_eq!(data.get(), 7);
            })
        };
        writer.join().unwrap();
        waiter.join().unwrap();
    });
    outcomes.assert_both();
}

#[test]
fn barrier_try_wait_until_and_try_wait_order_the_data_when_they_succeed() {
    let outcomes = Outcomes::new();
    model(move || {
        set_position(Position::host());
        let barrier = Arc::new(Barrier::<Device>::new(2));
        let data = Arc::new(Plain::new(0u32));
        let writer = {
            let (barrier, data) = (barrier.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(9);
                let _ = barrier.arrive();
            })
        };
        let waiter = {
            let (barrier, data) = (barrier.clone(), data.clone());
            spawn_in(B1, move || {
                let token = barrier.arrive();
                let ended = barrier.try_wait(&token)
                    || barrier.try_wait_until(&token, Instant::now() + Duration::from_micros(1));
                outcomes.record(ended);
                if ended {
                    assert_eq!(data.get(), 9);
                }
                token // waited on by nobody: both arrivals are in
            })
        };
        writer.join().unwrap();
        let _ = waiter.join().unwrap();
    });
    outcomes.assert_both();
}

/// A thread that never arrives follows the phase with `wait_parity` (and the timed form).
fn parity_consumer<S: PlainScope>(positions: [Position; 2], outcomes: &'static Outcomes) {
    model(move || {
        set_position(Position::host());
        let barrier = Arc::new(Barrier::<S>::new(1));
        let data = Arc::new(Plain::new(0u32));
        let producer = {
            let (barrier, data) = (barrier.clone(), data.clone());
            spawn_in(positions[0], move || {
                data.set(5);
                let _ = barrier.arrive(); // ends phase 0
            })
        };
        let consumer = {
            let (barrier, data) = (barrier.clone(), data.clone());
            spawn_in(positions[1], move || {
                let ended = barrier.try_wait_parity_for(false, Duration::from_micros(1));
                outcomes.record(ended);
                if !ended {
                    barrier.wait_parity(false);
                }
                assert!(barrier.try_wait_parity(false));
                assert_eq!(data.get(), 5);
            })
        };
        producer.join().unwrap();
        consumer.join().unwrap();
    });
}

#[test]
fn barrier_parity_waits_order_the_data() {
    let outcomes = Outcomes::new();
    parity_consumer::<Device>([B0, B1], outcomes);
    outcomes.assert_both();
}

#[test]
#[should_panic(expected = "scope race")]
fn block_barrier_parity_wait_across_blocks_is_a_scope_race() {
    parity_consumer::<Block>([B0, B1], Outcomes::new());
}

#[test]
fn semaphore_try_acquire_until_orders_the_data_when_it_takes_a_unit() {
    let outcomes = Outcomes::new();
    model(move || {
        set_position(Position::host());
        let semaphore = Arc::new(BinarySemaphore::<Device>::new(0));
        let data = Arc::new(Plain::new(0u32));
        let releaser = {
            let (semaphore, data) = (semaphore.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(3);
                semaphore.release(1);
            })
        };
        let taker = {
            let (semaphore, data) = (semaphore.clone(), data.clone());
            spawn_in(B1, move || {
                let took = semaphore.try_acquire_until(Instant::now() + Duration::from_micros(1));
                outcomes.record(took);
                if !took {
                    semaphore.acquire();
                }
                assert_eq!(data.get(), 3);
            })
        };
        releaser.join().unwrap();
        taker.join().unwrap();
    });
    outcomes.assert_both();
}

#[test]
fn atomic_wait_for_orders_the_data_when_it_sees_the_change() {
    let outcomes = Outcomes::new();
    model(move || {
        set_position(Position::host());
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let data = Arc::new(Plain::new(0u32));
        let notifier = {
            let (flag, data) = (flag.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(11);
                flag.store(1, Ordering::Release);
                flag.notify_one();
            })
        };
        let waiter = {
            let (flag, data) = (flag.clone(), data.clone());
            spawn_in(B1, move || {
                let changed = flag.wait_for(0, Ordering::Acquire, Duration::from_micros(1));
                outcomes.record(changed);
                if !changed {
                    flag.wait(0, Ordering::Acquire);
                }
                assert_eq!(data.get(), 11);
            })
        };
        notifier.join().unwrap();
        waiter.join().unwrap();
    });
    outcomes.assert_both();
}
