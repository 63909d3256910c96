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
//! `--cfg loom`, `core::sync::atomic` elsewhere. Under loom, `from_ptr`, `from_mut`, `as_ptr`,
//! `get_mut` and `AtomicRef::new` do not exist (loom's atomics cannot view plain memory), and
//! `new` is not `const`.
//!
//! # 8- and 16-bit atomics on the device
//! The PTX memory model gives mixed-size races no guarantees (PTX ISA 8.7.2), so every access to
//! one location has one size: 16-bit atomics use 16-bit `ld`/`st`/`atom.cas`, and 8-bit atomics
//! (`u8`, `i8`, `bool`) access the aligned 32-bit word that contains them. Caveat of the latter:
//! the neighbouring bytes of that word are read and rewritten (with their current value) by a
//! compare-exchange loop, so a plain store to a neighbouring byte that races with it is a
//! mixed-size data race, for which the PTX model makes no promise. Keep other data out of an
//! 8-bit atomic's word, or make every access to that word atomic.

#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]
#![warn(missing_docs)]

#[cfg(any(feature = "std", loom, test))]
extern crate std;

mod atomic;
mod atomic_ref;
mod fence;
pub mod guide;
mod imp;
pub mod kernel;
mod layout;
pub mod model;
mod ordering;
mod primitive;
mod scope;
mod scoped;
pub mod sync;

pub use atomic::Atomic;
pub use atomic_ref::AtomicRef;
pub use core::sync::atomic::Ordering;
pub use fence::{compiler_fence, fence};
pub use primitive::AtomicPrimitive;
pub use scope::{Block, Cluster, Device, Scope, ScopeKind, System, Thread};
pub use scoped::{
    AtomicBool, AtomicF32, AtomicF64, AtomicI8, AtomicI16, AtomicI32, AtomicI64, AtomicIsize,
    AtomicPtr, AtomicU8, AtomicU16, AtomicU32, AtomicU64, AtomicUsize, block, cluster, device,
    system, thread,
};
pub use sync::{ArrivalToken, Barrier, BinarySemaphore, CountingSemaphore, Latch};
