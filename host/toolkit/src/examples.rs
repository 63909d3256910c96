//! The example kernels of `gpu-kernels` run on host threads by the executor, each checked against
//! the exact result computed directly. Used by the `demo` command and the `kernels` test.

pub mod mapped_ring;

use crate::executor::launch;
use gpu_kernels::kernels::{self, BINS, RING_SLOTS, Ring};
use scoped_atomics::kernel::Dim3;
use scoped_atomics::{Barrier, Device};

/// A kernel argument: a raw pointer, `Send + Sync` as kernel arguments are (the kernels
/// synchronise every access through it, their documented contract).
pub struct Arg<T>(pub *mut T);

impl<T> Clone for Arg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Arg<T> {}
// SAFETY: see the type's documentation.
unsafe impl<T> Send for Arg<T> {}
// SAFETY: see the type's documentation.
unsafe impl<T> Sync for Arg<T> {}

/// A deterministic pseudo-random input (xorshift), so the histogram is not trivially uniform.
pub fn histogram_input(len: usize, seed: u32) -> Vec<u32> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}

/// The histogram computed directly.
pub fn histogram_expected(input: &[u32]) -> [u32; BINS] {
    let mut bins = [0u32; BINS];
    input.iter().for_each(|&v| bins[v as usize % BINS] += 1);
    bins
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, expected: T) -> Result<(), String> {
    if got == expected {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, expected {expected:?}"))
    }
}

/// The histogram kernel over `len` values on a `grid` × `block` launch.
pub fn histogram(grid: u32, block: u32, len: usize) -> Result<(), String> {
    let input = histogram_input(len, 0x9e37_79b9 ^ len as u32);
    let mut bins = [0u32; BINS];
    let (data, out) = (Arg(input.as_ptr().cast_mut()), Arg(bins.as_mut_ptr()));
    launch(Dim3::x(grid), Dim3::x(block), move || {
        let (data, out) = (data, out);
        // SAFETY: `input` has `len` values and `bins` BINS counters, live for the launch.
        unsafe { kernels::histogram(data.0, len, out.0) }
    })
    .map_err(|e| e.to_string())?;
    check(
        &format!("histogram {grid}×{block}, {len} values"),
        bins,
        histogram_expected(&input),
    )
}

/// Cross-block message passing on 2 blocks of `block` threads.
pub fn message_passing(block: u32) -> Result<(), String> {
    let mut cells = [0u32; 3];
    let base = Arg(cells.as_mut_ptr());
    launch(Dim3::x(2), Dim3::x(block), move || {
        let base = base;
        // SAFETY: three cells (data, flag, result), live for the launch.
        unsafe { kernels::message_passing(base.0, base.0.add(1), base.0.add(2)) }
    })
    .map_err(|e| e.to_string())?;
    check("message passing (data, flag, result)", cells, [42, 1, 42])
}

/// The grid-wide barrier on `Barrier<Device>` over `phases` phases.
pub fn grid_barrier(grid: u32, block: u32, phases: u32) -> Result<(), String> {
    let n = (grid * block) as usize;
    let barrier = Barrier::<Device>::new(grid * block);
    let (mut slots, mut sums) = (vec![0u32; n], vec![0u32; n]);
    let args = (
        Arg((&raw const barrier).cast_mut()),
        Arg(slots.as_mut_ptr()),
        Arg(sums.as_mut_ptr()),
    );
    launch(Dim3::x(grid), Dim3::x(block), move || {
        let (b, s, t) = args;
        // SAFETY: the barrier expects every thread; `slots` and `sums` have one entry per thread.
        unsafe { kernels::grid_barrier(b.0, s.0, t.0, phases) }
    })
    .map_err(|e| e.to_string())?;
    check(
        &format!("grid barrier {grid}×{block}, {phases} phases"),
        sums,
        grid_barrier_expected(n, phases),
    )
}

/// What the grid-barrier kernel leaves in `sums` for `threads` threads and `phases` phases:
/// thread `i` adds its right neighbour's slot, `phase * 1000 + (i + 1) % threads`, per phase.
pub fn grid_barrier_expected(threads: usize, phases: u32) -> Vec<u32> {
    (0..threads)
        .map(|i| {
            (0..phases)
                .map(|p| p * 1000 + ((i + 1) % threads) as u32)
                .sum()
        })
        .collect()
}

/// The host↔device ring: a one-thread launch of the producer kernel plays the device, the
/// calling thread consumes `count` values.
pub fn ring(count: u32) -> Result<(), String> {
    let mut ring = Ring::new();
    let ring_ptr = Arg(&raw mut ring);
    let received: Vec<u32> = std::thread::scope(|s| {
        let producer = s.spawn(move || {
            launch(Dim3::x(1), Dim3::x(1), move || {
                let r = ring_ptr;
                // SAFETY: the ring is live for the launch; this is its only producer.
                unsafe { kernels::ring_producer(r.0, 100, count) }
            })
        });
        let r = ring_ptr;
        // SAFETY: the ring is live; this is its only consumer.
        let received = (0..count).map(|_| unsafe { Ring::pop(r.0) }).collect();
        producer.join().expect("producer thread").map(|()| received)
    })
    .map_err(|e| e.to_string())?;
    check(
        &format!("ring ({RING_SLOTS} slots, {count} values)"),
        received,
        (100..100 + count).collect(),
    )
}

/// Every example with the launches the demo and the tests use: (name, result).
pub fn run_all() -> Vec<(String, Result<(), String>)> {
    vec![
        ("histogram 1×32, 1000 values".into(), histogram(1, 32, 1000)),
        (
            "histogram 3×64, 10007 values".into(),
            histogram(3, 64, 10_007),
        ),
        ("histogram 2×3, 500 values".into(), histogram(2, 3, 500)),
        ("message passing 2×4".into(), message_passing(4)),
        ("grid barrier 4×8, 5 phases".into(), grid_barrier(4, 8, 5)),
        (
            "host↔device ring, 83 values".into(),
            ring(10 * RING_SLOTS as u32 + 3),
        ),
    ]
}
