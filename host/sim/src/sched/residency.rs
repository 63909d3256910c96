//! Which threads exist: CTAs made resident as a GPU makes them, the threads of resident CTAs,
//! and the runnable ones.
//!
//! **The residency rule.** A GPU runs a grid a bounded number of CTAs at a time: each SM holds
//! CTAs up to its limits, and the next CTA starts when a resident one finishes. The simulator
//! does the same, by whole clusters (a cluster's CTAs are co-scheduled, as on a GPU): at most
//! [`resident_ctas`] CTAs are resident at once, CTAs are admitted in the order of their linear
//! index, and when every thread of a cluster has exited, its threads, shared memory and
//! barriers are freed and the next cluster is admitted. The default limit is that of a GPU
//! larger than any shipped so far (see [`DEFAULT_SMS`]): a kernel that needs more CTAs
//! co-resident than that (a CTA spinning on a flag that a CTA not yet started would set) hangs
//! on every GPU, and the hang finding says that CTAs were waiting for residency.
//! `Launch::resident_ctas` sets another limit; a cooperative
//! launch larger than the limit is refused, as `cudaLaunchCooperativeKernel` refuses it.

use crate::exec::{State, Thread};

/// SMs of the GPU the default residency models: more than any GPU so far (an H100 has 132, a
/// B200 148), so every kernel that runs on a real GPU runs here.
pub const DEFAULT_SMS: u32 = 160;
/// Threads an SM holds at once (every architecture since sm_30).
const THREADS_PER_SM: u32 = 2048;
/// CTAs an SM holds at once (sm_90, sm_100: the most of any architecture).
const CTAS_PER_SM: u32 = 32;

/// The default number of CTAs of `cta_threads` threads resident at once: [`DEFAULT_SMS`] SMs,
/// each holding at most 32 CTAs and 2048 threads (counted in whole warps). Registers and shared
/// memory, which lower the number on a GPU, are not counted, so the limit is never below a
/// real GPU's.
///
/// ```
/// use ptx_sim::resident_ctas;
/// assert_eq!(resident_ctas(1024), 320);
/// assert_eq!(resident_ctas(256), 1280);
/// assert_eq!(resident_ctas(32), 5120);
/// assert_eq!(resident_ctas(1), 5120);
/// ```
pub fn resident_ctas(cta_threads: u32) -> u32 {
    let warps = cta_threads.div_ceil(32).max(1);
    DEFAULT_SMS * CTAS_PER_SM.min(THREADS_PER_SM / (warps * 32)).max(1)
}

/// How the threads of a CTA start: what [`Thread`] they get.
pub(crate) struct ThreadStart {
    pub nregs: u32,
    pub local_size: u32,
    pub entry_pc: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The byte a CTA's shared memory holds before the kernel writes it.
    pub shared_fill: u8,
}

impl ThreadStart {
    /// Thread `l` (linear in its CTA) of CTA `c`, at the kernel's first instruction, in the
    /// buffers of a freed thread (`spare`, if any): a thread's start allocates nothing then.
    /// The kernel's frame is implicit and its parameters are the launch's until the thread
    /// writes one ([`Thread::params`]), so without `spare` only its registers and `.local`
    /// memory are allocated.
    pub fn thread(&self, c: u32, l: u32, spare: Option<&mut Thread>) -> Thread {
        let (grid, block) = (self.grid, self.block);
        let (mut regs, mut own_params, mut local, mut frames) = match spare {
            Some(old) => (
                std::mem::take(&mut old.regs),
                std::mem::take(&mut old.own_params),
                std::mem::take(&mut old.local),
                std::mem::take(&mut old.frames),
            ),
            None => Default::default(),
        };
        regs.clear();
        regs.resize(self.nregs as usize, 0);
        own_params.clear();
        local.clear();
        local.resize(self.local_size as usize, 0);
        frames.clear();
        Thread {
            regs,
            own_params,
            local,
            frames,
            pc: self.entry_pc,
            state: State::Ready,
            cta: c,
            tid: [
                l % block[0],
                l / block[0] % block[1],
                l / (block[0] * block[1]),
            ],
            ctaid: [c % grid[0], c / grid[0] % grid[1], c / (grid[0] * grid[1])],
            lin: l,
            base: 0,
            recent: [(u64::MAX, 0); 4],
            recent_at: 0,
            carry: false,
            copies: Default::default(),
            cluster_arrival: None,
        }
    }
}

/// Not a slot: the thread is not resident.
const NOT_RESIDENT: u32 = u32::MAX;
/// Not a slot: the thread is resident and has not run yet.
const NOT_STARTED: u32 = u32::MAX - 1;

/// The device threads of a launch by id (`cta · cta_threads + lin`): those of resident CTAs
/// are held, the others (not started or finished) are not.
///
/// A resident thread is made ([`ThreadStart::thread`]) when it first runs, not when its CTA
/// becomes resident, and lives in a pool of slots; a finished CTA's slots, with their threads'
/// buffers, are reused by the threads started after it. So starting a thread allocates nothing
/// once the pool has grown (malloc and free were 40% of the cost of a thread's start), and a
/// thread is written just before it runs, while it is in the cache (a thread made when its
/// CTA became resident had left the cache by its first step: that miss was a third of the cost
/// of an empty kernel's thread). The pool is as large as the most threads started and not
/// finished at once.
pub(crate) struct Threads {
    /// Each device thread's slot in `pool`, or [`NOT_RESIDENT`] or [`NOT_STARTED`].
    slot_of: Vec<u32>,
    pool: Vec<Thread>,
    /// Slots of `pool` whose threads were freed (their buffers kept for the next ones).
    free: Vec<u32>,
    start: ThreadStart,
    cta_threads: u32,
}

impl Threads {
    /// The `total` device threads of a launch, CTAs of `cta_threads`, none resident.
    pub fn new(total: usize, cta_threads: u32, start: ThreadStart) -> Threads {
        Threads {
            slot_of: vec![NOT_RESIDENT; total],
            pool: Vec::new(),
            free: Vec::new(),
            start,
            cta_threads,
        }
    }

    /// Device threads of the launch (resident or not).
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// How the launch's threads start.
    pub fn start(&self) -> &ThreadStart {
        &self.start
    }

    /// Makes thread `t` resident, at the start of the kernel (made when it first runs).
    pub fn admit(&mut self, t: u32) {
        debug_assert_eq!(self.slot_of[t as usize], NOT_RESIDENT);
        self.slot_of[t as usize] = NOT_STARTED;
    }

    /// Frees thread `t` (its slot is reused by the next thread started).
    pub fn free(&mut self, t: u32) {
        let slot = std::mem::replace(&mut self.slot_of[t as usize], NOT_RESIDENT);
        if slot < NOT_STARTED {
            self.free.push(slot);
        }
    }

    /// The state of resident thread `t` (`Ready` if it has not run yet).
    pub fn state(&self, t: u32) -> State {
        match self.slot_of[t as usize] {
            NOT_STARTED => State::Ready,
            _ => self[t as usize].state,
        }
    }

    /// The program counter of resident thread `t` (the kernel's first instruction if it has
    /// not run yet).
    pub fn pc(&self, t: u32) -> u32 {
        match self.slot_of[t as usize] {
            NOT_STARTED => self.start.entry_pc,
            _ => self[t as usize].pc,
        }
    }

    /// Makes resident thread `t`, which has not run yet, in a free slot; returns the slot.
    #[cold]
    fn make(&mut self, t: usize) -> usize {
        let (c, l) = (t as u32 / self.cta_threads, t as u32 % self.cta_threads);
        let slot = match self.free.pop() {
            Some(slot) => {
                let old = &mut self.pool[slot as usize];
                *old = self.start.thread(c, l, Some(old));
                slot as usize
            }
            None => {
                self.pool.push(self.start.thread(c, l, None));
                self.pool.len() - 1
            }
        };
        self.slot_of[t] = slot as u32;
        slot
    }
}

impl std::ops::Index<usize> for Threads {
    type Output = Thread;
    /// A thread that has run (a resident thread that has not is made by `IndexMut`; read its
    /// state and program counter with [`Threads::state`] and [`Threads::pc`]).
    #[inline]
    fn index(&self, t: usize) -> &Thread {
        self.pool
            .get(self.slot_of[t] as usize)
            .expect("a thread of a resident CTA that has run")
    }
}

impl std::ops::IndexMut<usize> for Threads {
    /// A resident thread, made now if it has not run yet.
    #[inline]
    fn index_mut(&mut self, t: usize) -> &mut Thread {
        let slot = match self.slot_of[t] {
            NOT_STARTED => self.make(t),
            slot => slot as usize,
        };
        self.pool.get_mut(slot).expect("a thread of a resident CTA")
    }
}

/// Entries per chunk of the runnable list.
const CHUNK: usize = 1024;

/// The runnable threads, in an order the random scheduler picks from by position: the order
/// they became runnable in (or by id, `by_id`, for warp lockstep). Picking, removing and adding
/// cost O(log n + chunk), not O(n): chunks of at most [`CHUNK`] ids with a Fenwick tree of their
/// lengths.
pub(crate) struct Live {
    chunks: Vec<Vec<u32>>,
    /// Fenwick tree over the chunks' lengths.
    tree: Vec<u32>,
    len: usize,
    /// The chunk each thread id was added to (`u32::MAX`: not in the list); by id.
    chunk_of: Vec<u32>,
    /// Kept sorted by id (chunk `t / CHUNK`), else in the order added.
    by_id: bool,
}

impl Live {
    /// An empty list for thread ids below `ids`.
    pub fn new(ids: usize, by_id: bool) -> Live {
        let chunks = if by_id { ids.div_ceil(CHUNK).max(1) } else { 1 };
        Live {
            chunks: vec![Vec::new(); chunks],
            tree: vec![0; chunks + 1],
            len: 0,
            chunk_of: vec![u32::MAX; ids],
            by_id,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn add_len(&mut self, chunk: usize, delta: i32) {
        let mut i = chunk + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// The chunk holding position `k`, and `k` inside it.
    fn find(&self, mut k: usize) -> (usize, usize) {
        if self.chunks.len() == 1 {
            return (0, k);
        }
        let mut pos = 0;
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && (self.tree[next] as usize) <= k {
                k -= self.tree[next] as usize;
                pos = next;
            }
            step /= 2;
        }
        (pos, k)
    }

    /// The id at position `k`.
    #[inline]
    pub fn get(&self, k: usize) -> Option<u32> {
        if k >= self.len {
            return None;
        }
        let (c, i) = self.find(k);
        Some(self.chunks[c][i])
    }

    /// Adds `t` (at the end, or at its place by id).
    pub fn push(&mut self, t: u32) {
        let c = if self.by_id {
            let c = t as usize / CHUNK;
            let chunk = &mut self.chunks[c];
            let at = chunk.partition_point(|&x| x < t);
            chunk.insert(at, t);
            c
        } else {
            if self.chunks.last().is_some_and(|c| c.len() >= CHUNK) {
                self.compact_or_grow();
            }
            let c = self.chunks.len() - 1;
            self.chunks[c].push(t);
            c
        };
        self.chunk_of[t as usize] = c as u32;
        self.len += 1;
        self.add_len(c, 1);
    }

    /// Removes the id at position `k`; returns it.
    pub fn remove(&mut self, k: usize) -> u32 {
        let (c, i) = self.find(k);
        let t = self.chunks[c].remove(i);
        self.chunk_of[t as usize] = u32::MAX;
        self.len -= 1;
        self.add_len(c, -1);
        t
    }

    /// Removes `t` if it is in the list.
    pub fn remove_id(&mut self, t: u32) {
        let c = self.chunk_of[t as usize];
        if c == u32::MAX {
            return;
        }
        let chunk = &mut self.chunks[c as usize];
        if let Some(i) = chunk.iter().position(|&x| x == t) {
            chunk.remove(i);
            self.chunk_of[t as usize] = u32::MAX;
            self.len -= 1;
            self.add_len(c as usize, -1);
        }
    }

    /// The first `n` ids in order.
    pub fn first(&self, n: usize) -> Vec<u32> {
        self.chunks.iter().flatten().take(n).copied().collect()
    }

    /// The last chunk is full: starts a new one, first packing the ids into as few chunks as
    /// they need when most chunks are emptied out (the order kept).
    fn compact_or_grow(&mut self) {
        if self.chunks.len() > 2 * self.len.div_ceil(CHUNK) + 4 {
            let ids: Vec<u32> = self.chunks.iter().flatten().copied().collect();
            self.chunks = ids.chunks(CHUNK).map(<[u32]>::to_vec).collect();
            if self.chunks.last().is_none_or(|c| c.len() >= CHUNK) {
                self.chunks.push(Vec::new());
            }
            for (c, chunk) in self.chunks.iter().enumerate() {
                for &t in chunk {
                    self.chunk_of[t as usize] = c as u32;
                }
            }
        } else {
            self.chunks.push(Vec::new());
        }
        self.tree = vec![0; self.chunks.len() + 1];
        for c in 0..self.chunks.len() {
            let n = self.chunks[c].len() as i32;
            self.add_len(c, n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Live;

    /// The list against a plain vector, through pushes and removals by position and by id.
    #[test]
    fn live_keeps_the_order_of_a_vector() {
        for by_id in [false, true] {
            let ids = 5000u32;
            let mut live = Live::new(ids as usize, by_id);
            let mut model: Vec<u32> = Vec::new();
            let mut rng = 12345u64;
            let mut next = |n: usize| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (rng % n as u64) as usize
            };
            for step in 0..40_000 {
                let op = next(4);
                if op < 2 || model.is_empty() {
                    let t = next(ids as usize) as u32;
                    if !model.contains(&t) {
                        live.push(t);
                        model.push(t);
                        if by_id {
                            model.sort_unstable();
                        }
                    }
                } else if op == 2 {
                    let k = next(model.len());
                    assert_eq!(live.remove(k), model.remove(k), "step {step}");
                } else {
                    let t = model[next(model.len())];
                    live.remove_id(t);
                    model.retain(|&x| x != t);
                }
                assert_eq!(live.len(), model.len());
                if !model.is_empty() {
                    let k = next(model.len());
                    assert_eq!(live.get(k), Some(model[k]), "step {step}");
                }
            }
            assert_eq!(live.first(usize::MAX), model);
        }
    }
}
