//! Issue 32, item 5: `cargo host ptx --crate PATH` reports a kernel crate that uses an operation
//! its target lacks in a few lines (what needs what, the target, the `--target` that fixes it),
//! and `--verbose` adds the cargo command and its whole output. Builds a scratch kernel crate
//! (under `target/ptx/scratch-refusals`, beside scoped-atomics-build's `arch_refusals` test, whose
//! output directory it shares so that `core` is built once); skipped without the tools (a
//! failure with `CI=true`).

use scoped_atomics_host::ptx::Toolchain;
use std::path::PathBuf;
use std::process::{Command, Output};

/// A kernel crate whose kernel sums a warp with `reduce_add_sync` (`redux.sync`: sm_80).
fn warp_sum_crate(tc: &Toolchain) -> PathBuf {
    let dir = tc.root.join("target/ptx/scratch-refusals/redux-cli");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"redux-cli\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nscoped-atomics = {{ path = {:?}, default-features = false }}\n\n\
         [workspace]\n",
        tc.root.join("atomics")
    );
    let lib = r#"#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
use scoped_atomics::kernel::{lane_id, reduce_add_sync};

#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warp_sum(out: *mut u32) {
    let sum = reduce_add_sync(u32::MAX, lane_id());
    // SAFETY: the launcher passes a valid location.
    unsafe { out.write(sum) };
}
"#;
    for (path, text) in [("Cargo.toml", manifest.as_str()), ("src/lib.rs", lib)] {
        let path = dir.join(path);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            std::fs::write(&path, text).unwrap();
        }
    }
    dir
}

fn ptx_crate(tc: &Toolchain, dir: &std::path::Path, verbose: bool) -> Output {
    let out = tc.root.join("target/ptx/scratch-refusals/out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scoped-atomics-host"));
    cmd.arg("ptx")
        .arg("--crate")
        .arg(dir)
        .arg("--out")
        .arg(out)
        .args(["--target", "sm_75"]);
    if verbose {
        cmd.arg("--verbose");
    }
    cmd.output().expect("running scoped-atomics-host")
}

#[test]
fn a_refusal_is_a_few_lines_and_verbose_adds_the_command() {
    let tc = match Toolchain::discover() {
        Ok(tc) => tc,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("{e}"),
        Err(e) => return eprintln!("SKIPPED: {e} (run bash tools/install.sh)"),
    };
    let dir = warp_sum_crate(&tc);
    let o = ptx_crate(&tc, &dir, false);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.lines().count() <= 5, "{} lines:\n{e}", e.lines().count());
    for part in [
        "sm_75: building the PTX failed:",
        "need sm_80 or newer, and this crate was compiled for sm_75 with PTX ISA 7.0",
        "`PtxBuilder::arch(\"sm_80\")`",
        "--target sm_80`",
        "`--verbose`",
    ] {
        assert!(e.contains(part), "no `{part}` in:\n{e}");
    }
    assert!(!e.contains("--emit=asm") && !e.contains("Compiling"), "{e}");

    let o = ptx_crate(&tc, &dir, true);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("--emit=asm") && e.contains("note: erroneous constant"),
        "{e}"
    );
}
