//! Building the probe kernels (`gpu-kernels`, this repository's conformance and example kernels)
//! to PTX with the one device build command of [`scoped_atomics_build::ptx::cargo_rustc`].

use scoped_atomics_build::ptx::{
    Error, Result, Target, Toolchain, cargo_rustc, forget_fingerprint, run, show,
};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `cargo rustc` command that builds `gpu-kernels` for `target` and writes its PTX to `out`.
pub fn build_command(tc: &Toolchain, target: Target, out: &Path) -> Command {
    let mut cmd = cargo_rustc(tc, &tc.root, &target.rustflags(), &tc.target_dir(target));
    cmd.args(["-p", "gpu-kernels", "--"]);
    let mut emit = OsString::from("--emit=asm=");
    emit.push(out);
    cmd.arg(emit);
    cmd
}

/// Builds the probe kernels for `target` into `target/ptx/<config>/gpu-kernels.ptx` and returns
/// that path. On failure the error carries the command and cargo's stderr.
pub fn build_ptx(tc: &Toolchain, target: Target) -> Result<PathBuf> {
    let dir = tc.target_dir(target);
    let out = dir.join("gpu-kernels.ptx");
    for attempt in 0..2 {
        let mut cmd = build_command(tc, target, &out);
        let output = run(&mut cmd, "building the PTX")?;
        if !output.status.success() {
            return Err(Error::Failed(format!(
                "building the {target} PTX failed ({}):\n$ {}\n{}",
                output.status,
                show(&cmd),
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        if out.is_file() {
            return Ok(out);
        }
        if attempt == 0 {
            forget_fingerprint(&dir.join("nvptx64-nvidia-cuda/release"), "gpu-kernels");
        }
    }
    Err(Error::Failed(format!(
        "building the {target} PTX succeeded but wrote no {}",
        out.display()
    )))
}
