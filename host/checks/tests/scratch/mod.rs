//! Scratch kernel crates for the device-path tests: a tiny `#![no_std]` crate written under
//! `target/ptx/scratch/<name>`, depending on `atomics/`, built for `nvptx64-nvidia-cuda` with the
//! pinned nightly through the same flags as the conformance build (`Target::rustflags`), into the
//! conformance build's target directory so that its `core` is reused. Only the PTX text is read;
//! nothing is assembled unless a test asks.
//!
//! Skipped without the tools (a message on stderr); with `CI=true`, a failure.

#![allow(dead_code)] // each test file uses a part

use scoped_atomics_host::ptx::{self, Error, Kernel, Target, Toolchain};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The tools, or `None` (test skipped) when they are missing outside CI.
pub fn toolchain(test: &str) -> Option<Toolchain> {
    match Toolchain::discover() {
        Ok(tc) => Some(tc),
        Err(Error::Missing(why)) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("{test}: {why}; with CI=true the tools must be installed")
        }
        Err(Error::Missing(why)) => {
            eprintln!("SKIPPED {test}: {why} (run bash tools/install.sh)");
            None
        }
        Err(e) => panic!("{test}: {e}"),
    }
}

/// A scratch crate `name` with `lib_rs`; `dependency` is the `scoped-atomics` dependency's
/// extra keys (e.g. `default-features = false`).
pub fn crate_dir(tc: &Toolchain, name: &str, dependency: &str, lib_rs: &str) -> PathBuf {
    let dir = tc.root.join("target/ptx/scratch").join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [lib]\ncrate-type = [\"rlib\"]\n\n[dependencies]\nscoped-atomics = {{ path = {:?}{dependency} }}\n\n\
         [workspace]\n",
        tc.root.join("atomics")
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    write_if_changed(&dir.join("src/lib.rs"), lib_rs);
    dir
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap();
    }
}

/// Extra arguments of a [`build_with`]: cargo's (before `--`) and rustc's (after `--`).
#[derive(Default, Clone, Copy)]
pub struct Extra<'a> {
    /// Arguments of `cargo rustc` (e.g. `--config` overrides).
    pub cargo: &'a [&'a str],
    /// Arguments after `--`, for the scratch crate alone (besides `--emit=asm=<ptx>`).
    pub rustc: &'a [&'a str],
    /// A suffix of the PTX file's name, for builds of one crate with different options.
    pub tag: &'a str,
}

/// `cargo rustc` of the crate at `dir` into `target_dir` with `rustflags` and `extra`; returns
/// cargo's output and the PTX path.
pub fn build_with(
    tc: &Toolchain,
    dir: &Path,
    target_dir: &Path,
    rustflags: &str,
    extra: Extra,
) -> (Output, PathBuf) {
    let name = target_dir.file_name().unwrap().to_string_lossy();
    let ptx = dir.join(format!("{name}{}.ptx", extra.tag));
    let output = cargo_rustc(tc, dir, target_dir, rustflags, extra, &ptx);
    if output.status.success() && !ptx.is_file() {
        // Cargo found the build fresh, but the PTX is gone: make rustc run again.
        let package = dir.file_name().unwrap().to_string_lossy();
        ptx::forget_fingerprint(&target_dir.join("nvptx64-nvidia-cuda/release"), &package);
        return (
            cargo_rustc(tc, dir, target_dir, rustflags, extra, &ptx),
            ptx,
        );
    }
    (output, ptx)
}

fn cargo_rustc(
    tc: &Toolchain,
    dir: &Path,
    target_dir: &Path,
    rustflags: &str,
    extra: Extra,
    ptx: &Path,
) -> Output {
    ptx::cargo_rustc(tc, dir, rustflags, target_dir)
        .args(extra.cargo)
        .arg("--")
        .args(extra.rustc)
        .arg(format!("--emit=asm={}", ptx.display()))
        .output()
        .expect("running cargo")
}

/// [`build_with`] the conformance flags of `target` and nothing else: cargo's output and the
/// PTX path.
pub fn build(tc: &Toolchain, dir: &Path, target: Target) -> (Output, PathBuf) {
    build_with(
        tc,
        dir,
        &tc.target_dir(target),
        &target.rustflags(),
        Extra::default(),
    )
}

/// Builds with the conformance flags and returns the PTX text and path; panics with cargo's
/// stderr if the build fails.
pub fn ptx(tc: &Toolchain, dir: &Path, target: Target) -> (String, PathBuf) {
    let (out, ptx) = build(tc, dir, target);
    assert!(
        out.status.success(),
        "building {} for {target} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (std::fs::read_to_string(&ptx).unwrap(), ptx)
}

/// Builds with the conformance flags a crate that must not compile, and returns cargo's
/// stderr (the compile error); panics, naming `what`, if it compiled.
pub fn compile_error(tc: &Toolchain, dir: &Path, target: Target, what: &str) -> String {
    let (out, _) = build(tc, dir, target);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success(),
        "{what} compiled for {target}:\n{stderr}"
    );
    stderr
}

/// Builds with the conformance flags and returns the kernels of the PTX; panics with cargo's
/// stderr if the build fails.
pub fn kernels(tc: &Toolchain, dir: &Path, target: Target) -> Vec<Kernel> {
    ptx::parse_kernels(&ptx(tc, dir, target).0)
}

/// The kernel (or function) `name`.
pub fn kernel<'a>(kernels: &'a [Kernel], name: &str) -> &'a Kernel {
    kernels
        .iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("no kernel {name} in the PTX"))
}

/// The mnemonics of `kernel`'s instructions.
pub fn mnemonics(kernel: &Kernel) -> Vec<String> {
    ptx::instructions(kernel)
        .into_iter()
        .filter_map(|i| match i {
            ptx::Item::Instr(i) => Some(i.mnemonic),
            ptx::Item::Label(_) => None,
        })
        .collect()
}

/// The instructions of `kernel` as text (`mnemonic operands`).
pub fn instructions(kernel: &Kernel) -> Vec<String> {
    ptx::instructions(kernel)
        .into_iter()
        .filter_map(|i| match i {
            ptx::Item::Instr(i) => Some(i.to_string()),
            ptx::Item::Label(_) => None,
        })
        .collect()
}

/// The header every scratch crate starts with: `no_std`, the PTX ABI, a trapping panic handler.
pub const PRELUDE: &str = "#![no_std]\n#![feature(abi_ptx, asm_experimental_arch)]\n\
#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! {\n    \
// SAFETY: `trap` aborts the kernel.\n    unsafe { core::arch::asm!(\"trap;\", options(noreturn)) }\n}\n";

/// Two kernel helpers for the barrier misuse tests: `shared_barrier(expected)`, a
/// `SharedBarrier`, and `block_barrier(expected)`, a `Barrier<Block>` in shared memory (the
/// hardware barrier on sm_80+), each initialised by thread 0 before a `sync_threads`.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub const BARRIER_HELPERS: &str = r#"
use scoped_atomics::{Barrier, Block, SharedBarrier};
use scoped_atomics::kernel::{sync_threads, thread_idx};

/// A `SharedBarrier` of `expected`, initialised by thread 0.
#[inline(always)]
fn shared_barrier(expected: u32) -> &'static SharedBarrier {
    let place = scoped_atomics::block_shared!(SHARED: [SharedBarrier; 1]).cast::<SharedBarrier>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { SharedBarrier::init_in_place(place, expected) };
    }
    sync_threads();
    // SAFETY: initialised above, for the life of the block.
    unsafe { &*place }
}

/// A `Barrier<Block>` of `expected` in shared memory (the hardware barrier), by thread 0.
#[inline(always)]
fn block_barrier(expected: u32) -> &'static Barrier<Block> {
    let place = scoped_atomics::block_shared!(BLOCK: [Barrier<Block>; 1]).cast::<Barrier<Block>>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { Barrier::init_in_place(place, expected) };
    }
    sync_threads();
    // SAFETY: initialised above, for the life of the block.
    unsafe { &*place }
}
"#;
