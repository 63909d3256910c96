//! The 128-bit atomics need `.b128` instructions: `ld`/`st` `.b128` PTX ISA 8.3 (from sm_70),
//! `atom.cas.b128`/`atom.exch.b128` sm_90 with PTX ISA 8.3, and `.b128` at `.sys` PTX ISA 8.4.
//! A kernel that uses an operation on a target without it must fail to compile with a message
//! naming the requirement (as the cluster scope does, `cluster_gate.rs`), and compile where the
//! target has it. Skipped without the tools, as the conformance test is; a failure with `CI=true`.

mod scratch;

use scoped_atomics_host::ptx::{Target, Toolchain};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A kernel crate whose one kernel does `$body` on `a: &Atomic<u128, $scope>`.
fn kernel(scope: &str, body: &str) -> String {
    format!(
        r#"#![no_std]
#![feature(abi_ptx)]
use scoped_atomics::{{Atomic, {scope}, Ordering}};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wide(p: *mut u128, out: *mut u128) {{
    // SAFETY: the launcher passes valid, 16-aligned locations.
    let a = unsafe {{ Atomic::<u128, {scope}>::from_ptr(p) }};
    let value = {body};
    // SAFETY: as above.
    unsafe {{ out.write(value) }};
}}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {{
    loop {{}}
}}
"#
    )
}

/// The scratch crate `wide-gate` (its own workspace, depending on `atomics/`) with `source`.
fn scratch_crate(tc: &Toolchain, source: &str) -> PathBuf {
    scratch::crate_dir(tc, "wide-gate", ", default-features = false", source)
}

/// Builds the scratch crate with `rustflags` into `target_dir`; returns cargo's output and the
/// PTX file.
fn build(tc: &Toolchain, dir: &Path, rustflags: &str, target_dir: &Path) -> (Output, PathBuf) {
    scratch::build_with(tc, dir, target_dir, rustflags, scratch::Extra::default())
}

fn expect_error(what: &str, (output, _): (Output, PathBuf), message: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{what} compiled:\n{stderr}");
    assert!(
        stderr.contains(message),
        "{what} failed without the message `{message}`:\n{stderr}"
    );
}

fn expect_ptx(what: &str, (output, ptx): (Output, PathBuf), instruction: &str) {
    assert!(
        output.status.success(),
        "{what} did not compile:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let ptx = std::fs::read_to_string(ptx).unwrap();
    assert!(
        ptx.contains(instruction),
        "{what}: no `{instruction}` in\n{ptx}"
    );
}

#[test]
fn wide_atomics_are_compile_errors_where_the_target_lacks_them() {
    let Some(tc) = scratch::toolchain("wide_gate") else {
        return;
    };
    let load = kernel("Device", "a.load(Ordering::Acquire)");
    let rmw = kernel("Device", "a.fetch_add(1, Ordering::AcqRel)");
    let sys_load = kernel("System", "a.load(Ordering::Relaxed)");
    // The conformance build's target directories and profile, so that their `core` is reused.
    let on = |t: Target| (t.rustflags(), tc.target_dir(t));

    let (flags, td) = on(Target::Sm80);
    let dir = scratch_crate(&tc, &load);
    expect_error(
        "a 128-bit load for sm_80 (PTX ISA 7.0)",
        build(&tc, &dir, &flags, &td),
        "128-bit atomic load/store (PTX `ld`/`st` `.b128`) needs PTX ISA 8.3",
    );

    let (flags, td) = on(Target::Sm90);
    let dir = scratch_crate(&tc, &rmw);
    let out = build(&tc, &dir, &flags, &td);
    // One error, the read-modify-write's (its compare-and-swap loop's first load is not
    // reported as a load/store the target lacks), saying where to look for the call.
    let stderr = String::from_utf8_lossy(&out.0.stderr).into_owned();
    assert!(
        !stderr.contains("load/store") && stderr.matches("error[E0080]").count() == 1,
        "{stderr}"
    );
    expect_error(
        "a 128-bit fetch_add for sm_90 (PTX ISA 7.8)",
        out,
        "128-bit atomic read-modify-writes (`swap`, `compare_exchange`, `fetch_*`: PTX \
         `atom.cas.b128`/`atom.exch.b128`) need sm_90 or newer with PTX ISA 8.3",
    );
    assert!(
        stderr.contains("The call is a `u128`/`i128` atomic operation in the kernel crate"),
        "{stderr}"
    );

    let (flags, td) = on(Target::Sm90Ptx86);
    let out = build(&tc, &dir, &flags, &td);
    expect_ptx(
        "a 128-bit fetch_add for sm_90 + PTX 8.6",
        out,
        "atom.acq_rel.gpu.cas.b128",
    );

    // Loads and stores need only PTX ISA 8.3, from sm_70 (8.4 at the System scope).
    let flags = Target::Sm70.rustflags().replace(
        "target-cpu=sm_70",
        "target-cpu=sm_70 -C target-feature=+ptx83",
    );
    assert_ne!(flags, Target::Sm70.rustflags());
    let td = tc.root.join("target/ptx/wide-gate-sm_70_ptx83");
    let dir = scratch_crate(&tc, &load);
    let out = build(&tc, &dir, &flags, &td);
    let file = out.1.clone();
    expect_ptx(
        "a 128-bit load for sm_70 + PTX 8.3",
        out,
        "ld.acquire.gpu.b128",
    );
    // … and NVIDIA's assembler agrees (ptxas 12.9, the one for sm_70).
    let ptxas = Command::new(tc.ptxas(Target::Sm70))
        .arg("-arch=sm_70")
        .arg(&file)
        .arg("-o")
        .arg(dir.join("sm_70_ptx83.cubin"))
        .output()
        .expect("running ptxas");
    assert!(
        ptxas.status.success(),
        "ptxas rejected the sm_70 + PTX 8.3 load:\n{}",
        String::from_utf8_lossy(&ptxas.stderr)
    );
    let dir = scratch_crate(&tc, &sys_load);
    expect_error(
        "a System-scope 128-bit load for sm_70 + PTX 8.3",
        build(&tc, &dir, &flags, &td),
        "a 128-bit atomic at the System scope (`.b128` with `.sys`) needs PTX ISA 8.4",
    );
}
