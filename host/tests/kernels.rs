//! The example kernels of `gpu-kernels`, run on host threads by the executor, each checked against
//! the exact result computed directly.

use gpu_kernels::kernels::{self, BINS, RING_SLOTS, Ring};
use host::executor::launch;
use scoped_atomics::kernel::Dim3;
use scoped_atomics::{Barrier, Device};

/// A deterministic pseudo-random input (xorshift), so the histogram is not trivially uniform.
fn input(len: usize, seed: u32) -> Vec<u32> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}

/// Raw pointers are `Send + Sync` for the kernel closure, as kernel arguments are.
struct Arg<T>(*mut T);
impl<T> Clone for Arg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Arg<T> {}
// SAFETY: the kernels synchronise every access through the pointers (their documented contract).
unsafe impl<T> Send for Arg<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Arg<T> {}

#[test]
fn histogram_counts_every_value_exactly() {
    for (grid, block, len) in [
        (1, 32, 1000),
        (3, 64, 10_007),
        (4, 16, 5),
        (2, 3, 500),
        (1, 1, 64),
    ] {
        let data = input(len, 0x9e37_79b9 ^ len as u32);
        let mut bins = [0u32; BINS];
        let (data_ptr, bins_ptr) = (Arg(data.as_ptr().cast_mut()), Arg(bins.as_mut_ptr()));
        launch(Dim3::x(grid), Dim3::x(block), move || {
            let (data_ptr, bins_ptr) = (data_ptr, bins_ptr);
            // SAFETY: `data` has `len` values and `bins` BINS counters, both live for the launch.
            unsafe { kernels::histogram(data_ptr.0, len, bins_ptr.0) }
        })
        .unwrap();
        let mut expected = [0u32; BINS];
        data.iter().for_each(|&v| expected[v as usize % BINS] += 1);
        assert_eq!(bins, expected, "grid {grid} × block {block}, {len} values");
    }
}

#[test]
fn message_passing_delivers_the_data_across_blocks() {
    for _ in 0..20 {
        let (mut data, mut flag, mut result) = (0u32, 0u32, 0u32);
        let args = (Arg(&raw mut data), Arg(&raw mut flag), Arg(&raw mut result));
        launch(Dim3::x(2), Dim3::x(4), move || {
            let args = args;
            // SAFETY: the three locations are live for the launch.
            unsafe { kernels::message_passing(args.0.0, args.1.0, args.2.0) }
        })
        .unwrap();
        assert_eq!((data, flag, result), (42, 1, 42));
    }
}

#[test]
fn grid_barrier_orders_every_phase() {
    let (grid, block, phases) = (4u32, 8u32, 5u32);
    let n = (grid * block) as usize;
    let barrier = Barrier::<Device>::new(grid * block);
    let (mut slots, mut sums) = (vec![0u32; n], vec![0u32; n]);
    let args = (
        Arg((&raw const barrier).cast_mut()),
        Arg(slots.as_mut_ptr()),
        Arg(sums.as_mut_ptr()),
    );
    launch(Dim3::x(grid), Dim3::x(block), move || {
        let args = args;
        // SAFETY: the barrier expects every thread; `slots` and `sums` have one entry per thread.
        unsafe { kernels::grid_barrier(args.0.0, args.1.0, args.2.0, phases) }
    })
    .unwrap();
    for (i, &sum) in sums.iter().enumerate() {
        let neighbour = ((i + 1) % n) as u32;
        let expected: u32 = (0..phases).map(|p| p * 1000 + neighbour).sum();
        assert_eq!(sum, expected, "thread {i}");
    }
}

#[test]
fn ring_carries_every_value_in_order_from_device_to_host() {
    let count = 10 * RING_SLOTS as u32 + 3;
    let mut ring = Ring::new();
    let ring_ptr = Arg(&raw mut ring);
    std::thread::scope(|s| {
        // One host thread plays the device: a one-thread launch of the producer kernel.
        s.spawn(move || {
            let ring_ptr = ring_ptr;
            launch(Dim3::x(1), Dim3::x(1), move || {
                let ring_ptr = ring_ptr;
                // SAFETY: the ring is live for the launch; this is its only producer.
                unsafe { kernels::ring_producer(ring_ptr.0, 100, count) }
            })
            .unwrap();
        });
        let ring_ptr = ring_ptr;
        for k in 0..count {
            // SAFETY: the ring is live; this is its only consumer.
            assert_eq!(unsafe { Ring::pop(ring_ptr.0) }, 100 + k);
        }
    });
    assert_eq!(ring.head.into_inner(), count);
}
