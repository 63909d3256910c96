//! The cluster kernel API on the device: a kernel that uses the cluster indices, `cluster_sync`,
//! the split arrive/wait and `map_shared_rank` compiles for sm_90 to the cluster instructions
//! (`%cluster_ctarank`, `barrier.cluster.arrive`/`.wait`, `mapa` behind its two trapping checks)
//! and assembles with ptxas; for sm_80 it is a compile error that says why, while a kernel that
//! does not use clusters still builds for sm_80. Skipped without the tools; a failure with
//! `CI=true`.

mod scratch;

use scoped_atomics_host::ptx::{Target, assemble};

const CLUSTER_KERNEL: &str = r#"
use scoped_atomics::kernel::{cluster_arrive, cluster_arrive_relaxed, cluster_rank, cluster_size, cluster_sync, map_shared_rank, thread_idx};
use scoped_atomics::{block_shared, AtomicRef, Cluster, Ordering};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn cluster_exchange(out: *mut u32) {
    let own = block_shared!(WORD: [u32; 1]).cast::<u32>();
    // SAFETY: block-shared words, accessed atomically only; `out` holds one word per rank.
    let word = |p| unsafe { AtomicRef::<u32, Cluster>::from_ptr(p) };
    if thread_idx().x == 0 {
        word(own).store(0, Ordering::Relaxed);
    }
    // SAFETY: each arrival is waited for before the next.
    unsafe { cluster_arrive_relaxed() }.wait();
    let next = (cluster_rank() + 1) % cluster_size();
    word(map_shared_rank(own, next)).fetch_add(1, Ordering::Relaxed);
    // SAFETY: waited for on the next line.
    let arrival = unsafe { cluster_arrive() };
    arrival.wait();
    if thread_idx().x == 0 {
        unsafe { out.add(cluster_rank() as usize).write(word(own).load(Ordering::Relaxed)) };
    }
    cluster_sync();
}
"#;

const PLAIN_KERNEL: &str = r#"
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn plain(out: *mut u32) {
    unsafe { out.write(scoped_atomics::kernel::thread_idx().x) };
}
"#;

#[test]
fn cluster_functions_compile_to_cluster_instructions_on_sm_90_and_assemble() {
    let Some(tc) = scratch::toolchain("device_cluster") else {
        return;
    };
    let source = format!("{}{CLUSTER_KERNEL}", scratch::PRELUDE);
    let dir = scratch::crate_dir(&tc, "cluster-api", ", default-features = false", &source);
    let target = Target::Sm90;
    let (text, ptx) = scratch::ptx(&tc, &dir, target);
    for expected in [
        "mov.u32 %r",
        "%cluster_ctarank",
        "%cluster_nctarank",
        "barrier.cluster.arrive;",
        "barrier.cluster.wait;",
        "isspacep.shared::cta",
        "mapa.u64",
        "atom.relaxed.cluster",
    ] {
        assert!(
            text.contains(expected),
            "no `{expected}` in the sm_90 PTX:\n{text}"
        );
    }
    // The rank check sits before `mapa`, with a trap.
    let (check, mapa) = (
        text.find("setp.ge.u32").unwrap(),
        text.find("mapa.u64").unwrap(),
    );
    assert!(
        check < mapa && text[check..mapa].contains("trap;"),
        "{text}"
    );
    if let Err(e) = assemble(&tc, &ptx, target) {
        panic!("ptxas refused the cluster kernel: {e}\n{text}");
    }
}

#[test]
fn cluster_functions_are_a_compile_error_before_sm_90_and_cost_nothing_unused() {
    let Some(tc) = scratch::toolchain("device_cluster") else {
        return;
    };
    let target = Target::Sm80;
    let source = format!("{}{CLUSTER_KERNEL}", scratch::PRELUDE).replace("Cluster", "Device");
    let dir = scratch::crate_dir(
        &tc,
        "cluster-api-sm80",
        ", default-features = false",
        &source,
    );
    let build = |dir| scratch::build(&tc, dir, target);
    let (out, _) = build(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the cluster functions compiled for sm_80"
    );
    assert!(
        stderr.contains(
            "thread-block clusters (the Cluster scope, PTX `.cluster`; cluster indices, \
             cluster_sync, map_shared_rank) need sm_90"
        ),
        "the sm_80 build failed without the cluster message:\n{stderr}"
    );
    let plain = format!("{}{PLAIN_KERNEL}", scratch::PRELUDE);
    let dir = scratch::crate_dir(
        &tc,
        "cluster-api-unused",
        ", default-features = false",
        &plain,
    );
    let (out, _) = build(&dir);
    assert!(
        out.status.success(),
        "a kernel without clusters did not build for sm_80:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
