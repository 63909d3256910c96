//! Tests of the cases, the CUDA source, the PTX and SASS counts and the report.

use super::*;
use std::cmp::Ordering;
use std::collections::BTreeSet;

#[test]
fn cases_cover_the_matrix() {
    let cases = cases();
    // Per type and scope: 3 loads + 3 stores + 4 read-modify-writes × 5 orders.
    assert_eq!(cases.len(), 6 * 3 * (3 + 3 + 4 * 5) + 3 * 4);
    let names: BTreeSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), cases.len());
    for n in [
        "load__u8__seq_cst__block",
        "compare_exchange__i16__acq_rel_acquire__device",
        "compare_exchange__u32__release_relaxed__system",
        "swap__f32__acquire__device",
        "fetch_min__u64__seq_cst__system",
        "fence__release__device",
    ] {
        assert!(names.contains(n), "{n}");
    }
}

#[test]
fn cuda_kernels_match_the_probe_signature() {
    let c = cases();
    let find = |n: &str| c.iter().find(|c| c.name == n).unwrap();
    let k = cuda_kernel(find("fetch_add__u32__acq_rel__device"));
    assert!(k.contains("extern \"C\" __global__ void fetch_add__u32__acq_rel__device(unsigned int* p, unsigned int v, unsigned int w, unsigned long long n)"), "{k}");
    assert!(k.contains("cuda::atomic_ref<unsigned int, cuda::thread_scope_device> a(*p);"));
    assert!(k.contains("(void)a.fetch_add(v, cuda::memory_order_acq_rel);"));
    let k = cuda_kernel(find("compare_exchange__i16__release_relaxed__block"));
    assert!(k.contains("short expected = v;"), "{k}");
    assert!(k.contains("compare_exchange_strong(expected, w, cuda::memory_order_release, cuda::memory_order_relaxed)"));
    let k = cuda_kernel(find("fence__acquire__system"));
    assert!(k.contains(
        "cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);"
    ));
    assert!(cuda_source(&c).starts_with("// Generated"));
}

const PTX: &str = "//\n.version 7.8\n.target sm_90\n.address_size 64\n\n\
    .extern .func f\n(\n)\n;\n\
    .visible .entry a(\n\t.param .u64 .ptr .align 1 a_param_0,\n\t.param .u32 a_param_1\n)\n{\n\
    \t.reg .b32 %r<3>;\n\n\tld.param.b64 \t%rd1, [a_param_0];\n\t// begin inline asm\n\
    \tfence.sc.gpu;\n\t// end inline asm\n\tld.acquire.gpu.b32 %r1, [%rd1];\n\tret;\n\n}\n\
    .visible .entry b()\n{\n\tcall f;\n\tret;\n}\n\
    .visible .entry c()\n{\n\tmembar.gl;\n\tret;\n\n}\n";

#[test]
fn extracts_self_contained_entries() {
    let names: BTreeSet<&str> = ["a", "c"].into();
    let out = extract_entries(PTX, &names).unwrap();
    assert!(
        out.starts_with(".version 7.8\n.target sm_90\n.address_size 64\n"),
        "{out}"
    );
    assert!(out.contains(".visible .entry a(") && out.contains(".visible .entry c()"));
    assert!(!out.contains("entry b") && !out.contains(".extern"));
    let costs = ptx_costs(&out);
    assert_eq!(costs["a"].mm, 2);
    assert_eq!(costs["a"].total, 4);
    assert_eq!(costs["a"].params, 2);
    assert_eq!(costs["c"].mm, 1);
    assert!(
        extract_entries(PTX, &["b"].into())
            .unwrap_err()
            .contains("calls")
    );
    assert!(
        extract_entries(PTX, &["zz"].into())
            .unwrap_err()
            .contains("zz")
    );
}

#[test]
fn memory_model_mnemonics() {
    for m in [
        "ld.relaxed.gpu.b32",
        "ld.volatile.global.u32",
        "st.release.sys.b16",
        "atom.add.acq_rel.gpu.u32",
        "atom.acquire.cta.cas.b64",
        "red.relaxed.gpu.global.add.u32",
        "fence.sc.cta",
        "fence.acquire.sys",
        "membar.gl",
    ] {
        assert!(is_memory_model_ptx(m), "{m}");
    }
    for m in [
        "ld.param.u64",
        "ld.global.u32",
        "st.global.b32",
        "mov.b32",
        "bra.uni",
        "ret",
    ] {
        assert!(!is_memory_model_ptx(m), "{m}");
    }
}

const SASS: &str = "
	code for sm_90
		Function : fence__acquire__device
	.headerflags	@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"
    /*0000*/                   LDC R1, c[0x0][0x28] ;                                    /* 0x00000a00ff017b82 */
                                                                                         /* 0x000fe20000000800 */
    /*0010*/                   MEMBAR.ALL.GPU ;                                          /* 0x0000000000007992 */
    /*0020*/                   ERRBAR;                                                   /* 0x00000000000079ab */
    /*0030*/              @!P0 BRA 0x10 ;                                                /* 0x00000000000079ab */
    /*0040*/                   CCTL.IVALL ;                                              /* 0x00000000ff00798f */
    /*0050*/                   EXIT ;                                                    /* 0x000000000000794d */
    /*0060*/                   BRA 0x60;                                                 /* 0xfffffffc00fc7947 */
    /*0070*/                   NOP;                                                      /* 0x0000000000007918 */
		..........


		Function : other
    /*0000*/                   ATOM.E.CAS.STRONG.GPU PT, R5, [R2], R4, R5 ;              /* 0x000000040205738b */
    /*0010*/                   EXIT ;
";

#[test]
fn reads_cuobjdump_listings() {
    let f = parse_sass(SASS);
    assert_eq!(f.len(), 2);
    let fence = &f["fence__acquire__device"];
    assert_eq!(fence.len(), 8);
    assert_eq!(fence[3].opcode(), "BRA");
    assert!(!fence[3].is_padding());
    assert!(fence[6].is_padding() && fence[7].is_padding());
    let c = sass_cost(fence);
    assert_eq!((c.total, c.mm), (6, 3));
    assert_eq!(c.listing[1], "MEMBAR.ALL.GPU");
    assert_eq!(sass_cost(&f["other"]).mm, 1);
}

#[test]
fn verdicts_and_tallies() {
    let cost = |mm, total, sass| Cost {
        ptx: PtxCost {
            mm,
            total,
            ..Default::default()
        },
        sass: SassCost {
            total: sass,
            ..Default::default()
        },
    };
    let case = cases()[0].clone();
    let r = |o, l| Compared {
        case: case.clone(),
        ours: o,
        lib: l,
    };
    let rows = [
        r(cost(1, 4, 5), cost(1, 4, 6)),
        r(cost(1, 4, 5), cost(1, 4, 5)),
        r(cost(2, 4, 5), cost(1, 4, 5)),
    ];
    let verdicts: Vec<Ordering> = rows.iter().map(Compared::verdict).collect();
    assert_eq!(
        verdicts,
        [Ordering::Less, Ordering::Equal, Ordering::Greater]
    );
    let t = Tally::of(&rows, Compared::verdict);
    assert_eq!(t.to_string(), "1 fewer, 1 equal, 1 more");
}
