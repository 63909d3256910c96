//! The cluster scope needs sm_90 (PTX ISA 7.8): a kernel that uses `Cluster` must fail to
//! compile for sm_80 with a message that says so, and must compile for sm_90 from
//! `-C target-cpu=sm_90` alone (rustc sets no `ptx78` there). Skipped without the tools, as the
//! conformance test is; a failure with `CI=true`.

use scoped_atomics_host::ptx::{self, Error, Target, Toolchain};
use std::path::Path;
use std::process::{Command, Output};

const KERNEL: &str = r#"#![no_std]
#![feature(abi_ptx)]
use scoped_atomics::{Atomic, Cluster, Ordering};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn cluster_counter(p: *mut u32) {
    // SAFETY: the launcher passes a valid location.
    unsafe { Atomic::<u32, Cluster>::from_ptr(p) }.fetch_add(1, Ordering::Relaxed);
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
"#;

/// Writes the scratch crate (its own workspace, depending on `atomics/`) under `target/`.
fn scratch_crate(root: &Path) -> std::path::PathBuf {
    let dir = root.join("target/ptx/cluster-gate");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"cluster-gate\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [lib]\ncrate-type = [\"rlib\"]\n\n[dependencies]\nscoped-atomics = {{ path = {:?}, default-features = false }}\n\n\
         [workspace]\n",
        root.join("atomics")
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), KERNEL).unwrap();
    dir
}

fn build(tc: &Toolchain, dir: &Path, target: Target) -> Output {
    let mut cmd = Command::new(&tc.cargo);
    // What an outer cargo set (the toolchain, `--cfg loom`, the target dir) must not leak in.
    ptx::clean_env(&mut cmd);
    cmd.current_dir(dir)
        .env("RUSTFLAGS", target.rustflags())
        .arg(format!("+{}", tc.nightly))
        .args([
            "rustc",
            "-Zbuild-std=core",
            "--target",
            "nvptx64-nvidia-cuda",
            "--release",
        ])
        // The conformance build's target directory and profile, so that its `core` is reused.
        .arg("--target-dir")
        .arg(tc.target_dir(target))
        .args([
            "--config",
            "profile.release.codegen-units=1",
            "--",
            "--emit=asm",
        ]);
    cmd.output().expect("running cargo")
}

#[test]
fn cluster_scope_is_a_compile_error_before_sm_90_and_compiles_on_sm_90() {
    let tc = match Toolchain::discover() {
        Ok(tc) => tc,
        Err(Error::Missing(why)) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("cluster_gate: {why}; with CI=true the tools must be installed")
        }
        Err(Error::Missing(why)) => {
            eprintln!("SKIPPED cluster_gate: {why} (run bash tools/install.sh)");
            return;
        }
        Err(e) => panic!("cluster_gate: {e}"),
    };
    let dir = scratch_crate(&tc.root);

    let sm80 = build(&tc, &dir, Target::Sm80);
    let stderr = String::from_utf8_lossy(&sm80.stderr);
    assert!(
        !sm80.status.success(),
        "the cluster scope compiled for sm_80:\n{stderr}"
    );
    assert!(
        stderr.contains("the Cluster scope (PTX `.cluster`) needs sm_90"),
        "the sm_80 build failed without the cluster message:\n{stderr}"
    );

    let sm90 = build(&tc, &dir, Target::Sm90);
    assert!(
        sm90.status.success(),
        "the cluster scope did not compile for sm_90:\n{}",
        String::from_utf8_lossy(&sm90.stderr)
    );
}
