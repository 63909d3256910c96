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
//! * Bug 4: the hardware path knows whether the phase of an arrival's token has completed
//!   (`mbarrier.test_wait` on the fresh token), so `wait` on such a token returns at once instead
//!   of asking `mbarrier.test_wait` about a phase it may no longer know.
//! * Issue 14: `mbarrier.pending_count` only on states of `.noComplete` arrivals (the PTX ISA's
//!   condition; the fix of bug 4 had applied it to a plain `mbarrier.arrive`'s state).

mod scratch;

use scoped_atomics_host::ptx::{self, Item, Kernel, Target};

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

/// Bug 4 of issue 10, kept with the fix of issue 14: the hardware path learns whether the phase of
/// an arrival's token has completed right after the arrival, with `mbarrier.test_wait` on the fresh
/// token (valid then: the token is of the current phase or, if this arrival or another completed
/// it meanwhile, of the one just before), so `wait` on that token later returns at once instead of
/// asking `mbarrier.test_wait` about a phase it may no longer know.
#[test]
fn hardware_arrivals_test_their_fresh_token() {
    for target in HARDWARE_TARGETS {
        let Some(functions) = barrier_functions(target) else {
            return;
        };
        let (_, body) = functions
            .iter()
            .find(|(name, _)| name == "arrive_n_block")
            .expect("arrive_n_block");
        let arrivals: Vec<usize> = (0..body.len())
            .filter(|&at| {
                body[at].mnemonic.starts_with("mbarrier.arrive.")
                    && !body[at].mnemonic.contains(".noComplete")
            })
            .collect();
        assert!(!arrivals.is_empty(), "{target}: no mbarrier.arrive");
        for at in arrivals {
            let token = operand(&body[at], 0);
            // The next mbarrier instruction after the arrival tests its token.
            let next = body[at + 1..]
                .iter()
                .find(|i| i.mnemonic.starts_with("mbarrier."));
            assert!(
                next.is_some_and(
                    |i| i.mnemonic.starts_with("mbarrier.test_wait") && operand(i, 2) == token
                ),
                "{target}: `{}` is not followed by mbarrier.test_wait on its token {token}: next {}",
                body[at],
                next.map_or("none".to_string(), |i| i.to_string())
            );
        }
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
/// waits. sm_80 (PTX ISA 7.0): `mbarrier.test_wait` polled against `%globaltimer`, no parity
/// form (PTX ISA 7.1). sm_90: `mbarrier.try_wait` without (`try_wait`) and with (`try_wait_for`,
/// `try_wait_until`) a `suspendTimeHint`, `mbarrier.try_wait.parity` likewise, and
/// `mbarrier.test_wait.parity` polled by `wait_parity`.
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
        !operands_of(&sm80, "timed_shared", "mbarrier.test_wait.b64").is_empty(),
        "sm_80: no mbarrier.test_wait"
    );
    assert!(
        operands_of(&sm80, "timed_shared", "mbarrier.try_wait").is_empty(),
        "sm_80 has no mbarrier.try_wait"
    );
    let Some(sm90) = build("barrier-device-path", GENERIC, Target::Sm90) else {
        return;
    };
    let try_wait = operands_of(&sm90, "timed_shared", "mbarrier.try_wait.b64");
    assert!(
        try_wait.iter().any(|o| o.len() == 3),
        "sm_90: no mbarrier.try_wait without a time hint (try_wait): {try_wait:?}"
    );
    assert!(
        try_wait.iter().filter(|o| o.len() == 4).count() >= 2,
        "sm_90: no mbarrier.try_wait with a suspendTimeHint for try_wait_for and try_wait_until: {try_wait:?}"
    );
    let parity = operands_of(&sm90, "timed_shared", "mbarrier.try_wait.parity.b64");
    assert!(
        parity.iter().any(|o| o.len() == 3) && parity.iter().any(|o| o.len() == 4),
        "sm_90: mbarrier.try_wait.parity without and with a time hint: {parity:?}"
    );
    assert!(
        !operands_of(&sm90, "timed_shared", "mbarrier.test_wait.parity.b64").is_empty(),
        "sm_90: wait_parity does not poll mbarrier.test_wait.parity"
    );
}

/// Issue 14: at sm_80 the parity forms need PTX ISA 7.1. Built with `+ptx71`, `wait_parity` and
/// `try_wait_parity` of a block barrier are `mbarrier.test_wait.parity` (and ptxas accepts them);
/// at the default PTX ISA 7.0, a parity wait on a `Barrier<Block>` is a compile-time error that
/// says what to do, while one on a `Barrier<Device>` (never the hardware barrier) builds.
#[test]
fn sm80_parity_waits_need_ptx71_and_say_so() {
    let Some(tc) = scratch::toolchain("device_barrier") else {
        return;
    };
    let target = Target::Sm80;
    let dir = scratch::crate_dir(
        &tc,
        "barrier-device-path",
        ", default-features = false",
        &format!("{}{GENERIC}", scratch::PRELUDE),
    );
    let ptx71_dir = tc.target_dir(target).with_file_name("sm_80_ptx71");
    let (out, ptx) = scratch::build_with(
        &tc,
        &dir,
        &ptx71_dir,
        &format!("{} -Ctarget-feature=+ptx71", target.rustflags()),
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

    let source = |scope: &str| {
        format!(
            "{}#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn parity(b: *const scoped_atomics::Barrier<scoped_atomics::{scope}>) {{\n    \
             // SAFETY: the launcher passes a live barrier.\n    unsafe {{ &*b }}.wait_parity(false)\n}}\n",
            scratch::PRELUDE
        )
    };
    let build_scope = |scope: &str| {
        let dir = scratch::crate_dir(
            &tc,
            &format!("parity-{}", scope.to_lowercase()),
            ", default-features = false",
            &source(scope),
        );
        scratch::build_with(
            &tc,
            &dir,
            &tc.target_dir(target),
            &target.rustflags(),
            scratch::Extra::default(),
        )
        .0
    };
    let block = build_scope("Block");
    let stderr = String::from_utf8_lossy(&block.stderr);
    assert!(
        !block.status.success(),
        "a block parity wait built at PTX 7.0"
    );
    assert!(
        stderr.contains("need PTX ISA 7.1 on sm_80") && stderr.contains("+ptx71"),
        "the compile error does not say why: {stderr}"
    );
    let device = build_scope("Device");
    assert!(
        device.status.success(),
        "{}",
        String::from_utf8_lossy(&device.stderr)
    );
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
