// Thread-block clusters in the kernel API: the cluster coordinates, the cluster barrier and
// distributed shared memory. Documented on the public items; `kernel.rs` re-exports them.

use super::Dim3;

#[cfg(target_arch = "nvptx64")]
mod imp {
    use super::Dim3;
    use core::arch::asm;

    /// Whether this build may emit cluster instructions (`%cluster_*`, `barrier.cluster`,
    /// `mapa`): sm_90 with PTX ISA 7.8, which `-C target-cpu=sm_90` implies.
    const HAS_CLUSTERS: bool = cfg!(target_feature = "sm_90");

    /// Stops, at compile time, a build that calls a cluster function for an older target. An
    /// associated constant of a generic type, so that it is evaluated only where a function
    /// that names it is compiled into a kernel, not for every device build of the crate.
    struct ClustersAvailable<T>(core::marker::PhantomData<T>);

    impl<T> ClustersAvailable<T> {
        const CHECK: () = assert!(HAS_CLUSTERS, clusters_need_sm_90!());
    }

    macro_rules! cluster_dim3 {
        ($name:ident, $reg:literal) => {
            #[inline(always)]
            pub fn $name<T>() -> Dim3 {
                let () = ClustersAvailable::<T>::CHECK;
                let (x, y, z): (u32, u32, u32);
                // SAFETY: reading special registers has no side effect.
                unsafe {
                    asm!(
                        concat!("mov.u32 {x}, %", $reg, ".x;"),
                        concat!("mov.u32 {y}, %", $reg, ".y;"),
                        concat!("mov.u32 {z}, %", $reg, ".z;"),
                        x = out(reg32) x, y = out(reg32) y, z = out(reg32) z,
                        options(pure, nomem, nostack),
                    )
                };
                Dim3 { x, y, z }
            }
        };
    }

    cluster_dim3!(cluster_idx, "clusterid");
    cluster_dim3!(cluster_grid_dim, "nclusterid");
    cluster_dim3!(block_idx_in_cluster, "cluster_ctaid");
    cluster_dim3!(cluster_dim, "cluster_nctaid");

    macro_rules! cluster_u32 {
        ($name:ident, $reg:literal) => {
            #[inline(always)]
            pub fn $name<T>() -> u32 {
                let () = ClustersAvailable::<T>::CHECK;
                let v: u32;
                // SAFETY: reading a special register has no side effect.
                unsafe {
                    asm!(
                        concat!("mov.u32 {v}, %", $reg, ";"),
                        v = out(reg32) v,
                        options(pure, nomem, nostack),
                    )
                };
                v
            }
        };
    }

    cluster_u32!(cluster_rank, "cluster_ctarank");
    cluster_u32!(cluster_size, "cluster_nctarank");

    // The barrier instructions are the non-`.aligned` forms: an `asm!` is not convergent, so
    // LLVM may duplicate it into both arms of a branch, which the non-aligned forms allow (the
    // threads of a warp may reach different instances). No `nomem`: they order memory.

    /// `barrier.cluster.arrive` (`.release` by default).
    #[inline(always)]
    pub fn cluster_arrive<T>() {
        let () = ClustersAvailable::<T>::CHECK;
        // SAFETY: an arrival on the cluster barrier; arrive-then-wait once per phase is the
        // caller's duty (the public API documents it).
        unsafe { asm!("barrier.cluster.arrive;", options(nostack)) }
    }

    /// `barrier.cluster.arrive.relaxed` when the build's PTX ISA is 8.0 or newer (what the
    /// target CPU implies, as for sm_90a and sm_100, or an explicit `+ptx80`: `build.rs`); with
    /// an older PTX ISA the release form, which orders more and is therefore a correct relaxed
    /// arrival too.
    #[inline(always)]
    pub fn cluster_arrive_relaxed<T>() {
        let () = ClustersAvailable::<T>::CHECK;
        // SAFETY: as `cluster_arrive`.
        unsafe {
            if cfg!(ptx_isa_at_least = "80") {
                asm!("barrier.cluster.arrive.relaxed;", options(nostack))
            } else {
                asm!("barrier.cluster.arrive;", options(nostack))
            }
        }
    }

    /// `barrier.cluster.wait` (`.acquire` by default).
    #[inline(always)]
    pub fn cluster_wait<T>() {
        let () = ClustersAvailable::<T>::CHECK;
        // SAFETY: waits for the phase of this thread's arrival.
        unsafe { asm!("barrier.cluster.wait;", options(nostack)) }
    }

    /// `mapa.u64` of a generic address of this CTA's shared memory, after two checks that trap:
    /// the address is in this CTA's shared memory (`isspacep.shared::cta`), and the rank is
    /// below `%cluster_nctarank` — PTX leaves `mapa` undefined otherwise.
    #[inline(always)]
    pub fn map_shared_rank<T>(ptr: *mut u8, rank: u32) -> *mut u8 {
        let () = ClustersAvailable::<T>::CHECK;
        let mapped: u64;
        // SAFETY: computes an address; both ways in which `mapa` would be undefined trap first.
        unsafe {
            asm!(
                "{{",
                ".reg .pred %not_own_shared;",
                ".reg .pred %rank_out_of_range;",
                ".reg .b32 %ranks;",
                "isspacep.shared::cta %not_own_shared, {ptr};",
                "@!%not_own_shared trap;",
                "mov.u32 %ranks, %cluster_nctarank;",
                "setp.ge.u32 %rank_out_of_range, {rank}, %ranks;",
                "@%rank_out_of_range trap;",
                "mapa.u64 {mapped}, {ptr}, {rank};",
                "}}",
                ptr = in(reg64) ptr as u64,
                rank = in(reg32) rank,
                mapped = out(reg64) mapped,
                options(nomem, nostack),
            )
        };
        mapped as *mut u8
    }
}

#[cfg(all(not(target_arch = "nvptx64"), any(feature = "std", loom)))]
mod imp {
    use super::super::emulation::{self, cluster_registers};
    use super::Dim3;

    pub fn cluster_idx<T>() -> Dim3 {
        cluster_registers().cluster_idx
    }
    pub fn cluster_grid_dim<T>() -> Dim3 {
        cluster_registers().cluster_grid
    }
    pub fn block_idx_in_cluster<T>() -> Dim3 {
        cluster_registers().block_in_cluster
    }
    pub fn cluster_dim<T>() -> Dim3 {
        cluster_registers().shape
    }
    pub fn cluster_rank<T>() -> u32 {
        cluster_registers().rank
    }
    pub fn cluster_size<T>() -> u32 {
        cluster_registers().shape.size()
    }
    pub fn cluster_arrive() {
        emulation::cluster_arrive()
    }
    pub fn cluster_wait() {
        emulation::cluster_wait()
    }
    pub fn map_shared_rank<T>(ptr: *mut u8, rank: u32) -> *mut u8 {
        emulation::map_shared_rank(ptr, rank)
    }
}

/// One thread's arrival at the cluster barrier, from the `unsafe` [`cluster_arrive`] or
/// [`cluster_arrive_relaxed`]; [`wait`](Self::wait) completes it, and so does dropping it (a
/// guard, as a `MutexGuard` unlocks on drop): an arrival that goes out of scope, or a function
/// that returns early, waits there. Not `Send`: the arrival is the calling thread's.
///
/// Why the split form is `unsafe`: arriving twice without a wait in between is undefined in
/// PTX, and a drop guard cannot rule it out — the arrival can be leaked (`core::mem::forget`,
/// safe in Rust), and a second arrival (a `cluster_sync`) can come before the first one's wait.
/// The hardware keeps no per-thread state a check could read, so the caller promises it;
/// [`cluster_sync`] (arrive and wait in one call) is the safe form. On the host a second
/// arrival without a wait panics.
///
/// ```
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(0, 0, 0),
/// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
/// // SAFETY: this thread waits (below) before it arrives again.
/// let arrival = unsafe { scoped_atomics::kernel::cluster_arrive() };
/// // … work that does not need the other blocks …
/// arrival.wait();
/// ```
///
/// Safe code cannot split the barrier:
///
/// ```compile_fail,E0133
/// let arrival = scoped_atomics::kernel::cluster_arrive(); // requires an unsafe block
/// core::mem::forget(arrival);
/// scoped_atomics::kernel::cluster_sync(); // would arrive twice without a wait: undefined PTX
/// ```
#[must_use = "dropping the arrival waits at once: keep it while doing the work that does not \
              need the other threads, then call `wait`"]
pub struct ClusterArrival {
    _not_send: core::marker::PhantomData<*const ()>,
}

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
mod api {
    use super::{ClusterArrival, Dim3, imp};

    /// The index of this thread's cluster within the grid of clusters (`%clusterid`); without a
    /// cluster launch each block is its own cluster and this is `block_idx()`.
    ///
    /// # Panics
    /// On the host, outside a kernel launch. On the device a compile error before sm_90.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # let cluster = ClusterContext::new(Dim3::x(2), 1);
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(5, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(8), block: BlockContext::in_cluster(1, &cluster) });
    /// // Block 5 of a grid of 8 in clusters of 2: cluster 2, rank 1.
    /// assert_eq!(scoped_atomics::kernel::cluster_idx(), Dim3::new(2, 0, 0));
    /// ```
    #[inline(always)]
    pub fn cluster_idx() -> Dim3 {
        imp::cluster_idx::<()>()
    }

    /// The extent of the grid in clusters (`%nclusterid`).
    ///
    /// # Panics
    /// As [`cluster_idx`].
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # let cluster = ClusterContext::new(Dim3::x(2), 1);
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(5, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(8), block: BlockContext::in_cluster(1, &cluster) });
    /// assert_eq!(scoped_atomics::kernel::cluster_grid_dim(), Dim3::x(4));
    /// ```
    #[inline(always)]
    pub fn cluster_grid_dim() -> Dim3 {
        imp::cluster_grid_dim::<()>()
    }

    /// The index of this thread's block within its cluster (`%cluster_ctaid`).
    ///
    /// # Panics
    /// As [`cluster_idx`].
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # let cluster = ClusterContext::new(Dim3::x(2), 1);
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(5, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(8), block: BlockContext::in_cluster(1, &cluster) });
    /// assert_eq!(scoped_atomics::kernel::block_idx_in_cluster(), Dim3::new(1, 0, 0));
    /// ```
    #[inline(always)]
    pub fn block_idx_in_cluster() -> Dim3 {
        imp::block_idx_in_cluster::<()>()
    }

    /// The extent of a cluster in blocks (`%cluster_nctaid`).
    ///
    /// # Panics
    /// As [`cluster_idx`].
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # let cluster = ClusterContext::new(Dim3::x(2), 1);
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(5, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(8), block: BlockContext::in_cluster(1, &cluster) });
    /// assert_eq!(scoped_atomics::kernel::cluster_dim(), Dim3::x(2));
    /// ```
    #[inline(always)]
    pub fn cluster_dim() -> Dim3 {
        imp::cluster_dim::<()>()
    }

    /// The rank of this thread's block in its cluster (`%cluster_ctarank`): its
    /// [`block_idx_in_cluster`] linearised, x fastest, in `0..cluster_size()`.
    ///
    /// # Panics
    /// As [`cluster_idx`].
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # let cluster = ClusterContext::new(Dim3::x(2), 1);
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(5, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(8), block: BlockContext::in_cluster(1, &cluster) });
    /// assert_eq!(scoped_atomics::kernel::cluster_rank(), 1);
    /// ```
    #[inline(always)]
    pub fn cluster_rank() -> u32 {
        imp::cluster_rank::<()>()
    }

    /// The number of blocks in this thread's cluster (`%cluster_nctarank`).
    ///
    /// # Panics
    /// As [`cluster_idx`].
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # let cluster = ClusterContext::new(Dim3::x(2), 1);
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(5, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(8), block: BlockContext::in_cluster(1, &cluster) });
    /// assert_eq!(scoped_atomics::kernel::cluster_size(), 2);
    /// ```
    #[inline(always)]
    pub fn cluster_size() -> u32 {
        imp::cluster_size::<()>()
    }

    /// Waits until every thread of the cluster has reached it, and orders the cluster's memory
    /// accesses across it (cooperative groups' `cluster.sync()`: `barrier.cluster.arrive`, a
    /// release at cluster scope, then `barrier.cluster.wait`, an acquire at cluster scope).
    ///
    /// What a thread of any block of the cluster wrote before the call — to its own shared
    /// memory, another block's through [`map_shared_rank`], or global memory — every thread of
    /// the cluster reads after it. **Every** thread of every block of the cluster that has not
    /// exited must reach it, once per phase: PTX's `barrier.cluster.wait` waits for the
    /// non-exited threads of the cluster, so a thread (or block) that has returned no longer
    /// counts, while one that waits elsewhere leaves the others waiting forever (the simulator
    /// reports the hang). Before a block exits, a `cluster_sync` keeps its shared memory alive
    /// for the blocks that still access it: a block's shared memory must not be accessed after
    /// the block exited.
    ///
    /// # Panics
    /// On the host, outside a kernel launch; on the device a compile error before sm_90.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(0, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
    /// scoped_atomics::kernel::cluster_sync(); // a cluster of one thread opens at once
    /// ```
    #[inline(always)]
    pub fn cluster_sync() {
        // SAFETY: the arrival is waited for at once, before anything else can arrive.
        unsafe { cluster_arrive() }.wait()
    }

    /// The first half of [`cluster_sync`]: arrives at the cluster barrier
    /// (`barrier.cluster.arrive`, a release at cluster scope) without waiting for the other
    /// blocks. Work that does not depend on the other threads can run before
    /// [`ClusterArrival::wait`].
    ///
    /// **The lanes of a warp arrive together**: PTX's `barrier.cluster.arrive` waits for the
    /// other non-exited lanes of the calling thread's warp to reach a `barrier.cluster` too. So
    /// between its arrival and its wait a lane must not wait for a lane of its own warp that has
    /// not arrived yet — a warp whose lane 0 arrives and then sets a flag that lane 1 spins on
    /// before its own `cluster_sync` hangs on a GPU (the simulator reports the hang; the host
    /// executor does not model the rendezvous).
    ///
    /// Each thread arrives once per phase and waits before it arrives again: the returned
    /// [`ClusterArrival`] waits when it is dropped if [`wait`](ClusterArrival::wait) was not
    /// called.
    ///
    /// # Safety
    /// This thread waits for the returned arrival (its `wait`, or its drop) before it arrives
    /// at the cluster barrier again: no `cluster_sync`, `cluster_arrive` or
    /// `cluster_arrive_relaxed` of this thread comes before its wait, and the arrival is not
    /// leaked (`core::mem::forget`, a reference cycle) unless the thread never arrives again
    /// (it returns from the kernel: its arrival still counts in its phase, as PTX counts an
    /// exited thread's). PTX leaves a second arrival without a wait undefined, and the device
    /// has no per-thread state to check it by ([`ClusterArrival`]); [`cluster_sync`] is the
    /// safe form.
    ///
    /// # Panics
    /// On the host, outside a kernel launch, or when this thread arrived and did not wait (a
    /// broken safety promise).
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(0, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
    /// // SAFETY: waited for on the next line, before any other arrival of this thread.
    /// let arrival = unsafe { scoped_atomics::kernel::cluster_arrive() };
    /// arrival.wait();
    /// ```
    #[inline(always)]
    pub unsafe fn cluster_arrive() -> ClusterArrival {
        #[cfg(target_arch = "nvptx64")]
        imp::cluster_arrive::<()>();
        #[cfg(not(target_arch = "nvptx64"))]
        imp::cluster_arrive();
        ClusterArrival {
            _not_send: core::marker::PhantomData,
        }
    }

    /// [`cluster_arrive`] without its release (`barrier.cluster.arrive.relaxed`, PTX ISA 8.0;
    /// the release form before): the barrier only counts the arrival, so what this thread wrote
    /// before it is **not** ordered before the other threads' wait. For a barrier that only
    /// says "I have started" — typically before the first access to another block's shared
    /// memory, which needs that block to be running — without the cost of a release.
    ///
    /// On the host and under loom the arrival is a release (stronger: correct, but the host run
    /// and loom do not show a missing release; the simulator does — `guide/limits.md`).
    ///
    /// # Safety
    /// As [`cluster_arrive`]: this thread waits for the arrival before it arrives again.
    ///
    /// # Panics
    /// As [`cluster_arrive`].
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(0, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
    /// // SAFETY: waited for at once.
    /// unsafe { scoped_atomics::kernel::cluster_arrive_relaxed() }.wait();
    /// ```
    #[inline(always)]
    pub unsafe fn cluster_arrive_relaxed() -> ClusterArrival {
        #[cfg(target_arch = "nvptx64")]
        {
            imp::cluster_arrive_relaxed::<()>();
            ClusterArrival {
                _not_send: core::marker::PhantomData,
            }
        }
        // SAFETY: the caller's promise, passed on.
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            cluster_arrive()
        }
    }

    impl ClusterArrival {
        /// The second half of [`cluster_sync`]: waits until every thread of the cluster has
        /// arrived in this phase (`barrier.cluster.wait`, an acquire at cluster scope).
        ///
        /// ```
        /// # use scoped_atomics::kernel::{emulation::*, Dim3};
        /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(0, 0, 0),
        /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
        /// // SAFETY: waited for at once.
        /// unsafe { scoped_atomics::kernel::cluster_arrive() }.wait();
        /// ```
        #[inline(always)]
        pub fn wait(self) {
            // The wait is the drop.
            drop(self)
        }
    }

    impl Drop for ClusterArrival {
        /// Waits (`barrier.cluster.wait`): see [`ClusterArrival`]. On the host, not while the
        /// thread unwinds from a panic: its exit from the launch counts it out of the barrier.
        #[inline(always)]
        fn drop(&mut self) {
            #[cfg(target_arch = "nvptx64")]
            imp::cluster_wait::<()>();
            #[cfg(not(target_arch = "nvptx64"))]
            if !std::thread::panicking() {
                imp::cluster_wait();
            }
        }
    }

    /// The location that `ptr` — a pointer into a [`block_shared!`](crate::block_shared) array
    /// of this thread's block — names in the same array of the block of rank `rank` of the
    /// cluster: distributed shared memory (`mapa`, cooperative groups' `cluster.map_shared_rank`).
    ///
    /// The result is an ordinary pointer: plain accesses and [`AtomicRef`](crate::AtomicRef)
    /// work through it. Threads of different blocks that race on it need
    /// [`Cluster`](crate::Cluster) scope (a `Block`-scope atomic there is a scope race: loom and
    /// the simulator report it). The other block must be running when it is accessed and must
    /// not exit before: a [`cluster_sync`] before the first and after the last remote access
    /// ensures both.
    ///
    /// # Panics
    /// When `rank` is not below [`cluster_size`], or `ptr` is not inside a block-shared array of
    /// this block: a panic with the numbers on the host, a `trap` on the device. On the device a
    /// compile error before sm_90.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{emulation::*, Dim3};
    /// # let cluster = ClusterContext::new(Dim3::x(2), 1);
    /// # enter(ThreadContext { thread_idx: Dim3::new(0, 0, 0), block_idx: Dim3::new(0, 0, 0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(2), block: BlockContext::in_cluster(1, &cluster) });
    /// use scoped_atomics::{block_shared, AtomicRef, Cluster, Ordering};
    /// use scoped_atomics::kernel::{cluster_rank, map_shared_rank};
    ///
    /// let bins = block_shared!(BINS: [u32; 4]).cast::<u32>();
    /// // Bin 3 of the next block of the cluster.
    /// let remote = map_shared_rank(unsafe { bins.add(3) }, (cluster_rank() + 1) % 2);
    /// // SAFETY: a block-shared location of a block of the cluster; racing accesses are atomic.
    /// let bin = unsafe { AtomicRef::<u32, Cluster>::from_ptr(remote) };
    /// bin.store(7, Ordering::Relaxed);
    /// assert_eq!(bin.load(Ordering::Relaxed), 7);
    /// assert_ne!(remote, unsafe { bins.add(3) });
    /// ```
    #[inline(always)]
    pub fn map_shared_rank<T>(ptr: *mut T, rank: u32) -> *mut T {
        imp::map_shared_rank::<()>(ptr.cast(), rank).cast()
    }
}

#[cfg(any(target_arch = "nvptx64", feature = "std", loom))]
pub use api::*;
