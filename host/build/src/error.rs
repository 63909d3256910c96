//! [`Error`]: why a build failed, and [`ptxas_error`], which reads ptxas's log into one.

use crate::ARCHS;
use std::fmt;
use std::path::PathBuf;

/// Why a build failed. Every variant's message names the problem and, for a missing tool, says
/// in one line how to install it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The architecture is not one of [`ARCHS`].
    UnknownArch(String),
    /// The PTX ISA version is not one of [`PTX_ISAS`](crate::PTX_ISAS), or older than the architecture's oldest
    /// (the message says which).
    UnknownPtxIsa(String),
    /// The path is not a crate with a library target.
    NotAKernelCrate {
        /// The crate directory given.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The pinned nightly is not installed.
    MissingToolchain(String),
    /// The nightly has no `rust-src` (needed by `-Zbuild-std=core`).
    MissingRustSrc(String),
    /// No `ptxas` was found for the architecture.
    MissingPtxas(String),
    /// `cargo` failed. The message is rustc's errors, each once, without cargo's progress and
    /// warnings: for an operation the target lacks (one of the library's compile-time refusals),
    /// what needs what, the target the crate was compiled for and the builder call that fixes
    /// it. The command and cargo's whole output follow only with
    /// [`PtxBuilder::verbose`](crate::PtxBuilder::verbose).
    Cargo {
        /// The command, environment included.
        command: String,
        /// Cargo's error output.
        stderr: String,
        /// Whether the message shows the command and the whole output.
        verbose: bool,
    },
    /// `ptxas` rejected the PTX: its message and, where it names one, the PTX line.
    Ptxas {
        /// ptxas's first error line.
        message: String,
        /// The line number and text of the PTX line it names, if it names one.
        line: Option<(usize, String)>,
    },
    /// Reading or writing a file failed.
    Io(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownArch(a) => write!(
                f,
                "unknown architecture `{a}`: accepted are {}",
                ARCHS.map(|(arch, _)| arch).join(", ")
            ),
            Error::UnknownPtxIsa(why) => f.write_str(why),
            Error::NotAKernelCrate { path, why } => {
                write!(f, "{} is not a kernel crate: {why}", path.display())
            }
            Error::MissingToolchain(t) => write!(
                f,
                "the Rust toolchain {t} is not installed; install it with \
                 `rustup toolchain install {t} --component rust-src`"
            ),
            Error::MissingRustSrc(t) => write!(
                f,
                "the toolchain {t} has no rust-src (needed by -Zbuild-std=core); install it with \
                 `rustup component add rust-src --toolchain {t}`"
            ),
            Error::MissingPtxas(why) => write!(
                f,
                "ptxas not found ({why}); install it with `pip install nvidia-cuda-nvcc-cu12` \
                 (or `bash tools/install.sh` in a scoped-atomics checkout) and set PTXAS=/path/to/ptxas"
            ),
            Error::Cargo {
                command,
                stderr,
                verbose,
            } => {
                f.write_str("building the PTX failed:")?;
                for line in rustc_errors(stderr) {
                    write!(f, "\n  {line}")?;
                }
                if *verbose {
                    write!(f, "\n$ {command}\n{stderr}")
                } else {
                    f.write_str(
                        "\n  (the cargo command and its whole output: `PtxBuilder::verbose(true)`, \
                         or `--verbose` with `cargo host ptx --crate`)",
                    )
                }
            }
            Error::Ptxas { message, line } => {
                write!(f, "ptxas rejected the PTX: {message}")?;
                if let Some((n, text)) = line {
                    write!(f, "\n  PTX line {n}: {}", text.trim())?;
                }
                Ok(())
            }
            Error::Io(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Error {}

/// The start of the library's refusals of an operation the target lacks, and what separates
/// "what needs what, and the target" from the builder call that fixes it.
const REFUSAL: &str = "scoped-atomics: ";
const FIX: &str = ". With scoped-atomics-build: ";

/// Cargo's error output, read for a person: each distinct error of rustc once, a refusal of the
/// library as "what needs what, and the target" and, after them all, each distinct fix once
/// (with the `--target` of `cargo host ptx` where the fix names an architecture); another error
/// as its message and location. Cargo's progress lines, warnings and rustc's notes are left out.
/// Where rustc said nothing (cargo failed before it), cargo's own `error` lines, or the last
/// lines of its output.
///
/// ```text
/// scoped-atomics: the warp reductions (…) need sm_80 or newer, and this crate was compiled for sm_75 with PTX ISA 7.0
/// fix: `PtxBuilder::arch("sm_80")`; `cargo host ptx --crate PATH --target sm_80`
/// ```
fn rustc_errors(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let (mut shown, mut fixes) = (Vec::<String>::new(), Vec::<String>::new());
    let add = |list: &mut Vec<String>, line: String| {
        if !list.contains(&line) {
            list.push(line);
        }
    };
    for (i, line) in lines.iter().enumerate() {
        let Some(message) = error_message(line) else {
            continue;
        };
        if message.starts_with("could not compile") || message.starts_with("aborting due to") {
            continue;
        }
        let message = message
            .strip_prefix("evaluation panicked: ")
            .unwrap_or(message);
        if let Some((needs, fix)) = message
            .strip_prefix(REFUSAL)
            .and_then(|m| m.split_once(FIX))
        {
            add(&mut shown, format!("{REFUSAL}{needs}"));
            let builder_call = fix.split("; with cargo").next().unwrap_or(fix);
            add(
                &mut fixes,
                format!("fix: {}", with_command_line(builder_call)),
            );
            continue;
        }
        // The first location after the headline, before the next diagnostic.
        let location = lines[i + 1..]
            .iter()
            .take_while(|l| l.starts_with(' ') || l.is_empty())
            .find_map(|l| l.trim_start().strip_prefix("--> "));
        add(
            &mut shown,
            match location {
                Some(at) => format!("error: {message}\n    at {at}"),
                None => format!("error: {message}"),
            },
        );
    }
    if shown.is_empty() {
        // Cargo failed before rustc: its own error lines, or the end of its output.
        shown = lines
            .iter()
            .filter(|l| l.starts_with("error"))
            .map(|l| l.to_string())
            .collect();
        if shown.is_empty() {
            let start = lines.len().saturating_sub(5);
            shown = lines[start..].iter().map(|l| l.to_string()).collect();
        }
    }
    shown.extend(fixes);
    shown
}

/// The message of a diagnostic headline `error: …` or `error[E0080]: …`.
fn error_message(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("error")?;
    let rest = match rest.strip_prefix('[') {
        Some(code) => code.split_once(']')?.1,
        None => rest,
    };
    Some(rest.strip_prefix(": ")?.trim_end())
}

/// A builder call of a refusal (`` `PtxBuilder::arch("sm_90")` ``), with the `--target` of
/// `cargo host ptx --crate` that asks for the same where it names an architecture.
fn with_command_line(builder_call: &str) -> String {
    let arch = builder_call
        .split_once("arch(\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(arch, _)| arch);
    let isa = builder_call
        .split_once("ptx_isa(")
        .and_then(|(_, rest)| rest.split_once(')'))
        .and_then(|(isa, _)| isa.split_once(", "));
    match (arch, isa) {
        (Some(arch), Some((major, minor))) => {
            format!(
                "{builder_call}; `cargo host ptx --crate PATH --target {arch}_ptx{major}{minor}`"
            )
        }
        (Some(arch), None) => {
            format!("{builder_call}; `cargo host ptx --crate PATH --target {arch}`")
        }
        _ => builder_call.to_string(),
    }
}

/// Turns ptxas's output into [`Error::Ptxas`]: the first error line and the PTX line it names
/// (`<file>, line N; error : …`).
///
/// ```
/// use scoped_atomics_build::{Error, ptxas_error};
/// let ptx = ".version 7.0\n.target sm_70\nbad;\n";
/// let e = ptxas_error("ptxas k.ptx, line 3; error   : Unknown instruction 'bad'", ptx);
/// assert!(matches!(e, Error::Ptxas { line: Some((3, _)), .. }));
/// ```
pub fn ptxas_error(log: &str, ptx_text: &str) -> Error {
    let find = |pattern: &str| {
        log.lines()
            .find(|l| l.to_ascii_lowercase().contains(pattern))
    };
    let first_error = find("; error")
        .or_else(|| find("; fatal"))
        .or_else(|| find("ptxas error"))
        .or_else(|| find("ptxas fatal"))
        .unwrap_or(log)
        .trim()
        .to_string();
    let line = first_error
        .split(", line ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .and_then(|n| n.trim().parse::<usize>().ok())
        .and_then(|n| Some((n, ptx_text.lines().nth(n.checked_sub(1)?)?.to_string())));
    Error::Ptxas {
        message: first_error,
        line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What cargo prints for a kernel crate with two refusals of the same fix, shortened (the
    /// messages are not the library's): progress, a warning, each refusal with its notes (the
    /// first twice), and cargo's summary.
    const TWO_REFUSALS: &str = "   Compiling scoped-atomics v0.1.0 (/w/atomics)
warning: unstable feature specified for `-Ctarget-feature`: `ptx71`
  |
  = note: this feature is not stably supported; its behavior can change in the future

error[E0080]: evaluation panicked: scoped-atomics: thread-block clusters (…) need sm_90 or newer with PTX ISA 7.8, and this crate was compiled for sm_86 with PTX ISA 7.1. With scoped-atomics-build: `PtxBuilder::arch(\"sm_90\")` (or sm_100, sm_120, …); with cargo: `-C target-cpu=sm_90` in RUSTFLAGS
  --> /rust/library/core/src/panic.rs:62:9
   |
note: erroneous constant encountered
  --> /w/atomics/src/kernel/cluster.rs:85:18

error[E0080]: evaluation panicked: scoped-atomics: thread-block clusters (…) need sm_90 or newer with PTX ISA 7.8, and this crate was compiled for sm_86 with PTX ISA 7.1. With scoped-atomics-build: `PtxBuilder::arch(\"sm_90\")` (or sm_100, sm_120, …); with cargo: `-C target-cpu=sm_90` in RUSTFLAGS
error[E0080]: evaluation panicked: scoped-atomics: the Cluster scope (PTX `.cluster`) needs sm_90 or newer with PTX ISA 7.8, and this crate was compiled for sm_86 with PTX ISA 7.1. With scoped-atomics-build: `PtxBuilder::arch(\"sm_90\")` (or sm_100, sm_120, …); with cargo: `-C target-cpu=sm_90` must reach every crate
For more information about this error, try `rustc --explain E0080`.
error: could not compile `k` (lib) due to 3 previous errors; 1 warning emitted
";

    #[test]
    fn each_refusal_once_then_each_fix_once() {
        let needs = "need sm_90 or newer with PTX ISA 7.8, and this crate was compiled for sm_86";
        assert_eq!(
            rustc_errors(TWO_REFUSALS),
            [
                format!("scoped-atomics: thread-block clusters (…) {needs} with PTX ISA 7.1"),
                "scoped-atomics: the Cluster scope (PTX `.cluster`) needs sm_90 or newer with PTX \
                 ISA 7.8, and this crate was compiled for sm_86 with PTX ISA 7.1"
                    .to_string(),
                "fix: `PtxBuilder::arch(\"sm_90\")` (or sm_100, sm_120, …); `cargo host ptx \
                 --crate PATH --target sm_90`"
                    .to_string(),
            ]
        );
    }

    #[test]
    fn the_short_message_leaves_out_the_command_and_the_full_output_unless_verbose() {
        let error = |verbose| Error::Cargo {
            command: "cargo +nightly rustc --emit=asm=k.ptx".into(),
            stderr: TWO_REFUSALS.into(),
            verbose,
        };
        let short = error(false).to_string();
        assert_eq!(short.lines().count(), 5, "{short}");
        assert!(short.starts_with("building the PTX failed:\n  scoped-atomics: "));
        assert!(short.ends_with(
            "`PtxBuilder::verbose(true)`, or `--verbose` with `cargo host ptx --crate`)"
        ));
        for noise in ["--emit", "Compiling", "warning", "note:", "RUSTFLAGS"] {
            assert!(!short.contains(noise), "{noise}: {short}");
        }
        let verbose = error(true).to_string();
        assert!(verbose.starts_with(&short[..short.rfind("\n  (").unwrap()]));
        assert!(verbose.contains("$ cargo +nightly rustc --emit=asm=k.ptx\n   Compiling"));
    }

    #[test]
    fn other_errors_keep_their_message_and_location_and_cargo_errors_their_lines() {
        let stderr = "error[E0425]: cannot find value `x` in this scope\n --> src/lib.rs:3:5\n  |\n\
                      3 |     x\n\nerror: aborting due to 1 previous error\n";
        assert_eq!(
            rustc_errors(stderr),
            ["error: cannot find value `x` in this scope\n    at src/lib.rs:3:5"]
        );
        let stderr =
            "error: failed to load manifest for dependency `scoped-atomics`\n\nCaused by:\n  x\n";
        assert_eq!(
            rustc_errors(stderr),
            ["error: failed to load manifest for dependency `scoped-atomics`"]
        );
        // A 128-bit refusal names only `ptx_isa`: no `--target` to suggest.
        assert_eq!(
            with_command_line("`PtxBuilder::arch(\"sm_90\").ptx_isa(8, 4)`"),
            "`PtxBuilder::arch(\"sm_90\").ptx_isa(8, 4)`; `cargo host ptx --crate PATH --target sm_90_ptx84`"
        );
        assert_eq!(
            with_command_line("`PtxBuilder::ptx_isa(8, 4)`"),
            "`PtxBuilder::ptx_isa(8, 4)`"
        );
    }
}
