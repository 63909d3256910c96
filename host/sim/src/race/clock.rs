//! Vector clocks that cost what they know, not what the launch holds.
//!
//! A [`Clock`] keeps only its non-zero entries, sorted by thread: a thread that has synchronised
//! with nobody knows one entry, a CTA after `bar.sync` its own threads', and a clock never grows
//! with the size of the grid unless it has seen that many threads. A clock whose entries are one
//! contiguous run of threads (a CTA after a barrier, the common case) is read by index, a sparse
//! one by binary search.
//!
//! A thread's own clock ([`ThreadClock`]) is a shared base and its own entry apart: the threads
//! leaving a barrier share one base (FastTrack's observation: the own entry is the one that
//! moves), so a CTA's clocks after `bar.sync` cost one copy of the CTA's entries, not one per
//! thread; the base is copied only when the thread then learns something the others did not.
//! Reading an entry gives the same value as a dense vector clock would, so the detector's
//! judgement is unchanged.

use std::rc::Rc;

/// A vector clock: the non-zero entries, sorted by thread id (an absent thread's entry is 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    entries: Vec<(u32, u32)>,
}

impl Clock {
    /// Thread `t`'s entry.
    #[inline]
    pub fn get(&self, t: u32) -> u32 {
        let e = &self.entries;
        let Some(&(first, _)) = e.first() else {
            return 0;
        };
        // A contiguous run of threads: the entry is at its offset.
        let i = t.wrapping_sub(first) as usize;
        if let Some(&(k, v)) = e.get(i)
            && k == t
        {
            return v;
        }
        match e.binary_search_by_key(&t, |x| x.0) {
            Ok(i) => e[i].1,
            Err(_) => 0,
        }
    }

    /// Whether no entry is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Raises thread `t`'s entry to at least `v`.
    pub fn raise(&mut self, t: u32, v: u32) {
        if v == 0 {
            return;
        }
        match self.entries.binary_search_by_key(&t, |x| x.0) {
            Ok(i) => self.entries[i].1 = self.entries[i].1.max(v),
            Err(i) => self.entries.insert(i, (t, v)),
        }
    }

    /// The entry-wise maximum of `self` and `other`, into `self`.
    pub fn join(&mut self, other: &Clock) {
        if other.entries.is_empty() {
            return;
        }
        if self.entries.is_empty() {
            self.entries.clone_from(&other.entries);
            return;
        }
        // In place where `self` has the entry (the common case: the same threads), the rest
        // merged in afterwards.
        let mut missing = Vec::new();
        let mut i = 0;
        for &(k, v) in &other.entries {
            while i < self.entries.len() && self.entries[i].0 < k {
                i += 1;
            }
            match self.entries.get_mut(i) {
                Some(e) if e.0 == k => e.1 = e.1.max(v),
                _ => missing.push((k, v)),
            }
        }
        if missing.is_empty() {
            return;
        }
        let old = std::mem::take(&mut self.entries);
        let mut merged = Vec::with_capacity(old.len() + missing.len());
        let (mut a, mut b) = (old.into_iter().peekable(), missing.into_iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.0 < y.0 => a.next(),
                (Some(_), Some(_)) | (None, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => break,
            };
            merged.extend(next);
        }
        self.entries = merged;
    }

    /// Joins thread clock `c` (its base and its own entry) into `self`.
    pub fn join_thread(&mut self, c: &ThreadClock) {
        self.join(&c.base);
        self.raise(c.tid, c.own);
    }
}

/// A thread's clock: a base, possibly shared with other threads, and the thread's own entry,
/// which overrides the base's.
#[derive(Clone, Debug, Default)]
pub struct ThreadClock {
    tid: u32,
    own: u32,
    base: Rc<Clock>,
}

impl ThreadClock {
    /// The clock of thread `tid` at its start: its own entry 1, sharing `empty`.
    pub fn start(tid: u32, empty: &Rc<Clock>) -> ThreadClock {
        ThreadClock {
            tid,
            own: 1,
            base: empty.clone(),
        }
    }

    /// Thread `t`'s entry.
    #[inline]
    pub fn get(&self, t: u32) -> u32 {
        if t == self.tid {
            self.own
        } else {
            self.base.get(t)
        }
    }

    /// The thread's own entry.
    #[inline]
    pub fn own(&self) -> u32 {
        self.own
    }

    /// Moves the thread's own entry on.
    pub fn tick(&mut self) {
        self.own += 1;
    }

    /// Learns `other` (an acquire): copies the base first if another thread shares it.
    pub fn join(&mut self, other: &Clock) {
        if other.is_empty() {
            return;
        }
        self.own = self.own.max(other.get(self.tid));
        Rc::make_mut(&mut self.base).join(other);
    }

    /// Makes this thread's clock `all` (shared), with its own entry from it.
    pub fn set_shared(&mut self, all: &Rc<Clock>) {
        self.own = self.own.max(all.get(self.tid));
        self.base = all.clone();
    }

    /// Frees what the clock holds (the thread has exited; nothing reads its clock again).
    pub fn release_storage(&mut self, empty: &Rc<Clock>) {
        self.base = empty.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(c: &Clock, n: u32) -> Vec<u32> {
        (0..n).map(|t| c.get(t)).collect()
    }

    #[test]
    fn join_is_the_entrywise_maximum_of_dense_clocks() {
        let mut a = Clock::default();
        for (t, v) in [(1, 3), (2, 1), (7, 4)] {
            a.raise(t, v);
        }
        let mut b = Clock::default();
        for (t, v) in [(0, 2), (2, 5), (7, 1), (9, 9)] {
            b.raise(t, v);
        }
        let (da, db) = (dense(&a, 10), dense(&b, 10));
        a.join(&b);
        let want: Vec<u32> = da.iter().zip(&db).map(|(x, y)| *x.max(y)).collect();
        assert_eq!(dense(&a, 10), want);
        assert_eq!(a.get(100), 0);
    }

    #[test]
    fn a_thread_clock_overrides_its_shared_base_with_its_own_entry() {
        let empty = Rc::new(Clock::default());
        let mut t3 = ThreadClock::start(3, &empty);
        let mut t4 = ThreadClock::start(4, &empty);
        let mut all = Clock::default();
        all.join_thread(&t3);
        all.join_thread(&t4);
        let all = Rc::new(all);
        t3.set_shared(&all);
        t4.set_shared(&all);
        t3.tick();
        assert_eq!((t3.get(3), t3.get(4), t4.get(3), t4.get(4)), (2, 1, 1, 1));
        let mut other = Clock::default();
        other.raise(9, 5);
        t4.join(&other);
        assert_eq!((t4.get(9), t3.get(9), all.get(9)), (5, 0, 0));
    }
}
