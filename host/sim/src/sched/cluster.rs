//! The cluster barrier (`barrier.cluster.arrive[.relaxed]` / `barrier.cluster.wait`), as the
//! PTX ISA defines it:
//!
//! * An arrive waits for the other non-exited lanes of its warp to reach a `barrier.cluster`
//!   (the lanes of a warp rendezvous there, as on a GPU): until they do, the arriving lane is
//!   held and has not arrived yet. A lane that never comes (it spins on a flag the held lane
//!   would set afterwards) leaves a hang.
//! * Each thread arrives once per phase, then waits; the phase completes when every
//!   non-exited thread of the cluster has arrived — a thread that exits no longer counts (PTX:
//!   `barrier.cluster.wait` waits for all non-exited threads of the cluster).
//! * A non-relaxed arrival releases the thread's accesses so far into the phase, and a wait
//!   acquires the completed phase (PTX: `.release` and `.acquire` by default).

use super::super::exec::State;
use super::Scheduler;
use crate::race::Clock;
use crate::report::FindingKind;

/// The cluster barrier of one cluster.
#[derive(Default, Clone)]
pub(super) struct Barrier {
    /// Completed phases.
    pub phase: u64,
    /// Arrivals in the current phase, by threads that have not exited.
    pub arrived: u32,
    /// Threads of the cluster that have exited (no phase waits for them).
    pub exited: u32,
    /// The join of the releasing arrivals of the current phase (race detection).
    pub clock: Clock,
    /// The clock of the last completed phase, acquired by its waiters.
    pub done: Clock,
    /// Threads waiting for the current phase, with the instruction each waits at.
    pub waiting: Vec<(u32, u32)>,
}

/// The state a lane held at `barrier.cluster.arrive` for its warp's other lanes is in.
pub(super) const HELD_AT_ARRIVE: u32 = u32::MAX - 2;
/// The state a thread waiting at `barrier.cluster.wait` is in.
const AT_WAIT: u32 = u32::MAX - 1;

/// A lane held at `barrier.cluster.arrive`: (thread, `.relaxed`, instruction).
pub(super) type HeldArrival = (u32, bool, u32);

impl Scheduler<'_, '_> {
    /// The linear cluster of thread `t`.
    pub(super) fn cluster_index(&self, t: u32) -> usize {
        self.world
            .mem
            .shape
            .cluster_of(self.threads[t as usize].ctaid) as usize
    }

    /// Threads of a cluster.
    fn cluster_threads(&self) -> u32 {
        self.cta_threads * self.world.mem.shape.size()
    }

    /// `barrier.cluster.arrive` by thread `t` at `at`: a second arrive before a wait is a fault;
    /// otherwise the lane is held until the other non-exited lanes of its warp reach a
    /// `barrier.cluster` too, and then they arrive together.
    pub(super) fn cluster_arrive(&mut self, t: u32, relaxed: bool, at: u32) {
        if self.threads[t as usize].cluster_arrival.is_some() {
            let text = format!(
                "{} at {}: barrier.cluster.arrive again before barrier.cluster.wait (undefined in PTX: each thread arrives, then waits, once per phase)",
                self.name(t),
                self.inst(at)
            );
            self.stop(FindingKind::Fault, text);
            return;
        }
        let th = &self.threads[t as usize];
        let key = (th.cta, th.lin / 32);
        self.threads[t as usize].state = State::AtBarrier(HELD_AT_ARRIVE);
        self.live.remove_id(t);
        self.cluster_holds
            .entry(key)
            .or_default()
            .push((t, relaxed, at));
        self.world.progress = true;
        self.release_cluster_holds(key);
        // A lane that stops here may be what an `activemask` of its warp waits for.
        if self.active_waits.contains_key(&key) {
            self.check_active(key);
        }
    }

    /// Lets the lanes of warp `key` held at `barrier.cluster.arrive` arrive, once every
    /// non-exited lane of the warp is held there.
    pub(super) fn release_cluster_holds(&mut self, key: (u32, u32)) {
        let Some(held) = self.cluster_holds.get(&key) else {
            return;
        };
        let first = key.0 * self.cta_threads + key.1 * 32;
        let lanes = (self.cta_threads - key.1 * 32).min(32);
        let live_lanes = (first..first + lanes)
            .filter(|&l| self.threads.state(l) != State::Done)
            .count();
        if held.len() < live_lanes {
            return;
        }
        let held = self.cluster_holds.remove(&key).unwrap_or_default();
        for (t, relaxed, _) in held {
            self.threads[t as usize].state = State::Ready;
            self.live.push(t);
            self.count_arrival(t, relaxed);
        }
    }

    /// Counts thread `t`'s arrival (with a release of its accesses so far unless `relaxed`);
    /// the last arrival of the cluster's non-exited threads completes the phase.
    fn count_arrival(&mut self, t: u32, relaxed: bool) {
        let c = self.cluster_index(t);
        let bar = &mut self.cluster_bars[c];
        self.threads[t as usize].cluster_arrival = Some(bar.phase);
        if !relaxed && let Some(race) = &mut self.world.race {
            race.release_into(t, &mut bar.clock);
        }
        bar.arrived += 1;
        self.world.progress = true;
        self.complete_if_all_arrived(c);
    }

    /// Completes the phase of cluster `c` when every non-exited thread has arrived in it, and
    /// releases the threads waiting for it.
    fn complete_if_all_arrived(&mut self, c: usize) {
        let total = self.cluster_threads();
        let bar = &mut self.cluster_bars[c];
        if bar.arrived == 0 || bar.arrived + bar.exited < total {
            return;
        }
        bar.phase += 1;
        bar.arrived = 0;
        bar.done = std::mem::take(&mut bar.clock);
        let (waiting, done) = (std::mem::take(&mut bar.waiting), bar.done.clone());
        for (w, _) in waiting {
            if let Some(race) = &mut self.world.race {
                race.absorb(w, &done);
            }
            self.threads[w as usize].cluster_arrival = None;
            self.threads[w as usize].state = State::Ready;
            self.live.push(w);
        }
        self.world.progress = true;
    }

    /// Thread `t` exited: it no longer counts for its cluster's barrier (an arrival of it in
    /// the current phase is now counted as an exit, its release kept), and its warp's lanes held at
    /// `barrier.cluster.arrive` no longer wait for it.
    pub(super) fn cluster_thread_exited(&mut self, t: u32) {
        let c = self.cluster_index(t);
        let arrived_now =
            self.threads[t as usize].cluster_arrival == Some(self.cluster_bars[c].phase);
        self.threads[t as usize].cluster_arrival = None;
        let bar = &mut self.cluster_bars[c];
        if arrived_now {
            // Its release stays in the phase's clock; it is counted as exited instead.
            bar.arrived -= 1;
        }
        bar.exited += 1;
        self.complete_if_all_arrived(c);
        let th = &self.threads[t as usize];
        let key = (th.cta, th.lin / 32);
        if !self.cluster_holds.is_empty() && self.cluster_holds.contains_key(&key) {
            self.release_cluster_holds(key);
        }
    }

    /// `barrier.cluster.wait` by thread `t` at `at`: returns at once (acquiring the phase) when
    /// the phase of its arrival has completed, else waits for it.
    pub(super) fn cluster_wait(&mut self, t: u32, at: u32) {
        let c = self.cluster_index(t);
        let Some(phase) = self.threads[t as usize].cluster_arrival else {
            let text = format!(
                "{} at {}: barrier.cluster.wait without a barrier.cluster.arrive before it (undefined in PTX)",
                self.name(t),
                self.inst(at)
            );
            self.stop(FindingKind::Fault, text);
            return;
        };
        let bar = &mut self.cluster_bars[c];
        if bar.phase > phase {
            if let Some(race) = &mut self.world.race {
                race.absorb(t, &bar.done);
            }
            self.threads[t as usize].cluster_arrival = None;
            return;
        }
        bar.waiting.push((t, at));
        self.threads[t as usize].state = State::AtBarrier(AT_WAIT);
        self.live.remove_id(t);
    }
}
