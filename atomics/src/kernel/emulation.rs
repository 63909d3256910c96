// The host side of the kernel API: the simulated thread's context and the block's shared state
// (barriers, block-shared arrays). Its documentation is on its declaration in `kernel.rs`.

use super::Dim3;
#[cfg(not(loom))]
use crate::Block;
use crate::{Barrier, Cluster};
use std::alloc::{Layout, alloc, dealloc};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::vec::Vec;

/// A lock that is loom's under loom, so that what one simulated thread writes under it (a
/// warp group's barrier, made by the first lane that uses it) happens before another thread
/// reads it.
#[cfg(not(loom))]
type ModelMutex<T> = Mutex<T>;
#[cfg(loom)]
type ModelMutex<T> = loom::sync::Mutex<T>;

/// The barrier of `sync_threads` and of the warp steps: on the host the library's
/// `Barrier<Block>` (its waiters spin, then park); under loom [`LoomBarrier`], whose waiters
/// block on a loom condition variable instead of spinning.
#[cfg(not(loom))]
type ThreadBarrier = Barrier<Block>;
#[cfg(loom)]
type ThreadBarrier = LoomBarrier;

/// The emulation's own barriers under loom (`sync_threads`, `sync_warp`, the warp steps of the
/// shuffles and votes): each arrival is one loom `fetch_add(AcqRel)` on the barrier's arrival
/// count, and a thread that is not the last of its phase *parks* (loom does not schedule it)
/// until the last one unparks it.
///
/// Why not the library's `Barrier<Block>`: its waiters poll (acquire loads with `yield_now`
/// between them), two loom branches per poll, and two waiters of two blocks polling in turn
/// while neither block's last thread runs is an interleaving that loom deepens without end
/// under a preemption bound (switching away from a yielding thread is no preemption): a
/// 2 × 2 `block_sum` with two `sync_threads` exceeded loom's branch limit. Here a phase costs
/// each thread one read-modify-write, and each waiter one park.
///
/// The ordering is that of `bar.sync` (and `bar.warp.sync`) among the barrier's threads: every
/// arrival releases, and reads the arrivals before it (a release sequence of
/// read-modify-writes), so the last arrival has acquired them all; each waiter is unparked by
/// the last arrival, which in loom carries the unparker's happens-before to it (a waiter that
/// finds its phase complete without having been unparked acquires it with one more
/// `fetch_add(0, Acquire)`, which releases nothing of its own). So every access before the barrier happens before every access
/// after it, among its threads; the emulation's barriers are never shared with other threads.
#[cfg(loom)]
pub(crate) struct LoomBarrier {
    expected: u64,
    /// Arrivals since the barrier was made: phase `n / expected` for the `n`th.
    arrivals: loom::sync::atomic::AtomicU64,
    /// (phases completed, the parked waiters): bookkeeping loom need not interleave (no loom
    /// operation runs while it is locked).
    waiting: Mutex<(u64, Vec<loom::thread::Thread>)>,
}

#[cfg(loom)]
impl LoomBarrier {
    fn new(expected: u32) -> Self {
        LoomBarrier {
            expected: u64::from(expected),
            arrivals: loom::sync::atomic::AtomicU64::new(0),
            waiting: Mutex::new((0, Vec::new())),
        }
    }

    fn arrive_and_wait(&self) {
        self.wait(self.arrive());
    }

    /// Arrives: the phase of the arrival, and whether it was the phase's last (which then
    /// completed it and unparked its waiters).
    fn arrive(&self) -> LoomArrival {
        use core::sync::atomic::Ordering::AcqRel;
        let n = self.arrivals.fetch_add(1, AcqRel);
        let phase = n / self.expected;
        let last = (n + 1) % self.expected == 0;
        if last {
            let waiters = {
                let mut waiting = locked(&self.waiting);
                waiting.0 = phase + 1;
                core::mem::take(&mut waiting.1)
            };
            for waiter in waiters {
                waiter.unpark();
            }
        }
        LoomArrival { phase, last }
    }

    /// Waits for the phase of `arrival` to complete (at once for its last arrival, which
    /// acquired the others with its read-modify-write).
    fn wait(&self, arrival: LoomArrival) {
        let LoomArrival { phase, last } = arrival;
        if last {
            return;
        }
        {
            let mut waiting = locked(&self.waiting);
            if waiting.0 > phase {
                // The last arrival came between this thread's arrival and here, and did not
                // unpark it: acquire its arrival (a read-modify-write reads the newest). An
                // acquire only: a release would also order this thread's accesses between its
                // arrival and here before whoever reads the count next.
                drop(waiting);
                self.arrivals
                    .fetch_add(0, core::sync::atomic::Ordering::Acquire);
                return;
            }
            waiting.1.push(loom::thread::current());
        }
        // Unparked by the last arrival (a park after an unpark returns at once).
        while locked(&self.waiting).0 <= phase {
            loom::thread::park();
        }
    }
}

/// One arrival at a [`LoomBarrier`]: its phase, and whether it was the phase's last.
#[cfg(loom)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct LoomArrival {
    phase: u64,
    last: bool,
}

mod cluster_barrier;
use cluster_barrier::{ClusterBarrier, ClusterToken};

// The watchdog is plain std (no loom types): the executor's host-thread launch uses it in a
// `--cfg loom` build too, where the kernel API's hooks below do nothing, so it never reports.
#[cfg_attr(loom, allow(dead_code))]
mod watch;
pub use watch::{BlockedThread, Stopped, WaitKind, Watchdog, unwatch, watch};
#[cfg(not(loom))]
pub(crate) use watch::{check_stop, spinning, waiting};

/// Under loom there is no watchdog (loom reports a deadlock itself): the hooks do nothing.
#[cfg(loom)]
pub(crate) fn check_stop() {}
/// What [`waiting`] returns under loom: nothing to undo.
#[cfg(loom)]
pub(crate) struct NotWatched;
#[cfg(loom)]
pub(crate) fn waiting(
    _kind: WaitKind,
    _location: Option<&'static core::panic::Location<'static>>,
) -> NotWatched {
    NotWatched
}

/// Locks a [`ModelMutex`] whether or not a thread panicked holding it (see [`locked`]).
#[cfg(not(loom))]
fn model_locked<T>(mutex: &ModelMutex<T>) -> MutexGuard<'_, T> {
    locked(mutex)
}
/// Under loom a kernel panic ends the whole model run, so a poisoned lock is never met.
#[cfg(loom)]
fn model_locked<T>(mutex: &ModelMutex<T>) -> loom::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap()
}

/// The lanes of one warp that synchronise with one mask: their barrier, and the values of a
/// warp operation in flight.
struct WarpGroup {
    barrier: ThreadBarrier,
    /// A std lock under loom too: the group's barrier orders every deposit before every read,
    /// so loom need not interleave the lock itself (loom runs one thread at a time).
    slots: Mutex<Slots>,
}

/// The values of a warp step in flight: two rows of one slot per lane, and the row each lane
/// deposits into next (see [`warp_exchange`]).
struct Slots {
    rows: [[u64; 32]; 2],
    side: [bool; 32],
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
    barrier: ThreadBarrier,
    /// The group of every warp's existing lanes (the mask of `activemask`), made with the
    /// block: the common case, found without locking `warps`.
    full_warps: Vec<Arc<WarpGroup>>,
    /// The groups of other masks, made on first use.
    warps: WarpGroups,
    /// A std lock under loom too: the block's barrier orders its uses (see `sync_threads_count`).
    reduction: Mutex<BlockReduction>,
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
    barrier: ClusterBarrier,
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
            barrier: ClusterBarrier::new(threads),
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
        let full_warps = (0..threads.div_ceil(super::WARP_SIZE))
            .map(|warp| {
                let lanes = (threads - warp * super::WARP_SIZE).min(super::WARP_SIZE);
                Arc::new(WarpGroup::new(lanes))
            })
            .collect();
        Arc::new(BlockContext {
            threads,
            barrier: ThreadBarrier::new(threads),
            full_warps,
            warps: WarpGroups::new(Vec::new()),
            reduction: Mutex::new(BlockReduction::default()),
            cluster: cluster.clone(),
        })
    }
}

impl WarpGroup {
    fn new(lanes: u32) -> Self {
        WarpGroup {
            barrier: ThreadBarrier::new(lanes),
            slots: Mutex::new(Slots {
                rows: [[0; 32]; 2],
                side: [false; 32],
            }),
        }
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
    #[cfg(not(loom))]
    watch::running(Some((context.block_idx, context.thread_idx)));
    CONTEXT.with(|c| *c.borrow_mut() = Some(context));
}

/// Ends the calling thread's simulation: the thread exits, as a device thread returning from
/// the kernel. It no longer counts for its cluster's barrier (`barrier.cluster.wait` waits only
/// for the cluster's non-exited threads); an arrival it has not waited for stays counted in its
/// phase.
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// // A cluster of two blocks of one thread: the thread of block 1 exits at once, so block 0's
/// // `cluster_sync` waits for nobody.
/// let cluster = ClusterContext::new(Dim3::x(2), 1);
/// let context = |b| ThreadContext { thread_idx: Dim3::x(0), block_idx: Dim3::x(b),
///     block_dim: Dim3::x(1), grid_dim: Dim3::x(2), block: BlockContext::in_cluster(1, &cluster) };
/// enter(context(1));
/// leave();
/// enter(context(0));
/// scoped_atomics::kernel::cluster_sync();
/// leave();
/// ```
pub fn leave() {
    if let Some(context) = CONTEXT.with(|c| c.borrow_mut().take()) {
        exit_cluster(&context);
        #[cfg(not(loom))]
        watch::running(None);
    }
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
    let _waiting = waiting(WaitKind::SyncThreads, Some(core::panic::Location::caller()));
    block.barrier.arrive_and_wait();
}

/// `__syncwarp(mask)`: the barrier of the mask's lanes of this thread's warp (warp = 32
/// consecutive linear thread indices of the block). A block-scope barrier, so its ordering
/// is that of `bar.warp.sync` among the members, under loom too.
#[track_caller]
pub fn sync_warp(mask: u32) {
    let group = warp_group("sync_warp", mask).1;
    let _waiting = waiting(WaitKind::Warp, Some(core::panic::Location::caller()));
    group.barrier.arrive_and_wait();
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
    if mask == existing {
        return (lane, block.full_warps[warp as usize].clone());
    }
    let mut warps = model_locked(&block.warps);
    let group = match warps.iter().find(|(w, m, _)| (*w, *m) == (warp, mask)) {
        Some((_, _, g)) => g.clone(),
        None => {
            let g = Arc::new(WarpGroup::new(mask.count_ones()));
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
/// every member's value. Returns the calling lane and the values by lane (zero for lanes
/// outside the mask). The deposits alternate between two rows of slots (each lane flips its
/// own side per step, and every lane of the group takes every step), so one barrier per step
/// suffices: a lane deposits into a row again two steps later, after the next step's barrier,
/// which no lane passes before every lane has arrived there, after reading this step's row.
/// The barrier is a block-scope barrier among the members, so the step also orders their
/// memory, which a shuffle on the device does not.
#[track_caller]
pub fn warp_exchange(operation: &str, mask: u32, value: u64) -> (u32, [u64; 32]) {
    let (lane, group) = warp_group(operation, mask);
    let side = {
        let mut slots = locked(&group.slots);
        let side = slots.side[lane as usize];
        slots.side[lane as usize] = !side;
        slots.rows[usize::from(side)][lane as usize] = value;
        side
    };
    {
        let _waiting = waiting(WaitKind::Warp, Some(core::panic::Location::caller()));
        group.barrier.arrive_and_wait();
    }
    let mut values = locked(&group.slots).rows[usize::from(side)];
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
    locked(&block.reduction).sum += u32::from(predicate);
    let waiting_at = || waiting(WaitKind::SyncThreads, Some(core::panic::Location::caller()));
    let first = waiting_at();
    block.barrier.arrive_and_wait();
    drop(first);
    let count = {
        let mut r = locked(&block.reduction);
        let count = r.sum;
        r.readers += 1;
        // The last reader resets for the next call, which no thread starts before the
        // barrier below.
        if r.readers == block.threads {
            *r = BlockReduction::default();
        }
        count
    };
    let _second = waiting_at();
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
    let (cluster, rank) = with(|c| (c.block.cluster.clone(), rank_of(c)));
    let layout = Layout::from_size_align(size_of::<T>().max(1), align_of::<T>()).unwrap();
    let mut arrays = locked(&cluster.shared);
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

// The calling thread's arrival at its cluster barrier that it has not waited for yet.
#[cfg(not(loom))]
std::thread_local! {
    static PENDING: core::cell::Cell<Option<ClusterToken>> = const { core::cell::Cell::new(None) };
}
#[cfg(loom)]
loom::thread_local! {
    static PENDING: core::cell::Cell<Option<ClusterToken>> = core::cell::Cell::new(None);
}

/// `barrier.cluster.arrive`: an arrival on the cluster's barrier (a release at cluster scope),
/// which the thread's next [`cluster_wait`] completes.
///
/// # Panics
/// If the thread arrived before and has not waited since (undefined on the device).
#[track_caller]
pub(crate) fn cluster_arrive() {
    let cluster = with(|c| c.block.cluster.clone());
    assert!(
        PENDING.with(core::cell::Cell::get).is_none(),
        "cluster_arrive: this thread arrived at the cluster barrier before and has not waited \
         since; each thread arrives once, then waits, per phase"
    );
    let token = cluster.barrier.arrive();
    PENDING.with(|p| p.set(Some(token)));
}

/// `barrier.cluster.wait` for the thread's pending arrival (none: nothing to wait for).
#[track_caller]
pub(crate) fn cluster_wait() {
    let cluster = with(|c| c.block.cluster.clone());
    if let Some(token) = PENDING.with(core::cell::Cell::take) {
        let _waiting = waiting(
            WaitKind::ClusterBarrier,
            Some(core::panic::Location::caller()),
        );
        cluster.barrier.wait(token);
    }
}

/// The simulated thread exits: it no longer counts for its cluster's barrier (PTX: the barrier
/// waits for the non-exited threads), with an arrival it has not waited for counted in its phase.
fn exit_cluster(context: &ThreadContext) {
    let pending = PENDING.with(core::cell::Cell::take);
    context.block.cluster.barrier.exit(pending);
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
    let mut arrays = locked(&cluster.shared);
    let found = arrays.iter().find_map(|(r, site, array)| {
        let offset = ptr.addr().wrapping_sub(array.ptr.addr());
        (*r == own && offset < array.layout.size()).then_some((*site, array.layout, offset))
    });
    let Some((site, layout, offset)) = found else {
        drop(arrays);
        panic!(
            "map_shared_rank: {ptr:p} is not inside a `block_shared!` array of this block \
             (rank {own}); only block-shared locations have a counterpart in the other blocks"
        )
    };
    // SAFETY: `offset` is within the array, and the target array has the same layout.
    unsafe { array_of(&mut arrays, rank, site, layout).add(offset) }
}

/// Locks one of the emulation's shared tables, whether or not a kernel thread panicked while it
/// held the lock: every table is left consistent at each panic point (the panics are the checks
/// before a change), and the launch must report the kernel's own panic, not a `PoisonError` of
/// a thread that came after it.
fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
