//! Synchronisation through memory (PTX ISA 8.8, 8.9.2–8.9.4): release and acquire patterns
//! with fences on either side, release sequences through read-modify-writes, and the Fence-SC
//! order, each edge made only between morally strong operations.
//!
//! - A release pattern ends in a strong write W of a location M and begins with W itself (a
//!   release operation), with an earlier release operation of the thread on M (rule 2), or with
//!   an earlier release fence of the thread (rule 3). Its clock is the thread's clock at that
//!   first operation, published on M with the first operation's scope. A thread keeps, per
//!   scope, the clock of its latest release fence (and per location, of its latest release
//!   operation) of at least that scope, so a narrow fence after a wide one hides nothing.
//! - A read R of M observes the releases published on M when R and the write it reads are
//!   morally strong; each read-modify-write continues the chain only when it is morally strong
//!   with the write it reads (observation order, 8.9.2), and any other write starts over.
//! - A release synchronises with R when its first operation is morally strong with the last
//!   operation of the acquire pattern: R itself when R acquires, else a later acquire fence
//!   (rule 3), whose scope decides at the fence (the releases wait in per-scope pending sets).
//! - `fence.sc` (and `membar`) acts as an acquire-release fence of its scope. The Fence-SC order
//!   (8.9.3) that would add edges between two of them is not fixed by the schedule: the order
//!   they ran in is one choice, and the opposite order can be consistent with the same values
//!   read (nvcc's last-block reduction: each block's `membar.gl; atom.inc`, the last block's
//!   plain reads); taking the order run would hide the race of the other. So no edge is made
//!   from it (8.9.4 rule 1 only adds synchronisation: leaving it out can only report more).

use super::HashMap;
use super::{Clock, Place, Race, ThreadClock, includes};
use crate::isa::Scope;
use std::collections::hash_map::Entry;
use std::rc::Rc;

const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

fn level(s: Scope) -> usize {
    match s {
        Scope::Cta => 0,
        Scope::Cluster => 1,
        Scope::Gpu => 2,
        Scope::Sys => 3,
    }
}

/// The smallest scope that includes both places (a scope of an operation by a thread at one
/// includes the other exactly when it is at least this one).
fn meeting_scope(a: Place, b: Place) -> Scope {
    SCOPES
        .into_iter()
        .find(|&s| includes(s, a, b))
        .unwrap_or(Scope::Sys)
}

/// Two operations of different threads at `a` and `b` with scopes `sa`, `sb`, both strong: each
/// scope includes the other thread (PTX ISA 8.7 rule 1).
fn scopes_meet(sa: Scope, a: Place, sb: Scope, b: Place) -> bool {
    includes(sa, a, b) && includes(sb, b, a)
}

/// Clocks released at each scope: `[l]` is the clock at the latest release of scope at least
/// `SCOPES[l]` (shared between the levels one release set).
#[derive(Clone, Debug, Default)]
pub(super) struct Released([Option<Rc<ThreadClock>>; 4]);

impl Released {
    fn release(&mut self, scope: Scope, clock: &Rc<ThreadClock>) {
        for l in 0..=level(scope) {
            self.0[l] = Some(clock.clone());
        }
    }

    /// The distinct clocks with the widest scope each was released at.
    fn widest(&self) -> impl Iterator<Item = (Scope, &Rc<ThreadClock>)> {
        // Every release sets level 0: none there, none at all.
        let levels = if self.0[0].is_some() { 0..4 } else { 0..0 };
        levels.rev().filter_map(|l| {
            let c = self.0[l].as_ref()?;
            let wider = self.0[l + 1..]
                .iter()
                .any(|w| w.as_ref().is_some_and(|w| Rc::ptr_eq(w, c)));
            (!wider).then_some((SCOPES[l], c))
        })
    }
}

/// The strong write a read of the location observes: its thread, place and scope.
#[derive(Clone, Copy, Debug)]
struct LastWrite {
    tid: u32,
    place: Place,
    scope: Scope,
}

/// A release pattern visible through the location: the scope of its first operation, the
/// releasing threads' place, and their joined clocks.
#[derive(Clone, Debug)]
struct Published {
    first: Scope,
    place: Place,
    vc: Clock,
}

/// The synchronisation state of one location (its bytes: `off` in the granule, `size`).
#[derive(Clone, Debug)]
pub(super) struct Location {
    off: u8,
    size: u8,
    /// `None` until a strong write of exactly these bytes.
    last: Option<LastWrite>,
    published: Vec<Published>,
}

/// A thread's latest release operation on a location (release pattern rule 2).
#[derive(Clone, Debug)]
pub(super) struct ReleaseOp {
    size: u8,
    released: Released,
}

/// A thread's release state: its latest release fence of each scope, its latest release
/// operation on each location, and the releases its strong reads saw without acquiring them.
#[derive(Debug, Default)]
pub(super) struct ThreadSync {
    /// Its clocks at its latest release fence of each scope.
    fence_released: Released,
    /// Its latest release operation on each location (by location key).
    release_ops: HashMap<u64, ReleaseOp>,
    /// Releases seen by strong reads that did not acquire them, waiting for an acquire fence:
    /// indexed by the smallest scope that fence needs.
    pending: [Option<Clock>; 4],
}

/// The memory operation that synchronises: its bytes, whether it is strong, and its scope.
#[derive(Clone, Copy, Debug)]
pub struct SyncOp {
    pub size: u8,
    pub strong: bool,
    pub scope: Scope,
}

/// The synchronisation key of byte `off` of CTA `owner`'s shared memory: bit 63, the CTA, the
/// offset (other keys, of global and local memory, have bit 63 clear).
pub fn shared_sync_key(owner: u32, off: u32) -> u64 {
    (1 << 63) | (u64::from(owner) << 32) | u64::from(off)
}

/// The CTA whose shared memory synchronisation key `key` is in, if it is one
/// ([`shared_sync_key`]).
fn shared_owner(key: u64) -> Option<u32> {
    (key >> 63 == 1).then_some((key >> 32) as u32 & !(1 << 31))
}

fn overlaps(a_off: u64, a_size: u64, b_off: u64, b_size: u64) -> bool {
    a_off < b_off + b_size && b_off < a_off + a_size
}

/// Drops the locations of granule `g` that the `size` bytes at `loc` overlap, except `loc`
/// itself unless `same_too`.
fn forget_overlapping(locs: &mut Vec<Location>, g: u64, loc: u64, size: u8, same_too: bool) {
    let size = u64::from(size);
    locs.retain(|l| {
        let start = g + u64::from(l.off);
        let same = start == loc && u64::from(l.size) == size;
        (same && !same_too) || !overlaps(start, u64::from(l.size), loc, size)
    });
}

impl Race {
    /// Forgets the releases of the locations that a write of `size` bytes at `loc` overlaps
    /// (`same_too`: also of `loc` itself, for a plain write): a read of them then reads bytes of
    /// another write that it is not morally strong with (mixed sizes never are, PTX ISA 8.7
    /// rule 3; plain writes never are).
    /// `own_granule`: also in the granule of `loc` (a strong write does that itself).
    fn reset_overlapping(&mut self, loc: u64, size: u8, same_too: bool, own_granule: bool) {
        let base = loc & !7;
        let granules = [
            own_granule.then_some(base),
            (size > 8).then_some(base + 8),
            self.wide_locations.then_some(base.wrapping_sub(8)),
        ];
        for g in granules.into_iter().flatten() {
            if let Some(locs) = self.syncs.get_mut(&g) {
                forget_overlapping(locs, g, loc, size, same_too);
            }
        }
    }

    /// A read of `loc` by `t` (`acquire`: an acquire operation): the releases it synchronises
    /// with join its clock, or wait for a later acquire fence whose scope decides.
    pub fn read_sync(&mut self, loc: u64, t: u32, op: SyncOp, acquire: bool) {
        if !op.strong {
            return;
        }
        let Some(l) = self.syncs.get(&(loc & !7)).and_then(|locs| {
            locs.iter()
                .find(|l| u64::from(l.off) == loc & 7 && l.size == op.size)
        }) else {
            return;
        };
        let me = self.places[t as usize];
        // The read and the write it reads are morally strong (observation order, 8.9.2).
        if !l
            .last
            .is_some_and(|w| w.tid == t || scopes_meet(w.scope, w.place, op.scope, me))
        {
            return;
        }
        for p in &l.published {
            let meet = meeting_scope(p.place, me);
            // The pattern's first operation must include this thread (8.9.4 rule 4).
            if p.first < meet {
                continue;
            }
            if acquire && op.scope >= meet {
                self.vcs[t as usize].join(&p.vc);
            } else {
                let own = self.threads[t as usize].get_or_insert_with(Default::default);
                own.pending[level(meet)]
                    .get_or_insert_with(Clock::default)
                    .join(&p.vc);
            }
        }
    }

    /// A write of `loc` by `t` (`release`: a release operation; `rmw`: the write of a
    /// read-modify-write, which continues the location's release sequence when morally strong
    /// with the write it read).
    pub fn write_sync(&mut self, loc: u64, t: u32, op: SyncOp, release: bool, rmw: bool) {
        if !op.strong {
            self.reset_overlapping(loc, op.size, true, true);
            return;
        }
        if op.size > 8 || self.wide_locations {
            self.reset_overlapping(loc, op.size, false, false);
            self.wide_locations = true;
        }
        let (base, off) = (loc & !7, (loc & 7) as u8);
        let me = self.places[t as usize];
        let locs = match self.syncs.entry(base) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                if let Some(cta) = shared_owner(base) {
                    self.shared_syncs.entry(cta).or_default().push(base);
                }
                e.insert(Vec::new())
            }
        };
        forget_overlapping(locs, base, loc, op.size, false);
        let i = (locs.iter())
            .position(|l| l.off == off && l.size == op.size)
            .unwrap_or_else(|| {
                locs.push(Location {
                    off,
                    size: op.size,
                    last: None,
                    published: Vec::new(),
                });
                locs.len() - 1
            });
        let l = &mut locs[i];
        let continues = rmw
            && l.last
                .is_some_and(|w| w.tid == t || scopes_meet(w.scope, w.place, op.scope, me));
        if !continues {
            l.published.clear();
        }
        let mut publish = |first: Scope, vc: &ThreadClock| {
            let at = match (l.published.iter()).position(|p| p.first == first && p.place == me) {
                Some(i) => i,
                None => {
                    l.published.push(Published {
                        first,
                        place: me,
                        vc: Clock::default(),
                    });
                    l.published.len() - 1
                }
            };
            l.published[at].vc.join_thread(vc);
        };
        let vc = &self.vcs[t as usize];
        if release {
            publish(op.scope, vc);
        }
        if let Some(own) = &self.threads[t as usize] {
            // Rule 2: an earlier release operation of this thread on the location.
            if let Some(r) = own.release_ops.get(&loc)
                && r.size == op.size
            {
                for (s, c) in r.released.widest() {
                    publish(s, c);
                }
            }
            // Rule 3: an earlier release fence of this thread.
            for (s, c) in own.fence_released.widest() {
                publish(s, c);
            }
        }
        l.last = Some(LastWrite {
            tid: t,
            place: me,
            scope: op.scope,
        });
        if release {
            let clock = Rc::new(vc.clone());
            let own = self.threads[t as usize].get_or_insert_with(Default::default);
            let r = own.release_ops.entry(loc).or_insert_with(|| ReleaseOp {
                size: op.size,
                released: Released::default(),
            });
            if r.size != op.size {
                *r = ReleaseOp {
                    size: op.size,
                    released: Released::default(),
                };
            }
            r.released.release(op.scope, &clock);
            self.tick(t);
        }
    }

    /// A fence by `t` at `scope`: `acquire` completes the acquire patterns of the strong reads
    /// before it whose releases its scope includes; `release` starts release patterns.
    pub fn fence(&mut self, t: u32, scope: Scope, acquire: bool, release: bool) {
        let tu = t as usize;
        if acquire && let Some(own) = &mut self.threads[tu] {
            for l in 0..=level(scope) {
                if let Some(p) = own.pending[l].take() {
                    self.vcs[tu].join(&p);
                }
            }
        }
        if release {
            let clock = Rc::new(self.vcs[tu].clone());
            let own = self.threads[tu].get_or_insert_with(Default::default);
            own.fence_released.release(scope, &clock);
            self.tick(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Race, SyncOp, shared_sync_key};
    use crate::isa::Scope;
    use crate::race::Place;

    /// The synchronisation state of a CTA's shared memory goes when the CTA does: over many CTAs
    /// made resident one after another, each releasing a flag in its shared memory and one in
    /// global memory, only the global flag's state stays.
    #[test]
    fn retired_ctas_leave_no_shared_synchronisation_state() {
        let ctas = 200u32;
        let places = (0..ctas)
            .map(|cta| Place {
                cta,
                cluster: cta,
                device: true,
            })
            .collect();
        let mut race = Race::new(places, false);
        let op = SyncOp {
            size: 4,
            strong: true,
            scope: Scope::Cta,
        };
        let global_flag = 0x1000;
        for cta in 0..ctas {
            // Thread `cta` is CTA `cta`'s only thread.
            race.write_sync(shared_sync_key(cta, 16), cta, op, true, false);
            race.write_sync(shared_sync_key(cta, 64), cta, op, true, false);
            race.write_sync(global_flag, cta, op, true, true);
            assert_eq!(race.sync_granules(), 3, "CTA {cta} resident");
            race.exit(cta);
            race.forget_shared(cta);
            assert_eq!(race.sync_granules(), 1, "CTA {cta} retired");
        }
    }
}
