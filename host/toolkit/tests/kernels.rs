//! The example kernels of `gpu-kernels`, run on host threads by the executor, each checked against
//! the exact result computed directly (`scoped_atomics_host::examples`).

use scoped_atomics_host::examples;

#[test]
fn histogram_counts_every_value_exactly() {
    for (grid, block, len) in [
        (1, 32, 1000),
        (3, 64, 10_007),
        (4, 16, 5),
        (2, 3, 500),
        (1, 1, 64),
    ] {
        examples::histogram(grid, block, len).unwrap();
    }
}

#[test]
fn message_passing_delivers_the_data_across_blocks() {
    for block in [1, 4, 32] {
        for _ in 0..10 {
            examples::message_passing(block).unwrap();
        }
    }
}

#[test]
fn grid_barrier_orders_every_phase() {
    examples::grid_barrier(4, 8, 5).unwrap();
    examples::grid_barrier(1, 1, 3).unwrap();
}

#[test]
fn ring_carries_every_value_in_order_from_device_to_host() {
    examples::ring(83).unwrap();
    examples::ring(1).unwrap();
}

#[test]
fn a_wrong_result_is_reported() {
    // The check itself must be able to fail: the histogram of other values differs.
    let input = examples::histogram_input(100, 7);
    let mut other = input.clone();
    other[0] += 1;
    assert_ne!(
        examples::histogram_expected(&input),
        examples::histogram_expected(&other)
    );
}
