//! One atomic location of the mirror: a loom atomic that holds the *index* of the write it
//! contains, a log of the writes, and the sentinel cells that turn scope misuse into a loom
//! data race.
//!
//! * Write log. Every write appends an entry (bits, writer, how it releases); the loom atomic
//!   holds the entry's index. A read therefore knows exactly which write it read, which the scoped
//!   fence check needs. Read-modify-writes are one loom `swap` (they read the newest write, as
//!   loom's RMWs do); a compare-exchange is one loom `compare_exchange` on the newest index, or on
//!   an index that cannot match when the value differs (a failing read with the failure order).
//! * Sentinels. Per ordered pair of threads (x, y) one `loom::cell::UnsafeCell<()>`. Before its
//!   loom operation, thread t touches, in the operation's mode (loads read; stores and every
//!   read-modify-write write), the cell (u, t) for every other thread u, and the cell (t, u) for
//!   every thread u outside its scope instance. Two conflicting operations of t and u then touch a
//!   common cell exactly when one's scope excludes the other's thread — they are not morally
//!   strong — and loom reports that as a race unless happens-before orders them: the data race of
//!   PTX ISA 8.7.1. Touching before the operation matters: the operation's own synchronisation
//!   must not order the touches.

use super::topology::{
    self, MAX_THREADS, Pending, Release, Released, SCOPES, describe_thread, includes,
};
use crate::ScopeKind;
use core::sync::atomic::Ordering;
use std::format;
use std::string::{String, ToString};
use std::sync::Mutex;
use std::vec::Vec;

/// The bits of a value as the mirror logs them: wide enough for the widest value type
/// (`u128`); narrower values are zero-extended.
pub(crate) type Bits = u128;

/// An operation, for the loom mapping and for messages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Op {
    /// The value type of the atomic the operation is on (`f32`, where the location holds `u32`).
    pub value_type: &'static str,
    pub name: &'static str,
    pub order: Ordering,
    pub scope: ScopeKind,
    /// A plain (non-atomic) access (`scoped_atomics::plain`): morally strong with no operation
    /// of another thread, whatever its scope field says.
    pub plain: bool,
    /// Where the program called the operation: the public methods and the backend pass their
    /// caller's location on (`#[track_caller]` under loom), so this is the user's line.
    pub at: &'static core::panic::Location<'static>,
}

impl Op {
    fn describe(&self) -> String {
        if self.plain {
            format!("plain `{}`", self.name)
        } else {
            format!("`{}({:?})` at {} scope", self.name, self.order, self.scope)
        }
    }
}

/// The two kinds of sentinel cells.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sentinel {
    /// Per ordered pair of threads: scope races (PTX ISA 8.7.1).
    Scope,
    /// Per ordered pair of threads and scope: the strict `atomic_ref` mode.
    Strict,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Read,
    Write,
}

/// How a read takes part in synchronisation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    /// An acquire read: synchronises with the releases of the write it reads.
    Acquire,
    /// A relaxed strong read: a later acquire fence synchronises with them.
    Relaxed,
    /// A reduction's read: forms no acquire pattern at all (PTX ISA 8.8).
    Reduction,
}

struct Write {
    bits: Bits,
    /// The releases a reader of this write synchronises with: the write's own (a release
    /// operation, or a relaxed write after a release fence) and, for a read-modify-write, those of
    /// the write it read (the release sequence). Empty for the initial value, which
    /// happens-before every thread that can reach the location.
    releases: Vec<Released>,
}

struct Log {
    writes: Vec<Write>,
    /// The index of the newest write in modification order.
    newest: usize,
    /// The last operation of each accessor of each sentinel cell: `[cell][0]` the owner `y` of
    /// cell (x, y), `[cell][1]` the thread `x`.
    last_access: Vec<[Option<(usize, Op)>; 2]>,
    /// The same for the strict-mode cells: `[cell][0]` the writer, `[cell][1]` the reader.
    strict_last_access: Vec<[Option<(usize, Op)>; 2]>,
}

pub(crate) struct LocationState {
    core: topology::Core,
    log: Mutex<Log>,
    type_name: &'static str,
    size: usize,
    /// Memory that an `AtomicRef` views: every write is copied there, so the owner sees the final
    /// value once the view is gone.
    backing: *mut u8,
}

// SAFETY: `backing` is only written while loom runs the model's threads one at a time on one OS
// thread, and only while the `AtomicRef` borrow that owns the memory lives.
unsafe impl Send for LocationState {}
// SAFETY: as above.
unsafe impl Sync for LocationState {}

impl LocationState {
    pub(crate) fn new(bits: Bits, type_name: &'static str, size: usize, backing: *mut u8) -> Self {
        let initial = Write {
            bits,
            releases: Vec::new(),
        };
        LocationState {
            core: if backing.is_null() {
                topology::Core::new()
            } else {
                topology::Core::pooled()
            },
            log: Mutex::new(Log {
                writes: std::vec![initial],
                newest: 0,
                last_access: std::vec![[None, None]; MAX_THREADS * MAX_THREADS],
                strict_last_access: std::vec![[None, None]; MAX_THREADS * MAX_THREADS * SCOPES],
            }),
            type_name,
            size,
            backing,
        }
    }

    pub(crate) fn type_name(&self) -> &'static str {
        self.type_name
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// The value, read without any synchronisation (for `Debug` of a location nobody writes).
    pub(crate) fn newest_bits(&self) -> Bits {
        let log = self.log.lock().unwrap();
        log.writes[log.newest].bits
    }

    pub(crate) fn load(&self, op: Op) -> Bits {
        let me = self.before(&op, Mode::Read);
        let row = super::table::load(op.order);
        if row.fence_sc {
            super::scoped_fence(op.scope, Ordering::SeqCst);
        }
        let index = self.core.index.load(super::loom_order(row.sem));
        self.after_read(me, index, &op, read_kind(row.sem))
    }

    pub(crate) fn store(&self, op: Op, bits: Bits) {
        let me = self.before(&op, Mode::Write);
        let row = super::table::store(op.order);
        if row.fence_sc {
            super::scoped_fence(op.scope, Ordering::SeqCst);
        }
        let index = self.append(me, bits, &op, row.fence_sc || releases(row.sem));
        self.core.index.store(index, super::loom_order(row.sem));
        self.published(index);
    }

    /// A read-modify-write of `row`'s ordering (the table's rmw or reduction row) storing
    /// `f(previous)`; returns the previous bits. A reduction's read forms no acquire pattern.
    pub(crate) fn rmw(
        &self,
        op: Op,
        row: super::table::Mapped,
        reduction: bool,
        f: impl FnOnce(Bits) -> Bits,
    ) -> Bits {
        let me = self.before(&op, Mode::Write);
        if row.fence_sc {
            super::scoped_fence(op.scope, Ordering::SeqCst);
        }
        let index = self.append(me, 0, &op, row.fence_sc || releases(row.sem));
        let old = self.core.index.swap(index, super::loom_order(row.sem));
        let kind = if reduction {
            Read::Reduction
        } else {
            read_kind(row.sem)
        };
        let old_bits = self.after_read(me, old, &op, kind);
        self.continue_release_sequence(old, index);
        self.log.lock().unwrap().writes[index].bits = f(old_bits);
        self.published(index);
        old_bits
    }

    /// Compare-exchange on bits with `op.order` the success and `failure` the failure ordering.
    pub(crate) fn compare_exchange(
        &self,
        op: Op,
        failure: Ordering,
        current: Bits,
        new: Bits,
    ) -> Result<Bits, Bits> {
        let me = self.before(&op, Mode::Write);
        let row = super::table::compare_exchange(op.order, failure);
        if row.fence_sc {
            super::scoped_fence(op.scope, Ordering::SeqCst);
        }
        let success = super::loom_order(row.sem);
        let failure = super::loom_order(if acquires(row.sem) {
            super::table::Sem::Acquire
        } else {
            super::table::Sem::Relaxed
        });
        loop {
            let expected = {
                let log = self.log.lock().unwrap();
                // An index that cannot match makes loom perform the failing read.
                if log.writes[log.newest].bits == current {
                    log.newest
                } else {
                    usize::MAX
                }
            };
            let index = self.append(me, new, &op, row.fence_sc || releases(row.sem));
            match self
                .core
                .index
                .compare_exchange(expected, index, success, failure)
            {
                Ok(old) => {
                    self.after_read(me, old, &op, read_kind(row.sem));
                    self.continue_release_sequence(old, index);
                    self.published(index);
                    return Ok(current);
                }
                Err(actual) => {
                    let bits = self.after_read(me, actual, &op, read_kind(row.sem));
                    if bits != current {
                        return Err(bits);
                    }
                    // Another thread stored the expected value meanwhile: a strong
                    // compare-exchange would have succeeded, so try again.
                }
            }
        }
    }

    /// A plain read (`scoped_atomics::plain::read`): only the race check. The caller reads the
    /// memory, which holds the newest write (views write through): a read that no race report
    /// stops is ordered after every write of another thread that loom has executed, so the newest
    /// is the only one it may read. It performs no loom operation, so a later acquire fence does
    /// not synchronise through it (a plain read forms no acquire pattern, PTX ISA 8.8).
    pub(crate) fn plain_read(&self, op: Op) {
        self.before(&op, Mode::Read);
    }

    /// A plain write (`scoped_atomics::plain::write`) of `bits`: logged like a store, but it
    /// releases nothing (a release fence before it forms no release pattern: it is not strong),
    /// and copied to the memory.
    pub(crate) fn plain_write(&self, op: Op, bits: Bits) {
        self.before(&op, Mode::Write);
        let index = {
            let mut log = self.log.lock().unwrap();
            log.writes.push(Write {
                bits,
                releases: Vec::new(),
            });
            log.writes.len() - 1
        };
        // Relaxed: any reader of this write must already be ordered after it (else the sentinels
        // report the race), so what loom's store carries adds nothing.
        self.core.index.store(index, Ordering::Relaxed);
        self.published(index);
    }

    /// Sentinel touches; returns the calling thread's mirror index.
    ///
    /// A plain access includes no other thread: it touches both cells of every pair, known
    /// threads or not (no position is needed to exclude a thread). In the strict `atomic_ref`
    /// mode an atomic operation of scope s also writes the strict cell (me, u, s) and reads the
    /// cells (u, me, k) of every other scope k, so that it conflicts with every operation of
    /// another scope by u, loads included (libcu++ forbids even concurrent loads through views of
    /// different scopes).
    #[track_caller]
    fn before(&self, op: &Op, mode: Mode) -> usize {
        let me = topology::current_index();
        let known = topology::thread_count();
        // Every location of a strict execution has the cells: `set_options` panics once one exists.
        let strict = !op.plain && !self.core.strict.is_empty();
        for other in (0..MAX_THREADS).filter(|&u| u != me) {
            self.touch(Sentinel::Scope, other * MAX_THREADS + me, 0, me, mode, op);
            if op.plain || (other < known && !includes(op.scope, me, other)) {
                self.touch(Sentinel::Scope, me * MAX_THREADS + other, 1, me, mode, op);
            }
            if strict {
                for scope in ScopeKind::ALL {
                    if scope == op.scope {
                        let cell = topology::strict_cell(me, other, scope);
                        self.touch(Sentinel::Strict, cell, 0, me, Mode::Write, op);
                    } else {
                        let cell = topology::strict_cell(other, me, scope);
                        self.touch(Sentinel::Strict, cell, 1, me, Mode::Read, op);
                    }
                }
            }
        }
        me
    }

    /// Touches sentinel `cell` as thread `me` from `side` (for `Sentinel::Scope` cell (x, y):
    /// 0 when `me` is y, 1 when `me` is x; for a strict cell: 0 the writer, 1 the reader).
    fn touch(&self, kind: Sentinel, cell: usize, side: usize, me: usize, mode: Mode, op: &Op) {
        let cells = match kind {
            Sentinel::Scope => &self.core.sentinels,
            Sentinel::Strict => &self.core.strict,
        };
        let touched = quiet_panics(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match mode {
                Mode::Read => cells[cell].with(|_| ()),
                Mode::Write => cells[cell].with_mut(|_| ()),
            }))
        });
        if let Err(payload) = touched {
            let other = {
                let log = self.log.lock().unwrap();
                match kind {
                    Sentinel::Scope => log.last_access[cell][1 - side],
                    Sentinel::Strict => log.strict_last_access[cell][1 - side],
                }
            };
            let loom = payload_text(&payload);
            let message = match kind {
                Sentinel::Scope => self.race_message(me, op, other, loom),
                Sentinel::Strict => strict_message(me, op, other, loom),
            };
            panic!("{message}");
        }
        let mut log = self.log.lock().unwrap();
        match kind {
            Sentinel::Scope => log.last_access[cell][side] = Some((me, *op)),
            Sentinel::Strict => log.strict_last_access[cell][side] = Some((me, *op)),
        }
    }

    fn race_message(&self, me: usize, op: &Op, other: Option<(usize, Op)>, loom: String) -> String {
        let (them, their_op) = match other {
            Some((them, their_op)) => (
                format!("{} at {}", describe_thread(them), their_op.at),
                their_op.describe(),
            ),
            None => ("another thread".to_string(), "an operation".to_string()),
        };
        let plain = op.plain || other.is_some_and(|(_, o)| o.plain);
        let why = match other {
            _ if plain => {
                "a plain access is morally strong with no operation of another thread".to_string()
            }
            Some((t, o)) if !includes(o.scope, t, me) => {
                format!(
                    "the {} scope of the first does not include {}",
                    o.scope,
                    describe_thread(me)
                )
            }
            Some((t, _)) if !includes(op.scope, me, t) => {
                format!(
                    "the {} scope of the second does not include {}",
                    op.scope,
                    describe_thread(t)
                )
            }
            _ => "their scopes do not include each other's threads".to_string(),
        };
        let what = if plain {
            format!("data race on `{}`", op.value_type)
        } else {
            format!("scope race on `Atomic<{}>`", op.value_type)
        };
        format!(
            "{what}: {their_op} by {them} and {} by {} are not morally strong ({why}) \
             and no happens-before orders them: a data race on a GPU (PTX ISA 8.7)\n[loom: {loom}]",
            op.describe(),
            format!("{} at {}", describe_thread(me), op.at),
        )
    }

    /// Logs a write by `me` (bits may be filled in later by `rmw`) and returns its index.
    fn append(&self, me: usize, bits: Bits, op: &Op, is_release: bool) -> usize {
        let release = if is_release {
            Some(Release::Operation)
        } else {
            topology::with_state(|s| s.release_fence).map(Release::Fence)
        };
        let what = format!("{} by {}", op.describe(), describe_thread(me));
        let releases = release
            .map(|release| Released {
                writer: me,
                release,
                what,
            })
            .into_iter()
            .collect();
        let mut log = self.log.lock().unwrap();
        log.writes.push(Write { bits, releases });
        log.writes.len() - 1
    }

    /// A read-modify-write continues the release sequence of the write it read: its readers
    /// synchronise with those releases too.
    fn continue_release_sequence(&self, read: usize, written: usize) {
        let mut log = self.log.lock().unwrap();
        let inherited = log.writes[read].releases.clone();
        log.writes[written].releases.extend(inherited);
    }

    /// The write at `index` is now the newest in modification order; copies it to the backing
    /// memory of an `AtomicRef`.
    fn published(&self, index: usize) {
        let mut log = self.log.lock().unwrap();
        if log.writes[index].bits != log.writes[log.newest].bits {
            topology::count_change();
        }
        log.newest = index;
        if !self.backing.is_null() {
            let bytes = log.writes[index].bits.to_le_bytes();
            // SAFETY: `backing` is the live memory of `size` bytes behind an `AtomicRef`; loom runs
            // one thread at a time, so nothing accesses it concurrently.
            unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.backing, self.size) };
        }
    }

    /// After reading the write at `index`: checks or records the synchronisation it carries.
    fn after_read(&self, me: usize, index: usize, op: &Op, kind: Read) -> Bits {
        let (bits, releases) = {
            let log = self.log.lock().unwrap();
            if index != log.newest {
                topology::with_state(|s| s.stale_read = true);
            }
            let write = &log.writes[index];
            (write.bits, write.releases.clone())
        };
        let read = format!("{} of `Atomic<{}>`", op.describe(), op.value_type);
        for released in releases.into_iter().filter(|r| r.writer != me) {
            match kind {
                Read::Acquire => check_synchronisation(me, &released, &read, None, false),
                Read::Relaxed | Read::Reduction => {
                    let pending = Pending {
                        released,
                        read: read.clone(),
                        by_reduction: kind == Read::Reduction,
                    };
                    topology::with_state(|s| s.pending_acquire.push(pending));
                }
            }
        }
        bits
    }

    /// Whether the memory behind an `AtomicRef` still holds the newest value (a plain write by the
    /// owner, between two views, changes it).
    pub(crate) fn matches_memory(&self) -> bool {
        let log = self.log.lock().unwrap();
        let bytes = log.writes[log.newest].bits.to_le_bytes();
        // SAFETY: `backing` is the live memory of `size` bytes the new view is made of.
        let memory = unsafe { core::slice::from_raw_parts(self.backing, self.size) };
        memory == &bytes[..self.size]
    }
}

fn read_kind(sem: super::table::Sem) -> Read {
    if acquires(sem) {
        Read::Acquire
    } else {
        Read::Relaxed
    }
}

fn acquires(sem: super::table::Sem) -> bool {
    matches!(sem, super::table::Sem::Acquire | super::table::Sem::AcqRel)
}

fn releases(sem: super::table::Sem) -> bool {
    matches!(sem, super::table::Sem::Release | super::table::Sem::AcqRel)
}

/// The scoped fence rule of the libcu++ memory model: a synchronisation through a release fence
/// or an acquire fence forms only if each fence's scope includes the other thread. loom's fences
/// know no scope, so where the rule fails loom would order the threads anyway: report it.
pub(crate) fn check_synchronisation(
    me: usize,
    released: &Released,
    read: &str,
    acquire_fence: Option<ScopeKind>,
    by_reduction: bool,
) {
    let writer = released.writer;
    if let (Some(scope), true) = (acquire_fence, by_reduction) {
        panic!(
            "scope race: {} reads {} with a reduction ({read}) and then executes an acquire fence \
             of {scope} scope, but a reduction's read forms no acquire pattern (PTX ISA 8.8): on a \
             GPU no synchronisation forms",
            describe_thread(me),
            released.what,
        );
    }
    if let Release::Fence(scope) = released.release
        && !includes(scope, writer, me)
    {
        panic!(
            "scope race: {} follows a release fence of {scope} scope by {}, which does not \
                 include {}; {} reads it with {read}{}, but on a GPU no synchronisation forms \
                 (scoped fence rule, libcu++ memory model)",
            released.what,
            describe_thread(writer),
            describe_thread(me),
            describe_thread(me),
            acquire_fence
                .map(|s| format!(" and an acquire fence of {s} scope"))
                .unwrap_or_default(),
        );
    }
    if let Some(scope) = acquire_fence
        && !includes(scope, me, writer)
    {
        panic!(
            "scope race: {} acquires {} through {read} and an acquire fence of {scope} scope, \
                 which does not include {}; on a GPU no synchronisation forms (scoped fence rule, \
                 libcu++ memory model)",
            describe_thread(me),
            released.what,
            describe_thread(writer),
        );
    }
}

/// The report of the strict `atomic_ref` mode.
fn strict_message(me: usize, op: &Op, other: Option<(usize, Op)>, loom: String) -> String {
    let (them, their_op, their_scope) = match other {
        Some((them, o)) => (describe_thread(them), o.describe(), o.scope.to_string()),
        None => (
            "another thread".to_string(),
            "an operation".to_string(),
            "another".to_string(),
        ),
    };
    format!(
        "atomic_ref scope rule (strict mode): {their_op} by {them} and {} by {} use one `{}` \
         location through atomic views of different scopes ({their_scope} and {}) and no \
         happens-before orders them; libcu++ forbids concurrent `atomic_ref`s of different scopes \
         to one object (the PTX model allows it when each scope includes the other thread)\n\
         [loom: {loom}]",
        op.describe(),
        describe_thread(me),
        op.value_type,
        op.scope,
    )
}

std::thread_local! {
    /// Whether this thread is inside [`quiet_panics`].
    static QUIET: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Runs `f` with the panic hook's message suppressed on this thread: loom's own panic on a
/// sentinel cell ("Causality violation: Concurrent write accesses to `UnsafeCell`") is caught
/// and turned into the scope-race report, so printing it first only confuses. The hook is
/// installed once and hands every other panic to the hook it replaced. (loom runs a model's
/// threads on one OS thread, so an OS thread-local marks the right one.)
fn quiet_panics<R>(f: impl FnOnce() -> R) -> R {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(std::boxed::Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let result = f();
    QUIET.with(|q| q.set(was));
    result
}

fn payload_text(payload: &std::boxed::Box<dyn core::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a causality violation".to_string()
    }
}
