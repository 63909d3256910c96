//! `host`: command-line tools of the host side.
//!
//! `cargo run -p host --release -- ptx [--target sm_70|sm_80|sm_90|sm_90_ptx86|all] [--jobs N]`
//! builds the probe kernels, checks every probe against the PTX Atomics ABI table, assembles them
//! with ptxas, and prints the results, the CAS-loop counts, registers and instruction counts.
//! `--jobs` configurations are built at a time (default 2).
//! Exit status 1 if anything deviates or fails, 2 on bad usage or missing tools.

use host::abi::AbiTable;
use host::conformance::{self, TargetReport};
use host::ptx::{Target, Toolchain};
use std::process::ExitCode;

const USAGE: &str = "usage: host ptx [--target sm_70|sm_80|sm_90|sm_90_ptx86|all] [--jobs N]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ptx") => ptx(&args[1..]),
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn ptx(args: &[String]) -> ExitCode {
    let mut targets = Target::ALL.to_vec();
    let mut jobs = 2;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next().map(String::as_str)) {
            ("--target", Some("all")) => targets = Target::ALL.to_vec(),
            ("--target", Some(t)) if Target::from_name(t).is_some() => {
                targets = vec![Target::from_name(t).unwrap()]
            }
            ("--jobs", Some(n)) if n.parse::<usize>().is_ok_and(|n| n > 0) => {
                jobs = n.parse().unwrap()
            }
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let tc = match Toolchain::discover() {
        Ok(tc) => tc,
        Err(e) => {
            eprintln!("host ptx: {e}");
            return ExitCode::from(2);
        }
    };
    let table = AbiTable::builtin();
    let mut failed = false;
    let mut reports: Vec<TargetReport> = Vec::new();
    for (target, r) in conformance::run_all(&tc, &targets, &table, jobs) {
        match r {
            Ok(r) => {
                if let Err(e) = &r.ptxas {
                    eprintln!("{target}: {e}");
                    failed = true;
                }
                reports.push(r);
            }
            Err(e) => {
                eprintln!("{target}: {e}");
                failed = true;
            }
        }
    }
    let checked: Vec<_> = reports.iter().map(|r| &r.checked).collect();
    println!("{}", conformance::results_table(&checked));
    println!("{}", conformance::loops_table(&checked));
    println!(
        "{}",
        conformance::summary_table(&reports.iter().collect::<Vec<_>>())
    );
    for r in &reports {
        if !r.checked.others.is_empty() {
            println!(
                "{}: other (non-probe) kernels, not checked against the table: {}",
                r.checked.target,
                r.checked.others.join(", ")
            );
        }
        if let Ok(p) = &r.ptxas {
            for w in &p.warnings {
                println!("{}: ptxas: {w}", r.checked.target);
            }
        }
    }
    let devs = conformance::deviations_report(&checked, 50);
    if !devs.is_empty() {
        println!("DEVIATIONS:\n{devs}");
        failed = true;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        println!("all probes conform to the PTX Atomics ABI table and assemble");
        ExitCode::SUCCESS
    }
}
