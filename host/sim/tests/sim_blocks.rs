//! Nested blocks `{ … }` of a function body are scopes, as ptxas reads them: a label, register
//! or `.param` declared in a block is that block's own (the inline asm of the toolkit's headers
//! repeats `{ .reg .pred P1; LAB_WAIT: … bra LAB_WAIT; }` wherever it is inlined, and nvcc's
//! call sequences each declare their own `param0`, `param1`, …), a declaration shadows one of
//! the same name outside, and two declarations of one name in one block are refused at load.

mod common;

use ptx_sim::{Arg, Launch, Simulator};

/// A module with one kernel `k(.param .u64 out)` whose body is `body`, after `funcs`.
fn module(funcs: &str, body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n{funcs}\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n{body}\tret;\n}}\n"
    )
}

/// Runs `k` with one thread on a zeroed 16-byte buffer: its first two words.
fn words(ptx: &str) -> [u32; 2] {
    let kernel = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    let launch = Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 16])]);
    let out = kernel.launch(&launch, Vec::new()).unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    let w = |i: usize| u32::from_le_bytes(out.buffers[0][4 * i..4 * i + 4].try_into().unwrap());
    [w(0), w(1)]
}

/// A loop inside a block, counting `reg` from its value up to `to`, with the label and the
/// predicate the block declares (as CUTLASS's and libcu++'s inline asm waits do).
fn counting_block(reg: &str, to: u32) -> String {
    format!(
        "\t{{\n\t.reg .pred P1;\n\tLAB_WAIT:\n\tadd.u32 {reg}, {reg}, 1;\n\
         \tsetp.lt.u32 P1, {reg}, {to};\n\t@P1 bra LAB_WAIT;\n\t}}\n"
    )
}

#[test]
fn a_label_declared_in_a_block_is_the_blocks_own() {
    // The first block's branch used to jump to the second block's label (the last one
    // declared): the first word was never stored.
    let body = format!(
        "\tmov.u32 %r1, 0;\n{}\tst.global.u32 [%rd2], %r1;\n\tmov.u32 %r2, 10;\n{}\
         \tst.global.u32 [%rd2+4], %r2;\n",
        counting_block("%r1", 3),
        counting_block("%r2", 15)
    );
    assert_eq!(words(&module("", &body)), [3, 15]);
}

#[test]
fn a_register_declared_in_a_block_shadows_the_outer_one() {
    let body = "\tmov.u32 %r1, 7;\n\t{\n\t.reg .b32 %r1;\n\tmov.u32 %r1, 9;\n\
                \tst.global.u32 [%rd2+4], %r1;\n\t}\n\tst.global.u32 [%rd2], %r1;\n";
    assert_eq!(words(&module("", body)), [7, 9]);
    // A range declared in a block, next to the function's own range of the same prefix.
    let body = "\tmov.u32 %r1, 7;\n\t{\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, 9;\n\
                \tmov.u32 %r2, %r1;\n\tst.global.u32 [%rd2+4], %r2;\n\t}\n\
                \tst.global.u32 [%rd2], %r1;\n";
    assert_eq!(words(&module("", body)), [7, 9]);
}

/// `f(a, b) = a + b` and `g(s, c) = s.x + 100 s.y + 10000 c` with `s` a 16-byte struct
/// `{ u32 x; u64 y; }` passed by value.
const CALLEES: &str = ".func (.param .b32 func_retval0) f(.param .b32 f_a, .param .b32 f_b)\n{\n\
    \t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [f_a];\n\tld.param.u32 %r2, [f_b];\n\
    \tadd.s32 %r3, %r1, %r2;\n\tst.param.b32 [func_retval0], %r3;\n\tret;\n}\n\
    .func (.param .b32 func_retval0) g(.param .align 8 .b8 g_s[16], .param .b32 g_c)\n{\n\
    \t.reg .b32 %r<8>;\n\tld.param.u32 %r1, [g_s];\n\tld.param.u32 %r2, [g_s+8];\n\
    \tld.param.u32 %r3, [g_c];\n\tmul.lo.s32 %r4, %r2, 100;\n\tadd.s32 %r5, %r1, %r4;\n\
    \tmul.lo.s32 %r6, %r3, 10000;\n\tadd.s32 %r7, %r5, %r6;\n\
    \tst.param.b32 [func_retval0], %r7;\n\tret;\n}\n";

#[test]
fn each_call_sequence_has_parameters_of_its_own() {
    // nvcc names the parameters of every call sequence `param0`, `param1`, …: the second
    // block's 16-byte `param0` used to share the first block's 4-byte slot, its upper half
    // overlapping `param1` (g returned 50503).
    let body = "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0], 1;\n\
                \t.param .b32 param1;\n\tst.param.b32 [param1], 2;\n\t.param .b32 retval0;\n\
                \tcall.uni (retval0), f, (param0, param1);\n\tld.param.b32 %r1, [retval0];\n\t}\n\
                \tst.global.u32 [%rd2], %r1;\n\
                \t{\n\t.param .align 8 .b8 param0[16];\n\tst.param.b32 [param0], 3;\n\
                \tst.param.b32 [param0+8], 4;\n\t.param .b32 param1;\n\tst.param.b32 [param1], 5;\n\
                \t.param .b32 retval0;\n\tcall.uni (retval0), g, (param0, param1);\n\
                \tld.param.b32 %r2, [retval0];\n\t}\n\tst.global.u32 [%rd2+4], %r2;\n";
    assert_eq!(words(&module(CALLEES, body)), [3, 50403]);
}

/// Runs the `ptx-sim` command on `ptx` (written to a file named after `name`): exit code and
/// standard error.
fn command(name: &str, ptx: &str) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("sim-blocks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let args = ["--kernel", "k", "--grid", "1", "--block", "1"];
    let args = [&args[..], &["--arg", "buf:u32:4", file.to_str().unwrap()]].concat();
    let (code, _, err) = common::ptx_sim(&args);
    (code, err)
}

#[test]
fn two_declarations_of_one_name_in_one_block_are_bad_input_naming_it_and_its_line() {
    // ptxas: "Duplicate definition of label '…'" / "of variable '…'". Each used to run.
    for (body, name, second) in [
        ("$L:\n\tbra $X;\n$L:\n$X:\n", "$L", 3),
        ("\t{\n\tA:\n\tbra B;\n\tA:\n\tB:\n\t}\n", "A", 4),
        (
            "\t{\n\t.reg .b32 %t1;\n\t.reg .b32 %t1;\n\tmov.u32 %t1, 0;\n\t}\n",
            "%t1",
            3,
        ),
        (
            "\t{\n\t.reg .b32 %t<3>;\n\t.reg .b32 %t<3>;\n\t}\n",
            "%t<3>",
            3,
        ),
        ("\t{\n\t.reg .b32 %t<3>;\n\t.reg .b32 %t1;\n\t}\n", "%t1", 3),
        ("\t.reg .b32 %r1;\n", "%r1", 1),
        ("\t{\n\t.param .b32 p0;\n\t.param .b32 p0;\n\t}\n", "p0", 3),
    ] {
        let ptx = module("", body);
        // The line of the body's `second`th line.
        let first_body_line = ptx.lines().position(|l| l.contains("cvta.to")).unwrap() + 2;
        let line = first_body_line + second - 1;
        let (code, err) = command("duplicate", &ptx);
        assert_eq!(code, 2, "{body}: {err}");
        assert!(
            err.contains(&format!("duplicate definition of `{name}`"))
                && err.contains(&format!("PTX line {line}")),
            "{body}: {err}"
        );
    }
    // The same names in two blocks, or in a block and the function, are fine.
    let body = "\t{\n\t.reg .b32 %t1;\n\tA:\n\t}\n\t{\n\t.reg .b32 %t1;\n\tA:\n\t}\n\
                \t{\n\t.reg .b32 %r1;\n\t}\n";
    assert_eq!(words(&module("", body)), [0, 0]);
}
