//! Finding the tools of a PTX build: the pinned nightly with `rust-src`, and `ptxas`.

use super::{Error, GpuTarget, PINNED_NIGHTLY};
use crate::ptx::{self, Toolchain};
use std::fs;
use std::path::PathBuf;
use std::process::Command;

/// Finds the pinned nightly (with `rust-src`) and, for `ptxas_for`, a `ptxas`; an error says in
/// one line how to install what is missing.
///
/// `ptxas`: `$PTXAS` (for every architecture), else `$PTXAS_12` / `$PTXAS_13`, else the
/// `tools/paths.env` of the scoped-atomics checkout this crate was built from, else `ptxas` on
/// `PATH` or in `$CUDA_HOME/bin`.
///
/// ```no_run
/// use scoped_atomics_build::{GpuTarget, find_tools};
/// match find_tools(Some(&GpuTarget::new("sm_80", None)?)) {
///     Ok(tools) => println!("nightly {} at {}", tools.nightly, tools.sysroot.display()),
///     Err(e) => eprintln!("{e}"), // e.g. "… install it with `rustup toolchain install …`"
/// }
/// # Ok::<(), scoped_atomics_build::Error>(())
/// ```
pub fn find_tools(ptxas_for: Option<&GpuTarget>) -> Result<Toolchain, Error> {
    let nightly = std::env::var("SCOPED_ATOMICS_NIGHTLY")
        .ok()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| PINNED_NIGHTLY.to_string());
    let rustc = rustup_proxy("rustc");
    let mut cmd = Command::new(&rustc);
    cmd.arg(format!("+{nightly}")).args(["--print", "sysroot"]);
    ptx::clean_env(&mut cmd);
    let output = cmd
        .output()
        .map_err(|_| Error::MissingToolchain(nightly.clone()))?;
    if !output.status.success() {
        return Err(Error::MissingToolchain(nightly));
    }
    let sysroot = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    if !sysroot
        .join("lib/rustlib/src/rust/library/core/Cargo.toml")
        .is_file()
    {
        return Err(Error::MissingRustSrc(nightly));
    }
    let root = Toolchain::repo_root();
    let paths = fs::read_to_string(root.join("tools/paths.env"))
        .map(|t| ptx::parse_paths_env(&t))
        .unwrap_or_default();
    let find = |key: &str| -> Option<PathBuf> {
        let from_env = std::env::var_os("PTXAS")
            .or_else(|| std::env::var_os(key))
            .map(PathBuf::from);
        let from_checkout = paths.get(key).map(|rel| root.join(rel));
        let on_path = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .chain(std::env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin")))
            .map(|dir| dir.join("ptxas"));
        from_env
            .into_iter()
            .chain(from_checkout)
            .chain(on_path)
            .find(|p| p.is_file())
    };
    let (ptxas_12, ptxas_13) = (find("PTXAS_12"), find("PTXAS_13"));
    if let Some(target) = ptxas_for {
        let (found, key) = if target.needs_ptxas_12() {
            (&ptxas_12, "PTXAS_12")
        } else {
            (&ptxas_13, "PTXAS_13")
        };
        if found.is_none() {
            return Err(Error::MissingPtxas(format!(
                "none for {}: PTXAS unset, no {key} in {}, none on PATH",
                target.cpu(),
                root.join("tools/paths.env").display()
            )));
        }
    }
    Ok(Toolchain {
        root,
        nightly,
        sysroot,
        cargo: rustup_proxy("cargo"),
        ptxas_12: ptxas_12.unwrap_or_default(),
        ptxas_13: ptxas_13.unwrap_or_default(),
    })
}

/// The rustup proxy `name` (which understands `+toolchain`), else `name` on `PATH`.
fn rustup_proxy(name: &str) -> PathBuf {
    [
        std::env::var_os("CARGO_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")),
    ]
    .into_iter()
    .flatten()
    .map(|home| home.join("bin").join(name))
    .find(|p| p.is_file())
    .unwrap_or_else(|| PathBuf::from(name))
}
