//! The simulator's 128-bit support on hand-written kernels: `.b128` registers packed from and
//! unpacked to 64-bit halves (low half first), `ld`/`st` `.b128`, `atom.cas.b128` (success and
//! failure) and `atom.exch.b128`, a 128-bit parameter read with `ld.param.v2.b64`, the carry
//! chains of 128-bit arithmetic, and races on the high half of a 128-bit location. Needs no tools.

use ptx_sim::{Arg, FindingKind, Launch, Outcome, Simulator};

/// A kernel `k(u64 buffer, u128 value)` with `%rd1` = the buffer, `{%rd2, %rd3}` = the value
/// and `%r2` = the block.
fn kernel(body: &str) -> String {
    format!(
        ".version 8.6\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .align 16 .b8 k_param_1[16]\n)\n{{\n\
         \t.reg .pred %p<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<32>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tld.param.v2.b64 {{%rd2, %rd3}}, [k_param_1];\n\
         \tmov.u32 %r2, %ctaid.x;\n\
         {body}\n\tret;\n}}\n"
    )
}

fn run(body: &str, grid: u32, value: u128) -> Outcome {
    let sim = Simulator::new(&kernel(body)).unwrap();
    let args = vec![Arg::Buffer(vec![0; 64]), Arg::U128(value)];
    let l = Launch::new([grid, 1, 1], [1, 1, 1], args);
    sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap()
}

fn u64_at(out: &Outcome, i: usize) -> u64 {
    u64::from_le_bytes(out.buffers[0][8 * i..8 * i + 8].try_into().unwrap())
}

fn u128_at(out: &Outcome, i: usize) -> u128 {
    u128::from_le_bytes(out.buffers[0][16 * i..16 * i + 16].try_into().unwrap())
}

#[test]
fn b128_loads_stores_and_atomics() {
    let value = (7u128 << 64) | 9;
    let body = "\
        \t{ .reg .b128 %q_v;\n\tmov.b128 %q_v, {%rd2, %rd3};\n\tst.relaxed.gpu.b128 [%rd1], %q_v;\n\t}\n\
        \t{ .reg .b128 %q_v;\n\tld.acquire.gpu.b128 %q_v, [%rd1];\n\tmov.b128 {%rd4, %rd5}, %q_v;\n\t}\n\
        \tst.u64 [%rd1+16], %rd5;\n\
        \tmov.u64 %rd6, 1;\n\tmov.u64 %rd7, 2;\n\
        \t{ .reg .b128 %q_old, %q_cmp, %q_new;\n\tmov.b128 %q_cmp, {%rd2, %rd3};\n\
        \tmov.b128 %q_new, {%rd6, %rd7};\n\tatom.acq_rel.gpu.cas.b128 %q_old, [%rd1], %q_cmp, %q_new;\n\
        \tmov.b128 {%rd8, %rd9}, %q_old;\n\t}\n\
        \t{ .reg .b128 %q_old, %q_cmp, %q_new;\n\tmov.b128 %q_cmp, {%rd2, %rd3};\n\
        \tmov.b128 %q_new, {%rd3, %rd2};\n\tatom.relaxed.gpu.cas.b128 %q_old, [%rd1], %q_cmp, %q_new;\n\
        \tmov.b128 {%rd10, %rd11}, %q_old;\n\t}\n\
        \tst.u64 [%rd1+24], %rd8;\n\tst.u64 [%rd1+32], %rd11;\n\
        \t{ .reg .b128 %q_old, %q_new;\n\tmov.b128 %q_new, {%rd3, %rd3};\n\
        \tatom.release.sys.exch.b128 %q_old, [%rd1+48], %q_new;\n\tmov.b128 {%rd12, %rd13}, %q_old;\n\t}\n\
        \tst.u64 [%rd1+40], %rd12;";
    let out = run(body, 1, value);
    assert!(
        out.completed && out.findings.is_empty(),
        "{:?}",
        out.findings
    );
    // The first compare-exchange matched (9, 7) and stored (1, 2); the second saw (1, 2).
    assert_eq!(u128_at(&out, 0), (2 << 64) | 1);
    assert_eq!(u64_at(&out, 2), 7, "the high half unpacks second");
    assert_eq!(
        u64_at(&out, 3),
        9,
        "the first compare-exchange returns the old low half"
    );
    assert_eq!(
        u64_at(&out, 4),
        2,
        "the failed compare-exchange returns the current value"
    );
    assert_eq!(u64_at(&out, 5), 0, "exch returns the old (zero) value");
    assert_eq!(u128_at(&out, 3), (7 << 64) | 7);
}

#[test]
fn carry_chains_cross_the_64_bit_boundary() {
    let body = "\
        \tadd.cc.s64 %rd4, %rd2, 1;\n\taddc.cc.s64 %rd5, %rd3, 0;\n\
        \tst.u64 [%rd1], %rd4;\n\tst.u64 [%rd1+8], %rd5;\n\
        \tsub.cc.s64 %rd6, %rd4, 2;\n\tsubc.cc.s64 %rd7, %rd5, 0;\n\
        \tst.u64 [%rd1+16], %rd6;\n\tst.u64 [%rd1+24], %rd7;";
    let value = (5u128 << 64) | u128::from(u64::MAX);
    let out = run(body, 1, value);
    assert!(out.completed, "{:?}", out.findings);
    assert_eq!(u128_at(&out, 0), value + 1);
    assert_eq!(u128_at(&out, 1), value - 1);
}

#[test]
fn a_plain_write_to_the_high_half_races_with_a_b128_atomic() {
    let racy = |offset: u32| {
        format!(
            "\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $OTHER;\n\
             \t{{ .reg .b128 %q_v;\n\tmov.b128 %q_v, {{%rd2, %rd3}};\n\
             \tst.relaxed.gpu.b128 [%rd1], %q_v;\n\t}}\n\tbra.uni $END;\n\
             $OTHER:\n\tst.u32 [%rd1+{offset}], %r2;\n$END:"
        )
    };
    let out = run(&racy(12), 2, 1);
    assert_eq!(
        out.findings.first().map(|f| f.kind),
        Some(FindingKind::Race),
        "{:?}",
        out.findings
    );
    let out = run(&racy(16), 2, 1);
    assert!(out.findings.is_empty(), "{:?}", out.findings);
}
