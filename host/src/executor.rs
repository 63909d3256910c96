//! Runs a kernel body over a grid on host threads, and the same launch under loom.
//!
//! Every thread of the grid is a live host thread for the whole launch, so `sync_threads` and
//! grid-wide barriers work as on a GPU where the grid is resident (a cooperative launch). Each
//! thread runs with `scoped_atomics::kernel`'s coordinates set; under loom each one is also given
//! its position (device 0, its block), so the loom mirror checks the kernel's scopes against the
//! launch's topology.

use scoped_atomics::kernel::Dim3;
use scoped_atomics::kernel::emulation::{self, BlockContext, ThreadContext};
use std::fmt;

/// The most threads a block may have (CUDA's limit).
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// The most threads a host launch runs at once: every thread of the grid is a host thread.
pub const MAX_GRID_THREADS: u32 = 4096;
/// The most threads of a loom launch: loom allows 5 threads, one of which runs the model.
pub const MAX_LOOM_THREADS: u32 = 4;

/// Why a launch was refused or failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaunchError {
    /// An extent with a zero component.
    Empty { grid: Dim3, block: Dim3 },
    /// A block larger than [`MAX_BLOCK_THREADS`].
    BlockTooLarge { threads: u64 },
    /// A grid with more threads than the executor runs at once.
    GridTooLarge { threads: u64, max: u32 },
    /// A kernel thread panicked; the message of the first one.
    Panicked {
        block: Dim3,
        thread: Dim3,
        message: String,
    },
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::Empty { grid, block } => {
                write!(f, "empty launch: grid {grid:?}, block {block:?}")
            }
            LaunchError::BlockTooLarge { threads } => write!(
                f,
                "a block of {threads} threads is larger than the {MAX_BLOCK_THREADS} a block may have"
            ),
            LaunchError::GridTooLarge { threads, max } => write!(
                f,
                "a grid of {threads} threads is larger than the {max} this executor runs at once \
                 (every thread of the grid is a live host thread)"
            ),
            LaunchError::Panicked {
                block,
                thread,
                message,
            } => write!(
                f,
                "kernel thread {thread:?} of block {block:?} panicked: {message}"
            ),
        }
    }
}

impl std::error::Error for LaunchError {}

fn check(grid: Dim3, block: Dim3, max_grid: u32) -> Result<(), LaunchError> {
    if grid.size() == 0 || block.size() == 0 {
        return Err(LaunchError::Empty { grid, block });
    }
    let block_threads = u64::from(block.x) * u64::from(block.y) * u64::from(block.z);
    if block_threads > u64::from(MAX_BLOCK_THREADS) {
        return Err(LaunchError::BlockTooLarge {
            threads: block_threads,
        });
    }
    let threads = block_threads * u64::from(grid.x) * u64::from(grid.y) * u64::from(grid.z);
    if threads > u64::from(max_grid) {
        return Err(LaunchError::GridTooLarge {
            threads,
            max: max_grid,
        });
    }
    Ok(())
}

/// The coordinates of every thread of a launch, block by block.
fn threads(grid: Dim3, block: Dim3) -> impl Iterator<Item = (Dim3, Dim3)> {
    (0..grid.size()).flat_map(move |b| {
        (0..block.size()).map(move |t| (Dim3::from_linear(b, grid), Dim3::from_linear(t, block)))
    })
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".to_string())
}

/// Runs `kernel` once per thread of a `grid` of `block`s, every thread on its own host thread, and
/// waits for all of them.
///
/// ```
/// use scoped_atomics_host::executor::launch;
/// use scoped_atomics::kernel::{block_idx, thread_idx, Dim3};
/// use scoped_atomics::device::{AtomicU32, Ordering};
///
/// let sum = AtomicU32::new(0);
/// launch(Dim3::x(2), Dim3::x(8), || {
///     sum.fetch_add(block_idx().x * 8 + thread_idx().x, Ordering::Relaxed);
/// })
/// .unwrap();
/// assert_eq!(sum.load(Ordering::Relaxed), (0..16).sum::<u32>());
/// ```
pub fn launch<K: Fn() + Sync>(grid: Dim3, block: Dim3, kernel: K) -> Result<(), LaunchError> {
    check(grid, block, MAX_GRID_THREADS)?;
    let blocks: Vec<_> = (0..grid.size())
        .map(|_| BlockContext::new(block.size()))
        .collect();
    let kernel = &kernel;
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = threads(grid, block)
            .map(|(block_idx, thread_idx)| {
                let context = ThreadContext {
                    thread_idx,
                    block_idx,
                    block_dim: block,
                    grid_dim: grid,
                    block: blocks[block_idx.linear(grid) as usize].clone(),
                };
                let handle = std::thread::Builder::new()
                    .stack_size(256 * 1024)
                    .spawn_scoped(s, move || {
                        emulation::enter(context);
                        kernel();
                        emulation::leave();
                    })
                    .expect("spawning a kernel thread");
                (block_idx, thread_idx, handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(b, t, h)| (b, t, h.join()))
            .collect()
    });
    for (block, thread, result) in results {
        if let Err(payload) = result {
            return Err(LaunchError::Panicked {
                block,
                thread,
                message: panic_message(&*payload),
            });
        }
    }
    Ok(())
}

/// The same launch under loom (build with `--cfg loom`, call inside `loom::model`): the model's
/// thread is a host thread, each kernel thread a loom thread at its position (device 0, its
/// block), so scope misuse is reported by the loom mirror. At most [`MAX_LOOM_THREADS`] threads.
#[cfg(loom)]
pub fn launch_loom<K: Fn() + Send + Sync + 'static>(
    grid: Dim3,
    block: Dim3,
    kernel: K,
) -> Result<(), LaunchError> {
    use scoped_atomics::model::{Position, current_position, set_position, spawn_in};
    check(grid, block, MAX_LOOM_THREADS)?;
    if current_position().is_none() {
        set_position(Position::host());
    }
    let kernel = std::sync::Arc::new(kernel);
    let blocks: Vec<_> = (0..grid.size())
        .map(|_| BlockContext::new(block.size()))
        .collect();
    let handles: Vec<_> = threads(grid, block)
        .map(|(block_idx, thread_idx)| {
            let linear_block = block_idx.linear(grid);
            let context = ThreadContext {
                thread_idx,
                block_idx,
                block_dim: block,
                grid_dim: grid,
                block: blocks[linear_block as usize].clone(),
            };
            let kernel = kernel.clone();
            let position = Position::gpu(0, linear_block).thread(thread_idx.linear(block));
            spawn_in(position, move || {
                emulation::enter(context);
                kernel();
                emulation::leave();
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("a kernel thread panicked");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use scoped_atomics::kernel::{block_dim, block_idx, grid_dim, sync_threads, thread_idx};
    use std::sync::Mutex;

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
        let grid = launch(Dim3::x(5), Dim3::x(1024), || {});
        assert!(
            matches!(grid, Err(LaunchError::GridTooLarge { threads: 5120, .. })),
            "{grid:?}"
        );
        assert!(
            grid.unwrap_err()
                .to_string()
                .contains("larger than the 4096")
        );
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
}
