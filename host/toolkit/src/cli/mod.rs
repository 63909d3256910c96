//! Parts of the `scoped-atomics-host` command: progress of the long steps, and the short summary.

pub mod progress;
pub mod summary;
