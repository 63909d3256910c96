//! Scoped fences: `cuda::atomic_thread_fence(order, scope)`.

use crate::{Scope, imp};
use core::sync::atomic::Ordering;

/// A memory fence that orders this thread's accesses as seen by the threads of scope `S`
/// (`cuda::atomic_thread_fence(order, cuda::thread_scope_…)`).
///
/// A fence synchronises only with operations and fences whose scopes include this thread and
/// that this fence's scope includes (the scoped fence rules of the libcu++ memory model). A
/// `fence::<Thread>` orders nothing beyond the thread itself and is a compiler fence. On the
/// device: `SeqCst` is `fence.sc`, `AcqRel` is `fence.acq_rel`, and `Acquire` / `Release` are
/// `fence.acquire` / `fence.release` on sm_90 with PTX ISA 8.6, `fence.acq_rel` before that.
///
/// # Panics
/// If `order` is `Relaxed`, with `core`'s message.
///
/// ```
/// use scoped_atomics::{fence, Atomic, Device, Ordering};
/// let data = Atomic::<u32, Device>::new(0);
/// let flag = Atomic::<bool, Device>::new(false);
/// data.store(42, Ordering::Relaxed);
/// fence::<Device>(Ordering::Release);
/// flag.store(true, Ordering::Relaxed);
/// // … another thread of the device:
/// if flag.load(Ordering::Relaxed) {
///     fence::<Device>(Ordering::Acquire);
///     assert_eq!(data.load(Ordering::Relaxed), 42);
/// }
/// ```
#[inline(always)]
#[track_caller]
pub fn fence<S: Scope>(order: Ordering) {
    imp::fence::<S>(order)
}

/// A compiler-only fence: keeps the compiler from moving memory accesses across it, emits no
/// instruction (`core::sync::atomic::compiler_fence`, which aborts LLVM on nvptx64).
///
/// # Panics
/// If `order` is `Relaxed`, with `core`'s message.
///
/// ```
/// use scoped_atomics::{compiler_fence, Ordering};
/// compiler_fence(Ordering::SeqCst);
/// ```
#[inline(always)]
#[track_caller]
pub fn compiler_fence(order: Ordering) {
    imp::compiler_fence(order)
}
