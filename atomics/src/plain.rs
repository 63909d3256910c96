//! Plain (non-atomic) accesses to memory that is also used through [`AtomicRef`] views: the
//! initialisation before a barrier, the read of a result after it.
//!
//! Kernels routinely write memory plainly, synchronise (a `sync_threads`, a [`Barrier`], a
//! release/acquire pair), and then use the same memory atomically — or the other way round. A
//! plain access races with every access of another thread that is not ordered with it by
//! happens-before, whatever the other access's scope: on a GPU that is a data race (PTX ISA
//! 8.7.1), undefined behaviour in Rust.
//!
//! [`read`] and [`write`](fn@write) are that plain access, nothing more: `ptr.read()` /
//! `ptr.write(value)`, a plain `ld`/`st` on the device (no `.volatile`, no `.relaxed`, no fence)
//! and a plain load or store on the host. Under `--cfg loom` the mirror logs them on the same location as the
//! `AtomicRef` views of that memory, so it reports a plain access racing with an atomic one (or
//! with another plain one) — naming both operations and both threads — and lets a program that
//! is correct because of a barrier pass. Memory that is only ever accessed plainly can use
//! ordinary Rust accesses; use these where the location is also viewed atomically.
//!
//! [`read_shared`]/[`write_shared`] and [`read_global`]/[`write_global`] are the same accesses
//! for memory the caller knows to be shared or global: on the device they name the state space
//! (`ld.shared.b32`), as [`AtomicRef::from_shared_ptr`](crate::AtomicRef::from_shared_ptr) does
//! for atomics.
//!
//! ```
//! use scoped_atomics::{plain, AtomicRef, Device, Ordering};
//! let mut counter = 7u32;
//! let p: *mut u32 = &mut counter;
//! // SAFETY: `p` is valid; no other thread runs yet.
//! unsafe { plain::write(p, 0) };
//! // … a barrier here in a kernel …
//! // SAFETY: valid and aligned; every access that may race with it is atomic.
//! unsafe { AtomicRef::<u32, Device>::from_ptr(p) }.fetch_add(2, Ordering::Relaxed);
//! // … and another barrier before the result is read plainly.
//! // SAFETY: as above; the atomic use is over.
//! assert_eq!(unsafe { plain::read(p) }, 2);
//! ```
//!
//! [`AtomicRef`]: crate::AtomicRef
//! [`Barrier`]: crate::Barrier

use crate::AtomicPrimitive;

/// Reads the `T` at `ptr` plainly: `ptr.read()` (a plain `ld` on the device). Under `--cfg
/// loom`, the mirror checks the read against every access to the location by another thread.
///
/// # Safety
/// `ptr` is valid for reads and aligned, and no write to the location by another thread races
/// with this read: each is ordered with it by happens-before (a barrier, a release/acquire
/// pair, a spawn or join). A race is a data race on a GPU and undefined behaviour in Rust, and
/// the loom mirror reports it.
///
/// ```
/// let x = 5u64;
/// // SAFETY: `x` is live and no thread writes it.
/// assert_eq!(unsafe { scoped_atomics::plain::read(&x) }, 5);
/// ```
#[inline(always)]
#[track_caller]
pub unsafe fn read<T: AtomicPrimitive>(ptr: *const T) -> T {
    #[cfg(loom)]
    // SAFETY: the caller's contract: valid for reads of `T`; a read check writes nothing.
    unsafe {
        crate::imp::plain_access(
            ptr.cast_mut().cast(),
            size_of::<T>(),
            core::any::type_name::<T>(),
            None,
        )
    };
    // SAFETY: the caller's contract.
    unsafe { ptr.read() }
}

/// Writes `value` to the `T` at `ptr` plainly: `ptr.write(value)` (a plain `st` on the device).
/// Under `--cfg loom`, the mirror logs the write on the location, so later atomic reads see it,
/// and checks it against every access to the location by another thread.
///
/// # Safety
/// `ptr` is valid for writes and aligned, and no access to the location by another thread races
/// with this write (see [`read`](fn@read)).
///
/// ```
/// let mut x = 0i32;
/// // SAFETY: `x` is live and no other thread uses it.
/// unsafe { scoped_atomics::plain::write(&mut x, -3) };
/// assert_eq!(x, -3);
/// ```
#[inline(always)]
#[track_caller]
pub unsafe fn write<T: AtomicPrimitive>(ptr: *mut T, value: T) {
    #[cfg(loom)]
    {
        // The mirror logs values as the little-endian bytes of the memory, zero-extended.
        let mut bytes = [0u8; 8];
        let size = size_of::<T>().min(bytes.len());
        // SAFETY: `value` is a live `T` of at least `size` bytes, and `bytes` holds 8.
        unsafe {
            core::ptr::copy_nonoverlapping(
                (&raw const value).cast::<u8>(),
                bytes.as_mut_ptr(),
                size,
            )
        };
        // SAFETY: the caller's contract: valid for writes of `T`; the mirror writes `size_of::<T>()`
        // bytes (it rejects wider types).
        unsafe {
            crate::imp::plain_access(
                ptr.cast(),
                size_of::<T>(),
                core::any::type_name::<T>(),
                Some(u64::from_le_bytes(bytes)),
            )
        };
    }
    // Under loom as well: the mirror has written the same bytes, this keeps a pointer's
    // provenance.
    // SAFETY: the caller's contract.
    unsafe { ptr.write(value) };
}

/// [`read`](fn@read) of memory the caller knows to be the block's **shared** memory (a
/// [`block_shared!`](crate::block_shared) array): on the device `ld.shared` with the 32-bit
/// shared address (what `cvta.to.shared` gives, computed as the distance from the shared window,
/// which LLVM folds into the array's index) — ptxas emits `LDS` and 32-bit address arithmetic, as
/// for CUDA C++, where a plain access gets a generic `LD` and 64-bit arithmetic. On the host and
/// under loom it is [`read`](fn@read).
///
/// # Safety
/// That of [`read`](fn@read), and `ptr` is a generic address of the calling thread's block's
/// shared memory (a debug device build checks this with `isspacep.shared` and traps otherwise).
///
/// ```
/// let x = 5u32;
/// // SAFETY: live, and no thread writes it; in a kernel `&x` would be in shared memory.
/// assert_eq!(unsafe { scoped_atomics::plain::read_shared(&x) }, 5);
/// ```
#[inline(always)]
#[track_caller]
pub unsafe fn read_shared<T: AtomicPrimitive>(ptr: *const T) -> T {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's contract.
    return unsafe { crate::imp::plain_space::read_shared(ptr) };
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: the caller's contract.
    return unsafe { read(ptr) };
}

/// [`write`](fn@write) to the block's **shared** memory: on the device `st.shared` with the
/// 32-bit shared address (see [`read_shared`]). On the host and under loom it is [`write`](fn@write).
///
/// # Safety
/// That of [`write`](fn@write), and `ptr` is a generic address of the calling thread's block's
/// shared memory (checked with `isspacep.shared` in a debug device build).
///
/// ```
/// let mut x = 0u16;
/// // SAFETY: live and not otherwise used; in a kernel it would be in shared memory.
/// unsafe { scoped_atomics::plain::write_shared(&mut x, 9) };
/// assert_eq!(x, 9);
/// ```
#[inline(always)]
#[track_caller]
pub unsafe fn write_shared<T: AtomicPrimitive>(ptr: *mut T, value: T) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's contract.
    unsafe {
        crate::imp::plain_space::write_shared(ptr, value)
    };
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: the caller's contract.
    unsafe {
        write(ptr, value)
    };
}

/// [`read`](fn@read) of memory the caller knows to be **global** memory: on the device
/// `ld.global` after `cvta.to.global` of the address (see [`read_shared`]). On the host and
/// under loom it is [`read`](fn@read).
///
/// # Safety
/// That of [`read`](fn@read), and `ptr` is a generic address of global memory (checked with
/// `isspacep.global` in a debug device build).
///
/// ```
/// let x = -2i64;
/// // SAFETY: live, and no thread writes it.
/// assert_eq!(unsafe { scoped_atomics::plain::read_global(&x) }, -2);
/// ```
#[inline(always)]
#[track_caller]
pub unsafe fn read_global<T: AtomicPrimitive>(ptr: *const T) -> T {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's contract.
    return unsafe { crate::imp::plain_space::read_global(ptr) };
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: the caller's contract.
    return unsafe { read(ptr) };
}

/// [`write`](fn@write) to **global** memory: on the device `st.global` after `cvta.to.global`
/// (see [`read_shared`]). On the host and under loom it is [`write`](fn@write).
///
/// # Safety
/// That of [`write`](fn@write), and `ptr` is a generic address of global memory (checked with
/// `isspacep.global` in a debug device build).
///
/// ```
/// let mut x = 0.0f32;
/// // SAFETY: live and not otherwise used.
/// unsafe { scoped_atomics::plain::write_global(&mut x, 1.5) };
/// assert_eq!(x, 1.5);
/// ```
#[inline(always)]
#[track_caller]
pub unsafe fn write_global<T: AtomicPrimitive>(ptr: *mut T, value: T) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's contract.
    unsafe {
        crate::imp::plain_space::write_global(ptr, value)
    };
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: the caller's contract.
    unsafe {
        write(ptr, value)
    };
}
