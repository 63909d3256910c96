//! Parts of the `scoped-atomics-host` command: progress of the long steps, the short summary and
//! the demo's kernel table.

pub mod kernels;
pub mod progress;
pub mod summary;
