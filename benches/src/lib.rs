//! Benchmarks of `scoped-atomics`: criterion on the host against `core::sync::atomic` and
//! `std::sync`, and a static PTX/SASS cost model against libcu++ on the device.
//!
//! # Host: criterion benchmarks
//!
//! ```sh
//! cargo bench -p benches
//! ```
//!
//! runs `benches/host.rs` (3½–4 minutes on 2 cores, build included) and writes
//!
//! * criterion's HTML report with its plots: `target/criterion/report/index.html` (one group per
//!   comparison, each with a `scoped` and a `std` function);
//! * the ratios *scoped-atomics / standard library*: `target/criterion/summary.md` (read back from
//!   criterion's `target/criterion/<group>/<function>/new/estimates.json` by the bench binary at
//!   the end of the run, [`summary`]), also printed at the end.
//!
//! What is compared (the target is on the median ratio):
//!
//! | comparison | scoped-atomics | standard library | target |
//! |---|---|---|---|
//! | `u32`/`u64`/`f32` load, store, `fetch_add`, compare-exchange, 1 and 2 threads | `Atomic<T, Device>` | `AtomicU32`/`AtomicU64`; for `f32` the `AtomicU32` bits and a `fetch_update` loop for `fetch_add` | ≤ 1.02× |
//! | barrier, 2 threads, time per phase | `Barrier<System>` | `std::sync::Barrier` | ≤ 0.5× |
//! | semaphore `acquire` + `release(1)`, 1 and 2 threads | `CountingSemaphore<System>` | `Mutex<u32>` + `Condvar` | — |
//! | one-shot rendezvous of 2 threads | `Latch<System>` | a fresh `std::sync::Barrier` | — |
//!
//! In the 2-thread atomics rows both threads hammer the same atomic for `iters` operations each,
//! started together (`iter_custom`, a spinning start line), and the time is per operation per
//! thread. The default run is short (warm-up 1 s, measurement 2 s, 30 samples); criterion's flags
//! override it, and a filter runs a subset (the summary then marks the rest *not run*):
//! `cargo bench -p benches -- --measurement-time 5 "u32 fetch_add"`.
//!
//! Host timings are noisy on a shared machine (the 2-thread ones most): a ratio within a few
//! percent of 1 is a tie. On the host `Atomic<T, S>` is `core::sync::atomic` underneath, and for
//! these operations on x86-64 both sides compile to the same machine code (checked with
//! `--emit=asm` when this was written: LLVM even merges the two functions into one), so on the
//! atomics rows a ratio away from 1 is measurement noise, not a cost of the wrapper. `cargo test -p benches --benches` (or `cargo test --workspace
//! --all-targets`) runs every benchmark once, as a test, in seconds.
//!
//! # Device: a static cost model against libcu++
//!
//! ```sh
//! cargo run -p benches --release --bin device-cost
//! ```
//!
//! (`-- --summary-only` prints only the summaries, `-- --config sm_80|sm_90|sm_90_ptx86` one
//! configuration) takes 15–25 s once the probe PTX is built (longer if `scoped_atomics_host::ptx::build_ptx`
//! has to rebuild it for the three configurations), needs the tools of `bash tools/install.sh` (the
//! pinned nightly, ptxas, nvcc 13.5 with its CCCL headers, cuobjdump, nvdisasm; exit status 2
//! names a missing one), and writes `target/device-cost/report.md` (with the generated `.cu`,
//! both sides' PTX, cubins and `.sass` listings next to it).
//!
//! **It is a static model, not a timing**: no GPU runs anything. For each case — load, store,
//! `fetch_add`, `compare_exchange`, `swap` (`exchange`) and `fetch_min` on `u32`, `u64`, `f32`,
//! `i16`, `u16`, `u8` at every valid ordering and block/device/system scope, and
//! `atomic_thread_fence` at acquire/release/acq_rel/seq_cst — it compares our probe kernel
//! (`gpu-kernels`, built by `scoped_atomics_host::ptx::build_ptx`) with a libcu++ kernel of the same name and
//! signature (`cuda::atomic_ref<T, cuda::thread_scope_…>` in generated CUDA C++, compiled by
//! `nvcc -ptx`), both assembled by ptxas 13.5 for sm_80 and sm_90 (and sm_90 with our PTX ISA 8.6
//! build, which has `fence.acquire`/`fence.release`), counting memory-model PTX instructions, all
//! PTX instructions, SASS instructions (`cuobjdump -sass`) and SASS memory instructions; per
//! configuration it tallies the cases where ours has fewer, equal and more, checks the targets
//! (never more than libcu++; fewer on 16-bit cases and on acquire/release fences at sm_90), and
//! explains the cases where ours has more. See [`device_cost`].

pub mod cuda_tools;
pub mod device_cost;
pub mod kernel_cost;
pub mod summary;
