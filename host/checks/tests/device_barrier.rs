//! Issue 10, bugs 3–6: the barrier's device path, checked in the PTX of small kernels built for
//! sm_70, sm_80 and sm_90 (the hardware `mbarrier` exists from sm_80).
//!
//! * Bug 6: a barrier without a completion calls nothing: no indirect `call` (through a register)
//!   in any barrier kernel. (The old `Barrier<S>` stored an `fn()` and called it indirectly.)
//! * Bug 3: the hardware barrier's state word is touched by `mbarrier` instructions alone: in the
//!   block that ends with `mbarrier.init [R]`, no plain `ld`/`st` of `[R]` (the old code wrote
//!   the whole barrier with plain stores, then initialised it); and a barrier initialised again in
//!   the same place is invalidated first (`mbarrier.inval` before the second `mbarrier.init`).
//! * Bug 5: `arrive_n` on the hardware path rejects counts above 2²⁰ − 1 (a comparison with
//!   1048575 guards the `mbarrier.arrive`; the old code accepted up to 2³¹ − 1).
//! * Bug 4 (revised by issue 23, item 1): the old fix tested every arrival's fresh token with
//!   `mbarrier.test_wait`, which PTX leaves undefined once the barrier is two phases on; an
//!   arrival is now the `mbarrier.arrive` alone, and only the waits test tokens (of the current
//!   or the preceding phase, `wait`'s contract, as in libcu++).
//! * Issue 14: `mbarrier.pending_count` only on states of `.noComplete` arrivals (the PTX ISA's
//!   condition; the fix of bug 4 had applied it to a plain `mbarrier.arrive`'s state).

mod scratch;

use scoped_atomics_host::ptx::{self, Item, Kernel, Target};
use scoped_atomics_host::sim::{Arg, Launch, Simulator};

const GENERIC: &str = r#"
use scoped_atomics::{Barrier, Block, Device, System};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wait_block(b: *const Barrier<Block>) {
    // SAFETY (all kernels): the launcher passes a live barrier.
    unsafe { &*b }.arrive_and_wait()
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wait_device(b: *const Barrier<Device>) {
    unsafe { &*b }.arrive_and_wait()
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wait_system(b: *const Barrier<System>) {
    unsafe { &*b }.arrive_and_wait()
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn drop_device(b: *const Barrier<Device>) {
    unsafe { &*b }.arrive_and_drop()
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn arrive_n_block(b: *const Barrier<Block>, n: u32) {
    let b = unsafe { &*b };
    let token = b.arrive_n(n);
    b.wait(token)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn init_shared() {
    use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};
    let place = scoped_atomics::block_shared!(BARRIER: [Barrier<Block>; 1]).cast::<Barrier<Block>>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { Barrier::init_in_place(place, block_dim().x) };
    }
    sync_threads();
    unsafe { &*place }.arrive_and_wait();
}

/// Issue 14: the non-blocking, timed and parity waits of the hardware barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn timed_shared() {
    use core::time::Duration;
    use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};
    let place = scoped_atomics::block_shared!(TIMED: [Barrier<Block>; 1]).cast::<Barrier<Block>>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { Barrier::init_in_place(place, block_dim().x) };
    }
    sync_threads();
    let b = unsafe { &*place };
    let token = b.arrive();
    if !b.try_wait(&token)
        && !b.try_wait_for(&token, Duration::from_micros(5))
        && !b.try_wait_until(&token, scoped_atomics::time::Instant::now() + Duration::from_micros(5))
    {
        b.wait(token);
    }
    let _ = b.arrive(); // phase 1 (odd)
    #[cfg(any(target_feature = "ptx71", target_feature = "sm_90"))]
    if !b.try_wait_parity(true) && !b.try_wait_parity_for(true, Duration::from_micros(5)) {
        b.wait_parity(true);
    }
}
"#;

const REINIT: &str = r#"
use scoped_atomics::{Barrier, Block};
use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reinit_shared() {
    let place = scoped_atomics::block_shared!(BARRIER: [Barrier<Block>; 1]).cast::<Barrier<Block>>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { Barrier::init_in_place(place, block_dim().x) };
    }
    sync_threads();
    // SAFETY: initialised above.
    unsafe { &*place }.arrive_and_wait();
    sync_threads();
    if thread_idx().x == 0 {
        // SAFETY: every use of the first barrier is ordered before this by `sync_threads`.
        unsafe {
            Barrier::invalidate_in_place(place);
            Barrier::init_in_place(place, 1);
        }
    }
    sync_threads();
    if thread_idx().x == 0 {
        unsafe { &*place }.arrive_and_wait();
    }
}
"#;

/// Issue 23: the kernels of items 1, 4 and 5.
const ISSUE_23: &str = r#"
use scoped_atomics::{Barrier, Block};
use scoped_atomics::kernel::{sync_threads, thread_idx};

/// A block barrier of `expected` in shared memory, initialised by thread 0.
#[inline(always)]
fn shared_barrier(expected: u32) -> &'static Barrier<Block> {
    let place = scoped_atomics::block_shared!(BARRIER: [Barrier<Block>; 1]).cast::<Barrier<Block>>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { Barrier::init_in_place(place, expected) };
    }
    sync_threads();
    // SAFETY: initialised above, for the life of the block.
    unsafe { &*place }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn arrive_only() {
    let b = shared_barrier(64);
    let _ = b.arrive();
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn arrive_and_wait_shared() {
    shared_barrier(64).arrive_and_wait();
}

// Checked at sm_90, whose waits loop on `mbarrier.try_wait.parity`.
#[cfg(target_feature = "sm_90")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wait_parity_shared() {
    let b = shared_barrier(64);
    let _ = b.arrive();
    b.wait_parity(false);
}

/// 64 threads, a barrier of 32: warp 0 arrives without waiting (its 32 arrivals complete phase
/// 0); warp 1 waits for phase 0, arrives (completing phase 1) and waits for phase 1. Every thread
/// arrives once, and each parity wait names the current or the preceding phase.
#[cfg(target_feature = "sm_90")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn two_warps_one_phase_each(done: *mut u32) {
    let b = shared_barrier(32);
    let t = thread_idx().x;
    if t < 32 {
        let _ = b.arrive(); // phase 0
    } else {
        b.wait_parity(false); // phase 0 is over
        let _ = b.arrive(); // phase 1
        b.wait_parity(true); // phase 1 is over
    }
    // SAFETY: the launcher passes 64 counters.
    unsafe { done.add(t as usize).write(1) };
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn init_max(max: *mut u32) {
    let b = shared_barrier(Barrier::<Block>::max());
    let _ = b;
    if thread_idx().x == 0 {
        // SAFETY: the launcher passes one counter.
        unsafe { max.write(Barrier::<Block>::max()) };
    }
}
"#;

/// Issue 24, item 5: kernels of the block barrier whose type says it is in shared memory.
const SHARED_BARRIER: &str = r#"
use scoped_atomics::SharedBarrier;
use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};

/// The block barrier, initialised by thread 0 for every thread of the block.
#[inline(always)]
fn shared_barrier() -> &'static SharedBarrier {
    let place = scoped_atomics::block_shared!(SHARED: [SharedBarrier; 1]).cast::<SharedBarrier>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { SharedBarrier::init_in_place(place, block_dim().x) };
    }
    sync_threads();
    // SAFETY: initialised above, for the life of the block.
    unsafe { &*place }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_arrive_and_wait() {
    shared_barrier().arrive_and_wait();
}

/// Each thread adds its index to a shared sum in phase k, and after the phase reads it: every
/// thread sees the whole sum of every phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_phases(out: *mut u32) {
    use scoped_atomics::{AtomicRef, Block, Ordering};
    let b = shared_barrier();
    let sums = scoped_atomics::block_shared!(SUMS: [u32; 4]).cast::<u32>();
    let t = thread_idx().x;
    if t < 4 {
        // SAFETY: four shared counters, each written once before the barrier below.
        unsafe { sums.add(t as usize).write(0) };
    }
    b.arrive_and_wait();
    let mut seen = 0;
    for k in 0..4 {
        // SAFETY: a shared counter, accessed atomically.
        let sum = unsafe { AtomicRef::<u32, Block>::from_ptr(sums.add(k)) };
        sum.fetch_add(t + 1, Ordering::Relaxed);
        let token = b.arrive();
        b.wait(token);
        seen += sum.load(Ordering::Relaxed);
    }
    // SAFETY: the launcher passes one counter per thread.
    unsafe { out.add(t as usize).write(seen) };
}
"#;

/// The PTX text of the scratch crate `name` with `source` at `target`.
fn ptx_of(name: &str, source: &str, target: Target) -> Option<String> {
    let tc = scratch::toolchain("device_barrier")?;
    let dir = scratch::crate_dir(
        &tc,
        name,
        ", default-features = false",
        &format!("{}{source}", scratch::PRELUDE),
    );
    Some(scratch::ptx(&tc, &dir, target).0)
}

const TARGETS: [Target; 3] = [Target::Sm70, Target::Sm80, Target::Sm90];
const HARDWARE_TARGETS: [Target; 2] = [Target::Sm80, Target::Sm90];

fn instrs(kernel: &Kernel) -> Vec<Item> {
    ptx::instructions(kernel)
}

fn build(name: &str, source: &str, target: Target) -> Option<Vec<Kernel>> {
    let tc = scratch::toolchain("device_barrier")?;
    let dir = scratch::crate_dir(
        &tc,
        name,
        ", default-features = false",
        &format!("{}{source}", scratch::PRELUDE),
    );
    Some(scratch::kernels(&tc, &dir, target))
}

/// Every function reachable from `kernel` by direct calls, `kernel` included.
fn reachable<'a>(kernels: &'a [Kernel], kernel: &str) -> Vec<&'a Kernel> {
    let mut seen: Vec<&Kernel> = vec![scratch::kernel(kernels, kernel)];
    let mut i = 0;
    while i < seen.len() {
        for item in instrs(seen[i]) {
            if let Item::Instr(instr) = item
                && instr.mnemonic.starts_with("call")
                && let Some(callee) = kernels.iter().find(|k| {
                    instr
                        .operands
                        .split([',', ' ', '(', ')'])
                        .any(|w| w == k.name)
                })
                && !seen.iter().any(|s| s.name == callee.name)
            {
                seen.push(callee);
            }
        }
        i += 1;
    }
    seen
}

#[test]
fn a_barrier_without_completion_calls_nothing_indirectly() {
    let mut failures = Vec::new();
    for target in TARGETS {
        let Some(kernels) = build("barrier-device-path", GENERIC, target) else {
            return;
        };
        for name in [
            "wait_block",
            "wait_device",
            "wait_system",
            "drop_device",
            "arrive_n_block",
        ] {
            for function in reachable(&kernels, name) {
                for item in instrs(function) {
                    if let Item::Instr(i) = item
                        && i.mnemonic.starts_with("call")
                        && i.operands.trim_start().starts_with('%')
                    {
                        failures.push(format!("{target} {name} ({}): `{i}`", function.name));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "indirect calls:\n{}",
        failures.join("\n")
    );
}

/// The address operand `R` of `mbarrier.init.b64 [R], …`.
fn init_address(i: &ptx::Instr) -> Option<String> {
    (i.mnemonic.starts_with("mbarrier.init")).then(|| {
        let first = i.operands.split(',').next().unwrap_or_default().trim();
        first
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string()
    })
}

#[test]
fn the_hardware_barrier_object_is_initialised_by_mbarrier_init_alone() {
    let mut failures = Vec::new();
    for target in HARDWARE_TARGETS {
        let Some(kernels) = build("barrier-device-path", GENERIC, target) else {
            return;
        };
        let body = instrs(scratch::kernel(&kernels, "init_shared"));
        let mut inits = 0;
        for (at, item) in body.iter().enumerate() {
            let Item::Instr(init) = item else { continue };
            let Some(object) = init_address(init) else {
                continue;
            };
            inits += 1;
            // The straight-line code before the init: back to the previous label.
            for before in body[..at].iter().rev() {
                let Item::Instr(i) = before else { break };
                let plain = (i.mnemonic.starts_with("st.") || i.mnemonic.starts_with("ld."))
                    && !i.mnemonic.starts_with("ld.param");
                let operand = format!("[{object}]");
                let operand0 = format!("[{object}+0]");
                if plain && (i.operands.contains(&operand) || i.operands.contains(&operand0)) {
                    failures.push(format!("{target}: `{i}` before `{init}`"));
                }
            }
        }
        assert!(inits >= 1, "{target}: no mbarrier.init in init_shared");
    }
    assert!(
        failures.is_empty(),
        "plain accesses of the mbarrier object:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_hardware_barrier_is_invalidated_before_it_is_initialised_again() {
    for target in HARDWARE_TARGETS {
        let Some(kernels) = build("barrier-reinit", REINIT, target) else {
            return;
        };
        let body = scratch::mnemonics(scratch::kernel(&kernels, "reinit_shared"));
        let inits: Vec<usize> = (0..body.len())
            .filter(|&i| body[i].starts_with("mbarrier.init"))
            .collect();
        assert!(
            inits.len() >= 2,
            "{target}: expected two mbarrier.init: {body:?}"
        );
        for &at in &inits[1..] {
            let previous_init = inits.iter().rev().find(|&&i| i < at).copied().unwrap_or(0);
            assert!(
                body[previous_init..at]
                    .iter()
                    .any(|m| m.starts_with("mbarrier.inval")),
                "{target}: the barrier is initialised again without mbarrier.inval: {body:?}"
            );
        }
    }
}

#[test]
fn hardware_arrive_n_rejects_counts_above_the_hardware_limit() {
    for target in HARDWARE_TARGETS {
        let Some(kernels) = build("barrier-device-path", GENERIC, target) else {
            return;
        };
        let text = scratch::instructions(scratch::kernel(&kernels, "arrive_n_block"));
        assert!(
            text.iter()
                .any(|i| i.starts_with("setp.") && (i.contains("1048575") || i.contains("1048576"))),
            "{target}: arrive_n does not compare n with 2^20 - 1 before arriving: {text:#?}"
        );
    }
}

/// Every function of the barrier kernels at `target`, with its instructions.
fn barrier_functions(target: Target) -> Option<Vec<(String, Vec<ptx::Instr>)>> {
    let kernels = build("barrier-device-path", GENERIC, target)?;
    Some(
        kernels
            .iter()
            .map(|k| {
                let body = instrs(k)
                    .into_iter()
                    .filter_map(|item| match item {
                        Item::Instr(i) => Some(i),
                        Item::Label(_) => None,
                    })
                    .collect();
                (k.name.clone(), body)
            })
            .collect(),
    )
}

/// The `n`th operand of `i`, trimmed.
fn operand(i: &ptx::Instr, n: usize) -> String {
    i.operands
        .split(',')
        .nth(n)
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Issue 14, bug fix: `mbarrier.pending_count` is defined only on a state produced by
/// `mbarrier.arrive.noComplete` or `mbarrier.arrive_drop.noComplete` (PTX ISA, `mbarrier.pending_count`).
/// The old hardware path applied it to the state of a plain `mbarrier.arrive`, to learn whether
/// that arrival completed its phase. Every `pending_count` in the barrier kernels must read a
/// register written by a `.noComplete` arrival.
#[test]
fn pending_count_reads_only_states_of_no_complete_arrivals() {
    let mut failures = Vec::new();
    for target in HARDWARE_TARGETS {
        let Some(functions) = barrier_functions(target) else {
            return;
        };
        for (name, body) in &functions {
            let no_complete: Vec<String> = body
                .iter()
                .filter(|i| {
                    i.mnemonic.starts_with("mbarrier.arrive") && i.mnemonic.contains(".noComplete")
                })
                .map(|i| operand(i, 0))
                .collect();
            for i in body
                .iter()
                .filter(|i| i.mnemonic.starts_with("mbarrier.pending_count"))
            {
                if !no_complete.contains(&operand(i, 1)) {
                    failures.push(format!(
                        "{target} {name}: `{i}` reads a state no .noComplete arrival produced"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 23, item 1: an arrival on the hardware barrier is the `mbarrier.arrive` alone. The old
/// code ran `mbarrier.test_wait` on the fresh token after every arrival (to fill
/// `ArrivalToken::completed`), which PTX leaves undefined once the barrier is two phases on — a
/// correct program gets there (`arrivals_never_test_a_token_two_phases_old`). A fire-and-forget
/// `let _ = b.arrive()` must compile to the arrive and nothing that reads the barrier after it.
#[test]
fn a_fire_and_forget_hardware_arrive_is_the_arrive_alone() {
    for target in HARDWARE_TARGETS {
        let Some(kernels) = build("barrier-issue23", ISSUE_23, target) else {
            return;
        };
        let body = scratch::mnemonics(scratch::kernel(&kernels, "arrive_only"));
        let mbarrier: Vec<&String> = body.iter().filter(|m| m.starts_with("mbarrier.")).collect();
        let arrive = mbarrier
            .iter()
            .position(|m| m.starts_with("mbarrier.arrive.") && !m.contains("noComplete"))
            .unwrap_or_else(|| panic!("{target}: no mbarrier.arrive in {body:?}"));
        assert!(
            mbarrier[arrive + 1..].is_empty(),
            "{target}: `let _ = b.arrive()` runs {:?} after its mbarrier.arrive",
            &mbarrier[arrive + 1..]
        );
    }
}

/// Issue 23, item 1, the issue's program: 64 threads, a shared barrier of 32; warp 0 arrives
/// without waiting, warp 1 waits for warp 0's phase, arrives (its 32 arrivals complete the next
/// phase) and waits for that phase. Every thread arrives once, and every wait names the current
/// or the preceding phase, as the documented contract asks. With the old code, a warp-0 thread
/// descheduled between its arrival and the `mbarrier.test_wait` on the fresh token finds the
/// barrier two phases on — the simulator reports that `test_wait` as a fault (seen on the old
/// code, with a four-round version of this kernel: 387 of 400 schedules); now no schedule may
/// fault or hang.
#[test]
fn arrivals_never_test_a_token_two_phases_old() {
    let Some(kernels_ptx) = ptx_of("barrier-issue23", ISSUE_23, Target::Sm90) else {
        return;
    };
    let sim = Simulator::new(&kernels_ptx).expect("the simulator reads the PTX");
    let kernel = sim.kernel("two_warps_one_phase_each").expect("the kernel");
    let mut failures = Vec::new();
    for seed in 0..400 {
        let mut launch = Launch::new([1, 1, 1], [64, 1, 1], vec![Arg::Ptr(0, 0)]);
        launch.buffers = vec![vec![0; 64 * 4]];
        launch.seed = seed;
        let out = kernel.launch(&launch, Vec::new()).expect("the launch runs");
        if let Some(f) = out.findings.first() {
            failures.push(format!("seed {seed}: {f}"));
            continue;
        }
        let done: Vec<u32> = out.buffers[0]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        if done.iter().any(|&d| d != 1) {
            failures.push(format!("seed {seed}: threads done {done:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 400 schedules failed; first: {}",
        failures.len(),
        failures[0]
    );
}

/// Issue 23, item 4: `Barrier::<Block>::max()` on the device is what the hardware path accepts
/// (2²⁰ − 1, libcu++'s block barrier's max); it was 2³¹ − 1, so `init_in_place(p, max())` in
/// shared memory trapped on sm_80+. The simulator runs such a kernel: no fault, and `max()`
/// reads 2²⁰ − 1.
#[test]
fn a_block_barrier_of_max_expected_arrivals_initialises_in_shared_memory() {
    for target in HARDWARE_TARGETS {
        let Some(kernels_ptx) = ptx_of("barrier-issue23", ISSUE_23, target) else {
            return;
        };
        let sim = Simulator::new(&kernels_ptx).expect("the simulator reads the PTX");
        let kernel = sim.kernel("init_max").expect("the kernel");
        let mut launch = Launch::new([1, 1, 1], [32, 1, 1], vec![Arg::Ptr(0, 0)]);
        launch.buffers = vec![vec![0; 4]];
        let out = kernel.launch(&launch, Vec::new()).expect("the launch runs");
        assert!(
            out.findings.is_empty(),
            "{target}: init_in_place(p, Barrier::<Block>::max()): {}",
            out.findings[0]
        );
        let max = u32::from_le_bytes(out.buffers[0][..4].try_into().unwrap());
        assert_eq!(max, (1 << 20) - 1, "{target}: Barrier::<Block>::max()");
    }
}

/// Issue 23, item 5: on sm_90 the blocking waits of the hardware barrier loop on
/// `mbarrier.try_wait` (whose hardware suspend does the waiting, as libcu++'s `wait`): a loop
/// from the `mbarrier.try_wait` back to the label before it, with no `nanosleep` in it. The old
/// code polled `mbarrier.test_wait` with a `nanosleep` back-off. (The kernels also hold the
/// generic barrier's wait, for a barrier outside shared memory, which keeps its back-off.)
#[test]
fn sm90_hardware_waits_loop_on_try_wait_without_nanosleep() {
    let Some(kernels) = build("barrier-issue23", ISSUE_23, Target::Sm90) else {
        return;
    };
    for name in ["arrive_and_wait_shared", "wait_parity_shared"] {
        let items = instrs(scratch::kernel(&kernels, name));
        let mnemonic = |item: &Item| match item {
            Item::Instr(i) => i.mnemonic.clone(),
            Item::Label(_) => String::new(),
        };
        let at = items
            .iter()
            .position(|i| mnemonic(i).starts_with("mbarrier.try_wait"))
            .unwrap_or_else(|| panic!("sm_90 {name}: no mbarrier.try_wait: {items:#?}"));
        let label = items[..at]
            .iter()
            .rev()
            .find_map(|i| match i {
                Item::Label(l) => Some(l.clone()),
                Item::Instr(_) => None,
            })
            .expect("a label before the try_wait");
        let back = items[at..]
            .iter()
            .position(|i| match i {
                Item::Instr(i) => {
                    i.mnemonic.starts_with("bra")
                        && i.operands.split([',', ' ']).any(|o| o.trim() == label)
                }
                Item::Label(_) => false,
            })
            .unwrap_or_else(|| {
                panic!("sm_90 {name}: no branch back to {label} after the try_wait")
            });
        let body: Vec<String> = items[at..=at + back].iter().map(mnemonic).collect();
        assert!(
            !body
                .iter()
                .any(|m| m.starts_with("nanosleep") || m.starts_with("mbarrier.test_wait")),
            "sm_90 {name}: the wait loop backs off or polls test_wait: {body:?}"
        );
        // Issue 29: the only `mbarrier.test_wait` left is an arrival's read of its phase's
        // parity (`mbarrier.test_wait.parity …, 0`), never a wait.
        let tests: Vec<String> = items
            .iter()
            .filter_map(|i| match i {
                Item::Instr(i) if i.mnemonic.starts_with("mbarrier.test_wait") => {
                    Some(format!("{} {}", i.mnemonic, i.operands))
                }
                _ => None,
            })
            .collect();
        assert!(
            tests
                .iter()
                .all(|t| t.contains(".parity") && t.trim_end().ends_with(", 0")),
            "sm_90 {name}: a mbarrier.test_wait that is not the arrival's parity read: {tests:?}"
        );
    }
}

/// The operands of every `mnemonic…` instruction of `kernel` in `kernels`.
fn operands_of(kernels: &[Kernel], kernel: &str, mnemonic: &str) -> Vec<Vec<String>> {
    instrs(scratch::kernel(kernels, kernel))
        .into_iter()
        .filter_map(|item| match item {
            Item::Instr(i) if i.mnemonic.starts_with(mnemonic) => Some(
                i.operands
                    .split(',')
                    .map(|o| o.trim().to_string())
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// Issue 14: the hardware forms of `try_wait`, `try_wait_for`, `try_wait_until` and the parity
/// waits. sm_80 (PTX ISA 7.1): `mbarrier.test_wait.parity` polled against `%globaltimer`.
/// sm_90: `mbarrier.try_wait.parity` without (`try_wait`, `wait_parity`) and with
/// (`try_wait_for`, `try_wait_until`) a `suspendTimeHint`, and (since issue 23) no
/// `mbarrier.test_wait` in a wait: `wait` and `wait_parity` loop on `mbarrier.try_wait`. Since
/// issue 29 every wait is a `.parity` form (a token is its phase's parity), and the only
/// `mbarrier.test_wait` on sm_90 is an arrival's read of that parity (operand 0).
#[test]
fn hardware_timed_and_parity_waits_use_the_mbarrier_forms() {
    let Some(sm80) = build("barrier-device-path", GENERIC, Target::Sm80) else {
        return;
    };
    let body = scratch::instructions(scratch::kernel(&sm80, "timed_shared"));
    assert!(
        body.iter().any(|i| i.contains("%globaltimer")),
        "sm_80: the timed forms do not read %globaltimer: {body:#?}"
    );
    assert!(
        !operands_of(&sm80, "timed_shared", "mbarrier.test_wait.parity.b64").is_empty(),
        "sm_80: no mbarrier.test_wait.parity"
    );
    assert!(
        operands_of(&sm80, "timed_shared", "mbarrier.test_wait.b64").is_empty(),
        "sm_80: a state-token mbarrier.test_wait"
    );
    assert!(
        operands_of(&sm80, "timed_shared", "mbarrier.try_wait").is_empty(),
        "sm_80 has no mbarrier.try_wait"
    );
    let Some(sm90) = build("barrier-device-path", GENERIC, Target::Sm90) else {
        return;
    };
    assert!(
        operands_of(&sm90, "timed_shared", "mbarrier.try_wait.b64").is_empty(),
        "sm_90: a state-token mbarrier.try_wait"
    );
    let parity = operands_of(&sm90, "timed_shared", "mbarrier.try_wait.parity.b64");
    assert!(
        parity.iter().any(|o| o.len() == 3),
        "sm_90: no mbarrier.try_wait.parity without a time hint (try_wait): {parity:?}"
    );
    assert!(
        parity.iter().filter(|o| o.len() == 4).count() >= 2,
        "sm_90: no mbarrier.try_wait.parity with a suspendTimeHint for try_wait_for and try_wait_until: {parity:?}"
    );
    // Issue 23, item 5: the blocking waits loop on `mbarrier.try_wait.parity` (the hardware
    // suspend waits), where they polled `mbarrier.test_wait` with `nanosleep`; the only
    // `test_wait` left is the arrival's parity read.
    let tests = operands_of(&sm90, "timed_shared", "mbarrier.test_wait");
    assert!(
        tests.iter().all(|o| o.last().is_some_and(|p| p == "0")),
        "sm_90: a wait polls mbarrier.test_wait: {tests:?}"
    );
}

/// Issue 14, and issue 29 item 2: at sm_80 the hardware barrier's waits are the `.parity` forms
/// of PTX ISA 7.1 (its tokens are parities, the only `mbarrier` waits defined for every token
/// safe code can hold). Built at 7.1 (the conformance flags, and the version scoped-atomics-build
/// writes for sm_80), a block barrier's parity waits are `mbarrier.test_wait.parity`, which ptxas
/// accepts. Built at LLVM's default 7.0 (`-C target-cpu=sm_80` alone), a block barrier is the
/// generic one: no `mbarrier` instruction at all, and a parity wait builds (the old code refused
/// it with a compile-time error, and used the hardware barrier with state-token waits).
#[test]
fn sm80_uses_the_hardware_barrier_from_ptx71_and_the_generic_one_at_70() {
    let Some(tc) = scratch::toolchain("device_barrier") else {
        return;
    };
    let target = Target::Sm80;
    assert!(
        target.rustflags().contains("+ptx71"),
        "{}",
        target.rustflags()
    );
    let dir = scratch::crate_dir(
        &tc,
        "barrier-device-path",
        ", default-features = false",
        &format!("{}{GENERIC}", scratch::PRELUDE),
    );
    let (out, ptx) = scratch::build_with(
        &tc,
        &dir,
        &tc.target_dir(target),
        &target.rustflags(),
        scratch::Extra::default(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&ptx).unwrap();
    let kernels = ptx::parse_kernels(&text);
    assert!(
        !operands_of(&kernels, "timed_shared", "mbarrier.test_wait.parity.b64").is_empty(),
        "sm_80 + PTX 7.1: no mbarrier.test_wait.parity"
    );
    scoped_atomics_host::ptx::assemble(&tc, &ptx, target).unwrap_or_else(|e| panic!("ptxas: {e}"));

    // LLVM's own version for sm_80: 7.0.
    let ptx70_flags = target.rustflags().replace(" -C target-feature=+ptx71", "");
    assert!(!ptx70_flags.contains("ptx71"), "{ptx70_flags}");
    let ptx70_dir = tc.target_dir(target).with_file_name("sm_80_ptx70");
    let (out, ptx) = scratch::build_with(
        &tc,
        &dir,
        &ptx70_dir,
        &ptx70_flags,
        scratch::Extra::default(),
    );
    assert!(
        out.status.success(),
        "a block barrier at sm_80, PTX ISA 7.0, does not build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&ptx).unwrap();
    assert!(
        text.lines().any(|l| l.trim() == ".version 7.0"),
        "not PTX ISA 7.0"
    );
    assert!(
        !text.contains("mbarrier."),
        "sm_80 at PTX ISA 7.0 uses the hardware barrier, whose state-token waits are undefined on an old token"
    );
    scoped_atomics_host::ptx::assemble(&tc, &ptx, target).unwrap_or_else(|e| panic!("ptxas: {e}"));
}

/// Documentation item of issue 10: primitives on a kernel's stack (local memory, where `atom`
/// and `mbarrier` are undefined) are detected in debug device builds with `isspacep.local`, and
/// cost nothing in release builds.
#[test]
fn debug_device_builds_check_that_a_primitive_is_not_on_the_stack() {
    let Some(tc) = scratch::toolchain("device_barrier") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "barrier-device-path",
        ", default-features = false",
        &format!("{}{GENERIC}", scratch::PRELUDE),
    );
    let target = Target::Sm80;
    let has_check = |kernels: &[Kernel], name: &str| {
        scratch::instructions(scratch::kernel(kernels, name))
            .iter()
            .any(|i| i.contains("isspacep.local"))
    };
    let release = scratch::kernels(&tc, &dir, target);
    // Debug assertions for `scoped-atomics` alone (a profile override: `core` is reused, and
    // cargo keeps these artifacts apart from the release ones).
    let (out, ptx) = scratch::build_with(
        &tc,
        &dir,
        &tc.target_dir(target),
        &target.rustflags(),
        scratch::Extra {
            cargo: &[
                "--config",
                "profile.release.package.scoped-atomics.debug-assertions=true",
            ],
            tag: "-debug-assertions",
            ..Default::default()
        },
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let debug = ptx::parse_kernels(&std::fs::read_to_string(ptx).unwrap());
    for name in ["wait_device", "wait_system", "arrive_n_block"] {
        assert!(
            has_check(&debug, name),
            "debug {name}: no isspacep.local check"
        );
        assert!(
            !has_check(&release, name),
            "release {name}: an isspacep.local check"
        );
    }
}

/// Issue 24, item 5: a `SharedBarrier` is the `mbarrier` with nothing around it on sm_80 and
/// sm_90 — no `isspacep` dispatch, no generic barrier (no `atom`, no `nanosleep`, no plain
/// load of the barrier) — and it synchronises: in the simulator every thread of 64 sees every
/// other thread's addition of each of four phases, with no finding.
#[test]
fn a_shared_barrier_is_the_mbarrier_alone_and_synchronises() {
    for target in HARDWARE_TARGETS {
        let Some(text) = ptx_of("shared-barrier", SHARED_BARRIER, target) else {
            return;
        };
        let kernels = ptx::parse_kernels(&text);
        let body = scratch::mnemonics(scratch::kernel(&kernels, "shared_arrive_and_wait"));
        let stray: Vec<&String> = body
            .iter()
            .filter(|m| {
                m.starts_with("isspacep")
                    || m.starts_with("atom")
                    || m.starts_with("nanosleep") && target == Target::Sm90
                    || m.starts_with("ld.") && !m.starts_with("ld.param")
            })
            .collect();
        assert!(stray.is_empty(), "{target}: {stray:?} in {body:?}");
        assert!(
            body.iter().any(|m| m.starts_with("mbarrier.arrive")),
            "{target}: no mbarrier.arrive: {body:?}"
        );
        let sim = Simulator::new(&text).expect("the simulator reads the PTX");
        let kernel = sim.kernel("shared_phases").expect("the kernel");
        for seed in 0..8 {
            let mut launch = Launch::new([1, 1, 1], [64, 1, 1], vec![Arg::Ptr(0, 0)]);
            launch.buffers = vec![vec![0; 64 * 4]];
            launch.seed = seed;
            let out = kernel.launch(&launch, Vec::new()).expect("the launch runs");
            assert!(
                out.findings.is_empty(),
                "{target} seed {seed}: {}",
                out.findings[0]
            );
            let total: u32 = (1..=64).sum::<u32>() * 4;
            for (t, chunk) in out.buffers[0].chunks_exact(4).enumerate() {
                let seen = u32::from_le_bytes(chunk.try_into().unwrap());
                assert_eq!(seen, total, "{target} seed {seed}: thread {t}");
            }
        }
    }
}
