//! Where a thread runs: its device, cluster and block, or the host.
//!
//! The loom mirror (`--cfg loom`) needs each thread's position to decide which operations are
//! *morally strong* (PTX ISA 8.7): an operation of scope `Block` includes only the threads of the
//! same block, and so on. Threads are given a position when they are spawned with [`spawn_in`]
//! (or, for the thread running the model, with [`set_position`]); an atomic operation on a thread
//! without one panics under loom. Outside loom the position is only recorded, so the same test
//! code (and the host kernel executor) runs on plain threads too.
//!
//! [`Options`], set per execution with [`set_options`] before anything else, choose the
//! mirror's model: the PTX model (the default), or additionally libcu++'s `atomic_ref` rule
//! (`strict_atomic_ref_scopes`). Plain accesses that the mirror checks against the atomic ones
//! are [`crate::plain`].
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

/// Options of the loom mirror, set per model execution with [`set_options`]. The default is the
/// PTX model.
///
/// ```
/// use scoped_atomics::model::Options;
/// assert!(!Options::default().strict_atomic_ref_scopes);
/// assert!(Options::new().with_strict_atomic_ref_scopes(true).strict_atomic_ref_scopes);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Options {
    /// libcu++'s `atomic_ref` rule: no object may be referenced concurrently by atomic views of
    /// different scopes. When set, two operations of different threads on one location through
    /// views (or atomics) of different scopes that no happens-before orders are reported — loads
    /// too, and even when each scope includes the other thread, which the PTX model (the
    /// default) allows. Off by default.
    pub strict_atomic_ref_scopes: bool,
}

impl Options {
    /// The default options: the PTX model.
    ///
    /// ```
    /// assert_eq!(scoped_atomics::model::Options::new(), Default::default());
    /// ```
    pub const fn new() -> Self {
        Options {
            strict_atomic_ref_scopes: false,
        }
    }

    /// These options with libcu++'s `atomic_ref` rule on or off (see
    /// [`strict_atomic_ref_scopes`](Self::strict_atomic_ref_scopes)).
    ///
    /// ```
    /// use scoped_atomics::model::Options;
    /// let strict = Options::new().with_strict_atomic_ref_scopes(true);
    /// assert!(strict.strict_atomic_ref_scopes);
    /// ```
    pub const fn with_strict_atomic_ref_scopes(mut self, on: bool) -> Self {
        self.strict_atomic_ref_scopes = on;
        self
    }
}

#[cfg(loom)]
pub use crate::imp::topology::{current_position, options, set_options, set_position, spawn_in};

#[cfg(all(not(loom), feature = "std", not(target_arch = "nvptx64")))]
mod plain {
    use super::{Options, Position};
    use std::cell::Cell;
    use std::thread::{self, JoinHandle};

    std::thread_local! {
        static POSITION: Cell<Option<Position>> = const { Cell::new(None) };
        static OPTIONS: Cell<Options> = const { Cell::new(Options::new()) };
    }

    /// Sets the loom mirror's options for this model execution. Under `--cfg loom` it must be the
    /// first thing the model's closure does in each execution, before any atomic, view, plain
    /// access or position exists (else it panics); outside loom the options are only recorded
    /// for the calling thread, since there is nothing to check.
    ///
    /// ```
    /// use scoped_atomics::model::{options, set_options, Options};
    /// set_options(Options::new().with_strict_atomic_ref_scopes(true));
    /// assert!(options().strict_atomic_ref_scopes);
    /// ```
    pub fn set_options(options: Options) {
        OPTIONS.with(|o| o.set(options));
    }

    /// The options in force (see [`set_options`]).
    ///
    /// ```
    /// assert!(!scoped_atomics::model::options().strict_atomic_ref_scopes);
    /// ```
    pub fn options() -> Options {
        OPTIONS.with(Cell::get)
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
pub use plain::{current_position, options, set_options, set_position, spawn_in};
