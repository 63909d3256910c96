//! Assembling PTX with `ptxas -v` (cached per PTX text) and reading its log.

use super::compile::{run, show};
use super::read::strip_comment;
use super::{Error, Result, Target, Toolchain, parse_kernels};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    assemble_with(tc.ptxas(target), ptx, target.arch())
}

/// [`assemble`] with a given `ptxas` for `-arch=<arch>` (any architecture that ptxas knows).
pub fn assemble_with(ptxas: &Path, ptx: &Path, arch: &str) -> Result<PtxasReport> {
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
    let mut cmd = Command::new(ptxas);
    // `-split-compile=0`: optimise functions on all CPUs; same registers, about half the time.
    cmd.args(["-v", "-split-compile=0"])
        .arg(format!("-arch={arch}"))
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
            "ptxas failed on the {arch} PTX ({}):\n$ {}\n{}",
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
pub(super) fn is_ptxas_error(line: &str) -> bool {
    let l = line.trim_start().to_ascii_lowercase();
    l.starts_with("ptxas fatal")
        || l.starts_with("ptxas error")
        || l.contains("; error")
        || l.contains("unresolved extern")
}

/// `ptxas warning : …`, `<file>, line N; warning : …`.
pub(super) fn is_ptxas_warning(line: &str) -> bool {
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
