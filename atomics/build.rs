//! The PTX ISA version a device build emits, derived in one place for every gate of the crate.
//!
//! rustc sets `target_feature = "ptxNN"` only for the versions named with `+ptxNN` (and those
//! they imply), while LLVM emits `.version` at least as high as the target CPU needs (measured
//! with the pinned nightly's LLVM: sm_86 → 7.1, sm_89 → 7.8, sm_100 → 8.6, sm_120 → 8.7), and
//! never below rustc's own floor, 7.0. So a gate on `target_feature = "ptx86"` refused what an
//! sm_100 build emits anyway. On `nvptx64` this script emits, for the build's version V:
//!
//! * `cfg(ptx_isa_at_least = "NN")` for every known version NN ≤ V (`"71"`, `"83"`, `"86"`, …),
//!   which the gates read instead of `target_feature = "ptxNN"`;
//! * the environment variable `SCOPED_ATOMICS_PTX_TARGET` (e.g. `sm_100 with PTX ISA 8.6`), which
//!   the compile errors quote, so that a refused build names its CPU and version;
//! * `cfg(hardware_barrier)` where the block barrier in shared memory is the hardware `mbarrier`:
//!   sm_80 or newer **and** PTX ISA 7.1 or newer. Its waits name a phase by its parity
//!   (`mbarrier.test_wait.parity`, ISA 7.1), the only form PTX defines for every phase a safe
//!   program can hold a token of (the state-token forms are undefined on a token two phases
//!   old). An sm_80 build at ISA 7.0 uses the generic barrier, which checks a token's age.
//!
//! The CPU is the last `-C target-cpu=` of `CARGO_ENCODED_RUSTFLAGS`; without one, the newest
//! `sm_NN` target feature (rustc's default CPU is sm_70). The explicit version is the newest
//! `ptxNN` target feature. The build's version is the larger of the two (LLVM refuses an explicit
//! version below the CPU's minimum), or the version in `SCOPED_ATOMICS_PTX_ISA` (e.g. `71`) if
//! larger: scoped-atomics-build sets it where it raises the `.version` of the PTX it writes above
//! LLVM's (sm_80: 7.1). Set it only where the PTX's `.version` is raised to match: the gates then
//! emit instructions of that version.

use std::env;

/// The PTX ISA versions (major × 10 + minor) a gate may ask for, oldest first.
const VERSIONS: [u32; 26] = [
    60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88,
    90, 91,
];

/// rustc's nvptx64 target never emits a PTX ISA older than 7.0 (measured: sm_70 and sm_75 give
/// `.version 7.0`, where LLVM alone gives 6.0 and 6.3).
const RUSTC_FLOOR: u32 = 70;

/// The PTX ISA version LLVM emits for `cpu` without a `+ptxNN` feature (major × 10 + minor),
/// measured with `llc -mcpu=…` of the pinned nightly; `None` for a CPU this table does not know.
fn cpu_default(cpu: &str) -> Option<u32> {
    let sm = cpu.strip_prefix("sm_")?;
    let digits: String = sm.chars().take_while(char::is_ascii_digit).collect();
    let suffix = &sm[digits.len()..];
    let version = match (digits.parse::<u32>().ok()?, suffix) {
        (..=80, _) => RUSTC_FLOOR,
        (86, _) => 71,
        (87, _) => 74,
        (88, _) => 90,
        (89, _) => 78,
        (90, "a") => 80,
        (90, _) => 78,
        (100 | 101, "f") => 88,
        (100 | 101, _) => 86,
        (103, _) => 88,
        (110, _) => 90,
        (120, "f") => 88,
        (120, _) => 87,
        (121, _) => 88,
        _ => return None,
    };
    Some(version.max(RUSTC_FLOOR))
}

/// The last `-C target-cpu=X` (or `-Ctarget-cpu=X`) of the encoded rustflags.
fn target_cpu(encoded_rustflags: &str) -> Option<String> {
    let flags: Vec<&str> = encoded_rustflags.split('\x1f').collect();
    let mut cpu = None;
    for (i, flag) in flags.iter().enumerate() {
        let codegen = match *flag {
            "-C" | "--codegen" => flags.get(i + 1).copied(),
            f => f
                .strip_prefix("-C")
                .or_else(|| f.strip_prefix("--codegen=")),
        };
        if let Some(value) = codegen.and_then(|c| c.strip_prefix("target-cpu=")) {
            cpu = Some(value.to_string());
        }
    }
    cpu
}

/// The newest `prefixNN` of the target features, as NN.
fn newest_feature(features: &str, prefix: &str) -> Option<u32> {
    features
        .split(',')
        .filter_map(|f| f.strip_prefix(prefix)?.parse::<u32>().ok())
        .max()
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let values: Vec<String> = VERSIONS.iter().map(|v| format!("\"{v}\"")).collect();
    println!(
        "cargo::rustc-check-cfg=cfg(ptx_isa_at_least, values({}))",
        values.join(", ")
    );
    println!("cargo::rustc-check-cfg=cfg(hardware_barrier)");
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("nvptx64") {
        println!("cargo::rustc-env=SCOPED_ATOMICS_PTX_TARGET=a target other than nvptx64");
        return;
    }
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let cpu = target_cpu(&env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default())
        .or_else(|| newest_feature(&features, "sm_").map(|sm| format!("sm_{sm}")))
        .unwrap_or_else(|| "sm_70".to_string());
    let from_cpu = cpu_default(&cpu).unwrap_or_else(|| {
        // A CPU newer than the table: at least what its newest `sm_NN` feature needs.
        println!(
            "cargo::warning=scoped-atomics: unknown target CPU `{cpu}`; its PTX ISA version is \
             taken from its newest sm_NN target feature"
        );
        newest_feature(&features, "sm_")
            .and_then(|sm| cpu_default(&format!("sm_{sm}")))
            .unwrap_or(RUSTC_FLOOR)
    });
    let explicit = newest_feature(&features, "ptx").unwrap_or(0);
    // The version scoped-atomics-build raises the PTX's `.version` to (sm_80: 7.1), which LLVM
    // does not know: without `+ptx71`, about which rustc warns in every crate of the build.
    println!("cargo::rerun-if-env-changed=SCOPED_ATOMICS_PTX_ISA");
    let raised = env::var("SCOPED_ATOMICS_PTX_ISA")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .unwrap_or(0);
    let version = from_cpu.max(explicit).max(raised);
    for v in VERSIONS.iter().filter(|&&v| v <= version) {
        println!("cargo::rustc-cfg=ptx_isa_at_least=\"{v}\"");
    }
    if features.split(',').any(|f| f == "sm_80") && version >= 71 {
        println!("cargo::rustc-cfg=hardware_barrier");
    }
    println!(
        "cargo::rustc-env=SCOPED_ATOMICS_PTX_TARGET={cpu} with PTX ISA {}.{}",
        version / 10,
        version % 10
    );
}
