//! `ptx-sim FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--arg …]… [--seed N]
//! [--schedules K] [--json]`: runs a kernel of any PTX module in the simulator (see
//! [`ptx_sim::cli`]; `--help` lists the arguments).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    ptx_sim::cli::main(&args)
}
