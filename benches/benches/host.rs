//! Host benchmarks: scoped-atomics against `core::sync::atomic` and `std::sync`.
//!
//! `cargo bench -p benches` runs them (a few minutes on 2 cores), writes criterion's HTML report to
//! `target/criterion/report/index.html` and the ratios to `target/criterion/summary.md`. A filter
//! (`cargo bench -p benches -- fetch_add`) runs a subset; the summary then lists the rest as not
//! measured. `cargo test -p benches --benches` runs every benchmark once, as a test.
//!
//! Every comparison is one criterion group with two functions, `scoped` and `std`:
//!
//! * `<type> <op>, 1 thread`: one operation per iteration on an uncontended atomic.
//! * `<type> <op>, 2 threads`: both threads hammer the same atomic; each does `iters` operations
//!   after a common start, and an iteration's time is the wall time / `iters` (time per operation
//!   per thread).
//! * `barrier, 2 threads`: one `arrive_and_wait` phase of 2 threads.
//! * `semaphore acquire+release, 1 | 2 threads`: one `acquire` + `release(1)` pair (count 1: with
//!   2 threads, a lock hand-off).
//! * `latch one-shot, 2 threads`: a fresh latch (vs a fresh `std::sync::Barrier`) per iteration,
//!   on which both threads arrive and wait.
//!
//! Orderings: load `Acquire`, store `Release`, `fetch_add` `AcqRel`, compare-exchange
//! `AcqRel`/`Acquire` (the same on both sides). The scoped atomics have `Device` scope (on the host
//! every scope is `core::sync::atomic`). `f32` is compared with what a user writes on
//! `std::sync::atomic::AtomicU32`: bits conversions, and `fetch_update` (a compare-exchange loop)
//! for `fetch_add`.

use benches::summary::{self, Comparison};
use criterion::{BenchmarkGroup, Criterion, measurement::WallTime};
use scoped_atomics::{Atomic, CountingSemaphore, Device, Latch, System};
use std::hint::black_box;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize};
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

/// Short default run: the whole suite takes a few minutes on 2 cores. 10 000 bootstrap resamples
/// instead of criterion's 100 000: the estimates barely move, and the HTML plots of the bootstrap
/// distributions, which dominated the run time, take a tenth as long. Command-line flags
/// (`--measurement-time`, `--sample-size`, `--nresamples`, ...) override these.
fn criterion() -> Criterion {
    Criterion::default()
        .output_directory(&summary::criterion_dir())
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
        .nresamples(10_000)
        .configure_from_args()
}

/// The atomic-operation surface both sides implement, for one value type.
trait Subject: Sync + Default {
    type V: Copy + Send + PartialEq;
    fn load(&self) -> Self::V;
    fn store(&self, v: Self::V);
    fn fetch_add(&self, v: Self::V) -> Self::V;
    fn compare_exchange(&self, current: Self::V, new: Self::V) -> Result<Self::V, Self::V>;
    fn one() -> Self::V;
    fn next(v: Self::V) -> Self::V;
}

macro_rules! integer_subjects {
    ($($ours:ident, $std:ident, $t:ty;)*) => {$(
        #[derive(Default)]
        struct $ours(Atomic<$t, Device>);
        impl Subject for $ours {
            type V = $t;
            #[inline(always)]
            fn load(&self) -> $t { self.0.load(Acquire) }
            #[inline(always)]
            fn store(&self, v: $t) { self.0.store(v, Release) }
            #[inline(always)]
            fn fetch_add(&self, v: $t) -> $t { self.0.fetch_add(v, AcqRel) }
            #[inline(always)]
            fn compare_exchange(&self, c: $t, n: $t) -> Result<$t, $t> {
                self.0.compare_exchange(c, n, AcqRel, Acquire)
            }
            fn one() -> $t { 1 }
            #[inline(always)]
            fn next(v: $t) -> $t { v.wrapping_add(1) }
        }
        impl Subject for $std {
            type V = $t;
            #[inline(always)]
            fn load(&self) -> $t { self.load(Acquire) }
            #[inline(always)]
            fn store(&self, v: $t) { self.store(v, Release) }
            #[inline(always)]
            fn fetch_add(&self, v: $t) -> $t { self.fetch_add(v, AcqRel) }
            #[inline(always)]
            fn compare_exchange(&self, c: $t, n: $t) -> Result<$t, $t> {
                self.compare_exchange(c, n, AcqRel, Acquire)
            }
            fn one() -> $t { 1 }
            #[inline(always)]
            fn next(v: $t) -> $t { v.wrapping_add(1) }
        }
    )*};
}

integer_subjects! {
    ScopedU32, AtomicU32, u32;
    ScopedU64, AtomicU64, u64;
}

#[derive(Default)]
struct ScopedF32(Atomic<f32, Device>);

impl Subject for ScopedF32 {
    type V = f32;
    #[inline(always)]
    fn load(&self) -> f32 {
        self.0.load(Acquire)
    }
    #[inline(always)]
    fn store(&self, v: f32) {
        self.0.store(v, Release)
    }
    #[inline(always)]
    fn fetch_add(&self, v: f32) -> f32 {
        self.0.fetch_add(v, AcqRel)
    }
    #[inline(always)]
    fn compare_exchange(&self, c: f32, n: f32) -> Result<f32, f32> {
        self.0.compare_exchange(c, n, AcqRel, Acquire)
    }
    fn one() -> f32 {
        1.0
    }
    #[inline(always)]
    fn next(v: f32) -> f32 {
        v + 1.0
    }
}

/// `f32` on a `std` `AtomicU32`, as a user writes it.
#[derive(Default)]
struct StdF32(AtomicU32);

impl Subject for StdF32 {
    type V = f32;
    #[inline(always)]
    fn load(&self) -> f32 {
        f32::from_bits(self.0.load(Acquire))
    }
    #[inline(always)]
    fn store(&self, v: f32) {
        self.0.store(v.to_bits(), Release)
    }
    #[inline(always)]
    fn fetch_add(&self, v: f32) -> f32 {
        let previous = self
            .0
            .fetch_update(AcqRel, Acquire, |bits| {
                Some((f32::from_bits(bits) + v).to_bits())
            })
            .unwrap_or_else(|bits| bits);
        f32::from_bits(previous)
    }
    #[inline(always)]
    fn compare_exchange(&self, c: f32, n: f32) -> Result<f32, f32> {
        self.0
            .compare_exchange(c.to_bits(), n.to_bits(), AcqRel, Acquire)
            .map(f32::from_bits)
            .map_err(f32::from_bits)
    }
    fn one() -> f32 {
        1.0
    }
    #[inline(always)]
    fn next(v: f32) -> f32 {
        v + 1.0
    }
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Load,
    Store,
    FetchAdd,
    CompareExchange,
}

impl Op {
    const ALL: [Op; 4] = [Op::Load, Op::Store, Op::FetchAdd, Op::CompareExchange];

    fn name(self) -> &'static str {
        match self {
            Op::Load => "load",
            Op::Store => "store",
            Op::FetchAdd => "fetch_add",
            Op::CompareExchange => "compare_exchange",
        }
    }
}

/// `n` operations `op` on `a`, as tight as the operation allows.
#[inline(always)]
fn run_ops<A: Subject>(a: &A, op: Op, n: u64) {
    match op {
        Op::Load => {
            for _ in 0..n {
                black_box(a.load());
            }
        }
        Op::Store => {
            let v = black_box(A::one());
            for _ in 0..n {
                a.store(v);
            }
        }
        Op::FetchAdd => {
            let v = black_box(A::one());
            for _ in 0..n {
                black_box(a.fetch_add(v));
            }
        }
        Op::CompareExchange => {
            // Each attempt counts, successful or not; alone, every attempt succeeds.
            let mut current = a.load();
            for _ in 0..n {
                current = match a.compare_exchange(current, A::next(current)) {
                    Ok(previous) => A::next(previous),
                    Err(actual) => actual,
                };
            }
            black_box(current);
        }
    }
}

/// Runs `work(iters)` on `threads` threads at once after a spinning start line, and returns the
/// time from the first start to the last finish (thread creation and joining excluded).
fn on_threads(threads: usize, iters: u64, work: impl Fn(usize, u64) + Sync) -> Duration {
    let ready = AtomicUsize::new(0);
    let spans: Vec<(Instant, Instant)> = thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (ready, work) = (&ready, &work);
                s.spawn(move || {
                    ready.fetch_add(1, AcqRel);
                    let mut spins = 0u32;
                    while ready.load(Acquire) < threads {
                        spins += 1;
                        if spins & 1023 == 0 {
                            thread::yield_now(); // the other thread may not be running yet
                        } else {
                            std::hint::spin_loop();
                        }
                    }
                    let start = Instant::now();
                    work(i, iters);
                    (start, Instant::now())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let first = spans.iter().map(|s| s.0).min().unwrap();
    let last = spans.iter().map(|s| s.1).max().unwrap();
    last - first
}

fn bench_pair<O: Subject, B: Subject>(
    c: &mut Criterion,
    comparisons: &mut Vec<Comparison>,
    ty: &str,
    op: Op,
    threads: usize,
) {
    let group_name = format!(
        "{ty} {}, {threads} thread{}",
        op.name(),
        if threads == 1 { "" } else { "s" }
    );
    let mut group = c.benchmark_group(&group_name);
    fn one<A: Subject>(group: &mut BenchmarkGroup<'_, WallTime>, id: &str, op: Op, threads: usize) {
        group.bench_function(id, |b| {
            let a = A::default();
            if threads == 1 {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    run_ops(&a, op, iters);
                    start.elapsed()
                })
            } else {
                b.iter_custom(|iters| on_threads(threads, iters, |_, n| run_ops(&a, op, n)))
            }
        });
    }
    one::<O>(&mut group, "scoped", op, threads);
    one::<B>(&mut group, "std", op, threads);
    group.finish();
    comparisons.push(Comparison {
        group: group_name,
        ours: "scoped".into(),
        baseline: "std".into(),
        target: Some(1.02),
        unit: if threads == 1 {
            "1 op".into()
        } else {
            format!("1 op per thread, {threads} threads")
        },
    });
}

fn atomics(c: &mut Criterion, comparisons: &mut Vec<Comparison>) {
    for threads in [1, 2] {
        for op in Op::ALL {
            bench_pair::<ScopedU32, AtomicU32>(c, comparisons, "u32", op, threads);
            bench_pair::<ScopedU64, AtomicU64>(c, comparisons, "u64", op, threads);
            bench_pair::<ScopedF32, StdF32>(c, comparisons, "f32", op, threads);
        }
    }
}

/// The semaphore users write with `std`: a count under a `Mutex`, waiters on a `Condvar`.
struct CondvarSemaphore {
    count: Mutex<u32>,
    available: Condvar,
}

impl CondvarSemaphore {
    fn new(count: u32) -> Self {
        Self {
            count: Mutex::new(count),
            available: Condvar::new(),
        }
    }

    fn acquire(&self) {
        let mut count = self
            .available
            .wait_while(self.count.lock().unwrap(), |c| *c == 0)
            .unwrap();
        *count -= 1;
    }

    fn release(&self, n: u32) {
        *self.count.lock().unwrap() += n;
        if n == 1 {
            self.available.notify_one();
        } else {
            self.available.notify_all();
        }
    }
}

fn sync(c: &mut Criterion, comparisons: &mut Vec<Comparison>) {
    let mut compare = |group: &str, target: Option<f64>, unit: &str| {
        comparisons.push(Comparison {
            group: group.into(),
            ours: "scoped".into(),
            baseline: "std".into(),
            target,
            unit: unit.into(),
        })
    };

    // Barrier: time per phase of 2 threads.
    let name = "barrier, 2 threads";
    let mut g = c.benchmark_group(name);
    g.bench_function("scoped", |b| {
        let barrier = scoped_atomics::Barrier::<System>::new(2);
        b.iter_custom(|iters| {
            on_threads(2, iters, |_, n| {
                for _ in 0..n {
                    barrier.arrive_and_wait();
                }
            })
        })
    });
    g.bench_function("std", |b| {
        let barrier = std::sync::Barrier::new(2);
        b.iter_custom(|iters| {
            on_threads(2, iters, |_, n| {
                for _ in 0..n {
                    barrier.wait();
                }
            })
        })
    });
    g.finish();
    compare(
        name,
        Some(0.5),
        "1 phase (Barrier<System> vs std::sync::Barrier)",
    );

    // Semaphore: acquire + release(1) pairs, count 1.
    for threads in [1, 2] {
        let name = format!(
            "semaphore acquire+release, {threads} thread{}",
            if threads == 1 { "" } else { "s" }
        );
        let mut g = c.benchmark_group(&name);
        g.bench_function("scoped", |b| {
            let sem = CountingSemaphore::<System>::new(1);
            b.iter_custom(|iters| {
                on_threads(threads, iters, |_, n| {
                    for _ in 0..n {
                        sem.acquire();
                        sem.release(1);
                    }
                })
            })
        });
        g.bench_function("std", |b| {
            let sem = CondvarSemaphore::new(1);
            b.iter_custom(|iters| {
                on_threads(threads, iters, |_, n| {
                    for _ in 0..n {
                        sem.acquire();
                        sem.release(1);
                    }
                })
            })
        });
        g.finish();
        compare(
            &name,
            None,
            &format!(
                "1 pair per thread (CountingSemaphore<System> vs Mutex + Condvar){}",
                if threads == 1 { "" } else { ", count 1" }
            ),
        );
    }

    // Latch: one-shot rendezvous of 2 threads, a fresh object per iteration.
    let name = "latch one-shot, 2 threads";
    let mut g = c.benchmark_group(name);
    g.bench_function("scoped", |b| {
        b.iter_custom(|iters| {
            let latches: Vec<Latch<System>> = (0..iters).map(|_| Latch::new(2)).collect();
            on_threads(2, iters, |_, n| {
                for latch in &latches[..n as usize] {
                    latch.arrive_and_wait(1);
                }
            })
        })
    });
    g.bench_function("std", |b| {
        b.iter_custom(|iters| {
            let barriers: Vec<std::sync::Barrier> =
                (0..iters).map(|_| std::sync::Barrier::new(2)).collect();
            on_threads(2, iters, |_, n| {
                for barrier in &barriers[..n as usize] {
                    barrier.wait();
                }
            })
        })
    });
    g.finish();
    compare(
        name,
        None,
        "1 rendezvous (Latch<System> vs one-shot std::sync::Barrier)",
    );
}

/// Whether criterion measures (`--bench` without `--test`, `--list` or `--profile-time`), i.e.
/// writes estimates; the summary is written only then.
fn measuring() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| {
        args.iter()
            .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
    };
    has("--bench") && !has("--test") && !has("--list") && !has("--profile-time")
}

fn main() {
    let started = SystemTime::now();
    let clock = Instant::now();
    let mut c = criterion();
    let mut comparisons = Vec::new();
    atomics(&mut c, &mut comparisons);
    sync(&mut c, &mut comparisons);
    c.final_summary();
    if !measuring() {
        return;
    }
    let cpus = thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into());
    let context = format!(
        "Run finished {} after {:.0} s on {cpus} CPU(s) (load average {load} at the end), \
         criterion 0.8: warm-up 1 s, measurement 2 s, 30 samples, 10 000 resamples unless overridden. \
         Other processes on the machine make these numbers noisy, the 2-thread ones most; a \
         ratio within a few percent of 1 is a tie.\n\n\
         Orders: load `Acquire`, store `Release`, `fetch_add` `AcqRel`, compare-exchange \
         `AcqRel`/`Acquire`; scoped side `Atomic<T, Device>` (on the host every scope is \
         `core::sync::atomic`); `f32` std side: `AtomicU32` bits, `fetch_update` loop for \
         `fetch_add`. 2-thread rows: both threads on one atomic, time per op per thread.\n\n\
         HTML report with plots: `{}`.",
        summary::format_utc(SystemTime::now()),
        clock.elapsed().as_secs_f64(),
        summary::criterion_dir().join("report/index.html").display()
    );
    match summary::write(&summary::criterion_dir(), &comparisons, started, &context) {
        Ok(path) => println!("summary written to {}", path.display()),
        Err(e) => {
            eprintln!("could not write the summary: {e}");
            std::process::exit(1);
        }
    }
}
