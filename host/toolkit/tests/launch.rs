//! One launch description (`launch::Launch`) of a `#[kernel]` run on host threads and in the
//! simulator: the same typed results as the direct computation, a `#[repr(C)]` buffer with
//! per-element initial contents, each run from those contents, and a planted scope race that
//! comes back from the simulator as a `Finding` value.

use scoped_atomics::kernel::{ArgumentMismatch, Dim3, index_1d};
use scoped_atomics::{AtomicRef, Block, Device, Ordering, Scope};
use scoped_atomics_host::executor::LaunchError;
use scoped_atomics_host::launch::Launch;
use scoped_atomics_host::sim::{FindingKind, SimError};

/// A tally: how many values fell in it, and their sum.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Tally {
    count: u32,
    sum: u32,
}

/// Thread `i < len` of the grid adds `input[i]` into `tallies[input[i] % bins]` (count and sum,
/// atomic adds at scope `S`). `S = Device` is right; `S = Block` across blocks is a scope race.
///
/// # Safety
/// `input` holds `len` values, `tallies` `bins` (non-zero) tallies.
#[scoped_atomics::kernel(instantiate(tally = Device, tally_block_scope = Block))]
pub unsafe fn tally<S: Scope>(input: *const u32, len: usize, tallies: *mut Tally, bins: u32) {
    let i = index_1d();
    if i >= len {
        return;
    }
    // SAFETY: `i < len` and the tally `< bins`: the caller's contract; the tallies are only
    // updated atomically.
    unsafe {
        let value = input.add(i).read();
        let tally = tallies.add((value % bins) as usize);
        AtomicRef::<u32, S>::from_ptr(&raw mut (*tally).count).add(1, Ordering::Relaxed);
        AtomicRef::<u32, S>::from_ptr(&raw mut (*tally).sum).add(value, Ordering::Relaxed);
    }
}

/// `tally`'s PTX, as rustc writes it for the body above (written out here: the scope is the
/// only difference between the two entry points).
fn tally_ptx() -> String {
    let entry = |name: &str, scope: &str| {
        format!(
            "
.visible .entry {name}(
\t.param .u64 {name}_param_0,
\t.param .u64 {name}_param_1,
\t.param .u64 {name}_param_2,
\t.param .u32 {name}_param_3
)
{{
\t.reg .pred %p<2>;
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<11>;

\tld.param.u64 %rd1, [{name}_param_0];
\tld.param.u64 %rd2, [{name}_param_1];
\tld.param.u64 %rd3, [{name}_param_2];
\tld.param.u32 %r1, [{name}_param_3];
\tmov.u32 %r2, %tid.x;
\tmov.u32 %r3, %ctaid.x;
\tmov.u32 %r4, %ntid.x;
\tmad.lo.s32 %r5, %r3, %r4, %r2;
\tcvt.u64.u32 %rd4, %r5;
\tsetp.ge.u64 %p1, %rd4, %rd2;
\t@%p1 bra $L_done;
\tcvta.to.global.u64 %rd5, %rd1;
\tshl.b64 %rd6, %rd4, 2;
\tadd.s64 %rd7, %rd5, %rd6;
\tld.global.u32 %r6, [%rd7];
\trem.u32 %r7, %r6, %r1;
\tcvta.to.global.u64 %rd8, %rd3;
\tmul.wide.u32 %rd9, %r7, 8;
\tadd.s64 %rd10, %rd8, %rd9;
\tred.relaxed.{scope}.global.add.u32 [%rd10], 1;
\tred.relaxed.{scope}.global.add.u32 [%rd10+4], %r6;
$L_done:
\tret;
}}
"
        )
    };
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n{}{}",
        entry("tally", "gpu"),
        entry("tally_block_scope", "cta")
    )
}

fn input(len: u32) -> Vec<u32> {
    (0..len)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect()
}

/// The tallies computed directly, from `initial`.
fn expected(input: &[u32], initial: &[Tally]) -> Vec<Tally> {
    let mut tallies = initial.to_vec();
    for &v in input {
        let t = &mut tallies[(v % initial.len() as u32) as usize];
        t.count += 1;
        t.sum = t.sum.wrapping_add(v);
    }
    tallies
}

/// The launch of `kernel` over `values` into tallies starting at `initial`: 3 blocks of 32
/// threads (a short last block when there are fewer values).
fn describe(
    kernel: scoped_atomics::kernel::KernelEntry,
    values: &[u32],
    initial: &[Tally],
) -> (Launch, scoped_atomics_host::launch::Buffer<Tally>) {
    let mut launch = Launch::new(kernel, Dim3::x(3), Dim3::x(32));
    launch.buffer(values);
    launch.scalar(values.len());
    let tallies = launch.buffer(initial);
    launch.scalar(initial.len() as u32);
    (launch, tallies)
}

#[test]
fn one_description_runs_on_host_threads_and_in_the_simulator_with_the_same_typed_results() {
    let values = input(90);
    // Per-element initial contents: each tally starts elsewhere.
    let initial: Vec<Tally> = (0..5)
        .map(|i| Tally {
            count: i,
            sum: 100 * i,
        })
        .collect();
    let want = expected(&values, &initial);
    let (mut launch, tallies) = describe(TALLY, &values, &initial);

    // SAFETY: 90 values and 5 tallies, as `tally` needs for `len = 90`, `bins = 5`.
    let on_host = unsafe { launch.on_host_threads() }.unwrap();
    assert_eq!(on_host[tallies], want[..]);
    // Each run starts from the initial contents: the second is the same, not doubled.
    let again = unsafe { launch.on_host_threads() }.unwrap();
    assert_eq!(again[tallies], want[..]);

    let ptx = tally_ptx();
    for seed in 1..=3 {
        let simulated = launch.seed(seed).in_simulator(&ptx).unwrap();
        assert_eq!(simulated.seed, seed);
        let buffers = simulated
            .clean()
            .unwrap_or_else(|findings| panic!("seed {seed}: {findings:?}"));
        assert_eq!(buffers[tallies], want[..], "seed {seed}");
    }
}

#[test]
fn a_planted_scope_race_comes_back_from_the_simulator_as_a_finding_value() {
    let values = input(64);
    let initial = vec![Tally::default(); 4];
    let (launch, _) = describe(TALLY_BLOCK_SCOPE, &values, &initial);
    let simulated = launch.in_simulator(&tally_ptx()).unwrap();
    assert!(!simulated.completed);
    let race = simulated
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Race)
        .unwrap_or_else(|| panic!("no race among {:?}", simulated.findings));
    assert!(race.text.starts_with("race: strong (cta)"), "{race}");
    assert!(
        race.text
            .contains("a scope does not include the other thread"),
        "{race}"
    );
    let findings = simulated.clean().unwrap_err();
    assert!(findings.iter().any(|f| f.kind == FindingKind::Race));

    // The right scope on the same description: no finding.
    let (launch, _) = describe(TALLY, &values, &initial);
    assert!(launch.in_simulator(&tally_ptx()).unwrap().clean().is_ok());
}

#[test]
fn arguments_that_do_not_fit_are_refused_by_every_back_end_naming_the_argument() {
    let values = input(8);
    let mut launch = Launch::new(TALLY, Dim3::x(1), Dim3::x(8));
    launch.buffer(&values[..]);
    launch.scalar(values.len() as u32); // `len` is a usize
    launch.buffer(vec![Tally::default(); 2]);
    launch.scalar(2u32);
    let mismatch = ArgumentMismatch::Size {
        kernel: "tally",
        index: 1,
        given: 4,
        parameter: 8,
    };
    // SAFETY: refused before anything runs.
    let e = unsafe { launch.on_host_threads() }.unwrap_err();
    assert_eq!(e, LaunchError::Arguments(mismatch));
    assert_eq!(
        e.to_string(),
        "argument 1 of kernel `tally` has 4 bytes, its parameter 8"
    );
    assert_eq!(
        launch.in_simulator(&tally_ptx()).unwrap_err(),
        SimError::BadInput(mismatch.to_string())
    );
    // SAFETY: refused before anything runs.
    let e = unsafe { launch.on_gpu(&tally_ptx()) }.unwrap_err();
    assert_eq!(
        e,
        scoped_atomics_host::launch::GpuError::Arguments(mismatch)
    );
}

#[test]
fn the_gpu_path_skips_cleanly_without_a_driver() {
    let values = input(40);
    let initial = vec![Tally::default(); 3];
    let (launch, tallies) = describe(TALLY, &values, &initial);
    // SAFETY: 40 values and 3 tallies.
    match unsafe { launch.on_gpu(&tally_ptx()) }.unwrap() {
        scoped_atomics_host::launch::OnGpu::Ran(out) => {
            assert_eq!(out[tallies], expected(&values, &initial)[..])
        }
        scoped_atomics_host::launch::OnGpu::Skipped(why) => {
            if !scoped_atomics_host::gpu::driver_present() {
                assert_eq!(why, scoped_atomics_host::gpu::NO_DRIVER);
            }
        }
    }
}

#[test]
#[should_panic(expected = "is a handle of another launch")]
fn a_handle_of_another_launch_is_refused() {
    let (launch, _) = describe(TALLY, &input(4), &[Tally::default()]);
    let (_, other) = describe(TALLY, &input(4), &[Tally::default()]);
    // SAFETY: 4 values, 1 tally.
    let out = unsafe { launch.on_host_threads() }.unwrap();
    let _ = &out[other];
}

/// A clone of a launch shares its handles; a buffer each adds afterwards is its own, and a
/// pointer through the other's handle is refused (it would point into another buffer).
#[test]
#[should_panic(expected = "names no buffer of its type in this clone of its launch")]
fn a_handle_of_a_clone_s_own_buffer_is_refused() {
    let (mut launch, _) = describe(TALLY, &input(4), &[Tally::default()]);
    let mut clone = launch.clone();
    let _bytes = launch.allocation(vec![0u8; 1]);
    let words = clone.allocation(vec![0u32; 64]);
    launch.pointer_to(words, 64);
}
