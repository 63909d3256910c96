//! What the simulator's test files share: the `ptx-sim` binary and the CUDA corpus's files.

#![allow(dead_code)] // each test file uses its own part

use std::process::Command;

/// Runs the `ptx-sim` binary: exit code (-1 when killed by a signal), standard output, standard
/// error.
pub fn ptx_sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-sim"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The path of a file of the CUDA corpus (`tests/fixtures/sim/cuda/`).
pub fn corpus(file: &str) -> String {
    format!(
        "{}/tests/fixtures/sim/cuda/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}
