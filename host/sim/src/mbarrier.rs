//! The `mbarrier` instructions: objects in shared memory with an expected count, pending
//! arrivals and a phase; arrivals release into the phase's clock and a successful test acquires
//! the completed phases' clock. Undefined uses are faults: a token older than the preceding
//! phase, an arrive beyond the pending count (an excess arrival), an `arrive_drop` that takes
//! the expected count to 0, an arrive-on in a phase whose preceding phase no `test_wait` or
//! `try_wait` has observed complete (PTX: "for each phase … at least one test_wait or try_wait
//! operation must be performed which returns True for waitComplete before an arrive-on operation
//! in the subsequent phase"), an object that is not initialised, and an address of another state
//! space than the instruction names (a `.shared` address given to a generic form, or a generic
//! one to a `.shared` form).
//!
//! An arrive may reach the mbarrier of another CTA of the cluster (`.shared::cluster`, with no
//! state returned); waits, `init` and `inval` act on the thread's own CTA's objects. An arrival
//! synchronises with a wait only where the two are morally strong ([`crate::race::PhaseClocks`]).

use super::decode::{Addr, Scope, Space, Src};
use super::exec::{Event, Thread, World};
use super::memory::{self, Loc};

impl World<'_> {
    fn fault_mb(&self, what: &str) -> Event {
        Event::Fault(what.to_string())
    }

    /// The CTA and shared offset of the mbarrier object an mbarrier instruction (`what`, for the
    /// message) names at `a` in `space`, the state space of the instruction (`Generic` for the
    /// generic forms): the address is read in that space, as `ld`/`st` read theirs, so a
    /// `.shared` address given to a generic form (a missing `cvta`) or a generic one to a
    /// `.shared` form is a fault. The object is the executing CTA's, or (`remote`: an arrive)
    /// that of any CTA of its cluster.
    fn object_offset(
        &self,
        th: &Thread,
        (space, a): (Space, u64),
        what: &str,
        remote: bool,
    ) -> Result<(u32, u32), Event> {
        let loc = self
            .mem
            .resolve(space, a, 8, th.cta, th.local.len() as u64)
            .map_err(|e| Event::Fault(format!("{what} on {a:#x}: {e}")))?;
        match loc {
            Loc::Shared(cta, off) if cta == th.cta || remote => Ok((cta, off)),
            Loc::Shared(..) => Err(self.fault_mb(&format!(
                "{what} on {a:#x}, in the shared memory of another CTA: only an arrive (`.shared::cluster`) may reach another CTA's mbarrier"
            ))),
            _ => Err(self.fault_mb(&format!(
                "{what} on {a:#x}, which is not shared memory (mbarrier objects live in shared memory)"
            ))),
        }
    }

    /// The live mbarrier at `a` in `space`, for an mbarrier instruction (`remote`: an arrive,
    /// which may reach another CTA of the cluster).
    fn mbarrier(&mut self, th: &Thread, at: (Space, u64), remote: bool) -> Result<usize, Event> {
        let (cta, off) = self.object_offset(th, at, "mbarrier instruction", remote)?;
        match self
            .mem
            .mbarriers
            .iter()
            .position(|m| m.cta == cta && m.off == off)
        {
            Some(i) => Ok(i),
            None => Err(self.fault_mb(&format!(
                "mbarrier instruction on shared offset {off:#x}, where no mbarrier is initialised"
            ))),
        }
    }

    pub(super) fn mb_init(
        &mut self,
        th: &mut Thread,
        (space, a): (Space, &Addr),
        count: &Src,
    ) -> Event {
        let addr = self.val(th, a.base).wrapping_add(a.off as u64);
        let count = self.val(th, *count) as u32;
        let loc = match self.object_offset(th, (space, addr), "mbarrier.init", false) {
            Ok((_, off)) => off,
            Err(e) => return e,
        };
        if !(1..(1 << 20)).contains(&count) {
            return Event::Fault(format!(
                "mbarrier.init with count {count}, outside [1, 2^20 - 1]"
            ));
        }
        if self.mem.mbarrier_at(th.cta, loc, 8).is_some() {
            return Event::Fault(format!(
                "mbarrier.init on shared offset {loc:#x}, a live mbarrier (mbarrier.inval it first)"
            ));
        }
        self.mem.mbarriers.push(memory::Mbarrier {
            cta: th.cta,
            off: loc,
            expected: count,
            pending: count,
            phase: 0,
            observed: true,
        });
        self.mb_clocks.push(Default::default());
        self.progress = true;
        Event::Yield
    }

    pub(super) fn mb_arrive(
        &mut self,
        th: &mut Thread,
        t: u32,
        (d, (space, a), count, drop, no_complete, scope): (
            &Option<u32>,
            (Space, &Addr),
            &Option<Src>,
            &bool,
            &bool,
            &Scope,
        ),
    ) -> Event {
        let addr = self.val(th, a.base).wrapping_add(a.off as u64);
        let n = count.map_or(1, |c| self.val(th, c) as u32);
        let i = match self.mbarrier(th, (space, addr), true) {
            Ok(i) => i,
            Err(e) => return e,
        };
        let m = &mut self.mem.mbarriers[i];
        if m.cta != th.cta && d.is_some() {
            return Event::Fault(
                "mbarrier arrive on another CTA's mbarrier with a state destination (the `.shared::cluster` form returns none: `_`)"
                    .to_string(),
            );
        }
        if !m.observed {
            return Event::Fault(format!(
                "mbarrier arrive in phase {}, but no test_wait or try_wait has returned true for the completed phase {} (undefined in PTX: each phase must be observed complete before an arrive-on of the next)",
                m.phase,
                m.phase - 1
            ));
        }
        if n == 0 || n > m.pending {
            return Event::Fault(format!(
                "mbarrier arrive with count {n} while {} arrivals are pending in the phase (an excess arrival is undefined in PTX)",
                m.pending
            ));
        }
        if *drop && m.expected == 1 {
            return Event::Fault(
                "mbarrier.arrive_drop by the last participant, which takes the expected count to 0 (undefined in PTX)"
                    .to_string(),
            );
        }
        if *no_complete && n >= m.pending {
            return Event::Fault(format!(
                "mbarrier.arrive.noComplete with count {n} would complete the phase ({} arrivals pending)",
                m.pending
            ));
        }
        let token = (m.phase & 0xffff_ffff) | (u64::from(m.pending) << 32);
        m.pending -= n;
        if *drop {
            m.expected -= 1;
        }
        let owner = m.cta;
        if let Some(race) = &mut self.race {
            race.mbarrier_arrive(t, *scope, owner, &mut self.mb_clocks[i]);
        }
        let m = &mut self.mem.mbarriers[i];
        if m.pending == 0 {
            m.phase += 1;
            m.pending = m.expected;
            m.observed = false;
            self.mb_clocks[i].complete();
        }
        if let Some(d) = d {
            Self::set(th, *d, token);
        }
        self.progress = true;
        Event::Yield
    }

    pub(super) fn mb_test_wait(
        &mut self,
        th: &mut Thread,
        t: u32,
        (d, (space, a), token, parity, scope): (&u32, (Space, &Addr), &Src, &bool, &Scope),
    ) -> Event {
        let addr = self.val(th, a.base).wrapping_add(a.off as u64);
        // The phase is the token's low half (the high half is the pending count).
        let token = self.val(th, *token) & 0xffff_ffff;
        let i = match self.mbarrier(th, (space, addr), false) {
            Ok(i) => i,
            Err(e) => return e,
        };
        let phase = self.mem.mbarriers[i].phase;
        let done = if *parity {
            phase % 2 != token % 2
        } else {
            if token + 1 < phase {
                return Event::Fault(format!(
                    "mbarrier.test_wait with the token of phase {token}, older than the preceding phase {} (undefined: only the current and the immediately preceding phase may be tested)",
                    phase - 1
                ));
            }
            if token > phase {
                return Event::Fault(format!(
                    "mbarrier.test_wait with token {token}, of a phase that has not begun"
                ));
            }
            token < phase
        };
        if done {
            // Only the immediately preceding phase can test complete here (older tokens fault,
            // and a parity names the preceding phase or the current one).
            self.mem.mbarriers[i].observed = true;
            if let Some(race) = &mut self.race {
                race.mbarrier_acquire(t, *scope, &self.mb_clocks[i]);
            }
        }
        Self::set(th, *d, u64::from(done));
        if !th.seen(addr, phase) {
            self.progress = true;
        }
        Event::Yield
    }

    pub(super) fn mb_inval(&mut self, th: &mut Thread, (space, a): (Space, &Addr)) -> Event {
        let addr = self.val(th, a.base).wrapping_add(a.off as u64);
        let i = match self.mbarrier(th, (space, addr), false) {
            Ok(i) => i,
            Err(e) => return e,
        };
        self.mem.mbarriers.remove(i);
        self.mb_clocks.remove(i);
        self.progress = true;
        Event::Yield
    }
}
