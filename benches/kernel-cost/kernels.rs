//! The kernels of the kernel-cost report (`cargo run -p benches --release --bin kernel-cost`),
//! written with `scoped-atomics`: atomics through `AtomicRef::from_global_ptr` /
//! `from_shared_ptr`, plain shared accesses through `plain::read_shared` / `write_shared`.
//! `libcu.cu` and `intrinsics.cu` are their CUDA C++ twins: same names, parameters, orders,
//! scopes and loops. Built as the `lib.rs` of a scratch crate; `#[kernel]` writes each kernel's
//! entry point (of the function's name).

#![no_std]
#![feature(abi_ptx, asm_experimental_arch)]

use scoped_atomics::kernel::{block_dim, block_idx, grid_dim, sync_threads, thread_idx};
use scoped_atomics::{AtomicRef, Block, Device, Ordering::*, block_shared, kernel, plain};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel.
    unsafe { core::arch::asm!("trap;", options(noreturn)) }
}

/// A histogram of the low byte of each input word: block-shared bins counted with block-scope
/// relaxed reductions, then merged into the global histogram with device-scope ones. The init
/// and merge loops go over the bin number, as the CUDA twins do: ptxas scales it into each
/// shared access (`[R.X4]`) once LLVM leaves the address arithmetic alone (the lean-loops build,
/// `PtxBuilder::loop_strength_reduction(false)`).
///
/// # Safety
/// `input` is valid for `n` reads and `hist` for 256 atomic `u32`s in global memory.
#[kernel]
pub unsafe fn histogram(input: *const u32, n: u32, hist: *mut u32) {
    let bins = block_shared!(BINS: [u32; 256]).cast::<u32>();
    let t = thread_idx().x;
    let mut bin = t;
    while bin < 256 {
        // SAFETY: a bin of this block's array; the barrier below orders it before the counts.
        unsafe { plain::write_shared(bins.add(bin as usize), 0) };
        bin += block_dim().x;
    }
    sync_threads();
    let mut i = block_idx().x * block_dim().x + t;
    while i < n {
        // SAFETY: `i < n`, the length of `input`.
        let v = unsafe { *input.add(i as usize) };
        // SAFETY: a bin of this block's shared array; every racing access is atomic.
        unsafe { AtomicRef::<u32, Block>::from_shared_ptr(bins.add((v & 255) as usize)) }
            .add(1, Relaxed);
        i += block_dim().x * grid_dim().x;
    }
    sync_threads();
    let mut bin = t;
    while bin < 256 {
        // SAFETY: the counts are complete (barrier above); `hist` has 256 bins in global memory.
        unsafe {
            let count = plain::read_shared(bins.add(bin as usize));
            AtomicRef::<u32, Device>::from_global_ptr(hist.add(bin as usize)).add(count, Relaxed);
        }
        bin += block_dim().x;
    }
}

macro_rules! block_reduction {
    ($name:ident, $t:ty, $zero:expr, $shared:ident) => {
        /// A grid-stride sum, a tree reduction in block-shared memory (plain accesses between
        /// barriers; blocks of a power of two, at most 256 threads), and one device-scope
        /// relaxed reduction into `out` per block.
        ///
        /// # Safety
        /// `input` is valid for `n` reads and `out` for an atomic access in global memory.
        #[kernel]
        pub unsafe fn $name(input: *const $t, n: u32, out: *mut $t) {
            let partial = block_shared!($shared: [$t; 256]).cast::<$t>();
            let t = thread_idx().x;
            let mut sum = $zero;
            let mut i = block_idx().x * block_dim().x + t;
            while i < n {
                // SAFETY: `i < n`, the length of `input`.
                sum += unsafe { *input.add(i as usize) };
                i += block_dim().x * grid_dim().x;
            }
            // SAFETY: this thread's slot of the block's array.
            unsafe { plain::write_shared(partial.add(t as usize), sum) };
            sync_threads();
            let mut s = block_dim().x / 2;
            while s > 0 {
                if t < s {
                    // SAFETY: slots `t` and `t + s` < the block size; the barriers order the
                    // rounds.
                    unsafe {
                        let mine = partial.add(t as usize);
                        let other = plain::read_shared(partial.add((t + s) as usize));
                        plain::write_shared(mine, plain::read_shared(mine) + other);
                    }
                }
                sync_threads();
                s /= 2;
            }
            if t == 0 {
                // SAFETY: `out` is in global memory; the block's sum is complete.
                unsafe {
                    let total = plain::read_shared(partial);
                    AtomicRef::<$t, Device>::from_global_ptr(out).add(total, Relaxed);
                }
            }
        }
    };
}

block_reduction!(block_reduce_f32, f32, 0.0, PARTIAL_F32);
block_reduction!(block_reduce_u32, u32, 0, PARTIAL_U32);

/// `n` critical sections per thread under a device-wide ticket lock: take a ticket (relaxed
/// `fetch_add`), spin until it is served (acquire loads), increment a plain counter, serve the
/// next ticket (release store).
///
/// # Safety
/// The three pointers are valid words in global memory.
#[kernel]
pub unsafe fn ticket_lock(
    next: *mut u32,
    serving: *mut u32,
    counter: *mut u32,
    n: u32,
) {
    // SAFETY: the launcher passes words in global memory; every racing access is atomic, and
    // the counter is only accessed under the lock.
    unsafe {
        let next = AtomicRef::<u32, Device>::from_global_ptr(next);
        let serving = AtomicRef::<u32, Device>::from_global_ptr(serving);
        for _ in 0..n {
            let ticket = next.fetch_add(1, Relaxed);
            while serving.load(Acquire) != ticket {}
            counter.write(counter.read() + 1);
            serving.store(ticket.wrapping_add(1), Release);
        }
    }
}

const EMPTY: u32 = u32::MAX;

/// Inserts each input key into an open-addressing table (linear probing, relaxed device-scope
/// compare-exchange on the key), then writes the key's index as its value, plainly.
///
/// # Safety
/// `input` is valid for `n` reads; `keys` and `values` for `mask + 1` slots in global memory,
/// at least one key `EMPTY`.
#[kernel]
pub unsafe fn hash_insert(
    keys: *mut u32,
    values: *mut u32,
    mask: u32,
    input: *const u32,
    n: u32,
) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i >= n {
        return;
    }
    // SAFETY: `i < n`; the table has `mask + 1` slots in global memory, at least one empty.
    unsafe {
        let key = *input.add(i as usize);
        let mut slot = key.wrapping_mul(0x9e37_79b1) & mask;
        loop {
            let cell = AtomicRef::<u32, Device>::from_global_ptr(keys.add(slot as usize));
            match cell.compare_exchange(EMPTY, key, Relaxed, Relaxed) {
                Ok(_) => break,
                Err(previous) if previous == key => break,
                Err(_) => slot = (slot + 1) & mask,
            }
        }
        *values.add(slot as usize) = i;
    }
}

/// Block 0 writes `n` words plainly and publishes them with a release store of a flag; every
/// other block's thread 0 spins on acquire loads of the flag, and the block copies the words.
///
/// # Safety
/// `data` is valid for `n` words, `out` for `n` per block but block 0, `flag` for a word, in
/// global memory.
#[kernel]
pub unsafe fn message_passing(
    data: *mut u32,
    flag: *mut u32,
    out: *mut u32,
    n: u32,
) {
    // SAFETY: the launcher passes `n` words of `data` and `out` and the flag, in global memory.
    unsafe {
        let flag = AtomicRef::<u32, Device>::from_global_ptr(flag);
        let t = thread_idx().x;
        if block_idx().x == 0 {
            let mut i = t;
            while i < n {
                *data.add(i as usize) = i * 3;
                i += block_dim().x;
            }
            sync_threads();
            if t == 0 {
                flag.store(1, Release);
            }
        } else {
            if t == 0 {
                while flag.load(Acquire) == 0 {}
            }
            sync_threads();
            let mut i = t;
            while i < n {
                *out.add(((block_idx().x - 1) * n + i) as usize) = *data.add(i as usize);
                i += block_dim().x;
            }
        }
    }
}

/// Polls a flag `n` times with relaxed loads, weighting each reading by a plain argument word
/// that nothing writes meanwhile.
///
/// # Safety
/// The three pointers are valid words in global memory.
#[kernel]
pub unsafe fn polling_loop(
    flag: *mut u32,
    scale: *const u32,
    out: *mut u32,
    n: u32,
) {
    // SAFETY: the launcher passes words in global memory; only the flag is written meanwhile.
    unsafe {
        let flag = AtomicRef::<u32, Device>::from_global_ptr(flag);
        let mut sum = 0u32;
        for _ in 0..n {
            sum = sum.wrapping_add(flag.load(Relaxed).wrapping_mul(*scale));
        }
        *out = sum;
    }
}
