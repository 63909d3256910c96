//! What the builder reads about a kernel crate: its package and library names (the manifest,
//! `cargo metadata`) and the source files of its build (cargo's dep-info), for
//! `cargo:rerun-if-changed`.

use crate::Error;
use crate::ptx::{self, Toolchain};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The package name, from the manifest.
pub(crate) fn package_name(manifest: &Path) -> String {
    let text = fs::read_to_string(manifest).unwrap_or_default();
    text.lines()
        .skip_while(|l| l.trim() != "[package]")
        .find_map(|l| {
            let (key, value) = l.split_once('=')?;
            (key.trim() == "name").then(|| value.trim().trim_matches('"').to_string())
        })
        .unwrap_or_default()
}

/// The library target's name (`cargo metadata`), or why there is none.
pub(crate) fn lib_name(tools: &Toolchain, manifest: &Path) -> Result<String, Error> {
    let mut cmd = Command::new(&tools.cargo);
    ptx::clean_env(&mut cmd);
    cmd.arg(format!("+{}", tools.nightly))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(manifest);
    let not_a_crate = |why: String| Error::NotAKernelCrate {
        path: manifest.parent().unwrap_or(manifest).to_path_buf(),
        why,
    };
    let output = cmd
        .output()
        .map_err(|e| not_a_crate(format!("cannot run cargo metadata: {e}")))?;
    if !output.status.success() {
        return Err(not_a_crate(
            String::from_utf8_lossy(&output.stderr).trim().to_string(),
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| not_a_crate(format!("unreadable cargo metadata: {e}")))?;
    let manifest = manifest.canonicalize().unwrap_or(manifest.to_path_buf());
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| {
            p["manifest_path"]
                .as_str()
                .is_some_and(|m| Path::new(m).canonicalize().ok().as_ref() == Some(&manifest))
        })
        .ok_or_else(|| not_a_crate("cargo metadata does not list it".into()))?;
    package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "lib" || k == "rlib"))
        })
        .and_then(|t| t["name"].as_str())
        .map(|n| n.replace('-', "_"))
        .ok_or_else(|| not_a_crate("it has no library target (src/lib.rs)".into()))
}

/// The source files of the build (the kernel crate and its dependencies, `core` excluded) from
/// cargo's dep-info file `lib<name>.d`.
pub(crate) fn dep_info_sources(target_dir: &Path, lib: &str, release: bool) -> Vec<PathBuf> {
    let dir = if release { "release" } else { "debug" };
    let dep_info = target_dir
        .join("nvptx64-nvidia-cuda")
        .join(dir)
        .join(format!("lib{lib}.d"));
    let Ok(text) = fs::read_to_string(dep_info) else {
        return Vec::new();
    };
    let Some((_, deps)) = text.split_once(": ") else {
        return Vec::new();
    };
    // Paths are separated by spaces; a space inside a path is escaped as `\ `.
    deps.replace("\\ ", "\u{0}")
        .split_whitespace()
        .map(|p| PathBuf::from(p.replace('\u{0}', " ")))
        .filter(|p| !p.components().any(|c| c.as_os_str() == "rustlib"))
        .collect()
}
