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

/// `module(body)` with a `.const` table of four words.
fn with_const_table(body: &str) -> String {
    module(body).replace(
        ".visible .entry",
        ".const .align 4 .u32 table[4] = {1, 2, 3, 4};\n.visible .entry",
    )
}

#[test]
fn a_store_or_atomic_naming_the_const_space_is_bad_input_naming_its_line() {
    // ptxas: "State space incorrect for instruction 'st'" (and 'atom', 'red'). They used to
    // load and fault when run (exit 1).
    for body in [
        "\tst.const.u32 [table], 5;\n",
        "\tst.const.v2.u32 [table], {%r1, %r2};\n",
        "\tatom.const.add.u32 %r1, [table], 1;\n",
        "\tred.const.add.u32 [table], 1;\n",
    ] {
        let ptx = with_const_table(body);
        let (code, err) = command("const_store", &ptx);
        let line = line_of(&ptx, body.trim());
        assert_eq!(code, 2, "{body}: {err}");
        let opcode = body.split_whitespace().next().unwrap();
        assert!(
            err.contains(&format!("`{opcode}`"))
                && err.contains(".const")
                && err.contains(&format!("PTX line {line}")),
            "{body}: {err}"
        );
    }
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
                && f.contains("in .const memory: \"Stores to const memory are illegal\""),
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

/// A label is scoped to its `{ … }` block, as in PTX: an inline-`asm` loop inlined twice defines
/// its label twice, once per block, and each `bra` means its own block's (or an enclosing
/// block's). The simulator flattened the blocks and kept the last definition of a label, so the
/// first loop's branch jumped into the second loop: here the count ends at 3 + 3 = 6 only when
/// each loop runs its own three rounds (the old code gave another count).
#[test]
fn labels_are_scoped_to_their_block() {
    let one_loop = |add: u32| {
        format!(
            "	{{ .reg .pred %d; .reg .b32 %i; mov.u32 %i, 0;
             W:
	add.u32 %r1, %r1, {add};
	add.u32 %i, %i, 1;
             	setp.lt.u32 %d, %i, 3;
	@%d bra W;
	bra $out;
	}}
$out:
"
        )
    };
    // The second loop's `$out` is a label of the body's own block, defined once: the first
    // block's `bra $out` needs the outer scope. So the body defines a distinct exit per loop.
    let body = format!(
        "	mov.u32 %r1, 0;
{}{}	st.global.u32 [%rd1], %r1;
",
        one_loop(1).replace("$out", "$out1"),
        one_loop(1).replace("$out", "$out2"),
    );
    assert_eq!(first_word(&module(&body)), 6);
    // A label used before its block defines it (a forward branch inside the block).
    let body = "	mov.u32 %r1, 5;
	{ .reg .pred %d; setp.eq.u32 %d, 1, 1;
	@%d bra SKIP;
                	mov.u32 %r1, 9;
SKIP:
	}
	{ bra SKIP;
	mov.u32 %r1, 7;
SKIP:
	}
                	st.global.u32 [%rd1], %r1;
";
    assert_eq!(first_word(&module(body)), 5);
}

#[test]
fn a_label_defined_twice_in_one_block_is_refused() {
    // ptxas: "Duplicate definition of label". The old simulator kept the last one.
    let ptx = module(
        "	bra $l;
$l:
	mov.u32 %r1, 1;
$l:
",
    );
    let (code, err) = command("duplicate_label", &ptx);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("duplicate definition of `$l`"), "{err}");
}

/// `module(body)` with `vars` declared before the kernel.
fn with_vars(vars: &str, body: &str) -> String {
    module(body).replace(".visible .entry", &format!("{vars}.visible .entry"))
}

#[test]
fn two_definitions_of_one_variable_are_refused_naming_it_and_both_lines() {
    // ptxas: "Duplicate definition of variable 's'". The simulator used to alias the two.
    for space in [".shared", ".global", ".const"] {
        let vars = format!("{space} .align 4 .b8 s[16];\n{space} .align 4 .b8 s[8];\n");
        let ptx = with_vars(&vars, "\tld.param.u64 %rd2, [out];\n");
        let (first, second) = (line_of(&ptx, "s[16]"), line_of(&ptx, "s[8]"));
        let (code, err) = command("duplicate", &ptx);
        assert_eq!(code, 2, "{space}: {err}");
        assert!(
            err.contains(&format!("PTX line {second}"))
                && err.contains("duplicate definition of variable `s`")
                && err.contains(&format!("first defined at PTX line {first}")),
            "{space}: {err}"
        );
    }
    // Two bodies of one function (ptxas: "Inconsistent redefinition of symbol").
    let ptx = module("");
    let twice = format!("{ptx}{}", &ptx[ptx.find(".visible").unwrap()..]);
    let (code, err) = command("duplicate_function", &twice);
    let lines: Vec<&str> = twice.lines().collect();
    let second = lines
        .iter()
        .rposition(|l| l.starts_with(".visible"))
        .unwrap()
        + 1;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "PTX line {second}: duplicate definition of function `k`"
        )),
        "{err}"
    );
    // `.extern` declarations (dynamic shared memory, as nvcc repeats them) are not definitions.
    let vars = ".extern .shared .align 16 .b8 smem[];\n.extern .shared .align 16 .b8 smem[];\n";
    assert_eq!(first_word(&with_vars(vars, "")), 0);
}

#[test]
fn static_shared_memory_beyond_48_kib_is_refused_naming_the_variables() {
    // ptxas: "Entry function 'k' uses too much shared data (0xc001 bytes, 0xc000 max)".
    let used = |bytes: u32| {
        with_vars(
            &format!(".shared .align 1 .b8 big[{bytes}];\n.shared .align 4 .b8 unused[60000];\n"),
            "\tld.shared.u8 %r1, [big];\n",
        )
    };
    // Exactly 48 KiB runs; a variable no code names does not count (ptxas counts per kernel).
    assert_eq!(first_word(&used(49152)), 0);
    let ptx = used(49153);
    let (code, err) = command("shared_limit", &ptx);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("kernel `k` uses 49153 bytes of static shared memory")
            && err.contains(&format!(
                "`big` (49153 bytes, PTX line {})",
                line_of(&ptx, "big[")
            ))
            && !err.contains("unused"),
        "{err}"
    );
    // Shared variables of a called function count for the kernel.
    let ptx = ".version 7.8\n.target sm_90\n.address_size 64\n\
        .func f()\n{\n\t.shared .align 4 .b8 s[30000];\n\t.reg .b32 %r<2>;\n\
        \tld.shared.u32 %r1, [s];\n\tret;\n}\n\
        .visible .entry k(.param .u64 out)\n{\n\t.shared .align 4 .b8 t[30000];\n\
        \t.reg .b32 %r<2>;\n\tld.shared.u32 %r1, [t];\n\tcall f, ();\n\tret;\n}\n";
    let (code, err) = command("shared_limit_calls", ptx);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("60000 bytes") && err.contains("`s`") && err.contains("`t`"),
        "{err}"
    );
}

#[test]
fn const_data_beyond_64_kib_is_refused_naming_the_variable() {
    // ptxas: "File uses too much global constant data (0x13880 bytes, 0x10000 max)", counting
    // every .const variable of the module.
    let ptx = with_vars(
        ".const .align 4 .b8 a[40000];\n.const .align 4 .b8 b[40000];\n",
        "",
    );
    let (code, err) = command("const_limit", &ptx);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("PTX line {}", line_of(&ptx, "b[40000]")))
            && err.contains("`b`")
            && err.contains("80000 bytes"),
        "{err}"
    );
}

#[test]
fn a_functions_own_shared_variable_is_shared_memory_of_its_own() {
    // A `.shared` declared in a body after a `.local` was read as local memory at the local's
    // offset (a fault), and two functions' variables of one name shared their bytes.
    let ptx = ".version 7.8\n.target sm_90\n.address_size 64\n\
        .func (.param .b32 r) f()\n{\n\t.shared .align 4 .b8 s[16];\n\t.reg .pred %p<2>;\n\
        \t.reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 1;\n\
        \t@%p1 st.shared.u32 [s+4], 5;\n\tbar.sync 0;\n\
        \tld.shared.u32 %r2, [s+4];\n\tst.param.b32 [r], %r2;\n\tret;\n}\n\
        .visible .entry k(.param .u64 out)\n{\n\t.local .align 4 .b8 l[16];\n\
        \t.shared .align 4 .b8 s[16];\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<5>;\n\
        \t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\
        \tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 st.shared.u32 [s+4], 77;\n\tbar.sync 0;\n\
        \t{\n\t.param .b32 r0;\n\tcall.uni (r0), f, ();\n\tld.param.b32 %r3, [r0];\n\t}\n\
        \tld.shared.u32 %r2, [s+4];\n\tmul.wide.u32 %rd2, %r1, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
        \tst.global.u32 [%rd3], %r2;\n\tst.global.u32 [%rd3+4], %r3;\n\tret;\n}\n";
    let kernel = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    let launch = Launch::new([1; 3], [2, 1, 1], vec![Arg::Buffer(vec![0; 16])]);
    let out = kernel.launch(&launch, Vec::new()).unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    let words: Vec<u32> = out.buffers[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // Each thread: the kernel's `s` (77, from thread 0), then f's `s` (5, from thread 1).
    assert_eq!(words, [77, 5, 77, 5]);
}

#[test]
fn a_register_of_the_wrong_type_is_bad_input_naming_it_and_its_line() {
    // ptxas: "Arguments mismatch for instruction '…'". Each used to run silently.
    for (body, reg) in [
        ("\tadd.s32 %r1, %rd1, 1;\n", "%rd1"),
        ("\tmov.u64 %rd2, %r1;\n", "%r1"),
        ("\tmov.u32 %r1, %p1;\n", "%p1"),
        ("\tsetp.eq.u32 %r1, %r2, 0;\n", "%r1"),
        ("\tselp.u32 %r1, 1, 0, %r2;\n", "%r2"),
        ("\tand.pred %p1, %p2, %r3;\n", "%r3"),
        ("\t@%r1 bra $done;\n$done:\n", "%r1"),
        ("\tld.global.u64 %r1, [%rd1];\n", "%r1"),
        ("\tld.global.u32 %p1, [%rd1];\n", "%p1"),
        ("\tst.global.u64 [%rd1], %r1;\n", "%r1"),
        ("\tatom.global.add.u32 %rd2, [%rd1], 1;\n", "%rd2"),
        ("\tred.global.add.u64 [%rd1], %r1;\n", "%r1"),
    ] {
        let ptx = module(body);
        let (code, err) = command("wrong_type", &ptx);
        let line = line_of(&ptx, body.trim().lines().next().unwrap());
        assert_eq!(code, 2, "{body}: {err}");
        assert!(
            err.contains(&format!("`{reg}`")) && err.contains(&format!("PTX line {line}")),
            "{body}: {err}"
        );
    }
    // What ptxas accepts: a register of another type of the size, a wider load destination,
    // two predicate destinations, a negated predicate source, a packing move.
    let ptx = module(
        "\t.reg .f32 %f<2>;\n\tmov.b32 %f1, 0f40000000;\n\tadd.f32 %f1, %r1, %f1;\n\
         \tmov.b32 %r2, %f1;\n\tld.global.u32 %rd2, [%rd1];\n\
         \tsetp.eq.and.u32 %p1|%p2, %r2, 1073741824, !%p3;\n\tmov.b64 %rd3, {%r2, %r2};\n\
         \tselp.u32 %r3, 1, 0, %p1;\n\tst.global.u8 [%rd1+4], %r3;\n\tst.global.u16 [%rd1+4], %rd3;\n\
         \tatom.global.add.u32 %r4, [%rd1+8], 1;\n\tst.global.u32 [%rd1], %r3;\n",
    );
    assert_eq!(first_word(&ptx), 1);
}
