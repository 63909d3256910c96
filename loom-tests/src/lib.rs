//! Model-checked tests of `scoped-atomics`: the litmus tests of the PTX memory model, the
//! primitives, and scope misuse reported as data races. Run with `RUSTFLAGS="--cfg loom"`.
