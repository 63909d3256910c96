//! The threads of one loom execution: their positions, and the per-thread state of the scoped
//! fence checks.

use crate::ScopeKind;
use crate::model::{Options, Position};
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

/// The loom objects of one location: the atomic holding the index of its newest write, one
/// sentinel cell per ordered pair of threads, and, in the strict `atomic_ref` mode, one more per
/// ordered pair of threads and scope ([`strict_cell`]).
pub(crate) struct Core {
    pub index: loom::sync::atomic::AtomicUsize,
    pub sentinels: Vec<loom::cell::UnsafeCell<()>>,
    pub strict: Vec<loom::cell::UnsafeCell<()>>,
}

/// The number of scopes, for the strict mode's cells.
pub(crate) const SCOPES: usize = ScopeKind::ALL.len();

/// The strict-mode cell of the ordered pair (x, y) and `scope`: x writes it for its operations of
/// that scope, y reads the cells of every other scope, so that two operations of x and y conflict
/// exactly when their scopes differ.
pub(crate) fn strict_cell(x: usize, y: usize, scope: ScopeKind) -> usize {
    let scope_index = ScopeKind::ALL.iter().position(|&s| s == scope).unwrap_or(0);
    (x * MAX_THREADS + y) * SCOPES + scope_index
}

loom::lazy_static! {
    /// The model options of this execution, and whether it is too late to change them (a
    /// location or a position exists).
    static ref OPTIONS: Mutex<(Options, bool)> = Mutex::new((Options::default(), false));
}

/// Sets the model options of this execution (see `crate::model::set_options`).
#[track_caller]
pub fn set_options(options: Options) {
    let mut current = OPTIONS.lock().unwrap();
    assert!(
        !current.1,
        "scoped-atomics loom mirror: `set_options` must be the first thing the model does in each \
         execution, before any atomic, `AtomicRef` view, plain access or position exists"
    );
    current.0 = options;
}

/// The model options of this execution.
pub fn options() -> Options {
    OPTIONS.lock().unwrap().0
}

/// The options in force from now on in this execution: later `set_options` calls panic.
fn freeze_options() -> Options {
    let mut current = OPTIONS.lock().unwrap();
    current.1 = true;
    current.0
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
        let cells = |n| (0..n).map(|_| loom::cell::UnsafeCell::new(())).collect();
        let strict = freeze_options().strict_atomic_ref_scopes;
        Core {
            index: loom::sync::atomic::AtomicUsize::new(0),
            sentinels: cells(MAX_THREADS * MAX_THREADS),
            strict: cells(if strict {
                MAX_THREADS * MAX_THREADS * SCOPES
            } else {
                0
            }),
        }
    }

    /// A core made before any thread was spawned, for a location created by a view.
    pub(crate) fn pooled() -> Core {
        CORE_POOL.lock().unwrap().pop().unwrap_or_else(|| {
            panic!(
                "scoped-atomics loom mirror: more than {VIEW_LOCATIONS} locations viewed through \
             `AtomicRef` or accessed through `plain` in one model (or a view before any thread has a \
             position)"
            )
        })
    }
}

fn register(position: Position) -> usize {
    freeze_options();
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
