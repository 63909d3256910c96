//! Issue 29, item 2: safe misuse of the hardware barrier is a `trap`, never undefined PTX. Small
//! kernels built for sm_80 and sm_90 run in the simulator:
//!
//! * the last participant's `arrive_and_drop` (which would take the `mbarrier`'s expected count to
//!   0, undefined for `mbarrier.arrive_drop`) traps — on a `SharedBarrier` and on a
//!   `Barrier<Block>` made by `init_in_place` in shared memory; a drop that leaves a participant
//!   does not;
//! * a `SharedBarrier`'s token waited on at a `Barrier<Device>` in global memory traps (the old
//!   code emitted `mbarrier.try_wait`/`test_wait` on the global barrier);
//! * a token two phases old waited on (safe code, against `wait`'s contract; not checked on the
//!   device) waits with a defined `.parity` form (the old code's state-token wait of it was
//!   undefined PTX).
//!
//! Skipped without the tools (a failure with `CI=true`), as the other device checks.

mod scratch;

use scoped_atomics_host::ptx::Target;
use scoped_atomics_host::sim::{Arg, Launch, Simulator};

const KERNELS: &str = r#"
use scoped_atomics::Device;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_last_drop() {
    shared_barrier(1).arrive_and_drop();
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn block_last_drop() {
    block_barrier(1).arrive_and_drop();
}

/// Thread 0 drops, thread 1 stays: the drop leaves one participant.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_drop_one_of_two() {
    let b = shared_barrier(2);
    if thread_idx().x == 0 {
        b.arrive_and_drop();
    } else {
        b.arrive_and_wait();
    }
}

/// As `shared_drop_one_of_two`, on the `Barrier<Block>` hardware path.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn block_drop_one_of_two() {
    let b = block_barrier(2);
    if thread_idx().x == 0 {
        b.arrive_and_drop();
    } else {
        b.arrive_and_wait();
    }
}

/// Issue 29, item 2: a token held while the barrier completes two phases, then waited on — safe
/// code. One thread, one expected arrival: each arrival completes its phase, and a `try_wait`
/// observes it before the next arrival (the PTX rule). The old code's `mbarrier.test_wait` /
/// `try_wait` of a state two phases old was undefined in PTX; the `.parity` wait is defined.
#[scoped_atomics::kernel]
pub fn shared_stale_token() {
    let b = shared_barrier(1);
    let first = b.arrive(); // completes phase 0
    let _ = b.try_wait(&first); // observes it
    let second = b.arrive(); // completes phase 1
    let _ = b.try_wait(&second);
    b.wait(first); // a token of phase 0 in phase 2
}

/// As `shared_stale_token`, on the `Barrier<Block>` hardware path.
#[scoped_atomics::kernel]
pub fn block_stale_token() {
    let b = block_barrier(1);
    let first = b.arrive();
    let _ = b.try_wait(&first);
    let second = b.arrive();
    let _ = b.try_wait(&second);
    b.wait(first);
}

/// A `SharedBarrier`'s token waited on at a device barrier in global memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn foreign_token(device: *const Barrier<Device>) {
    let shared = shared_barrier(2);
    let token = shared.arrive();
    // SAFETY: the launcher passes a live device barrier.
    unsafe { &*device }.wait(token);
}
"#;

/// A `Barrier<Device>::new(1)` as the bytes of its two words (count word: guard, 1 missing,
/// expected 1; phase word 0).
fn device_barrier_bytes() -> Vec<u8> {
    let count: u64 = ((0x8000_0001u64) << 32) | 1;
    let mut bytes = count.to_le_bytes().to_vec();
    bytes.extend_from_slice(&0u64.to_le_bytes());
    bytes
}

/// The PTX of the kernels above at `target`; `None` without the tools.
fn kernels_ptx(target: Target) -> Option<String> {
    let tc = scratch::toolchain("device_barrier_misuse")?;
    let dir = scratch::crate_dir(
        &tc,
        "barrier-misuse",
        ", default-features = false",
        &format!("{}{}{KERNELS}", scratch::PRELUDE, scratch::BARRIER_HELPERS),
    );
    Some(scratch::ptx(&tc, &dir, target).0)
}

/// The findings of `kernel` of the scratch crate at `target`, launched with `threads` threads
/// (and a device barrier as the argument where the kernel takes one); `None` without the tools.
fn findings(target: Target, kernel: &str, threads: u32) -> Option<Vec<String>> {
    let ptx = kernels_ptx(target)?;
    let sim = Simulator::new(&ptx).expect("the simulator reads the PTX");
    let k = sim.kernel(kernel).expect("the kernel");
    let mut launch = if kernel == "foreign_token" {
        let mut l = Launch::new([1, 1, 1], [threads, 1, 1], vec![Arg::Ptr(0, 0)]);
        l.buffers = vec![device_barrier_bytes()];
        l
    } else {
        Launch::new([1, 1, 1], [threads, 1, 1], Vec::new())
    };
    launch.seed = 1;
    let out = k.launch(&launch, Vec::new()).expect("the launch runs");
    Some(out.findings.iter().map(|f| f.text.clone()).collect())
}

const HARDWARE_TARGETS: [Target; 2] = [Target::Sm80, Target::Sm90];

#[test]
fn the_last_participants_drop_traps_on_the_hardware_barrier() {
    for target in HARDWARE_TARGETS {
        for kernel in ["shared_last_drop", "block_last_drop"] {
            let Some(findings) = findings(target, kernel, 1) else {
                return;
            };
            assert!(
                findings.first().is_some_and(|f| f.contains("trap")),
                "{target} {kernel}: expected a trap, got {findings:?}"
            );
        }
        for kernel in ["shared_drop_one_of_two", "block_drop_one_of_two"] {
            let Some(findings) = findings(target, kernel, 2) else {
                return;
            };
            assert!(findings.is_empty(), "{target} {kernel}: {findings:?}");
        }
    }
}

#[test]
fn a_shared_barriers_token_at_a_device_barrier_traps() {
    for target in HARDWARE_TARGETS {
        let Some(findings) = findings(target, "foreign_token", 1) else {
            return;
        };
        assert!(
            findings.first().is_some_and(|f| f.contains("trap")),
            "{target}: expected a trap, got {findings:?}"
        );
    }
}

/// Issue 29, item 2: safe code can wait on a token two phases old on the hardware barrier (the
/// contract of `wait` forbids it; the device cannot see a token's age). The old code's token was
/// the `mbarrier` state, and its `mbarrier.test_wait`/`try_wait` of a state two phases old is
/// undefined in PTX (the simulator reported that fault). The token is now the phase's parity and
/// the wait a `.parity` form, defined for any parity: the stale wait waits for the next end of a
/// phase of its parity, which in these one-thread kernels never comes — a hang finding, the
/// behaviour PTX defines, and no undefined instruction.
#[test]
fn a_token_two_phases_old_waits_with_defined_ptx() {
    for target in HARDWARE_TARGETS {
        for kernel in ["shared_stale_token", "block_stale_token"] {
            let Some(findings) = findings(target, kernel, 1) else {
                return;
            };
            assert!(
                !findings
                    .iter()
                    .any(|f| f.contains("older than the preceding phase")),
                "{target} {kernel}: the wait of a stale token is undefined PTX: {findings:?}"
            );
            assert!(
                findings.first().is_some_and(|f| f.contains("hang")),
                "{target} {kernel}: expected the wait to hang (its phase never ends), got {findings:?}"
            );
        }
    }
}

/// Every `mbarrier` wait the library emits names its phase by parity: no state-token form
/// (`mbarrier.test_wait.b64` / `mbarrier.try_wait.shared.b64`, …), whose test of a token two
/// phases old is undefined, is left in the PTX of the kernels above. Fails on the old code,
/// whose token waits were the state forms.
#[test]
fn the_hardware_barrier_waits_only_by_parity() {
    for target in HARDWARE_TARGETS {
        let Some(ptx) = kernels_ptx(target) else {
            return;
        };
        let waits: Vec<&str> = ptx
            .lines()
            .map(str::trim)
            .filter(|l| l.contains("mbarrier.test_wait") || l.contains("mbarrier.try_wait"))
            .collect();
        assert!(!waits.is_empty(), "{target}: no mbarrier wait in the PTX");
        let state_forms: Vec<&&str> = waits.iter().filter(|l| !l.contains(".parity")).collect();
        assert!(
            state_forms.is_empty(),
            "{target}: state-token mbarrier waits: {state_forms:?}"
        );
    }
}
