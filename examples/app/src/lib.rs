//! The host side of the `kernels` crate: the PTX built by `build.rs`, the kernels run on host
//! threads (what the tests check, and what the GPU run is compared with), the same PTX run in
//! the PTX simulator (`scoped_atomics_host::sim`: every thread interleaved at each memory
//! operation, with a race detector that knows the scopes — no GPU needed), and the GPU launch.

use kernels::BINS;
use scoped_atomics::kernel::Dim3;
use scoped_atomics_host::executor::{Launch, LaunchError, launch};
use scoped_atomics_host::sim;

/// The kernels' PTX for sm_70 (any later GPU runs it too).
pub const PTX: &str = include_str!(env!("KERNELS_PTX"));

/// The kernels' PTX for sm_90, with the cluster kernels (`cluster_histogram` and its
/// `Block`-scope bug).
pub const PTX_SM90: &str = include_str!(env!("KERNELS_PTX_SM90"));

/// A kernel argument: a raw pointer, shared by the threads of a launch as on a GPU (the kernels
/// synchronise every access through it).
pub struct Arg<T>(pub *mut T);

impl<T> Clone for Arg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Arg<T> {}
// SAFETY: see the type's documentation.
unsafe impl<T> Send for Arg<T> {}
// SAFETY: see the type's documentation.
unsafe impl<T> Sync for Arg<T> {}

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

/// The histogram kernel on host threads.
pub fn histogram_on_host(input: &[u32], grid: u32, block: u32) -> Result<[u32; BINS], LaunchError> {
    let mut bins = [0u32; BINS];
    let (data, out, len) = (
        Arg(input.as_ptr().cast_mut()),
        Arg(bins.as_mut_ptr()),
        input.len(),
    );
    launch(Dim3::x(grid), Dim3::x(block), move || {
        let (data, out) = (data, out);
        // SAFETY: `len` inputs and BINS bins, live for the launch.
        unsafe { kernels::histogram(data.0, len, out.0) }
    })?;
    Ok(bins)
}

/// The cluster histogram (`Cluster`-scope counters in distributed shared memory) on host
/// threads, in clusters of `cluster` blocks.
pub fn cluster_histogram_on_host(
    input: &[u32],
    grid: u32,
    cluster: u32,
    block: u32,
) -> Result<[u32; BINS], LaunchError> {
    let mut bins = [0u32; BINS];
    let (data, out, len) = (
        Arg(input.as_ptr().cast_mut()),
        Arg(bins.as_mut_ptr()),
        input.len(),
    );
    Launch::new(Dim3::x(grid), Dim3::x(block))
        .cluster(Dim3::x(cluster))
        .run(move || {
            let (data, out) = (data, out);
            // SAFETY: `len` inputs and BINS bins, live for the launch.
            unsafe { kernels::cluster_histogram::<scoped_atomics::Cluster>(data.0, len, out.0) }
        })?;
    Ok(bins)
}

/// Message passing with a device-scope flag on host threads: returns `[data, flag, result]`.
pub fn message_passing_on_host() -> Result<[u32; 3], LaunchError> {
    let mut cells = [0u32; 3];
    let base = Arg(cells.as_mut_ptr());
    launch(Dim3::x(2), Dim3::x(32), move || {
        let base = base;
        // SAFETY: three cells, live for the launch; both blocks are resident.
        unsafe {
            kernels::message_passing::<scoped_atomics::Device>(base.0, base.0.add(1), base.0.add(2))
        }
    })?;
    Ok(cells)
}

/// The block sum (device-scope total) of `0, 1, 2, …` over `grid` blocks of `block` threads on
/// host threads.
pub fn block_sum_on_host(grid: u32, block: u32) -> Result<u32, LaunchError> {
    let input: Vec<u32> = (0..grid * block).collect();
    let mut total = 0u32;
    let (data, out) = (Arg(input.as_ptr().cast_mut()), Arg(&raw mut total));
    launch(Dim3::x(grid), Dim3::x(block), move || {
        let (data, out) = (data, out);
        // SAFETY: one input per thread and the total, live for the launch.
        unsafe { kernels::block_sum::<scoped_atomics::Device>(data.0, out.0) }
    })?;
    Ok(total)
}

/// The ticket lock (device scope) taken by every thread of `grid` blocks of `block` threads on
/// host threads: returns `[next, serving, counter]`.
pub fn ticket_lock_on_host(grid: u32, block: u32) -> Result<[u32; 3], LaunchError> {
    let mut cells = [0u32; 3];
    let base = Arg(cells.as_mut_ptr());
    launch(Dim3::x(grid), Dim3::x(block), move || {
        let base = base;
        // SAFETY: three cells, live for the launch; every block is resident.
        unsafe {
            kernels::ticket_lock::<scoped_atomics::Device>(base.0, base.0.add(1), base.0.add(2))
        }
    })?;
    Ok(cells)
}

/// `kernel` (`ticket_lock` or `ticket_lock_block_scope_bug`) from the PTX in the simulator:
/// returns `[next, serving, counter]`, or the findings.
pub fn ticket_lock_in_simulator(
    kernel: &str,
    grid: u32,
    block: u32,
    seed: u64,
) -> SimResult<[u32; 3]> {
    let mut launch = sim::Launch::new(
        [grid, 1, 1],
        [block, 1, 1],
        vec![
            sim::Arg::Ptr(0, 0),
            sim::Arg::Ptr(0, 4),
            sim::Arg::Ptr(0, 8),
        ],
    );
    launch.buffers = vec![vec![0; 12]];
    launch.seed = seed;
    let buffers = simulate(kernel, &launch)?;
    let mut cells = [0; 3];
    cells.copy_from_slice(&words(&buffers[0]));
    Ok(cells)
}

/// `kernel` (`block_sum` or `block_sum_block_scope_bug`) from the PTX in the simulator over
/// the inputs `0, 1, 2, …`: returns the total, or the findings.
pub fn block_sum_in_simulator(kernel: &str, grid: u32, block: u32, seed: u64) -> SimResult<u32> {
    let input: Vec<u8> = (0..grid * block).flat_map(u32::to_le_bytes).collect();
    let mut launch = sim::Launch::new(
        [grid, 1, 1],
        [block, 1, 1],
        vec![sim::Arg::Buffer(input), sim::Arg::Buffer(vec![0; 4])],
    );
    launch.seed = seed;
    let buffers = simulate(kernel, &launch)?;
    Ok(words(&buffers[1])[0])
}

/// What a simulator run of a kernel returns: the final contents of its buffers, or every
/// finding (race, hang, divergence, fault), one per line, when there was one.
pub type SimResult<T> = Result<T, String>;

/// Runs `kernel` of [`PTX`] in the simulator (random interleaving from `seed`) and returns its
/// buffers, or its findings.
fn simulate(kernel: &str, launch: &sim::Launch) -> SimResult<Vec<Vec<u8>>> {
    simulate_ptx(PTX, kernel, launch)
}

/// Runs `kernel` of `ptx` in the simulator.
fn simulate_ptx(ptx: &str, kernel: &str, launch: &sim::Launch) -> SimResult<Vec<Vec<u8>>> {
    let simulator = sim::Simulator::new(ptx).map_err(|e| e.to_string())?;
    let out = simulator
        .kernel(kernel)
        .map_err(|e| e.to_string())?
        .launch(launch, Vec::new())
        .map_err(|e| e.to_string())?;
    if out.completed && out.findings.is_empty() {
        Ok(out.buffers)
    } else {
        let findings: Vec<String> = out.findings.iter().map(ToString::to_string).collect();
        Err(findings.join("\n"))
    }
}

/// The little-endian `u32`s of a buffer.
fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The histogram kernel's PTX in the simulator, `grid` blocks of `block` threads, the schedule
/// drawn from `seed`.
pub fn histogram_in_simulator(
    input: &[u32],
    grid: u32,
    block: u32,
    seed: u64,
) -> SimResult<[u32; BINS]> {
    let bytes = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut launch = sim::Launch::new(
        [grid, 1, 1],
        [block, 1, 1],
        vec![
            sim::Arg::Buffer(bytes),
            sim::Arg::U64(input.len() as u64),
            sim::Arg::Buffer(vec![0; 4 * BINS]),
        ],
    );
    launch.seed = seed;
    let buffers = simulate("histogram", &launch)?;
    let mut bins = [0; BINS];
    bins.copy_from_slice(&words(&buffers[1]));
    Ok(bins)
}

/// The cluster histogram's sm_90 PTX ([`PTX_SM90`]) in the simulator: `grid` blocks of `block`
/// threads in clusters of `cluster`, the schedule drawn from `seed`; `block_scope_bug` runs the
/// variant whose counters have `Block` scope (a scope race between the cluster's blocks).
pub fn cluster_histogram_in_simulator(
    input: &[u32],
    (grid, cluster, block): (u32, u32, u32),
    seed: u64,
    block_scope_bug: bool,
) -> SimResult<[u32; BINS]> {
    let bytes = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut launch = sim::Launch::new(
        [grid, 1, 1],
        [block, 1, 1],
        vec![
            sim::Arg::Buffer(bytes),
            sim::Arg::U64(input.len() as u64),
            sim::Arg::Buffer(vec![0; 4 * BINS]),
        ],
    );
    launch.cluster = Some([cluster, 1, 1]);
    launch.seed = seed;
    let kernel = if block_scope_bug {
        "cluster_histogram_block_scope_bug"
    } else {
        "cluster_histogram"
    };
    let buffers = simulate_ptx(PTX_SM90, kernel, &launch)?;
    let mut bins = [0; BINS];
    bins.copy_from_slice(&words(&buffers[1]));
    Ok(bins)
}

/// Message passing (device-scope flag) from the PTX in the simulator, two blocks of 32 threads:
/// returns `[data, flag, result]`.
pub fn message_passing_in_simulator(seed: u64) -> SimResult<[u32; 3]> {
    // One buffer of three cells; the kernel gets the address of each.
    let mut launch = sim::Launch::new(
        [2, 1, 1],
        [32, 1, 1],
        vec![
            sim::Arg::Ptr(0, 0),
            sim::Arg::Ptr(0, 4),
            sim::Arg::Ptr(0, 8),
        ],
    );
    launch.buffers = vec![vec![0; 12]];
    launch.seed = seed;
    let buffers = simulate("message_passing", &launch)?;
    let mut cells = [0; 3];
    cells.copy_from_slice(&words(&buffers[0]));
    Ok(cells)
}

/// On a GPU: the histogram and message passing from the PTX, each compared with the host run.
/// `Ok(None)` without a CUDA driver.
pub fn run_on_gpu(input: &[u32]) -> Result<Option<Vec<(&'static str, bool)>>, String> {
    use scoped_atomics_host::gpu::cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
    use scoped_atomics_host::gpu::cudarc::nvrtc::Ptx;
    if !scoped_atomics_host::gpu::driver_present() {
        return Ok(None);
    }
    let e = |e: scoped_atomics_host::gpu::cudarc::driver::DriverError| e.to_string();
    let ctx = CudaContext::new(0).map_err(e)?;
    let module = ctx.load_module(Ptx::from_src(PTX)).map_err(e)?;
    let stream = ctx.default_stream();

    let histogram = module.load_function("histogram").map_err(e)?;
    let data = stream.clone_htod(input).map_err(e)?;
    let mut bins = stream.alloc_zeros::<u32>(BINS).map_err(e)?;
    let len = input.len();
    let mut builder = stream.launch_builder(&histogram);
    builder.arg(&data).arg(&len).arg(&mut bins);
    let config = LaunchConfig {
        grid_dim: (8, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: the arguments match `histogram(input, len, bins)`: `len` values, BINS counters.
    unsafe { builder.launch(config) }.map_err(e)?;
    let gpu_bins = stream.clone_dtoh(&bins).map_err(e)?;
    let host_bins = histogram_on_host(input, 8, 128).map_err(|e| e.to_string())?;

    let message_passing = module.load_function("message_passing").map_err(e)?;
    let mut cells = stream.alloc_zeros::<u32>(3).map_err(e)?;
    let (mut data_cell, mut rest) = cells.split_at_mut(1);
    let (mut flag_cell, mut result_cell) = rest.split_at_mut(1);
    let mut builder = stream.launch_builder(&message_passing);
    builder
        .arg(&mut data_cell)
        .arg(&mut flag_cell)
        .arg(&mut result_cell);
    let config = LaunchConfig {
        grid_dim: (2, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: three device `u32`s; two blocks of 32 threads are resident together on any GPU.
    unsafe { builder.launch(config) }.map_err(e)?;
    let gpu_cells = stream.clone_dtoh(&cells).map_err(e)?;
    let host_cells = message_passing_on_host().map_err(|e| e.to_string())?;
    let mut results = vec![
        ("histogram", gpu_bins.as_slice() == host_bins.as_slice()),
        (
            "message_passing",
            gpu_cells.as_slice() == host_cells.as_slice(),
        ),
    ];
    // The cluster histogram (sm_90 PTX, clusters of 2 and 4) on a GPU that has clusters.
    for (name, cluster) in [("cluster_histogram (2)", 2), ("cluster_histogram (4)", 4)] {
        let host = cluster_histogram_on_host(input, 8, cluster, 128).map_err(|e| e.to_string())?;
        match scoped_atomics_host::gpu::run_histogram_in_clusters(
            PTX_SM90,
            "cluster_histogram",
            input,
            &host,
            (8, cluster, 128),
        ) {
            scoped_atomics_host::gpu::GpuRun::Ran(checks) => {
                results.push((name, checks.iter().all(|(_, r)| r.is_ok())))
            }
            scoped_atomics_host::gpu::GpuRun::Skipped(why) => println!("{name}: {why}"),
        }
    }
    Ok(Some(results))
}
