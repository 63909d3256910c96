//! The simulator's nvcc-compiled cluster kernel (`host/sim/tests/fixtures/sim/cluster_histogram.ptx`)
//! is what nvcc 13.5 makes of `cluster_histogram.cu` today: recompiled with the command in the
//! PTX's header comment and compared (the header, and the path hash in nvcc's internal symbol
//! names, aside). Skipped without nvcc (run
//! `bash tools/install.sh`); a failure with `CI=true`. `UPDATE_SNAPSHOTS=1` rewrites the PTX.

use scoped_atomics_host::ptx::parse_paths_env;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../sim/tests/common/nvcc.rs"]
mod nvcc;
use nvcc::without_path_hashes;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// nvcc 13.5 and its CUDA root from `tools/paths.env`, or why not.
fn nvcc() -> Result<(PathBuf, PathBuf), String> {
    let env = std::fs::read_to_string(root().join("tools/paths.env"))
        .map_err(|e| format!("tools/paths.env: {e}"))?;
    let paths = parse_paths_env(&env);
    let get = |k: &str| paths.get(k).map(|p| root().join(p)).filter(|p| p.exists());
    match (get("NVCC_13"), get("CUDA_ROOT_13")) {
        (Some(nvcc), Some(cuda)) => Ok((nvcc, cuda)),
        _ => Err("no NVCC_13/CUDA_ROOT_13 in tools/paths.env".into()),
    }
}

#[test]
fn the_checked_in_cluster_ptx_is_what_nvcc_compiles() {
    let (nvcc, cuda) = match nvcc() {
        Ok(found) => found,
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("sim_nvcc_cluster: {why}; with CI=true nvcc must be installed")
        }
        Err(why) => {
            eprintln!("SKIPPED sim_nvcc_cluster: {why} (run bash tools/install.sh)");
            return;
        }
    };
    let fixtures = root().join("host/sim/tests/fixtures/sim");
    let out_dir = root().join("target/sim-nvcc-cluster");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join("cluster_histogram.ptx");
    // The command of the PTX's header comment, with $CUDA = the CUDA root.
    let status = Command::new(&nvcc)
        .args(["-ptx", "-std=c++17", "-O3", "-arch=sm_90", "-I"])
        .arg(cuda.join("include/cccl"))
        .arg("-I")
        .arg(cuda.join("include"))
        .arg("cluster_histogram.cu")
        .arg("-o")
        .arg(&out)
        .current_dir(&fixtures)
        .output()
        .expect("running nvcc");
    assert!(
        status.status.success(),
        "nvcc failed:\n{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let fresh = std::fs::read_to_string(&out).unwrap();
    let checked_in_path = fixtures.join("cluster_histogram.ptx");
    let checked_in = std::fs::read_to_string(&checked_in_path).unwrap();
    let header: String = checked_in
        .lines()
        .take_while(|l| {
            l.starts_with("// nvcc") || l.starts_with("// host/") || l.starts_with("// nvcc -ptx")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        header.contains("nvcc -ptx -std=c++17 -O3 -arch=sm_90"),
        "the header lost the command:\n{header}"
    );
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&checked_in_path, format!("{header}{fresh}")).unwrap();
        return;
    }
    assert!(
        without_path_hashes(&checked_in[header.len()..]) == without_path_hashes(&fresh),
        "{} differs from nvcc's output (UPDATE_SNAPSHOTS=1 rewrites it)",
        checked_in_path.display()
    );
}
