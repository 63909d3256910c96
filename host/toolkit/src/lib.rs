//! `scoped-atomics-host`: the host toolkit of `scoped-atomics` — everything a kernel author runs
//! beside the core crate, and the `cargo host` command.
//!
//! * [`build`]: [`PtxBuilder`](build::PtxBuilder), re-exported from `scoped-atomics-build` (the
//!   `cuda_builder` counterpart; a `build.rs` depends on that light crate directly) — builds your
//!   `#![no_std]` kernel crate to PTX (or `cargo host ptx --crate PATH`) with the pinned nightly,
//!   `-Zbuild-std=core` and every flag the PTX needs, and checks it with ptxas.
//! * [`executor`]: runs kernel bodies on host threads ([`launch`](executor::launch), any grid
//!   size, in waves of resident blocks; [`launch_cooperative`](executor::launch_cooperative)) and
//!   under loom ([`launch_loom`](executor::launch_loom), with `--cfg loom`), so the same source is tested without a GPU.
//! * [`launch`]: one typed launch description ([`Launch`](launch::Launch): a `#[kernel]`'s
//!   entry point, the grid, typed buffers and scalars) that runs the same kernel on host
//!   threads, under loom, in the simulator and on a GPU, and returns the buffers typed.
//! * [`gpu`]: loads PTX and launches it through `cudarc` with dynamic loading (re-exported as
//!   [`gpu::cudarc`]); without a driver, a clean skip ([`gpu::NO_DRIVER`]).
//! * [`mapped`]: [`MappedSlice`](mapped::MappedSlice), memory the host and a running kernel
//!   share (host memory, the simulator's buffer, `cuMemHostAlloc`'d memory on a GPU), and
//!   [`MappedAccess`](mapped::MappedAccess), host code written once for the three.
//! * [`sim`] and [`litmus`]: the PTX simulator (`ptx-sim`) and the PTX memory-model checker
//!   (`ptx-litmus`), re-exported; `sim::corpus` runs this project's example kernels in the
//!   simulator (the demo's simulator step).
//! * [`ptx`], [`abi`], [`conformance`]: reading PTX, the Atomics ABI table and the conformance
//!   check of the probe kernels (`cargo host ptx`).
//! * [`scaffold`]: `cargo host new DIR`, a new kernel project.
//!
//! ```
//! use scoped_atomics::device::{AtomicU32, Ordering};
//! use scoped_atomics::kernel::{block_dim, block_idx, thread_idx, Dim3};
//! use scoped_atomics_host::executor::launch;
//!
//! // A kernel body, run by 4 blocks of 32 host threads.
//! let hits = AtomicU32::new(0);
//! launch(Dim3::x(4), Dim3::x(32), || {
//!     if (block_idx().x * block_dim().x + thread_idx().x) % 2 == 0 {
//!         hits.fetch_add(1, Ordering::Relaxed);
//!     }
//! })
//! .unwrap();
//! assert_eq!(hits.load(Ordering::Relaxed), 64);
//! ```
//!
//! The guide (crate documentation of `scoped-atomics`, module `guide`) walks through writing,
//! building, testing and launching a kernel.

// docs.rs marks the loom entry points "Available on loom only".
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod abi;
pub mod conformance;
pub mod examples;
pub mod executor;
pub mod gpu;
pub mod launch;
pub mod mapped;
pub mod ptx;
pub mod scaffold;
pub mod sim;

/// The PTX builder: `scoped-atomics-build`, re-exported (`scoped_atomics_host::build::PtxBuilder`).
///
/// ```
/// let b = scoped_atomics_host::build::PtxBuilder::new("kernels").arch("sm_80");
/// # let _ = b;
/// ```
pub use scoped_atomics_build as build;

/// The PTX memory-model checker: `ptx-litmus`, re-exported.
///
/// ```
/// use scoped_atomics_host::litmus::{enumerate::decide, parse::parse};
/// let t = "PTX t\n{ x=0; }\n P0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
/// assert!(decide(&parse("t", t).unwrap()).unwrap().ok);
/// ```
pub use ptx_litmus as litmus;
