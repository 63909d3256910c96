//! One launch description for every back end: a [`Launch`] names a kernel (the
//! [`KernelEntry`] that `#[kernel]` writes beside it), the grid, block, cluster and dynamic
//! shared memory, and the arguments — typed buffers (`Vec<T>` or `&[T]` for any
//! [`bytemuck::Pod`] `T`, `#[repr(C)]` structs included, with their initial contents) and
//! scalars. The same value then runs
//!
//! * [on host threads](Launch::on_host_threads) (the [`executor`](crate::executor::Launch::run) with its
//!   watchdog and [`LaunchError`]),
//! * [under loom](Launch::under_loom) (with `--cfg loom`: every interleaving, each execution
//!   starting from the initial contents),
//! * [in the simulator](Launch::in_simulator) (the kernel's PTX, a schedule from
//!   [`seed`](Launch::seed); findings come back as [`Finding`](crate::sim::Finding)
//!   values), and
//! * [on a GPU](Launch::on_gpu) (the PTX through `cudarc`; [`OnGpu::Skipped`] without a driver),
//!
//! and each returns the buffers typed ([`Buffers`], indexed by the [`Buffer`] handles). Every
//! run starts from the initial contents; the launch itself is never changed by a run.
//!
//! ```
//! use scoped_atomics::kernel::{index_1d, Dim3};
//! use scoped_atomics::{AtomicRef, Device, Ordering};
//! use scoped_atomics_host::launch::{Launch, OnGpu};
//! use scoped_atomics_host::sim::EXAMPLE_PTX;
//!
//! /// Adds each thread's global index into `sum[0]` (the simulator's `EXAMPLE_PTX` is this
//! /// kernel's PTX).
//! ///
//! /// # Safety
//! /// `sum` is valid for an atomic `u32`.
//! #[scoped_atomics::kernel]
//! pub unsafe fn count(sum: *mut u32) {
//!     // SAFETY: the caller's contract.
//!     unsafe { AtomicRef::<u32, Device>::from_ptr(sum) }.add(index_1d() as u32, Ordering::Relaxed);
//! }
//!
//! // Described once: 2 blocks of 64 threads, one counter starting at 1000.
//! let mut launch = Launch::new(COUNT, Dim3::x(2), Dim3::x(64));
//! let sum = launch.buffer(vec![1000u32]);
//! let expected = 1000 + (0..128).sum::<u32>();
//!
//! // SAFETY (each run): `sum` is one `u32`, as `count` needs.
//! let on_host = unsafe { launch.on_host_threads() }.unwrap();
//! assert_eq!(on_host[sum], [expected]);
//!
//! let simulated = launch.seed(7).in_simulator(EXAMPLE_PTX).unwrap();
//! let simulated = simulated.clean().unwrap_or_else(|findings| panic!("{findings:?}"));
//! assert_eq!(simulated[sum], [expected]);
//!
//! match unsafe { launch.on_gpu(EXAMPLE_PTX) }.unwrap() {
//!     OnGpu::Ran(on_gpu) => assert_eq!(on_gpu[sum], [expected]),
//!     OnGpu::Skipped(why) => println!("{why}"), // no CUDA driver here
//! }
//! ```

use crate::executor::{self, LaunchError};
use crate::sim;
use bytemuck::Pod;
use scoped_atomics::kernel::{ArgumentMismatch, Dim3, KernelEntry};
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

mod buffers;
mod gpu;
mod simulator;

use buffers::Contents;
pub use buffers::{Buffer, Buffers};
pub use gpu::{GpuError, OnGpu};
pub use simulator::Simulated;

/// An argument of a launch: a value's bytes, or the address of a byte of a buffer.
#[derive(Clone, Debug)]
enum Argument {
    Scalar(Vec<u8>),
    Pointer { buffer: usize, offset: usize },
}

/// Tells launches (and so their buffer handles) apart.
static NEXT_LAUNCH: AtomicU64 = AtomicU64::new(1);

/// A kernel launch described once, run on any back end: see the [module](self) documentation.
///
/// ```
/// use scoped_atomics::kernel::{grid_stride_1d, Dim3};
/// use scoped_atomics::{AtomicRef, Device, Ordering};
/// use scoped_atomics_host::launch::Launch;
///
/// /// A bin per `#[repr(C)]` pair: how many values fell in it and their sum.
/// #[repr(C)]
/// #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
/// pub struct Tally {
///     count: u32,
///     sum: u32,
/// }
///
/// /// Tallies `len` values into `bins` tallies by `value % bins`.
/// ///
/// /// # Safety
/// /// `input` holds `len` values, `tallies` `bins` tallies.
/// #[scoped_atomics::kernel]
/// pub unsafe fn tally(input: *const u32, len: usize, tallies: *mut Tally, bins: u32) {
///     for i in grid_stride_1d(len) {
///         // SAFETY: `i < len`, the bin `< bins`: the caller's contract; atomic updates only.
///         unsafe {
///             let value = input.add(i).read();
///             let tally = tallies.add((value % bins) as usize);
///             AtomicRef::<u32, Device>::from_ptr(&raw mut (*tally).count).add(1, Ordering::Relaxed);
///             AtomicRef::<u32, Device>::from_ptr(&raw mut (*tally).sum).add(value, Ordering::Relaxed);
///         }
///     }
/// }
///
/// let values: Vec<u32> = (0..100).collect();
/// let mut launch = Launch::new(TALLY, Dim3::x(3), Dim3::x(32));
/// launch.buffer(&values[..]);
/// launch.scalar(values.len());
/// // Per-element initial contents: tally 1 starts at (1, 1000).
/// let tallies = launch.buffer(vec![
///     Tally { count: 0, sum: 0 },
///     Tally { count: 1, sum: 1000 },
/// ]);
/// launch.scalar(2u32);
/// // SAFETY: 100 values and 2 tallies, as `tally` needs for `len = 100`, `bins = 2`.
/// let out = unsafe { launch.on_host_threads() }.unwrap();
/// assert_eq!(out[tallies][0], Tally { count: 50, sum: (0..100).step_by(2).sum() });
/// assert_eq!(out[tallies][1], Tally { count: 51, sum: 1000 + (1..100).step_by(2).sum::<u32>() });
/// ```
#[derive(Clone)]
pub struct Launch {
    id: u64,
    kernel: KernelEntry,
    grid: Dim3,
    block: Dim3,
    cluster: Option<Dim3>,
    dynamic_shared: u32,
    cooperative: bool,
    contents: Vec<Box<dyn Contents>>,
    arguments: Vec<Argument>,
    resident_blocks: Option<u32>,
    watchdog: Option<Duration>,
    seed: u64,
    schedule: sim::Mode,
    preemption_bound: Option<usize>,
}

impl Launch {
    /// A launch of `kernel` (the constant `#[kernel]` writes for an entry point) over a `grid`
    /// of `block`s, with no argument yet: clusters of one block, no dynamic shared memory, not
    /// cooperative, the executor's default residency and watchdog, the simulator's random
    /// schedule from seed 1.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// #[scoped_atomics::kernel]
    /// pub fn empty() {}
    /// let launch = scoped_atomics_host::launch::Launch::new(EMPTY, Dim3::x(4), Dim3::x(32));
    /// assert_eq!(launch.kernel().name(), "empty");
    /// // SAFETY: `empty` has no contract.
    /// unsafe { launch.on_host_threads() }.unwrap();
    /// ```
    pub fn new(kernel: KernelEntry, grid: Dim3, block: Dim3) -> Launch {
        Launch {
            id: NEXT_LAUNCH.fetch_add(1, Ordering::Relaxed),
            kernel,
            grid,
            block,
            cluster: None,
            dynamic_shared: 0,
            cooperative: false,
            contents: Vec::new(),
            arguments: Vec::new(),
            resident_blocks: None,
            watchdog: Some(executor::DEFAULT_WATCHDOG),
            seed: 1,
            schedule: sim::Mode::Random,
            preemption_bound: None,
        }
    }

    /// The kernel launched.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// #[scoped_atomics::kernel(instantiate(add_block = scoped_atomics::Block))]
    /// pub fn add<S: scoped_atomics::Scope>(_: *mut u32) {}
    /// let launch = scoped_atomics_host::launch::Launch::new(ADD_BLOCK, Dim3::x(1), Dim3::x(1));
    /// assert_eq!(launch.kernel().name(), "add_block");
    /// ```
    pub fn kernel(&self) -> KernelEntry {
        self.kernel
    }

    /// A new buffer with `contents` (a `Vec<T>`, a `&[T]` or an array), passed as the next
    /// argument (its first element's address); the handle reads it back from a run's results.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k(_: *const f32, _: *mut [u8; 3]) {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(1));
    /// let weights = launch.buffer(&[0.5f32, 0.25][..]);
    /// let rgb = launch.buffer([[255u8, 0, 0]; 4]);
    /// assert_eq!((weights.len(), rgb.len()), (2, 4));
    /// ```
    pub fn buffer<T: Pod + Send + Sync>(&mut self, contents: impl Into<Vec<T>>) -> Buffer<T> {
        let buffer = self.allocation(contents);
        self.pointer_to(buffer, 0);
        buffer
    }

    /// A new buffer with `contents`, not passed as an argument: for [`pointer_to`] (several
    /// pointers into one buffer) or a buffer the kernel reaches another way.
    ///
    /// [`pointer_to`]: Launch::pointer_to
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k(_: *mut u32, _: *mut u32) {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(1));
    /// let cells = launch.allocation(vec![0u32; 2]);
    /// launch.pointer_to(cells, 0).pointer_to(cells, 1);
    /// # unsafe { launch.on_host_threads() }.unwrap();
    /// ```
    pub fn allocation<T: Pod + Send + Sync>(&mut self, contents: impl Into<Vec<T>>) -> Buffer<T> {
        let contents: Vec<T> = contents.into();
        let buffer = Buffer {
            launch: self.id,
            index: self.contents.len(),
            len: contents.len(),
            element: PhantomData,
        };
        self.contents.push(Box::new(contents));
        buffer
    }

    /// Passes the address of element `element` of `buffer` as the next argument (`element` may
    /// be the buffer's length: the address one past its end). Panics for a handle of another
    /// launch or an element beyond the end.
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// use scoped_atomics_host::launch::Launch;
    ///
    /// /// Copies `*from` to `*to`.
    /// ///
    /// /// # Safety
    /// /// Both are valid.
    /// #[scoped_atomics::kernel]
    /// pub unsafe fn copy(from: *const u32, to: *mut u32) {
    ///     // SAFETY: the caller's contract; one thread.
    ///     unsafe { to.write(from.read()) }
    /// }
    ///
    /// let mut launch = Launch::new(COPY, Dim3::x(1), Dim3::x(1));
    /// let cells = launch.allocation(vec![4u32, 0]);
    /// launch.pointer_to(cells, 0).pointer_to(cells, 1);
    /// // SAFETY: two cells of one buffer.
    /// assert_eq!(unsafe { launch.on_host_threads() }.unwrap()[cells], [4, 4]);
    /// ```
    pub fn pointer_to<T: Pod + Send + Sync>(
        &mut self,
        buffer: Buffer<T>,
        element: usize,
    ) -> &mut Self {
        assert_eq!(
            buffer.launch, self.id,
            "{buffer:?} is a handle of another launch than this one (launch {})",
            self.id
        );
        // The buffer the handle names here (a clone of the launch shares its handles, and each
        // may have added buffers of its own since): a `Vec<T>` with room for the element.
        let contents = self
            .contents
            .get(buffer.index)
            .filter(|c| c.as_any().is::<Vec<T>>())
            .unwrap_or_else(|| {
                panic!("{buffer:?} names no buffer of its type in this clone of its launch")
            });
        assert!(
            element <= contents.len(),
            "a pointer to element {element} of {buffer:?}, beyond its end"
        );
        self.arguments.push(Argument::Pointer {
            buffer: buffer.index,
            offset: element * size_of::<T>(),
        });
        self
    }

    /// Passes `value` (an integer, a float, a `#[repr(C)]` struct by value: any `Pod`) as the
    /// next argument. Its size must be its parameter's: a `usize` for `len: usize`.
    ///
    /// ```
    /// # use scoped_atomics::kernel::{Dim3, ArgumentMismatch};
    /// # use scoped_atomics_host::{executor::LaunchError, launch::Launch};
    /// #[scoped_atomics::kernel]
    /// pub fn scaled(_factor: f32, _len: usize) {}
    /// let mut launch = Launch::new(SCALED, Dim3::x(1), Dim3::x(1));
    /// launch.scalar(0.5f32).scalar(3u32); // `len` is a usize: 8 bytes, not 4
    /// // SAFETY: the arguments are checked first, and refused.
    /// let e = unsafe { launch.on_host_threads() }.unwrap_err();
    /// assert_eq!(e, LaunchError::Arguments(ArgumentMismatch::Size {
    ///     kernel: "scaled", index: 1, given: 4, parameter: 8,
    /// }));
    /// ```
    pub fn scalar<T: Pod>(&mut self, value: T) -> &mut Self {
        self.arguments
            .push(Argument::Scalar(bytemuck::bytes_of(&value).to_vec()));
        self
    }

    /// Thread-block clusters of `cluster` blocks (each component dividing the grid's; sm_90 PTX
    /// in the simulator and on a GPU). Without it: clusters of one block on host threads and
    /// loom, the kernel's declared shape (else one block) in the simulator, none on a GPU.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k() {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(8), Dim3::x(32));
    /// launch.cluster(Dim3::x(4));
    /// # unsafe { launch.on_host_threads() }.unwrap();
    /// ```
    pub fn cluster(&mut self, cluster: Dim3) -> &mut Self {
        self.cluster = Some(cluster);
        self
    }

    /// Bytes of dynamic shared memory per block (`extern .shared` arrays of the PTX), in the
    /// simulator and on a GPU. The kernel API has no dynamic shared memory, so host threads and
    /// loom have none to give.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k() {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(32));
    /// launch.dynamic_shared(4096);
    /// ```
    pub fn dynamic_shared(&mut self, bytes: u32) -> &mut Self {
        self.dynamic_shared = bytes;
        self
    }

    /// A cooperative launch (every block resident at once, for a grid-wide barrier): refused on
    /// host threads when the grid does not fit ([`LaunchError::NotResident`]), passed the
    /// driver's grid workspace in the simulator, `CU_LAUNCH_ATTRIBUTE_COOPERATIVE` on a GPU.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # use scoped_atomics_host::executor::LaunchError;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k() {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(5), Dim3::x(1024));
    /// launch.cooperative(true);
    /// // SAFETY: refused before anything runs.
    /// let e = unsafe { launch.on_host_threads() }.unwrap_err();
    /// assert!(matches!(e, LaunchError::NotResident { blocks: 5, .. }));
    /// ```
    pub fn cooperative(&mut self, cooperative: bool) -> &mut Self {
        self.cooperative = cooperative;
        self
    }

    /// On host threads: at most `blocks` blocks resident at once
    /// ([`executor::Launch::resident_blocks`]).
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k() {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(64), Dim3::x(8));
    /// launch.resident_blocks(4);
    /// # unsafe { launch.on_host_threads() }.unwrap();
    /// ```
    pub fn resident_blocks(&mut self, blocks: u32) -> &mut Self {
        self.resident_blocks = Some(blocks);
        self
    }

    /// On host threads: the hang watchdog ([`executor::Launch::watchdog`]; `None` turns it off,
    /// the default is [`executor::DEFAULT_WATCHDOG`]).
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k() {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(1));
    /// launch.watchdog(Some(std::time::Duration::from_secs(2)));
    /// ```
    pub fn watchdog(&mut self, timeout: Option<Duration>) -> &mut Self {
        self.watchdog = timeout;
        self
    }

    /// In the simulator: the scheduler's seed (the same seed, the same schedule; default 1).
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn count(_: *mut u32) {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(COUNT, Dim3::x(1), Dim3::x(8));
    /// launch.buffer(vec![0u32]);
    /// let out = launch.seed(42).in_simulator(scoped_atomics_host::sim::EXAMPLE_PTX).unwrap();
    /// assert_eq!(out.seed, 42);
    /// ```
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self
    }

    /// In the simulator: how threads interleave ([`sim::Mode`]; default the random schedule).
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn count(_: *mut u32) {}
    /// use scoped_atomics_host::sim::{Mode, EXAMPLE_PTX};
    /// let mut launch = scoped_atomics_host::launch::Launch::new(COUNT, Dim3::x(1), Dim3::x(64));
    /// let sum = launch.buffer(vec![0u32]);
    /// let out = launch.schedule(Mode::WarpLockstep).in_simulator(EXAMPLE_PTX).unwrap();
    /// assert_eq!(out.clean().unwrap()[sum], [(0..64).sum::<u32>()]);
    /// ```
    pub fn schedule(&mut self, mode: sim::Mode) -> &mut Self {
        self.schedule = mode;
        self
    }

    /// Under loom: the preemption bound (default: `executor::loom_builder`'s, 2, or
    /// `LOOM_MAX_PREEMPTIONS`).
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k() {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(2), Dim3::x(1));
    /// launch.preemption_bound(3);
    /// ```
    pub fn preemption_bound(&mut self, bound: usize) -> &mut Self {
        self.preemption_bound = Some(bound);
        self
    }

    /// Whether the arguments fit the kernel's parameters (each run checks this first).
    ///
    /// ```
    /// # use scoped_atomics::kernel::{ArgumentMismatch, Dim3};
    /// # #[scoped_atomics::kernel]
    /// # pub fn k(_: *mut u32, _: u32) {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(1));
    /// launch.buffer(vec![0u32]);
    /// assert!(matches!(launch.check_arguments(), Err(ArgumentMismatch::Count { given: 1, .. })));
    /// launch.scalar(1u32);
    /// assert_eq!(launch.check_arguments(), Ok(()));
    /// ```
    pub fn check_arguments(&self) -> Result<(), ArgumentMismatch> {
        let pointer = [0u8; size_of::<*mut u8>()];
        let sizes: Vec<&[u8]> = self
            .arguments
            .iter()
            .map(|a| match a {
                Argument::Scalar(bytes) => bytes.as_slice(),
                Argument::Pointer { .. } => &pointer,
            })
            .collect();
        self.kernel.check_arguments(&sizes)
    }

    /// Runs the launch on host threads ([`executor::Launch::run`]: waves of resident blocks, the
    /// watchdog): every thread calls the kernel function with the arguments, the buffers fresh
    /// copies of their initial contents; returns them after the launch.
    ///
    /// # Safety
    /// The arguments meet the kernel's contract (its `# Safety`: buffer sizes, residency, …)
    /// and each is a valid value of its parameter's type (sizes are checked, bit validity is
    /// not: a `bool` parameter needs a 0 or a 1).
    ///
    /// ```
    /// use scoped_atomics::kernel::{spin_loop, Dim3};
    /// use scoped_atomics::{AtomicRef, Device, Ordering};
    /// use scoped_atomics_host::{executor::LaunchError, launch::Launch};
    /// use std::time::Duration;
    ///
    /// /// Spins until `*flag` is set.
    /// ///
    /// /// # Safety
    /// /// `flag` is valid for an atomic `u32`.
    /// #[scoped_atomics::kernel]
    /// pub unsafe fn wait_for(flag: *mut u32) {
    ///     // SAFETY: the caller's contract.
    ///     let flag = unsafe { AtomicRef::<u32, Device>::from_ptr(flag) };
    ///     while flag.load(Ordering::Acquire) == 0 {
    ///         spin_loop();
    ///     }
    /// }
    ///
    /// let mut launch = Launch::new(WAIT_FOR, Dim3::x(2), Dim3::x(4));
    /// launch.buffer(vec![1u32]);
    /// // SAFETY: one flag, as `wait_for` needs.
    /// unsafe { launch.on_host_threads() }.unwrap();
    ///
    /// // A flag nobody sets: the watchdog names the spinning threads.
    /// let mut launch = Launch::new(WAIT_FOR, Dim3::x(2), Dim3::x(4));
    /// launch.buffer(vec![0u32]);
    /// launch.watchdog(Some(Duration::from_millis(200)));
    /// // SAFETY: as above.
    /// let e = unsafe { launch.on_host_threads() }.unwrap_err();
    /// assert!(matches!(&e, LaunchError::Hung { threads, .. } if threads.len() == 8), "{e}");
    /// ```
    pub unsafe fn on_host_threads(&self) -> Result<Buffers, LaunchError> {
        self.check_arguments().map_err(LaunchError::Arguments)?;
        let mut contents = self.contents.clone();
        let arguments = self.argument_bytes(&mut contents);
        let arguments: Vec<&[u8]> = arguments.iter().map(Vec::as_slice).collect();
        let kernel = self.kernel;
        self.executor().run(|| {
            // SAFETY: the arguments fit (checked above) and meet the kernel's contract (this
            // function's); the pointers address the fresh buffers, alive until the launch ends.
            unsafe { kernel.call(&arguments) }
        })?;
        Ok(self.results(contents))
    }

    /// Runs the launch under loom (build with `--cfg loom`; call it outside a loom model: it runs
    /// the model, with `executor::loom_builder`'s bounds or [`preemption_bound`]): each
    /// execution runs every kernel thread as a loom thread (`executor::Launch::run_loom`, at
    /// most [`executor::MAX_LOOM_THREADS`]) with fresh copies of the initial contents, and then
    /// `check` on its buffers. A scope race or a failed `check` panics, as loom does; a refused
    /// launch is an error.
    ///
    /// *Available with `--cfg loom` only* (documented here without it).
    ///
    /// [`preemption_bound`]: Launch::preemption_bound
    ///
    /// # Safety
    /// As for [`on_host_threads`](Launch::on_host_threads).
    ///
    /// ```text
    /// // tests/loom.rs, run with RUSTFLAGS="--cfg loom" cargo test --release --test loom
    /// let mut launch = Launch::new(kernels::BLOCK_SUM, Dim3::x(2), Dim3::x(2));
    /// launch.buffer(vec![3u32, 7, 5, 11]);
    /// let total = launch.buffer(vec![0u32]);
    /// // SAFETY: one input per thread and the total.
    /// unsafe { launch.under_loom(move |out| assert_eq!(out[total], [26])) }.unwrap();
    /// ```
    #[cfg(any(loom, doc))]
    pub unsafe fn under_loom(
        &self,
        check: impl Fn(&Buffers) + Send + Sync + 'static,
    ) -> Result<(), LaunchError> {
        self.check_arguments().map_err(LaunchError::Arguments)?;
        #[cfg(loom)]
        {
            use std::sync::{Arc, Mutex};
            let launch = Arc::new(self.clone());
            let refused: Arc<Mutex<Option<LaunchError>>> = Arc::default();
            let mut builder = executor::loom_builder();
            if let Some(bound) = self.preemption_bound {
                builder.preemption_bound = Some(bound);
            }
            let first_refusal = refused.clone();
            builder.check(move || {
                let mut contents = launch.contents.clone();
                let arguments = Arc::new(launch.argument_bytes(&mut contents));
                let kernel = launch.kernel;
                let ran = launch.executor().run_loom(move || {
                    let arguments: Vec<&[u8]> = arguments.iter().map(Vec::as_slice).collect();
                    // SAFETY: as in `on_host_threads`; `run_loom` joins every kernel thread
                    // before `contents` is read or dropped.
                    unsafe { kernel.call(&arguments) }
                });
                match ran {
                    Ok(()) => check(&launch.results(contents)),
                    Err(e) => {
                        first_refusal.lock().unwrap().get_or_insert(e);
                    }
                }
            });
            match refused.lock().unwrap().take() {
                Some(e) => Err(e),
                None => Ok(()),
            }
        }
        #[cfg(not(loom))]
        {
            let _ = check;
            unreachable!("under_loom exists without --cfg loom only in the documentation")
        }
    }

    /// The executor's launch for this one.
    fn executor(&self) -> executor::Launch {
        let mut launch = executor::Launch::new(self.grid, self.block)
            .cooperative(self.cooperative)
            .watchdog(self.watchdog);
        if let Some(cluster) = self.cluster {
            launch = launch.cluster(cluster);
        }
        if let Some(blocks) = self.resident_blocks {
            launch = launch.resident_blocks(blocks);
        }
        launch
    }

    /// Each argument's bytes for a host run over `contents` (fresh copies of the buffers): a
    /// scalar's bytes, a pointer written as a pointer (so that the kernel thread reading it
    /// back gets its provenance).
    fn argument_bytes(&self, contents: &mut [Box<dyn Contents>]) -> Vec<Vec<u8>> {
        self.arguments
            .iter()
            .map(|argument| match argument {
                Argument::Scalar(bytes) => bytes.clone(),
                &Argument::Pointer { buffer, offset } => {
                    let base = contents[buffer].base();
                    // SAFETY: `offset` is at most the buffer's length in bytes (`pointer_to`).
                    let address = unsafe { base.add(offset) };
                    let mut bytes = vec![0u8; size_of::<*mut u8>()];
                    // SAFETY: room for a pointer, written unaligned.
                    unsafe {
                        bytes
                            .as_mut_ptr()
                            .cast::<*mut u8>()
                            .write_unaligned(address)
                    };
                    bytes
                }
            })
            .collect()
    }

    /// A run's results: its copies of the buffers.
    fn results(&self, contents: Vec<Box<dyn Contents>>) -> Buffers {
        Buffers {
            launch: self.id,
            contents: contents.into_iter().map(Some).collect(),
        }
    }
}

impl fmt::Debug for Launch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel.name())
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("cluster", &self.cluster)
            .field("dynamic_shared", &self.dynamic_shared)
            .field("cooperative", &self.cooperative)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

/// `[x, y, z]` of a [`Dim3`], as the simulator takes extents.
fn extent(d: Dim3) -> [u32; 3] {
    [d.x, d.y, d.z]
}
