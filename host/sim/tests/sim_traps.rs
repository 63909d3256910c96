//! A `trap` from one of the library's run-time checks names the check and why it failed (the
//! predicate its inline assembly declares, as the library emits it); any other `trap` is a plain
//! "trap". Needs no tools: hand-written PTX in the library's inline-assembly form.

use ptx_sim::{Arg, FindingKind, Launch, Simulator};

/// A kernel that maps its shared word to rank `rank` of its cluster the way
/// `scoped_atomics::kernel::map_shared_rank` does (two guarded traps, then `mapa`).
fn map_shared_rank(rank: u32) -> String {
    format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.shared .align 4 .b8 word[4];\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
         \tmov.u64 %rd1, word;\n\tcvta.shared.u64 %rd2, %rd1;\n\tmov.u32 %r1, {rank};\n\
         \t// begin inline asm\n\t{{\n\t.reg .pred %not_own_shared;\n\
         \t.reg .pred %rank_out_of_range;\n\t.reg .b32 %ranks;\n\
         \tisspacep.shared::cta %not_own_shared, %rd2;\n\t@!%not_own_shared trap;\n\
         \tmov.u32 %ranks, %cluster_nctarank;\n\
         \tsetp.ge.u32 %rank_out_of_range, %r1, %ranks;\n\t@%rank_out_of_range trap;\n\
         \tmapa.u64 %rd3, %rd2, %r1;\n\t}}\n\t// end inline asm\n\
         \tret;\n}}\n"
    )
}

fn first_fault(ptx: &str, cluster: Option<[u32; 3]>) -> Option<String> {
    let sim = Simulator::new(ptx).unwrap();
    let mut l = Launch::new([2, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 8])]);
    l.cluster = cluster;
    let out = sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap();
    let f = out.findings.first()?;
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    Some(f.text.clone())
}

/// Rank 1 in a cluster of one block (a launch that forgot the cluster shape) names
/// `map_shared_rank`, the cluster's block count and the fix; with the shape given it runs.
#[test]
fn a_rank_beyond_the_cluster_names_map_shared_rank_and_the_cluster_size() {
    let f = first_fault(&map_shared_rank(1), None).expect("a fault");
    assert!(
        f.contains(": trap in scoped_atomics::kernel::map_shared_rank (a library check: the rank"),
        "{f}"
    );
    assert!(f.contains("%cluster_nctarank = 1"), "{f}");
    assert!(f.contains("`--cluster`"), "{f}");
    assert_eq!(first_fault(&map_shared_rank(1), Some([2, 1, 1])), None);
    let f = first_fault(&map_shared_rank(2), Some([2, 1, 1])).expect("a fault");
    assert!(f.contains("%cluster_nctarank = 2"), "{f}");
    assert!(!f.contains("`--cluster`"), "{f}");
}

/// A `trap` whose guard is not one of the library's check predicates is a plain "trap".
#[test]
fn an_unrecognised_trap_is_a_plain_trap() {
    let ptx = map_shared_rank(1).replace("%rank_out_of_range", "%p_user");
    let f = first_fault(&ptx, None).expect("a fault");
    assert!(f.starts_with("fault: ") && f.ends_with(": trap"), "{f}");
}
