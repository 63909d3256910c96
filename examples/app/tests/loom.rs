//! The kernels on tiny grids under loom (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom`): every interleaving within the preemption bound, and the scope of each atomic checked
//! against the launch's topology — a block-scope flag between two blocks is reported.

#![cfg(loom)]

use app::Arg;
use scoped_atomics::kernel::Dim3;
use scoped_atomics::{Block, Cluster, Device, Scope};
use scoped_atomics_host::executor::{Launch, launch_loom};

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(f);
}

/// The launch's bounds for the bigger shapes (`executor::loom_builder`: preemption bound 2).
fn bounded(f: impl Fn() + Sync + Send + 'static) {
    scoped_atomics_host::executor::loom_builder().check(f);
}

/// Two blocks of two threads, through both `sync_threads` and the warp step: the size the
/// guide's testing page states (*Bounds*).
fn block_sum<S: Scope>() {
    bounded(|| {
        let input = Arg(Box::into_raw(Box::new([3u32, 7, 5, 11])));
        let total = Arg(Box::into_raw(Box::new(0u32)));
        launch_loom(Dim3::x(2), Dim3::x(2), move || {
            let (input, total) = (input, total);
            // SAFETY: one input per thread and the total, live until the launch returned.
            unsafe { kernels::block_sum::<S>(input.0.cast(), total.0) }
        })
        .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        let (_, total) = unsafe { (Box::from_raw(input.0), *Box::from_raw(total.0)) };
        assert_eq!(total, 26, "3 + 7 + 5 + 11");
    });
}

#[test]
fn block_sum_of_two_blocks_of_two_threads_is_correct_at_device_scope() {
    block_sum::<Device>();
}

#[test]
#[should_panic(expected = "scope race")]
fn block_sum_with_a_block_scope_total_is_a_scope_race() {
    block_sum::<Block>();
}

/// Three blocks of one thread take the lock once each: two of them spin at once (the size
/// the guide's testing page states).
fn ticket_lock<S: Scope>() {
    bounded(|| {
        let cells = Arg(Box::into_raw(Box::new([0u32; 3])));
        launch_loom(Dim3::x(3), Dim3::x(1), move || {
            let cells = cells;
            let base = cells.0.cast::<u32>();
            // SAFETY: three cells, live until the launch returned.
            unsafe { kernels::ticket_lock::<S>(base, base.add(1), base.add(2)) }
        })
        .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        let cells = *unsafe { Box::from_raw(cells.0) };
        assert_eq!(cells, [3, 3, 3]);
    });
}

#[test]
fn ticket_lock_of_three_blocks_is_correct_at_device_scope() {
    ticket_lock::<Device>();
}

#[test]
#[should_panic(expected = "scope race")]
fn ticket_lock_at_block_scope_across_blocks_is_a_scope_race() {
    ticket_lock::<Block>();
}

fn message_passing<S: Scope>() {
    model(|| {
        let cells = Arg(Box::into_raw(Box::new([0u32; 3])));
        launch_loom(Dim3::x(2), Dim3::x(1), move || {
            let cells = cells;
            let base = cells.0.cast::<u32>();
            // SAFETY: three cells, live until the launch returned.
            unsafe { kernels::message_passing::<S>(base, base.add(1), base.add(2)) }
        })
        .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        let cells = *unsafe { Box::from_raw(cells.0) };
        assert_eq!(cells, [42, 1, 42]);
    });
}

#[test]
fn message_passing_with_a_device_scope_flag_is_correct() {
    message_passing::<Device>();
}

#[test]
#[should_panic(expected = "scope race")]
fn message_passing_with_a_block_scope_flag_is_a_scope_race() {
    message_passing::<Block>();
}

#[test]
fn histogram_of_two_blocks() {
    model(|| {
        let input = Arg(Box::into_raw(Box::new([1u32, 9, 2])));
        let bins = Arg(Box::into_raw(Box::new([0u32; kernels::BINS])));
        launch_loom(Dim3::x(2), Dim3::x(1), move || {
            let (input, bins) = (input, bins);
            // SAFETY: three inputs and BINS bins, live until the launch returned.
            unsafe { kernels::histogram(input.0.cast(), 3, bins.0.cast()) }
        })
        .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        let (_, bins) = unsafe { (Box::from_raw(input.0), *Box::from_raw(bins.0)) };
        let mut expected = [0u32; kernels::BINS];
        expected[1] = 2; // 1 and 9
        expected[2] = 1;
        assert_eq!(bins, expected);
    });
}

fn cluster_histogram<S: Scope>() {
    model(|| {
        let input = Arg(Box::into_raw(Box::new([1u32, 9, 2])));
        let bins = Arg(Box::into_raw(Box::new([0u32; kernels::BINS])));
        // One cluster of two blocks of one thread: each block adds into the other's bins.
        Launch::new(Dim3::x(2), Dim3::x(1))
            .cluster(Dim3::x(2))
            .run_loom(move || {
                let (input, bins) = (input, bins);
                // SAFETY: three inputs and BINS bins, live until the launch returned.
                unsafe { kernels::cluster_histogram::<S>(input.0.cast(), 3, bins.0.cast()) }
            })
            .unwrap();
        // SAFETY: the launch joined every thread; allocated above.
        let (_, bins) = unsafe { (Box::from_raw(input.0), *Box::from_raw(bins.0)) };
        let mut expected = [0u32; kernels::BINS];
        expected[1] = 2; // 1 and 9
        expected[2] = 1;
        assert_eq!(bins, expected);
    });
}

#[test]
fn cluster_histogram_with_cluster_scope_counters_is_correct() {
    cluster_histogram::<Cluster>();
}

#[test]
#[should_panic(expected = "scope race")]
fn cluster_histogram_with_block_scope_counters_is_a_scope_race() {
    cluster_histogram::<Block>();
}
