//! The `ptx-sim` binary's contract: `--help` exits 0 and lists every argument; bad input is an
//! error naming it (exit 2, no panic).

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ptx-sim"))
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
fn help_exits_0_and_lists_the_arguments() {
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    for arg in [
        "--kernel",
        "--grid",
        "--block",
        "--arg",
        "--seed",
        "--schedules",
        "--json",
    ] {
        assert!(out.contains(arg), "{arg}: {out}");
    }
}

#[test]
fn an_unknown_option_is_named() {
    let (code, _, err) = run(&[
        "k.ptx", "--kernel", "k", "--grid", "1", "--block", "1", "--frob",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("'--frob'") && !err.contains("panicked"),
        "{err}"
    );
}
