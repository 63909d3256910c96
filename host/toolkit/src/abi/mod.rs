//! What each probe kernel must emit: the PTX Atomics ABI table (`host/abi/ptx-atomics-abi.txt`,
//! the source of truth for orders) realised per value type by the rules of the device backend,
//! and the check of a kernel's memory-model sequence against it.
//!
//! The probes are those `gpu-kernels/build.rs` generates, `<op>__<type>__<order>__<scope>`,
//! and the state-space forms `<op>__<type>__<order>__device__global` (`from_global_ptr`) and
//! `<op>__<type>__<order>__block__shared` (`from_shared_ptr` on a `block_shared!` cell);
//! [`probes`] enumerates them from the same rules.
//!
//! Realisation rules (scope `S`: thread/block → `.cta`, cluster → `.cluster`, device → `.gpu`,
//! system → `.sys`; a thread-scope fence emits nothing):
//!
//! * width: `bool`/`u8`/`i8` → the containing aligned 32-bit word (`.b32`); 16-bit → `.b16`;
//!   32-bit → `.b32`; 64-bit and pointers → `.b64`; 128-bit → `.b128` (probed only where the
//!   target has it: sm_90 with PTX ISA 8.3 or newer, see [`Target::has_b128_atomics`]).
//! * `load`: `ld.<sem>.S.bN`. `store`: `st.<sem>.S.bN`; bytes: a CAS loop with the store row.
//! * `swap`: `atom.<sem>.S.exch.b32|b64`; 16-bit and bytes: a CAS loop.
//! * `compare_exchange`: the rmw row of the join of (success, failure); `atom.<sem>.S.cas.bN`;
//!   bytes: a CAS loop.
//! * 32/64-bit ints: `add`/`sub` → `.add.u32|u64`, `and`/`or`/`xor` → `.<op>.b32|b64`,
//!   `min`/`max` → `.<op>.u32|s32|u64|s64`, `nand` → CAS loop. 16-bit ints: every rmw a CAS loop.
//!   8-bit ints: `and`/`or`/`xor` one `.b32` atom on the word, the rest CAS loops. `bool`:
//!   `and`/`or`/`xor`/`not` (`xor`) one `.b32` atom, `nand` a CAS loop. Floats: `add`/`sub` →
//!   `.add.f32|f64`, `min`/`max` CAS loops. Pointers: `fetch_ptr_*`/`fetch_byte_*` → `.add.u64`.
//!   128-bit ints: `swap` → `.exch.b128`, `compare_exchange` → `.cas.b128`, every `fetch_*` a
//!   CAS loop (PTX has no 128-bit arithmetic or bitwise `atom`), no reductions.
//! * reductions: `red.<sem>.S.<op>`, `sub` as `add`.
//! * state space: a `__global`/`__shared` probe's `ld`/`st`/`atom`/`red` carry `.global`/`.shared`
//!   after `S` (`atom.relaxed.gpu.global.add.u32`), its fences none.
//! * a CAS loop with row (fence_sc?, sem): optionally `fence.sc.S`, `ld.relaxed.S.bN`, then in
//!   a loop (a label after the `ld`, a conditional backward branch to it after the `atom`)
//!   `atom.<sem>.S.cas.bN`.
//!
//! [`Target::has_b128_atomics`]: crate::ptx::Target::has_b128_atomics

mod check;
mod expected;
mod probe_kernels;
mod table;
#[cfg(test)]
mod tests;
mod types;

pub use check::{check_items, check_kernel, check_sequence, snapshot_lines, snapshot_lines_of};
pub use expected::{Expected, LoopReason, expected};
pub use probe_kernels::{Probe, ProbeOp, probes};
pub use table::{ABI_TABLE, AbiTable, Condition, Operation, Order, Row};
pub use types::{FLAG_OPS, Scope, Space, Ty, Width};
