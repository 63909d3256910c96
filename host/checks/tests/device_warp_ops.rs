//! Issue 25, item 4, on the device: every warp operation of the kernel API is its PTX
//! instruction (`shfl.sync.{idx,up,down,bfly}`, `vote.sync.{ballot,all,any}`, `activemask`,
//! `match.{any,all}.sync`, `redux.sync`, the non-`.aligned` `barrier.red`), and ptxas assembles
//! the kernel for sm_80; on sm_70 a warp reduction is a compile-time error that says how to build
//! for sm_80. Skipped without the tools (a failure with `CI=true`).

mod scratch;

use scoped_atomics_host::ptx::{self, Target};

const WARP_OPS: &str = r#"
use scoped_atomics::kernel::*;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warp_ops(out: *mut u64) {
    let lane = lane_id();
    let mut acc = u64::from(shfl_sync(FULL_WARP, lane, 3, 32));
    acc += u64::from(shfl_up_sync(FULL_WARP, lane, 1, 16));
    acc += shfl_down_sync(FULL_WARP, u64::from(lane) << 33, 2, 32);
    acc += shfl_xor_sync(FULL_WARP, f32::from_bits(lane), 1, 32).to_bits() as u64;
    acc += u64::from(ballot_sync(FULL_WARP, lane % 2 == 0));
    acc += u64::from(all_sync(FULL_WARP, lane < 16)) + u64::from(any_sync(FULL_WARP, lane == 3));
    acc += u64::from(activemask());
    acc += u64::from(match_any_sync(FULL_WARP, lane / 4));
    acc += u64::from(match_all_sync(FULL_WARP, 7u64).unwrap_or(0));
    acc += u64::from(reduce_add_sync(FULL_WARP, lane)) + reduce_min_sync(FULL_WARP, lane as i32) as u64;
    acc += u64::from(reduce_max_sync(FULL_WARP, lane) ^ reduce_xor_sync(FULL_WARP, lane));
    acc += u64::from(reduce_and_sync(FULL_WARP, lane) | reduce_or_sync(FULL_WARP, lane));
    acc += u64::from(sync_threads_count(lane == 0));
    acc += u64::from(sync_threads_and(true)) + u64::from(sync_threads_or(false));
    // SAFETY: the launcher passes one slot per thread.
    unsafe { out.add(thread_idx().x as usize).write(acc) };
}
"#;

#[test]
fn every_warp_operation_is_its_ptx_instruction_and_ptxas_assembles_it() {
    let Some(tc) = scratch::toolchain("device_warp_ops") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "warp-ops",
        ", default-features = false",
        &format!("{}{WARP_OPS}", scratch::PRELUDE),
    );
    let kernels = scratch::kernels(&tc, &dir, Target::Sm80);
    let body = scratch::mnemonics(scratch::kernel(&kernels, "warp_ops"));
    for expected in [
        "shfl.sync.idx.b32",
        "shfl.sync.up.b32",
        "shfl.sync.down.b32",
        "shfl.sync.bfly.b32",
        "vote.sync.ballot.b32",
        "vote.sync.all.pred",
        "vote.sync.any.pred",
        "activemask.b32",
        "match.any.sync.b32",
        "match.all.sync.b64",
        "redux.sync.add.u32",
        "redux.sync.min.s32",
        "redux.sync.max.u32",
        "redux.sync.xor.b32",
        "redux.sync.and.b32",
        "redux.sync.or.b32",
        "barrier.red.popc.u32",
    ] {
        assert!(
            body.iter().any(|m| m == expected),
            "no {expected} in {body:?}"
        );
    }
    // A 64-bit shuffle is two 32-bit ones.
    assert!(
        body.iter().filter(|m| *m == "shfl.sync.down.b32").count() >= 2,
        "{body:?}"
    );
    let ptx_file = dir.join("sm_80.ptx");
    ptx::assemble(&tc, &ptx_file, Target::Sm80).unwrap_or_else(|e| panic!("ptxas: {e}"));
}

#[test]
fn a_warp_reduction_before_sm_80_is_a_compile_error_saying_how_to_build_for_sm_80() {
    let Some(tc) = scratch::toolchain("device_warp_ops") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "warp-reduce-sm70",
        ", default-features = false",
        &format!(
            "{}{}",
            scratch::PRELUDE,
            r#"
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sum(out: *mut u32) {
    let s = scoped_atomics::kernel::reduce_add_sync(u32::MAX, 1u32);
    // SAFETY: the launcher passes a valid location.
    unsafe { out.write(s) };
}
"#
        ),
    );
    let target = Target::Sm70;
    let stderr = scratch::compile_error(&tc, &dir, target, "a warp reduction");
    assert!(
        stderr.contains("the warp reductions (`reduce_*_sync`: PTX `redux.sync`) need sm_80")
            && stderr.contains("compiled for sm_70 with PTX ISA 7.0")
            && stderr.contains("PtxBuilder::arch(\"sm_80\")"),
        "no message naming the target and how to build for sm_80:\n{stderr}"
    );
}
