//! The command's contract on bad input and the `new` scaffold: a message and a non-zero exit,
//! never a panic.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scoped-atomics-host"))
        .args(args)
        .output()
        .expect("running scoped-atomics-host")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn an_unknown_target_names_the_accepted_ones() {
    let o = run(&["ptx", "--target", "sm_61"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("unknown architecture `sm_61`: accepted are sm_70, sm_72, sm_75, sm_80"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn a_builder_target_outside_the_conformance_four_needs_a_crate() {
    let o = run(&["ptx", "--target", "sm_75"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("the conformance check builds sm_70, sm_80, sm_90, sm_90_ptx86, or all; `sm_75` only with --crate PATH"),
        "{e}"
    );
    let o = run(&["ptx", "--target", "sm_100_ptx83", "--crate", "/nonexistent"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("sm_100 needs PTX ISA 8.6 or newer, not 8.3"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_path_that_is_not_a_crate_is_an_error_naming_it() {
    let o = run(&[
        "ptx",
        "--crate",
        "/nonexistent/kernels",
        "--target",
        "sm_70",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("/nonexistent/kernels is not a kernel crate"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn bad_usage_is_an_error_naming_the_word_and_pointing_at_help() {
    for (args, word) in [
        (&["demo", "--bogus"][..], "'--bogus'"),
        (&["ptx", "--out"][..], "'--out <DIR>'"),
        (&["ptx", "--out", "x"][..], "--crate <PATH>"),
        (&["frobnicate"][..], "unrecognized subcommand 'frobnicate'"),
        (&["new"][..], "<DIR>"),
        (&["litmus"][..], "<FILE_OR_DIR>"),
        (
            &[
                "sim", "k.ptx", "--kernel", "k", "--grid", "1", "--block", "1", "--arg", "ptr:0",
            ][..],
            "ptr:B:OFFSET",
        ),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert!(
            e.starts_with("error: ") && e.contains(word),
            "{args:?}: {e}"
        );
        assert!(
            e.contains("--help") && !e.contains("panicked"),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn help_exits_0_on_the_command_and_every_subcommand() {
    for args in [
        &["--help"][..],
        &["demo", "--help"][..],
        &["ptx", "--help"][..],
        &["sim", "--help"][..],
        &["litmus", "--help"][..],
        &["new", "--help"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("Usage: scoped-atomics-host"),
            "{args:?}: {out}"
        );
    }
}

#[test]
fn new_writes_a_project_depending_on_this_checkout_and_refuses_a_non_empty_dir() {
    let dir = std::env::temp_dir().join(format!("scoped-atomics-new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.to_str().unwrap();
    let o = run(&["new", path]);
    assert!(o.status.success(), "{}", stderr(&o));
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "kernels/src/lib.rs",
        "app/build.rs",
        "app/tests/host_threads.rs",
        "app/tests/loom.rs",
        "app/tests/simulator.rs",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let manifest = std::fs::read_to_string(dir.join("app/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!("path = {:?}", checkout.join("host/toolkit")))
            && manifest.contains(&format!("path = {:?}", checkout.join("host/build"))),
        "{manifest}"
    );
    assert!(!dir.join("target").exists());
    // The simulator is optimised in the project's debug test builds (seconds, not minutes, a seed).
    let workspace = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        workspace.contains("[profile.dev.package.ptx-sim]\nopt-level = 3"),
        "{workspace}"
    );
    // `cargo host` there: an alias running this checkout's command.
    let config = std::fs::read_to_string(dir.join(".cargo/config.toml")).unwrap();
    let manifest_path = checkout.join("Cargo.toml");
    assert!(
        config.contains(&format!(
            "[alias]\nhost = [\"run\", \"--manifest-path\", {manifest_path:?}, \"-p\", \"scoped-atomics-host\", \"--release\", \"--\"]\n"
        )),
        "{config}"
    );
    assert!(
        std::fs::read_to_string(&manifest_path)
            .unwrap()
            .contains("\"host/toolkit\""),
        "{manifest_path:?} is not the workspace of host/toolkit"
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(".cargo/config.toml"),
        "the message names the alias"
    );
    let again = run(&["new", path]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "a non-empty directory is bad input"
    );
    assert!(stderr(&again).contains(&format!("{path} exists and is not empty")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn new_over_an_existing_file_is_bad_input_naming_the_path() {
    let file = std::env::temp_dir().join(format!("scoped-atomics-new-file-{}", std::process::id()));
    std::fs::write(&file, "not a directory").unwrap();
    let path = file.to_str().unwrap();
    let o = run(&["new", path]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("{path} exists and is not a directory")),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn ptx_of_a_missing_crate_is_refused_before_any_build_is_announced() {
    let missing = std::env::temp_dir().join(format!("no-such-kernel-crate-{}", std::process::id()));
    let path = missing.to_str().unwrap();
    let o = run(&["ptx", "--crate", path, "--target", "sm_80"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let (out, e) = (String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(e.contains(path) && e.contains("Cargo.toml"), "{e}");
    assert!(
        !out.contains("each target") && !e.contains("minutes"),
        "announced a build of a crate that is not there:\n{out}\n{e}"
    );
}

#[test]
fn a_missing_nightly_is_named_with_the_command_that_installs_it() {
    let kernels = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/kernels");
    let o = Command::new(env!("CARGO_BIN_EXE_scoped-atomics-host"))
        .args(["ptx", "--crate", kernels, "--target", "sm_80"])
        .env("SCOPED_ATOMICS_NIGHTLY", "nightly-1999-01-01")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(
            "the Rust toolchain nightly-1999-01-01 is not installed; install it with \
             `rustup toolchain install nightly-1999-01-01 --component rust-src`"
        ),
        "{e}"
    );
}

#[test]
fn the_loop_flags_go_with_a_kernel_crate() {
    for flag in ["--no-runtime-unroll", "--no-loop-strength-reduction"] {
        only_with_a_kernel_crate(flag);
    }
}

fn only_with_a_kernel_crate(flag: &str) {
    let o = run(&["ptx", flag]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("--crate"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    // Accepted with `--crate`: the error is then about the path.
    let o = run(&[
        "ptx",
        flag,
        "--crate",
        "/nonexistent/kernels",
        "--target",
        "sm_70",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("/nonexistent/kernels is not a kernel crate"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn sim_takes_a_pointer_into_a_buffer_and_warp_lockstep() {
    let o = run(&["sim", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("--warp-lockstep") && help.contains("ptr:B:OFFSET"),
        "{help}"
    );
    // Each thread swaps its index into word 0 and stores what it took out at word 1 + tid (the
    // simulator's own CLI tests run the same kernel).
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/sim/swap.ptx");
    let args = |extra: &[&'static str]| {
        let mut a = vec!["sim".to_string(), file.to_str().unwrap().to_string()];
        a.extend(
            [
                "--kernel",
                "swap",
                "--grid",
                "1",
                "--block",
                "8",
                "--arg",
                "buf:u32:9:99",
            ]
            .iter()
            .chain(extra)
            .map(|s| s.to_string()),
        );
        a
    };
    let run_owned = |a: Vec<String>| {
        Command::new(env!("CARGO_BIN_EXE_scoped-atomics-host"))
            .args(a)
            .output()
            .unwrap()
    };
    // In lockstep the lanes swap in lane order.
    let o = run_owned(args(&["--arg", "ptr:0:4", "--warp-lockstep"]));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(
        out.contains("warp lockstep") && out.contains("buffer 0: 7 99 0 1 2 3 4 5 6"),
        "{out}"
    );
    let o = run_owned(args(&["--arg", "ptr:0:36"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("scoped-atomics-host sim: argument 1 (`ptr:0:36`): offset 36 is outside buffer 0, which has 36 bytes"),
        "{}",
        stderr(&o)
    );
}

/// A reader that went away (`cargo host ptx … | head`) ends the command quietly, by SIGPIPE as
/// other Unix tools do; before, its next `println!` panicked with a backtrace (status 101).
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    // The read end is closed before the command starts: its first write meets no reader.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    // A real kernel crate and a toolchain that is not installed: the command prints its header
    // line, then would fail fast; the header's write is what meets the closed pipe.
    let kernels = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/kernels");
    let out = Command::new(env!("CARGO_BIN_EXE_scoped-atomics-host"))
        .args(["ptx", "--crate", kernels, "--target", "sm_70"])
        .env("SCOPED_ATOMICS_NIGHTLY", "nightly-1999-01-01")
        .stdout(writer)
        .output()
        .unwrap();
    let err = stderr(&out);
    const SIGPIPE: i32 = 13; // Linux and the BSDs
    assert_eq!(
        out.status.signal(),
        Some(SIGPIPE),
        "{:?}: {err}",
        out.status
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn litmus_takes_the_checkers_dialect_option() {
    // ptx-litmus's `--dialect dat3m` reaches the embedded subcommand: Dat3M's
    // `bar.cta.sync INSTANCE` labels are one CTA-wide barrier (read as PTX they deadlock).
    let f = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../litmus/dat3m/bar-instances-one-barrier.litmus");
    let f = f.to_str().unwrap();
    let o = run(&["litmus", "--dialect", "dat3m", f]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.starts_with("MP+bar-instances No "), "{out}");
    let o = run(&["litmus", f]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("MP+bar-instances Deadlock "), "{out}");
}
