//! Exact values and invalid PTX refused (issue 30, item 3): predicates are one bit, stores to
//! `.const` memory fault, and a module ptxas rejects is refused at load with the symbol and line.

mod common;

use ptx_sim::{Arg, Launch, Simulator};

/// A module with one kernel `k(.param .u64 out)` whose body is `body`.
fn module(body: &str) -> String {
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n{body}\tret;\n}}\n"
    )
}

/// Runs `k` of `ptx` with one thread on a zeroed 16-byte buffer: the buffer's first word.
fn first_word(ptx: &str) -> u32 {
    let kernel = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    let launch = Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 16])]);
    let out = kernel.launch(&launch, Vec::new()).unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    u32::from_le_bytes(out.buffers[0][..4].try_into().unwrap())
}

#[test]
fn a_predicate_moved_from_minus_one_is_one_bit_true() {
    // nvcc -G emits `mov.pred %p, -1` for the true side of `||`: `not` of it is false.
    let ptx = module(
        "\tmov.pred %p1, -1;\n\tnot.pred %p2, %p1;\n\tselp.u32 %r1, 1, 0, %p2;\n\
         \tst.global.u32 [%rd1], %r1;\n",
    );
    assert_eq!(first_word(&ptx), 0, "not.pred of a true predicate");
    // `@!%p` on the moved predicate is not taken, `@%p` is.
    let ptx = module(
        "\tmov.pred %p1, -1;\n\tmov.u32 %r1, 7;\n\t@!%p1 mov.u32 %r1, 9;\n\
         \tmov.pred %p2, %p1;\n\tnot.pred %p3, %p2;\n\t@%p3 mov.u32 %r1, 11;\n\
         \tst.global.u32 [%rd1], %r1;\n",
    );
    assert_eq!(first_word(&ptx), 7);
}

#[test]
fn predicate_logic_after_a_wide_move_stays_one_bit() {
    // xor of two true predicates is false; `and` with a true one keeps the other.
    let ptx = module(
        "\tmov.pred %p1, -1;\n\tmov.pred %p2, 1;\n\txor.pred %p3, %p1, %p2;\n\
         \tselp.u32 %r1, 1, 0, %p3;\n\tand.pred %p3, %p1, %p2;\n\tnot.pred %p3, %p3;\n\
         \tselp.u32 %r2, 2, 0, %p3;\n\tor.b32 %r3, %r1, %r2;\n\
         \tst.global.u32 [%rd1], %r3;\n",
    );
    assert_eq!(first_word(&ptx), 0);
}

/// Runs `k` of `ptx` with one thread: its findings' texts.
fn findings(ptx: &str) -> Vec<String> {
    let kernel = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    let launch = Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 16])]);
    let out = kernel.launch(&launch, Vec::new()).unwrap();
    out.findings.into_iter().map(|f| f.text).collect()
}

#[test]
fn stores_to_const_memory_fault_naming_the_instruction() {
    let with_const = |body: &str| {
        module(body).replace(
            ".visible .entry",
            ".const .align 4 .u32 table[4] = {1, 2, 3, 4};\n.visible .entry",
        )
    };
    // Reading it is fine.
    let read = with_const("\tld.const.u32 %r1, [table+8];\n\tst.global.u32 [%rd1], %r1;\n");
    assert_eq!(first_word(&read), 3);
    for (store, opcode) in [
        ("\tst.const.u32 [table], 5;\n", "st.const.u32"),
        ("\tmov.u64 %rd2, table;\n\tst.u32 [%rd2+4], 5;\n", "st.u32"),
        (
            "\tcvta.const.u64 %rd2, table;\n\tst.global.u32 [%rd2], 5;\n",
            "st.global.u32",
        ),
        (
            "\tmov.u64 %rd2, table;\n\tatom.global.add.u32 %r1, [%rd2], 1;\n",
            "atom.global.add.u32",
        ),
        (
            "\tmov.u64 %rd2, table;\n\tred.add.u32 [%rd2], 1;\n",
            "red.add.u32",
        ),
    ] {
        let found = findings(&with_const(store));
        assert_eq!(found.len(), 1, "{store}: {found:?}");
        let f = &found[0];
        assert!(
            f.starts_with("fault:")
                && f.contains(&format!("`{opcode}`"))
                && f.contains("table")
                && f.contains("stores to const memory are illegal"),
            "{store}: {f}"
        );
    }
}

/// Runs the `ptx-sim` command on `ptx` (written to a file named after `name`), launching `k` with
/// one thread and a 16-byte buffer: exit code and standard error.
fn command(name: &str, ptx: &str) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("sim-exact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let args = [
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "buf:u32:4",
    ];
    let (code, _, err) = common::ptx_sim(&[&[file.to_str().unwrap()][..], &args[..]].concat());
    (code, err)
}

/// The PTX line of the first line of `ptx` that contains `text`.
fn line_of(ptx: &str, text: &str) -> usize {
    ptx.lines().position(|l| l.contains(text)).unwrap() + 1
}

#[test]
fn an_undeclared_register_is_bad_input_naming_it_and_its_line() {
    // ptxas: "Unknown symbol '%rd9'". It used to run, reading 0 as the address: a fault (exit 1).
    let ptx = module("\tst.global.u32 [%rd9], 1;\n");
    let (code, err) = command("undeclared", &ptx);
    let line = line_of(&ptx, "%rd9]");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`%rd9`")
            && err.contains("not declared")
            && err.contains(&format!("PTX line {line}")),
        "{err}"
    );
    // Beyond a declared range (`%r<8>` is %r0 to %r7), and a predicate nobody declared.
    for (body, reg) in [
        ("\tmov.u32 %r8, 1;\n", "%r8"),
        ("\tsetp.eq.u32 %q1, 1, 1;\n", "%q1"),
        ("\t@%q2 bra $done;\n$done:\n", "%q2"),
    ] {
        let (code, err) = command("undeclared_range", &module(body));
        assert!(
            code == 2 && err.contains(&format!("`{reg}`")),
            "{body}: {err}"
        );
    }
}

#[test]
fn operands_without_a_comma_are_bad_input_naming_them() {
    // ptxas: "Arguments mismatch for instruction 'ld'".
    let ptx = module("\tld.param.u64 %rd2 [out];\n\tst.global.u32 [%rd2], 1;\n");
    let (code, err) = command("comma", &ptx);
    let line = line_of(&ptx, "%rd2 [out]");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no comma between operands `%rd2` and `[out]`")
            && err.contains(&format!("PTX line {line}")),
        "{err}"
    );
}

#[test]
fn unknown_symbols_and_labels_are_bad_input_naming_them() {
    for (body, what) in [
        (
            "\tld.global.u32 %r1, [nothere];\n",
            "unknown symbol `nothere`",
        ),
        ("\tmov.u64 %rd2, nothere;\n", "unknown symbol `nothere`"),
        ("\tbra $nowhere;\n", "unknown label `$nowhere`"),
        ("\tld.param.u64 %rd2, [in];\n", "unknown parameter `in`"),
        ("\tcall.uni nothing, ();\n", "unknown function `nothing`"),
    ] {
        let ptx = module(body);
        let (code, err) = command("unknown", &ptx);
        let line = line_of(&ptx, body.trim());
        assert_eq!(code, 2, "{body}: {err}");
        assert!(
            err.contains(what) && err.contains(&format!("PTX line {line}")),
            "{body}: {err}"
        );
        assert!(!err.contains("unsupported"), "{body}: {err}");
    }
}
