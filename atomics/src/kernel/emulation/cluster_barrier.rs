// The cluster barrier of the host emulation and of loom: `barrier.cluster.arrive` /
// `barrier.cluster.wait` as the PTX ISA defines them, thread exit included.

#[cfg(not(loom))]
use std::sync::atomic::AtomicU64;
#[cfg(not(loom))]
use std::thread::{Thread, current, park};

#[cfg(loom)]
use loom::sync::atomic::AtomicU64;
#[cfg(loom)]
use loom::thread::{Thread, current, park};

use super::locked;
use core::sync::atomic::Ordering::{AcqRel, Acquire};
use std::sync::Mutex;
use std::vec::Vec;

/// The cluster barrier. PTX: `barrier.cluster.wait` waits for every **non-exited** thread of the
/// cluster to arrive, so a thread that exits stops counting — in the phase it exits in (where it
/// counts as arrived) and in every later one.
///
/// Each unit of [`arrivals`](Self::arrivals) is one thread's arrival in a phase: phase `p` is
/// complete when the count reaches `(p + 1) × threads`. The thread that completes a phase counts,
/// in one more read-modify-write, the arrivals of the exited threads in the next phase (they can
/// no longer arrive); an exiting thread that has not arrived in the current phase counts its own
/// arrival there. A phase therefore ends exactly at its boundary, never beyond it: a thread that
/// arrives waits before it arrives again.
///
/// Ordering: an arrival is a release (`AcqRel`); the arrival that completes a phase has read every
/// earlier one (a release sequence of read-modify-writes) and unparks the waiters, which in loom
/// carries its happens-before to them; on the host they re-take the bookkeeping lock it completed
/// the phase under. A waiter that finds its phase complete without having been parked acquires it
/// with `fetch_add(0, Acquire)` — an acquire only, so that what it did between its arrival and its
/// wait is not released to anyone (PTX's wait is an acquire). The counts for exited threads are
/// acquires too: an exit releases nothing. Loom limits (`guide/limits.md`): a relaxed arrival is a
/// release here, and a thread that completes a phase (by arriving, or by exiting) is ordered before
/// the waiters it unparks.
pub(crate) struct ClusterBarrier {
    threads: u64,
    /// Arrivals counted since the barrier was made (see above).
    arrivals: AtomicU64,
    /// Bookkeeping that loom need not interleave (no loom operation runs while it is locked).
    state: Mutex<State>,
}

struct State {
    /// Phases completed.
    completed: u64,
    /// Threads of the cluster that have exited.
    exited: u64,
    /// Threads parked until the phase after `completed` completes.
    waiters: Vec<Thread>,
}

/// One thread's arrival: its phase, and whether it completed the phase.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClusterToken {
    phase: u64,
    last: bool,
}

impl ClusterBarrier {
    /// The barrier of a cluster of `threads` threads.
    pub(crate) fn new(threads: u32) -> Self {
        ClusterBarrier {
            threads: u64::from(threads),
            arrivals: AtomicU64::new(0),
            state: Mutex::new(State {
                completed: 0,
                exited: 0,
                waiters: Vec::new(),
            }),
        }
    }

    /// `barrier.cluster.arrive`: counts the calling thread's arrival (a release).
    pub(crate) fn arrive(&self) -> ClusterToken {
        self.count(1, AcqRel)
    }

    /// Counts `units` arrivals; the one that reaches a phase's boundary completes the phase.
    fn count(&self, units: u64, order: core::sync::atomic::Ordering) -> ClusterToken {
        let n = self.arrivals.fetch_add(units, order);
        let phase = n / self.threads;
        let last = (n + units).is_multiple_of(self.threads);
        if last {
            self.complete(phase);
        }
        ClusterToken { phase, last }
    }

    /// Completes `phase`: unparks its waiters, then counts the exited threads' arrivals in the
    /// next phase (unless every thread has exited).
    fn complete(&self, phase: u64) {
        let (waiters, exited) = {
            let mut state = locked(&self.state);
            state.completed = phase + 1;
            (core::mem::take(&mut state.waiters), state.exited)
        };
        for waiter in waiters {
            waiter.unpark();
        }
        if exited > 0 && exited < self.threads {
            self.count(exited, Acquire);
        }
    }

    /// `barrier.cluster.wait` for `token`'s phase.
    pub(crate) fn wait(&self, token: ClusterToken) {
        let ClusterToken { phase, last } = token;
        if last {
            return;
        }
        {
            let mut state = locked(&self.state);
            if state.completed > phase {
                // The phase completed between this thread's arrival and here without unparking
                // it: acquire it (a read-modify-write reads the newest count).
                drop(state);
                self.arrivals.fetch_add(0, Acquire);
                return;
            }
            state.waiters.push(current());
        }
        // Unparked by the completing thread (a park after an unpark returns at once; a
        // spurious wake-up checks again).
        while locked(&self.state).completed <= phase {
            park();
            // A stopped launch (the host watchdog) unparks its threads to end here.
            super::check_stop();
        }
    }

    /// The calling thread exits, with `pending` its arrival it has not waited for: it stops
    /// counting for the barrier. In the current phase it counts as arrived — by its pending
    /// arrival, or by one counted now — and the thread completing each later phase counts it.
    pub(crate) fn exit(&self, pending: Option<ClusterToken>) {
        let arrive_now = {
            let mut state = locked(&self.state);
            state.exited += 1;
            // Without a pending arrival, or with one in a completed phase, the thread has not
            // arrived in the current phase (which cannot complete without it, and whose exited
            // threads were counted before this one exited). With a pending arrival in the
            // current phase, the thread that completes it counts this one in the next.
            pending.is_none_or(|token| state.completed > token.phase)
        };
        if arrive_now {
            self.count(1, Acquire);
        }
    }
}
