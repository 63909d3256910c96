//! The kernels on tiny grids under loom (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom`), from the same launch descriptions as on host threads and in the simulator
//! (`Kernel::under_loom`): every interleaving within the preemption bound, each execution from
//! the initial contents, and the scope of each atomic checked against the launch's topology — a
//! block-scope flag between two blocks is reported.

#![cfg(loom)]

use app::Variant;

/// Two blocks of two threads, through both `sync_threads` and the warp step: the size the
/// guide's testing page states (*Bounds*), with the launch's default bounds
/// (`executor::loom_builder`: preemption bound 2).
fn block_sum(variant: Variant) {
    app::block_sum(&[3, 7, 5, 11], 2, 2, variant)
        .under_loom(|total| assert_eq!(total, 26, "3 + 7 + 5 + 11"));
}

#[test]
fn block_sum_of_two_blocks_of_two_threads_is_correct_at_device_scope() {
    block_sum(Variant::Correct);
}

#[test]
#[should_panic(expected = "scope race")]
fn block_sum_with_a_block_scope_total_is_a_scope_race() {
    block_sum(Variant::BlockScopeBug);
}

/// Three blocks of one thread take the lock once each: two of them spin at once (the size
/// the guide's testing page states).
fn ticket_lock(variant: Variant) {
    app::ticket_lock(3, 1, variant).under_loom(|cells| assert_eq!(cells, [3, 3, 3]));
}

#[test]
fn ticket_lock_of_three_blocks_is_correct_at_device_scope() {
    ticket_lock(Variant::Correct);
}

#[test]
#[should_panic(expected = "scope race")]
fn ticket_lock_at_block_scope_across_blocks_is_a_scope_race() {
    ticket_lock(Variant::BlockScopeBug);
}

/// Two blocks of one thread, preemption bound 3.
fn message_passing(variant: Variant) {
    app::message_passing(1, variant)
        .preemption_bound(3)
        .under_loom(|cells| assert_eq!(cells, [42, 1, 42]));
}

#[test]
fn message_passing_with_a_device_scope_flag_is_correct() {
    message_passing(Variant::Correct);
}

#[test]
#[should_panic(expected = "scope race")]
fn message_passing_with_a_block_scope_flag_is_a_scope_race() {
    message_passing(Variant::BlockScopeBug);
}

/// The histogram's expected bins of the inputs 1, 9, 2.
fn bins_of_1_9_2() -> [u32; kernels::BINS] {
    let mut expected = [0u32; kernels::BINS];
    expected[1] = 2; // 1 and 9
    expected[2] = 1;
    assert_eq!(expected, app::expected_histogram(&[1, 9, 2]));
    expected
}

#[test]
fn histogram_of_two_blocks() {
    let expected = bins_of_1_9_2();
    app::histogram(&[1, 9, 2], 2, 1)
        .preemption_bound(3)
        .under_loom(move |bins| assert_eq!(bins, expected));
}

/// One cluster of two blocks of one thread: each block adds into the other's bins.
fn cluster_histogram(variant: Variant) {
    let expected = bins_of_1_9_2();
    app::cluster_histogram(&[1, 9, 2], (2, 2, 1), variant)
        .preemption_bound(3)
        .under_loom(move |bins| assert_eq!(bins, expected));
}

#[test]
fn cluster_histogram_with_cluster_scope_counters_is_correct() {
    cluster_histogram(Variant::Correct);
}

#[test]
#[should_panic(expected = "scope race")]
fn cluster_histogram_with_block_scope_counters_is_a_scope_race() {
    cluster_histogram(Variant::BlockScopeBug);
}
