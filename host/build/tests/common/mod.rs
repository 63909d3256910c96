//! What the builder's integration tests share: the tools, and scratch kernel crates under
//! `target/ptx/scratch-refusals` (one output directory, so that `core` is built once per
//! architecture).

use scoped_atomics_build::ptx::Toolchain;
use std::path::PathBuf;

/// The tools, or `None` (test skipped) when the pinned nightly is missing outside CI.
pub fn tools(test: &str) -> Option<Toolchain> {
    match Toolchain::discover() {
        Ok(tc) => Some(tc),
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("{test}: {e}; with CI=true the tools must be installed")
        }
        Err(e) => {
            eprintln!("SKIPPED {test}: {e} (run bash tools/install.sh)");
            None
        }
    }
}

/// A kernel crate `name` whose `lib.rs` is `body` after the crate attributes.
pub fn kernel_crate(tc: &Toolchain, name: &str, body: &str) -> PathBuf {
    let dir = tc.root.join("target/ptx/scratch-refusals").join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nscoped-atomics = {{ path = {:?}, default-features = false }}\n\n\
         [workspace]\n",
        tc.root.join("atomics")
    );
    // `asm_experimental_arch`: `block_shared!` expands to an `asm!` in the kernel crate.
    let features = "feature(abi_ptx, asm_experimental_arch)";
    let lib = format!("#![no_std]\n#![cfg_attr(target_arch = \"nvptx64\", {features})]\n{body}");
    for (path, text) in [("Cargo.toml", manifest), ("src/lib.rs", lib)] {
        let path = dir.join(path);
        if std::fs::read_to_string(&path).ok() != Some(text.clone()) {
            std::fs::write(&path, text).unwrap();
        }
    }
    dir
}
