//! The simulator's costs: set-up per thread (an empty kernel at 64 x 512), one schedule of a
//! trivial kernel at the thread limit (1024 x 1024 threads, with the peak memory of the
//! process), and simulated PTX instructions per second of a histogram kernel (8 x 256 threads:
//! shared-memory atomics, barriers, a grid-stride loop) with and without race detection.
//!
//! `cargo bench -p ptx-sim --bench scale`. Criterion reports throughput in elements per second:
//! threads for the set-up and the 2^20-thread launch (one over it is the time per thread),
//! PTX instructions for the histogram. The bench uses only the simulator's public API, so the
//! same file runs against an older version of the crate for a comparison. On a loaded machine
//! wall time overstates the cost: the summary lines at the end give each measure per CPU second
//! of the simulating thread (timed by the thread's CPU clock).

use criterion::{Criterion, Throughput};
use ptx_sim::{Arg, Launch, Simulator};
use std::hint::black_box;
use std::time::Duration;

/// `ret` only.
const EMPTY_PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64

.visible .entry empty(.param .u64 unused)
{
\tret;
}
";

/// Each thread writes its global index into its word of the buffer.
const INDEX_PTX: &str = include_str!("../tests/fixtures/index.ptx");

/// A histogram of 64 bins: bins in shared memory (zeroed, `bar.sync`), a grid-stride loop of
/// `atom.shared.add`, `bar.sync`, then one `red.global.add` per bin and CTA.
const HISTOGRAM_PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64

.shared .align 4 .b8 bins[256];

.visible .entry histogram(.param .u64 input, .param .u64 n, .param .u64 out)
{
\t.reg .pred %p<4>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\tld.param.u64 %rd1, [input];
\tld.param.u64 %rd2, [n];
\tld.param.u64 %rd3, [out];
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ntid.x;
\tmov.u32 %r3, %ctaid.x;
\tmov.u32 %r4, %nctaid.x;
\tmul.wide.u32 %rd4, %r1, 4;
\tmov.u64 %rd5, bins;
\tadd.s64 %rd6, %rd5, %rd4;
\tsetp.ge.u32 %p1, %r1, 64;
\t@%p1 bra ZEROED;
\tmov.u32 %r5, 0;
\tst.shared.u32 [%rd6], %r5;
ZEROED:
\tbar.sync 0;
\tmad.lo.s32 %r6, %r3, %r2, %r1;
\tmul.lo.s32 %r7, %r4, %r2;
\tcvt.u64.u32 %rd7, %r6;
\tcvt.u64.u32 %rd13, %r7;
LOOP:
\tsetp.ge.u64 %p2, %rd7, %rd2;
\t@%p2 bra DONE;
\tshl.b64 %rd8, %rd7, 2;
\tadd.s64 %rd9, %rd1, %rd8;
\tld.global.u32 %r8, [%rd9];
\tand.b32 %r9, %r8, 63;
\tmul.wide.u32 %rd10, %r9, 4;
\tadd.s64 %rd12, %rd5, %rd10;
\tatom.shared.add.u32 %r10, [%rd12], 1;
\tadd.s64 %rd7, %rd7, %rd13;
\tbra.uni LOOP;
DONE:
\tbar.sync 0;
\t@%p1 bra END;
\tld.shared.u32 %r11, [%rd6];
\tadd.s64 %rd15, %rd3, %rd4;
\tred.relaxed.gpu.global.add.u32 [%rd15], %r11;
END:
\tret;
}
";

/// Values in the histogram's input.
const VALUES: usize = 100_000;

/// CPU time of the calling thread in nanoseconds (Linux: the first field of
/// `/proc/thread-self/schedstat`).
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// CPU nanoseconds of the calling thread per call of `f`, over `runs` calls.
fn cpu_ns_per_run(runs: u32, mut f: impl FnMut()) -> Option<f64> {
    let start = thread_cpu_ns()?;
    for _ in 0..runs {
        f();
    }
    Some((thread_cpu_ns()? - start) as f64 / f64::from(runs))
}

/// The process's peak resident memory in KiB (Linux: `VmHWM` of `/proc/self/status`).
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(10)
        .configure_from_args();

    let empty = Simulator::new(EMPTY_PTX).unwrap().kernel("empty").unwrap();
    let setup = Launch::new([64, 1, 1], [512, 1, 1], vec![Arg::Buffer(vec![0; 4])]);
    let mut g = c.benchmark_group("sim set-up, empty kernel 64x512");
    g.throughput(Throughput::Elements(64 * 512));
    g.bench_function("threads", |b| {
        b.iter(|| black_box(empty.launch(&setup, Vec::new()).unwrap()))
    });
    g.finish();

    let index = Simulator::new(INDEX_PTX).unwrap().kernel("index").unwrap();
    let limit = Launch::new(
        [1024, 1, 1],
        [1024, 1, 1],
        vec![Arg::Buffer(vec![0; 4 << 20])],
    );
    let mut g = c.benchmark_group("sim trivial kernel 1024x1024");
    g.throughput(Throughput::Elements(1 << 20));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    g.bench_function("threads, race detection", |b| {
        b.iter(|| {
            let out = index.launch(&limit, Vec::new()).unwrap();
            assert!(out.findings.is_empty());
        })
    });
    g.finish();
    if let Some(kib) = peak_kib() {
        println!(
            "\nsim trivial kernel 1024x1024: peak resident memory of the bench process {:.0} MiB",
            kib as f64 / 1024.0
        );
    }

    let histogram = Simulator::new(HISTOGRAM_PTX)
        .unwrap()
        .kernel("histogram")
        .unwrap();
    let input: Vec<u8> = (0..VALUES as u32)
        .flat_map(|i| i.wrapping_mul(0x9e37_79b9).rotate_left(7).to_le_bytes())
        .collect();
    let launch = |race: bool| {
        let mut l = Launch::new(
            [8, 1, 1],
            [256, 1, 1],
            vec![
                Arg::Buffer(input.clone()),
                Arg::U64(VALUES as u64),
                Arg::Buffer(vec![0; 256]),
            ],
        );
        l.race_detection = race;
        l
    };
    let (plain, checked) = (launch(false), launch(true));
    let first = histogram.launch(&checked, Vec::new()).unwrap();
    assert!(first.findings.is_empty(), "{:?}", first.findings);
    let total: u64 = first.buffers[1]
        .chunks(4)
        .map(|w| u64::from(u32::from_le_bytes(w.try_into().unwrap())))
        .sum();
    assert_eq!(total, VALUES as u64);
    let mut g = c.benchmark_group("sim histogram 8x256 per instruction");
    g.throughput(Throughput::Elements(first.instructions));
    g.bench_function("without race detection", |b| {
        b.iter(|| black_box(histogram.launch(&plain, Vec::new()).unwrap()))
    });
    g.bench_function("with race detection", |b| {
        b.iter(|| black_box(histogram.launch(&checked, Vec::new()).unwrap()))
    });
    g.finish();
    c.final_summary();

    if !std::env::args().any(|a| a == "--bench") {
        return; // `cargo test --benches`: each benchmark ran once, as a test.
    }
    println!("\nper CPU second of the simulating thread:");
    if let Some(ns) = cpu_ns_per_run(5, || {
        black_box(empty.launch(&setup, Vec::new()).unwrap());
    }) {
        println!("  set-up: {:.3} us per thread", ns / 1e3 / (64.0 * 512.0));
    }
    for (what, l) in [("without", &plain), ("with", &checked)] {
        if let Some(ns) = cpu_ns_per_run(10, || {
            black_box(histogram.launch(l, Vec::new()).unwrap());
        }) {
            println!(
                "  histogram {what} race detection: {:.2} M PTX instructions/s",
                first.instructions as f64 / (ns * 1e-9) / 1e6
            );
        }
    }
    // Last: an older simulator may not survive it.
    if let Some(ns) = cpu_ns_per_run(2, || {
        black_box(index.launch(&limit, Vec::new()).unwrap());
    }) {
        println!(
            "  trivial kernel, 2^20 threads with race detection: {:.2} s per schedule",
            ns / 1e9
        );
    }
}
