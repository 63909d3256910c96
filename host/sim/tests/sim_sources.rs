//! Where a finding points: the innermost line of the user's crate in any of its files (a kernel
//! whose body lives in a module file names that file, not the entry's call of it). Needs no
//! tools: hand-written PTX with `.file` and `.loc` directives.

use ptx_sim::{Arg, FindingKind, Launch, Outcome, Simulator};

/// A kernel `k(u64 buffer)` with `%rd1` = the buffer, `%r2` = block, then `body`, then `tail`
/// (the `.file` directives, after the functions as LLVM writes them).
fn kernel(body: &str, tail: &str) -> String {
    format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\
         \t.loc 1 290 0\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r2, %ctaid.x;\n\
         {body}\n\tret;\n}}\n{tail}"
    )
}

fn race(ptx: &str) -> Outcome {
    let sim = Simulator::new(ptx).unwrap();
    let l = Launch::new([2, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 64])]);
    sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap()
}

const FILES: &str = "\t.file\t1 \"/u/kernels/src/lib.rs\"\n\
                     \t.file\t2 \"/u/kernels/src/mpmc.rs\"\n\
                     \t.file\t3 \"/r/atomics/src/imp/ptx/asm.rs\"\n\
                     \t.file\t4 \"/rustc/59807616/library/core/src/ptr/mod.rs\"\n";

/// The entry (lib.rs:299) calls the module's body (mpmc.rs:41), which calls the library
/// (asm.rs:144), which calls `core` (mod.rs:1500): the finding names mpmc.rs:41.
#[test]
fn a_kernel_body_in_a_module_file_is_named_by_its_own_line() {
    let chain = kernel(
        "\t.loc 2 41 9, function_name $L__info_string0, inlined_at 1 299 5\n\
         \t.loc 3 144 34, function_name $L__info_string1, inlined_at 2 41 9\n\
         \t.loc 4 1500 9, function_name $L__info_string2, inlined_at 3 144 34\n\
         \tst.global.u32 [%rd1], %r2;",
        FILES,
    );
    // rustc without `inlined_at`: the last line of the user's crate, and a builder's call-site
    // comment for the entry's call of the body does not override the module file's line.
    let flat = kernel(
        "$L__tmp1:\n\t.loc 1 299 5\n\t.loc 2 41 9\n\t.loc 3 144 34\n\
         \tst.global.u32 [%rd1], %r2;\n$L__tmp2:",
        &format!("{FILES}//@inlined_at $L__tmp1 $L__tmp2 1 299 5\n"),
    );
    let core = "/rustc/59807616/library/core/src/ptr/mod.rs:1500";
    let asm = "/r/atomics/src/imp/ptx/asm.rs:144";
    for (ptx, via) in [(chain, core), (flat, asm)] {
        let out = race(&ptx);
        let f = out.findings.first().expect("a race");
        assert_eq!(f.kind, FindingKind::Race, "{f}");
        let expected = format!("(/u/kernels/src/mpmc.rs:41, via {via})");
        assert!(f.text.contains(&expected), "{expected} not in {f}");
    }
}
