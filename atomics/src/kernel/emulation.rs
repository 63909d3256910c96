// The host side of the kernel API: the simulated thread's context and the block's shared state
// (barriers, block-shared arrays). Its documentation is on its declaration in `kernel.rs`.

use super::Dim3;
use crate::{Barrier, Block};
use std::alloc::{Layout, alloc, dealloc};
use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::vec::Vec;

/// A lock that is loom's under loom, so that what one simulated thread writes under it (a
/// barrier's initialisation, a lane's value) happens before another thread reads it.
#[cfg(not(loom))]
type ModelMutex<T> = Mutex<T>;
#[cfg(loom)]
type ModelMutex<T> = loom::sync::Mutex<T>;

/// The lanes of one warp that synchronise with one mask: their barrier, and the values of a
/// warp operation in flight (one slot per lane).
struct WarpGroup {
    barrier: Barrier<Block>,
    slots: ModelMutex<[u64; 32]>,
}

/// The warp groups of a block, made on first use: (warp, member mask, group).
type WarpGroups = ModelMutex<Vec<(u32, u32, Arc<WarpGroup>)>>;

/// A block-wide reduction in flight (`sync_threads_count`): the sum so far and how many threads
/// have read the result.
#[derive(Default)]
struct BlockReduction {
    sum: u32,
    readers: u32,
}

/// What the threads of one simulated block share.
pub struct BlockContext {
    threads: u32,
    barrier: Barrier<Block>,
    warps: WarpGroups,
    reduction: ModelMutex<BlockReduction>,
    shared: Mutex<Vec<(&'static str, SharedArray)>>,
}

struct SharedArray {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the array is plain memory owned by the block; its users synchronise their accesses
// (atomics, `sync_threads`), as on the device.
unsafe impl Send for SharedArray {}

impl Drop for SharedArray {
    fn drop(&mut self) {
        // SAFETY: allocated in `shared` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

impl BlockContext {
    /// The context of a block of `threads` threads.
    pub fn new(threads: u32) -> Arc<Self> {
        Arc::new(BlockContext {
            threads,
            barrier: Barrier::new(threads),
            warps: WarpGroups::new(Vec::new()),
            reduction: ModelMutex::new(BlockReduction::default()),
            shared: Mutex::new(Vec::new()),
        })
    }
}

/// One simulated thread's coordinates and block.
#[derive(Clone)]
pub struct ThreadContext {
    /// `threadIdx`.
    pub thread_idx: Dim3,
    /// `blockIdx`.
    pub block_idx: Dim3,
    /// `blockDim`.
    pub block_dim: Dim3,
    /// `gridDim`.
    pub grid_dim: Dim3,
    /// The block's shared state.
    pub block: Arc<BlockContext>,
}

#[cfg(not(loom))]
std::thread_local! {
    static CONTEXT: RefCell<Option<ThreadContext>> = const { RefCell::new(None) };
}
// loom runs its threads on one OS thread: their contexts must be loom thread-locals.
#[cfg(loom)]
loom::thread_local! {
    static CONTEXT: RefCell<Option<ThreadContext>> = RefCell::new(None);
}

/// Makes the calling thread the simulated thread `context` (until `leave`).
pub fn enter(context: ThreadContext) {
    CONTEXT.with(|c| *c.borrow_mut() = Some(context));
}

/// Ends the calling thread's simulation.
pub fn leave() {
    CONTEXT.with(|c| *c.borrow_mut() = None);
}

#[track_caller]
fn with<R>(f: impl FnOnce(&ThreadContext) -> R) -> R {
    CONTEXT.with(|c| {
        let context = c.borrow();
        let context = context.as_ref().unwrap_or_else(|| {
            panic!(
                "scoped-atomics: a kernel function ran outside a kernel launch: on the host, run \
                 kernel bodies with `scoped_atomics_host::executor::launch` (or `launch_loom`, \
                 or your own executor through `scoped_atomics::kernel::emulation`); if you did, \
                 two copies of scoped-atomics are linked (see `cargo tree -d`)"
            )
        });
        f(context)
    })
}

/// `threadIdx` of the simulated thread.
#[track_caller]
pub fn thread_idx() -> Dim3 {
    with(|c| c.thread_idx)
}

/// `blockIdx` of the simulated thread.
#[track_caller]
pub fn block_idx() -> Dim3 {
    with(|c| c.block_idx)
}

/// `blockDim` of the simulated thread.
#[track_caller]
pub fn block_dim() -> Dim3 {
    with(|c| c.block_dim)
}

/// `gridDim` of the simulated thread.
#[track_caller]
pub fn grid_dim() -> Dim3 {
    with(|c| c.grid_dim)
}

/// `__syncthreads()`: the block's barrier.
#[track_caller]
pub fn sync_threads() {
    let block = with(|c| c.block.clone());
    block.barrier.arrive_and_wait();
}

/// `__syncwarp(mask)`: the barrier of the mask's lanes of this thread's warp (warp = 32
/// consecutive linear thread indices of the block). A block-scope barrier, so its ordering
/// is that of `bar.warp.sync` among the members, under loom too.
#[track_caller]
pub fn sync_warp(mask: u32) {
    warp_group("sync_warp", mask).1.barrier.arrive_and_wait();
}

/// The calling lane and the group of `mask` in its warp, after the mask rules of every
/// `*_sync(mask, …)` operation: the mask names the calling lane, and only lanes the warp has.
#[track_caller]
fn warp_group(operation: &str, mask: u32) -> (u32, Arc<WarpGroup>) {
    let (block, linear) = with(|c| (c.block.clone(), c.thread_idx.linear(c.block_dim)));
    let (warp, lane) = (linear / super::WARP_SIZE, linear % super::WARP_SIZE);
    let lanes = (block.threads - warp * super::WARP_SIZE).min(super::WARP_SIZE);
    assert!(
        mask & (1 << lane) != 0,
        "{operation}: mask {mask:#010x} does not include the calling thread's lane {lane} \
         (warp {warp}); every member must name itself"
    );
    let existing = u32::MAX >> (super::WARP_SIZE - lanes);
    assert!(
        mask & !existing == 0,
        "{operation}: mask {mask:#010x} names lanes that do not exist: warp {warp} of a block \
         of {} threads has {lanes} lanes (lanes {:#010x} are missing)",
        block.threads,
        mask & !existing
    );
    let mut warps = block.warps.lock().unwrap();
    let group = match warps.iter().find(|(w, m, _)| (*w, *m) == (warp, mask)) {
        Some((_, _, g)) => g.clone(),
        None => {
            let g = Arc::new(WarpGroup {
                barrier: Barrier::new(mask.count_ones()),
                slots: ModelMutex::new([0; 32]),
            });
            warps.push((warp, mask, g.clone()));
            g
        }
    };
    (lane, group)
}

/// The lanes of this thread's warp that exist (a last warp may have fewer than 32): what
/// `__activemask()` returns when every thread of the warp runs the call, as the executor's do.
#[track_caller]
pub fn activemask() -> u32 {
    let (threads, linear) = with(|c| (c.block.threads, c.thread_idx.linear(c.block_dim)));
    let warp = linear / super::WARP_SIZE;
    let lanes = (threads - warp * super::WARP_SIZE).min(super::WARP_SIZE);
    u32::MAX >> (super::WARP_SIZE - lanes)
}

/// One warp-synchronous step of the lanes of `mask`: each deposits `value`, all wait, each reads
/// every member's value, all wait again (so that no lane's next deposit overwrites a value
/// another lane has yet to read). Returns the calling lane and the values by lane (zero for
/// lanes outside the mask). The two barriers are block-scope barriers among the members, so
/// the step also orders their memory, which a shuffle on the device does not.
#[track_caller]
pub fn warp_exchange(operation: &str, mask: u32, value: u64) -> (u32, [u64; 32]) {
    let (lane, group) = warp_group(operation, mask);
    group.slots.lock().unwrap()[lane as usize] = value;
    group.barrier.arrive_and_wait();
    let mut values = *group.slots.lock().unwrap();
    group.barrier.arrive_and_wait();
    for (i, v) in values.iter_mut().enumerate() {
        if mask & (1 << i) == 0 {
            *v = 0;
        }
    }
    (lane, values)
}

/// `__syncthreads_count(predicate)`: the block's barrier, returning how many threads passed a
/// true predicate.
#[track_caller]
pub fn sync_threads_count(predicate: bool) -> u32 {
    let block = with(|c| c.block.clone());
    block.reduction.lock().unwrap().sum += u32::from(predicate);
    block.barrier.arrive_and_wait();
    let count = {
        let mut r = block.reduction.lock().unwrap();
        let count = r.sum;
        r.readers += 1;
        // The last reader resets for the next call, which no thread starts before the
        // barrier below.
        if r.readers == block.threads {
            *r = BlockReduction::default();
        }
        count
    };
    block.barrier.arrive_and_wait();
    count
}

/// The byte a new block-shared array is filled with on the host: shared memory is
/// uninitialised on the device, and a recognisable non-zero pattern makes a missing
/// initialisation show up in host runs (a `u32` reads `0xA5A5_A5A5`).
pub const SHARED_FILL: u8 = 0xA5;

/// The block's shared array of type `T` for call site `site`, filled with [`SHARED_FILL`]
/// and aligned as `T`.
#[track_caller]
pub fn shared<T>(site: &'static str) -> *mut T {
    let block = with(|c| c.block.clone());
    let mut arrays = block.shared.lock().unwrap();
    if let Some((_, array)) = arrays.iter().find(|(s, _)| *s == site) {
        return array.ptr.cast();
    }
    // Aligned as `T`, as on the device, and never zero-sized so that `alloc` may be used.
    let size = size_of::<T>().max(1);
    let layout = Layout::from_size_align(size, align_of::<T>()).unwrap();
    // SAFETY: `layout` has a non-zero size.
    let ptr = unsafe { alloc(layout) };
    assert!(
        !ptr.is_null(),
        "scoped-atomics: out of memory for a block-shared array"
    );
    // SAFETY: `ptr` is a fresh allocation of `size` bytes.
    unsafe { ptr.write_bytes(SHARED_FILL, size) };
    arrays.push((site, SharedArray { ptr, layout }));
    ptr.cast()
}
