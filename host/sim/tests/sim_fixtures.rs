//! The defects of the device-bugs issue, kept as PTX fixtures (`tests/fixtures/sim/`), each
//! reported by the simulator; and the `sim` command's contract (exit status, first line, JSON,
//! bad input). Needs no tools: the fixtures are checked in.

mod common;

use common::ptx_sim as sim;
use ptx_sim::{Arg, FindingKind, HostStatus, HostThread, Launch, Simulator};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sim")
        .join(name)
}

fn load(name: &str) -> Simulator {
    Simulator::new(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

#[test]
fn split_bar_sync_is_reported_as_divergence() {
    let k = load("split_bar_sync.ptx").kernel("split_barrier").unwrap();
    let out = k
        .launch(
            &Launch::new([1, 1, 1], [64, 1, 1], vec![Arg::Buffer(vec![0; 512])]),
            Vec::new(),
        )
        .unwrap();
    let f = out.findings.first().expect("a finding");
    assert_eq!(f.kind, FindingKind::Divergence, "{f}");
    assert!(f.text.starts_with("divergence: "), "{f}");
    // Both barrier instructions are named by their PTX lines (26 and 31 of the fixture).
    assert!(
        f.text.contains("PTX line 26") && f.text.contains("PTX line 31"),
        "{f}"
    );
}

#[test]
fn a_single_barrier_instruction_is_not_divergence() {
    // The same kernel with the barrier hoisted above the branch: one instruction for all.
    let text = std::fs::read_to_string(fixture("split_bar_sync.ptx"))
        .unwrap()
        .replace("\tsetp.lt.u32", "\tbar.sync 0;\n\tsetp.lt.u32")
        .replace("\tbar.sync \t0;\n", "");
    let k = Simulator::new(&text)
        .unwrap()
        .kernel("split_barrier")
        .unwrap();
    for seed in 0..3 {
        let mut l = Launch::new([1, 1, 1], [64, 1, 1], vec![Arg::Buffer(vec![0; 512])]);
        l.seed = seed;
        let out = k.launch(&l, Vec::new()).unwrap();
        assert!(out.findings.is_empty(), "{:?}", out.findings);
    }
}

#[test]
fn the_same_split_with_non_aligned_barriers_is_allowed() {
    // `barrier.sync` without `.aligned` may be reached at different instructions by a warp.
    let text = std::fs::read_to_string(fixture("split_bar_sync.ptx"))
        .unwrap()
        .replace("\tbar.sync \t0;", "\tbarrier.sync \t0;");
    let k = Simulator::new(&text)
        .unwrap()
        .kernel("split_barrier")
        .unwrap();
    let out = k
        .launch(
            &Launch::new([1, 1, 1], [64, 1, 1], vec![Arg::Buffer(vec![0; 512])]),
            Vec::new(),
        )
        .unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
}

#[test]
fn stale_token_mbarrier_wait_is_reported() {
    // `t0 = arrive(); t1 = arrive(); wait(t0)` with an expected count of 1: the second arrive
    // already breaks the rule that each phase is observed complete before the next arrive-on.
    let k = load("stale_token_mbarrier.ptx")
        .kernel("stale_token")
        .unwrap();
    let out = k
        .launch(&Launch::new([1, 1, 1], [1, 1, 1], Vec::new()), Vec::new())
        .unwrap();
    let f = out.findings.first().expect("a finding");
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(
        f.text
            .contains("no test_wait or try_wait has returned true for the completed phase 0"),
        "{f}"
    );
    // With each phase observed, the token two phases old is the fault.
    let out = mbarrier_kernel(
        1,
        "mbarrier.arrive.b64 %rd3, [%rd2];\n\tmbarrier.test_wait.b64 %p1, [%rd2], %rd3;\n\t\
         mbarrier.arrive.b64 %rd4, [%rd2];\n\tmbarrier.test_wait.b64 %p1, [%rd2], %rd4;\n\t\
         mbarrier.test_wait.b64 %p1, [%rd2], %rd3;",
    );
    let f = out.findings.first().expect("a finding");
    assert!(f.text.contains("older than the preceding phase"), "{f}");
}

/// Runs one thread of a kernel that initialises an mbarrier (generic address in `%rd2`) with
/// `count` and then runs `body` (registers `%p1`, `%rd3`..`%rd5`, `%r1`).
fn mbarrier_kernel(count: u32, body: &str) -> ptx_sim::Outcome {
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.shared .align 8 .b8 bar[8];\n\
         .visible .entry k()\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<6>;\n\t\
         mov.u64 %rd1, bar;\n\tcvta.shared.u64 %rd2, %rd1;\n\tmov.b32 %r1, {count};\n\t\
         mbarrier.init.b64 [%rd2], %r1;\n\t{body}\n\tret;\n}}\n"
    );
    let k = Simulator::new(&ptx).unwrap().kernel("k").unwrap();
    k.launch(&Launch::new([1, 1, 1], [1, 1, 1], Vec::new()), Vec::new())
        .unwrap()
}

#[test]
fn an_arrive_before_the_previous_phase_was_observed_complete_is_a_fault() {
    // PTX: for each phase, a test_wait or try_wait must return true before an arrive-on of the
    // next phase. `init(1); arrive(); arrive()` breaks it.
    let out = mbarrier_kernel(
        1,
        "mbarrier.arrive.b64 %rd3, [%rd2];\n\tmbarrier.arrive.b64 %rd4, [%rd2];",
    );
    let f = out.findings.first().expect("a finding");
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(
        f.text.contains("mbarrier arrive in phase 1")
            && f.text
                .contains("no test_wait or try_wait has returned true"),
        "{f}"
    );
    // A wait that returned false does not count; one that returned true (by token or by
    // parity, test_wait or try_wait) does.
    // (The parity of phase 1, still in progress, tests false.)
    let out = mbarrier_kernel(
        1,
        "mbarrier.arrive.b64 %rd3, [%rd2];\n\tmbarrier.test_wait.parity.b64 %p1, [%rd2], 1;\n\t\
         mbarrier.arrive.b64 %rd4, [%rd2];",
    );
    assert!(
        out.findings
            .first()
            .is_some_and(|f| f.text.contains("mbarrier arrive in phase 1")),
        "{:?}",
        out.findings
    );
    for wait in [
        "mbarrier.test_wait.b64 %p1, [%rd2], %rd3;",
        "mbarrier.try_wait.b64 %p1, [%rd2], %rd3;",
        "mbarrier.test_wait.parity.b64 %p1, [%rd2], 0;",
    ] {
        let out = mbarrier_kernel(
            1,
            &format!(
                "mbarrier.arrive.b64 %rd3, [%rd2];\n\t{wait}\n\tmbarrier.arrive.b64 %rd4, [%rd2];"
            ),
        );
        assert!(out.findings.is_empty(), "{wait}: {:?}", out.findings);
        assert!(out.completed);
    }
}

/// One thread: `mbarrier.init`, `arrive` and `test_wait` of the given state-space qualifier
/// (`""` for the generic forms) on the address in `%rd2` after `setup` (`%rd1` holds the shared
/// address of the object).
fn mbarrier_in_space(space: &str, setup: &str) -> ptx_sim::Outcome {
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.shared .align 8 .b8 bar[8];\n\
         .visible .entry k()\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<6>;\n\t\
         mov.u64 %rd1, bar;\n\t{setup}\n\tmov.b32 %r1, 1;\n\t\
         mbarrier.init{space}.b64 [%rd2], %r1;\n\t\
         mbarrier.arrive{space}.b64 %rd3, [%rd2];\n\t\
         mbarrier.test_wait{space}.b64 %p1, [%rd2], %rd3;\n\tret;\n}}\n"
    );
    let k = Simulator::new(&ptx).unwrap().kernel("k").unwrap();
    k.launch(&Launch::new([1, 1, 1], [1, 1, 1], Vec::new()), Vec::new())
        .unwrap()
}

/// Issue 29 (state spaces), checked from outside: an `mbarrier` instruction reads its address in
/// the state space it names, as `ld`/`st` do. The generic forms given a `.shared` address (a
/// missing `cvta.shared`) and the `.shared` forms given a generic address (a `cvta` too many)
/// address no mbarrier on a GPU; the simulator ran both as if the address were right.
#[test]
fn an_mbarrier_address_of_the_wrong_state_space_is_a_fault() {
    let generic = "cvta.shared.u64 %rd2, %rd1;";
    let shared = "mov.u64 %rd2, %rd1;";
    for (space, setup) in [("", generic), (".shared", shared), (".shared::cta", shared)] {
        let out = mbarrier_in_space(space, setup);
        assert!(
            out.findings.is_empty() && out.completed,
            "mbarrier{space} on its own space: {:?}",
            out.findings
        );
    }
    for (space, setup) in [
        ("", shared),
        (".shared", generic),
        (".shared::cta", generic),
    ] {
        let out = mbarrier_in_space(space, setup);
        let f = out.findings.first().unwrap_or_else(|| {
            panic!("mbarrier{space}.init on an address of the other space ran clean")
        });
        assert_eq!(f.kind, FindingKind::Fault, "{f}");
        assert!(f.text.contains("mbarrier.init"), "{f}");
    }
}

#[test]
fn an_arrive_drop_to_an_expected_count_of_zero_and_an_excess_arrival_are_faults() {
    let out = mbarrier_kernel(1, "mbarrier.arrive_drop.b64 %rd3, [%rd2];");
    let f = out.findings.first().expect("a finding");
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(f.text.contains("takes the expected count to 0"), "{f}");
    // Dropping one of two participants is fine.
    let out = mbarrier_kernel(2, "mbarrier.arrive_drop.b64 %rd3, [%rd2];");
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    let out = mbarrier_kernel(1, "mbarrier.arrive.b64 %rd3, [%rd2], 2;");
    let f = out.findings.first().expect("a finding");
    assert!(f.text.contains("an excess arrival is undefined"), "{f}");
}

/// A host thread that, like the host `wait` of the device-bugs issue, spins a little and then
/// parks on a condition variable nobody on the device can signal.
fn parking_waiter(flag: usize) -> HostThread {
    let mut spins = 0;
    HostThread::new(move |ctx| {
        let addr = ctx.buffer(flag);
        if ctx.load_u32(addr, Ordering::Acquire) != 0 {
            return HostStatus::Done;
        }
        spins += 1;
        if spins < 4 {
            HostStatus::Continue
        } else {
            HostStatus::Parked
        }
    })
}

/// A host thread that polls until the flag is up, then reads the data into `got`.
fn polling_waiter(got: std::sync::Arc<std::sync::atomic::AtomicU32>) -> HostThread {
    HostThread::new(move |ctx| {
        let (data, flag) = (ctx.buffer(0), ctx.buffer(1));
        if ctx.load_u32(flag, Ordering::Acquire) == 0 {
            return HostStatus::Continue;
        }
        got.store(ctx.read_u32(data), Ordering::Relaxed);
        HostStatus::Done
    })
}

fn publish_launch(seed: u64) -> Launch {
    let mut l = Launch::new([1, 1, 1], [1, 1, 1], vec![Arg::Ptr(0, 0), Arg::Ptr(1, 0)]);
    l.buffers = vec![vec![0; 4], vec![0; 4]];
    l.seed = seed;
    l
}

#[test]
fn host_waiter_parked_on_a_device_release_is_a_hang() {
    let k = load("device_release.ptx").kernel("publish").unwrap();
    // Some schedule lets the host give up spinning before the device publishes.
    let hung = (0..20).any(|seed| {
        let out = k
            .launch(&publish_launch(seed), vec![parking_waiter(1)])
            .unwrap();
        out.findings
            .first()
            .is_some_and(|f| f.kind == FindingKind::Hang && f.text.contains("host thread 0"))
    });
    assert!(hung, "no schedule reported the parked host waiter");
}

#[test]
fn host_waiter_that_polls_sees_the_device_release() {
    let k = load("device_release.ptx").kernel("publish").unwrap();
    for seed in 0..10 {
        let got = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let out = k
            .launch(&publish_launch(seed), vec![polling_waiter(got.clone())])
            .unwrap();
        assert!(out.findings.is_empty(), "seed {seed}: {:?}", out.findings);
        assert_eq!(got.load(Ordering::Relaxed), 42);
    }
}

#[test]
fn host_read_without_acquire_races_with_the_device_write() {
    // The host reads `data` after seeing the flag with a relaxed load: no synchronisation.
    let k = load("device_release.ptx").kernel("publish").unwrap();
    let racy = HostThread::new(|ctx| {
        if ctx.load_u32(ctx.buffer(1), Ordering::Relaxed) == 0 {
            return HostStatus::Continue;
        }
        ctx.read_u32(ctx.buffer(0));
        HostStatus::Done
    });
    let out = k.launch(&publish_launch(1), vec![racy]).unwrap();
    let f = out.findings.first().expect("a race");
    assert_eq!(f.kind, FindingKind::Race, "{f}");
    assert!(
        f.text.contains("host thread 0") && f.text.contains("(0,0)"),
        "{f}"
    );
}

// The command line.

fn path(name: &str) -> String {
    fixture(name).to_string_lossy().into_owned()
}

#[test]
fn cli_finding_exits_1_with_the_finding_first() {
    let (code, out, _) = sim(&[
        &path("split_bar_sync.ptx"),
        "--kernel",
        "split_barrier",
        "--grid",
        "1",
        "--block",
        "32,1,1",
        "--arg",
        "buf:u32:128",
        "--seed",
        "7",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("divergence: "), "{out}");
    assert!(out.contains("seed 7"), "{out}");
    let (code, out, _) = sim(&[
        &path("split_bar_sync.ptx"),
        "--kernel",
        "split_barrier",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "buf:u32:128",
        "--json",
    ]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(
        v["findings"][0]
            .as_str()
            .unwrap()
            .starts_with("divergence: "),
        "{v}"
    );
    assert_eq!(v["buffers"][0].as_array().unwrap().len(), 128);
}

#[test]
fn cli_clean_run_exits_0_and_json_has_buffers_and_findings() {
    let p = path("device_release.ptx");
    let base = [
        p.as_str(),
        "--kernel",
        "publish",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "buf:u32:2:5",
        "--arg",
        "buf:u64:1",
    ];
    let (code, out, err) = sim(&base);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("seed 1"), "{out}");
    let mut json = base.to_vec();
    json.push("--json");
    let (code, out, err) = sim(&json);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["buffers"], serde_json::json!([[42, 5], [1]]));
    assert_eq!(v["findings"], serde_json::json!([]));
}

#[test]
fn cli_bad_input_exits_2_naming_the_problem() {
    let p = path("device_release.ptx");
    let run = |extra: &[&str]| {
        let mut a = vec![p.as_str(), "--grid", "1", "--block", "1"];
        a.extend_from_slice(extra);
        sim(&a)
    };
    let two_bufs = ["--arg", "buf:u32:1", "--arg", "buf:u32:1"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            [&["--kernel", "nope"][..], &two_bufs].concat(),
            "no kernel named `nope`",
        ),
        (
            vec!["--kernel", "publish", "--arg", "buf:u32:1"],
            "2 parameters, 1 arguments",
        ),
        (
            vec![
                "--kernel",
                "publish",
                "--arg",
                "u32:1",
                "--arg",
                "buf:u32:1",
            ],
            "a 4-byte value for a 8-byte parameter",
        ),
        (
            [&["--kernel", "publish", "--arg", "i9:3"][..], &two_bufs].concat(),
            "argument `i9:3`",
        ),
    ];
    for (extra, want) in cases {
        let (code, out, err) = run(&extra);
        assert_eq!(code, 2, "{extra:?}: {out}{err}");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, _, err) = sim(&[
        "/nonexistent.ptx",
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read /nonexistent.ptx"), "{err}");
}

#[test]
fn cli_small_parameters_take_u32_values_that_fit() {
    // A kernel with a `.u8` parameter stored to the buffer.
    let text = std::fs::read_to_string(fixture("device_release.ptx"))
        .unwrap()
        .replace(
            "\t.param .u64 .ptr .align 1 publish_param_1\n",
            "\t.param .u64 .ptr .align 1 publish_param_1,\n\t.param .u8 publish_param_2\n",
        )
        .replace(
            "\tmov.b32 \t%r1, 42;",
            "\tld.param.u8 \t%r1, [publish_param_2];",
        );
    let dir = std::env::temp_dir().join(format!("sim-u8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("u8.ptx");
    std::fs::write(&file, text).unwrap();
    let f = file.to_string_lossy().into_owned();
    let run = |v: &str| {
        sim(&[
            &f,
            "--kernel",
            "publish",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "buf:u32:1",
            "--arg",
            "buf:u32:1",
            "--arg",
            v,
            "--json",
        ])
    };
    let (code, out, err) = run("u32:200");
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["buffers"][0], serde_json::json!([200]));
    let (code, _, err) = run("u32:300");
    assert_eq!(code, 2);
    assert!(err.contains("300 does not fit"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cli_unsupported_instruction_exits_2_naming_it_and_its_line() {
    let text = std::fs::read_to_string(fixture("device_release.ptx"))
        .unwrap()
        .replace("\tnanosleep.u32 \t1000;", "\tpmevent 7;");
    let dir = std::env::temp_dir().join(format!("sim-unsupported-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cp_async.ptx");
    std::fs::write(&file, text).unwrap();
    let f = file.to_string_lossy().into_owned();
    let (code, out, err) = sim(&[
        &f,
        "--kernel",
        "publish",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "buf:u32:1",
        "--arg",
        "buf:u32:1",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("pmevent") && err.contains("PTX line 28"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Runs `setp_all` of the fixture on operands `a`, `b`: the 12 comparison results.
fn setp_all(a: f32, b: f32) -> Vec<bool> {
    let mut buffer = [a.to_bits(), b.to_bits()].map(u32::to_le_bytes).concat();
    buffer.extend([0; 48]);
    let out = load("setp_unordered.ptx")
        .kernel("setp_all")
        .unwrap()
        .launch(
            &Launch::new([1, 1, 1], [1, 1, 1], vec![Arg::Buffer(buffer)]),
            Vec::new(),
        )
        .unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    out.buffers[0][8..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()) == 1)
        .collect()
}

#[test]
fn unordered_setp_comparisons_are_true_on_nan_and_ordered_ones_false() {
    for (a, b) in [
        (f32::NAN, 1.0),
        (1.0, f32::NAN),
        (f32::NAN, f32::NAN),
        (1.0, 2.0),
        (2.0, 1.0),
        (-0.0, 0.0),
        (f32::INFINITY, 3.5),
    ] {
        // The ordered comparisons hold for these orders of (a, b); the unordered ones also
        // when a and b are unordered (a NaN).
        use std::cmp::Ordering::{Equal, Greater, Less};
        let order = a.partial_cmp(&b);
        let ordered = [
            &[Equal][..],
            &[Less, Greater],
            &[Less],
            &[Less, Equal],
            &[Greater],
            &[Greater, Equal],
        ]
        .map(|holds| order.is_some_and(|o| holds.contains(&o)));
        let unordered = ordered.map(|x| x || order.is_none());
        let expected = [ordered, unordered].concat();
        assert_eq!(setp_all(a, b), expected, "operands {a}, {b}");
    }
    // The difference the unordered forms make, spelled out for a NaN operand.
    let nan = setp_all(f32::NAN, 1.0);
    assert!(nan[..6].iter().all(|&x| !x), "ordered: all false {nan:?}");
    assert!(nan[6..].iter().all(|&x| x), "unordered: all true {nan:?}");
}
