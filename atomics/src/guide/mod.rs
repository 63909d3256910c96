//! The guide: from choosing a scope to launching a kernel on a GPU, and what each checker can and
//! cannot tell you. Each page is a module of documentation; its Rust examples run as doctests.
//!
//! 1. [`choosing_a_scope`]: which `S` to write in `Atomic<T, S>`.
//! 2. [`writing_a_kernel`]: a `no_std` kernel crate.
//! 3. [`building`]: PTX with `scoped_atomics_build::PtxBuilder`.
//! 4. [`testing`]: on host threads, under loom, in the simulator.
//! 5. [`launching`]: on a GPU through `cudarc`.
//! 6. [`shared_data`]: data structures shared by host and device.
//! 7. [`ptx_mapping`]: the PTX of every operation (generated from the code's table).
//! 8. [`limits`]: what each checker does not check.
//! 9. [`clusters`]: thread-block clusters (sm_90): `Cluster` scope, the cluster barrier and
//!    distributed shared memory, and how each checker runs them.
//! 10. [`host_device_queue`]: a kernel producing into a queue in mapped memory while the host
//!     consumes (`MappedSlice`), the host's code written once for host threads, the simulator
//!     and a GPU.
//!
//! The host side is four crates, one per audience (folders under `host/` of the repository):
//!
//! | crate | for | what |
//! | --- | --- | --- |
//! | [`scoped-atomics-build`][scoped-atomics-build] (`host/build/`) | a host crate's `build.rs` | `PtxBuilder`: the kernel crate to PTX, checked by ptxas |
//! | [`scoped-atomics-host`][scoped-atomics-host] (`host/toolkit/`) | the host crate and its tests | `executor` (host threads, loom), `gpu` (cudarc), the `cargo host` command; re-exports the three others as `build`, `sim`, `litmus` |
//! | [`ptx-sim`][ptx-sim] (`host/sim/`) | anyone with PTX (rustc's, nvcc's) | the simulator and its race / divergence / hang / fault detector; binary `ptx-sim` |
//! | [`ptx-litmus`][ptx-litmus] (`host/litmus/`) | anyone reasoning about PTX synchronisation | the PTX memory model as a litmus checker; binary `ptx-litmus` |
//!
//! (`host/checks/` holds the repository's own conformance checks and snapshots; no user needs it.)
//!
//! Each crate's documentation: docs.rs (the links above), or in a checkout
//! `cargo doc -p scoped-atomics-host --open` (likewise `-p scoped-atomics-build`, `-p ptx-sim`,
//! `-p ptx-litmus`).
//!
//! [scoped-atomics-build]: https://docs.rs/scoped-atomics-build
//! [scoped-atomics-host]: https://docs.rs/scoped-atomics-host
//! [ptx-sim]: https://docs.rs/ptx-sim
//! [ptx-litmus]: https://docs.rs/ptx-litmus

#[doc = include_str!("choosing-a-scope.md")]
pub mod choosing_a_scope {}

#[doc = include_str!("writing-a-kernel.md")]
pub mod writing_a_kernel {}

#[doc = include_str!("building.md")]
pub mod building {}

#[doc = include_str!("testing.md")]
pub mod testing {}

#[doc = include_str!("launching.md")]
pub mod launching {}

#[doc = include_str!("shared-data.md")]
pub mod shared_data {}

/// The operation → PTX mapping: the *recommended* sequence of the PTX Atomics ABI table for each
/// operation and ordering, as the code emits it. `S` is the scope's qualifier: `Thread` and
/// `Block` → `.cta`, `Cluster` → `.cluster` (sm_90), `Device` → `.gpu`, `System` → `.sys`.
/// `<op>` is the operation and type (`add.u32`, `exch.b64`, `min.s32`, …). 8-bit atomics and the
/// operations PTX has no instruction for are compare-and-swap loops around the `atom.cas` row of
/// their ordering (see the crate documentation).
///
/// The table below is generated from `atomics/src/imp/ptx/table.rs` by one of its unit tests,
/// which fails when the two differ, so it cannot drift from the code.
#[doc = ""]
#[doc = include_str!("ptx-mapping.md")]
pub mod ptx_mapping {}

#[doc = include_str!("limits.md")]
pub mod limits {}

#[doc = include_str!("clusters.md")]
pub mod clusters {}

#[doc = include_str!("host-device-queue.md")]
pub mod host_device_queue {}
