//! Issue 29, checked from outside: scratch kernel crates that use the library's *public* API the
//! way a user would, built for the device and run in the simulator, for the findings whose
//! existing tests run hand-written PTX rather than what the library emits:
//!
//! * item 1: a view promised shared (`from_shared_ptr`) but given another block's window
//!   (`map_shared_rank`) sends `.shared` operations to another CTA: the simulator faults;
//! * item 2: a hardware barrier's last arriver that arrives again before any wait saw the phase
//!   end (`init_in_place(p, 1); arrive(); arrive(); arrive()`) is the simulator's fault, on `SharedBarrier`
//!   and on `Barrier<Block>`; `Barrier::<Block>::new` above `max()` traps on sm_80+ (and not on
//!   sm_70, where `max()` is 2³¹ − 1), and in a `static` is a compile error there; a token
//!   waited on at another hardware barrier (`SharedBarrier` at `SharedBarrier`, `Barrier<Device>`
//!   at `SharedBarrier`) traps;
//! * item 3: `cluster_sync` with a block that returned before it completes; a lane that arrives
//!   and then releases a flag another lane of its warp spins on before its own `cluster_sync` is
//!   the simulator's hang (the warp rendezvous of `barrier.cluster.arrive`);
//!   `cluster_arrive_relaxed` is the relaxed form on sm_90a and with `+ptx80`.
//!
//! Skipped without the tools (a failure with `CI=true`), as the other device checks.

mod scratch;

use scoped_atomics_host::ptx::Target;
use scoped_atomics_host::sim::{Arg, FindingKind, Launch, Mode, Outcome, Simulator};

const BARRIERS: &str = r#"

/// The last (only) arriver arrives again and again before anyone waited: safe code. (The
/// second arrival may be defined — on sm_80+ each `arrive` reads the phase's parity with an
/// `mbarrier.test_wait.parity` of parity 0 first, which returns true once phase 0 is complete —
/// but that probe cannot see phase 1 complete, so the third arrival breaks the PTX rule.)
#[scoped_atomics::kernel]
pub fn shared_arrive_thrice() {
    let b = shared_barrier(1);
    let _ = b.arrive();
    let _ = b.arrive();
    let _ = b.arrive();
}

#[scoped_atomics::kernel]
pub fn block_arrive_thrice() {
    let b = block_barrier(1);
    let _ = b.arrive();
    let _ = b.arrive();
    let _ = b.arrive();
}

/// The same with the wait in between: the rule kept.
#[scoped_atomics::kernel]
pub fn shared_arrive_wait_arrive() {
    let b = shared_barrier(1);
    let t = b.arrive();
    b.wait(t);
    let _ = b.arrive();
}

#[scoped_atomics::kernel]
pub fn block_arrive_wait_arrive() {
    let b = block_barrier(1);
    let t = b.arrive();
    b.wait(t);
    let _ = b.arrive();
}

/// A token of one `SharedBarrier` waited on at another (both hardware barriers of the block).
#[scoped_atomics::kernel]
pub fn shared_token_at_another_shared() {
    let places = scoped_atomics::block_shared!(PAIR: [SharedBarrier; 2]).cast::<SharedBarrier>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe {
            SharedBarrier::init_in_place(places, 2);
            SharedBarrier::init_in_place(places.add(1), 2);
        }
    }
    sync_threads();
    // SAFETY: initialised above, for the life of the block.
    let (a, b) = unsafe { (&*places, &*places.add(1)) };
    let token = a.arrive();
    b.wait(token);
}

/// A `Barrier<Device>`'s token (global memory) waited on at a `SharedBarrier`.
#[scoped_atomics::kernel]
pub fn device_token_at_shared(device: *const Barrier<scoped_atomics::Device>) {
    let shared = shared_barrier(2);
    // SAFETY: the launcher passes a live device barrier.
    let token = unsafe { &*device }.arrive();
    shared.wait(token);
}

/// A block barrier of `expected` made at run time (it must not fold away: it is used).
#[scoped_atomics::kernel]
pub fn block_new(expected: u32, out: *mut u32) {
    let b = Barrier::<Block>::new(expected);
    let _ = core::hint::black_box(&b);
    // SAFETY: the launcher passes one word.
    unsafe { out.write(Barrier::<Block>::max()) };
}
"#;

const STATIC_OVER_MAX: &str = r#"
use scoped_atomics::{Barrier, Block};
pub static OVER: Barrier<Block> = Barrier::new(1 << 20);
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn use_it() { OVER.arrive_and_wait(); }
"#;

const CLUSTERS: &str = r#"
use scoped_atomics::kernel::{cluster_arrive, cluster_rank, cluster_sync, lane_id, map_shared_rank, thread_idx};
use scoped_atomics::{block_shared, AtomicRef, Cluster, Device, Ordering};

/// Each thread reads its neighbour block's word through a view it *promises* is its own block's
/// shared memory (the `unsafe` contract broken): the `.shared` form reaches another CTA.
#[scoped_atomics::kernel]
pub fn shared_view_of_a_neighbour(out: *mut u32) {
    let own = block_shared!(WORD: [u32; 1]).cast::<u32>();
    if thread_idx().x == 0 {
        // SAFETY: this block's shared word.
        unsafe { AtomicRef::<u32, Cluster>::from_shared_ptr(own) }.store(1, Ordering::Relaxed);
    }
    cluster_sync();
    let next = map_shared_rank(own, (cluster_rank() + 1) % 2);
    // Broken promise: `next` is the other block's word.
    let v = unsafe { AtomicRef::<u32, Cluster>::from_shared_ptr(next) }.load(Ordering::Relaxed);
    // SAFETY: one word per thread of the grid.
    unsafe { out.add(scoped_atomics::kernel::index_1d()).write(v) };
    cluster_sync();
}

/// As above with the generic view the contract allows: fine.
#[scoped_atomics::kernel]
pub fn generic_view_of_a_neighbour(out: *mut u32) {
    let own = block_shared!(WORD2: [u32; 1]).cast::<u32>();
    if thread_idx().x == 0 {
        // SAFETY: this block's shared word.
        unsafe { AtomicRef::<u32, Cluster>::from_ptr(own) }.store(1, Ordering::Relaxed);
    }
    cluster_sync();
    let next = map_shared_rank(own, (cluster_rank() + 1) % 2);
    // SAFETY: a block-shared word of a block of the cluster, alive until the sync below.
    let v = unsafe { AtomicRef::<u32, Cluster>::from_ptr(next) }.load(Ordering::Relaxed);
    // SAFETY: one word per thread of the grid.
    unsafe { out.add(scoped_atomics::kernel::index_1d()).write(v) };
    cluster_sync();
}

/// Block rank 1 returns at once; the others `cluster_sync` twice.
#[scoped_atomics::kernel]
pub fn rank_one_returns() {
    if cluster_rank() == 1 {
        return;
    }
    cluster_sync();
    cluster_sync();
}

/// Lane 0 arrives, then raises the flag lane 1 spins on before its own `cluster_sync`: the
/// arrive waits for lane 1 on a GPU, so this hangs there.
#[scoped_atomics::kernel]
pub fn arrive_then_release(flag: *mut u32) {
    // SAFETY: the launcher passes a word of global memory, accessed atomically only.
    let flag = unsafe { AtomicRef::<u32, Device>::from_ptr(flag) };
    if lane_id() == 0 {
        // SAFETY: waited for below, before any other arrival.
        let arrival = unsafe { cluster_arrive() };
        flag.store(1, Ordering::Release);
        arrival.wait();
    } else {
        while flag.load(Ordering::Acquire) == 0 {}
        cluster_sync();
    }
}
"#;

fn prelude_and(kernels: &str) -> String {
    format!("{}{kernels}", scratch::PRELUDE)
}

/// The PTX of `source` (a scratch crate `name`) for `target`; `None` without the tools.
fn ptx(name: &str, source: &str, target: Target) -> Option<String> {
    let tc = scratch::toolchain("device_issue29_outside")?;
    let dir = scratch::crate_dir(&tc, name, ", default-features = false", source);
    Some(scratch::ptx(&tc, &dir, target).0)
}

fn run(ptx: &str, kernel: &str, launch: &Launch) -> Outcome {
    let sim = Simulator::new(ptx).expect("the simulator reads the PTX");
    sim.kernel(kernel)
        .expect("the kernel")
        .launch(launch, Vec::new())
        .expect("the launch runs")
}

const HARDWARE_TARGETS: [Target; 2] = [Target::Sm80, Target::Sm90];

#[test]
fn a_hardware_barriers_last_arriver_arriving_again_unobserved_is_a_fault() {
    for target in HARDWARE_TARGETS {
        let Some(ptx) = ptx(
            "issue29-barriers",
            &prelude_and(&format!("{}{BARRIERS}", scratch::BARRIER_HELPERS)),
            target,
        ) else {
            return;
        };
        let one = Launch::new([1, 1, 1], [1, 1, 1], Vec::new());
        for kernel in ["shared_arrive_thrice", "block_arrive_thrice"] {
            let out = run(&ptx, kernel, &one);
            let f = out.findings.first();
            assert!(
                f.is_some_and(|f| f.kind == FindingKind::Fault
                    && f.text
                        .contains("no test_wait or try_wait has returned true")),
                "{target} {kernel}: {:?}",
                out.findings
            );
        }
        for kernel in ["shared_arrive_wait_arrive", "block_arrive_wait_arrive"] {
            let out = run(&ptx, kernel, &one);
            assert!(
                out.findings.is_empty() && out.completed,
                "{target} {kernel}: {:?}",
                out.findings
            );
        }
    }
}

/// A `Barrier<Device>::new(2)` as the bytes of its two words (count word: guard, 2 missing,
/// expected 2; phase word 0).
fn device_barrier_of_two() -> Vec<u8> {
    let count: u64 = (0x8000_0002u64 << 32) | 2;
    let mut bytes = count.to_le_bytes().to_vec();
    bytes.extend_from_slice(&0u64.to_le_bytes());
    bytes
}

/// Item 2: a token waited on at a barrier it did not arrive at traps on the hardware paths too
/// (`device_barrier_misuse` runs a `SharedBarrier`'s token at a `Barrier<Device>`).
#[test]
fn a_token_at_another_hardware_barrier_traps() {
    for target in HARDWARE_TARGETS {
        let Some(ptx) = ptx(
            "issue29-barriers",
            &prelude_and(&format!("{}{BARRIERS}", scratch::BARRIER_HELPERS)),
            target,
        ) else {
            return;
        };
        let out = run(
            &ptx,
            "shared_token_at_another_shared",
            &Launch::new([1; 3], [1, 1, 1], Vec::new()),
        );
        assert!(
            out.findings
                .first()
                .is_some_and(|f| f.text.contains("trap")),
            "{target} shared at shared: {:?}",
            out.findings
        );
        let mut l = Launch::new([1; 3], [1, 1, 1], vec![Arg::Ptr(0, 0)]);
        l.buffers = vec![device_barrier_of_two()];
        let out = run(&ptx, "device_token_at_shared", &l);
        assert!(
            out.findings
                .first()
                .is_some_and(|f| f.text.contains("trap")),
            "{target} device at shared: {:?}",
            out.findings
        );
    }
}

#[test]
fn a_block_barrier_above_max_traps_where_max_is_the_hardwares() {
    for target in [Target::Sm70, Target::Sm80, Target::Sm90] {
        let Some(ptx) = ptx(
            "issue29-barriers",
            &prelude_and(&format!("{}{BARRIERS}", scratch::BARRIER_HELPERS)),
            target,
        ) else {
            return;
        };
        let launch = |expected: u32| {
            let mut l = Launch::new(
                [1, 1, 1],
                [1, 1, 1],
                vec![Arg::U32(expected), Arg::Ptr(0, 0)],
            );
            l.buffers = vec![vec![0; 4]];
            l
        };
        let hardware = target != Target::Sm70;
        let max = if hardware {
            (1 << 20) - 1
        } else {
            (1 << 31) - 1
        };
        let out = run(&ptx, "block_new", &launch(max));
        assert!(
            out.findings.is_empty(),
            "{target} new(max()): {:?}",
            out.findings
        );
        assert_eq!(
            u32::from_le_bytes(out.buffers[0][..4].try_into().unwrap()),
            max,
            "{target}"
        );
        let out = run(&ptx, "block_new", &launch(max + 1));
        assert!(
            out.findings
                .first()
                .is_some_and(|f| f.text.contains("trap")),
            "{target} new(max() + 1): {:?}",
            out.findings
        );
        if hardware {
            // Between the two limits: refused on the hardware targets.
            let out = run(&ptx, "block_new", &launch(1 << 20));
            assert!(!out.findings.is_empty(), "{target} new(2^20)");
        }
    }
}

#[test]
fn a_static_block_barrier_above_the_hardware_max_is_a_compile_error_on_sm_80() {
    let Some(tc) = scratch::toolchain("device_issue29_outside") else {
        return;
    };
    let source = format!("{}{STATIC_OVER_MAX}", scratch::PRELUDE);
    let dir = scratch::crate_dir(
        &tc,
        "issue29-static-over-max",
        ", default-features = false",
        &source,
    );
    let stderr = scratch::compile_error(&tc, &dir, Target::Sm80, "Barrier::<Block>::new(1 << 20)");
    assert!(
        stderr
            .contains("Barrier::new: the expected count 1048576 is above Barrier::max() = 1048575"),
        "{stderr}"
    );
    // On sm_70 `max()` is 2^31 - 1: it builds.
    let _ = scratch::ptx(&tc, &dir, Target::Sm70);
}

/// Two blocks of `block` threads in one cluster.
fn cluster_launch(block: u32, args: Vec<Arg>, buffers: Vec<Vec<u8>>, mode: Mode) -> Launch {
    let mut l = Launch::new([2, 1, 1], [block, 1, 1], args);
    l.buffers = buffers;
    l.cluster = Some([2, 1, 1]);
    l.mode = mode;
    l.seed = 3;
    l
}

#[test]
fn a_shared_view_of_another_blocks_window_is_a_fault() {
    let Some(ptx) = ptx("issue29-clusters", &prelude_and(CLUSTERS), Target::Sm90) else {
        return;
    };
    for mode in [Mode::Random, Mode::WarpLockstep] {
        let l = cluster_launch(32, vec![Arg::Ptr(0, 0)], vec![vec![0; 256]], mode);
        let out = run(&ptx, "shared_view_of_a_neighbour", &l);
        assert!(
            out.findings.first().is_some_and(
                |f| f.kind == FindingKind::Fault && f.text.contains("another CTA's window")
            ),
            "{mode:?}: {:?}",
            out.findings
        );
        let out = run(&ptx, "generic_view_of_a_neighbour", &l);
        assert!(
            out.findings.is_empty() && out.completed,
            "{mode:?}: {:?}",
            out.findings
        );
        assert!(
            out.buffers[0].chunks(4).all(|c| c == [1, 0, 0, 0]),
            "{:?}",
            out.buffers[0]
        );
    }
}

#[test]
fn the_cluster_barrier_of_library_code_waits_only_for_non_exited_threads() {
    let Some(ptx) = ptx("issue29-clusters", &prelude_and(CLUSTERS), Target::Sm90) else {
        return;
    };
    for mode in [Mode::Random, Mode::WarpLockstep] {
        let out = run(
            &ptx,
            "rank_one_returns",
            &cluster_launch(64, Vec::new(), Vec::new(), mode),
        );
        assert!(
            out.findings.is_empty() && out.completed,
            "{mode:?}: {:?}",
            out.findings
        );
    }
}

#[test]
fn a_lane_releasing_its_warp_after_its_cluster_arrive_hangs() {
    let Some(ptx) = ptx("issue29-clusters", &prelude_and(CLUSTERS), Target::Sm90) else {
        return;
    };
    for mode in [Mode::Random, Mode::WarpLockstep] {
        let l = cluster_launch(32, vec![Arg::Ptr(0, 0)], vec![vec![0; 4]], mode);
        let out = run(&ptx, "arrive_then_release", &l);
        assert!(!out.completed, "{mode:?}");
        assert!(
            out.findings.last().is_some_and(
                |f| f.kind == FindingKind::Hang && f.text.contains("barrier.cluster.arrive")
            ),
            "{mode:?}: {:?}",
            out.findings
        );
    }
}

/// A kernel whose only cluster-barrier arrival is the relaxed one.
const RELAXED_ARRIVE: &str = r#"
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn relaxed_arrive() {
    // SAFETY: waited for at once.
    unsafe { scoped_atomics::kernel::cluster_arrive_relaxed() }.wait()
}
"#;

/// Item 3: `cluster_arrive_relaxed` follows the build's PTX ISA, also where it comes from the CPU
/// variant (`sm_90a`: PTX ISA 8.0) or from an explicit `+ptx80` on sm_90 (`isa_gate` covers
/// sm_90 and sm_100).
#[test]
fn the_relaxed_cluster_arrival_on_sm_90a_and_with_ptx80() {
    let Some(tc) = scratch::toolchain("device_issue29_outside") else {
        return;
    };
    let source = format!("{}{RELAXED_ARRIVE}", scratch::PRELUDE);
    let dir = scratch::crate_dir(
        &tc,
        "issue29-relaxed",
        ", default-features = false",
        &source,
    );
    for (flags, name) in [
        ("-C target-cpu=sm_90a", "sm_90a"),
        (
            "-C target-cpu=sm_90 -C target-feature=+ptx80",
            "sm_90_ptx80",
        ),
    ] {
        let rustflags = Target::rustflags_with(flags);
        let target_dir = tc.root.join(format!("target/ptx/issue29-{name}"));
        let (out, ptx) = scratch::build_with(
            &tc,
            &dir,
            &target_dir,
            &rustflags,
            scratch::Extra::default(),
        );
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(ptx).unwrap();
        let arrivals: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("barrier.cluster.arrive"))
            .collect();
        assert_eq!(arrivals, ["barrier.cluster.arrive.relaxed;"], "{name}");
    }
}
