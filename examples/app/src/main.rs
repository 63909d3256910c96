//! Runs the kernels on the GPU from their launch descriptions and compares with the host-thread
//! runs of the same descriptions; without a CUDA driver it says so and exits successfully.

use std::process::ExitCode;

fn main() -> ExitCode {
    let input = app::input(100_003, 7);
    match app::run_on_gpu(&input) {
        Ok(Err(skipped)) => {
            println!("{skipped}");
            ExitCode::SUCCESS
        }
        Ok(Ok(results)) => {
            let mut ok = true;
            for (kernel, same) in results {
                println!(
                    "{kernel}: {}",
                    if same { "GPU = host" } else { "GPU != host" }
                );
                ok &= same;
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("GPU run failed: {e}");
            ExitCode::FAILURE
        }
    }
}
