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
