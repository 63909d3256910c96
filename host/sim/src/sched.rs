//! The scheduler of a launch: a seeded random interleaving at every memory operation (or a
//! warp-lockstep order), CTA barriers with their divergence checks, host threads stepping on
//! shared mapped memory, and hang detection in bounded steps.

use super::exec::{Event, State, Thread, World};
use super::memory::{self, Loc};
use super::race::RaceHit;
use super::report::{Finding, FindingKind, inst_name, thread_name};
use core::sync::atomic::Ordering;

/// How threads are interleaved.
///
/// ```
/// use ptx_sim::{Launch, Mode};
/// let mut l = Launch::new([1; 3], [64, 1, 1], Vec::new());
/// l.mode = Mode::WarpLockstep;
/// assert_ne!(l.mode, Mode::default());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// A seeded random choice among runnable threads at every memory operation.
    #[default]
    Random,
    /// Warp by warp, lane by lane, one memory operation each: the lanes of a warp advance
    /// together, as in SIMT lockstep.
    WarpLockstep,
}

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
}

/// A host thread's view of the simulation: the buffers' addresses and system-scope atomic or
/// plain accesses to them, each checked like a device access (bounds, races).
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

impl HostCtx<'_, '_> {
    /// The device address of buffer `i` (in the order of the launch's buffers).
    pub fn buffer(&self, i: usize) -> u64 {
        self.buffers[i]
    }

    fn op(&mut self, addr: u64, size: u64, write: Option<u64>, strong: Option<Ordering>) -> u64 {
        if self.stop.is_some() {
            return 0;
        }
        let scope = super::decode::Scope::Sys;
        let is_write = write.is_some();
        let loc = match self.world.access(
            (u32::MAX, 0),
            self.t,
            super::decode::Space::Generic,
            addr,
            size,
            is_write,
            strong.is_some(),
            scope,
            u32::MAX,
        ) {
            Ok(l) => l,
            Err(e) => {
                self.stop = Some(e);
                return 0;
            }
        };
        let Loc::Global(r, o) = loc else {
            self.stop = Some(Event::Fault(format!(
                "host access at {addr:#x}, which is not global memory"
            )));
            return 0;
        };
        let data = &mut self.world.mem.regions[r as usize].data;
        let old = memory::read(data, o as usize, size);
        if let Some(v) = write {
            memory::write(data, o as usize, size, v);
        }
        if let (Some(order), Some(race)) = (strong, &mut self.world.race) {
            let key = World::sync_key(u32::MAX, loc);
            let (acq, rel) = strength(order);
            if is_write {
                race.write_sync(key, self.t, scope, rel, false);
            } else {
                race.read_sync(key, self.t, scope, acq);
            }
        }
        match write {
            Some(v) if v != old => self.world.progress = true,
            Some(_) => {}
            None => {
                if !self.recent.contains(&(addr, old)) {
                    self.recent.push((addr, old));
                    if self.recent.len() > 4 {
                        self.recent.remove(0);
                    }
                    self.world.progress = true;
                }
            }
        }
        old
    }

    /// An atomic 32-bit load at system scope.
    pub fn load_u32(&mut self, addr: u64, order: Ordering) -> u32 {
        self.op(addr, 4, None, Some(order)) as u32
    }
    /// An atomic 32-bit store at system scope.
    pub fn store_u32(&mut self, addr: u64, v: u32, order: Ordering) {
        self.op(addr, 4, Some(u64::from(v)), Some(order));
    }
    /// An atomic 64-bit load at system scope.
    pub fn load_u64(&mut self, addr: u64, order: Ordering) -> u64 {
        self.op(addr, 8, None, Some(order))
    }
    /// An atomic 64-bit store at system scope.
    pub fn store_u64(&mut self, addr: u64, v: u64, order: Ordering) {
        self.op(addr, 8, Some(v), Some(order));
    }
    /// A plain (non-atomic) 32-bit read.
    pub fn read_u32(&mut self, addr: u64) -> u32 {
        self.op(addr, 4, None, None) as u32
    }
    /// A plain (non-atomic) 32-bit write.
    pub fn write_u32(&mut self, addr: u64, v: u32) {
        self.op(addr, 4, Some(u64::from(v)), None);
    }
}

/// Barrier arrivals of one CTA: per barrier id, the threads there and the instruction each
/// arrived at.
#[derive(Default, Clone)]
struct CtaBarriers {
    /// (thread, instruction, `.aligned`) of each arrival.
    waiting: Vec<Vec<(u32, u32, bool)>>,
    expected: Vec<Option<u32>>,
}

/// Runs threads (and host threads) to completion or to the first stopping finding.
pub struct Scheduler<'w, 'p> {
    pub world: &'w mut World<'p>,
    pub threads: Vec<Thread>,
    pub hosts: Vec<HostThread>,
    pub mode: Mode,
    pub rng: u64,
    pub findings: Vec<Finding>,
    pub buffers: Vec<u64>,
    cta_threads: u32,
    bars: Vec<CtaBarriers>,
    live: Vec<u32>,
    /// Host threads parked for a notification.
    parked: Vec<u32>,
    /// Threads of each CTA that have exited.
    exited: Vec<u32>,
    /// Threads waiting at `bar.warp.sync`, per (CTA, warp, member mask), with the instruction
    /// each arrived at.
    warp_waits: std::collections::HashMap<(u32, u32, u32), Vec<(u32, u32)>>,
    /// The cluster barrier of each cluster, and each thread's pending arrival.
    cluster_bars: Vec<super::cluster::Barrier>,
    cluster_arrivals: super::cluster::Arrivals,
    seen_races: std::collections::HashSet<(u32, u32)>,
}

const MAX_RACES: usize = 8;
/// Instructions without progress after which a launch is reported as hung.
const IDLE_INSTRUCTIONS: u64 = 1 << 26;

impl<'w, 'p> Scheduler<'w, 'p> {
    pub fn new(
        world: &'w mut World<'p>,
        threads: Vec<Thread>,
        hosts: Vec<HostThread>,
        mode: Mode,
        seed: u64,
        buffers: Vec<u64>,
    ) -> Self {
        let ctas = world.grid.iter().product::<u32>() as usize;
        let cta_threads = world.block.iter().product::<u32>();
        let live = (0..(threads.len() + hosts.len()) as u32).collect();
        let clusters = ctas / world.mem.shape.size().max(1) as usize;
        let device_threads = threads.len();
        Scheduler {
            world,
            threads,
            hosts,
            mode,
            rng: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            findings: Vec::new(),
            buffers,
            cta_threads,
            bars: vec![CtaBarriers::default(); ctas],
            live,
            exited: vec![0; ctas],
            parked: Vec::new(),
            warp_waits: Default::default(),
            cluster_bars: vec![Default::default(); clusters],
            cluster_arrivals: vec![None; device_threads],
            seen_races: Default::default(),
        }
    }

    fn name(&self, t: u32) -> String {
        match self.threads.get(t as usize) {
            Some(th) => thread_name(th.ctaid, th.tid, self.world.grid, self.world.block),
            None => format!("host thread {}", t as usize - self.threads.len()),
        }
    }

    fn inst(&self, i: u32) -> String {
        if i == u32::MAX {
            "a host access".into()
        } else {
            inst_name(self.world.prog, i)
        }
    }

    fn stop(&mut self, kind: FindingKind, text: String) {
        self.findings.push(Finding::new(kind, text));
    }

    fn stopped(&self) -> bool {
        self.findings.iter().any(|f| f.kind != FindingKind::Race)
            || self.findings.len() >= MAX_RACES
    }

    fn random(&mut self, n: usize) -> usize {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % n as u64) as usize
    }

    fn race(&mut self, t: u32, hit: RaceHit, addr: u64) {
        let (e, l) = (hit.earlier, hit.later);
        if !self
            .seen_races
            .insert((e.inst.min(l.inst), e.inst.max(l.inst)))
        {
            return;
        }
        let kind = |w: bool, strong: bool, scope: super::decode::Scope| {
            format!(
                "{} {}",
                if strong {
                    format!("strong ({})", scope.ptx())
                } else {
                    "plain".into()
                },
                if w { "write" } else { "read" }
            )
        };
        let why = hit.reason;
        let text = format!(
            "{} {} by {} and {} {} by {} at {}, unordered by the schedule's causality order and {why}",
            kind(e.write, e.strong, e.scope),
            self.inst(e.inst),
            self.name(e.tid),
            kind(l.write, l.strong, l.scope),
            self.inst(l.inst),
            self.name(t),
            self.world.mem.describe(addr),
        );
        self.findings.push(Finding::new(FindingKind::Race, text));
    }

    /// Handles thread `t` arriving at barrier `id` at instruction `at`.
    fn arrive(&mut self, t: u32, id: u32, count: Option<u32>, at: u32, aligned: bool) {
        let cta = self.threads[t as usize].cta as usize;
        let b = &mut self.bars[cta];
        let id = id as usize;
        if b.waiting.len() <= id {
            b.waiting.resize(id + 1, Vec::new());
            b.expected.resize(id + 1, None);
        }
        b.waiting[id].push((t, at, aligned));
        b.expected[id] = count.or(b.expected[id]);
        self.threads[t as usize].state = State::AtBarrier(id as u32);
        self.live.retain(|&x| x != t);
        if self.exited[cta] > 0 && self.bars[cta].expected[id].is_none() {
            let gone = (0..self.threads.len() as u32)
                .find(|&x| {
                    self.threads[x as usize].cta as usize == cta
                        && self.threads[x as usize].state == State::Done
                })
                .unwrap_or(t);
            let text = format!(
                "{} waits at barrier {id} ({}) which {} can no longer reach: it has exited (a barrier in conditional code must be reached by every thread of the CTA)",
                self.name(t),
                self.inst(at),
                self.name(gone)
            );
            self.stop(FindingKind::Divergence, text);
            return;
        }
        self.try_complete(cta, id);
    }

    fn try_complete(&mut self, cta: usize, id: usize) {
        let expected = self.bars[cta].expected[id].unwrap_or(self.cta_threads) as usize;
        let waiting = &self.bars[cta].waiting[id];
        if waiting.len() < expected {
            return;
        }
        let arrivals = std::mem::take(&mut self.bars[cta].waiting[id]);
        self.bars[cta].expected[id] = None;
        // `.aligned`: every thread of a warp at the same barrier instruction.
        for (i, &(a, ia, aligned_a)) in arrivals.iter().enumerate() {
            let la = self.threads[a as usize].lin;
            let other = arrivals[i + 1..].iter().find(|&&(b, ib, aligned_b)| {
                (aligned_a || aligned_b) && self.threads[b as usize].lin / 32 == la / 32 && ib != ia
            });
            if let Some(&(b, ib, _)) = other {
                let text = format!(
                    "threads {} and {} of one warp reached barrier {id} at different instructions, {} and {} (bar.sync is .aligned: every thread of the warp must execute the same barrier instruction)",
                    self.name(a),
                    self.name(b),
                    self.inst(ia),
                    self.inst(ib)
                );
                self.stop(FindingKind::Divergence, text);
                return;
            }
        }
        let ids: Vec<u32> = arrivals.iter().map(|a| a.0).collect();
        self.release(&ids);
    }

    /// The threads `ids` leave a barrier (CTA or warp) together: each one's accesses before it
    /// happen before every one's after it (race detection), and they run again.
    fn release(&mut self, ids: &[u32]) {
        if let Some(race) = &mut self.world.race {
            race.join_all(ids);
        }
        for &t in ids {
            self.threads[t as usize].state = State::Ready;
            self.live.push(t);
        }
        if self.mode == Mode::WarpLockstep {
            self.live.sort_unstable();
        }
        self.world.progress = true;
    }

    /// Handles thread `t` arriving at `bar.warp.sync mask` at instruction `at`: it waits until
    /// every lane of the mask has arrived with the same mask; then, as at a CTA barrier, each
    /// member's accesses before it happen before every member's accesses after it (the PTX ISA's
    /// guarantee of memory ordering among the threads participating in the barrier).
    fn warp_sync(&mut self, t: u32, mask: u32, at: u32) {
        let th = &self.threads[t as usize];
        let (cta, lane, warp) = (th.cta, th.lin % 32, th.lin / 32);
        let lanes = (self.cta_threads - warp * 32).min(32);
        let existing = if lanes == 32 {
            u32::MAX
        } else {
            (1 << lanes) - 1
        };
        let problem = if mask & (1 << lane) == 0 {
            Some(format!("does not include the thread's own lane {lane}"))
        } else if mask & !existing != 0 {
            Some(format!(
                "names lanes that do not exist: warp {warp} of a block of {} threads has {lanes}",
                self.cta_threads
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            let text = format!(
                "{} at {}: bar.warp.sync member mask {mask:#010x} {problem} (undefined in PTX)",
                self.name(t),
                self.inst(at)
            );
            self.stop(FindingKind::Fault, text);
            return;
        }
        self.threads[t as usize].state = State::AtBarrier(u32::MAX);
        self.live.retain(|&x| x != t);
        let waiting = self.warp_waits.entry((cta, warp, mask)).or_default();
        waiting.push((t, at));
        if waiting.len() < mask.count_ones() as usize {
            return;
        }
        let ids: Vec<u32> = self
            .warp_waits
            .remove(&(cta, warp, mask))
            .unwrap_or_default()
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        self.release(&ids);
    }

    /// The linear cluster of thread `t`.
    fn cluster_index(&self, t: u32) -> usize {
        self.world
            .mem
            .shape
            .cluster_of(self.threads[t as usize].ctaid) as usize
    }

    /// `barrier.cluster.arrive` by thread `t` at `at`: counts the arrival (with a release of
    /// the thread's accesses so far unless `.relaxed`); the last arrival of the cluster's threads
    /// completes the phase and releases the threads waiting for it.
    fn cluster_arrive(&mut self, t: u32, relaxed: bool, at: u32) {
        let c = self.cluster_index(t);
        if self.cluster_arrivals[t as usize].is_some() {
            let text = format!(
                "{} at {}: barrier.cluster.arrive again before barrier.cluster.wait (undefined in PTX: each thread arrives, then waits, once per phase)",
                self.name(t),
                self.inst(at)
            );
            self.stop(FindingKind::Fault, text);
            return;
        }
        let bar = &mut self.cluster_bars[c];
        self.cluster_arrivals[t as usize] = Some(bar.phase);
        if !relaxed && let Some(race) = &mut self.world.race {
            race.release_into(t, &mut bar.clock);
        }
        bar.arrived += 1;
        self.world.progress = true;
        if bar.arrived < self.cta_threads * self.world.mem.shape.size() {
            return;
        }
        bar.phase += 1;
        bar.arrived = 0;
        bar.done = std::mem::take(&mut bar.clock);
        let (waiting, done) = (std::mem::take(&mut bar.waiting), bar.done.clone());
        for (w, _) in waiting {
            if let Some(race) = &mut self.world.race {
                race.absorb(w, &done);
            }
            self.cluster_arrivals[w as usize] = None;
            self.threads[w as usize].state = State::Ready;
            self.live.push(w);
        }
        if self.mode == Mode::WarpLockstep {
            self.live.sort_unstable();
        }
    }

    /// `barrier.cluster.wait` by thread `t` at `at`: returns at once (acquiring the phase) when
    /// the phase of its arrival has completed, else waits for it.
    fn cluster_wait(&mut self, t: u32, at: u32) {
        let c = self.cluster_index(t);
        let Some(phase) = self.cluster_arrivals[t as usize] else {
            let text = format!(
                "{} at {}: barrier.cluster.wait without a barrier.cluster.arrive before it (undefined in PTX)",
                self.name(t),
                self.inst(at)
            );
            self.stop(FindingKind::Fault, text);
            return;
        };
        let bar = &mut self.cluster_bars[c];
        if bar.phase > phase {
            if let Some(race) = &mut self.world.race {
                race.absorb(t, &bar.done);
            }
            self.cluster_arrivals[t as usize] = None;
            return;
        }
        bar.waiting.push((t, at));
        self.threads[t as usize].state = State::AtBarrier(u32::MAX - 1);
        self.live.retain(|&x| x != t);
    }

    /// After thread `t` of `cta` exited: a barrier its CTA waits at can no longer complete.
    fn check_unreachable(&mut self, cta: usize, exited: u32) {
        for id in 0..self.bars[cta].waiting.len() {
            if let Some(&(w, at, _)) = self.bars[cta].waiting[id].first()
                && self.bars[cta].expected[id].is_none()
            {
                let text = format!(
                    "{} exited while {} waits at barrier {id} ({}): the barrier can no longer be reached by every thread of the CTA",
                    self.name(exited),
                    self.name(w),
                    self.inst(at)
                );
                self.stop(FindingKind::Divergence, text);
                return;
            }
        }
    }

    /// Runs until every thread is done or a finding stops the launch.
    pub fn run(&mut self, hang_bound: u64) -> bool {
        let n_dev = self.threads.len() as u32;
        let mut idle: u64 = 0;
        let mut progress_at: u64 = 0;
        let mut cursor = 0usize;
        let mut host_recent: Vec<Vec<(u64, u64)>> = vec![Vec::new(); self.hosts.len()];
        while !self.live.is_empty() {
            let k = match self.mode {
                Mode::Random => self.random(self.live.len()),
                Mode::WarpLockstep => {
                    cursor %= self.live.len();
                    cursor += 1;
                    cursor - 1
                }
            };
            let t = self.live[k];
            self.world.progress = false;
            if t >= n_dev {
                let h = (t - n_dev) as usize;
                let mut ctx = HostCtx {
                    world: self.world,
                    t,
                    buffers: &self.buffers,
                    recent: &mut host_recent[h],
                    stop: None,
                };
                let status = (self.hosts[h].step)(&mut ctx);
                let stop = ctx.stop.take();
                if let Some((hit, addr)) = self.world.race_hit.take() {
                    self.race(t, hit, addr);
                }
                if let Some(Event::Fault(f)) = stop {
                    let text = format!("{}: {f}", self.name(t));
                    self.stop(FindingKind::Fault, text)
                }
                match status {
                    HostStatus::Continue => {}
                    HostStatus::Done => {
                        self.live.remove(k);
                        self.world.progress = true;
                    }
                    HostStatus::Parked => {
                        self.live.remove(k);
                        self.parked.push(t);
                        self.world.progress = true;
                    }
                }
            } else {
                let th = &mut self.threads[t as usize];
                let ev = self.world.run(th, t);
                let at = th.pc.saturating_sub(1);
                let cta = th.cta as usize;
                if let Some((hit, addr)) = self.world.race_hit.take() {
                    self.race(t, hit, addr);
                }
                match ev {
                    Event::Yield => {}
                    Event::Barrier(id, count, aligned) => {
                        if count.is_some_and(|c| c == 0 || c % 32 != 0 || c > self.cta_threads) {
                            let text = format!(
                                "{} at {}: barrier thread count {} is not a positive multiple of 32 up to the CTA's {} threads",
                                self.name(t),
                                self.inst(at),
                                count.unwrap_or(0),
                                self.cta_threads
                            );
                            self.stop(FindingKind::Fault, text);
                        } else {
                            self.arrive(t, id, count, at, aligned);
                        }
                    }
                    Event::WarpSync(mask) => self.warp_sync(t, mask, at),
                    Event::ClusterArrive(relaxed) => self.cluster_arrive(t, relaxed, at),
                    Event::ClusterWait => self.cluster_wait(t, at),
                    Event::Exited => {
                        self.threads[t as usize].state = State::Done;
                        self.exited[cta] += 1;
                        self.live.remove(k);
                        self.world.progress = true;
                        self.check_unreachable(cta, t);
                    }
                    Event::Fault(f) => {
                        let text = format!("{} at {}: {f}", self.name(t), self.inst(at));
                        self.stop(FindingKind::Fault, text);
                    }
                }
            }
            if self.stopped() {
                return false;
            }
            if self.world.progress {
                idle = 0;
                progress_at = self.world.instructions;
            } else {
                idle += 1;
                // Bounded in steps (spinning on memory) and in instructions (spinning in registers).
                let spun = self.world.instructions - progress_at > IDLE_INSTRUCTIONS;
                if spun || idle > hang_bound + 64 * self.live.len() as u64 {
                    let mut who: Vec<String> = self
                        .live
                        .iter()
                        .take(4)
                        .map(|&t| match self.threads.get(t as usize) {
                            Some(th) => format!(
                                "{} at {}",
                                self.name(t),
                                self.inst(th.pc.saturating_sub(1))
                            ),
                            None => self.name(t),
                        })
                        .collect();
                    if self.live.len() > 4 {
                        who.push(format!("and {} more", self.live.len() - 4));
                    }
                    let text = format!(
                        "no thread made progress in {idle} scheduling steps ({} instructions): every live thread spins on values nobody changes ({})",
                        self.world.instructions - progress_at,
                        who.join(", ")
                    );
                    self.stop(FindingKind::Hang, text);
                    return false;
                }
            }
        }
        if let Some(&t) = self.parked.first() {
            let text = format!(
                "{} is parked waiting for a notification, and every device thread has finished: a device thread cannot wake a host thread (its notify does not reach the host), so the host waits forever",
                self.name(t)
            );
            self.stop(FindingKind::Hang, text);
            return false;
        }
        // Nobody runnable: threads left waiting at barriers can never leave.
        let stuck: Vec<(u32, u32)> = self
            .bars
            .iter()
            .flat_map(|b| b.waiting.iter().flatten().map(|&(t, at, _)| (t, at)))
            .chain(self.warp_waits.values().flatten().copied())
            .collect();
        let cluster_stuck: Vec<(u32, u32)> = self
            .cluster_bars
            .iter()
            .flat_map(|b| b.waiting.iter().copied())
            .collect();
        if let Some(&(t, at)) = cluster_stuck.first() {
            let arrived = self.cluster_bars[self.cluster_index(t)].arrived;
            let text = format!(
                "{} threads wait at barrier.cluster, e.g. {} at {}, which only {arrived} of the cluster's {} threads reached in this phase: every thread of every CTA of the cluster must arrive (one exited or waits elsewhere)",
                cluster_stuck.len(),
                self.name(t),
                self.inst(at),
                self.cta_threads * self.world.mem.shape.size()
            );
            self.stop(FindingKind::Hang, text);
            return false;
        }
        if let Some(&(t, at)) = stuck.first() {
            let text = format!(
                "{} threads wait at barriers that cannot complete, e.g. {} at {}",
                stuck.len(),
                self.name(t),
                self.inst(at)
            );
            self.stop(FindingKind::Hang, text);
            return false;
        }
        true
    }
}
