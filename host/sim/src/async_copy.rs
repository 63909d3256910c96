//! `cp.async`: copies from global to shared memory that complete later, at the thread's
//! `cp.async.wait_group`/`wait_all` or `cp.async.mbarrier.arrive` (what nvcc emits for
//! `__pipeline_memcpy_async`, `cuda::memcpy_async` and cooperative groups' `memcpy_async`).
//!
//! The PTX ISA makes each copy a weak read of the source and a weak write of the destination
//! by the issuing thread, performed asynchronously: ordered after the thread's instructions
//! before it, and with nothing after it until the wait (PTX ISA 8.9.1.1). Here a copy happens at
//! that wait, as plain accesses of the thread (named by the `cp.async` instruction's line in
//! findings) that the race detector orders as the copy is ordered: after what the thread had
//! seen when it issued the copy, unordered with its own accesses between the issue and the wait
//! (a read of the destination there reads the old bytes, and races with the copy).

use super::decode::{CpAsyncInst, Scope, Space};
use super::exec::{Event, Thread, World};
use super::memory;
use super::race::SyncOp;
use crate::copy_queue::PendingCopy;

impl World<'_> {
    pub(super) fn cp_async(&mut self, th: &mut Thread, t: u32, pc: u32, c: &CpAsyncInst) -> Event {
        let dst = self.val(th, c.dst.base).wrapping_add(c.dst.off as u64);
        let src = self.val(th, c.src.base).wrapping_add(c.src.off as u64);
        let size = u64::from(c.size);
        let src_size = c.src_size.map_or(size, |s| self.val(th, s));
        if src_size > size {
            return Event::Fault(format!(
                "cp.async with src-size {src_size} larger than its cp-size {size}"
            ));
        }
        th.copies.pending.push(PendingCopy {
            dst,
            src,
            size,
            src_size,
            pc,
            group: None,
            issued: self
                .race
                .as_mut()
                .map_or_else(Default::default, |race| race.issue_async(t)),
        });
        Event::Yield
    }

    /// `cp.async.commit_group`: the uncommitted copies become the newest group.
    pub(super) fn cp_async_commit(th: &mut Thread) {
        let group = th.copies.committed;
        for c in th.copies.pending.iter_mut().filter(|c| c.group.is_none()) {
            c.group = Some(group);
        }
        // An empty group is still a group (`wait_group` counts it).
        th.copies.committed += 1;
    }

    /// `cp.async.wait_group n` (`Some(n)`: all but the `n` newest committed groups), and every
    /// copy in flight, committed or not (`None`: `cp.async.mbarrier.arrive`, which tracks all
    /// prior copies, and `wait_all` after its commit).
    pub(super) fn cp_async_wait(
        &mut self,
        th: &mut Thread,
        t: u32,
        newest_left: Option<u32>,
    ) -> Event {
        let limit = newest_left.map_or(u32::MAX, |n| th.copies.committed.saturating_sub(n));
        let (done, left): (Vec<PendingCopy>, Vec<PendingCopy>) =
            std::mem::take(&mut th.copies.pending)
                .into_iter()
                .partition(|c| newest_left.is_none() || c.group.is_some_and(|g| g < limit));
        th.copies.pending = left;
        for c in done {
            if let Some(event) = self.complete_copy(th, t, &c) {
                return event;
            }
        }
        Event::Yield
    }

    /// A thread that exits with copies in flight: they still happen (the hardware does not
    /// cancel them), after everything the thread did, ordered with nothing of the other threads.
    pub(super) fn exit_after_copies(&mut self, th: &mut Thread, t: u32) -> Event {
        if th.copies.pending.is_empty() {
            return Event::Exited;
        }
        match self.cp_async_wait(th, t, None) {
            Event::Yield => Event::Exited,
            fault => fault,
        }
    }

    /// Performs one copy: the source read and the destination write, weak, at CTA scope, as
    /// accesses of the copy (ordered after what its thread had seen when it issued it).
    fn complete_copy(&mut self, th: &mut Thread, t: u32, c: &PendingCopy) -> Option<Event> {
        if let Some(race) = &mut self.race {
            race.begin_async(c.issued.clone());
        }
        let stopped = self.copy_bytes(th, t, c);
        if let Some(race) = &mut self.race {
            race.end_async();
        }
        stopped
    }

    fn copy_bytes(&mut self, th: &mut Thread, t: u32, c: &PendingCopy) -> Option<Event> {
        let at = (th.cta, th.local.len() as u64);
        let weak = |world: &mut Self, space, addr, write| {
            world.access(at, t, space, addr, c.size, write, false, Scope::Cta, c.pc)
        };
        let mut data = 0u128;
        if c.src_size > 0 {
            let loc = match weak(self, Space::Global, c.src, false) {
                Ok(l) => l,
                Err(e) => return Some(e),
            };
            let (bytes, off) = self.bytes(th, loc);
            for k in 0..c.src_size {
                data |= u128::from(memory::read(bytes, off + k as usize, 1) as u8) << (8 * k);
            }
        }
        let loc = match weak(self, Space::Shared, c.dst, true) {
            Ok(l) => l,
            Err(e) => return Some(e),
        };
        let (bytes, off) = self.bytes(th, loc);
        for k in 0..c.size {
            memory::write(bytes, off + k as usize, 1, (data >> (8 * k)) as u64 & 0xff);
        }
        if let Some(race) = &mut self.race {
            let key = Self::sync_key(th.cta, loc);
            let op = SyncOp {
                size: c.size as u8,
                strong: false,
                scope: Scope::Cta,
            };
            race.write_sync(key, t, op, false, false);
        }
        self.progress = true;
        None
    }
}
