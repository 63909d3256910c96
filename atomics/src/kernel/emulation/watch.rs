// The host launch's watchdog: which simulated threads wait, where, and whether any made
// progress; the verdict "every live thread has waited for T with none leaving its wait"; and the
// stop that ends the waits of a launch found hung. Documentation on `Watchdog`.

use super::super::Dim3;
use core::fmt;
use core::panic::Location;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use core::time::Duration;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use std::vec::Vec;

/// Where a simulated thread waits (see [`Watchdog`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitKind {
    /// At the block barrier: `sync_threads` (or `sync_threads_count`/`_and`/`_or`).
    SyncThreads,
    /// At a warp barrier: `sync_warp`, or a shuffle, vote or reduction of a warp.
    Warp,
    /// At the cluster barrier: `cluster_sync` or `cluster_wait`.
    ClusterBarrier,
    /// In one of the library's blocking waits (`Barrier`, `Latch`, a semaphore, `wait` on an
    /// atomic) outside the kernel API's barriers.
    LibraryWait,
    /// In a spin loop: calling `kernel::spin_loop` (or `nanosleep`) again and again.
    Spin,
}

impl fmt::Display for WaitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WaitKind::SyncThreads => "waits at sync_threads",
            WaitKind::Warp => "waits at a warp barrier (sync_warp or a warp operation)",
            WaitKind::ClusterBarrier => "waits at the cluster barrier",
            WaitKind::LibraryWait => "waits in a blocking wait (Barrier, Latch, semaphore, wait)",
            WaitKind::Spin => "spins in spin_loop",
        })
    }
}

/// One simulated thread of a launch found hung: its coordinates, how it waits and, where known,
/// the kernel's line it waits at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockedThread {
    /// `blockIdx` of the thread.
    pub block_idx: Dim3,
    /// `threadIdx` of the thread.
    pub thread_idx: Dim3,
    /// How it waits.
    pub wait: WaitKind,
    /// The call it waits in (the kernel API's barriers and `spin_loop` give their caller).
    pub location: Option<&'static Location<'static>>,
}

impl fmt::Display for BlockedThread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (b, t) = (self.block_idx, self.thread_idx);
        write!(
            f,
            "thread ({}, {}, {}) of block ({}, {}, {}) {}",
            t.x, t.y, t.z, b.x, b.y, b.z, self.wait
        )?;
        if let Some(location) = self.location {
            write!(f, " at {location}")?;
        }
        Ok(())
    }
}

/// The payload a simulated thread unwinds with when the watchdog has stopped its launch: the
/// executor recognises it and reports the hang instead of a panic (the unwind goes through
/// `resume_unwind`, so no panic message is printed).
#[derive(Debug)]
pub struct Stopped;

/// A host launch's watchdog: every host thread of the launch is one slot ([`watch`]), which
/// records the simulated thread it runs (from [`enter`](super::enter) to
/// [`leave`](super::leave)) and whether that thread waits — at a barrier of the kernel API, in
/// one of the library's blocking waits, or in `kernel::spin_loop` — and where.
///
/// The verdict ([`check`](Watchdog::check)) is a hang only when, for the whole timeout, every
/// live simulated thread was seen waiting at each check and none *left* a wait (no barrier
/// opened, no wait returned, no thread started or finished its kernel). A thread that runs
/// anything else is never reported: it resets the verdict. A spinning thread is one whose latest
/// `spin_loop` call is recent (within a quarter of the timeout): one that left its loop and runs
/// for longer than that counts as running. What it cannot see: a thread that leaves a spin loop
/// and enters another at once (two threads handing work to each other only through spin loops,
/// with no barrier and no thread finishing for the whole timeout, look hung), and threads
/// outside the launch (a kernel waiting for the host for longer than the timeout is reported).
///
/// After a hang is reported, [`stop`](Watchdog::stop) ends the launch: each waiting thread, at
/// its next check (a barrier wakes it; a spin checks at each `spin_loop`), unwinds with
/// [`Stopped`]. A thread that runs forever without waiting is not reached.
///
/// ```
/// use scoped_atomics::kernel::emulation::*;
/// use scoped_atomics::kernel::Dim3;
/// use std::time::Duration;
///
/// // One host thread running one simulated thread that spins for ever.
/// let watchdog = Watchdog::new(1);
/// let timeout = Duration::from_millis(50);
/// let verdict = std::thread::scope(|s| {
///     s.spawn(|| {
///         watch(&watchdog, 0);
///         enter(ThreadContext { thread_idx: Dim3::x(0), block_idx: Dim3::x(7),
///             block_dim: Dim3::x(1), grid_dim: Dim3::x(8), block: BlockContext::new(1) });
///         let stopped = std::panic::catch_unwind(|| loop {
///             scoped_atomics::kernel::spin_loop();
///         });
///         assert!(stopped.unwrap_err().is::<Stopped>());
///         leave();
///     });
///     loop {
///         std::thread::sleep(Duration::from_millis(5));
///         if let Some(blocked) = watchdog.check(timeout) {
///             watchdog.stop();
///             break blocked;
///         }
///     }
/// });
/// assert_eq!(verdict.len(), 1);
/// assert_eq!((verdict[0].block_idx.x, verdict[0].wait), (7, WaitKind::Spin));
/// ```
pub struct Watchdog {
    start: Instant,
    slots: Vec<Mutex<Slot>>,
    /// Bumped whenever a simulated thread leaves a wait, or starts or finishes its kernel.
    progress: AtomicU64,
    stopped: AtomicBool,
    /// Since when every live thread has been seen waiting, and the progress count then.
    quiet: Mutex<Option<(Instant, u64)>>,
}

#[derive(Default)]
struct Slot {
    /// The host thread, unparked by `stop`.
    thread: Option<std::thread::Thread>,
    /// (blockIdx, threadIdx) of the simulated thread it runs, if any.
    running: Option<(Dim3, Dim3)>,
    /// The wait it is in, if any.
    wait: Option<(WaitKind, Option<&'static Location<'static>>)>,
    /// Its latest `spin_loop` call: when (since `start`), and where.
    spin: Option<(Duration, Option<&'static Location<'static>>)>,
}

impl Watchdog {
    /// A watchdog of `slots` host threads.
    pub fn new(slots: usize) -> Arc<Self> {
        Arc::new(Watchdog {
            start: Instant::now(),
            slots: (0..slots).map(|_| Mutex::new(Slot::default())).collect(),
            progress: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
            quiet: Mutex::new(None),
        })
    }

    /// The verdict at this call: the hung threads, if every live simulated thread has been seen
    /// waiting at every call for at least `timeout` with no progress (see [`Watchdog`]); `None`
    /// otherwise. Call it periodically, more often than `timeout / 4`.
    pub fn check(&self, timeout: Duration) -> Option<Vec<BlockedThread>> {
        let now = Instant::now();
        let since_start = now - self.start;
        let recent = timeout / 4;
        let progress = self.progress.load(Ordering::SeqCst);
        let mut blocked = Vec::new();
        let mut all_waiting = true;
        for slot in &self.slots {
            let slot = super::locked(slot);
            let Some((block_idx, thread_idx)) = slot.running else {
                continue;
            };
            let (wait, location) = match (slot.wait, slot.spin) {
                (Some(wait), _) => wait,
                (None, Some((at, location))) if since_start.saturating_sub(at) <= recent => {
                    (WaitKind::Spin, location)
                }
                _ => {
                    all_waiting = false;
                    break;
                }
            };
            blocked.push(BlockedThread {
                block_idx,
                thread_idx,
                wait,
                location,
            });
        }
        // A thread that left a wait while the slots were read (which they are one at a time)
        // makes the snapshot inconsistent: it counts as progress.
        let consistent = self.progress.load(Ordering::SeqCst) == progress;
        let mut quiet = super::locked(&self.quiet);
        if !all_waiting || blocked.is_empty() || !consistent {
            *quiet = None;
            return None;
        }
        match *quiet {
            Some((since, at)) if at == progress => (now - since >= timeout).then_some(blocked),
            _ => {
                *quiet = Some((now, progress));
                None
            }
        }
    }

    /// Stops the launch: every simulated thread of it unwinds with [`Stopped`] at its next wait
    /// check (the waiting ones are woken for it).
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        for slot in &self.slots {
            if let Some(thread) = &super::locked(slot).thread {
                thread.unpark();
            }
        }
    }

    /// Whether [`stop`](Watchdog::stop) was called.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    fn progressed(&self) {
        self.progress.fetch_add(1, Ordering::SeqCst);
    }
}

std::thread_local! {
    static WATCHED: RefCell<Option<(Arc<Watchdog>, usize)>> = const { RefCell::new(None) };
}

/// Makes the calling host thread slot `slot` of `watchdog`, for the simulated threads it runs
/// from now on ([`unwatch`] ends it).
///
/// # Panics
/// If `slot` is not a slot of `watchdog`.
pub fn watch(watchdog: &Arc<Watchdog>, slot: usize) {
    super::locked(&watchdog.slots[slot]).thread = Some(std::thread::current());
    WATCHED.with(|w| *w.borrow_mut() = Some((watchdog.clone(), slot)));
}

/// Ends [`watch`] for the calling host thread.
///
/// ```
/// scoped_atomics::kernel::emulation::unwatch(); // not watched: nothing to do
/// ```
pub fn unwatch() {
    WATCHED.with(|w| w.borrow_mut().take());
}

/// Runs `f` on the calling thread's slot, if it is watched.
fn with_slot(f: impl FnOnce(&Watchdog, &mut Slot)) {
    WATCHED.with(|w| {
        if let Some((watchdog, slot)) = &*w.borrow() {
            f(watchdog, &mut super::locked(&watchdog.slots[*slot]));
        }
    });
}

/// The watched thread starts (`Some`) or finishes (`None`) a simulated thread.
pub(super) fn running(coordinates: Option<(Dim3, Dim3)>) {
    with_slot(|watchdog, slot| {
        slot.running = coordinates;
        slot.wait = None;
        slot.spin = None;
        watchdog.progressed();
    });
}

/// Unwinds with [`Stopped`] if the calling thread's launch was stopped.
pub(crate) fn check_stop() {
    let stopped = WATCHED.with(|w| w.borrow().as_ref().is_some_and(|(wd, _)| wd.is_stopped()));
    if stopped {
        std::panic::resume_unwind(std::boxed::Box::new(Stopped));
    }
}

/// A wait in progress: the slot says so until the guard is dropped, which counts as progress.
/// A wait inside a wait (the library barrier under `sync_threads`) keeps the outer one.
pub(crate) struct Waiting {
    outermost: bool,
}

/// The calling thread starts a wait of `kind` at `location`.
pub(crate) fn waiting(kind: WaitKind, location: Option<&'static Location<'static>>) -> Waiting {
    let mut outermost = false;
    with_slot(|_, slot| {
        if slot.wait.is_none() {
            slot.wait = Some((kind, location));
            outermost = true;
        }
    });
    check_stop();
    Waiting { outermost }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.outermost {
            with_slot(|watchdog, slot| {
                slot.wait = None;
                slot.spin = None;
                watchdog.progressed();
            });
        }
    }
}

/// The calling thread calls `spin_loop` at `location`.
pub(crate) fn spinning(location: Option<&'static Location<'static>>) {
    with_slot(|watchdog, slot| {
        slot.spin = Some((watchdog.start.elapsed(), location));
    });
    check_stop();
}
