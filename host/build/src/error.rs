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
    /// `cargo` failed: the command and its error output.
    Cargo {
        /// The command, environment included.
        command: String,
        /// Cargo's error output.
        stderr: String,
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
            Error::Cargo { command, stderr } => {
                write!(f, "building the PTX failed:\n$ {command}\n{stderr}")
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
