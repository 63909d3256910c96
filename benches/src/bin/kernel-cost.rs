//! `cargo run -p benches --release --bin kernel-cost`: the **static** cost model of whole
//! kernels — seven kernels written with `scoped-atomics` against their CUDA C++ twins (libcu++
//! `cuda::atomic_ref` and the classic intrinsics), PTX, SASS, registers, hot-loop SASS and
//! hot-loop loads at sm_80 and sm_90 (see `benches::kernel_cost`). Writes
//! `target/device-cost/kernels.md` and prints it; exit status 1 if a kernel misses the target
//! (within 2 SASS instructions of the smaller twin), 2 if a tool is missing.

use benches::cuda_tools::CudaTools;
use benches::kernel_cost;
use scoped_atomics_host::ptx::{Error, Toolchain};
use std::fs;
use std::process::ExitCode;

fn main() -> ExitCode {
    let result = (|| -> Result<(String, bool), Error> {
        let tc = Toolchain::discover()?;
        let cuda = CudaTools::discover(&tc.root)?;
        eprintln!("kernel-cost: building and measuring (sm_80, sm_90)...");
        let costs = kernel_cost::measure_all(&tc, &cuda)?;
        let md = kernel_cost::report(&costs);
        let out = tc.root.join("target/device-cost/kernels.md");
        fs::create_dir_all(out.parent().unwrap()).map_err(|e| Error::Failed(e.to_string()))?;
        fs::write(&out, &md).map_err(|e| Error::Failed(e.to_string()))?;
        Ok((md, kernel_cost::done_when(&costs).is_empty()))
    })();
    match result {
        Ok((md, met)) => {
            println!("{md}");
            if met {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(Error::Missing(e)) => {
            eprintln!("kernel-cost: missing: {e} (run `bash tools/install.sh`)");
            ExitCode::from(2)
        }
        Err(Error::Failed(e)) => {
            eprintln!("kernel-cost: {e}");
            ExitCode::FAILURE
        }
    }
}
