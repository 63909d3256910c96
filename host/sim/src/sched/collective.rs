//! Warp-level synchronisation: `bar.warp.sync` and the collectives `shfl.sync`, `vote.sync`,
//! `match.sync`, `redux.sync`, with the member-mask rules of the PTX ISA, and `activemask`.
//!
//! * A lane waits until the lanes of its member mask have executed a collective of the same
//!   kind and qualifiers with the same mask (for the data collectives, the lanes that have not
//!   exited; for `bar.warp.sync`, all of them). A mask without the executing lane, naming lanes
//!   the warp lacks, or differing from the mask of a lane waiting at the same instruction that
//!   it names (or that names it) is undefined in PTX: a finding. (Two such lanes are seen when
//!   they wait together: in warp-lockstep mode always, in random mode when the schedule has
//!   them meet; masks that never meet leave a hang.)
//! * Only `bar.warp.sync` orders memory among its lanes; the data collectives exchange register
//!   values and order nothing.
//! * `activemask` reports the lanes executing it together: it waits until no lane of its warp
//!   runs, then gives the lanes at the same `activemask` instruction.

use super::super::decode::{Op, ReduxOp, ShflMode, Ty, VoteMode, WarpInst, WarpOp};
use super::super::exec::{State, World};
use super::Scheduler;
use crate::report::FindingKind;

/// What a group of lanes waits at.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Collective {
    WarpSync,
    Data(WarpOp, Ty),
}

/// Lanes of one warp waiting at a collective with one member mask: (thread, instruction).
#[derive(Clone, Debug)]
pub(super) struct WarpGroup {
    pub mask: u32,
    pub kind: Collective,
    pub members: Vec<(u32, u32)>,
}

impl Collective {
    fn name(self) -> &'static str {
        match self {
            Collective::WarpSync => "bar.warp.sync",
            Collective::Data(WarpOp::Shfl(_), _) => "shfl.sync",
            Collective::Data(WarpOp::Vote(_), _) => "vote.sync",
            Collective::Data(WarpOp::MatchAny | WarpOp::MatchAll, _) => "match.sync",
            Collective::Data(WarpOp::Redux(_), _) => "redux.sync",
        }
    }
}

impl Scheduler<'_, '_> {
    /// The (CTA, warp) of thread `t` and its lane.
    fn warp_of(&self, t: u32) -> ((u32, u32), u32) {
        let th = &self.threads[t as usize];
        ((th.cta, th.lin / 32), th.lin % 32)
    }

    /// The thread of lane `lane` of warp `key`.
    fn lane_thread(&self, key: (u32, u32), lane: u32) -> u32 {
        key.0 * self.cta_threads + key.1 * 32 + lane
    }

    /// Lanes warp `key` has.
    fn existing_lanes(&self, key: (u32, u32)) -> u32 {
        let lanes = (self.cta_threads - key.1 * 32).min(32);
        if lanes == 32 {
            u32::MAX
        } else {
            (1 << lanes) - 1
        }
    }

    /// A fault when `mask` lacks the thread's own lane or names lanes the warp lacks.
    fn check_mask(&mut self, t: u32, mask: u32, at: u32, what: &str) -> bool {
        let (key, lane) = self.warp_of(t);
        let existing = self.existing_lanes(key);
        let problem = if mask & (1 << lane) == 0 {
            format!("does not include the thread's own lane {lane}")
        } else if mask & !existing != 0 {
            format!(
                "names lanes that do not exist: warp {} of a block of {} threads has {}",
                key.1,
                self.cta_threads,
                existing.count_ones()
            )
        } else {
            return true;
        };
        let text = format!(
            "{} at {}: {what} member mask {mask:#010x} {problem} (undefined in PTX)",
            self.name(t),
            self.inst(at)
        );
        self.stop(FindingKind::Fault, text);
        false
    }

    /// Handles thread `t` arriving at `bar.warp.sync mask` at instruction `at`: when every lane
    /// of the mask has arrived with the same mask, each member's accesses before it happen
    /// before every member's accesses after it (the ISA's memory ordering among the threads
    /// participating in the barrier).
    pub(super) fn warp_sync(&mut self, t: u32, mask: u32, at: u32) {
        if self.check_mask(t, mask, at, "bar.warp.sync") {
            self.join_group(t, at, mask, Collective::WarpSync);
        }
    }

    /// Handles thread `t` stopped at the collective or `activemask` at instruction `at`.
    pub(super) fn collective(&mut self, t: u32, at: u32) {
        let prog = self.world.prog;
        match &prog.insts[at as usize].op {
            Op::ActiveMask(_) => {
                let (key, _) = self.warp_of(t);
                self.block(t);
                self.active_waits.entry(key).or_default().push((t, at));
                self.check_active(key);
            }
            Op::Warp(w) => {
                let mask = self.world.val(&self.threads[t as usize], w.mask) as u32;
                let kind = Collective::Data(w.op, w.ty);
                if self.check_mask(t, mask, at, kind.name()) {
                    self.join_group(t, at, mask, kind);
                }
            }
            _ => unreachable!("a collective event from another instruction"),
        }
    }

    fn block(&mut self, t: u32) {
        self.threads[t as usize].state = State::AtBarrier(u32::MAX);
        self.live.remove_id(t);
    }

    fn join_group(&mut self, t: u32, at: u32, mask: u32, kind: Collective) {
        let (key, lane) = self.warp_of(t);
        let groups = self.warp_groups.entry(key).or_default();
        // Lanes at the same collective instruction with masks that differ, one naming the other:
        // they cannot all complete together. (Lanes at different instructions may: a lane
        // waiting at one collective for another lane still on its way to it.)
        let clash = groups.iter().find_map(|g| {
            let names_me = g.mask & (1 << lane) != 0;
            let named = g.members.iter().find(|m| mask & (1 << (m.0 % 32)) != 0);
            let same_instruction = g.members.iter().any(|m| m.1 == at);
            (g.kind == kind && g.mask != mask && same_instruction && (names_me || named.is_some()))
                .then(|| (g.mask, g.kind, *named.or(g.members.first()).unwrap()))
        });
        if let Some((other_mask, other_kind, (u, uat))) = clash {
            let text = format!(
                "lanes of one warp wait at warp collectives that cannot match: {} at {} ({} with member mask {mask:#010x}) and {} at {} ({} with member mask {other_mask:#010x}); the lanes of a member mask must execute the same kind of collective with the same mask (undefined in PTX)",
                self.name(t),
                self.inst(at),
                kind.name(),
                self.name(u),
                self.inst(uat),
                other_kind.name()
            );
            self.stop(FindingKind::Divergence, text);
            return;
        }
        self.block(t);
        let groups = self.warp_groups.get_mut(&key).expect("the warp's groups");
        let g = match groups.iter().position(|g| g.mask == mask && g.kind == kind) {
            Some(g) => g,
            None => {
                groups.push(WarpGroup {
                    mask,
                    kind,
                    members: Vec::new(),
                });
                groups.len() - 1
            }
        };
        groups[g].members.push((t, at));
        self.try_complete_group(key, g);
        self.check_active(key);
    }

    /// Completes group `g` of warp `key` when its lanes are all there.
    fn try_complete_group(&mut self, key: (u32, u32), g: usize) {
        let group = &self.warp_groups[&key][g];
        let arrived = group
            .members
            .iter()
            .fold(0u32, |m, &(t, _)| m | 1 << (t % self.cta_threads % 32));
        let needed = match group.kind {
            Collective::WarpSync => group.mask,
            // The data collectives wait for the non-exited lanes of the mask.
            Collective::Data(..) => (0..32)
                .filter(|&l| group.mask & (1 << l) != 0)
                .filter(|&l| self.threads.state(self.lane_thread(key, l)) != State::Done)
                .fold(0, |m, l| m | 1 << l),
        };
        if arrived & needed != needed {
            return;
        }
        let group = self
            .warp_groups
            .get_mut(&key)
            .expect("the warp's groups")
            .swap_remove(g);
        let ids: Vec<u32> = group.members.iter().map(|m| m.0).collect();
        match group.kind {
            Collective::WarpSync => self.release(&ids, true),
            Collective::Data(..) => {
                self.exchange(&group);
                self.release(&ids, false);
            }
        }
    }

    /// After a lane of warp `key` exited: data collectives no longer wait for it.
    pub(super) fn lane_exited(&mut self, key: (u32, u32)) {
        let mut g = 0;
        while g < self.warp_groups.get(&key).map_or(0, Vec::len) {
            let before = self.warp_groups[&key].len();
            if matches!(self.warp_groups[&key][g].kind, Collective::Data(..)) {
                self.try_complete_group(key, g);
            }
            if self.warp_groups[&key].len() == before {
                g += 1;
            }
        }
        self.check_active(key);
    }

    /// Completes the `activemask`s of warp `key` once none of its lanes runs.
    pub(super) fn check_active(&mut self, key: (u32, u32)) {
        if self.active_waits.get(&key).is_none_or(Vec::is_empty) {
            return;
        }
        let existing = self.existing_lanes(key);
        let running = (0..32)
            .filter(|&l| existing & (1 << l) != 0)
            .any(|l| self.threads.state(self.lane_thread(key, l)) == State::Ready);
        if running {
            return;
        }
        let waits = self.active_waits.remove(&key).unwrap_or_default();
        for &(t, at) in &waits {
            let mask = waits
                .iter()
                .filter(|w| w.1 == at)
                .fold(0u32, |m, w| m | 1 << (w.0 % self.cta_threads % 32));
            if let Op::ActiveMask(d) = self.world.prog.insts[at as usize].op {
                World::set(&mut self.threads[t as usize], d, u64::from(mask));
            }
        }
        let ids: Vec<u32> = waits.iter().map(|w| w.0).collect();
        self.release(&ids, false);
    }

    /// Computes and writes the results of a completed data collective.
    fn exchange(&mut self, group: &WarpGroup) {
        let prog = self.world.prog;
        let lane = |t: u32| t % self.cta_threads % 32;
        // Each member's instruction and its source values.
        let mut a_by_lane = [None::<u64>; 32];
        let members: Vec<(u32, &WarpInst, [u64; 3])> = group
            .members
            .iter()
            .map(|&(t, at)| {
                let Op::Warp(w) = &prog.insts[at as usize].op else {
                    unreachable!("a data collective member at another instruction")
                };
                let th = &self.threads[t as usize];
                let v = w.src.map(|s| self.world.val(th, s));
                let a = if matches!(w.op, WarpOp::Vote(_)) {
                    u64::from((v[0] != 0) != w.negate)
                } else {
                    v[0] & w.ty.mask()
                };
                a_by_lane[lane(t) as usize] = Some(a);
                (t, &**w, [a, v[1], v[2]])
            })
            .collect();
        let values: Vec<(u32, u64)> = a_by_lane
            .iter()
            .enumerate()
            .filter_map(|(l, a)| a.map(|a| (l as u32, a)))
            .collect();
        let mask_of = |f: &dyn Fn(u64) -> bool| {
            values
                .iter()
                .filter(|(_, a)| f(*a))
                .fold(0u64, |m, (l, _)| m | 1 << l)
        };
        for (t, w, [a, b, c]) in members {
            let me = lane(t);
            let (d, p) = match w.op {
                WarpOp::Shfl(mode) => {
                    let (b, c) = (b as u32 & 31, c as u32);
                    let (clamp, segmask) = (c & 31, (c >> 8) & 31);
                    let max_lane = (me & segmask) | (clamp & !segmask);
                    let min_lane = me & segmask;
                    let (j, ok) = match mode {
                        ShflMode::Up => {
                            let j = me as i32 - b as i32;
                            (j, j >= max_lane as i32)
                        }
                        ShflMode::Down => ((me + b) as i32, me + b <= max_lane),
                        ShflMode::Bfly => ((me ^ b) as i32, (me ^ b) <= max_lane),
                        ShflMode::Idx => {
                            let j = min_lane | (b & !segmask);
                            (j as i32, j <= max_lane)
                        }
                    };
                    let j = if ok { j as usize } else { me as usize };
                    // A source lane that is not a member: its value is unpredictable in PTX;
                    // the lane's own value here.
                    (a_by_lane[j].unwrap_or(a), Some(u64::from(ok)))
                }
                WarpOp::Vote(mode) => {
                    let ballot = mask_of(&|v| v != 0);
                    let all = ballot.count_ones() as usize == values.len();
                    let v = match mode {
                        VoteMode::All => u64::from(all),
                        VoteMode::Any => u64::from(ballot != 0),
                        VoteMode::Uni => u64::from(all || ballot == 0),
                        VoteMode::Ballot => ballot,
                    };
                    (v, None)
                }
                WarpOp::MatchAny => (mask_of(&|v| v == a), None),
                WarpOp::MatchAll => {
                    let same = values.iter().all(|&(_, v)| v == a);
                    let m = if same { mask_of(&|_| true) } else { 0 };
                    (m, Some(u64::from(same)))
                }
                WarpOp::Redux(op) => (redux(op, w.ty, &values), None),
            };
            let th = &mut self.threads[t as usize];
            if let Some(dst) = w.d {
                World::set(th, dst, d);
            }
            if let (Some(pd), Some(pv)) = (w.p, p) {
                World::set(th, pd, pv);
            }
        }
    }
}

/// `redux.sync`: the reduction of the members' values at type `ty`.
fn redux(op: ReduxOp, ty: Ty, values: &[(u32, u64)]) -> u64 {
    let signed = ty.kind == super::super::decode::Kind::S;
    let key = |v: u64| {
        if signed {
            i64::from(v as u32 as i32)
        } else {
            v as i64
        }
    };
    let it = values.iter().map(|&(_, v)| v);
    let r = match op {
        ReduxOp::Add => it.fold(0u64, u64::wrapping_add),
        ReduxOp::And => it.fold(u64::MAX, |a, v| a & v),
        ReduxOp::Or => it.fold(0, |a, v| a | v),
        ReduxOp::Xor => it.fold(0, |a, v| a ^ v),
        ReduxOp::Min => it.min_by_key(|&v| key(v)).unwrap_or(0),
        ReduxOp::Max => it.max_by_key(|&v| key(v)).unwrap_or(0),
    };
    r & ty.mask()
}
