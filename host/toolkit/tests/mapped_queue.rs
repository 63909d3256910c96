//! The guide's host↔device queue (`guide::host_device_queue`): `gpu-kernels`' `ring_producer`
//! pushing into a bounded ring in a `MappedSlice` while the host pops with one piece of host
//! code (`examples::mapped_ring::Consumer::step`), on host threads and in the simulator (the
//! kernel crate built to PTX); the same host code with a too weak ordering reported as a race
//! by the simulator; and the guide page shows the code that runs here.

use scoped_atomics::Ordering::{Acquire, Relaxed, Release};
use scoped_atomics_host::examples::mapped_ring::{self, Consumer, HEAD, SLOTS, TAIL, WORDS};
use scoped_atomics_host::mapped::{MappedAccess, MappedSlice};
use scoped_atomics_host::ptx::{Error, Target, Toolchain, build_ptx};
use scoped_atomics_host::sim::{Arg, FindingKind, HostStatus, Launch, Simulator};
use std::time::Duration;

const COUNT: u32 = 83; // more than ten times the ring's slots: both sides run together
/// In the simulator (a debug build simulates slowly): more than three times the slots.
const SIM_COUNT: u32 = 27;

#[test]
fn the_host_pops_every_value_in_order_while_the_kernel_runs_on_host_threads() {
    for count in [COUNT, 1] {
        for _ in 0..5 {
            let got = mapped_ring::on_host_threads(7, count, Duration::from_secs(60)).unwrap();
            assert_eq!(got, (7..7 + count).collect::<Vec<u32>>());
        }
    }
}

/// The simulator of the `gpu-kernels` PTX (sm_70), or None when the tools are missing (said
/// loudly; a failure under `CI=true`).
fn simulator() -> Option<Simulator> {
    let skip = |why: String| {
        let on_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(!on_ci, "mapped_queue: {why}; CI=true needs the tools");
        eprintln!("SKIPPED mapped_queue's simulator runs: {why} (run bash tools/install.sh)");
    };
    let tc = match Toolchain::discover() {
        Ok(tc) => tc,
        Err(Error::Missing(why)) => {
            skip(why);
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    match build_ptx(&tc, Target::Sm70) {
        Ok(path) => Some(Simulator::new(&std::fs::read_to_string(path).unwrap()).unwrap()),
        Err(Error::Missing(why)) => {
            skip(why);
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn the_same_host_code_pops_every_value_in_the_simulator_without_findings() {
    let Some(sim) = simulator() else { return };
    for seed in 0..4 {
        let (out, got) = mapped_ring::in_simulator(&sim, 7, SIM_COUNT, seed).unwrap();
        assert!(
            out.completed && out.findings.is_empty(),
            "seed {seed}: {:?}",
            out.findings
        );
        assert_eq!(got, (7..7 + SIM_COUNT).collect::<Vec<u32>>(), "seed {seed}");
        // The ring's words after the launch: both counts at the end.
        let mut ring = MappedSlice::new(&[0u32; WORDS]);
        ring.update_from_sim(&out.buffers[0]);
        assert_eq!(
            (ring.get_mut()[HEAD], ring.get_mut()[TAIL]),
            (SIM_COUNT, SIM_COUNT)
        );
    }
}

/// The consumer with `head` loaded `Relaxed`: its plain read of the slot is not ordered after
/// the device's write, which the simulator reports as a race naming the host thread, in every
/// schedule; on host threads the same code happens to work (x86 orders loads).
fn relaxed_step(received: &mut Vec<u32>, ring: &mut impl MappedAccess<u32>) -> HostStatus {
    let tail = ring.load(TAIL, Relaxed);
    if ring.load(HEAD, Relaxed) == tail {
        return HostStatus::Continue;
    }
    // SAFETY (not really: the bug under test): in the simulator a race is a finding.
    received.push(unsafe { ring.read(SLOTS + tail as usize % (WORDS - SLOTS)) });
    ring.store(TAIL, tail.wrapping_add(1), Release);
    if received.len() == SIM_COUNT as usize {
        HostStatus::Done
    } else {
        HostStatus::Continue
    }
}

#[test]
fn a_relaxed_consumer_is_a_race_in_the_simulator() {
    let Some(sim) = simulator() else { return };
    for seed in 0..3 {
        let mut ring = MappedSlice::new(&[0u32; WORDS]);
        let mut received = Vec::new();
        let host = ring.sim_host_thread(0, move |q| relaxed_step(&mut received, q));
        let mut l = Launch::new(
            [1, 1, 1],
            [32, 1, 1],
            vec![Arg::Ptr(0, 0), Arg::U32(7), Arg::U32(SIM_COUNT)],
        );
        l.buffers = vec![ring.sim_buffer()];
        l.seed = seed;
        let out = sim
            .kernel("ring_producer")
            .unwrap()
            .launch(&l, vec![host])
            .unwrap();
        let race = out.findings.iter().find(|f| f.kind == FindingKind::Race);
        let race = race.unwrap_or_else(|| panic!("seed {seed}: no race: {:?}", out.findings));
        assert!(
            race.text.contains("host thread 0") && race.text.contains("plain read"),
            "{race}"
        );
    }
}

#[test]
fn the_consumer_acquires_the_head_and_releases_the_tail() {
    // On real memory: a ring whose head says one value is there.
    let mut words = [0u32; WORDS];
    (words[HEAD], words[SLOTS]) = (1, 9);
    let ring = MappedSlice::new(&words);
    let mut consumer = Consumer::new(2);
    assert_eq!(consumer.step(&mut &ring), HostStatus::Continue);
    assert_eq!(consumer.received, [9]);
    assert_eq!(ring.atomic(TAIL).load(Acquire), 1);
    // Empty now: nothing more until the head moves.
    assert_eq!(consumer.step(&mut &ring), HostStatus::Continue);
    ring.atomic(SLOTS + 1).store(10, Relaxed);
    ring.atomic(HEAD).store(2, Release);
    assert_eq!(consumer.step(&mut &ring), HostStatus::Done);
    assert_eq!(consumer.received, [9, 10]);
}

#[test]
#[should_panic(expected = "index 4 out of bounds of a mapped slice of 4 values")]
fn an_index_out_of_bounds_names_both_numbers() {
    MappedSlice::new(&[0u32; 4]).atomic(4);
}

#[test]
#[should_panic(expected = "a simulator buffer of 4 bytes for a mapped slice of 8 bytes")]
fn a_simulator_buffer_of_another_size_is_refused() {
    MappedSlice::new(&[0u32; 2]).update_from_sim(&[0; 4]);
}

/// The guide page shows the code that runs: each line of its Rust blocks is a line of
/// `mapped_ring.rs` or of this test.
#[test]
fn the_guide_page_shows_the_code_that_runs() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let page =
        std::fs::read_to_string(format!("{root}/atomics/src/guide/host-device-queue.md")).unwrap();
    let sources = [
        std::fs::read_to_string(format!("{root}/host/toolkit/src/examples/mapped_ring.rs"))
            .unwrap(),
        std::fs::read_to_string(format!("{root}/gpu-kernels/src/kernels.rs")).unwrap(),
        include_str!("mapped_queue.rs").to_string(),
    ];
    let known: std::collections::HashSet<&str> = sources
        .iter()
        .flat_map(|s| s.lines())
        .map(str::trim)
        .collect();
    let mut shown = 0;
    let mut in_code = false;
    for line in page.lines() {
        if line.starts_with("```") {
            in_code = line == "```text";
            continue;
        }
        let line = line.trim();
        if in_code && !line.is_empty() && line != "…" {
            shown += 1;
            assert!(
                known.contains(line),
                "the guide shows `{line}`, which runs nowhere"
            );
        }
    }
    assert!(shown > 20, "{shown} lines of code shown");
}
