use super::*;
use scoped_atomics::kernel::{block_dim, block_idx, grid_dim, sync_threads, thread_idx};
use std::sync::Mutex;
use std::sync::atomic::AtomicU32;

#[test]
fn every_thread_runs_once_with_its_coordinates() {
    let (grid, block) = (Dim3::new(2, 3, 1), Dim3::new(4, 1, 2));
    let seen = Mutex::new(Vec::new());
    launch(grid, block, || {
        assert_eq!((block_dim(), grid_dim()), (block, grid));
        seen.lock()
            .unwrap()
            .push((block_idx().linear(grid), thread_idx().linear(block)));
    })
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    let expected: Vec<_> = (0..6).flat_map(|b| (0..8).map(move |t| (b, t))).collect();
    assert_eq!(seen, expected);
}

#[test]
fn sync_threads_separates_phases() {
    let phase_one = scoped_atomics::device::AtomicU32::new(0);
    launch(Dim3::x(3), Dim3::x(16), || {
        phase_one.fetch_add(1, scoped_atomics::Ordering::Relaxed);
        sync_threads();
        // Every thread of *this block* has arrived: at least 16 increments are visible.
        assert!(phase_one.load(scoped_atomics::Ordering::Relaxed) >= 16);
    })
    .unwrap();
}

#[test]
fn oversized_launches_are_errors_not_hangs() {
    let block = launch(Dim3::x(1), Dim3::x(MAX_BLOCK_THREADS + 1), || {});
    assert_eq!(block, Err(LaunchError::BlockTooLarge { threads: 1025 }));
    let resident = Launch::new(Dim3::x(8), Dim3::x(1024))
        .resident_blocks(5)
        .run(|| {});
    assert_eq!(
        resident,
        Err(LaunchError::TooManyResident {
            resident_blocks: 5,
            block_threads: 1024
        })
    );
    let cooperative = launch_cooperative(Dim3::x(5), Dim3::x(1024), || {});
    assert_eq!(
        cooperative,
        Err(LaunchError::NotResident {
            blocks: 5,
            resident_blocks: 4,
            block_threads: 1024
        })
    );
    let why = cooperative.unwrap_err().to_string();
    assert!(why.contains("needs every block resident"), "{why}");
    assert!(why.contains("only 4 blocks of 1024 threads"), "{why}");
}

#[test]
fn a_grid_larger_than_the_resident_threads_runs_in_waves() {
    // 40 blocks of 128 threads, 3 resident: 14 waves; every thread runs once, every block's
    // barrier and shared memory are its own.
    let (grid, block) = (Dim3::new(10, 4, 1), Dim3::new(64, 2, 1));
    let run = Launch::new(grid, block).resident_blocks(3);
    assert_eq!(run.waves(), Ok(14));
    let seen = Mutex::new(vec![0u32; 40 * 128]);
    let resident_now = AtomicU32::new(0);
    let most_resident = AtomicU32::new(0);
    run.run(|| {
        let shared = scoped_atomics::block_shared!(COUNT: [u32; 1]).cast::<u32>();
        // SAFETY: the block's shared word, accessed atomically only.
        let count =
            unsafe { scoped_atomics::AtomicRef::<u32, scoped_atomics::Block>::from_ptr(shared) };
        if thread_idx().linear(block) == 0 {
            let now = resident_now.fetch_add(1, Ordering::SeqCst) + 1;
            most_resident.fetch_max(now, Ordering::SeqCst);
            // Shared memory starts uninitialised (the emulation fills it with a pattern).
            count.store(0, Ordering::Relaxed);
        }
        sync_threads();
        count.fetch_add(1, Ordering::Relaxed);
        sync_threads();
        // Fresh shared memory per block: exactly this block's 128 increments.
        assert_eq!(count.load(Ordering::Relaxed), 128);
        sync_threads();
        if thread_idx().linear(block) == 0 {
            resident_now.fetch_sub(1, Ordering::SeqCst);
        }
        let i = block_idx().linear(grid) * 128 + thread_idx().linear(block);
        seen.lock().unwrap()[i as usize] += 1;
    })
    .unwrap();
    assert!(seen.into_inner().unwrap().iter().all(|&n| n == 1));
    assert!(most_resident.load(Ordering::SeqCst) <= 3);
}

#[test]
fn a_launch_of_a_quarter_million_threads_completes() {
    // 256 blocks of 1024 threads: 64 waves over the default 4 places. (The 1024 x 1024
    // launch is the `launch` benchmark.)
    let sum = AtomicU32::new(0);
    launch(Dim3::x(256), Dim3::x(1024), || {
        sum.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(sum.load(Ordering::Relaxed), 256 * 1024);
}

#[test]
fn a_panicking_thread_is_reported() {
    let result = launch(Dim3::x(2), Dim3::x(2), || {
        if block_idx().x == 1 && thread_idx().x == 1 {
            panic!("boom");
        }
    });
    assert_eq!(
        result,
        Err(LaunchError::Panicked {
            block: Dim3::new(1, 0, 0),
            thread: Dim3::new(1, 0, 0),
            message: "boom".into()
        })
    );
}
