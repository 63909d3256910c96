//! The cluster barrier (`barrier.cluster.arrive[.relaxed]` / `barrier.cluster.wait`): each thread
//! arrives once per phase, then waits; the last arrival of the cluster's threads completes the
//! phase. A non-relaxed arrival releases the thread's accesses so far into the phase, and a wait
//! acquires the completed phase (PTX: `.release` and `.acquire` by default).

use super::super::exec::State;
use super::{Mode, Scheduler};
use crate::report::FindingKind;

impl Scheduler<'_, '_> {
    /// The linear cluster of thread `t`.
    pub(super) fn cluster_index(&self, t: u32) -> usize {
        self.world
            .mem
            .shape
            .cluster_of(self.threads[t as usize].ctaid) as usize
    }

    /// `barrier.cluster.arrive` by thread `t` at `at`: counts the arrival (with a release of
    /// the thread's accesses so far unless `.relaxed`); the last arrival of the cluster's threads
    /// completes the phase and releases the threads waiting for it.
    pub(super) fn cluster_arrive(&mut self, t: u32, relaxed: bool, at: u32) {
        let c = self.cluster_index(t);
        if self.cluster_arrivals[t as usize].is_some() {
            let text = format!(
                "{} at {}: barrier.cluster.arrive again before barrier.cluster.wait (undefined in PTX: each thread arrives, then waits, once per phase)",
                self.name(t),
                self.inst(at)
            );
            self.stop(FindingKind::Fault, text);
            return;
        }
        let bar = &mut self.cluster_bars[c];
        self.cluster_arrivals[t as usize] = Some(bar.phase);
        if !relaxed && let Some(race) = &mut self.world.race {
            race.release_into(t, &mut bar.clock);
        }
        bar.arrived += 1;
        self.world.progress = true;
        if bar.arrived < self.cta_threads * self.world.mem.shape.size() {
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
            self.cluster_arrivals[w as usize] = None;
            self.threads[w as usize].state = State::Ready;
            self.live.push(w);
        }
        if self.mode == Mode::WarpLockstep {
            self.live.sort_unstable();
        }
    }

    /// `barrier.cluster.wait` by thread `t` at `at`: returns at once (acquiring the phase) when
    /// the phase of its arrival has completed, else waits for it.
    pub(super) fn cluster_wait(&mut self, t: u32, at: u32) {
        let c = self.cluster_index(t);
        let Some(phase) = self.cluster_arrivals[t as usize] else {
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
            self.cluster_arrivals[t as usize] = None;
            return;
        }
        bar.waiting.push((t, at));
        self.threads[t as usize].state = State::AtBarrier(u32::MAX - 1);
        self.live.retain(|&x| x != t);
    }
}
