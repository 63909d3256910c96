//! Issue 31: Dat3M's barrier dialect (`--dialect dat3m`, host/litmus/dat3m): `bar.cta.{sync|arrive}
//! INSTANCE{, ID{, QUORUM}}`, barrier ids and quorums from loaded values decided per execution,
//! liveness of quorums that can or cannot fill, and `P3: r0` in conditions. Each file states its
//! expected verdict and the sentence that decides it.

mod common;

use common::{check_dir_in, cli, file};
use ptx_litmus::enumerate::decide;
use ptx_litmus::parse::{parse, parse_dialect};
use ptx_litmus::program::Dialect;

#[test]
fn the_dat3m_barrier_dialect_decides_its_files() {
    check_dir_in("dat3m", 9, Dialect::Dat3m);
}

#[test]
fn the_dialect_is_chosen_on_the_command_line_and_ptx_stays_the_default() {
    let f = file("dat3m", "bar-instances-one-barrier.litmus");
    let (code, out, err) = cli(&["--dialect", "dat3m", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("MP+bar-instances No "), "{out}");
    // The same file read as PTX: barriers 1 and 2, each waiting for both threads.
    let (code, out, err) = cli(&[&f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("MP+bar-instances Deadlock "), "{out}");
    let (code, _, err) = cli(&["--dialect", "herd", &f]);
    assert_eq!(code, 2);
    assert!(err.contains("herd"), "{err}");
}

#[test]
fn the_three_operand_form_is_a_quorum_in_dat3m_and_refused_in_ptx() {
    let text = std::fs::read_to_string(file("dat3m", "bar-named-quorum.litmus")).unwrap();
    let e = parse("q", &text).unwrap_err();
    assert!(e.msg.contains("takes"), "{e}");
    let o = decide(&parse_dialect("q", &text, Dialect::Dat3m).unwrap()).unwrap();
    assert_eq!(o.verdict(), "No");
}

#[test]
fn a_barrier_id_from_a_loaded_value_is_decided_per_execution() {
    let f = file("dat3m", "bar-id-from-loaded-value.litmus");
    let (code, out, err) = cli(&["--dialect", "dat3m", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Bar+id-from-load Ok "), "{out}");
    // Reading P2's 2, P0 waits at barrier 2 and P1 at barrier 1.
    assert!(
        out.contains("deadlock: P0:9 `bar.cta.sync 0, r0` waits forever"),
        "{out}"
    );
    assert!(
        out.contains("deadlock: P1:8 `bar.cta.sync 1, 1` waits forever"),
        "{out}"
    );
    // The PTX dialect too: `bar.sync r0` with r0 loaded.
    let t = "PTX B\n{ b=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0 ;\n \
             ld.relaxed.gpu r0, b | bar.sync 0 | st.relaxed.gpu b, 1 ;\n \
             bar.sync r0 | | ;\nexists (P0:r0 == 1)\n";
    let o = decide(&parse("b", t).unwrap()).unwrap();
    assert!(!o.ok, "with r0 == 1, P0 waits at barrier 1 forever");
    assert!(o.consistent > 0 && o.deadlocked > 0);
}

#[test]
fn a_condition_may_put_a_space_after_the_thread_colon() {
    let t = "PTX S\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0: r0 == 0 /\\ 0: r0 == 0 /\\ P0 : r0 == 0 /\\ P0 :r0 == 0)\n";
    let o = decide(&parse("s", t).unwrap()).unwrap();
    assert!(o.ok);
}
