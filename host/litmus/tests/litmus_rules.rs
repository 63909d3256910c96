//! Issue 21: the forms of herd's and Dat3M's PTX litmus grammars (host/litmus/forms) and the
//! rules of the PTX text that decide the field's disagreements (host/litmus/rules): partial
//! coherence order, barriers with thread counts, logical ids, `bar.arrive` and `bar.red`,
//! deadlocks, load buffering through RMWs and causality through weak accesses. Each file states
//! its expected verdict and the sentence of the text that decides it.

mod common;

use common::{check_dir, cli, file};
use ptx_litmus::{enumerate::decide, parse::parse};

#[test]
fn every_form_of_the_herd_and_dat3m_grammars_is_decided() {
    check_dir("forms", 15);
}

#[test]
fn the_rules_of_the_text_decide_the_field_disagreements() {
    check_dir("rules", 20);
}

#[test]
fn racing_weak_writes_are_unrelated_in_coherence_and_still_reported_as_a_race() {
    // 8.9.6: "Two overlapping writes are unrelated in coherence order if they are in a
    // data-race": the issue's example is allowed, and --races names the racing stores.
    let (code, out, err) = cli(&[
        &file("rules", "coherence-partial-racing-weak.litmus"),
        "--races",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("CoPartial+weak+rel-acq.sys Ok"), "{out}");
    assert!(
        out.contains("race: P0:11 `st.weak x, 1` and P1:11 `st.weak x, 2`"),
        "{out}"
    );
}

#[test]
fn racing_writes_leave_either_value_final() {
    // Two racing st.weak of different CTAs, nothing else: both are co-maximal.
    let t = "PTX W\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | st.weak x, 2 ;\nexists (x == 1)\n";
    let o = decide(&parse("t", t).unwrap()).unwrap();
    let finals: Vec<i64> = o
        .states
        .iter()
        .map(|s| s.iter().find(|(n, _)| n == "x").unwrap().1)
        .collect();
    assert_eq!(finals, vec![1, 2]);
    // Morally strong writes are ordered: one execution per order, each with its own final value.
    let strong = t.replace("st.weak", "st.relaxed.gpu");
    let o2 = decide(&parse("t", &strong).unwrap()).unwrap();
    assert_eq!((o.consistent, o2.consistent), (1, 2));
}

#[test]
fn a_barrier_that_never_fills_is_reported_as_a_deadlock_with_its_instructions() {
    let (code, out, err) = cli(&[&file("rules", "bar-never-fills.litmus")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Bar+count3-2threads Deadlock (candidates: "),
        "{out}"
    );
    assert!(
        out.contains("deadlock: P0:9 `bar.cta.sync 1, 3` waits forever"),
        "{out}"
    );
    assert!(
        out.contains("deadlock: P1:8 `bar.cta.sync 1, 3` waits forever"),
        "{out}"
    );
    let (_, json, _) = cli(&[&file("rules", "bar-never-fills.litmus"), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["verdict"], "Deadlock");
    assert_eq!(v[0]["deadlocks"].as_array().unwrap().len(), 2);
}

#[test]
fn some_executions_deadlock_while_others_decide_the_condition() {
    // Barrier 1 counts 2: P2 arrives twice, P0 and P1 once. When P0 and P1 fill the first
    // phase, P2's first arrival waits forever (a deadlock); when P2 meets one of them, its
    // second arrival meets the other and every thread completes.
    let t = "PTX B\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n \
             st.weak x, 1 | bar.sync 1, 2 | bar.sync 1, 2 ;\n bar.sync 1, 2 | ld.weak r0, x | bar.sync 1, 2 ;\n\
             exists (P1:r0 == 1)\n";
    let o = decide(&parse("t", t).unwrap()).unwrap();
    assert_eq!(o.verdict(), "Ok");
    assert!(o.consistent > 0 && o.deadlocked > 0);
    let stuck: Vec<usize> = o.deadlocks.iter().map(|s| s.thread).collect();
    assert_eq!(stuck, vec![2]);
}

#[test]
fn barrier_ids_from_loaded_values_are_decided_and_unbounded_ones_refused() {
    // Issue 31: the reads-from choice fixes the id; x only ever holds 0, so barrier 0 of the
    // one-thread CTA completes.
    let t =
        "PTX B\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n bar.sync r0 ;\nexists (x == 0)\n";
    let o = decide(&parse("t", t).unwrap()).unwrap();
    assert_eq!((o.verdict(), o.deadlocked), ("Ok", 0));
    // x counts up without bound (each write is a read plus one): no finite set of values.
    let counter = "PTX B\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n add r1, r0, 1 ;\n \
                   st.weak x, r1 ;\n bar.sync r0 ;\nexists (x == 0)\n";
    let e = decide(&parse("t", counter).unwrap()).unwrap_err();
    assert!(e.contains("barrier's id or thread count"), "{e}");
}

#[test]
fn refused_constructs_get_one_line_naming_the_construct_and_its_line() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "{ x@local aliases y; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;",
            2,
            "aliases",
        ),
        (
            "{ x=0; }\n P0@cta 0,gpu 0 ;\n fence.proxy.tensormap::generic ;",
            4,
            "fence.proxy",
        ),
        (
            "{ x=0; }\n P0@cta 0,gpu 0 ;\n tex.1d.v4.s32.f32 r0, x ;",
            4,
            "tex.1d",
        ),
        (
            "{ x=0; }\n P0@cta 0,gpu 0 ;\n suld.b.1d r0, x ;",
            4,
            "of `suld`",
        ),
        (
            "{ x=0; }\n P0@cta 0,gpu 0 ;\n bar.warp.sync 1 ;",
            4,
            "bar.warp.sync",
        ),
        (
            "{ x=0; }\n P0@cta 0,gpu 0 ;\n barrier.cluster.arrive ;",
            4,
            "barrier.cluster.arrive",
        ),
        (
            "{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, [r7] ;",
            4,
            "[r7]",
        ),
    ];
    for (body, line, what) in cases {
        let text = format!("PTX T\n{body}\nexists (x == 0)\n");
        let e = parse("f.litmus", &text).unwrap_err();
        let msg = e.to_string();
        assert_eq!(e.line, *line, "{msg}");
        assert!(msg.contains(what), "{msg}");
        assert_eq!(msg.lines().count(), 1, "{msg}");
    }
}

#[test]
fn a_spin_that_can_read_only_a_stale_final_value_is_a_deadlock_in_those_executions() {
    // P1 sets the flag and resets it: P0 may see the 1 and leave, or miss it and spin forever
    // on the final 0 (fairness gives it no newer write to see).
    let t = "PTX S\n{ f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | st.relaxed.gpu f, 1 ;\n \
             ld.relaxed.gpu r0, f | st.relaxed.gpu f, 0 ;\n beq r0, 0, LC00 | ;\nexists (P0:r0 == 1)\n";
    let o = decide(&parse("t", t).unwrap()).unwrap();
    assert_eq!(o.verdict(), "Ok");
    assert!(o.deadlocked > 0);
    let sites: Vec<(usize, &str)> = o
        .deadlocks
        .iter()
        .map(|s| (s.thread, s.text.as_str()))
        .collect();
    assert_eq!(sites, vec![(0, "LC00:")]);
    // Without the reset, the spin always ends: no deadlock.
    let set = t.replace("st.relaxed.gpu f, 0", "");
    let o = decide(&parse("t", &set).unwrap()).unwrap();
    assert_eq!((o.verdict(), o.deadlocked), ("Ok", 0));
}

#[test]
fn a_cas_retry_loop_is_not_a_spin() {
    // The failed CAS hands the loop the value it read: the iteration changes the registers, so
    // reading the final value does not repeat it forever (it succeeds next time).
    let (code, out, err) = cli(&[&file("rules", "spin-cas-loop-terminates.litmus")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("CAS-increment-loop+stores Ok"), "{out}");
    assert!(!out.contains("deadlock:"), "{out}");
}

#[test]
fn proxy_fences_act_in_their_own_cta_and_alias_chains_resolve_to_the_root() {
    // Issue 31, NVIDIA's formal model of mixed proxies (alloy/ptx.als): `proxy_fence_ops` are
    // the "Ops in the same Proxy as the ProxyFence ...and in the same thread Block".
    let verdict = |name: &str| {
        let (_, o) = ptx_litmus::cli::check_file(std::path::Path::new(&file("rules", name)))
            .unwrap_or_else(|e| panic!("{e}"));
        o.verdict()
    };
    // The writer's CTA fences the surface proxy, the reader's does not: allowed.
    assert_eq!(verdict("proxy-fence-writer-only-2cta.litmus"), "Ok");
    // The reader's CTA fences it after the acquire: forbidden.
    assert_eq!(verdict("proxy-fence-reader-cta.litmus"), "No");
    // A surface alias of a generic alias of x is x (it was refused as "both a location and an
    // alias").
    assert_eq!(verdict("alias-chain.litmus"), "No");
    // An atom's read is not causally after what observes its write (`rmw` in observation).
    assert_eq!(
        verdict("rmw-read-not-caused-through-own-write.litmus"),
        "Ok"
    );
}

#[test]
fn a_bar_red_predicate_from_a_loaded_value_is_decided_per_execution() {
    // Issue 31: P0's predicate is the value it loads (0, or P2's 1); the popcount is 1 or 2
    // accordingly (it was refused as depending on a loaded value).
    let t = |c: &str| {
        format!(
            "PTX R\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0 ;\n \
             ld.relaxed.gpu r0, x | bar.red.popc.u32 r2, 0, 1 | st.relaxed.gpu x, 1 ;\n \
             bar.red.popc.u32 r1, 0, r0 | | ;\nexists ({c})\n"
        )
    };
    let ok = |c: &str| decide(&parse("r", &t(c)).unwrap()).unwrap().ok;
    assert!(ok("P0:r0 == 1 /\\ P0:r1 == 2 /\\ P1:r2 == 2"));
    assert!(ok("P0:r0 == 0 /\\ P0:r1 == 1"));
    assert!(!ok("P0:r0 == 0 /\\ P0:r1 == 2"));
}
