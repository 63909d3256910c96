// The host side of the kernel API: the simulated thread's context and the block's shared state
// (barriers, block-shared arrays). Its documentation is on its declaration in `kernel.rs`.

use super::Dim3;
use crate::{Barrier, Block};
use std::alloc::{Layout, alloc, dealloc};
use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::vec::Vec;

/// The warp barriers of a block, made on first use: (warp, member mask, barrier of its lanes).
/// Under loom the lock is loom's, so that the barrier's initialisation by the first lane
/// happens before the other lanes use it (the block barrier is made before its threads).
#[cfg(not(loom))]
type WarpBarriers = Mutex<Vec<(u32, u32, Arc<Barrier<Block>>)>>;
#[cfg(loom)]
type WarpBarriers = loom::sync::Mutex<Vec<(u32, u32, Arc<Barrier<Block>>)>>;

/// What the threads of one simulated block share.
pub struct BlockContext {
    threads: u32,
    barrier: Barrier<Block>,
    warps: WarpBarriers,
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
            warps: WarpBarriers::new(Vec::new()),
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
    let (block, linear) = with(|c| (c.block.clone(), c.thread_idx.linear(c.block_dim)));
    let (warp, lane) = (linear / super::WARP_SIZE, linear % super::WARP_SIZE);
    let lanes = (block.threads - warp * super::WARP_SIZE).min(super::WARP_SIZE);
    assert!(
        mask & (1 << lane) != 0,
        "sync_warp: mask {mask:#010x} does not include the calling thread's lane {lane} \
         (warp {warp}); every member must name itself"
    );
    let existing = u32::MAX >> (super::WARP_SIZE - lanes);
    assert!(
        mask & !existing == 0,
        "sync_warp: mask {mask:#010x} names lanes that do not exist: warp {warp} of a block \
         of {} threads has {lanes} lanes",
        block.threads
    );
    let barrier = {
        let mut warps = block.warps.lock().unwrap();
        match warps.iter().find(|(w, m, _)| (*w, *m) == (warp, mask)) {
            Some((_, _, b)) => b.clone(),
            None => {
                let b = Arc::new(Barrier::new(mask.count_ones()));
                warps.push((warp, mask, b.clone()));
                b
            }
        }
    };
    barrier.arrive_and_wait();
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
