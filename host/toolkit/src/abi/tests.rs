//! Tests of the ABI table, the probe list, the expected sequences and the kernel checks.

use super::*;
use crate::ptx::{Kernel, Target, parse_kernels};

fn probe(target: Target, name: &str) -> Probe {
    probes(target)
        .into_iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no probe {name}"))
}

fn exp(target: Target, name: &str) -> Expected {
    expected(&probe(target, name), &AbiTable::builtin(), target)
}

fn ins(target: Target, name: &str) -> Vec<String> {
    exp(target, name).instructions
}

#[test]
fn table_parses_and_is_complete() {
    let t = AbiTable::builtin();
    let s = |op, o, target| t.row(op, o, target).sequence.join("; ");
    assert_eq!(
        s(Operation::Load, Order::SeqCst, Target::Sm70),
        "fence.sc.{S}; ld.acquire.{S}"
    );
    assert_eq!(
        s(Operation::Rmw, Order::AcqRel, Target::Sm70),
        "atom.acq_rel.{S}"
    );
    assert_eq!(
        s(Operation::Fence, Order::Acquire, Target::Sm90),
        "fence.acq_rel.{S}"
    );
    assert_eq!(
        s(Operation::Fence, Order::Acquire, Target::Sm90Ptx86),
        "fence.acquire.{S}"
    );
    assert_eq!(
        s(Operation::Fence, Order::Release, Target::Sm80),
        "fence.acq_rel.{S}"
    );
    assert_eq!(
        s(Operation::Reduction, Order::Release, Target::Sm80),
        "red.release.{S}"
    );
    assert!(
        AbiTable::parse("load relaxed ld.relaxed.{S}")
            .unwrap_err()
            .contains("no row")
    );
    let bad = ABI_TABLE.replace(
        "load       acquire              ld.acquire.{S}",
        "load acquire ld.acquire.gpu",
    );
    assert!(AbiTable::parse(&bad).is_err());
    let bad = ABI_TABLE.replace(
        "store      release              st.release.{S}",
        "store release ld.release.{S}",
    );
    assert!(AbiTable::parse(&bad).is_err());
    let bad = format!("{ABI_TABLE}\nload acquire@sometimes ld.acquire.{{S}}");
    assert!(AbiTable::parse(&bad).is_err());
}

#[test]
fn probe_counts_follow_the_generator() {
    // Per scope: 1056 typed probes (50 each for f16 and bf16) + 4 fences + 11 flag probes
    // (3 test, 3 clear, 5 test_and_set); and the 1056 typed probes once more in each named
    // state space (global at device scope, shared at block scope).
    assert_eq!(probes(Target::Sm70).len(), 4284 + 2 * 1056);
    assert_eq!(probes(Target::Sm80).len(), 4284 + 2 * 1056);
    assert_eq!(probes(Target::Sm90).len(), 5355 + 2 * 1056);
    // sm_90 + PTX 8.6 adds the 128-bit probes: 66 per type and scope (3 load, 3 store,
    // 5 swap, 40 fetch_*, 15 compare_exchange) for u128 and i128.
    assert_eq!(
        probes(Target::Sm90Ptx86).len(),
        5355 + 2 * 66 * 5 + 2 * (1056 + 2 * 66)
    );
    let mut names: Vec<_> = probes(Target::Sm90).into_iter().map(|p| p.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 5355 + 2 * 1056);
    for n in [
        "compare_exchange__u8__release_acquire__device",
        "fence__acq_rel__cluster",
        "add__f32__relaxed__block",
        "fetch_not__bool__seq_cst__system",
        "fetch_byte_sub__ptr__acquire__thread",
        "test__flag__seq_cst__cluster",
        "clear__flag__release__block",
        "test_and_set__flag__acq_rel__system",
        "fetch_add__f16__relaxed__device",
        "sub__bf16__release__cluster",
        "add__f32__relaxed__device__global",
        "compare_exchange__u8__release_acquire__block__shared",
    ] {
        assert!(names.binary_search(&n.to_string()).is_ok(), "{n}");
    }
    for n in [
        "load__u32__relaxed__block__global",
        "fence__seq_cst__device__global",
    ] {
        assert!(names.binary_search(&n.to_string()).is_err(), "{n}");
    }
}

#[test]
fn state_space_probes_name_the_space_after_the_scope_and_fences_none() {
    let t = Target::Sm80;
    assert_eq!(
        ins(t, "add__f32__relaxed__device__global"),
        ["red.relaxed.gpu.global.add.f32"]
    );
    assert_eq!(
        ins(t, "fetch_add__u32__seq_cst__device__global"),
        ["fence.sc.gpu", "atom.acquire.gpu.global.add.u32"]
    );
    assert_eq!(
        ins(t, "load__u64__seq_cst__block__shared"),
        ["fence.sc.cta", "ld.acquire.cta.shared.b64"]
    );
    let byte_store = exp(t, "store__u8__seq_cst__block__shared");
    assert_eq!(
        byte_store.instructions,
        [
            "fence.sc.cta",
            "ld.relaxed.cta.shared.b32",
            "atom.relaxed.cta.shared.cas.b32"
        ]
    );
    assert_eq!(byte_store.cas_loop, Some(LoopReason::ByteStore));
    // The generic forms are unchanged.
    assert_eq!(
        ins(t, "add__f32__relaxed__device"),
        ["red.relaxed.gpu.add.f32"]
    );
}

#[test]
fn compare_exchange_order_is_the_join() {
    use Order::*;
    let j = Order::compare_exchange;
    assert_eq!(j(Release, Acquire), AcqRel);
    assert_eq!(j(Relaxed, Acquire), Acquire);
    assert_eq!(j(Release, Relaxed), Release);
    assert_eq!(j(Relaxed, Relaxed), Relaxed);
    assert_eq!(j(Acquire, Relaxed), Acquire);
    assert_eq!(j(AcqRel, Relaxed), AcqRel);
    assert_eq!(j(Relaxed, SeqCst), SeqCst);
    assert_eq!(j(SeqCst, Relaxed), SeqCst);
}

#[test]
fn expected_sequences() {
    let t = Target::Sm80;
    assert_eq!(
        ins(t, "load__u8__seq_cst__device"),
        ["fence.sc.gpu", "ld.acquire.gpu.b32"]
    );
    assert_eq!(ins(t, "load__i16__acquire__thread"), ["ld.acquire.cta.b16"]);
    assert_eq!(
        ins(t, "store__ptr__release__system"),
        ["st.release.sys.b64"]
    );
    assert_eq!(
        ins(t, "store__f64__seq_cst__block"),
        ["fence.sc.cta", "st.relaxed.cta.b64"]
    );
    assert_eq!(
        ins(t, "swap__u32__acq_rel__device"),
        ["atom.acq_rel.gpu.exch.b32"]
    );
    assert_eq!(
        ins(t, "swap__f64__seq_cst__device"),
        ["fence.sc.gpu", "atom.acquire.gpu.exch.b64"]
    );
    assert_eq!(
        ins(t, "compare_exchange__u16__release_acquire__system"),
        ["atom.acq_rel.sys.cas.b16"]
    );
    assert_eq!(
        ins(t, "compare_exchange__i64__relaxed_seq_cst__block"),
        ["fence.sc.cta", "atom.acquire.cta.cas.b64"]
    );
    assert_eq!(
        ins(t, "fetch_sub__u32__relaxed__device"),
        ["atom.relaxed.gpu.add.u32"]
    );
    assert_eq!(
        ins(t, "fetch_min__isize__acquire__device"),
        ["atom.acquire.gpu.min.s64"]
    );
    assert_eq!(
        ins(t, "fetch_max__usize__acquire__device"),
        ["atom.acquire.gpu.max.u64"]
    );
    assert_eq!(
        ins(t, "fetch_xor__i8__release__block"),
        ["atom.release.cta.xor.b32"]
    );
    assert_eq!(
        ins(t, "fetch_not__bool__relaxed__device"),
        ["atom.relaxed.gpu.xor.b32"]
    );
    assert_eq!(
        ins(t, "fetch_sub__f32__acq_rel__device"),
        ["atom.acq_rel.gpu.add.f32"]
    );
    assert_eq!(
        ins(t, "fetch_ptr_sub__ptr__relaxed__device"),
        ["atom.relaxed.gpu.add.u64"]
    );
    assert_eq!(
        ins(t, "fetch_byte_add__ptr__release__device"),
        ["atom.release.gpu.add.u64"]
    );
    assert_eq!(
        ins(t, "sub__f64__release__system"),
        ["red.release.sys.add.f64"]
    );
    assert_eq!(
        ins(t, "min__i32__relaxed__device"),
        ["red.relaxed.gpu.min.s32"]
    );
    assert_eq!(
        ins(t, "or__u64__relaxed__device"),
        ["red.relaxed.gpu.or.b64"]
    );
    assert_eq!(ins(t, "fence__seq_cst__thread"), Vec::<String>::new());
    assert_eq!(ins(t, "fence__acquire__block"), ["fence.acq_rel.cta"]);
    assert_eq!(
        ins(Target::Sm90Ptx86, "fence__release__cluster"),
        ["fence.release.cluster"]
    );
    assert_eq!(
        ins(Target::Sm90, "fence__release__cluster"),
        ["fence.acq_rel.cluster"]
    );
    assert_eq!(
        ins(Target::Sm90, "load__u32__relaxed__cluster"),
        ["ld.relaxed.cluster.b32"]
    );
    assert!(
        probes(Target::Sm80)
            .iter()
            .all(|p| p.scope != Scope::Cluster)
    );
}

#[test]
fn wide_probes_only_where_the_target_has_b128() {
    for t in [Target::Sm70, Target::Sm80, Target::Sm90] {
        assert!(probes(t).iter().all(|p| p.ty != Some(Ty::U128)), "{t}");
    }
    let t = Target::Sm90Ptx86;
    assert_eq!(
        ins(t, "load__u128__acquire__device"),
        ["ld.acquire.gpu.b128"]
    );
    assert_eq!(
        ins(t, "store__i128__seq_cst__system"),
        ["fence.sc.sys", "st.relaxed.sys.b128"]
    );
    assert_eq!(
        ins(t, "swap__u128__acq_rel__cluster"),
        ["atom.acq_rel.cluster.exch.b128"]
    );
    assert_eq!(
        ins(t, "compare_exchange__i128__release_acquire__block"),
        ["atom.acq_rel.cta.cas.b128"]
    );
    let e = exp(t, "fetch_max__i128__seq_cst__thread");
    assert_eq!(
        e.instructions,
        [
            "fence.sc.cta",
            "ld.relaxed.cta.b128",
            "atom.acquire.cta.cas.b128"
        ]
    );
    assert_eq!(e.cas_loop, Some(LoopReason::WideRmw));
    assert!(
        probes(t)
            .iter()
            .all(|p| !(p.ty == Some(Ty::U128) && matches!(p.op, ProbeOp::Reduce(_))))
    );
}

#[test]
fn half_precision_probes() {
    let t = Target::Sm80;
    assert_eq!(
        ins(t, "fetch_add__f16__acq_rel__device"),
        ["atom.acq_rel.gpu.add.noftz.f16"]
    );
    assert_eq!(
        ins(t, "sub__f16__release__block"),
        ["red.release.cta.add.noftz.f16"]
    );
    assert_eq!(
        ins(t, "load__bf16__acquire__system"),
        ["ld.acquire.sys.b16"]
    );
    assert_eq!(
        exp(t, "fetch_add__bf16__relaxed__device").cas_loop,
        Some(LoopReason::Bf16Add)
    );
    assert_eq!(
        exp(t, "add__bf16__release__device").instructions,
        ["ld.relaxed.gpu.b16", "atom.release.gpu.cas.b16"]
    );
    assert_eq!(
        exp(t, "fetch_min__f16__relaxed__device").cas_loop,
        Some(LoopReason::FloatMinMax)
    );
    assert_eq!(
        exp(t, "swap__f16__relaxed__device").cas_loop,
        Some(LoopReason::HalfSwap)
    );
    let t = Target::Sm90;
    assert_eq!(
        ins(t, "fetch_sub__bf16__seq_cst__cluster"),
        ["fence.sc.cluster", "atom.acquire.cluster.add.noftz.bf16"]
    );
    assert_eq!(
        ins(t, "add__bf16__relaxed__device"),
        ["red.relaxed.gpu.add.noftz.bf16"]
    );
}

#[test]
fn flag_probes_are_word_loads_stores_and_exchanges() {
    let t = Target::Sm80;
    assert_eq!(ins(t, "test__flag__acquire__block"), ["ld.acquire.cta.b32"]);
    assert_eq!(
        ins(t, "test__flag__seq_cst__device"),
        ["fence.sc.gpu", "ld.acquire.gpu.b32"]
    );
    assert_eq!(
        ins(t, "clear__flag__release__system"),
        ["st.release.sys.b32"]
    );
    assert_eq!(
        ins(t, "test_and_set__flag__seq_cst__block"),
        ["fence.sc.cta", "atom.acquire.cta.exch.b32"]
    );
    assert_eq!(
        ins(t, "test_and_set__flag__relaxed__thread"),
        exp(t, "swap__u32__relaxed__thread").instructions
    );
    assert_eq!(exp(t, "test_and_set__flag__acq_rel__device").cas_loop, None);
}

#[test]
fn expected_cas_loops() {
    let t = Target::Sm70;
    let e = exp(t, "store__bool__seq_cst__system");
    assert_eq!(
        e.instructions,
        [
            "fence.sc.sys",
            "ld.relaxed.sys.b32",
            "atom.relaxed.sys.cas.b32"
        ]
    );
    assert_eq!(e.cas_loop, Some(LoopReason::ByteStore));
    let e = exp(t, "store__u8__release__device");
    assert_eq!(
        e.instructions,
        ["ld.relaxed.gpu.b32", "atom.release.gpu.cas.b32"]
    );
    let e = exp(t, "compare_exchange__u8__release_acquire__device");
    assert_eq!(
        e.instructions,
        ["ld.relaxed.gpu.b32", "atom.acq_rel.gpu.cas.b32"]
    );
    assert_eq!(e.cas_loop, Some(LoopReason::ByteCompareExchange));
    let e = exp(t, "swap__i16__seq_cst__block");
    assert_eq!(
        e.instructions,
        [
            "fence.sc.cta",
            "ld.relaxed.cta.b16",
            "atom.acquire.cta.cas.b16"
        ]
    );
    assert_eq!(e.cas_loop, Some(LoopReason::HalfSwap));
    assert_eq!(
        exp(t, "fetch_and__u16__relaxed__device").cas_loop,
        Some(LoopReason::HalfRmw)
    );
    assert_eq!(
        exp(t, "swap__bool__relaxed__device").cas_loop,
        Some(LoopReason::ByteSwap)
    );
    assert_eq!(
        exp(t, "fetch_add__u8__relaxed__device").cas_loop,
        Some(LoopReason::ByteRmw)
    );
    assert_eq!(
        exp(t, "fetch_nand__bool__relaxed__device").cas_loop,
        Some(LoopReason::ByteRmw)
    );
    assert_eq!(
        exp(t, "fetch_nand__u64__relaxed__device").instructions[1],
        "atom.relaxed.gpu.cas.b64"
    );
    assert_eq!(
        exp(t, "fetch_max__f32__acquire__device").cas_loop,
        Some(LoopReason::FloatMinMax)
    );
    assert_eq!(exp(t, "fetch_or__bool__acquire__device").cas_loop, None);
}

fn kernel(body: &str) -> Kernel {
    let ptx = format!(".visible .entry k()\n{{\n{body}\n}}\n");
    parse_kernels(&ptx).remove(0)
}

const BYTE_STORE: &str = "
	ld.param.b64 	%rd1, [k_param_0];
	fence.sc.sys;
	ld.relaxed.sys.b32 %r12, [%rd3];
$L__BB3231_1:
	and.b32 	%r11, %r12, %r1;
	atom.relaxed.sys.cas.b32 %r3, [%rd3], %r12, %r10;
	setp.ne.b32 	%p1, %r3, %r12;
	@%p1 bra 	$L__BB3231_1;
	ret;";

const BYTE_CAS: &str = "
	ld.relaxed.gpu.b32 %r12, [%rd2];
$L__BB870_1:
	atom.acq_rel.gpu.cas.b32 %r12, [%rd2], %r9, %r9;
	setp.eq.b32 	%p1, %r12, %r9;
	@%p1 bra 	$L__BB870_3;
	setp.eq.b16 	%p2, %rs1, %rs3;
	@%p2 bra 	$L__BB870_1;
$L__BB870_3:
	ret;";

#[test]
fn conforming_kernels_pass() {
    let t = Target::Sm80;
    let e = exp(t, "store__bool__seq_cst__system");
    assert_eq!(check_kernel(&kernel(BYTE_STORE), &e), Vec::<String>::new());
    let e = exp(t, "compare_exchange__u8__release_acquire__device");
    assert_eq!(check_kernel(&kernel(BYTE_CAS), &e), Vec::<String>::new());
    let e = exp(t, "load__u32__seq_cst__device");
    let k = kernel("ld.param.b64 %rd1, [p];\nfence.sc.gpu;\nld.acquire.gpu.b32 %r1, [%rd1];\nret;");
    assert_eq!(check_kernel(&k, &e), Vec::<String>::new());
    let e = exp(t, "fence__seq_cst__thread");
    assert!(check_kernel(&kernel("// begin inline asm\n// end inline asm\nret;"), &e).is_empty());
}

#[test]
fn deviations_are_reported() {
    let t = Target::Sm80;
    let e = exp(t, "load__u32__acquire__device");
    // An extra fence.
    let k = kernel("fence.sc.gpu;\nld.acquire.gpu.b32 %r1, [%rd1];\nret;");
    let p = check_kernel(&k, &e);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].contains("found [fence.sc.gpu; ld.acquire.gpu.b32]"),
        "{p:?}"
    );
    // A plain global load in place of, or besides, the atomic one.
    let k = kernel("ld.global.u32 %r1, [%rd1];\nret;");
    assert!(check_kernel(&k, &e)[0].contains("found [ld.global.u32]"));
    let k = kernel("ld.acquire.gpu.b32 %r1, [%rd1];\nld.global.u32 %r2, [%rd1];\nret;");
    assert_eq!(check_kernel(&k, &e).len(), 1);
    // Wrong scope, sem, type; a membar.
    for wrong in [
        "ld.acquire.sys.b32",
        "ld.relaxed.gpu.b32",
        "ld.acquire.gpu.b64",
        "ld.acquire.gpu.u32",
    ] {
        assert!(
            !check_kernel(&kernel(&format!("{wrong} %r1, [%rd1];")), &e).is_empty(),
            "{wrong}"
        );
    }
    let k = kernel("membar.gl;\nld.acquire.gpu.b32 %r1, [%rd1];");
    assert!(!check_kernel(&k, &e).is_empty());
    // Extra fence in a thread-scope fence.
    let f = exp(t, "fence__acq_rel__thread");
    assert!(!check_kernel(&kernel("fence.acq_rel.cta;"), &f).is_empty());
    // Predicated, trapping, extern, branching.
    assert!(!check_kernel(&kernel("@%p1 ld.acquire.gpu.b32 %r1, [%rd1];"), &e).is_empty());
    assert!(!check_kernel(&kernel("ld.acquire.gpu.b32 %r1, [%rd1];\ntrap;"), &e).is_empty());
    assert!(
        !check_kernel(
            &kernel(".extern .func f();\nld.acquire.gpu.b32 %r1, [%rd1];"),
            &e
        )
        .is_empty()
    );
    let k = kernel("@%p1 bra $L1;\nld.acquire.gpu.b32 %r1, [%rd1];\n$L1:\nret;");
    assert!(check_kernel(&k, &e)[0].contains("unexpected branch"));
}

#[test]
fn cas_loop_structure_is_checked() {
    let e = exp(Target::Sm80, "store__bool__seq_cst__system");
    // No loop at all.
    let k = kernel(
        "fence.sc.sys;\nld.relaxed.sys.b32 %r1, [%rd1];\natom.relaxed.sys.cas.b32 %r2, [%rd1], %r1, %r3;",
    );
    assert!(
        check_kernel(&k, &e)
            .iter()
            .any(|p| p.contains("no CAS loop"))
    );
    // The loop re-runs the ld (label before it).
    let k = kernel(
        "fence.sc.sys;\n$L1:\nld.relaxed.sys.b32 %r1, [%rd1];\natom.relaxed.sys.cas.b32 %r2, [%rd1], %r1, %r3;\n@%p1 bra $L1;",
    );
    let p = check_kernel(&k, &e);
    assert!(
        p.iter().any(|p| p.contains("not the CAS loop's back edge")),
        "{p:?}"
    );
    // The loop re-runs the fence.
    let k = kernel(
        "$L1:\nfence.sc.sys;\nld.relaxed.sys.b32 %r1, [%rd1];\n$L2:\natom.relaxed.sys.cas.b32 %r2, [%rd1], %r1, %r3;\n@%p1 bra $L2;\n@%p2 bra $L1;",
    );
    assert!(!check_kernel(&k, &e).is_empty());
    // Unconditional back edge: an endless loop.
    let k = kernel(
        "fence.sc.sys;\nld.relaxed.sys.b32 %r1, [%rd1];\n$L2:\natom.relaxed.sys.cas.b32 %r2, [%rd1], %r1, %r3;\nbra.uni $L2;",
    );
    assert!(!check_kernel(&k, &e).is_empty());
    // Order of the fence inside the loop body is wrong: missing fence.
    let k = kernel(&BYTE_STORE.replace("fence.sc.sys;", ""));
    assert!(!check_kernel(&k, &e).is_empty());
}

#[test]
fn snapshot_lines_rename() {
    let k = kernel(BYTE_CAS);
    assert_eq!(
        snapshot_lines(&k),
        [
            "ld.relaxed.gpu.b32 %r0, [%rd0]",
            "L0:",
            "atom.acq_rel.gpu.cas.b32 %r0, [%rd0], %r1, %r1",
            "@%p0 bra L1",
            "@%p1 bra L0",
            "L1:",
        ]
    );
}
