//! The PTX toolchain: finding the pinned nightly and `ptxas`, the one device build command
//! ([`cargo_rustc`]), assembling PTX with `ptxas`, and reading PTX: kernels, their instructions,
//! and the memory-model subsequence (what `scoped-atomics-host`'s conformance check compares with
//! the Atomics ABI table).
//!
//! Only `std`: the tools are found through `tools/nightly-toolchain` and `tools/paths.env`, which
//! `bash tools/install.sh` writes.

use std::fmt;

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

mod compile;
mod normalise;
mod ptxas;
mod read;
mod target;
#[cfg(test)]
mod tests;
mod toolchain;

pub use compile::{cargo_rustc, forget_fingerprint, run, show};
pub use normalise::{Normaliser, normalise};
pub use ptxas::{PtxasReport, assemble, assemble_with, extern_declarations, parse_ptxas_log};
pub use read::{
    Instr, Item, Kernel, instructions, memory_model_sequence, parse_kernels, ptx_header,
};
pub use target::{SELF_CONTAINED_FLAGS, Target};
pub use toolchain::{Toolchain, clean_env, parse_paths_env};
