//! The host side of the `kernels` crate: the PTX built by `build.rs`, and each kernel's launch
//! described once ([`Kernel`]: a `scoped_atomics_host::launch::Launch` of the entry point
//! `#[kernel]` describes, its PTX and how to read its result) and run from that one description
//! on host threads, under loom, in the PTX simulator (every thread interleaved at each memory
//! operation, with a race detector that knows the scopes) and on a GPU.

use kernels::BINS;
use scoped_atomics::kernel::{Dim3, KernelEntry};
use scoped_atomics_host::executor::LaunchError;
use scoped_atomics_host::launch::{Buffers, GpuError, Launch, OnGpu};
use scoped_atomics_host::sim::Finding;
use std::sync::Arc;

/// The kernels' PTX for sm_70 (any later GPU runs it too).
pub const PTX: &str = include_str!(env!("KERNELS_PTX"));

/// The kernels' PTX for sm_90, with the cluster kernels (`cluster_histogram` and its
/// `Block`-scope bug).
pub const PTX_SM90: &str = include_str!(env!("KERNELS_PTX_SM90"));

/// Which instantiation of a scope-generic kernel to launch: the right scope, or the planted
/// `Block`-scope bug (its `*_block_scope_bug` entry point) for loom and the simulator to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The kernel's right scope (`Device`, or `Cluster` for the cluster histogram).
    Correct,
    /// `Block` scope across blocks: a scope race.
    BlockScopeBug,
}

impl Variant {
    fn pick(self, correct: KernelEntry, bug: KernelEntry) -> KernelEntry {
        match self {
            Variant::Correct => correct,
            Variant::BlockScopeBug => bug,
        }
    }
}

/// A kernel launch described once: the launch (entry point, grid, buffers, scalars), the PTX it
/// runs from in the simulator and on a GPU, and how its result `R` is read from the buffers.
/// The constructors ([`histogram`], [`message_passing`], …) build only launches that meet their
/// kernel's contract, so every run is safe.
pub struct Kernel<R> {
    launch: Launch,
    ptx: &'static str,
    result: Arc<dyn Fn(&Buffers) -> R + Send + Sync>,
}

/// What a simulator run returns: the result, or every finding (race, hang, divergence,
/// fault) as a value.
pub type SimResult<T> = Result<T, Vec<Finding>>;

impl<R: 'static> Kernel<R> {
    /// The description: `launch`, run from `ptx`, its result read with `result`.
    ///
    /// # Safety
    /// The launch meets the kernel's contract (its `# Safety`).
    unsafe fn new(
        launch: Launch,
        ptx: &'static str,
        result: impl Fn(&Buffers) -> R + Send + Sync + 'static,
    ) -> Self {
        Kernel {
            launch,
            ptx,
            result: Arc::new(result),
        }
    }

    /// Runs it on host threads (`scoped_atomics_host::executor`, with its hang watchdog).
    pub fn on_host_threads(&self) -> Result<R, LaunchError> {
        // SAFETY: the constructor built a launch that meets the kernel's contract.
        let buffers = unsafe { self.launch.on_host_threads() }?;
        Ok((self.result)(&buffers))
    }

    /// Runs its PTX in the simulator with the schedule drawn from `seed`: the result, or the
    /// findings.
    ///
    /// # Panics
    /// If the simulator refuses the launch (PTX without the entry point, an instruction it does
    /// not run): a bug of this crate, not a finding of the kernel.
    pub fn in_simulator(&self, seed: u64) -> SimResult<R> {
        let mut launch = self.launch.clone();
        let simulated = launch
            .seed(seed)
            .in_simulator(self.ptx)
            .unwrap_or_else(|e| panic!("the simulator refused the launch: {e}"));
        simulated.clean().map(|buffers| (self.result)(&buffers))
    }

    /// Runs it on GPU 0: the result, or `Ok(Err(why))` where nothing ran (no CUDA driver, no
    /// usable device).
    pub fn on_gpu(&self) -> Result<Result<R, String>, GpuError> {
        // SAFETY: the constructor built a launch that meets the kernel's contract.
        Ok(match unsafe { self.launch.on_gpu(self.ptx) }? {
            OnGpu::Ran(buffers) => Ok((self.result)(&buffers)),
            OnGpu::Skipped(why) => Err(why),
        })
    }

    /// Under loom (`--cfg loom`): every execution within the preemption bound, each from the
    /// initial contents, `check` on each one's result; a scope race panics, as loom does.
    #[cfg(loom)]
    pub fn under_loom(&self, check: impl Fn(R) + Send + Sync + 'static) {
        let result = self.result.clone();
        // SAFETY: the constructor built a launch that meets the kernel's contract.
        unsafe {
            self.launch
                .under_loom(move |buffers| check(result(buffers)))
        }
        .unwrap();
    }

    /// The loom preemption bound (the launch's default is `executor::loom_builder`'s, 2).
    pub fn preemption_bound(mut self, bound: usize) -> Self {
        self.launch.preemption_bound(bound);
        self
    }
}

/// A deterministic input (xorshift).
pub fn input(len: usize, seed: u32) -> Vec<u32> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}

/// The histogram computed directly.
pub fn expected_histogram(input: &[u32]) -> [u32; BINS] {
    let mut bins = [0; BINS];
    input.iter().for_each(|&v| bins[v as usize % BINS] += 1);
    bins
}

/// The histogram kernel over `input` on `grid` blocks of `block` threads: the bins.
pub fn histogram(input: &[u32], grid: u32, block: u32) -> Kernel<[u32; BINS]> {
    let mut launch = Launch::new(kernels::HISTOGRAM, Dim3::x(grid), Dim3::x(block));
    launch.buffer(input);
    launch.scalar(input.len());
    let bins = launch.buffer(vec![0u32; BINS]);
    // SAFETY: `len` inputs and BINS bins, as `histogram` needs.
    unsafe { Kernel::new(launch, PTX, move |out| out[bins].try_into().unwrap()) }
}

/// The cluster histogram (counters in the distributed shared memory of thread-block clusters)
/// over `input` on `grid` blocks of `block` threads in clusters of `cluster`: the bins. Its PTX
/// is [`PTX_SM90`].
pub fn cluster_histogram(
    input: &[u32],
    (grid, cluster, block): (u32, u32, u32),
    variant: Variant,
) -> Kernel<[u32; BINS]> {
    let kernel = variant.pick(
        kernels::CLUSTER_HISTOGRAM,
        kernels::CLUSTER_HISTOGRAM_BLOCK_SCOPE_BUG,
    );
    let mut launch = Launch::new(kernel, Dim3::x(grid), Dim3::x(block));
    launch.cluster(Dim3::x(cluster));
    launch.buffer(input);
    launch.scalar(input.len());
    let bins = launch.buffer(vec![0u32; BINS]);
    // SAFETY: `len` inputs and BINS bins, as `cluster_histogram` needs.
    unsafe { Kernel::new(launch, PTX_SM90, move |out| out[bins].try_into().unwrap()) }
}

/// Message passing from block 0 to block 1 through a flag (two blocks of `block` threads):
/// `[data, flag, result]`.
pub fn message_passing(block: u32, variant: Variant) -> Kernel<[u32; 3]> {
    let kernel = variant.pick(
        kernels::MESSAGE_PASSING,
        kernels::MESSAGE_PASSING_BLOCK_SCOPE_BUG,
    );
    three_cells(kernel, 2, block)
}

/// The ticket lock taken by every thread of `grid` blocks of `block` threads:
/// `[next, serving, counter]`.
pub fn ticket_lock(grid: u32, block: u32, variant: Variant) -> Kernel<[u32; 3]> {
    let kernel = variant.pick(kernels::TICKET_LOCK, kernels::TICKET_LOCK_BLOCK_SCOPE_BUG);
    three_cells(kernel, grid, block)
}

/// `kernel(a, b, c)` over three cells of one buffer, a cooperative launch (every block
/// resident at once, or refused): the cells after the launch.
fn three_cells(kernel: KernelEntry, grid: u32, block: u32) -> Kernel<[u32; 3]> {
    let mut launch = Launch::new(kernel, Dim3::x(grid), Dim3::x(block));
    let cells = launch.allocation(vec![0u32; 3]);
    launch
        .pointer_to(cells, 0)
        .pointer_to(cells, 1)
        .pointer_to(cells, 2);
    // One block waits for another: the launch must keep them all resident at once.
    launch.cooperative(true);
    // SAFETY: three valid cells, as `message_passing` and `ticket_lock` need; the cooperative
    // launch makes every block resident at once (or is refused).
    unsafe { Kernel::new(launch, PTX, move |out| out[cells].try_into().unwrap()) }
}

/// The block sum of `input` (one value per thread of `grid` blocks of `block` threads): the
/// total.
pub fn block_sum(input: &[u32], grid: u32, block: u32, variant: Variant) -> Kernel<u32> {
    assert_eq!(input.len(), (grid * block) as usize, "one input per thread");
    let kernel = variant.pick(kernels::BLOCK_SUM, kernels::BLOCK_SUM_BLOCK_SCOPE_BUG);
    let mut launch = Launch::new(kernel, Dim3::x(grid), Dim3::x(block));
    launch.buffer(input);
    let total = launch.buffer(vec![0u32]);
    // SAFETY: one input per thread (asserted) and the total, as `block_sum` needs.
    unsafe { Kernel::new(launch, PTX, move |out| out[total][0]) }
}

/// On a GPU: the histogram, message passing and (on sm_90 or newer) the cluster histogram
/// from the PTX, each compared with the host-thread run of the same description:
/// `Ok(Err(why))` where nothing ran (no CUDA driver: [`scoped_atomics_host::gpu::NO_DRIVER`]).
pub fn run_on_gpu(input: &[u32]) -> Result<Result<Vec<(&'static str, bool)>, String>, String> {
    let mut results = vec![match compare("histogram", histogram(input, 8, 128))? {
        Ok(result) => result,
        Err(skipped) => return Ok(Err(skipped)),
    }];
    results.extend(compare(
        "message_passing",
        message_passing(32, Variant::Correct),
    )?);
    // Thread-block clusters need sm_90: the sm_90 PTX does not load on older GPUs.
    if scoped_atomics_host::gpu::device_target() == Some(scoped_atomics_host::ptx::Target::Sm90) {
        for (name, cluster) in [("cluster_histogram (2)", 2), ("cluster_histogram (4)", 4)] {
            let kernel = cluster_histogram(input, (8, cluster, 128), Variant::Correct);
            results.extend(compare(name, kernel)?);
        }
    } else {
        println!("cluster_histogram: thread-block clusters need sm_90 or newer, skipped");
    }
    Ok(Ok(results))
}

/// `kernel` on the GPU and on host threads: whether the results are the same, or why the GPU
/// run was skipped.
fn compare<const N: usize>(
    name: &'static str,
    kernel: Kernel<[u32; N]>,
) -> Result<Result<(&'static str, bool), String>, String> {
    let on_gpu = match kernel.on_gpu().map_err(|e| format!("{name}: {e}"))? {
        Ok(result) => result,
        Err(skipped) => return Ok(Err(skipped)),
    };
    let on_host = kernel
        .on_host_threads()
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(Ok((name, on_gpu == on_host)))
}
