//! The simulator's findings on small hand-written kernels, each next to its correct twin: data
//! and scope races (plain accesses, scopes that do not include the other thread, mixed sizes,
//! fences at too small a scope, a missing `bar.sync`), hangs and faults. Needs no tools.

use ptx_sim::{Arg, FindingKind, Launch, Outcome, Simulator};

/// A kernel `k(u64 buffer)` with `%rd1` = the buffer, `%r1` = thread, `%r2` = block.
fn kernel(body: &str) -> String {
    format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\n\
         .shared .align 8 .b8 shared_obj[8];\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.local .align 8 .b8 depot[8];\n\
         \t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\
         {body}\n\tret;\n}}\n"
    )
}

fn run(body: &str, grid: u32, block: u32, seed: u64) -> Outcome {
    let sim = Simulator::new(&kernel(body)).unwrap();
    let mut l = Launch::new([grid, 1, 1], [block, 1, 1], vec![Arg::Buffer(vec![0; 64])]);
    l.seed = seed;
    sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap()
}

fn first(out: &Outcome) -> Option<FindingKind> {
    out.findings.first().map(|f| f.kind)
}

fn word(out: &Outcome, i: usize) -> u32 {
    u32::from_le_bytes(out.buffers[0][4 * i..4 * i + 4].try_into().unwrap())
}

#[test]
fn plain_writes_from_two_blocks_race() {
    let out = run("\tst.global.u32 [%rd1], %r2;", 2, 1, 1);
    assert_eq!(first(&out), Some(FindingKind::Race), "{:?}", out.findings);
    let f = &out.findings[0].text;
    assert!(
        f.contains("plain write") && f.contains("(0,0)") && f.contains("(1,0)"),
        "{f}"
    );
}

#[test]
fn findings_name_the_source_line_of_loc() {
    let out = run("\t.loc 1 42 7\n\tst.global.u32 [%rd1], %r2;", 2, 1, 1);
    let f = &out.findings.first().expect("a race").text;
    assert!(f.contains("(source line 42)"), "{f}");
}

/// With `.file` directives a finding names `file:line`; where the `.loc` is inside inlined
/// library code, the kernel author's line comes first: from nvcc's `inlined_at`, or from the
/// builder's `//@inlined_at` comment over the label range of the inlined call.
#[test]
fn findings_name_the_authors_file_and_line_before_the_librarys() {
    let files = "\t.file\t1 \"/u/src/lib.rs\"\n\t.file\t2 \"/r/atomics/src/imp/ptx/asm.rs\"\n";
    let own = kernel("\t.loc 1 12 0\n\t.loc 1 14 5\n\tst.global.u32 [%rd1], %r2;") + files;
    let nvcc = kernel(
        "\t.loc 1 12 0\n\t.loc 2 144 34, function_name $L__info_string0, inlined_at 1 20 3\n\
         \tst.global.u32 [%rd1], %r2;",
    ) + files;
    let rust = kernel(
        "\t.loc 1 12 0\n$L__tmp1:\n\t.loc 2 144 34\n\tst.global.u32 [%rd1], %r2;\n$L__tmp2:",
    ) + files
        + "//@inlined_at $L__tmp1 $L__tmp2 1 15 13\n";
    // nvcc's chain: a header function (file 2) inlined into another (file 3) inlined into the
    // kernel at line 31.
    let chain = kernel(
        "\t.loc 1 12 0\n\t.loc 2 144 34, function_name $L__info_string0, inlined_at 1 31 3\n\
         \t.loc 3 7 9, function_name $L__info_string1, inlined_at 2 144 34\n\
         \tst.global.u32 [%rd1], %r2;",
    ) + files
        + "\t.file\t3 \"/usr/local/cuda/include/cuda/std/inner.h\"\n";
    for (ptx, expected) in [
        (
            chain,
            "(/u/src/lib.rs:31, via /usr/local/cuda/include/cuda/std/inner.h:7)",
        ),
        (own, "(/u/src/lib.rs:14)"),
        (
            nvcc,
            "(/u/src/lib.rs:20, via /r/atomics/src/imp/ptx/asm.rs:144)",
        ),
        (
            rust,
            "(/u/src/lib.rs:15, via /r/atomics/src/imp/ptx/asm.rs:144)",
        ),
    ] {
        let sim = Simulator::new(&ptx).unwrap();
        let l = Launch::new([2, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 64])]);
        let out = sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap();
        let f = &out.findings.first().expect("a race").text;
        assert!(f.contains(expected), "{expected} not in {f}");
    }
}

/// Cache hints are accepted and change nothing: `prefetch`, `createpolicy` and an access with
/// its `.L2::cache_hint` policy operand (what CUDA's `__ldg`/`cuda::annotated_ptr` code emits).
#[test]
fn cache_hints_run_and_change_nothing() {
    let out = run(
        "\tprefetch.global.L2 [%rd1];\n\tprefetchu.L1 [%rd1];\n\
         \tcreatepolicy.fractional.L2::evict_last.b64 %rd2, 1.0;\n\
         \tst.global.u32 [%rd1+4], 9;\n\
         \tld.global.L2::cache_hint.u32 %r3, [%rd1+4], %rd2;\n\tst.global.u32 [%rd1+8], %r3;",
        1,
        1,
        1,
    );
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    assert_eq!(word(&out, 2), 9);
}

/// Message passing between blocks through fences of `scope` around relaxed flag accesses.
fn fenced_message_passing(scope: &str, seed: u64) -> Outcome {
    let body = format!(
        "\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $CONSUMER;\n\
         \tst.global.u32 [%rd1], 42;\n\tfence.acq_rel.{scope};\n\
         \tst.relaxed.gpu.global.u32 [%rd1+4], 1;\n\tbra.uni $END;\n\
         $CONSUMER:\n\tld.relaxed.gpu.global.u32 %r3, [%rd1+4];\n\tsetp.eq.u32 %p2, %r3, 0;\n\
         \t@%p2 bra $CONSUMER;\n\tfence.acq_rel.{scope};\n\tld.global.u32 %r4, [%rd1];\n\
         \tst.global.u32 [%rd1+8], %r4;\n$END:"
    );
    run(&body, 2, 1, seed)
}

#[test]
fn fences_at_gpu_scope_order_message_passing_and_cta_fences_do_not() {
    for seed in 0..5 {
        let ok = fenced_message_passing("gpu", seed);
        assert!(ok.findings.is_empty(), "{:?}", ok.findings);
        assert_eq!(word(&ok, 2), 42);
        let bad = fenced_message_passing("cta", seed);
        assert_eq!(first(&bad), Some(FindingKind::Race), "seed {seed}");
        assert!(
            bad.findings[0].text.contains("plain"),
            "{}",
            bad.findings[0]
        );
    }
}

fn neighbours(barrier: bool, seed: u64) -> Outcome {
    let body = format!(
        "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\
         {}\tadd.u32 %r3, %r1, 1;\n\trem.u32 %r3, %r3, 8;\n\tmul.wide.u32 %rd4, %r3, 4;\n\
         \tadd.s64 %rd5, %rd1, %rd4;\n\tld.global.u32 %r4, [%rd5];\n\tst.global.u32 [%rd3+32], %r4;",
        if barrier { "\tbar.sync 0;\n" } else { "" }
    );
    run(&body, 1, 8, seed)
}

#[test]
fn bar_sync_orders_a_block_and_its_absence_is_a_race() {
    for seed in 0..5 {
        let ok = neighbours(true, seed);
        assert!(ok.findings.is_empty(), "{:?}", ok.findings);
        assert_eq!(
            (0..8).map(|i| word(&ok, 8 + i)).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6, 7, 0]
        );
        assert_eq!(first(&neighbours(false, seed)), Some(FindingKind::Race));
    }
}

#[test]
fn atomics_are_morally_strong_only_within_their_scope_and_size() {
    // Reductions at gpu scope from two blocks: morally strong, no race.
    let ok = run("\tred.relaxed.gpu.global.add.u32 [%rd1], 1;", 2, 2, 1);
    assert!(ok.findings.is_empty(), "{:?}", ok.findings);
    assert_eq!(word(&ok, 0), 4);
    // At cta scope from two blocks: the scope does not include the other block.
    let bad = run("\tred.relaxed.cta.global.add.u32 [%rd1], 1;", 2, 1, 1);
    assert_eq!(first(&bad), Some(FindingKind::Race));
    assert!(
        bad.findings[0].text.contains("(cta)")
            && bad.findings[0]
                .text
                .contains("a scope does not include the other thread"),
        "{}",
        bad.findings[0]
    );
    // Same scope, different sizes: not morally strong.
    let mixed = "\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $B;\n\
                 \tatom.relaxed.gpu.global.add.u32 %r3, [%rd1], 1;\n\tbra.uni $E;\n\
                 $B:\n\tld.relaxed.gpu.global.u16 %rs1, [%rd1];\n$E:";
    let out = run(mixed, 2, 1, 1);
    assert_eq!(first(&out), Some(FindingKind::Race));
    assert!(
        out.findings[0].text.contains("differ in size"),
        "{}",
        out.findings[0]
    );
}

#[test]
fn a_spin_on_a_value_nobody_changes_is_a_hang() {
    let body = "$SPIN:\n\tld.relaxed.gpu.global.u32 %r3, [%rd1];\n\tsetp.eq.u32 %p1, %r3, 0;\n\
                \tnanosleep.u32 100;\n\t@%p1 bra $SPIN;";
    let out = run(body, 2, 32, 1);
    assert_eq!(first(&out), Some(FindingKind::Hang), "{:?}", out.findings);
    assert!(out.findings[0].text.starts_with("hang: "));
}

#[test]
fn a_loop_without_memory_operations_is_a_hang_in_bounded_steps() {
    let out = run("$LOOP:\n\tadd.u32 %r3, %r3, 1;\n\tbra.uni $LOOP;", 1, 2, 1);
    assert_eq!(first(&out), Some(FindingKind::Hang), "{:?}", out.findings);
    assert!(out.instructions < 1 << 28, "{}", out.instructions);
}

#[test]
fn faults_name_the_problem() {
    let cases = [
        ("\tst.global.u32 [%rd1+4096], 1;", "beyond its 64 bytes"),
        ("\tld.global.u32 %r3, [%rd1+2];", "misaligned 4-byte access"),
        (
            "\tmov.u64 %rd2, depot;\n\tatom.local.add.u32 %r3, [%rd2], 1;",
            "atomic operation on local memory",
        ),
        (
            "\tmov.u64 %rd2, shared_obj;\n\tcvta.shared.u64 %rd3, %rd2;\n\
             \tmbarrier.init.b64 [%rd3], 1;\n\tld.u64 %rd4, [%rd3];",
            "inside a live mbarrier object",
        ),
        ("\ttrap;", "trap"),
        ("\tld.u32 %r3, [0];", "outside every state space"),
    ];
    for (body, want) in cases {
        let out = run(body, 1, 1, 1);
        let f = out.findings.first().expect(body);
        assert_eq!(f.kind, FindingKind::Fault, "{body}: {f}");
        assert!(
            f.text.contains(want) && f.text.contains("(0,0)"),
            "{body}: {f}"
        );
        assert!(f.text.contains("PTX line"), "{f}");
    }
}

#[test]
fn warp_lockstep_mode_runs_to_the_same_result() {
    let sim = Simulator::new(&kernel("\tred.relaxed.gpu.global.add.u32 [%rd1], %r1;")).unwrap();
    let mut l = Launch::new([2, 1, 1], [64, 1, 1], vec![Arg::Buffer(vec![0; 64])]);
    l.mode = ptx_sim::Mode::WarpLockstep;
    let out = sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap();
    assert!(out.findings.is_empty());
    assert_eq!(word(&out, 0), 2 * (0..64).sum::<u32>());
}
