//! The host threads' atomic read-modify-writes at system scope: `core::sync::atomic`'s, on the
//! [`HostWord`] types, each one strong read and write of the location.

use super::{HostAccess, HostCtx, HostWord, check_failure};
use crate::isa::Rmw;
use core::sync::atomic::Ordering;

impl HostCtx<'_, '_> {
    /// Adds `v` (wrapping) and returns the previous value (`core`'s `fetch_add`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0, 0, 0, 0, 5, 0, 0, 0]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.fetch_add(ctx.buffer(0) + 4, 10u32, Ordering::AcqRel), 5);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 15);
    /// ```
    pub fn fetch_add<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) -> W {
        self.atomic::<W>(addr, order, Rmw::Add, v.to_bits())
    }

    /// Subtracts `v` (wrapping) and returns the previous value (`core`'s `fetch_sub`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0; 16]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.fetch_sub(ctx.buffer(0) + 8, 1u64, Ordering::Release), 0);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][8..], [0xff; 8]);
    /// ```
    pub fn fetch_sub<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) -> W {
        self.atomic::<W>(addr, order, Rmw::Add, v.to_bits().wrapping_neg())
    }

    /// Stores `v` and returns the previous value (`core`'s `swap`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0, 0, 0, 0, 5, 0, 0, 0]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.swap(ctx.buffer(0) + 4, 8u32, Ordering::Acquire), 5);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 8);
    /// ```
    pub fn swap<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) -> W {
        self.atomic::<W>(addr, order, Rmw::Exch, v.to_bits())
    }

    /// Stores `new` if the value is `current` (`core`'s `compare_exchange`): `Ok` with the
    /// previous value if it was stored (a read-modify-write with ordering `success`), `Err` with
    /// the value read otherwise (a load with ordering `failure`; `Release` and `AcqRel` there
    /// panic, as in `core`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering::{Acquire, Relaxed};
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0, 0, 0, 0, 5, 0, 0, 0]];
    /// let host = HostThread::new(|ctx| {
    ///     let at = ctx.buffer(0) + 4;
    ///     assert_eq!(ctx.compare_exchange(at, 4u32, 9, Acquire, Relaxed), Err(5));
    ///     assert_eq!(ctx.compare_exchange(at, 5u32, 9, Acquire, Relaxed), Ok(5));
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 9);
    /// ```
    pub fn compare_exchange<W: HostWord>(
        &mut self,
        addr: u64,
        current: W,
        new: W,
        success: Ordering,
        failure: Ordering,
    ) -> Result<W, W> {
        check_failure(failure);
        let a = HostAccess {
            addr,
            size: W::SIZE,
            reads: true,
            order: Some((success, failure)),
        };
        let (current, new) = (current.to_bits(), new.to_bits());
        let old = self.op(a, |old| (old == current).then_some(new));
        if old == current {
            Ok(W::from_bits(old))
        } else {
            Err(W::from_bits(old))
        }
    }

    /// Bitwise and with `v`; returns the previous value (`core`'s `fetch_and`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0, 0, 0, 0, 6, 0, 0, 0]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.fetch_and(ctx.buffer(0) + 4, 3u32, Ordering::Relaxed), 6);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 2);
    /// ```
    pub fn fetch_and<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) -> W {
        self.atomic::<W>(addr, order, Rmw::And, v.to_bits())
    }

    /// Bitwise or with `v`; returns the previous value (`core`'s `fetch_or`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0, 0, 0, 0, 6, 0, 0, 0]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.fetch_or(ctx.buffer(0) + 4, 3u32, Ordering::SeqCst), 6);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 7);
    /// ```
    pub fn fetch_or<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) -> W {
        self.atomic::<W>(addr, order, Rmw::Or, v.to_bits())
    }

    /// Bitwise exclusive or with `v`; returns the previous value (`core`'s `fetch_xor`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0, 0, 0, 0, 6, 0, 0, 0]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.fetch_xor(ctx.buffer(0) + 4, 3u32, Ordering::AcqRel), 6);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 5);
    /// ```
    pub fn fetch_xor<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) -> W {
        self.atomic::<W>(addr, order, Rmw::Xor, v.to_bits())
    }

    /// Stores the maximum of the value and `v` (signed for `i32`/`i64`); returns the previous
    /// value (`core`'s `fetch_max`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![[0u8; 4].into_iter().chain((-5i32).to_le_bytes()).collect()];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.fetch_max(ctx.buffer(0) + 4, -7i32, Ordering::Relaxed), -5);
    ///     assert_eq!(ctx.fetch_max(ctx.buffer(0) + 4, 2i32, Ordering::Relaxed), -5);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 2);
    /// ```
    pub fn fetch_max<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) -> W {
        self.atomic::<W>(addr, order, Rmw::Max, v.to_bits())
    }

    /// Stores the minimum of the value and `v` (signed for `i32`/`i64`); returns the previous
    /// value (`core`'s `fetch_min`).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![[0u8; 8].into_iter().chain(9u64.to_le_bytes()).collect()];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.fetch_min(ctx.buffer(0) + 8, u64::MAX, Ordering::Acquire), 9);
    ///     assert_eq!(ctx.fetch_min(ctx.buffer(0) + 8, 4u64, Ordering::Acquire), 9);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][8], 4);
    /// ```
    pub fn fetch_min<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) -> W {
        self.atomic::<W>(addr, order, Rmw::Min, v.to_bits())
    }
}
