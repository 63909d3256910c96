//! Building the probe kernels (`gpu-kernels`) to PTX with the pinned nightly.

use super::{Error, Result, Toolchain, clean_env};
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

/// `cmd` as a shell-like line, for error messages.
pub fn show(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            s += &format!("{}={:?} ", k.to_string_lossy(), v.to_string_lossy());
        }
    }
    s += &cmd.get_program().to_string_lossy();
    for a in cmd.get_args() {
        s.push(' ');
        s += &a.to_string_lossy();
    }
    s
}

pub fn run(cmd: &mut Command, what: &str) -> Result<Output> {
    cmd.output()
        .map_err(|e| Error::Failed(format!("{what}: cannot run `{}`: {e}", show(cmd))))
}

/// The `cargo +<pinned nightly> rustc` command of every device build here: run in `dir`, for
/// `nvptx64-nvidia-cuda` in release with `-Zbuild-std=core` and one codegen unit, `rustflags`
/// for every crate of the build, into `target_dir` (a conformance build's
/// [`Toolchain::target_dir`] reuses its `core`), with a clean environment. The caller adds its
/// own cargo arguments, then `--` and the arguments for the built crate alone.
pub fn cargo_rustc(tc: &Toolchain, dir: &Path, rustflags: &str, target_dir: &Path) -> Command {
    let mut cmd = Command::new(&tc.cargo);
    clean_env(&mut cmd);
    cmd.current_dir(dir)
        .env("RUSTFLAGS", rustflags)
        .arg(format!("+{}", tc.nightly))
        .args(["rustc", "-Zbuild-std=core"])
        .args(["--target", "nvptx64-nvidia-cuda", "--release"])
        .arg("--target-dir")
        .arg(target_dir)
        .args(["--config", "profile.release.codegen-units=1"]);
    cmd
}

/// Forgets cargo's fingerprint of `package` in `profile_dir` (a target directory's
/// `nvptx64-nvidia-cuda/<profile>`), so that its next build runs rustc again. For a build cargo
/// finds fresh although the PTX it emitted was deleted since: cargo does not track the file of
/// `--emit=asm=…`.
pub fn forget_fingerprint(profile_dir: &Path, package: &str) {
    // Cargo names the directories `<package>-<hash>`; `-` and `_` are compared as one.
    let prefix = format!("{}-", package.replace('_', "-"));
    if let Ok(entries) = fs::read_dir(profile_dir.join(".fingerprint")) {
        for entry in entries.flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .replace('_', "-")
                .starts_with(&prefix)
            {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
}
