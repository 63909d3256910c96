//! The `sim` subcommand:
//!
//! ```text
//! ptx-sim FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--arg KIND:VALUE]...
//!     [--buffer T:…]... [--dynamic-shared BYTES] [--volatile relaxed-sys|plain]
//!     [--warp-lockstep] [--seed N] [--schedules K] [--jobs N] [--resident-ctas N] [--json]
//! ```
//!
//! Kernel parameters in order ([`ARG_HELP`] lists every form, with examples): scalars `u32:V`
//! (also an 8- or 16-bit parameter when V fits), `u64:V`, `i32:V`, `f32:V`, `f64:V`; a pointer
//! to a new global buffer of elements of T (`u8`, `u16`, `u32`, `u64`, `i32`, `f32`, `f64`):
//! N copies of INIT (`buf:T:N[:INIT]`), listed (`buf:T:[V,…]`), read from a file
//! (`buf:T:@FILE`), or a C struct of typed fields (`buf:struct:[FIELD,…]`), where elements and
//! fields may be pointers into buffers (`ptr:B[:OFFSET]`) and device-function addresses
//! (`fn:NAME`); `ptr:B:OFFSET` for a pointer OFFSET bytes into buffer B (the B-th `buf:`
//! argument, from 0, as the output numbers them; OFFSET inside it); `fn:NAME` for a function
//! pointer; `struct:FIELD,…` or `bytes:HEX` for a struct passed by value (of the parameter's
//! size). `--buffer T:…` adds a buffer that is no parameter (numbered after the `buf:`
//! arguments) for pointers to reach. Integers are decimal or `0x` hexadecimal.
//! `--volatile plain` judges `ld/st.volatile` as plain accesses (CUDA C++'s view) instead of
//! relaxed system-scope ones (PTX's, the default). `--warp-lockstep` schedules warp by warp,
//! lane by lane ([`Mode::WarpLockstep`](crate::Mode::WarpLockstep)) instead of at random.
//!
//! Exit status 0: every schedule ran to completion with no finding; 1: a finding (the first line
//! of output is the finding, starting with `race:`, `divergence:`, `hang:` or `fault:`); 2: bad
//! input (each message names what is wrong). The seed is printed so a run can be repeated;
//! schedule `k` of a run uses seed `N + k`. `--jobs N` runs N schedules at a time on N cores
//! (default: every core); the output is the same as one at a time, the first schedule in seed
//! order with a finding reported. `--resident-ctas N` sets how many CTAs are resident at once
//! ([`Launch::resident_ctas`](crate::Launch::resident_ctas); default
//! [`resident_ctas`](crate::resident_ctas), a GPU larger than any shipped). What the kernel prints with `printf` follows the
//! findings, a line per call starting with the thread.

mod args;

use super::{Launch, Mode, Outcome, SimError, Simulator, VolatileMode};
pub use args::{CliArg, Elem, Field};
use args::{buffer_values, number, parse_arg, parse_buffer};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

/// The command's usage line (the first line of `--help`).
///
/// ```
/// assert!(ptx_sim::cli::USAGE.contains("--schedules K"));
/// ```
pub const USAGE: &str = "usage: ptx-sim FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--cluster X[,Y,Z]] [--arg KIND:V | --arg buf:T:N[:INIT] | --arg buf:T:[V,…] | --arg buf:T:@FILE | --arg buf:struct:[FIELD,…] | --arg ptr:B:OFFSET | --arg fn:NAME | --arg struct:FIELD,… | --arg bytes:HEX]... [--buffer T:…]... [--dynamic-shared BYTES] [--volatile relaxed-sys|plain] [--warp-lockstep] [--seed N] [--schedules K] [--jobs N] [--resident-ctas N] [--json]";

/// The `--help` text of `--arg`: every form, with examples.
///
/// ```
/// assert!(ptx_sim::cli::ARG_HELP.contains("fn:NAME") && ptx_sim::cli::ARG_HELP.contains("bytes:HEX"));
/// ```
pub const ARG_HELP: &str = "\
A kernel parameter, in the kernel's order. Integers are decimal or 0x hexadecimal; T is one of
u8, u16, u32, u64, i32, f32, f64.
  u32:V  u64:V  i32:V  f32:V  f64:V
      a scalar (u32:V also fills an 8- or 16-bit parameter when V fits)
  buf:T:N[:INIT]
      a pointer to a new global buffer of N elements of T, each INIT (default 0)
  buf:T:[V,V,...]
      a new buffer given element by element
  buf:T:@FILE
      a new buffer of the elements in FILE (separated by white space or commas)
  buf:struct:[FIELD,FIELD,...]
      a new buffer holding one C struct: FIELD is T:V, ptr:B[:OFFSET], fn:NAME or bytes:HEX,
      each at its natural alignment (8 for ptr: and fn:), the whole padded to the largest
  ptr:B:OFFSET
      a pointer OFFSET bytes into buffer B (OFFSET below its size; buffers are numbered from 0:
      the buf: arguments in order, then the --buffer ones); inside a buffer of u64 or a struct,
      ptr:B[:OFFSET] (OFFSET 0 when left out)
  fn:NAME
      the address of device function NAME (a function pointer); also an element of a u64
      buffer or a struct field
  struct:FIELD,FIELD,...
      a struct passed by value (`.param .align 8 .b8 p[N]`), laid out as buf:struct: lays it
      out; its size must be the parameter's
  bytes:HEX
      a by-value parameter given as its bytes in memory order (two hex digits a byte, after
      an optional 0x)
Examples:
  --arg buf:u32:[0,1,2,3]             four words 0, 1, 2, 3
  --arg buf:u32:1024:0xffffffff       1024 words, each 0xffffffff
  --arg buf:f32:@input.txt            the numbers of input.txt
  --arg buf:u64:[ptr:1,ptr:1:8,0]     two pointers into buffer 1 and a null pointer
  --arg buf:struct:[u32:3,ptr:2]      { uint32_t n; T *data; } with data = buffer 2
  --arg fn:_Z6squarei                 a pointer to device function _Z6squarei
  --arg struct:f32:1.5,u32:7,ptr:0    a by-value struct { float x; uint32_t n; T *p; }
  --arg bytes:0100000002000000        a by-value 8-byte struct of the words 1 and 2
  --arg buf:struct:[u32:4,ptr:1] --buffer u32:4
                                      a state struct pointing to a buffer that is no parameter";

/// A parsed command line: the arguments of `ptx-sim` (and of `cargo host sim`, which embeds
/// these as its `sim` subcommand).
///
/// ```
/// use ptx_sim::cli::parse_options;
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "2,2", "--block", "32"]
///     .map(String::from).to_vec();
/// let o = parse_options(&args).unwrap();
/// assert_eq!((o.grid, o.block, o.seed, o.schedules), ([2, 2, 1], [32, 1, 1], 1, 3));
/// ```
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct Options {
    /// The PTX file.
    #[arg(value_name = "FILE.ptx")]
    pub file: String,
    /// The kernel (`.entry`) to launch.
    #[arg(long, value_name = "NAME")]
    pub kernel: String,
    /// The grid, in blocks: X[,Y,Z], missing dimensions 1.
    #[arg(long, value_name = "X[,Y,Z]", value_parser = grid_dims)]
    pub grid: [u32; 3],
    /// The block, in threads: X[,Y,Z], missing dimensions 1.
    #[arg(long, value_name = "X[,Y,Z]", value_parser = block_dims)]
    pub block: [u32; 3],
    /// Thread-block clusters of X[,Y,Z] blocks (sm_90); default: the shape the kernel declares
    /// (`.reqnctapercluster`), else one block per cluster.
    #[arg(long, value_name = "X[,Y,Z]", value_parser = cluster_dims)]
    pub cluster: Option<[u32; 3]>,
    /// A kernel parameter, in order: u32:V, u64:V, i32:V, f32:V, f64:V, buf:T:N[:INIT],
    /// buf:T:[V,…], buf:T:@FILE, buf:struct:[FIELD,…], ptr:B:OFFSET, fn:NAME, struct:FIELD,…,
    /// bytes:HEX (--help for each, with examples).
    #[arg(long = "arg", value_name = "KIND:VALUE", value_parser = parse_arg, long_help = ARG_HELP)]
    pub args: Vec<CliArg>,
    /// A buffer that is no kernel parameter, numbered after the `buf:` arguments, for pointers
    /// in other buffers and structs to reach: a `buf:` form without `buf:` (`u32:8`,
    /// `u32:[1,2,3]`, `u64:@FILE`, `struct:[u32:1,ptr:0]`).
    #[arg(long = "buffer", value_name = "T:…", value_parser = parse_buffer)]
    pub buffers: Vec<CliArg>,
    /// Bytes of dynamic shared memory (`extern __shared__`), after the static `.shared`
    /// variables.
    #[arg(long, value_name = "BYTES", default_value_t = 0, value_parser = dynamic_shared)]
    pub dynamic_shared: u32,
    /// How volatile accesses are judged: `relaxed-sys` (PTX: relaxed at system scope, strong)
    /// or `plain` (CUDA C++: plain accesses, which race when unordered).
    #[arg(long, value_name = "VIEW", default_value = "relaxed-sys")]
    pub volatile: VolatileView,
    /// Schedule warp by warp, lane by lane, one memory operation each (the lanes of a warp
    /// advance together, as in SIMT lockstep) instead of a seeded random interleaving.
    #[arg(long)]
    pub warp_lockstep: bool,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): cooperative groups' `grid.sync()`
    /// finds its grid workspace (without this flag it traps, as on a device).
    #[arg(long)]
    pub cooperative: bool,
    /// The first schedule's seed: schedule k uses seed + k.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = seed)]
    pub seed: u64,
    /// How many schedules to run (it stops at the first with a finding).
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = schedules)]
    pub schedules: u64,
    /// Schedules run at a time, each on its own core (default: the machine's cores); the
    /// output is the same as with `--jobs 1`.
    #[arg(long, value_name = "N", value_parser = jobs)]
    pub jobs: Option<usize>,
    /// CTAs resident at once (default: a GPU larger than any shipped, 160 SMs of 2048 threads
    /// and 32 CTAs each); the next CTA starts when a resident one finishes.
    #[arg(long, value_name = "N", value_parser = resident)]
    pub resident_ctas: Option<u32>,
    /// One JSON object on standard output instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The `ptx-sim` command line.
#[derive(Debug, clap::Parser)]
#[command(
    name = "ptx-sim",
    version,
    about = "Runs a kernel of a PTX module in the simulator and reports data races (scoped, by the PTX \
             memory model), barrier divergence, hangs and faults",
    after_help = "Exit status: 0 no finding in any schedule, 1 a finding (printed first, starting with \
                  `race:`, `divergence:`, `hang:` or `fault:`), 2 bad input."
)]
struct Command {
    #[command(flatten)]
    options: Options,
}

/// `--volatile`: which view of `volatile` the race detector takes.
///
/// ```
/// use ptx_sim::cli::{VolatileView, parse_options};
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
///     "--volatile", "plain"].map(String::from).to_vec();
/// assert_eq!(parse_options(&args).unwrap().volatile, VolatileView::Plain);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VolatileView {
    /// PTX: relaxed at system scope.
    RelaxedSys,
    /// CUDA C++: plain accesses.
    Plain,
}

impl From<VolatileView> for VolatileMode {
    fn from(v: VolatileView) -> VolatileMode {
        match v {
            VolatileView::RelaxedSys => VolatileMode::RelaxedSys,
            VolatileView::Plain => VolatileMode::Plain,
        }
    }
}

fn dynamic_shared(v: &str) -> Result<u32, String> {
    number(v)
        .and_then(|b| u32::try_from(b).ok())
        .filter(|&b| b <= 1 << 20)
        .ok_or_else(|| format!("--dynamic-shared `{v}` is not a byte count up to 1 MiB"))
}

fn grid_dims(s: &str) -> Result<[u32; 3], String> {
    dims(s, "--grid")
}

fn cluster_dims(s: &str) -> Result<[u32; 3], String> {
    dims(s, "--cluster")
}

fn block_dims(s: &str) -> Result<[u32; 3], String> {
    dims(s, "--block")
}

fn seed(v: &str) -> Result<u64, String> {
    number(v).ok_or_else(|| format!("--seed `{v}` is not a number"))
}

fn schedules(v: &str) -> Result<u64, String> {
    number(v)
        .filter(|&k| k > 0)
        .ok_or_else(|| format!("--schedules `{v}` is not a positive number"))
}

fn jobs(v: &str) -> Result<usize, String> {
    number(v)
        .filter(|&k| k > 0 && k <= 4096)
        .map(|k| k as usize)
        .ok_or_else(|| format!("--jobs `{v}` is not a number of parallel schedules from 1 to 4096"))
}

fn resident(v: &str) -> Result<u32, String> {
    number(v)
        .and_then(|k| u32::try_from(k).ok())
        .filter(|&k| k > 0)
        .ok_or_else(|| format!("--resident-ctas `{v}` is not a positive number of CTAs"))
}

fn dims(s: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{what} `{s}`: expected X[,Y,Z]"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .trim()
            .parse()
            .ok()
            .filter(|&v: &u32| v > 0)
            .ok_or_else(|| format!("{what} `{s}`: `{p}` is not a positive integer"))?;
    }
    Ok(d)
}

/// Parses the arguments after the program name (or after `sim`); the error is clap's message,
/// naming what is wrong (or the help text, for `--help`).
///
/// ```
/// use ptx_sim::cli::parse_options;
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "0", "--block", "1"]
///     .map(String::from).to_vec();
/// assert!(parse_options(&args).unwrap_err().contains("`0` is not a positive integer"));
/// ```
pub fn parse_options(args: &[String]) -> Result<Options, String> {
    parse("ptx-sim", args).map_err(|e| e.to_string())
}

fn parse(program: &str, args: &[String]) -> Result<Options, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Command::command()
        .name(program.to_string())
        .bin_name(program.to_string())
        .try_get_matches_from(std::iter::once(program.to_string()).chain(args.iter().cloned()))?;
    Command::from_arg_matches(&matches).map(|c| c.options)
}

/// Bad input found after parsing (an unreadable file, a decode or launch error): its own
/// message, exit status 2.
fn bad(program: &str, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("{program}: {msg}");
    ExitCode::from(2)
}

/// Runs the `ptx-sim` command on its arguments (those after the program name), printing its
/// results; the exit status is 0 (no finding, or `--help`), 1 (a finding) or 2 (bad input).
///
/// ```
/// use ptx_sim::cli;
/// use std::process::ExitCode;
/// let args: Vec<String> = ["/no/such.ptx", "--kernel", "k", "--grid", "1", "--block", "1"]
///     .map(String::from).to_vec();
/// assert_eq!(cli::main(&args), ExitCode::from(2));
/// ```
pub fn main(args: &[String]) -> ExitCode {
    main_as("ptx-sim", args)
}

/// [`main`] with the program name its messages use (`scoped-atomics-host sim` for the toolkit's
/// subcommand).
///
/// ```
/// use std::process::ExitCode;
/// assert_eq!(ptx_sim::cli::main_as("scoped-atomics-host sim", &["--help".to_string()]), ExitCode::SUCCESS);
/// ```
pub fn main_as(program: &str, args: &[String]) -> ExitCode {
    let o = match parse(program, args) {
        Ok(o) => o,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    run_options(program, &o)
}

/// Runs the simulator on parsed options (what [`main_as`] does after parsing).
pub fn run_options(program: &str, o: &Options) -> ExitCode {
    // A malformed module that slips past the checks must still end as bad input with a
    // message, never with a panic's backtrace.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(|| run(program, o));
    std::panic::set_hook(hook);
    result.unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        bad(
            program,
            format!(
                "the PTX could not be simulated (malformed or outside what the simulator models): {why}"
            ),
        )
    })
}

fn run(program: &str, o: &Options) -> ExitCode {
    let bad = |msg: String| bad(program, msg);
    let text = match std::fs::read(&o.file) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(_) => return bad(format!("{}: not UTF-8 text, not a PTX file", o.file)),
        },
        Err(e) => return bad(format!("cannot read {}: {e}", o.file)),
    };
    let sim = match Simulator::new(&text) {
        Ok(s) => s,
        Err(e) => return bad(format!("{}: {e}", o.file)),
    };
    let kernel = match sim.kernel(&o.kernel) {
        Ok(k) => k,
        Err(e @ SimError::Unsupported(_)) => return bad(format!("{}: {e}", o.file)),
        Err(e) => return bad(format!("{}: {e}", o.file)),
    };
    let inputs = match args::inputs(&o.args, &o.buffers, &sim, &o.kernel, &kernel.param_sizes()) {
        Ok(i) => i,
        Err(e) => return bad(e),
    };
    let sizes = &inputs.elems;
    if let Some(shape) = o.cluster
        && let Some(why) = crate::launch::clusters_unavailable(sim.target())
    {
        let [x, y, z] = shape;
        return bad(format!("{}: `--cluster {x},{y},{z}`: {why}", o.file));
    }
    let launch_for = |k: u64| {
        let mut launch = Launch::new(o.grid, o.block, inputs.args.clone());
        launch.buffers = inputs.buffers.clone();
        launch.pointers = inputs.pointers.clone();
        if o.warp_lockstep {
            launch.mode = Mode::WarpLockstep;
        }
        launch.cluster = o.cluster;
        launch.seed = o.seed.wrapping_add(k);
        launch.dynamic_shared = o.dynamic_shared;
        launch.cooperative = o.cooperative;
        launch.volatile = o.volatile.into();
        launch.resident_ctas = o.resident_ctas;
        launch
    };
    let jobs = o
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
        Ok(p) => p,
        Err(e) => return bad(format!("cannot start {jobs} threads for --jobs: {e}")),
    };
    let mut last: Option<Outcome> = None;
    let mut instructions = 0u64;
    // `jobs` schedules at a time, read in seed order: the first with a finding ends the run, as
    // it does one at a time (the later ones of its batch are dropped unread).
    let mut k = 0;
    'batches: while k < o.schedules {
        let batch = (o.schedules - k).min(jobs as u64);
        let outs: Vec<Result<Outcome, SimError>> = pool.install(|| {
            use rayon::prelude::*;
            (k..k + batch)
                .into_par_iter()
                .map(|k| kernel.launch(&launch_for(k), Vec::new()))
                .collect()
        });
        for out in outs {
            let out = match out {
                Ok(out) => out,
                Err(e) => return bad(e.to_string()),
            };
            instructions += out.instructions;
            let stop = !out.findings.is_empty();
            last = Some(out);
            if stop {
                break 'batches;
            }
        }
        k += batch;
    }
    let out = last.expect("at least one schedule");
    let found = !out.findings.is_empty();
    let mut report = String::new();
    if o.json {
        let buffers: Vec<serde_json::Value> = out
            .buffers
            .iter()
            .zip(sizes)
            .map(|(b, &s)| serde_json::Value::from(buffer_values(b, s)))
            .collect();
        let findings: Vec<String> = out.findings.iter().map(|f| f.text.clone()).collect();
        let obj = serde_json::json!({
            "kernel": o.kernel,
            "seed": out.seed,
            "first_seed": o.seed,
            "schedules": o.schedules,
            "mode": if o.warp_lockstep { "warp-lockstep" } else { "random" },
            "instructions": instructions,
            "buffers": buffers,
            "findings": findings,
            "printed": out.printed,
        });
        let _ = writeln!(report, "{obj}");
    } else {
        for f in &out.findings {
            let _ = writeln!(report, "{f}");
        }
        for line in &out.printed {
            let _ = writeln!(report, "printf {line}");
        }
        let dims = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
        let lockstep = if o.warp_lockstep {
            ", warp lockstep"
        } else {
            ""
        };
        if found {
            let _ = writeln!(
                report,
                "sim: kernel {}, grid {}, block {}{lockstep}: {} finding(s) with seed {} (repeat with --seed {} --schedules 1)",
                o.kernel,
                dims(o.grid),
                dims(o.block),
                out.findings.len(),
                out.seed,
                out.seed
            );
            let _ = writeln!(report, "sim: the PTX lines are those of {}", o.file);
        } else {
            let _ = writeln!(
                report,
                "sim: kernel {}, grid {}, block {}{lockstep}, seed {}, {} schedule(s): no findings ({} PTX instructions executed)",
                o.kernel,
                dims(o.grid),
                dims(o.block),
                o.seed,
                o.schedules,
                instructions
            );
        }
        for (i, (b, &s)) in out.buffers.iter().zip(sizes).enumerate() {
            let v = buffer_values(b, s);
            let shown: Vec<String> = v.iter().take(64).map(|x| x.to_string()).collect();
            let more = if v.len() > 64 {
                format!(" … ({} values)", v.len())
            } else {
                String::new()
            };
            let _ = writeln!(report, "buffer {i}: {}{more}", shown.join(" "));
        }
    }
    if let Some(status) = write_report(program, &report) {
        return status;
    }
    if found {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes the report to standard output; the status to end with if that failed. When the
/// reader went away (`ptx-sim … | head`) nobody is left to read a message: end quietly, with the
/// status a shell gives a process that SIGPIPE ends (128 + 13), so a pipeline still fails. Any
/// other failure (a full disk) is bad output, said on standard error.
fn write_report(program: &str, report: &str) -> Option<ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(report.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => None,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Some(ExitCode::from(141)),
        Err(e) => Some(bad(
            program,
            format!("cannot write the report to standard output: {e}"),
        )),
    }
}
