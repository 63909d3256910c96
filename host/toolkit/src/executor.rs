//! Runs a kernel body over a grid on host threads, and the same launch under loom.
//!
//! As on a GPU, the blocks of a launch run in *waves* over [`Launch::resident_blocks`] places
//! (by default as many blocks as fit in [`MAX_RESIDENT_THREADS`] threads): a place is one live
//! host thread per thread of a block, and runs its blocks one after the other — each of its
//! threads moves on to the place's next block as soon as it returns, so the threads of one block
//! always run at once. So `sync_threads` works in every launch, a grid of any size completes, and a grid-wide barrier works when the whole grid is resident — which a
//! [cooperative](Launch::cooperative) launch checks before it starts, as `cudaLaunchCooperativeKernel`
//! does. Each thread runs with `scoped_atomics::kernel`'s coordinates set
//! ([`scoped_atomics::kernel::emulation`]); under loom each one is also given its position
//! (device 0, its block), so the loom mirror checks the kernel's scopes against the launch's
//! topology.
//!
//! A kernel body is any `Fn()` that calls the kernel API; a user's own kernel crate runs here
//! exactly as the workspace's do:
//!
//! ```
//! use scoped_atomics::kernel::{block_dim, block_idx, thread_idx, Dim3};
//! use scoped_atomics::device::{AtomicU64, Ordering};
//! use scoped_atomics_host::executor::Launch;
//!
//! // 64 blocks of 256 threads, 4 blocks resident at a time: 16 waves.
//! let launch = Launch::new(Dim3::x(64), Dim3::x(256)).resident_blocks(4);
//! assert_eq!(launch.waves(), Ok(16));
//! let sum = AtomicU64::new(0);
//! launch
//!     .run(|| {
//!         let i = block_idx().x * block_dim().x + thread_idx().x;
//!         sum.fetch_add(u64::from(i), Ordering::Relaxed);
//!     })
//!     .unwrap();
//! assert_eq!(sum.load(Ordering::Relaxed), (0..64 * 256).sum::<u64>());
//! ```

use scoped_atomics::kernel::Dim3;
use scoped_atomics::kernel::emulation::{self, BlockedThread, ThreadContext};
use std::collections::VecDeque;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

// `Launch::run_loom` in documentation builds without `--cfg loom`.
#[cfg(all(doc, not(loom)))]
mod loom_doc;
mod places;
mod watchdog;
#[cfg(loom)]
use places::cluster_contexts;
use places::{Place, block_of, cluster_blocks};
use watchdog::watch;

/// The most threads a block may have (CUDA's limit).
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// The most threads resident at once, and so the default residency: `MAX_RESIDENT_THREADS /
/// threads per block` blocks (4 blocks of 1024 threads, 16 of 256). Every resident thread is a
/// live host thread.
pub const MAX_RESIDENT_THREADS: u32 = 4096;
/// The former name of [`MAX_RESIDENT_THREADS`], from when every thread of a grid was a live
/// host thread and larger grids were refused.
#[deprecated(note = "grids of any size run in waves now; the limit is MAX_RESIDENT_THREADS")]
pub const MAX_GRID_THREADS: u32 = MAX_RESIDENT_THREADS;
/// The most threads of a loom launch: loom allows 5 threads, one of which runs the model.
pub const MAX_LOOM_THREADS: u32 = 4;
/// How long a host launch waits, with every live kernel thread waiting and none leaving its
/// wait, before it reports a hang ([`Launch::watchdog`]). Ten seconds: long enough that a
/// correct kernel whose threads hand work to each other only through spin loops (the
/// watchdog's blind spot) finishes first in tests, short enough to end a deadlocked test well
/// before a CI step's patience.
pub const DEFAULT_WATCHDOG: Duration = Duration::from_secs(10);
/// The most blocks of a thread-block cluster: 8, CUDA's portable cluster size (16 needs a
/// non-portable opt-in on the device).
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

/// Why a launch was refused or failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaunchError {
    /// An extent with a zero component.
    Empty { grid: Dim3, block: Dim3 },
    /// A block larger than [`MAX_BLOCK_THREADS`].
    BlockTooLarge { threads: u64 },
    /// A grid with more threads than the launch runs at once (loom: [`MAX_LOOM_THREADS`]), or
    /// with more than `u32::MAX` blocks.
    GridTooLarge { threads: u64, max: u64 },
    /// More resident threads (`resident_blocks` × threads per block) than
    /// [`MAX_RESIDENT_THREADS`].
    TooManyResident {
        resident_blocks: u32,
        block_threads: u32,
    },
    /// A cooperative launch (grid-wide barrier) whose blocks are not all resident at once.
    NotResident {
        blocks: u64,
        resident_blocks: u32,
        block_threads: u32,
    },
    /// A cluster shape with a zero component, of more than [`MAX_CLUSTER_BLOCKS`] blocks, or that
    /// does not divide the grid.
    ClusterShape { grid: Dim3, cluster: Dim3 },
    /// A kernel thread panicked; the message of the first one.
    Panicked {
        block: Dim3,
        thread: Dim3,
        message: String,
    },
    /// The watchdog found the launch hung: for `after`, every kernel thread still running
    /// waited (at a barrier, in a blocking wait, or spinning in `kernel::spin_loop`) and none
    /// left its wait. `threads` are those threads and where they wait. The launch was then
    /// stopped (see [`Launch::watchdog`]).
    Hung {
        after: Duration,
        threads: Vec<BlockedThread>,
    },
    /// The arguments of a [`launch::Launch`](crate::launch::Launch) do not fit its kernel's
    /// parameters (refused before any thread runs).
    Arguments(scoped_atomics::kernel::ArgumentMismatch),
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::Empty { grid, block } => {
                write!(f, "empty launch: grid {grid:?}, block {block:?}")
            }
            LaunchError::BlockTooLarge { threads } => write!(
                f,
                "a block of {threads} threads is larger than the {MAX_BLOCK_THREADS} a block may have"
            ),
            LaunchError::GridTooLarge { threads, max } => write!(
                f,
                "a grid of {threads} threads is larger than the {max} this launch runs"
            ),
            LaunchError::TooManyResident {
                resident_blocks,
                block_threads,
            } => write!(
                f,
                "{resident_blocks} resident blocks of {block_threads} threads are {} live host \
                 threads, more than the {MAX_RESIDENT_THREADS} the executor runs at once",
                u64::from(*resident_blocks) * u64::from(*block_threads)
            ),
            LaunchError::NotResident {
                blocks,
                resident_blocks,
                block_threads,
            } => write!(
                f,
                "a cooperative launch needs every block resident at once (its grid-wide barrier \
                 waits for all of them), but only {resident_blocks} blocks of {block_threads} \
                 threads are resident and the grid has {blocks}: launch fewer blocks (or raise \
                 resident_blocks, up to {} for this block size)",
                MAX_RESIDENT_THREADS / block_threads
            ),
            LaunchError::ClusterShape { grid, cluster } => write!(
                f,
                "clusters of {cluster:?} blocks do not fit a grid of {grid:?} blocks: each \
                 component of the cluster must be at least 1 and divide the grid's, and a \
                 cluster has at most {MAX_CLUSTER_BLOCKS} blocks"
            ),
            LaunchError::Panicked {
                block,
                thread,
                message,
            } => write!(
                f,
                "kernel thread {thread:?} of block {block:?} panicked: {message}"
            ),
            LaunchError::Arguments(mismatch) => mismatch.fmt(f),
            LaunchError::Hung { after, threads } => {
                write!(
                    f,
                    "the launch hangs: for {after:?} each of its {} running kernel threads \
                     waited and none left its wait (deadlock or a lost wake-up; \
                     Launch::watchdog sets the time):",
                    threads.len()
                )?;
                for thread in threads.iter().take(SHOWN_BLOCKED) {
                    write!(f, "\n  {thread}")?;
                }
                if threads.len() > SHOWN_BLOCKED {
                    write!(f, "\n  … and {} more", threads.len() - SHOWN_BLOCKED)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for LaunchError {}

/// The blocked threads a hang's message lists (all are in [`LaunchError::Hung`]).
const SHOWN_BLOCKED: usize = 16;

/// Checks the extents; returns (blocks, threads per block).
fn extents(grid: Dim3, block: Dim3) -> Result<(u64, u32), LaunchError> {
    let product = |d: Dim3| u64::from(d.x) * u64::from(d.y) * u64::from(d.z);
    let (blocks, block_threads) = (product(grid), product(block));
    if blocks == 0 || block_threads == 0 {
        return Err(LaunchError::Empty { grid, block });
    }
    if block_threads > u64::from(MAX_BLOCK_THREADS) {
        return Err(LaunchError::BlockTooLarge {
            threads: block_threads,
        });
    }
    if blocks > u64::from(u32::MAX) {
        return Err(LaunchError::GridTooLarge {
            threads: blocks * block_threads,
            max: u64::from(u32::MAX) * block_threads,
        });
    }
    Ok((blocks, block_threads as u32))
}

#[cfg(loom)]
fn check(grid: Dim3, block: Dim3, max_grid: u32) -> Result<(), LaunchError> {
    let (blocks, block_threads) = extents(grid, block)?;
    let threads = blocks * u64::from(block_threads);
    if threads > u64::from(max_grid) {
        return Err(LaunchError::GridTooLarge {
            threads,
            max: u64::from(max_grid),
        });
    }
    Ok(())
}

/// The coordinates of every thread of a launch, block by block.
#[cfg(loom)]
fn threads(grid: Dim3, block: Dim3) -> impl Iterator<Item = (Dim3, Dim3)> {
    (0..grid.size()).flat_map(move |b| {
        (0..block.size()).map(move |t| (Dim3::from_linear(b, grid), Dim3::from_linear(t, block)))
    })
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".to_string())
}

/// A launch on host threads: the grid, the block, how many blocks are resident at once, and
/// whether it is cooperative. [`launch`] is `Launch::new(grid, block).run(kernel)`.
///
/// ```
/// use scoped_atomics::kernel::Dim3;
/// use scoped_atomics_host::executor::{Launch, LaunchError};
///
/// // 1024 blocks of 1024 threads: 4 resident at a time by default, 256 waves.
/// assert_eq!(Launch::new(Dim3::x(1024), Dim3::x(1024)).waves(), Ok(256));
/// // A grid-wide barrier needs the whole grid resident: refused, with the reason.
/// let e = Launch::new(Dim3::x(8), Dim3::x(1024)).cooperative(true).waves().unwrap_err();
/// assert!(matches!(e, LaunchError::NotResident { blocks: 8, resident_blocks: 4, .. }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    grid: Dim3,
    block: Dim3,
    cluster: Dim3,
    resident_blocks: Option<u32>,
    cooperative: bool,
    watchdog: Option<Duration>,
}

impl Launch {
    /// A launch of a `grid` of `block`s, with the default residency, not cooperative.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// let launch = scoped_atomics_host::executor::Launch::new(Dim3::x(2), Dim3::x(32));
    /// assert_eq!(launch.waves(), Ok(1));
    /// ```
    pub fn new(grid: Dim3, block: Dim3) -> Self {
        Launch {
            grid,
            block,
            cluster: Dim3::x(1),
            resident_blocks: None,
            cooperative: false,
            watchdog: Some(DEFAULT_WATCHDOG),
        }
    }

    /// A launch in thread-block clusters of `cluster` blocks (`cudaLaunchKernelEx` with a
    /// cluster dimension, or a kernel's `__cluster_dims__`): the blocks of a cluster are resident
    /// together, share a cluster barrier (`kernel::cluster_sync`) and reach each other's
    /// block-shared memory (`kernel::map_shared_rank`). Each component must divide the grid's,
    /// and a cluster has at most [`MAX_CLUSTER_BLOCKS`] blocks ([`LaunchError::ClusterShape`]).
    ///
    /// ```
    /// use scoped_atomics::kernel::{cluster_rank, cluster_sync, Dim3};
    /// use scoped_atomics::device::{AtomicU32, Ordering};
    /// use scoped_atomics_host::executor::Launch;
    ///
    /// let ranks = AtomicU32::new(0);
    /// Launch::new(Dim3::x(8), Dim3::x(32)).cluster(Dim3::x(4)).run(|| {
    ///     ranks.fetch_add(cluster_rank(), Ordering::Relaxed);
    ///     cluster_sync();
    /// })
    /// .unwrap();
    /// assert_eq!(ranks.load(Ordering::Relaxed), 2 * 32 * (0 + 1 + 2 + 3));
    /// ```
    pub fn cluster(mut self, cluster: Dim3) -> Self {
        self.cluster = cluster;
        self
    }

    /// At most `blocks` blocks resident at once (what a GPU's SMs hold); `blocks ×` threads per
    /// block must not exceed [`MAX_RESIDENT_THREADS`].
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// let launch = scoped_atomics_host::executor::Launch::new(Dim3::x(10), Dim3::x(32));
    /// assert_eq!(launch.resident_blocks(3).waves(), Ok(4));
    /// ```
    pub fn resident_blocks(mut self, blocks: u32) -> Self {
        self.resident_blocks = Some(blocks.max(1));
        self
    }

    /// A cooperative launch: the kernel may wait at a grid-wide barrier, so every block must be
    /// resident at once; a grid that does not fit is refused ([`LaunchError::NotResident`]).
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// let launch = scoped_atomics_host::executor::Launch::new(Dim3::x(4), Dim3::x(1024));
    /// assert_eq!(launch.cooperative(true).waves(), Ok(1));
    /// ```
    pub fn cooperative(mut self, cooperative: bool) -> Self {
        self.cooperative = cooperative;
        self
    }

    /// The hang watchdog of [`run`](Launch::run): `Some(t)` (the default,
    /// [`DEFAULT_WATCHDOG`]) turns a launch in which, for `t`, every running kernel thread
    /// waits — at `sync_threads`, a warp or cluster barrier, one of the library's blocking
    /// waits, or spinning in `kernel::spin_loop` — and none leaves its wait into
    /// [`LaunchError::Hung`], naming each thread and where it waits; `None` turns it off. A
    /// thread that runs anything else is never reported; the blind spots (two threads handing
    /// work to each other only through spin loops for all of `t`, a kernel waiting for the
    /// host) are in `scoped_atomics::kernel::emulation::Watchdog`.
    ///
    /// After the report the launch is stopped, so that `run` returns: each waiting thread
    /// unwinds at its next check (barriers are woken for it, spinners check at each
    /// `spin_loop`), and blocks not started are skipped. A thread that loops for ever without
    /// waiting or spinning is not reached, and `run` then does not return.
    ///
    /// ```
    /// use scoped_atomics::kernel::{spin_loop, sync_threads, thread_idx, Dim3};
    /// use scoped_atomics_host::executor::{Launch, LaunchError};
    /// use std::time::Duration;
    ///
    /// // Thread 1 waits at `sync_threads` for thread 0, which spins on a flag nobody sets.
    /// let never = scoped_atomics::device::AtomicBool::new(false);
    /// let launch = Launch::new(Dim3::x(1), Dim3::x(2)).watchdog(Some(Duration::from_millis(200)));
    /// let error = launch
    ///     .run(|| {
    ///         if thread_idx().x == 0 {
    ///             while !never.load(scoped_atomics::Ordering::Acquire) {
    ///                 spin_loop();
    ///             }
    ///         }
    ///         sync_threads();
    ///     })
    ///     .unwrap_err();
    /// let LaunchError::Hung { threads, .. } = &error else { panic!("{error}") };
    /// assert_eq!(threads.len(), 2);
    /// assert!(error.to_string().contains("spins in spin_loop"), "{error}");
    /// assert!(error.to_string().contains("waits at sync_threads"), "{error}");
    /// ```
    pub fn watchdog(mut self, timeout: Option<Duration>) -> Self {
        self.watchdog = timeout;
        self
    }

    /// Checks the launch and returns (blocks, threads per block, resident blocks), the
    /// resident blocks a multiple of the cluster size.
    fn plan(&self) -> Result<(u64, u32, u32), LaunchError> {
        let (blocks, block_threads) = extents(self.grid, self.block)?;
        let cluster_blocks = cluster_blocks(self.grid, self.cluster)?;
        let resident = self
            .resident_blocks
            .unwrap_or((MAX_RESIDENT_THREADS / block_threads).max(1));
        // Whole clusters only, and at least one.
        let resident = (resident / cluster_blocks).max(1) * cluster_blocks;
        if u64::from(resident) * u64::from(block_threads) > u64::from(MAX_RESIDENT_THREADS) {
            return Err(LaunchError::TooManyResident {
                resident_blocks: resident,
                block_threads,
            });
        }
        if self.cooperative && blocks > u64::from(resident) {
            return Err(LaunchError::NotResident {
                blocks,
                resident_blocks: resident,
                block_threads,
            });
        }
        Ok((blocks, block_threads, resident.min(blocks as u32)))
    }

    /// How many waves of resident blocks the launch takes, or why it is refused.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// let launch = scoped_atomics_host::executor::Launch::new(Dim3::x(33), Dim3::x(256));
    /// assert_eq!(launch.waves(), Ok(3)); // 16 resident blocks of 256 threads
    /// ```
    pub fn waves(&self) -> Result<u64, LaunchError> {
        let (blocks, _, resident) = self.plan()?;
        Ok(blocks.div_ceil(u64::from(resident)))
    }

    /// Runs `kernel` once per thread of the grid and waits for all of them. Resident place `p`
    /// runs blocks `p`, `p + resident`, `p + 2 × resident`, … with the same host threads, one per
    /// thread of a block; each thread moves on to its next block when it returns, and the threads
    /// of a block all run at once. A block gets fresh block-shared memory and barrier. After a
    /// kernel thread panics, the blocks not yet started are skipped and the first panic is
    /// returned.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{sync_threads, Dim3};
    /// # use scoped_atomics_host::executor::Launch;
    /// Launch::new(Dim3::x(100), Dim3::x(64)).run(|| sync_threads()).unwrap();
    /// ```
    pub fn run<K: Fn() + Sync>(&self, kernel: K) -> Result<(), LaunchError> {
        let (blocks, block_threads, resident) = self.plan()?;
        let (grid, block, shape) = (self.grid, self.block, self.cluster);
        // A place runs one cluster at a time: one host thread per thread of each of its blocks.
        let cluster_blocks = shape.size();
        let (clusters, resident) = (
            blocks / u64::from(cluster_blocks),
            resident / cluster_blocks,
        );
        let cluster_grid = Dim3::new(grid.x / shape.x, grid.y / shape.y, grid.z / shape.z);
        let places: Vec<Place> = (0..resident)
            .map(|_| Place {
                clusters: Mutex::new(VecDeque::new()),
            })
            .collect();
        let failed = AtomicBool::new(false);
        let first_panic: Mutex<Option<LaunchError>> = Mutex::new(None);
        let kernel = &kernel;
        let place_threads = block_threads * cluster_blocks;
        let host_threads = places.len() * place_threads as usize;
        let watchdog = emulation::Watchdog::new(host_threads);
        let running = AtomicUsize::new(host_threads);
        std::thread::scope(|s| {
            if let Some(timeout) = self.watchdog {
                let (watchdog, running, failed, first_panic) =
                    (&watchdog, &running, &failed, &first_panic);
                s.spawn(move || watch(watchdog, timeout, running, failed, first_panic));
            }
            for (p, place) in places.iter().enumerate() {
                for t in 0..place_threads {
                    let (failed, first_panic, watchdog, running) =
                        (&failed, &first_panic, &watchdog, &running);
                    std::thread::Builder::new()
                        .stack_size(256 * 1024)
                        .spawn_scoped(s, move || {
                            emulation::watch(watchdog, p * place_threads as usize + t as usize);
                            let (rank, t) = (t / block_threads, t % block_threads);
                            let thread_idx = Dim3::from_linear(t, block);
                            let mut c = p as u64;
                            while c < clusters {
                                let block_idx = block_of(c as u32, cluster_grid, shape, rank);
                                let context = ThreadContext {
                                    thread_idx,
                                    block_idx,
                                    block_dim: block,
                                    grid_dim: grid,
                                    block: place.enter(c as u32, shape, block_threads, rank),
                                };
                                if !failed.load(Ordering::Relaxed) {
                                    let block_idx = context.block_idx;
                                    emulation::enter(context);
                                    let result = catch_unwind(AssertUnwindSafe(kernel));
                                    emulation::leave();
                                    if let Err(payload) = result
                                        && !payload.is::<emulation::Stopped>()
                                    {
                                        failed.store(true, Ordering::Relaxed);
                                        first_panic.lock().unwrap().get_or_insert(
                                            LaunchError::Panicked {
                                                block: block_idx,
                                                thread: thread_idx,
                                                message: panic_message(&*payload),
                                            },
                                        );
                                    }
                                }
                                place.leave(c as u32);
                                c += u64::from(resident);
                            }
                            emulation::unwatch();
                            running.fetch_sub(1, Ordering::SeqCst);
                        })
                        .expect("spawning a kernel thread");
                }
            }
        });
        match first_panic.into_inner().unwrap() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Runs `kernel` once per thread of a `grid` of `block`s on host threads, in waves of resident
/// blocks (see [`Launch`]), and waits for all of them.
///
/// ```
/// use scoped_atomics_host::executor::launch;
/// use scoped_atomics::kernel::{block_idx, thread_idx, Dim3};
/// use scoped_atomics::device::{AtomicU32, Ordering};
///
/// let sum = AtomicU32::new(0);
/// launch(Dim3::x(2), Dim3::x(8), || {
///     sum.fetch_add(block_idx().x * 8 + thread_idx().x, Ordering::Relaxed);
/// })
/// .unwrap();
/// assert_eq!(sum.load(Ordering::Relaxed), (0..16).sum::<u32>());
/// ```
pub fn launch<K: Fn() + Sync>(grid: Dim3, block: Dim3, kernel: K) -> Result<(), LaunchError> {
    Launch::new(grid, block).run(kernel)
}

/// A cooperative launch (`cudaLaunchCooperativeKernel`): every block resident at once, so the
/// kernel may wait at a grid-wide barrier; refused with [`LaunchError::NotResident`] if the grid
/// does not fit in [`MAX_RESIDENT_THREADS`].
///
/// ```
/// use scoped_atomics::kernel::Dim3;
/// use scoped_atomics::{Barrier, Device};
/// use scoped_atomics_host::executor::launch_cooperative;
///
/// let grid_barrier = Barrier::<Device>::new(4 * 64);
/// launch_cooperative(Dim3::x(4), Dim3::x(64), || grid_barrier.arrive_and_wait()).unwrap();
/// assert!(launch_cooperative(Dim3::x(5), Dim3::x(1024), || {}).is_err());
/// ```
pub fn launch_cooperative<K: Fn() + Sync>(
    grid: Dim3,
    block: Dim3,
    kernel: K,
) -> Result<(), LaunchError> {
    Launch::new(grid, block).cooperative(true).run(kernel)
}

/// A loom model builder with the bounds the guide's shapes finish under (`testing`, "Bounds"):
/// preemption bound 2 (loom's default is none, which does not finish beyond toy sizes) and the
/// default branch limit; `LOOM_MAX_PREEMPTIONS` and `LOOM_MAX_BRANCHES` in the environment
/// override them, as in loom. With it the example kernels finish at 2 blocks × 2 threads (block
/// sum: two `sync_threads` and a warp shuffle, about 8 s) and 4 blocks × 1 thread (ticket
/// lock, about 15 s; 3 × 1 in under a second).
///
/// ```text
/// scoped_atomics_host::executor::loom_builder().check(|| { /* launch_loom(…) */ });
/// ```
#[cfg(any(loom, doc))]
#[cfg_attr(docsrs, doc(cfg(loom)))]
pub fn loom_builder() -> loom::model::Builder {
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_PREEMPTIONS").is_none() {
        builder.preemption_bound = Some(2);
    }
    builder
}

/// The same launch under loom (build with `--cfg loom`, call inside `loom::model`): the model's
/// thread is a host thread, each kernel thread a loom thread at its position (device 0, its
/// block), so scope misuse is reported by the loom mirror. At most [`MAX_LOOM_THREADS`] threads.
/// `Launch::new(grid, block).run_loom(kernel)`.
#[cfg(any(loom, doc))]
#[cfg_attr(docsrs, doc(cfg(loom)))]
pub fn launch_loom<K: Fn() + Send + Sync + 'static>(
    grid: Dim3,
    block: Dim3,
    kernel: K,
) -> Result<(), LaunchError> {
    Launch::new(grid, block).run_loom(kernel)
}

#[cfg(loom)]
#[cfg_attr(docsrs, doc(cfg(loom)))]
impl Launch {
    /// Runs the launch under loom (build with `--cfg loom`, call inside `loom::model`): the
    /// model's thread is a host thread, each kernel thread a loom thread at its position (device
    /// 0, its cluster, its block), so the loom mirror reports scope misuse — a `Block`-scope
    /// atomic shared by two blocks of a cluster through `map_shared_rank` too. At most
    /// [`MAX_LOOM_THREADS`] threads; residency and cooperation do not apply (every thread runs).
    pub fn run_loom<K: Fn() + Send + Sync + 'static>(&self, kernel: K) -> Result<(), LaunchError> {
        use scoped_atomics::model::{Position, current_position, set_position, spawn_in};
        let (grid, block, shape) = (self.grid, self.block, self.cluster);
        check(grid, block, MAX_LOOM_THREADS)?;
        cluster_blocks(grid, shape)?;
        if current_position().is_none() {
            set_position(Position::host());
        }
        let kernel = std::sync::Arc::new(kernel);
        let cluster_grid = Dim3::new(grid.x / shape.x, grid.y / shape.y, grid.z / shape.z);
        let clusters: Vec<_> = (0..cluster_grid.size())
            .map(|_| cluster_contexts(shape, block.size()))
            .collect();
        let handles: Vec<_> = threads(grid, block)
            .map(|(block_idx, thread_idx)| {
                let linear_block = block_idx.linear(grid);
                let div = |a: Dim3, b: Dim3| Dim3::new(a.x / b.x, a.y / b.y, a.z / b.z);
                let within = Dim3::new(
                    block_idx.x % shape.x,
                    block_idx.y % shape.y,
                    block_idx.z % shape.z,
                );
                let cluster = div(block_idx, shape).linear(cluster_grid);
                let context = ThreadContext {
                    thread_idx,
                    block_idx,
                    block_dim: block,
                    grid_dim: grid,
                    block: clusters[cluster as usize][within.linear(shape) as usize].clone(),
                };
                let kernel = kernel.clone();
                let position = Position::gpu(0, linear_block)
                    .in_cluster(cluster)
                    .thread(thread_idx.linear(block));
                spawn_in(position, move || {
                    emulation::enter(context);
                    kernel();
                    emulation::leave();
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("a kernel thread panicked");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
