//! The simulator at the documented thread limit (2^20 threads), CTAs made resident as a GPU
//! makes them, and schedules run in parallel (`--jobs`) with the output of a sequential run.

mod common;

use common::{corpus, ptx_sim as run};
use ptx_sim::{Arg, FindingKind, Launch, Simulator, resident_ctas};

/// Each thread writes its global index into word `index` of buffer 0.
const INDEX_PTX: &str = include_str!("fixtures/index.ptx");

/// Thread 0 of every CTA but the last spins until the last CTA's thread 0 sets the flag (word 0
/// of buffer 0): the kernel needs every CTA resident at once.
const WAIT_FOR_LAST_PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64

.visible .entry wait_for_last(.param .u64 flag)
{
\t.reg .pred %p<4>;
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<2>;
\tld.param.u64 %rd1, [flag];
\tmov.u32 %r1, %tid.x;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %nctaid.x;
\tsub.u32 %r4, %r3, 1;
\tsetp.eq.u32 %p2, %r2, %r4;
\t@%p2 bra SET;
SPIN:
\tld.relaxed.gpu.global.u32 %r5, [%rd1];
\tsetp.eq.u32 %p1, %r5, 0;
\t@%p1 bra SPIN;
\tbra.uni DONE;
SET:
\tmov.u32 %r6, 1;
\tst.relaxed.gpu.global.u32 [%rd1], %r6;
DONE:
\tret;
}
";

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

#[test]
fn a_launch_at_the_thread_limit_runs_with_race_detection() {
    // 1024 x 1024 threads: the dense vector clocks of the old detector (2^20 entries for each of
    // 2^20 threads) did not fit in memory.
    let kernel = Simulator::new(INDEX_PTX).unwrap().kernel("index").unwrap();
    let n = 1u32 << 20;
    let launch = Launch::new(
        [1024, 1, 1],
        [1024, 1, 1],
        vec![Arg::Buffer(vec![0; 4 * n as usize])],
    );
    let out = kernel.launch(&launch, Vec::new()).unwrap();
    assert!(
        out.completed && out.findings.is_empty(),
        "{:?}",
        out.findings
    );
    assert_eq!(out.instructions, 9 * u64::from(n));
    assert!(words(&out.buffers[0]).into_iter().eq(0..n));
}

#[test]
fn ctas_beyond_the_resident_limit_run_when_others_finish() {
    // A block-sum kernel with shared memory and barriers gives the same sums whether its 8 CTAs
    // run together or 3 at a time (their shared memory fresh for each CTA).
    let sim = Simulator::new(&std::fs::read_to_string(corpus("reductions.ptx")).unwrap()).unwrap();
    let kernel = sim.kernel("block_sum").unwrap();
    let values: Vec<i32> = (0..8 * 128).map(|i| (i * 7 % 23) - 11).collect();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let sums: Vec<u32> = values
        .chunks(128)
        .map(|c| c.iter().sum::<i32>() as u32)
        .collect();
    for resident in [None, Some(3), Some(1)] {
        for seed in 1..=3 {
            let mut l = Launch::new(
                [8, 1, 1],
                [128, 1, 1],
                vec![Arg::Buffer(bytes.clone()), Arg::Buffer(vec![0; 4 * 8])],
            );
            l.seed = seed;
            l.resident_ctas = resident;
            let out = kernel.launch(&l, Vec::new()).unwrap();
            assert!(out.findings.is_empty(), "{resident:?}: {:?}", out.findings);
            assert_eq!(words(&out.buffers[1]), sums, "{resident:?}, seed {seed}");
        }
    }
}

#[test]
fn a_kernel_needing_more_resident_ctas_than_the_limit_hangs_and_says_why() {
    let kernel = Simulator::new(WAIT_FOR_LAST_PTX)
        .unwrap()
        .kernel("wait_for_last")
        .unwrap();
    let launch = |resident| {
        let mut l = Launch::new([4, 1, 1], [32, 1, 1], vec![Arg::Buffer(vec![0; 4])]);
        l.resident_ctas = resident;
        l
    };
    // Every CTA resident (the default, and 4): the last CTA sets the flag.
    for resident in [None, Some(4)] {
        let out = kernel.launch(&launch(resident), Vec::new()).unwrap();
        assert!(out.completed, "{resident:?}: {:?}", out.findings);
    }
    // 3 at a time: CTAs 0 to 2 wait for CTA 3, which cannot start until one of them finishes.
    let out = kernel.launch(&launch(Some(3)), Vec::new()).unwrap();
    let f = &out.findings[0];
    assert_eq!(f.kind, FindingKind::Hang, "{f}");
    assert!(
        f.text.contains("1 CTAs have not started")
            && f.text.contains("at most 3 CTAs are resident"),
        "{f}"
    );
}

#[test]
fn a_cooperative_launch_beyond_the_resident_limit_is_refused() {
    let kernel = Simulator::new(INDEX_PTX).unwrap().kernel("index").unwrap();
    let mut l = Launch::new([4, 1, 1], [32, 1, 1], vec![Arg::Buffer(vec![0; 4 * 128])]);
    l.cooperative = true;
    l.resident_ctas = Some(3);
    let e = kernel.launch(&l, Vec::new()).unwrap_err().to_string();
    assert!(
        e.contains("cooperative launch of 4 CTAs") && e.contains("3"),
        "{e}"
    );
    l.resident_ctas = Some(4);
    assert!(kernel.launch(&l, Vec::new()).unwrap().completed);
}

#[test]
fn the_default_residency_is_at_least_a_large_gpus() {
    // An H100 holds 132 SMs x 2 CTAs of 1024 threads, x 8 of 256, x 32 of 32 at most.
    assert!(resident_ctas(1024) >= 132 * 2);
    assert!(resident_ctas(256) >= 132 * 8);
    assert!(resident_ctas(32) >= 132 * 32);
}

#[test]
fn jobs_give_the_output_of_a_sequential_run() {
    // A racy kernel (found in some schedules) and a race-free one, several first seeds: the
    // text and JSON outputs and exit codes of --jobs 1 and --jobs 2 (and 3) are the same.
    let file = corpus("last_block.ptx");
    let mut saw_finding = false;
    for (kernel, volatile) in [
        ("last_block_sum", "plain"),
        ("last_block_sum_unfenced", "relaxed-sys"),
        ("last_block_sum_fenced", "plain"),
    ] {
        for seed in ["1", "7", "40"] {
            for json in [false, true] {
                let mut args = vec![
                    file.as_str(),
                    "--kernel",
                    kernel,
                    "--grid",
                    "4",
                    "--block",
                    "64",
                    "--arg",
                    "buf:i32:256:3",
                    "--arg",
                    "buf:i32:4",
                    "--arg",
                    "buf:i32:1",
                    "--volatile",
                    volatile,
                    "--seed",
                    seed,
                    "--schedules",
                    "5",
                ];
                if json {
                    args.push("--json");
                }
                let with = |jobs: &str| {
                    let mut a = args.clone();
                    a.extend(["--jobs", jobs]);
                    run(&a)
                };
                let one = with("1");
                saw_finding |= one.0 == 1;
                assert!(one.0 == 0 || one.0 == 1, "{one:?}");
                assert_eq!(one, with("2"), "{kernel} seed {seed}");
                assert_eq!(one, with("3"), "{kernel} seed {seed}");
            }
        }
    }
    assert!(saw_finding);
}

#[test]
fn bad_jobs_and_resident_ctas_are_named() {
    for (flag, value) in [("--jobs", "0"), ("--resident-ctas", "0"), ("--jobs", "x")] {
        let (code, _, err) = run(&[
            "k.ptx", "--kernel", "k", "--grid", "1", "--block", "1", flag, value,
        ]);
        assert_eq!(code, 2);
        assert!(
            err.contains(flag) && err.contains(value) && !err.contains("panicked"),
            "{err}"
        );
    }
}
