//! CTA barriers: `bar.sync`/`barrier.sync`, `bar.arrive` and `bar.red` with barrier ids (named
//! barriers, in registers too) and thread counts, with the divergence checks (`.aligned`, a
//! barrier some threads can no longer reach).
//!
//! Memory order (PTX ISA 8.9, base causality order): a `bar.sync`, `bar.red` or `bar.arrive`
//! synchronizes with the `bar.sync`/`bar.red` operations of the same barrier phase. The waiting
//! threads leave with each other's clocks and the clocks the arriving threads had when they
//! arrived; an arriving thread does not wait and learns nothing.

use super::super::decode::{BarRedOp, Op};
use super::super::exec::{BarEvent, State, World};
use super::Scheduler;
use crate::report::FindingKind;

/// One arrival at a barrier's current phase.
#[derive(Clone, Copy, Debug)]
pub(super) struct Arrival {
    pub t: u32,
    pub at: u32,
    pub aligned: bool,
    /// `bar.sync`/`bar.red` wait; `bar.arrive` does not.
    pub waits: bool,
    /// The predicate of a `bar.red`.
    pub pred: Option<bool>,
}

/// Barrier state of one CTA, per barrier id.
#[derive(Default, Clone)]
pub(super) struct CtaBarriers {
    pub arrivals: Vec<Vec<Arrival>>,
    pub expected: Vec<Option<u32>>,
    /// The clocks `bar.arrive`s released into, for the phase's waiting threads.
    pub arrive_clock: Vec<crate::race::Clock>,
}

/// PTX has 16 barriers per CTA.
const BARRIERS: u32 = 16;

impl Scheduler<'_, '_> {
    /// Handles thread `t` arriving at a barrier at instruction `at`.
    pub(super) fn arrive(&mut self, t: u32, bar: BarEvent, at: u32) {
        let cta = self.threads[t as usize].cta as usize;
        if bar.id >= BARRIERS {
            let text = format!(
                "{} at {}: barrier id {} is beyond the {BARRIERS} barriers of a CTA",
                self.name(t),
                self.inst(at),
                bar.id
            );
            self.stop(FindingKind::Fault, text);
            return;
        }
        let id = bar.id as usize;
        let b = &mut self.bars[cta];
        if b.arrivals.len() <= id {
            b.arrivals.resize(id + 1, Vec::new());
            b.expected.resize(id + 1, None);
            b.arrive_clock.resize(id + 1, Default::default());
        }
        b.arrivals[id].push(Arrival {
            t,
            at,
            aligned: bar.aligned,
            waits: bar.waits,
            pred: bar.pred,
        });
        b.expected[id] = bar.count.or(b.expected[id]);
        if bar.waits {
            self.threads[t as usize].state = State::AtBarrier(bar.id);
            self.live.remove_id(t);
            // A lane that stops here may be what an `activemask` of its warp waits for.
            let lin = self.threads[t as usize].lin;
            self.check_active((cta as u32, lin / 32));
        } else if let Some(race) = &mut self.world.race {
            race.release_into(t, &mut self.bars[cta].arrive_clock[id]);
        }
        if self.exited[cta] > 0 && self.bars[cta].expected[id].is_none() {
            let first = cta as u32 * self.cta_threads;
            let gone = (first..first + self.cta_threads)
                .find(|&x| self.threads.state(x) == State::Done)
                .unwrap_or(t);
            let text = format!(
                "{} waits at barrier {id} ({}) which {} can no longer reach: it has exited (a barrier in conditional code must be reached by every thread of the CTA)",
                self.name(t),
                self.inst(at),
                self.name(gone)
            );
            self.stop(FindingKind::Divergence, text);
            return;
        }
        self.try_complete(cta, id);
    }

    fn try_complete(&mut self, cta: usize, id: usize) {
        let expected = self.bars[cta].expected[id].unwrap_or(self.cta_threads) as usize;
        if self.bars[cta].arrivals[id].len() < expected {
            return;
        }
        let arrivals = std::mem::take(&mut self.bars[cta].arrivals[id]);
        let clock = std::mem::take(&mut self.bars[cta].arrive_clock[id]);
        self.bars[cta].expected[id] = None;
        // `.aligned`: every thread of a warp at the same barrier instruction.
        for (i, a) in arrivals.iter().enumerate() {
            let la = self.threads[a.t as usize].lin;
            let other = arrivals[i + 1..].iter().find(|b| {
                (a.aligned || b.aligned)
                    && self.threads[b.t as usize].lin / 32 == la / 32
                    && b.at != a.at
            });
            if let Some(b) = other {
                let text = format!(
                    "threads {} and {} of one warp reached barrier {id} at different instructions, {} and {} (bar.sync is .aligned: every thread of the warp must execute the same barrier instruction)",
                    self.name(a.t),
                    self.name(b.t),
                    self.inst(a.at),
                    self.inst(b.at)
                );
                self.stop(FindingKind::Divergence, text);
                return;
            }
        }
        // `bar.red`: the reduction of the predicates, into each reducing thread's destination.
        let preds: Vec<bool> = arrivals.iter().filter_map(|a| a.pred).collect();
        if !preds.is_empty() {
            for a in arrivals.iter().filter(|a| a.pred.is_some()) {
                if let Op::BarRed(op, d, ..) = self.world.prog.insts[a.at as usize].op {
                    let v = match op {
                        BarRedOp::Popc => preds.iter().filter(|&&p| p).count() as u64,
                        BarRedOp::And => u64::from(preds.iter().all(|&p| p)),
                        BarRedOp::Or => u64::from(preds.iter().any(|&p| p)),
                    };
                    World::set(&mut self.threads[a.t as usize], d, v);
                }
            }
        }
        let waiters: Vec<u32> = arrivals.iter().filter(|a| a.waits).map(|a| a.t).collect();
        if let Some(race) = &mut self.world.race {
            for &t in &waiters {
                race.absorb(t, &clock);
            }
        }
        self.release(&waiters, true);
    }

    /// After thread `exited` of `cta` exited: a barrier its CTA waits at can no longer complete.
    pub(super) fn check_unreachable(&mut self, cta: usize, exited: u32) {
        for id in 0..self.bars[cta].arrivals.len() {
            if let Some(w) = self.bars[cta].arrivals[id].first().copied()
                && self.bars[cta].expected[id].is_none()
            {
                let text = format!(
                    "{} exited while {} waits at barrier {id} ({}): the barrier can no longer be reached by every thread of the CTA",
                    self.name(exited),
                    self.name(w.t),
                    self.inst(w.at)
                );
                self.stop(FindingKind::Divergence, text);
                return;
            }
        }
    }
}
