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

/// Issue 29, item 1: every safe constructor and conversion that would make a spaced scope
/// (`Global<S>`, `Shared<S>`: operations that name `.global`/`.shared` on memory the compiler
/// cannot check) is a compile error that names the `unsafe` constructor. Each entry is one line
/// of the scratch crate (so that each error can be matched to its line) and a piece of its
/// message.
const SPACED: [(&str, &str); 20] = [
    (
        "static COUNTER: Atomic<u32, Shared<Block>> = Atomic::new(0);",
        PLAIN_ONLY,
    ),
    (
        "pub fn stack() -> u32 { Atomic::<u32, Global<Device>>::new(1).into_inner() }",
        PLAIN_ONLY,
    ),
    (
        "pub fn from_mut(x: &mut u32) { let _ = Atomic::<u32, Shared<Block>>::from_mut(x); }",
        PLAIN_ONLY,
    ),
    (
        "pub fn from_slice(x: &mut [u32]) { let _ = Atomic::<u32, Global<Device>>::from_mut_slice(x); }",
        PLAIN_ONLY,
    ),
    (
        "pub fn default() -> Atomic<u32, Global<Device>> { Default::default() }",
        PLAIN_ONLY,
    ),
    (
        "pub fn view(x: &mut u32) { let _ = AtomicRef::<u32, Shared<Block>>::new(x); }",
        PLAIN_ONLY,
    ),
    (
        "pub fn rescope(a: &Atomic<u32, Device>) { let _ = a.with_scope::<Shared<Block>>(); }",
        NO_RESCOPE,
    ),
    (
        "pub fn across(r: AtomicRef<'_, u32, Global<Device>>) { let _ = r.with_scope::<Shared<Device>>(); }",
        NO_RESCOPE,
    ),
    (
        "static BARRIER: Barrier<Shared<Block>> = Barrier::new(4);",
        PLAIN_ONLY,
    ),
    (
        "static LATCH: Latch<Global<Device>> = Latch::new(4);",
        PLAIN_ONLY,
    ),
    (
        "static POOL: CountingSemaphore<Shared<Block>, 4> = CountingSemaphore::new(4);",
        PLAIN_ONLY,
    ),
    (
        "static FLAG: AtomicFlag<Shared<Block>> = AtomicFlag::new();",
        PLAIN_ONLY,
    ),
    (
        "pub fn nested(x: *mut u32) { let _ = unsafe { AtomicRef::<u32, Global<Device>>::from_shared_ptr(x) }; }",
        PLAIN_ONLY,
    ),
    // Checked from outside (issue 29): generic code, the conversion traits, arrays, the
    // read-only view, and a spaced view re-scoped into the other space.
    (
        "pub fn generic<S: scoped_atomics::Scope>() -> Atomic<u32, S> { Atomic::new(0) }",
        PLAIN_ONLY,
    ),
    (
        "pub fn into() -> Atomic<u32, Global<Device>> { 5.into() }",
        PLAIN_ONLY,
    ),
    (
        "pub fn flag() -> AtomicFlag<Shared<Block>> { AtomicFlag::default() }",
        PLAIN_ONLY,
    ),
    (
        "pub fn array() -> [Atomic<u32, Global<Device>>; 4] { Default::default() }",
        PLAIN_ONLY,
    ),
    (
        "pub fn binary() -> scoped_atomics::BinarySemaphore<Global<Device>> { scoped_atomics::BinarySemaphore::new(1) }",
        PLAIN_ONLY,
    ),
    (
        "pub fn read_view(a: &Atomic<u32, Device>) { let _ = scoped_atomics::AtomicReadRef::from(a).with_scope::<Shared<Block>>(); }",
        NO_RESCOPE,
    ),
    (
        "pub fn shared_to_global(r: AtomicRef<'_, u32, Shared<Block>>) { let _ = r.with_scope::<Global<Block>>(); }",
        NO_RESCOPE,
    ),
];

/// The message of a spaced scope where a plain one is required (`PlainScope`).
const PLAIN_ONLY: &str = "promises a state space, which safe code cannot check";
/// The message of a re-scoping into a space the view does not have (`RescopeFrom`).
const NO_RESCOPE: &str = "that would promise a state space the view does not have";

fn scratch_crate(root: &Path, name: &str, source: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
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

/// `cargo check` of the scratch crate `dir`, offline, with the lock file it has.
fn cargo_check(root: &Path, dir: &Path) -> std::process::Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    Command::new(cargo)
        .args(["check", "--offline", "--quiet", "--color=never"])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(root.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("running cargo check")
}

/// `cargo check` of the scratch crate `dir`, which must fail; rustc's messages.
fn check_fails(root: &Path, dir: &Path) -> String {
    let out = cargo_check(root, dir);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "the misuses compiled:\n{stderr}");
    stderr
}

/// Each error of rustc's output as (line in `src/lib.rs`, message line).
fn errors_by_line(stderr: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut errors = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with("error[") {
            continue;
        }
        let place = lines[i + 1..]
            .iter()
            .find_map(|l| l.trim_start().strip_prefix("--> src/lib.rs:"));
        if let Some(place) = place {
            let number = place.split(':').next().unwrap().parse().unwrap();
            errors.push((number, line.to_string()));
        }
    }
    errors
}

#[test]
fn spaced_scopes_need_the_unsafe_constructors() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnostics");
    let mut source = String::from(
        "use scoped_atomics::{Atomic, AtomicFlag, AtomicRef, Barrier, Block, CountingSemaphore, \
         Device, Global, Latch, Shared};\n",
    );
    for (code, _) in SPACED {
        source.push_str(code);
        source.push('\n');
    }
    let dir = scratch_crate(&root, "diagnostics-spaces", &source);
    let stderr = check_fails(&root, &dir);
    let errors = errors_by_line(&stderr);
    for (i, (code, message)) in SPACED.iter().enumerate() {
        let line = i + 2; // after the `use`
        assert!(
            errors
                .iter()
                .any(|(l, m)| *l == line && m.contains(message)),
            "line {line} `{code}` did not get \"{message}\"; rustc said:\n{stderr}"
        );
    }
    assert!(
        stderr.contains("use the unsafe constructor of the spaced form instead"),
        "the note naming the unsafe constructors is missing:\n{stderr}"
    );
    // The spaced forms themselves still compile: the unsafe constructors.
    let fine = "use scoped_atomics::{Atomic, AtomicRef, Barrier, Block, Device, Global};\n\
        // SAFETY: a device static is in global memory.\n\
        pub static HITS: Atomic<u32, Global<Device>> = unsafe { Atomic::new_in_space(0) };\n\
        // SAFETY: as above.\n\
        pub static GRID: Barrier<Global<Device>> = unsafe { Barrier::new_in_space(2) };\n\
        pub fn widen(r: AtomicRef<'_, u32, Global<Block>>) -> AtomicRef<'_, u32, Global<Device>> {\n    \
            r.with_scope::<Global<Device>>()\n}\n\
        pub fn generic(r: AtomicRef<'_, u32, Global<Device>>) -> AtomicRef<'_, u32, Device> {\n    \
            r.with_scope::<Device>()\n}\n";
    let dir = scratch_crate(&root, "diagnostics-spaces-fine", fine);
    let out = cargo_check(&root, &dir);
    assert!(
        out.status.success(),
        "the unsafe spaced constructors did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn misused_capabilities_and_completion_scopes_say_why() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnostics");
    let source: String = CASES.iter().map(|(code, _)| *code).collect();
    let dir = scratch_crate(&root, "diagnostics-scratch", &source);
    let stderr = check_fails(&root, &dir);
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
