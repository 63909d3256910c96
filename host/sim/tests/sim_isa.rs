//! The instructions optimised CUDA C++ code uses beyond the corpus kernels, each executed once
//! by one thread and checked against the value the PTX ISA defines (a hand-written kernel).

use ptx_sim::{Arg, Launch, Simulator};

const PTX: &str = "
.version 8.0
.target sm_80
.address_size 64
.visible .entry isa(.param .u64 isa_out)
{
	.reg .b32 %r<64>;
	.reg .b64 %rd<8>;
	.reg .pred %p<8>;
	.reg .f32 %f<16>;
	ld.param.u64 %rd1, [isa_out];
	mov.f32 %f1, 0f7F800000;
	testp.finite.f32 %p1, %f1;
	selp.u32 %r1, 1, 0, %p1;
	st.global.u32 [%rd1], %r1;
	mov.u32 %r2, -1;
	slct.u32.s32 %r3, 10, 20, %r2;
	st.global.u32 [%rd1+4], %r3;
	mov.u32 %r4, 5;
	mov.u32 %r5, 0xffff0000;
	bfi.b32 %r6, %r4, %r5, 4, 3;
	st.global.u32 [%rd1+8], %r6;
	mov.u32 %r7, 0xffffffff;
	mad.wide.u32 %rd2, %r7, 2, 1;
	st.global.u64 [%rd1+16], %rd2;
	mov.u32 %r8, 0xfffffe;
	mul24.lo.s32 %r9, %r8, 3;
	st.global.u32 [%rd1+24], %r9;
	setp.eq.s32 %p4, 1, 1;
	setp.lt.and.s32 %p2|%p3, 1, 2, %p4;
	selp.u32 %r10, 1, 0, %p2;
	selp.u32 %r11, 2, 0, %p3;
	or.b32 %r12, %r10, %r11;
	st.global.u32 [%rd1+28], %r12;
	fence.proxy.alias;
	membar.cta;
	membar.sys;
	fence.acq_rel.gpu;
	bar.red.and.pred %p5, 0, %p4;
	selp.u32 %r13, 1, 0, %p5;
	st.global.u32 [%rd1+32], %r13;
	mov.f32 %f2, 0fC02CCCCD;
	cvt.rzi.s32.f32 %r14, %f2;
	st.global.u32 [%rd1+36], %r14;
	mov.f32 %f3, 0f40600000;
	cvt.rni.s32.f32 %r15, %f3;
	st.global.u32 [%rd1+40], %r15;
	mov.u32 %r16, 300;
	cvt.sat.u8.s32 %r17, %r16;
	st.global.u32 [%rd1+44], %r17;
	mov.f32 %f4, 0f3F800000;
	mov.f32 %f5, 0f30800000;
	add.rm.f32 %f6, %f4, %f5;
	st.global.f32 [%rd1+48], %f6;
	add.rp.f32 %f7, %f4, %f5;
	st.global.f32 [%rd1+52], %f7;
	mov.f32 %f8, 0fBF800000;
	copysign.f32 %f9, %f8, 0f40000000;
	st.global.f32 [%rd1+56], %f9;
	rcp.rn.f32 %f10, 0f40800000;
	st.global.f32 [%rd1+60], %f10;
	sqrt.approx.f32 %f11, 0f41800000;
	st.global.f32 [%rd1+64], %f11;
	ex2.approx.ftz.f32 %f12, 0f40400000;
	st.global.f32 [%rd1+68], %f12;
	lg2.approx.f32 %f13, 0f41000000;
	st.global.f32 [%rd1+72], %f13;
	mov.u32 %r18, 0x44332211;
	mov.u32 %r19, 0x88776655;
	prmt.b32.f4e %r20, %r18, %r19, 1;
	st.global.u32 [%rd1+76], %r20;
	bfind.u32 %r21, 0x100;
	st.global.u32 [%rd1+80], %r21;
	activemask.b32 %r22;
	st.global.u32 [%rd1+84], %r22;
	mov.u32 %r23, -5;
	redux.sync.min.s32 %r24, %r23, 1;
	st.global.u32 [%rd1+88], %r24;
	vote.sync.uni.pred %p6, %p4, 1;
	selp.u32 %r25, 1, 0, %p6;
	st.global.u32 [%rd1+92], %r25;
	mov.u32 %r26, 7;
	shfl.sync.idx.b32 %r27|%p7, %r26, 0, 31, 1;
	selp.u32 %r28, 1, 0, %p7;
	add.u32 %r29, %r27, %r28;
	st.global.u32 [%rd1+96], %r29;
	match.all.sync.b32 %r30|%p7, %r26, 1;
	st.global.u32 [%rd1+100], %r30;
	mov.b32 %r31, 0x3c003c00;
	fma.rn.f16x2 %r32, %r31, %r31, %r31;
	st.global.u32 [%rd1+104], %r32;
	st.global.v2.u32 [%rd1+112], {%r4, %r3};
	ld.global.v4.u32 {%r33, %r34, _, %r36}, [%rd1];
	add.u32 %r37, %r33, %r34;
	add.u32 %r38, %r37, %r36;
	st.global.u32 [%rd1+120], %r38;
	cvt.rn.f16x2.f32 %r39, 0f40000000, 0f3F800000;
	st.global.u32 [%rd1+124], %r39;
	add.s64 %rd3, %rd1, 132;
	st.global.u32 [%rd3+-4], %r4;
	mov.u32 %r40, WARP_SZ;
	mov.u32 %r41, %lanemask_ge;
	add.u32 %r42, %r40, %r41;
	st.global.u32 [%rd1+132], %r42;
	ret;
}
";

/// Runs `kernel` of `ptx` on one thread with a zeroed buffer of `bytes` as its argument; the
/// buffer afterwards.
fn run_one(ptx: &str, kernel: &str, bytes: usize) -> Vec<u8> {
    let k = Simulator::new(ptx).unwrap().kernel(kernel).unwrap();
    let out = k
        .launch(
            &Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; bytes])]),
            Vec::new(),
        )
        .unwrap();
    assert!(out.completed, "{:?}", out.findings);
    out.buffers.into_iter().next().unwrap()
}

#[test]
fn each_instruction_computes_what_the_isa_defines() {
    let b = &run_one(PTX, "isa", 136);
    let w = |k: usize| u32::from_le_bytes(b[k..k + 4].try_into().unwrap());
    let f = |k: usize| f32::from_bits(w(k));
    assert_eq!(w(0), 0, "testp.finite of +inf");
    assert_eq!(w(4), 20, "slct with a negative selector");
    assert_eq!(w(8), 0xffff_0050, "bfi");
    assert_eq!(
        u64::from_le_bytes(b[16..24].try_into().unwrap()),
        0x1_ffff_ffff,
        "mad.wide"
    );
    assert_eq!(w(24) as i32, -6, "mul24.lo of a negative 24-bit value");
    assert_eq!(w(28), 1, "setp.and with two destinations: p true, q false");
    assert_eq!(w(32), 1, "bar.red.and of one thread");
    assert_eq!(w(36) as i32, -2, "cvt.rzi of -2.7");
    assert_eq!(
        w(40),
        4,
        "cvt.rni of 3.5 (to even; truncation would give 3)"
    );
    assert_eq!(w(44), 255, "cvt.sat.u8 of 300");
    assert_eq!(f(48), 1.0, "add.rm of 1 + 2^-30");
    assert_eq!(f(52), 1f32.next_up(), "add.rp of 1 + 2^-30");
    assert_eq!(f(56), -2.0, "copysign");
    assert_eq!(f(60), 0.25, "rcp");
    assert_eq!(f(64), 4.0, "sqrt.approx");
    assert_eq!(f(68), 8.0, "ex2.approx");
    assert_eq!(f(72), 3.0, "lg2.approx");
    assert_eq!(w(76), 0x5544_3322, "prmt.f4e from byte 1");
    assert_eq!(w(80), 8, "bfind");
    assert_eq!(w(84), 1, "activemask of a lone thread");
    assert_eq!(w(88) as i32, -5, "redux.sync.min.s32");
    assert_eq!(w(92), 1, "vote.sync.uni");
    assert_eq!(w(96), 8, "shfl.sync.idx of the own lane, predicate set");
    assert_eq!(w(100), 1, "match.all.sync");
    assert_eq!(
        w(104),
        0x4000_4000,
        "fma.rn.f16x2: 1 * 1 + 1 = 2 in both lanes"
    );
    assert_eq!((w(112), w(116)), (5, 20), "st.v2");
    // Words 0, 1 and 3 (word 3 was never written): 0 + 20 + 0.
    assert_eq!(w(120), 20, "ld.v4 with a sink element");
    assert_eq!(
        w(124),
        0x4000_3c00,
        "cvt.rn.f16x2.f32: a (2.0) high, b (1.0) low"
    );
}

#[test]
fn cvt_to_integer_rounds_as_asked_and_saturates() {
    // `cvt.rni` rounds to nearest even (3.5 → 4, not truncated to 3); a float beyond the
    // integer range saturates (1e20 → i32::MAX), as the ISA defines float-to-integer `cvt`.
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
        \t.reg .b32 %r<20>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<5>;\n\t.reg .pred %p<2>;\n\tld.param.u64 %rd1, [p];\n\tmov.f32 %f3, 0f40600000;\n\tcvt.rni.s32.f32 %r15, %f3;\n\
        \tst.global.u32 [%rd1], %r15;\n\tmov.f32 %f4, 0f60AD78EC;\n\tcvt.rzi.s32.f32 %r16, %f4;\n\
        \tst.global.u32 [%rd1+4], %r16;\n\tret;\n}\n";
    let k = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    let o = k
        .launch(
            &Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 8])]),
            Vec::new(),
        )
        .unwrap();
    let w: Vec<i32> = o.buffers[0]
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w, [4, i32::MAX]);
}

#[test]
fn activemask_completes_when_the_other_lanes_wait_at_a_cta_barrier() {
    // Lanes 0..15 take a branch with `activemask`; lanes 16..31 go straight to `bar.sync`, where
    // lanes 0..15 join them after. The active mask is the branch's 16 lanes.
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
        \t.reg .b32 %r<20>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<5>;\n\t.reg .pred %p<2>;\n\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tsetp.ge.u32 %p1, %r1, 16;\n\
        \t@%p1 bra $L_join;\n\tactivemask.b32 %r2;\n\tmul.wide.u32 %rd2, %r1, 4;\n\
        \tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r2;\n$L_join:\n\tbar.sync 0;\n\tret;\n}\n";
    let k = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    for mode in [ptx_sim::Mode::WarpLockstep, ptx_sim::Mode::Random] {
        let mut l = Launch::new([1; 3], [32, 1, 1], vec![Arg::Buffer(vec![0; 64])]);
        l.mode = mode;
        let o = k.launch(&l, Vec::new()).unwrap();
        assert!(o.completed, "{mode:?}: {:?}", o.findings);
        assert!(
            o.buffers[0].chunks(4).all(|c| c == 0xffffu32.to_le_bytes()),
            "{mode:?}"
        );
    }
}

#[test]
fn vector_parameters_of_a_call() {
    // A device function taking a 16-byte struct by value and returning an 8-byte one, as nvcc
    // passes them: `st.param.v4` into the argument, `ld.param.v4` in the callee, `st.param.v2`
    // of the result, `ld.param.v2` by the caller.
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .func (.param .align 8 .b8 r[8]) swap(.param .align 16 .b8 a[16])\n{\n\
        \t.reg .b32 %r<8>;\n\tld.param.v4.u32 {%r1, %r2, _, %r4}, [a];\n\tadd.s32 %r5, %r1, %r4;\n\
        \tst.param.v2.u32 [r+0], {%r2, %r5};\n\tret;\n}\n\
        .visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\
        \t{\n\t.param .align 16 .b8 param0[16];\n\tst.param.v4.u32 [param0+0], {10, 20, 30, 40};\n\
        \t.param .align 8 .b8 retval0[8];\n\tcall.uni (retval0), swap, (param0);\n\
        \tld.param.v2.u32 {%r6, %r7}, [retval0+0];\n\t}\n\
        \tst.global.u32 [%rd1], %r6;\n\tst.global.u32 [%rd1+4], %r7;\n\tret;\n}\n";
    let k = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    let o = k
        .launch(
            &Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 8])]),
            Vec::new(),
        )
        .unwrap();
    assert!(o.completed, "{:?}", o.findings);
    assert_eq!(
        o.buffers[0],
        [20u32.to_le_bytes(), 50u32.to_le_bytes()].concat()
    );
}

/// `.ftz` on `.f32` (nvcc's `-use_fast_math`, `-ftz=true`): a subnormal source or result is
/// flushed to zero of the same sign (PTX ISA, "Floating-point instructions": subnormal numbers).
/// Each line computes one instruction on 2^-127 (subnormal: f32's smallest normal is 2^-126),
/// with and without `.ftz`.
#[test]
fn ftz_flushes_subnormal_f32_sources_and_results() {
    const FTZ: &str = "
.version 8.0
.target sm_80
.address_size 64
.visible .entry ftz(.param .u64 ftz_out)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<4>;
	.reg .pred %p<4>;
	.reg .f32 %f<24>;
	ld.param.u64 %rd1, [ftz_out];
	mov.f32 %f1, 0f00400000;
	mul.f32 %f2, %f1, 0f4B000000;
	st.global.f32 [%rd1], %f2;
	mul.ftz.f32 %f3, %f1, 0f4B000000;
	st.global.f32 [%rd1+4], %f3;
	mul.f32 %f4, 0f80800000, 0f3F000000;
	st.global.f32 [%rd1+8], %f4;
	mul.ftz.f32 %f5, 0f80800000, 0f3F000000;
	st.global.f32 [%rd1+12], %f5;
	fma.rn.ftz.f32 %f6, %f1, 0f4B000000, 0f3F800000;
	st.global.f32 [%rd1+16], %f6;
	setp.gt.f32 %p1, %f1, 0f00000000;
	selp.u32 %r1, 1, 0, %p1;
	st.global.u32 [%rd1+20], %r1;
	setp.gt.ftz.f32 %p2, %f1, 0f00000000;
	selp.u32 %r2, 1, 0, %p2;
	st.global.u32 [%rd1+24], %r2;
	max.ftz.f32 %f7, %f1, 0f00000000;
	st.global.f32 [%rd1+28], %f7;
	neg.ftz.f32 %f8, %f1;
	st.global.f32 [%rd1+32], %f8;
	cvt.ftz.f64.f32 %rd2, %f1;
	st.global.u64 [%rd1+40], %rd2;
	add.ftz.f32 %f9, 0f3FC00000, 0f40100000;
	st.global.f32 [%rd1+48], %f9;
	ret;
}
";
    let b = &run_one(FTZ, "ftz", 56);
    let w = |k: usize| u32::from_le_bytes(b[k..k + 4].try_into().unwrap());
    let f = |k: usize| f32::from_bits(w(k));
    let tiny = f32::from_bits(0x0040_0000); // 2^-127
    assert_eq!(f(0), tiny * 2f32.powi(23), "mul of a subnormal");
    assert_eq!(w(4), 0, "mul.ftz: the subnormal source is +0");
    assert_eq!(f(8), -f32::MIN_POSITIVE / 2.0, "mul giving a subnormal");
    assert_eq!(w(12), 0x8000_0000, "mul.ftz: the subnormal result is -0");
    assert_eq!(f(16), 1.0, "fma.ftz: 0 * 2^23 + 1");
    assert_eq!(w(20), 1, "setp.gt of a subnormal and 0");
    assert_eq!(w(24), 0, "setp.gt.ftz: the subnormal is 0");
    assert_eq!(w(28), 0, "max.ftz of a subnormal and 0");
    assert_eq!(w(32), 0x8000_0000, "neg.ftz of a subnormal: -0");
    assert_eq!(
        u64::from_le_bytes(b[40..48].try_into().unwrap()),
        0,
        "cvt.ftz.f64.f32 of a subnormal: +0"
    );
    assert_eq!(f(48), 3.75, "add.ftz of normal values");
}
