//! `kernel::sync_warp` (issue 14): warp-level publication by `gpu_kernels::kernels::warp_exchange`
//! — plain writes, `sync_warp(mask)`, plain reads of another lane's slot — gives the same result
//! on host threads and in the PTX simulator (every configuration), with no race finding; the
//! same PTX without its `bar.warp.sync` is reported as a race; the kernel's PTX holds exactly one
//! `bar.warp.sync` behind the own-lane check; misuse panics on the host naming the mask and lane,
//! and the simulator reports it (a fault, or a hang when a member lane never arrives).

mod sim_support;

use gpu_kernels::kernels::warp_exchange;
use scoped_atomics::kernel::{Dim3, sync_warp};
use scoped_atomics_host::executor;
use scoped_atomics_host::ptx::Target;
use scoped_atomics_host::sim::{Arg, FindingKind, Launch, Mode};
use sim_support::{simulator, words};

/// Two blocks of 48 threads: a full warp and a warp of 16 lanes in each.
const GRID: u32 = 2;
const BLOCK: u32 = 48;
const THREADS: usize = (GRID * BLOCK) as usize;

/// What `warp_exchange` leaves in `out`, from its definition.
fn expected() -> Vec<u32> {
    (0..THREADS)
        .map(|me| {
            let (block_base, linear) = (me / BLOCK as usize * BLOCK as usize, me % BLOCK as usize);
            let warp_base = linear / 32 * 32;
            let lanes = (BLOCK as usize - warp_base).min(32);
            let partner = block_base + warp_base + lanes - 1 - (linear - warp_base);
            7 * partner as u32 + 1
        })
        .collect()
}

#[test]
fn warp_publication_on_host_threads() {
    for _ in 0..5 {
        let (slots, out): (Vec<_>, Vec<_>) = (0..THREADS)
            .map(|_| {
                (
                    std::sync::atomic::AtomicU32::new(0),
                    std::sync::atomic::AtomicU32::new(0),
                )
            })
            .unzip();
        let (slots_at, out_at) = (slots.as_ptr() as usize, out.as_ptr() as usize);
        executor::launch(Dim3::x(GRID), Dim3::x(BLOCK), || {
            // SAFETY: one `u32` per thread of the grid in each.
            unsafe { warp_exchange(slots_at as *mut u32, out_at as *mut u32) }
        })
        .unwrap();
        let got: Vec<u32> = out
            .iter()
            .map(|v| v.load(std::sync::atomic::Ordering::Relaxed))
            .collect();
        assert_eq!(got, expected());
    }
}

fn launch(seed: u64, mode: Mode) -> Launch {
    let mut l = Launch::new(
        [GRID, 1, 1],
        [BLOCK, 1, 1],
        vec![
            Arg::Buffer(vec![0; THREADS * 4]),
            Arg::Buffer(vec![0; THREADS * 4]),
        ],
    );
    l.seed = seed;
    l.mode = mode;
    l
}

#[test]
fn warp_publication_in_the_simulator_without_findings() {
    for target in Target::ALL {
        let Some(sim) = simulator("warp_sync", target) else {
            return;
        };
        let k = sim.kernel("warp_exchange").unwrap();
        for (seed, mode) in [
            (1, Mode::Random),
            (2, Mode::Random),
            (3, Mode::WarpLockstep),
        ] {
            let out = k.launch(&launch(seed, mode), Vec::new()).unwrap();
            assert!(out.findings.is_empty(), "{target}: {:?}", out.findings);
            assert!(out.completed, "{target}");
            assert_eq!(words(&out.buffers[1]), expected(), "{target}");
        }
    }
}

#[test]
fn without_the_warp_barrier_the_plain_reads_race() {
    let Some(ptx) = sim_support::ptx("warp_sync", Target::Sm80) else {
        return;
    };
    // The kernel's PTX: one `bar.warp.sync`, after the trap of the own-lane check.
    let body = kernel_text(&ptx, "warp_exchange");
    assert_eq!(body.matches("bar.warp.sync").count(), 1, "{body}");
    let check = body.find("trap;").expect("the own-lane check traps");
    assert!(check < body.find("bar.warp.sync").unwrap(), "{body}");
    let without = ptx.replace("bar.warp.sync", "// removed: bar.warp.sync");
    let sim = scoped_atomics_host::sim::Simulator::new(&without).unwrap();
    let out = sim
        .kernel("warp_exchange")
        .unwrap()
        .launch(&launch(1, Mode::Random), Vec::new())
        .unwrap();
    let f = out.findings.first().expect("a race");
    assert_eq!(f.kind, FindingKind::Race, "{f}");
    assert!(
        f.text.contains("plain write") && f.text.contains("plain read"),
        "{f}"
    );
}

/// The text of `.entry name` up to its closing brace.
fn kernel_text<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no kernel {name}"));
    let end = ptx[start..].find("\n}").unwrap() + start;
    &ptx[start..end]
}

#[test]
fn a_mask_without_the_own_lane_panics_naming_it() {
    let err = executor::launch(Dim3::x(1), Dim3::x(8), || {
        if scoped_atomics::kernel::thread_idx().x == 3 {
            sync_warp(0b0001);
        }
    })
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("mask 0x00000001") && text.contains("lane 3"),
        "{text}"
    );
}

#[test]
fn a_mask_naming_missing_lanes_panics_naming_them() {
    let err = executor::launch(Dim3::x(1), Dim3::x(40), || {
        if scoped_atomics::kernel::thread_idx().x == 33 {
            // Warp 1 of a 40-thread block has lanes 0..8 only.
            sync_warp(0x0000_0302);
        }
    })
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("0x00000302") && text.contains("40 threads") && text.contains("8 lanes"),
        "{text}"
    );
}

/// A kernel whose threads each run `bar.warp.sync` with the mask in the first parameter.
const MASK_PTX: &str = "
.version 7.0
.target sm_70
.address_size 64

.visible .entry warp_sync_mask(
	.param .u32 warp_sync_mask_param_0
)
{
	.reg .b32 	%r<2>;

	ld.param.u32 	%r1, [warp_sync_mask_param_0];
	bar.warp.sync 	%r1;
	ret;
}
";

fn run_mask(mask: u32, threads: u32) -> scoped_atomics_host::sim::Outcome {
    scoped_atomics_host::sim::Simulator::new(MASK_PTX)
        .unwrap()
        .kernel("warp_sync_mask")
        .unwrap()
        .launch(
            &Launch::new([1, 1, 1], [threads, 1, 1], vec![Arg::U32(mask)]),
            Vec::new(),
        )
        .unwrap()
}

#[test]
fn the_simulator_reports_bar_warp_sync_misuse() {
    // Two masks in one warp, each naming its own half: both complete.
    let halves = "ld.param.u32 \t%r1, [warp_sync_mask_param_0];\n\tmov.u32 \t%r1, %laneid;\n\t\
                  setp.lt.u32 \t%p1, %r1, 16;\n\tselp.b32 \t%r1, 65535, -65536, %p1;";
    let split = MASK_PTX
        .replace(
            ".reg .b32 \t%r<2>;",
            ".reg .b32 \t%r<2>;\n\t.reg .pred \t%p<2>;",
        )
        .replace("ld.param.u32 \t%r1, [warp_sync_mask_param_0];", halves);
    let out = scoped_atomics_host::sim::Simulator::new(&split)
        .unwrap()
        .kernel("warp_sync_mask")
        .unwrap()
        .launch(
            &Launch::new([1, 1, 1], [32, 1, 1], vec![Arg::U32(0)]),
            Vec::new(),
        )
        .unwrap();
    assert!(
        out.completed && out.findings.is_empty(),
        "{:?}",
        out.findings
    );
    // The full mask of a 32-thread block completes.
    let out = run_mask(u32::MAX, 32);
    assert!(
        out.completed && out.findings.is_empty(),
        "{:?}",
        out.findings
    );
    // A mask without the thread's own lane: a fault naming mask and lane.
    let out = run_mask(0b1, 2);
    let f = out.findings.last().expect("a fault");
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(
        f.text.contains("0x00000001") && f.text.contains("own lane 1"),
        "{f}"
    );
    // A mask naming lanes the block lacks: a fault.
    let out = run_mask(0b1111, 2);
    let f = out.findings.last().expect("a fault");
    assert_eq!(f.kind, FindingKind::Fault, "{f}");
    assert!(f.text.contains("lanes that do not exist"), "{f}");
    // A member lane that exits instead of arriving: lane 0 waits forever, a hang.
    let early_exit = MASK_PTX
        .replace(
            ".reg .b32 \t%r<2>;",
            ".reg .b32 \t%r<3>;\n\t.reg .pred \t%p<2>;",
        )
        .replace(
            "bar.warp.sync",
            "mov.u32 \t%r2, %tid.x;\n\tsetp.ne.u32 \t%p1, %r2, 0;\n\t@%p1 ret;\n\tbar.warp.sync",
        );
    let out = scoped_atomics_host::sim::Simulator::new(&early_exit)
        .unwrap()
        .kernel("warp_sync_mask")
        .unwrap()
        .launch(
            &Launch::new([1, 1, 1], [2, 1, 1], vec![Arg::U32(0b11)]),
            Vec::new(),
        )
        .unwrap();
    let f = out.findings.last().expect("a hang");
    assert_eq!(f.kind, FindingKind::Hang, "{f}");
    assert!(
        f.text.contains("wait at barriers that cannot complete"),
        "{f}"
    );
}
