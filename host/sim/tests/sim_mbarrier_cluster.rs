//! An `mbarrier` of one CTA arrived on from another CTA of its cluster
//! (`mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote]`, CUTLASS's
//! `ClusterBarrier::arrive(cta_id)`): the arrival counts, and it synchronises with a wait only
//! when the two are morally strong (PTX ISA 8.7, 8.9.4 rule 4): the arrive's scope includes the
//! waiting thread (`.cluster`; `.cta` of the other CTA does not) and the wait's scope includes
//! the arriving thread (`.cluster`; the default `.cta` does not).

use ptx_sim::{Arg, FindingKind, Launch, Outcome, Simulator};

/// Two CTAs of one cluster, one thread each: CTA 0 initialises an mbarrier for one arrival and
/// waits on it (`try_wait` at `wait_scope`), then reads the word CTA 1 wrote before it arrived
/// remotely (at `arrive_scope`), and stores it at `out[1]`.
fn kernel(arrive_scope: &str, wait_scope: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n\
         .shared .align 8 .b64 bar;\n\n\
         .visible .entry k(.param .u64 out)\n.reqnctapercluster 2, 1, 1\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tmov.u32 %r1, %cluster_ctarank;\n\tmov.u32 %r2, bar;\n\
         \tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $REMOTE;\n\
         \tmbarrier.init.shared::cta.b64 [%r2], 1;\n\
         \tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\tmov.u32 %r3, 0;\n\
         $WAIT:\n\tmbarrier.try_wait.parity.acquire.{wait_scope}.shared::cta.b64 %p2, [%r2], %r3;\n\
         \t@!%p2 bra $WAIT;\n\tld.global.u32 %r4, [%rd2];\n\tst.global.u32 [%rd2+4], %r4;\n\
         \tbra.uni $END;\n\
         $REMOTE:\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\
         \tst.global.u32 [%rd2], 42;\n\tmapa.shared::cluster.u32 %r5, %r2, 0;\n\
         \tmbarrier.arrive.release.{arrive_scope}.shared::cluster.b64 _, [%r5];\n\
         $END:\n\tret;\n}}\n"
    )
}

fn run(ptx: &str, seed: u64) -> Outcome {
    let sim = Simulator::new(ptx).unwrap();
    let mut l = Launch::new([2, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 8])]);
    l.seed = seed;
    sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap()
}

#[test]
fn a_remote_arrive_at_cluster_scope_synchronises_with_a_cluster_scope_wait() {
    // It used to fault: "mbarrier instruction on 0x…, which is not shared memory".
    for seed in 0..8 {
        let out = run(&kernel("cluster", "cluster"), seed);
        assert!(out.findings.is_empty(), "seed {seed}: {:?}", out.findings);
        assert_eq!(out.buffers[0][4], 42, "seed {seed}");
    }
}

#[test]
fn a_remote_arrive_or_a_wait_whose_scope_excludes_the_other_cta_synchronises_nothing() {
    for (arrive, wait) in [("cta", "cluster"), ("cluster", "cta")] {
        for seed in 0..8 {
            let out = run(&kernel(arrive, wait), seed);
            let race = out.findings.iter().any(|f| {
                f.kind == FindingKind::Race && f.text.contains("plain write `st.global.u32`")
            });
            assert!(
                race,
                "arrive .{arrive}, wait .{wait}, seed {seed}: {:?}",
                out.findings
            );
        }
    }
}

/// Two CTAs: CTA 0 writes a word and arrives at the cluster barrier (`arrive`, the given
/// qualifier), CTA 1 waits and reads it; with `cluster` 1 the two are in clusters of their own.
fn cluster_barrier(arrive: &str, cluster: u32, seed: u64) -> Outcome {
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tmov.u32 %r1, %ctaid.x;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $READ;\n\
         \tst.global.u32 [%rd2], 42;\n\tbarrier.cluster.arrive{arrive};\n\
         \tbarrier.cluster.wait;\n\tbra.uni $END;\n\
         $READ:\n\tbarrier.cluster.arrive{arrive};\n\tbarrier.cluster.wait;\n\
         \tld.global.u32 %r2, [%rd2];\n\tst.global.u32 [%rd2+4], %r2;\n$END:\n\tret;\n}}\n"
    );
    let sim = Simulator::new(&ptx).unwrap();
    let mut l = Launch::new([2, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 8])]);
    l.cluster = Some([cluster, 1, 1]);
    l.seed = seed;
    sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap()
}

#[test]
fn a_cluster_barrier_releases_to_its_cluster_and_a_relaxed_arrive_to_nobody() {
    for seed in 0..8 {
        let ok = cluster_barrier("", 2, seed);
        assert!(ok.findings.is_empty(), "seed {seed}: {:?}", ok.findings);
        assert_eq!(ok.buffers[0][4], 42, "seed {seed}");
        for (arrive, cluster) in [(".relaxed", 2), ("", 1)] {
            let out = cluster_barrier(arrive, cluster, seed);
            assert!(
                out.findings.iter().any(|f| f.kind == FindingKind::Race),
                "arrive{arrive}, clusters of {cluster}, seed {seed}: {:?}",
                out.findings
            );
        }
    }
}
