// The host side of the kernel API: the simulated thread's context and the block's shared state
// (barriers, block-shared arrays). Its documentation is on its declaration in `kernel.rs`.

use super::Dim3;
use crate::sync::ArrivalToken;
use crate::{Barrier, Block, Cluster};
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
    cluster: Arc<ClusterContext>,
}

/// What the blocks of one simulated thread-block cluster share: the cluster barrier and the
/// block-shared arrays of every block (rank) of the cluster, so that
/// [`map_shared_rank`](crate::kernel::map_shared_rank) reaches another block's array.
///
/// ```
/// use scoped_atomics::kernel::{emulation::*, Dim3};
/// // A cluster of two blocks of 32 threads; each block's context joins it.
/// let cluster = ClusterContext::new(Dim3::x(2), 32);
/// let (rank0, rank1) = (BlockContext::in_cluster(32, &cluster), BlockContext::in_cluster(32, &cluster));
/// # let _ = (rank0, rank1);
/// ```
pub struct ClusterContext {
    shape: Dim3,
    barrier: Barrier<Cluster>,
    /// (rank of the block, call site, array).
    shared: Mutex<Vec<(u32, &'static str, SharedArray)>>,
}

impl ClusterContext {
    /// The context of a cluster of `shape` blocks of `block_threads` threads each.
    ///
    /// # Panics
    /// If the cluster has no block, or more threads than a barrier counts.
    pub fn new(shape: Dim3, block_threads: u32) -> Arc<Self> {
        let threads = shape
            .size()
            .checked_mul(block_threads)
            .filter(|&t| t > 0 && t <= Barrier::<Cluster>::max())
            .unwrap_or_else(|| {
                panic!(
                    "a cluster of {shape:?} blocks of {block_threads} threads is empty or too large"
                )
            });
        Arc::new(ClusterContext {
            shape,
            barrier: Barrier::new(threads),
            shared: Mutex::new(Vec::new()),
        })
    }
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
    /// The context of a block of `threads` threads, alone in its cluster (a launch without
    /// clusters).
    pub fn new(threads: u32) -> Arc<Self> {
        Self::in_cluster(threads, &ClusterContext::new(Dim3::x(1), threads))
    }

    /// The context of a block of `threads` threads of `cluster`. Its rank in the cluster is
    /// that of its threads' `block_idx` (`block_idx % cluster shape`, linearised).
    pub fn in_cluster(threads: u32, cluster: &Arc<ClusterContext>) -> Arc<Self> {
        Arc::new(BlockContext {
            threads,
            barrier: Barrier::new(threads),
            warps: WarpBarriers::new(Vec::new()),
            cluster: cluster.clone(),
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
    let (cluster, rank) = with(|c| (c.block.cluster.clone(), rank_of(c)));
    let layout = Layout::from_size_align(size_of::<T>().max(1), align_of::<T>()).unwrap();
    let mut arrays = cluster.shared.lock().unwrap();
    array_of(&mut arrays, rank, site, layout).cast()
}

/// The array of `site` of the block of rank `rank`, made (filled with [`SHARED_FILL`]) if that
/// block has not used it yet.
fn array_of(
    arrays: &mut Vec<(u32, &'static str, SharedArray)>,
    rank: u32,
    site: &'static str,
    layout: Layout,
) -> *mut u8 {
    if let Some((_, _, array)) = arrays.iter().find(|(r, s, _)| (*r, *s) == (rank, site)) {
        return array.ptr;
    }
    // Aligned as `T`, as on the device, and never zero-sized so that `alloc` may be used.
    // SAFETY: `layout` has a non-zero size.
    let ptr = unsafe { alloc(layout) };
    assert!(
        !ptr.is_null(),
        "scoped-atomics: out of memory for a block-shared array"
    );
    // SAFETY: `ptr` is a fresh allocation of `layout.size()` bytes.
    unsafe { ptr.write_bytes(SHARED_FILL, layout.size()) };
    arrays.push((rank, site, SharedArray { ptr, layout }));
    ptr
}

/// The rank of the thread's block in its cluster.
fn rank_of(c: &ThreadContext) -> u32 {
    let shape = c.block.cluster.shape;
    let within = Dim3::new(
        c.block_idx.x % shape.x,
        c.block_idx.y % shape.y,
        c.block_idx.z % shape.z,
    );
    within.linear(shape)
}

/// `%clusterid`, `%nclusterid`, `%cluster_ctaid`, `%cluster_nctaid`, `%cluster_ctarank`,
/// `%cluster_nctarank` of the simulated thread.
#[track_caller]
pub(crate) fn cluster_registers() -> ClusterRegisters {
    with(|c| {
        let shape = c.block.cluster.shape;
        let div = |a: Dim3, b: Dim3| Dim3::new(a.x / b.x, a.y / b.y, a.z / b.z);
        let rem = |a: Dim3, b: Dim3| Dim3::new(a.x % b.x, a.y % b.y, a.z % b.z);
        ClusterRegisters {
            cluster_idx: div(c.block_idx, shape),
            cluster_grid: div(c.grid_dim, shape),
            block_in_cluster: rem(c.block_idx, shape),
            shape,
            rank: rank_of(c),
        }
    })
}

/// The cluster coordinates of a simulated thread.
pub(crate) struct ClusterRegisters {
    pub(crate) cluster_idx: Dim3,
    pub(crate) cluster_grid: Dim3,
    pub(crate) block_in_cluster: Dim3,
    pub(crate) shape: Dim3,
    pub(crate) rank: u32,
}

#[cfg(not(loom))]
std::thread_local! {
    static ARRIVED: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}
#[cfg(loom)]
loom::thread_local! {
    static ARRIVED: core::cell::Cell<bool> = core::cell::Cell::new(false);
}

/// `barrier.cluster.arrive`: an arrival on the cluster's barrier (a release at cluster scope).
///
/// # Panics
/// If the thread arrived before and has not waited since (undefined on the device).
#[track_caller]
pub(crate) fn cluster_arrive() -> ArrivalToken {
    let cluster = with(|c| c.block.cluster.clone());
    assert!(
        !ARRIVED.with(|a| a.replace(true)),
        "cluster_arrive: this thread arrived at the cluster barrier before and has not waited \
         since; each thread arrives once, then waits, per phase"
    );
    cluster.barrier.arrive()
}

/// `barrier.cluster.wait` for the thread's arrival `token`.
#[track_caller]
pub(crate) fn cluster_wait(token: ArrivalToken) {
    let cluster = with(|c| c.block.cluster.clone());
    ARRIVED.with(|a| a.set(false));
    cluster.barrier.wait(token);
}

/// `mapa`: the address of the location that `ptr` (into a block-shared array of this thread's
/// block) names in the same array of the block of rank `rank` of the cluster.
///
/// # Panics
/// If `rank` is not a rank of the cluster, or `ptr` is not inside a block-shared array of the
/// thread's own block.
#[track_caller]
pub(crate) fn map_shared_rank(ptr: *mut u8, rank: u32) -> *mut u8 {
    let (cluster, own) = with(|c| (c.block.cluster.clone(), rank_of(c)));
    let size = cluster.shape.size();
    assert!(
        rank < size,
        "map_shared_rank: rank {rank} is out of range: the cluster of {:?} blocks has ranks 0..{size}",
        cluster.shape
    );
    let mut arrays = cluster.shared.lock().unwrap();
    let found = arrays.iter().find_map(|(r, site, array)| {
        let offset = ptr.addr().wrapping_sub(array.ptr.addr());
        (*r == own && offset < array.layout.size()).then_some((*site, array.layout, offset))
    });
    let Some((site, layout, offset)) = found else {
        panic!(
            "map_shared_rank: {ptr:p} is not inside a `block_shared!` array of this block \
             (rank {own}); only block-shared locations have a counterpart in the other blocks"
        )
    };
    // SAFETY: `offset` is within the array, and the target array has the same layout.
    unsafe { array_of(&mut arrays, rank, site, layout).add(offset) }
}
