//! The scoped race detector: vector clocks per thread, release/acquire synchronisation through
//! per-location clocks that remember the scope and the releasing thread's position, fences at
//! their scope, `bar.sync` at CTA scope and mbarrier phases (joined by the scheduler through
//! [`Race::join_all`] and [`Race::absorb`]).
//!
//! Each 8-byte granule of global and shared memory keeps up to four recent accesses (thread,
//! its clock, bytes, read/write, strong, scope: ThreadSanitizer's shadow cells). Two accesses
//! race when they overlap, one writes, the earlier is not ordered before the later by the
//! executed schedule's causality order, and they are not *morally strong* (PTX ISA 8.7: both
//! strong, each one's scope includes the other's thread, and the same bytes). Plain accesses are
//! never morally strong.

use super::decode::Scope;
use std::collections::HashMap;

/// Where a thread runs, for scope inclusion: its CTA (device) or a host thread.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Place {
    pub cta: u32,
    /// The CTA's cluster (a CTA is its own cluster without a cluster launch).
    pub cluster: u32,
    pub device: bool,
}

/// Whether an operation of scope `s` by a thread at `a` includes a thread at `b`.
pub fn includes(s: Scope, a: Place, b: Place) -> bool {
    match s {
        Scope::Cta => a.device && b.device && a.cta == b.cta,
        Scope::Cluster => a.device && b.device && a.cluster == b.cluster,
        Scope::Gpu => a.device && b.device,
        Scope::Sys => true,
    }
}

/// One remembered access.
#[derive(Clone, Copy, Debug)]
pub struct Shadow {
    pub tid: u32,
    pub clock: u32,
    pub mask: u8,
    pub write: bool,
    pub strong: bool,
    pub scope: Scope,
    pub inst: u32,
}

const EMPTY: u32 = u32::MAX;
const SLOTS: usize = 4;

#[derive(Clone, Copy)]
struct Granule([Shadow; SLOTS]);

impl Default for Granule {
    fn default() -> Self {
        Granule(
            [Shadow {
                tid: EMPTY,
                clock: 0,
                mask: 0,
                write: false,
                strong: false,
                scope: Scope::Cta,
                inst: 0,
            }; SLOTS],
        )
    }
}

/// A release published at a location: its scope, the releaser's place and clock.
#[derive(Clone, Debug)]
struct SyncEntry {
    scope: Scope,
    place: Place,
    vc: Vec<u32>,
}

/// An access being checked.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub tid: u32,
    pub write: bool,
    pub strong: bool,
    pub scope: Scope,
    pub inst: u32,
}

/// A detected race: the earlier access and the current one.
#[derive(Clone, Debug)]
pub struct RaceHit {
    pub earlier: Shadow,
    pub later: Access,
    /// Why the two are not morally strong.
    pub reason: &'static str,
}

/// Why a read through `ld.global.nc` and a write of the launch conflict, whatever orders them.
pub const READ_ONLY_REASON: &str = "ld.global.nc reads through the non-coherent read-only path, which the memory model does not cover (PTX ISA 8.1): a location written during the kernel must not be read there";

/// The `ld.global.nc` reads and the writes of a launch, per (region, granule): the last of each.
#[derive(Default)]
struct ReadOnly {
    reads: HashMap<(u64, u32), Shadow>,
    writes: HashMap<(u64, u32), Shadow>,
}

/// Race-detection state of a launch.
pub struct Race {
    /// Kept when the program reads through `ld.global.nc`.
    read_only: Option<ReadOnly>,
    pub places: Vec<Place>,
    vcs: Vec<Vec<u32>>,
    /// Clock of each thread at its last release fence, with the fence's scope.
    fence_rel: Vec<Option<(Vec<u32>, Scope)>>,
    /// Releases seen by relaxed reads, waiting for an acquire fence.
    pending: Vec<Option<Vec<u32>>>,
    shadows: HashMap<u64, Vec<Granule>>,
    syncs: HashMap<u64, Vec<SyncEntry>>,
    rng: u64,
}

fn join(into: &mut [u32], from: &[u32]) {
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

impl Race {
    pub fn new(places: Vec<Place>, seed: u64, read_only: bool) -> Race {
        let n = places.len();
        let vcs = (0..n)
            .map(|t| {
                let mut v = vec![0; n];
                v[t] = 1;
                v
            })
            .collect();
        Race {
            read_only: read_only.then(ReadOnly::default),
            places,
            vcs,
            fence_rel: vec![None; n],
            pending: vec![None; n],
            shadows: HashMap::new(),
            syncs: HashMap::new(),
            rng: seed | 1,
        }
    }

    fn tick(&mut self, t: u32) {
        self.vcs[t as usize][t as usize] += 1;
    }

    /// Checks and records an access of the bytes `mask` of granule `granule` of `area` (a key
    /// for the region or the CTA's shared memory); returns the first race it completes.
    pub fn access(&mut self, area: u64, granule: u32, mask: u8, a: Access) -> Option<RaceHit> {
        let mut read_only_hit = None;
        if a.write
            && area < 1 << 32
            && let Some(ro) = &mut self.read_only
        {
            let new = Shadow {
                tid: a.tid,
                clock: 0,
                mask,
                write: true,
                strong: a.strong,
                scope: a.scope,
                inst: a.inst,
            };
            if let Some(r) = ro
                .reads
                .get(&(area, granule))
                .filter(|r| r.mask & mask != 0)
            {
                read_only_hit = Some(RaceHit {
                    earlier: *r,
                    later: a,
                    reason: READ_ONLY_REASON,
                });
            }
            ro.writes.insert((area, granule), new);
        }
        let shadow = self.shadows.entry(area).or_default();
        if shadow.len() <= granule as usize {
            shadow.resize(granule as usize + 1, Granule::default());
        }
        let g = &mut shadow[granule as usize].0;
        let vc = &self.vcs[a.tid as usize];
        let me = self.places[a.tid as usize];
        let mut hit = None;
        for s in g.iter() {
            if s.tid == EMPTY || s.tid == a.tid || s.mask & mask == 0 || !(s.write || a.write) {
                continue;
            }
            if s.clock <= vc[s.tid as usize] {
                continue; // ordered before this access
            }
            let other = self.places[s.tid as usize];
            let morally_strong = s.strong
                && a.strong
                && s.mask == mask
                && includes(s.scope, other, me)
                && includes(a.scope, me, other);
            if !morally_strong {
                let reason = if !(s.strong && a.strong) {
                    "a plain access is never morally strong"
                } else if s.mask != mask {
                    "not morally strong: the accesses differ in size or address"
                } else {
                    "not morally strong: a scope does not include the other thread"
                };
                hit = Some(RaceHit {
                    earlier: *s,
                    later: a,
                    reason,
                });
                break;
            }
        }
        let new = Shadow {
            tid: a.tid,
            clock: vc[a.tid as usize],
            mask,
            write: a.write,
            strong: a.strong,
            scope: a.scope,
            inst: a.inst,
        };
        // Replace this thread's same access, an empty slot, one ordered before now, or a random one.
        let slot = g
            .iter()
            .position(|s| s.tid == a.tid && s.mask == mask && s.write == a.write)
            .or_else(|| g.iter().position(|s| s.tid == EMPTY))
            .or_else(|| {
                g.iter()
                    .position(|s| s.clock <= vc[s.tid as usize] && (a.write || !s.write))
            })
            .unwrap_or_else(|| {
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                (self.rng % SLOTS as u64) as usize
            });
        g[slot] = new;
        read_only_hit.or(hit)
    }

    /// A read through `ld.global.nc` of the bytes `mask` of `granule` of global region `area`
    /// by `t` at instruction `inst`: a conflict with a write of the launch, before or after.
    pub fn read_only(
        &mut self,
        area: u64,
        granule: u32,
        mask: u8,
        t: u32,
        inst: u32,
    ) -> Option<RaceHit> {
        let ro = self.read_only.as_mut()?;
        let read = Shadow {
            tid: t,
            clock: 0,
            mask,
            write: false,
            strong: false,
            scope: Scope::Sys,
            inst,
        };
        ro.reads.insert((area, granule), read);
        let w = ro
            .writes
            .get(&(area, granule))
            .filter(|w| w.mask & mask != 0)?;
        Some(RaceHit {
            earlier: *w,
            later: Access {
                tid: t,
                write: false,
                strong: false,
                scope: Scope::Sys,
                inst,
            },
            reason: READ_ONLY_REASON,
        })
    }

    /// A strong read of `loc` at `scope` by `t`: joins the releases it synchronises with (into
    /// the clock when `acquire`, else into the pending set for a later acquire fence).
    pub fn read_sync(&mut self, loc: u64, t: u32, scope: Scope, acquire: bool) {
        let Some(entries) = self.syncs.get(&loc) else {
            return;
        };
        let me = self.places[t as usize];
        for e in entries {
            if !(includes(e.scope, e.place, me) && includes(scope, me, e.place)) {
                continue;
            }
            if acquire {
                join(&mut self.vcs[t as usize], &e.vc);
            } else {
                let n = self.places.len();
                join(
                    self.pending[t as usize].get_or_insert_with(|| vec![0; n]),
                    &e.vc,
                );
            }
        }
    }

    /// A strong write of `loc` at `scope` by `t`: publishes its release (or the last release
    /// fence's), continuing the release sequence when `rmw`.
    pub fn write_sync(&mut self, loc: u64, t: u32, scope: Scope, release: bool, rmw: bool) {
        let place = self.places[t as usize];
        let published = if release {
            Some((self.vcs[t as usize].clone(), scope))
        } else {
            self.fence_rel[t as usize]
                .as_ref()
                .map(|(vc, s)| (vc.clone(), (*s).min(scope)))
        };
        let entries = self.syncs.entry(loc).or_default();
        if !rmw {
            entries.clear();
        }
        if let Some((vc, scope)) = published {
            match entries
                .iter_mut()
                .find(|e| e.scope == scope && e.place == place)
            {
                Some(e) => join(&mut e.vc, &vc),
                None => entries.push(SyncEntry { scope, place, vc }),
            }
        }
        if release {
            self.tick(t);
        }
    }

    /// A fence by `t`.
    pub fn fence(&mut self, t: u32, scope: Scope, acquire: bool, release: bool) {
        if acquire && let Some(p) = self.pending[t as usize].take() {
            join(&mut self.vcs[t as usize], &p);
        }
        if release {
            self.fence_rel[t as usize] = Some((self.vcs[t as usize].clone(), scope));
            self.tick(t);
        }
    }

    /// A barrier among `threads`: each one's clock becomes the join of all.
    pub fn join_all(&mut self, threads: &[u32]) {
        let n = self.places.len();
        let mut all = vec![0; n];
        for &t in threads {
            join(&mut all, &self.vcs[t as usize]);
        }
        for &t in threads {
            self.vcs[t as usize].copy_from_slice(&all);
            self.tick(t);
        }
    }

    /// `t` releases into `clock` (an mbarrier phase).
    pub fn release_into(&mut self, t: u32, clock: &mut Vec<u32>) {
        if clock.is_empty() {
            clock.resize(self.places.len(), 0);
        }
        join(clock, &self.vcs[t as usize]);
        self.tick(t);
    }

    /// `t` acquires `clock` (a completed mbarrier phase).
    pub fn absorb(&mut self, t: u32, clock: &[u32]) {
        if !clock.is_empty() {
            join(&mut self.vcs[t as usize], clock);
        }
    }
}
