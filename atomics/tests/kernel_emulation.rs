//! The host emulation of the kernel API: block-shared arrays are filled with a recognisable
//! non-zero pattern (shared memory is uninitialised on the device), aligned as their element
//! type, one per call site and block, and live as long as the block (this also runs the
//! allocation under Miri).

use scoped_atomics::kernel::emulation::{BlockContext, SHARED_FILL, ThreadContext, enter, leave};
use scoped_atomics::kernel::{Dim3, block_idx, thread_idx};
use scoped_atomics::{AtomicRef, Block, Ordering, block_shared};
use std::sync::Arc;

fn in_block(block: &Arc<BlockContext>, index: u32, f: impl FnOnce()) {
    enter(ThreadContext {
        thread_idx: Dim3::new(0, 0, 0),
        block_idx: Dim3::new(index, 0, 0),
        block_dim: Dim3::x(1),
        grid_dim: Dim3::x(2),
        block: block.clone(),
    });
    f();
    leave();
}

fn bins() -> *mut [u32; 8] {
    block_shared!(BINS: [u32; 8])
}

/// What a fresh `u32` of a block-shared array reads on the host.
const FILLED: u32 = u32::from_ne_bytes([SHARED_FILL; 4]);

#[test]
fn shared_arrays_are_filled_not_zeroed_per_site_and_per_block() {
    assert_ne!(FILLED, 0, "the fill pattern must not look initialised");
    let (first, second) = (BlockContext::new(1), BlockContext::new(1));
    let mut seen = Vec::new();
    in_block(&first, 0, || {
        let p = bins();
        // SAFETY: the block's array lives as long as `first`; only this thread uses it.
        assert_eq!(
            unsafe { *p },
            [FILLED; 8],
            "a fresh array holds the fill pattern"
        );
        // SAFETY: as above.
        let bin = unsafe { AtomicRef::<u32, Block>::from_ptr(p.cast::<u32>().add(2)) };
        bin.store(0, Ordering::Relaxed);
        bin.fetch_add(5, Ordering::Relaxed);
        assert_eq!(bins(), p, "one array per call site and block");
        let other_site = block_shared!(OTHER: [u64; 2]);
        assert_ne!(other_site.cast::<u8>(), p.cast::<u8>());
        assert_eq!(other_site.addr() % align_of::<u64>(), 0);
        seen.push(p);
        assert_eq!((block_idx().x, thread_idx().x), (0, 0));
    });
    in_block(&first, 0, || {
        // SAFETY: as above.
        assert_eq!(unsafe { (*bins())[2] }, 5, "the array outlives one thread");
    });
    in_block(&second, 1, || {
        let p = bins();
        assert_ne!(p, seen[0], "another block has its own array");
        // SAFETY: as above, for `second`.
        assert_eq!(unsafe { *p }, [FILLED; 8]);
    });
}

/// Issue 10, bug 9: the array has its element type's alignment (the device's `.align`), not a
/// fixed 16.
#[test]
fn shared_arrays_are_aligned_as_their_element_type() {
    #[repr(C, align(64))]
    struct Line([u8; 64]);
    let block = BlockContext::new(1);
    in_block(&block, 0, || {
        let lines = block_shared!(LINES: [Line; 2]);
        assert_eq!(lines.addr() % 64, 0, "{lines:p} is not 64-aligned");
        let bytes = block_shared!(BYTES: [u8; 3]);
        // SAFETY: the block's array; only this thread uses it.
        assert_eq!(unsafe { *bytes }, [SHARED_FILL; 3]);
    });
}

#[test]
#[should_panic(expected = "ran outside a kernel launch")]
fn kernel_functions_outside_a_launch_panic() {
    let _ = thread_idx();
}
