//! Every example and primitive kernel of `gpu-kernels` run by the PTX simulator at realistic
//! sizes (histogram 8×256 over 100 000 values, the grid barrier over all 8 blocks, the ring
//! with a host consumer thread, barriers, latches and semaphores with 256 threads), at every
//! configuration: exact results and no findings; the block-scope twin of message passing
//! reported as a scope race. With a CUDA driver the examples also run on the GPU and the three
//! results (host, simulator, GPU) are compared; without one that step says it was skipped.

mod sim_support;

use scoped_atomics_host::ptx::Target;
use scoped_atomics_host::sim::corpus;
use scoped_atomics_host::sim::{Arg, FindingKind, Launch};
use scoped_atomics_host::{examples, gpu};
use sim_support::{bytes, simulator, words};

#[test]
fn every_example_and_primitive_kernel_runs_exactly_without_findings() {
    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    for (i, target) in Target::ALL.into_iter().enumerate() {
        let Some(sim) = simulator("sim_kernels", target) else {
            return;
        };
        for (name, result) in corpus::run_all(&sim, 11 + i as u64) {
            match result {
                Ok(s) => println!("{target} ok   {name}: {s}"),
                Err(e) => {
                    println!("{target} FAIL {name}: {e}");
                    failures.push(format!("{target} {name}: {e}"));
                }
            }
        }
    }
    println!("sim_kernels: {:.1} s", started.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn block_scope_message_passing_is_a_scope_race_naming_both_threads() {
    let Some(sim) = simulator("sim_kernels", Target::Sm80) else {
        return;
    };
    let k = sim.kernel("message_passing_block_scope_bug").unwrap();
    for seed in 0..4 {
        let mut l = Launch::new(
            [2, 1, 1],
            [64, 1, 1],
            vec![Arg::Ptr(0, 0), Arg::Ptr(0, 4), Arg::Ptr(0, 8)],
        );
        l.buffers = vec![vec![0; 12]];
        l.seed = seed;
        let out = k.launch(&l, Vec::new()).unwrap();
        let f = out.findings.first().expect("a race");
        assert_eq!(f.kind, FindingKind::Race, "{f}");
        assert!(f.text.starts_with("race: "), "{f}");
        assert!(f.text.contains("(0,0)") && f.text.contains("(1,0)"), "{f}");
        assert!(f.text.contains("(cta)"), "the block scope is named: {f}");
        // The correct kernel, same launch: nothing.
        let ok = sim
            .kernel("message_passing")
            .unwrap()
            .launch(&l, Vec::new())
            .unwrap();
        assert!(ok.findings.is_empty(), "{:?}", ok.findings);
    }
}

#[test]
fn three_way_comparison_on_the_gpu_or_skipped() {
    let Some(ptx) = sim_support::ptx("sim_kernels", Target::Sm70) else {
        return;
    };
    let input = examples::histogram_input(10_007, 11);
    let expected = examples::histogram_expected(&input);
    // Host backend.
    examples::histogram(3, 64, 10_007).unwrap();
    // Simulator.
    let sim = scoped_atomics_host::sim::Simulator::new(&ptx).unwrap();
    let l = Launch::new(
        [3, 1, 1],
        [64, 1, 1],
        vec![
            Arg::Buffer(bytes(&input)),
            Arg::U64(input.len() as u64),
            Arg::Buffer(vec![0; 64]),
        ],
    );
    let out = sim
        .kernel("histogram")
        .unwrap()
        .launch(&l, Vec::new())
        .unwrap();
    assert_eq!(words(&out.buffers[1]), expected);
    // GPU.
    match gpu::run_examples(&ptx, &input, &expected) {
        gpu::GpuRun::Skipped(why) => {
            println!("GPU comparison: {why}");
            assert!(!gpu::driver_present() || why.contains("unusable"));
        }
        gpu::GpuRun::Ran(checks) => {
            for (name, r) in checks {
                assert!(r.is_ok(), "GPU {name}: {r:?}");
            }
        }
    }
}
