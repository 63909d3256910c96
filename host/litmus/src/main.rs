//! `ptx-litmus FILE_OR_DIR... [--races] [--json] [--dialect ptx|dat3m]`: decides PTX litmus tests by the axioms of the
//! PTX memory model (see [`ptx_litmus::cli`]; `--help` lists the arguments).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    ptx_litmus::cli::run(&args)
}
