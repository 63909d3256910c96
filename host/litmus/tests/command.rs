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
