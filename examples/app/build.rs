//! Builds the `kernels` crate to PTX with `scoped_atomics_build::PtxBuilder` (the pinned
//! nightly, `-Zbuild-std=core`, every flag the PTX needs) and checks it with ptxas. The PTX path
//! reaches the crate as `env!("KERNELS_PTX")`. Cargo reruns this only when the kernels change.

use scoped_atomics_build::PtxBuilder;

fn main() {
    // sm_70 PTX runs on every GPU from Volta on: the driver compiles it for the GPU it loads on.
    match PtxBuilder::new("../kernels")
        .arch("sm_70")
        .verify_with_ptxas(true)
        .build()
    {
        Ok(ptx) => println!("cargo:rustc-env=KERNELS_PTX={}", ptx.display()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
