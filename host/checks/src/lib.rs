//! The repository's own checks of `scoped-atomics` (not published): what only this repository's
//! tests use. Its tests (`host/checks/tests/`) hold the PTX snapshots of the probe kernels
//! (`snapshots/`) and the conformance test against the Atomics ABI table, the device-build tests
//! (scratch kernel crates built for each target), the simulator over every probe and example
//! kernel, and the library's emitted code under the PTX axioms. The library part is that last
//! check's machinery:
//!
//! * [`ptx_events`] turns a kernel of a PTX module, decoded by `ptx-sim`'s decoder, into
//!   `ptx-litmus` checker instructions;
//! * [`emitted`] runs the classic shapes written as `scoped_atomics` operations — each operation the
//!   probe kernel the pipeline built for the target — against the outcomes the scoped C++ model
//!   forbids.

pub mod emitted;
pub mod ptx_events;
