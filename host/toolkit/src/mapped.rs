//! Memory the host and a running kernel share: [`MappedSlice<T>`], a typed allocation that host
//! code reads and writes through `scoped_atomics::Atomic<T, System>` while a kernel runs, and
//! [`MappedAccess`], the host side of such a structure written once for every way it runs.
//!
//! | where the kernel runs | the allocation | the kernel's pointer | the host's accesses |
//! | --- | --- | --- | --- |
//! | host threads ([`executor`](crate::executor)) | [`MappedSlice::new`]: plain host memory | [`MappedSlice::kernel_ptr`], the memory itself | [`MappedSlice::atomic`] (`&Atomic<T, System>`) |
//! | simulator ([`sim`](crate::sim)) | [`MappedSlice::sim_buffer`]: the launch's buffer (a copy) | `Arg::Ptr(buffer, 0)` | [`MappedSlice::sim_host_thread`]: a host thread of the simulation, through `HostCtx` |
//! | GPU | [`MappedSlice::on_gpu`]: page-locked host memory mapped into the device (`cuMemHostAlloc` with `DEVICEMAP`) | [`MappedSlice::kernel_ptr`], the device's address of it (`cuMemHostGetDevicePointer`) | [`MappedSlice::atomic`] |
//!
//! Host code that consumes (or produces) while the kernel runs is written once as a *step*: a
//! function of `&mut impl MappedAccess<W>` that does a few accesses and returns a
//! [`HostStatus`] (`Continue` to be called again, `Done`). On host threads and on a GPU,
//! [`poll`] calls it in a loop on a `&MappedSlice` (its atomics are the real
//! `Atomic<W, System>`'s); in the simulator, [`MappedSlice::sim_host_thread`] makes it a host
//! thread whose accesses go through the simulator's `HostCtx`, checked for races with the
//! kernel's. A step rather than a loop, because the simulator interleaves the host with the
//! device threads between steps, and a simulated access cannot be a real atomic on real
//! memory. The guide's page `host_device_queue` (crate `scoped-atomics`) walks through one.
//!
//! ```
//! use scoped_atomics::Ordering::{Acquire, Relaxed, Release};
//! use scoped_atomics::kernel::Dim3;
//! use scoped_atomics_host::executor::launch;
//! use scoped_atomics_host::mapped::{MappedAccess, MappedSlice, poll};
//! use scoped_atomics_host::sim::HostStatus;
//! use std::time::Duration;
//!
//! // Word 0: a flag the kernel raises after writing word 1.
//! let words = MappedSlice::new(&[0u32, 0]);
//! let at = words.kernel_ptr() as usize; // a kernel argument: an address, Send
//! // The host side, written once: wait for the flag, then take the value.
//! fn take(q: &mut impl MappedAccess<u32>, got: &mut u32) -> HostStatus {
//!     if q.load(0, Acquire) == 0 {
//!         return HostStatus::Continue;
//!     }
//!     // SAFETY: word 1 was written before the flag's release, and not after.
//!     *got = unsafe { q.read(1) };
//!     HostStatus::Done
//! }
//! let mut got = 0;
//! std::thread::scope(|s| {
//!     s.spawn(|| {
//!         launch(Dim3::x(1), Dim3::x(1), || {
//!             let p = at as *mut u32;
//!             // SAFETY: two live words; word 1 is written only here, the flag atomically.
//!             unsafe { p.add(1).write_volatile(42) };
//!             // SAFETY: word 0, aligned and live, is accessed only atomically.
//!             let flag = unsafe { scoped_atomics::Atomic::<u32, scoped_atomics::System>::from_ptr(p) };
//!             flag.store(1, Release);
//!         })
//!         .unwrap()
//!     });
//!     poll(Duration::from_secs(10), || take(&mut &words, &mut got)).unwrap();
//! });
//! assert_eq!(got, 42);
//! assert_eq!(words.atomic(0).load(Relaxed), 1);
//! ```

use crate::sim::{HostCtx, HostStatus, HostThread, HostWord};
use bytemuck::Pod;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::time::{Duration, Instant};

mod access;

pub use access::{MappedAccess, SimWords};

/// Where a [`MappedSlice`]'s memory comes from.
enum Backing {
    /// The global allocator (`None`: nothing allocated, an empty slice).
    Host(Option<std::alloc::Layout>),
    /// `cuMemHostAlloc`, freed with `cuMemFreeHost` in the context it was made in.
    Gpu {
        context: std::sync::Arc<cudarc::driver::CudaContext>,
        device: u64,
    },
}

/// `len` values of `T` in memory the host and a running kernel share: host memory for the
/// executor (and the simulator, which gets a copy as its launch buffer), page-locked host
/// memory mapped into the device for a GPU. The host reaches the values through
/// [`atomic`](Self::atomic) while a kernel runs, and through [`get_mut`](Self::get_mut) when
/// none does (`&mut`: the caller of an `unsafe` launch has promised that no kernel that got
/// [`kernel_ptr`](Self::kernel_ptr) is still running).
///
/// A `MappedBox<T>` is a `MappedSlice<T>` of one value (`MappedSlice::new(&[value])`); a
/// `#[repr(C)]` structure of `u32` fields is shared as a `MappedSlice<u32>` of its words, the
/// kernel casting [`kernel_ptr`](Self::kernel_ptr) to a pointer to the structure.
///
/// ```
/// use scoped_atomics::Ordering;
/// use scoped_atomics_host::mapped::MappedSlice;
/// let mut counts = MappedSlice::new(&[1u64, 2, 3]);
/// counts.atomic(2).fetch_add(10, Ordering::AcqRel);
/// assert_eq!(counts.get_mut(), &[1, 2, 13]);
/// ```
pub struct MappedSlice<T: Pod> {
    ptr: NonNull<T>,
    len: usize,
    backing: Backing,
}

// SAFETY: the slice owns its memory; `T: Pod` values are plain data, reached from other threads
// only through atomics (`&self`) or with exclusive access (`&mut self`).
unsafe impl<T: Pod + Send> Send for MappedSlice<T> {}
// SAFETY: as above; `&self` hands out only atomics and `unsafe` plain accesses.
unsafe impl<T: Pod + Sync> Sync for MappedSlice<T> {}

impl<T: Pod> MappedSlice<T> {
    /// A slice of host memory holding `values`, for kernels on host threads (and, through
    /// [`sim_buffer`](Self::sim_buffer), for the simulator).
    ///
    /// ```
    /// let mut s = scoped_atomics_host::mapped::MappedSlice::new(&[7u32, 8]);
    /// assert_eq!((s.len(), s.get_mut()[1]), (2, 8));
    /// ```
    pub fn new(values: &[T]) -> Self {
        // Aligned for the widest atomic too (`Atomic<T, _>` may need more than `T`: a `u64` on
        // a 32-bit host), as `cuMemHostAlloc`'s pages are.
        let layout = std::alloc::Layout::array::<T>(values.len())
            .and_then(|l| l.align_to(16))
            .expect("slice too large");
        let (ptr, layout) = if layout.size() == 0 {
            (NonNull::dangling(), None)
        } else {
            // SAFETY: a non-zero size.
            let raw = unsafe { std::alloc::alloc(layout) }.cast::<T>();
            let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
            (ptr, Some(layout))
        };
        // SAFETY: `ptr` has room for `values.len()` values and does not overlap `values`.
        unsafe {
            std::ptr::copy_nonoverlapping(values.as_ptr(), ptr.as_ptr(), values.len());
        }
        MappedSlice {
            ptr,
            len: values.len(),
            backing: Backing::Host(layout),
        }
    }

    /// A slice of page-locked host memory mapped into the device of `context`
    /// (`cuMemHostAlloc` with `CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE`), holding
    /// `values`; [`kernel_ptr`](Self::kernel_ptr) is the device's address of it
    /// (`cuMemHostGetDevicePointer`). System-scope atomics of 4 and 8 bytes are atomic there
    /// from both sides (see the libcu++ memory model on mapped memory). Dropping it frees the
    /// memory: every kernel that got its pointer must have finished.
    ///
    /// ```
    /// use scoped_atomics_host::{gpu, mapped::MappedSlice};
    /// if gpu::driver_present() && let Ok(context) = gpu::cudarc::driver::CudaContext::new(0) {
    ///     let mut ring = MappedSlice::on_gpu(&context, &[0u32; 10]).unwrap();
    ///     assert_ne!(ring.kernel_ptr() as usize, 0);
    ///     assert_eq!(ring.get_mut(), &[0; 10]);
    /// }
    /// ```
    pub fn on_gpu(
        context: &std::sync::Arc<cudarc::driver::CudaContext>,
        values: &[T],
    ) -> Result<Self, cudarc::driver::DriverError> {
        use cudarc::driver::{result, sys};
        context.bind_to_thread()?;
        let bytes = size_of_val(values).max(1);
        // SAFETY: a page-locked allocation of `bytes` bytes (page-aligned, so aligned for `T`),
        // mapped into the device's address space; filled with `values` before anything reads it.
        unsafe {
            let host = result::malloc_host(
                bytes,
                sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE,
            )?
            .cast::<T>();
            std::ptr::copy_nonoverlapping(values.as_ptr(), host, values.len());
            let mut device = 0;
            let mapped = sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0).result();
            if let Err(e) = mapped {
                let _ = result::free_host(host.cast());
                return Err(e);
            }
            Ok(MappedSlice {
                ptr: NonNull::new(host).expect("cuMemHostAlloc returned null"),
                len: values.len(),
                backing: Backing::Gpu {
                    context: context.clone(),
                    device,
                },
            })
        }
    }

    /// The number of values.
    ///
    /// ```
    /// assert_eq!(scoped_atomics_host::mapped::MappedSlice::new(&[0u8; 3]).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no value.
    ///
    /// ```
    /// assert!(scoped_atomics_host::mapped::MappedSlice::<u32>::new(&[]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pointer a kernel gets: the memory itself for host threads, the device's address of
    /// it for a GPU (meaningless on the host; pass it as the kernel argument, e.g. `as u64`
    /// to cudarc's `arg`).
    ///
    /// ```
    /// let s = scoped_atomics_host::mapped::MappedSlice::new(&[5u32]);
    /// // Host memory: the kernel's pointer is the host's.
    /// assert_eq!(unsafe { s.kernel_ptr().read_volatile() }, 5);
    /// ```
    pub fn kernel_ptr(&self) -> *mut T {
        match self.backing {
            Backing::Host(_) => self.ptr.as_ptr(),
            Backing::Gpu { device, .. } => device as *mut T,
        }
    }

    fn check(&self, i: usize) -> *mut T {
        assert!(
            i < self.len,
            "index {i} out of bounds of a mapped slice of {} values",
            self.len
        );
        // SAFETY: in bounds (checked above).
        unsafe { self.ptr.as_ptr().add(i) }
    }

    /// Value `i` as a system-scope atomic, usable while a kernel runs (the kernel's accesses to
    /// it must be atomic too, at system scope to be morally strong with the host's). Panics
    /// (naming both numbers) when `i` is out of bounds. Not in a `--cfg loom` build, whose
    /// atomics are model objects, not memory.
    ///
    /// ```
    /// use scoped_atomics::Ordering;
    /// let s = scoped_atomics_host::mapped::MappedSlice::new(&[0u32; 4]);
    /// assert_eq!(s.atomic(3).swap(9, Ordering::AcqRel), 0);
    /// assert_eq!(s.atomic(3).load(Ordering::Acquire), 9);
    /// ```
    #[cfg(not(loom))]
    pub fn atomic(&self, i: usize) -> &scoped_atomics::Atomic<T, scoped_atomics::System>
    where
        T: scoped_atomics::AtomicPrimitive,
    {
        let at = self.check(i);
        let align = align_of::<scoped_atomics::Atomic<T, scoped_atomics::System>>();
        assert!(
            (at as usize).is_multiple_of(align),
            "value {i} of a mapped slice is not aligned to the {align} bytes its atomic needs"
        );
        // SAFETY: in bounds and aligned for the atomic (checked); live as long as `self`;
        // every host access while `&self` lives is this atomic or an `unsafe` plain one whose
        // caller rules out a race; `T: Pod` holds any bits a kernel writes.
        unsafe { scoped_atomics::Atomic::from_ptr(at) }
    }

    /// Reads value `i` plainly (a volatile read).
    ///
    /// # Safety
    /// No write of it (by the kernel or another host thread) races with this read: the
    /// structure's protocol orders them (e.g. the value was published by a release the host
    /// acquired, and is not written again until the host says so).
    ///
    /// ```
    /// let s = scoped_atomics_host::mapped::MappedSlice::new(&[3u16, 4]);
    /// // SAFETY: no kernel runs.
    /// assert_eq!(unsafe { s.read(1) }, 4);
    /// ```
    pub unsafe fn read(&self, i: usize) -> T {
        // SAFETY: in bounds; no racing write (the caller's contract).
        unsafe { self.check(i).read_volatile() }
    }

    /// Writes value `i` plainly (a volatile write).
    ///
    /// # Safety
    /// No other access of it races with this write (as for [`read`](Self::read)).
    ///
    /// ```
    /// let mut s = scoped_atomics_host::mapped::MappedSlice::new(&[3u16, 4]);
    /// // SAFETY: no kernel runs.
    /// unsafe { s.write(0, 8) };
    /// assert_eq!(s.get_mut(), &[8, 4]);
    /// ```
    pub unsafe fn write(&self, i: usize, value: T) {
        // SAFETY: in bounds; no racing access (the caller's contract).
        unsafe { self.check(i).write_volatile(value) }
    }

    /// The values, when no kernel that got [`kernel_ptr`](Self::kernel_ptr) runs any more.
    ///
    /// ```
    /// let mut s = scoped_atomics_host::mapped::MappedSlice::new(&[1i32, 2]);
    /// s.get_mut()[0] = -1;
    /// assert_eq!(s.get_mut(), &[-1, 2]);
    /// ```
    pub fn get_mut(&mut self) -> &mut [T] {
        // SAFETY: `len` initialised values, exclusively borrowed; no kernel runs (see above).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The values' bytes, as a simulator launch's buffer (`Launch::buffers`): the simulator
    /// runs on its own copy; [`update_from_sim`](Self::update_from_sim) takes the result back.
    ///
    /// ```
    /// let mut s = scoped_atomics_host::mapped::MappedSlice::new(&[1u32, 2]);
    /// assert_eq!(s.sim_buffer(), [1, 0, 0, 0, 2, 0, 0, 0]);
    /// ```
    pub fn sim_buffer(&mut self) -> Vec<u8> {
        bytemuck::cast_slice(self.get_mut()).to_vec()
    }

    /// Copies a simulator launch's buffer (from `Outcome::buffers`) back into the values.
    /// Panics, naming both sizes, when the buffer's size differs.
    ///
    /// ```
    /// let mut s = scoped_atomics_host::mapped::MappedSlice::new(&[0u32; 2]);
    /// s.update_from_sim(&[9, 0, 0, 0, 1, 0, 0, 0]);
    /// assert_eq!(s.get_mut(), &[9, 1]);
    /// ```
    pub fn update_from_sim(&mut self, buffer: &[u8]) {
        let values = self.get_mut();
        assert_eq!(
            buffer.len(),
            size_of_val(values),
            "a simulator buffer of {} bytes for a mapped slice of {} bytes",
            buffer.len(),
            size_of_val(values)
        );
        bytemuck::cast_slice_mut(values).copy_from_slice(buffer);
    }

    /// A host thread of a simulation running `step` on this slice as the launch's buffer
    /// `buffer` (placed there with [`sim_buffer`](Self::sim_buffer)): each scheduling step
    /// calls `step` with a [`SimWords`] view, whose accesses are the simulator's `HostCtx`
    /// ones (system scope, checked for races with the kernel's), until it returns `Done`. The
    /// same `step` runs on real memory with [`poll`].
    ///
    /// ```
    /// use scoped_atomics::Ordering;
    /// use scoped_atomics_host::mapped::{MappedAccess, MappedSlice};
    /// use scoped_atomics_host::sim::{Arg, EXAMPLE_PTX, HostStatus, Launch, Simulator};
    /// let mut counts = MappedSlice::new(&[0u32, 0]);
    /// let host = counts.sim_host_thread(0, |q| {
    ///     q.fetch_add(1, 5, Ordering::Relaxed); // word 1: the host's
    ///     HostStatus::Done
    /// });
    /// // `count` adds every thread's index to word 0, at gpu scope.
    /// let mut l = Launch::new([1; 3], [4, 1, 1], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![counts.sim_buffer()];
    /// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// let out = kernel.launch(&l, vec![host]).unwrap();
    /// counts.update_from_sim(&out.buffers[0]);
    /// assert_eq!(counts.get_mut(), &[6, 5]);
    /// ```
    pub fn sim_host_thread(
        &self,
        buffer: usize,
        mut step: impl FnMut(&mut SimWords<'_, '_, '_, T>) -> HostStatus + Send + 'static,
    ) -> HostThread
    where
        T: HostWord,
    {
        let len = self.len;
        HostThread::new(move |ctx: &mut HostCtx| {
            let base = ctx.buffer(buffer);
            step(&mut SimWords {
                ctx,
                base,
                len,
                values: PhantomData,
            })
        })
    }
}

impl<T: Pod> Drop for MappedSlice<T> {
    fn drop(&mut self) {
        match &self.backing {
            Backing::Host(None) => {}
            // SAFETY: allocated in `new` with this layout.
            Backing::Host(Some(layout)) => unsafe {
                std::alloc::dealloc(self.ptr.as_ptr().cast(), *layout)
            },
            Backing::Gpu { context, .. } => {
                let _ = context.bind_to_thread();
                // SAFETY: allocated by `cuMemHostAlloc` in `on_gpu`; no kernel that got its
                // pointer still runs (the type's contract).
                let _ = unsafe { cudarc::driver::result::free_host(self.ptr.as_ptr().cast()) };
            }
        }
    }
}

/// Why [`poll`] gave up: the step had not returned `Done` when the time ran out.
///
/// ```
/// use scoped_atomics_host::{mapped::poll, sim::HostStatus};
/// let e = poll(std::time::Duration::ZERO, || HostStatus::Continue).unwrap_err();
/// assert!(e.to_string().contains("not done after"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollTimedOut {
    /// The time given.
    pub timeout: Duration,
    /// Steps called.
    pub steps: u64,
}

impl std::fmt::Display for PollTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the host step was not done after {:?} ({} steps): the other side never got that far",
            self.timeout, self.steps
        )
    }
}

impl std::error::Error for PollTimedOut {}

/// Calls `step` until it returns `Done` (`Continue` and `Parked`: again, after yielding the
/// CPU), or until `timeout` has passed — a kernel that never publishes is then an error, not a
/// hang. The real-memory counterpart of [`MappedSlice::sim_host_thread`].
///
/// ```
/// use scoped_atomics_host::{mapped::poll, sim::HostStatus};
/// let mut calls = 0;
/// poll(std::time::Duration::from_secs(1), || {
///     calls += 1;
///     if calls == 3 { HostStatus::Done } else { HostStatus::Continue }
/// })
/// .unwrap();
/// assert_eq!(calls, 3);
/// ```
pub fn poll(timeout: Duration, mut step: impl FnMut() -> HostStatus) -> Result<(), PollTimedOut> {
    let deadline = Instant::now() + timeout;
    let mut steps = 0;
    loop {
        steps += 1;
        if step() == HostStatus::Done {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(PollTimedOut { timeout, steps });
        }
        std::thread::yield_now();
    }
}
