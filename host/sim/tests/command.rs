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
        "--volatile",
        "--dynamic-shared",
        "relaxed-sys",
        "f32:V",
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

fn corpus(file: &str) -> String {
    format!(
        "{}/tests/fixtures/sim/cuda/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn volatile_view_decides_the_verdict_of_a_volatile_flag() {
    // The volatile-flag message of the CUDA corpus: race-free in PTX's view, racy in C++'s.
    let file = corpus("messages.ptx");
    let base = [
        file.as_str(),
        "--kernel",
        "volatile_flag_message",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "buf:i32:1",
        "--arg",
        "buf:i32:1",
        "--arg",
        "buf:i32:1",
    ];
    let (code, out, err) = run(&base);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("buffer 2: 42"), "{out}");
    let (code, out, err) = run(&[&base[..], &["--volatile", "relaxed-sys"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, _) = run(&[&base[..], &["--volatile", "plain"]].concat());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("race: ") && out.lines().next().unwrap().contains("volatile"),
        "{out}"
    );
    let (code, _, err) = run(&[&base[..], &["--volatile", "c++"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("'c++'") && err.contains("plain"), "{err}");
}

#[test]
fn argument_kinds_dynamic_shared_and_printf() {
    // Float buffers in and out, shown as floats.
    let file = corpus("calls.ptx");
    let (code, out, err) = run(&[
        &file,
        "--kernel",
        "vector_copy",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "buf:f32:4:1.5",
        "--arg",
        "buf:f32:4",
        "--arg",
        "buf:i32:2:-7",
        "--arg",
        "buf:i32:2",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("buffer 1: 1.5 3.0 1.5 2.5"), "{out}");
    assert!(out.contains("buffer 3: -7 -7"), "{out}");
    // Dynamic shared memory: needed by the kernel, refused without it (a fault, exit 1).
    let rotate = |extra: &[&str]| {
        let mut args = vec![
            file.as_str(),
            "--kernel",
            "dynamic_shared_rotate",
            "--grid",
            "1",
            "--block",
            "4",
            "--arg",
            "buf:u8:16:1",
            "--arg",
            "buf:u32:4",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let (code, out, err) = rotate(&["--dynamic-shared", "16"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("buffer 1: 16843009 16843009"), "{out}");
    let (code, out, _) = rotate(&[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("fault: ") && out.contains("shared"),
        "{out}"
    );
    let (code, _, err) = rotate(&["--dynamic-shared", "lots"]);
    assert_eq!(code, 2);
    assert!(err.contains("`lots` is not a byte count"), "{err}");
    // printf lines follow the findings, each naming its thread.
    let (code, out, err) = run(&[
        &file,
        "--kernel",
        "print_values",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "buf:i32:1:3",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("printf (0,0) v=3 u=3 x=3 f=1.50 s=ok c=A"),
        "{out}"
    );
    // Scalars of each kind, and bad ones named.
    for (arg, what) in [
        ("f32:x", "`x` is not a f32"),
        ("i32:3000000000", "is not a i32"),
        ("buf:f16:1", "buffer type `f16`"),
        ("buf:u8:1:256", "`256` is not a u8"),
    ] {
        let (code, _, err) = run(&[
            &file, "--kernel", "k", "--grid", "1", "--block", "1", "--arg", arg,
        ]);
        assert_eq!(code, 2, "{arg}");
        assert!(
            err.contains(what) && !err.contains("panicked"),
            "{arg}: {err}"
        );
    }
}

#[test]
fn decode_and_launch_errors_print_their_own_message() {
    let file = corpus("calls.ptx");
    let (code, out, err) = run(&[&file, "--kernel", "nope", "--grid", "1", "--block", "1"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("no kernel named `nope`") && !err.contains("usage"),
        "{err}"
    );
    // Too few arguments for the kernel: the launch's own message.
    let (code, _, err) = run(&[
        &file,
        "--kernel",
        "integer_ops",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "buf:u32:1",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("takes 3 parameters, 1 arguments given") && !err.contains("usage"),
        "{err}"
    );
}
