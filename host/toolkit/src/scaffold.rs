//! `scoped-atomics-host new DIR`: a new kernel project, a copy of the repository's `examples/`
//! workspace (a `no_std` kernel crate written with `#[kernel]`, and a host crate that builds it
//! to PTX and describes each kernel's launch once — a [`launch::Launch`](crate::launch::Launch)
//! of the entry point's launch description — and runs that one description on host threads,
//! under loom, in the simulator and on a GPU) whose path dependencies point at this checkout,
//! and a `.cargo/config.toml` whose alias `cargo host` runs this checkout's
//! `scoped-atomics-host` command from anywhere in the project ([`cargo_config`]).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The dependency paths of `examples/` (relative to its crates) and what they become.
fn rewrite(text: &str, checkout: &Path) -> String {
    ["atomics", "host/toolkit", "host/build"]
        .iter()
        .fold(text.to_string(), |text, dir| {
            text.replace(
                &format!("path = \"../../{dir}\""),
                &format!("path = {:?}", checkout.join(dir)),
            )
        })
}

/// Writes the project into `dir` (which must not exist or be empty) from the `examples/` of the
/// checkout at `checkout`; returns the files written.
///
/// ```
/// let checkout = scoped_atomics_host::ptx::Toolchain::repo_root();
/// let dir = std::env::temp_dir().join(format!("scaffold-doctest-{}", std::process::id()));
/// let files = scoped_atomics_host::scaffold::new_project(&checkout, &dir).unwrap();
/// assert!(files.iter().any(|f| f.ends_with("kernels/src/lib.rs")));
/// // The host crate describes each kernel's launch once, from its `#[kernel]` description.
/// let app = std::fs::read_to_string(dir.join("app/src/lib.rs")).unwrap();
/// assert!(app.contains("Launch::new(kernels::HISTOGRAM"));
/// let manifest = std::fs::read_to_string(dir.join("app/Cargo.toml")).unwrap();
/// assert!(manifest.contains(&format!("{:?}", checkout.join("host/toolkit"))));
/// assert!(manifest.contains(&format!("{:?}", checkout.join("host/build"))));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn new_project(checkout: &Path, dir: &Path) -> io::Result<Vec<PathBuf>> {
    let source = checkout.join("examples");
    if !source.join("Cargo.toml").is_file() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "{} has no examples/ workspace: `new` needs a scoped-atomics checkout",
                checkout.display()
            ),
        ));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            format!("{} exists and is not a directory", dir.display()),
        ));
    }
    let in_dir = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", dir.display()));
    if dir.exists() && fs::read_dir(dir).map_err(in_dir)?.next().is_some() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists and is not empty", dir.display()),
        ));
    }
    let checkout = checkout.canonicalize()?;
    let mut written = Vec::new();
    copy(&source, dir, &checkout, &mut written)?;
    let config = dir.join(".cargo/config.toml");
    fs::create_dir_all(dir.join(".cargo"))?;
    fs::write(&config, cargo_config(&checkout))?;
    written.push(config);
    Ok(written)
}

/// The `.cargo/config.toml` of a new project: the alias `cargo host`, which runs the
/// `scoped-atomics-host` command (`demo`, `ptx`, `sim`, `litmus`, `new`) of the checkout at
/// `checkout` in release mode (`cargo run --manifest-path CHECKOUT/Cargo.toml -p
/// scoped-atomics-host --release --`; built in the checkout's `target/`, shared with its own
/// `cargo host`). Relative paths given to it are relative to where `cargo host` is run.
///
/// ```
/// let config = scoped_atomics_host::scaffold::cargo_config(std::path::Path::new("/src/sa"));
/// assert!(config.contains(
///     r#"host = ["run", "--manifest-path", "/src/sa/Cargo.toml", "-p", "scoped-atomics-host", "--release", "--"]"#
/// ));
/// ```
pub fn cargo_config(checkout: &Path) -> String {
    format!(
        "# `cargo host <subcommand> …` from anywhere in this project: the `scoped-atomics-host` command\n\
         # (`demo`, `ptx`, `sim`, `litmus`, `new`) of the scoped-atomics checkout this project was made\n\
         # from, built in release mode in that checkout's target/.\n\
         [alias]\n\
         host = [\"run\", \"--manifest-path\", {:?}, \"-p\", \"scoped-atomics-host\", \"--release\", \"--\"]\n",
        checkout.join("Cargo.toml")
    )
}

fn copy(from: &Path, to: &Path, checkout: &Path, written: &mut Vec<PathBuf>) -> io::Result<()> {
    fs::create_dir_all(to)?;
    let mut entries: Vec<_> = fs::read_dir(from)?.collect::<io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let (source, target) = (entry.path(), to.join(&name));
        if entry.file_type()?.is_dir() {
            if name != "target" {
                copy(&source, &target, checkout, written)?;
            }
        } else if name == "Cargo.toml" {
            fs::write(&target, rewrite(&fs::read_to_string(&source)?, checkout))?;
            written.push(target);
        } else {
            fs::copy(&source, &target)?;
            written.push(target);
        }
    }
    Ok(())
}
