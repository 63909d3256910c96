//! The kernel cost model: whole kernels written with `scoped-atomics` against their CUDA C++
//! twins, statically (instruction counts, not timings).
//!
//! Seven kernels ([`KERNELS`]): a shared-memory histogram, a block reduction of `f32` and of
//! `u32`, a device-wide ticket lock, a hash-table insert, message passing between blocks and a
//! polling loop — written three ways with the same orders, scopes and loops:
//!
//! * **Rust**: `benches/kernel-cost/kernels.rs`, atomics through
//!   `AtomicRef::from_global_ptr`/`from_shared_ptr`, plain shared accesses through
//!   `plain::read_shared`/`write_shared`; built by `PtxBuilder` three times: with LLVM's
//!   defaults, without runtime unrolling (`.runtime_unroll(false)`), and also without loop
//!   strength reduction (`.loop_strength_reduction(false)`, "lean loops");
//! * **libcu++**: `benches/kernel-cost/libcu.cu`, `cuda::atomic_ref`;
//! * **intrinsics**: `benches/kernel-cost/intrinsics.cu`, `atomicAdd`, `atomicAdd_block`,
//!   `atomicCAS`, and `volatile` accesses with `__threadfence()` for acquire/release;
//!
//! the CUDA C++ compiled by nvcc 13.5 (`-O3`, CCCL of CUDA 13.5), everything assembled by ptxas
//! 13.5 and disassembled by `cuobjdump -sass`, for sm_80 and sm_90. Per kernel: PTX
//! instructions, SASS instructions (padding dropped), registers, stack bytes, and the **hot
//! loop** — the largest loop of the SASS (from a backward branch's target to the branch) — its
//! SASS instructions and its memory loads (`LD`, `LDG`, `LDS`, `LDL`: not constant-bank reads).
//!
//! [`done_when`] is the target of the comparison: at each architecture, each Rust kernel (the
//! best of its three builds, named in the report) has at most 2 SASS instructions more than the
//! smaller of its two twins, in total and in the hot loop.

use crate::cuda_tools::{self, CudaTools, Measured, nvcc_ptx};
use crate::device_cost::{SassInstr, sass_cost};
use scoped_atomics_host::build::PtxBuilder;
use scoped_atomics_host::ptx::{Error, Target, Toolchain};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// The kernels, in report order (the names of their entry points on every side).
pub const KERNELS: [&str; 7] = [
    "histogram",
    "block_reduce_f32",
    "block_reduce_u32",
    "ticket_lock",
    "hash_insert",
    "message_passing",
    "polling_loop",
];

/// The architectures of the report.
pub const TARGETS: [Target; 2] = [Target::Sm80, Target::Sm90];

/// The Rust kernels, the `lib.rs` of the scratch crate.
pub const RUST_SOURCE: &str = include_str!("../kernel-cost/kernels.rs");
/// The libcu++ twins.
pub const LIBCU_SOURCE: &str = include_str!("../kernel-cost/libcu.cu");
/// The classic-intrinsics twins.
pub const INTRINSICS_SOURCE: &str = include_str!("../kernel-cost/intrinsics.cu");

/// How far above the smaller twin a Rust kernel may be, in SASS instructions (total and hot loop).
pub const SLACK: usize = 2;

/// One way of writing the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// `scoped-atomics`, built with LLVM's runtime unrolling (the default).
    Rust,
    /// `scoped-atomics`, built with `PtxBuilder::runtime_unroll(false)`.
    RustNoUnroll,
    /// `scoped-atomics`, built with `PtxBuilder::runtime_unroll(false)` and
    /// `.loop_strength_reduction(false)`.
    RustLeanLoops,
    /// CUDA C++ with `cuda::atomic_ref`.
    Libcu,
    /// CUDA C++ with the classic intrinsics.
    Intrinsics,
}

impl Side {
    pub const ALL: [Side; 5] = [
        Side::Rust,
        Side::RustNoUnroll,
        Side::RustLeanLoops,
        Side::Libcu,
        Side::Intrinsics,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Side::Rust => "Rust",
            Side::RustNoUnroll => "Rust, no runtime unroll",
            Side::RustLeanLoops => "Rust, no runtime unroll nor loop strength reduction",
            Side::Libcu => "libcu++",
            Side::Intrinsics => "intrinsics",
        }
    }
}

/// The static cost of one kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelCost {
    pub ptx: usize,
    pub sass: usize,
    pub registers: u32,
    pub stack: u32,
    pub hot_sass: usize,
    pub hot_loads: usize,
}

/// The address a branch instruction jumps to (`BRA 0x1a0`, `@!P0 BRA 0x30`, `BRA.U !UP0, 0x40`).
fn branch_target(instr: &SassInstr) -> Option<u64> {
    if !instr.opcode().starts_with("BRA") {
        return None;
    }
    let last = instr.text.split([' ', ',']).rfind(|w| !w.is_empty())?;
    u64::from_str_radix(last.trim_start_matches("0x"), 16).ok()
}

/// The hot loop of a function's SASS: the largest range from a backward branch's target to the
/// branch (padding excluded); empty for a function without a loop.
pub fn hot_loop(instrs: &[SassInstr]) -> Vec<&SassInstr> {
    let kept: Vec<&SassInstr> = instrs.iter().filter(|i| !i.is_padding()).collect();
    let mut best: Vec<&SassInstr> = Vec::new();
    for (at, instr) in kept.iter().enumerate() {
        let Some(target) = branch_target(instr) else {
            continue;
        };
        if target > instr.address {
            continue;
        }
        let Some(start) = kept.iter().position(|i| i.address == target) else {
            continue;
        };
        if at + 1 - start > best.len() {
            best = kept[start..=at].to_vec();
        }
    }
    best
}

/// A memory load: `LD`, `LDG`, `LDS`, `LDL` (with any modifiers), not a constant-bank read.
pub fn is_load(opcode: &str) -> bool {
    matches!(
        opcode.split('.').next().unwrap_or_default(),
        "LD" | "LDG" | "LDS" | "LDL"
    )
}

impl KernelCost {
    /// The cost of a measured kernel.
    pub fn of(m: &Measured) -> KernelCost {
        let hot = hot_loop(&m.sass);
        KernelCost {
            ptx: m.ptx,
            sass: sass_cost(&m.sass).total,
            registers: m.registers,
            stack: m.stack,
            hot_sass: hot.len(),
            hot_loads: hot.iter().filter(|i| is_load(i.opcode())).count(),
        }
    }
}

/// The costs of every kernel on every side at every architecture.
pub type Costs = BTreeMap<(Target, Side), BTreeMap<String, KernelCost>>;

/// The Rust build of a kernel that the target is checked on: the one with fewer SASS
/// instructions (with runtime unrolling on a tie).
pub fn our_side(costs: &Costs, target: Target, kernel: &str) -> Side {
    let sass = |side| {
        costs
            .get(&(target, side))
            .and_then(|k| k.get(kernel))
            .map_or(usize::MAX, |c| c.sass)
    };
    // The first of the smallest, in the order of `Side::ALL` (the defaults first).
    [Side::Rust, Side::RustNoUnroll, Side::RustLeanLoops]
        .into_iter()
        .min_by_key(|side| sass(*side))
        .unwrap_or(Side::Rust)
}

/// The kernels that miss the target (see the module docs), each with its numbers; empty if
/// every kernel meets it. A kernel missing from a side is a miss too.
pub fn done_when(costs: &Costs) -> Vec<String> {
    let mut misses = Vec::new();
    for target in TARGETS {
        for kernel in KERNELS {
            let get = |side| costs.get(&(target, side)).and_then(|k| k.get(kernel));
            let side = our_side(costs, target, kernel);
            let (Some(ours), Some(libcu), Some(intr)) =
                (get(side), get(Side::Libcu), get(Side::Intrinsics))
            else {
                misses.push(format!("{target} {kernel}: not measured on every side"));
                continue;
            };
            let total = libcu.sass.min(intr.sass);
            let hot = libcu.hot_sass.min(intr.hot_sass);
            if ours.sass > total + SLACK || ours.hot_sass > hot + SLACK {
                misses.push(format!(
                    "{target} {kernel}: {} SASS, hot loop {}; the smaller twin {total}, hot loop \
                     {hot} (libcu++ {} / {}, intrinsics {} / {})",
                    ours.sass, ours.hot_sass, libcu.sass, libcu.hot_sass, intr.sass, intr.hot_sass
                ));
            }
        }
    }
    misses
}

/// The report: one table per architecture, then the target's verdict.
pub fn report(costs: &Costs) -> String {
    let mut md = String::from(
        "## Kernel cost: whole kernels against CUDA C++, a static model\n\n\
         Instruction counts, not timings (no GPU is involved). Seven kernels written three ways \
         with the same orders, scopes and loops: Rust with scoped-atomics (`from_global_ptr`, \
         `from_shared_ptr`, `plain::read_shared`/`write_shared`; built with LLVM's runtime \
         unrolling, with `PtxBuilder::runtime_unroll(false)`, and with that and \
         `.loop_strength_reduction(false)`), CUDA C++ with libcu++ `cuda::atomic_ref`, and CUDA \
         C++ with the classic intrinsics (nvcc 13.5 `-O3`); all assembled by ptxas 13.5. Cells: \
         Rust / Rust without runtime unrolling / Rust with lean loops (neither runtime unrolling \
         nor loop strength reduction) / libcu++ / intrinsics. Hot loop: the largest SASS loop; loads: `LD`/`LDG`/`LDS`/`LDL` in it.\n\n",
    );
    for target in TARGETS {
        let _ = write!(
            md,
            "### {target} (ptxas 13.5 -arch={})\n\n\
             | kernel | PTX | SASS | registers | stack bytes | hot-loop SASS | hot-loop loads | checked build |\n\
             |---|--:|--:|--:|--:|--:|--:|---|\n",
            target.arch()
        );
        for kernel in KERNELS {
            let cell = |f: &dyn Fn(&KernelCost) -> String| {
                Side::ALL
                    .iter()
                    .map(|side| {
                        costs
                            .get(&(target, *side))
                            .and_then(|k| k.get(kernel))
                            .map_or("–".to_string(), f)
                    })
                    .collect::<Vec<_>>()
                    .join(" / ")
            };
            let _ = writeln!(
                md,
                "| `{kernel}` | {} | {} | {} | {} | {} | {} | {} |",
                cell(&|c| c.ptx.to_string()),
                cell(&|c| c.sass.to_string()),
                cell(&|c| c.registers.to_string()),
                cell(&|c| c.stack.to_string()),
                cell(&|c| c.hot_sass.to_string()),
                cell(&|c| c.hot_loads.to_string()),
                our_side(costs, target, kernel).label()
            );
        }
        md.push('\n');
    }
    let misses = done_when(costs);
    if misses.is_empty() {
        let _ = writeln!(
            md,
            "**Target met**: at sm_80 and sm_90 every Rust kernel (its checked build) is within \
             {SLACK} SASS instructions of the smaller CUDA twin, in total and in the hot loop."
        );
    } else {
        let _ = writeln!(
            md,
            "**Target missed** (each Rust kernel within {SLACK} SASS instructions of the smaller \
             CUDA twin, total and hot loop) by:\n"
        );
        for m in misses {
            let _ = writeln!(md, "* {m}");
        }
    }
    md
}

/// The Rust kernels' PTX for `target`, built as `side` says: a scratch crate under
/// `target/device-cost/kernels/crate` built by `PtxBuilder`.
fn our_ptx(tc: &Toolchain, target: Target, side: Side) -> Result<PathBuf, Error> {
    let dir = tc.root.join("target/device-cost/kernels/crate");
    fs::create_dir_all(dir.join("src")).map_err(|e| Error::Failed(e.to_string()))?;
    let manifest = format!(
        "[package]\nname = \"kernel-cost\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [lib]\ncrate-type = [\"rlib\"]\n\n[dependencies]\nscoped-atomics = {{ path = {:?}, default-features = false }}\n\n\
         [workspace]\n",
        tc.root.join("atomics")
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
    write_if_changed(&dir.join("src/lib.rs"), RUST_SOURCE)?;
    let (out, runtime_unroll, loop_strength_reduction) = match side {
        Side::Rust => ("unroll", true, true),
        Side::RustNoUnroll => ("no-unroll", false, true),
        Side::RustLeanLoops => ("lean-loops", false, false),
        Side::Libcu | Side::Intrinsics => unreachable!("{side:?} is not Rust"),
    };
    PtxBuilder::new(&dir)
        .arch(target.name())
        .runtime_unroll(runtime_unroll)
        .loop_strength_reduction(loop_strength_reduction)
        .out_dir(tc.root.join("target/device-cost/kernels").join(out))
        .build()
        .map_err(|e| Error::Failed(format!("building the Rust kernels: {e}")))
}

/// Writes `text` to `path` unless it holds it already (keeps cargo's fingerprints fresh).
fn write_if_changed(path: &Path, text: &str) -> Result<(), Error> {
    if fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    fs::write(path, text).map_err(|e| Error::Failed(format!("{}: {e}", path.display())))
}

/// One CUDA C++ side's PTX for `target`.
fn their_ptx(
    tc: &Toolchain,
    cuda: &CudaTools,
    target: Target,
    side: Side,
) -> Result<PathBuf, Error> {
    let dir = tc.root.join("target/device-cost/kernels");
    fs::create_dir_all(&dir).map_err(|e| Error::Failed(e.to_string()))?;
    let (name, source) = match side {
        Side::Libcu => ("libcu", LIBCU_SOURCE),
        Side::Intrinsics => ("intrinsics", INTRINSICS_SOURCE),
        _ => unreachable!("{side:?} is not CUDA C++"),
    };
    let cu = dir.join(format!("{name}.cu"));
    write_if_changed(&cu, source)?;
    let out = dir.join(format!("{name}-{}.ptx", target.name()));
    nvcc_ptx(cuda, &cu, target.arch(), &out)?;
    Ok(out)
}

/// Builds, assembles and measures every side at every architecture.
pub fn measure_all(tc: &Toolchain, cuda: &CudaTools) -> Result<Costs, Error> {
    let mut costs = Costs::new();
    for target in TARGETS {
        for side in Side::ALL {
            let ptx = match side {
                Side::Rust | Side::RustNoUnroll | Side::RustLeanLoops => our_ptx(tc, target, side)?,
                Side::Libcu | Side::Intrinsics => their_ptx(tc, cuda, target, side)?,
            };
            let measured = cuda_tools::measure(tc, cuda, &ptx, target)?;
            costs.insert(
                (target, side),
                measured
                    .iter()
                    .map(|(name, m)| (name.clone(), KernelCost::of(m)))
                    .collect(),
            );
        }
    }
    Ok(costs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instr(address: u64, text: &str) -> SassInstr {
        SassInstr {
            address,
            text: text.into(),
        }
    }

    #[test]
    fn the_hot_loop_is_the_largest_backward_branch_range() {
        let sass = [
            instr(0x00, "MOV R1, c[0x0][0x28]"),
            instr(0x10, "LDG.E R2, [R4.64]"),
            instr(0x20, "LDS R3, [R0]"),
            instr(0x30, "@!P0 BRA 0x20"),
            instr(0x40, "ULDC UR4, c[0x0][0x160]"),
            instr(0x50, "LDG.E R5, [R6.64]"),
            instr(0x60, "@P1 BRA 0x10"),
            instr(0x70, "EXIT"),
            instr(0x80, "BRA 0x80"),
            instr(0x90, "NOP"),
        ];
        let hot = hot_loop(&sass);
        assert_eq!(hot.len(), 6);
        assert_eq!(hot.iter().filter(|i| is_load(i.opcode())).count(), 3);
        assert!(hot_loop(&sass[..3]).is_empty());
        assert_eq!(branch_target(&instr(0, "BRA.U !UP0, 0x40")), Some(0x40));
    }

    fn cost(sass: usize, hot_sass: usize) -> KernelCost {
        KernelCost {
            sass,
            hot_sass,
            ..KernelCost::default()
        }
    }

    fn costs(ours: (usize, usize), no_unroll: (usize, usize), libcu: usize, intr: usize) -> Costs {
        let mut c = Costs::new();
        for target in TARGETS {
            for (side, (sass, hot)) in [
                (Side::Rust, ours),
                (Side::RustNoUnroll, no_unroll),
                (Side::RustLeanLoops, (no_unroll.0 + 1, no_unroll.1)),
                (Side::Libcu, (libcu, libcu / 2)),
                (Side::Intrinsics, (intr, intr / 2)),
            ] {
                c.insert(
                    (target, side),
                    KERNELS
                        .iter()
                        .map(|k| (k.to_string(), cost(sass, hot)))
                        .collect(),
                );
            }
        }
        c
    }

    #[test]
    fn the_target_allows_two_instructions_over_the_smaller_twin() {
        assert!(done_when(&costs((42, 21), (50, 30), 40, 44)).is_empty());
        // Three over in total, or in the hot loop, misses (at both architectures, all kernels).
        assert_eq!(done_when(&costs((43, 20), (50, 30), 40, 44)).len(), 14);
        assert_eq!(done_when(&costs((40, 23), (50, 30), 40, 44)).len(), 14);
        // The better build is the one checked.
        let c = costs((155, 80), (41, 21), 40, 44);
        assert_eq!(
            our_side(&c, Target::Sm80, "ticket_lock"),
            Side::RustNoUnroll
        );
        assert!(done_when(&c).is_empty());
        // Lean loops where they are the smallest build.
        let mut c = costs((47, 11), (47, 11), 45, 42);
        for target in TARGETS {
            c.get_mut(&(target, Side::RustLeanLoops))
                .unwrap()
                .insert("histogram".into(), cost(42, 11));
        }
        assert_eq!(our_side(&c, Target::Sm80, "histogram"), Side::RustLeanLoops);
        assert_eq!(our_side(&c, Target::Sm80, "ticket_lock"), Side::Rust);
        assert_eq!(done_when(&c).len(), 12); // every other kernel, at both targets
        // A kernel missing from a side is a miss.
        let mut c = costs((40, 20), (40, 20), 40, 44);
        c.get_mut(&(Target::Sm90, Side::Libcu))
            .unwrap()
            .remove("hash_insert");
        assert_eq!(
            done_when(&c),
            ["sm_90 hash_insert: not measured on every side"]
        );
    }
}
