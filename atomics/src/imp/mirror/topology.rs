//! The threads of one loom execution: their positions, and the per-thread state of the scoped
//! fence checks.

use crate::ScopeKind;
use crate::model::Position;
use std::cell::RefCell;
use std::string::String;
use std::sync::Mutex;
use std::vec::Vec;

/// loom's limit on threads per model (`loom::MAX_THREADS`).
pub(crate) const MAX_THREADS: usize = 5;

loom::lazy_static! {
    /// The position of every thread of this execution, by mirror index (spawn order).
    static ref THREADS: Mutex<Vec<Position>> = Mutex::new(Vec::new());
}

/// A write that a thread has read relaxed and could later acquire through an acquire fence.
#[derive(Clone, Debug)]
pub(crate) struct Released {
    /// The writing thread (mirror index).
    pub writer: usize,
    /// How the write releases: its own scope if it is a release operation, else the scope of the
    /// widest release fence before it.
    pub release: Release,
    /// Description of the write, for messages.
    pub what: String,
}

/// A release that a relaxed read (or a reduction) has read, which a later acquire fence would
/// synchronise with in loom.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub released: Released,
    /// Description of the read, for messages.
    pub read: String,
    /// The read was a reduction's, which forms no acquire pattern (PTX ISA 8.8).
    pub by_reduction: bool,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Release {
    /// A release operation (its moral strength with the reader is checked by the sentinels).
    Operation,
    /// A relaxed write after a release fence of this scope.
    Fence(ScopeKind),
}

#[derive(Default)]
pub(crate) struct ThreadState {
    pub index: Option<usize>,
    /// The widest scope of the release fences this thread has executed.
    pub release_fence: Option<ScopeKind>,
    /// Releases read by relaxed reads (or reductions) since the last acquire fence.
    pub pending_acquire: Vec<Pending>,
}

loom::thread_local! {
    static STATE: RefCell<ThreadState> = RefCell::new(ThreadState::default());
}

pub(crate) fn with_state<R>(f: impl FnOnce(&mut ThreadState) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

/// The loom objects of one location: the atomic holding the index of its newest write, and one
/// sentinel cell per ordered pair of threads.
pub(crate) struct Core {
    pub index: loom::sync::atomic::AtomicUsize,
    pub sentinels: Vec<loom::cell::UnsafeCell<()>>,
}

/// Cores the locations of `AtomicRef` views take from. loom counts creating an object as a write
/// by the creating thread, so objects made by the first thread that views some memory would race
/// with every other thread's first use. These are made by the thread that registers the first
/// position — before it spawns any other — so their creation happens-before every thread.
pub(crate) const VIEW_LOCATIONS: usize = 64;

loom::lazy_static! {
    static ref CORE_POOL: Mutex<Vec<Core>> = Mutex::new(Vec::new());
}

impl Core {
    pub(crate) fn new() -> Core {
        let sentinels = (0..MAX_THREADS * MAX_THREADS)
            .map(|_| loom::cell::UnsafeCell::new(()))
            .collect();
        Core {
            index: loom::sync::atomic::AtomicUsize::new(0),
            sentinels,
        }
    }

    /// A core made before any thread was spawned, for a location created by a view.
    pub(crate) fn pooled() -> Core {
        CORE_POOL.lock().unwrap().pop().unwrap_or_else(|| {
            panic!(
                "scoped-atomics loom mirror: more than {VIEW_LOCATIONS} locations viewed through \
             `AtomicRef` in one model (or a view before any thread has a position)"
            )
        })
    }
}

fn register(position: Position) -> usize {
    let mut threads = THREADS.lock().unwrap();
    if threads.is_empty() {
        let mut pool = CORE_POOL.lock().unwrap();
        pool.extend((0..VIEW_LOCATIONS).map(|_| Core::new()));
    }
    assert!(
        threads.len() < MAX_THREADS,
        "scoped-atomics loom mirror: at most {MAX_THREADS} threads per model (loom's limit)"
    );
    threads.push(position);
    threads.len() - 1
}

/// Gives the calling thread (usually the one running the loom model) a position.
///
/// # Panics
/// If the thread already has one.
pub fn set_position(position: Position) {
    with_state(|s| {
        assert!(
            s.index.is_none(),
            "scoped-atomics loom mirror: this thread already has a position"
        );
        s.index = Some(register(position));
    })
}

/// The position of the calling thread, if it has one.
pub fn current_position() -> Option<Position> {
    with_state(|s| s.index).map(position_of)
}

/// Spawns a loom thread at `position`.
pub fn spawn_in<F, T>(position: Position, f: F) -> loom::thread::JoinHandle<T>
where
    F: FnOnce() -> T + 'static,
    T: 'static,
{
    let index = register(position);
    loom::thread::spawn(move || {
        with_state(|s| s.index = Some(index));
        f()
    })
}

pub(crate) fn position_of(index: usize) -> Position {
    THREADS.lock().unwrap()[index]
}

pub(crate) fn thread_count() -> usize {
    THREADS.lock().unwrap().len()
}

/// The mirror index of the calling thread.
///
/// # Panics
/// If the thread has no position: scoped semantics need one.
#[track_caller]
pub(crate) fn current_index() -> usize {
    with_state(|s| s.index).unwrap_or_else(|| {
        panic!(
            "scoped-atomics loom mirror: an atomic operation ran on a thread with no position; \
             spawn threads with `scoped_atomics::model::spawn_in(position, f)` and give the model's \
             own thread one with `scoped_atomics::model::set_position(position)`"
        )
    })
}

/// Whether an operation of `scope` by thread `a` includes thread `b`.
pub(crate) fn includes(scope: ScopeKind, a: usize, b: usize) -> bool {
    a == b || position_of(a).shares(scope, &position_of(b))
}

/// "thread 2 (device 0, cluster 1, block 1, thread 0)".
pub(crate) fn describe_thread(index: usize) -> String {
    std::format!("thread {index} ({})", position_of(index))
}
