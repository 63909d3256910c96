//! [`MappedAccess`]: the host's accesses to a mapped slice of words, written once, run on real
//! memory (`&MappedSlice<W>`: `scoped_atomics::Atomic<W, System>`) or in the simulator
//! ([`SimWords`]: the simulator's `HostCtx`).

#[cfg_attr(loom, allow(unused_imports))] // the real-memory impl is not in a loom build
use super::MappedSlice;
use crate::sim::{HostCtx, HostWord};
use core::sync::atomic::Ordering;
use std::marker::PhantomData;

/// The host's side of a structure in mapped memory, as a slice of words of type `W` indexed
/// from 0: the operations of `Atomic<W, System>` (same names, orderings and results, with the
/// index first) and plain reads and writes. Write the host's code against `&mut impl
/// MappedAccess<W>` once; it runs on a `&MappedSlice<W>` (host threads, GPU: see [`poll`]) and
/// as a simulator host thread ([`MappedSlice::sim_host_thread`]).
///
/// [`poll`]: super::poll
///
/// ```
/// use scoped_atomics::Ordering::{AcqRel, Relaxed};
/// use scoped_atomics_host::mapped::{MappedAccess, MappedSlice};
/// // Takes a ticket from word 0 and records it in word 1.
/// fn ticket(q: &mut impl MappedAccess<u64>) -> u64 {
///     let t = q.fetch_add(0, 1, AcqRel);
///     q.fetch_max(1, t, Relaxed);
///     t
/// }
/// let s = MappedSlice::new(&[5u64, 0]);
/// assert_eq!(ticket(&mut &s), 5);
/// assert_eq!((s.atomic(0).load(Relaxed), s.atomic(1).load(Relaxed)), (6, 5));
/// ```
pub trait MappedAccess<W: Copy> {
    /// The number of words.
    fn len(&self) -> usize;
    /// Whether there is no word.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `Atomic::load` of word `i`.
    fn load(&mut self, i: usize, order: Ordering) -> W;
    /// `Atomic::store` of word `i`.
    fn store(&mut self, i: usize, value: W, order: Ordering);
    /// `Atomic::swap` of word `i`.
    fn swap(&mut self, i: usize, value: W, order: Ordering) -> W;
    /// `Atomic::compare_exchange` of word `i`.
    fn compare_exchange(
        &mut self,
        i: usize,
        current: W,
        new: W,
        success: Ordering,
        failure: Ordering,
    ) -> Result<W, W>;
    /// `Atomic::fetch_add` of word `i`.
    fn fetch_add(&mut self, i: usize, value: W, order: Ordering) -> W;
    /// `Atomic::fetch_sub` of word `i`.
    fn fetch_sub(&mut self, i: usize, value: W, order: Ordering) -> W;
    /// `Atomic::fetch_and` of word `i`.
    fn fetch_and(&mut self, i: usize, value: W, order: Ordering) -> W;
    /// `Atomic::fetch_or` of word `i`.
    fn fetch_or(&mut self, i: usize, value: W, order: Ordering) -> W;
    /// `Atomic::fetch_xor` of word `i`.
    fn fetch_xor(&mut self, i: usize, value: W, order: Ordering) -> W;
    /// `Atomic::fetch_max` of word `i`.
    fn fetch_max(&mut self, i: usize, value: W, order: Ordering) -> W;
    /// `Atomic::fetch_min` of word `i`.
    fn fetch_min(&mut self, i: usize, value: W, order: Ordering) -> W;
    /// A plain read of word `i`.
    ///
    /// # Safety
    /// On real memory, no write races with it ([`MappedSlice::read`]); in the simulator a race
    /// is reported, not undefined.
    unsafe fn read(&mut self, i: usize) -> W;
    /// A plain write of word `i`.
    ///
    /// # Safety
    /// On real memory, no access races with it ([`MappedSlice::write`]); in the simulator a
    /// race is reported, not undefined.
    unsafe fn write(&mut self, i: usize, value: W);
}

/// Real memory: each operation is `Atomic<W, System>`'s, on [`MappedSlice::atomic`]`(i)`.
#[cfg(not(loom))]
impl<W> MappedAccess<W> for &MappedSlice<W>
where
    W: bytemuck::Pod + scoped_atomics::AtomicArithmetic + scoped_atomics::AtomicBitwise,
{
    fn len(&self) -> usize {
        MappedSlice::len(self)
    }
    fn load(&mut self, i: usize, order: Ordering) -> W {
        self.atomic(i).load(order)
    }
    fn store(&mut self, i: usize, value: W, order: Ordering) {
        self.atomic(i).store(value, order)
    }
    fn swap(&mut self, i: usize, value: W, order: Ordering) -> W {
        self.atomic(i).swap(value, order)
    }
    fn compare_exchange(
        &mut self,
        i: usize,
        current: W,
        new: W,
        success: Ordering,
        failure: Ordering,
    ) -> Result<W, W> {
        self.atomic(i)
            .compare_exchange(current, new, success, failure)
    }
    fn fetch_add(&mut self, i: usize, value: W, order: Ordering) -> W {
        self.atomic(i).fetch_add(value, order)
    }
    fn fetch_sub(&mut self, i: usize, value: W, order: Ordering) -> W {
        self.atomic(i).fetch_sub(value, order)
    }
    fn fetch_and(&mut self, i: usize, value: W, order: Ordering) -> W {
        self.atomic(i).fetch_and(value, order)
    }
    fn fetch_or(&mut self, i: usize, value: W, order: Ordering) -> W {
        self.atomic(i).fetch_or(value, order)
    }
    fn fetch_xor(&mut self, i: usize, value: W, order: Ordering) -> W {
        self.atomic(i).fetch_xor(value, order)
    }
    fn fetch_max(&mut self, i: usize, value: W, order: Ordering) -> W {
        self.atomic(i).fetch_max(value, order)
    }
    fn fetch_min(&mut self, i: usize, value: W, order: Ordering) -> W {
        self.atomic(i).fetch_min(value, order)
    }
    unsafe fn read(&mut self, i: usize) -> W {
        // SAFETY: the caller's contract.
        unsafe { MappedSlice::read(self, i) }
    }
    unsafe fn write(&mut self, i: usize, value: W) {
        // SAFETY: the caller's contract.
        unsafe { MappedSlice::write(self, i, value) }
    }
}

/// A [`MappedSlice`] as a simulation's host thread sees it ([`MappedSlice::sim_host_thread`]):
/// word `i` is at the buffer's address plus `i × size_of::<W>()`, and each operation is the
/// simulator's `HostCtx` one (system scope; bounds, alignment and races checked, reported as
/// findings; an index past the end is a fault finding naming the host thread).
///
/// ```
/// use scoped_atomics::Ordering::Relaxed;
/// use scoped_atomics_host::mapped::{MappedAccess, MappedSlice};
/// use scoped_atomics_host::sim::{Arg, EXAMPLE_PTX, FindingKind, HostStatus, Launch, Simulator};
/// let mut s = MappedSlice::new(&[0u32; 2]);
/// let host = s.sim_host_thread(0, |q| {
///     q.store(2, 1, Relaxed); // past the end
///     HostStatus::Done
/// });
/// let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
/// l.buffers = vec![s.sim_buffer()];
/// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
/// let out = kernel.launch(&l, vec![host]).unwrap();
/// assert_eq!(out.findings[0].kind, FindingKind::Fault);
/// ```
pub struct SimWords<'c, 'a, 'p, W> {
    pub(super) ctx: &'c mut HostCtx<'a, 'p>,
    pub(super) base: u64,
    pub(super) len: usize,
    pub(super) values: PhantomData<W>,
}

impl<W: HostWord> SimWords<'_, '_, '_, W> {
    fn at(&self, i: usize) -> u64 {
        self.base + (i * size_of::<W>()) as u64
    }
}

impl<W: HostWord> MappedAccess<W> for SimWords<'_, '_, '_, W> {
    fn len(&self) -> usize {
        self.len
    }
    fn load(&mut self, i: usize, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.load(at, order)
    }
    fn store(&mut self, i: usize, value: W, order: Ordering) {
        let at = self.at(i);
        self.ctx.store(at, value, order)
    }
    fn swap(&mut self, i: usize, value: W, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.swap(at, value, order)
    }
    fn compare_exchange(
        &mut self,
        i: usize,
        current: W,
        new: W,
        success: Ordering,
        failure: Ordering,
    ) -> Result<W, W> {
        let at = self.at(i);
        self.ctx
            .compare_exchange(at, current, new, success, failure)
    }
    fn fetch_add(&mut self, i: usize, value: W, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.fetch_add(at, value, order)
    }
    fn fetch_sub(&mut self, i: usize, value: W, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.fetch_sub(at, value, order)
    }
    fn fetch_and(&mut self, i: usize, value: W, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.fetch_and(at, value, order)
    }
    fn fetch_or(&mut self, i: usize, value: W, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.fetch_or(at, value, order)
    }
    fn fetch_xor(&mut self, i: usize, value: W, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.fetch_xor(at, value, order)
    }
    fn fetch_max(&mut self, i: usize, value: W, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.fetch_max(at, value, order)
    }
    fn fetch_min(&mut self, i: usize, value: W, order: Ordering) -> W {
        let at = self.at(i);
        self.ctx.fetch_min(at, value, order)
    }
    unsafe fn read(&mut self, i: usize) -> W {
        let at = self.at(i);
        self.ctx.read(at)
    }
    unsafe fn write(&mut self, i: usize, value: W) {
        let at = self.at(i);
        self.ctx.write(at, value)
    }
}
