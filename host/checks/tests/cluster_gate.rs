//! The cluster scope needs sm_90 (PTX ISA 7.8): a kernel that uses `Cluster` must fail to
//! compile for sm_80 with a message that says so, and must compile for sm_90 from
//! `-C target-cpu=sm_90` alone (rustc sets no `ptx78` there). Skipped without the tools, as the
//! conformance test is; a failure with `CI=true`.

mod scratch;

use scoped_atomics_host::ptx::{Target, Toolchain};
use std::path::Path;
use std::process::Output;

const KERNEL: &str = r#"#![no_std]
#![feature(abi_ptx)]
use scoped_atomics::{Atomic, Cluster, Ordering};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn cluster_counter(p: *mut u32) {
    // SAFETY: the launcher passes a valid location.
    unsafe { Atomic::<u32, Cluster>::from_ptr(p) }.fetch_add(1, Ordering::Relaxed);
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
"#;

/// Builds the scratch crate at `dir` for `target`, into the conformance build's target directory
/// (so that its `core` is reused).
fn build(tc: &Toolchain, dir: &Path, target: Target) -> Output {
    let extra = scratch::Extra::default();
    scratch::build_with(tc, dir, &tc.target_dir(target), &target.rustflags(), extra).0
}

#[test]
fn cluster_scope_is_a_compile_error_before_sm_90_and_compiles_on_sm_90() {
    let Some(tc) = scratch::toolchain("cluster_gate") else {
        return;
    };
    let dir = scratch::crate_dir(&tc, "cluster-gate", ", default-features = false", KERNEL);

    let sm80 = build(&tc, &dir, Target::Sm80);
    let stderr = String::from_utf8_lossy(&sm80.stderr);
    assert!(
        !sm80.status.success(),
        "the cluster scope compiled for sm_80:\n{stderr}"
    );
    assert!(
        stderr.contains("the Cluster scope, PTX `.cluster`; cluster indices, cluster_sync, map_shared_rank) need sm_90"),
        "the sm_80 build failed without the cluster message:\n{stderr}"
    );

    let sm90 = build(&tc, &dir, Target::Sm90);
    assert!(
        sm90.status.success(),
        "the cluster scope did not compile for sm_90:\n{}",
        String::from_utf8_lossy(&sm90.stderr)
    );
}
