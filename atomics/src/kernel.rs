//! A small kernel API, the counterpart of `cuda_std::thread`: the thread's coordinates, the block
//! and warp barriers, `nanosleep` and block-shared memory; and thread-block clusters (sm_90): the
//! cluster coordinates, the cluster barrier ([`cluster_sync`]) and distributed shared memory
//! ([`map_shared_rank`]).
//!
//! On `nvptx64` these read the special registers (`%tid`, `%ctaid`, `%ntid`, `%nctaid`) and emit
//! `bar.sync 0`, `bar.warp.sync`, `nanosleep.u32` and `.shared` arrays. On the host they read the simulated thread
//! that the `scoped-atomics-host` crate's executor (or its loom launch) runs, so one kernel source runs as PTX, on
//! host threads and under loom; there a kernel function called outside a launch panics.
//!
//! ```
//! use scoped_atomics::kernel::{block_dim, block_idx, thread_idx, Dim3};
//! // A kernel body: the global x index of this thread.
//! fn global_x() -> u32 {
//!     block_idx().x * block_dim().x + thread_idx().x
//! }
//! # let _ = global_x as fn() -> u32;
//! assert_eq!(Dim3::new(4, 2, 1).size(), 8);
//! ```

mod cluster;
pub use cluster::*;

/// Three-dimensional coordinates or extents (`dim3` / `uint3`).
///
/// ```
/// use scoped_atomics::kernel::Dim3;
/// assert_eq!(Dim3::x(32), Dim3 { x: 32, y: 1, z: 1 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// The x component.
    pub x: u32,
    /// The y component.
    pub y: u32,
    /// The z component.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// assert_eq!(Dim3::new(1, 2, 3).z, 3);
    /// ```
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// `(x, 1, 1)`.
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// assert_eq!(Dim3::x(8).size(), 8);
    /// ```
    pub const fn x(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }

    /// The number of elements of an extent: `x * y * z`.
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// assert_eq!(Dim3::new(2, 3, 4).size(), 24);
    /// ```
    pub const fn size(self) -> u32 {
        self.x * self.y * self.z
    }

    /// The linear index of coordinates `self` within the extent `extent` (x fastest).
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// assert_eq!(Dim3::new(1, 1, 0).linear(Dim3::new(4, 2, 1)), 5);
    /// ```
    pub const fn linear(self, extent: Dim3) -> u32 {
        (self.z * extent.y + self.y) * extent.x + self.x
    }

    /// The coordinates of linear index `index` within the extent `extent` (x fastest).
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// let extent = Dim3::new(4, 2, 3);
    /// assert_eq!(Dim3::from_linear(13, extent).linear(extent), 13);
    /// ```
    pub const fn from_linear(index: u32, extent: Dim3) -> Self {
        Dim3 {
            x: index % extent.x,
            y: index / extent.x % extent.y,
            z: index / (extent.x * extent.y),
        }
    }
}

/// The number of threads in a warp.
///
/// ```
/// assert_eq!(scoped_atomics::kernel::WARP_SIZE, 32);
/// ```
pub const WARP_SIZE: u32 = 32;

/// The [`sync_warp`] mask of all 32 lanes of a warp (`0xffff_ffff`, CUDA's `__syncwarp()`).
///
/// ```
/// assert_eq!(scoped_atomics::kernel::FULL_WARP.count_ones(), 32);
/// ```
pub const FULL_WARP: u32 = u32::MAX;

#[cfg(target_arch = "nvptx64")]
mod imp {
    use super::Dim3;
    use core::arch::asm;

    /// One special register triple, each component through its `core::arch::nvptx` intrinsic
    /// (`llvm.nvvm.read.ptx.sreg.tid.x`, …) rather than one `asm!` for all three: LLVM drops the
    /// components a kernel does not use, and knows each one's range (`%tid.x` < 1024, `%ntid.x`
    /// ≥ 1, …), so index arithmetic stays narrow and bounds checks fold.
    macro_rules! special_register {
        ($name:ident, $x:ident, $y:ident, $z:ident) => {
            #[inline(always)]
            pub fn $name() -> Dim3 {
                use core::arch::nvptx::{$x, $y, $z};
                // SAFETY: reading a special register has no side effect; the values are
                // non-negative (as `i32`), so the casts keep them.
                unsafe {
                    Dim3 {
                        x: $x() as u32,
                        y: $y() as u32,
                        z: $z() as u32,
                    }
                }
            }
        };
    }

    special_register!(thread_idx, _thread_idx_x, _thread_idx_y, _thread_idx_z);
    special_register!(block_idx, _block_idx_x, _block_idx_y, _block_idx_z);
    special_register!(block_dim, _block_dim_x, _block_dim_y, _block_dim_z);
    special_register!(grid_dim, _grid_dim_x, _grid_dim_y, _grid_dim_z);

    /// `llvm.nvvm.barrier0` (`bar.sync 0`), through `core::arch::nvptx::_syncthreads`.
    ///
    /// Not an `asm!`: LLVM does not treat inline assembly as *convergent*, so it may duplicate
    /// it into both arms of a branch (tail duplication, jump threading, loop unswitching), and
    /// then lanes of one warp reach different `bar.sync` instructions. `bar.sync` is
    /// `barrier.sync.aligned`, which requires every thread of the warp to execute the same
    /// instruction. The intrinsic is declared `convergent`, which forbids exactly those
    /// transformations.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn sync_threads() {
        // SAFETY: a block-wide barrier; it also orders memory among the block's threads. Every
        // thread of the block must reach it (the caller's side of `__syncthreads`).
        unsafe { core::arch::nvptx::_syncthreads() }
    }

    /// `bar.warp.sync mask`, after a check that the mask names the calling lane (a `trap`
    /// otherwise: PTX leaves that undefined).
    ///
    /// An `asm!` suffices here, unlike for `sync_threads`: on sm_70 and later `bar.warp.sync` is
    /// not `.aligned`, so lanes may reach it at different instructions, and a copy of it in
    /// each arm of a branch is still correct.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn sync_warp(mask: u32) {
        // SAFETY: the member lanes wait for each other; the barrier also orders memory among
        // them. A mask without the calling lane traps before the barrier; that every lane of the
        // mask reaches a `bar.warp.sync` with the same mask is the caller's duty (`__syncwarp`).
        unsafe {
            asm!(
                "{{",
                ".reg .pred %not_member;",
                ".reg .b32 %own_lane;",
                "mov.u32 %own_lane, %lanemask_eq;",
                "and.b32 %own_lane, %own_lane, {mask};",
                "setp.eq.u32 %not_member, %own_lane, 0;",
                "@%not_member trap;",
                "bar.warp.sync {mask};",
                "}}",
                mask = in(reg32) mask,
                options(nostack),
            )
        }
    }

    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn nanosleep(ns: u32) {
        // SAFETY: suspends the thread for about `ns` nanoseconds (sm_70+).
        unsafe { asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nostack)) }
    }

    #[inline(always)]
    pub fn spin_loop() {
        core::hint::spin_loop()
    }
}

/// The block's shared window: a pointer whose address is the generic address of shared
/// address 0 (`cvta.shared` of 0), so that a shared variable's generic address is this plus its
/// shared address. `block_shared!` makes its pointer so, and `from_shared_ptr` and
/// `plain::read_shared` take the distance from this pointer as the shared address, which LLVM
/// folds (the difference of two pointers from one base) to the variable's shared address plus
/// the index. A pure `asm!`: computed once per kernel.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub fn shared_window() -> *mut u8 {
    let base: *mut u8;
    // SAFETY: an address conversion; no memory access. A pointer output (not an integer cast
    // to one), so that LLVM folds the difference of two pointers derived from it.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 %shared_zero; mov.u64 %shared_zero, 0; cvta.shared.u64 {b}, %shared_zero; }}",
            b = out(reg64) base,
            options(pure, nomem, nostack),
        )
    };
    base
}

#[cfg(all(not(target_arch = "nvptx64"), any(feature = "std", loom)))]
mod imp {
    pub use super::emulation::{
        block_dim, block_idx, grid_dim, sync_threads, sync_warp, thread_idx,
    };

    #[track_caller]
    pub fn nanosleep(_ns: u32) {
        spin_loop()
    }

    /// Under loom a yield to loom; on host threads a yield, after telling the launch's
    /// watchdog that this thread spins here (and unwinding if the launch was stopped).
    #[track_caller]
    pub fn spin_loop() {
        #[cfg(loom)]
        crate::imp::loom_spin();
        #[cfg(not(loom))]
        {
            super::emulation::spinning(Some(core::panic::Location::caller()));
            std::thread::yield_now();
        }
    }
}

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
mod api {
    use super::{Dim3, WARP_SIZE, imp};

    /// This thread's index within its block (`threadIdx`).
    ///
    /// # Panics
    /// On the host, outside a kernel launch.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(3, 0, 0), block_idx: Dim3::new(1, 0, 0),
    /// #     block_dim: Dim3::x(4), grid_dim: Dim3::x(2), block: BlockContext::new(1) });
    /// assert_eq!(scoped_atomics::kernel::thread_idx(), Dim3::new(3, 0, 0));
    /// ```
    #[inline(always)]
    pub fn thread_idx() -> Dim3 {
        imp::thread_idx()
    }

    /// This block's index within the grid (`blockIdx`).
    ///
    /// # Panics
    /// On the host, outside a kernel launch.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(3, 0, 0), block_idx: Dim3::new(1, 0, 0),
    /// #     block_dim: Dim3::x(4), grid_dim: Dim3::x(2), block: BlockContext::new(1) });
    /// assert_eq!(scoped_atomics::kernel::block_idx().x, 1);
    /// ```
    #[inline(always)]
    pub fn block_idx() -> Dim3 {
        imp::block_idx()
    }

    /// The extent of a block (`blockDim`).
    ///
    /// # Panics
    /// On the host, outside a kernel launch.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(3, 0, 0), block_idx: Dim3::new(1, 0, 0),
    /// #     block_dim: Dim3::x(4), grid_dim: Dim3::x(2), block: BlockContext::new(1) });
    /// assert_eq!(scoped_atomics::kernel::block_dim(), Dim3::x(4));
    /// ```
    #[inline(always)]
    pub fn block_dim() -> Dim3 {
        imp::block_dim()
    }

    /// The extent of the grid (`gridDim`).
    ///
    /// # Panics
    /// On the host, outside a kernel launch.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(3, 0, 0), block_idx: Dim3::new(1, 0, 0),
    /// #     block_dim: Dim3::x(4), grid_dim: Dim3::x(2), block: BlockContext::new(1) });
    /// assert_eq!(scoped_atomics::kernel::grid_dim().size(), 2);
    /// ```
    #[inline(always)]
    pub fn grid_dim() -> Dim3 {
        imp::grid_dim()
    }

    /// Waits until every thread of the block has reached it, and orders the block's memory
    /// accesses across it (`__syncthreads()`, `bar.sync 0`).
    ///
    /// On the device it is the convergent intrinsic `llvm.nvvm.barrier0`, so the compiler keeps
    /// exactly one barrier instruction per call site, however the code around it branches:
    /// divergent code before and after the call is fine. What stays the caller's duty, as with
    /// `__syncthreads()`: **every** thread of the block must reach the call. A kernel in which some
    /// threads return early (`if thread_idx().x >= n { return; }`) and the others then call
    /// `sync_threads()` waits for threads that never come — undefined behaviour on the device (a
    /// hang, or a barrier that opens early), and a deadlock in the host executor. Let every thread
    /// run to the barrier and guard only the work.
    ///
    /// # Panics
    /// On the host, outside a kernel launch.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # // A block of one thread: the barrier opens at once.
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(0, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
    /// scoped_atomics::kernel::sync_threads();
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn sync_threads() {
        imp::sync_threads()
    }

    /// Waits until every lane of `mask` in this thread's warp has reached a `sync_warp(mask)`,
    /// and orders their memory accesses across it (`__syncwarp(mask)`, `bar.warp.sync mask`):
    /// what a member lane wrote before the call, every member lane reads after it — warp-level
    /// publication without a block-wide barrier or atomics.
    ///
    /// A warp is 32 threads of consecutive linear index in the block (`x + y·X + z·X·Y`); bit
    /// `i` of `mask` is lane `i`, and [`FULL_WARP`](crate::kernel::FULL_WARP) is the whole
    /// warp. Unlike [`sync_threads`], the lanes need not reach the same call site (sm_70 and
    /// later), and lanes outside the mask do not wait. The ordering is that of a CTA-scope barrier among the
    /// members: the PTX memory model knows no warp scope, so atomics that publish to other lanes
    /// still need at least [`Block`](crate::Block) scope.
    ///
    /// That ordering rests on the PTX ISA's instruction description of `bar.warp.sync`, which
    /// says it orders memory among the participating threads — not on the memory-model chapter,
    /// which has no warp scope and does not name `bar.warp.sync` among its synchronising
    /// operations. CUDA's `__syncwarp` rests on the same description.
    ///
    /// # Panics
    /// On the host, outside a kernel launch; when `mask` does not include the calling lane, or
    /// names lanes that the block does not have (a last warp of fewer than 32 threads) — both
    /// undefined on the device, where the first traps.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(0, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
    /// use scoped_atomics::kernel::{FULL_WARP, lane_id, sync_warp};
    ///
    /// /// A kernel body for blocks of whole warps: each lane publishes its slot with a plain
    /// /// write, the warp syncs, each lane reads its neighbour's slot.
    /// unsafe fn exchange(slots: *mut u32) -> u32 {
    ///     let lane = lane_id() as usize;
    ///     // SAFETY: `slots` holds 32 values; each lane writes only its own before the sync.
    ///     unsafe { slots.add(lane).write(lane as u32 * 10) };
    ///     sync_warp(FULL_WARP);
    ///     // SAFETY: the sync ordered the neighbour's write before this read.
    ///     unsafe { slots.add(lane ^ 1).read() }
    /// }
    /// # let _ = exchange as unsafe fn(*mut u32) -> u32;
    /// // Here the launch is a block of one thread, alone in its warp.
    /// sync_warp(1 << lane_id());
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn sync_warp(mask: u32) {
        imp::sync_warp(mask)
    }

    /// This thread's index in a one-dimensional grid: `block_idx().x * block_dim().x +
    /// thread_idx().x`, as a `usize` (computed in `usize`, so a grid of more than `u32::MAX`
    /// threads does not overflow). The y and z coordinates are ignored.
    ///
    /// # Panics
    /// On the host, outside a kernel launch.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::x(3), block_idx: Dim3::x(2),
    /// #     block_dim: Dim3::x(4), grid_dim: Dim3::x(5), block: BlockContext::new(4) });
    /// // Thread 3 of block 2, blocks of 4 threads.
    /// assert_eq!(scoped_atomics::kernel::index_1d(), 2 * 4 + 3);
    /// ```
    #[inline(always)]
    pub fn index_1d() -> usize {
        block_idx().x as usize * block_dim().x as usize + thread_idx().x as usize
    }

    /// The indices below `len` that this thread handles in a grid-stride loop over a
    /// one-dimensional grid: [`index_1d`], then every `grid_dim().x * block_dim().x` after it
    /// (`(index_1d()..len).step_by(threads of the grid)`). Together the grid's threads visit
    /// each index of `0..len` exactly once, whatever the grid's size.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::x(1), block_idx: Dim3::x(1),
    /// #     block_dim: Dim3::x(2), grid_dim: Dim3::x(2), block: BlockContext::new(2) });
    /// use scoped_atomics::kernel::grid_stride_1d;
    /// // Thread 1 of block 1 of a grid of 2 blocks of 2 threads: index 3, stride 4.
    /// let mine: Vec<usize> = grid_stride_1d(12).collect();
    /// assert_eq!(mine, [3, 7, 11]);
    /// ```
    #[inline(always)]
    pub fn grid_stride_1d(len: usize) -> core::iter::StepBy<core::ops::Range<usize>> {
        let threads = grid_dim().x as usize * block_dim().x as usize;
        (index_1d()..len).step_by(threads)
    }

    /// This thread's lane within its warp (`%laneid`): its linear index in the block modulo 32.
    ///
    /// # Panics
    /// On the host, outside a kernel launch.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(1, 1, 0), block_idx: Dim3::new(0, 0, 0),
    /// #     block_dim: Dim3::x(40), grid_dim: Dim3::x(1), block: BlockContext::new(40) });
    /// // Thread (1, 1) of a 40-wide block: linear index 41, lane 9 of warp 1.
    /// assert_eq!(scoped_atomics::kernel::lane_id(), 9);
    /// ```
    #[inline(always)]
    pub fn lane_id() -> u32 {
        thread_idx().linear(block_dim()) % WARP_SIZE
    }

    /// Suspends the thread for about `ns` nanoseconds (`nanosleep.u32`, sm_70+); on the host a
    /// yield.
    ///
    /// ```
    /// scoped_atomics::kernel::nanosleep(100);
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn nanosleep(ns: u32) {
        imp::nanosleep(ns)
    }

    /// The body of a spin loop of the kernel author's: `while !done() { spin_loop() }`. On the
    /// device `core::hint::spin_loop()` (nothing: use [`nanosleep`] to back off); on host
    /// threads a yield, so that a spinning thread lets the one it waits for run on a busy
    /// machine; under loom `loom::thread::yield_now()`, which tells loom that this thread makes
    /// no progress until another one runs, so loom explores the other threads instead of every
    /// number of spins (a spin without it makes loom give up with "Model exceeded maximum
    /// number of branches"). A round that can see nothing new (no atomic changed its value
    /// since this thread's previous round, and this thread read no outdated value since) also
    /// ends loom's exploration below it (`loom::skip_branch`), so that two threads spinning at
    /// once do not yield to each other without end; spin on atomics, so that the mirror sees
    /// what ends the spin (the guide's testing page, *Bounds*). The library's own waits
    /// (`wait`, `Barrier`, `Latch`, semaphores) do the same already.
    ///
    /// ```
    /// use scoped_atomics::{Atomic, Device, Ordering};
    /// use scoped_atomics::kernel::spin_loop;
    /// let ready = Atomic::<bool, Device>::new(true);
    /// while !ready.load(Ordering::Acquire) {
    ///     spin_loop();
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn spin_loop() {
        imp::spin_loop()
    }
}

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
pub use api::*;

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
mod warp;
#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
pub use warp::{
    BitsValue, ReduceValue, ShuffleValue, activemask, all_sync, any_sync, ballot_sync,
    match_all_sync, match_any_sync, reduce_add_sync, reduce_and_sync, reduce_max_sync,
    reduce_min_sync, reduce_or_sync, reduce_xor_sync, shfl_down_sync, shfl_sync, shfl_up_sync,
    shfl_xor_sync, sync_threads_and, sync_threads_count, sync_threads_or,
};

/// A block-shared array: `block_shared!(NAME: [T; N])` evaluates to a `*mut [T; N]` to memory
/// that all threads of the block share (`__shared__ T NAME[N]`). One array per call site: the
/// device symbol is made of the name, a hash of the module path and the file, and the line and
/// column, so declarations in different files never collide. A zero-sized array (`[T; 0]`, or a
/// zero-sized `T`) is a compile error on every target (PTX has no zero-sized `.shared` array).
///
/// ```compile_fail
/// let nothing = scoped_atomics::block_shared!(NOTHING: [u32; 0]);
/// ```
///
/// On the device it is a `.shared` array aligned as `T` (`.align` of `align_of::<T>()`),
/// **uninitialised**, as CUDA's. On the host it is memory owned by the simulated block, aligned
/// as `T` and filled with the byte `kernel::emulation::SHARED_FILL` (`0xA5`, so a `u32` reads
/// `0xA5A5_A5A5`) rather than zeroed, so that a kernel that forgets to initialise its shared
/// memory fails on the host as it would on a GPU instead of reading convenient zeros. Accesses
/// that race must be atomic: through `AtomicRef::<T, Block>::from_shared_ptr`, whose operations
/// name the shared state space (`atom.relaxed.cta.shared.add.u32`: ptxas emits one `ATOMS`
/// where a generic address gets `ATOM` with fallback paths), or `from_ptr`. Plain accesses
/// ordered by barriers go through `plain::read_shared`/`write_shared` (`ld.shared`/`st.shared`
/// with 32-bit shared addresses, as CUDA C++ has).
///
/// On the device the pointer is the shared window's generic address plus the array's shared
/// address, computed where LLVM sees it, so that those accesses index the array by its shared
/// address without converting the generic address back.
///
/// A device crate that uses the macro needs `#![feature(asm_experimental_arch)]` (the array is
/// declared and addressed with `global_asm!`/`asm!`, expanded in the caller's crate).
///
/// # In generic functions
/// The array is one symbol of the kernel module, so its size must be known without the
/// function's generic parameters. `block_shared!` in a generic function works when `T` and `N`
/// do not depend on them; when they do (`block_shared!(X: [T; 4])` in `fn f<T>()`), it is a
/// compile error — E0401, "can't use generic parameters from outer item" — on every target.
/// Declare the array in the (non-generic) kernel and pass the pointer down instead.
///
/// ```compile_fail,E0401
/// fn generic<T>() -> *mut [T; 4] {
///     scoped_atomics::block_shared!(X: [T; 4])
/// }
/// ```
///
/// ```no_run
/// use scoped_atomics::{block_shared, plain, AtomicRef, Block, Ordering};
/// // In a kernel body:
/// let bins = block_shared!(BINS: [u32; 16]).cast::<u32>();
/// // SAFETY: the array lives as long as the block; every racing access is atomic.
/// let bin = unsafe { AtomicRef::<u32, Block>::from_shared_ptr(bins.add(3)) };
/// bin.fetch_add(1, Ordering::Relaxed);
/// // … after a `sync_threads()`:
/// // SAFETY: in the block's shared memory; the barrier ordered the atomic writes before.
/// let count = unsafe { plain::read_shared(bins.add(3)) };
/// # let _ = count;
/// ```
#[macro_export]
macro_rules! block_shared {
    ($name:ident: [$t:ty; $n:expr]) => {
        $crate::__block_shared_impl!($name, $t, $n)
    };
}

/// `block_shared!`'s size check: a zero-sized array is a compile error (PTX has no `.b8 X[0]`,
/// which ptxas rejects, and the host would hand out a dangling zero-sized block). Not API.
///
/// ```
/// assert_eq!(scoped_atomics::kernel::__block_shared_size(64), 64);
/// ```
#[doc(hidden)]
#[track_caller]
pub const fn __block_shared_size(bytes: usize) -> usize {
    assert!(
        bytes != 0,
        "block_shared!: the array is zero-sized (no elements, or a zero-sized element type); \
         a .shared array needs at least one byte"
    );
    bytes
}

/// `block_shared!`'s site hash: FNV-1a of the module path and the file, so that two
/// declarations on the same line and column of two files get two symbols. Not API.
///
/// ```
/// use scoped_atomics::kernel::__block_shared_site;
/// assert_ne!(__block_shared_site("k::a", "src/a.rs"), __block_shared_site("k::b", "src/b.rs"));
/// ```
#[doc(hidden)]
pub const fn __block_shared_site(module_path: &str, file: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let parts = [module_path.as_bytes(), b"\0", file.as_bytes()];
    let mut p = 0;
    while p < parts.len() {
        let bytes = parts[p];
        let mut i = 0;
        while i < bytes.len() {
            hash ^= bytes[i] as u64;
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            i += 1;
        }
        p += 1;
    }
    hash
}

#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
macro_rules! __block_shared_impl {
    ($name:ident, $t:ty, $n:expr) => {{
        // Items, not expressions: an item cannot use the generic parameters of the function
        // around it, so a generic element type is a clean E0401 here (a `const` operand of
        // `global_asm!` that names one made rustc crash).
        const __SCOPED_ATOMICS_SIZE: usize = $crate::kernel::__block_shared_size(($n) * ::core::mem::size_of::<$t>());
        const __SCOPED_ATOMICS_ALIGN: usize = ::core::mem::align_of::<$t>();
        // The symbol is unique per declaration site: line and column within the file, and a
        // hash of the module path and the file (two files may declare the same name on the same
        // line and column; one kernel module holds every crate's arrays).
        const __SCOPED_ATOMICS_SITE: u64 = $crate::kernel::__block_shared_site(module_path!(), file!());
        ::core::arch::global_asm!(
            concat!(".shared .align {align} .b8 __scoped_atomics_shared_", stringify!($name), "_{site}_", line!(), "_", column!(), "[{size}];"),
            size = const __SCOPED_ATOMICS_SIZE,
            align = const __SCOPED_ATOMICS_ALIGN,
            site = const __SCOPED_ATOMICS_SITE,
        );
        let shared: u64;
        // SAFETY: the shared-space address of the array above; no memory access.
        unsafe {
            ::core::arch::asm!(
                concat!("mov.u64 {a}, __scoped_atomics_shared_", stringify!($name), "_{site}_", line!(), "_", column!(), ";"),
                a = out(reg64) shared,
                site = const __SCOPED_ATOMICS_SITE,
                options(pure, nomem, nostack),
            )
        };
        // Its generic address (what `cvta.shared` gives), as arithmetic LLVM sees: the state-space
        // forms subtract the window base again and index the array by its shared address.
        // SAFETY: the array lies in the shared window, so its address is within the window.
        unsafe { $crate::kernel::shared_window().add(shared as usize) }.cast::<[$t; $n]>()
    }};
}

#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __block_shared_impl {
    ($name:ident, $t:ty, $n:expr) => {{
        // As on the device: the element type and length may not depend on generic parameters.
        const __SCOPED_ATOMICS_SIZE: usize =
            $crate::kernel::__block_shared_size(($n) * ::core::mem::size_of::<$t>());
        let _ = __SCOPED_ATOMICS_SIZE;
        $crate::kernel::emulation::shared::<[$t; $n]>(concat!(
            module_path!(),
            "::",
            stringify!($name),
            ":",
            line!(),
            ":",
            column!()
        ))
    }};
}

/// The simulated GPU thread that the kernel API reads on the host: the hooks an executor uses.
///
/// `scoped_atomics_host::executor` (`launch`, `launch_loom`) is the executor most users want; an
/// executor of your own calls [`enter`](emulation::enter) on each of its threads before running
/// the kernel body and [`leave`](emulation::leave) after, with one [`BlockContext`](emulation::BlockContext)
/// shared by the threads of a block:
///
/// ```
/// use scoped_atomics::kernel::{emulation::*, thread_idx, Dim3};
/// let block = BlockContext::new(2);
/// std::thread::scope(|s| {
///     for t in 0..2 {
///         let context = ThreadContext {
///             thread_idx: Dim3::x(t),
///             block_idx: Dim3::x(0),
///             block_dim: Dim3::x(2),
///             grid_dim: Dim3::x(1),
///             block: block.clone(),
///         };
///         s.spawn(move || {
///             enter(context);
///             scoped_atomics::kernel::sync_threads();
///             assert_eq!(thread_idx().x, t);
///             leave();
///         });
///     }
/// });
/// ```
///
/// The context is a thread-local of *this* crate: the kernel body and the executor must link the
/// same `scoped-atomics` (one version, one source — `cargo tree -d` lists duplicates), or the
/// body finds no launch.
#[cfg(all(not(target_arch = "nvptx64"), any(feature = "std", loom)))]
pub mod emulation;

// Last in the file, so that adding it moved no line of the device code above (the PTX's `.loc`
// lines, which the PTX snapshots compare, are unchanged).
mod entry;
pub use entry::*;
