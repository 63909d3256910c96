//! The library's emitted code against the PTX axioms (issue 12, test 3): the classic shapes as
//! Rust threads of `scoped_atomics` operations, every ordering class and scope, u32, u16 and u8
//! locations, each operation's PTX the probe kernel the pipeline builds for sm_70 and for sm_90
//! with PTX 8.6; every outcome the scoped C++ model forbids must be forbidden by the axioms.
//! The table is written to target/litmus/emitted.md.

use scoped_atomics_checks::emitted::{check_one, check_target, table};
use scoped_atomics_host::ptx::{Target, Toolchain, build_ptx};
use scoped_atomics_host::sim::Simulator;

#[test]
fn emitted_code_forbids_what_the_scoped_cpp_model_forbids() {
    let tc = Toolchain::discover().expect("the PTX toolchain (bash tools/install.sh)");
    let mut results = Vec::new();
    for (target, scopes) in [
        (Target::Sm70, &["block", "device", "system"][..]),
        (
            Target::Sm90Ptx86,
            &["block", "cluster", "device", "system"][..],
        ),
    ] {
        let ptx = std::fs::read_to_string(build_ptx(&tc, target).unwrap()).unwrap();
        let sim = Simulator::new(&ptx).unwrap();
        let rows = check_target(&sim, scopes, &["u32", "u16", "u8"]).unwrap();
        results.push((target.name(), rows));
    }
    let t = table(&results);
    let largest = results
        .iter()
        .flat_map(|(_, r)| r)
        .map(|r| r.candidates)
        .max()
        .unwrap();
    let checked = results
        .iter()
        .flat_map(|(_, r)| r)
        .filter(|r| r.ok.is_some())
        .count();
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/litmus");
    std::fs::create_dir_all(&out).unwrap();
    let text = format!("{t}\n{checked} checks; the largest has {largest} candidate executions.\n");
    std::fs::write(out.join("emitted.md"), &text).unwrap();
    println!("{text}");
    let bad: Vec<String> = results
        .iter()
        .flat_map(|(target, rows)| rows.iter().map(move |r| (target, r)))
        .filter(|(_, r)| r.ok == Some(false))
        .map(|(t, r)| format!("{} {} {} {} {t}", r.shape, r.class, r.scope, r.ty))
        .collect();
    assert!(checked > 300, "{checked} checks");
    assert!(bad.is_empty(), "counterexamples:\n{}", bad.join("\n"));
}

/// The check can fail: with the release store and the acquire load of MP replaced by the relaxed
/// probes' code (a wrong mapping), or with the sm_90 fence.sc of SB replaced by fence.acq_rel
/// code, the PTX axioms allow the outcome C++ forbids, and the check reports it.
#[test]
fn wrong_code_is_a_counterexample() {
    let tc = Toolchain::discover().expect("the PTX toolchain (bash tools/install.sh)");
    let ptx = std::fs::read_to_string(build_ptx(&tc, Target::Sm70).unwrap()).unwrap();
    let sim = Simulator::new(&ptx).unwrap();
    let same = |k: &str| k.to_string();
    let relaxed = |k: &str| {
        k.replace("__release__", "__relaxed__")
            .replace("__acquire__", "__relaxed__")
    };
    for ty in ["u32", "u8"] {
        assert!(check_one(&sim, "MP", 1, "device", ty, &same).unwrap());
        assert!(
            !check_one(&sim, "MP", 1, "device", ty, &relaxed).unwrap(),
            "{ty}"
        );
    }
    let acq_rel_fences = |k: &str| k.replace("fence__seq_cst__", "fence__acq_rel__");
    assert!(check_one(&sim, "SB", 3, "device", "u32", &same).unwrap());
    assert!(!check_one(&sim, "SB", 3, "device", "u32", &acq_rel_fences).unwrap());
    // Scope too narrow: block-scope code between threads of different CTAs.
    let narrow = |k: &str| k.replace("__device", "__block");
    assert!(!check_one(&sim, "MP", 1, "device", "u32", &narrow).unwrap());
}
