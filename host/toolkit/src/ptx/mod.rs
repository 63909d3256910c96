//! The PTX toolchain of [`scoped_atomics_build::ptx`] (re-exported: finding the tools, the device
//! build command, ptxas, reading PTX), and the build of this repository's probe kernels
//! (`gpu-kernels`) that the conformance check and the demo read.

pub use scoped_atomics_build::ptx::*;

mod probes;

pub use probes::{build_command, build_ptx};
