//! Issue 29, item 4: the host emulation of every warp operation equals the device's. One warp
//! runs every case — each shuffle mode (`idx`, `up`, `down`, `bfly`) at each width (1 to 32),
//! the votes, `match.sync` and the `redux.sync` reductions — for every operand 0..63, once on the
//! host executor (the kernel API's emulation) and once in the simulator (a generated PTX kernel
//! whose instructions are the ones the kernel API emits on the device), and the lanes' results
//! must be the same.
//!
//! The shuffles get `b` = the operand (so `b[4:0]` and the bits above it are both exercised) and
//! each lane's value is `lane * 7 + 3`, which names the source lane. The other operations get
//! `(lane * operand) >> 3` as each lane's value (its bit 0 as the predicate; minus 40 as the
//! signed value of the signed reductions).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use ptx_sim::{Arg, Launch, Simulator};
use scoped_atomics::kernel::{self, Dim3, FULL_WARP};

/// The operands of every case.
const OPERANDS: u32 = 64;
/// The shuffle widths.
const WIDTHS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// One warp operation of the kernel API, with what it is on the device.
#[derive(Clone, Copy, Debug)]
enum Case {
    /// A shuffle of `mode` (the PTX name) at `width`.
    Shuffle(&'static str, u32),
    Ballot,
    All,
    Any,
    MatchAny,
    MatchAll,
    /// `redux.sync.<op>.<type>`.
    Reduce(&'static str, &'static str),
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for mode in ["idx", "up", "down", "bfly"] {
        for width in WIDTHS {
            cases.push(Case::Shuffle(mode, width));
        }
    }
    cases.extend([
        Case::Ballot,
        Case::All,
        Case::Any,
        Case::MatchAny,
        Case::MatchAll,
    ]);
    for (op, ty) in [
        ("add", "u32"),
        ("min", "u32"),
        ("max", "u32"),
        ("min", "s32"),
        ("max", "s32"),
        ("and", "b32"),
        ("or", "b32"),
        ("xor", "b32"),
    ] {
        cases.push(Case::Reduce(op, ty));
    }
    cases
}

/// The value of `lane` for operand `n` of a non-shuffle case.
fn value(lane: u32, n: u32) -> u32 {
    (lane * n) >> 3
}

/// The case on the host emulation, in the calling lane.
fn on_host(case: Case, lane: u32, n: u32) -> u32 {
    use kernel::*;
    let v = value(lane, n);
    let signed = v as i32 - 40;
    let shuffled = lane * 7 + 3;
    match case {
        Case::Shuffle("idx", w) => shfl_sync(FULL_WARP, shuffled, n, w),
        Case::Shuffle("up", w) => shfl_up_sync(FULL_WARP, shuffled, n, w),
        Case::Shuffle("down", w) => shfl_down_sync(FULL_WARP, shuffled, n, w),
        Case::Shuffle(_, w) => shfl_xor_sync(FULL_WARP, shuffled, n, w),
        Case::Ballot => ballot_sync(FULL_WARP, v & 1 != 0),
        Case::All => u32::from(all_sync(FULL_WARP, v & 1 != 0)),
        Case::Any => u32::from(any_sync(FULL_WARP, v & 1 != 0)),
        Case::MatchAny => match_any_sync(FULL_WARP, v),
        Case::MatchAll => match_all_sync(FULL_WARP, v).unwrap_or(0),
        Case::Reduce("add", _) => reduce_add_sync(FULL_WARP, v),
        Case::Reduce("min", "u32") => reduce_min_sync(FULL_WARP, v),
        Case::Reduce("max", "u32") => reduce_max_sync(FULL_WARP, v),
        Case::Reduce("min", _) => reduce_min_sync(FULL_WARP, signed) as u32,
        Case::Reduce("max", _) => reduce_max_sync(FULL_WARP, signed) as u32,
        Case::Reduce("and", _) => reduce_and_sync(FULL_WARP, v),
        Case::Reduce("or", _) => reduce_or_sync(FULL_WARP, v),
        Case::Reduce(_, _) => reduce_xor_sync(FULL_WARP, v),
    }
}

/// The PTX of the case: the value in `%r3` (`%p1` its predicate), the result in `%r4`; `%r2` is
/// the operand and `%r9` the full mask.
fn ptx_of(case: Case) -> String {
    let operands = "\tmul.lo.u32 %r3, %r1, %r2;\n\tshr.u32 %r3, %r3, 3;\n\
                    \tand.b32 %r6, %r3, 1;\n\tsetp.ne.u32 %p1, %r6, 0;\n";
    match case {
        Case::Shuffle(mode, width) => {
            // The `c` operand CUDA's intrinsics pass (and the kernel API emits).
            let clamp = ((32 - width) << 8) | if mode == "up" { 0 } else { 0x1f };
            format!(
                "\tmad.lo.u32 %r3, %r1, 7, 3;\n\tshfl.sync.{mode}.b32 %r4, %r3, %r2, {clamp}, %r9;\n"
            )
        }
        Case::Ballot => format!("{operands}\tvote.sync.ballot.b32 %r4, %p1, %r9;\n"),
        Case::All => {
            format!("{operands}\tvote.sync.all.pred %p3, %p1, %r9;\n\tselp.u32 %r4, 1, 0, %p3;\n")
        }
        Case::Any => {
            format!("{operands}\tvote.sync.any.pred %p3, %p1, %r9;\n\tselp.u32 %r4, 1, 0, %p3;\n")
        }
        Case::MatchAny => format!("{operands}\tmatch.any.sync.b32 %r4, %r3, %r9;\n"),
        Case::MatchAll => format!(
            "{operands}\tmatch.all.sync.b32 %r4|%p3, %r3, %r9;\n\tselp.u32 %r4, %r4, 0, %p3;\n"
        ),
        Case::Reduce(op, ty) => {
            let signed = if ty == "s32" {
                "\tsub.s32 %r3, %r3, 40;\n"
            } else {
                ""
            };
            format!("{operands}{signed}\tredux.sync.{op}.{ty} %r4, %r3, %r9;\n")
        }
    }
}

/// One kernel that runs every case for every operand: result `[case][operand][lane]`.
fn kernel_ptx(cases: &[Case]) -> String {
    let mut ptx = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry warp_cases(.param .u64 out)\n{\n\
         \t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r9, -1;\n",
    );
    for (k, &case) in cases.iter().enumerate() {
        let base = k as u32 * OPERANDS * 32;
        ptx.push_str(&format!("\tmov.u32 %r2, 0;\n$L_case{k}:\n"));
        ptx.push_str(&ptx_of(case));
        ptx.push_str(&format!(
            "\tmad.lo.u32 %r5, %r2, 32, %r1;\n\tadd.u32 %r5, %r5, {base};\n\
             \tmul.wide.u32 %rd2, %r5, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
             \tst.global.u32 [%rd3], %r4;\n\tadd.u32 %r2, %r2, 1;\n\
             \tsetp.lt.u32 %p2, %r2, {OPERANDS};\n\t@%p2 bra $L_case{k};\n"
        ));
    }
    ptx.push_str("\tret;\n}\n");
    ptx
}

#[test]
fn every_warp_operation_on_the_host_equals_the_simulator() {
    let cases = cases();
    let slots = cases.len() * OPERANDS as usize * 32;

    let host: Vec<AtomicU32> = (0..slots).map(|_| AtomicU32::new(0)).collect();
    scoped_atomics_host::executor::launch(Dim3::x(1), Dim3::x(32), || {
        let lane = kernel::lane_id();
        for (k, &case) in cases.iter().enumerate() {
            for n in 0..OPERANDS {
                let slot = (k * OPERANDS as usize + n as usize) * 32 + lane as usize;
                host[slot].store(on_host(case, lane, n), Relaxed);
            }
        }
    })
    .unwrap();
    let host: Vec<u32> = host.into_iter().map(AtomicU32::into_inner).collect();

    let ptx = kernel_ptx(&cases);
    let sim = Simulator::new(&ptx).unwrap().kernel("warp_cases").unwrap();
    let mut launch = Launch::new([1; 3], [32, 1, 1], vec![Arg::Buffer(vec![0; slots * 4])]);
    launch.mode = ptx_sim::Mode::WarpLockstep;
    launch.hang_bound = 100_000_000;
    let outcome = sim.launch(&launch, Vec::new()).unwrap();
    assert!(outcome.completed, "{:?}", outcome.findings);
    assert!(outcome.findings.is_empty(), "{:?}", outcome.findings);
    let device: Vec<u32> = outcome.buffers[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();

    let mut differences = Vec::new();
    for (k, &case) in cases.iter().enumerate() {
        for n in 0..OPERANDS as usize {
            let at = (k * OPERANDS as usize + n) * 32;
            let (h, d) = (&host[at..at + 32], &device[at..at + 32]);
            if h != d {
                differences.push(format!(
                    "{case:?} operand {n}:\n  host   {h:?}\n  device {d:?}"
                ));
            }
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {} cases differ:\n{}",
        differences.len(),
        cases.len() * OPERANDS as usize,
        differences[..differences.len().min(8)].join("\n")
    );
}

/// The example of the issue, pinned: `shfl_xor_sync(FULL_WARP, lane, 4, 4)` is
/// `0 1 2 3 0 1 2 3 8 9 …` (a lane of the upper half of 8 reads the lane 4 below, in the segment
/// before its own).
#[test]
fn a_butterfly_of_width_4_reads_the_earlier_segment() {
    let out: Vec<AtomicU32> = (0..32).map(|_| AtomicU32::new(u32::MAX)).collect();
    scoped_atomics_host::executor::launch(Dim3::x(1), Dim3::x(32), || {
        let lane = kernel::lane_id();
        out[lane as usize].store(kernel::shfl_xor_sync(FULL_WARP, lane, 4, 4), Relaxed);
    })
    .unwrap();
    let out: Vec<u32> = out.into_iter().map(AtomicU32::into_inner).collect();
    let expected: Vec<u32> = (0..32)
        .map(|l| if l & 4 != 0 { l - 4 } else { l })
        .collect();
    assert_eq!(out, expected);
}
