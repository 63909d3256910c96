//! The scoped race detector: vector clocks per thread (sparse, [`clock`]: memory follows what
//! the threads have seen, not the grid's size), and the synchronisation of PTX ISA 8.9.4
//! between morally strong operations only ([`sync`]): release and acquire patterns through
//! per-location clocks that remember the scope of each pattern's first operation, fences per
//! scope, `bar.sync` at CTA scope, cluster barriers and mbarrier phases
//! (joined by the scheduler through [`Race::join_all`], [`Race::release_into`] and
//! [`Race::absorb`]).
//!
//! Two accesses race when they overlap, one writes, the earlier is not ordered before the later
//! by the causality order of the executed schedule, and they are not *morally strong* (PTX ISA
//! 8.7: both strong, each one's scope includes the other's thread, and the same bytes). Plain
//! accesses are never morally strong.
//!
//! **Precision.** In the one schedule it runs, the detector reports a race at every access that
//! races with an earlier access of the schedule (at least one finding per such access; the
//! scheduler names each pair of instructions once): each 8-byte granule keeps every access a
//! later one could race with, dropping a record only when a later access of the same bytes
//! ordered after it stands in for it ([`shadow`]), never for space. Causality is the one the
//! schedule shows (reads return the value of the last write): a race of another interleaving, or
//! one that needs a read to return an older value, shows only in a schedule that runs that way
//! (more seeds, other modes). The synchronisation tracked is a subset of PTX's, so the detector
//! may report a race where the model finds an order it does not track, never the other way: no
//! Fence-SC edges between `fence.sc` operations (the schedule does not fix that order, see
//! [`sync`]), no acquire pattern `ld.relaxed [M]; ld.acquire [M]`, no patterns through accesses
//! of different sizes of one location. One exception orders more than PTX:
//! `cp.async.mbarrier.arrive.noinc` releases the thread's accesses before it with its copies
//! (PTX orders only the copies; telling them apart would need a clock of their own).

mod clock;
mod shadow;
mod sync;

pub use clock::{Clock, ThreadClock};
pub use sync::{SyncOp, shared_sync_key};

use super::isa::Scope;
use std::rc::Rc;

/// The detector's maps, looked up at every simulated access, keyed by addresses and thread ids
/// the simulator makes (not by input an attacker chooses): a fast hash with a fixed seed, in
/// place of std's SipHash with a random one.
pub(super) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

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

/// One remembered access, as a finding names it.
#[derive(Clone, Copy, Debug)]
pub struct Shadow {
    pub tid: u32,
    pub mask: u8,
    pub write: bool,
    pub strong: bool,
    pub scope: Scope,
    pub inst: u32,
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

/// The `ld.global.nc` reads and the writes of a launch, per (region, granule): the first of each,
/// with the bytes of all.
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
    vcs: Vec<ThreadClock>,
    /// The empty clock every thread starts from (shared).
    empty: Rc<Clock>,
    /// Each thread's release state, made at its first release or pending acquire and freed
    /// when it exits.
    threads: Vec<Option<Box<sync::ThreadSync>>>,
    shadows: HashMap<u64, Vec<shadow::Granule>>,
    /// Synchronisation state of the locations of each 8-byte granule (by its key's address).
    syncs: HashMap<u64, Vec<sync::Location>>,
    /// The granules of `syncs` in each CTA's shared memory (by CTA), dropped with its records
    /// when the CTA is no longer resident.
    shared_syncs: HashMap<u32, Vec<u64>>,
    /// Whether a 16-byte location synchronises (writes then also look one granule back).
    wide_locations: bool,
    /// While an asynchronous operation's accesses are checked: the clock of its thread when it
    /// was issued (what orders accesses before it), in place of the thread's clock now.
    async_issued: Option<ThreadClock>,
}

impl Race {
    pub fn new(places: Vec<Place>, read_only: bool) -> Race {
        let n = places.len();
        let empty = Rc::new(Clock::default());
        let vcs = (0..n as u32)
            .map(|t| ThreadClock::start(t, &empty))
            .collect();
        Race {
            read_only: read_only.then(ReadOnly::default),
            places,
            vcs,
            empty,
            threads: (0..n).map(|_| None).collect(),
            shadows: HashMap::default(),
            syncs: HashMap::default(),
            shared_syncs: HashMap::default(),
            wide_locations: false,
            async_issued: None,
        }
    }

    fn tick(&mut self, t: u32) {
        self.vcs[t as usize].tick();
    }

    /// CTA `cta` is no longer resident: its shared memory's records and synchronisation state
    /// go (a new CTA's shared memory is another area).
    pub fn forget_shared(&mut self, cta: u32) {
        self.shadows.remove(&((1 << 32) | u64::from(cta)));
        for granule in self.shared_syncs.remove(&cta).unwrap_or_default() {
            self.syncs.remove(&granule);
        }
    }

    /// Granules with synchronisation state (releases, the last strong write): what
    /// [`Race::forget_shared`] frees, counted for tests.
    #[cfg(test)]
    pub(crate) fn sync_granules(&self) -> usize {
        self.syncs.len()
    }

    /// Thread `t` exited: what only its own later operations could use is freed (its clock
    /// entries live on in the clocks and shadow records that saw them).
    pub fn exit(&mut self, t: u32) {
        self.vcs[t as usize].release_storage(&self.empty);
        self.threads[t as usize] = None;
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
            // The bytes of every write of the granule so far (the first one names them).
            ro.writes
                .entry((area, granule))
                .and_modify(|w| w.mask |= mask)
                .or_insert(new);
        }
        let shadow = self.shadows.entry(area).or_default();
        if shadow.len() <= granule as usize {
            shadow.resize(granule as usize + 1, shadow::Granule::default());
        }
        let hit = shadow[granule as usize].access(
            mask,
            a,
            self.places[a.tid as usize],
            &self.vcs[a.tid as usize],
            self.async_issued.as_ref(),
        );
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
            mask,
            write: false,
            strong: false,
            scope: Scope::Sys,
            inst,
        };
        ro.reads
            .entry((area, granule))
            .and_modify(|r| r.mask |= mask)
            .or_insert(read);
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

    /// `t` issues an asynchronous operation (`cp.async`): returns the clock that orders
    /// accesses before it (PTX ISA 8.9.1.1: it is ordered after the thread's prior instructions
    /// and nothing after), and moves `t`'s clock on, so its later accesses are not ordered
    /// before the operation's.
    pub fn issue_async(&mut self, t: u32) -> ThreadClock {
        let issued = self.vcs[t as usize].clone();
        self.tick(t);
        issued
    }

    /// The accesses until [`Race::end_async`] are an asynchronous operation's, issued at
    /// `issued` (from [`Race::issue_async`]): ordered after what that clock has seen, unordered
    /// with the thread's own accesses since.
    pub fn begin_async(&mut self, issued: ThreadClock) {
        self.async_issued = Some(issued);
    }

    /// Ends [`Race::begin_async`].
    pub fn end_async(&mut self) {
        self.async_issued = None;
    }

    /// A barrier among `threads`: each one's clock becomes the join of all (one clock the
    /// threads share, each with its own entry moved on).
    pub fn join_all(&mut self, threads: &[u32]) {
        let mut all = Clock::default();
        for &t in threads {
            all.join_thread(&self.vcs[t as usize]);
        }
        let all = Rc::new(all);
        for &t in threads {
            self.vcs[t as usize].set_shared(&all);
            self.tick(t);
        }
    }

    /// `t` releases into `clock` (an mbarrier phase).
    pub fn release_into(&mut self, t: u32, clock: &mut Clock) {
        clock.join_thread(&self.vcs[t as usize]);
        self.tick(t);
    }

    /// `t` acquires `clock` (a completed mbarrier phase).
    pub fn absorb(&mut self, t: u32, clock: &Clock) {
        self.vcs[t as usize].join(clock);
    }
}

/// The clocks of an mbarrier's phases (PTX ISA 8.9.4 rule 4 between an arrive-on and a
/// `test_wait`/`try_wait` on the object, each an operation of its scope): what the arrivals of
/// the current phase released and what the completed phases did, apart for arrivals of the
/// object's own CTA, which every waiter's scope includes, and arrivals of another CTA of the
/// cluster at `.cluster` scope, which only a `.cluster` wait acquires. A remote arrive at `.cta`
/// scope releases to nobody: its scope does not include the waiters.
#[derive(Clone, Debug, Default)]
pub struct PhaseClocks {
    own: Clock,
    own_done: Clock,
    cluster: Clock,
    cluster_done: Clock,
}

impl PhaseClocks {
    /// The current phase completes: its arrivals' clocks join those of the completed phases.
    pub fn complete(&mut self) {
        self.own_done.join(&self.own);
        self.cluster_done.join(&self.cluster);
    }
}

impl Race {
    /// `t` arrives at `scope` on an mbarrier of CTA `owner`.
    pub fn mbarrier_arrive(&mut self, t: u32, scope: Scope, owner: u32, phases: &mut PhaseClocks) {
        let me = self.places[t as usize];
        let waiter = Place { cta: owner, ..me };
        if me.cta == owner {
            self.release_into(t, &mut phases.own);
        } else if includes(scope, me, waiter) {
            self.release_into(t, &mut phases.cluster);
        }
    }

    /// `t` (of the object's CTA) observes a completed phase with a wait at `scope`.
    pub fn mbarrier_acquire(&mut self, t: u32, scope: Scope, phases: &PhaseClocks) {
        self.absorb(t, &phases.own_done);
        if scope >= Scope::Cluster {
            self.absorb(t, &phases.cluster_done);
        }
    }
}
