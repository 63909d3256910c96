//! The types of a launch: its arguments, its configuration and its outcome.

use crate::error::SimError;
use crate::report::Finding;
use crate::sched::Mode;

/// A small PTX module for the examples: kernel `count(u32* sum)` adds each thread's global
/// index into `sum[0]` with a device-scope `red`.
pub const EXAMPLE_PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64

.visible .entry count(
\t.param .u64 count_param_0
)
{
\t.reg .b32 %r<6>;
\t.reg .b64 %rd<3>;

\tld.param.u64 %rd1, [count_param_0];
\tcvta.to.global.u64 %rd2, %rd1;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmad.lo.s32 %r4, %r2, %r3, %r1;
\tred.relaxed.gpu.global.add.u32 [%rd2], %r4;
\tret;
}
";

/// Why a module for `target` cannot launch thread-block clusters, if it cannot: clusters need
/// sm_90 or newer (PTX's `%cluster_*` registers, `barrier.cluster`, `mapa`). A target this
/// cannot read (none, or not `sm_N`) is not refused.
pub(crate) fn clusters_unavailable(target: &str) -> Option<String> {
    let first = target.split(',').next()?.trim();
    let digits: String = first
        .strip_prefix("sm_")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let sm: u32 = digits.parse().ok()?;
    (sm < 90).then(|| {
        format!(
            "thread-block clusters need sm_90 or newer, and this PTX module's `.target` is {first} \
             (compile the kernel for sm_90 or newer, or launch without a cluster shape)"
        )
    })
}

/// A kernel argument, matched against the kernel's parameter sizes.
///
/// ```
/// use ptx_sim::{Arg, EXAMPLE_PTX, Launch, Simulator};
/// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
/// // A 4-byte value for the 8-byte pointer parameter is refused, naming both sizes.
/// let e = kernel.launch(&Launch::new([1; 3], [1; 3], vec![Arg::U32(0)]), Vec::new());
/// assert!(e.unwrap_err().to_string().contains("a 4-byte value for a 8-byte parameter"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A `.u8`/`.s8`/`.b8` parameter.
    U8(u8),
    /// A 16-bit parameter.
    U16(u16),
    /// A 32-bit parameter.
    U32(u32),
    /// A 64-bit parameter.
    U64(u64),
    /// A 128-bit parameter (`u128`/`i128`: `.param .align 16 .b8 name[16]`), little-endian.
    U128(u128),
    /// A new global buffer with these contents; its address is passed. It is numbered after
    /// [`Launch::buffers`] and the buffer arguments before it.
    Buffer(Vec<u8>),
    /// The address of a buffer (by number) plus an offset.
    Ptr(usize, u64),
    /// A parameter passed by value of any size — a struct (`.param .align 8 .b8 p[336]`) — as
    /// the bytes the kernel reads: little-endian fields at their offsets. Its size must be the
    /// parameter's; [`Launch::pointers`] may place buffer addresses into it.
    ///
    /// ```
    /// use ptx_sim::{Arg, Launch, Simulator};
    /// let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
    ///     .visible .entry k(.param .u64 out, .param .align 8 .b8 s[12])\n{\n\
    ///     \t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n\
    ///     \tld.param.u32 %r1, [s+8];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
    /// let kernel = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    /// let fields = [[0u8; 8].as_slice(), &7u32.to_le_bytes()].concat();
    /// let launch = Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 4]), Arg::Bytes(fields)]);
    /// assert_eq!(kernel.launch(&launch, Vec::new()).unwrap().buffers[0], 7u32.to_le_bytes());
    /// ```
    Bytes(Vec<u8>),
}

/// Where [`Launch::pointers`] writes a buffer's 8-byte address.
///
/// ```
/// use ptx_sim::{Arg, EXAMPLE_PTX, Launch, Pointer, Simulator, Slot};
/// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
/// let mut launch = Launch::new([1; 3], [1; 3], vec![Arg::Bytes(vec![0; 8])]);
/// launch.buffers = vec![vec![0; 4]];
/// // The kernel's pointer parameter, given as 8 bytes, is filled with buffer 0's address.
/// launch.pointers = vec![Pointer { slot: Slot::Arg(0, 0), target: 0, offset: 0 }];
/// assert_eq!(kernel.launch(&launch, Vec::new()).unwrap().buffers[0], 0u32.to_le_bytes());
/// // A slot beyond the argument's bytes is refused, naming it.
/// launch.pointers[0].slot = Slot::Arg(0, 4);
/// let e = kernel.launch(&launch, Vec::new()).unwrap_err().to_string();
/// assert!(e.contains("at byte 4 of argument 0, which has 8 bytes"), "{e}");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Buffer `b` (numbered as [`Arg::Ptr`] numbers them), at this byte offset.
    Buffer(usize, u64),
    /// Argument `k` (an [`Arg::Bytes`] struct), at this byte offset.
    Arg(usize, u64),
}

/// A pointer to a buffer placed inside a buffer or a by-value struct before the kernel runs: a
/// linked structure, a state struct with a pointer field.
///
/// ```
/// use ptx_sim::{Arg, EXAMPLE_PTX, Launch, Pointer, Simulator, Slot};
/// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
/// let mut launch = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
/// launch.buffers = vec![vec![0; 16], vec![0; 8]];
/// // Buffer 1 holds the address of byte 8 of buffer 0.
/// launch.pointers = vec![Pointer { slot: Slot::Buffer(1, 0), target: 0, offset: 8 }];
/// let out = kernel.launch(&launch, Vec::new()).unwrap();
/// let (base0, at) = (u64::from_le_bytes(out.buffers[1][..8].try_into().unwrap()), 8);
/// assert_eq!(base0 % (1 << 32), at);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pointer {
    /// Where the address goes.
    pub slot: Slot,
    /// The buffer pointed into (numbered as [`Arg::Ptr`] numbers them).
    pub target: usize,
    /// The byte offset into it.
    pub offset: u64,
}

/// One launch: extents, arguments and how to run it.
///
/// ```
/// use ptx_sim::{Arg, EXAMPLE_PTX, Launch, Mode, Simulator};
/// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
/// let mut launch = Launch::new([2, 1, 1], [64, 1, 1], vec![Arg::Ptr(0, 4)]);
/// launch.buffers = vec![vec![0; 8]]; // the sum lands in the second word
/// launch.mode = Mode::WarpLockstep;
/// let out = kernel.launch(&launch, Vec::new()).unwrap();
/// assert_eq!(out.buffers[0][4..], (0..128u32).sum::<u32>().to_le_bytes());
/// ```
#[derive(Debug, Clone)]
pub struct Launch {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// The kernel's arguments, in order.
    pub args: Vec<Arg>,
    /// Global buffers allocated before the arguments (buffers 0, 1, …), passed by [`Arg::Ptr`]
    /// or reached by host threads.
    pub buffers: Vec<Vec<u8>>,
    /// Buffer addresses to write into buffers and by-value arguments before the kernel runs.
    pub pointers: Vec<Pointer>,
    /// Blocks per thread-block cluster in x, y, z (each divides the grid's), or `None`: the
    /// shape the kernel declares (`.reqnctapercluster`), else clusters of one block. A launch
    /// shape that differs from the declared one is refused.
    pub cluster: Option<[u32; 3]>,
    /// Bytes of dynamic shared memory (after the static `.shared` variables).
    pub dynamic_shared: u32,
    /// The scheduler's seed: the same seed gives the same schedule.
    pub seed: u64,
    /// How threads interleave.
    pub mode: Mode,
    /// Whether the race detector runs (the other findings are always detected).
    pub race_detection: bool,
    /// Scheduling steps without progress before a hang is reported (plus 64 per live thread).
    pub hang_bound: u64,
    /// How the race detector treats `ld.volatile`/`st.volatile`.
    pub volatile: VolatileMode,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): the driver's grid workspace is
    /// passed in `%envreg1:%envreg2`, so cooperative groups' `grid.sync()` works (without it,
    /// as on a device, `grid.sync()` traps). A cooperative launch must fit the resident CTAs
    /// ([`Launch::resident_ctas`]), as on a GPU.
    pub cooperative: bool,
    /// CTAs resident at once, or `None`: [`resident_ctas`](crate::resident_ctas) of the
    /// block's size, a GPU larger than any shipped. CTAs start in order of their index (whole
    /// clusters at a time) and the next starts when a resident cluster has finished, so a
    /// launch's memory follows its resident threads, not its grid.
    pub resident_ctas: Option<u32>,
}

/// How the race detector treats volatile accesses (`ld.volatile`/`st.volatile`, what nvcc
/// emits for CUDA C++ `volatile`).
///
/// * [`VolatileMode::RelaxedSys`] (the default) is the PTX rule (PTX ISA 8.4.2): a volatile
///   access is a relaxed access at system scope, strong, so two volatile accesses of the same
///   bytes are morally strong and never race with each other.
/// * [`VolatileMode::Plain`] is CUDA C++'s view (and that of the published GPU race
///   detectors): `volatile` is no atomic, so a volatile access is a plain one and conflicting
///   volatile accesses unordered by synchronisation race.
///
/// The classic warp-synchronous tail of a reduction, `volatile int *v = s; v[t] += v[t + 16];`
/// by the lanes of one warp with no `__syncwarp`, is race-free in PTX terms and racy in C++
/// terms:
///
/// ```
/// use ptx_sim::{Arg, Launch, Simulator, VolatileMode};
/// let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
///     .visible .entry tail(.param .u64 p)\n{\n\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<4>;\n\
///     \tld.param.u64 %rd1, [p];\n\
///     \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
///     \tld.volatile.global.u32 %r2, [%rd3];\n\tld.volatile.global.u32 %r3, [%rd3+64];\n\
///     \tadd.s32 %r4, %r2, %r3;\n\tst.volatile.global.u32 [%rd3], %r4;\n\tret;\n}\n";
/// let kernel = Simulator::new(ptx).unwrap().kernel("tail").unwrap();
/// let mut launch = Launch::new([1; 3], [32, 1, 1], vec![Arg::Buffer(vec![1; 4 * 48])]);
/// // Lane t reads word t + 16, which lane t + 16 writes: no race in PTX's view...
/// assert!(kernel.launch(&launch, Vec::new()).unwrap().findings.is_empty());
/// // ...a race in C++'s.
/// launch.volatile = VolatileMode::Plain;
/// let out = kernel.launch(&launch, Vec::new()).unwrap();
/// assert!(out.findings[0].text.contains("plain"), "{}", out.findings[0]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VolatileMode {
    /// Relaxed at system scope (the PTX memory model).
    #[default]
    RelaxedSys,
    /// Plain accesses (CUDA C++).
    Plain,
}

impl Launch {
    /// A launch with race detection, the random scheduler and seed 1.
    ///
    /// ```
    /// use ptx_sim::{Launch, Mode};
    /// let l = Launch::new([8, 1, 1], [256, 1, 1], Vec::new());
    /// assert!(l.race_detection && l.mode == Mode::Random && l.seed == 1);
    /// ```
    pub fn new(grid: [u32; 3], block: [u32; 3], args: Vec<Arg>) -> Launch {
        Launch {
            grid,
            block,
            args,
            buffers: Vec::new(),
            pointers: Vec::new(),
            cluster: None,
            dynamic_shared: 0,
            seed: 1,
            mode: Mode::Random,
            race_detection: true,
            hang_bound: 100_000,
            volatile: VolatileMode::RelaxedSys,
            cooperative: false,
            resident_ctas: None,
        }
    }
}

/// What a launch did.
///
/// ```
/// use ptx_sim::{Arg, EXAMPLE_PTX, Launch, Simulator};
/// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
/// let out = kernel
///     .launch(&Launch::new([1; 3], [4, 1, 1], vec![Arg::Buffer(vec![0; 4])]), Vec::new())
///     .unwrap();
/// assert!(out.completed && out.findings.is_empty());
/// assert_eq!(out.buffers[0], 6u32.to_le_bytes());
/// assert_eq!(out.instructions, 4 * 8);
/// ```
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The seed the schedule ran with.
    pub seed: u64,
    /// Findings, the stopping one (hang, divergence, fault) last; races do not stop a run.
    pub findings: Vec<Finding>,
    /// Final contents of each buffer ([`Launch::buffers`], then the buffer arguments), in order.
    pub buffers: Vec<Vec<u8>>,
    /// PTX instructions executed.
    pub instructions: u64,
    /// Whether every thread ran to its end with no finding.
    pub completed: bool,
    /// What the kernel printed with `printf`, a line per call, each starting with the thread's
    /// name (`(block,thread)`).
    pub printed: Vec<String>,
}

/// Writes each of `pointers` (buffer addresses `buffers`, in their regions `buffer_regions` of
/// `regions`) into its buffer or into the parameter bytes `params` of argument `k` at
/// `param_slots[k]` (offset, size); the error names the pointer that does not fit.
pub(crate) fn write_pointers(
    pointers: &[Pointer],
    buffers: &[u64],
    buffer_regions: &[usize],
    regions: &mut [crate::memory::Region],
    params: &mut [u8],
    param_slots: &[(u32, u32)],
) -> Result<(), SimError> {
    for p in pointers {
        let address = buffers.get(p.target).ok_or_else(|| {
            SimError::BadInput(format!(
                "a pointer to buffer {}: there are {} buffers",
                p.target,
                buffers.len()
            ))
        })? + p.offset;
        let (bytes, at, what) = match p.slot {
            Slot::Buffer(b, off) => {
                let region = buffer_regions.get(b).ok_or_else(|| {
                    SimError::BadInput(format!("a pointer placed in buffer {b}: no buffer {b}"))
                })?;
                (&mut regions[*region].data[..], off, format!("buffer {b}"))
            }
            Slot::Arg(k, off) => {
                let &(slot, size) = param_slots.get(k).ok_or_else(|| {
                    SimError::BadInput(format!("a pointer placed in argument {k}: no argument {k}"))
                })?;
                let at = slot as usize;
                (
                    &mut params[at..at + size as usize],
                    off,
                    format!("argument {k}"),
                )
            }
        };
        if at.checked_add(8).is_none_or(|end| end > bytes.len() as u64) {
            return Err(SimError::BadInput(format!(
                "a pointer placed at byte {at} of {what}, which has {} bytes",
                bytes.len()
            )));
        }
        crate::memory::write(bytes, at as usize, 8, address);
    }
    Ok(())
}
