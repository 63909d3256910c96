//! Scoped atomics for Rust GPU programming: what libcu++'s `cuda::atomic`, `cuda::atomic_ref` and
//! `cuda::atomic_thread_fence` are to CUDA C++.
//!
//! * [`Atomic<T, S>`] and [`AtomicRef<'a, T, S>`] carry a thread scope `S` — [`Thread`],
//!   [`Block`], [`Cluster`], [`Device`] or [`System`] — in their type. The methods, signatures
//!   and [`Ordering`] are those of `core::sync::atomic`, and the per-scope modules
//!   ([`system`], [`device`], [`cluster`], [`block`], [`thread`]) mirror `core::sync::atomic`,
//!   so `use scoped_atomics::device::{AtomicU32, Ordering, fence};` replaces
//!   `use std::sync::atomic::{AtomicU32, Ordering, fence};`.
//! * On `nvptx64-nvidia-cuda` every operation is the recommended PTX sequence of the Atomics ABI
//!   for its ordering and scope, emitted through inline `asm!`.
//! * On the host the same API runs on `core::sync::atomic`, and under `--cfg loom` on loom.
//! * 128-bit integers ([`AtomicU128`], [`AtomicI128`]) where the device has them (sm_90 with PTX
//!   ISA 8.3 or newer; loads and stores from sm_70 with PTX ISA 8.3), lock-free on the host where
//!   the CPU is (through `portable-atomic`); see [`AtomicInteger`].
//!
//! ```
//! use scoped_atomics::device::{AtomicBool, AtomicU32, Ordering};
//!
//! static COUNTER: AtomicU32 = AtomicU32::new(0);
//! static READY: AtomicBool = AtomicBool::new(false);
//!
//! std::thread::scope(|s| {
//!     s.spawn(|| {
//!         COUNTER.fetch_add(1, Ordering::Relaxed);
//!         READY.store(true, Ordering::Release);
//!     });
//!     s.spawn(|| {
//!         while !READY.load(Ordering::Acquire) {
//!             std::hint::spin_loop();
//!         }
//!         assert_eq!(COUNTER.load(Ordering::Relaxed), 1);
//!     });
//! });
//! ```
//!
//! # Guide
//! The [`guide`] goes from choosing a scope to launching a kernel: writing, building and testing
//! kernels (host threads, loom, the simulator), shared data structures, the operation → PTX
//! table (generated from the code), and the limits of each checker.
//!
//! # Backends
//! The backend is chosen by `cfg` in one place (`imp`): inline PTX on `nvptx64`, loom under
//! `--cfg loom`, `core::sync::atomic` elsewhere (`portable_atomic::AtomicU128`/`AtomicI128` for
//! 128 bits, which `core` has only unstably).
//!
//! Under loom (the mirror, see [`model`]), [`AtomicRef::new`] and [`AtomicRef::from_ptr`]
//! work: a view is a mirror location keyed by the address, created with the value found there,
//! and every write through it is copied back to the memory. [`plain::read`] and
//! [`plain::write`] are logged on the same location, so races between plain and atomic accesses
//! to one location are reported. `Atomic::from_ptr`, `from_mut`, `from_mut_slice`, `as_ptr` and
//! `get_mut` do not exist there (an `Atomic` is a model object, not memory holding a `T`), and
//! `Atomic::new` is not `const`. The mirror's model choices — where it is deliberately stricter
//! or weaker than PTX, and its opt-in strict mode for libcu++'s `atomic_ref` rule
//! ([`model::Options`]) — are listed with their tests in the `loom-tests` crate's documentation.
//!
//! # Generic code
//! `Atomic<T, S>` is one generic type, as `cuda::atomic<T, Scope>` is a template: what every value
//! type has is one impl over `T: AtomicPrimitive`, and the other operations come with sealed
//! capability traits ([`AtomicArithmetic`], [`AtomicBitwise`], [`AtomicInteger`], [`AtomicFloat`],
//! [`AtomicReduce`], [`AtomicIntegerReduce`], [`AtomicCoreInterop`]), so generic kernels,
//! reductions and data structures name what they need:
//!
//! ```
//! use scoped_atomics::{Atomic, AtomicArithmetic, Device, Ordering, Scope};
//! fn add<T: AtomicArithmetic, S: Scope>(total: &Atomic<T, S>, v: T) -> T {
//!     total.fetch_add(v, Ordering::Relaxed)
//! }
//! let (n, x) = (Atomic::<u64, Device>::new(1), Atomic::<f32, Device>::new(0.5));
//! assert_eq!((add(&n, 2), add(&x, 0.25)), (1, 0.5));
//! ```
//!
//! # Invalid orderings
//! As in `core`, an ordering an operation cannot have (a `Release` load, an `Acquire` store, …)
//! panics with `core`'s message. `core` rejects such calls at compile time only through rustc's
//! `invalid_atomic_ordering` lint, which is built into the compiler for `core`'s own atomic
//! methods and cannot be extended to another crate's types. Inside this crate the ordering is a
//! run-time argument: `Ordering` cannot be a const generic parameter on stable Rust
//! (`adt_const_params`), and a `const { }` block cannot see a function's arguments, even when the
//! caller passes a constant. Making the check depend on optimisation (an undefined symbol in the
//! invalid branch) would break debug builds and valid calls whose ordering is not constant. So
//! with `core`'s signatures there is no compile-time rejection; only a different signature (a
//! zero-sized ordering type per ordering, checked by the type system) could give one, at the cost
//! of the drop-in API. On the device, a constant ordering folds the check away after inlining.
//!
//! # 8- and 16-bit atomics on the device
//! The PTX memory model gives mixed-size races no guarantees (PTX ISA 8.7.2), so every access to
//! one location has one size: 16-bit atomics use 16-bit `ld`/`st`/`atom.cas`, and 8-bit atomics
//! (`u8`, `i8`, `bool`) access the aligned 32-bit word that contains them. Caveat of the latter:
//! the whole word is read and **rewritten** (the neighbouring bytes with their current value) by
//! a compare-exchange loop, so every other access to that word that races with it is a
//! mixed-size data race, for which the PTX model makes no promise: a plain store to a
//! neighbouring byte, but also a plain *load* of a neighbouring byte (it races with the
//! rewrite), and a 16-bit atomic on the other half of the word (a 16-bit access overlapping a
//! 32-bit one). Keep other data out of an 8-bit atomic's word, or make every access to that word
//! an 8-bit atomic.
//!
//! # Where device atomics may live
//! PTX defines `atom` and `red` on global and shared memory only (and `mbarrier` on shared
//! memory only); on local memory — a kernel's stack — they are undefined. The host-oriented
//! examples in this documentation put atomics, barriers and latches in local variables, which is
//! right on the host and wrong in a kernel: on the device keep them in global memory (a kernel
//! argument, a `static`) or in block-shared memory ([`block_shared!`]). A debug device build
//! (`debug_assertions`) checks the synchronisation primitives' address with `isspacep.local`
//! and traps on a stack-allocated one.
//!
//! # Floating-point atomics on the device
//! `atom.add.f32` and `red.add.f32` flush subnormal inputs and results to sign-preserving zero on
//! **global** memory only; on shared memory they keep subnormals. So `fetch_add`/`add` on an
//! `Atomic<f32, _>` can give different results for subnormal values depending on where the atomic
//! lives (the host keeps subnormals). Float `fetch_min`/`fetch_max` are compare-and-swap loops and
//! follow `f32::min`/`max` everywhere.

#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        asm_experimental_arch,
        stdarch_nvptx,
        core_intrinsics,
        const_eval_select
    ),
    allow(internal_features)
)]
#![warn(missing_docs)]

// `std` does not exist on the device: there the feature means nothing (the device waits poll with
// `nanosleep`), so that a device crate builds with the default features.
#[cfg(all(any(feature = "std", loom, test), not(target_arch = "nvptx64")))]
extern crate std;

/// The one compile-time refusal of thread-block clusters before sm_90, for the Cluster scope
/// (`imp::ptx::asm`) and the cluster functions of the kernel API (`kernel::cluster`) alike: a
/// kernel that uses both (`map_shared_rank` and a `Cluster`-scope atomic on the mapped
/// location) gets the same message twice, which rustc and the builder report once.
#[cfg(target_arch = "nvptx64")]
macro_rules! clusters_need_sm_90 {
    () => {
        concat!(
            "scoped-atomics: thread-block clusters (the Cluster scope, PTX `.cluster`; cluster \
             indices, cluster_sync, map_shared_rank) need sm_90 or newer with PTX ISA 7.8, and \
             this crate was compiled for ",
            env!("SCOPED_ATOMICS_PTX_TARGET"),
            ". With scoped-atomics-build: `PtxBuilder::arch(\"sm_90\")` (or sm_100, sm_120, …); \
             with cargo: `-C target-cpu=sm_90` must reach every crate of the build, dependencies \
             included: pass it in RUSTFLAGS (or in `[target.nvptx64-nvidia-cuda] rustflags` of \
             .cargo/config.toml), not only after `--` of `cargo rustc`, which applies to the last \
             crate alone"
        )
    };
}

mod atomic;
mod atomic_ref;
mod fence;
mod flag;
pub mod guide;
mod imp;
pub mod kernel;
mod layout;
pub mod model;
mod ordering;
pub mod plain;
mod primitive;
mod scope;
mod scoped;
mod space;
pub mod sync;
pub mod time;
mod value;

pub use atomic::Atomic;
pub use atomic_ref::{AtomicReadRef, AtomicRef};
pub use core::sync::atomic::Ordering;
pub use fence::{compiler_fence, fence};
pub use flag::AtomicFlag;
/// The half-precision types of [`Atomic<f16, S>`](Atomic) and [`Atomic<bf16, S>`](Atomic), from
/// the [`half`](https://docs.rs/half) crate (the language's `f16` is unstable).
pub use half::{bf16, f16};
pub use primitive::{
    AtomicArithmetic, AtomicBitwise, AtomicCoreInterop, AtomicFloat, AtomicInteger,
    AtomicIntegerReduce, AtomicPrimitive, AtomicReduce,
};
pub use scope::{
    Block, Cluster, CompletionScope, Device, PlainScope, RescopeFrom, Scope, ScopeKind, System,
    Thread,
};
pub use scoped::{
    AtomicBool, AtomicF32, AtomicF64, AtomicI8, AtomicI16, AtomicI32, AtomicI64, AtomicI128,
    AtomicIsize, AtomicPtr, AtomicU8, AtomicU16, AtomicU32, AtomicU64, AtomicU128, AtomicUsize,
    block, cluster, device, system, thread,
};
/// Makes a kernel function a PTX entry point: `#[scoped_atomics::kernel]` on a `pub fn` (or
/// `pub unsafe fn`) with no return value leaves the function as it is — on the host it is what
/// `scoped_atomics_host::executor` and loom run, called by its name — and, on `nvptx64` only,
/// adds the entry point
/// `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn NAME(args…)` that calls it, so a
/// kernel crate writes no entry point by hand. (`scoped_atomics::kernel` is also the module of
/// the kernel API: an attribute and a module live in different namespaces, so
/// `use scoped_atomics::kernel::thread_idx` still works.)
///
/// Beside the function it also writes, on every target, one launch description per entry point:
/// a `pub const` [`kernel::KernelEntry`] named after the entry point in upper case (`histogram`
/// → `HISTOGRAM`, `add_one_Block` → `ADD_ONE_BLOCK`). It holds the exported name and, on the
/// host, the instantiated function behind a call by argument bytes and the parameters' sizes, so
/// that `scoped_atomics_host::launch::Launch` runs the same kernel on host threads, under loom,
/// in the simulator and on a GPU from one description. The host part is not compiled for
/// `nvptx64`, and nothing of it reaches the PTX. (The crate must depend on `scoped-atomics` under
/// that name: the constants name `::scoped_atomics::kernel::KernelEntry`.)
///
/// Options, in any order:
/// - `instantiate(…)`: a generic kernel gets one entry point per instantiation listed. Each is
///   `NAME = ARG`, or just `ARG`, whose entry point is then named `function_ARG` (the last path
///   segment: `instantiate(Device)` on `fn sum<S: Scope>` exports `sum_Device`); several generic
///   parameters take `(A, B)` in order (`k_Device_4` for `(Device, 4)`). The simulator and a GPU
///   launch an entry point by that name; the host calls the function with the same arguments
///   (`sum::<Device>(…)`). The function's documentation lists its entry points.
/// - `cfg(PREDICATE)`: the entry points exist only where `PREDICATE` also holds, e.g.
///   `cfg(target_feature = "sm_90")` for a kernel that needs thread-block clusters: the sm_70 PTX
///   then has no such entry, instead of failing to build.
///
/// The crate needs `#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]` for the entry
/// points' ABI.
///
/// ```
/// use scoped_atomics::kernel::{grid_stride_1d, index_1d};
/// use scoped_atomics::{AtomicRef, Device, Ordering, Scope};
///
/// /// Adds 1 to each of `len` counters: entry point `increment`.
/// ///
/// /// # Safety
/// /// `counters` is valid for `len` atomic `u32`s.
/// #[scoped_atomics::kernel]
/// pub unsafe fn increment(counters: *mut u32, len: usize) {
///     for i in grid_stride_1d(len) {
///         // SAFETY: `i < len`: the caller's contract.
///         unsafe { AtomicRef::<u32, Device>::from_ptr(counters.add(i)) }.add(1, Ordering::Relaxed);
///     }
/// }
///
/// /// Thread 0 adds 1 to `*total` at scope `S`: entry points `add_one` (`S = Device`) and
/// /// `add_one_Block`.
/// ///
/// /// # Safety
/// /// `total` is valid for atomic `u32` access.
/// #[scoped_atomics::kernel(instantiate(add_one = Device, scoped_atomics::Block))]
/// pub unsafe fn add_one<S: Scope>(total: *mut u32) {
///     if index_1d() == 0 {
///         // SAFETY: the caller's contract.
///         unsafe { AtomicRef::<u32, S>::from_ptr(total) }.add(1, Ordering::Relaxed);
///     }
/// }
///
/// // On the host the functions are called as they are, inside a launch (here a simulated
/// // thread 0 of a grid of one thread; `scoped_atomics_host::executor` runs whole grids).
/// # use scoped_atomics::kernel::{emulation::*, Dim3};
/// # enter(ThreadContext { thread_idx: Dim3::x(0), block_idx: Dim3::x(0),
/// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
/// let mut counters = [0u32; 3];
/// let mut total = 0u32;
/// // SAFETY: valid pointers; one thread.
/// unsafe {
///     increment(counters.as_mut_ptr(), 3);
///     add_one::<Device>(&mut total);
/// }
/// assert_eq!((counters, total), ([1, 1, 1], 1));
/// # leave();
///
/// // The launch descriptions: one per entry point.
/// assert_eq!(INCREMENT.name(), "increment");
/// assert_eq!((ADD_ONE.name(), ADD_ONE_BLOCK.name()), ("add_one", "add_one_Block"));
/// assert_eq!(INCREMENT.param_sizes(), &[8, 8]);
/// ```
///
/// Misuse is a compile error saying why: a function that is not `pub`,
///
/// ```compile_fail
/// #[scoped_atomics::kernel]
/// unsafe fn private(out: *mut u32) {}
/// ```
///
/// one that returns a value (a PTX entry point returns nothing: write results through a
/// pointer),
///
/// ```compile_fail
/// #[scoped_atomics::kernel]
/// pub fn count() -> u32 { 0 }
/// ```
///
/// and a generic kernel without `instantiate(…)`, or with the wrong number of arguments.
///
/// ```compile_fail
/// #[scoped_atomics::kernel]
/// pub fn generic<S: scoped_atomics::Scope>() {}
/// ```
pub use scoped_atomics_macros::kernel;
pub use space::{Global, Shared, StateSpace};
pub use sync::{ArrivalToken, Barrier, BinarySemaphore, CountingSemaphore, Latch, SharedBarrier};
pub use value::{AtomicValue, ValueBits};
