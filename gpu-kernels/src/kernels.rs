//! The example kernels, written once: each body is a plain function over the kernel API of
//! `scoped_atomics::kernel`, run as PTX (the entry point of the same name that `#[kernel]`
//! writes), on host threads and under loom (the `scoped-atomics-host` crate's executor).
//!
//! Pointers are kernel arguments: device (or mapped) memory on the GPU, the caller's memory on the
//! host. Every function is `unsafe` for the same reason as a CUDA kernel launch: the pointers must
//! be valid for the extents the launch implies.

use scoped_atomics::kernel::{
    WARP_SIZE, block_dim, block_idx, grid_dim, sync_threads, sync_warp, thread_idx,
};
use scoped_atomics::{AtomicRef, Barrier, Block, Device, Ordering, block_shared, kernel, plain};

/// Number of bins of the histogram kernel.
pub const BINS: usize = 16;

/// The global linear index of this thread (1-D launches) and the number of threads in the grid.
#[inline(always)]
fn global_thread() -> (usize, usize) {
    let (block, threads) = (
        block_dim().x as usize,
        grid_dim().x as usize * block_dim().x as usize,
    );
    (
        block_idx().x as usize * block + thread_idx().x as usize,
        threads,
    )
}

/// Histogram of `len` values (each taken modulo [`BINS`]) into `bins`: block-scope counters in
/// shared memory, merged into the device-scope global counters with one reduction per bin.
///
/// The shared bins are reached with `from_shared_ptr` and the global ones with `from_global_ptr`
/// (the `.shared` and `.global` forms on the device).
///
/// # Safety
/// `input` is valid for `len` reads and `bins` for [`BINS`] atomic `u32`s in global memory.
#[kernel]
pub unsafe fn histogram(input: *const u32, len: usize, bins: *mut u32) {
    let local = block_shared!(LOCAL_BINS: [u32; BINS]).cast::<u32>();
    // The block's threads share out the bins, whatever the block size.
    let my_bins = (thread_idx().x as usize..BINS).step_by(block_dim().x as usize);
    for bin in my_bins.clone() {
        // SAFETY: `bin < BINS` of the block's shared array; before the barrier only this thread
        // touches this bin.
        unsafe { AtomicRef::<u32, Block>::from_shared_ptr(local.add(bin)) }
            .store(0, Ordering::Relaxed);
    }
    sync_threads();
    let (mut i, stride) = global_thread();
    while i < len {
        // SAFETY: `i < len`.
        let bin = unsafe { input.add(i).read() } as usize % BINS;
        // SAFETY: `bin < BINS` of the block's shared array; all accesses to the bin are atomic.
        unsafe { AtomicRef::<u32, Block>::from_shared_ptr(local.add(bin)) }
            .add(1, Ordering::Relaxed);
        i += stride;
    }
    sync_threads();
    for bin in my_bins {
        // SAFETY: `bin < BINS`; the barrier ordered every block-local increment before this load.
        let local_bin = unsafe { AtomicRef::<u32, Block>::from_shared_ptr(local.add(bin)) };
        let count = local_bin.load(Ordering::Relaxed);
        if count != 0 {
            // SAFETY: the caller's contract on `bins` (global memory).
            unsafe { AtomicRef::<u32, Device>::from_global_ptr(bins.add(bin)) }
                .add(count, Ordering::Relaxed);
        }
    }
}

/// Cross-block message passing (the libcu++ memory-model example): thread 0 of block 0 writes
/// `*data` and raises `*flag` with a device-scope release; thread 0 of block 1 waits for the flag
/// with a device-scope acquire and copies the data to `*result`.
///
/// # Safety
/// The pointers are valid, `flag` in global memory; launch with at least two blocks.
#[kernel]
pub unsafe fn message_passing(data: *mut u32, flag: *mut u32, result: *mut u32) {
    // SAFETY: the caller's contract.
    unsafe { message_passing_in::<Device>(data, flag, result) }
}

/// The data-race variant: the flag has block scope, which does not include the other block. On a
/// GPU this is undefined behaviour; the loom mirror reports it.
///
/// # Safety
/// As for [`message_passing`].
#[kernel]
pub unsafe fn message_passing_block_scope_bug(data: *mut u32, flag: *mut u32, result: *mut u32) {
    // SAFETY: the caller's contract.
    unsafe { message_passing_in::<Block>(data, flag, result) }
}

unsafe fn message_passing_in<S: scoped_atomics::PlainScope>(
    data: *mut u32,
    flag: *mut u32,
    result: *mut u32,
) {
    if thread_idx().x != 0 {
        return;
    }
    // SAFETY: the caller's contract (global memory); the flag is only accessed atomically.
    let flag = unsafe { AtomicRef::<u32, S>::from_global_ptr(flag) };
    match block_idx().x {
        0 => {
            // SAFETY: only this thread writes `data`, before the release.
            unsafe { data.write_volatile(42) };
            flag.store(1, Ordering::Release);
        }
        1 => {
            while flag.load(Ordering::Acquire) != 1 {
                scoped_atomics::kernel::nanosleep(32);
            }
            // SAFETY: the acquire above ordered the write of `data` before this read.
            unsafe { result.write(data.read_volatile()) };
        }
        _ => {}
    }
}

/// Counts the values of `input` above `threshold`. Each block counts into a block-shared counter
/// that thread 0 initialises with a plain store; after a `sync_threads` the block's threads add to
/// it with block-scope atomics; after another, thread 0 reads it plainly, writes the block's count
/// plainly to `counts[block]` and adds it to `*total` with a device-scope reduction. The plain
/// accesses are `scoped_atomics::plain`, a plain `ld`/`st` on the device, and checked against the
/// atomic ones by the loom mirror: without the first `sync_threads`, the initialisation races
/// with the other threads' increments.
///
/// # Safety
/// `input` is valid for `len` reads, `counts` for one `u32` per block, and `total` for an atomic
/// `u32` in global memory.
#[kernel]
pub unsafe fn count_above(
    input: *const u32,
    len: usize,
    threshold: u32,
    counts: *mut u32,
    total: *mut u32,
) {
    let counter = block_shared!(BLOCK_COUNT: [u32; 1]).cast::<u32>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory; the barrier below orders this before every increment.
        unsafe { plain::write(counter, 0) };
    }
    sync_threads();
    let (mut i, stride) = global_thread();
    while i < len {
        // SAFETY: `i < len`.
        if unsafe { input.add(i).read() } > threshold {
            // SAFETY: the block's shared counter; every access to it between the two barriers is
            // atomic.
            unsafe { AtomicRef::<u32, Block>::from_shared_ptr(counter) }.add(1, Ordering::Relaxed);
        }
        i += stride;
    }
    sync_threads();
    if thread_idx().x == 0 {
        // SAFETY: the barrier ordered every increment before this read.
        let count = unsafe { plain::read(counter) };
        // SAFETY: the caller's contract; only this thread writes this block's count.
        unsafe { plain::write(counts.add(block_idx().x as usize), count) };
        // SAFETY: the caller's contract; every access to `total` during the launch is atomic.
        unsafe { AtomicRef::<u32, Device>::from_global_ptr(total) }.add(count, Ordering::Relaxed);
    }
}

/// A grid-wide barrier on `Barrier<Device>`: for `phases` rounds, every thread writes its slot,
/// waits at the grid barrier, adds its right neighbour's slot into `sums[i]`, and waits again.
/// The grid must be fully resident (a cooperative launch).
///
/// # Safety
/// `barrier` is a `Barrier<Device>` expecting every thread of the grid; `slots` and `sums` hold
/// one `u32` per thread of the grid.
#[kernel]
pub unsafe fn grid_barrier(
    barrier: *const Barrier<Device>,
    slots: *mut u32,
    sums: *mut u32,
    phases: u32,
) {
    // SAFETY: the caller's contract.
    let barrier = unsafe { &*barrier };
    let (i, n) = global_thread();
    let mut sum = 0u32;
    for phase in 0..phases {
        // SAFETY: slot `i` is this thread's; the barrier orders it before the neighbour's read.
        unsafe { slots.add(i).write_volatile(phase * 1000 + i as u32) };
        barrier.arrive_and_wait();
        // SAFETY: written before the barrier by the neighbour, read before the next barrier.
        sum = sum.wrapping_add(unsafe { slots.add((i + 1) % n).read_volatile() });
        barrier.arrive_and_wait();
    }
    // SAFETY: sum `i` is this thread's.
    unsafe { sums.add(i).write(sum) };
}

/// The slots of a [`Ring`].
pub const RING_SLOTS: usize = 8;

/// A single-producer single-consumer ring in memory shared by host and device, with system-scope
/// indices: the device produces, the host consumes (or the other way round).
///
/// The memory must be reachable and atomic at system scope from both sides: on a GPU, mapped
/// (`cuMemHostAlloc` with `CU_MEMHOSTALLOC_DEVICEMAP`) or managed memory; the libcu++ memory model
/// page says when system-scope atomics are atomic there (loads and stores of naturally aligned
/// 4-byte values are, on mapped memory, which is all this ring needs).
#[repr(C)]
pub struct Ring {
    /// The next slot the producer writes (count of values pushed).
    pub head: scoped_atomics::system::AtomicU32,
    /// The next slot the consumer reads (count of values popped).
    pub tail: scoped_atomics::system::AtomicU32,
    /// The values.
    pub slots: [u32; RING_SLOTS],
}

// The layout both sides rely on (not under loom, whose atomics are model objects).
#[cfg(not(loom))]
mod ring_layout {
    use super::{RING_SLOTS, Ring};
    static_assertions::assert_eq_size!(Ring, [u32; 2 + RING_SLOTS]);
    static_assertions::assert_eq_align!(Ring, u32);
    static_assertions::const_assert_eq!(core::mem::offset_of!(Ring, head), 0);
    static_assertions::const_assert_eq!(core::mem::offset_of!(Ring, tail), 4);
    static_assertions::const_assert_eq!(core::mem::offset_of!(Ring, slots), 8);
}

impl Ring {
    /// An empty ring.
    pub fn new() -> Self {
        Ring {
            head: scoped_atomics::system::AtomicU32::new(0),
            tail: scoped_atomics::system::AtomicU32::new(0),
            slots: [0; RING_SLOTS],
        }
    }

    /// Pushes `value`, spinning while the ring is full. Only one thread may push.
    ///
    /// # Safety
    /// `ring` points to a live ring with a single producer.
    pub unsafe fn push(ring: *mut Ring, value: u32) {
        // SAFETY: the caller's contract.
        let (head, tail) = unsafe { (&(*ring).head, &(*ring).tail) };
        let h = head.load(Ordering::Relaxed);
        while h.wrapping_sub(tail.load(Ordering::Acquire)) as usize == RING_SLOTS {
            scoped_atomics::kernel::nanosleep(64);
        }
        // SAFETY: slot `h` is free (the consumer released it) and only the producer writes it.
        unsafe {
            (&raw mut (*ring).slots)
                .cast::<u32>()
                .add(h as usize % RING_SLOTS)
                .write_volatile(value)
        };
        head.store(h.wrapping_add(1), Ordering::Release);
    }

    /// Pops a value, spinning while the ring is empty. Only one thread may pop.
    ///
    /// # Safety
    /// `ring` points to a live ring with a single consumer.
    pub unsafe fn pop(ring: *mut Ring) -> u32 {
        // SAFETY: the caller's contract.
        let (head, tail) = unsafe { (&(*ring).head, &(*ring).tail) };
        let t = tail.load(Ordering::Relaxed);
        while head.load(Ordering::Acquire) == t {
            scoped_atomics::kernel::nanosleep(64);
        }
        // SAFETY: slot `t` was published by the producer's release of `head`.
        let value = unsafe {
            (&raw const (*ring).slots)
                .cast::<u32>()
                .add(t as usize % RING_SLOTS)
                .read_volatile()
        };
        tail.store(t.wrapping_add(1), Ordering::Release);
        value
    }
}

impl Default for Ring {
    fn default() -> Self {
        Self::new()
    }
}

/// The device side of the ring demo: thread 0 of block 0 pushes `count` values `first, first+1, …`.
///
/// # Safety
/// `ring` points to a live ring in memory the host can read (see [`Ring`]).
#[kernel]
pub unsafe fn ring_producer(ring: *mut Ring, first: u32, count: u32) {
    if thread_idx().x == 0 && block_idx().x == 0 {
        for k in 0..count {
            // SAFETY: the caller's contract; this is the only producer.
            unsafe { Ring::push(ring, first.wrapping_add(k)) };
        }
    }
}

/// Warp-level publication with [`sync_warp`]: each thread writes `7 × index + 1` to its slot of
/// `slots` with a plain store, the threads of its warp sync, and each thread copies into `out`
/// the slot of the thread at the mirrored place of its warp (lane `n − 1 − i` of a warp of `n`
/// threads). The mask names exactly the warp's threads, so a last warp of fewer than 32 threads
/// works too. Without the `sync_warp` the plain reads race with the other lanes' plain writes.
///
/// # Safety
/// `slots` and `out` are valid for one `u32` per thread of the grid (global index
/// `block × block size + linear thread index`).
#[kernel]
pub unsafe fn warp_exchange(slots: *mut u32, out: *mut u32) {
    let block_size = block_dim().size();
    let linear = thread_idx().linear(block_dim());
    let warp_base = linear / WARP_SIZE * WARP_SIZE;
    let lanes = (block_size - warp_base).min(WARP_SIZE);
    let lane = linear - warp_base;
    let block_base = (block_idx().linear(grid_dim()) * block_size) as usize;
    let me = block_base + linear as usize;
    // SAFETY: the caller's contract; each thread writes only its own slot before the sync.
    unsafe { slots.add(me).write(7 * me as u32 + 1) };
    sync_warp(u32::MAX >> (WARP_SIZE - lanes));
    let partner = block_base + (warp_base + lanes - 1 - lane) as usize;
    // SAFETY: the sync ordered the partner's write (same warp, in the mask) before this read.
    unsafe { out.add(me).write(slots.add(partner).read()) };
}

/// The most threads per block of [`cluster_exchange`].
pub const CLUSTER_EXCHANGE_MAX_BLOCK: usize = 256;

/// The library's cluster-scope pieces together, in distributed shared memory: a
/// `Barrier<Cluster>` that lives in the shared memory of the cluster's rank 0 and that every
/// block uses through `map_shared_rank`, plain writes to each block's own shared slots read by
/// the next block of the cluster, and a `fence::<Cluster>`. Thread `t` of the block of rank `r`
/// writes `out[2g] = 1000 × next + t` and `out[2g + 1] = 1000 × next + t + 1` (`g` its global
/// index, `next = (r + 1) % cluster size`): what the next block wrote in each of two phases.
///
/// # Safety
/// `out` is valid for two `u32`s per thread of the grid; blocks of at most
/// [`CLUSTER_EXCHANGE_MAX_BLOCK`] threads; a cluster launch (sm_90 on the device).
#[kernel(cfg(target_feature = "sm_90"))]
pub unsafe fn cluster_exchange(out: *mut u32) {
    use scoped_atomics::kernel::{cluster_rank, cluster_size, cluster_sync, map_shared_rank};
    use scoped_atomics::{Cluster, fence};
    let place = block_shared!(CLUSTER_BARRIER: [Barrier<Cluster>; 1]).cast::<Barrier<Cluster>>();
    let slots = block_shared!(CLUSTER_SLOTS: [u32; CLUSTER_EXCHANGE_MAX_BLOCK]).cast::<u32>();
    let (rank, size) = (cluster_rank(), cluster_size());
    let t = thread_idx().x as usize;
    if rank == 0 && t == 0 {
        // SAFETY: rank 0's shared memory; nobody uses the barrier before the cluster_sync below.
        unsafe { place.write(Barrier::new(size * block_dim().x)) };
    }
    let next = (rank + 1) % size;
    // SAFETY: `t` is below the slots' length (the caller's contract); the thread's own slot.
    unsafe { slots.add(t).write(1000 * rank + t as u32) };
    // The barrier's initialisation and every block's first slots are ordered before what follows,
    // and every block runs.
    cluster_sync();
    // SAFETY: rank 0's barrier, initialised before the cluster_sync.
    let barrier = unsafe { &*map_shared_rank(place, 0) };
    let remote = map_shared_rank(slots, next);
    let g = (block_idx().x * block_dim().x) as usize + t;
    // SAFETY: the next block's slot `t`, written before the cluster_sync; `out` per the contract.
    unsafe { out.add(2 * g).write(remote.add(t).read()) };
    // Every read of phase one is done before any block writes phase two.
    barrier.arrive_and_wait();
    // SAFETY: the thread's own slot, which no thread reads until the barrier below.
    unsafe { slots.add(t).write(1000 * rank + t as u32 + 1) };
    fence::<Cluster>(Ordering::Release);
    barrier.arrive_and_wait();
    // SAFETY: written before the barrier; `out` per the contract.
    unsafe { out.add(2 * g + 1).write(remote.add(t).read()) };
    // No block exits while another still reads its shared memory.
    cluster_sync();
}
