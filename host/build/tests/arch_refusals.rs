//! Issue 32, item 5: a kernel crate that uses an operation its target lacks is refused by
//! `PtxBuilder` in a few lines — what needs what, the target it was compiled for, and the builder
//! call that fixes it — with cargo's command and rustc's full output only with
//! `PtxBuilder::verbose(true)`; and the builder's own flags add no warning to that output.
//! Builds scratch kernel crates (under `target/ptx/scratch-refusals`); skipped without the pinned
//! nightly (a failure with `CI=true`).

mod common;

use common::{kernel_crate, tools};
use scoped_atomics_build::{Error, PtxBuilder, ptx::Toolchain};
use std::path::Path;

/// Builds the crate for `arch` into one output directory shared by the tests (so that `core` is
/// built once per architecture), expecting a refusal; its message.
fn refusal(tc: &Toolchain, dir: &Path, arch: &str, verbose: bool) -> String {
    let e = PtxBuilder::new(dir)
        .arch(arch)
        .out_dir(tc.root.join("target/ptx/scratch-refusals/out"))
        .verbose(verbose)
        .build()
        .expect_err("the build succeeded");
    assert!(matches!(e, Error::Cargo { .. }), "{e:?}");
    e.to_string()
}

/// The short form: one refusal naming what needs what and the compiled target, the builder call
/// that fixes it, and no cargo command, progress line or warning.
fn assert_short(text: &str, needs: &str, compiled_for: &str, fix: &str, flag: &str) {
    let lines = text.lines().count();
    assert!(lines <= 5, "{lines} lines:\n{text}");
    assert_eq!(
        text.matches("scoped-atomics: ").count(),
        1,
        "one refusal:\n{text}"
    );
    for part in [needs, compiled_for, fix, flag, "PtxBuilder::verbose(true)"] {
        assert!(text.contains(part), "no `{part}` in:\n{text}");
    }
    for noise in [
        "Compiling",
        "warning",
        "--emit=asm",
        "-Ctarget-cpu",
        "note:",
        "-->",
    ] {
        assert!(!text.contains(noise), "`{noise}` in:\n{text}");
    }
}

const CLUSTER_SYNC: &str = r#"
use scoped_atomics::kernel::cluster_sync;

#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn everyone_meets() {
    cluster_sync();
}
"#;

/// Distributed shared memory as the guide writes it: `map_shared_rank` (the cluster API) and a
/// `Cluster`-scope atomic on the mapped location (the Cluster scope), two gates of one misuse.
const CLUSTER_SCOPE: &str = r#"
use scoped_atomics::kernel::{cluster_rank, cluster_size, cluster_sync, map_shared_rank};
use scoped_atomics::{AtomicRef, Cluster, Ordering, block_shared};

#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn count_in_the_next_block() {
    let bins = block_shared!(BINS: [u32; 4]).cast::<u32>();
    cluster_sync();
    let next = map_shared_rank(bins, (cluster_rank() + 1) % cluster_size());
    // SAFETY: a block-shared location of a block of the cluster, which runs until the second
    // cluster_sync; racing accesses are atomic.
    unsafe { AtomicRef::<u32, Cluster>::from_ptr(next) }.fetch_add(1, Ordering::Relaxed);
    cluster_sync();
}
"#;

const REDUX: &str = r#"
use scoped_atomics::kernel::{lane_id, reduce_add_sync};

#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warp_sum(out: *mut u32) {
    let sum = reduce_add_sync(u32::MAX, lane_id());
    // SAFETY: the launcher passes a valid location.
    unsafe { out.write(sum) };
}
"#;

/// The cluster API before sm_90: the old message named neither the target nor the builder call,
/// and came in ~45 lines with the cargo command; the sm_86 build's output carried the builder's
/// own `+ptx71` warning.
#[test]
fn the_cluster_api_before_sm_90_is_refused_in_a_few_lines() {
    let Some(tc) = tools("the_cluster_api_before_sm_90_is_refused_in_a_few_lines") else {
        return;
    };
    let dir = kernel_crate(&tc, "cluster-api-refusal", CLUSTER_SYNC);
    let text = refusal(&tc, &dir, "sm_86", false);
    assert_short(
        &text,
        "thread-block clusters (the Cluster scope, PTX `.cluster`; cluster indices, cluster_sync, \
         map_shared_rank) need sm_90",
        "compiled for sm_86 with PTX ISA 7.1",
        "PtxBuilder::arch(\"sm_90\")",
        "--target sm_90`",
    );
    // Verbose: the same refusal, then the command and cargo's whole output, in which the
    // builder's own flags raise no warning.
    let verbose = refusal(&tc, &dir, "sm_86", true);
    assert!(
        verbose.starts_with(&text[..text.find("\n  (").unwrap()]),
        "{verbose}"
    );
    assert!(verbose.contains("-Ctarget-cpu=sm_86") && verbose.contains("--emit=asm"));
    assert!(
        verbose.contains("note: erroneous constant encountered"),
        "{verbose}"
    );
    assert!(
        !verbose.contains("unstable feature specified for `-Ctarget-feature`"),
        "{verbose}"
    );
}

/// The cluster API and the Cluster scope together: the old builder reported two errors (two
/// messages, one naming no target), each with its notes.
#[test]
fn the_cluster_scope_before_sm_90_is_refused_in_a_few_lines() {
    let Some(tc) = tools("the_cluster_scope_before_sm_90_is_refused_in_a_few_lines") else {
        return;
    };
    let dir = kernel_crate(&tc, "cluster-scope-refusal", CLUSTER_SCOPE);
    assert_short(
        &refusal(&tc, &dir, "sm_86", false),
        "thread-block clusters (the Cluster scope, PTX `.cluster`; cluster indices, cluster_sync, \
         map_shared_rank) need sm_90",
        "compiled for sm_86 with PTX ISA 7.1",
        "PtxBuilder::arch(\"sm_90\")",
        "--target sm_90`",
    );
}

/// `redux` before sm_80: the old message named no target.
#[test]
fn a_warp_reduction_before_sm_80_is_refused_in_a_few_lines() {
    let Some(tc) = tools("a_warp_reduction_before_sm_80_is_refused_in_a_few_lines") else {
        return;
    };
    let dir = kernel_crate(&tc, "redux-refusal", REDUX);
    assert_short(
        &refusal(&tc, &dir, "sm_75", false),
        "the warp reductions (`reduce_*_sync`: PTX `redux.sync`) need sm_80",
        "compiled for sm_75 with PTX ISA 7.0",
        "PtxBuilder::arch(\"sm_80\")",
        "--target sm_80`",
    );
}
