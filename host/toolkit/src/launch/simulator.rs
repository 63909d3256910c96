//! [`Launch::in_simulator`]: the launch's PTX in `ptx-sim`, the buffers back typed and the
//! findings as values.

use super::{Argument, Buffers, Launch, extent};
use crate::sim::{self, Finding, FindingKind, SimError};

/// What a simulator run of a [`Launch`] did: the buffers after it, typed, and its findings
/// (race, divergence, hang, fault) as [`Finding`] values.
///
/// ```
/// use scoped_atomics::kernel::Dim3;
/// use scoped_atomics_host::{launch::Launch, sim::EXAMPLE_PTX};
/// # #[scoped_atomics::kernel]
/// # pub fn count(_: *mut u32) {}
/// let mut launch = Launch::new(COUNT, Dim3::x(1), Dim3::x(4));
/// let sum = launch.buffer(vec![0u32]);
/// let out = launch.in_simulator(EXAMPLE_PTX).unwrap();
/// assert!(out.completed && out.findings.is_empty());
/// assert_eq!(out.buffers[sum], [6]);
/// assert_eq!(out.instructions, 4 * 8);
/// ```
#[derive(Debug)]
pub struct Simulated {
    /// The buffers after the run (as far as it got, when it stopped at a finding).
    pub buffers: Buffers,
    /// The findings, the stopping one (hang, divergence, fault) last; races do not stop a run.
    pub findings: Vec<Finding>,
    /// Whether every thread ran to its end with no finding.
    pub completed: bool,
    /// The seed the schedule ran with.
    pub seed: u64,
    /// PTX instructions executed.
    pub instructions: u64,
    /// What the kernel printed with `printf`, a line per call.
    pub printed: Vec<String>,
}

impl Simulated {
    /// The buffers of a run that completed with no finding, else its findings (never empty: a
    /// run that stopped without one says so as a hang).
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// use scoped_atomics_host::{launch::Launch, sim::{EXAMPLE_PTX, FindingKind}};
    /// # #[scoped_atomics::kernel]
    /// # pub fn count(_: *mut u32) {}
    /// let mut launch = Launch::new(COUNT, Dim3::x(1), Dim3::x(4));
    /// let sum = launch.buffer(vec![0u32]);
    /// assert_eq!(launch.in_simulator(EXAMPLE_PTX).unwrap().clean().unwrap()[sum], [6]);
    ///
    /// // `count`'s atomic add into an unaligned address: a fault, as a value.
    /// let mut launch = Launch::new(COUNT, Dim3::x(1), Dim3::x(4));
    /// let bytes = launch.allocation(vec![0u8; 8]);
    /// launch.pointer_to(bytes, 1);
    /// let findings = launch.in_simulator(EXAMPLE_PTX).unwrap().clean().unwrap_err();
    /// assert_eq!(findings.last().unwrap().kind, FindingKind::Fault, "{findings:?}");
    /// ```
    pub fn clean(self) -> Result<Buffers, Vec<Finding>> {
        match (self.completed, self.findings.is_empty()) {
            (true, true) => Ok(self.buffers),
            (false, true) => Err(vec![Finding::new(
                FindingKind::Hang,
                "the simulated launch stopped before every thread ended, with no other finding",
            )]),
            _ => Err(self.findings),
        }
    }
}

impl Launch {
    /// Runs the launch's kernel from `ptx` (the kernel crate's PTX: the entry point is the
    /// [`KernelEntry`](scoped_atomics::kernel::KernelEntry)'s name) in the simulator, every
    /// thread interleaved at each memory operation by the schedule of [`seed`](Launch::seed)
    /// and [`schedule`](Launch::schedule), with the race detector; the buffers start from their
    /// initial contents. Safe: the simulator checks every access (a bad one is a fault
    /// finding).
    ///
    /// An error is a launch that could not start: unreadable PTX, no such entry point,
    /// arguments that do not fit the kernel's parameters (named), an instruction the simulator
    /// does not run.
    ///
    /// ```
    /// use scoped_atomics::kernel::Dim3;
    /// use scoped_atomics_host::{launch::Launch, sim::{EXAMPLE_PTX, SimError}};
    /// # #[scoped_atomics::kernel]
    /// # pub fn count(_: *mut u32) {}
    /// # #[scoped_atomics::kernel]
    /// # pub fn missing(_: *mut u32) {}
    /// let mut launch = Launch::new(MISSING, Dim3::x(1), Dim3::x(1));
    /// launch.buffer(vec![0u32]);
    /// let e = launch.in_simulator(EXAMPLE_PTX).unwrap_err();
    /// assert!(e.to_string().contains("missing"), "{e}");
    /// // Arguments are checked against the Rust signature first.
    /// let e = Launch::new(COUNT, Dim3::x(1), Dim3::x(1)).in_simulator(EXAMPLE_PTX).unwrap_err();
    /// assert_eq!(e, SimError::BadInput("kernel `count` takes 1 arguments, 0 given".into()));
    /// ```
    pub fn in_simulator(&self, ptx: &str) -> Result<Simulated, SimError> {
        self.check_arguments()
            .map_err(|e| SimError::BadInput(e.to_string()))?;
        let arguments = self
            .arguments
            .iter()
            .map(|argument| match argument {
                Argument::Scalar(bytes) => scalar(bytes),
                &Argument::Pointer { buffer, offset } => sim::Arg::Ptr(buffer, offset as u64),
            })
            .collect();
        let mut launch = sim::Launch::new(extent(self.grid), extent(self.block), arguments);
        launch.buffers = self.contents.iter().map(|c| c.bytes().to_vec()).collect();
        launch.cluster = self.cluster.map(extent);
        launch.dynamic_shared = self.dynamic_shared;
        launch.cooperative = self.cooperative;
        launch.seed = self.seed;
        launch.mode = self.schedule;
        let outcome = sim::Simulator::new(ptx)?
            .kernel(self.kernel.name())?
            .launch(&launch, Vec::new())?;
        let mut contents = self.contents.clone();
        for (buffer, bytes) in contents.iter_mut().zip(&outcome.buffers) {
            buffer.bytes_mut().copy_from_slice(bytes);
        }
        Ok(Simulated {
            buffers: self.results(contents),
            findings: outcome.findings,
            completed: outcome.completed,
            seed: outcome.seed,
            instructions: outcome.instructions,
            printed: outcome.printed,
        })
    }
}

/// A scalar argument for the simulator: a `.u8`…`.u128` parameter by its size, any other size
/// (a struct by value) as its bytes. The host's bytes are the device's (both little-endian).
fn scalar(bytes: &[u8]) -> sim::Arg {
    match *bytes {
        [b] => sim::Arg::U8(b),
        [a, b] => sim::Arg::U16(u16::from_le_bytes([a, b])),
        [a, b, c, d] => sim::Arg::U32(u32::from_le_bytes([a, b, c, d])),
        _ if bytes.len() == 8 => sim::Arg::U64(u64::from_le_bytes(bytes.try_into().unwrap())),
        _ if bytes.len() == 16 => sim::Arg::U128(u128::from_le_bytes(bytes.try_into().unwrap())),
        _ => sim::Arg::Bytes(bytes.to_vec()),
    }
}

#[cfg(target_endian = "big")]
compile_error!(
    "the launch passes the host's bytes to the little-endian simulator and GPU: a big-endian \
     host is not supported"
);
