// The documentation of `Launch::run_loom` where the documentation is built without `--cfg loom`
// (docs.rs, `cargo doc`): the method needs the loom backend of `scoped-atomics` (its `model`
// positions), which exists only in a loom build, so this build documents a stub of the same
// signature. The loom build compiles the real method (in `executor.rs`) instead of this file.

use super::{Launch, LaunchError};

#[cfg_attr(docsrs, doc(cfg(loom)))]
impl Launch {
    /// Runs the launch under loom (build with `--cfg loom`, call inside `loom::model`): the
    /// model's thread is a host thread, each kernel thread a loom thread at its position (device
    /// 0, its cluster, its block), so the loom mirror reports scope misuse — a `Block`-scope
    /// atomic shared by two blocks of a cluster through `map_shared_rank` too. At most
    /// [`MAX_LOOM_THREADS`](super::MAX_LOOM_THREADS) threads; residency and cooperation do not
    /// apply (every thread runs).
    ///
    /// Available only with `--cfg loom` (`RUSTFLAGS="--cfg loom" cargo test`): this page is
    /// built without it, from a stub of the same signature.
    ///
    /// ```text
    /// loom_builder().check(|| {
    ///     Launch::new(Dim3::x(2), Dim3::x(2)).run_loom(move || { /* the kernel body */ }).unwrap();
    /// });
    /// ```
    pub fn run_loom<K: Fn() + Send + Sync + 'static>(&self, kernel: K) -> Result<(), LaunchError> {
        let _ = kernel;
        unreachable!("Launch::run_loom exists only in a build with --cfg loom")
    }
}
