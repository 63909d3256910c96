//! Kernels written once over `scoped_atomics`: each is a plain `pub unsafe fn` that runs on host
//! threads and under loom as it is, and as PTX through the entry points that `#[kernel]` writes
//! (listed in each kernel's documentation). `#[kernel]` also writes one launch description per
//! entry point (`HISTOGRAM`, `BLOCK_SUM_BLOCK_SCOPE_BUG`, …), which the host crate's
//! `scoped_atomics_host::launch::Launch` runs on host threads, under loom, in the simulator and on
//! a GPU.
//!
//! All a kernel crate needs: `#![no_std]` and, on the device, the two feature gates below.

#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]

use scoped_atomics::kernel::{
    activemask, block_dim, block_idx, cluster_rank, cluster_size, cluster_sync, grid_stride_1d,
    index_1d, lane_id, map_shared_rank, shfl_xor_sync, spin_loop, sync_threads, thread_idx,
};
use scoped_atomics::{AtomicRef, Block, Device, Ordering, Scope, block_shared, kernel};

/// Number of bins of [`histogram`].
pub const BINS: usize = 8;

/// Histogram of `len` values (each modulo [`BINS`]) into `bins`: block-scope counters in shared
/// memory, added into the device-scope counters once per block.
///
/// The shared counters are reached with `from_shared_ptr` and the global ones with
/// `from_global_ptr`: on the device, the `.shared` and `.global` forms of the atomics.
///
/// # Safety
/// `input` is valid for `len` reads and `bins` for [`BINS`] atomic `u32`s in global memory.
#[kernel]
pub unsafe fn histogram(input: *const u32, len: usize, bins: *mut u32) {
    let local = block_shared!(LOCAL: [u32; BINS]).cast::<u32>();
    let mine = (thread_idx().x as usize..BINS).step_by(block_dim().x as usize);
    for bin in mine.clone() {
        // SAFETY: `bin < BINS` of the block's shared array; until the barrier only this thread
        // touches it.
        unsafe { AtomicRef::<u32, Block>::from_shared_ptr(local.add(bin)) }
            .store(0, Ordering::Relaxed);
    }
    sync_threads();
    for i in grid_stride_1d(len) {
        // SAFETY: `i < len`, and `bin < BINS`; every access to a bin is atomic.
        let bin = unsafe { input.add(i).read() } as usize % BINS;
        unsafe { AtomicRef::<u32, Block>::from_shared_ptr(local.add(bin)) }
            .add(1, Ordering::Relaxed);
    }
    sync_threads();
    for bin in mine {
        // SAFETY: `bin < BINS`; the barrier ordered the block's increments before this load.
        let count = unsafe { AtomicRef::<u32, Block>::from_shared_ptr(local.add(bin)) }
            .load(Ordering::Relaxed);
        // SAFETY: the caller's contract on `bins` (global memory); other blocks add too: device
        // scope.
        unsafe { AtomicRef::<u32, Device>::from_global_ptr(bins.add(bin)) }
            .add(count, Ordering::Relaxed);
    }
}

/// Message passing between blocks 0 and 1 through a flag of scope `S`: thread 0 of block 0
/// writes `*data` and raises the flag (release); thread 0 of block 1 waits for it (acquire) and
/// copies the data to `*result`. `S = Device` is right; `S = Block` is a data race (the flag's
/// scope does not include the other block), which loom and the simulator report.
///
/// # Safety
/// The pointers are valid; launch at least two blocks, all resident at once.
#[kernel(instantiate(message_passing = Device, message_passing_block_scope_bug = Block))]
pub unsafe fn message_passing<S: Scope>(data: *mut u32, flag: *mut u32, result: *mut u32) {
    if thread_idx().x != 0 {
        return;
    }
    // SAFETY: the caller's contract; the flag is only accessed atomically.
    let flag = unsafe { AtomicRef::<u32, S>::from_ptr(flag) };
    if block_idx().x == 0 {
        // SAFETY: only this thread writes `data`, before the release.
        unsafe { data.write_volatile(42) };
        flag.store(1, Ordering::Release);
    } else if block_idx().x == 1 {
        while flag.load(Ordering::Acquire) == 0 {
            scoped_atomics::kernel::nanosleep(32);
        }
        // SAFETY: the acquire ordered the write of `data` before this read.
        unsafe { result.write(data.read_volatile()) };
    }
}

/// Sum of one `u32` per thread into `*total`: the lanes of each warp add theirs with shuffles
/// (`shfl_xor_sync`), each warp's lane 0 adds its sum into a block-shared partial, and thread 0
/// of each block adds the block's partial into `*total` at scope `S`. Two `sync_threads`: after
/// the partial is zeroed and after every warp added. `S = Device` is right; with `S = Block`
/// two blocks add into `*total` at a scope that does not include each other: a scope race.
///
/// # Safety
/// `input` holds one value per thread of the grid; `total` is valid for atomic `u32` access.
#[kernel(instantiate(block_sum = Device, block_sum_block_scope_bug = Block))]
pub unsafe fn block_sum<S: Scope>(input: *const u32, total: *mut u32) {
    let partial = block_shared!(PARTIAL: [u32; 1]).cast::<u32>();
    // SAFETY: the block's shared word; every access is atomic.
    let partial = unsafe { AtomicRef::<u32, Block>::from_shared_ptr(partial) };
    if thread_idx().x == 0 {
        partial.store(0, Ordering::Relaxed);
    }
    sync_threads();
    // SAFETY: one input per thread.
    let mut sum = unsafe { input.add(index_1d()).read() };
    let lanes = activemask();
    let mut m = 1;
    while m < lanes.count_ones() {
        sum += shfl_xor_sync(lanes, sum, m, 32);
        m *= 2;
    }
    if lane_id() == 0 {
        partial.add(sum, Ordering::Relaxed);
    }
    sync_threads();
    if thread_idx().x == 0 {
        // SAFETY: the caller's contract on `total`; other blocks add too.
        let total = unsafe { AtomicRef::<u32, S>::from_ptr(total) };
        total.add(partial.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

/// A ticket lock around `*counter += 1`, taken once by every thread: `next` hands out tickets,
/// `serving` says whose turn it is, both at scope `S`. `S = Device` counts every thread;
/// `S = Block` across blocks is a scope race (and, on a GPU, lost increments).
///
/// # Safety
/// The pointers are valid for atomic `u32` access; every block of the grid is resident at once.
#[kernel(instantiate(ticket_lock = Device, ticket_lock_block_scope_bug = Block))]
pub unsafe fn ticket_lock<S: Scope>(next: *mut u32, serving: *mut u32, counter: *mut u32) {
    // SAFETY: the caller's contract; every access is atomic.
    let (next, serving, counter) = unsafe {
        (
            AtomicRef::<u32, S>::from_ptr(next),
            AtomicRef::<u32, S>::from_ptr(serving),
            AtomicRef::<u32, Device>::from_ptr(counter),
        )
    };
    let ticket = next.fetch_add(1, Ordering::Relaxed);
    while serving.load(Ordering::Acquire) != ticket {
        // Under loom: let the holder run instead of counting spins (see `spin_loop`).
        spin_loop();
    }
    // The critical section: a load and a store, not an atomic add, so a broken lock loses counts.
    counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    serving.store(ticket + 1, Ordering::Release);
}

/// Histogram of `len` values (each modulo [`BINS`]) into `bins`, in the distributed shared
/// memory of a thread-block cluster: bin `b` lives in the shared memory of the block of rank
/// `b % cluster_size()`, and every block of the cluster adds into it there through
/// `map_shared_rank`, so each bin is counted once per cluster instead of once per block. The
/// counters are shared by the cluster's blocks, so their scope `S` must be at least
/// [`Cluster`](scoped_atomics::Cluster): `S = Block` is a scope race between two blocks, which
/// loom and the simulator report. Needs sm_90 on the device.
///
/// # Safety
/// `input` is valid for `len` reads and `bins` for [`BINS`] atomic `u32`s.
///
/// The entry points are in the sm_90 PTX only: `cluster_histogram` with `Cluster`-scope
/// counters (launch it in clusters of any size), and `cluster_histogram_block_scope_bug` with
/// `Block`-scope counters, a scope race for the simulator to report.
#[kernel(
    cfg(target_feature = "sm_90"),
    instantiate(
        cluster_histogram = scoped_atomics::Cluster,
        cluster_histogram_block_scope_bug = Block
    )
)]
pub unsafe fn cluster_histogram<S: Scope>(input: *const u32, len: usize, bins: *mut u32) {
    let local = block_shared!(CLUSTER_LOCAL: [u32; BINS]).cast::<u32>();
    let (rank, blocks) = (cluster_rank() as usize, cluster_size() as usize);
    // The bins this block owns, split among its threads.
    let owned =
        (rank + thread_idx().x as usize * blocks..BINS).step_by(blocks * block_dim().x as usize);
    for bin in owned.clone() {
        // SAFETY: `bin < BINS`; until the cluster barrier only this thread touches it.
        unsafe { AtomicRef::<u32, S>::from_ptr(local.add(bin)) }.store(0, Ordering::Relaxed);
    }
    // Every block has started and zeroed its bins before any block adds into them.
    cluster_sync();
    for i in grid_stride_1d(len) {
        // SAFETY: `i < len`.
        let bin = unsafe { input.add(i).read() } as usize % BINS;
        // SAFETY: `bin < BINS` in the block-shared array; its owner is a rank of the cluster.
        let owner = map_shared_rank(unsafe { local.add(bin) }, (bin % blocks) as u32);
        // SAFETY: a block-shared location of a running block of the cluster; atomic accesses only.
        unsafe { AtomicRef::<u32, S>::from_ptr(owner) }.add(1, Ordering::Relaxed);
    }
    // Every block's additions are done (and ordered before the loads below), and no block exits
    // while another may still add into its shared memory.
    cluster_sync();
    for bin in owned {
        // SAFETY: `bin < BINS`; the barrier ordered the cluster's increments before this load.
        let count =
            unsafe { AtomicRef::<u32, S>::from_ptr(local.add(bin)) }.load(Ordering::Relaxed);
        // SAFETY: the caller's contract on `bins`; other clusters add too: device scope.
        unsafe { AtomicRef::<u32, Device>::from_ptr(bins.add(bin)) }.add(count, Ordering::Relaxed);
    }
}
