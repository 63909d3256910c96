//! The library's emitted code against the PTX axioms (issue 12, test 3): the classic shapes as
//! Rust threads of `scoped_atomics` operations, every ordering class and scope, u32, u16 and u8
//! locations, each operation's PTX the probe kernel the pipeline builds for sm_70 and for sm_90
//! with PTX 8.6; every outcome the scoped C++ model forbids must be forbidden by the axioms.
//! The table is written to target/litmus/emitted.md.

use scoped_atomics_host::litmus::emitted::{check_target, table};
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
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/litmus");
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
