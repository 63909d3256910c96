//! What a thread starts with: zeroed registers and `.local` memory, the launch's parameters, no
//! call frame; the same when its CTA reuses a finished CTA's threads (the simulator keeps a
//! pool of threads and their buffers), and a thread's writes to its parameters stay its own.

use ptx_sim::{Arg, FindingKind, Launch, Simulator};

/// Each thread stores (into its 5 words of `out`) a register it never wrote, the first word of
/// its `.local` memory and the parameter `seven` as it starts; then it overwrites all three with
/// its global index (`st.param` to the kernel's parameter, which the simulator runs as a write
/// to the thread's own copy), calls `twice(seven as read at the start)` and stores the result
/// and the parameter as it reads it now.
const FRESH_PTX: &str = ".version 7.0\n\
.target sm_70\n\
.address_size 64\n\
\n\
.func (.param .b32 twice_ret) twice(.param .b32 twice_x)\n\
{\n\
\t.reg .b32 %r<3>;\n\
\tld.param.b32 %r1, [twice_x];\n\
\tadd.u32 %r2, %r1, %r1;\n\
\tst.param.b32 [twice_ret], %r2;\n\
\tret;\n\
}\n\
\n\
.visible .entry fresh(.param .u64 out, .param .u32 seven)\n\
{\n\
\t.local .align 4 .b8 scratch[8];\n\
\t.reg .b32 %r<12>;\n\
\t.reg .b64 %rd<8>;\n\
\tld.param.u64 %rd1, [out];\n\
\tmov.u32 %r1, %tid.x;\n\
\tmov.u32 %r2, %ntid.x;\n\
\tmov.u32 %r3, %ctaid.x;\n\
\tmad.lo.s32 %r4, %r3, %r2, %r1;\n\
\tmul.wide.u32 %rd2, %r4, 20;\n\
\tadd.s64 %rd3, %rd1, %rd2;\n\
\tld.local.u32 %r5, [scratch];\n\
\tld.param.u32 %r6, [seven];\n\
\tst.global.u32 [%rd3], %r9;\n\
\tst.global.u32 [%rd3+4], %r5;\n\
\tst.global.u32 [%rd3+8], %r6;\n\
\tmov.u32 %r9, %r4;\n\
\tst.local.u32 [scratch], %r4;\n\
\tst.param.u32 [seven], %r4;\n\
\t{\n\
\t.param .b32 arg0;\n\
\tst.param.b32 [arg0], %r6;\n\
\t.param .b32 ret0;\n\
\tcall.uni (ret0), twice, (arg0);\n\
\tld.param.b32 %r7, [ret0];\n\
\t}\n\
\tld.param.u32 %r8, [seven];\n\
\tst.global.u32 [%rd3+12], %r7;\n\
\tst.global.u32 [%rd3+16], %r8;\n\
\tret;\n\
}\n\
";

/// `depth(out, n)`: `down(n)` calls itself down to `down(0)`, `n + 1` frames deep, and returns
/// `n`, stored in `out`.
const DEPTH_PTX: &str = ".version 7.0\n\
.target sm_70\n\
.address_size 64\n\
\n\
.func (.param .b32 down_ret) down(.param .b32 down_n)\n\
{\n\
\t.reg .pred %p<2>;\n\
\t.reg .b32 %r<4>;\n\
\tld.param.b32 %r1, [down_n];\n\
\tmov.u32 %r3, 0;\n\
\tsetp.eq.u32 %p1, %r1, 0;\n\
\t@%p1 bra BASE;\n\
\tsub.u32 %r2, %r1, 1;\n\
\t{\n\
\t.param .b32 arg0;\n\
\tst.param.b32 [arg0], %r2;\n\
\t.param .b32 ret0;\n\
\tcall.uni (ret0), down, (arg0);\n\
\tld.param.b32 %r3, [ret0];\n\
\t}\n\
\tadd.u32 %r3, %r3, 1;\n\
BASE:\n\
\tst.param.b32 [down_ret], %r3;\n\
\tret;\n\
}\n\
\n\
.visible .entry depth(.param .u64 out, .param .u32 n)\n\
{\n\
\t.reg .b32 %r<4>;\n\
\t.reg .b64 %rd<2>;\n\
\tld.param.u64 %rd1, [out];\n\
\tld.param.u32 %r1, [n];\n\
\t{\n\
\t.param .b32 arg0;\n\
\tst.param.b32 [arg0], %r1;\n\
\t.param .b32 ret0;\n\
\tcall.uni (ret0), down, (arg0);\n\
\tld.param.b32 %r2, [ret0];\n\
\t}\n\
\tst.global.u32 [%rd1], %r2;\n\
\tret;\n\
}\n\
";

/// The words every thread of `FRESH_PTX` stores, by global index.
fn fresh_words(threads: u32) -> Vec<u32> {
    (0..threads).flat_map(|g| [0, 0, 7, 14, g]).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

#[test]
fn threads_of_later_ctas_start_as_fresh_as_the_first() {
    let kernel = Simulator::new(FRESH_PTX).unwrap().kernel("fresh").unwrap();
    let (ctas, cta_threads) = (6u32, 64u32);
    let threads = ctas * cta_threads;
    // One CTA resident at a time: each CTA's threads are the previous CTA's, reused; then all
    // at once: no reuse.
    for resident in [Some(1), Some(2), None] {
        for seed in 1..4 {
            let mut launch = Launch::new(
                [ctas, 1, 1],
                [cta_threads, 1, 1],
                vec![Arg::Buffer(vec![0; 20 * threads as usize]), Arg::U32(7)],
            );
            launch.resident_ctas = resident;
            launch.seed = seed;
            let out = kernel.launch(&launch, Vec::new()).unwrap();
            assert!(out.findings.is_empty(), "{:?}", out.findings);
            assert_eq!(
                words(&out.buffers[0]),
                fresh_words(threads),
                "resident CTAs {resident:?}, seed {seed}"
            );
        }
    }
}

#[test]
fn calls_nest_256_frames_deep_and_no_deeper() {
    let kernel = Simulator::new(DEPTH_PTX).unwrap().kernel("depth").unwrap();
    let run = |n: u32| {
        let launch = Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 4]), Arg::U32(n)]);
        kernel.launch(&launch, Vec::new()).unwrap()
    };
    for n in [0, 1, 255] {
        let out = run(n);
        assert!(out.findings.is_empty(), "depth {n}: {:?}", out.findings);
        assert_eq!(words(&out.buffers[0]), [n]);
    }
    let out = run(256);
    assert_eq!(out.findings.len(), 1, "{:?}", out.findings);
    assert_eq!(out.findings[0].kind, FindingKind::Fault);
    assert!(
        out.findings[0]
            .text
            .contains("call depth beyond 256 frames"),
        "{}",
        out.findings[0].text
    );
}
