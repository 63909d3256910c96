//! Issue 23, item 3: the PTX-version gates follow the PTX ISA version the build emits, which
//! LLVM raises with the target CPU (measured with the pinned nightly: sm_86 → 7.1, sm_89 → 7.8,
//! sm_100 → 8.6, sm_120 → 8.7), not only the explicit `+ptxNN` features (which rustc sets only
//! when they are named). The old gates read `cfg(target_feature = "ptxNN")` alone, so
//! `-C target-cpu=sm_100` refused every 128-bit atomic as "compiled for an older PTX ISA", sm_86
//! and sm_89 refused the parity waits of `Barrier<Block>`, and sm_100/sm_120 did not use
//! `fence.acquire`/`fence.release`. Each build here is assembled by ptxas 13.5; a refused build
//! names the CPU and the PTX ISA version it was compiled for. Skipped without the tools (a
//! failure with `CI=true`).

mod scratch;

use scoped_atomics_host::ptx::{Target, Toolchain};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Kernels that need PTX ISA 7.1 (`parity`: a block barrier's parity wait) and 8.6 on sm_90+
/// (`acquire`: `fence.acquire`).
const NEEDS_71: &str = r#"
use scoped_atomics::{Barrier, Block, Device, Ordering, fence};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn parity(b: *const Barrier<Block>) {
    // SAFETY: the launcher passes a live barrier.
    unsafe { &*b }.wait_parity(false)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn acquire() {
    fence::<Device>(Ordering::Acquire)
}
"#;

/// Kernels that need PTX ISA 8.3 and sm_90 (a 128-bit `fetch_add`), and 8.4 (a System-scope
/// 128-bit load).
const NEEDS_84: &str = r#"
use scoped_atomics::{Atomic, Device, Ordering, System};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wide(p: *mut u128, out: *mut u128) {
    // SAFETY: the launcher passes valid, 16-aligned locations.
    let a = unsafe { Atomic::<u128, Device>::from_ptr(p) };
    let s = unsafe { Atomic::<u128, System>::from_ptr(p) };
    let value = a.fetch_add(1, Ordering::AcqRel) ^ s.load(Ordering::Relaxed);
    // SAFETY: as above.
    unsafe { out.write(value) };
}
"#;

/// The conformance build's flags for `-C target-cpu=cpu`, and a target directory of its own.
fn flags(tc: &Toolchain, cpu: &str) -> (String, PathBuf) {
    // The CPU alone, so that the PTX ISA version is the CPU's own.
    let flags = Target::rustflags_with(&format!("-C target-cpu={cpu}"));
    assert!(flags.contains(cpu));
    (flags, tc.root.join(format!("target/ptx/isa-{cpu}")))
}

fn build(tc: &Toolchain, name: &str, source: &str, cpu: &str) -> (Output, PathBuf) {
    let dir = scratch::crate_dir(
        tc,
        name,
        ", default-features = false",
        &format!("{}{source}", scratch::PRELUDE),
    );
    let (rustflags, target_dir) = flags(tc, cpu);
    scratch::build_with(tc, &dir, &target_dir, &rustflags, scratch::Extra::default())
}

/// The PTX of a successful build; panics with rustc's message otherwise.
fn ptx_of(cpu: &str, (out, ptx): (Output, PathBuf)) -> (String, PathBuf) {
    assert!(
        out.status.success(),
        "{cpu}: did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (std::fs::read_to_string(&ptx).unwrap(), ptx)
}

/// ptxas 13.5 assembles `ptx` for `cpu`.
fn assemble(tc: &Toolchain, cpu: &str, ptx: &Path) {
    let out = Command::new(tc.ptxas(Target::Sm90))
        .arg(format!("-arch={cpu}"))
        .arg(ptx)
        .arg("-o")
        .arg(ptx.with_extension("cubin"))
        .output()
        .expect("running ptxas");
    assert!(
        out.status.success(),
        "ptxas -arch={cpu} rejected {}:\n{}",
        ptx.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn gates_follow_the_ptx_isa_version_of_the_target_cpu() {
    let Some(tc) = scratch::toolchain("isa_gate") else {
        return;
    };
    let mut failures = Vec::new();
    // (CPU, the PTX ISA version LLVM emits for it, whether `fence.acquire` exists there)
    for (cpu, version, split_fences) in [
        ("sm_86", "7.1", false),
        ("sm_89", "7.8", false),
        ("sm_100", "8.6", true),
        ("sm_120", "8.7", true),
    ] {
        let (text, ptx) = ptx_of(cpu, build(&tc, "isa-needs-71", NEEDS_71, cpu));
        if !text
            .lines()
            .any(|l| l.trim() == format!(".version {version}"))
        {
            failures.push(format!("{cpu}: the PTX is not .version {version}"));
        }
        if !text.contains("mbarrier.test_wait.parity") && !text.contains("mbarrier.try_wait.parity")
        {
            failures.push(format!(
                "{cpu}: the parity wait is not an mbarrier parity wait"
            ));
        }
        if text.contains("fence.acquire.gpu") != split_fences {
            failures.push(format!(
                "{cpu}: an acquire fence should {}be `fence.acquire.gpu`",
                if split_fences { "" } else { "not " }
            ));
        }
        assemble(&tc, cpu, &ptx);
    }
    for cpu in ["sm_100", "sm_120"] {
        let (text, ptx) = ptx_of(cpu, build(&tc, "isa-needs-84", NEEDS_84, cpu));
        if !text.contains("cas.b128") || !text.contains("ld.relaxed.sys.b128") {
            failures.push(format!("{cpu}: no atom.cas.b128 / ld.relaxed.sys.b128"));
        }
        assemble(&tc, cpu, &ptx);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_refused_build_names_the_cpu_and_the_ptx_isa_version() {
    let Some(tc) = scratch::toolchain("isa_gate") else {
        return;
    };
    let (out, _) = build(&tc, "isa-needs-84", NEEDS_84, "sm_89");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a 128-bit fetch_add built for sm_89");
    assert!(
        stderr.contains("sm_89") && stderr.contains("PTX ISA 7.8"),
        "the error does not name the CPU and the PTX ISA version:\n{stderr}"
    );
}

/// A kernel whose only cluster-barrier arrival is the relaxed one.
const RELAXED_ARRIVE: &str = r#"
use scoped_atomics::kernel::cluster_arrive_relaxed;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn relaxed_arrive() {
    // SAFETY: waited for at once.
    unsafe { cluster_arrive_relaxed() }.wait()
}
"#;

#[test]
fn the_relaxed_cluster_arrival_follows_the_ptx_isa_version_of_the_target_cpu() {
    // Issue 29, item 3: `cluster_arrive_relaxed` was gated on `target_feature = "ptx80"`, which
    // `-C target-cpu=sm_100` (PTX ISA 8.6) does not set: it silently emitted the release form.
    let Some(tc) = scratch::toolchain("isa_gate") else {
        return;
    };
    let mut failures = Vec::new();
    // (CPU, whether its PTX ISA — 7.8 for sm_90, 8.6 for sm_100 — has the relaxed arrival)
    for (cpu, relaxed) in [("sm_90", false), ("sm_100", true)] {
        let (text, ptx) = ptx_of(cpu, build(&tc, "isa-relaxed-arrive", RELAXED_ARRIVE, cpu));
        let arrivals: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("barrier.cluster.arrive"))
            .collect();
        let expected = if relaxed {
            "barrier.cluster.arrive.relaxed;"
        } else {
            "barrier.cluster.arrive;"
        };
        if arrivals != [expected] {
            failures.push(format!("{cpu}: expected `{expected}`, got {arrivals:?}"));
        }
        assemble(&tc, cpu, &ptx);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
