//! Running the example kernels on a real GPU, when there is one: the PTX is loaded and launched
//! through `cudarc` with dynamic loading, so building needs no CUDA, and a machine without a
//! driver ends the GPU step cleanly with [`NO_DRIVER`].
//!
//! The GPU results are compared with the host executor's run of the same kernel bodies. Run here:
//! the histogram and cross-block message passing; the grid barrier ([`run_grid_barrier`]: a
//! host-built `Barrier<Device>` — it carries no completion, so no code address — and a
//! cooperative launch); the host↔device ring in mapped host memory ([`run_ring`]); and
//! [`run_probes`] runs probe kernels with given operands (the simulator's probe test compares
//! host backend, simulator and GPU).

/// The `cudarc` this crate launches with (dynamic loading: building needs no CUDA), for launching
/// your own kernels with the same driver bindings.
pub use cudarc;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use gpu_kernels::kernels::BINS;

/// What the GPU step says on a machine without a CUDA driver.
pub const NO_DRIVER: &str = "no CUDA driver found, skipping GPU run";

/// The outcome of the GPU step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuRun {
    /// No driver (or no device): nothing ran, for the reason given.
    Skipped(String),
    /// Each kernel that ran, with whether its result matched the host run.
    Ran(Vec<(String, Result<(), String>)>),
}

/// Whether a CUDA driver library can be loaded.
pub fn driver_present() -> bool {
    // SAFETY: only tries to `dlopen` the driver library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// The build configuration whose PTX fits a GPU of compute capability `major.minor`: the newest
/// of sm_70, sm_80, sm_90 it can run (PTX runs on its own and every later architecture), `None`
/// before Volta.
///
/// ```
/// use scoped_atomics_host::{gpu::target_for, ptx::Target};
/// assert_eq!(target_for(8, 6), Some(Target::Sm80)); // an RTX 30xx runs sm_80 PTX
/// assert_eq!(target_for(9, 0), Some(Target::Sm90));
/// assert_eq!(target_for(6, 1), None);
/// ```
pub fn target_for(major: i32, minor: i32) -> Option<crate::ptx::Target> {
    use crate::ptx::Target;
    match (major, minor) {
        (9.., _) => Some(Target::Sm90),
        (8, _) => Some(Target::Sm80),
        (7, _) => Some(Target::Sm70),
        _ => None,
    }
}

/// The build configuration for GPU 0 ([`target_for`] its compute capability); `None` without a
/// driver or a device, or for a GPU older than Volta.
pub fn device_target() -> Option<crate::ptx::Target> {
    if !driver_present() {
        return None;
    }
    let ctx = CudaContext::new(0).ok()?;
    let (major, minor) = ctx.compute_capability().ok()?;
    target_for(major, minor)
}

/// Loads `ptx` (the `gpu-kernels` module for this GPU's architecture) and runs the examples.
pub fn run_examples(
    ptx: &str,
    histogram_input: &[u32],
    histogram_expected: &[u32; BINS],
) -> GpuRun {
    if !driver_present() {
        return GpuRun::Skipped(NO_DRIVER.to_string());
    }
    match launch_examples(ptx, histogram_input, histogram_expected) {
        Ok(results) => GpuRun::Ran(results),
        Err(e) => GpuRun::Skipped(format!(
            "CUDA driver present but unusable ({e}), skipping GPU run"
        )),
    }
}

type Checks = Vec<(String, Result<(), String>)>;

fn launch_examples(ptx: &str, input: &[u32], expected: &[u32; BINS]) -> Result<Checks, String> {
    let e = |e: cudarc::driver::DriverError| e.to_string();
    let ctx = CudaContext::new(0).map_err(e)?;
    let module = ctx.load_module(Ptx::from_src(ptx)).map_err(e)?;
    let stream = ctx.default_stream();
    let mut checks = Checks::new();

    let histogram = module.load_function("histogram").map_err(e)?;
    let data = stream.clone_htod(input).map_err(e)?;
    let mut bins = stream.alloc_zeros::<u32>(BINS).map_err(e)?;
    let len = input.len();
    let config = LaunchConfig {
        grid_dim: (4, 1, 1),
        block_dim: (64, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&histogram);
    launch.arg(&data).arg(&len).arg(&mut bins);
    // SAFETY: the arguments match `histogram(input: *const u32, len: usize, bins: *mut u32)`:
    // `len` values and BINS counters.
    unsafe { launch.launch(config) }.map_err(e)?;
    let got = stream.clone_dtoh(&bins).map_err(e)?;
    let result = (got.as_slice() == expected.as_slice())
        .then_some(())
        .ok_or_else(|| format!("GPU {got:?} != host {expected:?}"));
    checks.push(("histogram".to_string(), result));

    let message_passing = module.load_function("message_passing").map_err(e)?;
    let mut cells = stream.alloc_zeros::<u32>(3).map_err(e)?;
    let (mut data_cell, mut rest) = cells.split_at_mut(1);
    let (mut flag_cell, mut result_cell) = rest.split_at_mut(1);
    let config = LaunchConfig {
        grid_dim: (2, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&message_passing);
    launch
        .arg(&mut data_cell)
        .arg(&mut flag_cell)
        .arg(&mut result_cell);
    // SAFETY: three device `u32`s for `message_passing(data, flag, result)`; both blocks of the
    // grid are resident together (two blocks of 32 threads fit on any GPU).
    unsafe { launch.launch(config) }.map_err(e)?;
    let got = stream.clone_dtoh(&cells).map_err(e)?;
    let result = (got == [42, 1, 42])
        .then_some(())
        .ok_or_else(|| format!("GPU {got:?} != [42, 1, 42]"));
    checks.push(("message_passing".to_string(), result));
    Ok(checks)
}

/// The grid barrier on a GPU: a `Barrier<Device>` built here on the host (no completion, so no
/// host code address in it) is copied to device memory and handed to the `grid_barrier` kernel,
/// launched cooperatively (`cuLaunchCooperativeKernel`, so every block is resident at once, which
/// a grid-wide barrier needs) with `grid` blocks of `block` threads for `phases` phases; the sums
/// are compared with [`crate::examples::grid_barrier_expected`]. Without a driver, skipped with
/// [`NO_DRIVER`].
pub fn run_grid_barrier(ptx: &str, grid: u32, block: u32, phases: u32) -> GpuRun {
    if !driver_present() {
        return GpuRun::Skipped(NO_DRIVER.to_string());
    }
    match launch_grid_barrier(ptx, grid, block, phases) {
        Ok(result) => GpuRun::Ran(vec![(
            format!("grid_barrier {grid}×{block}, {phases} phases"),
            result,
        )]),
        Err(e) => GpuRun::Skipped(format!(
            "CUDA driver present but unusable ({e}), skipping GPU run"
        )),
    }
}

/// A host-built device barrier as the driver copies it: its bytes, moved by `cuMemcpyHtoD`.
#[repr(transparent)]
struct DeviceBarrier(scoped_atomics::Barrier<scoped_atomics::Device>);

// SAFETY: a `Barrier<Device>` is plain data with the same `#[repr(C)]` layout on host and device
// (two atomics, no pointer: it has no completion), so its bytes are a valid barrier there.
unsafe impl cudarc::driver::DeviceRepr for DeviceBarrier {}

fn launch_grid_barrier(
    ptx: &str,
    grid: u32,
    block: u32,
    phases: u32,
) -> Result<Result<(), String>, String> {
    let e = |e: cudarc::driver::DriverError| e.to_string();
    let ctx = CudaContext::new(0).map_err(e)?;
    let module = ctx.load_module(Ptx::from_src(ptx)).map_err(e)?;
    let stream = ctx.default_stream();
    let kernel = module.load_function("grid_barrier").map_err(e)?;
    let threads = (grid * block) as usize;
    let barrier = stream
        .clone_htod(&[DeviceBarrier(scoped_atomics::Barrier::new(grid * block))])
        .map_err(e)?;
    let mut slots = stream.alloc_zeros::<u32>(threads).map_err(e)?;
    let mut sums = stream.alloc_zeros::<u32>(threads).map_err(e)?;
    let config = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&kernel);
    launch
        .arg(&barrier)
        .arg(&mut slots)
        .arg(&mut sums)
        .arg(&phases);
    // SAFETY: the arguments match `grid_barrier(barrier: *const Barrier<Device>, slots: *mut u32,
    // sums: *mut u32, phases: u32)`: a barrier expecting every thread of the grid, one slot and
    // one sum per thread; the cooperative launch makes every block resident at once (or fails).
    unsafe { launch.launch_cooperative(config) }.map_err(e)?;
    let got = stream.clone_dtoh(&sums).map_err(e)?;
    let expected = crate::examples::grid_barrier_expected(threads, phases);
    Ok((got == expected)
        .then_some(())
        .ok_or_else(|| format!("GPU {got:?} != host {expected:?}")))
}

/// One probe launch for [`run_probes`]: the probe kernel, the 16 bytes around its location
/// (at `offset`), and its value arguments (`v`, `w` of `size` bytes, `n`).
///
/// ```
/// use scoped_atomics_host::gpu::{ProbeCase, run_probes};
/// let case = ProbeCase {
///     kernel: "fetch_add__u32__relaxed__device".into(),
///     memory: [0; 16],
///     offset: 4,
///     size: 4,
///     v: 5,
///     w: 0,
///     n: 0,
/// };
/// // Without a driver nothing runs; with one, word 1 would become 5.
/// if let Ok(Some(after)) = run_probes("not ptx", &[case]) {
///     assert_eq!(after[0][4], 5);
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeCase {
    /// The probe kernel's name.
    pub kernel: String,
    /// The buffer's bytes before the launch.
    pub memory: [u8; 16],
    /// Where in the buffer the location is.
    pub offset: usize,
    /// Size of the value type in bytes (1, 2, 4, 8).
    pub size: usize,
    /// The `v` and `w` arguments (low `size` bytes) and `n`.
    pub v: u64,
    /// See `v`.
    pub w: u64,
    /// See `v`.
    pub n: u64,
}

/// Runs each probe case on the GPU (one thread), returning the 16 bytes after each; `Ok(None)`
/// without a driver. The PTX must be loadable by the GPU (sm_70 PTX loads on every GPU the
/// project targets).
///
/// ```
/// // Without a driver: nothing runs.
/// # use scoped_atomics_host::gpu::{driver_present, run_probes};
/// if !driver_present() {
///     assert_eq!(run_probes("", &[]), Ok(None));
/// }
/// ```
pub fn run_probes(ptx: &str, cases: &[ProbeCase]) -> Result<Option<Vec<[u8; 16]>>, String> {
    if !driver_present() {
        return Ok(None);
    }
    let e = |e: cudarc::driver::DriverError| e.to_string();
    let ctx = CudaContext::new(0).map_err(e)?;
    let module = ctx.load_module(Ptx::from_src(ptx)).map_err(e)?;
    let stream = ctx.default_stream();
    let one = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut out = Vec::with_capacity(cases.len());
    for c in cases {
        let f = module.load_function(&c.kernel).map_err(e)?;
        let mut memory = stream.clone_htod(&c.memory[..]).map_err(e)?;
        let n = c.n as usize;
        let (v8, w8, v16, w16, v32, w32) = (
            c.v as u8, c.w as u8, c.v as u16, c.w as u16, c.v as u32, c.w as u32,
        );
        {
            let mut at = memory.slice_mut(c.offset..);
            let mut launch = stream.launch_builder(&f);
            if !c.kernel.starts_with("fence__") {
                launch.arg(&mut at);
                match c.size {
                    1 => launch.arg(&v8).arg(&w8),
                    2 => launch.arg(&v16).arg(&w16),
                    4 => launch.arg(&v32).arg(&w32),
                    _ => launch.arg(&c.v).arg(&c.w),
                };
                launch.arg(&n);
            }
            // SAFETY: a probe kernel takes (p: *mut T, v: T, w: T, n: usize) with T of `size`
            // bytes (a fence probe takes nothing); `p` points at `offset`, aligned to the size,
            // inside the 16-byte device buffer.
            unsafe { launch.launch(one) }.map_err(e)?;
        }
        let got = stream.clone_dtoh(&memory).map_err(e)?;
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&got);
        out.push(bytes);
    }
    Ok(Some(out))
}

/// The host↔device ring on a GPU: the ring lives in mapped host memory
/// ([`MappedSlice::on_gpu`](crate::mapped::MappedSlice::on_gpu): `cuMemHostAlloc` with
/// `CU_MEMHOSTALLOC_DEVICEMAP`), a one-thread launch of `ring_producer` pushes `count` values
/// `first, first + 1, …` from the device while this thread pops them with the same host code as
/// on host threads and in the simulator
/// ([`mapped_ring::Consumer::step`](crate::examples::mapped_ring::Consumer::step)), both sides
/// through the ring's system-scope atomics. With `count` larger than the ring's slots the two
/// sides must really run concurrently. Gives up after `timeout` (a device that never publishes
/// is a failure, not a hang). Without a driver: [`GpuRun::Skipped`] with [`NO_DRIVER`].
///
/// ```
/// use scoped_atomics_host::gpu::{GpuRun, NO_DRIVER, driver_present, run_ring};
/// let run = run_ring("not ptx", 1, 20, std::time::Duration::from_secs(5));
/// if !driver_present() {
///     assert_eq!(run, GpuRun::Skipped(NO_DRIVER.to_string()));
/// }
/// ```
pub fn run_ring(ptx: &str, first: u32, count: u32, timeout: std::time::Duration) -> GpuRun {
    if !driver_present() {
        return GpuRun::Skipped(NO_DRIVER.to_string());
    }
    #[cfg(loom)]
    let launched: Result<Result<(), String>, String> = {
        let _ = (ptx, first, count, timeout);
        Err("a --cfg loom build does not share memory with a GPU".into())
    };
    #[cfg(not(loom))]
    let launched = launch_ring(ptx, first, count, timeout);
    match launched {
        Ok(result) => GpuRun::Ran(vec![("ring (mapped host memory)".to_string(), result)]),
        Err(e) => GpuRun::Skipped(format!(
            "CUDA driver present but unusable ({e}), skipping GPU run"
        )),
    }
}

#[cfg(not(loom))]
fn launch_ring(
    ptx: &str,
    first: u32,
    count: u32,
    timeout: std::time::Duration,
) -> Result<Result<(), String>, String> {
    use crate::examples::mapped_ring::{Consumer, WORDS};
    let e = |e: cudarc::driver::DriverError| e.to_string();
    let ctx = CudaContext::new(0).map_err(e)?;
    let module = ctx.load_module(Ptx::from_src(ptx)).map_err(e)?;
    let producer = module.load_function("ring_producer").map_err(e)?;
    let stream = ctx.new_stream().map_err(e)?;
    let ring = crate::mapped::MappedSlice::on_gpu(&ctx, &[0u32; WORDS]).map_err(e)?;
    let device_ring = ring.kernel_ptr() as u64;
    let mut launch = stream.launch_builder(&producer);
    launch.arg(&device_ring).arg(&first).arg(&count);
    let config = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: `ring_producer(ring: *mut Ring, first: u32, count: u32)`: the device address of a
    // live ring in mapped memory with `Ring`'s layout (its words); the host is its only
    // consumer, and the ring outlives the kernel (synchronised below, or leaked).
    unsafe { launch.launch(config) }.map_err(e)?;
    let mut consumer = Consumer::new(count);
    if let Err(timed_out) = crate::mapped::poll(timeout, || consumer.step(&mut &ring)) {
        // The producer may still be running (blocked on a full ring): the memory it writes must
        // outlive it, so it is leaked rather than freed under the kernel.
        std::mem::forget(ring);
        return Ok(Err(format!(
            "{timed_out}: popped {} of {count} values",
            consumer.received.len()
        )));
    }
    stream.synchronize().map_err(e)?;
    let expected: Vec<u32> = (0..count).map(|k| first.wrapping_add(k)).collect();
    Ok(if consumer.received == expected {
        Ok(())
    } else {
        Err(format!(
            "popped {:?}, expected {expected:?}",
            consumer.received
        ))
    })
}

/// Launches `function` on `stream` with `config` in thread-block clusters of `cluster` blocks
/// (`cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`; cudarc has no safe form of
/// it). `params` holds a pointer to each kernel argument, in order, as for `cuLaunchKernel`. Needs
/// sm_90 or newer; each component of `cluster` must divide the grid's (the driver refuses the
/// launch otherwise, and a kernel that declares `.reqnctapercluster` must be given that shape).
///
/// # Safety
/// As for any kernel launch: `params` matches the kernel's parameters, and every buffer it
/// points to stays alive and unaliased by the host until the stream is synchronised.
pub unsafe fn launch_in_clusters(
    stream: &cudarc::driver::CudaStream,
    function: &cudarc::driver::CudaFunction,
    config: LaunchConfig,
    cluster: (u32, u32, u32),
    params: &mut [*mut std::ffi::c_void],
) -> Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::sys;
    stream.context().bind_to_thread()?;
    // SAFETY: a zeroed attribute is a valid plain-data value; its id and cluster fields are set.
    let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = cluster.0;
    attribute.value.clusterDim.y = cluster.1;
    attribute.value.clusterDim.z = cluster.2;
    let launch = sys::CUlaunchConfig {
        gridDimX: config.grid_dim.0,
        gridDimY: config.grid_dim.1,
        gridDimZ: config.grid_dim.2,
        blockDimX: config.block_dim.0,
        blockDimY: config.block_dim.1,
        blockDimZ: config.block_dim.2,
        sharedMemBytes: config.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: &mut attribute,
        numAttrs: 1,
    };
    // SAFETY: the configuration and its one attribute live across the call; the parameters are
    // the caller's contract.
    unsafe {
        sys::cuLaunchKernelEx(
            &launch,
            function.cu_function(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
}

/// Runs a histogram kernel `kernel(input: *const u32, len: usize, bins: *mut u32)` of `ptx` (built
/// for sm_90) on GPU 0 with `grid` blocks of `block` threads in clusters of `cluster`
/// ([`launch_in_clusters`]) and compares the bins with `expected`. Skipped without a driver
/// ([`NO_DRIVER`]) or on a GPU older than sm_90.
pub fn run_histogram_in_clusters(
    ptx: &str,
    kernel: &str,
    input: &[u32],
    expected: &[u32],
    (grid, cluster, block): (u32, u32, u32),
) -> GpuRun {
    if !driver_present() {
        return GpuRun::Skipped(NO_DRIVER.to_string());
    }
    let run = || -> Result<GpuRun, String> {
        let e = |e: cudarc::driver::DriverError| e.to_string();
        let ctx = CudaContext::new(0).map_err(e)?;
        if ctx.compute_capability().map_err(e)?.0 < 9 {
            return Ok(GpuRun::Skipped(
                "thread-block clusters need sm_90 or newer, skipping the cluster run".into(),
            ));
        }
        let module = ctx.load_module(Ptx::from_src(ptx)).map_err(e)?;
        let function = module.load_function(kernel).map_err(e)?;
        let stream = ctx.default_stream();
        let data = stream.clone_htod(input).map_err(e)?;
        let bins = stream.alloc_zeros::<u32>(expected.len()).map_err(e)?;
        {
            use cudarc::driver::DevicePtr;
            let (mut data_ptr, _read) = data.device_ptr(&stream);
            let (mut bins_ptr, _write) = bins.device_ptr(&stream);
            let mut len = input.len();
            let mut params: Vec<*mut std::ffi::c_void> = vec![
                (&raw mut data_ptr).cast(),
                (&raw mut len).cast(),
                (&raw mut bins_ptr).cast(),
            ];
            let config = LaunchConfig {
                grid_dim: (grid, 1, 1),
                block_dim: (block, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: the parameters are the kernel's (input, len, bins), pointing at `len`
            // values and `expected.len()` counters that live until the copy back below.
            unsafe { launch_in_clusters(&stream, &function, config, (cluster, 1, 1), &mut params) }
                .map_err(e)?;
        }
        let got = stream.clone_dtoh(&bins).map_err(e)?;
        let result = (got.as_slice() == expected)
            .then_some(())
            .ok_or_else(|| format!("GPU {got:?} != host {expected:?}"));
        Ok(GpuRun::Ran(vec![(
            format!("{kernel} in clusters of {cluster}"),
            result,
        )]))
    };
    run().unwrap_or_else(|e| {
        GpuRun::Skipped(format!(
            "CUDA driver present but unusable ({e}), skipping GPU run"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No machine of this project has a GPU: the GPU step must end cleanly with the message.
    /// Where a driver exists, the same call runs the kernels instead; either way it returns.
    #[test]
    fn without_a_driver_the_gpu_step_is_skipped_with_a_message() {
        let run = run_examples("not ptx", &[1, 2, 3], &[0; BINS]);
        if driver_present() {
            assert!(matches!(run, GpuRun::Skipped(_) | GpuRun::Ran(_)));
        } else {
            assert_eq!(run, GpuRun::Skipped(NO_DRIVER.to_string()));
        }
    }

    /// The grid barrier's launch (a host-built `Barrier<Device>`, cooperative launch) ends the
    /// same way without a driver; with one, it runs (or reports why it could not).
    #[test]
    fn without_a_driver_the_grid_barrier_launch_is_skipped_with_a_message() {
        let run = run_grid_barrier("not ptx", 4, 32, 3);
        if driver_present() {
            assert!(matches!(run, GpuRun::Skipped(_) | GpuRun::Ran(_)));
        } else {
            assert_eq!(run, GpuRun::Skipped(NO_DRIVER.to_string()));
        }
    }

    #[test]
    fn without_a_driver_the_cluster_launch_is_skipped_with_a_message() {
        let run = run_histogram_in_clusters("not ptx", "k", &[1, 2], &[0; 8], (2, 2, 32));
        if driver_present() {
            assert!(
                matches!(run, GpuRun::Skipped(_) | GpuRun::Ran(_)),
                "{run:?}"
            );
        } else {
            assert_eq!(run, GpuRun::Skipped(NO_DRIVER.to_string()));
        }
    }

    #[test]
    fn without_a_driver_the_ring_launch_is_skipped_with_a_message() {
        let run = run_ring("not ptx", 1, 20, std::time::Duration::from_secs(5));
        if driver_present() {
            // "not ptx" does not load: skipped with the driver's reason.
            assert!(
                matches!(run, GpuRun::Skipped(ref why) if why.contains("unusable")),
                "{run:?}"
            );
        } else {
            assert_eq!(run, GpuRun::Skipped(NO_DRIVER.to_string()));
        }
    }
}
