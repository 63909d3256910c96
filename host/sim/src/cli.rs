//! The `sim` subcommand:
//!
//! ```text
//! ptx-sim FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z]
//!     [--arg KIND:V | --arg buf:T:N[:INIT] | --arg ptr:B:OFFSET]... [--dynamic-shared BYTES]
//!     [--volatile relaxed-sys|plain] [--warp-lockstep] [--seed N] [--schedules K] [--json]
//! ```
//!
//! Kernel parameters in order: scalars `u32:V` (also an 8- or 16-bit parameter when V fits),
//! `u64:V`, `i32:V`, `f32:V`, `f64:V`; `buf:T:N[:INIT]` for a pointer to a new global buffer of
//! N elements of T (`u8`, `u16`, `u32`, `u64`, `i32`, `f32`, `f64`), each INIT (default 0);
//! `ptr:B:OFFSET` for a pointer OFFSET bytes into buffer B (the B-th `buf:` argument, from 0, as
//! the output numbers them; OFFSET inside it). Integers are decimal or `0x` hexadecimal.
//! `--volatile plain` judges `ld/st.volatile` as plain accesses (CUDA C++'s view) instead of
//! relaxed system-scope ones (PTX's, the default). `--warp-lockstep` schedules warp by warp,
//! lane by lane ([`Mode::WarpLockstep`](crate::Mode::WarpLockstep)) instead of at random.
//!
//! Exit status 0: every schedule ran to completion with no finding; 1: a finding (the first line
//! of output is the finding, starting with `race:`, `divergence:`, `hang:` or `fault:`); 2: bad
//! input (each message names what is wrong). The seed is printed so a run can be repeated;
//! schedule `k` of a run uses seed `N + k`. What the kernel prints with `printf` follows the
//! findings, a line per call starting with the thread.

use super::{Arg, Launch, Mode, Outcome, SimError, Simulator, VolatileMode};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

/// The command's usage line (the first line of `--help`).
///
/// ```
/// assert!(ptx_sim::cli::USAGE.contains("--schedules K"));
/// ```
pub const USAGE: &str = "usage: ptx-sim FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--cluster X[,Y,Z]] [--arg KIND:V | --arg buf:T:N[:INIT] | --arg ptr:B:OFFSET]... [--dynamic-shared BYTES] [--volatile relaxed-sys|plain] [--warp-lockstep] [--seed N] [--schedules K] [--json]";

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
    /// A kernel parameter, in order: `u32:V` (also an 8- or 16-bit parameter when V fits),
    /// `u64:V`, `i32:V`, `f32:V`, `f64:V`, or `buf:T:N[:INIT]` for a pointer to a new global
    /// buffer of N elements of T (u8, u16, u32, u64, i32, f32, f64), each INIT (default 0),
    /// or `ptr:B:OFFSET` for a pointer OFFSET bytes into buffer B (the B-th `buf:` argument,
    /// from 0; OFFSET below its size in bytes). Integers are decimal or 0x hexadecimal.
    #[arg(long = "arg", value_name = "KIND:VALUE", value_parser = parse_arg)]
    pub args: Vec<CliArg>,
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

/// The element type of a `buf:` argument.
///
/// ```
/// use ptx_sim::cli::Elem;
/// assert_eq!(Elem::F64.size(), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    U8,
    U16,
    U32,
    U64,
    I32,
    F32,
    F64,
}

impl Elem {
    /// Bytes per element.
    pub fn size(self) -> u32 {
        match self {
            Elem::U8 => 1,
            Elem::U16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::F64 => 8,
        }
    }

    fn parse(name: &str) -> Option<Elem> {
        Some(match name {
            "u8" => Elem::U8,
            "u16" => Elem::U16,
            "u32" => Elem::U32,
            "u64" => Elem::U64,
            "i32" => Elem::I32,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            _ => return None,
        })
    }

    /// The bits of `v` as an element of this type, if it is one.
    fn value(self, v: &str) -> Option<u64> {
        match self {
            Elem::U8 => number(v).filter(|&x| x <= 0xff),
            Elem::U16 => number(v).filter(|&x| x <= 0xffff),
            Elem::U32 => number(v).filter(|&x| x <= u64::from(u32::MAX)),
            Elem::U64 => number(v),
            Elem::I32 => signed(v).map(|x| u64::from(x as u32)),
            Elem::F32 => v.parse::<f32>().ok().map(|x| u64::from(x.to_bits())),
            Elem::F64 => v.parse::<f64>().ok().map(f64::to_bits),
        }
    }

    /// An element's bits shown as a JSON value of its type.
    fn show(self, bits: u64) -> serde_json::Value {
        match self {
            Elem::I32 => serde_json::Value::from(bits as u32 as i32),
            Elem::F32 => serde_json::Value::from(f64::from(f32::from_bits(bits as u32))),
            Elem::F64 => serde_json::Value::from(f64::from_bits(bits)),
            _ => serde_json::Value::from(bits),
        }
    }
}

/// An `--arg`.
///
/// ```
/// use ptx_sim::cli::{CliArg, Elem, parse_options};
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
///     "--arg", "buf:u64:4:7", "--arg", "u32:0x10", "--arg", "f32:-1.5", "--arg", "buf:i32:2:-3"]
///     .map(String::from).to_vec();
/// assert_eq!(
///     parse_options(&args).unwrap().args,
///     [CliArg::Buf(Elem::U64, 4, 7), CliArg::U32(16), CliArg::F32(-1.5), CliArg::Buf(Elem::I32, 2, 0xffff_fffd)]
/// );
/// // A pointer 8 bytes into buffer 0 (checked against the buffer's size when the kernel runs).
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
///     "--arg", "buf:u32:4", "--arg", "ptr:0:8"].map(String::from).to_vec();
/// assert_eq!(parse_options(&args).unwrap().args[1], CliArg::Ptr(0, 8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CliArg {
    /// `u32:V`.
    U32(u32),
    /// `u64:V`.
    U64(u64),
    /// `i32:V`.
    I32(i32),
    /// `f32:V`.
    F32(f32),
    /// `f64:V`.
    F64(f64),
    /// `buf:T:N[:INIT]`: element type, count, the bits of the initial value.
    Buf(Elem, u64, u64),
    /// `ptr:B:OFFSET`: a pointer OFFSET bytes into buffer B (the B-th `buf:` argument).
    Ptr(usize, u64),
}

fn signed(s: &str) -> Option<i32> {
    match s.strip_prefix('-') {
        Some(m) => number(m)
            .and_then(|v| i64::try_from(v).ok())
            .and_then(|v| i32::try_from(-v).ok()),
        None => number(s).and_then(|v| i32::try_from(v).ok()),
    }
}

fn dynamic_shared(v: &str) -> Result<u32, String> {
    number(v)
        .and_then(|b| u32::try_from(b).ok())
        .filter(|&b| b <= 1 << 20)
        .ok_or_else(|| format!("--dynamic-shared `{v}` is not a byte count up to 1 MiB"))
}

fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
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

fn parse_arg(s: &str) -> Result<CliArg, String> {
    let parts: Vec<&str> = s.split(':').collect();
    let bad = || {
        format!(
            "argument `{s}`: expected u32:V, u64:V, i32:V, f32:V, f64:V, buf:T:N[:INIT] with T one of u8, u16, u32, u64, i32, f32, f64, or ptr:B:OFFSET"
        )
    };
    let not_a = |v: &str, what: &str| format!("argument `{s}`: `{v}` is not a {what}");
    match parts.as_slice() {
        ["u32", v] => number(v)
            .and_then(|v| u32::try_from(v).ok())
            .map(CliArg::U32)
            .ok_or_else(|| not_a(v, "u32")),
        ["u64", v] => number(v).map(CliArg::U64).ok_or_else(|| not_a(v, "u64")),
        ["i32", v] => signed(v).map(CliArg::I32).ok_or_else(|| not_a(v, "i32")),
        ["f32", v] => v.parse().map(CliArg::F32).map_err(|_| not_a(v, "f32")),
        ["f64", v] => v.parse().map(CliArg::F64).map_err(|_| not_a(v, "f64")),
        ["buf", ty, rest @ ..] if !rest.is_empty() && rest.len() <= 2 => {
            let elem = Elem::parse(ty).ok_or_else(|| {
                format!(
                    "argument `{s}`: buffer type `{ty}` is not one of u8, u16, u32, u64, i32, f32, f64"
                )
            })?;
            let n = number(rest[0])
                .filter(|&n| n > 0 && n <= 1 << 28)
                .ok_or_else(|| {
                    format!("argument `{s}`: `{}` is not a count in 1..2^28", rest[0])
                })?;
            let init = match rest.get(1) {
                Some(i) => elem.value(i).ok_or_else(|| not_a(i, ty))?,
                None => 0,
            };
            Ok(CliArg::Buf(elem, n, init))
        }
        ["ptr", b, off] => {
            let b = number(b)
                .and_then(|b| usize::try_from(b).ok())
                .ok_or_else(|| not_a(b, "buffer number"))?;
            let off = number(off).ok_or_else(|| not_a(off, "byte offset"))?;
            Ok(CliArg::Ptr(b, off))
        }
        _ => Err(bad()),
    }
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

/// The buffers of the `buf:` arguments (allocated before the arguments, numbered in order) and
/// their element types; a `ptr:B:OFFSET` must point into one of them.
fn buffers(args: &[CliArg]) -> Result<(Vec<Vec<u8>>, Vec<Elem>), String> {
    let mut data = Vec::new();
    let mut elems = Vec::new();
    for a in args {
        if let CliArg::Buf(elem, n, init) = *a {
            data.push(
                (0..n)
                    .flat_map(|_| init.to_le_bytes()[..elem.size() as usize].to_vec())
                    .collect::<Vec<u8>>(),
            );
            elems.push(elem);
        }
    }
    for (k, a) in args.iter().enumerate() {
        if let CliArg::Ptr(b, off) = *a {
            let Some(buffer) = data.get(b) else {
                return Err(format!(
                    "argument {k} (`ptr:{b}:{off}`): no buffer {b}: there {} {} `buf:` argument(s), numbered from 0",
                    if data.len() == 1 { "is" } else { "are" },
                    data.len()
                ));
            };
            if off >= buffer.len() as u64 {
                return Err(format!(
                    "argument {k} (`ptr:{b}:{off}`): offset {off} is outside buffer {b}, which has {} bytes (offsets 0..={})",
                    buffer.len(),
                    buffer.len() - 1
                ));
            }
        }
    }
    Ok((data, elems))
}

fn buffer_values(data: &[u8], elem: Elem) -> Vec<serde_json::Value> {
    data.chunks_exact(elem.size() as usize)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            elem.show(u64::from_le_bytes(b))
        })
        .collect()
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
    let (buffers, sizes) = match buffers(&o.args) {
        Ok(b) => b,
        Err(e) => return bad(e),
    };
    // `u32:V` also fills an 8- or 16-bit parameter (`.u8`, `.u16`, `bool`) when V fits.
    let params = kernel.param_sizes();
    let mut args: Vec<Arg> = Vec::new();
    for (k, a) in o.args.iter().enumerate() {
        args.push(match (*a, params.get(k)) {
            (CliArg::U32(v), Some(1)) => match u8::try_from(v) {
                Ok(v) => Arg::U8(v),
                Err(_) => {
                    return bad(format!(
                        "argument {k} (`u32:{v}`): {v} does not fit kernel `{}`'s 1-byte parameter",
                        o.kernel
                    ));
                }
            },
            (CliArg::U32(v), Some(2)) => match u16::try_from(v) {
                Ok(v) => Arg::U16(v),
                Err(_) => {
                    return bad(format!(
                        "argument {k} (`u32:{v}`): {v} does not fit kernel `{}`'s 2-byte parameter",
                        o.kernel
                    ));
                }
            },
            (CliArg::U32(v), _) => Arg::U32(v),
            (CliArg::U64(v), _) => Arg::U64(v),
            (CliArg::I32(v), _) => Arg::U32(v as u32),
            (CliArg::F32(v), _) => Arg::U32(v.to_bits()),
            (CliArg::F64(v), _) => Arg::U64(v.to_bits()),
            // Every buffer is allocated before the arguments, so a `ptr:` may name any.
            (CliArg::Buf(..), _) => Arg::Ptr(
                o.args[..k]
                    .iter()
                    .filter(|a| matches!(a, CliArg::Buf(..)))
                    .count(),
                0,
            ),
            (CliArg::Ptr(b, off), _) => Arg::Ptr(b, off),
        });
    }
    let mut last: Option<Outcome> = None;
    let mut instructions = 0u64;
    for k in 0..o.schedules {
        let mut launch = Launch::new(o.grid, o.block, args.clone());
        launch.buffers = buffers.clone();
        if o.warp_lockstep {
            launch.mode = Mode::WarpLockstep;
        }
        launch.cluster = o.cluster;
        launch.seed = o.seed.wrapping_add(k);
        launch.dynamic_shared = o.dynamic_shared;
        launch.cooperative = o.cooperative;
        launch.volatile = o.volatile.into();
        let out = match kernel.launch(&launch, Vec::new()) {
            Ok(out) => out,
            Err(e) => return bad(e.to_string()),
        };
        instructions += out.instructions;
        let stop = !out.findings.is_empty();
        last = Some(out);
        if stop {
            break;
        }
    }
    let out = last.expect("at least one schedule");
    let found = !out.findings.is_empty();
    let mut report = String::new();
    if o.json {
        let buffers: Vec<serde_json::Value> = out
            .buffers
            .iter()
            .zip(&sizes)
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
        for (i, (b, &s)) in out.buffers.iter().zip(&sizes).enumerate() {
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
