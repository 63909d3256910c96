//! The shadow state of one 8-byte granule: every access that a later access could still race
//! with, grouped by kind.
//!
//! A record is dropped only when a later access *covers* it: the later access is ordered after
//! it, touches all of its bytes, writes if it wrote, and is morally strong with every access the
//! dropped one was morally strong with. Then any access that races with the dropped record also
//! races with the covering one, which is kept (or itself covered, by the same argument), so no
//! race of the schedule goes unreported. Nothing is evicted for space.

use super::{Access, Place, RaceHit, Shadow, ThreadClock, includes};
use crate::isa::Scope;

/// One thread's latest access of a kind: its clock at the access and the instruction.
#[derive(Clone, Copy, Debug)]
struct Member {
    tid: u32,
    clock: u32,
    inst: u32,
}

/// Accesses of one kind (bytes, read or write, strength, scope, the threads' place): for a
/// later access they are all morally strong with it or none is, so the check of the kind is
/// one comparison and the threads are searched only where moral strength does not excuse them.
#[derive(Clone, Debug)]
struct Kind {
    mask: u8,
    write: bool,
    strong: bool,
    scope: Scope,
    place: Place,
    members: Members,
}

/// A kind's members, one per thread, by thread id; the first inline (most granules see one
/// thread of a kind, and the check then reads no other memory).
#[derive(Clone, Debug)]
enum Members {
    One(Member),
    Many(Vec<Member>),
}

impl Members {
    fn as_slice(&self) -> &[Member] {
        match self {
            Members::One(m) => std::slice::from_ref(m),
            Members::Many(v) => v,
        }
    }

    /// Records `m`, replacing its thread's member.
    fn put(&mut self, m: Member) {
        match self {
            Members::One(x) if x.tid == m.tid => *x = m,
            Members::One(x) => {
                let x = *x;
                *self = Members::Many(if x.tid < m.tid {
                    vec![x, m]
                } else {
                    vec![m, x]
                });
            }
            Members::Many(v) => match v.binary_search_by_key(&m.tid, |x| x.tid) {
                Ok(i) => v[i] = m,
                Err(i) => v.insert(i, m),
            },
        }
    }

    /// Keeps the members `keep` accepts; whether any is left.
    fn retain(&mut self, keep: impl Fn(&Member) -> bool) -> bool {
        match self {
            Members::One(x) => keep(x),
            Members::Many(v) => {
                v.retain(keep);
                !v.is_empty()
            }
        }
    }
}

impl Kind {
    fn same_kind(&self, mask: u8, a: &Access, me: Place) -> bool {
        self.mask == mask
            && self.write == a.write
            && self.strong == a.strong
            && self.scope == a.scope
            && self.place == me
    }

    /// PTX ISA 8.7 for threads of different places: both strong, each scope includes the
    /// other thread, and the same bytes.
    fn morally_strong_with(&self, mask: u8, a: &Access, me: Place) -> bool {
        self.strong
            && a.strong
            && self.mask == mask
            && includes(self.scope, self.place, me)
            && includes(a.scope, me, self.place)
    }

    /// Whether `a`, once ordered after a member, makes the member's record redundant: it
    /// touches all its bytes, writes if the member wrote, and (when strong) it is morally
    /// strong with nothing the member is not morally strong with.
    fn covered_by(&self, mask: u8, a: &Access, me: Place) -> bool {
        (!self.write || a.write)
            && self.mask & !mask == 0
            && (!a.strong
                || (self.strong && self.mask == mask && self.place == me && self.scope >= a.scope))
    }

    fn why_not_morally_strong(&self, mask: u8, a: &Access) -> &'static str {
        if !(self.strong && a.strong) {
            "a plain access is never morally strong"
        } else if self.mask != mask {
            "not morally strong: the accesses differ in size or address"
        } else {
            "not morally strong: a scope does not include the other thread"
        }
    }
}

/// The records of one granule: the first two kinds inline (most granules see one or two), the
/// rest after them.
#[derive(Clone, Debug, Default)]
pub(super) struct Granule {
    head: [Option<Kind>; 2],
    rest: Vec<Kind>,
    /// Records kept before the next pass that drops covered ones (amortised: twice the records
    /// left by the last pass, at least [`PRUNE_FLOOR`]).
    prune_at: u32,
}

const PRUNE_FLOOR: u32 = 8;

impl Granule {
    /// Checks the access `a` of the bytes `mask` by a thread at `me` with clock `vc` against
    /// the records; records it; returns the first race it completes. An asynchronous
    /// operation's access (`issued`: its thread's clock when issued) is ordered after what that
    /// clock has seen, not after its thread's accesses since (program order does not excuse
    /// them).
    pub(super) fn access(
        &mut self,
        mask: u8,
        a: Access,
        me: Place,
        vc: &ThreadClock,
        issued: Option<&ThreadClock>,
    ) -> Option<RaceHit> {
        let (seen, own_excused) = match issued {
            Some(clock) => (clock, false),
            None => (vc, true),
        };
        let mut hit = None;
        let mut records = 0;
        for k in self.head.iter().flatten().chain(&self.rest) {
            let members = k.members.as_slice();
            records += members.len() as u32;
            if hit.is_some()
                || k.mask & mask == 0
                || !(k.write || a.write)
                || k.morally_strong_with(mask, &a, me)
            {
                continue;
            }
            // A member not ordered before this access (program order excuses its own thread).
            if let Some(m) = members
                .iter()
                .find(|m| !(own_excused && m.tid == a.tid) && m.clock > seen.get(m.tid))
            {
                hit = Some(RaceHit {
                    earlier: Shadow {
                        tid: m.tid,
                        mask: k.mask,
                        write: k.write,
                        strong: k.strong,
                        scope: k.scope,
                        inst: m.inst,
                    },
                    later: a,
                    reason: k.why_not_morally_strong(mask, &a),
                });
            }
        }
        if records >= self.prune_at.max(PRUNE_FLOOR) {
            self.drop_covered(mask, &a, me, seen);
        }
        let member = Member {
            tid: a.tid,
            clock: vc.own(),
            inst: a.inst,
        };
        let same = (self.head.iter_mut().flatten())
            .chain(&mut self.rest)
            .find(|k| k.same_kind(mask, &a, me));
        match same {
            // The thread's own earlier access of the kind is covered by this one.
            Some(k) => k.members.put(member),
            None => {
                let kind = Kind {
                    mask,
                    write: a.write,
                    strong: a.strong,
                    scope: a.scope,
                    place: me,
                    members: Members::One(member),
                };
                match self.head.iter_mut().find(|k| k.is_none()) {
                    Some(free) => *free = Some(kind),
                    None => self.rest.push(kind),
                }
            }
        }
        hit
    }

    /// Drops the records that `a` (about to be recorded) covers and is ordered after (`seen`:
    /// the clock that orders accesses before it).
    fn drop_covered(&mut self, mask: u8, a: &Access, me: Place, seen: &ThreadClock) {
        let unordered = |m: &Member| m.clock > seen.get(m.tid);
        for slot in &mut self.head {
            if let Some(k) = slot
                && k.covered_by(mask, a, me)
                && !k.members.retain(unordered)
            {
                *slot = None;
            }
        }
        self.rest
            .retain_mut(|k| !k.covered_by(mask, a, me) || k.members.retain(unordered));
        let left = (self.head.iter().flatten().chain(&self.rest))
            .map(|k| k.members.as_slice().len() as u32)
            .sum::<u32>();
        self.prune_at = 2 * left;
    }
}
