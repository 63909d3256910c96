//! Builds the `kernels` crate to PTX with `scoped_atomics_build::PtxBuilder` (the pinned
//! nightly, `-Zbuild-std=core`, every flag the PTX needs) and checks it with ptxas. The PTX path
//! reaches the crate as `env!("KERNELS_PTX")`. Cargo reruns this only when the kernels change.

use scoped_atomics_build::PtxBuilder;

fn main() {
    // sm_70 PTX runs on every GPU from Volta on: the driver compiles it for the GPU it loads on.
    // The sm_90 build adds the cluster kernels (thread-block clusters need sm_90).
    for (arch, variable) in [("sm_70", "KERNELS_PTX"), ("sm_90", "KERNELS_PTX_SM90")] {
        match PtxBuilder::new("../kernels")
            .arch(arch)
            .verify_with_ptxas(true)
            .build()
        {
            Ok(ptx) => println!("cargo:rustc-env={variable}={}", ptx.display()),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
}
