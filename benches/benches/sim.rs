//! The PTX simulator's speed on the histogram kernel (8 blocks × 256 threads over 100 000
//! values, the sm_80 PTX of `gpu-kernels`): simulated PTX instructions per second on one core
//! without and with race detection, and the time of the host executor's run of the same kernel
//! body (2048 host threads) in the same benchmark run, as a ratio.
//!
//! `cargo bench -p benches --bench sim` (about a minute); it needs the pinned nightly to build
//! the PTX and says so when it is missing. Criterion reports each simulator run's throughput in
//! elements per second, one element being one simulated PTX instruction (wall time: on a
//! loaded machine this is less than a core's rate); the summary lines at the end give the rate
//! per CPU second of the simulating thread (10 runs each, timed by the thread's CPU clock) and
//! the ratios to the host executor from criterion's median wall times.

use benches::summary;
use criterion::{Criterion, Throughput};
use scoped_atomics_host::examples::{self, histogram_input};
use scoped_atomics_host::ptx::{Target, Toolchain, build_ptx};
use scoped_atomics_host::sim::{Arg, Launch, Simulator};
use std::time::Duration;

const GROUP: &str = "sim histogram 8x256, 100000 values";
const LEN: usize = 100_000;

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

fn main() {
    let ptx = match Toolchain::discover().and_then(|tc| build_ptx(&tc, Target::Sm80)) {
        Ok(path) => std::fs::read_to_string(path).expect("reading the PTX"),
        Err(e) => {
            eprintln!("sim bench SKIPPED: cannot build the PTX: {e}");
            return;
        }
    };
    let sim = Simulator::new(&ptx).expect("parsing the PTX");
    let kernel = sim.kernel("histogram").expect("the histogram kernel");
    let input = histogram_input(LEN, 0x9e37_79b9 ^ LEN as u32);
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let launch = |race: bool| {
        let mut l = Launch::new(
            [8, 1, 1],
            [256, 1, 1],
            vec![
                Arg::Buffer(bytes.clone()),
                Arg::U64(LEN as u64),
                Arg::Buffer(vec![0; 64]),
            ],
        );
        l.race_detection = race;
        l
    };
    let (plain, checked) = (launch(false), launch(true));
    let instructions = kernel.launch(&plain, Vec::new()).unwrap().instructions;
    let mut c = Criterion::default()
        .output_directory(&summary::criterion_dir())
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(10)
        .nresamples(10_000)
        .configure_from_args();
    let mut g = c.benchmark_group(GROUP);
    g.throughput(Throughput::Elements(instructions));
    g.bench_function("simulator", |b| {
        b.iter(|| {
            let out = kernel.launch(&plain, Vec::new()).unwrap();
            assert!(out.findings.is_empty());
        })
    });
    g.bench_function("simulator with race detection", |b| {
        b.iter(|| {
            let out = kernel.launch(&checked, Vec::new()).unwrap();
            assert!(out.findings.is_empty());
        })
    });
    g.bench_function("host executor", |b| {
        b.iter(|| examples::histogram(8, 256, LEN).unwrap())
    });
    g.finish();
    c.final_summary();

    if !std::env::args().any(|a| a == "--bench") {
        return; // `cargo test --benches`: each benchmark ran once, as a test.
    }
    // CPU time of this thread, so that the rate is per core even on a loaded machine.
    let cpu_rate = |l: &Launch| {
        let runs = 10;
        let start = thread_cpu_ns();
        for _ in 0..runs {
            kernel.launch(l, Vec::new()).unwrap();
        }
        let ns = thread_cpu_ns()
            .zip(start)
            .map(|(b, a)| (b - a) as f64 / runs as f64);
        ns.map(|ns| instructions as f64 / (ns * 1e-9) / 1e6)
    };
    if let (Some(p), Some(r)) = (cpu_rate(&plain), cpu_rate(&checked)) {
        println!(
            "\nsim histogram, per CPU second of the simulating thread (10 runs each): {p:.1} M PTX instructions/s without race detection, {r:.1} M/s with it"
        );
    }

    let dir = summary::criterion_dir();
    let median = |f: &str| summary::read_estimate(&dir, GROUP, f).map(|e| e.median_ns);
    if let (Ok(sim), Ok(race), Ok(host)) = (
        median("simulator"),
        median("simulator with race detection"),
        median("host executor"),
    ) {
        let rate = |ns: f64| instructions as f64 / (ns * 1e-9) / 1e6;
        println!(
            "\nsim histogram: {instructions} PTX instructions per run; {:.1} M instructions/s without race detection ({}), {:.1} M/s with it ({}); host executor {}: simulator/host time {:.2}x, with race detection {:.2}x",
            rate(sim),
            summary::format_ns(sim),
            rate(race),
            summary::format_ns(race),
            summary::format_ns(host),
            sim / host,
            race / host
        );
    }
}
