//! `scoped-atomics-host`: command-line tools of the host side (`cargo host <subcommand>` in the workspace).
//!
//! `cargo run -p scoped-atomics-host --release -- demo` is the project's main job: it installs or finds the
//! tools, builds the kernels to PTX for sm_70, sm_80 and sm_90 (and sm_90 with PTX 8.6), checks
//! every probe against the Atomics ABI table and assembles everything with ptxas, prints a
//! summary per example kernel, runs every example kernel on host threads and checks the results,
//! runs every example and primitive kernel's PTX in the PTX simulator (one line per kernel),
//! runs the tiny-grid loom checks, and runs on the GPU if there is one. Exit status 1 if any
//! step fails.
//!
//! `cargo run -p scoped-atomics-host --release -- sim FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--arg …]… [--seed N] [--schedules K] [--json]`
//! runs a kernel of any PTX module in the simulator: see `scoped_atomics_host::sim::cli`.
//!
//! `cargo run -p scoped-atomics-host --release -- ptx [--target sm_70|sm_80|sm_90|sm_90_ptx86|all] [--jobs N]`
//! builds the probe kernels, checks every probe against the PTX Atomics ABI table, assembles them
//! with ptxas, and prints the results, the CAS-loop counts, registers and instruction counts.
//! `--jobs` configurations are built at a time (default 2).
//! Exit status 1 if anything deviates or fails, 2 on bad usage or missing tools.
//!
//! `cargo run -p scoped-atomics-host --release -- litmus FILE_OR_DIR... [--races] [--json]` decides
//! PTX litmus tests by the axioms of the PTX memory model (see `scoped_atomics_host::litmus`).
//!
//! Long steps show their progress as they go (a spinner per target on a terminal, a line per
//! step otherwise). The default output is a short summary, every column explained once;
//! `--verbose` (for `demo` and `ptx`) adds the per-operation and CAS-loop tables and the
//! per-kernel instruction lists.
//!
//! `ptx --crate PATH [--target T|all] [--out DIR] [--debug] [--no-runtime-unroll]
//! [--no-loop-strength-reduction]` builds a
//! user's kernel crate instead (`T`: any architecture of `scoped_atomics_build::ARCHS`,
//! optionally with a PTX ISA version: `sm_75`, `sm_100`, `sm_70_ptx83`), with
//! [`scoped_atomics_host::build::PtxBuilder`] (every target by default), assembles each PTX with
//! ptxas and lists its kernels; the PTX goes to `DIR` (default `PATH/target/ptx`).
//! `--no-runtime-unroll` is `PtxBuilder::runtime_unroll(false)`: LLVM does not unroll loops of
//! run-time trip count, which keeps a loop around a spin (a ticket lock) from being copied ×4.
//! `--no-loop-strength-reduction` is `PtxBuilder::loop_strength_reduction(false)`: LLVM leaves a
//! loop's address arithmetic to ptxas, which folds an index into a scaled shared-memory access.
//!
//! `new DIR` writes a new kernel project into `DIR`: a copy of the repository's `examples/`
//! workspace whose path dependencies point at this checkout (`cd DIR && cargo test`).

use scoped_atomics_host::abi::AbiTable;
use scoped_atomics_host::build::GpuTarget;
use scoped_atomics_host::conformance::{self, TargetReport};
use scoped_atomics_host::ptx::{Target, Toolchain};
use std::process::ExitCode;

mod cli;

/// `scoped-atomics-host` (`cargo host` in the workspace): the host toolkit's command.
#[derive(Debug, clap::Parser)]
#[command(
    name = "scoped-atomics-host",
    version,
    about = "The host toolkit of scoped-atomics: the demo (main job), the PTX conformance check, \
             building a kernel crate, the PTX simulator, the memory-model checker, new projects",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// The main job: tools, PTX for every target checked against the ABI table and assembled, the
    /// example kernels on host threads, in the simulator and under loom, and on a GPU if there is
    /// one. Exit status 1 if any step fails.
    Demo {
        /// The per-operation and CAS-loop tables and the per-kernel instruction lists.
        #[arg(long)]
        verbose: bool,
    },
    /// Builds the probe kernels, checks every probe against the PTX Atomics ABI table and
    /// assembles them with ptxas (or, with --crate, builds a kernel crate with PtxBuilder). Exit
    /// status 1 if anything deviates or fails, 2 on bad usage or missing tools.
    Ptx(PtxArgs),
    /// Runs a kernel of a PTX module in the simulator (the `ptx-sim` command).
    #[command(after_help = "Exit status: 0 no finding, 1 a finding (printed first), 2 bad input.")]
    Sim(scoped_atomics_host::sim::cli::Options),
    /// Decides PTX litmus tests by the axioms of the PTX memory model (the `ptx-litmus` command).
    #[command(
        after_help = "Exit status: 0 every file decided, 2 a file could not be parsed or is unsupported, or bad usage."
    )]
    Litmus(scoped_atomics_host::litmus::cli::Options),
    /// Writes a new kernel project into DIR: a copy of the repository's examples/ workspace whose
    /// path dependencies point at this checkout (then `cd DIR && cargo test`), with the alias
    /// `cargo host` for this command.
    New {
        /// The directory (must not exist or be empty).
        #[arg(value_name = "DIR")]
        dir: String,
    },
}

#[derive(Debug, clap::Args)]
struct PtxArgs {
    /// The targets: `all`, one of sm_70, sm_80, sm_90, sm_90_ptx86, or with --crate any
    /// architecture from sm_70 on, optionally with a PTX ISA version (sm_75, sm_100, sm_70_ptx83).
    #[arg(long = "target", value_name = "TARGET", default_value = "all", value_parser = targets)]
    targets: Targets,
    /// Configurations built at a time.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    jobs: u64,
    /// The per-operation and CAS-loop tables (with --crate: the per-kernel memory-model
    /// instructions, and for a failed build the cargo command and its whole output).
    #[arg(long)]
    verbose: bool,
    /// Build this kernel crate with PtxBuilder instead of the probe kernels.
    #[arg(long = "crate", value_name = "PATH")]
    kernel_crate: Option<String>,
    /// Where the PTX of --crate goes (default PATH/target/ptx).
    #[arg(long = "out", value_name = "DIR", requires = "kernel_crate")]
    out_dir: Option<String>,
    /// Build --crate in the dev profile.
    #[arg(long, requires = "kernel_crate")]
    debug: bool,
    /// Build --crate without LLVM's runtime loop unrolling (`PtxBuilder::runtime_unroll(false)`):
    /// a loop around a spin (a ticket lock) is not copied ×4.
    #[arg(long, requires = "kernel_crate")]
    no_runtime_unroll: bool,
    /// Build --crate without LLVM's loop strength reduction
    /// (`PtxBuilder::loop_strength_reduction(false)`): ptxas, not LLVM, derives a loop's
    /// addresses from its index.
    #[arg(long, requires = "kernel_crate")]
    no_loop_strength_reduction: bool,
}

/// The targets of `--target`: `all` (the conformance check's four), or one architecture of the
/// builder, optionally with a PTX ISA version (`sm_75`, `sm_70_ptx83`): the conformance check
/// takes only its four, `--crate` any.
#[derive(Debug, Clone)]
enum Targets {
    All,
    One(GpuTarget),
}

/// `--target`: `all` or a [`GpuTarget`] name; an unknown one names the accepted ones.
fn targets(t: &str) -> Result<Targets, String> {
    if t == "all" {
        return Ok(Targets::All);
    }
    GpuTarget::parse(t)
        .map(Targets::One)
        .map_err(|e| format!("{e} (or `all`; a PTX ISA version is written sm_70_ptx83)"))
}

fn main() -> ExitCode {
    use clap::Parser;
    // Rust ignores SIGPIPE, so a write after the reader went away (`cargo host demo | head`)
    // would panic with a backtrace; with the default action the process ends quietly, with the
    // status 141 a shell reports for it, as other Unix tools do.
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any other thread exists; restores the default
    // action of one signal.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    match cli.command {
        Command::Ptx(args) => ptx(args),
        Command::Demo { verbose } => demo::run(verbose),
        Command::New { dir } => new(&dir),
        Command::Litmus(o) => {
            scoped_atomics_host::litmus::cli::run_options("scoped-atomics-host litmus", &o)
        }
        Command::Sim(o) => {
            scoped_atomics_host::sim::cli::run_options("scoped-atomics-host sim", &o)
        }
    }
}

fn ptx(args: PtxArgs) -> ExitCode {
    let jobs = args.jobs as usize;
    let (kernel_crate, out_dir, release, verbose) =
        (args.kernel_crate, args.out_dir, !args.debug, args.verbose);
    if let Some(path) = kernel_crate {
        let targets: Vec<GpuTarget> = match args.targets {
            Targets::All => Target::ALL
                .iter()
                .filter_map(|t| GpuTarget::parse(t.name()).ok())
                .collect(),
            Targets::One(t) => vec![t],
        };
        let options = CrateOptions {
            out: out_dir.as_deref(),
            release,
            runtime_unroll: !args.no_runtime_unroll,
            loop_strength_reduction: !args.no_loop_strength_reduction,
            verbose,
        };
        return ptx_crate(&path, &targets, &options);
    }
    let targets: Vec<Target> = match args.targets {
        Targets::All => Target::ALL.to_vec(),
        Targets::One(t) => match Target::from_name(&t.name()) {
            Some(t) => vec![t],
            None => {
                eprintln!(
                    "scoped-atomics-host ptx: the conformance check builds {}, or all; `{t}` \
                     only with --crate PATH",
                    Target::ALL.map(Target::name).join(", ")
                );
                return ExitCode::from(2);
            }
        },
    };
    let tc = match Toolchain::discover() {
        Ok(tc) => tc,
        Err(e) => {
            eprintln!("scoped-atomics-host ptx: {e}");
            return ExitCode::from(2);
        }
    };
    let table = AbiTable::builtin();
    let mut failed = false;
    let mut reports: Vec<TargetReport> = Vec::new();
    for (target, r) in cli::progress::run_targets(&tc, &targets, &table, jobs) {
        match r {
            Ok(r) => {
                if let Err(e) = &r.ptxas {
                    eprintln!("{target}: {e}");
                    failed = true;
                }
                reports.push(r);
            }
            Err(e) => {
                eprintln!("{target}: {e}");
                failed = true;
            }
        }
    }
    print_tables(&reports, verbose, true);
    let checked: Vec<_> = reports.iter().map(|r| &r.checked).collect();
    for r in &reports {
        if verbose && !r.checked.others.is_empty() {
            println!(
                "{}: other (non-probe) kernels, not checked against the table: {}",
                r.checked.target,
                r.checked.others.join(", ")
            );
        }
        if let Ok(p) = &r.ptxas {
            for w in &p.warnings {
                println!("{}: ptxas: {w}", r.checked.target);
            }
        }
    }
    let devs = conformance::deviations_report(&checked, 50);
    if !devs.is_empty() {
        println!("DEVIATIONS:\n{devs}");
        failed = true;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        println!("all probes conform to the PTX Atomics ABI table and assemble");
        ExitCode::SUCCESS
    }
}

/// The conformance results: the short summary, or with `verbose` the per-operation table (and
/// with `loops` the CAS-loop table) and the per-target summary.
fn print_tables(reports: &[TargetReport], verbose: bool, loops: bool) {
    let all: Vec<_> = reports.iter().collect();
    if verbose {
        let checked: Vec<_> = reports.iter().map(|r| &r.checked).collect();
        println!("{}", conformance::results_table(&checked));
        if loops {
            println!("{}", conformance::loops_table(&checked));
        }
        println!("{}", conformance::summary_table(&all));
    } else {
        println!("{}", cli::summary::short_table(&all));
    }
}

/// `new DIR`: a kernel project (a copy of `examples/` depending on this checkout).
fn new(dir: &str) -> ExitCode {
    let checkout = scoped_atomics_host::ptx::Toolchain::repo_root();
    match scoped_atomics_host::scaffold::new_project(&checkout, std::path::Path::new(dir)) {
        Ok(files) => {
            println!(
                "created {dir} ({} files): a no_std kernel crate (kernels/) and its host crate (app/)",
                files.len()
            );
            let cd = if dir == "." {
                String::new()
            } else {
                format!("cd {dir} && ")
            };
            println!(
                "next: {cd}cargo test   (RUSTFLAGS=\"--cfg loom\" cargo test --release --test loom: \
                 under loom; cargo run: on a GPU, skipped without a driver)"
            );
            println!(
                "`cargo host sim|ptx|demo …` works there too (alias in {dir}/.cargo/config.toml)"
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scoped-atomics-host new: {e}");
            // What the user named is unusable (a file, a non-empty directory, no checkout): bad
            // input, 2; anything else (a full disk, permissions) is a failure of the run, 1.
            use std::io::ErrorKind::{AlreadyExists, NotADirectory, NotFound};
            match e.kind() {
                AlreadyExists | NotADirectory | NotFound => ExitCode::from(2),
                _ => ExitCode::FAILURE,
            }
        }
    }
}

/// The options of `ptx --crate PATH`.
struct CrateOptions<'a> {
    out: Option<&'a str>,
    release: bool,
    runtime_unroll: bool,
    loop_strength_reduction: bool,
    verbose: bool,
}

/// `ptx --crate PATH`: builds a user's kernel crate for each target with `PtxBuilder`, assembles
/// it with ptxas, and lists its kernels.
fn ptx_crate(path: &str, targets: &[GpuTarget], options: &CrateOptions) -> ExitCode {
    let &CrateOptions {
        out,
        release,
        runtime_unroll,
        loop_strength_reduction,
        verbose,
    } = options;
    use scoped_atomics_host::build::{Error, PtxBuilder};
    use scoped_atomics_host::ptx::{self, Item};
    // A path that is no crate is refused before a build (of minutes) is announced.
    if let Err(e) = PtxBuilder::new(path).kernel_crate_manifest() {
        eprintln!("scoped-atomics-host ptx: {e}");
        return ExitCode::from(2);
    }
    let mut failed = false;
    println!(
        "each target: the PTX written, and its kernels (.entry) with their PTX instruction counts{}",
        if verbose {
            " and memory-model instructions"
        } else {
            " (--verbose: each kernel's memory-model instructions)"
        }
    );
    for target in targets {
        let mut builder = PtxBuilder::new(path)
            .gpu_target(target)
            .release(release)
            .runtime_unroll(runtime_unroll)
            .loop_strength_reduction(loop_strength_reduction)
            .verify_with_ptxas(true)
            .verbose(verbose);
        if let Some(dir) = out {
            builder = builder.out_dir(dir);
        }
        let spinner = cli::progress::spinner(format!(
            "{target}: building {path} to PTX and assembling it with ptxas (the first build of a \
             target compiles `core` for it: 2-3 minutes on a 2-core machine; then seconds)"
        ));
        let built = builder.build();
        spinner.finish_and_clear();
        match built {
            Ok(file) => {
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                let kernels = ptx::parse_kernels(&text);
                let entries: Vec<_> = kernels.iter().filter(|k| k.entry).collect();
                let counts: Vec<String> = entries
                    .iter()
                    .map(|k| {
                        let n = ptx::instructions(k)
                            .iter()
                            .filter(|i| matches!(i, Item::Instr(_)))
                            .count();
                        format!("{} ({n} instrs)", k.name)
                    })
                    .collect();
                println!(
                    "{target}: {} — kernels: {}",
                    file.display(),
                    counts.join(", ")
                );
                if verbose {
                    for k in entries {
                        let memory: Vec<String> = ptx::memory_model_sequence(k)
                            .iter()
                            .filter_map(|item| match item {
                                Item::Instr(i) if i.is_memory_model() => Some(i.to_string()),
                                _ => None,
                            })
                            .collect();
                        println!("    {}: {}", k.name, memory.join("; "));
                    }
                }
            }
            Err(e) => {
                eprintln!("{target}: {e}");
                failed = true;
                if matches!(
                    e,
                    Error::MissingToolchain(_)
                        | Error::MissingRustSrc(_)
                        | Error::MissingPtxas(_)
                        | Error::NotAKernelCrate { .. }
                ) {
                    return ExitCode::from(2);
                }
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

mod demo {
    use scoped_atomics_host::abi::AbiTable;
    use scoped_atomics_host::conformance::{self, TargetReport};
    use scoped_atomics_host::ptx::{self, Target, Toolchain};
    use scoped_atomics_host::{examples, gpu};
    use std::process::{Command, ExitCode};
    use std::time::{Duration, Instant};

    fn step(n: usize, title: &str) {
        println!("\n==> [{n}/6] {title}");
    }

    /// The main job: every step runs, whatever failed before it; the exit status is 1 if any failed.
    pub fn run(verbose: bool) -> ExitCode {
        let start = Instant::now();
        let root = Toolchain::repo_root();
        let mut failed: Vec<&str> = Vec::new();

        step(
            1,
            "tools: bash tools/install.sh (pinned nightly with rust-src, ptxas 12.9 and 13.5)",
        );
        let tools = Command::new("bash")
            .arg("tools/install.sh")
            .current_dir(&root)
            .status();
        if !tools.is_ok_and(|s| s.success()) {
            failed.push("tools");
        }

        step(
            2,
            "PTX: build gpu-kernels for sm_70, sm_80, sm_90, sm_90+ptx86; check the probes; ptxas",
        );
        let reports = match Toolchain::discover() {
            Ok(tc) => ptx_step(&tc, &mut failed, verbose),
            Err(e) => {
                println!("    FAILED: {e}");
                failed.push("PTX");
                Vec::new()
            }
        };

        step(3, "host threads: every example kernel, results checked");
        for (name, result) in examples::run_all() {
            match result {
                Ok(()) => println!("    ok      {name}"),
                Err(e) => {
                    println!("    FAILED  {name}: {e}");
                    failed.push("host run");
                }
            }
        }

        step(
            4,
            "simulator: every example and primitive kernel's PTX run by the PTX simulator, results and findings checked",
        );
        let sims: Vec<(String, scoped_atomics_host::sim::Simulator)> = reports
            .iter()
            .filter_map(|r| {
                let text = std::fs::read_to_string(&r.ptx).ok()?;
                let sim = scoped_atomics_host::sim::Simulator::new(&text).ok()?;
                Some((r.checked.target.to_string(), sim))
            })
            .collect();
        let (lines, ok) = scoped_atomics_host::sim::corpus::demo_lines(&sims, 1);
        for line in lines {
            println!("    {line}");
        }
        if !ok {
            failed.push("simulator");
        }

        step(
            5,
            "loom: the example kernels on tiny grids under the loom mirror",
        );
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let loom = Command::new(cargo)
            .current_dir(&root)
            .env("RUSTFLAGS", "--cfg loom")
            .args([
                "test",
                "-p",
                "loom-tests",
                "--release",
                "--target-dir",
                "target/loom",
            ])
            .args(["--test", "kernels", "--", "--test-threads", "2"])
            .status();
        if !loom.is_ok_and(|s| s.success()) {
            println!("    FAILED: the loom checks");
            failed.push("loom");
        }

        step(
            6,
            "GPU: the example kernels through the CUDA driver, if there is one",
        );
        // The PTX for this GPU's architecture (sm_70 where there is none: the step then skips).
        let target = gpu::device_target().unwrap_or(Target::Sm70);
        let built = reports.iter().find(|r| r.checked.target == target);
        match built.map(|r| std::fs::read_to_string(&r.ptx)) {
            Some(Ok(ptx_text)) => {
                let input = examples::histogram_input(10_007, 11);
                let expected = examples::histogram_expected(&input);
                match gpu::run_examples(&ptx_text, &input, &expected) {
                    gpu::GpuRun::Skipped(why) => println!("    {why}"),
                    gpu::GpuRun::Ran(mut checks) => {
                        let ring = gpu::run_ring(&ptx_text, 7, 100, Duration::from_secs(20));
                        match ring {
                            gpu::GpuRun::Ran(ring) => checks.extend(ring),
                            gpu::GpuRun::Skipped(why) => println!("    ring: {why}"),
                        }
                        match gpu::run_grid_barrier(&ptx_text, 4, 64, 5) {
                            gpu::GpuRun::Ran(grid) => checks.extend(grid),
                            gpu::GpuRun::Skipped(why) => println!("    grid barrier: {why}"),
                        }
                        for (name, result) in checks {
                            match result {
                                Ok(()) => println!("    ok      {name} (GPU = host)"),
                                Err(e) => {
                                    println!("    FAILED  {name}: {e}");
                                    failed.push("GPU");
                                }
                            }
                        }
                    }
                }
            }
            _ => println!("    no {target} PTX was built, skipping GPU run"),
        }

        let elapsed = start.elapsed().as_secs_f64();
        if failed.is_empty() {
            println!("\ndemo: every step passed ({elapsed:.0} s)");
            ExitCode::SUCCESS
        } else {
            failed.dedup();
            println!("\ndemo: FAILED: {} ({elapsed:.0} s)", failed.join(", "));
            ExitCode::FAILURE
        }
    }

    /// Builds, checks and assembles every target; prints the tables and a line per example kernel.
    fn ptx_step(tc: &Toolchain, failed: &mut Vec<&str>, verbose: bool) -> Vec<TargetReport> {
        let table = AbiTable::builtin();
        let mut reports = Vec::new();
        for (target, report) in crate::cli::progress::run_targets(tc, &Target::ALL, &table, 2) {
            match report {
                Ok(r) => {
                    let t = &r.timings;
                    let assembled = if r.ptxas.is_ok() { "ok" } else { "FAILED" };
                    println!(
                        "    {target}: built ({:.0} s), {} probes checked, ptxas {assembled} ({:.0} s)",
                        t.build.as_secs_f64(),
                        r.checked.results.len(),
                        t.assemble.as_secs_f64()
                    );
                    if let Err(e) = &r.ptxas {
                        println!("    {target}: {e}");
                        failed.push("PTX");
                    }
                    reports.push(r);
                }
                Err(e) => {
                    println!("    {target}: FAILED: {e}");
                    failed.push("PTX");
                }
            }
        }
        crate::print_tables(&reports, verbose, false);
        let checked: Vec<_> = reports.iter().map(|r| &r.checked).collect();
        let deviations = conformance::deviations_report(&checked, 20);
        if !deviations.is_empty() {
            println!("DEVIATIONS:\n{deviations}");
            failed.push("PTX");
        }
        println!(
            "example kernels: regs = registers (ptxas -v), instrs = PTX instructions of the \
             kernel, mm = memory-model instructions among them{}",
            if verbose {
                ""
            } else {
                " (--verbose lists them)"
            }
        );
        let mut rows = Vec::new();
        for r in &reports {
            let Ok(text) = std::fs::read_to_string(&r.ptx) else {
                continue;
            };
            for kernel in ptx::parse_kernels(&text)
                .iter()
                .filter(|k| r.checked.others.contains(&k.name))
            {
                let instructions = ptx::instructions(kernel)
                    .iter()
                    .filter(|i| matches!(i, ptx::Item::Instr(_)))
                    .count();
                let mut mnemonics: Vec<String> = ptx::memory_model_sequence(kernel)
                    .into_iter()
                    .filter_map(|item| match item {
                        ptx::Item::Instr(i) if i.is_memory_model() => Some(i.mnemonic),
                        _ => None,
                    })
                    .collect();
                let memory_model = mnemonics.len();
                mnemonics.sort();
                mnemonics.dedup();
                rows.push(crate::cli::kernels::KernelRow {
                    target: r.checked.target.name().to_string(),
                    kernel: kernel.name.clone(),
                    registers: r
                        .ptxas
                        .as_ref()
                        .ok()
                        .and_then(|p| p.registers.get(&kernel.name).copied()),
                    instructions,
                    memory_model,
                    mnemonics: mnemonics.join(" "),
                });
            }
        }
        println!("{}", crate::cli::kernels::kernel_table(&rows, verbose));
        reports
    }
}
