//! The `sim` subcommand:
//!
//! ```text
//! scoped-atomics-host sim FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z]
//!     [--arg u32:V | --arg u64:V | --arg buf:u32:N[:INIT] | --arg buf:u64:N[:INIT]]...
//!     [--seed N] [--schedules K] [--json]
//! ```
//!
//! Kernel parameters in order: `u32:V` for a 32-bit parameter (and for an 8- or 16-bit one
//! when V fits), `u64:V` for a 64-bit one, `buf:T:N[:INIT]` for a pointer (N elements of T in
//! a new global buffer, each INIT, default 0). `V` and `INIT` are decimal or `0x` hexadecimal.
//!
//! Exit status 0: every schedule ran to completion with no finding; 1: a finding (the first line
//! of output is the finding, starting with `race:`, `divergence:`, `hang:` or `fault:`); 2: bad
//! input (each message names what is wrong). The seed is printed so a run can be repeated;
//! schedule `k` of a run uses seed `N + k`.

use super::{Arg, Launch, Outcome, SimError, Simulator};
use std::process::ExitCode;

/// The command's usage line, printed with every bad-input message.
///
/// ```
/// assert!(scoped_atomics_host::sim::cli::USAGE.contains("--schedules K"));
/// ```
pub const USAGE: &str = "usage: scoped-atomics-host sim FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--arg u32:V | --arg u64:V | --arg buf:u32:N[:INIT] | --arg buf:u64:N[:INIT]]... [--seed N] [--schedules K] [--json]";

/// A parsed command line.
///
/// ```
/// use scoped_atomics_host::sim::cli::parse_options;
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "2,2", "--block", "32"]
///     .map(String::from).to_vec();
/// let o = parse_options(&args).unwrap();
/// assert_eq!((o.grid, o.block, o.seed, o.schedules), ([2, 2, 1], [32, 1, 1], 1, 3));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The PTX file.
    pub file: String,
    /// `--kernel`.
    pub kernel: String,
    /// `--grid`, missing dimensions 1.
    pub grid: [u32; 3],
    /// `--block`, missing dimensions 1.
    pub block: [u32; 3],
    /// The `--arg`s in order.
    pub args: Vec<CliArg>,
    /// `--seed` (default 1): schedule `k` uses seed + k.
    pub seed: u64,
    /// `--schedules` (default 3).
    pub schedules: u64,
    /// `--json`.
    pub json: bool,
}

/// An `--arg`.
///
/// ```
/// use scoped_atomics_host::sim::cli::{CliArg, parse_options};
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "1", "--block", "1",
///     "--arg", "buf:u64:4:7", "--arg", "u32:0x10"].map(String::from).to_vec();
/// assert_eq!(parse_options(&args).unwrap().args, [CliArg::Buf(8, 4, 7), CliArg::U32(16)]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CliArg {
    /// `u32:V`.
    U32(u32),
    /// `u64:V`.
    U64(u64),
    /// `buf:T:N[:INIT]`: element size in bytes, count, initial value.
    Buf(u32, u64, u64),
}

fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
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
    let bad =
        || format!("argument `{s}`: expected u32:V, u64:V, buf:u32:N[:INIT] or buf:u64:N[:INIT]");
    match parts.as_slice() {
        ["u32", v] => number(v)
            .and_then(|v| u32::try_from(v).ok())
            .map(CliArg::U32)
            .ok_or_else(|| format!("argument `{s}`: `{v}` is not a u32")),
        ["u64", v] => number(v)
            .map(CliArg::U64)
            .ok_or_else(|| format!("argument `{s}`: `{v}` is not a u64")),
        ["buf", ty, rest @ ..] if !rest.is_empty() && rest.len() <= 2 => {
            let size = match *ty {
                "u32" => 4,
                "u64" => 8,
                _ => {
                    return Err(format!(
                        "argument `{s}`: buffer type `{ty}` is not u32 or u64"
                    ));
                }
            };
            let n = number(rest[0])
                .filter(|&n| n > 0 && n <= 1 << 28)
                .ok_or_else(|| {
                    format!("argument `{s}`: `{}` is not a count in 1..2^28", rest[0])
                })?;
            let init = match rest.get(1) {
                Some(i) => number(i)
                    .filter(|&v| size == 8 || v <= u64::from(u32::MAX))
                    .ok_or_else(|| format!("argument `{s}`: `{i}` is not a {ty}"))?,
                None => 0,
            };
            Ok(CliArg::Buf(size, n, init))
        }
        _ => Err(bad()),
    }
}

/// Parses the arguments after `sim`; the error names what is wrong.
///
/// ```
/// use scoped_atomics_host::sim::cli::parse_options;
/// let args: Vec<String> = ["k.ptx", "--kernel", "k", "--grid", "0", "--block", "1"]
///     .map(String::from).to_vec();
/// assert!(parse_options(&args).unwrap_err().contains("`0` is not a positive integer"));
/// ```
pub fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut file = None;
    let (mut kernel, mut grid, mut block) = (None, None, None);
    let mut o = Options {
        file: String::new(),
        kernel: String::new(),
        grid: [1; 3],
        block: [1; 3],
        args: Vec::new(),
        seed: 1,
        schedules: 3,
        json: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--kernel" => kernel = Some(value("--kernel")?),
            "--grid" => grid = Some(dims(&value("--grid")?, "--grid")?),
            "--block" => block = Some(dims(&value("--block")?, "--block")?),
            "--arg" => o.args.push(parse_arg(&value("--arg")?)?),
            "--seed" => {
                let v = value("--seed")?;
                o.seed = number(&v).ok_or_else(|| format!("--seed `{v}` is not a number"))?;
            }
            "--schedules" => {
                let v = value("--schedules")?;
                o.schedules = number(&v)
                    .filter(|&k| k > 0)
                    .ok_or_else(|| format!("--schedules `{v}` is not a positive number"))?;
            }
            "--json" => o.json = true,
            f if f.starts_with("--") => return Err(format!("unknown option `{f}`")),
            f if file.is_none() => file = Some(f.to_string()),
            f => return Err(format!("unexpected argument `{f}`")),
        }
    }
    o.file = file.ok_or("no PTX file given")?;
    o.kernel = kernel.ok_or("--kernel is required")?;
    o.grid = grid.ok_or("--grid is required")?;
    o.block = block.ok_or("--block is required")?;
    Ok(o)
}

fn bad(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("scoped-atomics-host sim: {msg}");
    eprintln!("{USAGE}");
    ExitCode::from(2)
}

fn buffer_values(data: &[u8], size: u32) -> Vec<u64> {
    data.chunks_exact(size as usize)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// Runs the `sim` subcommand on the arguments after `sim`, printing its results; the exit
/// status is 0 (no finding), 1 (a finding) or 2 (bad input).
///
/// ```
/// use scoped_atomics_host::sim::cli;
/// use std::process::ExitCode;
/// let args: Vec<String> = ["/no/such.ptx", "--kernel", "k", "--grid", "1", "--block", "1"]
///     .map(String::from).to_vec();
/// assert_eq!(cli::main(&args), ExitCode::from(2));
/// ```
pub fn main(args: &[String]) -> ExitCode {
    // A malformed module that slips past the checks must still end as bad input with a
    // message, never with a panic's backtrace.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(|| run(args));
    std::panic::set_hook(hook);
    result.unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        bad(format!(
            "the PTX could not be simulated (malformed or outside what the simulator models): {why}"
        ))
    })
}

fn run(args: &[String]) -> ExitCode {
    let o = match parse_options(args) {
        Ok(o) => o,
        Err(e) => return bad(e),
    };
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
    let sizes: Vec<u32> = o
        .args
        .iter()
        .filter_map(|a| match a {
            CliArg::Buf(s, ..) => Some(*s),
            _ => None,
        })
        .collect();
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
            (CliArg::Buf(size, n, init), _) => Arg::Buffer(
                (0..n)
                    .flat_map(|_| init.to_le_bytes()[..size as usize].to_vec())
                    .collect(),
            ),
        });
    }
    let mut last: Option<Outcome> = None;
    let mut instructions = 0u64;
    for k in 0..o.schedules {
        let mut launch = Launch::new(o.grid, o.block, args.clone());
        launch.seed = o.seed.wrapping_add(k);
        let out = match kernel.launch(&launch, Vec::new()) {
            Ok(out) => out,
            Err(e) => return bad(e),
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
            "instructions": instructions,
            "buffers": buffers,
            "findings": findings,
        });
        println!("{obj}");
    } else {
        for f in &out.findings {
            println!("{f}");
        }
        let dims = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
        if found {
            println!(
                "sim: kernel {}, grid {}, block {}: {} finding(s) with seed {} (repeat with --seed {} --schedules 1)",
                o.kernel,
                dims(o.grid),
                dims(o.block),
                out.findings.len(),
                out.seed,
                out.seed
            );
        } else {
            println!(
                "sim: kernel {}, grid {}, block {}, seed {}, {} schedule(s): no findings ({} PTX instructions executed)",
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
            let shown: Vec<String> = v.iter().take(64).map(u64::to_string).collect();
            let more = if v.len() > 64 {
                format!(" … ({} values)", v.len())
            } else {
                String::new()
            };
            println!("buffer {i}: {}{more}", shown.join(" "));
        }
    }
    if found {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
