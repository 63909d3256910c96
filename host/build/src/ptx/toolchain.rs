//! Finding the tools (rustup proxies, `ptxas` via `tools/paths.env`) and a clean env for them.

use super::{Error, Result, Target};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tools that build and assemble PTX: the pinned nightly (with `rust-src`) and `ptxas`.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// The workspace root (`host/build/../..`).
    pub root: PathBuf,
    /// The pinned nightly's name, from `tools/nightly-toolchain`.
    pub nightly: String,
    /// The nightly's sysroot (it has `rust-src`).
    pub sysroot: PathBuf,
    /// `cargo`: the rustup proxy, which understands `+<toolchain>`.
    pub cargo: PathBuf,
    /// ptxas 12.9 (`PTXAS_12`): used for sm_70.
    pub ptxas_12: PathBuf,
    /// ptxas 13.5 (`PTXAS_13`): used for sm_80 and sm_90.
    pub ptxas_13: PathBuf,
}

impl Toolchain {
    /// The workspace root this crate was built in (this crate is `host/build/` of it).
    pub fn repo_root() -> PathBuf {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        manifest
            .ancestors()
            .nth(2)
            .unwrap_or(manifest)
            .to_path_buf()
    }

    /// Finds the tools of the workspace this crate was built in.
    pub fn discover() -> Result<Toolchain> {
        Toolchain::discover_in(&Toolchain::repo_root())
    }

    /// Finds the tools of the workspace at `root`; [`Error::Missing`] names the first missing one.
    pub fn discover_in(root: &Path) -> Result<Toolchain> {
        let pin = root.join("tools/nightly-toolchain");
        let nightly = fs::read_to_string(&pin)
            .map_err(|e| Error::Missing(format!("{} ({e})", pin.display())))?
            .trim()
            .to_string();
        if nightly.is_empty() {
            return Err(Error::Failed(format!("{} is empty", pin.display())));
        }
        let cargo = rustup_proxy("cargo");
        let rustc = rustup_proxy("rustc");
        let mut cmd = Command::new(&rustc);
        cmd.arg(format!("+{nightly}")).args(["--print", "sysroot"]);
        clean_env(&mut cmd);
        let out = cmd.output().map_err(|e| {
            Error::Missing(format!("rustup's `rustc` proxy ({}: {e})", rustc.display()))
        })?;
        if !out.status.success() {
            return Err(Error::Missing(format!(
                "the Rust toolchain {nightly} (tools/nightly-toolchain): `rustc +{nightly}` fails: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let core = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
        if !core.is_file() {
            return Err(Error::Missing(format!(
                "the rust-src component of {nightly} (no {})",
                core.display()
            )));
        }
        let env_file = root.join("tools/paths.env");
        let env = fs::read_to_string(&env_file).map_err(|e| {
            Error::Missing(format!(
                "{} ({e}; tools/install.sh writes it)",
                env_file.display()
            ))
        })?;
        let paths = parse_paths_env(&env);
        let tool = |key: &str, what: &str| -> Result<PathBuf> {
            let rel = paths.get(key).ok_or_else(|| {
                Error::Missing(format!("{what}: no {key} in {}", env_file.display()))
            })?;
            let path = root.join(rel);
            if path.is_file() {
                Ok(path)
            } else {
                Err(Error::Missing(format!(
                    "{what}: {key}={rel} in tools/paths.env, but {} is not a file",
                    path.display()
                )))
            }
        };
        Ok(Toolchain {
            root: root.to_path_buf(),
            ptxas_12: tool("PTXAS_12", "ptxas 12.9")?,
            ptxas_13: tool("PTXAS_13", "ptxas 13.5")?,
            nightly,
            sysroot,
            cargo,
        })
    }

    /// The `ptxas` for `target`.
    pub fn ptxas(&self, target: Target) -> &Path {
        match target {
            Target::Sm70 => &self.ptxas_12,
            Target::Sm80 | Target::Sm90 | Target::Sm90Ptx86 => &self.ptxas_13,
        }
    }

    /// `target/ptx/<config>` under the workspace root: the config's own target directory.
    pub fn target_dir(&self, target: Target) -> PathBuf {
        self.root.join("target/ptx").join(target.name())
    }
}

/// `KEY=VALUE` lines; `#` comments and blank lines skipped.
pub fn parse_paths_env(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// The rustup proxy `name` (`$CARGO_HOME/bin/<name>` or `~/.cargo/bin/<name>`), else `name` on
/// `PATH`. `$CARGO`, which cargo sets for tests, is the outer toolchain's binary, not a proxy.
fn rustup_proxy(name: &str) -> PathBuf {
    let homes = [
        std::env::var_os("CARGO_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")),
    ];
    homes
        .into_iter()
        .flatten()
        .map(|home| home.join("bin").join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Removes what an outer `cargo test`/`cargo run` (or the user's shell) may have set that would
/// change the inner build: the toolchain rustup chose, flags (`--cfg loom`), wrappers, the target
/// dir, profile overrides. Keeps `CARGO_HOME` and the network/registry/terminal settings.
pub fn clean_env(cmd: &mut Command) {
    const REMOVE: &[&str] = &[
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_BOOTSTRAP",
        "RUSTUP_TOOLCHAIN",
        "RUSTUP_TOOLCHAIN_SOURCE",
        "CARGO",
        "MAKEFLAGS",
        "MFLAGS",
    ];
    const KEEP: &[&str] = &[
        "CARGO_HOME",
        "CARGO_NET_",
        "CARGO_HTTP_",
        "CARGO_REGISTRY_",
        "CARGO_REGISTRIES_",
        "CARGO_TERM_",
    ];
    for (key, _) in std::env::vars_os() {
        let Some(k) = key.to_str() else { continue };
        let cargo_var = (k.starts_with("CARGO_") && !KEEP.iter().any(|p| k.starts_with(p)))
            || k.starts_with("__CARGO");
        if REMOVE.contains(&k) || cargo_var {
            cmd.env_remove(&key);
        }
    }
    // Never install a toolchain behind the user's back: that is tools/install.sh's job.
    cmd.env("RUSTUP_AUTO_INSTALL", "0");
}
