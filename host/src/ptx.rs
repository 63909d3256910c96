//! Building the probe kernels (`gpu-kernels`) to PTX with the pinned nightly, assembling the PTX
//! with `ptxas`, and reading PTX: kernels, their instructions, and the memory-model subsequence
//! the conformance check compares with the Atomics ABI table ([`crate::abi`]).
//!
//! Only `std`: the tools are found through `tools/nightly-toolchain` and `tools/paths.env`, which
//! `bash tools/install.sh` writes.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Why a step failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A tool or component is not installed (the message names it); `bash tools/install.sh`
    /// installs everything. Tests skip on this (fail with `CI=true`).
    Missing(String),
    /// A tool ran and failed, or its output is not what it should be.
    Failed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Missing(what) => write!(f, "{what} (run `bash tools/install.sh`)"),
            Error::Failed(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// The tools that build and assemble PTX: the pinned nightly (with `rust-src`) and `ptxas`.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// The workspace root (`host/..`).
    pub root: PathBuf,
    /// The pinned nightly's name, from `tools/nightly-toolchain`.
    pub nightly: String,
    /// The nightly's sysroot (it has `rust-src`).
    pub sysroot: PathBuf,
    /// `cargo`: the rustup proxy, which understands `+<toolchain>`.
    pub cargo: PathBuf,
    /// ptxas 12.9 (`PTXAS_12`): used for sm_70.
    pub ptxas_12: PathBuf,
    /// ptxas 13.5 (`PTXAS_13`): used for sm_80 and sm_90.
    pub ptxas_13: PathBuf,
}

impl Toolchain {
    /// The workspace root this crate was built in.
    pub fn repo_root() -> PathBuf {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        manifest.parent().unwrap_or(manifest).to_path_buf()
    }

    /// Finds the tools of the workspace this crate was built in.
    pub fn discover() -> Result<Toolchain> {
        Toolchain::discover_in(&Toolchain::repo_root())
    }

    /// Finds the tools of the workspace at `root`; [`Error::Missing`] names the first missing one.
    pub fn discover_in(root: &Path) -> Result<Toolchain> {
        let pin = root.join("tools/nightly-toolchain");
        let nightly = fs::read_to_string(&pin)
            .map_err(|e| Error::Missing(format!("{} ({e})", pin.display())))?
            .trim()
            .to_string();
        if nightly.is_empty() {
            return Err(Error::Failed(format!("{} is empty", pin.display())));
        }
        let cargo = rustup_proxy("cargo");
        let rustc = rustup_proxy("rustc");
        let mut cmd = Command::new(&rustc);
        cmd.arg(format!("+{nightly}")).args(["--print", "sysroot"]);
        clean_env(&mut cmd);
        let out = cmd.output().map_err(|e| {
            Error::Missing(format!("rustup's `rustc` proxy ({}: {e})", rustc.display()))
        })?;
        if !out.status.success() {
            return Err(Error::Missing(format!(
                "the Rust toolchain {nightly} (tools/nightly-toolchain): `rustc +{nightly}` fails: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let core = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
        if !core.is_file() {
            return Err(Error::Missing(format!(
                "the rust-src component of {nightly} (no {})",
                core.display()
            )));
        }
        let env_file = root.join("tools/paths.env");
        let env = fs::read_to_string(&env_file).map_err(|e| {
            Error::Missing(format!(
                "{} ({e}; tools/install.sh writes it)",
                env_file.display()
            ))
        })?;
        let paths = parse_paths_env(&env);
        let tool = |key: &str, what: &str| -> Result<PathBuf> {
            let rel = paths.get(key).ok_or_else(|| {
                Error::Missing(format!("{what}: no {key} in {}", env_file.display()))
            })?;
            let path = root.join(rel);
            if path.is_file() {
                Ok(path)
            } else {
                Err(Error::Missing(format!(
                    "{what}: {key}={rel} in tools/paths.env, but {} is not a file",
                    path.display()
                )))
            }
        };
        Ok(Toolchain {
            root: root.to_path_buf(),
            ptxas_12: tool("PTXAS_12", "ptxas 12.9")?,
            ptxas_13: tool("PTXAS_13", "ptxas 13.5")?,
            nightly,
            sysroot,
            cargo,
        })
    }

    /// The `ptxas` for `target`.
    pub fn ptxas(&self, target: Target) -> &Path {
        match target {
            Target::Sm70 => &self.ptxas_12,
            Target::Sm80 | Target::Sm90 | Target::Sm90Ptx86 => &self.ptxas_13,
        }
    }

    /// `target/ptx/<config>` under the workspace root: the config's own target directory.
    pub fn target_dir(&self, target: Target) -> PathBuf {
        self.root.join("target/ptx").join(target.name())
    }
}

/// `KEY=VALUE` lines; `#` comments and blank lines skipped.
pub fn parse_paths_env(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// The rustup proxy `name` (`$CARGO_HOME/bin/<name>` or `~/.cargo/bin/<name>`), else `name` on
/// `PATH`. `$CARGO`, which cargo sets for tests, is the outer toolchain's binary, not a proxy.
fn rustup_proxy(name: &str) -> PathBuf {
    let homes = [
        std::env::var_os("CARGO_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")),
    ];
    homes
        .into_iter()
        .flatten()
        .map(|home| home.join("bin").join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Removes what an outer `cargo test`/`cargo run` (or the user's shell) may have set that would
/// change the inner build: the toolchain rustup chose, flags (`--cfg loom`), wrappers, the target
/// dir, profile overrides. Keeps `CARGO_HOME` and the network/registry/terminal settings.
pub fn clean_env(cmd: &mut Command) {
    const REMOVE: &[&str] = &[
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_BOOTSTRAP",
        "RUSTUP_TOOLCHAIN",
        "RUSTUP_TOOLCHAIN_SOURCE",
        "CARGO",
        "MAKEFLAGS",
        "MFLAGS",
    ];
    const KEEP: &[&str] = &[
        "CARGO_HOME",
        "CARGO_NET_",
        "CARGO_HTTP_",
        "CARGO_REGISTRY_",
        "CARGO_REGISTRIES_",
        "CARGO_TERM_",
    ];
    for (key, _) in std::env::vars_os() {
        let Some(k) = key.to_str() else { continue };
        let cargo_var = (k.starts_with("CARGO_") && !KEEP.iter().any(|p| k.starts_with(p)))
            || k.starts_with("__CARGO");
        if REMOVE.contains(&k) || cargo_var {
            cmd.env_remove(&key);
        }
    }
    // Never install a toolchain behind the user's back: that is tools/install.sh's job.
    cmd.env("RUSTUP_AUTO_INSTALL", "0");
}

/// The four build configurations of the probe kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// `-C target-cpu=sm_70`; ptxas 12.9.
    Sm70,
    /// `-C target-cpu=sm_80`; ptxas 13.5.
    Sm80,
    /// `-C target-cpu=sm_90` (PTX ISA 7.8, `.cluster` scope); ptxas 13.5.
    Sm90,
    /// `-C target-cpu=sm_90 -C target-feature=+ptx86` (PTX ISA 8.6: `fence.acquire`/`.release`).
    Sm90Ptx86,
}

impl Target {
    pub const ALL: [Target; 4] = [Target::Sm70, Target::Sm80, Target::Sm90, Target::Sm90Ptx86];

    /// The config name: `sm_70`, `sm_80`, `sm_90`, `sm_90_ptx86`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Sm70 => "sm_70",
            Target::Sm80 => "sm_80",
            Target::Sm90 => "sm_90",
            Target::Sm90Ptx86 => "sm_90_ptx86",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The target's `-C` flags: the SM and, for `sm_90_ptx86`, the PTX ISA version.
    pub fn target_flags(self) -> &'static str {
        match self {
            Target::Sm70 => "-C target-cpu=sm_70",
            Target::Sm80 => "-C target-cpu=sm_80",
            Target::Sm90 => "-C target-cpu=sm_90",
            Target::Sm90Ptx86 => "-C target-cpu=sm_90 -C target-feature=+ptx86",
        }
    }

    /// `RUSTFLAGS` of the build: the target flags (through `RUSTFLAGS`, so that the dependency
    /// crates see the target features too) and what makes one crate's PTX self-contained —
    /// the PTX of an rlib holds only that crate's code, so every function it calls must be
    /// inlinable: panics abort in place (`-Cpanic=immediate-abort`) instead of calling `core`'s
    /// panic machinery, and every function of every crate may be inlined across crates
    /// (`-Zcross-crate-inline-threshold=always`). Otherwise ptxas finds them unresolved.
    pub fn rustflags(self) -> String {
        format!(
            "{} -Zunstable-options -Cpanic=immediate-abort -Zcross-crate-inline-threshold=always",
            self.target_flags()
        )
    }

    /// `ptxas -arch=`, which is also the PTX `.target`.
    pub fn arch(self) -> &'static str {
        match self {
            Target::Sm70 => "sm_70",
            Target::Sm80 => "sm_80",
            Target::Sm90 | Target::Sm90Ptx86 => "sm_90",
        }
    }

    /// Whether the `.cluster` scope (and so the cluster probes) exists: sm_90.
    pub fn has_cluster_scope(self) -> bool {
        matches!(self, Target::Sm90 | Target::Sm90Ptx86)
    }

    /// Whether `fence.acquire`/`fence.release` exist: sm_90 with PTX ISA 8.6.
    pub fn has_split_fences(self) -> bool {
        matches!(self, Target::Sm90Ptx86)
    }

    /// Whether the 128-bit atomics (and so the `u128`/`i128` probes) exist: `ld`/`st` `.b128`
    /// need PTX ISA 8.3, `atom.cas.b128`/`atom.exch.b128` sm_90 with PTX ISA 8.3, and `.b128` at
    /// `.sys` PTX ISA 8.4; of the four targets only sm_90 with PTX ISA 8.6 has them.
    pub fn has_b128_atomics(self) -> bool {
        matches!(self, Target::Sm90Ptx86)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `cmd` as a shell-like line, for error messages.
fn show(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            s += &format!("{}={:?} ", k.to_string_lossy(), v.to_string_lossy());
        }
    }
    s += &cmd.get_program().to_string_lossy();
    for a in cmd.get_args() {
        s.push(' ');
        s += &a.to_string_lossy();
    }
    s
}

fn run(cmd: &mut Command, what: &str) -> Result<Output> {
    cmd.output()
        .map_err(|e| Error::Failed(format!("{what}: cannot run `{}`: {e}", show(cmd))))
}

/// The `cargo rustc` command that builds `gpu-kernels` for `target` and writes its PTX to `out`.
pub fn build_command(tc: &Toolchain, target: Target, out: &Path) -> Command {
    let mut cmd = Command::new(&tc.cargo);
    clean_env(&mut cmd);
    cmd.current_dir(&tc.root)
        .env("RUSTFLAGS", target.rustflags())
        .arg(format!("+{}", tc.nightly))
        .args(["rustc", "-p", "gpu-kernels", "-Zbuild-std=core"])
        .args(["--target", "nvptx64-nvidia-cuda", "--release"])
        .arg("--target-dir")
        .arg(tc.target_dir(target))
        .args(["--config", "profile.release.codegen-units=1", "--"]);
    let mut emit = OsString::from("--emit=asm=");
    emit.push(out);
    cmd.arg(emit);
    cmd
}

/// Builds the probe kernels for `target` into `target/ptx/<config>/gpu-kernels.ptx` and returns
/// that path. On failure the error carries the command and cargo's stderr.
pub fn build_ptx(tc: &Toolchain, target: Target) -> Result<PathBuf> {
    let dir = tc.target_dir(target);
    let out = dir.join("gpu-kernels.ptx");
    for attempt in 0..2 {
        let mut cmd = build_command(tc, target, &out);
        let output = run(&mut cmd, "building the PTX")?;
        if !output.status.success() {
            return Err(Error::Failed(format!(
                "building the {target} PTX failed ({}):\n$ {}\n{}",
                output.status,
                show(&cmd),
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        if out.is_file() {
            return Ok(out);
        }
        if attempt == 0 {
            // Cargo found the build fresh but the PTX was deleted since: forget gpu-kernels'
            // fingerprint so that rustc runs (and writes it) again.
            let fingerprints = dir.join("nvptx64-nvidia-cuda/release/.fingerprint");
            if let Ok(entries) = fs::read_dir(&fingerprints) {
                for entry in entries.flatten() {
                    if entry
                        .file_name()
                        .to_string_lossy()
                        .starts_with("gpu-kernels-")
                    {
                        let _ = fs::remove_dir_all(entry.path());
                    }
                }
            }
        }
    }
    Err(Error::Failed(format!(
        "building the {target} PTX succeeded but wrote no {}",
        out.display()
    )))
}

/// What `ptxas -v` said about an assembled PTX file.
#[derive(Debug, Clone, Default)]
pub struct PtxasReport {
    /// The cubin written.
    pub cubin: PathBuf,
    /// Registers used, per function (`ptxas info : Used N registers`).
    pub registers: BTreeMap<String, u32>,
    /// Warning lines, if any.
    pub warnings: Vec<String>,
    /// Whether this is the stored log of an earlier run on the same PTX (see [`assemble`]).
    pub cached: bool,
}

impl PtxasReport {
    /// The fewest and most registers any function uses.
    pub fn register_range(&self) -> Option<(u32, u32)> {
        let min = self.registers.values().min()?;
        let max = self.registers.values().max()?;
        Some((*min, *max))
    }
}

/// The `.extern` declarations of a PTX text (each must be resolved by linking, which we never do).
pub fn extern_declarations(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(|l| strip_comment(l).trim())
        .filter(|l| l.split_whitespace().any(|w| w == ".extern"))
        .map(str::to_string)
        .collect()
}

/// Assembles `ptx` for `target` with `ptxas -v -arch=<arch> <ptx> -o <ptx>.cubin` (and
/// `-split-compile=0`): succeeds if ptxas reports no error and the PTX declares nothing `.extern`
/// (whole-program: nothing may stay unresolved); returns the per-function register counts.
///
/// A successful run is cached next to the PTX (`<ptx>.assembled.ptx`, `.ptxas.log`, `.ptxas.key`):
/// if the PTX is byte for byte the one assembled last time, by the same ptxas with the same
/// arguments, and the cubin is still there, the stored log is used (ptxas takes 15–90 s per
/// config). `PTXAS_NO_CACHE=1` always runs ptxas. Failures are never cached.
pub fn assemble(tc: &Toolchain, ptx: &Path, target: Target) -> Result<PtxasReport> {
    let text = fs::read_to_string(ptx)
        .map_err(|e| Error::Failed(format!("reading {}: {e}", ptx.display())))?;
    let cubin = ptx.with_extension("cubin");
    let cache_ptx = ptx.with_extension("assembled.ptx");
    let cache_log = ptx.with_extension("ptxas.log");
    let cache_key = ptx.with_extension("ptxas.key");
    let forget = || {
        for f in [&cubin, &cache_ptx, &cache_log, &cache_key] {
            let _ = fs::remove_file(f);
        }
    };
    let externs = extern_declarations(&text);
    if !externs.is_empty() {
        forget();
        let functions = parse_kernels(&text);
        let mut msg = format!(
            "{} declares {} `.extern` symbol(s), which nothing links (ptxas: \"Unresolved extern \
             function\"):",
            ptx.display(),
            externs.len()
        );
        for e in &externs {
            let name = e
                .split_whitespace()
                .last()
                .unwrap_or_default()
                .trim_end_matches(['(', ';']);
            let users: Vec<&str> = functions
                .iter()
                .filter(|f| f.body.iter().any(|l| l.contains(name)))
                .map(|f| f.name.as_str())
                .collect();
            msg += &format!("\n  {e}\n      used by: {}", users.join(", "));
        }
        return Err(Error::Failed(msg));
    }
    let ptxas = tc.ptxas(target);
    let mut cmd = Command::new(ptxas);
    // `-split-compile=0`: optimise functions on all CPUs; same registers, about half the time.
    cmd.args(["-v", "-split-compile=0"])
        .arg(format!("-arch={}", target.arch()))
        .arg(ptx)
        .arg("-o")
        .arg(&cubin);
    let key = {
        let meta = fs::metadata(ptxas).ok();
        format!(
            "{}\nptxas size {:?} modified {:?}\n",
            show(&cmd),
            meta.as_ref().map(|m| m.len()),
            meta.and_then(|m| m.modified().ok())
        )
    };
    let no_cache = std::env::var("PTXAS_NO_CACHE").is_ok_and(|v| v == "1" || v == "true");
    let cached_log = (!no_cache
        && cubin.is_file()
        && fs::read_to_string(&cache_key).is_ok_and(|k| k == key)
        && fs::read(&cache_ptx).is_ok_and(|p| p == text.as_bytes()))
    .then(|| fs::read_to_string(&cache_log).ok())
    .flatten();
    if let Some(log) = cached_log {
        let mut report = parse_ptxas_log(&log);
        report.cubin = cubin;
        report.cached = true;
        return Ok(report);
    }
    forget();
    let output = run(&mut cmd, "assembling the PTX")?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let errors: Vec<&str> = log.lines().filter(|l| is_ptxas_error(l)).collect();
    if !output.status.success() || !errors.is_empty() || !cubin.is_file() {
        forget();
        return Err(Error::Failed(format!(
            "ptxas failed on the {target} PTX ({}):\n$ {}\n{}",
            output.status,
            show(&cmd),
            if errors.is_empty() {
                log.clone()
            } else {
                errors.join("\n")
            }
        )));
    }
    // Best effort: a cache that cannot be written is only slower next time.
    let _ = fs::write(&cache_ptx, &text)
        .and_then(|()| fs::write(&cache_log, &log))
        .and_then(|()| fs::write(&cache_key, &key));
    let mut report = parse_ptxas_log(&log);
    report.cubin = cubin;
    Ok(report)
}

/// `ptxas fatal : …`, `ptxas error : …`, `<file>, line N; error : …`.
fn is_ptxas_error(line: &str) -> bool {
    let l = line.trim_start().to_ascii_lowercase();
    l.starts_with("ptxas fatal")
        || l.starts_with("ptxas error")
        || l.contains("; error")
        || l.contains("unresolved extern")
}

/// `ptxas warning : …`, `<file>, line N; warning : …`.
fn is_ptxas_warning(line: &str) -> bool {
    let l = line.trim_start().to_ascii_lowercase();
    l.starts_with("ptxas warning") || l.contains("; warning")
}

/// Reads `ptxas -v` output: registers per function, and warnings.
pub fn parse_ptxas_log(log: &str) -> PtxasReport {
    let mut report = PtxasReport::default();
    let mut current: Option<String> = None;
    for line in log.lines() {
        let quoted = |l: &str| l.split('\'').nth(1).map(str::to_string);
        if line.contains("Compiling entry function") || line.contains("Compiling function") {
            current = quoted(line);
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(rest.trim().to_string());
        } else if let Some(rest) = line.split(": Used ").nth(1) {
            let n = rest.split_whitespace().next().and_then(|n| n.parse().ok());
            if let (Some(f), Some(n)) = (&current, n) {
                report.registers.insert(f.clone(), n);
            }
        } else if is_ptxas_warning(line) {
            report.warnings.push(line.trim().to_string());
        }
    }
    report
}

/// A kernel (`.entry`) or function (`.func`) of a PTX text with a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub name: String,
    /// `.entry` (a kernel) rather than `.func`.
    pub entry: bool,
    /// The lines between the body's outer braces, as written.
    pub body: Vec<String>,
}

/// The header of the PTX text: `.version` and `.target`.
pub fn ptx_header(ptx: &str) -> (Option<String>, Option<String>) {
    let directive = |d: &str| {
        ptx.lines()
            .map(|l| strip_comment(l).trim())
            .find_map(|l| l.strip_prefix(d))
            .map(|rest| rest.trim().to_string())
    };
    (directive(".version "), directive(".target "))
}

fn strip_comment(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// The name declared by a `.entry`/`.func` header line, and whether it is an entry.
fn function_header(line: &str) -> Option<(String, bool)> {
    let mut rest = line.trim();
    loop {
        let word = rest.split_whitespace().next()?;
        match word {
            ".visible" | ".weak" | ".extern" | ".common" => rest = rest[word.len()..].trim_start(),
            _ => break,
        }
    }
    let (entry, mut rest) = if let Some(r) = rest.strip_prefix(".entry") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix(".func") {
        (false, r)
    } else {
        return None;
    };
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    rest = rest.trim_start();
    if rest.starts_with('(') {
        // `.func (.param .b32 retval) name(`
        rest = rest[rest.find(')')? + 1..].trim_start();
    }
    let end = rest
        .find(|c: char| c == '(' || c == ';' || c.is_whitespace())
        .unwrap_or(rest.len());
    let name = &rest[..end];
    (!name.is_empty()).then(|| (name.to_string(), entry))
}

/// The functions with a body in `ptx`, in order of appearance.
pub fn parse_kernels(ptx: &str) -> Vec<Kernel> {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut kernels = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((name, entry)) = function_header(strip_comment(lines[i])) else {
            i += 1;
            continue;
        };
        // Parameters, `.noreturn`, `.maxntid`…, until the body's `{` or a declaration's `;`.
        let mut j = i;
        let mut open = None;
        while j < lines.len() {
            let l = strip_comment(lines[j]).trim();
            if l.starts_with('{') {
                open = Some(j);
                break;
            }
            if l.ends_with(';') {
                break;
            }
            j += 1;
        }
        let Some(open) = open else {
            i = j + 1;
            continue;
        };
        let mut depth = 0i32;
        let mut body = Vec::new();
        let mut k = open;
        while k < lines.len() {
            let code = strip_comment(lines[k]);
            let before = depth;
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            if k > open && !(depth == 0 && code.trim() == "}") {
                body.push(lines[k].to_string());
            } else if k == open && before == 0 && code.trim() != "{" {
                // `{` followed by code on the same line.
                body.push(code.trim().trim_start_matches('{').to_string());
            }
            if depth <= 0 {
                break;
            }
            k += 1;
        }
        kernels.push(Kernel { name, entry, body });
        i = k + 1;
    }
    kernels
}

/// One executable line of a body: a label or an instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// `name:` (the name without the colon).
    Label(String),
    Instr(Instr),
}

/// An instruction: `[@guard] mnemonic operands`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instr {
    /// `@%p1` / `@!%p1`, if predicated.
    pub guard: Option<String>,
    /// `atom.acq_rel.gpu.cas.b32`.
    pub mnemonic: String,
    /// The operands, whitespace normalised (`%r1, [%rd2], %r3`).
    pub operands: String,
}

impl Instr {
    /// `bra`, `bra.uni`, `brx.idx`: a branch.
    pub fn is_branch(&self) -> bool {
        let m = self.mnemonic.as_str();
        m == "bra" || m.starts_with("bra.") || m.starts_with("brx.")
    }

    /// The label a direct branch jumps to.
    pub fn branch_target(&self) -> Option<&str> {
        if self.mnemonic == "bra" || self.mnemonic.starts_with("bra.") {
            self.operands
                .split([',', ' '])
                .next()
                .filter(|s| !s.is_empty())
        } else {
            None
        }
    }

    /// A memory-model instruction: `ld.` (but not `ld.param.`), `st.`, `atom.`, `red.`, `fence`,
    /// `membar`, `cp.`, `mbarrier`.
    pub fn is_memory_model(&self) -> bool {
        let m = self.mnemonic.as_str();
        (m.starts_with("ld.") && !m.starts_with("ld.param."))
            || ["st.", "atom.", "red.", "fence", "membar", "cp.", "mbarrier"]
                .iter()
                .any(|p| m.starts_with(p))
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "{g} ")?;
        }
        f.write_str(&self.mnemonic)?;
        if !self.operands.is_empty() {
            write!(f, " {}", self.operands)?;
        }
        Ok(())
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Label(l) => write!(f, "{l}:"),
            Item::Instr(i) => i.fmt(f),
        }
    }
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The labels and instructions of a body, in order; directives (`.reg`…), comments and scoping
/// braces skipped; several `;`-separated statements on a line split.
pub fn instructions(kernel: &Kernel) -> Vec<Item> {
    let mut items = Vec::new();
    for line in &kernel.body {
        let code = strip_comment(line).trim();
        if code.is_empty() || code.starts_with('.') {
            continue;
        }
        for stmt in code.split(';') {
            let mut stmt = stmt
                .trim()
                .trim_start_matches('{')
                .trim_end_matches('}')
                .trim();
            // Labels, possibly followed by a statement.
            while let Some(word) = stmt.split_whitespace().next() {
                match word.strip_suffix(':') {
                    Some(label) if !label.is_empty() && !label.contains(',') => {
                        items.push(Item::Label(label.to_string()));
                        stmt = stmt[word.len()..].trim_start();
                    }
                    _ => break,
                }
            }
            if stmt.is_empty() || stmt.starts_with('.') {
                continue;
            }
            let mut words = stmt.splitn(2, char::is_whitespace);
            let mut first = words.next().unwrap_or_default();
            let mut rest = words.next().unwrap_or_default().trim_start();
            let mut guard = None;
            if first.starts_with('@') {
                guard = Some(first.to_string());
                let mut w = rest.splitn(2, char::is_whitespace);
                first = w.next().unwrap_or_default();
                rest = w.next().unwrap_or_default();
            }
            items.push(Item::Instr(Instr {
                guard,
                mnemonic: first.to_string(),
                operands: squash(rest),
            }));
        }
    }
    items
}

/// The memory-model instructions of a kernel (see [`Instr::is_memory_model`]) with its labels
/// and branches, which show the loop structure.
pub fn memory_model_sequence(kernel: &Kernel) -> Vec<Item> {
    instructions(kernel)
        .into_iter()
        .filter(|item| match item {
            Item::Label(_) => true,
            Item::Instr(i) => i.is_memory_model() || i.is_branch(),
        })
        .collect()
}

/// Renames registers (per class, by first appearance: `%r12` → `%r0`, `%rd3` → `%rd0`) and labels
/// (`$L__BB1170_1` → `L0`) and normalises whitespace, so that a sequence does not change when
/// unrelated code around it does.
#[derive(Debug, Default)]
pub struct Normaliser {
    registers: BTreeMap<String, BTreeMap<String, usize>>,
    labels: BTreeMap<String, usize>,
}

impl Normaliser {
    pub fn new() -> Normaliser {
        Normaliser::default()
    }

    fn label(&mut self, name: &str) -> String {
        let n = self.labels.len();
        format!("L{}", self.labels.entry(name.to_string()).or_insert(n))
    }

    /// `text` with its registers and labels renamed.
    pub fn text(&mut self, text: &str) -> String {
        let mut out = String::new();
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '%' || c == '$' {
                let start = i + 1;
                let mut j = start;
                while j < chars.len()
                    && (chars[j].is_ascii_alphanumeric() || chars[j] == '_' || chars[j] == '$')
                {
                    j += 1;
                }
                let word: String = chars[start..j].iter().collect();
                if c == '$' && !word.is_empty() {
                    out += &self.label(&format!("${word}"));
                    i = j;
                    continue;
                }
                let digits = word.trim_start_matches(|ch: char| ch.is_ascii_alphabetic());
                let class = &word[..word.len() - digits.len()];
                if !class.is_empty()
                    && !digits.is_empty()
                    && digits.chars().all(|d| d.is_ascii_digit())
                {
                    let regs = self.registers.entry(class.to_string()).or_default();
                    let n = regs.len();
                    let k = *regs.entry(digits.to_string()).or_insert(n);
                    out += &format!("%{class}{k}");
                    i = j;
                    continue;
                }
            }
            out.push(c);
            i += 1;
        }
        squash(&out)
    }

    /// One item, renamed: `L0:` or `atom.relaxed.gpu.cas.b32 %r0, [%rd0], %r1, %r2`.
    pub fn item(&mut self, item: &Item) -> String {
        match item {
            Item::Label(l) if l.starts_with('$') => format!("{}:", self.label(l)),
            Item::Label(l) => format!("{l}:"),
            Item::Instr(i) => self.text(&i.to_string()),
        }
    }
}

/// A sequence with registers and labels renamed (one [`Normaliser`] for the whole sequence).
pub fn normalise(items: &[Item]) -> Vec<String> {
    let mut n = Normaliser::new();
    items.iter().map(|i| n.item(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#"
//
// Generated by LLVM NVPTX Back-End
//

.version 7.8
.target sm_90
.address_size 64

	// .globl	_RNvCs_7___rustc17rust_begin_unwind
.visible .func _RNvCs_7___rustc17rust_begin_unwind(
	.param .b64 _RNvCs_7___rustc17rust_begin_unwind_param_0
)
.noreturn
{
	// begin inline asm
	trap;
	// end inline asm
	trap; exit;

}
	// .globl	store__bool__seq_cst__system
.visible .entry store__bool__seq_cst__system(
	.param .u64 .ptr .align 1 store__bool__seq_cst__system_param_0,
	.param .u8 store__bool__seq_cst__system_param_1,
	.param .u64 store__bool__seq_cst__system_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<13>;
	.reg .b64 	%rd<4>;

	ld.param.b64 	%rd1, [store__bool__seq_cst__system_param_0];
	and.b64 	%rd3, %rd1, -4;
	// begin inline asm
	fence.sc.sys;
	// end inline asm
	// begin inline asm
	ld.relaxed.sys.b32 %r12, [%rd3];
	// end inline asm
	ld.param.b8 	%r8, [store__bool__seq_cst__system_param_1];
$L__BB3231_1:
	and.b32 	%r11, %r12, %r1;
	or.b32 	%r10, %r11, %r2;
	// begin inline asm
	atom.relaxed.sys.cas.b32 %r3, [%rd3], %r12, %r10;
	// end inline asm
	setp.ne.b32 	%p1, %r3, %r12;
	mov.b32 	%r12, %r3;
	@%p1 bra 	$L__BB3231_1;
	ret;

}
.visible .entry fence__acquire__thread()
{


	// begin inline asm
	// end inline asm
	ret;

}
"#;

    #[test]
    fn parses_kernels_and_header() {
        let ks = parse_kernels(PTX);
        let names: Vec<_> = ks.iter().map(|k| (k.name.as_str(), k.entry)).collect();
        assert_eq!(
            names,
            [
                ("_RNvCs_7___rustc17rust_begin_unwind", false),
                ("store__bool__seq_cst__system", true),
                ("fence__acquire__thread", true)
            ]
        );
        assert_eq!(ptx_header(PTX), (Some("7.8".into()), Some("sm_90".into())));
        assert!(extern_declarations(PTX).is_empty());
        assert_eq!(
            extern_declarations(".extern .func foo(\n.param .b32 a\n);"),
            [".extern .func foo("]
        );
        assert!(memory_model_sequence(&ks[2]).is_empty());
        let trap = instructions(&ks[0]);
        assert_eq!(trap.len(), 3, "{trap:?}");
    }

    #[test]
    fn extracts_and_normalises_the_memory_model_sequence() {
        let ks = parse_kernels(PTX);
        let seq = memory_model_sequence(&ks[1]);
        assert_eq!(
            normalise(&seq),
            [
                "fence.sc.sys",
                "ld.relaxed.sys.b32 %r0, [%rd0]",
                "L0:",
                "atom.relaxed.sys.cas.b32 %r1, [%rd0], %r0, %r2",
                "@%p0 bra L0",
            ]
        );
        let Item::Instr(bra) = &seq[4] else { panic!() };
        assert_eq!(bra.guard.as_deref(), Some("@%p1"));
        assert_eq!(bra.branch_target(), Some("$L__BB3231_1"));
        assert!(bra.is_branch() && !bra.is_memory_model());
    }

    #[test]
    fn normaliser_renames_per_class_and_squashes_whitespace() {
        let mut n = Normaliser::new();
        assert_eq!(
            n.text("atom.acq_rel.gpu.cas.b64\t%rd7,  [%rd3], %rd7, %fd12;"),
            "atom.acq_rel.gpu.cas.b64 %rd0, [%rd1], %rd0, %fd0;"
        );
        assert_eq!(
            n.text("setp.ne.b64 %p4, %rd3, %r9"),
            "setp.ne.b64 %p0, %rd1, %r0"
        );
        assert_eq!(n.text("@!%p4 bra $L__BB9_3"), "@!%p0 bra L0");
        assert_eq!(n.text("mov.u32 %r1, %tid.x"), "mov.u32 %r1, %tid.x");
        assert_eq!(n.item(&Item::Label("$L__BB9_3".into())), "L0:");
        assert_eq!(n.item(&Item::Label("$L__BB9_1".into())), "L1:");
    }

    #[test]
    fn memory_model_instructions() {
        let is = |m: &str| {
            Instr {
                guard: None,
                mnemonic: m.into(),
                operands: String::new(),
            }
            .is_memory_model()
        };
        for m in [
            "ld.global.u32",
            "ld.relaxed.gpu.b32",
            "st.release.sys.b64",
            "atom.add.u32",
            "red.relaxed.cta.add.f32",
            "fence.sc.gpu",
            "membar.gl",
            "cp.async.ca.shared.global",
            "mbarrier.arrive.b64",
        ] {
            assert!(is(m), "{m}");
        }
        for m in [
            "ld.param.b64",
            "mov.b32",
            "setp.eq.b32",
            "bra",
            "ret",
            "trap",
        ] {
            assert!(!is(m), "{m}");
        }
    }

    #[test]
    fn ptxas_log() {
        let log = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'xor__usize__release__thread' for 'sm_80'
ptxas info    : Function properties for xor__usize__release__thread
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers, 376 bytes cmem[0]
ptxas info    : Compile time = 5.239 ms
ptxas info    : Compiling entry function 'load__u8__relaxed__block' for 'sm_80'
ptxas info    : Function properties for load__u8__relaxed__block
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 6 registers, used 0 barriers, 372 bytes cmem[0]
";
        let r = parse_ptxas_log(log);
        assert_eq!(r.registers.len(), 2);
        assert_eq!(r.registers["xor__usize__release__thread"], 10);
        assert_eq!(r.register_range(), Some((6, 10)));
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn ptxas_errors_and_warnings() {
        assert!(is_ptxas_error(
            "ptxas fatal   : Unresolved extern function 'f'"
        ));
        assert!(is_ptxas_error(
            "ptxas /x/k.ptx, line 12; error   : Unknown symbol 'x'"
        ));
        assert!(!is_ptxas_error(
            "ptxas info    : Compiling entry function 'error_count' for 'sm_80'"
        ));
        assert!(is_ptxas_warning("ptxas /x/k.ptx, line 3; warning : old"));
        let r =
            parse_ptxas_log("ptxas warning : Unsupported .version 9.9; current version is '8.8'");
        assert_eq!(r.warnings.len(), 1);
    }

    #[test]
    fn missing_tools_are_named() {
        let root = std::env::temp_dir().join(format!("host-ptx-missing-{}", std::process::id()));
        fs::create_dir_all(root.join("tools")).unwrap();
        // No tools/nightly-toolchain.
        let e = Toolchain::discover_in(&root).unwrap_err();
        assert!(
            matches!(&e, Error::Missing(m) if m.contains("nightly-toolchain")),
            "{e}"
        );
        assert!(e.to_string().contains("bash tools/install.sh"), "{e}");
        // A toolchain that is not installed (RUSTUP_AUTO_INSTALL=0: nothing is downloaded).
        fs::write(root.join("tools/nightly-toolchain"), "nightly-1999-01-01\n").unwrap();
        let e = Toolchain::discover_in(&root).unwrap_err();
        assert!(
            matches!(&e, Error::Missing(m) if m.contains("nightly-1999-01-01")),
            "{e}"
        );
        // With the pinned nightly (if installed here) but no tools/paths.env.
        let pin = Toolchain::repo_root().join("tools/nightly-toolchain");
        fs::copy(pin, root.join("tools/nightly-toolchain")).unwrap();
        if let Err(e) = Toolchain::discover_in(&root) {
            assert!(matches!(&e, Error::Missing(_)), "{e}");
        }
        fs::write(root.join("tools/paths.env"), "PTXAS_12=tools/nope/ptxas\n").unwrap();
        let e = Toolchain::discover_in(&root).unwrap_err();
        assert!(matches!(&e, Error::Missing(_)), "{e}");
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn paths_env() {
        let env = parse_paths_env("# c\nPTXAS_12=tools/a/ptxas\n\nPTXAS_13 = tools/b/ptxas\n");
        assert_eq!(env["PTXAS_12"], "tools/a/ptxas");
        assert_eq!(env["PTXAS_13"], "tools/b/ptxas");
    }

    #[test]
    fn targets() {
        for t in Target::ALL {
            assert_eq!(Target::from_name(t.name()), Some(t));
        }
        assert!(Target::Sm90.has_cluster_scope() && !Target::Sm80.has_cluster_scope());
        assert!(Target::Sm90Ptx86.has_split_fences() && !Target::Sm90.has_split_fences());
        assert!(Target::Sm90Ptx86.has_b128_atomics() && !Target::Sm90.has_b128_atomics());
    }
}
