//! The scheduler of a launch: a seeded random interleaving at every memory operation (or a
//! warp-lockstep order), CTA barriers with their divergence checks, host threads stepping on
//! shared mapped memory, and hang detection in bounded steps.

use super::exec::{Event, State, World};
use super::race::RaceHit;
use super::report::{Finding, FindingKind, inst_name, thread_name};
use barrier::CtaBarriers;

mod barrier;
mod cluster;
mod collective;
mod host;
pub(crate) mod residency;

pub use host::{HostCtx, HostStatus, HostThread, HostWord};
use residency::{Live, ThreadStart, Threads};

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

/// Runs threads (and host threads) to completion or to the first stopping finding.
pub struct Scheduler<'w, 'p> {
    pub world: &'w mut World<'p>,
    pub(crate) threads: Threads,
    pub hosts: Vec<HostThread>,
    pub mode: Mode,
    pub rng: u64,
    pub findings: Vec<Finding>,
    pub buffers: Vec<u64>,
    cta_threads: u32,
    bars: Vec<CtaBarriers>,
    live: Live,
    /// Bytes of shared memory of each CTA.
    shared_bytes: usize,
    /// The CTAs in the order clusters are admitted (each cluster's CTAs together).
    admission: Vec<u32>,
    /// Clusters admitted so far (the next one to admit is this one).
    admitted: u32,
    /// Clusters resident now, and at most at once.
    resident: u32,
    max_resident: u32,
    /// Host threads parked for a notification.
    parked: Vec<u32>,
    /// Threads of each CTA that have exited.
    exited: Vec<u32>,
    /// Lanes waiting at warp collectives, per (CTA, warp).
    warp_groups: std::collections::HashMap<(u32, u32), Vec<collective::WarpGroup>>,
    /// Lanes waiting at `activemask`, per (CTA, warp), with the instruction.
    active_waits: std::collections::HashMap<(u32, u32), Vec<(u32, u32)>>,
    /// The cluster barrier of each cluster (each thread's pending arrival is in its
    /// [`Thread`](super::exec::Thread)).
    cluster_bars: Vec<cluster::Barrier>,
    /// Lanes held at `barrier.cluster.arrive` for the other lanes of their warp, per (CTA, warp).
    cluster_holds: std::collections::HashMap<(u32, u32), Vec<cluster::HeldArrival>>,
    seen_races: std::collections::HashSet<(u32, u32)>,
}

const MAX_RACES: usize = 8;
/// Instructions without progress after which a launch is reported as hung.
const IDLE_INSTRUCTIONS: u64 = 1 << 26;

impl<'w, 'p> Scheduler<'w, 'p> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        world: &'w mut World<'p>,
        start: ThreadStart,
        shared_bytes: usize,
        max_resident_clusters: u32,
        hosts: Vec<HostThread>,
        mode: Mode,
        seed: u64,
        buffers: Vec<u64>,
    ) -> Self {
        let ctas = world.grid.iter().product::<u32>() as usize;
        let cta_threads = world.block.iter().product::<u32>();
        let device_threads = ctas * cta_threads as usize;
        let shape = world.mem.shape;
        let clusters = ctas / shape.size().max(1) as usize;
        // Clusters in order of their index, each one's CTAs in order.
        let mut admission: Vec<u32> = (0..ctas as u32).collect();
        if shape.size() > 1 {
            let grid = world.grid;
            admission.sort_by_key(|&c| {
                let ctaid = [c % grid[0], c / grid[0] % grid[1], c / (grid[0] * grid[1])];
                (shape.cluster_of(ctaid), c)
            });
        }
        world.mem.shared = vec![Vec::new(); ctas];
        let mut s = Scheduler {
            world,
            threads: Threads::new(device_threads, cta_threads, start),
            hosts,
            mode,
            rng: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            findings: Vec::new(),
            buffers,
            cta_threads,
            bars: vec![CtaBarriers::default(); ctas],
            live: Live::new(device_threads, mode == Mode::WarpLockstep),
            shared_bytes,
            admission,
            admitted: 0,
            resident: 0,
            max_resident: max_resident_clusters.max(1),
            exited: vec![0; ctas],
            parked: Vec::new(),
            warp_groups: Default::default(),
            active_waits: Default::default(),
            cluster_bars: vec![Default::default(); clusters],
            cluster_holds: Default::default(),
            seen_races: Default::default(),
        };
        s.live = Live::new(device_threads + s.hosts.len(), mode == Mode::WarpLockstep);
        s.admit();
        for h in 0..s.hosts.len() as u32 {
            s.live.push(device_threads as u32 + h);
        }
        s
    }

    /// Admits clusters while fewer than the limit are resident: their threads start (in the
    /// order of their ids), their shared memory is made.
    fn admit(&mut self) {
        let size = self.world.mem.shape.size();
        let total = self.admission.len() as u32 / size;
        let mut ctas = Vec::new();
        while self.resident < self.max_resident && self.admitted < total {
            let first = (self.admitted * size) as usize;
            ctas.extend_from_slice(&self.admission[first..first + size as usize]);
            self.admitted += 1;
            self.resident += 1;
        }
        ctas.sort_unstable();
        let fill = self.threads.start().shared_fill;
        for c in ctas {
            self.world.mem.shared[c as usize] = vec![fill; self.shared_bytes];
            for l in 0..self.cta_threads {
                let t = c * self.cta_threads + l;
                self.threads.admit(t);
                self.live.push(t);
            }
        }
    }

    /// Every thread of cluster `c` (the cluster of CTA `cta`) has exited: its threads and
    /// shared memory are freed and the next cluster is admitted.
    fn retire(&mut self, c: usize) {
        let size = self.world.mem.shape.size();
        if self.cluster_bars[c].exited < self.cta_threads * size {
            return;
        }
        // `admission` holds the clusters in order, `size` CTAs each.
        let first = c * size as usize;
        for i in first..first + size as usize {
            let cta = self.admission[i];
            for l in 0..self.cta_threads {
                self.threads.free(cta * self.cta_threads + l);
            }
            self.world.mem.shared[cta as usize] = Vec::new();
            self.bars[cta as usize] = CtaBarriers::default();
            if let Some(race) = &mut self.world.race {
                race.forget_shared(cta);
            }
        }
        self.resident -= 1;
        self.admit();
    }

    /// For a hang: the CTAs still waiting to be made resident, if any.
    fn not_resident(&self) -> String {
        let size = self.world.mem.shape.size();
        let waiting = self.admission.len() as u32 / size - self.admitted;
        if waiting == 0 {
            return String::new();
        }
        format!(
            "; {} CTAs have not started: at most {} CTAs are resident at once (as on a GPU, the next starts when a resident one finishes; Launch::resident_ctas, --resident-ctas), so a kernel that waits for a CTA that has not started hangs on a GPU too",
            waiting * size,
            self.max_resident * size
        )
    }

    fn name(&self, t: u32) -> String {
        let n_dev = self.threads.len() as u32;
        if t < n_dev {
            let (grid, block) = (self.world.grid, self.world.block);
            let (c, l) = (t / self.cta_threads, t % self.cta_threads);
            let ctaid = [c % grid[0], c / grid[0] % grid[1], c / (grid[0] * grid[1])];
            let tid = [
                l % block[0],
                l / block[0] % block[1],
                l / (block[0] * block[1]),
            ];
            thread_name(ctaid, tid, grid, block)
        } else {
            format!("host thread {}", t - n_dev)
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
        if why == super::race::READ_ONLY_REASON {
            let earlier = (e.write, e.strong, e.scope, e.inst, e.tid);
            let later = (l.write, l.strong, l.scope, l.inst, t);
            let (w, r) = if e.write {
                (earlier, later)
            } else {
                (later, earlier)
            };
            let text = format!(
                "{} {} by {} and ld.global.nc read {} by {} at {}: {why}",
                kind(w.0, w.1, w.2),
                self.inst(w.3),
                self.name(w.4),
                self.inst(r.3),
                self.name(r.4),
                self.world.mem.describe(addr),
            );
            self.findings.push(Finding::new(FindingKind::Race, text));
            return;
        }
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

    /// The threads `ids` leave a barrier or collective together and run again; with `sync`
    /// (barriers), each one's accesses before it happen before every one's after it (race
    /// detection).
    fn release(&mut self, ids: &[u32], sync: bool) {
        if sync && let Some(race) = &mut self.world.race {
            race.join_all(ids);
        }
        for &t in ids {
            self.threads[t as usize].state = State::Ready;
            self.live.push(t);
        }
        self.world.progress = true;
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
            let t = self.live.get(k).expect("a position in the list");
            self.world.progress = false;
            if t >= n_dev {
                let h = (t - n_dev) as usize;
                let mut ctx = HostCtx::new(self.world, t, &self.buffers, &mut host_recent[h]);
                let status = self.hosts[h].step(&mut ctx);
                let stop = ctx.take_stop();
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
                    Event::Barrier(bar) => {
                        let count = bar.count;
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
                            self.arrive(t, bar, at);
                        }
                    }
                    Event::WarpSync(mask) => self.warp_sync(t, mask, at),
                    Event::ClusterArrive(relaxed) => self.cluster_arrive(t, relaxed, at),
                    Event::ClusterWait => self.cluster_wait(t, at),
                    Event::Collective => self.collective(t, at),
                    Event::Exited => {
                        self.threads[t as usize].state = State::Done;
                        if let Some(race) = &mut self.world.race {
                            race.exit(t);
                        }
                        self.exited[cta] += 1;
                        self.live.remove(k);
                        self.world.progress = true;
                        self.check_unreachable(cta, t);
                        let th = &self.threads[t as usize];
                        let key = (th.cta, th.lin / 32);
                        // (Most launches have no lanes waiting: no hashing then.)
                        if (!self.warp_groups.is_empty() && self.warp_groups.contains_key(&key))
                            || (!self.active_waits.is_empty()
                                && self.active_waits.contains_key(&key))
                        {
                            self.lane_exited(key);
                        }
                        self.cluster_thread_exited(t);
                        let c = self.cluster_index(t);
                        self.retire(c);
                    }
                    Event::Fault(f) => {
                        let text = format!("{} at {}: {f}", self.name(t), self.inst(at));
                        self.stop(FindingKind::Fault, text);
                    }
                }
            }
            // Lockstep: a thread that left the live list (exit, barrier) at the cursor's
            // previous position must not make the next one lose its turn.
            if self.mode == Mode::WarpLockstep && self.live.get(k) != Some(t) && cursor > k {
                cursor -= 1;
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
                        .first(4)
                        .into_iter()
                        .map(|t| {
                            if t < n_dev {
                                let pc = self.threads.pc(t);
                                format!("{} at {}", self.name(t), self.inst(pc.saturating_sub(1)))
                            } else {
                                self.name(t)
                            }
                        })
                        .collect();
                    if self.live.len() > 4 {
                        who.push(format!("and {} more", self.live.len() - 4));
                    }
                    let mut text = format!(
                        "no thread made progress in {idle} scheduling steps ({} instructions): every live thread spins on values nobody changes ({})",
                        self.world.instructions - progress_at,
                        who.join(", ")
                    );
                    if let Some(&(h, _, at)) = self.cluster_holds.values().flatten().next() {
                        text += &format!(
                            "; {} at {} waits at barrier.cluster.arrive for the other non-exited lanes of its warp, which arrive together",
                            self.name(h),
                            self.inst(at)
                        );
                    }
                    text += &self.not_resident();
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
            .flat_map(|b| {
                b.arrivals
                    .iter()
                    .flatten()
                    .filter(|a| a.waits)
                    .map(|a| (a.t, a.at))
            })
            .chain(
                self.warp_groups
                    .values()
                    .flatten()
                    .flat_map(|g| g.members.iter().copied()),
            )
            .chain(self.active_waits.values().flatten().copied())
            .collect();
        let cluster_stuck: Vec<(u32, u32)> = self
            .cluster_bars
            .iter()
            .flat_map(|b| b.waiting.iter().copied())
            .collect();
        if let Some(&(t, at)) = cluster_stuck.first() {
            let bar = &self.cluster_bars[self.cluster_index(t)];
            let text = format!(
                "{} threads wait at barrier.cluster, e.g. {} at {}, which only {} of the cluster's {} non-exited threads reached in this phase: every non-exited thread of every CTA of the cluster must arrive (one waits elsewhere)",
                cluster_stuck.len(),
                self.name(t),
                self.inst(at),
                bar.arrived,
                self.cta_threads * self.world.mem.shape.size() - bar.exited
            );
            self.stop(FindingKind::Hang, text);
            return false;
        }
        let held: Vec<(u32, u32)> = self
            .cluster_holds
            .values()
            .flatten()
            .map(|&(t, _, at)| (t, at))
            .collect();
        if let Some(&(t, at)) = held.first() {
            let text = format!(
                "{} lanes wait at barrier.cluster.arrive for the other non-exited lanes of their warp, which never reach a barrier.cluster, e.g. {} at {} (the lanes of a warp arrive together)",
                held.len(),
                self.name(t),
                self.inst(at)
            );
            self.stop(FindingKind::Hang, text);
            return false;
        }
        if let Some(&(t, at)) = stuck.first() {
            let text = format!(
                "{} threads wait at barriers that cannot complete, e.g. {} at {}{}",
                stuck.len(),
                self.name(t),
                self.inst(at),
                self.not_resident()
            );
            self.stop(FindingKind::Hang, text);
            return false;
        }
        true
    }
}
