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
    let o = run(&["ptx", "--target", "sm_75"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("unknown target `sm_75`: accepted are sm_70, sm_80, sm_90, sm_90_ptx86, all"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
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
    let again = run(&["new", path]);
    assert_eq!(again.status.code(), Some(1));
    assert!(stderr(&again).contains("exists and is not empty"));
    std::fs::remove_dir_all(&dir).unwrap();
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
fn no_runtime_unroll_goes_with_a_kernel_crate() {
    let o = run(&["ptx", "--no-runtime-unroll"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("--crate"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    // Accepted with `--crate`: the error is then about the path.
    let o = run(&[
        "ptx",
        "--no-runtime-unroll",
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
