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
    /// [`changes`] when this thread last called [`spin`], if it has.
    pub spin_changes: Option<u64>,
    /// Whether a read of this thread since its last [`spin`] returned a write that was not the
    /// newest of its location (loom makes a read after a yield return a newer one, so the next
    /// round of the spin may see something new).
    pub stale_read: bool,
}

loom::thread_local! {
    static STATE: RefCell<ThreadState> = RefCell::new(ThreadState::default());
}

pub(crate) fn with_state<R>(f: impl FnOnce(&mut ThreadState) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

std::thread_local! {
    /// How many writes changed the value of their location (any thread's, of any mirror
    /// location: atomics, `AtomicRef` views and `plain` writes). Only compared for equality
    /// within one execution, so it is never reset. An OS thread-local, not a loom static: loom
    /// runs a model's threads on one OS thread, and a loom `lazy_static` would order the threads
    /// that touch it (its initialisation happens before every later use), which the program
    /// does not.
    static CHANGES: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// Counts a write that changed the value of its location.
pub(crate) fn count_change() {
    CHANGES.with(|c| c.set(c.get().wrapping_add(1)));
}

fn changes() -> u64 {
    CHANGES.with(|c| c.get())
}

/// One round of a spin loop under loom (`kernel::spin_loop`, `nanosleep`, the library's waits):
/// a `yield_now`, and, for a round that can see nothing new, the end of the exploration below
/// this point (`loom::skip_branch`).
///
/// A round is *futile* when no write of any thread changed the value of any mirror location
/// since this thread's previous round and every read of this thread since then returned the
/// newest write of its location: the next round reads the same values and does the same. Such a
/// round is a no-op on the model's state (its reads are of writes they already read, so even an
/// acquire gains nothing), so every interleaving after it is one loom also explores without it:
/// the round's reads are schedule points that loom explores, and a later write of another thread
/// to a location they read makes loom run that write before them, where the spin then sees it.
/// Without this, two threads spinning at once are an interleaving loom deepens without end under
/// a preemption bound (switching away from a yielding thread is no preemption: spinner A yields
/// to spinner B, B yields to A, … while the thread they wait for is runnable), and the model ends
/// with "Model exceeded maximum number of branches" (a ticket lock taken by three threads did).
///
/// After `skip_branch` the execution runs to its end with loom's default choices (the thread
/// that yielded least runs next, a load reads the oldest write it may), so its assertions and
/// race checks still run; only the alternatives below this point are not explored. A spin whose
/// condition depends on what the mirror does not see (a loop counter of a bounded spin, memory
/// written through raw pointers, a loom atomic) counts as futile after one round: the rest of
/// such an execution is checked along loom's default schedule only.
pub(crate) fn spin() {
    let now = changes();
    let futile = with_state(|s| {
        let futile = s.spin_changes == Some(now) && !s.stale_read;
        s.spin_changes = Some(now);
        s.stale_read = false;
        futile
    });
    if futile {
        loom::skip_branch();
    }
    loom::thread::yield_now();
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
