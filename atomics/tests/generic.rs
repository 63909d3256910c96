//! Generic code over the value type and the scope of `Atomic<T, S>` / `AtomicRef<'a, T, S>`
//! (issue 14): it compiles, type inference picks the one `new`, and a generic reduction and a
//! generic lock-free queue give the results a sequential run would.

use scoped_atomics::{
    Atomic, AtomicArithmetic, AtomicBitwise, AtomicFloat, AtomicInteger, AtomicIntegerReduce,
    AtomicPrimitive, AtomicReduce, AtomicRef, Block, Cluster, Device, Ordering::*, PlainScope,
    System, Thread,
};
use std::collections::HashMap;
use std::sync::Arc;

const THREADS: usize = if cfg!(miri) { 2 } else { 4 };
const ITEMS: usize = if cfg!(miri) { 12 } else { 500 };

/// The obvious spellings infer `T` and `S` without naming a per-type impl (these were E0034).
#[test]
fn inference_finds_the_one_constructor() {
    let a: Arc<Atomic<u32, Device>> = Arc::new(Atomic::new(0));
    let b: Atomic<u32> = Atomic::new(7);
    let c = Atomic::<_, Block>::new(1.5f32);
    let d: Atomic<bool, Thread> = Atomic::from(true);
    let e: Atomic<*mut u8, Cluster> = Default::default();
    static F: Atomic<i16, Device> = Atomic::new(-3);
    a.fetch_add(2, Relaxed);
    assert_eq!(a.load(Relaxed), 2);
    assert_eq!(b.into_inner(), 7);
    assert_eq!(c.load(Relaxed), 1.5);
    assert!(d.load(Relaxed));
    assert!(e.load(Relaxed).is_null());
    assert_eq!(F.load(Relaxed), -3);
    let _: &Atomic<u32, System> = &Atomic::default();
}

/// Sums `values` into `total` from every thread, with the fetching and the reducing form.
fn reduce<T: AtomicReduce + Sync, S: PlainScope>(total: &Atomic<T, S>, values: &[T]) {
    std::thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                for (i, &v) in values.iter().enumerate() {
                    if (i + t) % 2 == 0 {
                        total.fetch_add(v, Relaxed);
                    } else {
                        total.add(v, Relaxed);
                    }
                }
            });
        }
    });
}

fn reduction_at<S: PlainScope>() {
    let ints: Vec<u32> = (0..ITEMS as u32).collect();
    let u = Atomic::<u32, S>::new(0);
    reduce(&u, &ints);
    assert_eq!(
        u.load(Acquire),
        THREADS as u32 * ints.iter().sum::<u32>(),
        "u32 at {}",
        S::KIND
    );

    let wide: Vec<u64> = (0..ITEMS as u64).map(|i| i << 33).collect();
    let w = Atomic::<u64, S>::new(0);
    reduce(&w, &wide);
    let expected = wide.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    assert_eq!(w.load(Acquire), expected.wrapping_mul(THREADS as u64));

    // Quarters and halves add exactly at any order, so the float sum is exact.
    let floats: Vec<f32> = (0..ITEMS).map(|i| (i % 4) as f32 * 0.25).collect();
    let f = Atomic::<f32, S>::new(0.0);
    reduce(&f, &floats);
    assert_eq!(f.load(Acquire), THREADS as f32 * floats.iter().sum::<f32>());
}

#[test]
fn generic_reduction_over_u32_u64_f32_at_every_scope() {
    reduction_at::<Thread>();
    reduction_at::<Block>();
    reduction_at::<Cluster>();
    reduction_at::<Device>();
    reduction_at::<System>();
}

/// A bounded multi-producer multi-consumer queue over any atomic value type and scope (Vyukov's
/// bounded queue): slot `i` holds a sequence number that says whether it is free for the
/// producer of ticket `i` or full for the consumer of ticket `i`.
struct Queue<T: AtomicPrimitive, S: PlainScope, const N: usize> {
    sequence: [Atomic<usize, S>; N],
    value: [Atomic<T, S>; N],
    head: Atomic<usize, S>,
    tail: Atomic<usize, S>,
}

impl<T: AtomicPrimitive, S: PlainScope, const N: usize> Queue<T, S, N> {
    fn new() -> Self {
        Self {
            sequence: core::array::from_fn(Atomic::new),
            value: core::array::from_fn(|_| Atomic::default()),
            head: Atomic::new(0),
            tail: Atomic::new(0),
        }
    }

    fn push(&self, value: T) -> Result<(), T> {
        let mut ticket = self.tail.load(Relaxed);
        loop {
            let slot = ticket % N;
            let sequence = self.sequence[slot].load(Acquire);
            match sequence.cmp(&ticket) {
                core::cmp::Ordering::Equal => {
                    match self
                        .tail
                        .compare_exchange_weak(ticket, ticket + 1, Relaxed, Relaxed)
                    {
                        Ok(_) => {
                            self.value[slot].store(value, Relaxed);
                            self.sequence[slot].store(ticket + 1, Release);
                            return Ok(());
                        }
                        Err(now) => ticket = now,
                    }
                }
                core::cmp::Ordering::Less => return Err(value), // full
                core::cmp::Ordering::Greater => ticket = self.tail.load(Relaxed),
            }
        }
    }

    fn pop(&self) -> Option<T> {
        let mut ticket = self.head.load(Relaxed);
        loop {
            let slot = ticket % N;
            let sequence = self.sequence[slot].load(Acquire);
            match sequence.cmp(&(ticket + 1)) {
                core::cmp::Ordering::Equal => {
                    match self
                        .head
                        .compare_exchange_weak(ticket, ticket + 1, Relaxed, Relaxed)
                    {
                        Ok(_) => {
                            let value = self.value[slot].load(Relaxed);
                            self.sequence[slot].store(ticket + N, Release);
                            return Some(value);
                        }
                        Err(now) => ticket = now,
                    }
                }
                core::cmp::Ordering::Less => return None, // empty
                core::cmp::Ordering::Greater => ticket = self.head.load(Relaxed),
            }
        }
    }
}

/// Every value pushed by `THREADS` producers is popped exactly once by `THREADS` consumers.
fn queue_round_trip<T, S>(make: impl Fn(usize) -> T + Sync, key: impl Fn(T) -> u64 + Sync)
where
    T: AtomicPrimitive,
    S: PlainScope,
{
    let queue = Queue::<T, S, 8>::new();
    let popped: Vec<Vec<u64>> = std::thread::scope(|s| {
        for p in 0..THREADS {
            let (queue, make) = (&queue, &make);
            s.spawn(move || {
                for i in 0..ITEMS {
                    let mut value = make(p * ITEMS + i);
                    while let Err(back) = queue.push(value) {
                        value = back;
                        std::thread::yield_now();
                    }
                }
            });
        }
        let consumers: Vec<_> = (0..THREADS)
            .map(|_| {
                let (queue, key) = (&queue, &key);
                s.spawn(move || {
                    let mut got = Vec::new();
                    while got.len() < ITEMS {
                        match queue.pop() {
                            Some(v) => got.push(key(v)),
                            None => std::thread::yield_now(),
                        }
                    }
                    got
                })
            })
            .collect();
        consumers.into_iter().map(|c| c.join().unwrap()).collect()
    });
    let mut counts = HashMap::new();
    for k in popped.into_iter().flatten() {
        *counts.entry(k).or_insert(0) += 1;
    }
    assert_eq!(
        counts.len(),
        THREADS * ITEMS,
        "a value was lost or duplicated"
    );
    assert!(counts.values().all(|&c| c == 1));
    assert_eq!(queue.pop().map(&key), None);
}

#[test]
fn generic_lock_free_queue_over_integers_floats_and_pointers() {
    queue_round_trip::<u64, Device>(|i| i as u64, |v| v);
    queue_round_trip::<i16, Block>(|i| i as i16, |v| v as u16 as u64);
    queue_round_trip::<f32, System>(|i| i as f32, |v| v as u64);
    queue_round_trip::<*mut u8, Device>(std::ptr::without_provenance_mut, |p| p.addr() as u64);
}

/// Each capability bound gives exactly its methods, with `core`'s results; the traits compose.
fn integer_ops<
    T: AtomicInteger + AtomicIntegerReduce + PartialEq + core::fmt::Debug,
    S: PlainScope,
>(
    five: T,
    ten: T,
) {
    let a = Atomic::<T, S>::new(five);
    assert_eq!(a.fetch_or(ten, AcqRel), five);
    a.fetch_and(ten, AcqRel); // (5 | 10) & 10
    assert_eq!(a.load(Relaxed), ten);
    a.xor(ten, Relaxed);
    a.max(ten, Release);
    assert_eq!(a.load(Relaxed), ten);
    assert_eq!(a.fetch_min(five, Relaxed), ten);
    assert_eq!(a.load(Relaxed), five);
}

fn float_ops<T: AtomicFloat + Into<f64>, S: PlainScope>(one: T, nan: T) {
    let a = Atomic::<T, S>::new(nan);
    assert!(a.fetch_max(one, Relaxed).into().is_nan());
    assert_eq!(a.load(Relaxed).into(), 1.0);
    a.fetch_min(nan, Relaxed); // a NaN operand is ignored
    assert_eq!(a.load(Relaxed).into(), 1.0);
}

fn bitwise_through_ref<T: AtomicBitwise + PartialEq + core::fmt::Debug, S: PlainScope>(
    value: &mut T,
    set: T,
) {
    let r = AtomicRef::<T, S>::new(value);
    let before = r.fetch_or(set, AcqRel);
    r.fetch_xor(set, AcqRel);
    assert_eq!(r.load(Relaxed), {
        let a = Atomic::<T, S>::new(before);
        a.fetch_or(set, Relaxed);
        a.fetch_xor(set, Relaxed);
        a.into_inner()
    });
}

fn arithmetic_through_ref<T: AtomicArithmetic + PartialEq + core::fmt::Debug, S: PlainScope>(
    value: &mut T,
    step: T,
) -> T {
    let r = AtomicRef::<T, S>::new(value);
    r.fetch_add(step, Relaxed);
    r.fetch_add(step, Relaxed);
    r.fetch_sub(step, Relaxed)
}

#[test]
fn capability_bounds_give_their_methods() {
    integer_ops::<u32, Device>(5, 10);
    integer_ops::<i64, Block>(5, 10);
    integer_ops::<usize, System>(5, 10);
    float_ops::<f32, Device>(1.0, f32::NAN);
    float_ops::<f64, Thread>(1.0, f64::NAN);
    let (mut x, mut flag) = (0b0101u8, false);
    bitwise_through_ref::<u8, Block>(&mut x, 0b1000);
    bitwise_through_ref::<bool, Device>(&mut flag, true);
    assert_eq!((x, flag), (0b0101, false));
    let mut f = 1.0f64;
    assert_eq!(arithmetic_through_ref::<f64, Device>(&mut f, 0.5), 2.0);
    assert_eq!(f, 1.5);
    let mut i = 250u8;
    assert_eq!(arithmetic_through_ref::<u8, Device>(&mut i, 5), 4);
    assert_eq!(i, 255);
}
