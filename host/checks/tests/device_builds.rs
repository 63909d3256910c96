//! Issue 10, bugs 7 and 8: how a user's device crate is built.
//!
//! * Bug 8: `scoped-atomics` with its default features (`std`) must build for
//!   `nvptx64-nvidia-cuda`: the feature has no meaning on the device.
//! * Bug 7: a kernel using the `Cluster` scope built with `-C target-cpu=sm_90` only after `--`
//!   (so the flag reaches the user's crate but not its dependencies) fails, and the message must
//!   say that the flag has to reach the dependencies — through `RUSTFLAGS` or the target's
//!   `rustflags` — rather than tell the user to pass the flag they already passed.

mod scratch;

use scoped_atomics_host::ptx::Target;

const COUNTER: &str = r#"
use scoped_atomics::{Atomic, Device, Ordering};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn counter(p: *mut u32) {
    // SAFETY: the launcher passes a valid location.
    unsafe { Atomic::<u32, Device>::from_ptr(p) }.fetch_add(1, Ordering::Relaxed);
}
"#;

#[test]
fn a_device_build_with_default_features_works() {
    let Some(tc) = scratch::toolchain("device_builds") else {
        return;
    };
    // No `default-features = false`: what `cargo add scoped-atomics` writes.
    let dir = scratch::crate_dir(
        &tc,
        "default-features",
        "",
        &format!("{}{COUNTER}", scratch::PRELUDE),
    );
    let kernels = scratch::kernels(&tc, &dir, Target::Sm80);
    let body = scratch::mnemonics(scratch::kernel(&kernels, "counter"));
    assert!(
        body.iter().any(|m| m == "atom.relaxed.gpu.add.u32"),
        "the counter kernel has no device-scope fetch_add: {body:?}"
    );
}

const CLUSTER: &str = r#"
use scoped_atomics::{Atomic, Cluster, Ordering};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn cluster_counter(p: *mut u32) {
    // SAFETY: the launcher passes a valid location.
    unsafe { Atomic::<u32, Cluster>::from_ptr(p) }.fetch_add(1, Ordering::Relaxed);
}
"#;

#[test]
fn sm_90_only_after_the_double_dash_is_explained() {
    let Some(tc) = scratch::toolchain("device_builds") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "cluster-after-dash",
        ", default-features = false",
        &format!("{}{CLUSTER}", scratch::PRELUDE),
    );
    // The conformance flags without the target CPU, which comes after `--` only.
    let flags = Target::Sm80
        .rustflags()
        .replace(Target::Sm80.target_flags(), "");
    // A target directory of its own: these flags must not invalidate the conformance build's.
    let (out, _) = scratch::build_with(
        &tc,
        &dir,
        &tc.root.join("target/ptx/scratch-cpu-after-dash"),
        &flags,
        scratch::Extra {
            rustc: &["-C", "target-cpu=sm_90"],
            ..Default::default()
        },
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "built without sm_90 in the dependencies:\n{stderr}"
    );
    assert!(
        stderr.contains("the Cluster scope (PTX `.cluster`) needs sm_90"),
        "no cluster message:\n{stderr}"
    );
    assert!(
        stderr.contains("RUSTFLAGS") && stderr.contains("not only after `--`"),
        "the message does not say how the flag reaches the dependencies:\n{stderr}"
    );
}
