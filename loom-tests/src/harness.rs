//! The harness every test file uses: one exploration bound, outcome collection across
//! executions, counting the executions until the first failure, and small helpers for plain data,
//! spin loops and memory viewed through `AtomicRef`.

use loom::cell::UnsafeCell;
use scoped_atomics::{AtomicRef, PlainScope};
use std::collections::BTreeSet;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering as StdOrdering};
use std::sync::{Arc, Mutex};

/// The preemption bound of every model in this crate, set in code (not taken from
/// `LOOM_MAX_PREEMPTIONS`), so that CI and developers explore the same executions.
///
/// 3 explores every program of this suite (at most 5 loom threads, each with a handful of
/// operations) in about 10 s on 2 cores; every weak outcome and every scope race the suite
/// asserts already appears at bound 1, the rest of the budget deepens the search of the correct
/// programs.
pub const PREEMPTION_BOUND: usize = 3;

/// A `loom::model::Builder` with the crate's preemption bound and no limit on permutations or
/// duration (either would silently cut the search, and the outcome sets with it), whatever
/// `LOOM_MAX_PREEMPTIONS`, `LOOM_MAX_PERMUTATIONS` and `LOOM_MAX_DURATION` say. Other settings
/// keep loom's defaults or its other `LOOM_*` variables.
pub fn builder() -> loom::model::Builder {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(PREEMPTION_BOUND);
    builder.max_permutations = None;
    builder.max_duration = None;
    builder
}

/// Runs `f` in every execution loom explores within [`PREEMPTION_BOUND`]; panics (failing the
/// test) as soon as one execution panics.
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    builder().check(f);
}

/// Runs `f` in every execution and returns the set of the values it returned: the outcomes loom
/// can produce. Collected outside the model (loom re-runs the closure once per execution).
pub fn outcomes<T, F>(f: F) -> BTreeSet<T>
where
    T: Ord + Send + 'static,
    F: Fn() -> T + Sync + Send + 'static,
{
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let sink = seen.clone();
    model(move || {
        let outcome = f();
        sink.lock().unwrap().insert(outcome);
    });
    std::mem::take(&mut *seen.lock().unwrap())
}

/// Asserts that the outcome set of a litmus test is exactly `expected`, with a message naming
/// the test, the forbidden outcomes that appeared and the allowed ones that did not.
#[track_caller]
pub fn assert_outcomes<T: Ord + Debug>(test: &str, observed: &BTreeSet<T>, expected: &[T]) {
    let expected: BTreeSet<&T> = expected.iter().collect();
    let observed_refs: BTreeSet<&T> = observed.iter().collect();
    let unexpected: Vec<_> = observed_refs.difference(&expected).collect();
    let missing: Vec<_> = expected.difference(&observed_refs).collect();
    assert!(
        unexpected.is_empty() && missing.is_empty(),
        "{test}: observed {observed:?}; outcomes that must not appear but did: {unexpected:?}; \
         outcomes that must appear but did not: {missing:?}"
    );
}

/// How a model ended when it was expected to fail.
#[derive(Debug)]
pub struct Failure {
    /// The number of executions loom started, counting the one that panicked.
    pub executions: usize,
    /// The panic message.
    pub message: String,
}

/// Runs the model, counting executions, and returns how it failed, or `None` if every execution
/// passed. The count is a `std` atomic incremented at the start of each run of the closure.
pub fn first_failure<F>(f: F) -> Option<Failure>
where
    F: Fn() + Sync + Send + 'static,
{
    let executions = Arc::new(AtomicUsize::new(0));
    let counter = executions.clone();
    let result = catch_unwind(AssertUnwindSafe(|| {
        builder().check(move || {
            counter.fetch_add(1, StdOrdering::SeqCst);
            f();
        })
    }));
    result.err().map(|payload| Failure {
        executions: executions.load(StdOrdering::SeqCst),
        message: payload_text(payload.as_ref()),
    })
}

/// Runs the model, which must fail; returns the panic message.
#[track_caller]
pub fn expect_failure<F>(f: F) -> Failure
where
    F: Fn() + Sync + Send + 'static,
{
    first_failure(f).expect("the model was expected to fail, but every execution passed")
}

/// Asserts that a model fails with a data race: a scope race of the mirror (`"scope race"`), a
/// race of a `scoped_atomics::plain` access (`"data race"`) or loom's own race on plain data
/// (`"Causality violation"`). Used where either report is the right answer (a missed
/// synchronisation that makes plain data race).
#[track_caller]
pub fn assert_reports_race<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    let failure = first_failure(f)
        .expect("a data race on a GPU, but the model passed every execution: not reported");
    assert!(
        failure.message.contains("scope race")
            || failure.message.contains("data race")
            || failure.message.contains("Causality violation"),
        "the model failed, but not with a data race: {}",
        failure.message
    );
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// Plain (non-atomic) data: a `loom::cell::UnsafeCell`, so loom reports unsynchronised accesses
/// as it would a data race.
#[derive(Debug)]
pub struct Plain<T>(UnsafeCell<T>);

impl<T: Copy> Plain<T> {
    /// Plain data holding `value`.
    pub fn new(value: T) -> Self {
        Plain(UnsafeCell::new(value))
    }

    /// A plain read.
    #[track_caller]
    pub fn get(&self) -> T {
        // SAFETY: loom checks that no write races with this read; a race fails the model before
        // the pointer is used.
        self.0.with(|p| unsafe { *p })
    }

    /// A plain write.
    #[track_caller]
    pub fn set(&self, value: T) {
        // SAFETY: as for `get`.
        self.0.with_mut(|p| unsafe { *p = value })
    }
}

/// Spins (yielding to loom, which needs it to make progress) until `done()` is true.
pub fn spin_until(mut done: impl FnMut() -> bool) {
    while !done() {
        loom::thread::yield_now();
    }
}

/// A heap `T` that threads view through `AtomicRef` (like `int f` in the libcu++ examples): each
/// thread makes its own view, possibly of another scope. Free it with [`Heap::free`] after the
/// threads that use it have been joined.
#[derive(Debug)]
pub struct Heap<T>(*mut T);

impl<T> Clone for Heap<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Heap<T> {}

// SAFETY: a `Heap` is a pointer to memory the model owns until `free` (unsafe); every access
// through it is an `AtomicRef` view or a `scoped_atomics::plain` access, which the mirror checks
// for races, so it may be shared with kernel threads like a kernel argument.
unsafe impl<T> Send for Heap<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Heap<T> {}

impl<T: scoped_atomics::AtomicPrimitive> Heap<T> {
    /// Allocates `value`.
    pub fn new(value: T) -> Self {
        Heap(Box::into_raw(Box::new(value)))
    }

    /// An atomic view of scope `S`.
    pub fn view<S: PlainScope>(self) -> AtomicRef<'static, T, S> {
        // SAFETY: the allocation lives until `free`, which the model calls after joining every
        // thread that made a view; every access meanwhile is through a view of the same size.
        unsafe { AtomicRef::from_ptr(self.0) }
    }

    /// The pointer, e.g. for a kernel argument.
    pub fn as_ptr(self) -> *mut T {
        self.0
    }

    /// A plain read (`scoped_atomics::plain::read`), checked by the mirror against the views.
    #[track_caller]
    pub fn read(self) -> T {
        // SAFETY: live until `free`; the mirror reports a read that races.
        unsafe { scoped_atomics::plain::read(self.0) }
    }

    /// A plain write (`scoped_atomics::plain::write`), checked by the mirror against the views.
    #[track_caller]
    pub fn write(self, value: T) {
        // SAFETY: as for `read`.
        unsafe { scoped_atomics::plain::write(self.0, value) }
    }

    /// The value the memory holds (the views write through), and frees it.
    ///
    /// # Safety
    /// No view of it is used afterwards.
    pub unsafe fn free(self) -> T {
        // SAFETY: allocated by `new`, freed once (the caller's contract).
        *unsafe { Box::from_raw(self.0) }
    }
}
