//! Issue 10, bugs 7 and 8: how a user's device crate is built.
//!
//! * Bug 8: `scoped-atomics` with its default features (`std`) must build for
//!   `nvptx64-nvidia-cuda`: the feature has no meaning on the device.
//! * Bug 7: a kernel using the `Cluster` scope built with `-C target-cpu=sm_90` only after `--`
//!   (so the flag reaches the user's crate but not its dependencies) fails, and the message must
//!   say that the flag has to reach the dependencies — through `RUSTFLAGS` or the target's
//!   `rustflags` — rather than tell the user to pass the flag they already passed.

mod scratch;

use scoped_atomics_host::ptx::Target;

const COUNTER: &str = r#"
use scoped_atomics::{Atomic, Device, Ordering};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn counter(p: *mut u32) {
    // SAFETY: the launcher passes a valid location.
    unsafe { Atomic::<u32, Device>::from_ptr(p) }.fetch_add(1, Ordering::Relaxed);
}
"#;

#[test]
fn a_device_build_with_default_features_works() {
    let Some(tc) = scratch::toolchain("device_builds") else {
        return;
    };
    // No `default-features = false`: what `cargo add scoped-atomics` writes.
    let dir = scratch::crate_dir(
        &tc,
        "default-features",
        "",
        &format!("{}{COUNTER}", scratch::PRELUDE),
    );
    let kernels = scratch::kernels(&tc, &dir, Target::Sm80);
    let body = scratch::mnemonics(scratch::kernel(&kernels, "counter"));
    assert!(
        body.iter().any(|m| m == "atom.relaxed.gpu.add.u32"),
        "the counter kernel has no device-scope fetch_add: {body:?}"
    );
}

const CLUSTER: &str = r#"
use scoped_atomics::{Atomic, Cluster, Ordering};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn cluster_counter(p: *mut u32) {
    // SAFETY: the launcher passes a valid location.
    unsafe { Atomic::<u32, Cluster>::from_ptr(p) }.fetch_add(1, Ordering::Relaxed);
}
"#;

#[test]
fn sm_90_only_after_the_double_dash_is_explained() {
    let Some(tc) = scratch::toolchain("device_builds") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "cluster-after-dash",
        ", default-features = false",
        &format!("{}{CLUSTER}", scratch::PRELUDE),
    );
    // The conformance flags without the target CPU, which comes after `--` only.
    let flags = Target::rustflags_with("");
    // A target directory of its own: these flags must not invalidate the conformance build's.
    let (out, _) = scratch::build_with(
        &tc,
        &dir,
        &tc.root.join("target/ptx/scratch-cpu-after-dash"),
        &flags,
        scratch::Extra {
            rustc: &["-C", "target-cpu=sm_90"],
            ..Default::default()
        },
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "built without sm_90 in the dependencies:\n{stderr}"
    );
    assert!(
        stderr.contains("the Cluster scope, PTX `.cluster`; cluster indices, cluster_sync, map_shared_rank) need sm_90"),
        "no cluster message:\n{stderr}"
    );
    assert!(
        stderr.contains("RUSTFLAGS") && stderr.contains("not only after `--`"),
        "the message does not say how the flag reaches the dependencies:\n{stderr}"
    );
}

/// Issue 25, item 1: a 128-bit load on Volta through the builder, `.arch("sm_70").ptx_isa(8, 3)`,
/// with a flag from the builder (`.rustflag`) and one from the kernel crate's own
/// `.cargo/config.toml`; both must reach the build (the kernel does not compile without them).
const WIDE_LOAD_WITH_FLAGS: &str = r#"
use scoped_atomics::{Atomic, Device, Ordering};

#[cfg(not(all(from_builder, from_config)))]
compile_error!("the builder's or the config file's rustflags did not reach the build");

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wide_load(p: *mut u128, out: *mut u128) {
    // SAFETY: the launcher passes valid, 16-aligned locations.
    let value = unsafe { Atomic::<u128, Device>::from_ptr(p) }.load(Ordering::Acquire);
    // SAFETY: as above.
    unsafe { out.write(value) };
}
"#;

#[test]
fn the_builder_builds_sm_70_with_ptx_isa_8_3_and_every_rustflag_reaches_the_build() {
    use scoped_atomics_host::build::PtxBuilder;
    let Some(tc) = scratch::toolchain("device_builds") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "builder-sm70-ptx83",
        ", default-features = false",
        &format!("{}{WIDE_LOAD_WITH_FLAGS}", scratch::PRELUDE),
    );
    std::fs::create_dir_all(dir.join(".cargo")).unwrap();
    std::fs::write(
        dir.join(".cargo/config.toml"),
        "[target.nvptx64-nvidia-cuda]\nrustflags = [\"--cfg=from_config\"]\n",
    )
    .unwrap();
    let ptx = PtxBuilder::new(&dir)
        .arch("sm_70")
        .ptx_isa(8, 3)
        .rustflag("--cfg=from_builder")
        .out_dir(tc.root.join("target/ptx/builder"))
        .verify_with_ptxas(true)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        ptx.ends_with("builder_sm70_ptx83.sm_70_ptx83.ptx"),
        "{}",
        ptx.display()
    );
    let text = std::fs::read_to_string(&ptx).unwrap();
    assert!(
        text.contains(".version 8.3") && text.contains(".target sm_70"),
        "{text}"
    );
    assert!(text.contains("ld.acquire.gpu.b128"), "{text}");
}

#[test]
fn the_builder_builds_sm_100_at_its_ptx_isa_and_ptxas_assembles_it() {
    use scoped_atomics_host::build::PtxBuilder;
    let Some(tc) = scratch::toolchain("device_builds") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "builder-sm100",
        ", default-features = false",
        &format!("{}{COUNTER}", scratch::PRELUDE),
    );
    let ptx = PtxBuilder::new(&dir)
        .arch("sm_100")
        .out_dir(tc.root.join("target/ptx/builder"))
        .verify_with_ptxas(true)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(&ptx).unwrap();
    // sm_100's oldest PTX ISA, passed as `+ptx86` so that the library's gates see 8.3 and 8.4.
    assert!(
        text.contains(".version 8.6") && text.contains(".target sm_100"),
        "{text}"
    );
    assert!(text.contains("atom.relaxed.gpu.add.u32"), "{text}");
}

/// Issue 25, item 2: kernels are built with line tables by default (`.file`/`.loc`, naming the
/// Rust lines), and the PTX without those lines (and the `$L__func_begin`/`$L__tmp` labels that
/// delimit their ranges, referenced by no instruction) is exactly the PTX built without them.
#[test]
fn line_tables_are_on_by_default_and_change_nothing_else() {
    use scoped_atomics_host::build::PtxBuilder;
    let Some(tc) = scratch::toolchain("device_builds") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "builder-line-tables",
        ", default-features = false",
        &format!("{}{COUNTER}", scratch::PRELUDE),
    );
    // One out dir: the second build writes the same PTX file, read before it.
    let build = |line_tables: bool| {
        let ptx = PtxBuilder::new(&dir)
            .arch("sm_80")
            .line_tables(line_tables)
            .out_dir(tc.root.join("target/ptx/builder"))
            .verify_with_ptxas(true)
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::read_to_string(ptx).unwrap()
    };
    let with = build(true);
    let without = build(false);
    assert!(with.contains(".file") && with.contains(".loc"), "{with}");
    assert!(with.contains("src/lib.rs"), "no Rust file named:\n{with}");
    // Line directives only: no DWARF (`.debug_info`, `.debug_line`), which ptxas cannot parse;
    // LLVM adds one empty `.section .debug_macinfo { }`, which it can (verified above).
    assert!(
        !with.contains(".debug_info") && !with.contains(".debug_line"),
        "{with}"
    );
    let code = |ptx: &str| -> Vec<String> {
        ptx.lines()
            .map(str::trim)
            .filter(|l| !l.starts_with(".file") && !l.starts_with(".loc"))
            .filter(|l| !l.starts_with(".section\t.debug_macinfo"))
            // The labels LLVM puts around the line table's ranges; no instruction uses them.
            .filter(|l| {
                !["$L__func_begin", "$L__func_end", "$L__tmp"]
                    .iter()
                    .any(|p| l.starts_with(p))
            })
            .filter(|l| !l.starts_with("//") && !l.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(code(&with), code(&without), "line tables changed the code");
}

/// Issue 25, item 2: a scope bug in a Rust kernel (a block-scope counter that every block adds
/// to) is reported by the simulator with the kernel author's `file:line` — the line of the
/// `fetch_add` in the user's `src/lib.rs` — next to the library line it runs through.
const BLOCK_SCOPE_ACROSS_BLOCKS: &str = r#"
use scoped_atomics::{Atomic, Block, Ordering};

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn count_blocks(p: *mut u32) {
    // SAFETY: the launcher passes a valid location.
    let counter = unsafe { Atomic::<u32, Block>::from_ptr(p) };
    counter.fetch_add(1, Ordering::Relaxed); // THE BUG
}
"#;

#[test]
fn a_simulator_finding_names_the_rust_line_of_the_kernel() {
    use ptx_sim::{Arg, FindingKind, Launch, Simulator};
    use scoped_atomics_host::build::PtxBuilder;
    let Some(tc) = scratch::toolchain("device_builds") else {
        return;
    };
    let source = format!("{}{BLOCK_SCOPE_ACROSS_BLOCKS}", scratch::PRELUDE);
    let bug_line = 1 + source
        .lines()
        .position(|l| l.contains("THE BUG"))
        .expect("the marked line");
    let dir = scratch::crate_dir(
        &tc,
        "builder-rust-lines",
        ", default-features = false",
        &source,
    );
    let ptx = PtxBuilder::new(&dir)
        .arch("sm_80")
        .out_dir(tc.root.join("target/ptx/builder"))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(&ptx).unwrap();
    let sim = Simulator::new(&text).unwrap_or_else(|e| panic!("{e}"));
    let launch = Launch::new([2, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 4])]);
    let outcome = sim
        .kernel("count_blocks")
        .unwrap()
        .launch(&launch, Vec::new())
        .unwrap();
    let race = outcome
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Race)
        .unwrap_or_else(|| panic!("no race found: {:?}", outcome.findings));
    let user_line = format!("src/lib.rs:{bug_line}");
    assert!(
        race.text.contains(&user_line),
        "{user_line} not in:\n{race}"
    );
    assert!(race.text.contains("via "), "no library line in:\n{race}");
}
