//! [`Launch::on_gpu`]: the launch's PTX on GPU 0 through `cudarc` (dynamic loading: no CUDA
//! needed to build), the buffers back typed; a clean skip without a driver or a device.

use super::{Argument, Buffers, Launch};
use crate::gpu::{NO_DRIVER, cudarc, driver_present};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DriverError, sys};
use cudarc::nvrtc::Ptx;
use scoped_atomics::kernel::ArgumentMismatch;
use std::fmt;

/// What [`Launch::on_gpu`] did: ran, with the buffers after the launch, or skipped because this
/// machine has no CUDA driver or no usable device (the reason given: [`NO_DRIVER`] without a
/// driver).
///
/// ```
/// use scoped_atomics_host::{gpu::NO_DRIVER, launch::OnGpu};
/// let skipped = OnGpu::Skipped(NO_DRIVER.to_string());
/// assert!(matches!(skipped, OnGpu::Skipped(ref why) if why.starts_with("no CUDA driver")));
/// ```
#[derive(Debug)]
pub enum OnGpu {
    /// The launch ran; the buffers after it.
    Ran(Buffers),
    /// Nothing ran, for this reason.
    Skipped(String),
}

/// Why a GPU launch failed on a machine that has a driver and a device: arguments that do not
/// fit the kernel, or the driver's error at one step (loading the PTX, finding the entry point,
/// copying, launching, running).
///
/// ```
/// use scoped_atomics_host::launch::GpuError;
/// let e = GpuError::Driver { during: "loading the PTX", message: "CUDA_ERROR_INVALID_PTX".into() };
/// assert_eq!(e.to_string(), "loading the PTX: CUDA_ERROR_INVALID_PTX");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuError {
    /// The arguments do not fit the kernel's parameters (checked before anything runs, with or
    /// without a driver).
    Arguments(ArgumentMismatch),
    /// The driver's error during a step of the launch.
    Driver {
        /// The step.
        during: &'static str,
        /// The driver's message.
        message: String,
    },
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::Arguments(e) => e.fmt(f),
            GpuError::Driver { during, message } => write!(f, "{during}: {message}"),
        }
    }
}

impl std::error::Error for GpuError {}

impl Launch {
    /// Runs the launch on GPU 0: loads `ptx` (built for an architecture the GPU runs: sm_70 PTX
    /// runs on every GPU from Volta on, clusters need sm_90), copies the buffers' initial
    /// contents to device memory, launches the kernel's entry point by name with the grid,
    /// block, cluster (`cuLaunchKernelEx`), dynamic shared memory and cooperation of the launch,
    /// waits for it and copies the buffers back. Without a CUDA driver, or with one but no
    /// usable device, nothing runs: [`OnGpu::Skipped`] says why.
    ///
    /// # Safety
    /// As for [`on_host_threads`](Launch::on_host_threads): the arguments meet the kernel's
    /// contract, each a valid value of its parameter's type — on a GPU nothing checks an access.
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// use scoped_atomics_host::{gpu, launch::{GpuError, Launch, OnGpu}, sim::EXAMPLE_PTX};
    /// # #[scoped_atomics::kernel]
    /// # pub fn count(_: *mut u32) {}
    /// let mut launch = Launch::new(COUNT, Dim3::x(4), Dim3::x(32));
    /// let sum = launch.buffer(vec![0u32]);
    /// // SAFETY: one counter, as `count` needs.
    /// match unsafe { launch.on_gpu(EXAMPLE_PTX) }.unwrap() {
    ///     OnGpu::Ran(out) => assert_eq!(out[sum], [(0..128).sum::<u32>()]),
    ///     OnGpu::Skipped(why) => assert!(!gpu::driver_present() || why.contains("device")),
    /// }
    /// // Arguments that do not fit are refused first, driver or not.
    /// let e = unsafe { Launch::new(COUNT, Dim3::x(1), Dim3::x(1)).on_gpu(EXAMPLE_PTX) };
    /// assert!(matches!(e, Err(GpuError::Arguments(_))));
    /// ```
    pub unsafe fn on_gpu(&self, ptx: &str) -> Result<OnGpu, GpuError> {
        self.check_arguments().map_err(GpuError::Arguments)?;
        if !driver_present() {
            return Ok(OnGpu::Skipped(NO_DRIVER.to_string()));
        }
        let context = match CudaContext::new(0) {
            Ok(context) => context,
            Err(e) => {
                return Ok(OnGpu::Skipped(format!(
                    "CUDA driver present but no usable device ({e}), skipping GPU run"
                )));
            }
        };
        // SAFETY: the caller's contract.
        unsafe { self.run_on(&context, ptx) }.map(OnGpu::Ran)
    }

    /// The launch on `context`'s device.
    ///
    /// # Safety
    /// As for [`Launch::on_gpu`].
    unsafe fn run_on(
        &self,
        context: &std::sync::Arc<CudaContext>,
        ptx: &str,
    ) -> Result<Buffers, GpuError> {
        let driver = |during: &'static str| {
            move |e: DriverError| GpuError::Driver {
                during,
                message: e.to_string(),
            }
        };
        let module = context
            .load_module(Ptx::from_src(ptx))
            .map_err(driver("loading the PTX"))?;
        let function = module
            .load_function(self.kernel.name())
            .map_err(driver("finding the entry point"))?;
        if self.dynamic_shared > 48 * 1024 {
            // Above 48 KiB a kernel must opt in to its dynamic shared memory.
            function
                .set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    self.dynamic_shared as i32,
                )
                .map_err(driver("allowing the dynamic shared memory"))?;
        }
        let stream = context.default_stream();
        // Device copies of the buffers (a byte at least: the driver allocates no empty buffer).
        let device: Vec<CudaSlice<u8>> = self
            .contents
            .iter()
            .map(|c| match c.bytes() {
                [] => stream.alloc_zeros::<u8>(1),
                bytes => stream.clone_htod(bytes),
            })
            .collect::<Result<_, _>>()
            .map_err(driver("copying the buffers to the device"))?;
        {
            let addresses: Vec<_> = device.iter().map(|d| d.device_ptr(&stream)).collect();
            let mut values: Vec<Vec<u8>> = self
                .arguments
                .iter()
                .map(|argument| match argument {
                    Argument::Scalar(bytes) => bytes.clone(),
                    &Argument::Pointer { buffer, offset } => {
                        (addresses[buffer].0 + offset as u64).to_ne_bytes().to_vec()
                    }
                })
                .collect();
            let mut params: Vec<*mut std::ffi::c_void> =
                values.iter_mut().map(|v| v.as_mut_ptr().cast()).collect();
            // SAFETY: `params` points at one value per parameter, of its size (checked), alive
            // across the call; the device buffers stay alive (and their address guards held)
            // until the stream is synchronised below. The rest is the caller's contract.
            unsafe { self.launch_ex(&stream, function.cu_function(), &mut params) }
                .map_err(driver("launching the kernel"))?;
            stream.synchronize().map_err(driver("running the kernel"))?;
        }
        let mut contents = self.contents.clone();
        for (buffer, on_device) in contents.iter_mut().zip(&device) {
            let bytes = stream
                .clone_dtoh(on_device)
                .map_err(driver("copying the buffers back"))?;
            let host = buffer.bytes_mut();
            let len = host.len();
            host.copy_from_slice(&bytes[..len]);
        }
        Ok(self.results(contents))
    }

    /// `cuLaunchKernelEx` with the launch's shape, dynamic shared memory, cluster and
    /// cooperation attributes.
    ///
    /// # Safety
    /// `params` matches the kernel's parameters; every buffer it reaches stays alive until the
    /// stream is synchronised.
    unsafe fn launch_ex(
        &self,
        stream: &CudaStream,
        function: sys::CUfunction,
        params: &mut [*mut std::ffi::c_void],
    ) -> Result<(), DriverError> {
        stream.context().bind_to_thread()?;
        let mut attributes = Vec::new();
        if let Some(cluster) = self.cluster {
            // SAFETY: a zeroed attribute is a valid plain-data value; its fields are set below.
            let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
            attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attribute.value.clusterDim.x = cluster.x;
            attribute.value.clusterDim.y = cluster.y;
            attribute.value.clusterDim.z = cluster.z;
            attributes.push(attribute);
        }
        if self.cooperative {
            // SAFETY: as above.
            let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
            attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            attribute.value.cooperative = 1;
            attributes.push(attribute);
        }
        let config = sys::CUlaunchConfig {
            gridDimX: self.grid.x,
            gridDimY: self.grid.y,
            gridDimZ: self.grid.z,
            blockDimX: self.block.x,
            blockDimY: self.block.y,
            blockDimZ: self.block.z,
            sharedMemBytes: self.dynamic_shared,
            hStream: stream.cu_stream(),
            attrs: attributes.as_mut_ptr(),
            numAttrs: attributes.len() as u32,
        };
        // SAFETY: the configuration and its attributes live across the call; the parameters
        // are the caller's contract.
        unsafe {
            sys::cuLaunchKernelEx(&config, function, params.as_mut_ptr(), std::ptr::null_mut())
        }
        .result()
    }
}
