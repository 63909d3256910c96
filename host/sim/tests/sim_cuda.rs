//! CUDA C++ kernels, compiled by nvcc 13.5 (`tests/fixtures/sim/cuda/`, PTX checked in with
//! the command in its header), run in the simulator: each kernel's verdict under both views of
//! `volatile` ([`VolatileMode`]) and its final buffers.
//!
//! Every verdict is reasoned from the PTX text against the PTX memory model (PTX ISA chapter
//! 8): two conflicting accesses race unless they are *morally strong* (both strong, each one's
//! scope includes the other thread, same bytes) or ordered by causality order, which release
//! and acquire *patterns* (`fence; st.relaxed` and `ld.relaxed; fence`), `bar.sync`/`bar.arrive`
//! and `bar.warp.sync` build. `ld/st.volatile` is relaxed at system scope (8.4.2) in the default
//! view and a plain access in CUDA C++'s. `membar.gl` is `fence.sc.gpu`.

use ptx_sim::{Arg, FindingKind, Launch, Mode, Outcome, Simulator, VolatileMode};
use std::path::{Path, PathBuf};

#[path = "common/nvcc.rs"]
mod nvcc;
use nvcc::without_path_hashes;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sim/cuda")
}

fn sim(file: &str) -> Simulator {
    let text = std::fs::read_to_string(dir().join(file)).unwrap();
    Simulator::new(&text).unwrap()
}

const BOTH: [VolatileMode; 2] = [VolatileMode::RelaxedSys, VolatileMode::Plain];

/// A launch of one kernel of one corpus file.
struct Case {
    file: &'static str,
    kernel: &'static str,
    grid: u32,
    block: u32,
    args: Vec<Arg>,
    dynamic_shared: u32,
}

fn case(file: &'static str, kernel: &'static str, grid: u32, block: u32, args: Vec<Arg>) -> Case {
    Case {
        file,
        kernel,
        grid,
        block,
        args,
        dynamic_shared: 0,
    }
}

impl Case {
    fn run(&self, volatile: VolatileMode, seed: u64, mode: Mode) -> Outcome {
        let k = sim(self.file).kernel(self.kernel).unwrap();
        let mut l = Launch::new([self.grid, 1, 1], [self.block, 1, 1], self.args.clone());
        l.volatile = volatile;
        l.seed = seed;
        l.mode = mode;
        l.dynamic_shared = self.dynamic_shared;
        k.launch(&l, Vec::new()).unwrap()
    }

    /// The schedules a verdict is checked on: three random ones and warp lockstep.
    fn schedules(&self, volatile: VolatileMode) -> Vec<Outcome> {
        let mut out: Vec<Outcome> = (1..=3)
            .map(|s| self.run(volatile, s, Mode::Random))
            .collect();
        out.push(self.run(volatile, 1, Mode::WarpLockstep));
        out
    }

    /// No finding on any schedule in `modes`; returns the buffers of each.
    fn clean(&self, modes: &[VolatileMode]) -> Vec<Vec<Vec<u8>>> {
        let mut buffers = Vec::new();
        for &m in modes {
            for o in self.schedules(m) {
                assert!(
                    o.completed && o.findings.is_empty(),
                    "{} ({m:?}, seed {}): {:?}",
                    self.kernel,
                    o.seed,
                    o.findings
                );
                buffers.push(o.buffers);
            }
        }
        buffers
    }

    /// On every schedule in `modes`, a finding of `kind` naming both instructions.
    fn finding(&self, modes: &[VolatileMode], kind: FindingKind, a: &str, b: &str) -> Vec<Outcome> {
        let mut outs = Vec::new();
        for &m in modes {
            for o in self.schedules(m) {
                let hit = o.findings.iter().any(|f| {
                    f.kind == kind
                        && f.text.contains(&format!("`{a}`"))
                        && f.text.contains(&format!("`{b}`"))
                });
                assert!(
                    hit,
                    "{} ({m:?}, seed {}): no {kind:?} naming {a} and {b}: {:?}",
                    self.kernel, o.seed, o.findings
                );
                outs.push(o);
            }
        }
        outs
    }
}

fn ints(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn input(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| (i * 37 + 11) % 23 - 9).collect()
}

// ---- reductions.cu ----

#[test]
fn warp_shuffle_reduction_is_race_free_and_sums() {
    // Registers only between lanes (shfl.sync.down orders nothing and needs nothing); the
    // per-warp sums meet in one `atom.global.add` (relaxed, gpu): morally strong.
    let v = input(128);
    let c = case(
        "reductions.ptx",
        "warp_shuffle_sum",
        2,
        64,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 4])],
    );
    for b in c.clean(&BOTH) {
        assert_eq!(words(&b[1])[0], v.iter().sum::<i32>());
    }
}

#[test]
fn a_shuffle_mask_without_the_lane_is_a_finding() {
    // `shfl.sync` with membermask 0x0000ffff executed by lanes 16..31: undefined in PTX.
    let c = case(
        "reductions.ptx",
        "warp_shuffle_half_mask",
        1,
        32,
        vec![Arg::Buffer(ints(&input(32))), Arg::Buffer(vec![0; 4])],
    );
    for o in c.finding(
        &BOTH,
        FindingKind::Fault,
        "shfl.sync.down.b32",
        "shfl.sync.down.b32",
    ) {
        assert!(
            o.findings
                .last()
                .unwrap()
                .text
                .contains("0x0000ffff does not include the thread's own lane")
        );
    }
}

#[test]
fn block_reduction_and_scan_with_barriers_are_race_free() {
    // Shared-memory reads and writes of different threads are separated by bar.sync, which
    // synchronizes every thread of the CTA.
    let v = input(256);
    let c = case(
        "reductions.ptx",
        "block_sum",
        2,
        128,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 8])],
    );
    for b in c.clean(&BOTH) {
        assert_eq!(
            words(&b[1]),
            [v[..128].iter().sum::<i32>(), v[128..].iter().sum()]
        );
    }
    let v = input(128);
    let c = case(
        "reductions.ptx",
        "block_scan",
        2,
        64,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 512])],
    );
    let expected: Vec<i32> = v
        .chunks(64)
        .flat_map(|b| {
            b.iter().scan(0, |s, x| {
                *s += x;
                Some(*s)
            })
        })
        .collect();
    for b in c.clean(&BOTH) {
        assert_eq!(words(&b[1]), expected);
    }
}

#[test]
fn the_volatile_warp_synchronous_tail_races_only_in_cuda_cpp_terms() {
    // Warp 0 sums s[t] += s[t + 16] … through `ld/st.volatile.shared` with no barrier: lane t
    // reads words that lanes t + 16 … write. In PTX's view each is relaxed at system scope, the
    // same 4 bytes: morally strong, no data race. In C++'s view they are plain: a race between
    // the `st.volatile` and the `ld.volatile`.
    let v = input(256);
    let sums = vec![v[..128].iter().sum::<i32>(), v[128..].iter().sum()];
    let c = case(
        "reductions.ptx",
        "block_sum_volatile_tail",
        2,
        128,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 8])],
    );
    c.clean(&[VolatileMode::RelaxedSys]);
    c.finding(
        &[VolatileMode::Plain],
        FindingKind::Race,
        "st.volatile.shared.u32",
        "ld.volatile.shared.u32",
    );
    // In warp lockstep the lanes read before they write, as the pattern assumes: the sums.
    let o = c.run(VolatileMode::RelaxedSys, 1, Mode::WarpLockstep);
    assert_eq!(words(&o.buffers[1]), sums);
}

#[test]
fn a_scan_without_its_middle_barrier_races() {
    // Thread t reads s[t - k] (ld.shared) and thread t - k writes it (st.shared) in the same
    // step with no barrier between: plain, unordered, a race in both views.
    let c = case(
        "reductions.ptx",
        "block_scan_missing_barrier",
        1,
        64,
        vec![Arg::Buffer(ints(&input(64))), Arg::Buffer(vec![0; 256])],
    );
    c.finding(&BOTH, FindingKind::Race, "ld.shared.u32", "st.shared.u32");
}

#[test]
fn ballot_compaction_keeps_the_positive_inputs() {
    // vote.sync.ballot and shfl.sync.idx exchange registers; each warp's place comes from one
    // `atom.global.add` (morally strong); the stores go to disjoint words.
    let v = input(128);
    let c = case(
        "reductions.ptx",
        "compact_positive",
        2,
        64,
        vec![
            Arg::Buffer(ints(&v)),
            Arg::Buffer(vec![0; 512]),
            Arg::Buffer(vec![0; 4]),
        ],
    );
    let mut positive: Vec<i32> = v.iter().copied().filter(|&x| x > 0).collect();
    positive.sort_unstable();
    for b in c.clean(&BOTH) {
        let n = words(&b[2])[0] as usize;
        let mut kept = words(&b[1])[..n].to_vec();
        kept.sort_unstable();
        assert_eq!(kept, positive);
    }
}

#[test]
fn shared_histogram_with_atomics_is_race_free_and_a_plain_increment_races() {
    // atom.shared.add (relaxed, gpu, the same word): morally strong; the zeroing and the final
    // reads are separated from the atomics by bar.sync.
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 37 % 251) as u8).collect();
    let mut expected = [0u32; 16];
    for &d in &data {
        expected[usize::from(d & 15)] += 1;
    }
    let args = || {
        vec![
            Arg::Buffer(data.clone()),
            Arg::Buffer(vec![0; 64]),
            Arg::U32(1000),
        ]
    };
    let c = case("reductions.ptx", "histogram_shared", 2, 64, args());
    for b in c.clean(&BOTH) {
        assert_eq!(
            words(&b[1]).iter().map(|&x| x as u32).collect::<Vec<_>>(),
            expected
        );
    }
    // `h[bin] += 1`: ld.shared and st.shared of one bin by two threads, unordered.
    let c = case(
        "reductions.ptx",
        "histogram_shared_plain_increment",
        1,
        64,
        args(),
    );
    c.finding(&BOTH, FindingKind::Race, "ld.shared.u32", "st.shared.u32");
}

#[test]
fn syncthreads_count_and_or_reduce_over_the_block() {
    // bar.red.popc / .and / .or: each a barrier of the whole CTA with a reduction.
    let v = input(128);
    let c = case(
        "reductions.ptx",
        "block_vote",
        2,
        64,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 24])],
    );
    let expected: Vec<i32> = v
        .chunks(64)
        .flat_map(|b| {
            let n = b.iter().filter(|&&x| x > 0).count() as i32;
            [n, i32::from(n == 64), i32::from(n > 0)]
        })
        .collect();
    for b in c.clean(&BOTH) {
        assert_eq!(words(&b[1]), expected);
    }
}

// ---- last_block.cu ----

fn last_block(kernel: &'static str) -> (Case, i32) {
    let v = input(256);
    let total = v.iter().sum();
    let c = case(
        "last_block.ptx",
        kernel,
        4,
        64,
        vec![
            Arg::Buffer(ints(&v)),
            Arg::Buffer(vec![0; 16]),
            Arg::Buffer(vec![0; 4]),
        ],
    );
    (c, total)
}

#[test]
fn the_threadfence_last_block_reduction() {
    // As in the CUDA samples: `st.volatile` partial; membar.gl; atom.inc (relaxed, gpu); the
    // last block reads the partials with `ld.volatile` and no fence. PTX view: the partial sums
    // are relaxed.sys accesses of the same words, morally strong: no data race. C++ view: they
    // are plain, and the last block's reads follow a relaxed atomic with no fence after it, no
    // acquire pattern: the `st.volatile` and `ld.volatile` race.
    let (c, total) = last_block("last_block_sum");
    for b in c.clean(&[VolatileMode::RelaxedSys]) {
        assert_eq!(words(&b[2])[0], total);
    }
    c.finding(
        &[VolatileMode::Plain],
        FindingKind::Race,
        "st.volatile.global.u32",
        "ld.volatile.global.u32",
    );
    // Plain partials and a fence on both sides of the ticket: fence.sc; atom (release pattern)
    // read by atom; fence.sc (acquire pattern): the partials are ordered in both views.
    let (c, total) = last_block("last_block_sum_fenced");
    for b in c.clean(&BOTH) {
        assert_eq!(words(&b[2])[0], total);
    }
    // No fence at all: the relaxed ticket orders nothing, the plain partials race.
    let (c, _) = last_block("last_block_sum_unfenced");
    c.finding(&BOTH, FindingKind::Race, "st.global.u32", "ld.global.u32");
}

// ---- locks.cu ----

fn lock(kernel: &'static str) -> Case {
    case("locks.ptx", kernel, 4, 32, vec![Arg::Buffer(vec![0; 4])])
}

#[test]
fn device_scope_locks_are_race_free() {
    // Ticket lock: the holder's `fence.sc.gpu; atom.add` (relaxed, gpu) on `ticket_serving` is
    // a release pattern; the next holder's `ld.volatile` spin (relaxed, sys) then `membar.gl` is
    // an acquire pattern; the spin and the atom are strong with scopes (sys, gpu) that include
    // both threads: morally strong. The plain counter is ordered. In C++'s view the spin is a
    // plain read of a word atomics write: a race.
    let c = lock("ticket_lock");
    for b in c.clean(&[VolatileMode::RelaxedSys]) {
        assert_eq!(words(&b[0])[0], 4);
    }
    c.finding(
        &[VolatileMode::Plain],
        FindingKind::Race,
        "ld.volatile.global.u32",
        "atom.global.add.u32",
    );
    // Spin lock: atom.cas (relaxed, gpu) then fence.sc.gpu acquires; fence.sc.gpu then
    // atom.exch releases; no volatile access, the same verdict in both views.
    let c = lock("spin_lock");
    for b in c.clean(&BOTH) {
        assert_eq!(words(&b[0])[0], 4);
    }
}

#[test]
fn block_scope_locks_across_blocks_race() {
    // `atom.global.cta.*` by threads of different blocks: a cta scope does not include the
    // other thread, so the atomics are not morally strong and race with each other.
    lock("ticket_lock_block_scope").finding(
        &BOTH,
        FindingKind::Race,
        "atom.global.cta.add.u32",
        "atom.global.cta.add.u32",
    );
    lock("spin_lock_block_scope").finding(
        &BOTH,
        FindingKind::Race,
        "atom.global.cta.cas.b32",
        "atom.global.cta.cas.b32",
    );
}

// ---- messages.cu ----

fn message(kernel: &'static str) -> Case {
    case(
        "messages.ptx",
        kernel,
        2,
        32,
        vec![
            Arg::Buffer(vec![0; 4]),
            Arg::Buffer(vec![0; 4]),
            Arg::Buffer(vec![0; 4]),
        ],
    )
}

#[test]
fn volatile_flag_message_passing() {
    // Producer: st data; membar.gl; st.volatile flag — a release pattern (fence.sc.gpu, then a
    // strong write). Consumer: ld.volatile flag until 1; membar.gl; ld data — an acquire
    // pattern. PTX view: no race, data arrives. C++ view: the flag accesses are plain: they race.
    let c = message("volatile_flag_message");
    for b in c.clean(&[VolatileMode::RelaxedSys]) {
        assert_eq!(words(&b[2])[0], 42);
    }
    c.finding(
        &[VolatileMode::Plain],
        FindingKind::Race,
        "st.volatile.global.u32",
        "ld.volatile.global.u32",
    );
}

#[test]
fn a_relaxed_spin_without_a_fence_after_it_does_not_acquire() {
    // The consumer's spin reads the flag (relaxed) and nothing follows it: not an acquire
    // pattern (that needs a fence after the read), so the data read is unordered with the
    // producer's data write, whatever the spin observed.
    let c = message("volatile_flag_message_no_consumer_fence");
    c.finding(&BOTH, FindingKind::Race, "st.global.u32", "ld.global.u32");
}

#[test]
fn named_barrier_producer_consumer_warps() {
    // Warp 0: st.shared; bar.arrive 1, 64. Warp 1: bar.sync 1, 64; ld.shared. The arrive
    // synchronizes with the sync of the same barrier (PTX ISA 8.9): ordered, no race.
    let v = input(32);
    let c = case(
        "messages.ptx",
        "named_barrier_pipeline",
        1,
        64,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 128])],
    );
    for b in c.clean(&BOTH) {
        assert_eq!(
            words(&b[1]),
            v.iter().map(|x| x * 2 + 1).collect::<Vec<_>>()
        );
    }
    // Arriving before writing: the write is after the arrive, unordered with the read.
    let c = case(
        "messages.ptx",
        "named_barrier_pipeline_early_arrive",
        1,
        64,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 128])],
    );
    c.finding(&BOTH, FindingKind::Race, "st.shared.u32", "ld.shared.u32");
    // Barrier ids and counts in registers, four pairs of warps on barriers 1..4 (and nvcc's
    // `[%r3+-128]` address).
    let v = input(256);
    let c = case(
        "messages.ptx",
        "named_barrier_pairs",
        2,
        128,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 1024])],
    );
    let expected: Vec<i32> = (0..256)
        .map(|i| {
            if (i % 128) / 32 % 2 == 1 {
                (v[i - 32] + 1) * 3
            } else {
                0
            }
        })
        .collect();
    for b in c.clean(&BOTH) {
        assert_eq!(words(&b[1]), expected);
    }
}

// ---- warp.cu ----

#[test]
fn warp_intrinsics_compute_as_the_isa_says() {
    let v: Vec<u32> = (0..64u32).map(|i| (i * 37 + 11) % 97).collect();
    let c = case(
        "warp.ptx",
        "warp_intrinsics",
        1,
        64,
        vec![
            Arg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            Arg::Buffer(vec![0; 64 * 32]),
        ],
    );
    let mut expected = Vec::new();
    for w in v.chunks(32) {
        let ballot =
            |f: &dyn Fn(u32) -> bool| (0..32).filter(|&l| f(w[l])).fold(0u32, |m, l| m | 1 << l);
        let all_same = w.iter().all(|&x| x / 64 == w[0] / 64);
        for l in 0..32 {
            expected.extend([
                if l < 3 { w[l] } else { w[l - 3] },
                w[l ^ 5],
                w[(l & !7) + 2],
                ballot(&|x| x & 1 == 1),
                u32::from(w.iter().all(|&x| x < 100)) | u32::from(w.contains(&7)) << 1 | 4,
                ballot(&|x| x % 4 == w[l] % 4),
                if all_same { u32::MAX } else { 0 },
                w.iter().sum::<u32>() ^ w.iter().max().unwrap() ^ w.iter().fold(0, |a, x| a | x),
            ]);
        }
    }
    for b in c.clean(&BOTH) {
        let got: Vec<u32> = words(&b[1]).iter().map(|&x| x as u32).collect();
        assert_eq!(got, expected);
    }
}

#[test]
fn activemask_in_a_branch_and_syncwarp_reconvergence() {
    // Lanes 0..15 shuffle among `activemask()` = 0x0000ffff with width 16 while lanes 16..31
    // wait at `bar.warp.sync 0xffffffff` (__syncwarp) for them: legal, no finding.
    let v: Vec<u32> = (0..32u32).map(|i| i * i + 1).collect();
    let c = case(
        "warp.ptx",
        "warp_partial_mask",
        1,
        32,
        vec![
            Arg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            Arg::Buffer(vec![0; 128]),
        ],
    );
    let expected: Vec<u32> = (0..32)
        .map(|l| match l {
            0..15 => v[l] + v[l + 1],
            15 => 2 * v[15],
            _ => v[l],
        })
        .collect();
    for b in c.clean(&BOTH) {
        assert_eq!(
            words(&b[1]).iter().map(|&x| x as u32).collect::<Vec<_>>(),
            expected
        );
    }
}

#[test]
fn syncwarp_orders_shared_memory_and_its_absence_races() {
    // bar.warp.sync orders the memory accesses of its lanes (PTX ISA bar.warp.sync); without
    // it the st.shared of lane 31 - l and the ld.shared of lane l are unordered.
    let v: Vec<u32> = (0..32).collect();
    let args = || {
        vec![
            Arg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            Arg::Buffer(vec![0; 128]),
        ]
    };
    for b in case("warp.ptx", "warp_exchange_syncwarp", 1, 32, args()).clean(&BOTH) {
        assert_eq!(words(&b[1]), (0..32).rev().collect::<Vec<i32>>());
    }
    case("warp.ptx", "warp_exchange_no_syncwarp", 1, 32, args()).finding(
        &BOTH,
        FindingKind::Race,
        "st.shared.u32",
        "ld.shared.u32",
    );
}

#[test]
fn vote_masks_that_exclude_the_lane_or_differ_are_findings() {
    let args = || vec![Arg::Buffer(vec![1; 128]), Arg::Buffer(vec![0; 128])];
    // Lanes 16..31 pass 0x0000ffff: a mask without the executing lane.
    let c = case("warp.ptx", "warp_ballot_foreign_mask", 1, 32, args());
    c.finding(
        &BOTH,
        FindingKind::Fault,
        "vote.sync.ballot.b32",
        "vote.sync.ballot.b32",
    );
    // Lanes 0..15 pass 0xffffffff, lanes 16..31 0xffff0000, at the same instruction: lanes
    // named by a mask execute it with another mask. Seen whenever the lanes wait together,
    // always in warp lockstep.
    let c = case("warp.ptx", "warp_ballot_mismatched_masks", 1, 32, args());
    for v in BOTH {
        let o = c.run(v, 1, Mode::WarpLockstep);
        let f = o.findings.last().expect("a finding");
        assert_eq!(f.kind, FindingKind::Divergence, "{f}");
        assert!(
            f.text.contains("0xffffffff") && f.text.contains("0xffff0000"),
            "{f}"
        );
    }
}

// ---- calls.cu ----

fn weighted_digits(mut x: i32) -> i32 {
    let mut d = Vec::new();
    while x != 0 {
        d.push(x % 10);
        x /= 10;
    }
    d.iter().enumerate().map(|(i, v)| v * (i as i32 + 1)).sum()
}

#[test]
fn non_inlined_functions_with_local_arrays() {
    let v: Vec<i32> = (0..32).map(|i| (i - 16) * 123_457 + i).collect();
    let c = case(
        "calls.ptx",
        "call_functions",
        1,
        32,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 256])],
    );
    let expected: Vec<i32> = v
        .iter()
        .flat_map(|&x| {
            let b = i64::from(x) * 1_000_003;
            [weighted_digits(x), ((b >> 32) as i32) ^ (b as i32)]
        })
        .collect();
    for b in c.clean(&BOTH) {
        assert_eq!(words(&b[1]), expected);
    }
}

#[test]
fn the_device_heap_gives_each_thread_a_block_and_takes_it_back() {
    // `malloc`/`free` are the toolkit's, declared and not defined: each `malloc` is a block of
    // its own, written and read only by its thread (no race); after `free` the block is gone.
    let n = [5, 0, 9, 3];
    let c = case(
        "calls.ptx",
        "heap_sum",
        1,
        4,
        vec![Arg::Buffer(ints(&n)), Arg::Buffer(vec![0; 16])],
    );
    for b in c.clean(&BOTH) {
        let expected: Vec<i32> = (0..4)
            .map(|t| t * (0..n[t as usize]).sum::<i32>())
            .collect();
        assert_eq!(words(&b[1]), expected);
    }
    let c = case(
        "calls.ptx",
        "use_after_free",
        1,
        2,
        vec![Arg::Buffer(vec![0; 8])],
    );
    let o = c.run(VolatileMode::RelaxedSys, 1, Mode::Random);
    let f = o.findings.last().expect("a fault");
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(
        f.text.contains("of `malloc'd block") && f.text.contains("`, after its free"),
        "{f}"
    );
}

#[test]
fn printf_prints_with_the_thread() {
    let v = [5, -7, 0, 0, 1_000_000, 3, 0, 0];
    let c = case(
        "calls.ptx",
        "print_values",
        2,
        4,
        vec![Arg::Buffer(ints(&v))],
    );
    let o = c.run(VolatileMode::RelaxedSys, 1, Mode::Random);
    assert!(o.completed, "{:?}", o.findings);
    let mut lines = o.printed.clone();
    lines.sort();
    let line = |b: usize, t: usize| {
        let x = v[b * 4 + t];
        format!(
            "({b},{t}) v={x} u={} x={:x} f={:.2} s=ok c={} l={} %",
            x as u32,
            x as u32,
            f64::from(x) * 0.5,
            (b'A' + t as u8) as char,
            i64::from(x as u32) << 33
        )
    };
    assert_eq!(lines, [line(0, 0), line(0, 1), line(1, 0), line(1, 1)]);
}

#[test]
fn the_read_only_path_must_not_see_writes() {
    // ld.global.nc of words nobody writes: fine.
    let v = input(64);
    let c = case(
        "calls.ptx",
        "read_only_input",
        2,
        32,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 256])],
    );
    for b in c.clean(&BOTH) {
        assert_eq!(
            words(&b[1]),
            (0..64).map(|i| v[i] + v[(i + 1) % 64]).collect::<Vec<_>>()
        );
    }
    // Block 0 writes buf[0] while block 1 reads it through ld.global.nc: outside the memory
    // model (PTX ISA 8.1), a finding whatever the order.
    let c = case(
        "calls.ptx",
        "read_only_written",
        2,
        32,
        vec![Arg::Buffer(vec![0; 4]), Arg::Buffer(vec![0; 4])],
    );
    c.finding(
        &BOTH,
        FindingKind::Race,
        "st.global.u32",
        "ld.global.nc.u32",
    );
}

fn u32s(b: &[u8]) -> Vec<u32> {
    words(b).iter().map(|&x| x as u32).collect()
}

#[test]
fn integer_operations_of_optimised_code() {
    let d = 5u32;
    let v: Vec<u32> = (0..32u32)
        .map(|i| i.wrapping_mul(2_246_822_519).rotate_left(i))
        .collect();
    let c = case(
        "calls.ptx",
        "integer_ops",
        1,
        32,
        vec![
            Arg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            Arg::Buffer(vec![0; 32 * 48]),
            Arg::U32(d),
        ],
    );
    let perm = |a: u32, b: u32, s: u32| {
        let bytes = u64::from(a) | u64::from(b) << 32;
        (0..4).fold(0u32, |r, k| {
            r | (((bytes >> (8 * ((s >> (4 * k)) & 7))) & 0xff) as u32) << (8 * k)
        })
    };
    let mut expected = Vec::new();
    for (i, &a) in v.iter().enumerate() {
        let b = a.wrapping_mul(2_654_435_761).wrapping_add(12345);
        let w = u64::from(a) * u64::from(b);
        let ffs = if a == 0 { 0 } else { a.trailing_zeros() + 1 };
        let sad = (a as i32).abs_diff(b as i32).wrapping_add(1);
        expected.extend([
            perm(a, b, 0x5140),
            (a >> 5) & 0x3ff,
            (a & !(0xff << 8)) | ((b & 0xff) << 8),
            a.count_ones()
                .wrapping_add(b.leading_zeros())
                .wrapping_add(ffs)
                .wrapping_add(b.reverse_bits()),
            (w >> 32) as u32,
            ((w >> 32) as u32).wrapping_add(w as u32),
            a / (d + i as u32 % 7) + b % (d + 3),
            (((a as i32) / -(d as i32 + 1)) as u32)
                .wrapping_add(((b as i32) % (d as i32 + 2)) as u32),
            a.min(b) ^ (a as i32).max(b as i32) as u32,
            (a.wrapping_sub(b) as i32).unsigned_abs().wrapping_add(sad),
            31 - (a | 1).leading_zeros(),
            ((u64::from(b) << 32 | u64::from(a)) << (d & 31) >> 32) as u32,
        ]);
    }
    for b in c.clean(&[VolatileMode::RelaxedSys]) {
        assert_eq!(u32s(&b[1]), expected);
    }
}

#[test]
fn float_operations_of_optimised_code() {
    use half::{bf16, f16};
    let v: Vec<f32> = (0..32).map(|i| (i as f32 - 13.5) * 0.37).collect();
    let c = case(
        "calls.ptx",
        "float_ops",
        1,
        32,
        vec![
            Arg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            Arg::Buffer(vec![0; 32 * 48]),
        ],
    );
    let mut expected = Vec::new();
    for &x in &v {
        let y = x * 0.75 + 1.0;
        let h = [f16::from_f32(x), f16::from_f32(y)];
        let h2 = h.map(|e| f16::from_f64(e.to_f64() * e.to_f64() + 0.5));
        let bf = [bf16::from_f32(x), bf16::from_f32(y)].map(|e| e.to_f32() * 2.0);
        let dx = f64::from(x);
        expected.extend([
            x.abs().sqrt() + 1.0 / (y * y + 1.0).sqrt(),
            (x * 0.01).exp() + (y * y + 1.0).ln(),
            x / y + x / y,
            x.mul_add(y, 1.0) + (x + y) + x * y,
            x.min(y) - x.max(y) + 2f32.copysign(x),
            if (x * 3.7).round_ties_even() as i32 == 0 {
                1.0
            } else {
                x.trunc()
            },
            (x * 0.1).clamp(0.0, 1.0) + f32::from((x.abs().round_ties_even() as u32) as u8),
            h2[0].to_f32() + f16::from_f64(h[1].to_f64() * h2[1].to_f64()).to_f32(),
            bf[0] - bf[1],
            ((dx * dx + 2.0).sqrt() + 1.0 / (dx + 3.5)) as f32,
            (x * 0.1).exp2() + (y * y + 1.0).log2() + x.sin() * y.cos(),
            f32::from(u8::from(x > y)) + if (x / y).is_nan() { 100.0 } else { 0.0 },
        ]);
    }
    for b in c.clean(&[VolatileMode::RelaxedSys]) {
        let got: Vec<f32> = b[1]
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert!(
                (g - e).abs() <= 1e-4 * e.abs().max(1.0),
                "word {k} (thread {}, output {}): {g} vs {e}",
                k / 12,
                k % 12
            );
        }
    }
}

#[test]
fn vector_accesses_dynamic_shared_and_constant_tables() {
    let f: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    let p: Vec<i32> = (0..64).collect();
    let c = case(
        "calls.ptx",
        "vector_copy",
        1,
        32,
        vec![
            Arg::Buffer(f.iter().flat_map(|x| x.to_le_bytes()).collect()),
            Arg::Buffer(vec![0; 512]),
            Arg::Buffer(ints(&p)),
            Arg::Buffer(vec![0; 256]),
        ],
    );
    for b in c.clean(&BOTH) {
        let got: Vec<f32> = b[1]
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let want: Vec<f32> = f
            .chunks(4)
            .flat_map(|q| [q[3], q[2] * 2.0, q[1], q[0] + 1.0])
            .collect();
        assert_eq!(got, want);
        assert_eq!(
            words(&b[3]),
            p.chunks(2).flat_map(|q| [q[1], q[0]]).collect::<Vec<_>>()
        );
    }
    let v = input(128);
    let mut c = case(
        "calls.ptx",
        "dynamic_shared_rotate",
        2,
        64,
        vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 512])],
    );
    c.dynamic_shared = 256;
    for b in c.clean(&BOTH) {
        assert_eq!(
            words(&b[1]),
            (0..128)
                .map(|i| v[i / 64 * 64 + (i % 64 + 1) % 64])
                .collect::<Vec<_>>()
        );
    }
    // Without the dynamic shared memory the kernel needs: a fault naming the shared access.
    c.dynamic_shared = 0;
    let o = c.run(VolatileMode::RelaxedSys, 1, Mode::Random);
    assert!(
        o.findings
            .last()
            .is_some_and(|f| f.kind == FindingKind::Fault && f.text.contains("shared")),
        "{:?}",
        o.findings
    );
    let idx: Vec<i32> = (0..32).map(|i| i * 5 % 11).collect();
    let table = [3, 1, 4, 1, 5, 9, 2, 6];
    let c = case(
        "calls.ptx",
        "constant_table",
        1,
        32,
        vec![Arg::Buffer(ints(&idx)), Arg::Buffer(vec![0; 128])],
    );
    for b in c.clean(&BOTH) {
        assert_eq!(
            words(&b[1]),
            idx.iter()
                .map(|&i| table[i as usize % 8] * 10)
                .collect::<Vec<_>>()
        );
    }
}

// ---- async.cu ----

/// A kernel of `async.cu` over 64 threads: the input (128 words) and a 64-word output.
fn copy_case(kernel: &'static str) -> (Case, Vec<i32>) {
    let v = input(128);
    let args = vec![Arg::Buffer(ints(&v)), Arg::Buffer(vec![0; 256])];
    (case("async.ptx", kernel, 1, 64, args), v)
}

#[test]
fn async_copies_waited_for_are_race_free_and_land() {
    // `cp.async` is a weak read of the source and a weak write of the destination by the
    // issuing thread, performed asynchronously (PTX ISA, "cp.async"): `cp.async.wait_group` /
    // `wait_all` order the thread's completed copies before its later accesses, and from there
    // `bar.sync` orders them before the other threads' reads. With `cp.async.mbarrier.arrive`
    // the copies complete before the mbarrier's arrive, whose phase completion the
    // `mbarrier.test_wait` loop observes (acquire at CTA scope). No volatile access: both views
    // agree.
    let (c, v) = copy_case("pipeline_reverse");
    for b in c.clean(&BOTH) {
        let expected: Vec<i32> = (0..64).map(|t| v[63 - t]).collect();
        assert_eq!(words(&b[1]), expected);
    }
    let (c, v) = copy_case("pipeline_two_stages");
    for b in c.clean(&BOTH) {
        let expected: Vec<i32> = (0..64).map(|t| v[t] * 1000 + v[64 + t]).collect();
        assert_eq!(words(&b[1]), expected);
    }
    let (c, v) = copy_case("block_memcpy_async");
    for b in c.clean(&BOTH) {
        let expected: Vec<i32> = (0..64).map(|t| 2 * v[63 - t]).collect();
        assert_eq!(words(&b[1]), expected);
    }
    let (c, v) = copy_case("barrier_memcpy_async");
    for b in c.clean(&BOTH) {
        let expected: Vec<i32> = (0..64).map(|t| v[63 - t] + 1).collect();
        assert_eq!(words(&b[1]), expected);
    }
}

#[test]
fn a_copy_not_waited_for_races_with_the_read_after_the_barrier() {
    // Without `cp.async.wait_group`, nothing orders thread 63-t's copy into `s[63-t]` before
    // thread t's read of it: `bar.sync` orders the threads' own accesses, not copies in flight.
    let (c, _) = copy_case("pipeline_without_wait");
    c.finding(
        &BOTH,
        FindingKind::Race,
        "ld.shared.u32",
        "cp.async.ca.shared.global",
    );
}

#[test]
fn dp4a_and_dp2a_compute_as_the_isa_says() {
    // dp4a.s32.s32, dp2a.lo.s32.s32 and dp4a.u32.u32 by the ISA's definition, computed here
    // byte by byte (each operand extended by its type, the sum modulo 2^32).
    let a: Vec<i32> = (0..32u32)
        .map(|t| t.wrapping_mul(0x0133_7f81).wrapping_add(0x7f80_01ff) as i32)
        .collect();
    let b: Vec<u32> = (0..32)
        .map(|t| 0x80ff_017f_u32.rotate_left(t as u32))
        .collect();
    let args = vec![
        Arg::Buffer(ints(&a)),
        Arg::Buffer(b.iter().flat_map(|x| x.to_le_bytes()).collect()),
        Arg::Buffer(vec![0; 32 * 12]),
    ];
    let c = case("async.ptx", "dot_products", 1, 32, args);
    let byte = |x: u32, k: u32, signed: bool| -> i64 {
        let v = (x >> (8 * k)) & 0xff;
        if signed {
            v as u8 as i8 as i64
        } else {
            v as i64
        }
    };
    let half = |x: u32, k: u32| -> i64 { (x >> (16 * k)) as u16 as i16 as i64 };
    for buffers in c.clean(&BOTH) {
        let out = words(&buffers[2]);
        for t in 0..32 {
            let (x, y) = (a[t] as u32, b[t]);
            let dp4 = |signed| {
                (0..4)
                    .map(|k| byte(x, k, signed) * byte(y, k, signed))
                    .sum::<i64>()
            };
            let dp2_lo = half(x, 0) * byte(y, 0, true) + half(x, 1) * byte(y, 1, true);
            assert_eq!(out[3 * t], (10 + dp4(true)) as i32, "dp4a.s32 lane {t}");
            assert_eq!(out[3 * t + 1], dp2_lo as i32, "dp2a.lo lane {t}");
            assert_eq!(
                out[3 * t + 2],
                dp4(false) as u32 as i32,
                "dp4a.u32 lane {t}"
            );
        }
    }
}

// ---- grid.cu ----

#[test]
fn grid_sync_in_a_cooperative_launch_orders_the_whole_grid() {
    // cooperative groups' `grid.sync()`: a `bar.sync`, then one thread per block adds to the
    // workspace's arrival word (`atom.add.release.gpu`) and spins on it (`ld.acquire.gpu`)
    // until the grid's count flips its top bit, then `bar.sync` again. The release/acquire
    // pair at gpu scope between the blocks' leaders, with the block barriers around it, orders
    // every write before the barrier before every read after it: no race in either view.
    let c = |kernel| {
        case(
            "grid.ptx",
            kernel,
            3,
            8,
            vec![Arg::Buffer(vec![0; 96]), Arg::Buffer(vec![0; 96])],
        )
    };
    let cooperative = |kernel, seed| {
        let k = sim("grid.ptx").kernel(kernel).unwrap();
        let mut l = Launch::new(
            [3, 1, 1],
            [8, 1, 1],
            vec![Arg::Buffer(vec![0; 96]), Arg::Buffer(vec![0; 96])],
        );
        l.cooperative = true;
        l.seed = seed;
        k.launch(&l, Vec::new()).unwrap()
    };
    for seed in 1..=3 {
        let o = cooperative("grid_rotate", seed);
        assert!(o.completed && o.findings.is_empty(), "{:?}", o.findings);
        let expected: Vec<i32> = (0..24).map(|r| (r + 1) % 24 * 10).collect();
        assert_eq!(words(&o.buffers[1]), expected);
    }
    // Not a cooperative launch: the workspace pointer is null and `grid.sync()` traps, as the
    // driver's would.
    let o = c("grid_rotate").run(VolatileMode::RelaxedSys, 1, Mode::Random);
    let f = o.findings.last().expect("a trap");
    assert!(
        f.kind == FindingKind::Fault && f.text.contains("trap"),
        "{f}"
    );
    // Only `__syncthreads()`: the last thread of a block reads the next block's first word,
    // written by another CTA with nothing ordering the two plain accesses.
    let o = cooperative("block_sync_rotate", 1);
    assert!(
        o.findings
            .iter()
            .any(|f| f.kind == FindingKind::Race && f.text.contains("`ld.global.u32`")),
        "{:?}",
        o.findings
    );
}

// ---- the corpus and nvcc ----

#[test]
fn every_corpus_kernel_decodes() {
    for file in [
        "reductions.ptx",
        "last_block.ptx",
        "locks.ptx",
        "messages.ptx",
        "warp.ptx",
        "calls.ptx",
        "async.ptx",
        "grid.ptx",
    ] {
        let sim = sim(file);
        let names: Vec<String> = sim.kernels().map(String::from).collect();
        assert!(!names.is_empty(), "{file}");
        for k in names {
            sim.kernel(&k).unwrap_or_else(|e| panic!("{file} {k}: {e}"));
        }
    }
}

fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// nvcc from `tools/paths.env` (`NVCC_13`), if installed.
fn nvcc(root: &Path) -> Option<PathBuf> {
    let env = std::fs::read_to_string(root.join("tools/paths.env")).ok()?;
    let rel = env.lines().find_map(|l| l.strip_prefix("NVCC_13="))?.trim();
    let path = root.join(rel);
    path.is_file().then_some(path)
}

#[test]
fn checked_in_ptx_is_what_nvcc_emits() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(nvcc) = nvcc(&root) else {
        let why = "nvcc 13.5 (NVCC_13 in tools/paths.env) is not installed";
        assert!(
            !on_ci(),
            "checked_in_ptx_is_what_nvcc_emits: {why}; with CI=true the tools must be installed (run bash tools/install.sh)"
        );
        eprintln!("SKIPPED checked_in_ptx_is_what_nvcc_emits: {why} (run bash tools/install.sh)");
        return;
    };
    let out = std::env::temp_dir().join(format!("sim-cuda-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let bless = std::env::var_os("SIM_CUDA_BLESS").is_some();
    for name in [
        "reductions",
        "last_block",
        "locks",
        "messages",
        "warp",
        "calls",
        "async",
        "grid",
    ] {
        // Compiled from a copy in a temporary folder: nvcc names internal-linkage symbols
        // `_INTERNAL_<hash of the source's path>_…`, so a checkout anywhere else (CI's) must
        // still compare equal; compiling elsewhere here keeps that tested on this machine too.
        let source = format!("{name}.cu");
        std::fs::copy(dir().join(&source), out.join(&source)).unwrap();
        let ptx = out.join(format!("{name}.ptx"));
        let status = std::process::Command::new(&nvcc)
            .args(["-O3", "-arch=sm_80", "-ptx", &source, "-o"])
            .arg(&ptx)
            .current_dir(&out)
            .status()
            .unwrap();
        assert!(status.success(), "nvcc failed on {name}.cu");
        let fresh = std::fs::read_to_string(&ptx).unwrap();
        let file = dir().join(format!("{name}.ptx"));
        let kept = std::fs::read_to_string(&file).unwrap();
        let header: String = kept.lines().take(3).map(|l| format!("{l}\n")).collect();
        assert!(
            header.contains(&format!(
                "nvcc -O3 -arch=sm_80 -ptx {name}.cu -o {name}.ptx"
            )),
            "{name}.ptx header"
        );
        if bless {
            std::fs::write(&file, format!("{header}{fresh}")).unwrap();
        } else {
            assert!(
                without_path_hashes(&kept[header.len()..]) == without_path_hashes(&fresh),
                "{name}.ptx differs from what nvcc emits for {name}.cu (SIM_CUDA_BLESS=1 rewrites it)"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_failed_assert_is_a_fault_naming_it() {
    // `assert` is a call of the toolkit's `__assertfail`: the thread stops, a fault.
    let args = |v: &[i32]| vec![Arg::Buffer(ints(v)), Arg::Buffer(vec![0; 16])];
    let c = case("calls.ptx", "assert_zero", 1, 4, args(&[0, 0, 0, 0]));
    for b in c.clean(&BOTH) {
        assert_eq!(words(&b[1]), [1, 1, 1, 1]);
    }
    let c = case("calls.ptx", "assert_zero", 1, 4, args(&[0, 0, 5, 0]));
    let o = c.run(VolatileMode::RelaxedSys, 1, Mode::Random);
    let f = o.findings.last().expect("a fault");
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(
        f.text.starts_with("fault: (0,2)")
            && f.text
                .contains("assertion `in[threadIdx.x] == 0` failed (calls.cu:")
            && f.text.contains("assert_zero"),
        "{f}"
    );
}
