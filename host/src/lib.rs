//! Host side of `scoped-atomics`: building the kernels to PTX and checking it (ptxas, the ABI
//! table), running kernel bodies on host threads, and host/device shared data structures.

pub mod abi;
pub mod build;
pub mod conformance;
pub mod examples;
pub mod executor;
pub mod gpu;
pub mod ptx;
pub mod scaffold;
