//! The synchronisation primitives under loom, with 2–3 threads: no deadlock or lost wake-up (a
//! model that never finishes an execution fails), the happens-before guarantee (plain data
//! written before `arrive` / `count_down` / `release` / a notified store is read after the
//! matching wait without a race), barrier reuse over two phases with the completion run exactly
//! once per phase, and a primitive of too narrow a scope reported as a scope race.

#![cfg(loom)]

use loom::sync::Arc;
use loom_tests::{Plain, model};
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{
    Atomic, Barrier, BinarySemaphore, Block, CompletionScope, Device, Latch, Ordering, System,
};

const B0: Position = Position::gpu(0, 0);
const B1: Position = Position::gpu(0, 1);

/// Two threads, two phases: in each phase each thread writes its slot of the phase, arrives and
/// waits, and reads the other thread's slot. The completion counts its runs in plain data, which
/// only the last arriver of a phase may touch.
fn barrier_two_phases<S: CompletionScope>(positions: [Position; 2]) {
    model(move || {
        set_position(Position::host());
        let runs = Arc::new(Plain::new(0u32));
        let barrier = {
            let runs = runs.clone();
            Arc::new(Barrier::<S, _>::with_completion(2, move || {
                runs.set(runs.get() + 1)
            }))
        };
        // One pair of slots per phase, so that a phase's writes never overwrite what the other
        // thread may still be reading from the previous one.
        let slots = Arc::new([
            [Plain::new(0u32), Plain::new(0u32)],
            [Plain::new(0u32), Plain::new(0u32)],
        ]);
        let threads: Vec<_> = (0..2)
            .map(|me| {
                let (barrier, slots) = (barrier.clone(), slots.clone());
                spawn_in(positions[me], move || {
                    for phase in 0..2 {
                        slots[phase][me].set(phase as u32 * 10 + me as u32 + 1);
                        barrier.arrive_and_wait();
                        let other = 1 - me;
                        assert_eq!(
                            slots[phase][other].get(),
                            phase as u32 * 10 + other as u32 + 1
                        );
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(runs.get(), 2, "the completion runs once per phase");
    });
}

#[test]
fn barrier_orders_every_phase_and_completes_once_per_phase() {
    barrier_two_phases::<Device>([B0, B1]);
}

#[test]
fn block_barrier_within_one_block_is_correct() {
    barrier_two_phases::<Block>([B0, B0.thread(1)]);
}

#[test]
#[should_panic(expected = "scope race")]
fn block_barrier_across_blocks_is_a_scope_race() {
    barrier_two_phases::<Block>([B0, B1]);
}

#[test]
fn barrier_split_arrive_and_wait_with_a_token() {
    model(|| {
        set_position(Position::host());
        let barrier = Arc::new(Barrier::<Device>::new(2));
        let data = Arc::new(Plain::new(0u32));
        let writer = {
            let (barrier, data) = (barrier.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(7);
                let token = barrier.arrive();
                barrier.wait(token);
            })
        };
        let reader = {
            let (barrier, data) = (barrier.clone(), data.clone());
            spawn_in(B1, move || {
                let token = barrier.arrive();
                barrier.wait(token);
                assert_eq!(data.get(), 7);
            })
        };
        writer.join().unwrap();
        reader.join().unwrap();
    });
}

/// The waiter is a host thread, so the latch has system scope (a device-scope latch would be a
/// scope race with the host, as the mirror reports).
#[test]
fn latch_waiters_see_every_count_down() {
    model(|| {
        set_position(Position::host());
        let latch = Arc::new(Latch::<System>::new(2));
        let data = Arc::new([Plain::new(0u32), Plain::new(0u32)]);
        let workers: Vec<_> = (0..2)
            .map(|me| {
                let (latch, data) = (latch.clone(), data.clone());
                spawn_in([B0, B1][me], move || {
                    data[me].set(me as u32 + 1);
                    latch.count_down(1);
                })
            })
            .collect();
        latch.wait();
        assert_eq!((data[0].get(), data[1].get()), (1, 2));
        for w in workers {
            w.join().unwrap();
        }
    });
}

#[test]
fn binary_semaphore_excludes_and_orders() {
    model(|| {
        set_position(Position::host());
        let semaphore = Arc::new(BinarySemaphore::<Device>::new(1));
        let counter = Arc::new(Plain::new(0u32));
        let holders = Arc::new(Atomic::<u32, Device>::new(0));
        let threads: Vec<_> = [B0, B1]
            .into_iter()
            .map(|position| {
                let (semaphore, counter, holders) =
                    (semaphore.clone(), counter.clone(), holders.clone());
                spawn_in(position, move || {
                    semaphore.acquire();
                    assert_eq!(
                        holders.fetch_add(1, Ordering::Relaxed),
                        0,
                        "two holders at once"
                    );
                    counter.set(counter.get() + 1); // plain: a race if the semaphore did not order
                    holders.fetch_sub(1, Ordering::Relaxed);
                    semaphore.release(1);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(counter.get(), 2);
    });
}

#[test]
fn wait_returns_after_a_notified_store_and_sees_the_data() {
    model(|| {
        set_position(Position::host());
        let flag = Arc::new(Atomic::<u32, Device>::new(0));
        let data = Arc::new(Plain::new(0u32));
        let notifier = {
            let (flag, data) = (flag.clone(), data.clone());
            spawn_in(B0, move || {
                data.set(5);
                flag.store(1, Ordering::Release);
                flag.notify_all();
            })
        };
        let waiter = {
            let (flag, data) = (flag.clone(), data.clone());
            spawn_in(B1, move || {
                flag.wait(0, Ordering::Acquire);
                assert_eq!(data.get(), 5);
            })
        };
        notifier.join().unwrap();
        waiter.join().unwrap();
    });
}
