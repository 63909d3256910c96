//! Host threads of a launch: closures stepped by the scheduler beside the device threads, each
//! step a few system-scope accesses to the launch's buffers ("mapped" memory) through
//! [`HostCtx`], checked like a device access (bounds, races) and synchronising like one.

use super::super::decode::{Scope, Space};
use super::super::exec::{Event, World};
use super::super::isa::Rmw;
use super::super::memory::{self, Loc};
use super::super::race::SyncOp;
use super::super::values;
use core::sync::atomic::Ordering;

/// What a host thread's step says.
///
/// ```
/// use ptx_sim::{HostStatus, HostThread};
/// let _waiter = HostThread::new(|_ctx| HostStatus::Parked); // sleeps for a wake-up
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostStatus {
    /// Call the step again.
    Continue,
    /// The host thread is finished.
    Done,
    /// The host thread sleeps until a notification; none can come from the device (its
    /// `notify` cannot reach the host), so a parked host thread that is still parked when
    /// everything else has stopped is reported as a hang.
    Parked,
}

/// A host thread of a simulation: a closure called once per scheduling step; each call does a
/// few memory operations through its [`HostCtx`] (on buffers, "mapped" memory) and says
/// whether it is done. A waiting loop is written as a step that loads and returns `Continue`.
pub struct HostThread {
    step: Box<dyn FnMut(&mut HostCtx) -> HostStatus + Send>,
}

impl HostThread {
    /// A host thread running `step` until it returns [`HostStatus::Done`].
    ///
    /// ```
    /// use ptx_sim::{HostStatus, HostThread};
    /// let mut left = 3;
    /// let _t = HostThread::new(move |_ctx| {
    ///     left -= 1;
    ///     if left == 0 { HostStatus::Done } else { HostStatus::Continue }
    /// });
    /// ```
    pub fn new(step: impl FnMut(&mut HostCtx) -> HostStatus + Send + 'static) -> HostThread {
        HostThread {
            step: Box::new(step),
        }
    }

    pub(crate) fn step(&mut self, ctx: &mut HostCtx) -> HostStatus {
        (self.step)(ctx)
    }
}

/// A host thread's view of the simulation: the buffers' addresses and system-scope atomic or
/// plain accesses to them, each checked like a device access (bounds, races).
///
/// The atomic operations are those of `core::sync::atomic` at system scope: loads, stores and
/// the read-modify-writes (`fetch_add`, `compare_exchange`, …) on the [`HostWord`] types, with
/// `core`'s orderings (an ordering `core` refuses panics with `core`'s message). A
/// read-modify-write is one strong read and write (it continues the location's release
/// sequence, as a device `atom` does); a failed `compare_exchange` is a strong read with the
/// failure ordering, as in `core`.
///
/// ```
/// use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
/// use std::sync::atomic::Ordering;
/// let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
/// let mut l = Launch::new([1; 3], [8, 1, 1], vec![Arg::Ptr(0, 0)]);
/// l.buffers = vec![vec![0; 8]];
/// // The host waits (polling) until the device's sum reaches 28, then writes word 1.
/// let host = HostThread::new(|ctx| {
///     if ctx.load_u32(ctx.buffer(0), Ordering::Acquire) != 28 {
///         return HostStatus::Continue;
///     }
///     ctx.store_u32(ctx.buffer(0) + 4, 1, Ordering::Relaxed);
///     HostStatus::Done
/// });
/// let out = kernel.launch(&l, vec![host]).unwrap();
/// assert_eq!(out.buffers[0][4..], 1u32.to_le_bytes());
/// // The kernel's reductions have gpu scope, which does not include a host thread: the host's
/// // system-scope load is not morally strong with them, a scope race.
/// assert!(out.findings[0].text.starts_with("race: ") && out.findings[0].text.contains("host thread 0"));
/// ```
pub struct HostCtx<'a, 'p> {
    world: &'a mut World<'p>,
    t: u32,
    buffers: &'a [u64],
    recent: &'a mut Vec<(u64, u64)>,
    stop: Option<Event>,
}

/// A value type of the host threads' accesses: `u32`, `i32`, `u64`, `i64` (the sizes of PTX's
/// system-scope atomics the host shares with the device). Sealed.
///
/// ```
/// fn size<W: ptx_sim::HostWord>(_: W) -> usize { size_of::<W>() }
/// assert_eq!(size(7u64), 8);
/// ```
pub trait HostWord: Copy + PartialEq + core::fmt::Debug + Send + 'static + sealed::Word {}

mod sealed {
    /// What [`super::HostWord`] needs: the value as the low bytes of a `u64`, and the PTX type
    /// whose `atom` arithmetic (`values::rmw`, the device's) is `core`'s on the Rust type.
    pub trait Word: Copy {
        const SIZE: u64;
        const TY: crate::isa::Ty;
        fn to_bits(self) -> u64;
        fn from_bits(bits: u64) -> Self;
    }
}

macro_rules! host_word {
    ($($t:ty, $u:ty, $kind:ident);*) => {$(
        impl sealed::Word for $t {
            const SIZE: u64 = size_of::<$t>() as u64;
            const TY: crate::isa::Ty = crate::isa::Ty {
                kind: crate::isa::Kind::$kind,
                bytes: size_of::<$t>() as u8,
            };
            fn to_bits(self) -> u64 {
                u64::from(self as $u)
            }
            fn from_bits(bits: u64) -> Self {
                bits as $u as $t
            }
        }
        impl HostWord for $t {}
    )*};
}
host_word!(u32, u32, U; i32, u32, S; u64, u64, U; i64, u64, S);

/// (acquires, releases) of an ordering.
fn strength(order: Ordering) -> (bool, bool) {
    (
        matches!(
            order,
            Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
        ),
        matches!(
            order,
            Ordering::Release | Ordering::AcqRel | Ordering::SeqCst
        ),
    )
}

// `core`'s refusals of orderings, with its messages.
fn check_load(order: Ordering) {
    match order {
        Ordering::Release => panic!("there is no such thing as a release load"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release load"),
        _ => {}
    }
}

fn check_store(order: Ordering) {
    match order {
        Ordering::Acquire => panic!("there is no such thing as an acquire store"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release store"),
        _ => {}
    }
}

fn check_failure(order: Ordering) {
    match order {
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release failure ordering"),
        Ordering::Release => panic!("there is no such thing as a release failure ordering"),
        _ => {}
    }
}

/// One host access: what it reads and writes, and its orderings (`None`: plain).
struct HostAccess {
    addr: u64,
    size: u64,
    /// Whether it reads the location (a load or a read-modify-write).
    reads: bool,
    /// The ordering of an atomic access, and of a failed compare-exchange's read.
    order: Option<(Ordering, Ordering)>,
}

impl<'a, 'p> HostCtx<'a, 'p> {
    pub(crate) fn new(
        world: &'a mut World<'p>,
        t: u32,
        buffers: &'a [u64],
        recent: &'a mut Vec<(u64, u64)>,
    ) -> Self {
        HostCtx {
            world,
            t,
            buffers,
            recent,
            stop: None,
        }
    }

    /// The fault that stopped this step, if an access faulted.
    pub(crate) fn take_stop(&mut self) -> Option<Event> {
        self.stop.take()
    }
}

impl HostCtx<'_, '_> {
    /// The device address of buffer `i` (in the order of the launch's buffers).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(1, 0)]);
    /// l.buffers = vec![vec![0; 4], vec![0; 4]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_ne!(ctx.buffer(0), ctx.buffer(1));
    ///     ctx.write(ctx.buffer(0), 3u32);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][0], 3);
    /// ```
    pub fn buffer(&self, i: usize) -> u64 {
        self.buffers[i]
    }

    /// Performs `a`: `update` gives the value to write from the value read (`None`: no write,
    /// a load or a failed compare-exchange); returns the value read (0 after a fault, which
    /// stops the step's later accesses and the launch).
    fn op(&mut self, a: HostAccess, update: impl FnOnce(u64) -> Option<u64>) -> u64 {
        if self.stop.is_some() {
            return 0;
        }
        let fault = |e: String| Some(Event::Fault(e));
        let loc = match self
            .world
            .mem
            .resolve(Space::Generic, a.addr, a.size, u32::MAX, 0)
        {
            Ok(loc @ Loc::Global(..)) => loc,
            Ok(_) => {
                self.stop = fault(format!(
                    "host access at {:#x}, which is not global memory",
                    a.addr
                ));
                return 0;
            }
            Err(e) => {
                self.stop = fault(e);
                return 0;
            }
        };
        let Loc::Global(r, o) = loc else {
            unreachable!("matched above")
        };
        let old = memory::read(&self.world.mem.regions[r as usize].data, o as usize, a.size);
        let new = update(old);
        let scope = Scope::Sys;
        if let Err(e) = self.world.access(
            (u32::MAX, 0),
            self.t,
            Space::Generic,
            a.addr,
            a.size,
            new.is_some(),
            a.order.is_some(),
            scope,
            u32::MAX,
        ) {
            self.stop = Some(e);
            return 0;
        }
        if let Some(v) = new {
            memory::write(
                &mut self.world.mem.regions[r as usize].data,
                o as usize,
                a.size,
                v,
            );
        }
        if let Some(race) = &mut self.world.race {
            let key = World::sync_key(u32::MAX, loc);
            let op = SyncOp {
                size: a.size as u8,
                strong: a.order.is_some(),
                scope,
            };
            let (success, failure) = a.order.unwrap_or((Ordering::Relaxed, Ordering::Relaxed));
            let (acquires, releases) = strength(if a.reads && new.is_none() {
                failure
            } else {
                success
            });
            if a.reads {
                race.read_sync(key, self.t, op, acquires);
            }
            // A plain write ends the location's release sequences, as a device store does.
            if new.is_some() {
                race.write_sync(key, self.t, op, releases, a.reads);
            }
        }
        match new {
            Some(v) if v != old => self.world.progress = true,
            Some(_) if !a.reads => {}
            _ => {
                if !self.recent.contains(&(a.addr, old)) {
                    self.recent.push((a.addr, old));
                    if self.recent.len() > 4 {
                        self.recent.remove(0);
                    }
                    self.world.progress = true;
                }
            }
        }
        old
    }

    /// A read-modify-write with the device's arithmetic of `atom.OP` on `W`'s PTX type, operand
    /// `b` (the bits of a `W`, or for a subtraction of its negation).
    fn atomic<W: HostWord>(&mut self, addr: u64, order: Ordering, op: Rmw, b: u64) -> W {
        let a = HostAccess {
            addr,
            size: W::SIZE,
            reads: true,
            order: Some((order, order)),
        };
        W::from_bits(self.op(a, |old| Some(values::rmw(op, W::TY, old, b, 0))))
    }

    /// An atomic load at system scope (`core`'s `load`: `Release` and `AcqRel` panic).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![[0u8; 8].into_iter().chain(7u64.to_le_bytes()).collect()];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.load::<u64>(ctx.buffer(0) + 8, Ordering::Acquire), 7);
    ///     HostStatus::Done
    /// });
    /// assert!(kernel.launch(&l, vec![host]).unwrap().findings.is_empty());
    /// ```
    pub fn load<W: HostWord>(&mut self, addr: u64, order: Ordering) -> W {
        check_load(order);
        let a = HostAccess {
            addr,
            size: W::SIZE,
            reads: true,
            order: Some((order, order)),
        };
        W::from_bits(self.op(a, |_| None))
    }

    /// An atomic store at system scope (`core`'s `store`: `Acquire` and `AcqRel` panic).
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0; 16]];
    /// let host = HostThread::new(|ctx| {
    ///     ctx.store(ctx.buffer(0) + 8, -2i64, Ordering::Release);
    ///     HostStatus::Done
    /// });
    /// let out = kernel.launch(&l, vec![host]).unwrap();
    /// assert_eq!(out.buffers[0][8..], (-2i64).to_le_bytes());
    /// ```
    pub fn store<W: HostWord>(&mut self, addr: u64, v: W, order: Ordering) {
        check_store(order);
        let a = HostAccess {
            addr,
            size: W::SIZE,
            reads: false,
            order: Some((order, order)),
        };
        self.op(a, |_| Some(v.to_bits()));
    }

    /// A plain (non-atomic) read: racing with any write is a race.
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![[0u8; 4].into_iter().chain(9u32.to_le_bytes()).collect()];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.read::<u32>(ctx.buffer(0) + 4), 9);
    ///     HostStatus::Done
    /// });
    /// assert!(kernel.launch(&l, vec![host]).unwrap().findings.is_empty());
    /// ```
    pub fn read<W: HostWord>(&mut self, addr: u64) -> W {
        let a = HostAccess {
            addr,
            size: W::SIZE,
            reads: true,
            order: None,
        };
        W::from_bits(self.op(a, |_| None))
    }

    /// A plain (non-atomic) write: racing with any access is a race.
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0; 8]];
    /// let host = HostThread::new(|ctx| {
    ///     ctx.write(ctx.buffer(0) + 4, 5u32);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 5);
    /// ```
    pub fn write<W: HostWord>(&mut self, addr: u64, v: W) {
        let a = HostAccess {
            addr,
            size: W::SIZE,
            reads: false,
            order: None,
        };
        self.op(a, |_| Some(v.to_bits()));
    }

    /// An atomic 32-bit load at system scope: [`HostCtx::load`] of a `u32`.
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0, 0, 0, 0, 3, 0, 0, 0]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.load_u32(ctx.buffer(0) + 4, Ordering::Relaxed), 3);
    ///     HostStatus::Done
    /// });
    /// kernel.launch(&l, vec![host]).unwrap();
    /// ```
    pub fn load_u32(&mut self, addr: u64, order: Ordering) -> u32 {
        self.load(addr, order)
    }
    /// An atomic 32-bit store at system scope: [`HostCtx::store`] of a `u32`.
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0; 8]];
    /// let host = HostThread::new(|ctx| {
    ///     ctx.store_u32(ctx.buffer(0) + 4, 3, Ordering::Release);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 3);
    /// ```
    pub fn store_u32(&mut self, addr: u64, v: u32, order: Ordering) {
        self.store(addr, v, order);
    }
    /// An atomic 64-bit load at system scope: [`HostCtx::load`] of a `u64`.
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![[0u8; 8].into_iter().chain(1u64.to_le_bytes()).collect()];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.load_u64(ctx.buffer(0) + 8, Ordering::SeqCst), 1);
    ///     HostStatus::Done
    /// });
    /// kernel.launch(&l, vec![host]).unwrap();
    /// ```
    pub fn load_u64(&mut self, addr: u64, order: Ordering) -> u64 {
        self.load(addr, order)
    }
    /// An atomic 64-bit store at system scope: [`HostCtx::store`] of a `u64`.
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// use std::sync::atomic::Ordering;
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0; 16]];
    /// let host = HostThread::new(|ctx| {
    ///     ctx.store_u64(ctx.buffer(0) + 8, 1 << 40, Ordering::Relaxed);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][13], 1);
    /// ```
    pub fn store_u64(&mut self, addr: u64, v: u64, order: Ordering) {
        self.store(addr, v, order);
    }
    /// A plain (non-atomic) 32-bit read: [`HostCtx::read`] of a `u32`.
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0, 0, 0, 0, 6, 0, 0, 0]];
    /// let host = HostThread::new(|ctx| {
    ///     assert_eq!(ctx.read_u32(ctx.buffer(0) + 4), 6);
    ///     HostStatus::Done
    /// });
    /// kernel.launch(&l, vec![host]).unwrap();
    /// ```
    pub fn read_u32(&mut self, addr: u64) -> u32 {
        self.read(addr)
    }
    /// A plain (non-atomic) 32-bit write: [`HostCtx::write`] of a `u32`.
    ///
    /// ```
    /// # use ptx_sim::{Arg, EXAMPLE_PTX, HostStatus, HostThread, Launch, Simulator};
    /// # let kernel = Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").unwrap();
    /// # let mut l = Launch::new([1; 3], [1; 3], vec![Arg::Ptr(0, 0)]);
    /// l.buffers = vec![vec![0; 8]];
    /// let host = HostThread::new(|ctx| {
    ///     ctx.write_u32(ctx.buffer(0) + 4, 6);
    ///     HostStatus::Done
    /// });
    /// assert_eq!(kernel.launch(&l, vec![host]).unwrap().buffers[0][4], 6);
    /// ```
    pub fn write_u32(&mut self, addr: u64, v: u32) {
        self.write(addr, v);
    }
}

mod rmw;
