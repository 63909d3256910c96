//! The example kernels of `gpu-kernels` on tiny grids under loom, launched by the `scoped-atomics-host` executor
//! (`launch_loom`: the topology comes from the launch), and the buggy twin of message passing,
//! which the mirror reports.

#![cfg(loom)]

use gpu_kernels::kernels::{self, BINS, Ring};
use loom_tests::model;
use scoped_atomics::kernel::Dim3;
use scoped_atomics::model::{Position, set_position, spawn_in};
use scoped_atomics::{Barrier, Device};
use scoped_atomics_host::executor::launch_loom;

/// Kernel arguments: raw pointers into memory the model owns, `Send + Sync` as kernel arguments
/// are (the kernels synchronise every access).
struct Arg<T>(*mut T);
impl<T> Clone for Arg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Arg<T> {}
// SAFETY: see above.
unsafe impl<T> Send for Arg<T> {}
// SAFETY: see above.
unsafe impl<T> Sync for Arg<T> {}

/// Kernel memory: allocated by the model, freed (returning its final content) after the launch.
fn alloc<T>(value: T) -> Arg<T> {
    Arg(Box::into_raw(Box::new(value)))
}

/// # Safety
/// Every thread that used the memory has been joined.
unsafe fn free<T>(memory: Arg<T>) -> T {
    // SAFETY: allocated by `alloc`, freed once.
    *unsafe { Box::from_raw(memory.0) }
}

#[test]
fn histogram_two_blocks_of_one_thread() {
    model(|| {
        let (input, bins) = (alloc([3u32, 19, 4]), alloc([0u32; BINS]));
        launch_loom(Dim3::x(2), Dim3::x(1), move || {
            let (i, b) = (input, bins);
            // SAFETY: three inputs and BINS bins, live until the launch returned.
            unsafe { kernels::histogram(i.0.cast(), 3, b.0.cast()) }
        })
        .unwrap();
        // SAFETY: the launch has joined every thread that used the memory.
        let (_, bins) = unsafe { (free(input), free(bins)) };
        let mut expected = [0u32; BINS];
        expected[3] = 2; // 3 and 19
        expected[4] = 1;
        assert_eq!(bins, expected);
    });
}

fn message_passing(buggy: bool) {
    model(move || {
        let cells = alloc([0u32; 3]);
        launch_loom(Dim3::x(2), Dim3::x(1), move || {
            let cells = cells;
            let base = cells.0.cast::<u32>();
            // SAFETY: three cells (data, flag, result), live for the launch.
            let (data, flag, result) = unsafe { (base, base.add(1), base.add(2)) };
            if buggy {
                // SAFETY: as above.
                unsafe { kernels::message_passing_block_scope_bug(data, flag, result) }
            } else {
                // SAFETY: as above.
                unsafe { kernels::message_passing(data, flag, result) }
            }
        })
        .unwrap();
        // SAFETY: the launch has joined every thread.
        assert_eq!(unsafe { free(cells) }, [42, 1, 42]);
    });
}

#[test]
fn message_passing_with_a_device_scope_flag_is_correct() {
    message_passing(false);
}

#[test]
#[should_panic(expected = "scope race")]
fn message_passing_with_a_block_scope_flag_is_a_scope_race() {
    message_passing(true);
}

#[test]
fn grid_barrier_two_blocks_two_phases() {
    model(|| {
        set_position(Position::host());
        let (barrier, cells) = (alloc(Barrier::<Device>::new(2)), alloc([0u32; 4]));
        launch_loom(Dim3::x(2), Dim3::x(1), move || {
            let (b, cells) = (barrier, cells);
            let base = cells.0.cast::<u32>();
            // SAFETY: two slots and two sums, and the barrier, live for the launch.
            unsafe { kernels::grid_barrier(b.0, base, base.add(2), 2) }
        })
        .unwrap();
        // SAFETY: the launch has joined every thread.
        let (_, cells) = unsafe { (free(barrier), free(cells)) };
        // Thread i sums its neighbour's slots over phases 0 and 1: (0 + n) + (1000 + n).
        assert_eq!(&cells[2..], &[1000 + 2, 1000]);
    });
}

#[test]
fn ring_from_a_device_thread_to_a_host_thread() {
    model(|| {
        set_position(Position::host());
        let ring = alloc(Ring::new());
        let r = ring;
        let consumer = spawn_in(Position::host(), move || {
            let r = r;
            // SAFETY: the ring is live until both sides are joined; the only consumer.
            (0..2)
                .map(|_| unsafe { Ring::pop(r.0) })
                .collect::<Vec<_>>()
        });
        launch_loom(Dim3::x(1), Dim3::x(1), move || {
            let r = r;
            // SAFETY: as above; the only producer.
            unsafe { kernels::ring_producer(r.0, 7, 2) }
        })
        .unwrap();
        assert_eq!(consumer.join().unwrap(), [7, 8]);
        // SAFETY: both sides joined.
        let ring = unsafe { free(ring) };
        assert_eq!(ring.head.into_inner(), 2);
    });
}
