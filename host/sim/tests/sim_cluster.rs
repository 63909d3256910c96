//! Thread-block clusters in the simulator: the nvcc-compiled cluster histogram of
//! `tests/fixtures/sim/cluster_histogram.cu` (its `__cluster_dims__(2,1,1)` read from
//! `.reqnctapercluster`) gives the exact histogram with no finding under several schedules, and
//! its `.cta`-scope variant is a race naming `cta` and two CTAs of one cluster; the cluster
//! registers of a 2-D launch; the cluster barrier waits only for non-exited threads, and a thread
//! waiting elsewhere is a hang; an arrive waits for the other lanes of its warp; a `.shared::cta`
//! access to another CTA's window, `mapa` out of range and a wait without an arrive are faults;
//! a launch shape that contradicts the declared one is refused.

mod common;

use common::ptx_sim;
use ptx_sim::{Arg, FindingKind, Launch, Mode, Simulator};
use std::path::PathBuf;

fn load(name: &str) -> Simulator {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sim")
        .join(name);
    Simulator::new(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A deterministic input and its histogram of 8 bins.
fn input(len: u32) -> (Vec<u8>, Vec<u32>) {
    let values: Vec<u32> = (0..len)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut bins = vec![0; 8];
    values.iter().for_each(|v| bins[*v as usize % 8] += 1);
    (values.iter().flat_map(|v| v.to_le_bytes()).collect(), bins)
}

fn histogram_launch(grid: u32, block: u32, len: u32, seed: u64) -> (Launch, Vec<u32>) {
    let (data, expected) = input(len);
    let mut launch = Launch::new(
        [grid, 1, 1],
        [block, 1, 1],
        vec![Arg::Buffer(data), Arg::U32(len), Arg::Buffer(vec![0; 32])],
    );
    launch.seed = seed;
    (launch, expected)
}

#[test]
fn the_nvcc_cluster_histogram_is_exact_with_no_finding() {
    let kernel = load("cluster_histogram.ptx")
        .kernel("cluster_histogram")
        .unwrap();
    assert_eq!(kernel.declared_cluster(), Some([2, 1, 1]));
    for (grid, block, seed) in [(2, 32, 1), (4, 16, 2), (6, 64, 3), (2, 5, 4)] {
        let (launch, expected) = histogram_launch(grid, block, 301, seed);
        let out = kernel.launch(&launch, Vec::new()).unwrap();
        assert!(out.findings.is_empty(), "grid {grid}: {:?}", out.findings);
        assert!(out.completed);
        assert_eq!(
            words(&out.buffers[1]),
            expected,
            "grid {grid} x block {block}"
        );
    }
}

#[test]
fn cta_scope_atomics_across_the_cluster_are_a_race_naming_cta_and_both_ctas() {
    let kernel = load("cluster_histogram.ptx")
        .kernel("cluster_histogram_cta_scope_bug")
        .unwrap();
    let (launch, _) = histogram_launch(2, 32, 301, 1);
    let out = kernel.launch(&launch, Vec::new()).unwrap();
    let race = out
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Race)
        .unwrap_or_else(|| panic!("no race: {:?}", out.findings));
    let text = &race.text;
    assert!(
        text.contains("strong (cta) write `red.relaxed.cta.add.u32`"),
        "{text}"
    );
    assert!(
        text.contains("a scope does not include the other thread"),
        "{text}"
    );
    // Threads of both CTAs of the cluster, named (block,thread).
    assert!(
        text.contains(" by (0,") && text.contains(" by (1,"),
        "{text}"
    );
    assert!(text.contains("of cluster rank"), "{text}");
}

#[test]
fn a_launch_shape_that_contradicts_the_declared_one_or_the_grid_is_refused() {
    let kernel = load("cluster_histogram.ptx")
        .kernel("cluster_histogram")
        .unwrap();
    let (mut launch, _) = histogram_launch(4, 32, 64, 1);
    launch.cluster = Some([4, 1, 1]);
    let e = kernel.launch(&launch, Vec::new()).unwrap_err().to_string();
    assert!(
        e.contains("declares clusters of [2, 1, 1]") && e.contains("[4, 1, 1]"),
        "{e}"
    );
    let (mut launch, _) = histogram_launch(3, 32, 64, 1);
    launch.cluster = None;
    let e = kernel.launch(&launch, Vec::new()).unwrap_err().to_string();
    assert!(e.contains("do not fit a grid of [3, 1, 1]"), "{e}");
}

#[test]
fn cluster_registers_of_a_2d_launch() {
    let kernel = load("cluster_misuse.ptx")
        .kernel("cluster_registers")
        .unwrap();
    let mut launch = Launch::new([4, 2, 1], [2, 1, 1], vec![Arg::Buffer(vec![0; 8 * 32])]);
    launch.cluster = Some([2, 2, 1]);
    let out = kernel.launch(&launch, Vec::new()).unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    let got = words(&out.buffers[0]);
    for (block, regs) in got.chunks(8).enumerate() {
        let (x, y) = (block as u32 % 4, block as u32 / 4);
        let expected = [x / 2, y / 2, x % 2, y % 2, (y % 2) * 2 + x % 2, 4, 2, 2];
        assert_eq!(regs, expected, "block ({x},{y})");
    }
}

fn finding(kernel: &str, grid: u32, cluster: u32) -> ptx_sim::Finding {
    let kernel = load("cluster_misuse.ptx").kernel(kernel).unwrap();
    let mut launch = Launch::new([grid, 1, 1], [32, 1, 1], Vec::new());
    launch.cluster = Some([cluster, 1, 1]);
    let out = kernel.launch(&launch, Vec::new()).unwrap();
    assert!(!out.completed);
    out.findings.last().cloned().expect("a finding")
}

fn launch_in_clusters(
    kernel: &str,
    block: u32,
    args: Vec<Arg>,
    mode: Mode,
    seed: u64,
) -> ptx_sim::Outcome {
    let kernel = load("cluster_misuse.ptx").kernel(kernel).unwrap();
    let mut launch = Launch::new([4, 1, 1], [block, 1, 1], args);
    launch.cluster = Some([2, 1, 1]);
    launch.mode = mode;
    launch.seed = seed;
    kernel.launch(&launch, Vec::new()).unwrap()
}

#[test]
fn the_cluster_barrier_waits_only_for_the_non_exited_threads() {
    // PTX: `barrier.cluster.wait` waits for all non-exited threads of the cluster. A CTA that
    // returns before the barrier, or after its arrive without waiting, holds nobody.
    for kernel in ["early_exit", "arrive_exit_early"] {
        for (mode, seed) in [
            (Mode::Random, 1),
            (Mode::Random, 7),
            (Mode::WarpLockstep, 0),
        ] {
            let out = launch_in_clusters(kernel, 64, Vec::new(), mode, seed);
            assert!(out.findings.is_empty(), "{kernel}: {:?}", out.findings);
            assert!(out.completed, "{kernel}");
        }
    }
}

#[test]
fn a_thread_that_waits_elsewhere_leaves_the_cluster_barrier_hung() {
    let out = launch_in_clusters("waits_elsewhere", 64, Vec::new(), Mode::Random, 1);
    assert!(!out.completed);
    let f = out.findings.last().expect("a finding");
    assert_eq!(f.kind, FindingKind::Hang, "{f}");
    assert!(f.text.contains("wait at barrier.cluster"), "{f}");
    assert!(
        f.text
            .contains("only 96 of the cluster's 128 non-exited threads"),
        "{f}"
    );
}

#[test]
fn a_shared_cta_access_to_another_ctas_window_is_a_fault() {
    // `.shared::cta` names the executing CTA's own window only.
    let out = launch_in_clusters("shared_cta_remote", 32, vec![Arg::U32(1)], Mode::Random, 1);
    let f = out.findings.last().expect("a finding");
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(
        f.text.contains("ld.shared::cta")
            && f.text.contains("another CTA's window")
            && f.text
                .contains("only .shared::cluster and generic accesses"),
        "{f}"
    );
    // Its own window through a mapa'd address, and another CTA's through `.shared::cluster`
    // or a generic address, are fine.
    for (kernel, delta) in [
        ("shared_cta_remote", 0),
        ("shared_cluster_remote", 1),
        ("generic_remote", 1),
    ] {
        let out = launch_in_clusters(kernel, 32, vec![Arg::U32(delta)], Mode::Random, 1);
        assert!(out.findings.is_empty(), "{kernel}: {:?}", out.findings);
        assert!(out.completed, "{kernel}");
    }
}

#[test]
fn a_cluster_arrive_waits_for_the_other_lanes_of_its_warp() {
    // Lane 0 arrives, then sets the flag lane 1 spins on before its own arrive: on a GPU the
    // arrive waits for lane 1, which never comes.
    for (mode, seed) in [
        (Mode::Random, 1),
        (Mode::Random, 5),
        (Mode::WarpLockstep, 0),
    ] {
        let out = launch_in_clusters(
            "arrive_then_release",
            32,
            vec![Arg::Buffer(vec![0; 4])],
            mode,
            seed,
        );
        assert!(!out.completed, "{mode:?}");
        let f = out.findings.last().expect("a finding");
        assert_eq!(f.kind, FindingKind::Hang, "{mode:?}: {f}");
        assert!(
            f.text
                .contains("waits at barrier.cluster.arrive for the other non-exited lanes"),
            "{mode:?}: {f}"
        );
    }
}

#[test]
fn mapa_out_of_range_and_a_wait_without_arrive_are_faults() {
    let f = finding("mapa_out_of_range", 4, 4);
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(
        f.text
            .contains("mapa to rank 4, but the cluster has 4 CTAs"),
        "{f}"
    );
    let f = finding("wait_without_arrive", 2, 2);
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(
        f.text
            .contains("barrier.cluster.wait without a barrier.cluster.arrive"),
        "{f}"
    );
}

#[test]
fn a_double_colon_state_space_is_not_a_label() {
    // `isspacep.shared::cta p, a;` at the start of a line once parsed as the label
    // `isspacep.shared` followed by `:cta`.
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.shared .align 4 .b8 w[4];\n\
        .visible .entry k(.param .u64 k_param_0)\n{\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [k_param_0];\n\tmov.u64 %rd2, w;\n\tcvta.shared.u64 %rd3, %rd2;\n\
        isspacep.shared::cta %p1, %rd3;\nisspacep.shared::cluster %p2, %rd1;\n\
        \tselp.u64 %rd2, 1, 0, %p1;\n\tselp.u64 %rd3, 2, 0, %p2;\n\tadd.u64 %rd2, %rd2, %rd3;\n\
        \tst.u64 [%rd1], %rd2;\n\tret;\n}\n";
    let kernel = Simulator::new(ptx).unwrap().kernel("k").unwrap();
    let out = kernel
        .launch(
            &Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 8])]),
            Vec::new(),
        )
        .unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    // Shared (bit 0), and the global buffer is not in the cluster's shared window (bit 1).
    assert_eq!(out.buffers[0], 1u64.to_le_bytes());
}

#[test]
fn the_command_takes_a_cluster_shape_and_reports_the_cta_race() {
    let file =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sim/cluster_histogram.ptx");
    let file = file.to_str().unwrap();
    let run = |kernel: &str, extra: &[&str]| {
        let base = [
            file,
            "--kernel",
            kernel,
            "--grid",
            "4",
            "--block",
            "32",
            "--arg",
            "buf:u32:64:3",
            "--arg",
            "u32:64",
            "--arg",
            "buf:u32:8",
        ];
        let (code, stdout, _) = ptx_sim(&[&base[..], extra].concat());
        (code, stdout)
    };
    // The declared shape, then the same given on the command line: exact, exit 0.
    for extra in [&[][..], &["--cluster", "2"][..]] {
        let (code, stdout) = run("cluster_histogram", extra);
        assert_eq!(code, 0, "{stdout}");
        assert!(stdout.contains("buffer 1: 0 0 0 64 0 0 0 0"), "{stdout}");
    }
    // A shape that contradicts the declared one: bad input, exit 2.
    let (code, _) = run("cluster_histogram", &["--cluster", "4"]);
    assert_eq!(code, 2);
    let (code, stdout) = run("cluster_histogram_cta_scope_bug", &[]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.starts_with("race: strong (cta)"), "{stdout}");
}
