//! Issue 23, item 6: misuses of the capability traits and of `CompletionScope` get an error that
//! says what the trait means and what to use instead (`#[diagnostic::on_unimplemented]`). The old
//! bounds sat on the `impl` blocks, so rustc reported E0599 "trait bounds were not satisfied",
//! where the attribute is not shown; the bounds now sit on the methods (E0277, which shows it).
//!
//! UI-style: a scratch crate with the misuses is checked with `cargo check` (offline, with this
//! workspace's lock file) and rustc's messages are matched.

// Not under Miri either: it runs `cargo check` in a child process, which Miri cannot spawn.
#![cfg(not(any(loom, miri)))]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Each misuse, and a piece of the message it must get.
const CASES: [(&str, &str); 4] = [
    (
        "pub fn completion_on_system() {\n    \
         let _b = scoped_atomics::Barrier::<scoped_atomics::System, _>::with_completion(2, || {});\n}\n",
        "cannot carry a completion function: `scoped_atomics::System` is not a `CompletionScope`",
    ),
    (
        "pub fn add_to_bool(a: &scoped_atomics::Atomic<bool, scoped_atomics::Device>) {\n    \
         a.fetch_add(true, scoped_atomics::Ordering::Relaxed);\n}\n",
        "`bool` has no atomic arithmetic",
    ),
    (
        "pub fn or_into_float(a: &scoped_atomics::Atomic<f32, scoped_atomics::Device>) {\n    \
         a.fetch_or(1.0, scoped_atomics::Ordering::Relaxed);\n}\n",
        "`f32` has no atomic bitwise operations",
    ),
    (
        "pub fn reduce_a_byte(a: &scoped_atomics::Atomic<u8, scoped_atomics::Device>) {\n    \
         a.add(1, scoped_atomics::Ordering::Relaxed);\n}\n",
        "`u8` has no fire-and-forget reductions",
    ),
];

fn scratch_crate(root: &Path, source: &str) -> PathBuf {
    let dir = root.join("crate");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"diagnostics-scratch\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nscoped-atomics = {{ path = {:?} }}\n\n[workspace]\n",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), source).unwrap();
    // The workspace's lock file: the same dependency versions, found offline.
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    std::fs::copy(lock, dir.join("Cargo.lock")).unwrap();
    dir
}

#[test]
fn misused_capabilities_and_completion_scopes_say_why() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnostics");
    let source: String = CASES.iter().map(|(code, _)| *code).collect();
    let dir = scratch_crate(&root, &source);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["check", "--offline", "--quiet", "--color=never"])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(root.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("running cargo check");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the misuses compiled:\n{stderr}");
    let missing: Vec<&str> = CASES
        .iter()
        .map(|(_, message)| *message)
        .filter(|message| !stderr.contains(message))
        .collect();
    assert!(
        missing.is_empty(),
        "messages missing: {missing:?}\nrustc said:\n{stderr}"
    );
    assert!(
        !stderr.contains("trait bounds were not satisfied"),
        "an E0599 that does not say why:\n{stderr}"
    );
}
