//! `ptx-litmus FILE_OR_DIR... [--races] [--json] [--dialect ptx|dat3m]` (and `cargo host litmus`): decides litmus tests and
//! prints, per test, `NAME Ok` or `NAME No` (as herd does), or `NAME Deadlock` when no execution
//! completes, followed by the numbers of candidate and consistent executions; a `deadlock:` line
//! per instruction a thread may wait at forever; with `--races` a `races:` line saying they come
//! from every consistent execution (satisfying the condition or not) and a `race:` line per
//! racing pair.
//! Exit status 0 when every file was decided, 2 when any could not be parsed or is unsupported,
//! or on bad usage.

use super::enumerate::{Outcome, decide};
use super::parse::parse_dialect;
use super::program::Dialect;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The arguments of `ptx-litmus` (`cargo host litmus` embeds these as its `litmus` subcommand).
///
/// ```
/// let args: Vec<String> = ["a.litmus", "dir", "--races"].map(String::from).to_vec();
/// let o = ptx_litmus::cli::parse_options(&args).unwrap();
/// assert_eq!((o.inputs.len(), o.races, o.json), (2, true, false));
/// assert_eq!(o.dialect, ptx_litmus::program::Dialect::Ptx);
/// let d = ["--dialect", "dat3m", "a.litmus"].map(String::from).to_vec();
/// assert_eq!(ptx_litmus::cli::parse_options(&d).unwrap().dialect, ptx_litmus::program::Dialect::Dat3m);
/// ```
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct Options {
    /// Litmus files, or directories searched for `*.litmus` files.
    #[arg(value_name = "FILE_OR_DIR", required = true)]
    pub inputs: Vec<PathBuf>,
    /// A `race:` line per racing pair of the consistent executions that complete, whether or not
    /// they satisfy the condition (a race makes the program racy whatever the test asks).
    #[arg(long)]
    pub races: bool,
    /// A JSON array of records on standard output instead of text.
    #[arg(long)]
    pub json: bool,
    /// How `bar.cta.sync`/`bar.cta.arrive` operands are read: `ptx` (barrier, thread count) or
    /// `dat3m` (Dat3M's `INSTANCE, ID, QUORUM`: the first operand only names the instruction).
    #[arg(long, value_enum, default_value = "ptx")]
    pub dialect: Dialect,
}

/// The `ptx-litmus` command line.
#[derive(Debug, clap::Parser)]
#[command(
    name = "ptx-litmus",
    version,
    about = "Decides PTX litmus tests (herd format) by the axioms of the PTX memory model: prints \
             `NAME Ok`, `NAME No` or `NAME Deadlock` per test, with the numbers of candidate and consistent \
             executions",
    after_help = "Exit status: 0 every file decided, 2 a file could not be parsed or is unsupported, or bad usage."
)]
struct Command {
    #[command(flatten)]
    options: Options,
}

/// Parses the arguments after the program name; the error is clap's message (or the help text).
pub fn parse_options(args: &[String]) -> Result<Options, String> {
    parse_command_line("ptx-litmus", args).map_err(|e| e.to_string())
}

fn parse_command_line(program: &str, args: &[String]) -> Result<Options, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Command::command()
        .name(program.to_string())
        .bin_name(program.to_string())
        .try_get_matches_from(std::iter::once(program.to_string()).chain(args.iter().cloned()))?;
    Command::from_arg_matches(&matches).map(|c| c.options)
}

/// Runs the `ptx-litmus` command on its arguments (those after the program name).
///
/// ```
/// use std::process::ExitCode;
/// assert_eq!(ptx_litmus::cli::run(&["--help".to_string()]), ExitCode::SUCCESS);
/// assert_eq!(ptx_litmus::cli::run(&[]), ExitCode::from(2));
/// ```
pub fn run(args: &[String]) -> ExitCode {
    run_as("ptx-litmus", args)
}

/// [`run`] with the program name its messages use (`scoped-atomics-host litmus` for the
/// toolkit's subcommand).
pub fn run_as(program: &str, args: &[String]) -> ExitCode {
    match parse_command_line(program, args) {
        Ok(o) => run_options(program, &o),
        Err(e) => {
            let _ = e.print();
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Decides the files of parsed options and prints the results (what [`run_as`] does after
/// parsing).
pub fn run_options(program: &str, o: &Options) -> ExitCode {
    let (races, json, inputs) = (o.races, o.json, &o.inputs);
    let mut failed = false;
    let mut files = Vec::new();
    for p in inputs {
        let before = files.len();
        if let Err(e) = collect(p, &mut files) {
            eprintln!("{program}: {}: {e}", p.display());
            failed = true;
        } else if p.is_dir() && files.len() == before {
            // A directory that holds no test decides nothing: most likely the wrong one.
            eprintln!("{program}: {}: no *.litmus file in it", p.display());
            failed = true;
        }
    }
    let mut records = Vec::new();
    let mut out = std::io::stdout().lock();
    for f in &files {
        match check_file_in(f, o.dialect) {
            Ok((name, o)) => {
                if json {
                    records.push(json_record(f, &name, &o, races));
                } else if let Err(e) = print_outcome(&mut out, &name, &o, races) {
                    return output_failed(program, &e);
                }
            }
            Err(e) => {
                eprintln!("{e}");
                if json {
                    records
                        .push(serde_json::json!({ "file": f.display().to_string(), "error": e }));
                }
                failed = true;
            }
        }
    }
    if json {
        let text = serde_json::to_string_pretty(&serde_json::Value::Array(records))
            .expect("JSON of plain values");
        if let Err(e) = writeln!(out, "{text}") {
            return output_failed(program, &e);
        }
    }
    if let Err(e) = out.flush() {
        return output_failed(program, &e);
    }
    ExitCode::from(if failed { 2 } else { 0 })
}

/// The status after the results could not be written. When the reader went away
/// (`ptx-litmus … | head`) nobody is left to read a message: end quietly, with the status a
/// shell gives a process that SIGPIPE ends (128 + 13), so a pipeline still fails. Any other
/// failure (a full disk) is said on standard error.
fn output_failed(program: &str, e: &std::io::Error) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::from(141);
    }
    eprintln!("{program}: cannot write the results to standard output: {e}");
    ExitCode::from(2)
}

/// Parses and decides one file; the error names the file (and line and token for syntax errors).
pub fn check_file(f: &Path) -> Result<(String, Outcome), String> {
    check_file_in(f, Dialect::Ptx)
}

/// [`check_file`] in a chosen [`Dialect`].
///
/// ```
/// use ptx_litmus::{cli::check_file_in, program::Dialect};
/// let f = std::env::temp_dir().join(format!("check-file-in-{}.litmus", std::process::id()));
/// std::fs::write(&f, "PTX B\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
///     bar.cta.sync 1 | bar.cta.sync 2 ;\nexists (x == 0)\n").unwrap();
/// let (_, dat3m) = check_file_in(&f, Dialect::Dat3m).unwrap();
/// let (_, ptx) = check_file_in(&f, Dialect::Ptx).unwrap();
/// std::fs::remove_file(&f).unwrap();
/// assert_eq!((dat3m.verdict(), ptx.verdict()), ("Ok", "Deadlock"));
/// ```
pub fn check_file_in(f: &Path, dialect: Dialect) -> Result<(String, Outcome), String> {
    let name = f.display().to_string();
    let text = std::fs::read_to_string(f).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let t = parse_dialect(&name, &text, dialect).map_err(|e| e.to_string())?;
    let o = decide(&t).map_err(|e| format!("{name}: unsupported: {e}"))?;
    Ok((t.name, o))
}

/// A file as is; a directory: every `*.litmus` file under it, sorted.
fn collect(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect(&e, out)?;
            } else if e.extension().is_some_and(|x| x == "litmus") {
                out.push(e);
            }
        }
        Ok(())
    } else if p.exists() {
        out.push(p.to_path_buf());
        Ok(())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such file or directory",
        ))
    }
}

fn print_outcome(
    out: &mut impl Write,
    name: &str,
    o: &Outcome,
    races: bool,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{name} {} (candidates: {}, consistent: {})",
        o.verdict(),
        o.candidates,
        o.consistent
    )?;
    for d in &o.deadlocks {
        writeln!(
            out,
            "deadlock: P{}:{} `{}` waits forever",
            d.thread, d.line, d.text
        )?;
    }
    if races {
        writeln!(
            out,
            "races: {} pair(s) over all {} consistent executions, satisfying the condition or not",
            o.races.len(),
            o.consistent
        )?;
        for r in &o.races {
            writeln!(out, "race: {r}")?;
        }
    }
    Ok(())
}

fn json_record(f: &Path, name: &str, o: &Outcome, races: bool) -> serde_json::Value {
    let mut v = serde_json::json!({
        "file": f.display().to_string(),
        "name": name,
        "verdict": o.verdict(),
        "candidates": o.candidates,
        "consistent": o.consistent,
        "satisfying": o.satisfying,
        "deadlocked": o.deadlocked,
    });
    if !o.deadlocks.is_empty() {
        v["deadlocks"] = o
            .deadlocks
            .iter()
            .map(|s| serde_json::json!({ "thread": s.thread, "line": s.line, "instruction": s.text }))
            .collect();
    }
    if races {
        let site = |s: &super::races::Site| serde_json::json!({ "thread": s.thread, "line": s.line, "instruction": s.text });
        v["races_from"] = "every consistent execution, satisfying the condition or not".into();
        v["races"] = o
            .races
            .iter()
            .map(|r| serde_json::json!([site(&r.a), site(&r.b)]))
            .collect();
    }
    v
}
