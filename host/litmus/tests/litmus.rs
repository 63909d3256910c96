//! The PTX memory-model checker (`ptx_litmus`) against the verdicts the reference
//! texts state (host/litmus/reference) and the verdicts derived for the classic shapes
//! (host/litmus/classic, each file says which axiom decides it), and the `litmus` CLI contract.

mod common;

use common::{check_dir, cli, corpus, lit};
use ptx_litmus::{enumerate::decide, parse::parse};
use std::path::Path;

#[test]
fn reference_text_litmus_tests_have_the_verdicts_the_text_states() {
    check_dir("reference", 15);
}

#[test]
fn classic_shapes_have_the_derived_verdicts() {
    check_dir("classic", 55);
}

const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, y ;\n \
                  st.release.gpu y, 1 | ld.weak r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

#[test]
fn quantifiers_follow_herd() {
    // The outcome is forbidden: exists → No, ~exists → Ok; forall of its negation → Ok.
    let d = |s: &str| decide(&parse("t", s).unwrap()).unwrap();
    assert!(!d(MP).ok);
    assert!(d(&MP.replace("exists", "~exists")).ok);
    assert!(d(&MP.replace("exists (", "forall ~(")).ok);
    // An outcome some but not all executions reach: exists Ok, forall No.
    let some = MP.replace("P1:r1 == 0", "P1:r1 == 1");
    assert!(d(&some).ok);
    assert!(!d(&some.replace("exists", "forall")).ok);
}

#[test]
fn the_final_states_are_the_expected_set() {
    let o = decide(&parse("t", MP).unwrap()).unwrap();
    let states: Vec<(i64, i64)> = o
        .states
        .iter()
        .map(|s| {
            let get = |k: &str| s.iter().find(|(n, _)| n == k).unwrap().1;
            (get("P1:r0"), get("P1:r1"))
        })
        .collect();
    assert_eq!(states, vec![(0, 0), (0, 1), (1, 1)]);
}

#[test]
fn parse_errors_name_file_line_and_token() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.bogus r0, x ;\nexists (P0:r0 == 0)\n",
            4,
            "bogus",
        ),
        (
            "PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n frob r0, x ;\nexists (P0:r0 == 0)\n",
            4,
            "frob",
        ),
        (
            "PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == == 0)\n",
            5,
            "==",
        ),
        (
            "PTX T\n{ x=1+1; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 0)\n",
            2,
            "1+1",
        ),
        (
            "PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n tex.1d r0, x ;\nexists (P0:r0 == 0)\n",
            4,
            "tex.1d",
        ),
        (
            "PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.const.u32 r0, x ;\nexists (P0:r0 == 0)\n",
            4,
            "const",
        ),
        (
            "PTX T\n{ x=0; }\n P0@cta 0,cube 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 0)\n",
            3,
            "cube",
        ),
        (
            "PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P3:r0 == 0)\n",
            5,
            "P3:r0",
        ),
        (
            "PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n bra L ;\nexists (P0:r0 == 0)\n",
            4,
            "L",
        ),
        ("X86 T\n{ x=0; }\n", 1, "X86"),
    ];
    for (text, line, token) in cases {
        let e = parse("f.litmus", text).unwrap_err();
        assert_eq!((e.line, e.token.as_str()), (*line, *token), "{e}");
        assert!(
            e.to_string().starts_with(&format!("f.litmus:{line}:")),
            "{e}"
        );
    }
}

#[test]
fn herd_spellings_are_accepted() {
    // Registers with %, herd's `1:r0=1` condition atoms, typed initialisers, `plus`, brackets.
    let t = "PTX atom\n\"desc\"\n{\nP0:%r0=0;\nint x = 0;\nuint32_t y;\n}\n P0@cta 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n \
             red.acq_rel.cta.plus x, 1 | atom.relaxed.gpu.plus %r1, [x], 1 ;\n \
             fence.sc.sys | ld.relaxed.sys.global.u32 %r2, [y] ;\nexists\n(1:r1 = 0 /\\ x == 2)\n";
    let o = decide(&parse("t", t).unwrap()).unwrap();
    assert!(o.ok);
}

#[test]
fn cas_loops_unroll_and_branch_conditions_hold() {
    // A CAS lock acquired by two threads: mutual exclusion of the critical increments.
    let t = "PTX lock\n{ l=0; c=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
             L0: | L1: ;\n atom.acquire.gpu.cas r0, l, 0, 1 | atom.acquire.gpu.cas r0, l, 0, 1 ;\n \
             bne r0, 0, L0 | bne r0, 0, L1 ;\n ld.weak r1, c | ld.weak r1, c ;\n add r2, r1, 1 | add r2, r1, 1 ;\n \
             st.weak c, r2 | st.weak c, r2 ;\n st.release.gpu l, 0 | st.release.gpu l, 0 ;\n\
             forall (c == 2)\n";
    let o = decide(&parse("t", t).unwrap()).unwrap();
    assert!(o.consistent > 0);
    assert!(o.ok, "the lock lost an increment");
    assert!(o.races.is_empty(), "{:?}", o.races);
    // With relaxed lock operations the increments race and one can be lost.
    let rlx = t
        .replace("acquire.gpu", "relaxed.gpu")
        .replace("release.gpu", "relaxed.gpu");
    let o = decide(&parse("t", &rlx).unwrap()).unwrap();
    assert!(!o.ok);
    assert!(!o.races.is_empty());
}

#[test]
fn cli_prints_one_line_per_test_with_the_counts() {
    let (code, out, err) = cli(&[&lit("reference")]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), corpus("reference").len());
    assert!(
        lines.contains(&"MP+red Ok (candidates: 8, consistent: 4)"),
        "{out}"
    );
    for l in lines {
        let w: Vec<&str> = l.split_whitespace().collect();
        assert!(w[1] == "Ok" || w[1] == "No", "{l}");
    }
}

#[test]
fn cli_reports_races_with_both_instructions_and_threads() {
    let f = format!("{}/libcudacxx-mp-race.litmus", lit("reference"));
    let (code, out, _) = cli(&[&f, "--races"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("race: P0:7 `st.release.cta f, 1` and P1:7 `ld.acquire.gpu r0, f`"),
        "{out}"
    );
    let ok = format!("{}/libcudacxx-mp.litmus", lit("reference"));
    let (_, out, _) = cli(&[&ok, "--races"]);
    assert!(!out.contains("race:"), "{out}");
}

#[test]
fn cli_json_is_parseable() {
    let f = format!("{}/MP+rel+acq.gpu-2cta.litmus", lit("classic"));
    let (code, out, _) = cli(&[&f, "--json", "--races"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["name"], "MP+rel+acq.gpu-2cta");
    assert_eq!(v[0]["verdict"], "No");
    assert_eq!(v[0]["candidates"], 4);
    assert_eq!(v[0]["consistent"], 3);
}

#[test]
fn cli_exits_2_on_unsupported_or_bad_input_and_still_decides_the_rest() {
    let refused = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/litmus-refused");
    let (code, out, err) = cli(&[
        &refused.display().to_string(),
        &format!("{}/corr.litmus", lit("reference")),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cowr-alias.litmus:6:") && err.contains("fence.proxy.async"),
        "{err}"
    );
    assert!(
        err.contains("surface.litmus:4:") && err.contains("unknown qualifier `.b` of `sust`"),
        "{err}"
    );
    assert!(out.contains("CoRR Ok"), "{out}");
    assert!(!err.contains("panicked"), "{err}");
    for bad in [vec!["/no/such/file.litmus"], vec![], vec!["--bogus"]] {
        let (code, _, err) = cli(&bad);
        assert_eq!(code, 2, "{bad:?}");
        assert!(!err.is_empty() && !err.contains("panicked"), "{err}");
    }
}

#[test]
fn cta_barriers_synchronise_threads_of_one_cta_only() {
    let t = "PTX bar\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | bar.cta.sync 1 ;\n \
             bar.cta.sync 1 | ld.weak r0, x ;\nforall (P1:r0 == 1)\n";
    let o = decide(&parse("t", t).unwrap()).unwrap();
    assert!(o.ok && o.races.is_empty());
    // Threads of different CTAs: each CTA's barrier completes with its one thread, no
    // synchronisation, a race.
    let other = t.replace("P1@cta 0", "P1@cta 1");
    let o = decide(&parse("t", &other).unwrap()).unwrap();
    assert!(!o.ok && !o.races.is_empty(), "{other}");
    // Different barrier numbers in one CTA of two threads: neither barrier fills (PTX `bar`:
    // without a thread count, all threads of the CTA participate) — a deadlock, not a verdict.
    let other = t.replace("| bar.cta.sync 1", "| bar.cta.sync 2");
    let o = decide(&parse("t", &other).unwrap()).unwrap();
    assert_eq!(o.verdict(), "Deadlock", "{other}");
    assert_eq!(o.consistent, 0);
    assert_eq!(o.deadlocks.len(), 2);
}

#[test]
fn a_condition_on_a_register_or_location_nothing_writes_is_an_error_naming_it() {
    // Issue 31: `P1:r7` for `P1:r1` read as 0 and flipped the verdict to Ok silently.
    let mp = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
              st.weak x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak r1, x ;\n\
              exists (P1:r0 == 1 /\\ P1:r7 == 0)\n";
    let e = parse("mp.litmus", mp).unwrap_err();
    assert_eq!((e.line, e.token.as_str()), (6, "P1:r7"), "{e}");
    assert!(e.msg.contains("register `r7`"), "{e}");
    // A register another thread writes is still a typo for this one.
    let e = parse("mp.litmus", &mp.replace("P1:r7", "P0:r1")).unwrap_err();
    assert_eq!(e.token, "P0:r1", "{e}");
    // A location nobody declares or touches.
    let e = parse("mp.litmus", &mp.replace("P1:r7 == 0", "z == 0")).unwrap_err();
    assert_eq!(e.token, "z", "{e}");
    // The intended register decides; a register only the initial state sets is fine.
    assert!(
        !decide(&parse("mp.litmus", &mp.replace("P1:r7", "P1:r1")).unwrap())
            .unwrap()
            .ok
    );
    let init = mp.replace("{ x=0; y=0; }", "{ x=0; y=0; P1:r7=0; }");
    assert!(parse("mp.litmus", &init).is_ok());
    // The command: exit 2 with the name.
    let dir = std::env::temp_dir().join(format!("litmus-typo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("typo.litmus");
    std::fs::write(&f, mp).unwrap();
    let (code, _, err) = cli(&[f.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 2);
    assert!(err.contains("P1:r7") && err.contains("typo"), "{err}");
}

#[test]
fn races_say_which_executions_they_come_from() {
    // Issue 31: a `No` test still lists races: they come from every consistent execution, and
    // the help and the output say so.
    let f = format!("{}/libcudacxx-mp-race.litmus", lit("reference"));
    let (code, out, _) = cli(&[&f, "--races"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("over all")
            && out.contains("consistent executions, satisfying the condition or not"),
        "{out}"
    );
    let (_, help, _) = cli(&["--help"]);
    assert!(help.contains("whether or not"), "{help}");
    assert!(
        !help.contains("each consistent execution that satisfies the condition"),
        "{help}"
    );
}
