//! Where a thread runs: its device, cluster and block, or the host.
//!
//! The loom mirror (`--cfg loom`) needs each thread's position to decide which operations are
//! *morally strong* (PTX ISA 8.7): an operation of scope `Block` includes only the threads of the
//! same block, and so on. Threads are given a position when they are spawned with [`spawn_in`]
//! (or, for the thread running the model, with [`set_position`]); an atomic operation on a thread
//! without one panics under loom. Outside loom the position is only recorded, so the same test
//! code (and the host kernel executor) runs on plain threads too.
//!
//! ```
//! use scoped_atomics::model::{spawn_in, set_position, Position};
//! use scoped_atomics::device::{AtomicU32, Ordering};
//! use std::sync::Arc;
//!
//! // Under `--cfg loom` this body would run inside `loom::model(|| …)`.
//! set_position(Position::host());
//! let flag = Arc::new(AtomicU32::new(0));
//! let writer = {
//!     let flag = flag.clone();
//!     spawn_in(Position::gpu(0, 0), move || flag.store(1, Ordering::Release))
//! };
//! writer.join().unwrap();
//! assert_eq!(flag.load(Ordering::Acquire), 1);
//! ```

use crate::ScopeKind;
use core::fmt;

/// The position of a thread: on the host, or on a GPU at (device, cluster, block, thread).
///
/// ```
/// use scoped_atomics::{model::Position, ScopeKind};
/// let a = Position::gpu(0, 3);
/// let b = Position::gpu(0, 4).in_cluster(0);
/// assert!(a.shares(ScopeKind::Device, &b));
/// assert!(!a.shares(ScopeKind::Block, &b));
/// assert!(!Position::host().shares(ScopeKind::Device, &a));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// A host (CPU) thread: only system-scope operations of other threads include it.
    Host,
    /// A GPU thread.
    Gpu {
        /// The device (GPU) index.
        device: u32,
        /// The thread-block cluster, unique within the device.
        cluster: u32,
        /// The thread block, unique within the device.
        block: u32,
        /// The thread index within its block (for messages only).
        thread: u32,
    },
}

impl Position {
    /// A host thread.
    ///
    /// ```
    /// use scoped_atomics::model::Position;
    /// assert_eq!(Position::host(), Position::Host);
    /// ```
    pub const fn host() -> Self {
        Position::Host
    }

    /// Thread 0 of `block` on `device`, in the cluster numbered like the block (one block per
    /// cluster, the default of a launch without clusters).
    ///
    /// ```
    /// use scoped_atomics::model::Position;
    /// assert_eq!(Position::gpu(1, 2), Position::Gpu { device: 1, cluster: 2, block: 2, thread: 0 });
    /// ```
    pub const fn gpu(device: u32, block: u32) -> Self {
        Position::Gpu {
            device,
            cluster: block,
            block,
            thread: 0,
        }
    }

    /// The same position in thread-block cluster `cluster`.
    ///
    /// ```
    /// use scoped_atomics::{model::Position, ScopeKind};
    /// let a = Position::gpu(0, 0).in_cluster(7);
    /// let b = Position::gpu(0, 1).in_cluster(7);
    /// assert!(a.shares(ScopeKind::Cluster, &b));
    /// ```
    pub const fn in_cluster(self, cluster: u32) -> Self {
        match self {
            Position::Host => Position::Host,
            Position::Gpu {
                device,
                block,
                thread,
                ..
            } => Position::Gpu {
                device,
                cluster,
                block,
                thread,
            },
        }
    }

    /// The same position with thread index `thread` within its block.
    ///
    /// ```
    /// use scoped_atomics::{model::Position, ScopeKind};
    /// let a = Position::gpu(0, 5).thread(1);
    /// assert!(a.shares(ScopeKind::Block, &Position::gpu(0, 5)));
    /// ```
    pub const fn thread(self, thread: u32) -> Self {
        match self {
            Position::Host => Position::Host,
            Position::Gpu {
                device,
                cluster,
                block,
                ..
            } => Position::Gpu {
                device,
                cluster,
                block,
                thread,
            },
        }
    }

    /// Whether two threads at these positions are in the same instance of `scope`. Two distinct
    /// threads never share the thread scope; a host thread shares only the system scope.
    ///
    /// ```
    /// use scoped_atomics::{model::Position, ScopeKind};
    /// assert!(Position::host().shares(ScopeKind::System, &Position::gpu(0, 0)));
    /// ```
    pub fn shares(&self, scope: ScopeKind, other: &Position) -> bool {
        use Position::{Gpu, Host};
        match (scope, self, other) {
            (ScopeKind::System, _, _) => true,
            (ScopeKind::Thread, _, _) | (_, Host, _) | (_, _, Host) => false,
            (
                _,
                Gpu {
                    device: d1,
                    cluster: c1,
                    block: b1,
                    ..
                },
                Gpu {
                    device: d2,
                    cluster: c2,
                    block: b2,
                    ..
                },
            ) => {
                d1 == d2
                    && match scope {
                        ScopeKind::Block => b1 == b2,
                        ScopeKind::Cluster => c1 == c2,
                        _ => true,
                    }
            }
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Host => f.write_str("host"),
            Position::Gpu {
                device,
                cluster,
                block,
                thread,
            } => {
                write!(
                    f,
                    "device {device}, cluster {cluster}, block {block}, thread {thread}"
                )
            }
        }
    }
}

#[cfg(loom)]
pub use crate::imp::topology::{current_position, set_position, spawn_in};

#[cfg(all(not(loom), feature = "std", not(target_arch = "nvptx64")))]
mod plain {
    use super::Position;
    use std::cell::Cell;
    use std::thread::{self, JoinHandle};

    std::thread_local! {
        static POSITION: Cell<Option<Position>> = const { Cell::new(None) };
    }

    /// Records the position of the calling thread.
    ///
    /// ```
    /// use scoped_atomics::model::{current_position, set_position, Position};
    /// set_position(Position::gpu(0, 1));
    /// assert_eq!(current_position(), Some(Position::gpu(0, 1)));
    /// ```
    pub fn set_position(position: Position) {
        POSITION.with(|p| p.set(Some(position)));
    }

    /// The position of the calling thread, if it has one.
    ///
    /// ```
    /// use scoped_atomics::model::{current_position, spawn_in, Position};
    /// let h = spawn_in(Position::host(), current_position);
    /// assert_eq!(h.join().unwrap(), Some(Position::Host));
    /// ```
    pub fn current_position() -> Option<Position> {
        POSITION.with(Cell::get)
    }

    /// Spawns a thread at `position` (a `std` thread here, a loom thread under loom).
    ///
    /// ```
    /// use scoped_atomics::model::{spawn_in, Position};
    /// assert_eq!(spawn_in(Position::gpu(0, 0), || 7).join().unwrap(), 7);
    /// ```
    pub fn spawn_in<F, T>(position: Position, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        thread::spawn(move || {
            set_position(position);
            f()
        })
    }
}

#[cfg(all(not(loom), feature = "std", not(target_arch = "nvptx64")))]
pub use plain::{current_position, set_position, spawn_in};
