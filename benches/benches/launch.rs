//! The host executor at GPU scale: a 1024 × 1024-thread launch (1024 blocks of 1024 threads) of
//! a simple kernel — one relaxed device-scope `fetch_add` per thread — run in waves of resident
//! blocks (4 at a time by default, 256 waves).
//!
//! `cargo bench -p benches --bench launch` (each iteration is a whole launch: about a second or
//! more on 2 cores, so 10 samples).

use criterion::{Criterion, criterion_group, criterion_main};
use scoped_atomics::device::{AtomicU64, Ordering};
use scoped_atomics::kernel::{Dim3, block_dim, block_idx, thread_idx};
use scoped_atomics_host::executor::Launch;
use std::time::Duration;

fn million_threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("executor");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("launch 1024 x 1024 threads, fetch_add", |b| {
        b.iter(|| {
            let sum = AtomicU64::new(0);
            Launch::new(Dim3::x(1024), Dim3::x(1024))
                .run(|| {
                    let i = block_idx().x * block_dim().x + thread_idx().x;
                    sum.fetch_add(u64::from(i), Ordering::Relaxed);
                })
                .unwrap();
            assert_eq!(sum.load(Ordering::Relaxed), (0..1u64 << 20).sum::<u64>());
        })
    });
    group.finish();
}

criterion_group!(benches, million_threads);
criterion_main!(benches);
