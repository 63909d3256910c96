//! Issue 10, bug 1: `sync_threads` must be one barrier instruction per call site whatever the
//! code around it, because `bar.sync` is `barrier.sync.aligned`: every thread of a warp must
//! execute the *same* instruction. Kernels with divergent code on both sides of the barrier are
//! built for sm_70, sm_80 and sm_90, and each kernel's PTX must hold exactly as many `bar.sync`/
//! `barrier.sync` instructions as it has `sync_threads()` calls. (With the old non-convergent
//! `asm!("bar.sync 0;")`, LLVM tail-duplicated the barrier into both arms of the branch.)

mod scratch;

use scoped_atomics_host::ptx::Target;

/// Each kernel with its number of `sync_threads()` call sites.
const SHAPES: &[(&str, usize)] = &[
    ("if_else_after", 1),
    ("if_before_if_else_after", 1),
    ("loop_with_divergence", 1),
    ("select_after", 1),
    ("two_barriers", 2),
];

const KERNELS: &str = r#"
use scoped_atomics::kernel::{sync_threads, thread_idx};

/// `let c = …; if c { … } sync_threads(); if c { … } else { … }`: the shape of the issue.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn if_else_after(p: *mut u32) {
    let c = thread_idx().x < 16;
    sync_threads();
    // SAFETY (all kernels): the launcher passes enough memory.
    if c { unsafe { p.add(1).write_volatile(2) } } else { unsafe { p.add(2).write_volatile(3) } }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn if_before_if_else_after(p: *mut u32) {
    let c = thread_idx().x < 16;
    if c { unsafe { p.write_volatile(1) } }
    sync_threads();
    if c { unsafe { p.add(1).write_volatile(2) } } else { unsafe { p.add(2).write_volatile(3) } }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn loop_with_divergence(p: *mut u32, n: u32) {
    let c = thread_idx().x < 16;
    for i in 0..n {
        if c { unsafe { p.add(i as usize).write_volatile(1) } }
        sync_threads();
        if c { unsafe { p.add(1).write_volatile(2) } } else { unsafe { p.add(2).write_volatile(3) } }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn select_after(p: *mut u32, q: *mut u32) {
    let t = thread_idx().x;
    let dst = if t < 16 { unsafe { p.write_volatile(t) }; p } else { q };
    sync_threads();
    unsafe { dst.write_volatile(t) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn two_barriers(p: *mut u32) {
    let c = thread_idx().x % 3 == 0;
    if c { unsafe { p.write_volatile(1) } }
    sync_threads();
    if c { unsafe { p.add(1).write_volatile(2) } } else { unsafe { p.add(2).write_volatile(3) } }
    sync_threads();
    if c { unsafe { p.add(3).write_volatile(4) } } else { unsafe { p.add(4).write_volatile(5) } }
}
"#;

fn is_barrier(mnemonic: &str) -> bool {
    mnemonic.starts_with("bar.") || mnemonic.starts_with("barrier.")
}

#[test]
fn sync_threads_is_one_barrier_instruction_per_call_site() {
    let Some(tc) = scratch::toolchain("device_sync_threads") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "sync-threads-shapes",
        ", default-features = false",
        &format!("{}{KERNELS}", scratch::PRELUDE),
    );
    let mut failures = Vec::new();
    for target in [Target::Sm70, Target::Sm80, Target::Sm90] {
        let kernels = scratch::kernels(&tc, &dir, target);
        for &(name, sites) in SHAPES {
            let body = scratch::mnemonics(scratch::kernel(&kernels, name));
            let barriers = body.iter().filter(|m| is_barrier(m)).count();
            if barriers != sites {
                failures.push(format!(
                    "{target} {name}: {barriers} barrier instructions for {sites} sync_threads() call site(s)"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
