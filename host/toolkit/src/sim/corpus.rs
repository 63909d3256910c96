//! The project's example and primitive kernels run in the simulator at realistic sizes, each
//! checked for its exact result and for findings: used by the `demo` command (one line per
//! kernel) and the `sim_kernels` test.

use super::{Arg, FindingKind, HostThread, Launch, Mode, Outcome, Simulator};
use crate::examples::{histogram_expected, histogram_input};
use gpu_kernels::kernels::{BINS, RING_SLOTS};
use scoped_atomics::{Barrier, Block, CountingSemaphore, Device, Latch};

/// The bytes of a host-built object, to be placed in a simulated buffer.
///
/// ```
/// use scoped_atomics::{Device, Latch};
/// use scoped_atomics_host::sim::corpus::bytes_of;
/// assert_eq!(bytes_of(&Latch::<Device>::new(3)), 3u32.to_le_bytes());
/// ```
pub fn bytes_of<T>(value: &T) -> Vec<u8> {
    // SAFETY: reads `size_of::<T>()` initialised bytes of a live value (the types used here have
    // no padding: atomics, integers and a function pointer).
    unsafe { std::slice::from_raw_parts((value as *const T).cast::<u8>(), size_of::<T>()).to_vec() }
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u32_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A host-built `Barrier<S>` for the device: a host code address inside it (the completion
/// function pointer, if the type has one) is replaced by the device's own no-op completion,
/// as a barrier built on the device would hold.
fn device_barrier<S: scoped_atomics::PlainScope>(sim: &Simulator, expected: u32) -> Vec<u8> {
    let (a, b) = (
        bytes_of(&Barrier::<S>::new(expected)),
        bytes_of(&Barrier::<S>::new(expected + 1)),
    );
    let mut out = a.clone();
    let device_nothing = sim
        .functions()
        .find(|f| f.contains("7Barrier") && f.ends_with("7nothing"))
        .and_then(|f| sim.function_address(f));
    for (i, (x, y)) in a.chunks_exact(8).zip(b.chunks_exact(8)).enumerate() {
        let word = u64::from_le_bytes(x.try_into().unwrap());
        // The same non-small word whatever the count: a code address.
        if x == y
            && word > 1 << 32
            && let Some(f) = device_nothing
        {
            out[i * 8..i * 8 + 8].copy_from_slice(&f.to_le_bytes());
        }
    }
    out
}

/// How one corpus kernel went: a one-line summary, or what was wrong.
pub type Check = (String, Result<String, String>);

fn run(
    sim: &Simulator,
    kernel: &str,
    launch: &Launch,
    hosts: Vec<HostThread>,
) -> Result<Outcome, String> {
    let k = sim.kernel(kernel).map_err(|e| e.to_string())?;
    k.launch(launch, hosts).map_err(|e| e.to_string())
}

fn clean(out: &Outcome) -> Result<(), String> {
    match out.findings.first() {
        Some(f) => Err(format!("{f} (seed {})", out.seed)),
        None if !out.completed => Err(format!("did not complete (seed {})", out.seed)),
        None => Ok(()),
    }
}

fn summary(out: &Outcome, what: &str) -> String {
    format!(
        "{what}; {} PTX instructions, no findings (seed {})",
        out.instructions, out.seed
    )
}

fn histogram(sim: &Simulator, seed: u64, mode: Mode) -> Result<String, String> {
    let len = 100_000;
    let input = histogram_input(len, 0x9e37_79b9 ^ len as u32);
    let mut l = Launch::new(
        [8, 1, 1],
        [256, 1, 1],
        vec![
            Arg::Buffer(u32_bytes(&input)),
            Arg::U64(len as u64),
            Arg::Buffer(vec![0; BINS * 4]),
        ],
    );
    l.seed = seed;
    l.mode = mode;
    let out = run(sim, "histogram", &l, Vec::new())?;
    clean(&out)?;
    let bins = u32s(&out.buffers[1]);
    if bins != histogram_expected(&input) {
        return Err(format!(
            "bins {bins:?}, expected {:?}",
            histogram_expected(&input)
        ));
    }
    Ok(summary(&out, "bins exact"))
}

fn message_passing(sim: &Simulator, kernel: &str, seed: u64) -> Result<Outcome, String> {
    let mut l = Launch::new(
        [2, 1, 1],
        [64, 1, 1],
        vec![Arg::Ptr(0, 0), Arg::Ptr(0, 4), Arg::Ptr(0, 8)],
    );
    l.buffers = vec![vec![0; 12]];
    l.seed = seed;
    run(sim, kernel, &l, Vec::new())
}

fn grid_barrier(sim: &Simulator, seed: u64) -> Result<String, String> {
    let (grid, block, phases) = (8u32, 64u32, 3u32);
    let n = (grid * block) as usize;
    let mut l = Launch::new(
        [grid, 1, 1],
        [block, 1, 1],
        vec![
            Arg::Buffer(device_barrier::<Device>(sim, n as u32)),
            Arg::Buffer(vec![0; n * 4]),
            Arg::Buffer(vec![0; n * 4]),
            Arg::U32(phases),
        ],
    );
    l.seed = seed;
    let out = run(sim, "grid_barrier", &l, Vec::new())?;
    clean(&out)?;
    let expected: Vec<u32> = (0..n)
        .map(|i| (0..phases).map(|p| p * 1000 + ((i + 1) % n) as u32).sum())
        .collect();
    if u32s(&out.buffers[2]) != expected {
        return Err("sums differ from the expected neighbour sums".into());
    }
    Ok(summary(&out, "sums exact"))
}

/// The host↔device ring with the host's side written once for every runner
/// ([`mapped_ring`](crate::examples::mapped_ring)): the device pushes, a host thread pops.
fn ring(sim: &Simulator, seed: u64) -> Result<String, String> {
    let count = 10 * RING_SLOTS as u32 + 3;
    let (out, got) = crate::examples::mapped_ring::in_simulator(sim, 100, count, seed)
        .map_err(|e| e.to_string())?;
    clean(&out)?;
    if got != (100..100 + count).collect::<Vec<_>>() {
        return Err(format!("the host received {got:?}"));
    }
    Ok(summary(&out, &format!("{count} values received in order")))
}

/// A primitive kernel over one object: its bytes and the launch.
fn primitive(
    sim: &Simulator,
    kernel: &str,
    object: Vec<u8>,
    (grid, cluster): (u32, u32),
    block: u32,
    seed: u64,
) -> Result<(Outcome, Vec<u8>), String> {
    let mut l = Launch::new([grid, 1, 1], [block, 1, 1], vec![Arg::Ptr(0, 0)]);
    l.cluster = Some([cluster, 1, 1]);
    l.buffers = vec![object];
    l.seed = seed;
    let out = run(sim, kernel, &l, Vec::new())?;
    clean(&out)?;
    let after = out.buffers[0].clone();
    Ok((out, after))
}

/// Every corpus kernel of `sim` (a `gpu-kernels` module), each with its exact check.
///
/// ```
/// use scoped_atomics_host::sim::{EXAMPLE_PTX, Simulator, corpus};
/// // A module without the project's kernels: every check says what is missing.
/// let checks = corpus::run_all(&Simulator::new(EXAMPLE_PTX).unwrap(), 1);
/// assert!(checks[0].1.as_ref().unwrap_err().contains("no kernel named `histogram`"));
/// ```
pub fn run_all(sim: &Simulator, seed: u64) -> Vec<Check> {
    let mut checks: Vec<Check> = Vec::new();
    let mut add = |name: &str, r: Result<String, String>| checks.push((name.to_string(), r));
    add(
        "histogram 8x256, 100000 values",
        histogram(sim, seed, Mode::Random),
    );
    add(
        "histogram 8x256, 100000 values, warp lockstep",
        histogram(sim, seed, Mode::WarpLockstep),
    );
    add(
        "message passing 2x64",
        message_passing(sim, "message_passing", seed).and_then(|out| {
            clean(&out)?;
            match u32s(&out.buffers[0])[..] {
                [42, 1, 42] => Ok(summary(&out, "result 42")),
                ref other => Err(format!("(data, flag, result) = {other:?}")),
            }
        }),
    );
    add(
        "message passing, block-scope flag (the bug), 2x64",
        message_passing(sim, "message_passing_block_scope_bug", seed).and_then(|out| {
            match out.findings.first() {
                Some(f) if f.kind == FindingKind::Race => Ok(format!("reported: {f}")),
                Some(f) => Err(format!("expected a scope race, got {f}")),
                None => Err("the scope race was not reported".into()),
            }
        }),
    );
    add(
        "grid barrier 8x64 (all blocks resident), 3 phases",
        grid_barrier(sim, seed),
    );
    add("host<->device ring, host consumer thread", ring(sim, seed));
    let n = 256;
    let prims: [(&str, Vec<u8>, u32, u32); 8] = [
        (
            "sync_barrier_arrive_wait_block",
            device_barrier::<Block>(sim, n),
            1,
            n,
        ),
        (
            "sync_barrier_arrive_wait_device",
            device_barrier::<Device>(sim, n),
            4,
            n / 4,
        ),
        (
            "sync_barrier_arrive_drop_device",
            device_barrier::<Device>(sim, n),
            2,
            n / 2,
        ),
        (
            "sync_latch_arrive_wait_block",
            bytes_of(&Latch::<Block>::new(n)),
            1,
            n,
        ),
        (
            "sync_latch_arrive_wait_device",
            bytes_of(&Latch::<Device>::new(n)),
            4,
            n / 4,
        ),
        (
            "sync_semaphore_acquire_release_block",
            bytes_of(&CountingSemaphore::<Block, 4>::new(4)),
            1,
            n,
        ),
        (
            "sync_semaphore_acquire_release_device",
            bytes_of(&CountingSemaphore::<Device, 4>::new(4)),
            4,
            n / 4,
        ),
        (
            "sync_semaphore_try_acquire_for_device",
            bytes_of(&CountingSemaphore::<Device, 4>::new(4)),
            2,
            n / 2,
        ),
    ];
    for (kernel, object, grid, block) in prims {
        let before = object.clone();
        let r = primitive(sim, kernel, object, (grid, 1), block, seed).and_then(|(out, after)| {
            // Semaphores end with their initial count; latches at 0.
            let check = if kernel.contains("semaphore") {
                after == before
            } else if kernel.contains("latch") {
                u32s(&after)[0] == 0
            } else {
                true
            };
            if check {
                Ok(summary(&out, "final state exact"))
            } else {
                Err(format!("final state {:?}", u32s(&after)))
            }
        });
        add(&format!("{kernel} {grid}x{block}"), r);
    }
    let shared = Launch {
        seed,
        ..Launch::new([2, 1, 1], [256, 1, 1], Vec::new())
    };
    add(
        "sync_barrier_shared_block 2x256",
        run(sim, "sync_barrier_shared_block", &shared, Vec::new())
            .and_then(|out| clean(&out).map(|()| summary(&out, "completed"))),
    );
    if sim.target().starts_with("sm_90") {
        for (name, result) in cluster_checks(sim, seed) {
            add(&name, result);
        }
    }
    checks
}

/// The cluster-scope kernels of an sm_90 module in cluster launches: the cluster exchange in
/// distributed shared memory (a `Barrier<Cluster>` in rank 0's shared memory, plain slots read by
/// the next block, `fence::<Cluster>`) in clusters of 2 and 4, and `Barrier<Cluster>`,
/// `Latch<Cluster>` and `CountingSemaphore<Cluster, 4>` in global memory used by the 4 blocks of
/// one cluster.
fn cluster_checks(sim: &Simulator, seed: u64) -> Vec<Check> {
    use scoped_atomics::Cluster;
    let mut checks = Vec::new();
    for (grid, cluster, block) in [(4, 2, 64), (4, 4, 32)] {
        let threads = (grid * block) as usize;
        let mut l = Launch::new(
            [grid, 1, 1],
            [block, 1, 1],
            vec![Arg::Buffer(vec![0; 8 * threads])],
        );
        l.cluster = Some([cluster, 1, 1]);
        l.seed = seed;
        let r = run(sim, "cluster_exchange", &l, Vec::new()).and_then(|out| {
            clean(&out)?;
            let got = u32s(&out.buffers[0]);
            let expected: Vec<u32> = (0..threads as u32)
                .flat_map(|g| {
                    let (b, t) = (g / block, g % block);
                    let next = (b % cluster + 1) % cluster;
                    [1000 * next + t, 1000 * next + t + 1]
                })
                .collect();
            if got == expected {
                Ok(summary(
                    &out,
                    "every block read the next block's two phases",
                ))
            } else {
                Err(format!(
                    "read {:?}…, expected {:?}…",
                    &got[..8],
                    &expected[..8]
                ))
            }
        });
        checks.push((
            format!("cluster_exchange {grid}x{block} in clusters of {cluster}"),
            r,
        ));
    }
    let n = 4 * 32;
    let prims: [(&str, Vec<u8>); 3] = [
        (
            "sync_barrier_arrive_wait_cluster",
            device_barrier::<Cluster>(sim, n),
        ),
        (
            "sync_latch_arrive_wait_cluster",
            bytes_of(&Latch::<Cluster>::new(n)),
        ),
        (
            "sync_semaphore_acquire_release_cluster",
            bytes_of(&CountingSemaphore::<Cluster, 4>::new(4)),
        ),
    ];
    for (kernel, object) in prims {
        let before = object.clone();
        let r = primitive(sim, kernel, object, (4, 4), 32, seed).and_then(|(out, after)| {
            let exact = if kernel.contains("semaphore") {
                after == before
            } else if kernel.contains("latch") {
                u32s(&after)[0] == 0
            } else {
                true
            };
            if exact {
                Ok(summary(&out, "final state exact"))
            } else {
                Err(format!("final state {:?}", u32s(&after)))
            }
        });
        checks.push((format!("{kernel} 4x32 in one cluster of 4"), r));
    }
    checks
}

/// The `demo` command's simulator step: the corpus at every configuration given (name,
/// simulator), one line per kernel (its summary at the first configuration, and every
/// configuration's verdict); false if any check failed.
///
/// ```
/// use scoped_atomics_host::sim::{EXAMPLE_PTX, Simulator, corpus};
/// let (lines, ok) = corpus::demo_lines(&[("toy".into(), Simulator::new(EXAMPLE_PTX).unwrap())], 1);
/// assert!(!ok && lines[0].starts_with("FAILED  histogram"));
/// ```
pub fn demo_lines(sims: &[(String, Simulator)], seed: u64) -> (Vec<String>, bool) {
    let runs: Vec<(String, Vec<Check>)> = sims
        .iter()
        .map(|(name, sim)| (name.clone(), run_all(sim, seed)))
        .collect();
    let Some((_, first)) = runs.first() else {
        return (vec!["no PTX to simulate".into()], false);
    };
    let mut ok = true;
    let mut lines = Vec::new();
    for (i, (kernel, result)) in first.iter().enumerate() {
        let failures: Vec<String> = runs
            .iter()
            .filter_map(|(target, checks)| match &checks[i].1 {
                Err(e) => Some(format!("{target}: {e}")),
                Ok(_) => None,
            })
            .collect();
        let targets: Vec<&str> = runs.iter().map(|(t, _)| t.as_str()).collect();
        if failures.is_empty() {
            let s = result.as_ref().map(String::as_str).unwrap_or("");
            lines.push(format!("ok      {kernel} [{}]: {s}", targets.join(", ")));
        } else {
            ok = false;
            lines.push(format!("FAILED  {kernel}: {}", failures.join("; ")));
        }
    }
    // Checks that only some configurations have (the cluster kernels of sm_90), in order.
    let mut extra: Vec<(&str, Vec<&str>, Vec<String>, &str)> = Vec::new();
    for (target, checks) in &runs {
        for (kernel, result) in checks.iter().skip(first.len()) {
            let at = match extra.iter().position(|(k, ..)| k == kernel) {
                Some(at) => at,
                None => {
                    let summary = result.as_ref().map(String::as_str).unwrap_or("");
                    extra.push((kernel, Vec::new(), Vec::new(), summary));
                    extra.len() - 1
                }
            };
            extra[at].1.push(target);
            if let Err(e) = result {
                extra[at].2.push(format!("{target}: {e}"));
            }
        }
    }
    for (kernel, targets, failures, summary) in extra {
        if failures.is_empty() {
            lines.push(format!(
                "ok      {kernel} [{}]: {summary}",
                targets.join(", ")
            ));
        } else {
            ok = false;
            lines.push(format!("FAILED  {kernel}: {}", failures.join("; ")));
        }
    }
    (lines, ok)
}
