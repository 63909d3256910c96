//! Synchronisation only between morally strong operations (PTX ISA 8.7, 8.8, 8.9.4), each
//! kernel next to its twin: fences whose scope does not include the other thread, release
//! patterns of PTX's rules 2 and 3, reductions that form no acquire pattern, release sequences
//! broken by a read-modify-write of too small a scope; and a race present in every execution
//! (a queue publishing a slot without release) reported in every schedule.

use ptx_sim::{Arg, FindingKind, Launch, Outcome, Simulator};

/// A kernel `k(u64 buffer)`: `%rd1` = the buffer, `%r1` = thread, `%r2` = block. Block 0 runs
/// `producer`, every other block `consumer`.
fn two_sided(producer: &str, consumer: &str) -> String {
    format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.reg .pred %p<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\
         \tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $CONSUMER;\n{producer}\n\tbra.uni $END;\n\
         $CONSUMER:\n{consumer}\n$END:\n\tret;\n}}\n"
    )
}

fn run(ptx: &str, blocks: u32, seed: u64) -> Outcome {
    let sim = Simulator::new(ptx).unwrap();
    let mut l = Launch::new([blocks, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 64])]);
    l.seed = seed;
    sim.kernel("k").unwrap().launch(&l, Vec::new()).unwrap()
}

/// Whether a race on the plain data (`[%rd1]`, read or written plainly) is reported.
fn data_race(out: &Outcome) -> bool {
    out.findings
        .iter()
        .any(|f| f.kind == FindingKind::Race && f.text.contains("plain"))
}

const SEEDS: std::ops::Range<u64> = 0..12;

/// The consumer: spins until the flag (`[%rd1+8]`, read by `spin`) is `want`, runs `after`, then
/// reads the data and stores it at `[%rd1+16]`.
fn consumer(spin: &str, want: u32, after: &str) -> String {
    format!(
        "$SPIN:\n\t{spin}\n\tsetp.ne.u32 %p2, %r3, {want};\n\t@%p2 bra $SPIN;\n{after}\n\
         \tld.global.u32 %r4, [%rd1];\n\tst.global.u32 [%rd1+16], %r4;"
    )
}

fn assert_race_in_every_seed(ptx: &str, what: &str) {
    for seed in SEEDS {
        let out = run(ptx, 2, seed);
        assert!(data_race(&out), "{what}, seed {seed}: {:?}", out.findings);
    }
}

fn assert_no_finding_in_any_seed(ptx: &str, what: &str) {
    for seed in SEEDS {
        let out = run(ptx, 2, seed);
        assert!(
            out.findings.is_empty(),
            "{what}, seed {seed}: {:?}",
            out.findings
        );
        assert_eq!(out.buffers[0][16], 42, "{what}, seed {seed}");
    }
}

/// CUDA's `data = 42; __threadfence(); atomicExch(&flag, 1)` against `while (atomicAdd(&flag,
/// 0) == 0) {} __threadfence_block(); out = data;` across two blocks: the consumer's
/// `membar.cta` (`fence.sc.cta`) is not morally strong with the producer's operations in the
/// other block, so nothing synchronises (PTX ISA 8.9.4 rules 1 and 4): a data race.
#[test]
fn a_cta_fence_does_not_acquire_what_another_block_released() {
    let producer = "\tst.global.u32 [%rd1], 42;\n\tmembar.gl;\n\
                    \tatom.global.exch.b32 %r3, [%rd1+8], 1;";
    let spin = "atom.global.add.u32 %r3, [%rd1+8], 0;";
    for (fence, racy) in [("membar.cta;", true), ("membar.gl;", false)] {
        let ptx = two_sided(producer, &consumer(spin, 1, fence));
        if racy {
            assert_race_in_every_seed(&ptx, fence);
        } else {
            assert_no_finding_in_any_seed(&ptx, fence);
        }
    }
    // The same with acquire-release fences and relaxed flag accesses.
    let producer = "\tst.global.u32 [%rd1], 42;\n\tfence.acq_rel.gpu;\n\
                    \tst.relaxed.gpu.global.u32 [%rd1+8], 1;";
    let spin = "ld.relaxed.gpu.global.u32 %r3, [%rd1+8];";
    let ptx = two_sided(producer, &consumer(spin, 1, "\tfence.acq_rel.cta;"));
    assert_race_in_every_seed(&ptx, "fence.acq_rel.cta");
}

/// PTX ISA 8.8 release pattern rule 2: `st.release [M]; st.relaxed [M]` is a release pattern,
/// and an acquire reading the relaxed store's value synchronises with it. Without the release
/// operation before it, the relaxed store releases nothing.
#[test]
fn a_strong_store_after_a_release_on_the_location_still_releases() {
    let spin = "ld.acquire.gpu.global.u32 %r3, [%rd1+8];";
    let released = "\tst.global.u32 [%rd1], 42;\n\tst.release.gpu.global.u32 [%rd1+8], 1;\n\
                    \tst.relaxed.gpu.global.u32 [%rd1+8], 2;";
    assert_no_finding_in_any_seed(&two_sided(released, &consumer(spin, 2, "")), "rule 2");
    // Through an atom.acq_rel on the location and a relaxed exchange after it.
    let rmw = "\tst.global.u32 [%rd1], 42;\n\tatom.acq_rel.gpu.global.add.u32 %r5, [%rd1+8], 1;\n\
               \tatom.relaxed.gpu.global.exch.b32 %r5, [%rd1+8], 2;";
    assert_no_finding_in_any_seed(&two_sided(rmw, &consumer(spin, 2, "")), "rule 2 (rmw)");
    let relaxed = "\tst.global.u32 [%rd1], 42;\n\tst.relaxed.gpu.global.u32 [%rd1+8], 1;\n\
                   \tst.relaxed.gpu.global.u32 [%rd1+8], 2;";
    assert_race_in_every_seed(&two_sided(relaxed, &consumer(spin, 2, "")), "no release");
    // A release at cta scope on the location does not make the later store release to
    // another block.
    let narrow = "\tst.global.u32 [%rd1], 42;\n\tst.release.cta.global.u32 [%rd1+8], 1;\n\
                  \tst.relaxed.gpu.global.u32 [%rd1+8], 2;";
    assert_race_in_every_seed(&two_sided(narrow, &consumer(spin, 2, "")), "cta release");
}

/// PTX ISA 8.8 release pattern rule 3 with two fences: a `.cta` release fence after a `.gpu`
/// one hides nothing: the data written before the `.gpu` fence is released to another block by
/// the relaxed store after both; data written between the two fences is not.
#[test]
fn a_narrow_release_fence_after_a_wide_one_keeps_the_wide_ones_release() {
    let spin = "ld.relaxed.gpu.global.u32 %r3, [%rd1+8];";
    let before = "\tst.global.u32 [%rd1], 42;\n\tfence.acq_rel.gpu;\n\
                  \tst.global.u32 [%rd1+4], 7;\n\tfence.acq_rel.cta;\n\
                  \tst.relaxed.gpu.global.u32 [%rd1+8], 1;";
    let ptx = two_sided(before, &consumer(spin, 1, "\tfence.acq_rel.gpu;"));
    assert_no_finding_in_any_seed(&ptx, "data before the gpu fence");
    let between = "\tfence.acq_rel.gpu;\n\tst.global.u32 [%rd1], 42;\n\
                   \tfence.acq_rel.cta;\n\tst.relaxed.gpu.global.u32 [%rd1+8], 1;";
    let ptx = two_sided(between, &consumer(spin, 1, "\tfence.acq_rel.gpu;"));
    assert_race_in_every_seed(&ptx, "data between the fences");
}

/// PTX ISA 8.8 and 8.11.1: a reduction's read forms no acquire pattern, even before an acquire
/// fence; an `atom` in its place does.
#[test]
fn a_reduction_before_an_acquire_fence_acquires_nothing() {
    // The producer releases on the flag (`+8`), then sets a second word (`+12`) with a relaxed
    // store that releases nothing: the consumer waits on that one, so that only what follows
    // can synchronise it with the release.
    let producer = "\tst.global.u32 [%rd1], 42;\n\tst.release.gpu.global.u32 [%rd1+8], 1;\n\
                    \tst.relaxed.gpu.global.u32 [%rd1+12], 1;";
    let consumer = |read_flag: &str| {
        format!(
            "$SPIN:\n\tld.relaxed.gpu.global.u32 %r3, [%rd1+12];\n\tsetp.ne.u32 %p2, %r3, 1;\n\
             \t@%p2 bra $SPIN;\n\t{read_flag}\n\tfence.acq_rel.gpu;\n\
             \tld.global.u32 %r4, [%rd1];\n\tst.global.u32 [%rd1+16], %r4;"
        )
    };
    let red = consumer("red.relaxed.gpu.global.add.u32 [%rd1+8], 0;");
    assert_race_in_every_seed(&two_sided(producer, &red), "red");
    let atom = consumer("atom.relaxed.gpu.global.add.u32 %r5, [%rd1+8], 0;");
    assert_no_finding_in_any_seed(&two_sided(producer, &atom), "atom");
}

/// PTX ISA 8.9.2: a read-modify-write of another block at a scope that includes both continues
/// the release sequence (the reader acquires the producer's release through the exchange).
#[test]
fn a_morally_strong_read_modify_write_continues_the_release_sequence() {
    let producer = "\tst.global.u32 [%rd1], 42;\n\tst.release.gpu.global.u32 [%rd1+8], 1;";
    let consumer = "\tsetp.ne.u32 %p3, %r2, 1;\n\t@%p3 bra $READER;\n\
                    $MIDDLE:\n\tatom.relaxed.gpu.global.cas.b32 %r3, [%rd1+8], 1, 2;\n\
                    \tsetp.ne.u32 %p2, %r3, 1;\n\t@%p2 bra $MIDDLE;\n\tbra.uni $DONE;\n\
                    $READER:\n\tld.relaxed.gpu.global.u32 %r3, [%rd1+8];\n\tsetp.ne.u32 %p2, %r3, 2;\n\
                    \t@%p2 bra $READER;\n\tfence.acq_rel.gpu;\n\tld.global.u32 %r4, [%rd1];\n\
                    \tst.global.u32 [%rd1+16], %r4;\n$DONE:";
    for seed in SEEDS {
        let ok = run(&two_sided(producer, consumer), 3, seed);
        assert!(ok.findings.is_empty(), "seed {seed}: {:?}", ok.findings);
        assert_eq!(ok.buffers[0][16], 42, "seed {seed}");
    }
}

/// Slots of the queue: a power of two, fewer than the producers, so slots are reused.
const QUEUE_SLOTS: u32 = 4;

/// A bounded multi-producer multi-consumer queue (sequence-numbered slots, tickets from
/// `atom.add`): one block, threads `0..n` each enqueue their index + 100, threads `n..2n` each
/// dequeue one value into `out[i - n]`. A slot's sequence number and value share an 8-byte
/// granule. The producer publishes the slot with a store of `publish` semantics (`release`, or
/// the bug: `relaxed`, which orders nothing: the consumer's plain read of the value races with
/// the producer's plain write in every execution).
fn queue_kernel(n: u32, publish: &str) -> String {
    let out = 8 + 8 * QUEUE_SLOTS;
    let mask = QUEUE_SLOTS - 1;
    format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\n\
         .visible .entry queue(\n\t.param .u64 queue_param_0\n)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [queue_param_0];\n\tmov.u32 %r1, %tid.x;\n\
         \tsetp.ge.u32 %p1, %r1, {n};\n\t@%p1 bra $CONSUMER;\n\
         \tatom.relaxed.gpu.global.add.u32 %r3, [%rd1+4], 1;\n\
         \tand.b32 %r4, %r3, {mask};\n\tmul.wide.u32 %rd2, %r4, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         $FREE:\n\tld.acquire.gpu.global.u32 %r5, [%rd3+8];\n\tsetp.ne.u32 %p2, %r5, %r3;\n\
         \t@%p2 bra $FREE;\n\tadd.u32 %r6, %r1, 100;\n\tst.global.u32 [%rd3+12], %r6;\n\
         \tadd.u32 %r7, %r3, 1;\n\tst.{publish}.gpu.global.u32 [%rd3+8], %r7;\n\tbra.uni $END;\n\
         $CONSUMER:\n\tatom.relaxed.gpu.global.add.u32 %r3, [%rd1], 1;\n\
         \tand.b32 %r4, %r3, {mask};\n\tmul.wide.u32 %rd2, %r4, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tadd.u32 %r7, %r3, 1;\n\
         $FULL:\n\tld.acquire.gpu.global.u32 %r5, [%rd3+8];\n\tsetp.ne.u32 %p2, %r5, %r7;\n\
         \t@%p2 bra $FULL;\n\tld.global.u32 %r6, [%rd3+12];\n\
         \tadd.u32 %r8, %r3, {QUEUE_SLOTS};\n\tst.release.gpu.global.u32 [%rd3+8], %r8;\n\
         \tsub.u32 %r9, %r1, {n};\n\tmul.wide.u32 %rd4, %r9, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
         \tst.global.u32 [%rd5+{out}], %r6;\n\
         $END:\n\tret;\n}}\n"
    )
}

fn run_queue(n: u32, publish: &str, seed: u64) -> Outcome {
    let sim = Simulator::new(&queue_kernel(n, publish)).unwrap();
    // Head and tail tickets 0, slot i's sequence number i, then the consumers' outputs.
    let mut buffer = vec![0u8; (8 + 8 * QUEUE_SLOTS + 4 * n) as usize];
    for i in 0..QUEUE_SLOTS {
        let at = (8 + 8 * i) as usize;
        buffer[at..at + 4].copy_from_slice(&i.to_le_bytes());
    }
    let mut l = Launch::new([1, 1, 1], [2 * n, 1, 1], vec![Arg::Buffer(buffer)]);
    l.seed = seed;
    sim.kernel("queue").unwrap().launch(&l, Vec::new()).unwrap()
}

/// The racy queue is reported in every single-schedule run (each seed, 8, 16 and 32 threads
/// per side): the producer's record of its write of the value must survive its own store of
/// the sequence number in the same granule and the consumers' spinning loads; its correct twin
/// in none, every value dequeued once.
#[test]
fn a_queue_publishing_without_release_is_reported_in_every_schedule() {
    for n in [8, 16, 32] {
        for seed in 0..10 {
            let racy = run_queue(n, "relaxed", seed);
            let value_race = racy.findings.iter().any(|f| {
                f.kind == FindingKind::Race
                    && f.text.contains("plain write `st.global.u32`")
                    && f.text.contains("plain read `ld.global.u32`")
            });
            assert!(value_race, "n {n}, seed {seed}: {:?}", racy.findings);
            let ok = run_queue(n, "release", seed);
            assert!(
                ok.findings.is_empty(),
                "n {n}, seed {seed}: {:?}",
                ok.findings
            );
            let out = &ok.buffers[0][(8 + 8 * QUEUE_SLOTS) as usize..];
            let mut got: Vec<u32> = out
                .chunks(4)
                .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
                .collect();
            got.sort_unstable();
            assert_eq!(
                got,
                (100..100 + n).collect::<Vec<_>>(),
                "n {n}, seed {seed}"
            );
        }
    }
}

/// `ptx` with a 16-byte `.shared` array `sm`.
fn with_shared(ptx: &str) -> String {
    ptx.replacen(
        ".address_size 64\n",
        ".address_size 64\n.shared .align 16 .b8 sm[16];\n",
        1,
    )
}

/// PTX ISA 8.9.1.1: a `cp.async` is ordered after its thread's instructions before it and
/// with nothing after it until the wait: an acquire between the issue and the wait does not
/// order the copy's read of the source after the other block's write.
#[test]
fn a_copy_is_ordered_by_what_its_thread_saw_when_it_issued_it() {
    let writer = "\tst.global.u32 [%rd1], 42;\n\tst.release.gpu.global.u32 [%rd1+8], 1;";
    let copier = |acquire_first: bool| {
        let spin = "$WAIT:\n\tld.acquire.gpu.global.u32 %r3, [%rd1+8];\n\
                    \tsetp.ne.u32 %p2, %r3, 1;\n\t@%p2 bra $WAIT;\n";
        let copy = "\tmov.u32 %r6, sm;\n\tcp.async.ca.shared.global [%r6], [%rd1], 4;\n\
                    \tcp.async.commit_group;\n";
        let (a, b) = if acquire_first {
            (spin, copy)
        } else {
            (copy, spin)
        };
        format!(
            "{a}{b}\tcp.async.wait_group 0;\n\tld.shared.u32 %r4, [%r6];\n\
             \tst.global.u32 [%rd1+16], %r4;"
        )
    };
    // Block 0 copies, block 1 writes.
    let kernel = |acquire_first| with_shared(&two_sided(&copier(acquire_first), writer));
    assert_race_in_every_seed(&kernel(false), "acquire after the issue");
    assert_no_finding_in_any_seed(&kernel(true), "acquire before the issue");
}

/// The copy's write is unordered with its own thread's read of the destination before the
/// wait (a race), ordered before one after the wait.
#[test]
fn a_read_of_a_copys_destination_before_the_wait_races_with_the_copy() {
    let kernel = |read_first: bool| {
        let read = "\tld.shared.u32 %r4, [%r6];\n\tst.global.u32 [%rd1+16], %r4;\n";
        let wait = "\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n";
        let (a, b) = if read_first {
            (read, wait)
        } else {
            (wait, read)
        };
        with_shared(&two_sided(
            &format!(
                "\tst.global.u32 [%rd1], 42;\n\tmov.u32 %r6, sm;\n\
                 \tcp.async.ca.shared.global [%r6], [%rd1], 4;\n{a}{b}"
            ),
            "",
        ))
    };
    let racy = run(&kernel(true), 1, 0);
    assert!(
        racy.findings
            .iter()
            .any(|f| f.kind == FindingKind::Race && f.text.contains("cp.async")),
        "{:?}",
        racy.findings
    );
    let ok = run(&kernel(false), 1, 0);
    assert!(ok.findings.is_empty(), "{:?}", ok.findings);
    assert_eq!(ok.buffers[0][16], 42);
}

/// An mbarrier `.relaxed` arrive releases nothing and a `.relaxed` wait acquires nothing; the
/// simulator (whose arrivals release and waits acquire) refuses them when it decodes the
/// kernel, naming the form.
#[test]
fn relaxed_mbarrier_forms_are_refused() {
    for inst in [
        "mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd2, [%r6];",
        "mbarrier.test_wait.relaxed.cta.shared::cta.b64 %p2, [%r6], %rd2;",
    ] {
        let ptx = with_shared(&two_sided(
            &format!("\tmov.u32 %r6, sm;\n\tmbarrier.init.shared::cta.b64 [%r6], 1;\n\t{inst}"),
            "",
        ));
        let sim = Simulator::new(&ptx).unwrap();
        let err = sim.kernel("k").err().expect(inst).to_string();
        assert!(
            err.contains("`.relaxed`") && err.contains("mbarrier"),
            "{err}"
        );
    }
}

/// PTX ISA 8.9.4 rule 2: a `bar.sync` synchronises with the `bar.sync`s of the same barrier,
/// which is its CTA's own: two blocks each at their barrier 0 order nothing between them.
#[test]
fn a_bar_sync_orders_nothing_across_blocks() {
    let producer = "\tst.global.u32 [%rd1], 42;\n\tbar.sync 0;";
    let consumer = "\tbar.sync 0;\n\tld.global.u32 %r4, [%rd1];\n\tst.global.u32 [%rd1+16], %r4;";
    assert_race_in_every_seed(&two_sided(producer, consumer), "bar.sync across blocks");
}
