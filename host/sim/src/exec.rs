//! The interpreter: runs one thread from its program counter until it has done a memory
//! operation others can see (the scheduler's interleaving point), blocks at a barrier, exits or
//! faults. Memory accesses go through [`World::access`]: bounds, alignment, live mbarriers and
//! the race detector.

use super::cluster::{self, ClusterRegister};
use super::decode::{Inst, Op, Program, Scope, Space, Special, Src};
use super::memory::{self, LOCAL_WINDOW, Loc, Memory, SHARED_WINDOW};
use super::race::{Access, PhaseClocks, Race, RaceHit, SyncOp};
use super::values::{binary, bit_field_extract, compare, convert, rmw, sext, unary};

/// A call frame (of a `call`; the kernel's own frame is implicit: registers, parameters and
/// `.local` memory from offset 0, so that a thread starts without allocating a frame).
#[derive(Clone, Debug)]
pub struct Frame {
    pub func: u32,
    pub reg_base: u32,
    pub param_base: u32,
    pub local_base: u64,
    pub ret_pc: u32,
    /// The caller's slots that receive this frame's return values.
    pub ret_to: Vec<u32>,
}

/// Scheduling state of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Ready,
    /// Waiting at barrier `id` of its CTA.
    AtBarrier(u32),
    Done,
}

/// A simulated device thread.
#[derive(Clone, Debug)]
pub struct Thread {
    pub regs: Vec<u64>,
    /// The thread's own parameter memory (the kernel's parameters, then each call's): empty
    /// until the thread writes a parameter or calls, the kernel's parameters being read from
    /// the launch's one copy until then ([`Thread::params`]), since most threads only read them.
    pub own_params: Vec<u8>,
    pub local: Vec<u8>,
    /// The frames of calls in progress, innermost last (none in the kernel's own code).
    pub frames: Vec<Frame>,
    pub pc: u32,
    pub state: State,
    pub cta: u32,
    pub tid: [u32; 3],
    pub ctaid: [u32; 3],
    /// Linear index in its CTA (lane = this % 32).
    pub lin: u32,
    /// Register base of the current frame (cached from `frames`).
    pub base: u32,
    /// Recent (address, value) pairs read: a read that repeats one is spinning, not progress.
    pub recent: [(u64, u64); 4],
    pub recent_at: usize,
    /// `CC.CF`: the carry (for `sub.cc`/`subc`, the borrow) of the last `.cc` instruction.
    pub carry: bool,
    /// Its `cp.async` copies in flight.
    pub copies: crate::copy_queue::AsyncCopies,
    /// The phase of its cluster's barrier it arrived in (`barrier.cluster.arrive`) and has not
    /// waited for yet.
    pub cluster_arrival: Option<u64>,
}

/// What stopped a thread's run.
#[derive(Debug)]
pub enum Event {
    /// It did a visible memory operation (or slept): another thread may go next.
    Yield,
    /// It arrived at a CTA barrier.
    Barrier(BarEvent),
    /// It arrived at `bar.warp.sync` with this member mask.
    WarpSync(u32),
    /// `barrier.cluster.arrive` (`.relaxed` or not).
    ClusterArrive(bool),
    /// `barrier.cluster.wait`.
    ClusterWait,
    /// It arrived at a warp collective or `activemask` (the scheduler reads the instruction).
    Collective,
    Exited,
    Fault(String),
}

/// An arrival at a CTA barrier: id, expected thread count (if given), `.aligned` or not,
/// whether the thread waits (`bar.sync`, `bar.red`) or not (`bar.arrive`), and a `bar.red`
/// thread's predicate.
#[derive(Debug, Clone, Copy)]
pub struct BarEvent {
    pub id: u32,
    pub count: Option<u32>,
    pub aligned: bool,
    pub waits: bool,
    pub pred: Option<bool>,
}

/// Everything but the thread: program, memory, race state, clocks.
pub struct World<'p> {
    pub prog: &'p Program,
    pub mem: Memory,
    pub race: Option<Race>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Simulated time in nanoseconds (`%globaltimer`): one per instruction, plus sleeps.
    pub time: u64,
    pub instructions: u64,
    /// Set when an operation changed what other threads can observe.
    pub progress: bool,
    /// Per live mbarrier (parallel to `mem.mbarriers`): clock of the current phase's arrivals
    /// and of the completed phases.
    pub mb_clocks: Vec<PhaseClocks>,
    /// A race completed by the last step, reported by the scheduler.
    pub race_hit: Option<(RaceHit, u64)>,
    /// Volatile accesses are plain ones (CUDA C++'s view) rather than relaxed at system scope.
    pub volatile_plain: bool,
    /// What `printf` printed, each line with its thread.
    pub printed: Vec<String>,
    /// `%envreg0`..`%envreg31`.
    pub envregs: [u32; 32],
    /// The kernel's parameter memory as the launch set it, read by every thread that has not
    /// made its own copy ([`Thread::params`]).
    pub entry_params: Vec<u8>,
}

#[inline]
fn dim(v: [u32; 3], d: u8) -> u64 {
    u64::from(v[d as usize])
}

impl Thread {
    #[inline]
    fn base(&self) -> usize {
        self.base as usize
    }

    /// The thread's parameter memory: its own copy once it has one, else the kernel's
    /// parameters as the launch set them (`entry`, [`World::entry_params`]).
    #[inline]
    pub fn params<'a>(&'a self, entry: &'a [u8]) -> &'a [u8] {
        if self.own_params.is_empty() {
            entry
        } else {
            &self.own_params
        }
    }

    /// The thread's own parameter memory, first copied from the kernel's (`entry`) if the
    /// thread has none yet: for a write or a call.
    pub fn params_mut(&mut self, entry: &[u8]) -> &mut Vec<u8> {
        if self.own_params.is_empty() {
            self.own_params.extend_from_slice(entry);
        }
        &mut self.own_params
    }

    /// Records a read; true when it repeats a recent one (spinning).
    pub fn seen(&mut self, addr: u64, v: u64) -> bool {
        if self.recent.contains(&(addr, v)) {
            return true;
        }
        self.recent[self.recent_at] = (addr, v);
        self.recent_at = (self.recent_at + 1) % self.recent.len();
        false
    }
}

impl World<'_> {
    #[inline(always)]
    pub(super) fn val(&self, th: &Thread, s: Src) -> u64 {
        match s {
            Src::Reg(r) => th.regs[th.base() + r as usize],
            Src::Imm(v) => v,
            Src::Local(off) => th.frames.last().map_or(0, |f| f.local_base) + off,
            Src::Special(sp) => self.special(th, sp),
        }
    }

    #[inline(never)]
    fn special(&self, th: &Thread, sp: Special) -> u64 {
        let block_threads = self.block.iter().product::<u32>();
        match sp {
            Special::Tid(d) => dim(th.tid, d),
            Special::Ntid(d) => dim(self.block, d),
            Special::Ctaid(d) => dim(th.ctaid, d),
            Special::Nctaid(d) => dim(self.grid, d),
            Special::ClusterId(d) => {
                cluster::special(&self.mem.shape, th.ctaid, ClusterRegister::ClusterId, d)
            }
            Special::NClusterId(d) => {
                cluster::special(&self.mem.shape, th.ctaid, ClusterRegister::NClusterId, d)
            }
            Special::ClusterCtaId(d) => {
                cluster::special(&self.mem.shape, th.ctaid, ClusterRegister::CtaId, d)
            }
            Special::ClusterNCtaId(d) => {
                cluster::special(&self.mem.shape, th.ctaid, ClusterRegister::NCtaId, d)
            }
            Special::ClusterCtaRank => {
                cluster::special(&self.mem.shape, th.ctaid, ClusterRegister::CtaRank, 0)
            }
            Special::ClusterNCtaRank => {
                cluster::special(&self.mem.shape, th.ctaid, ClusterRegister::NCtaRank, 0)
            }
            Special::EnvReg(n) => u64::from(self.envregs[n as usize]),
            Special::LaneId => u64::from(th.lin % 32),
            Special::WarpId => u64::from(th.lin / 32),
            Special::NWarpId => u64::from(block_threads.div_ceil(32)),
            Special::SmId => u64::from(th.cta % 132),
            Special::Clock => self.time & 0xffff_ffff,
            Special::Clock64 | Special::GlobalTimer => self.time,
            Special::LaneMaskEq => 1 << (th.lin % 32),
            Special::LaneMaskLt => (1u64 << (th.lin % 32)) - 1,
            Special::LaneMaskLe => (2u64 << (th.lin % 32)) - 1,
            Special::LaneMaskGt => !((2u64 << (th.lin % 32)) - 1) & 0xffff_ffff,
            Special::LaneMaskGe => !((1u64 << (th.lin % 32)) - 1) & 0xffff_ffff,
            Special::GlobalTimerLo => self.time & 0xffff_ffff,
            Special::GlobalTimerHi => self.time >> 32,
        }
    }

    #[inline(always)]
    pub(super) fn set(th: &mut Thread, r: u32, v: u64) {
        let b = th.base();
        th.regs[b + r as usize] = v;
    }

    /// Resolves and checks an access; `strong`/`scope` feed the race detector.
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        (cta, local_len): (u32, u64),
        t: u32,
        space: Space,
        addr: u64,
        size: u64,
        write: bool,
        strong: bool,
        scope: Scope,
        inst: u32,
    ) -> Result<Loc, Event> {
        let loc = self
            .mem
            .resolve(space, addr, size, cta, local_len)
            .map_err(Event::Fault)?;
        if write && let Some(why) = self.mem.store_refused(space, loc) {
            return Err(Event::Fault(why));
        }
        if let Loc::Shared(owner, off) = loc
            && !self.mem.mbarriers.is_empty()
            && self.mem.mbarrier_at(owner, off, size as u32).is_some()
        {
            return Err(Event::Fault(format!(
                "{}-byte {} of shared offset {off:#x}, inside a live mbarrier object (only mbarrier instructions may access it until mbarrier.inval)",
                size,
                if write { "write" } else { "read" }
            )));
        }
        if let Some(race) = &mut self.race {
            let (area, off) = match loc {
                Loc::Global(r, o) => (u64::from(r), o),
                Loc::Shared(owner, o) => ((1 << 32) | u64::from(owner), o),
                Loc::Local(_) => return Ok(loc),
            };
            let a = Access {
                tid: t,
                write,
                strong,
                scope,
                inst,
            };
            // A 16-byte (`.b128`) access covers two whole 8-byte granules.
            let (mask, granules) = if size == 16 {
                (0xff, 2)
            } else {
                ((((1u32 << size) - 1) << (off % 8)) as u8, 1)
            };
            for g in 0..granules {
                if let Some(hit) = race.access(area, off / 8 + g, mask, a) {
                    // The access still happens; the scheduler reports the race after the step.
                    self.race_hit.get_or_insert((hit, addr));
                }
            }
        }
        Ok(loc)
    }

    pub fn bytes<'a>(&'a mut self, th: &'a mut Thread, loc: Loc) -> (&'a mut [u8], usize) {
        match loc {
            Loc::Global(r, o) => (&mut self.mem.regions[r as usize].data, o as usize),
            Loc::Shared(owner, o) => (&mut self.mem.shared[owner as usize], o as usize),
            Loc::Local(o) => (&mut th.local, o as usize),
        }
    }

    /// Key of a location for synchronisation clocks.
    pub fn sync_key(_cta: u32, loc: Loc) -> u64 {
        match loc {
            Loc::Global(r, o) => memory::region_base(r) + u64::from(o),
            Loc::Shared(owner, o) => super::race::shared_sync_key(owner, o),
            Loc::Local(o) => (1 << 62) | o,
        }
    }

    /// Runs thread `t` until an interleaving point.
    pub fn run(&mut self, th: &mut Thread, t: u32) -> Event {
        let prog = self.prog;
        // A thread that loops without memory operations yields now and then, making no progress.
        let mut budget: u32 = 1 << 20;
        loop {
            budget -= 1;
            if budget == 0 {
                return Event::Yield;
            }
            let pc = th.pc;
            let inst: &Inst = &prog.insts[pc as usize];
            self.instructions += 1;
            self.time += 1;
            th.pc = pc + 1;
            if let Some((p, neg)) = inst.guard
                && (th.regs[th.base() + p as usize] != 0) == neg
            {
                continue;
            }
            match &inst.op {
                Op::Ld(.., ty, _, _) | Op::St(.., ty, _, _) | Op::Atom(.., ty, _, _, _, _)
                    if ty.bytes == 16 =>
                {
                    match self.wide(th, t, pc, &inst.op) {
                        Some(event) => return event,
                        None => continue,
                    }
                }
                Op::Pack(16, ..) | Op::Unpack(16, ..) | Op::LdParamV2(..) | Op::AddC(..) => {
                    if let Some(event) = self.wide(th, t, pc, &inst.op) {
                        return event;
                    }
                }
                Op::Un(op, ty, d, a) => {
                    let v = unary(*op, *ty, self.val(th, *a));
                    Self::set(th, *d, v);
                }
                Op::Bin(op, ty, d, a, b) => {
                    let (x, y) = (self.val(th, *a), self.val(th, *b));
                    match binary(*op, *ty, x, y) {
                        Ok(v) => Self::set(th, *d, v),
                        Err(e) => return Event::Fault(format!("{e} is not supported")),
                    }
                }
                Op::Mad(hi, ty, d, a, b, c) => {
                    let (x, y, z) = (self.val(th, *a), self.val(th, *b), self.val(th, *c));
                    let v = if ty.kind == super::decode::Kind::F {
                        if ty.bytes == 4 {
                            u64::from(
                                f32::from_bits(x as u32)
                                    .mul_add(f32::from_bits(y as u32), f32::from_bits(z as u32))
                                    .to_bits(),
                            )
                        } else {
                            f64::from_bits(x)
                                .mul_add(f64::from_bits(y), f64::from_bits(z))
                                .to_bits()
                        }
                    } else {
                        let op = if *hi {
                            super::decode::BinOp::MulHi
                        } else {
                            super::decode::BinOp::MulLo
                        };
                        let p = binary(op, *ty, x, y).unwrap_or(0);
                        p.wrapping_add(z) & ty.mask()
                    };
                    Self::set(th, *d, v);
                }
                Op::Selp(ty, d, a, b, c) => {
                    let v = if self.val(th, *c) != 0 {
                        self.val(th, *a)
                    } else {
                        self.val(th, *b)
                    };
                    Self::set(th, *d, v & ty.mask());
                }
                Op::Setp(cmp, ty, d, a, b) => {
                    let v = compare(*cmp, *ty, self.val(th, *a), self.val(th, *b));
                    Self::set(th, *d, u64::from(v));
                }
                Op::PredBin(op, d, a, b) => {
                    let (x, y) = (self.val(th, *a) != 0, self.val(th, *b) != 0);
                    let v = match op {
                        super::decode::BinOp::And => x & y,
                        super::decode::BinOp::Or => x | y,
                        _ => x ^ y,
                    };
                    Self::set(th, *d, u64::from(v));
                }
                Op::Cvt(dt, st, d, a) => {
                    let v = convert(*dt, *st, self.val(th, *a));
                    Self::set(th, *d, v);
                }
                Op::Bfe(ty, d, a, pos, len) => {
                    let (a, pos, len) = (self.val(th, *a), self.val(th, *pos), self.val(th, *len));
                    Self::set(th, *d, bit_field_extract(*ty, a, pos, len));
                }
                Op::Unpack(bytes, lo, hi, a) => {
                    let v = self.val(th, *a);
                    let half = u32::from(*bytes) * 4;
                    let m = (1u64 << half) - 1;
                    if let Some(l) = lo {
                        Self::set(th, *l, v & m);
                    }
                    if let Some(h) = hi {
                        Self::set(th, *h, (v >> half) & m);
                    }
                }
                Op::Pack(bytes, d, lo, hi) => {
                    let half = u32::from(*bytes) * 4;
                    let m = (1u64 << half) - 1;
                    let v = (self.val(th, *lo) & m) | ((self.val(th, *hi) & m) << half);
                    Self::set(th, *d, v);
                }
                Op::Cvta(to, space, d, a) => {
                    let v = self.val(th, *a);
                    let window = match space {
                        Space::Shared | Space::SharedCluster => SHARED_WINDOW,
                        Space::Local => LOCAL_WINDOW,
                        _ => 0,
                    };
                    let r = if *to {
                        v.wrapping_sub(window)
                    } else {
                        v.wrapping_add(window)
                    };
                    Self::set(th, *d, r);
                }
                Op::Isspacep(space, d, a) => {
                    let v = self.val(th, *a);
                    let s = memory::classify(v).map(|(s, _)| s);
                    let r = match space {
                        Space::Global | Space::Const => s == Some(Space::Global),
                        // `.shared` is `.shared::cta`: not another CTA's window.
                        Space::Shared => {
                            s == Some(Space::Shared)
                                && cluster::untag(v - SHARED_WINDOW).0.is_none()
                        }
                        Space::SharedCluster => s == Some(Space::Shared),
                        other => s == Some(*other),
                    };
                    Self::set(th, *d, u64::from(r));
                }
                Op::LdParam(ty, d, slot) => {
                    let base = th.frames.last().map_or(0, |f| f.param_base) as usize;
                    let off = base + *slot as usize;
                    let v = memory::read(th.params(&self.entry_params), off, u64::from(ty.bytes));
                    let v = if ty.kind == super::decode::Kind::S {
                        sext(v, ty.bytes) as u64
                    } else {
                        v
                    };
                    Self::set(th, *d, v);
                }
                Op::StParam(ty, slot, a) => {
                    let v = self.val(th, *a);
                    let base = th.frames.last().map_or(0, |f| f.param_base) as usize;
                    memory::write(
                        th.params_mut(&self.entry_params),
                        base + *slot as usize,
                        u64::from(ty.bytes),
                        v,
                    );
                }
                Op::Ld(space, sem, scope, ty, d, a) => {
                    let addr = self.val(th, a.base).wrapping_add(a.off as u64);
                    let size = u64::from(ty.bytes);
                    let strong = sem.strong(self.volatile_plain);
                    let loc = match self.access(
                        (th.cta, th.local.len() as u64),
                        t,
                        *space,
                        addr,
                        size,
                        false,
                        strong,
                        *scope,
                        pc,
                    ) {
                        Ok(l) => l,
                        Err(e) => return e,
                    };
                    let (bytes, off) = self.bytes(th, loc);
                    let raw = memory::read(bytes, off, size);
                    let v = if ty.kind == super::decode::Kind::S {
                        sext(raw, ty.bytes) as u64
                    } else {
                        raw
                    };
                    Self::set(th, *d, v);
                    if matches!(loc, Loc::Local(_)) {
                        continue;
                    }
                    if strong && let Some(race) = &mut self.race {
                        let key = Self::sync_key(th.cta, loc);
                        let op = SyncOp {
                            size: ty.bytes as u8,
                            strong,
                            scope: *scope,
                        };
                        race.read_sync(key, t, op, sem.acquires());
                    }
                    if !th.seen(addr, raw) {
                        self.progress = true;
                    }
                    return Event::Yield;
                }
                Op::St(space, sem, scope, ty, a, v) => {
                    let addr = self.val(th, a.base).wrapping_add(a.off as u64);
                    let value = self.val(th, *v);
                    let size = u64::from(ty.bytes);
                    let strong = sem.strong(self.volatile_plain);
                    let loc = match self.access(
                        (th.cta, th.local.len() as u64),
                        t,
                        *space,
                        addr,
                        size,
                        true,
                        strong,
                        *scope,
                        pc,
                    ) {
                        Ok(l) => l,
                        Err(e) => return e,
                    };
                    let (bytes, off) = self.bytes(th, loc);
                    let old = memory::read(bytes, off, size);
                    memory::write(bytes, off, size, value);
                    if matches!(loc, Loc::Local(_)) {
                        continue;
                    }
                    if let Some(race) = &mut self.race {
                        let key = Self::sync_key(th.cta, loc);
                        let op = SyncOp {
                            size: ty.bytes as u8,
                            strong,
                            scope: *scope,
                        };
                        race.write_sync(key, t, op, strong && sem.releases(), false);
                    }
                    if old != value & ty.mask() {
                        self.progress = true;
                    }
                    return Event::Yield;
                }
                Op::Atom(space, sem, scope, op, ty, d, a, b, c) => {
                    let addr = self.val(th, a.base).wrapping_add(a.off as u64);
                    let (b, c) = (self.val(th, *b), self.val(th, *c));
                    let size = u64::from(ty.bytes);
                    let loc = match self.access(
                        (th.cta, th.local.len() as u64),
                        t,
                        *space,
                        addr,
                        size,
                        true,
                        true,
                        *scope,
                        pc,
                    ) {
                        Ok(l) => l,
                        Err(e) => return e,
                    };
                    if let Loc::Local(_) = loc {
                        return Event::Fault(format!(
                            "atomic operation on local memory at {addr:#x} (atom/red are defined on global and shared memory only)"
                        ));
                    }
                    let (bytes, off) = self.bytes(th, loc);
                    let old = memory::read(bytes, off, size);
                    let new = rmw(*op, *ty, old, b, c);
                    memory::write(bytes, off, size, new);
                    if let Some(dst) = d {
                        let v = if ty.kind == super::decode::Kind::S {
                            sext(old, ty.bytes) as u64
                        } else {
                            old
                        };
                        Self::set(th, *dst, v);
                    }
                    if let Some(race) = &mut self.race {
                        let key = Self::sync_key(th.cta, loc);
                        let op = SyncOp {
                            size: ty.bytes as u8,
                            strong: true,
                            scope: *scope,
                        };
                        // A reduction's read forms no acquire pattern (PTX ISA 8.8, 8.11.1).
                        if d.is_some() {
                            race.read_sync(key, t, op, sem.acquires());
                        }
                        race.write_sync(key, t, op, sem.releases(), true);
                    }
                    if new != old || !th.seen(addr, old) {
                        self.progress = true;
                    }
                    return Event::Yield;
                }
                Op::Fence(sem, scope) => {
                    if let Some(race) = &mut self.race {
                        race.fence(t, *scope, sem.acquires(), sem.releases());
                    }
                }
                Op::Bar(id, count, aligned) => {
                    return Event::Barrier(BarEvent {
                        id: self.val(th, *id) as u32,
                        count: count.map(|c| self.val(th, c) as u32),
                        aligned: *aligned,
                        waits: true,
                        pred: None,
                    });
                }
                Op::BarArrive(id, count) => {
                    return Event::Barrier(BarEvent {
                        id: self.val(th, *id) as u32,
                        count: Some(self.val(th, *count) as u32),
                        aligned: true,
                        waits: false,
                        pred: None,
                    });
                }
                Op::BarRed(_, _, id, count, pred, negate) => {
                    return Event::Barrier(BarEvent {
                        id: self.val(th, *id) as u32,
                        count: count.map(|c| self.val(th, c) as u32),
                        aligned: true,
                        waits: true,
                        pred: Some((self.val(th, *pred) != 0) != *negate),
                    });
                }
                Op::Warp(_) | Op::ActiveMask(_) => return Event::Collective,
                Op::Float(f) => self.float(th, f),
                Op::Bits(b) => self.bits(th, b),
                Op::CvtR(c) => self.cvt(th, c),
                Op::SetpX(x) => self.setp(th, x),
                Op::Vector(v) => {
                    if let Some(event) = self.vector(th, t, pc, v) {
                        return event;
                    }
                }
                Op::LdNc(ty, d, a) => return self.ld_nc(th, t, pc, *ty, *d, a),
                Op::ParamVector(v) => self.param_vector(th, v),
                Op::Nop => {}
                Op::BarWarp(mask) => return Event::WarpSync(self.val(th, *mask) as u32),
                Op::ClusterArrive(relaxed) => return Event::ClusterArrive(*relaxed),
                Op::ClusterWait => return Event::ClusterWait,
                Op::IsspacepCluster(d, a) => {
                    let v = self.val(th, *a);
                    let r = memory::classify(v).is_some_and(|(s, _)| s == Space::Shared);
                    Self::set(th, *d, u64::from(r));
                }
                Op::Mapa(generic, d, a, rank) => {
                    let (a, rank) = (self.val(th, *a), self.val(th, *rank) as u32);
                    match cluster::mapa(&self.mem.shape, *generic, a, rank) {
                        Ok(v) => Self::set(th, *d, v),
                        Err(e) => return Event::Fault(e),
                    }
                }
                Op::CpAsync(c) => return self.cp_async(th, t, pc, c),
                Op::CpAsyncCommit => Self::cp_async_commit(th),
                Op::CpAsyncWait(n) => {
                    if n.is_none() {
                        // `wait_all` is `commit_group; wait_group 0`.
                        Self::cp_async_commit(th);
                    }
                    return self.cp_async_wait(th, t, *n);
                }
                Op::CpAsyncMbArrive(space, a, noinc) => {
                    let done = self.cp_async_wait(th, t, None);
                    if !matches!(done, Event::Yield) || !*noinc {
                        return done;
                    }
                    return self.mb_arrive(
                        th,
                        t,
                        (&None, (*space, a), &None, &false, &false, &Scope::Cta),
                    );
                }
                Op::MbInit(space, a, count) => return self.mb_init(th, (*space, a), count),
                Op::MbArrive(d, space, a, count, drop, no_complete, scope) => {
                    return self.mb_arrive(
                        th,
                        t,
                        (d, (*space, a), count, drop, no_complete, scope),
                    );
                }
                Op::MbPendingCount(d, state) => {
                    let pending = self.val(th, *state) >> 32;
                    Self::set(th, *d, pending);
                }
                Op::MbTestWait(d, space, a, token, parity, scope) => {
                    return self.mb_test_wait(th, t, (d, (*space, a), token, parity, scope));
                }
                Op::MbInval(space, a) => return self.mb_inval(th, (*space, a)),
                Op::Nanosleep(a) => {
                    self.time += self.val(th, *a).min(1_000_000);
                    return Event::Yield;
                }
                Op::Trap(check) => {
                    let text = match check {
                        Some(check) => check.describe(self.mem.shape.cluster),
                        None => "trap".into(),
                    };
                    return Event::Fault(text);
                }
                Op::Exit => return self.exit_after_copies(th, t),
                Op::Ret => {
                    if let Some(event) = self.ret(th) {
                        if matches!(event, Event::Exited) {
                            return self.exit_after_copies(th, t);
                        }
                        return event;
                    }
                }
                Op::Bra(target) => th.pc = *target,
                Op::Call(callee, args, rets) => {
                    if let Some(event) = self.call(th, pc, *callee, args, rets) {
                        return event;
                    }
                }
            }
        }
    }
}
