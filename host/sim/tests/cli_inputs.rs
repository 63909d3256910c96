//! The `--arg` forms for what real kernels take (issue 30 item 5, issue 32 item 2): a device
//! function's address, a struct passed by value larger than 8 bytes, buffers holding pointers to
//! other buffers, a buffer given element by element; each bad form is exit 2 naming the problem.

mod common;

use common::ptx_sim as run;

fn inputs() -> String {
    format!(
        "{}/tests/fixtures/sim/inputs.ptx",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Runs kernel `kernel` of the inputs fixture with `block` threads and these arguments: exit
/// code, standard output, standard error.
fn launch(kernel: &str, block: &str, args: &[&str]) -> (i32, String, String) {
    let file = inputs();
    let base = [
        file.as_str(),
        "--kernel",
        kernel,
        "--grid",
        "1",
        "--block",
        block,
        "--schedules",
        "1",
    ];
    run(&[&base[..], args].concat())
}

/// The line `buffer N: …` of the output.
fn buffer_line(out: &str, n: usize) -> &str {
    let prefix = format!("buffer {n}: ");
    out.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("no buffer {n} in {out}"))
}

#[test]
fn a_function_pointer_argument_calls_the_named_function() {
    for (f, x, want) in [("square", "7", "49"), ("negate", "5", "4294967291")] {
        let arg = format!("fn:{f}");
        let (code, out, err) = launch(
            "apply",
            "1",
            &[
                "--arg",
                "buf:u32:1",
                "--arg",
                &arg,
                "--arg",
                &format!("u32:{x}"),
            ],
        );
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(buffer_line(&out, 0), want, "{f}({x}): {out}");
    }
}

#[test]
fn a_buffer_of_function_pointers_is_a_call_table() {
    let (code, out, err) = launch(
        "table",
        "4",
        &[
            "--arg",
            "buf:i32:4",
            "--arg",
            "buf:u64:[fn:square,fn:negate,fn:square,fn:negate]",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(buffer_line(&out, 0), "0 -1 4 -3", "{out}");
}

#[test]
fn a_struct_larger_than_8_bytes_passes_by_value() {
    // { u32 n = 5; f32 x = 1.5; u32 *p = &buffer0[2]; u64 m = 9; }: 24 bytes, p at offset 8.
    let (code, out, err) = launch(
        "by_value",
        "1",
        &[
            "--arg",
            "buf:u32:4",
            "--arg",
            "struct:u32:5,f32:1.5,ptr:0:8,u64:9",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let bits = 1.5f32.to_bits();
    assert_eq!(buffer_line(&out, 0), format!("{bits} 9 5 0"), "{out}");
    // A 336-byte struct given as its bytes: the kernel reads its last word.
    let last_word = format!("bytes:{}2a000000", "00".repeat(332));
    let (code, out, err) = launch(
        "big_value",
        "1",
        &["--arg", "buf:u32:1", "--arg", &last_word],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(buffer_line(&out, 0), "42", "{out}");
    // A `0x` before the bytes and braces around the fields are read as well.
    let with_0x = last_word.replace("bytes:", "bytes:0x");
    let (code, out, err) = launch("big_value", "1", &["--arg", "buf:u32:1", "--arg", &with_0x]);
    assert!(code == 0 && buffer_line(&out, 0) == "42", "{out}{err}");
    let braced = "struct:{u32:5,f32:1.5,ptr:0:8,u64:9}";
    let (code, out, err) = launch("by_value", "1", &["--arg", "buf:u32:4", "--arg", braced]);
    assert!(
        code == 0 && buffer_line(&out, 0).ends_with(" 9 5 0"),
        "{out}{err}"
    );
}

#[test]
fn buffers_hold_pointers_to_buffers() {
    // A linked list of { u64 value; node *next; } in one buffer: 5 → 7 → 9.
    let (code, out, err) = launch(
        "list_sum",
        "1",
        &[
            "--arg",
            "buf:u64:[5,ptr:0:16,7,ptr:0:32,9,0]",
            "--arg",
            "buf:u64:1",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(buffer_line(&out, 1), "21", "{out}");
    // A state struct { u32 n; u32 *data; } whose data is a buffer no parameter names.
    let (code, out, err) = launch(
        "fill",
        "4",
        &[
            "--arg",
            "buf:struct:[u32:3,ptr:2]",
            "--arg",
            "buf:u32:[10,20,30,40]",
            "--buffer",
            "u32:4:7",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(buffer_line(&out, 2), "20 40 60 7", "{out}");
}

#[test]
fn a_buffer_is_given_element_by_element_or_from_a_file() {
    let dir = std::env::temp_dir().join(format!("sim-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("in.txt");
    std::fs::write(&file, "1 2\n3,\n4\n").unwrap();
    let from_file = format!("buf:u32:@{}", file.display());
    for input in ["buf:u32:[1,2,3,4]", from_file.as_str()] {
        let (code, out, err) = launch(
            "fill",
            "4",
            &[
                "--arg",
                "buf:struct:[u32:4,ptr:2]",
                "--arg",
                input,
                "--buffer",
                "u32:[0,0,0,0]",
            ],
        );
        assert_eq!(code, 0, "{input}: {out}{err}");
        assert_eq!(buffer_line(&out, 1), "1 2 3 4", "{input}: {out}");
        assert_eq!(buffer_line(&out, 2), "2 4 6 8", "{input}: {out}");
    }
}

#[test]
fn bad_argument_forms_are_exit_2_naming_the_problem() {
    let missing = "buf:u32:@/no/such/file.txt";
    for (args, what) in [
        (
            &[
                "--arg",
                "buf:u32:1",
                "--arg",
                "fn:nothere",
                "--arg",
                "u32:1",
            ][..],
            "no function `nothere`",
        ),
        (
            &["--arg", "buf:u32:1", "--arg", "fn:9lives", "--arg", "u32:1"],
            "`9lives` is not a function name",
        ),
        // A kernel is no device function: it used to pass an address the call then faulted on
        // (exit 1, "indirect call to 0x0").
        (
            &["--arg", "buf:u32:1", "--arg", "fn:apply", "--arg", "u32:1"],
            "`apply` is a kernel (`.entry`)",
        ),
        (
            &["--arg", "buf:u32:1", "--arg", "bytes:123"],
            "two digits a byte",
        ),
        (
            &["--arg", "buf:u32:1", "--arg", "bytes:zz"],
            "`zz` in `zz` is not a hexadecimal byte",
        ),
        (
            &["--arg", "buf:u32:1", "--arg", "bytes:00"],
            "a 1-byte value for a 24-byte parameter",
        ),
        (
            &["--arg", "buf:u32:1", "--arg", "struct:u32:1,bogus:3"],
            "`bogus` in `bogus:3` is not a type",
        ),
        (
            &["--arg", "buf:u32:[1,2", "--arg", "buf:u64:1"],
            "a list ends with `]`",
        ),
        (
            &["--arg", "buf:u8:[1,256]", "--arg", "buf:u64:1"],
            "`256` is not a u8",
        ),
        (
            &["--arg", "buf:u32:[ptr:1]", "--arg", "buf:u64:1"],
            "a buffer of pointers is `buf:u64:…`",
        ),
        (
            &["--arg", "buf:u64:[ptr:5]", "--arg", "buf:u64:1"],
            "no buffer 5",
        ),
        (
            &["--arg", "buf:u64:[ptr:1:8]", "--arg", "buf:u64:1"],
            "offset 8 is outside buffer 1, which has 8 bytes",
        ),
        (
            &["--arg", missing, "--arg", "buf:u64:1"],
            "cannot read /no/such/file.txt",
        ),
        (
            &[
                "--arg",
                "buf:u64:1",
                "--arg",
                "buf:u64:1",
                "--buffer",
                "u32:[x]",
            ],
            "--buffer `u32:[x]`: `x` is not a u32",
        ),
    ] {
        let kernel = if args.contains(&"u32:1") {
            "apply"
        } else if args
            .iter()
            .any(|a| a.starts_with("bytes:") || a.starts_with("struct:"))
        {
            "by_value"
        } else {
            "list_sum"
        };
        let (code, out, err) = launch(kernel, "1", args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(what), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn help_shows_each_form_with_examples() {
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    for form in [
        "fn:NAME",
        "struct:FIELD",
        "bytes:HEX",
        "buf:T:[V,V,...]",
        "buf:T:@FILE",
        "buf:struct:[FIELD",
        "ptr:B[:OFFSET]",
        "--buffer",
        "--arg buf:u64:[ptr:1,ptr:1:8,0]",
    ] {
        assert!(out.contains(form), "{form}: {out}");
    }
}
