//! The `ptx-sim` binary's contract: `--help` exits 0 and lists every argument; bad input is an
//! error naming it (exit 2, no panic).

mod common;

use common::{corpus, ptx_sim as run};

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
        "ptr:B:OFFSET",
        "--warp-lockstep",
        "--cooperative",
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

/// A kernel whose threads each swap their index into `*p` and store the value they took out at
/// `q[tid]`: the order of the swaps shows the schedule (the toolkit's CLI tests run it too).
fn swap_file() -> String {
    format!("{}/tests/fixtures/sim/swap.ptx", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_pointer_into_a_buffer_and_warp_lockstep_scheduling() {
    let file = swap_file();
    // One buffer of 9 words: word 0 is swapped, words 1..=8 (from byte 4) take the old values.
    let base = [
        file.as_str(),
        "--kernel",
        "swap",
        "--grid",
        "1",
        "--block",
        "8",
        "--arg",
        "buf:u32:9:99",
        "--arg",
        "ptr:0:4",
        "--schedules",
        "1",
    ];
    // In lockstep the lanes swap in lane order: each takes its predecessor's index.
    let (code, out, err) = run(&[&base[..], &["--warp-lockstep"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("buffer 0: 7 99 0 1 2 3 4 5 6"), "{out}");
    assert!(out.contains("block 8x1x1, warp lockstep, seed 1"), "{out}");
    let (code, out, err) = run(&[&base[..], &["--warp-lockstep", "--json"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"mode\":\"warp-lockstep\""), "{out}");
    // The random scheduler interleaves them otherwise (8! orders; this seed's is another).
    let (code, out, err) = run(&base);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("buffer 0: "), "{out}");
    assert!(!out.contains("buffer 0: 7 99 0 1 2 3 4 5 6"), "{out}");
    assert!(!out.contains("lockstep"), "{out}");
}

#[test]
fn a_pointer_outside_its_buffer_is_an_error_naming_buffer_offset_and_size() {
    let file = swap_file();
    let with = |args: &[&str]| {
        let mut all = vec![
            file.as_str(),
            "--kernel",
            "swap",
            "--grid",
            "1",
            "--block",
            "1",
        ];
        all.extend_from_slice(args);
        run(&all)
    };
    let (code, out, err) = with(&["--arg", "buf:u32:4", "--arg", "ptr:0:16"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("offset 16 is outside buffer 0, which has 16 bytes"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let (code, _, err) = with(&["--arg", "ptr:1:0", "--arg", "buf:u32:4"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no buffer 1: there is 1 `buf:` argument(s)"),
        "{err}"
    );
    // A pointer may name a buffer of a later argument (every buffer is allocated first).
    let (code, out, err) = with(&["--arg", "ptr:0:12", "--arg", "buf:u32:4:5"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("buffer 0: 5 5 5 0"), "{out}");
    for (arg, what) in [
        ("ptr:x:0", "`x` is not a buffer number"),
        ("ptr:0:-4", "`-4` is not a byte offset"),
        ("ptr:0", "or ptr:B:OFFSET"),
    ] {
        let (code, _, err) = with(&["--arg", arg]);
        assert_eq!(code, 2, "{arg}");
        assert!(
            err.contains(what) && !err.contains("panicked"),
            "{arg}: {err}"
        );
    }
}

#[test]
fn a_cooperative_launch_lets_grid_sync_run() {
    let file = corpus("grid.ptx");
    let base = [
        file.as_str(),
        "--kernel",
        "grid_rotate",
        "--grid",
        "2",
        "--block",
        "4",
        "--arg",
        "buf:i32:8",
        "--arg",
        "buf:i32:8",
    ];
    let (code, out, _) = run(&[&base[..], &["--cooperative"]].concat());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("buffer 1: 10 20 30 40 50 60 70 0"), "{out}");
    let (code, out, _) = run(&base);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("fault:") && out.contains("trap"), "{out}");
}

/// A one-thread run of a kernel with a finding, its report written to `stdout`.
fn report_to(stdout: std::process::Stdio) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ptx-sim"))
        .args([
            &corpus("calls.ptx"),
            "--kernel",
            "use_after_free",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "buf:i32:1",
        ])
        .stdout(stdout)
        .output()
        .unwrap()
}

/// A report that cannot be written is an error naming why (not a fault of the PTX).
#[test]
fn a_report_that_cannot_be_written_is_an_error_naming_why() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full on this system
    };
    let out = report_to(full.into());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot write the report to standard output"),
        "{err}"
    );
}

/// A reader that went away (`ptx-sim … | head`) ends the run quietly with 141, the status of a
/// process ended by SIGPIPE, so that a pipeline still fails.
#[test]
fn a_closed_pipe_ends_quietly_with_141() {
    // The read end is closed before the simulator starts: its report meets no reader.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = report_to(writer.into());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{err}");
    assert!(err.is_empty(), "{err}");
}
