//! The `ptx-litmus` binary's contract: `--help` exits 0; decided files exit 0; bad usage is an
//! error naming it (exit 2, no panic).

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn help_exits_0_and_lists_the_options() {
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--races") && out.contains("--json"), "{out}");
}

#[test]
fn decides_a_directory_and_names_an_unknown_option() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/classic");
    let (code, out, err) = run(&[dir]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().count() >= 58, "{out}");
    let (code, _, err) = run(&[dir, "--frob"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("'--frob'") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn a_directory_without_a_litmus_file_is_an_error_naming_it() {
    // `src/` holds Rust files only.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let (code, out, err) = run(&[dir]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("src: no *.litmus file in it"), "{err}");
}

/// A reader that went away (`ptx-litmus dir | head`) ends the run quietly with 141, the status
/// of a process ended by SIGPIPE; before, the first result written after it was a panic with a
/// backtrace and status 101.
#[test]
fn a_closed_pipe_ends_quietly_with_141() {
    for json in [false, true] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"));
        cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/classic"));
        if json {
            cmd.arg("--json");
        }
        // The read end is closed before the checker starts: its results meet no reader.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = cmd.stdout(writer).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "json {json}: {err}");
        assert!(err.is_empty(), "json {json}: {err}");
    }
}

/// Results that cannot be written (a full disk) are an error naming why, exit 2.
#[test]
fn results_that_cannot_be_written_are_an_error_naming_why() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full on this system
    };
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/classic"))
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot write the results to standard output") && !err.contains("panicked"),
        "{err}"
    );
}
