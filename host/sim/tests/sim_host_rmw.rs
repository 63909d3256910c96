//! Host threads' atomic read-modify-writes (`HostCtx::fetch_add`, `compare_exchange`, `swap`):
//! host consumers of a queue the device produces into, in every schedule without a finding; the
//! same consumers with an ordering too weak reported as races; an RMW continuing a release
//! sequence where a store would break it; `core`'s refusals of orderings.

use ptx_sim::{Arg, FindingKind, HostStatus, HostThread, Launch, Outcome, Simulator};
use std::sync::atomic::Ordering::{self, AcqRel, Acquire, Relaxed, Release};
use std::sync::{Arc, Mutex};

/// Slots of the queue.
const SLOTS: u32 = 4;
/// Device producer threads, and values each pushes.
const PRODUCERS: u32 = 6;
const EACH: u32 = 3;
const TOTAL: u32 = PRODUCERS * EACH;
/// Word offsets (bytes) of the queue: the producers' ticket counter, the consumers' ticket
/// counter, the consumers' sum, then a sequence word per slot, then the slots' values.
const HEAD: u64 = 0;
const TAIL: u64 = 4;
const SUM: u64 = 8;
const SEQ: u64 = 16;
const DATA: u64 = SEQ + 4 * SLOTS as u64;
/// A slot's sequence word while a consumer reads it.
const BUSY: u32 = u32::MAX;

/// A bounded multi-producer queue (sequence numbers per slot, as Vyukov's): device thread `t`
/// pushes `16 t + k + 1` for `k < EACH`: it takes a ticket `pos` (`atom.add` on HEAD), waits
/// until its slot's sequence word says the slot is free for `pos` (acquire), writes the value
/// plainly and publishes `pos + 1` (release). All system scope: the host consumes.
fn producer_ptx() -> String {
    format!(
        ".version 7.8\n.target sm_70\n.address_size 64\n\n\
         .visible .entry produce(\n\t.param .u64 produce_param_0\n)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [produce_param_0];\n\
         \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, 0;\n\
         $PUSH:\n\
         \tatom.relaxed.sys.global.add.u32 %r3, [%rd1+{HEAD}], 1;\n\
         \trem.u32 %r4, %r3, {SLOTS};\n\
         \tmul.wide.u32 %rd2, %r4, 4;\n\
         \tadd.s64 %rd3, %rd1, %rd2;\n\
         $WAIT:\n\
         \tld.acquire.sys.global.u32 %r5, [%rd3+{SEQ}];\n\
         \tsetp.ne.u32 %p1, %r5, %r3;\n\
         \t@%p1 bra $WAIT;\n\
         \tmad.lo.u32 %r6, %r1, 16, %r2;\n\
         \tadd.u32 %r6, %r6, 1;\n\
         \tst.global.u32 [%rd3+{DATA}], %r6;\n\
         \tadd.u32 %r7, %r3, 1;\n\
         \tst.release.sys.global.u32 [%rd3+{SEQ}], %r7;\n\
         \tadd.u32 %r2, %r2, 1;\n\
         \tsetp.lt.u32 %p2, %r2, {EACH};\n\
         \t@%p2 bra $PUSH;\n\
         \tret;\n}}\n"
    )
}

/// The orderings a consumer uses: the claim of a published slot (`compare_exchange` success)
/// and the slot's release back to the producers (`swap`).
#[derive(Clone, Copy)]
struct Orders {
    claim: Ordering,
    free: Ordering,
}

const RIGHT: Orders = Orders {
    claim: Acquire,
    free: Release,
};

/// A host consumer: takes a ticket (`fetch_add` on TAIL), claims its slot once published
/// (`compare_exchange` of the sequence word from `pos + 1` to BUSY), reads the value plainly,
/// frees the slot for ticket `pos + SLOTS` (`swap`), adds the value to SUM (`fetch_add`).
fn consumer(orders: Orders, got: Arc<Mutex<Vec<u32>>>) -> HostThread {
    let mut ticket: Option<u32> = None;
    HostThread::new(move |ctx| {
        let q = ctx.buffer(0);
        let pos = match ticket {
            Some(pos) => pos,
            None => {
                let pos = ctx.fetch_add(q + TAIL, 1u32, Relaxed);
                if pos >= TOTAL {
                    return HostStatus::Done;
                }
                *ticket.insert(pos)
            }
        };
        let seq = q + SEQ + 4 * u64::from(pos % SLOTS);
        if ctx
            .compare_exchange(seq, pos + 1, BUSY, orders.claim, Relaxed)
            .is_err()
        {
            return HostStatus::Continue;
        }
        let value: u32 = ctx.read(q + DATA + 4 * u64::from(pos % SLOTS));
        assert_eq!(ctx.swap(seq, pos + SLOTS, orders.free), BUSY);
        ctx.fetch_add(q + SUM, value, Relaxed);
        got.lock().unwrap().push(value);
        ticket = None;
        HostStatus::Continue
    })
}

fn run_queue(orders: Orders, consumers: usize, seed: u64) -> (Outcome, Vec<u32>) {
    let sim = Simulator::new(&producer_ptx()).unwrap();
    let mut l = Launch::new([1, 1, 1], [PRODUCERS, 1, 1], vec![Arg::Ptr(0, 0)]);
    let mut queue = vec![0u8; (DATA + 4 * u64::from(SLOTS)) as usize];
    for s in 0..SLOTS {
        let at = (SEQ + 4 * u64::from(s)) as usize;
        queue[at..at + 4].copy_from_slice(&s.to_le_bytes());
    }
    l.buffers = vec![queue];
    l.seed = seed;
    let got = Arc::new(Mutex::new(Vec::new()));
    let hosts = (0..consumers)
        .map(|_| consumer(orders, got.clone()))
        .collect();
    let out = sim.kernel("produce").unwrap().launch(&l, hosts).unwrap();
    let mut got = got.lock().unwrap().clone();
    got.sort_unstable();
    (out, got)
}

fn expected() -> Vec<u32> {
    let mut all: Vec<u32> = (0..PRODUCERS)
        .flat_map(|t| (0..EACH).map(move |k| 16 * t + k + 1))
        .collect();
    all.sort_unstable();
    all
}

fn word(bytes: &[u8], at: u64) -> u32 {
    u32::from_le_bytes(bytes[at as usize..at as usize + 4].try_into().unwrap())
}

#[test]
fn host_consumers_with_rmws_drain_a_device_produced_queue_without_findings() {
    for consumers in [1, 2] {
        for seed in 0..8 {
            let (out, got) = run_queue(RIGHT, consumers, seed);
            assert!(
                out.completed && out.findings.is_empty(),
                "{consumers} consumers, seed {seed}: {:?}",
                out.findings
            );
            assert_eq!(got, expected(), "{consumers} consumers, seed {seed}");
            let q = &out.buffers[0];
            assert_eq!(word(q, HEAD), TOTAL);
            // Each consumer's last ticket is past the end.
            assert_eq!(word(q, TAIL), TOTAL + consumers as u32);
            assert_eq!(word(q, SUM), expected().iter().sum::<u32>());
        }
    }
}

/// The race findings on the queue's values (the plain accesses), naming a host thread.
fn value_races(out: &Outcome) -> Vec<String> {
    out.findings
        .iter()
        .filter(|f| f.kind == FindingKind::Race)
        .filter(|f| f.text.contains("plain") && f.text.contains("host thread"))
        .map(|f| f.text.clone())
        .collect()
}

#[test]
fn a_relaxed_claim_is_a_race_with_the_device_write_it_reads() {
    let weak = Orders {
        claim: Relaxed,
        ..RIGHT
    };
    for seed in 0..8 {
        let (out, _) = run_queue(weak, 1, seed);
        let races = value_races(&out);
        assert!(!races.is_empty(), "seed {seed}: {:?}", out.findings);
        assert!(
            races.iter().any(|r| r.contains("st.global.u32")),
            "the device's plain write is named: {races:?}"
        );
    }
}

#[test]
fn a_relaxed_free_is_a_race_with_the_next_device_write_of_the_slot() {
    let weak = Orders {
        free: Relaxed,
        ..RIGHT
    };
    for seed in 0..8 {
        let (out, _) = run_queue(weak, 1, seed);
        let races = value_races(&out);
        assert!(!races.is_empty(), "seed {seed}: {:?}", out.findings);
    }
    // The right orderings on the same schedules: nothing.
    for seed in 0..8 {
        assert!(run_queue(RIGHT, 1, seed).0.findings.is_empty());
    }
}

/// Block 0 writes data (`[0]`) and releases a flag (`[8]`) to 1; the host changes the flag to 2
/// with `host_step`; block 1 waits (relaxed) for the flag to be 2, acquires it (reading 2, the
/// host's value, never block 0's 1) and reads data into `[16]`.
fn relay(host_step: fn(&mut ptx_sim::HostCtx, u64)) -> Vec<Outcome> {
    let ptx = ".version 7.8\n.target sm_70\n.address_size 64\n\n\
               .visible .entry relay(\n\t.param .u64 relay_param_0\n)\n{\n\
               \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
               \tld.param.u64 %rd1, [relay_param_0];\n\tmov.u32 %r1, %ctaid.x;\n\
               \tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $READER;\n\
               \tst.global.u32 [%rd1], 42;\n\tst.release.sys.global.u32 [%rd1+8], 1;\n\
               \tbra.uni $END;\n\
               $READER:\n\tld.relaxed.sys.global.u32 %r2, [%rd1+8];\n\
               \tsetp.ne.u32 %p2, %r2, 2;\n\t@%p2 bra $READER;\n\
               \tld.acquire.sys.global.u32 %r2, [%rd1+8];\n\
               \tld.global.u32 %r3, [%rd1];\n\tst.global.u32 [%rd1+16], %r3;\n\
               $END:\n\tret;\n}\n";
    let sim = Simulator::new(ptx).unwrap();
    (0..8)
        .map(|seed| {
            let mut l = Launch::new([2, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 24])]);
            l.seed = seed;
            let host = HostThread::new(move |ctx| {
                let flag = ctx.buffer(0) + 8;
                if ctx.load_u32(flag, Relaxed) != 1 {
                    return HostStatus::Continue;
                }
                host_step(ctx, flag);
                HostStatus::Done
            });
            sim.kernel("relay").unwrap().launch(&l, vec![host]).unwrap()
        })
        .collect()
}

/// Whether a race on the data word (`buffer 0`+0) is reported.
fn data_race(out: &Outcome) -> bool {
    out.findings
        .iter()
        .any(|f| f.kind == FindingKind::Race && f.text.contains("`buffer 0`+0 "))
}

/// PTX ISA 8.9.4 rule 1: a release pattern synchronises with an acquire pattern that reads a
/// value of its release sequence, which read-modify-writes continue: the host's relaxed
/// `fetch_add` passes block 0's release on to block 1, as a device `atom` would.
#[test]
fn a_host_rmw_continues_the_release_sequence() {
    for out in relay(|ctx, flag| {
        assert_eq!(ctx.fetch_add(flag, 1u32, Relaxed), 1);
    }) {
        assert!(out.findings.is_empty(), "{:?}", out.findings);
        assert_eq!(out.buffers[0][16], 42);
    }
    // A compare-exchange that succeeds is an RMW too.
    for out in relay(|ctx, flag| {
        assert_eq!(ctx.compare_exchange(flag, 1u32, 2, Relaxed, Relaxed), Ok(1));
    }) {
        assert!(out.findings.is_empty(), "{:?}", out.findings);
    }
}

/// A store is not in the release sequence: block 1 reads 2 from the host's write and does not
/// synchronise with block 0, so the data is a race.
#[test]
fn a_host_store_ends_the_release_sequence() {
    for out in relay(|ctx, flag| ctx.store_u32(flag, 2, Relaxed)) {
        assert!(data_race(&out), "{:?}", out.findings);
    }
}

/// Nor is a plain write (which also races with block 1's read of the flag): the data is a race
/// too. The simulator used to leave the location's releases in place after a host's plain
/// write, so block 1 synchronised with block 0 through it and the data race went unreported.
#[test]
fn a_host_plain_write_ends_the_release_sequence() {
    for out in relay(|ctx, flag| ctx.write_u32(flag, 2)) {
        assert!(data_race(&out), "{:?}", out.findings);
    }
}

/// The host's acquire RMW synchronises with the device's release store it reads: the host's
/// plain read after it is no race; relaxed, it is.
#[test]
fn a_host_rmw_acquires_with_its_ordering() {
    let ptx = ".version 7.8\n.target sm_70\n.address_size 64\n\n\
               .visible .entry publish(\n\t.param .u64 publish_param_0\n)\n{\n\
               \t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [publish_param_0];\n\
               \tst.global.u32 [%rd1], 42;\n\tst.release.sys.global.u32 [%rd1+8], 1;\n\tret;\n}\n";
    let sim = Simulator::new(ptx).unwrap();
    for (order, racy) in [
        (Acquire, false),
        (AcqRel, false),
        (Relaxed, true),
        (Release, true),
    ] {
        for seed in 0..4 {
            let mut l = Launch::new([1, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 16])]);
            l.seed = seed;
            let got = Arc::new(Mutex::new(None));
            let seen = got.clone();
            let host = HostThread::new(move |ctx| {
                let (data, flag) = (ctx.buffer(0), ctx.buffer(0) + 8);
                if ctx.swap(flag, 0u32, order) != 1 {
                    return HostStatus::Continue;
                }
                *seen.lock().unwrap() = Some(ctx.read_u32(data));
                HostStatus::Done
            });
            let out = sim
                .kernel("publish")
                .unwrap()
                .launch(&l, vec![host])
                .unwrap();
            assert_eq!(*got.lock().unwrap(), Some(42));
            assert_eq!(data_race(&out), racy, "{order:?}: {:?}", out.findings);
        }
    }
}

fn run_one_host_step(step: fn(&mut ptx_sim::HostCtx)) {
    let sim = Simulator::new(ptx_sim::EXAMPLE_PTX).unwrap();
    let l = Launch::new([1, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 16])]);
    let host = HostThread::new(move |ctx| {
        step(ctx);
        HostStatus::Done
    });
    sim.kernel("count").unwrap().launch(&l, vec![host]).unwrap();
}

#[test]
#[should_panic(expected = "there is no such thing as a release load")]
fn a_release_load_panics_with_cores_message() {
    run_one_host_step(|ctx| {
        ctx.load_u32(ctx.buffer(0), Release);
    });
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire store")]
fn an_acquire_store_panics_with_cores_message() {
    run_one_host_step(|ctx| ctx.store_u64(ctx.buffer(0), 1, Acquire));
}

#[test]
#[should_panic(expected = "there is no such thing as an acquire-release failure ordering")]
fn an_acq_rel_failure_ordering_panics_with_cores_message() {
    run_one_host_step(|ctx| {
        let _ = ctx.compare_exchange(ctx.buffer(0), 0u32, 1, AcqRel, AcqRel);
    });
}

/// An RMW is checked like a device access: out of bounds and misaligned faults name the
/// host thread.
#[test]
fn a_host_rmw_out_of_bounds_or_misaligned_is_a_fault() {
    let sim = Simulator::new(ptx_sim::EXAMPLE_PTX).unwrap();
    for (offset, why) in [(16, "beyond its 16 bytes"), (2, "misaligned 4-byte access")] {
        let l = Launch::new([1, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 16])]);
        let host = HostThread::new(move |ctx| {
            ctx.fetch_or(ctx.buffer(0) + offset, 1u32, Relaxed);
            HostStatus::Done
        });
        let out = sim.kernel("count").unwrap().launch(&l, vec![host]).unwrap();
        let f = out.findings.first().expect("a fault");
        assert_eq!(f.kind, FindingKind::Fault, "{f}");
        assert!(
            f.text.contains("host thread 0") && f.text.contains(why),
            "{f}"
        );
    }
}
